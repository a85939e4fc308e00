"""The wheel carries the app: ``app.py``, ``pages/``, ``.streamlit/config.toml`` and the dataset catalog stay at the top of
the checkout (``streamlit run app.py`` works there) and are copied into ``svmcore/_app/`` of the
built package, where ``svmcore app`` runs them (svmcore/_packaged.py finds either place).
Everything else about the package is declared in pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: checkout file -> its place inside the built svmcore package
APP_FILES = {"app.py": "_app/app.py", "datasets/catalog.toml": "_app/datasets/catalog.toml",
             # the app's Streamlit settings: Streamlit reads them beside the main script too
             ".streamlit/config.toml": "_app/.streamlit/config.toml"}
APP_FILES.update({f"pages/{p.name}": f"_app/pages/{p.name}"
                  for p in sorted((HERE / "pages").glob("*.py"))})


class BuildPyWithApp(build_py):
    """build_py, plus the app's files copied into the package (not for editable installs: a
    checkout runs them where they are)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for src, dst in APP_FILES.items():
            target = Path(self.build_lib) / "svmcore" / dst
            self.mkpath(str(target.parent))
            self.copy_file(str(HERE / src), str(target))

    def get_outputs(self, include_bytecode=True):
        outs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outs
        return outs + [str(Path(self.build_lib) / "svmcore" / d) for d in APP_FILES.values()]


setup(cmdclass={"build_py": BuildPyWithApp})
