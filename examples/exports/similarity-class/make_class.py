"""Writes notebooks/ here, a class of one notebook per solution in tests/fixtures/similarity/, so that `make demo`
shows the similarity report on the class tests/test_similarity.py holds it to (20 solutions written
independently, copied_from_s07 a copy of s07_where with renamed variables and rewritten comments,
helper_from_s13 sharing only a helper with s13_helpers).

Each notebook is the student template with each stub replaced by the student's function of that name;
the student's other code (helpers, imports) goes into the first stub's cell, above it. The short answers
stay unanswered: the report compares only the graded functions.

    .venv/bin/python examples/exports/similarity-class/make_class.py

rewrites every notebook in notebooks/ (and removes any it no longer makes); tests/test_similarity.py
checks that the committed notebooks are what it makes. They sit in a folder of their own because batch
takes every .py file beside them (this one too) for a submission.
"""
from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CLASS = HERE / "notebooks"
SLUG = "sdpa-from-scratch"
FIXTURES = ROOT / "tests" / "fixtures" / "similarity"
TEMPLATE = ROOT / "student_template" / f"{SLUG}.ipynb"
GRADED = ("stable_softmax", "causal_mask", "scaled_dot_product_attention")


def as_notebook(source: str, template: dict) -> dict:
    """The template with the student's graded functions in their stubs' cells (the template is not changed)."""
    notebook = copy.deepcopy(template)
    lines = source.splitlines()
    graded: dict[str, str] = {}
    other: list[str] = []
    for node in ast.parse(source).body:
        text = "\n".join(lines[node.lineno - 1: node.end_lineno])
        if isinstance(node, ast.FunctionDef) and node.name in GRADED:
            graded[node.name] = text
        else:
            other.append(text)
    first = True
    for cell in notebook["cells"]:
        text = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
        for name, body in graded.items():
            if text.startswith(f"def {name}("):
                cell["source"] = (("\n\n\n".join(other) + "\n\n\n" if first and other else "") + body).splitlines(True)
                first = False
    if first:
        raise ValueError("the template no longer has a stub to fill")
    return notebook


def solutions() -> list[Path]:
    """The fixture class: the 20 independent solutions, then the two that copied."""
    return [*sorted((FIXTURES / "class").glob("*.py")), *sorted(FIXTURES.glob("*.py"))]


def notebooks() -> dict[str, str]:
    """File name -> the notebook's text, as written here (ASCII, keys sorted: the same bytes on every run)."""
    template = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    return {f"{path.stem}.ipynb": json.dumps(as_notebook(path.read_text(encoding="utf-8"), template),
                                             indent=1, sort_keys=True) + "\n"
            for path in solutions()}


def main() -> None:
    made = notebooks()
    CLASS.mkdir(exist_ok=True)
    for stale in sorted({p.name for p in CLASS.iterdir()} - set(made)):
        (CLASS / stale).unlink()
    for name, text in made.items():
        (CLASS / name).write_text(text, encoding="utf-8")
    print(f"{len(made)} notebooks in {CLASS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
