"""A hidden file of an assignment (`assignments/<slug>/hidden/<name>.py`) loaded as a module of its own, for tests
that call its helpers in-process (the diagnosis's replays and probes). Each load is a fresh module under a name
of the caller's choosing, so two test files never share one's state."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ASSIGNMENTS = Path(__file__).resolve().parents[1] / "assignments"


def load(slug: str, name: str, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, ASSIGNMENTS / slug / "hidden" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
