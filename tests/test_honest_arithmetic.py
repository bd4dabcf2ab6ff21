"""Right code computed another honest way keeps its points on every draw (a sweep of correct notebooks over random
grading seeds found both: one point lost, a few grades in a hundred).

sdpa-from-scratch q5's bfloat16 case: the full-marks notebook's own arithmetic lost test_bfloat16 on 1 draw in 3000
(seed 2485231233733315709 for a held-out correct variant with the same arithmetic); the case now draws again where
five honest ways of computing in bfloat16 are not all within 3/4 of the tolerance (4 draws in 3000).

attention-pipeline q05's large float32 scores: exp(S - logsumexp(S)) (a correct held-out variant) is right only to
float32's precision at the scores' size (~3000 * 1.2e-7), and lost test_weights_large_float32 on 182 of 3000 draws
at float32's tolerance (1e-5); the case's own rtol is twice that precision. The rng seeds below are draws it failed.

attention-pipeline q07's float16 causal case: the token with the large key (masked for the earlier queries, the point
of the case) had a large query too, and its own row was too hard for float16; its query is now 0, and a draw is kept
only where honest float16 arithmetic is right (a log-sum-exp softmax lost the point at seed 134038935266624296 after
the first mend, which kept draws by four ways of computing only).

Before, rounded to float16 each, that query and key gave a self-score up to 0.14 off, and the lesson's own code run in
float16 moved that row of O past the float16 tolerance on about 1 draw in 100 (a full-marks notebook graded 41/42 at
seed 659037129289577220). The rng seeds below are draws on which the lesson's float16 run had failed. In-process,
without the runner, an answer equal to the reference composed of the stages is excused (charged_in_parts), so the
lesson's own code is graded here through whole notebooks; queries scaled before the product failed the case
in-process at each of these seeds before."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.grading.runner import TrustedProxy
from reference import attention_pipeline as ref
from reference import sdpa_from_scratch as ref_sdpa
from tests.heldout.harness import grade_cells, load_variants
from tests.hidden_modules import load

q07 = load("attention-pipeline", "q07", "q07_honest_arithmetic")
q05 = load("attention-pipeline", "q05", "q05_honest_arithmetic")
STAGES = {name: TrustedProxy(getattr(ref, name), "cpu", name=name) for name in q07.STAGES}


def _future(T: int) -> torch.Tensor:
    return torch.triu(torch.ones(T, T, dtype=torch.bool), 1)


def queries_scaled_first(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = (Q / math.sqrt(Q.shape[-1])) @ K.transpose(-2, -1)
    if causal:
        S = S.masked_fill(_future(X.shape[-2]), float("-inf"))
    A = torch.softmax(S, dim=-1)
    return A @ V, A


def softmax_written_out(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if causal:
        S = S.masked_fill(_future(X.shape[-2]), float("-inf"))
    E = torch.exp(S - S.amax(dim=-1, keepdim=True))
    A = E / E.sum(dim=-1, keepdim=True)
    return A @ V, A


@pytest.mark.parametrize("fn", [queries_scaled_first, softmax_written_out], ids=lambda f: f.__name__)
@pytest.mark.parametrize("seed", [11, 141, 390, 507])
def test_honest_float16_code_passes_the_causal_float16_case(fn, seed):
    q07._causal_float16(TrustedProxy(fn, "cpu", name="self_attention"), STAGES, torch.Generator().manual_seed(seed))


def projected_by_broadcast_products(X, W_Q, W_K, W_V, causal=True):
    # each product rounded to float16, then summed: blind26's q01 variant with its one edit made (sum over -2)
    Q, K, V = ((X.unsqueeze(-1) * W).sum(dim=-2) for W in (W_Q, W_K, W_V))
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if causal:
        S = S.masked_fill(_future(X.shape[-2]), float("-inf"))
    A = torch.softmax(S, dim=-1)
    return A @ V, A


@pytest.mark.parametrize("seed", [0, 1, 2, 5, 6, 7])
def test_projections_by_broadcast_products_pass_the_causal_float16_case(seed):
    # the last token's query was 0 only up to rounding (W_Q without its direction): the residue of a broadcast product
    # met the large key, and a right notebook lost q07's point at 2 grading seeds in 5 (12-06). It is one feature now,
    # and W_Q's row for it 0: exactly 0 however it is projected. Failed in-process at 158 of the first 200 rng seeds
    q07._causal_float16(TrustedProxy(projected_by_broadcast_products, "cpu", name="self_attention"), STAGES,
                        torch.Generator().manual_seed(seed))


def test_the_mask_after_the_softmax_still_fails_it():
    def mask_after_softmax(X, W_Q, W_K, W_V, causal=True):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        A = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1)
        if causal:
            A = A.masked_fill(_future(X.shape[-2]), 0.0)
            A = A / A.sum(dim=-1, keepdim=True)
        return A @ V, A
    for seed in (11, 141, 390, 507):
        with pytest.raises(AssertionError):
            q07._causal_float16(TrustedProxy(mask_after_softmax, "cpu", name="self_attention"), STAGES,
                                torch.Generator().manual_seed(seed))


@pytest.mark.sandbox
@pytest.mark.parametrize(("variant", "seed"), [("full_marks", 659037129289577220), ("full_marks", 373119011951552129),
                                               ("weights_exp_minus_logsumexp", 134038935266624296)])
def test_right_notebooks_keep_every_point_at_the_seeds_they_lost_one(grader, variant, seed):
    cells = {} if variant == "full_marks" else next(v.cells for v in load_variants("attention-pipeline")
                                                    if v.name == variant and v.correct)
    outcome = grade_cells(grader, "attention-pipeline", cells, variant, seed=seed)
    assert outcome.score == outcome.max_score, outcome.failed


def weights_by_logsumexp(S, M=None):
    Z = S if M is None else S + M
    return torch.exp(Z - torch.logsumexp(Z, dim=-1, keepdim=True))


@pytest.mark.parametrize("seed", [30, 59, 80, 90, 101, 118])
def test_log_sum_exp_weights_pass_the_large_float32_scores(seed):
    q05.test_weights_large_float32.test_func(TrustedProxy(weights_by_logsumexp, "cpu", name="attention_weights"),
                                             torch.Generator().manual_seed(seed))


def test_weights_without_the_max_subtracted_still_fail_them():
    def no_max(S, M=None):
        Z = S if M is None else S + M
        E = torch.exp(Z)
        return E / E.sum(dim=-1, keepdim=True)
    with pytest.raises(AssertionError):
        q05.test_weights_large_float32.test_func(TrustedProxy(no_max, "cpu", name="attention_weights"),
                                                 torch.Generator().manual_seed(30))


@pytest.mark.sandbox
def test_the_sdpa_full_marks_notebook_keeps_the_bfloat16_point_at_the_seed_it_lost_it(grader):
    outcome = grade_cells(grader, "sdpa-from-scratch", {}, "bfloat16-draw", seed=2485231233733315709)
    assert outcome.score == outcome.max_score, outcome.failed


def test_the_bfloat16_draw_is_fair_to_each_honest_way():
    diag = load("sdpa-from-scratch", "_diagnose", "sdpa_diagnose_honest_arithmetic")
    for seed in range(200):
        Q, K, V, mask = diag.honest_qkv_mask(torch.Generator().manual_seed(seed), (2, 3, 10, 32), (2, 3, 10, 10),
                                             torch.bfloat16)
        want = ref_sdpa.scaled_dot_product_attention(Q, K, V, mask).double()
        for got in diag.honest_ways(Q, K, V, mask):
            assert torch.allclose(got.double(), want, rtol=4e-2 * 0.75, atol=2e-2 * 0.75), seed


def test_a_softmax_in_float16_fails_the_large_float32_scores_by_its_row_of_small_scores():
    # red-team round 129: the case's one rtol (2 eps max|S|, about 8e-4) let it pass; each row is now held to its own
    # scores' precision, and its uniform row of tiny scores is 2.4e-4 off relatively where 1e-5 is allowed
    def softmax_in_half(S, M=None):
        Z = S if M is None else S + M
        return torch.softmax(Z.half(), dim=-1).to(Z.dtype)
    for seed in (0, 1, 2):   # seeds at which it passed before (0-19 all did)
        with pytest.raises(AssertionError) as failed:
            q05.test_weights_large_float32.test_func(TrustedProxy(softmax_in_half, "cpu", name="attention_weights"),
                                                     torch.Generator().manual_seed(seed))
        # then named by the catalogue, as a failed value is: the softmax computed in float16
        assert getattr(failed.value, "key", None) == "softmax_low_precision", str(failed.value)[:300]
