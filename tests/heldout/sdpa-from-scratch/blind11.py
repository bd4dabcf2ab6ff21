"""Eleventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py` and the variant names and code of blind.py .. blind10.py, so
that their mistakes are not repeated in the same form.

A class with a realistic spread: the commonest slips (dividing by d_k, here split between Q and K;
a softmax without the max shift, here a hand-made unshifted logsumexp; the mask the wrong way round,
here through torch.where; NaN rows of fully masked queries, here from an additive bias) written in
new forms, beside new kinds: `K.T` on batched tensors, a numpy causal mask, the Gram matrix of the
features for q2, a whole-matrix normalisation in the hand trace, list shapes in q1, a float cost
ratio from true division, a double upcast never cast back, a letter picked from a dict.

Each wrong variant changes one or two cells of an otherwise full-marks notebook and says its mistake
in words; `where` lists the questions that may lose points. Correct variants are really correct but
written differently (einsum, explicit Python loops, torch.where, a NaN self-comparison). Every variant
was checked against plain torch (`F.scaled_dot_product_attention`) before it was graded.

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


def _sdpa(scores: str = "scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])",
          fill: str = 'scores = scores.masked_fill(~mask, float("-inf"))',
          soft: str = "weights = stable_softmax(scores, dim=-1)",
          fix: str = "weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)",
          tail: str = "return weights @ V") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    {scores}
    if mask is not None:
        {fill}
    {soft}
    if mask is not None:
        {fix}
    {tail}
'''


CORRECT = {
    # q5 with einsum over any leading axes; NaN rows found by self-comparison and zeroed in place
    "einsum_ellipsis_nan_self_compare": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    s = torch.einsum("...qd,...kd->...qk", Q, K) * (1.0 / math.sqrt(K.shape[-1]))
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf"), dtype=s.dtype, device=s.device))
    w = stable_softmax(s, dim=-1)
    w[w != w] = 0.0
    return torch.einsum("...qk,...kv->...qv", w, V)
'''},
    # q3 with the reciprocal of the sum; q4 from two aranges compared by broadcasting
    "reciprocal_softmax_arange_mask": {
        SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - torch.max(x, dim=dim, keepdim=True).values
    e = shifted.exp()
    return e * torch.reciprocal(e.sum(dim=dim, keepdim=True))
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    cols = T_q if T_k is None else T_k
    return torch.arange(T_q).unsqueeze(1) >= torch.arange(cols).unsqueeze(0)
'''},
    # q6 traced with explicit Python loops and math.exp; q4 from nested loops
    "explicit_loops_trace_and_mask": {
        TRACE: '''
scores3 = [[sum(Q3[i, t].item() * K3[j, t].item() for t in range(4)) / 2 for j in range(3)] for i in range(3)]
weights3 = []
weights3_causal = []
for i in range(3):
    ex = [math.exp(s) for s in scores3[i]]
    weights3.append([e / sum(ex) for e in ex])
    seen = ex[:i + 1]
    weights3_causal.append([e / sum(seen) for e in seen] + [0.0] * (2 - i))
out3 = [[sum(weights3[i][j] * V3[j, c].item() for j in range(3)) for c in range(2)] for i in range(3)]
print(weights3, out3, weights3_causal, sep="\\n")
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    rows = [[j <= i for j in range(T_k)] for i in range(T_q)]
    return torch.tensor(rows, dtype=torch.bool).reshape(T_q, T_k)
'''},
    # q2 through torch.var_mean and the variance rule; q1 from shape arithmetic; q8 with pow
    "var_mean_shapes_pow": {
        VAR: '''
raw_scores = torch.matmul(Q, K.mT)
raw_score_var = torch.var_mean(raw_scores)[0].item()
scaled_score_var = torch.var_mean(raw_scores / math.sqrt(Q.size(-1)))[0].item()
scale_divisor = float(pow(64, 0.5))
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        SHAPES: '''
q_shape, v_shape = (4, 10, 64), (4, 10, 128)
weights_shape = q_shape[:2] + (v_shape[1],)
out_shape = q_shape[:2] + v_shape[2:]
''',
        COST: '''
T, d_k = 1024, 64
attn_entries = pow(T, 2)
score_madds = pow(T, 2) * d_k
cost_ratio = pow(2 * T, 2) * d_k // score_madds
'''},
    # q5 with the 1/sqrt(d_k) folded into Q (a new tensor) and an additive bias from masked_fill
    "prescaled_query_additive_bias": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Qs = Q * Q.shape[-1] ** -0.5
    scores = Qs @ K.transpose(-1, -2)
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)
        bias = bias.masked_fill(~mask, float("-inf"))
        scores = scores + bias
    weights = stable_softmax(scores, -1)
    if mask is not None:
        alive = mask.any(-1, keepdim=True)
        weights = torch.where(alive, weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
''', TRAP: '''
answers = {"A": False, "B": False, "C": True, "D": False}
q_trap_answer = [k for k, v in answers.items() if v][0]
'''},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q5_scale_split_over_q_and_k": ({SDPA: _sdpa(
        scores="d_k = Q.shape[-1]\n    scores = (Q / math.sqrt(d_k)) @ (K / math.sqrt(d_k)).transpose(-2, -1)")},
        {"mistake": "divides Q and K each by sqrt(d_k), so the scores are divided by d_k overall instead "
                    "of sqrt(d_k)", "where": ["q5"]}),
    "q3_unshifted_logsumexp_by_hand": ({SM: '''
def stable_softmax(x, dim=-1):
    # log-domain: p = exp(x - log(sum(exp(x))))
    log_z = torch.log(torch.exp(x).sum(dim=dim, keepdim=True))
    return torch.exp(x - log_z)
'''}, {"mistake": "computes the log-partition by hand without subtracting the max first, so exp "
                  "overflows for large (float16) logits and the result is NaN", "where": ["q3", "q5"]}),
    "q5_where_keeps_blocked": ({SDPA: _sdpa(
        fill='scores = torch.where(mask, float("-inf"), scores)')},
        {"mistake": "torch.where(mask, -inf, scores) puts -inf where the mask is True: the allowed keys "
                    "are blocked and the blocked ones kept", "where": ["q5"]}),
    "q5_additive_bias_no_empty_fix": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        neg = torch.full_like(scores, float("-inf"))
        scores = scores + torch.where(mask, torch.zeros_like(scores), neg)
    return stable_softmax(scores, dim=-1) @ V
'''}, {"mistake": "adds a -inf bias but never handles queries with no visible key: their rows are "
                  "0/0 = NaN instead of zeros", "where": ["q5"]}),
    # --- other ordinary slips
    "q5_dot_T_on_batched": ({SDPA: _sdpa(scores="scores = Q @ K.T / math.sqrt(Q.shape[-1])")},
                            {"mistake": "uses K.T, which reverses every axis of a batched tensor instead "
                                        "of swapping the last two; only 2-D input works", "where": ["q5"]}),
    "q5_double_never_cast_back": ({SDPA: _sdpa(
        scores="scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.shape[-1])",
        tail="return weights @ V.double()")},
        {"mistake": "upcasts to float64 for accuracy and never casts back: float32/16 inputs give a "
                    "float64 output", "where": ["q5"]}),
    "q1_shapes_as_lists": ({SHAPES: '''
weights_shape = [4, 10, 10]
out_shape = [4, 10, 128]
'''}, {"mistake": "writes the shapes as lists instead of tuples", "where": ["q1"]}),
    "q2_feature_gram_matrix": ({VAR: '''
raw_scores = Q.transpose(-2, -1) @ K          # (2, 8, 8)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(8)).var().item()
scale_divisor = 8.0
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "transposes the wrong operand: Q^T K sums over the tokens and gives a (d_k, d_k) "
                  "matrix, not the (5, 5) query-key scores", "where": ["q2"]}),
    "q4_numpy_tril_returned": ({CM: '''
import numpy as np


def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return np.tril(np.ones((T_q, T_k), dtype=bool))
'''}, {"mistake": "returns a numpy bool array instead of a torch.bool tensor", "where": ["q4", "q5", "q6"]}),
    "q6_whole_matrix_normalised": ({TRACE: '''
scores3 = Q3 @ K3.T / 2
e3 = torch.exp(scores3)
weights3 = e3 / e3.sum()
out3 = weights3 @ V3
ec = e3 * causal_mask(3)
weights3_causal = ec / ec.sum()
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "divides the exponentials by the sum of the whole matrix instead of each row's sum, "
                  "so the rows do not sum to 1", "where": ["q6"]}),
    "q7_answer_a_from_dict": ({TRAP: '''
choices = {"same": "A", "reversed": "B", "not renormalised": "C", "float16": "D"}
q_trap_answer = choices["same"]
'''}, {"mistake": "answers A: believes zeroing weights after the softmax equals masking the scores "
                  "before it", "where": ["q7"]}),
    "q8_ratio_true_division": ({COST: '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = ((2 * T) * (2 * T) * d_k) / score_madds
'''}, {"mistake": "computes the ratio with true division, which gives the float 4.0 instead of a "
                  "Python int", "where": ["q8"]}),
    "q8_features_squared": ({COST: '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * d_k * d_k      # each score is a d_k x d_k product
cost_ratio = 2
'''}, {"mistake": "squares the head width instead of the length (T d_k^2 multiply-adds), so doubling T "
                  "only doubles the cost", "where": ["q8"]}),
    "q5_inline_exp_no_shift": ({SDPA: _sdpa(
        soft="e = torch.exp(scores)\n    weights = e / e.sum(dim=-1, keepdim=True)")},
        {"mistake": "writes its own softmax inline without the max shift instead of calling "
                    "stable_softmax: float16 scores of ~1600 overflow to inf/NaN", "where": ["q5"]}),
}
