"""Solver-against-peer benchmarks: each svmcore solver (or estimator) beside its scikit-learn /
LIBSVM peer on the same data in the same process, and the papers' cost claims against n."""
