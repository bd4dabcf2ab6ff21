"""The memory-bound tests read a child's own peak: a parent's larger peak does not leak into it, and the
child's own growth still shows (ru_maxrss failed both: CI told a 316 MB step 1047 MB)."""
from __future__ import annotations

import subprocess
import sys

from tests.own_memory import OWN_PEAK_MB

CHILD = OWN_PEAK_MB + """
before = own_peak_mb()
held = bytearray(200 << 20)
for at in range(0, len(held), 4096):
    held[at] = 1
print(round(before), round(own_peak_mb() - before))
"""


def test_a_child_of_a_large_process_reports_its_own_peak_and_growth():
    parent_held = bytearray(600 << 20)
    for at in range(0, len(parent_held), 4096):
        parent_held[at] = 1
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before, growth = map(int, done.stdout.split())
    assert before < 200, f"the child started at {before} MB: the parent's 600 MB leaked into its reading"
    assert 190 <= growth <= 260, f"the child's 200 MB grew its reading by {growth} MB"
