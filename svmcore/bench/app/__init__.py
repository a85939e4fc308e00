"""The app under load: a live tick's server cost, start-up, a class of sessions, a lecture-long
soak, a replica's failover, uploads, the live view in a browser, the race's fairness and the
sweep page's backends. Their shared harness: :mod:`svmcore.bench.app.harness`."""
