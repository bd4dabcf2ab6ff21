"""A batch stopped by a signal, as its users' schedulers stop it: SLURM's time limit and scancel send SIGTERM to every
process of the job, `docker stop`, Kubernetes and `timeout` send it to the first one, and a terminal's Ctrl-C sends
SIGINT to the whole foreground group. Each stop says what it keeps, in one line and no traceback, kills the grader
processes and their sandboxes, removes the class it unpacked, keeps every journaled grade; the same command then
grades the rest and regrades nothing journaled."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.test_batch import cli, journaled, make_class
from tests.test_redteam import become_subreaper, descendants


@pytest.mark.parametrize("signum, whole_group", [
    (signal.SIGTERM, False),   # docker stop, kubernetes, timeout: the first process only
    (signal.SIGTERM, True),    # SLURM: every process of the job
    (signal.SIGINT, True),     # Ctrl-C in a terminal: the foreground group
], ids=["sigterm-first-process", "sigterm-every-process", "ctrl-c"])
def test_a_stopped_batch_says_so_leaves_nothing_and_resumes(tmp_path: Path, signum: int, whole_group: bool,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    become_subreaper()  # a process the stop orphans comes back to us, and is counted
    before = set(descendants())
    subs = make_class(tmp_path / "class", n_slow=6)
    total = len(list(subs.iterdir()))
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    outdir = tmp_path / "out"
    monkeypatch.setenv("TMPDIR", str(private_tmp))  # what the batch leaves there is its own
    proc = cli("batch", str(subs), "-a", "toy", "-o", str(outdir), "-j", "2", "--seed", "7")
    deadline = time.monotonic() + 120
    while len(journaled(outdir)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    if whole_group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    out, _ = proc.communicate(timeout=60)
    kept = journaled(outdir)
    assert 2 <= len(kept) < total, f"the stop should land mid-batch: {out}"
    assert proc.returncode == 128 + signum, out
    name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
    assert f"stopped by {name}: " in out and "the same command grades the rest" in out, out
    assert "Traceback" not in out and "grader problem" not in out, out
    assert not any(private_tmp.iterdir()), f"left in TMPDIR: {sorted(p.name for p in private_tmp.iterdir())}"
    deadline = time.monotonic() + 5
    while set(descendants()) - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not set(descendants()) - before, f"processes left: {descendants()}"

    proc = cli("batch", str(subs), "-a", "toy", "-o", str(outdir), "-j", "2", "--seed", "7")
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert f"{total - len(kept)} graded now, {len(kept)} already in the journal" in out, out
