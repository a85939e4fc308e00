"""The house rules of svmcore/: packages by role, files a reader can hold, comments that say what
and why (never when), and no module named after a standard-library module.

These read the source tree only; they import nothing of svmcore.
"""
from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("house")   # one worker: the parsed files are shared

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "svmcore"

#: at most 10 modules at svmcore's top level (the command line's cli.py and __main__.py among them)
MAX_TOP_LEVEL = 10
MAX_LINES = 700
#: solver families whose compiled core (the @njit chunk function and the helpers it inlines) is
#: one piece may reach 900 lines (CONTRIBUTING.md, "Architecture")
SOLVER_EXCEPTIONS = {
    "solvers/asset.py", "solvers/cutting_plane.py", "solvers/frank_wolfe.py",
    "solvers/online_kernel.py", "solvers/pegasos.py", "solvers/smo.py",
}
MAX_SOLVER_LINES = 900
MAX_SOLVER_DOCSTRING = 40

TIMING = r"\d[\d.,]*\s*(?:ns|µs|us|ms|s|min|MB|GB|KB|%|×)"
#: comments that work as a changelog: a before→after figure, a trial, a date, an issue number
CHANGELOG = [
    ("before→after timing", re.compile(r"\d[\d.,]*\s*\w{0,3}\s*(?:→|->)\s*~?" + TIMING + r"(?!\w)")),
    ("'tried' / 'measured here'", re.compile(r"\b(?:tried|measured here)\b", re.I)),
    ("issue number", re.compile(r"\bissues? #?\d+\b", re.I)),
    ("#NN reference", re.compile(r"(?<![\w&#])#\d{2,}\b")),
    ("ISO date", re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")),
    ("'was N ms'", re.compile(r"\bwas\s+~?" + TIMING + r"(?!\w)")),
]


def _sources(suffixes=(".py", ".js")):
    return sorted(p for p in PKG.rglob("*") if p.suffix in suffixes and "__pycache__" not in p.parts)


@functools.lru_cache(maxsize=None)
def _comment_text(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python file; the // comments of a JS file."""
    src = path.read_text()
    if path.suffix != ".py":
        return [(i, line.split("//", 1)[1]) for i, line in enumerate(src.splitlines(), 1)
                if "//" in line]
    out = []
    import io
    import tokenize
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    for node in _statements(_tree(path)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                first = node.body[0].lineno
                out += [(first + i, line) for i, line in enumerate(doc.splitlines())]
    return out


def _statements(node):
    """The node and every statement below it, not the expressions (where no docstring is):
    a tenth of ``ast.walk``'s nodes."""
    yield node
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()) or ():
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield from _statements(child)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name


def changelog_comments(paths) -> list[str]:
    found = []
    for path in paths:
        for line, text in _comment_text(path):
            for what, pattern in CHANGELOG:
                if pattern.search(text):
                    found.append(f"{_rel(path)}:{line}: {what}: {text.strip()[:90]}")
    return found


@pytest.mark.parametrize("text, hits", [
    ("# the field: 35 → ~10 ms with the plane trick", True),
    ("# 10.5 s -> 1.2 s once cached", True),
    ("# we tried a jitclass first", True),
    ("# measured here on 2 cores", True),
    ("# see issue 20", True),
    ("# fixes #123", True),
    ("# changed on 2026-11-02", True),
    ("# the tick was 80 ms", True),
    ("# η_t = C/t → 0 as t grows", False),
    ("# 1 → 2 → 3 (the order of the lines)", False),
    ("# one tick: 50-150 ms of solver work", False),
])
def test_the_changelog_patterns_catch_what_they_mean(tmp_path, text, hits):
    f = tmp_path / "m.py"
    f.write_text(text + "\nx = 1\n")
    assert bool(changelog_comments([f])) == hits


def test_comments_say_what_and_why_never_when():
    assert changelog_comments(_sources()) == []


def test_the_tests_say_what_they_check_not_which_issue_asked():
    here = Path(__file__).resolve()
    tests = sorted(p for p in (ROOT / "tests").rglob("*.py")
                   if "__pycache__" not in p.parts and p.resolve() != here)
    assert changelog_comments(tests) == []


def test_at_most_ten_modules_at_the_top_level():
    top = sorted(p.name for p in PKG.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, top


def test_no_file_over_700_lines_and_solver_families_within_900():
    """Python files; the live views' renderer (ui/canvas.js) is one component and not counted."""
    too_long = []
    for path in _sources((".py",)):
        rel = path.relative_to(PKG).as_posix()
        n = len(path.read_text().splitlines())
        limit = MAX_SOLVER_LINES if rel in SOLVER_EXCEPTIONS else MAX_LINES
        if n > limit:
            too_long.append(f"{rel}: {n} lines > {limit}")
    assert too_long == []


def test_the_solver_exceptions_exist_and_their_docstrings_stay_short():
    for rel in SOLVER_EXCEPTIONS:
        path = PKG / rel
        assert path.exists(), rel
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=False) or ""
        assert 0 < len(doc.splitlines()) <= MAX_SOLVER_DOCSTRING, rel


def test_no_module_is_named_after_a_standard_library_module():
    clash = [p.relative_to(ROOT).as_posix() for p in PKG.rglob("*.py")
             if p.stem in sys.stdlib_module_names or
             (p.name == "__init__.py" and p.parent.name in sys.stdlib_module_names)]
    assert clash == []


def test_every_package_says_what_it_holds():
    for init in PKG.rglob("__init__.py"):
        if "__pycache__" in init.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc, f"{init.relative_to(ROOT)} has no docstring"


# ------------------------------------------------------------------------ the import graph
#
# An AST walk of svmcore/ (and of app.py and pages/, the graph's top): every ``import`` and
# ``from ... import`` statement, at any depth (imports inside functions included), relative
# imports resolved, each pointing at the deepest svmcore module it names.

#: the nodes of the package graph besides svmcore's subpackages: the top-level modules
#: (cli, __main__ and the package's __init__: "svmcore"; the private helpers svmcore/_*.py:
#: "base") and the app's router and pages
NODE_LABELS = {
    "app": "app.py: router",
    "pages": "pages/*.py",
    "svmcore": "svmcore: the estimators' import, the command line",
    "base": "svmcore/_*.py: numba options, BLAS threads, numba cache, packaged app",
    "bench": "bench: benchmarks, the report",
    "ui": "ui: the Streamlit kit",
    "replay": "replay: HTML replays, GIF and MP4 of a run",
    "viz": "viz: figures and frames",
    "lessons": "lessons: the lessons' engines",
    "runs": "runs: config + URL, run, race, sweep, export",
    "estimators": "estimators: scikit-learn estimators",
    "server": "server: pacing, warm-up, replicas, protocol client, uploads",
    "solvers": "solvers: registry, contract, kernels, step sizes",
    "data": "data: toys, readers, catalog, downloads",
}

#: package pairs importing each other that the diagram declares (drawn as a two-way arrow)
ALLOWED_PACKAGE_CYCLES: set[frozenset] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _graph_sources() -> dict[str, Path]:
    """module name -> file: svmcore/, app.py and pages/*.py"""
    files = list(_sources((".py",))) + [ROOT / "app.py"] + sorted((ROOT / "pages").glob("*.py"))
    return {_module_name(p): p for p in files if p.exists()}


class ImportGraph:
    """Modules and their imports: ``edges[m]`` = the svmcore modules m imports; ``private`` =
    (importer, module, name, line) for every private name of one module used in another."""

    def __init__(self, files: dict[str, Path]):
        self.files = files
        self.edges: dict[str, set[str]] = {m: set() for m in files}
        self.private: list[tuple[str, str, str, int]] = []
        for mod, path in files.items():
            self._walk(mod, path)

    def _resolve(self, name: str) -> str | None:
        """The deepest module of the graph that a dotted name starts with."""
        while name and name not in self.files:
            name = name.rpartition(".")[0]
        return name or None

    def _walk(self, mod: str, path: Path) -> None:
        tree = _tree(path)
        package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        modules_here: dict[str, str] = {}          # local name -> svmcore module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    target = self._resolve(a.name) if a.name.startswith("svmcore") else None
                    if target:
                        self._edge(mod, target)
                        if a.asname:
                            modules_here[a.asname] = target
                        else:
                            modules_here[a.name.split(".")[0]] = "svmcore"
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                if not src.startswith("svmcore"):
                    continue
                if all(a.name.startswith("__") for a in node.names) and src in self.files \
                        and self.files[src].name == "__init__.py":
                    continue        # a package's metadata (__version__): its __init__ runs first anyway
                for a in node.names:
                    full = f"{src}.{a.name}"
                    target = full if full in self.files else self._resolve(src)
                    if target:
                        self._edge(mod, target)
                    if full in self.files:
                        modules_here[a.asname or a.name] = full
                    elif _is_private(a.name):
                        self.private.append((mod, src, a.name, node.lineno))
        for node in ast.walk(tree):                 # module._name: a private name of a module
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                owner = _dotted(node.value)
                if owner is None:
                    continue
                head, _, rest = owner.partition(".")
                if head not in modules_here:
                    continue
                target = modules_here[head] + ("." + rest if rest else "")
                if target in self.files and target != mod:
                    self.private.append((mod, target, node.attr, node.lineno))

    def _edge(self, a: str, b: str) -> None:
        if a != b:
            self.edges[a].add(b)

    def cycles(self, ignore=frozenset()) -> list[list[str]]:
        """The strongly connected components of more than one module."""
        edges = {a: {b for b in bs if (a, b) not in ignore} for a, bs in self.edges.items()}
        return strongly_connected(edges)

    def packages(self, ignore=frozenset()) -> dict[str, set[str]]:
        """The package graph: package -> the packages its modules import."""
        out = {node_of(m): set() for m in self.files}
        for a, bs in self.edges.items():
            for b in bs:
                if (a, b) not in ignore and node_of(a) != node_of(b):
                    out[node_of(a)].add(node_of(b))
        return out


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def node_of(module: str) -> str:
    """The package graph's node of a module (see NODE_LABELS)."""
    parts = module.split(".")
    if parts[0] != "svmcore":
        return parts[0]                              # app, pages
    if len(parts) == 1 or parts[1] in ("cli", "__main__"):
        return "svmcore"
    if len(parts) == 2 and (PKG / f"{parts[1]}.py").exists():
        return "base"
    return parts[1]


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the components of more than one node, each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return sorted(out)


def render_package_graph(graph: ImportGraph) -> str:
    """The mermaid diagram of CONTRIBUTING.md: one node a package, one arrow per imported
    package (a two-way arrow for a declared cycle)."""
    pk = graph.packages()
    lines = ["flowchart TD"]
    named = set()

    def node(p):
        if p in named:
            return p
        named.add(p)
        return f'{p}["{NODE_LABELS.get(p, p)}"]'

    order = sorted(pk, key=lambda p: list(NODE_LABELS).index(p) if p in NODE_LABELS else 99)
    for a in order:
        for b in sorted(pk[a], key=order.index):
            if frozenset((a, b)) in ALLOWED_PACKAGE_CYCLES:
                if order.index(a) < order.index(b):
                    lines.append(f"    {node(a)} <--> {node(b)}")
                continue
            lines.append(f"    {node(a)} --> {node(b)}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def graph() -> ImportGraph:
    return ImportGraph(_graph_sources())


def test_the_graph_sees_imports_inside_functions_and_relative_ones(tmp_path, monkeypatch):
    pkg = tmp_path / "svmcore"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("def f():\n    from .y import g\n    from ..b import _h\n")
    (pkg / "a" / "y.py").write_text("from svmcore.a import x\nx._secret\ndef g(): pass\n")
    (pkg / "b.py").write_text("import svmcore.a.y as yy\n_h = 1\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    g = ImportGraph({_module_name(p): p for p in pkg.rglob("*.py")})
    assert g.edges["svmcore.a.x"] == {"svmcore.a.y", "svmcore.b"}
    assert g.edges["svmcore.a.y"] == {"svmcore.a.x"}
    assert g.cycles() == [["svmcore.a.x", "svmcore.a.y", "svmcore.b"]]
    assert {(m, s, n) for m, s, n, _ in g.private} == {("svmcore.a.x", "svmcore.b", "_h"),
                                                       ("svmcore.a.y", "svmcore.a.x", "_secret")}


def test_no_import_cycle_between_modules(graph):
    assert graph.cycles() == []


def test_no_cycle_between_packages_but_the_declared_ones(graph):
    pk = graph.packages()
    cut = {a: {b for b in bs if frozenset((a, b)) not in ALLOWED_PACKAGE_CYCLES}
           for a, bs in pk.items()}
    assert strongly_connected(cut) == []
    for pair in ALLOWED_PACKAGE_CYCLES:
        a, b = sorted(pair)
        assert b in pk[a] and a in pk[b], pair


def test_no_private_name_of_one_module_used_in_another(graph):
    found = sorted({(m, s, n) for m, s, n, _ in graph.private})
    assert found == []


def _contributing_diagram() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    m = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert m, "CONTRIBUTING.md has no mermaid diagram"
    return m.group(1)


def test_the_contributing_diagram_is_drawn_from_the_import_graph(graph):
    """Regenerate with ``python tests/test_house.py --diagram`` and paste it in."""
    assert _contributing_diagram() == render_package_graph(graph)



# ------------------------------------------------------------ references named in docstrings

ROLE = re.compile(r":(func|mod|class|meth|attr|data):`~?([^`]+)`")
TEST_PATH = re.compile(r"(?<![\w/.])tests/[\w/]+\.py\b")


@functools.lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


class ModuleNames:
    """The names a module defines or imports, read from its AST (nothing is imported)."""

    def __init__(self, path: Path):
        tree = _tree(path)
        self.top: set[str] = set()
        self.members: dict[str, set[str]] = {}
        self.anywhere: set[str] = set()
        for node in tree.body:
            self.top |= _bound_names(node)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = set()
                for item in node.body:
                    names |= _bound_names(item)
                for sub in ast.walk(node):          # self.x = ... in the methods
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store)
                            and isinstance(sub.value, ast.Name) and sub.value.id == "self"):
                        names.add(sub.attr)
                self.members[node.name] = names
            self.anywhere |= _bound_names(node)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                self.anywhere.add(node.attr)


def _bound_names(node) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.If, ast.Try, ast.With)):
        out = set()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) or isinstance(child, ast.ExceptHandler):
                for sub in ([child] if isinstance(child, ast.stmt) else child.body):
                    out |= _bound_names(sub)
        return out
    return set()


def _target_resolves(target: str, here: str, files: dict[str, Path], names) -> bool:
    """Does a Sphinx role's target name a module, or a name in one? ``svmcore.x.f``,
    ``.warm`` (relative to the package), ``Class.method`` or a bare name of this module."""
    target = target.strip().rstrip("()")
    if target.startswith("."):
        pkg = here.rpartition(".")[0] if not files[here].name == "__init__.py" else here
        target = pkg + target
    if target.startswith("svmcore"):
        mod, rest = target, []
        while mod and mod not in files:
            mod, _, last = mod.rpartition(".")
            rest.insert(0, last)
        if not mod:
            return False
        if not rest:
            return True
        where = names(mod)
        if rest[0] not in where.top:
            return False
        return len(rest) == 1 or (rest[0] in where.members and rest[1] in where.members[rest[0]])
    where = names(here)
    first, _, member = target.partition(".")
    if not member:
        return first in where.anywhere
    if first in where.members:
        return member.split(".")[0] in where.members[first]
    return first in where.top                      # an imported name's attribute


def stale_references(files: dict[str, Path]) -> list[str]:
    cache: dict[str, ModuleNames] = {}

    def names(mod):
        if mod not in cache:
            cache[mod] = ModuleNames(files[mod])
        return cache[mod]

    found = []
    for mod, path in sorted(files.items()):
        for line, text in _comment_text(path):
            for m in TEST_PATH.finditer(text):
                if not (ROOT / m.group(0)).exists():
                    found.append(f"{_rel(path)}:{line}: no file {m.group(0)}")
            for m in ROLE.finditer(text):
                if not _target_resolves(m.group(2), mod, files, names):
                    found.append(f"{_rel(path)}:{line}: :{m.group(1)}:`{m.group(2)}` names "
                                 "nothing")
    return found




def test_the_reference_check_catches_what_it_means(tmp_path, monkeypatch):
    pkg = tmp_path / "svmcore"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text('"""See :func:`svmcore.a.f`, :class:`C.m`, :func:`g`, '
                              ':mod:`svmcore.b` and tests/nowhere.py."""\n'
                              "class C:\n    def m(self):\n        pass\n\n"
                              "def f():\n    pass\n")
    files = {"svmcore": pkg / "__init__.py", "svmcore.a": pkg / "a.py"}
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = stale_references(files)
    assert [f.split(": ", 1)[1] for f in found] == [
        "no file tests/nowhere.py", ":func:`g` names nothing", ":mod:`svmcore.b` names nothing"]


def test_every_test_path_and_role_target_in_a_docstring_resolves():
    files = {m: p for m, p in _graph_sources().items() if m.startswith("svmcore")}
    found = {tuple(re.sub(r":\d+: ", ": ", f, count=1).split(": ", 1))
             for f in stale_references(files)}
    assert sorted(found) == []


# ------------------------------------------------------------------- the cost counters' mutants

#: counter sites once left alive by ``python tests/mutate_costs.py`` (``+= 1 + x`` passed every
#: test), with the test of tests/solvers/test_cost_counters.py written to kill each. The
#: mutation run itself recompiles a solver per mutant (minutes), so it is not part of the suite:
#: this checks that the sites are still where the mutation check looks, not listed as
#: equivalent, and that their tests still exist.
KILLED_BY = {
    ("online_kernel.py", "carry_over"):
        "test_online_kernel_counts_the_outputs_rebuilt_when_a_run_continues",
    ("smo.py", "_fill_row"): "test_smo_counts_the_diagonal_and_n_per_row_miss",
}


def test_the_once_surviving_counter_mutants_have_their_tests():
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import mutate_costs
    finally:
        sys.path.remove(str(ROOT / "tests"))
    sites = {s.key for s in mutate_costs.find_sites(ROOT)}
    tests = (ROOT / mutate_costs.TEST).read_text()
    for key, test in KILLED_BY.items():
        assert key in sites and key not in mutate_costs.EQUIVALENT, key
        assert f"def {test}(" in tests, test


if __name__ == "__main__" and "--diagram" in sys.argv:
    print(render_package_graph(ImportGraph(_graph_sources())), end="")
elif __name__ == "__main__" and "--graph" in sys.argv:
    g = ImportGraph(_graph_sources())
    print("module cycles:", g.cycles())
    print("package cycles:", strongly_connected(g.packages()))
    print(len({(m, s, n) for m, s, n, _ in g.private}), "private names across files:")
    for m, s, n, line in sorted(g.private):
        print(f"  {m}:{line} {s}.{n}")
