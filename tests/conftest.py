"""Shared fixtures: the real-data folder (../shared/data or $SVMCORE_DATA)."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))       # tests/reference.py


@pytest.fixture(scope="session")
def data_folder() -> Path:
    from svmcore.data import data_dir
    d = data_dir()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have the real datasets: ../shared/data or SVMCORE_DATA")
        pytest.skip("no real-data folder (set SVMCORE_DATA or put shared/data beside the repo)")
    return Path(d)
