"""The sandbox's public surface, for the grader and for tests. Three jobs, three modules:

    autograder.isolation   which isolation this machine gives, and the bwrap recipe
    autograder.zygote      the clean process that forks one worker per submission
    autograder.session     one worker from the grader's side: cells, calls, limits, proxies

The worker's own side is autograder.worker; what crosses between them is autograder.messages."""
from __future__ import annotations

from autograder.isolation import BWRAP_PROBLEM, bwrap_works, cpu_seconds_of, detect_isolation
from autograder.session import ExecOutcome, SandboxPolicy, WorkerProxy, WorkerSession
from autograder.zygote import Zygote, launch_zygote

__all__ = ["BWRAP_PROBLEM", "ExecOutcome", "SandboxPolicy", "WorkerProxy", "WorkerSession", "Zygote",
           "bwrap_works", "cpu_seconds_of", "detect_isolation", "launch_zygote"]
