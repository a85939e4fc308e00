"""Runs: what a training run is as data (:mod:`.config`, with the URL format), the arrays it
trains on (:mod:`.rundata`), one run with its trace (:mod:`.run`), a race of runs
(:mod:`.race`, its reference optimum :mod:`.optimum`), grids of runs (:mod:`.sweep`), the
presets (:mod:`.presets`) and the exports (:mod:`.export`). No streamlit, no plotly."""
