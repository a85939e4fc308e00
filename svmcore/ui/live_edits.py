"""Editing the data by clicking the field: add a point of either class, remove one, drag one;
the run goes on from its t on the edited data (:func:`svmcore.runs.config.edited_run`)."""
from __future__ import annotations

from ..runs.config import round_coord
from .state import Instance, ss

EDIT_MODES = ("view", "add +1", "add −1", "remove")


# ------------------------------------------------------------------------------ click editing


def on_field_click(inst: Instance, chart_key: str):
    """Edit mode: a click on the field adds a point there, or removes the clicked point."""
    ev = ss.get(chart_key)
    try:
        pts = ev["selection"]["points"]
    except (TypeError, KeyError):
        return
    if not pts:
        return
    pt = pts[0]
    sig = (pt.get("curve_number"), pt.get("point_index"), pt.get("x"), pt.get("y"))
    if sig == inst.last_click:
        return                                # the same event delivered again
    inst.last_click = sig
    handle_click(inst, inst.get("edit", "view"), pt.get("x"), pt.get("y"), pt.get("customdata"))


def handle_click(inst: Instance, mode: str, x, y, customdata=None) -> bool:
    """Apply one click of the edit mode; True if the data changed (tests call this directly)."""
    live = inst.live
    if live is None or mode == "view":
        return False
    if mode in ("add +1", "add −1"):
        if x is None or y is None or not live.view.plane.exact:
            return False
        inst.added = list(inst.added) + [(round_coord(x), round_coord(y),
                                          1 if mode == "add +1" else -1)]
        inst.edited = True
        return True
    if mode == "remove":
        if isinstance(customdata, (list, tuple)):
            customdata = customdata[0] if customdata else None
        if customdata is None:
            return False
        origin = live.data.origin
        j = int(customdata)
        if origin is None or not 0 <= j < len(origin):
            return False
        o = int(origin[j])
        if o < 0:                               # a clicked point: forget it
            added = list(inst.added)
            if -o - 1 < len(added):
                del added[-o - 1]
            inst.added = added
        else:
            inst.removed = sorted(set(inst.removed) | {o})
        inst.edited = True
        return True
    return False


def handle_move(inst: Instance, index, x, y) -> bool:
    """A training point of the live run dragged to (x, y): :func:`move_point`."""
    live = inst.live
    return live is not None and move_point(inst, live.data, live.view, index, x, y)


def move_point(inst: Instance, data, view, index, x, y) -> bool:
    """A training point dragged to (x, y) in an edit mode: an added point moves; a point of the
    data is removed and a point of its class added where it was dropped (so the link and
    "clear edits" treat it like clicks). True if the data changed. Only on an exact 2-D view:
    on a slice a dropped point has no place in the other features."""
    if index is None or x is None or y is None or not view.plane.exact:
        return False
    j, origin = int(index), data.origin
    if origin is None or not 0 <= j < min(len(origin), len(data.y_train)):
        return False
    o, point = int(origin[j]), (round_coord(x), round_coord(y))
    if o < 0:
        added = list(inst.added)
        if -o - 1 >= len(added):
            return False
        added[-o - 1] = point + (added[-o - 1][2],)
        inst.added = added
    else:
        label = 1 if data.y_train[j] > 0 else -1
        inst.removed = sorted(set(inst.removed) | {o})
        inst.added = list(inst.added) + [point + (label,)]
        inst.moved += 1                          # one edit: a removal and an addition
    inst.edited = True
    return True


def edit_words(old, new) -> str:
    """What the clicked edits of configuration ``new`` did to those of ``old``, in two or three
    words for the page's note: "Point added", "Point removed", "Point moved", "Edits cleared"
    (another difference: "The data changed")."""
    a0, a1, r0, r1 = list(old.added), list(new.added), set(old.removed), set(new.removed)
    if len(a1) == len(a0) + 1 and a1[:-1] == a0:
        if r1 == r0:
            return "Point added"
        if len(r1) == len(r0) + 1 and r0 <= r1:
            return "Point moved"                  # removed from its place, added where dropped
    if r1 == r0 and len(a1) == len(a0) and sum(p != q for p, q in zip(a0, a1)) == 1:
        return "Point moved"                      # an added point dragged
    if (r1 == r0 and len(a1) == len(a0) - 1) or (a1 == a0 and len(r1) == len(r0) + 1
                                                 and r0 <= r1):
        return "Point removed"
    return "Edits cleared" if not a1 and not r1 else "The data changed"
