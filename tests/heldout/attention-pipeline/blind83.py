"""Blind held-out set 83 for attention-pipeline.

Eighty-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind81.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 83's angle: FOLLOWING A TEXTBOOK, A VIDEO OR A COURSE'S OWN CONVENTIONS. Each wrong variant is careful
code that keeps one convention or constant of the source its author learned from, right there and wrong here:
PyTorch's nn.Linear weight layout (out, in) applied through F.linear to this notebook's (d_model, d_k) weights
(q01); the Illustrated Transformer's "divide by 8" for d_k = 64 hard-coded (q02); the Illustrated Transformer's
"more stable gradients" read as "the forward result does not change" (q03); the "Let's build GPT" tril buffer
of block_size = 8 sliced with [:T, :T] (q04); the Annotated Transformer's keep-mask fill of -1e9, which float16
cannot hold (q05); D2L's masked_softmax "so the valid probabilities sum to 1" read as the reason for the causal
mask (q06); the video's `C**-0.5` with C the embedding width, not the head size (q07); the Annotated
Transformer's `mask.unsqueeze(1)` for the head axis kept on an unbatched mask (q07); D2L's Nadaraya-Watson
Gaussian kernel on distances instead of the exponential dot-product kernel (q08); D2L's perplexity exp(H) for
the effective number of tokens when H is in bits (q10); nanoGPT's output projection nn.Linear(n_embd, n_embd)
counted as d_model x d_model (q12); D2L's DotProductAttention with torch.bmm and keys.transpose(1, 2), which
only works for 3-D batch-first input (q13); the Illustrated Transformer's "the decoder's self-attention may only
attend to earlier positions" generalised to every attention layer (q15); the paper's Table 1 "O(1) sequential
operations" read as the cost of the scores (q16).

Public material found with the `search` tool, and what it showed:
- D2L 11.3 masked_softmax as copied in github.com/MurmanskY/d2l_codes and blog.csdn.net/weixin_45023325/article/
  details/139125122: `masked_softmax(X, valid_lens)` with `sequence_mask(..., value=-1e6)` on 3-D
  (batch, no. of queries, no. of keys) scores, "so that only meaningful tokens count" (q06, and the adapted
  helper of the d2l-style correct variant); the same notebook's Nadaraya-Watson Gaussian kernel
  softmax(-(x - x_i)^2 / 2) (q08); D2L's DotProductAttention's `torch.bmm(queries, keys.transpose(1, 2))` (q13).
- github.com/sebastianvlad1/Transformer head.py (a "Let's build GPT" Head): `B,T,C = x.shape` then
  `wei = q @ k.transpose(-2, -1) * C**-0.5` with C = n_embd, and `masked_fill(self.tril[:T,:T] == 0,
  float('-inf'))` (q07, and the correct Karpathy-style variant that scales by the head size).
- Annotated-Transformer copies in the code corpus (`subsequent_mask` with `np.triu(np.ones(attn_shape), k=1)`
  and `== 0`, "sets diagonal and below to True"; `scores.masked_fill(mask == 0, -1e9)`; `attention(query, key,
  value, mask=None, dropout=None)` with `p_attn = dropout(p_attn)`), and makeesyai/makeesy-deep-learning
  self_attention/create_atten_mask_decoder.py (a (bs, heads, T, T) score tensor with a mask made to broadcast over
  the head axis): q05, q07 (unsqueeze(1)) and the Annotated-style correct variant.
- The same sebastianvlad1/Transformer Head and ryansenn/byteGPT self_attention.py: the `tril` buffer of
  `block_size` sliced `[:T, :T]` (q04).
- github.com/karpathy/minGPT/issues/10 (a `1e-10` written where `-1e10` was meant as the fill value of
  top_k_logits): how easily a source's large-negative fill constant is carried over or slips (q05).
- The remaining kinds (Illustrated Transformer's d_k = 64 and "divide by 8", its "more stable gradients" and
  decoder-masking sentences, nanoGPT's c_proj of n_embd x n_embd, D2L's perplexity as exp of the cross-entropy,
  the paper's Table 1) follow the brief's list of sources; searches for them in the pages corpus returned only
  generic explanations of the sqrt(d_k) scale.

The correct variants read like those sources too: a D2L-style `masked_softmax` adapted to the additive mask
and DotProductAttention with `transpose(-2, -1)`; a "Let's build GPT" head scaled by `k.shape[-1]**-0.5` with a
tril mask filled with finfo.min; an Annotated-Transformer `subsequent_mask` / `attention(..., dropout=None)`
pair; answer cells that cite the sources for the right letters. Every one is right everywhere.

Every variant was checked with a throwaway script under /tmp/w83-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
and answer compared with torch.softmax / scaled_dot_product_attention-based references (fully masked rows included)
on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v != d_model, float64, float32 and float16, with and
without masks.

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
    # D2L chapter 11 style: DotProductAttention's scores, a masked_softmax adapted to an additive mask
    "d2l_dot_product_scores_and_masked_softmax_adapted_to_additive_mask": {
        SCORES: '''def scaled_scores(Q, K):
    # D2L's DotProductAttention: d = queries.shape[-1]; scores = Q K^T / sqrt(d)
    # (the book uses torch.bmm and transpose(1, 2) for 3-D batches; matmul with (-2, -1) works for any batch shape)
    queries, keys = Q, K
    d = queries.shape[-1]
    return torch.matmul(queries, keys.transpose(-2, -1)) / math.sqrt(d)
''',
        WEIGHTS: '''def masked_softmax(X, mask=None):
    """Softmax over the last axis. D2L fills masked entries with -1e6 from valid_lens; here the mask is
    already additive (0 open, finfo.min blocked), so it is simply added."""
    if mask is None:
        return torch.nn.functional.softmax(X, dim=-1)
    return torch.nn.functional.softmax(X + mask, dim=-1)


def attention_weights(S, M=None):
    return masked_softmax(S, M)
''',
        NW: '''def nadaraya_watson(q, K, V):
    # D2L 11.2 pooling f(x) = sum_i alpha(x, x_i) y_i, with the notebook's kernel exp(q.k / sqrt(d_k))
    # (the book's Gaussian kernel is a different kernel; the ratio is the same)
    queries_times_keys = K @ q / math.sqrt(q.shape[-1])
    kernel = torch.exp(queries_times_keys)
    attention_weights_ = kernel / kernel.sum()
    return attention_weights_ @ V
''',
    },

    # "Let's build GPT" style: wei = q @ k^T * head_size**-0.5, tril mask, version-2 prefix average in float64
    "karpathy_head_scaled_by_head_size_tril_mask_and_version_two_average": {
        SCORES: '''def scaled_scores(Q, K):
    q, k = Q, K
    head_size = k.shape[-1]          # the head size, not the embedding width C
    wei = q @ k.transpose(-2, -1) * head_size**-0.5
    return wei
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    tril = torch.tril(torch.ones(T, T, device=device))
    wei = torch.zeros((T, T), dtype=dtype, device=device)
    # the video fills with float('-inf'); this notebook wants the dtype's most negative finite number
    return wei.masked_fill(tril == 0, torch.finfo(dtype).min)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    T = X.shape[-2]
    q, k, v = project_qkv(X, W_Q, W_K, W_V)
    wei = scaled_scores(q, k)
    wei = attention_weights(wei, causal_additive_mask(T, wei.dtype, wei.device) if causal else None)
    out = wei @ v
    return out, wei
''',
        AVG: '''def prefix_average_matrix(T):
    # "version 2" of the video, in float64 as asked
    wei = torch.tril(torch.ones(T, T, dtype=torch.float64))
    wei = wei / wei.sum(1, keepdim=True)
    return wei
''',
    },

    # Annotated Transformer style: subsequent_mask turned additive, attention(...) with dropout=None
    "annotated_subsequent_mask_and_attention_helper_without_dropout": {
        MASK: '''def subsequent_mask(size, device=None):
    "Mask out subsequent positions: True on and below the diagonal (may attend)."
    attn_shape = (size, size)
    return torch.triu(torch.ones(attn_shape, device=device), diagonal=1) == 0


def causal_additive_mask(T, dtype, device=None):
    keep = subsequent_mask(T, device)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(keep == 0, torch.finfo(dtype).min)
''',
        SELF: '''def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    scores = scaled_scores(query, key)
    p_attn = attention_weights(scores, mask)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def self_attention(X, W_Q, W_K, W_V, causal=True):
    query, key, value = project_qkv(X, W_Q, W_K, W_V)
    mask = causal_additive_mask(X.shape[-2], query.dtype, query.device) if causal else None
    return attention(query, key, value, mask)
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    # the Annotated Transformer's src-attn: queries from the decoder (X), keys and values from memory (Y)
    query, key, value = X @ W_Q, Y @ W_K, Y @ W_V
    return attention(query, key, value, M)
''',
    },

    # paper / nanoGPT names for the budget, xlogy entropy, and answers that cite the sources for the right letter
    "paper_names_budget_xlogy_entropy_and_source_cited_answers": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # paper: W_i^Q, W_i^K in R^{d_model x d_k}, W_i^V in R^{d_model x d_v}, W^O in R^{h d_v x d_model} (h = 1 here)
    n_embd, head_size = d_model, d_k
    n = n_embd * head_size * 2 + n_embd * d_v
    if with_output:
        n += d_v * n_embd
    return n
''',
        ENT: '''def row_entropy_bits(A):
    # xlogy(0, 0) = 0, as in the 0 log 0 = 0 convention; divide by ln 2 for bits
    return -torch.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    # 2**H with H in bits (exp(H) would need H in nats, as D2L's perplexity uses)
    return 2.0 ** row_entropy_bits(A)
''',
        SCALE_ANS: '''# "Let's build GPT": without 1/sqrt(head_size) the softmax converges towards one-hot
ans_scale = "b"
''',
        MASK_ANS: '''# Annotated Transformer: the mask, with the shifted outputs, makes prediction i depend only on positions < i
ans_mask = "c"
''',
        SHAPES_ANS: '''# D2L: scores are (no. of queries, no. of key-value pairs), output is (no. of queries, value dim)
ans_cross_shapes = "b"
''',
        CAUSAL_ANS: '''# Annotated Transformer: src-attn only gets the padding mask; only the decoder self-attn gets subsequent_mask
ans_cross_causal = "d"
''',
        COST_ANS: '''# T x T scores, each a d_k-long dot product
ans_complexity = "c"
''',
    },

    # Bahdanau/Luong tutorial names for cross-attention (energies, context), and the rank probed with matrix_rank
    "luong_named_cross_attention_and_probed_rank": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    # Luong's "dot" score between decoder states (queries) and encoder outputs (keys), scaled as in this course
    decoder_q = X @ W_Q
    encoder_k = Y @ W_K
    encoder_v = Y @ W_V
    energies = scaled_scores(decoder_q, encoder_k)           # (..., T, T'): one row per decoder step
    attn_weights = attention_weights(energies, M)             # softmax over the encoder axis (last)
    context = attn_weights @ encoder_v
    return context, attn_weights
''',
        RANK: '''d_k_, T_ = 8, 100
Qp, Kp = torch.randn(T_, d_k_, dtype=torch.float64), torch.randn(T_, d_k_, dtype=torch.float64)
max_rank_S = int(torch.linalg.matrix_rank(Qp @ Kp.T / math.sqrt(d_k_)))

rank_S_lesson = 2
''',
    },
}

WRONG = {
    # --- q01
    "q01_f_linear_as_nn_linear_head_transposes_weights": ({
        PROJ: '''import torch.nn.functional as F

def project_qkv(X, W_Q, W_K, W_V):
    # as in the video's Head: self.query = nn.Linear(n_embd, head_size, bias=False), i.e. F.linear(x, weight)
    q = F.linear(X, W_Q)
    k = F.linear(X, W_K)
    v = F.linear(X, W_V)
    return q, k, v
''',
    }, {"mistake": "F.linear(X, W) computes X @ W.T, the nn.Linear convention where the weight is (out, in); this "
                   "notebook's W_Q, W_K, W_V are (d_model, d_k), so the projections fail with a shape error when "
                   "d_model differs from d_k (and use the transposed map when they are equal).",
        "where": ["q01", "q07", "q09"]}),

    # --- q02
    "q02_illustrated_transformer_divide_by_eight_hard_coded": ({
        SCORES: '''def scaled_scores(Q, K):
    # Illustrated Transformer: "divide the scores by 8 (the square root of the dimension of the key vectors, 64)"
    return Q @ K.transpose(-2, -1) / 8
''',
    }, {"mistake": "The scores are divided by the constant 8 (sqrt(64), the Illustrated Transformer's d_k) instead of "
                   "sqrt(d_k) of the inputs: wrong scale for every head size but 64.",
        "where": ["q02", "q07", "q13"]}),

    # --- q03
    "q03_stable_gradients_sentence_read_as_forward_unchanged_answers_c": ({
        SCALE_ANS: '''# Illustrated Transformer: dividing by 8 "leads to having more stable gradients".
# So the scale is a training trick for the gradients; the attention the forward pass computes stays the same.
ans_scale = "c"
''',
    }, {"mistake": "Reads the source's 'more stable gradients' as 'the forward result does not change' and answers "
                   "'c'; without the scale the rows collapse toward one key, so the entropies fall toward 0 ('b').",
        "where": ["q03"]}),

    # --- q04
    "q04_video_block_size_eight_tril_buffer_sliced": ({
        MASK: '''block_size = 8                                   # the video's context length
tril = torch.tril(torch.ones(block_size, block_size))   # register_buffer('tril', ...) in the Head

def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    # wei.masked_fill(self.tril[:T, :T] == 0, ...), with finfo.min instead of -inf as this notebook asks
    return M.masked_fill(tril[:T, :T].to(M.device) == 0, torch.finfo(dtype).min)
''',
    }, {"mistake": "The mask is sliced from the video's fixed block_size = 8 tril buffer: right for T <= 8, but for "
                   "longer sequences tril[:T, :T] is still 8 x 8 and the mask cannot be built (shape error).",
        "where": ["q04", "q07", "q09"]}),

    # --- q05
    "q05_annotated_keep_mask_fill_minus_1e9_overflows_half": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        # Annotated Transformer: mask is True where attending is allowed, scores.masked_fill(mask == 0, -1e9)
        mask = M == 0
        S = S.masked_fill(mask == 0, -1e9)
    return S.softmax(dim=-1)
''',
    }, {"mistake": "Blocked scores are filled with the Annotated Transformer's -1e9, which float16 cannot hold: "
                   "masked_fill raises an overflow error for float16 inputs with a mask (float32/float64 are right).",
        "where": ["q05", "q07", "q13"]}),

    # --- q06
    "q06_d2l_masked_softmax_purpose_read_as_row_sums_answers_a": ({
        MASK_ANS: '''# D2L 11.3.1: masked_softmax is there so that the probabilities over the valid positions sum to 1.
# Without the mask the normalisation runs over the wrong entries, so the rows stop summing to 1.
ans_mask = "a"
''',
    }, {"mistake": "Takes D2L's reason for masked_softmax (probabilities over valid positions) as the reason for the "
                   "causal mask and answers 'a'; softmax rows sum to 1 with or without a mask, the problem is that "
                   "position t reads the token it must predict ('c').",
        "where": ["q06"]}),

    # --- q07
    "q07_lets_build_gpt_scale_by_embedding_width_c": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    T, C = X.shape[-2], X.shape[-1]
    q, k, v = project_qkv(X, W_Q, W_K, W_V)
    wei = q @ k.transpose(-2, -1) * C**-0.5          # as in the video
    M = causal_additive_mask(T, wei.dtype, wei.device) if causal else None
    wei = attention_weights(wei, M)
    out = wei @ v
    return out, wei
''',
    }, {"mistake": "Scales the scores by C**-0.5 with C = d_model, the embedding width (as in the video's Head), "
                   "instead of 1/sqrt(d_k), the head size: wrong weights whenever d_model != d_k.",
        "where": ["q07"]}),

    "q07_annotated_mask_unsqueezed_for_heads": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    mask = None
    if causal:
        mask = causal_additive_mask(X.shape[-2], S.dtype, S.device)
        mask = mask.unsqueeze(1)      # Annotated Transformer: "Same mask applied to all h heads."
    A = attention_weights(S, mask)
    return A @ V, A
''',
    }, {"mistake": "Keeps the Annotated Transformer's mask.unsqueeze(1), meant for a (batch, 1, T) mask and "
                   "(batch, h, T, T) scores: here the (T, 1, T) mask broadcasts unbatched scores to (T, T, T) "
                   "and fails against batched ones, so the causal output has the wrong shape or raises.",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_d2l_gaussian_kernel_on_distance": ({
        NW: '''def nadaraya_watson(q, K, V):
    # D2L 11.2: Gaussian kernel K(u) = exp(-u^2 / 2) on the distance between query and key
    kappa = torch.exp(-((q - K) ** 2).sum(dim=-1) / 2)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Uses D2L's Gaussian kernel exp(-||q - k||^2 / 2) instead of the notebook's exp(q.k / sqrt(d_k)): "
                   "a different weighted average.",
        "where": ["q08"]}),

    # --- q10
    "q10_effective_tokens_as_d2l_perplexity_exp_of_bits": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    # D2L 9.3: perplexity = exp(average cross-entropy), "the effective number of choices"
    return torch.exp(row_entropy_bits(A))
''',
    }, {"mistake": "effective_tokens takes exp(H) like D2L's perplexity, but H is in bits, so it should be 2**H: "
                   "too few effective tokens for every row with positive entropy (row_entropy_bits is right).",
        "where": ["q10"]}),

    # --- q12
    "q12_nanogpt_c_proj_counted_as_n_embd_square": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        # nanoGPT: self.proj = nn.Linear(n_embd, n_embd)
        n += d_model * d_model
    return n
''',
    }, {"mistake": "Counts W_O as nanoGPT's n_embd x n_embd projection (d_model^2) instead of d_v x d_model: "
                   "wrong whenever d_v != d_model (384*384 instead of 64*384 for the exercise).",
        "where": ["q12"]}),

    # --- q13
    "q13_d2l_bmm_with_keys_transpose_one_two_batch_first_only": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    # D2L DotProductAttention: queries (batch, no. of queries, d), keys (batch, no. of key-value pairs, d)
    queries, keys, values = X @ W_Q, Y @ W_K, Y @ W_V
    d = queries.shape[-1]
    scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
    A = attention_weights(scores, M)
    return torch.bmm(A, values), A
''',
    }, {"mistake": "Keeps D2L's torch.bmm and keys.transpose(1, 2), which assume a 3-D (batch, T, d) input: "
                   "unbatched (T, d_model) inputs fail (no axis 2) and 4-D inputs fail in bmm.",
        "where": ["q13"]}),

    # --- q15
    "q15_illustrated_decoder_masking_taken_for_every_layer_answers_a": ({
        CAUSAL_ANS: '''# Illustrated Transformer: "In the decoder, the self-attention layer is only allowed to attend to earlier
# positions in the output sequence." A language model is a decoder, so all its attention layers are masked.
ans_cross_causal = "a"
''',
    }, {"mistake": "Generalises the source's sentence about the decoder's self-attention to every attention layer "
                   "and answers 'a'; a decoder reading a finished source sentence may see all of it ('d').",
        "where": ["q15"]}),

    # --- q16
    "q16_paper_table_one_sequential_operations_read_as_cost_answers_b": ({
        COST_ANS: '''# Paper, Table 1: a self-attention layer needs O(1) sequential operations and has O(1) maximum path
# length, against O(n) for a recurrent layer: the whole score matrix is one step whatever the length.
ans_complexity = "b"
''',
    }, {"mistake": "Reads the paper's O(1) 'sequential operations' column as the cost and answers 'b'; the same "
                   "table gives O(n^2 d) per layer: T^2 scores of d_k multiply-adds, quadratic ('c').",
        "where": ["q16"]}),
}
