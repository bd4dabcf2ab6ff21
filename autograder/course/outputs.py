"""Outputs read reports only: Gradescope results.json and the terminal table.

Everything a student can influence (test messages, cell errors, file names, written answers) is
inert here: terminal text has control characters escaped and is never parsed as rich markup, and a
submission's results file name is derived by one injective function (`results_name`)."""
from __future__ import annotations

import hashlib
import json
import sys
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from autograder.grading.diagnosis import FailureGroup

from autograder.config import VisibilitySettings
from autograder.course.handscores import awaits_hand_grading
from autograder.results import SubmissionResult, TestReport
from autograder.text import terminal_text


def to_gradescope(result: SubmissionResult, vis: VisibilitySettings) -> dict[str, Any]:
    """Gradescope's results.json, exactly the documented keys (plus extra_data for instructors).

    Who sees a test before publication is the report's own `visible` (a test declared visible, or one
    grading.yml's `visible_tests` lists: it checks what a public check in the notebook checks); every
    other test gets `visibility.hidden_tests`. A misconception is said once per test: its text is added
    only when the message does not already say it."""
    tests: list[dict[str, Any]] = []
    shown = later = 0
    shown_score = shown_max = 0.0
    waiting: list[TestReport] = []
    # A shown test's number counts only the shown tests of its question before it, and the tests that wait come after
    # them: "5.12" had told a student that eleven tests of q5 were waiting for publication (red-team round 89).
    number_of = _numbers_shown_first(result.tests, vis)
    for k, t in enumerate(result.tests):
        output = t.message if t.status == "failed" else "passed"
        note = t.misconception_note if t.status == "failed" else ""
        if note:
            output += f"\n\nLikely misconception: {note.rstrip('.')}."
        tags = [t.question] + ([f"misconception:{t.misconception}"] if t.misconception else [])
        visibility = "visible" if t.visible else vis.hidden_tests
        if awaits_hand_grading(t):
            # A written answer no one has graded yet is no score: counted, it read "11 / 15" for a right notebook in
            # a batch and "11 / 11" for the same notebook from `grade` (red-team round 115). Its row says it waits.
            waiting.append(t)
        elif visibility == "visible":
            shown += 1
            shown_score += t.score
            shown_max += t.max_score
        else:
            later += 1
        entry: dict[str, Any] = {
            "name": t.display_name,
            "number": number_of[k],
            "score": t.score,
            "max_score": t.max_score,
            "status": t.status,
            "output": output,
            "visibility": visibility,
            "tags": tags,
        }
        if t.status == "not_run":
            # Gradescope knows only "passed" and "failed". A case the grader could not run is neither
            # the student's failure nor a pass: 0 of 0 points, a status that does not say "failed",
            # and words that say what happened. The reason itself is for instructors (extra_data).
            entry.update(status="passed", tags=tags + ["not_run"],
                         output="Not run: the grader could not run this test on its side (not a problem "
                                "with your code). It counts 0 of 0 points.",
                         extra_data={"status": "not_run", "infra_reason": t.infra_reason or ""})
        tests.append(entry)
    for m in result.manual:
        tests.append({"name": f"{m.question}: written answer (graded by hand)", "number": f"{m.question}.manual",
                      "score": 0.0, "max_score": 0.0, "status": "passed",
                      "output": m.text[:5000] or "(no answer written)", "visibility": "hidden",
                      "tags": [m.question, "manual"]})
    tests.append({"name": "Grader information (instructors only)", "number": "0.0", "score": 0.0,
                  "max_score": 0.0, "status": "passed",
                  "output": f"isolation: {result.isolation.value if result.isolation else 'unknown'}\n"
                            + (f"worker namespaces: {', '.join(result.sandbox.namespaces) or 'none'}; "
                               f"seccomp: {'on' if result.sandbox.seccomp else 'OFF'}; "
                               + ("landlock: on; " if result.sandbox.landlock else "")
                               + f"memory: {result.sandbox.memory}\n" if result.sandbox else "")
                            + (f"cuda in the worker: {result.sandbox.cuda}\n" if result.sandbox and result.sandbox.cuda else "")
                            + ("GRADER PROBLEM: the worker's uid cannot read this Python's standard library (installed "
                               "under a private directory such as /root): modules the sandbox did not import ahead "
                               "fail to import in student code; install Python where every user can read it (/usr, "
                               "/opt)\n" if result.sandbox and not result.sandbox.stdlib_readable else "")
                            + (f"GRADER PROBLEM: {result.infra}\n" if result.infra else "")
                            + f"seed: {result.seed} (replay with: autograder grade SUB -a {result.assignment} --seed {result.seed})",
                  "visibility": vis.isolation, "tags": ["grader"]})
    # Before the tests that wait are shown, the total says no more than they do: a total with their points in it told
    # which letter of a multiple-choice answer was right in at most three submissions (red-team round 89). Gradescope
    # itself keeps the total from students while a test is hidden; the summary is ours, shown at once. So it says the
    # score of the tests shown now, and nothing while none is.
    lines: list[str] = []
    if vis.show_total and not later:
        # with a written answer still to be graded by hand, the total says so (as the feedback page's does)
        pending = ""
        if waiting:
            hand_max = sum(t.max_score for t in waiting)
            pending = (f" ({', '.join(t.question for t in waiting)}: {hand_max:g} point{'s' if hand_max != 1 else ''} "
                       "still to be graded by hand)")
        lines = [f"Score {result.score:g} / {result.max_score:g}{pending}."]
    elif vis.show_total and shown:
        lines = [f"Score on the test{'s' if shown != 1 else ''} shown now: {shown_score:g} / {shown_max:g}."]
    # The summary's lines are the grader's own: a message quotes the notebook (intake quotes its `nbformat` value,
    # line breaks and all), and a second line of it read "Score 35 / 35." at the top of the page (red-team round 71)
    message = " ".join(result.message.split("\n"))
    if result.status == "rejected":
        lines = [f"Your submission could not be graded: {message}"]
    else:
        if later:
            # Before publication this may be all a student sees: say what is shown, and when the rest is.
            when = {"after_published": "appear when grades are published", "after_due_date": "appear after "
                    "the due date", "hidden": "are seen by the course staff only"}.get(vis.hidden_tests, "appear later")
            lines.append(f"{shown} test{' is' if shown == 1 else 's are'} shown now; the other tests' results "
                         f"{when}." if shown else f"The tests' results {when}.")
        if result.message:
            lines.append(f"While running your notebook: {message}")
    if result.infra:
        lines.append("Some tests could not be run because of a problem on the grader's side, not with "
                     "your code; they count for nothing.")
    summary = "\n".join(lines)
    return {
        "score": result.score,
        "execution_time": round(result.execution_time_s, 3),
        "output": summary,
        # Student text (exception messages, written answers, file names) is shown as text: never as
        # HTML, markdown or ANSI in the student's or a TA's browser.
        "output_format": "text", "test_output_format": "text", "test_name_format": "text",
        "visibility": "visible" if vis.show_total else "hidden",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"seed": result.seed, "status": result.status,
                       "isolation": result.isolation.value if result.isolation else None,
                       "sandbox": result.sandbox.model_dump() if result.sandbox else None,
                       "misconceptions": result.misconceptions, "max_score": result.max_score,
                       # one line when cases were not run for a grader-side reason, else null
                       "infra": result.infra},
    }


def _numbers_shown_first(reports: "list[TestReport]", vis: VisibilitySettings) -> list[str]:
    """Each report's Gradescope number ("5.2"): within a question the tests shown now are numbered first, in their
    order, then the tests that wait, so no shown number counts a test the student is not shown yet."""
    shown = [t.visible or vis.hidden_tests == "visible" for t in reports]
    counts: dict[str, int] = {}
    numbers = [""] * len(reports)
    for first in (True, False):
        for k, t in enumerate(reports):
            if shown[k] == first:
                counts[t.question] = counts.get(t.question, 0) + 1
                numbers[k] = f"{t.question.lstrip('q')}.{counts[t.question]}"
    return numbers


def infra_summary(results: "list[SubmissionResult]") -> Optional[str]:
    """The one line a batch ends with when some submissions had cases not run for a grader-side
    reason (`SubmissionResult.infra`), else None. Inert (terminal_text)."""
    hit = [r for r in results if r.infra]
    if not hit:
        return None
    reasons = list(dict.fromkeys(r.infra.split(": ", 1)[-1] for r in hit if r.infra))
    return terminal_text(f"grader problem: {len(hit)} of {len(results)} submissions had cases not run, "
                         f"not the students' fault: {'; '.join(reasons)}", limit=800)


def results_text(result: SubmissionResult, vis: VisibilitySettings) -> str:
    """The results file's text, exactly as write_results writes it."""
    return json.dumps(to_gradescope(result, vis), indent=2)


def write_results(result: SubmissionResult, vis: VisibilitySettings, path: Path, *, skip_same: bool = False) -> None:
    """path (results/<results_name>) written whole or not at all (autograder.course.atomic; a disk's fault is
    a DiskFault naming the path). `skip_same`: a file that already says exactly this is left alone."""
    from autograder.course.atomic import ensure_folder, write_atomic
    ensure_folder(path.parent, ours=False)  # a --results folder may be a link; batch checks results/ itself
    write_atomic(path, results_text(result, vis), skip_same=skip_same)


def markup_text(text: str, **kwargs: Any) -> str:
    """`terminal_text`, then rich markup escaped: safe to interpolate into a rich markup string."""
    from rich.markup import escape
    return escape(terminal_text(text, **kwargs))


# --- results file names ------------------------------------------------------------------------------
_SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
MAX_NAME = 100


def results_name(submission: str) -> str:
    """The results file name of a submission, e.g. "alice.ipynb" -> "alice.ipynb.json" (the suffix
    stays: alice.py and alice.ipynb are different submissions). Batch writes results/<this> and
    report.html links to it; nothing else may derive it.

    Injective, even on a case-insensitive file system: a name made only of lower-case letters,
    digits, '.', '_' and '-' (not starting with '.', '_' or '-', not a Windows device name, at most
    MAX_NAME characters) is kept as it is; any other name is replaced by its safe characters plus
    '~' and a hash of the original, and '~' never occurs in a kept name. Never contains a path
    separator, never is or starts with '..', never has a control character."""
    if _SAFE_NAME.fullmatch(submission) and len(submission) <= MAX_NAME \
            and submission.split(".")[0] not in _WINDOWS_RESERVED:
        return f"{submission}.json"
    digest = hashlib.sha256(submission.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", submission).lstrip("._-")[:MAX_NAME] or "submission"
    return f"{safe}~{digest}.json"


# --- the terminal table ------------------------------------------------------------------------------
PIPED_WIDTH = 160
EXAMPLE_LINES = 16   # a shrunk example's lines shown (shrink.describe writes at most about a dozen)


def print_table(result: SubmissionResult, console: Optional[Console] = None, *, all_tests: bool = False) -> None:
    """A submission for a TA's terminal, diagnosis first (autograder.grading.diagnosis): one block per mistake
    (its name and text, the tests it explains, the points it cost, the rule points it withholds, one
    smallest failing example), then each failure no diagnosis explains, once; the passed tests folded
    into one line per question; cases the grader could not run in one note. `all_tests`: the full
    per-test table after these.

    Student text is drawn only inside bordered blocks or after a fixed prefix on a line that never
    wraps, and never as rich markup, so the one unframed line starting with "Score:" is always ours."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.text import Text
    # Piped into a file or `less`, rich would assume 80 columns and cut test names: be wide there.
    console = console or Console(highlight=False, emoji=False,
                                 width=None if sys.stdout.isatty() else PIPED_WIDTH)
    console.print(Text.assemble(("submission: ", "bold"), terminal_text(result.submission, limit=200),
                                f" — {terminal_text(result.assignment, limit=100)}"),
                  no_wrap=True, overflow="ellipsis", crop=True)
    if result.status != "graded":
        # Nothing ran: one line says why, not one row per test saying the same thing.
        console.print(Panel(Text(terminal_text(result.message, newlines=True), style="red"),
                            title=f"not graded ({result.status})", title_align="left"))
        console.print(f"[bold]Score: {result.score:g} / {result.max_score:g}[/]   "
                      f"({len(result.tests)} tests not run, seed {result.seed})", soft_wrap=True)
        return
    _print_diagnosis(result, console)
    if all_tests:
        _print_every_test(result, console)
    if result.message:
        console.print(Panel(Text(terminal_text(result.message, newlines=True), style="yellow"),
                            title="while running the notebook", title_align="left"))
    if result.infra:
        console.print(Panel(Text(terminal_text(result.infra, newlines=True), style="yellow"),
                            title="grader problem (not the student's)", title_align="left"))
    for m in result.manual:
        console.print(Text.assemble("written answer to ", (terminal_text(m.question, limit=100), "cyan"),
                                    f": collected for hand grading ({len(m.text)} chars)"),
                      no_wrap=True, overflow="ellipsis", crop=True)
    more = "" if all_tests or not result.tests else "; every test: --all"
    console.print(f"[bold]Score: {result.score:g} / {result.max_score:g}[/]   "
                  f"(isolation: {result.isolation.value if result.isolation else '?'}, seed {result.seed}, "
                  f"{result.execution_time_s:.2f} s{more})", soft_wrap=True)


def _tests_line(tests: list[TestReport]) -> str:
    from autograder.grading.diagnosis import tests_by_question
    return "; ".join(f"{q}: {', '.join(names)}" for q, names in tests_by_question(tests))


def _group_text(group: FailureGroup, *, explained: bool) -> Text:
    """One cause's block: (its text,) the tests, the points, the withheld rule points, the example."""
    from rich.text import Text

    from autograder.grading.diagnosis import points, said_beyond
    body = Text()
    if explained:
        body.append(terminal_text(group.text, newlines=True, max_lines=4) + "\n")
    else:
        body.append(terminal_text(group.text, newlines=True, max_lines=EXAMPLE_LINES) + "\n", style="red")
    n = len(group.tests)
    body.append(f"{n} test{'s' if n != 1 else ''}, {points(group.lost)} lost: ", style="bold")
    body.append(terminal_text(_tests_line(group.tests), limit=4000) + "\n")
    if group.withheld:
        body.append(f"{points(group.withheld_points).replace('point', 'rule point')} withheld until this is fixed: ",
                    style="bold")
        body.append(terminal_text(_tests_line(group.withheld), limit=2000) + "\n")
    shown = group.example.test if group.example is not None else group.tests[0]
    if explained:  # what one of its tests said: which case, and a crash's own words
        body.append(f"{terminal_text(shown.display_name, limit=200)}: ", style="bold")
        body.append(terminal_text(said_beyond(shown.message, group.text), newlines=True, max_lines=EXAMPLE_LINES) + "\n")
    if group.example is not None:  # shrink's own first line says how small it is
        body.append(terminal_text(group.example.text, newlines=True, max_lines=EXAMPLE_LINES))
    body.rstrip()
    return body


def _print_diagnosis(result: SubmissionResult, console: Console) -> None:
    from rich.panel import Panel
    from rich.text import Text

    from autograder.grading.diagnosis import diagnose, points
    from autograder.course.handscores import is_hand_test
    found = diagnose(result, [t for t in result.tests if not is_hand_test(t)])
    for i, group in enumerate(found.mistakes, 1):
        # the key comes from the assignment, still shown as text: a title is never parsed as markup
        title = Text.assemble(f"mistake {i}: ", (terminal_text(group.key or "", limit=100), "bold"),
                              f" — {points(group.cost)}")
        console.print(Panel(_group_text(group, explained=True), title=title, title_align="left",
                            border_style="red"))
    for group in found.unexplained:
        title = Text(f"not explained by a known mistake — {points(group.cost)}")
        console.print(Panel(_group_text(group, explained=False), title=title, title_align="left",
                            border_style="red"))
    if found.passed:
        lines = Text("\n".join(terminal_text(line.sentence, limit=300) for line in found.passed))
        console.print(Panel(lines, title="passed", title_align="left", border_style="green"))
    if found.not_run:
        reasons = list(dict.fromkeys(t.infra_reason or "no reason recorded" for t in found.not_run))
        n = len(found.not_run)
        note = (f"{n} test case{'s were' if n != 1 else ' was'} not run by the grader: "
                f"{_tests_line(found.not_run)}. Not the student's mistake; "
                f"{'they count' if n != 1 else 'it counts'} 0 of 0 points. Why: {'; '.join(reasons)}")
        console.print(Panel(Text(terminal_text(note, newlines=True)), title="grader note (not run)",
                            title_align="left", border_style="yellow"))


def _print_every_test(result: SubmissionResult, console: Console) -> None:
    """The per-test table (`grade --all`): every test, its result, points and message."""
    from rich.table import Table
    from rich.text import Text
    table = Table(show_lines=True)
    table.add_column("test", no_wrap=True)  # a test's name is what a TA searches for: never cut
    table.add_column("result")
    table.add_column("points", justify="right")
    table.add_column("why", overflow="fold")
    for t in result.tests:
        mark = {"passed": Text("passed", style="green"), "not_run": Text("not run", style="yellow")}.get(
            t.status, Text("failed", style="red"))
        why = Text(terminal_text(t.message, newlines=True, max_lines=EXAMPLE_LINES))  # room for a shrunk example
        if t.misconception:
            why.append(f" [misconception: {terminal_text(t.misconception, limit=100)}]")
        table.add_row(Text(terminal_text(t.display_name, limit=200)), mark,
                      Text(f"{t.score:g}/{t.max_score:g}"), why)
    console.print(table)
