"""The sandbox's isolation levels, strongest first. Kept apart from autograder.results (pydantic) so
that a grader process can launch its zygote before it imports anything heavy (autograder.course.pool)."""
from __future__ import annotations

from enum import Enum


class Isolation(str, Enum):
    bwrap = "bwrap"          # namespaces (net, pid, mount, user) + rlimits + seccomp
    fallback = "fallback"    # root with CAP_SYS_ADMIN: private mounts hide the course; a uid per worker + rlimits + seccomp
    container = "container"  # root without CAP_SYS_ADMIN (Docker's default): a uid per worker, root-only course, seccomp
    rlimits = "rlimits"      # rlimits + seccomp only: neither bwrap nor root were available
