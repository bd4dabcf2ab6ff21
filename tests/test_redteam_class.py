"""Red team, class edition (issue 9): no student can read, stall, kill or poison another student, the
zygote or the grader; the trusted process parses student bytes in bounded time and memory; hidden
tests cannot be gamed; outputs are inert; the fallback leaves nothing on the host.

Cases are data in tests/redteam/class_cases.py. Cross-student cases run in ONE `run_batch(jobs=2)`
per isolation level, through the grader pool as `batch -j2` runs (the second grader process and its
zygote forked from the first's), attackers interleaved with honest victims; each victim kind is first
graded alone, by a grader of the same level, with the seed the batch gives it, and must score the
same in the batch. Everything else is graded alone."""
from __future__ import annotations

import csv
import json
import os
import re
import secrets
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.redteam.class_cases import (BATCH_CASES, GOOD_ATTEND, SOLO_CASES, VICTIMS, ClassCase)
from tests.test_redteam import sandbox_processes

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "tests" / "fixtures" / "course"
# the three class batches (one per isolation level) run one after another on one pytest worker
# (tests/conftest.py): side by side, their attackers flooding 2 cores pushed an honest victim's cell past
# the course's 5 s limit (make test, 2026-12-02)
SERIAL_PARAMS = True
SDPA_EXAMPLES = ROOT / "examples" / "submissions" / "sdpa-from-scratch"
SOLO = {c.name: c for c in SOLO_CASES}


def write_nb(path: Path, cells: list, subst: dict[str, str] | None = None) -> Path:
    nb = new_notebook()
    for cell in cells:
        if isinstance(cell, tuple):
            nb.cells.append(new_markdown_cell(cell[1]))
        else:
            for k, v in (subst or {}).items():
                cell = cell.replace(k, v)
            nb.cells.append(new_code_cell(cell))
    nbformat.write(nb, path)
    return path


def fallback_possible() -> bool:
    return os.geteuid() == 0


def level_available(level: str) -> bool:
    from autograder.sandbox import bwrap_works
    return bwrap_works() if level == "bwrap" else fallback_possible()


# =================================================================================================
# Class A and E: one batch -j2 per level
# =================================================================================================
@dataclass
class BatchRun:
    level: str
    order: list[tuple[str, str]]                     # (file name, case name or "victim:<kind>")
    results: dict = field(default_factory=dict)      # file name -> SubmissionResult
    alone: dict = field(default_factory=dict)        # victim kind -> score graded alone
    leftovers: list[str] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def result_of(self, case: str):
        name = next(f for f, c in self.order if c == case)
        return self.results.get(name)

    def victims_around(self, case: str) -> list[str]:
        """The victims graded right before and right after `case` (the ones it ran beside)."""
        idx = next(i for i, (_, c) in enumerate(self.order) if c == case)
        out = []
        for rng in (range(idx - 1, -1, -1), range(idx + 1, len(self.order))):
            for i in rng:
                if self.order[i][1].startswith("victim:"):
                    out.append(self.order[i][0])
                    break
        return out


def _batch_order() -> list[tuple[str, str]]:
    """victim, attacker, victim, attacker, ... (a talk pair stays together); persistent attacks last.
    Names sort in this order, and run_batch hands them to its two threads in sorted order, so every
    attacker runs beside a victim."""
    cases = sorted(BATCH_CASES, key=lambda c: c.order)
    partners = {c.pair for c in cases if c.pair}
    seq: list[tuple[str, str]] = []
    kinds = list(VICTIMS)
    nv = 0

    def victim() -> None:
        nonlocal nv
        seq.append(("victim", kinds[nv % len(kinds)]))
        nv += 1

    victim()
    for c in cases:
        if c.name in partners:
            continue
        if c.measure == "victims":
            victim()  # a victim of its own before it, not shared with the previous attacker
        seq.append(("case", c.name))
        if c.pair:
            seq.append(("case", c.pair))
        victim()
    return [(f"{i:03d}_{what if kind == 'case' else 'victim_' + what}.ipynb",
             what if kind == "case" else f"victim:{what}") for i, (kind, what) in enumerate(seq)]


def _sysv_keys(kind: str) -> dict[int, str]:
    """key -> id of the SysV objects of one kind (q, m, s) on the host."""
    out = subprocess.run(["ipcs", f"-{kind}"], capture_output=True, text=True).stdout
    keys = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[0].startswith("0x"):
            keys[int(parts[0], 16)] = parts[1]
    return keys


def _host_leftovers(token: str, keys: list[int], remove: bool) -> list[str]:
    """Everything the batch's students may have left on the host; removed when `remove`."""
    import ctypes
    import ctypes.util
    found = []
    for d in ("/run/lock", "/var/tmp", "/dev/shm", "/dev/mqueue", "/tmp"):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            if token in n:
                found.append(f"{d}/{n}")
                if remove:
                    Path(d, n).unlink(missing_ok=True)
    rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
    name = f"/ag-{token}".encode()
    q = rt.mq_open(name, os.O_RDONLY)
    if q >= 0:
        found.append(f"POSIX message queue {name.decode()}")
        rt.mq_close(q)
        if remove:
            rt.mq_unlink(name)
    for kind, flag in (("q", "-q"), ("m", "-m"), ("s", "-s")):
        present = _sysv_keys(kind)
        for k in keys:
            if k in present:
                found.append(f"SysV {kind} key {k:#x}")
                if remove:
                    subprocess.run(["ipcrm", flag, present[k]], capture_output=True)
    return found


@pytest.fixture(scope="module", params=["bwrap", "fallback", "container"])
def class_batch(request, tmp_path_factory, toy_grader) -> BatchRun:
    level = request.param
    if not level_available(level):
        pytest.skip(f"the {level} isolation level is not available here")
    from autograder.course.batch import run_batch
    from autograder.course.fingerprint import file_sha256 as _sha256, submission_seed
    from autograder.config import find_course
    from autograder.results import Isolation

    tmp = tmp_path_factory.mktemp(f"class-{level}")
    token = secrets.token_hex(6)
    base = 0x2A000000 + secrets.randbelow(0x100000) * 16
    keys = [base + i for i in range(8)]
    subst = {"@TOKEN@": token, "@KEYMSG@": str(keys[0]), "@KEYSEM@": str(keys[1]),
             "@KEYSHM@": str(keys[2]), "@KEYLEAK@": str(keys[3]), "@LEVEL@": level}
    cases = {c.name: c for c in BATCH_CASES}
    run = BatchRun(level=level, order=_batch_order())
    subs = tmp / "class"
    subs.mkdir()
    for fname, what in run.order:
        cells = VICTIMS[what.split(":", 1)[1]] if what.startswith("victim:") else cases[what].cells
        write_nb(subs / fname, cells, subst)
    batch_seed = secrets.randbits(40)
    start = time.monotonic()
    try:
        course = find_course(COURSE)
        # each kind of victim graded alone first, with the seed the batch will give it, by the session's
        # warm grader (a victim's score alone is its own code's; a grader per level cost a zygote each)
        for kind in VICTIMS:
            alone = write_nb(tmp / f"alone_{kind}.ipynb", VICTIMS[kind])
            seed = submission_seed(batch_seed, _sha256(alone))
            run.alone[kind] = toy_grader.grade(alone, "toy", seed=seed).score
        before = sandbox_processes()   # the warm grader's own zygote is not the batch's
        # then the class as `batch -j2` grades it: two grader processes, the second forked from the
        # first with a zygote forked from the first's (pool.py), so students of both share one sandbox
        results = run_batch(subs, "toy", tmp / "out", jobs=2, course=course, isolation=Isolation(level),
                            seed=batch_seed)
        run.results = {r.submission: r for r in results}
        run.seconds = time.monotonic() - start
        deadline = time.monotonic() + 5
        while True:
            run.strays = sorted(sandbox_processes() - before)
            if not run.strays or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        run.leftovers = _host_leftovers(token, keys, remove=True)
        for s in run.strays:  # never leave our own leaks running for the next test
            try:
                os.kill(int(s.split()[0]), 9)
            except OSError:
                pass
    print(f"\nclass batch at {level}: {len(run.order)} submissions in {run.seconds:.1f} s")
    return run


def _describe(r) -> str:
    if r is None:
        return "no result"
    return (f"score {r.score}/{r.max_score}, status {r.status}, message: {r.message[:600]!r}, "
            f"tests: {[(t.name, t.status, t.message[:80]) for t in r.tests]}")


ATTACKERS = [c for c in BATCH_CASES]
# Attackers that cannot see their own success are judged by the victims beside them; the others report
# through their own score (precise), and every victim is checked in test_every_victim_...
CROSS = [c for c in BATCH_CASES if c.measure == "victims"]


@pytest.mark.slow
@pytest.mark.parametrize("case", ATTACKERS, ids=[c.name for c in ATTACKERS])
def test_attacker_gains_nothing(class_batch: BatchRun, case: ClassCase) -> None:
    """The attacker scores 0: it sets answer='B' (1 point) only when its attack worked."""
    r = class_batch.result_of(case.name)
    assert r is not None, f"{case.name}: no result at all"
    assert r.score == 0, f"{case.name} at {class_batch.level}: {case.expect}; got {_describe(r)}"


@pytest.mark.slow
@pytest.mark.parametrize("case", CROSS, ids=[c.name for c in CROSS])
def test_victims_beside_attacker_keep_their_score(class_batch: BatchRun, case: ClassCase) -> None:
    """The victims graded right before and after the attacker score exactly what they score alone."""
    bad = []
    for name in class_batch.victims_around(case.name):
        kind = dict(class_batch.order)[name].split(":", 1)[1]
        r = class_batch.results.get(name)
        if r is None or r.score != class_batch.alone[kind] or r.status != "graded":
            bad.append(f"{name} (alone {class_batch.alone[kind]}): {_describe(r)}")
    assert not bad, f"{case.name} at {class_batch.level}: {case.expect}\n" + "\n".join(bad)


@pytest.mark.slow
def test_every_victim_scores_as_when_graded_alone(class_batch: BatchRun) -> None:
    assert set(class_batch.alone.values()) == {4.0, 2.0}, class_batch.alone  # the two kinds differ
    bad = []
    for name, what in class_batch.order:
        if what.startswith("victim:"):
            r = class_batch.results.get(name)
            kind = what.split(":", 1)[1]
            if r is None or r.score != class_batch.alone[kind] or r.status != "graded":
                bad.append(f"{name}: alone {class_batch.alone[kind]}, in the batch {_describe(r)}")
    assert not bad, f"{len(bad)} victims harmed at {class_batch.level}:\n" + "\n".join(bad)


@pytest.mark.slow
def test_nothing_outlives_the_grader(class_batch: BatchRun) -> None:
    """Class E: no file in a host directory, no SysV or POSIX IPC object, no process of ours."""
    assert not class_batch.leftovers, f"left on the host at {class_batch.level}: {class_batch.leftovers}"
    assert not class_batch.strays, f"processes left at {class_batch.level}: {class_batch.strays}"


# =================================================================================================
# Class B: the trusted process
# =================================================================================================
def _cli(args: list[str], timeout: float, course: Path = COURSE) -> tuple[int | None, str, str, float, int]:
    """Run the CLI; (exit code or None on timeout, stdout, stderr, seconds, peak RSS in bytes of the
    CLI and the processes it reaped)."""
    env = dict(os.environ, AUTOGRADER_COURSE=str(course))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "autograder.cli", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        return None, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - start, 0
    import resource
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), \
        time.monotonic() - start, rss


def _cli_rss(args: list[str], timeout: float) -> tuple[int | None, str, float, int]:
    """Like _cli, but the peak RSS is that of this one CLI process tree (os.wait4)."""
    code = (f"import os, sys, subprocess, resource, json\n"
            f"p = subprocess.Popen([sys.executable, '-m', 'autograder.cli'] + {args!r},"
            f" stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
            f"err = p.stderr.read()\n"
            f"_, status, ru = os.wait4(p.pid, 0)\n"
            f"print(json.dumps({{'rc': os.waitstatus_to_exitcode(status), 'rss': ru.ru_maxrss * 1024,"
            f" 'err': err.decode(errors='replace')[-1500:]}}))\n")
    env = dict(os.environ, AUTOGRADER_COURSE=str(COURSE))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return None, "timed out", time.monotonic() - start, 0
    data = json.loads(out.decode().strip().splitlines()[-1])
    return data["rc"], data["err"], time.monotonic() - start, data["rss"]


def test_intake_newline_markdown(tmp_path: Path) -> None:
    case = SOLO["intake_newline_markdown"]
    sub = write_nb(tmp_path / "newlines.ipynb", case.cells)
    res = tmp_path / "results.json"
    rc, out, err, secs, _ = _cli(["grade", str(sub), "-a", "toy", "--results", str(res)], timeout=30)
    assert rc is not None, f"{case.name}: {case.expect}; the grade did not finish in 30 s"
    assert rc == 0, err[-1500:]
    assert json.loads(res.read_text())["score"] == 4


def _deep_json_notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook(cells=[new_code_cell(GOOD_ATTEND), new_code_cell("answer = 'B'")])
    text = nbformat.writes(nb)
    depth = 100_000
    deep = '"deep": ' + "[" * depth + "]" * depth + ", "
    text = text.replace('"metadata": {', '"metadata": {' + deep, 1)
    path.write_text(text)
    return path


def test_intake_deep_json(tmp_path: Path) -> None:
    case = SOLO["intake_deep_json"]
    sub = _deep_json_notebook(tmp_path / "deep.ipynb")
    res = tmp_path / "results.json"
    rc, out, err, secs, _ = _cli(["grade", str(sub), "-a", "toy", "--results", str(res)], timeout=30)
    assert rc == 0, f"{case.name}: {case.expect}; exit {rc} after {secs:.0f} s: {err[-1500:]}"
    data = json.loads(res.read_text())
    assert data["extra_data"]["status"] in ("rejected", "graded")


def test_intake_100k_cells(tmp_path: Path) -> None:
    case = SOLO["intake_100k_cells"]
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": "pass"}
    sub = tmp_path / "cells.ipynb"
    sub.write_text(json.dumps({"cells": [cell] * 100_000, "metadata": {}, "nbformat": 4,
                               "nbformat_minor": 5}))
    rc, err, secs, rss = _cli_rss(["grade", str(sub), "-a", "toy", "--results", str(tmp_path / "r.json")],
                                  timeout=30)
    assert rc == 0, f"{case.name}: {case.expect}; exit {rc} after {secs:.0f} s: {err}"
    assert json.loads((tmp_path / "r.json").read_text())["extra_data"]["status"] == "rejected"
    assert rss < 1 << 30, f"{case.name}: peak RSS {rss >> 20} MB"


def test_reply_60mb_of_tiny_items_is_bounded(tmp_path: Path) -> None:
    case = SOLO["reply_60mb_tiny_items"]
    sub = write_nb(tmp_path / "flood.ipynb", case.cells)
    rc, err, secs, rss = _cli_rss(["grade", str(sub), "-a", "toy", "--results", str(tmp_path / "r.json")],
                                  timeout=60)
    assert rc == 0, f"{case.name}: exit {rc} after {secs:.0f} s: {err}"
    assert rss < 1 << 30, f"{case.name}: {case.expect}; the grader peaked at {rss >> 20} MB"


def test_forged_cell_events_make_no_cell_reports(tmp_path: Path, toy_grader) -> None:
    case = SOLO["forged_cell_events"]
    sub = write_nb(tmp_path / "forged.ipynb", case.cells)
    r = toy_grader.grade(sub, "toy", seed=1)
    n_code = len(case.cells)
    assert all(0 <= c.index < n_code for c in r.cells) and len(r.cells) <= n_code, \
        f"{case.name}: {case.expect}; got {len(r.cells)} cell reports, indices up to {max(c.index for c in r.cells)}"


def test_many_question_blocks_collect_only_configured_answers(tmp_path: Path, toy_grader) -> None:
    from autograder.course.outputs import write_results
    case = SOLO["many_question_blocks"]
    sub = write_nb(tmp_path / "blocks.ipynb", case.cells)
    r = toy_grader.grade(sub, "toy", seed=1)
    write_results(r, toy_grader.course.config.visibility, tmp_path / "results.json")
    size = (tmp_path / "results.json").stat().st_size
    configured = set(toy_grader.course.settings("toy").manual)
    assert len(r.manual) <= len(configured) and {m.question for m in r.manual} <= configured, \
        f"{case.name}: {case.expect}; got {len(r.manual)} written answers"
    assert size < 200_000, f"{case.name}: results.json is {size} bytes"


# =================================================================================================
# Class C: points gained on hidden tests
# =================================================================================================
def test_negated_view_scores_what_it_denotes(tmp_path: Path, toy_grader) -> None:
    case = SOLO["neg_view_return"]
    sub = write_nb(tmp_path / "negview.ipynb", case.cells)
    r = toy_grader.grade(sub, "toy", seed=1)
    assert r.score == 0, f"{case.name}: {case.expect}; got {_describe(r)}"


def test_protocol_rebuilds_the_value_a_view_denotes() -> None:
    import torch
    from autograder.sandbox import protocol
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3) + 1
    neg = torch._neg_view(x)
    got = protocol.decode_value(protocol.encode_value(neg))
    assert torch.equal(got, -x), f"negated view crossed as {got.tolist()}, it denotes {(-x).tolist()}"
    z = torch.complex(x, x + 1)
    conj = z.conj()
    got = protocol.decode_value(protocol.encode_value(conj))
    assert torch.equal(got, z.conj().resolve_conj()), "conjugated view crossed as its storage"


def _sdpa_with(tmp_path: Path, name: str, edit) -> Path:
    nb = nbformat.read(SDPA_EXAMPLES / "full_marks.ipynb", as_version=4)
    edit(nb)
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def _report(r, test_name: str):
    return next(t for t in r.tests if t.name == test_name)


def _replace_def(nb, func: str, new_src: str) -> None:
    for c in nb.cells:
        if c.cell_type == "code" and c.source.lstrip().startswith(f"def {func}("):
            c.source = new_src
            return
    raise AssertionError(f"no cell defines {func}")


@pytest.fixture(scope="module")
def sdpa_grader():
    """A grader of its own: the session's `grader` may have been given a (fake) GPU by another test."""
    from autograder.config import find_course
    from autograder.grading.grader import Grader
    with Grader(find_course(ROOT)) as g:
        yield g


@pytest.mark.slow
def test_memo_does_not_pass_the_vectorisation_check(tmp_path: Path, sdpa_grader) -> None:
    case = SOLO["memo_vectorisation"]
    loop = nbformat.read(SDPA_EXAMPLES / "loop_over_rows.ipynb", as_version=4)
    loop.cells.append(new_code_cell(
        "import hashlib\n"
        "_slow_sdpa = scaled_dot_product_attention\n"
        "_memo = {}\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    if any(t is not None and t.requires_grad for t in (Q, K, V)):\n"
        "        return _slow_sdpa(Q, K, V, mask)\n"
        "    h = hashlib.sha1()\n"
        "    for t in (Q, K, V, mask):\n"
        "        h.update(b'-' if t is None else t.detach().cpu().contiguous().numpy().tobytes())\n"
        "        h.update(str(None if t is None else (tuple(t.shape), t.dtype)).encode())\n"
        "    key = h.hexdigest()\n"
        "    if key not in _memo:\n"
        "        _memo[key] = _slow_sdpa(Q, K, V, mask)\n"
        "    return _memo[key].clone()"))
    path = tmp_path / "memo.ipynb"
    nbformat.write(loop, path)
    r = sdpa_grader.grade(path, "sdpa-from-scratch", seed=5)
    t = _report(r, "test_vectorised")
    assert t.status == "failed", f"{case.name}: {case.expect}; test_vectorised {t.status} (score {r.score})"


SOFTMAX_VIA_HELPER = ("def _normalise(x, dim):\n    return torch.softmax(x, dim=dim)\n\n"
                      "def stable_softmax(x, dim=-1):\n    \"\"\"Softmax along dim.\"\"\"\n"
                      "    return _normalise(x, dim)")
SOFTMAX_BUILTIN = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)"


@pytest.mark.slow
def test_builtin_softmax_behind_a_helper_is_caught(tmp_path: Path, sdpa_grader) -> None:
    case = SOLO["helper_hides_builtin_softmax"]
    path = _sdpa_with(tmp_path, "helper.ipynb", lambda nb: _replace_def(nb, "stable_softmax", SOFTMAX_VIA_HELPER))
    r = sdpa_grader.grade(path, "sdpa-from-scratch", seed=5)
    t = _report(r, "test_no_builtin_softmax")
    assert t.status == "failed" and t.misconception == "builtin_softmax", \
        f"{case.name}: {case.expect}; got {t.status} {t.misconception} (score {r.score})"


@pytest.mark.slow
def test_unparsable_source_does_not_blind_the_static_check(tmp_path: Path, sdpa_grader) -> None:
    case = SOLO["ipython_line_blinds_static"]

    def edit(nb):
        _replace_def(nb, "stable_softmax", SOFTMAX_BUILTIN)
        nb.cells.append(new_code_cell("files = !ls"))
    path = _sdpa_with(tmp_path, "blind.ipynb", edit)
    r = sdpa_grader.grade(path, "sdpa-from-scratch", seed=5)
    t = _report(r, "test_no_builtin_softmax")
    # failing closed may not know which rule was broken: the point must be lost, the name is a bonus
    assert t.status == "failed", f"{case.name}: {case.expect}; got {t.status} (score {r.score})"


# =================================================================================================
# Class D: outputs
# =================================================================================================
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\x9b]")


def test_escape_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    case = SOLO["escape_forged_score"]
    sub = write_nb(tmp_path / "escape.ipynb", case.cells)
    res = tmp_path / "results.json"
    rc, out, err, _, _ = _cli(["grade", str(sub), "-a", "toy", "--results", str(res)], timeout=90)
    assert rc == 0, err[-1500:]
    bad = sorted({repr(ch) for ch in CONTROL.findall(out + err)})
    assert not bad, f"{case.name}: {case.expect}; control characters printed: {bad}"
    assert json.loads(res.read_text())["score"] == 0


def test_rich_markup_in_a_message_does_not_crash_grade(tmp_path: Path) -> None:
    case = SOLO["rich_markup_crash"]
    sub = write_nb(tmp_path / "markup.ipynb", case.cells)
    res = tmp_path / "results.json"
    rc, out, err, _, _ = _cli(["grade", str(sub), "-a", "toy", "--results", str(res)], timeout=90)
    assert res.exists(), f"{case.name}: {case.expect}; no results.json (exit {rc}): {err[-800:]}"
    assert rc == 0, f"{case.name}: exit {rc}: {err[-800:]}"
    assert json.loads(res.read_text())["score"] == 0


def test_gradescope_zip_named_dotdot_stays_in_scratch(tmp_path: Path) -> None:
    from autograder.course.gradescope import find_notebook
    case = SOLO["gradescope_dotdot_zip"]
    submission = tmp_path / "submission"
    submission.mkdir()
    with zipfile.ZipFile(submission / "...zip", "w") as z:
        z.writestr("toy.ipynb", (ROOT / "tests/fixtures/submissions/good.ipynb").read_text())
        z.writestr("planted.txt", "outside")
    parent = tmp_path / "work"
    scratch = parent / "scratch"
    scratch.mkdir(parents=True)
    try:
        found, _problem = find_notebook(submission, "toy", scratch)
    except Exception as e:  # noqa: BLE001 - refusing the upload is fine, escaping is not
        found, _problem = None, str(e)
    outside = sorted(str(p.relative_to(tmp_path)) for p in parent.rglob("*")
                     if p.is_file() and scratch not in p.parents)
    assert not outside, f"{case.name}: {case.expect}; written outside the scratch folder: {outside}"
    if found is not None:
        assert scratch in found.resolve().parents


# --- the whole path through the CLI: a batch of attackers, victims and hostile file names --------
@pytest.fixture(scope="module")
def cli_batch(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli-batch")
    subs = tmp / "class"
    subs.mkdir()
    cases = {c.name: c for c in BATCH_CASES}
    good = (ROOT / "tests/fixtures/submissions/good.ipynb").read_bytes()
    write_nb(subs / "a0_victim.ipynb", VICTIMS["good"])
    write_nb(subs / "a1_pidfd.ipynb", cases["kill_sibling_pidfd"].cells)
    write_nb(subs / "a2_victim.ipynb", VICTIMS["good"])
    (subs / '=HYPERLINK("evil.example","click").ipynb').write_bytes(good)
    (subs / "+cmd@SUM(1).ipynb").write_bytes(good)
    (subs / "alice.ipynb").write_bytes(good)
    (subs / "alice.py").write_text("import torch\ndef attend(Q, K, V):\n    return Q\nanswer = 'C'\n")
    out = tmp / "out"
    before = sandbox_processes()
    rc, stdout, stderr, secs, _ = _cli(["batch", str(subs), "-a", "toy", "-o", str(out), "-j", "2"],
                                       timeout=300)
    strays = sorted(sandbox_processes() - before)
    return dict(rc=rc, stdout=stdout, stderr=stderr, out=out, secs=secs, strays=strays)


@pytest.mark.slow
def test_cli_batch_finishes_and_victims_keep_full_marks(cli_batch) -> None:
    assert cli_batch["rc"] == 0, cli_batch["stderr"][-1500:]
    rows = {r["submission"]: r for r in csv.DictReader(open(cli_batch["out"] / "gradebook.csv"))}
    for name in ("a0_victim.ipynb", "a2_victim.ipynb"):
        row = next((r for s, r in rows.items() if s.endswith(name)), None)
        assert row is not None and float(row["score"]) == 4 and row["status"] == "graded", (name, row)
    attacker = next(r for s, r in rows.items() if s.endswith("a1_pidfd.ipynb"))
    assert float(attacker["score"]) == 0, attacker
    assert not cli_batch["strays"], cli_batch["strays"]


@pytest.mark.slow
def test_cli_batch_gradebook_has_no_formula(cli_batch) -> None:
    case = SOLO["formula_filename"]
    assert cli_batch["rc"] == 0, cli_batch["stderr"][-1500:]
    with open(cli_batch["out"] / "gradebook.csv", newline="") as fh:
        cells = [c for row in csv.reader(fh) for c in row]
    live = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")
            and not re.fullmatch(r"-?\d+(\.\d+)?", c)]
    assert not live, f"{case.name}: {case.expect}; formula cells: {live}"


@pytest.mark.slow
def test_cli_batch_same_stem_gets_two_results_files(cli_batch) -> None:
    case = SOLO["same_stem_results"]
    assert cli_batch["rc"] == 0, cli_batch["stderr"][-1500:]
    files = sorted((cli_batch["out"] / "results").glob("alice*"))
    scores = sorted(json.loads(f.read_text())["score"] for f in files)
    assert len(files) == 2 and scores == [0, 4], \
        f"{case.name}: {case.expect}; got {[f.name for f in files]} with scores {scores}"
