"""Misconceptions of attention-pipeline: key -> what the student's answer matches, in words.

Plain data, declared once for the assignment (no imports): a failed hidden test names a key only when
the student's output matches what that mistake produces on the same input. A key shared with another
assignment has the same text there (tests/test_authoring.py checks it)."""

MISCONCEPTIONS = {
    # projections and scores
    "qk_swapped": "swapping the query and key projections (Q from W_K, K from W_Q)",
    "same_projection": ("using one projection matrix for more than one of Q, K, V (the same W twice, or two "
                        "results written into one buffer, `out=`, the second overwriting the first)"),
    "fused_projection_split": ("splitting the fused projection X @ [W_Q | W_K | W_V] at the wrong widths "
                               "(pieces of width d_model, or three equal thirds) or along the wrong axis (split's "
                               "default dim 0, the tokens) instead of d_k, d_k, d_v along the features: "
                               "use .split([d_k, d_k, d_v], dim=-1)"),
    # blind85: `(X @ torch.cat([W_Q, W_K, W_V], -1)).split(d_k, dim=-1)`, right while d_v <= d_k
    "fused_split_by_key_width": ("cutting the fused projection X @ [W_Q | W_K | W_V] into pieces d_k wide "
                                 "(`.split(d_k, dim=-1)`): that gives Q, K and V only while d_v <= d_k, and more "
                                 "than three pieces once the values are wider than the keys; split at the three "
                                 "widths, `.split([d_k, d_k, d_v], dim=-1)`"),
    "projection_bias_added": ("adding a bias to the projections (Q = X W_Q + b, one constant row on every token): "
                              "nn.Linear is built with bias=True by default and adds its own randomly initialised "
                              "bias, so the result also changes from one build to the next; use "
                              "nn.Linear(..., bias=False), or compute X @ W_Q directly"),
    "scores_transposed": "computing K Q^T (keys as rows) instead of Q K^T (queries as rows)",
    "queries_centred": ("centring the queries on their mean (Q - Q.mean over the tokens), trusting the softmax's "
                        "shift invariance: subtracting the mean query changes score (t, i) by -mean(q) . k_i / "
                        "sqrt(d_k), a different amount for each key, so it is not a constant added to a row and the "
                        "weights change (only one constant added to a whole row leaves a softmax as it is); leave "
                        "the queries as they are"),
    "logsumexp_shift_dropped": ("a log-sum-exp by hand on the shifted scores without adding the shift back: "
                                "log sum exp(Z) = m + log sum exp(Z - m), so exp(Z - log sum exp(Z - m)) is each "
                                "row's softmax times e^m (rows sum to e^m, not 1, and overflow where m is large); "
                                "add m back (log A = Z - m - log sum exp(Z - m)), or use torch.logsumexp"),
    "prefix_average_bessel": ("dividing each prefix sum by t - 1 (Bessel's n - 1, as for an unbiased variance) "
                              "instead of t: an average of t numbers divides by t, and n - 1 belongs to a variance "
                              "estimated around a sample mean, not to a mean; rows from the second on sum to more "
                              "than 1"),
    "divide_by_dk": "dividing the scores by d_k instead of sqrt(d_k)",
    "no_scale": "not scaling the scores at all",
    "float32_scale": "computing the scale constant in float32, which loses precision for float64 inputs",
    "scale_by_d_model": "scaling by 1/sqrt(d_model) instead of 1/sqrt(d_k)",
    "scale_by_d_v": "scaling by 1/sqrt(d_v) (the width of V) instead of 1/sqrt(d_k)",
    "scale_by_T": "scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of "
                  "1/sqrt(d_k)",
    "integer_sqrt_scale": "dividing by an integer square root (int(math.sqrt(d_k)) or math.isqrt(d_k)) instead "
                          "of sqrt(d_k)",
    "scores_divided_by_own_std": ("dividing the scores by their own measured spread (S / S.std()) instead of the constant "
                                  "sqrt(d_k): the scale is fixed by d_k, not measured from the scores, and a row of "
                                  "equal scores gives 0 / 0 = NaN"),
    "keys_are_queries": "computing the scores from the queries with themselves (Q Q^T, k = q) instead of Q K^T",
    "scores_keys_not_transposed": "multiplying Q @ K without transposing K: the scores are Q K^T (each query "
                                  "against each key's row); Q @ K runs only when T = d_k, and then each query meets "
                                  "K's columns",
    "projection_as_row_lookup": "reading the projection as a row lookup, W[X.argmax(-1)] (the row of W at each "
                                "token's largest entry, as for an embedding): that equals X @ W only for one-hot "
                                "tokens like the lesson's; for any other X, Q, K and V are the products X @ W_Q, "
                                "X @ W_K, X @ W_V (matmul), which mix every row of W",
    "weight_transposed": "applying the projections as X @ W.T (nn.Linear's layout) instead of X @ W",
    "prefix_average_one_based": "keeping the lesson's 1-based numbering (rows and columns 1..T) as storage: a "
                                "(T+1) x (T+1) matrix whose row 0 and column 0 are never used (row 0 is all zeros, "
                                "not an average); index from 0: a T x T matrix where row t averages columns 0..t "
                                "(1/(t+1) each), e.g. torch.zeros(T, T) and W[t, :t + 1] = 1 / (t + 1)",
    "scale_by_query_norm": "dividing the scores by the query's own length |q| (q.norm()) instead of sqrt(d_k): "
                           "|q|^2 is about d_k only on average, for unit-variance components; the scale is one "
                           "constant for every query, 1/sqrt(d_k) (math.sqrt(q.shape[-1])): exp(k . q / sqrt(d_k))",
    "projection_sequence_first": "moving a batched (batch, tokens, d_model) input to nn.MultiheadAttention's "
                                 "sequence-first layout (tokens, batch, d_model) with X.transpose(0, 1) before "
                                 "projecting: here the tokens are the rows of the last two axes and leading batch "
                                 "axes stay where they are, so Q, K, V keep X's layout; project X as it is (X @ W_Q)",
    "scores_queries_transposed": "writing the scores in the column-vector convention, S = Q^T K (tokens as columns), "
                                "on row-stored Q and K (one token per row): Q^T K is a d_k x d_k matrix of feature "
                                "products, and it fails when T_q != T_k; with tokens as rows the transpose goes on K: "
                                "S = Q K^T / sqrt(d_k) (Q @ K.transpose(-2, -1))",
    "batched_input_unsupported": "code that works only for 2-D inputs (or one fixed number of dims): .T reverses "
                                 "every dimension of a batched tensor, transpose(0, 1) or torch.bmm fit one layout, "
                                 "X.shape[0] is the batch size rather than T, and a 2-D reshape drops the batch; use "
                                 ".transpose(-2, -1) or .mT and X.shape[-2]",
    "multiply_by_sqrt_dk": "multiplying the scores by sqrt(d_k) instead of dividing",
    "sqrt_precedence": "writing the square root as d_k ** 1/2, which Python reads as (d_k ** 1) / 2: the scale "
                       "becomes d_k / 2 (or 2 d_k), not sqrt(d_k); write math.sqrt(d_k) or d_k ** 0.5",
    "length_from_wrong_axis": "taking the sequence length from the wrong axis (X.shape[-1] is d_model, X.shape[0] of a "
                              "batched X its batch size): T is X.shape[-2]; the code runs only where that axis "
                              "happens to equal T",
    "scale_wrong_axis": "taking d_k from the wrong axis (Q.shape[0] or Q.size(1) of a batched Q is a batch or head "
                        "count): d_k is Q.shape[-1]",
    # the additive mask
    "infinite_mask": "putting -inf in the additive mask; this assignment asks for a finite, dtype-aware "
                     "value (torch.finfo(dtype).min)",
    "neg_1e9_float16": "filling masked scores with -1e9, which overflows float16 (use -inf or the dtype's min)",
    "mask_not_dtype_min": "a blocked value other than torch.finfo(dtype).min (float32's minimum, for one, "
                          "does not fit in float16)",
    "mask_blocks_diagonal": "blocking the diagonal too: a token must be allowed to attend to itself",
    "upper_triangular_mask": "an upper-triangular (future-looking) mask instead of a lower-triangular one",
    "causal_includes_next": "a causal mask off by one the other way (tril(diagonal=1)): each token also sees "
                            "the next one",
    "mask_not_additive": "returning the 0/1 (or True/False) pattern of the blocked keys instead of an additive "
                         "mask: S + M then adds 1 (or nothing) to the scores instead of blocking them; blocked "
                         "entries must hold torch.finfo(dtype).min and every other entry 0",
    "mask_nan_from_inf": "multiplying a 0/1 pattern by -inf: 0 * -inf is NaN, so the open entries become NaN "
                         "(use masked_fill, or torch.finfo(dtype).min, which times 0 is 0)",
    "elementwise_product": "multiplying elementwise (X * W) instead of the matrix product (X @ W): each projected "
                           "entry is a sum over d_model products; * runs only where the shapes happen to broadcast",
    "scores_from_values": "scoring the queries against the values (Q V^T) instead of the keys (Q K^T): the keys "
                          "decide the weights, the values are what is averaged",
    "mask_dtype_ignored": "building the mask in one fixed dtype (torch.zeros(T, T, dtype=torch.float64), a float64 "
                          "tensor filled in place) instead of the requested one: create it with dtype=dtype (or "
                          "return M.to(dtype)), so that S + M keeps the scores' dtype",
    "mask_built_in_float32": "building the mask from Python numbers (torch.where(cond, torch.finfo(dtype).min, "
                             "0.0)) or on a tensor made without dtype= (torch.ones(T, T) times finfo(dtype).min), "
                             "which gives float32, the default dtype: float64's minimum overflows it (to -inf, or "
                             "an error) and other dtypes come back as float32; use masked_fill on a tensor of the "
                             "requested dtype (dtype=dtype)",
    # the softmax
    "softmax_wrong_dim": "taking the softmax over the query dimension (dim=-2) instead of the keys (dim=-1)",
    "mask_ignored": "ignoring the mask",
    "mask_sign_flipped": "subtracting the additive mask (S - M) instead of adding it: the blocked keys get "
                         "all the weight",
    "renormalised_after_softmax": "zeroing the future after the softmax and renormalising the rows: equal on "
                                  "paper, but a large future score first underflows the visible weights to 0 "
                                  "(0 / 0 = NaN, in float16 especially); add the mask to the scores before the "
                                  "softmax",
    "dtype_changed": "returning or mixing in another dtype than the input's (.float() or a float32 tensor never cast "
                     "back): float16 in must give float16 out and float64 in float64 out; mixed with the input's "
                     "dtype a product raises ('expected scalar type ...')",
    "mask_after_softmax": "adding the mask to the weights after the softmax (softmax(S) + M) instead of to the "
                          "scores before it: the blocked weights become huge negative numbers and the rows no "
                          "longer sum to 1",
    "additive_mask_as_boolean": "treating the additive float mask as a boolean one (masked_fill(M, ...), S[M], ~M): "
                                "this mask holds 0 and a very negative number, to be added to the scores (S + M)",
    "softmax_base_2": "taking the exponentials with exp2 without multiplying the logits by log2(e): exp2(x) is "
                      "exp(x ln 2), a softmax at another temperature; write exp2(x * math.log2(math.e)) or exp(x)",
    "entropy_unweighted": "summing or averaging -log p over the row without weighting each term by p (a uniform row of "
                          "t entries gives t log t, not log t; infinite where a p is 0 and kept) instead of the "
                          "entropy -sum p log p: multiply each -log p by its p before the sum",
    "min_entropy": "the min-entropy -log(max_j p_j), from the largest weight alone, instead of the Shannon entropy "
                   "-sum_j p_j log p_j over every weight of the row: equal only for uniform rows",
    "blocked_weight_not_zero": "a blocked key keeps a tiny positive weight instead of exactly 0: its score reaches "
                               "the exponential as a finite number (a floor such as clamp(min=-50) on the shifted "
                               "scores, or a small finite fill), and exp(-50) is about 2e-22, not 0; keep blocked "
                               "scores at -inf (or the dtype's minimum) through the softmax",
    "scale_after_softmax": "applying 1/sqrt(d_k) after the softmax (to the weights or the output) instead of to "
                           "the scores inside it: softmax(Q K^T / sqrt(d_k)) V",
    "zero_after_softmax": "zeroing masked weights after the softmax: rows no longer sum to 1",
    "no_max_subtraction": "a softmax without max-subtraction, which overflows in float16",
    "crash_on_mask_none": "crashing when mask=None",
    "weights_helper_mask_first": ("calling attention_weights with the mask first (attention_weights(M, S) where it is "
                                  "attention_weights(S, M=None)): with the causal mask the sum M + S is the same, so "
                                  "the causal path hides it, but with causal=False the scores' slot gets None (no mask); "
                                  "pass the scores first, attention_weights(S, M), or by keyword (S=S, M=M)"),
    "tensor_truthiness": "testing a tensor's truth value (if M:, M or ...), which raises for a tensor of more than "
                         "one entry: test if M is not None:",
    "no_softmax": "skipping the softmax: the scaled scores themselves are used as weights",
    "weights_not_normalised": "using exp(scores) as weights without dividing by the row sum: rows do not sum to 1",
    "log_softmax_weights": "using log_softmax (log-probabilities, all negative) as the weights instead of softmax",
    "sigmoid_weights": "normalising sigmoid(scores) instead of taking a softmax: the weights are exp(s) / sum exp(s) "
                       "along each row",
    "sigmoid_not_normalised": "squashing each score on its own with a sigmoid instead of a softmax over the row: "
                              "rows no longer sum to 1",
    "softmax_subtracts_min": "subtracting each row's minimum instead of its maximum before exp: exp overflows, and a "
                             "row with a -inf (masked) score becomes NaN (-inf - (-inf))",
    "sum_without_keepdim": "dividing by e.sum(dim=-1) without keepdim=True: the row sums broadcast along the wrong "
                           "axis (entry (t, i) is divided by row i's sum), and a rectangular S does not run",
    "max_without_keepdim": "subtracting S.max(dim=-1) without keepdim=True: the row maxima broadcast along the "
                           "wrong axis (entry (t, i) loses row i's maximum), and a rectangular S does not run",
    # the same text as sdpa-from-scratch's (a key shared by assignments has one text)
    "softmax_global_sum": "dividing by the sum over the whole tensor (e.sum() with no dim) instead of each slice's "
                          "own sum (e.sum(dim, keepdim=True)): the slices no longer sum to 1",
    "softmax_implicit_dim": "calling F.softmax without dim: torch's legacy rule then normalises dim 0 of a 1-D or "
                            "3-D input (dim 1 otherwise), not the last dimension; pass dim=-1",
    # the same text as sdpa-from-scratch's (a key shared by assignments has one text)
    "softmax_over_batch_axis": "taking the softmax over a batch or head axis (a fixed dim=0 or dim=1 of batched "
                               "scores) instead of the keys' axis, dim=-1",
    "blocked_scores_zeroed": "setting the blocked scores to 0 (S * (M == 0), S.masked_fill(M != 0, 0)) instead of "
                             "adding the very negative mask: a score of 0 still gets weight exp(0), so the blocked "
                             "keys are not hidden",
    "mask_blocks_nothing": "a mask that blocks nothing (all zeros), or everything (a full mask never cut): often an "
                           "out-of-place call (M.masked_fill(...), M.triu(...)) whose result is dropped; use "
                           "masked_fill_ or assign the result (M = M.masked_fill(...), M = M.triu(1))",
    "inputs_scaled_before_projection": "scaling X (by 1/sqrt(d_model), 1/sqrt(d_k), ...) before projecting: Q, K "
                                       "and V are X times each matrix, all three one constant factor too small; "
                                       "the 1/sqrt(d_k) belongs to the scores Q K^T only",
    "query_prescaled": "returning Q already multiplied by 1/sqrt(d_k) (the scale folded into the query projection, as "
                       "some fused kernels do): project_qkv must return Q = X @ W_Q itself, K and V are right, and "
                       "scaled_scores divides by sqrt(d_k) a second time, so the scores come out divided by d_k; "
                       "return the plain product and leave the 1/sqrt(d_k) to scaled_scores",
    "nw_cosine_kernel": "normalising the dot products into cosine similarities (q.k / (|q| |k|)): the kernel is "
                        "exp(q.k / sqrt(d_k)) on the raw dot product, whose size matters",
    "rank_counts_distinct_rows": "counting the distinct rows (the different query vectors) for the rank: the rank "
                                 "is the number of linearly independent rows, and a row that mixes others (0.5 q1 "
                                 "+ 0.5 q3) adds no dimension; use torch.linalg.matrix_rank",
    "elimination_skips_last_row": "counting the rank with a hand row reduction whose elimination loop stops one row "
                                  "short (range(rank + 1, n_rows - 1)): the last row is never cleared, so a row that "
                                  "mixes the others is counted as a new pivot; eliminate every row below the pivot, "
                                  "range(rank + 1, n_rows), or use torch.linalg.matrix_rank",
    "mask_rows_share_one_list": "building the mask's rows as `[[0.0] * T] * T`: that is T references to one inner "
                                "list, so a value written into one row appears in every row; make each row a list "
                                "of its own, [[0.0] * T for _ in range(T)] (or start from torch.zeros(T, T) or use "
                                "torch.triu)",
    "accumulator_shaped_like_query": "starting the running weighted sum of values in the query's shape "
                                     "(torch.zeros_like(q), (d_k,)) while it adds up rows of V, (d_v,) wide: it only "
                                     "runs when d_v == d_k; start it as torch.zeros(V.shape[-1], dtype=V.dtype, "
                                     "device=V.device)",
    "mutable_default_keeps_results": "keeping results in a parameter's default list (def f(..., results=[])): the "
                                     "default is made once, when the def runs, and shared by every call, so each call "
                                     "appends to it and reads back the first call's entries; default to None and make "
                                     "a new list inside (if results is None: results = []), or return the products "
                                     "directly",
    "rank_counts_nonzero_columns": "counting the keys whose score column is not all zero for the rank: that is the "
                                   "rank only when those columns are independent, and a key that mixes others "
                                   "(key 4, [1, 1, 0, 0], is half of keys 1 and 2 together) adds a non-zero column "
                                   "but no dimension; use torch.linalg.matrix_rank(S)",
    "param_count_flag_inverted": "inverting the with_output condition (if not with_output:, or the two branches "
                                 "swapped): W_O is counted when with_output=False and left out when it is True",
    "param_count_times_heads": "multiplying one head's W_Q, W_K, W_V by the number of heads (d_model // d_k): the "
                               "question counts the projections of one head",
    "mask_multiplied": "multiplying the scores by the mask instead of adding it",
    "uniform_weights": "giving every key the same weight (the mean of V) instead of the softmax of the scores",
    "keys_reshaped_with_query_length": "reshaping K with the query length T (and S to T x T), which holds only when "
                                       "T_q == T_k, as in self-attention: with another number of keys the reshape "
                                       "fails or mixes keys across batch entries; reshape K with its own length "
                                       "K.shape[-2] and S to (..., T_q, T_k)",
    "batch_of_one_squeezed": "removing axis 0 with squeeze(0) whether or not it was added: a real batch of size 1, "
                             "X (1, T, d_model), comes back without its batch axis; keep a flag for the unbatched "
                             "case (X.dim() == 2) and squeeze only then",
    "one_token_mask_dtype": "building the one-token mask (T = 1) apart without dtype= and device= (torch.zeros(1, "
                            "1)): it is float32 on the default device whatever was asked; make it with dtype=dtype, "
                            "device=device, or drop the shortcut (the general code gives [[0]] for T = 1)",
    "prefix_average_squeezed": "calling squeeze() with no axis on the stacked rows: it removes every axis of size 1, "
                               "so for T = 1 the matrix becomes a 0-d tensor instead of [[1.]]; squeeze only the "
                               "stacking axis (squeeze(1)) or build the rows as 1-D",
    "global_max_subtraction": "subtracting one maximum over the whole tensor instead of each row's own: rows far "
                              "below it underflow to 0 / 0 (NaN)",
    "mask_rows_interleaved": "stretching the 2-D (T_q, T_k) mask to the flattened batch of scores with "
                             "repeat_interleave (each mask row repeated B times in place) while the scores are "
                             "flattened batch-major (row b * T_q + t): once there is a batch, the mask rows land on "
                             "the wrong query rows; add the mask by broadcasting (S + M), or stretch it with "
                             "M.repeat(B, 1), which follows the scores' order",
    "entropy_small_weights_dropped": "leaving the weights below a cut-off (A > 1e-2) out of the entropy as if "
                                     "they were masked: only an exact 0 contributes 0 (0 log 0 = 0); a small "
                                     "weight's -a log2 a is a real term, so H (and 2^H) comes out too small; guard "
                                     "only a == 0 (torch.where(A > 0, ...), torch.special.xlogy)",
    "batch_axis_assumed": "treating the first axis of an unbatched input as a batch axis (a mask or a tensor "
                          "expanded or repeated over X.shape[0], X.size(0), len(X)): for a (T, d_model) X that axis "
                          "is T, so the (T, T) result comes back repeated as (T, T, T) (and 4-D input does not "
                          "broadcast); let broadcasting add the batch dims (S + M with the (T, T) mask, no expand)",
    "reshaped_not_transposed": "turning a (..., a, b) matrix into (..., b, a) with reshape or view where a "
                               "transpose was needed (O^T = V^T A^T reshaped back to (T, d_v), V.reshape(d_v, T) "
                               "for V^T): the shape comes out right, but reshape reads the entries in memory order "
                               "into the new shape, so the numbers land in the wrong rows and columns; use "
                               ".transpose(-2, -1) (or .mT, V.T)",
    "weights_tril_for_any_mask": "cutting the weights to their lower triangle (A.tril(), A * tril) whenever a "
                                 "mask is given, as if every mask were causal: a padding or any other mask loses "
                                 "its open keys above the diagonal and the rows no longer sum to 1; the mask added "
                                 "to the scores already gives the blocked keys weight 0, so drop the tril",
    "softmax_shift_clamped": "clamping the row maximum subtracted before exp at 0 (amax(...).clamp(min=0), "
                             "max(m, 0)), so rows whose maximum is negative are not shifted: a row whose keys are "
                             "all blocked (its maximum near finfo.min) or whose scores are all very negative then "
                             "underflows to 0 / 0 = NaN; subtract each row's own maximum, negative or not",
    "softmax_max_before_mask": "taking each row's maximum over the scores S before the mask M is added: in a row "
                               "whose keys are all blocked every exponent is then about finfo.min and every "
                               "exponential 0, so the row is 0 / 0 = NaN instead of uniform; add the mask first and "
                               "subtract the maximum of S + M",
    "output_uses_weights_transposed": "mixing the values with the transposed weights (A^T V) instead of A V: "
                                      "each output row must be its own query's weighted average of the values",
    "returns_one_value": "returning one tensor (the output alone) where the function returns a tuple of results",
    "results_reordered": "returning the results in the wrong order (for example (weights, output) instead of "
                         "(output, weights))",
    "values_not_projected": "mixing the inputs themselves (A X, or A Y in cross-attention) instead of the values "
                            "V = X W_V",
    # self-attention
    "ignores_causal_flag": "applying the causal mask even when causal=False",
    "no_causal_mask": "never applying the causal mask, so tokens read the future",
    "output_from_unmasked_weights": ("computing the output O from other weights than the A returned: O mixes the "
                                     "values with the softmax of the unmasked scores (every query reads the future "
                                     "keys) while the A returned is masked; build A once, with the mask, and return "
                                     "A @ V with that same A"),
    "scores_from_inputs": ("scoring the raw input tokens against each other (X X^T, or X Y^T in cross-attention, "
                           "divided by sqrt(d_model) or sqrt(d_k)) instead of the queries against the keys: W_Q and "
                           "W_K are then never used; project first and pass Q = X W_Q and K = X W_K (K = Y W_K) to "
                           "the scores"),
    "output_layer_normalised": ("putting the output through a LayerNorm (F.layer_norm, nn.LayerNorm, or (O - mean) "
                                "/ std over the features), as a post-norm transformer block does after the "
                                "sublayer: each row of O then has mean 0 and spread 1 instead of being a weighted "
                                "average of the values; return O = A @ V as it is (the block around it adds the norm)"),
    # lenses
    "nw_unnormalised": "forgetting the kernel smoother's denominator (sum of the kernel weights)",
    "prefix_average_divide_by_T": "dividing every prefix sum by T instead of by the prefix length t",
    "gaussian_kernel": "weights from a Gaussian kernel exp(-||q - k||^2 / c) instead of the softmax of the scaled "
                       "dot products q.k / sqrt(d_k)",
    "prefix_average_off_by_one": "dividing row t by t + 1 instead of by t, the number of entries it averages: "
                                 "rows no longer sum to 1",
    "prefix_average_counts_reversed": "dividing row t by the counts in reverse order (torch.arange(T, 0, -1): T for "
                                      "the first row, 1 for the last) instead of by its own length t: row t "
                                      "averages t entries, arange(1, T + 1)",
    "prefix_average_not_divided": "returning the 0/1 lower triangle without dividing row t by t: rows sum to t, "
                                  "not 1",
    "prefix_average_zero_based": "dividing row t by its 0-based index (0, 1, ...) instead of its length (1, 2, ...): "
                                 "the first row divides by 0",
    "nw_operands_swapped": "swapping the operands of a product (q @ K or K.T @ q for K @ q, V @ w for w @ V): the "
                           "shapes line up only when the matrix is square, and then q is scored against K's "
                           "columns (or the weights meet V's columns); the scores are K @ q, one per key, and the "
                           "row is w @ V",
    "nw_weights_on_columns": "multiplying the (T,) kernel weights by V (T, d_v) without [:, None]: they broadcast "
                             "along V's columns instead of its rows (a crash unless d_v = T, wrong values when it is)",
    "prefix_average_no_tril": "dividing a matrix of ones by the row length without keeping only its lower "
                              "triangle (torch.tril): row t puts 1/t on every column, the future included",
    "prefix_average_floor_division": "dividing integer tensors with // (floor division): 1 // t is 0 for t > 1, so "
                                     "only the first row keeps a weight; divide floats with /",
    "prefix_average_float32": "building the prefix-average matrix in float32, torch's default dtype, where the "
                              "question asks for float64 (torch.ones(T, T) needs dtype=torch.float64)",
    "nw_sum_wrong_axis": "summing the weighted values over their feature axis (dim=1 or -1) instead of over the "
                         "keys (dim=0): the result has one entry per key (T), not one per value column (d_v)",
    "prefix_average_softmax_of_pattern": "taking a softmax of the 0/1 lower triangle: its zeros become e^0 = 1, so "
                                         "the future keeps weight; divide the triangle by each row's count (or "
                                         "mask the future with -inf before a softmax)",
    "fill_mask_not_bool": "passing a pattern of numbers (torch.ones(T, T).triu(1) is float, a tril of ints) as the "
                          "mask of masked_fill (or the condition of torch.where), which must be torch.bool: build "
                          "the pattern with dtype=torch.bool, or compare it (pattern == 1, tril == 0)",
    "nw_dot_over_keys": "computing the query-key dot products as (K * q).sum(dim=0), summing over the keys "
                        "instead of over the d_k features: that gives one score per feature, not one per key; "
                        "each key's score is sum over j of K[i, j] q[j], i.e. K @ q (or (K * q).sum(dim=-1))",
    "nw_returns_weights": "returning the kernel weights (one per key) instead of the weighted average of the values",
    "prefix_average_count_wrong_axis": "counting each row's entries down the columns (W.cumsum(dim=0) or W.sum(dim=0) "
                                       "of the lower triangle) instead of along the row: row t must be divided by its "
                                       "own length t (W.sum(dim=-1, keepdim=True))",
    "nw_wrong_denominator": "dividing the weighted sum of the values by another statistic of the kernel weights "
                            "(their mean, maximum or norm) instead of their sum: the weights must sum to 1, and a "
                            "mean makes the row T times too large",
    "entropy_log_shifted": "guarding log(0) by shifting every argument (log2(A + 1)): that changes every term, not "
                           "only the zero ones; give 0 log 0 the value 0 instead (torch.special.xlogy(A, A), or "
                           "A.clamp_min(tiny) inside the log)",
    "prefix_average_wrong_axis": ("dividing by the column index instead of the row's length (entry (t, j) by j + 1, "
                                  "not t + 1): a broadcast along the wrong axis (the counts as a row, W.sum(1) without "
                                  "keepdim, the diagonal of counts multiplied on the right), or a running count along "
                                  "the row (L / L.cumsum(-1) gives 1/(j+1) at column j); divide each row by its own "
                                  "count, W.sum(dim=-1, keepdim=True)"),
    "entropy_in_nats": "measuring entropy in nats (natural log) instead of bits (log base 2)",
    "entropy_normalised_by_log_keys": "dividing the entropy by log(T_k), the number of keys' log (a normalised "
                                      "entropy between 0 and 1, or a change of base that follows the row length): "
                                      "row_entropy_bits asks for bits, -sum p log2 p, with no division by the row's "
                                      "largest entropy",
    "entropy_sign": "dropping the minus sign of the entropy (sum of p log p is negative)",
    "entropy_mean_not_sum": "averaging the terms -p log p over the row (mean) instead of summing them",
    "entropy_log10": "measuring entropy with log base 10 instead of log base 2 (bits)",
    "effective_tokens_power_reversed": "computing H ** 2 instead of 2 ** H for the effective number of tokens",
    "reduce_without_initial": "calling functools.reduce without a start value: it then starts from the first "
                              "item of the list (here a shape tuple, not a number), so the first step adds a number "
                              "to a tuple; pass the start value as the third argument, reduce(f, items, 0)",
    "generator_consumed_twice": "reading a generator twice (a `(... for ...)` expression, map or zip kept in a "
                                "name): the first pass uses it up, so the second finds nothing, and a sum over "
                                "nothing is 0 (a division by it gives inf); keep the values in a list or a tensor "
                                "(torch.stack, or [...]) to read them more than once",
    "builtin_sum_over_tensor": "adding over the tensor's first axis (dim 0: the batch, or the queries) instead of "
                               "along each row: Python's builtin sum(t) does that, as it iterates a tensor's first "
                               "axis; sum each row with t.sum(dim=-1) (keepdim=True where you divide by it)",
    "entropy_wrong_dim": "computing the entropy over the wrong dimension (down the columns instead of along "
                         "each row)",
    "zero_log_zero_nan": "letting 0 * log 0 become NaN; masked (zero) weights must contribute 0",
    "effective_tokens_exponent_negated": "raising 2 to -H instead of H (2 ** -H is 1 / 2 ** H): the effective "
                                         "number of tokens is 2 ** H, at least 1",
    "effective_tokens_wrong_base": "raising e (not 2) to an entropy measured in bits",
    "returns_scores_as_weights": "returning the scores (before the softmax) as the weights: return the softmax's "
                                 "output, the matrix whose rows sum to 1",
    "mask_filled_with_inf": "turning the additive mask into -inf (S.masked_fill(M != 0, -inf)) instead of adding "
                            "it: a row whose keys are all blocked becomes NaN (0 / 0) where S + M stays finite and "
                            "uniform, and a mask entry that is neither 0 nor finfo.min is not added as it is",
    "effective_tokens_inverse_simpson": "taking the effective number of tokens as 1 / sum A^2 (the inverse Simpson "
                                        "index, from the collision entropy): the lesson's is 2 ** H with the "
                                        "Shannon entropy H in bits; the two agree only on uniform rows",
    "reduced_every_axis": "reducing over every axis (.sum() or .mean() without dim=) where one axis is asked for: "
                          "the result is one number instead of one per row",
    "returns_tensor_not_number": "returning a tensor (or a NumPy scalar, such as numpy's var of a .numpy() array) "
                                 "where a Python number is asked: call .item() (or float(...)) on the one-element "
                                 "tensor or NumPy scalar",
    "rank_bounded_by_T": "bounding the rank of S = Q K^T by the number of tokens; it is at most d_k",
    # 5 for the lesson's S is its T and the rank of its (full-rank) softmax weights alike: one key, both readings
    "rank_is_T": "giving T, the number of tokens, for the rank of this S: either T taken as its bound (S = Q K^T "
                 "passes through d_k dimensions, so its rank is at most d_k) or the rank of another T x T matrix "
                 "in its place, such as the softmax weights A (full rank); torch.linalg.matrix_rank of S itself "
                 "counts it",
    "rank_is_the_bound": "giving the bound d_k for the rank of one particular S: its queries and keys may "
                         "span fewer directions (torch.linalg.matrix_rank counts them)",
    "rank_above_min": "giving a bound above this S's rank (d_k, the larger of rank Q and rank K, or the number of "
                      "its non-zero rows, the tokens that ask a question): the rank of a product is at most the "
                      "smaller of its factors' ranks, rank(Q K^T) <= min(rank Q, rank K), and rows that repeat "
                      "or mix other rows add no dimension; torch.linalg.matrix_rank counts it",
    "param_count_widths_arithmetic": "combining the widths with the wrong arithmetic (multiplying them all, "
                                     "d_model * d_k * d_v, or adding them): each matrix holds rows x columns entries "
                                     "and the count adds the matrices' sizes, d_model * d_k + d_model * d_k + "
                                     "d_model * d_v",
    "param_count_bias": "counting bias vectors; the lesson's projections have none",
    "param_count_no_wv": "forgetting W_V in the parameter count",
    "param_count_no_wk": "forgetting W_K in the parameter count",
    "param_count_wo_always": "counting W_O even when with_output=False",
    "param_count_dv_as_dk": "using d_k where d_v belongs (W_V is d_model x d_v, W_O is d_v x d_model)",
    "param_count_wo_as_dk": "sizing W_O as d_k x d_model instead of d_v x d_model",
    "param_count_qk_product": "counting W_Q and W_K as their product W_Q W_K^T, one d_model x d_model matrix "
                              "(d_model^2 numbers), instead of the two d_model x d_k matrices that are stored and "
                              "learned (2 d_model d_k): the scores use the product, the parameters are its factors",
    "param_count_squares": "sizing every projection d_model x d_model: W_Q and W_K map to d_k, W_V to d_v",
    "param_count_wo_ignored": "leaving W_O out when with_output=True: its d_v x d_model term is never added (a "
                              "line `n + d_v * d_model` computes the sum and drops it: write n += ...; the flag is "
                              "not read; or a zip over lists of unequal length, W_O's size appended to only one of "
                              "them, stops at the shorter list and loses W_O's pair)",
    "mask_half_promoted_to_float32": "replacing a 16-bit dtype (float16, bfloat16) by float32 to get a 'safe' block "
                                     "value: torch.finfo(torch.float16).min (-65504) is float16's own safe value "
                                     "(its exp is 0 just the same), and a float32 mask added to float16 scores turns "
                                     "the weights into float32; build the mask in the dtype asked for, filled with "
                                     "torch.finfo(dtype).min",
    "rank_after_ridge": "adding a small ridge eps * I to the matrix before torch.linalg.matrix_rank, as for a "
                        "covariance matrix: eps is far above matrix_rank's tolerance, so every zero singular value "
                        "becomes eps and any square S comes out full rank (T); measure S itself, "
                        "torch.linalg.matrix_rank(S), whose tolerance already allows for rounding",
    "nw_weights_sorted_values_not": "sorting the scores or kernel weights (to shift by the largest, s[0], or to "
                                    "take the top ones) and then weighting V in its own key order: the largest "
                                    "weight meets V[0], not the value of its own key; apply the sort's order to the "
                                    "values too (V[order]), or shift by s.max() without sorting",
    "param_count_one_product": "multiplying every factor of every matrix's size into one product (the (rows, cols) "
                               "pairs flattened into one list, then a product over all of it): d_model^3 d_k^2 d_v "
                               "instead of a sum of sizes; keep each matrix's pair apart, multiply rows by cols, and "
                               "add the products: d_model (2 d_k + d_v) (+ d_v d_model)",
    "entropy_terms_overwritten": "writing each row's -p log2 p terms into the row's one slot without accumulating "
                                 "(index_put or index_copy without accumulate=True, H[rows] = terms): every write "
                                 "replaces the one before, so each row keeps a single term instead of their sum; use "
                                 "index_put(..., accumulate=True) or index_add_, or simply sum the terms over "
                                 "dim=-1",
    "rank_counted_as_distinct_winners": "counting the distinct keys that win some query's row (argmax(...).unique()) "
                                        "as the rank: that count depends on the draw and can far exceed d_k, while "
                                        "S = Q K^T passes through d_k dimensions, so its rank is at most d_k; count "
                                        "S's independent rows with torch.linalg.matrix_rank(S)",
    "weights_small_snapped_to_zero": "setting the weights below a small cut (A < 1e-6 and the like) to 0 after the "
                                     "softmax, to make the masked entries exact: they are exact already (the mask's "
                                     "finfo.min underflows to 0 in exp), so the cut only removes real weights of "
                                     "visible keys, and with peaked scores the rows no longer sum to 1; return the "
                                     "softmax as it is",
    "param_count_wo_skipped_when_square": "leaving W_O out when d_v == d_model, as if a projection from d_model to "
                                          "d_model were no projection: W_O is a learned d_v x d_model matrix even "
                                          "then (d_model^2 weights); add d_v * d_model whenever with_output is true",
    "param_count_precedence": "dropping the parentheses of d_model * (2 * d_k + d_v): Python multiplies before "
                              "it adds, so d_model * 2 * d_k + d_v counts W_V as d_v numbers instead of d_model * d_v",
    "param_count_wo_wrong_size": "sizing W_O from the wrong dimensions (d_v x d_k, d_k x d_k, d_v x d_v): W_O maps "
                                 "the d_v-wide output of attention back to d_model, so it is d_v x d_model",
    "param_count_conditional_precedence": "a condition on the W_O term without parentheses: `+` binds before `if ... "
                                          "else` and before `and`, so the condition takes the whole sum: "
                                          "`... + d_v * d_model if with_output else 0` counts 0 without W_O, and "
                                          "`... + with_output and d_v * d_model` returns W_O's count alone for both "
                                          "flags; parenthesise the W_O term: (d_v * d_model if with_output else 0), "
                                          "or add it in an `if with_output:` block",
    "param_count_wo_per_projection": "counting one output projection for each of Q, K and V (3 x d_v x d_model, "
                                     "or one as wide as each of them, which doubles the W_Q, W_K, W_V count): there "
                                     "is a single W_O, d_v x d_model, applied once to the attention output, so "
                                     "with_output=True adds d_v * d_model once",
    "param_count_wo_square": "sizing W_O as d_model x d_model instead of d_v x d_model",
    # cross-attention
    "causal_in_cross": "applying a causal mask in cross-attention, where queries and keys come from "
                       "different sequences",
    "cross_keys_reshaped_with_query_length": "reshaping Y (the keys' and values' sequence) with the query length T "
                                             "taken from X's shape, as if T' = T: right only when both sequences "
                                             "are equally long; use Y's own length (Y.shape[-2]), or reshape with "
                                             "Y.reshape(-1, *Y.shape[-2:])",
    "cross_roles_swapped": "taking queries from Y or keys/values from X in cross-attention",
    "cross_is_self_attention": "taking the keys and values from X as well (that is self-attention, "
                               "not cross-attention)",
    # multiple choice
    "softmax_scale_invariant": "thinking the softmax does not change when every score is multiplied by "
                               "the same constant (it is unchanged only when a constant is added)",
    "scale_direction_reversed": "thinking larger scores make the softmax flatter: unscaled scores grow like "
                                "sqrt(d_k) and make each row sharper",
    "entropy_negative": "thinking an entropy can be negative: -sum p log p is at least 0 (0 for a one-hot row)",
    "mask_breaks_normalisation": "thinking the mask is what makes the rows sum to 1: the softmax does that with "
                                 "or without a mask",
    "mask_changes_rank": "thinking the causal mask is about the rank of the scores: it is about which tokens a "
                         "position may read",
    "mask_blocks_gradient": "thinking the mask is about gradients: without it position t reads the token it is "
                            "trained to predict",
    "cross_output_from_keys": "giving the output one row per key (per token of Y): it has one row per query",
    "causal_needs_square": "tying the causal mask to a square score matrix: what matters is whether both "
                           "sequences share one time axis",
    "cost_linear_in_T": "thinking the score matrix costs time linear in T: there are T^2 scores",
    "cost_independent_of_T": "thinking the cost of the scores does not depend on T: there are T^2 of them",
    "cost_cubic_in_T": "thinking the scores cost T^3 like a matrix inverse: T^2 scores of d_k multiply-adds each",
    "bound_from_lesson_head": "answering with the numbers of the lesson's example (its d_k) instead of the ones "
                              "the question gives: the bound min(d_k, T) is computed from this head's d_k and T",
    "nw_drops_a_key": "leaving one key and its value out of the kernel average (K[:-1], V[:-1], or K[1:]): the "
                      "smoother averages over every key it is given, the current one included",
    "effective_tokens_support_size": "counting the keys with non-zero weight as the effective number of tokens: "
                                     "it is 2 ** H, which counts a key by how much weight it gets (a row with "
                                     "almost all its weight on one key is about 1, not T)",
    "cross_keys_over_both": "attending over X and Y together (keys and values from torch.cat([X, Y])): in "
                            "cross-attention the queries come from X and the keys and values from Y alone, so A "
                            "has one column per token of Y",
    "mask_transposed": "transposing the mask before adding it (S + M.T): M is already laid out like S, one "
                       "row per query and one column per key; M.T blocks the wrong entries (the past instead of "
                       "the future for a causal mask) and does not fit a rectangular S at all",
    "mask_index_tensor_as_one_index": "indexing the mask with the (2, N) tensor from torch.triu_indices as one "
                                      "index (M[idx] = ...): it picks whole rows (its row and column numbers "
                                      "alike), so every entry is blocked; unpack it into rows and columns, "
                                      "M[idx[0], idx[1]] = ...",
    # issue 21, sixth round of naming (blind9's misses as kinds)
    "scores_negated": "negating the scores before the softmax (softmax(-Q K^T / sqrt(d_k)), as if they were "
                      "distances where small means close): the key that matches worst gets the most weight",
    "scores_scaled_twice": "scaling the scores a second time in the softmax step (dividing S again by the square "
                           "root of one of its lengths): scaled_scores already divided them by sqrt(d_k), so "
                           "the weights come out flatter than they should",
    "entropy_summed_over_queries": "summing -p log p over the query axis as well as the key axis: that gives one "
                                   "number per matrix; the entropy is per row, a sum over dim=-1 only",
    # naming17: blind15's kinds
    # the same text as scaled-attention's (a key shared by assignments has one text)
    "values_averaged_over_keys": "averaging the weighted value rows over the keys (.mean(dim=-2)) instead of summing "
                                 "them: the weights already sum to 1, so the mean divides the output by T_k; use "
                                 ".sum or weights @ V",
    "given_weights_unused": "not projecting with the weight matrices passed in (new nn.Linear layers with their own "
                            "random weights, an identity, or X itself): the output then stays as it is when the "
                            "weights change; compute X @ W_Q, X @ W_K, X @ W_V with the given matrices",
    "rank_from_size_arithmetic": "building the rank bound from arithmetic of the sizes (T - d_k, T + d_k, T * d_k, "
                                 "T^2, T / d_k, ...): S = Q K^T is a (T x d_k) matrix times a (d_k x T) one, and a "
                                 "product's rank is at most the smallest size it passes through, so rank S <= "
                                 "min(T, d_k); no sum, difference or product of the sizes enters",
    "rank_sum_of_ranks": "bounding the rank of a product by the sum of its factors' ranks (the rule for a sum, "
                         "rank(A + B) <= rank A + rank B): for a product, rank(Q K^T) <= min(rank Q, rank K)",
    # memory layout (the same text as sdpa-from-scratch's)
    "inplace_on_input": "changing an input in place (Q /= ..., Q.mul_(...), an in-place fill of an input): an "
                        "expanded input cannot be written, a tensor that needs gradients may not be, and the "
                        "caller's tensor changes; compute a new tensor instead",
    # issue 21, seventh round (blind10's misses as kinds)
    "mask_cached_by_size": "caching the mask by T alone (a dict keyed by the size): a later call with another dtype "
                           "or device gets the first call's tensor; key the cache by (T, dtype, device), or build "
                           "the mask on every call",
    "effective_tokens_times_two": "writing 2 * H for the effective number of tokens: it is 2 ** H (two to the power of "
                                  "the entropy in bits), not twice the entropy",
    "prefix_sum_one_behind": "taking each row's running sum one step early, before the row's own token is added "
                             "(itertools.accumulate(..., initial=...) yields the start value first; so does a cumsum "
                             "shifted by one), while dividing by the right count t + 1: row t adds tokens 0..t-1 "
                             "only, its diagonal entry is 0 and the row sums to t / (t + 1); add the token before "
                             "dividing (accumulate without initial, or torch.cumsum)",
    "prefix_average_excludes_self": "averaging only the strictly earlier tokens (tril(diagonal=-1)): row t must count "
                                    "itself too, t + 1 tokens each weighted 1 / (t + 1); row 0 becomes 0 / 0",
    "param_count_output_replaces": "assigning W_O's count (n = d_v * d_model) where it must be added (n += ...): "
                                   "with_output=True then returns W_O's weights alone",
    "layer_norm_before_projection": "normalising X (a layer norm, or subtracting its mean and dividing by its std) "
                                    "before projecting: Q, K, V are X @ W_Q, X @ W_K, X @ W_V of X itself",
    "softmax_shift_wrong_axis": "subtracting the maximum over the queries (dim=-2, each key's column) before a row "
                                "softmax: a shift cancels only when it is the same for the whole row; subtract "
                                "S.amax(dim=-1, keepdim=True)",
    "normalised_twice": "normalising twice: a softmax of weights that are already exp(score) (or already "
                        "normalised); exponentiate once and divide by the sum (or take one softmax of the scores)",
    "prefix_average_row_skipped": "a loop over the rows, or a range of row counts, that starts one late or stops "
                                  "one early (range(1, T), range(T - 1), torch.arange(1, T): the end is left out): "
                                  "the first or last row of the prefix-average matrix stays all zeros, or T - 1 "
                                  "counts do not line up with the T rows; count 1 to T with torch.arange(1, T + 1)",
    # issue 21, naming18 (blind16's misses as kinds)
    "projections_transposed": "returning Q, K and V with the tokens as columns, (d_k, T): the transpose of X @ W "
                              "(W^T X^T, as in code that keeps one token per column); the notebook keeps one token "
                              "per row: Q = X @ W_Q has shape (T, d_k)",
    "scale_from_ndim": "dividing the scores by the square root of the number of dimensions (K.dim() or Q.ndim: 2 for "
                       "a (T, d_k) tensor, 4 for (B, H, T, d_k)) instead of sqrt(d_k), the size of the last "
                       "dimension: use Q.shape[-1] (or K.size(-1))",
    # scan of c76ca45 (blind55, blind59 once a test has d_v > d_k): the weights stacked, W_V cut so that they do
    "value_width_cut_to_d_k": "cutting W_V to W_K's width (W_V[:, :d_k]) so that the three weights stack (torch.stack "
                              "needs equal widths): V keeps only its first d_k columns whenever d_v > d_k; project "
                              "with each weight as it is (X @ W_V is (T, d_v)) and return the tuple (Q, K, V)",
    "qkv_stacked": "returning Q, K and V stacked into one tensor (torch.stack) instead of the tuple (Q, K, V): "
                   "stacking needs equal widths, and d_v need not equal d_k; return Q, K, V",
    # the same text as scaled-attention's (naming21)
    "size_as_dim": "passing a size (d_k, a sequence length or n_heads) where an axis index is expected, as in "
                   "softmax(scores, d_k): a size was passed where an axis index is expected; the dim argument "
                   "names an axis (dim=-1 for the keys), not how long it is",
    # the same text as scaled-attention's (naming24)
    "softmax_applied_twice": "applying the softmax to probabilities (a softmax's output passed to a function that "
                             "takes logits, as softmax_entropy does): the entropy of softmax(p) is near ln T; pass "
                             "the scores themselves",
    # the same text as scaled-attention's and sdpa-from-scratch's (naming24)
    "reduction_tuple_as_tensor": "using what torch.max(x, dim=...) returns as if it were a tensor: given a dim, "
                                 "max, min, sort, topk, mode, median and kthvalue return a (values, indices) pair, "
                                 "which -, / and torch.exp refuse; take its .values (torch.max(x, dim, "
                                 "keepdim=True).values), unpack it (m, _ = ...), or use x.amax(dim, keepdim=True)",
    # the same text as scaled-attention's (naming29)
    "answer_option_text": "answering a multiple-choice question with the option's text (its formula or sentence) "
                          "instead of its letter: the answer is the letter as a string",
    # the same text as scaled-attention's (naming21)
    # naming30: the row counts written out for one T
    "prefix_average_counts_fixed": "row counts written out for one T (the lesson's 1, 2, 3, 4, 5 as a fixed tensor "
                                   "or list) instead of made from T: every other T gives a shape mismatch; count 1 "
                                   "to T with torch.arange(1, T + 1)",
    # naming30: 2 ** H made a whole number
    "effective_tokens_rounded": "rounding the effective number of tokens 2 ** H to a whole number (round, floor, "
                                "ceil or int): it is a real number (1.70 tokens for a row that spreads its weight "
                                "unevenly); return 2 ** H as it is",
    # naming30: the softmax of Q for the softmax of S
    "weights_from_queries": "taking the softmax of the queries Q (attention_weights(Q, M)) instead of the scores: "
                            "A must be softmax(S + M) with S = scaled_scores(Q, K), one weight per key; pass S",
    # naming30: d_k and d_v exchanged in the parameter count (in the signature or in the formula)
    "param_count_dk_dv_swapped": "counting d_v where d_k belongs, d_model x (d_k + 2 d_v) for d_model x (2 d_k + d_v): "
                                 "W_K (or W_Q) counted with d_v, or d_k and d_v exchanged (a signature that lists d_v "
                                 "before d_k, or a formula that swaps them); W_Q and W_K are d_model x d_k, W_V "
                                 "d_model x d_v, and the arguments come as (d_model, d_k, d_v)",
    # the same text as sdpa-from-scratch's (naming30)
    "floor_division_scale": "dividing the scores with // (floor division) instead of /: every scaled score is "
                            "rounded down to an integer",
    # the same text as scaled-attention's (naming30)
    "values_are_keys": "mixing the keys (weights @ K) instead of the values (weights @ V)",
    "mha_residual_added": "adding the input X back to the output (a transformer block's residual connection), "
                          "which multi-head attention itself does not do: return concat(heads) @ W_O",
    # the same text as sdpa-from-scratch's (round 35, blind34)
    "softmax_subtracts_mean": "subtracting each slice's mean instead of its maximum before exp: a wide spread of "
                              "logits still overflows exp (inf / inf, NaN), and a -inf (masked) entry makes the "
                              "mean -inf and the whole slice NaN; subtract x.amax(dim, keepdim=True)",
    # round 35 (blind34): the kernel smoother's numerator and denominator from two different kernels
    "nw_kernel_mismatch": "weighting the values with one kernel and dividing by the sum of another (exp of the "
                          "unscaled scores K q in the numerator and the scaled exp(K q / sqrt(d_k)) in the "
                          "denominator, or the other way round): the weights no longer sum to 1; compute kappa = "
                          "exp(K q / sqrt(d_k)) once and use it in both, (kappa[:, None] * V).sum(0) / kappa.sum()",
    # round 36 (blind35)
    "softmax_extra_denominator_term": "adding an extra term to the softmax's denominator (the 'softmax one' "
                                      "exp(s) / (1 + sum exp(s)), an exp(0) = 1 or another constant beside the row "
                                      "sum): each row then sums to S / (S + c) < 1, not to 1; divide exp(s - max) by "
                                      "its own row sum and nothing else",
    "mask_by_score_value": "choosing the blocked keys by the score's value (the future scores zeroed, then every "
                           "score equal to 0 blocked) instead of by position: a visible key whose score is exactly "
                           "0 is blocked too, and a row of all-zero scores is blocked whole (its weights come out "
                           "uniform over every key, the future included); block by position, S + "
                           "causal_additive_mask(T, ...) or S.masked_fill(torch.triu(ones, 1).bool(), min)",
    "rank_as_axes_or_lesson_rank": "answering 2: that is the number of axes of S (S.ndim: a matrix is a 'rank-2 "
                                   "tensor') and also the rank of the lesson's example S, but the question asks for "
                                   "the matrix rank of this head's S, the number of independent rows, at most "
                                   "min(d_k, T)",
    "count_from_set_of_shapes": "collecting the weight shapes (or widths) in a Python set, so equal ones collapse "
                                "into one: W_Q and W_K have the same shape (and W_V too when d_v = d_k) and each "
                                "still counts; add d_model * d_k + d_model * d_k + d_model * d_v (a list, not a set)",
    "default_mask_square": "building the default 'no mask' as a T x T matrix from X's length, as in self-attention: "
                           "the scores are T x T' (T' = Y's length), so whenever Y has another length than X the "
                           "addition fails; make it torch.zeros(X.shape[-2], Y.shape[-2]) or skip the mask when M "
                           "is None",
    # round37: MATLAB's repmat((1:T)', 1, T) ported as .repeat / tile on the 1-D counts (blind36)
    "prefix_average_counts_repeated_flat": "making the T x T row counts by repeating the 1-D vector torch.arange(1, "
                                           "T + 1) (.repeat(1, T), .repeat(T), torch.tile): on a vector the copies "
                                           "are laid end to end, one row of T * T numbers, not a T x T grid, so "
                                           "the division fails to broadcast; use the counts as a column, "
                                           "torch.arange(1, T + 1)[:, None] (or .expand(T, T), or .repeat on that "
                                           "column)",
    # round38 (blind37): K^T by reshape, a float16 softmax, len() of a comparison
    "keys_reshaped_not_transposed": "getting K^T with reshape or view (K.reshape(..., d_k, T_k), K.view(d_k, -1)) "
                                    "instead of a transpose: the shape comes out right, but reshape reads the "
                                    "entries in memory order into the new shape, so each key's numbers are "
                                    "scattered over several columns; use K.transpose(-2, -1) (or K.mT)",
    "softmax_low_precision": "computing the softmax in float16 or bfloat16 (S.half(), .to(torch.float16), "
                             "dtype=torch.float16, autocast) and casting the weights back: they keep only about 3 "
                             "significant digits (bfloat16: 2), and a blocked entry becomes -inf there, so a fully "
                             "blocked row turns into NaN; compute the softmax in S's own dtype",
    "rank_len_of_boolean_mask": "counting the nonzero singular values with len() of a comparison (len(s > tol)): "
                                "len() gives the tensor's length, every singular value, not how many of them are "
                                "True; count them with (s > tol).sum() or torch.count_nonzero(s > tol), or call "
                                "torch.linalg.matrix_rank(S)",
    "mask_integer_triangle_index": "indexing the mask with an integer 0/1 triangle (M[tri] = ... with tri of dtype "
                                   "long or int): make the triangle boolean (dtype=torch.bool, or tri.bool()); an "
                                   "integer tensor indexes positions, so its 0s and 1s pick whole rows 0 and 1, not "
                                   "the entries where it holds 1",
    "entropy_nan_zeroed_after_sum": "replacing the NaN of 0 * log2(0) only after the row sum (nan_to_num on the "
                                    "sum): zero each term before summing instead (torch.special.xlogy(A, A), or "
                                    "torch.where(A > 0, A * torch.log2(A), 0)); one zero weight makes the whole "
                                    "row's sum NaN, so that row's entropy becomes 0",
    "param_count_mha_input_widths": "counting the weights of torch.nn.MultiheadAttention(d_model, 1, kdim=d_k, "
                                    "vdim=d_v): count W_Q and W_K as d_model x d_k and W_V as d_model x d_v (and "
                                    "W_O as d_v x d_model) instead; kdim and vdim are the widths of the key and "
                                    "value INPUTS, and every MultiheadAttention projection maps to d_model, so its "
                                    "W_Q and W_O are d_model x d_model",
    "rank_from_eigenvalues": "counting the non-zero eigenvalues for the rank: count the non-zero singular values "
                             "instead (torch.linalg.matrix_rank(S)); eigenvalues give the rank only of a "
                             "diagonalisable (e.g. symmetric) matrix, and S = Q K^T is not symmetric: a direction "
                             "S sends into its own null space has eigenvalue 0 yet adds to the rank",
    # round40 (blind39): nn.Softmax2d / dim=-3 for the rows, len() of a weight matrix, a rank measured on ones
    "softmax_over_channel_axis": "taking the softmax over dim -3 (nn.Softmax2d's channel axis, or dim=-3) instead of "
                                 "over the keys: use torch.softmax(S, dim=-1) (or nn.Softmax(dim=-1)); dim -3 is the "
                                 "batch or head axis of batched scores, and a 2-D S has none, so it raises",
    "param_count_len_rows": "counting each weight matrix with len() (or .shape[0]), which is only its number of rows, "
                            "not its number of entries: count W.numel() (d_in * d_out for a d_in x d_out matrix; "
                            "for nn.Linear, layer.weight.numel())",
    "rank_from_one_example": "measuring the rank on one constant example (all-ones Q and K give an S of rank 1) "
                             "where the largest possible rank is asked: one example only shows a rank that can "
                             "occur; S = Q K^T passes through d_k dimensions, so its rank is at most min(d_k, T), "
                             "and random Q and K reach it",
    # round41 (blind40): a TensorFlow `mask * -1e9` on an additive mask, the rank of A, chunk(2) of a fused K/V,
    # math.prod(()) = 1, F.normalize's p=2
    "mask_times_neg_1e9": "multiplying the additive mask by -1e9 (TensorFlow's `logits += mask * -1e9`, written for "
                          "a 0/1 mask with 1 where blocked): add this mask as it is, S + M; it already holds a large "
                          "negative value where a key is blocked, and times -1e9 that becomes +inf (or a huge "
                          "positive number), so blocked keys get the weight (NaN where it overflows)",
    "rank_of_attention_weights": "measuring the rank of the attention weights A = softmax(S + M) instead of the "
                                 "scores S: call torch.linalg.matrix_rank(S) on S = Q K^T itself; the softmax is "
                                 "not linear, so A is generally full rank (a causal A is lower-triangular with a "
                                 "positive diagonal: rank T) whatever rank S has",
    "fused_kv_equal_halves": "splitting a fused key/value projection Y @ [W_K | W_V] into two equal halves "
                             "(chunk(2), tensor_split(2)), which are d_k and d_v wide only when d_k == d_v: split it "
                             "at the widths, K, V = (Y @ torch.cat([W_K, W_V], -1)).split([d_k, d_v], dim=-1) (or "
                             "project with W_K and W_V separately)",
    "param_count_empty_term_one": "counting the missing W_O as a product over an empty shape (math.prod(()), "
                                  "np.prod([]), torch.Size([]).numel()): the empty product is 1, not 0, so the count "
                                  "without W_O is one too many; add the W_O term only when with_output is True",
    "prefix_average_unit_length_rows": "dividing each row by its Euclidean length (F.normalize's default p=2, or "
                                       "W / W.norm(dim=-1, keepdim=True)): row t then holds 1/sqrt(t), its squares "
                                       "sum to 1; an average needs the row itself to sum to 1: divide by the count "
                                       "(W / W.sum(dim=-1, keepdim=True), or F.normalize(W, p=1, dim=-1))",
    "entropy_renormalised_other_axis": "dividing A by its sums along another axis before the entropy (A / "
                                       "A.sum(dim=0), scipy.stats.entropy's default axis=0: down the batch axis, or "
                                       "down each column of one matrix): the rows are then no longer the attention "
                                       "distributions, and 0 / 0 where a whole sum is masked zeros gives NaN; each "
                                       "row of A already sums to 1, so take -(A * log2(A)).sum(dim=-1) as it is",
    "rank_answers_swapped": "the two answers swapped, each holds the other's value: max_rank_S is the largest "
                            "rank S = Q K^T can have for this question's head (min(T, d_k) = min(100, 8) = 8), "
                            "rank_S_lesson the rank of the lesson's own S (2, torch.linalg.matrix_rank(S)); "
                            "exchange the two values",
    # round 45 (blind44)
    "nw_scale_after_exp": "applying the 1/sqrt(d_k) scale after exponentiating (exp(K q) ** (1/sqrt(d_k))): the "
                          "algebra is the same, but exp of the raw dot products overflows first (float16 beyond a "
                          "q.k of about 11, float32 beyond 88) and inf / inf gives NaN; scale the scores before "
                          "the exp: kappa = torch.exp(K @ q / math.sqrt(d_k))",
    "param_count_constant": "a count that does not change with d_model, d_k and d_v (the numel of fixed tensors, such "
                            "as the lesson's own 6 x 4 weights, or a number worked out once for the example): count "
                            "from the arguments, d_model * d_k + d_model * d_k + d_model * d_v",
    "param_count_state_between_calls": "keeping state between calls: the same arguments give a different count "
                                       "on a second call, most often a list default argument (shapes=[]) that "
                                       "Python creates once, so each call adds its shapes to those of the calls "
                                       "before; create the list inside the function (shapes = [] in the body, or "
                                       "a default of None)",
    # round 47 (blind47)
    "prefix_average_divided_after_mask": "dividing after the upper triangle is already zeroed (1 / counts.tril(), "
                                         "or the 0/1 triangle divided by counts * triangle): each 0 above the "
                                         "diagonal becomes 1/0 = inf (or 0/0 = NaN) instead of 0; divide first and "
                                         "cut the triangle after ((1 / counts).tril()), or divide the 0/1 triangle "
                                         "by the row counts alone (W / torch.arange(1, T + 1)[:, None])",
    "cost_counted_with_len": "counting the score matrix with len(), which gives only its number of rows (T), not "
                             "its T x T entries: doubling T then only doubles the count; count the scores with "
                             "S.numel() (T * T) and assign the letter of the option that fits, as a string",
    "probe_compares_same_expression": "comparing two values computed by the very same expression (a line copied and "
                                      "not edited): they are always equal, so the experiment cannot show a "
                                      "change; make the copied line measure its own case (for ans_scale, the "
                                      "weights of the unscaled scores), then assign the letter as a string",
    # round 47b (blind46)
    "mask_sized_once": "making the causal mask for one fixed length instead of from the input on each call: a "
                       "default argument (mask=causal_additive_mask(5, ...), or T=5) is evaluated once, when the "
                       "def runs, and a mask made at the notebook's top level is fixed the same way, so inputs of "
                       "any other length crash (of any greater length, where it is a buffer cut with [:T, :T]); "
                       "build the mask inside the function from T = X.shape[-2] "
                       "(causal_additive_mask(X.shape[-2], S.dtype))",
    # round 48 (blind48)
    "entropy_rows_flattened_by_selection": "skipping the zero weights by picking out the positive ones (A[A > 0], "
                                           "torch.masked_select): the picked entries of every row land in one flat "
                                           "1-D tensor, so the sum after it gives one entropy for the whole matrix, "
                                           "not one per row; keep A's shape and make the zero terms 0 instead "
                                           "(logs = torch.where(A > 0, torch.log2(A), 0), then -(A * logs)"
                                           ".sum(dim=-1))",
    # round 51 (blind51)
    "prefix_average_triangle_flipped": "turning the triangle over (flip, flipud / fliplr, rot90) instead of "
                                       "taking the lower triangle: flipping reverses the order of the rows or "
                                       "columns, so the weights land on the wrong tokens; build it with "
                                       "torch.tril(torch.ones(T, T)) (or triu(...).T, a transpose, not a flip), then "
                                       "divide each row by its count",
    "rank_from_trace": "reading the trace (the sum of the diagonal) as the rank: the two agree only for a "
                       "projection matrix, whose eigenvalues are 0 or 1, and S = Q K^T is not one; count the "
                       "independent directions with torch.linalg.matrix_rank(S)",
    "heads_merged_to_model_width": "putting the head outputs back together with the model's width (view(..., T, C) "
                                   "with C = d_model, as nanoGPT does): the output is d_v wide, which is d_model "
                                   "only when W_V is square; use V's width, view(..., T, V.shape[-1]) (or "
                                   "reshape(..., T, -1))",
    # round 52 (blind52)
    "param_count_mean_width": "giving W_Q, W_K and W_V one shared width, the mean (d_k + d_v) / 2, so the count is "
                              "1.5 d_model (d_k + d_v) (a float, from the /): W_Q and W_K are d_model x d_k and W_V "
                              "is d_model x d_v, so count d_model * (2 * d_k + d_v), a whole number",
    "caret_is_xor": "writing a power with ^, which Python reads as bitwise xor (1024 ^ 2 is 1026): write 1024 ** 2",
    # round 53 (blind53; blind44's QR pivots too)
    "rank_without_tolerance": "counting the singular values (or the pivots on QR's diagonal) that are not exactly "
                              "zero, with no tolerance: rounding leaves a tiny value (about 1e-16 in float64) where "
                              "the exact one is 0, and it is counted; use torch.linalg.matrix_rank(S), whose "
                              "tolerance is relative to the largest singular value and fits the dtype (or count "
                              "s > s.max() * max(S.shape) * torch.finfo(S.dtype).eps)",
    # round 54 (blind54)
    "answer_letter_past_last_option": "counting one letter past the options: the option letters run A to D, and "
                                      "counting from A the n-th option is chr(ord(\"A\") + n - 1) (the fourth is "
                                      "chr(ord(\"A\") + 3), not + 4); fix the count, or write the letter you mean "
                                      "as a string",
    "rank_from_nuclear_norm": "taking the nuclear norm (the sum of the singular values) as the rank: it adds up how "
                              "large the singular values are, it does not count them, so it is a rank only when each "
                              "non-zero one is exactly 1; count the independent directions with "
                              "torch.linalg.matrix_rank(S)",
    "padded_keys_sliced_off": "cutting the padded keys off K and V instead of masking them: A then has fewer columns "
                              "than there are keys, and a mask that is not padding at the end, shared by every query, "
                              "cannot be cut off at all; keep every key and add the mask to the scores (S + M) before "
                              "the softmax, so A keeps one column per key",
    "out_buffer_default_dtype": "making the out= buffers with torch.empty (or zeros) in the default dtype, float32: "
                                "matmul(..., out=buf) needs buf in the inputs' dtype, so float64 or float16 inputs "
                                "crash; make the buffer with dtype=X.dtype (torch.empty(..., dtype=X.dtype, "
                                "device=X.device)), or drop out= and return X @ W",
    # round 55 (blind55)
    "mask_only_next_key": "blocking only the next key (t + 1, the first diagonal above the main one, M[idx, idx + 1]), "
                          "or only a few keys after t, instead of every key after t: the later keys stay open, so a "
                          "query still reads the future (a check of the entries next to the diagonal cannot see it); "
                          "block the whole upper triangle, torch.full((T, T), torch.finfo(dtype).min).triu(1)",
    "mask_last_key_open": "leaving the last key open: a slice M[t, t + 1:-1] (or range(t + 1, T - 1)) stops one "
                          "before the end, since an end index is left out and -1 is the last position, so every "
                          "earlier query may still read the last token; slice to the end, M[t, t + 1:], or build "
                          "the mask with torch.triu(..., diagonal=1)",
    "rank_from_stable_rank": "taking a ratio of norms, the stable rank ||S||_F^2 / ||S||_2^2 (or ||S||_F / ||S||_2, "
                             "||S||_* / ||S||_2), as the rank: it measures how evenly the singular values are spread "
                             "(it is at most the rank, and 1 when one singular value dominates), it does not count "
                             "them, and rounding it does not make it a count; count the nonzero singular values with "
                             "torch.linalg.matrix_rank(S)",
    # round 56 (blind56)
    "einsum_heads_layout_on_headless": "using an einsum written for tensors with a heads axis (Flax's "
                                       "'...qhd,...khd->...hqk', for (batch, length, heads, depth)) on Q and K laid out "
                                       "(..., T, d_k), which have none: the letters land on the wrong axes (the token "
                                       "axis read as the heads, a batch axis as the positions) or there are too few "
                                       "axes; give each axis of this layout its letter, '...qd,...kd->...qk'",
    # naming round 57: blind57's q12_sum_dedented_out_of_the_shape_loop
    "sum_after_loop": "adding to the running total after the loop over the weight shapes instead of in it (`total "
                      "+= n` written one indent too far left): the loop runs every pass, but only the n its last "
                      "pass left is added, once, so the count is the last matrix's alone; indent the `total += n` "
                      "line into the loop's body so that every matrix is added",
    # naming round 57: blind57's q01_return_indented_into_the_weight_loop (sdpa-from-scratch's key)
    "return_inside_loop": "indenting the `return` into the loop over the weights (the last line of the for body) "
                          "instead of below it: a function returns the moment it reaches a return, so it stops "
                          "during the loop's first pass and only Q, made from W_Q, comes back (a tuple of one "
                          "instead of Q, K, V); dedent the return one level, to just after the loop",
    # naming round 57: blind57's q10_effective_tokens_returns_stale_lesson_entropies (scaled-attention's key)
    "reads_global_not_parameter": "reading a global of the notebook inside the function instead of its own "
                                  "parameter (a name the body still uses after the parameter was renamed, or a "
                                  "value a cell computed for the lesson's example): the values passed in are never "
                                  "used, so the result is right only for the one input the global was made from and "
                                  "fails or is wrong everywhere else; compute it from the parameter",
    # naming round 57: blind57's q06_q03_cell_copied_name_left_as_ans_scale
    "answer_cell_copied_name_kept": "copying another question's answer cell and changing only the letter: the copy "
                                    "still assigns the other question's name, so this question's name is never "
                                    "set, and the other question's answer is replaced by this letter; in the copy, "
                                    "write this question's name (ans_mask = \"...\") and leave the other "
                                    "question's cell as it was",
    # naming round 57: blind57's q11_lesson_query_row_retyped_from_key_row
    "lesson_matrix_mistyped": "typing the lesson's Q or K with a row that is not the lesson's (the last query row "
                              "following the last key row's pattern, say): the rank is computed right, but of "
                              "another S; copy the lesson's Q and K again, row by row (the last query row is "
                              "0.5 q1 + 0.5 q3 of the lesson), and keep the rank computation",
    # naming round 59: blind59's q05_log_zero_nan_patched_by_clamping_weights_above_zero
    "weights_floored_above_zero": "keeping every attention weight at or above a small floor (softmax(...).clamp(min="
                                  "1e-6), torch.maximum(A, eps)), a patch for the entropy's log(0): a blocked key then "
                                  "keeps the floor instead of exactly 0, so it is still read, and a row's weights sum "
                                  "to more than 1; return the softmax as it is, and guard log(0) where the log is "
                                  "taken (torch.xlogy(A, A), or torch.where(A > 0, A * torch.log2(A), 0))",
    # naming round 59: blind59's q08_broadcast_error_patched_by_repeat_tiles_kernel_wrong_axis
    "nw_weights_tiled_flat": "tiling the (T,) kernel weights to V's (T, d_v) shape with .repeat(d_v) (or torch.tile) "
                             "and a reshape: the copies are laid end to end, so reshaped row by row, entry (i, j) "
                             "gets the weight of key (i * d_v + j) mod T instead of key i's, and the values are mixed "
                             "with shuffled weights; give the weights a column axis and let it broadcast, "
                             "kappa[:, None] * V (or write the sum as kappa @ V)",
    # naming round 59: blind59's q11_half_rank_error_patched_by_casting_rounded_scores
    "rank_counts_half_rounding": "measuring the rank of scores computed in float16 (Q, K or S made with .half() and "
                                 "cast up only for matrix_rank): each product's rounding error is noise in its own "
                                 "direction, far above float32's tolerance, and matrix_rank counts it as extra rank, "
                                 "so the count comes out above d_k; build Q and K in float32 or float64 before the "
                                 "product (or reason: rank S <= min(rank Q, rank K) <= d_k)",
    # naming round 60: blind60's rewrites that broke it
    "scale_cached_first_call": "working the scale 1/sqrt(d_k) out once and keeping it between calls (in a mutable "
                               "default such as `_scale=[]`, a global, or a cache): it holds the head size of the "
                               "first call (the cell's own demo), and every later call with another d_k is divided by "
                               "that number instead; compute 1 / math.sqrt(Q.shape[-1]) on every call, from the Q it "
                               "is given (it costs nothing next to the product)",
    "chunk_remainder_dropped": "looping over blocks with range(n // chunk), which visits only the whole blocks: the "
                               "last n % chunk rows (or keys) are never computed, so those query rows stay zero (or "
                               "those keys are left out of the sums) whenever the size is not a multiple of the "
                               "block; loop with range(0, n, chunk) and slice [start:start + chunk] (a slice stops at "
                               "the end by itself), or drop the blocks",
    "memo_key_missing_argument": "memoising a result under a key that leaves out some of the arguments (a dict keyed "
                                 "on (d_model, d_k) only): a later call that differs only in a left-out argument "
                                 "(d_v, with_output) gets the first call's answer back; key the memo on every "
                                 "argument, or drop it and compute the count on each call",
    "batch_restored_wrong_layout": "flattening the batch into rows for one 2-D matmul (X.reshape(-1, d_model): "
                                   "batch-major, each sequence's T rows together) and restoring the result in another "
                                   "layout (reshape(T, *batch, d) then moving the time axis back): the rows are dealt "
                                   "out to the wrong batch entries and positions; restore the layout you flattened, "
                                   "Z.reshape(*X.shape[:-1], Z.shape[-1]) (or use X @ W, which broadcasts the batch)",
    "inplace_on_expanded": "writing in place (tril_(), masked_fill_, +=, div_) into an expanded tensor: .expand "
                           "makes a stride-0 view, so the entries along the expanded axis share one number in "
                           "memory, and each write lands on every entry that shares it; make it real memory first "
                           "(.expand(...).clone(), .repeat, or torch.ones(T, T) * column) or use the out-of-place "
                           "form (tril() instead of tril_())",
    "rank_einsum_letters_differ": "measuring the rank of S with an einsum whose feature letters differ for Q and K "
                                  "('td,sk->ts'): letters that do not match are not multiplied together, each is "
                                  "summed over on its own side, so S is the outer product of the row sums, of rank 1; "
                                  "give both feature axes the same letter ('td,sd->ts', Q @ K.T), whose rank is at "
                                  "most min(T, d_k)",
    # naming61: blind61's library behaviours misread
    "split_given_cut_points": "passing torch.split the cut points (where Q and K end, [d_k, 2 * d_k], as "
                              "torch.tensor_split and np.split take them) where it takes the sizes of the pieces: "
                              "split needs sizes that add up to the width; use .split([d_k, d_k, d_v], dim=-1), or "
                              ".tensor_split([d_k, 2 * d_k], dim=-1) if you want to give the cut points",
    "nw_denominator_logsumexp": "dividing the weighted values by torch.logsumexp(s), taken for a numerically stable "
                                "sum of the kernel weights: it returns the LOG of that sum, log(sum exp(s)), so the "
                                "result is not a weighted average; divide by kappa.sum(), or weight the values by "
                                "torch.exp(s - torch.logsumexp(s, dim=0)), which already sums to 1",
    "max_indices_read_as_values": "reading the largest value out of torch.max(x, dim) with [1] (or .indices): given a "
                                  "dim, max, min, sort, topk and kthvalue return the pair (values, indices), values "
                                  "first, so [1] is the position of the largest entry, not the entry; take .values "
                                  "(or [0]), or x.max() with no dim for the largest of all",
    "module_list_repeated": "building the layers as a list of one module multiplied by a number "
                            "(`[nn.Linear(d_model, d_k)] * 2`): that repeats the SAME module object, not two layers, so "
                            "W_Q and W_K share one weight, and parameters() yields a shared weight only once (W_K's "
                            "d_model x d_k is not counted); make each layer with its own call, "
                            "[nn.Linear(d_model, d_k) for _ in range(2)]",
    # naming62: blind62's conventions carried over from other sources
    "d_k_from_paper_heads": "reading the head's 8 as the paper's h = 8 heads and taking d_k from another model's "
                            "sizes (d_model / h = 512 / 8 = 64 in the Transformer's base model): here d_k = 8 is "
                            "itself the width of each query and key, and T = 100, so rank S <= min(T, d_k) = 8; "
                            "use the sizes the question gives, not a paper's",
    "nw_log_of_values": "averaging the values in log space (logsumexp(s + log V) - logsumexp(s)): torch.log of a "
                        "negative value is NaN (and the exp of a log-domain sum is never negative), so the row is "
                        "right only when every value is positive; the log-sum-exp trick belongs to the weights "
                        "alone: take a = torch.softmax(s, dim=0) (or torch.exp(s - torch.logsumexp(s, dim=0))), "
                        "then the ordinary weighted sum a @ V",
    # blind63: an optimisation that changed the result
    "mask_cached_at_first_length": "building the mask once, at the length of the first call, and only slicing it "
                                   "([:T, :T]) afterwards: a later call with a longer T gets the first call's smaller "
                                   "mask back (a slice never grows it); build the mask on every call, or rebuild the "
                                   "cache when T is larger than the mask it holds",
    "online_softmax_sum_not_rescaled": "an online (blocked) softmax that adds each block's exponentials to the running "
                                       "sum without rescaling the earlier sum: when the running max grows from m to "
                                       "m_new, the sum so far must be multiplied by exp(m - m_new) first (l = l * "
                                       "exp(m - m_new) + exp(block - m_new).sum()); without it the denominator is too "
                                       "large and the rows do not sum to 1",
    "nw_linear_feature_map_kernel": "replacing the exponential kernel exp(q . k / sqrt(d_k)) by linear attention's "
                                    "feature-map kernel phi(q) . phi(k) (phi = elu + 1): it is a different kernel, so "
                                    "the weights and the smoothed row differ from the attention row; use "
                                    "kappa = torch.exp(K @ q / math.sqrt(d_k)) (or torch.softmax of the scores)",
    "in_place_float_op_on_integer": "doing a float operation in place (reciprocal_(), div_(), `/=`) on an integer "
                                    "tensor (torch.arange(1, T + 1) is int64): the float result cannot be written "
                                    "back into it; make the tensor float first (torch.arange(1, T + 1, "
                                    "dtype=torch.float64)) or use the out-of-place 1.0 / counts",
    "entropy_lower_triangle_only": "summing the entropy terms over the lower triangle only, as if every A were causal: "
                                   "for unmasked or cross-attention weights the terms of keys after the query's "
                                   "position are dropped and the entropy comes out too small; sum -a log2 a over every "
                                   "key of the row (the masked zeros add 0 by themselves)",
    "rank_from_svd_vectors": ("counting the entries of U (or Vh) as if they were the singular values: "
                              "torch.linalg.svd returns the tuple (U, S, Vh), and element [0] is the matrix U of left "
                              "singular vectors, so the count is of U's entries above the tolerance, not of the "
                              "singular values; take element [1] (U, s, Vh = torch.linalg.svd(S), then count s), or "
                              "use torch.linalg.svdvals(S) or torch.linalg.matrix_rank(S)"),
    "rank_from_svd_lowrank_default": "counting the rank from torch.svd_lowrank (or pca_lowrank), which returns only q "
                                     "singular values (q = 6 by default): the count can never exceed q; use the full "
                                     "torch.linalg.matrix_rank (or torch.linalg.svdvals) to measure it, and reason "
                                     "that rank(Q K^T) <= min(T, d_k)",
    "count_integer_overflow": "computing the count in a fixed-width integer tensor (int16, int8, int32): past its "
                              "largest value (32767 for int16) the products and sums wrap around silently, so a large "
                              "layer's count comes out wrong (even negative); count with Python ints (or int64)",
    "entropy_terms_not_summed": "returning the terms -p log p without summing them over the last dimension",
    "param_count_in_bytes": "counting the memory the weights take (bytes: 4 per float32 weight, 2 per float16) "
                            "instead of the number of weights: the count comes out that many times too large; a "
                            "parameter count is the number of entries of W_Q, W_K, W_V (and W_O), d_model (2 d_k + "
                            "d_v) without W_O: return that, with no bytes-per-weight factor",
    # one text with scaled-attention's key of the same name (naming round 71 there)
    "slice_end_inclusive": "ending each chunk of query rows one row early (slice(start, stop - 1), or start:stop - 1, "
                           "where stop is already exclusive: Python's slice end is never included): the last row of "
                           "every chunk is never computed and stays 0 in the zero-filled result, and a chunk of one "
                           "row is sliced to none (a max or softmax over no rows raises); slice each chunk as "
                           "slice(start, min(start + chunk, T))",
    "inplace_operand_overwritten": "calling an in-place method (P.log2_(), x.exp_(), x.mul_()) on a tensor that the "
                                   "same expression also reads: the in-place call runs before the product is taken "
                                   "and overwrites the tensor, so the other operand sees the new values too (P * "
                                   "P.log2_() is log2(P) * log2(P), not P * log2(P)); use the out-of-place form "
                                   "(P * P.log2()), which leaves P as it is",
    "rank_measured_at_small_length": "measuring the largest rank on an example with fewer tokens than d_k (a T "
                                     "shrunk to read the printout, never set back): with T < d_k the tokens limit "
                                     "the rank to T, so the measurement says min(T, d_k) for that small T, not for "
                                     "the question's head; measure it with the question's T (or reason rank(Q K^T) "
                                     "<= min(T, d_k) with its T and d_k)",
    # naming round 74 (blind74's len(np.linalg.svd(S)[1]), blind75's mirror letters and overlooked prime)
    "rank_counts_all_singular_values": "counting every singular value of S (len(torch.linalg.svdvals(S)), the length "
                                       "of svd's S vector) as its rank: an m x n matrix always has min(m, n) singular "
                                       "values, the zero ones included, so the count is min(T_q, T_k) whatever S is; "
                                       "the rank counts only the non-zero ones (above a tolerance): call "
                                       "torch.linalg.matrix_rank(S)",
    "letter_contradicts_comment": "typing a letter that is not the option your own comment describes (a slip of the "
                                  "hand, such as b and d mirrored, or a detail such as a prime overlooked in the "
                                  "option's text): the reasoning beside the answer points to another option than "
                                  "the letter given; read each option's text again and type the letter of the one "
                                  "your reasoning describes",
    # naming round 78 (blind79)
    "chained_comparison_on_tensors": "a chained comparison on tensors (0 <= j <= i, lo < x < hi): Python runs it "
                                     "as (0 <= j) and (j <= i), and `and` asks for the truth value of a tensor, "
                                     "which raises for more than one element; write the two comparisons joined "
                                     "with & ((j >= 0) & (j <= i)), or build the triangle with torch.tril",
    # naming round 80 (blind80: habits from other libraries; blind81: debugging leftovers)
    "keep_mask_formula_on_additive_mask": "applying a keep-mask formula, (1 - M) * -1e9 (Keras's Softmax layer, "
                                          "written for a 0/1 mask with 1 where a key is kept), to the additive mask: "
                                          "M already holds 0 where a key is open and a large negative value where it "
                                          "is blocked, so every open score gets -1e9 added, which swamps it (float64 "
                                          "loses precision, float32 rows come out uniform, float16 gives NaN); add "
                                          "the mask as it is, S + M",
    "check_mutates_input": "a check (an assert or an if test) that changes the tensor it checks: an in-place call "
                           "such as S.clamp_(-10, 10) inside it writes into S, so the scores are cut to that range "
                           "before the softmax (blocked keys get weight, large scores tie); check with an "
                           "out-of-place expression (torch.isfinite(S).all(), S.clamp(...) without the underscore), "
                           "or remove the check",
    "output_transposed": "returning the output transposed, (A V)^T of shape (d_v, T_q), instead of A V of shape "
                         "(T_q, d_v): the values are mixed with the right weights, but each query's result is a "
                         "column (V^T A^T, V.T @ weights.T, an einsum written 'qk,kv->vq', or a .T left on the "
                         "result); return weights @ V (einsum 'qk,kv->qv'), one row per query",
    "rows_stacked_as_columns": "laying each row's result down as a column (torch.stack(rows, dim=1), column_stack, "
                               "as R's apply(x, 1, f) returns them), which transposes the matrix: stack the rows "
                               "along dim=0 (torch.stack(rows)) so that row t stays row t",
    "cross_entropy_on_probabilities": "computing the entropy with F.cross_entropy(A, A) as Keras's "
                                      "categorical_crossentropy on probabilities: torch's cross_entropy takes "
                                      "logits (it applies log_softmax to A, not log) and reads the classes on dim 1, "
                                      "not the last axis; compute it from A itself, -(A * log2 A).sum(-1), with "
                                      "torch.xlogy or a guard so that 0 log 0 counts as 0",
    "scale_assumed_applied_elsewhere": "thinking a library applies the 1/sqrt(d_k) scale anyway (as "
                                       "scaled_dot_product_attention or jax.nn.dot_product_attention do by default): "
                                       "here the notebook's scaled_scores is the only place the scores are scaled, so "
                                       "without the factor they grow like sqrt(d_k) and the softmax rows become "
                                       "nearly one-hot (option b)",
    # naming round 82 (blind83's Illustrated Transformer `/ 8`, blind82's `bandwidth=math.sqrt(D_K)`)
    "scale_hard_coded": "dividing the scores by a fixed number (8, the square root of another model's d_k = 64, "
                        "or a head size typed in or read from a global) instead of sqrt(d_k) of the inputs it is "
                        "given: it is right only for that one head size; take d_k = Q.shape[-1] (q.shape[-1]) and "
                        "divide by math.sqrt(d_k) on every call",
    "scale_default_frozen": "making the scale (or the kernel's bandwidth) a parameter whose default is worked out "
                            "from a global, such as bandwidth=math.sqrt(D_K): a default is evaluated once, when the "
                            "def runs, so every call uses the lesson's head size whatever d_k it is given; default "
                            "to None and compute math.sqrt(q.shape[-1]) inside the function on each call",
    # naming round 86 (blind86: online, two-pass and tiled formulations, each with the one slip it invites)
    "online_softmax_rescale_inverted": "an online (blocked) softmax whose running sum is rescaled by exp(m_new - m) "
                                       "instead of exp(m - m_new) when a later block raises the row max from m to "
                                       "m_new: the earlier sum grows where it must shrink, so those rows sum to less "
                                       "than 1; the factor is exp(m_old - m_new), at most 1 (l = l * exp(m - m_new) + "
                                       "exp(block - m_new).sum())",
    "nw_online_numerator_not_rescaled": "a one-pass kernel average with a running max that rescales the running "
                                        "denominator by exp(m_old - m_new) when a larger score appears, but not the "
                                        "running numerator: values seen before the largest score keep too much "
                                        "weight and the result is no weighted average; rescale both accumulators by "
                                        "the same factor (num = num * alpha + p * V[i], den = den * alpha + p)",
    "mask_in_normaliser_only": "adding the mask where the row's max and sum (the normaliser) are worked out, but not "
                               "where the weights themselves are formed: exp(S - m) / l from the unmasked scores gives "
                               "blocked keys weight, and the rows no longer sum to 1; add M to the scores once, "
                               "before both the statistics and the exp (Z = S + M, then exp(Z - m) / l)",
    "param_count_padded_to_tiles": "counting the weights as a tiled kernel stores them, each width rounded up to a "
                                   "whole tile (16 x 16 and the like): the padding holds no parameters, so the count "
                                   "is too large wherever a width is not a multiple of the tile; count d_model (2 d_k "
                                   "+ d_v) (plus d_v x d_model for W_O) from the widths as given",
    "prefix_running_mean_not_rescaled": "building Lesson 07's matrix as a running mean, row t from row t - 1 with the "
                                        "new token's 1/t written in, without rescaling the earlier entries by "
                                        "(t - 1)/t: row t holds 1, 1/2, ..., 1/t, whose sum is the harmonic number "
                                        "H_t, not 1; multiply the carried row by (t - 1)/t before writing 1/t (every "
                                        "entry of row t is then 1/t), or divide each row of the lower triangle of "
                                        "ones by its own count t",
    "scale_per_block": "summing Q K^T over blocks of the head dimension (split-K) and dividing each block's partial "
                       "product by the square root of the block's own width instead of sqrt(d_k): the scale belongs "
                       "to the whole dot product of d_k terms, so the scores come out sqrt(d_k / width) times too "
                       "large; accumulate the unscaled partial products and divide the sum once by math.sqrt(d_k)",
    "mask_rows_from_block_start": "computing attention over blocks of queries and giving every block the mask's first "
                                  "rows, M[:n], instead of its own rows M[start:start + n]: the causal mask's row t "
                                  "belongs to query t, so from the second block on the queries see only the first "
                                  "keys; slice the mask with the block's offset (or slice the rows of S + M once, "
                                  "before splitting into blocks)",
}
