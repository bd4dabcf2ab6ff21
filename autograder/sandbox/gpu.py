"""What the grader knows about GPUs on this machine: whether there is one (asked in the trusted
process; CUDA is initialised only in workers), and how many CUDA workers may be alive at once."""
from __future__ import annotations

import fcntl
import os
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

from autograder.errors import GraderError


class CudaSlots:
    """At most `limit` CUDA workers alive at once on this machine, across every grader process of this
    user (`batch -j N` runs N of them) and across threads: slot k is an exclusive flock on file k of a
    private directory. The kernel drops a lock when its holder exits, so a killed grader frees its
    slot. Workers never see the directory (their /tmp is their own; the fallback level gives them
    another uid); at the rlimits level, which runs only trusted code, one could hold a slot until it
    is killed."""

    def __init__(self, limit: int, directory: Optional[Path] = None) -> None:
        self.limit = max(1, int(limit))
        self.dir = Path(directory or Path(tempfile.gettempdir()) / f"autograder-cuda-slots-{os.getuid()}")
        self._held = threading.local()

    def _directory(self) -> Path:
        self.dir.mkdir(mode=0o700, exist_ok=True)
        st = self.dir.lstat()
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise GraderError(f"{self.dir} is not a private directory of this user: cannot hold CUDA slots")
        return self.dir

    def acquire(self, timeout: Optional[float] = None) -> bool:
        """Wait for a free slot (polling every 20 ms) and hold it for this thread; False if `timeout`
        passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            fd = self.take()
            if fd is not None:
                self._held.fd = fd
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def take(self) -> Optional[int]:
        """A free slot now, or None: not tied to a thread (a spare worker's); `hold` gives it to one,
        `give_back` frees it."""
        directory = self._directory()
        for k in range(self.limit):
            fd = os.open(directory / f"slot-{k}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            return fd
        return None

    def hold(self, fd: int) -> None:
        """Make a slot from `take` this thread's, as `acquire` would (`release` then frees it)."""
        self._held.fd = fd

    @staticmethod
    def give_back(fd: int) -> None:
        os.close(fd)  # drops the lock

    def release(self) -> None:
        fd = getattr(self._held, "fd", None)
        if fd is not None:
            self._held.fd = None
            os.close(fd)  # drops the lock


def cuda_available() -> bool:
    # Asked in the trusted process only; CUDA is initialised in workers, never here.
    import torch
    return torch.cuda.is_available()
