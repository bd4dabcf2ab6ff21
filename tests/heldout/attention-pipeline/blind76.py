"""Blind held-out set 76 for attention-pipeline.

Seventy-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind75.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 76's angle: FRAMEWORK-STYLE, OBJECT-ORIENTED AND STATEFUL CODE. The student has used torch.nn and writes
plain functions the way a model is written. Each wrong variant has one slip of that kind: nn.Linear modules
whose weights are copied in but whose default bias is left on (q01); the scale kept in a class attribute set by
the first call's d_k (q02); the scale read as a harmless temperature hyperparameter, as F.scaled_dot_product_
attention's `scale` keyword suggests (q03); nn.Transformer.generate_square_subsequent_mask used for the mask
(-inf, not finfo.min) (q04); an nn.Dropout module built in the weights function and left in train mode (q05);
the mask pictured as a registered buffer that blocks gradients (q06); F.scaled_dot_product_attention called
with the training dropout_p for the output (q07); the query treated as a batch of one, so (1, d_v) comes back
(q08); the prefix matrix built from zero-initialised nn.Linear layers in the default float32 (q09);
torch.distributions.Categorical built with the weights as logits (q10); a cross-attention module built once
and cached, so later calls use the first call's weights (q13); nn.MultiheadAttention's sequence-first layout
read into the shapes question (q14); generate_square_subsequent_mask's square-only signature read as "never"
(q15); the cost of the layer read off its nn.Linear projections, linear in T (q16).

Public material found with the `search` tool, and what it showed:
- pytorch/pytorch#124464 ("SDPA does not switch off dropout during evaluation"), pytorch/pytorch#126294 (the
  docs warning that dropout_p is always applied), pytorch/pytorch#99293, huggingface/pytorch-image-models#1978
  ("a recurring bug", also in nanoGPT), wenet-e2e/wenet#2699, meta-pytorch/torchtune#1791: the dropout_p passed
  to F.scaled_dot_product_attention outside training (q07).
- jadore801120/attention-is-all-you-need-pytorch#53, IBM/pytorch-seq2seq#33, hustvl/MapTR#124,
  SeanNaren/deepspeech.pytorch#22: attention dropout left active when the module is not put in eval mode (q05).
- the generate_square_subsequent_mask copies in deepsvg's layers/utils.py (OmniSVG spaces on huggingface.co)
  and espnet's subsequent_mask: the library causal mask is square by construction and filled with -inf (q04,
  q15).
- The rest follows the brief's list of framework slips, with the library behaviour checked by running torch
  here: nn.Linear's (out, in) weight and default bias=True (q01), state kept between calls (q02, q13), the
  batch-first habit (q08), nn.Linear's default float32 (q09), Categorical(probs=...) vs (logits=...) (q10),
  nn.MultiheadAttention's sequence-first (L, N, E) layout (q14), a layer costed by its projections (q16).

The correct variants are framework-style too and right everywhere: F.linear with W.T (so x @ W), an
nn.Softmax(dim=-1) module, an nn.Dropout built in eval mode (identity), a small nn.Module holding the given
weights and built per call, a causal mask as a buffer of a module built per call for the given T, dtype and
device, and a dataclass that holds the shapes for the parameter count.

Every variant was checked with a throwaway script under /tmp/w76-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with plain torch (torch.softmax of S + M, F.scaled_dot_product_attention, the notebook's formulas)
on unbatched, batched and 4-D inputs, batch of size 1, T_q != T_k, d_k != d_v, two different d_k and weight
sets in one session, float64, float32, float16, causal masks, padding masks and a fully blocked row; every
written answer compared with the right letter or integer. The correct variants agree everywhere; each wrong
variant differs in its own questions and only in those listed in "where".

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    # F.linear takes nn.Linear's (out, in) layout, so the notebook's (in, out) weights go in transposed;
    # a softmax module with its dim given
    "functional_linear_transposed_weights_and_softmax_module_last_dim": {
        PROJ: '''import torch.nn.functional as F


def project_qkv(X, W_Q, W_K, W_V):
    # F.linear(x, W) is x @ W.T, and our W is (d_model, d), so pass W.T
    return F.linear(X, W_Q.T), F.linear(X, W_K.T), F.linear(X, W_V.T)
''',
        WEIGHTS: '''from torch import nn


def attention_weights(S, M=None):
    softmax = nn.Softmax(dim=-1)
    if M is not None:
        S = S + M
    return softmax(S)
''',
    },

    # a small attention module holding the given weights, built per call; dropout built in eval mode
    "per_call_attention_module_and_eval_mode_dropout": {
        CROSS: '''from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, W_Q, W_K, W_V):
        super().__init__()
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V

    def forward(self, X, Y, M=None):
        Q = X @ self.W_Q
        K = Y @ self.W_K
        V = Y @ self.W_V
        A = attention_weights(scaled_scores(Q, K), M)
        return A @ V, A


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    return CrossAttention(W_Q, W_K, W_V)(X, Y, M)
''',
        WEIGHTS: '''from torch import nn


def attention_weights(S, M=None):
    drop = nn.Dropout(p=0.1)
    drop.eval()              # no dropout in this assignment: eval mode is the identity
    if M is not None:
        S = S + M
    return drop(torch.softmax(S, dim=-1))
''',
    },

    # the causal mask as a registered buffer of a module built for this T, dtype and device
    "mask_module_buffer_built_per_call_and_dataclass_param_count": {
        MASK: '''from torch import nn


class CausalMask(nn.Module):
    def __init__(self, T, dtype, device=None):
        super().__init__()
        future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
        mask = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
        self.register_buffer("mask", mask)

    def forward(self):
        return self.mask


def causal_additive_mask(T, dtype, device=None):
    return CausalMask(T, dtype, device)()
''',
        PARAMS: '''from dataclasses import dataclass


@dataclass
class HeadShapes:
    d_model: int
    d_k: int
    d_v: int

    def weights(self, with_output=False):
        shapes = [(self.d_model, self.d_k), (self.d_model, self.d_k), (self.d_model, self.d_v)]
        if with_output:
            shapes.append((self.d_v, self.d_model))
        return sum(a * b for a, b in shapes)


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return HeadShapes(d_model, d_k, d_v).weights(with_output)
''',
    },

    # self-attention as a callable helper class; the scale from the keys' shape as a Python float
    "callable_self_attention_class_and_module_style_scores": {
        SELF: '''class SelfAttentionHead:
    def __init__(self, W_Q, W_K, W_V):
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V

    def __call__(self, X, causal=True):
        Q, K, V = project_qkv(X, self.W_Q, self.W_K, self.W_V)
        S = scaled_scores(Q, K)
        T = X.shape[-2]
        M = causal_additive_mask(T, S.dtype, S.device) if causal else None
        A = attention_weights(S, M)
        return A @ V, A


def self_attention(X, W_Q, W_K, W_V, causal=True):
    return SelfAttentionHead(W_Q, W_K, W_V)(X, causal=causal)
''',
        SCORES: '''class ScaledDotProduct:
    def __call__(self, Q, K):
        scale = 1.0 / math.sqrt(K.size(-1))
        return (Q @ K.mT) * scale


def scaled_scores(Q, K):
    return ScaledDotProduct()(Q, K)
''',
        SHAPES_ANS: '''ans_cross_shapes = "b"  # S: T x T' (queries x keys), O: T x d_v
''',
    },
}

WRONG = {
    # --- q01: nn.Linear modules with the given weights copied in, default bias left on
    "q01_linear_modules_with_copied_weights_keep_default_bias": ({
        PROJ: '''from torch import nn


def project_qkv(X, W_Q, W_K, W_V):
    out = []
    for W in (W_Q, W_K, W_V):
        lin = nn.Linear(W.shape[0], W.shape[1], dtype=X.dtype, device=X.device)
        with torch.no_grad():
            lin.weight.copy_(W.T)      # nn.Linear stores (out, in)
        out.append(lin(X))
    return tuple(out)
''',
    }, {"mistake": "Builds an nn.Linear per weight and copies the given matrix into .weight in the right "
                   "(out, in) layout, but leaves bias=True (the default), so each projection adds nn.Linear's "
                   "own random bias: Q = X W_Q + b_Q, etc., different on every call.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02: the scale kept in a class attribute from the first call
    "q02_scaler_class_attribute_keeps_first_call_d_k": ({
        SCORES: '''class _Scale:
    value = None          # computed once, like a registered constant


def scaled_scores(Q, K):
    if _Scale.value is None:
        _Scale.value = 1.0 / math.sqrt(Q.shape[-1])
    return (Q @ K.transpose(-2, -1)) * _Scale.value
''',
    }, {"mistake": "Keeps the scale in a class attribute set on the first call and never recomputed, so every "
                   "later call with another d_k is scaled by the first call's 1/sqrt(d_k).",
        "where": ["q02", "q07", "q09", "q13"]}),

    # --- q03: the scale read as a harmless temperature
    "q03_sdpa_scale_keyword_read_as_harmless_temperature_answers_c": ({
        SCALE_ANS: '''# F.scaled_dot_product_attention takes the scale as an optional keyword, like a temperature
# hyperparameter: every score is multiplied by the same constant, softmax normalises each row anyway.
ans_scale = "c"
''',
    }, {"mistake": "Reads the 1/sqrt(d_k) factor as an optional keyword of F.scaled_dot_product_attention, a "
                   "harmless temperature, and answers c (nothing changes); without it the scores grow like "
                   "sqrt(512) and each row collapses onto one key (b).",
        "where": ["q03"]}),

    # --- q04: the library's square subsequent mask
    "q04_transformer_square_subsequent_mask_gives_minus_inf": ({
        MASK: '''from torch import nn


def causal_additive_mask(T, dtype, device=None):
    M = nn.Transformer.generate_square_subsequent_mask(T, device=device)
    return M.to(dtype)
''',
    }, {"mistake": "Uses nn.Transformer.generate_square_subsequent_mask, which fills the future with -inf, not "
                   "torch.finfo(dtype).min, so the blocked entries are -inf instead of the required finite "
                   "minimum.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05: attention dropout left in train mode
    "q05_attention_dropout_module_left_in_train_mode": ({
        WEIGHTS: '''from torch import nn


def attention_weights(S, M=None):
    attn_drop = nn.Dropout(p=0.1)      # as in the tutorial's attention block
    if M is not None:
        S = S + M
    return attn_drop(torch.softmax(S, dim=-1))
''',
    }, {"mistake": "Applies an nn.Dropout(0.1) to the weights and never calls .eval(); a fresh module is in "
                   "training mode, so a random tenth of the weights are zeroed and the rest scaled by 1/0.9: "
                   "rows no longer sum to 1 and differ between calls.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: the mask pictured as a gradient gate
    "q06_mask_buffer_read_as_gradient_gate_answers_d": ({
        MASK_ANS: '''# In the model the causal mask is a register_buffer (no grad), so it is what stops gradients
# flowing into the blocked entries; without it, they get none:
ans_mask = "d"
''',
    }, {"mistake": "Reasons from the mask being a registered buffer (no grad) that it is what routes gradients, "
                   "and answers d; the real problem is that position t can read token t+1 (c).",
        "where": ["q06"]}),

    # --- q07: the output from F.scaled_dot_product_attention with the training dropout_p
    "q07_output_from_sdpa_with_training_dropout_p": ({
        SELF: '''import torch.nn.functional as F


def self_attention(X, W_Q, W_K, W_V, causal=True, dropout_p=0.1):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = F.scaled_dot_product_attention(Q, K, V, attn_mask=M, dropout_p=dropout_p)
    return O, A
''',
    }, {"mistake": "Computes O with F.scaled_dot_product_attention and passes the model's dropout_p=0.1, which "
                   "the function applies whenever it is > 0 (it has no eval mode), so O is a random, "
                   "rescaled mix that does not equal A @ V.",
        "where": ["q07", "q09"]}),

    # --- q08: the query kept as a batch of one
    "q08_query_kept_as_batch_of_one_returns_one_by_d_v": ({
        NW: '''import torch.nn.functional as F


def nadaraya_watson(q, K, V):
    q = q.unsqueeze(0)                       # (1, d_k): batch of one query
    kappa = torch.exp(F.linear(q, K) / math.sqrt(q.shape[-1]))   # (1, T)
    return (kappa @ V) / kappa.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "Unsqueezes the query into a batch of one for F.linear and never squeezes it back, so it "
                   "returns shape (1, d_v) instead of (d_v,).",
        "where": ["q08"]}),

    # --- q09: built from zero-initialised linear layers in the default dtype
    "q09_built_from_zero_initialised_linear_layers_in_default_float32": ({
        AVG: '''from torch import nn


def prefix_average_matrix(T):
    # Lesson 07 as a special case: zero query and key maps give the prefix average
    lin = nn.Linear(1, 1, bias=False)
    nn.init.zeros_(lin.weight)
    X = torch.ones(T, 1)
    _, A = self_attention(X, lin.weight.detach(), lin.weight.detach(), torch.ones(1, 1))
    return A
''',
    }, {"mistake": "Builds the matrix through self_attention with zero-initialised nn.Linear weights, which are "
                   "created in the default float32, so the values are right but the matrix is float32, not "
                   "float64 (and not exactly 1/t at float64 precision).",
        "where": ["q09"]}),

    # --- q10: the weights handed to Categorical as logits
    "q10_categorical_built_with_weights_as_logits": ({
        ENT: '''from torch.distributions import Categorical


def row_entropy_bits(A):
    return Categorical(logits=A).entropy() / math.log(2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Builds torch.distributions.Categorical with logits=A instead of probs=A, so it measures the "
                   "entropy of softmax(A) (much flatter rows, blocked keys weighted e^0) instead of A's.",
        "where": ["q10"]}),

    # --- q13: the attention module built once and reused
    "q13_attention_module_built_once_keeps_first_call_weights": ({
        CROSS: '''from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, W_Q, W_K, W_V):
        super().__init__()
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V

    def forward(self, X, Y, M=None):
        Q, K, V = X @ self.W_Q, Y @ self.W_K, Y @ self.W_V
        A = attention_weights(scaled_scores(Q, K), M)
        return A @ V, A


_layer = None


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    global _layer
    if _layer is None:                 # build the layer once, like in __init__
        _layer = CrossAttention(W_Q, W_K, W_V)
    return _layer(X, Y, M)
''',
    }, {"mistake": "Builds the attention module on the first call and reuses it, so every later call projects "
                   "with the first call's W_Q, W_K, W_V (and fails when their sizes or dtype differ).",
        "where": ["q13"]}),

    # --- q14: nn.MultiheadAttention's sequence-first layout
    "q14_multihead_sequence_first_layout_read_as_keys_rows_answers_c": ({
        SHAPES_ANS: '''# nn.MultiheadAttention (batch_first=False) lays tensors out sequence-first, and the
# sequence that is attended over (the source, keys/values) comes first: S is T' x T and O has T' rows.
ans_cross_shapes = "c"
''',
    }, {"mistake": "Carries nn.MultiheadAttention's sequence-first (L, N, E) layout over as 'the attended "
                   "sequence comes first' and answers c (S: T' x T, O: T' x d_v); queries index the rows, so "
                   "S is T x T' and O is T x d_v (b).",
        "where": ["q14"]}),

    # --- q15: the square-only library helper read as "never"
    "q15_square_subsequent_mask_signature_read_as_never_answers_b": ({
        CAUSAL_ANS: '''# nn.Transformer.generate_square_subsequent_mask(sz) only takes one size: a causal mask is
# square by construction, and cross-attention scores are T x T'.
ans_cross_causal = "b"
''',
    }, {"mistake": "Reasons from nn.Transformer.generate_square_subsequent_mask taking one size that a causal "
                   "mask can only be square, and answers b (never); it makes sense when X and Y share a time "
                   "axis (d).",
        "where": ["q15"]}),

    # --- q16: the cost read off the nn.Linear projections
    "q16_cost_read_off_linear_projections_answers_linear": ({
        COST_ANS: '''# The layer is nn.Linear projections applied token by token: T * d_model * d_k multiply-adds,
# so doubling T doubles the work.
ans_complexity = "a"
''',
    }, {"mistake": "Costs the layer by its nn.Linear projections, which are applied per token and are linear in "
                   "T, and answers a; S = QK^T has T^2 entries of d_k multiply-adds each, quadratic (c).",
        "where": ["q16"]}),
}
