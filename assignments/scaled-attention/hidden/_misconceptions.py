"""Misconceptions of scaled-attention: key -> what the student's answer matches, in words.

Plain data, declared once for the assignment (no imports): a failed hidden test names a key only when
the student's output matches what that mistake produces on the same input. A key shared with another
assignment has the same text there (tests/test_authoring.py checks it)."""

MISCONCEPTIONS = {
    # attention
    "divide_by_dk": "dividing the scores by d_k instead of sqrt(d_k)",
    "no_scale": "not scaling the scores at all",
    "multiply_by_sqrt_dk": "multiplying the scores by sqrt(d_k) instead of dividing",
    "scale_by_d_v": "scaling by 1/sqrt(d_v) (the width of V) instead of 1/sqrt(d_k)",
    "scale_by_T": "scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of "
                  "1/sqrt(d_k)",
    "float32_scale": "computing the scale constant in float32, which loses precision for float64 inputs",
    "softmax_wrong_dim": "taking the softmax over the query dimension (dim=-2) instead of the keys (dim=-1)",
    "weights_not_normalised": "using exp(scores) as weights without dividing by the row sum: rows do not sum to 1",
    "no_softmax": "skipping the softmax: the scaled scores themselves are used as weights",
    "scores_transposed": "computing K Q^T (keys as rows) instead of Q K^T (queries as rows)",
    "integer_sqrt_scale": "dividing by an integer square root (int(math.sqrt(d_k)) or math.isqrt(d_k)) instead "
                          "of sqrt(d_k)",
    "keys_are_queries": "computing the scores from the queries with themselves (Q Q^T, k = q) instead of Q K^T",
    "output_keeps_key_axis": "keeping one axis per key in the output (each weight times its value row, never summed "
                             "over the keys): weights @ V sums over the keys",
    "output_uses_weights_transposed": "mixing the values with the transposed weights (A^T V) instead of A V: "
                                      "each output row must be its own query's weighted average of the values",
    "attention_top_k": "keeping only the k best-scoring keys of each query (a top-k sparse attention, the other "
                       "scores masked to -inf; k = 1 is a hard argmax) instead of the softmax over every key",
    "uniform_weights": "giving every key the same weight (the mean of V) instead of the softmax of the scores",
    "scale_precedence": "writing the scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 (so S / d_k ** 1/2 "
                        "divides by 2 d_k, and a scale = d_k ** 1/2 is d_k / 2): write d_k ** 0.5 or math.sqrt(d_k)",
    "scale_after_softmax": "applying 1/sqrt(d_k) after the softmax (to the weights or the output) instead of to "
                           "the scores inside it: softmax(Q K^T / sqrt(d_k)) V",
    "sqrt_of_scores": "taking the square root of the scores (sqrt(Q K^T / d_k), or sqrt(Q K^T) / d_k) instead of "
                      "dividing them by the square root of d_k alone: a negative score has no real square root, so "
                      "every row with one turns NaN, and the other scores are shrunk to their roots; write "
                      "Q @ K.T / math.sqrt(d_k)",
    "wrong_scale_constant": "scaling the scores by another constant than 1/sqrt(d_k): the weights are "
                            "softmax(Q K^T / c) with a different c",
    "softmax_whole_matrix": "normalising the exponentials over the whole score matrix (one sum for every entry) "
                            "instead of over each row: each query's weights must sum to 1",
    "sigmoid_weights": "normalising sigmoid(scores) instead of taking a softmax: the weights are "
                       "exp(s) / sum exp(s) along each row",
    "log_softmax_weights": "using log_softmax (log-probabilities, all negative) as the weights instead of softmax",
    "scores_normalised_without_exp": "dividing the scores by their row sum or norm (F.normalize) without "
                                     "exponentiating: a softmax takes exp(s) first, so every weight is positive",
    "keepdim_missing": "a row reduction without keepdim=True (s.sum(-1) or s.max(-1).values has shape (T,), which "
                       "broadcasts along the last axis): entry (i, j) is combined with row j's sum or maximum "
                       "instead of row i's",
    "values_are_keys": "mixing the keys (weights @ K) instead of the values (weights @ V)",
    "causal_mask_added": "applying a causal mask (query i sees only keys 0 to i) where every query attends to "
                         "every key",
    "gaussian_kernel": "weights from a Gaussian kernel exp(-||q - k||^2 / c) instead of the softmax of the scaled "
                       "dot products q.k / sqrt(d_k)",
    "cosine_scores": "scoring with the cosine similarity (q and k normalised to length 1) instead of the dot "
                     "product q.k / sqrt(d_k)",
    "returns_scores_as_weights": "returning the scores (before the softmax) as the weights: return the softmax's "
                                 "output, the matrix whose rows sum to 1",
    "returns_output_only": "returning only the output where the function returns the pair (output, weights)",
    "weights_as_output": "confusing the (T_q, T_k) weight matrix with the output",
    "keys_not_transposed": "multiplying Q @ K without transposing K: the scores are Q K^T, of shape (T_q, T_k)",
    "torch_sqrt_of_int": "calling torch.sqrt (a function of tensors) on the Python int d_k: use math.sqrt(d_k) or "
                         "d_k ** 0.5",
    "mha_new_layers": "building new nn.Linear layers inside the function, whose weights are random, instead of "
                      "multiplying by the given W_Q, W_K, W_V (and W_O): the given matrices are the projections; "
                      "X @ W_Q is the query projection",
    "table_stds_of_weights": "the table's standard deviations taken of the softmax weights (probabilities) instead of "
                             "the raw and scaled scores: the spread the lesson compares is the scores', which the "
                             "scale shrinks by sqrt(d)",
    "fixed_axes": "code that assumes a fixed number of dims (K.T, which reverses every axis of a batched tensor; "
                  "K.transpose(1, 2) on 4-D inputs; B, T, d = Q.shape): use negative axes (K.transpose(-2, -1)) "
                  "so that batch and head dims pass through",
    "results_reordered": "returning the results in the wrong order (for example (weights, output) instead of "
                         "(output, weights))",
    # Var(q.k)
    "variance_returned_std": "returning the standard deviation of q.k instead of its variance",
    "variance_of_products": "taking the variance of the products q_i k_i (about 1) instead of the variance "
                            "of their sum q.k (about d_k)",
    "scaled_flag_ignored": "returning the unscaled variance when scaled=True",
    "ignores_generator": "not drawing the samples from the generator passed in, as it is given (the global RNG, "
                         "a new torch.Generator or numpy used instead, or the generator re-seeded inside): the "
                         "caller's seed must decide the draws",
    "variance_after_scaling": "giving the variance of the scaled dot product (1) for the raw one: scaling by "
                              "1/sqrt(d_k) is what brings d_k down to 1",
    "variance_d_k_squared": "squaring d_k: the variances of the d_k independent products add up to d_k, they "
                            "do not multiply",
    "variance_scaled_by_sqrt": "dividing the variance by sqrt(d_k) for scaled=True: scaling each dot product by "
                               "1/sqrt(d_k) divides the variance by d_k (Var(x / c) = Var(x) / c^2)",
    "scaled_flag_inverted": "reading the scaled flag the other way round: dividing by sqrt(d_k) when scaled=False "
                            "and not when scaled=True",
    "shared_sample": "drawing one q (or one k) and reusing it for every sample: the pairs are not independent, "
                     "and the variance given q is |q|^2, not d_k; draw n_samples of each",
    "uniform_samples": "drawing uniform numbers (torch.rand) instead of standard normals (torch.randn)",
    # naming52: blind52's q2_randn_rescaled_with_uniform_two_x_minus_one_idiom
    "normals_rescaled_as_uniform": "rescaling normal draws the way uniform ones are rescaled (torch.randn(...) * 2 "
                                   "- 1, or - 0.5): that idiom maps torch.rand's [0, 1) onto [-1, 1) (or centres "
                                   "it), but torch.randn is already N(0, 1); * 2 - 1 moves the mean to -1 and the "
                                   "variance to 4 (Var(q.k) about 24 d_k), - 0.5 moves the mean to -0.5; drop the "
                                   "rescaling: q = torch.randn(n_samples, d_k, generator=generator)",
    "dots_summed_over_samples": "summing the products over the samples (dim 0) instead of over the d_k "
                                "coordinates of each pair (dim -1)",
    "randn_shape_swapped": "swapping the two sizes in torch.randn: (d_k, n_samples) draws d_k vectors of length "
                           "n_samples, so each row's sum is a dot product of n_samples terms and the variance is "
                           "that of d_k such dots (about n_samples); draw torch.randn(n_samples, d_k)",
    "draw_split_along_samples": "splitting one draw of shape (n_samples, 2 d_k) into q and k along the samples "
                                "(chunk(2, dim=0)) instead of along the features: q and k are then n_samples / 2 "
                                "vectors of width 2 d_k, so each dot product has 2 d_k terms and the variance is "
                                "about 2 d_k; split with dim=1 (or draw q and k separately, each (n_samples, d_k))",
    "variance_of_the_mean": "returning a statistic of the sample mean (the variance divided by n_samples, var / n, "
                            "or the standard error std / sqrt(n)) instead of the variance of the dot products "
                            "themselves: return dots.var()",
    "variance_over_all_pairs": "taking the variance over all n^2 entries of q @ k.T (every q_i with every k_j) "
                               "instead of over the n paired dot products q_i . k_i: the pairs share their vectors, "
                               "so they are not n^2 independent samples; compute (q * k).sum(dim=-1)",
    "returns_tensor_not_number": "returning a tensor (or a NumPy scalar, such as numpy's var of a .numpy() array) "
                                 "where a Python number is asked: call .item() (or float(...)) on the one-element "
                                 "tensor or NumPy scalar",
    # entropy
    "entropy_one_number": "reducing the whole tensor to one number (the row entropies averaged or summed, or the "
                          "rows' probabilities averaged into one distribution before the entropy) instead of "
                          "returning one entropy per row: reduce only along the last dimension",
    "entropy_matrix_product": "writing -sum p log p as the matrix product p @ log(p).T: for a batch of rows it "
                              "pairs every row's p with every row's log p, a (rows, rows) matrix with the entropies "
                              "only on its diagonal; multiply elementwise and sum along the last dimension, "
                              "-(p * log p).sum(dim=-1)",
    "entropy_mean_not_sum": "averaging the terms -p log p over the row (mean) instead of summing them",
    "entropy_terms_not_summed": "returning the terms -p log p without summing them over the last dimension",
    "entropy_keepdim": "keeping the reduced dimension (keepdim=True): one entropy per row has shape (...), not "
                       "(..., 1)",
    "entropy_normalised": "dividing the entropy by its maximum ln T (a fraction between 0 and 1) instead of "
                          "returning it in nats",
    "entropy_binary_terms": "adding a two-outcome (Bernoulli) term (1 - p) log(1 - p) for every entry, -sum [p log p "
                            "+ (1 - p) log(1 - p)]: that is a yes/no entropy per key, summed, not the entropy of the "
                            "one distribution over the row, which is -sum p log p alone",
    "entropy_without_log": "using the logits in place of log p (-sum p * logits): log p = logits - "
                           "logsumexp(logits), so use F.log_softmax",
    "entropy_exp_overflow": "taking exp of the raw logits (no maximum subtracted, or one maximum of the whole "
                            "tensor instead of each row's): exp overflows to inf for large logits, or underflows to 0 "
                            "in every entry of a row far below that one maximum, and the entropy becomes NaN; use "
                            "F.log_softmax, or subtract each row's maximum",
    "draws_in_float64": "drawing q and k in float64 (dtype=torch.float64) where the notebook draws float32: the "
                        "same seed gives other numbers",
    "keys_drawn_transposed": "drawing k as torch.randn(d, 5) (then q @ k) instead of torch.randn(5, d) (then "
                             "q @ k.T): the same random numbers land in other places",
    "entropy_log_base": "measuring entropy with log base 2 or 10 instead of the natural log",
    "entropy_log_base_10": "measuring entropy with log base 10 instead of the natural log",
    "exp_other_base": "taking the softmax's exponentials in another base than e (torch.exp2, 2 ** x, 10 ** x, or e "
                      "rounded to 2.7 or 3): base ** x is e ** (x ln base), so every weight is that of the scores "
                      "multiplied by ln base; use torch.exp (or torch.softmax)",
    "generator_positional": "passing the generator positionally (torch.randn(n, d_k, generator)): torch's "
                            "random factories take it only as a keyword, torch.randn(n, d_k, generator=generator)",
    "inplace_alias_overwritten": "overwriting a tensor that is still needed with an in-place op: add_, div_, log_ "
                                 "and exp_ return the same tensor they change, so both names hold the new values "
                                 "(after log_p = p.log_() p holds ln p too and -(p * log_p).sum() is -sum (ln p)^2, "
                                 "not the entropy; after scaled = dots.div_(c) dots is divided too): use the "
                                 "out-of-place op (torch.log(p + eps), dots / c) so the original keeps its values",
    "entropy_log1p": "taking log1p(p) = ln(1 + p) as a NaN-free log(p): it is another function, so every term "
                     "-p log1p(p) is wrong (and negative); use log(p) on the log_softmax, or p.clamp_min(eps)",
    "entropy_flattened": "flattening the logits into one row: one softmax and one entropy over every entry of the "
                         "tensor instead of one per row (softmax and sum along dim=-1)",
    "table_key_count": "drawing another number of keys than the lesson's five (k = torch.randn(5, d)): the "
                       "same seed then gives other scores, and every number of the table changes",
    "mha_values_not_split": "splitting Q and K by head but giving every head the full-width V: each head's output "
                            "is d_model wide, and the concatenation n_heads times too wide for W_O (V[:, cols] too)",
    "mha_d_k_passed_as_sqrt": "passing sqrt(d_k) as attention's d_k argument: attention takes the square root "
                              "itself, so the scores are divided by d_k ** 0.25; pass d_k",
    "entropy_softmax_whole_tensor": "normalising the exponentials by one sum over the whole tensor (e / e.sum() "
                                    "without dim): each row's probabilities must sum to 1 (softmax along dim=-1)",
    "sqrt_as_power_of_two": "computing sqrt(d_k) as a power of two (2 ** (log2(d_k) // 2), or a table of the printed "
                            "d_k's roots): it is exact only for d_k = 4, 16, 64 (powers of four) and too small for "
                            "any other d_k, so the scaled variance is above 1 there; divide by math.sqrt(d_k)",
    "entropy_small_terms_dropped": "dropping the entropy terms of small probabilities (p below a threshold such as "
                                   "0.01) as negligible: each still adds -p log p (0.046 nats at p = 0.01), so rows "
                                   "with many small probabilities come out too small; keep every term (use "
                                   "log_softmax, or treat only p exactly 0 as 0)",
    "entropy_axis_moved_by_reshape": "moving the class axis first with reshape(T, -1) (or view) instead of "
                                     "movedim/transpose: a reshape keeps the memory order, so each 'column' mixes "
                                     "entries of different rows; take the softmax and the sum over dim=-1, or use "
                                     "movedim(-1, 0)",
    "mha_fused_qkv_three_axis_last": "viewing the fused [Q | K | V] projection (T, 3 * d_model) as (T, d_model, 3) and "
                                     "taking the last axis apart: Q, K and V each get every third column (0, 3, 6, "
                                     "... / 1, 4, ... / 2, 5, ...), mixing the queries, keys and values; view it as "
                                     "(T, 3, d_model) and unbind dim 1 (or chunk(3, dim=-1))",
    "mha_head_slice_short": "slicing each head narrower than d_k (slice(h * d_k, (h + 1) * d_k - 1): Python's slice "
                            "end is exclusive already): every head must take d_k columns, h * d_k to (h + 1) * d_k",
    "entropy_sign": "dropping the minus sign of the entropy (sum of p log p is negative)",
    "entropy_wrong_dim": "computing the entropy over the wrong dimension (down the columns instead of along "
                         "each row)",
    "softmax_implicit_dim": "calling F.softmax without dim: torch's legacy rule then normalises dim 0 of a 1-D or "
                            "3-D input (dim 1 otherwise), not the last dimension; pass dim=-1",
    "entropy_of_raw_scores": "taking the entropy of the scores themselves (-sum s log s) instead of the "
                             "probabilities p = softmax(scores): scores can be negative (log of a negative number is "
                             "NaN) and do not sum to 1; compute p first, or use F.log_softmax",
    "entropy_nan_saturated": "entropy NaN for a saturated row: 0 * log(0); add a tiny epsilon or use log_softmax",
    "entropy_epsilon_outside_log": "guarding the wrong factor against log(0): the epsilon (or a clamp) is on p "
                                   "outside the log, (p + eps) * log(p), so a probability that underflows to 0 "
                                   "still takes log(0) = -inf and the saturated row's entropy is inf; put it "
                                   "inside, p * log(p + eps), or use log_softmax",
    "table_std_root_mean_square": "computing each std as the root of the scores' mean square, sqrt(mean(x^2)) "
                                  "(or sqrt(sum(x^2) / (n - 1))), which never subtracts the sample mean: five "
                                  "scores of one draw do not average to exactly 0, so it is not .std(); use "
                                  "x.std() (the mean subtracted, divided by n - 1)",
    # naming52: blind52's q4_table_scaled_std_as_raw_std_divided_by_d
    "table_scaled_std_from_raw_std": "working scaled_std out from raw_std by a formula (raw_std / d, say) instead of "
                                     "measuring it: dividing the scores by sqrt(d) divides their std by sqrt(d) "
                                     "(their variance by d), so scaled_std is raw_std / sqrt(d); simplest is to "
                                     "measure it, scaled.std() with scaled = raw / sqrt(d)",
    "table_vector_query_indexed": "drawing the query as a 1-D vector (torch.randn(d)) and keeping the [0] of the "
                                  "2-D code: q @ k.T is then already the 5 scores, shape (5,), so [0] keeps the "
                                  "first score alone (its std is NaN, the softmax of one score has entropy 0); draw "
                                  "q = torch.randn(1, d) as the lesson does, or drop the [0]",
    "biased_std": "using the biased standard deviation (divide by n) where the lesson's table uses unbiased (n - 1)",
    "table_fields_swapped": "putting each of two values under the other's key (a copy-paste slip, or a list of "
                            "values zipped with the keys in another order than theirs): give each key its own value, "
                            "in the keys' order",
    "table_field_copied": "storing one value under two keys (scaled_std computed from the raw scores, say: a line "
                          "copied and not edited): each field must be computed from its own scores",
    "table_dict_of_lists": "returning one dict of columns (a list of values per key, pandas style) where a list "
                           "with one dict per row is asked",
    "table_keyed_by_d": "returning a dict keyed by d ({4: {...}, 16: {...}}) where a list of row dicts is asked: "
                        "build a list and append one row dict (with its 'd') per d, in the order of dims",
    "table_variance_as_std": "giving a variance (the square of the std, .var()) in a std column of the table, or "
                             "the converse (a square root too many): raw_std and scaled_std are standard "
                             "deviations, .std()",
    "table_reseeded_per_row": "re-seeding each row with another seed than the one passed (seed + d, seed + i, "
                              "'fresh numbers per d'): every row uses torch.manual_seed(seed) itself, so that each "
                              "d sees the lesson's draws",
    "seed_outside_loop": "seeding once before the loop instead of re-seeding for every d",
    "seed_zero_ignored": "skipping torch.manual_seed when seed is 0 (`if seed:` and `seed or None` treat 0, a valid "
                         "seed, as no seed): seed for every d whatever the seed (`if seed is not None:` where None "
                         "must be allowed)",
    "index_before_matmul": "writing q @ k.T[0] for (q @ k.T)[0]: indexing binds tighter than @, so q is multiplied "
                           "by the first column of k.T (one number per key), a shape error unless d equals the "
                           "number of keys; put the product in parentheses before indexing, (q @ k.T)[0]",
    "keys_drawn_first": "drawing k before q: after torch.manual_seed the first numbers go to q = torch.randn(1, d), "
                        "then k = torch.randn(5, d)",
    # multiple choice
    "variance_vs_std": "confusing the standard deviation sqrt(d_k) of q.k with its variance d_k",
    "attention_as_argmax": "thinking attention returns only the best-matching value (a hard argmax) instead "
                           "of a weighted mixture",
    "self_attention_identity": "thinking a token in self-attention attends only to itself",
    "attention_needs_sorted_keys": "thinking attention searches the keys in order (so they must be sorted): it "
                                   "scores every key at once, in any order",
    "answer_first_char_of_option": "taking the first character of an option's text (options copied without their "
                                   "labels, then text[0]) for its letter: answer with the label before the option, "
                                   "\"A\", \"B\", \"C\" or \"D\"",
    "answer_option_text": "answering a multiple-choice question with the option's text (its formula or sentence) "
                          "instead of its letter: the answer is the letter as a string",
    # multi-head attention
    "mha_scale_by_d_model": "scaling each head's scores by sqrt(d_model) instead of sqrt(d_k = d_model / n_heads)",
    "mha_split_without_transpose": "reshaping (T, d_model) straight to (n_heads, T, d_k) without a transpose "
                                   "(or the keys straight to (n_heads, d_k, T) as if that were each head's K^T), "
                                   "mixing tokens across heads: a view only regroups the memory; split with "
                                   ".view(T, n_heads, d_k).transpose(0, 1) and take K^T with .transpose(-2, -1)",
    "mha_output_projection_left": "multiplying by the output projection from the left (W_O @ concat) instead of "
                                  "concat @ W_O: the concatenated heads are (T, d_model), one row per token, and W_O "
                                  "is applied as x @ W like W_Q, W_K and W_V; from the left it raises a shape error "
                                  "whenever T != d_model and mixes the tokens when they are equal: write "
                                  "concat @ W_O",
    "mha_heads_kept_as_pairs": "concatenating the heads as attention returns them, each an (output, weights) pair: "
                               "torch.cat needs tensors, so a list of tuples raises TypeError; unpack each call, "
                               "out_h, _ = attention(...), and concatenate only the n_heads outputs, each (T, d_k), "
                               "into (T, d_model) before W_O",
    "mha_w_o_column_blocks": "writing concat @ W_O as a sum over the heads (right in itself) but taking head h's "
                             "block of W_O by columns, W_O[:, h*d_k:(h+1)*d_k], (d_model, d_k): head h's (T, d_k) "
                             "output multiplies the ROW block W_O[h*d_k:(h+1)*d_k, :], (d_k, d_model), the rows "
                             "that concat @ W_O multiplies by that head's columns",
    "mha_no_output_projection": "forgetting the output projection W_O after concatenating the heads",
    "mha_weight_transposed": "applying the projections as X @ W.T (nn.Linear's layout) instead of X @ W",
    "mha_strided_heads": "giving head h the strided columns h, h + n_heads, ... (a view(T, d_k, n_heads) split) "
                         "instead of the block h * d_k to (h + 1) * d_k",
    "mha_merge_without_transpose": "merging the heads with reshape(T, d_model) straight from (n_heads, T, d_k), "
                                   "without moving the head axis back behind T: tokens and heads get mixed",
    "mha_softmax_over_heads": "taking the softmax over the heads (dim=0 of the (n_heads, T, T) scores, the default "
                              "of F.softmax without dim on 3-D input) instead of over the keys (dim=-1)",
    "mha_single_head": "running one attention over the full width (as if n_heads were 1) instead of n_heads "
                       "heads of d_k = d_model / n_heads columns each",
    "qk_swapped": "swapping the query and key projections (Q from W_K, K from W_Q)",
    "same_projection": ("using one projection matrix for more than one of Q, K, V (the same W twice, or two "
                        "results written into one buffer, `out=`, the second overwriting the first)"),
    "mha_projection_chained": "projecting from another projection (K = Q @ W_K, V = K @ W_V) instead of from the "
                              "input: compute each of Q, K, V from X (Q = X @ W_Q, K = X @ W_K, V = X @ W_V)",
    "mha_no_input_projections": "running the heads on X itself, never applying the projections W_Q, W_K, W_V",
    "mha_head_rows_sliced": "slicing head h from the rows (tokens) h * d_k to (h + 1) * d_k instead of those "
                            "columns (Q[:, h * d_k:(h + 1) * d_k])",
    "mha_head_size_float": "computing d_k = d_model / n_heads, a float (true division): slice bounds and shapes "
                           "need an int, d_model // n_heads",
    "mha_head_slice_offset": "slicing head h as columns h to h + d_k instead of h * d_k to (h + 1) * d_k: the "
                             "heads overlap and most columns are never used",
    "mha_heads_concatenated_as_rows": "concatenating the head outputs along the rows (torch.cat's default "
                                      "dim=0, (n_heads * T, d_k)) instead of the columns (dim=-1, (T, d_model))",
    "mha_layer_norm_added": "normalising the output with a layer norm (F.layer_norm, with or without the input X "
                            "added first): that is the transformer block's step after attention, not part of "
                            "multi_head_attention; return the concatenated heads times W_O as they are",
    "mha_output_divided_by_heads": "dividing the output by the number of heads (averaging where the heads are "
                                   "concatenated): concatenation keeps each head's full size, and W_O's rows "
                                   "already weigh the heads",
    "mha_output_projection_per_head": "projecting each head through only its own diagonal block of W_O (head h "
                                      "times W_O[c, c], c its d_k columns) and concatenating the products: the "
                                      "output projection mixes every head into every output column; multiply the "
                                      "concatenated heads by the whole W_O",
    "mha_input_split_before_projection": "splitting the input X into column slices before projecting (each head "
                                         "multiplies its slice by its diagonal block of W_Q, W_K, W_V) instead of "
                                         "projecting all of X and then splitting Q, K, V into heads",
    "mha_heads_missing": "looping over fewer heads than n_heads (range(n_heads - 1), range(1, n_heads)): the "
                         "concatenated heads are narrower than d_model, and every head h in range(n_heads) must "
                         "be computed and concatenated",
    "mha_head_start_scaled_twice": "looping over the heads' starts (range(0, d_model, d_k)) and multiplying the "
                                   "start by d_k again (h * d_k : (h + 1) * d_k): only the starts below n_heads "
                                   "give columns (head 0 alone when d_k >= n_heads), the others begin past "
                                   "d_model and are empty; loop over "
                                   "range(n_heads) with h * d_k, or over the starts with h : h + d_k",
    "mha_head_stride_n_heads": "starting head h's slice at h * n_heads instead of h * d_k (range(0, n_heads * "
                               "n_heads, n_heads)): the slices overlap or run past d_model and leave columns out; "
                               "head h's columns are h * d_k to (h + 1) * d_k",
    "mha_head_slice_fixed": "slicing the same head's columns of Q, K or V for every head (Q[:, :d_k] left in the "
                            "loop): the slice must move with the head, columns h * d_k to (h + 1) * d_k",
    "mha_heads_reordered": "concatenating the heads in another order than 0, 1, ..., n_heads - 1 (heads.insert(0, "
                           "...), a reversed list): head h's output belongs in columns h * d_k to (h + 1) * d_k, "
                           "the rows of W_O that head h is multiplied by",
    "mha_heads_interleaved": "merging the heads with their columns interleaved (torch.stack(heads, dim=-1) then a "
                             "reshape to (T, d_model), or another axis order) instead of side by side: "
                             "torch.cat(heads, dim=-1) puts head h's d_k columns at h * d_k to (h + 1) * d_k",
    "mha_heads_summed": "adding (or averaging) the heads' outputs into one (T, d_k) block instead of "
                        "concatenating them side by side: torch.cat(heads, dim=-1) keeps head h in columns h * d_k "
                        "to (h + 1) * d_k, each multiplied by its own rows of W_O",
    "mha_attention_maps_averaged": "merging the heads' attention maps into one (their mean, as "
                                   "nn.MultiheadAttention returns for display, or their sum) and mixing the values "
                                   "with it: each head applies its own weights to its own d_k columns of V",
    # entropy table
    "table_key_misspelled": "spelling a key of the table differently (another case or punctuation, 'h_raw' for "
                            "'H_raw'): dict keys are exact strings, so the key the table asks for is missing",
    "loop_index_as_d": "looping over the positions (for i in range(len(dims))) and using the position i (or i + 1) "
                       "as d instead of the dims themselves: loop with for d in dims",
    # dtype (the same text as sdpa-from-scratch's and attention-pipeline's)
    "dtype_changed": "returning or mixing in another dtype than the input's (.float() or a float32 tensor never cast "
                     "back): float16 in must give float16 out and float64 in float64 out; mixed with the input's "
                     "dtype a product raises ('expected scalar type ...')",
    # memory layout (the same text as sdpa-from-scratch's)
    "inplace_on_input": "changing an input in place (Q /= ..., Q.mul_(...), an in-place fill of an input): an "
                        "expanded input cannot be written, a tensor that needs gradients may not be, and the "
                        "caller's tensor changes; compute a new tensor instead",
    # issue 21, fourth round of naming (blind7's misses as kinds)
    "variance_scaled_by_sample_count": "dividing the dot products by sqrt(n_samples) (or their variance by "
                                       "n_samples, the standard-error habit) for scaled=True instead of by sqrt(d_k): "
                                       "the scale belongs to each dot product, 1/sqrt(d_k)",
    "entropy_item": "calling .item() (or float()) on the entropy: one Python number works only for a single row; "
                    "return the tensor of one entropy per row",
    "softmax_applied_twice": "applying the softmax to probabilities (a softmax's output passed to a function that "
                             "takes logits, as softmax_entropy does): the entropy of softmax(p) is near ln T; pass "
                             "the scores themselves",
    "mha_residual_added": "adding the input X back to the output (a transformer block's residual connection), "
                          "which multi-head attention itself does not do: return concat(heads) @ W_O",
    "mha_head_slice_overwrites": "overwriting Q (or K) with its own head slice inside the loop (Q = Q[:, cols]): "
                                 "from head 1 on the loop slices an already cut (T, d_k) tensor; keep the slice in a "
                                 "new name (q_h = Q[:, cols])",
    "mha_heads_weights_concatenated": "unpacking attention's (output, weights) pair the wrong way round "
                                      "(_, out_h = attention(...)): each head's (T, T) weights are concatenated "
                                      "instead of its (T, d_k) output",
    # issue 21, fifth round of naming (blind8's misses as kinds)
    "scores_negated": "negating the scores before the softmax (softmax(-Q K^T / sqrt(d_k)), as if they were "
                      "distances where small means close): the key that matches worst gets the most weight",
    "weights_rounded": "rounding the weights (or the output) to a few decimals, for a readable printout, and "
                       "returning the rounded values: round only what you print",
    "own_assert_total_weight": "checking with an assert that the whole weight matrix sums to 1: each row sums to "
                               "1, so the total is T_q; check each row (weights.sum(-1)) instead",
    "own_assert_exact_equality": "checking with an assert that each row of weights sums to exactly 1 (== 1): a "
                                 "floating-point sum is 1 only within rounding (0.99999994, 1.0000001), so the "
                                 "assert fails on ordinary inputs; compare within a tolerance instead, e.g. "
                                 "(weights.sum(-1) - 1).abs().max() < 1e-5 or torch.allclose",
    "variance_moments_swapped": "computing the variance as E[X]^2 - E[X^2], the moment formula with its two terms "
                                "swapped: that is minus the variance (a variance is never negative); use "
                                "E[X^2] - E[X]^2, or .var()",
    "entropy_clamp_max": "guarding the log with p.clamp(max=eps) instead of p.clamp(min=eps): every probability "
                         "is cut down to eps, so the 'entropy' is about -log(eps) for every row; use "
                         "p.clamp(min=eps) (clamp_min), or F.log_softmax",
    "dot_averaged_not_summed": "averaging the d_k products q_i k_i (mean) instead of summing them: the dot "
                               "product is divided by d_k, and its variance by d_k^2",
    "answer_variable_misnamed": "storing the answer under another name than the one asked for: the grader reads "
                                "only the variable the question names",
    "mha_keys_values_swapped": "passing each head's values as the keys and its keys as the values "
                               "(attention(Q_h, V_h, K_h)): the scores are Q_h V_h^T and the heads mix the keys",
    "mha_split_by_head_count": "cutting the columns into d_k heads of width n_heads instead of n_heads heads of "
                               "width d_k: torch.split given the number of heads (its int is the size of each "
                               "chunk), torch.tensor_split or chunk given the width d_k (their int is the number of "
                               "pieces), or a reshape to (T, d_k, n_heads); use Q.split(d_k, dim=-1) or "
                               "Q.chunk(n_heads, dim=-1)",
    "mha_head_width_constant": "using a fixed head width (a global such as the notebook's d_k, or a number) instead "
                               "of d_k = d_model // n_heads of the input: the heads have the wrong width and scale "
                               "unless d_model / n_heads happens to equal it",
    "mha_buffer_like_w_o": "making the buffer for the concatenated heads with the shape of a weight matrix "
                           "(torch.zeros_like(W_O), (d_model, d_model)) instead of (T, d_model): the head outputs "
                           "fit only when T = d_model (for T = 1 they are broadcast into d_model copies of the row); "
                           "make it torch.zeros(T, d_model, dtype=X.dtype), or torch.cat the heads along dim=-1",
    "mha_head_width_from_tokens": "taking the head width from the number of tokens (X.shape[0] // n_heads) "
                                  "instead of d_model // n_heads (X.shape[1]): right only when T = d_model",
    # naming14: blind13's kinds
    "softmax_shift_wrong_axis": "subtracting the maximum over the queries (dim=-2, each key's column) before a row "
                                "softmax: a shift cancels only when it is the same for the whole row; subtract "
                                "S.amax(dim=-1, keepdim=True)",
    "softmax_sum_wrong_axis": "dividing by the sum over another axis than the softmax's dim (e.sum(dim=-2), or a "
                              "fixed axis whatever dim is): the slices along dim no longer sum to 1; sum over the "
                              "same dim as the max",
    "variance_precedence": "writing sum / n_samples - 1 without parentheses: Python divides first and then subtracts 1 "
                           "from the variance; write sum / (n_samples - 1), or use dots.var()",
    "mha_heads_features_as_tokens": "splitting the heads with the axes in the wrong order (a permute(1, 2, 0) to "
                                    "(n_heads, d_k, T), or a batched model's .transpose(1, 2) on a 2-D X, which "
                                    "gives (T, d_k, n_heads)): the softmax then runs over the d_k features as if they "
                                    "were tokens; the split is .view(T, n_heads, d_k).transpose(0, 1), (n_heads, T, d_k)",
    # naming15: blind14's kinds
    "values_averaged_over_keys": "averaging the weighted value rows over the keys (.mean(dim=-2)) instead of summing "
                                 "them: the weights already sum to 1, so the mean divides the output by T_k; use "
                                 ".sum or weights @ V",
    "dots_cosine_similarity": "taking the cosine similarity (q.k / (|q| |k|)) instead of the plain dot product "
                              "q.k: each product is divided by about d_k, so its variance is about 1/d_k",
    "dots_absolute_value": "taking the absolute value of the dot products before the variance: |q.k| has variance "
                           "about (1 - 2/pi) d_k; return the variance of the signed dot products",
    "dots_product_of_sums": "computing each dot product as the sum of q times the sum of k (q.sum(-1) * "
                            "k.sum(-1), or einsum('ni,nj->n')), which multiplies every q_i by every k_j, instead "
                            "of the sum of the entrywise products (q * k).sum(-1): its variance is about d_k^2 "
                            "(d_k when scaled) instead of d_k (1)",
    "entropy_with_temperature": "dividing the logits by sqrt(T) (or another size) inside softmax_entropy: the "
                                "entropy is of softmax(logits) as given; the scaling belongs to the caller",
    "table_seed_between_draws": "setting the seed again between the q and the k draws, so k's first row repeats "
                                "q; seed once per d, before drawing q and then k",
    "size_as_dim": "passing a size (d_k, a sequence length or n_heads) where an axis index is expected, as in "
                   "softmax(scores, d_k): a size was passed where an axis index is expected; the dim argument "
                   "names an axis (dim=-1 for the keys), not how long it is",
    "entropy_kl_div_arguments_swapped": "computing the entropy as ln T - KL(p || uniform) with the KL taken the "
                                        "wrong way round, KL(uniform || p) = sum u (log u - log p): F.kl_div(input, "
                                        "target) computes KL(target || exp(input)), so F.kl_div(log p, uniform) is "
                                        "that reversed one, not ln T - H(p); pass F.kl_div(log uniform, p), or "
                                        "compute -sum(p * log p) directly",
    "min_entropy": "the min-entropy -log(max_j p_j), from the largest weight alone, instead of the Shannon entropy "
                   "-sum_j p_j log p_j over every weight of the row: equal only for uniform rows",
    "entropy_unweighted": "summing or averaging -log p over the row without weighting each term by p (a uniform row of "
                          "t entries gives t log t, not log t; infinite where a p is 0 and kept) instead of the "
                          "entropy -sum p log p: multiply each -log p by its p before the sum",
    "table_one_draw": "drawing q and k with one torch.randn(6, d) call and slicing it, instead of randn(1, d) for q "
                      "and then randn(5, d) for k: torch's sampler fills a tensor of 16 or more numbers another way "
                      "than small ones, so the same seed gives other numbers; draw q, then k, as the lesson does",
    "answer_lesson_quiz_letter": "answering with the letter lesson 79's own quiz gives for the same question: the "
                                 "lesson lists the options in another order, so its letter (the right option there) "
                                 "is another option here, or the letter was chosen for what it says here, which is "
                                 "wrong too; read this notebook's options and give the letter of the right one",
    "probe_at_degenerate_size": "deciding a multiple-choice answer by an experiment run at d_k = 1, where 1, "
                                "sqrt(d_k), d_k and d_k^2 are all 1, so the options tie and the tie-break picks a "
                                "letter; run the probe at a size where the options differ (d_k = 64, say)",
    "table_rows_reversed": "building the rows in reverse order of dims (taking the d's with list.pop(), which "
                           "takes them from the end, or looping over reversed(dims) or a descending sort): each row "
                           "is right but the table is asked in the order of dims; loop for d in dims and append",
    "table_ignores_dims": "looping over a hard-coded list of d's instead of the dims argument: any other dims give "
                          "the default table; loop over dims",
    "reduction_tuple_as_tensor": "using what torch.max(x, dim=...) returns as if it were a tensor: given a dim, "
                                 "max, min, sort, topk, mode, median and kthvalue return a (values, indices) pair, "
                                 "which -, / and torch.exp refuse; take its .values (torch.max(x, dim, "
                                 "keepdim=True).values), unpack it (m, _ = ...), or use x.amax(dim, keepdim=True)",
    "variance_mean_swapped": "returning the mean of the dot products where their variance is asked: torch.var_mean "
                             "returns (var, mean) in that order, so `mean, var = torch.var_mean(dots)` names them "
                             "the wrong way round; unpack `var, mean = torch.var_mean(dots)` or use dots.var()",
    # naming31: blind28's kinds
    "additive_scores": "scoring with additive (Bahdanau-style) scores, the sum over the features of tanh(q + k), "
                       "instead of the dot product q.k: scaled dot-product attention has no additive score; compute "
                       "the scores as Q @ K.T / sqrt(d_k)",
    "mha_fused_qkv_split_order": "splitting the fused projection X @ [W_Q | W_K | W_V] (T, 3 * d_model) with the "
                                 "head axis before the three: reshape(T, n_heads, 3, d_k) (or (T, n_heads, 3 * d_k) "
                                 "cut in three) takes each head's query, key and value from the wrong columns, "
                                 "mixing W_Q, W_K and W_V; the columns are [Q | K | V], each n_heads blocks of d_k, "
                                 "so reshape(T, 3, n_heads, d_k)",
    "scaled_flag_as_factor": "using the boolean flag scaled as a number (dots * (scaled / sqrt(d_k)), or "
                             "dots * scaled / sqrt(d_k)): False is 0, so with scaled=False every dot product becomes "
                             "0 and the variance is 0 instead of about d_k; branch on the flag: "
                             "dots / sqrt(d_k) if scaled else dots",
    "elementwise_product": "multiplying elementwise (X * W) instead of the matrix product (X @ W): each projected "
                           "entry is a sum over d_model products; * runs only where the shapes happen to broadcast",
    "mha_output_projection_in_values": "multiplying W_O into the values before the heads are split (V = X @ W_V @ W_O) "
                                       "instead of after concatenating them: each head then attends over a slice of "
                                       "X W_V W_O, whose columns mix every head's values, which equals concat @ W_O "
                                       "only with one head; project the values with W_V alone and apply W_O once to "
                                       "the concatenated heads: torch.cat(heads, dim=-1) @ W_O",
    "entropy_gini": "computing the Gini impurity 1 - sum p^2 (a decision tree's split measure) instead of the "
                    "entropy -sum p ln p: both are 0 for a one-hot row, but they are other numbers everywhere else",
    "entropy_collision": "computing the collision (Renyi order-2) entropy -ln(sum p^2) instead of the Shannon "
                         "entropy -sum p ln p: the two agree only on one-hot and uniform rows; weight each -ln p by "
                         "its own p and sum: -(p * p.log()).sum(-1)",
    # naming33: blind32's kinds
    "draws_not_unit_variance": "drawing q and k entries whose variance is not 1 (a normal formula misremembered, "
                               "such as Box-Muller without its factor -2, sqrt(-ln u1) cos(2 pi u2), or uniforms "
                               "used as normals): Var(q.k) = d_k s^4 for entries of variance s^2, so the variances "
                               "come out s^4 d_k and s^4 instead of d_k and 1; draw standard normals with "
                               "torch.randn(n_samples, d_k, generator=generator) (Box-Muller: sqrt(-2 ln u1) "
                               "cos(2 pi u2))",
    "scaled_and_unscaled_pooled": "keeping both the scaled and the unscaled dot products when scaled=True (the "
                                  "unscaled append not in an else branch, or both concatenated): the variance is "
                                  "that of the mixture, about (1 + d_k) / 2 instead of 1; store each dot product "
                                  "once, dot / sqrt(d_k) if scaled else dot",
    "entropy_max_for_logsumexp": "using the row maximum where logsumexp belongs (H = max(z) - sum p z, or "
                                 "log p = z - max(z)): max(z) < logsumexp(z) = max(z) + ln sum exp(z - max(z)), so "
                                 "the entropy comes out too small (0 for a uniform row instead of ln T); use "
                                 "torch.logsumexp(z, dim=-1) or F.log_softmax",
    # naming34: blind33's kinds
    "output_transposed": "returning the output transposed, (A V)^T of shape (d_v, T_q), instead of A V of shape "
                         "(T_q, d_v): the values are mixed with the right weights, but each query's result is a "
                         "column (V^T A^T, V.T @ weights.T, an einsum written 'qk,kv->vq', or a .T left on the "
                         "result); return weights @ V (einsum 'qk,kv->qv'), one row per query",
    "draws_not_centred": "drawing q and k entries whose mean is not 0 (twelve U(0, 1) summed without the '- 6', "
                         "or uniforms summed without subtracting their mean): for entries of mean m and variance "
                         "s^2 each product q_i k_i has variance (s^2 + m^2)^2 - m^4 = s^4 + 2 s^2 m^2, 73 for the "
                         "twelve-uniform sum (m = 6, s = 1), so the variances come out about 73 d_k and 73 instead "
                         "of d_k and 1; subtract the mean (sum of twelve U(0, 1) minus 6), or draw standard normals "
                         "with torch.randn(n_samples, d_k, generator=generator)",
    "table_scores_all_equal": "making the five scores of a row all the same number, most often by drawing ONE key "
                              "and repeating it five times (torch.randn(1, d).expand(5, d), .repeat(5, 1), "
                              "torch.cat([k] * 5)) instead of five independent keys (or by a query or keys of "
                              "zeros): both stds are then 0 and both entropies ln 5 whatever d, so the table shows "
                              "nothing of the scale; draw k = torch.randn(5, d) and q = torch.randn(1, d)",
    "unscaled_variance_zero": "making every unscaled 'dot product' the same constant, so the unscaled variance is "
                              "exactly 0 while the scaled one is right: most often a conditional expression that "
                              "swallows the division, `dot / math.sqrt(d_k) if scaled else 1`, which Python reads "
                              "as `(dot / math.sqrt(d_k)) if scaled else 1` (every unscaled value is 1), or each dot "
                              "divided by itself; write dot / (math.sqrt(d_k) if scaled else 1), or an if statement "
                              "that divides only when scaled",
    # naming35: blind34's kinds
    "weights_returned_transposed": "returning the attention weights transposed, (T_k, T_q) with one column per query "
                                   "(worked key-major, softmax(K Q^T / sqrt(d_k), dim=0), and never transposed "
                                   "back, or a .T left on the weights), while the output is right: the output used "
                                   "the right weights, only the returned matrix has the wrong layout; return the "
                                   "(T_q, T_k) matrix, one row per query summing to 1 (weights_kq.T, or "
                                   "torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1))",
    "softmax_kernel_replaced": "dividing another function of the scores than exp (elu(s) + 1, relu(s), 1 + s, "
                               "exp of clamped scores...) by its row sum: the rows sum to 1, but only exp gives the "
                               "softmax; use torch.softmax(scores, dim=-1)",
    # round 47 (blind47's probes): a wrong letter from a broken experiment, the slip read off the cell
    "probe_dot_product_as_mean": "taking the mean of the coordinate products as the dot product: the mean divides "
                                 "q.k by d_k, so its variance is about 1/d_k, not d_k; sum the products "
                                 "((q * k).sum(dim=-1)), then assign the letter that fits as a string",
    "probe_against_fresh_multihead_attention": "checking against a freshly made nn.MultiheadAttention: it applies "
                                               "its own random query, key, value and output projections, so it "
                                               "never equals attention(X, X, X); compare with softmax(X X^T / "
                                               "sqrt(d)) X instead, then assign the letter as a string",
    "probe_sdpa_scale_given_d_k": "passing the head width (or its square root) as scale= to "
                                  "F.scaled_dot_product_attention: scale is the factor the scores are multiplied "
                                  "by (default 1/sqrt(d_k)); leave it out or pass 1 / math.sqrt(d_k)",
    "probe_grad_read_from_original": "reading .grad of the original tensor after the backward ran through a "
                                     ".detach() copy of it: the copy is cut off the original's graph, so the "
                                     "original's .grad stays None; read the copy's .grad (or pass the original)",
    "probe_kernel_not_normalised": "comparing attention with sum_j k(q, k_j) v_j, kernel weights never divided by "
                                   "their row sum (Nadaraya-Watson divides by sum_j k(q, k_j)); normalise each row "
                                   "of the kernel first, then compare",
    "linear_attention": "replacing softmax(Q K^T / sqrt(d_k)) by the product of two separate softmaxes, softmax(Q) "
                        "over the features times softmax(K) over the positions, transposed ('efficient' or linear "
                        "attention): its rows sum to 1, but it is an approximation, not scaled dot-product "
                        "attention; compute the scores Q @ K.T / math.sqrt(d_k) first and take one softmax of them "
                        "over the keys (dim=-1)",
    "entropy_probs_unnormalised": "weighting -log p by exp(logits) never divided by their sum (p = torch.exp(logits), "
                                  "only the log taken from log_softmax or the logits themselves): those weights do "
                                  "not sum to 1, so the entropy is wrong and overflows (inf, NaN) for large logits; "
                                  "use p = torch.softmax(logits, dim=-1), exp divided by its row sum, with log p = "
                                  "F.log_softmax(logits, dim=-1)",
    "table_stds_of_keys": "the table's standard deviations taken of the drawn key (or query) entries, k.std() and "
                          "(k / sqrt(d)).std(), instead of the five scores: those are about 1 and 1/sqrt(d) whatever "
                          "the scores do; raw_std is raw.std() and scaled_std is scaled.std(), with raw = "
                          "(q @ k.T)[0] and scaled = raw / sqrt(d)",
    "mha_heads_as_sequence": "folding the heads into the sequence axis, (T, d_model) reshaped to (T * n_heads, d_k) "
                             "(or the head slices stacked as extra rows), and running ONE attention over all "
                             "T * n_heads rows: every head's slice then attends to the other heads' slices too; "
                             "split into (n_heads, T, d_k) with .view(T, n_heads, d_k).transpose(0, 1), run "
                             "attention per head, and merge the heads back to (T, d_model)",
    # naming37: blind36's kinds
    "reads_global_not_parameter": "reading a global of the notebook inside the function instead of its own "
                                  "parameter (a name the body still uses after the parameter was renamed, or a "
                                  "value a cell computed for the lesson's example): the values passed in are never "
                                  "used, so the result is right only for the one input the global was made from and "
                                  "fails or is wrong everywhere else; compute it from the parameter",
    "entropy_shape_not_restored": "computing the entropy on the logits reshaped to rows, logits.reshape(-1, T), and "
                                  "returning the row entropies without reshaping them back: the values are right but "
                                  "a (..., T) batch comes back flattened to (N,) instead of logits.shape[:-1]; end "
                                  "with H.reshape(logits.shape[:-1]), or sum over dim=-1 of the logits as given",
    "table_scaled_by_observed_std": "dividing the table's raw scores by their own measured standard deviation (raw / "
                                    "raw.std(), standardising the five scores) instead of by sqrt(d): scaled_std is "
                                    "then exactly 1 in every row and H_scaled is not the lesson's; the scale is the "
                                    "constant the variance derivation gives, scaled = raw / math.sqrt(d)",
    "mha_kv_slice_next_head": "advancing the head's column counter (start += d_k) between the query slice and the "
                              "key/value slices: head h takes its keys and values from head h + 1's columns and the "
                              "last head's key/value slices are empty (a shape error); move the counter after all "
                              "three slices, or cut every slice with the same cols = slice(h * d_k, (h + 1) * d_k)",
    # naming38: blind37's kinds
    "view_as_transpose": "reshaping K to (..., d_k, T_k) with .view or .reshape as if that transposed it: the "
                         "shape is right but the memory is read in another order; use K.transpose(-2, -1)",
    "dot_product_coordinate_dropped": "leaving one of the d_k coordinates out of each dot product (range(1, d_k), "
                                      "copied from the maths' sum from i = 1 to d_k, skips index 0; range(d_k - 1) "
                                      "skips the last): each dot has d_k - 1 terms, so the variance is about d_k - 1 "
                                      "instead of d_k; Python counts from 0, so loop over range(d_k), or compute "
                                      "(q * k).sum(dim=-1)",
    # naming52: blind52's q7_answer_last_letter_as_a_plus_option_count
    "answer_letter_past_last_option": "counting one letter past the options: the option letters run A to D, and "
                                      "counting from A the n-th option is chr(ord(\"A\") + n - 1) (the fourth is "
                                      "chr(ord(\"A\") + 3), not + 4); fix the count, or write the letter you mean "
                                      "as a string",
    "answer_by_keyword_search": "picking the letter by searching the options' texts for a word: a word matches "
                                "text, not meaning, and a wrong option can hold it too (one that says the "
                                "opposite, 'has no ...'); read the options and assign the right one's letter as a "
                                "string",
    "answer_computed_wrong_choice": "letting code pick the letter, and the code picked a wrong option whatever you "
                                    "meant (max() over a dict compares its keys; \"DC\"[flag] takes the first item "
                                    "when the flag is False; a placeholder stays when a float == never holds): write "
                                    "the letter you chose as a string, q_answer = \"<your letter>\"",
    "mha_heads_share_one_buffer": "writing every head into the same tensor (one buffer made before the loop, filled "
                                  "with out=, copy_ or buf[...] = ...) and appending it each time: the list holds "
                                  "that one tensor n_heads times, so after the loop every head is the last one; "
                                  "make a new tensor per head (out_h = weights @ V_h) and append that",
    "table_std_holds_mean": "putting the scores' MEAN where their standard deviation is asked (torch.std_mean "
                            "returns (std, mean) and was unpacked as mean, std; or .mean() written for .std()): "
                            "unpack it as std, mean = torch.std_mean(x), or take x.std()",
    "entropy_mean_times_first_axis": "writing the sum over the keys as a mean times len(logits) (or "
                                     "logits.shape[0]): len() is the size of the FIRST axis, not the number of keys "
                                     "T, so a batch's entropies come out times shape[0] / T; sum over the last dim, "
                                     ".sum(dim=-1) (or multiply the mean by logits.shape[-1])",
    "entropy_slices_summed": "looping over the first axis only, with a helper that sums everything it is given: for "
                             "(A, B, T) logits each slice is a (B, T) block whose B row entropies are added into one "
                             "number, so the result has shape (A,) instead of (A, B); sum only over the last dim "
                             "(.sum(dim=-1)) and the loop is not needed",
    "mha_heads_overwritten": "assigning each head's share of the output inside the loop (out = head_h @ W_O[rows of "
                             "head h], or the buffer made anew in each pass) where the shares must be added: only the "
                             "last head's survives; start from zeros before the loop and add, out = out + head_h @ "
                             "W_O[h * d_k:(h + 1) * d_k]",
    # naming42: blind41's kinds
    "mha_heads_attend_within_token": "splitting the (T, n_heads, d_k) view along the token axis (unbind(0), "
                                     "indexing [t], or passing the view to attention without .transpose(0, 1)): each "
                                     "attention call gets one token's n_heads slices, so the heads of a token attend "
                                     "to each other instead of the tokens of a head; split with .view(T, n_heads, "
                                     "d_k).transpose(0, 1) (or .unbind(1)) so that each head is (T, d_k), and merge "
                                     "back to (T, d_model)",
    "table_return_in_loop": "ending the loop after its first pass (a `return` indented into the for body, or a "
                            "`break`): the table holds only the first d's row; put the return after the loop, at "
                            "the indentation of the `for`, so that every d gets its row",
    # naming43: blind42's kinds
    "mha_one_head_skips_projections": "skipping W_Q, W_K and W_V when n_heads == 1 (a shortcut such as `if n_heads "
                                      "== 1: return attention(X, X, X, d_model)[0] @ W_O`): one head is still "
                                      "attention over the projections X @ W_Q, X @ W_K, X @ W_V; drop the shortcut, "
                                      "the code for several heads already handles one",
    "table_rows_reordered": "building the rows in another order than dims (looping over set(dims), which does not "
                            "keep the order, or over sorted(dims)): each row is right but the table is asked in "
                            "the order of dims; loop `for d in dims` (dict.fromkeys(dims) drops repeats and keeps "
                            "the order)",
    "dots_cosine_times_matrix_norms": "multiplying the cosine similarity by norms taken without dim (q.norm(), "
                                      "k.norm(), torch.norm(q)): with no dim a norm is that of the WHOLE (n_samples, "
                                      "d_k) matrix, about sqrt(n_samples * d_k), not of each row, so every dot "
                                      "product is far too large; use q.norm(dim=-1) * k.norm(dim=-1), or simply "
                                      "(q * k).sum(dim=-1)",
    # naming45: blind44's kinds
    "entropy_clamp_log": "clamping the log-probabilities instead of the probabilities (torch.log(p).clamp(min=eps)): "
                         "every log p is at most 0, so the clamp turns each into +eps and every row's 'entropy' is "
                         "about -eps; clamp p inside the log, torch.log(p.clamp(min=eps)), or use "
                         "F.log_softmax(logits, dim=-1) for log p",
    "variance_power_right_associative": "dividing the scaled variance by d_k ** 0.25 instead of d_k: Python reads "
                                        "** right to left, so d_k ** 0.5 ** 2 is d_k ** (0.5 ** 2) = d_k ** 0.25, "
                                        "not (d_k ** 0.5) ** 2 = d_k, and the scaled variance comes out about "
                                        "d_k ** 0.75 instead of 1; write (d_k ** 0.5) ** 2, or simply divide by d_k",
    # naming46: blind45's kinds
    "draws_standardised_per_vector": "standardising each drawn vector along its own coordinates ((q - q.mean(dim=1)) "
                                     "/ q.std(dim=1), or layer_norm): torch.randn already gives N(0, 1) coordinates, "
                                     "and forcing every row to mean 0 takes out one degree of freedom, so Var(q.k) "
                                     "comes out about d_k - 1 instead of d_k; use the draws as they are",
    "output_buffer_width_of_queries": "making the output buffer as wide as the queries (torch.zeros_like(Q), "
                                      "torch.empty(Q.shape)): the output has one row per query but V's width d_v, "
                                      "which differs from d_k, so each row weights[i] @ V does not fit; build it as "
                                      "torch.zeros(Q.shape[0], V.shape[1]) or simply return weights @ V",
    "entropy_single_row_axis_kept": "keeping an axis of size 1 in the entropy of one row of logits: the 1-D row "
                                    "is made a batch of one (torch.atleast_2d, unsqueeze(0)) and that axis is never "
                                    "removed, so the result has shape (1,) instead of () (logits.shape[:-1]); "
                                    "squeeze it back out, or drop the promotion: log_softmax(dim=-1) and "
                                    ".sum(dim=-1) already work on any number of leading dims",
    "entropy_nan_guard_after_sum": "replacing a NaN entropy by 0 after the row sum (torch.nan_to_num(H)): a row where "
                                   "some probabilities underflow to 0 is NaN before the guard, so its whole "
                                   "entropy is set to 0, wrong whenever the mass is shared (two tied largest "
                                   "logits: ln 2); guard each term instead, p * log(p) taken as 0 where p == 0 "
                                   "(torch.special.entr, torch.xlogy) or use log_softmax",
    "entropy_size_one_axes_dropped": "dropping size-one axes of the entropy (H.squeeze() with no dim): logits of "
                                     "shape (B, 1, T) give (B,) instead of (B, 1); the result must keep "
                                     "logits.shape[:-1], so squeeze only the axis you added, or none",
    # naming48b: blind48's q2_draws_with_init_trunc_normal
    "draws_truncated_normal": "drawing q and k with torch.nn.init.trunc_normal_ (a weight initialiser) instead of "
                              "torch.randn: its bounds a=-2, b=2 are absolute, not in standard deviations, so the "
                              "entries are not standard normals (with std=1 the normal is cut at +-2: variance about "
                              "0.774 per entry, so Var(q.k) is about 0.6 d_k instead of d_k); draw q and k with "
                              "torch.randn(n_samples, d_k, generator=generator)",
    # naming48b: blind18's q1_bmm_bare_squeeze
    "attention_size_one_axes_dropped": "dropping size-one axes (a bare .squeeze() with no dim, after a torch.bmm "
                                       "on a batch axis you added or on the result): with one query the output "
                                       "comes back (d_v,) instead of (1, d_v) (squeezed scores: the weights "
                                       "(T_k,) too); squeeze only the axis you added (.squeeze(0)), or use "
                                       "Q @ K.T with no batch axis",
    "estimate_not_sampled": "returning a number that is not a sample variance of n_samples random draws (the expected "
                            "value returned, with or without noise, or n_samples not used): draw n_samples pairs "
                            "(q, k) from the generator, take each dot product, and return their variance",
    "entropy_guard_too_large": "a guard inside the log large enough to show (log(p + 1e-4)): it shifts every log p and "
                               "biases the entropy low; keep the guard tiny (1e-12, torch.finfo(p.dtype).tiny) or use "
                               "F.log_softmax, which needs none",
    # naming50: blind50's q2_dots_buffer_from_python_int_list_truncates
    "dots_made_integers": "storing the dot products as whole numbers (a buffer of Python ints such as "
                          "torch.tensor([0] * n_samples), which is int64, or int(), .long(), // 1, round of each): "
                          "every q.k loses its fraction, so the variance is that of the rounded numbers, not of q.k; "
                          "keep them as floats: dots = (q * k).sum(dim=-1), or a float buffer torch.zeros(n_samples)",
    # naming50: blind29's q2_coordinates_added_not_multiplied, blind27's q2_squared_distance_as_similarity
    "dots_coordinates_added": "adding q and k coordinate by coordinate ((q + k).sum(dim=-1)) instead of multiplying "
                              "them: the dot product is the sum of the products q_i k_i, (q * k).sum(dim=-1); a sum of "
                              "2 d_k independent normals has variance 2 d_k (2 scaled) instead of d_k (1)",
    "dots_squared_distance": "scoring each pair by the distance between q and k (|q - k|^2 = ((q - k) ** 2).sum(-1), "
                             "a Gaussian kernel's, or |q - k|) instead of the dot product q.k = (q * k).sum(dim=-1): "
                             "the squared distance has variance about 8 d_k, not d_k",
    # naming53: blind53's q8_fused_qkv_chunked_along_tokens
    "fused_qkv_chunked_wrong_axis": "cutting the fused projection X @ [W_Q | W_K | W_V], (T, 3 * d_model), in three "
                                    "along the tokens: .chunk(3) (or torch.tensor_split(..., 3)) splits dim 0, the "
                                    "rows, by default, so Q, K and V are thirds of the sequence, all from W_Q's "
                                    "columns; split the features: Q, K, V = (X @ W_QKV).chunk(3, dim=-1)",
    # naming53: blind53's q2_dots_by_polarisation_identity_halved
    "dots_polarisation_misdivided": "computing q.k from norms with the polarisation identity divided by 2 (or not "
                                    "divided) instead of 4: q.k = (|q + k|^2 - |q - k|^2) / 4, so / 2 gives 2 q.k and a "
                                    "variance 4 times too large (16 times undivided); divide by 4, or compute "
                                    "q.k directly: (q * k).sum(dim=-1)",
    # naming54: blind54's q1_logcumsumexp_for_logsumexp
    "softmax_running_normaliser": "dividing each exponential by a running sum over the keys up to it "
                                  "(torch.logcumsumexp, or exp(s).cumsum(dim=-1)) instead of its row's total: the "
                                  "first weight of every row is 1 and the rows sum to more than 1; normalise by the "
                                  "whole row: torch.logsumexp(scores, dim=-1, keepdim=True), or "
                                  "exp(s).sum(dim=-1, keepdim=True), or F.softmax(scores, dim=-1)",
    # naming54: blind54's q2_dot_taken_as_norm_of_products
    "dots_norm_of_products": "taking the length of the elementwise products (torch.linalg.vector_norm(q * k, "
                             "dim=-1), (q * k).norm(dim=-1), its square or its L1 norm) for the dot product: a norm "
                             "adds up sizes, is never negative and its variance does not grow like d_k; q.k is the "
                             "plain sum of the products: (q * k).sum(dim=-1)",
    # naming54: blind54's q4_table_scores_as_k_at_q_row_zero
    "table_scores_row_of_transpose": "computing the scores as k @ q.T, shape (5, 1), and keeping its row [0]: that is "
                                     "the first key's score alone (its std is NaN, the softmax of one score has "
                                     "entropy 0); compute q @ k.T, shape (1, 5), and take its row: "
                                     "raw = (q @ k.T)[0]",
    # naming55: blind55's q1_scores_by_linalg_vecdot_pair_rows_not_all_pairs
    "scores_paired_rows": "scoring each query against its own key only (torch.linalg.vecdot(Q, K), (Q * K).sum(dim=-1), "
                          "einsum('id,id->i')): that is one score per row, query i with key i, so the weights lose "
                          "their key axis and T_q != T_k cannot even be paired; every query needs a score with every "
                          "key: scores = Q @ K.T, shape (T_q, T_k)",
    # naming55: blind55's q1_scores_into_preallocated_default_float32_out_buffer (the text of attention-pipeline's)
    "out_buffer_default_dtype": "making the out= buffers with torch.empty (or zeros) in the default dtype, float32: "
                                "matmul(..., out=buf) needs buf in the inputs' dtype, so float64 or float16 inputs "
                                "crash; make the buffer with dtype=X.dtype (torch.empty(..., dtype=X.dtype, "
                                "device=X.device)), or drop out= and return X @ W",
    # naming55: blind55's q2_sum_of_iid_terms_taken_as_d_k_times_one_term
    "dots_one_term_times_d_k": "computing q.k as d_k times ONE product q_1 k_1 instead of the sum of d_k independent "
                               "products: Var(d_k X) = d_k^2 Var(X), while a sum of d_k independent terms has "
                               "Var(X_1 + ... + X_d_k) = d_k Var(X), so the variance comes out near d_k^2 (d_k "
                               "scaled); draw q and k with d_k entries each and add up all the products: "
                               "(q * k).sum(dim=-1)",
    # naming55: blind55's q4_table_scores_computed_in_bfloat16
    "table_low_precision": "computing the table in a low-precision dtype (q and k cast to bfloat16 or float16): they "
                           "keep only 3 or 4 significant digits, so the stds and entropies drift from the lesson's "
                           "float32 experiment; keep the draws in torch.randn's default float32",
    # naming55: blind55's q8_heads_cut_by_unfold_with_step_one
    "mha_heads_overlapping_windows": "cutting the heads as overlapping windows of d_k columns (Tensor.unfold(1, d_k, "
                                     "1), or a slice [s:s + d_k] for every start s): a step of 1 gives d_model - d_k + "
                                     "1 heads instead of n_heads, and their concatenation is far wider than d_model; "
                                     "step by d_k (unfold(1, d_k, d_k), or columns h * d_k to (h + 1) * d_k)",
    # naming55: blind55's q8_head_weight_blocks_viewed_without_permute
    "mha_weight_blocks_viewed": "cutting each head's weight matrix with W.view(n_heads, d_model, d_k): that takes "
                                "consecutive chunks of W's memory (whole rows), not the column block "
                                "W[:, h * d_k:(h + 1) * d_k] that head h uses; slice the columns, or "
                                "W.view(d_model, n_heads, d_k).permute(1, 0, 2)",
    # naming57: blind57's q4_table_rows_list_created_once_at_cell_level
    "state_shared_across_calls": "creating the table's list once outside the function (rows = [] at cell level, or "
                                 "a default argument rows=[]) and appending to it in every call: the list outlives "
                                 "the call, so each call returns the rows of all earlier calls followed by its own; "
                                 "create the list inside the function (rows = [] as its first line) so that every "
                                 "call starts empty",
    # naming57: blind57's q8_heads_append_dedented_after_loop
    "append_after_loop": "putting the append (or +=) right after the loop instead of in its body (indented one "
                         "level too little): the loop runs every pass, but only the value its last pass left is "
                         "appended, once, so the list holds one item (the last head's output) instead of one per "
                         "pass; indent the append into the loop's body",
    # naming57: blind57's q1_return_indented_into_query_loop (the kind of sdpa-from-scratch's return_inside_loop)
    "attention_return_in_loop": "indenting the `return` into the loop over the queries (the last line of the for body) "
                          "instead of below it: a function returns the moment it reaches a return, so it stops "
                          "during the loop's first pass and only the first query's row comes back, (1, d_v) and "
                          "(1, T_k) instead of (T_q, d_v) and (T_q, T_k). Dedent the return one level, to just "
                          "after the loop",
    # naming57: blind57's q8_weights_unpacked_into_name_attention
    "name_shadows_function": "assigning to the name of a function the body also calls (out_h, attention = "
                             "attention(...)): an assignment anywhere in a function makes that name local for the "
                             "whole function, so the call reads a local that has no value yet and raises "
                             "UnboundLocalError; give the result another name (out_h, w = attention(...), or _)",
    # naming57: blind57's q4_entropy_rows_viewed_with_lessons_five_keys
    "entropy_rows_hard_coded": "cutting the entropy terms into rows of a fixed length (terms.view(-1, 5), the "
                               "lesson's 5 keys) instead of the length of the last axis: with any other number of "
                               "logits per row the rows are cut in the wrong places, the shape is wrong, or the view "
                               "fails; sum the terms over dim=-1 as they are (terms.sum(dim=-1)), with no reshape",
    # naming58: blind58's q1_keys_beyond_query_length_masked_as_padding
    "padding_mask_past_queries": "masking the keys past the last query (scores[:, T_q:] = -inf, reading T_k > T_q as "
                                 "padded keys): every query then gives keys T_q to T_k - 1 weight 0 and spreads its "
                                 "weight over the first T_q keys only; in cross-attention T_q and T_k may differ and "
                                 "every key takes part, so drop the mask and take the softmax over all T_k scores",
    # naming58: blind58's q2_scale_with_bessel_d_k_minus_one
    "scale_d_k_minus_one": "dividing the dot products by sqrt(d_k - 1) instead of sqrt(d_k), the n - 1 of the "
                           "unbiased variance estimator carried over to the scale: the sum of d_k products has "
                           "variance d_k (not d_k - 1), so the scaled variance comes out d_k / (d_k - 1) instead of "
                           "1; the n - 1 belongs only to .var() over the samples, divide the dots by math.sqrt(d_k)",
    # naming58: blind58's q4_entropy_reported_as_kl_from_uniform
    "entropy_as_kl_from_uniform": "returning ln T - H(p) (sum of p ln p plus ln T, the divergence KL(p || uniform) of "
                                  "the row from the uniform one) instead of the entropy H(p) = -sum of p ln p: a "
                                  "uniform row gives 0 instead of ln T and a one-hot row ln T instead of 0; return "
                                  "-(p * log p).sum(dim=-1), without the ln T",
    # naming58: blind58's q8_tokens_read_as_batch_each_attends_only_itself
    "mha_tokens_attend_only_themselves": "running attention on each token alone (X read as a batch of one-token "
                                         "sequences, Q[t:t + 1] with K[t:t + 1] and V[t:t + 1]): a softmax over one key "
                                         "is 1, so every token attends only to itself and the result is X @ W_V @ "
                                         "W_O, with no mixing across tokens; pass each head's whole (T, d_k) slices "
                                         "of Q, K and V to attention so that every query sees all T keys",
    # naming59: blind59's q8_unsliced_values_concat_patched_by_keeping_first_columns
    "mha_values_not_sliced": "passing the whole V (all d_model columns) to every head's attention while Q and K are "
                             "sliced per head: each head mixes full-width values, the concatenation comes out (T, "
                             "n_heads * d_model), and cutting it back to d_model columns keeps only head 0's output, "
                             "the other heads' attention is thrown away; give each head its own columns of V too "
                             "(V[:, h * d_k:(h + 1) * d_k]), then the concatenation is (T, d_model) with no cut",
    # naming59: blind59's q1_row_sum_broadcast_error_patched_by_repeat_view
    "attention_row_totals_tiled": "making the row totals (one per query, a sum without keepdim) the shape of the "
                                  "scores by tiling them (totals.repeat(T_k).view(T_q, T_k), expand then reshape): "
                                  "the totals are laid out query after query along each row, so entry (i, j) is "
                                  "divided by another row's total and the rows no longer sum to 1; keep the reduced "
                                  "axis instead, e / e.sum(dim=-1, keepdim=True), so that row i is divided by its own total",
    # naming59: blind59's q4_entropy_exp_overflow_patched_by_clamping_logits
    "entropy_logits_clamped": "clamping the logits (logits.clamp(-20, 20)) to keep exp from overflowing: every logit "
                              "past the bound becomes the bound, so large, different scores are made equal and the "
                              "distribution of a saturated row is flattened (logits 85 and 45 give ln 2 instead of "
                              "about 0); subtract each row's maximum before exp (it changes nothing in the softmax), "
                              "or use F.softmax / F.log_softmax",
    # naming59: blind59's q1_row_loop_index_error_patched_by_clipping_to_shorter_length
    "output_rows_loop_clipped": "filling the output rows in a loop that stops at the shorter length (range(min(T_q, "
                                "T_k)), or range(T_k)): with more queries than keys the rows T_k .. T_q - 1 are never "
                                "written and stay zero; there is one output row per QUERY, so loop over range(T_q), "
                                "or compute them all at once, weights @ V",
    # naming59: blind59's q4_table_one_based_index_error_patched_by_clipping_index
    "table_dims_one_based": "walking the dims with 1-based positions (range(1, len(dims) + 1), dims[i]) and clipping "
                            "the index that ran past the end: the first d is skipped and the last one is done twice "
                            "(rows for dims[1:] and dims[-1] again); Python counts from 0, so loop `for d in dims`",
    # naming59: blind59's q8_one_based_heads_empty_slice_patched_by_clipping_start
    "mha_heads_numbered_from_one": "numbering the heads from 1 (range(1, n_heads + 1), columns h * d_k ..) and "
                                   "clipping the start of the slice that ran past d_model: head 0's columns are never "
                                   "used, the last head's columns are used twice, and every head's output sits one "
                                   "block to the left of its place; loop over range(n_heads), head h taking columns "
                                   "h * d_k to (h + 1) * d_k",
    # naming60: blind60's q1_square_scores_mirrored_as_if_symmetric
    "scores_mirrored_as_symmetric": "building square scores (T_q == T_k) from one triangle of Q K^T mirrored to the "
                                    "other, as if the score matrix were symmetric: it is only when Q is K, so every "
                                    "score below the diagonal becomes q_j.k_i instead of q_i.k_j and the weights and "
                                    "output are wrong for ordinary square inputs; drop the shortcut and compute "
                                    "Q @ K.T in full for every shape",
    # naming60: blind60's q1_queries_in_two_halves_odd_last_row_left_zero
    "query_rows_left_uncomputed": "computing the queries in pieces that do not reach the last row(s) (two halves of "
                                  "T_q // 2 rows, chunks of a fixed size, range(T_q - 1)) into a zero-filled result: "
                                  "with an odd or unlucky T_q the last query rows are never computed and their weights "
                                  "and output stay 0 (with one query nothing is computed); let the last piece run to "
                                  "T_q (slice start:T_q, or torch.split, which keeps the remainder), or compute all "
                                  "rows at once",
    # naming60: blind60's q1_output_matmul_into_buffer_cached_per_shape
    "attention_result_reused": "returning a tensor that outlives the call (the output written with out= into a buffer "
                               "kept at module level per shape, or a result cached between calls): the next call with "
                               "inputs of the same shape overwrites the tensor an earlier caller still holds (in "
                               "multi-head attention every head's output becomes the last head's), or returns an "
                               "earlier value; allocate the output anew on every call (weights @ V, no out= and no "
                               "cache)",
    # naming60: blind60's q8_projections_in_bfloat16_cast_back
    "mha_projections_low_precision": "computing the projections X @ W_Q, X @ W_K, X @ W_V in a low-precision dtype "
                                     "(bfloat16 or float16) and casting them back: bfloat16 keeps about 3 significant "
                                     "digits, so the output is off by about 1e-2 relative, far outside float32 or "
                                     "float64 tolerances; keep the projections in the input's dtype",
    # naming60: blind60's q8_batched_scale_tensor_cached_per_dtype
    "mha_scale_kept_across_calls": "keeping the scale 1/sqrt(d_k) between calls (a module-level cache filled on the "
                                   "first call, keyed on the dtype or nothing at all): a later call with another head "
                                   "width d_model // n_heads reuses the first call's scale; compute 1/sqrt(d_k) from "
                                   "this call's d_k on every call (it costs nothing)",
    # naming60: blind60's q4_entropy_identity_max_shift_not_added_back
    "entropy_shift_not_added_back": "using H = logsumexp(s) - sum p s with the logsumexp taken of the max-shifted "
                                    "logits (s - max) but the max never added back, while sum p s uses the unshifted "
                                    "logits: every entropy is off by minus its row's largest logit; add the max back "
                                    "(lse = m + log sum exp(s - m), or torch.logsumexp(s, -1)), or shift both terms",
    # naming60: blind60's q4_entropy_fast_path_zeros_whole_batch_when_any_row_saturated
    "entropy_fast_path_whole_batch": "a shortcut that returns zeros for the WHOLE batch as soon as one row's softmax "
                                     "is one-hot (if (p.max(-1) == 1).any(): return zeros): the other rows have a real "
                                     "entropy and lose it; drop the shortcut (p * log p is 0 there already with a "
                                     "guarded log), or apply it per row with torch.where",
    # naming60: blind60's q2_draws_in_float16_variance_summed_in_float16_overflows
    "variance_float16_overflow": "drawing or summing in float16 (or bfloat16): float16's largest number is 65504, and "
                                 "the sum of n_samples squared dot products (about n_samples * d_k) passes it, so the "
                                 "variance becomes inf; draw in the default float32 (or float64) and take dots.var() "
                                 "there",
    # naming61: blind61's q1_scores_divided_with_rounding_mode_trunc
    "scores_division_rounded": "dividing the scores with torch.divide (or torch.div, Tensor.div) and rounding_mode="
                               "'trunc' or 'floor': the rounding applies to float tensors too, not "
                               "only to integer ones, so every scaled score becomes a whole number (most of them 0) "
                               "and the weights come out nearly flat; divide plainly, Q @ K.T / math.sqrt(d_k)",
    # naming61: blind61's q2_einsum_implicit_mode_sums_the_sample_index
    "dots_einsum_implicit_summed": "writing the dot products as an einsum without '->' (torch.einsum('nd,nd', q, k)): "
                                   "in implicit mode the output keeps only the labels that appear once, so a label "
                                   "written in both inputs is summed, the sample index n as well as d, and the result "
                                   "is one number whose variance is NaN; give the output explicitly, "
                                   "torch.einsum('nd,nd->n', q, k) (or (q * k).sum(dim=-1))",
    # naming61: blind61's q8_head_buffer_from_expand_written_in_place
    "mha_buffer_expanded": "making the buffer the heads are written into with .expand (X.new_zeros(1, d_model)"
                           ".expand(T, d_model)): expand allocates nothing, it returns a view whose rows all share one "
                           "row of memory, so writing a head into it raises; allocate the buffer with "
                           "X.new_zeros(T, d_model) (or torch.zeros), or collect the heads in a list and torch.cat "
                           "them along dim=-1",
    # naming61: blind61's q8_heads_split_with_dot_T_on_three_dims
    "mha_heads_dot_T": "moving the heads to the front with .T on the (T, n_heads, d_k) view: on a tensor of more "
                       "than two axes .T reverses all of them, giving (d_k, n_heads, T), so attention runs over the "
                       "features as a batch with the heads as tokens; swap only the first two axes, "
                       ".transpose(0, 1) to (n_heads, T, d_k), and back the same way before the reshape to "
                       "(T, d_model)",
    # naming62: blind62's conventions carried over from another source
    "attention_batch_axis_at_dim_one": "adding the batch axis at dim 1 (Q.unsqueeze(1), Q[:, None]: "
                                       "nn.MultiheadAttention's sequence-first (L, N, E)) and then multiplying with @: "
                                       "matmul multiplies the LAST two dims and batches over the leading ones, so "
                                       "each token becomes its own batch of one key and attends only to itself "
                                       "(the output is V; with T_q != T_k the batch dims do not even match); the "
                                       "inputs here are 2-D (T, d), so add no axis, or add it at dim 0 (batch-first)",
    "mask_polarity_inverted": "filling where a keep mask is True: masked_fill(mask, -inf) sets the True entries, "
                              "so a mask with True = attend (Hugging Face's attention_mask, SDPA's boolean "
                              "attn_mask) blocks exactly the real keys, and with every key real every score is -inf "
                              "and the softmax is NaN; fill where the mask is False, masked_fill(~mask, "
                              "float('-inf')), or, with no padding, drop the mask",
    "option_filled_before_its_test": "filling in an option's default (if scale is None: scale = ...) before a "
                                     "later test reads whether it was given (scaled or scale is not None): after "
                                     "the fill it is never None, so the test is always true and the plain call "
                                     "scales too; decide from the option as passed first (given = scale is not "
                                     "None) and fill its default after, or test only the flag",
    "scale_option_default_on_top": "an option of your own (a temperature or scale parameter) whose default is "
                                   "sqrt(d_k), applied on top of the 1/sqrt(d_k) scale: the plain call divides the "
                                   "scores by d_k, so the weights are too flat; default it to 1 (no change), or use "
                                   "it in place of the 1/sqrt(d_k) scale, not beside it",
    "default_mask_hides_every_key": "building the mask used when none is given as all False (torch.zeros) while "
                                    "the code reads True as keep: masked_fill(~mask, -inf) then hides every key, "
                                    "every score is -inf and the softmax is NaN on the plain call; build the "
                                    "default with torch.ones (keep every key), or skip the masking when mask is "
                                    "None",
    "scores_low_precision": "computing the scores Q @ K^T in bfloat16 (or float16), as JAX does at its default "
                            "precision on a TPU, and casting back: bfloat16 keeps about 3 significant digits, and "
                            "casting back does not restore the lost ones; keep the matmul in the inputs' dtype "
                            "(no .to(torch.bfloat16) / .half() in the score product)",
    "out_of_place_result_dropped": "calling an out-of-place tensor method as a statement (x.index_copy(...), "
                                   "x.index_add(...), x.scatter(...), x.masked_fill(...), without the trailing "
                                   "underscore): it returns a NEW tensor and leaves x unchanged, like most torch "
                                   "methods (unlike NumPy's np.put), so the result is thrown away; use the "
                                   "in-place form (index_copy_) or assign it, x = x.index_copy(...)",
    "mha_values_length_heads_layout": "keeping the values in Flax's [length, heads, head_dim] layout (T, n_heads, "
                                      "d_k) while the weights are head-first (n_heads, T_q, T_k): weights @ V_h "
                                      "batches the heads of the weights against the tokens of V_h, so it raises "
                                      "(or, when T == n_heads, mixes the wrong rows); make the values head-first "
                                      "too, V_h.transpose(0, 1), or contract them with the layout named, "
                                      "torch.einsum('hqk,khd->qhd', weights, V_h)",
    # naming63: blind63's optimisations that changed the result
    "online_softmax_rescale_wrong": "rescaling the running sum and accumulator of a blocked (online, FlashAttention-"
                                    "style) softmax with the wrong factor: when a later block raises a row's "
                                    "maximum from m to m_new, what was summed so far was taken relative to m and "
                                    "must be multiplied by exp(m - m_new) (at most 1) before the new block is added; "
                                    "exp(m_new - m) inflates the earlier keys (and leaving it out keeps them at the "
                                    "old maximum), so the output is a wrong mix and the weights do not sum to 1; "
                                    "use alpha = torch.exp(m - m_new) for both l and acc (an online entropy's "
                                    "second running sum t, of s exp(s - m), needs the same factor as l)",
    "mha_fused_qkv_rows_stacked": "fusing the three projections with torch.cat([W_Q, W_K, W_V]) (dim 0 by default), "
                                  "which stacks the weights along the rows, (3 d_model, d_model), the layout of "
                                  "nn.MultiheadAttention's in_proj_weight, made for W @ x; X @ W needs them side "
                                  "by side, (d_model, 3 d_model): torch.cat([W_Q, W_K, W_V], dim=1), then split "
                                  "X @ W_QKV into three along dim 1",
    # naming64: blind64's q1_score_buffer_square_sized_from_query_count
    # the scan after round 65: blind35's value loop run to T_q (scores right) is the same slip, so the text says both
    "scores_square_from_query_count": "running the key axis to the number of queries (a (T, T) score buffer with T = "
                                      "Q.shape[0], or a loop over the keys or over the value rows run to T), as if "
                                      "there were as many keys as queries (true in the lesson's trace and in "
                                      "self-attention): with more keys the extra keys are left out, with fewer an index "
                                      "runs past the last key; the key axis has T_k = K.shape[0] entries: size buffers "
                                      "and loops over keys or values from it, or compute the scores at once, Q @ K.T",
    # naming64: blind64's q1_output_reshaped_to_the_queries_shape
    "output_reshaped_to_query_shape": "reshaping the output to Q's shape (reshape(Q.shape), view_as(Q)): the output "
                                      "has one row per query and d_v columns (V's width), which equals d_k only in the "
                                      "lesson's trace, so for any d_v != d_k the reshape fails; return weights @ V "
                                      "without reshaping it, shape (T_q, d_v)",
    # naming64: blind64's q4_table_loop_bound_four_from_the_default_dims
    "table_rows_fixed_count": "looping a fixed number of times (for i in range(4), the length of the default dims) "
                              "instead of over the dims given: with fewer dims dims[i] is out of range, with more the "
                              "rows after the fourth are missing; loop over the dims themselves, for d in dims (or "
                              "range(len(dims)))",
    # naming64: blind64's q1_query_rows_looped_over_the_traces_three_tokens
    "size_fixed_from_example": "typing a size of the example as a number (for i in range(3), the lesson trace's three "
                               "tokens) where it must come from the inputs: the loop then covers that many queries (or "
                               "keys) whatever the input has, so with more the rest are missing and with fewer the "
                               "code fails with an index error; take the count from the tensors (range(Q.shape[0]) "
                               "for the queries, K.shape[0] for the keys), or compute all rows at once, Q @ K.T",
    # naming64: blind64's q4_entropy_keepdim_then_first_element_for_one_row
    "entropy_first_row_only": "indexing [0] after the row sum to get one number (H[0]), which is right only for one "
                              "1-D row like the table's scores: for a batch of rows it keeps the first row's entropy "
                              "and drops the others; return the sum over dim=-1 as it is (no keepdim, no [0]), one "
                              "entropy per row, shape logits.shape[:-1]",
    # naming64: blind64's q8_batched_heads_bare_squeeze_drops_single_head_axis
    "mha_bare_squeeze_drops_heads": "removing the batch axis of the batched heads (1, n_heads, T, d_k) with a bare "
                                    ".squeeze(), which drops every axis of size 1: with one head the head axis goes "
                                    "too (with one token the token axis), so the transpose(0, 1) that follows swaps "
                                    "the wrong axes and the reshape scrambles the heads; squeeze only the batch axis, "
                                    "squeeze(0)",
    # naming65: blind65's kinds (leftovers from debugging and unfinished edits)
    "parameters_overwritten_in_body": "assigning a parameter anew at the top of the function before it is read (lines "
                                      "such as torch.manual_seed(42); Q = torch.randn(3, d_k) pasted from the trace "
                                      "cell while debugging): the queries and keys passed in are never used, so the "
                                      "weights are the same whatever the input, and wrong (or a shape or dtype crash) "
                                      "on every input but the pasted one; delete those lines and compute from the "
                                      "parameters",
    "helper_head_count_default": "calling a helper that cuts the heads without passing it n_heads, so the default "
                                 "of its def (def _split_heads(M, n_heads=4), left from a demo) is used: the "
                                 "projections are always cut into that many heads, which is right only when "
                                 "n_heads equals that default; pass n_heads at every call (and drop the default, so "
                                 "that a call without it raises)",
    "name_assigned_nowhere": "reading a name that nothing assigns any more: neither the function nor any cell of "
                             "the notebook binds it (it is left from a rename, or from a refactor that removed the "
                             "line that made it), so every call that reaches that line raises NameError; read the "
                             "variable that holds that value now, or restore the line that assigned it",
    # naming66
    "attention_single_key_value_once": "returning the value row itself in a branch for one key (T_k == 1): every "
                                       "weight is 1, so every query's output is that row, but V is (1, d_v) and the "
                                       "output must be (T_q, d_v), one row per query; return "
                                       "V.expand(Q.shape[0], -1) (or drop the branch: softmax over one key gives "
                                       "weights of 1 and weights @ V repeats the row)",
    "own_assert_value_width": "checking with an assert that the values are as wide as the keys (V.shape[-1] == "
                              "d_k): V is (T_k, d_v) and d_v may differ from d_k (only the queries and keys must "
                              "share the width d_k); check only Q.shape[-1] == K.shape[-1] == d_k",
    "variance_floor_divided": "dividing the variance by d_k with floor division (var // d_k), which rounds the "
                              "quotient down to a whole number: 0.0 whenever the sample variance falls just under "
                              "d_k, 1.0 just over; divide with / (var / d_k)",
    "entropy_shift_by_mean": "shifting the logits by the row MEAN before exp: the shift cancels in the softmax, but "
                             "it does not stop exp from overflowing when the largest logit is far above the mean "
                             "(exp(375) is inf in float32, inf / inf is NaN); subtract the row max "
                             "(logits.amax(dim=-1, keepdim=True)) or use torch.log_softmax",
    "entropy_one_row_item": "returning a Python number (.item() or float()) for one row of logits: a (T,) input "
                            "must give a 0-d tensor (shape logits.shape[:-1] = ()), of the logits' dtype; return the "
                            "tensor (drop the .item(), or the one-row branch: the dim=-1 path already handles one row)",
    "table_width_one_squeezed": "dropping the query's row axis with a bare .squeeze() (no dim): at d = 1 it removes "
                                "the width axis too, q becomes a 0-d tensor and q.squeeze() @ k.T raises; squeeze "
                                "only the row axis (q.squeeze(0)) or index the product ((q @ k.T)[0])",
    "mha_token_axis_squeezed": "squeezing the input (X.squeeze(0), meant for a (1, T, d_model) batch): a "
                               "(T, d_model) input with one token (T = 1) loses its token axis, X becomes "
                               "(d_model,) and the code after it raises; X is (T, d_model) here: leave it as it is "
                               "(or squeeze only a 3-D input, if X.dim() == 3)",
    # naming67
    "answer_read_under_other_key": "reading the answer from a dict of letters under another question's key "
                                   "(q6_answer = my_letters[\"q5\"], a key left from the copied cell): the letter "
                                   "is the other question's, and the same letter means another choice here; read "
                                   "this question's own entry (my_letters[\"q6\"])",
    "result_assigned_not_returned": "computing the function's result into a variable (output = ... @ W_O) or as "
                                    "a bare expression on its last line without returning it: a function with no "
                                    "`return` gives None on every call; end it with `return output`",
    # naming69
    "variance_count_unbracketed": "writing the unbiased variance as sum / n - 1 without brackets: Python divides "
                                  "by n first and then subtracts 1, so the result is the biased variance minus 1 "
                                  "(negative for a small spread); write sum / (n - 1), or use .var()",
    "variance_dots_kept_between_calls": "collecting the dot products in a list made once at cell level (all_dots = "
                                        "[] above the def) and never emptied: every call appends its dots to those "
                                        "of all earlier calls and takes the variance over them all, so only the "
                                        "first call is right (later ones mix in other widths and unscaled dots, and "
                                        "generators seeded alike give different results); make the list inside "
                                        "the function (all_dots = [] as its first line), or compute the dots as one "
                                        "tensor (q * k).sum(-1)",
    "mha_head_counted_twice": "adding one head's term twice in the output projection: the sum over the heads of "
                              "head_h @ W_O[h * d_k:(h + 1) * d_k] is started from one head's term (result = "
                              "heads[0] @ W_O[:d_k]) and the loop then runs over every head, that one included; "
                              "start the sum from zeros (torch.zeros(T, d_model)) or loop over the other heads only",
    "mha_assert_token_count": "checking with an assert that the number of tokens is divisible by n_heads "
                              "(X.shape[0] % n_heads: the rows of X) where d_model must be: X is (T, d_model) and "
                              "any number of tokens T is valid, the heads split the d_model columns; check "
                              "X.shape[1] % n_heads == 0 (or X.shape[-1])",
    # naming70
    "mha_split_points_as_sizes": "giving torch.split the positions where the heads start or end (split points d_k, "
                                 "2 d_k, ..., as np.split or torch.tensor_split take them) where it takes the widths "
                                 "of the pieces: the pieces are d_k, 2 d_k, ... wide, whose sum is not d_model (torch "
                                 "raises) or, where they happen to add up to it (3 heads), pieces of unequal widths; "
                                 "use Q.split(d_k, dim=-1) (every piece d_k wide), or torch.tensor_split(Q, points, "
                                 "dim=-1) for points",
    # naming71: blind71's q1_output_buffer_cached_by_shape_addmm_without_beta_zero
    "output_accumulated_across_calls": "adding each call's result onto a tensor kept between calls instead of "
                                       "overwriting it (a buffer cached per shape filled with out.addmm_(w, V), whose "
                                       "default beta=1 keeps what the buffer holds, or out += w @ V): only the first "
                                       "call of a shape is right, every later one returns the sum of all the earlier "
                                       "results of that shape; allocate the output anew on every call (weights @ V), "
                                       "or overwrite the kept buffer (torch.matmul(w, V, out=buf), or addmm_ with "
                                       "beta=0)",
    # naming71: blind71's q2_chunked_products_last_partial_chunk_left_zero
    "sample_chunks_tail_left_zero": "drawing the samples in chunks of a fixed size into a zero-filled buffer with a "
                                    "loop that visits only full chunks (range(0, n - chunk + 1, chunk)): the last "
                                    "n % chunk samples are never drawn and stay 0, so the variance is taken over "
                                    "real dot products mixed with zeros and comes out too small (0 when n is below "
                                    "one chunk); let the last chunk run to n (stop = min(start + chunk, n), over "
                                    "range(0, n, chunk)), or draw all n pairs at once",
    # naming71: blind71's q8_projections_cached_by_input_shape
    "results_cached_by_shape": "keeping results between calls in a cache keyed on the input's shape (or dtype, or "
                               "n_heads), not on its values: a later call with another input of the same shape gets "
                               "back what the first input gave (its projections, or its output); compute them from "
                               "this call's inputs on every call, or reuse a cached value only where torch.equal "
                               "says the input (and the weights) are the same",
    # naming71: blind71's q8_query_row_chunks_end_written_as_inclusive_index
    "slice_end_inclusive": "ending each chunk of query rows one row early (slice(start, stop - 1), or start:stop - 1, "
                           "where stop is already exclusive: Python's slice end is never included): the last row of "
                           "every chunk is never computed and stays 0 in the zero-filled result, and a chunk of one "
                           "row is sliced to none (a max or softmax over no rows raises); slice each chunk as "
                           "slice(start, min(start + chunk, T))",
    # naming72: blind73's q1_dtype_whitelist_from_flash_kernel_omits_float64
    "own_assert_rejects_float64": "checking with an assert that the inputs have one of a few dtypes (a whitelist such "
                                  "as float16, bfloat16 and float32, copied from a fused kernel) that leaves out "
                                  "float64: attention must accept any floating dtype and return its results in that "
                                  "dtype; drop the dtype check, or test is_floating_point()",
    # naming72: blind73's q1_assert_queries_and_keys_same_shape_rejects_t_q_ne_t_k
    "own_assert_same_shape": "checking with an assert that there are as many queries as keys (Q.shape == K.shape, "
                             "or Q.shape[0] == K.shape[0]): a valid call may have T_q != T_k (one query against many "
                             "keys, cross-attention); only the widths must agree, so check Q.shape[-1] == "
                             "K.shape[-1] (and K.shape[0] == V.shape[0]) instead",
    # naming72: blind73's q4_entropy_assert_rejects_more_than_two_dims
    "entropy_assert_dims": "checking with an assert that the logits are 1-D or 2-D (logits.dim() in (1, 2), or "
                           "logits.dim() <= 2): softmax_entropy must take logits of any shape (..., T), batch axes "
                           "included, and return shape logits.shape[:-1]; drop the check (softmax and sum over "
                           "dim=-1 already work for any number of leading axes)",
    # naming72: blind73's q1_keys_transposed_back_when_length_equals_width
    "keys_layout_guessed_from_shape": "guessing K's layout from its shape (a K with as many rows as the queries' "
                                      "width, K.shape[0] == Q.shape[1], taken for an already transposed (d_k, T_k) "
                                      "matrix and transposed back): a normal K with T_k == d_k is square, so it is "
                                      "transposed wrongly and the scores are Q K instead of Q K^T; K is always "
                                      "(T_k, d_k): transpose it every time (Q @ K.transpose(-2, -1)) and drop the guess",
    # naming72: blind73's q8_assert_even_head_width_rejects_odd_slices
    "mha_assert_head_width": "checking with an assert that the head width d_model // n_heads is even (a check "
                             "rotary embeddings need, not attention): any d_model divisible by n_heads is valid, odd "
                             "head widths included (d_model = 15 with 3 heads gives heads of width 5); drop the check",
    # naming72: blind72's q1_score_rows_from_zip_of_queries_and_keys
    "zip_stops_at_shorter": "looping over the queries with zip(Q, K): zip stops at the shorter of the two, so with "
                            "more queries than keys the queries past T_k get no row (T_q != T_k is valid); loop over "
                            "the queries alone (for q in Q), or take all the scores at once (Q @ K.T)",
    # naming72: blind72's q2_dots_generator_read_again_for_deviations
    "generator_read_twice": "keeping the dot products in a generator (a (... for ...) expression, or map/zip/filter) "
                            "and reading it twice: the first pass (the sum for the mean) uses it up, so the second "
                            "pass (the squared deviations) sees no numbers and sums to 0, and the variance is always "
                            "0.0; make it a list or a tensor (torch.stack, or (q * k).sum(-1)) before reading it "
                            "twice",
    # naming72: blind72's q4_table_stats_lambdas_bound_late
    "closure_bound_late": "making lambdas (or inner functions) that read a loop's variables and calling them only "
                          "after the loop: Python looks a closure's names up when it is called, not when it is made "
                          "(late binding), so every call sees the LAST iteration's values; compute the values inside "
                          "the loop, or bind them when the lambda is made (lambda raw=raw: raw.std())",
    # naming74: blind75's q1_reciprocal_root_scale_then_divided_by
    "reciprocal_scale_divided": "dividing the scores by a scale that is already 1/sqrt(d_k) (d_k ** -0.5, "
                                "1 / math.sqrt(d_k), torch.rsqrt): dividing by the reciprocal multiplies by sqrt(d_k); "
                                "multiply by that scale, or divide by sqrt(d_k) itself (d_k ** 0.5, math.sqrt(d_k))",
    # naming74: blind75's q1_output_mixed_from_scores_not_weights
    "output_from_scores": "mixing the values with the scores instead of the softmax weights you computed: the "
                          "weights are right, but the output is scores @ V; write out = weights @ V with the "
                          "softmaxed weights",
    # naming74: blind74's q1_output_rows_written_into_default_float32_zeros
    "float32_default_buffer": "writing the results into a buffer made by torch.zeros/empty/ones without dtype=: "
                              "torch's default dtype is float32 (NumPy's is float64), so float64 rows are rounded "
                              "to float32 as they are stored; pass dtype=Q.dtype (and device=Q.device), or use "
                              "torch.zeros_like / new_zeros",
    # naming74: blind74's q1_inputs_upcast_to_float64_like_numpy_never_cast_back
    "upcast_never_cast_back": "converting the inputs to float64 (.double(), or .to(torch.float64), as NumPy computes) "
                              "and never casting the result back: torch keeps the input's dtype, so float32 in must "
                              "give float32 out; compute in the input's dtype, or cast back with .to(Q.dtype)",
    # naming76: blind76's q1_scale_buffer_registered_in_bfloat16
    "scale_rounded_low_precision": "keeping the scale 1/sqrt(d_k) (or sqrt(d_k)) in a low-precision dtype (a "
                                   "bfloat16 or float16 tensor or buffer): it is rounded to about 3 significant "
                                   "digits, so the scores are scaled by a slightly wrong factor (exact only when "
                                   "sqrt(d_k) is a power of 2); keep the scale a Python float (math.sqrt(d_k)) or in "
                                   "the scores' own dtype",
    # naming76: blind76's q2_draws_initialised_like_nn_linear_std_inverse_root
    "draws_scaled_like_init": "drawing q and k with a standard deviation other than 1 (such as 1/sqrt(d_k), a "
                              "layer's fan-in initialisation) instead of standard normals N(0, 1): with std "
                              "1/sqrt(d_k) each product q_i k_i has variance 1/d_k^2, so the variance of q.k comes "
                              "out 1/d_k instead of d_k; draw torch.randn(..., generator=generator) as it is, "
                              "unscaled",
    # naming76: blind76's q8_linear_layers_loaded_but_default_bias_kept
    "mha_linear_default_bias": "building nn.Linear layers for the projections with their default bias=True: each "
                               "layer adds its own randomly initialised bias vector, so the output is off by random "
                               "offsets (different on every call where the layers are new); pass bias=False, or "
                               "multiply by the given weights directly (X @ W_Q)",
    # naming76: blind77's q1_query_loop_from_one_as_in_the_sum_index
    "query_loop_from_one": "starting the loop over the queries at 1 (the formula's index i = 1, ..., T_q carried "
                           "into range(1, T_q)): Python counts from 0, so row 0 of the weights is never computed "
                           "(it stays 0 and does not sum to 1) and the first output row is 0; loop over "
                           "range(T_q), or compute all rows at once (Q @ K.T)",
    "entropy_sum_outside_product": "closing the parentheses before the sum: -p * log(p).sum(-1) (or -(p) * "
                                   "(p + eps).log().sum(-1)) sums the logs over each row first and multiplies every "
                                   "probability by that row total, so the result has the logits' shape (and raises "
                                   "on non-square logits) instead of one entropy a row; sum the products: "
                                   "-(p * log(p)).sum(-1)",
    "mha_head_slice_end_one_back": "ending each head's slice at (h - 1) * d_k instead of (h + 1) * d_k (~-h is "
                                   "h - 1, bitwise not; -~h is h + 1): head 0's slice 0 : -d_k takes every column "
                                   "but the last head's (a negative end counts from the right) and every later head "
                                   "is empty, so the heads concatenate to d_model - d_k columns; end head h's slice "
                                   "at (h + 1) * d_k",
    "mha_heads_low_precision": "running each head's attention on float16 (or bfloat16) copies of its Q, K, V "
                               "and casting the result back: the dtype comes back right, but float16 keeps about 3 "
                               "digits, so every head carries rounding errors near 1e-3 (and float16 weights can "
                               "miss a 1e-5 row-sum check, so attention's own assert may fail); keep the heads in "
                               "the input's dtype",
    # naming80: blind81's q2_scaled_condition_commented_out_body_left_live
    "scale_applied_unconditionally": "dividing by sqrt(d_k) whatever `scaled` says: the function never reads the "
                                     "flag (the `if scaled:` line is missing or commented out, and its body runs "
                                     "every time), so scaled=False also gives about 1 instead of about d_k; divide "
                                     "only under `if scaled:`",
    # naming80: blind81's q4_entropy_table_sanity_assert_abs_in_place_on_scores
    "scores_made_absolute": "working from the absolute values of the raw scores: every negative score has lost its "
                            "sign before the stds and entropies are taken (often an in-place abs_() inside an assert "
                            "or a print meant only to check them, which changes the scores it checks); check with "
                            "the out-of-place raw.abs() and keep the scores signed",
    # naming80: blind80's q4_table_rows_added_functionally_result_discarded
    "list_concat_discarded": "adding each row with `rows + [row]` as a statement: + builds a new list and the "
                             "statement throws it away (a functional update, as in JAX's .at[].set or R's c(), "
                             "has to be assigned back), so the list stays empty; write rows.append(row) (or "
                             "rows = rows + [row])",
    # naming80: blind81's q8_half_renamed_head_width_call_reads_trace_global_d_k
    "mha_scale_from_global": "passing a notebook-level variable (the lesson trace's d_k, say) to attention as each "
                             "head's scale instead of the head width d_model // n_heads computed in the function "
                             "(a name left from a rename): every head is scaled by 1/sqrt of that global, right "
                             "only when it happens to equal the head width; pass the local head width",
    # naming86: blind86/87's log-space, online and blockwise formulations
    "online_softmax_exp_before_max_update": "taking each key block's exponentials exp(s - m) against the running max "
                                            "before it is updated with that block's max: when a block raises the "
                                            "maximum, its terms are too large by exp(m_new - m) while what came before "
                                            "is rescaled to m_new, so output and normaliser are a wrong mix (and can "
                                            "overflow); compute m_new = max(m, block max) first, then "
                                            "p = exp(s - m_new)",
    "softmax_shift_per_key_cummax": "shifting each score by the running max of the keys up to it (torch.cummax "
                                    "along the keys) instead of by one value per row: a shift cancels in the softmax "
                                    "only when it is the same for the whole row, so every key after a new maximum "
                                    "is boosted; subtract the row max (the cummax's last column, or "
                                    "amax(dim=-1, keepdim=True)) from every score",
    "table_scaled_log_probs_divided": "dividing the raw log-probabilities by sqrt(d) for the scaled ones: log_softmax "
                                      "is not linear (its logsumexp term does not scale with the logits), so "
                                      "exp of those values no longer sums to 1 and H_scaled is not an entropy; "
                                      "scale the scores first and take softmax_entropy(raw / sqrt(d))",
    "entropy_zero_logits_masked": "treating a logit of exactly 0 as padding and masking it out of the softmax: a 0 "
                                  "is a real logit (softmax_entropy gets no mask), so a row holding a 0 loses that "
                                  "entry and an all-zero row, the uniform one whose entropy is ln T, gives 0; drop "
                                  "the mask and take the softmax over every logit",
    "mha_qk_layer_norm": "normalising each head's queries and keys (F.layer_norm, QK-norm) before attention: every "
                         "query and key row is centred and rescaled, so the scores are no longer q.k / sqrt(d_k) of "
                         "the projections; pass the Q and K slices to attention as they are",
    "mha_query_tiles_own_keys": "tiling the tokens and letting each tile of queries attend only to the same tile of "
                                "keys and values (the tile's row offset used for K and V too, block-diagonal "
                                "attention): every query must see all T keys; tile the queries only and pass the "
                                "whole K and V slices of the head",
    "mha_projection_inner_tail_dropped": "accumulating X @ W over inner tiles of columns counted with floor division "
                                         "(d_model // tile): when the tile does not divide d_model, the last "
                                         "d_model % tile columns of X (rows of W) never enter the projection; count "
                                         "the tiles with ceiling division, range(0, d_model, tile), or write X @ W",
    "variance_rescaled_every_chunk": "applying the scale to the running sums after every chunk of samples (as an "
                                     "online pass rescales what it has accumulated) instead of once: the earlier "
                                     "chunks are shrunk again at each later one, so the sums are dominated by the "
                                     "last chunk and the scaled variance comes out far below 1; accumulate the raw "
                                     "sums and divide the final variance by d_k once",
    "mha_head_offsets_inclusive_cumsum": "taking the head offsets from an inclusive running sum of the head widths "
                                         "(cumsum gives d_k, 2 d_k, ..., d_model; wrapped by % d_model the last is "
                                         "0): head h reads head h + 1's columns, so the heads come out rotated; the "
                                         "starts are the exclusive sum 0, d_k, 2 d_k, ... (cumsum - widths, or "
                                         "h * d_k)",
    # naming88: blind88/89's defensive code and sorts
    "scores_clamped_before_softmax": "clamping the scores before the softmax to keep exp from overflowing: every "
                                     "score past the bound becomes the bound, so wide scores that differ (60 and 25) "
                                     "get equal weight, where the softmax puts nearly all of it on the larger (and "
                                     "no gradient passes the clamp); F.softmax already subtracts each row's maximum, "
                                     "so nothing overflows: drop the clamp",
    "softmax_sort_permutation_reapplied": "putting a softmax taken on sorted scores back in key order with "
                                          "gather(-1, idx): gather applies the sort permutation a second time "
                                          "instead of undoing it, so key j gets the probability of key idx[idx[j]] "
                                          "(the rows still sum to 1, on the wrong keys); undo the sort with "
                                          "p_sorted.scatter(-1, idx, p_sorted), or gather with idx.argsort(-1), or "
                                          "take the softmax of the unsorted scores",
    "mha_head_refolded_column_major": "folding a head's entries back as .view(d_k, T).T: masked_select, flatten "
                                      "and reshape read a (T, d_k) block row-major, token by token, so the right "
                                      "refold is .view(T, d_k); the column-major fold scrambles tokens and columns "
                                      "(right only when T or d_k is 1); refold with .view(T, d_k), or slice the "
                                      "columns, Q[:, h * d_k:(h + 1) * d_k]",
    "mha_heads_capped_by_tokens": "lowering the number of heads when there are fewer tokens than heads: n_heads "
                                  "is a given of the layer (it fixes each head's width and sqrt(d_k) scale), and "
                                  "any T is valid with any n_heads; fewer, wider heads compute another layer; drop "
                                  "the adjustment and always cut n_heads heads of width d_model // n_heads",
    "entropy_shift_by_row_min": "shifting the logits by each row's MINIMUM before exp (sort() is ascending, so "
                                "sort(...)[..., :1] is the smallest; or min/amin): the shift cancels, but every "
                                "other logit is then above 0 and exp overflows to inf once a row spans about 88 "
                                "(float32), so the row's entropy is NaN; subtract the row maximum, "
                                "amax(dim=-1, keepdim=True) or sort(descending=True)[..., :1], or use log_softmax",
}
