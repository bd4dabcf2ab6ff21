"""The sandbox: where a student's code runs, and the boundary it cannot cross.

    isolation   which isolation this machine gives (bwrap, fallback, container, rlimits) and its recipes
    zygote      the clean process, started by exec, that forks one worker per submission
    worker      the untrusted side: a worker's own namespaces, seccomp, Landlock; runs the cells
    session     one worker from the grader's side: cells, calls, limits, proxies (WorkerProxy)
    messages    what crosses the boundary, typed; protocol: the framing and the tensor codec
    calls       the graded call inside the worker; gpu: CUDA slots for workers

Offers the grading part: `session.SandboxPolicy`, `session.WorkerSession`, `zygote.launch`. Imports
nothing of grading or course. Kept import-light (names below load on first use): the sandboxed worker
imports this package before it drops privileges."""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {"BWRAP_PROBLEM": "isolation", "bwrap_works": "isolation", "cpu_seconds_of": "isolation",
          "detect_isolation": "isolation", "ExecOutcome": "session", "SandboxPolicy": "session",
          "WorkerProxy": "session", "WorkerSession": "session", "Zygote": "zygote", "launch_zygote": "zygote"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
