"""Red-team round 139: naming round 76's new reads (e08471f) attacked as a student and as a class, then red-team
round 138's bounds. Every finding was a mis-name: a wrong notebook told a round-76 key (or hint) whose cause its code does
not have (the points lost are unchanged; the message pointed at the wrong line). Repros in /tmp/rt139/ (h.py ROOT SLUG
CELLS... grades cells put into full_marks; /tmp/rt139-base is e08471f).

- **A record never read made a hard-coded scale "kept across calls" (scaled-attention q1).** _state_kept_between_calls
  took any store of a value read from the arguments into a global or a class attribute for the kept scale:
  `global _LAST; _LAST = tuple(Q.shape)` or `Log.last_dk = d_k` beside `Q @ K.mT / 8.0` was told
  mha_scale_kept_across_calls on all five q1 tests ("what the first call stores there is what every later call
  reads": nothing reads it), where the same def without the record is wrong_scale_constant (s_global_log.py,
  s_class_log.py). The state must now be read back in the cell, outside a store and a test against None:
  wrong_scale_constant.
- **A scaling under `if scaled:` made a mean "draws scaled like an init" (scaled-attention q2).** _scaled_draw took
  `if scaled: q = q / d_k ** 0.25; k = k / d_k ** 0.25` (the question's 1/sqrt(d_k) put on the draws, right for
  scaled=True) beside `(q * k).mean(-1)` for the cause of the 1/d_k^2: both q2 tests said draws_scaled_like_init,
  and the unscaled one draws with std 1 (s_draw_ifscaled.py); so did `torch.randn(...) * 1.0` (s_draw_one.py).
  Scalings under an `if` that tests `scaled`, and factors of the literal 1, are no init's std now:
  dot_averaged_not_summed, the mean.
- **A dim recorded, never read, made a softmax along -1 "built once" (sdpa-from-scratch q3).** _dim_kept_between_calls
  took `_calls["last_dim"] = dim` (a module-level dict, never read) for a layer kept from the first call:
  softmax_built_once, where the plain def is softmax_ignores_dim (d_softmax_log.py). The store must be read back in
  the def (its name, or the same attribute) outside a store: softmax_ignores_dim.
- **nn.Linear's bias set another way, beside a dropout, was told linear_default_bias (sdpa q5).** _linear_left_with_bias
  looked only for a `.bias` and a bias= keyword: `nn.Linear(d, d)` loaded by load_state_dict with a zero bias, or
  `nn.Linear(d, d, **NOBIAS)`, next to `F.dropout(w, p=0.1)` made all 14 q5 tests say linear_default_bias, and the
  dropout's fix ("pass training=False") was no longer said (d_linear_statedict.py, d_linear_kwargs.py). A cell that
  sets parameters another way (load_state_dict, parameters(), register_parameter, setattr) or draws anything else
  at random (dropout, rand*, bernoulli, normal_...), or passes **keywords / *arguments, is not read for the bias:
  nondeterministic, dropout's fix.
- **Any `.training` test made NaN rows a "training-mode gate" (sdpa q5).** _training_gate took the first if on
  `.training` for the step the NaN rows lack: `if self.training: w = F.dropout(w, p=0.0)` in a module that never
  handles empty rows was told training_mode_gate ("that step sits under `self.training`": no such step is there;
  d_gate_unrelated.py). The gated branches must hold a step that can clear a row (where, masked_fill, nan_to_num,
  zeros_like, any/all, a store into an entry...): fully_masked_nan.
- **A size check that divides made a numbered grid "a ratio that divides by zero" (sdpa q4/q6).**
  _mask_ratio_compared took any comparison with a true division in causal_mask: `if T_k / T_q > 100: raise ...`
  beside `torch.tril(torch.arange(T_q * T_k).view(T_q, T_k)).bool()` was told mask_ratio_divides_by_zero on four
  tests, quoting the size check (d_mask_guard.py). Tests of if, while, assert and conditional expressions steer
  Python, they are no mask's entries: numbered_grid_cast_to_bool, as without the check.
- **A query axis taken back by indexing made a real keepdim "size-one axes added" (attention-pipeline q08).**
  raise_if_input_axis_kept looked only for squeeze: `row = q.unsqueeze(0)`, `(row @ K.T)[0]` (the axis removed) and
  `.sum(dim=0, keepdim=True)` (the real cause) was told size_one_axes_added on three q08 tests (p_index0.py; q[None]
  then .flatten(), p_flatten.py). x[0], .flatten(), .ravel(), .view(-1) / .reshape(-1) take the axis away too now:
  keepdim_left_on.
- **"dense attention" made a count "a layer's bias" (sdpa q8).** name_layer_or_symmetric_count read its layer words as
  substrings: a cell `score_madds = 1024 * 1024 * (64 + 1)` whose comment says "dense attention ... plus one for the
  1/sqrt(d_k) scale" was told madds_layer_bias_counted ("as your cell counts a linear layer's parameters"), where
  without "dense" it is one_edit_fix (q8_dense.py); "unbiased" was a bias too, and "asymmetric" made a triangle
  count_halved_symmetric ("as your cell calls it" symmetric; q8_asym.py). Whole words now (bias, a dense layer or
  projection, Linear(, .parameters(); symmetr not after a letter or hyphen): one_edit_fix, causal_triangle_count.
- **An nn.Dropout already in eval mode was told to call .eval() (attention-pipeline q05).** raise_if_random adds
  "an nn.Dropout module is in training mode ...: call .eval() on it" wherever a cell says `Dropout(`:
  `_drop = tnn.Dropout(0.1).eval()` beside `Z + 0.05 * torch.randn_like(Z)` (the noise the second call shows) was
  told so on every q05 test (p_drop_eval_noise.py). Not where a cell calls .eval() or .train(False): the plain
  nondeterministic text (the key was and is nondeterministic).
- **An index already right made a wrong width "counted from one" (sdpa q1).** name_shape_reads took any entry
  x[N - 1] of the wrong entry for the 1-based belief: `V = torch.empty(4, 10, 64)` (built 64 wide) and
  `out_shape = (4, 10, V.shape[3 - 1])` (the 3rd axis, index 2: right) was told axis_counted_from_one (q1_wrongV.py;
  `V.shape[2]` is output_width_dk). N must be the entry's own axis (`V_dims[2 - 1]` at axis 2): not said otherwise.
- **An unrelated class made a hard-coded sqrt(8) "an __init__ local" (sdpa q2).** _init_local_shadowing took any
  parameter re-bound in __init__ whose name the class body binds: `class Tag: name = 'scale'` with
  `name = name.strip(); self.label = name` beside `scale_divisor = math.sqrt(8)` was told init_assigns_local
  (q2_unrelated_class.py; without the class, example_value_reused). The class must read `self.name` (what the
  instance then gets from the class attribute): example_value_reused.

Held (tried, no change): scaled nondeterministic_said (`_default_bias_linear` already gives up on **keywords and on a
dropout or draw; a Linear loaded by load_state_dict beside randn_like noise stays nondeterministic: s_mha_noise.py);
round 138's _constant (`1e299 / 1e-299` and `1e299 * 1e299` are inf, no OverflowError; a complex or bool literal is
no number); right notebooks: every probe's correct neighbour (`(row @ K.T)[0]` with the sum's keepdim off; the
fixed examples) keeps full marks, the new reads run only after a failure. Left as is: `q = q * (1 / d_k) ** 0` is
still read as a scaled draw (a factor the reader does not fold; s_draw_float.py).
"""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, grade_cells


def _keys(grader, slug: str, cells: dict[str, str], name: str) -> dict[str, set[str]]:
    """question -> the keys its failed tests gave."""
    outcome = grade_cells(grader, slug, cells, name)
    found: dict[str, set[str]] = {}
    for q, _t, k, _m in outcome.failed:
        found.setdefault(q, set()).add(str(k))
    return found


# --- scaled-attention q1: a record of the call, never read ------------------------------------------------------

_HARD = "    w = torch.softmax(Q @ K.mT / 8.0, dim=-1)\n    return w @ V, w\n"
RECORDS = {
    "global_shape_record": "_LAST = None\n\n\ndef attention(Q, K, V, d_k):\n    global _LAST\n"
                           "    _LAST = tuple(Q.shape)\n" + _HARD,
    "class_attribute_record": "class Log:\n    last_dk = 0\n\n\ndef attention(Q, K, V, d_k):\n    Log.last_dk = d_k\n"
                              + _HARD,
}


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_record_never_read_beside_a_hard_coded_scale_is_not_a_kept_scale(grader, name):
    keys = _keys(grader, "scaled-attention", {"attention": RECORDS[name]}, f"rt139_{name}")
    assert keys.get("q1") == {"wrong_scale_constant"}, keys


def test_a_scale_kept_in_a_global_and_read_back_is_still_named(grader):
    cell = ("_SCALE = None\n\n\ndef attention(Q, K, V, d_k):\n    global _SCALE\n    if _SCALE is None:\n"
            "        _SCALE = d_k ** -0.5\n    w = torch.softmax(Q @ K.mT * _SCALE, dim=-1)\n    return w @ V, w\n")
    assert "mha_scale_kept_across_calls" in _keys(grader, "scaled-attention", {"attention": cell},
                                                  "rt139_global_read").get("q1", set())


# --- scaled-attention q2: the question's scaling put on the draws, and a mean ------------------------------------

DRAWS = {
    "scaling_under_if_scaled": "    q = torch.randn(n_samples, d_k, generator=generator)\n"
                               "    k = torch.randn(n_samples, d_k, generator=generator)\n"
                               "    if scaled:\n        q = q / d_k ** 0.25\n        k = k / d_k ** 0.25\n"
                               "    dots = (q * k).mean(-1)\n    return dots.var().item()\n",
    "draw_times_one": "    q = torch.randn(n_samples, d_k, generator=generator) * 1.0\n"
                      "    k = torch.randn(n_samples, d_k, generator=generator)\n    dots = (q * k).mean(-1)\n"
                      "    if scaled:\n        dots = dots / math.sqrt(d_k)\n    return dots.var().item()\n",
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_a_mean_beside_the_questions_own_scaling_is_the_mean(grader, name):
    cell = "def dot_product_variance(d_k, n_samples, generator, scaled=False):\n" + DRAWS[name]
    keys = _keys(grader, "scaled-attention", {"dot_product_variance": cell}, f"rt139_{name}")
    assert keys.get("q2") == {"dot_averaged_not_summed"}, keys


# --- sdpa-from-scratch: q3's record of dim, q5's bias set another way and unrelated gate, q4's size check ----------

def test_a_dim_recorded_never_read_is_not_a_softmax_built_once(grader):
    cell = ("_calls = {}\n\n\ndef stable_softmax(x, dim=-1):\n    _calls['last_dim'] = dim\n"
            "    m = x.amax(dim=-1, keepdim=True)\n    e = torch.exp(x - m)\n    return e / e.sum(dim=-1, keepdim=True)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"stable_softmax": cell}, "rt139_dim_record")
    assert keys.get("q3") == {"softmax_ignores_dim"}, keys


_REST = ("    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
         "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n    w = stable_softmax(s, dim=-1)\n"
         "    if mask is not None:\n        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
         "    w = torch.nn.functional.dropout(w, p=0.1)\n    return w @ V\n")
_SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n    d = Q.shape[-1]\n"
BIAS_ELSEWHERE = {
    "load_state_dict": _SDPA + "    proj = torch.nn.Linear(d, d).to(Q.dtype)\n"
                               "    proj.load_state_dict({'weight': torch.eye(d, dtype=Q.dtype), "
                               "'bias': torch.zeros(d, dtype=Q.dtype)})\n"
                               "    with torch.no_grad():\n        Q = proj(Q)\n" + _REST,
    "keywords_dict": "NOBIAS = {'bias': False}\n\n\n" + _SDPA + "    proj = torch.nn.Linear(d, d, **NOBIAS).to(Q.dtype)\n"
                     "    with torch.no_grad():\n        proj.weight.copy_(torch.eye(d, dtype=Q.dtype))\n"
                     "        Q = proj(Q)\n" + _REST,
}


@pytest.mark.parametrize("name", sorted(BIAS_ELSEWHERE))
def test_a_linear_whose_bias_is_set_another_way_beside_dropout_says_dropout(grader, name):
    outcome = grade_cells(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": BIAS_ELSEWHERE[name]},
                          f"rt139_{name}")
    said = [(k, m) for q, _t, k, m in outcome.failed if q == "q5"]
    assert said and {k for k, _m in said} == {"nondeterministic"}, said
    assert all("dropout" in m for _k, m in said), said


_MODULE = ("class _Attn(torch.nn.Module):\n    def forward(self, Q, K, V, mask=None):\n"
           "        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
           "        if mask is not None:\n            s = s.masked_fill(~mask, float('-inf'))\n"
           "        w = stable_softmax(s, dim=-1)\n{gate}        return w @ V\n\n\n_attn = _Attn()\n\n\n"
           "def scaled_dot_product_attention(Q, K, V, mask=None):\n    return _attn(Q, K, V, mask)\n")


def test_a_training_test_that_gates_no_empty_row_step_is_not_the_cause(grader):
    cell = _MODULE.format(gate="        if self.training:\n            w = torch.nn.functional.dropout(w, p=0.0)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": cell}, "rt139_gate_unrelated")
    assert keys.get("q5") == {"fully_masked_nan"}, keys


def test_the_empty_rows_gated_on_training_are_still_named(grader):
    cell = _MODULE.format(gate="        if mask is not None and not self.training:\n"
                               "            w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": cell}, "rt139_gate_related")
    assert "training_mode_gate" in keys.get("q5", set()), keys


def test_a_size_check_that_divides_is_no_ratio_mask(grader):
    cell = ("def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
            "    if T_k / T_q > 100:\n        raise ValueError('too wide')\n"
            "    n = torch.arange(T_q * T_k).view(T_q, T_k)\n    return torch.tril(n).bool()\n")
    keys = _keys(grader, "sdpa-from-scratch", {"causal_mask": cell}, "rt139_size_check")
    assert keys.get("q4") == {"numbered_grid_cast_to_bool"}, keys
    assert "mask_ratio_divides_by_zero" not in set().union(*keys.values()), keys


# --- attention-pipeline q08: the query's axis taken back another way than squeeze ------------------------------

AXIS_TAKEN_BACK = {
    "indexed_zero": "    row = q.unsqueeze(0)\n    kappa = torch.exp((row @ K.T)[0] / math.sqrt(q.shape[-1]))\n",
    "flattened": "    row = q[None]\n    kappa = torch.exp((row @ K.T).flatten() / math.sqrt(q.shape[-1]))\n",
}


@pytest.mark.parametrize("name", sorted(AXIS_TAKEN_BACK))
def test_a_query_axis_taken_back_leaves_the_real_keepdim_named(grader, name):
    cell = ("def nadaraya_watson(q, K, V):\n" + AXIS_TAKEN_BACK[name]
            + "    return (kappa[:, None] * V).sum(dim=0, keepdim=True) / kappa.sum()\n")
    keys = _keys(grader, "attention-pipeline", {"nadaraya_watson": cell}, f"rt139_{name}")
    assert keys.get("q08") == {"keepdim_left_on"}, keys
    right = cell.replace(", keepdim=True)", ")")
    assert_full_marks(grade_cells(grader, "attention-pipeline", {"nadaraya_watson": right}, f"rt139_{name}_right"))


# --- sdpa-from-scratch q8: a cell's words read as substrings ------------------------------------------------------

def test_dense_attention_and_asymmetric_are_not_a_layer_or_a_symmetric_matrix(grader):
    dense = ("attn_entries = 1024 * 1024\n# dense attention: every query meets every key; d_k multiply-adds per "
             "score, plus one for the 1/sqrt(d_k) scale\nscore_madds = 1024 * 1024 * (64 + 1)\ncost_ratio = 4\n")
    keys = _keys(grader, "sdpa-from-scratch", {"attn_entries": dense}, "rt139_dense_attention")
    assert keys.get("q8") and "madds_layer_bias_counted" not in keys["q8"], keys
    asym = ("# the score matrix is asymmetric; I keep one triangle with its diagonal\nattn_entries = 1024 * 1025 // 2\n"
            "score_madds = 1024 * 1024 * 64\ncost_ratio = 4\n")
    keys = _keys(grader, "sdpa-from-scratch", {"attn_entries": asym}, "rt139_asymmetric")
    assert keys.get("q8") == {"causal_triangle_count"}, keys
    layer = ("attn_entries = 1024 * 1024\n# each query goes through a dense layer d -> T: weights plus bias\n"
             "score_madds = 1024 * (64 * 1024 + 1024)\ncost_ratio = 4\n")
    assert "madds_layer_bias_counted" in _keys(grader, "sdpa-from-scratch", {"attn_entries": layer},
                                               "rt139_dense_layer").get("q8", set())


# --- attention-pipeline q05: the nn.Dropout hint where the notebook already calls .eval() -------------------------

def test_a_dropout_already_in_eval_mode_is_not_told_to_call_eval(grader):
    cell = ("import torch.nn as tnn\n\n_drop = tnn.Dropout(0.1).eval()\n\n\ndef attention_weights(S, M=None):\n"
            "    Z = S if M is None else S + M\n    Z = Z + 0.05 * torch.randn_like(Z)\n"
            "    return _drop(torch.softmax(Z, dim=-1))\n")
    outcome = grade_cells(grader, "attention-pipeline", {"attention_weights": cell}, "rt139_dropout_eval")
    said = [(k, m) for q, _t, k, m in outcome.failed if q == "q05"]
    # the noise is unseeded: one round session's run under load got one_edit_fix here (not reproduced in 12 quiet
    # grades); an edit the search verifies must take the noise out (0.05 noise is far past the tolerance), so that
    # name is true of this code too. What this test holds is the finding: no nn.Dropout hint where .eval() is called
    assert said and {k for k, _m in said} <= {"nondeterministic", "one_edit_fix"}, said
    assert all("call .eval()" not in m for _k, m in said), said


# --- sdpa-from-scratch q1/q2: an index already right, a class that never reads its attribute ---------------------

def test_the_formulas_third_axis_made_index_two_is_not_counted_from_one(grader):
    cell = ("V = torch.empty(4, 10, 64)   # the 3rd axis is d_v\nweights_shape = (4, 10, 10)\n"
            "out_shape = (4, 10, V.shape[3 - 1])\n")
    keys = _keys(grader, "sdpa-from-scratch", {"weights_shape": cell}, "rt139_index_right")
    assert keys.get("q1") and "axis_counted_from_one" not in keys["q1"], keys
    counted = "V_dims = [4, 10, 128]\nweights_shape = (4, 10, 10)\nout_shape = (4, 10, V_dims[2 - 1])\n"
    assert "axis_counted_from_one" in _keys(grader, "sdpa-from-scratch", {"weights_shape": counted},
                                            "rt139_counted").get("q1", set())


def test_a_class_that_never_reads_its_attribute_is_no_init_local(grader):
    cell = ("class Tag:\n    name = 'scale'\n\n    def __init__(self, name):\n        name = name.strip()\n"
            "        self.label = name\n\n\nraw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(Q.shape[-1])).var().item()\nscale_divisor = math.sqrt(8)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"raw_score_var": cell}, "rt139_unrelated_class")
    assert keys.get("q2") == {"example_value_reused"}, keys
