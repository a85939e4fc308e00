"""Benchmarks and paper reproductions: ``python -m svmcore.bench <name> [options]``.

Every benchmark measures svmcore and its named peer in the same process and the same run,
excludes compile time (a warm-up first), repeats each timing and reports the median, and prints
a markdown table. Names are registered in ``BENCHMARKS`` (see ``__main__``).
"""
