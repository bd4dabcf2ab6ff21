"""Issue 20: the sandbox zygote freezes what it imported (torch among it) before it forks, as Python's gc docs
advise for fork servers: a worker's full collection walks only what its own cells made, and writes no GC header of
the zygote's pages. A worker sees the frozen generation; a fresh interpreter has none."""
from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.sandbox import SandboxPolicy

from tests.conftest import course_zygote, worker_after


@pytest.fixture(scope="module")
def zygote():
    with course_zygote() as z:
        yield z


def test_a_worker_starts_with_the_zygotes_objects_frozen(zygote):
    cell = "import gc\nfrozen = gc.get_freeze_count()\ncollected = gc.collect()\n"
    with worker_after(zygote, SandboxPolicy(submission_timeout_s=60, call_timeout_s=20), [cell]) as session:
        frozen = session.resolve("frozen", "cpu")
    # torch's import alone makes hundreds of thousands of objects; an unfrozen interpreter reports 0
    assert isinstance(frozen, int) and frozen > 100_000, frozen
    fresh = subprocess.run([sys.executable, "-c", "import gc, torch; print(gc.get_freeze_count())"],
                           capture_output=True, text=True, check=True)
    assert int(fresh.stdout) == 0
