"""Blind held-out set 60 for attention-pipeline.

Sixtieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and stub cells of attention-pipeline.ipynb, the solution
cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter strings, both q11
answers Python ints, the q12 count 73728 / 98304 for the lesson), `harness.py`, blind59.py in full (for the
format), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 60's angle: a REWRITE THAT BROKE IT. Each wrong variant is a working version rewritten for speed,
memory or elegance, and the rewrite changed the result: a batch flattened into rows for one 2-D matmul and
restored time-major (q01); a scale (q02), a causal mask (q04), an experiment's result (q03) and a parameter
count (q12) cached on the wrong key (nothing, the length alone, d_k alone, (d_model, d_k) alone); query-row
chunks (q05) and key chunks (q08) looped with range(n // chunk), which drops the last partial chunk; a
.clone() dropped so a "perturbed copy" aliases the input (q06) and a second mask buffer replaced by the first
one filled in place (q15); a column of 1/t expanded instead of materialised and then cut with the in-place
tril_() (q09); einsum rewrites with one subscript crossed (q10's log term, q11's feature letter, q14's output
axis); and a cost measured on the chunked rewrite's one block of scores (q16). Public material found with the
`search` tool, and what it showed:
- aladdinpersson/Machine-Learning-Collection #165 (an einsum attention whose final .reshape(b, s, h * d)
  interleaves the wrong axes and silently differs from the loop/matmul version): the q01 variant flattens
  the batch into rows and restores (T, batch, d) instead of (batch, T, d); the q14 variant's einsum keeps
  the wrong axis in its output.
- rajacsp.github.io mlnotes "Mutable Object", newbetuts #9158294 ("you can use it to cache values between
  function calls") and the "Why does my function remember a default argument?" memo question: a mutable
  default used as a cache. The q02 variant keeps 1/sqrt(d_k) from the first call in `_scale=[]`; the q12
  variant memoises the count in `_memo={}` keyed on (d_model, d_k) only.
- NVIDIA/Model-Optimizer #1343 (review: "Cache key missing seq_length ... a cached mask with the wrong shape
  will be reused"), facebookresearch/xformers #655 (a causal mask tied to one sequence length and reused) and
  huggingface/transformers #18467 (a cached causal-mask buffer meeting half precision): the q04 variant caches
  masks keyed on T only, so a later dtype gets the first dtype's tensor; the q03 variant caches its entropy
  experiment keyed on d_k only, so the unscaled run returns the scaled run's number and it answers 'c'.
- ratulb/deep_drive batch_iteration.ipynb ("range(num_samples // batch_size) ... misses 1 iteration (which
  should include remaining samples)") and ai.stackexchange #45773 / attention.kryvik.com "Chunked attention"
  (query and key chunking to bound memory): the q05 variant softmaxes blocks of 4 query rows and the q08
  variant sums the kernel over blocks of 4 keys, each with range(n // 4); the q16 variant counts the scores of
  one 128-row query chunk (linear in T) and answers 'a'.
- pytorch/pytorch #4664 ("b = a.expand(4, 5); b += 1 ... Don't do in-place on expanded tensors") and
  juliendenize/torchaug #10 / huangleiBuaa/IterNorm-pytorch #2 ("more than one element of the written-to
  tensor refers to a single memory location", fixed with .clone()): the q09 variant expands the column of
  1/t and calls tril_() on it (torch 2.13 on CPU writes silently: only the last row survives); the q06 and
  q15 variants drop a .clone() / a second allocation, so an in-place change (`+=`, `masked_fill_`, as in
  KaijuML/data-to-text-hierarchical #4, "masked_fill_ ... might save a little GPU memory") hits both operands
  of a comparison, which then finds no difference (q06 answers 'd', q15 answers 'a').
- decisionintelligence/DUET #6 ("dd,bxcd->bxcd" should have been "dk,bxck->bxcd") and the hw-native-sys
  pypto-lib #186 review (one einsum letter reused for two axes): the q10 variant contracts A[q, k] with
  log2 A[k, q] ('...qk,...kq->...q'); the q11 variant gives Q's and K's feature axes different letters
  ('td,sk->ts'), which builds a rank-1 outer product, and answers max_rank_S = 1.
q07 and q13 are reached through `where`: the q01, q02, q04 and q05 variants break self_attention (q07), the
q02 and q05 variants break cross_attention (q13; q04 lists q13 too, in case its checks build the mask with the
student's function), the q05 variant (and possibly q04) breaks q09's zero-projection check, and any variant
that breaks self_attention, the weights or the prefix average may reach q10's checks.

The correct variants are the same pipeline rewritten with care: projections by torch.nn.functional.linear
with transposed weights and the fresh score product scaled in place; a mask cache keyed on (T, dtype,
device) that hands out clones, with a hand-written max-shifted softmax upcast to float32 for 16-bit inputs;
the kernel and the mix as einsum and the prefix average built in place on a fresh ones matrix; entropies
from log2 of a copy with zeros replaced by ones, exp2, and self-attention mixed by torch.matmul with a
computed lesson rank; and cross-attention with keys and values from one fused projection split at
[d_k, d_v], the count by math.prod over the weight shapes, and the shapes letter read off an experiment.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w60-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks themselves were not run), then every function compared with plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention` with is_causal and with an additive attn_mask blocking a
padded key, the notebook's own formulas in float64, `torch.special.xlogy` entropies) on unbatched, (2,) and
(2, 3) batched inputs, T_q != T_k, d_k != d_v, T from 1 to 13, in float64, float32, float16 and bfloat16,
the zero-projection self-attention against the prefix average, the count on six argument sets, and every
written answer compared with the right letter or integer; full_marks and the correct variants agree
everywhere (16-bit dtypes within their precision), and each wrong variant differs or fails in its own
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
    # projections through torch.nn.functional.linear (which takes the weight as (out, in)); the score
    # product is a fresh tensor, so scaling it in place is safe
    "functional_linear_projection_and_fresh_scores_scaled_in_place": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    lin = torch.nn.functional.linear
    return lin(X, W_Q.mT), lin(X, W_K.mT), lin(X, W_V.mT)
''',
        SCORES: '''def scaled_scores(Q, K):
    S = torch.matmul(Q, K.mT)                 # a new tensor: nobody else holds it
    return S.div_(math.sqrt(Q.shape[-1]))
''',
    },
    # a mask cache keyed on everything the mask depends on (length, dtype, device), handing out clones;
    # a hand-written stable softmax that works in float32 for 16-bit inputs and casts back
    "mask_cache_keyed_on_length_dtype_device_and_upcast_stable_softmax": {
        MASK: '''_MASKS = {}


def causal_additive_mask(T, dtype, device=None):
    key = (T, dtype, str(device))
    if key not in _MASKS:
        blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
        _MASKS[key] = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(blocked, torch.finfo(dtype).min)
    return _MASKS[key].clone()
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    e = torch.exp(work - work.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).to(Z.dtype)
''',
    },
    # the kernel and the mix as einsum contractions; the prefix average built in place on a fresh ones matrix
    "einsum_kernel_and_in_place_prefix_on_fresh_ones": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.einsum("td,d->t", K, q) / math.sqrt(q.shape[-1]))
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)
    return torch.ones(T, T, dtype=torch.float64).tril_().div_(counts)
''',
    },
    # log2 of weights with zeros replaced by ones (log 1 = 0) in a copy; exp2; self-attention with the mask
    # sized from the scores and the mix by torch.matmul
    "ones_for_zeros_log2_entropy_exp2_and_matmul_self_attention": {
        ENT: '''def row_entropy_bits(A):
    safe = A.masked_fill(A == 0, 1.0)          # out of place: the caller's A is untouched
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(S.shape[-1], S.dtype, device=S.device) if causal else None
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
        RANK: '''max_rank_S = min(8, 100)

rank_S_lesson = int(torch.linalg.matrix_rank(torch.tensor(
    [[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
    @ torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                   dtype=torch.float64).T / 2.0))
''',
    },
    # keys and values from one fused projection split at the right sizes; the count from math.prod over the
    # weight shapes; the shapes answer read off a small experiment
    "fused_kv_split_at_widths_prod_count_and_measured_shapes": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K, V = (Y @ torch.cat([W_K, W_V], dim=-1)).split([W_K.shape[-1], W_V.shape[-1]], dim=-1)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(math.prod(s) for s in shapes)
''',
        SHAPES_ANS: '''_X = torch.randn(3, 6, dtype=torch.float64)
_Y = torch.randn(5, 6, dtype=torch.float64)
_Q, _K, _V = _X @ torch.randn(6, 4, dtype=torch.float64), _Y @ torch.randn(6, 4, dtype=torch.float64), \\
    _Y @ torch.randn(6, 2, dtype=torch.float64)
_S = _Q @ _K.mT / 2.0
_O = torch.softmax(_S, dim=-1) @ _V
_options = {"a": ((3, 3), (3, 2)), "b": ((3, 5), (3, 2)), "c": ((5, 3), (5, 2)), "d": ((3, 5), (5, 2))}
ans_cross_shapes = next(k for k, v in _options.items() if v == (tuple(_S.shape), tuple(_O.shape)))
''',
    },
}

WRONG = {
    # aladdinpersson/Machine-Learning-Collection #165: the einsum rewrite's .reshape interleaves the wrong axes
    "q01_batch_flattened_for_one_matmul_restored_time_major": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # one 2-D matmul for the whole batch instead of a loop over the batch elements
    T, d_model = X.shape[-2], X.shape[-1]
    lead = X.shape[:-2]
    rows = X.reshape(-1, d_model)                        # (B*T, d_model)

    def back(Z):                                         # (B*T, d) -> (..., T, d)
        return Z.reshape(T, *lead, Z.shape[-1]).movedim(0, -2)

    return back(rows @ W_Q), back(rows @ W_K), back(rows @ W_V)
''',
    }, {"mistake": "Flattens the batch into rows (batch-major) for one 2-D matmul, then restores the shape as "
                   "(T, batch, d) and moves the time axis back: the rows are redistributed across batch "
                   "elements and positions, so batched Q, K, V are scrambled (unbatched inputs are right).",
        "where": ["q01", "q07", "q09", "q10"]}),

    # the mutable-default memo idiom (rajacsp mlnotes, newbetuts #9158294 "use it to cache values"), keyed on nothing
    "q02_scale_cached_in_mutable_default_from_first_call": ({
        SCORES: '''def scaled_scores(Q, K, _scale=[]):
    # math.sqrt only once: the factor is remembered after the first call
    if not _scale:
        _scale.append(1.0 / math.sqrt(Q.shape[-1]))
    return (Q @ K.transpose(-2, -1)) * _scale[0]


_Q_demo = torch.tensor([[1.0, 0, 0, 0], [0, 1, 0, 0]])
_K_demo = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [1, 1, 0, 0]])
print(scaled_scores(_Q_demo, _K_demo))        # the lesson's d_k = 4: scores 1, 0, 0.5 ...
''',
    }, {"mistake": "Caches 1/sqrt(d_k) in a mutable default argument on the first call (the cell's own "
                   "lesson demo, d_k = 4) and reuses it for every later call, so scores for any other head "
                   "size are divided by 2 instead of sqrt(d_k).",
        "where": ["q02", "q07", "q10", "q13"]}),

    # NVIDIA/Model-Optimizer #1343 review: "Cache key missing seq_length": a result cached on too small a key
    "q03_entropy_cache_keyed_on_d_k_only_answers_nothing_changes": ({
        SCALE_ANS: '''_entropy_cache = {}


def _mean_row_entropy(d_k, scaled, n=2000, keys=8):
    # the d_k = 512 experiment is slow, so results are cached per head size
    if d_k in _entropy_cache:
        return _entropy_cache[d_k]
    g = torch.Generator().manual_seed(0)
    q = torch.randn(n, 1, d_k, dtype=torch.float64, generator=g)
    k = torch.randn(n, keys, d_k, dtype=torch.float64, generator=g)
    S = (q @ k.transpose(-2, -1)).squeeze(-2)
    if scaled:
        S = S / math.sqrt(d_k)
    A = torch.softmax(S, dim=-1)
    H = -(A * torch.log2(A.clamp_min(1e-300))).sum(dim=-1).mean().item()
    _entropy_cache[d_k] = H
    return H


_H_scaled = _mean_row_entropy(512, scaled=True)
_H_raw = _mean_row_entropy(512, scaled=False)
if abs(_H_raw - _H_scaled) < 1e-9:
    ans_scale = "c"
elif _H_raw < _H_scaled:
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "Its experiment caches the mean row entropy keyed on d_k alone, not on whether the scores "
                   "were scaled, so the unscaled run returns the scaled run's cached entropy; the two look "
                   "equal and it answers 'c' (nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    # facebookresearch/xformers #655 (causal mask tied to the sequence length and reused) and
    # huggingface/transformers #18467 (a cached causal-mask buffer in the wrong dtype for half precision)
    "q04_mask_cache_keyed_on_length_only_ignores_dtype": ({
        MASK: '''_mask_cache = {}


def causal_additive_mask(T, dtype, device=None):
    # built once per length and reused instead of being rebuilt on every forward pass
    if T not in _mask_cache:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
        M = torch.zeros(T, T, dtype=dtype, device=device)
        M[future] = torch.finfo(dtype).min
        _mask_cache[T] = M
    return _mask_cache[T]


print(causal_additive_mask(5, torch.float32))    # the lesson's five tokens
''',
    }, {"mistake": "Caches the mask in a dict keyed on T only (the cell's demo fills it for T = 5 in float32), "
                   "so a later call with the same length but another dtype (or device) gets the first call's "
                   "tensor: wrong dtype and the wrong finfo.min (and every caller shares one tensor object).",
        "where": ["q04", "q07", "q09", "q10", "q13"]}),

    # the batching pattern of ratulb/deep_drive batch_iteration ("range(num_samples // batch_size) ... misses
    # one iteration which should include remaining samples")
    "q05_query_row_chunks_drop_the_last_partial_chunk": ({
        WEIGHTS: '''def attention_weights(S, M=None, chunk=4):
    # softmax a few query rows at a time to keep the temporary exp() buffer small
    if M is not None:
        S = S + M
    A = torch.zeros_like(S)
    for c in range(S.shape[-2] // chunk):
        rows = slice(c * chunk, (c + 1) * chunk)
        A[..., rows, :] = torch.softmax(S[..., rows, :], dim=-1)
    return A
''',
    }, {"mistake": "Rewrites the softmax to run over blocks of 4 query rows with range(T_q // 4), which never "
                   "visits the last partial block: its rows stay all zero (every row when T_q < 4), so they "
                   "do not sum to 1.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # "b = a.expand(...); b += 1" / aliasing writes, pytorch/pytorch #4664; the .clone() dropped to save memory
    "q06_perturbed_copy_aliases_input_no_leak_answers_no_gradient": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(6, 8, dtype=torch.float64, generator=_g)
_Wq, _Wk, _Wv = (torch.randn(8, 4, dtype=torch.float64, generator=_g) for _ in range(3))


def _unmasked_outputs(X):
    Q, K, V = project_qkv(X, _Wq, _Wk, _Wv)
    return attention_weights(scaled_scores(Q, K)) @ V


_X_next = _X              # was _X.clone(); the copy was dropped to save memory
_X_next[4] += 5.0         # change token 5 only
_O = _unmasked_outputs(_X)
_O_next = _unmasked_outputs(_X_next)
_reads_future = not torch.allclose(_O[:4], _O_next[:4])
ans_mask = "c" if _reads_future else "d"
''',
    }, {"mistake": "Tests whether unmasked positions read a later token by changing token 5 in a 'copy' that "
                   "is the same tensor (the .clone() was dropped), so both runs see the change, no leak shows, "
                   "and it answers 'd' (no gradient through blocked entries) instead of 'c'.",
        "where": ["q06"]}),

    # range(n // chunk) drops the remainder (ratulb/deep_drive batch_iteration); key-chunked accumulation as in
    # the memory-efficient attention of "Self-attention does not need O(n^2) memory" (ai.stackexchange #45773)
    "q08_key_chunks_drop_the_remainder_keys": ({
        NW: '''def nadaraya_watson(q, K, V, chunk=4):
    # accumulate numerator and denominator over blocks of keys, so memory stays bounded for long sequences
    scale = math.sqrt(q.shape[-1])
    num = torch.zeros(V.shape[-1], dtype=V.dtype, device=V.device)
    den = torch.zeros((), dtype=V.dtype, device=V.device)
    for c in range(K.shape[0] // chunk):
        Kc, Vc = K[c * chunk:(c + 1) * chunk], V[c * chunk:(c + 1) * chunk]
        kappa = torch.exp(Kc @ q / scale)
        num = num + kappa @ Vc
        den = den + kappa.sum()
    return num / den
''',
    }, {"mistake": "Accumulates the kernel sums over blocks of 4 keys with range(T // 4), dropping the last "
                   "T % 4 keys from both numerator and denominator (0/0 = NaN when T < 4).",
        "where": ["q08"]}),

    # pytorch/pytorch #4664 ("Don't do in-place on expanded tensors") and juliendenize/torchaug #10
    "q09_expanded_reciprocals_cut_with_in_place_tril": ({
        AVG: '''def prefix_average_matrix(T):
    # no T x T ones matrix: broadcast the column of 1/t and cut the triangle in place
    recip = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return recip[:, None].expand(T, T).tril_()
''',
    }, {"mistake": "Saves memory by expanding the (T, 1) column of 1/t to (T, T) (a stride-0 view, one number "
                   "per row) and cutting it with the in-place tril_(): the zeros are written into the shared "
                   "entries, so every row but the last comes out all zero (torch builds that check overlapping "
                   "writes raise instead) rather than the prefix average.",
        "where": ["q09", "q10"]}),

    # decisionintelligence/DUET #6 and huggingface einsum reviews: one subscript crossed in an einsum rewrite
    "q10_entropy_einsum_with_log_term_subscripts_crossed": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    # one contraction instead of multiply-then-sum
    return -torch.einsum("...qk,...kq->...q", A, logs)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Vectorises the sum with einsum but writes the log term's subscripts as 'kq', pairing "
                   "A[q, k] with log2 A[k, q] (the transposed weights): silently wrong entropies on square "
                   "matrices and an einsum size error when T_q != T_k.",
        "where": ["q10"]}),

    # decisionintelligence/DUET #6 ("dd,bxcd->bxcd" vs "dk,bxck->bxcd"): a letter that should be shared is not
    "q11_rank_experiment_einsum_letters_differ_gives_outer_product": ({
        RANK: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(100, 8, dtype=torch.float64, generator=_g)
_K = torch.randn(100, 8, dtype=torch.float64, generator=_g)
# all token pairs in one einsum instead of the double loop over t and s
_S = torch.einsum("td,sk->ts", _Q, _K) / math.sqrt(8)
max_rank_S = int(torch.linalg.matrix_rank(_S))

rank_S_lesson = 2
''',
    }, {"mistake": "Measures the largest rank with an einsum whose feature letters differ for Q and K "
                   "('td,sk->ts'), which sums each side separately and builds an outer product of rank 1, "
                   "so max_rank_S = 1 instead of 8.",
        "where": ["q11"]}),

    # mutable-default memo (nemotron "Why does my function remember a default argument?", rajacsp mlnotes)
    "q12_memo_keyed_without_d_v_and_output_flag": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False, _memo={}):
    key = (d_model, d_k)                 # memoised: the same layer sizes are asked for again and again
    if key not in _memo:
        n = d_model * (2 * d_k + d_v)
        if with_output:
            n += d_v * d_model
        _memo[key] = n
    return _memo[key]
''',
    }, {"mistake": "Memoises the count in a mutable default dict keyed on (d_model, d_k) only, so a later call "
                   "with another d_v or with the other with_output flag returns the first call's count "
                   "(the notebook prints 73728 for the lesson with W_O, not 98304).",
        "where": ["q12"]}),

    # aladdinpersson/Machine-Learning-Collection #165: the output subscripts of the einsum rewrite are wrong
    "q14_experiment_mix_einsum_keeps_key_axis_answers_d": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _dm, _dk, _dv = 3, 5, 6, 4, 2
_X = torch.randn(_T, _dm, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _dm, dtype=torch.float64, generator=_g)
_Q = _X @ torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_K = _Y @ torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_V = _Y @ torch.randn(_dm, _dv, dtype=torch.float64, generator=_g)
_S = torch.einsum("td,sd->ts", _Q, _K) / math.sqrt(_dk)
_A = torch.softmax(_S, dim=-1)
_O = torch.einsum("ts,sv->sv", _A, _V)          # the weighted sum of values as one einsum
_options = {"a": ((_T, _T), (_T, _dv)), "b": ((_T, _Tp), (_T, _dv)),
            "c": ((_Tp, _T), (_Tp, _dv)), "d": ((_T, _Tp), (_Tp, _dv))}
ans_cross_shapes = [k for k, v in _options.items() if v == (tuple(_S.shape), tuple(_O.shape))][0]
''',
    }, {"mistake": "Its shape experiment writes the mix as einsum('ts,sv->sv'), keeping the key axis s instead "
                   "of the query axis t in the output, measures O as T' x d_v and answers 'd' instead of 'b'.",
        "where": ["q14"]}),

    # KaijuML/data-to-text-hierarchical #4 (masked_fill_ in place "might save a little GPU memory") and
    # pytorch/pytorch #4664 (in-place writes through a shared tensor)
    "q15_open_mask_aliased_then_filled_in_place_answers_always": ({
        CAUSAL_ANS: '''_g = torch.Generator().manual_seed(1)
_X = torch.randn(4, 6, dtype=torch.float64, generator=_g)
_Y = torch.randn(4, 6, dtype=torch.float64, generator=_g)        # a finished source sentence
_Ws = [torch.randn(6, 4, dtype=torch.float64, generator=_g) for _ in range(3)]
_M_open = torch.zeros(4, 4, dtype=torch.float64)
_M_causal = _M_open          # one mask buffer reused instead of allocating a second one
_M_causal.masked_fill_(torch.ones(4, 4, dtype=torch.bool).triu(1), torch.finfo(torch.float64).min)
_O_open, _ = cross_attention(_X, _Y, *_Ws, M=_M_open)
_O_causal, _ = cross_attention(_X, _Y, *_Ws, M=_M_causal)
_mask_changes_reading = not torch.allclose(_O_open, _O_causal)
ans_cross_causal = "d" if _mask_changes_reading else "a"
''',
    }, {"mistake": "Compares cross-attention on a finished source with an open and a causal mask, but the "
                   "causal mask is the open mask's buffer filled in place, so both runs are causal, the "
                   "outputs agree, the mask looks harmless and it answers 'a' (always) instead of 'd'.",
        "where": ["q15"]}),

    # ai.stackexchange #45773 and attention.kryvik.com "Chunked attention": query chunks bound the memory
    "q16_scores_counted_per_query_chunk_answers_linear": ({
        COST_ANS: '''def _scores_held(T, d_k=64, chunk=128):
    Q = torch.randn(T, d_k)
    K = torch.randn(T, d_k)
    peak = 0
    for s in range(0, T, chunk):
        S_c = Q[s:s + chunk] @ K.T           # one block of query rows at a time saves memory
        peak = max(peak, S_c.numel())
    return peak


_ratio = _scores_held(1024) / _scores_held(512)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Measures the cost with a query-chunked rewrite and counts only the scores of one chunk "
                   "(128 x T), which doubles with T, so it answers 'a' (linear) instead of 'c' (quadratic: "
                   "T^2 scores in all).",
        "where": ["q16"]}),
}
