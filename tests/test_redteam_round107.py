"""Red-team round 107: today's naming round 60, the naming side (its new replays and second calls).

Repros in /tmp/rt107/ (repA.py: q02's scale kept between calls; repB.py, timeB.py: q11's rank replays).

- **A scale typed in, told a scale kept between calls.** attention-pipeline q02's raise_if_scale_cached names
  scale_cached_first_call where S is Q K^T times one factor on the test's input and on two more calls (d_k = 3, 7)
  and the def "keeps state": any `global` statement, any mutable default, any cache decorator. A notebook dividing by
  a constant (`math.sqrt(D_K)` with D_K = 64 at module level) that also wrote a read-only `global D_K` (or counts its
  calls in a global, or wears @lru_cache) lost its q02 points under "the scale worked out once and kept between
  calls ... holds the head size of the first call", false for it: without the `global` line the same notebook was
  named sqrt_precedence or left unnamed (repA.py: 4 q02 failures, all scale_cached_first_call). Now the state must
  hold a value the def computes (kept_state(written=True): a global assigned a value that does not read the name, an
  entry stored into a default or global, a fill call), and a decorator is no evidence: a cache of whole results keyed
  on the tensors cannot hand one scale to inputs of another d_k.
- **q11's rank replays quadratic in the grader.** raise_if_rank_einsum_letters_differ (new) and rank_on_constant_example
  (older, same condition: max_rank_S = 1) walked the cell's bindings afresh from every matrix_rank call the answer
  reads: `max_rank_S = min([int(torch.linalg.matrix_rank(_b))] * 4000 written out)` with `_b` a 20,000-term sum (220 KB,
  under the 500 KB code limit) spent 32 s of the grader's CPU on one test (check_cpu_s cut it, 30 s; timeB.py: 5.8 s
  and 4.8 s for 1000 calls of a 5000-term binding). A name one call reached without a hit has none for the next:
  the calls now share one seen-set, 0.1 s and 0.04 s.
- **A scale cache told a result buffer.** scaled-attention q8's attention_reused_in_heads renames mha_head_slice_fixed
  (every head the last head's) attention_result_reused where attention's source stores into a module-level name's
  items. The naming round's own right neighbour (`_scales[d_k] = 1.0 / math.sqrt(d_k)`, full marks alone) beside the
  last-head slice left in the loop was told "your attention (q1) writes its result into a tensor kept between calls
  (`_scales[d_k] = ...`)" on all three q8 failures (repC.py). Now a store or fill counts there only where the def
  returns the kept entry itself (`return buf, w` after `buf = CACHE[key]`; out= into a kept name as before).
"""
from __future__ import annotations

import importlib.util
import time
import types
from typing import Any

import pytest

from autograder.grading.grader import Grader
from tests.conftest import ROOT
from tests.heldout.harness import grade_cells

DEMO = ("\n\n_Q_demo = torch.tensor([[1.0, 0, 0, 0], [0, 1, 0, 0]])\n"
        "_K_demo = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [1, 1, 0, 0]])\n"
        "print(scaled_scores(_Q_demo, _K_demo))\n")


def _pipeline_diagnose() -> Any:
    path = ROOT / "assignments" / "attention-pipeline" / "hidden" / "_diagnose.py"
    spec = importlib.util.spec_from_file_location("_rt107_pipeline_diagnose", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("scores", [
    "D_K = 64\n\n\ndef scaled_scores(Q, K):\n    global D_K\n    return Q @ K.transpose(-2, -1) / math.sqrt(D_K)\n",
    "CALLS = 0\n\n\ndef scaled_scores(Q, K):\n    global CALLS\n    CALLS += 1\n    return Q @ K.transpose(-2, -1) / 8\n",
    "@functools.lru_cache(maxsize=None)\ndef scaled_scores(Q, K):\n    return Q @ K.transpose(-2, -1) / 8\n",
    "def scaled_scores(Q, K, dims=[-2, -1]):\n    return Q @ K.transpose(*dims) / 8\n",
], ids=["read_only_global", "call_counter", "lru_cache", "unused_mutable_default"])
def test_a_constant_scale_beside_state_that_keeps_no_scale_is_not_told_a_cache(grader: Grader, scores: str) -> None:
    cells = {"scaled_scores": ("import functools\n" if "functools" in scores else "") + scores + DEMO}
    outcome = grade_cells(grader, "attention-pipeline", cells, "rt107")
    assert outcome.failed and {q for q, _, _, _ in outcome.failed} == {"q02"}, outcome.failed
    assert all(k != "scale_cached_first_call" for _, _, k, _ in outcome.failed), outcome.failed


def test_a_scale_cached_in_a_global_is_still_told_so(grader: Grader) -> None:
    cells = {"scaled_scores": "_SCALE = None\n\n\ndef scaled_scores(Q, K):\n    global _SCALE\n    if _SCALE is None:\n"
                              "        _SCALE = math.sqrt(K.shape[-1])\n    return torch.matmul(Q, K.mT) / _SCALE\n" + DEMO}
    outcome = grade_cells(grader, "attention-pipeline", cells, "rt107")
    assert any(k == "scale_cached_first_call" for _, _, k, _ in outcome.failed), outcome.failed


def test_rank_replays_walk_a_shared_binding_once() -> None:
    D = _pipeline_diagnose()
    calls = ", ".join(["int(torch.linalg.matrix_rank(_b))"] * 2000)
    cell = ("_a = torch.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=torch.float64)\n"
            f"_b = sum([{', '.join(['_a'] * 5000)}]) / 5000\nmax_rank_S = min([{calls}])\n")
    submission = types.SimpleNamespace(cells=[cell])
    start = time.process_time()
    D.raise_if_rank_einsum_letters_differ(1, submission, "max_rank_S")
    assert D.rank_on_constant_example(submission, "max_rank_S") is None
    spent = time.process_time() - start
    assert spent < 4.0, f"{spent:.1f} s of CPU for 2000 calls of one binding (about 20 s when each walked it again)"
    # the shared walk still finds what one call reaches
    told = types.SimpleNamespace(cells=[cell.replace("/ 5000", "/ torch.ones(2, 2)") + "\n"])
    assert D.rank_on_constant_example(told, "max_rank_S") is not None
    crossed = types.SimpleNamespace(cells=["_Q = torch.rand(9, 4)\n_K = torch.rand(9, 4)\n"
                                           "_b = torch.einsum('td,sk->ts', _Q, _K)\n" + cell.split("\n", 2)[2]])
    with pytest.raises(Exception, match="rank_einsum_letters_differ|sum out a letter"):
        D.raise_if_rank_einsum_letters_differ(1, crossed, "max_rank_S")


def _scaled_attention_cells() -> tuple[dict[str, str], dict[str, str]]:
    path = ROOT / "tests" / "test_naming_scaled-attention_round60.py"
    spec = importlib.util.spec_from_file_location("_rt107_naming60", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LAST_SLICE_FIXED, module.REUSED_RIGHT["scale_cached_per_d_k"]


def test_a_scale_cache_beside_a_fixed_head_slice_is_not_told_a_reused_result(grader: Grader) -> None:
    last_slice, scale_cache = _scaled_attention_cells()
    outcome = grade_cells(grader, "scaled-attention", {**last_slice, **scale_cache}, "rt107")
    assert outcome.failed and all(k == "mha_head_slice_fixed" for _, _, k, _ in outcome.failed), outcome.failed
