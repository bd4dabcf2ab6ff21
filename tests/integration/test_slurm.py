"""The SLURM recipe on a real one-node SLURM: Debian's slurm-wlm (22.05) and munge, installed with apt-get
if missing, started as this test's own processes (munged, slurmctld, slurmd) with their own key, socket,
ports, state and spool under a tmp dir, and stopped after, even on failure. Another copy of this test
(another engineer's CI) can run on the same host at the same time: nothing is shared but the binaries.

`examples/cluster/slurm/submit.sh` runs unmodified with sizing knobs that fit the node (CPUS = the node's
cores): three array tasks and the merge job, whose gradebook must equal one unsharded `batch --seed` of
the same class. A request no node can meet is refused at submit time with one line, nothing queued.
"""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SUBMIT = REPO / "examples" / "cluster" / "slurm" / "submit.sh"
AUTOGRADER = Path(sys.executable).with_name("autograder")  # the project's .venv, found by the jobs too
SLUG = "sdpa-from-scratch"
EXAMPLES = REPO / "examples" / "submissions" / SLUG
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel")
START_TIMEOUT_S = 60
RUN_TIMEOUT_S = 1200

if os.geteuid() != 0:
    pytest.skip("needs root: munged, slurmctld and slurmd run as root and the jobs run as root",
                allow_module_level=True)
if any(shutil.which(d) is None for d in DAEMONS) and shutil.which("apt-get") is None:
    pytest.skip("SLURM is not installed and there is no apt-get to install Debian's slurm-wlm and munge",
                allow_module_level=True)


def _install_slurm() -> None:
    """Debian's slurm-wlm and munge (about 15 s), waiting for another engineer's apt rather than failing."""
    if all(shutil.which(d) for d in DAEMONS):
        return
    apt = ["apt-get", "-o", "DPkg::Lock::Timeout=600"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*apt, "install", "-y", "-qq", "slurm-wlm", "munge"]
    if subprocess.run(install, env=env, capture_output=True, timeout=900).returncode != 0:
        subprocess.run([*apt, "update", "-qq"], env=env, check=True, capture_output=True, timeout=900)
        subprocess.run(install, env=env, check=True, capture_output=True, timeout=900)


def _free_ports(n: int) -> list[int]:
    """n distinct ports free now: another copy of this test on the host gets others."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _mem_total_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


@dataclass
class Cluster:
    """One node's SLURM, reached by setting SLURM_CONF (every client command reads it)."""
    home: Path
    env: dict[str, str]
    cpus: int
    memory_mb: int

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout)

    def queued(self) -> set[str]:
        """Every job this controller still knows (any state), as job ids."""
        out = self.run("squeue", "-h", "-t", "all", "-o", "%i")
        assert out.returncode == 0, out.stderr
        return set(out.stdout.split())

    def log_tail(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                         for p in sorted(self.home.glob("*.log")))


def _write_conf(home: Path, host: str, cpus: int, memory_mb: int) -> Path:
    """One node, its own ports, files and cluster name; addresses given, so no name lookup is needed.
    Jobs run as whoever submits them: root here."""
    conf = home / "slurm.conf"
    ctld_port, slurmd_port = _free_ports(2)
    conf.write_text(f"""\
ClusterName=ag{os.getpid()}
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={home}/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation={home}/state
SlurmdSpoolDir={home}/spool
SlurmctldPidFile={home}/slurmctld.pid
SlurmdPidFile={home}/slurmd.pid
SlurmctldLogFile={home}/slurmctld.log
SlurmdLogFile={home}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=3600
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP
PartitionName=short Nodes={host} MaxTime=10 State=UP
""")
    return conf


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each daemon's process group (newest first), then SIGKILL what is left."""
    for proc in reversed(procs):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in reversed(procs):
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    _install_slurm()
    home = tmp_path_factory.mktemp("slurm")
    for sub in ("munge", "state", "spool"):
        (home / sub).mkdir()
        (home / sub).chmod(0o755)  # munged wants its socket's folder searchable by all
    key = home / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    host = socket.gethostname().split(".")[0]
    cpus = os.cpu_count() or 1
    memory_mb = _mem_total_mb() * 8 // 10  # below what slurmd measures, or it drains the node
    conf = _write_conf(home, host, cpus, memory_mb)
    env = {**os.environ, "SLURM_CONF": str(conf)}
    env.pop("JOBS", None)
    procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(name: str, *argv: str) -> None:
        with open(home / f"{name}.out.log", "wb") as out:
            procs[name] = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True)

    the = Cluster(home, env, cpus, memory_mb)
    try:
        # --force: munged refuses a socket whose folders others cannot search (pytest's tmp dirs are 0700)
        start("munged", "munged", "--foreground", "--force", f"--socket={home}/munge/socket", f"--key-file={key}",
              f"--pid-file={home}/munge/munged.pid", f"--seed-file={home}/munge/seed",
              f"--log-file={home}/munged.log")
        _wait_for(lambda: (home / "munge" / "socket").exists(), "munged's socket", the, procs)
        start("slurmctld", "slurmctld", "-D", "-i")
        _wait_for(lambda: the.run("sinfo", "-h").returncode == 0, "slurmctld", the, procs)
        start("slurmd", "slurmd", "-D")
        _wait_for(lambda: the.run("sinfo", "-h", "-N", "-p", "main", "-o", "%T").stdout.split() == ["idle"],
                  "the node to be idle", the, procs)
        yield the
    finally:
        left = the.run("squeue", "-h", "-o", "%i").stdout.split() if len(procs) == 3 else []
        if left:  # jobs a failed test left behind: cancel them and let slurmd end them before it stops
            the.run("scancel", "--full", *left)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and the.run("squeue", "-h").stdout.strip():
                time.sleep(0.5)
        _stop(list(procs.values()))


def _wait_for(ready: Callable[[], bool], what: str, the: Cluster, procs: dict[str, subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready():
        dead = [name for name, p in procs.items() if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            why = f"{', '.join(dead)} exited" if dead else f"not ready after {START_TIMEOUT_S} s"
            raise AssertionError(f"waiting for {what}: {why}\n{the.log_tail()}")
        time.sleep(0.3)


def _submit(the: Cluster, out: Path, subs: Path, **knobs: str) -> subprocess.CompletedProcess[str]:
    env = {**the.env, "SUBMISSIONS": str(subs), "SLUG": SLUG, "OUT": str(out), "COURSE": str(REPO),
           "AUTOGRADER": str(AUTOGRADER), **knobs}
    return subprocess.run(["bash", str(SUBMIT)], env=env, cwd=the.home, capture_output=True, text=True, timeout=120)


def _class(where: Path) -> Path:
    """The example class flat: every example submission, the hostile ones among them."""
    where.mkdir()
    for nb in sorted(EXAMPLES.glob("*.ipynb")):
        shutil.copy(nb, where / nb.name)
    for nb in sorted((EXAMPLES / "hostile").glob("*.ipynb")):
        shutil.copy(nb, where / f"hostile_{nb.name}")
    return where


def _gradebook(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="") as fh:
        return {row["submission"]: row for row in csv.DictReader(fh)}


def _scores(outdir: Path) -> dict[str, tuple[float, list[tuple[str, float, str]]]]:
    """Each submission's score and its tests' scores and statuses (their words may hold a measured time)."""
    scores = {}
    for path in sorted((outdir / "results").glob("*.json")):
        result = json.loads(path.read_text())
        scores[path.name] = (result["score"], [(t["name"], t["score"], t["status"]) for t in result["tests"]])
    return scores


def _runtimes(the: Cluster, job: str) -> list[str]:
    return re.findall(r"RunTime=(\S+)", the.run("scontrol", "show", "job", job).stdout)


def _job_states(the: Cluster, job: str) -> list[str]:
    out = the.run("scontrol", "show", "job", job)
    assert out.returncode == 0, out.stderr
    return re.findall(r"JobState=(\S+)", out.stdout)


def test_an_oversize_request_is_refused_at_submit_time_with_one_line(cluster: Cluster, tmp_path: Path):
    before = cluster.queued()
    subs = tmp_path / "subs"
    subs.mkdir()
    too_many = str(max(64, cluster.cpus * 2))
    refusals = {
        f"CPUS={too_many}": {"CPUS": too_many},
        f"MEM={cluster.memory_mb * 2}M": {"CPUS": "1", "MEM": f"{cluster.memory_mb * 2}M"},
        f"MERGE_MEM={cluster.memory_mb * 2}M": {"CPUS": "1", "MEM": "1G", "MERGE_MEM": f"{cluster.memory_mb * 2}M"},
        "TIME=01:00:00": {"CPUS": "1", "MEM": "1G", "TIME": "01:00:00", "PARTITION": "short"},  # MaxTime=10
        "no-such-partition": {"CPUS": "1", "MEM": "1G", "PARTITION": "no-such-partition"},
    }
    for i, (named, knobs) in enumerate(refusals.items()):
        out = tmp_path / f"out-{i}"
        done = _submit(cluster, out, subs, N="3", **knobs)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, (knobs, done.stdout, done.stderr)
        assert len(lines) == 1 and lines[0].startswith("submit.sh: refused, nothing queued:"), done.stderr
        assert named in lines[0], (named, lines[0])
        assert "array job" not in done.stdout and not out.exists(), done.stdout
    assert f"at most {cluster.cpus} CPUs" in _submit(cluster, tmp_path / "o", subs, CPUS=too_many).stderr
    assert cluster.queued() == before, "a refused request left a job behind"


def test_three_array_tasks_and_the_merge_equal_one_batch(cluster: Cluster, tmp_path: Path):
    subs = _class(tmp_path / "class")
    seed = "271828"
    out = tmp_path / "cluster-out"
    knobs = {"N": "3", "SEED": seed, "CPUS": str(cluster.cpus), "MEM": f"{min(8192, cluster.memory_mb // 2)}M",
             "TIME": "00:20:00", "MERGE_MEM": "2G", "MERGE_TIME": "00:10:00"}
    start = time.monotonic()
    submitted = _submit(cluster, out, subs, **knobs)
    assert submitted.returncode == 0, submitted.stderr
    array = re.search(r"^array job (\d+):", submitted.stdout, re.M)
    merge = re.search(r"^merge job (\d+):", submitted.stdout, re.M)
    assert array and merge, submitted.stdout
    jobs = {array[1], merge[1]}
    deadline = start + RUN_TIMEOUT_S
    while jobs & set(cluster.run("squeue", "-h", "-o", "%F").stdout.split()):
        assert time.monotonic() < deadline, f"still queued after {RUN_TIMEOUT_S} s\n{cluster.log_tail()}"
        time.sleep(0.5)
    elapsed = time.monotonic() - start
    logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted((out / "logs").glob("*")))
    assert _job_states(cluster, array[1]) == ["COMPLETED"] * 3, logs
    assert _job_states(cluster, merge[1]) == ["COMPLETED"], logs
    for k in (1, 2, 3):  # each task's grader ran one process per CPU it was given
        grade_log = (out / "logs" / f"grade-{array[1]}_{k}.log").read_text()
        assert f"shard {k}/3 on " in grade_log and f": -j {cluster.cpus}\n" in grade_log, grade_log

    whole = tmp_path / "whole"
    env = {**os.environ, "AUTOGRADER_COURSE": str(REPO)}
    start_one = time.monotonic()
    one = subprocess.run([str(AUTOGRADER), "batch", str(subs), "-a", SLUG, "-o", str(whole), "--seed", seed,
                          "-j", str(cluster.cpus)], env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert one.returncode == 0, one.stderr[-3000:]
    elapsed_one = time.monotonic() - start_one

    merged_book, whole_book = _gradebook(out / "merged" / "gradebook.csv"), _gradebook(whole / "gradebook.csv")
    assert set(merged_book) == {p.name for p in subs.iterdir()}
    assert merged_book == whole_book
    assert _scores(out / "merged") == _scores(whole)
    scores = sorted(float(r["score"]) for r in merged_book.values())
    levels = {json.loads(p.read_text())["extra_data"]["isolation"] for p in (out / "merged" / "results").glob("*.json")}
    assert None not in levels, "every result records the isolation level it was graded at"
    assert scores[0] < scores[-1] == float(merged_book["full_marks.ipynb"]["max_score"]), scores
    print(f"\nSLURM, one node of {cluster.cpus} CPUs: {len(merged_book)} submissions in 3 array tasks + merge, "
          f"submit to merged gradebook: {elapsed:.1f} s (tasks {', '.join(_runtimes(cluster, array[1]))}; "
          f"merge {', '.join(_runtimes(cluster, merge[1]))}); one unsharded batch -j {cluster.cpus}: "
          f"{elapsed_one:.1f} s; isolation {', '.join(sorted(levels))}")


def _wait_gone(the: Cluster, jobs: set[str]) -> None:
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while jobs & set(the.run("squeue", "-h", "-o", "%F").stdout.split()):
        assert time.monotonic() < deadline, f"still queued after {RUN_TIMEOUT_S} s\n{the.log_tail()}"
        time.sleep(0.5)


def test_a_shard_rerun_as_submit_sh_says_runs_with_the_same_sizing_and_merges(cluster: Cluster, tmp_path: Path):
    """Red-team round 116: grade.sbatch's own rerun line asked its #SBATCH sizes (16 CPUs, 64G) and pended for good on a
    small node. Shard 2 of 2 is left out of the first submission (as if it had failed); the same command with the
    SEED it printed and SHARDS=2 grades it with the same sizing, and the merge that follows is whole."""
    subs = tmp_path / "class"
    subs.mkdir()
    for name in ("full_marks", "no_scale", "mask_ignored", "divide_by_dk", "biased_variance"):
        shutil.copy(EXAMPLES / f"{name}.ipynb", subs / f"{name}.ipynb")
    out = tmp_path / "out"
    knobs = {"N": "2", "CPUS": str(cluster.cpus), "MEM": "2G", "TIME": "00:10:00", "MERGE_MEM": "1G", "SEED": "31337"}
    first = _submit(cluster, out, subs, SHARDS="1", **knobs)
    assert first.returncode == 0, first.stderr
    rerun_line = re.search(r"this same command with SEED=(\d+) SHARDS=K", first.stdout)
    assert rerun_line and rerun_line[1] == "31337", first.stdout
    jobs = re.findall(r"^(?:array|merge) job (\d+):", first.stdout, re.M)
    _wait_gone(cluster, set(jobs))
    assert _job_states(cluster, jobs[0]) == ["COMPLETED"], cluster.log_tail()
    assert _job_states(cluster, jobs[1]) == ["FAILED"], "a merge without shard 2 must not succeed"
    assert not (out / "merged" / "gradebook.csv").exists()

    again = _submit(cluster, out, subs, SHARDS="2", **knobs)
    assert again.returncode == 0, again.stderr
    jobs = re.findall(r"^(?:array|merge) job (\d+):", again.stdout, re.M)
    _wait_gone(cluster, set(jobs))
    logs = "\n".join(p.read_text(errors="replace")[-2000:] for p in sorted((out / "logs").glob("*")))
    assert _job_states(cluster, jobs[0]) == ["COMPLETED"], logs
    assert _job_states(cluster, jobs[1]) == ["COMPLETED"], logs
    assert "shard 2/2 on " in (out / "logs" / f"grade-{jobs[0]}_2.log").read_text()
    assert set(_gradebook(out / "merged" / "gradebook.csv")) == {p.name for p in subs.iterdir()}
