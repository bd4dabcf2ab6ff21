"""Start the sandbox zygote without a separate probe first.

`detect_isolation()` decides whether bubblewrap works by starting our interpreter under the full bwrap
recipe and importing the worker's modules (torch included): a whole extra `import torch`, paid
before the zygote itself starts, on every `grade` (measured here: most of `launch_zygote`'s 4 s on a
loaded 2-core machine). The zygote under bwrap runs that same recipe and imports the same modules,
so its own start answers the same question: where bwrap is installed and no level is forced, start
the zygote under bwrap straight away; if it does not come up, ask `detect_isolation()` (which probes,
records why bwrap failed and says so) and start it again at the level that gives. The level that
actually ran is `zygote.isolation`, read after it is ready, and recorded in every result.

(This belongs in autograder.zygote.launch_zygote; it lives here until that module's owner takes it.)"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from autograder.errors import GraderError
from autograder.isolation import bwrap_executable, detect_isolation
from autograder.results import Isolation
from autograder.zygote import Zygote, launch_zygote

if TYPE_CHECKING:
    from autograder.config import Course


class ProbingZygote(Zygote):
    """A zygote started at the bwrap level with no probe before it: its own start is the probe."""

    def __init__(self, course: "Course") -> None:
        super().__init__(Isolation.bwrap, hide=[str(p) for p in course.secret_paths])
        self.probing = True

    def _wait_ready(self) -> None:
        if not self.probing:
            super()._wait_ready()
            return
        try:
            super()._wait_ready()
        except GraderError:
            # bwrap did not come up: the probe says why (and warns), and picks the level to use
            self.isolation = detect_isolation()
            self.probing = False
            self.launch()
            super()._wait_ready()
        self.probing = False


def launch(course: "Course", isolation: Optional[Isolation] = None) -> Zygote:
    """Start the zygote now, without waiting for it (it imports torch while the caller does too)."""
    if isolation is None and not os.environ.get("AUTOGRADER_ISOLATION") and bwrap_executable() is not None:
        zygote: Zygote = ProbingZygote(course)
        zygote.launch()
        return zygote
    return launch_zygote(course, isolation)
