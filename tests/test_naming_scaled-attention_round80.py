"""Naming scaled-attention's mistakes, round 80 (blind80's habits carried over from JAX, TensorFlow/Keras, MATLAB, R
or Julia, blind81's debugging leftovers and half-finished edits: their mis-named and generic variants, said with
their cause by kind).

list_concat_discarded (q4): entropy_table returns an empty list and its source has a statement that is only
`rows + [row]` (or `[row] + rows`) on the empty list it returns: a functional update never assigned back. A leftover
statement of that kind beside a real append keeps full marks, and so does `rows = rows + [row]`.

scale_applied_unconditionally (q2): scaled=False gives the scaled variance of the same draws, a second call with
scaled=True gives the same number, and dot_product_variance never reads `scaled` while it divides by a square root.
A flag that is read but tested the wrong way (`scaled is not None`) is not called this.

scores_made_absolute (q4): the table is the lesson's table computed from |raw scores| (an abs_() inside a check).
The out-of-place abs() in the same check keeps full marks.

mha_scale_from_global (q8): multi_head_attention passes a name it never binds, set at module level to an int (the
trace's `d_k = 4`), as attention's scale, and the output is each head scaled by 1/sqrt of that int. Passing the
local head width beside the same global keeps full marks; the full width d_model as the scale is not this.

results_cached_by_shape (q8, through q1's attention): every head is head 0's output and attention caches its result
in a module-level dict under a key built from Q, K, V only through their shapes or dtype (mha_head_slice_fixed said
otherwise). A fixed head slice with a plain attention keeps mha_head_slice_fixed.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_graded = graded_as("scaled-attention", "round80")


def _table(loop_tail: str, before: str = "", raw_line: str = "raw = (q @ k.T)[0]", ret: str = "rows") -> dict[str, str]:
    return {"softmax_entropy": f'''
def softmax_entropy(logits):
    return -(F.softmax(logits, dim=-1) * F.log_softmax(logits, dim=-1)).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        {raw_line}
{before}        scaled = raw / d ** 0.5
        row = {{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
               "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}}
{loop_tail}
    return {ret}
'''}


ROWS_DISCARDED = {
    "plus_list_statement": _table("        rows + [row]"),
    "list_first_plus_rows": _table("        [row] + rows   # like R's c(row, rows)"),
}
ROWS_RIGHT = {
    "rebound_concat": _table("        rows = rows + [row]"),
    "leftover_concat_beside_append": _table("        rows + [row]\n        rows.append(row)"),
}

ABS_SCORES = {
    "abs_in_place_in_assert": _table("        rows.append(row)", "        assert raw.abs_().max() < 1e4\n"),
    "abs_in_place_in_print": _table("        rows.append(row)", "        print(d, raw.abs_().mean())\n"),
}
ABS_RIGHT = {
    "abs_out_of_place_in_assert": _table("        rows.append(row)", "        assert raw.abs().max() < 1e4\n"),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
{body}
'''}


SCALE_ALWAYS = {
    "condition_commented_out": _variance('''    s = (q * k).sum(dim=1)
    # if scaled:
    s = s / math.sqrt(d_k)
    return s.var().item()'''),
    "one_line_return_pow_half": _variance('''    return ((q * k).sum(-1) / d_k ** 0.5).var().item()'''),
}
SCALE_FLAG_READ = {   # the flag is read (the wrong way): not "never reads `scaled`"
    "flag_tested_against_none": _variance('''    s = (q * k).sum(dim=1)
    if scaled is not None:
        s = s / math.sqrt(d_k)
    return s.var().item()'''),
}
VARIANCE_RIGHT = {
    "flag_in_conditional_expression": _variance('''    s = (q * k).sum(dim=1)
    s = s / math.sqrt(d_k) if scaled else s
    return s.var().item()'''),
}

_ATTENTION = '''
def attention(Q, K, V, d_k):
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return w @ V, w
'''


def _mha(body: str, attention: str = _ATTENTION, top: str = "") -> dict[str, str]:
    return {"attention": attention, "multi_head_attention": f'''{top}
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    width = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
{body}
'''}


_HEADS = '''    outs = []
    for h in range(n_heads):
        c = slice(h * width, (h + 1) * width)
        outs.append(attention(Q[:, c], K[:, c], V[:, c], {scale})[0])
    return torch.cat(outs, dim=-1) @ W_O'''

SCALE_GLOBAL = {
    "trace_d_k_positional": _mha(_HEADS.format(scale="d_k"), top="d_k = 4   # the lesson trace's width\n"),
    "global_keyword_scale": _mha(_HEADS.format(scale="d_k=head_dim"), top="head_dim = 9\n"),
}
SCALE_NOT_GLOBAL = {   # the full width as the scale: another mistake, not a global's
    "scale_by_d_model": _mha(_HEADS.format(scale="d_model")),
}
_SHAPES_LOGGED = '''
_calls = {}


def attention(Q, K, V, d_k):
    key = (tuple(Q.shape), tuple(K.shape))
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    _calls[key] = _calls.get(key, 0) + 1   # a count per shape, never handed back
    return w @ V, w
'''
MHA_RIGHT = {
    "local_width_beside_global": _mha(_HEADS.format(scale="width"), top="d_k = 4\n"),
    "shapes_logged_never_returned": _mha(_HEADS.format(scale="width"), _SHAPES_LOGGED),
}

_SHAPE_CACHED = '''
_results = {}


def attention(Q, K, V, d_k):
    key = (tuple(Q.shape), tuple(K.shape), tuple(V.shape), Q.dtype)
    if key in _results:
        return _results[key]
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    _results[key] = (w @ V, w)
    return _results[key]
'''
_SIZE_CACHED = '''
_memo = {}


def attention(Q, K, V, d_k):
    if (Q.size(), K.size(), d_k) not in _memo:
        w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
        _memo[(Q.size(), K.size(), d_k)] = w @ V, w
    return _memo[(Q.size(), K.size(), d_k)]
'''
CACHED_BY_SHAPE = {
    "dict_keyed_on_shapes_and_dtype": _mha(_HEADS.format(scale="width"), _SHAPE_CACHED),
    "memo_keyed_on_sizes_inline": _mha(_HEADS.format(scale="width"), _SIZE_CACHED),
}
FIXED_SLICE = {   # every head is head 0 here too, but through a slice that never moves, with a plain attention
    "slice_never_moves": _mha('''    outs = [attention(Q[:, :width], K[:, :width], V[:, :width], width)[0] for h in range(n_heads)]
    return torch.cat(outs, dim=-1) @ W_O'''),
}


@pytest.mark.parametrize("name", sorted(ROWS_DISCARDED))
def test_rows_concat_discarded_is_named(grader, name):
    assert_named(_graded(grader, ROWS_DISCARDED[name]), "list_concat_discarded", "q4")


@pytest.mark.parametrize("name", sorted(ABS_SCORES))
def test_scores_abs_in_place_is_named(grader, name):
    assert_named(_graded(grader, ABS_SCORES[name]), "scores_made_absolute", "q4")


@pytest.mark.parametrize("name", sorted(SCALE_ALWAYS))
def test_scale_applied_unconditionally_is_named(grader, name):
    failed = assert_named(_graded(grader, SCALE_ALWAYS[name]), "scale_applied_unconditionally", "q2")
    assert any("never reads `scaled`" in msg for *_, msg in failed)


@pytest.mark.parametrize("name", sorted(SCALE_FLAG_READ))
def test_flag_read_is_not_unconditional(grader, name):
    assert "scale_applied_unconditionally" not in failed_keys(_graded(grader, SCALE_FLAG_READ[name]))


@pytest.mark.parametrize("name", sorted(SCALE_GLOBAL))
def test_head_scale_from_global_is_named(grader, name):
    assert_named(_graded(grader, SCALE_GLOBAL[name]), "mha_scale_from_global", "q8")


@pytest.mark.parametrize("name", sorted(SCALE_NOT_GLOBAL))
def test_d_model_scale_is_not_global(grader, name):
    assert "mha_scale_from_global" not in failed_keys(_graded(grader, SCALE_NOT_GLOBAL[name]))


@pytest.mark.parametrize("name", sorted(CACHED_BY_SHAPE))
def test_attention_cached_by_shape_is_named_in_q8(grader, name):
    failed = assert_named(_graded(grader, CACHED_BY_SHAPE[name]), "results_cached_by_shape", ("q1", "q8"))
    assert any(q == "q8" for q, *_ in failed)


@pytest.mark.parametrize("name", sorted(FIXED_SLICE))
def test_fixed_slice_keeps_its_name(grader, name):
    assert_named(_graded(grader, FIXED_SLICE[name]), "mha_head_slice_fixed", "q8")


@pytest.mark.parametrize("cells", [*ROWS_RIGHT.values(), *ABS_RIGHT.values(), *VARIANCE_RIGHT.values(),
                                   *MHA_RIGHT.values()],
                         ids=[*ROWS_RIGHT, *ABS_RIGHT, *VARIANCE_RIGHT, *MHA_RIGHT])
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
