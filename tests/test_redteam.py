"""Red team: every hostile submission gains nothing, leaks nothing, writes nothing outside its
scratch dir, leaves no process behind, and the grader finishes and still grades; also all of them in
one batch per isolation level. (The `autograder grade` command itself meets hostile notebooks in
tests/test_hostile_examples.py, tests/test_trusted_imports.py and tests/test_cli.py.)"""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.redteam.cases import CASES, Case

COURSE = Path(__file__).parent / "fixtures" / "course"
SECRET_ENV = "AUTOGRADER_REDTEAM_SECRET"
SECRET_VALUE = "env-secret-5b1d"
MARKERS = ("SECRET-MARKER", SECRET_VALUE)


def write_case(case: Case, where: Path, escape: Path, course: Path = COURSE) -> Path:
    nb = new_notebook()
    for cell in case.cells:
        nb.cells.append(new_code_cell(cell.replace("{course}", str(course.resolve()))
                                      .replace("{escape}", str(escape))))
    path = where / f"{case.name}.ipynb"
    nbformat.write(nb, path)
    return path


# --- the leak check: only processes this test process started ---------------------------------
# pytest becomes a child subreaper: a sandbox process whose parent dies (a detached daemon, a worker
# of a killed grader) is re-parented to us instead of to init, so it stays our descendant and is
# seen. Processes of other graders on the same host are never our descendants, so they are not.
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return int(fields[1]), fields[0]
    except (OSError, IndexError, ValueError):
        return None


def descendants(root: int | None = None) -> dict[int, str]:
    """Live (not zombie) descendants of `root` (default: this process): pid -> command line."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[1] != "Z":
                children.setdefault(st[0], []).append(int(name))
    out: dict[int, str] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                out[pid] = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        todo += children.get(pid, [])
    return out


def sandbox_processes() -> set[str]:
    """Processes this test process started, directly or not (warm graders of other tests included:
    a case compares against the set taken before it ran)."""
    become_subreaper()
    return {f"{pid} {args}" for pid, args in descendants().items()}


_BEFORE: set[str] = set()


def stray_processes(settle_s: float = 5.0) -> list[str]:
    """Our descendants that were not there before the case (warm graders of other tests are).
    A finished grader's sandbox dies with it, but asynchronously: allow it a moment."""
    deadline = time.monotonic() + settle_s
    while True:
        left = sorted(sandbox_processes() - _BEFORE)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture(scope="session")   # not module: the batch tests stay units of their own for the scheduler
def redteam_course(tmp_path_factory) -> Path:
    """The fixture course with 2.5 s cell and call limits instead of 5. The denial cases (a loop at the top
    level, a loop in a call) burn a core until the limit, once per grader below (four): what is tested is that
    the limit stops them and costs the student everything, not how long it is (about 20 s of CPU less in
    `make test`). The class batches (tests/test_redteam_class.py) keep 5 s: their victims work for 2 s."""
    root = tmp_path_factory.mktemp("redteam") / "course"
    shutil.copytree(COURSE, root, ignore=shutil.ignore_patterns("__pycache__"))
    config = root / "grading.yml"
    text = config.read_text()
    config.write_text(text.replace("cell_timeout_s: 5, call_timeout_s: 5", "cell_timeout_s: 2.5, call_timeout_s: 2.5"))
    assert config.read_text() != text, "the fixture course's limits changed: update this copy"
    return root


@pytest.fixture(scope="module")
def warm_grader(redteam_course):
    """One grader for every hostile case, at the strongest level here (what `autograder grade` picks), started
    with a secret in its environment: each case is one more submission to a grader that has already graded
    the cases before it, as in a batch, so a case that breaks the grader or leaves something in the sandbox
    shows on itself or on the cases after it (the last test grades a good submission with it). One zygote
    for all: a fresh `autograder grade` per case cost two `import torch` (about 4 s of CPU) each."""
    from autograder.config import find_course
    from autograder.grading.grader import Grader
    before = os.environ.get(SECRET_ENV)
    os.environ[SECRET_ENV] = SECRET_VALUE   # before the zygote starts: it is the environment it must not pass on
    with Grader(find_course(redteam_course)) as grader:
        # the zygote starts on the first grade: a good one, so that it is running (and counted as there
        # before) when the first case's processes are taken
        good = COURSE.parent / "submissions" / "good.ipynb"
        assert grader.grade(good, "toy").score == 4
        yield grader
    if before is None:
        os.environ.pop(SECRET_ENV, None)
    else:
        os.environ[SECRET_ENV] = before


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission_gains_nothing(warm_grader, redteam_course: Path, case: Case, tmp_path: Path, capfd) -> None:
    """Graded as `autograder grade --results` grades it (the same calls): 0 points, no secret in the
    results.json or the terminal's text, nothing written outside its scratch dir, and no process of its
    own left once its grade has returned (the warm zygote was there before it). What the grader's own
    process writes to its stdout and stderr is read too."""
    import io

    from rich.console import Console

    from autograder.course.outputs import print_table, write_results
    _BEFORE.clear()
    _BEFORE.update(sandbox_processes())
    escape = tmp_path / "escaped.txt"
    sub = write_case(case, tmp_path, escape, redteam_course)
    results = tmp_path / "results.json"
    result = warm_grader.grade(sub, "toy")
    write_results(result, warm_grader.course.config.visibility, results)
    terminal = io.StringIO()
    print_table(result, Console(file=terminal, width=160, highlight=False, emoji=False), all_tests=True)
    left = stray_processes()
    try:
        data = json.loads(results.read_text())
        assert data["score"] == 0, f"{case.name} gained points: {data['score']}"
        out, err = capfd.readouterr()   # what the grader process itself printed or logged meanwhile
        blob = results.read_text() + terminal.getvalue() + out + err
        for marker in MARKERS:
            assert marker not in blob, f"{case.name} leaked {marker}"
        assert not escape.exists(), f"{case.name} wrote outside its scratch dir"
        assert not (redteam_course / "pwned.txt").exists() and not (COURSE / "pwned.txt").exists()
        assert not left, f"{case.name} left processes behind: {left}"
    finally:
        for s in left:  # never leave a leak running for the next case
            try:
                os.kill(int(s.split()[0]), 9)
            except OSError:
                pass


def test_the_grader_that_took_every_hostile_case_still_grades(warm_grader, tmp_path: Path) -> None:
    """After all of the cases above (run before this one on the same module-scoped grader), a good
    submission still gets full marks from it."""
    good = tmp_path / "good.ipynb"
    good.write_bytes((COURSE.parent / "submissions" / "good.ipynb").read_bytes())
    result = warm_grader.grade(good, "toy")
    assert result.status == "graded" and result.score == result.max_score == 4, [t.message for t in result.tests]


@pytest.mark.parametrize("level", ["bwrap", "fallback", "container"])
def test_all_hostile_in_one_batch_and_good_still_graded(redteam_course: Path, tmp_path: Path, level: str) -> None:
    """Every hostile case and two correct submissions in one `run_batch` (two at a time, one warm
    grader): the batch finishes, the hostile ones get 0, the correct ones full marks."""
    from autograder.course.batch import run_batch
    from autograder.config import find_course
    from autograder.grading.grader import Grader
    from autograder.results import Isolation
    from autograder.sandbox import bwrap_works

    if level == "bwrap" and not bwrap_works():
        pytest.skip("bwrap is not usable here")
    if level in ("fallback", "container") and os.geteuid() != 0:
        pytest.skip(f"the {level} level needs root")
    os.environ[SECRET_ENV] = SECRET_VALUE
    _BEFORE.clear()
    _BEFORE.update(sandbox_processes())
    subs = tmp_path / "class"
    subs.mkdir()
    for case in CASES:
        write_case(case, subs, tmp_path / "escaped.txt", redteam_course)
    for name in ("aaa_good.ipynb", "zzz_good.ipynb"):
        (subs / name).write_bytes((COURSE.parent / "submissions" / "good.ipynb").read_bytes())
    with Grader(find_course(redteam_course), isolation=Isolation(level)) as grader:
        results = {r.submission: r for r in run_batch(subs, "toy", tmp_path / "out", jobs=2, grader=grader)}
    assert len(results) == len(CASES) + 2
    for name, r in results.items():
        assert r.isolation == Isolation(level)
        if name.endswith("_good.ipynb"):
            assert r.score == r.max_score == 4, (name, [t.message for t in r.tests])
        else:
            assert r.score == 0, name
    report = (tmp_path / "out" / "report.html").read_text()
    assert not any(m in report for m in MARKERS)
    assert not (tmp_path / "escaped.txt").exists()
    assert not stray_processes()


# --- the leak check itself is tested: it sees our leaks and nothing else ------------------------
def _old_style_matches(pid: int) -> bool:
    """What the old check matched: any process of uid 65534 or with autograder.sandbox.worker in its args."""
    out = subprocess.run(["ps", "-o", "uid=,args=", "-p", str(pid)], capture_output=True, text=True).stdout
    return bool(out.strip()) and (out.split()[0] == "65534" or "autograder.sandbox.worker" in out)


def test_leak_check_sees_a_detached_grandchild() -> None:
    _BEFORE.clear()
    _BEFORE.update(sandbox_processes())
    # the shell starts a daemon in a new session and exits at once: the daemon is orphaned
    subprocess.run(["sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 &"], check=True)
    left = stray_processes(settle_s=0)
    deadline = time.monotonic() + 5
    while not any("sleep 300" in s for s in left) and time.monotonic() < deadline:
        # read between the daemon's fork and its exec, its command line is still empty ('11985 ')
        time.sleep(0.05)
        left = stray_processes(settle_s=0)
    try:
        assert any("sleep 300" in s for s in left), left
    finally:
        for s in left:
            pid = int(s.split()[0])
            os.kill(pid, 9)
            try:
                os.waitpid(pid, 0)  # re-parented to us: ours to reap
            except ChildProcessError:
                pass  # a stray another test left in this worker, reaped by its own parent
    assert not stray_processes(settle_s=1)


def test_leak_check_ignores_processes_it_did_not_start() -> None:
    """A process that looks exactly like another grader's sandbox (uid 65534, `autograder.sandbox.worker`
    in its command line) but is not our descendant is not a leak of ours. To build one honestly we
    stop being a subreaper for a moment, so that the orphan goes to init, outside our tree."""
    sandbox_processes()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    marker = f"autograder.sandbox.worker-unrelated-{os.getpid()}"
    try:
        subprocess.run(["sh", "-c", f"sh -c 'sleep 300; : {marker}' </dev/null >/dev/null 2>&1 &"],
                       check=True, preexec_fn=lambda: (os.setsid(), os.setgid(65534), os.setuid(65534)))
    finally:
        become_subreaper()
    _BEFORE.clear()
    try:
        time.sleep(0.2)
        pids = [int(p) for p in subprocess.run(["pgrep", "-f", marker], capture_output=True,
                                                 text=True).stdout.split()]
        assert pids, "the unrelated process did not start"
        assert all(_old_style_matches(p) for p in pids), "the old check would not have seen it either"
        assert not [s for s in stray_processes(settle_s=0) if marker in s]
    finally:
        for pid in pids:
            os.killpg(os.getpgid(pid), 9)  # the sh and its sleep: a session we made
