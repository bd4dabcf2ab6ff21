"""Command line: grade, batch, assign, gradescope. Exit 0 whenever grading finished, whatever the
score; non-zero with a one-line reason only when the grader itself cannot do its job."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from autograder.errors import GraderError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Sandboxed autograder for attention homework.")


@app.callback()
def _root() -> None:
    """Sandboxed autograder for attention homework."""


def _fail(e: Exception) -> None:
    from autograder.outputs import terminal_text
    typer.echo(f"error: {terminal_text(str(e), limit=500)}", err=True)  # one inert line: may name a student's file
    raise typer.Exit(2)


@app.command()
def grade(submission: Path = typer.Argument(..., help="the student's .ipynb (or .py)"),
          assignment: str = typer.Option(..., "-a", "--assignment", help="assignment slug"),
          results: Optional[Path] = typer.Option(None, "--results", help="write Gradescope results.json here"),
          seed: Optional[int] = typer.Option(None, "--seed", "--replay",
                                             help="hidden-input seed (replay a recorded grade)"),
          isolation: Optional[str] = typer.Option(None, "--isolation",
                                                  help="force bwrap|fallback|rlimits (default: strongest available)"),
          ) -> None:
    """Grade one submission: a per-test table, and results.json if asked."""
    if not submission.exists():
        _fail(GraderError(f"{submission}: no such file"))
    from autograder.config import find_course
    from autograder.results import Isolation
    from autograder.sandbox import launch_zygote
    try:
        course = find_course()
        zygote = launch_zygote(course, Isolation(isolation) if isolation else None)
        from autograder.grading import Grader
        from autograder.outputs import print_table, write_results
        with Grader(course, zygote=zygote) as grader:
            result = grader.grade(submission, assignment, seed=seed)
            vis = grader.course.config.visibility
    except (GraderError, ValueError) as e:
        _fail(e)
        return
    if results:  # first: nothing printed afterwards can lose it
        try:
            write_results(result, vis, results)
        except OSError as e:
            _fail(GraderError(f"could not write {results}: {e}"))
    try:
        print_table(result)
    except Exception as e:  # noqa: BLE001 - grading finished; a display problem must not change the exit status
        typer.echo(f"note: could not print the table ({type(e).__name__})", err=True)
    if results:
        typer.echo(f"results written to {results}")


@app.command()
def batch(directory: Path = typer.Argument(..., help="folder of submissions (.ipynb, .py)"),
          assignment: str = typer.Option(..., "-a", "--assignment", help="assignment slug"),
          outdir: Path = typer.Option(..., "-o", "--outdir", help="where gradebook, results and report go"),
          jobs: int = typer.Option(2, "-j", "--jobs", help="submissions graded side by side"),
          seed: Optional[int] = typer.Option(None, "--seed", help="batch seed (default: random, kept in the journal)"),
          ) -> None:
    """Grade a class: gradebook.csv, results/<name>.json, report.html. Resumable."""
    from rich.progress import Progress

    from autograder.config import find_course
    from autograder.sandbox import launch_zygote
    if not directory.is_dir():
        _fail(GraderError(f"{directory} is not a directory"))
    try:
        course = find_course()
        zygote = launch_zygote(course)
    except GraderError as e:
        _fail(e)
        return
    from autograder.batch import find_submissions, run_batch
    from autograder.grading import Grader
    total = len(find_submissions(directory))
    counts = {"cached": 0, "graded": 0}

    def done(result, cached: bool) -> None:
        counts["cached" if cached else "graded"] += 1
        progress.advance(task)

    try:
        with Progress(transient=False) as progress:
            task = progress.add_task(f"grading {assignment}", total=total)
            with Grader(course, zygote=zygote) as grader:
                results = run_batch(directory, assignment, outdir, jobs=jobs, on_done=done, seed=seed,
                                    grader=grader)
    except GraderError as e:
        _fail(e)
        return
    graded = [r for r in results if r.status == "graded"]
    mean = sum(r.score for r in results) / len(results) if results else 0.0
    typer.echo(f"{len(results)} submissions ({len(graded)} graded), mean score {mean:.2f}; "
               f"{counts['graded']} graded now, {counts['cached']} already in the journal")
    typer.echo(f"gradebook: {outdir / 'gradebook.csv'}")
    typer.echo(f"report:    {outdir / 'report.html'}")


@app.command()
def assign(slug: Optional[str] = typer.Argument(None, help="one assignment (default: all)")) -> None:
    """Regenerate student_template/<slug>.ipynb from the master notebook(s) with otter assign."""
    from autograder.assign import write_template
    from autograder.config import find_course
    try:
        course = find_course()
        for s in [slug] if slug else list(course.config.assignments):
            typer.echo(f"wrote {write_template(course, s)}")
    except GraderError as e:
        _fail(e)


@app.command()
def gradescope(slug: str = typer.Argument(..., help="assignment slug"),
               output: Path = typer.Option(Path("autograder.zip"), "-o", "--output", help="zip to write")) -> None:
    """Build the Gradescope autograder zip (setup.sh and run_autograder at its root)."""
    from autograder.config import find_course
    from autograder.gradescope import build_zip
    try:
        typer.echo(f"wrote {build_zip(find_course(), slug, output)}")
    except GraderError as e:
        _fail(e)


@app.command("gradescope-run", hidden=True)
def gradescope_run(root: Path = typer.Option(Path("/autograder"), "--root"),
                   slug: str = typer.Option(..., "--slug")) -> None:
    """Inside Gradescope: grade root/submission into root/results/results.json."""
    from autograder.gradescope import run_in_container
    try:
        typer.echo(f"wrote {run_in_container(root, slug)}")
    except GraderError as e:
        _fail(e)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
