"""One place for numba options.

Every compiled function in svmcore is decorated with :data:`njit` from here:

* ``cache=True``  — compiled code is written to disk (``NUMBA_CACHE_DIR`` or ``__pycache__``),
  so a restart of the app does not recompile;
* ``nogil=True``  — the GIL is released while a solver chunk runs, so a Streamlit server with
  several sessions keeps answering;
* no ``parallel=True`` (numba's default threading layer aborts when parallel code is entered
  from several threads, which is what a Streamlit server does) and no ``fastmath`` (it lets
  LLVM assume there are no NaNs, and the divergence checks rely on seeing them).
"""
from functools import partial

import numba

njit = partial(numba.njit, cache=True, nogil=True)

__all__ = ["njit"]
