"""Outputs read reports only: Gradescope results.json and the terminal table."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autograder.checks import describe
from autograder.config import VisibilitySettings
from autograder.results import SubmissionResult


def to_gradescope(result: SubmissionResult, vis: VisibilitySettings) -> dict[str, Any]:
    """Gradescope's results.json, exactly the documented keys (plus extra_data for instructors)."""
    tests: list[dict[str, Any]] = []
    numbers: dict[str, int] = {}
    for t in result.tests:
        numbers[t.question] = numbers.get(t.question, 0) + 1
        output = t.message if t.status == "failed" else "passed"
        if t.misconception:
            output += f"\n\nLikely misconception: {describe(t.misconception)}."
        tags = [t.question] + ([f"misconception:{t.misconception}"] if t.misconception else [])
        tests.append({
            "name": t.display_name,
            "number": f"{t.question.lstrip('q')}.{numbers[t.question]}",
            "score": t.score,
            "max_score": t.max_score,
            "status": t.status,
            "output": output,
            "visibility": vis.hidden_tests if t.hidden else "visible",
            "tags": tags,
        })
    for m in result.manual:
        tests.append({"name": f"{m.question}: written answer (graded by hand)", "number": f"{m.question}.manual",
                      "score": 0.0, "max_score": 0.0, "status": "passed",
                      "output": m.text[:5000] or "(no answer written)", "visibility": "hidden",
                      "tags": [m.question, "manual"]})
    tests.append({"name": "Grader information (instructors only)", "number": "0.0", "score": 0.0,
                  "max_score": 0.0, "status": "passed",
                  "output": f"isolation: {result.isolation.value if result.isolation else 'unknown'}\n"
                            f"seed: {result.seed} (replay with: autograder grade SUB -a {result.assignment} --seed {result.seed})",
                  "visibility": vis.isolation, "tags": ["grader"]})
    summary = f"Score {result.score:g} / {result.max_score:g}."
    if result.status == "rejected":
        summary = f"Your submission could not be graded: {result.message}"
    elif result.message:
        summary += f"\nWhile running your notebook: {result.message}"
    return {
        "score": result.score,
        "execution_time": round(result.execution_time_s, 3),
        "output": summary,
        "visibility": "visible" if vis.show_total else "hidden",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"seed": result.seed, "status": result.status,
                       "isolation": result.isolation.value if result.isolation else None,
                       "misconceptions": result.misconceptions, "max_score": result.max_score},
    }


def write_results(result: SubmissionResult, vis: VisibilitySettings, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(to_gradescope(result, vis), indent=2))
    tmp.replace(path)


def print_table(result: SubmissionResult) -> None:
    from rich.console import Console
    from rich.table import Table
    console = Console()
    table = Table(title=f"{result.submission} — {result.assignment}", show_lines=False)
    table.add_column("test")
    table.add_column("result")
    table.add_column("points", justify="right")
    table.add_column("why", overflow="fold")
    for t in result.tests:
        mark = "[green]passed[/]" if t.status == "passed" else "[red]failed[/]"
        why = t.message + (f" [misconception: {t.misconception}]" if t.misconception else "")
        table.add_row(t.display_name, mark, f"{t.score:g}/{t.max_score:g}", why, style=None)
    console.print(table)
    if result.message:
        console.print(f"[yellow]{result.message}[/]")
    for m in result.manual:
        console.print(f"[cyan]{m.question}[/]: written answer collected for hand grading ({len(m.text)} chars)")
    console.print(f"[bold]Score: {result.score:g} / {result.max_score:g}[/]   "
                  f"(isolation: {result.isolation.value if result.isolation else '?'}, seed {result.seed}, "
                  f"{result.execution_time_s:.2f} s)")
