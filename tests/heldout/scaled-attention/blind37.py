"""Thirty-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the student-facing
markdown and solution cells of the master notebook (its public `grader.check` cells were on screen too, since
they sit between the solution cells), `full_marks.ipynb`, `harness.py`, blind36.py in full for the format,
lesson 79's text in /work/shared/lessons/ (the trace, the entropy experiment, the self-attention check with
seed 7 and the quiz slides), and only the variant NAMES of blind.py .. blind35.py, so that their mistakes are
not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' wrong-variant names lean on q4 (~130), q1 (~120), q8 (~110) and q2 (~90);
q5, q6 and q7 have about 20-25 each. This round leans on the multiple-choice questions and on code shapes the
earlier names do not show: q1 x2, q2 x3, q4 x1, q5 x2, q6 x2, q7 x2, q8 x2. The mix: keys reshaped where a
transpose was meant (the view-vs-transpose slip of public attention code), keys scaled in place through the
`K.T` view (the caller's K changes), the coordinate sum written from the math's 1-based index as
`range(1, d_k)` (it passes the public d_k = 16 check with 15/16), a JAX-style "split" that re-seeds a copy of
the generator so the keys equal the queries, E[X^2] - E[X]^2 with a sum for the first moment, the entropy
identity logsumexp(s) - E_p[s] with E_p taken as the plain mean, a NumPy boolean mask that leaves a
one-element array, a 1-based option number used to index "ABCD", the lesson's self-attention check assigned
(True) instead of a letter, a zero-width space pasted with the letter, a full-width D from an IME, a keyword
search over the option texts that hits the negated option C, float32 casts of every q8 input, and
1/sqrt(d_k) folded into W_Q with an in-place `*=` on the caller's weights.

Public sources (issues corpus): rish-16/tokenlearner-pytorch#1 ("y.view(8, 512, 3) is wrong ... should be
y.transpose(0, 1)") and zhouhaoyi/Informer2020#59 (`view` used to reorder dimensions) for the q1 reshape
variant; pytorch/pytorch#50012 and #11029 (torch.split vs numpy.split semantics, read to avoid repeating the
earlier sets' split-by-head-count variants); pytorch/pytorch#2061 (in-place `/=` on a function argument
changes the caller's tensor) for the two in-place variants; KAIST-CS20200/FsClassRoom#8 (answers copied by
drag-and-copy carried a zero-width space and failed an exact match) and tofrankie/blog#296 (U+200B making
"AA" compare unequal) for q6; w3c/charmod-norm#19 (full-width Latin capital letters, U+FF21.., are only
compatibility-equivalent to ASCII) for q7; karpathy/ng-video-lecture#6 and lucidrains/vit-pytorch#65 (scale
by the model width, not the head width) were read and deliberately NOT reused, because earlier sets already
name that mistake. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake; `where`
lists the questions that may lose points (q8 calls the student's `attention`, so q1 slips list q8 too).
Correct variants are valid but written differently from full_marks (batched bmm on a batch of one with
torch.special.softmax, a pre-scaled query with linalg.vecdot and a hand-written unbiased variance,
Categorical(logits=...).entropy() with a table built by a row helper, q5's letter as a numpy.str_ taken from
a numpy array, q6's letter decided by running the lesson's seed-7 self-attention check with the student's own
`attention`). Every variant was run against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`,
the lesson's formula and table, `torch.nn.MultiheadAttention`) on several shapes and both float dtypes (a
throwaway script in /tmp, not in the repository).

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

_Q7_OPTIONS = '''
options = {
    "A": "It returns the value of the key that equals the query exactly, like the table does",
    "B": "It only works when the keys are sorted",
    "C": "It returns the value of the best-scoring key only, so it is an argmax and has no useful gradient",
    "D": "It scores the query against every key and returns a softmax-weighted mix of all the values: a "
         "soft, differentiable version of the lookup (kernel regression with an exponential kernel)",
}
'''

_LESSON_CHECK = '''
# the lesson's check: with Q = K = V = X, is output row 0 the softmax-weighted sum of the rows of X?
_g = torch.Generator().manual_seed(7)
_X = torch.randn(4, 8, generator=_g)
_out, _W = attention(_X, _X, _X, 8)
_manual0 = sum(_W[0, j] * _X[j] for j in range(4))
'''


CORRECT = {
    "attention_bmm_batch_of_one_special_softmax": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    inv_scale = 1.0 / math.sqrt(d_k)
    scores = torch.bmm(Q.unsqueeze(0), K.transpose(0, 1).unsqueeze(0)).squeeze(0) * inv_scale
    weights = torch.special.softmax(scores, dim=1)           # dim 1 = the keys of a 2-D score matrix
    output = torch.bmm(weights.unsqueeze(0), V.unsqueeze(0)).squeeze(0)
    return output, weights
'''},
    "variance_prescaled_query_vecdot_hand_unbiased": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    factor = d_k ** -0.5 if scaled else 1.0
    queries = torch.randn(n_samples, d_k, generator=generator) * factor   # (q / sqrt(d_k)) . k
    keys = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(queries, keys)                              # (n_samples,)
    centred = dots - dots.mean()
    return float(centred.square().sum() / (n_samples - 1))
'''},
    "entropy_categorical_logits_table_row_helper": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits, validate_args=False).entropy()


def _table_row(d, seed):
    torch.manual_seed(seed)
    query = torch.randn(1, d)
    keys = torch.randn(5, d)
    raw = torch.matmul(keys, query.squeeze(0))          # the 5 scores q . k_j
    scaled = raw / math.sqrt(d)
    return dict(d=d,
                raw_std=torch.std(raw, correction=1).item(),
                scaled_std=torch.std(scaled, correction=1).item(),
                H_raw=softmax_entropy(raw).item(),
                H_scaled=softmax_entropy(scaled).item())


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_table_row(d, seed) for d in dims]
'''},
    "q5_letter_as_numpy_str_from_array": {"q5_answer": '''
import numpy as np

q5_answer = np.array(["A", "B", "C", "D"])[2]   # option C: d_k (a numpy.str_, which is a str)
'''},
    "q6_letter_decided_by_lesson_check": {"q6_answer": _LESSON_CHECK + '''q6_answer = "A" if torch.allclose(_manual0, _out[0], atol=1e-5) else "D"
'''},
}


WRONG = {
    # rish-16/tokenlearner-pytorch#1, zhouhaoyi/Informer2020#59: view/reshape used where a transpose was meant
    "q1_keys_reshaped_not_transposed": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_k, width = K.shape
    scores = Q @ K.reshape(width, T_k) / math.sqrt(d_k)     # K as (d_k, T_k)
    weights = F.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "K is turned into a (d_k, T_k) matrix with reshape instead of a transpose: the shape is right "
                   "but the numbers are re-flowed row by row, so every score mixes coordinates of different "
                   "keys (only a single key, T_k = 1, comes out right); it must be K.T / K.transpose(-2, -1).",
       "where": ["q1", "q8"]}),

    # pytorch/pytorch#2061: in-place division on a function argument is seen by the caller
    "q1_keys_scaled_in_place_through_transpose_view": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    Kt = K.T
    Kt /= math.sqrt(d_k)              # scale the (small) key matrix once instead of the score matrix
    scores = Q @ Kt
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "K.T is a view of K, so `Kt /= sqrt(d_k)` divides the caller's K in place: the first call is "
                   "right, but the input tensor is changed, and calling again with the same K (or comparing "
                   "with a reference computed afterwards) scales it twice; scale a new tensor instead.",
       "where": ["q1", "q8"]}),

    "q2_coordinate_sum_from_one": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.zeros(n_samples)
    for i in range(1, d_k):            # q . k = sum_{i=1}^{d_k} q_i k_i
        dots += q[:, i] * k[:, i]
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The coordinate loop copies the 1-based sum from the maths as range(1, d_k), which skips "
                   "coordinate 0: the dot products have d_k - 1 terms, so the variance is about d_k - 1 (and "
                   "(d_k - 1)/d_k when scaled); at d_k = 16 that hides inside 10%, at d_k = 3 or 4 it does not.",
       "where": ["q2"]}),

    "q2_key_generator_reseeded_copy_jax_split": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # separate streams for queries and keys, like key, subkey = jax.random.split(key)
    key_gen = torch.Generator().manual_seed(generator.initial_seed())
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=key_gen)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The key 'stream' is a new generator seeded with the same seed as `generator`, so for a freshly "
                   "seeded generator it produces exactly the same numbers: k equals q, every dot product is "
                   "|q|^2 and the variance is about 2*d_k (2 when scaled) instead of d_k; all draws must come "
                   "from `generator` itself.",
       "where": ["q2"]}),

    "q2_second_moment_summed_not_averaged": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    mean = dots.mean()
    return (dots.pow(2).sum() - mean ** 2).item()     # Var = E[X^2] - E[X]^2
'''}, {"mistake": "In Var = E[X^2] - E[X]^2 the first term is a sum of squares instead of their mean, so the "
                   "result is about n_samples times too large (about 160000 for d_k = 16, n = 10000).",
       "where": ["q2"]}),

    "q4_entropy_identity_expected_logit_as_plain_mean": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # H(p) = logsumexp(s) - E_p[s]
    return torch.logsumexp(logits, dim=-1) - logits.mean(dim=-1)
''' + _TABLE}, {"mistake": "Uses H = logsumexp(s) - E_p[s] but takes E_p[s] as the plain mean of the logits "
                            "instead of the softmax-weighted mean sum_j p_j s_j: right only for uniform rows; a "
                            "saturated row [0, 0, 500, 0] gives 375 instead of 0 and the table's entropies "
                            "are wrong.",
                 "where": ["q4"]}),

    "q5_answer_numpy_boolean_mask_leaves_array": ({"q5_answer": '''
import numpy as np

# evaluate the four options at d_k = 16, the size used in q2, and keep the one that matches Var = d_k
letters = np.array(["A", "B", "C", "D"])
option_values = np.array([1.0, np.sqrt(16), 16.0, 16.0 ** 2])
q5_answer = letters[option_values == 16.0]
'''}, {"mistake": "Boolean-mask indexing returns an array, so q5_answer is array(['C']) (a numpy array holding "
                   "one letter), not the string 'C'; take the element (e.g. [0] or .item()).",
       "where": ["q5"]}),

    "q5_answer_one_based_option_number_into_letters": ({"q5_answer": '''
# the options are 1, sqrt(d_k), d_k, d_k^2: Var(q.k) = d_k is option 3
q5_answer = "ABCD"[3]
'''}, {"mistake": "Counted the right option as number 3 (1-based) and indexed the 0-based string 'ABCD' with it, "
                   "which gives 'D' (d_k^2) instead of 'C' (d_k).",
       "where": ["q5"]}),

    "q6_answer_check_result_not_letter": ({"q6_answer": _LESSON_CHECK + '''q6_answer = torch.allclose(_manual0, _out[0], atol=1e-5)   # A holds
'''}, {"mistake": "Ran the lesson's check that output row 0 is the softmax-weighted sum of the rows of X and "
                   "assigned its result (True, a bool) instead of the letter 'A'.",
       "where": ["q6"]}),

    # KAIST-CS20200/FsClassRoom#8, tofrankie/blog#296: drag-and-copy brings a U+200B along with the text;
    # the cell holds the literal invisible character (written in this file as an escape)
    "q6_answer_zero_width_space_pasted": ({"q6_answer": '''
q6_answer = "A\u200b"   # copied from the slide
'''}, {"mistake": "The letter was copied from rendered text together with an invisible zero-width space "
                   "(U+200B), so the answer is 'A' followed by a hidden character, which .strip() does not "
                   "remove; it must be exactly one of the letters A-D.",
       "where": ["q6"]}),

    # w3c/charmod-norm#19: full-width Latin capitals (U+FF21..) are not the ASCII letters;
    # the cell holds the literal U+FF24 (written in this file as an escape)
    "q7_answer_full_width_letter_from_ime": ({"q7_answer": '''
q7_answer = "\uff24"
'''}, {"mistake": "The answer is the full-width letter U+FF24 typed with an East-Asian input method in "
                   "full-width mode; it looks like D but is not the ASCII letter 'D'.",
       "where": ["q7"]}),

    "q7_answer_keyword_search_hits_negated_option": ({"q7_answer": _Q7_OPTIONS + '''
# attention is the version of the lookup that has a gradient
q7_answer = next(letter for letter, text in options.items() if "gradient" in text)
'''}, {"mistake": "Picked the option by searching the option texts for the word 'gradient'; the first match is "
                   "C ('... an argmax and has no useful gradient'), the hard-lookup statement, not D (the soft, "
                   "differentiable softmax-weighted mix).",
       "where": ["q7"]}),

    "q8_inputs_cast_with_float": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    # make every operand the same type, to avoid "expected scalar type Float but found Double"
    X, W_Q, W_K, W_V, W_O = X.float(), W_Q.float(), W_K.float(), W_V.float(), W_O.float()
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Every input is cast with .float(), so float64 inputs are computed in float32 and the result "
                   "comes back float32 (with float32 precision) instead of keeping the inputs' dtype.",
       "where": ["q8"]}),

    # pytorch/pytorch#2061: `*=` on an argument is in place and the caller sees it
    "q8_scale_folded_into_w_q_in_place": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    W_Q *= d_k ** -0.5                  # fold 1/sqrt(d_k) into the query projection once
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], 1)   # already scaled: d_k = 1
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "`W_Q *= d_k ** -0.5` scales the caller's W_Q in place: the first call is right, but the "
                   "weight matrix passed in is changed, so a second call (or torch.nn.MultiheadAttention "
                   "loaded from the same W_Q afterwards) gives different results; fold the scale into a new "
                   "tensor (W_Q * d_k ** -0.5) or leave it to attention.",
       "where": ["q8"]}),
}
