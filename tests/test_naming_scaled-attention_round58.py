"""Naming scaled-attention's mistakes, round 58 (blind58's mis-named, uncaught and generic variants, the kinds).

padding_mask_past_queries: attention blocks every key past the last query (scores[:, T_q:] = -inf, masked_fill
with arange(T_k) >= T_q, or the softmax over the first T_q keys padded with zeros): named where both results of
the same call are that replay's (T_q = 5, T_k = 7), and with one query (where it leaves key 0 alone, as a causal
mask does) only by a second call with 3 queries and 6 keys; causal_mask_added needs that call too (a tril
mask is still named so: checked by hand, it fails on the larger inputs first). A mask that blocks nothing keeps
full marks.

scale_d_k_minus_one: dot_product_variance divides by sqrt(d_k - 1) (or its variance by d_k - 1), 1.09 at d_k = 12,
inside the 10% band: caught and named where the unscaled result of the same generator is exactly d_k - 1 times
the scaled one on both generators; another exact constant (sqrt(d_k + 1)) fails without this key; sqrt(d_k) and
var / d_k keep full marks.

entropy_as_kl_from_uniform: softmax_entropy returns ln T - H (sum p ln p + ln T, F.kl_div of the uniform's log
against p): named by replay on the same logits; ln T minus that divergence (the entropy itself) keeps full marks.

mha_tokens_attend_only_themselves: multi_head_attention runs attention on each token alone (a loop over Q[t:t + 1],
or every head's slices viewed as T one-token sequences): the result is X @ W_V @ W_O, named by replay; the loop
over heads on the whole (T, d_k) slices keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_named, grade_cells


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = Q @ K.transpose(0, 1) / math.sqrt(d_k)
{body}
    return weights @ V, weights
'''}


PADDING = {
    "masked_fill_arange": _attention("    pad = torch.arange(T_k) >= T_q\n"
                                     "    weights = F.softmax(scores.masked_fill(pad, float('-inf')), dim=-1)"),
    "slice_filled_minus_1e9": _attention("    scores = scores.clone()\n    scores[..., Q.shape[0]:] = -1e9\n"
                                         "    weights = torch.softmax(scores, dim=-1)"),
    "first_keys_softmax_zero_padded": _attention(
        "    n = min(T_q, T_k)\n    w = F.softmax(scores[:, :n], dim=-1)\n"
        "    weights = torch.cat([w, torch.zeros(T_q, T_k - n, dtype=w.dtype)], dim=1)"),
}
PADDING_RIGHT = {
    "mask_that_blocks_nothing": _attention("    pad = torch.arange(T_k) >= T_k\n"
                                           "    weights = F.softmax(scores.masked_fill(pad, float('-inf')), dim=-1)"),
}


def _variance(dtype: str, tail: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator{dtype})
    k = torch.randn(n_samples, d_k, generator=generator{dtype})
    dots = (q * k).sum(dim=-1)
{tail}
'''}


_F64 = ", dtype=torch.float64"
BESSEL = {
    "sqrt_of_d_k_minus_one": _variance("", "    if scaled:\n        dots = dots / math.sqrt(d_k - 1)\n"
                                           "    return dots.var().item()"),
    "variance_over_d_k_minus_one": _variance(_F64, "    v = float(dots.var())\n"
                                                   "    return v / (d_k - 1) if scaled else v"),
    "power_of_n_minus_one_float64": _variance(_F64, "    if scaled:\n        dots = dots * (d_k - 1) ** -0.5\n"
                                                    "    return dots.var().item()"),
}
BESSEL_RIGHT = {
    "pow_half": _variance("", "    if scaled:\n        dots = dots / d_k ** 0.5\n    return dots.var().item()"),
    "variance_over_d_k_float64": _variance(_F64, "    v = float(dots.var())\n    return v / d_k if scaled else v"),
}


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    T = logits.shape[-1]
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
{body}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


KL = {
    "log_t_minus_entropy": _entropy("    H = -(p * log_p).sum(dim=-1)\n    return math.log(T) - H"),
    "sum_p_log_p_plus_log_of_tensor": _entropy(
        "    return (p * log_p).sum(-1) + torch.log(torch.tensor(float(T), dtype=logits.dtype))"),
    "kl_div_against_uniform": _entropy(
        "    u = torch.full_like(p, 1.0 / T)\n    return F.kl_div(u.log(), p, reduction='none').sum(dim=-1)"),
}
KL_RIGHT = {
    "log_t_minus_kl_div": _entropy(
        "    u = torch.full_like(p, 1.0 / T)\n    return math.log(T) - F.kl_div(u.log(), p, reduction='none').sum(-1)"),
}


def _mha(body: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
{body}
'''}


OWN_TOKEN = {
    "heads_then_tokens_loop": _mha(
        "    heads = []\n    for h in range(n_heads):\n        c = slice(h * d_k, (h + 1) * d_k)\n"
        "        rows = [attention(Q[t:t + 1, c], K[t:t + 1, c], V[t:t + 1, c], d_k)[0] for t in range(T)]\n"
        "        heads.append(torch.cat(rows, dim=0))\n    return torch.cat(heads, dim=-1) @ W_O"),
    "unsqueezed_rows_stacked": _mha(
        "    out = []\n    for t in range(T):\n"
        "        parts = [attention(Q[t, h * d_k:(h + 1) * d_k].unsqueeze(0), K[t, h * d_k:(h + 1) * d_k].unsqueeze(0),\n"
        "                           V[t, h * d_k:(h + 1) * d_k].unsqueeze(0), d_k)[0] for h in range(n_heads)]\n"
        "        out.append(torch.cat(parts, dim=-1))\n    return torch.cat(out, dim=0) @ W_O"),
}
OWN_TOKEN_RIGHT = {
    "heads_on_whole_slices": _mha(
        "    heads = []\n    for h in range(n_heads):\n        c = slice(h * d_k, (h + 1) * d_k)\n"
        "        heads.append(attention(Q[:, c], K[:, c], V[:, c], d_k)[0])\n    return torch.cat(heads, dim=-1) @ W_O"),
}


@pytest.mark.parametrize("name", sorted(PADDING))
def test_padding_mask_past_queries_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", PADDING[name], f"round58_{name}")
    assert_named(outcome, "padding_mask_past_queries", "q1")
    tests = {t for _q, t, _k, _m in outcome.failed}
    assert {"test_float64_weights", "test_float64_output"} <= tests, outcome.explain()


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_scale_d_k_minus_one_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", BESSEL[name], f"round58_{name}")
    assert_named(outcome, "scale_d_k_minus_one", "q2")
    assert all("d_k - 1 = 11" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_other_exact_scale_fails_without_the_key(grader):
    # sqrt(d_k + 1): 0.92 at d_k = 12, inside the band too; caught as a scale that is not sqrt(d_k), not named n - 1
    cells = _variance("", "    if scaled:\n        dots = dots / math.sqrt(d_k + 1)\n    return dots.var().item()")
    outcome = grade_cells(grader, "scaled-attention", cells, "round58_sqrt_d_k_plus_one")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "scale_d_k_minus_one" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(KL))
def test_entropy_as_kl_from_uniform_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", KL[name], f"round58_{name}")
    assert_named(outcome, "entropy_as_kl_from_uniform", "q4")


@pytest.mark.parametrize("name", sorted(OWN_TOKEN))
def test_tokens_attending_only_themselves_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", OWN_TOKEN[name], f"round58_{name}")
    assert_named(outcome, "mha_tokens_attend_only_themselves", "q8")


RIGHT = {**PADDING_RIGHT, **BESSEL_RIGHT, **KL_RIGHT, **OWN_TOKEN_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round58_{name}")
    assert outcome.full_marks, outcome.explain()
