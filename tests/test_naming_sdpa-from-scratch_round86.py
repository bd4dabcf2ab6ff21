"""sdpa-from-scratch, naming round 86 (after blind86: log-space, online and blockwise formulations, and blind87: code
written for training): ten kinds said without a name, loosely or mis-named are named now, each by its evidence.
q1 (probe_key_count_not_the_questions before, mis-named): weights_shape (B, T_q, 1), one number per query, the shape
of a reduction over the keys kept with keepdim=True (the log-sum-exp a memory-efficient kernel stores, a row max or
sum): weights_shape_per_query_statistic, by the replay right[:2] + (1,).
q1 (output_width_dk before, mis-named): out_shape (B, T_q, 64) where the cell gives the width as a model width (a
name such as d_model or embed_dim in the tuple's last place) or speaks of an output projection (nn.Linear, out_proj,
W_O): output_after_projection; a width written d_k keeps output_width_dk.
q8 (no key before): score_madds = 3 T^2 d_k with a factor 3 in its assignment or a cell that speaks of the backward
pass: madds_training_step.
q8 (cost_linear_in_T before, mis-named): cost_ratio = 2 from a batch held at a fixed token budget (budget // T
sequences): cost_ratio_fixed_token_budget; a bare 2 keeps cost_linear_in_T.
q3 (weights_not_normalised before, loose): an online (one-pass) softmax over blocks whose running sum is never
rescaled when a later block raises the max (online_sum_not_rescaled) or is rescaled by exp(m_new - m_old)
(online_sum_rescale_inverted), by the replay on every block size 1-16, 32, 64, 128.
q5 (one_edit_fix, no key or not_vectorised before): an online attention over key blocks whose running output is not
rescaled with the running sum (online_output_not_rescaled), whose 1/sqrt(d_k) is folded into Q inside the loop and
compounds per block (scale_compounds_per_block), or whose running max of -inf is used as the shift, so a query whose
first blocks are all masked turns NaN (online_max_unguarded), each by the replay of that loop on the test's input.
q4 (no key before): a causal mask built in tiles with the tile's triangle in every tile at or left of the diagonal
(tile_triangle_below_diagonal), by the replay on tiles of 2 to 32.
Each kind is graded through the sandbox on variants of its own, with right neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


def _shapes(body: str) -> dict[str, str]:
    """Question 1's cell, written as `body` (it binds weights_shape and out_shape)."""
    return {"weights_shape": body}


def _counts(body: str) -> dict[str, str]:
    """Question 8's cell, written as `body` (it binds attn_entries, score_madds and cost_ratio)."""
    return {"attn_entries": body}


_RIGHT_COUNTS = "T, d_k = 1024, 64\nattn_entries = T * T\nscore_madds = T * T * d_k\n"

WRONG = {
    "weights_shape_per_query_statistic": ("q1", "one number per query", [
        # the row max kept with keepdim, from a probe
        _shapes("Qp, Kp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64)\n"
                "row_max = (Qp @ Kp.transpose(-2, -1)).amax(dim=-1, keepdim=True)\n"
                "weights_shape = tuple(row_max.shape)\nout_shape = (4, 10, 128)\n"),
        # typed: the normaliser's shape, one sum per query
        _shapes("B, T_q, T_k = 4, 10, 10\n# the weights are stored as their row sums\n"
                "weights_shape = (B, T_q, 1)\nout_shape = (B, T_q, 128)\n"),
    ]),
    "output_after_projection": ("q1", "output projection", [
        # a model width named in the tuple
        _shapes("B, T, embed_dim, d_v = 4, 10, 64, 128\nweights_shape = (B, T, T)\nout_shape = (B, T, embed_dim)\n"),
        # a projection layer in the cell, the width typed
        _shapes("proj = torch.nn.Linear(128, 64)  # W_O back to the residual stream\n"
                "weights_shape = (4, 10, 10)\nout_shape = (4, 10, 64)\n"),
    ]),
    "madds_training_step": ("q8", "3 x T^2 x d_k", [
        # a literal 3 in the assignment
        _counts("T, d_k = 1024, 64\nattn_entries = T * T\nscore_madds = T * T * d_k * 3\ncost_ratio = 4\n"),
        # a helper that adds the backward's two products
        _counts("T, d_k = 1024, 64\nattn_entries = T * T\n"
                "def fwd_bwd(n, d):\n    fwd = n * n * d\n    return fwd + 2 * fwd  # backward: dQ and dK\n"
                "score_madds = fwd_bwd(T, d_k)\ncost_ratio = fwd_bwd(2 * T, d_k) // fwd_bwd(T, d_k)\n"),
    ]),
    "cost_ratio_fixed_token_budget": ("q8", "token budget", [
        # a budget name divided by the length inside a helper
        _counts(_RIGHT_COUNTS + "budget = 32768\ndef per_batch(n):\n    return (budget // n) * n * n * d_k\n"
                "cost_ratio = per_batch(2 * T) // per_batch(T)\n"),
        # a lambda for the sequences per batch, the budget a number
        _counts(_RIGHT_COUNTS + "seqs = lambda n: 65536 / n\n"
                "cost_ratio = int(seqs(2 * T) * (2 * T) * (2 * T) * d_k / (seqs(T) * score_madds))\n"),
    ]),
}

def _online(block: str, loop: str, update: str, shift: str = "torch.where(torch.isneginf(m_new), 0.0, m_new)",
            before: str = "", score: str = "(Q @ Kb.transpose(-2, -1)) * scale") -> dict[str, str]:
    """Attention as an online softmax over key blocks of `block` keys (`loop` binds Kb, Vb and the mask's slice
    Mb per block), `update` the lines that fold a block's p into l and acc, `shift` the block's shift."""
    return {"scaled_dot_product_attention": (
        f"def scaled_dot_product_attention(Q, K, V, mask=None):\n    B = {block}\n"
        "    scale = 1.0 / math.sqrt(Q.shape[-1])\n"
        "    full = None if mask is None else mask.expand(*torch.broadcast_shapes(mask.shape, "
        "(Q @ K.transpose(-2, -1)).shape))\n"
        "    m = l = acc = None\n" + before + loop +
        f"        s = {score}\n"
        "        if Mb is not None:\n            s = s.masked_fill(~Mb, float('-inf'))\n"
        "        m_new = s.amax(-1, keepdim=True) if m is None else torch.maximum(m, s.amax(-1, keepdim=True))\n"
        f"        c = {shift}\n        p = torch.exp(s - c)\n"
        "        if m is None:\n            l, acc = p.sum(-1, keepdim=True), p @ Vb\n"
        "        else:\n            a = torch.exp(m - c)\n" + update +
        "        m = m_new\n"
        "    out = acc / torch.where(l == 0, torch.ones_like(l), l)\n"
        "    if full is not None:\n        out = out.masked_fill(~full.any(-1, keepdim=True), 0.0)\n"
        "    return out\n")}


_SPLIT = ("    for i, (Kb, Vb) in enumerate(zip(K.split(B, dim=-2), V.split(B, dim=-2))):\n"
          "        Mb = None if full is None else full[..., i * B:(i + 1) * B]\n")
_RANGE = ("    for j in range(0, K.shape[-2], B):\n        Kb, Vb = K[..., j:j + B, :], V[..., j:j + B, :]\n"
          "        Mb = None if full is None else full[..., j:j + B]\n")
_RIGHT_UPDATE = "            l = a * l + p.sum(-1, keepdim=True)\n            acc = a * acc + p @ Vb\n"

WRONG_ONLINE = {
    "online_output_not_rescaled": [
        _online("3", _SPLIT, "            l = a * l + p.sum(-1, keepdim=True)\n            acc = acc + p @ Vb\n"),
        _online("5", _RANGE, "            l = l * a + p.sum(-1, keepdim=True)\n            acc += p @ Vb\n"),
    ],
    "scale_compounds_per_block": [
        _online("3", _SPLIT, _RIGHT_UPDATE, before="", score="(Q := Q * scale) @ Kb.transpose(-2, -1)"),
        _online("5", _RANGE.replace("        Mb", "        Q = Q / math.sqrt(Q.shape[-1])\n        Mb"),
                _RIGHT_UPDATE, score="Q @ Kb.transpose(-2, -1)"),
    ],
    "online_max_unguarded": [
        _online("3", _SPLIT, _RIGHT_UPDATE, shift="m_new"),
        _online("4", _RANGE, _RIGHT_UPDATE, shift="m_new.clone()"),
    ],
}

def _online_softmax(block: int, update: str) -> dict[str, str]:
    """stable_softmax as an online normaliser over blocks of `block` entries; `update` folds a block `b` into the
    running max `m` and sum `s` (it may bind m_new)."""
    return {"stable_softmax": (
        "def stable_softmax(x, dim=-1):\n    z = torch.movedim(x, dim, -1)\n"
        "    m = torch.full_like(z[..., :1], float('-inf'))\n    s = torch.zeros_like(m)\n"
        f"    for b in torch.split(z, {block}, dim=-1):\n" + update +
        "    c = torch.where(torch.isinf(m), torch.zeros_like(m), m)\n"
        "    return torch.movedim(torch.exp(z - c) / s, -1, dim)\n")}


_SAFE = "torch.where(torch.isinf({0}), torch.zeros_like({0}), {0})"
WRONG_SOFTMAX = {
    "online_sum_not_rescaled": [
        # the max overwritten, then the rescale taken against itself
        _online_softmax(3, "        m = torch.maximum(m, b.amax(-1, keepdim=True))\n"
                           f"        c = {_SAFE.format('m')}\n"
                           "        s = s * torch.exp(m - c) + torch.exp(b - c).sum(-1, keepdim=True)\n"),
        # no rescale at all
        _online_softmax(2, "        m_new = torch.maximum(m, b.amax(-1, keepdim=True))\n"
                           f"        s = s + torch.exp(b - {_SAFE.format('m_new')}).sum(-1, keepdim=True)\n"
                           "        m = m_new\n"),
    ],
    "online_sum_rescale_inverted": [
        _online_softmax(3, "        m_new = torch.maximum(m, b.amax(-1, keepdim=True))\n"
                           f"        c, o = {_SAFE.format('m_new')}, {_SAFE.format('m')}\n"
                           "        s = s * torch.exp(c - o) + torch.exp(b - c).sum(-1, keepdim=True)\n"
                           "        m = m_new\n"),
        _online_softmax(2, "        m_new = torch.maximum(m, b.amax(-1, keepdim=True))\n"
                           f"        c, o = {_SAFE.format('m_new')}, {_SAFE.format('m')}\n"
                           "        s = s / torch.exp(o - c) + torch.exp(b - c).sum(-1, keepdim=True)\n"
                           "        m = m_new\n"),
    ],
}

def _tiled(n: int, below: str) -> dict[str, str]:
    """causal_mask built in n x n tiles: the diagonal tiles get the triangle, the tiles below get `below`."""
    return {"causal_mask": (
        "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
        f"    n = {n}\n    tri = torch.ones(n, n, dtype=torch.bool).tril()\n"
        "    out = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
        "    for r in range(0, T_q, n):\n        for c in range(0, min(r + n, T_k), n):\n"
        "            h, w = min(n, T_q - r), min(n, T_k - c)\n"
        f"            out[r:r + h, c:c + w] = tri[:h, :w] if c == r else {below}\n"
        "    return out\n")}


WRONG_TILES = [
    _tiled(3, "tri[:h, :w]"),
    # the same, as one formula over tile and in-tile positions
    {"causal_mask": "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
                    "    i, j = torch.arange(T_q)[:, None], torch.arange(T_k)[None, :]\n"
                    "    return (j // 2 <= i // 2) & (j % 2 <= i % 2)\n"},
]

CORRECT = [
    # tiles below the diagonal all True
    _tiled(3, "torch.ones(h, w, dtype=torch.bool)"),
    # the online normaliser right, in blocks of 16 (q3's rows of 24 take two)
    _online_softmax(16, "        m_new = torch.maximum(m, b.amax(-1, keepdim=True))\n"
                        f"        c = {_SAFE.format('m_new')}\n"
                        "        s = s * torch.exp(m - c) + torch.exp(b - c).sum(-1, keepdim=True)\n"
                        "        m = m_new\n"),
    # the online loop right, in blocks of 64 (one block on the value tests, two on the timed ones)
    _online("64", _SPLIT, _RIGHT_UPDATE),
    _online("64", _RANGE, _RIGHT_UPDATE, score="(Q * scale) @ Kb.transpose(-2, -1)"),
    # a keepdim statistic computed beside the right shape
    _shapes("Qp, Kp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64)\nS = Qp @ Kp.transpose(-2, -1)\n"
            "lse = torch.logsumexp(S, dim=-1, keepdim=True)\nweights_shape = tuple((S - lse).shape)\n"
            "out_shape = (4, 10, 128)\n"),
    # an output projection spoken of, the width right
    _shapes("# no out_proj = nn.Linear here: attention alone\nB, T, d_model, d_v = 4, 10, 64, 128\n"
            "weights_shape = (B, T, T)\nout_shape = (B, T, d_v)\n"),
    # the backward spoken of, the count right
    _counts("T, d_k = 1024, 64\nattn_entries = T * T\n# forward only (the backward would be 3x)\n"
            "score_madds = T * T * d_k\ncost_ratio = (2 * T) ** 2 // T ** 2\n"),
    # a token budget that cancels: one sequence's count at each length
    _counts(_RIGHT_COUNTS + "tokens = 65536\ndef one_seq(n):\n    return n * n * d_k\n"
            "cost_ratio = one_seq(2 * T) // one_seq(T)\n"),
]

_graded = graded_as("sdpa-from-scratch", "round86")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, words, c) for k, (w, words, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _words, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


def test_a_width_written_d_k_keeps_output_width_dk(grader):
    keys = failed_keys(_graded(grader, _shapes("B, T, d_k, d_v = 4, 10, 64, 128\nweights_shape = (B, T, T)\n"
                                               "out_shape = (B, T, d_k)\n")))
    assert "output_width_dk" in keys and "output_after_projection" not in keys, keys


def test_a_bare_two_keeps_cost_linear_in_t(grader):
    keys = failed_keys(_graded(grader, _counts(_RIGHT_COUNTS + "cost_ratio = 2\n")))
    assert "cost_linear_in_T" in keys and "cost_ratio_fixed_token_budget" not in keys, keys


@pytest.mark.parametrize("cells", CORRECT, ids=range(len(CORRECT)))
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))


@pytest.mark.parametrize("key, cells", [(k, c) for k, cs in WRONG_ONLINE.items() for c in cs],
                         ids=[f"{k}-{i}" for k, cs in WRONG_ONLINE.items() for i in range(len(cs))])
def test_each_online_slip_is_named_through_the_sandbox(grader, key, cells):
    failed = assert_named(_graded(grader, cells), key, "q5", also=(None, "not_vectorised"))
    assert sum(k == key for _q, _t, k, _m in failed) >= 3, failed


@pytest.mark.parametrize("key, cells", [(k, c) for k, cs in WRONG_SOFTMAX.items() for c in cs],
                         ids=[f"{k}-{i}" for k, cs in WRONG_SOFTMAX.items() for i in range(len(cs))])
def test_each_online_softmax_slip_is_named_on_q3(grader, key, cells):
    failed = _graded(grader, cells).failed
    named = {t for q, t, k, _m in failed if q == "q3" and k == key}
    assert {"test_matches_softmax", "test_dim_argument"} <= named, failed


@pytest.mark.parametrize("cells", WRONG_TILES, ids=range(len(WRONG_TILES)))
def test_a_triangle_in_every_tile_below_the_diagonal_is_named(grader, cells):
    failed = assert_named(_graded(grader, cells), "tile_triangle_below_diagonal", ("q4", "q6"), also=("one_edit_fix",))
    assert any(k == "tile_triangle_below_diagonal" and "tiles" in m for _q, _t, k, m in failed), failed


def test_a_long_model_width_name_is_quoted_cut(grader):
    """output_after_projection quotes the tuple's last name, the student's own: a 3000-character `embed_dim...` is cut
    to 40 characters in the message, not copied whole into the report."""
    name = "embed_dim_" + "x" * 3000
    failed = assert_named(_graded(grader, _shapes(f"B, T, {name} = 4, 10, 64\nweights_shape = (B, T, T)\n"
                                                  f"out_shape = (B, T, {name})\n")), "output_after_projection", "q1")
    told = [m for _q, _t, k, m in failed if k == "output_after_projection"]
    assert told and all("x" * 41 not in m for m in told), told
