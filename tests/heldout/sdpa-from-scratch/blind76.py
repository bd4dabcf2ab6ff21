"""Seventy-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind75.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: FRAMEWORK-STYLE, OBJECT-ORIENTED AND STATEFUL CODE, written by students who know
`torch.nn` from a project or a tutorial. Wrong cells: the value width read off an `nn.Linear` weight as if it
were stored (in, out) (q1); the scaled scores passed through an `nn.Dropout` module left in its default training
mode, and a divisor taken from a config class whose `__init__` assigns a local instead of `self.d_k` so the
class default (the notebook's d_k = 8) stays (q2); a signature `dim=None` that falls back to the legacy implicit
dim rule of `nn.Softmax`, and a softmax module cached at module level that keeps the first call's `dim` (q3);
a causal mask in `nn.MultiheadAttention`'s boolean convention (True = blocked) (q4); identity projections built
with `nn.Linear` and `nn.init.eye_` but with the default bias left on, empty-row handling done only under
`if not self.training` in a module that is never put in eval mode, the inputs swapped to sequence-first as for
`nn.MultiheadAttention` without `batch_first`, and the weights normalised over dim=1 as in
a tutorial's `nn.Softmax(dim=1)` (q5); the output of the trace written with `F.linear` in the wrong argument
order, and a dataclass config built without its d_k so its default (8) scales the trace (q6); the trap answered
"A" from how `nn.MultiheadAttention` applies dropout after the softmax (q7); the score cost counted as an
`nn.Linear`'s parameters times tokens, bias included (q8). The correct variants are framework-style and right:
modules built per call, `F.linear` with `nn.Linear`'s layout, caches keyed on shapes and cloned, dropout in
eval mode, `dim` always passed.

Public material used (search tool):
- q3 (implicit dim): amdegroot/ssd.pytorch#114 and #104, natanielruiz/deep-head-pose#118 ("dim is 0,1,or 2?"),
  svishwa/crowdcount-cascaded-mtl#22, benatorc/OTGNN#2 (`nn.LogSoftmax()` without dim): students relying on
  the implicit-dim rule of `nn.Softmax` / `F.softmax` and unsure which axis it picks.
- The other kinds (`nn.Linear`'s (out_features, in_features) weight layout and `x @ W.T`, default bias and
  random init, modules left in training mode, `nn.MultiheadAttention`'s True = masked boolean attn_mask, a
  module or class attribute keeping state between calls, tutorials' `nn.Softmax(dim=1)`) are those this
  round's brief lists.

How the variants were checked: a throwaway script under /tmp/w76-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas: the softmax on 1-D to 4-D inputs and every dim, default dim, large float16 logits, -inf entries; the
mask for square and rectangular sizes; the attention on 3-D and 4-D shapes, T_q != T_k, d_v != d_k, 2-D and
per-batch masks, fully masked rows, float64 / float32 / float16 / bfloat16, gradients; the answers of q1, q2,
q6, q7, q8. The correct variants match everywhere; each wrong one differs where its "where" says and nowhere
else, and no notebook cell of any variant raises.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points.
"""

_SOFTMAX_HEAD = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
)

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)

_Q2_TAIL = (
    "scale_divisor = math.sqrt(64)\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)

CORRECT = {
    "modules_built_per_call_softmax_callable_class_mask_cache_keyed_on_shape_and_cloned": {
        "stable_softmax": (
            "class _StableSoftmax:\n"
            "    def __init__(self, dim):\n"
            "        self.dim = dim\n"
            "\n"
            "    def __call__(self, x):\n"
            "        shifted = x - x.amax(dim=self.dim, keepdim=True)\n"
            "        e = shifted.exp()\n"
            "        return e / e.sum(dim=self.dim, keepdim=True)\n"
            "\n"
            "\n"
            + _SOFTMAX_HEAD
            + "    return _StableSoftmax(dim)(x)\n"
        ),
        "causal_mask": (
            "_MASKS = {}\n"
            "\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    key = (T_q, T_k)\n"
            "    if key not in _MASKS:\n"
            "        _MASKS[key] = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
            "    return _MASKS[key].clone()\n"
        ),
        "scaled_dot_product_attention": (
            "class _Attention(torch.nn.Module):\n"
            "    def __init__(self, d_k):\n"
            "        super().__init__()\n"
            "        self.scale = 1.0 / math.sqrt(d_k)\n"
            "\n"
            "    def forward(self, Q, K, V, mask=None):\n"
            "        scores = torch.matmul(Q, K.transpose(-2, -1)) * self.scale\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        if mask is not None:\n"
            "            weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "        return torch.matmul(weights, V)\n"
            "\n"
            "\n"
            + _SDPA_HEAD
            + "    return _Attention(Q.size(-1))(Q, K, V, mask)\n"
        ),
    },
    "dropout_module_in_eval_mode_and_empty_rows_handled_in_both_modes": {
        "scaled_dot_product_attention": (
            "class _SDPA(torch.nn.Module):\n"
            "    def __init__(self, p=0.1):\n"
            "        super().__init__()\n"
            "        self.attn_drop = torch.nn.Dropout(p)\n"
            "\n"
            "    def forward(self, Q, K, V, mask=None):\n"
            "        d_k = Q.size(-1)\n"
            "        scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        if mask is not None:\n"
            "            weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "        weights = self.attn_drop(weights)\n"
            "        return weights @ V\n"
            "\n"
            "\n"
            + _SDPA_HEAD
            + "    module = _SDPA()\n"
            "    module.eval()          # no dropout: this is the plain operation\n"
            "    return module(Q, K, V, mask)\n"
        ),
    },
    "f_linear_in_nn_linear_layout_for_the_trace_and_a_config_dataclass_given_its_d_k": {
        "scores3": (
            "from dataclasses import dataclass\n"
            "\n"
            "\n"
            "@dataclass\n"
            "class TraceConfig:\n"
            "    d_k: int\n"
            "    d_v: int\n"
            "\n"
            "    @property\n"
            "    def divisor(self):\n"
            "        return math.sqrt(self.d_k)\n"
            "\n"
            "\n"
            "cfg = TraceConfig(d_k=Q3.shape[-1], d_v=V3.shape[-1])\n"
            "scores3 = F.linear(Q3, K3) / cfg.divisor          # F.linear(x, W) = x @ W.T\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = F.linear(weights3, V3.T)                   # weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "weights_shape": (
            "W_v = torch.nn.Linear(in_features=64, out_features=128)   # weight is (out, in) = (128, 64)\n"
            "weights_shape = (4, 10, 10)\n"
            "out_shape = (4, 10, W_v.weight.shape[0])\n"
        ),
    },
    "lru_cached_softmax_factory_keyed_on_dim_scale_config_class_and_cost_dataclass": {
        "stable_softmax": (
            "import functools\n"
            "\n"
            "\n"
            "@functools.lru_cache(maxsize=None)\n"
            "def _softmax_for(dim):\n"
            "    def f(x):\n"
            "        e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
            "        return e / e.sum(dim=dim, keepdim=True)\n"
            "    return f\n"
            "\n"
            "\n"
            + _SOFTMAX_HEAD
            + "    return _softmax_for(dim)(x)\n"
        ),
        "raw_score_var": (
            "class ScaleConfig:\n"
            "    d_k = 1\n"
            "\n"
            "    def __init__(self, d_k):\n"
            "        self.d_k = d_k\n"
            "\n"
            "    @property\n"
            "    def divisor(self):\n"
            "        return math.sqrt(self.d_k)\n"
            "\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / ScaleConfig(d_k).divisor).var().item()\n"
            "scale_divisor = ScaleConfig(64).divisor\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "from dataclasses import dataclass\n"
            "\n"
            "\n"
            "@dataclass(frozen=True)\n"
            "class HeadCost:\n"
            "    T: int\n"
            "    d_k: int\n"
            "\n"
            "    @property\n"
            "    def entries(self):\n"
            "        return self.T * self.T\n"
            "\n"
            "    @property\n"
            "    def score_madds(self):\n"
            "        return self.T * self.T * self.d_k\n"
            "\n"
            "\n"
            "cost = HeadCost(T=1024, d_k=64)\n"
            "attn_entries = cost.entries\n"
            "score_madds = cost.score_madds\n"
            "cost_ratio = HeadCost(T=2048, d_k=64).score_madds // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_value_width_read_off_nn_linear_weight_as_if_stored_in_by_out": (
        {"weights_shape": (
            "W_v = torch.nn.Linear(in_features=64, out_features=128)   # projects to d_v = 128\n"
            "weights_shape = (4, 10, 10)\n"
            "out_shape = (4, 10, W_v.weight.shape[-1])               # the output features\n"
        )},
        {"mistake": "the value width is read off an nn.Linear(64, 128) weight as if it were stored (in, out); "
                    "nn.Linear stores (out_features, in_features) = (128, 64), so shape[-1] is 64 and "
                    "out_shape is (4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scaled_scores_passed_through_an_nn_dropout_module_left_in_training_mode": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "attn_dropout = torch.nn.Dropout(p=0.1)\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = attn_dropout(raw_scores / math.sqrt(d_k)).var().item()\n"
            + _Q2_TAIL
        )},
        {"mistake": "the scaled scores go through an nn.Dropout(0.1) module that is still in its default training "
                    "mode, so a tenth of them are zeroed and the rest multiplied by 1/0.9: scaled_score_var is "
                    "not the variance of the scaled scores (about 1.1x it, and random)",
         "where": ["q2"]},
    ),
    "q2_config_init_assigns_a_local_so_the_class_default_d_k_of_8_stays": (
        {"raw_score_var": (
            "class ScaleConfig:\n"
            "    d_k = Q.shape[-1]          # default: the running example\n"
            "\n"
            "    def __init__(self, d_k=None):\n"
            "        if d_k is not None:\n"
            "            d_k = d_k\n"
            "\n"
            "    @property\n"
            "    def divisor(self):\n"
            "        return math.sqrt(self.d_k)\n"
            "\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / ScaleConfig(d_k).divisor).var().item()\n"
            "scale_divisor = ScaleConfig(64).divisor\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the config's __init__ writes `d_k = d_k` (a local) instead of `self.d_k = d_k`, so every "
                    "instance reads the class attribute d_k = 8 from the running example: scale_divisor is "
                    "sqrt(8) = 2.83 instead of sqrt(64) = 8 (scaled_score_var is right only because d_k is 8 there)",
         "where": ["q2"]},
    ),
    "q3_default_dim_none_resolved_by_the_legacy_implicit_rule_of_nn_softmax": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=None):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    if dim is None:            # as nn.Softmax() does when no dim is given\n"
            "        dim = 0 if x.dim() in (0, 1, 3) else 1\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the default dim is None and is resolved with nn.Softmax's legacy implicit rule (dim 0 for "
                    "1-D and 3-D inputs, 1 otherwise), so stable_softmax(x) without a dim normalises over the "
                    "batch axis of a 3-D tensor or the second axis of a 2-D/4-D one instead of the last axis",
         "where": ["q3"]},
    ),
    "q3_softmax_module_cached_at_module_level_keeps_the_first_calls_dim": (
        {"stable_softmax": (
            "class _StableSoftmax:\n"
            "    def __init__(self, dim):\n"
            "        self.dim = dim\n"
            "\n"
            "    def __call__(self, x):\n"
            "        shifted = x - x.amax(dim=self.dim, keepdim=True)\n"
            "        e = shifted.exp()\n"
            "        return e / e.sum(dim=self.dim, keepdim=True)\n"
            "\n"
            "\n"
            "_softmax_module = None\n"
            "\n"
            "\n"
            + _SOFTMAX_HEAD
            + "    global _softmax_module\n"
            "    if _softmax_module is None:          # build the layer once, like in __init__\n"
            "        _softmax_module = _StableSoftmax(dim)\n"
            "    return _softmax_module(x)\n"
        )},
        {"mistake": "the softmax layer is built once, on the first call, and reused: every later call "
                    "normalises along the first call's dim (-1 in the notebook) whatever dim it is given",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_mask_returned_in_multiheadattention_convention_true_means_blocked": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"Causal attn_mask, as nn.MultiheadAttention takes it.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)\n"
        )},
        {"mistake": "the mask follows nn.MultiheadAttention's boolean attn_mask convention (True = not allowed to "
                    "attend), so it is True strictly above the diagonal: the exact inverse of the notebook's mask "
                    "(True = may attend); the causal trace then blocks the keys each query may see",
         "where": ["q4", "q6"]},
    ),
    "q5_identity_projections_from_nn_linear_keep_their_default_random_bias": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    def identity_proj(d):\n"
            "        proj = torch.nn.Linear(d, d, dtype=Q.dtype, device=Q.device)\n"
            "        torch.nn.init.eye_(proj.weight)\n"
            "        return proj\n"
            "\n"
            "    q_proj, k_proj, v_proj = identity_proj(Q.size(-1)), identity_proj(K.size(-1)), identity_proj(V.size(-1))\n"
            "    Q, K, V = q_proj(Q), k_proj(K), v_proj(V)\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the q/k/v projections are nn.Linear layers set to the identity with nn.init.eye_, but built "
                    "with the default bias=True, whose bias keeps its random initialisation: a random vector is "
                    "added to every query, key and value, so scores and outputs are wrong (and random)",
         "where": ["q5"]},
    ),
    "q5_empty_rows_zeroed_only_when_not_self_training_in_a_module_left_in_train_mode": (
        {"scaled_dot_product_attention": (
            "class _Attention(torch.nn.Module):\n"
            "    def forward(self, Q, K, V, mask=None):\n"
            "        scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        if mask is not None and not self.training:   # empty rows only happen at inference\n"
            "            weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "        return weights @ V\n"
            "\n"
            "\n"
            + _SDPA_HEAD
            + "    return _Attention()(Q, K, V, mask)\n"
        )},
        {"mistake": "the fix for queries with no visible key runs only under `not self.training`, but the module "
                    "is built fresh on each call and is in training mode by default, so the fix never runs: a "
                    "fully masked query gets a NaN output row instead of zeros",
         "where": ["q5"]},
    ),
    "q5_weights_normalised_over_dim_1_as_in_a_tutorials_nn_softmax": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=1)     # nn.Softmax(dim=1) in the tutorial\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the softmax runs over dim=1, copied from a tutorial's nn.Softmax(dim=1) on (batch, T, T) "
                    "scores: for 3-D inputs it normalises over the queries, for 4-D over the heads, not over the "
                    "keys, so each query's weights do not sum to 1 and the outputs are wrong",
         "where": ["q5"]},
    ),
    "q5_inputs_moved_to_sequence_first_as_for_multiheadattention_without_batch_first": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    # nn.MultiheadAttention works sequence-first (batch_first=False): (T, B, d)\n"
            "    Q, K, V = Q.transpose(0, 1), K.transpose(0, 1), V.transpose(0, 1)\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V).transpose(0, 1)\n"
        )},
        {"mistake": "the inputs are swapped to sequence-first (T, B, d) as for nn.MultiheadAttention without "
                    "batch_first, but the matmuls batch over the leading axis: for 3-D inputs each token attends "
                    "over the batch entries at its position instead of over the keys of its own sequence (wrong "
                    "values, and a mask no longer lines up); 4-D inputs happen to come out right",
         "where": ["q5"]},
    ),
    "q6_trace_output_with_f_linear_arguments_in_the_wrong_order_is_transposed": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = F.linear(V3.T, weights3)          # apply the attention weights as a linear layer\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "out3 is written F.linear(V3.T, weights3), which computes V3.T @ weights3.T = (weights3 @ V3).T: "
                    "a (2, 3) transposed output instead of the (3, 2) weights3 @ V3",
         "where": ["q6"]},
    ),
    "q6_config_dataclass_built_without_d_k_scales_the_trace_by_its_default_8": (
        {"scores3": (
            "from dataclasses import dataclass\n"
            "\n"
            "\n"
            "@dataclass\n"
            "class AttnConfig:\n"
            "    d_k: int = Q.shape[-1]\n"
            "    causal: bool = False\n"
            "\n"
            "\n"
            "cfg = AttnConfig()\n"
            "scores3 = Q3 @ K3.T / math.sqrt(cfg.d_k)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "causal_cfg = AttnConfig(causal=True)\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the config dataclass is built without d_k, so its default (the running example's d_k = 8) is "
                    "used: the trace's scores are divided by sqrt(8) instead of sqrt(4) = 2, and weights3, out3 "
                    "and weights3_causal are all too flat",
         "where": ["q6"]},
    ),
    "q7_answers_a_because_multiheadattention_applies_dropout_to_weights_after_the_softmax": (
        {"q_trap_answer": (
            "# nn.MultiheadAttention zeroes attention weights *after* the softmax (its dropout), and that is a\n"
            "# standard layer, so zeroing weights after the softmax must be as good as masking the scores.\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "answers A (zeroing weights after the softmax is the same as masking the scores), reasoning from "
                    "the dropout nn.MultiheadAttention applies to the weights; the rows no longer sum to 1, so C "
                    "is the right answer",
         "where": ["q7"]},
    ),
    "q8_score_madds_counted_as_nn_linear_parameters_times_tokens_bias_included": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "# Q @ K.T is like applying a Linear(d_k -> T) layer to each of the T queries\n"
            "keys_as_layer = torch.nn.Linear(64, 1024)\n"
            "score_madds = 1024 * sum(p.numel() for p in keys_as_layer.parameters())\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds counts Q @ K.T as a Linear(64, 1024) layer's parameters times the 1024 queries, "
                    "but the layer's bias is counted too: 1024 * (64*1024 + 1024) = 68,157,440 instead of "
                    "1024*1024*64 = 67,108,864",
         "where": ["q8"]},
    ),
}
