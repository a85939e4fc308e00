"""``python -m svmcore ...``: the ``svmcore`` command (svmcore.cli)."""
import sys

from .cli import main

sys.exit(main())
