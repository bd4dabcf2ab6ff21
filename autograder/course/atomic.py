"""Writing the instructor's outputs: whole or not at all, and a fault of the disk said in one line.

Every file a batch or a merge writes (gradebook.csv, canvas.csv, results/*.json, feedback/*.html,
report.html, roster.json) goes through `write_atomic`: the bytes go to a fresh temporary file in the
same folder, are fsynced, and `os.replace` puts them in place. A full disk, a read-only remount or a
kill leaves the old file or the new one, never half of one, and no temporary file behind.

An OSError on the way becomes `DiskFault`, a GraderError (the CLI's exit 2 with one line) that names
the path and the cause in words ("the disk is full"), never a traceback."""
from __future__ import annotations

import errno
import fcntl
import os
import secrets
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Optional, Union

from autograder.errors import GraderError

# errno -> the cause in words. Anything else is said with the system's own text (os.strerror).
CAUSES = {
    errno.ENOSPC: "no space left on the disk (it is full)",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file is larger than the file system allows",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.ENOENT: "a folder on the way does not exist",
    errno.EEXIST: "it already exists and is not a folder",
    errno.ELOOP: "it is a symbolic link",
    errno.EIO: "an input/output error (the disk may be failing or gone)",
    errno.ENAMETOOLONG: "the name is too long for the file system",
}

# The probe a batch writes before anything is graded: room for the journal's first pages and a few
# results. A disk with less than this is full for our purposes; one with more can still fill later,
# and then the journal keeps what was graded (autograder.course.journal) and a rerun finishes the rest.
PROBE_BYTES = 64 * 1024


class DiskFault(GraderError, OSError):
    """The instructor's disk cannot take an output (read-only, full, not a folder): one line naming
    the path and the cause. What was graded before it stays in the journal. A GraderError (the CLI
    says it in one line, exit 2) and still an OSError, so code that already catches a failed write
    as OSError keeps catching it."""

    def __init__(self, path: Union[Path, str], cause: str, doing: str = "write",
                 code: Optional[int] = None) -> None:
        super().__init__(f"cannot {doing} {path}: {cause}")
        self.path = str(path)
        self.cause = cause
        self.errno = code


def file_size_limit() -> Optional[int]:
    """This process's RLIMIT_FSIZE in bytes (`ulimit -f`; SLURM carries the submitting shell's into a job), or None."""
    import resource
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def size_limit_cause(limit: int) -> str:
    return (f"the file size limit of this process is reached (ulimit -f: {limit} bytes): raise it, or run where it is "
            "unlimited")


def cause_of(error: OSError) -> str:
    """An OSError's cause in words, without its file name (the message names the path once)."""
    limit = file_size_limit() if error.errno == errno.EFBIG else None
    if limit is not None:   # EFBIG is then the process's limit, not the file system's: the instructor can raise it
        return size_limit_cause(limit)
    if error.errno in CAUSES:
        return CAUSES[error.errno]
    return os.strerror(error.errno) if error.errno else (str(error) or type(error).__name__)


def fault(path: Union[Path, str], error: OSError, doing: str = "write") -> DiskFault:
    if isinstance(error, DiskFault):  # said already
        return error
    return DiskFault(path, cause_of(error), doing, error.errno)


def ensure_folder(path: Path, *, ours: bool = True) -> Path:
    """`path` as a real folder, created with its parents. A folder the grader owns inside OUT
    (`ours`: results/, feedback/) must not be a symbolic link: its files would land wherever the link
    points. OUT itself may be one (an instructor's link to another disk): pass ours=False."""
    if ours and path.is_symlink():
        raise DiskFault(path, "it is a symbolic link, not a folder (the grader writes only inside OUT): "
                              "remove the link and run the same command again", "write into")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file (or a link to one) where the folder should be
        raise DiskFault(path, "it is a file, not a folder", "write into") from None
    except OSError as e:
        raise fault(path, e, "create the folder") from None
    if not path.is_dir():
        raise DiskFault(path, "it is not a folder", "write into")
    return path


def _temporary(path: Path) -> tuple[Path, int]:
    """A new file beside `path` (same folder, so the rename cannot cross a disk), opened for
    writing. O_EXCL: never an existing file or a planted link; a random name: writers side by side
    never share one. Mode 0666 less the umask, as an ordinary open would give."""
    for _ in range(8):
        tmp = path.with_name(f".{path.name[:200]}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        return tmp, fd
    raise FileExistsError(errno.EEXIST, "could not create a temporary file", str(path))


def write_atomic(path: Path, data: Union[bytes, str], *, skip_same: bool = False) -> bool:
    """Put `data` (text is written as UTF-8) at `path` whole: temporary file, fsync, os.replace.
    On any OSError the temporary file is removed, the old `path` is untouched, and DiskFault names
    `path` and the cause. `skip_same`: leave a file that already holds exactly these bytes alone (a
    resumed batch rewriting what it wrote before costs no fsync). Returns whether it wrote."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if skip_same and _holds(path, raw):
        return False
    tmp: Optional[Path] = None
    try:
        tmp, fd = _temporary(path)
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise fault(path, e) from None
    finally:
        if tmp is not None:
            try:
                tmp.unlink()
            except OSError:
                pass
    return True


def _holds(path: Path, raw: bytes) -> bool:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size != len(raw):
            return False
        return path.read_bytes() == raw
    except OSError:
        return False


def check_writable(folder: Path) -> None:
    """Before anything is graded: a file of PROBE_BYTES can be written and synced in `folder`, so a
    read-only or full disk stops the command at once, in one line, instead of after the grading."""
    probe = folder / f".autograder-probe-{secrets.token_hex(6)}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise fault(folder, e, "write into") from None
    try:
        try:
            view = memoryview(bytes(PROBE_BYTES))
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise fault(folder, e, "write into") from None
    finally:
        try:
            probe.unlink()
        except OSError:
            pass


@contextmanager
def disk_faults(root: Path) -> Iterator[None]:
    """The safety net around writing outputs under `root`: an OSError about a path inside it that no
    writer above turned into a DiskFault becomes one here (an OSError about anything else, such as a
    student's file, is not the disk's fault and passes unchanged)."""
    try:
        yield
    except DiskFault:
        raise
    except OSError as e:
        name = e.filename if isinstance(e.filename, str) else None
        if name is not None and _inside(Path(name), root):
            raise fault(name, e) from None
        raise


def _inside(path: Path, root: Path) -> bool:
    try:
        path.absolute().relative_to(root.absolute())
        return True
    except ValueError:
        return False


# The file in OUT whose flock says a batch or a merge is writing there now (red-team round 112).
WRITER_LOCK = ".autograder-writing"


class OutputBusy(GraderError):
    """Another batch or merge is writing into this OUT now: refused before anything is graded or written."""


@contextmanager
def sole_writer(outdir: Path) -> Iterator[None]:
    """This process, while the block runs, is the one batch or merge writing into `outdir` (which exists): an exclusive
    flock on OUT/WRITER_LOCK, taken without waiting; held by another run, OutputBusy. Two runs into one OUT (a rerun
    started before the first finished, SLURM shards given one -o, two instructors) each wrote the outputs of its own
    class over the other's and set the other's results aside: both said they succeeded, and OUT's gradebook named a
    student whose results file was in superseded/ (red-team round 112). The kernel lets go when the holder dies,
    however it dies. The file is removed, still held, at the end; a run that locked a file removed so tries again.
    Where the folder takes no lock (a file system without locks, a read-only disk: check_writable says why next),
    the run goes on as before."""
    path = outdir / WRITER_LOCK
    fd: Optional[int] = None
    for tries_left in reversed(range(100)):
        try:
            fd = _open_lock(path)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                raise _not_our_lock(path) from None
            if e.errno == errno.EACCES:
                # another user's lock file, not (yet: its maker sets the mode just after) readable by this one: running
                # unguarded beside that user's run is what the lock is for (red-team round 119)
                if tries_left:
                    time.sleep(0.01)
                    continue
                raise GraderError(f"{path} belongs to another user and cannot be opened by this one: if no batch or "
                                  "merge of theirs is writing here, remove it; or use another -o") from None
            break
        try:
            st = os.fstat(fd)
            regular = stat.S_ISREG(st.st_mode)
            if regular and st.st_uid == os.geteuid():
                # readable by all (it is empty), whatever the umask: another user of a shared OUT (TAs of one group)
                # must be able to take it, and merge's probe (being_written) to ask it (red-team round 119)
                os.fchmod(fd, 0o644)
        except OSError:
            regular = False
        if not regular:
            os.close(fd)
            raise _not_our_lock(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputBusy(f"{outdir} is being written by another `autograder batch` or `merge` now: wait for it "
                             "to finish (the same command then grades only what it has not), or use another -o") from None
        except OSError:   # no locks here (ENOLCK): unguarded, as before
            os.close(fd)
            fd = None
            break
        try:   # the run before us may have removed the file between our open and our lock: lock the one in place
            if os.path.samestat(os.fstat(fd), os.lstat(path)):
                break
        except OSError:
            pass
        os.close(fd)
        fd = None
    try:
        yield
    finally:
        if fd is not None:
            try:
                os.unlink(path)   # while held: a run that opened it meanwhile sees it gone and makes its own
            except OSError:
                pass
            os.close(fd)


def _open_lock(path: Path) -> int:
    """The writer lock file, made if missing; opened for writing where this user may (an exclusive flock over NFS needs
    it), else read-only: flock itself needs no write access, and another user's lock file in a shared OUT is 0644."""
    flags = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644)
    except PermissionError:
        return os.open(path, os.O_RDONLY | flags)


def _not_our_lock(path: Path) -> GraderError:
    """A link, folder or FIFO where sole_writer keeps its lock file: opened as it was, no run took a lock (a symlink's
    ELOOP, a folder's EISDIR were taken for a disk without locks), so two batches into that OUT both ran unguarded
    again, without a word (red-team round 114). Nothing of this grader makes one there: said, not followed or removed."""
    return GraderError(f"{path} is not a file (a link, a folder or a pipe): it is not the lock this grader keeps there; "
                       "remove it, or use another -o")


def _hold_shared(folder: Path) -> Optional[int]:
    """A shared flock on `folder`'s sole_writer lock file, held on the descriptor returned; None where there is no lock
    file of ours or the disk takes no locks (unguarded, as sole_writer); OutputBusy where a batch or a merge holds it
    now. Nothing is created in `folder` (a shard may be on a read-only disk)."""
    try:
        fd = os.open(folder / WRITER_LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as e:
        _out_of_descriptors(e, folder)
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return fd
    except BlockingIOError:
        os.close(fd)
        raise OutputBusy(f"{folder} is being written by an `autograder batch` or `merge` now: wait for it to finish, "
                         "then merge (nothing merged while it writes is to be used)") from None
    except OSError:   # no locks on this file system
        pass
    os.close(fd)
    return None


def being_written(folder: Path) -> bool:
    """Whether a batch or a merge holds `folder`'s sole_writer lock now: a folder still being written, which `merge`
    must not read as a shard (red-team round 114). Asked with a shared flock, let go at once."""
    try:
        fd = _hold_shared(folder)
    except OutputBusy:
        return True
    if fd is not None:
        os.close(fd)   # closing the descriptor lets the shared lock go
    return False


def _out_of_descriptors(e: OSError, folder: Path) -> None:
    """A lock file this process could not open for want of descriptors is no absent lock: read as one, a merge of more
    shards than `ulimit -n` held none past the limit and merged a shard a batch was writing (red-team round 123)."""
    if e.errno in (errno.EMFILE, errno.ENFILE):
        raise GraderError(f"cannot open {folder / WRITER_LOCK} to see whether a batch writes there ({e.strerror}): "
                          "more shards than this process's open-file limit allows; raise it (ulimit -n) and merge "
                          "again") from None


@contextmanager
def shards_held(folders: list[Path]) -> Iterator[Callable[[], None]]:
    """While the block runs, no batch or merge starts writing into `folders` (the shards a merge reads) unseen: a shared
    flock held on each lock file there (a batch that starts meanwhile is refused, as beside another batch), and the
    check it yields, which raises OutputBusy for a shard being written now (one whose lock file a batch made after this
    began, none being there to hold). merge's probe had been asked once, before the shards were read: a batch started
    on a shard just after it was merged, read half before it and half after, exit 0 (red-team round 119). Nothing is
    created in a shard (it may be on a read-only disk)."""
    held: list[int] = []

    def check() -> None:
        for folder in folders:
            fd = _hold_shared(folder)
            if fd is not None:
                os.close(fd)
    try:
        for folder in folders:
            fd = _hold_shared(folder)
            if fd is not None:
                held.append(fd)
        check()
        yield check
    finally:
        for fd in held:
            os.close(fd)


@contextmanager
def replaced_whole(path: Path) -> Iterator[BinaryIO]:
    """A binary file whose bytes replace `path` whole when the block ends (fsync, os.replace), or never: an exception,
    or a kill, leaves the old file as it was. For a file written as a stream (the Gradescope zip): written in place, two
    builds into one -o at once (two CI jobs) left a zip neither wrote, unreadable 5 times in 6, and a build killed
    midway replaced the last good zip with an empty file (red-team round 112). An OSError passes as it is."""
    tmp, fd = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
