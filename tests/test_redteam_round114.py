"""Red-team round 114: today's changes (the UTF-8 restart, the host memory-limit check, the temp-folder refusal, the
journal's schema check, the OUT writer lock, the Gradescope zip's rename, the formula costs, the protocol's refusals,
the send's deadline, intake's globals() parse), from a hostile student or host and from honest users the new rules now
refuse. Repros in /tmp/rt114/ (as.py, big.ipynb, big2.ipynb, vm.ipynb, merge_busy.py). Held: the restart (a locale
that does not exist falls back to C, which Python reads as UTF-8 mode; the marker keeps a second start from restarting;
sys.orig_argv goes back as its bytes), the schema check (every SCHEMA this grader has had is the text of today's, and
the ALTERs of older journals are the states _our_schema lists), a batch resumed after a kill (the kernel let go of the
flock), a file system without flock (ENOLCK: unguarded, as before). Found:

- **A `ulimit -v` at memory_mb passed the new check, and cost points.** hold_host_memory_limits asked RLIMIT_AS for
  memory_mb, as RLIMIT_DATA; but the address space holds a worker's libraries besides its data (a worker at its first
  cell: VmSize 595 MiB, VmData 186 MiB). Measured (uid 1000, no CAP_SYS_RESOURCE, `ulimit -v 3145728`, i.e. 3072 MiB,
  sdpa-from-scratch's full_marks with `bytearray(2650 << 20)` in its softmax cell): 11/35, exit 0, against 35/35
  without the ulimit; the result said `RLIMIT_DATA 3072 MiB` both times. Now RLIMIT_AS must leave
  AS_BESIDES_DATA_MB (1024) more than memory_mb: raised to that, or one line naming `ulimit -v`, exit 2.
- **A link or a folder named .autograder-writing turned the writer lock off without a word.** sole_writer opened the
  name with O_NOFOLLOW and took any OSError for "this file system takes no locks": a symlink (ELOOP) or a folder
  (EISDIR) there, which anyone who names a file in OUT can leave (a flat class folder as -o, round 111's case), let two
  batches into one OUT both run (two nested sole_writer blocks both entered). Now a name there that is not a regular
  file is refused in one line; a file system without locks still runs unguarded, as before.
- **merge read a shard whose batch was still writing it.** merge took its own OUT's lock but never asked the shards':
  a shard folder held by a running batch (a --regrade, or a resumed run, whose journal holds old and new grades side by
  side while it runs) was merged, exit 0 (merge_busy.py: a shard held by sole_writer in another process, merged). Now
  a shard whose lock is held is refused (atomic.being_written: a shared flock asked without waiting, nothing created in
  the shard).
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT
from tests.test_redteam_round112 import HOLDER, _one_shard

GOOD = FIXTURE_SUBS / "good.ipynb"


def test_an_address_space_limit_of_memory_mb_is_raised_or_refused_never_graded_under(tmp_path):
    # the fixture course gives a worker 2048 MiB of data; the host's address space is 2048 MiB too; the cell takes 1.7 GB
    nb = json.loads(GOOD.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if "def attend" in "".join(cell["source"]):
            cell["source"] = "import torch\n_check = torch.ones(425_000_000).sum()\ndel _check\n" + "".join(cell["source"])
    (tmp_path / "big.ipynb").write_text(json.dumps(nb), encoding="utf-8")

    def host_limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2048 << 20, 2048 << 20))
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "big.ipynb", "-a", "toy", "--results", "r.json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, preexec_fn=host_limit)
    if proc.returncode == 2:  # not allowed to raise it (not root, or no CAP_SYS_RESOURCE): said, nothing graded
        assert "ulimit -v" in proc.stderr and "limits.memory_mb (2048)" in proc.stderr, proc.stderr[-2000:]
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr[-2000:]
        assert not (tmp_path / "r.json").exists()
        return
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    full = sum(t["max_score"] for t in result["tests"])
    assert result["score"] == full, [t["output"][:200] for t in result["tests"] if t["score"] < t["max_score"]]


@pytest.mark.parametrize("planted", ["link", "dangling link", "folder", "fifo"])
def test_a_link_folder_or_fifo_at_the_lock_name_is_refused_not_passed_over(tmp_path, planted):
    from autograder.course.atomic import WRITER_LOCK, sole_writer
    from autograder.errors import GraderError
    outdir = tmp_path / "out"
    outdir.mkdir()
    name = outdir / WRITER_LOCK
    if planted == "link":
        (tmp_path / "elsewhere").write_text("a file of the instructor's")
        name.symlink_to(tmp_path / "elsewhere")
    elif planted == "dangling link":
        name.symlink_to(tmp_path / "nowhere")
    elif planted == "folder":
        name.mkdir()
    else:
        os.mkfifo(name)
    with pytest.raises(GraderError, match="not the lock this grader keeps there"):
        with sole_writer(outdir):
            with sole_writer(outdir):   # as found: a second run into this OUT, entered too
                pass
    assert os.path.lexists(name)   # said, not removed
    if planted == "link":
        assert (tmp_path / "elsewhere").read_text() == "a file of the instructor's"


def test_merge_refuses_a_shard_its_batch_is_still_writing(tmp_path):
    from autograder.config import find_course
    from autograder.course.atomic import OutputBusy
    from autograder.course.merge import merge
    shard = tmp_path / "shard"
    (shard / "results").mkdir(parents=True)
    _one_shard(shard)
    course = find_course(FIXTURE_COURSE)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ROOT), str(shard)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"   # a batch writing the shard
        with pytest.raises(OutputBusy, match="is being written by"):
            merge([shard], tmp_path / "out", course)
        assert not (tmp_path / "out").exists()
    finally:
        holder.kill()
        holder.wait()
    got = merge([shard], tmp_path / "out", course)   # its batch gone: the same command merges
    assert [r.submission for r in got] == ["s1"]
    assert Path(tmp_path / "out" / "gradebook.csv").is_file()
