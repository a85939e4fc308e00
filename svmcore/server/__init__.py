"""Serving the app: pacing and limits of live training (:mod:`.pacing`), the background warm-up
(:mod:`.warm`), k replicas behind nginx (:mod:`.replicas`, ``python -m svmcore.server.replicas``)
and a client that speaks Streamlit's websocket protocol (:mod:`.protocol_client`).

Importing this package imports nothing: :mod:`.warm` must load before numpy and numba."""
