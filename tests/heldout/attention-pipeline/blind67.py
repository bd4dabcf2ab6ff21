"""Blind held-out set 67 for attention-pipeline.

Sixty-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text, question statements and public checks of
attention-pipeline.ipynb (tokens are rows, leading batch dimensions allowed, d_v may differ from d_k, T_q
from T_k in cross-attention, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min), the solution
cells of full_marks.ipynb (which defines no demo tensors: its only globals are math, torch, the functions and
the answer variables), `harness.py`, blind66.py in full (for the format), and only the variant names of the
earlier blind sets (to avoid repeating a mistake in the same form).

Round 67's angle: THE GLUE BETWEEN PARTS. Each function on its own is written right, but it is called or wired
wrong: a helper whose dtype keyword defaults to float32 and is never passed the input's dtype (q01); a
row-dot helper that already transposes its second argument handed pre-transposed keys (q02); the mask built
with torch.where's branches in keep-mask order for a block-mask condition (q04); attention_weights called
with the mask in the scores' position, harmless while the mask exists and a TypeError without it (q07); an
out-of-place `.div` whose result is dropped (q08); effective_tokens calling the (right) entropy helper on
the transposed weights (q10); a recursive call for the with_output branch with d_k and d_v swapped (q12);
and cross-attention's scale read from the cell's try-out global `d_k` instead of the queries passed in
(q13). The written answers are computed and go wrong at a junction: scaled_scores called keys-first in
the scale experiment (q03); the leak probe reading the masked weights instead of the unmasked ones (q06);
singular values taken from element [0] (U) of svd's (U, S, Vh) (q11); S rebuilt through project_qkv, which
projects one sequence, so the keys come from X (q14); Question 6's answer variable reused (q15); the
growth measured on element [0] (O) of self_attention's (O, A) pair (q16). q05 and q09 are reached through
`where`: the q05 and q09 public checks call scaled_scores, causal_additive_mask and self_attention, which
the q02 and q04 variants break (and the q01 variant changes A's dtype).

Public material found with the `search` tool, and what it showed:
- QuantEcon/QuantEcon.py#222 (converter helpers hard-wired to "float32"; "Original reason was that I didn't
  know any better"), grantmerz/deepdisc#50 (a helper whose float32 default meant "'raw' data scaling will
  return a float32 array without regarding the dtype argument"), huggingface/datasets#5517 (float64
  features silently downcast to float32 by a default dtype): the q01 helper.
- celery/celery#939 ("The 3rd and 4th arguments in this call should be swapped"), facebookresearch/ParlAI#358
  ("reorder parameters of 'score_match' function to match function calls from elsewhere"),
  frazane/scoringrules#31 ("Correct order of arguments in pass-through to core score function",
  unnoticed because it "shouldn't have had any impact before"), modelscope/FunASR#2085 (wrong arguments
  passed into a helper): the positional mix-ups of q03 (scaled_scores(keys, query)), q07
  (attention_weights(M, S), silent while M + S == S + M) and q12 (a pass-through with d_k, d_v swapped,
  silent while d_k == d_v).
- tinygrad/tinygrad#8674 ("built is_causal mask ... and reversed the mask -inf order") and the
  keras-team/keras#22097 review (`torch.where(causal_mask == 1, 0.0, large_negative)`: a keep condition
  with the (open, blocked) branch order, which a block condition turns inside out): the q04 variant.
- the torch.div reference pages (pytorch 1.12 docs, mlverse torch_div: div "returns a new resulting
  tensor"; the in-place form is div_): the q08 variant's dropped result.
- axelspringer/ForwardTacotron#22 ("Fixed masking bug with swapped axes"): a helper fed the transposed
  matrix, as in q10.
- the torch.linalg.svd documentation ("The returned decomposition is a named tuple (U, S, Vh)"; "for
  computing only the singular values, use torch.linalg.svdvals()") and mlverse torch_svd ("returns a
  namedtuple (U, S, V)"): the q11 variant's element [0].
- ise-uiuc/WhiteFox starcoder-generated/.../sfdp=1/sfdp=1_5.py (`self.scale_factor =
  math.sqrt(query.size(-1))` reading the module-level demo `query`), sfdp=1_8.py (`math.sqrt(64)` fixed to
  the demo's width), Charmaineem/Hands-On-LLMs Transformer/layers.py (`d_k = k.dim()`), and the DLS
  Course 5 W4 A1 forum thread (Nemotron-CC-Math excerpt: weights that do not match because of how d_k was
  obtained): the q13 variant's scale from a try-out global that equals the public checks' head size.
- thuml/iTransformer#165 and CyberZHG/keras-self-attention#32 (attention layers returning an (output,
  attention) pair that callers must unpack in the right order): the q16 variant's element [0]; the q14
  variant is the same junction with project_qkv, which returns the projections of one sequence.
The q06 and q15 variants follow the brief's list (an answer computed from the wrong cell's variable).

The correct variants are written differently from full_marks: projections as a generator of torch.matmul
calls and scores through `.mT` times the reciprocal root of K's width; the mask from compared aranges in
torch.where over 0-d tensors of the requested dtype and a hand-written max-shifted softmax; a self-attention
that passes everything by keyword and reads T off the queries, and a cross-attention with keyword helper
calls and an einsum mix; a max-shifted kernel through torch.mv, the prefix average from torch.where over
compared float64 row and column numbers, entropies with the weights clamped to the dtype's smallest normal
number inside log2 and torch.pow for effective tokens; a one-line count with a conditional term, ranks from
torch.linalg.svdvals above a relative tolerance, letters from chr/ord.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w67-attention-pipeline/: each variant's notebook built the way harness.py builds it and run top to
bottom (all code cells but otter's; no cell raised), the public checks run as plain functions from the
assignment's test cells, then every function compared with full_marks' (torch.softmax of S + M) on
unbatched, (2,), (1,) and (2, 3) batched inputs, T_q != T_k, d_k != d_v, d_k in {3, 4, 5, 8}, T = 1, random
additive masks, rows with every key blocked, in float64, float32, float16 and bfloat16 (dtype and shape
compared exactly, values within each dtype's precision); the count with and without W_O on several sizes;
every written answer compared with the right letter or integer. full_marks and the five correct variants
agree everywhere (16-bit dtypes within their precision), and each wrong variant differs or fails in its own
question and only in questions listed in its `where`.

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
    # projections as a generator of torch.matmul calls unpacked into three names; the scores through
    # torch.matmul with the .mT view of the keys, multiplied by the reciprocal of the root of K's width
    "generator_matmul_projection_and_mt_reciprocal_root_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = (torch.matmul(X, W) for W in (W_Q, W_K, W_V))
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    inv_root = 1.0 / math.sqrt(K.size(-1))
    return torch.matmul(Q, K.mT) * inv_root
''',
    },
    # the mask from comparing a column arange with a row arange inside torch.where on 0-d tensors of the
    # requested dtype; the weights from a max-shifted softmax written out by hand in the input's dtype
    "arange_compare_where_mask_and_amax_shifted_manual_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    in_future = pos.unsqueeze(0) > pos.unsqueeze(1)          # key index > query index
    blocked = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    open_ = torch.tensor(0, dtype=dtype, device=device)
    return torch.where(in_future, blocked, open_)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
    },
    # self-attention that reads T off the queries and passes everything by keyword; cross-attention
    # through the helpers with keyword arguments and an einsum mix
    "keyword_helpers_self_attention_and_einsum_mix_cross": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V)
    S = scaled_scores(Q=Q, K=K)
    mask = causal_additive_mask(T=Q.shape[-2], dtype=S.dtype, device=S.device) if causal else None
    A = attention_weights(S=S, M=mask)
    return A.matmul(V), A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    queries = X @ W_Q
    keys, values = Y @ W_K, Y @ W_V
    A = attention_weights(S=scaled_scores(Q=queries, K=keys), M=M)
    O = torch.einsum("...qk,...kv->...qv", A, values)
    return O, A
''',
    },
    # the kernel shifted by its largest score (same ratio, no overflow); the prefix average from torch.where
    # over compared float64 row and column numbers; entropies with the weights clamped to the dtype's
    # smallest normal number inside log2 (0 * finite = 0), effective tokens from torch.pow
    "amax_shifted_mv_kernel_where_prefix_and_tiny_clamped_log2_entropy": {
        NW: '''def nadaraya_watson(q, K, V):
    s = torch.mv(K, q) / math.sqrt(q.shape[0])
    w = torch.exp(s - s.amax())                  # shifting every score by the same amount leaves the ratio
    return (w.unsqueeze(-1) * V).sum(dim=0) / w.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    rows = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
    cols = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(0)
    return torch.where(cols <= rows, 1.0 / rows, torch.zeros((), dtype=torch.float64))
''',
        ENT: '''def row_entropy_bits(A):
    safe = A.clamp_min(torch.finfo(A.dtype).tiny)
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
    },
    # a one-line count with a conditional term; ranks from torch.linalg.svdvals above a tolerance; letters
    # built with chr/ord
    "conditional_term_count_svdvals_rank_and_chr_letters": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return 2 * d_model * d_k + d_model * d_v + (d_v * d_model if with_output else 0)
''',
        RANK: '''# (a) S factors through d_k = 8 dimensions, whatever T = 100 is
max_rank_S = min(8, 100)

# (b) count the singular values of the lesson's score matrix that are not round-off
_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_sv11 = torch.linalg.svdvals(scaled_scores(_Q11, _K11))
rank_S_lesson = int((_sv11 > 1e-10 * _sv11.max()).sum().item())
''',
        SCALE_ANS: '''ans_scale = chr(ord("a") + 1)
''',
        MASK_ANS: '''ans_mask = chr(ord("a") + 2)
''',
        SHAPES_ANS: '''ans_cross_shapes = chr(ord("a") + 1)
''',
        CAUSAL_ANS: '''ans_cross_causal = chr(ord("a") + 3)
''',
        COST_ANS: '''ans_complexity = chr(ord("a") + 2)
''',
    },
}

WRONG = {
    # --- q01: a helper's keyword default decides the dtype because the caller never passes it
    "q01_helper_dtype_keyword_default_float32_never_passed": ({
        PROJ: '''def _project(X, W, dtype=torch.float32):
    """One projection, returned as `dtype`."""
    return torch.matmul(X, W).to(dtype)


def project_qkv(X, W_Q, W_K, W_V):
    return _project(X, W_Q), _project(X, W_K), _project(X, W_V)
''',
    }, {"mistake": "Each projection goes through a helper whose dtype keyword defaults to float32, and "
                   "project_qkv never passes X.dtype, so float64 and float16 inputs come back as float32 "
                   "(the products themselves are right); self_attention, which calls project_qkv, inherits it.",
        "where": ["q01", "q07", "q09", "q13"]}),

    # --- q02: a row-dot helper that already transposes its second argument is given transposed keys
    "q02_row_dot_helper_given_already_transposed_keys": ({
        SCORES: '''def _dot_rows(A, B):
    """Dot products of every row of A with every row of B: (..., m, d), (..., n, d) -> (..., m, n)."""
    return A @ B.transpose(-2, -1)


def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return _dot_rows(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
''',
    }, {"mistake": "The helper _dot_rows already transposes its second argument, and scaled_scores hands it "
                   "K.transpose(-2, -1), so the keys are transposed twice and the product is Q @ K: a shape "
                   "error whenever T_k != d_k, and the wrong matrix when they happen to be equal.",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # --- q03: the experiment calls scaled_scores with keys and queries in the wrong order
    "q03_experiment_calls_scores_helper_keys_first_answers_a": ({
        SCALE_ANS: '''# experiment: one query against 8 keys at d_k = 512, with and without the 1/sqrt(d_k)
torch.manual_seed(0)
_q3 = torch.randn(1, 512, dtype=torch.float64)
_keys3 = torch.randn(8, 512, dtype=torch.float64)


def _entropy_bits(p):
    p = p[p > 0]
    return float(-(p * torch.log2(p)).sum())


_H_scaled = _entropy_bits(torch.softmax(scaled_scores(_keys3, _q3), dim=-1))
_H_unscaled = _entropy_bits(torch.softmax(_q3 @ _keys3.T, dim=-1))
if _H_unscaled < _H_scaled:
    ans_scale = "b"
elif _H_unscaled > _H_scaled:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "The scaled run calls scaled_scores(keys, query): an (8, 1) score column whose softmax over a "
                   "single entry is 1, entropy 0; the unscaled row has 0.002 bits, more than 0, so the student "
                   "concludes that deleting the scale makes rows flatter and answers 'a' instead of 'b'.",
        "where": ["q03"]}),

    # --- q04: torch.where's branches written in keep-mask order for a block-mask condition
    "q04_where_branches_in_keep_mask_order_for_future_condition": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    open_ = torch.zeros((), dtype=dtype, device=device)
    blocked = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(future, open_, blocked)
''',
    }, {"mistake": "torch.where(cond, a, b) takes a where cond holds; the condition marks the future but the "
                   "branches are written (open, blocked) as in code whose condition marks the keys to keep, so "
                   "the future is open and the past and diagonal are blocked.",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # --- q06: the leak probe looks at the masked weights instead of the unmasked ones
    "q06_leak_probe_reads_the_masked_weights_answers_d": ({
        MASK_ANS: '''# experiment: the same scores with and without the causal mask
torch.manual_seed(0)
_S6 = torch.randn(5, 5, dtype=torch.float64)
_A_masked = attention_weights(_S6, causal_additive_mask(5, torch.float64))
_A_open = attention_weights(_S6)
if not torch.allclose(_A_open.sum(-1), torch.ones(5, dtype=torch.float64)):
    ans_mask = "a"
elif bool((_A_masked.triu(1) > 0).any()):        # can position t read a later token?
    ans_mask = "c"
elif int(torch.linalg.matrix_rank(_S6)) < 5:
    ans_mask = "b"
else:
    ans_mask = "d"
''',
    }, {"mistake": "The check 'can position t read a later token' is run on _A_masked (with the mask) instead of "
                   "_A_open (mask switched off), finds no weight above the diagonal, rules out 'c', and the "
                   "chain falls through to 'd' (no gradient) instead of 'c'.",
        "where": ["q06"]}),

    # --- q07: the mask passed to attention_weights in the scores' position
    "q07_weights_helper_called_with_mask_in_first_position": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(M, S)
    return A @ V, A
''',
    }, {"mistake": "attention_weights(S, M=None) is called as attention_weights(M, S). With the causal mask the "
                   "sum M + S is the same, so the causal path is right; with causal=False the helper gets "
                   "S=None and adds None to the scores, a TypeError.",
        "where": ["q07", "q13"]}),

    # --- q08: the out-of-place division by sqrt(d_k) is computed and thrown away
    "q08_scale_division_result_dropped": ({
        NW: '''def nadaraya_watson(q, K, V):
    scores = K @ q
    scores.div(math.sqrt(q.shape[-1]))
    kappa = torch.exp(scores)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "scores.div(...) returns a new tensor that is never assigned (div_ or scores = ... was "
                   "meant), so the kernel is exp(q . k) without the 1/sqrt(d_k) and the weights are too sharp.",
        "where": ["q08"]}),

    # --- q10: effective_tokens calls the entropy helper on the transposed weights
    "q10_effective_tokens_calls_entropy_on_transposed_weights": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A.transpose(-2, -1))
''',
    }, {"mistake": "effective_tokens passes A.transpose(-2, -1) to row_entropy_bits, so it measures the key "
                   "columns instead of the query rows: wrong values for a causal A and shape (..., T_k) "
                   "instead of (..., T_q) when the two lengths differ. row_entropy_bits itself is right.",
        "where": ["q10"]}),

    # --- q11: singular values taken from the first element of svd's (U, S, Vh) tuple
    "q11_lesson_rank_counted_on_svd_first_output_u": ({
        RANK: '''max_rank_S = 8

_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_sing = torch.linalg.svd(scaled_scores(_Q11, _K11))[0]      # the singular values
rank_S_lesson = int((_sing > 1e-10).sum())
''',
    }, {"mistake": "torch.linalg.svd returns (U, S, Vh); element [0] is the 5 x 5 matrix U, not the singular "
                   "values, so the count of 'singular values above the tolerance' counts positive entries of U "
                   "and rank_S_lesson is not 2.",
        "where": ["q11"]}),

    # --- q12: the with_output branch recurses with d_k and d_v swapped
    "q12_recursive_call_passes_d_v_and_d_k_swapped": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    if with_output:
        return qkv_param_count(d_model, d_v, d_k) + d_v * d_model
    return d_model * (2 * d_k + d_v)
''',
    }, {"mistake": "The with_output branch reuses the function for W_Q, W_K, W_V but passes (d_model, d_v, d_k), "
                   "counting d_model * (2 d_v + d_k); right whenever d_k == d_v (the lesson, the exercise), wrong "
                   "with W_O when they differ.",
        "where": ["q12"]}),

    # --- q13: the scale inside cross_attention read from the cell's demo global d_k
    "q13_inline_scores_scaled_by_demo_global_d_k": ({
        CROSS: '''# sizes for a quick try-out of cross-attention
d_model, d_k, d_v = 6, 4, 2
_X13, _Y13 = torch.randn(5, d_model), torch.randn(3, d_model)
_W13 = [torch.randn(d_model, d_k), torch.randn(d_model, d_k), torch.randn(d_model, d_v)]


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    A = attention_weights(S, M)
    return A @ V, A


print([t.shape for t in cross_attention(_X13, _Y13, *_W13)])
''',
    }, {"mistake": "The scores are written inline and divided by math.sqrt(d_k) where d_k is the cell's "
                   "try-out global (4), not the width of the queries passed in: right whenever the head size "
                   "is 4 (both public checks), wrong scale for any other d_k.",
        "where": ["q13"]}),

    # --- q14: S rebuilt through project_qkv, which projects one sequence only
    "q14_scores_rebuilt_through_project_qkv_of_x_answers_a": ({
        SHAPES_ANS: '''# experiment: T = 5 queries, T' = 3 keys/values, d_v = 2
torch.manual_seed(0)
_X14, _Y14 = torch.randn(5, 6, dtype=torch.float64), torch.randn(3, 6, dtype=torch.float64)
_W14 = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 2, dtype=torch.float64)]
_O14, _A14 = cross_attention(_X14, _Y14, *_W14)
_Q14, _K14, _V14 = project_qkv(_X14, *_W14)          # cross_attention does not return S: rebuild it
_S14 = scaled_scores(_Q14, _K14)
_T, _Tp, _dv = 5, 3, 2
_options = {"a": ((_T, _T), (_T, _dv)), "b": ((_T, _Tp), (_T, _dv)),
            "c": ((_Tp, _T), (_Tp, _dv)), "d": ((_T, _Tp), (_Tp, _dv))}
_seen = (tuple(_S14.shape), tuple(_O14.shape))
ans_cross_shapes = [k for k, v in _options.items() if v == _seen][0]
''',
    }, {"mistake": "To get S (which cross_attention does not return) the student calls project_qkv(X, ...), "
                   "which projects one sequence, so the keys come from X and S is T x T; with O measured "
                   "right as T x d_v the match is 'a' instead of 'b'.",
        "where": ["q14"]}),

    # --- q15: the answer copied from Question 6's variable
    "q15_answer_set_from_q06_ans_mask_variable": ({
        CAUSAL_ANS: '''ans_cross_causal = ans_mask   # same reason as Question 6: the mask stops a token reading ahead
''',
    }, {"mistake": "ans_cross_causal is assigned from ans_mask, the answer variable of Question 6 ('c'), which "
                   "here reads 'whenever T = T'', instead of 'd'.",
        "where": ["q15"]}),

    # --- q16: the growth measured on the first element of self_attention's (O, A) pair
    "q16_growth_measured_on_first_returned_output_answers_a": ({
        COST_ANS: '''# measure how many entries the score stage produces when T doubles
def _score_entries(T, d=8):
    torch.manual_seed(0)
    X = torch.randn(T, d, dtype=torch.float64)
    W = [torch.randn(d, d, dtype=torch.float64) for _ in range(3)]
    return self_attention(X, *W)[0].numel()       # the T x T matrix


_ratio = _score_entries(256) / _score_entries(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}.get(round(_ratio), "d")
''',
    }, {"mistake": "self_attention returns (O, A); the experiment counts the entries of element [0], the "
                   "T x d_v output, instead of the T x T weights [1], so doubling T doubles the count and the "
                   "answer is 'a' (linear) instead of 'c'.",
        "where": ["q16"]}),
}
