"""A child process's own peak memory, for the tests that bound what one step of the grader holds.

`resource.getrusage(RUSAGE_SELF).ru_maxrss` is not it: Linux carries a process's peak RSS across fork and exec
(exec records the old address space's high-water mark in the process's maxrss), so a child started by a pytest
worker that once held 1 GB reports at least 1 GB whatever it does itself. A 316 MB step was told 1047 MB in CI;
and a test that subtracts a `before` reading measured growth as 0 whenever the worker's old peak was higher.
VmHWM in /proc/self/status is the high-water mark of the address space exec made: this process's alone.
"""
from __future__ import annotations

# pasted at the top of a child's code (`python -c`): defines own_peak_mb()
OWN_PEAK_MB = '''
def own_peak_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")
'''
