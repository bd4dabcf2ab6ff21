"""sdpa-from-scratch, naming round 76 (after blind76: framework-style code, and blind77: a mathematician's habits):
a count said only in numbers, three kinds the grader mis-named, and one named by effect alone are named now, each
by its evidence.
q2: scale_divisor = sqrt(8) where a class in its cell assigns an __init__ parameter to a bare name the class body
also binds (`d_k = d_k`, no `self.d_k = ...`): init_assigns_local; it was example_value_reused, silent on why 64
was lost.
q3/q5/q6: a softmax whose denominator sums from index 1 (narrow(dim, 1, n - 1), [1:]) was weights_not_normalised
by effect alone; a replay of that sum now says so (the key stays).
q3: a softmax that ignores its dim (the replay) whose def keeps something built from dim between calls (a global,
a module-level dict entry, an attribute of the function): softmax_built_once; it was softmax_ignores_dim, which the
student, who passes dim to the layer, could not see.
q1: out_shape (4, 10, 10), one entry wrong, that entry written x[N - 1] (or x.size(N - 1)): axis_counted_from_one,
the formula's 1-based axis number made an index; it was weights_as_output, the effect alone.
q5: an output that differs between two calls (nondeterministic) whose cell builds an nn.Linear with its default bias
(no bias=False, no .bias touched): linear_default_bias; it was nondeterministic with dropout's fix. NaN rows for
fully masked queries (fully_masked_nan) whose cell gates a step on .training and never calls .eval()/.train():
training_mode_gate. Both read by the q5 wrapper (blames_softmax_for_zero_fill), which now takes the submission.
q1: out_shape's width 64 (d_k) read as x.weight.shape[-1] (or .size(1)) of an nn.Linear: output_width_dk now says
that nn.Linear stores its weight (out_features, in_features); it said only 'from d_k'.
q8: score_madds = T^2 (d_k + 1), a linear layer's weights and bias counted per query, with a layer (Linear, bias,
.parameters()) in its cell's text: madds_layer_bias_counted; it was said in numbers as 'one operation per score
more' with a guessed cause (the scale) that was not the student's.
q8: a count of T (T + 1) / 2 whose cell calls the matrix symmetric and names no mask: count_halved_symmetric (the
belief); it was causal_triangle_count, a mask the student never thought of. A cell that speaks of the causal mask
keeps causal_triangle_count.
q4/q6: causal_mask that blocks the cell [0, 0] (the numbered-grid pattern) and whose def compares a division (j / i
<= 1, i / j >= 1): mask_ratio_divides_by_zero (0 / 0 is NaN); it was numbered_grid_cast_to_bool, a .bool() cast
the code never makes. A numbered grid cast to bool keeps its key.
q5: in float16 a constant scale near sqrt(d_k) (sqrt(d_k - 1)) matched S / S.std() too; a second call in float64
with 3 Q (own-spread division does not change, a constant scale does) now withdraws scores_divided_by_own_std, and
the float16 test says what the others say (one_edit_fix). A real own-spread division keeps its key in float16.
Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
MASK = "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"


def _q8(entries: str = "attn_entries = 1024 * 1024\n", madds: str = "score_madds = 1024 * 1024 * 64\n") -> dict[str, str]:
    """Question 8's cell with the lines `entries` and `madds`; cost_ratio right."""
    return {"attn_entries": entries + madds + "cost_ratio = 4\n"}


def _attention(scale: str) -> dict[str, str]:
    """Attention whose raw scores `s` are divided by the expression `scale` (of s and Q)."""
    return {"scaled_dot_product_attention": SDPA + (
        "    s = Q @ K.transpose(-2, -1)\n"
        f"    s = s / ({scale})\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "    return w @ V\n")}


def _q2(cls: str, divisor: str) -> dict[str, str]:
    """Question 2's cell: the class `cls` and scale_divisor = `divisor`; the variances right."""
    return {"raw_score_var": cls + "\n\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(Q.shape[-1])).var().item()\n"
            f"scale_divisor = {divisor}\n"}


SCALE = ("class Scale:\n    d_k = Q.shape[-1]\n\n    def __init__(self, d_k):\n        {init}\n\n"
         "    def value(self):\n        return self.d_k ** 0.5\n")
ROOT = ("class Root:\n    width: int = 8\n\n    def __init__(self, width=64, name='scale'):\n        self.name = name\n"
        "        {init}\n\n    @property\n    def root(self):\n        return math.sqrt(self.width)\n")

def _q1(lines: str, width: str) -> dict[str, str]:
    """Question 1's cell: `lines`, then out_shape's last entry `width`."""
    return {"weights_shape": lines + f"weights_shape = (4, 10, 10)\nout_shape = (4, 10, {width})\n"}


NORM = ("class _Norm:\n    def __init__(self, axis):\n        self.axis = axis\n\n    def __call__(self, x):\n"
        "        e = torch.exp(x - x.amax(self.axis, keepdim=True))\n        return e / e.sum(self.axis, keepdim=True)\n\n\n"
        "_layers = {}\n\n\ndef stable_softmax(x, dim=-1):\n")

REST = ("    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "    return w @ V\n")


def _projected(layer: str, which: str = "Q") -> dict[str, str]:
    """Attention that first passes `which` through the layer built by `layer` (its weight set to the identity)."""
    return {"scaled_dot_product_attention": SDPA + f"    d = {which}.shape[-1]\n    proj = {layer}\n"
            "    with torch.no_grad():\n        proj.weight.copy_(torch.eye(d, dtype=proj.weight.dtype))\n"
            f"    {which} = proj({which})\n" + REST}


def _module(gate: str, call: str) -> dict[str, str]:
    """Attention computed by an nn.Module whose zeroing of empty rows is written `gate`, called as `call`."""
    return {"scaled_dot_product_attention": (
        "class _Attn(torch.nn.Module):\n    def forward(self, Q, K, V, mask=None):\n"
        "        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "        if mask is not None:\n            s = s.masked_fill(~mask, float('-inf'))\n"
        "        w = stable_softmax(s, dim=-1)\n" + gate + "        return w @ V\n\n\n"
        "_attn = _Attn()\n\n\n" + SDPA + f"    return {call}\n")}


WRONG = {
    "axis_counted_from_one": ("q1", "is 10, where it should be 128", [
        _q1("V_dims = [4, 10, 128]   # V is T_k x d_v per batch entry: d_v is dimension 2\n", "V_dims[2 - 1]"),
        _q1("", "torch.empty(4, 10, 128).size(2 - 1)"),
    ]),
    "softmax_built_once": ("q3", "keeps what the first call built", [
        {"stable_softmax": "def stable_softmax(x, dim=-1):\n    if not hasattr(stable_softmax, 'axis'):\n"
                           "        stable_softmax.axis = dim\n    m = x.amax(dim=stable_softmax.axis, keepdim=True)\n"
                           "    e = torch.exp(x - m)\n    return e / e.sum(dim=stable_softmax.axis, keepdim=True)\n"},
        {"stable_softmax": NORM + "    if 'sm' not in _layers:\n        _layers['sm'] = _Norm(dim)\n"
                                  "    return _layers['sm'](x)\n"},
    ]),
    "output_width_dk": ("q1", "nn.Linear stores its weight as (out_features, in_features)", [
        _q1("proj = torch.nn.Linear(64, 128)\n", "proj.weight.size(1)"),
        _q1("layers = {'v': torch.nn.Linear(64, 128, bias=False)}\n", "layers['v'].weight.shape[-1]"),
    ]),
    "init_assigns_local": ("q2", "binds a local", [
        _q2(SCALE.format(init="d_k = d_k"), "Scale(64).value()"),
        _q2(ROOT.format(init="width = int(width)"), "Root(width=64).root"),
    ]),
    "madds_layer_bias_counted": ("q8", "a linear layer's parameters", [
        _q8(madds="layer = torch.nn.Linear(64, 1024)\n"
                  "score_madds = 1024 * (layer.weight.numel() + layer.bias.numel())\n"),
        _q8(madds="T, d = 1024, 64\n# each query goes through a dense layer d -> T: weights plus bias\n"
                  "score_madds = T * (d * T + T)\n"),
    ]),
    "count_halved_symmetric": ("q8", "symmetric T x T matrix", [
        _q8("attn_entries = 1024 * 1025 // 2   # symmetric: the upper half and the diagonal are independent\n"),
        _q8("n = 1024\nattn_entries = n + n * (n - 1) // 2   # symmetric scores: diagonal plus one off-diagonal half\n"),
    ]),
    "mask_ratio_divides_by_zero": (("q4", "q6"), "divides by a position that is 0", [
        {"causal_mask": MASK + "    rows = torch.arange(T_q, dtype=torch.float32).view(-1, 1)\n"
                               "    cols = torch.arange(T_k, dtype=torch.float32).view(1, -1)\n"
                               "    return cols / rows <= 1.0\n"},
        {"causal_mask": MASK + "    return torch.arange(T_q)[:, None] / torch.arange(T_k)[None, :] >= 1\n"},
    ]),
}

# a constant scale near sqrt(d_k), not the scores' own spread (q5 only; one_edit_fix everywhere else)
NEAR_ROOT = ["math.sqrt(Q.shape[-1] - 1)", "(Q.size(-1) - 1) ** 0.5"]

CORRECT = [
    # the layer without its bias; the module switched to eval mode
    _projected("torch.nn.Linear(d, d, bias=False).to(Q.dtype)"),
    _module("        if mask is not None and not self.training:\n"
            "            w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n", "_Attn().eval()(Q, K, V, mask)"),
    # the formula's 3rd axis made an index by subtracting 1: the right one
    _q1("V_dims = [4, 10, 128]\n", "V_dims[3 - 1]"),
    # the cache keyed on dim
    {"stable_softmax": NORM + "    if dim not in _layers:\n        _layers[dim] = _Norm(dim)\n    return _layers[dim](x)\n"},
    # the weight's first axis, its out_features
    _q1("proj = torch.nn.Linear(64, 128)\n", "proj.weight.shape[0]"),
    _q1("proj = torch.nn.Linear(64, 128)\n", "proj.out_features"),
    # the value stored on the instance
    _q2(SCALE.format(init="self.d_k = d_k"), "Scale(64).value()"),
    _q2(ROOT.format(init="width = int(width)\n        self.width = width"), "Root(width=64).root"),
    # a layer without its bias, or its weights alone: the right count
    _q8(madds="score_madds = 1024 * torch.nn.Linear(64, 1024, bias=False).weight.numel()\n"),
    _q8("attn_entries = 1024 * 1024   # not symmetric: q_i . k_j differs from q_j . k_i\n"),
    # a comparison with a division that divides by no position, and the plain comparison
    {"causal_mask": MASK + "    i = torch.arange(T_q)[:, None]\n    j = torch.arange(T_k)[None, :]\n"
                           "    return (j - i) / 2 <= 0\n"},
    {"causal_mask": MASK + "    return torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]\n"},
    # the constant sqrt(d_k), spelt two ways
    _attention("math.sqrt(Q.shape[-1])"),
    _attention("Q.size(-1) ** 0.5"),
]

_graded = graded_as("sdpa-from-scratch", "round76")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


LINEAR_BIAS = [
    _projected("torch.nn.Linear(d, d).to(Q.dtype)"),
    _projected("torch.nn.Linear(d, d, dtype=V.dtype, device=V.device)", "V"),
]
TRAINING_GATE = [
    _module("        if mask is not None and not self.training:\n"
            "            w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n", "_Attn()(Q, K, V, mask)"),
    _module("        keep = mask.any(dim=-1, keepdim=True) if mask is not None else None\n"
            "        w = w if (self.training or keep is None) else torch.where(keep, w, torch.zeros_like(w))\n",
            "_attn(Q, K, V, mask)"),
]


@pytest.mark.parametrize("cells", LINEAR_BIAS, ids=range(len(LINEAR_BIAS)))
def test_a_linear_layer_left_with_its_bias_is_named(grader, cells):
    failed = assert_named(_graded(grader, cells), "linear_default_bias", "q5")
    assert all(k != "nondeterministic" for _q, _t, k, _m in failed), failed


@pytest.mark.parametrize("cells", TRAINING_GATE, ids=range(len(TRAINING_GATE)))
def test_a_step_gated_on_training_mode_is_named(grader, cells):
    failed = assert_named(_graded(grader, cells), "training_mode_gate", "q5")
    assert any("never taken out of training mode" in m for _q, _t, _k, m in failed), failed


# a softmax whose denominator sums from index 1 (the formula's sum from i = 1 typed as written)
FROM_ONE = [
    "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
    "    return e / e.narrow(dim, 1, e.size(dim) - 1).sum(dim=dim, keepdim=True)\n",
    "    e = (x - x.max(dim=dim, keepdim=True).values).exp()\n"
    "    rest = torch.index_select(e, dim, torch.arange(1, e.shape[dim]))\n    return e / rest.sum(dim, keepdim=True)\n",
]


@pytest.mark.parametrize("body", FROM_ONE, ids=range(len(FROM_ONE)))
def test_a_denominator_from_index_one_is_said(grader, body):
    cells = {"stable_softmax": "def stable_softmax(x, dim=-1):\n" + body}
    failed = assert_named(_graded(grader, cells), "weights_not_normalised", ("q3", "q5", "q6"),
                          also=("nonfinite_weights", "fully_masked_nan", None))
    assert any("from index 1 on" in m for q, _t, k, m in failed if q == "q3" and k == "weights_not_normalised"), failed


@pytest.mark.parametrize("scale", NEAR_ROOT, ids=range(len(NEAR_ROOT)))
def test_a_constant_near_root_d_k_is_not_the_scores_own_spread(grader, scale):
    failed = assert_named(_graded(grader, _attention(scale)), "one_edit_fix", "q5")
    assert any(t == "test_float16" for _q, t, _k, _m in failed), failed


def test_the_scores_own_spread_keeps_its_key_in_float16(grader):
    failed = assert_named(_graded(grader, _attention("s.std()")), "scores_divided_by_own_std", "q5")
    assert any(t == "test_float16" for _q, t, _k, _m in failed), failed


def test_a_layer_count_plus_a_step_without_layer_words_is_said_in_numbers(grader):
    # T^2 (d_k + 1) with a scale step in words ('linear' as a word, no layer): no layer key
    cells = _q8(madds="T = 1024\nscore_madds = T * T * 65   # the dot product and the scale, linear in d_k\n")
    assert failed_keys(_graded(grader, cells)) == {None}


def test_a_causal_triangle_keeps_its_key(grader):
    cells = _q8("attn_entries = 1024 * 1025 // 2   # the causal mask keeps the lower triangle\n")
    assert_named(_graded(grader, cells), "causal_triangle_count", "q8")


def test_a_numbered_grid_cast_to_bool_keeps_its_key(grader):
    cells = {"causal_mask": MASK + "    grid = torch.arange(T_q)[:, None] + torch.arange(T_k)[None, :]\n"
                                   "    return torch.tril(grid).bool()\n"}
    assert_named(_graded(grader, cells), "numbered_grid_cast_to_bool", ("q4", "q6"))


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
