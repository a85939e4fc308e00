"""The lesson player: the lessons of :mod:`svmcore.lessons.course`, played on the app's pages.

:func:`follow_lesson_link` (the router calls it on every run, between ``st.navigation`` and the
page) opens ``?lesson=K&step=i`` on any page: the step's page with the step's query (its
configuration), ``lesson`` and ``step`` and, when the link or the teacher asks for it,
``present=1`` (projector mode). A link that names no step, or a step whose real data are not on
this machine, opens the Lessons page with one line saying why.

On the step's page :func:`lesson_bar` draws one bar above the picture: "Lesson K · step i of n",
what the teacher does and the question for the class; the picture's words behind a toggle (to
reveal after the class answered); Back and Next (keys PageUp and PageDown, what a presenter's
remote sends; Space, → and Home keep their meanings); and the controls the step asks for
(:data:`svmcore.lessons.course.CONTROLS`). Those are copies of the sidebar's widgets bound to
the same session-state keys: a change of a copy is written into the sidebar widget's key before
the page runs, so the run takes it exactly as it takes the sidebar's (a mid-run change while it
plays). Controls that are on the page already in projector mode (the 3-D view toggle, the 3-D
picture switch, the edit modes, the speed) are named, not copied.

:func:`lesson_list` is the Lessons page: every lesson and its steps, each a link (and one in
projector mode).
"""
from __future__ import annotations

from urllib.parse import parse_qsl

import streamlit as st

from ..data.digits import REST
from ..lessons.course import LESSONS, LessonLinkError, find_step, missing_data, step_link
from ..runs.config import BUDGET_LABELS, RACE_BUDGETS
from ..solvers import get_solver
from .params import page_specs, param_key, param_widget
from .state import Instance, instance, ss
from .urls import LESSON_KEYS

#: the page file of each step page (``Step.page``: the url_path of app.py's navigation)
PAGE_FILES = {"": "pages/playground.py", "race": "pages/race.py", "sweep": "pages/sweep.py",
              "step_sizes": "pages/step_sizes.py", "step_through": "pages/step_through.py",
              "digits": "pages/digits.py", "regression": "pages/regression.py",
              "kernel_approx": "pages/kernel_approx.py", "papers": "pages/papers.py"}
#: the page instance of each step page (its widget keys' prefix)
PREFIXES = {"": "pg", "race": "race", "sweep": "sw", "step_sizes": "steps",
            "step_through": "st", "digits": "dg", "regression": "rg", "kernel_approx": "ka",
            "papers": "papers"}
LESSONS_PAGE = "pages/lessons.py"
#: where each control that is not copied sits on the page
ON_THE_PAGE = {"view3d": "the 3-D view toggle (top right)",
               "view3d_pic": "the 3-D picture switch above the field (3-D view on)",
               "edit": "the click-on-the-field modes beside the field",
               "speed": "the speed slider in the toolbar"}
_OPEN = "_lesson_open"         # (lesson, step, page) the player opened in this session
_GO = "_lesson_go"             # (lesson, step, present) asked for by Back / Next
_PROBLEM = "_lesson_problem"   # the one line the Lessons page says about a bad link


def _query() -> dict:
    return {k: st.query_params.get_all(k)[-1] for k in st.query_params.keys()}


def _present_now(page: str) -> bool:
    """Whether the page's instance is in projector mode."""
    return bool(ss.get(f"{PREFIXES.get(page, page)}_present"))


def _stop_playing(inst: Instance) -> None:
    """A new step starts its run at t = 0, not playing (the teacher presses Play)."""
    if getattr(inst, "playing", False):
        from .live_controls import unshare
        inst.playing = False
        unshare(inst)


def _refused(message: str) -> None:
    ss[_PROBLEM] = message
    ss.pop(_OPEN, None)
    st.switch_page(LESSONS_PAGE)


def _prepare(step, present: bool) -> None:
    """The step's page instance reads its link again (ui.start, sweep_start), at t = 0 and not
    playing, in projector mode when asked."""
    inst = instance(PREFIXES.get(step.page, step.page))
    _stop_playing(inst)
    inst.started = False
    if present:
        inst.set("present", True)


def open_step(k: int, i: int, present: bool) -> None:
    """Open step i of lesson k on its page (st.switch_page: ends this script run), with the
    step's configuration read by the page as a link's, in projector mode when ``present``."""
    try:
        _, step = find_step(k, i)
    except LessonLinkError as exc:
        _refused(str(exc))
    problem = missing_data(step)
    if problem is not None:
        _refused(f"Lesson {k}, step {i}: {problem}.")
    _prepare(step, present)
    query = dict(parse_qsl(step.query, keep_blank_values=True))
    query.update({"lesson": str(k), "step": str(i)})
    if present:
        query["present"] = "1"
    ss[_OPEN] = (k, i, step.page)
    st.switch_page(PAGE_FILES[step.page], query_params=query)


def follow_lesson_link(url_path: str) -> None:
    """The router's part (before the page runs): Back / Next pressed on the last run, or a
    ``?lesson=K&step=i`` link not opened yet in this session, opens its step. A link on the
    step's own page that carries a configuration (a shared link of a step whose settings the
    teacher changed) keeps that configuration."""
    go = ss.pop(_GO, None)
    if go is not None:
        open_step(*go)
    q = _query()
    if not set(LESSON_KEYS) & set(q):
        return
    raw = (q.get("lesson", ""), q.get("step", "1"))
    try:
        les, step = find_step(*raw)
    except LessonLinkError as exc:
        _refused(str(exc))
    i = les.steps.index(step) + 1
    if ss.get(_OPEN) == (les.number, i, url_path):
        return
    problem = missing_data(step)
    if problem is not None:
        _refused(f"Lesson {les.number}, step {i}: {problem}.")
    own = set(q) - set(LESSON_KEYS) - {"present"}
    if url_path == step.page and own:
        _prepare(step, q.get("present") == "1")
        ss[_OPEN] = (les.number, i, url_path)
        return
    open_step(les.number, i, q.get("present") == "1")


def current_step(page: str):
    """``(lesson, step, i)`` of the step open on ``page`` (from the URL), or None."""
    q = _query()
    if not set(LESSON_KEYS) & set(q):
        return None
    try:
        les, step = find_step(q.get("lesson", ""), q.get("step", "1"))
    except LessonLinkError:
        return None
    if step.page != page:
        return None
    return les, step, les.steps.index(step) + 1


def _go(k: int, i: int, page: str) -> None:
    ss[_GO] = (k, i, _present_now(page))


def _neighbours(k: int, i: int) -> tuple:
    """(Back's (lesson, step) or None, Next's or None): across lessons at their ends."""
    les = LESSONS[k - 1]
    back = (k, i - 1) if i > 1 else ((k - 1, len(LESSONS[k - 2].steps)) if k > 1 else None)
    nxt = (k, i + 1) if i < len(les.steps) else ((k + 1, 1) if k < len(LESSONS) else None)
    return back, nxt


# ----------------------------------------------------------------------------- the controls

def _mirror(real: str, proxy: str, draw):
    """A copy of the widget of key ``real`` under the key ``proxy``: it shows the real value,
    and a change is written into ``real`` (a callback: before the page's widgets are drawn)."""
    if real in ss:
        ss[proxy] = ss[real]

    def copy():
        ss[real] = ss[proxy]
    return draw(proxy, copy)


def _param_copy(inst: Instance, sub: str, name: str, label: str) -> bool:
    solver = ss.get(inst.key(f"{sub}_solver" if sub else "solver"))
    if solver is None:
        return False
    specs = page_specs(solver, inst.get("src"))
    spec = specs.get(name)
    if spec is None or spec.kind == "averaging":
        return False
    current = {k: ss.get(param_key(inst, sub, solver, k), s.default) for k, s in specs.items()}
    if not spec.applies(current):
        return False
    choices = None
    if name == "kernel" and spec.kind == "choice":
        choices = [c for c in spec.choices if c in get_solver(solver).kernels]
    real = param_key(inst, sub, solver, name)
    _mirror(real, f"_lesson_{real}", lambda key, copy: param_widget(label, spec, key, choices,
                                                                    None, on_change=copy))
    return True


def _solver_copy(inst: Instance, sub: str, label: str) -> bool:
    from ..solvers import list_solvers
    real = inst.key(f"{sub}_solver" if sub else "solver")
    names = list_solvers()
    if ss.get(real) not in names:
        return False
    _mirror(real, f"_lesson_{real}", lambda key, copy: st.selectbox(
        label, names, key=key, on_change=copy, format_func=lambda s: get_solver(s).title or s))
    return True


def _entrants(inst: Instance, step) -> list[tuple[str, str]]:
    """(sub, letter) of the race entrants a step's controls apply to: those its mid-run changes
    name, else every entrant."""
    n = int(ss.get(inst.key("count"), 2) or 2)
    named = sorted({c[1] for c in step.changes if len(c) > 1 and c[1] is not None})
    return [(f"e{k}", "ABCD"[k]) for k in (named or range(n)) if k < n]


def step_controls(inst: Instance, page: str, step) -> list[str]:
    """The controls the step asks for, as copies of the page's widgets; returns the lines that
    name the controls already on the page."""
    elsewhere = []
    for name in step.controls:
        if name in ON_THE_PAGE:
            elsewhere.append(ON_THE_PAGE[name])
        elif page == "race" and name == "budget":
            real = inst.key("budget")
            _mirror(real, f"_lesson_{real}", lambda key, copy: st.selectbox(
                "lockstep budget", list(RACE_BUDGETS), key=key, on_change=copy,
                format_func=BUDGET_LABELS.get))
        elif page == "race":
            unused = []
            for sub, letter in _entrants(inst, step):
                if name == "solver":
                    _solver_copy(inst, sub, f"{letter}: solver")
                elif not _param_copy(inst, sub, name, f"{letter}: {name}"):
                    unused.append((sub, letter))
            # said only when no entrant uses it: a line for the entrant without it would push
            # the picture down, and the copy beside it shows whose it is
            if len(unused) == len(_entrants(inst, step)):
                for sub, letter in unused:
                    _unused(f"{sub}_{name}", f"{letter}: {name}")
        elif page == "digits" and name == "against":
            real = inst.key("neg")
            _mirror(real, f"_lesson_{real}", lambda key, copy: st.selectbox(
                "against (−1)", [str(k) for k in range(10)] + [REST], key=key, on_change=copy))
        elif page == "step_sizes" and name == "schedule":
            from .step_sizes import SCHEDULE_CODES
            real = inst.key("schedules")
            _mirror(real, f"_lesson_{real}", lambda key, copy: st.multiselect(
                "schedules (2–4)", list(SCHEDULE_CODES), key=key, on_change=copy,
                max_selections=4))
        elif page == "sweep" and name in ("C", "gamma"):
            real = inst.key("nC" if name == "C" else "ng")
            label = "C values" if name == "C" else "γ values"
            _mirror(real, f"_lesson_{real}", lambda key, copy, label=label: st.slider(
                label, 1, 8, key=key, on_change=copy))
        elif name == "solver":
            _solver_copy(inst, "", "solver")
        elif not _param_copy(inst, "", name, name):
            _unused(name, name)
    return elsewhere


def _unused(key: str, label: str) -> None:
    """A control the step names that the current settings do not use (η0 of a schedule
    without one, γ of a linear kernel): said in its place; it appears when they change."""
    st.container(key=f"_lesson_unused_{key}", width="content").caption(
        f"{label}: not used with these settings", help="It appears here when the settings "
        "that use it are chosen (as in the sidebar).")


# ----------------------------------------------------------------------------- the bar

# the bar's widgets that take a width of their own (not its buttons, toggle and caption)
_WIDGETS = ("[class*='st-key-_lesson_ctl'] > [data-testid=stElementContainer]:has("
            "[data-testid=stSlider], [data-testid=stSelectbox], [data-testid=stMultiSelect], "
            "[data-testid=stNumberInput], [data-testid=stButtonGroup])")
_CSS = f"""<style>
[class*='st-key-_lesson_bar'] {{background: #f0f2f6; border-radius: 6px; padding: 2px 8px;
                              gap: 0.2rem !important;}}
{_WIDGETS} {{flex: 0 1 11rem; min-width: 8rem;}}
</style>"""
# in projector mode the first line leaves the header's corner to its toggles, and lets clicks
# there through to them; the controls' width grows with their text (the projector unit)
_CSS_PRESENT = f"""<style>
[class*='st-key-_lesson_text'] {{padding-right: calc(520 * var(--svmc-u));}}
[class*='st-key-_lesson_bar'], [class*='st-key-_lesson_text'] {{pointer-events: none;}}
[class*='st-key-_lesson_ctl'], [class*='st-key-_lesson_bar'] [data-testid=stMarkdownContainer] {{
  pointer-events: auto;}}
{_WIDGETS} {{flex: 0 1 calc(176 * var(--svmc-u)); min-width: calc(128 * var(--svmc-u));}}
</style>"""


def lesson_bar(inst: Instance, page: str, present: bool = False) -> bool:
    """The bar of the lesson step open on ``page`` (nothing when none is): one line with
    "Lesson K · step i of n", the action and the question; one line with Back / Next (PageUp /
    PageDown), the toggle that reveals the picture's words and the step's controls. True when
    it was drawn."""
    at = current_step(page)
    if at is None:
        return False
    les, step, i = at
    st.html(_CSS + (_CSS_PRESENT if present else ""))
    back, nxt = _neighbours(les.number, i)
    with st.container(key="_lesson_bar", gap=None):
        st.container(key="_lesson_text").markdown(
            f"**Lesson {les.number} · step {i} of {len(les.steps)}** — {step.action} "
            f"**Ask:** {step.question}")
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small",
                          key="_lesson_ctl"):
            st.button("Back", key="_lesson_back", shortcut="PageUp", disabled=back is None,
                      on_click=_go, args=(*(back or (0, 0)), page),
                      icon=":material/arrow_back:",
                      help="The previous step (PageUp, a presenter remote's back key).")
            st.button("Next", key="_lesson_next", shortcut="PageDown", disabled=nxt is None,
                      on_click=_go, args=(*(nxt or (0, 0)), page),
                      icon=":material/arrow_forward:", type="primary",
                      help="The next step (PageDown, a presenter remote's forward key).")
            reveal = st.toggle("picture", key=f"_lesson_reveal_{les.number}_{i}",
                               help="The picture in words: reveal it after the class "
                                    "answered.")
            elsewhere = step_controls(inst, page, step)
            if elsewhere:
                st.caption("Use also: " + "; ".join(elsewhere) + ".", width="content")
        if reveal:
            st.markdown(f":material/visibility: **The picture:** {step.picture}")
    return True


# ----------------------------------------------------------------------------- the list

def lesson_list() -> None:
    """The Lessons page: a bad link's message, then every lesson with its steps as links."""
    problem = ss.pop(_PROBLEM, None)
    if problem is not None:
        st.error(f"This lesson link does not open: {problem}", icon=":material/link_off:")
    st.title("Lessons")
    st.caption("Six lessons of 10–15 minutes, each a list of steps played on the app's pages. "
               "A step opens with its configuration and a bar above the picture: what to do, "
               "the question for the class, the picture in words on demand, Back / Next "
               "(PageUp / PageDown); the projector link opens a step in projector mode.")
    for les in LESSONS:
        st.subheader(f"Lesson {les.number} — {les.title} ({les.minutes} min)", anchor=False)
        for i, step in enumerate(les.steps, 1):
            problem = missing_data(step)
            query = dict(parse_qsl(step.query, keep_blank_values=True))
            query.update({"lesson": str(les.number), "step": str(i)})
            with st.container(horizontal=True, vertical_alignment="center", gap="small"):
                st.page_link(PAGE_FILES[step.page], label=f"{i}. {step.title}",
                             query_params=query, disabled=problem is not None,
                             help=step_link(les.number, i))
                st.page_link(PAGE_FILES[step.page], label="projector",
                             icon=":material/slideshow:", query_params={**query, "present": "1"},
                             disabled=problem is not None,
                             help=step_link(les.number, i, present=True))
                if problem:
                    st.caption(problem)
        st.caption(f"Take-away: {les.takeaway}")
