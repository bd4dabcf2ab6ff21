"""batch -j N: N trusted grader processes fed by a parent that holds no tests and no reference; a grader
process that dies costs only the submission it held (worker_failed, graded again by a rerun); at -j1 the
next submission, handed out ahead, goes to its replacement."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT


def test_the_parent_never_loads_hidden_tests_or_the_reference(tmp_path: Path):
    code = f"""
import sys
from pathlib import Path
from autograder.course.batch import run_batch
from autograder.config import find_course
results = run_batch(Path({str(FIXTURE_SUBS)!r}), "toy", Path({str(tmp_path / 'out')!r}), jobs=2, seed=1,
                    course=find_course(Path({str(FIXTURE_COURSE)!r})))
print(sorted(f"{{r.submission}}={{r.score:g}}" for r in results))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("reference", "torch") or m.startswith("_hidden_")))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={k: v for k, v in os.environ.items() if k != "AUTOGRADER_COURSE"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    graded, secrets = proc.stdout.strip().splitlines()[-2:]
    assert graded == "['good.ipynb=4', 'no_scale.ipynb=1']"
    # nor torch: its import would compete with the grader processes' (issue 20)
    assert secrets == "[]", f"the batch parent imported hidden tests, the reference or torch: {secrets}"


def test_a_grader_process_launches_its_zygote_before_any_heavy_import():
    # The zygote's `import torch` is half of a batch's start-up: a grader process starts it from the
    # plan its parent sent, before it imports pydantic (the course's config, the results), torch or
    # the tests, which it then imports while the zygote imports torch (issue 20)
    code = ("import sys\n"
            "import autograder.course.pool\n"
            "from autograder.sandbox.zygote import launch_planned\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'torch', 'yaml', 'numpy')))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]", proc.stdout


def test_a_grader_process_that_dies_costs_only_its_submission(tmp_path: Path):
    from autograder.course.pool import GraderPool, Task
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    slow = nbformat.v4.new_notebook(cells=[new_code_cell("import time\ntime.sleep(20)")] + good.cells)
    nbformat.write(slow, tmp_path / "slow.ipynb")
    tasks = [Task("slow.ipynb", str(tmp_path / "slow.ipynb"), 1),
             Task("good.ipynb", str(FIXTURE_SUBS / "good.ipynb"), 2),
             Task("no_scale.ipynb", str(FIXTURE_SUBS / "no_scale.ipynb"), 3)]
    from tests.test_batch import workers
    before = workers()
    pool = GraderPool(FIXTURE_COURSE, "toy", jobs=1, task_timeout_s=200)
    killed: list[int] = []
    ahead: list[str | None] = []

    def kill_when_busy() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            procs = list(pool.procs)
            if procs and procs[0].ready and procs[0].task is not None and procs[0].task.name == "slow.ipynb":
                time.sleep(1.0)  # inside the slow notebook's first cell
                ahead.append(procs[0].next.name if procs[0].next is not None else None)
                killed.append(procs[0].proc.pid)
                os.kill(procs[0].proc.pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    try:
        out = {task.name: (result, final) for task, result, final, _written in pool.run(tasks)}
    finally:
        killer.join()
        pool.close()
    assert killed, "the grader process was never seen grading"
    # at -j1 the next submission waited in the grader process's socket (handed out ahead); it was
    # never started, so it went to the fresh grader process and was graded there
    assert ahead == ["good.ipynb"]
    result, final = out["slow.ipynb"]
    assert result.status == "worker_failed" and not final
    assert "the grader process stopped" in result.message and result.max_score == 4
    assert all(t.status == "failed" and "not graded" in t.message for t in result.tests)
    assert out["good.ipynb"][0].score == 4 and out["good.ipynb"][1]
    assert out["no_scale.ipynb"][0].score == 1 and out["no_scale.ipynb"][0].status == "graded"
    assert not pool.procs
    deadline = time.monotonic() + 10
    while workers() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not workers() - before, "the dead grader process left its zygote or worker behind"


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


def test_at_j2_the_second_grader_process_is_forked_from_the_first_and_grades_the_same(tmp_path: Path):
    """One import of torch for both grader processes (and one for both zygotes): the second is a
    fork of the first, made once its tests are loaded; the same submissions get the same scores."""
    from autograder.course.pool import GraderPool, Task, _ForkedProc
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    slow = nbformat.v4.new_notebook(cells=[new_code_cell("import time\ntime.sleep(3)")] + good.cells)
    nbformat.write(slow, tmp_path / "slow.ipynb")
    tasks = [Task("slow.ipynb", str(tmp_path / "slow.ipynb"), 1)] + [
        Task(f"{name}{i}.ipynb", str(FIXTURE_SUBS / f"{name}.ipynb"), 10 + i)
        for i in range(3) for name in ("good", "no_scale")]
    pool = GraderPool(FIXTURE_COURSE, "toy", jobs=2, task_timeout_s=200)
    assert pool.fork_graders
    seen: dict[int, tuple[int, bool]] = {}  # pid -> (its parent's pid, forked)
    graded_by: dict[str, int] = {}
    try:
        for task, result, final, _written in pool.run(tasks):
            assert final and result.status == "graded"
            assert result.score == (1 if task.name.startswith("no_scale") else 4), task.name
            for p in pool.procs:
                seen[p.proc.pid] = (_ppid(p.proc.pid), isinstance(p.proc, _ForkedProc))
                if p.task is not None:
                    graded_by[p.task.name] = p.proc.pid
    finally:
        pool.close()
    assert len(seen) == 2, seen
    (first, (_, first_forked)), (second, (second_parent, second_forked)) = sorted(
        seen.items(), key=lambda kv: kv[1][1])
    assert not first_forked and second_forked and second_parent == first
    assert len(set(graded_by.values())) == 2, "the forked grader process graded nothing"
    assert not pool.procs


def test_a_forked_grader_process_dies_with_its_forker_and_its_submission_is_graded_again(tmp_path: Path):
    """The forked grader's zygote is forked from its forker's: when the forker dies, the fork's
    worker may die with it, so the fork goes too and its submission is not final (a rerun grades
    it), never a student's crash."""
    from autograder.course.pool import GraderPool, Task, _ForkedProc
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    for name, seconds in (("slow_a", 20), ("slow_b", 20)):
        nb = nbformat.v4.new_notebook(cells=[new_code_cell(f"import time\ntime.sleep({seconds})")] + good.cells)
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    tasks = [Task("slow_a.ipynb", str(tmp_path / "slow_a.ipynb"), 1),
             Task("slow_b.ipynb", str(tmp_path / "slow_b.ipynb"), 2),
             Task("good.ipynb", str(FIXTURE_SUBS / "good.ipynb"), 3)]
    pool = GraderPool(FIXTURE_COURSE, "toy", jobs=2, task_timeout_s=200)
    killed: list[int] = []

    def kill_forker_when_both_busy() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            procs = list(pool.procs)
            if len(procs) == 2 and all(p.ready and p.task is not None for p in procs):
                time.sleep(1.0)
                forker = next(p for p in procs if not isinstance(p.proc, _ForkedProc))
                killed.append(forker.proc.pid)
                os.kill(forker.proc.pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_forker_when_both_busy)
    killer.start()
    try:
        out = {task.name: (result, final) for task, result, final, _written in pool.run(tasks)}
    finally:
        killer.join()
        pool.close()
    assert killed, "the two grader processes were never seen busy together"
    for name in ("slow_a.ipynb", "slow_b.ipynb"):
        result, final = out[name]
        assert result.status == "worker_failed" and not final, (name, result.status, result.message)
    assert out["good.ipynb"][0].score == 4 and out["good.ipynb"][1]
