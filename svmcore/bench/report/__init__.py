"""The benchmark report: its suites (:mod:`svmcore.bench.report.suites`, ``python -m
svmcore.bench report``), its rendering to Markdown, JSON, plots and the README's block
(:mod:`svmcore.bench.report.render`), and the papers suite (:mod:`svmcore.bench.report.papers`)."""
