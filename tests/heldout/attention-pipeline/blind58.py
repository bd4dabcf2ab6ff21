"""Blind held-out set 58 for attention-pipeline.

Fifty-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and stub cells of attention-pipeline.ipynb, the solution
cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter strings, both q11
answers Python ints), `harness.py`, blind57.py in full (for the format), and only the variant names of the
earlier blind sets (to avoid repeating a mistake in the same form).

Round 58's angle: a statement READ DIFFERENTLY. Each wrong variant does consistently what its author
understood from another convention or a literal reading: batch-first input read as sequence-first, the
column-vector formula Q^T K applied to row-stored tensors, the lesson's 1-based "tokens 1..t" turned into
a loop that leaves the next token open, an additive mask converted again as if it were a 1/0 keep mask,
"delete the 1/sqrt(d_k) factor" read as deleting the root sign, sqrt(d_k) read as the query's length, the
lesson's 1-based row numbering kept as a padding row and column, the lesson table's two decimals taken as
the required precision, "the rank of the score matrix of Q and K" read as the rank of Q and K together,
the parameter "budget" read as float32 bytes, T' read as T transposed, a causal mask read as a padding
mask, and Q K^T counted as a product of two T x T matrices. Public material found with the `search` tool,
and what it showed:
- pytorch/pytorch #122959 ("RuntimeError with PyTorch's MultiheadAttention": "I forgot to set
  batch_first=True"), karttikeya/minREV #4 (an (N, L, E) tensor fed where nn.MultiheadAttention's default
  wants (L, N, E)) and pytorch/pytorch #63560 ("Why is the sequence dimension before batch size dimension
  for nn.MultiheadAttention"): the q01 variant, which moves a batched (B, T, d_model) input to the
  sequence-first (T, B, d_model) layout before projecting and returns Q, K, V that way.
- infraphysics.net "ML//Transformer//attention//dot product" ("Softmax applied per column (each query's
  distribution over all keys)") and the fleuret.org notes with K = W^K X (tokens as columns): in the column
  convention the scores are Q^T K. The q02 variant applies that formula to the notebook's row-stored Q
  and K, so for T_q = T_k it returns a d_k x d_k matrix (and crashes when T_q != T_k).
- mrapplexz/kaggle-asl src/kekpipe/ext_att_mask.py and the HF-style get_extended_attention_mask copies
  (code corpus): `(1.0 - attention_mask) * torch.finfo(dtype).min` turns a 1/0 keep mask into an
  additive one. The q05 variant runs that conversion on the notebook's mask, which is already additive:
  open entries get finfo.min added (which swamps the scores, so every visible key gets the same weight)
  and blocked ones overflow to -inf.
- datascience.stackexchange 126187 "Cross-attention mask in Transformers" and stats.stackexchange 422890
  "Why do we use masking for padding": the masks a student meets for encoder-decoder models are padding
  masks, which every layer does need; the q15 variant reads "causal mask" as that padding mask and
  answers 'a' (always).
- sarthakrastogi.github.io "LLM inference GPU memory calculator" and the huggingface.co post by
  ImranzamanML ("Memory usage (in bytes) = No. of Parameters x Size of Each Parameter", 4 bytes in fp32):
  the q12 variant reads the "parameter budget" as the float32 memory and returns 4 x the count.
- No public source was found for the other readings; they come from the notebook's own text read
  another way: the lesson's "tokens 1..t" and "row t, counting from 1" (q04's 1-based row loop that blocks
  from t + 1, q09's (T+1) x (T+1) matrix with an unused row and column 0), the variance argument
  E|q|^2 = d_k (q08 divides by |q|), the entropy table printed to two decimals (q10 rounds), the Question 2
  check's Q and K "together" (q11), T' read as T-transposed (q14), "delete the 1/sqrt(d_k) factor" read as
  "delete the root" (q03's experiment compares 1/d_k with 1/sqrt(d_k) and answers 'a'), the rank of the
  masked scores (q06's experiment, with the lesson's -1e9 stand-in, finds S + M full rank and S of rank
  d_k, and answers 'b'), and "S is T x T" taken for both factors of Q K^T (q16 counts 2 T^3 FLOPs and
  answers 'd').
q07 and q13 are reached through `where`: the q01, q02, q04 and q05 variants break self_attention (q07 and
q09's zero-projection test; the q05 variant still passes that one, since its uniform weights over the
visible keys are the prefix average), the q02 and q05 variants break cross_attention (q13; q01 and q04 list
q13 too, in case its checks compare with self_attention), and the q02, q04, q05 and q09 variants may reach
q10's public checks, which call those functions.

The correct variants are the same pipeline written in other idioms: an einsum projection and a reciprocal
multiply for the scale, a mask from torch.where over a keep triangle, a max-shifted hand-written softmax,
a max-shifted kernel average (the shift cancels in the ratio), a prefix average from tril(ones) divided
by an arange column, entropies through xlogy / ln 2 and exp2, a count summed over the weight shapes,
cross-attention through .mT and torch.matmul, and computed letters.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w58-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks themselves were not run), then every function compared with plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`
with is_causal and with an additive attn_mask, the notebook's own formulas) on unbatched, batched and 4-D
inputs, T_q != T_k, d_k != d_v, in float64, float32, float16 and bfloat16, and every written answer compared
with the right letter or integer; the correct variants agree everywhere (float16/bfloat16 within their
precision), and each wrong variant differs or fails in its `where` questions.

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

_LESSON_QK = '''_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
'''

CORRECT = {
    # einsum projection over the last axis; the scale as a reciprocal Python float
    "einsum_projection_and_reciprocal_float_scale": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...td,de->...te", X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    inv_scale = 1.0 / math.sqrt(Q.size(-1))
    return torch.matmul(Q, K.mT) * inv_scale
''',
    },
    # a keep triangle turned into the additive mask with torch.where over 0-dim tensors of the dtype;
    # a max-shifted softmax written out
    "where_keep_triangle_mask_and_amax_shifted_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.ones(T, T, dtype=torch.bool, device=device).tril()
    zero = torch.zeros((), dtype=dtype, device=device)
    blocked = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(keep, zero, blocked)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S + M if M is not None else S
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
    },
    # a max-shifted kernel average (the shift cancels in the ratio); the prefix average from tril(ones)
    # divided by an arange column
    "shifted_kernel_average_and_arange_column_prefix": {
        NW: '''def nadaraya_watson(q, K, V):
    s = (K * q).sum(dim=-1) / math.sqrt(q.shape[-1])
    kappa = torch.exp(s - s.max())          # the common factor exp(-max) cancels in the ratio
    return (kappa @ V) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)
    return torch.ones(T, T, dtype=torch.float64).tril() / counts
''',
    },
    # entropies through xlogy / ln 2 and exp2; a count summed over the weight shapes; cross-attention
    # through .mT and torch.matmul
    "xlogy_entropy_shape_sum_count_and_mt_cross": {
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(r * c for r, c in shapes)
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(Y, W_K)
    V = torch.matmul(Y, W_V)
    S = torch.matmul(Q, K.mT) / math.sqrt(Q.shape[-1])
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    return torch.matmul(A, V), A
''',
    },
    # written answers computed from small experiments; the ranks measured and cast to int
    "computed_letters_and_measured_ranks": {
        SCALE_ANS: '''_g = torch.Generator().manual_seed(3)
_q = torch.randn(64, 512, dtype=torch.float64, generator=_g)
_k = torch.randn(8, 512, dtype=torch.float64, generator=_g)


def _bits(S):
    A = torch.softmax(S, dim=-1)
    return float((-torch.special.xlogy(A, A).sum(-1) / math.log(2)).mean())


_h_scaled, _h_raw = _bits(_q @ _k.T / math.sqrt(512)), _bits(_q @ _k.T)
ans_scale = "b" if _h_raw < _h_scaled - 0.5 else ("a" if _h_raw > _h_scaled + 0.5 else "c")
''',
        RANK: '''_g = torch.Generator().manual_seed(4)
_Qr = torch.randn(100, 8, dtype=torch.float64, generator=_g)
_Kr = torch.randn(100, 8, dtype=torch.float64, generator=_g)
max_rank_S = int(torch.linalg.matrix_rank(_Qr @ _Kr.T / math.sqrt(8)))

''' + _LESSON_QK + '''rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T / 2.0))
''',
        SHAPES_ANS: '''_T, _Tp, _dv = 3, 7, 2
_S_shape, _O_shape = (_T, _Tp), (_T, _dv)     # one row per query of X, one column per token of Y
ans_cross_shapes = {((_T, _T), (_T, _dv)): "a", ((_T, _Tp), (_T, _dv)): "b",
                    ((_Tp, _T), (_Tp, _dv)): "c", ((_T, _Tp), (_Tp, _dv)): "d"}[(_S_shape, _O_shape)]
''',
        COST_ANS: '''def _score_flops(T, d_k=64):
    return 2 * T * T * d_k         # T_q x T_k scores, d_k multiply-adds each

ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[_score_flops(200) // _score_flops(100)]
''',
    },
}

WRONG = {
    # pytorch/pytorch #122959, karttikeya/minREV #4, pytorch/pytorch #63560
    "q01_batched_input_moved_to_sequence_first_like_multihead_attention": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    if X.dim() == 3:
        X = X.transpose(0, 1)        # (B, T, d_model) -> (T, B, d_model), as nn.MultiheadAttention wants
    return X @ W_Q, X @ W_K, X @ W_V
''',
    }, {"mistake": "Reads the batched input in nn.MultiheadAttention's sequence-first convention and swaps a "
                   "(B, T, d_model) input to (T, B, d_model) before projecting, so batched Q, K, V come back "
                   "(T, B, d) instead of (B, T, d); the scores built from them mix the batch and time axes.",
        "where": ["q01", "q07", "q09", "q13"]}),

    # infraphysics.net (softmax per column), fleuret.org notes (K = W^K X): the column convention
    "q02_column_convention_transposes_queries_not_keys": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q.transpose(-2, -1) @ K / math.sqrt(d_k)       # S = Q^T K / sqrt(d_k)
''',
    }, {"mistake": "Applies the column-vector formula S = Q^T K to the notebook's row-stored tensors: it "
                   "transposes Q instead of K, so with T_q = T_k it returns a d_k x d_k matrix of summed "
                   "feature products instead of the T_q x T_k scores, and raises a shape error when T_q != T_k.",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # "delete the 1/sqrt(d_k) factor" read as deleting the root sign
    "q03_deleting_the_root_read_as_scaling_by_one_over_d_k": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
_q = torch.randn(200, _d_k, dtype=torch.float64, generator=_g)
_k = torch.randn(8, _d_k, dtype=torch.float64, generator=_g)


def _row_bits(S):
    A = torch.softmax(S, dim=-1)
    return float(-(A * torch.log2(A)).sum(dim=-1).mean())


_H_kept = _row_bits(_q @ _k.T / math.sqrt(_d_k))
_H_deleted = _row_bits(_q @ _k.T / _d_k)        # the root sign deleted: 1/sqrt(d_k) becomes 1/d_k
if abs(_H_deleted - _H_kept) < 1e-3:
    ans_scale = "c"
elif _H_deleted > _H_kept:
    ans_scale = "a"
else:
    ans_scale = "b"
''',
    }, {"mistake": "Reads 'delete the 1/sqrt(d_k) factor' as deleting the square root, so its experiment "
                   "compares scores divided by d_k with scores divided by sqrt(d_k); the rows come out "
                   "flatter and it answers 'a' instead of 'b' (without any scale the rows snap to one key).",
        "where": ["q03"]}),

    # the lesson's "tokens 1..t" taken as 1-based row numbers, the block starting one too late
    "q04_one_based_row_loop_blocks_from_t_plus_one": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for t in range(1, T + 1):                        # query t may use tokens 1..t (counting from 1)
        M[t - 1, t + 1:] = torch.finfo(dtype).min    # block keys i > t
    return M
''',
    }, {"mistake": "Counts query t from 1 as the lesson does but slices the keys with the same 1-based t "
                   "as a 0-based index, so each row blocks from 0-based key t + 1 and leaves the next "
                   "token (the one just after the diagonal) open: the mask leaks one future token per row.",
        "where": ["q04", "q07", "q09", "q10", "q13"]}),

    # mrapplexz/kaggle-asl ext_att_mask.py and HF get_extended_attention_mask copies
    "q05_additive_mask_converted_again_like_hf_extended_mask": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + (1.0 - M) * torch.finfo(S.dtype).min      # 1 keep / 0 block -> 0 / finfo.min
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Treats the additive mask as a 1/0 keep mask and converts it with (1 - M) * finfo.min "
                   "as Hugging Face's extended attention mask does: open entries get finfo.min added, which "
                   "swamps the scores so every visible key gets the same weight, and blocked entries "
                   "overflow to -inf; with M=None it is right.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # the rank of the masked scores (lesson's -1e9 stand-in) compared with the unmasked ones
    "q06_masked_scores_full_rank_read_as_rank_lost_without_mask": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _d_k = 6, 2
_Qm = torch.randn(_T, _d_k, dtype=torch.float64, generator=_g)
_Km = torch.randn(_T, _d_k, dtype=torch.float64, generator=_g)
_S = _Qm @ _Km.T / math.sqrt(_d_k)
_M = torch.triu(torch.full((_T, _T), -1e9, dtype=torch.float64), diagonal=1)   # the lesson's stand-in
_rank_on = int(torch.linalg.matrix_rank(_S + _M))
_rank_off = int(torch.linalg.matrix_rank(_S))
ans_mask = "b" if _rank_off < _rank_on else "c"
''',
    }, {"mistake": "Tests option b by measuring the rank of the scores with and without the mask: S + M "
                   "(with -1e9 above the diagonal) is full rank while S alone has rank d_k, so it concludes "
                   "that switching the mask off makes the score matrix lose rank and answers 'b' instead "
                   "of 'c' (the mask adds rank; what goes wrong is that position t reads token t+1).",
        "where": ["q06"]}),

    # the variance argument E|q|^2 = d_k read as "scale by the query's length"
    "q08_kernel_scaled_by_query_norm": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / q.norm())           # |q| is about sqrt(d_k) for unit-variance components
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Reads sqrt(d_k) as the typical length of a query and divides the scores by |q| (the "
                   "query's Euclidean norm) instead of sqrt(d_k), so the kernel is exp(k . q/|q|) and the "
                   "weights are sharper or flatter than the softmax's, depending on the query.",
        "where": ["q08"]}),

    # "row t, counting from 1" kept literally
    "q09_one_based_indices_kept_with_unused_row_and_column_zero": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.zeros(T + 1, T + 1, dtype=torch.float64)     # index 0 unused: rows and columns from 1
    for t in range(1, T + 1):
        W[t, 1:t + 1] = 1.0 / t
    return W
''',
    }, {"mistake": "Keeps the lesson's 1-based numbering literally: it allocates a (T+1) x (T+1) matrix and "
                   "fills rows and columns 1..T, leaving an all-zero row 0 and column 0, so the result has "
                   "the wrong shape (and row 0 is not a distribution).",
        "where": ["q09", "q10"]}),

    # the lesson's table printed to two decimals taken as the required precision
    "q10_entropies_rounded_to_the_tables_two_decimals": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return torch.round(-(A * logs).sum(dim=-1), decimals=2)       # as in the lesson's table


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Rounds the row entropies to two decimals, as the lesson's table prints them, although "
                   "the question asks for the entropies themselves; the values are off by up to 0.005 bits "
                   "and effective_tokens inherits the rounding.",
        "where": ["q10"]}),

    # "the rank of the score matrix of Q and K" read as the rank of Q and K together
    "q11_lesson_rank_of_queries_and_keys_stacked": ({
        RANK: '''max_rank_S = 8

''' + _LESSON_QK + '''rank_S_lesson = int(torch.linalg.matrix_rank(torch.cat([_Q, _K], dim=0)))
''',
    }, {"mistake": "For (b) measures the rank of the lesson's Q and K stacked into one matrix (the space "
                   "the queries and keys span together, 4) instead of the rank of S = Q K^T / sqrt(d_k), "
                   "which is 2.",
        "where": ["q11"]}),

    # sarthakrastogi memory calculator, huggingface.co ImranzamanML post: bytes = parameters x 4
    "q12_count_returned_in_float32_bytes": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n * 4            # float32: 4 bytes per weight
''',
    }, {"mistake": "Reads the parameter budget as memory and returns the float32 size in bytes (4 x the "
                   "number of weights) instead of the number of weights.",
        "where": ["q12"]}),

    # T' read as "T transposed"
    "q14_t_prime_read_as_t_transposed_answers_square": ({
        SHAPES_ANS: '''# Y has T' = T^T tokens, i.e. the same T: the scores stay T x T and O is T x d_v
ans_cross_shapes = "a"
''',
    }, {"mistake": "Reads T' (Y's length) as 'T transposed', i.e. the same number T of tokens, so it takes "
                   "the score matrix to be T x T and answers 'a' instead of 'b' (S is T x T').",
        "where": ["q14"]}),

    # datascience.SE 126187, stats.SE 422890: the masks of encoder-decoder attention are padding masks
    "q15_causal_mask_read_as_padding_mask_answers_always": ({
        CAUSAL_ANS: '''# every encoder-decoder layer must mask the source's <PAD> tokens
ans_cross_causal = "a"
''',
    }, {"mistake": "Reads 'causal mask' as the padding mask that encoder-decoder attention does need in every "
                   "layer, and answers 'a' (always) instead of 'd' (only when X and Y share one time axis).",
        "where": ["q15"]}),

    # "S, M and A are T x T" taken for both factors of Q K^T
    "q16_flop_count_takes_both_factors_as_t_by_t": ({
        COST_ANS: '''def _matmul_flops(m, k, n):
    return 2 * m * k * n                 # an (m x k) by (k x n) product


def _score_flops(T):
    return _matmul_flops(T, T, T)        # S = Q K^T is T x T, so both factors are T x T


ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[_score_flops(200) // _score_flops(100)]
''',
    }, {"mistake": "Counts Q K^T as a product of two T x T matrices (reading 'S is T x T' for its factors) "
                   "instead of (T x d_k) by (d_k x T) with d_k fixed, gets 2 T^3 FLOPs, a ratio of 8 for "
                   "doubled T, and answers 'd' (cubic) instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
