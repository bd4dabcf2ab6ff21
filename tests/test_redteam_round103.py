"""Red-team round 103: the similarity page as an accusation (honest pairs flagged, a classmate framed, what the page says).

Repros in /tmp/rt103/ (measure.py puts every CORRECT variant of tests/heldout/<slug>/*.py into the student template and
compares them as one class; stubs.py pairs two students who wrote the same stub or one-line answer; repeat.py the
framing below; dist2.py and dist_orig.py count the held-out pairs listed and flagged now and as found). grading.yml
flags sdpa-from-scratch's pairs from 0.5 and lists them from 0.2.

- **A passage repeated by one student.** The score is (covered in a + covered in b) / (own tokens of a + of b), and a
  side's covered tokens were every place a shared passage stood, however many times it was written. A student whose
  solution shares one tutorial idiom with a classmate's (`masked_fill(mask == 0, float("-inf"))` then `nan_to_num`:
  0.420, not flagged) and writes that block again in the graded function took the pair to 0.662 (3 times), 0.829
  (10) and 0.929 (30): flagged, the classmate's side unchanged (23 of 42 tokens shared). Now a passage a submission
  writes again counts once (its repeats are neither its own tokens nor covered): 0.407 at every count.
- **Short answers and unanswered stubs.** A match needs K = 12 tokens, but they could be mostly the template's (a
  def's header): two students who wrote `raise NotImplementedError()` (or `return None`) in every stub shared 9
  tokens, 0.75, flagged; `return torch.softmax(x, dim=dim)` in the softmax stub, 1.0 on one token; the one-line
  `torch.tril(torch.ones(T_q, T_k or T_q)).bool()` 0.864 on 19. In the held-out right answers (each in the template),
  pairs sharing 4 tokens ranked first at 1.000. Now a pair is listed only when each side shares MIN_LISTED_TOKENS (15,
  K + WINDOW - 1: the passage winnowing is sure to find) of its own tokens, and flagged only with MIN_FLAGGED_TOKENS
  (30) each side. Held-out right answers (the set as of this round; it grows), listed / flagged as found and now:
  sdpa-from-scratch 838 / 142 and 452 / 74, scaled-attention 1,454 / 184 and 855 / 98, attention-pipeline 2,120 / 297
  and 1,588 / 192 (the corpus reuses code across its files: the pairs still flagged share 30 or more tokens of
  near-identical code). The copied fixture
  pair keeps 0.963 (183 tokens a side), flagged.
- **What the page says.** It gave a score and the functions, not how much was shared, and "a reason to look, not a
  finding". Now each pair shows the tokens shared of each side's own ("19 of 22"), and the page says the floors above,
  that a repeated passage counts once, and that students taught alike write alike, so likeness is no proof.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.config import find_course
from autograder.course import similarity as sim
from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
FIXTURES = ROOT / "tests" / "fixtures" / "similarity"
GRADED = ("stable_softmax", "causal_mask", "scaled_dot_product_attention")


@pytest.fixture(scope="module")
def setting():
    course = find_course(ROOT)
    names = sim.compared_names(course, SLUG)
    return course, names, sim.class_boilerplate(course, SLUG, names)


def template_cells() -> list[str]:
    template = json.loads((ROOT / "student_template" / f"{SLUG}.ipynb").read_text())
    return ["".join(c["source"]) for c in template["cells"] if c["cell_type"] == "code"]


def answered(bodies: dict[str, str]) -> list[str]:
    """The template with each named stub's body (docstring and all) replaced by `bodies[name]`."""
    cells = []
    for cell in template_cells():
        for name, body in bodies.items():
            at = cell.find(f"def {name}(")
            if at >= 0:
                cell = cell[:at] + cell[at:].split("\n")[0] + "\n" + body
        cells.append(cell)
    return cells


def pairs_of(setting, a: list[str], b: list[str]) -> list[sim.Pair]:
    """Every pair with anything in common (floor 0, however few tokens)."""
    _course, names, boilerplate = setting
    docs = [sim.fingerprint(key, sim.extract(cells, names), boilerplate, names) for key, cells in (("a", a), ("b", b))]
    return sim.compare(docs, 0.0)[0]


def report(setting, tmp_path: Path, classes: dict[str, list[str]]) -> tuple[list[dict[str, str]], str]:
    course, names, _ = setting
    stored = {key: sim.extract(cells, names) for key, cells in classes.items()}
    sim.write_report(stored, course, SLUG, tmp_path)
    lines = (tmp_path / "similarity.csv").read_text().splitlines()
    rows = [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:]]
    return rows, (tmp_path / "similarity.html").read_text()


HONEST = '''import torch, math
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)
    out = torch.matmul(weights, V)
    return out
'''
# another right answer sharing only the tutorial's masked_fill / nan_to_num idiom; {again} repeats that block
FRAMER = '''import torch
def scaled_dot_product_attention(Q, K, V, mask=None):
    s = torch.einsum("bqd,bkd->bqk", Q, K) * Q.size(-1) ** -0.5
    if mask is not None:
        s = s.masked_fill(mask == 0, float("-inf"))
    p = stable_softmax(s, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)
{again}    return torch.einsum("bqk,bkd->bqd", p, V)
'''
BLOCK = '''    if mask is not None:
        s = s.masked_fill(mask == 0, float("-inf"))
    p = torch.softmax(s, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)
'''


def test_a_passage_one_student_repeats_counts_once(setting):
    threshold = setting[0].settings(SLUG).similarity.threshold
    honest = [*template_cells(), HONEST]
    plain = pairs_of(setting, honest, [*template_cells(), FRAMER.format(again="")])
    assert plain and plain[0].score < threshold           # measured 0.420
    for times in (3, 10, 30):
        framed = pairs_of(setting, honest, [*template_cells(), FRAMER.format(again=BLOCK * times)])
        score = framed[0].score if framed else 0.0
        assert score <= plain[0].score + 0.01, (times, score)   # as found 0.662, 0.829, 0.929 (flagged)
        assert not any(p.flagged(threshold) for p in framed)


def test_stubs_left_alike_and_a_one_token_answer_are_not_listed(setting, tmp_path):
    classes = {
        "raise_a": answered({n: "    raise NotImplementedError()\n" for n in GRADED}),
        "raise_b": answered({n: "    raise NotImplementedError()\n" for n in GRADED}),
        "none_a": answered({n: "    return None\n" for n in GRADED}),
        "none_b": answered({n: "    return None\n" for n in GRADED}),
        "builtin_a": answered({"stable_softmax": "    return torch.softmax(x, dim=dim)\n"}),
        "builtin_b": answered({"stable_softmax": "    return torch.softmax(x, dim=dim)\n"}),
    }
    rows, page = report(setting, tmp_path, classes)
    assert rows == []                  # as found: 0.75, 0.75 and 1.0, each flagged
    assert "No pair scores" in page


def test_a_one_line_answer_is_listed_not_flagged_and_a_copy_still_is(setting, tmp_path):
    line = "    return torch.tril(torch.ones(T_q, T_k or T_q)).bool()\n"
    victim = [*template_cells(), (FIXTURES / "class" / "s07_where.py").read_text()]
    copier = [*template_cells(), (FIXTURES / "copied_from_s07.py").read_text()]
    rows, page = report(setting, tmp_path, {"line_a": answered({"causal_mask": line}),
                                            "line_b": answered({"causal_mask": line}),
                                            "copied_from_s07": copier, "s07_where": victim})
    by_pair = {(r["a"], r["b"]): r for r in rows}
    one_line = by_pair[("line_a", "line_b")]
    assert float(one_line["score"]) > 0.8 and one_line["flagged"] == "no"       # as found: 0.864, flagged
    copy = by_pair[("copied_from_s07", "s07_where")]
    assert float(copy["score"]) > 0.9 and copy["flagged"] == "yes"


def test_the_page_says_how_much_is_shared_and_that_likeness_is_no_proof(setting, tmp_path):
    line = "    return torch.tril(torch.ones(T_q, T_k or T_q)).bool()\n"
    rows, page = report(setting, tmp_path, {"a": answered({"causal_mask": line}), "b": answered({"causal_mask": line})})
    assert len(rows) == 1
    assert "likeness is no proof" in page
    assert "<th>shared tokens (a, b)</th>" in page
    assert "19 of 22, 19 of 22" in page               # each side's shared tokens of its own
    assert f"at least {sim.MIN_FLAGGED_TOKENS}" in page and "repeats counts once" in page
