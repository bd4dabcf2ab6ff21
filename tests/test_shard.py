"""Sharding onto a cluster engine: --shard K/N splits a class deterministically, merge writes what one
batch would, a shard that dies resumes alone, and the SLURM and Kubernetes recipes call the CLI with
the right shard arguments from their engine's own variables."""
from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell

from autograder.course.batch import parse_shard, shard_of
from autograder.errors import GraderError
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT
from tests.test_batch import comparable, journaled

CLUSTER = ROOT / "examples" / "cluster"
AUTOGRADER = str(Path(sys.executable).with_name("autograder"))


def test_shards_partition_any_class():
    names = [f"student_{i:04d}.ipynb" for i in range(3000)] + ["=x.py", "é.ipynb", "a b.ipynb"]
    for n in (1, 2, 3, 8):
        parts = {k: {x for x in names if shard_of(x, n) == k} for k in range(1, n + 1)}
        assert set().union(*parts.values()) == set(names)
        assert sum(len(p) for p in parts.values()) == len(names)  # disjoint
        if n > 1:
            assert min(len(p) for p in parts.values()) > len(names) / n * 0.85  # and balanced
    assert parse_shard("2/3") == (2, 3) and parse_shard(" 1 / 1 ") == (1, 1)
    for bad in ("0/3", "4/3", "3", "a/b", "-1/2", ""):
        with pytest.raises(GraderError):
            parse_shard(bad)


def _class(where: Path) -> Path:
    """Ten submissions: right, wrong, unreadable; seven slow enough to kill a shard mid-way."""
    where.mkdir(parents=True)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", where / "good.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", where / "no_scale.ipynb")
    (where / "broken.ipynb").write_text("{ not json")
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    for i in range(7):
        nb = nbformat.v4.new_notebook(cells=[new_code_cell(f"import time\ntime.sleep(0.5)  # student {i}")]
                                      + good.cells)
        nbformat.write(nb, where / f"slow_{i}.ipynb")
    return where


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    env.update(extra)
    return env


def _slurm(k: int, n: int, subs: Path, out: Path, **extra: str) -> subprocess.Popen:
    env = _env(SLURM_ARRAY_TASK_ID=str(k), N=str(n), SEED="4242", SUBMISSIONS=str(subs), SLUG="toy",
               OUT=str(out), JOBS="1", AUTOGRADER=AUTOGRADER, **extra)
    return subprocess.Popen(["bash", str(CLUSTER / "slurm" / "grade.sbatch")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def _run(proc: subprocess.Popen) -> str:
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out[-3000:]
    return out


def _book(path: Path) -> list[dict[str, str]]:
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r.pop("execution_time_s", None)  # a measurement (gradebook.csv no longer has it)
    return rows


def test_three_shards_merged_equal_one_batch_and_a_dead_shard_resumes(tmp_path: Path):
    subs = _class(tmp_path / "class")
    whole = tmp_path / "whole"
    _run(subprocess.Popen([sys.executable, "-m", "autograder.cli", "batch", str(subs), "-a", "toy", "-o",
                           str(whole), "-j", "2", "--seed", "4242"], env=_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True))
    out = tmp_path / "shards"
    mine = {k: {p.name for p in subs.iterdir() if shard_of(p.name, 3) == k} for k in (1, 2, 3)}
    big = max(mine, key=lambda k: len(mine[k]))  # the shard that gets killed
    assert len(mine[big]) >= 4
    for k in (1, 2, 3):
        if k != big:
            _run(_slurm(k, 3, subs, out))
    # the big shard dies mid-way (kill -9 of its whole process group)
    victim = out / f"shard-{big}-of-3"
    proc = _slurm(big, 3, subs, out)
    deadline = time.monotonic() + 120
    while len(journaled(victim)) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = journaled(victim)
    assert 1 <= len(done_before) < len(mine[big]), "the kill should land mid-shard"

    shards = [str(out / f"shard-{k}-of-3") for k in (1, 2, 3)]
    merged = tmp_path / "merged"
    refused = subprocess.run([AUTOGRADER, "merge", *shards, "-o", str(merged)], env=_env(), capture_output=True,
                             text=True, timeout=300)
    assert refused.returncode == 2 and "has not finished" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1

    rerun = _run(_slurm(big, 3, subs, out))  # rerun alone: resumes from its journal
    assert f"{len(mine[big]) - len(done_before)} graded now, {len(done_before)} already in the journal" in rerun
    for k in (1, 2, 3):
        assert journaled(out / f"shard-{k}-of-3") == mine[k]

    merged_out = subprocess.run([AUTOGRADER, "merge", *shards, "-o", str(merged)], env=_env(),
                                capture_output=True, text=True, timeout=300)
    assert merged_out.returncode == 0, merged_out.stderr[-3000:]
    assert _book(merged / "gradebook.csv") == _book(whole / "gradebook.csv")
    assert comparable(merged) == comparable(whole)
    assert {r["submission"] for r in _book(merged / "gradebook.csv")} == {p.name for p in subs.iterdir()}
    html = (merged / "report.html").read_text()
    assert "10 submissions" in html and 'href="results/good.ipynb.json"' in html

    # a missing shard, or one given twice, is refused
    for bad in ([shards[0], shards[1]], [shards[0], shards[0], shards[2]]):
        proc = subprocess.run([AUTOGRADER, "merge", *bad, "-o", str(tmp_path / "bad")], env=_env(),
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2 and ("missing" in proc.stderr or "twice" in proc.stderr), proc.stderr


# --- the recipes, against a stand-in that records its arguments -------------------------------------
@pytest.fixture()
def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A directory holding an `autograder` that writes its arguments, one per line, to $ARGS_FILE."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    stub = bindir / "autograder"
    stub.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$ARGS_FILE"\n')
    stub.chmod(0o755)
    return bindir, tmp_path / "args.txt"


def test_slurm_recipe_takes_its_shard_from_the_array_index(recorder):
    bindir, args_file = recorder
    seen = []
    for k in (1, 2, 3):
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", ARGS_FILE=str(args_file),
                   SLURM_ARRAY_TASK_ID=str(k), SLURM_ARRAY_TASK_COUNT="1", SLURM_CPUS_PER_TASK="16",
                   N="3", SEED="777", SUBMISSIONS="/data/subs", SLUG="sdpa-from-scratch", OUT="/data/out")
        env.pop("AUTOGRADER", None)
        subprocess.run(["bash", str(CLUSTER / "slurm" / "grade.sbatch")], env=env, check=True, timeout=60)
        seen.append(args_file.read_text().splitlines())
    for k, args in enumerate(seen, start=1):
        assert args == ["batch", "/data/subs", "-a", "sdpa-from-scratch", "-o", f"/data/out/shard-{k}-of-3",
                        "--shard", f"{k}/3", "--seed", "777", "-j", "16"]
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", ARGS_FILE=str(args_file), N="3", OUT="/data/out")
    subprocess.run(["bash", str(CLUSTER / "slurm" / "merge.sbatch")], env=env, check=True, timeout=60)
    assert args_file.read_text().splitlines() == ["merge", *[f"/data/out/shard-{k}-of-3" for k in (1, 2, 3)],
                                                  "-o", "/data/out/merged"]
    # without a seed the shards would draw different inputs: the recipe refuses to start
    env = dict(env, SLURM_ARRAY_TASK_ID="1", SUBMISSIONS="/s", SLUG="x")
    env.pop("SEED", None)
    assert subprocess.run(["bash", str(CLUSTER / "slurm" / "grade.sbatch")], env=env, capture_output=True,
                          timeout=60).returncode != 0


def _container(path: Path) -> tuple[dict, dict]:
    job = yaml.safe_load(path.read_text())
    assert job["kind"] == "Job" and job["apiVersion"] == "batch/v1"
    container = job["spec"]["template"]["spec"]["containers"][0]
    return job, container


def _shell(container: dict, bindir: Path, args_file: Path, **env: str) -> list[str]:
    assert container["command"] == ["/bin/sh", "-c"]
    values = {e["name"]: e["value"] for e in container["env"]}
    full = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", ARGS_FILE=str(args_file), **values, **env)
    subprocess.run(["/bin/sh", "-c", container["args"][0]], env=full, check=True, timeout=60)
    return args_file.read_text().splitlines()


def test_kubernetes_indexed_job_takes_its_shard_from_the_completion_index(recorder):
    bindir, args_file = recorder
    job, container = _container(CLUSTER / "kubernetes" / "grade-job.yaml")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    env = {e["name"]: e["value"] for e in container["env"]}
    n = int(env["SHARDS"])
    assert spec["completions"] == n, "completions and SHARDS must agree"
    for index in range(n):
        args = _shell(container, bindir, args_file, JOB_COMPLETION_INDEX=str(index))
        k = index + 1
        assert args == ["batch", "/data/submissions", "-a", env["SLUG"], "-o", f"/data/out/shard-{k}-of-{n}",
                        "--shard", f"{k}/{n}", "--seed", env["SEED"], "-j", env["JOBS"]]
    job, container = _container(CLUSTER / "kubernetes" / "merge-job.yaml")
    args = _shell(container, bindir, args_file)
    m = int({e["name"]: e["value"] for e in container["env"]}["SHARDS"])
    assert m == n
    assert args == ["merge", *[f"/data/out/shard-{k}-of-{n}" for k in range(1, n + 1)], "-o", "/data/out/merged"]
