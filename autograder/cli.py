"""Command line: grade, batch, merge, assign, check, gradescope. Exit 0 whenever grading finished, whatever the
score; non-zero with a one-line reason only when the grader itself cannot do its job."""
from __future__ import annotations

import io
import os
import signal
import sys
from pathlib import Path
from typing import IO, Optional, cast

import typer

from autograder.errors import GraderError


def _course_slugs() -> list[str]:
    """The assignments grading.yml lists, in its order, for the help of -a: found as find_course finds the
    course, but read without validating it (no pydantic, no torch, no grading stack: building the help
    stays cheap). Empty when there is no grading.yml or it cannot be read; the command then says why."""
    try:
        env = os.environ.get("AUTOGRADER_COURSE")
        here = Path.cwd().resolve()  # raises in a deleted directory
        for root in [Path(env)] if env else [here, *here.parents]:
            path = root / "grading.yml"
            if path.is_file():
                import yaml
                listed = (yaml.safe_load(path.read_text()) or {}).get("assignments") or {}
                return [str(slug) for slug in listed]
    except Exception:  # noqa: BLE001 - a broken grading.yml is reported by the command, not by --help
        pass
    return []


_SLUGS = ", ".join(_course_slugs())
SLUG_HELP = f"assignment slug: {_SLUGS}" if _SLUGS else "assignment slug (grading.yml lists them; none found from here)"

class _App(typer.Typer):
    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        """Called bare, it is the console script (`sys.exit(app())`): its exit skips the interpreter's
        teardown, a third of an `import torch` (autograder.exit_without_teardown). Called with
        arguments (a test, a caller of its own), it exits as any command does."""
        if args or kwargs:
            return super().__call__(*args, **kwargs)
        _utf8_locale()
        _blocking_standard_streams()
        try:
            return super().__call__()
        except SystemExit as e:
            _say_stdout_lost()
            from autograder import exit_without_teardown
            exit_without_teardown(e.code)


_UTF8_RESTART = "AUTOGRADER_UTF8_RESTART"


def _utf8_locale() -> None:
    """The command run again under a UTF-8 locale where the host's is not one (a cluster's `LANG=en_US`, which is
    ISO-8859-1; `LC_ALL=C` with `PYTHONUTF8=0`, ASCII). File names from Gradescope and LMS exports, notebooks and
    grading.yml are UTF-8: under latin-1 `José.ipynb` was keyed and named `JosÃ©` in gradebook.csv and canvas.csv
    (Canvas matches no such student, and the key differed from a UTF-8 host's run of the same class), and `grade`
    printed no table at all (UnicodeEncodeError; red-team round 110). The locale is set in the environment, not by
    `-X utf8`, so the grader processes and probes this one starts (`python -I`, which ignores PYTHONUTF8) decode
    paths alike. The arguments go back as the bytes they came as; a second start never restarts."""
    import locale
    if sys.flags.utf8_mode or os.environ.get(_UTF8_RESTART):
        return
    if (sys.getfilesystemencoding().lower().replace("-", "") == "utf8"
            and locale.getpreferredencoding(False).lower().replace("-", "") == "utf8"):
        return
    env = {**os.environ, "LC_ALL": "C.UTF-8", _UTF8_RESTART: "1"}
    env.pop("PYTHONUTF8", None)  # its 0 would keep the locale's encoding for this process's own open()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv, env)
    except OSError:  # the interpreter cannot be started again: run on as the host's locale reads
        pass


def _blocking_standard_streams() -> None:
    """Standard output and error, where a pipe or a terminal the caller made non-blocking (a CI log collector, a
    terminal a previous program left in O_NONBLOCK), replaced by a blocking open file description of the same pipe
    or terminal. CPython's stdout drops a write that fails with EAGAIN without raising, so `_lose_stdout` never
    heard of it: a batch whose notes filled the pipe before its reader woke ended exit 0 without its summary and
    without a word (red-team round 108). A line now waits for the reader, as on any ordinary pipe. The caller's own
    description keeps its mode (O_NONBLOCK is a property of the description, shared with the caller: it is not
    changed); a regular file is left alone (reopened, it would lose its offset and O_APPEND)."""
    import stat
    for fd in (1, 2):
        try:
            mode = os.fstat(fd).st_mode
            if os.get_blocking(fd) or not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
                continue
            own = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:  # no such fd, no /proc, a socket: left as it is
            continue
        try:
            os.set_blocking(own, True)
            os.dup2(own, fd)
        except OSError:
            pass
        finally:
            os.close(own)


app = _App(add_completion=False, no_args_is_help=True, help="Sandboxed autograder for attention homework.")


def _version(value: bool) -> None:
    if value:
        from autograder import __version__
        typer.echo(f"autograder {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="print the version and exit")) -> None:
    """Sandboxed autograder for attention homework."""


def _fail(e: Exception) -> None:
    from autograder.text import terminal_text
    typer.echo(f"error: {terminal_text(str(e), limit=500)}", err=True)  # one inert line: may name a student's file
    raise typer.Exit(2)


def _need_temp_folder() -> None:
    """One line, before anything starts, where no folder takes temporary files (a Kubernetes pod whose root
    filesystem is read-only and has no emptyDir at /tmp): `grade` and `batch` ended in a 40-line traceback of
    tempfile's (red-team round 110). The sandbox's scratch folders, a zip's class and the CUDA slots live there."""
    import tempfile
    try:
        tempfile.gettempdir()
    except FileNotFoundError as e:
        _fail(GraderError(f"no folder here takes temporary files ({e.strerror}): set TMPDIR to a writable folder "
                          f"(a container with a read-only root filesystem: mount a writable volume at /tmp)"))


_stdout_lost: list[str] = []   # why standard output took no more lines (one entry at most), said once on stderr at exit


def _lose_stdout(e: OSError) -> None:
    """Standard output is only the narrative of a command; its work is files and its exit status. A closed or full
    stdout (`| head -1`, a dead `tee`, /dev/full) raised at the next line: click turned a broken pipe into a silent
    exit 1 (a batch stopped before grading or after it had finished, by the pipe's timing) and a full disk into a
    traceback (red-team round 106). Later lines go to /dev/null instead (fd 1 itself, so rich's and Python's own
    buffered writes drain there too) and the command runs to its end."""
    if not _stdout_lost:
        _stdout_lost.append(e.strerror or type(e).__name__)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, io.UnsupportedOperation):  # no fd 1 to replace (a caller's stream): lines are dropped
        pass


def _say(message: str) -> None:
    """One line on standard output, dropped if stdout is gone (`_lose_stdout`)."""
    try:
        typer.echo(message)
    except OSError as e:
        _lose_stdout(e)


class _GuardedStdout(io.TextIOBase):
    """Standard output for a rich console (the batch's progress bar, grade's table), whose write or flush to a closed
    stdout is `_lose_stdout`. The stream is the one of its creation: rich's live display swaps sys.stdout for a proxy
    that writes through this very console, and reading sys.stdout at each write looped for ever."""

    def __init__(self) -> None:
        super().__init__()
        self._stream = sys.stdout

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as e:
            _lose_stdout(e)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            _lose_stdout(e)

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"


def _guarded_stdout() -> IO[str]:
    return cast(IO[str], _GuardedStdout())  # a text stream in all rich reads of it (write, flush, isatty, encoding)


def _say_stdout_lost() -> None:
    if _stdout_lost:
        try:
            typer.echo(f"note: standard output was closed ({_stdout_lost[0]}): the rest of its lines were dropped; "
                       "the command ran to its end and its exit status says how", err=True)
        except OSError:
            pass


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


@app.command()
def grade(submission: Path = typer.Argument(..., help="the student's .ipynb (or .py)"),
          assignment: str = typer.Option(..., "-a", "--assignment", help=SLUG_HELP),
          results: Optional[Path] = typer.Option(None, "--results", help="write Gradescope results.json here"),
          seed: Optional[int] = typer.Option(None, "--seed", "--replay",
                                             help="hidden-input seed (replay a recorded grade)"),
          isolation: Optional[str] = typer.Option(None, "--isolation",
                                                  help="force bwrap|fallback|rlimits (default: strongest available)"),
          all_tests: bool = typer.Option(False, "--all", help="after the diagnosis, the full per-test table"),
          ) -> None:
    """Grade one submission: what went wrong, grouped by mistake (every test with --all), and
    results.json if asked."""
    if not submission.exists():
        _fail(GraderError(f"{submission}: no such file"))
    if submission.is_dir():
        _fail(GraderError(f"{submission} is a folder: grade one notebook, or use "
                          f"`autograder batch {submission} -a {assignment} -o OUT` for a class"))
    if results is not None and _same_file(results, submission):
        # the TA's slip (tab completion) wrote results.json over the student's notebook (red-team round 106)
        _fail(GraderError(f"--results {results} is the submission itself: name another file for results.json"))
    from autograder.sandbox import timers
    timers.role("grade")
    timers.mark("cli command start")
    levels = ("bwrap", "fallback", "rlimits")
    if isolation is not None and isolation not in levels:
        _fail(GraderError(f"--isolation must be one of {', '.join(levels)}, not {isolation!r}"))
    _need_temp_folder()
    from autograder.config import find_course
    try:
        course = find_course(students=[submission.resolve().parent])
        course.assignment_dir(assignment)  # an unknown assignment is said before anything starts
        from autograder.results import Isolation
        from autograder.sandbox.zygote import launch
        # The class is the notebook's folder (a flat class) or the one above it (a folder per student, a Gradescope
        # export with its submission_metadata.yml): both hidden from the worker as a batch hides its class folder.
        # Without them, at the container level without Landlock, the notebook read a classmate's notebook beside it
        # into its own test messages, the TA's terminal and results.json (red-team round 122). A folder that holds the
        # runtime (`/`, a home with the venv) is left out by launch_plan.
        folder = submission.resolve().parent
        zygote = launch(course, Isolation(isolation) if isolation else None,  # starts importing torch now
                        hide=[str(folder), str(folder.parent)], slugs=[assignment])
        with timers.span("import the grader"):
            from autograder.grading.grader import Grader
            from autograder.course.outputs import print_table, write_results
        with Grader(course, zygote=zygote) as grader:
            with timers.span("grade"):
                result = grader.grade(submission, assignment, seed=seed)
            vis = grader.course.config.visibility
    except (GraderError, ValueError) as e:
        _fail(e)
        return
    if results:  # first: nothing printed afterwards can lose it
        try:
            write_results(result, vis, results)
        except GraderError as e:  # a DiskFault already names the path and the cause
            _fail(e)
        except OSError as e:
            _fail(GraderError(f"could not write {results}: {e}"))
    timers.mark("result written")
    try:
        from rich.console import Console

        from autograder.course.outputs import PIPED_WIDTH
        # rich's own answer to a broken pipe is SystemExit(1), after the grade was written: the guard drops the lines
        print_table(result, Console(file=_guarded_stdout(), highlight=False, emoji=False,
                                    width=None if sys.stdout.isatty() else PIPED_WIDTH), all_tests=all_tests)
    except Exception as e:  # noqa: BLE001 - grading finished; a display problem must not change the exit status
        typer.echo(f"note: could not print the table ({type(e).__name__})", err=True)
    if results:
        _say(f"results written to {results}")


@app.command()
def batch(directory: Path = typer.Argument(..., help="the class: a folder of submissions (.ipynb, .py), of "
                                                   "per-student folders or zips, a Gradescope export, an "
                                                   "LMS download, or a zip of one"),
          assignment: str = typer.Option(..., "-a", "--assignment", help=SLUG_HELP),
          outdir: Path = typer.Option(..., "-o", "--outdir", help="where gradebook, results and report go"),
          # min=1 as check's -j: `-j 0` ran one grader where the README says -j N runs N (red-team round 120)
          jobs: int = typer.Option(2, "-j", "--jobs", min=1, help="grader processes side by side (one per core)"),
          seed: Optional[int] = typer.Option(None, "--seed", help="batch seed (default: random, kept in the journal)"),
          shard: Optional[str] = typer.Option(None, "--shard", metavar="K/N",
                                              help="grade only shard K of N (K from 1); join them with `merge`"),
          isolation: Optional[str] = typer.Option(None, "--isolation",
                                                  help="force bwrap|fallback|rlimits (default: strongest available)"),
          regrade: bool = typer.Option(False, "--regrade", help="grade every submission again, journaled or not"),
          hand_scores: Optional[Path] = typer.Option(None, "--hand-scores", metavar="FILE.csv",
                                                     help="hand scores of written answers (sid or submission, "
                                                          "question, score, comment), merged into the totals"),
          ) -> None:
    """Grade a class: gradebook.csv, canvas.csv, results/, feedback/, report.html. Resumable; a rerun
    regrades exactly what the hidden tests, reference, settings or version changed."""
    counts = {"cached": 0, "graded": 0, "total": 0}
    with _StopSignals() as stop:
        try:
            _batch(directory, assignment, outdir, jobs, seed, shard, isolation, regrade, hand_scores, counts)
        except KeyboardInterrupt:
            left = counts["total"] - counts["graded"] - counts["cached"]
            try:
                typer.echo(f"stopped by {stop.name}: {counts['graded']} graded now, {counts['cached']} from the "
                           f"journal, {left} left; each grade is kept in {outdir / 'journal.sqlite'}: the same command "
                           "grades the rest", err=True)
            except OSError:  # a hung-up terminal takes no more lines: the exit status still says why
                pass
            raise typer.Exit(128 + stop.signum) from None


class _StopSignals:
    """SLURM (its time limit, scancel), `docker stop`, Kubernetes and `timeout` end a process with SIGTERM. A batch
    stops on it as on Ctrl-C: its graders killed, the unpacked class removed, every grade journaled kept for the
    same command to resume (the default action would leave the class unpacked in /tmp and no word said)."""

    def __init__(self) -> None:
        self.signum = int(signal.SIGINT)
        self._before: object = None
        self._hangup: object = None

    @property
    def name(self) -> str:
        return "Ctrl-C" if self.signum == signal.SIGINT else signal.Signals(self.signum).name

    def __enter__(self) -> "_StopSignals":
        def stop(signum: int, frame: object) -> None:
            self.signum = signum
            raise KeyboardInterrupt
        self._before = signal.signal(signal.SIGTERM, stop)
        # A closed terminal (an ssh session dropped, the window closed) sends SIGHUP, whose default
        # ended the batch with no cleanup: the class unpacked in TMPDIR left for good (red-team round 85). Stopped as
        # on SIGTERM, unless the instructor asked to ignore it (nohup): then the batch goes on, as asked.
        self._hangup = signal.getsignal(signal.SIGHUP)
        if self._hangup is not signal.SIG_IGN:
            signal.signal(signal.SIGHUP, stop)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGTERM, self._before)  # type: ignore[arg-type]
        if self._hangup is not signal.SIG_IGN:
            signal.signal(signal.SIGHUP, self._hangup)  # type: ignore[arg-type]


def _batch(directory: Path, assignment: str, outdir: Path, jobs: int, seed: Optional[int], shard: Optional[str],
           isolation: Optional[str], regrade: bool, hand_scores: Optional[Path], counts: dict[str, int]) -> None:
    import tempfile

    from autograder.sandbox import timers
    timers.role("batch")
    timers.mark("cli command start")

    from autograder.course.batch import BatchInfo, discover_class, parse_shard, shard_part
    from autograder.config import find_course
    from autograder.results import Isolation
    if not (directory.is_dir() or (directory.is_file() and directory.suffix.lower() == ".zip")):
        _fail(GraderError(f"{directory} is not a directory"))
    _need_temp_folder()
    scratch = tempfile.TemporaryDirectory(prefix="autograder-class-")
    try:
        course = find_course(students=[directory.resolve()] if directory.is_dir() else [])  # a zip holds its own
        course.assignment_dir(assignment)
        part = parse_shard(shard) if shard else None
        level = Isolation(isolation) if isolation else None
        found = discover_class(directory, assignment, Path(scratch.name))
        hand = None
        if hand_scores is not None:  # before any grading: a bad file stops the batch at once, rows named
            from autograder.course.handscores import hand_points, read_hand_scores
            hand = read_hand_scores(hand_scores, hand_points(course.settings(assignment), assignment),
                                    entries=found.entries, submitters=found.submitters())
    except (GraderError, ValueError) as e:
        scratch.cleanup()
        _fail(e)
        return
    from rich.progress import Progress

    from autograder.course.batch import run_batch
    from autograder.course.exports import skipped_note, summary
    from autograder.text import terminal_text
    mine = shard_part(found, part)
    _say(terminal_text(summary(mine), limit=300))
    for problem in mine.problems:
        _say(terminal_text(f"not gradable: {problem.key or problem.source}: {problem.message}", limit=400))
    for warning in found.warnings[:20]:
        _say(terminal_text(f"note: {warning}", limit=400))
    skipped = skipped_note(mine)
    if skipped:
        _say(terminal_text(f"note: {skipped}", limit=600))
    total = counts["total"] = len(mine.entries)
    info = BatchInfo()

    def done(result, cached: bool) -> None:
        counts["cached" if cached else "graded"] += 1
        progress.advance(task)

    try:
        from rich.console import Console
        with Progress(transient=False, console=Console(file=_guarded_stdout())) as progress:
            label = f"grading {assignment}" + (f" (shard {part[0]}/{part[1]})" if part else "")
            task = progress.add_task(label, total=total)
            results = run_batch(directory, assignment, outdir, jobs=jobs, on_done=done, seed=seed,
                                shard=part, course=course, isolation=level, found=found, regrade=regrade,
                                hand=hand, info=info)
    except GraderError as e:
        _fail(e)
        return
    finally:
        scratch.cleanup()
    if info.regraded:
        reasons: dict[str, int] = {}
        for why in info.regraded.values():
            reasons[why] = reasons.get(why, 0) + 1
        _say("; ".join(f"{n} regraded: {why}" for why, n in reasons.items()))
    for key, (old, old_max, new, new_max, why) in sorted(info.changes.items()):
        _say(terminal_text(f"score changed: {key}: {old:g}/{old_max:g} -> {new:g}/{new_max:g} ({why})",
                           limit=400))
    for warning in info.warnings[:20]:
        _say(terminal_text(f"note: {warning}", limit=400))
    _summary(results, outdir, f"{counts['graded']} graded now, {counts['cached']} already in the journal")


def _summary(results, outdir: Path, extra: str) -> None:
    from autograder.course.outputs import infra_summary
    line = infra_summary(results)
    if line:
        typer.echo(line, err=True)
    graded = [r for r in results if r.status == "graded"]
    scored = [r for r in results if r.status != "worker_failed"]   # the grader's failure has no score yet, not 0
    mean = sum(r.score for r in scored) / len(scored) if scored else 0.0
    unscored = f", {len(results) - len(scored)} without a score left out" if len(scored) < len(results) else ""
    _say(f"{len(results)} submissions ({len(graded)} graded), mean score {mean:.2f}{unscored} before any late "
         f"penalty (gradebook.csv has both); {extra}")
    _say(f"gradebook: {outdir / 'gradebook.csv'} (Canvas import: {outdir / 'canvas.csv'})")
    _say(f"feedback:  {outdir / 'feedback'}/")
    _say(f"report:    {outdir / 'report.html'}")
    if (outdir / "similarity.html").is_file():
        _say(f"similar:   {outdir / 'similarity.html'} (pairs to read side by side; it changes no score)")


@app.command()
def merge(outputs: list[Path] = typer.Argument(..., help="the shards' output folders (batch -o of each)"),
          outdir: Path = typer.Option(..., "-o", "--outdir", help="where the merged gradebook, results and report go"),
          ) -> None:
    """Join shards (batch --shard K/N) into the gradebook, results and report one batch would write."""
    from autograder.config import find_course
    from autograder.course.merge import merge as merge_outputs
    try:
        results = merge_outputs(list(outputs), outdir, find_course())
    except GraderError as e:
        _fail(e)
        return
    _summary(results, outdir, f"merged from {len(outputs)} folder{'s' if len(outputs) != 1 else ''}")


@app.command()
def assign(slug: Optional[str] = typer.Argument(None, help="one assignment (default: all)" + (f": {_SLUGS}" if _SLUGS else ""))) -> None:
    """Regenerate student_template/<slug>.ipynb from the master notebook(s) with otter assign."""
    from autograder.course.assign import write_template
    from autograder.config import find_course
    try:
        course = find_course()
        for s in [slug] if slug else list(course.config.assignments):
            _say(f"wrote {write_template(course, s)}")
    except GraderError as e:
        _fail(e)


@app.command()
def check(slug: Optional[str] = typer.Argument(None, help="one assignment (default: all)" + (f": {_SLUGS}" if _SLUGS else "")),
          seeds: int = typer.Option(3, "--seeds", min=1, help="grade the reference, the template and every example "
                                                              "at this many seeds (a score that moves is an error)"),
          jobs: int = typer.Option(2, "-j", "--jobs", min=1, help="examples graded side by side")) -> None:
    """The author's check of an assignment (docs/authoring.md): public checks on full_marks.ipynb, the
    reference, the template, the examples against expected.yml at several seeds, points, misconceptions.
    Exit 1 when anything is wrong, each problem on a line."""
    from autograder.course.authoring import check_course
    from autograder.config import find_course
    from autograder.text import terminal_text
    try:
        reports = check_course(find_course(), [slug] if slug else None, seed_count=seeds, jobs=jobs,
                               say=lambda line: _say(terminal_text(line, limit=1000)))
    except GraderError as e:
        _fail(e)
        return
    problems = sum(len(r.problems) for r in reports)
    _say(f"{len(reports)} assignment(s) checked, {problems} problem(s)")
    if problems:
        raise typer.Exit(1)


@app.command()
def gradescope(slug: str = typer.Argument(..., help=SLUG_HELP),
               output: Path = typer.Option(Path("autograder.zip"), "-o", "--output", help="zip to write")) -> None:
    """Build the Gradescope autograder zip (setup.sh and run_autograder at its root)."""
    from autograder.config import find_course
    from autograder.course.gradescope import build_zip
    try:
        written = build_zip(find_course(), slug, output)
    except GraderError as e:
        _fail(e)
        return
    except OSError as e:  # -o a folder, or in a folder that is not there: a sentence, not a traceback (red-team round 106)
        _fail(GraderError(f"could not write {output}: {e.strerror or e}"))
        return
    _say(f"wrote {written}")


@app.command("gradescope-run", hidden=True)
def gradescope_run(root: Path = typer.Option(Path("/autograder"), "--root"),
                   slug: str = typer.Option(..., "--slug")) -> None:
    """Inside Gradescope: grade root/submission into root/results/results.json."""
    from autograder.course.gradescope import run_in_container
    try:
        typer.echo(f"wrote {run_in_container(root, slug)}")
    except GraderError as e:
        _fail(e)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
