"""Runs: what a training run is as data (:mod:`.config`, with the URL format), the arrays it
trains on (:mod:`.rundata`), one run with its trace (:mod:`.run`), a race of runs
(:mod:`.race`, its reference optimum :mod:`.optimum`), grids of runs (:mod:`.sweep`), the
presets (:mod:`.presets`), the exports (:mod:`.export`) and the server-wide limit on
concurrent training (:mod:`.slots`). No streamlit, no plotly."""
