"""Naming scaled-attention's mistakes, round 76 (blind76's framework-style, object-oriented and stateful code,
blind77's mathematician's habits: their mis-named, generic and borderline variants, said with their cause by kind).

mha_scale_kept_across_calls said of q1 from state that outlives a call: the weights replay a constant scale (the
second call at other sizes divides by it too) and the cell of attention stores a value at run time in a class
attribute, a `global` name, or `self.x` under `if self.x is None`, the value read from the arguments. A global call
counter beside the right scale keeps full marks; beside a hard-coded scale it is not called a kept scale.

scale_rounded_low_precision (q1): the fitted divisor c is sqrt(d_k) (or 1 / d_k ** -0.5) rounded to bfloat16 or
float16. The scale as a tensor in Q's dtype keeps full marks.

draws_scaled_like_init (q2): the variances are those of dot_averaged_not_summed (1/d_k^2 of the right draws') and
the source scales its normal draws (randn(...) / s, q *= s, torch.normal with a std other than 1): the mean over the
coordinates is no longer claimed there. A mean over the coordinates of unscaled draws stays dot_averaged_not_summed;
torch.normal(0.0, 1.0, ...) keeps full marks.

mha_linear_default_bias (q8): two calls on the same input differ and multi_head_attention builds nn.Linear layers with
bias left at its default (nothing else random in reach). bias=False keeps full marks.

results_cached_by_shape said of new weights (q8): the last call of test_float32_eight_heads brings new weights of
the width of the call before; its answer is this X projected with the earlier weights (a cache of the weights keyed
on d_model or the weights' shape). A cache checked with torch.equal keeps full marks.

query_loop_from_one (q1): the right weights and output with query row 0 left at zero (a loop from 1). A loop from 0
keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_graded = graded_as("scaled-attention", "round76")


def _attention(body: str, head: str = "") -> dict[str, str]:
    return {"attention": f'''{head}
def attention(Q, K, V, d_k):
{body}
'''}


STATE_KEPT = {
    "global_scale_filled_once": _attention('''    global _SCALE
    if _SCALE is None:
        _SCALE = d_k ** -0.5
    w = torch.softmax(Q @ K.mT * _SCALE, dim=-1)
    return w @ V, w''', "_SCALE = None\n"),
    "instance_attribute_filled_when_none": _attention('''    w = torch.softmax(Q @ K.mT / _norm.root(d_k), dim=-1)
    return w @ V, w''', '''
class _Norm:
    def __init__(self):
        self.value = None

    def root(self, d):
        if self.value is None:
            self.value = math.sqrt(d)
        return self.value


_norm = _Norm()
'''),
    "config_class_attribute_set_in_the_call": _attention('''    if not Cfg.ready:
        Cfg.temperature = math.sqrt(d_k)
        Cfg.ready = True
    w = (Q @ K.mT / Cfg.temperature).softmax(-1)
    return w @ V, w''', '''
class Cfg:
    temperature = 1.0
    ready = False
'''),
}
STATE_NOT_KEPT = {   # a constant scale beside a call counter: the counter stores no value read from the arguments
    "counter_beside_hardcoded_scale": _attention('''    global _CALLS
    _CALLS += 1
    w = torch.softmax(Q @ K.mT / 2.0, dim=-1)
    return w @ V, w''', "_CALLS = 0\n"),
}
STATE_RIGHT = {
    "global_call_counter": _attention('''    global _CALLS
    _CALLS += 1
    w = torch.softmax(Q @ K.mT / math.sqrt(d_k), dim=-1)
    return w @ V, w''', "_CALLS = 0\n"),
}

ROUNDED_SCALE = {
    "float16_root_tensor": _attention('''    root = torch.tensor(math.sqrt(d_k), dtype=torch.float16)
    w = torch.softmax(torch.matmul(Q, K.transpose(-2, -1)) / root, dim=-1)
    return torch.matmul(w, V), w'''),
    "bfloat16_inverse_root_cast": _attention('''    factor = torch.tensor(1 / math.sqrt(d_k)).bfloat16()
    w = torch.softmax((Q @ K.mT) * factor, dim=-1)
    return w @ V, w'''),
}
ROUNDED_RIGHT = {
    "root_tensor_in_q_dtype": _attention('''    root = torch.tensor(math.sqrt(d_k), dtype=Q.dtype)
    w = torch.softmax(torch.matmul(Q, K.transpose(-2, -1)) / root, dim=-1)
    return torch.matmul(w, V), w'''),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
{body}
'''}


SCALED_DRAWS = {
    "randn_divided_by_root": _variance('''    q = torch.randn(n_samples, d_k, generator=generator) / math.sqrt(d_k)
    k = torch.randn(n_samples, d_k, generator=generator) / math.sqrt(d_k)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()'''),
    "draws_rescaled_in_place": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    init = d_k ** -0.5
    q *= init
    k *= init
    s = (q * k).sum(dim=-1)
    return float((s / d_k ** 0.5 if scaled else s).var())'''),
    "torch_normal_with_fan_in_std": _variance('''    sigma = 1 / math.sqrt(d_k)
    q = torch.normal(0.0, sigma, size=(n_samples, d_k), generator=generator)
    k = torch.normal(0.0, sigma, size=(n_samples, d_k), generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots /= math.sqrt(d_k)
    return dots.var().item()'''),
}
AVERAGED = {   # unscaled draws, a mean over the coordinates: dot_averaged_not_summed, as before
    "mean_over_coordinates": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).mean(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()'''),
}
DRAWS_RIGHT = {
    "torch_normal_unit_std": _variance('''    q = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    k = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots /= math.sqrt(d_k)
    return dots.var().item()'''),
}

_ATTENTION_2D = '''
def attention(Q, K, V, d_k):
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return w @ V, w
'''


def _mha(body: str, head: str = "") -> dict[str, str]:
    return {"attention": _ATTENTION_2D, "multi_head_attention": f'''{head}
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_h = d_model // n_heads
{body}
'''}


_HEADS = '''    heads = [attention(Q[:, h * d_h:(h + 1) * d_h], K[:, h * d_h:(h + 1) * d_h], V[:, h * d_h:(h + 1) * d_h],
                       d_h)[0] for h in range(n_heads)]
'''

DEFAULT_BIAS = {
    "linear_weight_data_assigned": _mha('''    layers = []
    for W in (W_Q, W_K, W_V, W_O):
        lin = nn.Linear(d_model, d_model, dtype=W.dtype)
        lin.weight.data = W.T.contiguous()
        layers.append(lin)
    Q, K, V = layers[0](X), layers[1](X), layers[2](X)
''' + _HEADS + '''    return layers[3](torch.cat(heads, dim=-1)).detach()''', "from torch import nn\n"),
    "explicit_bias_true_parameter_set": _mha('''    def proj(W):
        layer = torch.nn.Linear(d_model, d_model, bias=True).to(W.dtype)
        layer.weight = torch.nn.Parameter(W.t().clone(), requires_grad=False)
        return layer
    Q, K, V = proj(W_Q)(X), proj(W_K)(X), proj(W_V)(X)
''' + _HEADS + '''    return proj(W_O)(torch.cat(heads, dim=-1)).detach()'''),
}
BIAS_RIGHT = {
    "linear_without_bias": _mha('''    layers = []
    for W in (W_Q, W_K, W_V, W_O):
        lin = nn.Linear(d_model, d_model, bias=False, dtype=W.dtype)
        lin.weight.data = W.T.contiguous()
        layers.append(lin)
    Q, K, V = layers[0](X), layers[1](X), layers[2](X)
''' + _HEADS + '''    return layers[3](torch.cat(heads, dim=-1)).detach()''', "from torch import nn\n"),
}

WEIGHTS_CACHED = {
    "dict_keyed_on_weight_shape": _mha('''    Wq, Wk, Wv, Wo = _WEIGHTS.setdefault(tuple(W_Q.shape), (W_Q, W_K, W_V, W_O))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
''' + _HEADS + '''    return torch.cat(heads, dim=-1) @ Wo''', "_WEIGHTS = {}\n"),
    "class_store_rebuilt_on_new_width": _mha('''    if _Store.mats is None or _Store.mats[0].shape[0] != d_model:
        _Store.mats = [W_Q, W_K, W_V, W_O]
    Wq, Wk, Wv, Wo = _Store.mats
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
''' + _HEADS + '''    return torch.cat(heads, dim=-1) @ Wo''', "class _Store:\n    mats = None\n"),
}
WEIGHTS_CACHE_RIGHT = {
    "cache_checked_with_torch_equal": _mha('''    key = tuple(W_Q.shape)
    kept = _WEIGHTS.get(key)
    if kept is None or not all(torch.equal(a, b) for a, b in zip(kept, (W_Q, W_K, W_V, W_O))):
        _WEIGHTS[key] = kept = (W_Q, W_K, W_V, W_O)
    Wq, Wk, Wv, Wo = kept
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
''' + _HEADS + '''    return torch.cat(heads, dim=-1) @ Wo''', "_WEIGHTS = {}\n"),
}

LOOP_FROM_ONE = {
    "for_loop_rows_from_one": _attention('''    w = torch.zeros(Q.shape[0], K.shape[0], dtype=Q.dtype)
    for i in range(1, Q.shape[0]):
        w[i] = torch.softmax(K @ Q[i] / math.sqrt(d_k), dim=0)
    return w @ V, w'''),
    "while_loop_counter_starts_at_one": _attention('''    n = len(Q)
    rows = [torch.zeros(len(K), dtype=Q.dtype)]
    i = 1
    while i < n:
        rows.append(torch.softmax((Q[i] @ K.T) / d_k ** 0.5, dim=-1))
        i += 1
    w = torch.stack(rows)
    return w @ V, w'''),
}
LOOP_RIGHT = {
    "for_loop_rows_from_zero": _attention('''    w = torch.zeros(Q.shape[0], K.shape[0], dtype=Q.dtype)
    for i in range(Q.shape[0]):
        w[i] = torch.softmax(K @ Q[i] / math.sqrt(d_k), dim=0)
    return w @ V, w'''),
}


@pytest.mark.parametrize("name", sorted(STATE_KEPT))
def test_scale_kept_in_state_is_named(grader, name):
    failed = assert_named(_graded(grader, STATE_KEPT[name]), "mha_scale_kept_across_calls", ("q1", "q8"))
    assert any("outlives the call" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(STATE_NOT_KEPT))
def test_counter_beside_constant_scale_is_not_called_kept(grader, name):
    assert "mha_scale_kept_across_calls" not in failed_keys(_graded(grader, STATE_NOT_KEPT[name]))


@pytest.mark.parametrize("name", sorted(ROUNDED_SCALE))
def test_scale_rounded_low_precision_is_named(grader, name):
    assert_named(_graded(grader, ROUNDED_SCALE[name]), "scale_rounded_low_precision", ("q1", "q8"))


@pytest.mark.parametrize("name", sorted(SCALED_DRAWS))
def test_draws_scaled_like_init_is_named(grader, name):
    assert_named(_graded(grader, SCALED_DRAWS[name]), "draws_scaled_like_init", "q2")   # and no other key


@pytest.mark.parametrize("name", sorted(AVERAGED))
def test_mean_over_coordinates_stays_averaged(grader, name):
    assert_named(_graded(grader, AVERAGED[name]), "dot_averaged_not_summed", "q2")


@pytest.mark.parametrize("name", sorted(DEFAULT_BIAS))
def test_linear_default_bias_is_named(grader, name):
    assert_named(_graded(grader, DEFAULT_BIAS[name]), "mha_linear_default_bias", "q8")


@pytest.mark.parametrize("name", sorted(WEIGHTS_CACHED))
def test_weights_cached_by_width_is_named(grader, name):
    assert_named(_graded(grader, WEIGHTS_CACHED[name]), "results_cached_by_shape", "q8")


@pytest.mark.parametrize("name", sorted(LOOP_FROM_ONE))
def test_query_loop_from_one_is_named(grader, name):
    assert_named(_graded(grader, LOOP_FROM_ONE[name]), "query_loop_from_one", ("q1", "q8"))


@pytest.mark.parametrize("cells", [STATE_RIGHT, ROUNDED_RIGHT, DRAWS_RIGHT, BIAS_RIGHT, WEIGHTS_CACHE_RIGHT,
                                   LOOP_RIGHT], ids=["state", "rounded", "draws", "bias", "cache", "loop"])
def test_right_neighbours_keep_full_marks(grader, cells):
    for name in sorted(cells):
        assert_full_marks(_graded(grader, cells[name]))
