"""The vectorisation check times calls on inputs the student has never seen and checks what the timed
calls returned: a loop over rows or over batch entries fails, a memo keyed on the inputs earns nothing,
wrong values are reported as "could not be verified", and a vectorised solution passes.

In-process cases use the trusted proxy (same `run_fresh_calls`, timed with this thread's CPU clock);
the last test grades notebooks in the real sandbox. Only ratios are asserted, with wide margins: the
machine is shared."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

from autograder.grading.checks import Misconception, assert_vectorised
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parent.parent
FULL_MARKS = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb"

LONG = [([((1, 256, 16), "float64")] * 3, {"mask": ref.causal_mask(256)})]
MANY = [([((128, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4)})]


def _rows(Q, K, V, mask=None):
    """A loop over queries, each row right."""
    out = []
    for i in range(Q.shape[-2]):
        m = None if mask is None else mask[..., i:i + 1, :]
        out.append(ref.scaled_dot_product_attention(Q[..., i:i + 1, :], K, V, m))
    return torch.cat(out, dim=-2)


def _batch(Q, K, V, mask=None):
    """A loop over batch entries, each entry vectorised."""
    return torch.stack([ref.scaled_dot_product_attention(Q[b], K[b], V[b], mask) for b in range(Q.shape[0])])


_CACHE: dict = {}


def _memo(Q, K, V, mask=None):
    """The attack the old test lost to: a row loop memoised on the input bytes."""
    key = tuple((t.shape, t.contiguous().view(torch.uint8).numpy().tobytes()) for t in (Q, K, V))
    if key not in _CACHE:
        _CACHE[key] = _rows(Q, K, V, mask)
    return _CACHE[key].clone()


def _wrong_scale(Q, K, V, mask=None):
    """Vectorised, but divides by d_k: its timing cannot be verified."""
    return ref.scaled_dot_product_attention(Q * (1 / math.sqrt(Q.shape[-1])), K, V, mask)


def ratio(fn, cases, seed=0):
    return assert_vectorised(TrustedProxy(fn, "cpu"), ref.scaled_dot_product_attention, cases,
                             rng=torch.Generator().manual_seed(seed), limit=1e9)


def test_vectorised_solution_is_near_the_yardstick():
    assert ratio(ref.scaled_dot_product_attention, LONG + MANY) < 2.5


def test_loop_over_rows_is_caught_by_long_sequences():
    assert ratio(_rows, LONG) > 8


def test_loop_over_batch_entries_is_caught_by_many_short_sequences():
    assert ratio(_batch, MANY) > 8
    assert ratio(_batch, LONG) < 3      # why the second shape is needed: B = 1 hides the batch loop


def test_a_memo_on_the_inputs_earns_nothing():
    _CACHE.clear()
    assert ratio(_memo, LONG) > 8
    assert len(_CACHE) > 5               # every timed call brought new inputs


def test_limit_raises_the_misconception():
    with pytest.raises(Misconception) as e:
        assert_vectorised(TrustedProxy(_batch, "cpu"), ref.scaled_dot_product_attention, LONG + MANY,
                          rng=torch.Generator().manual_seed(1), limit=5.0, what="sdpa")
    assert e.value.key == "not_vectorised" and "sdpa took" in str(e.value)


def test_wrong_values_mean_the_timing_cannot_be_verified():
    with pytest.raises(AssertionError, match="could not be verified") as e:
        ratio(_wrong_scale, MANY)
    assert not isinstance(e.value, Misconception)   # not charged as a vectorisation mistake


def test_skipping_one_timed_call_is_noticed():
    calls = [0]

    def lazy(Q, K, V, mask=None):
        calls[0] += 1
        if calls[0] == 7:                 # one output in many replaced by zeros
            return torch.zeros(Q.shape[:-1] + (V.shape[-1],), dtype=Q.dtype)
        return ref.scaled_dot_product_attention(Q, K, V, mask)
    with pytest.raises(AssertionError, match="could not be verified"):
        ratio(lazy, MANY)


# ---------------------------------------------------------------------------------------------------
# through the sandbox
# ---------------------------------------------------------------------------------------------------

MEMO_SDPA = '''
_memo = {}

def _one_row_at_a_time(Q, K, V, mask=None):
    d_k = Q.size(-1)
    if mask is not None:
        mask = mask.expand(*Q.shape[:-2], Q.shape[-2], K.shape[-2])
    rows = []
    for i in range(Q.shape[-2]):
        s = torch.matmul(Q[..., i:i + 1, :], K.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            m = mask[..., i:i + 1, :]
            s = s.masked_fill(m == False, float("-inf"))
            w = torch.where(m.any(dim=-1, keepdim=True), stable_softmax(s, dim=-1), torch.zeros_like(s))
        else:
            w = stable_softmax(s, dim=-1)
        rows.append(torch.matmul(w, V))
    return torch.cat(rows, dim=-2)

def scaled_dot_product_attention(Q, K, V, mask=None):
    """A row loop, memoised on the bytes of the inputs."""
    key = tuple((t.shape, t.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
                for t in (Q, K, V) + (() if mask is None else (mask,)))
    if key not in _memo:
        _memo[key] = _one_row_at_a_time(Q, K, V, mask)
    return _memo[key].clone()

# warm the memo with a first call, as a timing test would (the old one repeated its warm-up inputs)
scaled_dot_product_attention(torch.randn(1, 256, 16, dtype=torch.float64),
                             torch.randn(1, 256, 16, dtype=torch.float64),
                             torch.randn(1, 256, 16, dtype=torch.float64), causal_mask(256))
'''

BATCH_LOOP_SDPA = '''
def _one_entry(Q, K, V, mask=None):
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)

def scaled_dot_product_attention(Q, K, V, mask=None):
    """Vectorised within one batch entry, a Python loop over the batch entries."""
    if Q.dim() == 2:
        return _one_entry(Q, K, V, mask)
    if mask is not None:
        mask = mask.expand(*Q.shape[:-2], Q.shape[-2], K.shape[-2])
    return torch.stack([_one_entry(Q[b], K[b], V[b], None if mask is None else mask[b])
                        for b in range(Q.shape[0])])
'''


def _with_sdpa(tmp_path: Path, name: str, source: str) -> Path:
    nb = json.loads(FULL_MARKS.read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"
             and "".join(c["source"]).startswith("def scaled_dot_product_attention")]
    assert len(cells) == 1
    cells[0]["source"] = source.strip("\n")
    path = tmp_path / name
    path.write_text(json.dumps(nb))
    return path


def _vectorised_report(grader, path: Path):
    result = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert result.status == "graded"
    (report,) = [t for t in result.tests if t.name == "test_vectorised" and t.device == "cpu"]
    return result, report


def test_sandbox_vectorised_passes_loops_and_memo_fail(grader, tmp_path):
    result, report = _vectorised_report(grader, FULL_MARKS)
    assert report.status == "passed", report.message
    for name, source in (("memo_rows.ipynb", MEMO_SDPA), ("batch_loop.ipynb", BATCH_LOOP_SDPA)):
        result, report = _vectorised_report(grader, _with_sdpa(tmp_path, name, source))
        assert report.status == "failed" and report.misconception == "not_vectorised", (name, report.message)
        # the values are right: only the vectorisation test is lost
        assert result.score == result.max_score - report.max_score, [
            (t.name, t.message) for t in result.tests if t.status != "passed"]
