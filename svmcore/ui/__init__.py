"""The Streamlit kit: the only part of svmcore that imports streamlit.

A page composes these parts (see pages/playground.py and pages/race.py):

* :mod:`~svmcore.ui.state` — :class:`Instance`, the session state of one page instance, and
  :class:`Live`, the run or race it shows; widget keys, :func:`keep_widgets` (values survive a
  page switch), :func:`open_on` (open a configuration on another page of the session),
  :func:`guarded` (no traceback in a page);
* :mod:`~svmcore.ui.data`, :mod:`~svmcore.ui.params` — the data panel, the solver and parameter
  widgets (from ``ParamSpec``), the Race's entrants, the step-size plot;
* :mod:`~svmcore.ui.urls` — configuration ↔ widgets ↔ URL;
* :mod:`~svmcore.ui.live` — one builder for a run or a race, the controls, the live fragment,
  click editing; :mod:`~svmcore.ui.panels` — what a live frame draws;
* :mod:`~svmcore.ui.layout` — the live pages' layout: the header line, one-line explanations,
  the toolbar, the counter and the tiles' line, the picture on the first screen;
* :mod:`~svmcore.ui.presets` — curated runs and races; :mod:`~svmcore.ui.export` — share/export;
* :mod:`~svmcore.ui.step_through` — the step-through page: history, Step / Back, pseudocode;
* :mod:`~svmcore.ui.lessons` — the lesson player: ``?lesson=K&step=i`` links, the lesson bar,
  the Lessons page.
"""
from .data import apply_data_config, data_panel
from .export import export_panel
from .point_history import inspect_toggle
from .view3d import view_toggles
from .digits import digits_panel, draw_digits
from .layout import line, live_box, page_head
from .lessons import follow_lesson_link, lesson_bar, lesson_list
from .kernel_approx import kernel_approx_panel, kernel_approx_view
from .live import ensure_live, live_panel
from .live_controls import controls, edit_modes, tick
from .live_edits import handle_click, handle_move
from .panels import draw_race, draw_run
from .papers import load_report, papers_scaling_view, papers_view
from .params import (entrants_panel, schedule_preview, solver_info, solver_info_panel,
                     solver_panel)
from .present import present_toggle
from .regression import (RegressionConfig, data_panel as regression_data_panel,
                         draw_regression, ensure_regression,
                         solver_panel as regression_solver_panel,
                         start_from_url as regression_start)
from .presets import load_first, page_messages, preset_panel, sidebar_start
from .state import (Instance, Live, describe, guarded, instance, keep_widgets, open_on,
                    through_the_router)
from .step_sizes import (draw_lockstep, ensure_lockstep, extras_of, lockstep_panel,
                         lockstep_share, lockstep_start, schedule_explorer, switch_panel)
from .step_through import (step_controls, step_field, step_landscape, step_pseudocode,
                          step_session)
from .sweep import (RUN_CAP_S, grid_panel, start_sweep, stop_sweep, sweep_solver_panel,
                    sweep_start, sweep_state, sweep_view)
from .urls import apply_config, race_config, run_config, start, sync_url

__all__ = ["apply_data_config", "data_panel", "export_panel", "lockstep_share", "controls", "edit_modes",
           "ensure_live", "line", "live_box", "page_head", "follow_lesson_link", "lesson_bar",
           "lesson_list",
           "handle_click", "handle_move", "live_panel", "tick", "draw_race", "draw_run", "entrants_panel",
           "schedule_preview", "solver_info", "solver_info_panel", "solver_panel", "load_first", "page_messages",
           "RegressionConfig", "draw_regression", "ensure_regression", "regression_data_panel",
           "regression_solver_panel", "regression_start",
           "preset_panel", "present_toggle", "sidebar_start", "Instance", "Live", "describe", "guarded", "instance",
           "keep_widgets", "open_on", "through_the_router", "apply_config", "race_config",
           "run_config", "start", "sync_url", "step_controls", "step_field", "step_landscape",
           "step_pseudocode", "step_session",
           "RUN_CAP_S", "grid_panel", "start_sweep", "stop_sweep",
           "sweep_solver_panel", "sweep_start", "sweep_state", "sweep_view",
           "draw_lockstep", "ensure_lockstep", "extras_of", "lockstep_panel", "switch_panel",
           "lockstep_start", "schedule_explorer",
           "kernel_approx_panel", "kernel_approx_view", "inspect_toggle", "view_toggles", "digits_panel", "draw_digits",
           "load_report", "papers_scaling_view", "papers_view"]
