"""Lessons: the six lessons of the teacher's guide, each step a link that opens it on its page
with the lesson bar (svmcore.ui.lessons); a bad lesson link lands here with one line saying why.
"""
from __future__ import annotations

from svmcore import ui


def main() -> None:
    ui.lesson_list()


ui.guarded(main)
