"""The ``svmcore`` command (also ``python -m svmcore``): the app, the datasets, the benchmarks,
sweeps and serving replicas, each delegated to the module that owns it.

    svmcore app [streamlit run options...]   # the app; e.g. --server.port 8502
    svmcore list                             # the dataset catalog: rows, size, where
    svmcore fetch NAME... | --all            # download, verify and cache datasets
    svmcore bench NAME [options]             # a benchmark (svmcore bench --help lists them)
    svmcore sweep [options]                  # a C x gamma (or any parameter) grid of runs
    svmcore export LINK --html run.html      # a run's replay (HTML), --gif / --mp4 its animation
    svmcore serve --replicas K               # K app servers behind nginx
    svmcore lessons check [--lesson K]       # the teacher's dry run of the lessons
    svmcore --version

Options after a command go to that command (``svmcore sweep --help`` shows the sweep's own).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

#: command -> (module, its function taking an argv list, words put before the user's argv,
#: one-line help). The modules load only when their command runs, so ``svmcore --help`` imports
#: neither numba nor streamlit; a module that moves is one line to change here.
COMMANDS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "app": ("svmcore.cli", "run_app", (), "start the app: `streamlit run` of the packaged "
            "app.py; options pass through to it (default port 8501)"),
    "list": ("svmcore.data.__main__", "main", ("list",), "the dataset catalog: rows, size, "
             "where each dataset is (local, cached, remote)"),
    "fetch": ("svmcore.data.__main__", "main", ("fetch",), "download, verify and cache datasets "
              "(NAME... or --all) into the user cache folder"),
    "bench": ("svmcore.bench.__main__", "main", (), "run a benchmark: svmcore bench NAME "
              "[options] (no NAME: the list)"),
    "sweep": ("svmcore.runs.sweep.command", "main", (), "a grid of runs on local processes or a Dask "
              "cluster (default: solver sfw on the gaussians toy, local processes)"),
    "export": ("svmcore.replay.files", "main", (), "a run as files: a replay that plays "
               "offline (HTML) and an animation for slides (GIF, MP4), from an app link"),
    "serve": ("svmcore.server.replicas", "main", (), "serve the app with --replicas K (default 2) "
              "behind nginx on --port (default 8501)"),
    "lessons": ("svmcore.lessons.cli", "main", (), "the teacher's lessons: `svmcore lessons "
                "check [--lesson K]` plays every step's check (✓ / ✗, value, seconds)"),
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("svmcore")
    except PackageNotFoundError:                      # a checkout on sys.path, not installed
        from . import __version__
        return __version__


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="svmcore", description=__doc__.split("\n\n")[0],
                                 epilog="Run `svmcore COMMAND --help` for a command's options.")
    ap.add_argument("--version", action="version", version=f"svmcore {_version()}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, _, _, text) in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    return ap


def run_app(argv: list[str]) -> int:
    """``streamlit run <app.py> argv...``: the installed package's copy of the app (or the
    checkout's), as a child process; Streamlit reads the app's settings from the
    ``.streamlit/config.toml`` beside it, then the options given here."""
    if argv[:1] in (["-h"], ["--help"]):
        print("usage: svmcore app [streamlit run options...]\n\n"
              "Start the app (`streamlit run` of the packaged app.py). Every option goes to\n"
              "Streamlit, e.g. --server.port 8502 (default 8501), --server.address 0.0.0.0\n"
              "(default: every address), --server.headless true (default: false, opens a\n"
              "browser). `streamlit run --help` lists them all.")
        return 0
    from ._packaged import app_script
    script = app_script()
    if script is None:
        print("svmcore app: app.py not found (neither svmcore/_app/app.py of an installed "
              "package nor a checkout's)", file=sys.stderr)
        return 1
    # Streamlit's own command (so only svmcore.ui imports streamlit), in this process's place:
    # a signal to `svmcore app` (Ctrl+C, a service manager's stop) reaches the server itself
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "streamlit", "run", str(script), *argv])


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):           # --help, --version, nothing
        ap = _parser()
        ap.parse_args(argv)
        ap.print_help()
        return 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        _parser().error(f"unknown command {name!r} (choose from {', '.join(COMMANDS)})")
    module, function, prefix, _ = COMMANDS[name]
    result = getattr(importlib.import_module(module), function)([*prefix, *rest])
    return result if isinstance(result, int) else 0
