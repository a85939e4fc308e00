"""The wheel is the app: build it, install it into a fresh venv, and run the ``svmcore`` command
from an empty folder (no checkout on ``sys.path``) until chromium shows the Playground's field.

No network: the wheel is built with ``pip wheel --no-deps --no-build-isolation`` (setuptools from
the [test] extra) from a copy of the checkout's package files (an in-tree build would reuse the
checkout's ``build/`` folder, where a deleted module lingers), and installed with ``pip install --no-index`` into a venv made without pip and
without system site-packages. Its dependencies are the ones this test runs in: a ``.pth`` line
puts this interpreter's site-packages folder on the new venv's path. A plain path line does not
run the ``.pth`` files inside that folder, so the editable install of this checkout (an import
hook in a ``.pth``) stays invisible: ``svmcore`` there can only be the wheel's. pip sees the
dependencies on the path as installed, so ``--no-index`` without ``--no-deps`` also checks that
every declared dependency is present.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from streamlit_server import free_port, http_get

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(bin folder of a fresh venv with the wheel installed, an empty working folder, env)``."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "app.py"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("svmcore", "pages", "datasets", ".streamlit"):
        shutil.copytree(ROOT / name, src / name, ignore=junk)
    wheels = tmp / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(wheels), str(src)],
                   check=True, cwd=tmp, timeout=120)
    (wheel,) = wheels.glob("svmcore-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=60)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], check=True, capture_output=True, text=True)
                .stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_deps_of_the_test_venv.pth").write_text("\n".join(sorted(ours)) + "\n")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                    "--no-index", str(wheel)], check=True, timeout=120)
    print(f"wheel install into a fresh venv: {time.perf_counter() - t0:.1f} s")
    work = tmp / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SVMCORE_CATALOG")}
    env.update(NUMBA_CACHE_DIR=str(tmp / "numba"), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    return venv / "bin", work, env


def _run(installed, *args, timeout=60):
    bin_, work, env = installed
    return subprocess.run([str(bin_ / "svmcore"), *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_wheel_holds_the_app_and_the_command_runs_from_an_empty_folder(installed):
    bin_, work, env = installed
    where = subprocess.run([str(bin_ / "python"), "-c", "import svmcore, svmcore._packaged as p;"
                            "print(svmcore.__file__); print(p.app_script());"
                            "from svmcore.data.catalog import catalog_path; print(catalog_path())"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    module, app, catalog = where.stdout.split()
    assert str(ROOT) not in module and "site-packages" in module
    assert app.endswith("svmcore/_app/app.py") and catalog.endswith("_app/datasets/catalog.toml")
    pkg = Path(module).parent
    assert (pkg / "ui" / "canvas.js").is_file()
    assert (pkg / "_app" / "pages" / "playground.py").is_file()
    assert (pkg / "_app" / ".streamlit" / "config.toml").is_file()

    version = _run(installed, "--version")
    assert version.returncode == 0 and version.stdout.strip() == "svmcore 0.1.0"
    helped = _run(installed, "--help")
    assert helped.returncode == 0
    for command in ("app", "list", "fetch", "bench", "sweep", "serve"):
        assert f"\n    {command} " in helped.stdout
    listed = _run(installed, "list")
    assert listed.returncode == 0, listed.stderr
    assert "a9a" in listed.stdout and "covtype.binary" in listed.stdout
    module_form = subprocess.run([str(bin_ / "python"), "-m", "svmcore", "--version"], cwd=work,
                                 env=env, capture_output=True, text=True)
    assert module_form.stdout.strip() == "svmcore 0.1.0"


def test_svmcore_app_from_an_empty_folder_shows_the_playground(installed, browser):
    bin_, work, env = installed
    port = free_port()
    log = open(work.parent / "app.log", "w")
    proc = subprocess.Popen([str(bin_ / "svmcore"), "app", "--server.headless", "true",
                             "--server.port", str(port), "--server.fileWatcherType", "none"],
                            cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 40
        while True:
            try:
                if http_get(url + "/_stcore/health", 1.0) == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None, (work.parent / "app.log").read_text()
            assert time.monotonic() < deadline, "the app did not answer"
            time.sleep(0.2)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.wait_for_selector(".st-key-pg_field canvas", timeout=45_000)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
