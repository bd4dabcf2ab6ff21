"""Thirty-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the student-facing
markdown and solution cells of the master notebook (its public `grader.check` test cells were on screen too,
since they sit between the solution cells), `full_marks.ipynb`, `harness.py`, blind37.py in full for the
format, lesson 79's text in /work/shared/lessons/ (the seed-42 trace, the seed-7 self-attention check, the
entropy table, the soft-lookup slide), and only the variant NAMES of blind.py .. blind36.py, so that their
mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' wrong-variant names lean on q4 (~130), q1 (~120), q8 (~115) and q2 (~90);
q5, q6 and q7 have about 20-27 each. This round leans on the multiple-choice questions and on code shapes the
earlier names do not show: q1 x1, q2 x2, q4 x2, q5 x3, q6 x2, q7 x2, q8 x2. The mix: the scale line rebinding
`d_k` to its own root and then rooting it again (a refactor slip: the scores are divided by d_k ** 0.25),
`len()` of the (n_samples, d_k) draw used as the width in q2's scale, torch.cov fed the sample matrix with the
NumPy convention that rows are variables (a 10000 x 10000 covariance of samples instead of the 16 x 16 one of
coordinates), a NumPy-style boolean mask `p[p > 0]` that flattens all rows into one sum, `torch.std_mean`
unpacked as (mean, std), `max()` over a confidence dict (the largest KEY, not the most likely option), the
answer written as the unquoted formula `d_k` (it reads the notebook's global d_k = 4 from the trace cell), a
probe that matches the measured variance to the options with exact float `==` and so keeps its placeholder,
a keyword loop without `break` whose last hit is the "unweighted" option, the lesson's seed-7 check written
with the weight COLUMN W[j, 0] instead of the row W[0, j], the `(if_false, if_true)[cond]` idiom written the
other way round, `str(["D"])` used to get past the "must be a str" format check, one preallocated `out=`
buffer appended for every head (all heads become the last one), and the input X reused as the head buffer.

Public sources: numpy/numpy#6327 and jmbejara/comp-econ-sp18#6 (np.cov treats each ROW as a variable: a
student got a 500 x 500 matrix instead of 5 x 5), pytorch/pytorch#50466 and #58311 (torch.cov follows the
same convention) for the q2 covariance variant; pytorch/tutorials#3079 (a comment read torch.std_mean's
result as "average and standard deviation" though it returns (std, mean)) for q4's table; tensorflow#5838
and unifyai/ivy#16075 (boolean-mask results are flattened) for q4's entropy; the Q&A page
wiki.kunaldawn.com/.../stackoverflow.com_en_all_2023-11/questions/40656873 and codecademy's "max_key"
exercise (max(d) compares keys; the argmax needs key=d.get) for q5; archive.petercollingridge.co.uk
("Boolean indices": `("a is odd", "a is even")[a % 2 == 0]`, the false value first) and
pedrogonzalez.dev ("The surprising behavior of boolean indexing") for q7. scipy.stats.entropy's default
axis=0 (scipy/scipy#2956, #10712) was considered for q4 and NOT used, because scipy is not in the course's
environment. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake; `where`
lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip lists q8 too).
Correct variants are valid but written differently from full_marks (scores by torch.vmap over torch.mv with
the weights from Categorical(logits=...).probs; dot products by the polarisation identity
(|q+k|^2 - |q-k|^2)/4; entropy from OneHotCategorical with a broadcast-product table; heads as as_strided
views of the projections; q5's letter chosen from the growth exponent of the student's own
`dot_product_variance`). Every variant was run against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`, the lesson's formula and table, `torch.nn.MultiheadAttention`) on several
shapes and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

_Q6_OPTIONS = '''
options = {
    "A": "A weighted average of all the rows of X, with weights softmax_j(X_i . X_j / sqrt(d_k))",
    "B": "X_i itself, since each token attends only to itself",
    "C": "The single row X_j whose dot product with X_i is largest",
    "D": "The plain (unweighted) mean of the rows of X",
}
'''


CORRECT = {
    "attention_vmap_mv_scores_categorical_probs": {"attention": '''
from torch.distributions import Categorical


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # one matrix-vector product K @ q per query row, vectorised over the rows of Q
    scores = torch.vmap(torch.mv, in_dims=(None, 0))(K, Q) * math.pow(d_k, -0.5)   # (T_q, T_k)
    weights = Categorical(logits=scores, validate_args=False).probs                 # softmax over keys
    output = torch.mm(weights, V)                                                   # (T_q, d_v)
    return output, weights
'''},
    "variance_polarisation_identity": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        q = q / math.sqrt(d_k)                       # (q / sqrt(d_k)) . k = (q . k) / sqrt(d_k)
    plus = torch.linalg.vector_norm(q + k, dim=1) ** 2
    minus = torch.linalg.vector_norm(q - k, dim=1) ** 2
    dots = (plus - minus) / 4                        # polarisation: q . k = (|q+k|^2 - |q-k|^2) / 4
    return torch.var(dots, dim=0, correction=1).item()
'''},
    "entropy_one_hot_categorical_broadcast_table": {"softmax_entropy": '''from torch.distributions import OneHotCategorical


def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return OneHotCategorical(logits=logits, validate_args=False).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (k * q).sum(dim=-1)                    # broadcast (5, d) * (1, d): the 5 scores q . k_j
        scaled = raw * d ** -0.5
        table.append(dict(d=d,
                          raw_std=raw.var().sqrt().item(),
                          scaled_std=scaled.var().sqrt().item(),
                          H_raw=softmax_entropy(raw).item(),
                          H_scaled=softmax_entropy(scaled).item()))
    return table
'''},
    "mha_heads_as_strided_views": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def heads_of(M):
        M = M.contiguous()
        # head h, token t, column c  ->  M[t, h * d_k + c]
        return M.as_strided((n_heads, T, d_k), (d_k, d_model, 1))

    outs = [attention(q_h, k_h, v_h, d_k)[0]
            for q_h, k_h, v_h in zip(heads_of(X @ W_Q), heads_of(X @ W_K), heads_of(X @ W_V))]
    merged = torch.stack(outs, dim=1).reshape(T, d_model)   # (T, n_heads, d_k) -> (T, d_model), head 0 first
    return merged @ W_O
'''},
    "q5_letter_from_measured_growth_exponent": {"q5_answer": '''
# how fast does the variance grow with d_k? measure at 16 and 64 with the q2 function
_v16 = dot_product_variance(16, 10000, torch.Generator().manual_seed(0))
_v64 = dot_product_variance(64, 10000, torch.Generator().manual_seed(0))
_exponent = math.log(_v64 / _v16) / math.log(64 / 16)          # about 1: Var grows like d_k ** 1
_growth = {"A": 0.0, "B": 0.5, "C": 1.0, "D": 2.0}             # 1, sqrt(d_k), d_k, d_k ** 2
q5_answer = min(_growth, key=lambda letter: abs(_growth[letter] - _exponent))
'''},
}


WRONG = {
    "q1_d_k_rebound_to_its_root_then_rooted_again": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    d_k = math.sqrt(d_k)                          # the scale factor is sqrt(d_k)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "d_k is overwritten with its square root and the scores are then divided by math.sqrt(d_k) "
                   "again, so they are divided by d_k ** 0.25 instead of sqrt(d_k) (by sqrt(2) instead of 2 in "
                   "the lesson's d_k = 4 trace): the weights are too sharp.",
       "where": ["q1", "q8"]}),

    "q2_scale_from_len_of_sample_matrix": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(len(q))            # divide by sqrt of the vector length
    return dots.var().item()
'''}, {"mistake": "The scale uses len(q), but q is the (n_samples, d_k) matrix of all queries, so len(q) is "
                   "n_samples, not d_k: the scaled dot products are divided by sqrt(n_samples) and their "
                   "variance is d_k / n_samples (0.0016 for d_k = 16, n = 10000) instead of about 1. The raw "
                   "variance is right.",
       "where": ["q2"]}),

    # numpy/numpy#6327, jmbejara/comp-econ-sp18#6, pytorch/pytorch#58311: cov treats rows as variables
    "q2_covariance_of_products_with_samples_as_variables": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    products = q * k                               # (n_samples, d_k): column i holds the terms q_i k_i
    if scaled:
        products = products / math.sqrt(d_k)
    # Var(sum_i X_i) = sum_i sum_j Cov(X_i, X_j): add up the covariance matrix of the d_k terms
    return torch.cov(products).sum().item()
'''}, {"mistake": "torch.cov (like np.cov) takes each ROW as a variable and the columns as observations, so "
                   "cov(products) is the n_samples x n_samples covariance of the samples over their d_k "
                   "coordinates, not the d_k x d_k covariance of the terms; its sum is about n_samples "
                   "(10000) instead of d_k. It needs torch.cov(products.T).",
       "where": ["q2"]}),

    # tensorflow/tensorflow#5838, unifyai/ivy#16075: boolean-mask selection returns a flat 1-D result
    "q4_entropy_boolean_mask_flattens_rows": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    nz = p[p > 0]                                  # drop the zeros so that 0 * log 0 never appears
    return -(nz * torch.log(nz)).sum(dim=-1)
''' + _TABLE}, {"mistake": "The mask p[p > 0] returns a flat 1-D tensor of all the positive probabilities of "
                            "every row, so the sum over dim -1 adds the entropies of all rows into one number: "
                            "right for a single 1-D row (the table), but a (3, 5) batch gives one scalar "
                            "(3 ln 5) instead of three values ln 5, and the shape (...) is lost.",
                 "where": ["q4"]}),

    # pytorch/tutorials#3079: torch.std_mean returns (std, mean)
    "q4_table_std_mean_unpacked_mean_first": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        raw_mean, raw_std = torch.std_mean(raw)
        scaled_mean, scaled_std = torch.std_mean(scaled)
        results.append({"d": d, "raw_std": raw_std.item(), "scaled_std": scaled_std.item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "torch.std_mean returns (std, mean), but it is unpacked as (mean, std), so raw_std and "
                   "scaled_std hold the MEANS of the five scores (not their standard deviations); the entropy "
                   "columns are right.",
       "where": ["q4"]}),

    # the max_key exercise / the Q&A page on max over a dict: max(d) compares the keys
    "q5_answer_max_of_confidence_dict_returns_largest_key": ({"q5_answer": '''
# how sure I am of each option: Var(q.k) adds one unit per coordinate, so it is d_k
confidence = {"A": 0.05, "B": 0.15, "C": 0.75, "D": 0.05}
q5_answer = max(confidence)
'''}, {"mistake": "max() over a dict compares its KEYS, so it returns the alphabetically largest letter 'D' "
                   "(d_k^2), not 'C', the option with the highest confidence (that needs "
                   "max(confidence, key=confidence.get)).",
       "where": ["q5"]}),

    "q5_answer_formula_unquoted_reads_global_d_k": ({"q5_answer": '''
q5_answer = d_k        # Var(q^T k) = d_k
'''}, {"mistake": "The answer is written as the unquoted formula d_k instead of the letter 'C'; in the "
                   "notebook this silently reads the global d_k = 4 left by the lesson's trace cell, so "
                   "q5_answer is the integer 4, not a letter.",
       "where": ["q5"]}),

    "q5_answer_probe_matched_by_exact_float_equality": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and see which option it equals
_measured = dot_product_variance(16, 10000, torch.Generator().manual_seed(0))
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = "A"                      # placeholder until the probe finds the matching option
for _letter, _value in _options.items():
    if _measured == _value:
        q5_answer = _letter
'''}, {"mistake": "The measured variance (about 16.0, but a sampled float such as 16.03) is compared with the "
                   "options by exact ==, which never holds, so the loop never assigns and the placeholder "
                   "'A' is submitted; it should pick the closest option (C).",
       "where": ["q5"]}),

    "q6_answer_keyword_loop_without_break_keeps_unweighted": ({"q6_answer": _Q6_OPTIONS + '''
# the output row is a weighted combination of the rows: find the option that says "weighted"
for _letter, _text in options.items():
    if "weighted" in _text:
        q6_answer = _letter
'''}, {"mistake": "The keyword loop has no break, so after matching A ('A weighted average ...') it goes on "
                   "and overwrites the answer with the last match, D, whose text contains 'unweighted' (the "
                   "plain mean), instead of A.",
       "where": ["q6"]}),

    "q6_answer_lesson_check_reads_weight_column": ({"q6_answer": '''
# the lesson's check: with Q = K = V = X, is output row 0 the softmax-weighted sum of the rows of X?
_g = torch.Generator().manual_seed(7)
_X = torch.randn(4, 8, generator=_g)
_out, _W = attention(_X, _X, _X, 8)
_manual0 = sum(_W[j, 0] * _X[j] for j in range(4))
q6_answer = "A" if torch.allclose(_manual0, _out[0], atol=1e-5) else "D"
'''}, {"mistake": "The lesson's check indexes the weights as W[j, 0] (column 0, how much each token takes from "
                   "token 0) instead of W[0, j] (row 0, what token 0 takes from each token), so the "
                   "weighted sum does not match output row 0 and the cell falls back to 'D' instead of 'A'.",
       "where": ["q6"]}),

    # archive.petercollingridge.co.uk "Boolean indices", pedrogonzalez.dev: (if_false, if_true)[cond]
    "q7_answer_bool_used_as_index_picks_second_letter": ({"q7_answer": '''
# does the gradient reach every key? (a hard lookup / argmax would give zeros)
_s = torch.tensor([1.0, 2.0, 0.5, -1.0], requires_grad=True)
torch.softmax(_s, dim=0)[1].backward()
_soft = bool((_s.grad != 0).all())          # True: soft, differentiable lookup
q7_answer = "DC"[_soft]                     # D if soft, C if hard
'''}, {"mistake": "A bool used as an index counts as 0/1 and the (if_false, if_true)[cond] idiom wants the "
                   "false value first; 'DC'[True] is 'C' (the hard argmax lookup) although the check found "
                   "the soft, differentiable lookup (D).",
       "where": ["q7"]}),

    "q7_answer_list_stringified_to_pass_format_check": ({"q7_answer": '''
q7_answer = str(["D"])      # was ["D"]; the check says it must be a str
'''}, {"mistake": "The answer list was wrapped in str() to get past the 'must be a str' message, which gives "
                   "the 5-character string \"['D']\" (brackets and quotes included), not the letter 'D'.",
       "where": ["q7"]}),

    "q8_one_output_buffer_shared_by_every_head": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    buf = torch.empty(T, d_k, dtype=X.dtype)        # allocate the head output once, not per head
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        _, w = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        torch.matmul(w, V[:, cols], out=buf)
        heads.append(buf)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Every head writes into the same preallocated buffer and the list holds that one tensor "
                   "n_heads times, so after the loop all the 'heads' equal the LAST head's output; right "
                   "with one head, wrong as soon as n_heads > 1.",
       "where": ["q8"]}),

    "q8_input_reused_as_head_buffer_in_place": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = X                       # the heads fill a (T, d_model) matrix, the same shape as X
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        concat[:, cols] = out_h
    return concat @ W_O
'''}, {"mistake": "`concat = X` does not copy, so the head outputs are written into the caller's X in place: "
                   "the returned value is right, but the input tensor is overwritten, and a second call or a "
                   "reference (e.g. torch.nn.MultiheadAttention) computed afterwards from the same X gets "
                   "different numbers; it needs a new buffer (torch.empty_like(X) or torch.cat).",
       "where": ["q8"]}),
}
