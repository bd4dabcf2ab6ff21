"""Naming scaled-attention's mistakes, round 36 (blind35, blind34): in-process on the hidden files' own helpers.
Rows in reverse order of dims (not hard-coded dims), a letter computed by a probe at d_k = 1, (sum q)(sum k) for
q.k, and the letter of lesson 79's own quiz."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from autograder.grading.checks import Misconception
from reference import scaled_attention as sa
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r36__diagnose")


def test_reversed_rows_named_and_not_ignored_dims():
    for dims, seed in (((4, 16, 64, 256), 0), ((12, 48, 100), 217888)):
        rows = sa.entropy_table(list(dims)[::-1], seed)
        with pytest.raises(Misconception) as e:
            D.raise_if_other_dims(rows, dims, seed)
        assert e.value.key == "table_rows_reversed"
    # another order than the reverse: said, not named
    rows = sa.entropy_table([16, 4, 256, 64], 0)
    with pytest.raises(AssertionError) as e:
        D.raise_if_other_dims(rows, (4, 16, 64, 256), 0)
    assert not isinstance(e.value, Misconception)
    # hard-coded dims still tell table_ignores_dims
    with pytest.raises(Misconception) as e:
        D.raise_if_other_dims(sa.entropy_table((4, 16, 64, 256), 5), (12, 48, 100), 5)
    assert e.value.key == "table_ignores_dims"


def _sub(src: str):
    return SimpleNamespace(cells=[src], source=src)


def test_probe_at_size_one_is_read_off_the_source_and_never_run(tmp_path):
    probe = ("_d = 1\nx = (torch.randn(4000, _d) * torch.randn(4000, _d)).sum(-1).var().item()\n"
             "o = {'A': 1.0, 'B': _d ** 0.5, 'C': float(_d), 'D': float(_d) ** 2}\n"
             "q5_answer = min(o, key=lambda c: abs(o[c] - x))\n")
    with pytest.raises(Misconception) as e:
        D.raise_if_probe_at_size_one("q5_answer", "A", "C", _sub(probe))
    assert e.value.key == "probe_at_degenerate_size" and "`_d = 1`" in str(e.value)
    # a literal letter, or a probe at a size where the options differ: nothing
    D.raise_if_probe_at_size_one("q5_answer", "A", "C", _sub('q5_answer = "A"  # d = 1\n'))
    D.raise_if_probe_at_size_one("q5_answer", "A", "C", _sub(probe.replace("_d = 1", "_d = 8")))
    # student code never runs in the grader: a probe cell that would write a file leaves none
    marker = tmp_path / "ran_in_the_grader"
    hostile = f"open({str(marker)!r}, 'w').write('x')\n" + probe
    with pytest.raises(Misconception):
        D.raise_if_probe_at_size_one("q5_answer", "A", "C", _sub(hostile))
    assert not marker.exists()


def test_product_of_sums_replayed():
    out = D.transformed_dots_variants(12, 2000, 3, False)
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(2000, 12, generator=g), torch.randn(2000, 12, generator=g)
    assert abs(out["dots_product_of_sums"] - float((q.sum(1) * k.sum(1)).var())) < 1e-9
    assert D.replay_key("dots_product_of_sums/float64") == "dots_product_of_sums"


def test_lesson_letter_named_only_when_cited_and_said_after_the_diagnosis():
    # the lesson's letter order led every such message until 12-07; uncited, the diagnosis now comes first (the
    # judges of blind81-83 read the lead as beside the point for a student whose cell gives another reason)
    wrong = sa.MCQ_MISCONCEPTIONS["q7_answer"]
    with pytest.raises(Misconception) as e:
        D.raise_if_lesson_letter("q7_answer", "A", "D", wrong, _sub('q7_answer = "A"  # lesson 79 quiz\n'))
    assert e.value.key == "answer_lesson_quiz_letter" and "lesson 79's quiz" in str(e.value)
    with pytest.raises(Misconception) as e:
        D.raise_if_lesson_letter("q7_answer", "A", "D", wrong, _sub('q7_answer = "A"\n'))
    said = str(e.value)
    assert e.value.key == wrong["A"] and said.startswith("q7_answer is 'A': in this notebook A is"), said
    assert 0 < said.find("reflects") < said.find("lesson 79's quiz"), said
    D.raise_if_lesson_letter("q7_answer", "C", "D", wrong, _sub('q7_answer = "C"  # lesson\n'))   # not its letter
    D.raise_if_lesson_letter("q6_answer", "A", "A", {}, None)                                     # right here
