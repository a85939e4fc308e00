"""One place for numba options, and for where numba keeps its compiled code.

Every compiled function in svmcore is decorated with :data:`njit` from here:

* ``cache=True``  — compiled code is written to disk, so a restart of the app does not
  recompile. The folder is explicit: ``NUMBA_CACHE_DIR`` if it is set, else
  :func:`default_cache_dir` (the user's cache folder, ``~/.cache/svmcore/numba`` on Linux),
  created here before numba is imported — never ``__pycache__`` next to the sources, which
  may be read-only (an installed package, a container image);
* ``nogil=True``  — the GIL is released while a solver chunk runs, so a Streamlit server with
  several sessions keeps answering;
* no ``parallel=True`` (numba's default threading layer aborts when parallel code is entered
  from several threads, which is what a Streamlit server does) and no ``fastmath`` (it lets
  LLVM assume there are no NaNs, and the divergence checks rely on seeing them); the one
  exception is :data:`njit_reduce` below, which allows only reassociation.
"""
from functools import partial

from ._cachedir import configure_cache, default_cache_dir  # noqa: F401

CACHE_DIR = configure_cache()

import numba  # noqa: E402  (after NUMBA_CACHE_DIR is set: numba reads it at import)
import numba.extending  # noqa: E402

if numba.config.CACHE_DIR != CACHE_DIR:   # numba was imported before svmcore: tell it now
    numba.config.CACHE_DIR = CACHE_DIR

njit = partial(numba.njit, cache=True, nogil=True)

# For pure inner-product helpers only (a sum of products, no branches, no NaN tests): allow
# LLVM to reassociate the sum so it vectorises. "reassoc" and "contract" do NOT let the compiler
# assume finite values (that would be "nnan"/"ninf"), so a NaN or inf still propagates to the
# caller's checks. Short dependency chains let the CPU overlap the row loads (about 3× faster
# dot products on covtype's 54-feature rows in random order).
# The helpers are inlined into their callers by LLVM and keep their flags there.
njit_reduce = partial(numba.njit, cache=True, nogil=True, fastmath={"reassoc", "contract"})



def _prefetch_codegen(context, builder, signature, args):
    """Emit ``llvm.prefetch(ptr, read, high locality, data)`` for the element at the indices."""
    from llvmlite import ir
    from numba.core import cgutils
    aryty = signature.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    idx = [context.cast(builder, v, t, numba.types.intp)
           for v, t in zip(args[1:], signature.args[1:])]
    ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx, wraparound=False)
    i32, i8p = ir.IntType(32), ir.IntType(8).as_pointer()
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
    builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
    return context.get_dummy_value()


@numba.extending.intrinsic
def prefetch(typingctx, arr, i):
    """Ask the CPU to start loading ``arr[i]`` into the cache (a hint: no effect on results,
    no bounds check needed — a prefetch never faults). For loops that know which random row
    they read next (a stochastic solver's sampled indices), so its memory latency overlaps
    the current row's arithmetic instead of stalling the next one."""
    if isinstance(arr, numba.types.Array) and arr.ndim == 1 and isinstance(i, numba.types.Integer):
        return numba.types.void(arr, i), _prefetch_codegen
    return None


@numba.extending.intrinsic
def prefetch2(typingctx, arr, i, j):
    """:func:`prefetch` of ``arr[i, j]`` for a 2-D array (one cache line of a dense row)."""
    if (isinstance(arr, numba.types.Array) and arr.ndim == 2
            and isinstance(i, numba.types.Integer) and isinstance(j, numba.types.Integer)):
        return numba.types.void(arr, i, j), _prefetch_codegen
    return None


__all__ = ["CACHE_DIR", "configure_cache", "default_cache_dir", "njit", "njit_reduce", "prefetch",
           "prefetch2"]
