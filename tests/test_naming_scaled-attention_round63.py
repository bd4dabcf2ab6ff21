"""Naming scaled-attention's mistakes, round 63 (blind63's optimisations that changed the result, the kinds).

online_softmax_rescale_wrong: attention runs a blocked (online, FlashAttention-style) softmax over key blocks and
rescales the running sum and accumulator by exp(m_new - m) instead of exp(m - m_new), or not at all, when a later
block raises a row's maximum: named where the output is the replay of that blocked softmax for a block size the
source writes (a constant in a function with a loop and an exp), the weights that replay's or the right ones; the
right rescale keeps full marks. weights_not_normalised is no longer said of it (the rows are divided by a sum of
the exps, a wrong one: that key now needs the output to be those weights times V, or the right one).

mha_fused_qkv_rows_stacked: multi_head_attention fuses the projections with torch.cat([W_Q, W_K, W_V]) along the
rows (no dim, dim=0, torch.vstack) and raises in X @ W_QKV: named where X @ torch.cat(...) (rows) raises the same
words and the source concatenates the three weight parameters along the rows; dim=1 (or -1, hstack) keeps full
marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _online(loop: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    S_all = (Q @ K.T) / math.sqrt(d_k)
{loop}
    return acc / l, torch.exp(S_all - m) / l
'''}


_WHILE = '''    T_k = K.shape[0]
    m = S_all[:, :3].amax(dim=-1, keepdim=True)             # the first block's maximum
    l = torch.zeros(Q.shape[0], 1, dtype=Q.dtype)
    acc = torch.zeros(Q.shape[0], V.shape[1], dtype=Q.dtype)
    start = 0
    while start < T_k:
        S = S_all[:, start:start + 3]
        m_new = torch.maximum(m, S.max(dim=-1, keepdim=True).values)
        scale_old = {factor}
        p = torch.exp(S - m_new)
        l = scale_old * l + p.sum(-1, keepdim=True)
        acc = scale_old * acc + p @ V[start:start + 3]
        m = m_new
        start += 3'''

_FOR = '''    BLOCK = 2
    m = l = acc = None
    for j in range(0, K.shape[0], BLOCK):
        S = S_all[:, j:j + BLOCK]
        if m is None:
            m = S.amax(-1, keepdim=True)
            e = (S - m).exp()
            l, acc = e.sum(-1, keepdim=True), e @ V[j:j + BLOCK]
        else:
            m_new = torch.max(m, S.amax(-1, keepdim=True))
            e = (S - m_new).exp()
            c = {factor}
            l = l * c + e.sum(-1, keepdim=True)
            acc = acc * c + e @ V[j:j + BLOCK]
            m = m_new'''

ONLINE = {
    "while_blocks_of_three_inverted": _online(_WHILE.format(factor="torch.exp(m_new - m)")),
    "for_blocks_of_two_inverted_method": _online(_FOR.format(factor="(m_new - m).exp()")),
    "for_blocks_of_two_not_rescaled": _online(_FOR.format(factor="1.0")),
}
ONLINE_RIGHT = {
    "while_blocks_of_three_rescaled": _online(_WHILE.format(factor="torch.exp(m - m_new)")),
    "for_blocks_of_two_rescaled": _online(_FOR.format(factor="(m - m_new).exp()")),
}


def _mha(fuse: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    W_in = {fuse}
    Q, K, V = torch.split(X @ W_in, d_model, dim=-1)
    outs = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
            for h in range(n_heads)]
    return torch.cat(outs, dim=-1) @ W_O
'''}


ROWS = {
    "vstack_tuple": _mha("torch.vstack((W_Q, W_K, W_V))"),
    "cat_dim_zero_keyword": _mha("torch.cat((W_Q, W_K, W_V), dim=0)"),
    "concat_positional_zero": _mha("torch.concat([W_Q, W_K, W_V], 0)"),
}
ROWS_RIGHT = {
    "cat_last_dim": _mha("torch.cat([W_Q, W_K, W_V], dim=-1)"),
    "hstack": _mha("torch.hstack((W_Q, W_K, W_V))"),
}


@pytest.mark.parametrize("name", sorted(ONLINE))
def test_online_softmax_rescale_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ONLINE[name], f"round63_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert len(q1) >= 3 and all(k == "online_softmax_rescale_wrong" for k, _m in q1), outcome.explain()
    assert all(k != "weights_not_normalised" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any("replayed over key blocks of" in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(ROWS))
def test_fused_weights_stacked_along_rows_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ROWS[name], f"round63_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q8", "mha_fused_qkv_rows_stacked")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("dim=1" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


RIGHT = {**ONLINE_RIGHT, **ROWS_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round63_{name}")
    assert outcome.full_marks, outcome.explain()
