"""Blind held-out set 55 for attention-pipeline.

Fifty-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of full_marks.ipynb (tokens are rows,
leading batch dimensions allowed, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min, the
prefix average in float64, letters as one-letter strings, both q11 answers Python ints), `harness.py`,
blind54.py in full (for the format), only the variant names of the earlier blind sets (to avoid repeating a
mistake in the same form), and the lesson text lesson-08-attention-pipeline.txt (the d_k = 512 scale
experiment on 8 keys, the hand-built Q and K).

Round 55 draws its mistakes from public material (the `search` tool), one kind a question where it can:
- huggingface get_extended_attention_mask (code corpus, e.g. A1ex-Chen/DL_project_log
  .../visual_encoder_get_extended_attention_mask.py: `attention_mask[:, None, None, :]` to broadcast a
  (batch, keys) padding mask over heads and queries): the q05 variant that inserts a query axis into the
  (T_q, T_k) additive mask the same way, so S + M grows an extra axis (or fails to broadcast).
- pytorch/pytorch #21658 ("softmax converts half inputs into fp32 ... Expected object of scalar type Float
  but got scalar type Half" in bmm) and huggingface/transformers #17437 (OPT: "If we don't cast attn_probs
  back ... it will fail (if value_states is fp16) for some op like torch.bmm"): the q07 variant that
  computes the scores in float32 for stability and never casts back, so A @ V fails for float16 and float64.
- pytorch/pytorch #64180 and the warnings quoted in datamol-io/graphium #295, braindecode #446 ("The use of
  `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated"): the q01 variant written
  in the column convention (W^T X^T)^T with .T, which reverses every axis of a batched X.
- Charmaineem/Hands-On-LLMs Transformer/layers.py (`s = F.softmax(dot/math.sqrt(d_k), dim=-1)`: scaling
  and softmax on one line, the scores never returned on their own): the q02 variant whose scaled_scores
  already returns the softmax, so the pipeline applies softmax twice.
- Stack Overflow 3451157 ("python list sublist selection -1 weirdness": ls[500:-1] stops before the last
  element): the q04 variant that blocks keys t+1 .. -1 and leaves the last key open.
- docs.quantifiedcode.com python-anti-patterns "else clause on loop without a break statement": the q14
  variant whose for-else fallback always runs and overwrites the matched letter.
- lerner.co.il "Why do Python lists let you += a tuple" and yeahexp.com (x += y is x.extend(y) for lists):
  the q12 variant that adds the W_O shape with += and gets two loose integers in its list of shapes.
- php.sqjnqi.com faq 2026847 and pyguides.dev str.lstrip ("chars" is a set of characters, not a prefix):
  the q15 variant whose lstrip("Answered: ") also eats the answer letter d.
- bsc-iitm python-textbook lesson 4.3 and faschingbauer.me scoping screenplay (a name assigned inside a
  function is local; NameError outside): the q06 variant that sets its answer inside a helper function.
- d2l.ai "Attention Pooling by Similarity" and junwei-lu/bst236 attention.md (the estimator written both
  as a ratio of kernel sums and as a sum with weights alpha = K / sum K that already sum to 1): the q08
  variant that uses the normalised weights and still divides by the kernel sum.
Other kinds, for the questions the sources do not reach (no specific public source found for these): a
q03 experiment that "copies" the raw scores with a plain assignment and divides the copy in place, the
stable rank ||S||_F^2 / ||S||_2^2 (the rank-collapse literature's soft rank) read as the rank in q11, a
`2 * T ** 2` written for (2T)^2 in q16, and a helper function named without being called in q10. q09 and q13 are reached through `where` (the
q01, q04, q05 and q07 variants break self_attention, which q09's zero-projection test runs; the q02 and
q05 variants break cross_attention).

The correct variants use other calls and idioms than full_marks: .mT with torch.div and a masked_fill_ of
a boolean triu_; F.softmax of torch.add with dim=Z.dim() - 1 and an einsum for A @ V; the prefix average
from torch.where on float64 aranges with a masked_fill entropy and torch.exp2; einsum kernel weights,
math.prod parameter counts and a cross-attention through a generator of projections; letters from an
index, chr(0x63), "%s" %, str.format and bytes.decode, ranks with min over a tuple and .item().

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator. Every variant was checked with a throwaway script under /tmp/w55-attention-pipeline/: each
variant's notebook run top to bottom (all code cells but otter's), then every function compared with plain
torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention` with is_causal and with an
additive attn_mask, the notebook's own formulas and the full-marks cells) on unbatched and batched inputs,
T_q != T_k, d_k != d_v, in float64, float32, float16 and bfloat16; the correct variants agree everywhere
(float16/bfloat16 within their precision), and each wrong variant differs or fails in its `where`
questions and nowhere else.

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

_LESSON_QK = '''_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
'''

CORRECT = {
    # scores with .mT and torch.div; the mask as a masked_fill_ of a boolean triu_
    "mt_div_scores_and_bool_triu_masked_fill_mask": {
        SCORES: '''def scaled_scores(Q, K):
    return torch.div(torch.matmul(Q, K.mT), math.sqrt(K.shape[-1]))
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    above = torch.ones(T, T, dtype=torch.bool, device=device).triu_(1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill_(above, torch.finfo(dtype).min)
''',
    },
    # F.softmax of torch.add over the last dim counted from ndim; einsum for the mix; keyword arguments
    "functional_softmax_of_add_and_einsum_mix": {
        WEIGHTS: '''import torch.nn.functional as F


def attention_weights(S, M=None):
    Z = S if M is None else torch.add(S, M)
    return F.softmax(Z, dim=Z.dim() - 1)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        M = causal_additive_mask(T=S.shape[-1], dtype=Q.dtype, device=Q.device)
    A = attention_weights(S, M)
    O = torch.einsum("...qk,...kd->...qd", A, V)
    return O, A
''',
    },
    # the prefix average from torch.where on float64 aranges; entropy with zeros patched to ones; exp2
    "where_prefix_from_float64_aranges_and_patched_log_exp2": {
        AVG: '''def prefix_average_matrix(T):
    row = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    col = torch.arange(T, dtype=torch.float64).unsqueeze(0)
    return torch.where(col <= row, 1.0 / (row + 1.0), torch.zeros((), dtype=torch.float64))
''',
        ENT: '''def row_entropy_bits(A):
    safe = A.masked_fill(A == 0, 1)
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # einsum kernel weights; math.prod counts; cross-attention through a generator of projections
    "einsum_kernel_prod_count_and_generator_cross": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.einsum("td,d->t", K, q) / math.sqrt(q.numel()))
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(math.prod(s) for s in shapes)
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K, V = (torch.matmul(Y, W) for W in (W_K, W_V))
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.matmul(A, V), A
''',
    },
    # letters from an index, chr(0x63), "%s" %, str.format, bytes.decode; ranks with min and .item()
    "letters_by_index_chr_percent_format_decode_and_item_rank": {
        SCALE_ANS: '''ans_scale = "abcd"[1]
''',
        MASK_ANS: '''ans_mask = chr(0x63)
''',
        SHAPES_ANS: '''ans_cross_shapes = "%s" % "b"
''',
        CAUSAL_ANS: '''ans_cross_causal = "{}".format("d")
''',
        COST_ANS: '''ans_complexity = bytes([99]).decode()
''',
        RANK: '''max_rank_S = min((8, 100))

''' + _LESSON_QK + '''rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Ql, _Kl)).item())
''',
    },
}

WRONG = {
    # pytorch/pytorch #64180 (x.T on tensors of dimension other than 2 reverses every axis)
    "q01_column_convention_with_dot_t_reverses_batched_axes": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # column convention from the notes, q = W^T x, then back to rows
    return tuple((W.T @ X.T).T for W in (W_Q, W_K, W_V))
''',
    }, {"mistake": "Projects in the column convention (W^T X^T)^T with .T, which is right for a 2-D X but on a "
                   "batched X reverses every axis ((B, T, d_model) becomes (d_model, T, B)), so batched inputs "
                   "fail in the matmul (or come out scrambled) instead of projecting each token row.",
        "where": ["q01", "q07", "q09"]}),

    # Charmaineem/Hands-On-LLMs Transformer/layers.py (softmax and scaling on one line)
    "q02_scores_returned_after_softmax": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
''',
    }, {"mistake": "Applies the row softmax inside scaled_scores, so it returns attention weights instead of "
                   "the scaled scores QK^T/sqrt(d_k); the pipeline then takes a second softmax of values in "
                   "[0, 1] and its rows come out nearly flat.",
        "where": ["q02", "q07", "q13"]}),

    # thelinuxcode.com: in-place division changes every name bound to the tensor
    "q03_experiment_raw_scores_aliased_then_divided_in_place": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)


def _mean_bits(S):
    A = torch.softmax(S, dim=-1)
    return torch.special.entr(A).sum(dim=-1).mean().item() / math.log(2)


_S_raw = _Q @ _K.transpose(-2, -1)
_S_scaled = _S_raw                      # keep the raw scores, scale a copy
_S_scaled /= math.sqrt(512)
_H_raw, _H_scaled = _mean_bits(_S_raw), _mean_bits(_S_scaled)
if _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Its experiment 'copies' the raw scores with a plain assignment and divides the copy in "
                   "place, which divides the raw scores too; both entropies are those of the scaled rows, it "
                   "sees no change and answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    # Stack Overflow 3451157 (a slice ending at -1 stops before the last element)
    "q04_row_slice_to_minus_one_leaves_last_key_open": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for t in range(T):
        M[t, t + 1:-1] = torch.finfo(dtype).min          # keys after t, to the end
    return M
''',
    }, {"mistake": "Blocks each row with the slice t+1:-1, which stops before the last column, so the last key "
                   "stays open to every earlier query (and for T = 2 nothing is blocked at all).",
        "where": ["q04", "q07", "q09"]}),

    # huggingface get_extended_attention_mask: attention_mask[:, None, None, :]
    "q05_mask_given_a_query_axis_like_extended_attention_mask": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M[:, None, :]          # broadcast the mask over the query axis
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Inserts an extra axis into the mask as for a (batch, keys) padding mask, M[:, None, :], "
                   "although M is already (T_q, T_k): S + M then gains an axis (a (T, T) score matrix gives "
                   "a (T, T, T) result) or fails to broadcast for batched scores.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # bsc-iitm python-textbook lesson 4.3 (a name assigned in a function is local to it)
    "q06_answer_assigned_inside_a_helper_function": ({
        MASK_ANS: '''def _answer_q06():
    # without the mask, position t reads token t+1, the very token it is trained to predict
    ans_mask = "c"
    return ans_mask


_answer_q06()
''',
    }, {"mistake": "Assigns the letter inside a helper function and discards its return value, so ans_mask is "
                   "a local name of the function and the notebook never defines it.",
        "where": ["q06"]}),

    # pytorch/pytorch #21658, huggingface/transformers #17437 (fp32 softmax not cast back before bmm)
    "q07_scores_upcast_to_float32_never_cast_back": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q.float(), K.float())          # float32 scores for a stable softmax
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Upcasts the queries and keys to float32 for the softmax and never casts the weights back, "
                   "so A is float32 and A @ V fails for float16 and float64 inputs (float64 would also lose "
                   "precision).",
        "where": ["q07", "q09"]}),

    # d2l.ai attention pooling: the normalised weights already sum to 1
    "q08_normalised_weights_divided_by_kernel_sum_again": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa / kappa.sum()                          # normalised kernel weights
    return (w[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Normalises the kernel weights and then divides the weighted sum by the kernel sum a second "
                   "time, so the output is the right average divided by sum(kappa).",
        "where": ["q08"]}),

    "q10_entropy_function_not_called_in_effective_tokens": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits
''',
    }, {"mistake": "effective_tokens raises 2 to the function row_entropy_bits itself (never called on A), "
                   "which is a TypeError, instead of 2 ** row_entropy_bits(A).",
        "where": ["q10"]}),

    "q11_lesson_rank_read_from_stable_rank": ({
        RANK: '''max_rank_S = 8

''' + _LESSON_QK + '''_sv = torch.linalg.svdvals(scaled_scores(_Ql, _Kl))
rank_S_lesson = round(((_sv ** 2).sum() / _sv[0] ** 2).item())          # ||S||_F^2 / ||S||_2^2
''',
    }, {"mistake": "Takes the stable rank ||S||_F^2 / ||S||_2^2 (a soft measure of rank, 1.31 here) for the "
                   "rank and rounds it to 1 instead of counting the two nonzero singular values (rank 2).",
        "where": ["q11"]}),

    # lerner.co.il: list += tuple extends the list with the tuple's items
    "q12_output_shape_added_with_plus_equals_extends_list": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes += (d_v, d_model)
    return sum(rows * cols for rows, cols in shapes)
''',
    }, {"mistake": "Adds the W_O shape with shapes += (d_v, d_model), which extends the list with the two "
                   "integers instead of appending the pair, so with_output=True fails when the loop unpacks "
                   "an int.",
        "where": ["q12"]}),

    # docs.quantifiedcode.com: else clause on a loop without a break
    "q14_for_else_fallback_overwrites_matched_letter": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _dm, _dv = 3, 5, 6, 2
_X = torch.randn(_T, _dm, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _dm, dtype=torch.float64, generator=_g)
_Ws = [torch.randn(_dm, d, dtype=torch.float64, generator=_g) for d in (4, 4, _dv)]
_O, _A = cross_attention(_X, _Y, *_Ws)
_options = {
    "a": ((_T, _T), (_T, _dv)),
    "b": ((_T, _Tp), (_T, _dv)),
    "c": ((_Tp, _T), (_Tp, _dv)),
    "d": ((_T, _Tp), (_Tp, _dv)),
}
for _letter, (_s, _o) in _options.items():
    if tuple(_A.shape) == _s and tuple(_O.shape) == _o:
        ans_cross_shapes = _letter
else:
    ans_cross_shapes = "d"          # no option matched
''',
    }, {"mistake": "Finds the matching option in a for loop without a break and puts the fallback in the "
                   "loop's else clause, which runs whenever the loop finishes, so the matched 'b' is "
                   "overwritten with 'd'.",
        "where": ["q14"]}),

    # php.sqjnqi.com faq 2026847, pyguides.dev lstrip: the argument is a set of characters
    "q15_lstrip_of_a_prefix_eats_the_letter": ({
        CAUSAL_ANS: '''_note = "Answered: d"          # copied from my notes on the four options
ans_cross_causal = _note.lstrip("Answered: ")
''',
    }, {"mistake": "Removes the prefix with lstrip('Answered: '), which strips any of those characters, "
                   "including the letter d itself, so the answer is the empty string instead of 'd'.",
        "where": ["q15"]}),

    "q16_doubled_length_squared_without_parentheses": ({
        COST_ANS: '''_T, _d_k = 100, 64
_ratio = 2 * _T ** 2 * _d_k / (_T ** 2 * _d_k)          # cost at 2T over cost at T
if abs(_ratio - 1) < 0.5:
    ans_complexity = "b"
elif abs(_ratio - 2) < 0.5:
    ans_complexity = "a"
elif abs(_ratio - 4) < 0.5:
    ans_complexity = "c"
else:
    ans_complexity = "d"
''',
    }, {"mistake": "Writes the cost at length 2T as 2 * T ** 2 * d_k, which is 2T^2 not (2T)^2 because ** binds "
                   "tighter than *, so the ratio is 2 and it answers 'a' (linear) instead of 'c'.",
        "where": ["q16"]}),
}
