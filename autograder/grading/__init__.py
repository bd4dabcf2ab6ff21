"""Grading one submission: intake -> the sandbox -> hidden tests -> scoring.

    intake        a notebook read and bounded (cells, written answers, attachments)
    grader        the pipeline for one submission (Grader): a warm zygote, loaded hidden tests
    hidden        hidden test files loaded in the trusted process; otter_format: otter's test format
    runner        runs the tests against the student's namespace; namespaces: a worker restarted
                  after a runaway; shrink: the smallest failing input; checks: comparisons and
                  misconception naming (hidden tests import it); crash_words: a crash named by its
                  own words, the line that raised and the notebook's source; source_checks: static checks
    outcome       a result built; diagnosis: failures grouped by mistake

Offers the course part: `Grader` (grader), `read_submission` (intake). Imports the sandbox part,
never the course part."""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {"Grader": "grader", "grade_notebook": "grader"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
