"""attention-pipeline, naming round 82 (blind82's kinds: extensions and options whose default breaks the plain call;
blind83's: a textbook's, a video's or a course's conventions).

q02: the scores divided by a fixed number (the Illustrated Transformer's 8 = sqrt(64)): sqrt_precedence on one test
(d_k = 16 makes d_k / 2 = 8) and only "a constant factor" on three before (MIS-NAMED). Now scale_hard_coded, by two
more calls (d_k = 3 and 7, other lengths) giving Q K^T times the same factor, not 1/sqrt of any head size. A scale
kept between calls keeps scale_cached_first_call; d_k ** 1/2 (a factor that follows d_k) keeps sqrt_precedence.

q08 (and q02): a scale or bandwidth parameter whose default is worked out from a global when the def runs
(blind82's `bandwidth=math.sqrt(D_K)`): scale_by_d_v before (MIS-NAMED, d_v = 4 by chance). Now scale_default_frozen,
by probes of three head sizes giving one bandwidth, that bandwidth replayed on the test's inputs, and a bounded read
of the def: a default reading a notebook name, the parameter dividing or multiplying in the body. A default of None
worked out inside is right; a number typed in the body is scale_hard_coded.

q03: an experiment whose "unscaled" run passes the helper's own default (`_scores(q, k, scale=None)` beside
`_scores(q, k)`): scale_assumed_applied_elsewhere before, from a comment documenting the helper's option (MIS-NAMED).
Now probe_compares_same_expression, checked first: a keyword passed the very literal its def defaults it to is the
same call. A keyword set to another value is a real second run.

q04: the mask sliced from a fixed buffer made at the top level (the video's block_size = 8 tril): a raw crash in q07
before (q04's own T + 40 call swallowed it). Now mask_sized_once in q04, by the crash's size mismatch against n, right
masks of n - 1 and n tokens, n + 1 crashing against n again, and a bounded read: causal_additive_mask slices a name it
never assigns and keeps nothing between calls. A buffer larger than every length asked keeps full marks; a cache grown
at the first call's length keeps mask_cached_at_first_length.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
SELF = "self_attention"
NW = "nadaraya_watson"

_graded = graded_as("attention-pipeline", "round82")


# --- q02: a scale typed in ---------------------------------------------------------------------------------------

def test_scale_times_an_eighth_is_named_hard_coded(grader: Grader) -> None:
    cell = "def scaled_scores(Q, K):\n    return (Q @ K.mT) * 0.125   # 1/sqrt(64)\n"
    failed = assert_named(_graded(grader, {SCORES: cell}), "scale_hard_coded", ["q02", "q07", "q13"],
                          also=("one_edit_fix",))
    assert any(q == "q02" and k == "scale_hard_coded" for q, _, k, _ in failed)


def test_scale_from_a_global_head_size_is_named_hard_coded(grader: Grader) -> None:
    cell = ("HEAD = 5\n\ndef scaled_scores(Q, K):\n    S = torch.matmul(Q, K.transpose(-2, -1))\n"
            "    return S / math.sqrt(HEAD)\n")
    failed = assert_named(_graded(grader, {SCORES: cell}), "scale_hard_coded", ["q02", "q07", "q13"],
                          also=("one_edit_fix", "reads_global_not_parameter"))
    assert any(q == "q02" and k == "scale_hard_coded" for q, _, k, _ in failed)


def test_scale_from_query_width_keeps_full_marks(grader: Grader) -> None:
    cell = "def scaled_scores(Q, K):\n    return (Q @ K.mT) * Q.shape[-1] ** -0.5\n"
    assert_full_marks(_graded(grader, {SCORES: cell}))


def test_sqrt_precedence_is_not_named_hard_coded(grader: Grader) -> None:
    cell = "def scaled_scores(Q, K):\n    d_k = Q.shape[-1]\n    return Q @ K.transpose(-2, -1) / d_k ** 1/2\n"
    keys = failed_keys(_graded(grader, {SCORES: cell}))
    assert "scale_hard_coded" not in keys and "sqrt_precedence" in keys


def test_scale_cached_in_a_default_list_is_not_named_hard_coded(grader: Grader) -> None:
    cell = ("def scaled_scores(Q, K, _scale=[]):\n    if not _scale:\n        _scale.append(1 / math.sqrt(Q.shape[-1]))\n"
            "    return Q @ K.transpose(-2, -1) * _scale[0]\n\n_ = scaled_scores(torch.randn(2, 9), torch.randn(3, 9))\n")
    keys = failed_keys(_graded(grader, {SCORES: cell}))
    assert "scale_hard_coded" not in keys and "scale_default_frozen" not in keys
    assert "scale_cached_first_call" in keys


def test_added_parameter_literal_default_keeps_default_argument_wrong(grader: Grader) -> None:
    cell = "def scaled_scores(Q, K, head_dim=36):\n    return Q @ K.transpose(-2, -1) / math.sqrt(head_dim)\n"
    keys = failed_keys(_graded(grader, {SCORES: cell}))
    assert "scale_hard_coded" not in keys and "scale_default_frozen" not in keys
    assert "default_argument_wrong" in keys


# --- q08 / q02: a default worked out from a global when the def runs ----------------------------------------------

def test_bandwidth_default_from_global_is_named_frozen(grader: Grader) -> None:
    cell = ("LESSON_DK = 9\n\ndef nadaraya_watson(q, K, V, h=math.sqrt(LESSON_DK)):\n"
            "    w = torch.softmax(K @ q / h, dim=0)\n    return w @ V\n")
    failed = assert_named(_graded(grader, {NW: cell}), "scale_default_frozen", "q08")
    assert "h=math.sqrt(LESSON_DK)" in failed[0][3]


def test_inverse_scale_default_from_global_is_named_frozen(grader: Grader) -> None:
    cell = ("d_head = 16\n\ndef nadaraya_watson(q, K, V, inv_h=1 / d_head ** 0.5):\n"
            "    kappa = torch.exp(K @ q * inv_h)\n    return (kappa[:, None] * V).sum(0) / kappa.sum()\n")
    assert_named(_graded(grader, {NW: cell}), "scale_default_frozen", "q08")


def test_scores_scale_default_from_global_is_named_frozen(grader: Grader) -> None:
    cell = ("D_K = 64\n\ndef scaled_scores(Q, K, scale=1 / math.sqrt(D_K)):\n"
            "    return Q @ K.transpose(-2, -1) * scale\n")
    failed = assert_named(_graded(grader, {SCORES: cell}), "scale_default_frozen", ["q02", "q07", "q13"],
                          also=("one_edit_fix",))
    assert any(q == "q02" and k == "scale_default_frozen" for q, _, k, _ in failed)


def test_bandwidth_default_none_worked_out_inside_keeps_full_marks(grader: Grader) -> None:
    cell = ("D_K = 4\n\ndef nadaraya_watson(q, K, V, bandwidth=None):\n"
            "    h = math.sqrt(q.shape[-1]) if bandwidth is None else bandwidth\n"
            "    kappa = torch.exp(K @ q / h)\n    return (kappa[:, None] * V).sum(0) / kappa.sum()\n")
    assert_full_marks(_graded(grader, {NW: cell}))


def test_bandwidth_typed_in_body_is_hard_coded_not_frozen(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / 3.0)\n"
            "    return (kappa[:, None] * V).sum(0) / kappa.sum()\n")
    keys = failed_keys(_graded(grader, {NW: cell}))
    assert "scale_default_frozen" not in keys and "scale_hard_coded" in keys


# --- q03: the "unscaled" run passes the helper's own default ---------------------------------------------------------

def test_probe_keyword_equal_to_default_is_named_same_expression(grader: Grader) -> None:
    cell = ("def _weights(q, k, temperature=1.0):\n    return torch.softmax(q @ k.T / math.sqrt(q.shape[-1]) "
            "/ temperature, -1)\n\ndef _bits(p):\n    return -(p * torch.log2(p)).sum(-1).mean().item()\n\n"
            "torch.manual_seed(1)\n_q, _k = torch.randn(6, 256), torch.randn(6, 256)\n"
            "with_scale = _bits(_weights(_q, _k))\nwithout_scale = _bits(_weights(_q, _k, temperature=1.0))\n"
            "ans_scale = 'c' if math.isclose(with_scale, without_scale, rel_tol=0.05) else 'b'\n")
    failed = assert_named(_graded(grader, {SCALE_ANS: cell}), "probe_compares_same_expression", "q03", tests=1)
    assert "temperature=1.0" in failed[0][3]


def test_probe_scaled_flag_left_at_default_is_named_same_expression(grader: Grader) -> None:
    cell = ("# scaled=True: the default 1/sqrt(d_k), as torch's scaled_dot_product_attention does anyway\n"
            "def _ent(q, k, scaled=True):\n    s = q @ k.T\n    if scaled:\n        s = s / q.shape[-1] ** 0.5\n"
            "    p = s.softmax(-1)\n    return float(-(p * p.clamp_min(1e-30).log2()).sum(-1).mean())\n\n"
            "_q, _k = torch.randn(5, 400, dtype=torch.float64), torch.randn(5, 400, dtype=torch.float64)\n"
            "e1 = _ent(_q, _k)\ne2 = _ent(_q, _k, scaled=True)\nans_scale = 'c' if abs(e1 - e2) < 0.2 else 'b'\n")
    assert_named(_graded(grader, {SCALE_ANS: cell}), "probe_compares_same_expression", "q03", tests=1)


def test_probe_keyword_other_than_default_keeps_full_marks(grader: Grader) -> None:
    cell = ("def _scores(q, k, scale=None):\n    if scale is None:\n        scale = 1 / math.sqrt(q.shape[-1])\n"
            "    return q @ k.T * scale\n\ndef _H(S):\n    p = torch.softmax(S, -1)\n"
            "    return -(p * torch.log2(p.clamp_min(1e-30))).sum(-1).mean().item()\n\n"
            "torch.manual_seed(0)\n_q, _k = torch.randn(8, 512, dtype=torch.float64), torch.randn(8, 512, "
            "dtype=torch.float64)\nH_scaled = _H(_scores(_q, _k))\nH_deleted = _H(_scores(_q, _k, scale=1.0))\n"
            "ans_scale = 'c' if abs(H_scaled - H_deleted) < 0.1 else ('b' if H_deleted < H_scaled else 'a')\n")
    assert_full_marks(_graded(grader, {SCALE_ANS: cell}))


def test_probe_keyword_unlike_default_is_not_named_same_expression(grader: Grader) -> None:
    # a real second run (scale=None where the default is 1.0), answered 'c' anyway: another mistake, not this key
    cell = ("def _scores(q, k, scale=1.0):\n    if scale is None:\n        scale = 1 / math.sqrt(q.shape[-1])\n"
            "    return q @ k.T * scale\n\n_q, _k = torch.randn(4, 64), torch.randn(4, 64)\n"
            "a1 = torch.softmax(_scores(_q, _k), -1)\na2 = torch.softmax(_scores(_q, _k, scale=None), -1)\n"
            "ans_scale = 'c' if a1.shape == a2.shape else 'b'\n")
    assert "probe_compares_same_expression" not in failed_keys(_graded(grader, {SCALE_ANS: cell}))


# --- q04 (q07): the mask sliced from a fixed buffer made at the top level ---------------------------------------------

def test_mask_sliced_from_top_level_bool_buffer_is_named(grader: Grader) -> None:
    cell = ("_FUTURE = torch.ones(12, 12, dtype=torch.bool).triu(1)\n\n"
            "def causal_additive_mask(T, dtype, device=None):\n    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
            "    return M.masked_fill(_FUTURE[:T, :T].to(M.device), torch.finfo(dtype).min)\n")
    failed = assert_named(_graded(grader, {MASK: cell}), "mask_sized_once", "q04")
    assert "_FUTURE[:T, :T]" in failed[0][3]


def test_mask_sliced_from_top_level_ones_with_where_is_named(grader: Grader) -> None:
    cell = ("context = 16\nlower = torch.tril(torch.ones(context, context))\n\n"
            "def causal_additive_mask(T, dtype, device=None):\n    keep = lower[:T, :T] != 0\n"
            "    z = torch.zeros((), dtype=dtype)\n    M = torch.where(keep, z, torch.tensor(torch.finfo(dtype).min, "
            "dtype=dtype))\n    return M.to(device) if device is not None else M\n")
    assert_named(_graded(grader, {MASK: cell}), "mask_sized_once", "q04")


def test_mask_sliced_from_buffer_longer_than_any_asked_keeps_full_marks(grader: Grader) -> None:
    cell = ("_FUTURE = torch.ones(256, 256, dtype=torch.bool).triu(1)\n\n"
            "def causal_additive_mask(T, dtype, device=None):\n    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
            "    return M.masked_fill(_FUTURE[:T, :T].to(M.device), torch.finfo(dtype).min)\n")
    assert_full_marks(_graded(grader, {MASK: cell}))


def test_mask_cache_grown_at_first_length_is_not_named_buffer(grader: Grader) -> None:
    cell = ("_CACHE = {}\n\ndef causal_additive_mask(T, dtype, device=None):\n"
            "    if dtype not in _CACHE:\n        M = torch.zeros(T, T, dtype=dtype)\n"
            "        _CACHE[dtype] = M.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), torch.finfo(dtype).min)\n"
            "    return _CACHE[dtype][:T, :T].to(device) if device is not None else _CACHE[dtype][:T, :T]\n")
    assert "mask_sized_once" not in failed_keys(_graded(grader, {MASK: cell}))


def test_self_attention_slicing_top_level_tril_is_named(grader: Grader) -> None:
    cell = ("block_size = 8\ntril = torch.tril(torch.ones(block_size, block_size))\n\n"
            "def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
            "    S = scaled_scores(Q, K)\n    T = X.shape[-2]\n    if causal:\n"
            "        S = S.masked_fill(tril[:T, :T] == 0, float('-inf'))\n    A = torch.softmax(S, dim=-1)\n"
            "    return A @ V, A\n")
    keys = failed_keys(_graded(grader, {SELF: cell}))
    assert "mask_sized_once" in keys
