"""Twenty-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the lesson texts, and only the module
docstrings and variant names of blind.py .. blind26.py (so that their mistakes are not repeated in the
same form). The earlier sets' names were counted per question: q7, q1, q4 and q8 had the fewest
variants, so this set leans towards them while keeping about half of its wrong variants in the core.

This round is a mixed class: one small slip inside otherwise right code (d2l's valid lengths started at
0, a scale written as a negative power and then divided by, scores read through `.data`, a loop over
queries that starts at 1, a misspelled answer name, a count taken after the sequence length was
doubled), a whole-approach mistake (a softmax shifted by the first logit instead of the largest,
cosine similarity in place of the sqrt(d_k) scaling, a log-softmax for the weights, the trap checked
with all-zero values, a "cost ratio" read as madds per entry, one attention weight per token), and
crashes a half-remembered API gives (`torch.maximum` used as a reduction, NumPy's `.astype` on a
tensor, NumPy's argument-less `.transpose()`). Eight of the fifteen wrong variants are in the core
(softmax, mask, scores, scaling), seven in the other questions (q1, q6, q7, q8).

Public code was searched with the code, issues and pages search: torch-spyre/torch-spyre #2187
("torch.maximum != torch.max"); wandb/wandb #9461 and Tsinghua-MARS-Lab/HDMapNet #32 (`.astype` called
on a torch mask); d2l `sequence_mask` / `masked_softmax` forks (lms2004/OnnxFlow,
quan-0811/neural_machine_translation_en_fr: `arange(maxlen)[None, :] < valid_len[:, None]`);
lucidrains/flash-attention-jax `attention.py` (`q @ k.transpose()`, JAX/NumPy's reverse-all-axes
transpose); hyunwoongko/transformer `CosineSimilarityAttention`; esceptico/perceiver-io #9
(`self.scale = head_dim ** -0.5` divided by instead of multiplied); dvgodoy/PyTorchStepByStep #23
(attention weights kept detached); lsdefine/attention-is-all-you-need-keras #25 (a beginner reading
Q K^T as one score per token, `(batch_size, sequence_length)`). Eight of the fifteen wrong variants
carry a slip seen there (named in a comment above each); the other seven are slips plausible for
students of these lessons. Three wrong variants crash; the other twelve run and give wrong values,
shapes or missing names.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose checks use it, and q6). Correct variants are really correct but written
differently (the q2 variance from `torch.cov`, a softmax with NumPy-style `axis=` / `keepdims=` aliases
and a helper, a causal mask from the sign of a key-minus-query difference, attention in several
statements with index assignment on a broadcast mask, and the q7/q8 answers from an indexed letter and a
small cost class). Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) before it was committed; the grader was not run on this set.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell
TRACE = "weights3"           # the q6 cell
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell

CORRECT = {
    "variance_from_torch_cov": {VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.matmul(Q, K.mT)
scaled_scores = raw_scores * (1.0 / math.sqrt(d_k))
# the covariance of one variable with itself is its (unbiased) variance
raw_score_var = torch.cov(raw_scores.flatten()).item()
scaled_score_var = torch.cov(scaled_scores.flatten()).item()
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
'''},

    "softmax_numpy_style_keywords_helper": {SM: '''
def _slice_max(x, dim):
    """Largest entry of every slice along `dim`, kept as a size-1 axis."""
    return x.amax(axis=dim, keepdims=True)


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`: shift by the slice maximum, exponentiate, normalise."""
    e = (x - _slice_max(x, dim)).exp()
    total = e.sum(axis=dim, keepdims=True)
    return e / total
'''},

    "causal_from_sign_of_offset": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask: key j is visible to query i when j - i is not positive."""
    if T_k is None:
        T_k = T_q
    offset = torch.arange(T_k).unsqueeze(0) - torch.arange(T_q).unsqueeze(1)   # j - i
    return offset <= 0
'''},

    "sdpa_statements_index_assignment": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    keys_t = K.transpose(-2, -1)               # (..., d_k, T_k)
    scores = torch.matmul(Q, keys_t)           # (..., T_q, T_k)
    scores = scores / math.sqrt(d_k)
    if mask is None:
        weights = stable_softmax(scores, dim=-1)
        return torch.matmul(weights, V)
    allowed = torch.broadcast_to(mask, scores.shape)
    scores[~allowed] = float("-inf")           # a fresh tensor, so writing into it is safe
    weights = stable_softmax(scores, dim=-1)
    sees_nothing = ~allowed.any(dim=-1, keepdim=True)
    weights = weights.masked_fill(sees_nothing, 0.0)
    return torch.matmul(weights, V)
'''},

    "answers_indexed_letter_cost_class": {
        TRAP: '''
q_trap_answer = "ABCD"[2]     # the third option
''',
        COST: '''
class HeadCost:
    """Size and multiply-adds of one attention head's score matrix."""

    def __init__(self, T, d_k):
        self.T, self.d_k = T, d_k

    def entries(self):
        return self.T * self.T

    def madds(self):
        return self.entries() * self.d_k


attn_entries = HeadCost(1024, 64).entries()
score_madds = HeadCost(1024, 64).madds()
cost_ratio = HeadCost(2048, 64).madds() // score_madds
''',
    },
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    # seen in: lsdefine/attention-is-all-you-need-keras #25, a beginner reading Q K^T as having shape
    # (batch_size, sequence_length), one score per token
    "q1_one_weight_per_token": ({SHAPES: '''
weights_shape = (4, 10)          # one attention weight per token of each sequence
out_shape = (4, 10, 128)
'''}, {"mistake": "the attention weights are taken to be one number per token, (batch, T): there is one weight "
                  "per (query, key) pair, so the weight matrix is (4, 10, 10)",
       "where": ["q1"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: torch-spyre/torch-spyre #2187 ("torch.maximum != torch.max"): the elementwise maximum of
    # two tensors mistaken for the reduction
    "q3_elementwise_maximum_as_reduction": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    biggest = torch.maximum(x, dim=dim, keepdim=True)
    exps = torch.exp(x - biggest)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "torch.maximum is the elementwise maximum of two tensors, not a reduction along a dimension: "
                  "called with dim= and no second tensor it raises a TypeError on every call "
                  "(x.max(dim=dim, keepdim=True).values or x.amax(dim, keepdim=True) was meant)",
       "where": ["q3", "q5", "q6"]}),

    "q3_shift_by_first_logit": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`. Any constant shift cancels, so shift every slice by its first logit."""
    first = x.narrow(dim, 0, 1)                 # (..., 1, ...): the first entry of each slice
    exps = torch.exp(x - first)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "the shift is by the first logit of each slice instead of the largest: the result is only "
                  "exact while nothing overflows, so float16 logits spread by more than about 11 give "
                  "inf / inf = NaN, and a slice whose first entry is -inf (masked) gives NaN everywhere; "
                  "only subtracting the maximum bounds every exponential by 1",
       "where": ["q3", "q5"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    # seen in: wandb/wandb #9461 and Tsinghua-MARS-Lab/HDMapNet #32, `.astype(...)` called on a torch
    # mask; NumPy arrays have astype, torch tensors have .to / .bool
    "q4_numpy_astype_on_tensor": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.ones(T_q, T_k).tril().astype(bool)
'''}, {"mistake": "`.astype` is NumPy's array method; a torch tensor has no such attribute, so every call raises "
                  "an AttributeError (.bool() or .to(torch.bool) was meant)",
       "where": ["q4", "q5", "q6"]}),

    # seen in: d2l `sequence_mask` forks (lms2004/OnnxFlow, quan-0811/neural_machine_translation_en_fr),
    # `torch.arange(maxlen)[None, :] < valid_len[:, None]`, here with the valid lengths started at 0
    "q4_d2l_valid_lens_from_zero": ({CM: '''
def causal_mask(T_q, T_k=None):
    """Causal mask as d2l's sequence_mask: query i keeps the first valid_lens[i] keys."""
    if T_k is None:
        T_k = T_q
    valid_lens = torch.arange(T_q)                           # query i sees keys before it
    return torch.arange(T_k, dtype=torch.float32)[None, :] < valid_lens[:, None]
'''}, {"mistake": "the valid lengths start at 0 instead of 1: query i keeps keys j < i, so the diagonal is "
                  "blocked (a token cannot see itself) and query 0 sees no key at all; the lengths must be "
                  "arange(1, T_q + 1), i.e. j <= i",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: lucidrains/flash-attention-jax attention.py, `sim = q @ k.transpose()`; in JAX and NumPy
    # an argument-less transpose reverses the axes, torch's needs the two dimensions
    "q5_numpy_transpose_without_axes": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose()) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "Tensor.transpose() needs the two dimensions to swap (unlike NumPy's, which reverses all "
                  "axes): without them every call raises a TypeError; K.transpose(-2, -1) was meant",
       "where": ["q5"]}),

    # seen in: hyunwoongko/transformer CosineSimilarityAttention, where the queries and keys are
    # normalised to unit length; here it replaces the division by sqrt(d_k)
    "q5_cosine_similarity_instead_of_scale": ({SDPA: '''
def _unit(t):
    """Every vector along the last axis divided by its length."""
    return t / t.norm(dim=-1, keepdim=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Scores kept small by normalising queries and keys, then softmax and mix the values."""
    scores = torch.einsum("...qd,...kd->...qk", _unit(Q), _unit(K))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.einsum("...qk,...kd->...qd", weights, V)
'''}, {"mistake": "the scores are cosine similarities (queries and keys normalised to unit length) instead of "
                  "dot products divided by sqrt(d_k): every score lies in [-1, 1], the weights are much "
                  "flatter than softmax(Q K^T / sqrt(d_k)) and the output is wrong",
       "where": ["q5"]}),

    # seen in: esceptico/perceiver-io #9, `self.scale = head_dim ** -0.5` and then the scores divided by
    # it instead of multiplied
    "q5_divided_by_negative_power_scale": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scale = Q.size(-1) ** -0.5
    scores = torch.matmul(Q, K.transpose(-2, -1)) / scale
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the scale is d_k ** -0.5 = 1/sqrt(d_k), and the scores are divided by it, which multiplies "
                  "them by sqrt(d_k): the weights are far too sharp; multiply by the scale or divide by "
                  "sqrt(d_k)",
       "where": ["q5"]}),

    # seen in: dvgodoy/PyTorchStepByStep #23, attention weights kept detached from the graph; here the
    # scores are read through `.data`
    "q5_scores_read_through_data": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)).data / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "`.data` takes the scores out of the autograd graph: the values are right, but no gradient "
                  "flows back to Q or K (only V gets one)",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    "q6_log_softmax_weights": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = torch.log_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.log_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "log_softmax gives the logarithms of the weights (all negative, -inf where masked), not the "
                  "weights themselves: the rows do not sum to 1 and the output mixes the values with "
                  "negative coefficients",
       "where": ["q6"]}),

    "q6_causal_loop_skips_first_query": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.zeros(3, 3, dtype=torch.float64)
for i in range(1, 3):             # query 0 has a single key, nothing to normalise
    weights3_causal[i, : i + 1] = stable_softmax(scores3[i, : i + 1], dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the loop starts at query 1, so query 0's row is left at zeros; with a single visible key its "
                  "weight is 1, not 0 (the row must still sum to 1)",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_answer_name_misspelled": ({TRAP: '''
q_trap_anwser = "C"
'''}, {"mistake": "the answer is stored under a misspelled name (q_trap_anwser), so q_trap_answer is never "
                  "set",
       "where": ["q7"]}),

    "q7_checked_with_zero_values": ({TRAP: '''
# compare the classmate's shortcut with the -inf recipe on a small example
_gen = torch.Generator().manual_seed(7)
_scores = torch.randn(4, 4, generator=_gen, dtype=torch.float64)
_values = torch.zeros(4, 3, dtype=torch.float64)        # values not needed for the check
_short = F.softmax(_scores, dim=-1)
_short[~causal_mask(4)] = 0.0
_proper = stable_softmax(_scores.masked_fill(~causal_mask(4), float("-inf")), dim=-1)
same_output = torch.allclose(_short @ _values, _proper @ _values)
q_trap_answer = "A" if same_output else "C"
'''}, {"mistake": "the two recipes are compared through all-zero values, so both outputs are zero whatever the "
                  "weights are and the check reports agreement: the answer recorded is A, but the zeroed "
                  "rows no longer sum to 1 and the best answer is C",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_entries_after_T_doubled": ({COST: '''
T, d_k_head = 1024, 64
score_madds = T * T * d_k_head
T = 2 * T                                   # double the sequence length
cost_ratio = (T * T * d_k_head) // score_madds
attn_entries = T * T                        # one weight per (query, key) pair
'''}, {"mistake": "attn_entries is computed after T was doubled, so it counts the entries for T = 2048 "
                  "(4194304) instead of T = 1024 (1048576)",
       "where": ["q8"]}),

    "q8_ratio_of_madds_to_entries": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = score_madds // attn_entries    # multiply-adds per entry of the weight matrix
'''}, {"mistake": "cost_ratio is read as multiply-adds per weight entry (d_k = 64); it is the factor by which "
                  "score_madds grows when T doubles, (2T)^2 / T^2 = 4",
       "where": ["q8"]}),
}
