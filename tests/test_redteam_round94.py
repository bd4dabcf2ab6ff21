"""Red-team round 94: today's changes, a third look (round 87's and 92's class-wide budgets, round 91's refusals,
round 89's Gradescope numbering, round 88's cuda_call_without_gpu, naming round 59's replays in the trusted process).

A replay of naming round 59 that reads the student's source in the trusted process: scaled-attention q8's
values_unsliced_from_source (mha_values_not_sliced) asks of each `attention(a, b, c)` call in multi_head_attention
how a, b and c were made (_diagnose._head_arg_kinds), following a name through up to 8 of its bindings, 4 deep, with
no memory of names already followed: 8^4 walks per argument. A notebook whose multi_head_attention made the
mha_head_slice_fixed mistake (the numbers that ask for this replay) and held, under `if False:`, eight `a = a` and a
line of `attention(a,a,a)` calls (a 20,000-character cell, the most the replay reads) cost the grader's own process
seconds of CPU per failing check, measured with resource.getrusage(RUSAGE_SELF) around the grade. Fix: a name's kind
at a depth is worked out once (memo by name and depth), so the walk costs the cell's own size.

The terminal's note of skipped files (round 92 named students with no row first, by Canvas user id) in a flat folder:
every file there counted as a student of its own, so aaron.ipynb's six extras (aaron.csv, aaron.docx, ...), sorting
first, filled the note's five names and gina.ipynb.txt, whose only file it was (no row anywhere), went unnamed
(exports.skipped_note on discover's result). Fix: a flat folder's file belongs to the name before its first dot, and
has a row where a graded flat (or zip) entry has that name.

report.html's typesetting order (round 92: least LaTeX first, so one submission cannot spend the class's budget
before its classmates): the LaTeX was counted over each answer's whole text, while answer_html typesets it piece by
piece between image references. `$$ ![](attachment:x.png) $$` and a long display formula after it counted 27
characters (the reference's two $$ paired, the formula left unmatched) for 8 typeset lines of 632 characters
(/tmp/rt94/math_key.py), so a submission of heavy proofs sorted first again and every classmate's formulas went to
source. Fix: report._formula_chars reads the pieces answer_html reads.
"""
from __future__ import annotations

import resource

from autograder.config import find_course
from tests.conftest import ROOT

from tests.heldout.harness import grade_cells


def _fixed_slice_mha(padding: str) -> dict[str, str]:
    # round 59's FIXED_Q_K: Q[:, :d_k] and K[:, :d_k] in every head (mha_head_slice_fixed), with `padding` never run
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(Q[:, :d_k], K[:, :d_k], V[:, s], d_k)
        heads.append(o)
{padding}
    return torch.cat(heads, dim=-1) @ W_O
'''}


def _cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def test_source_walk_of_mha_calls_is_bounded(grader):
    head = "    if False: " + "a = a; " * 8
    padding = head + "attention(a,a,a); " * ((19_000 - len(head)) // 18)
    cells = _fixed_slice_mha(padding)
    assert len(cells["multi_head_attention"]) < 20_000     # what values_unsliced_from_source reads
    started = _cpu_seconds()
    outcome = grade_cells(grader, "scaled-attention", cells, "round94_mha_walk")
    spent = _cpu_seconds() - started
    assert outcome.failed and all(k == "mha_head_slice_fixed" for _q, _t, k, _m in outcome.failed), outcome.explain()
    # the plain mistake costs the grader's process well under a second here; the walk unbounded, over 10 s
    assert spent < 5.0, f"the grader's own process spent {spent:.1f} s of CPU on one notebook"


def test_flat_folder_extras_do_not_hide_a_student_with_no_row_from_the_skipped_note(tmp_path):
    import shutil

    from autograder.course.exports import discover, skipped_note
    from tests.conftest import ROOT

    notebook = next((ROOT / "examples" / "submissions").rglob("*.ipynb"))
    root = tmp_path / "class"
    root.mkdir()
    for who in ("aaron", "bella"):
        shutil.copy(notebook, root / f"{who}.ipynb")
    for ext in ("csv", "docx", "html", "pdf", "png", "txt"):     # aaron's extras: he has a row
        (root / f"aaron.{ext}").write_bytes(b"x")
    (root / "gina.ipynb.txt").write_text("{}")                   # gina's only file: no row at all
    found = discover(root, "scaled-attention", tmp_path / "scratch")
    assert sorted(e.key for e in found.entries) == ["aaron.ipynb", "bella.ipynb"]
    note = skipped_note(found)
    assert note is not None and "and 2 more" in note
    named = note.split(": ", 1)[1].split(" and 2 more")[0].split(", ")
    assert named[0] == "gina.ipynb.txt" and all(n.startswith("aaron.") for n in named[1:]), note


def test_formulas_after_an_image_reference_count_in_the_report_s_typesetting_order(tmp_path, monkeypatch):
    from autograder.course import feedback, report
    from autograder.results import ManualAnswer, SubmissionResult

    feedback._typeset.cache_clear()
    honest = [f"so $\\mathrm{{Var}}(q_{i} k_{i}) = d_{{{i}}}$" for i in range(5)]
    lines = [f"\\sum_{{i={k}}}^{{n}} \\frac{{x_{{i}}^{{2}}}}{{\\sqrt{{y_{{{k}}}}}}}" for k in range(12)]
    heavy = "$$ ![](attachment:x.png) $$" + " \\\\ ".join(lines) + "$$"
    one = len(feedback.answer_html(honest[0]))
    monkeypatch.setattr(report, "MAX_REPORT_MATH_BYTES", 5 * one + 1, raising=False)   # the classmates' five fit
    results = [SubmissionResult(submission="aaa", assignment="scaled-attention", manual=[ManualAnswer(question="q3", text=heavy)])] + [
        SubmissionResult(submission=f"student{i}", assignment="scaled-attention", manual=[ManualAnswer(question="q3", text=t)])
        for i, t in enumerate(honest)]
    assert report._formula_chars(results[0]) > max(report._formula_chars(r) for r in results[1:])
    page = report.write_report(results, find_course(ROOT), "scaled-attention", tmp_path).read_text(encoding="utf-8")
    for i in range(5):
        assert f"alt=\"\\mathrm{{Var}}(q_{i} k_{i}) = d_{{{i}}}\"" in page     # each classmate's formula typeset
