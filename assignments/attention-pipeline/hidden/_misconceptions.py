"""Misconceptions of attention-pipeline: key -> what the student's answer matches, in words.

Plain data, declared once for the assignment (no imports): a failed hidden test names a key only when
the student's output matches what that mistake produces on the same input. A key shared with another
assignment has the same text there (tests/test_authoring.py checks it)."""

MISCONCEPTIONS = {
    # projections and scores
    "qk_swapped": "swapping the query and key projections (Q from W_K, K from W_Q)",
    "same_projection": "using one projection matrix for more than one of Q, K, V",
    "scores_transposed": "computing K Q^T (keys as rows) instead of Q K^T (queries as rows)",
    "divide_by_dk": "dividing the scores by d_k instead of sqrt(d_k)",
    "no_scale": "not scaling the scores at all",
    "float32_scale": "computing the scale constant in float32, which loses precision for float64 inputs",
    "scale_by_d_model": "scaling by 1/sqrt(d_model) instead of 1/sqrt(d_k)",
    "scale_by_d_v": "scaling by 1/sqrt(d_v) (the width of V) instead of 1/sqrt(d_k)",
    "scale_by_T": "scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of "
                  "1/sqrt(d_k)",
    # the additive mask
    "infinite_mask": "putting -inf in the additive mask; this assignment asks for a finite, dtype-aware "
                     "value (torch.finfo(dtype).min)",
    "neg_1e9_float16": "filling masked scores with -1e9, which overflows float16 (use -inf or the dtype's min)",
    "mask_not_dtype_min": "a blocked value other than torch.finfo(dtype).min (float32's minimum, for one, "
                          "does not fit in float16)",
    "mask_blocks_diagonal": "blocking the diagonal too: a token must be allowed to attend to itself",
    "upper_triangular_mask": "an upper-triangular (future-looking) mask instead of a lower-triangular one",
    # the softmax
    "softmax_wrong_dim": "taking the softmax over the query dimension (dim=-2) instead of the keys (dim=-1)",
    "mask_ignored": "ignoring the mask",
    "mask_sign_flipped": "subtracting the additive mask (S - M) instead of adding it: the blocked keys get "
                         "all the weight",
    "zero_after_softmax": "zeroing masked weights after the softmax: rows no longer sum to 1",
    "no_max_subtraction": "a softmax without max-subtraction, which overflows in float16",
    "crash_on_mask_none": "crashing when mask=None",
    # self-attention
    "ignores_causal_flag": "applying the causal mask even when causal=False",
    "no_causal_mask": "never applying the causal mask, so tokens read the future",
    # lenses
    "nw_unnormalised": "forgetting the kernel smoother's denominator (sum of the kernel weights)",
    "prefix_average_divide_by_T": "dividing every prefix sum by T instead of by the prefix length t",
    "entropy_in_nats": "measuring entropy in nats (natural log) instead of bits (log base 2)",
    "entropy_sign": "dropping the minus sign of the entropy (sum of p log p is negative)",
    "entropy_wrong_dim": "computing the entropy over the wrong dimension (down the columns instead of along "
                         "each row)",
    "zero_log_zero_nan": "letting 0 * log 0 become NaN; masked (zero) weights must contribute 0",
    "effective_tokens_wrong_base": "raising e (not 2) to an entropy measured in bits",
    "rank_bounded_by_T": "bounding the rank of S = Q K^T by the number of tokens; it is at most d_k",
    "param_count_bias": "counting bias vectors; the lesson's projections have none",
    "param_count_no_wv": "forgetting W_V in the parameter count",
    "param_count_dv_as_dk": "using d_k where d_v belongs (W_V is d_model x d_v, W_O is d_v x d_model)",
    "param_count_wo_as_dk": "sizing W_O as d_k x d_model instead of d_v x d_model",
    # cross-attention
    "causal_in_cross": "applying a causal mask in cross-attention, where queries and keys come from "
                       "different sequences",
    "cross_roles_swapped": "taking queries from Y or keys/values from X in cross-attention",
    "cross_is_self_attention": "taking the keys and values from X as well (that is self-attention, "
                               "not cross-attention)",
    # multiple choice
    "softmax_scale_invariant": "thinking the softmax does not change when every score is multiplied by "
                               "the same constant (it is unchanged only when a constant is added)",
    # memory layout (the same text as sdpa-from-scratch's)
    "view_on_noncontiguous": "calling .view on an input that may not be contiguous (a transposed, sliced or "
                             "expanded tensor): use .reshape, or call .contiguous() first",
    "inplace_on_input": "changing an input in place (Q /= ..., Q.mul_(...), an in-place fill of an input): an "
                        "expanded input cannot be written, a tensor that needs gradients may not be, and the "
                        "caller's tensor changes; compute a new tensor instead",
}
