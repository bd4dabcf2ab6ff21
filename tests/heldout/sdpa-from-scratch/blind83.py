"""Eighty-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind81.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: FOLLOWING A TEXTBOOK, A VIDEO OR A COURSE'S OWN CONVENTIONS. Each wrong cell is careful
code that keeps one convention or constant of the source the student learnt attention from, right in that
source's setting and wrong in this notebook's: the value width taken as the head size of the video's `Head`
module (q1); the video's `head_size = 16` kept in the variance demo (q2); the book's softmax-from-scratch
`sum(1, keepdims=True)` kept after adding the shift (q3); the Annotated Transformer's `subsequent_mask` with
its leading `(1, size, size)` axis (q4); a boolean mask collapsed to D2L `valid_lens` (which only describe
prefix masks), the Illustrated Transformer's hard-coded "divide by 8", and CS224n's `enc_masks` polarity
(1 = padding) (q5); "divide by 8" again in the hand trace, the Annotated Transformer's `masked_fill(mask == 0,
...)` given the raw `triu(k=1)` future mask, and a Luong-tutorial keys-by-queries score layout (q6); two trap
answers reasoned from the video and from the Annotated Transformer's fp16 notes (q7); FlashAttention's "linear
in sequence length" read as the compute ratio, and the paper's h = 8 heads counted into the entries (q8).
The correct variants read like the same sources where they are right here: a D2L-style `masked_softmax`
adapted to a boolean mask with -inf and empty rows zeroed, Karpathy's `wei = q @ k.transpose(-2, -1) *
hs**-0.5` with the head size, the Annotated Transformer's `subsequent_mask` with the batch axis dropped,
D2L's decoder `valid_lens = arange(1, T + 1)` turned into a causal mask, and `-1e9` kept in the float64 hand
trace (where it does give exactly zero weight).

Public material used (search tool):
- D2L "Attention scoring functions" `masked_softmax(X, valid_lens)` with `d2l.sequence_mask(X.reshape(-1,
  shape[-1]), valid_lens, value=-1e6)` (github.com/MurmanskY/d2l_codes; blog.csdn.net/weixin_45023325/article/
  details/139125122; nowcoder.com discuss 769849840133025792): grounds the valid_lens variants (q5 wrong, q4
  correct) and the masked_softmax correct variant.
- The Annotated Transformer's `subsequent_mask(size)`: `attn_shape = (1, size, size)`, `np.triu(np.ones(
  attn_shape), k=1).astype('uint8')`, `torch.from_numpy(...) == 0` (code corpus: walkacross/transformer-pytorch
  transformer_pytorch/dataset/utils.py, and copies of it; makeesyai/makeesy-deep-learning
  self_attention/create_atten_mask_decoder.py, which masks with `== 1` on the raw triu): grounds q4 and the q6
  polarity variant.
- Karpathy's "Let's build GPT" notes (kylehh.github.io/study/Karpathy-GPTc: `B,T,C = 4,8,32`, `head_size =
  16`, `out.shape # B,T,head_size`; bsbarkur.github.io 2024/02/06 building-a-gpt-karpathy): grounds q1 and q2.
- The rest (Alammar's "divide by 8 (the square root of the dimension of the key vectors used in the paper
  - 64)", CS224n a4/a5's `enc_masks` with 1 at pad positions, Luong/Bahdanau tutorials' keys-first energies,
  FlashAttention's "memory linear in sequence length", the paper's h = 8) are the sources this round's brief
  names, each written in a form of its own.

How the variants were checked: a throwaway script under /tmp/w83-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16/bfloat16, 3-D/4-D, T_q != T_k, d_v != d_k, 2-D and batched masks, random
non-prefix masks, fully masked rows, gradients). Every correct variant agrees everywhere; every wrong one
differs in its question(s) and only there.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

CORRECT = {
    "sdpa_d2l_masked_softmax_adapted_to_a_boolean_mask_with_minus_inf_and_empty_rows_zeroed": {
        "scaled_dot_product_attention": '''def masked_softmax(X, mask=None):
    """D2L's masked_softmax, but for this notebook's boolean mask (True = may attend) instead of valid_lens.

    The book fills with value=-1e6; here that overflows float16, so -inf, and rows with no key are zeroed."""
    if mask is None:
        return stable_softmax(X, dim=-1)
    X = X.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(X, dim=-1)
    has_key = mask.any(dim=-1, keepdim=True)
    return weights.masked_fill(~has_key, 0.0)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Shape of queries: (..., no. of queries, d); keys: (..., no. of key-value pairs, d);
    values: (..., no. of key-value pairs, value dimension)."""
    d = Q.shape[-1]
    # the book uses torch.bmm(queries, keys.transpose(1, 2)); matmul keeps any leading dims
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d)
    attention_weights = masked_softmax(scores, mask)
    return torch.matmul(attention_weights, V)
''',
    },
    "sdpa_karpathy_wei_times_head_size_power_minus_half_with_where_for_empty_rows": {
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """Like the video's Head.forward, minus the Linear layers: q, k, v are given."""
    hs = Q.shape[-1]                                   # head size, NOT n_embd (C): the video's bug
    wei = Q @ K.transpose(-2, -1) * hs ** -0.5         # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)
    if mask is not None:
        wei = wei.masked_fill(mask == 0, float("-inf"))   # video: masked_fill(tril[:T, :T] == 0, ...)
    wei = stable_softmax(wei, dim=-1)
    if mask is not None:
        wei = torch.where(mask.any(-1, keepdim=True), wei, torch.zeros((), dtype=wei.dtype, device=wei.device))
    # no self.dropout(wei) here: the notebook has no dropout
    out = wei @ V                                      # (..., T_q, d_v)
    return out
''',
    },
    "causal_mask_annotated_subsequent_mask_with_batch_axis_dropped_and_float64_minus_1e9_trace": {
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """The Annotated Transformer's subsequent_mask, rectangular and without its leading batch axis."""
    if T_k is None:
        T_k = T_q
    attn_shape = (T_q, T_k)          # the book has (1, size, size); our masks are (T_q, T_k)
    subsequent = torch.triu(torch.ones(attn_shape), diagonal=1)
    return subsequent == 0           # True where j <= i
''',
        "weights3": '''scores3 = torch.matmul(Q3, K3.transpose(-2, -1)) / math.sqrt(Q3.size(-1))
p_attn = stable_softmax(scores3, dim=-1)
weights3 = p_attn
out3 = torch.matmul(p_attn, V3)
mask3 = causal_mask(3)
# Annotated Transformer style: -1e9. In float64 exp(-1e9 - max) is exactly 0, so this is exact here.
weights3_causal = stable_softmax(scores3.masked_fill(mask3 == 0, -1e9), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
''',
    },
    "causal_mask_from_d2l_decoder_valid_lens_and_cs231n_style_softmax": {
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """D2L's decoder uses dec_valid_lens = arange(1, num_steps + 1): query i sees i + 1 keys.
    sequence_mask turns lengths into a boolean mask; keep it boolean, no -1e6 fill here."""
    if T_k is None:
        T_k = T_q
    valid_lens = torch.arange(1, T_q + 1)
    return torch.arange(T_k)[None, :] < valid_lens[:, None]
''',
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """CS231n's numeric-stability trick, on any axis: scores -= max(scores, axis, keepdims=True)."""
    shifted_logits = x - torch.amax(x, dim=dim, keepdim=True)
    exp_scores = torch.exp(shifted_logits)
    probs = exp_scores / torch.sum(exp_scores, dim=dim, keepdim=True)
    return probs
''',
    },
    "illustrated_transformer_divide_by_8_for_64_and_paper_notation_costs": {
        "raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(raw_scores.var())
# the illustrated transformer divides by 8 because its d_k is 64; our example has d_k = 8
scaled_score_var = float((raw_scores / d_k ** 0.5).var())
scale_divisor = float(64 ** 0.5)      # "divide by 8 (the square root of 64)"
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "attn_entries": '''n, d = 1024, 64                 # the paper's Table 1 notation: O(n^2 . d) per head
attn_entries = n * n
score_madds = n * n * d
cost_ratio = ((2 * n) ** 2 * d) // (n ** 2 * d)
''',
    },
}

WRONG = {
    "q1_out_width_taken_as_the_head_size_of_the_videos_head_module": (
        {"weights_shape": '''B, T, head_size = 4, 10, 64
# as in the video: k = key(x), q = query(x), v = value(x), all (B, T, head_size)
wei_shape = (B, T, T)                 # (B, T, 16) @ (B, 16, T) ---> (B, T, T)
weights_shape = wei_shape
out_shape = (B, T, head_size)         # out = wei @ v  -> (B, T, head_size)
'''},
        {"mistake": "the output width is taken as the head size (64), as in the video's Head where v has the "
                    "same width as k, instead of the value width d_v = 128: out_shape is (4, 10, 64)",
         "where": ["q1"]}),
    "q2_example_scaled_with_the_videos_head_size_16": (
        {"raw_score_var": '''head_size = 16     # from the video's variance demo
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores * head_size ** -0.5).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the example's scores are scaled with the video's head_size = 16 (divided by 4) instead of "
                    "sqrt(d_k) = sqrt(8), so scaled_score_var is raw/16 instead of raw/8",
         "where": ["q2"]}),
    "q3_normaliser_kept_as_the_books_sum_over_axis_1": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """D2L 'softmax from scratch', with the max subtracted first."""
    X_exp = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    partition = X_exp.sum(1, keepdims=True)     # as in the book
    return X_exp / partition
'''},
        {"mistake": "the normaliser keeps the book's hard-coded sum(1, keepdims=True) (the class axis of its 2-D "
                    "minibatch) instead of summing over `dim`: right only for 2-D input with dim=-1/1, wrong for "
                    "any other axis and for batched scores, and an IndexError on 1-D input",
         "where": ["q3", "q5"]}),
    "q4_annotated_subsequent_mask_keeps_its_leading_batch_axis": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """Mask out subsequent positions (The Annotated Transformer), rectangular."""
    if T_k is None:
        T_k = T_q
    attn_shape = (1, T_q, T_k)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).to(torch.uint8)
    return subsequent_mask == 0
'''},
        {"mistake": "the Annotated Transformer's attn_shape = (1, size, size) is kept, so the mask has shape "
                    "(1, T_q, T_k) instead of (T_q, T_k) (values right, one extra leading axis)",
         "where": ["q4", "q6"]}),
    "q5_boolean_mask_collapsed_to_d2l_valid_lens_assumes_prefix_masks": (
        {"scaled_dot_product_attention": '''def sequence_mask(X_shape, valid_len, device):
    """d2l.sequence_mask, returning the boolean mask instead of filling X."""
    maxlen = X_shape[-1]
    return torch.arange(maxlen, device=device)[None, :] < valid_len[..., None]


def scaled_dot_product_attention(Q, K, V, mask=None):
    d = Q.shape[-1]
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d)
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    valid_lens = mask.sum(dim=-1)                 # the book's valid_lens: how many keys each query sees
    keep = sequence_mask(scores.shape, valid_lens, scores.device)
    scores = scores.masked_fill(~keep, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights = weights.masked_fill((valid_lens == 0)[..., None], 0.0)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the boolean mask is turned into D2L valid_lens (the count of True per query) and rebuilt as "
                    "a prefix mask, so it is right for padding and causal masks but wrong for any mask whose "
                    "allowed keys are not the first ones (the wrong keys get the weight)",
         "where": ["q5"]}),
    "q5_scores_divided_by_the_illustrated_transformers_8": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V, mask True = may attend."""
    # Illustrated Transformer: "divide the scores by 8 (the square root of the dimension of the key vectors)"
    scores = torch.matmul(Q, K.transpose(-2, -1)) / 8.0
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the scores are divided by a hard-coded 8 (sqrt of the blog's d_k = 64) instead of "
                    "sqrt(d_k) of the inputs, so the weights are wrong whenever d_k != 64",
         "where": ["q5"]}),
    "q5_mask_read_with_cs224n_enc_masks_polarity_one_is_padding": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional mask (CS224n: enc_masks is 1 at the pad positions)."""
    d_k = Q.size(-1)
    e_t = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        e_t = e_t.masked_fill(mask.bool(), float("-inf"))
        alpha_t = stable_softmax(e_t, dim=-1)
        no_key = mask.bool().all(dim=-1, keepdim=True)
        alpha_t = alpha_t.masked_fill(no_key, 0.0)
    else:
        alpha_t = stable_softmax(e_t, dim=-1)
    return torch.matmul(alpha_t, V)
'''},
        {"mistake": "the mask is read in CS224n's enc_masks convention (True = padding, blocked), so the keys the "
                    "notebook allows are blocked and the blocked ones attended; rows the mask fully allows give "
                    "zeros",
         "where": ["q5"]}),
    "q6_hand_trace_divided_by_the_illustrated_transformers_8": (
        {"weights3": '''scores3 = Q3 @ K3.T / 8     # "divide by 8", as in the illustrated transformer
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the hand-trace scores are divided by the blog's 8 instead of sqrt(4) = 2, so weights3, out3 "
                    "and the causal weights are flatter than they should be",
         "where": ["q6"]}),
    "q6_annotated_mask_eq_zero_fill_given_the_raw_triu_future_mask": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
future = torch.triu(torch.ones(3, 3), diagonal=1)      # np.triu(ones, k=1) from subsequent_mask
# as in attention(): scores.masked_fill(mask == 0, ...)
weights3_causal = stable_softmax(scores3.masked_fill(future == 0, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the raw triu(k=1) future mask is used where the Annotated Transformer's attention() expects "
                    "subsequent_mask (triu == 0), so `mask == 0` blocks the past and the diagonal and keeps the "
                    "future: weights3_causal is upper-triangular with a NaN last row",
         "where": ["q6"]}),
    "q6_scores_laid_out_keys_by_queries_as_in_a_luong_tutorial": (
        {"weights3": '''# Luong-style: energies[j, i] = score of key j for query i, then softmax over the last axis
scores3 = K3 @ Q3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the scores are laid out keys-by-queries (K Q^T) as in the tutorial's energies, then "
                    "normalised over the last axis, so each row sums over queries: weights3, out3 and the causal "
                    "weights are all wrong",
         "where": ["q6"]}),
    "q7_answers_a_because_the_videos_weights_show_zeros_above_the_diagonal": (
        {"q_trap_answer": '''# In the video, after masked_fill(-inf) and softmax, wei has zeros above the diagonal.
# The classmate's weights also have zeros above the diagonal -> same result.
q_trap_answer = "A"
'''},
        {"mistake": "answers A, reasoning that both give zeros above the diagonal, missing that the kept weights "
                    "are not renormalised (C)",
         "where": ["q7"]}),
    "q7_answers_d_from_the_annotated_transformers_fp16_mask_notes": (
        {"q_trap_answer": '''# The Annotated Transformer's -1e9 and the fp16 overflow warnings: masking problems are a
# half-precision thing, so in float32/float64 zeroing after the softmax must agree.
q_trap_answer = "D"
'''},
        {"mistake": "answers D, taking the fp16 fill-value issue as the only difference, when zeroing after the "
                    "softmax leaves unnormalised rows in every dtype (C)",
         "where": ["q7"]}),
    "q8_cost_ratio_2_read_off_flashattentions_linear_in_sequence_length": (
        {"attn_entries": '''T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = 2        # FlashAttention: "linear in sequence length"
'''},
        {"mistake": "cost_ratio is 2, read off FlashAttention's linear memory claim, instead of 4: computing "
                    "Q K^T still grows with T^2",
         "where": ["q8"]}),
    "q8_entries_counted_for_the_papers_eight_heads": (
        {"attn_entries": '''h = 8                 # Attention Is All You Need: h = 8 parallel heads
T, d_k = 1024, 64
attn_entries = h * T * T
score_madds = T * T * d_k
cost_ratio = 4
'''},
        {"mistake": "attn_entries counts one weight matrix for each of the paper's 8 heads (8 * 1024^2) "
                    "although the question is about one head",
         "where": ["q8"]}),
}
