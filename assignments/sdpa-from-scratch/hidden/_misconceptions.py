"""Misconceptions of sdpa-from-scratch: key -> what the student's answer matches, in words.

Plain data, declared once for the assignment (no imports): a failed hidden test names a key only when
the student's output matches what that mistake produces on the same input. A key shared with another
assignment has the same text there (tests/test_authoring.py checks it)."""

MISCONCEPTIONS = {
    # the scale
    "divide_by_dk": "dividing the scores by d_k instead of sqrt(d_k)",
    "no_scale": "not scaling the scores at all",
    "multiply_by_sqrt_dk": "multiplying the scores by sqrt(d_k) instead of dividing",
    "scale_by_d_v": "scaling by 1/sqrt(d_v) (the width of V) instead of 1/sqrt(d_k)",
    "scale_by_T": "scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of "
                  "1/sqrt(d_k)",
    "scale_constant": "using a fixed d_k inside the function (a number, or the notebook's global d_k = 8 from "
                      "Question 2) instead of the input's own width, d_k = Q.shape[-1]: the scale must change "
                      "when d_k does",
    "float32_scale": "computing the scale constant in float32, which loses precision for float64 inputs",
    "scale_precedence": "writing the scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 (so S / d_k ** 1/2 "
                        "divides by 2 d_k, and a scale = d_k ** 1/2 is d_k / 2): write d_k ** 0.5 or math.sqrt(d_k)",
    "scale_by_batch_dim": "taking d_k from a leading axis (Q.shape[0] or Q.size(1) of batched inputs: the batch or the "
                          "heads), or multiplying it in (sqrt(Q.size(1) * Q.size(-1)), the heads times the head "
                          "width; Q.numel() // T_q, every leading axis times the head width), instead of the last "
                          "one alone: divide by sqrt(Q.shape[-1])",
    "scale_after_softmax": "applying 1/sqrt(d_k) after the softmax (to the weights or the output) instead of to "
                           "the scores inside it: softmax(Q K^T / sqrt(d_k)) V",
    "sequence_first_layout": "reading the inputs as sequence-first, (tokens, batch, features), as nn.MultiheadAttention "
                             "does without batch_first=True: here they are (batch, tokens, features), so the weights "
                             "are (batch, T_q, T_k), one T_q x T_k matrix per batch entry",
    "scores_divided_by_own_std": "dividing the scores by their own measured spread (S / S.std()) instead of the constant "
                                 "sqrt(d_k): the scale is fixed by d_k, not measured from the scores, and a row of equal "
                                 "scores gives 0 / 0 = NaN",
    "floor_division_scale": "dividing the scores with // (floor division) instead of /: every scaled score is "
                            "rounded down to an integer",
    "integer_sqrt_scale": "dividing by an integer square root (int(math.sqrt(d_k)) or math.isqrt(d_k)) instead "
                          "of sqrt(d_k)",
    # scores and softmax
    "scores_transposed": "computing K Q^T (keys as rows) instead of Q K^T (queries as rows)",
    "softmax_wrong_dim": "taking the softmax over the query dimension (dim=-2) instead of the keys (dim=-1)",
    "softmax_ignores_dim": "ignoring the dim argument of the softmax",
    "no_max_subtraction": "a softmax without max-subtraction, which overflows in float16",
    "builtin_softmax": "calling a built-in softmax instead of writing it by hand",
    "global_max_subtraction": "subtracting one maximum over the whole tensor instead of each row's own: rows far "
                              "below it underflow to 0 / 0 (NaN)",
    "softmax_shift_by_max_abs": "subtracting each slice's largest |x| (x.abs().amax) instead of its largest x before "
                                "exp: a large negative logit pushes every exp to 0 (0 / 0, NaN), and a -inf "
                                "(masked) entry makes the shift inf and the whole slice NaN",
    "causal_sizes_swapped": "building the causal mask with T_q and T_k swapped (tril of (T_k, T_q), or the upper "
                            "triangle of (T_q, T_k) transposed): right only when T_q == T_k; one row per query, "
                            "one column per key",
    "output_keeps_key_axis": "keeping one axis per key in the output (each weight times its value row, never summed "
                             "over the keys): weights @ V sums over the keys",
    "negative_dim_off_by_one": "turning a negative dim into a positive one off by one (dim + x.dim() - 1, or "
                               "dim + x.dim() + 1, instead of dim + x.dim()): the softmax runs over the axis before "
                               "or after the one asked (dim=-1 lands on dim=-2, or dim=-2 on dim=-1, with a clip "
                               "into range hiding the error past the last axis); use the negative dim as it is, "
                               "torch accepts it",
    "softmax_subtracts_mean": "subtracting each slice's mean instead of its maximum before exp: a wide spread of "
                              "logits still overflows exp (inf / inf, NaN), and a -inf (masked) entry makes the "
                              "mean -inf and the whole slice NaN; subtract x.amax(dim, keepdim=True)",
    "softmax_subtracts_median": "subtracting each slice's median instead of its maximum before exp: every logit "
                                "above the median still exponentiates to more than 1 and overflows (float16 first: "
                                "inf / inf, NaN), and a slice that is more than half -inf (masked) has a median of "
                                "-inf, so -inf - (-inf) makes it NaN; subtract x.amax(dim, keepdim=True)",
    "shift_binds_looser": "a bit shift written next to *, + or ** without brackets: in Python << binds looser than "
                          "those, so 1 << 20 * 64 is 1 << (20 * 64), not (1 << 20) * 64; bracket the shift, or "
                          "write the count as 1024 ** 2 * 64",
    "softmax_running_max": "shifting each entry by the running max of the entries before it (torch.cummax(x, "
                           "dim).values) instead of one max for the whole slice: subtract the same constant from "
                           "every entry of a slice, x.amax(dim=dim, keepdim=True), or the weights are not the "
                           "softmax (and a slice that starts with -inf gives -inf - (-inf) = NaN)",
    "softmax_divides_by_max": "dividing the logits by their row's maximum (exp(x / max)) instead of subtracting it "
                              "(exp(x - max)): that changes the softmax itself (a different temperature per row, "
                              "sign flips when the maximum is negative)",
    "softmax_of_negated": "exponentiating max - x instead of x - max (the shift subtracted the wrong way round, or "
                          "exp(-x)): that is the softmax of -x, which gives the largest logit the smallest weight; "
                          "exp(x - x.amax(dim, keepdim=True))",
    "softmax_subtracts_min": "subtracting each row's minimum instead of its maximum before exp: exp overflows, "
                             "and a row with a -inf (masked) score becomes NaN (-inf - (-inf))",
    "causal_mask_in_unmasked_weights": "applying the causal mask where the unmasked weights are asked (is_causal=True "
                                       "copied into the call that reads off weights3, or the causal fill in that "
                                       "cell): weights3 and out3 become the causal ones; weights3 is the plain "
                                       "softmax(Q3 K3^T / 2), every query seeing every key, and only "
                                       "weights3_causal takes the mask",
    "causal_mask_forced": "applying a causal mask the call did not ask for: the given mask replaced by a causal "
                          "one (is_causal=True for any mask), or combined with one (mask & causal, and a causal "
                          "mask when mask is None); use exactly the mask passed in, and none when mask is None",
    "weights_times_wrong_input": "multiplying the weights by K (or Q) instead of V: the output is the weighted sum "
                                 "of the values, weights @ V, of width d_v",
    "output_as_features_product": "sizing the output as a product over the tokens (K^T V, or Q^T V: d_k x d_v, one "
                                  "entry per pair of features) instead of the weights times V: (T_q, T_k) @ (T_k, "
                                  "d_v) keeps one row per query, so the output is (B, T_q, d_v)",
    "variance_one_theory_or_own_std": "a scaled variance of exactly 1, which one number cannot tell apart: the "
                                      "theory's value written where the variance measured on the example's scores "
                                      "is asked, or the scores divided by their own measured spread (S / S.std(), "
                                      "which gives any scores a variance of 1) instead of the constant sqrt(d_k): "
                                      "divide the example's scores by sqrt(d_k) and compute .var() of them",
    "theoretical_variance": "writing the theory's value (d_k for the raw scores, 1 after dividing by sqrt(d_k)) "
                            "where the variance measured on the example's scores is asked: compute .var() of them",
    "mask_size_off_by_one": "building the causal mask one row and one column short or long (torch.arange(T - 1), "
                            "positions counted from 1, or arange(T + 1)): the mask of T_q queries and T_k keys is "
                            "(T_q, T_k), from arange(T_q) and arange(T_k)",
    "square_as_times_two": "writing T * 2 (or T x 2) where T squared is meant: the weight matrix has T x T = T ** 2 "
                           "entries, one per (query, key) pair",
    "madds_d_k_added": "adding d_k to T^2 where the count multiplies by it: each of the T^2 scores is a dot "
                       "product of d_k multiply-adds, T^2 * d_k in all",
    "e_rounded": "taking the exponentials with e rounded (2.7, 2.718 or 3 ** x, say) instead of exp(x): b ** x "
                 "is exp(x ln b), the softmax of slightly rescaled logits, so every weight is off (in the second "
                 "decimal for 2.7, the fifth for 2.718); use torch.exp",
    "softmax_shift_by_first_entry": "shifting each slice by its first entry (or another fixed one) instead of its "
                                    "maximum: the shift cancels in exact arithmetic but bounds nothing, so a slice "
                                    "whose largest logit is far above its first overflows, and a -inf first entry "
                                    "(a masked key) makes the whole slice NaN",
    "count_times_four": "a count four times the weight matrix's T^2 entries, which one number cannot tell apart: the "
                        "count at twice the length ((2T)^2 = 4 T^2: T doubled, as the next question does), the "
                        "matrix's bytes in float32 (4 per entry), or the weights of a whole batch of 4 (Question 1's "
                        "batch size) where one sequence and one head is asked; the question asks for the number of "
                        "entries of one T x T matrix",
    "count_in_bytes": "giving the memory of the matrix in bytes (entries times 4 for float32, 8 for float64) where "
                      "its number of entries is asked",
    "keys_are_queries": "computing the scores from the queries with themselves (Q Q^T, k = q) instead of Q K^T",
    "uniform_weights": "giving every key the same weight (the mean of V) instead of the softmax of the scores",
    "gaussian_kernel": "weights from a Gaussian kernel exp(-||q - k||^2 / c) instead of the softmax of the scaled "
                       "dot products q.k / sqrt(d_k)",
    "softmax_global_sum": "dividing by the sum over the whole tensor (e.sum() with no dim) instead of each slice's "
                          "own sum (e.sum(dim, keepdim=True)): the slices no longer sum to 1",
    "softmax_base_2": "taking the exponentials with exp2 without multiplying the logits by log2(e): exp2(x) is "
                      "exp(x ln 2), a softmax at another temperature; write exp2(x * math.log2(math.e)) or exp(x)",
    "softmax_base_10": "taking the exponentials as powers of ten (10 ** x, torch.pow(10, x)) instead of e ** x: "
                       "10 ** x is exp(x ln 10), a softmax of the logits times 2.3026, too sharp; use torch.exp(x)",
    "scale_extra_factor": "multiplying the scale by an extra constant: 1.4427 = log2(e), the factor a fused kernel "
                          "folds into the scale because it takes exp2, in front of a softmax that takes the natural "
                          "exp, so the scores are divided by sqrt(d_k) / 1.4427 and the weights come out too sharp; "
                          "with torch.exp the scale is 1 / math.sqrt(d_k) alone (log2(e) belongs only with exp2)",
    "scores_column_convention": "writing the scores in the column-vector convention, S = Q^T K (tokens as columns), "
                                "on row-stored Q and K (one token per row): Q^T K is a d_k x d_k matrix of feature "
                                "products, not one score per (query, key) pair; with tokens as rows the transpose "
                                "goes on K: S = Q K^T / sqrt(d_k) (Q3 @ K3.T)",
    "dot_product_skips_first_feature": "summing the dot product from index 1 (range(1, d_k), the formula's i = 1 .. "
                                       "d_k typed as written): Python counts from 0, so feature 0 is left out of "
                                       "every score; sum over range(d_k), or write Q @ K.transpose(-2, -1)",
    "mask_transposed_to_scores": "applying the mask to scores laid out the other way round: the scores kept "
                                 "keys-by-queries, K Q^T of shape (T_k, T_q) (the column convention), and the "
                                 "(T_q, T_k) mask applied to them as it is (or the mask transposed onto Q K^T): a "
                                 "square mask then blocks the mirror-image entries (a causal mask lets each query "
                                 "see the future) and a rectangular one does not broadcast; keep the scores "
                                 "Q @ K.transpose(-2, -1), (T_q, T_k), with the mask as given",
    "softmax_returns_shifted_logits": "returning the logits with their max subtracted (x - max) instead of the "
                                      "softmax: the exp and the division by the sum are never applied (an early "
                                      "`return` left in from a check, or the last lines never reached), so the "
                                      "values are the shifted scores, all <= 0, not weights that sum to 1; let the "
                                      "function go on to exp(x - max) / its sum along dim (keepdim=True)",
    "log_softmax": "returning the log-probabilities (x - max - log(sum(exp(x - max)))) instead of the probabilities: "
                   "the exp at the end is missing",
    "softmax_over_batch_axis": "taking the softmax over a batch or head axis (a fixed dim=0 or dim=1 of batched "
                               "scores) instead of the keys' axis, dim=-1",
    "softmax_twice": "applying the softmax twice (to weights that are already a softmax): the weights come out "
                     "nearly uniform",
    "reduction_without_keepdim": "reducing without keepdim=True (x.max(dim).values, e.sum(dim)): the result loses its "
                                 "axis and broadcasts against the last one, which is wrong on square inputs and a "
                                 "crash on others; keep the dim (keepdim=True)",
    "keepdim_by_unsqueeze_last": "dropping the reduced axis (x.max(dim).values, e.sum(dim)) and putting it back with "
                                 "unsqueeze(-1): that restores it only when dim is the last axis; for any other dim "
                                 "it lines up with the wrong axis (a crash, or wrong values when sizes are equal): "
                                 "use keepdim=True (or unsqueeze(dim))",
    "reduction_tuple_as_tensor": "using what torch.max(x, dim=...) returns as if it were a tensor: given a dim, "
                                 "max, min, sort, topk, mode, median and kthvalue return a (values, indices) pair, "
                                 "which -, / and torch.exp refuse; take its .values (torch.max(x, dim, "
                                 "keepdim=True).values), unpack it (m, _ = ...), or use x.amax(dim, keepdim=True)",
    "keys_not_transposed": "multiplying Q @ K without transposing K: the scores are Q K^T, of shape (T_q, T_k)",
    "view_as_transpose": "reshaping K to (..., d_k, T_k) with .view or .reshape as if that transposed it: the "
                         "shape is right but the memory is read in another order; use K.transpose(-2, -1)",
    "torch_sqrt_of_int": "calling torch.sqrt (a function of tensors) on the Python int d_k: use math.sqrt(d_k) or "
                         "d_k ** 0.5",
    "weights_transposed": "multiplying V by the transposed weights (A^T V): output row i must be the weighted sum of "
                          "the values with query i's own weights (A V)",
    "scores_as_output": "returning the scores (Q K^T / sqrt(d_k), before the softmax) instead of the weighted sum of "
                        "the values",
    # the mask
    # the mask
    "zero_after_softmax": "zeroing masked weights after the softmax: rows no longer sum to 1",
    # q7's option D ("it only goes wrong in float16"): its own belief, so that a message saying what D stands for says
    # what D says (blind75: "option D stands for zeroing masked weights after the softmax" read as D's own text)
    "zeroing_harmless_but_float16": "thinking zeroing the masked weights after the softmax goes wrong only in float16: "
                                    "in every dtype the softmax has already given the masked keys their share, so "
                                    "the zeroed rows no longer sum to 1; fill the masked scores with -inf before the "
                                    "softmax",
    "pos_inf_fill": "filling masked scores with +inf instead of -inf: every row with a blocked key becomes NaN",
    "mask_times_inf": "applying the mask by arithmetic with an infinity (scores * mask + (~mask) * -inf): where the "
                      "mask is True the second term is 0 * -inf = NaN, so every score of a query with an allowed "
                      "key is NaN; fill with masked_fill(~mask, float('-inf')) or torch.where(mask, scores, -inf)",
    "neg_1e9_float16": "filling masked scores with -1e9, which overflows float16 (use -inf or the dtype's min)",
    "fill_overflows_half": "filling masked scores with a fixed constant that half precision cannot hold (such "
                           "as float32's minimum): use float('-inf') or torch.finfo(scores.dtype).min",
    "mask_fills_zero": "setting blocked scores to 0 (scores * mask, or a fill of 0) instead of -inf: exp(0) is not 0, "
                       "so blocked keys still get weight",
    "softmax_inf_to_zero": "replacing -inf logits by 0 (or another finite number) inside the softmax "
                           "(torch.where(isinf(x), 0, x) or nan_to_num(x, neginf=0) as a NaN guard): blocked "
                           "entries then get a weight above 0 instead of exactly 0; keep -inf (exp(-inf) is 0) and "
                           "guard only a slice that is all -inf",
    "shape_axis_added": "adding an axis the question does not have (a heads axis on single-head inputs, say): "
                        "attention on (batch, T, d) inputs gives (batch, T_q, T_k) weights and a (batch, T_q, d_v) "
                        "output, with no axis of its own",
    "size_rounded": "computing the count at a rounded size (T = 1024 written as 1000, '1k'): the question's sizes "
                    "are exact, so the count must use them as given",
    "mask_added": "adding the boolean mask to the scores (+1 where allowed) instead of filling blocked scores with "
                  "-inf: blocked keys keep their weight",
    "mask_unsqueezed": "adding a dim to the mask (mask.unsqueeze(1), the habit of a (B, T_k) padding mask): a mask "
                       "already shaped (..., T_q, T_k) then broadcasts into an extra dim or crashes; use the mask "
                       "as given (it broadcasts)",
    "mask_filled_into_2d_bias": "writing the mask in place into one (T_q, T_k) tensor (attn_bias = torch.zeros(L, S) then "
                                "attn_bias.masked_fill_(~mask, -inf), as the PyTorch docs' equivalent code does): a "
                                "batched (B, T_q, T_k) or (B, H, T_q, T_k) mask cannot fit into it; fill the scores "
                                "themselves with scores.masked_fill(~mask, float('-inf')), which broadcasts",
    "shape_as_entry_count": "giving the number of entries (the product of the sizes, what .numel() returns) instead "
                            "of the shape: a shape is the tuple of sizes, one per axis",
    "variance_count_from_one_axis": "dividing the squared deviations by a count read off one or two axes (len(t) is "
                                    "a tensor's first dimension alone, t.shape[-1] its last) instead of the number of "
                                    "scores minus 1: use t.var(), or divide by t.numel() - 1",
    "causal_sliding_window": "adding a sliding window to the causal mask (also hiding every key more than w positions "
                             "back): causal attention lets query i see every key j <= i; drop the window condition",
    "hard_attention_argmax": "putting all the weight on each query's highest-scoring key (a one-hot argmax, hard "
                             "attention) instead of the softmax: every key gets some weight, "
                             "softmax(scores / sqrt(d_k)); the output mixes the values with those weights",
    "madds_with_log2_d_k": "multiplying T^2 by log2(d_k) = 6 (the exponent of 64 = 2^6) instead of by d_k: each "
                           "score's dot product has d_k = 64 terms, so Q @ K.T takes T * T * d_k multiply-adds",
    "batch_axis_left_none": "writing the batch axis as None, the way Keras prints a model's shapes (None = any batch "
                            "size): here the tensors are given, so the batch size is known; write it as the number "
                            "(4 in this example)",
    "scores_of_standardised_inputs": "standardising Q and K first (layer_norm, or subtracting each row's mean and "
                                     "dividing by its std) before Q @ K^T: the question measures the scores of the "
                                     "given Q and K; compute Q @ K.transpose(-2, -1) from them as they are",
    "shift_clamped_at_zero": "clamping the shift at 0 (x - x.max().clamp(min=0), or shifting only when the max is "
                             "positive): a slice whose logits are all far below 0 is left unshifted, every exp "
                             "underflows to 0 and the slice becomes 0/0 = NaN; subtract each slice's max itself",
    "positions_as_fractions": "comparing positions as fractions of each length (torch.linspace(0, 1, T), or i / T): "
                              "when T_q != T_k the triangle is stretched; compare the integer positions, "
                              "torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]",
    "mask_offsets_wrap_unsigned": "taking cols - rows in an unsigned dtype (uint8 positions): a negative offset "
                                  "wraps round to a large positive number, so only the diagonal (offset 0) is kept; "
                                  "keep torch.arange's default int64 positions (uint8 also wraps past 255)",
    "bool_mask_arithmetic": "doing arithmetic on a boolean mask (1 - mask, -mask, (1 - mask) * -1e9), which torch refuses for bool "
                            "tensors: invert it with ~mask (or mask.logical_not()), and fill blocked scores with "
                            "masked_fill(~mask, float('-inf')) or torch.where",
    "mask_not_bool": "building the mask of numbers instead of torch.bool: 0/1 (torch.ones(...).tril() is float), "
                     "or the additive 0/-inf matrix that is added to the scores; ~mask and masked_fill need a "
                     "boolean mask (True = may attend): return tril(ones(T_q, T_k, dtype=torch.bool))",
    "mask_not_outer": "comparing the key positions with query positions that are not on their own axis (two 1-D "
                      "aranges, arange(T_k) <= arange(T_q), or both expanded along the rows, "
                      "arange(T_q).expand(T_k, T_q)): torch pairs them entry by entry, each position with itself "
                      "(a vector, or one value everywhere), and a rectangular mask fails with a size mismatch, not "
                      "one entry per (query, key) pair; put the queries down the rows: "
                      "arange(T_q)[:, None] >= arange(T_k)[None, :]",
    "batch_as_one_sequence": "reading the batch as one long sequence of B x T tokens: the weights become "
                             "(B T_q, B T_k), every token attending to the other sequences' tokens too; each batch "
                             "entry has its own (T_q, T_k) weight matrix, (B, T_q, T_k) in all",
    "batch_folded_into_rows": "folding the batch into the query axis (B x T_q rows, as after a reshape for a 2-D "
                              "product) in a shape that keeps it: the weights are (B, T_q, T_k) and the output "
                              "(B, T_q, d_v), one matrix per batch entry",
    "variance_of_other_scores": "measuring the variances on other scores than the example's (a new, larger random "
                                "sample, or other tensors): the question asks for Q @ K^T of the batched example "
                                "(torch.manual_seed(0), then Q, K, V = torch.randn(2, 5, 8) each)",
    "mask_cropped_square": "cropping the mask to (T_q, T_q) (mask[..., :T, :T] with T the number of queries, as a "
                           "causal buffer is cropped to the sequence): the mask has one column per key, "
                           "(..., T_q, T_k); use it as given, or crop it to [..., :T_q, :T_k]",
    "causal_ignores_T_k": "building a square causal mask from one length, ignoring T_k (or T_q): the mask has one "
                          "row per query and one column per key, (T_q, T_k)",
    "tensor_truthiness": "testing a tensor's truth value (if M:, M or ...), which raises for a tensor of more than "
                         "one entry: test if M is not None:",
    "output_from_causal_weights": "computing out3 (the unmasked output) from the causal weights weights3_causal "
                                  "instead of weights3",
    "variance_of_one_slice": "taking the variance over one slice of the scores (raw_scores[0], the first sequence "
                             "of the batch, or one query's row, raw_scores.var(dim=-1)[0, 0], picked when .item() "
                             "refused the per-row variances) instead of over all their entries: raw_scores.var() "
                             "is one number for all the scores",
    "weights_sized_by_features": "sizing the attention weights by the feature width (d_k x d_k, like Q^T K or a "
                                 "projection matrix) instead of one entry per (query, key) pair: (B, T_q, T_k)",
    "fixed_size_mask": "cutting the mask from a fixed-size buffer (tril(ones(block_size, block_size))[:T_q, :T_k], "
                       "nanoGPT style): it is right up to that size and wrong beyond; build it from T_q and T_k "
                       "on each call",
    "inverted_mask": "treating True in the mask as 'blocked' instead of 'may attend'",
    "mask_ignored": "ignoring the mask",
    "causal_mask_blocks_nothing": "returning a causal mask that is True everywhere, so it blocks no key: it "
                                  "must be True only where key j <= query i, as torch.tril(torch.ones(T_q, T_k, "
                                  "dtype=torch.bool)) gives in one step",
    "mask_all_for_any": "finding the queries with no allowed key by mask.all(dim=-1) instead of mask.any(dim=-1): "
                        "every query with one blocked key gets a row of zeros",
    "single_key_rows_zeroed": "zeroing the output of every query with a single allowed key: the test for a query "
                              "with no key left counts keys with <= 1 (or < 2) instead of == 0; use "
                              "~mask.any(dim=-1) (no allowed key), and a query with one allowed key gets its value",
    "fully_masked_nan": "returning NaN (not zeros) for a query whose keys are all masked",
    "mask_opens_key_zero": "opening key 0 in the mask (mask[..., 0] = True, for every query or only for those with "
                           "no allowed key) so that no row of scores is all -inf: a query whose keys are all masked "
                           "then gets V[0] instead of a row of zeros (and, opened for every query, a query the mask "
                           "blocks from key 0 attends to it anyway); keep the mask as given and zero the rows with "
                           "no allowed key after the softmax (torch.where(mask.any(-1, keepdim=True), weights, 0))",
    "scaled_through_data": "scaling an input through .data (Q.data /= math.sqrt(d_k)) to get past the in-place error "
                           "on a leaf: autograd never sees a change made through .data, so that input's gradient "
                           "misses the 1 / sqrt(d_k) factor (sqrt(d_k) times too large), and the caller's tensor is "
                           "changed on every call; scale out of place (scores = Q @ K.transpose(-2, -1) / "
                           "math.sqrt(d_k))",
    "fully_masked_uniform": "filling masked scores with a large finite number: a query whose keys are all "
                            "masked averages V instead of returning zeros",
    "crash_on_mask_none": "crashing when mask=None",
    "upper_triangular_mask": "an upper-triangular (future-looking) mask instead of a lower-triangular one",
    "causal_excludes_self": "a causal mask that hides the diagonal: a token may not see itself (a prefix slice "
                            "scores[i, :i] stops before query i's own key; keys 0..i are scores[i, :i + 1])",
    "causal_includes_next": "a causal mask off by one the other way (tril(diagonal=1)): each token also sees "
                            "the next one",
    "causal_bottom_right": "a causal mask aligned at the bottom-right instead of the top-left "
                           "(F.scaled_dot_product_attention's is_causal aligns it at the top-left)",
    "numbered_grid_cast_to_bool": "casting a lower triangle of numbered positions to bool (torch.tril(grid).bool() "
                                  "with grid = torch.arange(...)): .bool() is False wherever a number is 0, so the "
                                  "cell numbered 0 is blocked too and query 0 loses key 0; build the triangle from "
                                  "ones (torch.ones(T_q, T_k, dtype=torch.bool).tril()) or compare positions j <= i",
    "mask_not_broadcast": "a step that needs the mask at the scores' full shape (scores[~mask] = ...): a "
                          "(T_q, T_k) or (B, 1, T_k) mask must broadcast; use masked_fill or torch.where",
    "fixed_axes": "code that assumes a fixed number of dims (K.T, which reverses every axis of a batched tensor; "
                  "K.transpose(1, 2) on 4-D inputs; B, T, d = Q.shape): use negative axes (K.transpose(-2, -1)) "
                  "so that batch and head dims pass through",
    # memory layout
    "inplace_on_input": "changing an input in place (Q /= ..., Q.mul_(...), an in-place fill of an input): an "
                        "expanded input cannot be written, a tensor that needs gradients may not be, and the "
                        "caller's tensor changes; compute a new tensor instead",
    # shapes and counts
    "shape_as_dict_of_axes": "writing a shape as a dict of named axes ({\"batch\": 4, ...}, as einops or named "
                             "tensors name them) where a tuple of ints is asked: give the sizes in order as a "
                             "tuple, tuple(d.values())",
    "output_width_dk": "taking the output width from d_k instead of d_v",
    "weights_as_output": "confusing the (T_q, T_k) weight matrix with the output",
    "returns_extra_values": "returning a tuple (the output and something else, such as the weights) where the "
                            "function returns the output alone",
    "draw_order": "drawing the tensors in another order than the notebook (after torch.manual_seed(0), Q, then K, "
                  "then V): each draw continues the same random stream",
    "variance_returned_std": "returning the standard deviation of q.k instead of its variance",
    "variance_scaled_like_scores": "dividing the variance by sqrt(d_k) as if it scaled like the scores: scores "
                                   "divided by sqrt(d_k) have their variance divided by d_k",
    "biased_variance": "using the biased variance (divide by n) where torch's default .var() is unbiased (n - 1)",
    "cost_linear_in_T": "thinking the score matrix costs time linear in T: there are T^2 scores",
    "entries_times_d_k": "counting d_k numbers per attention weight: the weight matrix has one entry per (query, key) "
                         "pair, T^2; d_k enters the cost of each score, not the number of weights",
    "entries_of_Q": "counting the entries of Q or K (T x d_k) instead of the T x T weight matrix: one weight per "
                    "(query, key) pair",
    "madds_features_squared": "counting T d_k^2 multiply-adds (the head width squared, as for a d_k x d_k product "
                              "per token) instead of T^2 d_k: each of the T x T scores is one dot product of "
                              "length d_k",
    "cost_ratio_eight": "a cost ratio of 8 = 2^3, which has two readings: a cost cubic in T (T^3, as for a "
                        "matrix inverse), or d_k doubled along with T ((2T)^2 (2 d_k) / (T^2 d_k)); only T doubles "
                        "and Q K^T costs T^2 d_k, so the ratio is (2T)^2 / T^2 = 4",
    "cost_ratio_as_exponent": "giving the exponent of T in the cost (2, for T^2) where the factor is asked: "
                              "cost_ratio is how many times the cost grows when T doubles, (2T)^2 / T^2 = "
                              "2 ** 2 = 4",
    "power_typed_as_e_notation": "writing a power of two in e-notation: 2e20 is 2 x 10^20 (a float), not 2^20; "
                                 "write the power with **, 2 ** 20 or 1024 ** 2",
    "cost_cubic_in_T": "thinking the scores cost T^3 like a matrix inverse: T^2 scores of d_k multiply-adds each",
    "reseeded_each_draw": "calling torch.manual_seed before each draw (a helper that seeds and then draws, or a seed "
                          "line before each tensor): every draw restarts the same random stream, so K (and V) come out "
                          "equal to Q and the scores are Q Q^T; seed once, then draw Q, K and V in turn",
    "caret_is_xor": "writing a power with ^, which Python reads as bitwise xor (1024 ^ 2 is 1026): write 1024 ** 2",
    "madds_without_d_k": "counting one multiply-add per score: each score q.k is a dot product of length d_k, so "
                         "Q K^T costs T^2 d_k multiply-adds",
    "madds_with_sqrt_d_k": "a count of T^2 x sqrt(d_k) multiply-adds for Q @ K.T: the scale's square root where "
                           "each score's dot product has d_k = 64 terms (8 is also the d_k of Question 2's example, "
                           "not this question's): Q @ K.T takes T * T * d_k multiply-adds",
    "madds_counted_twice": "a count of twice the multiply-adds of Q @ K.T, which the number alone cannot trace "
                           "to one cause: a multiply and an add counted apart (as a FLOP count does, np.einsum_path's \"Naive FLOP "
                           "count\" among them, which also rounds to 4 digits), the T^2 d_v multiply-adds of "
                           "weights @ V added to the T^2 d_k of the scores (the same number when d_v = d_k), or "
                           "Question 1's d_v = 128 written for this question's d_k = 64; score_madds asks for "
                           "Q @ K.T only, each multiply-add once, with this question's d_k",
    "madds_counts_additions": "counting the additions of each dot product (d_k - 1 of them, or 2 d_k - 1 flops: "
                              "d_k multiplies and d_k - 1 adds) instead of its multiply-adds: a dot product of "
                              "length d_k is d_k multiply-adds, so Q K^T costs T^2 d_k",
    "weights_by_plain_sum": "dividing the scores by their row sum (scores / scores.sum) instead of taking a "
                            "softmax: without the exponential the weights follow the raw scores (and can be "
                            "negative); weights = exp(s - max) / sum(exp(s - max))",
    "scores_as_distances": "using the distance between each query and key (torch.cdist, or the norm of q - k) as "
                           "the score: attention scores are dot products, Q @ K.transpose(-2, -1), large where a "
                           "query and key point the same way, where a distance is small",
    "cost_not_ratio": "giving a cost (the multiply-adds or weight entries at 2T, or at T) as cost_ratio: the ratio "
                      "is the new cost divided by the old one, (2T)^2 d_k / (T^2 d_k) = 4, a plain factor",
    "inclusive_range_ported_exclusive": "counting over range(1, T), which stops at T - 1: Python's range leaves out "
                                        "its end, unlike MATLAB's or Julia's inclusive 1:T, so each axis counts T - 1 "
                                        "positions and the count is (T - 1)^2; count over range(T) (or range(1, T + "
                                        "1)): T x T = T^2 entries, and T^2 x d_k multiply-adds for the scores",
    "write_into_discarded_copy": "writing into a copy that is thrown away (x.clone()[rows] = 0, what JAX's "
                                 "x.at[rows].set(0) becomes when rewritten as an index assignment): the assignment "
                                 "changes the temporary copy, not x, so x keeps its old values (here the NaN rows); "
                                 "assign into x itself (x[rows] = 0), keep the copy (x = x.clone(), then x[rows] = 0), "
                                 "or write x = x.masked_fill(rows, 0)",
    "positions_from_one_on_one_side": "numbering the positions of one axis from 1 (arange(1, T + 1), MATLAB's or "
                                      "Julia's 1:T) and those of the other from 0: the comparison j <= i is then "
                                      "off by one, each query also seeing the next key (queries from 1) or no "
                                      "longer its own (keys from 1); number both from 0 (arange(T_q), "
                                      "arange(T_k)), or both from 1",
    "scores_keys_by_queries": "laying the scores out keys by queries (K @ Q^T, the column convention), so a "
                              "softmax over their last axis normalises over the queries, not the keys: compute "
                              "Q @ K^T (one row per query) and take the softmax over dim=-1, or keep K @ Q^T and "
                              "take it over dim=-2",
    "rows_stacked_as_columns": "laying each row's result down as a column (torch.stack(rows, dim=1), column_stack, "
                               "as R's apply(x, 1, f) returns them), which transposes the matrix: stack the rows "
                               "along dim=0 (torch.stack(rows)) so that row t stays row t",
    "loop_starts_at_one": "counting with a loop over range(1, T), which starts at 1 and so skips the first query "
                          "(position 0): range(T) runs over all T of them; the count is T x T scores of d_k "
                          "multiply-adds each, T * T * d_k",
    "cost_ratio_inverted": "writing the cost ratio upside down (old cost / new cost): doubling T multiplies the cost "
                           "by the ratio new / old, a whole number above 1",
    "nondeterministic": "a function that gives different outputs for the same input: dropout or randomness "
                        "left on (F.dropout trains by default), or a result that depends on earlier calls",
    "dtype_changed": "returning or mixing in another dtype than the input's (.float() or a float32 tensor never cast "
                     "back): float16 in must give float16 out and float64 in float64 out; mixed with the input's "
                     "dtype a product raises ('expected scalar type ...')",
    "gradient_cut": "cutting the autograd graph (.detach(), .data, .item(), NumPy, torch.tensor(...) of a result, "
                    "or a @torch.inference_mode() / @torch.no_grad() decorator or with-block around the computation): "
                    "no gradient flows back to the inputs on that path",
    "float32_precision": "computing in float32 (a float32 tensor, constant or softmax) where the input is "
                         "float64: the result is right only to about 1e-7",
    # kinds named from a property of the answer (issue 21, fifth round)
    "shape_of_an_input": "giving a result the shape of an input (Q, K or V, (..., T, d_k)) instead of its own: "
                         "the weights are (..., T_q, T_k), one per (query, key) pair; the output (..., T_q, d_v)",
    "shape_dims_swapped": "writing the right dimensions in another order (such as (batch, d_v, T) for "
                          "(batch, T, d_v)): the query axis comes before the feature axis",
    "batch_dim_dropped": "leaving out the leading batch dimension: a batched input gives batched weights and "
                         "outputs, (batch, T_q, T_k) and (batch, T_q, d_v)",
    "shape_axis_dropped": "leaving an axis out of the shape (one vector per sequence, as if pooled over the "
                          "queries): attention keeps one output row per query, (batch, T_q, d_v), and one weight "
                          "per (query, key) pair, (batch, T_q, T_k); only the keys are summed over",
    "count_halved_symmetric": "halving a count because Q K^T looks symmetric: it is symmetric only when Q = K "
                              "(even self-attention projects queries and keys with different weights), so all "
                              "T x T scores are computed, each a dot product of length d_k",
    "divisor_d_k_or_sqrt_64": "dividing the example's scores by 8, which is both its d_k (d_k instead of "
                              "sqrt(d_k)) and sqrt(64), the divisor of the d_k = 64 head that scale_divisor asks "
                              "about (reused for an example whose d_k is 8); the values cannot tell which: divide "
                              "the example's scores by math.sqrt(Q.shape[-1]) = sqrt(8)",
    "example_value_reused": "reusing the worked example's value (its d_k = 8) where the question asks about "
                            "another one (d_k = 64)",
    "reciprocal_scale": "giving the factor 1/sqrt(d_k) where the divisor sqrt(d_k) is asked (or the other way "
                        "round)",
    "answers_swapped": "storing each answer under the other's name: raw_score_var is the variance of Q @ K^T "
                       "before scaling (about d_k), scaled_score_var the variance after dividing by sqrt(d_k) "
                       "(about 1)",
    "raw_variance_of_scaled_scores": "computing the 'raw' variance from scores that were already scaled (an "
                                     "in-place div_ or /= on raw_scores changes it too): compute the scaled "
                                     "scores as a new tensor, raw_scores / sqrt(d_k)",
    "diagonal_scores_only": "computing only the dot products of query t with key t ((Q * K).sum(-1)) instead "
                            "of every query with every key (Q @ K^T)",
    "variance_of_an_input": "taking the variance of an input's entries (Q, K or V: about 1) instead of the "
                            "variance of the scores q.k (about d_k: each is a sum of d_k products)",
    "variance_mean_swapped": "returning the mean of the dot products where their variance is asked: torch.var_mean "
                             "returns (var, mean) in that order, so `mean, var = torch.var_mean(dots)` names them "
                             "the wrong way round; unpack `var, mean = torch.var_mean(dots)` or use dots.var()",
    "mean_of_slice_variances": "averaging the variances of each row, column or batch entry (var(dim=...).mean()) "
                               "instead of the variance of all the scores (.var())",
    "softmax_max_wrong_axis": "subtracting the maximum over another axis than the softmax's dim (x.max(dim=-1) "
                              "whatever dim is): the shift then differs within one slice, so the result is not "
                              "a softmax; take the max over the same dim",
    "softmax_sum_wrong_axis": "dividing by the sum over another axis than the softmax's dim (e.sum(dim=-2), or a "
                              "fixed axis whatever dim is): the slices along dim no longer sum to 1; sum over the "
                              "same dim as the max",
    "scale_root_taken_twice": "taking the square root twice (d_k = math.sqrt(...), then scores / math.sqrt(d_k)): the "
                              "scores are divided by d_k ** 0.25, too little, so the weights are too sharp; take the "
                              "root once: scores / math.sqrt(Q.shape[-1])",
    "result_axes_permuted": "returning the right values with the axes in another order (a transpose(dim, -1) or "
                            "permute that is never undone): move the axes back before returning",
    "clamped_logits": "capping the logits (x.clamp(max=c)) instead of subtracting each slice's maximum: every "
                      "logit above the cap gets the same weight, and exp of many capped logits still overflows "
                      "half precision",
    "epsilon_added_to_weights": "adding a small constant to every softmax weight (exp / sum + eps: the epsilon "
                                "outside the fraction): a blocked (-inf) key gets weight eps instead of exactly 0 and "
                                "each row sums to a little more than 1; the max-subtracted sum is at least 1, so no "
                                "guard is needed: return exp / sum (an epsilon, if any, goes inside: exp / (sum + eps))",
    "exponentials_floored": "keeping the exponentials above a small floor before dividing by their sum "
                            "(exp(x - max).clamp(min=eps), or exp(x - max) + eps): a blocked (-inf) key then gets "
                            "eps / its row's sum instead of exactly 0; leave exp(-inf) = 0 (the max-subtracted sum "
                            "is at least 1, so no floor is needed)",
    "half_precision_scores": "computing the scores in half precision (Q.half() @ K.half().T, or the scores cast to "
                             "float16 or bfloat16) and casting back: float32 and float64 inputs then get half "
                             "precision's rounding, errors of about 1e-3; keep every step in the inputs' dtype",
    "scores_as_cosine_similarities": "normalising the queries and keys to unit length before the dot products "
                                     "(F.normalize, x / x.norm(), cosine similarity): the scores are then cosines "
                                     "between -1 and 1, with a variance far below d_k; the scores are the raw dot "
                                     "products Q @ K.transpose(-2, -1)",
    "query_key_axes_flattened": "putting all the (query, key) pairs on one axis (T_q * T_k): the weight matrix "
                                "keeps a row per query and a column per key, (batch, T_q, T_k); write "
                                "weights_shape = (4, 10, 10)",
    "counts_swapped": "giving each count under the other's name: attn_entries is the number of weights, one per "
                      "(query, key) pair, T^2; score_madds the multiply-adds of Q @ K.T, T^2 x d_k; swap the two "
                      "values",
    "products_not_summed": "multiplying each query with each key feature by feature (Q[:, :, None, :] * "
                           "K[:, None, :, :]) and never summing over the d_k features: the 'scores' are single "
                           "products, variance about 1, not dot products, variance about d_k; sum over the last axis "
                           "(.sum(-1)) or write Q @ K.transpose(-2, -1)",
    "weights_not_normalised": "using exp(scores) as weights without dividing by the row sum: rows do not sum to 1",
    "shape_as_string": "writing a shape as text (\"(4, 10, 10)\" or \"4x10x10\", what print shows) instead of a "
                       "tuple of Python ints: a string is not a shape, nothing can compare or index it as one; "
                       "write weights_shape = (4, 10, 10), or tuple(weights.shape)",
    "count_over_itself": "dividing a count by itself (the same list entry on both sides of the /, after an index "
                         "counted from 1 was clipped or wrapped into range): the ratio is 1 whatever the costs; list "
                         "indexes start at 0, so for counts = [cost at T, cost at 2T] the ratio is counts[1] // "
                         "counts[0]",
    "cost_ratio_as_increase": "giving how much the cost grows by (new / old - 1 = 3, a 300% increase, or the "
                              "extra multiply-adds new - old) instead of the factor it grows by: the ratio is "
                              "new / old = (2T)^2 d_k / (T^2 d_k) = 4 (the new cost is 4 times the old, which is "
                              "3 times more than it)",
    "size_not_int": "using a torch.Size or tuple (Q.shape[-1:], Q.shape, Q.size()) where a number is needed: "
                    "index the shape, Q.shape[-1]",
    "values_weighted_by_scores": "multiplying V by the scores (before the softmax) instead of the softmax "
                                 "weights: out = softmax(Q K^T / sqrt(d_k)) V",
    "rounded_answer": "rounding the computed values (to one or two decimals) where the question wants them "
                      "as computed: keep full precision, round only what you print",
    "count_per_query": "counting for one query (T entries, T d_k multiply-adds) instead of all T queries: the "
                       "weight matrix has T x T entries and Q K^T costs T x T x d_k",
    "distinct_pairs_counted_once": "counting T (T - 1) / 2 entries (math.comb(T, 2)): the unordered pairs of "
                                   "two different tokens, or the causal triangle without its diagonal; either "
                                   "way each pair is counted once AND each token's pair with itself is left out. "
                                   "The weight matrix has one entry per ordered (query, key) pair, both orders "
                                   "and a token with itself included (a causal mask zeroes weights, it does not "
                                   "remove them): T x T = T^2 entries",
    "causal_extra_keys_visible": "padding the square causal mask with True for the keys past T_q (F.pad(tri, "
                                 "(0, T_k - T_q), value=1)), so every query sees those keys: the rule is key j <= "
                                 "query i in every column, so the extra columns are False (pad with False, or "
                                 "build torch.ones(T_q, T_k).tril())",
    "causal_weights_padded_left": "putting each query's zeros BEFORE its weights (F.pad(w, (n_pad, 0)): F.pad's "
                                  "pair is (left, right)), so query i's weights on keys 0..i land on the last "
                                  "columns; the keys a query cannot see are the later ones, so pad on the right: "
                                  "F.pad(w, (0, n_pad))",
    "madds_n_cubed_rule": "using the n^3 rule of a product of two square n x n matrices (T^3): Q (T x d_k) times "
                          "K^T (d_k x T) makes T x T scores, each a dot product of length d_k, so it costs "
                          "T x T x d_k multiply-adds",
    "entries_from_element_size": "taking element_size() (or .itemsize), the size in bytes of ONE element (4 for "
                                 "float32), as the count: the weight matrix has T x T entries, which .numel() "
                                 "counts",
    "madds_all_heads_width": "counting with the width of all heads together (d_model = 8 heads x d_k = 512, "
                             "or the 8 heads' costs added) where the question asks for one head: one head's "
                             "Q @ K.T is T x T scores, each a dot product of length its own d_k = 64: T^2 d_k",
    "variance_as_mean_square": "computing the variance as the mean of the squares, mean(x^2) (or "
                               "sum(x^2) / (n - 1)), which never subtracts the sample mean: the scores of one "
                               "draw do not average to exactly 0, so it is not .var(); use x.var() (the mean "
                               "subtracted, divided by n - 1)",
    "scale_from_ndim": "dividing the scores by the square root of the number of dimensions (K.dim() or Q.ndim: 2 for "
                       "a (T, d_k) tensor, 4 for (B, H, T, d_k)) instead of sqrt(d_k), the size of the last "
                       "dimension: use Q.shape[-1] (or K.size(-1))",
    "causal_triangle_count": "counting only the causal triangle (T (T + 1) / 2): the weight matrix still has "
                             "T x T entries (the mask zeroes weights, it does not remove them)",
    "self_pairs_left_out": "counting only the pairs of two different tokens (T (T - 1), each token against every "
                           "other one): a query also scores its own key, so the weight matrix is T x T with its "
                           "diagonal, T^2 entries",
    "returns_tensor_not_number": "returning a tensor (or a NumPy scalar, such as numpy's var of a .numpy() array) "
                                 "where a Python number is asked: call .item() (or float(...)) on the one-element "
                                 "tensor or NumPy scalar",
    "batch_axis_repeated": "writing the batch axis twice (Q's and K's leading shapes glued together, "
                           "q_shape[:-1] + k_shape[:-1]): Q and K share one batch axis, so the weights are "
                           "(batch, T_q, T_k) and the output (batch, T_q, d_v)",
    "madds_sizes_multiplied": "multiplying the number of entries of Q by that of K (T^2 d_k^2): a (T, d_k) by "
                              "(d_k, T) product has T x T entries, each a dot product of d_k multiply-adds: T^2 d_k",
    "answer_in_one_more_container": "wrapping the right answer in one more tuple or list: a trailing comma "
                                    "(weights_shape = (4, 10, 10), or cost_ratio = 4,) makes a 1-tuple that holds "
                                    "the answer, ((4, 10, 10),) or (4,); drop the trailing comma (or the extra "
                                    "brackets)",
    "default_none_not_replaced": "never replacing the default T_k=None by T_q (`T_k == T_q` compares and throws "
                                 "the result away; it does not assign): causal_mask(T) then computes with None "
                                 "and crashes; write `if T_k is None: T_k = T_q`",
    # parameter_renamed: the engine's (autograder/grading/checks.py), declared once
    "ratio_denominator_unbracketed": "dividing by a product without brackets (new / T * T * d_k): Python reads "
                                     "a / b * c as (a / b) * c, so it divides by the first factor only and "
                                     "multiplies by the others; bracket the denominator: new / (T * T * d_k), "
                                     "which gives 4",
    "trace_uses_batched_example": "using a tensor of Question 2's batched example (its Q, K or V, of shape "
                                  "(2, 5, 8)) in the 3-token trace, whose own tensors are Q3, K3 and V3: the "
                                  "trace's output is weights3 @ V3, with V3 of shape (3, 2)",
    "hand_score_slip": "a slip in one score worked out by hand (one dot product of a query with a key, or its "
                       "division by sqrt(d_k)): that query's weights are the softmax of the right scores except at "
                       "that entry; recompute it",
    "reduction_reshaped_to_column": "turning a reduction into a column by hand (e.sum(dim).reshape(-1, 1), "
                                    ".view(-1, 1), [:, None]) instead of keeping its axis with keepdim=True: that "
                                    "lines up only for a 2-D input reduced along its last axis; a 3-D or 4-D input "
                                    "fails to broadcast and dim=0 divides by the wrong sums: use "
                                    "e.sum(dim, keepdim=True) (and x.amax(dim, keepdim=True))",
    "trace_from_lesson_example": "copying numbers from the lesson's worked example (lesson 80's causal weights of "
                                 "query 1, 0.5622 and 0.4378) into the trace: that example used other tensors; "
                                 "compute the trace from this notebook's Q3, K3 and V3",
    "output_column_convention": "writing the output in the column-vector convention (V^T W^T, one column per "
                                "query): that is the transpose of the answer, and .view/.reshape back to (T_q, d_v) "
                                "does not transpose it (it re-reads the numbers in memory order); the notebook keeps "
                                "one row per query, weights @ V, of shape (T_q, d_v), or take .T of the column form",
    "nan_check_zeroes_every_row": "checking for NaN over the whole weight tensor (if torch.isnan(weights).any(): "
                                  "weights = zeros): one query with every key masked then zeroes the weights of "
                                  "every query; zero only the rows with no allowed key (torch.where(mask.any(-1, "
                                  "keepdim=True), weights, 0), or torch.nan_to_num(weights))",
    # round44 (blind43)
    "len_counts_rows_not_width": "taking a tensor's width with len() one level short: len(V[0]) is the length of "
                                 "V[0]'s first axis (its rows, the keys), not of its last; the output's last entry "
                                 "is d_v = 128, V.shape[-1] (or len(V[0][0]))",
    "keys_of_one_sequence": "scoring every sequence of the batch against one sequence's keys (Q @ K[0].T: matmul "
                            "broadcasts that one key matrix to every batch entry, so the shape stays right); "
                            "use K.transpose(-2, -1), so each sequence keeps its own keys",
    "answer_lesson_80_quiz_letter": "answering with the letter lesson 80's own quiz gives for the same question: the "
                                 "lesson lists the options in another order, so its letter (the right option "
                                 "there) is another option here; read this notebook's options and give the letter "
                                 "of the one that says the same",
    "rectangular_mask_not_causal": "making the mask causal only when T_q == T_k and returning it all True "
                                   "otherwise (as if T_q != T_k meant cross-attention): the question asks for the "
                                   "top-left aligned causal mask for any T_q, T_k, True only where key j <= query "
                                   "i; build it the same way for every size: torch.ones(T_q, T_k, "
                                   "dtype=torch.bool).tril()",
    "triangle_flipped": "turning the upper triangle over (flip(0) / flipud, or flip(1) / fliplr) to get the lower "
                        "one: that keeps the entries on one side of the anti-diagonal, so some queries see future "
                        "keys; the lower triangle is the upper one transposed, or simply .tril()",
    "softmax_not_applied": "storing the masked scores where the weights are asked: the softmax that turns them "
                           "into weights (each row summing to 1, 0 at the masked keys) was never applied; take "
                           "stable_softmax of the masked scores along the keys",
    # round45 (blind44)
    "variance_centred_per_slice": "centring each score on the mean of its own row (x - x.mean(dim=-1, "
                                  "keepdim=True)), column or sequence before squaring, instead of on the one mean "
                                  "of all the scores: the spread between those means is lost, so the variance "
                                  "comes out too small; use raw_scores.var() (the overall mean subtracted, "
                                  "divided by n - 1)",
    "madds_of_one_score": "counting the multiply-adds of ONE score (one dot product of length d_k: d_k = 64 of "
                          "them) where those of the whole product Q @ K.T are asked: it computes T x T scores, "
                          "each one such dot product: T * T * d_k",
    "matrix_flattened": "flattening a matrix answer into one list of numbers (.flatten(), .view(-1) or .ravel() "
                        "before .tolist()): the numbers are right but the rows are lost; keep the matrix's layout, "
                        "one row per query (the tensor itself, or .tolist() of it unflattened)",
    "scores_masked_before_variance": "masking the scores (torch.tril, a causal mask) before taking their "
                                     "variance: the zeros put in, or the entries left out, change it; the question "
                                     "asks for the variance of all the raw scores Q @ K.transpose(-2, -1), unmasked",
    "batch_reduced_before_variance": "averaging (or summing) the batch's score matrices into one before taking the "
                                     "variance: averaging independent scores shrinks their spread; take .var() over "
                                     "all the entries of the (B, T, T) scores, each sequence's own",
    "softmax_reshaped_not_moved": "bringing `dim` last with reshape(-1, x.shape[dim]) (or reshape(x.shape[dim], "
                                  "-1)): reshape keeps memory order, so each row is a run of neighbouring entries, "
                                  "not one slice along "
                                  "dim (right only for the last dim); move the axis with x.movedim(dim, -1) and "
                                  "back, or reduce along dim directly (x.amax(dim=dim, keepdim=True))",
    "count_overflows_half": "counting in half precision (the sum of a float16 tensor of ones): float16 holds no "
                            "finite number above 65504, so a count of 1024 * 1024 = 1048576 overflows to inf; "
                            "count with integers: .numel(), or 1024 ** 2",
    # naming round 47 (blind47)
    "shape_entry_from_another_axis": "filling one entry of a shape with the size of another axis (the batch "
                                     "size where the number of keys goes, from K.shape[0] or K.shape[:1] for "
                                     "K.shape[1]): read each size off its own axis: the weights are (batch, T_q, "
                                     "T_k) with T_k = K.shape[-2], the output (batch, T_q, d_v) with d_v = "
                                     "V.shape[-1]",
    "variance_count_unbracketed": "writing the unbiased variance as sum / n - 1 without brackets: Python divides "
                                  "by n first and then subtracts 1, so the result is the biased variance minus 1 "
                                  "(negative for a small spread); write sum / (n - 1), or use .var()",
    "causal_mask_not_equal": "a mask that is True wherever key j != query i: every future key is kept and each "
                             "query's own key is blocked. sign(i - j).bool(), (i - j).bool() or (i - j) != 0 are "
                             "True for -1 as well as +1; the causal test is j <= i ((i - j) >= 0, or "
                             "torch.tril(torch.ones(T_q, T_k, dtype=torch.bool)))",
    # naming round 50 (blind50, blind49)
    "boolean_index_flattens_rows": "picking the allowed scores with the boolean mask (scores[mask] or "
                                   "torch.masked_select) before the softmax: that keeps only the allowed entries, "
                                   "flattened into one 1-D tensor, so one softmax runs over all of them together "
                                   "instead of one per query. Keep the (T_q, T_k) matrix: fill the blocked scores "
                                   "with -inf (scores.masked_fill(~mask, float('-inf'))), then take the softmax "
                                   "along dim=-1",
    "power_typed_as_product": "writing a power as a product (2 * 6 where 2 ** 6 = 64 is meant, 10 * 3 for "
                              "10 ** 3): a * b multiplies, a ** b raises a to the power b; write the power with **",
    "query_index_tiled": "building the query-index grid with .repeat (or .tile) where each index must be "
                         "repeated: torch.arange(T_q).repeat(T_k) lays whole copies of 0..T_q-1 one after another, "
                         "so viewed as (T_q, T_k) entry [i, j] holds (i * T_k + j) mod T_q, not i (on a square mask "
                         "it is j, and the mask blocks nothing). Use torch.arange(T_q).repeat_interleave(T_k), or "
                         "compare torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]",
    # naming round 51 (blind51)
    "shift_not_row_max": "shifting each row by another of its values than its maximum before exp (its "
                         "second-largest, as x.kthvalue(n - 1) or x.sort().values[..., -2] give: kthvalue counts from "
                         "the smallest, so the max is kthvalue(n)): the largest logit stays above the shift and exp "
                         "overflows once it is more than about 11 above it in float16 (88 in float32), giving "
                         "inf / inf = NaN. Subtract x.amax(dim, keepdim=True)",
    "causal_cumsum_denominator": "dividing each kept exponential by a running sum along the keys "
                                 "(e.cumsum(dim=-1)): entry [i, j] is divided by e_0 + ... + e_j, the keys up to "
                                 "its column, where query i must divide by the sum over all the keys it may see, "
                                 "e_0 + ... + e_i; only the diagonal is right and rows no longer sum to 1. Divide "
                                 "by the row's sum of the kept exponentials, e.sum(dim=-1, keepdim=True)",
    "shape_of_running_example": "answering with the shapes of the notebook's own example tensors instead of the "
                                "question's: work the shapes out from the sizes the question gives (here Q and K "
                                "(4, 10, 64), V (4, 10, 128))",
    # naming round 53 (blind53)
    "mask_skipped_when_all_blocked": "skipping the masking when the mask has no True entry (if mask is not None and "
                                     "mask.any(): ...): a mask that is False everywhere blocks every key for every "
                                     "query, so each row must be zeros, not plain unmasked attention. Apply the mask "
                                     "whenever it is given (if mask is not None:)",
    "causal_mask_all_false": "building a causal mask that is False everywhere (a comparison typed inside the triangle "
                             "call, torch.triu(torch.ones(T_q, T_k) == 0, diagonal=1): ones == 0 is all False, and "
                             "its upper triangle is still all False; or the keys before the query and the query's "
                             "own key joined with & where | is meant: no key is both), so no query may see any "
                             "key. Build the "
                             "triangle first, then compare: torch.triu(torch.ones(T_q, T_k), diagonal=1) == 0, or "
                             "torch.ones(T_q, T_k, dtype=torch.bool).tril()",
    "causal_mask_assumes_more_keys": "building the mask as a T_q x T_q triangle with T_k - T_q False key columns glued "
                                     "on, which only works when T_k >= T_q: with fewer keys than queries T_k - T_q is "
                                     "negative and torch.zeros raises. Cut the triangle to T_k columns instead: "
                                     "torch.ones(T_q, T_k, dtype=torch.bool).tril()",
    "shape_read_as_stride": "reading .stride() where .shape is asked: the stride is how many elements memory steps "
                            "for each axis (a contiguous (4, 10, 10) tensor has stride (100, 10, 1)), not the size "
                            "of each axis; use .shape (or .size())",
    "scale_by_d_model": "scaling by 1/sqrt(d_model) instead of 1/sqrt(d_k)",
    "output_from_keys": "multiplying the weights by the keys instead of the values (weights @ K): the output mixes "
                        "the rows of V, so it has d_v columns; use weights3 @ V3",
    # naming round 54 (blind54)
    "sigmoid_for_exp": "using the logistic sigmoid where the exponential belongs (torch.sigmoid(x - max) / its sum): "
                       "a sigmoid is 1 / (1 + exp(-x)), not exp(x), so the weights come out too flat. Take "
                       "torch.exp(x - x.amax(dim, keepdim=True)) and divide by its sum",
    "mask_fill_nan": "filling the blocked scores with NaN (float('nan')) instead of -inf: NaN is not 'no weight', "
                     "it spreads, so the row max, every exponential and the sum of each row with a blocked key turn "
                     "NaN. Fill with float('-inf'), whose exponential is exactly 0",
    "exponents_multiplied": "multiplying the exponents when multiplying powers: 2 ** 20 times 2 ** 6 is "
                            "2 ** (20 + 6) = 2 ** 26, not 2 ** (20 * 6). Add the exponents, or write the sizes "
                            "themselves: 1024 ** 2 * 64",
    "remainder_for_quotient": "typing % (the remainder) where the quotient is meant: the new cost is an exact "
                              "multiple of the old one, so the remainder is 0. Divide with // (or /)",
    "size_slice_in_shape": "taking a size with a slice (K.shape[1:2]) where an index is meant (K.shape[1]): a slice "
                           "of a shape is itself a one-element torch.Size, so the tuple holds a size inside it "
                           "instead of the int. Index the axis: K.shape[1]",
    "uniform_draws": "drawing the example with torch.rand (uniform on [0, 1)) where it uses torch.randn (standard "
                     "normal): the scores are then of other numbers, with another variance. Use the example's own Q "
                     "and K, torch.randn(2, 5, 8) each after torch.manual_seed(0)",
    # naming round 55 (blind55)
    "list_aliased_not_copied": "giving a list a second name (out_shape = weights_shape, or a = b = [...]) and then "
                               "changing it through one of them (out_shape[-1] = 128, .append, +=): assignment "
                               "copies nothing, both names are the same list, so the change shows under both. Copy "
                               "it first (list(weights_shape), weights_shape.copy()) or write each shape as its own "
                               "tuple, (4, 10, 10) and (4, 10, 128)",
    # naming round 56 (blind56)
    "overwritten_in_place_then_reused": "changing a tensor in place and then using it again as if it still held "
                                        "its old values: out=x (torch.exp(x, out=x)), exp_, -=, pow_ and the like "
                                        "write into x itself, and so do they through a view of x (x.view(-1), "
                                        "x.reshape(-1), x.flatten() and x.T share x's memory). Compute the new "
                                        "values as a new tensor (torch.exp(x), d = x - x.mean()), or .clone() "
                                        "first",
    "axes_counted_from_one": "numbering axes from 1, as MATLAB does (permute(K, [1 3 2])): PyTorch, like NumPy, "
                             "counts axes from 0, so a 3-D tensor's axes are 0, 1 and 2 and there is no axis 3 "
                             "('Dimension out of range'). Take one from each number, K.permute(0, 2, 1), or swap "
                             "the last two axes by their negative numbers, K.transpose(-2, -1)",
    "statistics_of_tensor": "giving Python's statistics module (statistics.variance, mean, stdev) a tensor: "
                            "iterating a tensor yields 0-dim tensors, not Python numbers, and statistics cannot "
                            "turn a Tensor into a fraction ('can't convert type 'Tensor' to "
                            "numerator/denominator'). Turn the values into Python floats first, "
                            "statistics.variance(scores.flatten().tolist()), or use the tensor's own .var() "
                            "(also the n - 1 sample variance)",
    "einsum_heads_layout": "writing the einsum strings for tensors laid out as (batch, length, heads, features), "
                           "as Flax and JAX code does ('...qhd,...khd->...hqk'): here Q, K and V are (..., length, "
                           "features), heads (if any) before the length, so q and k land on a batch or heads axis "
                           "and h on the tokens. Write the strings for this layout: '...qd,...kd->...qk' for the "
                           "scores and '...qk,...kd->...qd' for the output",
    # naming round 57 (blind57)
    # (the engine's source_checks.return_inside_loop; attention-pipeline's return_inside_loop has its own text)
    "helper_return_in_loop": "indenting the `return` into the loop (the last line of the for body) instead of "
                             "below it: a function returns the moment it reaches a return, so it stops during the "
                             "loop's first pass and everything later passes would fill is left as it started "
                             "(rows of zeros from zeros_like). Dedent the return one level, to just after the loop",
    "counted_after_rebinding": "computing a count on a line below one that has already changed a variable it "
                               "uses (`T *= 2` to get the doubled length for the ratio): a cell runs top to "
                               "bottom, so the count uses the changed value (the cost at 2T, four times the count "
                               "at T). Compute the count above that line, or keep the changed value under a new "
                               "name (T2 = 2 * T) and leave T as it is",
    # naming round 60 (blind60)
    "baddbmm_input_added": "passing the scores (or any tensor) as baddbmm's first argument with beta left at its "
                           "default 1: torch.baddbmm(input, A, B, alpha=s) returns beta * input + s * (A @ B), so "
                           "the input is added to the scaled product, not a buffer written into. Pass beta=0 (the "
                           "input is then ignored), or simply divide the scores by sqrt(d_k)",
    # state carried between calls: a value computed for one call served to a later one
    "result_buffer_reused": "returning a buffer kept between calls (an output tensor cached by shape, dtype or "
                            "device and filled with out=): every call of that shape returns the same tensor, so "
                            "each call overwrites the result an earlier call returned (weights3 turns into the "
                            "causal weights the next call computes), and out= also breaks autograd once an input "
                            "needs gradients. Return a new tensor from each call (torch.exp(...) / e.sum(...), no "
                            "out= and no cache)",
    "cache_keyed_by_shape": "caching something computed from an argument (~mask, K transposed, the output) in a "
                            "dict keyed by its shape, dtype or device only: a later call with a different tensor of "
                            "the same shape (another mask, other keys) gets the first one's cached value and its "
                            "own is ignored. Compute it on every call (it is cheap), or key the cache by the "
                            "tensor's values, never by its shape alone",
    "out_breaks_autograd": "writing a result with an out= argument (torch.exp(x, out=x), torch.div(a, b, out=buf)) "
                           "inside code that must be differentiated: torch refuses out= when an input needs "
                           "gradients ('functions with out=... arguments don't support automatic "
                           "differentiation'). Compute out of place, e = torch.exp(shifted) (an in-place exp_ on a "
                           "fresh tensor of your own is allowed)",
    "mask_tiled_not_interleaved": "tiling a per-sequence mask ((B, 1, T_q, T_k), or a (B, 1, 1, T_k) padding mask) "
                                  "over the heads with repeat after folding (batch, heads) into one axis: repeat lays "
                                  "the masks out [M0, M1, M0, M1, ...] while the folded axis runs sequence by "
                                  "sequence [b0h0, b0h1, ..., b1h0, ...], so the heads of one sequence get another "
                                  "sequence's mask. Use repeat_interleave, or broadcast the mask to the full (B, H, "
                                  "T_q, T_k) shape (torch.broadcast_to / expand) before reshaping it",
    # round61: a library's documented behaviour misread
    "mask_sum_as_flag": "multiplying the weights by mask.sum(-1, keepdim=True) as a 0/1 \"this query sees a key\" "
                        "flag: the sum of a bool mask is an int64 COUNT of the visible keys, so a query that sees "
                        "no key is zeroed but every other row of the output is multiplied by its number of visible "
                        "keys (query i of a causal mask by i + 1). The flag is mask.any(dim=-1, keepdim=True) (or "
                        "mask.sum(-1, keepdim=True) > 0): weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)",
    "causal_diagonal_offset_misread": "a causal mask built with torch.triu / torch.tril at the wrong diagonal "
                                      "offset: the offset counts from the main diagonal, positive above it and "
                                      "negative below, so torch.triu(full(-inf), diagonal=-1) blocks the diagonal "
                                      "and the first sub-diagonal too, and the first queries have no key left (NaN "
                                      "rows). Block strictly above the diagonal: torch.triu(full(-inf), diagonal=1), "
                                      "or keep torch.tril(ones(T, T, dtype=torch.bool)) (diagonal=0) as the mask",
    "weights_from_cosine_similarity": "probing the attention weights with F.cosine_similarity(Q, K): it compares "
                                      "the two tensors position by position and reduces one axis (its default "
                                      "dim=1, the token axis of a (batch, tokens, features) tensor), one number per "
                                      "position, never every query against every key. The weights are "
                                      "softmax(Q @ K.transpose(-2, -1) / sqrt(d_k)), one entry per (query, key) "
                                      "pair: (batch, T_q, T_k)",
    "fully_masked_bias": "masking with a finite additive bias (BERT's (1 - mask) * -10000 added to the scores) and "
                         "nothing done for a query whose keys are all masked: every score of that row is "
                         "shifted by the same amount, which the softmax cancels, so the query attends to every key "
                         "as if unmasked instead of getting a row of zeros. Zero those rows after the softmax "
                         "(torch.where(mask.any(-1, keepdim=True), weights, 0)), or fill with -inf and zero the rows "
                         "with no allowed key",
    # scaled-attention's text, word for word: a key shared by assignments has one text (autograder check)
    "additive_scores": "scoring with additive (Bahdanau-style) scores, the sum over the features of tanh(q + k), "
                       "instead of the dot product q.k: scaled dot-product attention has no additive score; compute "
                       "the scores as Q @ K.T / sqrt(d_k)",
    "dropout_in_training_mode": "passing the weights through a dropout (nn.Dropout, as in d2l's DotProductAttention, "
                                "or F.dropout) that is in training mode: it zeroes weights at random and divides the "
                                "rest by 1 - p, so the output is wrong and changes from run to run. The trace has no "
                                "dropout: out3 = weights3 @ V3 (leave the dropout out, or call .eval() on the module "
                                "first, as d2l does before its demo)",
    "madds_flops_both_products": "taking flash-attention's benchmark formula 4 T^2 d, a FLOP count of both products "
                                 "(Q @ K.T and the product with V) at 2 FLOPs per multiply-add: score_madds asks for "
                                 "the multiply-adds of Q @ K.T alone, each counted once, T^2 d_k = 1024^2 x 64 = "
                                 "67,108,864, a quarter of it (the FLOP count of one product, 2 T^2 d_k, is twice it)",
    # naming round 63: an optimisation that changed the result
    "mask_built_once_first_call": "building the causal mask once, at the size of the first call, keeping it between "
                                  "calls (a global buffer, a cache) and only slicing it after ([:T_q, :T_k]): any "
                                  "later call with a larger T_q or T_k gets a mask that is too small. Build the mask "
                                  "on every call (torch.ones(T_q, T_k, dtype=torch.bool).tril()), or rebuild the "
                                  "buffer whenever a call asks for more than it holds",
    # attention-pipeline's text, word for word: a key shared by assignments has one text (autograder check)
    "inplace_on_expanded": "writing in place (tril_(), masked_fill_, +=, div_) into an expanded tensor: .expand "
                           "makes a stride-0 view, so the entries along the expanded axis share one number in "
                           "memory, and each write lands on every entry that shares it; make it real memory first "
                           "(.expand(...).clone(), .repeat, or torch.ones(T, T) * column) or use the out-of-place "
                           "form (tril() instead of tril_())",
    "one_query_decoding_shape": "giving the shapes of one KV-cache decoding step, a single new query against the "
                                "cached keys (a query axis of length 1): the question asks about self-attention "
                                "over the whole sequence, where every token is a query, so the weights are "
                                "(batch, T_q, T_k) = (4, 10, 10) and the output (batch, T_q, d_v) = (4, 10, 128)",
    "entries_of_one_tile": "counting the entries of one FlashAttention tile (BLOCK_M x BLOCK_N scores, the block a "
                           "kernel holds at a time) instead of the whole attention-weight matrix: the question asks "
                           "for the entries of the matrix, one per (query, key) pair, T x T = 1024 x 1024 = "
                           "1,048,576, however a kernel splits it",
    # naming round 64 (blind64)
    "divisor_proportional_to_dk": "scaling the divisor in proportion to d_k from a known case (the example's "
                                  "sqrt(8) made 8 times larger for a head 8 times wider): the divisor is the square "
                                  "root of d_k, so it grows as sqrt(d_k) (a head 8 times wider needs sqrt(8) times "
                                  "the divisor); compute math.sqrt(d_k) for the d_k asked",
    "ratio_floor_divided": "dividing with // (floor division) where the ratio is asked: // cuts the quotient down "
                           "to a whole number (3.998 becomes 3); divide with / and count what the question counts "
                           "(T * T * d_k for the scores), whose ratio is exact",
    "value_from_another_question": "using a variable another question's cell set (its answer for other sizes) "
                                   "instead of computing the value for this question's own inputs: the name is "
                                   "still defined, so the cell runs, but it holds that other question's number; "
                                   "compute it here from this question's tensors",
    "empty_rows_from_mask_diagonal": "deciding whether a query has a visible key from the mask's diagonal "
                                     "(torch.diagonal(mask), mask[..., i, i]: whether it sees its own position), "
                                     "true of causal masks only: a query that sees other keys but not itself gets "
                                     "zeros, and a rectangular mask's diagonal is too short to broadcast; use "
                                     "mask.any(dim=-1, keepdim=True)",
    "mask_size_one_axes_dropped": "dropping every length-1 axis of the mask (a bare .squeeze() after building it "
                                  "with a leading axis): with one query or one key the query or key axis goes too, "
                                  "so causal_mask(1, 5) has shape (5,) instead of (1, 5) and broadcasts the wrong "
                                  "way; remove only the axis you added (.squeeze(0) or [0]), or build it without one",
    # blind85: `has_key = mask.any(dim=1, keepdim=True)`, right for a 2-D mask only
    "empty_flag_fixed_axis": "computing the flag for queries without an allowed key over a fixed axis "
                             "(mask.any(dim=1)): that is the key axis of a 2-D (T_q, T_k) mask, but the query axis of "
                             "a batched (B, T_q, T_k) one, so with a batch the fully masked queries keep their NaN "
                             "rows; reduce the last axis, mask.any(dim=-1, keepdim=True)",
    "empty_flag_from_first_mask_entry": "reading the flag for queries without a key from mask[0], as if every mask "
                                        "had a batch axis: for a 2-D (T_q, T_k) mask mask[0] is query 0's row, so "
                                        "a later fully masked query keeps its NaN row (and a batched mask gets its "
                                        "first sequence's flags everywhere); use mask.any(dim=-1, keepdim=True) on "
                                        "the whole mask",
    "probe_key_count_not_the_questions": "building the shape probe with a key count of its own (a T_k left from "
                                         "trying cross-attention) instead of the question's: the weights have one "
                                         "column per key, so their last axis is the probe's key count; draw K and V "
                                         "with the question's sizes and read the shapes off that probe",
    "variance_typed_in": "typing the variances into the cell as numbers (copied from a printout of an earlier run, "
                         "on other random draws of Q and K) instead of computing them: compute them in the cell from "
                         "this notebook's raw_scores (raw_scores.var().item(), and the same for the scaled scores)",
    "softmax_result_squeezed": "squeezing the softmax's result (a bare .squeeze(), added to make a printout fit on "
                               "one line): every length-1 axis of the input is dropped, so a single row, a single "
                               "query or a batch of one comes back with fewer axes than it went in with; return the "
                               "result with the input's shape (squeeze only a copy for printing)",
    "mask_squeezed_loses_broadcast_axes": "squeezing the mask inside the function (a bare mask.squeeze(), to "
                                          "print it): it drops the length-1 axes a padding mask of shape (B, 1, "
                                          "T_k) or (B, 1, 1, T_k) broadcasts on, so its batch axis lines up with "
                                          "the queries (or heads) and the call crashes or masks the wrong entries; "
                                          "keep the mask's shape (squeeze only a copy for printing)",
    "scores_written_in_place": "changing the scores in place (scores3[0, 1:] = float('-inf'), to try the hint) "
                               "before the weights are taken from them: every later line sees the changed "
                               "scores; try such changes on a copy (scores3.clone())",
    # naming round 66 (blind66): right in the middle, wrong at the edges
    "shape_helper_axes_from_the_front": "a shape helper that counts axes from the front as for 4-D (B, H, T, d) "
                                        "tensors (q_shape[:3], k_shape[2]): on 3-D (B, T, d) shapes axis 2 is d_k, "
                                        "not the token axis, so d_k becomes one more leading axis and the key "
                                        "count; count from the end instead (lead = q_shape[:-2], T_q = "
                                        "q_shape[-2], T_k = k_shape[-2], d_v = v_shape[-1]), which works for any "
                                        "number of leading axes",
    "variance_of_one_triangle": "taking the variance over one triangle of each score matrix (torch.triu_indices, "
                                "an i <= j loop), as if Q K^T were symmetric: it is only when the keys are the "
                                "queries; with a separate K every one of the T_q x T_k scores is its own number, "
                                "so take .var() over all of them",
    "max_shift_behind_a_threshold": "subtracting the max only when a logit passes a threshold (88, exp's overflow "
                                    "point in float32): in float16 exp already overflows past about 11, so "
                                    "float16 logits between 11 and the threshold give inf / inf = NaN; subtract "
                                    "each row's max always (it costs nothing and never changes the result)",
    "denominator_epsilon": "adding a small constant to the softmax's denominator (exp / (sum + 1e-9)) to guard "
                           "the rows with no visible key: every row's weights then sum to slightly less than 1, "
                           "and in float16 the constant rounds to 0, so an empty row is still 0 / 0 = NaN; divide "
                           "by the sum alone and zero the empty rows explicitly (torch.where on mask.any(-1, "
                           "keepdim=True))",
    "mask_dropped_for_one_query": "throwing the mask away when there is a single query (mask = None when "
                                  "Q.size(-2) == 1, as for the newest token of a decoding step): a mask given "
                                  "with T_q = 1 (a padding mask, a top-left causal mask with T_k > 1, a fully "
                                  "masked query) must still be applied; remove the shortcut",
    "single_key_returns_values": "a fast path for a single key that returns V for every query without the mask: "
                                 "a query whose only key is masked must get a row of zeros, and Q and K drop out of "
                                 "the graph (their gradients are None instead of zeros); remove the fast path (the "
                                 "general code handles T_k = 1)",
    "causal_single_query_all_visible": "a shortcut for a single query that returns an all-True row (the "
                                       "bottom-right, decoding convention, where the one query is the newest "
                                       "token): with the top-left alignment asked for, query 0 sees only key 0, so "
                                       "causal_mask(1, T_k) is [True, False, ..., False]; drop the single-query "
                                       "shortcut (the general rule key j <= query i covers it)",
    "causal_loop_last_row_skipped": "filling the causal weights row by row in a loop that stops one short "
                                    "(range(T - 1)) on the idea that the last query needs no mask: the matrix "
                                    "started as zeros, so the last row stays all zeros; the last query still "
                                    "needs its softmax (over every key): loop over range(T)",
    # naming round 69 (blind69)
    "variance_sum_not_reset": "reusing the running sum of squared deviations for the second variance without "
                              "setting it back to 0: the second answer also holds the first one's total (here the "
                              "raw variance plus the scaled one, 9/8 of the raw); start each sum at 0 (total = 0.0 "
                              "before each loop), or use .var()",
    "softmax_rank_assert": "an assert in stable_softmax that the input is 2-D (x.dim() == 2, a (rows, classes) "
                           "matrix): the softmax must work on any rank (1-D logits, the 3-D and 4-D scores of "
                           "Question 5); remove the assert, the rest already works along dim",
    "dot_product_features_cut_short": "summing each hand-written dot product over too few features: a loop over the "
                                      "features that stops one short (range(n_tokens) = 3, or range(d_k - 1), where "
                                      "Q3 and K3 have d_k = 4 features), so the last feature is left out of every "
                                      "score; loop over range(Q3.shape[1]), or write Q3 @ K3.T",
    "count_started_at_one": "starting a counter at 1 (as a product's running value starts) instead of 0: a count "
                            "adds one per item, so it starts from none and ends one too high here; start it at 0, "
                            "or write the product of the sizes (T8 * T8)",
    "count_kept_between_calls": "a counting function whose total outlives the call (a global, or a module-level "
                                "dict or list it adds to): the count at 2T still holds the count at T, so the "
                                "ratio is (1 + 4) instead of 4; start the total at 0 inside the function, on every "
                                "call",
    # round 70 (blind70: code an AI assistant wrote, one confident wrong detail)
    "divisor_given_as_fourth_root": "giving scale_divisor as a fourth root, d_k ** 0.25 (sqrt(8) = 2.83 for "
                                    "d_k = 64): that is the factor each of Q and K is divided by when the scale is "
                                    "split over them, but the scores are divided by the product of the two, "
                                    "d_k ** 0.25 * d_k ** 0.25 = sqrt(d_k); scale_divisor asks for that divisor of "
                                    "the scores, math.sqrt(64) = 8",
    "scores_through_dropout": "passing the scores through a dropout before measuring them (F.dropout trains by "
                              "default, training=True; an nn.Dropout module too until .eval()): it zeroes a "
                              "fraction p of the scores at random and multiplies the rest by 1 / (1 - p), so their "
                              "variance comes out larger; measure raw_scores / math.sqrt(d_k) itself, without "
                              "dropout",
    "keys_reshaped_with_query_length": "reshaping K with the query length T (and S to T x T), which holds only when "
                                       "T_q == T_k, as in self-attention: with another number of keys the reshape "
                                       "fails or mixes keys across batch entries; reshape K with its own length "
                                       "K.shape[-2] and S to (..., T_q, T_k)",
    "scores_layer_normed": "passing the scores through a layer norm over the keys (F.layer_norm(scores, "
                           "scores.shape[-1:]), for stability) before the softmax: it re-centres each query's "
                           "scores, which the softmax ignores, and divides them by their own std, which undoes the "
                           "1/sqrt(d_k) scale; the scale is the constant sqrt(d_k) (the max-subtraction in the "
                           "softmax is the stability step): remove the layer norm",
    "weights_clamped_to_epsilon": "clamping the softmax weights to at least a small eps after the division "
                                  "(probs.clamp_min(eps), to keep a later log away from 0): a blocked (-inf) key "
                                  "gets weight eps instead of exactly 0, and its row sums to more than 1; return "
                                  "exp / sum as it is, and guard the later log where it is taken (log(p + eps), "
                                  "or log_softmax)",
    "softmax_temperature_root_n": "dividing the logits by sqrt(n), n the length of the softmax axis (a "
                                  "temperature whose default is sqrt(x.size(dim)) instead of 1): every call "
                                  "flattens the weights; a softmax takes its logits as they are (the attention "
                                  "scales its scores by 1/sqrt(d_k) before calling it): default the temperature to "
                                  "1, or leave it out",
    # naming round 71 (blind71: memory-conscious code)
    "inplace_on_saved_tensor": "writing in place (div_, mul_, /=, masked_fill_, exp_) into a tensor that autograd "
                               "saved for the backward pass (exp and softmax save their result, a product saves its "
                               "factors): the values come out right, but any backward raises 'one of the variables "
                               "needed for gradient computation has been modified by an inplace operation'. Do that "
                               "step out of place (e / e.sum(dim, keepdim=True), not e.div_(...) or e /= ...); an "
                               "in-place step before the tensor is saved (a fresh x - m, then exp_) is fine",
    "output_rows_never_written": "filling a preallocated output (torch.empty) block by block in a loop that stops at "
                                 "the last full block (range(0, T // B * B, B)): when the length is not a multiple "
                                 "of the block size, the rows of the last, shorter block are never computed and "
                                 "hold whatever memory torch.empty left there (they can even change from call to "
                                 "call). Loop to the full length, range(0, T, B) (the last slice is simply "
                                 "shorter), or compute every row at once",
    # naming round 72 (blind72)
    "iterator_read_twice": "a one-shot iterator read twice: a generator expression (x for ...), map(), filter(), "
                           "zip() or iter() is used up by the first call that reads it (math.prod, sum, list, a for "
                           "loop), so the second call gets an empty iterable: math.prod of nothing is 1, sum of "
                           "nothing is 0. Keep the values in a tuple or a list ((T, T), [T, T]) to read them more "
                           "than once",
    "product_started_at_zero": "a product started from 0 (functools.reduce(operator.mul, sizes, 0), math.prod(sizes, "
                               "start=0), or total = 0 then total *= n in a loop): 0 times anything is 0, so the "
                               "count is 0. A product starts at 1: reduce(operator.mul, sizes, 1), or "
                               "math.prod(sizes)",
    "output_rows_zipped_with_value_rows": "pairing each weight row with the ROWS of V (zip(w_row, v_row) for each "
                                          "v_row in V) instead of its columns: zip stops silently at the shorter of "
                                          "the two, so each entry is a partial dot product and there is one entry "
                                          "per value row instead of one per value column. Take V's columns "
                                          "(zip(*V.tolist()), or zip(..., strict=True), which would have raised), "
                                          "or write weights @ V",
    "shape_unpacked_width_first": "unpacking a (..., T, d) shape with the last two names the wrong way round "
                                  "(*batch, d_k, T = q_shape): the name meant for the sequence length holds the "
                                  "feature width and the other way round, so the sizes built from it are widths "
                                  "where lengths go. Q and K are (..., T, d_k): unpack them as *batch, T, d_k = "
                                  "q_shape (or index q_shape[-2] for the length, q_shape[-1] for the width)",
    "mask_grid_filled_column_major": "filling the mask's grid in the wrong order: the flat list of entries is built "
                                     "with the keys in the outer loop (for j in keys: for i in queries, or "
                                     "itertools.product(range(T_k), range(T_q))) but reshaped row by row to (T_q, "
                                     "T_k), so each entry lands in another cell: a square mask comes out transposed "
                                     "(the upper triangle) and a rectangular one scrambled. Put the queries in the "
                                     "outer loop (itertools.product(range(T_q), range(T_k))), or build the grid "
                                     "directly: torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]",
    # naming round 72 (blind73)
    "output_heads_axis_squeezed": "squeezing the output at an axis that can be a real length-1 axis (an "
                                  "unconditional .squeeze(1), or a bare .squeeze(), meant to undo a heads axis added "
                                  "to 3-D inputs): a 4-D input with one head, (B, 1, T_q, d), loses its heads axis "
                                  "too and comes back (B, T_q, d_v). Squeeze only where you added the axis (keep a "
                                  "flag), or add none: matmul and the softmax work on any number of leading axes",
    "softmax_dim_sign_assert": "an assert in stable_softmax that dim is counted from the end (dim < 0): dim=0 and "
                               "dim=1 are valid axes too (torch's dim takes both, -x.dim() <= dim < x.dim()), and "
                               "the tests pass them; remove the assert (or check the full range), the rest already "
                               "works along any dim",
    "causal_mask_assert_more_keys": "an assert in causal_mask that there are at least as many keys as queries (T_k >= "
                                    "T_q): fewer keys than queries is a valid mask too, top-left aligned (query i "
                                    "sees keys 0..min(i, T_k - 1)), and the tests ask for it; drop the assert, "
                                    "torch.ones(T_q, T_k, dtype=torch.bool).tril() handles both",
    "softmax_leading_axis_squeezed": "squeezing axis 0 of the softmax's result unconditionally (a .squeeze(0) meant "
                                     "to undo an .unsqueeze(0) added for 1-D inputs, or to print a row): an input "
                                     "whose first axis "
                                     "really has length 1 (a single row (1, n), a batch of one) loses it too. Squeeze "
                                     "only when you added the axis (remember x.dim() == 1), or add none: the max and "
                                     "the sum along dim work on 1-D inputs as they are",
    # naming round 74 (blind74: NumPy habits; blind75: slips of the hand)
    "max_index_taken_for_value": "taking the index half of torch.max(x, dim)'s result for the maximum "
                                  "(x.max(dim, keepdim=True)[1], or .indices typed for .values): given a dim, torch.max "
                                  "returns the pair (values, indices), like np.max and np.argmax at once, and [1] or "
                                  ".indices is WHERE the maximum is (0, 1, 2, ...), not the maximum, so the softmax "
                                  "subtracts a position (no real shift: large logits overflow) or a 'has a visible "
                                  "key' test says no for every row whose first visible key is key 0. Take [0] or "
                                  ".values, or x.amax(dim, keepdim=True); for 'any True in the row' use "
                                  "mask.any(dim=-1, keepdim=True)",
    "d_k_from_slice_numel": "taking d_k as the element count of a slice of Q (Q[0, 0].numel(), NumPy's Q[0, 0].size, "
                            "len of a flattened slice): the slice is one query vector only for 3-D inputs; for 4-D "
                            "(batch, heads, T_q, d_k) inputs Q[0, 0] is a (T_q, d_k) matrix, so the scores are divided "
                            "by sqrt(T_q * d_k) and the weights come out too flat. Read the width off the last axis: "
                            "d_k = Q.shape[-1] (Q.size(-1))",
    "helper_args_swapped": "calling your own helper with its arguments in the wrong order (madds(64, 2048) for def "
                           "madds(T, d)): Python matches arguments by position, not by what you meant, so the "
                           "doubled length lands in the parameter the helper uses once (the width) and the count "
                           "grows like that one instead of like T * T. Pass them in the def's order, or by name: "
                           "madds(T=2048, d=64) // madds(T=1024, d=64)",
    "triangle_compared_past_one": "turning a triangle of ones (torch.ones(T_q, T_k).tril()) into booleans with a "
                                  "threshold its entries never pass (> 1, >= 2): the triangle holds only 1 (below and "
                                  "on the diagonal) and 0 (above), so no entry passes and the mask is False "
                                  "everywhere (every key blocked). Compare with > 0 (or == 1), or build it as bool "
                                  "directly: torch.ones(T_q, T_k, dtype=torch.bool).tril()",
    # naming round 76 (blind76: framework-style code, blind77: a mathematician's habits)
    "madds_layer_bias_counted": "counting Q @ K.T as a linear layer's parameters (an nn.Linear(d_k, T) applied to "
                                "each query) with the layer's bias included: nn.Linear has a bias by default, T more "
                                "numbers per query (T^2 in all), but Q @ K.T adds no bias, it only takes dot "
                                "products. Count the weights alone (weight.numel(), or bias=False): T x T x d_k "
                                "multiply-adds",
    "init_assigns_local": "writing `d_k = d_k` in a class's __init__ where `self.d_k = d_k` is meant: a bare name "
                          "inside a method is a local variable, gone when __init__ returns, so every instance "
                          "reads the class attribute of that name (here the worked example's d_k = 8) whatever you "
                          "passed. Store it on the instance: self.d_k = d_k",
    "softmax_built_once": "building the softmax (a layer or object holding dim) once, on the first call, and "
                          "keeping it between calls (a global, a module-level cache, an attribute): every later call "
                          "normalises along the first call's dim whatever dim it passes. Build it on each call, or "
                          "key the cache on dim (cache[dim]), or just compute along the dim you are given",
    "axis_counted_from_one": "turning an axis number from the formula into an index by subtracting 1 ([2 - 1] for "
                             "'the 2nd dimension'): the formula counts the axes of one batch entry (V is T_k x d_v), "
                             "but the shape has the batch axis first, so the index lands on another axis (here the "
                             "keys, T_k). Read the width as the last axis, v_shape[-1] (or V.shape[-1])",
    "linear_default_bias": "building nn.Linear layers (set to the identity with nn.init.eye_, or to any weights) "
                           "without bias=False: nn.Linear has a bias by default, drawn at random when the layer is "
                           "built, and setting the weight leaves it, so a random vector is added to every projected "
                           "query, key or value (a new one on each call when the layer is built inside the "
                           "function). Pass bias=False (or zero the bias), or leave the projections out: the "
                           "function takes Q, K and V as given",
    "training_mode_gate": "putting a needed step under `if not self.training` (or another test of .training): an "
                          "nn.Module is in training mode from the moment it is built until .eval() is called, so a "
                          "module built inside the function never runs that step. Do it whatever the mode (here: "
                          "give a query with no visible key a row of zeros)",
    "mask_ratio_divides_by_zero": "writing j <= i as a ratio (j / i <= 1, or i / j >= 1): the ratio divides by the "
                                  "position 0, and 0 / 0 is NaN while j / 0 is inf, and a comparison with NaN is "
                                  "False, so query 0 (or key 0) loses keys it may see, even its own. Compare the "
                                  "positions themselves: j <= i (or torch.tril of ones)",
    # naming round 82 (blind82, blind83)
    "mutable_default_kept_between_calls": "a mutable default argument (opts={}, cache=[]) filled on the first call: "
                                          "Python builds a default value once, when the def runs, so what the first "
                                          "call stores in it (here the divisor for that call's d_k) is kept and read "
                                          "by every later call, whatever its own d_k. Use None as the default and "
                                          "make a new one in each call (opts = dict(opts or {})), or compute the "
                                          "divisor from Q.shape[-1] on every call",
    "trace_divided_by_fixed_8": "dividing the hand trace's scores by a fixed 8, the square root of d_k = 64 (the "
                                "head width of the paper and of the blog posts' worked examples), instead of the "
                                "square root of this trace's own d_k = 4: the divisor is sqrt(d_k) of the vectors "
                                "in front of you, here 2 (math.sqrt(Q3.shape[-1]))",
    "entries_all_heads": "counting the weights of all the heads (h x T^2, with the paper's h = 8) where the "
                         "question asks about one head's T x T weight matrix: each head has its own T x T matrix, "
                         "and the notebook's attention is one head, so count T * T",
    # naming round 84 (blind84)
    "moved_axis_reshaped_back": "moving `dim` last (x.movedim(dim, -1), x.transpose(dim, -1) or a permute), "
                                "normalising along the last axis, and then putting the result back with "
                                ".reshape(x.shape) (or .view): reshape does not move an axis, it re-reads the moved "
                                "tensor's numbers in memory order, so for any dim but the last they land in the "
                                "wrong cells. Move the axis back the way it came (.movedim(-1, dim), or the same "
                                "transpose again), or reduce along dim directly (x.amax(dim=dim, keepdim=True))",
    # naming round 86 (blind86, blind87)
    "weights_shape_per_query_statistic": "giving the shape of a per-query statistic (a reduction over the keys kept "
                                         "with keepdim=True: a row's max, sum or log-sum-exp, the one number per "
                                         "query that a memory-efficient kernel stores to rebuild the weights) for the "
                                         "weight matrix's: the weights hold one number per (query, key) pair, so their "
                                         "last axis is T_k: (B, T_q, T_k)",
    "output_after_projection": "giving attention's output the model width it has after an output projection "
                               "(out_proj = nn.Linear(d_v, d_model), W_O) of a transformer block: the question's "
                               "attention has no projection, each query's output is a mixture of rows of V, so its "
                               "width is V's, d_v: (B, T_q, d_v)",
    "madds_training_step": "counting the multiply-adds of a training step (the forward Q @ K^T plus the two products "
                           "of the same size in its backward pass, dQ = dS K and dK = dS^T Q: 3 x T^2 d_k) where the "
                           "question asks for computing Q @ K.T once: T * T * d_k",
    "cost_ratio_fixed_token_budget": "taking the growth factor for a training batch held at a fixed token budget "
                                     "(tokens // T sequences per batch): doubling T halves the number of sequences, "
                                     "so the batch's cost only doubles. The question is about one head and one "
                                     "sequence, whose Q @ K.T cost T^2 d_k grows by (2T)^2 / T^2 = 4: drop the "
                                     "budget and compare one sequence's counts",
    "online_output_not_rescaled": "when a later key block raises a query's running max, the running sum l is "
                                  "rescaled by exp(m_old - m_new) but the running output acc is not: both were "
                                  "summed relative to the old max, so the earlier blocks' values keep too much "
                                  "weight. Rescale acc by the same factor before adding the block "
                                  "(acc = alpha * acc + p @ V_blk)",
    "scale_compounds_per_block": "the 1/sqrt(d_k) scale is folded into Q (Q = Q * scale) inside the loop over key "
                                 "blocks, so the already scaled Q is scaled again at every block and block b's "
                                 "scores are divided by sqrt(d_k)^(b + 1). Scale once, before the loop (or scale "
                                 "each block's scores, not Q)",
    "online_max_unguarded": "the running max is still -inf for a query whose keys so far are all masked, and it is "
                            "used as the shift: exp(-inf - (-inf)) is NaN, which the running sum and output carry "
                            "through every later block even when later keys are visible. Shift by 0 where the "
                            "running max is -inf (torch.where(torch.isneginf(m_new), 0, m_new)) for the "
                            "exponentials and the rescale factor",
    "online_sum_not_rescaled": "when a later block raises the running max, the running sum of exp(x - m) is not "
                               "rescaled to the new max (the max overwritten before exp(m_old - m_new) is taken "
                               "makes the factor exp(0) = 1): the earlier blocks' terms stay relative to the old "
                               "max, the sum is too large and the slice sums to less than 1. Compute m_new, "
                               "multiply the old sum by exp(m_old - m_new), then set m = m_new",
    "online_sum_rescale_inverted": "when a later block raises the running max, the running sum is multiplied by "
                                   "exp(m_new - m_old), the inverse of the rescale: the terms summed so far are "
                                   "relative to the old max, and moving them to the new max shrinks them by "
                                   "exp(m_old - m_new) (at most 1). Multiply by exp(m_old - m_new)",
    "tile_triangle_below_diagonal": "every tile at or left of the diagonal gets the tile's lower triangle, but "
                                    "only the tiles ON the diagonal need it: a tile wholly below the diagonal "
                                    "holds keys that come before all of its queries, so it must be all True "
                                    "(query 4 sees keys 0 to 4, not only key 0 and key 4 with 4 x 4 tiles). "
                                    "Give the tiles below the diagonal all True and only the diagonal tiles "
                                    "the triangle, or build the mask as a whole: j <= i (torch.tril)",
    # naming round 88 (blind88: defensive code, blind89: selection and indexing)
    "shape_lengths_padded": "giving the shape of a padded allocation (a length rounded up to a multiple of 8 or 16, "
                            "or to a power of two, as fused kernels pad it) where the question asks for the shape "
                            "of its tensors: the weights and the output have one row per query and the weights one "
                            "column per key of the T tokens given, unpadded; use T itself",
    "output_rows_renormalised": "dividing each output row by its own sum, as if the output rows summed to 1: it is "
                                "the weight rows that sum to 1; each output row is a mixture of V's rows, whose "
                                "entries sum to anything. Leave weights @ V as it is (drop the row division)",
    "head_width_off_by_one": "the head width counted one short (d_k - 1 features: a count that skips feature 0, "
                             "such as count_nonzero(arange(d_k)) or range(1, d_k), or len(...) - 1): the divisor is "
                             "sqrt(d_k) over all d_k features, here sqrt(64) = 8",
    "diagonal_scores_counted_twice": "the list of (query, key) pairs joins two index sets that both hold the "
                                     "diagonal (tril_indices and triu_indices, or i <= j with i >= j), so each "
                                     "query's score with its own position is taken twice in the statistic; take "
                                     "every score once (the whole Q @ K.transpose(-2, -1), or tril with triu "
                                     "offset 1)",
    "pair_list_numel": "counting the entries with numel() of a list of (query, key) index pairs (cartesian_prod, "
                       "nonzero(), argwhere): the list has one row per pair and two columns, the two coordinates, "
                       "so numel() is 2 x T^2; count its rows (pairs.shape[0], len(pairs)) or take T * T",
    "row_sum_scatter_overwrites": "building each row's sum with scatter (scatter_), which writes: each term "
                                  "written to the row's slot replaces the one before, so the slot keeps one term "
                                  "(the last written), not their sum, and each row is divided by one of its own "
                                  "exponentials. Accumulate with scatter_add (or index_add, or "
                                  "exps.sum(dim=-1, keepdim=True))",
    "sorted_softmax_regathered": "putting the softmax of the sorted logits back with gather(dim, order): gather "
                                 "reads position order[k] into slot k, which applies the sort permutation a "
                                 "second time instead of undoing it, so the probabilities land on other entries. "
                                 "Undo it with torch.empty_like(p).scatter(dim, order, p), or gather with "
                                 "order.argsort(dim)",
    "power_of_two_padding_past_length": "padding a length to the next power of two with 1 << n.bit_length() (or "
                                        "2 ** (int(log2(n)) + 1)): for n that already is a power of two (T = "
                                        "1024) it gives 2n, so the count is that of twice the length. The "
                                        "question asks for the T x T matrix as it is: count T * T (a power-of-two "
                                        "pad is 1 << (n - 1).bit_length(), n itself here)",
    "empty_rows_indices_mixed_across_batch": "clearing the fully masked queries' rows with index_fill(-2, idx) "
                                             "where idx comes from nonzero() of a batched (..., T_q) flag: "
                                             "nonzero() gives one (batch, ..., query) row per hit, and flattening "
                                             "it applies batch indices as query indices, to every batch entry, "
                                             "so queries that have keys lose their output. Use the flag itself: "
                                             "torch.where(flag[..., None], 0, out) (or masked_fill), or "
                                             "nonzero(as_tuple=True) with index_put",
    "has_key_flag_gathered_wrong_axis": "the 'query has an allowed key' flag is gathered along the query axis "
                                        "(gather(-2, first)) where `first` indexes keys: it reads mask[first, 0], "
                                        "another query's entry, so queries with keys can be zeroed and fully "
                                        "masked ones left NaN. Gather along the key axis (gather(-1, first)), or "
                                        "use mask.any(dim=-1, keepdim=True)",
    "max_picked_by_product": "picking each slice's max by multiplying a 0/1 selection (one_hot of the argmax, "
                             "x == max) into the logits and summing: the selection's zeros times a -inf logit give "
                             "0 * -inf = NaN, so every slice holding a -inf (a masked score) turns NaN. Read the max "
                             "itself: x.amax(dim, keepdim=True), or x.gather(dim, argmax) / take_along_dim",
    "shift_skipped_where_minus_inf": "skipping the max subtraction for every slice that holds a -inf (a guard such "
                                     "as torch.isinf(x).any(dim) against -inf - (-inf) = NaN): a partly masked "
                                     "slice still has finite logits, and unshifted they overflow exp (float16 past "
                                     "11, float32 past 88). Only an all -inf slice needs the guard: shift by "
                                     "torch.where(torch.isneginf(m), 0, m) with m the slice's max",
    # rules
    "forbidden_api": "calling an API this assignment forbids (F.scaled_dot_product_attention) instead of "
                     "implementing it",
    "not_vectorised": "Python loops over rows, queries, small blocks of keys or batch entries instead of batched tensor operations",
}
