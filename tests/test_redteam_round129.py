"""Red-team round 129: the grader's work beside a request (session.beside_next_request) and the cases re-drawn or
re-tolerated for honest arithmetic (attention-pipeline q05/q07, scaled-attention q2's replayed right estimates).

1. The submission's deadline passing while the grader worked beside a request. The read of the reply first asks
   `_budget`, which raises WorkerTimeout once the deadline is past, before the read that kills the worker on a
   timeout: the worker was left running the request. Measured: deadline 0.05 s on, an aside of 1 s beside a call
   (the timing rule's reference sums, q07's variants take milliseconds to seconds): WorkerTimeout, the session alive,
   and once the deadline had moved on (the run-queue credit on a loaded host does that) the next call read the stale
   reply and ended the worker as a forger (ProtocolError "the worker sent a reply out of turn"). The window had been
   the microseconds between `_send` and `_budget`; the aside widened it to its own length. Now `_reply_budget` kills
   the worker where a read's budget is already spent.

2. scaled-attention q2: `raise_if_scale_not_d_k` returned early when both scaled estimates were right replays, so the
   unscaled calls on the same generators were no longer made; they were the only evidence against an unscaled result
   off by an in-band constant. Measured: `return v / d_k if scaled else v * 1.05` scored 28/28 (27/28 at ab18a07);
   `v * (d_k - 1) / d_k` unscaled 28/28 (27/28 before, named scale_d_k_minus_one though the scale was right). Now the
   unscaled calls are made again, and where the scaled values are right replays the message says the unscaled result
   is off (no misconception key: the scale is right).

3. attention-pipeline q07: the float16 causal case's last token has a zero query now, and that row, where the large
   key met the large query, was the only place an unstable softmax (no maximum subtracted) overflowed. Measured: a
   self_attention with exp(S) / sum written inline scored 42/42 at three grading seeds (41/42 at ab18a07); in-process
   `_causal_float16` passed it on 10 of 10 rng seeds. Now the case also grades a second float16 input
   (D.float16_large_self_score_input): token 0's only key under the mask scores 14 with it (exp(14) is past float16's
   range; the weight is 1 exactly for honest code) and the later tokens' queries are 0; drawn where honest float16
   arithmetic is right, like the first."""
from __future__ import annotations

import math
import time

import pytest
import torch

from autograder.errors import ProtocolError, WorkerCrashed, WorkerTimeout
from autograder.grading.runner import TrustedProxy
from autograder.sandbox import SandboxPolicy
from autograder.sandbox.session import beside_next_request
from reference import attention_pipeline as ref
from tests.conftest import course_zygote, worker_after
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

q07 = load("attention-pipeline", "q07", "q07_round129")
STAGES = {name: TrustedProxy(getattr(ref, name), "cpu", name=name) for name in q07.STAGES}


# --- 1. the deadline passing beside a request

@pytest.mark.sandbox
def test_a_deadline_spent_beside_a_request_ends_the_worker_instead_of_leaving_its_reply_for_the_next():
    cell = "import time\ndef slow_double(x):\n    time.sleep(0.2)\n    return x * 2\n"
    with course_zygote() as zygote, worker_after(zygote, SandboxPolicy(submission_timeout_s=60, call_timeout_s=20),
                                                 [cell]) as session:
        f = session.resolve("slow_double", "cpu")
        session.deadline = time.monotonic() + 0.05
        with beside_next_request(lambda: time.sleep(1.0)):
            with pytest.raises(WorkerTimeout):
                f(torch.ones(2))
        assert not session.alive()       # not left running the request whose reply nobody reads
        session.deadline = time.monotonic() + 30      # moved on (the run-queue credit of a loaded host)
        with pytest.raises(WorkerCrashed) as raised:
            f(torch.ones(3))
        assert not isinstance(raised.value, ProtocolError), raised.value   # not a forger


# --- 2. scaled-attention q2: an unscaled result off by an in-band constant

def _variance(tail: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
{tail}
'''}


@pytest.mark.parametrize(("name", "factor"), [("times_1_05", "1.05"), ("times_d_k_minus_one_over_d_k", "(d_k - 1) / d_k")])
def test_an_unscaled_result_off_by_an_in_band_constant_loses_a_point(grader, name, factor):
    cells = _variance(f"    v = dots.var().item()\n    return v / d_k if scaled else v * {factor}")
    outcome = grade_cells(grader, "scaled-attention", cells, f"round129_{name}")
    assert outcome.score == outcome.max_score - 1, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] in ([("q2", None)], [("q2", "one_edit_fix")]), outcome.explain()
    assert all("without the flag" in m for *_, m in outcome.failed), outcome.explain()


# --- 3. attention-pipeline q07: an unstable softmax in float16

def _future(T: int) -> torch.Tensor:
    return torch.triu(torch.ones(T, T, dtype=torch.bool), 1)


def softmax_without_max(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = (Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])).masked_fill(_future(X.shape[-2]), float("-inf"))
    E = torch.exp(S)
    A = E / E.sum(dim=-1, keepdim=True)
    return A @ V, A


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_the_causal_float16_case_fails_a_softmax_without_its_maximum_subtracted(seed):
    with pytest.raises(AssertionError, match="NaN or inf"):
        q07._causal_float16(TrustedProxy(softmax_without_max, "cpu", name="self_attention"), STAGES,
                            torch.Generator().manual_seed(seed))


def test_the_large_self_score_input_is_right_for_honest_float16_arithmetic():
    for seed in range(40):
        rng = torch.Generator().manual_seed(seed)
        X, W = q07.D.float16_large_self_score_input(rng, lambda rng=rng: q07._weights(rng, 7, 12, 5, torch.float64))
        assert q07.D.honest_float16_right(X, W), seed
        S = (X.double() @ W[0].double()) @ (X.double() @ W[1].double()).T / math.sqrt(12)
        assert float(S[0, 0]) > math.log(float(torch.finfo(torch.float16).max)), seed    # exp of it overflows


def test_the_inline_unstable_softmax_loses_its_point_in_a_whole_notebook(grader):
    cells = {"self_attention": '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)
    E = torch.exp(S)
    A = E / E.sum(dim=-1, keepdim=True)
    return A @ V, A
'''}
    outcome = grade_cells(grader, "attention-pipeline", cells, "round129_inline_softmax_without_max")
    assert outcome.score == outcome.max_score - 1, outcome.explain()
    assert [(q, t) for q, t, _k, _m in outcome.failed] == [("q07", "test_batched_float32_and_float16")], outcome.explain()
