"""Red-team round 108: honest users refused or misled by today's new rules.

Attacked the honest side of today's refusals and rules (repros in /tmp/rt108/): an instructor's ordinary merges (a
single 1/1 shard, a whole batch merged alone, shards run one on the export folder and one on its zip, a merge again
into its own output, a merge of a merge: all merged, rc 0, /tmp/rt108/flows.py), exact copies of each of the
similarity fixtures' 20 solutions under the new token minimums (every one still flagged, 65 to 281 tokens shared on
each side: /tmp/rt108/simcopy.py), and the CLI's stdout guard on a terminal (rich's bar, colours and width as
before: /tmp/rt108/tty.py, pty.sh). Found:

- **A batch whose standard output is a non-blocking pipe lost its summary, with exit 0 and no word.** CI log
  collectors (and a terminal a previous program left in O_NONBLOCK) hand the grader a stdout whose writes fail
  with EAGAIN while the reader is behind. CPython's stdout drops such a write without raising, so round 106's guard
  (`_lose_stdout`, which says on stderr that lines were dropped) never heard of it: a class of 120 skipped folders
  whose notes filled a 4 KiB pipe before its reader woke ended `rc 0` with the notes but not the
  `gradebook:`/`report:` lines, stderr empty; strace showed each summary line's write() = -1 EAGAIN
  (/tmp/rt108/nb.py). The console script now gives its own standard output and error (a pipe or a terminal) an
  open file description of their own in blocking mode (the caller's stays as it was): a line waits for the reader
  as it would on any ordinary pipe, and is written.
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time

from tests.conftest import ROOT


def test_a_full_non_blocking_stdout_delays_the_lines_and_loses_none() -> None:
    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
        os.set_blocking(write_end, False)
        filled = 0
        try:
            while True:      # the reader is behind: the pipe is full when the command starts writing
                filled += os.write(write_end, b"x" * 4096)
        except BlockingIOError:
            pass
        child = subprocess.Popen([sys.executable, "-m", "autograder", "--version"], stdout=write_end,
                                 stderr=subprocess.PIPE, cwd=ROOT)
        os.close(write_end)
        write_end = -1
        time.sleep(2.0)      # long enough for the version line to have been tried against the full pipe
        data = b""
        while True:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
        _, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        # the caller's end is as it set it: the command changed only a description of its own
        assert len(data) > filled and data[:filled] == b"x" * filled
        said = data[filled:].decode()
        from autograder import __version__
        assert __version__ in said, (said, err)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
