"""How well the grader names mistakes (issue 21): grades the held-out sets of an assignment through the
real Grader and prints, per set, the wrong variants named right / generic / raw exception / mis-named /
not caught, and the correct ones at full marks.

    .venv/bin/python -m tests.heldout.measure sdpa-from-scratch [--set variants|blind|blind2|...|blind5|NAME] [-v]

`variants.py` says each wrong variant's key; any other set, `<slug>/NAME.py` (`blind.py` to `blind5.py`:
written without seeing the catalogue), says each mistake in words, and SET_KEYS below maps each of its
variants to the keys that name that mistake (written after reading the outcome; the blind variants
themselves are never changed). A wrong variant is
- named right: it loses points and every failed test names one of its acceptable keys;
- named, unmapped: its set has no key mapping for it yet, it loses points and every failed test names
  some key (whether the right one is for a person to judge);
- mis-named: some failed test names a key that is not one of its mapped keys;
- raw exception: no failed test names anything and each says only "your code raised ...";
- generic: no failed test names anything, and some message says what differs;
- not caught: it keeps full marks.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from collections import Counter
from collections.abc import Collection
from pathlib import Path

from tests.heldout.harness import ROOT, Outcome, Variant, grade, load_variants

# blind variant -> the misconception keys that name its mistake (None: none exists in the catalogue)
BLIND_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "sdpa-from-scratch": {
        "q1_out_shape_uses_d_k": ("output_width_dk",),
        "q2_variance_scaled_by_sqrt": ("variance_scaled_like_scores",),
        "q2_scale_divisor_d_k": ("divide_by_dk",),
        "q3_global_max": ("global_max_subtraction",),
        "q3_dim_argument_ignored": ("softmax_ignores_dim",),
        "q3_max_without_keepdim": ("reduction_without_keepdim",),
        "q3_float32_result": ("float32_precision", "dtype_changed"),
        "q4_bottom_right_aligned": ("causal_bottom_right",),
        "q4_float_mask": ("mask_not_bool",),
        "q4_t_k_ignored": ("causal_ignores_T_k",),
        "q5_returns_output_and_weights": ("returns_extra_values",),
        "q5_dot_T_on_batched_keys": ("fixed_axes",),
        "q5_dropout_left_on": ("nondeterministic",),
        "q5_padding_mask_unsqueeze": ("mask_unsqueezed",),
        "q5_flips_callers_mask": ("inplace_on_input",),
        "q5_detached_weights": ("gradient_cut",),
        "q5_bmm_3d_only": ("fixed_axes", "bmm_of_matrices"),   # bmm_of_matrices: bmm's own words (after blind36)
        "q5_float32_output": ("float32_precision", "dtype_changed"),
        "q5_mask_polarity": ("inverted_mask",),
        "q5_scale_after_softmax": ("scale_after_softmax",),
        "q6_zeroed_after_softmax": ("zero_after_softmax",),
        "q6_unscaled_hand_trace": ("no_scale",),
        "q7_answer_a": ("zero_after_softmax",),
        "q8_cost_ratio_linear": ("cost_linear_in_T",),
        "q8_entries_times_d_k": ("entries_times_d_k",),
    },
    "scaled-attention": {
        "q1_returns_weights_first": ("results_reordered",),
        "q1_whole_matrix_normalised": ("softmax_whole_matrix",),
        "q1_precedence_d_k_over_2": ("scale_precedence", "wrong_scale_constant"),
        "q1_float32_cast": ("float32_precision",),
        "q1_sigmoid_gate": ("sigmoid_weights",),
        "q2_returns_std": ("variance_returned_std",),
        "q2_scaled_variance_by_sqrt": ("variance_scaled_by_sqrt",),
        "q2_returns_tensor": ("returns_tensor_not_number",),
        "q2_one_shared_query": ("shared_sample",),
        "q4_entropy_sign": ("entropy_sign",),
        "q4_entropy_mean_over_rows": ("entropy_one_number",),
        "q4_entropy_of_scaled_by_T": ("entropy_normalised",),
        "q4_table_seeded_once": ("seed_outside_loop",),
        "q4_table_keys_drawn_first": ("keys_drawn_first",),
        "q4_table_scaled_by_d": ("divide_by_dk",),
        "q4_table_tensor_values": ("returns_tensor_not_number",),
        "q5_answer_sqrt": ("variance_vs_std",),
        "q7_answer_argmax": ("attention_as_argmax",),
        "q8_linear_convention": ("mha_weight_transposed",),
        "q8_strided_head_columns": ("mha_strided_heads",),
        "q8_no_output_projection": ("mha_no_output_projection",),
        "q8_merge_without_transpose": ("mha_merge_without_transpose",),
        "q8_single_full_width_head": ("mha_single_head",),
    },
    "attention-pipeline": {
        "q01_keys_from_query_matrix": ("same_projection",),
        "q02_dot_T_batched": ("batched_input_unsupported", "fixed_axes"),
        "q02_integer_exponent": ("no_scale",),               # 1 // 2 == 0: the scale is 1
        "q03_answer_flatter": ("scale_direction_reversed",),
        "q04_mask_in_default_dtype": ("mask_built_in_float32",),
        "q04_boolean_mask": ("mask_not_additive",),
        "q05_scores_modified_in_place": ("inplace_on_input",),
        "q05_softmax_dim1": ("softmax_wrong_dim",),
        "q05_tensor_truthiness": ("tensor_truthiness",),
        "q07_causal_flag_ignored": ("ignores_causal_flag",),
        "q07_returns_weights_first": ("results_reordered",),
        "q07_mask_size_from_batch_dim": ("batched_input_unsupported",),
        "q08_kernel_unscaled": ("no_scale",),
        "q08_mean_not_ratio": ("nw_unnormalised",),
        "q09_float32": ("prefix_average_float32",),
        "q09_divides_columns": ("prefix_average_wrong_axis",),
        "q10_effective_tokens_base_e": ("effective_tokens_wrong_base",),
        "q10_entropy_over_queries": ("entropy_wrong_dim",),
        "q11_rank_is_d_k": ("rank_is_the_bound", "rank_above_min"),   # 4 is d_k and rank K on the lesson's S
        "q12_output_square": ("param_count_wo_square",),
        "q13_values_from_queries": ("cross_roles_swapped",),
        "q13_mask_ignored": ("mask_ignored",),
        "q06_answer_rows_sum": ("mask_breaks_normalisation",),
        "q15_answer_square_only": ("causal_needs_square",),
        "q14_answer_output_rows_from_y": ("cross_output_from_keys",),
    },
}


# blind2 variant -> keys (None: none exists); empty until someone maps them after reading an outcome
BLIND2_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure <slug> --set blind2 -v` against each variant's "mistake" words and code
    "sdpa-from-scratch": {
        "q1_batch_dim_dropped": ("batch_dim_dropped",),
        "q2_numpy_biased_var": ("biased_variance",),
        "q2_power_precedence": ("scale_precedence",),           # scale_divisor 32 = 64 ** 1/2
        "q3_no_max_shift": ("no_max_subtraction",),
        # max(...)[1] subtracts an index, so no maximum is subtracted: the fix is on the max-subtraction line
        "q3_subtracts_argmax_index": ("no_max_subtraction",),
        "q3_global_sum": ("softmax_global_sum",),
        "q3_shifts_input_in_place": ("inplace_on_input",),
        "q4_strict_lower_triangle": ("causal_excludes_self",),
        "q4_returns_future_mask": ("inverted_mask",),           # True on the blocked keys
        "q5_fill_minus_1e9": ("fully_masked_uniform", "neg_1e9_float16"),   # its words name both effects
        "q5_fully_masked_rows_nan": ("fully_masked_nan",),
        "q5_scale_from_float32_tensor": ("float32_scale",),
        # mis-named on 8 of 13 tests: scale_by_T says the scale is a sequence length; the code reads d_k from
        # axis 1, which is T_q only on 3-D inputs (as attention-pipeline's q02_d_k_from_shape_1 is judged)
        "q5_d_k_from_dim_1": ("scale_by_batch_dim",),
        "q5_masked_fill_result_discarded": ("mask_ignored",),   # the fill is thrown away: no score is masked
        "q5_mask_multiplies_scores": ("mask_fills_zero",),
        # mis-named: fixed_axes (a fixed number of dims) is not the mistake; the any() lost its keepdim
        "q5_any_without_keepdim": ("reduction_without_keepdim",),
        "q5_boolean_index_assignment": ("mask_not_broadcast",),
        "q5_loop_over_queries": ("not_vectorised",),
        "q6_softmax_over_queries": ("softmax_wrong_dim",),
        "q6_two_decimals": ("rounded_answer",),
        "q6_causal_keeps_upper_triangle": ("upper_triangular_mask",),
        # choice D (only float16 goes wrong) keeps zeroing after the softmax, as blind's q7_answer_a does
        "q7_answer_d": ("zero_after_softmax",),
        "q8_caret_is_xor": ("caret_is_xor",),
        "q8_counts_flops": ("madds_counted_twice",),
    },
    "scaled-attention": {
        "q1_softmax_over_queries": ("softmax_wrong_dim",),         # dim=0 of a 2-D score matrix is dim=-2
        "q1_multiplies_by_sqrt": ("multiply_by_sqrt_dk",),
        "q1_scale_from_len": ("scale_by_T",),                      # len(K) is the number of keys
        "q1_returns_scores_as_weights": ("returns_scores_as_weights",),
        "q1_weights_transposed_in_output": ("output_uses_weights_transposed",),
        "q2_sums_over_samples": ("dots_summed_over_samples",),
        "q2_ignores_generator": ("ignores_generator",),
        "q2_variance_of_products": ("variance_of_products",),
        "q4_entropy_in_bits": ("entropy_log_base",),               # its text says "log base 2 or 10"
        "q4_softmax_without_dim": ("softmax_implicit_dim",),
        "q4_log_of_zero": ("entropy_nan_saturated",),
        "q4_table_numpy_std": ("biased_std",),
        "q4_table_uniform_draws": ("uniform_samples",),
        "q5_answer_d_squared": ("variance_d_k_squared",),
        "q6_answer_self_only": ("self_attention_identity",),
        # choice A (exact-match lookup) shares choice C's key: both expect one value back instead of a mix
        "q7_answer_exact_match": ("attention_as_argmax",),
        "q8_split_view_without_transpose": ("mha_split_without_transpose",),
        "q8_heads_scaled_by_d_model": ("mha_scale_by_d_model",),
        "q8_no_input_projections": ("mha_no_input_projections",),
        "q8_slices_rows": ("mha_head_rows_sliced",),               # named from a re-run with T = d_model
        "q8_true_division_head_size": ("mha_head_size_float",),
    },
    "attention-pipeline": {
        "q01_linear_convention": ("weight_transposed",),
        "q01_mm_two_dims_only": ("batched_input_unsupported",),
        # mis-named on the (B, T, d_k) test: scale_by_T says the student meant a sequence length; the code
        # reads d_k from Q.shape[1], which is T only by accident there (the other tests say scale_wrong_axis)
        "q02_d_k_from_shape_1": ("scale_wrong_axis",),
        "q02_scale_from_float32_tensor": ("float32_scale",),
        "q03_answer_scale_invariant": ("softmax_scale_invariant",),
        "q04_lesson_minus_1e9": ("neg_1e9_float16",),
        "q04_minus_inf": ("infinite_mask",),
        "q04_diagonal_blocked": ("mask_blocks_diagonal",),
        "q04_blocks_the_past": ("upper_triangular_mask",),         # its text names the visible (future) pattern
        "q05_naive_exp_softmax": ("no_max_subtraction",),
        "q05_always_adds_mask": ("crash_on_mask_none",),
        "q05_softmax_in_float32": ("float32_precision", "dtype_changed"),   # float64 / float16 inputs
        "q06_answer_no_gradient": ("mask_blocks_gradient",),
        "q07_mask_dtype_hardcoded": ("dtype_changed",),            # float16 crash, float32 copy right
        "q07_skips_scaling": ("no_scale",),
        "q07_tril_after_softmax": ("zero_after_softmax",),
        "q07_tril_then_renormalise": ("renormalised_after_softmax",),
        "q08_gaussian_kernel": ("gaussian_kernel",),
        "q08_no_denominator": ("nw_unnormalised",),
        "q08_scale_from_d_v": ("scale_by_d_v",),
        "q09_zero_based_counts": ("prefix_average_zero_based",),
        "q09_divides_by_T": ("prefix_average_divide_by_T",),
        "q10_entropy_in_nats": ("entropy_in_nats",),
        "q10_log_of_zero_nan": ("zero_log_zero_nan",),
        "q10_squares_entropy": ("effective_tokens_power_reversed",),
        # 5 for the lesson's S is its T as well: rank_is_T (both readings, naming round 6), max_rank_S = 100 T's bound
        "q11_rank_is_T": ("rank_bounded_by_T", "rank_is_T"),
        "q11_rank_left_a_tensor": ("returns_tensor_not_number",),  # charged as scaled-attention charges it
        "q12_counts_biases": ("param_count_bias",),
        "q12_assumes_d_v_equals_d_k": ("param_count_dv_as_dk",),
        "q13_causal_mask_copied_in": ("causal_in_cross",),
        "q13_mask_zeroes_weights": ("zero_after_softmax",),
        "q13_scaled_by_d_model": ("scale_by_d_model",),
        # choice a (S is T x T) is named as keys and values taken from X: the same confusion with self-attention
        "q14_answer_square_scores": ("cross_is_self_attention",),
        "q15_answer_always": ("causal_in_cross",),
        "q16_answer_linear": ("cost_linear_in_T",),
    },
}

# blind3 variant -> keys (None: none exists); empty until someone maps them after reading an outcome
BLIND3_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure <slug> --set blind3 -v` against each variant's "mistake" words and code; () where
    # the grader named nothing (generic, raw, not caught) or where no key of the catalogue names the mistake
    "sdpa-from-scratch": {
        "q1_out_shape_transposed": ("shape_dims_swapped",),     # (4, 128, 10): the right sizes, another order
        "q2_elementwise_diagonal_dots": ("diagonal_scores_only",),
        "q2_mean_of_row_variances": ("mean_of_slice_variances",),
        "q3_subtracts_min": ("softmax_subtracts_min",),         # q6's causal weights say only "NaN or inf"
        # clamped logits: a probe of far-apart logits gives the two largest the same weight
        "q3_clamps_logits": ("clamped_logits",),
        "q3_transposed_not_restored": ("result_axes_permuted",),  # transpose(dim, -1) never undone
        # its mask is tril's transpose, the upper triangle: named on square masks, a shape message otherwise
        "q4_arange_unsqueeze_swapped": ("upper_triangular_mask",),
        "q4_diagonal_plus_one": ("causal_includes_next",),
        # K.view(..., d_k, T_k) taken for a transpose: view_as_transpose (view_on_noncontiguous would advise
        # .reshape, which keeps the bug)
        "q5_view_instead_of_transpose": ("view_as_transpose",),
        "q5_floor_division_scale": ("floor_division_scale",),
        # mask.all taken for mask.any: mask_all_for_any (it was mis-named softmax_global_sum in half precision)
        "q5_all_instead_of_any": ("mask_all_for_any",),
        "q5_zeros_without_like": ("dtype_changed",),            # float32 zeros mixed into half weights
        "q6_output_from_scores": ("values_weighted_by_scores",),  # out3 = scores3 @ V3
        "q6_masked_scores_zero": ("mask_fills_zero",),
        "q7_answer_b": ("upper_triangular_mask",),              # choice B says the upper triangle should be kept
        "q8_entries_T_times_d_k": ("entries_of_Q",),            # T x d_k: the entries of Q
        "q8_cost_ratio_cubic": ("cost_cubic_in_T", "cost_ratio_eight"),  # naming16: 8 now cost_ratio_eight
    },
    "scaled-attention": {
        "q1_int_sqrt_scale": ("integer_sqrt_scale",),
        "q1_returns_output_only": ("returns_output_only",),
        "q1_scales_queries_in_place": ("inplace_on_input",),
        # named since the max-subtracted exp divided by a sum without keepdim is tried (square inputs, and a
        # rectangular crash re-run with as many queries as keys)
        "q1_row_sum_without_keepdim": ("keepdim_missing",),
        # named since a None is checked against the other flag value's call (checks.raise_if_return_missing)
        "q2_missing_return": ("return_missing_on_path",),
        "q2_key_equals_query": ("keys_are_queries",),
        "q4_entropy_sum_dim0": ("entropy_wrong_dim",),          # named since every other axis is tried
        "q4_table_keys_as_columns": ("keys_drawn_transposed",),
        "q4_table_entropies_swapped": ("table_fields_swapped",),   # H_raw / H_scaled: every pair of columns is tried
        "q4_table_dict_of_lists": ("table_dict_of_lists",),     # its columns, made rows, are the right table
        "q5_answer_one": ("variance_after_scaling",),           # variance 1 whatever d_k: the scaled one for the raw
        "q6_answer_plain_mean": ("uniform_weights",),           # the unweighted mean = every key the same weight
        "q7_answer_sorted_keys": ("attention_needs_sorted_keys",),
        # named from torch's message: (n_heads * T, d_k) @ W_O, the heads stacked as rows
        "q8_heads_concatenated_as_rows": ("mha_heads_concatenated_as_rows",),
        "q8_head_slices_start_at_h": ("mha_head_slice_offset",),
        "q8_heads_project_own_input_slice": ("mha_input_split_before_projection",),   # diagonal blocks of W_*
    },
    "attention-pipeline": {
        # the mistake (Q, V, K) is named; the key's example, (weights, output), is about another function
        "q01_returns_q_v_k": ("results_reordered",),
        "q02_keys_times_queries": ("scores_transposed",),
        "q03_answer_negative": ("entropy_negative",),
        "q04_finfo_of_float32": ("mask_not_dtype_min",),
        "q04_returns_numpy": ("returns_numpy_not_tensor",),     # its values, made a tensor, are the right mask
        "q05_subtracts_mask": ("mask_sign_flipped",),
        "q06_answer_rank": ("mask_changes_rank",),
        # was mis-named no_causal_mask (causal=True masks right); a second call passing causal=True names the default
        "q07_causal_default_false": ("default_argument_wrong",),
        "q07_mixes_inputs": ("values_not_projected",),
        # named from a second call with d_v = T, where it runs: the weights lined up with V's columns
        "q08_kernel_broadcast_on_columns": ("nw_weights_on_columns",),
        "q09_tril_forgotten": ("prefix_average_no_tril",),
        "q09_integer_floor_division": ("prefix_average_floor_division",),
        # not caught (float16 0 * log2(0 + 1e-9) = NaN); the same code is variants.py's correct
        # entropy_epsilon_in_log (the lesson's recipe), so a float16 case cannot fail one and pass the other
        "q10_epsilon_inside_log": (),
        "q10_entropy_keepdim": ("keepdim_left_on",),            # right values with one more size-1 axis
        "q11_max_rank_is_T": ("rank_bounded_by_T",),
        "q12_missing_parentheses": ("param_count_precedence",),  # d_model * 2 * d_k + d_v
        "q13_values_with_W_K": ("same_projection",),            # named since V from W_K / W_Q is tried
        # choice c (S T' x T, O T' x d_v) is queries from Y and keys/values from X: the roles swapped
        "q14_answer_transposed_shapes": ("cross_roles_swapped",),
        "q15_answer_equal_lengths": ("causal_needs_square",),
        "q16_answer_cubic": ("cost_cubic_in_T",),
    },
}

# blind4 variant -> keys (None: none exists); empty until someone maps them after reading an outcome
BLIND4_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged by the lead from each variant's mistake words, its code and the key texts (measure -v):
    "sdpa-from-scratch": {
        "q1_weights_shape_is_query_shape": ("shape_of_an_input",),     # (4, 10, 64) is Q's shape
        "q2_scale_divisor_from_example_d_k": ("example_value_reused",),  # sqrt(8): the example's d_k
        "q2_inplace_div_rescales_raw": ("raw_variance_of_scaled_scores",),  # raw_score_var is the scaled one
        "q3_max_over_last_axis_only": ("softmax_max_wrong_axis",),
        "q3_returns_log_probs": ("log_softmax",),
        "q4_uint8_mask": ("mask_not_bool",),              # q4 named; q6's weights3_causal never defined: partly
        "q5_transpose_1_2": ("fixed_axes",),              # the key's text: assumes a fixed number of dims
        "q5_boolean_index_assignment": ("mask_not_broadcast",),
        "q5_scale_from_V": ("scale_by_d_v",),
        "q5_shape_slice_not_index": ("size_not_int",),   # TypeError: must be real number, not torch.Size
        "q6_rounded_to_two_decimals": ("rounded_answer",),
        "q8_score_madds_per_query": ("count_per_query",),
        "q8_entries_causal_triangle": ("causal_triangle_count",),
    },
    # judged from `measure <slug> --set blind4 -v` against each variant's "mistake" words and code; () where
    # the grader named nothing (generic, raw, not caught) or where no key of the catalogue names the mistake
    "scaled-attention": {
        "q1_torch_sqrt_of_int": ("torch_sqrt_of_int",),
        # named since weights that, each row divided by its sum, are the right ones name weights_not_normalised
        "q1_softmax_numerator_only": ("weights_not_normalised",),
        "q1_log_softmax_weights": ("log_softmax_weights",),
        "q2_scaled_flag_inverted": ("scaled_flag_inverted",),
        # q / sqrt(d_k) times k / sqrt(d_k) is the dot product over d_k: the effect divide_by_dk describes
        "q2_both_operands_scaled": ("divide_by_dk",),
        "q4_logits_as_log_probs": ("entropy_without_log",),
        "q4_entropy_upcast_float64": ("dtype_changed",),        # named since right values in another dtype are
        # the table of raw = (k @ q.T)[0] was tried; naming22: generic, (q @ k.T)[:, 0] keeps the same one score
        # now (naming round 54: table_scores_row_of_transpose, by replay (and the source for the table))
        "q4_table_k_times_q": ("scores_transposed", "table_scores_row_of_transpose"),
        "q4_table_loop_over_indices": ("loop_index_as_d",),     # the d column holds the positions 1, 2, ...
        "q6_answer_argmax_row": ("attention_as_argmax",),       # choice C: the single best-matching row
        "q8_range_off_by_one": ("mha_heads_missing",),          # a second call with W_O cut to the heads given
        "q8_query_slice_fixed": ("mha_head_slice_fixed",),      # every set of Q, K, V slices fixed at a head
    },
    "attention-pipeline": {
        # named from a second call: a 2-D X with a batch axis added (and a 3-D slice of a 4-D X) runs and is right
        "q01_einsum_needs_batch": ("batched_input_unsupported",),
        "q02_transpose_0_1": ("batched_input_unsupported",),    # its text names transpose(0, 1) and .mT
        # the right entries blocked, each holding one constant that is not finfo.min: said which constant
        "q04_finfo_max": ("mask_not_dtype_min",),
        "q04_finfo_tiny": ("mask_not_dtype_min",),
        "q05_mask_added_after_softmax": ("mask_after_softmax",),
        # named on the input where M only broadcasts (transposed S, expanded M): there the mask is ignored
        "q05_mask_needs_same_shape": ("mask_ignored",),
        # a size-mismatch crash; inputs as wide as long (d_model = T) run and are right
        "q07_mask_size_from_model_width": ("length_from_wrong_axis",),
        "q08_sum_over_value_dim": ("nw_sum_wrong_axis",),
        "q09_softmax_of_lower_triangle": ("prefix_average_softmax_of_pattern",),
        "q10_effective_tokens_negative_exponent": ("effective_tokens_exponent_negated",),
        # 4 = max(rank Q, rank K) = d_k on the lesson's S: rank_above_min names both readings (was mis-named
        # rank_is_the_bound, which says only "the bound d_k")
        "q11_rank_is_max_of_ranks": ("rank_above_min",),
        "q12_output_counted_with_d_k": ("param_count_wo_as_dk",),
        # a crash; the same call with the mask's boolean pattern (True on the blocked keys) runs and is right
        "q13_additive_mask_as_boolean": ("additive_mask_as_boolean",),
        "q16_answer_b": ("cost_independent_of_T",),             # choice b: cost depends only on d_k
    },
}

# blind5 variant -> keys (None: none exists); empty until someone maps them after reading an outcome
BLIND5_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure <slug> --set blind5 -v` against each variant's "mistake" words and code; () where
    # the grader named nothing (generic, raw, not caught) or where no key of the catalogue names the mistake
    "sdpa-from-scratch": {
        # (4, 10, 10, 128): one more axis of size T_k, never summed over the keys (naming round 6)
        "q1_output_keeps_key_axis": ("output_keeps_key_axis",),
        "q2_scale_factor_for_divisor": ("reciprocal_scale",),
        # naming15: the same values as blind14's q2_scaled_by_head_width_64 (8 = d_k = sqrt(64), scale_divisor right),
        # so the grader now gives one key with both readings, divisor_d_k_or_sqrt_64, whose text names d_k
        "q2_scores_divided_by_d_k": ("divide_by_dk", "divisor_d_k_or_sqrt_64"),
        # dim += x.dim() - 1 turns dim=-1 into dim=-2 at every rank: softmax_wrong_dim says that axis truly;
        # test_dim_argument's dim=-2 lands on axis 0, named negative_dim_off_by_one (naming round 6)
        "q3_negative_dim_off_by_one": ("softmax_wrong_dim", "negative_dim_off_by_one"),
        # exp(x) / exp(max) never shifts before exp: "without max-subtraction, overflows in float16" is the fix
        "q3_max_divided_out_after_exp": ("no_max_subtraction",),
        # was mis-named global_max_subtraction; each row's max of |x|, told from one global max by a second
        # probe (one row 0, -1, -300: NaN only for max |x|): softmax_shift_by_max_abs (naming round 6)
        "q3_shift_by_largest_magnitude": ("softmax_shift_by_max_abs",),
        "q4_leading_batch_axis": ("size_one_axes_added",),       # (1, T, T), right values (naming round 6)
        # triu(ones(T_q, T_k)).T is causal_mask(T_k, T_q): causal_sizes_swapped (naming round 6)
        "q4_transposed_upper_triangle": ("causal_sizes_swapped",),
        # any over dim=-2: a query with every key blocked keeps NaN, which is fully_masked_nan's text
        "q5_empty_rows_found_over_queries": ("fully_masked_nan",),
        "q5_float32_cast_back": ("float32_precision",),
        "q5_scale_applied_to_values": ("scale_after_softmax",),   # weights @ (V / sqrt(d_k)): the output scaled
        "q6_trace_divided_by_d_k": ("divide_by_dk",),
        "q6_output_mixed_with_transposed_weights": ("weights_transposed",),
        "q8_cost_ratio_upside_down": ("cost_ratio_inverted",),  # 0.25 = 1 / 4 (naming round 6)
        # was mis-named: madds_counted_twice said only "a multiply and an add counted apart"; its text now says
        # both readings of 2 T^2 d_k (that, or weights @ V's T^2 d_v added, the same number as d_v = d_k)
        "q8_madds_of_both_products": ("madds_counted_twice",),
    },
    "scaled-attention": {
        "q1_scaled_twice": ("divide_by_dk",),                  # its words: "so they are divided by d_k"
        # F.normalize (p=2) divides by the row's length, not its sum: the key's "without dividing by the row
        # sum: rows do not sum to 1" is the fix, though its "exp(scores) as weights" skips the L2 division
        "q1_normalize_default_p2": ("weights_not_normalised",),
        "q2_variance_of_the_mean": ("variance_of_the_mean",),  # var / n_samples (naming round 6)
        "q2_randn_like_ignores_generator": ("ignores_generator",),
        "q4_entropy_log10": ("entropy_log_base_10",),
        # was mis-named entropy_nan_saturated (0 * log 0); the epsilon is there, the NaN is log of a negative
        # logit and the softmax is missing: entropy_of_raw_scores, named from a probe (naming round 6)
        "q4_logits_used_as_probabilities": ("entropy_of_raw_scores",),
        "q4_table_variance_as_std": ("table_variance_as_std",),    # raw_std holds .var() (naming round 6)
        "q4_table_seed_offset_by_d": ("table_reseeded_per_row",),  # seed + d, from a second seed (round 6)
        "q5_answer_option_number": ("answer_option_number",),  # 3 for "C" (naming round 6)
        # the merge's interleaving (mha_strided_heads is the split's): mha_heads_interleaved (naming round 6)
        "q8_heads_stacked_on_last_axis": ("mha_heads_interleaved",),
        "q8_output_projection_transposed": ("mha_weight_transposed",),   # only W_O is transposed here
        "q8_causal_mask_added": ("causal_mask_added",),
    },
    "attention-pipeline": {
        # float64 in, float32 out, right to float32's precision (q01 now judged as q05 is: naming round 6)
        "q01_cast_to_float32": ("float32_precision", "dtype_changed"),
        "q02_divides_by_d_k": ("divide_by_dk",),
        # was mis-named keepdim_left_on (nothing is reduced): .view(1, 1, T, T) is size_one_axes_added (round 6)
        "q04_nanogpt_buffer_shape": ("size_one_axes_added",),
        # not caught on the CPU; q04's test_mask_pattern runs per device, so a GPU run names gpu_only_failure
        "q04_device_ignored": ("gpu_only_failure",),
        # NaN on a fully blocked row (the notebook promises it finite) and a probe mask of -5 (round 6)
        "q05_mask_turned_into_minus_inf": ("mask_filled_with_inf",),
        # was mis-named no_softmax: O right and A = S is returns_scores_as_weights (naming round 6)
        "q07_returns_scores": ("returns_scores_as_weights",),
        "q08_scale_from_number_of_keys": ("scale_by_T",),
        "q08_returns_kernel_weights": ("nw_returns_weights",),
        # the transpose of the prefix average is upper-triangular (future-looking); the key leaves out that the
        # columns are normalised, but names what makes the matrix wrong
        "q09_transposed_matrix": ("upper_triangular_mask",),
        "q10_inverse_simpson": ("effective_tokens_inverse_simpson",),   # 1 / sum A^2 matched exactly (round 6)
        "q10_patches_zeros_in_callers_A": ("inplace_on_input",),
        # was mis-named rank_bounded_by_T (one reading); 5 is T and the rank of the causal A: rank_is_T says both
        "q11_rank_of_the_weights": ("rank_is_T",),
        "q12_q_and_k_counted_once": ("param_count_no_wk",),  # d_model * (d_k + d_v): W_K's d_model x d_k is missing
        "q13_queries_from_Y": ("cross_roles_swapped",),
        "q15_answer_b": ("causal_needs_square",),
    },
}

# blind6 variant -> keys (None: none exists); empty until someone maps them after reading an outcome
BLIND6_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind6 -v`: () where the grader named nothing
    "scaled-attention": {
        # exp / row max: the key's "without dividing by the row sum: rows do not sum to 1" is the fix (as
        # blind5's q1_normalize_default_p2), though its "exp(scores) as weights" skips the division by the max
        "q1_normalised_by_row_max": ("weights_not_normalised",),
        # mis-named on 2 of 5 failed tests: nondeterministic (the code has no randomness); 1 more is generic;
        # now named by returns_numpy_not_tensor on all 5 (naming7: two arrays compare as equal values)
        "q1_weights_as_numpy": ("returns_numpy_not_tensor",),
        # raw dtype-mismatch crashes (dtype_changed would fit); now named by dtype_changed (naming7): the same
        # call in float64 runs and is right
        "q1_scores_upcast_to_float64": ("dtype_changed",),
        "q1_scores_keys_by_queries": ("scores_transposed",),
        # not caught; now named by variance_over_all_pairs (naming7: replayed on two seeded generators)
        "q2_all_pairs_of_one_product": ("variance_over_all_pairs",),
        "q4_entropy_mean_over_keys": ("entropy_mean_not_sum",),
        # "missing the key(s) ['H_raw']": clear, no key; now named by table_key_misspelled (naming7)
        "q4_table_key_lower_case": ("table_key_misspelled",),
        "q4_table_scaled_by_number_of_keys": ("scale_by_T",),  # now named by scale_by_T: c = sqrt(5) fitted (naming7)
        "q5_answer_content_not_letter": ("answer_option_text",),  # now named by answer_option_text (naming7)
        "q8_values_from_W_K": ("same_projection",),             # W_K for both K and V
        "q8_heads_summed": ("mha_heads_summed",),               # now named by mha_heads_summed (naming7)
        "q8_attention_maps_averaged": ("mha_attention_maps_averaged",),  # now named by it (naming7)
    },
    # judged from `measure attention-pipeline --set blind6 -v`: () where the grader named nothing
    "attention-pipeline": {
        "q01_elementwise_projection": ("elementwise_product",),  # raw size-mismatch crashes; now named by elementwise_product (naming7)
        "q02_scale_from_sequence_length": ("scale_by_T",),      # sqrt(Q.shape[-2]), the number of queries
        # -finfo.min is finfo.max; its message says the blocked entries hold finfo.max (as blind4's q04_finfo_max)
        "q04_positive_fill": ("mask_not_dtype_min",),
        "q04_built_in_float64": ("mask_dtype_ignored",),        # a clear dtype message, but no key; now named by mask_dtype_ignored (naming7)
        # E / E.sum() over the whole tensor: the key's fix "divide by the row sum: rows do not sum to 1" is this
        # one's (as blind5's q1_normalize_default_p2), though its "without dividing" is not literally the code;
        # sdpa-from-scratch's softmax_global_sum would be exact; 4 of 5 failed tests say only what differs;
        # now named by softmax_global_sum on every test (naming7)
        "q05_softmax_over_all_axes": ("weights_not_normalised", "softmax_global_sum"),
        "q07_mask_size_from_first_axis": ("batched_input_unsupported",),  # its text: X.shape[0] is the batch size
        "q08_weights_normalised_by_mean": ("nw_wrong_denominator",),  # now named by nw_wrong_denominator (naming7)
        # says only "NaN or inf"; now named by prefix_average_count_wrong_axis (naming7)
        "q09_cumsum_on_wrong_axis": ("prefix_average_count_wrong_axis",),
        "q10_log_of_one_plus_a": ("entropy_log_shifted",),      # now named by entropy_log_shifted (naming7)
        "q11_max_rank_is_T": ("rank_bounded_by_T", "rank_is_T"),  # T = 100 for a rank at most d_k
        "q12_output_d_v_by_d_k": ("param_count_wo_wrong_size",),  # now named by param_count_wo_wrong_size (naming7)
        # raw shape-mismatch crashes; now named by scores_from_values from a d_v = d_k re-run (naming7)
        "q13_cross_scores_from_values": ("scores_from_values",),
    },
    # judged from `measure sdpa-from-scratch --set blind6 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        # generic: "out_shape is not the shape of the attention output"; now named by shape_axis_dropped (naming7)
        "q1_output_pooled_over_queries": ("shape_axis_dropped",),
        # generic: "raw_score_var is not the variance of the raw scores"; now named by variance_of_an_input (naming7)
        "q2_variance_of_the_queries": ("variance_of_an_input",),
        # mis-named: q5 says pos_inf_fill (+inf fill) but the fill is -inf; the softmax subtracts the mean, not
        # the max, so a -inf entry makes the mean -inf: no_max_subtraction names the fix
        # now named by softmax_subtracts_mean (naming7): float64 probes 0, -1, -inf and 1000, 0, 0, 0
        "q3_centred_by_mean": ("no_max_subtraction", "softmax_subtracts_mean"),
        # e.sum(dim).unsqueeze(0) broadcasts exactly as e.sum(dim) does; the fix is keepdim=True, as the key says
        "q3_sum_axis_restored_at_front": ("reduction_without_keepdim",),
        # generic: "should be a torch.Tensor, got list"; now named by returns_list_not_tensor (naming7)
        "q4_list_of_lists": ("returns_list_not_tensor",),
        "q5_dot_T_on_batched_keys": ("fixed_axes",),  # the key's text names K.T on a batched tensor
        "q5_bool_mask_added_to_scores": ("mask_added",),
        "q5_scale_from_d_v": ("scale_by_d_v",),
        # generic: only the timing test fails, "returned wrong values"; now named by size_one_axis_dropped
        # (naming7: a batch-of-one call)
        "q5_output_squeezed": ("size_one_axis_dropped",),
        "q6_scores_keys_by_queries": ("scores_transposed",),
        "q8_entries_of_Q": ("entries_of_Q",),
        # generic: "score_madds is not the number of multiply-adds"; now named by count_halved_symmetric (naming7)
        "q8_madds_halved_for_symmetry": ("count_halved_symmetric",),
    },
}

# blind7 (written without seeing the catalogue): no mapping yet, filled in after reading its outcome
BLIND7_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind7 -v`: () where the grader named nothing
    "scaled-attention": {
        "q1_keys_not_transposed": ("keys_not_transposed",),
        # softmax of -||q - k||^2 / c is the normalised Gaussian kernel exp(-||q - k||^2 / c): the key is exact
        "q1_gaussian_kernel": ("gaussian_kernel",),
        # generic: "not within 10% of its expected value"; now named by variance_scaled_by_sample_count (naming8)
        "q2_scaled_by_sample_count": ("variance_scaled_by_sample_count",),
        # 1 // 2 == 0 divides by 1: the key's text (the unscaled variance for scaled=True) is what the code
        # returns, as blind's q02_integer_exponent -> no_scale; its name says the flag is ignored, it is not
        "q2_integer_exponent": ("scaled_flag_ignored",),
        # raw: "a Tensor with 6 elements cannot be converted to Scalar"; now named by entropy_item (naming8)
        "q4_entropy_item": ("entropy_item",),
        "q4_entropy_keepdim": ("entropy_keepdim",),
        # generic: table differs in 8 of 16 entries; now named by softmax_applied_twice (naming8)
        "q4_table_softmax_twice": ("softmax_applied_twice",),
        # generic: "should be one letter as a string"; now named by answer_hedged (naming8)
        "q6_hedged_answer": ("answer_hedged",),
        # generic: same message, says nothing of the list; now named by answer_in_container (naming8)
        "q7_answer_in_a_list": ("answer_in_container",),
        # generic: differs in every entry; now named by mha_residual_added (naming8)
        "q8_residual_added": ("mha_residual_added",),
        # raw: "shapes cannot be multiplied (5x0 and 12x5)"; now named by mha_head_slice_overwrites (naming8)
        "q8_q_overwritten_in_loop": ("mha_head_slice_overwrites",),
        # raw: "shapes cannot be multiplied (5x20 and 48x48)"; now named by mha_heads_weights_concatenated (naming8)
        "q8_unpacks_weights_as_output": ("mha_heads_weights_concatenated",),
    },
    # judged from `measure sdpa-from-scratch --set blind7 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        # generic: "not the shape of the attention-weight matrix"; now named by weights_sized_by_features (naming8)
        "q1_weights_sized_by_features": ("weights_sized_by_features",),
        "q2_std_for_variance": ("variance_returned_std",),
        # generic: "not the variance of the raw scores of the batched example"; now named by variance_of_one_slice
        # (naming8)
        "q2_first_sequence_only": ("variance_of_one_slice",),
        # generic on all 21 failed tests (differs / NaN or inf); now named by softmax_divides_by_max (naming8)
        "q3_divides_by_max": ("softmax_divides_by_max",),
        # exp(x - max) / sum(exp(x)): each row the right softmax times e^-max; the fix is to divide by the row
        # sum of the numerator, as the key says (as blind6's scaled-attention q1_normalised_by_row_max), though
        # its "without dividing" is not literally the code; q3's float16 test and q5/q6 say only what differs
        "q3_unshifted_denominator": ("weights_not_normalised", "one_edit_fix"),
        # not caught: no test asks for a mask longer than block_size = 16; now caught (q4's test_square asks for
        # T > 1024) and named by fixed_size_mask (naming8)
        "q4_fixed_block_size_buffer": ("fixed_size_mask",),
        # raw: "Boolean value of Tensor with more than one value is ambiguous"; now named by tensor_truthiness
        # from two re-runs (mask=None, a one-entry mask) (naming8)
        "q5_if_mask_truthiness": ("tensor_truthiness",),
        "q5_scales_callers_q_in_place": ("inplace_on_input",),
        "q5_power_precedence_in_scale": ("scale_precedence",),
        # mis-named on 2 of 3 tests: scale_by_d_v, but V3 is 3 x 2 (sqrt(d_v) = sqrt(2)); the code divides by
        # sqrt(3), the number of tokens, which out3's scale_by_T says; now all 3 say scale_by_T (naming8: the
        # weights' variants use V3's real d_v)
        "q6_trace_scaled_by_token_count": ("scale_by_T",),
        # generic: "out3 is not correct in row(s) [0, 1]"; now named by output_from_causal_weights (naming8)
        "q6_output_from_causal_weights": ("output_from_causal_weights",),
        # cost_ratio = 2 is cost_linear_in_T (right); score_madds = T d_k^2 only "is not the number of madds"
        "q8_projection_cost": ("cost_linear_in_T", "madds_features_squared"),   # score_madds now named by madds_features_squared (naming12)
    },
    # judged from `measure attention-pipeline --set blind7 -v`: () where the grader named nothing
    "attention-pipeline": {
        "q01_values_from_key_matrix": ("same_projection",),    # W_K for both K and V
        # its text: "works only for one fixed number of dims ... use .transpose(-2, -1)"; 1 of 3 tests is raw
        # (now named by batched_input_unsupported there too: the 2-D crash runs right with a batch axis added, naming8)
        "q02_permute_three_dims": ("batched_input_unsupported",),
        # generic: "the mask blocks the wrong entries ... N entries open"; now named by mask_blocks_nothing (naming8)
        "q04_masked_fill_result_dropped": ("mask_blocks_nothing",),
        # generic: "A does not match in 40 of 40 entries"; mask_multiplied would be near (S times a 0/1 pattern)
        # now named by blocked_scores_zeroed (naming8): softmax of S with the blocked scores set to 0
        "q05_blocked_scores_multiplied_by_zero": ("blocked_scores_zeroed",),
        # nn.Softmax() normalises dim 0 of a 3-D tensor (the batch), not dim=-2 as the key's text says; its fix
        # (softmax over the keys, dim=-1) is this one's, as blind6's q05_softmax_over_all_axes; scaled-attention's
        # softmax_implicit_dim would be exact; now named by softmax_implicit_dim (naming8; on 4-D S from a 3-D
        # second call, since dim 1 of 4-D is also a hard-coded dim=1)
        "q05_softmax_module_without_dim": ("softmax_implicit_dim",),
        # inverted flag: no_causal_mask on the causal=True calls, ignores_causal_flag on causal=False: each true
        # of its call, and together they say the flag is read the wrong way round
        "q07_causal_flag_inverted": ("no_causal_mask", "ignores_causal_flag"),
        # exp(s) / sqrt(d_k): the factor cancels, so the kernel is exp of the unscaled scores, as the key says
        "q08_scale_outside_exp": ("no_scale",),
        "q09_every_row_divided_by_T": ("prefix_average_divide_by_T",),
        "q10_entropy_sign_dropped": ("entropy_sign",),
        "q11_rank_bounded_by_tokens": ("rank_bounded_by_T",),
        # generic: "the count is wrong (for d_v different from d_k)"; now named by param_count_times_heads (naming8)
        "q12_budget_times_heads": ("param_count_times_heads",),
        "q13_sequences_swapped": ("cross_roles_swapped",),
    },
}

# blind8: written without the catalogue; keys filled in by a judge from `measure --set blind8 -v`
BLIND8_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind8 -v`: () where the grader named nothing
    "scaled-attention": {
        # raw: "your code raised AssertionError: " (the student's own assert on the total weight)
        # now named by own_assert_total_weight: one query runs and is right (naming9)
        "q1_asserts_total_weight": ("own_assert_total_weight",),
        # mis-named: wrong_scale_constant ("another constant than 1/sqrt(d_k)") fits c = -sqrt(d_k) only
        # formally; the mistake is the sign (scores read as distances), the constant is right; no key says so
        # now named by scores_negated: c = -sqrt(d_k) exactly (naming9)
        "q1_scores_negated_as_distances": ("scores_negated",),
        # generic: "does not match ... largest difference 4.83e-05"; nothing says rounded
        # now named by weights_rounded: multiples of 1e-k within 0.5e-k (naming9)
        "q1_weights_rounded": ("weights_rounded",),
        # generic: "not within 10% of its expected value"
        # now named by dot_averaged_not_summed: same draws / d_k^2 (naming9)
        "q2_dot_averaged_not_summed": ("dot_averaged_not_summed",),
        "q2_uniform_draws": ("uniform_samples",),
        "q4_entropy_divided_by_log_T": ("entropy_normalised",),
        "q4_table_population_std": ("biased_std",),
        # generic: "`q5_answer` is not defined"; true, but the harness's message, no key
        # now named by answer_variable_misnamed: says q5_ans (naming9)
        "q5_answer_variable_misnamed": ("answer_variable_misnamed",),
        # the message shows the tuple ('A',) and says the letter is inside a tuple: the fix (drop the comma)
        "q6_trailing_comma_tuple": ("answer_in_container",),
        # generic: differs in every entry
        # now named by mha_keys_values_swapped (naming9)
        "q8_keys_and_values_swapped": ("mha_keys_values_swapped",),
        "q8_heads_stacked_first_then_reshaped": ("mha_merge_without_transpose",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x4 and 48x48)"
        # now named by mha_head_width_from_tokens: T = d_model runs and is right (naming9)
        "q8_head_width_from_tokens": ("mha_head_width_from_tokens",),
    },
    # judged from `measure attention-pipeline --set blind8 -v`: () where the grader named nothing
    "attention-pipeline": {
        # generic: "max_rank_S is not correct: what limits the rank of Q K^T?"; nothing says the lesson's d_k
        # now named by bound_from_lesson_head (naming9)
        "q11_new_head_rank_from_lesson_d_k": ("bound_from_lesson_head",),
        # generic: "should be one letter as a string"; nothing says it is a tuple (the trailing comma)
        # now named by answer_in_container (naming9)
        "q15_trailing_comma_tuple": ("answer_in_container",),
        # mis-named on 2 of 3 tests: mask_nan_from_inf says a 0/1 pattern times -inf (fix: finfo(dtype).min,
        # which the code already uses); the mistake is the float32 ones, which turn float64's min into -inf.
        # mask_built_in_float32 (the float16 test) is the right key
        # now named by mask_built_in_float32 on all 3 tests (naming9): NaN is mask_nan_from_inf only in the asked dtype
        "q04_min_times_float32_ones": ("mask_built_in_float32",),
        # raw: "The size of tensor a (8) must match the size of tensor b (5)" (transposed rectangular mask)
        # now named by mask_transposed (naming9): given M transposed it runs and is right
        "q05_mask_transposed": ("mask_transposed",),
        "q05_upcast_not_cast_back": ("dtype_changed",),
        "q07_weights_transposed_in_mix": ("output_uses_weights_transposed",),
        # generic: smoothed row differs in 5 of 5 entries; nothing says the last key is dropped
        # now named by nw_drops_a_key (naming9)
        "q08_drops_the_last_key": ("nw_drops_a_key",),
        "q09_uniform_one_over_T": ("prefix_average_divide_by_T",),
        # generic: differs in 15 of 18 entries; nothing says the support size was counted instead of 2^H
        # now named by effective_tokens_support_size (naming9)
        "q10_effective_tokens_as_support_size": ("effective_tokens_support_size",),
        # the message says rank_S_lesson is d_k (4), a bound above this S's rank: the student's mistake exactly
        "q11_lesson_rank_is_d_k": ("rank_above_min",),
        # generic: the count lacks W_O's 17360 (says what differs, no key); the discarded `n + ...` not named
        # now named by param_count_wo_ignored (naming9): with_output=False right tells it from param_count_no_wv
        "q12_increment_discarded": ("param_count_wo_ignored",),
        # generic: "A has shape (5, 15), expected (5, 10)" and one raw size mismatch; X in the keys not named
        # now named by cross_keys_over_both (naming9)
        "q13_keys_over_both_sequences": ("cross_keys_over_both",),
    },
    # judged from `measure sdpa-from-scratch --set blind8 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        "q1_output_shape_is_weight_shape": ("weights_as_output",),
        # generic: "scaled_score_var is not the variance of the scaled scores"; nothing says softmax weights
        # one_edit_fix: `raw_scores / math.sqrt(d_k)` in place of `torch.softmax(raw_scores / math.sqrt(d_k),
        # dim=-1)` on line 4: the softmax dropped, the variance of the scaled scores (rejudged)
        "q2_variance_of_the_weights": ("one_edit_fix",),
        # generic: q3/q5/q6 differ in most entries; nothing says exp2 without log2(e)
        # now named by softmax_base_2 (naming9): a variant of every softmax and output test
        "q3_exp2_without_log2e": ("softmax_base_2",),
        # q3 says "comes back as float16 ... keep the input's dtype (or do not convert)": the fix; the q5
        # "expected scalar type Float but found Half" errors name nothing, so partly named
        # (later, naming29: the engine's dtype_mix, "a tensor ... cast to another dtype meets the input's", names
        # q5's crash on the float16 weights meeting V: its fix is this one)
        "q3_exponentials_in_float16": ("dtype_changed", "dtype_mix"),
        # mis-named: q6 says mask_ignored ("apply the causal mask before the softmax"), but the q6 cell does
        # apply it; the 1-D causal_mask (no unsqueeze) is the mistake and no key says so. q4: shape/raw only
        # now named by mask_not_outer (naming9): q4 from two probe calls, q6 from the student's causal_mask(3)
        "q4_compare_without_unsqueeze": ("mask_not_outer",),
        "q5_dot_T_on_batched_keys": ("fixed_axes",),
        # generic: NaN/inf in the output; one keyless message even says "+inf instead of -inf" (pos_inf_fill's
        # words), which is not the mistake (0 * -inf = nan from scores * mask + (~mask) * -inf)
        # now named by mask_times_inf (naming9) on every float32/64 test; float16/bfloat16 crash on the float32
        # the bool * -inf product gives (raw dtype text)
        "q5_mask_by_multiplying_inf": ("mask_times_inf",),
        # raw: "Subtraction, the `-` operator, with a bool tensor is not supported" (bool_mask_arithmetic
        # would be right, but the grader did not name it)
        # now named by bool_mask_arithmetic (naming9): torch's bool-subtraction text, and mask=None right
        "q5_one_minus_bool_mask": ("bool_mask_arithmetic",),
        # mis-named: scale_by_T ("1/sqrt(a sequence length)") where the function reads the notebook's global
        # d_k = 8 (T happens to be 8 there); no key says a global d_k (example_value_reused is about answers)
        # now named by scale_constant (naming9): two probes differing in d_k alone divide by sqrt(8) both times
        "q5_uses_the_notebook_d_k": ("scale_constant",),
        # generic: "not correct in row(s) ... take the softmax of each row"; no key for plain-sum weights
        # now named by weights_by_plain_sum (naming9)
        "q6_normalised_by_plain_sum": ("weights_by_plain_sum",),
        "q8_entries_as_query_size": ("entries_of_Q",),
        # generic: "score_madds is not the number of multiply-adds"; nothing says d_k - 1 additions
        # now named by madds_counts_additions (naming9)
        "q8_counts_additions": ("madds_counts_additions",),
    },
}

# blind9: written without the catalogue; keys filled in by a judge from `measure --set blind9 -v`
BLIND9_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind9 -v`: () where the grader named nothing
    "scaled-attention": {
        # K.t_() changes the caller's K ("argument 1", counted from 0): exactly what inplace_on_input says
        "q1_transposes_keys_in_place": ("inplace_on_input",),
        # generic: "does not match ... in 35 of 35 entries"; nothing says top-k / only two keys kept
        # now named by attention_top_k (naming10): both results match the softmax over the k = 2 best keys
        "q1_top_two_keys_only": ("attention_top_k",),
        # mis-named: dots_summed_over_samples says "over the samples (dim 0) instead of ... (dim -1)", but this
        # code already sums dim -1; the slip is randn's shape (d_k, n_samples) swapped, and no key says that
        # now named by randn_shape_swapped (naming10): the replay of the (d_k, n) draw, told apart from sum(0)
        "q2_randn_shape_swapped": ("randn_shape_swapped",),
        "q4_entropy_normalised_by_log_t": ("entropy_normalised",),
        # generic: "contains NaN or inf in 2 of 4 entries"; nothing says the 1e-9 is outside the log
        # now named by entropy_epsilon_outside_log (naming10): +inf (not NaN) on the underflow row of a probe
        "q4_epsilon_outside_log": ("entropy_epsilon_outside_log",),
        # generic: "the entropy table ... does not match in 4 of 16 entries"; nothing says scaled_std = raw_std
        # now named by table_field_copied (naming10): scaled_std holds raw_std's right values, the rest right
        "q4_table_scaled_std_copied": ("table_field_copied",),
        "q4_table_drawn_in_float64": ("draws_in_float64",),
        "q5_answer_std_letter": ("variance_vs_std", "one_edit_fix"),   # one_edit_fix: "ABCD"[2] for [1], and the message keeps B's reason
        "q7_answer_argmax_by_chr": ("attention_as_argmax", "answer_by_position"),
        "q8_heads_concatenated_last_first": ("mha_heads_reordered",),
        # generic: "does not match ... in 240 of 240 entries"; nothing says split() takes a chunk size
        # now named by mha_split_by_head_count (naming10): d_k heads of width n_heads, replayed
        "q8_split_by_head_count": ("mha_split_by_head_count",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x16 and 48x48)"; nothing says the global d_k = 4
        # now named by mha_head_width_constant (naming10): right on a second call with d_model = n_heads * 4
        "q8_global_d_k_for_heads": ("mha_head_width_constant",),
    },
    # judged from `measure attention-pipeline --set blind9 -v`: () where the grader named nothing
    "attention-pipeline": {
        # all 4 tests name inplace_on_input (the broadcast one says the expanded Q cannot be written): the fix
        "q02_divides_callers_q_in_place": ("inplace_on_input",),
        "q03_shift_for_scale_invariance": ("softmax_scale_invariant",),
        "q05_returns_log_probabilities": ("log_softmax_weights",),
        # generic: A differs in most entries; nothing says the scores are scaled a second time (by sqrt(T_k))
        "q05_scores_scaled_again": ("scores_scaled_twice",),   # now named by scores_scaled_twice (naming10)
        # mis-named: qk_swapped says "Q from W_K, K from W_Q", but the projections are right; the mistake is
        # scaled_scores(K, Q), i.e. K Q^T, which scores_transposed names (same S = X W_K W_Q^T X^T, other fix)
        # naming10: no call of self_attention tells the two apart, so neither is named; the generic message
        # says S = K Q^T and gives both fixes
        # one_edit_fix: `scaled_scores(Q, K)` in place of `scaled_scores(K, Q)` (rejudged)
        "q07_keys_scored_against_queries": ("scores_transposed", "one_edit_fix"),
        "q08_output_keeps_a_row_axis": ("keepdim_left_on",),
        # generic: the smoothed row differs in every entry; nothing says the kernel's sign is flipped
        "q08_kernel_sign_flipped": ("scores_negated",),   # now named by scores_negated (naming10)
        "q09_divided_by_T": ("prefix_average_divide_by_T",),
        # generic: "H has shape (2,), expected (2, 7)"; nothing says the key axis and query axis were both summed
        "q10_entropy_of_whole_matrix": ("entropy_summed_over_queries",),   # now named by it (naming10)
        # generic: "what limits the rank of Q K^T?"; rank_above_min would fit (a bound above the min), not given
        "q11_rank_as_sum_of_ranks": ("rank_sum_of_ranks",),   # now named by rank_sum_of_ranks (naming10)
        "q13_causal_whenever_square": ("causal_in_cross",),
        "q16_cost_per_query": ("cost_linear_in_T",),
    },
    # judged from `measure sdpa-from-scratch --set blind9 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        # both messages say which answer holds the other's shape: the swap exactly
        "q1_shapes_swapped": ("weights_as_output",),
        # generic: "raw_score_var is not the variance of the raw scores"; nothing says d_k written, not measured
        "q2_theoretical_variance": ("theoretical_variance",),   # now named by theoretical_variance (naming10)
        # generic: same message; keys_are_queries (Q Q^T) would be right, but the grader did not give it
        "q2_query_against_itself": ("keys_are_queries",),   # now named by keys_are_queries (naming10)
        # F.softmax(y) with no dim on 3-D input divides by the sum over axis 0: softmax_sum_wrong_axis's
        # "a fixed axis whatever dim is"; builtin_softmax is a second, true fault (F.softmax is forbidden)
        "q3_softmax_without_dim": ("softmax_sum_wrong_axis", "builtin_softmax"),
        "q4_float_mask_from_np_tri": ("mask_not_bool",),
        # mask_ignored only on the tests whose mask is not 2-D (the 2-D mask tests pass): true where it is said
        "q5_mask_only_when_2d": ("mask_ignored",),
        # mis-named: forbidden_api on every test is true of the code (it calls F.scaled_dot_product_attention),
        # but the stated mistake, any mask replaced by is_causal=True, is never named and no key says it
        # still: the sandbox refuses the call, so no value test sees its output (naming10: needs the engine)
        "q5_any_mask_as_is_causal": (),
        # generic: shapes (..., d_k) vs (..., d_v) and differing entries; nothing says weights @ K
        "q5_weights_times_keys": ("weights_times_wrong_input",),   # now named (naming10)
        # generic: differs in most entries, also with mask=None; nothing says a causal mask is always applied
        "q5_always_causal": ("causal_mask_forced",),   # now named by causal_mask_forced (naming10)
        "q6_no_denominator": ("weights_not_normalised",),
        # generic: "not correct in row(s) ... take the softmax of each row"; nothing says e = 2.7
        "q6_e_as_2_7": ("e_rounded",),   # now named by e_rounded (naming10)
        "q7_answer_by_dtype_test": ("zero_after_softmax", "answer_computed_by_code"),
        # generic: "not the number of entries of the weight matrix"; nothing says bytes (4 per float32)
        # now named by count_in_bytes (naming10); after blind27 4 T^2 is count_times_four, whose text gives both
        # readings (float32's bytes, or T doubled)
        "q8_entries_in_bytes": ("count_in_bytes", "count_times_four"),
    },
}

# tenth blind set: mapping filled in later by the catalogue's judges
BLIND10_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind10 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        # generic: "not the shape of the attention-weight matrix"; nothing says the batch folded into the queries
        # now named by batch_folded_into_rows (naming11): (B x T_q, ...) with the batch axis gone, 40 = 4 x 10
        "q1_batch_folded_into_queries": ("batch_folded_into_rows",),
        # generic: "raw_score_var is not the variance of the raw scores"; nothing says a fresh, larger sample
        # now named by variance_of_other_scores (naming11): both variances wrong, their ratio exactly d_k = 8
        "q2_fresh_larger_sample": ("variance_of_other_scores",),
        # generic: values differ / NaN everywhere; nothing says the logits were divided by their std. One
        # keyless q5 message even says "filling masked scores with +inf instead of -inf", not this mistake
        # one_edit_fix: `x - x.max(dim=dim, keepdim=True).values` in place of `(x - x.max(...).values) /
        # (x.std(dim=dim, keepdim=True) + 1e-6)` on line 3: the std division dropped, this slip at its place (rejudged)
        "q3_logits_standardised": ("one_edit_fix",),
        # the square comes from max(T_q, T_k), "one length" in causal_ignores_T_k's words; the fix it gives,
        # a (T_q, T_k) mask, is the student's fix
        "q4_square_of_larger_side": ("causal_ignores_T_k",),
        "q5_finite_fill_no_empty_row_fix": ("fully_masked_uniform",),
        # partly named: the fully-masked test says only "has shape (2, 10, 6), expected (2, 6, 10)" (keyless)
        "q5_output_transposed": ("result_axes_permuted",),
        # partly named: the scale tests say in words "equals scaling by 1/sqrt(a sequence length)" but carry
        # no key (scale_by_T or scale_by_batch_dim would be right); fully_masked_nan is a true second fault:
        # _sdpa's `weights * mask.any(...)` keeps NaN * 0 = NaN on a query whose keys are all masked
        "q5_d_k_from_axis_2": ("scale_by_T", "scale_by_batch_dim", "fully_masked_nan"),
        # fixed_axes ("assumes a fixed number of dims") is the 3-axis einsum's fault; fully_masked_nan is the
        # same true second fault of _sdpa (NaN * 0 on an all-masked row)
        "q5_einsum_three_axes": ("fixed_axes", "fully_masked_nan",
                                 "einsum_fixed_axes"),   # now also: the engine's words for the same einsum (after blind31)
        "q5_softmax_over_queries": ("softmax_wrong_dim",),
        # raw: "The size of tensor a (6) must match the size of tensor b (8)"; nothing says the mask was cropped
        # now named by mask_cropped_square (naming11): the crash pairs (T_q) with (T_k); no mask is right, and a
        # masked call with fewer keys than queries (the crop cuts nothing) is right
        # naming27: fully_masked_nan too: `weights * mask.any(...)` leaves NaN * 0 = NaN on a fully masked row (run on a
        # square mask with one such row: that row NaN), a genuine second mistake the float16 test (square) shows
        "q5_mask_cropped_square": ("mask_cropped_square", "fully_masked_nan"),
        "q6_causal_blocks_diagonal": ("causal_excludes_self",),
        "q6_linear_normalisation": ("weights_by_plain_sum",),
        # generic: "should be one letter as a string"; true of the format, but nothing says D is the wrong answer
        # now named by zero_after_softmax (naming11): the answer's leading letter D is read and said to be wrong
        "q7_answer_d_written_out": ("zero_after_softmax",),
        # mis-named: madds_counted_twice says each multiply-add counted twice (or weights @ V's T^2 d_v added),
        # but the code counts once with d_v = 128 in place of d_k = 64 (2x only because d_v = 2 d_k); no key
        # says d_v for d_k here. Now named by madds_counted_twice (naming11): T^2 x 128 = 2 T^2 d_k cannot be
        # told from counting twice (blind2's and blind5's q8 are that reading), so its message now says all
        # three readings, Question 1's d_v = 128 for d_k among them
        "q8_madds_with_q1_d_v": ("madds_counted_twice",),
    },
    # judged from `measure scaled-attention --set blind10 -v`: () where the grader named nothing
    "scaled-attention": {
        "q1_functional_dropout_on": ("nondeterministic",),
        # fixed_axes: "raised ... on 2-D inputs, and on a batch of one (3-D) it runs and is right: code that
        # assumes a fixed number of dims": true of bmm; its examples (K.T, negative axes) do not mention bmm
        "q1_bmm_on_2d": ("fixed_axes",),
        "q1_d_k_from_rows": ("scale_by_T",),
        # raw: randn's "failed to unpack the object at pos 3 ... got torch._C.Generator"; nothing says generator=
        "q2_generator_positional": ("generator_positional",),   # now named by generator_positional (naming11)
        # mis-named: scaled_flag_inverted says "dividing by sqrt(d_k) when scaled=False", but the flag is read
        # right (scaled=False passed explicitly is right); the slip is the default scaled=True, which
        # default_argument_wrong names; now named by default_argument_wrong (naming11: scaled=False passed explicitly)
        "q2_scaled_by_default": ("default_argument_wrong",),
        "q2_scaled_divides_by_d_k": ("divide_by_dk",),
        # generic: "does not match ... in 6 of 6 entries"; nothing says log1p(p) = ln(1 + p) is not log(p)
        "q4_log1p_as_safe_log": ("entropy_log1p",),   # now named by entropy_log1p (naming11)
        # generic: "has shape (), expected (6,)"; nothing says the logits were flattened (one entropy in all)
        "q4_entropy_of_flattened": ("entropy_flattened",),   # now named by entropy_flattened (naming11)
        "q4_table_keys_drawn_transposed": ("keys_drawn_transposed",),
        # generic: "the entropy table ... does not match in 16 of 16 entries"; nothing says ten keys, not five
        "q4_table_ten_keys": ("table_key_count",),   # now named by table_key_count (naming11)
        "q5_answer_product_of_variances": ("variance_d_k_squared",),
        "q7_answer_argmax_lookup": ("attention_as_argmax",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x192 and 48x48)"; nothing says V was not split
        "q8_values_not_split": ("mha_values_not_split",),   # now named by mha_values_not_split (naming11)
        # generic: "does not match ... in 240 of 240 entries"; nothing says sqrt(d_k) was passed as d_k
        "q8_sqrt_passed_as_d_k": ("mha_d_k_passed_as_sqrt",),   # now named by mha_d_k_passed_as_sqrt (naming11)
    },
    # judged from `measure attention-pipeline --set blind10 -v`: () where the grader named nothing
    "attention-pipeline": {
        # generic: "Q does not match ... in 84 of 84 entries"; nothing says X was layer-normalised first
        "q01_layer_norm_before_projection": ("layer_norm_before_projection",),  # now named by layer_norm_before_projection (naming11)
        "q02_multiplies_by_sqrt": ("multiply_by_sqrt_dk",),
        # "c" read as "a common factor changes nothing": exactly softmax_scale_invariant's text
        "q03_answer_scale_invariance": ("softmax_scale_invariant",),
        # mis-named: mask_built_in_float32 says the mask is built from Python numbers or without dtype= (fix:
        # dtype=dtype), but this code builds it with dtype=dtype; the slip is a cache keyed by T alone, which
        # hands back the first call's float32 tensor, and no key says that (the symptom it states is true)
        # now named by mask_cached_by_size (naming11): a fresh T asked first in float64 is right, then in float32
        # it comes back float64 (the cache shows on a second call)
        "q04_cache_keyed_by_T": ("mask_cached_by_size",),
        # generic: A differs in most entries (NaN/inf on large float32 scores); nothing says the max is dim=-2
        "q05_shift_by_column_max": ("softmax_shift_wrong_axis",),  # now named by softmax_shift_wrong_axis (naming11)
        "q07_values_are_inputs": ("values_not_projected",),
        # blocked_scores_zeroed is the tril(S) mistake; no_causal_mask (on W_Q = W_K = 0, where tril(0) = 0) is
        # also true: the code never applies the causal mask; test_causal_properties names nothing: partly; now
        # test_causal_properties names blocked_scores_zeroed too (naming11)
        "q07_causal_by_tril_of_scores": ("blocked_scores_zeroed", "no_causal_mask"),
        # nw_wrong_denominator's text lists "maximum" among the wrong statistics: this code's fix
        "q08_normalised_by_max": ("nw_wrong_denominator",),
        # generic: "W_avg contains NaN or inf in 9 of 81 entries"; prefix_average_off_by_one (t + 1 for t) is
        # another slip; nothing says the diagonal is left out (tril(diagonal=-1))
        "q09_diagonal_left_out": ("prefix_average_excludes_self",),  # now named by prefix_average_excludes_self (naming11)
        "q10_entropy_averaged": ("entropy_mean_not_sum",),
        # generic: "effective tokens does not match ... in 18 of 18"; only H ** 2 and 2 ** -H have keys
        "q10_two_times_entropy": ("effective_tokens_times_two",),  # now named by effective_tokens_times_two (naming11)
        # generic, though the message gives the W_O count the student returned; nothing says = for +=
        "q12_output_count_replaces": ("param_count_output_replaces",),  # now named by param_count_output_replaces (naming11)
        # raw: "The size of tensor a (7) must match the size of tensor b (4)"; nothing says M was transposed
        "q13_mask_transposed": ("mask_transposed",),  # now named by mask_transposed from a re-run with M transposed (naming11)
        "q14_answer_output_from_keys": ("cross_output_from_keys",),
        "q16_answer_linear": ("cost_linear_in_T",),
    },
}

# blind11: written without the catalogue; not mapped yet
BLIND11_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind11 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        "q5_scale_split_over_q_and_k": ("divide_by_dk",),   # (Q / sqrt d_k)(K / sqrt d_k)^T is S / d_k
        # generic: "gave inf or NaN: subtract each slice's max before exp" (no key); no_max_subtraction would be right
        "q3_unshifted_logsumexp_by_hand": ("no_max_subtraction",),   # now named by no_max_subtraction from a probe whose overflowing row gets weights 0 (naming12)
        "q5_where_keeps_blocked": ("inverted_mask",),
        "q5_additive_bias_no_empty_fix": ("fully_masked_nan",),
        # the messages start "your code raised RuntimeError", but fixed_axes names K.T on batched tensors itself
        "q5_dot_T_on_batched": ("fixed_axes",),
        "q5_double_never_cast_back": ("dtype_changed",),
        "q1_shapes_as_lists": (),   # not caught: lists [4, 10, 10] keep full marks
        # naming12: kept uncharged: the values are right, a TA accepts a list for "a tuple" (expect_shape does)
        # mis-named: variance_of_other_scores says other data (a new sample, other tensors); the code uses the
        # example's Q, K but transposes the wrong operand (Q^T K, d_k x d_k). Its message ends "asks for Q @ K^T",
        # yet the named mistake is not this one; weights_sized_by_features ("d_k x d_k, like Q^T K") is nearest
        "q2_feature_gram_matrix": ("weights_sized_by_features",),   # now named by weights_sized_by_features: var(Q^T K) of the example's own tensors (naming12)
        "q4_numpy_tril_returned": ("returns_numpy_not_tensor",),   # q4 and q6's stopped cell both say NumPy array
        "q6_whole_matrix_normalised": ("softmax_global_sum",),
        # "that choice reflects zeroing masked weights after the softmax": the belief the variant states
        "q7_answer_a_from_dict": ("zero_after_softmax",),
        # naming27: now named by float_for_int, whose text says `/` gives a float where a Python int is asked
        "q8_ratio_true_division": ("float_for_int",),
        # naming12: kept uncharged: 4.0 is the right number; a TA accepts it for "a Python int" (expect_int does)
        # partly: cost_ratio 2 is cost_linear_in_T (right); score_madds = T d_k^2 is generic, no key says d_k squared
        "q8_features_squared": ("cost_linear_in_T", "madds_features_squared"),   # score_madds now named by madds_features_squared (naming12)
        "q5_inline_exp_no_shift": ("no_max_subtraction",),
    },
    # judged from `measure scaled-attention --set blind11 -v`: () where the grader named nothing
    "scaled-attention": {
        "q1_mm_div_d_k": ("divide_by_dk",),
        # its own helper normalises over axis 0 (the queries of a 2-D score matrix): softmax_wrong_dim's mistake
        "q1_normaliser_helper_over_queries": ("softmax_wrong_dim",),
        # generic: "returns the same value for two different generators ... drawn from the generator"; no key
        # (ignores_generator would be right) although the message does point at the generator
        # now named by ignores_generator: the same value again on a second call with both generators (naming12)
        "q2_global_seed_not_generator": ("ignores_generator",),
        "q4_logsumexp_probs_log_zero": ("entropy_nan_saturated",),
        "q8_split_given_head_count": ("mha_split_by_head_count",),
        # float64 softmax weights times a float32 V raises: dtype_changed says "mixed with the input's dtype a
        # product raises", the same mistake and fix
        "q1_softmax_dtype_float64": ("dtype_changed",),
        "q1_keys_as_values": ("values_are_keys",),
        "q4_table_raw_entropy_copied": ("table_field_copied",),
        # sum(o @ W_O[:d_k]) == (sum of heads) @ W_O[:d_k]: the key's "added into one (T, d_k) block" is the
        # same product, and its text ends with the fix (each head times its own rows of W_O); judged right
        "q8_same_block_of_w_o": ("mha_heads_summed",),
        "q5_answer_sqrt_by_index": ("variance_vs_std", "answer_by_position"),
        "q6_answer_best_match_row": ("attention_as_argmax",),
        "q7_answer_best_key_only": ("attention_as_argmax",),
    },
    # judged from `measure attention-pipeline --set blind11 -v`: () where the grader named nothing
    "attention-pipeline": {
        "q02_einsum_over_d_k": ("divide_by_dk",),
        "q04_arange_blocks_diagonal": ("mask_blocks_diagonal",),
        # softmax over the queries via transpose/row-softmax/transpose: softmax_wrong_dim's mistake, another spelling
        "q05_transposed_row_softmax": ("softmax_wrong_dim",),
        "q10_change_of_base_log_zero": ("zero_log_zero_nan",),
        # the key's float32-in-float16 example is the other direction; its text (not finfo(dtype).min) is this fix
        "q04_float16_min_hard_coded": ("mask_not_dtype_min",),
        # A * exp(M) after the softmax zeroes the blocked weights without renormalising: zero_after_softmax's text
        "q05_exp_mask_multiplied": ("zero_after_softmax",),
        # 1/T in every kept entry is every prefix sum divided by T
        "q09_one_over_T_everywhere": ("prefix_average_divide_by_T",),
        # generic: "the count is wrong (for d_v different from d_k) ... you give 763840"; no key says the widths
        # were multiplied (d_model * d_k * d_v) instead of the matrices' sizes added
        # now named by param_count_widths_arithmetic (naming12): the count equals d_model * d_k * d_v (+ W_O)
        "q12_widths_multiplied": ("param_count_widths_arithmetic",),
        "q13_returns_weights_then_output": ("results_reordered",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (1x12 and 7x12)"; nothing says q @ K for K @ q
        # (nw_weights_on_columns is the [:, None] slip, not this one)
        # now named by nw_operands_swapped (naming12): a square re-run (T = d_k = d_v) matches q @ K exactly
        "q08_query_times_keys": ("nw_operands_swapped",),
        # "C".lower() is "c": softmax_scale_invariant's text is exactly the stated belief
        "q03_answer_scale_invariant_upper": ("softmax_scale_invariant",),
        "q14_answer_output_from_keys": ("cross_output_from_keys",),
    },
}

# written blind (twelfth set); to be judged from its own -v output
BLIND12_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind12 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        "q5_swapaxes_size_over_d_k": ("divide_by_dk",),
        "q5_mask_eq_one_filled": ("inverted_mask",),   # mask == 1 filled with -inf: True read as blocked
        "q3_div_helper_no_shift": ("no_max_subtraction",),
        "q5_clone_fill_no_empty_fix": ("fully_masked_nan",),
        # triu(ones(T_q, T_k)).T is tril of (T_k, T_q): the key's text names this very form
        "q4_triu_transposed_rectangular": ("causal_sizes_swapped",),
        # generic: "does not match the correct result in 105 of 105 entries"; the default dim=0 on the 3-D
        # input is softmax_over_batch_axis's mistake, which was not named
        "q3_default_dim_zero": ("softmax_over_batch_axis",),   # now named by softmax_over_batch_axis (naming13)
        # raw: "shape '[3, 7, 16]' is invalid for input of size 210"; shape_of_an_input would be right, unnamed
        # now named by shape_of_an_input: a re-run with d_v = d_k is right (naming13)
        "q5_output_viewed_as_q": ("shape_of_an_input",),
        "q5_float32_min_fill": ("fill_overflows_half",),
        # generic: "not the shape of the attention-weight matrix"; no key says the batch axis was repeated
        # now named by batch_axis_repeated: the right shape with the batch size 4 (no other size) inserted (naming13)
        "q1_shapes_concatenated": ("batch_axis_repeated",),
        # not caught: the notebook asks for a Python float (its public test asserts it); 0-d tensors keep 35/35
        # now named by returns_tensor_not_number: the notebook's words and its public check ask for floats;
        # charged q2:test_score_variances's one point, once the values are right (naming13)
        "q2_variances_left_as_tensors": ("returns_tensor_not_number",),
        "q6_trace_scaled_by_sqrt_d_v": ("scale_by_d_v",),
        # "b" read as B: "the mask is the wrong way round, keep the upper triangle", upper_triangular_mask's belief
        "q7_answer_b_lower": ("upper_triangular_mask",),
        # generic: "not the number of multiply-adds of Q @ K.T"; T^2 d_k^2 is not madds_features_squared's T d_k^2
        # now named by madds_sizes_multiplied: exactly (T d_k)^2 = 2^32, no other count here (naming13)
        "q8_madds_as_product_of_sizes": ("madds_sizes_multiplied",),
    },
    # judged from `measure scaled-attention --set blind12 -v`: () where the grader named nothing
    "scaled-attention": {
        "q1_einsum_over_d_k": ("divide_by_dk",),
        # softmax over dim=ndim-2 is the query axis of the 2-D scores: softmax_wrong_dim's mistake
        "q1_softmax_axis_from_rank": ("softmax_wrong_dim",),
        # in-place normal_() on the global RNG: the key's text names the global RNG
        "q2_normal_inplace_no_generator": ("ignores_generator",),
        "q4_log_neg_of_zero": ("entropy_nan_saturated",),
        # not caught: exp without the row max keeps full marks (no probe overflows exp here)
        "q1_unshifted_exp_softmax": (),
        # not caught: q1 asks for 2-D inputs, where transpose(0, 1) is right; only batched input shows it
        "q1_transpose_0_1_batched": (),
        "q2_variance_divided_by_sqrt": ("variance_scaled_by_sqrt",),
        # generic: "does not match the correct result in 240 of 240 entries"; nothing says W_Q reused for K, V
        # now named by same_projection (naming13): every Q/K/V from W_Q/W_K/W_V with a repeat is tried
        "q8_one_projection_for_qkv": ("same_projection",),
        "q8_w_o_diagonal_blocks": ("mha_output_projection_per_head",),
        # the clamp guards log(0) correctly; what is wrong is only the dropped minus sign
        "q4_sign_lost_with_clamp": ("entropy_sign",),
        "q4_table_key_drawn_before_query": ("keys_drawn_first",),
        # lower-case "b" is read as B: variance_vs_std's text is the stated belief
        "q5_answer_b_lower": ("variance_vs_std",),
        "q6_answer_itself": ("self_attention_identity",),
        "q7_answer_sorted": ("attention_needs_sorted_keys",),
    },
    "attention-pipeline": {
        # (Q @ K.mT) * (1.0 / d_k) is the scores divided by d_k: divide_by_dk's text, another spelling
        "q02_reciprocal_d_k_factor": ("divide_by_dk",),
        "q04_full_triu_diagonal_zero": ("mask_blocks_diagonal",),
        "q05_softmax_dim_minus_two": ("softmax_wrong_dim",),
        "q10_log2_method_of_zero": ("zero_log_zero_nan",),
        # generic: "raised ValueError: too many values to unpack" / "Q has shape (2, 3, 6, 10), expected
        # (2, 3, 6, 12)"; no key says the fused projection was split at d_model instead of d_k, d_k, d_v;
        # now named by fused_projection_split (naming13): a re-run at d_model = 8, d_k = 6, d_v = 7 matches the cut
        "q01_fused_split_at_d_model": ("fused_projection_split",),
        # P / P.sum(dim=0) of the lower triangle: the key's text names W.sum(dim=0) of it, this very slip
        "q09_normalised_by_column_sums": ("prefix_average_count_wrong_axis",),
        # softmax(K @ q) without 1/sqrt(d_k): no_scale ("not scaling the scores at all") is the fix
        "q08_unscaled_functional_kernel": ("no_scale",),
        "q12_output_square_d_model": ("param_count_wo_square",),
        # two of three tests raise (T != T'), but their messages name the key with the square re-run that matches
        "q13_output_from_transposed_weights": ("output_uses_weights_transposed",),
        "q11_rank_min_of_tokens": ("rank_bounded_by_T",),
        # a) "the rows of A stop summing to 1": mask_breaks_normalisation's text is the stated belief
        "q06_answer_rows_stop_summing": ("mask_breaks_normalisation",),
        # "C" (T = T', a square S, whatever the sequences) is tying the causal mask to a square score matrix;
        # the key's fix (one shared time axis) is answer d
        "q15_answer_equal_lengths_upper": ("causal_needs_square",),
        "q16_answer_cubic": ("cost_cubic_in_T",),
    },
}

# written blind (thirteenth set); to be judged from its own -v output
BLIND13_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure attention-pipeline --set blind13 -v`: () where the grader named nothing
    "attention-pipeline": {
        "q02_dot_T_on_batched_keys": ("batched_input_unsupported",),
        # partly: test_weights_large_float32 raises with no key; the other four name the key exactly; now named
        # there too by the square re-run brought to unit size (naming14)
        "q05_row_max_without_keepdim": ("max_without_keepdim",),
        # len(X) is X.shape[0], the batch size of a batched X: both texts say this and give X.shape[-2]
        "q07_sequence_length_from_len": ("batched_input_unsupported", "length_from_wrong_axis"),
        "q04_minus_infinity_then_triu": ("infinite_mask",),
        "q10_xlogy_in_nats": ("entropy_in_nats",),
        # generic: "Q does not match ... in 84 of 84 entries"; no key says X was rescaled before projecting
        "q01_inputs_scaled_before_projection": ("inputs_scaled_before_projection",),   # now named by it (naming14)
        # generic: "the smoothed row does not match"; no key says cosine similarity (gaussian_kernel is another)
        "q08_cosine_similarity_kernel": ("nw_cosine_kernel",),   # now named by nw_cosine_kernel (naming14)
        "q09_one_over_T_everywhere": ("prefix_average_divide_by_T",),
        # partly: with_output=False names param_count_wo_always (true of that call: W_O is counted there);
        # with_output=True only gives the counts; param_count_wo_ignored would be the true half there
        # now named by param_count_flag_inverted (naming14): both counts exactly swapped, shown by a second call
        "q12_output_flag_inverted": ("param_count_wo_always", "param_count_wo_ignored", "param_count_flag_inverted"),
        # mis-named: the 2-D tests name softmax_wrong_dim (right: dim 0 is the queries), but the batched
        # padding-mask test names softmax_implicit_dim, "calling F.softmax without dim"; the code passes dim 0
        # explicitly (S.softmax(0)), so that text blames an omission the student did not make; the batch-axis
        # slip is softmax_over_batch_axis's (sdpa's catalogue only)
        # now named by softmax_over_batch_axis on the batched test (naming14): a 2-D call shows dim 0 written out
        "q13_softmax_over_queries_inline": ("softmax_wrong_dim", "softmax_over_batch_axis"),
        # generic: "rank_S_lesson is not correct: try torch.linalg.matrix_rank"; no key says distinct queries
        # naming24: generic again, saying both readings: 3 is also the count of S's singular values above a
        # tolerance too small for float32 (blind20's q11_float64_tolerance_on_float32_svd); one number cannot tell
        "q11_rank_from_distinct_queries": (),
        # "D" (one row per token of Y): cross_output_from_keys's text is the stated belief
        "q14_answer_output_rows_of_y": ("cross_output_from_keys",),
        "q16_answer_linear_per_token": ("cost_linear_in_T",),
    },
    # judged from `measure scaled-attention --set blind13 -v`: () where the grader named nothing
    "scaled-attention": {
        "q1_power_minus_one": ("divide_by_dk",),     # d_k ** -1 is dividing the scores by d_k
        # nn.Softmax(dim=0) on the 2-D scores is the query axis, dim=-2: softmax_wrong_dim's mistake
        "q1_softmax_module_dim0": ("softmax_wrong_dim",),
        "q2_torch_normal_global": ("ignores_generator",),   # torch.normal without generator: the global RNG
        # -(p log p + 1e-9): the NaN is exactly 0 * log 0 and the key's fix (the epsilon inside the log, or
        # log_softmax) is the student's; entropy_epsilon_outside_log's text is the other form, (p + eps) log p -> inf
        "q4_epsilon_outside_log": ("entropy_nan_saturated",),
        "q8_head_scale_model_width": ("mha_scale_by_d_model",),
        "q1_scale_after_softmax": ("scale_after_softmax",),
        # generic: "does not match the correct result in 35 of 35 entries"; no key says the max-shift is per column
        # now named by softmax_shift_wrong_axis (naming14)
        "q1_shift_by_column_max": ("softmax_shift_wrong_axis",),
        # generic: "the variance of q.k / sqrt(d_k) is not within 10%"; nothing says 1 was subtracted (precedence)
        # now named by variance_precedence (naming14)
        "q2_precedence_n_minus_1": ("variance_precedence",),
        "q2_scaled_multiplies": ("multiply_by_sqrt_dk",),
        # raw: "EncodeError: only dicts with string keys can be returned"; no key says a dict keyed by d
        # (table_dict_of_lists is a dict of columns, not this)
        # naming14: still generic (not proven: the keys never come back), but the message now says a dict with
        # non-string keys (keyed by d?) cannot be read and to return a list of row dicts in the order of dims
        # now named by table_keyed_by_d (naming17): the sandbox's refusal lists the keys, the dims passed
        "q4_table_keyed_by_d": ("table_keyed_by_d",),
        # generic: "does not match the correct result in 240 of 240 entries"; nothing says features attended as
        # tokens (mha_split_without_transpose is the reshape without a transpose, not this permute)
        # now named by mha_heads_features_as_tokens (naming14)
        "q8_permute_features_as_tokens": ("mha_heads_features_as_tokens",),
        "q8_layer_norm_after": ("mha_layer_norm_added",),
        # generic: "should be one letter as a string"; true of the format, but nothing says the full stop
        # now named by answer_extra_characters (naming14)
        "q5_answer_with_period": ("answer_extra_characters",),
        "q6_answer_plain_mean": ("uniform_weights",),   # D, the plain mean of the rows: the key's text
        # A (the value of the key equal to the query, a hash lookup) is one value, not a mix: the key's fix
        "q7_answer_exact_match": ("attention_as_argmax",),
    },
    # judged from `measure sdpa-from-scratch --set blind13 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        "q5_mT_times_reciprocal_d_k": ("divide_by_dk",),   # Q @ K.mT * (1 / d_k) is dividing by d_k
        "q5_annotated_mask_eq_zero_1e9": ("neg_1e9_float16",),
        "q5_masked_softmax_helper_nan_rows": ("fully_masked_nan",),
        "q3_max_found_but_not_subtracted": ("no_max_subtraction",),   # the max is computed, never used
        # weights3 * causal_mask(3): the unmasked weights zeroed after the softmax, rows no longer sum to 1
        "q6_causal_by_multiplying_weights": ("zero_after_softmax",),
        # A (zero after the softmax = -inf before it): the key's text is the stated belief and its refutation
        "q7_answer_a_upper": ("zero_after_softmax",),
        # T_k = T_q in both branches: the mask is square from one length, the key's very text (q4 only loses)
        "q4_typo_t_k_always_square": ("causal_ignores_T_k",),
        # partly: q3's -inf test is generic ("does not match in 60 of 60 entries"); q5/q6 name mask_fills_zero,
        # true of the composed code (blocked scores become 0, exp(0) is not 0) though its examples (scores *
        # mask, a fill of 0) point at the attention's fill, which is right here: the 0 comes from stable_softmax
        # now named by softmax_inf_to_zero (naming14): q3 by the -inf -> 0 variant, q5/q6 by a stable_softmax probe
        "q3_inf_replaced_by_zero": ("softmax_inf_to_zero",),
        # log(mask.float()) is a float32 tensor mixed into half scores, the product with V raises: the key's text
        "q5_log_mask_float32_bias": ("dtype_changed",),
        # the masked_fill under no_grad cuts the graph (no gradient to Q, K): no_grad is not in the key's list
        # of examples, but "cutting the autograd graph ... no gradient flows back" is the mistake
        "q5_masking_under_no_grad": ("gradient_cut",),
        "q5_scale_from_key_count": ("scale_by_T",),     # sqrt(K.shape[-2]) = sqrt(T_k): the key's text
        # generic: "weights_shape is not the shape of the attention-weight matrix"; nothing says a heads axis
        "q1_heads_axis_added": ("shape_axis_added",),   # now named by shape_axis_added (naming14)
        "q2_divisor_power_precedence": ("scale_precedence",),
        "q6_causal_scores_unscaled": ("no_scale",),   # the causal weights from raw3 = Q3 @ K3.T, never scaled
        # generic: "attn_entries is not the number of entries ..."; nothing says T = 1024 was rounded to 1000
        "q8_T_rounded_to_1000": ("size_rounded",),   # now named by size_rounded (naming14)
    },
}

# written blind (fourteenth set); to be judged from its own -v output
BLIND14_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure attention-pipeline --set blind14 -v`: () where the grader named nothing
    "attention-pipeline": {
        # mis-named: test_weights_large_float32 says uniform_weights (true of the output: every open entry is
        # filled with -1e9, so the rows come out even), but the mistake is reading the additive M as a 0/1
        # keep-mask, additive_mask_as_boolean's text; the other three tests are generic or raw
        # now named by additive_mask_as_boolean (naming15): a variant on masked M, a probe on all-zero M
        "q05_masked_fill_where_mask_is_zero": ("additive_mask_as_boolean",),
        # `n_q, d_k = Q.shape` works only for 2-D Q: the key's text (only 2-D inputs; read the last axis)
        "q02_shape_unpacked_into_two_names": ("batched_input_unsupported",),
        # blocking j < i leaves the future (upper triangle) open: the key's text, fix is j > i
        "q04_loop_blocks_lower_triangle": ("upper_triangular_mask",),
        "q10_categorical_entropy_nats": ("entropy_in_nats",),
        # mis-named on test_count_with_output: param_count_wo_as_dk says W_O is sized d_k x d_model, but this
        # W_O term (d_v * d_model) is right; the same count comes from W_V sized d_model x d_k, which
        # param_count_dv_as_dk (named on test_count_qkv) says
        # now named by param_count_dv_as_dk on both tests (naming15): the with_output=False count tells them apart
        "q12_three_blocks_of_d_k": ("param_count_dv_as_dk",),
        # generic: "A does not match ... the wrong entries all lie ..."; nothing says a 0/1 tril was added
        # (mask_not_additive's text, 0/1 in place of finfo.min, is the nearest; it is never named here)
        "q07_zero_one_tril_added": ("mask_not_additive",),   # now named by mask_not_additive (naming15)
        # raw: "RuntimeError: stack expects each tensor to be equal size"; nothing says stacked, not a tuple
        "q01_qkv_stacked_into_one_tensor": ("qkv_stacked",),   # now named by qkv_stacked (naming15)
        # generic: "the smoothed row does not match ..."; no key says so
        "q08_softmax_on_top_of_kernel": ("normalised_twice",),   # now named by normalised_twice (naming15)
        # generic: "W_avg does not match ... in 1 of 81 entries"
        "q09_loop_starts_at_second_row": ("prefix_average_row_skipped",),   # now named by prefix_average_row_skipped (naming15)
        # rank K = 4 is the larger of rank Q (2) and rank K: the key's text, rank S <= min(rank Q, rank K)
        "q11_rank_of_keys_alone": ("rank_above_min",),
        "q13_values_projected_with_w_k": ("same_projection",),   # W_K used for both K and V
        "q07_scores_scaled_by_d_model": ("scale_by_d_model",),
        "q05_shift_by_global_max": ("global_max_subtraction",),
        "q03_answer_flatter_rows": ("scale_direction_reversed",),
        # c (equal lengths suffice) ties the causal mask to a square S: the key's text and its refutation
        "q15_answer_equal_lengths": ("causal_needs_square",),
    },
    # judged from `measure sdpa-from-scratch --set blind14 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        "q5_where_neg_inf_rows_left_nan": ("fully_masked_nan",),
        "q5_d_k_computed_never_used": ("no_scale",),
        # permute(0, 2, 1) assumes 3-D keys: fixed_axes's text (a fixed number of dims; use K.transpose(-2, -1))
        "q5_keys_permuted_3d_only": ("fixed_axes",),
        # A (zero after the softmax = -inf before it): the key's text is the stated belief (as blind13's q7)
        "q7_answer_a_from_list": ("zero_after_softmax", "answer_by_position"),
        "q2_biased_variance_by_hand": ("biased_variance",),
        "q1_out_width_from_queries": ("output_width_dk",),   # Q_shape[2] is d_k = 64, not d_v = 128
        # raw exception (a RuntimeError of sizes), nothing named; now named by keepdim_by_unsqueeze_last (naming15):
        # dim=-1 right, a (4, 4, 4) cube with dim=0 matches the reduced axis put back with unsqueeze(-1)
        "q3_max_restored_on_last_axis": ("keepdim_by_unsqueeze_last",),
        "q8_ratio_linear_in_T": ("cost_linear_in_T",),
        "q5_mask_none_not_checked": ("crash_on_mask_none",),
        "q5_blocked_filled_plus_inf": ("pos_inf_fill",),
        # nan_to_num turns the -inf fill into the most negative finite float: a large finite fill, the key's text
        "q5_nan_to_num_on_scores": ("fully_masked_uniform",),
        "q4_not_triu_blocks_diagonal": ("causal_excludes_self",),
        "q6_trace_floor_divided": ("floor_division_scale",),
        # generic: "score_madds is not the number of multiply-adds ..."; now named by madds_with_sqrt_d_k (naming15)
        "q8_madds_with_sqrt_d_k": ("madds_with_sqrt_d_k",),
        # mis-named: divide_by_dk, because sqrt(64) = 8 happens to equal the example's d_k; the code does take a
        # square root, of scale_divisor's head width 64 reused for the example's scores instead of Q.shape[-1].
        # No key says so (example_value_reused is the reverse, 8 used where 64 is asked; scale_constant is q5's)
        # now named by divisor_d_k_or_sqrt_64 (naming15): the values cannot tell d_k from sqrt(64), the key says both
        "q2_scaled_by_head_width_64": ("divisor_d_k_or_sqrt_64",),
    },
    # judged from `measure scaled-attention --set blind14 -v`: () where the grader named nothing
    "scaled-attention": {
        # the transposes around softmax(dim=-1) normalise each key's column over the queries: the key's text
        "q1_softmax_around_transpose": ("softmax_wrong_dim",),
        "q1_scale_helper_divides_by_d_k": ("divide_by_dk",),   # torch.div(s, d_k) inside a helper
        "q8_head_scale_from_w_q": ("mha_scale_by_d_model",),   # W_Q.shape[0] is d_model
        # two tests' messages start "your code raised RuntimeError" (T_q != T_k), but the key names the cause
        "q1_row_max_without_keepdim": ("keepdim_missing",),
        "q4_log_softmax_rows_unguarded": ("entropy_nan_saturated",),
        "q5_answer_scaled_variance": ("variance_after_scaling",),
        # K.dim() = 2 gives c = sqrt(2): "another constant than 1/sqrt(d_k)" is true and says what to fix,
        # though it does not say where the constant came from (the rank of K)
        "q1_scale_from_rank_of_k": ("wrong_scale_constant",),
        # dim=1 of the batched (n_heads, T, T) scores is the query axis: the key's text, named on q8
        "q1_softmax_helper_dim1": ("softmax_wrong_dim",),
        "q1_scale_from_value_width": ("scale_by_d_v",),
        # generic: "the output does not match ... in 30 of 30 entries"; now named by values_averaged_over_keys (naming15)
        "q1_weighted_values_averaged": ("values_averaged_over_keys",),
        # generic: "variance of q.k is not within 10% of its expected value"; now named by dots_cosine_similarity
        # (naming15: replayed on the same generator)
        "q2_cosine_instead_of_dot": ("dots_cosine_similarity",),
        "q2_abs_of_dots": ("dots_absolute_value",),  # generic: same "not within 10%"; now named by dots_absolute_value (naming15)
        # generic: "the entropy table ... does not match ... 16 of 16"; now named by table_seed_between_draws (naming15)
        "q4_table_seed_between_draws": ("table_seed_between_draws",),
        # generic: "softmax_entropy(logits) does not match ..."; now named by entropy_with_temperature (naming15)
        "q4_entropy_with_temperature": ("entropy_with_temperature",),
        # generic: "should return one row per d: 3 rows, got 4"; now named by table_ignores_dims (naming15)
        "q4_table_ignores_dims": ("table_ignores_dims",),
        "q8_returns_pair": ("returns_extra_values",),
        # Q pre-scaled by 1/sqrt(d_k) then scaled again inside attention is S / d_k (as blind's q1_scaled_twice)
        "q8_queries_prescaled_and_scaled": ("divide_by_dk",),
        "q7_answer_best_key": ("attention_as_argmax", "answer_by_position"),
    },
}

# written blind (fifteenth set); to be judged from its own -v output
BLIND15_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "scaled-attention": {
        "q1_column_loop_over_queries": ("softmax_wrong_dim",),
        "q1_einsum_without_scale": ("no_scale",),
        "q1_row_loop_divides_by_d_k": ("divide_by_dk",),
        # softmax(logits + 1e-9) then p * log p: the NaN is 0 * log 0 and the key's fix (log_softmax, or the
        # epsilon in the log) is the student's; as blind14's q4_epsilon_outside_log
        "q4_epsilon_added_to_logits": ("entropy_nan_saturated",),
        "q8_merge_view_without_permute": ("mha_merge_without_transpose",),
        "q8_keys_projected_with_w_q": ("same_projection",),
        "q5_answer_squared_width": ("variance_d_k_squared", "answer_by_position"),
        "q6_answer_best_match": ("attention_as_argmax", "answer_by_position"),
        "q1_causal_mask": ("causal_mask_added",),
        # e / (1 + sum e): rows sum to < 1, which the key says; its "without dividing by the row sum" is near
        # enough (the divisor is not the row sum), as earlier judges took q1_normalised_by_row_max
        "q1_softmax_plus_one": ("weights_not_normalised",),
        # raw: "EncodeError: builtin_function_or_method cannot cross the sandbox"
        "q2_item_not_called": ("callable_not_called",),  # now named by callable_not_called (naming17)
        # scaled = raw; scaled /= ...: the message says raw_std/H_raw hold the scaled values, the exact symptom,
        # and "one value under two keys" is what the rows show; the alias as cause is not named (its example is
        # a copied line)
        "q4_table_scaled_in_place_alias": ("table_field_copied",),
        # mis-named: mha_heads_missing (fewer heads looped) on one test, generic on two; the loop runs n_heads
        # times, the slices start at h * n_heads; mha_strided_heads is another split (h, h + n_heads, ...): no key
        # now named by mha_head_stride_n_heads (naming16): output match where the slices fit, a call with
        # another n_heads where they run past d_model
        "q8_head_stride_n_heads": ("mha_head_stride_n_heads",),
    },

    # judged from `measure attention-pipeline --set blind15 -v`: () where the grader named nothing
    "attention-pipeline": {
        "q04_triu_ones_times_minus_inf": ("mask_nan_from_inf",),
        # .softmax(0): the key's text says dim=-2 (true of the 2-D S), but two messages say "softmax over
        # dim 0 ... on 3-D S and on a 2-D S alike", and the fix it gives (dim=-1) is the student's fix
        "q05_softmax_axis_zero_method": ("softmax_wrong_dim",),
        # the key's text names .T reversing every dimension of a batched tensor and the fix .mT
        "q02_dot_T_on_batched_keys": ("batched_input_unsupported",),
        # where(M < 0, S, -1e9) reads M as a boolean with the branches swapped; the key's fix (S + M) is the
        # variant's, and its messages say the weight lands on the BLOCKED keys (as blind14's masked_fill(M == 0))
        "q05_where_branches_swapped": ("additive_mask_as_boolean",),
        "q07_returns_output_only": ("returns_one_value",),
        # now named by given_weights_unused (naming17)
        "q01_fresh_linear_layers": ("given_weights_unused",),
        # now named by values_averaged_over_keys (naming17)
        "q08_normalised_weights_averaged": ("values_averaged_over_keys",),
        "q09_every_row_divided_by_T": ("prefix_average_divide_by_T",),
        "q10_entropy_in_log10": ("entropy_log10",),
        "q12_output_flag_is_not_none": ("param_count_wo_always",),
        # only K is taken from X (V is from Y); the key's "keys/values from X" covers it and the fix (K from Y)
        "q13_keys_from_x": ("cross_roles_swapped",),
        # now named by rank_from_size_arithmetic (naming17)
        "q11_max_rank_is_tokens_minus_d_k": ("rank_from_size_arithmetic",),
        # a ("rows stop summing to 1 without the mask"): the key's text and its refutation
        "q06_answer_rows_stop_summing_upper": ("mask_breaks_normalisation",),
        "q14_answer_keys_side_output": ("cross_output_from_keys",),
        "q16_answer_linear_in_T": ("cost_linear_in_T",),
    },
    "sdpa-from-scratch": {
        "q5_mask_eq_false_rows_nan": ("fully_masked_nan",),
        "q5_broadcast_dot_unscaled": ("no_scale",),
        "q5_scaled_by_d_k_not_sqrt": ("divide_by_dk",),
        # dim=1 is the query axis of 3-D scores (softmax_wrong_dim) and the head axis of 4-D ones
        # (softmax_over_batch_axis): each key names the case it was given on; both fix to dim=-1
        "q5_softmax_dim_1": ("softmax_wrong_dim", "softmax_over_batch_axis"),
        "q3_sum_without_keepdim": ("reduction_without_keepdim",),
        # the names are swapped; the key blames an in-place div_ on raw_scores and says to build the scaled
        # scores as a new tensor, a fix this code does not need (and scaled_score_var, wrong too, goes
        # unnamed): a different mistake, mis-named; no key for swapped variances
        # now named by answers_swapped (naming16): both answers are exactly the right two values, swapped
        "q2_variances_swapped": ("answers_swapped",),
        "q5_weights_masked_after_softmax": ("zero_after_softmax",),  # weights * mask after the softmax
        "q3_max_tuple_not_unpacked": ("reduction_tuple_as_tensor",),  # now named by reduction_tuple_as_tensor (naming17)
        "q4_int64_tril_mask": ("mask_not_bool",),
        "q6_causal_weights_from_sdpa_output": ("weights_as_output",),  # now named by weights_as_output (naming17)
        # doubles d_k with T; cost_cubic_in_T says the student thinks the scores cost T^3: a different
        # mistake, mis-named; no key for doubling d_k
        # now named by cost_ratio_eight (naming16): its text gives both readings of 8 (T^3, or d_k doubled too)
        "q8_ratio_doubles_d_k_too": ("cost_ratio_eight",),
        "q7_answer_d_lowercase": ("zero_after_softmax",),  # answer D is zeroing after the softmax
        "q1_out_shape_width_d_k": ("output_width_dk",),
    },
}

# written blind (sixteenth set); to be judged from its own -v output
BLIND16_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind16 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        # a fill of 1e-15 is a score of about 0: exp(0) = 1, blocked keys keep weight, the key's text and fix
        "q5_blocked_filled_tiny_positive": ("mask_fills_zero",),
        # dim=2 of 4-D scores is the query axis (dim=-2), the key named; fixed_axes (a fixed axis that fits one
        # rank, use negative axes) is the cause and gives the same fix, dim=-1
        "q5_softmax_dim_2_from_3d_code": ("softmax_wrong_dim", "fixed_axes"),
        # raw: "ValueError: not enough values to unpack (expected 4, got 3)" on 9 tests; K unpacked into four
        # axes and transpose(2, 3) is fixed_axes's text (B, T, d = Q.shape; use K.transpose(-2, -1))
        "q5_keys_unpacked_into_four_axes": ("fixed_axes",),  # now named by fixed_axes (naming18)
        "q5_torch_sqrt_of_python_int": ("torch_sqrt_of_int",),
        "q3_sum_hard_coded_to_last_axis": ("softmax_sum_wrong_axis",),   # "or a fixed axis whatever dim is"
        # the float32 max promotes the result: float16 in, float32 out, and the product with half V raises
        "q3_float32_max_subtracted_from_input": ("dtype_changed",),
        # generic: "causal_mask(11) should have dtype torch.bool (True = may attend), got torch.float32" (q6:
        # "weights3_causal is not defined"); mask_not_bool's 0/1 example is not this 0/-inf one, but its
        # "~mask and masked_fill need a boolean mask (True = may attend)" is the fix (as blind's q4_float_mask)
        "q4_additive_zero_minus_inf_matrix": ("mask_not_bool",),  # now named by mask_not_bool (naming18)
        # zeros for scores: each query averages its visible keys; "the same weight ... instead of the softmax of
        # the scores" is the fix, though "(the mean of V)" is over all keys, not the visible ones
        "q6_causal_from_zero_affinities": ("uniform_weights",),
        # the three guards that fail leave the empty rows NaN: the key names the symptom (as blind13-15 did)
        "q5_nan_rows_multiplied_by_zero": ("fully_masked_nan",),
        "q5_empty_rows_found_before_fill": ("fully_masked_nan",),
        "q5_any_over_whole_mask": ("fully_masked_nan",),
        # Q / sqrt(d_k) @ (K / sqrt(d_k))^T is the scores divided by d_k = 8: the key's "d_k instead of
        # sqrt(d_k)" and its fix (divide by math.sqrt(Q.shape[-1])); divide_by_dk says the same
        "q2_queries_and_keys_both_scaled": ("divisor_d_k_or_sqrt_64", "divide_by_dk"),
        # generic: "weights_shape should be a tuple of Python ints, for example (2, 3, 4)"; the message says the
        # fix, but no key for a shape written as a string (size_not_int is a Size where a number is needed)
        "q1_shapes_as_strings": ("shape_as_string",),  # now named by shape_as_string (naming18)
        # generic: "cost_ratio is not right: how does T * T change when T doubles?"; no key for the increase
        # new / old - 1 = 3 (cost_ratio_inverted is old / new)
        "q8_increase_instead_of_ratio": ("cost_ratio_as_increase",),  # now named by cost_ratio_as_increase (naming18)
    },
    # judged from `measure scaled-attention --set blind16 -v`: () where the grader named nothing
    "scaled-attention": {
        # float32 weights times a float64 V raises: dtype_changed's "a float32 tensor never cast back ... mixed
        # with the input's dtype a product raises", the same mistake and fix (as blind11's q1_softmax_dtype_float64)
        "q1_softmax_forced_float32": ("dtype_changed",),
        # raw: "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 12)" on all 6
        # tests (d_k passed as the softmax helper's dim); softmax_wrong_dim's fix (dim=-1) is right, but its text
        # (the query axis, dim=-2, a valid axis) is another mistake; no key says a size was passed as the dim
        # now named by size_as_dim (naming18)
        "q1_softmax_dim_is_d_k": ("size_as_dim",),
        # partly: test_noncontiguous_inputs says only "your own assert failed (line 5 of `attention`)" (the
        # row-sum division gives huge weights there); the other four name the key exactly
        # now named by scores_normalised_without_exp (naming18): the same call without the zero query runs
        "q1_scores_divided_by_row_sum": ("scores_normalised_without_exp",),
        "q1_scale_on_output": ("scale_after_softmax",),     # its text: "(to the weights or the output)"
        # q scaled after the dots: the key's text (the unscaled variance for scaled=True) is what comes back, and
        # the fix is in the scaled branch (as blind7's q2_integer_exponent)
        "q2_scaling_after_the_dots": ("scaled_flag_ignored",),
        "q4_entropy_dim_one": ("entropy_wrong_dim",),        # on (2, 3, 5) and transposed views: dim 1 is not a row
        # generic: "does not match the correct result in 6 of 6 entries" and "contains NaN or inf in 2 of 4";
        # mean of -log p has no p weight: entropy_mean_not_sum (mean of -p log p) would leave -sum log p, still
        # wrong; no key says the terms are not weighted by p (the cross-entropy against a uniform row)
        # now named by entropy_unweighted (naming18)
        "q4_mean_of_minus_log_p": ("entropy_unweighted",),
        "q4_entropy_summed_to_scalar": ("entropy_one_number",),
        "q4_shifts_caller_logits_in_place": ("inplace_on_input",),
        # generic: "the entropy table ... does not match ... in 4 of 16 entries" (8 of 12 with other dims and
        # seed); q, k = one randn(6, d) sliced: keys_drawn_first / keys_drawn_transposed / table_seed_between_draws
        # are other draws; no key says one call sliced in two
        # now named by table_one_draw (naming18)
        "q4_table_one_randn_call": ("table_one_draw",),
        # the message says "those of raw / 2 for every d, where each row divides by sqrt(d)": the constant and
        # the fix; the key's "another constant than 1/sqrt(d_k)" is the mistake
        "q4_table_uses_global_d_k": ("wrong_scale_constant",),
        "q8_head_scores_times_C_power": ("mha_scale_by_d_model",),
        # raw: "expected m1 and m2 to have the same dtype, but got: double != float" on the 2 float64 tests;
        # torch.ones((T, 1)) is a float32 tensor mixed into float64: dtype_changed's text and fix
        # now named by dtype_changed (naming18): the float32 re-run of every input runs and is right
        "q8_row_sums_with_float32_ones": ("dtype_changed",),
        # the return in the loop stops after head 0; the message "1 heads of d_k = 12 concatenated where there are
        # 4" and the key's "looping over fewer heads than n_heads ... every head must be computed and
        # concatenated" are the effect; its examples (range(n_heads - 1)) are not the cause, but the student looks
        # at why the loop ends early
        "q8_return_inside_loop": ("mha_heads_missing",),
        # dim=1 of the batched (n_heads, T, T) scores is the query axis, dim=-2: the key's text (as blind14's
        # q1_softmax_helper_dim1)
        "q8_batched_softmax_dim_one": ("softmax_wrong_dim",),
    },
    # judged from `measure attention-pipeline --set blind16 -v`: () where the grader named nothing
    "attention-pipeline": {
        # generic: "Q has shape (12, 7), expected (7, 12)" on all 3 tests; Q, K, V come out as (X W)^T, tokens as
        # columns; weight_transposed is X @ W.T (another product, right shape), and no key says the projections
        # are returned transposed
        # now named by projections_transposed (naming18)
        "q01_tokens_as_columns": ("projections_transposed",),
        # its text names torch.bmm and transpose(0, 1) fitting one layout, and the fix .transpose(-2, -1)
        "q02_bmm_with_transpose_1_2": ("batched_input_unsupported",),
        # mis-named: scale_by_T on the broadcast test, where K.dim() = 4 is T_k by accident (as blind2's
        # q02_d_k_from_shape_1); two tests generic. scale_wrong_axis ("d_k is Q.shape[-1]") gives the fix: the
        # code reads d_k from K.dim(), the number of dimensions, not from an axis, but the student fixes the right
        # line; no key says dim() / ndim
        # now named by scale_from_ndim (naming18): the tests' shapes changed so that no size equals the rank
        "q02_scale_from_number_of_dims": ("scale_from_ndim",),
        "q02_power_one_half_precedence": ("sqrt_precedence",),
        # generic: "the mask blocks the wrong entries: exactly the keys after each query ... should be blocked";
        # masked_fill(tril.bool(), min) blocks the diagonal and the past and leaves the future open: the
        # future-looking pattern upper_triangular_mask names (as blind2's q04_blocks_the_past); mask_blocks_diagonal
        # alone would leave the past blocked
        # now named by upper_triangular_mask (naming18): tril itself blocked, proven on the mask
        "q04_masked_fill_on_tril_itself": ("upper_triangular_mask",),
        # full(..., finfo(dtype).min) without dtype= then .to(dtype): the key's "a tensor made without dtype=",
        # float64's minimum refused by float32, and its fix (dtype=dtype) are the variant's
        "q04_full_in_float32_then_cast": ("mask_built_in_float32",),
        # exp(S + M - shift) / sum exp(S - shift) is softmax(S) with the blocked weights zeroed, exactly: the key's
        # words and "rows no longer sum to 1" are the variant's; weights_not_normalised (a divisor that is not the
        # row sum, as blind15's q1_softmax_plus_one) would do too
        "q05_denominator_without_mask": ("zero_after_softmax", "weights_not_normalised"),
        # raw: "mat1 and mat2 shapes cannot be multiplied (10x5 and 10x10)" on all 5 tests; V @ A for A @ V is
        # nw_operands_swapped's "V @ w for w @ V" (its text is general, its examples the kernel smoother's);
        # output_uses_weights_transposed (A^T V) is another product
        # now named by nw_operands_swapped (naming18): a re-run with d_v = T gives (V @ A, A), A right
        "q07_values_times_weights": ("nw_operands_swapped",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (10x12 and 5x10)"; unpacked as (Q, V, K), the queries are
        # scored against the values and the keys averaged: scores_from_values's text and its fix ("the keys decide
        # the weights, the values are what is averaged"); results_reordered is about what a function returns
        # now named by scores_from_values (naming18): a re-run with d_v = d_k gives Q (XW_V)^T averaging X W_K
        "q07_unpacks_q_v_k": ("scores_from_values",),
        # mis-named: same_projection ("one projection matrix for more than one of Q, K, V") on 3 tests, but
        # project_qkv is right; the mistake is scaled_scores(Q, Q), which keys_are_queries names (same S as
        # K = X W_Q, other fix; as blind9's q07_keys_scored_against_queries was mis-named qk_swapped)
        # now named by keys_are_queries (naming18): the student's project_qkv returns the right K
        "q07_queries_scored_against_queries": ("keys_are_queries",),
        "q08_kernel_divided_by_d_k": ("divide_by_dk",),
        # W / W.sum(1) divides column j by j + 1: prefix_average_wrong_axis's words; sum_without_keepdim (written
        # for the softmax's e.sum(dim=-1)) names the missing keepdim=True itself
        "q09_row_sums_without_keepdim": ("prefix_average_wrong_axis", "sum_without_keepdim"),
        "q10_entr_left_in_nats": ("entropy_in_nats",),
        "q13_mixes_raw_y": ("values_not_projected",),
    },
}

# written blind (seventeenth set); each assignment's dict judged from its own -v output
BLIND17_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind17 -v`: () where the grader named nothing
    "scaled-attention": {
        # raw: "TypeError: unsupported operand type(s) for -: 'Tensor' and 'torch.return_types.max'" on all 6
        # q1 tests; max(dim=..., keepdim=True) without .values: keepdim_missing (its example has .values) is
        # about the missing keepdim, and no key says torch.max with a dim returns a (values, indices) pair
        "q1_row_max_namedtuple_subtracted": ("reduction_tuple_as_tensor",),  # now named by reduction_tuple_as_tensor (naming19)
        # generic: "the weight matrix contains NaN or inf in 35 of 35 entries"; sqrt(Q K^T / d_k) is no constant
        # scale (wrong_scale_constant's softmax(Q K^T / c)), and no key says the root is taken of the scores
        "q1_sqrt_of_whole_fraction": ("sqrt_of_scores",),  # now named by sqrt_of_scores (naming20)
        # generic: "does not match ... largest difference 0.000158"; softmax(scores.half()) cast back: dtype_changed's
        # "mixing in another dtype than the input's" and its fix (compute in the input's dtype) lead to the .half()
        # (float32_scale is the scale constant, another line)
        "q1_softmax_in_half_precision": ("dtype_changed",),
        # normal_ returns its buffer, so k is q: the message "the variance of q.q" and the key's "k = q" are the
        # effect, and the student looks at why k equals q (as blind3's q2_key_equals_query)
        "q2_two_draws_one_normal_buffer": ("keys_are_queries",),
        # `if scaled is not None` divides for scaled=False too: the key (named on the unscaled test only, the
        # scaled one passes) says the flag is read wrong and that False divides; its "not when scaled=True" half
        # is not this code, but the fix is in the flag test
        "q2_scaled_flag_tested_against_none": ("scaled_flag_inverted",),
        # generic: "dot_product_variance(...) is not a finite number"; one dot of length n * d_k sums over the
        # samples as well: dots_summed_over_samples's text and fix (sum each pair over its d_k coordinates, dim -1)
        "q2_torch_dot_of_flattened_draws": ("dots_summed_over_samples",),
        # generic: "the variance of q.k is not within 10% of its expected value"; var_mean's (var, mean) unpacked
        # as (mean, var) returns the mean: variance_of_the_mean is var / n or the standard error, results_reordered
        # the function's own return; no key says the pair was unpacked the wrong way round
        "q2_var_mean_read_in_wrong_order": ("variance_mean_swapped",),  # now named by variance_mean_swapped (naming19)
        # not caught: softmax(..., dtype=torch.float32) gives a float32 entropy for float64 logits, which the
        # notebook forbids ("of the same dtype as logits"); dtype_changed would be right
        "q4_entropy_softmax_dtype_float32": ("dtype_changed",),
        # generic: "softmax_entropy(logits) does not match ... in 6 of 6 entries"; add_/log_ alias p and log_p (the
        # result is -sum (ln p)^2): inplace_on_input is about the caller's tensors, and no key says the in-place
        # log overwrote p
        "q4_log_taken_in_place_on_p": ("inplace_alias_overwritten",),  # now named by inplace_alias_overwritten (naming20)
        # raw: "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)" on all 3 q4
        # tests; sum(dim=logits.dim()) is one past the last axis: entropy_wrong_dim's "the wrong dimension ...
        # along each row" gives the fix (dim=-1); size_as_dim is a size, not the rank
        "q4_entropy_summed_over_dim_ndim": ("entropy_wrong_dim",),
        "q4_table_half_power_precedence": ("scale_precedence",),   # raw / d ** 1/2: the key's very example
        "q8_slice_end_inclusive": ("mha_head_slice_short",),       # slice(h * d_k, (h + 1) * d_k - 1): its text
        # torch.zeros(T, d_model) is a float32 buffer mixed into float64: dtype_changed's text and fix
        "q8_buffer_in_default_dtype": ("dtype_changed",),
        "q8_view_of_transposed_heads": ("view_on_noncontiguous",),   # transpose(0, 1).view(T, d_model)
    },
    # judged from `measure sdpa-from-scratch --set blind17 -v`: () where the grader named nothing
    "sdpa-from-scratch": {
        # generic: "weights_shape should be a tuple of Python ints, for example (2, 3, 4)"; the message says the
        # fix, but no key says a trailing comma made a 1-tuple holding the tuple
        "q1_weights_shape_trailing_comma": ("answer_in_one_more_container",),  # now named by answer_in_one_more_container (naming19)
        # "(4, 128): the right shape (4, 10, 128) with axis 1 (size 10) left out": the query axis dropped, the fix
        "q1_out_shape_slice_off_by_one": ("shape_axis_dropped",),
        "q2_item_method_not_called": ("callable_not_called",),   # `.item` without the call: the key's text
        # generic: q3/q5 "your code raised TypeError: stable_softmax() got an unexpected keyword argument 'dim'",
        # q6 "`weights3` is not defined"; no key says the fixed signature's parameter was renamed (dim_i)
        "q3_parameter_named_dim_i": ("parameter_renamed",),  # now named by parameter_renamed (naming19)
        # the sum's dtype=torch.float32: float64 right only to 1e-7 and float16 returned as float32, both keys
        # say a float32 step and the fix (as blind's q3_float32_result)
        "q3_sum_accumulated_in_float32": ("float32_precision", "dtype_changed"),
        # generic: "your code raised TypeError: arange(): argument 'end' ... must be Number, not NoneType" and
        # q6 "`weights3_causal` is not defined"; no key says the T_k default was compared (==), not assigned
        # (causal_ignores_T_k is the opposite: a square mask whatever T_k)
        "q4_T_k_compared_not_assigned": ("default_none_not_replaced",),  # now named by default_none_not_replaced (naming19)
        "q4_mask_viewed_1_1_T_T": ("size_one_axes_added",),   # .view(1, 1, T_q, T_k), as blind5's q04
        # partly: 10 tests name mask_times_inf, the code's very form; the 3 half-precision tests are raw ("expected
        # m1 and m2 to have the same dtype"): -inf * (~mask) is a float32 tensor mixed into half scores, a true
        # effect of the same line that dtype_changed's text says (masked_fill fixes both)
        "q5_mask_arithmetic_with_inf": ("mask_times_inf", "dtype_changed"),  # half tests now named by dtype_changed (naming20)
        # mask.float() mixed into half scores, the product with V raises: dtype_changed's text (as blind13's
        # q5_log_mask_float32_bias)
        "q5_reciprocal_mask_bias_float32": ("dtype_changed",),
        # scale=False multiplies the scores by 0, so every key gets the same weight: uniform_weights names what
        # comes back (as blind16's q6_causal_from_zero_affinities); no key says a default argument
        "q5_scale_default_false": ("uniform_weights",),
        # not caught: softmax(scores * mask) * mask renormalised is right in float32; in float16 the 1e-13 guard
        # is 0, so a fully masked query gives 0 / 0 = NaN (checked with torch), and no float16 test has an
        # empty row. fully_masked_nan is that symptom; mask_fills_zero's "scores * mask ... instead of -inf" is
        # the code and its fix
        "q5_renormalised_after_softmax_eps": ("fully_masked_nan", "mask_fills_zero"),  # now named by fully_masked_nan (naming20): test_float16 has an empty row
        # mis-named: out3 says output_from_causal_weights ("out3 from weights3_causal instead of weights3"), but
        # out3 = weights3 @ V3 as asked; masked_fill_ filled scores3 in place, so weights3 (generic: "not correct
        # in row(s) [0, 1]") is the causal one too. inplace_on_input ("an in-place fill ... compute a new
        # tensor instead") is the fix: masked_fill, not masked_fill_
        # now named by inplace_on_input (naming19): on weights3 while scores3 holds the fill; out3 not charged again
        "q6_inplace_fill_before_unmasked": ("inplace_on_input",),
        # generic: "q_trap_answer should be one letter as a string"; no key says two letters hedged ("C, D")
        "q7_two_letters_hedged": ("answer_hedged",),  # now named by answer_hedged (naming19)
        # generic: "cost_ratio is not right: how does T * T change when T doubles?"; no key says a missing
        # parenthesis around the old cost (scale_precedence is d_k ** 1/2 only)
        "q8_ratio_missing_parentheses": ("ratio_denominator_unbracketed",),  # now named by ratio_denominator_unbracketed (naming20)
    },
    # judged from `measure attention-pipeline --set blind17 -v`: () where the grader named nothing
    "attention-pipeline": {
        # generic: "Q has shape (36, 12), expected (2, 3, 6, 12)" on 2 q01 tests; X.reshape(-1, d_model) never
        # restored: batched_input_unsupported's "a 2-D reshape drops the batch" is the mistake and its fix
        "q01_batch_flattened_into_rows": ("batched_input_unsupported",),
        # (Q / sqrt d_k)(K / sqrt d_k)^T is S / d_k: the key's text (as blind16's q2_queries_and_keys_both_scaled)
        "q02_both_sides_scaled_by_sqrt": ("divide_by_dk",),
        # raw: "masked_fill_ only supports boolean masks, but got mask with dtype float" on 3 q04 tests; the 0/1
        # triu pattern is float: additive_mask_as_boolean is the caller's additive M (fix S + M), mask_built_in_float32
        # the blocked value's dtype (dtype=dtype on the ones would still raise); no pipeline key says masked_fill
        # needs a bool pattern (sdpa-from-scratch's mask_not_bool does)
        "q04_float_triu_as_fill_mask": ("fill_mask_not_bool",),   # now named by fill_mask_not_bool (naming19)
        "q05_max_shift_done_in_place": ("inplace_on_input",),   # S -= amax on the caller's S (no mask given)
        # raw: "not enough values to unpack (expected 3, got 2)" on 5 tests; B, T, C = X.shape fits one number of
        # dims: batched_input_unsupported's text and fix (X.shape[-2]), as blind14's q02_shape_unpacked_into_two_names
        "q07_unpacks_batch_time_channels": ("batched_input_unsupported",),
        # raw: "The size of tensor a (12) must match the size of tensor b (7) at non-singleton dimension 0" on 3
        # tests; (K * q).sum(dim=0) sums over the keys, one score per feature: nw_sum_wrong_axis is the values'
        # sum the other way, nw_operands_swapped a product's operands (its "scores are K @ q, one per key" is the
        # fix, not this mistake); no key says the dot product was summed over the wrong axis
        "q08_dot_product_summed_over_keys": ("nw_dot_over_keys",),   # now named by nw_dot_over_keys (naming19)
        "q09_tril_with_diagonal_one": ("causal_includes_next",),   # the key's very example, tril(diagonal=1)
        # not caught: clamp(min=1e-12) is 0 in float16, so a masked 0 gives 0 * log2(0) = NaN (checked with
        # torch), against the notebook's float16 rule; zero_log_zero_nan would say it, but variants.py's correct
        # entropy_clamp is this very code (clamp_min(1e-12)), so no float16 test can fail one and pass the other
        # (as blind3's q10_epsilon_inside_log)
        "q10_clamp_epsilon_underflows_in_half": (),
        # the rank of S + M, another T x T matrix in S's place: rank_is_T's "or the rank of another T x T matrix
        # in its place ... matrix_rank of S itself counts it" is the mistake and the fix
        # still generic (naming23): 5 is also matrix_rank(S, hermitian=True) (blind19's, generic on purpose) and
        # a constant allows no second call; the message now says "or the masked scores S + M" beside A
        # now (after 735feae, by me from its message: a one-edit fix that drops `+ _M`, the mask the rank was taken with)
        "q11_rank_of_masked_scores": ("rank_is_T", "one_edit_fix"),
        # the message: "wrong when called without with_output=False, and right when with_output=False is passed
        # explicitly: its default must be with_output=False": the flipped default exactly
        "q12_output_default_true": ("default_argument_wrong",),
        # not caught: M.unsqueeze(0) gives an unbatched call with M (T, T') an O and A of shape (1, ...), right
        # values (the notebook's M is (T, T') for X (..., T, d_model)); size_one_axes_added would be right (as
        # blind5's q04_nanogpt_buffer_shape)
        "q13_mask_unsqueezed_for_batch": ("size_one_axes_added",),   # now named by size_one_axes_added (naming20)
        "q13_scaled_by_value_width": ("scale_by_d_v",),
        # not caught: S.masked_fill(M != 0, -1e9) raises "value cannot be converted to type c10::Half without
        # overflow" for float16 scores (checked with torch); no float16 q13 test passes a mask. neg_1e9_float16 is
        # the mistake and the fix (mask_filled_with_inf's "instead of adding it" is the other half of this code)
        "q13_blocked_keys_filled_with_minus_1e9": ("neg_1e9_float16",),   # now named by neg_1e9_float16 (naming20)
        # not caught: float64 returned for float32 / float16 q, K, V, against "Return tensors in the dtype of the
        # inputs"; dtype_changed would be right
        "q08_kernel_upcast_to_float64": ("dtype_changed",),   # now named by dtype_changed (naming20)
    },
}

BLIND18_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind18 -v`: () where no key of the catalogue names the mistake
    "sdpa-from-scratch": {
        # generic: "`out_shape` is not defined"; (128) is the int 128, not a 1-tuple: no key says a missing comma
        # (answer_in_one_more_container is the opposite slip)
        # one_edit_fix: `(128,)` in place of `128` on line 2: the missing comma (rejudged)
        "q1_one_tuple_missing_comma": ("one_edit_fix",),
        # mis-named: variance_of_other_scores says the variances were measured on another sample or other tensors;
        # the example's Q and K are used, but K is reshaped to (2, 8, 5) instead of transposed: view_as_transpose
        # now named by view_as_transpose (naming21); variance_of_other_scores only when a fresh sample replays
        "q2_keys_reshaped_not_transposed": ("view_as_transpose",),
        "q3_shift_by_max_of_whole_tensor": ("global_max_subtraction",),
        # exp_ then /= on an intermediate that exp saved for backward; the key's text says "an input", but its
        # "a tensor that needs gradients may not be [written] ... compute a new tensor instead" is the fix
        "q3_exp_and_divide_in_place": ("inplace_on_input",),
        "q4_eye_cumsum_along_keys": ("upper_triangular_mask",),
        # generic: "causal_mask(11) is not the causal mask ... differs in 55 entries"; tril()'s result thrown
        # away leaves a mask of all True: no key says a causal mask that blocks nothing (mask_ignored is sdpa's)
        # now named by causal_mask_blocks_nothing (naming21): the mask is True everywhere on every size tried
        "q4_tril_result_discarded": ("causal_mask_blocks_nothing",),
        # not caught: mask="none" crashes only on a call with no mask argument, which is never made
        # now named by crash_on_mask_none (naming23): one call without the mask, after mask=None was right
        "q5_mask_default_string_none": ("crash_on_mask_none",),
        # isinf(scores).any for .all: the same any/all swap and the same rows of zeros as mask.all for mask.any
        "q5_isinf_any_zeroes_partly_masked_rows": ("mask_all_for_any",),
        "q5_empty_rows_indexed_with_unbroadcast_mask": ("mask_not_broadcast",),
        # a fill of -1e6 that float16 cannot hold: neg_1e9_float16's fix (its message says -1e9 for -1e6)
        "q5_fill_minus_1e6_rows_zeroed_by_product": ("neg_1e9_float16", "fill_overflows_half"),
        "q5_scores_upcast_weights_not_cast_back": ("dtype_changed", "float32_precision"),
        # generic: "weights3_causal contains NaN or inf in row(s) [0, 1, 2]"; triu(ones) * -inf gives 0 * -inf
        # = NaN on every allowed score: mask_times_inf's text exactly
        # now named by mask_times_inf (naming21): NaN in every row, the student's softmax right on -inf fills
        "q6_triu_ones_times_minus_inf_bias": ("mask_times_inf",),
        # generic: "`weights3_causal` is not defined"; V = torch.eye(3) in float32 against float64 Q3, K3
        # (later, naming29: the engine's dtype_mix names the cell's crash on the float32 identity meeting the
        # float64 weights: its fix, the input's dtype for new tensors, is this one)
        "q6_identity_values_in_float32": ("dtype_changed", "float32_precision", "dtype_mix"),
        # generic: "attn_entries is not the number of entries"; 2 ** 10 ** 2 is 2 ** 100 (** is right-associative):
        # no key says so (caret_is_xor is another slip)
        # one_edit_fix: `(2 ** 10) ** 2` in place of `2 ** 10 ** 2` on line 1 (rejudged)
        "q8_power_right_associative": ("one_edit_fix",),
    },
    # judged from `measure scaled-attention --set blind18 -v`: () where the grader named nothing
    "scaled-attention": {
        # not caught: d_k = Q.size(-1) overwrites the d_k argument (the notebook: "Use the d_k you are given");
        # wrong_scale_constant ("another constant than 1/sqrt(d_k)") would be right, as blind16's
        # q4_table_uses_global_d_k
        "q1_d_k_from_query_width": ("wrong_scale_constant",),
        # not caught: the bare .squeeze() after bmm drops a length-1 query or key axis (T_q = 1 or T_k = 1 is
        # never tried); no key says a size-1 axis was squeezed away
        # now (after naming round 48: attention_size_one_axes_dropped, a call with one query and one with one key added to q1)
        "q1_bmm_bare_squeeze": ("attention_size_one_axes_dropped",),
        # mis-named: q8 says mha_head_rows_sliced ("slicing head h from the rows") on 3 tests, but the q8 cell is
        # right; the (d_v, T_q) output of the student's attention breaks it. q1 is generic ("the output has shape
        # (5, 6), expected (6, 5)"). The code is V.T @ weights.T: output_uses_weights_transposed ("mixing the
        # values with the transposed weights ... instead of A V") is the weights.T it writes, and its fix
        # now named by output_uses_weights_transposed (naming21); q8 charges nothing for it
        "q1_output_from_transposes": ("output_uses_weights_transposed", "output_transposed"),   # V.T @ w.T = (A V)^T: its own key since naming34
        # the key's "a new torch.Generator ... used instead, or the generator re-seeded inside": this very code
        "q2_private_generator_for_reproducibility": ("ignores_generator",),
        # mis-named: keys_are_queries ("Q Q^T, k = q", "the variance of q.q") on both q2 tests; k is not q here,
        # the 2 d_k comes from chunk(2, dim=0) making n/2 pairs of width 2 d_k; randn_shape_swapped is another
        # draw; no key says one draw split along the wrong axis
        # now named by draw_split_along_samples (naming21): a replay of the chunked draw on the same generator
        "q2_one_draw_chunked_along_samples": ("draw_split_along_samples",),
        # generic: "the unscaled variance ... divided by 9 (its dot products divided by sqrt(9))" for d_k = 12;
        # integer_sqrt_scale names math.isqrt(d_k) itself
        # now named by integer_sqrt_scale (naming21): divided by isqrt(12)^2 = 9, and at d_k = 24 by 16
        "q2_integer_square_root": ("integer_sqrt_scale",),
        # generic: "softmax_entropy returned NaN for a saturated row"; the shift by logits.max() (one global max)
        # underflows whole rows: entropy_exp_overflow's fix "subtract each row's maximum" is the fix (its
        # overflow is the other side of the same missing per-row shift); entropy_nan_saturated's 0 * log(0)
        # and epsilon are not this (the epsilon is there), softmax_shift_wrong_axis says a max over the queries
        # now named by entropy_exp_overflow (naming21): exactly the rows the global-max shift underflows are NaN
        "q4_shift_by_global_max": ("entropy_exp_overflow",),
        # generic: "does not match the correct result in 6 of 6 entries"; log_softmax(p) takes probabilities
        # where logits are due: softmax_applied_twice's text and its fix (pass the scores themselves)
        # now named by softmax_applied_twice (naming21): the answer equals -sum p * log_softmax(p) replayed
        "q4_log_softmax_of_probabilities": ("softmax_applied_twice",),
        "q4_softmax_from_scratch_unshifted": ("entropy_exp_overflow",),   # exp of the raw logits: the key's text
        # not caught: sorted(dims) reorders only dims given out of order, which no test passes; no key says the
        # rows must follow the order of dims (table_keyed_by_d's "in the order of dims" is about a dict)
        # now (after naming round 48: table_rows_reordered, the table asked again with dims out of order)
        "q4_table_dims_sorted": ("table_rows_reordered",),
        # generic: "the entropy table ... does not match ... in 16 of 16 entries"; default seed=42 instead of 0:
        # table_reseeded_per_row is another seed than the one passed, and no key says the default is wrong
        # now (after blind50: default_argument_wrong, by replay (naming round 50))
        "q4_table_default_seed_42": ("default_argument_wrong",),
        # generic: "does not match the correct result in 240 of 240 entries"; transpose(1, 2) on (n_heads, T, d_k)
        # leaves the head axis in front: mha_merge_without_transpose ("without moving the head axis back behind
        # T") and mha_heads_interleaved ("or another axis order ... instead of side by side") give the fix;
        # fixed_axes quotes transpose(1, 2) but its fix (negative axes) is the same wrong swap here
        # now named by mha_heads_interleaved (naming21): read back through W_O, the stack's transpose(1, 2) replayed
        "q8_merge_transpose_1_2_from_4d_code": ("mha_merge_without_transpose", "mha_heads_interleaved"),
        # range(1, n_heads + 1) skips head 0: the key's "range(1, n_heads) ... every head h in range(n_heads)"
        "q8_heads_numbered_from_one": ("mha_heads_missing",),
        # mis-named: mha_head_width_from_tokens ("X.shape[0] // n_heads") on 3 tests, but d_k = d_model // n_heads
        # is right; the buffer zeros_like(W_O) is (d_model, d_model), not (T, d_model); no key says so
        # now named by mha_buffer_like_w_o (naming21): with T = 1 it returns d_model copies of the right row;
        # mha_head_width_from_tokens now also needs T = d_model + 1 to run right, which this buffer cannot
        "q8_buffer_like_w_o": ("mha_buffer_like_w_o",),
    },
    # judged from `measure attention-pipeline --set blind18 -v`: () where the grader named nothing
    "attention-pipeline": {
        # torch.bmm with W expanded over X.shape[0]: the key's "torch.bmm fit one layout" is this very code
        "q01_bmm_with_expanded_weights": ("batched_input_unsupported",),
        # len(Q[0]) is T for a batched Q: scale_wrong_axis ("d_k is Q.shape[-1]") is the fix, scale_by_T the effect
        "q02_d_k_from_len_of_first_row": ("scale_wrong_axis", "scale_by_T"),
        # torch.where over two Python numbers: mask_built_in_float32's very example
        "q04_where_over_two_python_scalars": ("mask_built_in_float32", "mask_dtype_ignored"),
        # raw: "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 8)" on all 5 q05
        # tests; softmax(S, S.shape[-1]) passes a size as the dim: softmax_wrong_dim (dim=-2) and
        # softmax_over_batch_axis (a valid batch axis) are other mistakes; no key of this catalogue says a size
        # was passed as the axis (scaled-attention's size_as_dim does)
        # now named by size_as_dim (naming21)
        "q05_axis_given_as_its_size": ("size_as_dim",),
        # raw: "The size of tensor a (7) must match the size of tensor b (5) at non-singleton dimension 1" on 4
        # q07 tests and q09's zero-projection test; X + A @ V adds a residual: no key of this catalogue says so
        # (scaled-attention's mha_residual_added does)
        # now named by mha_residual_added (naming21)
        "q07_residual_added_to_output": ("mha_residual_added",),
        # generic: "W_avg does not match ... 45 of 81 entries ... spread over every row and column"; W / W.sum()
        # divides by the grand total: softmax_global_sum's "e.sum() with no dim instead of each slice's own sum"
        # and reduced_every_axis's ".sum() without dim=" are this mistake and its fix
        # now named by softmax_global_sum (naming21)
        "q09_normalised_by_grand_total": ("softmax_global_sum", "reduced_every_axis"),
        # generic: "W_avg does not match ... 30 of 81 entries (largest difference 9.93e-09 ...)"; 1/t taken in
        # float32 and cast at the end: prefix_average_float32's text and fix (dtype=torch.float64)
        # now named by prefix_average_float32 (naming21)
        "q09_reciprocals_in_float32_then_cast": ("prefix_average_float32",),
        # generic: "it is the correct result times a constant: off by a constant factor x0.3562" (ln 2 / ln 7);
        # nats divided by log(T_k), the entropy normalised to [0, 1]: entropy_in_nats is the factor ln 2 (plain
        # nats, no division), another mistake; no key says the base was changed with the number of keys
        # now named by entropy_normalised_by_log_keys (naming21): the factor is checked on rows of a second length
        "q10_normalised_by_log_of_keys": ("entropy_normalised_by_log_keys",),
        "q10_summed_over_axis_one": ("entropy_wrong_dim",),   # sum(dim=1) of a batched A: down the columns
        # 8 - 1 "lost to the softmax": the key's message says "d_k - 1 (8 - 1)" and its fix, min(T, d_k) with no
        # arithmetic of the sizes; broader than the reason given, but the student fixes the right line
        "q11_one_rank_lost_to_softmax": ("rank_from_size_arithmetic",),
        "q12_conditional_swallows_the_sum": ("param_count_conditional_precedence",),   # the key's very code
        # not caught: torch.zeros(T, T') without dtype is float32, so float16 scores give a float32 A and A @ V
        # raises "expected m1 and m2 to have the same dtype" (checked with torch); no float16 q13 test runs
        # without M. dtype_changed's "a float32 tensor never cast back ... a product raises" and
        # mask_built_in_float32's "a tensor made without dtype= ... gives float32" say it
        "q13_default_mask_of_float32_zeros": ("dtype_changed", "mask_built_in_float32"),   # now named by dtype_changed (naming23)
        # raw: "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)" on 3 q13 tests;
        # nn.Softmax(dim=2) fits 3-D scores only: softmax_over_batch_axis ("a fixed dim ... instead of the keys'
        # axis, dim=-1") and batched_input_unsupported ("one fixed number of dims") give the fix
        "q13_softmax_module_dim_two": ("softmax_over_batch_axis", "batched_input_unsupported"),
    },
}

BLIND19_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind19 -v`: () where no key of the catalogue names the mistake
    "sdpa-from-scratch": {
        # the (K, Q, V) signature called as (Q, K, V) computes K Q^T, as blind's scaled_scores(K, Q) did
        "q5_keys_first_in_signature": ("scores_transposed",),
        "q5_ellipsis_index_fill_2d_masks_only": ("mask_not_broadcast",),   # scores[..., ~mask]: the key's text
        "q5_fill_helper_default_zero": ("mask_fills_zero",),               # the helper's default fill of 0
        "q4_returns_nanogpt_fill_condition": ("inverted_mask",),           # tril == 0: True on the blocked keys
        "q6_causal_by_tril_of_scores": ("mask_fills_zero",),               # scores3.tril(): future scores 0
        "q5_d_k_read_after_transposing_keys": ("scale_by_T",),             # K_t.size(-1) is T_k
        "q3_sum_over_axis_one": ("softmax_sum_wrong_axis",),               # "or a fixed axis whatever dim is"
        # not caught: math.pow gives 1048576.0 and 67108864.0, floats where the notebook asks for Python ints
        # (its public test_q8_format asserts isinstance(value, int)); no key says a float for an int
        "q8_math_pow_gives_floats": ("float_for_int",),   # now named by float_for_int (naming22)
        # partly: q3 names weights_not_normalised (its "without dividing by the row sum" is not literally the
        # code, a division by the mean, but its fix is, as blind's q3_unshifted_denominator); q3's float16
        # test, q5 and q6 are generic (q6: "off by a constant factor x3")
        # now named by weights_not_normalised (naming23): q5 and q6 match its divided_by_mean variant
        "q3_divided_by_mean": ("weights_not_normalised",),
        # raw: "Boolean value of Tensor with more than one value is ambiguous" on every masked call; `not mask`
        # tests the tensor's truth value: tensor_truthiness's text (its fix, `is not None`, is the if-form's)
        "q5_python_not_on_mask": ("tensor_truthiness",),
        # partly: fully_masked_nan on the two tests with empty rows (the guard that should zero them reads the
        # inverted mask, as earlier guard slips were judged); the causal and padding tests are generic (rows
        # of zeros for queries that see every key); inverted_mask's "True as blocked" is the reused name
        "q5_mask_name_reused_after_inverting": ("fully_masked_nan", "inverted_mask"),
        # mask.any(-1).unsqueeze(0) lines up with the keys, as a reduction without keepdim does: the key's fix
        # (as blind's q3_sum_axis_restored_at_front)
        "q5_empty_row_flag_unsqueezed_at_front": ("reduction_without_keepdim",),
        "q4_key_positions_counted_from_one": ("causal_excludes_self",),    # cols from 1: cols <= rows is j < i
        # generic: "out3 is not correct in row(s) [0, 1, 2]"; summed over the queries, out3 keeps one row per
        # key (V[j] times key j's total weight): output_keeps_key_axis's "one axis per key ... never summed over
        # the keys: weights @ V sums over the keys"
        # now named by output_keeps_key_axis (naming22)
        "q6_broadcast_product_summed_over_queries": ("output_keeps_key_axis",),
    },
    # judged from `measure attention-pipeline --set blind19 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        "q01_fused_weights_chunked_in_three": ("fused_projection_split",),   # the key's "three equal thirds"
        # tensordot over axis 1 fits 2-D X only: the key's "works only for 2-D inputs (or one fixed number of dims)"
        "q01_tensordot_over_axis_one": ("batched_input_unsupported",),
        # generic: "the mask blocks the wrong entries: exactly the keys after each query ... should be blocked";
        # M[triu_indices] picks whole rows, so every entry is blocked (checked with torch); mask_blocks_diagonal
        # says only the diagonal, and no key says the (2, N) index tensor was used as one index
        # now named by mask_index_tensor_as_one_index (naming22): all blocked at T >= 2, the 1 x 1 mask 0
        "q04_triu_indices_as_one_index": ("mask_index_tensor_as_one_index",),
        "q05_masked_scores_under_new_name": ("mask_ignored",),   # softmax of the unmasked S: the mask has no effect
        # partly: no_softmax named on test_not_causal ("the scaled scores themselves are used as weights": S @ V
        # is that); the causal tests say only "O does not match ... in 50 of 50 entries"
        "q07_scores_mixed_instead_of_weights": ("no_softmax",),
        "q08_normalize_default_p_two": ("nw_wrong_denominator",),   # F.normalize divides by the norm: the key's text
        "q10_guard_with_greater_or_equal": ("zero_log_zero_nan",),
        "q10_entropy_computed_in_float32": ("float32_precision", "dtype_changed"),
        # mis-named: rank_is_T ("T taken as its bound ... or the rank of another T x T matrix ...;
        # torch.linalg.matrix_rank of S itself counts it"): the student does call matrix_rank on S itself, with
        # hermitian=True on a non-symmetric S (it reads one triangle: 5); the key's causes and fix are not this,
        # and no key says hermitian
        # naming22: generic now (5 is T and the hermitian=True replay alike: neither proven; the message says both)
        "q11_rank_with_hermitian_true": ("one_edit_fix",),   # now (after blind35: `False` in place of `True`)
        # generic: "qkv_param_count(...) is None: ... a `return` is missing on some path of your function"; the
        # message says the fix, but this catalogue has no key for it (return_missing_on_path is another's)
        # now named by return_missing_on_path (naming22)
        "q12_return_inside_the_if": ("return_missing_on_path",),
        # generic: "the count is wrong (for d_v different from d_k) ... W_O (d_v x d_model) 17360"; W_O as a third
        # of the Q, K, V budget is W_O sized wrong: param_count_wo_wrong_size's "so it is d_v x d_model", and
        # param_count_wo_as_dk (W_O as big as W_Q) give the fix
        "q12_output_as_a_third_of_qkv": ("param_count_wo_wrong_size", "param_count_wo_as_dk"),
        "q13_upcast_to_float32": ("float32_precision", "dtype_changed"),
        # not caught: "c)" keeps 42/42 though the notebook's public test_q16_format rejects it ("c)".strip().lower()
        # is not a letter); answer_in_container is a tuple or list, not a bracket in the string (sdpa-from-scratch's
        # answer_extra_characters would be the key; this catalogue has none)
        # now named by answer_extra_characters (naming22)
        "q16_answer_with_bracket": ("answer_extra_characters",),
    },
    # judged from `measure scaled-attention --set blind19 -v`: () where no key of the catalogue names the mistake
    "scaled-attention": {
        "q1_inverse_scale_used_as_divisor": ("multiply_by_sqrt_dk",),   # .div(1 / sqrt(d_k)) multiplies by it
        # mis-named: keys_are_queries ("Q Q^T, k = q") on test_weight_rows_sum_to_one, the rest raw (einsum size
        # error) or generic; the scores einsum is right, the values einsum "qk,qd->qd" sums the weights alone
        # (rows sum to 1) and returns V; no key says the value rows are indexed by the query
        # now generic (naming22): keys_are_queries needs a replay at 1/10 scale; the rerun says "output is V itself"
        # one_edit_fix: `'qk,kd->qd'` in place of `'qk,qd->qd'` (rejudged)
        "q1_einsum_value_index_reused": ("one_edit_fix", "einsum_letter_on_two_axes"),
        # generic: "the variance of q.k is not within 10% of its expected value"; "ni,nj->n" is (sum q)(sum k),
        # variance d_k^2: variance_d_k_squared is the answer "d_k^2", not a free einsum letter; no key
        "q2_einsum_free_index": ("dots_product_of_sums",),   # now (after blind35: naming36)
        "q2_vecdot_over_samples": ("dots_summed_over_samples",),       # vecdot(dim=0): the key's text
        # generic: "dot_product_variance(...) is NaN ... taken of a single number": torch.sum without dim; the
        # one-number keys (entropy_one_number, entropy_flattened) are the entropy's; none for the dots
        "q2_sum_without_dim": ("one_edit_fix",),   # one_edit_fix: `torch.sum(q * k, dim=-1)` in place of `torch.sum(q * k)` (rejudged)
        "q2_div_result_dropped": ("scaled_flag_ignored",),              # the dropped div leaves the unscaled var
        # generic: "has shape (), expected (6,)"; softmax(...).mean(0) then one entropy: entropy_one_number's
        # "one number instead of one entropy per row" and its fix (as blind's q4_entropy_mean_over_rows)
        # now named by entropy_one_number (naming23): a replay of H(softmax(...).mean(dim)) on the same logits
        "q4_entropy_of_mean_distribution": ("entropy_one_number",),
        # raw: "The size of tensor a (2) must match the size of tensor b (3)"; (e.T / e.sum(-1)).T: fixed_axes
        # names .T reversing every axis of a batched tensor; keepdim_missing's fix (keepdim=True) is the same
        # now named by fixed_axes (naming22): the 3-D crash's sizes are logits', the same rows as 2-D are right
        "q4_softmax_by_transpose_broadcast": ("fixed_axes", "keepdim_missing"),
        # generic: "has shape (6, 6), expected (6,)"; -(p @ log(p).T) gives the rows' cross terms: no key
        # now named by entropy_matrix_product (naming23): -(p @ log(p).T) replayed on the same logits / 2-D rows
        "q4_entropy_as_matrix_product": ("entropy_matrix_product",),
        # mis-named: table_ignores_dims ("looping over a hard-coded list of d's"); the loop is over dims, the
        # append is after it so only the last d's row is kept; no key says so
        # now generic (naming22): "the table has only the last d's row ... the rows for d = [...] are missing"
        "q4_table_append_after_loop": ("one_edit_fix",),   # now (after blind35: the append moved into the loop)
        # mis-named: scores_transposed ("K Q^T instead of Q K^T") on both table tests; the student computes
        # q @ k.T and takes [:, 0], one score, where [0] takes the row of 5 (the same numbers as (k @ q.T)[0],
        # but the key's fix is already there); no key says the index is on the wrong axis
        # now generic (naming22): "raw_std ... NaN and H_raw ... 0 in every row: what ONE score per d gives"
        # one_edit_fix: `(q @ k.T)[0]` in place of `(q @ k.T)[:, 0]` (rejudged)
        "q4_table_scores_wrong_axis": ("one_edit_fix",),
        # generic: "does not match the correct result in 4 of 16 entries"; H_scaled = H_raw / sqrt(d):
        # scale_after_softmax (the scale on what comes out, not on the scores inside) and table_field_copied
        # ("each field must be computed from its own scores") both lead to softmax_entropy(scaled)
        # now named by scale_after_softmax (naming23): H_scaled replayed as H_raw / sqrt(d), the rest right
        "q4_table_entropy_scaled_not_scores": ("scale_after_softmax", "table_field_copied"),
        # raw: "The size of tensor a (4) must match the size of tensor b (12)"; 3-D heads through attention's
        # K.T: fixed_axes's text (K.T reverses every axis of a batched tensor; use K.transpose(-2, -1))
        # now named by fixed_axes (naming22): attention raises the same on the stacked heads, right per 2-D head
        "q8_batched_heads_through_2d_attention": ("fixed_axes",),
        # raw: "mat1 and mat2 shapes cannot be multiplied"; d_k = d_model // 8: mha_head_width_constant ("a fixed
        # head width ... or a number, instead of d_k = d_model // n_heads")
        # now named by mha_head_width_constant (naming22): with n_heads = d_model // its width it is right
        "q8_head_width_from_paper_head_count": ("mha_head_width_constant",),
    },
}

BLIND20_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind20 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # not caught: np.int64 entries keep 35/35 though the notebook's public test_q1_format asserts
        # isinstance(n, int); float_for_int says a float and shape_as_string a string: no key says NumPy ints
        "q1_shape_entries_numpy_ints": ("returns_tensor_not_number",),   # now (after blind35: naming36)
        # generic: "scaled_score_var is not the variance of the scaled scores"; Q.size()[1] is T = 5: scale_by_T's
        # "1/sqrt(a sequence length)", and scale_by_batch_dim names Q.size(1) itself
        # now named by scale_by_T (naming24)
        "q2_scaled_by_root_of_axis_1": ("scale_by_T", "scale_by_batch_dim"),
        # not caught: a 0-d tensor keeps 35/35 though the public test_q2_divisor_type asserts (int, float);
        # returns_tensor_not_number's "call .item() (or float(...))" is the fix
        # now named by returns_tensor_not_number (naming24)
        "q2_scale_divisor_left_as_tensor": ("returns_tensor_not_number",),
        # mis-named: float32_precision ("some step computes in float32") on 2 q3 and 5 q5 tests; every step is
        # float64, the 1e-6 error is the + 1e-6 in the denominator; no key says an epsilon in the softmax's sum
        # now generic (naming24): "each slice ... multiplied by its own factor slightly below 1", not float32
        "q3_epsilon_in_denominator": (),
        # partly: weights_not_normalised on 3 q3 tests ("the right softmax times its own factor": the fix is the
        # normaliser, as blind19's q3_divided_by_mean was judged) and no_max_subtraction on the two float16 tests
        # (exp(x - log_z) never has the max taken off); q5's 14 and q6's 3 failures are generic
        # now named by weights_not_normalised on q5 and q6 too (naming25)
        "q3_logsumexp_max_not_added_back": ("weights_not_normalised", "no_max_subtraction"),
        # causal_mask_blocks_nothing: "True everywhere, so no query is kept from any key" is the exact symptom; its
        # parenthesised cause (tril never assigned) is another's, but its one-step fix repairs this mask too
        "q4_tril_indices_used_as_one_index": ("causal_mask_blocks_nothing",),
        "q5_keys_transposed_2_3_four_d_only": ("fixed_axes",),   # the key's "K.transpose(1, 2) on 4-D inputs"
        # raw: "expand(CPUBoolType{[1, 2, 6, 8]}, size=[2, -1, -1]): the number of sizes provided (3) must be ..."
        # on 12 q5 tests, "size of tensor a (2) must match ... (3)" on the 2-D mask one; mask_unsqueezed ("adding a
        # dim to the mask ... broadcasts into an extra dim or crashes; use the mask as given") and fixed_axes (a
        # fixed number of dims) both say it
        "q5_mask_expanded_for_3d_scores_only": ("mask_unsqueezed", "fixed_axes"),   # now named by mask_unsqueezed (naming25)
        # generic: "does not match the correct result in 16 of 672 entries" (and the causal test); sum <= 1 also
        # zeroes queries with one key; mask_all_for_any zeroes queries with one blocked key, not this
        "q5_empty_rows_counted_with_le_one": ("single_key_rows_zeroed",),   # now named by single_key_rows_zeroed (naming25)
        # the clamp makes every -inf the dtype's min, a large finite fill: fully_masked_uniform's text and symptom
        "q5_clamp_hides_inf_from_empty_row_test": ("fully_masked_uniform",),
        "q6_causal_weights_uniform_average": ("uniform_weights",),   # equal weight on every allowed key
        # generic: "weights3 equals the causal weights weights3_causal"; weights3_causal[...] = 0 and /= fill
        # weights3 in place through the alias: inplace_on_input ("an in-place fill ... compute a new tensor
        # instead"), as blind17's q6_inplace_fill_before_unmasked was judged
        "q6_causal_weights_alias_unmasked": ("inplace_on_input",),   # now named by inplace_on_input (naming25)
        "q7_answer_from_argmax_comparison": ("zero_after_softmax", "answer_computed_by_code"),   # answers A, as blind's q7_answer_a
        # generic: "score_madds is not the number of multiply-adds of Q @ K.T"; T^2 d_k + T^2 adds the scale's
        # multiplies; no key says so (madds_counted_twice is 2x, madds_counts_additions is d_k - 1 per score)
        # still generic (naming25), now in numbers: "68157440 = T^2 x (d_k + 1) ... 1 operation(s) per score more";
        # the number alone cannot say which step per score was counted (the scale, a bias, a mask)
        "q8_madds_include_scale_multiplies": (),
    },
    # judged from `measure scaled-attention --set blind20 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # mis-named: own_assert_total_weight ("an assert that the whole weight matrix sums to 1 ... check each row
        # (weights.sum(-1)) instead") on 2 q1 tests, the other 4 generic ("your own assert failed"); the student
        # already checks each row, the fault is == 1 on float sums (no tolerance); no key says so
        "q1_row_sums_asserted_exactly": ("own_assert_exact_equality",),   # now named by own_assert_exact_equality (naming24)
        # generic: "the weight matrix does not match ... in 35 of 35 entries"; scores // sqrt(d_k) floors the
        # scaled scores: integer_sqrt_scale floors the divisor, not the quotient; no key (q8 charges nothing)
        "q1_floor_division_scale": ("one_edit_fix",),   # one_edit_fix: `Q @ K.T / d_k ** 0.5` in place of `Q @ K.T // d_k ** 0.5` (rejudged)
        # sqrt(d_k * torch.ones(1)) is a float32 scale: float32_scale's text; dtype_changed's "a float32 tensor
        # never cast back" is the same tensor (float16 in gives float32 out)
        "q1_scale_from_float32_ones": ("float32_scale", "dtype_changed"),
        # generic: "the unscaled variance ... divided by 576 (its dot products divided by sqrt(576))" for d_k = 12;
        # scale_precedence is this very slip (S / d_k ** 1/2 divides by 2 d_k) but was not named
        "q2_square_root_as_power_one_half": ("scale_precedence",),   # now named by scale_precedence (naming24)
        # k = q.normal_(...) is q itself: keys_are_queries ("k = q"); inplace_alias_overwritten says an in-place op
        # returns the same tensor it changes
        "q2_key_drawn_in_place_over_query": ("keys_are_queries", "inplace_alias_overwritten"),
        # generic: "the variance of q.k is not within 10% of its expected value"; E[X]^2 - E[X^2] (the moment
        # formula swapped, about -d_k): variance_precedence is another formula's slip; no key
        "q2_moment_formula_terms_swapped": ("variance_moments_swapped",),   # now named by variance_moments_swapped (naming24)
        "q2_randperm_on_global_generator": ("ignores_generator",),   # randperm on the global RNG: the key's text
        # raw: "ValueError: Expected parameter probs ... to satisfy the constraint"; Categorical(logits) takes the
        # scores as probs: entropy_of_raw_scores ("scores can be negative ... do not sum to 1; compute p first"),
        # as blind's q4_logits_used_as_probabilities, and scores_normalised_without_exp (s / s.sum(), no exp)
        "q4_categorical_positional_is_probs": ("entropy_of_raw_scores", "scores_normalised_without_exp"),   # now named by entropy_of_raw_scores (naming24)
        # generic: "does not match ... in 6 of 6 entries", then raw "The size of tensor a (8) must match the size
        # of tensor b (4)"; logsumexp without keepdim: keepdim_missing's text and fix, not named
        "q4_logsumexp_without_keepdim": ("keepdim_missing",),   # now named by keepdim_missing (naming24)
        # generic: "does not match ... (largest difference 20 ...)" and "returned NaN for a saturated row";
        # clamp(max=1e-9) for clamp(min=1e-9): entropy_epsilon_outside_log is the guard on the other factor; no key
        "q4_clamp_max_instead_of_min": ("entropy_clamp_max",),   # now named by entropy_clamp_max (naming24)
        # generic: "the table has only the rows for d = [4, 16, 64] ... the rows for d = [256] are missing" (a good
        # message); the default dims (4, 16, 64): table_ignores_dims is a hard-coded list inside; no key
        # now (after blind50: default_argument_wrong, by replay (naming round 50))
        "q4_table_default_dims_from_milestone": ("default_argument_wrong",),
        # generic: "does not match ... in 16 of 16 entries (largest difference 0.00496 ...)"; values rounded to 2
        # decimals: weights_rounded ("or the output ... for a readable printout ... round only what you print")
        "q4_table_values_rounded": ("weights_rounded",),   # now named by weights_rounded (naming24)
        # generic: "does not match ... in 12 of 16 entries"; one seed and one draw at max(dims) before the loop,
        # sliced per d: seed_outside_loop ("seeding once before the loop instead of re-seeding for every d"), as
        # blind's q4_table_seeded_once; table_one_draw is one randn(6, d) split into q and k, another draw
        "q4_table_one_draw_sliced_per_d": ("seed_outside_loop",),   # now named by seed_outside_loop (naming24)
        # raw: "Sizes of tensors must match except in dimension 1. Expected size 5 but got size 7"; heads=[] as a
        # mutable default keeps the earlier call's heads; no key says so
        "q8_heads_list_as_default_argument": (),
    },
    # judged from `measure attention-pipeline --set blind20 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # split(..., dim=2) fits a 3-D X only: batched_input_unsupported's "(or one fixed number of dims)" (a 2-D X
        # raises, a 4-D one is split along the tokens); fused_projection_split's fix says .split([...], dim=-1)
        "q01_fused_split_on_dim_two": ("batched_input_unsupported", "fused_projection_split"),
        "q02_integer_square_root": ("integer_sqrt_scale",),          # the key names math.isqrt
        "q02_parameters_in_k_q_order": ("scores_transposed",),       # (K, Q) parameters compute K Q^T: the key's text
        # both halves of the inverted None test: S + None crashes, a given mask is never added
        "q05_none_check_inverted": ("mask_ignored", "crash_on_mask_none"),
        # the library mask without dtype= is float32 mixed into float16 scores (a raise): dtype_changed's "a float32
        # tensor ... mixed with the input's dtype a product raises"; the mask keys say dtype=dtype too
        "q07_library_mask_in_default_dtype": ("dtype_changed", "mask_built_in_float32", "mask_dtype_ignored"),
        # raw: "TypeError: unsupported operand type(s) for -: 'Tensor' and 'torch.return_types.max'"; s.max(dim=0)
        # is a (values, indices) pair: reduction_tuple_as_tensor is scaled-attention's and sdpa's, not this
        # catalogue's; max_without_keepdim is a broadcast of the values, another mistake
        "q08_max_shift_with_dim_returns_pair": ("reduction_tuple_as_tensor",),   # now named by it (naming24)
        "q09_lecture_softmax_in_default_dtype": ("prefix_average_float32",),
        "q09_row_counts_not_unsqueezed": ("prefix_average_wrong_axis",),   # (T,) counts divide column j by j + 1
        "q10_effective_tokens_with_exp": ("effective_tokens_wrong_base",),
        # generic: "H does not match the correct result in 14 of 14 entries"; log_softmax of A, which is already
        # normalised: normalised_twice's "a softmax of weights that are ... already normalised" (scaled-attention's
        # softmax_applied_twice, "applying the softmax to probabilities", would be closer; not this catalogue's)
        "q10_probabilities_fed_to_log_softmax": ("softmax_applied_twice",),   # now named by it (naming24)
        # mis-named: rank_counts_distinct_rows ("counting the distinct rows (the different query vectors) for the
        # rank"): the student counts singular values of S above an absolute 1e-13 on float32, where rounding leaves
        # one near 3e-8; 3 is also the distinct-row count, but no rows are counted; no key says a tolerance that
        # does not fit the dtype (matrix_rank's relative default was needed)
        # now generic (naming24): the message says 3 is both the distinct-row count and a float32 noise count
        "q11_float64_tolerance_on_float32_svd": (),
        "q12_linear_layers_keep_default_bias": ("param_count_bias",),     # nn.Linear's default bias=True
        "q13_values_from_x": ("cross_roles_swapped",),                    # "keys/values from X": V = X @ W_V
        "q13_mask_tested_for_truth": ("tensor_truthiness",),              # `if M:`: the key's text and fix
    },
}

BLIND21_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind21 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # (4, 10, 10, 64): shape_axis_added's "an axis the question does not have", and entries_times_d_k's
        # "d_k numbers per attention weight ... one entry per (query, key) pair" is this very belief
        "q1_weights_keep_feature_axis": ("shape_axis_added", "entries_times_d_k"),
        # the 100 flattened scores (cross-sequence pairs too) are "other scores than the example's"; the key's
        # "the question asks for Q @ K^T of the batched example" is the fix (broader than blind12's / blind18's
        # wrong products, judged mis-named there); batch_folded_into_rows says the reshape for a 2-D product
        "q2_scores_flattened_across_batch": ("variance_of_other_scores", "batch_folded_into_rows", "batch_as_one_sequence"),
        "q2_d_k_from_len": ("scale_by_batch_dim",),   # len(Q) is Q.shape[0]: the key's text
        # partly: weights_not_normalised on 20 tests ("the right softmax times its own factor": the fix is the
        # denominator, as blind19's q3_divided_by_mean); q3's float16 test and q5's float16_large_scores generic;
        # reduction_tuple_as_tensor is the converse slip (a pair used as a tensor), not this [0] on a tensor
        "q3_sum_indexed_like_max_tuple": ("weights_not_normalised",),
        # the inverted ternary: default_none_not_replaced on causal_mask(T) (its fix `if T_k is None` repairs
        # both halves) and causal_ignores_T_k on the rectangular masks made square
        "q4_default_ternary_inverted": ("default_none_not_replaced", "causal_ignores_T_k"),
        "q5_mask_flattened_with_scores_d2l": ("mask_not_broadcast",),   # a step needing the mask at full shape
        # the float ones_like default crashes ~mask: crash_on_mask_none's symptom, mask_not_bool's cause and fix
        "q5_default_mask_float_ones": ("crash_on_mask_none", "mask_not_bool"),
        # .float() on float64 inputs: float32_precision's text; dtype_changed names .float() itself
        "q5_float_upcast_demotes_float64": ("float32_precision", "dtype_changed"),
        # generic: "weights3_causal is not correct in row(s) [1, 2] (recompute the scores ...)"; the mask and a
        # second softmax on weights3: softmax_twice ("to weights that are already a softmax") would be right
        "q6_causal_softmax_of_weights": ("softmax_twice",),
        # generic: "weights3 / out3 / weights3_causal not correct in row(s) [2]"; one hand-computed dot product
        # off by one: no key said an arithmetic slip. Now named by hand_score_slip (naming27, a new key: the
        # row's weights are a softmax of the right scores except that entry, said with both values)
        "q6_hand_scores_one_entry_off": ("hand_score_slip",),
        # generic: "weights3_causal is not correct in row(s) [0, 1, 2]"; e3 / e3.sum(0): softmax_sum_wrong_axis
        # ("the sum over another axis than the softmax's dim ... or a fixed axis") would be right
        "q6_causal_exp_tril_normalised_over_columns": ("softmax_sum_wrong_axis",),
        "q7_checked_only_blocked_entries": ("zero_after_softmax", "answer_computed_by_code"),   # answers A, as blind's q7_answer_a
        # mis-named: count_in_bytes ("the entries times 2 (the bytes of float16) ... memory in bytes"); the
        # student counts two T x T matrices (scores and weights), not bytes; 2 T^2 cannot tell them apart, and
        # no key says the score matrix was counted with the weights
        # one_edit_fix: `1024 ** 2` in place of `2 * 1024 ** 2` on line 1: the weights alone (rejudged)
        "q8_entries_counts_scores_and_weights": ("one_edit_fix",),   # was generic, both readings said (naming25)
    },
    # judged from `measure scaled-attention --set blind21 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # Q / sqrt(d_k) then scores / sqrt(d_k) is S / d_k: the key's text (as blind's q1_scaled_twice); q8
        # charges nothing for it
        "q1_queries_and_scores_both_scaled": ("divide_by_dk",),
        # generic: "the weight matrix does not match ... in 35 of 35 entries (largest difference 4.83e-05)" and
        # "rows ... do not sum to 1"; only the returned weights are rounded (the output is from the exact ones):
        # weights_rounded ("rounding the weights ... and returning the rounded values"), as blind8's q1_weights_rounded
        # now named by weights_rounded (naming25): the weights are round(right, k), the output the right one
        "q1_weights_rounded_like_trace": ("weights_rounded",),
        "q2_uniform_rand_draws": ("uniform_samples",),
        "q2_randn_like_for_keys": ("ignores_generator",),   # keys from the global RNG: the key's text
        "q2_mean_of_products": ("dot_averaged_not_summed",),
        # generic: "dot_product_variance(...) is NaN ... A variance is NaN when it is taken of a single number"
        # (a good message); var(dim=1) of an (n, 1) column: dots_summed_over_samples is the sum's axis; no key
        # still generic (naming25), its message now names var(dim=1) of keepdim (n_samples, 1) dots too
        # one_edit_fix: `0` (or `-2`) in place of `1` in `dots.var(dim=1)`, the variance across the samples (rejudged)
        "q2_variance_over_wrong_axis": ("one_edit_fix",),
        "q4_entropy_keepdim": ("entropy_keepdim",),
        # generic: "softmax_entropy(logits) does not match ... (largest difference 6.01e-05)"; eps = 1e-5 inside
        # the log is too large a guard: entropy_nan_saturated asks for a tiny epsilon (there is one); no key
        # still generic (naming25), its message now says the replay -sum p log(p + 1e-05) matches (no key)
        # now (after blind49, round 49: the exact replay's message now carries the key entropy_guard_too_large)
        "q4_log_epsilon_1e_5": ("entropy_guard_too_large",),
        "q4_table_draws_in_float64": ("draws_in_float64",),
        # generic: "the entropy table ... does not match ... in 12 of 12 entries" for another seed;
        # torch.manual_seed(0) for seed: table_reseeded_per_row ("another seed than the one passed ... every row
        # uses torch.manual_seed(seed) itself") is its fix (blind18's default seed=42 passed seed on, no key)
        # now named by table_reseeded_per_row (naming25): every row at seed 0 at two seeds (a replay)
        "q4_table_seed_hardcoded_zero": ("table_reseeded_per_row",),
        "q8_heads_stacked_last_axis": ("mha_heads_interleaved",),   # the key's torch.stack(heads, dim=-1)
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x5 and 2x48)"; V.chunk(n_heads) cuts rows:
        # mha_head_rows_sliced ("from the rows (tokens) ... instead of those columns") and mha_values_not_split
        # (each head's V full width, "V[:, cols] too")
        # now named by mha_head_rows_sliced (naming25): V.chunk's crash replayed, again at a second T
        "q8_values_chunked_default_dim": ("mha_head_rows_sliced", "mha_values_not_split"),
        "q8_residual_added": ("mha_residual_added",),
        "q8_decoder_causal_mask": ("causal_mask_added",),
    },
    # judged from `measure attention-pipeline --set blind21 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # raw: "split_with_sizes expects split_sizes to sum exactly to 7 (input tensor's size at dimension 0)" on
        # 3 q01 tests; the widths are right, the axis is split()'s default 0: fused_projection_split's fix
        # ".split([d_k, d_k, d_v], dim=-1)" is the repair (as blind20's split on dim=2)
        "q01_fused_split_default_axis": ("fused_projection_split",),   # now named by fused_projection_split (naming25)
        # generic: "S does not match the correct result in 40 of 40 entries"; a scale of d_k ** 0.25 (the root
        # taken twice): no key says it (divide_by_dk, integer_sqrt_scale, sqrt_precedence are other constants)
        # one_edit_fix: `Q.shape[-1]` in place of `math.sqrt(Q.shape[-1])`, so d_k is rooted once (rejudged)
        "q02_square_root_taken_twice": ("one_edit_fix",),
        # transpose(2, 3) fits 4-D keys only: batched_input_unsupported's "one fixed number of dims ... use
        # .transpose(-2, -1)" (named on the batched test; the 2-D test is raw "Dimension out of range")
        "q02_keys_transposed_on_axes_2_3": ("batched_input_unsupported",),   # now named by batched_input_unsupported (naming25)
        "q04_sequence_mask_lengths_from_zero": ("mask_blocks_diagonal",),   # arange(T) lengths block the diagonal
        # generic: "the mask blocks the wrong entries: exactly the keys after each query ... should be blocked";
        # M.triu(diagonal=1) dropped leaves finfo.min everywhere: mask_blocks_nothing's headline ("all zeros") is
        # the other symptom, but its cause and fix ("M.triu(...) whose result is dropped ... assign the result")
        # are this very line
        "q04_triu_result_not_assigned": ("mask_blocks_nothing",),   # now named by mask_blocks_nothing (naming25)
        # not caught: A * has_open_key zeroes fully blocked rows after the softmax (the notebook says such a row
        # stays finite and uniform); zero_after_softmax ("zeroing masked weights after the softmax: rows no longer
        # sum to 1") is the mistake; no q05/q13 test passes a mask with a fully blocked row
        "q05_fully_blocked_rows_zeroed": ("zero_after_softmax",),   # now named by zero_after_softmax (naming25)
        "q05_row_sum_without_keepdim": ("sum_without_keepdim",),
        # not caught: causal=False adds torch.zeros(1) (float32), promoting float16 scores to float32 (checked
        # with torch); dtype_changed ("a float32 tensor never cast back: float16 in must give float16 out") is it;
        # no q07 test runs float16 (or bfloat16) with causal=False
        "q07_zero_placeholder_mask_in_float32": ("dtype_changed",),   # now named by dtype_changed (naming25)
        "q08_kernel_cast_to_float32": ("float32_precision", "dtype_changed"),   # .type(torch.float32) on kappa
        # int64 / int64 with `/` gives the default float32: the key's "float32, torch's default dtype"
        "q09_integer_counts_true_division": ("prefix_average_float32",),
        # generic: "H does not match the correct result in 12 of 14 entries"; nats / log2(e) is bits * ln(2)^2,
        # not nats: entropy_in_nats (plain nats) is another mistake, as blind19's nats / log(T_k) was judged; no
        # key says the nats-to-bits factor applied upside down
        # one_edit_fix: `H_nats * math.log2(math.e)` in place of `H_nats / math.log2(math.e)` (rejudged)
        "q10_nats_to_bits_factor_inverted": ("one_edit_fix",),
        "q12_projections_counted_square": ("param_count_squares",),
        # generic: "the count is wrong (for d_v different from d_k)"; W_K counted with d_v: param_count_dv_as_dk
        # says the reverse swap (d_k where d_v belongs), which points at the right W_V; no key says d_v for W_K
        # now named by param_count_dk_dv_swapped (naming30: its text gives both readings of d_model x (d_k + 2 d_v),
        # W_K counted with d_v or d_k and d_v exchanged: the same number on every input)
        "q12_key_width_taken_from_values": ("param_count_dk_dv_swapped",),
        # masked_fill(M == 0, ...) reads the additive M as a keep-mask: the key's text and fix (S + M), as
        # blind14's q05_masked_fill_where_mask_is_zero
        "q13_additive_mask_used_as_keep_mask": ("additive_mask_as_boolean",),
    },
}

BLIND22_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure attention-pipeline --set blind22 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        "q01_unpacked_in_k_q_v_order": ("qk_swapped",),   # K, Q, V = X @ W_Q, X @ W_K, ...: the key's text
        # generic: "S does not match the correct result in 40 of 40 entries"; scale=False multiplies every score by
        # 0: no_scale (S unscaled) is another result, and uniform_weights (sdpa's blind17 ruling) describes the
        # weights, not the scores this test checks; no key says a default argument or a scale of zero
        # now named by default_argument_wrong (naming30: a parameter the notebook lacks, its default wrong, and
        # scale=None passed explicitly right)
        "q02_scale_default_false": ("default_argument_wrong",),
        # raw: "TypeError: sqrt(): argument 'input' (position 1) must be Tensor, not int"; torch_sqrt_of_int is
        # scaled-attention's and sdpa's key, not this catalogue's; no key here says it
        # now named by torch_function_of_number (naming27, an engine key read off the crash's own words)
        "q02_torch_sqrt_of_python_int": ("torch_function_of_number",),
        # raw: "Subtraction, the `-` operator, with a bool tensor is not supported ... use the `~`"; 1 - bool tril:
        # fill_mask_not_bool is the converse slip (numbers where a bool is needed); no key
        # now named by bool_mask_arithmetic (naming27, an engine key read off the crash's own words)
        "q04_one_minus_boolean_tril": ("bool_mask_arithmetic",),
        # raw: "unsupported operand type(s) for -: 'Tensor' and 'torch.return_types.max'"; S.max(dim=-1,
        # keepdim=True) is a (values, indices) pair: reduction_tuple_as_tensor's very text and fix (in this
        # catalogue since naming24, named on q08 for blind20, but not by q05's tests)
        "q05_max_with_dim_is_a_pair": ("reduction_tuple_as_tensor",),
        # generic: "ans_mask should be one letter as a string"; "c, d" hedges c with d, whose belief
        # mask_blocks_gradient names and refutes ("... without it position t reads the token", i.e. c);
        # answer_hedged is sdpa's key, not this catalogue's
        "q06_two_letters": ("mask_blocks_gradient",),   # now named by mask_blocks_gradient (naming27)
        "q07_bmm_for_the_output": ("batched_input_unsupported",),   # the key's "torch.bmm fit one layout"
        # raw: "1D tensors expected, but got 1D and 2D tensors"; torch.dot(kappa, V) as np.dot: no key says
        # torch.dot takes 1-D tensors only (as scaled-attention's blind22 q2_torch_dot_on_sample_matrices)
        # now named by dot_of_matrices (naming27, an engine key read off the crash's own words)
        "q08_torch_dot_with_a_matrix": ("dot_of_matrices",),
        # raw: "The size of tensor a (9) must match the size of tensor b (8) at non-singleton dimension 0";
        # arange(1, T) stops one short: prefix_average_row_skipped's "range(1, T) ... stops one early" is this
        # exclusive end and its fix, though it speaks of a loop and a zero row rather than a broadcast error
        "q09_arange_stops_one_short": ("prefix_average_row_skipped",),   # now named by prefix_average_row_skipped (naming27)
        # raw: "ValueError: only one element tensors can be converted to Python scalars"; math.pow on a tensor
        # of entropies: returns_tensor_not_number is the converse; no key says a math function on a tensor
        # now named by tensor_to_number (naming27, an engine key read off the crash's own words)
        "q10_math_pow_on_entropies": ("tensor_to_number",),
        # generic: "effective tokens does not match ... in 15 of 18 entries (largest difference 0.474 ...)";
        # 2 ** H rounded to a whole number: no key says rounding (effective_tokens_support_size counts keys)
        "q10_effective_tokens_rounded": ("effective_tokens_rounded",),   # now named by effective_tokens_rounded (naming30)
        # generic: "rank_S_lesson is 5: that is T ... and also what matrix_rank(S, hermitian=True) reports";
        # len(svdvals(S)) counts the zero singular values too: neither reading, and rank_is_T's causes are not
        # this (as blind19's hermitian and blind20's float32-tolerance counts); no key
        "q11_rank_counts_all_singular_values": (),   # naming27: generic, the message now gives this third reading
        "q13_keys_transposed_with_T": ("batched_input_unsupported",),   # the key's ".T reverses every dimension"
    },
    # judged from `measure scaled-attention --set blind22 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # raw: "einsum(): subscript d has size 7 for operand 1 ..."; "qd,dk->qk" reads K as if it were K^T, so it
        # is Q @ K without the transpose: keys_not_transposed's text and fix (as sdpa's q1_probe_product_...)
        "q1_einsum_keys_subscripts_reversed": ("keys_not_transposed",),   # now named by keys_not_transposed (naming27)
        # raw: "TypeError: softmax() got an unexpected keyword argument 'axis'"; no key says torch takes dim=, not
        # numpy's axis= (size_as_dim is a size passed as the axis)
        # now named by numpy_keyword (naming27, an engine key read off the crash's own words)
        "q1_softmax_numpy_axis_keyword": ("numpy_keyword",),
        # raw: "The size of tensor a (12) must match the size of tensor b (10000)"; q * k.T carries Q K^T's
        # transpose into the paired products: variance_over_all_pairs ("q @ k.T ... instead of the n paired dot
        # products q_i . k_i ... compute (q * k).sum(dim=-1)") is the same confusion and its fix drops the .T
        # now named by variance_over_all_pairs (naming28): a second call with n_samples = d_k replays (q * k.T)
        "q2_pairs_times_transposed_keys": ("variance_over_all_pairs",),
        # raw: "1D tensors expected, but got 2D and 2D tensors"; torch.dot does not batch rows: no key says so
        # (dots_summed_over_samples fits blind17's torch.dot of flattened draws, which runs; this one raises)
        # now named by dot_of_matrices (naming27, an engine key read off the crash's own words)
        "q2_torch_dot_on_sample_matrices": ("dot_of_matrices",),
        "q2_generator_reseeded_inside": ("ignores_generator",),   # the key's "or the generator re-seeded inside"
        # generic: "softmax_entropy of a (2, 3, 5) tensor has shape (2, 5), expected (2, 3)"; F.cross_entropy
        # takes its classes along dim 1: entropy_wrong_dim, as blind16's q4_entropy_dim_one (dim 1 is not a row)
        "q4_entropy_soft_label_cross_entropy": ("entropy_wrong_dim",),   # now named by entropy_wrong_dim (naming27)
        # generic: "does not match ... in 6 of 6 entries (largest difference 1.37 ...)"; F.kl_div(log p, u) is
        # KL(u || p), the wrong way round; entropy_unweighted (-log p weighted by a uniform row) is the nearest
        # effect, but its text (no p weight at all) is not this code and does not point at the arguments; no key
        # now named by entropy_kl_div_arguments_swapped (naming30)
        "q4_entropy_kl_div_arguments_swapped": ("entropy_kl_div_arguments_swapped",),
        # generic: "raw_std and scaled_std are NaN and H_raw and H_scaled are 0 in every row ... what ONE score
        # per d gives" (a clear message); [0] on a 1-D q @ k.T: no key, as blind19's [:, 0] (naming22: generic)
        # now named by table_vector_query_indexed (naming30): the 1-D draw of q and [0] on its product, from the source
        "q4_table_vector_query_still_indexed": ("table_vector_query_indexed",),
        # raw: "ValueError: too many values to unpack (expected 2)"; stacked with dim=1 the entropy runs across
        # each (raw, scaled) pair, down the columns of the (2, 5) rows: entropy_wrong_dim's text
        # naming28: generic, says in words the unpack of more than 2 values and stack(dim=1)'s (5, 2) (no proof)
        # now named by entropy_wrong_dim (naming30): the raising line's stack(..., dim=1) read by crash_source_line
        "q4_table_entropies_stacked_on_wrong_axis": ("entropy_wrong_dim",),
        # B, each token returns itself: the key's text (as blind2's q6_answer_self_only); the reason given ("the
        # self-score is the largest") is also attention_as_argmax's hard argmax
        "q6_answer_self_score_largest": ("self_attention_identity", "attention_as_argmax"),
        # raw: "TypeError: expected Tensor as element 0 in argument 0, but got tuple"; the (output, weights) pairs
        # concatenated: mha_heads_weights_concatenated is the pair unpacked the wrong way round, another slip
        # (and returns_output_only the function's own return); no key says attention's pair was never unpacked
        # naming28: generic, says torch.cat got the heads' (output, weights) pairs (their attention returns one)
        "q8_heads_kept_as_pairs": ("mha_heads_kept_as_pairs",),   # now named by mha_heads_kept_as_pairs (naming30)
        # generic: "does not match ... in 240 of 240 entries"; view(T, h, d_k).transpose(1, 2) gives (T, d_k, h):
        # mha_heads_features_as_tokens ("attends over its d_k features as if they were tokens; the split is
        # .view(T, n_heads, d_k).transpose(0, 1)") is the effect and the fix (as blind13's q8_permute_...)
        "q8_batched_transpose_on_2d_input": ("mha_heads_features_as_tokens",),   # now named by mha_heads_features_as_tokens (naming27)
        # F.softmax(attn) on (n_heads, T, T): the key's text (dim 0, "the default of F.softmax without dim")
        "q8_batched_heads_softmax_dim_implicit": ("mha_softmax_over_heads", "softmax_implicit_dim"),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x12 and 48x12)"; W_O[:, cols] for W_O[cols, :]:
        # mha_output_projection_per_head is the diagonal block W_O[c, c], mha_heads_summed one shared block; no key
        # naming28: generic, says (T, d_k) @ (d_model, d_k): a column block where W_O's row block belongs
        "q8_w_o_blocks_cut_by_columns": ("mha_w_o_column_blocks",),   # now named by mha_w_o_column_blocks (naming30)
    },
    # judged from `measure sdpa-from-scratch --set blind22 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # generic: "`weights_shape` is not defined ... (or is None)"; probe_q @ probe_k without the transpose
        # raises: keys_not_transposed ("Q @ K without transposing K ... (T_q, T_k)") is the key's very text
        "q1_probe_product_without_transpose": ("keys_not_transposed",),
        # generic: "`raw_score_var` is not defined ... (or is None)"; K.T on batched keys: fixed_axes's text
        # ("K.T, which reverses every axis of a batched tensor"), as blind's / blind6's q5_dot_T_on_batched_keys
        "q2_dot_T_on_batched_keys": ("fixed_axes",),
        "q2_variance_divided_by_root_d_k": ("variance_scaled_like_scores",),   # the key's text
        # partly: reduction_without_keepdim on q3, q5 and weights3_causal; weights3 / out3 generic ("not correct
        # in row(s) [0, 1, 2]") though the same max without keepdim makes them
        "q3_max_without_keepdim": ("reduction_without_keepdim",),
        "q4_bottom_right_aligned": ("causal_bottom_right",),
        "q4_default_t_k_not_filled_in": ("default_none_not_replaced",),
        # partly: scale_constant on 13 q5 tests ("divides the scores by sqrt(3) both times ... instead of the
        # input's own width, d_k = Q.shape[-1]"): K.dim() is a constant in d_k, and the key's fix is the right one
        # (as scaled-attention's blind14 q1_scale_from_rank_of_k, wrong_scale_constant); float16_large_scores generic
        # now named by scale_constant (naming28): test_float16_large_scores asks the two d_k probes too
        "q5_d_k_from_ndim": ("scale_constant",),
        # torch.zeros(weights.shape) is float32 mixed into half weights: dtype_changed's "a float32 tensor never
        # cast back ... a product raises"
        "q5_empty_rows_cleared_with_default_dtype_zeros": ("dtype_changed",),
        # generic: "has shape (2, 7, 48), expected (2, 3, 7, 16)" and "does not match ... in 198 of 210 entries";
        # the nanoGPT head merge transpose(1, 2).view(B, T, -1) in attention itself: result_axes_permuted ("a
        # transpose ... never undone: move the axes back") points at that line, though it does not say the
        # view merges the heads; no key says a multi-head merge inside the per-head function
        "q5_heads_merged_nanogpt_style": ("result_axes_permuted",),   # now named by result_axes_permuted (naming29)
        # generic: "weights3 is not correct in row(s) [0, 1, 2] (recompute ... softmax of each row)"; e3 @
        # diag(1 / e3.sum(1)) divides column j by row j's sum, the very numbers of e3 / e3.sum(1) without keepdim:
        # reduction_without_keepdim ("loses its axis and broadcasts against the last one ... wrong on square
        # inputs ... keepdim=True") would be right; softmax_sum_wrong_axis (column sums) is another result
        # now named by reduction_without_keepdim (naming27): q6's weights3 replayed as e3 / e3.sum(1) without keepdim
        "q6_row_sums_multiplied_from_the_right": ("reduction_without_keepdim",),
        # generic: "`out3` is not defined ... (or is None)"; V3 @ weights3.T raises: weights_transposed
        # ("multiplying V by the transposed weights ... query i's own weights (A V)") says it and its fix
        "q6_values_multiplied_first": ("weights_transposed",),
        # generic: "it starts with C, the right choice, but the answer must be the letter only" (a clear message);
        # answer_hedged is several letters, and this catalogue has no key for a letter with its option's text
        # (later: the engine's answer_extra_characters, whose text now says "the option's words", names it)
        "q7_right_letter_with_its_sentence": ("answer_extra_characters",),
        # generic: "attn_entries is not the number of entries of the weight matrix (one per query-key pair)";
        # T (T - 1), the self pairs left out: causal_triangle_count and count_halved_symmetric are other counts,
        # causal_excludes_self is the mask's; no key says it
        # (later: self_pairs_left_out, a key for it, now exists)
        "q8_self_pairs_left_out": ("self_pairs_left_out",),
        # cost_ratio 2 from doubling the queries only: cost_linear_in_T's message adds "every query meets every
        # key", the fix (as blind14's q8_ratio_linear_in_T)
        "q8_ratio_doubles_only_the_queries": ("cost_linear_in_T",),
    },
}

BLIND23_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure attention-pipeline --set blind23 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # generic: "S has shape (2, 6, 2, 6), expected (2, 6, 6)"; torch.inner is Q K^T for 2-D inputs only:
        # batched_input_unsupported ("code that works only for 2-D inputs ... use .transpose(-2, -1) or .mT")
        "q02_torch_inner_for_the_score_matrix": ("batched_input_unsupported",),   # now named by batched_input_unsupported (naming29)
        "q04_keep_mask_with_the_block_diagonal": ("causal_includes_next",),   # the key's very tril(diagonal=1)
        # triu_(1).fill_(min) blocks every entry: the key's "or everything (a full mask never cut)", and the
        # message says the diagonal and the past are blocked too
        "q04_in_place_chain_fills_everything": ("mask_blocks_nothing",),
        # (S + M) if ... else 0 gives softmax the int 0 when M=None: the key names the crash and where it is
        "q05_conditional_expression_else_zero": ("crash_on_mask_none",),
        # generic: "A has dtype torch.float16, expected torch.float64 (the input's dtype)" (a clear message);
        # dtype_changed ("returning ... another dtype than the input's ... float64 in float64 out") is it
        "q05_float32_softmax_cast_to_half": ("dtype_changed",),   # now named by dtype_changed (naming29)
        # generic: "A does not match ... in 55 of 100 entries" / "rows of A do not sum to 1"; F.dropout's
        # training=True default: no key of this catalogue says it (sdpa's nondeterministic would; zero_after_softmax
        # is about the masked weights, not random ones)
        "q07_functional_dropout_defaults_to_training": ("nondeterministic",),   # now named by nondeterministic (naming29)
        # raw: "mat1 and mat2 shapes cannot be multiplied (10x12 and 10x12)"; K^T handed to a helper that
        # transposes it again computes Q @ K: scores_keys_not_transposed's "Q @ K ... runs only when T = d_k"
        "q07_keys_transposed_before_the_helper": ("scores_keys_not_transposed",),   # now named by scores_keys_not_transposed (naming29)
        # generic: "the smoothed row does not match ... in 5 of 5 entries"; s / s.sum() without exp: no_softmax
        # ("the scaled scores themselves are used as weights") gives the fix (scaled-attention's
        # scores_normalised_without_exp is the exact key, not in this catalogue)
        "q08_scores_normalised_without_exp": ("no_softmax",),   # now named by no_softmax (naming29)
        "q08_kernel_preallocated_with_empty": ("float32_precision", "dtype_changed"),   # torch.empty is float32
        # softmax(wei, 0) of the -inf-masked zeros is the lower triangle divided by its column counts (W / W.sum(0)),
        # as blind13's q09_normalised_by_column_sums; softmax_wrong_dim (dim 0 = the query axis) is the slip itself
        "q09_lecture_mask_softmaxed_over_dim_0": ("prefix_average_count_wrong_axis", "softmax_wrong_dim"),
        # generic: "H has shape (7, 2), expected (2, 7)"; torch.diagonal's default dims 0, 1 fit a 2-D A only:
        # batched_input_unsupported ("code that works only for 2-D inputs ... one fixed number of dims")
        "q10_diagonal_with_default_dims": ("batched_input_unsupported",),   # now named by batched_input_unsupported (naming29)
        # not caught: d_model * d_k * (2 + d_v / d_k) is a float (110.00000000000001 for 10, 3, 5) where the
        # notebook asks for the number of weights; no key of this catalogue says a float for an int (sdpa's
        # float_for_int would)
        "q12_factored_with_true_division": ("float_for_int",),   # now named by float_for_int (naming29)
        "q13_keys_transposed_on_axes_1_2": ("batched_input_unsupported",),   # transpose(1, 2): one fixed layout
        # generic: "ans_complexity should be one letter as a string" (a clear message); "quadratic" is option c's
        # idea without its letter: no key (answer_extra_characters is a letter with more characters)
        "q16_answer_spelled_out": ("answer_option_text",),   # now named by answer_option_text (naming29)
    },
    # judged from `measure scaled-attention --set blind23 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # raw: "unsupported operand type(s) for /: 'Tensor' and 'builtin_function_or_method'"; .values on a sum
        # (a plain tensor): reduction_tuple_as_tensor is the converse (max's pair used as a tensor, fix: add
        # .values), and its fix points the wrong way here; no key says a plain tensor has no .values field
        # (later: the engine's method_not_called, a key made for this kind, names it)
        "q1_row_sum_read_as_values": ("method_not_called",),
        # exp(s - max) / sum exp(s): rows sum to exp(-max); the fix is to divide by the row sum of the numerator,
        # as the key says (as blind7's sdpa q3_unshifted_denominator)
        "q1_shifted_numerator_unshifted_denominator": ("weights_not_normalised",),
        # generic: "the output has shape (4, 5), expected (6, 5)" and "does not match ... in 60 of 60 entries";
        # the broadcast mix summed over the queries keeps one row per key: sdpa's output_keeps_key_axis says it
        # (blind18's q6_broadcast_product_summed_over_queries), this catalogue has no such key;
        # output_uses_weights_transposed (A^T V) and values_averaged_over_keys (.mean over the keys) are others
        # now named by output_keeps_key_axis (naming29)
        "q1_broadcast_mix_summed_over_queries": ("output_keeps_key_axis",),
        # raw: "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"; cat(dim=2)
        # from batched (B, T, hs) code on 2-D heads: fixed_axes ("assumes a fixed number of dims ... use negative
        # axes") is the cause and its fix (dim=-1), as blind15's q5_softmax_dim_2_from_3d_code
        # now named by fixed_axes (naming29)
        "q8_heads_cat_batched_axis_2": ("fixed_axes",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (1x240 and 48x48)"; flatten() merges the token axis
        # too (flatten(1) is the merge): mha_merge_without_transpose is the axis order, not this; no key
        # (naming29: now generic, said in words from a replay of the merge: flatten()'s start_dim=0 merges every axis)
        # one_edit_fix: `heads.flatten(1)` (or `flatten(-2)`) in place of `heads.flatten()` (rejudged)
        "q8_merge_flatten_default_start_dim": ("one_edit_fix",),
        "q8_batched_keys_transposed_with_T": ("fixed_axes",),   # the key's "K.T, which reverses every axis"
        "q8_merge_heads_permuted_last": ("mha_heads_interleaved",),   # the key's "or another axis order"
        # raw: "ValueError: too many values to unpack (expected 2)"; unbind(-1) splits the d_k features, not the
        # pair axis: draw_split_along_samples's "split with dim=1" is the fix, but its text (a (n, 2 d_k) draw
        # chunked along the samples "instead of along the features") tells the student to do what they did; no key
        # now named by unpacked_along_wrong_axis (naming30)
        "q2_pair_draw_unbound_on_last_axis": ("unpacked_along_wrong_axis",),
        # mis-named: scaled_flag_inverted ("dividing by sqrt(d_k) when scaled=False and not when scaled=True") on
        # the unscaled test; the flag is read right (scaled=True passes), div_ rescales `dots` through the alias:
        # inplace_alias_overwritten ("an in-place op ... returns the same tensor it changes ... use the
        # out-of-place op") is the mistake and its fix
        # now named by inplace_alias_overwritten (naming29)
        "q2_in_place_scale_aliases_unscaled": ("inplace_alias_overwritten",),
        # generic: "does not match the correct result in 6 of 6 entries (largest difference 0.84 ...)"; the
        # Bernoulli -(1-p) log(1-p) terms added per key: no key says it
        # now named by entropy_binary_terms (naming30)
        "q4_entropy_bernoulli_terms_summed": ("entropy_binary_terms",),
        # p log(1/p + eps): the NaN is 0 * log(1/0), i.e. 0 * -log 0, and the key's fix (the epsilon inside, on
        # p, or log_softmax) is the student's, as blind14's q4_epsilon_outside_log
        "q4_entropy_reciprocal_epsilon_too_late": ("entropy_nan_saturated",),
        # raw: "RuntimeError: batch1 must be a 3D tensor"; bmm fits 2-D logits only: fixed_axes ("assumes a fixed
        # number of dims"), as blind10's q1_bmm_on_2d
        # now named by fixed_axes (naming29)
        "q4_entropy_bmm_row_dot": ("fixed_axes",),
        # generic: "the table has only the rows for d = [256, 256, 256, 256] ... (its values are right)" (a clear
        # message); one dict reused for every row: no key says it
        # now named by record_reused (naming30)
        "q4_table_one_row_dict_reused": ("record_reused",),
        # generic: "entropy_table should return one row per d: 4 rows, got 20"; list += dict extends with its
        # keys: table_dict_of_lists and table_keyed_by_d are other shapes; no key
        # now named by list_extended_with_dict (naming30)
        "q4_table_list_extended_with_dict": ("list_extended_with_dict",),
    },
    # judged from `measure sdpa-from-scratch --set blind23 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # generic: "`raw_score_var` is not defined ... RuntimeError: a Tensor with 10 elements cannot be converted
        # to Scalar"; .var(1) is var(dim=1), per-column variances: mean_of_slice_variances ("the variances of
        # each row, column ... (var(dim=...)) instead of the variance of all the scores (.var())") is the fix,
        # as blind3's q2_mean_of_row_variances; biased_variance says the default is unbiased but not the dim
        "q2_ddof_one_passed_as_dim": ("mean_of_slice_variances",),   # now named by mean_of_slice_variances (naming29)
        # .div(1 / sqrt(d_k)) multiplies by sqrt(d_k): both texts say it
        "q2_divided_by_reciprocal_scale": ("multiply_by_sqrt_dk", "reciprocal_scale"),
        # generic: "stable_softmax(x, dim=1) does not match ... in 120 of 120 entries"; x.T reverses every axis:
        # fixed_axes ("K.T, which reverses every axis of a batched tensor") is the fix
        "q3_axis_moved_to_end_with_dot_T": ("fixed_axes",),   # now named by fixed_axes (naming29)
        # mis-named: float32_precision on q5's test_dv_differs_from_dk ("some step computes in float32"); every
        # step is float64, the 1e-8 is the + 1e-9 added to each weight; the other 6 failures are generic (1e-9
        # off, "-inf should get weight exactly 0"); no key says an epsilon in the softmax (as blind20's
        # q3_epsilon_in_denominator); softmax_inf_to_zero's cause is -inf replaced by 0, not this
        "q3_epsilon_added_outside_fraction": ("epsilon_added_to_weights",),   # now named by epsilon_added_to_weights (naming29)
        # generic: "your code raised TypeError: tril() got an unexpected keyword argument 'dtype'" (a clear
        # message); no key says a keyword given to the wrong function
        "q4_dtype_given_to_tril": ("unexpected_keyword",),   # now named by unexpected_keyword (naming29, the engine's crash words)
        # generic: "causal_mask(4, 1072) has shape (4, 9), expected (4, 1072)"; a cache keyed by T_q alone:
        # nondeterministic ("a result that depends on earlier calls") is its symptom and cause;
        # causal_ignores_T_k says a square mask built from one length, not a stale cached one
        "q4_masks_cached_by_query_length": ("nondeterministic",),   # now named by nondeterministic (naming29)
        # raw: "TypeError: masked_fill() received an invalid combination of arguments - got
        # (builtin_function_or_method, float)" on 15 tests; the method not called: no key says it
        # (bool_mask_arithmetic's fix writes mask.logical_not(), but its mistake is arithmetic on the mask)
        # (later: the engine's method_not_called, a key made for this kind, names it)
        "q5_logical_not_not_called": ("method_not_called",),
        # generic: "the output ... does not match ... in 200 of 210 entries" on 14 tests; a scale of d_k ** 0.25
        # (the root taken twice): no key says it, as blind21's q02_square_root_taken_twice
        "q5_square_root_taken_twice": ("scale_root_taken_twice", "one_edit_fix"),   # now named by scale_root_taken_twice (naming29)
        "q5_nanogpt_B_T_C_unpack": ("fixed_axes",),   # the key's "B, T, d = Q.shape"
        "q5_keys_transposed_in_place": ("inplace_on_input",),   # K.transpose_ changes the caller's K
        # generic: "`out3` is not defined ... RuntimeError: The size of tensor a (3) must match the size of
        # tensor b (2)"; weights3 * V3 for weights3 @ V3: output_keeps_key_axis ("each weight times its value
        # row, never summed over the keys): weights @ V sums over the keys") is the fix
        "q6_elementwise_star_for_matmul": ("output_keeps_key_axis",),
        "q6_triu_bias_default_diagonal": ("causal_excludes_self",),   # triu's default diagonal=0 blocks self
        "q7_checked_the_last_query_only": ("zero_after_softmax", "answer_computed_by_code"),   # answers A, as blind21's q7
        # T^2 x 8 from the stale global d_k = 8: madds_with_sqrt_d_k's text says "8 is also the d_k of
        # Question 2's example, not this question's"; example_value_reused is the exact one
        "q8_head_width_from_stale_global": ("madds_with_sqrt_d_k", "example_value_reused"),
    },
}

BLIND24_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind24 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # scaled scores computed, softmax fed Q @ K.T: unscaled attention (as blind14's q5_d_k_computed_never_used)
        "q1_softmax_fed_the_unscaled_product": ("no_scale",),
        # scores @ V for weights @ V: the key's "scaled scores used as weights" on the output tests only (the
        # weights returned are right), as blind19's q07_scores_mixed_instead_of_weights
        "q1_output_mixed_from_scores": ("no_softmax",),
        # raw: "NameError: name 'W' is not defined" on 6 q1 tests; a name from a later cell (the trace's W):
        # no key says it (as blind15's q1_out_width_from_later_cell)
        # now named by name_not_yet_defined (naming30, engine crash words)
        "q1_returns_stale_global_W": ("name_not_yet_defined",),
        # mis-named: qk_swapped ("Q from W_K, K from W_Q") on 3 tests; the projections are right, the call is
        # attention(K_h, Q_h, V_h), i.e. K_h Q_h^T per head, which scores_transposed names (same output, other
        # fix), as blind9's q07_keys_scored_against_queries
        "q8_queries_and_keys_swapped_in_call": ("scores_transposed",),   # now named by scores_transposed (naming30)
        # raw: "mat1 and mat2 shapes cannot be multiplied (48x48 and 5x48)"; W_O @ concat for concat @ W_O: no
        # key says the output projection multiplied from the left (mha_weight_transposed is X @ W.T)
        "q8_output_projection_left_multiplied": ("mha_output_projection_left",),   # now named by mha_output_projection_left (naming30)
        # generic: "does not match the correct result in 240 of 240 entries"; K.view(n_heads, d_k, T) straight
        # into K^T's shape: mha_split_without_transpose ("reshaping ... straight to (n_heads, T, d_k) without a
        # transpose, mixing tokens across heads") is the slip and its fix, as blind's q8_split_view_without_transpose
        "q8_keys_viewed_as_transposed": ("mha_split_without_transpose",),   # now named by mha_split_without_transpose (naming30)
        # raw: "TypeError: cat(): argument 'tensors' (position 1) must be tuple of Tensors, not generator"; no key
        # says torch.cat given a generator
        # now named by generator_to_cat (naming30, engine crash words)
        "q8_cat_of_generator_expression": ("generator_to_cat",),
        # generic: "should be a number (a Python float; use .item() on a tensor), got float32" (a clear message);
        # numpy's var returns numpy.float32: returns_tensor_not_number's fix (.item() or float(...)) is the fix,
        # though its text says a tensor
        "q2_returns_numpy_float32": ("returns_tensor_not_number",),   # now named by returns_tensor_not_number (naming30)
        # mis-named: softmax_implicit_dim ("calling F.softmax without dim") on test_entropy_views; the code calls
        # no F.softmax, it divides by e.sum(0) (the 2-D tests are generic, "6 of 6 entries"), so that text blames
        # an omission not made (as blind13's q13_softmax_over_queries_inline); softmax_sum_wrong_axis ("dividing
        # by the sum over another axis than the softmax's dim ... or a fixed axis") is the slip and its fix
        "q4_entropy_softmax_denominator_axis0": ("softmax_sum_wrong_axis",),   # now named by softmax_sum_wrong_axis (naming30)
        # the out-of-place clamp thrown away leaves 0 * log 0: the key's symptom and its fix (as blind's
        # q5_masked_fill_result_discarded, the effect of the dropped result)
        "q4_entropy_clamp_result_dropped": ("entropy_nan_saturated",),
        # raw: "TypeError: seed() takes 0 positional arguments but 1 was given"; torch.seed for torch.manual_seed:
        # no key says it (table_reseeded_per_row is another seed, not another function)
        # now named by seed_for_manual_seed (naming30, engine crash words)
        "q4_table_torch_seed_for_manual_seed": ("seed_for_manual_seed",),
        # generic: "the entropy table ... does not match ... in 8 of 16 entries"; sqrt(mean(x^2)) for .std():
        # biased_std says only the divisor n (fixing it to n - 1 still leaves the mean unsubtracted); no key
        # now named by table_std_root_mean_square (naming30)
        "q4_table_std_as_root_mean_square": ("table_std_root_mean_square",),
        # sqrt(len(q)) with q (1, d): len is the number of queries, 1, so nothing is scaled; no_scale (the effect,
        # as blind's q02_integer_exponent), scale_by_T ("the number of keys or of queries") and
        # wrong_scale_constant all say it
        "q4_table_scale_from_len_of_query": ("no_scale", "scale_by_T", "wrong_scale_constant"),
    },
    # judged from `measure attention-pipeline --set blind24 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # mis-named: scale_from_ndim ("dividing ... by the square root of the number of dimensions (K.dim() or
        # Q.ndim)") on the two 4-D tests, where ndim 4 happens to equal the default d_k=4; the 2-D tests are generic
        # ("off by a constant factor x1.732" = sqrt(12) / 2, not sqrt(12 / 2)), so ndim is not the cause. The slip
        # is a parameter the notebook lacks with a wrong default: default_argument_wrong (naming30's kind)
        # now named by default_argument_wrong (naming30: d_k=12 passed explicitly is right)
        "q02_d_k_default_argument_from_lesson": ("default_argument_wrong",),
        # generic: "S does not match the correct result in 40 of 40 entries"; scores // sqrt(d_k) floors the
        # quotient: integer_sqrt_scale floors the divisor, prefix_average_floor_division is q09's 1 // t; no key
        # (as blind20's scaled-attention q1_floor_division_scale)
        "q02_floor_divided_by_the_scale": ("floor_division_scale",),   # now named by floor_division_scale (naming30)
        # raw: "TypeError: torch.iinfo() requires an integer input type. Use torch.finfo ..."; mask_not_dtype_min
        # says the blocked value is torch.finfo(dtype).min: the fix
        # now named by iinfo_for_float (naming30, engine crash words)
        "q04_iinfo_for_a_float_dtype": ("mask_not_dtype_min", "iinfo_for_float"),
        "q05_out_of_place_add_dropped": ("mask_ignored",),   # S.add(M) dropped: the mask is never applied
        # partly: softmax_wrong_dim on the batched test (dim 2 of 4-D scores is the queries), raw IndexError on
        # the 2-D ones; batched_input_unsupported's "one fixed number of dims" is the fixed axis itself
        "q05_softmax_axis_fixed_at_two": ("softmax_wrong_dim", "batched_input_unsupported"),
        # now named by batched_input_unsupported on the 2-D crashes (naming30: a batch axis added runs right)
        "q07_size_subscripted_like_shape": ("method_not_called",),   # its text names `x.size[-1]` for x.size(-1)
        # mis-named: same_projection ("one projection matrix for more than one of Q, K, V") on 4 tests, but
        # project_qkv is right; the slip is A @ K for A @ V in self_attention (as blind16's
        # q07_queries_scored_against_queries); values_not_projected is A X, scores_from_values the reverse: no key
        "q07_weights_mix_the_keys": ("values_are_keys",),   # now named by values_are_keys (naming30)
        "q08_weighted_values_summed_over_everything": ("reduced_every_axis",),   # .sum() with no dim: the key's text
        # raw: "The size of tensor a (9) must match the size of tensor b (5)"; counts 1..5 from the lesson:
        # prefix_average_row_skipped's "counts do not line up with the T rows; count 1 to T with
        # torch.arange(1, T + 1)" is the fix (its off-by-one cause is not this, and no key says a lesson constant)
        "q09_row_counts_for_five_tokens": ("prefix_average_counts_fixed",),   # now named by prefix_average_counts_fixed (naming30)
        "q10_entropy_as_mean_over_keys": ("entropy_mean_not_sum",),
        # generic: "the count is wrong (for d_v different from d_k)"; d_v, d_k in the signature swaps both widths
        # on a positional call (W_Q, W_K with d_v; W_V, W_O with d_k): param_count_dv_as_dk says half of it and
        # points at W_V's term, which reads right; no key says the parameters' order
        "q12_parameters_in_d_v_d_k_order": ("param_count_dk_dv_swapped",),   # now named by param_count_dk_dv_swapped (naming30)
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x12 and 10x6)"; attention_weights(Q, M) for (S, M):
        # no key says the softmax taken of the queries (returns_scores_as_weights and no_softmax are others)
        "q13_weights_from_the_queries": ("weights_from_queries",),   # now named by weights_from_queries (naming30)
        "q06_answer_no_gradient_upper_case": ("mask_blocks_gradient",),   # "D", read as option d
    },
    # judged from `measure sdpa-from-scratch --set blind24 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # partly: weights_not_normalised on 20 tests ("the right softmax times its own factor ... without
        # dividing by the row sum"): F.normalize's default p=2 is a divisor that is not the row sum, as
        # scaled-attention's blind q1_normalize_default_p2; q3's float16 test and q5's float16_large_scores generic
        # now named by weights_not_normalised on both float16 tests too (naming30)
        "q3_normalize_default_p2": ("weights_not_normalised",),
        # dim=None by default makes e.sum(dim=dim) the sum over the whole tensor: the key's "e.sum() with no dim
        # instead of each slice's own sum"; the global max it also takes changes nothing in the values
        "q3_default_dim_none": ("softmax_global_sum",),
        # generic: "`causal_mask` is not defined ... NameError: name 'T_q' is not defined (line 1)" (a clear
        # message); def causal_mask(T_q, T_k=T_q): default_none_not_replaced's fix ("write `if T_k is None:
        # T_k = T_q`", with the default T_k=None) is this one, though its slip is a comparison, not the default
        # now named by default_names_parameter (naming30, engine: the crashing cell's def line); q6's weights3_causal
        # cell then meets causal_mask undefined (generic, true there)
        "q4_default_names_the_first_parameter": ("default_names_parameter",),
        # generic: "the output for 4-D inputs ... does not match ... in 655 of 672 entries" on 6 q5 tests;
        # sqrt(Q.size(1) * Q.size(-1)), heads times head width: scale_by_batch_dim ("Q.size(1) of batched inputs:
        # the batch or the heads ... instead of the last one, Q.shape[-1]") says the axis and the fix
        "q5_scale_by_heads_times_head_width": ("scale_by_batch_dim",),   # now named by scale_by_batch_dim (naming30)
        # generic: "your code raised RuntimeError: Expected size for first two dimensions of batch2 tensor ..." on
        # 15 tests; V @ weights for weights @ V: weights_transposed ("multiplying V by the transposed weights ...
        # query i's own weights (A V)") says the fix, as blind22's q6_values_multiplied_first
        # now named by weights_transposed (naming30): the crash replayed on the call's own shapes; where Q @ K raises
        # the same words (d_k = d_v, T_k = T_q), one second call on Q (1,3,4), K (1,5,4), V (1,5,6) must replay as V @ w
        "q5_values_times_weights": ("weights_transposed",),
        # raw: "TypeError: masked_fill() received an invalid combination of arguments - got (float, Tensor)" on 15
        # tests; masked_fill(value, mask), the arguments swapped: no key says it (bool_mask_arithmetic's fix writes
        # masked_fill(~mask, ...), but its slip is arithmetic on the mask)
        # now named by masked_fill_arguments_swapped (naming30, engine crash words)
        "q5_masked_fill_arguments_swapped": ("masked_fill_arguments_swapped",),
        "q5_integer_sqrt_scale": ("integer_sqrt_scale",),   # the key names math.isqrt(d_k) itself
        # the out-of-place masked_fill thrown away leaves NaN on fully masked queries: the key's symptom, and it
        # points at the zeroing line (as blind's q5_masked_fill_result_discarded, mask_ignored)
        "q5_empty_row_zeroing_not_assigned": ("fully_masked_nan",),
        # generic: "`out_shape` is not defined ... NameError: name 'V' is not defined (line 2)" (a clear message);
        # V from a later cell (the (2, 5, 8) example, not d_v = 128): no key says a name from a later cell;
        # example_value_reused speaks of the example's d_k = 8 reused for the scale, not a shape read off V
        # now named by name_not_yet_defined (naming30, engine crash words)
        "q1_out_width_from_later_cell": ("name_not_yet_defined",),
        # generic: "raw_score_var is not the variance of the raw scores of the batched example"; torch.var_mean
        # returns (var, mean), unpacked as (mean, var): no key of this catalogue says it (scaled-attention's
        # variance_mean_swapped would)
        "q2_var_mean_unpacked_backwards": ("variance_mean_swapped",),   # now named by variance_mean_swapped (naming30)
        # mis-named: draw_order ("drawn in another order ... Q, then K, then V"): the values match, but the
        # student draws nothing (the notebook's Q, K, V are used) and multiplies by V instead of K, so redrawing
        # fixes nothing; variance_of_other_scores ("other tensors: the question asks for Q @ K^T of the batched
        # example") is the mistake and its fix
        "q2_scores_against_values": ("variance_of_other_scores",),   # now named by variance_of_other_scores (naming30): the source shows V^T in the product
        # generic: "weights3 is not correct in row(s) [0, 1, 2] (recompute the scores, divide by sqrt(d_k) = 2
        # ...)"; the notebook's global d_k = 8 for this example's 4: scale_constant names "the notebook's global
        # d_k = 8 from Question 2" and the input's own width; example_value_reused the example's 8 reused
        "q6_scale_from_stale_d_k": ("scale_constant", "example_value_reused"),   # now named by scale_constant (naming30)
        # generic: "`out3` is not defined ... RuntimeError: Expected size for first two dimensions of batch2
        # tensor"; the batched example V for V3: weights_times_wrong_input is K or Q for V (its fix "weights @ V"
        # is what the student wrote); no key says another example's tensor
        "q6_output_from_batched_V": ("trace_uses_batched_example",),   # now named by trace_uses_batched_example (naming30)
        # generic: "score_madds is not the number of multiply-adds of Q @ K.T (each entry is a dot product of
        # length d_k)"; 67 (in millions) for 67,108,864: no key says a count in another unit (count_in_bytes is
        # bytes for entries, rounded_answer decimals of computed values, size_rounded the sizes)
        # now named by answer_in_other_unit (naming30, engine: 67 = 67,108,864 in millions, rounded)
        "q8_madds_in_millions": ("answer_in_other_unit",),
    },
}

BLIND25_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind25 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # generic: "attention is not answered yet" on the 6 q1 tests and "multi_head_attention is not answered
        # yet" on q8's 3; `^` is XOR, and torch's NotImplementedError ("bitwise_xor_cpu" not implemented for
        # 'Float') is read as a stub's. scale_precedence is `d_k ** 1/2`, another operator; caret_is_xor is
        # sdpa-from-scratch's key, not this catalogue's: no key
        # now named by caret_for_power (naming30, engine: torch's own NotImplementedError is a crash, not a stub)
        "q1_caret_for_power": ("caret_for_power",),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x7 and 10x7)"; F.linear(weights, V) is weights @ V.T:
        # output_uses_weights_transposed is A^T V, mha_weight_transposed the projections in q8: no key
        "q1_value_mix_through_f_linear": (),
        "q1_scores_from_queries_alone": ("keys_are_queries",),   # Q Q^T: the key's very text
        # the out-of-place div dropped leaves the scores unscaled: the key's effect (as blind24's
        # q1_softmax_fed_the_unscaled_product and blind's q5_masked_fill_result_discarded)
        "q1_scale_method_result_discarded": ("no_scale",),
        # generic: "does not match ... in 240 of 240 entries"; n_heads passed as attention's d_k: wrong_scale_constant
        # ("another constant than 1/sqrt(d_k)", as blind14's q1_scale_from_rank_of_k) and mha_d_k_passed_as_sqrt
        # (another value passed as attention's d_k argument, its fix "pass d_k"); mha_scale_by_d_model is d_model
        # one_edit_fix: `d_k` in place of `n_heads` in attention(..., n_heads) (rejudged)
        "q8_head_count_passed_as_head_width": ("wrong_scale_constant", "mha_d_k_passed_as_sqrt", "one_edit_fix"),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x13 and 48x48)"; the end h + 1 * d_k = h + d_k:
        # mha_head_slice_short (heads narrower than d_k) and mha_head_slice_offset (its end h + d_k) both give
        # the bounds h * d_k to (h + 1) * d_k
        # one_edit_fix: `(h + 1) * d_k` in place of `h + 1 * d_k` (rejudged)
        "q8_head_slice_end_without_parentheses": ("mha_head_slice_short", "mha_head_slice_offset", "one_edit_fix"),
        # raw: "mat1 and mat2 shapes cannot be multiplied (5x5 and 3x4)"; the notebook's global V for the local v:
        # no key says a global used for the projected values (mha_no_input_projections runs the heads on X)
        "q8_values_sliced_from_notebook_global": (),
        # raw: "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"; .var(1) on
        # the 1-D dots: no key
        "q2_variance_along_summed_axis": ("one_edit_fix",),   # one_edit_fix: `-1` (or `0`) in place of `1` in .var(1) (rejudged)
        # generic: "returns the same value for two different generators" (misleading: int() makes both 16) and
        # "not within 10%"; int(...) truncates: returns_tensor_not_number is a tensor left, not a number cut: no key
        "q2_variance_truncated_to_int": ("one_edit_fix",),   # now (after blind35: `float(...)` in place of `int(...)`)
        # raw: "size mismatch, got input (1), mat (1x4), vec (5)"; q @ k.T[0], indexing before @: no key (as
        # blind22's q4_table_vector_query_still_indexed)
        # now (after blind51: index_before_matmul (naming round 51))
        "q4_table_query_times_first_key_column": ("index_before_matmul",),
        # generic: "the entropy table ... does not match ... in 16 of 16 entries"; a Generator seeded, never
        # passed: ignores_generator ("not drawing the samples from the generator ... a new torch.Generator")
        # and table_reseeded_per_row (its fix: every row uses torch.manual_seed(seed) itself)
        "q4_table_generator_seeded_but_not_passed": ("ignores_generator", "table_reseeded_per_row"),
        # the float16 1e-9 is 0, so 0 * log 0 stays: the key's symptom and its fix (log_softmax, or an epsilon
        # that is not 0), as blind24's q4_entropy_clamp_result_dropped
        "q4_epsilon_as_float16_tensor": ("entropy_nan_saturated",),
        "q4_entropy_math_log_of_tensor": ("tensor_to_number",),   # the engine key's "math.sqrt, ..." on a tensor
    },
    # judged from `measure attention-pipeline --set blind25 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # raw: "NameError: name 'np' is not defined" on 4 q02 tests; numpy never imported: no key says it
        # now named by module_not_imported (naming30, engine crash words)
        "q02_np_sqrt_without_numpy_import": ("module_not_imported",),
        "q04_tril_diagonal_one_leaks_next_token": ("causal_includes_next",),
        # raw: "TypeError: finfo(): argument 'type' ... must be torch.dtype, not Tensor"; mask_not_dtype_min is
        # about the value blocked (the intended value is right here): no key says finfo was given the tensor
        # now named by finfo_of_tensor (naming30, engine crash words)
        "q04_finfo_of_the_tensor": ("finfo_of_tensor",),
        # generic: "A does not match ... in 30 of 40 entries"; reshape(-1, T_q) makes rows of the query count,
        # not the key count: no key says it (batched_input_unsupported's 2-D reshape is another slip)
        # one_edit_fix: `-1` in place of `-2` in `T_q = S.shape[-2]` (rejudged)
        "q05_rows_viewed_with_query_count": ("one_edit_fix",),
        # mis-named on 1 of 2 tests: global_max_subtraction (NaN in the fully blocked row, fix "each row's own
        # max"); the NaN comes from M.float() turning float64's finfo.min into -inf; the float16 test names
        # dtype_changed (".float() ... never cast back"), the mistake and its fix
        # now named by dtype_changed on both tests (naming30: a second call with the blocked keys at -1e4 is right,
        # which one global maximum is not)
        "q05_mask_made_float_before_adding": ("dtype_changed",),
        # raw: "einsum(): subscript k has size 5 ..."; A @ V^T: output_uses_weights_transposed is A^T V (the
        # other operand), nw_operands_swapped is the kernel smoother's: no key names it here
        # one_edit_fix: `V.transpose(-2, -1)` in place of `V` in the output einsum (rejudged)
        "q07_score_einsum_reused_for_the_mix": ("one_edit_fix", "einsum_letter_on_two_axes"),
        # raw: "ones(): argument 'device' must be torch.device, not torch.dtype"; the mask helper's dtype and
        # device passed in the wrong order: no key says it
        # now named by dtype_for_device (naming30, engine crash words)
        "q07_mask_called_with_device_before_dtype": ("dtype_for_device",),
        "q08_values_matrix_times_kernel": ("nw_operands_swapped",),   # its text: V @ w for w @ V
        # generic: "W_avg has shape (9, 1), expected (9, 9)"; self_attention(...)[0] is O, not A: no key says
        # the wrong element of the pair was taken (results_reordered is about a function's own return order)
        # one_edit_fix: `-1` (or `1`) in place of `0` in `self_attention(...)[0]` (rejudged)
        "q09_lens_built_but_output_taken": ("one_edit_fix",),
        # not caught: float_power returns float64 for float32/float16 weights; the notebook asks for tensors
        # in the inputs' dtype, which dtype_changed says
        "q10_float_power_returns_double": ("dtype_changed",),
        "q13_project_called_with_w_k_first": ("same_projection",),    # K = Y @ W_Q: W_Q used for Q and K
        "q16_answer_confuses_cost_with_parameter_count": ("cost_independent_of_T",),   # choice b
        # generic: "qkv_param_count(...) should be a number ..., got tuple"; no key says both totals returned.
        # Since round 39 shape_for_number: "(38688, 56048), 2 whole numbers where one is asked ... give the one
        # number" (mapped in round 40 from the message, by the session, not by a judge)
        "q12_returns_both_totals_as_a_pair": ("shape_for_number",),
    },
    # judged from `measure sdpa-from-scratch --set blind25 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # (4, 10, 128) is the output's shape and V's: both texts give one weight per (query, key) pair
        "q1_weight_columns_from_value_width": ("weights_as_output", "shape_of_an_input"),
        # generic: "`raw_score_var` is not defined ... TypeError: var() received an invalid combination of
        # arguments"; NumPy's ddof= given to torch.var: no key says it (biased_variance is the divisor itself)
        # now named by numpy_keyword (naming30, engine crash words)
        "q2_numpy_ddof_keyword": ("numpy_keyword",),
        # generic: "neither is the variance of the example's scores (Q @ K.transpose ..."; "bqd,bkd->bq" sums
        # over the keys: no key says it (variance_of_other_scores is other data, judged mis-named for wrong
        # products of the example's own tensors in blind11 / blind18; diagonal_scores_only is (Q * K).sum(-1))
        # one_edit_fix: `'bqd,bkd->bqk'` (or -bkq, -kbq) in place of `'bqd,bkd->bq'` on line 2: the key letter
        # put back (rejudged)
        "q2_einsum_output_drops_key_letter": ("one_edit_fix",),
        # weights_not_normalised on all 20 tests (the dropped div leaves exp without the division by the row sum:
        # the key's effect and fix, as blind's q5_masked_fill_result_discarded); in a first run (grader edited
        # meanwhile) q3's float16 test was generic, "keep what you subtract from the logits exact in float16"
        "q3_division_result_dropped": ("weights_not_normalised",),
        "q3_denominator_as_python_float": ("tensor_to_number",),   # float() of a multi-entry sum: the crash's words
        # generic: "TypeError: ones() takes 1 positional argument but 2 were given"; dtype passed positionally:
        # no key says it (mask_not_bool's fix writes dtype=torch.bool, but its slip is a mask of numbers)
        # now named by dtype_passed_positionally (naming30, engine crash words)
        "q4_dtype_passed_positionally": ("dtype_passed_positionally",),
        # generic: "einsum(): subscript k has size 10 for operand 1 ..."; the score pattern reused for weights @ V
        # is A V^T: weights_transposed is A^T V, keys_not_transposed the scores; no key (as attention-pipeline's
        # blind25 q07_score_einsum_reused_for_the_mix)
        # one_edit_fix: `V.transpose(-2, -1)` in place of `V` in the output einsum (line 10): the score pattern
        # then contracts V's key axis, giving weights @ V: this slip at its place (rejudged)
        "q5_output_einsum_copied_from_scores": ("one_edit_fix", "einsum_letter_on_two_axes"),
        "q5_scale_from_q2_divisor": ("scale_constant",),   # "divides the scores by sqrt(64) both times": the text
        # the all-masked rows' scores set to 0 (finite), never zeroed after: fully_masked_uniform's "averages V
        # instead of returning zeros" (as blind10's q5_finite_fill_no_empty_fix)
        "q5_empty_rows_opened_not_zeroed": ("fully_masked_uniform",),
        # partly: fully_masked_nan on 2 tests (true: the NaN rows are kept; it points at the zeroing line, as
        # blind24's q5_empty_row_zeroing_not_assigned), 11 generic "60 of 60 entries"; no key says the
        # torch.where branches swapped (inverted_mask is the attention mask read as blocked)
        # now (scan after naming round 61: one_edit_fix on the 8 generic tests, true (the swapped torch.where branches among the fixes listed, each checked on all 6 recorded inputs))
        "q5_empty_row_where_branches_swapped": ("fully_masked_nan", "one_edit_fix"),
        "q6_queries_scored_against_queries": ("keys_are_queries",),
        # / 4 ** -0.5 multiplies by sqrt(d_k), as blind23's q2_divided_by_reciprocal_scale
        "q6_divided_by_reciprocal_root": ("multiply_by_sqrt_dk", "reciprocal_scale"),
        "q7_letter_from_position_off_by_one": ("zero_after_softmax", "answer_by_position"),   # D, as blind2's q7_answer_d
        # len() is the first axis, 1024: count_per_query's "T entries ... instead of ... T x T" is the value and fix
        "q8_entries_from_len": ("count_per_query",),
    },
}

BLIND26_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind26 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # permute(0, 1, 2) leaves K untransposed: the crash replayed as Q @ K, with the fix K.transpose(-2, -1)
        "q2_identity_permute_for_transpose": ("keys_not_transposed",),
        # 64 ** (1 // 2) is 64 ** 0 = 1: "scale_divisor of 1 means no scaling at all", as attention-pipeline's
        # blind q02_integer_exponent -> no_scale
        "q2_exponent_floor_division": ("no_scale",),
        # partly: weights_not_normalised on 20 tests ("the right softmax times its own factor": the fix is the
        # denominator, as blind19's q3_divided_by_mean); q3's float16 test generic and misleading ("keep what you
        # subtract from the logits exact in float16"): the shift is right, the 1 + in the denominator is not
        "q3_softmax_plus_one_denominator": ("weights_not_normalised", "one_edit_fix"),
        "q3_helper_called_without_dim": ("softmax_sum_wrong_axis",),   # "or a fixed axis whatever dim is"
        # "tril takes no k=": the crash's words and the fix (check the signature); numpy_keyword as blind25's
        # q2_numpy_ddof_keyword
        "q4_numpy_k_keyword_in_tril": ("unexpected_keyword", "numpy_keyword"),
        "q5_tensorflow_transpose_b_keyword": ("unexpected_keyword",),   # "matmul takes no transpose_b="
        # raw: "TypeError: masked_fill() received an invalid combination of arguments - got (bool, float)" on 15
        # tests; `mask is False` is an identity test, not elementwise: no key says it (bool_mask_arithmetic's fix
        # writes masked_fill(~mask, ...), but its slip is arithmetic on the mask, as blind23's
        # q5_logical_not_not_called was judged)
        # one_edit_fix: `mask == False` in place of `mask is False` (line 9): the fix the mistake names (rejudged)
        "q5_lint_fix_mask_is_false": ("one_edit_fix",),
        # "called with d_k = 6 and then d_k = 11, it divides the scores by sqrt(16) both times ... the scale must
        # change when d_k does": the symptom and fix; nondeterministic's "depends on earlier calls" is the cause
        "q5_scale_cached_on_first_call": ("scale_constant", "nondeterministic"),
        # generic: "the output for 4-D inputs ... has shape (2, 21, 16), expected (2, 3, 7, 16)" on 6 tests;
        # reshape(Q.shape[0], -1, d_v) assumes 3-D inputs: fixed_axes ("assumes a fixed number of dims ... so
        # that batch and head dims pass through"); batch_folded_into_rows is the heads folded into the query rows
        # now (after blind49: axes_flattened, the right values with heads and queries merged by the reshape, said with the axes (the scan at 4b49fd0))
        "q5_flattened_batch_restored_without_heads": ("fixed_axes", "batch_folded_into_rows", "axes_flattened"),
        "q6_numpy_dot_on_matrices": ("dot_of_matrices",),   # "calling torch.dot on matrices ... use @"
        # scores3[: i + 1, i] reads a column: the causal weights are those of K Q^T ("keys as rows instead of
        # queries as rows"), true, and weights3 from the same scores3 passes, so it points at the loop's read
        "q6_causal_loop_reads_a_column": ("scores_transposed",),
        # generic: "weights3 / out3 / weights3_causal not correct in row(s) [0, 1, 2] (... then take the softmax
        # of each row)"; an elementwise sigmoid: no key says it (weights_not_normalised is exp without the row
        # sum; dividing sigmoids by their row sum is not a softmax either)
        # one_edit_fix: `torch.softmax(scores3, dim=-1)` in place of `torch.sigmoid(scores3)` on line 2 (out3),
        # and the same on line 4 (weights3_causal); weights3 stays generic (rejudged)
        "q6_sigmoid_instead_of_softmax": ("one_edit_fix",),
        "q7_answer_tuple_trailing_comma": ("answer_in_container", "answer_in_one_more_container"),
        "q7_agreement_checked_on_one_token": ("zero_after_softmax", "answer_computed_by_code"),   # answers A, as blind21's q7
        # mis-named: callable_not_called ("a function or method object ... add the () that call it"): true that
        # .size is the bound method, but _weights.size() is torch.Size([1024, 1024]), not the count; NumPy's
        # .size for numel() is the slip, and no key says it
        # numpy_size_attribute: "`attn_entries = <tensor>.size` ... the number of entries is `.numel()`": this
        # very slip and its fix (rejudged)
        "q8_numpy_size_attribute": ("numpy_size_attribute",),
    },
    # judged from `measure attention-pipeline --set blind26 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # `-2` in place of `-1` on the sum's line: the d_model axis contracted, this very slip at its place
        "q01_broadcast_product_summed_over_output_axis": ("one_edit_fix",),
        # generic: "S does not match ... in 40 of 40 entries"; softmax of -||q - k||^2 / c is the normalised
        # Gaussian kernel: gaussian_kernel's text and fix (as blind2's q08_gaussian_kernel)
        "q02_scores_as_negative_squared_distance": ("gaussian_kernel",),
        # raw: "TypeError: transpose() takes 2 positional arguments but 3 were given"; NumPy's transpose(0, 2, 1)
        # written for a (batch, seq, d_k) layout: batched_input_unsupported's "one fixed number of dims ... use
        # .transpose(-2, -1)" is the fix (as blind7's q02_permute_three_dims); no key says NumPy's signature
        # one_edit_fix: `K.transpose(-2, -1)` in place of `K.transpose(0, 2, 1)` (rejudged)
        # numpy_transpose_axes: "giving transpose an order of all the axes (NumPy's way): torch's transpose swaps
        # two dims" -- this very mistake, the variant's TypeError from transpose(0, 2, 1) (rejudged)
        "q02_numpy_style_transpose_with_three_axes": ("batched_input_unsupported", "one_edit_fix",
                                                      "numpy_transpose_axes"),
        "q04_bert_keep_mask_times_minus_10000": ("mask_not_dtype_min",),   # -10000, not finfo(dtype).min
        "q05_shift_by_row_minimum": ("softmax_subtracts_min",),
        # mis-named: default_argument_wrong ("wrong when called without causal=True ... its default must be
        # causal=True") on q07's test_causal_properties; self_attention is untouched and its default is True:
        # the clamp at -50 gives the blocked keys e^-50 instead of 0; no key of this catalogue says a clamp
        # of the shifted scores (clamped_logits is sdpa's)
        "q05_shifted_scores_clamped_at_minus_50": ("blocked_weight_not_zero",),  # a key this catalogue gained after blind26
        # partly: batched_input_unsupported on the 4-D test (the key's "one fixed number of dims ... a 2-D
        # reshape drops the batch"), raw "IndexError: tuple index out of range" on the 2-D ones
        "q05_rows_flattened_as_three_dims": ("batched_input_unsupported",),
        # generic: "A does not match ... rows of A do not sum to 1 ... off by a constant factor x0.2887";
        # 1/sqrt(d_k) applied to the weights after the softmax: no key of this catalogue (scale_after_softmax is
        # sdpa's; no_scale's "not scaling the scores at all" is half of it and would not move the division)
        # now named by scale_after_softmax, a key this catalogue gained after blind26 (the weights' rows sum to 1/sqrt(d_k))
        "q07_scale_applied_to_the_weights_after_softmax": ("scale_after_softmax",),
        # `q` in place of `q_rows` on the kernel's line: the wrongly tiled rows replaced by q itself (broadcast),
        # which is what the tiling was meant to give
        "q08_query_tiled_with_repeat_interleave": ("one_edit_fix",),
        "q09_dtype_passed_to_tril": ("unexpected_keyword",),   # "tril takes no dtype=": the crash's own words
        # generic: "H does not match ... in 12 of 14 entries"; the min-entropy -log2(max A): no key
        # (effective_tokens_inverse_simpson is the collision entropy)
        "q10_min_entropy_from_the_largest_weight": ("min_entropy",),  # a key this catalogue gained after blind26
        # generic: "`rank_S_lesson` is not defined ... RuntimeError: This function was deprecated since version 1.9
        # and is now removed"; torch.matrix_rank for torch.linalg.matrix_rank: no key
        "q11_removed_torch_matrix_rank": ("removed_torch_function",),  # a key this catalogue gained after blind26
        # raw: "ValueError: too many values to unpack (expected 2)"; a dict iterated without .values(): no key
        # one_edit_fix: `shapes.values()` in place of `shapes` (rejudged)
        "q12_dict_of_shapes_iterated_without_values": ("one_edit_fix",),
        # K = Y W_Q, V = Y W_K: W_Q used for Q and K (as blind25's q13_project_called_with_w_k_first)
        "q13_projection_tuple_sliced_one_short": ("same_projection",),
    },
    # judged from `measure scaled-attention --set blind26 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # K.transpose(1, 2) on 2-D keys: the key's own example and its fix K.transpose(-2, -1)
        "q1_d2l_batched_key_transpose_on_2d": ("fixed_axes",),
        "q1_tensorflow_transpose_b_keyword": ("unexpected_keyword",),   # "matmul takes no transpose_b="
        # c = 8 where 1/sqrt(d_k) is asked: the key's text (float32_square adds a d_k ** 1/2 aside, as d_k = 16
        # there; an aside, the key is right)
        "q1_class_default_d_k_never_passed": ("wrong_scale_constant",),
        # now (naming round 60: query_rows_left_uncomputed, by replay (the right rows, the last left 0 in both results); its text names range(T_q - 1) and the fix)
        "q1_query_loop_stops_one_short": ("one_edit_fix", "query_rows_left_uncomputed"),   # `T_q` in place of `T_q - 1` on the loop's line
        # raw: "mat1 and mat2 shapes cannot be multiplied (4x60 and 48x48)"; merge_heads takes its rows from
        # the (n_heads, T, d_k) tensor: mha_merge_without_transpose is a merge with no transpose (this one has
        # it), mha_head_width_from_tokens the head width: no key
        # one_edit_fix: in the helper merge_heads, `1` (or `-2`) in place of `0` in `x.shape[0]`, T rows not n_heads
        # (the line's other 0, in transpose(0, 1), is not the one changed: transpose(1, 1) fixes nothing) (rejudged)
        "q8_merge_helper_rows_from_unmerged_shape": ("one_edit_fix",),
        "q8_einsum_projections_linear_layout": ("mha_weight_transposed",),   # X @ W.T: the key's very text
        # the head letter dropped from the score einsum: one full-width attention pattern for every head
        "q8_einsum_scores_summed_over_heads": ("mha_single_head",),
        "q2_keys_from_default_argument_generator": ("ignores_generator",),   # "a new torch.Generator"
        # generic: "returns the same value for two different generators: it should estimate the variance from
        # random samples drawn from the generator" (misleading: dots / dots is all ones, variance 0 for every
        # generator); scaled_flag_inverted and variance_after_scaling are other values: no key
        "q2_conditional_inside_augmented_divide": ("unscaled_variance_zero",),   # generic after naming32; named since naming34
        "q4_entropy_identity_unshifted_exponentials": ("entropy_exp_overflow",),   # exp of the raw logits: NaN
        # raw: "mat1 and mat2 shapes cannot be multiplied (1x4 and 5x4)"; torch.mm(q, k) without k.T:
        # keys_not_transposed's text and fix (as sdpa's blind24 q1_probe_product_without_transpose)
        # one_edit_fix: `k.transpose(-2, -1)` in place of `k` in torch.mm(q, k) (rejudged)
        "q4_table_mm_without_transpose": ("keys_not_transposed", "one_edit_fix"),
        # generic: "does not match ... in 8 of 16 entries ... all lie at index 0, 1 of the last axis" (the std
        # columns); stds of the softmax probabilities: no key (table_variance_as_std is .var())
        "q4_table_stds_of_probabilities": ("table_stds_of_weights",),  # a key this catalogue gained after blind26
        # raw: "EncodeError: a value of type generator cannot cross the sandbox boundary"; a generator function
        # for the list: table_dict_of_lists and table_keyed_by_d are other containers: no key
        "q4_table_yields_rows": ("generator_returned",),   # generator_returned: the yield for the list, its text (rejudged)
        # generic: "`q6_answer` is not defined ... NameError: name 'A' is not defined (line 1)" (a clear
        # message); answer_option_text is the option's text for its letter: no key for a letter left unquoted
        "q6_letter_without_quotes": ("answer_letter_unquoted",),   # answer_letter_unquoted: `= A` bare, its text (rejudged)
    },
}

BLIND27_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind27 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # one_edit_fix: `-1` (or `1`) in place of `2` in nn.Softmax(dim=2), the slip at its place; fixed_axes'
        # "assumes a fixed number of dims ... use negative axes" is this batched dim=2 and its fix (as blind26's
        # q1_d2l_batched_key_transpose_on_2d)
        "q1_softmax_module_dim2_from_batched_code": ("one_edit_fix", "fixed_axes"),
        # mis-named on 2 of 5 tests: wrong_scale_constant (c = 2 where 1/sqrt(d_k) is asked) is right on 3, but
        # float64_output says scale_by_T and broadcast_inputs scale_by_d_v: the code uses neither a sequence
        # length nor d_v, its constant 0.5 equals 1/sqrt(T) and 1/sqrt(d_v) there by accident (as blind8's
        # q5_uses_the_notebook_d_k)
        "q1_scale_hardcoded_one_half": ("wrong_scale_constant",),
        # c = the scores' own std: "softmax(Q K^T / c) with a different c" and its fix 1/sqrt(d_k), though it
        # does not say the c is data-dependent (as blind14's q1_scale_from_rank_of_k)
        "q1_scores_standardised_by_their_std": ("wrong_scale_constant",),
        # one_edit_fix: `W_K` in place of `W_K.T`; mha_weight_transposed's X @ W.T is this, on one projection
        "q8_key_projection_transposed": ("one_edit_fix", "mha_weight_transposed"),
        # one_edit_fix: the operands swapped (Kh, Qh) in the same "ihd,jhd->hji" einsum, which makes its output
        # (head, query, key): the slip at its place, by another edit than the letters hji -> hij; the scores are
        # K_h Q_h^T per head, scores_transposed's text
        "q8_einsum_scores_output_letters_swapped": ("one_edit_fix", "scores_transposed"),
        "q8_own_softmax_over_whole_head": ("softmax_whole_matrix",),   # sum over dims (1, 2): the key's text
        # mis-named: dtype_mix ("a tensor made without dtype= ... meets the input's") on the 2 float64 tests, the
        # float32 one generic ("does not match ... in 192 of 192 entries"): the dtype clash is a side effect; cast
        # to float64 the random nn.Linear weights are still not W_Q, W_K, W_V. mha_no_input_projections' "never
        # applying the projections W_Q, W_K, W_V" is the mistake and its fix (its "on X itself" is not)
        # after blind27: mha_new_layers, a key gained for it (new nn.Linear layers whose weights are never set)
        "q8_fresh_linear_layers_for_projections": ("mha_no_input_projections", "mha_new_layers"),
        # generic: "does not match the correct result in 240 of 240 entries"; V = X: mha_no_input_projections'
        # "running the heads on X itself, never applying ... W_V" (here for V alone, Q and K projected)
        "q8_values_are_raw_tokens": ("mha_no_input_projections",),
        "q2_numpy_ddof_keyword": ("numpy_keyword",),   # var(ddof=1): the engine key's very text and fix
        # generic: "is NaN ... taken of a single number ... not one number (torch.dot of flattened draws, or a
        # sum without dim)" (a clear message, tensordot not named); no key says the dots are one number (as
        # blind19's q2_sum_without_dim before its one_edit_fix)
        "q2_tensordot_default_dims": (),
        # generic: "the variance of q.k is not within 10% of its expected value"; |q - k|^2 for q.k: gaussian_kernel
        # is q1's weights from a kernel, not q2's dots (as blind14's q2_cosine_instead_of_dot against cosine_scores)
        # now (after blind50: dots_squared_distance, by replay (naming round 50))
        "q2_squared_distance_as_similarity": ("dots_squared_distance",),
        "q4_entropy_identity_plus_expected_logit": ("one_edit_fix",),   # `- (p * logits).sum` for `+`: at its place
        # raw: "a Tensor with 5 elements cannot be converted to Scalar"; unsqueeze(-1) makes five length-1 rows:
        # entropy_item's fix (return the tensor) is softmax_entropy's, not the table's: no key
        "q4_table_scores_unsqueezed_on_last_axis": (),
        # generic: "the entropy table ... does not match ... in 16 of 16 entries"; q = k[:1] after drawing k:
        # keys_drawn_first ("the first numbers go to q = torch.randn(1, d), then k = torch.randn(5, d)") and
        # table_one_draw (q sliced from a draw instead of its own; "draw q, then k") both give the fix
        "q4_table_query_is_first_key": ("keys_drawn_first", "table_one_draw"),
        # generic: "q5_answer should be one letter as a string"; "CD" hedges C with D, whose belief
        # variance_d_k_squared names and refutes (as attention-pipeline's blind22 q06_two_letters)
        # now (after blind46, engine, by me from its message: "CD" told as two letters run together, the hedge itself)
        "q5_answer_two_letters_hedged": ("variance_d_k_squared", "answer_hedged"),
    },
    # judged from `measure attention-pipeline --set blind27 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # generic: "S does not match the correct result in 40 of 40 entries" on 4 q02 tests; cosine scores:
        # nw_cosine_kernel's "normalising the dot products into cosine similarities ... on the raw dot product,
        # whose size matters" is this slip and its fix (as blind13's q08_cosine_similarity_kernel), in q02
        "q02_cosine_scores_then_scaled": ("nw_cosine_kernel",),
        # raw: "TypeError: finfo() missing 1 required positional arguments: \"type\"" on 3 q04 tests; finfo's
        # argument given as dtype=: mask_not_dtype_min is the value blocked (right here), dtype_passed_positionally
        # the other way round; no key says finfo's parameter is `type`
        "q04_finfo_called_with_dtype_keyword": ("finfo_keyword",),  # a key the engine gained after blind27
        "q04_row_loop_starts_at_one": ("one_edit_fix",),   # `0` in place of `1` in `range(1, T)`: the slip at its place
        # generic: "the mask blocks the wrong entries: exactly the keys after each query ... should be blocked, and
        # every other entry 0"; fill_ on the boolean pattern returns it all True, cast to 1: mask_not_additive
        # ("the 0/1 (or True/False) pattern ... blocked entries must hold torch.finfo(dtype).min and every other
        # entry 0") is the returned bool tensor and the fix (masked_fill on zeros of dtype)
        "q04_boolean_mask_filled_whole": ("mask_not_additive",),
        # generic: "A does not match the correct result in 30 of 40 entries" on 4 q05 tests; exp2 without
        # log2(e): no key of this catalogue (softmax_base_2 is scaled-attention's; scores_scaled_twice is a second
        # division by a length's root, whose fix is not this one)
        "q05_softmax_with_exp2": ("softmax_base_2",),  # a key this catalogue gained after blind27
        # raw: "TypeError: Softmax.__init__() got multiple values for argument 'dim'" on 5 q05 tests; the scores
        # passed to the module's constructor: no key (size_as_dim is a size given for dim)
        "q05_softmax_module_called_on_scores": ("softmax_module_given_input",),  # a key the engine gained after blind27
        # raw: "RuntimeError: shape '[10, 7]' is invalid for input of size 50" on 4 q07 tests and q09; the heads
        # merged back to d_model instead of d_v: no key of this catalogue says the output width
        # now (after blind51: heads_merged_to_model_width (naming round 51))
        "q07_heads_merged_back_to_model_width": ("heads_merged_to_model_width",),
        # `1` in place of `2` in the signature's n_head=2: one head, the fix of this very slip
        "q07_two_heads_weights_averaged": ("one_edit_fix",),
        # raw: "RuntimeError: stack expects each tensor to be equal size, but got [9, 12] ... and [9, 5]" on 3 q01
        # tests; W_Q, W_K, W_V stacked: qkv_stacked stacks the outputs, but its "stacking needs equal widths, and
        # d_v need not equal d_k" is this crash and its fix (do not stack)
        "q01_weights_stacked_into_one_batch": ("qkv_stacked",),   # now named by qkv_stacked (naming31)
        # partly: nw_wrong_denominator on test_nw_views ("another statistic of the kernel weights ... instead of
        # their sum": the last weight, and the fix), generic "does not match ... in 5 of 5 entries" on 2 tests
        "q08_loop_denominator_overwritten": ("nw_wrong_denominator",),
        "q10_zero_logs_compared_not_assigned": ("zero_log_zero_nan",),   # the NaN it leaves, and the fix
        # partly: entropy_normalised_by_log_keys on test_entropy_causal_rows ("a change of base that follows the
        # row length ... asks for bits, -sum p log2 p": len(A) is T there), generic "15 of 18 entries" on views
        "q10_log_helper_base_from_len": ("entropy_normalised_by_log_keys",),
        # L @ D^-1 divides column j by j + 1: prefix_average_wrong_axis ("dividing by the column index instead of
        # the row's length") is the effect and the fix (scale the rows)
        "q09_diagonal_scaling_on_the_right": ("prefix_average_wrong_axis",),
        "q03_shift_checked_for_scale": ("softmax_scale_invariant", "answer_computed_by_code"),   # answers c
        "q14_shapes_looked_up_from_values": ("cross_output_from_keys",),   # answers d: O with one row per token of Y
    },
    # judged from `measure sdpa-from-scratch --set blind27 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # weights_shape (4, 10): "leaving an axis out of the shape ... one weight per (query, key) pair,
        # (batch, T_q, T_k)": the slip and its fix (as blind's q1_output_pooled_over_queries)
        "q1_one_weight_per_token": ("shape_axis_dropped",),
        # generic: "your code raised TypeError: maximum() missing 1 required positional arguments: \"other\"" on
        # q3, q5, q6; torch.maximum (elementwise, two tensors) used as a reduction: no key says it
        # (reduction_tuple_as_tensor is torch.max's (values, indices) pair, reduction_dim_missing a missing dim)
        "q3_elementwise_maximum_as_reduction": ("maximum_for_max",),  # a key the engine gained after blind27
        # mis-named: global_max_subtraction on 2 float16 tests ("subtracting one maximum over the whole tensor
        # instead of each row's own"), generic NaN messages on 10 (q3 -inf entries, q5 masked outputs); the shift
        # is each row's own first logit, not a maximum at all (as blind5's q3_shift_by_largest_magnitude was
        # judged): no_max_subtraction ("without max-subtraction, which overflows in float16") would be right
        "q3_shift_by_first_logit": ("no_max_subtraction", "softmax_shift_by_first_entry"),  # the second a key gained after blind27
        "q4_numpy_astype_on_tensor": ("numpy_method",),   # "torch's .astype(t) is .to(t)": the crash and its fix
        "q4_d2l_valid_lens_from_zero": ("causal_excludes_self",),   # the diagonal hidden: the key's very text
        # one_edit_fix: `K.transpose(-2, -1)` in place of `K.transpose()` (line 4): this slip at its place;
        # fixed_axes (K.T "reverses every axis"; "use K.transpose(-2, -1)") would say it too
        "q5_numpy_transpose_without_axes": ("one_edit_fix", "fixed_axes"),
        # generic: "the output with mask=None contains NaN or inf in 10 of 210 entries" / "does not match the
        # correct result in 60 of 60 entries" on 13 q5 tests; cosine-similarity scores for Q K^T / sqrt(d_k): no
        # key of this catalogue (gaussian_kernel is a distance kernel, no_scale keeps the dot products)
        "q5_cosine_similarity_instead_of_scale": (),
        # / d_k ** -0.5 multiplies by sqrt(d_k), as blind25's q6_divided_by_reciprocal_root
        "q5_divided_by_negative_power_scale": ("multiply_by_sqrt_dk", "reciprocal_scale"),
        "q5_scores_read_through_data": ("gradient_cut",),   # ".data ... no gradient flows back": the key's text
        "q6_log_softmax_weights": ("log_softmax",),   # the log-probabilities for the weights: the key's text
        # single_key_rows_zeroed: "zeroing ... every query with a single allowed key ... a query with one allowed
        # key gets its value": query 0 (one visible key) left at zeros, the student's "nothing to normalise";
        # its count-test cause is not this loop, but the row it points at and the fix (weight 1) are
        "q6_causal_loop_skips_first_query": ("single_key_rows_zeroed",),
        # generic: "`q_trap_answer` is not defined in your notebook (or is None): run every cell, keep the given
        # names"; true, but the harness's message: no key says a misspelled name (as blind8's q5_answer)
        "q7_answer_name_misspelled": ("answer_name_misspelled",),   # now (after blind31: one near name bound)
        "q7_checked_with_zero_values": ("zero_after_softmax", "answer_computed_by_code"),   # answers A, as blind21's q7
        # mis-named: count_in_bytes ("attn_entries is 4194304, the entries times 4 (the bytes of float32)"); the
        # student counts the entries at the doubled T = 2048, not bytes; no key says a count taken after T
        # was changed (as blind21's q8_entries_counts_scores_and_weights)
        # after blind27: count_times_four, a key whose text gives both readings of 4 T^2 (T doubled, or bytes)
        "q8_entries_after_T_doubled": ("count_times_four",),
        # generic: "cost_ratio is not right: how does T * T change when T doubles?"; 64 = madds per entry (d_k):
        # no key says the ratio read as madds / entries (cost_ratio_eight, _inverted, _as_increase are others)
        "q8_ratio_of_madds_to_entries": (),
    },
}

BLIND28_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure scaled-attention --set blind28 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        "q1_temperature_class_given_d_k": ("divide_by_dk",),   # temperature=d_k: the key's very text
        "q1_cosine_similarity_scores": ("cosine_scores",),     # F.normalize'd q and k: the key's very text
        # generic: "the weight matrix does not match the correct result in 35 of 35 entries"; additive
        # (Bahdanau) scores, sum of tanh(q + k): no key (gaussian_kernel is another non-dot score)
        "q1_additive_tanh_scores": ("additive_scores",),   # now named by additive_scores (naming31)
        "q1_numpy_dot_method_on_matrices": ("dot_of_matrices",),   # "calling torch.dot (or .dot) on matrices"
        # generic: "does not match the correct result in 240 of 240 entries"; the fused projection reshaped
        # (T, n_heads, 3, d_k) for (T, 3, n_heads, d_k): no key (same_projection and mha_strided_heads are other
        # cuts; no key of this catalogue says a fused QKV)
        "q8_fused_qkv_heads_axis_before_three": ("mha_fused_qkv_split_order",),   # now named by mha_fused_qkv_split_order (naming31)
        "q8_concat_averaged_over_heads": ("mha_output_divided_by_heads",),   # / n_heads: the key's very text
        # the scale written on the line after the softmax, to scores no longer used: no_scale is the effect
        # (as blind24's q1_softmax_fed_the_unscaled_product), scale_after_softmax the slip and its fix
        "q8_scale_line_after_softmax_line": ("no_scale", "scale_after_softmax"),
        # raw: "TypeError: transpose() takes 2 positional arguments but 3 were given"; NumPy's transpose(1, 0, 2)
        # on a torch tensor: no key says NumPy's signature (mha_split_without_transpose's fix .transpose(0, 1)
        # is the fix, but its text is a split with no transpose at all, not this)
        # now named by numpy_transpose_axes (crash words, after blind28; the one-edit fix permute(1, 0, 2) also right)
        "q8_numpy_transpose_axes_tuple": ("numpy_transpose_axes", "one_edit_fix"),
        # raw: "AttributeError: 'torch._C.Generator' object has no attribute 'standard_normal'"; numpy's
        # Generator method on a torch.Generator: no key (ignores_generator is not using the generator,
        # generator_positional passing it positionally; neither is this call)
        # now named by numpy_generator_method (crash words, after blind28)
        "q2_numpy_rng_method_on_torch_generator": ("numpy_generator_method",),
        # torch.distributions' sample() on the global RNG: ignores_generator's "the global RNG ... used instead"
        "q2_distributions_normal_without_generator": ("ignores_generator",),
        # generic: "returns the same value for two different generators: it should estimate the variance from
        # random samples drawn from the generator" (misleading: scaled=False multiplies the dots by 0, variance 0
        # for every generator); scaled_flag_inverted and scaled_flag_ignored are other values: no key (as
        # blind27's q2_conditional_inside_augmented_divide)
        "q2_flag_multiplies_scale_factor": ("scaled_flag_as_factor",),   # now named by scaled_flag_as_factor (naming31)
        # generic: "softmax_entropy(logits) does not match the correct result in 6 of 6 entries"; the collision
        # (Renyi-2) entropy -ln sum p^2: no key of this catalogue
        "q4_entropy_collision_renyi2": ("entropy_collision",),   # now named by entropy_collision (naming31)
        "q4_table_item_without_call": ("callable_not_called",),   # "returned `item` itself ... write `item()`"
        "q6_answer_row_it_leans_towards": ("attention_as_argmax",),   # C, the one best-matching row
    },
    # judged from `measure sdpa-from-scratch --set blind28 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # (4, 10, 64) is Q's and K's shape: the weights sized by the feature width instead of T_k
        "q1_helper_key_count_from_feature_axis": ("shape_of_an_input", "weights_sized_by_features"),
        # generic: "scaled_score_var is not the variance of the scaled scores"; d_k = Q.dim() (3) reads no axis,
        # but scale_by_batch_dim's fix (divide by sqrt(Q.shape[-1])) is the student's line, as blind20's
        # scaled-attention q1_scale_from_rank_of_k; this catalogue has no key for dim() / ndim
        "q2_head_width_from_tensor_rank": ("scale_by_batch_dim", "scale_from_ndim"),   # now named by scale_from_ndim (naming31)
        # generic: "neither is the variance of the example's scores ... the scores measured are other ones";
        # the scores are the example's (the closing words are wrong), the formula is not: mean of squares (no
        # mean subtracted, / n); biased_variance's "torch's default .var() is unbiased" gives the fix, .var()
        "q2_mean_square_as_variance": ("biased_variance", "variance_as_mean_square"),   # now named by variance_as_mean_square (naming31)
        # the default dim=1 is the query axis of 3-D scores: as blind18's q5_softmax_dim_1
        "q3_default_dim_one": ("softmax_wrong_dim", "softmax_over_batch_axis"),
        "q3_amax_values_attribute": ("method_not_called",),   # its text: "`.values` of a plain tensor ... drop the .values"
        # generic: q4 "your code raised AttributeError: module 'torch' has no attribute 'tri'", q6 "`weights3_causal`
        # is not defined"; no key says a NumPy function (np.tri) looked up in torch
        # now named by numpy_function_in_torch (crash words, after blind28)
        "q4_numpy_tri_looked_up_in_torch": ("numpy_function_in_torch",),
        # permute(-1, -2) fits 2-D keys only: fixed_axes's text and fix, K.transpose(-2, -1)
        "q5_permute_given_two_axes": ("fixed_axes",),
        "q5_einsum_scores_keys_first": ("scores_transposed",),
        "q5_residual_added_to_output": ("one_edit_fix",),   # one_edit_fix: `out` in place of `out + Q`
        "q5_scores_recast_with_torch_tensor": ("gradient_cut",),   # its text names torch.tensor(...) of a result
        "q6_causal_slice_starts_at_the_query": ("causal_excludes_self",),
        "q7_answer_a_from_renormalised_check": ("zero_after_softmax", "answer_computed_by_code"),
        # mis-named: causal_triangle_count ("523776, the count of the causal triangle only ... T (T + 1) / 2")
        # on both tests; 523776 is comb(1024, 2) = T (T - 1) / 2, not the key's T (T + 1) / 2, and the belief
        # is unordered pairs of distinct tokens, not a mask that removes entries: count_halved_symmetric (each
        # pair counted once) and self_pairs_left_out (no self pairs) each say half of it and give T x T
        # now named by distinct_pairs_counted_once (naming31)
        "q8_entries_counted_as_handshakes": ("count_halved_symmetric", "self_pairs_left_out",
                                             "distinct_pairs_counted_once"),
        # generic: "score_madds is not the number of multiply-adds of Q @ K.T (each entry is a dot product of
        # length d_k)"; no key says the whole model's width (n_heads * d_k = 512) for one head's d_k
        "q8_madds_for_all_heads": ("madds_all_heads_width",),   # now named by madds_all_heads_width (naming31)
    },
    # judged from `measure attention-pipeline --set blind28 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # mis-named: results_reordered on 3 q01 tests ("Q is wrong: it matches returning the results in the wrong
        # order"); the return order (Q, K, V) is right: the late-bound lambdas make Q = K = V = X @ W_V (Q equals
        # the right V, hence the match). same_projection ("one projection matrix for more than one of Q, K, V")
        # is this effect and points at the projections
        "q01_lambdas_capture_last_weight": ("same_projection",),   # now named by same_projection (naming31)
        "q02_scores_squashed_with_tanh": ("one_edit_fix",),   # `raw` in place of `torch.tanh(raw)`: the slip at its place
        # raw: "TypeError: must be real number, not torch.Size" on 4 q02 tests; Q.shape[-1:] for Q.shape[-1]:
        # scale_wrong_axis's "d_k is Q.shape[-1]" is the fix on the right line (it says an axis, not a slice);
        # size_not_int, the exact kind, is another catalogue's key
        # now named by size_not_int (an engine key after blind28, sdpa's text)
        "q02_head_size_sliced_as_a_size": ("scale_wrong_axis", "size_not_int"),
        # "triu takes no k=: ... check its signature": the crash and its fix (as blind26's q4_numpy_k_keyword_in_tril)
        "q04_numpy_k_keyword_for_triu": ("unexpected_keyword",),
        "q05_mask_added_in_place_to_callers_scores": ("inplace_on_input",),   # S += M on the caller's S
        "q05_sigmoid_instead_of_softmax": ("sigmoid_not_normalised",),   # the key's very text
        # raw: "RuntimeError: value cannot be converted to type c10::Half without overflow" on the float16 q05
        # test; masked_fill(M != 0, -1e6) for S + M: additive_mask_as_boolean and mask_filled_with_inf say the
        # mask turned boolean and the fix (add it), neg_1e9_float16 the float16 overflow (as blind18's -1e6 fill)
        # now named by additive_mask_as_boolean (naming31)
        "q05_d2l_fill_value_from_additive_mask": ("additive_mask_as_boolean", "mask_filled_with_inf",
                                                  "neg_1e9_float16"),
        # one_edit_fix: `masked` in place of `torch.softmax(masked, dim=-1)` (line 6), the second softmax left
        # out; normalised_twice / softmax_applied_twice say the same mistake in words
        "q07_softmax_applied_again_to_weights": ("one_edit_fix", "normalised_twice", "softmax_applied_twice"),
        # exp(q . k) / sqrt(d_k): the constant cancels, the kernel is unscaled (as blind7's q08_scale_outside_exp);
        # scale_after_softmax ("instead of to the scores inside it") would say where the scale belongs
        "q08_scale_divides_the_exponential": ("no_scale", "scale_after_softmax"),
        "q10_pow_arguments_swapped": ("effective_tokens_power_reversed",),   # H ** 2 for 2 ** H: the key's text
        # raw: "TypeError: log() takes 1 positional argument but 2 were given" on 2 q10 tests; torch.log(A, 2) as
        # math.log with a base: no key says torch.log takes no base (entropy_in_nats is a working natural log)
        # now named by log_given_base (crash words, after blind28)
        "q10_torch_log_given_a_base": ("log_given_base",),
        "q13_mask_argument_never_passed_on": ("mask_ignored",),   # M accepted, never passed on
        "q14_answer_scores_kept_square": ("cross_is_self_attention",),   # answers a, as blind2's q14_answer_square_scores
        "q15_answer_never_from_default": ("causal_needs_square",),   # answers b: the key's very text
    },
}

BLIND29_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure sdpa-from-scratch --set blind29 -v`: () where no key of the catalogue names it
    "sdpa-from-scratch": {
        # generic: "weights_shape is not the shape of the attention-weight matrix: it has one entry per (query,
        # key) pair"; (10, 4, 4) from reading (4, 10, 64) sequence-first (nn.MultiheadAttention's (L, N, E)):
        # not a reordering of (4, 10, 10) (shape_dims_swapped), no key says the layout misread
        # now named by sequence_first_layout (naming32)
        "q1_sequence_first_layout_weights": ("sequence_first_layout",),
        # "scaled_score_var is the raw variance: the scores were not scaled": the scaled scores are computed but
        # the variance reads raw_scores, so no scaled scores are measured (as blind14's q5_d_k_computed_never_used)
        "q2_scaled_variance_reads_raw_name": ("no_scale",),
        # amax(...)[0] shifts every row by the first row's (first batch entry's) maxima: "one maximum ... instead
        # of each row's own" is the effect and its fix (the shift shared across rows, not over the whole tensor)
        "q3_amax_result_indexed_with_zero": ("global_max_subtraction",),
        # generic: "gave inf or NaN: subtract each slice's max before exp, and keep every step in float16's
        # range"; exp in float64 with no shift overflows past 709: no_max_subtraction's text
        # now named by no_max_subtraction (naming32)
        "q3_float64_exponentials_without_shift": ("no_max_subtraction",),
        # one_edit_fix: `max(T_q, T_k)` in place of `min(T_q, T_k)` (line 5) -- or -- `T_q` for `T_k`: the
        # triangle made big enough that no query row is padded as blocked: this slip at its place
        "q4_triangle_padded_with_false": ("one_edit_fix",),
        # generic: "your code raised TypeError: ones(): argument 'dtype' must be torch.dtype, not str" (q4), and
        # q6's "`weights3_causal` is not defined"; NumPy's dtype string: no key (mask_not_bool's slip is a mask
        # of numbers, as blind25's q4_dtype_passed_positionally)
        # now named by dtype_as_string (crash words, after blind29)
        "q4_dtype_given_as_string": ("dtype_as_string",),
        # no_scale on the 12 masked tests (the unmasked one passes): the masked path fills the unscaled qk, so
        # every masked output is unscaled, the key's effect; its fix (scale the scores that reach the softmax)
        # leads to this line (as blind13's q6_causal_scores_unscaled)
        "q5_masked_path_fills_unscaled_product": ("no_scale",),
        "q5_softmax_called_with_axis_keyword": ("numpy_keyword",),   # axis= for dim=: the crash's words and fix
        # "'torch.Size' object is not callable" with size_not_int's "index the shape, Q.shape[-1]": the fix
        "q5_head_width_from_shape_call": ("size_not_int",),
        # generic: "does not match the correct result in 60 of 60 entries" / NaN on 13 q5 tests; scores divided
        # by their own measured std: no key of this catalogue says a scale measured from the scores' spread
        # now named by scores_divided_by_own_std (naming32)
        "q5_scores_divided_by_their_own_std": ("scores_divided_by_own_std",),
        # K3.t without the call: "unsupported operand type(s) for @: 'Tensor' and 'builtin_function_or_method'"
        # (as blind23's q5_logical_not_not_called)
        "q6_transpose_method_not_called": ("method_not_called", "callable_not_called"),
        # / sqrt(4) twice is / 4 = / d_k: the key's effect (as blind5's scaled-attention q1_scaled_twice)
        "q6_scores_scaled_again_in_softmax": ("divide_by_dk",),
        # A (zeroing after the softmax): the key's text is the belief the check confirms (as blind28's q7)
        "q7_check_reference_also_zeroed": ("zero_after_softmax", "answer_computed_by_code"),
        # mis-named on 2 of 3 tests: score_madds says madds_features_squared ("T d_k^2 ... the head width
        # squared"), cost_ratio says cost_linear_in_T ("a cost linear in T"); the helper's formula T * T * d_k is
        # right and quadratic: the call passes (T, d_k) to a (d_k, T) helper, so the numbers swap roles and
        # "doubling T" doubles d_k. Both keys point at the formula. attn_entries' one_edit_fix
        # (`attention_cost(64, 1024)` in place of `attention_cost(1024, 64)`) is the right fix
        "q8_helper_arguments_swapped": ("one_edit_fix",),
    },
    # judged from `measure attention-pipeline --set blind29 -v`: () where no key of the catalogue names it
    "attention-pipeline": {
        # K.t() refuses 3-D/4-D keys: the key's "works only for 2-D inputs ... use .transpose(-2, -1) or .mT"
        "q02_keys_transposed_with_t_method": ("batched_input_unsupported",),
        # generic: "S does not match the correct result in 40 of 40 entries (largest difference 0.852 ...)" on 4
        # q02 tests; raw / raw.std(): no key of this catalogue says a scale measured from the scores' own spread
        # (wrong_scale_constant is another catalogue's; layer_norm_before_projection standardises X, not S)
        # now named by scores_divided_by_own_std (naming32)
        "q02_scores_divided_by_their_own_std": ("scores_divided_by_own_std",),
        # raw: "TypeError: ~ (operator.invert) is only implemented on integer and Boolean-type tensors" on 3 q04
        # tests; ~ on a float tril meant as masked_fill's mask: fill_mask_not_bool's "a pattern of numbers ...
        # as the mask of masked_fill ... build the pattern with dtype=torch.bool" is this slip and its fix
        # now named by invert_of_float_mask (crash words, after blind29: ~ on a 0/1 tril, build it with dtype=torch.bool)
        "q04_bitwise_not_of_float_tril": ("fill_mask_not_bool", "invert_of_float_mask"),
        # softmax(..., dtype=torch.float32) never cast back: both keys' texts (as blind17's upcast not cast back)
        "q05_softmax_dtype_float32_without_cast_back": ("float32_precision", "dtype_changed"),
        # partly: weights_not_normalised on 2 q05 tests ("rows sum to 0.262 .. 1.04, and each row divided by its
        # own sum is right"): the fix is the denominator, as blind7's sdpa q3_unshifted_denominator; the float16,
        # non-contiguous and large-float32 q05 tests generic ("does not match ... in 17 of 256 entries")
        # now named by weights_not_normalised on all 5 q05 tests, replayed in the input's dtype (naming32)
        "q05_denominator_from_unshifted_exponentials": ("weights_not_normalised",),
        # Q / sqrt(d_k) then scaled_scores' / sqrt(d_k) is S / d_k: the key's text (as blind's q1_scaled_twice)
        "q07_queries_prescaled_then_helper_scales_again": ("divide_by_dk",),
        # multi_dot takes 1-D/2-D matrices only: the key's "code that works only for 2-D inputs"
        "q01_multi_dot_two_dims_only": ("batched_input_unsupported",),
        # raw: "RuntimeError: batch1 must be a 3D tensor" on 3 q08 tests; torch.bmm on the (T, 1) weights:
        # batched_input_unsupported's "(or one fixed number of dims) ... torch.bmm fit one layout" (as blind20's
        # q07_bmm_for_the_output); the fix, w @ V, follows
        # now named by bmm_of_matrices (crash words, after blind29)
        "q08_d2l_bmm_on_two_dim_weights": ("batched_input_unsupported", "bmm_of_matrices"),
        "q09_normalised_by_the_untriangled_ones": ("prefix_average_divide_by_T",),   # every row / T: the key's text
        "q10_zeros_overwritten_in_callers_weights": ("inplace_on_input",),   # A[A == 0] = 1 on the caller's A
        "q12_shape_sides_added_not_multiplied": ("param_count_widths_arithmetic",),   # "or adding them"
        "q13_class_scales_by_number_of_keys": ("scale_by_T",),   # sqrt(T'): "the number of keys"
        "q06_answer_no_gradient_with_reason": ("mask_blocks_gradient",),   # answers d: the key's very text
        "q15_answer_equal_lengths_from_dict": ("causal_needs_square", "answer_computed_by_code"),   # answers c: the key's very text
    },
    # judged from `measure scaled-attention --set blind29 -v`: () where no key of the catalogue names it
    "scaled-attention": {
        # one_edit_fix: leave out line 4 (the masked_fill with the 3 x 3 default mask): q1's signature has no
        # mask, so dropping the fill of the fixed-size default is a fix at the failing place
        "q1_default_mask_sized_for_trace": ("one_edit_fix",),
        "q1_softmax_module_given_the_scores": ("softmax_module_given_input",),   # nn.Softmax(S, dim=-1): its text
        # raw: "mat1 and mat2 shapes cannot be multiplied (12x5 and 7x12)"; Q^T K (the transpose on Q, K left
        # as is): keys_not_transposed ("Q @ K without transposing K: the scores are Q K^T, of shape (T_q, T_k)")
        # says K is untransposed and gives the fix
        "q1_scores_as_q_transpose_times_k": ("keys_not_transposed",),   # now named by keys_not_transposed (naming32)
        "q1_own_position_masked_out": ("one_edit_fix",),   # leave out line 6, the diagonal masked_fill
        "q8_softmax_over_the_head_axis": ("mha_softmax_over_heads",),   # dim=0 of (n_heads, T, T): its text
        # mis-named: tensor_to_number ("turning a tensor of several values into one Python number: math.sqrt,
        # math.exp, math.log, math.pow, float() and int() take one number; on a tensor use torch.sqrt ...") on
        # 3 q8 tests; the crash is torch.tensor(list of head outputs), none of the functions it lists, and its
        # fix (torch.sqrt, **) is not the student's (torch.stack / torch.cat); no key of the catalogue says it
        # now named by tensor_of_tensors (crash words with the line, after blind29: torch.stack or torch.cat)
        "q8_head_outputs_merged_by_torch_tensor": ("tensor_of_tensors",),
        # generic: "multi_head_attention(...) does not match the correct result in 240 of 240 entries"; W_O
        # folded into V before the split: mha_no_output_projection ("the output projection W_O after
        # concatenating the heads") is the missing step and where W_O belongs
        "q8_output_projection_folded_into_values": ("mha_no_output_projection", "mha_output_projection_in_values"),   # now named by mha_output_projection_in_values (naming32)
        # raw: "The size of tensor a (5) must match the size of tensor b (48)"; concat * W_O for concat @ W_O:
        # no key of this catalogue says * for @ (mha_output_projection_left is W_O @ concat; elementwise_product
        # is attention-pipeline's)
        "q8_output_projection_elementwise": ("elementwise_product",),   # now named by elementwise_product (naming32)
        "q2_generator_seed_method_called": ("ignores_generator",),   # the key's "or the generator re-seeded inside"
        # generic: "for d_k = 12 the variance of q.k is not within 10% of its expected value"; one (n, d_k) draw
        # chunked along the features, d_k/2 each: draw_split_along_samples's text (a (n, 2 d_k) draw split along
        # the samples "instead of along the features") tells the student to do what they did (as blind23's
        # q2_pair_draw_unbound_on_last_axis); no key
        # now (after blind34): one_edit_fix splits the draw along the samples (`-2` or `0` for `-1` in chunk): each
        # pair then has d_k coordinates, the stated mistake mended at its place (the tests rerun with it pass)
        "q2_pair_cut_from_one_d_k_draw": ("one_edit_fix",),
        "q2_numpy_var_with_ddof_on_tensor": ("numpy_keyword",),   # var(ddof=1): its text and fix (correction=1)
        # generic: "the result 24.32 is about 2 d_k, twice the expected variance" (the effect, not the cause);
        # q + k for q * k: no key says it
        # now (after blind50: dots_coordinates_added, by replay (naming round 50))
        "q2_coordinates_added_not_multiplied": ("dots_coordinates_added",),
        "q4_entropy_returned_as_perplexity": ("one_edit_fix",),   # `H` in place of `torch.exp(H)`: the slip
        # generic: "the entropy table ... does not match the correct result in 16 of 16 entries"; np.random.seed
        # for torch.manual_seed: ignores_generator ("the global RNG ... or numpy used instead ... the caller's
        # seed must decide the draws") and table_reseeded_per_row's fix (every row uses torch.manual_seed(seed)),
        # as blind25's q4_table_generator_seeded_but_not_passed
        "q4_table_seeded_through_numpy": ("ignores_generator", "table_reseeded_per_row"),
    },
}

BLIND30_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure <slug> --set blind30 -v`, the engine frozen from the writers' end to the judges' run
    # (cf25115): () where no key on it names the mistake
    # judged from `measure sdpa-from-scratch --set blind30 -v`: () where no key on it names the mistake
        "sdpa-from-scratch": {
            # Q^T K probe, (4, 64, 64): the key's "d_k x d_k, like Q^T K ... instead of one entry per (query, key) pair"
            "q1_probe_transposes_queries_not_keys": ("weights_sized_by_features",),
            # generic: "out_shape is not the shape of the attention output"; no key says the output sized as K^T V (d_k x d_v)
            "q1_out_shape_keys_t_values": ("output_as_features_product",),   # now named (after blind30: K^T V's size)
            # the messages start "its cell stopped with RuntimeError", but fixed_axes names K.T reversing every axis and its fix
            "q2_dot_T_reverses_all_axes": ("fixed_axes",),
            # mis-named: theoretical_variance ("writing the theory's value ... where the measured variance is asked");
            # the student measured, after dividing by raw_scores.std(): scores_divided_by_own_std exists but was not given
            "q2_scores_normalised_by_their_std": ("variance_one_theory_or_own_std",),   # now: both readings of 1 said
            # generic: "does not match ... in 90 of 105 entries" / NaN on 20 tests; no key says a cumsum denominator
            # now (after blind51: q6's weights named causal_cumsum_denominator, the cumsum denominator's exact effect (the scan at 7c84b30))
            "q3_cumsum_as_denominator": ("one_edit_fix", "causal_cumsum_denominator"),   # now: `sum(dim, keepdim=True)` in place of `cumsum(dim)`
            # generic: mismatch / NaN on 20 tests; no key says expm1 (e^x - 1) for exp
            "q3_expm1_for_exp": ("one_edit_fix",),   # now: `torch.exp(shifted)` in place of `torch.expm1(shifted)`
            # loops nested backwards = the mask transposed: upper_triangular_mask, and two messages say "the right mask
            # transposed (one row per key)", the slip itself (as blind5's q09_transposed_matrix)
            "q4_comprehension_loops_nested_backwards": ("upper_triangular_mask",),
            # ones(T_k, T_q).tril(): the key's "tril of (T_k, T_q) ... right only when T_q == T_k" exactly
            "q4_shape_built_as_keys_by_queries": ("causal_sizes_swapped",),
            # partly named: one_edit_fix (`V` in place of `V.transpose(-2, -1)` on line 15) fixes it on 15 tests;
            # test_vectorised is keyless ("the timing ... could not be verified: it crashes on 3-D inputs")
            "q5_values_transposed_like_keys": ("one_edit_fix",),
            # -mask on a bool tensor: the key's "(1 - mask, -mask ...) which torch refuses ... invert it with ~mask"
            "q5_bool_mask_negated_with_minus": ("bool_mask_arithmetic",),
            # tril(diagonal=1) in the trace: the key's text says exactly that
            "q6_causal_tril_diagonal_one": ("causal_includes_next",),
            # answers A from a check on diagonal-dominant scores: the key is the belief the check confirms, and
            # "rows no longer sum to 1" the reason (as blind28's and blind29's q7)
            "q7_checked_on_diagonal_dominant_scores": ("zero_after_softmax", "answer_computed_by_code"),
            # T (T + 1) / 2 * d_k: "score_madds is 33587200, the count of the causal triangle only" and its fix
            "q8_score_madds_only_lower_triangle": ("causal_triangle_count",),
            # mis-named: count_times_four gives two readings of 4 T^2 (T doubled, float32 bytes), neither the student's
            # batch of 4 carried over from Question 1
            "q8_entries_for_batch_of_four": ("count_times_four",),   # now: its text gives Question 1's batch of 4
        },
    "scaled-attention": {
            # mis-named: uniform_weights on all 5 q1 tests ("giving every key the same weight (the mean of V) instead of
            # the softmax of the scores") is the symptom; the student does take the softmax, the slip is K[i] for K[j]
            # in the double loop (one_edit_fix `K[j]` in place of `K[i]` would name it)
            "q1_pair_loop_key_indexed_by_query": ("one_edit_fix",),   # now: `j` in place of `i` (effect keys searched, after blind31)
            # raw: "The size of tensor a (7) must match the size of tensor b (10)"; weights * V for weights @ V: no key
            # fired (output_keeps_key_axis or elementwise_product would say it)
            "q1_values_mixed_elementwise": ("one_edit_fix",),   # now: `weights @ V` in place of `weights * V`
            # value_called's text names `x.T()` (.T is already the transpose)
            "q1_transpose_attribute_called": ("value_called",),
            # one_edit_fix: `n_samples` in place of `d_k` in `... .sum() / (d_k - 1)`: the slip at its place
            "q2_manual_variance_divided_by_d_k_minus_one": ("one_edit_fix",),
            # notebook's global `gen` for the `generator` argument: ignores_generator's text
            "q2_draws_from_notebook_global_gen": ("ignores_generator",),
            # generic: "does not match the correct result in 6 of 6 entries"; -ln max p (min-entropy): no key in this
            # catalogue (attention-pipeline's min_entropy would)
            "q4_entropy_as_minus_log_max_prob": ("min_entropy",),   # now named by min_entropy (after blind30)
            # generic: "the entropy table ... does not match ... in 16 of 16 entries"; torch.cuda.manual_seed leaves
            # the CPU draws unseeded: no key fired (ignores_generator / table_reseeded_per_row's fix would fit)
            "q4_table_cuda_manual_seed_only": ("one_edit_fix",),   # now: `torch.manual_seed` for `torch.cuda.manual_seed`
            # generic: "q5_answer should be one letter as a string"; Cyrillic U+0421 look-alike of C: no key
            "q5_answer_cyrillic_letter": ("answer_lookalike_letter",),   # now: its Unicode name said
            # answer_extra_characters: its text names quotes ("'C'") around the letter
            "q6_answer_quotes_inside_string": ("answer_extra_characters",),
            # generic (key None), though the message is exact: "`q7_answer` is not answered yet: replace the `...`"
            "q7_answer_placeholder_ellipsis_left": ("answer_left_empty",),   # now (after blind41: the engine names a template's ... answer_left_empty)
            # one attention map from full-width Q, K shared by all heads: mha_single_head's text
            "q8_one_attention_map_shared_by_heads": ("mha_single_head",),
            # mis-named: same_projection ("one projection matrix for more than one of Q, K, V") on 3 tests, but the
            # projections are right (V = X @ W_V); the slip is attention(q, k, q, d_k), the query slice in the value
            # slot (as blind16/22's calls after a right project_qkv were ruled mis-named)
            "q8_head_query_passed_as_value": ("one_edit_fix",),   # now: `v` in place of `q` (v is never read: tried first)
            # raw: "cat() takes from 1 to 2 positional arguments but 4 were given"; torch.cat(*heads): no key
            "q8_cat_given_unpacked_heads": ("one_edit_fix",),   # now: `torch.cat(heads, dim=1)` in place of `torch.cat(*heads, ...)`
            # one_edit_fix: `X @ W_Q` in place of `(X @ W_Q).numpy()` on the np.split line: removes the numpy round
            # trip at its place (checked on all 3 inputs), with the raw AttributeError shown
            "q8_heads_split_in_numpy_not_converted_back": ("one_edit_fix",),
        },
    "attention-pipeline": {
            # X[t] indexes the batch axis: "works only for 2-D inputs ... X.shape[0] is the batch size", crash on batched X, right on one slice
            "q01_token_loop_indexes_batch_axis": ("batched_input_unsupported",),
            # MIS-NAMED: the cause is one out= buffer aliased for Q and K; same_projection blames choosing one matrix for two of Q, K, V
            # now named: same_projection's text names a buffer written twice as the other way to this effect (Q = K = X W_K,
            # as q01_lambdas_capture_last_weight's late-bound W was accepted in naming31)
            "q01_shared_out_buffer_aliases_queries_and_keys": ("same_projection",),
            # tensordot right only for 2-D inputs: "code that works only for 2-D inputs (or one fixed number of dims)", batched S wrong
            "q02_tensordot_pairs_batch_axes": ("batched_input_unsupported",),
            # two letters ticked: answer_hedged "giving several letters where one choice is asked"
            "q03_two_letters_c_and_b": ("answer_hedged",),
            # exp(S - logsumexp(S, -1)) without keepdim == exp(S) / e.sum(-1) without keepdim: same slip, same values
            "q05_logsumexp_without_keepdim": ("sum_without_keepdim",),
            # all None: generic mismatch + "rows of A do not sum to 1"
            "q07_query_loop_slice_stops_before_own_key": ("one_edit_fix",),   # now: both `:t` bounds moved to `:t + 1`
            # K[1:]: nw_drops_a_key names this exact slip
            "q08_key_loop_starts_at_one": ("nw_drops_a_key",),
            # mv(V, kappa) = V @ w for w @ V: nw_operands_swapped names it
            "q08_mv_with_values_untransposed": ("nw_operands_swapped",),
            # one_edit_fix shows L.sum(dim=1, keepdim=True) in place of L.mean(...): fixes the slip at its line
            "q09_divided_by_row_mean": ("one_edit_fix",),
            # torch.log(2) on a Python int: torch_function_of_number, exact (suggests math.log)
            "q10_torch_log_of_python_int": ("torch_function_of_number",),
            # both failed tests None: generic mismatch, entropy terms not weighted by A never named
            "q10_log_terms_not_weighted_by_probabilities": ("entropy_unweighted",),   # now named (after blind30)
            # d_k * d_k = 64: rank_from_size_arithmetic, says rank S <= min(T, d_k)
            "q11_max_rank_d_k_squared": ("rank_from_size_arithmetic",),
            # both failed tests None: "the count is wrong (for d_v different from d_k)"
            "q12_qk_counted_as_one_model_square_matrix": ("param_count_qk_product",),   # now named (after blind30)
            # baddbmm only 3-D: batched_input_unsupported ("one fixed number of dims ... torch.bmm fit one layout"; 2-D crashes, runs with a batch axis)
            "q13_baddbmm_on_two_dim_inputs": ("batched_input_unsupported",),
        },
}

BLIND31_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure <slug> --set blind31 -v`, the engine frozen from the writers' end to the judges' run
    # (59230a2): () where no key on it names the mistake
    "sdpa-from-scratch": {
        # batch read as one 40-token sequence, (40, 40): only a generic "not the shape" message, no key
        "q1_weights_over_all_batch_tokens": ("batch_as_one_sequence",),   # now (after blind31)
        # mean_of_slice_variances is exactly "averaging per-batch-entry variances instead of .var() of all"
        "q2_mean_of_per_sequence_variances": ("mean_of_slice_variances",),
        # q5 one_edit_fix shows logsumexp(..., keepdim=True) at the student's line; q6 reduction_without_keepdim
        # is the general kind (a reduction without keepdim broadcast on the wrong axis); q3 itself only raw crashes
        "q3_logsumexp_without_keepdim": ("one_edit_fix", "reduction_without_keepdim"),
        # keepdim_by_unsqueeze_last is the mistake word for word
        "q3_sum_unsqueezed_on_last_axis": ("keepdim_by_unsqueeze_last",),
        # arange(T - 1): q4 shows only the shapes (None); q6's output_keeps_key_axis blames weights3 * V3 (mis-name)
        "q4_positions_stop_one_short": ("mask_size_off_by_one",),   # now (after blind31; q6 says the mask's size)
        # device="cuda" hard-coded: raw "Torch not compiled with CUDA enabled", no key
        "q4_mask_built_on_cuda": ("device_hard_coded",),   # now (after blind31: the words say it)
        # return only inside the masked branch: message says a return is missing, but key None
        "q5_return_only_in_masked_branch": ("return_missing_on_path",),   # now (after blind31: a call with a mask allowing every key)
        # mask.view(1, 1, T_q, T_k): raw view errors; keepdim_left_on blames a kept reduced axis (mis-name)
        "q5_mask_viewed_as_four_d": ("view_leading_ones", "size_one_axes_added"),   # now (after blind31)
        # subtracting sqrt(d_k) is a shift, no scale at all: no_scale names what the code does (lenient call)
        "q6_scale_subtracted_not_divided": ("no_scale",),
        # NumPy row sums without keepdims: reduction_without_keepdim is the mistake
        "q6_numpy_row_sums_without_keepdims": ("reduction_without_keepdim",),
        # answered A from a check with atol=1.0: zero_after_softmax names the belief behind A and says to compare row sums
        "q7_checked_with_loose_tolerance": ("zero_after_softmax", "answer_computed_by_code"),
        # option text instead of the letter: generic "should be one letter" message, key None
        "q7_option_text_not_letter": ("answer_in_words",),   # now (after blind31)
        # 1024 * 2 for 1024 ** 2: generic "not the number of entries", key None
        "q8_square_typed_as_times_two": ("square_as_times_two",),   # now (after blind31)
        # T^2 + d_k instead of T^2 * d_k: caret_is_xor blames ^ for a power (value coincides with 1024**2 ^ 64)
        "q8_madds_plus_d_k": ("madds_d_k_added",),   # now (after blind31: no ^ in its cell)
    },
    "scaled-attention": {
        # "your code raised RuntimeError: 1D tensors expected ...: calling torch.dot (or .dot) on matrices: it takes two
        # 1-D vectors only; for a matrix product use @": exactly the slip and its fix
        "q1_torch_dot_on_matrices": ("dot_of_matrices",),
        # "attention gives different outputs for the same input: dropout or randomness left on": the Gumbel noise is the
        # randomness, and it is the whole of the mistake (borderline: the hint then points at F.dropout, not gumbel_softmax)
        "q1_gumbel_softmax_weights": ("nondeterministic",),
        # wrong_scale_constant ("softmax(Q K^T / c) with a different c: here c = 4.998") blames the scale, which is right;
        # the cause is exp2 (2**x = e**(x ln 2)) in the hand-written softmax: mis-named
        "q1_exp2_in_hand_softmax": ("exp_other_base",),   # now (after blind31)
        # generator_positional says "torch.randn() got the generator among its positional arguments": false, it was given
        # as the keyword gen=; the key blames another cause (unexpected_keyword would be the right kind): mis-named
        "q2_generator_keyword_typed_gen": ("unexpected_keyword",),   # now: randn takes no gen= (after blind31)
        # generic "does not match the correct result in 6 of 6 entries": no key for 1 - sum p^2 (Gini impurity)
        "q4_entropy_as_gini_impurity": ("entropy_gini",),   # now (after blind31)
        # raw einsum RuntimeError (2 subscripts, 3 dims), key None; fixed_axes with an einsum hint ('...t,...t->...') would name it
        "q4_entropy_einsum_fixed_to_2d": ("einsum_fixed_axes",),   # now (after blind31: the words say it)
        # one_edit_fix: line `raw = (q * k).sum(dim=0)`, `-1` (or `1`) in place of `0`: fixes the stated slip at its place
        "q4_table_products_summed_over_keys": ("one_edit_fix",),
        # generic "`q5_answer` is not defined": nothing says the colon made it an annotation that binds nothing
        "q5_answer_annotation_colon": ("answer_annotated_not_assigned",),   # now (after blind31: read from the source)
        # generic "should be one letter as a string": answer_extra_characters (the option's words) exists but did not fire
        "q5_answer_option_prefix": ("answer_extra_characters",),   # now (after blind31)
        # generic "should be one letter as a string": answer_extra_characters ("**A.**") exists but did not fire
        "q6_answer_markdown_bold_copied": ("answer_extra_characters",),   # now (after blind31)
        # generic "`q7_answer` is not defined": nothing says == compares instead of assigning
        "q7_answer_compared_not_assigned": ("answer_compared_not_assigned",),   # now (after blind31)
        # mha_heads_missing blames the loop range ("looping over fewer heads than n_heads"); the loop runs n_heads times,
        # the slice start is multiplied by d_k a second time (start * d_k): mis-named
        "q8_range_step_start_multiplied_again": ("mha_head_start_scaled_twice",),   # now (after blind31: a call at d_k = 1)
        # generic "does not match in 240 of 240 entries": nothing says V = X @ W_O (W_V unused)
        "q8_values_projected_with_w_o": ("one_edit_fix",),   # now (after blind31: self attributes swapped in the search)
        # mha_head_slice_fixed: "slicing the same head's columns of Q, K or V for every head (Q[:, :d_k] left in the
        # loop)": exactly K[:, :d_k], V[:, :d_k] shared by every head
        "q8_one_key_value_head_shared": ("mha_head_slice_fixed",),
    },
    "attention-pipeline": {
        # einsum "...td,de->...et": Q, K, V as (d_k, T); projections_transposed says tokens as columns, fix X @ W (T, d_k)
        "q01_einsum_output_axes_swapped": ("projections_transposed",),
        # `for q in Q` walks the batch axis: "code that works only for 2-D inputs ... on one slice it runs and is right"
        "q02_query_loop_over_first_axis": ("batched_input_unsupported",),
        # generic: einsum crash "subscript t has size 8 ..." and "S has shape (2, 6), expected (2, 6, 6)"; no key
        "q02_einsum_same_letter_for_both_token_axes": ("one_edit_fix", "einsum_letter_on_two_axes"),   # now (after blind31)
        # MIS-NAMED on 2 of 5: mask_sign_flipped ("S - M instead of adding it") blames the mask line, which adds M;
        # scores_negated (softmax of -S) on the 3 others is softmin's own effect
        "q05_softmin_instead_of_softmax": ("scores_negated",),
        # one_edit_fix: "leave out line 6 (A = A / A.sum(dim=-2, ...))" removes the column renormalisation at its place
        "q07_weights_renormalised_over_queries": ("one_edit_fix",),
        # generic: "the smoothed row does not match ... in 5 of 5 entries"; log-weights never exponentiated: no key fired
        "q08_log_weights_not_exponentiated": ("log_softmax_weights",),   # now (after blind31)
        # raw: "inner() the last dimension must match on both input tensors"; no key fired
        "q08_torch_inner_pairs_last_axes": ("one_edit_fix", "inner_pairs_last_axes"),   # now (after blind31)
        # generic: "W_avg does not match ... in 40 of 81 entries ... rows 0, 1, 2, 3, 5, 6, ..."; no key fired
        "q09_row_counts_reversed": ("prefix_average_counts_reversed",),   # now (after blind31)
        # raw: "Boolean value of Tensor with more than one value is ambiguous" on both q10 tests; no key fired
        "q10_python_loop_assumes_two_dims": ("batched_input_unsupported",),   # now (after blind31: one 2-D slice is right)
        # generic: "max_rank_S is not correct: what limits the rank of Q K^T?"; no key fired
        "q11_max_rank_from_the_lesson_example": ("bound_from_lesson_head", "rank_as_axes_or_lesson_rank"),   # now (after blind31; blind35: both readings of 2)
        # one_edit_fix: "`d_v * d_model` in place of `d_v * d_model + d_model`" drops the bias term at its place
        "q12_output_bias_counted": ("one_edit_fix",),
        # raw: "stack expects each tensor to be equal size, but got [10, 12] ... and [10, 6]"; no key fired
        "q13_keys_and_values_stacked": ("qkv_stacked",),   # now (after blind31: a call with d_v = d_k)
        # generic: "A contains NaN or inf in 28 of 56 entries"; mask_multiplied (exact) did not fire
        "q13_mask_multiplied_into_scores": ("mask_multiplied",),   # now (after blind31: replayed in float32)
        # answers a (A square, T x T): cross_is_self_attention, as blind2's q14_answer_square_scores / blind27's
        # q14_answer_scores_kept_square; the T == T' experiment itself is not visible in a letter
        "q14_answer_from_equal_length_experiment": ("cross_is_self_attention", "answer_computed_by_code"),
    },
}

BLIND32_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    # judged from `measure <slug> --set blind32 -v`, the engine frozen from the writers' end to the judges' run
    # (6fb7e87, a worktree of its own): () where no key on it names the mistake
    "sdpa-from-scratch": {
            # generic: q1 test_out_shape key None ("should be a tuple of Python ints"); float_for_int would name the `/`
            "q1_out_width_true_division_float": ("float_for_int",),   # now (after blind32: expect_shape)
            # mis-named: variance_of_other_scores blames a new sample / other tensors; the slip is torch.inner pairing
            # queries with keys of every sequence (batch_as_one_sequence would name it)
            "q2_torch_inner_pairs_across_batch": ("batch_as_one_sequence",),   # now (after blind32)
            # fixed_axes names K.T reversing every axis of the batched keys, with K.transpose(-2, -1) as the fix
            "q2_dot_T_reverses_all_axes_of_batched_keys": ("fixed_axes",),
            # mis-named: softmax_subtracts_min (on the float16 / -inf tests) blames subtracting the minimum; the slip is
            # exp(max - x), the softmax of the negated logits; all other failed tests None
            "q3_shift_subtracted_backwards": ("softmax_of_negated", "one_edit_fix"),   # now (after blind32)
            # partly: no_max_subtraction (float16 tests) = exp taken of the unshifted x, the max subtracted outside it;
            # the value tests (q3, q5, q6) are None
            "q3_max_subtracted_outside_exp": ("no_max_subtraction", "one_edit_fix"),   # now (after blind32)
            # one_edit_fix: leave out `dim = x.dim() + dim` (or `dim` in its place) fixes it at its place
            "q3_negative_dim_normalised_unconditionally": ("one_edit_fix",),
            # mis-named: causal_mask_blocks_nothing blames an unassigned tril(); the slip is query positions expanded
            # along the rows (mask_not_outer's kind); rectangular tests are raw RuntimeErrors with key None
            "q4_positions_expanded_along_the_same_axis": ("mask_not_outer",),   # now (after blind32)
            # causal_ignores_T_k: "a square mask from one length" = triangle built T_q x T_q, slicing cannot widen it
            "q4_square_of_query_length_sliced_to_keys": ("causal_ignores_T_k",),
            # mis-named: test_gradients_float64 says fixed_axes (K.T / fixed axis) for .numpy() on a grad tensor
            # (gradient_cut would name it); test_bfloat16 is a raw TypeError with key None
            "q5_scores_computed_in_numpy": ("numpy_round_trip",),   # now (after blind32: crash words, gradients kept)
            # one_edit_fix: flatten(start_dim=-1) in place of -2 makes the softmax run over each query's keys
            "q5_softmax_over_flattened_score_matrix": ("one_edit_fix",),
            # parameter_renamed: the fixed signature's `mask` renamed (to attn_mask), every mask=... call a TypeError
            "q5_mask_parameter_named_attn_mask": ("parameter_renamed",),
            # generic: key None, though the message says weights3 equals the causal weights (no key names is_causal
            # left on; causal_mask_forced's kind would)
            "q6_unmasked_weights_read_with_is_causal": ("causal_mask_in_unmasked_weights",),   # now (after blind32)
            # zero_after_softmax: answer A reflects zeroing after the softmax, rows no longer sum to 1 -> C
            "q7_compared_which_weights_are_nonzero": ("zero_after_softmax", "answer_computed_by_code"),
            # size_rounded: T = 1024 written as 1000
            "q8_1024_rounded_to_1000": ("size_rounded",),
        },
    "scaled-attention": {
            # one_edit_fix on all 6 q1 tests: line 5 `out = weights @ V.T`, `V` in place of `V.T`: the slip at its place
            "q1_values_transposed_in_mix": ("one_edit_fix",),
            # output_uses_weights_transposed (3 crash tests: "with as many queries as keys ... its output match mixing the
            # values with the transposed weights (A^T V)"): the weights are transposed, same mistake in other words
            # (borderline: it does not point at the stack line); one_edit_fix (3 tests): `torch.stack(rows, dim=1)`,
            # `0` / `-2` in place of `1`: the slip at its place
            "q1_query_rows_stacked_as_columns": ("output_uses_weights_transposed", "one_edit_fix"),
            # one_edit_fix on all 6 q1 tests: `weights @ V` in place of `weights @ V + Q`: drops the residual at its place
            "q1_query_added_back_as_residual": ("one_edit_fix",),
            # mis-named: one_edit_fix shows `-torch.log(u1)` in place of `torch.sqrt(-torch.log(u1))`, i.e. -ln(u1) cos(2 pi u2):
            # variance 1 by coincidence (E[Exp^2] = 2 times E[cos^2] = 1/2) but not standard normals, which q2 asks for; the fix
            # is sqrt(-2 ln u1): the change does not fix the stated mistake, it adds a compensating one
            "q2_box_muller_missing_factor_two": ("draws_not_unit_variance",),   # now (after blind32: no longer the compensating fix)
            # generic (None): "for d_k = 12 the variance of q.k / sqrt(d_k) is not within 10%": nothing says both appends run
            "q2_loop_missing_else_appends_both": ("scaled_and_unscaled_pooled",),   # now (after blind32)
            # one_edit_fix: `prod(dim=-2)` / `prod(dim=1)` (or randn(n, d_k, 2)): multiplies over the pair axis, sums over
            # the coordinates: the slip at its place
            "q2_pair_axis_and_coordinate_axis_swapped": ("one_edit_fix",),
            # generic (None) on all 3 q4 tests: "does not match the correct result in 6 of 6 entries"; nothing says max is
            # not logsumexp
            "q4_entropy_max_taken_for_logsumexp": ("entropy_max_for_logsumexp", "one_edit_fix"),   # now (after blind32)
            # one_edit_fix on all 3 q4 tests: `log_softmax(logits, dim=0)`, `-1` in place of `0`: the slip at its place
            "q4_entropy_log_softmax_over_dim0": ("one_edit_fix",),
            # mis-named: variance_d_k_squared ("that choice reflects squaring d_k") blames a belief the student does not hold;
            # the student meant C and wrote "ABCD"[3] (zero-based index counted from 1)
            "q5_answer_third_option_zero_indexed": ("one_edit_fix",),   # now: `2` in place of `3` (an index counted from 1)
            # attention_as_argmax ("attention returns only the best-matching value (a hard argmax)"): exactly the second
            # thought that overwrote A with C
            # now (after blind47, engine: the overwrite its mistake states, with what the option stands for)
            "q6_answer_changed_on_second_thought": ("attention_as_argmax", "answer_overwritten"),
            # answer_extra_characters ("it starts with D, the right choice, and goes on with words ... the letter alone")
            "q7_answer_letter_with_reason": ("answer_extra_characters",),
            # one_edit_fix on all 3 q8 tests: `torch.cat(heads, dim=1)` in place of `torch.relu(torch.cat(heads, dim=1))`
            "q8_relu_before_output_projection": ("one_edit_fix",),
            # raw: "your code raised IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)" (None)
            "q8_heads_list_plus_equals_tensor": ("one_edit_fix",),   # now: heads.append(out_h), the crash line first
            # generic (None): "does not match the correct result in 240 of 240 entries"; nondeterministic (F.dropout trains by
            # default) exists and would name it, but did not fire on q8
            "q8_head_outputs_dropout_left_on": ("nondeterministic",),   # now (after blind32: a second call)
        },
    "attention-pipeline": {
            # one_edit_fix: `X @ W` in place of `torch.relu(X @ W)` removes the ReLU at its place
            "q01_relu_after_projection": ("one_edit_fix",),
            # one_edit_fix: `X` in place of `Q` in `K = Q @ W_K`, exactly the fix
            "q01_keys_projected_from_queries": ("one_edit_fix",),
            # raw TypeError "must be real number, not builtin_function_or_method" on all 4; numpy_size_attribute would name it
            "q02_size_method_passed_to_sqrt": ("method_not_called",),   # now (after blind32: crash words)
            # one_edit_fix: `S` in place of `S - S.mean(dim=-1, keepdim=True)`, the centring removed
            "q02_scores_centred_per_row": ("one_edit_fix",),
            # dtype_passed_positionally: the key's own example (torch.zeros((T, T), dtype) -> dtype=...)
            "q04_dtype_passed_positionally": ("dtype_passed_positionally",),
            # E / E.amax is E itself after the max shift: "exp(scores) without dividing by the row sum" is this, fix included
            "q05_weights_divided_by_row_max": ("weights_not_normalised",),
            # one_edit_fix: `A @ V` in place of `A @ V / seen[:, None]`, the extra division dropped
            "q07_output_divided_by_visible_count": ("one_edit_fix",),
            # BORDERLINE: inplace_on_input names the += through num = V[0] (a view of V) writing the caller's V, part of
            # the stated mistake; it does not say that the sum starts at V[0] (counted twice), which x = x + ... keeps
            "q08_accumulator_aliases_first_value": ("inplace_on_input",),
            # generic "W_avg should be a torch.Tensor, got list"; returns_list_not_tensor would name it
            "q09_returns_nested_python_list": ("returns_list_not_tensor",),   # now (after blind32)
            # one_edit_fix drops .numpy() on the round-trip line: a torch tensor in A's dtype comes back (np.power on a
            # tensor wraps it back); .cpu() and np.power stay, so A's device is not kept on a GPU (borderline)
            "q10_effective_tokens_numpy_round_trip_returns_array": ("one_edit_fix",),
            # MIS-NAMED: rank_above_min blames d_k / max(rank Q, rank K); the cause is counting non-zero (asking) rows,
            # linearly dependent ones: rank_counts_distinct_rows would be right
            "q11_rank_counted_as_asking_tokens": ("rank_above_min",),   # now: its text also says the non-zero rows (4 = d_k here)
            # one_edit_fix: "leave out line 3 (`total += 2 * d_model`)" removes the LayerNorm term at its place
            "q12_layernorm_params_counted": ("one_edit_fix",),
            # generic "the count is wrong ... your count holds 52080.0 for W_O" (3 x 17360); no key says W_O counted 3 times
            "q12_output_projection_counted_per_qkv": ("param_count_wo_per_projection",),   # now (after blind32)
            # same_projection: one matrix (W_K) used for Q and K, the general kind of Q = X @ W_K
            "q13_queries_projected_with_w_k": ("same_projection",),
        },
}

# set name -> its mapping; a set not named here has no mapping at all
# blind33: written by three helpers who did not read the catalogue; judged by three others with the engine frozen at
# cfe5f4b (a worktree of its own). First sight: sdpa 10, scaled 6 (2 mis-named), pipeline 7 of 14. Each comment is the judge's.
# scaled's q7 "(D)" is accepted by the course's policy (expect_choice ignores parentheses): full marks, not a mistake there.
BLIND33_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "sdpa-from-scratch": {
        # batch_dim_dropped: "leaving out the leading batch dimension", on both shapes: the mistake itself
        "q1_batch_axis_left_out_of_both_shapes": ("batch_dim_dropped",),
        # one_edit_fix on line 2: `K.transpose(-2, -1)` in place of `K.transpose(0, 1)`, the stated fix at its place
        "q2_keys_transposed_axes_0_1": ("one_edit_fix",),
        # raw_variance_of_scaled_scores: "the 'raw' variance from scores that were already scaled" (not in-place here,
        # but the key's main clause and its fix, a separate raw_scores / sqrt(d_k), are the variant's)
        "q2_raw_scores_already_divided_by_root_d_k": ("raw_variance_of_scaled_scores",),
        # dtype_changed: ".float() ... never cast back", float64/float16 in must come out the same; q3, q5, q6 all say it
        "q3_upcast_to_float32_never_cast_back": ("dtype_changed",),
        # generic: raw IndexError "Dimension out of range ... got 4" on 24 tests; negative_dim_off_by_one (not shown)
        # is another slip (dim + x.dim() - 1), not the sign swap
        "q3_negative_dim_normalised_with_minus": ('one_edit_fix',),   # now (after blind33: the engine)
        # one_edit_fix on line 6: `T_q` in place of `T_k` in `for i in range(T_k):`, the stated mistake at its place
        "q4_rows_filled_in_loop_over_key_count": ("one_edit_fix",),
        # callable_not_called (q4, "returned `bool` itself ... write `bool()`") and method_not_called (q6, "`x.float`
        # without the () that call it"): both the uncalled .bool
        "q4_bool_method_not_called": ("callable_not_called", "method_not_called"),
        # crash_on_mask_none: the crash only on the mask=None path, "(with a mask that allows every key it runs)",
        # sizes 7 vs 9 and a smallest case Q (1, 2, 1), K (1, 3, 1) point at the default mask's wrong width
        "q5_default_mask_square_in_query_length": ("crash_on_mask_none",),
        # raw exception: "The size of tensor a (8) must match the size of tensor b (5)" on 14 tests, no key
        "q5_empty_row_zeros_like_values": ('one_edit_fix',),   # now (after blind33: the engine)
        # raw exception: "where() received an invalid combination of arguments - got (Tensor, Tensor)", no key
        "q5_where_called_without_other": ('where_missing_value',),   # now (after blind33: the engine)
        # weights_not_normalised: "each row is the right weights times its own factor ... without dividing by the row
        # sum: rows do not sum to 1" = the stated "row is not renormalised" (as blind's q05_denominator_without_mask);
        # its "exp(scores) as weights" is not literally the code; zero_after_softmax would be sharper
        "q6_causal_middle_row_zeroed_not_renormalised": ("weights_not_normalised",),
        # zero_after_softmax: answer A refuted by "rows no longer sum to 1", the variant's own "answer C" reason
        "q7_compared_output_shapes_only": ("zero_after_softmax", "answer_computed_by_code"),
        # zero_after_softmax: as above (answer A)
        "q7_trap_tried_on_already_masked_scores": ("zero_after_softmax", "answer_computed_by_code"),
        # generic: "score_madds is not the number of multiply-adds of Q @ K.T"; nothing says digits swapped
        "q8_madds_hand_typed_digits_swapped": ('number_typo',),   # now (after blind33: the engine)
    },
    "scaled-attention": {
        # scores[j] = key j's scores in ROW j: scores_transposed "K Q^T (keys as rows)" is that; crash messages add it too
        "q1_key_loop_fills_rows_not_columns": ("scores_transposed",),
        # output is (A V)^T; message says so, but the key text blames A^T V (transposed weights), another cause: mis-named
        "q1_einsum_mix_output_transposed": ('output_transposed',),   # now (after blind33: naming34)
        # outer product = products q_i k_j never summed into q.k: variance_of_products is that cause
        "q2_bmm_outer_product_instead_of_inner": ("variance_of_products",),
        # precedence of `x / c if scaled else 1`: only a keyless (though helpful) message
        "q2_conditional_expression_swallows_division": ('one_edit_fix', 'unscaled_variance_zero'),   # now (after blind33)
        # entries have variance 1 but mean 6; draws_not_unit_variance blames variance ~8.5 ("if centred"): mis-named
        "q2_twelve_uniforms_without_minus_six": ('draws_not_centred',),   # now (after blind33: naming34)
        # one_edit_fix shows `bits * math.log(2)` for `bits / math.log(2)`: the stated fix at its place
        "q4_entropy_log2_converted_the_wrong_way": ("one_edit_fix",),
        # one key expanded to five rows: generic table mismatch only
        "q4_table_one_key_repeated_five_times": ('table_scores_all_equal',),   # now (after blind33: naming34)
        # empty string: generic "should be one letter as a string"
        "q5_answer_left_empty_string": ('answer_left_empty',),   # now (after blind33: the engine)
        # integer index 0: answer_option_number says "counted from 0 it is 'A'"
        "q6_answer_first_option_as_index_zero": ("answer_option_number",),
        # None: generic "not defined (or is None)"
        "q6_answer_left_as_none": ('answer_left_empty',),   # now (after blind33: the engine)
        # option D's text pasted: answer_option_text is exactly that
        "q7_answer_option_text_instead_of_letter": ("answer_option_text",),
        # "(D)": graded 28/28, no failed test (not caught)
        "q7_answer_letter_in_parentheses": (),
        # V = X @ W_K: same_projection "one projection matrix for more than one of Q, K, V"
        "q8_values_projected_with_w_k": ("same_projection",),
        # W_Q[rows] instead of W_Q[:, cols]: raw RuntimeError, key None
        "q8_per_head_weight_rows_not_columns": ('one_edit_fix',),   # now (after blind33: the engine)
    },
    "attention-pipeline": {
        # same_projection on all 3 q01 tests: V = X @ W_Q uses W_Q for both Q and V, exactly the key's text
        "q01_values_projected_with_query_weights": ("same_projection",),
        # one_edit_fix on all 3 q01 tests: line 2, `X` in place of `X - X.mean(dim=-2, keepdim=True)` removes the
        # centring at its place (layer_norm_before_projection would also fit, but did not fire)
        "q01_tokens_mean_centred_before_projection": ("one_edit_fix",),
        # generic (None) on all 4 q02 tests: "the correct result times a constant: off by a constant factor x0.4472",
        # a symptom; nothing says d_k = Q.numel() is every entry, not Q.shape[-1] (scale_from_ndim's kind, or a
        # one_edit_fix `Q.shape[-1]` in place of `Q.numel()`, would name it)
        "q02_scale_from_numel_of_queries": ('one_edit_fix',),   # now (after blind33: the engine)
        # one_edit_fix on all 5 q05 tests: line 5, `-1` in place of `-2` in E.sum(dim=-2, ...): the slip at its place
        "q05_denominator_summed_over_queries": ("one_edit_fix",),
        # partly: no_causal_mask on 2 q07 tests ("O is wrong: it matches never applying the causal mask, so tokens
        # read the future": the mask is missing from what O is computed from; A alone is masked; borderline but it
        # points at O); test_causal_properties has key None ("O (compared with your own A times V) does not match")
        "q07_output_mixed_with_unmasked_weights": ('no_causal_mask', 'output_from_unmasked_weights'),   # now (after blind33: naming34)
        # generic (None) on 3 q07 tests and q09 test_zero_projections: "A does not match ..."; nothing says the
        # scores are X X^T (W_Q, W_K unused); given_weights_unused's kind or a scores-from-inputs key would name it
        "q07_scores_from_raw_inputs": ('scores_from_inputs',),   # now (after blind33: naming34)
        # generic (None) on all 3 q08 tests: "the smoothed row does not match"; softmax_base_2 (exp2 for exp) is this
        # very mistake but did not fire on nadaraya_watson; one_edit_fix `torch.exp` for `torch.exp2` would also do
        "q08_kernel_in_base_two": ('one_edit_fix',),   # now (after blind33: the engine)
        # prefix_average_wrong_axis: "dividing by the column index instead of the row's length" is what the running
        # count cumsum(dim=-1) is (1/(j+1) at column j); BORDERLINE: its parenthesis blames a broadcast, not cumsum
        "q09_divided_by_running_count_along_row": ("prefix_average_wrong_axis",),
        # generic (None) on both q10 tests: "H does not match ... in 12 of 14 entries"; no key for the binary entropy
        # per entry (the (1-a) log(1-a) term); one_edit_fix `p_term` for `p_term + q_term` would name it
        "q10_binary_entropy_per_entry": ('one_edit_fix',),   # now (after blind33: the engine)
        # generic (None) on both q11 tests: "should be a number (a Python float; use .item() on a tensor), got str":
        # near, but no key says the right number was written as a string ("8" -> 8) and the .item() hint misleads
        "q11_rank_answers_as_strings": ('number_as_string',),   # now (after blind33: the engine)
        # rank_sum_of_ranks: "max_rank_S is 16, rank Q + rank K (8 + 8) ... rank(Q K^T) <= min(rank Q, rank K)"
        "q11_max_rank_twice_d_k": ("rank_sum_of_ranks",),
        # one_edit_fix: "leave out line 4 (`n += d_v * d_model`) -- or -- `n` in place of `n + d_v * d_model` on
        # line 5": either removes the second W_O term at its place
        "q12_output_counted_twice": ("one_edit_fix",),
        # param_count_wo_ignored: "with_output=True gives 38688, the count without W_O ... its d_v x d_model term is
        # never added": the mistake's general kind; BORDERLINE: its examples (dropped `n + ...`, flag unread) are
        # other causes, nothing points at zip stopping at the shorter list (rows lacks d_v)
        "q12_zip_truncates_output_term": ("param_count_wo_ignored",),
        # partly: batched_input_unsupported on 2 q13 tests ("with a batch axis added it runs and is right: your code
        # works for one number of dimensions only"); test_cross_padding_mask is a raw IndexError, key None
        "q13_batch_loop_breaks_unbatched_inputs": ("batched_input_unsupported",),
    },
}

# blind34: written by three helpers who did not read the catalogue; judged by three others with the engine frozen at
# 9d9a083 (a worktree of its own). First sight: sdpa 9 (1 mis-named), scaled 7 (2 mis-named), pipeline 9 of 14.
BLIND34_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "sdpa-from-scratch": {
        # extra axis of size 64 (d_k) flagged as "an axis the question does not have"; general kind, message points at the 64 axis (borderline: doesn't say the dot product sums d_k)
        "q1_weights_keep_per_feature_products": ("shape_axis_added",),
        # one_edit_fix: `128` in place of `64 + 128` on the out_shape line - the exact fix
        "q1_out_width_concatenates_d_k_and_d_v": ("one_edit_fix",),
        # mean_of_slice_variances: var(dim=...).mean() instead of .var() - exactly the mistake
        "q2_variance_across_batch_axis_averaged": ("mean_of_slice_variances",),
        # one_edit_fix: 'bqd,bkd->bqk' in place of 'bqd,bkd->qk' - restores the batch letter, exact fix
        # now (after round 46, by me from its message: the two sequences' scores summed into one matrix, what `->qk` does)
        "q2_einsum_output_drops_batch_letter": ("one_edit_fix", "batch_reduced_before_variance"),
        # numpy_round_trip on both failed tests (bfloat16, requires_grad) - exactly the mistake
        "q3_numpy_round_trip": ("numpy_round_trip",),
        # MIS-NAMED: global_max_subtraction blames one max over the whole tensor; one_edit_fix offers `.indices` for
        # `.values` (or dropping the shift) - not the fix (max instead of median); plus None on 3 tests
        "q3_shift_by_median": ('softmax_subtracts_median',),   # now (after blind34: naming35)
        # generic: both failed tests None ("differs in N entries"); nothing says the flat index is split with T_q
        "q4_flat_index_split_by_query_count": ('one_edit_fix',),   # now (after blind34: the engine)
        # generic: "causal_mask(11) has shape (11, 5), expected (11, 11)", None; the default from global K is not named
        "q4_default_key_count_from_global_Q": ('one_edit_fix',),   # now (after blind34: the engine)
        # weights_transposed (A^T V) on every failed test - exactly the mistake
        "q5_weights_transposed_before_values": ("weights_transposed",),
        # generic: None, "wrong entries at rows 0,1,4,5"; nothing says a tensor-wide NaN check zeroes every row
        "q5_any_nan_zeroes_every_weight": ("nan_check_zeroes_every_row",),   # now (after blind35: naming36)
        # generic: None, "a permutation of the last axis", then advice to recompute scores/softmax (the weights are right)
        "q6_hand_output_columns_swapped": (),
        # answer_extra_characters: "C." with a full stop - exactly the mistake
        "q7_letter_with_full_stop": ("answer_extra_characters",),
        # zero_after_softmax: the trap's reason, rows no longer sum to 1 - what the ratio check missed
        "q7_compared_ratios_of_kept_weights": ("zero_after_softmax", "answer_computed_by_code"),
        # madds_sizes_multiplied: (T x d_k) x (T x d_k) = T^2 d_k^2 instead of T^2 d_k - exactly the mistake
        "q8_madds_square_of_T_times_d_k": ("madds_sizes_multiplied",),
    },
    "scaled-attention": {
        # weights_not_normalised on all 6 q1 tests, "(each row divided by its own sum gives the right weights, but the rows
        # sum to 0.0518 ... 0.89)": the numerator is right and the row's divisor is not its own sum, which is the slip
        # (accepted like judge32's q05_weights_divided_by_row_max)
        "q1_denominator_from_unscaled_scores": ("weights_not_normalised",),
        # generic (None) on all 5 q1 tests: "shape (7, 5), expected (5, 7)" / "it equals the correct result transposed";
        # helpful, but no key names weights kept key-major and returned untransposed
        "q1_key_major_weights_returned_untransposed": ('weights_returned_transposed',),   # now (after blind34: naming35)
        # generic (None) on all 5 q1 tests: "does not match the correct result in 35 of 35 entries"; nothing names the
        # two factorised softmaxes (linear "efficient attention")
        "q1_efficient_attention_factorised_softmaxes": ('linear_attention',),   # now (after blind34: naming35)
        # mis-named: one_edit_fix shows `q.sum(dim=1)` (or `k.sum(dim=1)`) in place of `q.sum(dim=1) * k.sum(dim=1)`:
        # dots then ignore k (or q) and have variance d_k only by coincidence; the fix is (q * k).sum(dim=1), so the
        # change does not fix the stated mistake, it swaps in another (as judge33's q2_box_muller_missing_factor_two)
        "q2_product_of_sums_not_sum_of_products": ("dots_product_of_sums",),   # now (after blind35: naming36)
        # one_edit_fix on both q2 tests: `torch.sum(q * k, dim=1)` (or `torch.sum`) in place of `torch.cumsum(...)`:
        # the stated fix at its place
        "q2_cumsum_for_sum": ("one_edit_fix",),
        # generic (None) on all 3 q4 tests: "does not match ... in 6 of 6 entries", "returned NaN for a saturated row";
        # nothing says p = exp(logits) is never divided by its sum
        "q4_probabilities_left_unnormalised": ('entropy_probs_unnormalised',),   # now (after blind34: naming35)
        # generic (None) on both q4 table tests: "does not match the correct result in 8 of 16 entries";
        # table_stds_of_weights exists for the weights but nothing names the std of the keys
        "q4_table_std_of_keys_not_scores": ('table_stds_of_keys',),   # now (after blind34: naming35)
        # callable_not_called: "q5_answer is a function or method, not a value ... add the () that call it"
        "q5_answer_upper_not_called": ("callable_not_called",),
        # variance_after_scaling: "giving the variance of the scaled dot product (1) for the raw one": exactly what
        # running the experiment with scaled=True did
        "q5_answer_decided_from_scaled_run": ("variance_after_scaling", "answer_computed_by_code"),   # now (the engine, after blind41: a letter its code computed is the code's pick, no belief said)
        # self_attention_identity: "a token in self-attention attends only to itself", the conclusion drawn from the
        # saturated toy input
        "q6_answer_from_saturated_toy_check": ("self_attention_identity", "answer_computed_by_code"),
        # uniform_weights: "every key the same weight (the mean of V)", the conclusion drawn from the equal-rows toy input
        "q6_answer_from_equal_rows_toy_check": ("uniform_weights", "answer_computed_by_code"),
        # mis-named: attention_as_argmax ("thinking attention returns only the best-matching value (a hard argmax)")
        # blames a belief the student does not hold; the letter was copied from the lesson quiz's differently
        # ordered key (as judge33's q5_answer_third_option_zero_indexed)
        "q7_answer_copied_from_lesson_quiz_key": ("answer_lesson_quiz_letter",),   # now (after blind35: naming36)
        # mha_no_input_projections on all 3 q8 tests: "running the heads on X itself, never applying the projections
        # W_Q, W_K, W_V": the right kind (input projection skipped, X used itself) and W_K is named in it; borderline,
        # since it says all three are skipped where only W_K is
        "q8_keys_left_unprojected": ("mha_no_input_projections",),
        # generic (None) on all 3 q8 tests: "does not match the correct result in 240 of 240 entries"; nothing names the
        # heads folded into the sequence axis (one attention over T * n_heads rows)
        "q8_heads_flattened_into_one_long_sequence": ('mha_heads_as_sequence',),   # now (after blind34: naming35)
    },
    "attention-pipeline": {
        # projections_transposed on all 3 q01 tests, message says "K is wrong: ... tokens as columns, (d_k, T)": the very slip
        "q01_keys_returned_pre_transposed": ("projections_transposed",),
        # scores_transposed ("K Q^T, keys as rows") on all 4 q02 tests: the columns stacked as rows give exactly S^T
        "q02_key_columns_stacked_as_rows": ("scores_transposed",),
        # mask_not_dtype_min: "a blocked value other than torch.finfo(dtype).min" = finfo.min / 2
        "q04_mask_holds_half_of_finfo_min": ("mask_not_dtype_min",),
        # partly: softmax_wrong_dim on the 2 batched tests (len(S) - 1 is dim -2 there, the fix is dim=-1);
        # the 2 other tests are raw IndexErrors; size_as_dim (a size passed as the axis) would name the cause
        "q05_softmax_dim_from_len": ('softmax_wrong_dim', 'size_as_dim'),   # now (after blind34: naming35)
        # generic: 4 tests say only "A contains NaN or inf in N entries"; no key for a row-mean shift
        "q05_shift_by_row_mean": ('softmax_subtracts_mean',),   # now (after blind34: naming35)
        # answer_name_misspelled: "`ans_mask` is not defined, and the notebook binds `ans_masks`"
        "q06_answer_stored_under_misspelled_name": ("answer_name_misspelled",),
        # one_edit_fix: `-2` in place of `-3` in .sum(dim=-3) on line 6: the sum over the keys, at its place
        "q07_broadcast_mix_summed_over_queries": ("one_edit_fix",),
        # generic: 3 tests "the smoothed row does not match ... in 5 of 5 entries"; no key names it
        "q08_numerator_from_unscaled_scores": ('nw_kernel_mismatch',),   # now (after blind34: naming35)
        # float32_precision: "float32 for float64 inputs ... computing in float32 (a float32 tensor ...)" = the
        # torch.zeros accumulator in the default dtype (dtype_changed / dtype_mix would fit too; not shown)
        "q08_loop_accumulator_in_default_dtype": ("float32_precision",),
        # prefix_average_divide_by_T: "dividing every prefix sum by T instead of by the prefix length t"
        "q09_loop_uses_T_instead_of_t": ("prefix_average_divide_by_T",),
        # zero_log_zero_nan: the inverted guard leaves log2(0) = -inf at the zeros (the NaN) and the key's fix
        # "masked (zero) weights must contribute 0" points at the guard; as earlier guard slips were judged
        # (q10_guard_with_greater_or_equal, q10_zero_logs_compared_not_assigned)
        "q10_masked_fill_condition_inverted": ("zero_log_zero_nan", "one_edit_fix"),   # now (naming43: 0 log 0 only where the NaN rows prove it; the one-edit fix inverts the condition)
        # generic: key None, though the words list "the rank of a full-rank T x T matrix" among 5 readings of 5;
        # rank_is_T's text would name it
        "q11_lesson_rank_taken_as_matrix_size": (),
        # raw exception: "TypeError: qkv_param_count() got an unexpected keyword argument 'with_output'"; no key
        "q12_keyword_named_output": ('parameter_renamed',),   # now (after blind34: the engine)
        # one_edit_fix: `A @ V` in place of `X + A @ V` on line 4: removes the residual at its place
        "q13_query_residual_added": ("one_edit_fix",),
    },
}

BLIND35_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "sdpa-from-scratch": {
        # partly named: one_edit_fix on weights_shape (`[4, 10, 64]` in place of `torch.tensor([4, 10, 64])`, line 2:
        # the sizes no longer in a tensor, the entries come out ints, the fix at its place); out_shape None
        # ("should be a tuple of Python ints"), which needs dims_v fixed too; returns_tensor_not_number would name it
        "q1_shape_entries_zero_dim_tensors": ('returns_tensor_not_number', 'one_edit_fix'),   # now (after blind35: naming36)
        # MIS-NAMED: one_edit_fix shows `v_shape` in place of `qk_shape` on line 4: out_shape becomes V's own shape
        # as a list, [4, 10, 128], right only because T_q == T_k here (V's T_k for the output's T_q); it does not
        # make both operands tuples, it swaps in another mistake (as scaled-attention's q2_product_of_sums_not_sum_of_products)
        "q1_tuple_plus_list_slice": ('one_edit_fix',),   # now (after blind35: the engine)
        # generic: None, "scaled_score_var is not the variance of the scaled scores"; rounded_answer is the key
        "q2_variances_rounded_to_one_decimal": ('rounded_answer',),   # now (after blind35: naming36)
        # generic: None, "2.546 and 0.3183, exactly 1/8 ... neither is the variance of the example's scores"; nothing
        # says the broadcast products are summed over the keys (dim=-2) instead of the features (dim=-1)
        "q2_broadcast_products_summed_over_keys": ('one_edit_fix',),   # now (after blind35: the engine)
        # MIS-NAMED: q3's two tests None (raw RuntimeError of sizes); q5's 15 tests fixed_axes ("K.T or a fixed axis
        # ... use K.transpose(-2, -1)"), which blames the SDPA's transpose; the fault is the helper's sums reshaped to
        # a (-1, 1) column instead of keepdim=True (as q5_any_without_keepdim: fixed_axes mis-names a keepdim loss)
        "q3_sum_reshaped_to_column": ('reduction_reshaped_to_column',),   # now (after blind35: naming36)
        # raw exception: None on both rectangular q4 tests, "The size of tensor a (6) must match ... b (9)"
        "q4_diagonal_from_square_eye": ('one_edit_fix',),   # now (after blind35: the engine)
        # partly named: fixed_axes on the 15 value tests ("one 2-D slice of the same values runs and gives the right
        # result ... use K.transpose(-2, -1)"): tensordot works on 2-D only, its general kind with the right fix (as
        # q1_bmm_on_2d); test_vectorised None ("timing could not be verified ... crashes on 3-D inputs")
        "q5_tensordot_contracts_across_batch": ('fixed_axes',),   # now (after blind35: the engine: its timing test too)
        # invert_of_float_mask on all 15 failed tests: ~ on a tensor of numbers, keep the mask bool - the mistake
        "q5_mask_cast_to_input_dtype_before_inverting": ("invert_of_float_mask",),
        # one_edit_fix on 11 tests: `mask` in place of `mask.transpose(-2, -1)` on line 6, the exact fix;
        # upper_triangular_mask on test_causal_rectangular ("with 5 queries and 5 keys it ... matches an
        # upper-triangular mask"): the transposed causal mask is that triangle (accepted as q4_arange_unsqueeze_swapped,
        # q09_transposed_matrix; borderline, it does not point at the transpose line)
        # now (naming round 58: mask_transposed_to_scores, by replay of the mirrored mask; its text says the mask transposed onto Q K^T, which this code does)
        "q5_mask_transposed_with_keys": ("one_edit_fix", "upper_triangular_mask", "mask_transposed_to_scores"),
        # generic: None, "weights3_causal is not correct in row(s) [1] (recompute the scores ...)"; nothing says the
        # row is the lesson's worked example (0.5622, 0.4378) rather than this trace's softmax of (0.5, 1.0)
        "q6_causal_row_copied_from_lesson": ('trace_from_lesson_example',),   # now (after blind35: naming36)
        # generic: None, "out3 should have shape (3, 2), got (2, 3)"; result_axes_permuted (or a message saying
        # V3.T @ weights3.T is (weights3 @ V3).T) would name the column-vector convention
        "q6_output_in_column_vector_convention": ('output_column_convention',),   # now (after blind35: naming36)
        # answer_extra_characters: "quotes" in its text, "seems to be 'C'" - exactly the mistake
        "q7_letter_wrapped_in_quote_marks": ("answer_extra_characters",),
        # answer_lookalike_letter: "CYRILLIC CAPITAL LETTER ES (U+0421) ... retype on a Latin layout" - exactly
        "q7_cyrillic_c_lookalike": ("answer_lookalike_letter",),
        # generic: None, "score_madds is not the number of multiply-adds ..."; no key says << 64 is times 2**64
        "q8_shift_by_64_for_times_64": ('one_edit_fix',),   # now (after blind35: the engine)
    },
    "scaled-attention": {
        # no_scale on all 5 q1 tests ("it matches not scaling the scores at all"): subtracting a constant is a no-op for
        # the softmax, so the scale is in effect never applied; accepted as the effect of a scale step that does nothing,
        # like measure's q02_integer_exponent, q1_scale_method_result_discarded and q8_scale_line_after_softmax_line
        # (borderline: nothing says "subtracted instead of divided")
        "q1_scale_subtracted_not_divided": ("no_scale",),
        # one_edit_fix on the one failed test: line 10 `for j in range(T_q)` with `T_k` in place of `T_q`, the stated fix
        # at its place
        "q1_value_loop_bounded_by_query_count": ("one_edit_fix",),
        # raw exception on all 3 q2 tests: "RuntimeError: Boolean value of Tensor with more than one value is ambiguous";
        # nothing says the flag `scaled` was overwritten by the tensor of scaled dots
        "q2_flag_name_reused_for_scaled_dots": ('parameter_overwritten',),   # now (after blind35: the engine)
        # generic (None) on all 3 q2 tests: "is NaN ... taken of a single number ... check that the dot products are
        # n_samples numbers"; helpful, but no key names the append dedented out of the loop
        "q2_append_outside_the_loop": ('one_edit_fix',),   # now (after blind35: the engine)
        # generic (None) on all 3 q4 entropy tests: "does not match ... in 6 of 6 entries"; nothing names logsigmoid
        # taken for log_softmax
        "q4_entropy_logsigmoid_for_log_probs": ('one_edit_fix',),   # now (after blind35: the engine)
        # mis-named: table_ignores_dims ("looping over a hard-coded list of d's ... any other dims give the default
        # table") on both table tests; the loop is over dims, only in reverse (pop() from the end), and the other-dims
        # test gets those dims reversed, not the default table (as measure's q4_table_append_after_loop)
        "q4_table_dims_popped_from_the_end": ('table_rows_reversed',),   # now (after blind35: naming36)
        # mis-named: variance_after_scaling ("giving the variance of the scaled dot product (1) for the raw one"); the
        # probe was unscaled, run at d_k = 1 where all four options tie (unlike judge34's q5_answer_decided_from_scaled_run)
        "q5_answer_probe_run_at_d_k_one": ('probe_at_degenerate_size',),   # now (after blind35: naming36)
        # variance_d_k_squared names and refutes D's belief, the hedge's second letter that `and` records; accepted as
        # measure's q5_answer_two_letters_hedged ("CD") (borderline: nothing says `and` returns its last operand)
        "q5_answer_hedged_with_and_operator": ("variance_d_k_squared",),
        # callable_not_called: "q6_answer is a function or method, not a value ... a function's name without calling
        # it ... add the () that call it": the mistake exactly
        "q6_answer_helper_function_not_called": ("callable_not_called",),
        # uniform_weights ("every key the same weight (the mean of V)"): the conclusion the near-uniform toy probe led
        # to (as judge34's q6_answer_from_equal_rows_toy_check and measure's q6_answer_plain_mean)
        "q6_answer_probe_tolerance_admits_plain_mean": ("uniform_weights", "answer_computed_by_code"),
        # attention_as_argmax ("a hard argmax instead of a weighted mixture"): the conclusion the saturated gradient
        # probe drew (its comment: "if not, attention is just an argmax"), as judge34's q6_answer_from_saturated_toy_check
        "q7_answer_gradient_probe_on_saturated_scores": ("attention_as_argmax", "answer_computed_by_code"),
        # generic (None): "`q7_answer` is not defined in your notebook (or is None)"; nothing says print returns None
        "q7_answer_assigned_from_print": ('answer_from_none_call',),   # now (after blind35: the engine)
        # raw exception on all 3 q8 tests: "mat1 and mat2 shapes cannot be multiplied (5x12 and 48x5)"; no key says the
        # keys were left full width (mha_values_not_split is V's counterpart)
        "q8_keys_not_sliced_per_head": ('one_edit_fix',),   # now (after blind35: the engine)
        # mha_heads_interleaved on all 3 q8 tests: "read back through W_O ... column j * n_heads + h holds head h's
        # column j": the same head-minor pairing of head columns with W_O rows that view(d_k, n_heads, d_model) makes,
        # put on the merge side (borderline: the key's fix is torch.cat, the student's is W_O.view(n_heads, d_k, d_model))
        "q8_w_o_rows_viewed_head_minor": ("mha_heads_interleaved",),
    },
    "attention-pipeline": {
        # reshape back with W.shape[0]: only raw RuntimeErrors (shape '[7, 9]' is invalid ...), no key
        "q01_reshaped_back_with_d_model_width": ('one_edit_fix',),   # now (after blind35: the engine)
        # float64 out for float32 in: dtype_changed (returning another dtype than the input's) names it; test_scores_broadcast is generic
        "q02_numpy_round_trip_promotes_to_float64": ('dtype_changed',),   # now (after blind35: naming36)
        # picks (a) 'rows flatter': scale_direction_reversed is exactly that belief
        "q03_answer_rows_flatter": ("scale_direction_reversed",),
        # open entries hold 1: one_edit_fix torch.ones -> torch.zeros on line 3 fixes it at its place
        "q04_open_entries_hold_one": ("one_edit_fix",),
        # softmax-one extra 1: one_edit_fix drops torch.exp(-m) from the denominator; weights_not_normalised ('exp(scores) without dividing') blames no division at all -> mis-name on 2 tests
        "q05_off_by_one_softmax_extra_one_in_denominator": ('softmax_extra_denominator_term', 'one_edit_fix'),   # now (after blind35: naming36)
        # picks (b) 'mask costs rank': mask_changes_rank is exactly that belief
        "q06_answer_mask_costs_rank": ("mask_changes_rank",),
        # zero scores blocked too: no_causal_mask ('never applying the causal mask') blames another cause -> mis-name
        "q07_zero_scores_treated_as_blocked": ('mask_by_score_value',),   # now (after blind35: naming36)
        # rounded to 4 decimals: one_edit_fix torch.round(W, decimals=4) -> W fixes it at its place
        "q09_rounded_to_four_decimals": ("one_edit_fix",),
        # nats / log10(2): one_edit_fix math.log10(2) -> math.log(2) fixes it at its place
        "q10_nats_divided_by_log10_of_two": ("one_edit_fix",),
        # rank = number of axes: bound_from_lesson_head ('numbers of the lesson's example') blames another cause -> mis-name
        "q11_tensor_rank_taken_as_number_of_axes": ('rank_as_axes_or_lesson_rank',),   # now (after blind35: naming36)
        # set collapses equal shapes: param_count_no_wk ('forgetting W_K') gives the effect, not the cause (the set) -> mis-name
        "q12_shapes_collected_in_a_set": ('count_from_set_of_shapes',),   # now (after blind35: naming36)
        # default mask T x T: raw RuntimeError (size of tensor a (10) must match ... (5)), no key
        "q13_default_mask_built_square": ('default_mask_square',),   # now (after blind35: naming36)
        # picks (c) S: T' x T, O: T' x d_v, Y's tokens as the rows: cross_roles_swapped ('queries from Y') is that mistake
        "q14_answer_rows_indexed_by_keys": ("cross_roles_swapped",),
        # picks (d) cubic like inversion: cost_cubic_in_T is exactly that belief
        "q16_answer_cubic_like_inversion": ("cost_cubic_in_T",),
    },
}

BLIND36_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "sdpa-from-scratch": {
        # `.size` left uncalled: message says weights_shape is the method `size` itself, in torch .size() is the shape
        "q1_size_method_not_called": ("numpy_size_attribute",),
        # 1-D tensors: one_edit_fix drops the torch.tensor(...) wrapper at its line (+ "should be a tuple of Python ints")
        "q1_shapes_as_one_d_tensors": ("one_edit_fix",),
        # torch.cdist distances: generic "neither is the variance of the example's scores"; no key names distances
        "q2_scores_as_euclidean_distances": ('scores_as_distances',),   # now (after blind36: naming37)
        # d_k from axis 0: scale_by_batch_dim is exactly this (Q.shape[0] instead of the last axis)
        "q2_d_k_read_from_batch_axis": ("scale_by_batch_dim",),
        # exp left out: softmax_of_negated ('max - x instead of x - max') blames another cause -> mis-name;
        # weights_by_plain_sum would have been right; three q3 tests and q5 gradients are None
        "q3_exponential_left_out": ('weights_by_plain_sum',),   # now (after blind36: naming37; four q3 tests and q5's gradient test unnamed)
        # rounded to 4 decimals: one_edit_fix `p` in place of `torch.round(p, decimals=4)` fixes it at its place
        "q3_probabilities_rounded_to_four_decimals": ("one_edit_fix",),
        # diagonal=T_q - T_k: one_edit_fix makes the offset T_k - T_k (or T_q - T_q) = 0, the plain diagonal
        "q4_diagonal_offset_by_length_difference": ("one_edit_fix",),
        # Q/sqrt(d_k) then scores/sqrt(d_k) again: divide_by_dk is the net mistake ("scores end up divided by d_k")
        "q5_queries_prescaled_and_scores_divided_again": ("divide_by_dk",),
        # torch.mm on 3-D/4-D: fixed_axes blames K.T / fixed transpose axes and says use K.transpose(-2, -1),
        # which the code already has; the cause is the 2-D-only torch.mm -> mis-name
        "q5_torch_mm_on_batched_inputs": ('matmul_fixed_rank',),   # now (after blind36: the engine, called by naming37)
        # float tril of ones as attn_mask of F.sdpa: mask_added ('mask added to the scores, +1 where allowed,
        # blocked keys keep their weight') is what torch does with a float mask
        "q6_float_tril_mask_added_by_torch_sdpa": ("mask_added",),
        # "(C)" instead of "C": not caught (35/35)
        "q7_letter_in_parentheses": (),
        # bare C: answer_letter_unquoted is exactly this
        "q7_letter_without_quotes": ("answer_letter_unquoted",),
        # cost at T = 2048 given as the ratio: generic "how does T * T change when T doubles?"
        "q8_ratio_given_as_cost_at_doubled_T": ('cost_not_ratio',),   # now (after blind36: naming37)
        # range(1, T) skips a query: self_pairs_left_out (T (T - 1), diagonal left out) blames another cause -> mis-name
        "q8_counting_loop_starts_at_one": ('loop_starts_at_one',),   # now (after blind36: naming37)
    },
    "scaled-attention": {
        # dtype_changed: "a float32 tensor made inside meets an input of another dtype" - the torch.zeros buffer
        "q1_row_loop_buffer_in_default_float32": ("dtype_changed",),
        # raw exception: "mat1 and mat2 shapes cannot be multiplied (5x7 and 3x4)"; nothing says the body reads the global V
        "q1_lowercase_params_body_reads_global_V": ('reads_global_not_parameter',),   # now (after blind36: naming37)
        # one_edit_fix offers "`weights` in place of `e` on line 8" (the slip, at its place) beside a logsumexp edit of line 6
        "q1_output_mixed_from_unnormalised_exponentials": ("one_edit_fix",),
        # sqrt(d_k) on the scores then / d_k on the variance is the scores over d_k: the effect divide_by_dk says
        # (as q1_scaled_twice, q2_both_operands_scaled); borderline, the message does not point at `variance / d_k`
        "q2_scaled_variance_divided_by_d_k_again": ("divide_by_dk",),
        # the no-op loop makes scaled=True return the unscaled variance, the key's text (as q2_integer_exponent);
        # borderline, nothing points at the rebound loop variable
        "q2_scaling_loop_rebinds_loop_variable": ("scaled_flag_ignored",),
        # generic: "softmax_entropy of a (2, 3, 5) tensor has shape (6,), expected (2, 3)"; no key
        "q4_entropy_rows_flattened_shape_not_restored": ('entropy_shape_not_restored',),   # now (after blind36: naming37)
        # generic: "scaled columns are those of raw / c ... c = 22.19 (sqrt(d) = 16)"; no key for dividing by the std
        "q4_table_scaled_by_observed_std": ('table_scaled_by_observed_std',),   # now (after blind36: naming37)
        # variance_vs_std: std sqrt(d_k) confused with variance d_k
        "q5_answer_std_matched_against_variance_options": ("variance_vs_std", "answer_computed_by_code"),
        # answer_lesson_quiz_letter: "the letter lesson 79's quiz gives ... there A is d_k; here A is '1'"
        "q5_answer_lesson_quiz_letter_copied": ("answer_lesson_quiz_letter",),
        # answer_lookalike_letter: "GREEK CAPITAL LETTER ALPHA (U+0391)"
        "q6_answer_greek_capital_alpha": ("answer_lookalike_letter",),
        # mis-named: attention_as_argmax (and "the lesson's quiz letter") blame other causes; the cell chains
        # q7_answer = q6_answer while believing "a weighted average"; no key says an answer copied from another question
        "q7_answer_chained_to_q6": ('answer_copied_from_other_question',),   # now (after blind36: the engine, called by naming37)
        # raw exception: "mat1 and mat2 shapes cannot be multiplied (5x12 and 0x5)"; no key for the counter moved early
        "q8_column_counter_advanced_before_key_slice": ('mha_kv_slice_next_head',),   # now (after blind36: naming37)
        # one_edit_fix: "`W_O` in place of `W_V`" on the return line
        "q8_output_projection_uses_w_v": ("one_edit_fix",),
        # one_edit_fix: "permute(1, 0, 2) in place of permute(1, 2, 0)" on line 7
        "q8_split_permute_puts_tokens_last": ("one_edit_fix",),
    },
    "attention-pipeline": {
        # weight_transposed on all 3 q01 tests: the raw "inner() the last dimension must match" plus "with square
        # weights it runs and matches X @ W.T instead of X @ W" = torch.inner(X, W) is X @ W.T, the stated slip;
        # its "(nn.Linear's layout)" is an aside; inner_pairs_last_axes would be sharper
        "q01_inner_with_untransposed_weights": ("weight_transposed",),
        # unexpected_keyword on all 4: "matmul takes no transpose_b=: passing a torch function a keyword it does not take"
        "q02_tensorflow_transpose_b_keyword": ("unexpected_keyword",),
        # generic "ans_scale should be one letter as a string" for the number 1/sqrt(512): no key
        "q03_scale_factor_instead_of_letter": ('answer_value_not_letter',),   # now (after blind36: the engine)
        # raw "ValueError: data type <class 'numpy.object_'> not inexact" on all 3: no key (np.finfo of a torch dtype)
        "q04_numpy_finfo_on_torch_dtype": ('numpy_finfo_of_torch_dtype',),   # now (after blind36: the engine)
        # weights_not_normalised on 3 tests ("each row divided by its own sum is right": the divisor is not the row
        # sum, as judge32/34 accepted); the float16 / large-float32 tests (unshifted exp overflows) carry None -> partly
        "q05_exponentials_divided_by_logsumexp": ('weights_not_normalised',),   # now (after blind36: naming37)
        # one_edit_fix on all 3: line 5 `for i in range(len(q)):` with `K` in place of `q` (or `V`) = range(len(K))
        "q08_key_loop_bounded_by_query_length": ("one_edit_fix",),
        # raw "size of tensor a (9) must match the size of tensor b (81)": no key
        "q09_repmat_ported_as_repeat_on_a_vector": ('prefix_average_counts_repeated_flat',),   # now (after blind36: naming37)
        # caret_for_power: "in Python ^ is bitwise xor ... a power is **" - exactly the slip
        "q10_caret_for_power_in_effective_tokens": ("caret_for_power",),
        # generic "rank_S_lesson should be a number (a Python float; ...), got int64": no key (and it says float
        # where the question asks an integer)
        "q11_lesson_rank_left_as_numpy_integer": ('numpy_scalar_answer',),   # now (after blind36: the engine)
        # generic "should be a number ..., got tuple" + raw "can only concatenate tuple (not "int") to tuple": no key
        "q12_trailing_comma_makes_a_tuple": ('answer_in_container',),   # now (after blind36: the engine: its count test; the with_output test's crash not yet)
        # one_edit_fix on both: `T = X.shape[-2]` -> Y, or leave out line 3 (`Y = Y[..., :T, :]`): removes the cut
        "q13_keys_truncated_to_query_length": ("one_edit_fix",),
        # generic "should be one letter as a string" for the tuple of option b's shapes (answer_option_text did not fire)
        "q14_shapes_written_instead_of_letter": ('answer_value_not_letter',),   # now (after blind36: the engine)
        # generic "should be one letter as a string" for False: no key
        "q15_boolean_instead_of_letter": ('answer_value_not_letter',),   # now (after blind36: the engine)
        # MIS-NAMED: answer_option_number says 2 is "an option's number (counted from 1 'b', from 0 'c')"; the 2 is
        # the exponent of T^2, a quantity read off the question, not an option index
        "q16_exponent_instead_of_letter": ('answer_value_not_letter',),   # now (after blind36: the engine and naming37)
    },
}


# judged from `measure <slug> --set blind37 -v` on the engine frozen at 1b50504 (three judges who did not write
# the set); () where nothing names the mistake right
BLIND37_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "sdpa-from-scratch": {
        # generic: "weights_shape should be a tuple of Python ints, for example (2, 3, 4)" (both tests, no key); nothing
        # says the ints 400 / 5120 are entry counts (the product of the shape) rather than the shape
        "q1_shapes_given_as_entry_counts": ("shape_as_entry_count",),   # now (after blind37: naming38)
        # weights_sized_by_features: "(4, 64, 64): its last two axes are feature widths ... (d_k x d_k, like Q^T K) instead
        # of one entry per (query, key) pair: (B, T_q, T_k)" - exactly the mistake
        "q1_weights_as_feature_by_feature_products": ("weights_sized_by_features",),
        # generic: "exactly 1/8 of it, so the scale is right; but neither is the variance of the example's scores ... another
        # statistic than their .var() was taken" (no key); nothing names n = len() = 2 (first axis) instead of 50 scores
        "q2_hand_variance_n_from_len_of_batched_scores": ("variance_count_from_one_axis",),   # now (after blind37: naming38)
        # MIS-NAMED: 20 of 21 tests say softmax_sum_wrong_axis ("dividing by the sum over ... a fixed axis whatever dim is",
        # what builtin sum() over axis 0 does - right), but q5:test_float16_large_scores says softmax_subtracts_mean
        # ("subtracting each slice's mean instead of its maximum before exp; subtract x.amax") - the code does subtract the max
        "q3_python_builtin_sum": ("softmax_sum_wrong_axis",),
        # generic: "causal_mask(11) is not the causal mask ...: it differs in 21 entries, the first at [5, 0]" (no key);
        # nothing says the extra window (q_idx - kv_idx <= 4) hides the far-back keys
        "q4_sliding_window_mask_copied": ("causal_sliding_window",),   # now (after blind37: naming38)
        # causal_ignores_T_k: "causal_mask(9, 6) has shape (6, 6): a square mask from one length; it should be (9, 6), one
        # row per query and one column per key" - the T_k x T_k triangle cut to [:T_q], exactly its effect and fix
        "q4_key_length_triangle_cut_to_query_rows": ("causal_ignores_T_k",),
        # MIS-NAMED: all 12 q5 tests say mask_unsqueezed ("your code reshapes the mask for one shape only (as
        # mask.unsqueeze(0).expand(B, -1, -1) does): adding a dim to the mask (mask.unsqueeze(1) ...)"); the code adds no
        # dim and reshapes nothing - the mask is written in place into a fixed 2-D (L, S) attn_bias, which a batched mask
        # cannot fill; the student is sent to look for an unsqueeze that is not there ("use the mask as given" is near the fix)
        "q5_docs_bias_sized_T_q_by_T_k_filled_in_place": ("mask_filled_into_2d_bias",),   # now (after blind37: naming38)
        # one_edit_fix on all 3: line 5, `1 / math.sqrt(d_k)` in place of `torch.tensor(1 / math.sqrt(d_k),
        # dtype=torch.float16, ...)` - the slip at its place with its fix (does not say why: float16 rounding)
        "q5_scale_constant_made_in_float16": ("one_edit_fix",),
        # generic: "weights3 / out3 is not correct in row(s) [0, 1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then
        # take the softmax of each row)" (no key); nothing names the one-hot argmax (hard attention)
        "q6_hard_attention_one_hot_argmax": ("hard_attention_argmax",),   # now (after blind37: naming38)
        # multiply_by_sqrt_dk on all 3: "it matches multiplying the scores by sqrt(d_k) instead of dividing" - exactly the
        # effect of scale=math.sqrt(4) (scale= multiplies); does not mention the keyword itself
        "q6_sdpa_scale_keyword_given_the_divisor": ("multiply_by_sqrt_dk",),
        # not caught (35/35): expect_choice ignores spaces by design ("(B) " is "b"), so "C " passes
        "q7_letter_with_trailing_space": (),   # accepted on purpose: spaces around a letter are ignored, as "(C)" is
        # answer_option_number: "q_trap_answer is 2, an option's number (counted from 0 it is 'C') ... instead of its letter
        # as a string" - exactly the mistake
        "q7_option_index_instead_of_letter": ("answer_option_number",),
        # float_for_int: "attn_entries is tensor(1048576.), a float: ... where a Python int is asked: use ** ... (1024 ** 2),
        # or int(...) around the result" - the effect and a working fix; borderline: its examples of a cause (math.pow, /,
        # a float literal) are not torch.ones(...).sum(), and it does not say "tensor, not a number" in words
        "q8_entries_left_as_float_tensor": ("float_for_int",),
        # generic: "score_madds is not the number of multiply-adds of Q @ K.T (each entry is a dot product of length d_k)"
        # (no key); nothing names the exponent 6 = log2(64) used in place of d_k = 64
        "q8_madds_times_log2_of_head_width": ("madds_with_log2_d_k",),   # now (after blind37: naming38)
    },
    "scaled-attention": {
        # generic: all 5 q1 tests None ("the weight matrix does not match ... in 35 of 35 entries", a smallest failing
        # input); nothing says K.reshape(width, T_k) re-flows the keys where K.T / K.transpose(-2, -1) was meant
        # (q8 not charged)
        "q1_keys_reshaped_not_transposed": ("view_as_transpose",),   # now (after blind37: naming38)
        # inplace_on_input on all 6 q1 tests: "attention modifies its input in place (argument 1 [counted from 0 = K]
        # is not the same after the call) ... compute a new tensor instead (x = x - m, not x -= m)": exactly the
        # `Kt /= sqrt(d_k)` through the K.T view (as blind36-era q1_transposes_keys_in_place)
        "q1_keys_scaled_in_place_through_transpose_view": ("inplace_on_input",),
        # not caught: 28/28; range(1, d_k) drops coordinate 0, variance 15/16 * d_k at the tested sizes hides inside 10%
        "q2_coordinate_sum_from_one": ("dot_product_coordinate_dropped",),   # now (after blind37: naming38)
        # keys_are_queries on both q2 tests: "what the same generator gives when computing the scores from the queries
        # with themselves (Q Q^T, k = q)": the exact effect of the copy seeded with generator.initial_seed(), and the
        # student looks at why k equals q (as q2_two_draws_one_normal_buffer); ignores_generator ("a new
        # torch.Generator ... used instead") would name the cause itself and would also be right
        "q2_key_generator_reseeded_copy_jax_split": ("keys_are_queries", "ignores_generator"),
        # one_edit_fix on both q2 tests: "`dots.pow(2).mean()` in place of `dots.pow(2).sum()`" on line 10: the slip at
        # its place (its appended "the draws ... are multiplied by a constant" is secondary text, the fix is shown)
        "q2_second_moment_summed_not_averaged": ("one_edit_fix",),
        # entropy_unweighted on all 3 q4 tests: "averaging -log p over the row without weighting each term by p ...
        # multiply each -log p by its p": logsumexp(s) - mean(s) IS the mean of -log p_j; the fix is E_p[s] weighted by p
        "q4_entropy_identity_expected_logit_as_plain_mean": ("entropy_unweighted",),
        # raw: measure37 file "your code raised TypeError: can't convert np.ndarray of type numpy.str_" (None); a rerun
        # here gave "the sandboxed worker stopped: reply contains a value of unknown form" (None, counted generic by
        # measure). Either way nothing says q5_answer is array(['C']), not the string 'C'
        "q5_answer_numpy_boolean_mask_leaves_array": ("answer_in_container",),   # now (after blind37: the engine, 97e5b89)
        # one_edit_fix: "`2` in place of `3`" on line 2 (`q5_answer = "ABCD"[3]`): the 1-based index at its place (as
        # q5_answer_third_option_zero_indexed); the appended "that choice reflects squaring d_k" is D's reason, not
        # the student's, but the shown fix leads straight to C
        "q5_answer_one_based_option_number_into_letters": ("one_edit_fix",),
        # answer_value_not_letter: "q6_answer is True, a truth value, not a letter ... instead of the letter of the
        # option": exactly this
        "q6_answer_check_result_not_letter": ("answer_value_not_letter",),
        # generic: "q6_answer should be one letter as a string: "A", "B", "C", "D"" (None); the student sees "A" and is
        # not told about the hidden U+200B after it
        "q6_answer_zero_width_space_pasted": ("answer_invisible_character",),   # now (after blind37: the engine, 97e5b89)
        # answer_lookalike_letter: "'Ｄ' looks like 'D' but is FULLWIDTH LATIN CAPITAL LETTER D (U+FF24) ... a full-width
        # Ｂ ... retype the letter on a Latin layout": exactly this (its "from another alphabet" is loose, the fix right)
        "q7_answer_full_width_letter_from_ime": ("answer_lookalike_letter",),
        # MIS-NAMED: attention_as_argmax ("that choice reflects thinking attention returns only the best-matching value
        # (a hard argmax)") blames a belief the student does not hold (the cell wants "the version of the lookup that
        # has a gradient"); the cause is a keyword search for "gradient" whose first hit is the negated option C
        # (as q7_answer_chained_to_q6 was judged); no key says an answer picked by a text search over the options
        "q7_answer_keyword_search_hits_negated_option": ("answer_by_keyword_search",),   # now (after blind37: naming38)
        # generic: "multi_head_attention(...) has dtype torch.float32, expected torch.float64 (the input's dtype)" (None)
        # on both float64 q8 tests: the effect, but no key; dtype_changed (".float() ... float64 in float64 out") would
        # be exactly right
        "q8_inputs_cast_with_float": ("dtype_changed",),   # now (after blind37: naming38)
        # inplace_on_input on all 3 q8 tests: "multi_head_attention modifies its input in place (argument 1 [from 0 =
        # W_Q] ...) compute a new tensor instead (x = x - m, not x -= m)": exactly the `W_Q *= d_k ** -0.5`
        "q8_scale_folded_into_w_q_in_place": ("inplace_on_input",),
    },
    "attention-pipeline": {
        # returns_numpy_not_tensor on all 3 q01 tests: "Q is a NumPy array with the right values, not a torch tensor ...
        # build the result with torch": exactly np.dot's effect on tensors (its examples np.zeros / .numpy() are asides;
        # as blind q04_returns_numpy); q07/q09/q13 did not lose points
        "q01_numpy_dot_returns_arrays": ("returns_numpy_not_tensor",),
        # generic on all 4 q02 tests (key None): "S does not match ... in 40 of 40 entries" + smallest failing input;
        # nothing says K was reshaped instead of transposed
        "q02_keys_reshaped_instead_of_transposed": ("keys_reshaped_not_transposed",),   # now (after blind37: naming38)
        # answer_option_number: "ans_scale is 1, an option's number (... counted from 0 it is 'b') ... instead of its
        # letter as a string": exactly the zero-based index
        "q03_zero_based_option_index": ("answer_option_number",),
        # generic on all 4 q05 tests (key None): "A does not match ... largest difference 0.000225 ... spread over every
        # row and column"; nothing says the softmax ran in float16 (only q05 lost points)
        "q05_softmax_computed_in_half_precision": ("softmax_low_precision",),   # now (after blind37: naming38)
        # answer_in_container: "ans_mask is ['c'], a list holding a letter ... drop the brackets": exactly
        "q06_letter_inside_a_list": ("answer_in_container",),
        # mask_sign_flipped on 2 q07 tests ("match subtracting the additive mask (S - M) instead of adding it: the blocked
        # keys get all the weight") = the fill value's sign slip (+finfo.max on the future); borderline, since the code
        # fills and does not add a mask; one_edit_fix on q07:test_causal_properties and q09:test_zero_projections shows
        # "`torch.finfo(S.dtype).min` in place of `-torch.finfo(S.dtype).min`" on line 7: the exact fix at its place
        "q07_inline_fill_with_minus_finfo_min": ("mask_sign_flipped", "one_edit_fix"),
        # inplace_on_input on all 3 q08 tests: "modifies its input in place (argument 2) ... compute a new tensor
        # instead (x = x - m, not x -= m)": exactly V *= ...
        "q08_values_weighted_in_place": ("inplace_on_input",),
        # generic (key None): "rank_S_lesson is 5: that is T ... and also how many singular values S has at all
        # (len(torch.linalg.svdvals(S)) ... the zero ones included: the rank counts only the nonzero ones)"; says what
        # differs and comes close, but no key names len() of a boolean tensor (needs .sum())
        "q11_len_of_a_boolean_mask": ("rank_len_of_boolean_mask",),   # now (after blind37: naming38)
        # numpy_scalar_answer on both q12 tests: "is a numpy.int64 (np.int64(22512)), not a Python number ... convert it
        # with int(...)": exactly np.prod's effect
        "q12_np_prod_returns_numpy_integer": ("numpy_scalar_answer",),
        # MIS-NAMED: batched_input_unsupported on q13:test_cross_padding_mask ("output with shape [4, 7] doesn't match the
        # broadcast shape [2, 4, 7] ... code that works only for 2-D inputs: .T reverses every dimension ..., transpose(0, 1)
        # or torch.bmm ..., X.shape[0] ..., a 2-D reshape; use .transpose(-2, -1) or .mT"): the code has none of those;
        # the cause is M.add_(S) writing into the caller's (T, T') mask (fix: S = S + M); inplace_on_input would be
        # right; the overwritten caller's mask on an unbatched call is not caught at all
        "q13_scores_added_onto_callers_mask_in_place": ("inplace_on_input",),   # now (after blind37: naming38)
        # scores_from_values on all 3 q13 tests: raw shape crash + "with W_V as wide as W_Q it runs and matches scoring the
        # queries against the values (Q V^T) instead of the keys: the keys decide the weights, the values are what is
        # averaged": the K/V swap (as blind's q07_unpacks_q_v_k)
        "q13_keras_query_value_key_order": ("scores_from_values",),
        # one_edit_fix: "`1` in place of `2`" in `"abcd"[2]` on line 1: the one-based slip at its place; it keeps c's
        # distractor reason ("taking queries from Y ...") after it, as q5_answer_std_letter ("message keeps B's reason")
        "q14_one_based_index_into_letters": ("one_edit_fix",),
        # answer_in_words: "'Only when positions in X and in Y ...', words and no letter ... the answer is the one letter"
        "q15_option_text_instead_of_letter": ("answer_in_words",),
        # answer_option_text: "'O(T^2)', the words of option c, the right one ... the answer is ... 'c'": exactly
        "q16_big_o_formula_instead_of_letter": ("answer_option_text",),
    },
}


# judged from `measure <slug> --set blind38 -v` on the engine frozen at c24bb86 (three judges who did not write
# the set); () where nothing names the mistake right
BLIND38_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# judged from `measure sdpa-from-scratch --set blind38 -v` (frozen engine, /tmp/frozen38), full messages re-read by
# grading each wrong variant again (same scores and keys as /tmp/measure38-sdpa-from-scratch.txt); () where nothing
# names the mistake right
    "sdpa-from-scratch": {
        # one_edit_fix: "`[4, 10, 10]` in place of `{4, 10, 10}`" on line 1 (the slip at its place, the fix shown; does not say
        # why: a set drops the repeated 10). Two flaws: it offers a list where the question asks for a tuple (the test takes it),
        # and it appends raw "your code raised EncodeError: a value of type set cannot cross the sandbox boundary"
        "q1_shape_in_braces_is_a_set": ("one_edit_fix",),
        # generic on both q1 tests: "weights_shape / out_shape should be a tuple of Python ints, for example (2, 3, 4)" (None);
        # says None is no int, but nothing says the batch axis must be the example's 4, not left open as Keras prints it
        "q1_batch_axis_written_as_keras_none": ("batch_axis_left_none",),   # now (after blind38: naming39)
        # generic: "raw_score_var is 8.678 and scaled_score_var 1.085, exactly 1/8 of it ... neither is the variance of the
        # example's scores (Q @ K.transpose(-2, -1) ... 6.599): either other scores were measured or another statistic" (None);
        # says what differs, nothing names the layer_norm of Q and K before the product
        "q2_queries_and_keys_standardised_first": ("scores_of_standardised_inputs",),   # now (after blind38: naming39)
        # generic: q3:test_float16_logits_in_the_thousands "gave inf or NaN: subtract each slice's max before exp" (None); near
        # the fix, but the code does subtract the max when it is positive: nothing says the clamp(min=0) leaves very negative
        # slices unshifted so every exp underflows (0/0); q5/q6 did not lose points
        "q3_max_shift_clamped_at_zero": ("shift_clamped_at_zero",),   # now (after blind38: naming39)
        # generic on both rectangular q4 tests: "causal_mask(9, 6) is not the causal mask ...: it differs in 11 entries, the first
        # at [1, 1]" (None); nothing says linspace fractions stretch the triangle when T_q != T_k; q5 did not lose points
        "q4_positions_as_fractions_of_length": ("positions_as_fractions",),   # now (after blind38: naming39)
        # generic on 3 q4 tests ("differs in 55 entries, the first at [1, 0]") and q6:test_weights3_causal ("not correct in row(s)
        # [1, 2] (recompute the scores ...)"), all None; nothing says uint8 cols - rows wraps round so only the diagonal is kept
        "q4_offsets_in_uint8_wrap_around": ("mask_offsets_wrap_unsigned",),   # now (after blind38: naming39)
        # mask_all_for_any on all 12 q5 tests: "finding the queries with no allowed key by mask.all(dim=-1) instead of
        # mask.any(dim=-1): every query with one blocked key gets a row of zeros" - exactly the effect of ~mask.all(...) and a
        # working fix (~mask.any); its diagnosis model is masked_fill(~mask.all(...)), this very code (does not mention
        # that ~ binds after the method call)
        "q5_tilde_applied_after_all": ("mask_all_for_any",),
        # partly: float32_precision on q5:test_float64_dk12 and test_gradients_float64 ("right only to float32's precision ...
        # some step computes in float32 (a float32 tensor or constant, or .float()); keep the input's dtype") - right, the
        # np.float32 scale; q5:test_dv_differs_from_dk generic (None: "does not match in 82 of 84 entries (largest difference
        # 6.61e-09) ... spread over every row and column")
        "q5_scale_as_numpy_float32_scalar": ("float32_scale", "float32_precision"),   # now (after blind38: naming39)
        # partly: q6:test_weights3 and test_out3 generic (None: "should be a tensor or a nested list of numbers"); test_weights3_causal
        # one_edit_fix "`wc` in place of `weights3_causal`" - an edit of the synthetic answer line (store the tensor wc), which
        # works, but it is placed "on line 1 of its cell (`scores3 = Q3 @ K3.T / math.sqrt(4)`)" where weights3_causal does not
        # occur (engine defect: the edit's line falls back to the copy's def line); borderline, nothing says "strings, not floats"
        "q6_answers_stored_as_formatted_strings": ("number_as_string", "one_edit_fix"),   # now (after blind38: the engine)
        # one_edit_fix: "leave out line 4 (`out3 = out3 / out3.sum(dim=-1, keepdim=True)`)" + "your weights3 is right: out3 is
        # weights3 @ V3": the slip at its place with its fix
        "q6_output_rows_renormalised": ("one_edit_fix",),
        # answer_in_container: "q_trap_answer is ['C'], a list holding a letter ... drop the comma (or the brackets)": exactly
        "q7_letter_wrapped_in_a_list": ("answer_in_container",),
        # MIS-NAMED: zero_after_softmax ("that choice reflects zeroing masked weights after the softmax: rows no longer sum to 1:
        # compare what each approach does to the sum of a row's weights") blames believing option A; the code's check already
        # finds the rows no longer sum to 1 - the cause is the conditional's branches swapped ("A" if not ok else "C"), and the
        # student is sent to rethink a concept they got right (as judge37's q7_answer_keyword_search_hits_negated_option)
        "q7_row_sum_check_with_branches_swapped": ("answer_computed_by_code",),
        # numpy_scalar_answer: "score_madds is a numpy.int64 (np.int64(67108864)), not a Python number ... convert it with
        # int(...)": exactly np.prod's effect
        "q8_madds_from_np_prod_numpy_int64": ("numpy_scalar_answer",),
        # generic: "attn_entries should be a number (a Python float; use .item() on a tensor), got tuple" (None); says a tuple is
        # no number (and wrongly asks a float where an int count is asked); nothing says the shape (T, T) was given for T * T
        "q8_entries_given_as_matrix_shape": ("shape_for_number",),   # now (after blind38: the engine)
    },
    "scaled-attention": {
        # wrong_scale_constant on all 5 q1 tests: "the weights are softmax(Q K^T / c) with a different c: here c = 1.861,
        # where the scale is 1/sqrt(d_k) = 1/3.464" (d_k 12; c = 2 for d_k 16, 1.495 for d_k 5): c is d_k ** 0.25, the
        # exact effect of rooting d_k twice, with the numbers to see it; q8 not charged
        "q1_d_k_rebound_to_its_root_then_rooted_again": ("wrong_scale_constant",),
        # variance_scaled_by_sample_count: "the unscaled variance of the same draws divided by n_samples = 10000: dividing
        # the dot products by sqrt(n_samples) ... instead of by sqrt(d_k)": exactly len(q) = n_samples (its "standard-error
        # habit" is an aside)
        "q2_scale_from_len_of_sample_matrix": ("variance_scaled_by_sample_count",),
        # dots_summed_over_samples on both q2 tests: "what the same generator gives when summing the products over the
        # samples (dim 0) instead of over the d_k coordinates of each pair (dim -1)": sum(cov(products)) IS the variance
        # over the d_k columns of the sums over the samples, so the effect is exact and the axis swap is the fix
        # (cov(products.T)); borderline: the code has no dim to change and nothing says torch.cov takes ROWS as variables
        "q2_covariance_of_products_with_samples_as_variables": ("dots_summed_over_samples",),
        # entropy_one_number on all 3 q4 tests: "reducing the whole tensor to one number (the row entropies ... summed)
        # instead of returning one entropy per row" + "got a tensor of shape ()": exactly the flattened mask's effect;
        # it does not say p[p > 0] flattens (its "reduce only along the last dimension" is what sum(dim=-1) already says)
        "q4_entropy_boolean_mask_flattens_rows": ("entropy_one_number",),
        # generic: both table tests None, "does not match ... in 8 of 16 entries ...: the wrong entries all lie at index
        # 0, 1 of the last axis" (raw_std, scaled_std); says where, but no key says they hold the means (std_mean's order)
        "q4_table_std_mean_unpacked_mean_first": ("table_std_holds_mean",),   # now (after blind38: naming39)
        # MIS-NAMED: variance_d_k_squared ("that choice reflects squaring d_k: the variances ... add up, they do not
        # multiply") blames a belief the student does not hold (its dict puts 0.75 on C, its comment says d_k); the cause
        # is max(dict) comparing keys ('D' > 'C'), fix max(confidence, key=confidence.get); no key says so
        "q5_answer_max_of_confidence_dict_returns_largest_key": ("answer_computed_wrong_choice",),   # now (after blind38: naming39)
        # MIS-NAMED: answer_option_number ("q5_answer is 4, an option's number (counted from 1 it is 'D')") blames an
        # option index (and points at D); the 4 is the notebook's global d_k read by the unquoted formula `d_k` (as
        # blind36 q16_exponent_instead_of_letter); answer_value_not_letter / example_value_reused (stale global) would fit
        "q5_answer_formula_unquoted_reads_global_d_k": ("answer_value_not_letter",),   # now (after blind38: naming39)
        # MIS-NAMED: variance_after_scaling ("'A', the letter lesson 79's quiz gives ... that choice reflects giving the
        # variance of the scaled dot product (1) for the raw one") blames copying the lesson's letter and a belief; the
        # cause is the probe's exact float == never matching, so the placeholder 'A' stays; no key says so
        "q5_answer_probe_matched_by_exact_float_equality": ("answer_computed_wrong_choice",),   # now (after blind38: naming39)
        # answer_by_keyword_search: "q6_answer is 'D', the last option whose text matches your cell's search for
        # 'weighted' ... a wrong option can hold it too (one that says the opposite)": exactly the loop whose last hit is
        # "unweighted" (it does not say `break`, but shows the last match was kept)
        "q6_answer_keyword_loop_without_break_keeps_unweighted": ("answer_by_keyword_search",),
        # MIS-NAMED: uniform_weights ("that choice reflects giving every key the same weight (the mean of V)") blames a
        # belief the student does not hold; the cause is the lesson's check read with W[j, 0] (a column) instead of W[0, j],
        # so allclose fails and the fallback 'D' is taken; no key says so
        "q6_answer_lesson_check_reads_weight_column": ("answer_computed_by_code",),
        # MIS-NAMED: attention_as_argmax ("thinking attention returns only the best-matching value (a hard argmax)") blames
        # a belief the student does not hold (its check found the soft lookup, True); the cause is "DC"[True] = 'C', the
        # (if_false, if_true)[cond] idiom reversed (as blind37 q7_answer_keyword_search_hits_negated_option)
        "q7_answer_bool_used_as_index_picks_second_letter": ("answer_computed_wrong_choice",),   # now (after blind38: naming39)
        # answer_extra_characters: "q7_answer is "['D']": it has characters besides the letter, which seems to be 'D' ...
        # the letter alone, as a string": exactly str(["D"])'s effect and the fix
        "q7_answer_list_stringified_to_pass_format_check": ("answer_extra_characters",),
        # MIS-NAMED: mha_head_slice_fixed on all 3 q8 tests ("slicing the same head's columns ... for every head (Q[:, :d_k]
        # left in the loop): the slice must move with the head"): the slice does move; the cause is one out= buffer
        # appended n_heads times (every head = the last one); the student is sent to a correct slice; no key says aliasing
        # (same_projection's "results written into one buffer, out=" is about Q/K/V, not heads)
        "q8_one_output_buffer_shared_by_every_head": ("mha_heads_share_one_buffer",),   # now (after blind38: naming39)
        # inplace_on_input on all 3 q8 tests: "multi_head_attention modifies its input in place (argument 0 [X] ...) compute
        # a new tensor instead": exactly concat = X written into
        "q8_input_reused_as_head_buffer_in_place": ("inplace_on_input",),
    },
    # wrong 14: named right 7 / partly 0 / generic 1 / raw 0 / mis-named 6 / not caught 0; correct at full marks 5/5
    "attention-pipeline": {
        # dtype_changed on q01:test_project_batched_float32 (the only failed test): "Q is torch.bfloat16 for torch.float32
        # inputs, right only to bfloat16's precision ... returning or mixing in another dtype than the input's ... float16 in
        # must give float16 out": exactly autocast's effect (its examples .float() / a float32 never cast back are asides;
        # as blind37's scaled-attention q8_inputs_cast_with_float); q07/q09/q13 did not lose points
        "q01_projections_under_autocast": ("dtype_changed",),
        # batched_input_unsupported on all 3 q02 tests: "your code raised RuntimeError: t() expects a tensor with <= 2
        # dimensions ... on one slice of the same inputs it runs and is right: code that works only for 2-D inputs ...
        # use .transpose(-2, -1) or .mT": exactly F.linear's 2-D-weight limit and a working fix; borderline only in that
        # its examples (.T, transpose(0, 1), bmm) do not list F.linear (as q10_python_loop_assumes_two_dims)
        "q02_functional_linear_for_the_scores": ("batched_input_unsupported",),
        # scale_direction_reversed: "that choice reflects thinking larger scores make the softmax flatter: unscaled scores
        # grow like sqrt(d_k) and make each row sharper": the conclusion the reversed comparison draws ('a') and its
        # refutation, which tells the student their _H_unscaled < _H_scaled means 'b' (as blind's
        # q5_answer_decided_from_scaled_run / q7_checked_with_loose_tolerance: the key is the conclusion the experiment
        # led to); borderline: it says "thinking", where the slip is the `<` of the comparison, not a belief
        "q03_experiment_comparison_reversed": ("scale_direction_reversed", "answer_computed_by_code"),
        # generic (None) on all 3 q04 tests: "the mask blocks the wrong entries ... 3 entries blocked that must stay open
        # (the first at (0, 0)); 3 [10] entries open that must be blocked (the first at (2, 3))"; nothing says the
        # integer 0/1 triangle indexes ROWS 0 and 1 (integer-array indexing) where a boolean mask was meant
        "q04_integer_triangle_used_as_index": ("mask_integer_triangle_index",),   # now (after blind38: naming39)
        # answer_option_number: "ans_mask is 3, an option's number (counted from 1 it is 'c' ...) instead of its letter
        # as a string": exactly
        "q06_one_based_option_number": ("answer_option_number",),
        # returns_numpy_not_tensor: "W_avg is a NumPy array with the right values, not a torch tensor ... build the
        # result with torch": exactly
        "q09_numpy_array_returned": ("returns_numpy_not_tensor",),
        # generic (None) on both q10 tests: "H does not match the correct result in 10 of 14 entries ... the wrong entries
        # all lie at index 1..5 of the last axis" and a smallest input (expected 0.532, got 0 on a row with a zero
        # weight); nothing says the NaN of 0 log 0 was zeroed after the row sum, wiping the whole row's entropy
        "q10_nan_to_num_after_the_row_sum": ("entropy_nan_zeroed_after_sum",),   # now (after blind38: naming39)
        # MIS-NAMED: one_edit_fix on q11:test_rank_S_lesson shows "`Q_lesson` in place of `K_lesson`" on line 5, i.e.
        # eigvals(Q Q^T / 2): symmetric, so its 2 non-zero eigenvalues give rank 2 by coincidence, but it is not S; the
        # student is sent to change S's keys into its queries. The real slip is counting non-zero eigenvalues (S is not
        # diagonalisable: 1 eigenvalue, rank 2) where singular values were meant. Its appended keyless line "try
        # torch.linalg.matrix_rank on the lesson's S" points the right way but does not undo the wrong fix
        "q11_rank_from_nonzero_eigenvalues": ("rank_from_eigenvalues",),   # now (after blind38: naming39)
        # not caught (42/42): expect_int accepts a whole float (2.0) by design ("an int, a whole float, or a one-element
        # tensor"), though the question and the notebook's own public check (isinstance(rank_S_lesson, int)) ask for a
        # Python int, and q12 / sdpa-from-scratch charge float_for_int for a float where an int is asked
        "q11_count_summed_as_float": (),   # accepted: variants.py's answers_other_forms takes 2.0 as a right rank
        # generic (None) on both q12 tests: "the count is wrong (for d_v different from d_k)" and "... you give 151032.0;
        # W_Q, W_K, W_V hold 38688 and W_O 17360, so your count holds 112344.0 for W_O if the rest is right"; nothing says
        # W_Q (and W_O) were counted d_model x d_model as nn.MultiheadAttention builds them (kdim / vdim are input
        # widths); both hints lean the wrong way (d_v vs d_k; W_O), but keyless, so generic, not mis-named
        "q12_counted_from_multihead_attention_kdim": ("param_count_mha_input_widths",),   # now (after blind38: naming39)
        # one_edit_fix on q13:test_cross_padding_mask: line 4, "`pass` in place of `M = M[..., None, :]` -- or --
        # `M[..., :]` ...": the extra expansion at its place with the fix (drop it); appended raw error is secondary
        "q13_mask_expanded_like_a_key_padding_vector": ("one_edit_fix",),
        # cross_roles_swapped: "that choice reflects taking queries from Y or keys/values from X in cross-attention":
        # exactly what cross_attention(_Y, _X, ...) in the experiment did
        "q14_experiment_with_x_and_y_swapped": ("cross_roles_swapped", "answer_computed_by_code"),
        # answer_extra_characters: "ans_cross_causal is '\"d\"': it has characters besides the letter ... (quotes ...):
        # the answer must be the letter alone": exactly
        "q15_letter_wrapped_in_its_own_quotes": ("answer_extra_characters",),
        # cost_linear_in_T: "that choice reflects thinking the score matrix costs time linear in T: there are T^2
        # scores": the linear count the one-row measure produced, and "T^2 scores" is exactly what S.shape[-1] * d_k
        # missed (it counts T scores)
        "q16_cost_of_one_row_counted": ("cost_linear_in_T", "answer_computed_by_code"),
    },
}


# blind39 (2026-12-04): written by three helpers who did not read the catalogue; judged by three others on the
# engine frozen at the set's commit (first sight). First sight: sdpa 9, scaled 4, pipeline 11 named right of 14;
# mis-named: sdpa 1, scaled 4, pipeline 1.
BLIND39_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# judged from `measure sdpa-from-scratch --set blind39 -v` (frozen engine, /tmp/frozen39), full messages re-read by
# grading each wrong variant again (same scores and keys as /tmp/measure39-sdpa-from-scratch.txt); () where nothing
# names the mistake right
    "sdpa-from-scratch": {
        # generic on both q1 tests: "weights_shape / out_shape should be a tuple of Python ints, for example (2, 3, 4)" (None);
        # says a tuple of ints is wanted (enough to fix), but no key says a dict of named axes was given
        "q1_shapes_as_dicts_of_named_axes": ("shape_as_dict_of_axes",),
        # output_width_dk: "out_shape takes its last dimension from d_k; the output width comes from V": exactly the effect
        # (MHA's out projection maps back to embed_dim = the query width d_k = 64) and the fix (V's width, 128); borderline:
        # nothing says nn.MultiheadAttention's output projection is why, but the cause it names (d_k) is literally right
        "q1_out_shape_probed_through_multihead_attention": ("output_width_dk",),
        # biased_variance: "the variances are the biased ones (divided by n): use torch's default .var(), which divides by
        # n - 1": exactly statistics.pvariance
        "q2_population_variance_from_statistics": ("biased_variance",),
        # numpy_scalar_answer: "raw_score_var is a numpy.float32 (np.float32(6.599141)), not a Python number ... convert it
        # with int(...) or float(...)": exactly
        "q2_variances_left_as_numpy_float32": ("numpy_scalar_answer",),
        # partly: inplace_on_input on the 4 q3 tests and on q6:test_weights3_causal ("stable_softmax modifies its input in
        # place ...; compute a new tensor instead") - right, out=x overwrites the caller's logits; q5:test_gradients_float64
        # None, raw "your code raised RuntimeError: exp(): functions with out=... arguments don't support automatic
        # differentiation" (torch's own words point at out=, but no key)
        "q3_exponentials_written_into_the_input": ("inplace_on_input",),
        # generic: 3 q4 tests None, "causal_mask(11) is not the causal mask ...: it differs in 1 entries, the first at [0, 0]",
        # and q6:test_weights3_causal None "contains NaN or inf in row(s) [0]"; locates the cell exactly, but nothing says
        # .bool() drops the grid cell numbered 0 (tril of arange keeps 0 there)
        "q4_tril_of_numbered_grid_cast_to_bool": ("numbered_grid_cast_to_bool",),
        # inverted_mask on 3 q4 tests and q6: "causal_mask(11) is True on the keys a query may not see: it matches treating
        # True in the mask as 'blocked' ...": exactly the effect of .bool() on the additive 0/-inf mask (as blind23's
        # q4_returns_nanogpt_fill_condition, tril == 0); nothing says the -inf entries become True
        "q4_subsequent_mask_cast_to_bool_is_inverted": ("inverted_mask",),
        # dtype_changed on the 3 half-precision q5 tests: "expected m1 and m2 to have the same dtype ... for float16 inputs;
        # the same values in float32 run and are right: some step converts to float32 (.float(), a float32 tensor) ...;
        # keep the input's dtype": exactly the .float() flag
        "q5_empty_row_flag_made_float32": ("dtype_changed",),
        # result_axes_permuted: "weights3_causal ... matches returning the right values with the axes in another order (a
        # transpose(dim, -1) or permute that is never undone): move the axes back": exactly the effect of pad_sequence's
        # batch_first=False (a transposed result) and a working fix (.T / batch_first=True); borderline: its example cause
        # is a transpose, nothing names pad_sequence's default
        "q6_prefix_softmaxes_padded_sequence_first": ("result_axes_permuted",),
        # zero_after_softmax: "q_trap_answer is not the best answer: that choice reflects zeroing masked weights after the
        # softmax: rows no longer sum to 1: compare what each approach does to the sum of a row's weights": the answer A comes
        # from a check too weak to see the difference (.any()), the belief the faulty check confirmed, and the row-sum
        # comparison is what .all() would have found (as blind21/28's q7_agreement_checked_on_one_token,
        # q7_checked_with_loose_tolerance); unlike blind38's branches-swapped mis-name, this check did conclude "agree"
        "q7_agreement_checked_with_any": ("zero_after_softmax", "answer_computed_by_code"),
        # answer_value_not_letter: "q_trap_answer is [0, 0, 1, 0], a list of 4 values, not a letter ... as a string such as
        # "B"": exactly
        "q7_answer_as_one_hot_vector": ("answer_value_not_letter",),
        # MIS-NAMED: cost_linear_in_T ("cost_ratio of 2 means a cost linear in T: every query meets every key, so T * T
        # entries") blames a belief the student does not hold (the code's comment says "quadratic in T: O(T^2)" and
        # attn_entries = 1024 ** 2 passes); the cause is giving the exponent 2 of T^2 for the factor the cost grows by when
        # T doubles (2 ** 2 = 4); the student is told what they already know (T * T) (as blind29's q8_helper_arguments_swapped)
        "q8_ratio_given_as_growth_exponent": ("cost_ratio_as_exponent",),
        # number_as_string on both tests: "attn_entries is '1,048,576', a string holding the number 1.04858e+06 ... write the
        # number itself ... without quotes": exactly
        "q8_counts_copied_from_formatted_printout": ("number_as_string",),
        # generic: "attn_entries is not the number of entries of the weight matrix (one per query-key pair)" (None); nothing
        # says 2e20 is 2 x 10^20, not 2 ** 20 (nor shows the value given)
        "q8_two_to_the_twenty_typed_as_2e20": ("power_typed_as_e_notation",),
    },
# wrong 14: named right 9 / partly 1 / generic 3 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
# judged from `measure scaled-attention --set blind39 -v` (frozen engine, /tmp/frozen39), full messages re-read by
# grading each variant again (same scores and keys as /tmp/measure39-scaled-attention.txt); () where nothing names
# the mistake right
    "scaled-attention": {
        # partly: dtype_changed on q1:test_float32_square, test_noncontiguous_inputs, test_broadcast_inputs ("the weight
        # matrix has dtype torch.float16 for torch.float32 input; its values are right: returning or mixing in another
        # dtype than the input's ... float16 in must give float16 out"): exactly autocast's effect (its examples .float() /
        # a float32 never cast back are asides, as blind38 attention-pipeline q01_projections_under_autocast);
        # q1:test_weight_rows_sum_to_one generic (None: "the rows of the weight matrix do not sum to 1 ... row(s) 0, 1, 2,
        # 3 of 4 sum to 1 ... 1" - float16 rounding; the message reads garbled, nothing says float16); q8 not charged
        "q1_matmuls_inside_cpu_autocast_float16": ("dtype_changed",),
        # MIS-NAMED (one test of five): wrong_scale_constant on all 5 q1 tests, "the weights are softmax(Q K^T / c) with a
        # different c: here c = 8, where the scale is 1/sqrt(d_k) = 1/3.464" (d_k 12) - right, c = 8 whatever d_k is
        # sqrt(64) - but q1:test_float32_square (d_k 16) says "here c = 8 (d_k / 2: Python reads d_k ** 1/2 as
        # (d_k ** 1) / 2)": a precedence slip the code does not have (it writes math.sqrt(d_k) after d_k = 64); the
        # student is sent to look for ** 1/2. Engine defect: _diagnose.py's d_k / 2 hint fires on one d_k alone (its own
        # comment knows "with d_k = 16 it is 8, a d_k of 64 written out"); without that hint wrong_scale_constant names
        # it right
        "q1_d_k_overwritten_with_papers_64": ("wrong_scale_constant",),
        # dots_summed_over_samples on both q2 tests: "what the same generator gives when summing the products over the
        # samples (dim 0) instead of over the d_k coordinates of each pair (dim -1)": exactly diag(q.T @ k), which
        # contracts over the samples; the fix (contract over the coordinates: q @ k.T's diagonal, or sum(dim=-1)) follows
        "q2_dots_from_diagonal_of_transposed_product": ("dots_summed_over_samples",),
        # generic: all 3 q4 tests None, "does not match ... it is the correct result times a constant: off by a constant
        # factor x0.4" (x0.5, x0.4286): says what differs (a factor, = len(logits) / T) but nothing says len() is the
        # size of the FIRST axis, not the number of keys (the sum over keys written as mean * len(logits))
        "q4_entropy_mean_rescaled_by_len_of_first_axis": ("entropy_mean_times_first_axis",),
        # partly: one_edit_fix on q4:test_entropy_views, "one change to the helper `_row_entropy` it calls, on line 3 ...:
        # `(p * torch.log(p + 1e-09)).sum(dim=-1)` in place of `... .sum()`": the slip at its place with a working fix
        # (each (B, T) slice then gives B entropies); q4:test_entropy_random_logits generic (None: "has shape (2,),
        # expected (2, 3)")
        "q4_entropy_loop_over_first_axis_sums_whole_slices": ("one_edit_fix", "entropy_slices_summed"),
        # MIS-NAMED: variance_d_k_squared ("that choice reflects squaring d_k: the variances of the d_k independent
        # products add up to d_k, they do not multiply") blames a belief the student does not hold (its probe measures
        # ~16 and its options dict has C = 16); the cause is max() where min() was meant over |option - measured| (the
        # FARTHEST option). answer_computed_wrong_choice does not fire: _mechanical_pick leaves a key= the student wrote
        # to the belief keys by design
        "q5_answer_probe_picks_farthest_option": ("answer_computed_by_code",),
        # answer_value_not_letter: "q5_answer is 15.8, a number, not a letter: answering ... with a value (... or a
        # result worked out) instead of the letter of the option that says it, as a string such as "B"": exactly
        "q5_answer_measured_variance_number": ("answer_value_not_letter",),
        # raw: "your code raised EncodeError: a value of type set cannot cross the sandbox boundary" (None); it does say
        # "set", but nothing says the braces make a set where the string 'A' is asked (blind38 sdpa q1's set got a
        # one_edit_fix; here nothing)
        "q6_answer_set_literal": ("answer_in_container",),
        # MIS-NAMED: attention_as_argmax ("that choice reflects thinking attention returns only the best-matching value
        # (a hard argmax) instead of a weighted mixture") blames a belief the student does not hold (the cell runs the
        # lesson's weighted-sum check); the cause is attention called with d_k = X.shape[0] (4 tokens) instead of the
        # width 8, so allclose fails and the fallback 'C' is taken; no key says so (as blind38
        # q6_answer_lesson_check_reads_weight_column)
        "q6_answer_lesson_check_run_with_token_count_as_d_k": ("answer_computed_by_code",),
        # MIS-NAMED: attention_as_argmax ("thinking attention returns only the best-matching value (a hard argmax)")
        # blames a belief the student does not hold (its comment: "a hard lookup / argmax would give zero gradients");
        # the cause is the probe demanding every gradient > 0 where the off-diagonal softmax derivatives -p_i p_j are
        # negative (!= 0 was meant); the refutation "instead of a weighted mixture" says nothing about the sign, so unlike
        # blind38 q03_experiment_comparison_reversed it does not undo the probe's conclusion
        "q7_answer_gradient_probe_expects_all_positive": ("answer_computed_by_code",),
        # generic: "`q7_answer` is not defined in your notebook (or is None): run every cell, keep the given names"
        # (None); the effect, but nothing says a name assigned inside a def is local (return value thrown away)
        "q7_answer_assigned_inside_helper_function": ("answer_bound_in_function",),
        # answer_value_not_letter: "q7_answer is ('D', 'soft, differentiable lookup: ...), a tuple of 2 values, not a
        # letter: ... instead of the letter of the option that says it, as a string such as "B"": the form is the
        # mistake and the fix (the letter alone, a string) follows; borderline: its "a value instead of the letter"
        # overlooks that the letter is there, with a reason beside it (answer_in_container covers one-element only)
        "q7_answer_tuple_of_letter_and_reason": ("answer_value_not_letter",),
        # generic: all 3 q8 tests None, "does not match ...; read back through W_O, head(s) [3] of the concatenated heads
        # are right and head(s) [0, 1, 2] ... are wrong" (head 7 of 8, head 2 of 3): says only the LAST head survives,
        # close, but no key says the per-head terms are assigned with = where += (a sum over heads) is needed
        "q8_blockwise_output_projection_assigned_not_accumulated": ("mha_heads_overwritten",),
        # one_edit_fix on all 3 q8 tests: line 5, "`(X @ W).view(-1, nbatches, n_heads, d_k)` in place of
        # `(X @ W).view(nbatches, -1, n_heads, d_k)` (checked on all 3 inputs)": the slip at its place with a working
        # fix (X's T axis read as the batch); borderline: it does not say X has no batch axis, and the fix leaves the
        # name nbatches standing for T
        # now (naming round 58: mha_tokens_attend_only_themselves, by replay X @ W_V @ W_O (X's T axis read as the batch: each token attends only itself), now named before one_edit_fix)
        "q8_annotated_transformer_batch_view_on_unbatched_input": ("one_edit_fix", "mha_tokens_attend_only_themselves"),
    },
# wrong 14: named right 4 / partly 2 / generic 3 / raw 1 / mis-named 4 / not caught 0; correct at full marks 5/5
    # judged from `measure attention-pipeline --set blind39 -v` (full messages re-read with harness.grade) against
    # each variant's "mistake" words and code; () where no failed test names it right
    "attention-pipeline": {
        # batched_input_unsupported on both q01 tests: "your code raised RuntimeError ... for X (2, 3, 6, 10); on one
        # slice of the same inputs (X (6, 10)) it runs and is right: ... .T reverses every dimension of a batched
        # tensor ... use .transpose(-2, -1) or .mT": exactly the column-vector (W^T X^T)^T slip and its fix;
        # q07/q09/q13 did not lose points
        "q01_column_vector_convention_with_T": ("batched_input_unsupported",),
        # scores_transposed on all 4 q02 tests: "it matches computing K Q^T (keys as rows) instead of Q K^T (queries
        # as rows)": exactly what the einsum without '->...qk' returns (letters sorted: ...kq); it does not say
        # "implicit einsum output", but the effect is exact and points at the output order to fix
        "q02_einsum_implicit_output_sorted_alphabetically": ("scores_transposed",),
        # callable_not_called: "ans_scale is a function or method, not a value ... add the () that call it": exactly
        # the uncalled "B".lower
        "q03_lower_method_not_called": ("callable_not_called",),
        # fill_mask_not_bool on all 3 q04 tests: "where expected condition to be a boolean tensor, but got ... Float:
        # passing a pattern of numbers ... as ... the condition of torch.where, which must be torch.bool: build the
        # pattern with dtype=torch.bool, or compare it": exactly the float 0/1 triangle as torch.where's condition
        "q04_float_triangle_as_where_condition": ("fill_mask_not_bool",),
        # MIS-NAMED: softmax_implicit_dim on 3 q05 tests, "calling F.softmax without dim: torch's legacy rule then
        # normalises dim 0 of a 1-D or 3-D input (dim 1 otherwise) ...; pass dim=-1"; its effect line ("normalised
        # over dim 1 of this 4-D S and over dim 0 of a 3-D S") is true, but the code omits no dim: nn.Softmax2d calls
        # F.softmax(input, -3) with an explicit channel axis, and Softmax2d takes no dim to pass; the text blames an
        # omission the student did not make (as blind13's q13_softmax_over_queries_inline and
        # q4_entropy_softmax_denominator_axis0); the other 2 tests (2-D S) are raw, key None ("ValueError: Softmax2d:
        # expected input to be 3D or 4D, got 2D instead"); nothing says Softmax2d normalises the channel axis
        "q05_softmax2d_module_for_rows": ("softmax_over_channel_axis",),
        # mask_blocks_gradient: "that choice reflects thinking the mask is about gradients: without it position t
        # reads the token it is trained to predict": the conclusion the autograd experiment led to ('d') and its
        # refutation (as q06_answer_no_gradient)
        "q06_gradient_experiment_read_as_no_gradient": ("mask_blocks_gradient", "answer_computed_by_code"),
        # multiply_by_sqrt_dk on all 3 q08 tests: "it matches multiplying the scores by sqrt(d_k) instead of
        # dividing": exactly
        "q08_scale_multiplied_into_the_kernel": ("multiply_by_sqrt_dk",),
        # dtype_mix: "expected m1 and m2 to have the same dtype ... double != float: ... a tensor made without dtype=
        # (float32 by default) ... meets the input's (float64 ...); make new tensors with the input's dtype": exactly
        # torch.ones(T, T) without dtype against the float64 diagonal; q10 did not lose points
        "q09_float64_diagonal_times_default_dtype_ones": ("dtype_mix",),
        # no_causal_mask on 3 q07 tests and q09:test_zero_projections: "(O, A) ... match never applying the causal
        # mask, so tokens read the future" / "A has weight on future keys": the tril()'d additive mask is all zeros,
        # so the output is exactly the unmasked one; the student is sent to the mask line, the right place;
        # borderline: the code does add a mask (an erased one), and mask_blocks_nothing ("a mask that blocks nothing
        # (all zeros) ... M.triu(...)") would name the cause; not a mis-name, since the effect is exact (unlike
        # q07_zero_scores_treated_as_blocked, where the "match" was not the whole effect)
        "q07_tril_applied_to_the_additive_mask": ("no_causal_mask",),
        # generic (None): "max_rank_S is not correct: what limits the rank of Q K^T?"; a hint, but nothing says the
        # all-ones experiment gives one example's rank (1), a lower bound, not the maximum min(d_k, T)
        "q11_max_rank_measured_on_ones": ("rank_from_one_example",),
        # generic (None) on both q12 tests: "the count is wrong (for d_v different from d_k)" and "... you give 404.0;
        # W_Q, W_K, W_V hold 38688 and W_O 17360, so your count holds -38284.0 for W_O if the rest is right"; nothing
        # says len(weight) is only the out_features rows, not the entries (numel); the hints lean the wrong way (d_v
        # vs d_k, W_O) but are keyless, so generic, not mis-named
        "q12_len_of_linear_weights": ("param_count_len_rows",),
        # answer_in_container: "ans_cross_shapes is array(['b'], dtype='<U1'), a NumPy array holding a letter (take it
        # out: ans_cross_shapes = str(arr.item()))": exactly the one-element array from boolean indexing, with the
        # fix; the appended key text (tuple / trailing comma) is an aside
        "q14_boolean_index_returns_array": ("answer_in_container",),
        # causal_needs_square: "that choice reflects tying the causal mask to a square score matrix: what matters is
        # whether both sequences share one time axis": the conclusion the broadcast error led to ('b') and its
        # refutation
        "q15_broadcast_error_read_as_never": ("causal_needs_square", "answer_computed_by_code"),
        # cost_independent_of_T: "that choice reflects thinking the cost of the scores does not depend on T: there
        # are T^2 of them": the conclusion element_size (constant in T) led to ('b') and the T^2 entries it missed
        # (as q16_answer_b)
        "q16_memory_from_element_size": ("cost_independent_of_T", "answer_computed_by_code"),
    },
# wrong 14: named right 11 / partly 0 / generic 2 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
}


# blind40 (2026-12-04): written by three helpers who did not read the catalogue; judged by three others on the
# engine frozen at the set's commit cf6a419 (first sight). First sight: sdpa 9, scaled 13, pipeline 10 named right
# of 14; mis-named: sdpa 1, scaled 0, pipeline 2.
BLIND40_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# judged from `measure sdpa-from-scratch --set blind40 -v` (frozen engine, /tmp/frozen40), full messages re-read by
# grading each wrong variant again (/tmp/j40-sdpa/full.txt: same scores and keys as /tmp/measure40-sdpa-from-scratch.txt);
# () where nothing names the mistake right
    "sdpa-from-scratch": {
        # generator_returned on both q1 tests: "weights_shape(...) returned a generator, not a value: ... (or returns a
        # generator expression) where a list or a value is asked ... return `list(...)`": the cause exactly (a generator
        # expression in place of a tuple), and list(...) is a working fix (expect_shape takes a tuple or a list);
        # borderline wording: "weights_shape(...) returned" reads as if it were a function, nothing says Python has no
        # tuple comprehension (tuple(...) is the exact fix)
        "q1_tuple_comprehension_is_a_generator": ("generator_returned",),
        # generic: "weights_shape is not the shape of the attention-weight matrix: it has one entry per (query, key) pair"
        # (None); the student already counts one per pair (4, 100); nothing says the pairs keep two axes (4, 10, 10)
        "q1_pairs_flattened_into_one_axis": ("query_key_axes_flattened",),
        # generic: "raw_score_var is 0.1273 and scaled_score_var 0.01591, exactly 1/8 of it, so the scale is right; but
        # neither is the variance of the example's scores (Q @ K.transpose(-2, -1) ..., whose variance is 6.599): either
        # other scores were measured or another statistic" (None): says what differs and which scores are asked, but
        # nothing says the queries and keys were normalised (cosine similarities)
        "q2_scores_as_cosine_similarities": ("scores_as_cosine_similarities",),
        # divisor_d_k_or_sqrt_64: "dividing the example's scores by 8, which is both its d_k ... and sqrt(64), the divisor
        # of the d_k = 64 head that scale_divisor asks about (reused for an example whose d_k is 8) ... divide by
        # math.sqrt(Q.shape[-1]) = sqrt(8)": the actual cause is one of its two readings, and the fix is exact
        "q2_scaled_by_the_divisor_for_d_k_64": ("divisor_d_k_or_sqrt_64",),
        # MIS-NAMED: epsilon_added_to_weights on q3:test_minus_inf_entries (the only failure): "it is the right weights
        # with 7.49e-13 added to every one ...: adding a small constant to every softmax weight (exp / sum + eps: the
        # epsilon outside the fraction) ... each row sums to a little more than 1 ... an epsilon, if any, goes inside:
        # exp / (sum + eps)". The code adds nothing after the division: it floors the exponentials (clamp(min=1e-12))
        # inside the fraction, so rows still sum to exactly 1 (checked in float64: |sum - 1| 2e-16), the finite
        # weights go down, not up (-6e-12), and each blocked entry gets 1e-12 / its row's sum (5.1e-13 .. 9.3e-13 per
        # row, not one constant). The effect on blocked keys (> 0 instead of 0) is right, but the mechanism, the
        # row-sum claim and the "put it inside" advice are another mistake's: the student is sent to look for a
        # `+ eps` that is not there. Engine defect: _fitted_epsilon's replay tolerance in float32
        # (1e-6 * max|weight|) swamps a 1e-12 constant, so any tiny floor on the blocked entries "fits one c";
        # softmax_inf_to_zero's effect words ("blocked entries then get a weight above 0 ... keep exp(-inf) = 0") are
        # nearer, though its cause (-inf replaced by a finite logit) is not this either; no key says a clamp on exp
        "q3_exponentials_clamped_away_from_zero": ("exponentials_floored",),
        # upper_triangular_mask on the 3 q4 tests and q6:test_weights3_causal: "causal_mask(11) is wrong: it matches an
        # upper-triangular (future-looking) mask instead of a lower-triangular one": exactly the effect of meshgrid's
        # default indexing='xy' (rows holds the key index, so cols <= rows is i <= j), and the fix (the lower
        # triangle) follows; nothing says meshgrid's default (as blind3's q4_arange_unsqueeze_swapped)
        "q4_numpy_meshgrid_default_xy_indexing": ("upper_triangular_mask",),
        # inverted_mask on the 3 q4 tests and q6: "causal_mask(11) is True on the keys a query may not see: it matches
        # treating True in the mask as 'blocked' instead of 'may attend'": exactly the TensorFlow 1 = blocked convention
        "q4_tensorflow_look_ahead_mask_ported": ("inverted_mask",),
        # generic: all 10 q5 failures None, "the output ... does not match the correct result in 174 of 210 entries
        # (largest difference 0.000756 ...)" with a smallest failing input (0.0863 vs 0.0865); says what differs and
        # where, but nothing says the scores were rounded through float16 (float32_precision / dtype_changed did not fire)
        "q5_scores_computed_in_float16": ("half_precision_scores",),
        # weights_as_output on both q6 tests: "weights3 has shape (3, 2) and equals the attention output weights3 @ V3"
        # and "out3 has shape (3, 3) and equals the attention weights softmax(scores3)": together the swap exactly, with
        # each answer's right shape (as blind10's q1_shapes_swapped); nothing says the unpacking order
        "q6_helper_results_unpacked_in_wrong_order": ("weights_as_output",),
        # answer_annotated_not_assigned: "the notebook has `q_trap_answer: 'C'`, an annotation: writing `name: "C"` (a
        # colon) where `name = "C"` is meant ... binds nothing": exactly
        "q7_colon_typed_for_equals_sign": ("answer_annotated_not_assigned",),
        # answer_extra_characters: "q_trap_answer is '**C**': it has characters besides the letter, which seems to be 'C'
        # ... the answer must be the letter alone": exactly
        "q7_letter_copied_with_markdown_bold": ("answer_extra_characters",),
        # answer_computed_by_code: "q_trap_answer is 'A', the letter your code worked out (`q_trap_answer = 'A' if
        # _rows_sum_to_one.all else 'C'`), and it is not the best answer ... look at ... the branch each outcome takes;
        # decide the option and assign its letter": quotes the faulty line and gives the fix (assign "C"); borderline:
        # nothing says `.all` is never called (method_not_called / callable_not_called would be exact), and its "what it
        # measures or compares is not what the question asks" is hedged, not true of this check; no zero_after_softmax
        # here, so unlike blind38's branches-swapped variant no concept the student got right is blamed
        "q7_all_method_not_called_in_check": ("answer_computed_by_code",),
        # entries_times_d_k ("attn_entries counts d_k = 64 numbers per weight: the weight matrix has one entry per
        # (query, key) pair") and madds_without_d_k ("score_madds is one multiply-add per score: each score is a dot
        # product of length d_k"): each states exactly what the swapped value is and how to correct it where it is
        # written, and the two fixes together are the fix; borderline: no message says the two were swapped (the
        # answers_swapped key is q2's only), and the keys' catalogue wording is a belief the student does not hold;
        # unlike blind29's q8_helper_arguments_swapped, following them fixes the right place
        "q8_counts_swapped_in_tuple_assignment": ("entries_times_d_k", "madds_without_d_k", "counts_swapped"),
        # generic: "cost_ratio should be a number (a Python float; use .item() on a tensor), got str" (None): enough to
        # fix, but no key; number_as_string does not fire because "4:1" parses as no number
        "q8_ratio_written_as_4_to_1": ("number_as_string",),
    },
# wrong 14: named right 9 / partly 0 / generic 4 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
# judged from `measure scaled-attention --set blind40 -v` (frozen engine, /tmp/frozen40), full messages re-read by
# grading each variant again (same scores and keys as /tmp/measure40-scaled-attention.txt); () where nothing names
# the mistake right
    "scaled-attention": {
        # one_edit_fix on all 5 q1 tests: "`Q @ K.T / math.sqrt(d_k)` in place of `Q @ K.T // math.sqrt(d_k)`" on line 5:
        # the floor division at its place with the fix (q8 not charged)
        "q1_scores_floor_divided_by_scale": ("one_edit_fix",),
        # one_edit_fix on all 5 q1 tests: line 7 (`weights = probs.softmax(dim=-1)`), "`scores` in place of `probs`": the
        # second softmax at its place with the fix; its alternatives (log_softmax / scores on line 6) also give
        # softmax(scores) once (q8 not charged)
        "q1_second_softmax_to_normalise_rows": ("one_edit_fix",),
        # scale_precedence: "the unscaled variance ... divided by 576 (its dot products divided by 2 d_k ...): writing the
        # scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2": the same precedence slip and its exact effect (d_k **
        # -1/2 = 1/(2 d_k)); borderline: it quotes d_k ** 1/2 where the code has ** -1/2, and its fix says d_k ** 0.5
        "q2_scale_written_d_k_power_minus_one_half": ("scale_precedence",),
        # scaled_flag_ignored: "with scaled=True the result is the unscaled variance, about d_k": exactly what the string
        # comparison does (the bool never equals 'True', the flag is ignored), as blind7's q2_integer_exponent
        "q2_scaled_flag_compared_with_string": ("scaled_flag_ignored",),
        # generic: both q4 table tests None, "the table has only the rows for d = [4] ... the rows for d = [16, 64, 256] are
        # missing. Build and append one row per d inside the loop (an append after the loop keeps only the last row)":
        # says what differs (one row), but no key says the return is inside the loop (its aside guesses another cause)
        "q4_table_return_indented_into_loop": ("table_return_in_loop",),
        # entropy_unweighted on all 3 q4 tests: "summing ... -log p over the row without weighting each term by p (a
        # uniform row of t entries gives t log t) ... multiply each -log p by its p before the sum": "...t,...s->..." is
        # (sum p)(sum log p) = sum log p, exactly the unweighted sum, and the fix (pair each p with its own log p, one
        # letter) follows; borderline: nothing says the einsum's second letter is why (as blind37's
        # q4_entropy_identity_expected_logit_as_plain_mean)
        "q4_entropy_einsum_second_operand_own_index": ("entropy_unweighted",),
        # answer_computed_by_code: "'D', the letter your code worked out ... what it measures or compares is not what the
        # question asks (look at ... the sizes it uses ...)": the probe's options built from the global d_k = 4; "option D
        # stands for squaring d_k" describes the option, it blames no belief
        "q5_answer_probe_options_from_notebook_d_k": ("answer_computed_by_code",),
        # answer_value_not_letter: "q5_answer is np.int64(2), a number, not a letter ... as a string such as "B"": exactly
        "q5_answer_numpy_argmin_index_not_letter": ("answer_value_not_letter",),
        # answer_computed_by_code: "'C', the letter your code worked out (`... if torch.equal(_P @ _X, _out) else 'C'`) ...
        # what it measures or compares is not what the question asks": the bit-exact check falls to the fallback; right
        # in kind (as judge39's q7_row_sum_check_with_branches_swapped), nothing says torch.equal vs allclose
        "q6_answer_check_with_bit_exact_torch_equal": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D', the letter your code worked out (`if torch.allclose(_out, _softmax(...`) ...":
        # the hand softmax over the whole matrix fails the check, the cell falls through to D; right in kind, no belief blamed
        "q6_answer_check_softmax_over_whole_matrix": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _w.requires_grad else 'C'`) ... what it measures ... is not
        # what the question asks": the requires_grad flag is not differentiability; right in kind
        "q7_answer_probe_reads_requires_grad_flag": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if _Q.grad.abs().max() < 1e-06 else 'D'`) ...": the gradient
        # of weights.sum() is 0 by construction, the probe measures the wrong thing; right in kind
        "q7_answer_gradient_probe_through_weights_sum": ("answer_computed_by_code",),
        # one_edit_fix on all 3 q8 tests: "leave out line 3 (`X = F.layer_norm(X, X.shape[-1:])`)": exactly the fix
        "q8_pre_layer_norm_on_input": ("one_edit_fix",),
        # mha_split_by_head_count on all 3 q8 tests: "d_k heads of width n_heads instead of n_heads heads of width d_k;
        # use Q.split(d_k, dim=-1) or Q.chunk(n_heads, dim=-1)": the exact effect and a working fix; borderline: its cause
        # is the mirror slip (torch.split given a count), here tensor_split given a size - the same count/size confusion
        "q8_tensor_split_given_head_width": ("mha_split_by_head_count",),
    },
# wrong 14: named right 13 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
    # judged from `measure attention-pipeline --set blind40 -v` (frozen engine, /tmp/frozen40), full messages re-read by
    # grading each variant again (/tmp/j40-pipeline/full.py: same scores and keys as /tmp/measure40-attention-pipeline.txt)
    # against each variant's "mistake" words and code; () where no failed test names it right
    "attention-pipeline": {
        # size_one_axes_added on q01:test_project_float64: "Q has shape (1, 7, 12), expected (7, 12), and its values are
        # right with 1 leading size-1 axes added ... an unsqueeze or a [None] left in ... return the shape asked for":
        # exactly the unsqueeze(0) never undone; q07/q09/q13 did not lose points
        "q01_batch_axis_added_and_kept": ("size_one_axes_added",),
        # scores_transposed on all 4 q02 tests: "it matches computing K Q^T (keys as rows) instead of Q K^T (queries as
        # rows)": exactly the effect of the swapped unsqueezes (as blind39's q02_einsum_implicit_output_sorted_alphabetically);
        # it does not point at the unsqueeze axes, but the effect says what to swap
        "q02_broadcast_unsqueeze_axes_swapped": ("scores_transposed",),
        # answer_computed_by_code: "ans_scale is 'c', the letter your code worked out (`if abs(_h_raw - _h_scaled) < 1e-09:
        # ...`) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...); decide
        # the option and assign its letter": true of the code and the fix follows; option C's text is given as what the
        # option stands for, not as the student's belief; borderline: nothing says row 0 of a causal A sees one key
        # (entropy 0 at any scale)
        "q03_experiment_on_first_causal_row": ("answer_computed_by_code",),
        # size_one_axes_added on the 3 q04 tests: "the mask has shape (1, 5, 5), expected (5, 5), and its values are right
        # with 1 leading size-1 axes added ... a [None] left in ... return the shape asked for": exactly Flax's leading
        # axis; q05/q07/q09/q10/q13 did not lose points
        "q04_flax_style_mask_keeps_head_axis": ("size_one_axes_added",),
        # MIS-NAMED (one test of two): q05:test_weights_noncontiguous names softmax_subtracts_mean, "A contains NaN or inf
        # in 80 of 80 entries, exactly where the softmax with each row's mean subtracted before exp (in place of its
        # maximum) overflows ... subtract x.amax(dim, keepdim=True)": the code calls torch.softmax and subtracts no mean;
        # the NaN comes from M * -1e9 turning finfo.min into +inf; the student is sent to a max-shift they already have.
        # Engine defect: _diagnose.raise_if_mean_shift, when every entry is NaN, only checks that tame scores WITHOUT the
        # mask are right, which any mask-mishandling code passes. q05:test_weights_float64_rectangular_mask: one_edit_fix on
        # line 3, "`M` in place of `M * -1000000000.0`" (or the sign flipped): the slip at its place with the fix, right
        "q05_tf_tutorial_mask_times_minus_1e9": ("one_edit_fix", "mask_times_neg_1e9"),
        # mask_blocks_gradient: "ans_mask is not the best answer: that choice reflects thinking the mask is about gradients:
        # without it position t reads the token it is trained to predict": names and refutes D's belief, the hedge's second
        # letter that `and` records (the comment: "c, and d plays a part as well"), and points to C; accepted as blind35's
        # q5_answer_hedged_with_and_operator; borderline: nothing says `and` returns its last operand (ans_mask is 'd') or
        # that two letters were given (answer_hedged did not fire: the value is one letter)
        "q06_letters_joined_with_and": ("mask_blocks_gradient",),
        # answer_computed_by_code: "ans_mask is 'b', the letter your code worked out (`ans_mask = 'b' if _rank_plain <
        # _rank_masked else 'c'`) ... (option B stands for thinking the causal mask is about the rank of the scores: it is
        # about which tokens a position may read) ... what it measures or compares is not what the question asks": exactly
        # the rank experiment and what it misses
        "q06_rank_experiment_read_as_rank_loss": ("answer_computed_by_code",),
        # generic (None) on q09:test_prefix_average_matrix: "W_avg does not match ... in 44 of 81 entries (largest
        # difference 0.25 at index (3, 0)) ... the wrong entries all lie at index 1, 2, 3, ... of axis -2 (rows)": says
        # where, but nothing says the rows have unit Euclidean length (F.normalize's p=2) instead of summing to 1; q10 did
        # not lose points
        "q09_rows_normalized_to_unit_length": ("prefix_average_unit_length_rows",),
        # MIS-NAMED: one_edit_fix on q11:test_rank_S_lesson, "right with one change on line 6 ...: `Q_lesson` in place of
        # `_A_lesson` (checked on the test it failed ...)": rank(Q_lesson) = 2 equals rank(S) only by coincidence (Q spans 2
        # dims); the student is sent to take the rank of Q, not of S (as blind38's q11_rank_from_nonzero_eigenvalues).
        # Borderline: the same message goes on "rank_S_lesson is 5: that is T ... the rank of a full-rank T x T matrix such
        # as the causal weights A ...: call torch.linalg.matrix_rank(S) on S itself", which names the real mistake, but it
        # does not undo the wrong one-edit fix printed first
        "q11_lesson_rank_of_attention_weights": ("rank_of_attention_weights",),
        # generic (None) on q12:test_count_qkv: "the count is wrong (for d_v different from d_k)"; nothing says
        # math.prod(()) is 1 (73 for 72); the hint leans the wrong way (d_v vs d_k, where the cause is the missing W_O
        # term) but is keyless, so generic, not mis-named (as blind39's q12_len_of_linear_weights)
        "q12_empty_shape_product_is_one": ("param_count_empty_term_one",),
        # raw (None) on all 3 q13 tests: "your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (5x12
        # and 9x10)" / "Expected size for first two dimensions of batch2 tensor ..."; nothing says chunk(2) splits into
        # equal halves where d_k != d_v
        "q13_fused_kv_chunked_in_two": ("fused_kv_equal_halves",),
        # answer_computed_by_code: "ans_cross_shapes is 'd', the letter your code worked out (`if _A.shape == [3, 3] and
        # _O.shape == [3, 2]: ...`) ... (look at ... the branch each outcome takes); decide the option and assign its
        # letter": true (the fallback branch picked 'd') and the fix follows; option D's text is given as what the option
        # stands for; borderline: nothing says torch.Size never equals a list
        "q14_torch_size_compared_with_list": ("answer_computed_by_code",),
        # answer_in_container: "ans_cross_causal is {'d'}, a set holding a letter (braces around a value make one) ...
        # drop ... the braces": exactly
        "q15_answer_as_a_set": ("answer_in_container",),
        # answer_computed_by_code: "ans_complexity is 'b', the letter your code worked out (...[round(_ratio)]) ... (option
        # B stands for thinking the cost of the scores does not depend on T: there are T^2 of them) ... what it measures
        # ... is not what the question asks": exactly: Q.T @ K measures a d_k x d_k matrix, not the T^2 scores
        "q16_experiment_with_gram_matrix": ("answer_computed_by_code",),
    },
# wrong 14: named right 10 / partly 0 / generic 2 / raw 1 / mis-named 2 / not caught 0; correct at full marks 5/5
}


BLIND41_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind41 (frozen at 637e75d), judged by three helper sessions at first sight: sdpa 7/14, scaled 11/14 (one
# mis-named), pipeline 9/14: 27/42
# judged from `measure sdpa-from-scratch --set blind41 -v` (frozen engine, /tmp/frozen41), full messages re-read by
# grading each wrong variant again (/tmp/j41-sdpa/full.txt: same scores and keys as /tmp/measure41-sdpa-from-scratch.txt)
# against each variant's "mistake" words and code; () where no failed test names it right
    "sdpa-from-scratch": {
        # generic: q1:test_weights_shape None, "weights_shape should be a tuple of Python ints, for example (2, 3, 4)":
        # true (it is a tuple of four (10, 10) tensors), but nothing says .shape was left out of tuple(_probe)
        "q1_tuple_of_probe_tensor_not_its_shape": ("tuple_of_tensor_rows",),   # now (after blind41: the engine)
        # generic: both q1 tests None, "weights_shape / out_shape should be a tuple of Python ints, for example (2, 3, 4)":
        # says what differs (the values 4, 10, 10 are right; the type is a NumPy array) and is enough to fix, but no key
        "q1_shapes_fancy_indexed_from_numpy_array": ("numpy_array_for_shape",),   # now (after blind41: the engine)
        # generic: q2:test_score_variances None, "raw_score_var is 0.9293 and scaled_score_var 0.1162, exactly 1/8 of it,
        # so the scale is right; but neither is the variance of the example's scores (Q @ K.transpose(-2, -1) ..., whose
        # variance is 6.599): either other scores were measured or another statistic": says what differs and which
        # scores are asked, but nothing says the broadcast products were never summed over the d_k features
        "q2_pair_products_never_summed_over_features": ("products_not_summed",),   # now (after blind41: naming42)
        # generic: q2:test_score_variances None, "scaled_score_var is not the variance of the scaled scores": nothing
        # says the divisor is math.isqrt(8) = 2; the catalogue's integer_sqrt_scale (math.isqrt) would name it, and
        # does not fire on q2
        "q2_scaled_by_integer_square_root": ("integer_sqrt_scale",),   # now (after blind41: naming42)
        # generic: only q5:test_gradients_float64 fails, None, "the gradient with respect to Q does not match the correct
        # result in 120 of 120 entries (largest difference 1.16 ...)": the effect (values right, gradients wrong), but
        # nothing says the normaliser was detached; gradient_cut (".detach() ... no gradient flows back on that path")
        # would name it and does not fire; q3 itself loses nothing (within "where")
        "q3_denominator_detached_along_with_the_max": ("gradient_cut",),   # now (after blind41: naming42)
        # result_axes_permuted on q3:test_dim_argument (the only failure): "stable_softmax(x, dim=0) is wrong: it matches
        # returning the right values with the axes in another order (a transpose(dim, -1) or permute that is never
        # undone): move the axes back before returning": exactly the effect (movedim(dim, -1) twice leaves the axes
        # permuted) and the fix points at the "put the axis back" line (as blind's q3_transposed_not_restored);
        # borderline: "never undone" where the code undoes it in the wrong direction; nothing says movedim(-1, dim)
        "q3_movedim_undone_in_the_same_direction": ("result_axes_permuted",),
        # causal_excludes_self on the 3 q4 tests and q6:test_weights3_causal: "it matches a causal mask that hides the
        # diagonal: a token may not see itself": exactly the effect of triu_indices' default offset 0 (the diagonal
        # blocked too), the fix (let the diagonal through, offset=1) follows; nothing names the offset argument
        "q4_triu_indices_without_offset_one": ("causal_excludes_self",),
        # mask_not_bool on the 3 q4 tests: "causal_mask(9, 6) has the right pattern in dtype torch.float32: return a
        # torch.bool mask (True = may attend)": exactly (the square test calls causal_mask(11, 11), the float branch)
        "q4_rectangular_branch_left_float": ("mask_not_bool",),
        # fully_masked_nan on both failures (test_fully_masked_rows with the smallest input, test_float16): "a query
        # whose keys are all masked got NaN; it should get a row of zeros": the symptom of the guard that never fires,
        # and it points at the zeroing line (as blind17's q5_empty_rows_found_before_fill, blind24's
        # q5_empty_row_zeroing_not_assigned); borderline: nothing says NaN == 0 is False (look at the mask)
        "q5_empty_rows_detected_by_weight_sum_equal_zero": ("fully_masked_nan",),
        # mask_ignored on q6:test_weights3_causal (the only failure): "weights3_causal equals the unmasked weights: apply
        # the causal mask to the scores before the softmax": exactly the effect (a +1e-9 penalty leaves every score as
        # it was, the mask has no effect), as blind's q5_masked_fill_result_discarded and blind26's
        # q05_out_of_place_add_dropped were judged; borderline: the student did add the mask before the softmax, and
        # nothing says the penalty's size or sign (-1e9, or masked_fill with -inf) is why
        "q6_penalty_typed_as_1e_minus_9": ("mask_ignored",),
        # generic: q6:test_weights3_causal None, "weights3_causal should be a tensor or a nested list of numbers": it is a
        # nested list of numbers, only ragged (rows of 1, 2, 3); says the type is wrong, nothing says the (3, 3) matrix
        # with zeros for the blocked keys is asked (as blind39's q6 generic)
        "q6_causal_rows_left_ragged_without_zeros": ("ragged_rows",),   # now (after blind41: the engine)
        # answer_from_none_call: "`q_trap_answer` is None: the notebook has `q_trap_answer = print('C')`, and `print(...)`
        # returns None ... assign the value itself": exactly
        "q7_answer_assigned_from_print": ("answer_from_none_call",),
        # generic: q7:test_trap_answer None, "`q_trap_answer` is not answered yet: replace the `...` with your answer and
        # run the cell": true and enough to fix, but no key says the answer line is a == comparison, not an assignment
        "q7_double_equals_leaves_template_ellipsis": ("answer_compared_not_assigned",),   # now (after blind41: the engine)
        # float_for_int on both q8 tests: "attn_entries is 1048576.0, a float: giving a float (math.pow, / or a float
        # literal: 1048576.0) where a whole number, a Python int, is asked ... or int(...)": 1.048576e6 is a float
        # literal, exactly; borderline: nothing says scientific notation is always a float (write 1048576 or 1024 ** 2)
        "q8_counts_typed_in_scientific_notation": ("float_for_int",),
    },
# wrong 14: named right 7 / partly 0 / generic 7 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
# judged from `measure scaled-attention --set blind41 -v` (frozen engine, /tmp/frozen41), full messages re-read by
# grading each variant again (/tmp/j41-sa/full.txt: same scores and keys as /tmp/measure41-scaled-attention.txt)
# against each variant's "mistake" words and code; () where no failed test names it right
    "scaled-attention": {
        # softmax_whole_matrix on all 4 q1 output tests (the weights tests pass): "the output is wrong: it matches
        # normalising the exponentials over the whole score matrix (one sum for every entry) instead of over each row":
        # exactly kernel @ V / kernel.sum() (the grand total as the output's denominator), and the fix (a per-row sum)
        # follows; borderline: its tail "each query's weights must sum to 1" reads as if the returned weights were wrong
        # (they are right), but every message says "the output"; q8 not charged
        "q1_kernel_regression_output_over_grand_total": ("softmax_whole_matrix",),
        # wrong_scale_constant on the 3 q1 tests: "softmax(Q K^T / c) with a different c: here c = 3.459, where the
        # scale is 1/sqrt(d_k) = 1/3.464": exactly the bfloat16-rounded rsqrt(12) (0.2890625 = 1/3.459), and the tiny
        # gap points at the constant's precision; borderline: nothing says bfloat16 (q8 not charged)
        "q1_scale_constant_held_in_bfloat16": ("wrong_scale_constant",),
        # generic: all 3 q2 tests None, "dot_product_variance(...) should be a number (a Python float; use .item() on a
        # tensor), got ndarray": says what differs and the fix, but no key; returns_tensor_not_number (whose text
        # names .numpy()) did not fire
        "q2_returns_zero_dim_numpy_array": ("returns_tensor_not_number",),   # now (after blind41: naming42)
        # one_edit_fix on the 3 q4 entropy tests: line 4, "`1e-09` in place of `1000000000.0`": the typo at its place
        # with the fix (the table tests did not lose points)
        "q4_log_guard_typed_1e9": ("one_edit_fix",),
        # table_seed_between_draws on both q4 table tests: "the seed set again between the q and the k draws, so k's
        # first row repeats q; seed once per d, before drawing q and then k": exactly the effect of a fresh generator
        # seeded with `seed` per draw, and the fix follows; borderline: it says "the seed set again", the code makes a
        # new seeded Generator each draw (the same thing)
        "q4_table_fresh_generator_per_draw": ("table_seed_between_draws",),
        # answer_computed_by_code: "'B', the letter your code worked out (`q5_answer = 'ABCD'[round(_e)]`) ... what it
        # measures or compares is not what the question asks ... decide the option and assign its letter": quotes the
        # faulty line (exponent used as index); "option B stands for confusing the std with the variance" describes
        # the option, blames no belief (as blind40); right in kind; borderline: the catalogue's example
        # `q_answer = "B"` happens to be this student's wrong letter
        "q5_answer_growth_exponent_used_as_option_index": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`q5_answer = min(_options, key=...`) ... (look at ... the sizes it uses
        # ...)": the 10-sample probe is a size it uses; right in kind, nothing says 10 samples are too few
        "q5_answer_probe_with_ten_samples": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D' ... (`if torch.allclose(_W.sum(dim=0), torch.ones(4), ...`) ...": quotes the
        # exact faulty check (sum over dim 0); "option D stands for giving every key the same weight" describes the
        # option; right in kind (as blind40's q6_answer_check_softmax_over_whole_matrix)
        "q6_answer_check_weight_sums_over_queries_axis": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D' ... (`if torch.allclose(_W @ _X, _out, ...`) ...": the first check fails because
        # the pair was unpacked as (weights, output); right in kind; borderline: it quotes the check, not the unpacking
        # line above it, and nothing says the order (weights_as_output would be exact)
        "q6_answer_check_unpacks_pair_in_wrong_order": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _ok else 'C'`) ...": the float32 gradcheck fails on
        # rounding, the branch takes C; "option C stands for ... a hard argmax" is option C's own text (argmax, no
        # useful gradient); right in kind (as blind40's q7 probes), nothing says gradcheck needs float64
        "q7_answer_gradcheck_on_float32_inputs": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if abs(_slope.item()) < 1e-06 else 'D'`) ... (look at ...
        # the sizes it uses ...)": the step below float32 resolution gives slope 0; right in kind, nothing says the step
        "q7_answer_finite_difference_step_below_float32_resolution": ("answer_computed_by_code",),
        # MIS-NAMED: attention_as_argmax ("q7_answer is 'A', the letter lesson 79's quiz gives for this question, but the
        # lesson orders its options differently ...; that choice reflects thinking attention returns only the
        # best-matching value (a hard argmax)") blames copying the lesson's letter and a belief; the letter was worked
        # out by the cell's probe, whose query equals a key at d = 256 (one-hot softmax, saturated), so allclose holds
        # and it takes 'A'; nothing points at the probe (as blind38's q5_answer_probe_matched_by_exact_float_equality);
        # answer_computed_by_code would be right in kind (raise_if_lesson_letter runs before it)
        "q7_answer_probe_query_equal_to_key": ("answer_computed_by_code",),   # now (after blind41: naming42)
        # generic: all 3 q8 tests None, "multi_head_attention(...) does not match the correct result in 240 of 240
        # entries (largest difference 2.58 ...)": says it differs everywhere, nothing says the heads were unbound over
        # the token axis (mha_split_without_transpose is the nearest key; it did not fire)
        "q8_unbind_over_tokens_attends_across_heads": ("mha_heads_attend_within_token",),   # now (after blind41: naming42)
        # dtype_changed on q8:test_float32_eight_heads: "has dtype torch.float64 for torch.float32 input; its values are
        # right: returning or mixing in another dtype than the input's (... a float32 tensor never cast back)": exactly
        # the .double() projection never cast back, and the fix follows
        "q8_projection_accumulated_in_float64": ("dtype_changed",),
    },
# wrong 14: named right 11 / partly 0 / generic 2 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
# judged from `measure attention-pipeline --set blind41 -v` (frozen engine, /tmp/frozen41), full messages re-read by
# grading each variant again (/tmp/j41-pipeline/full.py -> full.txt: same scores and keys as
# /tmp/measure41-attention-pipeline.txt) against each variant's "mistake" words and code; () where no failed test
# names it right
    "attention-pipeline": {
        # generator_returned on the 3 q01 tests: "project_qkv returned a generator, not a value: ... (or returns a
        # generator expression) where a list or a value is asked ... return `list(...)`": the cause exactly (parentheses
        # around a comprehension make a generator, not a tuple) and list(...) unpacks as Q, K, V; as blind40's
        # q1_tuple_comprehension_is_a_generator; borderline: tuple(...) is the exact fix, nothing says there is no tuple
        # comprehension; q07/q09/q13 did not lose points (they unpack once)
        "q01_generator_expression_instead_of_tuple": ("generator_returned",),
        # answer_computed_by_code: "ans_scale is 'c', the letter your code worked out (`if torch.equal(_A_scaled.argmax
        # ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied by the same
        # constant (it is unchanged only when a constant is added)) ... what it measures or compares is not what the
        # question asks": quotes the argmax-only check, and the option's text refutes exactly the conclusion drawn from
        # it; right in kind; borderline: nothing says a common factor never moves the argmax (so the check is blind)
        "q03_argmax_experiment_read_as_nothing_changes": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`ans_scale = 'a' if _var_raw > _var_scaled else 'b'`) ... (option A stands
        # for thinking larger scores make the softmax flatter: unscaled scores grow like sqrt(d_k) and make each row
        # sharper)": the quoted line and the option's text are exactly the misreading (spread scores -> sharper rows)
        "q03_score_variance_read_as_flatter_rows": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`if bool((_A.sum(dim=-1) == 1).all()): ans_mask = 'c' else: ...`) ... (option
        # A stands for thinking the mask is what makes the rows sum to 1: the softmax does that with or without a mask)
        # ... look at ... the branch each outcome takes": quotes the faulty check and says its conclusion is false, so the
        # check is what to doubt; right in kind (as blind40's q6_answer_check_with_bit_exact_torch_equal); borderline:
        # nothing says float32 sums are 1 only up to rounding (exact == 1 fails)
        "q06_exact_float32_row_sum_read_as_rows_not_summing": ("answer_computed_by_code",),
        # one_edit_fix on the 4 q07 tests: "right with one change on line 11 ...: leave out line 11 (`X = X +
        # _positions(...)`) -- or -- `X` in place of `X + _positions(...)`": the added positions at their place with the
        # fix; q09/q13 did not lose points
        "q07_sinusoidal_positions_added_to_inputs": ("one_edit_fix",),
        # not caught: 42/42. The notebook's conventions ask for results in the input's dtype, but q10's three tests
        # (test_entropy_causal_rows, test_effective_tokens, test_entropy_views) feed float64 only, so the float64
        # accumulator never shows (engine gap: no float32/float16 input for row_entropy_bits / effective_tokens)
        "q10_entropy_summed_in_float64": ("dtype_changed",),   # now (after blind41: naming42)
        # partly named. q11:test_max_rank_S: rank_as_axes_or_lesson_rank, "max_rank_S is 2: the number of axes of S ...
        # and also the rank of the lesson's example S; the head in this question has d_k = 8 and T = 100 ... at most
        # min(d_k, T)": its second reading is exactly what was put there (the lesson's rank) and the fix (8) follows; as
        # blind40's divisor_d_k_or_sqrt_64 (one of two readings). q11:test_rank_S_lesson: None, "rank_S_lesson is not
        # correct: try torch.linalg.matrix_rank on the lesson's S": generic hint; no message says the two were swapped
        "q11_answers_a_and_b_swapped": ("rank_as_axes_or_lesson_rank", "rank_answers_swapped"),   # now (after blind41: naming42)
        # number_as_string on both q12 tests: "qkv_param_count(...) is '22,512', a string holding the number 22512 ...
        # write the number itself ... without quotes": exactly (the f-string with a thousands separator); borderline: its
        # fix speaks of quotes, here `return n` in place of `return f"{n:,}"`
        "q12_count_returned_as_formatted_string": ("number_as_string",),
        # partly named (borderline). q12:test_count_with_output: param_count_output_replaces, "the count is wrong: it
        # matches assigning W_O's count (n = d_v * d_model) where it must be added (n += ...): with_output=True then
        # returns W_O's weights alone": the effect is exactly true (`X + with_output and d_v * d_model` is d_v * d_model)
        # and "must be added" repairs the one return line; but the mechanism it cites (an n = assignment) is not in the
        # code, the cause is `+` binding before `and` (param_count_conditional_precedence, the `if ... else 0` twin, did
        # not fire; an `and`-precedence key would be exact). Not counted MIS-NAMED: it "matches" the value, points at the
        # W_O term and following it fixes the right place (as blind40's q8_counts_swapped keys). q12:test_count_qkv:
        # None, "the count is wrong (for d_v different from d_k)": generic, and its hint leans the wrong way (the
        # with_output=False call also returns W_O's count alone), keyless so not mis-named (as blind40's q12_empty_shape)
        "q12_and_as_inline_condition_without_parentheses": ("param_count_output_replaces", "param_count_conditional_precedence"),   # now (after blind41: naming42)
        # mask_ignored on q13:test_cross_padding_mask: "(O, A) are wrong: together they match ignoring the mask": exactly
        # the effect (the (T, T') mask is set to None against batched (..., T, T') scores), and the student's
        # `M = None` line is the one to remove; borderline: nothing says the mask must broadcast onto batched scores
        "q13_mask_dropped_unless_same_shape": ("mask_ignored",),
        # answer_computed_by_code: "'a' ... (`if (_rows, _cols) == (3, 3) and _out_rows == 3: ...`) ... (option A stands
        # for taking the keys and values from X as well (that is self-attention ...)) ... look at ... the sizes it uses":
        # true (shape[0], shape[1] read the batch axis) and the fix follows; right in kind; nothing says batch = T = 3
        "q14_batched_experiment_reads_batch_axis": ("answer_computed_by_code",),
        # generic: q15:test_ans_cross_causal None, "`ans_cross_causal` is not answered yet: replace the `...` with your
        # answer and run the cell": exactly the mistake and its fix, but no key names it
        "q15_placeholder_left_unanswered": ("answer_left_empty",),   # now (after blind41: the engine)
        # generic: q15:test_ans_cross_causal None, "ans_cross_causal should be one letter as a string: "a", "b", "c",
        # "d"": says what differs, nothing says the comment sits inside the quotes; answer_extra_characters would name
        # it but did not fire ("d  # only when ..." matches neither _LETTER_IN_PUNCTUATION nor _LETTER_WRITTEN_OUT)
        "q15_comment_typed_inside_the_quotes": ("answer_extra_characters",),   # now (after blind41: the engine)
        # answer_computed_by_code: "'a' ... (`ans_complexity = {0: 'b', 1: 'a', 2: 'c', 3: 'd'}[_power]`) ... (option A
        # stands for thinking the score matrix costs time linear in T: there are T^2 scores) ... what it measures ... is
        # not what the question asks": true of the code and the fix follows; right in kind; borderline: nothing says
        # math.log is ln (ln 4 rounds to 1), log2 is meant
        "q16_growth_exponent_with_natural_log": ("answer_computed_by_code",),
    },
# wrong 14: named right 9 / partly 2 / generic 2 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
}


BLIND42_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind42 (frozen at 8f0823d, measured at 23b7afb after round 42), judged by three helper sessions at first sight:
# sdpa 12/14 (one mis-named: a FlopCounterMode cell that could not import cProfile at the frozen tree's fallback
# level, where this host's Python under /root is unreadable to the worker's uid), scaled 10/14, pipeline 10/14
# (two mis-named): 32/42
# blind42 (frozen engine, /tmp/frozen42), judged from `measure sdpa-from-scratch --set blind42 -v`, full messages
# re-read by grading each variant again (/tmp/j42-sdpa/full.txt: same scores and keys as
# /tmp/measure42-sdpa-from-scratch.txt) against each variant's "mistake" words and code; () where no failed test
# names it right
    "sdpa-from-scratch": {
        # batch_axis_repeated on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 4, 10): the right
        # shape (4, 10, 10) with the batch size 4 repeated at axis 2: ... Q's and K's leading shapes glued together,
        # q_shape[:-1] + k_shape[:-1]: Q and K share one batch axis": exactly what np.dot returns on 3-D arrays (every
        # batch entry of Q paired with every one of K); borderline: "writing the batch axis twice" reads as a typed
        # shape, and nothing says np.dot is not batched (np.matmul or @ is)
        "q1_probe_made_with_numpy_dot_on_3d_arrays": ("batch_axis_repeated",),
        # batch_dim_dropped on both q1 tests: "weights_shape is (10, 10), the shape of one batch entry: leaving out the
        # leading batch dimension: a batched input gives batched weights and outputs": exactly the effect of the
        # implicit-mode einsum (b summed away); borderline: nothing says einsum without '->' sums repeated letters
        "q1_einsum_probe_in_implicit_mode_sums_the_batch": ("batch_dim_dropped",),
        # generic: q2:test_score_variances None, "raw_score_var is 6.594 and scaled_score_var 0.8242, exactly 1/8 of it,
        # so the scale is right; but neither is the variance of the example's scores (... 6.599): either other scores
        # were measured or another statistic": says what differs (third decimal), but nothing says bfloat16 precision
        # (keep the example's float32 tensors)
        "q2_scores_computed_in_bfloat16": ("half_precision_scores",),   # now (after blind42: naming43)
        # number_as_string on q2:test_scale_divisor: "scale_divisor is '8.0', a string holding the number 8 ... write
        # the number itself, 8, without quotes": exactly
        "q2_divisor_typed_as_a_string": ("number_as_string",),
        # softmax_sum_wrong_axis on all 21 failures (4 q3, 14 q5, 3 q6): "it matches dividing by the sum over another
        # axis than the softmax's dim (e.sum(dim=-2), or a fixed axis whatever dim is): ... sum over the same dim as
        # the max": exactly e_x.sum(dim=0) whatever dim is; q5/q6 charged through stable_softmax (within "where")
        "q3_numpy_softmax_denominator_summed_over_axis_0": ("softmax_sum_wrong_axis",),
        # causal_excludes_self on the 3 q4 tests and q6:test_weights3_causal: "it matches a causal mask that hides the
        # diagonal: a token may not see itself": exactly the strictly lower-triangular mask from (i - j).clamp(0).bool();
        # borderline: nothing says the distance is 0 on the diagonal too
        "q4_alibi_distance_clamped_then_cast_to_bool": ("causal_excludes_self",),
        # mask_not_broadcast on the 4 q5 failures: "your code raised RuntimeError: shape '[2, 5, 11]' is invalid ...
        # with a mask of shape (5, 11) for scores of shape (2, 5, 11); with the mask expanded to the scores' shape it
        # runs and is right: the mask must broadcast (masked_fill or torch.where do)": exactly view_as's failure and fix
        "q5_mask_reshaped_with_view_as_scores": ("mask_not_broadcast",),
        # one_edit_fix on q6:test_weights3_causal (the only failure): "right with one change on line 5 ...:
        # `scores3 - causal_mask(3).double() * -1e9` in place of `scores3 + ...`" plus "not correct in row(s) [0, 1]":
        # the fix at the penalty line, checked by a rerun; s + 1e9 * keep equals s - 1e9 * (1 - keep) up to a per-row
        # shift (softmax-invariant, exact enough in float64); borderline: nothing says causal_mask is True for keys to
        # KEEP, not to hide (the natural fix is (~mask) * -1e9), and the suggested form would lose precision in float32
        "q6_tensorflow_penalty_given_the_keep_mask": ("one_edit_fix", "inverted_mask"),   # now (after blind42: naming43)
        # one_edit_fix on q6:test_weights3_causal: "`causal_mask(3)[:]` in place of `causal_mask(3)[:, None]`" plus
        # "weights3_causal should have shape (3, 3), got (3, 3, 3)": exactly the extra axis, at its place
        "q6_mask_given_an_extra_axis": ("one_edit_fix",),
        # callable_not_called on q7:test_trap_answer: "q_trap_answer is a function or method, not a value ... add the
        # () that call it": exactly "c".upper without ()
        "q7_upper_method_not_called": ("callable_not_called",),
        # answer_computed_by_code on q7:test_trap_answer: "q_trap_answer is 'A', the letter your code worked out (...),
        # and it is not the best answer (option A ... rows no longer sum to 1) ... what it measures or compares is not
        # what the question asks (look at ... the sizes it uses ...)": the wrong letter, that the probe decided it, and
        # a pointer at its sizes; borderline: nothing says a one-token sequence masks nothing (as earlier q7 probes)
        "q7_trap_checked_on_a_one_token_sequence": ("answer_computed_by_code",),
        # MIS-NAMED: the cell never ran to the mistake: the grader's run of `with FlopCounterMode(...)` raised
        # ModuleNotFoundError: No module named 'cProfile' (a plain python of the same venv imports it; the sandbox
        # fallback was used in this measure). q8:test_score_madds None "`score_madds` is not defined: ... your code
        # raised ModuleNotFoundError: No module named 'cProfile' (line 5)" (raw, and blames the environment, not the
        # 2-FLOPs-per-multiply-add count); q8:test_cost_ratio one_edit_fix "`cost_ratio` is right with one change on
        # line 5 ...: `pass` in place of `torch.zeros(1024, 64) @ torch.zeros(64, 1024)`": cost_ratio = 4 is already
        # right and lost its point only to the crash; the "fix" deletes the measured matmul (score_madds would then be
        # 0), so a student is sent to the wrong line for the wrong reason; nothing says FLOPs = 2 x multiply-adds
        "q8_madds_read_off_flop_counter": ("madds_counted_twice",),   # at bwrap (the judge saw the fallback level's cProfile crash)
        # callable_not_called on q8:test_attn_entries: "attn_entries is a function or method, not a value ... add the
        # () that call it": exactly .numel without ()
        "q8_numel_method_not_called": ("callable_not_called",),
        # answer_value_not_letter on q7:test_trap_answer: "q_trap_answer is 67, a number, not a letter: ... instead of
        # the letter of the option that says it, as a string such as \"B\"": exactly ord("C") for "C"
        "q7_letter_given_as_its_character_code": ("answer_value_not_letter",),
    },
# wrong 14: named right 12 / partly 0 / generic 1 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
# judged from `measure scaled-attention --set blind42 -v` (frozen engine, /tmp/frozen42), full messages re-read by
# grading each variant again (/tmp/j42-sa/full.py -> full.txt: same scores and keys as
# /tmp/measure42-scaled-attention.txt) against each variant's "mistake" words and code; () where no failed test
# names it right
    "scaled-attention": {
        # one_edit_fix on all 5 q1 tests (weights and output): line 6 (`attn = scores.softmax(dim=0) + 1e-8`), "`-1` in
        # place of `0` -- or -- `1` in place of `0`": the slip at its place with the fix (the +1e-8 and the row
        # renormalisation are harmless once the softmax runs over the keys); borderline: nothing says dim 0 is the
        # queries (one_edit_fix says where and what, not why); q8 not charged
        "q1_slot_attention_softmax_over_queries_then_rows_renormalised": ("one_edit_fix",),
        # one_edit_fix on the 4 q1 output tests (the weights tests pass): line 8 (`output = (weights.unsqueeze(-1) *
        # V).sum(dim=-1)`), "`-2` in place of `-1` -- or -- `1` in place of `-1`", each with "the output has shape
        # (6, 4), expected (6, 5)": exactly the sum over the d_v features instead of the keys, and the fix; q8 not
        # charged
        "q1_broadcast_mix_summed_over_value_features": ("one_edit_fix",),
        # no_scale on all 5 q1 tests: "the weight matrix / the output is wrong: ... it matches not scaling the scores at
        # all": exactly the effect (d_k ** (1 // 2) = d_k ** 0 = 1), and it sends the student to the divisor;
        # borderline: nothing says 1 // 2 is integer division (0); q8 not charged
        "q1_scale_exponent_floor_divided_to_zero": ("no_scale",),
        # generic: both q2 tests None, "for d_k = 12 the variance of q.k (/ q.k / sqrt(d_k)) is not within 10% of its
        # expected value": says it differs, not by how much (about n_samples**2 too large) nor that q.norm() / k.norm()
        # without dim are the norms of the whole matrices
        "q2_cosine_times_whole_matrix_norms": ("dots_cosine_times_matrix_norms",),   # now (after blind42: naming43)
        # generic: both q4 table tests None, "the table's rows are for d = [16, 256, 64, 4], not for the dims asked for,
        # [4, 16, 64, 256]: the right rows for those dims, in another order; build one row per d in the order of the
        # dims argument": exactly the effect and enough to fix, but no key (nothing says set() loses the order)
        "q4_table_dims_deduplicated_through_set": ("table_rows_reordered",),   # now (after blind42: naming43)
        # raw: q5:test_q5_answer None, "your code raised EncodeError: a value of type bytes cannot cross the sandbox
        # boundary": the sandbox's transport failed, the student's code raised nothing; nothing says b'C' is bytes, not
        # the str 'C' (answer_value_not_letter / a wrong-type answer would be the key)
        "q5_answer_encoded_to_bytes": ("bytes_for_text",),   # now (after blind42: the engine)
        # answer_computed_by_code: "'A', the letter your code worked out (`q5_answer = min(_options, key=lambda letter:
        # abs(_options[letter] -...`) ... (look at ... the sizes it uses ...)": right in kind (as blind41's
        # q5_answer_probe_with_ten_samples); "option A stands for giving the variance of the scaled dot product" describes
        # the option; borderline: it quotes the min line, not the one-sample probe above it, nothing says NaN
        "q5_answer_probe_with_one_sample_nan": ("answer_computed_by_code",),
        # answer_value_not_letter: "q5_answer is ('C', 16.0), a tuple of 2 values, not a letter: answering ... with a
        # value (... a result worked out) instead of the letter ... as a string": exactly (the pair from min over
        # .items()), the fix (keep the letter) follows; borderline: nothing names .items()
        "q5_answer_min_over_items_keeps_pair": ("answer_value_not_letter",),
        # answer_in_container: "q6_answer is array('A', dtype='<U1'), a NumPy array holding a letter (take it out:
        # q6_answer = str(arr.item()))": exactly, with the fix; borderline: the catalogue tail ("a trailing comma ...
        # drop the comma (or the brackets, or the braces)") does not fit a 0-d array, the head does
        "q6_answer_numpy_char_upper_gives_0d_array": ("answer_in_container",),
        # answer_computed_by_code: "'B' ... (`if torch.allclose(_out, _X): q6_answer = 'B' elif ...`) ... (look at ...
        # the sizes it uses ...)": quotes the branch that picks B on the one-token probe; "option B stands for thinking a
        # token ... attends only to itself" describes the option; right in kind, nothing says one token cannot tell
        # the options apart
        "q6_answer_probe_with_one_token": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`q7_answer = 'B' if not torch.allclose(_before, _after) else 'D'`) ...":
        # quotes the probe's verdict line; "option B stands for thinking attention searches the keys in order" is
        # option B's text; right in kind; borderline: nothing says the values must be permuted with the keys
        "q7_answer_order_probe_shuffles_keys_not_values": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`try: (_out ** 2).sum().backward() q7_answer = 'D' if _Q.grad...`) ...
        # (look at ... the branch each outcome takes)": quotes the try whose except branch picks C; "option C stands
        # for ... a hard argmax" is option C's own text; right in kind (as blind41's q7 probes), nothing says
        # torch.no_grad() recorded no graph
        "q7_answer_gradient_probe_under_no_grad": ("answer_computed_by_code",),
        # answer_computed_by_code: "'A' ... (`q7_answer = max(_options, key=len)`) ...": quotes the exact faulty line;
        # right in kind; borderline: "option A stands for thinking attention returns only the best-matching value (a
        # hard argmax)" (MCQ_MISCONCEPTIONS maps A and C both to attention_as_argmax) describes the option loosely
        # (A is an exact-match lookup), blames no belief of the student; nothing says max over a dict iterates its keys
        "q7_answer_longest_option_by_len_of_keys": ("answer_computed_by_code",),
        # not caught: 28/28; the n_heads == 1 shortcut (attention(X, X, X) @ W_O, projections skipped) is never
        # exercised: every q8 test uses several heads
        "q8_one_head_shortcut_skips_projections": ("mha_one_head_skips_projections",),   # now (after blind42: naming43)
    },
# wrong 14: named right 10 / partly 0 / generic 2 / raw 1 / mis-named 0 / not caught 1; correct at full marks 5/5
# judged from `measure attention-pipeline --set blind42 -v` (frozen engine, /tmp/frozen42), full messages re-read by
# grading each variant again (/tmp/j42-pipeline/full.py -> full.txt: same scores and keys as
# /tmp/measure42-attention-pipeline.txt) against each variant's "mistake" words and code; () where no failed test
# names it right
    "attention-pipeline": {
        # not caught: 42/42. q01's tests use X of (7, 9), (2, 3, 6, 10) and an expanded (3, 5, 7), with d_k, d_v, T all
        # > 1, so .squeeze() never drops an axis; q07/q09/q13 neither (engine gap: no batch of one, T = 1 or width 1)
        "q01_projections_squeezed": ("size_one_axis_dropped",),   # now (after blind42: naming43)
        # answer_computed_by_code: "ans_scale is 'a', the letter your code worked out (`ans_scale = 'a' if
        # _mean_entropy(_S_without) > _mean_entropy(_S) el...`) ... (option A stands for thinking larger scores make the
        # softmax flatter: unscaled scores grow like sqrt(d_k) and make each row sharper) ... look at ... the sizes it
        # uses": the option's text says unscaled scores are the larger ones, which the student's _S_without (divided
        # again, smaller) is not; right in kind (as blind41's q03_score_variance_read_as_flatter_rows); borderline: the
        # quoted line is the comparison, nothing says `_S / math.sqrt(512)` scales by 1/d_k instead of removing the scale
        "q03_scale_deleted_by_dividing_again": ("answer_computed_by_code",),
        # answer_computed_by_code: "'c' ... (`ans_scale = 'c' if torch.allclose(_A_scaled.sum(dim=-1), _A_raw.sum...`)
        # ... (option C stands for thinking the softmax does not change when every score is multiplied by the same
        # constant ...) ... what it measures or compares is not what the question asks": quotes the row-sum check and
        # the option's text refutes its conclusion; right in kind (as blind41's q03_argmax_experiment_read_as_nothing_
        # changes); borderline: nothing says every softmax row sums to 1, so the check is blind
        "q03_row_sums_compared_as_nothing_changes": ("answer_computed_by_code",),
        # answer_lookalike_letter: "ans_mask is 'с', which looks like 'c' but is CYRILLIC SMALL LETTER ES (U+0441) ...
        # retype the letter on a Latin layout": exactly
        "q06_cyrillic_look_alike_letter": ("answer_lookalike_letter",),
        # MIS-NAMED: mask_blocks_gradient, "ans_mask is not the best answer: that choice reflects thinking the mask is
        # about gradients": the student meant the third option c (`chr(ord("a") + 3)  # the third option`) and counted
        # the offset from 1; the message pins on them a belief they do not hold and says nothing of the arithmetic (as
        # blind32's q5_answer_third_option_zero_indexed, judged mis-named); answer_computed_by_code does not fire
        # (chr/ord of literals is read as the student's own choice) and one_edit_fix (`2` in place of `3`) does not either
        "q06_letter_offset_counted_from_one": ("answer_by_position",),   # now (after blind42: the engine)
        # MIS-NAMED: zero_log_zero_nan on q10:test_entropy_causal_rows and q10:test_entropy_views, "H contains NaN on
        # rows with zero weights: letting 0 * log 0 become NaN; masked (zero) weights must contribute 0": the code
        # already guards log 0 (torch.where(pk > 0, log2(pk), 0)); the NaN comes from `A / A.sum(dim=0)`, 0 / 0 where
        # every batch entry has a masked zero at the same place (checked: unbatched causal A gives no NaN, a (2, T, T)
        # one does), and NaN * 0 stays NaN. The student is sent to the 0 * log 0 handling, not the axis-0
        # renormalisation; test_entropy_views even shows "got [[0.5], [0.5]]" (no NaN) under the NaN key
        "q10_renormalised_along_axis_0_like_scipy": ("entropy_renormalised_other_axis",),   # now (after blind42: naming43)
        # not caught: 42/42. expect_int accepts a whole float (8.0) for max_rank_S where the question asks a Python int
        # (engine gap: float_for_int is not checked on q11's max_rank_S)
        # left after round 43: naming a whole float (8.0) float_for_int would fail variants.py's answers_other_forms,
        # which takes rank 2.0 as right (a policy to decide first)
        "q11_max_rank_averaged_over_trials": (),
        # param_count_wo_wrong_size on q12:test_count_with_output: "the count is wrong (you count W_O as d_v x d_v) ...
        # W_O maps the d_v-wide output of attention back to d_model, so it is d_v x d_model": exactly, with the fix
        "q12_output_projection_counted_as_square_d_v": ("param_count_wo_wrong_size",),
        # no_scale on the 3 q13 tests: "(O, A) are wrong: together they match not scaling the scores at all": exactly
        # the missing 1/sqrt(d_k) in the Luong-style Q K^T
        "q13_keras_luong_scores_without_scale": ("no_scale",),
        # answer_computed_by_code: "'c' ... (`ans_cross_shapes = {(_T, _T): 'a', (_T, _T2): 'b', (_T2, _T): 'c'}[...`)
        # ... (option C stands for taking queries from Y or keys/values from X in cross-attention) ... look at ... the
        # sizes it uses": true of the code (its S is T' x T, the shape of roles swapped), said as what the option stands
        # for, not as the student's belief; right in kind (as blind41's q14_batched_experiment_reads_batch_axis);
        # borderline: the quoted line is the lookup, nothing says the einsum's "->ji" puts the keys first
        "q14_experiment_scores_with_keys_first": ("answer_computed_by_code",),
        # answer_invisible_character: "'b\u200b': the letter 'b' with 1 invisible character (ZERO WIDTH SPACE (U+200B))
        # ... retype it": exactly
        "q14_letter_with_pasted_zero_width_space": ("answer_invisible_character",),
        # answer_computed_by_code: "'c' ... (`ans_cross_causal = 'c' if _fits else 'b'`) ... (option C stands for tying
        # the causal mask to a square score matrix: what matters is whether both sequences share one time axis)":
        # exactly the misreading (the mask fits when T = T') and the right criterion (d)
        "q15_equal_length_mask_experiment": ("answer_computed_by_code",),
        # answer_computed_by_code: "'d' ... (`ans_complexity = {0: 'b', 1: 'a', 2: 'c', 3: 'd'}[_power]`) ... (option D
        # stands for thinking the scores cost T^3 ...: T^2 scores of d_k multiply-adds each) ... look at ... the sizes it
        # uses": "d_k multiply-adds each" with d_k fixed is what its T x T Q and K break; right in kind; borderline:
        # nothing points at `torch.randn(T, T)` (d_k = T)
        "q16_cost_experiment_with_square_queries": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`... [_power]`) ... (option A stands for thinking the score matrix costs
        # time linear in T: there are T^2 scores)": true of the code and the fix follows; right in kind (as blind41's
        # q16_growth_exponent_with_natural_log); borderline: nothing says int() truncates log2(3.98) = 1.99 to 1
        "q16_growth_exponent_truncated_with_int": ("answer_computed_by_code",),
    },
# wrong 14: named right 10 / partly 0 / generic 0 / raw 0 / mis-named 2 / not caught 2; correct at full marks 5/5
}


BLIND43_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind43 (frozen at 7ce2a9c, measured at e87cd5f after round 43), judged by three helper sessions at first sight:
# sdpa 7/14 (three mis-named), scaled 13/14, pipeline 12/14 (its FlopCounterMode correct variant full marks at
# bwrap, one point short at the frozen tree's fallback level: this host's Python under /root): 32/42
# blind43 (frozen engine, /tmp/frozen43, fallback sandbox level), judged from `measure sdpa-from-scratch --set blind43 -v`,
# full messages re-read by grading each variant again (/tmp/j43-sdpa/full.py -> full.txt: same scores and keys as
# /tmp/measure43-sdpa-from-scratch.txt) against each variant's "mistake" words and code; () where no failed test
# names it right. No cell in this set hit the host's ModuleNotFoundError (no FlopCounterMode cell failed).
    "sdpa-from-scratch": {
        # MIS-NAMED: weights_as_output on q1:test_out_shape (the only failure): "out_shape is the shape of the weight
        # matrix, not of the output: the weights still multiply V" (key: "confusing the (T_q, T_k) weight matrix with
        # the output"); the student took the width from V, but len(_Vp[0]) stops one level short and counts the 10
        # keys, which only happens to equal T_k; the message blames a belief the code does not show and never says
        # the last entry (10) should be d_v = 128 (len(_Vp[0][0]) or V.shape[-1])
        "q1_value_width_counted_with_len_one_level_short": ("len_counts_rows_not_width",),   # now (after blind43: naming44)
        # batch_axis_repeated on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 4, 10): the right
        # shape (4, 10, 10) with the batch size 4 repeated at axis 2: ... q_shape[:-1] + k_shape[:-1]: Q and K share
        # one batch axis": exactly the mistake, quoting the very expression
        "q1_shape_slices_concatenated_with_the_batch_twice": ("batch_axis_repeated",),
        # MIS-NAMED: mean_of_slice_variances on q2:test_score_variances: "raw_score_var is 7.50662, what this mistake
        # gives: averaging the variances of each row, column or batch entry (var(dim=...).mean()) instead of the
        # variance of all the scores (.var())": a numeric coincidence (within ATOL 1e-3); the cell takes .var() of all
        # the scores; the real mistake is Q @ K[0].T (the first sequence's keys broadcast to both sequences); the
        # student is sent to change the statistic, which is already right
        "q2_keys_of_the_first_sequence_broadcast_to_both": ("keys_of_one_sequence",),   # now (after blind43: naming44)
        # answer_in_container on q2:test_scale_divisor: "scale_divisor is (8.0,), a tuple holding the number 8.0 (a
        # trailing comma makes one) ... drop the comma": exactly
        "q2_divisor_made_a_tuple_by_a_trailing_comma": ("answer_in_container",),
        # partly: weights_not_normalised on 20 of 21 failures (3 q3, 14 q5, 3 q6): "each slice ... is the right softmax
        # times its own factor (the slices sum to between 0.00638 and 0.368): using exp(scores) as weights without
        # dividing by the row sum": exactly the effect, and dividing by the row sum fixes this code; borderline:
        # nothing says the log of the sum is missing (the code subtracts sum(exp), not log(sum(exp))), and "exp(scores)
        # as weights" is not literally the code (raw exp would sum to >= 1, these sum to <= 1/e); q3:test_float16_
        # logits_in_the_thousands None: "slices sum to between 0.0281 and 0.368, not 1: keep what you subtract from the
        # logits exact in float16 (each slice's max is)": no key, and its advice (float16 precision of the shift)
        # points at a different cause
        "q3_log_left_out_of_the_log_sum_exp": ("weights_not_normalised",),
        # generic: both q4 failures None, "causal_mask(9, 6) is True everywhere, so no query is kept from any key: the
        # mask must be True only where key j <= query i": says what differs (all True for T_q != T_k); no key, nothing
        # says the rectangular branch treats it as unmasked cross-attention; q5/q6 not charged
        "q4_rectangular_mask_left_all_true_as_cross_attention": ("rectangular_mask_not_causal",),   # now (after blind43: naming44)
        # generic: 3 q4 tests and q6:test_weights3_causal None, "causal_mask(11) is not the causal mask (True where key
        # j <= query i): it differs in 60 entries, the first at [0, 0]" / "weights3_causal is not correct in row(s)
        # [0, 1]": says where it differs, nothing says triu().flip(0) keeps the anti-diagonal side (j >= T-1-i)
        "q4_upper_triangle_flipped_upside_down": ("triangle_flipped",),   # now (after blind43: naming44)
        # inplace_on_input on all 3 q5 failures: "scaled_dot_product_attention modifies its input in place (mask is
        # not the same after the call): the caller's tensor changes; compute a new tensor instead (x = x - m, not
        # x -= m ...)"; test_broadcast_inputs: the in-place write's RuntimeError on an expanded mask, with "do not
        # write into an input": exactly `mask |= dead` and its fix `mask = mask | dead`
        "q5_empty_rows_opened_in_the_callers_mask_with_or_equals": ("inplace_on_input",),
        # one_edit_fix on all 3 q6 tests: "right with one change on line 5 (`e = np.exp(s - s.max(axis=-1))`): `s` in
        # place of `s - s.max(axis=-1)` (checked ... 1 pass)": the right line and the very expression at fault;
        # borderline: the shown fix DROPS the stabilising shift instead of adding keepdims=True, and nothing says the
        # (3,) max broadcasts along the columns; a student who follows it gets full marks with an unstable softmax
        "q6_numpy_trace_row_max_subtracted_without_keepdims": ("one_edit_fix",),
        # generic (misleading): q6:test_weights3_causal None, "weights3_causal contains NaN or inf in row(s) [0, 1],
        # exactly the rows with a masked (-inf) score: look at the masked fill and at what stable_softmax subtracts
        # before exp (q3's -inf test checks it)": says what differs, but sends the student to stable_softmax's -inf
        # handling, while the real mistake is that the softmax is never applied (weights3_causal holds the masked
        # scores); no key, so not counted mis-named
        "q6_causal_weights_stored_before_the_softmax": ("softmax_not_applied",),   # now (after blind43: naming44)
        # answer_computed_by_code on q7:test_trap_answer: "q_trap_answer is 'A', the letter your code worked out
        # (`q_trap_answer = 'A' if _same else 'C'`) ... compare what each approach does to the sum of a row's weights
        # ... what it measures or compares is not what the question asks": the probe decided it and the row-sum hint
        # is the length the cosine ignores; borderline: nothing says cosine similarity ignores the norm
        "q7_trap_checked_by_cosine_similarity": ("answer_computed_by_code",),
        # MIS-NAMED (borderline): zero_after_softmax on q7:test_trap_answer: "q_trap_answer is not the best answer:
        # that choice reflects zeroing masked weights after the softmax: rows no longer sum to 1": the key names the
        # belief that zeroing after the softmax is harmless, which this student does not hold (their reason, "the
        # weights no longer sum to 1", is right: the letter is lesson 80's); the message even repeats the student's own
        # reason as what A "reflects", so it confirms their misreading of A instead of saying that A here means
        # "nothing is wrong" and the reason is option C; a letter alone cannot show the reason (earlier sets count
        # zero_after_softmax for A when the belief is the student's)
        "q7_letter_taken_from_the_lessons_quiz": ("answer_lesson_80_quiz_letter",),   # now (after blind43: naming44)
        # answer_value_not_letter on q7:test_trap_answer: "q_trap_answer is False, a truth value, not a letter ...
        # instead of the letter of the option that says it, as a string such as \"B\"": exactly
        "q7_answer_given_as_a_boolean": ("answer_value_not_letter",),
        # callable_not_called on q8:test_score_madds: "score_madds is a function or method, not a value: ... a
        # function's name without calling it, hands over the function itself ...": exactly the effect (the helper
        # def took the answer's name); borderline: "add the () that call it (`.item()`)" would raise (T is required),
        # nothing says the helper shadows the answer's name (rename it, score_madds = helper(1024))
        "q8_madds_name_reused_for_a_helper_function": ("callable_not_called",),
    },
# wrong 14: named right 7 / partly 1 / generic 3 / raw 0 / mis-named 3 / not caught 0; correct at full marks 5/5
# blind43 (frozen engine, /tmp/frozen43), judged from `measure scaled-attention --set blind43 -v`, full messages
# re-read by grading each variant again (/tmp/j43-sa/full.py -> full.txt: same scores and keys as
# /tmp/measure43-scaled-attention.txt; fallback sandbox level, no cell hit a missing standard module) against each
# variant's "mistake" words and code; () where no failed test names it right
    "scaled-attention": {
        # keepdim_missing on all 6 q1 tests: T_q != T_k tests "your code raised RuntimeError: The size of tensor a (7)
        # must match ... with as many queries as keys it runs and its weights match a row reduction without
        # keepdim=True (... has shape (T,), which broadcasts along the last axis): entry (i, j) is combined with row
        # j's sum or maximum instead of row i's"; the square ones say the same: exactly logsumexp(dim=-1) without
        # keepdim and its fix; borderline: its examples are sum/max, not logsumexp; q8 not charged (no double charge)
        "q1_log_domain_softmax_logsumexp_without_keepdim": ("keepdim_missing",),
        # shared_sample on q2:test_unscaled_variance_is_d_k (the only failure): "the result is what the same generator
        # gives when drawing one q (or one k) and reusing it for every sample: the pairs are not independent, and the
        # variance given q is |q|^2, not d_k; draw n_samples of each": exactly the one key broadcast over the samples,
        # with the fix (the scaled test passes: that draw's |k|^2 / d_k happens to fall within tolerance)
        "q2_key_drawn_once_broadcast_over_samples": ("shared_sample",),
        # dtype_changed on q4:test_entropy_random_logits: "has dtype torch.float32 for torch.float64 input; its values
        # are right: returning or mixing in another dtype than the input's ... float64 in float64 out": exactly the
        # effect of .sum(dtype=torch.float32) and what to fix; borderline: its examples are .float() / a float32
        # tensor, not a reduction's dtype= argument
        "q4_entropy_sum_accumulated_in_float32": ("dtype_changed",),
        # table_fields_swapped on both q4 table tests: "it matches putting each of two values under the other's key
        # (H_raw holding the entropy of the scaled scores and H_scaled that of the raw ones, say): a copy-paste slip":
        # exactly the kind (scaled_std <-> H_raw from the zip order); borderline: the "say" example is another pair,
        # nothing says WHICH two keys (scaled_std and H_raw) nor that the zip's value order differs from _KEYS
        "q4_table_row_zipped_with_keys_out_of_order": ("table_fields_swapped",),
        # answer_computed_by_code: "'A', the letter your code worked out (`q5_answer = min(_options, ...`) ... what it
        # measures or compares is not what the question asks (look at its sign, max against min, the sizes it uses,
        # the branch each outcome takes)": right in kind (as blind42's q5_answer_probe_with_one_sample_nan);
        # borderline: it quotes the min line, not the torch.rand lines, and nothing says rand is uniform, not normal
        "q5_answer_probe_draws_uniform_rand": ("answer_computed_by_code",),
        # answer_computed_by_code: same message, quoting the min line: right in kind ("the sizes it uses" fits: the
        # variance of 16 terms of one pair, not of q.k over many pairs); borderline: nothing says var of the terms
        "q5_answer_probe_variance_of_terms_of_one_pair": ("answer_computed_by_code",),
        # answer_extra_characters: "a `#` comment typed inside the quotes is part of the string; close the quotes
        # after the letter and comment after them (q5_answer = 'C'  # ...)": exactly, with the fix
        "q5_answer_comment_typed_inside_quotes": ("answer_extra_characters",),
        # answer_value_not_letter: "q6_answer is ['A', ' A weighted average ...], a list of 2 values, not a letter:
        # answering ... with a value (... what an option says ...) instead of the letter ... as a string": the list
        # from split() shown, the letter in it, the fix (keep the string 'A') follows, as blind42's
        # q5_answer_min_over_items_keeps_pair; borderline: nothing says take [0] of split's list
        "q6_answer_option_line_split_without_index": ("answer_value_not_letter",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out, _expected_A, atol=1e-05): q6_answer = 'A' e...`)":
        # quotes the very comparison with the faulty expected_A; "option C stands for ... a hard argmax" is option
        # C's text; right in kind; borderline: nothing says expected_A lacks the 1/sqrt(d_k)
        "q6_answer_check_expected_weights_without_scale": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q.grad is not None and _Q.grad.abs().sum() > 0 ...`)
        # ... (look at ... the branch each outcome takes)": quotes the verdict line on _Q.grad; right in kind (as
        # blind42's q7_answer_gradient_probe_under_no_grad); nothing says .double() after requires_grad makes a non-leaf
        "q7_answer_gradient_probe_reads_non_leaf_grad": ("answer_computed_by_code",),
        # answer_computed_by_code: "'A' ... (`q7_answer = 'A' if torch.allclose(_out, _v) else 'D'`) ... (look at ...
        # the sizes it uses ...)": quotes the verdict line, and "the sizes" fits the single key; right in kind;
        # borderline: option A's gloss ("a hard argmax") is loose, nothing says one key always gets weight 1
        "q7_answer_probe_with_a_single_key": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if _Q.grad is None else 'D'`) ...": quotes the verdict
        # line, right in kind; BORDERLINE: the slip is one line up (`.backward` without ()), callable_not_called's
        # "add the () that call it" would be exact and is not said
        "q7_answer_backward_method_not_called": ("answer_computed_by_code", "callable_not_called"),   # now (after blind43: the engine)
        # generic: all 3 q8 tests None, "multi_head_attention(...) does not match the correct result in 240 of 240
        # entries (largest difference 3.78 ...)": says it differs, nothing says K = Q W_K / V = K W_V (chained
        # projections, each must come from X)
        "q8_projections_chained_from_previous_projection": ("mha_projection_chained",),   # now (after blind43: naming44)
        # inplace_on_input on all 3 q8 tests: "modifies its input in place (argument 4 [counted from 0 = W_O] is not
        # the same after the call) ... compute a new tensor instead": exactly the t_() on the caller's W_O, part of
        # the stated mistake; BORDERLINE (as measure.py's q08_accumulator_aliases_first_value): it does not say the
        # transpose itself is wrong (concat @ W_O.T), which its fix (W_O = W_O.t()) keeps; graded again with that
        # fix, all 3 tests name mha_weight_transposed ("applying the projections as X @ W.T (nn.Linear's layout)
        # instead of X @ W"), so the student reaches the whole fix in two steps; "argument 4" read from 1 is W_V
        "q8_w_o_transposed_in_place_for_linear_convention": ("inplace_on_input",),
    },
# wrong 14: named right 13 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
# judged from `measure attention-pipeline --set blind43 -v` (frozen engine, /tmp/frozen43, fallback sandbox level),
# full messages re-read by grading each variant again (/tmp/j43-pipeline/full.py -> full.txt: same scores and keys
# as /tmp/measure43-attention-pipeline.txt) against each variant's "mistake" words and code; () where no failed test
# names it right
    "attention-pipeline": {
        # dtype_changed on q01:test_project_batched_float32 (the only failure): "Q is torch.float64 for torch.float32
        # inputs, with the right values: returning or mixing in another dtype than the input's (.float() or a float32
        # tensor never cast back): float16 in must give float16 out": exactly the .double() never cast back; q07, q09,
        # q13 not charged
        "q01_projections_computed_in_float64": ("dtype_changed",),
        # answer_computed_by_code: "'a', the letter your code worked out (`ans_scale = 'b' if _H_raw < _H_scaled else
        # 'a'`) ... (option A stands for thinking larger scores make the softmax flatter: unscaled scores ... make each
        # row sharper) ... look at ... the branch each outcome takes": quotes the comparison whose else branch the NaN
        # takes, and the option's text refutes the pick; right in kind (as blind42's q5_answer_probe_with_one_sample_nan);
        # borderline: nothing says 0 * log2(0) is NaN (use xlogy / a where on A > 0)
        "q03_nan_entropy_comparison_falls_to_else": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`ans_scale = 'a' if _A_raw.var(dim=-1).mean() > _A_scaled.var(dim=-1...`)
        # ... (option A stands for thinking larger scores make the softmax flatter ...) ... what it measures or compares
        # is not what the question asks": quotes the exact faulty line (the variance as spread); right in kind;
        # borderline: nothing says a one-hot row has the largest variance (entropy measures spread)
        "q03_weight_variance_read_as_spread": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`ans_mask = 'a' if not torch.allclose(_sums, torch.ones(6, ...`) ...
        # (option A stands for thinking the mask is what makes the rows sum to 1: the softmax does that with or without
        # a mask)": exactly what refutes the experiment (the unmasked rows do sum to 1); borderline: nothing points at
        # .tril() before the sum
        "q06_lower_triangle_row_sums_of_unmasked_weights": ("answer_computed_by_code",),
        # answer_extra_characters: "ans_mask is 'c.': it has characters besides the letter, which seems to be 'c':
        # writing the letter with extra characters (a full stop, ...)": exactly
        "q06_letter_with_full_stop": ("answer_extra_characters",),
        # inplace_on_input on the 3 failing q08 tests: "nadaraya_watson modifies its input in place (argument 1 is not
        # the same after the call) ... compute a new tensor instead (x = x - m, not x -= m ...)": exactly K /= ...;
        # borderline: "argument 1" counts from 0 (K of (q, K, V)); a student counting from 1 might look at q, but the
        # cell's only in-place op and the x -= m hint point at the right line
        "q08_keys_scaled_in_place": ("inplace_on_input",),
        # generic: both q12 tests None, "the count is wrong (for d_v different from d_k)" and "with d_model=248, d_k=43,
        # d_v=70 you give 434440.0; W_Q, W_K, W_V hold 38688 and W_O (d_v x d_model) 17360, so your count holds
        # 395752.0 for W_O if the rest is right": says the count differs and by how much, but leans on d_v and W_O
        # (the parenthesis is the test's case, read as a cause; "if the rest is right" is conditional), no key: nothing
        # says the count depends on earlier calls (the list default `shapes=[]` accumulates); not a mis-name (no key),
        # but the text could send a student to W_O's size
        "q12_shapes_accumulated_in_mutable_default": ("param_count_state_between_calls",),   # now (after blind43: naming44)
        # answer_computed_by_code: "'a' ... (`ans_cross_shapes = {(_T, _T): 'a', (_T, _T2): 'b', (_T2, _T): 'c'}[...`)
        # ... (option A stands for taking the keys and values from X as well (that is self-attention ...)) ... look at
        # ... the sizes it uses": the padded Y has X's length, which is the sizes hint; right in kind (as blind42's
        # q14_experiment_scores_with_keys_first); borderline: the quoted line is the lookup, nothing points at F.pad
        "q14_y_padded_to_query_length_in_experiment": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`ans_cross_causal = 'a' if 'memory_is_causal' in _params else 'd'`) ...
        # (option A stands for applying a causal mask in cross-attention, where queries and keys come from different
        # sequences) ... what it measures or compares is not what the question asks": quotes the exact faulty line
        # (an argument's existence as the answer); right in kind; borderline: the look-at list (sign, max/min, sizes)
        # does not fit a signature check
        "q15_memory_is_causal_argument_read_as_always": ("answer_computed_by_code",),
        # answer_extra_characters: "ans_cross_causal is '**d**': it has characters besides the letter, which seems to
        # be 'd' ... the answer must be the letter alone": exactly
        "q15_markdown_bold_copied_with_letter": ("answer_extra_characters",),
        # answer_computed_by_code: "'b' ... (`ans_complexity = 'b' if _ratio < 1.5 else 'a' if _ratio < 3 else 'c'`)
        # ... (option B stands for thinking the cost of the scores does not depend on T: there are T^2 of them) ...
        # look at ... the sizes it uses": the sizes hint fits T = 2 and 4; right in kind; borderline: nothing says
        # call overhead dominates tiny products
        "q16_timed_on_tiny_sequences": ("answer_computed_by_code",),
        # answer_computed_by_code: "'a' ... (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}[round(_ratio)]`) ...
        # (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores)": the option's
        # text is the fix (count S's T^2 entries, not Q's and K's); right in kind; borderline: nothing points at
        # Q.numel() + K.numel()
        "q16_cost_measured_as_size_of_q_and_k": ("answer_computed_by_code",),
        # generic: q11:test_rank_S_lesson None, "rank_S_lesson is 5: that is T ... and also the number of non-zero
        # rows of S (every one of its queries is non-zero); S = Q K^T passes through d_k = 4 dimensions, so its rank is
        # at most 4: call torch.linalg.matrix_rank(S) on S itself": names the actual mistake (nonzero rows) among four
        # readings and gives the fix, but no key
        "q11_lesson_rank_counted_as_nonzero_rows": (),
        # one_edit_fix on the 3 q13 tests: "right with one change on line 3 ...: `Y @ W_V` in place of `Y @ W_V * s`"
        # plus "O ... is the correct result times a constant: off by a constant factor x0.5373" (= 12 ** -0.25):
        # exactly the scale put on V too, at its place with the fix
        "q13_quarter_root_scale_also_on_values": ("one_edit_fix",),
    },
# correct: 4/5 at the fallback level; flop_counter_complexity_and_parenthesised_letter lost q16:test_ans_complexity
# only to "ModuleNotFoundError: No module named 'cProfile'" (FlopCounterMode's import, this host's Python under /root
# unreadable to the fallback worker's uid: the environment, not the variant); regraded at the bwrap level with
# /tmp/eng43/one.py: 42/42, so 5/5 counting that
# wrong 14: named right 12 / partly 0 / generic 2 / raw 0 / mis-named 0 / not caught 0; correct at full marks 4/5 (5/5 at bwrap)
}


BLIND44_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind44 (frozen at 2f6a118, measured there), judged by three helper sessions at first sight: scaled 12/14 (one
# mis-named; 11 at the frozen tree's fallback level, where one cell hit this host's unreadable cProfile, regraded at
# bwrap), sdpa 9/14 (one mis-named), pipeline 8/14 (two mis-named, both one-edit fixes of a small count by a variable
# swap, not said since 735feae; its FlopCounterMode-style cell regraded at bwrap): 29/42
# blind44 (frozen engine, /tmp/frozen44, fallback sandbox level), judged from `measure scaled-attention --set blind44 -v`,
# full messages re-read by grading each variant again (/tmp/j44-sa/full.py -> full.txt: same scores and keys as
# /tmp/measure44-scaled-attention.txt) against each variant's "mistake" words and code; () where no failed test
# names it right. One cell hit this host's ModuleNotFoundError (cProfile, from torch.optim at the fallback level):
# q7_answer_gradient_probe_reads_grad_after_zero_grad, regraded at the bwrap level from /work/main (engine at
# 2aeb7f9, not the frozen one) with /tmp/eng43/one.py and judged on that message.
    "scaled-attention": {
        # no_scale on all 5 failing q1 tests: "the weight matrix is wrong: with the other result of the same call it
        # matches not scaling the scores at all": exactly the effect (exp(QK^T)/sqrt(d_k) cancels in the normaliser,
        # leaving softmax(QK^T)), as measure.py's q08_scale_outside_exp -> no_scale; borderline: nothing says the
        # division sits on the exponentials instead of the scores; q8 not charged (no double charge)
        "q1_scale_divides_the_exponentials_and_cancels": ("no_scale",),
        # generic: q2:test_scaled_variance_is_one None, "for d_k = 12 the variance of q.k / sqrt(d_k) is not within 10%
        # of its expected value": says which value differs, no key; nothing says `d_k ** 0.5 ** 2` is d_k ** 0.25
        # (right-to-left **), no one_edit_fix `(d_k ** 0.5) ** 2` (as blind's q8_power_right_associative got)
        # now (after round 45: the d_k ** 0.25 ratio, confirmed at a second d_k)
        "q2_scaled_variance_power_tower_read_right_to_left": ("variance_power_right_associative",),
        # draws_not_unit_variance on both q2 tests: "each product q_i k_i has variance about 0.248, so your q and k
        # entries have variance about 0.498 ..., not 1: drawing q and k entries whose variance is not 1 (a normal
        # formula misremembered ...) ... draw standard normals with torch.randn(...)": exactly the effect (variance
        # 1/2 per coordinate) and a working fix; borderline: its examples are Box-Muller / uniforms, nothing names
        # erfinv's missing sqrt(2)
        "q2_inverse_cdf_normals_without_sqrt_two": ("draws_not_unit_variance",),
        # MIS-NAMED: entropy_softmax_whole_tensor on q4:test_entropy_saturated_rows: "it matches normalising the
        # exponentials by one sum over the whole tensor (e / e.sum() without dim): each row's probabilities must sum to
        # 1 (softmax along dim=-1)": a coincidence (the +300 logit makes a whole-tensor softmax one-hot, every row's
        # entropy ~0, like the clamped -1e-9); the student's F.softmax(logits, dim=-1) is right and would be "fixed";
        # the real mistake is torch.log(p).clamp(min=1e-9) (every log p becomes +1e-9). The other two q4 tests None:
        # "it is the correct result times a constant: off by a constant factor x-1.08e-09" (generic; true of the
        # output, -1e-9 everywhere, but says nothing of the clamp on the log)
        # now (after round 45: the clamp on log p replayed; the whole-tensor reading needs a second call where its replay is ~0)
        "q4_entropy_nan_guard_clamps_the_log": ("entropy_clamp_log",),
        # answer_value_not_letter on q5:test_q5_answer: "q5_answer is 16.0, a number, not a letter: answering ... with
        # a value (... a result worked out) instead of the letter of the option that says it, as a string": exactly
        # the effect (min over the values returns 16.0); borderline: nothing says take min over the dict's keys
        "q5_answer_probe_min_over_option_values": ("answer_value_not_letter",),
        # answer_computed_by_code: "'B', the letter your code worked out (`q5_answer = min(_options, key=...`) ...
        # (option B stands for confusing the standard deviation ... with its variance) ... (look at ... the sizes it
        # uses ...)": right in kind, as blind43's q5_answer_probe_variance_of_terms_of_one_pair ("the sizes" fits one
        # pair); borderline: quotes the min line, nothing says one squared draw is not an estimate of the variance
        "q5_answer_probe_one_pair_squared_dot_as_variance": ("answer_computed_by_code",),
        # answer_value_not_letter on q6:test_q6_answer: "q6_answer is 65, a number, not a letter ... instead of the
        # letter of the option ..., as a string such as \"B\"": exactly (ord without chr); borderline: chr() not said
        "q6_answer_option_index_added_to_ord_without_chr": ("answer_value_not_letter",),
        # answer_computed_by_code: "'C' ... (`if _is_weighted_average: q6_answer = 'A' elif torch.allclose(_out, ...`)
        # ... what it measures or compares is not what the question asks": quotes the check that rules A out; right
        # in kind, as blind43's q6_answer_check_expected_weights_without_scale; borderline: nothing says `_W[i] * _X`
        # broadcasts along the features (`_W[i][:, None]` meant)
        "q6_answer_check_row_weights_broadcast_along_features": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`if _out.shape == _X.shape: q6_answer = 'B' else: ...`) ... (option B
        # stands for thinking a token in self-attention attends only to itself) ... what it measures or compares is
        # not what the question asks": quotes the exact faulty line (a shape, which every option shares), and the
        # cell's own comment holds B's belief
        "q6_answer_decided_by_output_shape": ("answer_computed_by_code",),
        # at the frozen fallback level: raw, q7:test_q7_answer None "`q7_answer` is not defined: ... your code raised
        # ModuleNotFoundError: No module named 'cProfile' (line 6)": torch.optim's import on this host (Python under
        # /root unreadable to the fallback worker's uid), the environment, not the variant; regraded at bwrap
        # (/work/main engine): 27/28, answer_computed_by_code "'C' ... (`q7_answer = 'D' if _Q.grad is not None and
        # _Q.grad.abs().sum() > 0 ...`) ... (look at ... the branch each outcome takes)": quotes the verdict on _Q.grad,
        # right in kind, as blind43's q7_answer_gradient_probe_reads_non_leaf_grad; borderline: nothing says
        # zero_grad() sets .grad to None (read it before zero_grad)
        "q7_answer_gradient_probe_reads_grad_after_zero_grad": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q.grad.abs().max() > 1e-06 else 'C'`) ... (option C
        # stands for ... a hard argmax ...)": quotes the verdict line, right in kind (as blind43's q7 probes);
        # borderline: nothing says equal value rows (torch.ones) make the output constant, so the gradient is 0
        "q7_answer_gradient_probe_with_equal_value_rows": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out1, _out2, atol=0.01): q7_answer = 'C' else: ...`)
        # ... what it measures or compares is not what the question asks": quotes the exact faulty comparison with
        # its atol; right in kind; borderline: nothing says the 1e-3 nudge moves the output less than atol
        "q7_answer_continuity_probe_tolerance_above_the_change": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _grad is not None else 'C'`) ... (look at ... the
        # branch each outcome takes)": quotes the verdict on _grad, right in kind; borderline: the slip is two lines
        # up (`_grad = _Q.grad` before `.backward()`), not said
        "q7_answer_grad_stored_before_backward": ("answer_computed_by_code",),
        # one_edit_fix on all 3 q8 tests: "right with one change on line 7 of its cell (`V = torch.einsum("td,ed->te",
        # X, W_V)`): `'td,de->te'` in place of `'td,ed->te'` -- or -- `W_V.transpose(-2, -1)` in place of `W_V`":
        # the exact line and fix
        "q8_value_projection_einsum_subscripts_swapped": ("one_edit_fix",),
    },
# correct: 5/5 at full marks (28/28 each, fallback level; no correct cell hit the host's missing modules)
# wrong 14: named right 12 / partly 0 / generic 1 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
# (at the frozen fallback level alone: named right 11 / raw 1, q7_answer_gradient_probe_reads_grad_after_zero_grad's cProfile)
# blind44 (frozen engine, /tmp/frozen44, fallback sandbox level), judged from `measure sdpa-from-scratch --set blind44 -v`,
# full messages re-read by grading each variant again (/tmp/j44-sdpa/full.py -> full.txt: same scores and keys as
# /tmp/measure44-sdpa-from-scratch.txt) against each variant's "mistake" words and code; () where no failed test
# names it right. No cell in this set hit the host's ModuleNotFoundError; the one raw exception (Fraction) is the same
# at the bwrap level (/tmp/eng43/one.py from /work/main: 34/35, same EncodeError), so it is not the host's problem.
    "sdpa-from-scratch": {
        # float_for_int on both q1 failures: "weights_shape is (4.0, 10.0, 10.0): a float where a shape holds whole
        # numbers, Python ints: ... or int(...) around the result": exactly the effect and a fix that works; borderline:
        # its examples (math.pow, /, a float literal) do not name np.zeros' float64 default (dtype=int)
        "q1_size_table_in_np_zeros_keeps_float_entries": ("float_for_int",),
        # weights_as_output on q1:test_out_shape (the only failure): "out_shape is the shape of the weight matrix, not
        # of the output: the weights still multiply V": here the output einsum literally carries the weights' result
        # letters ("bqk,bkd->bqk"), so out_shape IS the weights' shape and the fix is to give the output V's width
        # ("->bqd"); borderline: nothing says the copied "->bqk" sums V's width away (unlike blind43's len slip, the
        # weights' shape here comes from the weights' own letters, not a coincidence)
        "q1_out_probe_einsum_letters_copied_from_the_weights": ("weights_as_output",),
        # generic: q2:test_score_variances None, "raw_score_var is 6.128 and scaled_score_var 0.766, exactly 1/8 of it,
        # so the scale is right; but neither is the variance of the example's scores (... 6.599): either other scores
        # were measured or another statistic than their .var() was taken": says what differs, nothing says each row is
        # centred on its own mean instead of the overall mean
        # now (after round 45: the per-row centring replayed on the example's scores)
        "q2_hand_variance_centred_on_each_rows_mean": ("variance_centred_per_slice",),
        # MIS-NAMED: variance_scaled_like_scores on q2:test_score_variances (the only failure): "scaled_score_var is the
        # raw variance divided by sqrt(d_k): dividing the scores by sqrt(d_k) divides their variance by d_k" (key:
        # "dividing the variance by sqrt(d_k) as if it scaled like the scores"); the number is a true description, but
        # the code takes .var() of the divided scores, which is right; the real mistake is d_k = Q.shape[-1] ** 0.5
        # (a square root already) rooted again, so the scores are divided by 8 ** 0.25; the student is sent to fix a
        # variance-scaling belief the code does not hold, nothing points at what d_k holds
        # now (after round 45: the cell read: a variance of divided scores is the root taken twice, a divided variance the other reading)
        "q2_d_k_variable_holds_the_square_root_already": ("scale_root_taken_twice",),
        # gradient_cut on q5:test_gradients_float64 (the only failure; q3's tests do not lose a point): "the output is
        # right but no gradient reached Q or K (it reached V): the autograd graph is cut at the weights": exactly the
        # effect of @torch.no_grad() on stable_softmax, and it points at the weights; borderline: its list (.detach(),
        # .data, .item(), NumPy) does not name no_grad
        "q3_softmax_decorated_with_no_grad": ("gradient_cut",),
        # one_edit_fix on all 4 failures (3 q4, q6:test_weights3_causal): "`causal_mask` is right with one change on
        # line 5 of its cell (`future = ....triu(diagonal=-1) ...`): `1` in place of `-1`": the very line and the sign
        # at fault; q6's trailing line ("look at the masked fill and at what stable_softmax subtracts") is secondary,
        # the lead names the fix; q5 not charged
        # now (naming round 61: causal_diagonal_offset_misread on q6:test_weights3_causal, true (triu's diagonal offset with its sign flipped: the mask shifted by two))
        "q4_complement_of_triu_with_the_offset_sign_flipped": ("one_edit_fix", "causal_diagonal_offset_misread"),
        # causal_ignores_T_k on q4:test_more_queries_than_keys (the only failure): "causal_mask(9, 6) has shape (6, 6):
        # a square mask from one length; it should be (9, 6), one row per query and one column per key": the code does
        # build a square from one length (T_k) and has too few rows for the queries; the key's text says "ignoring T_k
        # (or T_q)", which covers it; the message shown does not say which length is ignored, so it does not mislead
        "q4_mask_cut_from_the_key_square_by_its_first_rows": ("causal_ignores_T_k",),
        # dtype_changed on all 7 q5 failures: "the float16 output comes back as torch.float32 for a torch.float16
        # input, with the right values: keep the input's dtype (cast back, or do not convert)": exactly the effect;
        # the student's .to(Q.dtype) is the cast back that fails, and "keep the input's dtype" is the fix (save it
        # before rebinding); borderline: nothing says Q was rebound, so .to(Q.dtype) is float32
        "q5_inputs_rebound_to_float32_so_the_cast_back_is_a_no_op": ("dtype_changed",),
        # generic: q6:test_out3 None, "out3 should have shape (3, 2), got (6,)": says what differs, nothing names the
        # flatten().tolist() into one list
        # now (after round 45: the right numbers row by row in a flat list)
        "q6_output_stored_as_a_flat_list": ("matrix_flattened",),
        # answer_computed_by_code on q7:test_trap_answer: "q_trap_answer is 'A', the letter your code worked out
        # (`q_trap_answer = 'A' if _still_one else 'C'`) ... compare what each approach does to the sum of a row's
        # weights ... when the code picks a wrong option: what it measures or compares is not what the question asks":
        # right: the check picked the letter and measured untouched weights (as blind43's cosine probe); borderline:
        # nothing says masked_fill returns a new tensor that was thrown away, its hint list (sign, max against min,
        # sizes, branch) does not cover it, and "(option A stands for zeroing masked weights after the softmax: rows no
        # longer sum to 1)" garbles option A ("Nothing: ... same effect")
        "q7_check_zeroes_with_masked_fill_not_in_place": ("answer_computed_by_code",),
        # answer_lookalike_letter on q7:test_trap_answer: "q_trap_answer is 'Ｃ', which looks like 'C' but is FULLWIDTH
        # LATIN CAPITAL LETTER C (U+FF23) ... retype the letter on a Latin layout": exactly
        "q7_letter_typed_full_width": ("answer_lookalike_letter",),
        # answer_in_container on q7:test_trap_answer: "q_trap_answer is array(['C'], dtype='<U1'), a NumPy array holding
        # a letter (take it out: q_trap_answer = str(arr.item()))": exactly, with a fix that works (the rest is the
        # key's generic tuple/comma text)
        "q7_letter_picked_by_a_boolean_mask_stays_an_array": ("answer_in_container",),
        # generic: q8:test_score_madds None, "score_madds is not the number of multiply-adds of Q @ K.T (each entry is
        # a dot product of length d_k)": a good hint (each ENTRY is a dot product), but no key; nothing says 64 is the
        # cost of one score and not of all T^2
        # now (after round 45: score_madds = d_k, one score's cost)
        "q8_madds_of_one_dot_product": ("madds_of_one_score",),
        # raw: q8:test_cost_ratio None, "your code raised EncodeError: a value of type Fraction cannot cross the sandbox
        # boundary": a raw exception (same at the bwrap level); nothing says a Fraction is not the int asked (int(...))
        # now (after blind44, engine: the Fraction named by its type)
        "q8_ratio_kept_as_an_exact_fraction": ("number_of_another_type",),
    },
# wrong 14: named right 9 / partly 0 / generic 3 / raw 1 / mis-named 1 / not caught 0; correct at full marks 5/5
# blind44 (frozen engine, /tmp/frozen44, fallback sandbox level), judged from `measure attention-pipeline --set blind44 -v`
# (/tmp/measure44-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j44ap/full.py ->
# /tmp/j44ap/full.txt: same scores and keys as the measure) against each variant's "mistake" words and code; () where no
# failed test names it right. One cell hit the host's ModuleNotFoundError (q16 FlopCounterMode -> cProfile); regraded at
# the bwrap level from /work/main (/tmp/eng43/one.py, full message via /tmp/j44ap/full.py /work/main).
    "attention-pipeline": {
        # causal_needs_square on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is not the best answer: that
        # choice reflects tying the causal mask to a square score matrix: what matters is whether both sequences share one
        # time axis": names and refutes C's belief, the hedge's first letter that `or` keeps, and points to D; accepted as
        # blind35's q5_answer_hedged_with_and_operator / blind41's q06_letters_joined_with_and; borderline: nothing says
        # `or` returns its first truthy operand (the value is 'c') or that two letters were given
        "q15_hedged_with_or_keeps_first_letter": ("causal_needs_square",),
        # bytes_for_text: "ans_cross_causal is (or returns) a bytes object ... ("C".encode() ...) ... write the string itself,
        # "C" (or .decode() the bytes)": exactly
        "q15_letter_encoded_to_bytes": ("bytes_for_text",),
        # generic: q06:test_ans_mask None, "ans_mask should be one letter as a string: "a", "b", "c", "d"": says what is
        # expected, no key: nothing says a dict of True/False marks is given (no container key fired)
        # now (after blind44, engine: the dict of marks told as such, with the letter it marks)
        "q06_options_marked_true_false_in_a_dict": ("answer_as_option_marks",),
        # answer_computed_by_code: "'a', the letter your code worked out (`ans_mask = 'a' if not torch.allclose(_sums, ...`)
        # ... (option A stands for thinking the mask is what makes the rows sum to 1: the softmax does that with or without
        # a mask) ... what it measures or compares is not what the question asks": the unmasked rows do sum to 1, which
        # refutes the experiment; right in kind (as blind43's q06_lower_triangle_row_sums_of_unmasked_weights); borderline:
        # nothing points at .sum(dim=0) summing the columns
        "q06_column_sums_of_unmasked_weights_read_as_rows": ("answer_computed_by_code",),
        # answer_computed_by_code: "'c' ... (`ans_cross_shapes = next((k for k, v in _options.items() if v == ((_...`) ...
        # (option C stands for taking queries from Y or keys/values from X in cross-attention)": exactly the target/source
        # mapping turned round (queries given Y's length); borderline: nothing names L = the query length in MHA's docs
        "q14_mha_target_length_read_as_keys_sequence": ("answer_computed_by_code",),
        # answer_computed_by_code: "'c' ... (`ans_scale = 'c' if math.isclose(_H_raw, _H_scaled) else ...`) ... (option C
        # stands for thinking the softmax does not change when every score is multiplied by the same constant ...) ...
        # look at ... the sizes it uses": the sizes hint fits d_k = 1; right in kind (as blind43's q16_timed_on_tiny_
        # sequences); borderline: nothing says sqrt(1) = 1 makes the scale a no-op (no probe_at_degenerate_size here), and
        # the option's text ("multiplied by a constant changes it") is what this student's d_k = 1 run seemed to contradict
        "q03_scale_experiment_with_one_feature": ("answer_computed_by_code",),
        # answer_computed_by_code: "'d', the letter your code worked out (`for ans_scale, _text in _options.items():
        # print(ans_scale + ')', _t...`) ... a search over the options": quotes the very loop that rebinds ans_scale and
        # says the code, not the student, picked 'd'; borderline: nothing says the loop variable overwrites the answer's
        # name (rename it), and "option D stands for thinking an entropy can be negative" is not this student's belief
        "q03_loop_over_options_overwrites_answer": ("answer_computed_by_code",),
        # answer_computed_by_code: "'b' ... (`ans_complexity = 'b' if _ratio < 1.5 else 'a' if _ratio < 3 else 'c'`) ...
        # (option B stands for thinking the cost of the scores does not depend on T: there are T^2 of them) ... what it
        # measures or compares is not what the question asks": right in kind (what was measured is not S's memory; as
        # blind43's q16_cost_measured_as_size_of_q_and_k); borderline: the quoted line is the branch, nothing names
        # sys.getsizeof (the Python object, not its storage: numel() * element_size())
        "q16_memory_measured_with_sys_getsizeof": ("answer_computed_by_code",),
        # frozen fallback level: raw, "ans_complexity is not defined ... ModuleNotFoundError: No module named 'cProfile'":
        # this host's Python under /root (FlopCounterMode's import), not the variant's mistake; regraded at bwrap from
        # /work/main (engine differs from the frozen one only by a find_use ImportFrom branch): 41/42,
        # answer_computed_by_code: "'a' ... (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}[round(_ratio)]`) ...
        # (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores)": the option's text
        # is the fix (count S's T^2 scores, not the whole layer); right in kind (as blind43's q16_cost_measured_as_size_
        # of_q_and_k); borderline: nothing says the projections dominate at T = 8, 16 with d_model = 512
        "q16_flops_of_whole_layer_at_short_lengths": ("answer_computed_by_code",),
        # MIS-NAMED: one_edit_fix on q11:test_rank_S_lesson (the only failure): "right with one change on line 5
        # (`_R = torch.linalg.qr(scaled_scores(_Q, _K)).R`): `scaled_scores(_K, _Q)` in place of `scaled_scores(_Q, _K)`":
        # the fix shown transposes S, whose QR happens to leave exact zero pivots: it blames the argument order, while the
        # mistake is counting R's nonzero diagonal with no tolerance (a 1e-16 pivot counts); the student who follows it
        # passes with the same broken method. The appended text ("3 counts a singular value of about 3e-08 ... a tolerance
        # too small ... use torch.linalg.matrix_rank(S)") is right, but it comes after the wrong fix under the same key
        # now (naming round 53: rank_without_tolerance (was a one-edit argument swap, a mis-name))
        "q11_lesson_rank_from_qr_diagonal_without_tolerance": ("rank_without_tolerance",),
        # MIS-NAMED: one_edit_fix on q11:test_rank_S_lesson (the only failure): "right with one change on line 5
        # (`rank_S_lesson = int(torch.trace(scaled_scores(_Q, _K)))`): `_Q` in place of `_K`": int(trace(Q Q^T) / 2) =
        # int(2.25) = 2 by coincidence; it blames the operand, while the mistake is reading the trace as the rank; the
        # appended "try torch.linalg.matrix_rank on the lesson's S" is the right fix but generic and second
        # now (after blind51: rank_from_trace (naming round 51))
        "q11_lesson_rank_read_as_trace": ("rank_from_trace",),
        # not caught: 42/42 (also at bwrap from /work/main); qkv_param_count returning the 0-dim tensor tensor(72) instead
        # of an int passes every q12 test
        "q12_count_left_as_zero_dim_tensor": (),
        # generic: all 4 q07 failures None, "O does not match the correct result in 50 of 50 entries ..." and
        # "O (compared with your own A times V) does not match ...": says what differs (O is not A V, A still right), no
        # key; nothing names the LayerNorm put on the output
        # now (after round 45: the LayerNorm replayed on the test's own O, named on the four q07 tests)
        "q07_output_layer_normalised": ("output_layer_normalised",),
        # not caught: 42/42 (also at bwrap from /work/main); exp(K @ q) ** (1/sqrt(d_k)) overflows to inf/inf = NaN for
        # large float16/float32 dot products, and no q08 test feeds such scores
        # now (after round 45: a float16 head of d_k = 64 inside test_nw_random; the overflow replayed)
        "q08_scale_applied_as_power_of_kernel": ("nw_scale_after_exp",),
    },
# correct: 5/5 at full marks (42/42 each, fallback level)
# wrong 14: named right 8 / partly 0 / generic 2 / raw 0 / mis-named 2 / not caught 2; correct at full marks 5/5
}

BLIND45_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind45 (frozen at 3b66428 after round 45, measured there at the bwrap level), judged by three helper sessions at
# first sight: scaled 11/14, sdpa 6/14 (two mis-named), pipeline 12/14 (one mis-named): 29/42
    "scaled-attention": {
        # raw: all 6 failing q1 tests None, "your code raised RuntimeError: The expanded size of the tensor (12) must
        # match the existing size (10) at non-singleton dimension 0 ..." (the smallest failing input, V (1, 2) with
        # d_k = 3, is shown too); nothing says the buffer torch.zeros_like(Q) has d_k columns where the output needs
        # d_v (torch.empty(Q.shape[0], V.shape[1]) or weights @ V meant); q8 not charged (its heads have d_v = d_k)
        # now (after round 46: the crash replayed with a buffer shaped like Q, and a second call with d_v = d_k right)
        "q1_output_buffer_zeros_like_queries": ("output_buffer_width_of_queries",),
        # scores_negated on all 5 failing q1 tests: "it matches negating the scores before the softmax
        # (softmax(-Q K^T / sqrt(d_k)), as if they were distances where small means close): the key that matches
        # worst gets the most weight": F.softmin(x) is exactly softmax(-x), so exactly the mistake and its effect;
        # borderline: F.softmin is not named; q8 not charged (no double charge)
        "q1_softmin_for_the_weights": ("scores_negated",),
        # generic: q2:test_unscaled_variance_is_d_k None, "for d_k = 12 the variance of q.k is not within 10% of its
        # expected value": says which value differs, no key, no value; nothing says the per-vector z-scoring
        # (dim=1) removes a degree of freedom (d_k - 1 = 11 for 12); the scaled test passes (11/12 is inside 10%)
        # now (after round 46: the z-scored draws replayed exactly on the same generator)
        "q2_draws_standardised_per_vector": ("draws_standardised_per_vector",),
        # not caught: 28/28; no q4 test calls softmax_entropy on 1-D logits and checks for a 0-d result (the 2-D,
        # 3-D and view tests have leading dims, where atleast_2d does nothing; entropy_table's .item() accepts a
        # (1,) tensor; _entropy_wrong's 1-D probe checks shape () but is only a NaN/saturation helper)
        # now (after round 46: one 1-D row's entropy must be 0-d, as the notebook promises, checked at the end of an existing test)
        "q4_entropy_atleast_2d_axis_never_dropped": ("entropy_single_row_axis_kept",),
        # answer_computed_by_code: "'A', the letter your code worked out (`q5_answer = min(_options, key=...`) ...
        # (option A stands for giving the variance of the scaled dot product (1) for the raw one ...) ... what it
        # measures or compares is not what the question asks": right in kind, as blind44's
        # q5_answer_probe_one_pair_squared_dot_as_variance; borderline: quotes the min line, nothing says
        # `.mean()` measures the mean (about 0) and not the variance
        "q5_answer_probe_measures_the_mean": ("answer_computed_by_code",),
        # answer_option_number: "q5_answer is 2, an option's number (counted from 1 it is 'B'; counted from 0 it is
        # 'C'): ... the option's number ... instead of its letter as a string ("C")": exactly the effect of
        # str.find's position; borderline: str.find not named
        # now (after blind47, engine: a number the code worked out, with its line)
        "q5_answer_str_find_gives_position": ("answer_option_number", "answer_value_not_letter"),
        # answer_computed_by_code: "'A' ... (`q5_answer = min(_options, key=...`) ... what it measures or compares is
        # not what the question asks": right in kind (as the mean probe above); borderline: quotes the min line,
        # nothing says the cosine similarity (divided by both norms, variance ~1/d_k) is not q.k
        "q5_answer_probe_on_cosine_similarity": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_manual0, _out[0], atol=1e-05): q6_answer = 'A' e...`)
        # ... what it measures or compares is not what the question asks": quotes the check that rules A out, right
        # in kind, as blind44's q6_answer_check_row_weights_broadcast_along_features; borderline: the slip is the line
        # above (range(1, 4) drops j = 0), not said
        "q6_answer_manual_sum_starts_at_one": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out.sum(dim=0), _X.sum(dim=0), atol=0.0001): ...`)
        # ... what it measures or compares is not what the question asks": quotes the exact faulty check (column
        # totals, kept only if the weight COLUMNS summed to 1); borderline: nothing says why it fails
        "q6_answer_check_expects_column_totals_kept": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out, W @ _X, atol=1e-05): q6_answer = 'A' ...`) ...
        # what it measures or compares is not what the question asks": quotes the exact faulty line (the global `W`
        # for this probe's `_weights`); borderline: the global W is not said
        "q6_answer_check_multiplies_by_trace_global_W": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _differentiable else 'C'`) ... (look at ... the
        # branch each outcome takes)": quotes the verdict, right in kind, as blind44's
        # q7_answer_grad_stored_before_backward; borderline: the slip is requires_grad_() after the forward pass,
        # with the "does not require grad" RuntimeError swallowed as "no gradient", not said
        "q7_answer_requires_grad_set_after_forward": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q.grad is not None else 'C'`) ...": quotes the
        # verdict on _Q.grad, right in kind; borderline: nothing says requires_grad sits on _V, not _Q
        "q7_answer_requires_grad_on_values_reads_query_grad": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if torch.allclose(_out, _nw, atol=0.0001) else 'C'`)
        # ... what it measures or compares is not what the question asks": quotes the comparison with the kernel
        # regression, right in kind; borderline: nothing says _nw uses the Gaussian (distance) kernel, not
        # exp(q.k / sqrt(d_k))
        "q7_answer_kernel_check_with_gaussian_kernel": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if _picks_best_key else 'D'`) ... (option C stands for
        # thinking attention returns only the best-matching value (a hard argmax) ...) ... what it measures or
        # compares is not what the question asks": quotes the verdict, right in kind; borderline: nothing says the
        # argmax positions always agree (softmax keeps the order)
        "q7_answer_probe_compares_argmax_positions": ("answer_computed_by_code",),
    },
# correct: 5/5 at full marks (28/28 each); full messages re-read by grading each variant again
# (/tmp/j45-sa/full.py -> full.txt, /tmp/frozen45 engine, bwrap level): same scores and keys as
# /tmp/measure45-scaled-attention.txt; no cell hit a host ModuleNotFoundError
# wrong 14: named right 11 / partly 0 / generic 1 / raw 1 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind45 (frozen engine, /tmp/frozen45, bwrap sandbox level), judged from `measure sdpa-from-scratch --set blind45 -v`
# (/tmp/measure45-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j45-sdpa/full.py ->
# /tmp/j45-sdpa/full.txt: same scores and keys as the measure) against each variant's "mistake" words and code; () where no
# failed test names it right. Correct: 5/5 at full marks (35/35 each).
    "sdpa-from-scratch": {
        # shape_of_an_input on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 64), the shape of Q and K: giving a result the shape of an input ... instead of its own: the weights are (..., T_q, T_k), one per (query, key) pair": exactly the effect of summing the (4, 10, 10, 64) pair products over the query axis (the feature axis survives), and it says what must remain (one entry per pair); no other cause blamed (as blind28's q1_helper_key_count_from_feature_axis); borderline: nothing says dim=1 is the query axis, sum over dim=-1
        "q1_broadcast_probe_summed_over_the_query_axis": ("shape_of_an_input",),
        # output_keeps_key_axis on q1:test_out_shape (the only failure): "out_shape is (4, 10, 10, 128): the right shape (4, 10, 128) with one more axis of size T_k = 10: keeping one axis per key in the output ...: weights @ V sums over the keys": exactly the variant's own mistake words (appending d_v keeps the key axis; weights @ V contracts it); borderline: nothing says tuple + appends rather than replacing the last entry
        "q1_value_width_appended_to_the_weights_shape": ("output_keeps_key_axis",),
        # generic: q2:test_score_variances None, "raw_score_var is 3.881 and scaled_score_var 0.4852, exactly 1/8 of it, so the scale is right; but neither is the variance of the example's scores (... 6.599): either other scores were measured or another statistic ...": says what differs, nothing names the torch.tril that zeroes the 20 scores above the diagonal
        # now (after round 46: the tril before the variance replayed)
        "q2_scores_lower_triangle_kept_by_tril_before_variance": ("scores_masked_before_variance",),
        # generic: q2:test_score_variances None, same text (3.411 / 0.4263 against 6.599): says what differs, nothing says the two sequences' score matrices were averaged into one (.mean(dim=0)) before the variance
        # now (after round 46: the batch mean before the variance replayed)
        "q2_batch_averaged_into_one_score_matrix_first": ("batch_reduced_before_variance",),
        # generic: q3:test_dim_argument None, "stable_softmax(x, dim=0) does not match the correct result in 120 of 120 entries (largest difference 0.836 ...)": says which call differs (dim=0), nothing says reshape(-1, x.shape[dim]) regroups in memory order instead of moving the axis
        # now (after round 46: the reshape replayed for dim != -1)
        "q3_reshape_instead_of_moving_the_axis": ("softmax_reshaped_not_moved",),
        # MIS-NAMED (borderline): causal_mask_blocks_nothing on all 4 failures (3 q4, q6:test_weights3_causal): the lead "causal_mask(11) is True everywhere, so no query is kept from any key" is the exact symptom, but the key's text blames another cause, "torch.ones(...) whose mask.tril() result was never assigned: tril is not in place ... write mask = mask.tril()": this code assigns its triu; the real mistake is ~ on a uint8 triangle (bitwise NOT: 0 -> 255, 1 -> 254, all True after .bool()), and nothing says negate after .bool() or compare == 0 (blind19's q4_tril_indices_used_as_one_index accepted this key on the symptom and the one-step torch.tril(...) rewrite; judged strictly here, the named cause is not this student's)
        # now (after round 46: the effect said, and `~` on an integer tensor as the cause the source shows)
        "q4_tilde_on_a_uint8_triangle_flips_every_bit": ("causal_mask_blocks_nothing",),
        # causal_bottom_right on q4:test_more_keys_than_queries: "causal_mask(4, 9) ... matches a causal mask aligned at the bottom-right instead of the top-left": exactly the kv-cache cut; causal_ignores_T_k on q4:test_more_queries_than_keys: "causal_mask(9, 6) has shape (6, 6): a square mask from one length; it should be (9, 6), one row per query and one column per key": true of this code (a T_k square whose last T_q rows cannot be more than T_k), as blind44's q4_mask_cut_from_the_key_square_by_its_first_rows; the square test passes, q5/q6 not charged
        "q4_last_rows_of_the_key_square_as_in_kv_cache_decoding": ("causal_bottom_right", "causal_ignores_T_k"),
        # upper_triangular_mask on all 4 failures (3 q4, q6:test_weights3_causal): "matches an upper-triangular (future-looking) mask instead of a lower-triangular one": exactly the effect of torch.le(rows, cols) = i <= j; borderline: nothing says the arguments of torch.le are the wrong way round
        "q4_torch_le_called_with_its_arguments_in_reading_order": ("upper_triangular_mask",),
        # gradient_cut on q5:test_gradients_float64 (the only failure): "the output is right but no gradient reached V (it reached Q, K): the autograd graph is cut at the path from V; keep the computation in torch (no .detach(), .data, ...)": exactly, with .data named
        "q5_values_read_through_data": ("gradient_cut",),
        # MIS-NAMED: divide_by_dk on q6:test_weights3_causal (the only failure): "weights3_causal is wrong: it matches dividing the scores by d_k instead of sqrt(d_k)": the number is a true description (K3 halved twice in place: / 4 = / d_k), but the code divides by math.sqrt(Km.shape[1]), which is right, so the student is sent to fix a scale that is not wrong; the real mistake is `Kt /= ...` on the view Km.T, which changes K3 and is applied again on the second call; nothing names the in-place division through a view
        # now (after round 46: the in-place scale through a view read off the cell; the d_k reading no longer said)
        "q6_keys_scaled_in_place_through_a_transpose_view": ("inplace_on_input",),
        # raw: q7:test_trap_answer None, "your code raised EncodeError: a value of type Choice cannot cross the sandbox boundary": a raw exception; nothing says an Enum member is not the string "C" (Choice.C.name, or "C")
        # now (after blind45, engine: the worker notes an Enum member)
        "q7_letter_given_as_an_enum_member": ("enum_member_answer",),
        # generic: q7:test_trap_answer None, "q_trap_answer should be one letter as a string: \"A\", \"B\", \"C\", \"D\"": says what is expected, not that the value is the literal "{_letter}" (a forgotten f prefix)
        # now (after blind45, engine: the placeholder itself)
        "q7_f_prefix_forgotten_leaves_the_placeholder": ("fstring_prefix_missing",),
        # answer_in_container on q7:test_trap_answer: "q_trap_answer is {'C'}, a set holding a letter (braces around a value make one) ... drop ... the braces": exactly
        "q7_letter_in_braces_is_a_set_of_options": ("answer_in_container",),
        # generic: q8:test_attn_entries None, "attn_entries is not a finite number": says what differs (inf), nothing says a float16 sum overflows past 65504 (count with numel() or 1024 ** 2)
        # now (after round 46: inf from a float16 count, where the cell uses half)
        "q8_entries_counted_on_a_half_precision_probe": ("count_overflows_half",),
    },
# wrong 14: named right 6 / partly 0 / generic 5 / raw 1 / mis-named 2 / not caught 0; correct at full marks 5/5
# blind45 (frozen engine, /tmp/frozen45, bwrap sandbox level), judged from `measure attention-pipeline --set blind45 -v`
# (/tmp/measure45-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j45ap/full.py ->
# /tmp/j45ap/full.txt, Isolation.bwrap: same scores and keys as the measure) against each variant's "mistake" words and
# code; () where no failed test names it right.
    "attention-pipeline": {
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'c', the letter your code worked out
        # (`ans_cross_shapes = {('T', 'T'): 'a', ('T', "T'"): 'b', ("T'", 'T'):...`) ... (option C stands for taking queries
        # from Y or keys/values from X) ... what it measures or compares is not what the question asks (look at ... the
        # sizes it uses ...)": right in kind (the experiment measures S in another convention, as blind44's
        # q14_mha_target_length_read_as_keys_sequence); borderline: the quoted line is the lookup, nothing says the column
        # convention (S = K^T Q, one row per key) transposes S, and option C's text is not this student's belief (Q is from X)
        "q14_experiment_in_column_convention_scores_keys_by_queries": ("answer_computed_by_code",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'c', the letter your code worked out
        # (`ans_cross_shapes = 'b' if (_names[_S.shape[0]], _names[_S.shape[1]]...`) ... what it measures or compares is not
        # what the question asks": quotes the verdict on S's shape; right in kind; borderline: nothing says an implicit-mode
        # einsum ("td,sd", no '->') sorts the output letters alphabetically, so S comes out (T', T)
        "q14_experiment_with_implicit_einsum_output": ("answer_computed_by_code",),
        # MIS-NAMED: causal_needs_square on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is not the best
        # answer: that choice reflects tying the causal mask to a square score matrix": blames C's belief, which the student
        # does not hold (its own list holds 'd' for q15); the cause is the index counted from 1 (_MC[4] is q16's 'c', fix
        # _MC[3]). answer_by_position did not fire: _MC holds the answers of five questions, so position 4 is not letter 'e'
        # (checks._raise_if_positional_letter drops it), and the belief key takes over (as blind38's
        # q5_answer_third_option_zero_indexed, mis-named by variance_d_k_squared)
        # now (after blind45, engine: the list counted from 1, the item before it the answer)
        "q15_answer_list_indexed_from_one": ("answer_by_position",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "'d', the letter your code worked out (`ans_mask =
        # max(_confidence)`) ... (option D stands for thinking the mask is about gradients ...) ... (look at its sign, max
        # against min, ...)": quotes the exact faulty line and tells the option's meaning as the option's, not the student's
        # (blind38's q5_answer_max_of_confidence_dict_returns_largest_key was mis-named by a belief key; this is the fix);
        # borderline: nothing says max() over a dict compares its keys (max(d, key=d.get))
        "q06_max_of_confidence_dict_gives_largest_key": ("answer_computed_by_code",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "'d', the letter your code worked out (`ans_mask =
        # 'c' if _leak > 0 else 'a' if not _rows_ok else 'd'`) ... what it measures or compares is not what the question
        # asks (... the branch each outcome takes)": the experiment measured a masked model, not the unmasked one the
        # question asks about; right in kind; borderline: the quoted line is the verdict, nothing points at
        # `if _config["causal"]` with the truthy string "False"
        "q06_experiment_flag_string_false_keeps_mask": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`ans_scale =
        # 'b' if _H_raw < 1.0 else 'a' if _H_raw > _H_scaled + 0....`) ... (look at ... the sizes it uses ...)": right in kind
        # (as blind44's q03_scale_experiment_with_one_feature); borderline: nothing says F.normalize makes the raw dot
        # products cosines near 0 where the question has unit-variance components
        "q03_experiment_with_unit_length_vectors": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'b', the letter your code worked out
        # (`ans_complexity = {0: 'b', 1: 'a', 2: 'c', 3: 'd'}[int(round(_expone...`) ... (option B stands for thinking the cost
        # of the scores does not depend on T: there are T^2 of them)": quotes the line that reads the exponent; right in kind;
        # borderline: nothing says polyfit(log cost, log T) fits the inverse (slope 1/2; polyfit(x, y) fits y against x)
        "q16_loglog_fit_with_axes_swapped": ("answer_computed_by_code",),
        # numpy_scalar_answer on q11:test_max_rank_S (the only failure): "max_rank_S is a numpy.int64 (np.int64(8)), not a
        # Python number ... convert it with int(...)": exactly
        "q11_bound_from_numpy_minimum": ("numpy_scalar_answer",),
        # param_count_output_replaces on q12:test_count_with_output (the only failure): "it matches assigning W_O's count
        # (n = d_v * d_model) where it must be added (n += ...)": exactly `=+` for `+=`
        "q12_output_term_typed_eq_plus": ("param_count_output_replaces",),
        # parameter_renamed on all 3 q07 failures: "self_attention() got an unexpected keyword argument 'causal': your
        # `def self_attention(X, W_Q, W_K, W_V, is_causal)` has no parameter `causal` ... keep the parameter names the notebook
        # gives": exactly; q13 not charged
        "q07_flag_renamed_is_causal_like_sdpa": ("parameter_renamed",),
        # prefix_average_wrong_axis on q09:test_prefix_average_matrix (the only failure): "it matches dividing by the column
        # index instead of the row's length ... a broadcast along the wrong axis (the counts as a row, ...) ... divide each
        # row by its own count": exactly the effect and a fix; borderline: nothing says .T on a 1-D tensor is a no-op; q10
        # not charged
        "q09_counts_column_made_with_T_on_a_vector": ("prefix_average_wrong_axis",),
        # causal_includes_next on all 3 q04 failures: "it matches a causal mask off by one the other way (tril(diagonal=1)):
        # each token also sees the next one": exactly the effect of 1-based query positions against 0-based keys; borderline:
        # nothing names the arange(1, T + 1); q05, q07, q09, q10 not charged
        "q04_query_positions_counted_from_one": ("causal_includes_next",),
        # softmax_applied_twice on both q10 failures: "it matches applying the softmax to probabilities (a softmax's output
        # passed to a function that takes logits ...) ... here A is already the weights: row_entropy_bits takes their log2
        # directly": exactly Categorical(logits=A) (probs= meant)
        "q10_categorical_given_weights_as_logits": ("softmax_applied_twice",),
        # raw: both q13 failures None, "your code raised AttributeError: 'NoneType' object has no attribute 'to'": nothing
        # says the default M=None is cast without a None check (`M if M is None else M.to(S.dtype)`)
        # now (after blind45, engine: the None default read from the signature and the line)
        "q13_mask_cast_without_none_check": ("optional_argument_not_checked",),
    },
# correct: 5/5 at full marks (42/42 each, bwrap level)
# wrong 14: named right 12 / partly 0 / generic 0 / raw 1 / mis-named 1 / not caught 0; correct at full marks 5/5
}

BLIND46_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind46 (frozen at 1ad2b83, after round 46, measured there at the bwrap level), judged by three helper sessions at
# first sight: scaled 10/14, sdpa 10/14, pipeline 11/14 (one mis-named): 31/42
    "scaled-attention": {
        # generic: all 5 failing q1 tests None, "the weight matrix does not match the correct result in 35 of 35
        # entries (largest difference 0.0829 ...)" and "the wrong entries all lie at index 1, 2, 3, 5 of axis -2
        # (rows)": says which values differ, no key; nothing says elu(s) + 1 (the linear-attention feature map)
        # stands where exp(s) belongs (equal only for s <= 0); q8 not charged (no double charge)
        # now (after round 47b: each positive kernel replayed over its row sum, one match named)
        "q1_elu_plus_one_kernel_instead_of_exp": ("softmax_kernel_replaced",),
        # one_edit_fix on all 5 failing q1 tests: "`attention` is right with one change on line 7 of its cell
        # (`scores = cap * torch.tanh(scores / cap) ...`): leave out line 7 -- or -- `scores / cap` in place of
        # `torch.tanh(scores / cap)` (checked on all 5 inputs)": names the exact slip at its place with the fix;
        # q8 not charged (no double charge)
        "q1_tanh_logit_softcap_before_softmax": ("one_edit_fix",),
        # not caught: 28/28; no q4 test gives a row with SOME (not all but one) probabilities underflowing to 0
        # (e.g. softmax([1000, 1000, 0]), entropy ln 2), where the nan_to_num after the row sum turns the NaN
        # row into 0; the saturated-row test (all but one zero, entropy 0) is passed by the guard
        # now (after round 48, engine: a tied saturated row added to test_entropy_saturated_rows, named entropy_nan_guard_after_sum by replay; 27/28)
        "q4_entropy_nan_to_num_after_the_row_sum": ("entropy_nan_guard_after_sum",),
        # not caught: 28/28; no q4 test calls softmax_entropy on logits with a size-one batch axis ((1, T) or
        # (B, 1, T)) and checks the shape logits.shape[:-1]; .squeeze() is harmless on the shapes tested (the
        # 1-D row gives 0-d either way, entropy_table's .item() accepts both)
        # now (after round 48, engine: (3, 1, 6) logits asked for, entropy_size_one_axes_dropped; 26/28)
        "q4_entropy_squeezed_drops_size_one_axes": ("entropy_size_one_axes_dropped",),
        # not caught: 28/28; '\nC\n' is accepted because the grader (expect_choice) and the notebook's own
        # format check (q6_answer.strip().upper()) strip whitespace around the letter by design; borderline as
        # a mistake under this course's rules, counted as not caught as the set asks
        "q5_answer_triple_quoted_block_keeps_newlines": (),
        # answer_computed_by_code: "q5_answer is 'D', the letter your code worked out (`q5_answer = min(_options,
        # key=...`), and it is not the best answer (option D stands for squaring d_k ...) ... what it measures or
        # compares is not what the question asks (look at ... the sizes it uses ...)": right in kind, as blind45's
        # q5_answer_probe_measures_the_mean; borderline: quotes the min line, nothing says the einsum 'nd,nd->d'
        # sums over the samples (variance ~10000) instead of over the coordinates
        "q5_answer_probe_einsum_sums_over_samples": ("answer_computed_by_code",),
        # answer_in_container: "q5_answer is ['C'], a list holding a letter: giving the answer ... inside a
        # one-element tuple, list or set ... where the answer is the value itself: drop the comma (or the
        # brackets ...)": exactly the effect of the slice _options[2:3]; borderline: the slice is not named (the
        # fix is _options[2], not literally dropping brackets)
        "q5_answer_list_slice_gives_one_item_list": ("answer_in_container",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out, _ref, atol=1e-05): q6_answer = 'A' elif
        # tor...`) ... (option C stands for ... a hard argmax) ... what it measures or compares is not what the
        # question asks": quotes the check that rules A out, right in kind, as blind45's
        # q6_answer_manual_sum_starts_at_one; borderline: the slip is the _ref line above (is_causal=True), not said
        "q6_answer_check_against_causal_sdpa": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out, _expected, atol=1e-05): q6_answer = 'A'
        # eli...`) ... what it measures or compares is not what the question asks": quotes the faulty check, right
        # in kind; borderline: the slip is _X @ _X (transpose forgotten, hidden by the square probe) in _expected,
        # not said
        "q6_answer_square_probe_hides_missing_transpose": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_manual0, _out[0], atol=1e-05)
        # el...`) ... what it measures or compares is not what the question asks": quotes the comparison, right in
        # kind; borderline: nothing says _X /= ... changed the tokens in place between attention and the sum
        "q6_answer_probe_normalises_tokens_in_place": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q.grad.abs().max() > 0 else 'C'`) ... (option C
        # stands for ... a hard argmax) ... what it measures or compares is not what the question asks": quotes the
        # verdict, right in kind, as blind45's q7_answer_requires_grad_on_values_reads_query_grad; borderline:
        # nothing says all-zero keys make every score 0 whatever the query (gradient exactly 0)
        "q7_answer_gradient_probe_with_zero_keys": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if _one_key_each else 'D'`) ...": quotes the
        # verdict, right in kind, as blind45's q7_answer_probe_compares_argmax_positions; borderline: nothing says
        # torch.round rounds to 0 decimals (every weight < 0.5 becomes 0)
        "q7_answer_probe_rounds_weights_with_torch_round": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q.grad.abs().max() > 1e-06 else 'C'`) ...":
        # quotes the verdict, right in kind; borderline: nothing says one-hot values make out.sum() the constant
        # T_q (rows of weights sum to 1), so its gradient is 0
        "q7_answer_gradient_probe_one_hot_values_summed": ("answer_computed_by_code",),
        # answer_value_not_letter: "q7_answer is True, a truth value, not a letter: answering a multiple-choice
        # question with a value (... True or False ...) instead of the letter of the option that says it, as a
        # string such as "B"": exactly the mistake
        "q7_answer_boolean_true_for_the_statement": ("answer_value_not_letter",),
    },
# wrong 14: named right 10 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 3; correct at full marks 5/5
# blind46 (frozen engine, /tmp/frozen47, bwrap sandbox level), judged from `measure sdpa-from-scratch --set blind46 -v`
# (/tmp/measure46-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j46-sdpa/full.py ->
# full.txt, same scores as the measure): () where no failed test names the variant's own mistake
    "sdpa-from-scratch": {
        # shape_axis_dropped on q1:test_weights_shape (the only failure): "weights_shape is (4, 10): the right shape (4, 10, 10) with axis 1 (size 10) or axis 2 (size 10) left out ... one weight per (query, key) pair, (batch, T_q, T_k); only the keys are summed over": the effect and what must remain (every query against every key), as blind's q1_one_weight_per_token; borderline: its parenthetical "(one vector per sequence, as if pooled over the queries)" guesses a pooling, and nothing says Q * K pairs query i only with key i (Q @ K^T meant)
        "q1_probe_rowwise_dot_products_lose_the_key_axis": ("shape_axis_dropped",),
        # output_keeps_key_axis on q1:test_out_shape (the only failure): "out_shape is (4, 10, 10, 128) ... one more axis of size T_k = 10: keeping one axis per key in the output (each weight times its value row, never summed over the keys): weights @ V sums over the keys": exactly the variant's mistake and its fix
        "q1_out_probe_broadcast_but_never_summed_over_keys": ("output_keeps_key_axis",),
        # variance_count_from_one_axis on q2:test_score_variances (the only failure): "both are the sum of squared deviations divided by 24, 5 x 5 - 1 (the last two axes' lengths), where the scores have 2 x 5 x 5 = 50 entries ... divide by t.numel() - 1": exactly (n = T * T of one sequence) and the fix
        "q2_hand_variance_count_of_one_sequence": ("variance_count_from_one_axis",),
        # one_edit_fix on all 20 failures (4 q3, 13 q5, 3 q6): "`stable_softmax` is right with one change on line 5 of its cell (`exps = torch.exp2(shifted / LOG2E)`): `shifted * LOG2E` in place of `shifted / LOG2E`": the slip at its place with the fix; q5 and q6 point to the helper (q6:test_weights3_causal: "fails ... only because `stable_softmax` is wrong"), no other cause blamed
        "q3_exp2_with_the_log2e_factor_divided_not_multiplied": ("one_edit_fix",),
        # generic: all 13 failures (3 q3, 10 q5) None, "stable_softmax of a torch.float64 input does not match the correct result in 98 of 105 entries (largest difference 4.47e-05 ...)" and the q5 smallest inputs (0.0863 vs 0.08626): says what differs and by how little, nothing says 2.718 is not e (torch.exp or math.e); no one_edit_fix offered
        # now (after blind51: e_rounded (naming round 51))
        "q3_exponentials_as_powers_of_a_typed_e": ("e_rounded",),
        # causal_excludes_self on all 4 failures (3 q4, q6:test_weights3_causal): "it matches a causal mask that hides the diagonal: a token may not see itself": exactly the effect of heaviside's values = 0 at i == j, a student knows to let the diagonal through; borderline: heaviside's second argument is not named; q5 not charged
        "q4_heaviside_step_with_zero_at_the_diagonal": ("causal_excludes_self",),
        # global_max_subtraction on q5:test_float16_large_scores (the only failure): "it matches subtracting one maximum over the whole tensor instead of each row's own: rows far below it underflow to 0 / 0 (NaN)": exactly, with the NaN row shown
        "q5_inline_softmax_shifted_by_the_global_max": ("global_max_subtraction",),
        # one_edit_fix on all 13 q5 failures: "right with one change on line 13 of its cell (`return torch.einsum("...qk,...vd->...qd", weights, V) ...`): `'...qv,...vd->...qd'` in place of `'...qk,...vd->...qd'`": the slip at its place and a fix that works (the key letter shared, here renamed v on both operands rather than k)
        "q5_einsum_value_axis_given_its_own_letter": ("one_edit_fix",),
        # generic: q6:test_weights3_causal None, "weights3_causal is not correct in row(s) [1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": says which rows differ, nothing says cumsum along the keys gives column-prefix denominators (rows no longer sum to 1)
        # now (after blind51: causal_cumsum_denominator (naming round 51))
        "q6_causal_denominator_from_cumsum_along_keys": ("causal_cumsum_denominator",),
        # generic: q6 test_weights3, test_out3, test_weights3_causal None, "... is not correct in row(s) [0, 1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": says what differs, nothing says the trace was run in bfloat16 (about 3 digits) instead of the float64 tensors given
        "q6_trace_computed_in_bfloat16": (),
        # bytes_for_text on q7:test_trap_answer (the only failure): "q_trap_answer is (or returns) a bytes object ... (b\"C\", ...) ... write the string itself, \"C\"": exactly
        "q7_letter_as_a_bytes_literal": ("bytes_for_text",),
        # not caught: 35/35; expect_choice ignores spaces and newlines around the letter by design ("parentheses and spaces ignored"), as does the notebook's own format check (q_trap_answer.strip().upper()), so "\nC\n" is read as "C"; a defensible leniency rather than a grader gap
        "q7_letter_in_a_triple_quoted_block_keeps_newlines": (),
        # float_for_int on q8:test_score_madds (the only failure): "score_madds is 67108864.0, a float ... where a whole number, a Python int, is asked ... or int(...) around the result": the effect and a fix that works; borderline (as blind's q8_entries_left_as_float_tensor): its examples of a cause (math.pow, /, a float literal) are not a float tensor's .sum().item()
        "q8_madds_summed_off_a_float_probe": ("float_for_int",),
        # numpy_scalar_answer on q8:test_attn_entries (the only failure): "attn_entries is a numpy.int64 (np.int64(1048576)), not a Python number ... convert it with int(...)": exactly; borderline: its examples (np.linalg.matrix_rank, np.sum) do not include np.square
        "q8_entries_from_np_square_is_a_numpy_int": ("numpy_scalar_answer",),
    },
# wrong 14: named right 10 / partly 0 / generic 3 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind46 (frozen engine, /tmp/frozen47, bwrap sandbox level), judged from `measure attention-pipeline --set blind46 -v`
# (/tmp/measure46-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j46ap/full.py ->
# /tmp/j46ap/full.txt, Isolation.bwrap: same scores and keys as the measure) against each variant's "mistake" words and
# code; () where no failed test names it right.
    "attention-pipeline": {
        # answer_extra_characters on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is "['d']": it has
        # characters besides the letter, which seems to be 'd' ... the answer must be the letter alone, as a string":
        # exactly str(["d"])'s effect and the fix (as blind38's q7_answer_list_stringified_to_pass_format_check)
        "q15_letter_from_str_of_a_list": ("answer_extra_characters",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'c', the letter your code worked out
        # (`if _A.size == _T * _Tp and _O.size == _T * _d_v: ans_cross_shapes =...`) ... (option C stands for taking
        # queries from Y or keys/values from X) ... what it measures or compares is not what the question asks (look at
        # ... the sizes it uses ...)": quotes the exact faulty comparison; the option's text is told as the option's, not
        # as this student's belief; right in kind; borderline: nothing says .size on a torch tensor is a bound method
        # (never equal to an int; .numel() or .shape meant), so every branch fails and the else gives 'c'
        "q14_numpy_size_attribute_on_torch_tensors": ("answer_computed_by_code",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'d', the letter your code worked out
        # (`ans_cross_shapes = 'b' if str(_S.shape) == '(5, 3)' else 'd'`) ... what it measures or compares is not what the
        # question asks": quotes the exact faulty line; right in kind; borderline: nothing says a torch.Size prints as
        # "torch.Size([5, 3])" (compare tuple(_S.shape) == (5, 3))
        "q14_shape_text_compared_with_numpy_repr": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`ans_scale
        # = 'b' if _H_raw < 0.5 * _H_scaled else 'a' if _H_raw > _H...`) ... (look at ... the sizes it uses ...)": right in
        # kind (Q, K drawn (d_k, T): 512 x 512 scores over 8 components; as blind44/45's q03 experiments); borderline: the
        # quoted line is the verdict, nothing points at the (d_k, T) draws
        "q03_experiment_drawn_features_by_tokens": ("answer_computed_by_code",),
        # generic: q06:test_ans_mask None, "ans_mask should be one letter as a string: "a", "b", "c", "d"": says what
        # differs, but does not even show the value 'cd' nor that the missing comma joined "c" "d" (implicit string
        # concatenation); no key fired
        # now (after blind46, engine: letters run together told as a hedge, with the missing comma)
        "q06_missing_comma_joins_two_letters": ("answer_hedged",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "'b', the letter your code worked out (`ans_mask =
        # _mc['q06']`) ... (option B stands for thinking the causal mask is about the rank of the scores ...) ... decide the
        # option and assign its letter": the letter came from the student's own answer table, and the option's text is
        # told as the option's, not as the student's belief (no belief key, unlike blind45's q15_answer_list_indexed_from_one);
        # right in kind, the fix follows; borderline: the quoted line is the lookup, the look-at list (sign, max/min,
        # sizes, branch) does not fit, and nothing says zip paired q06 with q14's letter (the list lacks q03's answer)
        "q06_answers_zipped_with_one_missing": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a' ... (`ans_complexity = {1: 'b', 2: 'a',
        # 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option A stands for thinking the score matrix costs time linear in T: there
        # are T^2 scores) ... (look at ... the sizes it uses ...)": right in kind (only the queries doubled, so T x T scores
        # became 2T x T); the option's "T^2 scores" points at the fix; borderline: the quoted line is the lookup
        "q16_experiment_doubles_only_the_queries": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'d' ... (`ans_complexity = {1: 'b', 2: 'a',
        # 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option D stands for thinking the scores cost T^3 like a matrix inverse: T^2
        # scores of d_k multiply-adds each) ... the sizes it uses": right in kind (d_k = T // 4 grows with T; the option's
        # "d_k multiply-adds each" hints d_k is fixed); borderline: the quoted line is the lookup, not `d_k = T // 4`
        "q16_experiment_head_size_grows_with_T": ("answer_computed_by_code",),
        # softmax_implicit_dim on q13:test_cross_padding_mask (the only failure): "A is normalised over dim 0 of these
        # batched scores (the batch axis), and on one unbatched example it is right ... calling F.softmax without dim ...
        # pass dim=-1": exactly the mistake and its fix
        "q13_functional_softmax_without_dim": ("softmax_implicit_dim",),
        # raw: all 4 failures (q07 x3, q09:test_zero_projections) None, "your code raised RuntimeError: The size of tensor
        # a (10) must match the size of tensor b (5) at non-singleton dimension 1": nothing says the mask was built once
        # for T = 5 (float64) in a default argument, evaluated at def time; q10 not charged
        # now (after round 47b: a second call at the fixed size right, one above and below crashing against it)
        "q07_mask_built_once_as_default_argument": ("mask_sized_once",),
        # mask_blocks_diagonal on all 3 q04 failures: "the mask blocks the wrong entries: it matches blocking the diagonal
        # too: a token must be allowed to attend to itself": exactly the effect of dropping Hugging Face's `+ 1`;
        # borderline: nothing names the `cond < cond.view(T, 1)` comparison (<= meant); q05, q07, q09, q10 not charged
        "q04_hf_causal_mask_without_plus_one": ("mask_blocks_diagonal",),
        # one_edit_fix on q12:test_count_qkv (the only failure): "right with one change on line 3 of its cell (`n += d_v *
        # d_model if with_output else n`): `with_output` in place of `n`": the very line and the else's `n` at fault, the
        # shown fix works (adds False = 0); borderline: `0` is the natural fix, "in place of `n`" does not say which of the
        # two n's (the else's), and the test's trailing line "the count is wrong (for d_v different from d_k)" leans the
        # wrong way (the count doubles for any d_v), secondary to the lead that names the fix
        "q12_augmented_ternary_else_adds_n_again": ("one_edit_fix",),
        # returns_tensor_not_number on q11:test_rank_S_lesson (the only failure): "rank_S_lesson is a tensor of shape ()
        # holding the right number, not a Python int ... call .item()": exactly the effect of .int() and the fix;
        # borderline: nothing says .int() is the int32 cast, not Python's int()
        "q11_lesson_rank_cast_with_tensor_int_method": ("returns_tensor_not_number",),
        # MIS-NAMED: answer_left_empty on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is '', an empty
        # string: an answer left as the template had it (`...`, None or ""): write your answer in its place, and run the
        # cell": the value is right, but the key blames an unanswered template / unrun cell, while the student answered
        # (its table holds 'd' for q15) and the "" is .get's default after the lookup under the wrong-case key 'Q15';
        # nothing quotes the .get line or says the key missed ('q15' meant)
        # now (after blind46, engine: the empty string told as the code's pick, with its line)
        "q15_answer_looked_up_with_wrong_case_key": ("answer_computed_by_code",),
    },
# wrong 14: named right 11 / partly 0 / generic 1 / raw 1 / mis-named 1 / not caught 0; correct at full marks 5/5
}

BLIND47_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind47 (frozen at b980b80, after naming round 46 and red-team round 47, before round 48; measured at the bwrap
# level), judged by three helper sessions at first sight: scaled 11/14 (three mis-named), sdpa 6/14 (two mis-named),
# pipeline 13/14: 30/42
# blind47 (frozen engine, /tmp/frozen47), judged from `measure scaled-attention --set blind47 -v`
# (/tmp/measure47-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j47-sa/full.py ->
# full.txt, same scores as the measure): () where no failed test names the variant's own mistake
    "scaled-attention": {
        # MIS-NAMED: one_edit_fix on all 3 failing q1 tests: "`attention` is right with one change on line 12 (`m_new =
        # torch.maximum(m, s.amax(...))`): `Q` in place of `s` -- or -- `scores` in place of `s`": it blames the running-max
        # update, not the accumulator; both edits only freeze the shift after the first tile, so the missing rescale never
        # matters (`Q`: the max of the query's coordinates, right by coincidence since any per-row constant shift cancels;
        # `scores`: the whole-row max up front, which drops the online softmax). The slip is line 15, acc = acc *
        # exp(m - m_new) + p @ V; nothing says the output accumulator is not rescaled (as blind34's q3_shift_by_median:
        # a fix that passes but is not the fix); q8 not charged (no double charge)
        "q1_online_softmax_accumulator_not_rescaled": (),
        # keys_are_queries on both q2 tests: "the result is what the same generator gives when computing the scores from
        # the queries with themselves (Q Q^T, k = q) instead of Q K^T": exactly the effect of restoring the state (k = q)
        "q2_generator_state_restored_before_key_draw": ("keys_are_queries",),
        # one_edit_fix on both q2 tests: "right with one change on line 9 (`keep = (dots - dots.mean()).abs() <= 2 *
        # dots.std() # drop outliers ...`): `dots` in place of `dots.mean()` -- or -- `3` in place of `2`": the outlier cut
        # at its place, the first edit keeps every sample; borderline: neither says "drop the filter", and `3` for `2`
        # still throws away real tail samples (a smaller bias, inside the 10% tolerance)
        "q2_outliers_beyond_two_std_dropped": ("one_edit_fix",),
        # one_edit_fix on all 3 failing q4 tests: "right with one change on line 4 (`log_p = F.log_softmax(z, dim=-1)`):
        # `logits` in place of `z`": the softmax of the raw logits, not the L2-normalised ones: exactly undoes the slip
        "q4_entropy_logits_l2_normalised_for_stability": ("one_edit_fix",),
        # answer_computed_by_code: "'A', the letter your code worked out (`q5_answer = min(_opts5, key=...)`) ... what it
        # measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind, as
        # blind45's q5_answer_probe_measures_the_mean; borderline: nothing says .mean() divides the dot product by d_k
        # now (after round 47b: the probe's slip read off its cell)
        "q5_answer_probe_dot_as_mean_of_products": ("answer_computed_by_code", "probe_dot_product_as_mean"),
        # answer_computed_by_code: "'D' ... (`q5_answer = min(_ratio5, key=_ratio5.get)`) ... (look at ... max against
        # min ...)": quotes the faulty selection line; borderline: nothing says "the ratio closest to 1"
        "q5_answer_probe_smallest_ratio_not_closest_to_one": ("answer_computed_by_code",),
        # MIS-NAMED: variance_d_k_squared ("that choice reflects squaring d_k: the variances ... add up, they do not
        # multiply") blames a belief the student does not hold (its comment says Var(q.k) = d_k); the cause is the missing
        # comma ("B" "C" -> "BC"), so index 2 is 'D'; no key says so (as blind33's q5_answer_third_option_zero_indexed)
        # now (after blind47, engine: the missing comma named from the list the letter is picked from)
        "q5_answer_missing_comma_merges_options": ("list_comma_missing",),
        # answer_computed_by_code: "'C' ... (`if torch.allclose(_out6, _expected6, atol=1e-05): q6_answer = 'A' e...`) ...
        # what it measures or compares is not what the question asks": quotes the check that rules A out, right in kind;
        # borderline: nothing says softmax(S, dim=0) is the transpose of the row softmax
        "q6_answer_check_softmax_dim0_of_symmetric_scores": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_mine6, _ref6, atol=1e-05) else 'C'`) ...":
        # quotes the comparison, right in kind; borderline: nothing says a fresh nn.MultiheadAttention has random projections
        # now (after round 47b: the probe's slip read off its cell)
        "q6_answer_check_against_fresh_nn_multihead_attention": ("answer_computed_by_code", "probe_against_fresh_multihead_attention"),
        # answer_computed_by_code: same quote; right in kind (as blind46's q6_answer_check_against_causal_sdpa);
        # borderline: nothing says scale= is the multiplier (scale=d_k multiplies by 8 instead of dividing by sqrt 8)
        # now (after round 47b: the probe's slip read off its cell)
        "q6_answer_check_sdpa_scale_keyword_given_d_k": ("answer_computed_by_code", "probe_sdpa_scale_given_d_k"),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q7.grad is not None and _Q7.grad.abs().max() > ...`)":
        # quotes the verdict that reads _Q7.grad, right in kind; borderline: nothing says the backward ran through the
        # detached copy _Qc7, so the original's .grad stays None
        # now (after round 47b: the probe's slip read off its cell)
        "q7_answer_grad_read_from_original_after_detached_copy": ("answer_computed_by_code", "probe_grad_read_from_original"),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _used7 == _K7.shape[0] else 'C'`) ... (look at ... the
        # sizes it uses ...)": quotes the size comparison, right in kind; borderline: nothing says argwhere over the whole
        # matrix counts T_q * T_k entries, not keys per query
        "q7_answer_argwhere_counts_over_whole_matrix": ("answer_computed_by_code",),
        # MIS-NAMED: answer_option_number ("q7_answer is 4, an option's number (counted from 1 it is 'D') ... instead of its
        # letter") blames an option index (and points at D); the 4 is the highest keyword COUNT from max(_hits7.values()),
        # fix max(_hits7, key=_hits7.get) (as blind38's q5_answer_formula_unquoted_reads_global_d_k);
        # answer_value_not_letter would fit
        # now (after blind47, engine: a number the code worked out is said as that, not as an option's number)
        "q7_answer_max_of_keyword_counts_returns_count": ("answer_value_not_letter",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if torch.allclose(_out7, _nw7, atol=1e-05) else 'C'`) ...":
        # quotes the check, right in kind; borderline: nothing says the kernel estimate is never divided by the kernel sum
        # now (after round 47b: the probe's slip read off its cell)
        "q7_answer_kernel_check_without_normalising": ("answer_computed_by_code", "probe_kernel_not_normalised"),
    },
# wrong 14: named right 11 / partly 0 / generic 0 / raw 0 / mis-named 3 / not caught 0; correct at full marks 5/5
# blind47 (frozen engine, /tmp/frozen47), judged from `measure sdpa-from-scratch --set blind47 -v`
# (/tmp/measure47-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j47-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # batch_axis_repeated on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 4, 10): the right shape (4, 10, 10) with the batch size 4 repeated at axis 2: ... Q's and K's leading shapes glued together ...: Q and K share one batch axis": exactly what an unbatched tensordot returns, and the fix (one shared batch axis), as blind42's q1_probe_made_with_numpy_dot_on_3d_arrays; borderline: nothing says tensordot is not batched (matmul / @ is)
        "q1_tensordot_probe_keeps_both_batch_axes": ("batch_axis_repeated",),
        # generic: q1:test_weights_shape None, "weights_shape is not the shape of the attention-weight matrix: it has one entry per (query, key) pair": does not even show (4, 10, 4); nothing says T_k was read from K's batch slot (_Ks[:1] for _Ks[1:2])
        # now (after round 47: the entry said as another axis's size)
        "q1_key_count_read_from_the_batch_slot_of_the_keys": ("shape_entry_from_another_axis",),
        # generic: q2:test_score_variances None, "raw_score_var is not the variance of the raw scores of the batched example": nothing says `/ n - 1` divides by n then subtracts 1 (parentheses), nor shows the (negative) value
        # now (after round 47: the biased variance minus 1 replayed)
        "q2_hand_variance_divides_by_n_then_subtracts_one": ("variance_count_unbracketed",),
        # generic: q2:test_scale_divisor None, "scale_divisor is not the divisor for d_k = 64": nothing says the divisor is the constant sqrt(d_k) = 8, not the measured std of this example's scores
        # now (after round 47: the divisor equals the example's measured std)
        "q2_scale_divisor_from_the_measured_score_std": ("scores_divided_by_own_std",),
        # weights_not_normalised on 19 of 20 failures (3 q3, 13 q5, 3 q6): "each slice ... is the right softmax times its own factor (the slices sum to between 0.502 and 0.875): using exp(scores) as weights without dividing by the row sum": exactly the effect, and dividing by the row sum fixes this code (as blind30's q3_softmax_plus_one_denominator, blind44's q3_log_left_out_of_the_log_sum_exp); one_edit_fix on q3:test_float16_logits_in_the_thousands: "right with one change on line 4 ...: `torch.log` in place of `torch.log1p`": the slip at its place; borderline: "exp(scores) as weights without dividing" is not literally the code (it divides by 1 + sum), and the float16 message's appended keyless line ("keep what you subtract from the logits exact in float16") points at the shift, which is right
        "q3_log1p_adds_one_to_the_denominator": ("weights_not_normalised", "one_edit_fix"),
        # partly: weights_not_normalised on 17 of 20 failures ("the right softmax times its own factor (the slices sum to between 7 and 2.05e+20) ... without dividing by the row sum", and q5/q6 "fails only because `stable_softmax` is wrong"): the effect, and the row-sum division fixes it; borderline: nothing says log and exp do not cancel through a sum; None on q3:test_float16_logits_in_the_thousands ("gave inf or NaN: subtract each slice's max before exp": the code does, keyless advice aimed elsewhere), q3:test_minus_inf_entries ("NaN or inf in 60 of 60 entries") and q5:test_gradients_float64 (NaN, smallest input): generic
        "q3_log_and_exp_cancelled_across_the_sum": ("weights_not_normalised",),
        # generic: all 4 failures None (3 q4: "causal_mask(11) is not the causal mask (True where key j <= query i): it differs in 66 entries, the first at [0, 0]"; q6:test_weights3_causal "not correct in row(s) [0, 1, 2]"): says what differs and where (the diagonal), nothing says sign(i - j).bool() is True for -1 as well (both sides kept, diagonal blocked)
        # now (after round 47: a mask True where j != i, read off the mask)
        "q4_sign_of_the_offset_cast_to_bool_keeps_both_sides": ("causal_mask_not_equal",),
        # upper_triangular_mask on all 4 failures (3 q4, q6:test_weights3_causal): "it matches an upper-triangular (future-looking) mask instead of a lower-triangular one": exactly the effect of unpacking the ij grids as (cols, rows) (cols <= rows is i <= j), as blind39's q4_numpy_meshgrid_default_xy_indexing; nothing says which meshgrid output is which
        "q4_meshgrid_outputs_unpacked_in_the_wrong_order": ("upper_triangular_mask",),
        # single_key_rows_zeroed on both failures (q5 random_mask, causal_rectangular): "it matches zeroing the output of every query with a single allowed key: the test for a query with no key left counts keys with <= 1 (or < 2) instead of == 0; use ~mask.any(dim=-1)": exactly, with the fix
        "q5_rows_with_a_single_key_count_as_empty": ("single_key_rows_zeroed",),
        # gradient_cut on q5:test_gradients_float64 (the only failure): "the output is right but no gradient reached Q or K (it reached V): the autograd graph is cut at the weights ...; keep the computation in torch": exactly the effect (Q and K lose it, V keeps it); borderline: the emitted text's list of culprits ("no .detach(), .data, .item() or NumPy") drops the catalogue's "torch.tensor(...) of a result", the very cause here (blind's q5_scores_recast_with_torch_tensor was named by those words), and "at the weights" is one step late (the scores are cut)
        "q5_scores_rewrapped_with_torch_tensor_leave_the_graph": ("gradient_cut",),
        # generic: all 3 q6 failures None ("weights3 / out3 is not correct in row(s) [0, 1, 2] (recompute ... then take the softmax of each row)"; weights3_causal "each row holds the right values in another order (a permutation of the last axis)"): "take the softmax" hints, nothing says F.softmin is the softmax of the negated scores
        # now (after round 47: the softmax of the negated scores replayed on the trace)
        "q6_softmin_picked_for_softmax": ("softmax_of_negated",),
        # MIS-NAMED: answer_lesson_80_quiz_letter on q7:test_trap_answer (the only failure): "q_trap_answer is 'A', the letter lesson 80's quiz gives for this question, but the lesson orders its options differently ... its cell cites the lesson ('lesson'): answering with the letter lesson 80's own quiz gives ... read this notebook's options and give the letter of the one that says the same": fired by the word "lesson" in the stale comment "# first guess, before the lesson:"; the cell already assigns "C" and a later leftover line `q_trap_answer = "A"` overwrites it; the student is sent to re-map lesson letters, nothing says the last assignment wins (delete the stale line)
        # now (after blind47, engine: a later top-level line that replaces the best answer named first)
        "q7_stale_first_guess_assigned_after_the_answer": ("answer_overwritten",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'A' if (_after - _before).mean() < 1e-06 else 'C'`) ... what it measures or compares is not what the question asks (look at its sign, ...)": quotes the faulty check and points at its sign, exactly the signed-mean slip (as blind21's q7 checks); borderline: nothing says use abs / allclose
        "q7_trap_check_by_mean_of_signed_differences": ("answer_computed_by_code",),
        # MIS-NAMED: one_edit_fix on q8:test_cost_ratio (the only failure): "right with one change on line 3 ...: `2048 * 2` in place of `2048 ** 2`": 2048 * 2 // 1024 = 4 only as a compensating change (2 * 2T / T), the denominator stays unsquared; the student is told the numerator's square is the slip, when T^2 belongs in the denominator (2048 ** 2 // 1024 ** 2), as judge33's q2_box_muller_missing_factor_two and judge35's q1_tuple_plus_list_slice; the appended keyless "how does T * T change when T doubles?" points the right way but does not undo the wrong fix
        "q8_ratio_denominator_left_unsquared": (),
    },
# wrong 14: named right 6 / partly 1 / generic 5 / raw 0 / mis-named 2 / not caught 0; correct at full marks 5/5
# blind47 (frozen engine, /tmp/frozen47, bwrap sandbox level), judged from `measure attention-pipeline --set blind47 -v`
# (/tmp/measure47-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j47ap/full.py ->
# /tmp/j47ap/full.txt, Isolation.bwrap: same scores and keys as the measure) against each variant's "mistake" words and
# code; () where no failed test names it right.
    "attention-pipeline": {
        # batched_input_unsupported on both failures (q01:test_project_batched_float32, q01:test_project_views): "your code
        # raised RuntimeError: split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 1)
        # ... on one slice of the same inputs (X (6, 10)) it runs and is right: code that works only for 2-D inputs (or one
        # fixed number of dims) ... use .transpose(-2, -1) or .mT and X.shape[-2]": right in kind (dim=1 is the feature axis
        # only for 2-D X), as blind20's q01_fused_split_on_dim_two; borderline: the listed fixes do not include
        # split(..., dim=-1), the crash text's "size at dimension 1" points at it; q07, q09, q10 not charged
        "q01_fused_projection_split_on_dim_one": ("batched_input_unsupported",),
        # one_edit_fix on both q01 failures: "right with one change on line 4 of its cell (`return (X.unsqueeze(-1) *
        # W).sum(axis=1)`): `-2` in place of `1`", plus "Q has shape (2, 6, 10, 12), expected (2, 3, 6, 12)": the very line
        # and the exact fix; q07, q09, q10 not charged
        "q01_broadcast_product_summed_over_axis_one": ("one_edit_fix",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`if _H_raw
        # < 0.5 * _H_scaled: ans_scale = 'b' elif _H_raw > _H_scale...`) ... (option C stands for thinking the softmax does
        # not change when every score is multiplied by the same constant) ... what it measures or compares is not what the
        # question asks": right in kind (the unscaled entropy measures the scaled rows), the option told as the option's, not
        # the student's belief; borderline: the quoted line is the verdict, nothing points at `_H_raw = _bits(_A_scaled)`
        # now (after round 47: the two names bound to one expression and compared, named)
        "q03_experiment_copy_paste_measures_scaled_rows_twice": ("answer_computed_by_code", "probe_compares_same_expression"),
        # answer_in_container on q06:test_ans_mask (the only failure): "ans_mask is array('c', dtype='<U1'), a NumPy array
        # holding a letter (take it out: ans_mask = str(arr.item()))": exactly the effect of np.char.lower, with the fix (as
        # blind44's q6_answer_numpy_char_upper_gives_0d_array); borderline: the catalogue tail (trailing comma, tuple/set,
        # "drop the comma") does not fit a 0-d array, the head does
        "q06_letter_lowered_with_numpy_char": ("answer_in_container",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "'d', the letter your code worked out (`ans_mask =
        # next((k for k, text in _options.items() if 'mask' in text))`) ... (option D stands for thinking the mask is about
        # gradients: without it position t reads the token it is trained to predict) ... decide the option and assign its
        # letter": quotes the exact keyword search, and the option's text points at 'c'; right
        "q06_option_picked_by_keyword_mask": ("answer_computed_by_code",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'c' ... (`if _A.shape == (_T, _Tp):
        # ans_cross_shapes = 'b' if _O.shape == (_T...`) ... (option C stands for taking queries from Y or keys/values from
        # X) ... (look at ... the sizes it uses, the branch each outcome takes)": right in kind; borderline: the quoted line
        # is the shape check, nothing points at the swapped unpacking `_A, _O = cross_attention(...)`
        "q14_experiment_unpacks_weights_and_output_swapped": ("answer_computed_by_code",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'a' ... (`if _A.shape[-1] == _Tp and
        # _O.shape[0] == _T: ans_cross_shapes = 'b...`) ... (option A stands for taking the keys and values from X as well)
        # ... the sizes it uses": right in kind (the quoted check uses _Tp); borderline: nothing says _Tp = Y.shape[-1] is
        # d_model, not T'
        "q14_experiment_reads_t_prime_from_last_axis_of_y": ("answer_computed_by_code",),
        # answer_computed_by_code on q15:test_ans_cross_causal (the only failure): "'a' ... (`ans_cross_causal =
        # sorted(_plausible, key=_plausible.get)[0]`) ... (look at its sign, max against min ...)": the exact line, and "max
        # against min" is the fix (reverse=True or [-1])
        "q15_sorted_ascending_takes_least_plausible": ("answer_computed_by_code",),
        # answer_computed_by_code on q15:test_ans_cross_causal (the only failure): "'b' ... (`ans_cross_causal =
        # _letters[3]`) ... (option B stands for tying the causal mask to a square score matrix ...)": the exact line, right
        # in kind; borderline: nothing says list("a, b, c, d") holds the commas and spaces too
        "q15_options_listed_from_comma_text": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a' ... (`ans_complexity = {1: 'b', 2: 'a',
        # 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option A stands for thinking the score matrix costs time linear in T: there
        # are T^2 scores) ... (look at ... the sizes it uses ...)": right in kind, "there are T^2 scores" points at len()
        # counting rows only; borderline: the quoted line is the lookup, not `len(scaled_scores(Q, K))`
        # now (after round 47: len() of a score matrix in the cell that works the letter out)
        "q16_cost_measured_with_len_of_scores": ("answer_computed_by_code", "cost_counted_with_len"),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a' ... (`ans_complexity = {1: 'b', 2: 'a',
        # 4: 'c', 8: 'd'}[round(_growth)]`) ... (option A stands for ... linear in T: there are T^2 scores) ... what it
        # measures or compares is not what the question asks": the quoted line is the faulty one (exponent looked up in a
        # ratio-keyed table); right in kind; borderline: nothing says _growth is log2 of the ratio
        "q16_growth_exponent_looked_up_in_ratio_table": ("answer_computed_by_code",),
        # generic: q09:test_prefix_average_matrix None, "W_avg contains NaN or inf in 36 of 81 entries (the first at index
        # (0, 1)) where the correct result is finite": says what differs (inf above the diagonal) but no key names taking
        # the reciprocal after tril (1/0); q10 not charged
        # now (after round 47: the matrix read, right on and below the diagonal, inf above)
        "q09_reciprocal_taken_after_tril_gives_inf": ("prefix_average_divided_after_mask",),
        # returns_numpy_not_tensor on all 3 q08 failures: "the smoothed row is a NumPy array with the right values, not a
        # torch tensor ... build the result with torch": exactly the effect of np.average and the fix; borderline: nothing
        # names np.average
        "q08_numpy_average_with_weights_returns_ndarray": ("returns_numpy_not_tensor",),
        # returns_tensor_not_number on q11:test_max_rank_S (the only failure): "max_rank_S is a tensor of shape () holding
        # the right number, not a Python int ... call .item()": exactly the effect of max() over matrix_rank tensors and
        # the fix
        "q11_max_rank_as_max_over_sampled_tensors": ("returns_tensor_not_number",),
    },
# wrong 14: named right 13 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
}

BLIND48_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind48 (frozen at 30dc3b5, after red-team rounds 51-52's first fixes and the scaled q2/q4 changes, before naming
# round 48; measured at the bwrap level), judged by three helper sessions at first sight: scaled 12/14, sdpa 9/14,
# pipeline 13/14: 34/42, none mis-named
# blind48 (frozen engine, /tmp/frozen48), judged from `measure scaled-attention --set blind48 -v`
# (/tmp/measure48-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j48-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # wrong_scale_constant on all 5 failing q1 tests: "it matches scaling the scores by another constant than 1/sqrt(d_k):
        # the weights are softmax(Q K^T / c) with a different c: here c = 1.78, where the scale is 1/sqrt(d_k) = 1/3.464":
        # exactly the effect per call (ln(T_k)/sqrt(d_k) is a different scale), and going back to 1/sqrt(d_k) alone fixes it;
        # borderline: nothing says the extra factor is ln(T_k) (c changes with T_k: 1.78, 2.499, 2.232 across the tests); q8
        # not charged (no double charge)
        "q1_scores_times_log_of_key_count": ("wrong_scale_constant",),
        # generic: both q2 failures None, "for d_k = 12 the variance of q.k is not within 10% of its expected value" (and the
        # scaled one): says what differs, not the measured value, nothing says trunc_normal_ cuts at +-2 (variance 0.77 per
        # coordinate), nor that the draws are not N(0, 1)
        # now (after naming round 48: draws_truncated_normal, the trunc_normal_ draws replayed on the student's seed)
        "q2_draws_with_init_trunc_normal": ("draws_truncated_normal",),
        # entropy_log1p on all 3 q4 failures: "it matches taking log1p(p) = ln(1 + p) as a NaN-free log(p): it is another
        # function, so every term -p log1p(p) is wrong (and negative); use log(p) on the log_softmax, or p.clamp_min(eps)":
        # exactly the effect of xlog1py(p, p) = p ln(1 + p) used as a 0-safe p log p; borderline: nothing names xlog1py /
        # xlogy (the one-word fix), the advice points at log_softmax or a clamp instead
        "q4_entropy_xlog1py_for_xlogy": ("entropy_log1p",),
        # answer_computed_by_code on q5:test_q5_answer: "'A', the letter your code worked out (`q5_answer = min(_opts5,
        # key=lambda s: abs(_opts5[s](16) - _var5))`) ... (option A stands for ...) ... what it measures or compares is not
        # what the question asks": right in kind (the option told as the option's, not the student's belief), the quoted line
        # calls the lambdas; borderline: the generic hints (sign, max/min, sizes, branch) miss it and nothing says the
        # comprehension's lambdas all read the final p (late binding: every option is d^2)
        "q5_answer_option_lambdas_late_binding": ("answer_computed_by_code",),
        # answer_computed_by_code: "'A' ... (`q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _var5))`) ...": right in
        # kind (as blind47's q5_answer_probe_dot_as_mean_of_products); borderline: the quote is the selection, nothing points at
        # torch.manual_seed(0) inside the loop (one pair drawn 2000 times, variance 0)
        "q5_answer_probe_reseeded_inside_loop": ("answer_computed_by_code",),
        # raw: q5:test_q5_answer None, "your code raised EncodeError: a value of type filter cannot cross the sandbox
        # boundary": the grader's own transport error, says the type (filter) but not that q5_answer must be a letter string
        # (Python 3's filter is lazy: "".join(...) or next(...)); no key
        # now (after round 48, engine: lazy_iterator_answer from the sandbox's refusal of a filter object)
        "q5_answer_python2_filter_over_string": ("lazy_iterator_answer",),
        # answer_computed_by_code: "'D' ... (`q5_answer = 'ABCD'[torch.bucketize(_var5, _opts5).item()]`) ... (option D stands
        # for squaring d_k ...) ... what it measures or compares is not what the question asks": quotes the faulty line
        # itself; borderline: nothing says bucketize gives the bin, not the nearest option
        "q5_answer_probe_bucketize_gives_bin_not_nearest": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_mine6, _ref6, atol=1e-05) else 'C'`) ...":
        # quotes the comparison, right in kind (as blind47's q6_answer_check_sdpa_scale_keyword_given_d_k); borderline:
        # nothing says dropout_p=0.1 makes the reference random (SDPA has no training flag)
        "q6_answer_check_sdpa_with_dropout_left_on": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_out6, torch.stack(_rows6), atol=...`) ...":
        # quotes the check against the hand-built rows, right in kind; borderline: nothing says _X6[_i] * _X6[_j] is not summed
        # (a softmax per feature instead of a dot product)
        "q6_answer_check_scores_elementwise_not_dot": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if (_out6 - _exp6).abs().sum() < 1e-06 else 'C'`) ...": quotes
        # the faulty tolerance line itself; borderline: nothing says a summed float32 error of 512 entries cannot be < 1e-6
        "q6_answer_check_summed_error_below_1e_6": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if _ok6 is True else 'C'`) ...": quotes the faulty `is True`
        # line itself; borderline: nothing says a 0-d bool tensor is never the object True (use bool(...) or drop `is True`)
        "q6_answer_tensor_bool_tested_with_is_true": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if bool((_used7 == _K7.shape[1]).all()) else 'C'`) ... (look at
        # ... the sizes it uses ...)": the faulty line, and "the sizes it uses" is the fix (shape[0], the number of keys)
        "q7_answer_used_keys_compared_with_key_width": ("answer_computed_by_code",),
        # answer_value_not_letter: "q7_answer is ('D', 4), a tuple of 2 values, not a letter: answering ... with a value (...
        # a result worked out) instead of the letter ..., as a string such as \"B\"": shows the (letter, count) pair and asks
        # for the letter string: the effect, a student takes [0]; borderline: nothing names Counter.most_common's pairs
        "q7_answer_counter_most_common_pair": ("answer_value_not_letter",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _Q7.grad.abs().max() > 0 else 'C'`) ...": quotes the verdict
        # that reads the gradient, right in kind (as blind47's q7_answer_grad_read_from_original_after_detached_copy);
        # borderline: nothing points at backward(torch.zeros_like(_out7)) (a zero seed zeroes every gradient)
        "q7_answer_backward_seeded_with_zeros_like": ("answer_computed_by_code",),
    },
# wrong 14: named right 12 / partly 0 / generic 1 / raw 1 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind48 (frozen engine, /tmp/frozen48), judged from `measure sdpa-from-scratch --set blind48 -v`
# (/tmp/measure48-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j48-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # sequence_first_layout on q1:test_weights_shape (the only failure): "weights_shape is (10, 4, 4) ... as if the inputs (4, 10, 64) were (tokens, batch, features) ... as nn.MultiheadAttention does without batch_first=True: here they are (batch, tokens, features), so the weights are (batch, T_q, T_k)": exactly the cause, with the fix
        "q1_weights_probed_with_multihead_attention_in_its_sequence_first_default": ("sequence_first_layout",),
        # shape_of_an_input on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 64), the shape of Q and K: giving a result the shape of an input ... the weights are (..., T_q, T_k), one per (query, key) pair": exactly the effect of broadcast_shapes(Q, K) and the right shape (as blind's q1_weights_shape_is_query_shape); borderline: nothing says broadcast_shapes is an elementwise shape, not a matmul's
        "q1_broadcast_shapes_of_queries_and_keys_taken_as_the_weights": ("shape_of_an_input",),
        # divisor_d_k_or_sqrt_64 on q2:test_score_variances (the only failure): "scaled_score_var matches the example's scores divided by 8 ... its d_k (d_k instead of sqrt(d_k)) ... divide the example's scores by math.sqrt(Q.shape[-1]) = sqrt(8)": raw / d_k ** 2 is Var(raw / d_k), so "d_k instead of sqrt(d_k)" is exactly the factor the student squared (the square rule is right, the factor wrong); borderline: said of the scores, not of the variance (the student divides no scores: the fix must be read as raw / sqrt(d_k) ** 2 = raw / d_k), and the sqrt(64) reading is idle here
        "q2_scaled_variance_as_raw_divided_by_d_k_squared": ("divisor_d_k_or_sqrt_64",),
        # softmax_ignores_dim on q3:test_dim_argument (the only failure): "stable_softmax(x, dim=0) is wrong: it matches ignoring the dim argument of the softmax": exactly (logsumexp hard-coded to -1)
        "q3_logsumexp_hard_coded_to_the_last_axis": ("softmax_ignores_dim",),
        # generic: all 20 failures None (4 q3, 13 q5, 3 q6): "does not match the correct result in 84 of 105 entries ... spread over every row and column", "contains NaN or inf in 40 of 60 entries", q6 "not correct in row(s) [0, 1, 2] (recompute ... take the softmax of each row)": what differs and where, nothing says the shift must be one constant per slice (the max), not a running cummax
        # now (after naming round 48: softmax_running_max on all 20 failures, by replay)
        "q3_running_cummax_used_as_the_shift": ("softmax_running_max",),
        # partly: upper_triangular_mask on q4:test_square and q6:test_weights3_causal ("it matches an upper-triangular (future-looking) mask instead of a lower-triangular one"): exactly the effect of mask[cols, rows]; q4:test_more_queries_than_keys is raw ("your code raised IndexError: index 6 is out of bounds for dimension 1 with size 6"), q4:test_more_keys_than_queries generic ("causal_mask(4, 9) is not the causal mask ... differs in 12 entries, the first at [0, 1]") (None)
        # now (after naming round 48: upper_triangular_mask on the rectangular calls too (the swapped scatter replayed))
        "q4_tril_indices_scattered_with_rows_and_columns_swapped": ("upper_triangular_mask",),
        # partly: scale_by_batch_dim on 8 of 15 q5 failures: "it matches taking d_k from a leading axis (Q.shape[0] or Q.size(1) ...), or multiplying it in (sqrt(Q.size(1) * Q.size(-1)), the heads times the head width), instead of the last one alone: divide by sqrt(Q.shape[-1])": numel() // T_q is batch x heads x d_k, "multiplying it in", with the exact fix; borderline: q5:test_float16_large_scores' text is garbled ("is wrong is scaled by 1/sqrt(T_q) on 3-D inputs"); None on 7 (4d_random_mask, mask_2d_broadcast, noncontiguous, broadcast, float16, bfloat16 "does not match ... in N of M entries"): generic
        # now (after naming round 48: scale_by_batch_dim on all 13 value failures; the timing test no longer charges it)
        "q5_head_width_as_numel_over_token_count": ("scale_by_batch_dim",),
        # divide_by_dk on all 3 q6 failures: "weights3 / out3 / weights3_causal is wrong: it matches dividing the scores by d_k instead of sqrt(d_k)": (Q / 2)(K / 2)^T is the scores / 4 = d_k, the effect, as blind's q5_scale_split_over_q_and_k; borderline: nothing says each side takes d_k ** -0.25
        "q6_queries_and_keys_each_divided_by_the_whole_divisor": ("divide_by_dk",),
        # one_edit_fix on q6:test_out3 (the only failure): "right with one change on line 3 ...: `'qk,kv->qv'` in place of `'qk,kv->qk'`", plus "out3 should have shape (3, 2), got (3, 3)": the slip at its place, with the fix
        "q6_einsum_for_the_output_keeps_the_key_letter": ("one_edit_fix",),
        # answer_invisible_character on q7:test_trap_answer (the only failure): "q_trap_answer is 'C\u200b': the letter 'C' with 1 invisible character (ZERO WIDTH SPACE (U+200B)) ... retype it": exactly
        "q7_letter_pasted_with_a_zero_width_space": ("answer_invisible_character",),
        # generic: q7:test_trap_answer None, 'q_trap_answer should be one letter as a string: "A", "B", "C", "D"': enough to fix, but does not show the value '$C$' nor say the $ math delimiters are the extra characters
        # now (after round 48, engine: '$C$' told as the letter C with extra characters)
        "q7_letter_written_as_latex_math": ("answer_extra_characters",),
        # raw: q8:test_score_madds None, "OverflowError: int too large to convert to float": the grader's own float() of 1 << 1280 escapes as a bare exception (not even "your code raised"; the measure counts it generic, but no text says what differs); nothing shows the value or says `<<` binds looser than `*` ((1 << 20) * 64)
        # now (after naming round 48: shift_binds_looser, the expression re-read with the shift bracketed gives the right count)
        "q8_shift_binds_looser_than_times": ("shift_binds_looser",),
        # one_edit_fix on both q8 failures (attn_entries, score_madds): "right with one change on line 1 ... (`_positions = range(0, 1024 + 1)`): `1024` in place of `1024 + 1`": the fence-post slip at its place, with the fix
        "q8_entries_counted_over_positions_zero_to_T_inclusive": ("one_edit_fix",),
        # number_as_string on q8:test_cost_ratio (the only failure): "cost_ratio is '4', a string holding the number 4 ... a number answer written as a string ... write the number itself, without quotes": exactly; borderline (message defect, not a mis-name): the catalogue's stock example leaks in as "write the number itself, 8, without quotes", which next to a right 4 reads like the answer (a student may write 8)
        "q8_ratio_typed_as_a_string": ("number_as_string",),
    },
# wrong 14: named right 9 / partly 2 / generic 2 / raw 1 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind48 (frozen engine, /tmp/frozen48), judged from `measure attention-pipeline --set blind48 -v`
# (/tmp/measure48-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j48ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # causal_in_cross on q15:test_ans_cross_causal (the only failure): "that choice reflects applying a causal mask in
        # cross-attention, where queries and keys come from different sequences": exactly the torchtune #2493 belief the
        # cell encodes (decoder -> causal -> 'a'); borderline: nothing says the decoder's self-attention mask is not the
        # cross-attention's, but the belief named is the student's
        "q15_answer_looked_up_by_the_block_it_sits_in": ("causal_in_cross",),
        # answer_lookalike_letter on q15:test_ans_cross_causal (the only failure): "'ｄ', which looks like 'd' but is
        # FULLWIDTH LATIN SMALL LETTER D (U+FF44) ... retype the letter on a Latin layout": exactly the IME slip and its fix
        "q15_full_width_letter_from_ime_keyboard": ("answer_lookalike_letter",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'a' ... (`ans_scale = 'a' if _tau_without_scale
        # > _tau_with_scale else 'b'`) ... (option A stands for thinking larger scores make the softmax flatter: unscaled
        # scores grow like sqrt(d_k) and make each row sharper) ... (look at its sign ...)": quotes the exact line and says
        # the reversed direction and its correction; right
        "q03_temperature_direction_reversed": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c' ... (`if _H_scaled - _H_raw > 0.5: ans_scale
        # = 'b' elif ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied by the
        # same constant ...) ... what it measures or compares is not what the question asks (look at ... the sizes it uses
        # ...)": right in kind (as blind47's q03_experiment_copy_paste_measures_scaled_rows_twice), the option told as the
        # option's, not the student's belief; borderline: the quoted line is the verdict, nothing points at `_Q = _K = _X`
        # (self-scores ~ d_k saturate both softmaxes)
        "q03_experiment_with_keys_equal_to_queries": ("answer_computed_by_code",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'d' ... (`if _A.shape == (_T, _Tp) and
        # _O.shape == (_T, _d_v): ans_cross_shap...`) ... (look at ... the sizes it uses ...)": the quoted check holds the
        # wrong _d_v, right in kind; borderline: nothing says _d_v = _W_V.shape[0] is d_model (W_V is (d_model, d_v), not
        # an nn.Linear (out, in) weight)
        "q14_experiment_reads_d_v_from_weight_rows_like_nn_linear": ("answer_computed_by_code",),
        # answer_value_not_letter on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is 1, a number your code
        # worked out (`ans_cross_shapes = _options.index('b')`), not a letter ... instead of the letter of the option ... as
        # a string such as 'B'": exactly list.index's position and the fix
        "q14_letter_position_from_list_index": ("answer_value_not_letter",),
        # callable_not_called on q06:test_ans_mask (the only failure): "ans_mask is a function or method, not a value: ...
        # a function's name without calling it, hands over the function itself, not its result": exactly the effect of
        # `def ans_mask(): return "c"`; borderline: its fix "add the ()" fits a forgotten call more than a def written
        # as the answer (ans_mask = "c"), but a student reading it knows ans_mask must be the string
        "q06_answer_written_as_a_function": ("callable_not_called",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'b' ... (`ans_complexity = {0: 'b', 1: 'a',
        # 2: 'c', 3: 'd'}.get(round(float(_...`) ... (option B stands for thinking the cost of the scores does not depend on
        # T: there are T^2 of them) ... what it measures or compares is not what the question asks": right in kind (as
        # blind47's q16_growth_exponent_looked_up_in_ratio_table); borderline: the quote is the lookup, nothing says
        # numpy.polynomial's polyfit puts the intercept at [0] (the slope is [1])
        "q16_loglog_fit_coefficients_read_lowest_degree_first": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a' ... (`ans_complexity = {1: 'b', 2: 'a',
        # 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option A stands for ... linear in T: there are T^2 scores) ... (look at ...
        # the sizes it uses ...)": right in kind, "the sizes it uses" is the slip (d_k doubled, not T); borderline: the
        # quote is the lookup, not `_madds(512, 64) / _madds(256, 64)` with the arguments in (T, d_k) order
        "q16_cost_helper_called_with_arguments_swapped": ("answer_computed_by_code",),
        # answer_in_container on q11:test_max_rank_S (the only failure): "max_rank_S is (8,), a tuple holding the number 8
        # ... giving the answer ... inside a one-element tuple ... where the answer is the value itself": exactly the effect
        # of shape[1:] (torch.Size([8]) is a one-element tuple), as blind46's q5_answer_list_slice_gives_one_item_list;
        # borderline: its "(a trailing comma makes one)" and "drop the comma" do not fit a slice (the fix is shape[1]);
        # no wrong line to change, the head names the mistake
        "q11_max_rank_sliced_from_a_shape": ("answer_in_container",),
        # not caught: 42/42; q12 accepts a float exactly equal to the count by design (q12.py: `type(n) in (int, float) and
        # n == ...`; only a float off by rounding pays, float_for_int), and the question text asks for "the number of
        # weights", not an int, so math.fsum's 72.0 passes; arguably not a mistake the question states
        "q12_count_summed_with_math_fsum": (),
        # prefix_average_float32 on q09:test_prefix_average_matrix (the only failure): "W_avg is float32 (its values are
        # right to float32's precision): building the prefix-average matrix in float32, torch's default dtype, where the
        # question asks for float64": exactly the effect of torch.tensor(nested list) and the fix; borderline: its example
        # names torch.ones(T, T), not torch.tensor; q10 not charged (no double charge)
        "q09_nested_list_comprehension_in_default_dtype": ("prefix_average_float32",),
        # reduced_every_axis on both failing q10 tests: "H is one number, the sum of the right (2, 7) result over all its
        # entries ... the result is one number instead of one per row" (+ the smallest failing input, "got a tensor of shape
        # ()"): exactly the effect of A[A > 0] flattening the rows (as blind38's q4_entropy_boolean_mask_flattens_rows with
        # entropy_one_number); borderline: its "(.sum() or .mean() without dim=)" is not this code's route (it has
        # .sum(dim=-1)), nothing says boolean indexing flattens; it sends the student to no other fix, the effect is exact
        # now (after naming round 48: entropy_rows_flattened_by_selection, the entropy of all positive entries replayed and the selection read in the code)
        "q10_zeros_skipped_by_boolean_indexing": ("reduced_every_axis", "entropy_rows_flattened_by_selection"),
        # no_causal_mask on all 4 failures (3 q07, q09:test_zero_projections, both in `where`): "(O, A) ... match never
        # applying the causal mask, so tokens read the future": exactly the effect of S + True (a constant 1 added to every
        # score, softmax unchanged); borderline: nothing says the bool flag was passed where the mask matrix goes
        "q07_causal_flag_passed_as_the_mask": ("no_causal_mask",),
    },
# wrong 14: named right 13 / partly 0 / generic 0 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
}

BLIND49_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind49 (frozen at b63bc37, after naming round 48 and red-team rounds 51-54; measured at the bwrap level),
# judged by three helper sessions at first sight: scaled 12/14, sdpa 11/14, pipeline 13/14: 36/42, none mis-named
# blind49 (frozen engine, /tmp/frozen49), judged from `measure scaled-attention --set blind49 -v`
# (/tmp/measure49-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j49-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # no_scale on all 5 failing q1 tests: "the weight matrix is wrong: with the other result of the same call it matches
        # not scaling the scores at all" (weights, output, float32, non-contiguous, broadcast): exactly the effect (beta
        # scales the zeros, the product is left as Q K^T), and scaling the product fixes it; borderline: nothing says beta
        # scales the added input and alpha the product (alpha=1/sqrt(d_k) is the one-word fix); q8 not charged (no double charge)
        "q1_addmm_scale_given_as_beta": ("no_scale",),
        # generic: all 3 q4 failures None, though the words are exact: "it equals, on the same logits, -sum p log(p + 1e-04):
        # a guard of 1e-04 inside the log shifts every log p and biases the entropy low (about n * 1e-04 nats for n keys);
        # keep the guard tiny (1e-12, torch.finfo(p.dtype).tiny) or use F.log_softmax": the mistake and its fix, but no key
        # (as earlier judges: an apt message without a key is generic)
        # now (after blind49: entropy_guard_too_large, the same exact message with its key)
        "q4_entropy_log_guard_1e_4": ("entropy_guard_too_large",),
        # not caught: 28/28; string.ascii_letters[2] is 'c', and expect_choice / raise_if_answer_copied read the letter as
        # v.strip().upper(), so lower-case 'c' is taken as 'C' by design (as earlier "c" and "b" answers were read as C and
        # B): a defensible leniency rather than a grader gap, but the stated mistake is not flagged
        "q5_answer_ascii_letters_starts_lowercase": (),
        # answer_computed_by_code on q5:test_q5_answer: "'D', the letter your code worked out (`q5_answer = min(_opts5,
        # key=lambda s: abs(_opts5[s] - _dots5.var()....`) ... (option D stands for squaring d_k ...) ... what it measures or
        # compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (as blind48's q5 probes),
        # the option told as the option's; borderline: the quote is the selection, nothing points at the (2, 16, 5000) draw
        # whose .sum(dim=-1) adds over the samples
        "q5_answer_probe_pair_unpacked_from_feature_major_draw": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _var5))`) ... (option B
        # stands for confusing the standard deviation sqrt(d_k) ...) ... what it measures ... is not what the question asks":
        # right in kind; borderline: nothing says torch.randint(-1, 2) draws {-1, 0, 1} (variance 2/3), not N(0, 1)
        "q5_answer_probe_draws_randint_minus_one_to_one": ("answer_computed_by_code",),
        # answer_computed_by_code: "q6_answer is '', an empty string your code worked out (`q6_answer = 'Answer:
        # A'.lstrip('Answer: ')`), not a letter ... decide the option and assign its letter as a string": quotes the faulty
        # lstrip line and its '' result (as blind48's q15 wrong-case .get, the empty string told as the code's pick), and
        # assigning "A" fixes it; borderline: the stock hints (a probe that "picks a wrong option", sign, max/min) do not fit
        # string cleaning, and nothing says lstrip takes a character set (removeprefix meant)
        "q6_answer_lstrip_prefix_eats_letter": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_out6, _exp6, atol=1e-05) else 'C'`) ...
        # (option C stands for thinking attention returns only the best-matching value ...)": quotes the check, right in kind
        # (as blind48's q6_answer_check_scores_elementwise_not_dot); borderline: nothing says _X6.T @ _X6 is the feature Gram
        # matrix (X X^T meant); the square probe hides the shape
        "q6_answer_check_scores_from_feature_gram_xtx": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if ((_out6 - _exp6) / _exp6).abs().max() < 1e-06 el...`) ...":
        # quotes the faulty relative-error line itself (as blind48's q6_answer_check_summed_error_below_1e_6); borderline:
        # nothing says dividing by near-zero entries blows the error up (an absolute tolerance / allclose)
        "q6_answer_check_relative_error_over_near_zero_entries": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`for _n6, _text6 in enumerate(_options6, start=1): if 'weighted aver...`) ...
        # (option B stands for thinking a token ... attends only to itself)": quotes the faulty enumerate line itself;
        # borderline: nothing says start=1 then indexes "ABCD" from 0
        "q6_answer_enumerate_start_one_indexes_letters": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`try: torch.testing.assert_close(_out6, _exp6) q6_answer = 'A' ...`) ...":
        # quotes the faulty check itself, right in kind; borderline: nothing says assert_close checks the dtype by default
        # (float32 against float64 always raises)
        "q6_answer_check_assert_close_dtype_mismatch": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if bool((_J7 != 0).all()) else 'C'`) ... (option C stands for
        # ... a hard argmax ...)": quotes the faulty probe condition itself; borderline: nothing says the cross entries
        # d out_i / d q_j (j != i) are exactly 0
        "q7_answer_jacobian_probe_requires_every_entry_nonzero": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _pick7.requires_grad else 'C'`) ...": quotes the faulty
        # line itself; borderline: nothing says argmax's integer index never carries a gradient (test the weights/output)
        "q7_answer_differentiability_read_off_argmax_of_weights": ("answer_computed_by_code",),
        # answer_in_container: "q7_answer is {'D'}, a set holding a letter (braces around a value make one) ... where the
        # answer is the value itself: drop ... the braces": exactly the effect and the fix (set difference leaves a set);
        # borderline: nothing names set(...) - set(...) / .pop()
        "q7_answer_options_eliminated_by_set_difference": ("answer_in_container",),
        # answer_extra_characters: "q7_answer is '**D.': it has characters besides the letter, which seems to be 'D' ...
        # the answer must be the letter alone": exactly the effect, with the letter; borderline: nothing says group(0) is
        # the whole match (group(1) meant)
        "q7_answer_regex_group_zero_keeps_markup": ("answer_extra_characters",),
    },
# wrong 14: named right 12 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind49 (frozen engine, /tmp/frozen49), judged from `measure sdpa-from-scratch --set blind49 -v`
# (/tmp/measure49-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j49-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # weights_as_output on q1:test_weights_shape (the only failure): "weights_shape is the shape of the output, not of the weight matrix: the weights have one entry per (query, key) pair": exactly the effect of reading the shape off F.scaled_dot_product_attention's output, and the fix; borderline: nothing says the fused kernel returns only the output
        "q1_weights_shape_read_off_the_fused_kernels_output": ("weights_as_output",),
        # float_for_int on q1:test_out_shape (the only failure): "out_shape is (4, 10, 128.0): a float where a shape holds whole numbers ... (math.pow, / or a float literal ...) ... use ** ... (not math.pow(1024, 2))": exactly, names math.pow and the fix
        "q1_value_width_written_as_math_pow_is_a_float": ("float_for_int",),
        # batch_reduced_before_variance on q2:test_score_variances (the only failure): "neither is the variance of the example's scores: they are the variances of the two sequences' score matrices summed into one (5, 5) matrix (.sum(dim=0)) ... take .var() over all the entries of the (B, T, T) scores": exactly the effect of addbmm, with the fix; borderline: nothing names addbmm, and the stock tail "averaging independent scores shrinks their spread" is off for a sum (it grows it), but the lead says summed
        "q2_scores_made_with_addbmm_which_sums_the_batch": ("batch_reduced_before_variance",),
        # numpy_scalar_answer on q2:test_score_variances (the only failure): "raw_score_var is a 0-d NumPy array holding 6.599..., not a Python number: ... (.numpy() of a one-element tensor) ... convert it with float(...) (or ... .item())": exactly
        "q2_raw_variance_left_as_the_zero_dim_array_numpy_returns": ("numpy_scalar_answer",),
        # exponentials_floored on q3:test_minus_inf_entries (the only failure; q5/q6 within tolerance): "each -inf entry gets 1.8e-35 divided by its row's sum ..., not 0: it matches keeping the exponentials above a small floor (exp(x - max).clamp(min=eps) ...) ... leave exp(-inf) = 0 (... no floor is needed)": clamp(shifted, min=-80) then exp is the same operation as exp(shifted).clamp(min=exp(-80) = 1.8e-35) (exp is monotone), so the cause is the same, the value is shown and the fix (drop the floor) is right; borderline: the clamp is told on the exponentials, not on the shifted logits where the student wrote it
        "q3_shifted_logits_clamped_at_minus_80": ("exponentials_floored",),
        # generic: all 4 failures None (3 q4, 1 q6): "causal_mask(11) is True everywhere, so no query is kept from any key", rectangular "differs in 16 / 8 entries, the first at [0, 1]", q6 "fix causal_mask (Question 4) first": says what differs (the square one is the exact effect), nothing says repeat tiles the sequence (repeat_interleave gives the query index)
        # now (after blind50: query_index_tiled, confirmed by second calls on square and rectangular sizes)
        "q4_query_index_tiled_with_repeat_not_repeat_interleave": ("query_index_tiled",),
        # causal_excludes_self on all 4 failures (3 q4, q6:test_weights3_causal): "it matches a causal mask that hides the diagonal: a token may not see itself": exactly the effect of lower ^ eye; borderline: nothing says ^ is exclusive or (the student meant to keep the diagonal, the message reads as a belief)
        "q4_diagonal_added_to_tril_with_xor_removes_it": ("causal_excludes_self",),
        # dtype_changed on all 8 q5 failures (float64, float16, bfloat16 runs): "your code raised RuntimeError: expected scalar type Float but found Double for float64 inputs; the same values in float32 run and are right: some step converts to float32 (.float(), a float32 tensor) and meets the input's dtype; keep the input's dtype": exactly the effect of softmax(..., dtype=torch.float32); borderline: nothing names softmax's dtype keyword
        "q5_softmax_dtype_keyword_pins_the_weights_to_float32": ("dtype_changed",),
        # scale_by_T on all 3 q6 failures: "it matches scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of 1/sqrt(d_k)": exactly (Q3.shape[0] = 3 tokens)
        "q6_divisor_taken_from_the_token_axis": ("scale_by_T",),
        # one_edit_fix on q6:test_weights3_causal (the only failure): "right with one change on line 4 ...: `torch.log` in place of `torch.log1p`": the slip at its place, with the fix
        "q6_log1p_of_the_mask_used_as_the_bias": ("one_edit_fix",),
        # answer_extra_characters on q7:test_trap_answer (the only failure): "q_trap_answer is \"['C']\": it has characters besides the letter, which seems to be 'C' ... the answer must be the letter alone": shows the value and the fix; borderline: nothing says str() of a one-element array keeps the brackets ([2], not [[2]])
        "q7_str_of_a_one_element_numpy_array_keeps_its_brackets": ("answer_extra_characters",),
        # not caught: 35/35; expect_choice ignores parentheses by design ("(B) " is "b": value.strip().strip("()")), so "C)" is read as C, yet the notebook's own format check (q_trap_answer.strip().upper() in ("A", "B", "C", "D")) rejects "C)" (bare_letter_only would match it)
        "q7_option_label_copied_with_its_parenthesis": (),
        # float_for_int on q8:test_score_madds (the only failure): "score_madds is 67108864.0, a float: giving a float (... or a float literal: 1048576.0) where a whole number, a Python int, is asked": exactly (1024. is a float literal)
        "q8_madds_typed_with_a_trailing_decimal_point": ("float_for_int",),
        # generic: q8:test_score_madds None, "score_madds holds the right count but is a Tensor: give a plain Python int (int(score_madds))": says exactly what differs and the fix, but no key names it (a 0-d tensor answer)
        # now (after blind49: returns_tensor_not_number, the same message with its key)
        "q8_madds_left_as_a_zero_dim_tensor": ("returns_tensor_not_number",),
    },
# wrong 14: named right 11 / partly 0 / generic 2 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind49 (frozen engine, /tmp/frozen49), judged from `measure attention-pipeline --set blind49 -v`
# (/tmp/measure49-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j49ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`if _H_scaled
        # - _H_raw > 0.5: ans_scale = 'b' elif ...`) ... (option C stands for thinking the softmax does not change when every
        # score is multiplied by the same constant ...) ... what it measures or compares is not what the question asks (look at
        # ... the sizes it uses ...)": right in kind (as blind48's q03_experiment_with_keys_equal_to_queries), the option told as
        # the option's, not the student's belief; borderline: the quote is the verdict, nothing points at the 0.02 weight scale
        # (scores near 0 with or without the scale) beyond "the sizes it uses"
        "q03_experiment_with_gpt2_init_scale_weights": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c' ... (`if torch.allclose(_A_scaled, _A_raw,
        # atol=1.0): ans_scale = 'c' els...`) ... what it measures or compares is not what the question asks": quotes the faulty
        # comparison itself, atol=1.0 visible in the quote; borderline: nothing says atol=1 passes any two probability matrices
        "q03_experiment_judged_by_allclose_with_atol_one": ("answer_computed_by_code",),
        # answer_value_not_letter on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is 100, a number, not a
        # letter ... instead of the letter of the option ..., as a string such as \"B\"": exactly the effect of ord("a") + 3
        # and the fix; borderline: nothing says chr() (or that 100 is ord('d'))
        "q15_letter_left_as_its_character_code": ("answer_value_not_letter",),
        # answer_value_not_letter on q06:test_ans_mask (the only failure): "ans_mask is 2, a number your code worked out
        # (`ans_mask = OPT_C`), not a letter ... as a string such as \"B\"": exactly, quotes the line and says the fix
        "q06_option_constants_defined_as_range_ints": ("answer_value_not_letter",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'a' ... (`if _A.shape == (_T, _T) and
        # _O.shape == (_T, 2): ans_cross_shapes =...`) ... (option A stands for taking the keys and values from X as well ...)
        # ... (look at ... the sizes it uses, the branch each outcome takes)": quotes the square-first check that fires, and
        # "the sizes it uses" is the slip (T == T' = 4); right in kind; borderline: nothing says equal lengths make (T, T) and
        # (T, T') the same shape
        "q14_experiment_with_equal_lengths_matches_square_first": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'d' ... (`ans_complexity = {0: 'b', 1: 'a',
        # 2: 'c', 3: 'd'}.get(round(float(_...`) ... (option D stands for thinking the scores cost T^3 ...) ... what it measures
        # or compares is not what the question asks": right in kind (as blind48's q16_loglog_fit_coefficients_read_lowest_degree
        # _first); borderline: the quote is the lookup, nothing says np.log vs np.log2 (slope 2/ln 2 = 2.885)
        "q16_loglog_fit_mixes_log2_and_natural_log": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'d' ... (`ans_complexity = {0: 'b', 1: 'a',
        # 2: 'c', 3: 'd'}[round(_growth)]`) ... what it measures or compares is not what the question asks": quotes the line
        # reading the growth as an exponent, right in kind; borderline: nothing says (4 - 1) / 1 is a relative increase, not an
        # exponent (log2 of the ratio)
        "q16_relative_increase_read_as_growth_exponent": ("answer_computed_by_code",),
        # dot_of_matrices on all 3 q01 failures: "your code raised RuntimeError: 1D tensors expected ...: calling torch.dot (or
        # .dot) on matrices: it takes two 1-D vectors only; for a matrix product use @ (torch.matmul)": exactly the NumPy port
        # and its fix; q07/q09/q10 not charged (no double charge)
        "q01_numpy_dot_method_ported_to_tensors": ("dot_of_matrices",),
        # scores_transposed on all 4 q02 failures: "S is wrong: it matches computing K Q^T (keys as rows) instead of Q K^T
        # (queries as rows)": exactly the effect of the '...kq' output subscripts; borderline: nothing points at the einsum
        # string, but the fix (queries as rows) is actionable; downstream questions not charged
        "q02_einsum_output_subscripts_keys_first": ("scores_transposed",),
        # float32_precision on q05 float64_rectangular_mask and noncontiguous: "A is right only to float32's precision (largest
        # difference 3.5e-08) for a float64 input: some step computes in float32 (a float32 tensor or constant, or .float());
        # keep the input's dtype"; dtype_changed on float16_stable: "A (float16) is torch.float32 for torch.float16 inputs, with
        # the right values: ... mixing in another dtype than the input's (... a float32 tensor never cast back)": both exactly
        # the effect of sum(..., dtype=torch.float32); borderline: nothing names the dtype= keyword of the sum
        "q05_row_sum_accumulated_in_float32": ("float32_precision", "dtype_changed"),
        # one_edit_fix on all 4 q07 failures: "right with one change on line 6 ... (`O = (A.unsqueeze(-1) *
        # V.unsqueeze(-3)).sum(dim=-3) ...`): `-2` in place of `-3`": the slip at its place, with the fix
        "q07_broadcast_mix_summed_over_query_axis": ("one_edit_fix",),
        # log_softmax_weights on all 3 q08 failures: "it matches using log_softmax (log-probabilities, all negative) as the
        # weights instead of softmax": exactly
        "q08_log_softmax_weights_never_exponentiated": ("log_softmax_weights",),
        # generic: both q10 failures None, "H has shape (14,), expected (2, 7)" / "H for a transposed, expanded A has shape (18,),
        # expected (3, 6)": says what differs (batch and rows merged into one axis), nothing names .view(-1) flattening
        # now (after blind49: axes_flattened, the right values in fewer axes than asked, said with the axes merged)
        "q10_entropy_flattened_with_view_minus_one": ("axes_flattened",),
        # param_count_precedence on both q12 failures: "it matches dropping the parentheses of d_model * (2 * d_k + d_v): Python
        # multiplies before it adds, so ... counts W_V as d_v numbers instead of d_model * d_v": exactly
        "q12_value_term_missing_d_model_factor": ("param_count_precedence",),
    },
# wrong 14: named right 13 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
}

BLIND50_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind50 (frozen at 320e857, after naming round 48, red-team rounds 51-54 and 58, axes_flattened; measured at the bwrap
# level), judged by three helper sessions at first sight: scaled 10/14, sdpa 12/14, pipeline 13/14: 35/42, none mis-named
# blind50 (frozen engine, /tmp/frozen50), judged from `measure scaled-attention --set blind50 -v`
# (/tmp/measure50-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j50-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # wrong_scale_constant on all 5 failing q1 tests (weights, output, float32 square, non-contiguous, broadcast): "the
        # weights are softmax(Q K^T / c) with a different c: here c = 1.861, where the scale is 1/sqrt(d_k) = 1/3.464" (d_k = 12:
        # 1.861 = 12^(1/4); float32 square c = 2 at d_k 16): exactly the effect (the scores divided by d_k^(1/4), not sqrt(d_k)),
        # and the numbers show it; borderline: nothing says the d^(1/4) trick needs K scaled too; q8 not charged (no double charge)
        "q1_quarter_power_scale_on_queries_only": ("wrong_scale_constant",),
        # generic: both q2 failures None, "for d_k = 12 the variance of q.k (/ sqrt(d_k)) is not within 10% of its expected
        # value": says what differs, nothing about the int64 buffer from torch.tensor([0] * n) truncating each dot toward 0
        # now (after blind50: dots_made_integers, by replay (naming round 50))
        "q2_dots_buffer_from_python_int_list_truncates": ("dots_made_integers",),
        # entropy_nan_saturated on q4:test_entropy_saturated_rows (the only failure): "NaN for a saturated row: 0 * log(0); add a
        # tiny epsilon or use log_softmax": exactly the effect, and either fix works (as q4_entropy_clamp_result_dropped /
        # q4_epsilon_outside_log, a guard that does not guard); borderline: nothing says p >= 0 is always true (p > 0 meant)
        "q4_entropy_where_guard_compares_ge_zero": ("entropy_nan_saturated",),
        # answer_computed_by_code: "'B' ... (`q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _spread5))`) ... (option B
        # stands for confusing the standard deviation sqrt(d_k) of q.k with its variance d_k) ... what it measures ... is not
        # what the question asks": right in kind and close to the cause (the mean |q.k| is a spread of the size of the std);
        # borderline: nothing names .abs().mean()
        "q5_answer_probe_spread_as_mean_absolute_dot": ("answer_computed_by_code",),
        # answer_computed_by_code: "'A' ... (`... abs(_opts5[s] - _var5)`) ... (option A stands for giving the variance of the
        # scaled dot product (1) for the raw one) ... what it measures or compares is not what the question asks": right in
        # kind (as blind48/49's q5 probes), the option told as the option's; borderline: nothing says it measures the attention
        # WEIGHTS (after scale and softmax) instead of the raw q.k
        "q5_answer_probe_variance_of_attention_weights": ("answer_computed_by_code",),
        # answer_computed_wrong_choice: "'A' ... the placeholder 'A' set first was never replaced: the assignment inside the loop
        # or test never ran (`q5_answer = "A"`, then `q5_answer = _letter5`) ... a placeholder stays when a float == never
        # holds": exactly the mechanism (isclose at rel_tol=1e-3 is a near-== that never holds); borderline: isclose not named
        "q5_answer_probe_isclose_rtol_too_tight_keeps_default": ("answer_computed_wrong_choice",),
        # not caught: 28/28; hidden q5 reads the letter as v.strip().upper() (checks.py / raise_if_answer_copied), so "C " is
        # taken as "C" by design: a defensible leniency (as blind49's lower-case 'c'), but the stated mistake is not flagged
        "q5_answer_trailing_space_pasted": (),
        # answer_in_container: "q6_answer is ['A'], a list holding a letter ... where the answer is the value itself: drop ...
        # the brackets": exactly the effect and the fix; borderline: nothing says str.split returns a list (strip meant)
        "q6_answer_split_for_strip_leaves_list": ("answer_in_container",),
        # generic: q6:test_q6_answer None, "`q6_answer` is not defined in your notebook (or is None): run every cell, keep the
        # given names": says it is None, but its advice (run every cell, keep the names) does not fit; nothing says dict.get
        # missed the key ('softmax-weighted average' vs 'weighted average') and returned None (no key, so not a mis-name)
        # now (after blind50: answer_lookup_missed, the .get statement quoted)
        "q6_answer_dict_get_key_mismatch_gives_none": ("answer_lookup_missed",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if _ok6 else 'C'`) ... (option C stands for ... a hard argmax)
        # ... the branch each outcome takes": quotes the check's branch, right in kind (as blind49's
        # q6_answer_check_assert_close_dtype_mismatch); borderline: nothing says the (output, weights) pair went to allclose
        # and the broad except swallowed the TypeError
        "q6_answer_check_pair_not_unpacked_error_swallowed": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_out6, _exp6, atol=1e-05) else 'C'`) ...":
        # quotes the check, right in kind (as blind48's q6_answer_check_scores_elementwise_not_dot); borderline: nothing says
        # _W6 * _X6 is elementwise (W @ X meant), the square probe hides the shape
        "q6_answer_check_mix_by_elementwise_product_on_square_probe": ("answer_computed_by_code",),
        # generic: q7:test_q7_answer None, "q7_answer is ',': it should be one letter as a string: "A", "B", "C", "D"": shows
        # the wrong value and what is wanted, no key; nothing says chr takes a decimal code point (chr(68) / chr(0x44) meant)
        # now (after blind50: answer_computed_by_code, chr reads its number as decimal, 'D' is chr(0x44))
        "q7_answer_chr_of_decimal_44_not_hex": ("answer_computed_by_code",),
        # answer_computed_wrong_choice: "'C' ... the placeholder 'C' set first was never replaced: the assignment inside the loop
        # or test never ran (`q7_answer = "C"`, then `q7_answer = "D"`)": true and the place (the RuntimeError skipped the
        # assignment); borderline: nothing says autograd.grad on a non-scalar output needs grad_outputs / the except hid it
        "q7_answer_autograd_grad_of_non_scalar_output_swallowed": ("answer_computed_wrong_choice",),
        # answer_computed_wrong_choice: "'C' ... the placeholder 'C' set first was never replaced: the assignment inside the loop
        # or test never ran (`q7_answer = "C"`, then `q7_answer = _letter7`)": exactly the effect (the keyword test never
        # matched); borderline: nothing says split() keeps "soft," with its comma
        "q7_answer_keyword_tokens_keep_trailing_comma": ("answer_computed_wrong_choice",),
    },
# wrong 14: named right 10 / partly 0 / generic 3 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind50 (frozen engine, /tmp/frozen50), judged from `measure sdpa-from-scratch --set blind50 -v`
# (/tmp/measure50-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j50-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # shape_entry_from_another_axis on q1:test_out_shape (the only failure): "out_shape is (10, 10, 128): the right shape (4, 10, 128) with its entry 0 (the batch size, 4) replaced by 10, the sequence length ... read each size off its own axis: ... the output (batch, T_q, d_v)": exactly the effect (entry 0 holds axis 1's size, the batch is lost) and what to put there; borderline: nothing says [-2:] keeps the last two axes ([:-1] meant), and the stock example (K.shape[0] for K.shape[1]) does not fit
        "q1_out_shape_built_from_the_wrong_end_of_the_weights_shape": ("shape_entry_from_another_axis",),
        # shape_axis_added on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 10, 1): the right shape (4, 10, 10) with one more axis of size 1: adding an axis the question does not have ... (batch, T_q, T_k) weights": exactly; borderline: the example given is a heads axis, not the broadcast singleton of the multiply-and-sum idiom
        "q1_weights_shape_given_the_broadcast_singleton_axis": ("shape_axis_added",),
        # biased_variance on q2:test_score_variances (the only failure): "the variances are the biased ones (divided by n): use torch's default .var(), which divides by n - 1": the cause and the fix (drop correction=0); borderline: says "the variances" (plural) where only scaled_score_var is biased (the check is raw OR scaled), no value shown
        "q2_scaled_variance_taken_with_correction_zero": ("biased_variance",),
        # scale_by_T on q2:test_score_variances (the only failure): "scaled_score_var is 1.31983, what this mistake gives: scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of 1/sqrt(d_k)": exactly (len(Q[-1]) = 5 tokens); borderline: nothing says len of Q[-1] counts the last batch entry's rows (Q.shape[-1] meant)
        "q2_d_k_read_as_the_length_of_the_last_batch_entry": ("scale_by_T",),
        # gradient_cut on q5:test_gradients_float64 (the only failure; q3's forward tests pass, the values are right): "the gradients with respect to Q and K are wrong (the output is right): they equal those of a softmax whose sum is detached (.detach() ... on e.sum(...)) ... (detaching the max alone is harmless)": exactly the mistake and its fix
        "q3_denominator_detached_so_gradients_skip_the_normalisation": ("gradient_cut",),
        # triangle_flipped on all 4 failures (3 q4, q6:test_weights3_causal as the dependency's message): "the upper triangle of ones(11, 11) turned over (columns reversed, flip(1) or fliplr) ... the lower triangle is the upper one transposed, or simply .tril()": names fliplr and the fix, exactly
        "q4_triu_mirrored_left_right_with_fliplr_instead_of_transposed": ("triangle_flipped",),
        # inverted_mask on all 4 failures (3 q4, q6): "causal_mask(11) is True on the keys a query may not see: it matches treating True in the mask as 'blocked' instead of 'may attend'": exactly the effect (isinf of the bias is the future); borderline: nothing says isinf picks the -inf (blocked) entries, ~isinf / bias == 0 meant
        "q4_isinf_of_the_triu_bias_is_the_future": ("inverted_mask",),
        # softmax_wrong_dim on 6 q5 failures (3-D batch 2, or 4-D batch 3: len(scores) - 1 is the query axis): "it matches taking the softmax over the query dimension (dim=-2) instead of the keys (dim=-1)"; softmax_over_batch_axis on 5 (4-D batch 2: dim 1 is the head axis): "NaN or inf ...; with a mask that allows every key it matches taking the softmax over a batch or head axis (a fixed dim=0 or dim=1 ...) instead of the keys' axis, dim=-1": each true of its test's shapes (checked in q5.py), and dim=-1 is the fix; borderline: nothing says len(scores) is the batch size, not the rank (the axis moves with the batch size, the labels differ per test)
        "q5_softmax_axis_from_len_of_scores_not_its_rank": ("softmax_wrong_dim", "softmax_over_batch_axis"),
        # one_edit_fix on all 3 q6 failures: "right with one change on line 1 ...: `K3.shape[-1]` in place of `K3.numel()` (... 1 pass)", plus "divide by sqrt(d_k) = 2": the slip at its place, with the fix
        "q6_divisor_taken_from_the_number_of_key_entries": ("one_edit_fix",),
        # generic: q6:test_weights3_causal None, "weights3_causal should have shape (3, 3), got (6,)": says what differs, nothing says boolean indexing flattens the kept scores into one softmax (masked_fill with -inf in place meant)
        # now (after blind50: boolean_index_flattens_rows, one softmax over scores3[causal_mask(3)] replayed)
        "q6_causal_scores_picked_by_boolean_index_share_one_softmax": ("boolean_index_flattens_rows",),
        # answer_as_option_marks on q7:test_trap_answer (the only failure): "q_trap_answer is a dict of true/false marks, one per option, not a letter; it marks 'c' alone ...: write q_trap_answer = 'c'": exactly, with the fix (lower case 'c' is read as C by design, expect_choice upper()s)
        "q7_answer_given_as_a_dict_of_verdicts": ("answer_as_option_marks",),
        # one_edit_fix on q7:test_trap_answer (the only failure): "right with one change on line 2 ...: `_options[2]` in place of `_options[2:]` (... 1 pass)", plus "q_trap_answer is a tuple": the slip at its place, with the fix
        "q7_options_tuple_sliced_instead_of_indexed": ("one_edit_fix",),
        # generic: q8:test_score_madds None, "score_madds is not the number of multiply-adds of Q @ K.T (each entry is a dot product of length d_k)": says what differs in kind, neither the value (12582912 = 2^20 * 12) nor 2 * 6 for 2 ** 6
        # now (after blind50: power_typed_as_product, the cell's 2 * 6 rewritten as 2 ** 6 gives the right count)
        "q8_two_to_the_sixth_typed_as_two_times_six": ("power_typed_as_product",),
        # answer_in_one_more_container on q8:test_cost_ratio (the only failure): "cost_ratio is (4,), a 1-tuple holding the right number 4: ... a trailing comma (... cost_ratio = 4,) makes a 1-tuple ...; drop the trailing comma": exactly
        "q8_cost_ratio_made_a_tuple_by_a_trailing_comma": ("answer_in_one_more_container",),
    },
# wrong 14: named right 12 / partly 0 / generic 2 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind50 (frozen engine, /tmp/frozen50), judged from `measure attention-pipeline --set blind50 -v`
# (/tmp/measure50-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j50ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "ans_scale is 'a', the letter your code worked
        # out (`if _H_raw > _H_scaled + 0.5: ans_scale = 'a' ...`) ... (option A stands for thinking larger scores make the
        # softmax flatter ...) ... (look at its sign, max against min, ...)": quotes the branch, right in kind (as blind49's
        # probes) and "look at its sign" fits; borderline: nothing says the entropy helper lacks its leading minus
        "q03_experiment_entropy_helper_without_minus_sign": ("answer_computed_by_code",),
        # answer_value_not_letter: "ans_scale is ('b', 'They fall toward 0: ...), a tuple of 2 values, not a letter:
        # answering ... with a value (... what an option says ...) instead of the letter ... as a string such as "B"":
        # exactly the effect (the option's (letter, text) pair kept) and the fix; borderline: nothing says take [0]
        "q03_answer_taken_as_a_letter_text_pair": ("answer_value_not_letter",),
        # answer_computed_by_code: "ans_scale is 'c' ... (`if abs(_bits(_A_scaled) - _bits(_A_raw)) < 0.5: ans_scale = 'c'
        # ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied ...) ... (look at
        # ... the sizes it uses ...)": right in kind, "the sizes it uses" points at the probe; borderline: nothing says d_k
        # was read from Q.shape[0] (the 8 tokens, sqrt(8) for sqrt(512))
        "q03_experiment_scale_read_from_token_axis": ("answer_computed_by_code",),
        # answer_extra_characters: "ans_mask is 'c)': it has characters besides the letter, which seems to be 'c' ... the
        # answer must be the letter alone": exactly the mistake and its fix
        "q06_option_marker_parenthesis_copied": ("answer_extra_characters",),
        # lazy_iterator_answer: "ans_mask is (or returns) a filter object, not a value ... it holds no string or list until
        # it is consumed; take the value out of it (... next(iter(...)) for one item)": exactly the mistake and its fix
        "q06_filter_object_never_consumed": ("lazy_iterator_answer",),
        # mask_blocks_gradient: "ans_mask is not the best answer: that choice reflects thinking the mask is about
        # gradients: without it position t reads the token it is trained to predict": names and refutes D's belief, the
        # hedge's second letter that `and` records (the comment: "... and no gradient through the blocked entries"), and
        # points to C; accepted as blind41's q06_letters_joined_with_and and blind35's q5_answer_hedged_with_and_operator
        # (the same shape); borderline, closest to a mis-name in this set: nothing says `and` returns its last operand
        # (ans_mask is 'd') or that two letters were given (answer_hedged cannot fire: the value is one letter)
        "q06_hedge_with_and_keeps_last_letter": ("mask_blocks_gradient",),
        # answer_computed_by_code: "ans_cross_shapes is 'a' ... (`if _A.shape == (_T, _T): ans_cross_shapes = 'a' ...`) ...
        # (option A stands for taking the keys and values from X as well (that is self-attention, not cross-attention))":
        # exactly the mistake (the probe ran self_attention on X alone), right in kind
        "q14_experiment_runs_self_attention_on_x_only": ("answer_computed_by_code",),
        # answer_in_container: "ans_cross_causal is ['d'], a list holding a letter ... a slice ... keeps a tuple ... or
        # index instead of slicing": exactly the mistake ([-1:] for [-1]) and its fix
        "q15_options_sliced_instead_of_indexed": ("answer_in_container",),
        # answer_computed_by_code: "ans_cross_causal is 'a' ... (`ans_cross_causal = 'a' if torch.allclose(_A.sum(-1), ...`)
        # ... (option A stands for applying a causal mask in cross-attention, where queries and keys come from different
        # sequences)": quotes the faulty check, option A's belief told, right in kind; borderline: nothing says a rectangular
        # tril applying without error does not make it meaningful (no shared time axis)
        "q15_sdpa_rectangular_tril_read_as_always": ("answer_computed_by_code",),
        # answer_computed_by_code: "ans_complexity is 'b' ... (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}
        # [round(_ratio)]`) ... (option B stands for thinking the cost of the scores does not depend on T: there are T^2 of
        # them) ... (look at ... the sizes it uses ...)": right in kind, T named as the size to grow; borderline: nothing
        # says the probe doubled d_k instead of T
        "q16_experiment_varies_head_size_not_length": ("answer_computed_by_code",),
        # answer_computed_by_code: "ans_complexity is 'd' ... (`... [round(_exponent)]`) ... (option D stands for thinking
        # the scores cost T^3 like a matrix inverse: T^2 scores of d_k multiply-adds each)": right in kind, the T^2 * d_k
        # count given; borderline: nothing says log(cost)/log(T) at one point counts the constant d_k in the exponent
        "q16_exponent_from_one_point_log_ratio": ("answer_computed_by_code",),
        # dtype_mix on both failed q01 tests (float64, views): "your code raised RuntimeError: expected m1 and m2 to have the
        # same dtype ... mixing two dtypes in one operation: a tensor ... cast to another dtype meets the input's (float64,
        # float16) ... cast with .to(x.dtype)": exactly the mistake (.float() casts to float32) and its fix; q07/q09/q10/q13
        # not charged (no double charge)
        "q01_weights_cast_with_float_method": ("dtype_mix",),
        # not caught: 42/42; q10's dtype test asks float32 (and float64) only, where (A == 0).float() promotes nothing; the
        # float16 -> float32 promotion is never probed (a grader gap: no float16 input in q10)
        # now (after blind50: dtype_changed, a float16 case added inside test_entropy_causal_rows)
        "q10_zero_patch_with_float_promotes_half": ("dtype_changed",),
        # returns_tensor_not_number: "rank_S_lesson is a tensor of shape () holding the right number, not a Python int ...
        # call .item()": exactly the effect of sum() over a bool tensor, and the fix
        "q11_rank_counted_with_python_sum_over_bools": ("returns_tensor_not_number",),
    },
# wrong 14: named right 13 / partly 0 / generic 0 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
}


BLIND51_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind51 (frozen at f96b7da, after naming round 50, red-team rounds 55-60's first fixes and blind50's engine keys; measured
# at the bwrap level), judged by three helper sessions at first sight: scaled 12/14, sdpa 9/14 (2 MIS-NAMED), pipeline
# 12/14 (1 MIS-NAMED): 33/42
# blind51 (frozen engine, /tmp/frozen51), judged from `measure scaled-attention --set blind51 -v`
# (/tmp/measure51-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j51-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # wrong_scale_constant on all 5 failing q1 tests (float64 weights/output c = 1.732 at d_k 12, float32 square c = 2 at
        # d_k 16, non-contiguous, broadcast c = 1.118 at d_k 5): every c is sqrt(d_k)/2, i.e. the scores are twice too large,
        # exactly the effect of the dropped 1/2, and the numbers show it (as blind50's q1_quarter_power_scale_on_queries_only);
        # borderline: nothing names the cdist identity or its /2, and the broadcast text's "whatever the sizes (a second call ...
        # divides by it too)" is not literally true (c follows d_k: 2 at the first call's d_k 16, 1.118 at d_k 5); q8 not charged
        "q1_scores_from_cdist_identity_missing_half": ("wrong_scale_constant",),
        # attention_top_k on q1:test_float32_square (the only failure; the other q1 inputs have no weight under 1%): "matches
        # keeping only the k best-scoring keys ... (a top-k sparse attention ...) instead of the softmax over every key (here k =
        # 5 of the 6 keys: every other weight is exactly 0)": exactly the effect (zeroing the small weights and renormalising is
        # the softmax over the kept best keys) and the fix (softmax over every key); borderline: it reads as a fixed k, nothing
        # says a 0.01 threshold on the weights; q8 not charged
        # now (naming round 57: one_edit_fix (leave out the 0.01 threshold line): attention_top_k now needs a second call with tiny scores to stay top-k's, and a threshold on the weights prunes nothing there)
        "q1_small_weights_pruned_and_renormalised": ("attention_top_k", "one_edit_fix"),
        # generic: q4:test_entropy_table_lesson None, "does not match the correct result in 16 of 16 entries (largest
        # difference 9.62 ...)": says what differs, nothing says the reseed never ran (`if seed:` is false for seed=0)
        # now (after blind51: seed_zero_ignored (naming round 51))
        "q4_table_reseed_guarded_by_truthiness_of_seed": ("seed_zero_ignored",),
        # dtype_changed on q4:test_entropy_random_logits (the only failure): "has dtype torch.float32 for torch.float64 input;
        # its values are right: returning ... another dtype than the input's ... float64 in float64 out": exactly the mistake
        # (the cast to the default dtype) and its fix
        "q4_entropy_cast_to_default_dtype": ("dtype_changed",),
        # answer_computed_by_code: "'B', the letter your code worked out (`q5_answer = min(_exponents5, ...`) ... (option B
        # stands for confusing the standard deviation sqrt(d_k) of q.k with its variance d_k) ... what it measures or compares is
        # not what the question asks": right in kind (as blind48-50's q5 probes); borderline: nothing names ln over log2
        "q5_answer_loglog_slope_natural_log_over_log2": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _growth5))`) ... (look at
        # ... the sizes it uses ...)": quotes the very comparison at fault (a ratio against option values at d_k 16), right in
        # kind; borderline: nothing says a growth ratio is not an option value
        "q5_answer_growth_ratio_matched_to_option_values": ("answer_computed_by_code",),
        # answer_hedged on q5:test_q5_answer: "'CD', 2 letters run together (written so, or two strings with no comma ...):
        # giving several letters ... where one choice is asked: ... give its letter alone": exactly the effect (two letters
        # where one is asked) and what to make it; borderline, closest to a mis-name in this set: the causes it offers (written
        # so, implicit string joining, a hedge) are not the slice [2:] for the index [2], and nothing says slice
        "q5_answer_slice_to_end_not_index": ("answer_hedged",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if torch.allclose(_out6.sum(dim=-1), torch.ones(5),...`) ... what
        # it measures or compares is not what the question asks": quotes the faulty check, right in kind (as blind50's q6
        # checks); borderline: nothing says it is the weights, not the output rows, that sum to 1
        "q6_answer_check_output_rows_sum_to_one": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if bool((_W6.sum(dim=-1) == 1).all()) else 'C'`) ... (look at
        # ... the branch each outcome takes)": quotes the exact-== check, right in kind; borderline: nothing says float32 sums
        # are 1 only up to rounding (allclose meant), as answer_computed_wrong_choice's "a float == never holds" would
        "q6_answer_check_weight_row_sums_exactly_one": ("answer_computed_by_code",),
        # answer_extra_characters: "'$A$': it has characters besides the letter, which seems to be 'A' ... the answer must be
        # the letter alone": exactly the mistake and its fix
        "q6_answer_latex_dollar_signs": ("answer_extra_characters",),
        # generic: q7:test_q7_answer None, "q7_answer is 'I': it should be one letter as a string: "A", "B", "C", "D"": shows
        # the wrong value and what is wanted; nothing says 'I' is the first character of the option's text ('It scores ...')
        # now (after blind51: answer_first_char_of_option (naming round 51))
        "q7_answer_first_character_of_option_text": ("answer_first_char_of_option",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if bool((_used7 <= 1).all()) else 'D'`) ... (option C stands for
        # ... a hard argmax ...) ... what it measures ... is not what the question asks": quotes the probe's branch, right in
        # kind; borderline: nothing says a weight > 0.5 can hold for at most one key per row
        "q7_answer_keys_used_counted_as_weights_above_half": ("answer_computed_by_code",),
        # answer_value_not_letter: "q7_answer is 3, a number your code worked out (`q7_answer = next((i for i, t in
        # enumerate(...`), not a letter ... the letter of the option ... as a string": exactly the mistake (an index for a
        # letter) and its fix; borderline: 'ABCD'[i] not shown
        "q7_answer_next_enumerate_gives_index": ("answer_value_not_letter",),
        # answer_value_not_letter: "('D', ' ', '- the soft, differentiable lookup'), a tuple of 3 values, not a letter ...":
        # the effect (a tuple where the letter is asked) with the letter visible in it, accepted as blind50's
        # q03_answer_taken_as_a_letter_text_pair; borderline: nothing says str.partition returns a 3-tuple or take [0]
        "q7_answer_partition_without_index_gives_tuple": ("answer_value_not_letter",),
    },
# wrong 14: named right 12 / partly 0 / generic 2 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind51 (frozen engine, /tmp/frozen51), judged from `measure sdpa-from-scratch --set blind51 -v`
# (/tmp/measure51-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j51-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # shape_axis_added on q1:test_out_shape (the only failure): "out_shape is (4, 10, 1, 128): the right shape (4, 10, 128) with one more axis of size 1: adding an axis the question does not have ...": exactly the effect and what to drop (as blind50's q1_weights_shape_given_the_broadcast_singleton_axis); borderline: nothing says keepdim=True kept the summed key axis, the stock example (a heads axis) does not fit
        "q1_out_probe_summed_over_keys_with_keepdim_left_on": ("shape_axis_added",),
        # generic: both q1 failures None, "weights_shape is (2, 5, 5), not the shape of the attention-weight matrix: it has one entry per (query, key) pair" / "out_shape is (2, 5, 8), not the shape of the attention output": says what differs, nothing says these are the notebook's running example (batch 2, 5 tokens, width 8) instead of the question's (4, 10, 64) / (4, 10, 128) tensors
        # now (after blind51: shape_of_running_example (naming round 51))
        "q1_shapes_answered_for_the_notebooks_running_example": ("shape_of_running_example",),
        # shape_axis_added on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 1, 10): the right shape (4, 10, 10) with one more axis of size 1 ...": exactly the effect; borderline: nothing says unsqueeze(2) made each query a (1, 64) row matrix, the stock example (a heads axis) does not fit
        "q1_weights_probe_from_unsqueezed_matmul_keeps_a_singleton_axis": ("shape_axis_added",),
        # not caught: 35/35; hidden q2.test_scale_divisor reads the value with expect_number, so the int 8 from math.isqrt(64) equals 8.0 and passes (a leniency: d_k = 64 is a perfect square, so isqrt's truncation is never probed); the int-for-float is not flagged
        "q2_scale_divisor_from_math_isqrt_is_an_int": (),
        # MIS-NAMED: one_edit_fix on 3 failures is right (q3:test_minus_inf_entries: "right with one change on line 3 ...: `x.size(dim)` in place of `x.size(dim) - 1`", and q5:test_causal_rectangular / q6:test_weights3_causal as the dependency's message quoting it), but q5:test_float16_large_scores says global_max_subtraction: "it matches subtracting one maximum over the whole tensor instead of each row's own: rows far below it underflow to 0 / 0 (NaN)" -- the code shifts each row by its own kthvalue (dim=dim, keepdim=True); the NaN in the shown case (mask row [1, 0]) comes from kthvalue(1) picking the -inf entry (-inf - -inf), not from a global max: a student would look for a whole-tensor max that is not there
        # now (after blind51: shift_not_row_max on the float16 test, global_max_subtraction needs its replay (naming round 51))
        "q3_shift_by_kthvalue_off_by_one_is_the_second_largest": ("one_edit_fix", "shift_not_row_max"),
        # causal_bottom_right on both failures (q4 test_more_queries_than_keys, test_more_keys_than_queries): "causal_mask(9, 6) is wrong: it matches a causal mask aligned at the bottom-right instead of the top-left": exactly the variant's stated effect; borderline: nothing says flip(0, 1) of triu is only the lower triangle for squares (tril meant); q5/q6 not charged (square masks there)
        "q4_triu_flipped_on_both_axes_is_bottom_right_on_rectangles": ("causal_bottom_right",),
        # one_edit_fix on both q4 failures: "right with one change on line 5 ...: `torch.ones(T_q, T_k, dtype=torch.bool)` in place of `torch.ones(T_k, T_q, dtype=torch.bool)`": the slip at its place with the fix ("build it (T_q, T_k) directly"); borderline: nothing says reshape re-cuts entries rather than transposing
        "q4_keys_by_queries_triangle_reshaped_not_transposed": ("one_edit_fix",),
        # MIS-NAMED: one_edit_fix on 9 q5 failures: "right with one change on line 15 ... (`return out.to(Q.dtype)`): `out` in place of `Q`" -- blames the cast back, not the float16 product (`weights.half() @ V.half()`); its "fix" returns the float16 output uncast and grades 21/35 (worse than 22/35: every q5 test then fails dtype_changed), so the student is sent to break the right line; q5:test_gradients_float64 None (generic: "does not match ... largest difference 0.00152"); nothing names half precision
        # now (after blind51: float16_precision on every q5 test, every entry a float16 number)
        "q5_weights_and_values_multiplied_in_float16_to_save_memory": ("float16_precision",),
        # inverted_mask on q6:test_weights3_causal (the only failure): "weights3_causal is wrong: it matches treating True in the mask as 'blocked' instead of 'may attend'": exactly (~causal_mask(3) handed to SDPA, whose True means may attend), the fix is to pass causal_mask(3) itself; borderline: nothing says SDPA's convention is the inverse of nn.MultiheadAttention's
        "q6_causal_weights_from_sdpa_given_the_multihead_attention_mask_convention": ("inverted_mask",),
        # inverted_mask on q6:test_weights3_causal (the only failure): same message; masked_fill(causal_mask(3), -inf) treats True as blocked: exactly the effect, fix ~causal_mask(3); borderline: nothing says masked_fill fills where its mask is True, no NaN row mentioned
        "q6_causal_mask_given_to_masked_fill_without_inverting": ("inverted_mask",),
        # zero_after_softmax on q7:test_trap_answer (the only failure): "q_trap_answer is not the best answer: that choice reflects zeroing masked weights after the softmax: rows no longer sum to 1": names and refutes D's belief, the hedge's second letter that `and` records (the comment: "C, though D is close"); accepted as blind35's q5_answer_hedged_with_and_operator, blind41's q06_letters_joined_with_and and blind50's q06_hedge_with_and_keeps_last_letter (the same shape); borderline, closest to a mis-name among those kept: nothing says `and` returns its last operand (the value is 'D') or that one letter is asked
        "q7_two_letters_joined_with_and_evaluate_to_the_second": ("zero_after_softmax",),
        # not caught: 35/35; hidden q7 reads the letter as value.strip().strip("()").strip().upper() (q7.py:28), so " C" is taken as "C" by design: a defensible leniency (as blind50 scaled-attention's q5_answer_trailing_space_pasted), but the stated mistake is not flagged
        "q7_letter_split_from_a_comma_list_keeps_its_leading_space": (),
        # shape_for_number on q8:test_score_madds (the only failure): "score_madds is (67, 108, 864), 3 whole numbers where one is asked ... (a shape ..., or the parts of a count) ...: give the one number": shows the tuple and the fix in kind (one number); borderline: nothing says commas are not thousands separators (67_108_864), and its "if they are a shape, its count of entries is 6251904" / math.prod advice would mislead if followed
        "q8_madds_typed_with_thousands_separators_is_a_tuple": ("shape_for_number",),
        # float_for_int on q8:test_cost_ratio (the only failure): "cost_ratio is 4.0, a float: giving a float (math.pow, / or a float literal ...) where a whole number, a Python int, is asked: use ** and // on ints ..., or int(...) around the result": exactly the effect, and the cell's `/` is the float's source; borderline: nothing says np.round keeps a (NumPy) float
        "q8_ratio_rounded_with_np_round_stays_a_numpy_float": ("float_for_int",),
    },
# wrong 14: named right 9 / partly 0 / generic 1 / raw 0 / mis-named 2 / not caught 2; correct at full marks 5/5
# blind51 (frozen engine, /tmp/frozen51), judged from `measure attention-pipeline --set blind51 -v`
# (/tmp/measure51-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j51-ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # answer_in_container on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is array('b', dtype='<U1'), a NumPy array holding a letter (take it out: ans_cross_shapes = str(arr.item()))": exactly the mistake and its fix; borderline: the stock tail that follows (trailing comma, tuple, slice, braces) does not fit a 0-dim array
        "q14_letter_as_zero_dim_numpy_array": ("answer_in_container",),
        # answer_computed_by_code on q14:test_ans_cross_shapes: "'c', the letter your code worked out (`if _S.shape == (_T, _T): ans_cross_shapes = 'a' elif ...`) ... (option C stands for taking queries from Y or keys/values from X) ... (look at ... the sizes it uses ...)": quotes the shape test, right in kind (as blind50's q03 probes), and a T' x T S is exactly what swapped roles would give; borderline: nothing says Q[None] * K[:, None] puts the keys on the first axis (Q[:, None] * K[None] meant)
        "q14_experiment_broadcast_outer_product_axes_swapped": ("answer_computed_by_code",),
        # answer_value_not_letter on q15:test_ans_cross_causal: "ans_cross_causal is 3, a number your code worked out (`ans_cross_causal = _options.find('d')`), not a letter ... instead of the letter of the option ... as a string such as "B"": exactly the effect (str.find's position) and the fix
        "q15_option_position_from_str_find": ("answer_value_not_letter",),
        # answer_computed_by_code (its not-a-letter branch) on q15:test_ans_cross_causal: "ans_cross_causal is '* **d', not a letter: your code worked it out (`... line.split(')')[0] ...`) ... decide the option and assign its letter as a string": quotes the parsing line and its value, and assigning "d" fixes it (as blind49's q6_answer_lstrip_prefix_eats_letter); borderline: the stock "when the code picks a wrong option" is untrue here (d is the right option, only the bullet and bold markers stay), answer_extra_characters ("characters besides the letter, which seems to be 'd'") would be exact
        "q15_letter_parsed_from_markdown_option_source": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale: "'c', the letter your code worked out (`if abs(_bits(_A_raw) - _bits(_A_scaled)) < 0.5: ans_scale = 'c' ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied ...) ... what it measures or compares is not what the question asks": quotes the probe's branch, right in kind (as blind50's q03_experiment_scale_read_from_token_axis); borderline: nothing says Categorical(logits=A) softmaxes the weights a second time (probs=A meant)
        "q03_experiment_categorical_with_weights_as_logits": ("answer_computed_by_code",),
        # answer_extra_characters on q03:test_ans_scale: "ans_scale is '`b`': it has characters besides the letter, which seems to be 'b' ... the answer must be the letter alone": exactly (the backticks) and the fix
        "q03_letter_copied_with_markdown_backticks": ("answer_extra_characters",),
        # answer_annotated_not_assigned on q06:test_ans_mask: "`ans_mask` is not defined: the notebook has `ans_mask: 'c'`, an annotation ... a colon makes a type annotation, which binds nothing": exactly the mistake and its fix
        "q06_annotation_colon_instead_of_assignment": ("answer_annotated_not_assigned",),
        # answer_computed_by_code on q06:test_ans_mask: "'d', the letter your code worked out (`for ans_mask in 'abcd': if _true[ans_mask]: continue`) ... (option D stands for thinking the mask is about gradients ...) ... a search over the options ... the branch each outcome takes": quotes the loop with its continue, right in kind (a search that lands on a wrong option); borderline: nothing says continue does not stop the loop (break meant), and D's stated belief is not the student's
        "q06_option_loop_continue_instead_of_break": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity: "'d', the letter your code worked out (`ans_complexity = {1.0: 'b', 2.0: 'a', 4.0: 'c'}.get(_ratio, 'd')`) ... (look at ... the sizes it uses ...)": quotes the doubling table and its fallback, right in kind, and "the sizes it uses" fits (192 / 64 is a tripling); borderline: nothing says the ratio is 9, not 4
        "q16_experiment_triples_length_with_doubling_table": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity: "'d', the letter your code worked out (`if _r == 1: ans_complexity = 'b' elif _r == 2: ...`) ... (option D stands for thinking the scores cost T^3 ...)": quotes the branch, right in kind (as blind50's probes); borderline: nothing says the float16 sum of 256 x 256 ones overflows to inf (the ratio is inf)
        "q16_score_count_summed_in_half_overflows": ("answer_computed_by_code",),
        # MIS-NAMED: one_edit_fix on q11:test_rank_S_lesson (the only failure): "right with one change on line 5 (`rank_S_lesson = int(torch.linalg.matrix_rank(_Q * _K / math.sqrt(4)))`): `_Q` in place of `_Q * _K`": the place is right but the fix shown drops K, so it takes the rank of Q / 2, which is 2 only by coincidence (Q spans 2 dims), not of S = Q K^T / 2; the student is sent to delete K instead of writing _Q @ _K.mT (as blind38/blind39/blind49's q11 one-edit fixes); the appended keyless "try torch.linalg.matrix_rank on the lesson's S" is right but generic and second
        # now (after blind51: elementwise_product (naming round 51))
        "q11_lesson_scores_with_elementwise_star": ("elementwise_product",),
        # generic: q09:test_prefix_average_matrix None, "W_avg does not match the correct result in 40 of 81 entries ... each row holds the right values in another order (a permutation of the last axis)": says what differs (true only loosely: row t holds t entries 1/t on the last t columns), nothing names flip(0) for a transpose / tril; q10 not charged
        # now (after blind51: prefix_average_triangle_flipped (naming round 51))
        "q09_triangle_flipped_instead_of_transposed": ("prefix_average_triangle_flipped",),
        # param_count_wo_ignored on q12:test_count_with_output (the only failure): "with_output=True gives 38688, the count without W_O, and with_output=False gives it too (right there): leaving W_O out when with_output=True: its d_v x d_model term is never added (... the flag is not read ...)": exactly the effect, and "the flag is not read" points at the if; borderline: nothing says with_output == "True" is never true for the bool True (if with_output: meant)
        "q12_output_flag_compared_with_string_true": ("param_count_wo_ignored",),
        # one_edit_fix on all 3 q08 failures (random, is_attention_row, views): "right with one change on line 3 (`weights = torch.softmax(scores, dim=-1)`): `-2` in place of `-1` -- or -- `0` in place of `-1` ...": the slip at its place with the fix (softmax over the T axis of the (T, 1) column), checked on the inputs; borderline: nothing says a size-1 axis makes every weight 1, and the third alternative (line 2's q.shape[-1] plus the other place) is noise
        "q08_softmax_over_singleton_column_axis": ("one_edit_fix",),
    },
# wrong 14: named right 12 / partly 0 / generic 1 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
}


BLIND52_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind52 (frozen at 425e209, after red-team round 61 and the scaled q2 cost cut; measured at the bwrap level),
# judged by three helper sessions at first sight: scaled 12/14, sdpa 8/14 (2 MIS-NAMED), pipeline 13/14: 33/42
# blind52 (frozen engine, /tmp/frozen52), judged from `measure scaled-attention --set blind52 -v`
# (/tmp/measure52-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j52-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # scores_negated on all 5 failing q1 tests (float64 weights/output, float32 square, non-contiguous, broadcast): "matches negating the scores before the softmax (softmax(-Q K^T / sqrt(d_k)) ...): the key that matches worst gets the most weight": exactly the effect (row max minus score is -S plus a per-row constant, which the softmax drops) and the smallest-case weights show the rows turned round; borderline: nothing names the DANet max-minus-energy line or says subtract the max FROM the scores; q8 not charged
        "q1_danet_row_max_minus_energy_before_softmax": ("scores_negated",),
        # one_edit_fix on all 4 failing q1 tests: "right with one change on line 8 (`return weights @ V_unit, weights`): `V` in place of `V_unit` (checked on all 4 inputs)": the slip at its place with the exact fix (mix the raw values); borderline: nothing says F.normalize changed the value rows; q8 not charged
        "q1_value_rows_unit_normalised_before_mix": ("one_edit_fix",),
        # one_edit_fix on both q2 failures: "right with one change on line 4 (`q = torch.randn(...) * 2 - 1 ...`): `torch.randn(...) * (2 - 1)` in place of `torch.randn(...) * 2 - 1` (and the same in its 1 other place) (... 3 pass)": points at the very rescaling on both draws and the fix works (times 1, i.e. drop `* 2 - 1`); borderline, closest to a mis-name in this set: the shown form reads like an operator-precedence slip, nothing says randn is already N(0, 1) or that the rand idiom gives mean -1, variance 4
        # now (naming round 52: normals_rescaled_as_uniform, replayed on the seeded generator)
        "q2_randn_rescaled_with_uniform_two_x_minus_one_idiom": ("one_edit_fix", "normals_rescaled_as_uniform"),
        # generic: both q4 failures None, "the entropy table ... does not match ... in 4 of 16 entries (largest difference 1.3 at index (3, 1) ...): the wrong entries all lie at index 1 of the last axis (size 4), the rest is right": says what differs (the scaled_std column only), nothing says raw_std / d is not the std of the scaled scores (sqrt(d), or measure scaled.std())
        # now (naming round 52: table_scaled_std_from_raw_std, the scaled_std column replayed as raw_std / d)
        "q4_table_scaled_std_as_raw_std_divided_by_d": ("table_scaled_std_from_raw_std",),
        # enum_member_answer on q5:test_q5_answer: "a member of the Enum _Growth5, not its value ... Choice.C.name is the member's name": exactly the mistake and its fix (.name)
        "q5_answer_enum_member_not_string": ("enum_member_answer",),
        # answer_computed_by_code: "'D', the letter your code worked out (`q5_answer = min(_growth5, key=lambda s: abs(math.log(...`) ... (option D stands for squaring d_k ...) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (as blind48-51's q5 probes); borderline: nothing says the probe multiplies coordinate sums instead of summing products
        "q5_answer_probe_product_of_coordinate_sums": ("answer_computed_by_code",),
        # answer_computed_by_code: "'A' ... (`q5_answer = 'A' if 'scaled' else 'C'`) ... (option A stands for giving the variance of the scaled dot product (1) for the raw one ...) ... (look at ... the branch each outcome takes)": quotes the whole condition, and A's belief is the branch taken; borderline: nothing says a non-empty string literal is always true
        "q5_answer_condition_on_string_literal": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D' ... (`q6_answer = sorted(_confidence6, key=_confidence6.get)[0]`) ... (look at its sign, max against min ...)": quotes the faulty line, and "max against min" is the very slip; borderline: nothing says sorted is ascending (reverse=True or [-1])
        "q6_answer_confidence_sorted_ascending_first_taken": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if _is_average6 else 'C'`) ... what it measures or compares is not what the question asks": quotes the check's branch, right in kind (as blind50/51's q6 checks); borderline: nothing says lstsq on 6 tokens in 4 features gives the min-norm solution, not the softmax weights
        "q6_answer_lstsq_weights_of_underdetermined_probe": ("answer_computed_by_code",),
        # generic: q7:test_q7_answer None, "q7_answer is 'E': it should be one letter as a string: "A", "B", "C", "D"": shows the wrong value and the options, nothing says chr(ord("A") + 4) is one past the last option (+ 3 meant); answer_by_position did not fire (E is no option)
        # now (naming round 52: answer_letter_past_last_option, 'E' counted out of constants)
        "q7_answer_last_letter_as_a_plus_option_count": ("answer_letter_past_last_option",),
        # answer_computed_by_code: "'A' ... (`q7_answer = next((c for c, text in _options7.items() if any((w in t...`) ... (option A stands for ... a hard argmax ...) ... a search over the options": quotes the search, right in kind; borderline: nothing says iterating the keyword string gives characters (.split() meant), and A's stated belief is not the student's
        "q7_answer_keyword_search_iterates_characters": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if 'soft' in _note7 else 'C'`) ... (look at ... the branch each outcome takes)": quotes the test whose branch is wrong, right in kind; borderline: nothing says `in` is case-sensitive ('Soft'), and C's stated belief (hard argmax) is not the student's
        "q7_answer_case_sensitive_keyword_test": ("answer_computed_by_code",),
        # one_edit_fix on all 3 q8 failures: "right with one change on line 8 (`start, end = h * d_k, (h + 1) * d_k`): `d_k` in place of `(h + 1) * d_k` -- or -- ... `Q.narrow(1, start, d_k)` ... in place of `Q.narrow(1, start, end)` ... on line 9", then "your code raised RuntimeError: start (24) + length (36) exceeds dimension size (48)": the slip at its place, the third alternative is the clean fix (a length, not an end) and the raw error says narrow's argument is a length
        "q8_head_columns_by_narrow_given_end_not_length": ("one_edit_fix",),
        # mha_strided_heads on all 3 q8 failures: "matches giving head h the strided columns h, h + n_heads, ... (a view(T, d_k, n_heads) split) instead of the block h * d_k to (h + 1) * d_k": exactly the mistake (unflatten(1, (d_k, n_heads)) is that view) and the fix
        "q8_heads_unflattened_with_head_axis_minor": ("mha_strided_heads",),
    },
# wrong 14: named right 12 / partly 0 / generic 2 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind52 (frozen engine, /tmp/frozen52), judged from `measure sdpa-from-scratch --set blind52 -v`
# (/tmp/measure52-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j52-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # batch_axis_repeated on q1:test_weights_shape (the only failure): "weights_shape is (4, 10, 4, 10): the right shape (4, 10, 10) with the batch size 4 repeated at axis 2: writing the batch axis twice (Q's and K's leading shapes glued together ...): Q and K share one batch axis": exactly what torch.inner does on 3-D tensors (every leading index of Q with every leading index of K) and the fix; borderline: nothing names torch.inner / np.inner not batching
        "q1_weights_probe_with_torch_inner_pairs_every_batch_with_every_batch": ("batch_axis_repeated",),
        # answer_name_misspelled on q1:test_out_shape (the only failure): "`out_shape` is not defined, and the notebook binds `output_shape`: ... a name spelt differently from the one asked": exactly the mistake and its fix
        "q1_out_shape_stored_under_the_name_output_shape": ("answer_name_misspelled",),
        # one_edit_fix on q2:test_score_variances (the only failure): "right with one change on line 4 ... (`scaled_score_var = (raw_scores // math.sqrt(d_k)).var().item()`): `raw_scores / math.sqrt(d_k)` in place of `raw_scores // math.sqrt(d_k)` (checked ...: 1 pass)": the slip at its place with the fix; borderline: nothing says // floors float tensors too
        "q2_scaled_scores_floor_divided_by_root_d_k": ("one_edit_fix",),
        # number_of_another_type on q2:test_scale_divisor (the only failure): "scale_divisor is (or returns) a Decimal, not a Python int or float ... convert it, ... float(x) for a ratio": exactly the mistake and its fix
        "q2_scale_divisor_as_an_exact_decimal": ("number_of_another_type",),
        # MIS-NAMED (borderline): dtype_changed on q5:test_bfloat16 (the only failure; q3 has no bfloat16 softmax test, so the float16 returned for bfloat16 input is not charged at q3): "your code raised RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::Half != c10::BFloat16 for bfloat16 inputs; the same values in float32 run and are right: some step converts to float32 (.float(), a float32 tensor) and meets the input's dtype; keep the input's dtype" -- the key's kind (output dtype not the input's) fits and "keep the input's dtype" is the fix in kind, but the cause it states is false: nothing float32 meets the bfloat16 values (the raw error itself says Half); the fault is the cast back with .half() in stable_softmax (.to(x.dtype) meant), and the message points the student at the `.float()`, which is the right step (the correct variant works in float32 too); nothing names float16 for bfloat16 or stable_softmax
        # now (naming round 52: dtype_changed's message now names the cast to float16 (the error pairs bfloat16 with float16))
        "q3_half_types_cast_back_with_half_so_bfloat16_comes_back_float16": ("dtype_changed",),
        # generic: q4:test_more_keys_than_queries None (the only failure), "causal_mask(4, 9) is not the causal mask (True where key j <= query i): it differs in 20 entries, the first at [0, 4]": says what differs and where (the first extra key column), nothing says the extra key columns were padded with True; q5/q6 not charged
        # now (naming round 52: causal_extra_keys_visible, exact mask replay)
        "q4_square_triangle_padded_with_true_for_the_extra_keys": ("causal_extra_keys_visible",),
        # MIS-NAMED: fixed_axes on all 7 q5 failures: "the float64 output (d_k = 12) has shape (2, 2, 6, 5) on 3-D inputs; one 2-D slice of the same values runs and gives the right result: K.T or a fixed axis reverses or picks the wrong dims of batched inputs; use K.transpose(-2, -1)" -- the shape (B, B, T_q, d_v) is the effect, but the cause and fix blamed are the key transpose, and the code already uses K.transpose(-2, -1); the fault is the mask.unsqueeze(1) for 3-D masks (a mask is broadcast from the right as it is): the student is sent to fix a line that is right; q5:test_gradients_float64 is raw-with-the-same-tail ("your code raised RuntimeError: Mismatch in shape ..."); nothing names the mask (the catalogue's mask_unsqueezed, "your code reshapes the mask for one shape only", would fit)
        # now (naming round 52: mask_unsqueezed replayed (mask.unsqueeze(d) on the reference); fixed_axes asks the unmasked call to go wrong too)
        "q5_three_d_mask_unsqueezed_at_dim_1_for_a_heads_axis": ("mask_unsqueezed",),
        # weights_not_normalised on q6:test_weights3 (the only failure): "weights3 is wrong: each row is the right weights times its own factor (the rows sum to between 100 and 100, not 1): ... rows do not sum to 1": exactly the effect (right weights scaled so rows sum to 100) in words a student can act on (drop the 100 *); borderline, close to a mis-name: the stock cause "using exp(scores) as weights without dividing by the row sum" is not this code's (it did divide, then scaled to percent), and "between 100 and 100" reads oddly
        "q6_unmasked_weights_given_in_percent": ("weights_not_normalised",),
        # generic: q6:test_weights3_causal None (the only failure), "weights3_causal is not correct in row(s) [0, 1]: each row holds the right values in another order (a permutation of the last axis) (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": says what differs (the right values shifted along the key axis), nothing says F.pad's (2 - i, 0) pads on the left
        # now (naming round 52: causal_weights_padded_left, exact replay)
        "q6_causal_prefix_softmaxes_padded_on_the_left": ("causal_weights_padded_left",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'A' if _same else 'C'`) ... (option A stands for zeroing masked weights after the softmax: rows no longer sum to 1) ... what it measures or compares is not what the question asks": right in kind (a check that compares the wrong things lands on A), as blind50/51's probes; borderline: it quotes the branch, not the line at fault (`torch.allclose(_shortcut, _shortcut)`), nothing says the shortcut is compared with itself
        "q7_check_compares_the_shortcut_with_itself": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'C' if _ref_sums_to_one and (not _short_sums_to_one...`) ... compare what each approach does to the sum of a row's weights ... (look at ... the branch each outcome takes)": quotes the check at fault, right in kind (as blind51's q6_answer_check_weight_row_sums_exactly_one); borderline: nothing says float32 row sums equal 1 only up to rounding (a tolerance meant)
        "q7_row_sums_checked_with_exact_float_equality": ("answer_computed_by_code",),
        # generic: q8:test_attn_entries None (the only failure), "attn_entries is 4, not the number of entries of the weight matrix (one per query-key pair)": says what differs, nothing says element_size() is bytes per entry (numel() meant)
        # now (naming round 52: entries_from_element_size, the value and the cell's element_size)
        "q8_entries_from_element_size_is_bytes_per_entry": ("entries_from_element_size",),
        # generic: q8:test_score_madds None (the only failure), "score_madds is 1,073,741,824, not the number of multiply-adds of Q @ K.T (each entry is a dot product of length d_k)": says what differs with a useful hint (T * T entries of length d_k), but no key: nothing says the n**3 rule is for square n x n products
        # now (naming round 52: madds_n_cubed_rule, exact T**3)
        "q8_madds_from_the_n_cubed_rule_for_square_matrices": ("madds_n_cubed_rule",),
        # shape_for_number on q8:test_cost_ratio (the only failure): "cost_ratio is (4, 0), 2 whole numbers where one is asked ... give the one number": the effect (a tuple where one number is asked) with the 4 visible, accepted as blind51's q8_madds_typed_with_thousands_separators_is_a_tuple; borderline: nothing says divmod returns (quotient, remainder) (// meant), and its "if they are a shape, its count of entries is 0" / math.prod advice would give 0 if followed
        "q8_ratio_from_divmod_is_a_tuple": ("shape_for_number",),
    },
# wrong 14: named right 8 / partly 0 / generic 4 / raw 0 / mis-named 2 / not caught 0; correct at full marks 5/5
# blind52 (frozen engine, /tmp/frozen52), judged from `measure attention-pipeline --set blind52 -v`
# (/tmp/measure52-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j52-ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # answer_from_none_call on q14:test_ans_cross_shapes (the only failure): "`ans_cross_shapes` is None: the notebook has `ans_cross_shapes = print('b')`, and `print(...)` returns None ... assign the value itself, and print it on a line of its own": exactly the mistake, its line and its fix
        "q14_answer_assigned_from_print_returns_none": ("answer_from_none_call",),
        # answer_computed_by_code on q14:test_ans_cross_shapes: "'c', the letter your code worked out (`ans_cross_shapes = next((k for k, v in _shapes.items() if v == (tup...`) ... (option C stands for taking queries from Y or keys/values from X in cross-attention)": the option's stated cause is exactly this experiment's slip (_Q from _Y, _K/_V from _X), right in kind (as blind51's q14 probe); borderline: the quoted line is the lookup, not the `_Q, _K, _V = _Y @ ..., _X @ ...` line at fault
        "q14_experiment_queries_from_y_keys_values_from_x": ("answer_computed_by_code",),
        # answer_in_container on q15:test_ans_cross_causal: "array(['d'], dtype='<U1'), a NumPy array holding a letter (take it out: ans_cross_causal = str(arr.item()))": exactly the effect of boolean indexing and a working fix (as blind51's q14_letter_as_zero_dim_numpy_array); borderline: the stock tail (trailing comma, slice, braces) does not fit, nothing says boolean indexing returns an array
        "q15_letter_picked_by_numpy_boolean_mask_stays_array": ("answer_in_container",),
        # answer_in_container on q15:test_ans_cross_causal: "ans_cross_causal is ['d'], a list holding a letter ... where the answer is the value itself": exactly the effect (split() gives a list), a student can act on it; borderline: the fixes offered (drop the comma/brackets/braces, index instead of slicing) do not name split() -> strip()
        "q15_whitespace_removed_with_split_gives_list": ("answer_in_container",),
        # answer_computed_by_code on q03:test_ans_scale: "'a', the letter your code worked out (`if _H_raw < _H_scaled - 0.5: ans_scale = 'b' elif _H_raw > _H_scale...`) ... (option A stands for thinking larger scores make the softmax flatter ...) ... (look at its sign, max against min, ... the branch each outcome takes)": quotes the comparison whose operands are swapped, right in kind (as blind50/51's q03 probes), told as the code's pick, not the student's belief; borderline: nothing says the two entropies are unpacked in swapped order
        "q03_experiment_unpacks_entropies_in_swapped_order": ("answer_computed_by_code",),
        # answer_extra_characters on q03:test_ans_scale: "ans_scale is 'option b': it has characters besides the letter, which seems to be 'b' ... the answer must be the letter alone": exactly the mistake and its fix
        "q03_answer_written_as_option_b": ("answer_extra_characters",),
        # answer_left_empty on q06:test_ans_mask: "`ans_mask` is not answered yet: replace the `...` with your answer and run the cell": exactly the mistake (the template's Ellipsis) and its fix
        "q06_answer_left_as_template_ellipsis": ("answer_left_empty",),
        # answer_in_words on q06:test_ans_mask: "'Position t can read token t+1, ...', words and no letter: writing words (an option's text ...) where the question asks for the option's letter": exactly the mistake and its fix
        "q06_option_sentence_instead_of_letter": ("answer_in_words",),
        # answer_computed_by_code on q16:test_ans_complexity: "'b', the letter your code worked out (`if abs(_ratio - 2) < 0.5: ans_complexity = 'a' elif abs(_ratio - 4)...`) ... (option B stands for thinking the cost of the scores does not depend on T ...) ... (look at ... the sizes it uses ...)": right in kind (as blind51's q16_score_count_summed_in_half_overflows); borderline: the quoted line is the branch, not `T ^ 2 * d_k`, nothing says ^ is XOR (** meant) or that the ratio is ~0.3
        # now (naming round 52: caret_is_xor, the cell replayed as arithmetic with ** for ^ gives the right letter)
        "q16_cost_formula_with_caret_xor": ("answer_computed_by_code", "caret_is_xor"),
        # answer_value_not_letter on q16:test_ans_complexity: "ans_complexity is 2, a number, not a letter: answering ... with a value ... instead of the letter of the option that says it, as a string such as "B"": exactly the mistake and its fix
        "q16_answer_given_as_exponent": ("answer_value_not_letter",),
        # inplace_on_input on q01:test_project_float64 (the only failure): "project_qkv modifies its input in place (argument 0 is not the same after the call) ... compute a new tensor instead (... masked_fill, not masked_fill_)": exactly the in-place unsqueeze_ and its fix in kind; borderline: nothing says the output gains a leading size-1 axis for 2-D input -- probed: the out-of-place X = X.unsqueeze(0) then fails the same test with size_one_axes_added ("Q has shape (1, 7, 12), expected (7, 12) ... an unsqueeze ... left in"), so the second half is named on resubmission; q07/q09/q13 not charged
        "q01_batch_axis_added_in_place_with_unsqueeze_": ("inplace_on_input",),
        # nw_operands_swapped on all 3 q08 failures (random, is_attention_row, views): "your code raised RuntimeError: size mismatch ...; on a square input (T = d_k = d_v = 12) it runs and matches swapping the operands of a product (... V @ w for w @ V) ... the row is w @ V": torch.mv(V, kappa) is V @ kappa, exactly the swap named, with the fix; keyed, so not raw
        "q08_mix_with_mv_on_untransposed_values": ("nw_operands_swapped",),
        # prefix_average_counts_reversed on q09:test_prefix_average_matrix (the only failure): "dividing row t by the counts in reverse order (torch.arange(T, 0, -1): T for the first row, 1 for the last) instead of by its own length t": exactly the effect (triu's row sums are T..1) and the fix; borderline: nothing names triu for tril in the counts; q10 not charged
        "q09_divided_by_row_counts_of_upper_triangle": ("prefix_average_counts_reversed",),
        # generic: q12:test_count_qkv None "the count is wrong (for d_v different from d_k)" and q12:test_count_with_output None "... you give 59396.0; W_Q, W_K, W_V hold 38688 and W_O ... 17360, so your count holds 20708.0 for W_O if the rest is right": says what differs (and the d_v != d_k condition), nothing names the mean head width 1.5 d_model (d_k + d_v) for d_model (2 d_k + d_v) or the float; the W_O attribution is misleading (the W_Q/W_K/W_V part is what is wrong) but unkeyed
        # now (naming round 52: param_count_mean_width, exact count match; the W_O blame line asks a second call first)
        "q12_three_times_mean_head_width": ("param_count_mean_width",),
    },
# wrong 14: named right 13 / partly 0 / generic 1 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
}


BLIND53_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind53 (frozen at 7640c69, after red-team rounds 61-66 and naming round 52; measured at the bwrap level),
# judged by three helper sessions at first sight: scaled 10/14, sdpa 8/14 (1 MIS-NAMED), pipeline 13/14
# (1 MIS-NAMED): 31/42
# blind53 (frozen engine, /tmp/frozen53), judged from `measure scaled-attention --set blind53 -v`
# (/tmp/measure53-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j53-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # one_edit_fix on all 5 failing q1 tests (float64 weights/output, float32 square, non-contiguous, broadcast): "right with one change on line 6 (`scores = F.relu(scores) # a negative score means "no match"...`): leave out line 6 -- or -- `scores` in place of `F.relu(scores)` (checked on all 5 inputs)": the slip at its place with the exact fix; the broadcast case shows got [[0.5, 0.5], ...] (all-negative scores flattened to equal weights); borderline: nothing says exp(0) gives the negative scores too much weight; q8 not charged
        "q1_negative_scores_clamped_to_zero_before_softmax": ("one_edit_fix",),
        # attention_top_k on all 5 failing q1 tests: "matches keeping only the k best-scoring keys of each query (... k = 1 is a hard argmax) instead of the softmax over every key (here k = 1 of the 7 keys: every other weight is exactly 0)", smallest case got [[1, 0], [0, 1]]: exactly the effect of the forward value (hard - soft.detach() + soft == one_hot(argmax)), and the code's own one_hot(argmax) line is what it points to; borderline: nothing names the straight-through trick or says its forward value equals `hard` (the soft weights were needed in value); q8 not charged
        "q1_straight_through_hard_one_hot_weights": ("attention_top_k",),
        # generic: both q2 failures None, "the result is 4.03 (4.01 scaled) times the variance of the same generator's torch.randn draws ...: the draws (or the dot products) are multiplied by a constant; q and k must be standard normals ..., used as drawn": says what differs (a constant factor 4 on the variance, i.e. dots doubled), no key; nothing says the polarisation identity divides by 4, not 2
        # now (naming round 53: dots_polarisation_misdivided, replayed on the seeded generator, the source forms q + k and q - k)
        "q2_dots_by_polarisation_identity_halved": ("dots_polarisation_misdivided",),
        # one_edit_fix on all 3 q4 failures: "right with one change on line 3 (`log_p = F.log_softmax(logits, dim=-1) ...`): `F.softmax(logits, dim=-1)` in place of `F.log_softmax(logits, dim=-1)` (checked on all 3 inputs)" plus "contains NaN or inf ... got -inf": the slip at its place with the exact fix (entr of probabilities); borderline: nothing says torch.special.entr wants probabilities and gives -inf for negative input
        "q4_entropy_special_entr_fed_log_probabilities": ("one_edit_fix",),
        # answer_computed_by_code: "'A', the letter your code worked out (`q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))`) ... (look at its sign, max against min, the sizes it uses, ...)": right in kind (as blind48-52's q5 probes); borderline: it quotes the nearest-option line, not the faulty `_growth5 = _v5[0] / _v5[1]`, nothing says the ratio is upside down, and A's stated belief (scaled variance 1 for raw) is not the student's
        "q5_answer_probe_ratio_taken_small_over_large": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`q5_answer = 'C' if _var5[16] / _var5[4] >= 4 else 'B'`) ... (look at ... the branch each outcome takes)": quotes the very test at fault, right in kind (as blind52's exact-float-equality check); borderline: nothing says a noisy estimate falls below 4 half the time (nearest option meant), and B's stated belief (std for variance) is not the student's
        "q5_answer_probe_strict_threshold_at_expected_ratio": ("answer_computed_by_code",),
        # answer_value_not_letter: "q5_answer is 67, a number, not a letter: ... instead of the letter of the option ..., as a string such as "B"": exactly the mistake and its fix; borderline: nothing says ord gives the code point ("C" or chr(67) meant)
        "q5_answer_code_point_int": ("answer_value_not_letter",),
        # callable_not_called: "q6_answer is a function or method, not a value: ... a function's name without calling it, hands over the function itself, not its result; add the () that call it": exactly the mistake and a working fix (call it, or assign "A"); the `.item` examples are stock but "a function's name without calling it" is this case
        "q6_answer_defined_as_function": ("callable_not_called",),
        # answer_computed_by_code: "'D' ... (`q6_answer = 'A' if torch.allclose(_out6, _expected6, atol=1e-05) el...`) ... (look at ... the sizes it uses ...)": quotes the check's branch, right in kind (as blind50-52's q6 checks), and "the sizes it uses" points at d_k; borderline: nothing says the global d_k = 4 is passed for width-3 tokens, and D's stated belief (uniform weights) is not the student's
        "q6_answer_probe_calls_attention_with_stale_global_d_k": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D' ... (`q6_answer = 'A' if torch.allclose(_out6, _expected6) else 'D'`) ... what it measures or compares is not what the question asks": quotes the check, right in kind; borderline: nothing says the expected weights from -cdist^2 are not softmax(X X^T / sqrt(d_k)), and D's stated belief is not the student's
        "q6_answer_check_expected_from_negative_squared_distances": ("answer_computed_by_code",),
        # generic: q7:test_q7_answer None, "q7_answer is a dict: it should be one letter as a string: "A", "B", "C", "D"": says what differs (a dict where a letter is asked), no key; nothing says to take the key "D" out of the {letter: reason} dict
        # now (naming round 53: answer_in_container, a one-entry dict holding the letter)
        "q7_answer_dict_letter_to_reason": ("answer_in_container",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if _smooth7 else 'C'`) ... (look at ... the branch each outcome takes)": quotes the branch, right in kind (as blind52's q7 checks); borderline: nothing says gradcheck's eps = 0.5 is far too coarse for its tolerances, and C's stated belief (hard argmax) is not the student's
        "q7_answer_gradcheck_with_coarse_eps": ("answer_computed_by_code",),
        # not caught: 28/28; expect_choice ignores spaces ("parentheses and spaces ignored") so ' D' is taken as 'D' by design; the variant's `where` expected q7 to lose its point
        "q7_answer_split_on_comma_keeps_leading_space": (),
        # generic: all 3 q8 failures None: two raw ("your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x2 and 1x12)"), one "multi_head_attention(...) has shape (2, 32), expected (6, 32)" (says what differs: a third of the rows); nothing says chunk(3) splits dim 0, the tokens (dim=-1 meant)
        # now (naming round 53: fused_qkv_chunked_wrong_axis, by replay (and the crash's words with a second call at T = 6))
        "q8_fused_qkv_chunked_along_tokens": ("fused_qkv_chunked_wrong_axis",),
    },
# wrong 14: named right 10 / partly 0 / generic 3 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind53 (frozen engine, /tmp/frozen53), judged from `measure sdpa-from-scratch --set blind53 -v`
# (/tmp/measure53-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j53-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # weights_sized_by_features on q1:test_weights_shape (the only failure): "weights_shape is (4, 64, 64): its last two axes are feature widths (d_k, d_v), not sequence lengths: sizing the attention weights by the feature width (d_k x d_k, like Q^T K ...) instead of one entry per (query, key) pair: (B, T_q, T_k)": exactly the effect of a (batch, features, tokens) probe (its Q @ K^T is the usual layout's Q^T K) and the fix; borderline: nothing names the channels-first / Conv1d layout
        "q1_weights_probe_built_channels_first_as_for_conv1d": ("weights_sized_by_features",),
        # generic: q1:test_weights_shape None (the only failure), "weights_shape is (100, 10, 1), not the shape of the attention-weight matrix: it has one entry per (query, key) pair": shows the wrong value, nothing says .stride() was read where .shape was meant
        # now (naming round 53: shape_read_as_stride, by replay or second calls)
        "q1_weights_shape_read_with_stride_instead_of_shape": ("shape_read_as_stride",),
        # one_edit_fix on q2:test_score_variances (the only failure): "right with one change on line 2 (`raw_scores = torch.einsum("bqd,bke->bqk", Q, K)`): `'bqe,bke->bqk'` in place of `'bqd,bke->bqk'` (... 1 pass)", then "neither is the variance of the example's scores (Q @ K.transpose(-2, -1) ...)": the slip at its place with a working fix (one shared feature letter); borderline: nothing says distinct letters sum each operand on its own (a product of sums)
        "q2_einsum_feature_letter_differs_between_queries_and_keys": ("one_edit_fix",),
        # generic: q2:test_scale_divisor None (the only failure), "scale_divisor is not the divisor for d_k = 64": says which width matters, but does not show the value (22.6) and nothing says sqrt(d_model = 512) was used for the head width
        # now (naming round 53: scale_by_d_model, by replay or second calls)
        "q2_scale_divisor_for_the_model_width_512": ("scale_by_d_model",),
        # raw: q4:test_more_queries_than_keys None (the only failure), "your code raised RuntimeError: zeros: Dimension size must be non-negative.": only the exception, nothing says T_k - T_q is negative when keys are fewer than queries (cut the triangle to T_k columns); q5/q6 not charged
        # now (naming round 53: causal_mask_assumes_more_keys, by replay or second calls)
        "q4_square_triangle_glued_to_false_columns_breaks_when_keys_are_fewer": ("causal_mask_assumes_more_keys",),
        # MIS-NAMED: mask_times_inf on q6:test_weights3_causal: "weights3_causal is NaN in every row, row 2 too, which blocks no key, while your stable_softmax gives the right causal weights for scores filled with -inf: the masking turned the allowed scores into NaN, as scores3 + (~mask) * -inf does ... fill with masked_fill(~mask, float('-inf'))" -- the q6 cell already uses masked_fill(~causal_mask(3), -inf) (full_marks' line); the NaN comes from the all-False causal_mask (every score -inf), so the student is sent to fix a q6 line that is right; the 3 q4 failures are generic (None: "causal_mask(11) is not the causal mask ...: it differs in 66 entries, the first at [0, 0]", likewise (9, 6) and (4, 9)): the counts equal the whole lower triangle but nothing says the mask is all False or that `== 0` belongs after triu
        # now (naming round 53: causal_mask_all_false, by replay or second calls)
        "q4_comparison_typed_inside_triu_gives_an_all_false_mask": ("causal_mask_all_false",),
        # not caught: 35/35; q5's fully-masked tests block only some rows (mask.any() stays True), no test passes a mask with no True entry, so the `mask.any()` fast path is never taken with a mask
        # now (naming round 53: mask_skipped_when_all_blocked, by replay or second calls)
        "q5_masking_skipped_when_the_mask_allows_nothing": ("mask_skipped_when_all_blocked",),
        # generic: q6:test_out3 None (the only failure), "out3 should have shape (3, 2), got (3, 4)": says what differs (d_k = 4 columns for d_v = 2), nothing says the keys were mixed instead of the values (weights3 @ V3)
        # now (naming round 53: output_from_keys, by replay or second calls)
        "q6_output_mixed_from_the_keys_not_the_values": ("output_from_keys",),
        # mask_added on q6:test_weights3_causal (the only failure): "it matches adding the boolean mask to the scores (+1 where allowed) instead of filling blocked scores with -inf: blocked keys keep their weight": exactly the mistake and its fix
        "q6_boolean_mask_added_to_the_scores_as_a_bias": ("mask_added",),
        # answer_extra_characters on q7:test_trap_answer (the only failure): "q_trap_answer is 'Answer: C': it has characters besides the letter, which seems to be 'C' ... the answer must be the letter alone": exactly the mistake and its fix
        "q7_answer_written_with_an_answer_prefix": ("answer_extra_characters",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'A' if _same else 'C'`) ... compare what each approach does to the sum of a row's weights ... what it measures or compares is not what the question asks": right in kind (a check that compares the wrong thing lands on A; the hint, row sums rather than order, is the very difference), as blind52's q7 checks; borderline: it quotes the branch, not the argsort line, nothing says zeroing keeps the order of the kept weights
        "q7_check_compares_the_order_of_keys_in_each_row": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'D', the letter your code worked out (`q_trap_answer = max(_verdicts)`) ... (look at its sign, max against min, ...)": quotes the faulty line, right in kind (as blind52's sorted-ascending q6 answer); borderline: nothing says max() of a dict compares its keys (key=_verdicts.get meant), and D's stated belief (zero after softmax) is not the student's
        "q7_true_option_taken_with_max_of_the_verdict_dict": ("answer_computed_by_code",),
        # madds_without_d_k on q8:test_score_madds (the only failure): "score_madds is one multiply-add per score: each score is a dot product of length d_k": exactly the effect (numel counts the T*T entries) and the fix (times d_k); borderline: nothing names numel()
        "q8_madds_read_off_as_the_numel_of_a_probe_product": ("madds_without_d_k",),
        # float_for_int on q8:test_cost_ratio (the only failure): "cost_ratio is 4.0, a float: ... where a whole number, a Python int, is asked ... or int(...) around the result": exactly the effect and a working fix; borderline: its listed causes (math.pow, /, a float literal) do not name round(x, 0) returning a float
        "q8_ratio_rounded_with_round_ndigits_zero_is_a_float": ("float_for_int",),
    },
# wrong 14: named right 8 / partly 0 / generic 3 / raw 1 / mis-named 1 / not caught 1; correct at full marks 5/5
# blind53 (frozen engine, /tmp/frozen53), judged from `measure attention-pipeline --set blind53 -v`
# (/tmp/measure53-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j53-ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # callable_not_called on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is a function or method, not a value ... a function's name without calling it, hands over the function itself ...; add the () that call it": exactly the mistake (" d ".strip without ()) and its fix
        "q15_strip_method_referenced_not_called": ("callable_not_called",),
        # answer_value_not_letter on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is 3, a number your code worked out (`ans_cross_causal = string.ascii_lowercase.index('d')`), not a letter ... instead of the letter of the option ..., as a string": quotes the line and says give the letter itself; borderline: nothing says .index gives the position
        "q15_letter_turned_into_position_with_str_index": ("answer_value_not_letter",),
        # answer_value_not_letter on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is [('b', 2)], a list of 1 value, not a letter ... the letter of the option ... as a string": the effect with the letter visible inside, a student takes [0][0] (as blind50's q7_answer_counter_most_common_pair); borderline: nothing names most_common's list of pairs
        "q14_vote_tally_kept_as_counter_most_common_list": ("answer_value_not_letter",),
        # answer_value_not_letter on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is ('b', 0.8), a tuple of 2 values, not a letter": the (letter, score) pair shown, the fix (keep the letter) follows (as blind48's max over .items() pair); borderline: nothing names dict.items()
        "q14_letter_picked_with_max_over_dict_items_keeps_pair": ("answer_value_not_letter",),
        # enum_member_answer on q06:test_ans_mask (the only failure): "a member of the Enum Option, not its value ... (Choice.C.name ..., Choice.C.value its value: whichever is the answer)": exactly the mistake and its fix (.value)
        "q06_enum_member_instead_of_its_value": ("enum_member_answer",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "'d', the letter your code worked out (`if not _rows_sum_to_one: ans_mask = 'a' elif _sees_future: ...`) ... (look at its sign, ..., the branch each outcome takes)": quotes the branch on the backwards test, right in kind (as blind50-52's probes); borderline: nothing says torch.equal(A, A.tril()) is true when nothing lies above the diagonal, and D's stated belief (mask about gradients) is not the student's
        "q06_leak_test_checks_the_opposite_condition": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`if _H_raw < _H_scaled - 0.5: ...`) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (a probe that lands on a wrong option); borderline: nothing says F.softmax without dim normalises over dim 0 (the batch axis of size 1, every weight 1), and C's stated belief (scale invariance) is not the student's
        "q03_batched_experiment_functional_softmax_without_dim": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a' ... (`if abs(_ratio - 2) < 0.5: ans_complexity = 'a' ...`) ... (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores)": right in kind, and "there are T^2 scores" is the very point the T * 2 slip misses; borderline: it quotes the branch, not the _cost line
        "q16_cost_written_times_two_for_squared": ("answer_computed_by_code",),
        # MIS-NAMED: one_edit_fix on q11:test_rank_S_lesson (the only failure): "right with one change on line 5 (`rank_S_lesson = int((torch.linalg.svdvals(...) != 0).sum())`): `svdvals(...) == 0` in place of `svdvals(...) != 0` (... 1 pass)": the fix shown counts the singular values that ARE exactly zero, 2 only by coincidence (5 - rank 2 - the one 1e-16 round-off value); the student is told to flip the comparison, which is not the rank, instead of using a tolerance / matrix_rank (as blind51's q11_lesson_rank_from_qr_diagonal_without_tolerance); the appended keyless "3 ... the number of singular values of S that are not exactly zero ... use torch.linalg.matrix_rank(S)" is right (though its "3e-08 ... in float32" is not this float64 code's 1e-16), but it comes after the wrong fix under the same key
        # now (naming round 53: rank_without_tolerance, a replayed count and the cell's exact-zero test; the one-edit flip no longer offered)
        "q11_lesson_rank_counts_singular_values_not_exactly_zero": ("rank_without_tolerance",),
        # scale_wrong_axis on all 3 failing q02 tests (batched float32, non-contiguous, broadcast): "S is scaled by 1/sqrt(T) on these 3-D inputs, and on one 2-D slice it is right: the size read is a fixed axis (Q.shape[1] is d_k only for a 2-D Q) ...: d_k is Q.shape[-1]": exactly what len(Q[0]) (= Q.shape[1]) does, with the fix; borderline: nothing names len(Q[0]); q07/q13 not charged
        "q02_head_width_from_len_of_first_query": ("scale_wrong_axis",),
        # zero_after_softmax on both q05 failures (float64 rectangular mask, non-contiguous): "it matches zeroing masked weights after the softmax: rows no longer sum to 1": exactly the mistake; q07/q09/q13 not charged
        "q05_mask_applied_after_softmax_as_keep_factor": ("zero_after_softmax",),
        # one_edit_fix on both q10 failures: "right with one change on line 3 (`return nats / math.log2(math.e)`): `nats * math.log2(math.e)` in place of `nats / math.log2(math.e)`", then "off by a constant factor x0.4805": the slip at its place with the exact fix
        "q10_nats_divided_by_log2_e_instead_of_multiplied": ("one_edit_fix",),
        # inplace_on_input on both q10 failures: "row_entropy_bits modifies its input in place ...: the caller's tensor changes; compute a new tensor instead": exactly the mistake (P = A aliases, P[P == 0] = 1 writes into A); borderline: nothing says P = A is no copy
        "q10_zero_weights_patched_to_one_in_callers_tensor": ("inplace_on_input",),
        # dtype_changed on q07:test_batched_float32_and_float16 (the only failure): "your code raised RuntimeError: expected m1 and m2 to have the same dtype, but got: float != c10::Half on torch.float16 inputs, and on their float32 copy it runs and is right: returning or mixing in another dtype than the input's (.float() or a float32 tensor never cast back)": true of this code (the cached float32 mask is a float32 tensor mixed into float16 S), and casting the mask to S's dtype would fix it; borderline, close to a mis-name: nothing says the cache is keyed by T alone (the catalogue's mask_cached_by_size would fit exactly), and a student may hunt for a .float() that is not there; q09 not charged
        # now (naming round 53: mask_cached_by_size, second calls at new lengths in both orders)
        "q07_mask_cached_by_length_keeps_first_dtype": ("dtype_changed", "mask_cached_by_size"),
    },
# wrong 14: named right 13 / partly 0 / generic 0 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
}


BLIND54_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind54 (frozen at 26e728a, after red-team rounds 61-67 and naming round 52, before round 53; measured at the
# bwrap level), judged by three helper sessions at first sight: scaled 10/14, sdpa 7/14 (1 MIS-NAMED), pipeline
# 9/14: 26/42
# blind54 (frozen engine, /tmp/frozen54), judged from `measure scaled-attention --set blind54 -v`
# (/tmp/measure54-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j54-sa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # generic: all 6 failing q1 tests None (float64 weights/output, float32 square, rows sum, non-contiguous, broadcast): "the rows of the weight matrix should each sum to 1: row(s) ... sum to 2.45 ... 3.34", "the wrong entries all lie at index 0..5 of the last axis (size 7), the rest is right", smallest case got [[1, 0.365], [1, 0.608]] (first weight 1): says what differs (a running normaliser's signature: first column 1, last column right), but no key and nothing says logcumsumexp is a cumulative sum (torch.logsumexp(..., keepdim=True) meant); q8 not charged
        # now (naming round 54: softmax_running_normaliser, by replay (and the source for the table))
        "q1_logcumsumexp_for_logsumexp": ("softmax_running_normaliser",),
        # dtype_changed on both failing q1 tests (float64 weights/output): "your code raised RuntimeError: ... float != double on float64 inputs; on the same values in float32 it runs and both results are right, so a float32 tensor made inside meets an input of another dtype: ... (.float() or a float32 tensor never cast back): ... float64 in float64 out": exactly the effect of F.softmax(..., dtype=torch.float32) (float32 weights meet float64 V) and the fix (keep the input's dtype); borderline: nothing names softmax's dtype= keyword itself; q8 not charged
        "q1_softmax_dtype_kwarg_float32": ("dtype_changed",),
        # generic: both q2 failures None, "for d_k = 12 the variance of q.k is not within 10% of its expected value" (and the scaled one): says only that the variance is off, not by how much (about 1.9 for 12); nothing says vector_norm of the products is not the sum q.k (never negative)
        # now (naming round 54: dots_norm_of_products, by replay (and the source for the table))
        "q2_dot_taken_as_norm_of_products": ("dots_norm_of_products",),
        # generic: both q4 table failures None, though the text is exact: "raw_std and scaled_std are NaN and H_raw and H_scaled are 0 in every row ...: what ONE score per d gives ... raw should have shape (5,): q @ k.T is (1, 5), so take its row, (q @ k.T)[0], not a column ([:, 0]) or a row of k @ q.T": the mistake and its fix in words a student can act on, but under no key, so by the rule (nothing named) it counts generic; a key on this message would make it named right
        # now (naming round 54: table_scores_row_of_transpose, by replay (and the source for the table))
        "q4_table_scores_as_k_at_q_row_zero": ("table_scores_row_of_transpose",),
        # one_edit_fix on all 3 q4 entropy failures (random logits, saturated rows, views): "right with one change on line 3 of its cell (`p = torch.sigmoid(logits) # logits -> probabilities`): `torch.softmax(logits, dim=-1)` in place of `torch.sigmoid(logits)` (checked on all 3 inputs)": the slip at its place with the exact fix; borderline: nothing says sigmoid probabilities do not sum to 1
        "q4_entropy_of_sigmoid_probabilities": ("one_edit_fix",),
        # answer_computed_by_code: "'A', the letter your code worked out (`q5_answer = min(_options5, key=...)`) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (as blind48-53's q5 probes), and "what it measures is not what the question asks" is the very fault (per-coordinate Var(q_i k_i), not Var(q.k)); borderline: it quotes the nearest-option line, not `(_q5 * _k5).var(dim=0).mean()`, nothing says to sum the products first, and A's stated belief (scaled variance 1 for raw) is close to but not the student's
        "q5_answer_probe_variance_per_coordinate_then_averaged": ("answer_computed_by_code",),
        # answer_computed_by_code: "'B' ... (`q5_answer = min(_options5, ...)`) ... (look at ... the sizes it uses ...)": right in kind, "the sizes it uses" points at _dims5 = (8, 16); borderline: nothing says a doubling gives x2 while the options are factors for x4, and B's stated belief (std for variance) is not the student's
        "q5_answer_probe_dims_doubled_but_options_for_quadrupling": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D' ... (`q6_answer = 'A' if torch.allclose(_out6, _W6 @ _X6) else 'D'`) ... what it measures or compares is not what the question asks": quotes the check, right in kind (as blind50-53's q6 checks); borderline: nothing says the / sqrt(d_k) sits after the softmax, and D's stated belief (uniform weights) is not the student's
        "q6_answer_check_scale_applied_after_softmax": ("answer_computed_by_code",),
        # answer_computed_by_code: "'C' ... (`q6_answer = 'A' if _inside6 else 'C'`) ... (look at ... max against min, the sizes it uses ...)": quotes the branch, right in kind; borderline: nothing says the bounds are taken over dim 1 (per token) instead of dim 0 (per feature), and C's stated belief (hard argmax) is not the student's
        "q6_answer_convexity_check_bounds_taken_per_token": ("answer_computed_by_code",),
        # answer_computed_by_code: "'D' ... (`q6_answer = 'A' if torch.allclose(_out6.float(), _expected6) else 'D'`) ... what it measures or compares is not what the question asks": quotes the comparison at fault, right in kind (as blind53's atol check); borderline: nothing says bfloat16 rounding cannot meet allclose's default float32 tolerance, and D's stated belief is not the student's
        "q6_answer_probe_in_bfloat16_at_default_tolerance": ("answer_computed_by_code",),
        # not caught: 28/28; expect_choice takes "one letter, any case" by design, so "\x64" == 'd' is taken as 'D'; the variant's `where` expected q7 to lose its point (as blind53's ' D' with a leading space)
        "q7_answer_hex_escape_of_lowercase_d": (),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'D' if torch.allclose(_out7, _nw7) else 'C'`) ... (look at its sign, ...)": quotes the check, right in kind, and "look at its sign" is the very slip (exp(-q.k/sqrt(d_k))); borderline: it quotes the branch, not the `_kern7` line, and C's stated belief (hard argmax) is not the student's
        "q7_answer_kernel_check_with_negated_exponent": ("answer_computed_by_code",),
        # mha_heads_reordered on all 3 q8 failures: "its column blocks hold the right heads in the order [3, 2, 1, 0]: concatenating the heads in another order than 0, 1, ..., n_heads - 1 (heads.insert(0, ...), a reversed list): head h's output belongs in columns h * d_k to (h + 1) * d_k": exactly the mistake, names insert(0, ...) itself, and the fix
        "q8_heads_inserted_at_front_reverse_order": ("mha_heads_reordered",),
        # answer_computed_by_code: "'C' ... (`q7_answer = 'C' if torch.allclose(_new7, _out7) else 'D'`) ... what it measures or compares is not what the question asks": quotes the comparison at fault (_new7 vs _out7), right in kind; borderline: nothing says _new7 is the old output (attention never re-run on _V7b), and C's stated belief (hard argmax) is not the student's
        "q7_answer_probe_compares_output_not_recomputed": ("answer_computed_by_code",),
    },
# wrong 14: named right 10 / partly 0 / generic 3 / raw 0 / mis-named 0 / not caught 1; correct at full marks 5/5
# blind54 (frozen engine, /tmp/frozen54), judged from `measure sdpa-from-scratch --set blind54 -v`
# (/tmp/measure54-sdpa-from-scratch.txt); full messages re-read by grading each variant again (/tmp/j54-sdpa/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "sdpa-from-scratch": {
        # shape_dims_swapped on both q1 failures: "weights_shape is (10, 10, 4): it holds the right sizes in another order ..." and "out_shape is (128, 10, 4): it holds the right sizes in another order ...: the query axis comes before the feature axis": exactly the effect of the Julia/NNlib (features, length, batch) layout and a fix a student can act on (reorder the same sizes); borderline: nothing names the column-major layout or says the batch comes first, the example ((batch, d_v, T)) is another permutation, and "the query axis comes before the feature axis" does not apply to the weights (no feature axis)
        "q1_shapes_in_the_julia_nnlib_layout_features_first_batch_last": ("shape_dims_swapped",),
        # generic: q1:test_weights_shape None (the only failure), "weights_shape should be a tuple of Python ints, for example (2, 3, 4)": says what differs (not all ints), but does not show the value or that its last item is a torch.Size([10]) from the slice K.shape[1:2] (K.shape[1] meant)
        # now (naming round 54: size_slice_in_shape, by replay (and the cell's source where a value alone could coincide))
        "q1_key_count_taken_with_a_slice_leaves_a_size_inside_the_tuple": ("size_slice_in_shape",),
        # generic: q2:test_score_variances None (the only failure), "raw_score_var is 0.3933 and scaled_score_var 0.04916, exactly 1/8 of it, so the scale is right; but neither is the variance of the example's scores (... 6.599): either other scores were measured or another statistic ...": says what differs and that other scores were measured; nothing says the example was rebuilt with torch.rand (uniform) instead of the given randn Q, K
        # now (naming round 54: uniform_draws, by replay (and the cell's source where a value alone could coincide))
        "q2_example_rebuilt_with_uniform_rand_instead_of_randn": ("uniform_draws",),
        # generic: all 21 failures (q3 x4, q5 x14, q6 x3) None, "stable_softmax ... does not match the correct result in 98 of 105 entries (largest difference 0.127 ...)", q5 "the output ... does not match ..." with smallest inputs, q6 "weights3 is not correct in row(s) [0, 1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax ...)": say what differs, nothing says torch.sigmoid was used where exp(x - max) belongs (flatter weights)
        # now (naming round 54: sigmoid_for_exp, by replay (and the cell's source where a value alone could coincide))
        "q3_logistic_sigmoid_used_for_the_exponential": ("sigmoid_for_exp",),
        # causal_mask_blocks_nothing on all 4 failures (q4 square / more queries / more keys, q6 weights3_causal): "causal_mask(11) is True everywhere, so no query is kept from any key ... it must be True only where key j <= query i, as torch.tril(torch.ones(T_q, T_k, dtype=torch.bool)) gives in one step", q6 "weights3_causal equals the unmasked weights, and causal_mask(3) is not the (3, 3) causal mask ... True everywhere": exactly the effect and a working fix; borderline: nothing says the `>= 0` comparison (the zeros above the diagonal pass it) is the line at fault; q5 not charged
        "q4_triangle_compared_with_ge_zero_lets_every_key_through": ("causal_mask_blocks_nothing",),
        # MIS-NAMED: mask_times_inf on q6:test_weights3_causal: "weights3_causal is NaN in every row, row 2 too, which blocks no key ...: the masking turned the allowed scores into NaN, as scores3 + (~mask) * -inf does ... fill with masked_fill(~mask, float('-inf'))" -- the q6 cell is full_marks' masked_fill(~causal_mask(3), -inf) line; the NaN comes from the all-False mask (past & itself: every score -inf), so the student is sent to fix a q6 line that is right (as blind53's q4_comparison_typed_inside_triu_gives_an_all_false_mask); the 3 q4 failures are generic (None: "causal_mask(11) is not the causal mask (True where key j <= query i): it differs in 66 entries, the first at [0, 0]", likewise (9, 6), (4, 9)): the counts equal the whole lower triangle but nothing says the mask is all False or that & should be |
        # now (naming round 54: causal_mask_all_false, by replay (and the cell's source where a value alone could coincide))
        "q4_past_and_diagonal_joined_with_and_instead_of_or": ("causal_mask_all_false",),
        # no_scale on q5:test_float32_no_mask (the only failure): "the output with mask=None is wrong: it matches not scaling the scores at all" with the smallest input: exactly the effect (the unmasked branch skips / sqrt(d_k)) and points at the mask=None path; borderline: nothing says the division sits inside the `if mask is not None` branch
        "q5_scaling_only_in_the_masked_branch": ("no_scale",),
        # generic: q6:test_weights3_causal None (the only failure), "weights3_causal contains NaN or inf in row(s) [0, 1], exactly the rows with a masked (-inf) score: look at the masked fill and at what stable_softmax subtracts before exp": points at the masked fill (the right place), but no key and nothing says the fill value is NaN where -inf is needed
        # now (naming round 54: mask_fill_nan, by replay (and the cell's source where a value alone could coincide))
        "q6_blocked_scores_filled_with_nan_as_missing_data": ("mask_fill_nan",),
        # zero_after_softmax on q7:test_trap_answer (the only failure): "q_trap_answer is 'A', the letter lesson 80's quiz gives ..., but the lesson orders its options differently (there A is ..., which is C here); in this notebook A says nothing is wrong: zeroing after the softmax equals -inf before it, not the best answer; chosen for what it says here, that choice reflects zeroing masked weights after the softmax": names and refutes A's belief, the hedge's first letter that `or` keeps, and points to C; accepted as the earlier `or`/`and` hedges (q15_hedged_with_or_keeps_first_letter, q5_answer_hedged_with_and_operator); borderline: nothing says `"A" or "C"` returns its first truthy operand or that two letters were hedged, and the lesson-80 reading offered first is not this student's (no lesson cited)
        "q7_hedged_a_or_c_evaluates_to_a": ("zero_after_softmax",),
        # answer_hedged on q7:test_trap_answer (the only failure): "q_trap_answer is 'CD', 2 letters run together (written so, or two strings with no comma between them, which Python joins: "c" "d" is "cd")": names the very mechanism (the missing comma in the options list) and the fix (one letter alone); borderline: the key's tail ("giving several letters ... pick the one best answer") speaks of a hedge the student did not make
        "q7_options_list_missing_a_comma_glues_c_and_d": ("answer_hedged",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'A' if _agree > 0.5 else 'C'`) ... compare what each approach does to the sum of a row's weights ... what it measures or compares is not what the question asks (... the branch each outcome takes)": quotes the faulty threshold on the share of agreeing entries, right in kind (as blind53's q7_check_compares_the_order_of_keys_in_each_row); borderline: nothing says one differing row is enough, and "(option A stands for zeroing masked weights after the softmax: rows no longer sum to 1)" garbles what A says here
        "q7_check_by_majority_of_matching_entries": ("answer_computed_by_code",),
        # generic: q8:test_score_madds None (the only failure), "score_madds is 1,329,227,995,784,915,872,903,807,060,280,344,576, not the number of multiply-adds of Q @ K.T (each entry is a dot product of length d_k)": shows the wrong value and what is asked, nothing says 2**(10*2*6) multiplies exponents that should be added (2**26)
        # now (naming round 54: exponents_multiplied, by replay (and the cell's source where a value alone could coincide))
        "q8_powers_of_two_combined_by_multiplying_the_exponents": ("exponents_multiplied",),
        # numpy_scalar_answer on q8:test_cost_ratio (the only failure): "cost_ratio is a numpy.int64 (np.int64(4)), not a Python number ... convert it with int(...)": exactly the mistake and its fix
        "q8_ratio_computed_in_numpy_stays_a_numpy_int": ("numpy_scalar_answer",),
        # generic: q8:test_cost_ratio None (the only failure), "cost_ratio is 0, not right: how does T * T change when T doubles?": shows the value 0, nothing says % (remainder) was typed for // (quotient)
        # now (naming round 54: remainder_for_quotient, by replay (and the cell's source where a value alone could coincide))
        "q8_percent_typed_for_floor_division_in_the_ratio": ("remainder_for_quotient",),
    },
# wrong 14: named right 7 / partly 0 / generic 6 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
# blind54 (frozen engine, /tmp/frozen54), judged from `measure attention-pipeline --set blind54 -v`
# (/tmp/measure54-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j54-ap/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # generic: q15:test_ans_cross_causal None (the only failure), "ans_cross_causal is 'e': it should be one letter as a string: "a", "b", "c", "d"": says what differs ('e' is not an option), no key; nothing says chr(ord("a") + 4) counts one too far (d is a + 3)
        # now (naming round 54: answer_letter_past_last_option, by replay or a second call and the cell's source)
        "q15_fourth_option_as_chr_offset_from_a": ("answer_letter_past_last_option",),
        # not caught: 42/42; expect_choice takes "one letter, any case" (checks.py) and the notebook's own test_q15_format lowercases, so 'D' is 'd' by design; the variant's `where` expected q15 to lose its point
        "q15_letter_taken_from_ascii_uppercase": (),
        # answer_value_not_letter on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is np.int64(1), a number, not a letter: ... instead of the letter of the option that says it, as a string such as "B"": exactly the mistake and its fix; borderline: nothing says argmax gives the position (1 = b)
        "q14_answer_left_as_numpy_argmax_index": ("answer_value_not_letter",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'d', the letter your code worked out (`if _S_shape is (_T, _T) and _O_shape is (_T, _dv): ...`) ... (look at ... the branch each outcome takes)": quotes the faulty `is` comparison itself, right in kind (as blind53's q5 strict-threshold check); borderline: nothing says `is` tests identity (== meant), and D's stated belief (one output row per key) is not the student's
        "q14_experiment_compares_shapes_with_is": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`if _H_raw < _H_scaled - 0.5: ...`) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (a probe that lands on a wrong option, as blind53's q03 softmax-without-dim); borderline: nothing says dividing the features by d_k makes every score about 0, and C's stated belief (scale invariance) is not the student's
        "q03_experiment_features_divided_by_d_k": ("answer_computed_by_code",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): same message ("'c' ... (look at ... the sizes it uses ...)"): right in kind, "the sizes it uses" points at the single key; borderline: nothing says a softmax over one key is always 1, and C's stated belief is not the student's
        "q03_experiment_with_a_single_key": ("answer_computed_by_code",),
        # answer_lookup_missed on q06:test_ans_mask (the only failure): "`ans_mask` is None: the notebook has `ans_mask = _my_answers.get('q6')`, and .get found no such key ... write the key exactly as the dict has it": exactly the mistake, its line and its fix
        "q06_answer_looked_up_under_unpadded_question_key": ("answer_lookup_missed",),
        # fstring_prefix_missing on q06:test_ans_mask (the only failure): "ans_mask is '{_choice}', the placeholder itself: writing a placeholder in braces without the f before the quotes ... add the f": exactly the mistake and its fix
        "q06_format_string_missing_f_prefix": ("fstring_prefix_missing",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a' ... (`if _ratio == 4: ans_complexity = 'c' elif _ratio == 8: ...`) ... (look at ... the branch each outcome takes)": quotes the very exact-equality test at fault, right in kind (as blind53's q5 strict threshold); borderline: nothing says 3.98 never equals 4 (nearest option meant), and A's stated belief (linear cost) is not the student's
        "q16_causal_score_count_compared_exactly_with_four": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'d' ... (`if abs(_growth - 2) < 0.5: ans_complexity = 'a' elif ...`) ... what it measures or compares is not what the question asks": right in kind (the growth it measures is not the ratio asked); borderline: it quotes the branch, not the `_cost(200) - _cost(100)` line, nothing says difference vs ratio, and D's stated belief (T^3) is not the student's
        "q16_growth_measured_as_difference_not_ratio": ("answer_computed_by_code",),
        # generic: q11:test_rank_S_lesson None (the only failure), "rank_S_lesson is 3 ... S = Q K^T has rank 2: use torch.linalg.matrix_rank(S)": says what differs and a working fix, no key; but its keyless guess at the cause ("the number of singular values ... not exactly zero ... 3 counts a singular value of about 3e-08, rounding noise in float32") is not this code's: it rounds the nuclear norm 2.09 + 1.17 = 3.26 in float64 (third singular value 1e-16); nothing says a norm (sum of singular values) is not a count; close to a mis-name, but no key blames it
        # now (naming round 54: rank_from_nuclear_norm, by replay or a second call and the cell's source)
        "q11_lesson_rank_from_nuclear_norm": ("rank_from_nuclear_norm",),
        # prefix_average_wrong_axis on q09:test_prefix_average_matrix (the only failure): "it matches dividing by the column index instead of the row's length (entry (t, j) by j + 1, not t + 1) ... divide each row by its own count": exactly the effect of 1/(cols + 1) and the fix; borderline: the causes it lists (broadcast, cumsum) do not name tril_indices' cols
        "q09_tril_indices_weights_from_column_index": ("prefix_average_wrong_axis",),
        # generic: q13:test_cross_padding_mask None (the only failure), "A has shape (2, 4, 4), expected (2, 4, 7)": says what differs (the padded key columns are missing), nothing says the mask must be added to the scores rather than the keys sliced off
        # now (naming round 54: padded_keys_sliced_off, by replay or a second call and the cell's source)
        "q13_padded_keys_sliced_off_instead_of_masked": ("padded_keys_sliced_off",),
        # raw: both q01 failures None (test_project_float64, test_project_views), "your code raised RuntimeError: Expected out tensor to have dtype double, but got float instead" (plus the smallest failing input): only the exception, though torch's own text points at the out buffer's dtype; nothing says torch.empty without dtype=X.dtype makes float32; q07/q09 not charged
        # now (naming round 54: out_buffer_default_dtype, by replay or a second call and the cell's source)
        "q01_out_buffers_allocated_in_default_dtype": ("out_buffer_default_dtype",),
    },
# wrong 14: named right 9 / partly 0 / generic 3 / raw 1 / mis-named 0 / not caught 1; correct at full marks 5/5
}


BLIND55_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind55 (frozen at be28955, after red-team rounds 61-70 and naming round 54; measured at the bwrap level), judged by
# three helper sessions at first sight, each from `measure SLUG --set blind55 -v` (/tmp/measure55-SLUG.txt) and the
# full messages of each variant graded again: sdpa 14/14, scaled 8/14, pipeline 11/14: 33/42, none mis-named
# blind55 (frozen engine, /tmp/frozen55), judged from `measure attention-pipeline --set blind55 -v`
# (/tmp/measure55-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j55-attention-pipeline/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # batched_input_unsupported on both q01 failures (batched float32, views): "your code raised RuntimeError: Expected size for first two dimensions of batch2 tensor ... for X (2, 3, 6, 10); on one slice of the same inputs (X (6, 10)) it runs and is right: code that works only for 2-D inputs ...: .T reverses every dimension of a batched tensor ...; use .transpose(-2, -1) or .mT": exactly the mistake ((W.T @ X.T).T on a batched X) and its fix; q07/q09 not charged
        "q01_column_convention_with_dot_t_reverses_batched_axes": ("batched_input_unsupported",),
        # one_edit_fix on all 4 q02 failures (float64 rectangular, batched float32, non-contiguous, broadcast): "right with one change on line 3 (`return torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)`): `Q @ K.transpose(-2, -1) / math.sqrt(d_k)` in place of `torch.softmax(...)`", with got rows of 0.333 / 1: the softmax left out at its place, the exact fix; borderline: nothing says the pipeline then takes a second softmax; q07/q13 not charged
        "q02_scores_returned_after_softmax": ("one_edit_fix",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'c', the letter your code worked out (`if _H_raw < _H_scaled - 0.5: ans_scale = 'b' elif ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied by the same constant ...) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (a probe that lands on a wrong option, as blind53/54's q03 probes); borderline: nothing says `_S_scaled = _S_raw` is no copy, so the in-place /= scales the raw scores too and both entropies are the scaled ones
        "q03_experiment_raw_scores_aliased_then_divided_in_place": ("answer_computed_by_code",),
        # generic: all 3 q04 failures None (pattern, dtype min, float16 finite), "the mask blocks the wrong entries: exactly the keys after each query (strictly above the diagonal) should be blocked ...; 4 entries open that must be blocked (the first at (query, key) = (0, 4))" (6 open, first (0, 6), for the float16 case): says what differs (the open entries are the last column), but no key and nothing says the slice t + 1:-1 stops before the last key (t + 1: meant); q07/q09 not charged
        # now (naming round 55: mask_last_key_open, by replay (the blocked entries are the right ones with the last column cleared))
        "q04_row_slice_to_minus_one_leaves_last_key_open": ("mask_last_key_open",),
        # one_edit_fix on all 4 q05 failures (float64 rectangular mask, float16 stable, non-contiguous, large float32): "right with one change on line 3 (`S = S + M[:, None, :] # broadcast the mask over the query axis`): `M[:, :]` in place of `M[:, None, :]`", with "A has shape (5, 5, 8), expected (5, 8)" or the broadcast RuntimeError: the extra axis at its place and the exact fix; borderline: nothing says M is already (T_q, T_k), so no axis is to be inserted; q07/q09/q13 not charged
        "q05_mask_given_a_query_axis_like_extended_attention_mask": ("one_edit_fix",),
        # answer_bound_in_function on q06:test_ans_mask (the only failure): "`ans_mask` is not defined: the notebook binds it only inside a function, `def _answer_q06(...): ans_mask = 'c'`: ... a name assigned in a def is that function's local variable, gone when it returns ...: assign it at the top level of a cell, e.g. `name = f()`": exactly the mistake (the return value discarded) and its fix
        "q06_answer_assigned_inside_a_helper_function": ("answer_bound_in_function",),
        # dtype_mix on q07:test_causal_float64, q07:test_not_causal_float64 and q09:test_zero_projections: "your code raised RuntimeError: expected m1 and m2 to have the same dtype, but got: float != double: mixing two dtypes in one operation: a tensor ... cast to another dtype meets the input's ...; ... cast with .to(x.dtype)": true (Q.float(), K.float() make float32 weights that meet the float64 V) and the fix; dtype_changed on q07:test_batched_float32_and_float16: "float != c10::Half on torch.float16 inputs, and on their float32 copy it runs and is right: returning or mixing in another dtype than the input's (.float() or a float32 tensor never cast back)": names the very .float() never cast back; borderline: neither quotes the `S = scaled_scores(Q.float(), K.float())` line
        "q07_scores_upcast_to_float32_never_cast_back": ("dtype_mix", "dtype_changed"),
        # one_edit_fix on all 3 q08 failures (random, attention row, views): "right with one change on line 4 (`return (w[:, None] * V).sum(dim=0) / kappa.sum()`): `kappa` in place of `w` -- or -- `w` in place of `kappa` -- or -- `kappa` in place of `kappa / kappa.sum()` on line 3 ...", then "it is the correct result times a constant: off by a constant factor x0.1438": each fix offered removes the second normalisation, and the constant factor is 1 / sum(kappa); borderline: nothing says w already sums to 1, and "(and 1 other change on the same lines)" is opaque
        "q08_normalised_weights_divided_by_kernel_sum_again": ("one_edit_fix",),
        # raw: q10:test_effective_tokens None (the only failure), "your code raised TypeError: unsupported operand type(s) for ** or pow(): 'float' and 'function'": only the exception (whose 'function' is a strong hint), nothing says row_entropy_bits is never called on A (2.0 ** row_entropy_bits(A) meant)
        # now (naming round 55: callable_not_called, by the crash's words ('function' as an operand) and the raising line naming the notebook's own def uncalled)
        "q10_entropy_function_not_called_in_effective_tokens": ("callable_not_called",),
        # generic: q11:test_rank_S_lesson None (the only failure), "rank_S_lesson is not correct: try torch.linalg.matrix_rank on the lesson's S": a working fix, but it does not even show the value (1) or the rank (2), and nothing says the stable rank ||S||_F^2 / ||S||_2^2 (1.31, rounded) is a soft measure, not the count of nonzero singular values; blind54's rank_from_nuclear_norm does not fire on this norm ratio
        # now (naming round 55: rank_from_stable_rank, by replay of the value (1.31 made whole) and the source's norm ratio)
        "q11_lesson_rank_read_from_stable_rank": ("rank_from_stable_rank",),
        # one_edit_fix on q12:test_count_with_output (the only failure): "right with one change on line 4 (`shapes += (d_v, d_model)`): `shapes.append((d_v, d_model))` in place of `shapes += (d_v, d_model)`", then "your code raised TypeError: cannot unpack non-iterable int object": the slip at its place with the exact fix; borderline: nothing says list += tuple extends the list with the two ints
        "q12_output_shape_added_with_plus_equals_extends_list": ("one_edit_fix",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'d', the letter your code worked out (`for _letter, (_s, _o) in _options.items(): if tuple(_A.shape) == _s...`) ... (option D stands for giving the output one row per key ...) ... (look at ... the branch each outcome takes)": quotes the loop, right in kind (a search over the options that lands on a wrong one), and the fix (assign the letter) holds; borderline: nothing says a for loop's else runs whenever no break ends it, so the fallback overwrites the matched 'b', the shape comparison it points at is in fact right, and D's stated belief is not the student's
        "q14_for_else_fallback_overwrites_matched_letter": ("answer_computed_by_code",),
        # answer_computed_by_code on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is '', an empty string your code worked out (`ans_cross_causal = _note.lstrip('Answered: ')`), not a letter: letting code pick the letter ...; decide the option and assign its letter as a string": quotes the very lstrip line and shows it gives '', with a fix the student can act on; borderline: nothing says lstrip strips a set of characters (the 'd' among them; removeprefix meant), and the key's "look at its sign, max against min" does not fit a string operation
        "q15_lstrip_of_a_prefix_eats_the_letter": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'a', the letter your code worked out (`if abs(_ratio - 1) < 0.5: ans_complexity = 'b' elif abs(_ratio - 2)...`) ... (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores) ... (look at ... the sizes it uses ...)": right in kind, and "there are T^2 scores" is the point 2 * T ** 2 misses (as blind53's q16_cost_written_times_two_for_squared); borderline: it quotes the branch, not the `_ratio` line, and nothing says ** binds tighter than * ((2 * T) ** 2 meant)
        "q16_doubled_length_squared_without_parentheses": ("answer_computed_by_code",),
    },
# wrong 14: named right 11 / partly 0 / generic 2 / raw 1 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind55 (frozen engine, /tmp/frozen55), judged from `measure scaled-attention --set blind55 -v`
# (/tmp/measure55-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j55-scaled-attention/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # generic: all 6 failing q1 tests None: 3 raw ("your code raised RuntimeError: The size of tensor a (5) must match the size of tensor b (7) at non-singleton dimension 0", float64 weights/output, rows sum), 3 say what differs ("the weight matrix has shape (6,), expected (6, 6)", likewise non-contiguous / broadcast with the smallest case "got a tensor of shape (1,)"): the lost dimension is shown, but nothing says torch.linalg.vecdot pairs query i with key i only (Q @ K.T for every pair); q8 not charged
        # now (naming round 55: scores_paired_rows, by replay of the row-paired scores on both results of the same call, or with T_q != T_k by the size-mismatch crash and a second call cut to T_q = T_k)
        "q1_scores_by_linalg_vecdot_pair_rows_not_all_pairs": ("scores_paired_rows",),
        # raw: both failing q1 tests (float64 weights/output) None, only the exception "your code raised RuntimeError: Expected out tensor to have dtype double, but got float instead": torch's own words point at the out= buffer, but no key and nothing says torch.empty(...) defaults to float32 (dtype=Q.dtype, or no preallocated buffer); no "on the same values in float32 it runs and is right" note as dtype_changed gives elsewhere; q8 not charged
        # now (naming round 55: out_buffer_default_dtype, by torch's out= dtype words on an out= line and a second call in float32 that runs and is right)
        "q1_scores_into_preallocated_default_float32_out_buffer": ("out_buffer_default_dtype",),
        # weights_not_normalised on all 6 q1 failures (float64 weights/output, float32 square, rows sum, non-contiguous, broadcast): "it matches using exp(scores) as weights without dividing by the row sum: rows do not sum to 1 (each row divided by its own sum gives the right weights, but the rows sum to 37.6 ... 182)": true of the effect (the weights are a softmax numerator per row, not normalised) and the fix (normalise by the row sum: in the log domain subtract the log-sum-exp) follows; borderline: the weights are exp(s) TIMES the row sum (rows sum to (sum exp s)^2), not exp(scores) itself, so "matches exp(scores)" is loose, and nothing says the log-sum-exp was added where it must be subtracted (the student's + line IS meant as the normalisation); q8 not charged
        "q1_log_domain_softmax_logsumexp_added_not_subtracted": ("weights_not_normalised",),
        # generic: both q2 failures None, "for d_k = 12 the variance of q.k is not within 10% of its expected value" (and the scaled one): says only that the variance is off, not its value (about 144 = d_k^2, and about 12 scaled); nothing says q.k is a sum of d_k independent terms, not d_k times one term (Var(d X) = d^2 Var(X))
        # now (naming round 55: dots_one_term_times_d_k, by replay of d_k * q_1 k_1 on a generator seeded as the student's)
        "q2_sum_of_iid_terms_taken_as_d_k_times_one_term": ("dots_one_term_times_d_k",),
        # inplace_alias_overwritten on all 3 q4 entropy failures (random logits, saturated rows, views): "softmax_entropy's values are -sum p^2 on the same logits: p was taken as log_p.exp_(), so log_p holds p too ... use the out-of-place op": exactly the mistake (exp_ overwrites log_p before the right operand is read) and its fix; borderline: the code has no `p =`, the exp_() is inline in the product, but the mechanism named is this one; the table tests not charged (entropy_table only calls softmax_entropy)
        "q4_entropy_exp_in_place_turns_log_probs_into_probs": ("inplace_alias_overwritten",),
        # generic: both q4 table failures None, "the entropy table (raw_std, scaled_std, H_raw, H_scaled) does not match the correct result in 15 of 16 entries (largest difference 0.0638 at index (3, 0) ...): wrong entries are spread over every row and column" (and 12 of 12 for other dims/seed): says what differs (small errors everywhere, the signature of low precision), but no key and nothing says the draws were cast to bfloat16 (keep float32)
        # now (naming round 55: table_low_precision, by replay of the table with q and k in bfloat16 (stds exact, entropies to bfloat16's rounding))
        "q4_table_scores_computed_in_bfloat16": ("table_low_precision",),
        # answer_computed_by_code on q5:test_q5_answer (the only failure): "'A', the letter your code worked out (`q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _power5))`) ... what it measures or compares is not what the question asks (look at ...)": right in kind (as blind48-54's q5 probes), the code picks a wrong option from a faulty measurement; borderline: it quotes the nearest-option line, not `_power5 = _fit5[1]`, nothing says numpy.polyfit returns the highest power first ([0] is the slope), and A's stated belief (scaled variance 1 for raw) is not the student's
        "q5_answer_probe_polyfit_intercept_read_as_slope": ("answer_computed_by_code",),
        # answer_computed_by_code on q5:test_q5_answer (the only failure): "'A' ... (`q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))`) ... what it measures or compares is not what the question asks": right in kind, and "what it measures is not what the question asks" is the very fault (entries of the outer product q.T @ k, not the inner product q.k); borderline: nothing says q.T @ k of (1, d_k) rows is a d_k x d_k outer product, and A's stated belief is not the student's
        "q5_answer_probe_q_transpose_k_taken_as_outer_product": ("answer_computed_by_code",),
        # answer_computed_by_code on q6:test_q6_answer (the only failure): "'C' ... (`if torch.allclose(_out6, _expected6, atol=1e-05): q6_answer = 'A' e...`) ... what it measures or compares is not what the question asks": quotes the check whose expected side is wrong, right in kind (as blind50-54's q6 checks); borderline: nothing says the (1, T) row slice is softmaxed over dim 0 (every weight 1, a plain sum), and C's stated belief (hard argmax) is not the student's (C is the fallback branch)
        "q6_answer_check_row_slice_softmaxed_over_dim0": ("answer_computed_by_code",),
        # answer_computed_by_code on q6:test_q6_answer (the only failure): "'D' ... (`if torch.allclose(_out6.mean(dim=0), _X6.mean(dim=0), atol=0.1): q6...`) ... what it measures or compares is not what the question asks": quotes the very test at fault (a consequence, the mean of the output rows, instead of every row equal to the mean), and D's stated belief (every key the same weight) is the student's; borderline: nothing says option A also nearly passes that test
        "q6_answer_d_tested_only_through_the_mean_of_outputs": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "'C' ... (`q7_answer = 'C' if torch.allclose(_before7, _after7) else 'D'`) ... what it measures or compares is not what the question asks": quotes the comparison that cannot differ, right in kind (as blind54's q7_answer_probe_compares_output_not_recomputed); borderline: nothing says `_V7_changed = _V7` is no copy (.clone()), so before and after use the same changed tensor, and C's stated belief (hard argmax) is not the student's
        "q7_answer_probe_changed_values_are_an_alias": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "'B' ... (`q7_answer = 'D' if torch.allclose(_out7, _out7_sorted, atol=1e-06) ...`) ... (option B stands for thinking attention searches the keys in order (so they must be sorted): it scores every key at once, in any order) ... what it measures or compares is not what the question asks": right in kind, B's belief is the student's conclusion and is refuted; borderline: nothing says torch.sort(K, dim=0) sorts each coordinate column on its own (the "sorted" keys are other keys), and the closing format example `q_answer = "B"` is the very letter this cell gives (only an example, but a reader may stumble)
        "q7_answer_sort_probe_sorts_each_key_coordinate_separately": ("answer_computed_by_code",),
        # raw: all 3 q8 failures None, only the exception "your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (5x444 and 48x48)" (and 7x300, 6x116): 444 = 12 x 37 windows shows the concatenation is far too wide, but nothing says unfold(1, d_k, 1) overlaps its windows (d_model - d_k + 1 heads; the step must be d_k)
        # now (naming round 55: mha_heads_overlapping_windows, by the crash's width and a second call with a W_O that wide, equal to the overlapping heads)
        "q8_heads_cut_by_unfold_with_step_one": ("mha_heads_overlapping_windows",),
        # generic: all 3 q8 failures None, "multi_head_attention(...) does not match the correct result in 240 of 240 entries (largest difference 2.78 ...)" (and the nn.MultiheadAttention and 8-head float32 tests): says only that every entry differs; nothing says W.view(n_heads, d_model, d_k) cuts consecutive memory chunks, not the column blocks W[:, h*d_k:(h+1)*d_k] (view(d_model, n_heads, d_k).permute(1, 0, 2))
        # now (naming round 55: mha_weight_blocks_viewed, by replay of heads projected with W.reshape(n_heads, d_model, d_k)[h])
        "q8_head_weight_blocks_viewed_without_permute": ("mha_weight_blocks_viewed",),
    },
# wrong 14: named right 8 / partly 0 / generic 4 / raw 2 / mis-named 0 / not caught 0; correct at full marks 5/5
    "sdpa-from-scratch": {
        # weights_as_output on q1:test_weights_shape (the only failure): "weights_shape is the shape of the output, not of the weight matrix: the weights have one entry per (query, key) pair": true of the value ((4, 10, 128), the output's shape, where (4, 10, 10) is meant) and says which answer to fix and what it should be; borderline, close to a mis-name: the key's "confusing the (T_q, T_k) weight matrix with the output" attributes a belief the student does not hold (the cell writes [4, 10, 10]); the cause is `out_shape = weights_shape` sharing one list, so out_shape[-1] = 128 writes into both, and nothing says so (copy with list(...) or write both tuples)
        # now (naming round 55: list_aliased_not_copied, by replay of the cell's list bindings (shared vs copied: the shared replay gives the student's (4, 10, 128), the copied one the right (4, 10, 10)); weights_as_output no longer fires on it)
        "q1_out_shape_list_aliases_the_weights_list": ("list_aliased_not_copied",),
        # fixed_axes on both q1 failures (weights_shape, out_shape): "its cell stopped with RuntimeError: The size of tensor a (4) must match ... the crash that Q @ K.T on 3-D keys: .T reverses every axis ((4, 10, 64) -> (64, 10, 4)), not the last two; use K.transpose(-2, -1) ...": exactly the mistake (.T on a 3-D tensor reverses all three axes) and its fix; the sentence is garbled ("the crash that ... gives on Q (4, 10, 64)") but reads
        "q1_probe_transposes_3d_keys_with_dot_T": ("fixed_axes",),
        # numpy_keyword on both q2 failures (score_variances, scale_divisor): "your code raised TypeError: var() received an invalid combination of arguments - got (ddof=int, dtype=NoneType, out=NoneType, axis=NoneType, ): passing NumPy's keyword (axis=, keepdims=, ddof=) to a torch function that takes torch's (dim=, keepdim=, correction=): ... x.var(correction=1)": true of the mechanism (np.var hands the tensor to Tensor.var with NumPy's keywords) and x.var(correction=1) is a working fix; borderline: nothing says np.var on a torch tensor calls the tensor's own .var, and a student who only drops ddof=1 still gets the error (np.var passes axis=, dtype=, out= anyway)
        "q2_np_var_called_on_the_torch_tensor": ("numpy_keyword",),
        # one_edit_fix on q3:test_float16_logits_in_the_thousands: "right with one change on line 3 of its cell (`x = x.masked_fill(torch.isneginf(x), -1e9) ...`): leave out line 3 ... your code raised RuntimeError: value cannot be converted to type c10::Half without overflow": the line at fault and the exact fix (-inf needs no replacing); neg_1e9_float16 on both q5 failures (float16, float16_large_scores): "float16 cannot hold the -1e9 your code fills masked scores with (use float('-inf'))": exactly the cause; borderline: the q5 message does not say the -1e9 is in stable_softmax (scaled_dot_product_attention's own masked_fill uses -inf), but q3's message shows the line
        "q3_masked_minus_inf_swapped_for_minus_1e9_overflows_float16": ("one_edit_fix", "neg_1e9_float16"),
        # softmax_sum_wrong_axis on all 16 failures (q3 x2, q5 x14): "it matches dividing by the sum over another axis than the softmax's dim (e.sum(dim=-2), or a fixed axis whatever dim is): the slices along dim no longer sum to 1; sum over the same dim as the max" (q5: "fails this test only because `stable_softmax` is wrong" or the same words): exactly the effect of F.normalize on its default dim=1 (a fixed axis whatever dim is) and the fix; borderline: nothing names F.normalize's dim default; q6 not charged
        "q3_exponentials_l1_normalised_with_f_normalize_on_its_default_dim": ("softmax_sum_wrong_axis",),
        # causal_ignores_T_k on both failures (q4 more_queries_than_keys, more_keys_than_queries): "causal_mask(9, 6) has shape (9, 9): a square mask from one length; it should be (9, 6), one row per query and one column per key": exactly the mistake and the fix; borderline: nothing names generate_square_subsequent_mask(T_q) as the square-only helper; q5/q6 not charged
        "q4_square_subsequent_mask_helper_ignores_t_k": ("causal_ignores_T_k",),
        # causal_includes_next on all 4 failures (q4 square / more queries / more keys, q6 weights3_causal): "causal_mask(11) is wrong: it matches a causal mask off by one the other way (tril(diagonal=1)): each token also sees the next one": exactly the effect (query i sees key i + 1); borderline: nothing says the query positions start at 1 while the keys start at 0
        "q4_query_positions_counted_from_one": ("causal_includes_next",),
        # fixed_axes on all 9 q5 failures: "your code raised IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 3) on 3-D inputs; the same values as 4-D inputs ... run and give the right result: your code expects 4-D inputs: ... use negative axes": exactly the mistake (dim=3 fits 4-D scores only) and the fix (dim=-1); borderline: the key's examples are K.T, transpose(1, 2) and unpacking, not a softmax dim, though "got 3" points at it; test_no_torch_sdpa_* fail on the same crash
        "q5_softmax_axis_hard_coded_to_3_from_4d_tutorial_code": ("fixed_axes",),
        # fixed_axes on all 6 q5 failures (4-D ones): "your code raised ValueError: too many values to unpack (expected 3) on 4-D inputs; the same values as 3-D inputs ... run and give the right result: your code expects 3-D inputs: ... B, T, d = Q.shape): use negative axes": names the very line (B, T, d = Q.shape) and the fix
        "q5_queries_unpacked_as_b_t_c_three_d_only": ("fixed_axes",),
        # invert_of_float_mask on q6:test_weights3_causal (the only failure): "TypeError: ~ (operator.invert) is only implemented on integer and Boolean-type tensors (line 5): ~ on a tensor of numbers (... such as torch.tril(torch.ones(T, T))): ... build it with dtype=torch.bool, or compare (mask == 0)": exactly the mistake, its line and its fix
        "q6_float_tril_matrix_inverted_with_tilde": ("invert_of_float_mask",),
        # softmax_base_2 on all 3 q6 failures (weights3, out3, weights3_causal): "it matches taking the exponentials with exp2 without multiplying the logits by log2(e): exp2(x) is exp(x ln 2), a softmax at another temperature; write exp2(x * math.log2(math.e)) or exp(x)": exactly the mistake and its fix
        "q6_trace_softmax_in_base_two_without_the_log2e_factor": ("softmax_base_2",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'A' if torch.isclose(_short, _right).any() else 'C'`) ... compare what each approach does to the sum of a row's weights ... what it measures or compares is not what the question asks (... the branch each outcome takes)": quotes the faulty .any() check, right in kind (as blind54's majority check); borderline: nothing says .any() is true as soon as one entry (the zeroed triangle) matches, .all() meant
        "q7_ambiguous_truth_value_silenced_with_any": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "'A', the letter your code worked out (`q_trap_answer = 'C' if _same is False else 'A'`) ... (look at ... the branch each outcome takes)": quotes the faulty `is False` test, right in kind (as blind54's `is` shape comparison); borderline: nothing says `is False` tests identity and a 0-dim tensor is never the False singleton (not _same or .item() meant)
        "q7_tensor_verdict_compared_with_is_false": ("answer_computed_by_code",),
        # madds_features_squared on q8:test_score_madds: "score_madds is 4194304 = T x d_k^2 = 1024 x 64^2: counting T d_k^2 multiply-adds ... instead of T^2 d_k: each of the T x T scores is one dot product of length d_k": exactly the mistake (d_k used twice for n and p) and the fix; cost_linear_in_T on q8:test_cost_ratio: "cost_ratio of 2 means a cost linear in T: every query meets every key, so T * T entries": true of the code's _madds (linear in T) and fixing it fixes the ratio; borderline: nothing says the ratio comes from the same T * d_k * d_k function, and "thinking ... linear" is a belief the student reached only through the formula
        "q8_madds_from_the_m_n_p_rule_with_the_inner_size_used_twice": ("madds_features_squared", "cost_linear_in_T"),
    },
# wrong 14: named right 14 / partly 0 / generic 0 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
}


BLIND56_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind56 (frozen at b299262, after red-team rounds 71-74, before naming round 55; measured at the bwrap level), judged
# by three helper sessions at first sight, each from `measure SLUG --set blind56 -v` (/tmp/measure56-SLUG.txt) and the
# full messages of each variant graded again: sdpa 7/14, scaled 12/14 (1 MIS-NAMED), pipeline 10/14: 29/42
    "sdpa-from-scratch": {
        # generic: both q1 failures (weights_shape, out_shape) None, "`weights_shape` is not defined: the cell that assigns it (Cell In[3]) stopped, your code raised IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 3) (line 2)": torch's words and the line point at permute(1, 3, 2), but no key and nothing says the axis numbers are MATLAB's, counted from 1 (permute(0, 2, 1) meant)
        # now (naming round 56: axes_counted_from_one, by replay (the cell's own 1-based permute on zeros of the question's shapes raises its crash) + source (permute numbers 1..n))
        "q1_keys_permuted_with_matlab_one_based_axis_numbers": ("axes_counted_from_one",),
        # generic: both q2 failures (score_variances, scale_divisor) None, "`raw_score_var` is not defined: the cell that assigns it (Cell In[6]) stopped, your code raised TypeError: can't convert type 'Tensor' to numerator/denominator (line 5)": only torch/statistics' own words and the line; nothing says iterating a tensor yields 0-dim tensors that statistics.variance cannot take (.tolist() first, or .var())
        # now (naming round 56: statistics_of_tensor, by replay (statistics.variance of a flattened tensor's 0-dim items raises the cell's crash))
        "q2_statistics_variance_fed_zero_dim_tensors_instead_of_floats": ("statistics_of_tensor",),
        # generic: q2:test_score_variances None (the only failure), "scaled_score_var is not the variance of the scaled scores": says which value differs (not even its value), nothing says raw_scores.view(-1) shares memory, so the in-place -= and pow_ turn raw_scores into squared deviations before the scaled variance is taken (clone, or out of place)
        # now (naming round 56: overwritten_in_place_then_reused, by replay (the variance of the scores once squared in place, / sqrt(8)) + source (an in-place write into a view of the scores the scaled line reads))
        "q2_hand_variance_squares_a_view_of_the_raw_scores_in_place": ("overwritten_in_place_then_reused",),
        # dtype_changed on all 14 failures (q3 x3, q5 x9, q6 x2): q3 "stable_softmax of a torch.float64 input comes back as torch.float32 for a torch.float64 input, with the right values: keep the input's dtype (cast back, or do not convert)"; q5 "your code raised RuntimeError: expected scalar type Float but found Double for float64 inputs; the same values in float32 run and are right: some step converts to float32 (.float(), a float32 tensor) and meets the input's dtype"; q6 "out3 is not defined: its cell stopped, and stable_softmax of the float64 scores comes back as torch.float32": exactly the mistake (as_tensor(x, dtype=torch.float32) converts every input) and its fix (do not convert); borderline only in that no message quotes the as_tensor line
        "q3_input_coerced_to_float32_with_as_tensor": ("dtype_changed",),
        # partly: dtype_changed on q3 matches_softmax and float16_logits ("stable_softmax of a torch.float32 input comes back as torch.float64 ... keep the input's dtype (cast back, or do not convert)"): exactly the effect of float_power and the fix; dtype_mix on all 11 q5 failures ("expected scalar type Float but found Double: mixing two dtypes in one operation: a tensor made without dtype= (float32 by default) or cast to another dtype meets the input's (float64, float16); ... cast with .to(x.dtype)"): true (the float64 weights meet V) and .to(x.dtype) fixes it; borderline: its examples (a tensor made without dtype=, inputs float64/float16) do not fit a float32 input meeting float64 exponentials, and nothing says torch.float_power always computes in float64; q3:test_minus_inf_entries None, "stable_softmax with -inf entries has dtype torch.float64, expected torch.float32 (the input's dtype)": says what differs, no key
        # now (naming round 56: dtype_changed on test_minus_inf_entries too)
        "q3_exponentials_from_float_power_come_back_float64": ("dtype_changed", "dtype_mix"),
        # causal_mask_all_false on all 4 failures (q4 x3, q6 weights3_causal): "causal_mask(11) is False everywhere, and so it is at every size tried ...: no query may see any key, not even itself ... Build the triangle first, then compare: ... or torch.ones(T_q, T_k, dtype=torch.bool).tril()": true of the effect, and the fix offered (ones(T_q, T_k).tril()) works; borderline: the key's example causes (a comparison typed inside the triangle call, & for |) are not this code's, and nothing says expand makes every entry one memory cell (stride 0) so the in-place tril_ writes False into all of them (clone before writing); q6's "fix causal_mask (Question 4) and this cell follows" is right
        "q4_in_place_tril_on_an_expanded_view_clears_every_entry": ("causal_mask_all_false",),
        # causal_mask_blocks_nothing on all 4 failures (q4 x3, q6 weights3_causal): "causal_mask(11) is True everywhere, so no query is kept from any key ...: it must be True only where key j <= query i, as torch.tril(torch.ones(T_q, T_k, dtype=torch.bool)) gives in one step": exactly the effect and a working fix; borderline: nothing says torch.triu_indices takes (row, col, offset), not NumPy's (n, k, m) (triu_indices(T_q, T_k, 1) meant)
        "q4_triu_indices_called_with_numpy_argument_order": ("causal_mask_blocks_nothing",),
        # partly: einsum_letter_on_two_axes on 9 q5 failures ("einsum(): subscript h has size 9 for operand 1 which does not broadcast with previously seen size 7: one einsum letter given to two axes of different lengths ...: each distinct axis needs a letter of its own ('qd,kd->qk')"): literally true (Flax's h lands on the query and key token axes, T_q != T_k) and 'qd,kd->qk' is the fix; borderline: nothing says the strings assume Flax's (length, heads, features) layout; 7 failures None: 6 raw ("your code raised RuntimeError: The size of tensor a (7) must match the size of tensor b (3) at non-singleton dimension 3": float32_4d_random_mask, float16, bfloat16, float16_large_scores, no_torch_sdpa x2) and test_vectorised ("could not be verified: it crashes on 3-D inputs with a full mask")
        # now (naming round 56: einsum_heads_layout, by a second call (right attention for (batch, length, heads, features) tensors) on every crash and the timing test)
        "q5_flax_layout_einsum_with_heads_before_features": ("einsum_letter_on_two_axes", "einsum_heads_layout"),
        # partly: dtype_changed on 7 q5 failures ("the output with mask=None comes back as torch.bfloat16 for a torch.float32 input, with the right values: keep the input's dtype (cast back, or do not convert)"): true of the effect and the fix (do not convert) holds; borderline: nothing names torch.autocast (the key's .float() / float32 tensor examples are not it); q5:test_float16_large_scores None, "the float16 output with large scores has dtype torch.bfloat16, expected torch.float16 (the input's dtype)": says what differs, no key
        # now (naming round 56: dtype_changed on test_float16_large_scores too, the right values within the rounding of large scores)
        "q5_whole_body_under_autocast_returns_bfloat16": ("dtype_changed",),
        # where_condition_not_bool on all 15 q5 failures: "your code raised RuntimeError: where expected condition to be a boolean tensor, but got a tensor with dtype Long: giving torch.where a condition that is not boolean: ... (use mask.bool() or mask > 0)": exactly the mistake (the int64 key count as the condition) and n_keys > 0 follows from "> 0"; borderline: the key's guesses (arguments in another order, a float 0/1 mask) are not this code's
        "q5_where_condition_is_a_key_count_not_a_bool": ("where_condition_not_bool",),
        # generic: q6:test_weights3_causal None (the only failure), "weights3_causal is not correct in row(s) [1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": says which rows differ and "recompute the scores" is a good hint, but no key and nothing says torch.exp(scores3, out=scores3) wrote the exponentials over the scores that the causal line reuses
        # now (naming round 56: overwritten_in_place_then_reused, by replay (the causal softmax of exp(scores3)) + source (exp with out= naming a tensor, or exp_))
        "q6_scores_exponentiated_in_place_with_out_then_reused_for_the_causal_weights": ("overwritten_in_place_then_reused",),
        # output_column_convention on q6:test_out3 (the only failure): "out3 has shape (2, 3) and equals the transpose of the right (3, 2) output: writing the output in the column-vector convention (V^T W^T, one column per query) ...; the notebook keeps one row per query, weights @ V, of shape (T_q, d_v)": true of the value (implicit "qk,kd" gives (W V)^T = V^T W^T) and weights @ V is a working fix; borderline: the column-vector belief is not the student's, and nothing says einsum without '->' orders the output letters alphabetically (d before q; "qk,kd->qd" meant)
        "q6_output_einsum_in_implicit_mode_sorts_the_axes_alphabetically": ("output_column_convention",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "q_trap_answer is 'B', the letter your code worked out (`q_trap_answer = 'B' if not torch.equal(_classmate_hides, _look_ahea...`) ... (option B stands for an upper-triangular (future-looking) mask ...): compare what each approach does to the sum of a row's weights ... what it measures or compares is not what the question asks": quotes the faulty comparison, right in kind (as blind55's q7 checks) and the hint points at C; borderline: nothing says TensorFlow's look-ahead mask marks 1 = hide while here True = may attend
        "q7_mask_read_with_tensorflow_look_ahead_convention_answers_b": ("answer_computed_by_code",),
        # count_per_query on q8 attn_entries and score_madds: "attn_entries is 1024, the count for one query: ... the weight matrix has T x T entries and Q K^T costs T x T x d_k": true of the values (1024 = T, 65536 = T d_k) and says what they should be; cost_linear_in_T on q8:test_cost_ratio: "cost_ratio of 2 means a cost linear in T: every query meets every key, so T * T entries": true of the code's ratio; borderline: "counting for one query" is not the student's thought, and nothing says torch.zeros(T) is a vector of T, not MATLAB's T x T (zeros(T, T) meant)
        "q8_matlab_zeros_n_taken_as_the_square_matrix": ("count_per_query", "cost_linear_in_T"),
    },
# wrong 14: named right 7 / partly 3 / generic 4 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
# blind56 (frozen engine, /tmp/frozen56), judged from `measure scaled-attention --set blind56 -v`
# (/tmp/measure56-scaled-attention.txt); full messages re-read by grading each variant again (/tmp/j56-scaled-attention/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "scaled-attention": {
        # MIS-NAMED: keepdim_left_on on all 6 q1 failures and q8:test_float64_against_reference, "the weight matrix has shape (1, 5, 7), expected (5, 7), and its values are right: keeping a reduced axis (keepdim=True, or a [..., None]) that the result should not have" (output (1, 6, 5), mha (1, 5, 12)): the shapes and "values are right" are true, but NOTHING IS REDUCED: the axis is an unsqueeze(0) added for bmm and never squeezed, which the catalogue's size_one_axes_added names ("extra axes of size 1 where nothing was reduced (... an unsqueeze or a [None] left in)"), as measure.py already rules for blind5's q04_nanogpt_buffer_shape and q5_mask_viewed_as_four_d ("keepdim_left_on blames a kept reduced axis (mis-name)"); checks.py takes keepdim_left_on here because the q1 checks pass reduced; q8's mha is untouched (the axis comes from attention) and the q8 message does not say so
        # now (naming round 56: size_one_axes_added, by replay (right values, one leading size-1 axis) and the source: no reduction keeps an axis (keepdim_left_on only where one does), the unsqueeze(0) quoted, in q1 and q8)
        "q1_batch_axis_added_for_bmm_never_removed": ("size_one_axes_added",),
        # raw: both q1 failures (float64 weights/output) None, only "your code raised RuntimeError: Double did not match Float": torch's words hint at a dtype clash, but nothing points at the allclose check or says torch.ones(Q.shape[0]) is float32 by default (dtype=weights.dtype); dtype_mix ("a tensor made without dtype= (float32 by default) ... meets the input's (float64 ...)") would be right, but "Double did not match Float" is not among the crash words that fire it; q8 not charged
        # now (naming round 56: dtype_mix, by replay: allclose's 'Double did not match Float' on float64 inputs, and the same call in float32 runs and both results are right (crash_words has the words too))
        "q1_row_sum_check_against_default_float32_ones": ("dtype_mix",),
        # scores_transposed on all 6 q1 failures: the 3 rectangular ones "your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (7x5 and 7x10), with T_q = 5 queries and T_k = 7 keys; with as many queries as keys it runs and its weights match computing K Q^T (keys as rows) instead of Q K^T (queries as rows)", the 3 square ones "it matches computing K Q^T ...": exactly what einsum("qd,kd") gives ('kq') and the fix (Q K^T); borderline: nothing says implicit-mode einsum sorts the output letters alphabetically ("qd,kd->qk" meant), but the student can act on it; q8 not charged
        "q1_einsum_implicit_output_sorted_alphabetically": ("scores_transposed",),
        # dtype_changed on both q1 failures (float64 weights/output): "your code raised RuntimeError: expected m1 and m2 to have the same dtype, but got: float != double on float64 inputs; on the same values in float32 it runs and both results are right, so a float32 tensor made inside meets an input of another dtype: ... (.float() or a float32 tensor never cast back)": true (torch.tensor of .item() floats is float32) and the fix in kind (keep the input's dtype); borderline: nothing names torch.tensor(...) of Python floats as the float32 tensor (dtype=Q.dtype); q8 not charged
        "q1_scores_from_item_loop_rebuilt_in_default_float32": ("dtype_changed",),
        # shared_sample on q2:test_unscaled_variance_is_d_k (the only failure): "for d_k = 12 the result is what the same generator gives when drawing one q (or one k) and reusing it for every sample: the pairs are not independent, and the variance given q is |q|^2, not d_k; draw n_samples of each": exactly the one broadcast key and its fix, confirmed by replaying the generator; minor: here it is k that is shared (|k|^2), which "(or one k)" covers
        "q2_one_key_broadcast_against_every_query": ("shared_sample",),
        # ignores_generator on q2:test_draws_from_generator (the only failure): "two generators with the same seed gave different results: this matches not drawing the samples from the generator passed in, as it is given (the global RNG, a new torch.Generator or numpy used instead, ...): the caller's seed must decide the draws": exactly the mistake (FloatTensor(...).normal_() draws from the global RNG); borderline: nothing says that normal_() without generator= is the culprit, but "the global RNG" points at it
        "q2_legacy_float_tensor_normal_ignores_generator": ("ignores_generator",),
        # dot_of_matrices on all 3 q4 entropy failures (random logits, saturated rows, views): "your code raised RuntimeError: 1D tensors expected, but got 2D and 2D tensors: calling torch.dot (or .dot) on matrices: it takes two 1-D vectors only; ... for one dot product per row (a * b).sum(dim=-1)": exactly the mistake and its fix; the table tests not charged
        "q4_entropy_torch_dot_only_handles_one_row": ("dot_of_matrices",),
        # entropy_wrong_dim on q4:test_entropy_random_logits and test_entropy_views: "softmax_entropy of a (2, 3, 5) tensor is wrong: it matches computing the entropy over the wrong dimension (down the columns instead of along each row)" (views: expected shape (2, 2), got (2, 1)): true, the match is an exact replay of F.cross_entropy(logits, p) (log_softmax and sum over dim 1); borderline: nothing says F.cross_entropy takes its classes on dim 1 (the student passed no dim, so must find that out), and the p inside is still over the last dim, so "the entropy over the wrong dimension" is loose; 1-D/2-D tests and the table not charged
        "q4_entropy_as_cross_entropy_class_axis_dim1": ("entropy_wrong_dim",),
        # answer_computed_by_code on q5:test_q5_answer (the only failure): "q5_answer is 'A', the letter your code worked out (`q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))`) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (as blind48-55's q5 probes); borderline: it quotes the nearest-option line, not `_dots5 = sum(_q5 * _k5)`, nothing says builtin sum adds the n rows (d_k sums over samples, variance n), and A's stated belief (the scaled variance for the raw one) is not the student's
        "q5_answer_probe_builtin_sum_adds_rows": ("answer_computed_by_code",),
        # answer_computed_by_code on q6:test_q6_answer (the only failure): "q6_answer is 'D' ... (`if torch.allclose(_w6, _w6[..., :1].expand_as(_w6)): q6_answer = 'D...`) ... (option D stands for giving every key the same weight ...) ... what it measures or compares is not what the question asks": quotes the equal-weights check that wrongly holds, and D's belief is the probe's conclusion; borderline: nothing says F.softmax without dim on a 3-D tensor normalises dim 0 (the batch of one, every weight 1) although softmax_implicit_dim exists in the catalogue
        "q6_answer_probe_batched_softmax_implicit_dim_zero": ("answer_computed_by_code",),
        # answer_computed_by_code on q6:test_q6_answer (the only failure): "q6_answer is 'C' ... (`if torch.allclose(_out6, _A6, atol=1e-05): q6_answer = 'A' elif tor...`) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": quotes the check that fails, right in kind (as blind55's q6_answer_check_row_slice_softmaxed_over_dim0); borderline: nothing says attention takes one token per ROW, so the (d, T) columns layout mixes features, and C's stated belief (hard argmax) is not the student's (C is the fallback branch)
        "q6_answer_probe_tokens_as_columns_matlab_layout": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C' ... (`q7_answer = 'C' if _best_weight7 >= 0.99 else 'D'`) ... (option C stands for thinking attention returns only the best-matching value (a hard argmax) ...) ... (look at ... the branch each outcome takes)": quotes the very comparison fed the wrong number, and C's belief is the probe's conclusion, refuted; borderline: nothing says torch.max(x, dim) returns (values, indices), so `_best_weight7` holds the argmax index
        "q7_answer_probe_max_pair_unpacked_index_first": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C' ... (`q7_answer = 'D' if int(_used7.sum()) == _K7.shape[0] else 'C'`) ... what it measures or compares is not what the question asks": quotes the count that comes out 0, right in kind; borderline: nothing says .to(torch.uint8) truncates every weight below 1 to 0 (the mask is _w7 > 0), and C's belief (hard argmax) is the fallback's, not what the probe tested
        "q7_answer_probe_weights_cast_to_uint8_mask_truncates": ("answer_computed_by_code",),
        # mha_heads_interleaved on all 3 q8 failures (float64 reference, nn.MultiheadAttention, 8 heads float32): "read back through W_O, the merged heads are the right heads stacked as (n_heads, T, d_k), laid out as (d_k, T, n_heads) (transpose(0, 2)) and reshaped to (T, d_model), so tokens and features are mixed; transpose(0, 1) to (T, n_heads, d_k) first": exactly what .T on the 3-D stack does and the fix; the key's tail ("torch.stack(heads, dim=-1) ... or another axis order") is generic but not false; borderline only in that it says transpose(0, 2) without naming .T
        "q8_heads_stack_T_reverses_every_axis": ("mha_heads_interleaved",),
    },
# wrong 14: named right 12 / partly 0 / generic 0 / raw 1 / mis-named 1 / not caught 0; correct at full marks 5/5
# blind56 (frozen engine, /tmp/frozen56), judged from `measure attention-pipeline --set blind56 -v`
# (/tmp/measure56-attention-pipeline.txt); full messages re-read by grading each variant again (/tmp/j56-attention-pipeline/full.py ->
# full.txt, same scores and keys as the measure) against each variant's "mistake" words and code; () where no failed
# test names it right
    "attention-pipeline": {
        # batched_input_unsupported on both q01 failures (batched float32, views): "your code raised RuntimeError: Expected size for first two dimensions of batch2 tensor ... for X (2, 3, 6, 10); on one slice of the same inputs (X (6, 10)) it runs and is right: code that works only for 2-D inputs (or one fixed number of dims) ...; use .transpose(-2, -1) or .mT and X.shape[-2]": true of the code (one vmap over the first axis is the token axis only for an unbatched X) and the student can act (make it work for leading batch axes); borderline: the causes it lists (.T, transpose(0, 1), bmm, X.shape[0], a 2-D reshape) are not this one and its fix (.mT) is already in the code; nothing says vmap maps over one axis only, so each call gets a whole (T, d_model) sequence (X @ W meant); q07/q09 not charged
        "q01_jax_style_token_vmap_assumes_unbatched_input": ("batched_input_unsupported",),
        # partly: einsum_letter_on_two_axes on q02:test_scores_noncontiguous and test_scores_broadcast: "einsum(): subscript h has size 7 for operand 1 which does not broadcast with previously seen size 5: one einsum letter given to two axes of different lengths ... each distinct axis needs a letter of its own ('qd,kd->qk')": true (on head-less tensors 'h' sits on the token axis of both Q (T_q) and K (T_k)) and 'qd,kd->qk' is the fix; borderline: nothing says the Flax pattern expects a heads axis these tensors lack; None on q02:test_scores_float64_rectangular (raw: "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0") and q02:test_scores_batched_float32 (generic: "S has shape (6, 2, 2), expected (2, 6, 6)"); q07/q09/q13 not charged
        # now (naming round 56: einsum_heads_layout_on_headless, by replay of the heads-axis equation on the test's Q and K (its crash words, or its S on a second call) on all four q02 tests)
        "q02_flax_head_axis_einsum_on_headless_tensors": ("einsum_letter_on_two_axes", "einsum_heads_layout_on_headless"),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "'d', the letter your code worked out (`if _H_raw.min() < 0: ans_scale = 'd' elif ...`) ... (option D stands for thinking an entropy can be negative: -sum p log p is at least 0 (0 for a one-hot row)) ... what it measures or compares is not what the question asks (look at its sign ...)": quotes the very branch at fault, and D's stated belief is the student's and is refuted (a one-hot row has entropy 0, so a "negative" value is an artefact); borderline: nothing says the 1e-12 inside log2(A + 1e-12) makes a one-hot row -1.4e-12 bits
        "q03_experiment_log_plus_epsilon_reads_negative_entropy": ("answer_computed_by_code",),
        # mask_blocks_nothing on all 3 q04 failures (pattern, dtype min, float16 finite): "the mask is all zeros, so no key is blocked: a mask that blocks nothing (all zeros) ...: often an out-of-place call (M.masked_fill(...), M.triu(...)) whose result is dropped; use masked_fill_ or assign the result": the headline is exactly the effect (`future` is all False), and with the masked_fill result returned the student is led to the condition; borderline: its "often" cause (a dropped out-of-place result) is not this code's (hedged, not asserted, so not a mis-name), and nothing says .T of a 1-D tensor is the same tensor, so pos.T < pos compares element-wise (pos[:, None] < pos meant); q07/q09 not charged
        "q04_matlab_column_transpose_of_1d_arange_blocks_nothing": ("mask_blocks_nothing",),
        # batched_input_unsupported on both q05 failures (non-contiguous, large float32): "your code raised IndexError: The shape of the mask [5, 8] at index 0 does not match the shape of the indexed tensor [2, 5, 8] ... for S (2, 5, 8), M (5, 8); on one slice of the same inputs (S (5, 8), M (5, 8)) it runs and is right: code that works only for 2-D inputs ...": true (S[M != 0] works only when S has M's shape) and torch's words point at the boolean index; borderline: the causes and fix it lists (.T, bmm, .mT, X.shape[-2]) are not this one; nothing says boolean-mask indexing does not broadcast (S + M meant); q07/q09/q13 not charged
        "q05_mask_added_through_boolean_index_fails_with_batch_axis": ("batched_input_unsupported",),
        # generic: q06:test_ans_mask None (the only failure), "`ans_mask` is not defined in your notebook (or is None): run every cell, keep the given names": says only that the name is missing; nothing says `ans_mask <- "c"` is R's arrow, which Python reads as the comparison ans_mask < -"c" (a NameError), so nothing is assigned (ans_mask = "c" meant)
        # now (naming round 56: answer_r_arrow_not_assigned, from the source (a module-level statement name <- value, < and - side by side; engine-wide))
        "q06_r_assignment_arrow_parsed_as_comparison": ("answer_r_arrow_not_assigned",),
        # tensor_to_number on all 3 q08 failures (random, attention row, views): "only one element tensors can be converted to Python scalars: turning a tensor of several values into one Python number: math.sqrt, math.exp, ... take one number; on a tensor use torch.sqrt, torch.exp, torch.log or **, which work entry by entry": exactly the mistake (math.exp on the score vector) and its fix
        "q08_math_exp_on_the_score_vector": ("tensor_to_number",),
        # raw: q09:test_prefix_average_matrix None (the only failure), only the exception "your code raised RuntimeError: Integers to negative integer powers are not allowed.": torch's words are a strong hint, but no key and nothing says torch.arange(1, T + 1) without dtype= is int64 (dtype=torch.float64, or 1.0 / counts, meant)
        # now (naming round 56: int_tensor_negative_power, by torch's crash words and the raising line's power (engine crash_words))
        "q09_int64_arange_to_power_minus_one": ("int_tensor_negative_power",),
        # zero_log_zero_nan on both q10 failures (causal rows, views): "H contains NaN on the rows with a zero weight and is right on the others: letting 0 * log 0 become NaN; masked (zero) weights must contribute 0", with the smallest input (a one-hot row gives nan): true (the patch replaces nothing, the NaN terms stay) and tells what must hold; borderline: the student did try to patch them, and nothing says NaN == NaN is False, so terms == float("nan") is all False (torch.isnan meant)
        "q10_nan_terms_patched_with_equality_test": ("zero_log_zero_nan",),
        # dtype_mix on q11:test_rank_S_lesson (the only failure): "`rank_S_lesson` is not defined: the cell that assigns it (Cell In[23]) stopped, your code raised RuntimeError: expected m1 and m2 to have the same dtype, but got: float != long int (line 5): mixing two dtypes in one operation: a tensor made without dtype= ... meets the input's ...; make new tensors with the input's dtype (torch.tensor(c, dtype=x.dtype)) or cast with .to(x.dtype)": true (both lesson tensors made without dtype=, the integer-literal K int64, the Q float32) and torch.tensor(..., dtype=...) is the fix; borderline: the key's "(float32 by default)" fits _Ql, nothing spells out that integer literals make an int64 ("long int" in torch's words does)
        "q11_lesson_keys_typed_as_integer_literals": ("dtype_mix",),
        # param_count_wo_ignored on q12:test_count_with_output (the only failure): "with_output=True gives 38688, the count without W_O, and with_output=False gives it too (right there): leaving W_O out when with_output=True: its d_v x d_model term is never added (... the flag is not read ...)": exactly the effect, and "the flag is not read" points at the if; borderline: nothing says ~ on a Python bool is the integer's bitwise inversion (~False == -1, ~True == -2, both truthy; `not` meant), as blind53's q12_output_flag_compared_with_string_true
        "q12_matlab_tilde_not_on_the_output_flag": ("param_count_wo_ignored",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "'d', the letter your code worked out (`ans_cross_shapes = [k for k, (s, o) in _options.items() if s == tup...`) ... (option D stands for giving the output one row per key (per token of Y): it has one row per query) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind, and "it has one row per query" is the very point the experiment's O (T' x d_v) misses; borderline: it quotes the search over the options, not the `.sum(0)` line, and nothing says .sum(0) adds over the queries instead of the keys (.sum(-2), or _A @ _V, meant)
        "q14_experiment_mix_summed_down_the_first_axis": ("answer_computed_by_code",),
        # generic: q15:test_ans_cross_causal None (the only failure), "`ans_cross_causal` is not defined: the cell that assigns it (Cell In[32]) stopped, your code raised RuntimeError: argmax(): does not support bool input (line 2)": the cell, the line and torch's words (near raw, but not only the exception), no key; nothing says torch's argmax (unlike NumPy's) refuses bool tensors (.int().argmax(), or the letter itself, meant)
        # now (naming round 56: argmax_of_bool, by torch's crash words (engine crash_words))
        "q15_option_picked_by_argmax_of_a_bool_tensor": ("argmax_of_bool",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "'d', the letter your code worked out (`ans_complexity = {1: 'b', 2: 'a', 4: 'c'}.get(round(_ratio), 'd')`) ... (option D stands for thinking the scores cost T^3 like a matrix inverse: T^2 scores of d_k multiply-adds each) ... (look at ... the sizes it uses ...)": right in kind ("the sizes it uses" points at the doubled shape, "T^2 scores" is what the ratio should show), as blind55's q16_doubled_length_squared_without_parentheses; borderline: it quotes the lookup, not the `_S_shape * 2` line, nothing says tuple * 2 repeats the tuple ((T, T, T, T), ratio T^2), and D's stated belief (cubic) is not the student's (D is the fallback)
        "q16_shape_tuple_times_two_repeats_the_shape": ("answer_computed_by_code",),
    },
# wrong 14: named right 10 / partly 1 / generic 2 / raw 1 / mis-named 0 / not caught 0; correct at full marks 5/5
}


BLIND57_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind57 (frozen at 83b455b, after red-team rounds 71-77, naming round 55 and sdpa's round 56; measured at bwrap), judged
# by three helper sessions at first sight, each from `measure SLUG --set blind57 -v` (/tmp/measure57-SLUG.txt) and the
# full messages of each variant graded again: sdpa 12/14 (1 MIS-NAMED), scaled 6/14 (3), pipeline 9/14 (1): 27/42 (5)
    "sdpa-from-scratch": {
        # output_width_dk on q1:test_out_shape (the only failure): "out_shape takes its last dimension from d_k; the output width comes from V": true (d_v unpacked from k_shape is 64 = d_k, out_shape (4, 10, 64)) and "comes from V" points at the copied line's k_shape (v_shape meant); borderline only in that no message quotes the line
        "q1_value_width_unpacked_from_the_keys_shape_in_a_copied_line": ("output_width_dk",),
        # fixed_axes on both q2 failures (score_variances, scale_divisor): "`raw_score_var` is not defined: its cell stopped with RuntimeError: The size of tensor a (2) must match the size of tensor b (8) ..., the crash that Q @ K.T on 3-D keys: .T reverses every axis ((2, 5, 8) -> (8, 5, 2)), not the last two; use K.transpose(-2, -1) gives": exactly the mistake and its fix
        "q2_keys_transposed_with_dot_t_on_the_batched_tensor": ("fixed_axes",),
        # raw_variance_of_scaled_scores on q2:test_score_variances (the only failure): "raw_score_var is 0.824893, what this mistake gives: computing the 'raw' variance from scores that were already scaled (an in-place div_ or /= on raw_scores changes it too): compute the scaled scores as a new tensor, raw_scores / sqrt(d_k)": the headline is exactly the mistake (raw_score_var = scaled_scores.var()); borderline: the hedged cause and fix (in-place div_, a new tensor) are not this code's (it already makes a new tensor; the fix is raw_scores.var()), and nothing quotes the copied line
        "q2_raw_variance_line_copied_from_the_scaled_one_reads_scaled_scores": ("raw_variance_of_scaled_scores",),
        # one_edit_fix on all 24 failures (q3 x4, q5 x17, q6 x3): "`stable_softmax` is right with one change on line 5 of its cell (`return torch.div(exps.sum(dim=dim, keepdim=True), exps)`): `torch.div(exps, exps.sum(dim=dim, keepdim=True))` in place of `torch.div(exps.sum(dim=dim, keepdim=True), exps)`"; q5/q6 say the same of the helper ("fails this test only because `stable_softmax` is wrong"): exactly the swapped arguments and the fix; it says what, not why (torch.div(a, b) is a / b), but the swap speaks for itself
        "q3_torch_div_given_the_sum_first_inverts_every_weight": ("one_edit_fix",),
        # float32_precision on all 6 failures (q3 matches_softmax, dim_argument; q5 float64_dk12, causal_rectangular, dv_differs_from_dk, gradients_float64): "stable_softmax of a torch.float64 input is right only to float32's precision (largest difference 1.1e-08) for a float64 input: some step computes in float32 (a float32 tensor or constant, or .float()); keep the input's dtype": exactly the mistake (.float() demotes float64) and its fix
        "q3_exponentials_upcast_with_float_demote_float64": ("float32_precision",),
        # default_none_not_replaced on both failures (q4:test_square, q6:test_weights3_causal): "causal_mask(11) raised TypeError: arange(): argument 'end' ... not NoneType, yet causal_mask(11, 11) with T_k given explicitly is right: never replacing the default T_k=None by T_q (`T_k == T_q` compares and throws the result away; it does not assign) ... write `if T_k is None: T_k = T_q`": exactly the mistake and its fix; q6's "its cell stopped, and causal_mask(3) raises" is right
        "q4_default_key_length_compared_with_double_equals_not_assigned": ("default_none_not_replaced",),
        # scale_constant on all 14 q5 failures: "called with d_k = 6 and then d_k = 11, it divides the scores by sqrt(8) both times: using a fixed d_k inside the function (a number, or the notebook's global d_k = 8 from Question 2) instead of the input's own width, d_k = Q.shape[-1]": true (the default 1 / math.sqrt(d_k) is the global d_k = 8) and Q.shape[-1] is the fix; borderline: it says "inside the function" while the constant is in the signature, and nothing says a default is evaluated once, at def time
        "q5_scale_default_argument_evaluated_once_from_the_global_d_k": ("scale_constant",),
        # keys_not_transposed on all 15 q5 failures: "your code raised RuntimeError: Expected size for first two dimensions of batch2 tensor ...; with as many keys as their width (T_k = d_k) it runs and matches multiplying Q @ K without transposing K: the scores are Q K^T": true (transpose(-1, -1) is a no-op, so the product is Q @ K) and a student who thought K transposed is sent to the transpose call; borderline: nothing says transpose(-1, -1) swaps the last axis with itself (-2, -1 meant)
        "q5_keys_transposed_minus_one_with_minus_one_is_a_no_op": ("keys_not_transposed",),
        # weights_as_output on q5:test_float32_no_mask (the only failure): "the output with mask=None is wrong: it matches confusing the (T_q, T_k) weight matrix with the output", smallest case "got a tensor of shape (1, 1, 2)": true of the effect (the mask=None branch returns the weights) and "mask=None" points at the branch; borderline: the confusion is not the student's belief (a debugging `return weights` left in), nothing names the early return
        "q5_debugging_return_of_the_weights_left_in_the_unmasked_branch": ("weights_as_output",),
        # trace_uses_batched_example on both q6 failures (out3, weights3_causal): "out3 is not defined: its cell stopped with RuntimeError ..., the crash of weights3 @ a (2, 5, 8) tensor: Question 2's batched V ... where this trace's V3, (3, 2), goes; out3 is weights3 @ V3": exactly the mistake and its fix
        "q6_output_mixed_with_the_batched_v_instead_of_v3": ("trace_uses_batched_example",),
        # generic: q6:test_weights3_causal None (the only failure), "weights3_causal is not correct in row(s) [1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": says which rows differ, not that they are all zeros, and nothing says the `return rows` indented into the for loop ends the helper after row 0 (dedent it)
        # now (naming round 57: helper_return_in_loop, by value (row 0 right, the later rows one fill: what one loop pass leaves) and source (the helper ends with a for whose body ends with return))
        "q6_causal_rows_helper_returns_inside_its_row_loop": ("helper_return_in_loop",),
        # one_edit_fix on q7:test_trap_answer (the only failure): "`q_trap_answer` is right with one change on line 6 of its cell (`_short[~mask] = 0.0`): leave out line 6 ... -- or -- `_mask` in place of `mask`", then torch's "IndexError: The shape of the mask [6, 9] ... does not match ... [4, 4] (line 6)": the second alternative is exactly the fix; borderline: the first (leave out line 6, regraded 35/35) passes only by dropping the classmate's zeroing from the check (plain softmax against the masked one, C for any shortcut), and nothing says `mask` is the comparison cell's leftover loop variable (the [6, 9] in torch's words shows it)
        "q7_check_indexes_with_the_loop_mask_left_over_from_the_comparison_cell": ("one_edit_fix",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "q_trap_answer is 'A', the letter your code worked out (`q_trap_answer = 'A' if torch.allclose(_short, _right) else 'C'`), and it is not the best answer (option A stands for zeroing masked weights after the softmax: rows no longer sum to 1): compare what each approach does to the sum of a row's weights ... what it measures or compares is not what the question asks": right in kind (as blind55/56's q7 checks) and the hint points at C; borderline: it quotes the comparison, not the masked_fill_ line, and nothing says the underscore writes -inf into _scores, so the shortcut is tried on scores already masked
        "q7_check_masks_the_scores_in_place_before_trying_the_shortcut": ("answer_computed_by_code",),
        # MIS-NAMED: one_edit_fix on q8:test_score_madds (the only failure): "`score_madds` and `attn_entries` are right with one change on line 4 of its cell (`T *= 2 # double the length for the ratio`): leave out line 4 (`T *= 2`) (checked on the test it failed ...)" + "score_madds is 268,435,456, not the number of multiply-adds of Q @ K.T": the doubling is needed for cost_ratio; the offered fix, regraded, still scores 34/35 (cost_ratio becomes 1: "how does T * T change when T doubles?"), so the student is sent to delete a right line (as earlier sets' q5_weights_and_values_multiplied_in_float16_to_save_memory and q1_tuple_plus_list_slice, whose one_edit_fix broke a right line or swapped in another mistake); the slip is the order: score_madds counted after T *= 2 (the cost at 2T, 4x the right count), to be counted before the doubling (or = _madds_before)
        # now (naming round 57: counted_after_rebinding, by replay of the cell with score_madds counted above T *= 2 (other names unchanged); the one_edit_fix 'leave out T *= 2' withheld: repair re-checks the cell's passing tests (cost_ratio))
        "q8_length_doubled_before_score_madds_is_counted_from_it": ("counted_after_rebinding",),
    },
# wrong 14: named right 12 / partly 0 / generic 1 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
    "scaled-attention": {
        # raw: all 6 q1 failures None, only "your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (5x12 and 4x3)" (the smallest case: Q, K, V (1, 2), "got your code raised RuntimeError: ... (1x2 and 4x3)"): the 4x3 operand is none of the inputs (it is the trace's global K, transposed), but no key and nothing says the helper _scores reads the notebook's K instead of its own parameter k; reads_global_not_parameter (its text names the trace's V; "use the parameter's name in the body") would be right, but its matmul-crash rule did not fire on a transposed global; q8 not charged
        # now (naming round 57: reads_global_not_parameter, by replay (two key matrices give the same weights: a fixed (d, c) key matrix))
        "q1_scores_helper_reads_notebook_global_keys": ("reads_global_not_parameter",),
        # MIS-NAMED: one_edit_fix on q1:test_float64_weights and test_noncontiguous_inputs, "`attention` is right with one change on line 5 of its cell (`scores = Q @ K.T / math.pow(0.5, d_k) ...`): `math.pow(d_k, 0.5)` in place of `math.pow(0.5, d_k)` (checked on all 5 inputs the tests gave it)": the slip at its place with the exact fix (right); but attention_top_k on test_float64_output, test_float32_square and test_broadcast_inputs, "it matches keeping only the k best-scoring keys of each query (a top-k sparse attention, the other scores masked to -inf; k = 1 is a hard argmax) instead of the softmax over every key (here k = 1 of the 4 keys: every other weight is exactly 0)": the values are one-hot, but NOTHING IS KEPT OR MASKED: every key is in the softmax, the scores are multiplied by 2 ** d_k (math.pow(0.5, d_k) = 0.5 ** d_k as divisor) so the softmax saturates; the student finds no top-k or -inf in the code; wrong_scale_constant ("softmax(Q K^T / c) with a different c") or the one_edit_fix seen on the other tests should have fired there; q8 not charged
        # now (naming round 57: wrong_scale_constant, by replay: a second and third call with the queries scaled down fit the c (0.5 ** d_k); attention_top_k now needs that second call to stay top-k's)
        "q1_scale_math_pow_arguments_swapped": ("one_edit_fix", "wrong_scale_constant"),
        # generic: all 9 failures None (6 q1, 3 q8), "the weight matrix has shape (1, 7), expected (5, 7)", "the output has shape (1, 5), expected (6, 5)", "multi_head_attention(...) has shape (1, 48), expected (5, 48)": says what differs (one row where T_q are asked), nothing says the return is indented into the loop over the queries so only the first query comes back (table_return_in_loop says exactly that for q4's table, nothing for attention); q8's messages do not say the fault is in attention
        # now (naming round 57: attention_return_in_loop, by replay (both results the right first row alone) and the source (source_checks.return_inside_loop); q8 held as attention's)
        "q1_return_indented_into_query_loop": ("attention_return_in_loop",),
        # generic: q2:test_scaled_variance_is_one None (the only failure), "for d_k = 12 with scaled=True the result is the unscaled variance of the same draws divided by 64 (its dot products divided by sqrt(64)), where dividing each dot product by sqrt(d_k) divides the variance by d_k = 12": true and a strong hint (where does 64 come from?), but no key and nothing says the scale reads d, the display loop's global left at 64, instead of the parameter d_k (reads_global_not_parameter in kind, its text is about the trace's V)
        # now (naming round 57: reads_global_not_parameter, by replay (the same divisor 64 at d_k = 20) and the source (a module-level name read, none of the parameters))
        "q2_scale_reads_display_loops_global_d": ("reads_global_not_parameter",),
        # scaled_flag_ignored on q2:test_scaled_variance_is_one (the only failure): "with scaled=True the result is the unscaled variance, about d_k: it matches returning the unscaled variance when scaled=True": exactly what comes back (var taken before the branch), and the fix (return the variance of the scaled dots) follows, as measure's q2_div_result_dropped and q2_scaling_after_the_dots; borderline: the flag is read (the dots are scaled, then unused) and nothing says the variance was stored before the `if scaled:` branch
        "q2_variance_stored_before_the_scaling_branch": ("scaled_flag_ignored",),
        # MIS-NAMED: table_ignores_dims on q4:test_entropy_table_lesson, "the table's rows are for d = [4, 16, 64, 256, 4, 16, 64, 256], not for the dims asked for, [4, 16, 64, 256] ...: looping over a hard-coded list of d's instead of the dims argument: any other dims give the default table; loop over dims": the headline (the rows repeated) is true, but THE LOOP IS OVER dims, nothing is hard-coded, and other dims do not give the default table: the rows list lives at cell level, so each call appends to the earlier calls' rows (as measure's q4_table_append_after_loop / q4_table_dims_popped_from_the_end: mis-named); q4:test_entropy_table_other_dims_and_seed None, "rows are for d = [4, 16, 64, 256, ... (8 calls' rows), 12, 48, 100], not for the dims asked for, [12, 48, 100]: loop over the dims argument": the rows show the accumulation, the advice is the same false one; no key says a list made once outside the function keeps every call's rows (rows = [] inside it)
        # now (naming round 57: state_shared_across_calls, by replay: two more calls with the same dims return len(dims) more rows each; table_ignores_dims now needs other dims to give the same d's)
        "q4_table_rows_list_created_once_at_cell_level": ("state_shared_across_calls",),
        # table_return_in_loop on both table failures (lesson, other dims and seed): "the table has only the first d's row (d = 4) of the dims asked for ... (its values are right), and called with dims = [256, 4] it has only the row for d = 256: ending the loop after its first pass (a `return` indented into the for body, or a `break`): the table holds only the first d's row": exactly the effect and it names `break` as a cause; borderline: its fix sentence is about the return's indentation ("put the return after the loop"), which is already so here; the student removes the break from the "or a `break`"
        "q4_table_debug_break_left_after_first_row": ("table_return_in_loop",),
        # generic: all 3 q4 entropy failures None: test_entropy_random_logits raw ("your code raised RuntimeError: shape '[-1, 5]' is invalid for input of size 36"), test_entropy_saturated_rows "softmax_entropy(logits) has shape (8,), expected (5,)", test_entropy_views "has shape (21,), expected (3, 5)": torch's words point at view(-1, 5), but no key and nothing says the row length is hard-coded as the lesson's 5 keys instead of logits.shape[-1] (sum over dim=-1 of the terms as they are); entropy_shape_not_restored is close (rows never reshaped back) but says the values are right, which they are not for T != 5
        # now (naming round 57: entropy_rows_hard_coded, by replay: probes with 10 and 15 logits a row return the entropy terms summed in chunks of 5)
        "q4_entropy_rows_viewed_with_lessons_five_keys": ("entropy_rows_hard_coded",),
        # one_edit_fix on all 3 q4 entropy failures (random logits, saturated rows, views): "`softmax_entropy` is right with one change on line 5 of its cell (`plogp = torch.where(p > 0, torch.zeros_like(p), p * torch.log(p))`): `torch.where(p > 0, p * torch.log(p), torch.zeros_like(p))` in place of ...", then "returned NaN for a saturated row (and it is wrong on ordinary logits too)": the slip at its place with the exact fix; borderline: nothing says torch.where takes the True value first (the fix shows it); the table test not charged
        "q4_entropy_where_branches_swapped": ("one_edit_fix",),
        # answer_computed_by_code on q5:test_q5_answer (the only failure): "q5_answer is 'D', the letter your code worked out (`q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _v5))`) ... (option D stands for squaring d_k ...) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": right in kind (as blind48-56's q5 probes) and "the sizes it uses" points at the call; borderline: it quotes the nearest-option line, not `dot_product_variance(10000, 16, _g5)`, nothing says d_k and n_samples are swapped (16 pairs of 10000-dim vectors), and D's stated belief is not the student's
        "q5_answer_probe_variance_called_with_d_k_and_n_samples_swapped": ("answer_computed_by_code",),
        # answer_computed_by_code on q6:test_q6_answer (the only failure): "q6_answer is 'D' ... (`q6_answer = min(_cands6, key=lambda s: (_cands6[s] - _out6).abs().m...`) ... (option D stands for giving every key the same weight (the mean of V) ...) ... what it measures or compares is not what the question asks": right in kind (the search over the options picks a wrong one); borderline: nothing says the probe passes the trace's global V where _X6 was meant (Q = K = V = X), and D's belief is the search's nearest miss, not the student's
        "q6_answer_probe_values_from_trace_global_v": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C', the letter your code worked out (`q7_answer = 'D' if _n_used7 > 1 else 'C'`) ... (option C stands for thinking attention returns only the best-matching value (a hard argmax) ...) ... (look at ... the branch each outcome takes)": quotes the very comparison fed the wrong count, and C's belief is the probe's refuted conclusion; borderline: nothing says the index enumerate leaves after the loop is the last one (1 for two keys), one less than the count (start=1 or a real count meant)
        "q7_answer_probe_counts_keys_with_leaked_enumerate_index": ("answer_computed_by_code",),
        # raw: all 3 q8 failures None, only "your code raised UnboundLocalError: cannot access local variable 'attention' where it is not associated with a value": Python's words name `attention`, a strong hint, but no key and nothing says unpacking the weights into `attention` makes the name local for the whole function, shadowing the q1 function (call the weights _ or attn_w)
        # now (naming round 57: name_shadows_function, by Python's UnboundLocalError words and the source (the name both called and assigned in the function, a module-level def))
        "q8_weights_unpacked_into_name_attention": ("name_shadows_function",),
        # MIS-NAMED: mha_heads_missing on all 3 q8 failures: "mat1 and mat2 shapes cannot be multiplied (5x12 and 48x48): 1 heads of d_k = 12 concatenated where there are 4; given only W_O's first 12 rows it runs, and its output is heads [3] (head(s) [0, 1, 2] left out): looping over fewer heads than n_heads (range(n_heads - 1), range(1, n_heads)): ... every head h in range(n_heads) must be computed and concatenated": the headline (only the last head, 3, concatenated) is exactly true, but THE LOOP RUNS ALL n_heads (every head is computed), only heads.append is dedented after it; the key's cause and both its examples (which would keep heads [0..2] or [1..3], not [3]) are false of the code (as measure's q8_head_stride_n_heads / q8_range_step_start_multiplied_again: the loop runs n_heads times, mis-named); unlike q8_return_inside_loop the loop does not end early; borderline: "heads [3] (... left out) ... must be ... concatenated" could lead the student to the append
        # now (naming round 57: append_after_loop, by replay (W_O cut: the last head alone) and the source (the append right after the loop); mha_heads_missing narrowed to a shorter range of heads)
        "q8_heads_append_dedented_after_loop": ("append_after_loop",),
    },
# wrong 14: named right 6 / partly 0 / generic 3 / raw 2 / mis-named 3 / not caught 0; correct at full marks 5/5
    "attention-pipeline": {
        # generic: all 3 q01 failures (float64, batched float32, views) None, "project_qkv should return 3 values (Q, K, V), got tuple": says only that the count of returned values is off (and "got tuple" reads oddly, since a tuple is what it should return), not that the tuple holds one item (Q,) nor that the return indented into the loop over (W_Q, W_K, W_V) ends the function on the first pass (dedent the return below the loop); q07/q09/q13 not charged
        # now (naming round 57: return_inside_loop, by replay (a tuple of fewer than three, each the right Q, K in order) and source_checks.return_inside_loop)
        "q01_return_indented_into_the_weight_loop": ("return_inside_loop",),
        # no_scale on all 4 q02 failures (float64 rectangular, batched float32, non-contiguous, broadcast): "S is wrong: it matches not scaling the scores at all": exactly what runs (the unscaled Q K^T is returned) and the fix (scale S) follows; borderline: the student sees a division line in the code, and nothing says the bare expression `S / math.sqrt(d_k)` is thrown away (S = S / ..., or S /= ..., meant), accepted as blind's q5_masked_fill_result_discarded (mask_ignored, the effect of a dropped result); q05/q07/q10/q13 not charged
        "q02_scaled_scores_computed_but_not_assigned": ("no_scale",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "ans_scale is 'c', the letter your code worked out (`if _H_raw < 0: ans_scale = 'd' elif _H_raw < _H_scaled - 0.5: ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied by the same constant ...) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": true (the experiment picks the letter) and "the sizes it uses" is the very cause (d_k = 4, not 512); C's belief is told as the option's, not the student's; borderline: it quotes the branch, not the pasted lines, and nothing says the lesson's 4-dimensional _Q and _K overwrote the 512-dimensional ones under the same names
        "q03_experiment_names_reused_for_lesson_vectors": ("answer_computed_by_code",),
        # mask_not_additive on all 3 q04 failures (pattern, dtype min, float16 finite): "the mask is True/False (1 on the blocked keys): returning the 0/1 (or True/False) pattern of the blocked keys instead of an additive mask: S + M then adds 1 ... blocked entries must hold torch.finfo(dtype).min and every other entry 0": true of what comes back (a bool tensor, True on the future keys, which adds 1 to the scores) and "True/False" points at the bool dtype; borderline: the student did write finfo(dtype).min, and nothing says M was allocated with the copied dtype=torch.bool, so the fill is stored as True (dtype=dtype meant); q05/q07/q09/q10 not charged
        "q04_mask_allocated_with_copied_bool_dtype": ("mask_not_additive",),
        # weights_not_normalised on all 5 q05 failures: "A is wrong: it matches using exp(scores) as weights without dividing by the row sum: rows do not sum to 1": exactly what is returned (the shifted exponentials, matched as the key's /shifted form) and the fix (divide by the row sum), which the student will find below the stray `return E`; borderline only in that nothing says the early debug return makes the normalising line unreachable; q07/q09/q10/q13 not charged
        "q05_debug_return_of_exponentials_left_in": ("weights_not_normalised",),
        # generic (the measure shows it "partly named"): answer_overwritten on q03:test_ans_scale, "ans_scale is 'c': the notebook sets it twice, and the later line replaces the earlier `ans_scale = 'b'` ... delete the line you do not mean": exactly the copied cell's effect on Question 3 and its fix; but q06:test_ans_mask None, "`ans_mask` is not defined in your notebook (or is None): run every cell, keep the given names": says the name is missing, nothing ties it to the Question 6 cell that sets ans_scale instead (the copied Question 3 cell with only the letter changed; ans_mask = "c" meant)
        # now (naming round 57: answer_cell_copied_name_kept, by source (ans_mask bound nowhere; ans_scale set by literals in two cells, the last a one-line cell) in q06's on_missing hook; q03 keeps answer_overwritten)
        "q06_q03_cell_copied_name_left_as_ans_scale": ("answer_overwritten", "answer_cell_copied_name_kept"),
        # scale_by_T on all 3 q08 failures (random, attention row, views): "the smoothed row is wrong: it matches scaling by 1/sqrt(a sequence length: the number of keys or of queries) instead of 1/sqrt(d_k)": true on every input (q.shape[-1] is read after q became the T-long score vector, so it is always the number of keys, not by accident on one shape) and the fix (sqrt(d_k)) follows, as blind's q5_d_k_read_after_transposing_keys; borderline: the student believes q.shape[-1] is d_k, and nothing says the name q was reused for K q (give the scores their own name)
        "q08_query_name_reused_for_scores_scales_by_key_count": ("scale_by_T",),
        # prefix_average_row_skipped on q09:test_prefix_average_matrix (the only failure): "W_avg is wrong: it matches a loop over the rows ... that starts one late or stops one early (range(1, T), ...): the first or last row ... stays all zeros ...; count 1 to T with torch.arange(1, T + 1)": exactly the mistake (range(1, T)) and its fix (range(1, T + 1)); q10 not charged
        "q09_row_loop_range_stops_before_last_row": ("prefix_average_row_skipped",),
        # generic: q10:test_effective_tokens None (the only failure), "effective tokens has shape (5,), expected (3, 6)": says what differs; nothing says effective_tokens ignores its argument and returns 2 ** H of the notebook's global H (the lesson table's five entropies) whatever A it is given (2 ** row_entropy_bits(A) meant)
        # now (naming round 57: reads_global_not_parameter, by a second call on other weights returning the same tensor and a def that loads none of its parameters and a notebook global)
        "q10_effective_tokens_returns_stale_lesson_entropies": ("reads_global_not_parameter",),
        # generic: q11:test_rank_S_lesson None (the only failure), "rank_S_lesson is 3, and S = Q K^T has rank 2: use torch.linalg.matrix_rank(S) ... 3 is also the number of singular values of S that are not exactly zero and the number of distinct query vectors ... A row that mixes others (0.5 q1 + 0.5 q3) adds no dimension": says what differs, and its last sentence hints at the lesson's last query row (0.5 q1 + 0.5 q3 = [0.5, 0.5, 0, 0]), but "use torch.linalg.matrix_rank(S)" and the rounding-noise guesses point at the rank call, which is already right; nothing says the student's own Q differs from the lesson's (its last row [0, 0, 0.5, 0.5] is retyped from the key row)
        # now (naming round 57: lesson_matrix_mistyped, by replay (matrix_rank of the notebook's typed Q K^T equals the answer; one matrix the lesson's, the other off in one or two rows))
        "q11_lesson_query_row_retyped_from_key_row": ("lesson_matrix_mistyped",),
        # MIS-NAMED: param_count_conditional_precedence on both q12 failures (qkv, with_output): "the count is 10720, W_O's weights alone (d_v * d_model = 40 * 268), with with_output=False and with with_output=True alike: a condition on the W_O term without parentheses: `+` binds before `if ... else` and before `and` ... parenthesise the W_O term ..., or add it in an `if with_output:` block": FALSE about this code: it has no conditional expression and no `and`, it already adds W_O in an `if with_output:` block, and with with_output=False the number is W_V's d_model * d_v, not W_O's; the cause is `total += n` dedented out of the shape loop, so only the last matrix's n is added (indent it into the loop); the check fires on off == on == d_v * d_model, which the last matrix gives for both flags
        # now (naming round 57: sum_after_loop, by replay of both flags (one matrix's count each, at the test's sizes and at (97, 5, 11)) and a source condition (an augmented total after a for loop reading a name its body binds); param_count_conditional_precedence narrowed to defs holding an if-else or and/or)
        "q12_sum_dedented_out_of_the_shape_loop": ("sum_after_loop",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is 'd', the letter your code worked out (`ans_cross_shapes = [k for k, (s, o) in _options.items() if s == tup...`) ... (option D stands for giving the output one row per key (per token of Y): it has one row per query) ... (look at ... the sizes it uses ...)": quotes the very line at fault, and "one row per key" is exactly the shape of V that it compares; borderline: the quote is cut before `o == tuple(_Vy.shape)`, and nothing names _Vy used for _O
        "q14_experiment_compares_value_shape_instead_of_output": ("answer_computed_by_code",),
        # causal_needs_square on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is not the best answer: that choice reflects tying the causal mask to a square score matrix: what matters is whether both sequences share one time axis": true of the letter given (b: "never: only square score matrices") and points at D, as blind's q15_answer_b; borderline: the student does not hold b's belief (the letter is Question 14's, left in a copied cell), but a bare `= "b"` gives no trace of that (unlike blind45's q15_answer_list_indexed_from_one, whose list held 'd'), and the message tells what option b stands for, not what the student thinks
        "q15_q14_cell_copied_letter_left_unchanged": ("causal_needs_square",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "ans_complexity is 'a', the letter your code worked out (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores) ... (look at ... the sizes it uses ...)": right in kind ("the sizes it uses" and "T^2 scores" point at the key count that does not double), as blind56's q16_shape_tuple_times_two_repeats_the_shape; borderline: it quotes the lookup, not `n * _T * _d_k`, and nothing says the helper reads the notebook-level _T for the keys, so doubling the length doubles only the queries
        "q16_cost_helper_reads_global_length_for_keys": ("answer_computed_by_code",),
    },
# wrong 14: named right 9 / partly 0 / generic 4 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
}


BLIND58_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind58 (frozen at c8e8d09, after red-team rounds 71-78 and naming rounds 55-57; measured at bwrap), judged
# by three helper sessions at first sight, each from `measure SLUG --set blind58 -v` (/tmp/measure58-SLUG.txt) and the
# full messages of each variant graded again: sdpa 6/14 (2 MIS-NAMED), scaled 10/14 (1), pipeline 9/14 (1): 25/42 (4)
    "sdpa-from-scratch": {
        # shape_dims_swapped on q1:test_out_shape (the only failure): "out_shape is (4, 128, 10): it holds the right sizes in another order ... (such as (batch, d_v, T) for (batch, T, d_v)): the query axis comes before the feature axis": exactly what V^T W^T left untransposed gives and the fix (one row per query, transpose back); borderline only in that nothing names the column-vector convention or quotes the line
        "q1_out_probe_in_the_column_vector_convention_left_as_values_t_times_weights_t": ("shape_dims_swapped",),
        # generic: q2:test_score_variances None (the only failure), "raw_score_var is 6.591 and scaled_score_var 0.8239, exactly 1/8 of it, so the scale is right; but neither is the variance of the example's scores (... 6.599): either other scores were measured or another statistic than their .var() was taken": true (the scale is right, the scores are not), but nothing says the sum over range(1, d_k) leaves out feature 0 (7 products, not 8; range(d_k) meant, Python counts from 0)
        # now (naming round 58: dot_product_skips_first_feature, by replay (the example's scores without feature 0) and source (a range starting at 1))
        "q2_dot_product_summed_from_index_one_as_written_skips_feature_zero": ("dot_product_skips_first_feature",),
        # MIS-NAMED: scale_precedence on q2:test_score_variances (the only failure), "scaled_score_var matches scores divided by d_k / 2 or 2 d_k: writing the scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 ... write d_k ** 0.5 or math.sqrt(d_k)": the code has no ** 1/2; it divides by math.sqrt(d_model), d_model = Q.shape[0] * d_k = 16, whose root 4 equals d_k / 2 = 4 by accident (as blind8's q5_uses_the_notebook_d_k and the accidental scale_by_T / scale_by_d_v of q1_scale_hardcoded_one_half); its fix math.sqrt(d_k) happens to be right, but the student is told of a precedence slip the code does not have; the catalogue's scale_by_batch_dim ("taking d_k from a leading axis (Q.shape[0] ... the batch or the heads), or multiplying it in ... the heads times the head width ...: divide by sqrt(Q.shape[-1])") is exactly this and did not fire
        # now (naming round 58: scale_by_batch_dim, by replay (raw / 16) and source (a leading axis read); scale_precedence needs a ** 1/2 there)
        "q2_scaled_by_root_of_batch_times_head_width_reading_the_batch_as_heads": ("scale_by_batch_dim",),
        # dtype_changed on the 3 q3 failures (matches_softmax, float16_logits_in_the_thousands, minus_inf_entries): "stable_softmax of a torch.float32 input comes back as torch.float64 ..., with the right values: keep the input's dtype (cast back, or do not convert)": exactly the mistake (x.double(), never cast back) and its fix; dtype_mix on all 11 q5 failures: "your code raised RuntimeError: expected scalar type Float but found Double (double != c10::Half ...): mixing two dtypes in one operation: a tensor made without dtype= (float32 by default) or cast to another dtype meets the input's ...; ... or cast with .to(x.dtype)": true (the float64 weights from stable_softmax meet the float32/half V in weights @ V) and actionable; borderline: the q5 messages do not say the cast tensor is stable_softmax's result (q3's messages do), and the "made without dtype=" half of the key is not this code's
        "q3_computed_in_float64_for_the_half_precision_warning_and_never_cast_back": ("dtype_changed", "dtype_mix"),
        # generic: all 21 failures None (q3 x4, q5 x14, q6 x3), "stable_softmax of a torch.float64 input does not match the correct result in 98 of 105 entries (largest difference 0.303 ...)", q5's smallest cases, q6's "weights3 is not correct in row(s) [0, 1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": say what differs; nothing says the exponentials are 10 ** x instead of e ** x (softmax(x ln 10), too sharp; torch.exp meant)
        # now (naming round 58: softmax_base_10, by replay (softmax(x ln 10)))
        "q3_exponentials_taken_in_base_ten": ("softmax_base_10",),
        # upper_triangular_mask on all 4 failures (q4 square, more_queries_than_keys, more_keys_than_queries; q6 weights3_causal): "causal_mask(11) is wrong: it matches an upper-triangular (future-looking) mask instead of a lower-triangular one": exactly the effect of band_part(ones, 0, -1) and the fix in kind (keep the lower triangle); borderline: nothing says band_part's arguments are (num_lower, num_upper), so (0, -1) keeps the upper triangle ((-1, 0) meant), but the student can act on it
        "q4_tensorflow_band_part_ported_with_the_lower_and_upper_bands_swapped": ("upper_triangular_mask",),
        # raw: all 15 q5 failures None, only "your code raised RuntimeError: The size of tensor a (7) must match the size of tensor b (9) at non-singleton dimension 0" and the smallest input: nothing says the inputs are batch-first and transpose(0, 1) swaps batch and tokens (drop the swaps); the catalogue's sequence_first_layout ("reading the inputs as sequence-first, (tokens, batch, features), as nn.MultiheadAttention does ...: here they are (batch, tokens, features)") is exactly this and did not fire
        # now (naming round 58: sequence_first_layout, by replay (a second call with axes 0 and 1 swapped, right once swapped back))
        "q5_inputs_read_sequence_first_and_swapped_to_batch_first": ("sequence_first_layout",),
        # generic (partly): upper_triangular_mask on q5:test_causal_rectangular only, "your code raised RuntimeError: The size of tensor a (11) must match the size of tensor b (5) at non-singleton dimension 2, with T_q = 5 queries and T_k = 11 keys; with 5 queries and 5 keys it runs and matches an upper-triangular (future-looking) mask instead of a lower-triangular one": true, not by accident (a (T_q, T_k) causal mask applied untransposed to (T_k, T_q) scores blocks the mirror image, letting queries see the future); borderline: the student's causal_mask is right, nothing says the mask must be transposed to the keys-by-queries scores; the other 11 None: raw crashes ("The size of tensor a (8) must match the size of tensor b (6) at non-singleton dimension 2"; dv_differs_from_dk adds "with as many queries as keys it runs and is right: the scores are (..., T_q, T_k)", a hint) and generic mismatches (4d_random_mask, float16, bfloat16, float16_large_scores "does not match the correct result in 656 of 672 entries")
        # now (naming round 58: mask_transposed_to_scores, by replay (square: attention under the mirrored mask; rectangular crash: a second call on a square probe with a non-symmetric mask matches the mirrored replay))
        "q5_keys_by_queries_scores_masked_with_the_untransposed_mask": ("upper_triangular_mask", "mask_transposed_to_scores"),
        # generic: all 13 q5 failures None, "the output with mask=None does not match the correct result in 200 of 210 entries (largest difference 0.33 ...)" with the smallest input: says what differs; nothing says the scores carry an extra factor log2(e) = 1.4427 that only an exp2 softmax needs (scale = 1 / math.sqrt(d_k) with torch.exp); a wrong-scale-constant key ("softmax(Q K^T / c) with another c") would be right
        # now (naming round 58: scale_extra_factor, by replay (the scale times log2(e) = 1.4427))
        "q5_scale_premultiplied_by_log2e_as_in_the_triton_kernel_with_a_natural_exp": ("scale_extra_factor",),
        # pos_inf_fill on all 12 q5 failures: "the float64 output (d_k = 12) is NaN on every row with a blocked key (and right with a mask that allows every key): it matches filling masked scores with +inf instead of -inf: every row with a blocked key becomes NaN": true (scores - (-inf) puts +inf on every blocked score, exactly that fill) and the fix in kind (-inf there: add the bias); borderline: the code fills with -inf and subtracts, so the student must find where the +inf comes from; nothing says the 0/-inf bias is added, not subtracted
        "q5_additive_mask_bias_subtracted_instead_of_added": ("pos_inf_fill",),
        # generic: all 3 q6 failures None, "weights3 should have shape (3, 3), got (4, 4)" and "`out3` is not defined: the cell that assigns it (Cell In[16]) stopped, your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x4 and 3x2) (line 3)": say what differs; nothing says Q3.T @ K3 is the d_k x d_k feature-by-feature matrix of the column-vector formula while Q3, K3 hold one token per row (Q3 @ K3.T meant)
        # now (naming round 58: scores_column_convention, by replay (softmax of Q3.T @ K3, (4, 4)) and for out3/weights3_causal the crash replayed with that weights3)
        "q6_transpose_put_on_the_queries_as_in_the_column_vector_formula": ("scores_column_convention",),
        # MIS-NAMED: scale_by_d_v on all 3 q6 failures (weights3, out3, weights3_causal), "weights3 is wrong: it matches scaling by 1/sqrt(d_v) (the width of V) instead of 1/sqrt(d_k)": the code never reads V's width; it divides by math.sqrt(2), the text's divisor 2 (= sqrt(4)) rooted again, and V3's d_v = 2 matches by accident (as blind8's q6_trace_scaled_by_token_count and q1_scale_hardcoded_one_half); the fix 1/sqrt(d_k) is right, but the student is told of a V width the code does not use; the catalogue's scale_root_taken_twice ("taking the square root twice ...: the scores are divided by d_k ** 0.25", here 4 ** 0.25 = sqrt(2)) is exactly this and did not fire
        # now (naming round 58: scale_root_taken_twice, by replay (sqrt(2) = 4 ** 0.25) and source (a root of 2 or of a root); scale_by_d_v needs V's width read)
        "q6_divisor_two_from_the_text_used_as_d_k_and_rooted_again": ("scale_root_taken_twice",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "q_trap_answer is 'A', the letter your code worked out (`q_trap_answer = 'A' if torch.allclose(_short, _right) else 'C'`), and it is not the best answer (option A stands for zeroing masked weights after the softmax: rows no longer sum to 1): compare what each approach does to the sum of a row's weights ... (look at ... the sizes it uses, the branch each outcome takes)": right in kind (as blind55-57's q7 checks) and its hint points at C; borderline: it quotes the comparison, not the `_mask = torch.ones(4, 4, dtype=torch.bool)` line, and nothing says an all-True padding mask blocks nothing, so the shortcut and the masked softmax agree trivially (causal_mask(4) meant)
        "q7_trap_tried_with_a_padding_mask_that_hides_no_key_answers_a": ("answer_computed_by_code",),
        # madds_counts_additions on q8:test_score_madds (the only failure): "score_madds is 133169152, T^2 x 127: counting the additions of each dot product (d_k - 1 of them, or 2 d_k - 1 flops: d_k multiplies and d_k - 1 adds) instead of its multiply-adds: a dot product of length d_k is d_k multiply-adds, so Q K^T costs T^2 d_k": exactly the mistake and its fix
        "q8_score_madds_counted_as_exact_flops_with_d_k_minus_one_additions": ("madds_counts_additions",),
    },
# wrong 14: named right 6 / partly 0 / generic 5 / raw 1 / mis-named 2 / not caught 0; correct at full marks 5/5
    "scaled-attention": {
        # uniform_weights on all 6 q1 failures (float64 weights/output, float32_square, rows_sum_to_one, noncontiguous, broadcast): "it matches giving every key the same weight (the mean of V) instead of the softmax of the scores"; rows_sum_to_one: "every weight is 1/T_k = 1/9 and the output is the mean of the value rows: the rows sum to 1, but Q and K never reach the weights ... weights = softmax(Q K^T / sqrt(d_k), dim=-1)": exactly what comes back (every score filled with -1e9, so 1/T_k everywhere), and "Q and K never reach the weights" sends the student to the one line between the scores and the softmax, the masked_fill; borderline: it tells the effect, not the cause: nothing says masked_fill(mask == 0, ...) on an all-zero additive mask blocks every key (add an additive mask, scores + mask, or fill from a boolean mask); q8 not charged
        "q1_additive_zero_mask_filled_where_equal_zero": ("uniform_weights",),
        # one_edit_fix on all 5 q1 failures: "`attention` is right with one change on line 7 of its cell (`Q_c = Q - Q.mean(dim=0, keepdim=True)`): `Q` in place of `Q - Q.mean(dim=0, keepdim=True)` -- or -- `Q` in place of `Q_c` on line 8 (checked on all 5 inputs the tests gave it)": the very line at fault and the exact fix (drop the centring of the queries); borderline only in that it says what, not why (subtracting the mean query shifts score (i, j) by mean(q) . k_j, different per key, so the softmax changes; only a shift per row cancels); q8 not charged
        "q1_queries_centred_over_tokens_for_shift_invariance": ("one_edit_fix",),
        # MIS-NAMED (the measure shows it "partly named"): q1:test_float64_weights None, "the weight matrix does not match the correct result in 35 of 35 entries (largest difference 0.33 at index (2, 6) ...)" (T_q = 5, T_k = 7: generic); q1:test_float64_output causal_mask_added, "the output is wrong: with the other result of the same call it matches applying a causal mask (query i sees only keys 0 to i) where every query attends to every key": it fired on check_size_one_axes's one-query case (T_q = 1 < T_k), where blocking the keys past the last query happens to block keys 1.. like a top-left causal mask; but THE CODE HAS NO CAUSAL MASK: it blocks keys j >= T_q for EVERY query (at T_q = 5, T_k = 7 both query 0 and query 4 see keys 0..4), the message names neither the one-query input nor the `scores[:, T_q:] = -inf` line, so the student is told of a per-query mask they did not write; "where every query attends to every key" is the right remedy (borderline for that), but the key's cause is false of the code
        # now (naming round 58: padding_mask_past_queries, by replay of scores[:, T_q:] = -inf on both results (T_q > 1), and at T_q = 1 by a second call with 3 queries and 6 keys (causal_mask_added needs that call too))
        "q1_keys_beyond_query_length_masked_as_padding": ("padding_mask_past_queries",),
        # not caught: 28/28: dividing by sqrt(d_k - 1) gives a scaled variance of d_k / (d_k - 1), 1.09 at the tests' d_k = 12 and 1.05 at 20, inside the 10% tolerance; only a small d_k (2: variance 2, 4: 1.33; 1: division by zero) shows it; no key says the scale borrows the unbiased estimator's n - 1
        # now (naming round 58: scale_d_k_minus_one, by a second call: the unscaled result of the same generator is exactly d_k - 1 times the scaled one on both generators (another exact constant fails unnamed))
        "q2_scale_with_bessel_d_k_minus_one": ("scale_d_k_minus_one",),
        # scale_precedence on q2:test_scaled_variance_is_one (the only failure): "for d_k = 12 with scaled=True the result is the unscaled variance of the same draws divided by 36 (its dot products divided by d_k / 2, as a scale d_k ** 1/2 = (d_k ** 1) / 2), and for d_k = 20 likewise: writing the scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 ... write d_k ** 0.5 or math.sqrt(d_k)": exactly the mistake (the parenthesised `(d_k ** 1 / 2)` is d_k / 2, 36 = 6 ** 2) and its fix
        "q2_scale_parenthesised_d_k_pow_1_over_2": ("scale_precedence",),
        # generic: all 3 q4 failures None (random_logits, saturated_rows, views), "softmax_entropy(logits) does not match the correct result in 6 of 6 entries (largest difference 1.05 ...)", the smallest views case "expected [[0.0461], [0.0461]] got [[0.647], [0.647]]" (ln 2 - 0.0461): says what differs, nothing says the function returns ln T - H, the divergence from the uniform row (sum p ln p + ln T), where H = -sum p ln p is asked (0 on a saturated row, ln T on a uniform one); entropy_sign (the minus sign dropped) is near but would be false of the + ln T; q4's table tests not charged
        # now (naming round 58: entropy_as_kl_from_uniform, by replay of ln T + sum p ln p on the same logits)
        "q4_entropy_reported_as_kl_from_uniform": ("entropy_as_kl_from_uniform",),
        # entropy_log_base on both q4 table failures (lesson, other_dims_and_seed): "the entropy table (raw_std, scaled_std, H_raw, H_scaled) is wrong: it matches measuring entropy with log base 2 or 10 instead of the natural log": exactly what the table does (H_raw, H_scaled divided by ln 2, bits) and the fix (nats, as softmax_entropy returns); borderline only in that it does not quote the `/ math.log(2)` (the student's softmax_entropy itself uses the natural log, but the message places the fault in the table)
        "q4_table_entropies_converted_to_bits": ("entropy_log_base",),
        # one_edit_fix on both q4 table failures: "`entropy_table` is right with one change on line 10 of its cell (`for i in range(1, len(dims)): ...`): `0` in place of `1` (... 2 pass)" + "the table has only the rows for d = [16, 64, 256] of the dims asked for, [4, 16, 64, 256] (its values are right): the rows for d = [4] are missing": exactly the slip (1-based start over a 0-based tuple) and its fix; borderline: the tail "Build and append one row per d inside the loop, and return the table after the loop" is generic advice the code already follows (harmless, the one_edit_fix comes first)
        "q4_table_dims_walked_one_based_skips_first": ("one_edit_fix",),
        # variance_d_k_squared on q5:test_q5_answer (the only failure): "q5_answer is not the best answer: that choice reflects squaring d_k: the variances of the d_k independent products add up to d_k, they do not multiply": right in kind and the correction ("the variances ... add up to d_k") is exactly what the student needs; borderline: the student added standard deviations (sd = d_k, so var = d_k^2), not multiplied variances, so "they do not multiply" is not their step
        "q5_answer_standard_deviations_added_not_variances": ("variance_d_k_squared",),
        # uniform_weights on q6:test_q6_answer (the only failure): "q6_answer is not the best answer: that choice reflects giving every key the same weight (the mean of V) instead of the softmax of the scores": exactly the reading ('no learned projections' as 'no weighting', D the plain mean) and the fix (the softmax of X X^T / sqrt(d_k) still weights)
        "q6_answer_no_learned_projections_read_as_uniform_weights": ("uniform_weights",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C', the letter your code worked out (`q7_answer = 'C' if _rows7[-1]['H_raw'] < 0.001 else 'D'`), and it is not the best answer (option C stands for thinking attention returns only the best-matching value (a hard argmax) instead of a weighted mixture) ... what it measures or compares is not what the question asks (look at ... the sizes it uses, the branch each outcome takes)": true (the check picks C) and the quote shows `H_raw`; borderline: nothing says the unscaled row is not what scaled attention does (H_scaled, near ln 5, is the relevant one); right in kind as blind57's q7 checks
        "q7_answer_from_collapsed_unscaled_row_of_the_table": ("answer_computed_by_code",),
        # mha_scale_by_d_model on all 3 q8 failures: "multi_head_attention(...) is wrong: it matches scaling each head's scores by sqrt(d_model) instead of sqrt(d_k = d_model / n_heads)": exactly the mistake (queries pre-scaled by d_model ** -0.5 with attention(..., 1)) and its fix; borderline only in that it does not quote the d_model ** -0.5 factor
        "q8_queries_prescaled_by_model_width_like_mha": ("mha_scale_by_d_model",),
        # generic: all 3 q8 failures None (reference, torch MHA, eight heads), "multi_head_attention(...) does not match the correct result in 240 of 240 entries (largest difference 3.22 ...)": says only that it differs; nothing says each token attends only to its own key (Q[t:t+1], K[t:t+1], V[t:t+1]: every softmax over one key is 1, the result is X @ W_V @ W_O) while every token should attend over all T keys; self_attention_identity's words ("a token in self-attention attends only to itself") would fit
        # now (naming round 58: mha_tokens_attend_only_themselves, by replay X @ W_V @ W_O (each token attending only its own key))
        "q8_tokens_read_as_batch_each_attends_only_itself": ("mha_tokens_attend_only_themselves",),
        # mha_single_head on all 3 q8 failures: "it matches running one attention over the full width (as if n_heads were 1) instead of n_heads heads of d_k = d_model / n_heads columns each": true (every head slices one full-width attention's output, so the concatenation is that one attention) and the fix (slice Q, K, V per head before the call) follows; borderline: "(as if n_heads were 1)" would scale by sqrt(d_model), while this code scales by sqrt(d_k) (matched as mha_single_head/scaled_by_d_k, unsaid), and nothing says the slicing is on the output
        "q8_full_width_attention_output_sliced_per_head": ("mha_single_head",),
    },
# wrong 14: named right 10 / partly 0 / generic 2 / raw 0 / mis-named 1 / not caught 1; correct at full marks 5/5
    "attention-pipeline": {
        # generic: q01:test_project_views None (the only failure), "Q for a transposed, expanded X and transposed weights has shape (5, 3, 12), expected (3, 5, 12)": says what differs (batch and time axes swapped) but nothing says project_qkv moves a (B, T, d_model) input to nn.MultiheadAttention's sequence-first (T, B, d_model) with X.transpose(0, 1) (tokens are rows, leading batch axes kept: drop the transpose); only the views test caught it (q01's other tests, q07, q09, q13 not charged)
        # now (naming round 58: projection_sequence_first, by replay (Q, K, V all the right ones with axes 0 and 1 exchanged) and the source (project_qkv exchanges axes 0 and 1: transpose(0, 1), permute(1, 0, ...), swapaxes))
        "q01_batched_input_moved_to_sequence_first_like_multihead_attention": ("projection_sequence_first",),
        # generic: all 4 q02 failures None: test_scores_batched_float32 "S has shape (2, 16, 16), expected (2, 6, 6)" says what differs; float64 rectangular, non-contiguous and broadcast are raw ("mat1 and mat2 shapes cannot be multiplied (12x5 and 8x12)", "Expected size for first two dimensions of batch2 tensor ..."); nothing says S = Q^T K is the column-vector formula applied to row-stored Q, K (the transpose goes on K: Q K^T, a d_k x d_k matrix otherwise); q05/q07/q09/q10/q13 not charged
        # now (naming round 58: scores_queries_transposed, by replay (a call with T_q = T_k gives exactly Q^T K / sqrt(d_k), d_k x d_k) and the source (scaled_scores transposes its first parameter), on the crash and the shape failure alike)
        "q02_column_convention_transposes_queries_not_keys": ("scores_queries_transposed",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "ans_scale is 'a', the letter your code worked out (`if abs(_H_deleted - _H_kept) < 0.001: ans_scale = 'c' elif _H_delet...`) ... (option A stands for thinking larger scores make the softmax flatter ...) ... what it measures or compares is not what the question asks": true (the experiment picks the letter) and points at _H_deleted, which divides by d_k instead of using no scale at all; borderline: the quote is the branch, not the `/ _d_k` line, and nothing says "delete the factor" means no scale (not 1/d_k); A's belief is told as the option's, not the student's
        "q03_deleting_the_root_read_as_scaling_by_one_over_d_k": ("answer_computed_by_code",),
        # causal_includes_next on all 3 q04 failures (pattern, dtype min, float16 finite): "it matches a causal mask off by one the other way (tril(diagonal=1)): each token also sees the next one": exactly what the loop builds (row t - 1 blocked from key t + 1, so tril(1)) and the fix (block from the key after the diagonal) follows; borderline only in that nothing says the 1-based t is used as a 0-based slice start (M[t - 1, t:] meant); q07/q09/q10/q13 not charged
        "q04_one_based_row_loop_blocks_from_t_plus_one": ("causal_includes_next",),
        # MIS-NAMED: uniform_weights on all 4 q05 failures (float64 rectangular mask, float16, non-contiguous, large float32): "A is wrong: it matches giving every key the same weight (the mean of V) instead of the softmax of the scores": the effect only, and false as told: the code does take the softmax of the scores, and with blocked keys it gives them 0 (the grader's variant is softmax(M), equal weight on the visible keys only, not the mean of V); the cause is `(1.0 - M) * finfo.min`, the additive mask converted again as if it were a 1/0 keep mask (finfo.min added to every open entry swamps S), which additive_mask_as_boolean's text ("treating the additive float mask as a boolean one ... this mask holds 0 and a very negative number, to be added to the scores (S + M)") would say; as blind14's q05_masked_fill_where_mask_is_zero; q07/q09/q10/q13 not charged
        # now (naming round 58: additive_mask_as_boolean, by replay of the keep-mask conversion S + (1 - M) * finfo.min in S's dtype (or (1 - M) != 0 filled) and a second call with a 1/0 keep mask giving the softmax over its 1 entries; uniform_weights no longer said)
        "q05_additive_mask_converted_again_like_hf_extended_mask": ("additive_mask_as_boolean",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "ans_mask is 'b', the letter your code worked out (`ans_mask = 'b' if _rank_off < _rank_on else 'c'`) ... (option B stands for thinking the causal mask is about the rank of the scores: it is about which tokens a position may read)": quotes the very line and says exactly why the rank experiment misses the question; borderline only in that it does not say the -1e9 stand-in is what makes S + M full rank
        "q06_masked_scores_full_rank_read_as_rank_lost_without_mask": ("answer_computed_by_code",),
        # generic: all 3 q08 failures None (random, attention row, views), "the smoothed row does not match the correct result in 5 of 5 entries (largest difference 0.226 ...)": says only that the values differ; nothing says the scores are divided by the query's norm |q| instead of sqrt(d_k) (q.norm() for math.sqrt(q.shape[-1]))
        # now (naming round 58: scale_by_query_norm, by replay (exp(K q / |q|), kept only where |q| is no other scale the catalogue tries))
        "q08_kernel_scaled_by_query_norm": ("scale_by_query_norm",),
        # generic: q09:test_prefix_average_matrix None (the only failure), "W_avg has shape (10, 10), expected (9, 9)": says what differs; nothing says the lesson's 1-based rows and columns were kept, a (T+1) x (T+1) matrix with an unused row and column 0 (index from 0: T x T, row t averages columns 0..t); q10 not charged
        # now (naming round 58: prefix_average_one_based, by replay ((T+1) x (T+1), row and column 0 zero, the rest the right matrix))
        "q09_one_based_indices_kept_with_unused_row_and_column_zero": ("prefix_average_one_based",),
        # one_edit_fix on both q10 failures (causal rows, views): "`row_entropy_bits` is right with one change on line 3 ...: `-(A * logs).sum(dim=-1)` in place of `torch.round(-(A * logs).sum(dim=-1), decimals=2)`", with "H does not match ... (largest difference 0.00407 ...)": exactly the rounding and its removal; effective_tokens (which inherits it) not charged separately
        "q10_entropies_rounded_to_the_tables_two_decimals": ("one_edit_fix",),
        # rank_above_min on q11:test_rank_S_lesson (the only failure): "rank_S_lesson is d_k (4) and the larger of rank Q (2) and rank K (4) ... giving a bound above this S's rank ...: rank(Q K^T) <= min(rank Q, rank K) ... torch.linalg.matrix_rank counts it": true (the rank of [Q; K] stacked is at least the larger of the two ranks, so it is a bound above, and 4 is d_k and rank K) and the fix follows (the rank of the product, matrix_rank of Q K^T); borderline: nothing says torch.cat([_Q, _K]) is the wrong matrix (the span of Q and K together, not of S), and the numbers are read as d_k / max of ranks, not as the stacked rank; as blind's q11_rank_of_keys_alone
        "q11_lesson_rank_of_queries_and_keys_stacked": ("rank_above_min",),
        # one_edit_fix on both q12 failures (qkv, with_output): "`qkv_param_count` is right with one change on line 5 of its cell (`return n * 4 # float32: 4 bytes per weight`): `n` in place of `n * 4`": exactly the mistake and its fix; borderline only in that the follow-on "the count is wrong (for d_v different from d_k)" is the test's case label (the count is 4x off for any sizes) and nothing says a count of weights, not bytes, is asked
        "q12_count_returned_in_float32_bytes": ("one_edit_fix",),
        # cross_is_self_attention on q14:test_ans_cross_shapes (the only failure): "that choice reflects taking the keys and values from X as well (that is self-attention, not cross-attention)": true of the letter (a square T x T S is what self-attention gives) and it points at the fix (the keys are Y's T' tokens: S is T x T'); borderline: the student's reason (T' read as T transposed, the same length) is not named, and the belief is told as the option's; as blind2's q14_answer_square_scores
        "q14_t_prime_read_as_t_transposed_answers_square": ("cross_is_self_attention",),
        # causal_in_cross on q15:test_ans_cross_causal (the only failure): "that choice reflects applying a causal mask in cross-attention, where queries and keys come from different sequences": true of 'a' (always) and points at D (only when X and Y share one time axis); borderline: nothing says a causal mask is not the padding mask the student has in mind (padding masks are still needed, causal ones are not); as blind2's q15_answer_always
        "q15_causal_mask_read_as_padding_mask_answers_always": ("causal_in_cross",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "ans_complexity is 'd', the letter your code worked out (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}[_score_flops(200)...`) ... (option D stands for thinking the scores cost T^3 like a matrix inverse: T^2 scores of d_k multiply-adds each) ... (look at ... the sizes it uses ...)": "T^2 scores of d_k multiply-adds each" is exactly the correction (the inner size is d_k, not T) and "the sizes it uses" points at _matmul_flops(T, T, T); borderline: the quote is the lookup, not the helper, and "like a matrix inverse" is the option's belief, not the student's
        "q16_flop_count_takes_both_factors_as_t_by_t": ("answer_computed_by_code",),
    },
# wrong 14: named right 9 / partly 0 / generic 4 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
}


BLIND59_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind59 (frozen at 221f367 (sdpa at 0dffb49), after red-team rounds 79-86 and naming round 58; measured at bwrap), judged
# by three helper sessions at first sight, each from `measure SLUG --set blind59 -v` (/tmp/measure59-SLUG.txt) and the
# full messages of each variant graded again: sdpa 8/14 (1 MIS-NAMED), scaled 8/14 (2), pipeline 10/14 (2): 26/42 (5)
    "sdpa-from-scratch": {
        # output_width_dk on q1:test_out_shape (the only failure): "out_shape takes its last dimension from d_k; the output width comes from V": true in effect (the probes are unpacked Q, V, K against shapes listed Q, K, V, so `_Vp` is the 64-wide keys probe and the output gets d_k's 64, not d_v's 128) and the fix in kind (the output's width is V's, 128); borderline: nothing says the unpacking order is wrong or that slicing `_Kp[..., :64]` only silenced the matmul error, but a student told "from V" finds that `_Vp` is 64 wide
        "q1_keys_and_values_probes_unpacked_in_the_wrong_order_and_the_shape_error_sliced_away": ("output_width_dk",),
        # generic: q2:test_score_variances None (the only failure), "raw_score_var is 15.54 and scaled_score_var 1.943, exactly 1/8 of it, so the scale is right; but neither is the variance of the example's scores (... 6.599): either other scores were measured or another statistic than their .var() was taken": true, says what differs; nothing says the variance is taken per query row (var(dim=-1)) and the .item() error patched by picking [0, 0], the 5 scores of one query (.var() of all 50 scores meant); the catalogue's variance_of_one_slice ("raw_scores[0], the first sequence") and mean_of_slice_variances are near and did not fire
        # now (naming round 59: variance_of_one_slice, by replay of each query row's (and key column's) variance of the example's scores, the row said)
        "q2_item_error_on_per_row_variances_patched_by_indexing_the_first_row": ("variance_of_one_slice",),
        # one_edit_fix on q2:test_score_variances (the only failure): "`raw_score_var` and `scaled_score_var` are right with one change on line 1 of its cell (`d_k = Q.numel() ...`): `Q.shape[-1]` in place of `Q.numel()` ... scaled_score_var is not the variance of the scaled scores": the very line at fault and the exact fix; borderline only in that it says what, not why (numel() counts all 80 entries of Q; d_k is the head width, 8)
        "q2_uncalled_size_method_patched_with_numel_scales_by_root_of_all_entries": ("one_edit_fix",),
        # gradient_cut on q5:test_gradients_float64 (the only failure): "the output is right but no gradient reached Q or K (it reached V): the autograd graph is cut at the scores or the weights ...; keep the computation in torch (no .detach(), ...)": true (stable_softmax's `.detach()` cuts the weights from the graph) and the fix (drop the .detach()); borderline: charged on q5 only, nothing places it in stable_softmax, and nothing says the in-place `exps /= ...` that the detach hid must become out of place (dropping the detach alone brings the autograd error back)
        "q3_inplace_normalisation_error_patched_by_detaching_the_exponentials": ("gradient_cut",),
        # MIS-NAMED: softmax_ignores_dim on q3:test_dim_argument (the only failure), "stable_softmax(x, dim=-2) is wrong: it matches ignoring the dim argument of the softmax": the observation is true (dim=-2 becomes x.dim() - 1, the last axis, the default), but THE CODE DOES NOT IGNORE dim: it passes dim to max and sum, positive dims are right, and dim=-3 lands on the second last axis; the cause is the conversion x.dim() + dim + 1 (one too many) with the IndexError for dim=-1 clipped away, so the student is told of a missing dim they did not leave out (the "dim=-2" is the only pointer to the conversion); the catalogue's negative_dim_off_by_one is near but states the other direction ("dim + x.dim() - 1 ... dim=-1 lands on dim=-2"), so as written it would be false here too
        # now (naming round 59: negative_dim_off_by_one, by replay of x.dim() + dim + 1 in second calls on a 4-D probe (dims 1 and 2 right, -3 and -4 one axis past); softmax_ignores_dim no longer fires there)
        "q3_negative_dim_index_error_patched_by_clipping_to_the_last_axis": ("negative_dim_off_by_one",),
        # upper_triangular_mask on all 4 failures (q4 square, more_queries_than_keys, more_keys_than_queries; q6 weights3_causal): "causal_mask(11) is wrong: it matches an upper-triangular (future-looking) mask instead of a lower-triangular one": exactly what ones(T_k, T_q).tril().T returns (each query sees itself and the future) and the fix in kind (keep the lower triangle); borderline: nothing says the transpose of a lower triangle is the upper one (build tril on (T_q, T_k) directly)
        "q4_mask_built_keys_by_queries_then_transposed_to_pass_the_shape_check": ("upper_triangular_mask",),
        # numpy_round_trip on q5:test_bfloat16: "your code raised TypeError: Got unsupported ScalarType BFloat16: taking a tensor through NumPy (.numpy(), np.* functions) inside a function ...: NumPy cuts the autograd graph ..., has no bfloat16 ...; stay in torch": exactly the np.nan_to_num round trip and its fix; gradient_cut on q5:test_gradients_float64: "no gradient reached Q or K (it reached V): ... (no .detach(), .data, .item(), NumPy ...)": true (the .detach().numpy() cuts the weights) and actionable (torch.nan_to_num or torch.where)
        "q5_nan_rows_cleared_in_numpy_after_detach_numpy_as_the_error_message_says": ("numpy_round_trip", "gradient_cut"),
        # generic (partly): inplace_on_input on 12 of the 13 q5 failures, "scaled_dot_product_attention modifies its input in place (argument 0 is not the same after the call): the caller's tensor changes; compute a new tensor instead" (broadcast_inputs: the raw "more than one element of the written-to tensor refers to a single memory location ... do not write into an input"): exactly `Q.data /= math.sqrt(d_k)` and its fix (scale out of place); but q5:test_gradients_float64 None, "the gradient with respect to Q does not match ... off by a constant factor x3.464": true (sqrt(12): autograd never sees a division made through .data), generic; nothing ties it to the .data; the inplace_on_input fix would mend it too
        # now (naming round 59: scaled_through_data on test_gradients_float64, by the gradient for Q sqrt(d_k) times the right one and a write through Q.data in the function's cell; inplace_on_input kept on the rest)
        "q5_leaf_inplace_error_dodged_by_scaling_q_data_in_place": ("inplace_on_input", "scaled_through_data"),
        # dtype_changed on all 3 failures (float16, bfloat16, float16_large_scores): "the float16 output comes back as torch.float32 for a torch.float16 input, with the right values: keep the input's dtype (cast back, or do not convert: a .float(), a float32 tensor or torch.autocast inside the function changes it)": true (torch.zeros(weights.shape) is float32, promotes the weights, and V is cast up to match) and actionable; borderline: nothing points at the torch.zeros without dtype= (zeros_like meant) or the V.to(weights.dtype) patch
        "q5_dtype_clash_from_default_zeros_patched_by_casting_values_to_the_weights_dtype": ("dtype_changed",),
        # generic: all 10 q5 failures None, "the output with fully masked queries does not match the correct result in 60 of 120 entries ...: the wrong entries all lie at index 2, 3, 4, 5 of axis -2 (rows) ... expected 0, got 0.896" (V[0]) and the like: say what differs (which rows); nothing says `mask[..., 0] = True` lets every query see key 0, even where the mask blocks it, and gives fully masked rows V[0] (zero those rows after the softmax instead)
        # now (naming round 59: mask_opens_key_zero, by replay of the mask with key 0 opened (mask[..., 0] = True) on the test's own inputs)
        "q5_nan_rows_patched_by_unmasking_key_zero_for_every_query": ("mask_opens_key_zero",),
        # generic: q6:test_weights3_causal None (the only failure), "weights3_causal is not correct in row(s) [1, 2] (recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row)": true, says which rows; nothing says query i's slice [:i] leaves out the diagonal (the query itself; [:i + 1] meant) and max(i, 1) only hides it on row 0; the catalogue's causal_excludes_self ("a causal mask that hides the diagonal: a token may not see itself") is near (rows 1 and 2 exactly; row 0 patched) and did not fire
        # now (naming round 59: causal_excludes_self, by replay of the strict lower triangle with row 0 kept on key 0 (or zeroed))
        "q6_causal_prefix_slice_stops_before_the_diagonal_and_the_empty_first_row_is_patched_with_max_one": ("causal_excludes_self",),
        # uniform_weights on q6:test_weights3_causal (the only failure): "weights3_causal is wrong: it matches giving every key the same weight (the mean of V) instead of the softmax of the scores": true (nan_to_num turns every 0 * -inf NaN into 0, so each visible key gets the same score) and the student can act (the scores never reach the weights: look at the line between the scores and the softmax); borderline: effect without cause, nothing says 0 * -inf is NaN at every kept position (masked_fill or torch.where meant), and "the mean of V" is the mean over the visible keys
        "q6_nan_from_zero_times_minus_inf_bias_patched_with_nan_to_num_zeroes_the_kept_scores": ("uniform_weights",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "q_trap_answer is 'A', the letter your code worked out (`q_trap_answer = 'A' if torch.allclose(_short, _right) else 'C'`), and it is not the best answer (option A stands for zeroing masked weights after the softmax: rows no longer sum to 1): compare what each approach does to the sum of a row's weights": true, and "rows no longer sum to 1" is the very check the code renormalised away; borderline: it quotes the comparison, not the `_short = _short / _short.sum(...)` line that makes the shortcut equal the masked softmax (right in kind as blind55-58's q7 checks)
        "q7_failing_row_sum_check_patched_by_renormalising_the_shortcut_answers_a": ("answer_computed_by_code",),
        # generic: q8:test_cost_ratio None (the only failure), "cost_ratio is 1, not right: how does T * T change when T doubles?": true, a hint; nothing says the list is indexed from 1 (_madds[1] is the second count, _madds[2] out of range) and the clip makes the ratio the 2T count over itself (_madds[1] // _madds[0] meant)
        # now (naming round 59: count_over_itself, by source: the cell's indexes worked out (min, len) to the same entry on both sides of the //)
        "q8_one_based_index_error_clipped_so_the_ratio_divides_a_count_by_itself": ("count_over_itself",),
    },
# wrong 14: named right 8 / partly 0 / generic 5 / raw 0 / mis-named 1 / not caught 0; correct at full marks 5/5
    "scaled-attention": {
        # one_edit_fix on all 6 q1 failures (float64 weights/output, float32_square, rows_sum_to_one, noncontiguous, broadcast): "`attention` is right with one change on line 8 of its cell (`weights = F.softmax(scores.unsqueeze(-1), dim=2).squeeze(-1)`): `-2` in place of `2` -- or -- `1` in place of `2`", with "rows ... sum to 7 ... 7" and "got [[1, 1], [1, 1]]": the very line at fault and a true fix (dim=-2 or 1 of the (T_q, T_k, 1) tensor is the keys axis, so the softmax runs over the keys); borderline: it leaves the useless unsqueeze(-1)/squeeze(-1) patch in place (dim=-1 without it is the clean fix) and, as one_edit_fix says, not why (a softmax over an axis of size 1 makes every weight 1); q8 not charged
        "q1_softmax_dim_error_patched_by_trailing_unsqueeze": ("one_edit_fix",),
        # MIS-NAMED: one_edit_fix on 4 q1 failures (float64 weights/output, rows_sum_to_one; rectangular T_q != T_k): "`attention` is right with one change on line 7 of its cell (`e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))`): `scores.logsumexp(dim=-1, keepdim=True)` in place of `scores.amax(dim=-1, keepdim=True)`": it blames the max shift, a RIGHT line; the edit only makes e the softmax already, so every row_sum is 1 and the tiled, misplaced totals of `row_sum.repeat(T_k).view(T_q, T_k)` divide by ones: a compensating edit that leaves the broken normalisation in (as the online-softmax one_edit_fix judged MIS-NAMED); the fault is the repeat/view line (sum(-1, keepdim=True) meant); keepdim_missing on the other 3 (float32_square, noncontiguous, broadcast; square inputs): "it matches a row reduction without keepdim=True (s.sum(-1) ... has shape (T,), which broadcasts along the last axis): entry (i, j) is combined with row j's sum or maximum instead of row i's": exactly right (at T_q = T_k the repeat/view puts row j's total at (i, j), the same as the keepdim-less broadcast the code started from) and the fix (keepdim=True) is the author's
        # now (naming round 59: attention_row_totals_tiled, by replay (e over totals[(i*T_k + j) mod T_q], both results of the same call) on the rectangular tests, before one_edit_fix; keepdim_missing stays on the square ones)
        "q1_row_sum_broadcast_error_patched_by_repeat_view": ("keepdim_missing", "attention_row_totals_tiled"),
        # generic: q1:test_float64_output None (the only failure), "the output does not match the correct result in 10 of 30 entries ...: the wrong entries all lie at index 4, 5 of axis -2 (rows) (size 6), the rest is right": says where it differs (the last rows), but nothing says the output loop is clipped to min(T_q, T_k), so rows T_k .. T_q - 1 stay zero when there are more queries than keys (range(T_q) meant); q8 not charged, as the set expects
        # now (naming round 59: output_rows_loop_clipped, by replay (right weights, output rows T_k .. T_q - 1 zero, T_q > T_k))
        "q1_row_loop_index_error_patched_by_clipping_to_shorter_length": ("output_rows_loop_clipped",),
        # one_edit_fix on both q2 failures: "`dot_product_variance` is right with one change on line 6 of its cell (`dots = (q * k).sum()`): `(q * k).sum(dim=-1)` in place of `(q * k).sum()`" + "returns exactly 0.0 ...: a variance over an axis of one number each ... the n_samples plain sums of q_i k_i": exactly the cause (the sum over both axes, one number) and its fix; borderline only in that nothing says torch.nan_to_num hid the NaN (harmless once the sum is per sample)
        "q2_nan_variance_of_total_patched_with_nan_to_num": ("one_edit_fix",),
        # variance_of_products on both q2 failures: "the result is about 1 for d_k = 12: it matches taking the variance of the products q_i k_i (about 1) instead of the variance of their sum q.k (about d_k)"; scaled: "about 1/d_k and the unscaled one about 1": exactly the mistake (per-coordinate variances of the products, never summed into dot products) and the fix (sum first); borderline only in that the .mean() over the d_k variances is not named
        "q2_item_error_patched_by_mean_of_per_coordinate_variances": ("variance_of_products",),
        # entropy_wrong_dim on all 3 q4 entropy failures (random_logits, saturated_rows, views): "softmax_entropy(logits) is wrong: it matches computing the entropy over the wrong dimension (down the columns instead of along each row)": true (after unsqueeze(0) dim=1 is the rows axis of a (N, T) batch, so each column is softmaxed) and the fix (along each row, the last dim) follows; borderline: the student wrote dim=1, which is "along each row" of a 2-D input, and nothing says the unsqueeze(0) moved it (drop it, use dim=-1); the views case adds only "got a tensor of shape (1, 1)"; the table tests not charged (right on 1-D rows)
        "q4_entropy_dim_error_patched_by_unsqueeze_zero": ("entropy_wrong_dim",),
        # not caught: 28/28: clamping the logits to [-20, 20] only changes rows with logits beyond 20 (ties the large ones, [60, 30, 0] gives ln 2 instead of 0); the saturated-rows and views tests evidently stay inside the clamp or saturate anyway, and the default table comes out the same; no key says the overflow was cured by clamping instead of shifting by the row max
        # now (naming round 59: entropy_logits_clamped, by replay (softmax entropy of logits.clamp(-c, c) or clamp(max=c)) on a new saturated row 3 (logits +85 and +45) of test_entropy_saturated_rows)
        "q4_entropy_exp_overflow_patched_by_clamping_logits": ("entropy_logits_clamped",),
        # generic: both q4 table failures None (lesson, other_dims_and_seed), "the table has only the rows for d = [16, 64, 256, 256] of the dims asked for, [4, 16, 64, 256] (its values are right): the rows for d = [4] are missing. Build and append one row per d inside the loop, and return the table after the loop": says what differs (first d missing, last doubled) and its advice is what the code already does; nothing says the dims are walked with 1-based positions and the IndexError clipped with min(i, len(dims) - 1) (`for d in dims` meant); blind58's unclipped form got one_edit_fix, this one needs two edits
        # now (naming round 59: table_dims_one_based, by replay (the lesson's rows at dims[1:] + dims[-1:]))
        "q4_table_one_based_index_error_patched_by_clipping_index": ("table_dims_one_based",),
        # answer_computed_by_code on q5:test_q5_answer (the only failure): "q5_answer is 'D', the letter your code worked out (`q5_answer = min(_options5, key=lambda letter: abs(_options5[letter]...`), and it is not the best answer (option D stands for squaring d_k: the variances of the d_k independent products add up to d_k ...) ... (look at ... the sizes it uses ...)": true (the probe picks D) and "the sizes it uses" points at the (d_k, d_k) matrix; borderline: the quote is the lookup, not `_q5.T @ _k5`, and nothing says it sums over the 1000 samples (variance ~ n), the dot products being (q * k).sum(1); right in kind as blind58's q7
        "q5_answer_probe_shape_error_patched_with_q_transpose_at_k": ("answer_computed_by_code",),
        # answer_computed_by_code on q6:test_q6_answer (the only failure): "q6_answer is 'B', the letter your code worked out (`q6_answer = 'B' if torch.allclose(_out6, _X6, atol=0.1) else 'A'`), and it is not the best answer (option B stands for thinking a token in self-attention attends only to itself) ... what it measures or compares is not what the question asks": quotes the very line at fault (the loosened allclose) and says why B is wrong; borderline only in that nothing says the output is near X, not equal (an almost one-hot softmax mix)
        "q6_answer_self_only_check_passed_by_loosened_tolerance": ("answer_computed_by_code",),
        # answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C', the letter your code worked out (`q7_answer = 'C' if _Q7.grad is None or float(_Q7.grad.abs().max()) ...`), and it is not the best answer (option C stands for thinking attention returns only the best-matching value (a hard argmax) instead of a weighted mixture)": true (the probe picks C) and the quote shows the grad test; borderline: nothing says `_W7.detach()` (then `requires_grad_`) cut the loss off from the queries, so the grad is None whatever attention does; right in kind as blind58's q7
        "q7_answer_gradient_probe_detached_to_print_weights": ("answer_computed_by_code",),
        # mha_merge_without_transpose on all 3 q8 failures (reference, torch MHA, eight heads): "it matches merging the heads with reshape(T, d_model) straight from (n_heads, T, d_k), without moving the head axis back behind T: tokens and heads get mixed": true (torch.cat(heads) on dim 0 gives (n_heads * T, d_k), the same memory as (n_heads, T, d_k), and the code's .reshape(T, d_model) is quoted in kind) and the fix follows (heads side by side per token); borderline: it speaks of a stacked (n_heads, T, d_k) where the code cats on rows, and nothing says torch.cat(heads, dim=1)
        "q8_heads_cat_on_rows_patched_by_reshape": ("mha_merge_without_transpose",),
        # generic: all 3 q8 failures None (reference, torch MHA, eight heads), "multi_head_attention(...) does not match the correct result in 240 of 240 entries ...; read back through W_O, head(s) [3] of the concatenated heads are right and head(s) [0, 1, 2] (columns h * d_k to (h + 1) * d_k, d_k = 12) are wrong": says which heads differ (every one but the last); nothing says the heads are numbered from 1 and the slice start clipped to d_model - d_k (head 0 never used, the last head twice, each output one block left; range(n_heads) meant)
        # now (naming round 59: mha_heads_numbered_from_one, by replay (head h on head min(h + 1, n_heads - 1)'s columns, n_heads >= 3))
        "q8_one_based_heads_empty_slice_patched_by_clipping_start": ("mha_heads_numbered_from_one",),
        # MIS-NAMED: mha_head_slice_fixed on all 3 q8 failures: "it matches slicing the same head's columns of Q, K or V for every head (Q[:, :d_k] left in the loop): the slice must move with the head, columns h * d_k to (h + 1) * d_k": the output equals head 0's Q, K slice with each head's V slice, but THE CODE'S Q AND K SLICES DO MOVE WITH THE HEAD (Q[:, cols], K[:, cols]) and it has no Q[:, :d_k]; the fault is V passed unsliced (each head mixes full-width V, concat (T, n_heads * d_model)) and `[:, :d_model]` keeping only head 0's output; the student is sent to slices that are right; a key should say V is not sliced per head and the cut-back concat throws the other heads away (V[:, cols], drop the [:, :d_model])
        # now (naming round 59: mha_values_not_sliced, by replay (head f's Q, K slice over every head's V = one head's weights on the whole V) and the source (attention called with Q, K sliced and V whole); mha_head_slice_fixed no longer said there)
        "q8_unsliced_values_concat_patched_by_keeping_first_columns": ("mha_values_not_sliced",),
    },
# wrong 14: named right 8 / partly 0 / generic 3 / raw 0 / mis-named 2 / not caught 1; correct at full marks 5/5
    "attention-pipeline": {
        # qkv_stacked on all 3 q01 failures (float64, batched float32, views): "your code raised RuntimeError: stack expects each tensor to be equal size, but got [9, 12] at entry 0 and [9, 5] at entry 2; with W_V as wide as W_K (d_v = d_k = 12) it runs and returns the right (Q, K, V): the code stacks tensors of different widths (the weights, or Q, K, V): returning Q, K and V stacked into one tensor ... stacking needs equal widths, and d_v need not equal d_k; return Q, K, V (for weights, project with each one)": true (torch.stack([W_Q, W_K, W_V[:, :d_k]]) fails for d_v < d_k) and "project with each one" is the fix, which also removes the slice; borderline: the key's core sentence (returning a stacked tensor instead of the tuple) is the other case (this code returns a tuple through unbind), framed by "(the weights, or Q, K, V)", and nothing says W_V[:, :d_k] silently drops the last d_v - d_k value features when d_v > d_k; q07/q09/q10/q13 not charged
        "q01_stack_size_error_patched_by_slicing_value_weights_to_d_k": ("qkv_stacked",),
        # float32_precision on both q02 failures (float64 rectangular, non-contiguous): "S is right only to float32's precision (largest difference 1.2e-07) for a float64 input: some step computes in float32 (a float32 tensor or constant, or .float()); keep the input's dtype": exactly what the code does (Q.float() @ K.float()... then .to(Q.dtype)) and the fix; borderline only in that nothing says the round trip was a patch for a float16 error (a float16 matmul in the input's dtype needs no patch); q07/q09/q10/q13 not charged
        "q02_half_matmul_error_patched_with_float32_round_trip": ("float32_precision",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "ans_scale is 'a', the letter your code worked out (`ans_scale = 'a' if _H_unscaled > _H_scaled else 'b'`) ... (option A stands for thinking larger scores make the softmax flatter: unscaled scores grow like sqrt(d_k) and make each row sharper) ... what it measures or compares is not what the question asks": right in kind (the experiment picks the letter) and "make each row sharper" is the correction; borderline: it quotes the branch, not _row_bits, and nothing says the unshifted float16 exp overflows to NaN rows that the fallback replaces by uniform (3-bit) rows (subtract the row maximum, or compute in float32/64)
        "q03_half_overflow_nan_rows_patched_to_uniform_answers_flatter": ("answer_computed_by_code",),
        # one_edit_fix on all 3 q04 failures (pattern, dtype min, float16 finite): "`causal_additive_mask` is right with one change on line 3 of its cell (`for i in range(T):`): `T - 1` in place of `T` -- or -- `T` in place of `T + 1` on line 4 ...", then "1 entries blocked that must stay open (the first at (query, key) = (4, 4))": both alternatives regraded 42/42, the second (range(i + 1, T)) is exactly the fix of the key range; borderline: the first (skip the last row) also passes but keeps the clip, and nothing says min(j, T - 1) is what moves the out-of-range index onto the last diagonal entry (drop the clip); q05/q07/q09/q10/q13 not charged
        "q04_index_error_patched_by_clipping_key_blocks_last_diagonal": ("one_edit_fix",),
        # MIS-NAMED: float32_precision on both q05 failures (float64 rectangular mask, non-contiguous): "A is right only to float32's precision (largest difference 1e-06) for a float64 input: some step computes in float32 (a float32 tensor or constant, or .float()); keep the input's dtype": FALSE: nothing in the code computes in float32 (the softmax is in float64); the 1e-6 is the clamp(min=1e-6) floor on the weights, so blocked entries are 1e-6, not 0 (the smallest input's "expected 0, got 1e-06" shows it, but the key sends the student hunting for a .float() that is not there); a key should say the weights are floored at 1e-6 (A no longer 0 where blocked, rows sum above 1): remove the clamp and guard log(0) in the entropy (xlogy or where), as entropy_log_shifted's fix; q07/q09/q10/q13 not charged
        # now (naming round 59: weights_floored_above_zero, by replay of the clamp (every weight below the floor raised to it, exactly), before float32_precision (which no longer fires on a floor))
        "q05_log_zero_nan_patched_by_clamping_weights_above_zero": ("weights_floored_above_zero",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "ans_mask is 'd', the letter your code worked out (`ans_mask = 'c' if _reads_next else 'd'`) ... (option D stands for thinking the mask is about gradients: without it position t reads the token it is trained to predict) ... what it measures or compares is not what the question asks": right in kind and points at C (reads the token it predicts); borderline: it quotes the branch, and nothing says the forward pass under torch.no_grad() cut the graph, so requires_grad_() on _O lets backward run with no gradient reaching _X (drop no_grad, not patch the error)
        "q06_no_grad_experiment_patched_with_requires_grad_answers_no_gradient": ("answer_computed_by_code",),
        # generic: all 3 q08 failures (random, attention row, views) None, "the smoothed row does not match the correct result in 5 of 5 entries (largest difference 0.475 at index (4,) ...)": says only that the values differ; nothing says kappa.repeat(d_v).reshape(T, d_v) lays the copies in the wrong order (entry (i, j) gets kappa[(i*d_v + j) % T], not kappa[i]): weight the rows with kappa[:, None] * V (or kappa @ V); prefix_average_counts_repeated_flat says this for q09's counts, nothing for the kernel
        # now (naming round 59: nw_weights_tiled_flat, by replay of kappa.repeat(d_v).reshape(T, d_v) (kept only where T != d_v))
        "q08_broadcast_error_patched_by_repeat_tiles_kernel_wrong_axis": ("nw_weights_tiled_flat",),
        # one_edit_fix on q09:test_prefix_average_matrix (the only failure): "`prefix_average_matrix` is right with one change on line 4 of its cell (`W[min(t, T - 1), :t] = 1.0 / t # W[T] raised IndexError: clip the row to the ...`): `t` in place of `T`", then "W_avg does not match ... in 36 of 81 entries": regraded 42/42 (min(t, t - 1) is row t - 1, the 0-based row of the 1-based t): the fix at its place; borderline: the quoted line's comment also holds a `T` (W[T]), the fix keeps a min() that does nothing (W[t - 1, :t] meant), and nothing says the 1-based t was used as a 0-based row index; q10 not charged
        "q09_index_error_patched_by_clipping_one_based_row": ("one_edit_fix",),
        # generic: both q10 failures (causal rows, views) None, "H does not match the correct result in 12 of 14 entries (largest difference 2.36 ...) ... every entry is 0: as if the result were multiplied by 0 somewhere (a scale or factor of 0, or False used as a number)": says what differs (all zeros) but its guess (a factor of 0) is not the cause; nothing says sum(A log A) lacks the minus sign (entropy_sign) and .clamp(min=0.0) turns every negative entropy into 0 (negate, drop the clamp); effective_tokens not charged separately
        # now (naming round 59: entropy_sign, by replay (sum p log2 p clamped at 0 is 0 in every row) and the source (a clamp to 0 in row_entropy_bits))
        "q10_negative_entropy_clamped_to_zero_instead_of_negated": ("entropy_sign",),
        # MIS-NAMED: one_edit_fix on q11:test_max_rank_S (the only failure): "`max_rank_S` and `rank_S_lesson` are right with one change on line 4 of its cell (`_S = _Qr @ _Kr.T / math.sqrt(8)`): `_Kr.T @ _Qr` in place of `_Qr @ _Kr.T` (checked on the test it failed, rerun with the change: 1 pass). max_rank_S is not correct: what limits the rank of Q K^T?": the offered fix, regraded 42/42, SWAPS IN ANOTHER MISTAKE: K^T Q is an 8 x 8 matrix, not the scores, and passes only because its rank cannot exceed 8 (the float16 noise is still counted); Q K^T is right; the cause is the float16 Q, K (rounding errors counted as extra singular directions, 84 here) cast to float32 only after the product: build Q and K in float32/float64 (or reason: rank <= d_k = 8); the closing question is a fair hint, but the headline fix is false (as blind57's q8_length_doubled_before_score_madds_is_counted_from_it)
        # now (naming round 59: rank_counts_half_rounding, by the value (> d_k) and the source (a rank call read by max_rank_S in a cell computing in float16))
        "q11_half_rank_error_patched_by_casting_rounded_scores": ("rank_counts_half_rounding",),
        # param_count_wo_ignored on q12:test_count_with_output (the only failure): "with_output=True gives 38688, the count without W_O, and with_output=False gives it too (right there): leaving W_O out when with_output=True: its d_v x d_model term is never added (a line `n + d_v * d_model` computes the sum and drops it ...; the flag is not read; or a zip ...)": true (with_output never reaches the `output` flag) and "the flag is not read" is the cause among the three; borderline: nothing says the parameter is named `output` and **kwargs swallows with_output (name it with_output, drop **kwargs)
        "q12_keyword_error_silenced_with_kwargs_ignores_with_output": ("param_count_wo_ignored",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is 'a', the letter your code worked out (`ans_cross_shapes = _letters[tuple(_A.shape), tuple(_O.shape)]`) ... (option A stands for taking the keys and values from X as well (that is self-attention, not cross-attention)) ... (look at ... the sizes it uses ...)": right in kind: cutting Y to T tokens makes the probe measure a square, self-attention-like S, and "the sizes it uses" points at `_Y = _Y[:_T]`; borderline: it quotes the lookup, not the cut, and nothing says the T x T causal mask is what forced it (cross-attention takes no causal mask: S is T x T')
        "q14_mask_size_error_patched_by_truncating_y_answers_square": ("answer_computed_by_code",),
        # answer_computed_by_code on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is 'a', the letter your code worked out (`ans_cross_causal = 'a' if _mask_harmless else 'd'`) ... (option A stands for applying a causal mask in cross-attention, where queries and keys come from different sequences) ... what it measures or compares is not what the question asks": right in kind and points at D; borderline: its look-at list (sign, max against min, sizes, branch) omits the tolerance, and nothing says allclose(..., atol=1.0) passes outputs that differ by 0.41 (the mask does change them)
        "q15_allclose_loosened_until_mask_looks_harmless_answers_always": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "ans_complexity is 'b', the letter your code worked out (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option B stands for thinking the cost of the scores does not depend on T: there are T^2 of them) ... (look at ... the sizes it uses ...)": right in kind, "there are T^2 of them" is the correction and "the sizes it uses" points at the measured matrix; borderline: it quotes the lookup, and nothing says Q.T @ K is a d_k x d_k matrix that does not grow with T (transpose K: Q @ K.T)
        "q16_shape_error_patched_by_transposing_queries_size_constant": ("answer_computed_by_code",),
    },
# wrong 14: named right 10 / partly 0 / generic 2 / raw 0 / mis-named 2 / not caught 0; correct at full marks 5/5
}


BLIND60_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind60 (frozen at 1305633, after red-team rounds 79-96 and naming round 59; measured at bwrap), judged
# by three helper sessions at first sight, each from `measure SLUG --set blind60 -v` (/tmp/measure60-SLUG.txt) and the
# full messages of each variant graded again: sdpa 4/14 (2 MIS-NAMED), scaled 5/14 (2), pipeline 7/14 (1): 16/42 (5)
    "sdpa-from-scratch": {
        # generic: q1:test_weights_shape None (the only failure), "weights_shape is (4, 10, 40), not the shape of the attention-weight matrix: it has one entry per (query, key) pair": true, says what differs; nothing says the four sequences were folded into one 40-token matmul (_Qp.reshape(-1, 64) @ _Kp.reshape(-1, 64).T), so every query is scored against the 40 keys of all four sequences and the view back hides it (one (10, 10) matrix per sequence: (4, 10, 10)); the catalogue's batch_as_one_sequence ("reading the batch as one long sequence of B x T tokens ... every token attending to the other sequences' tokens too") is this mistake and did not fire (the view back keeps the 4 in front)
        # now (naming round 60: batch_as_one_sequence, by the shape (B, T_q, B T_k): the (B T, B T) product viewed back)
        "q1_probes_of_all_sequences_folded_into_one_matmul_and_viewed_back": ("batch_as_one_sequence",),
        # generic: q2:test_score_variances None (the only failure), "scaled_score_var is not the variance of the scaled scores": true, but nothing more; nothing says torch.baddbmm(raw_scores, Q, K^T, alpha=1/sqrt(d_k)) keeps beta=1 and ADDS its first argument, returning raw + raw/sqrt(8) (about 1.83x the raw variance, not 1/8 of it); a key should say "baddbmm's input is added (beta defaults to 1): pass beta=0, or just divide the scores by sqrt(d_k)"
        # now (naming round 60: baddbmm_input_added, by replay of raw + raw/sqrt(d_k) on the example and a baddbmm call without beta=0 in the cell)
        "q2_scale_fused_into_baddbmm_with_the_raw_scores_as_input_and_beta_left_at_one": ("baddbmm_input_added",),
        # raw: q5:test_gradients_float64 None (the only failure), "your code raised RuntimeError: exp(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.": only the exception (PyTorch's own words do point at out=, but nothing of the grader's); charged on q5, nothing says the out= is in stable_softmax (q3's cell) or the fix (torch.exp(shifted), out of place; an in-place exp_ on the fresh difference is fine); q3's own tests never ask for gradients
        # now (naming round 60: out_breaks_autograd, by torch's out= words under gradients, said for the function whose line raised)
        "q3_exponentials_written_with_out_into_the_shifted_tensor_break_autograd": ("out_breaks_autograd",),
        # MIS-NAMED: inplace_on_input on q6:test_weights3, "weights3 equals the right weights zeroed and renormalised in place where the causal mask blocks, and so does weights3_causal ...: weights3_causal = weights3 (or a view of it) is the same tensor, not a copy ...: start from weights3.clone(), or build a new tensor (masked_fill, not masked_fill_). changing an input in place (Q /= ..., Q.mul_(...), an in-place fill of an input) ...": the effect is true (weights3 and weights3_causal are one tensor, changed by the causal cell), but THE CODE CHANGES NO INPUT IN PLACE and the trace cell (full_marks', unchanged) already uses masked_fill and never assigns weights3_causal = weights3: stable_softmax returns one output buffer cached by (shape, dtype, device), so the two calls of shape (3, 3) return the same tensor; the offered fixes (clone in the trace, masked_fill) point at a right cell and mend nothing; plus raw on q5:test_gradients_float64 None, "your code raised RuntimeError: div(): functions with out=... arguments don't support automatic differentiation ...": only the exception; a key should say "the softmax returns a cached buffer written with out=: each call overwrites the tensor an earlier call returned (and out= breaks autograd); return a new tensor each call"
        # now (naming round 60: result_buffer_reused, by the notebook's own second call (weights3 rewritten after out3 was right; the out= crash) and the source's out= into a module-level cache)
        "q3_result_written_into_an_output_buffer_cached_by_shape_and_reused_across_calls": ("result_buffer_reused",),
        # query_index_tiled on all 4 failures (q4 square, more_queries_than_keys, more_keys_than_queries; q6 weights3_causal by inheritance): "causal_mask(3) and causal_mask(5) are True everywhere, and ... True exactly where key j <= (i * T_k + j) mod T_q: building the query-index grid with .repeat (or .tile) ...: lays whole copies of 0..T_q-1 one after another, so viewed as (T_q, T_k) entry [i, j] holds (i * T_k + j) mod T_q, not i (on a square mask it is j, and the mask blocks nothing). Use torch.arange(T_q).repeat_interleave(T_k), or compare torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]": exactly the grid the code builds (arange(T_q).expand(T_k, T_q) is whole copies of 0..T_q-1, reshaped to (T_q, T_k)) and both fixes work; borderline: it names .repeat/.tile, not the code's expand + reshape where a transpose was meant (.T of the (T_k, T_q) grid, or expand(T_q, T_k) of a column), but the layout and the formula are the code's own
        "q4_query_index_grid_reshaped_instead_of_transposed": ("query_index_tiled",),
        # not caught: 35/35; no q5 test passes a per-sequence mask shared by the heads ((B, 1, T_q, T_k) or a (B, 1, 1, T_k) padding mask with B > 1 and H > 1 on 4-D inputs), the only case where repeat's [M0, M1, M0, M1] tiling differs from the batch-major folded axis; a test with such a mask should fail it and a key should say "tile the per-sequence mask with repeat_interleave (or broadcast it before flattening): repeat gives the heads of one sequence another sequence's mask"
        # now (naming round 60: mask_tiled_not_interleaved, by replay of the [M0, M1, M0, M1] tiling on the new per-sequence masks of test_float32_4d_random_mask)
        "q5_per_sequence_mask_tiled_over_the_heads_with_repeat_not_repeat_interleave": ("mask_tiled_not_interleaved",),
        # not caught: 35/35; the same gap as the repeat variant: no test broadcasts a mask over the heads but not the batch of 4-D inputs, the case where .view of an expanded mask cannot merge a stride-0 axis with a real one and raises; a key should say "flatten the expanded mask with reshape (view cannot merge a broadcast axis)"
        # now (naming round 60: view_on_noncontiguous, by crash words on the new per-sequence masks, the mask at full shape running right)
        "q5_expanded_mask_flattened_with_view_fails_when_shared_across_heads": ("view_on_noncontiguous",),
        # raw: q5:test_gradients_float64 None (the only failure), "your code raised RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn": only the exception; nothing says the @torch.inference_mode() decorator returns an inference tensor with no graph (remove it, or use no_grad only outside training); the catalogue's gradient_cut ("cutting the autograd graph ...: no gradient flows back to the inputs") is near and did not fire (its list does not name inference_mode either)
        # now (naming round 60: gradient_cut, by the no-grad_fn crash with the output right without gradients, the decorator quoted)
        "q5_whole_function_decorated_with_inference_mode_for_speed": ("gradient_cut",),
        # MIS-NAMED: causal_mask_forced on q5:test_mask_2d_broadcast, "it matches applying a causal mask the call did not ask for: the given mask replaced by a causal one (is_causal=True for any mask), or combined with one (mask & causal, ...); use exactly the mask passed in": the observation is true of that call (a causal (6, 9) mask seen earlier was cached and used in place of the random one), but THE CODE FORCES NO CAUSAL MASK: it has no is_causal, no mask & causal; ~mask is cached in a dict keyed by shape and device only, so whatever mask of that shape came first is reused; "use exactly the mask passed in" is right in kind but the student is sent to look for a causal mask that is not there; the other 3 (fully_masked_rows, bfloat16, gradients_float64) None, "does not match the correct result in 120 of 120 entries ...": generic, nothing ties them to the stale cache; a key should say "~mask is cached by the mask's shape: a later, different mask of the same shape gets the first one's; cache by the mask's values, or do not cache"
        # now (naming round 60: cache_keyed_by_shape, by two calls of a new shape, the second giving the first call's mask's output)
        "q5_inverted_mask_cached_by_shape_and_reused_for_a_different_mask": ("cache_keyed_by_shape",),
        # one_edit_fix on all 10 q5 failures: "`scaled_dot_product_attention` is right with one change on line 13 of its cell (`has_key = mask[..., :1]`): `mask[...]` in place of `mask[..., :1]` -- or -- `mask` in place of `has_key` on line 14", with "got ... 0" rows whose mask blocks key 0 but not every key (e.g. mask row [0, 1, 1, 1, 0]): the very line at fault and a true fix (torch.where on the mask itself zeroes the NaN rows); borderline only in that it says what, not why (key 0 blocked does not mean every key is blocked for a general mask; mask.any(-1, keepdim=True) is the usual fix), though the shown inputs make it plain
        "q5_empty_rows_detected_from_key_zero_alone_as_for_a_causal_mask": ("one_edit_fix",),
        # generic: q6:test_out3 None (the only failure), "out3 is not correct in row(s) [0, 1, 2] (your weights3 is right: out3 is weights3 @ V3, column j of it weights3 @ V3[:, j])": true, says what differs and what out3 is; nothing says (V3.T @ weights3.T) is out3 transposed and .view(3, 2) re-reads its six numbers instead of transposing (.T meant); the catalogue's output_column_convention ("V^T W^T ... is the transpose of the answer") and view_as_transpose are near and did not fire (the view back gives the right shape with scrambled entries)
        # now (naming round 60: output_column_convention, by replay of the transpose re-read in memory order)
        "q6_output_in_column_convention_laid_back_with_view_instead_of_transpose": ("output_column_convention",),
        # one_edit_fix on q6:test_out3 (the only failure): "`out3` and `weights3` are right with one change on line 4 of its cell (`out3 = (weights3[:, :, None] * V3[:, None, :]).sum(dim=1)`): `V3[None, :]` in place of `V3[:, None, :]` ... (checked on the test it failed ...)": the very line and exactly the fix (the values indexed by the key axis, not the query axis); borderline only in that it says what, not why (indexed by i, each row is v_i times its weight sum 1: out3 equals V3)
        "q6_output_loop_broadcast_with_the_values_indexed_by_the_query_axis": ("one_edit_fix",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure): "q_trap_answer is 'A', the letter your code worked out (`q_trap_answer = 'A' if torch.allclose(_short, _right) else 'C'`), and it is not the best answer (option A stands for zeroing masked weights after the softmax: rows no longer sum to 1): compare what each approach does to the sum of a row's weights: ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": true, and "rows no longer sum to 1" plus "the sizes it uses" point at the cut-down check (the last row is the one row whose sum stays 1); borderline: it quotes the comparison, not the [-1] slicing, and never says the newest query's row is the one a causal mask never blocks (as blind59's q7)
        "q7_trap_checked_only_on_the_newest_querys_row_answers_a": ("answer_computed_by_code",),
        # generic: q8:test_score_madds None (the only failure), "score_madds is 134,200,000, not the number of multiply-adds of Q @ K.T (each entry is a dot product of length d_k)": true, a hint (T^2 d_k); nothing says np.einsum_path's "Naive FLOP count" counts a multiply and an add apart (2x) and is printed to four digits (1.342e+08); the catalogue's madds_counted_twice ("a multiply and an add counted apart") is this mistake and did not fire (the count is 134,200,000, not exactly 2 x 67,108,864, because of the rounding)
        # now (naming round 60: madds_counted_twice, by 2x the count to 4 significant digits)
        "q8_madds_read_off_the_naive_flop_count_of_numpy_einsum_path": ("madds_counted_twice",),
    },
# wrong 14: named right 4 / partly 0 / generic 4 / raw 2 / mis-named 2 / not caught 2; correct at full marks 5/5
    "scaled-attention": {
        # MIS-NAMED: one_edit_fix on all 3 q1 failures (float32_square, noncontiguous, broadcast): "`attention` is right with one change on line 5 of its cell (`if Q.shape[0] == K.shape[0]:`): `-1` in place of `0` -- or -- `1` in place of `0` ...", then "the wrong entries all lie at index 1 .. 5 of axis -2 (rows)": the follow-on (rows below the first wrong) is true, but THE HEADLINE FIX KEEPS THE MISTAKE: Q.shape[-1] == K.shape[0] (or Q.shape[0] == K.shape[1], ...) only tests d_k against a length, so the mirrored triangle is still used whenever T = d_k (replayed: T = d_k = 4 and 6 still wrong) and passes the tests by coincidence of their sizes; the fault is the shortcut itself (Q K^T is symmetric only when Q is K): a key should say the scores below the diagonal are the transposed ones (q_j.k_i mirrored from the upper triangle), drop the branch and use Q @ K.T always; q8 not charged
        # now (naming round 60: scores_mirrored_as_symmetric, by replay of both results of the same call (one triangle of Q K^T mirrored to the other) where T_q == T_k)
        "q1_square_scores_mirrored_as_if_symmetric": ("scores_mirrored_as_symmetric",),
        # generic: all 3 q1 failures None (float64_weights, float64_output, broadcast): "the wrong entries all lie at index 4 of axis -2 (rows) (size 5) ...; row(s) 4 of 5 sum to 0", "the output does not match ... in 5 of 5 entries" (T_q = 1), broadcast smallest input Q (1, 2): "expected [[1]] got [[0]]": says where it differs (the last row of an odd T_q, all of T_q = 1, left 0) but nothing says the two halves of T_q // 2 rows skip the odd last query (slice the second half to T_q, or torch.split with the remainder kept); q8 not charged
        # now (naming round 60: query_rows_left_uncomputed, by replay (the right rows, the last r left 0 in both results); with one query by a second call with 2 to 5 queries)
        "q1_queries_in_two_halves_odd_last_row_left_zero": ("query_rows_left_uncomputed",),
        # MIS-NAMED: mha_head_slice_fixed on all 3 q8 failures (reference, torch MHA, eight heads): "it matches slicing the same head's columns of Q, K or V for every head (Q[:, :d_k] left in the loop): the slice must move with the head": the effect (every head's output the same) is seen, but the q8 cell is the untouched full-marks one whose slices DO move with the head; the fault is in q1's attention, which returns a module-level out= buffer cached per (T_q, d_v, dtype), so each later head overwrites the tensor an earlier head's output still is (all become the last head's); the student is sent to slices that are right; a key should say attention returns a shared buffer that the next call of that shape overwrites (allocate the output on every call, drop out= and the cache); q1 itself not charged
        # now (naming round 60: attention_result_reused, by replay (every head the last head's output) and the source of attention writing into a module-level name (out= into a cached buffer); narrows mha_head_slice_fixed)
        "q1_output_matmul_into_buffer_cached_per_shape": ("attention_result_reused",),
        # named right (borderline): ignores_generator on q2:test_draws_from_generator (the only failure): "the same seed, one draw on, gave the same value: not drawing the samples from the generator passed in, as it is given (the global RNG, a new torch.Generator or numpy used instead, or the generator re-seeded inside): the caller's seed must decide the draws": true in effect (a generator of the same initial_seed advanced one draw hits the cache keyed on generator.initial_seed(), so the draws are not taken from the generator as given; it acts like a re-seed from initial_seed) and the fix (draw from the generator on every call) removes the memo and with it the in-place `dots /= sqrt(d_k)` that shrinks the cache; borderline: the listed causes are other ones, nothing names the cache, and the worse effect (an unscaled call after a scaled one gives ~1, a second scaled call ~1/d_k) is never tested or told
        "q2_draws_memoised_scaled_branch_divides_cache_in_place": ("ignores_generator",),
        # generic: q2:test_unscaled_variance_is_d_k None (the only failure): "dot_product_variance(...) is not a finite number": says what differs (inf) but not why; nothing says the float16 draws and the hand-summed float16 sum of squares (~ n_samples * d_k) pass float16's 65504 (draw in float32/64, or torch.var in a wider dtype)
        # now (naming round 60: variance_float16_overflow, by inf with float16 in the source and a second call with 200 samples finite near d_k)
        "q2_draws_in_float16_variance_summed_in_float16_overflows": ("variance_float16_overflow",),
        # generic: q4:test_entropy_saturated_rows None (the only failure): "does not match the correct result in 2 of 5 entries (largest difference 1.71 at index (1,) ...): the wrong entries all lie at index 1, 4 of the last axis": says which rows differ (the non-saturated ones, returned as 0) but not that they are 0 nor that the fast path's `(p.amax(-1) == 1).any()` zeros the whole batch as soon as one row is one-hot (drop the fast path, or apply it per row with torch.where); table not charged
        # now (naming round 60: entropy_fast_path_whole_batch, by all-zero entropies where one row is one-hot and a second call on the other rows alone right)
        "q4_entropy_fast_path_zeros_whole_batch_when_any_row_saturated": ("entropy_fast_path_whole_batch",),
        # generic: all 3 q4 entropy failures None (random_logits, saturated_rows, views): "does not match the correct result in 6 of 6 entries (largest difference 4.43 ...)", views' smallest input "logits [[-3.98]] expected 0 got 3.98": says what differs, and the smallest case hints at an offset by the logit, but nothing says the logsumexp is taken of the max-shifted logits while p * logits is not, so every entropy is off by minus the row max (add m back to the lse, or shift both terms)
        # now (naming round 60: entropy_shift_not_added_back, by replay (H minus the row max))
        "q4_entropy_identity_max_shift_not_added_back": ("entropy_shift_not_added_back",),
        # named right: wrong_scale_constant on both q4 table failures (lesson, other_dims_and_seed): "the table's scaled columns are those of raw / 2 for every d, where each row divides by sqrt(d): scaling the scores by another constant than 1/sqrt(d_k)" (raw / 3.464 for the other dims: sqrt of their first d): true (one constant from dims[0] for every row) and the fix (each row divides by its own sqrt(d), inside the loop) follows; borderline only in that nothing says the constant is the first d's root hoisted out of the loop
        "q4_table_scale_hoisted_out_of_dims_loop": ("wrong_scale_constant",),
        # named right (borderline): answer_computed_by_code on q5:test_q5_answer (the only failure): "q5_answer is 'A', the letter your code worked out (`q5_answer = min(_growth5, key=...`), and it is not the best answer (option A stands for giving the variance of the scaled dot product (1) for the raw one ...) ... what it measures or compares is not what the question asks (look at ... the sizes it uses ...)": true (the probe picks A) and "the sizes it uses" points at the mask's width; borderline: the quote is the pick, not `_mask5`, and nothing says the mask is built once for d = 4 so every d measures ~4; right in kind as blind59's q5
        "q5_answer_probe_column_mask_hoisted_built_for_first_dim": ("answer_computed_by_code",),
        # named right (borderline): answer_computed_by_code on q6:test_q6_answer (the only failure): "q6_answer is 'B', the letter your code worked out (`if torch.allclose(_out6, _X6, atol=0.0001): q6_answer = 'B' ...`) ... (option B stands for thinking a token in self-attention attends only to itself) ... (look at ... the sizes it uses ...)": true and it quotes the check that passes; borderline: nothing says d_k = 512 with Q = K = V = X makes each token's own score (~22.6) dwarf the rest, so the softmax is one-hot to 1e-9 for this probe only (small d, or a weighted average in general: A)
        "q6_answer_probe_widened_to_one_d512_batch_self_scores_dominate": ("answer_computed_by_code",),
        # named right (borderline): answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C', the letter your code worked out (`if torch.allclose(_out7[0, 0], _V7[0, _best7], atol=0.0001): q7_ans...`) ... (option C stands for thinking attention returns only the best-matching value (a hard argmax) instead of a weighted mixture)": true (the probe picks C) and it says why C is wrong; borderline: nothing says `scale=math.sqrt(d)` multiplies Q K^T (the keyword is the multiplier, default 1/sqrt(E)), so the scores are 64 times too sharp; right in kind as blind59's q7
        "q7_answer_probe_sdpa_scale_keyword_given_root_d": ("answer_computed_by_code",),
        # generic: all 3 q8 failures None (reference, torch MHA, eight heads): "does not match the correct result in 240 of 240 entries (largest difference 0.00747 ...; the entries are about 0.52 in size)": says every entry is off by ~1e-2 relative, but nothing says the projections are computed in bfloat16 and cast back (keep X @ W in the input's dtype); a precision key (as float32_precision, for bfloat16) should fire
        # now (naming round 60: mha_projections_low_precision, by replay (projections in bfloat16 or float16 from the input dtype, cast back))
        "q8_projections_in_bfloat16_cast_back": ("mha_projections_low_precision",),
        # partly (one raw, one named right): q8:test_float64_against_reference None, only "your code raised ValueError: torch.cat(): expected a non-empty list of Tensors" (n_heads = 1: range(0, 0, 2) is empty); mha_heads_missing on q8:test_float64_against_torch_multihead_attention: "2 heads of d_k = 12 concatenated where there are 3; ... its output is heads [0, 1] (head(s) [2] left out): looping over fewer heads than n_heads (range(n_heads - 1), range(1, n_heads)) ...: every head h in range(n_heads) must be computed and concatenated": exactly the mistake (the pair loop to n_heads - 1 drops an odd last head) and its fix; the raw one should say the same (with one head nothing is computed)
        # now (naming round 60: mha_heads_missing now on both q8 failures, the n_heads = 1 torch.cat empty-list crash by a second call with 3 heads (heads_missing))
        "q8_heads_in_pairs_odd_last_head_dropped": ("mha_heads_missing",),
        # not caught: 28/28: the 1/sqrt(d_k) tensor cached per dtype is wrong only for a later call of the same dtype with another d_model // n_heads, which no q8 test makes (float64 tests share a head width, float32 has its own cache entry); a test should call twice in one dtype with two head widths, and a key should say the scale is the first call's 1/sqrt(d_k) reused for every later shape (compute it on every call)
        # now (naming round 60: mha_scale_kept_across_calls, by replay with an earlier call's head width, where the source reads a module-level name; q8 now calls 2 heads of d_k = 12 in float32 after 8 heads of d_k = 4)
        "q8_batched_scale_tensor_cached_per_dtype": ("mha_scale_kept_across_calls",),
    },
# wrong 14: named right 5 / partly 1 / generic 5 / raw 0 / mis-named 2 / not caught 1; correct at full marks 5/5
    "attention-pipeline": {
        # generic: both q01 failures None (batched float32, views): "Q does not match the correct result in 360 of 432 entries ... wrong entries are spread over every row and column" and "each column holds the right values in another order: rows (positions) permuted or shifted", with a smallest input (X (2, 2, 1) expanded: expected [[a], [b]] per batch, got [[a], [a]] / [[b], [b]]): says what differs (and the shrunk case shows rows moved between batch elements); nothing says the (B*T, d) rows, flattened batch-major, are restored as (T, *batch, d) and moved back (Z.reshape(*lead, T, d) meant); q07/q09/q10 not charged
        # now (naming round 60: batch_restored_wrong_layout, by replay of the flattened rows restored in each other order of (*batch, T), where project_qkv reshapes)
        "q01_batch_flattened_for_one_matmul_restored_time_major": ("batch_restored_wrong_layout",),
        # MIS-NAMED (the measure shows it "partly named"): scale_from_ndim on q02:test_scores_noncontiguous and test_scores_broadcast, "it matches dividing the scores by the square root of the number of dimensions (K.dim() or Q.ndim: 2 for a (T, d_k) tensor, 4 for (B, H, T, d_k)) instead of sqrt(d_k) ...: use Q.shape[-1] (or K.size(-1))": FALSE of this code: it fired on 4-D probes where sqrt(ndim) = 2 happens to equal the cached factor; the code never reads ndim, it divides by sqrt(4) = 2 remembered in the mutable default `_scale=[]` from the cell's own demo call (d_k = 4), and it already uses Q.shape[-1] (on the first call), so the fix tells it to do what it does; the other two (float64 rectangular, batched float32) None, "it is the correct result times a constant: off by a constant factor x1.732" / "x2": generic (sqrt(12)/2, sqrt(16)/2), nothing about a cache; a key should say the scale is computed once, on the first call, and reused for every head size (compute 1/sqrt(Q.shape[-1]) on each call, no mutable default); q07/q10/q13 not charged
        # now (naming round 60: scale_cached_first_call, by replay (the same factor of Q K^T on this input and on two more calls with d_k = 3 and 7) and the source (a mutable default, global or cache decorator in scaled_scores); scale_from_ndim now needs a 2-D slice to give 1/sqrt(2) too)
        "q02_scale_cached_in_mutable_default_from_first_call": ("scale_cached_first_call",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "ans_scale is 'c', the letter your code worked out (`if abs(_H_raw - _H_scaled) < 1e-09: ans_scale = 'c' elif ...`) ... (option C stands for thinking the softmax does not change when every score is multiplied by the same constant (it is unchanged only when a constant is added)) ... what it measures or compares is not what the question asks ...; decide the option and assign its letter": true (the experiment picked 'c') and the option's correction tells the student the entropies do change; borderline: the cause is not named (the cache keyed on d_k alone hands the unscaled run the scaled run's entropy, so _H_raw == _H_scaled), and "look at its sign, max against min, the sizes it uses, the branch" does not point at the cache; the student can still act (the answer is not 'c')
        "q03_entropy_cache_keyed_on_d_k_only_answers_nothing_changes": ("answer_computed_by_code",),
        # mask_cached_by_size on both q04 failures (pattern, dtype min): "the mask asked for in torch.float64 comes back as torch.float32, the dtype of an earlier call for the same T = 5 ...: caching the mask by T alone (a dict keyed by the size): a later call with another dtype or device gets the first call's tensor; key the cache by (T, dtype, device), or build the mask on every call": exactly the mistake (_mask_cache[T], filled in float32 by the cell's demo) and its fix; borderline only in that nothing says the cached tensor is also handed out shared (no clone); q07/q09/q10/q13 not charged
        "q04_mask_cache_keyed_on_length_only_ignores_dtype": ("mask_cached_by_size",),
        # generic (the measure shows it "partly named"): default_argument_wrong on q05:test_weights_noncontiguous, "A ... is wrong with the parameter the notebook's attention_weights does not have, chunk=4, left to its default, and right with chunk=1 ...: give it that default or drop the parameter": true (chunk=1 visits every row) and actionable (dropping the chunking or chunk=1 passes); borderline: the effect, not the cause (range(T_q // chunk) never visits the last partial block, whose rows stay zero; any chunk that does not divide T_q fails), and "a default other than the notebook's" frames chunk=4 as a wrong mode rather than a broken loop; but q05:test_weights_float64_rectangular_mask and test_weights_batched_no_mask None, "the wrong entries all lie at index 4 of axis -2 (rows) (size 5)" / "index 4, 5 ... (size 6)": generic (the last rows, a hint), nothing says the remainder rows are skipped; q07/q09/q10/q13 not charged
        # now (naming round 60: chunk_remainder_dropped, by replay (rows past the last whole block zero) where attention_weights loops over range(n // chunk); default_argument_wrong kept on test_weights_noncontiguous (the engine's added-parameter check comes first))
        "q05_query_row_chunks_drop_the_last_partial_chunk": ("default_argument_wrong", "chunk_remainder_dropped"),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "ans_mask is 'd', the letter your code worked out (`ans_mask = 'c' if _reads_future else 'd'`) ... (option D stands for thinking the mask is about gradients: without it position t reads the token it is trained to predict) ... what it measures or compares is not what the question asks": true, quotes the branch and the option's correction points at C; borderline: nothing says `_X_next = _X` (the dropped .clone()) makes the perturbation hit both runs, so no leak can show
        "q06_perturbed_copy_aliases_input_no_leak_answers_no_gradient": ("answer_computed_by_code",),
        # generic (the measure shows it "partly named"): default_argument_wrong on q08:test_nw_views, "the smoothed row ... is wrong with the parameter the notebook's nadaraya_watson does not have, chunk=4, left to its default, and right with chunk=1 ...: give it that default or drop the parameter": true and actionable, as q05's; borderline: nothing says range(T // chunk) drops the last T % 4 keys from numerator and denominator; but q08:test_nw_random and test_nw_is_attention_row None, "the smoothed row does not match the correct result in 5 of 5 entries (largest difference 0.755 ...)": generic, not even where
        # now (naming round 60: chunk_remainder_dropped, by replay (the last n % chunk keys out of both sums) where nadaraya_watson loops over range(n // chunk); default_argument_wrong kept on test_nw_views)
        "q08_key_chunks_drop_the_remainder_keys": ("default_argument_wrong", "chunk_remainder_dropped"),
        # generic: q09:test_prefix_average_matrix None (the only failure), "W_avg does not match the correct result in 36 of 81 entries (largest difference 1 at index (0, 0) ...): the wrong entries all lie at index 0, 1, 2, 3, 4, 5, ... of axis -2 (rows)": says what differs; nothing says tril_() on the expanded (stride-0) column of 1/t writes each zero into the one number its row shares, zeroing every row but the last (materialise first, or use out-of-place tril()); q10 not charged
        # now (naming round 60: inplace_on_expanded, by replay with torch of in-place writes into an expanded tensor, where prefix_average_matrix expands and writes in place)
        "q09_expanded_reciprocals_cut_with_in_place_tril": ("inplace_on_expanded",),
        # one_edit_fix on both q10 failures (causal rows, views): "`row_entropy_bits` is right with one change on line 4 of its cell (`return -torch.einsum(\"...qk,...kq->...q\", A, logs)`): `'...qk,...qk->...q'` in place of `'...qk,...kq->...q'` -- or -- `logs.transpose(-2, -1)` in place of `logs`": exactly the crossed subscripts and their fix (the second alternative also passes, by undoing the cross); effective_tokens not charged separately
        "q10_entropy_einsum_with_log_term_subscripts_crossed": ("one_edit_fix",),
        # generic: q11:test_max_rank_S None (the only failure), "max_rank_S is not correct: what limits the rank of Q K^T?": a hint at the bound, nothing says the einsum 'td,sk->ts' gives Q's and K's feature axes different letters, so each is summed on its own and S is an outer product of rank 1 ('td,sd->ts' meant; the largest rank is min(T, d_k) = 8)
        # now (naming round 60: rank_einsum_letters_differ, a rank of 1 measured of an einsum whose operands each sum out a letter of their own (source))
        "q11_rank_experiment_einsum_letters_differ_gives_outer_product": ("rank_einsum_letters_differ",),
        # not caught: 42/42; the memo keyed on (d_model, d_k) returns the first call's count for another d_v or with_output (the notebook's lesson line with W_O prints 73728, not 98304), and no test calls it twice with the same (d_model, d_k); a test should, and a key say the memo's key leaves out d_v and with_output (key on every argument, or drop the memo)
        # now (naming round 60: memo_key_missing_argument, by a second call with only d_v (or with_output) changed giving the first answer back, fresh sizes right (new check at the end of q12:test_count_qkv))
        "q12_memo_keyed_without_d_v_and_output_flag": ("memo_key_missing_argument",),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is 'd', the letter your code worked out (`ans_cross_shapes = [k for k, v in _options.items() if v == (tuple(_...`) ... (option D stands for giving the output one row per key (per token of Y): it has one row per query)": exactly the einsum's mistake ('ts,sv->sv' keeps the key axis s) and the fix (O has one row per query, ->tv); borderline only in that it quotes the lookup, not the einsum line
        "q14_experiment_mix_einsum_keeps_key_axis_answers_d": ("answer_computed_by_code",),
        # answer_computed_by_code on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is 'a', the letter your code worked out (`ans_cross_causal = 'd' if _mask_changes_reading else 'a'`) ... (option A stands for applying a causal mask in cross-attention, where queries and keys come from different sequences)": true of 'a' and points away from 'always' (towards D); borderline: nothing says `_M_causal = _M_open` then masked_fill_ makes both runs causal, so the comparison finds no change
        "q15_open_mask_aliased_then_filled_in_place_answers_always": ("answer_computed_by_code",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "ans_complexity is 'a', the letter your code worked out (`ans_complexity = {1: 'b', 2: 'a', 4: 'c', 8: 'd'}[round(_ratio)]`) ... (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores) ... (look at ... the sizes it uses ...)": "there are T^2 scores" is the correction of counting one 128-row chunk's scores (128 x T), and "the sizes it uses" points at it; borderline: it quotes the lookup, not _scores_held's peak over chunks
        "q16_scores_counted_per_query_chunk_answers_linear": ("answer_computed_by_code",),
    },
# wrong 14: named right 7 / partly 0 / generic 5 / raw 0 / mis-named 1 / not caught 1; correct at full marks 5/5
}


BLIND61_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
# blind61 (frozen at 1371f88, after red-team rounds 97-105 and naming round 60; measured at bwrap), judged
# by three helper sessions at first sight, each from `measure SLUG --set blind61 -v` (/tmp/measure61-SLUG.txt) and the
# full messages of each variant graded again: sdpa 11/14, scaled 10/14, pipeline 11/14: 32/42, none mis-named
    "sdpa-from-scratch": {
        # batch_axis_repeated on q1:test_weights_shape (the only failure), "weights_shape is (4, 10, 4, 10): the right shape (4, 10, 10) with the batch size 4 repeated at axis 2: writing the batch axis twice (Q's and K's leading shapes glued together, q_shape[:-1] + k_shape[:-1]) ...": true, q_shape[:-1] + k_shape[:-1] is exactly torch.inner's output rule, and the fix (one shared batch axis: (batch, T_q, T_k)) is right; borderline only in that it never names torch.inner (numpy-style inner pairs every row of one with every row of the other; Q @ K.mT is the batched product)
        "q1_weights_probed_with_torch_inner_which_pairs_every_query_with_every_sequences_keys": ("batch_axis_repeated",),
        # generic: q1:test_weights_shape None (the only failure), "weights_shape is (4, 64), not the shape of the attention-weight matrix: it has one entry per (query, key) pair": true, says what differs; nothing says F.cosine_similarity reduces its default dim=1 (the token axis of (B, T, d)) and compares the two tensors position by position instead of every query with every key; a key should say "F.cosine_similarity(Q, K) reduces dim=1 and pairs position with position: the weights are Q @ K.mT, one entry per (query, key) pair, (4, 10, 10)"
        # now (naming round 61: weights_from_cosine_similarity, by the shape F.cosine_similarity gives on Q's shape (default dim=1 reduced) and the cell's cosine_similarity call)
        "q1_weights_probed_with_cosine_similarity_which_reduces_its_default_dim_1_the_token_axis": ("weights_from_cosine_similarity",),
        # batch_reduced_before_variance on q2:test_score_variances (the only failure), "raw_score_var is 13.64 and scaled_score_var 1.705, exactly 1/8 of it, so the scale is right; but neither is the variance of the example's scores: they are the variances of the two sequences' score matrices summed into one (5, 5) matrix (.sum(dim=0)). averaging (or summing) the batch's score matrices into one before taking the variance ...; take .var() over all the entries of the (B, T, T) scores, each sequence's own": true, implicit-mode einsum("bqd,bkd") sums the repeated b and returns one (5, 5) matrix, and the fix (each sequence's own (B, T, T) scores) is right; borderline: the cause is not said (einsum without "->" sums every repeated letter; write "bqd,bkd->bqk") and the ".sum(dim=0)" it shows is nowhere in the code, but the student can act on "summed into one (5, 5) matrix"
        "q2_scores_from_einsum_without_an_arrow_sum_over_the_repeated_batch_letter": ("batch_reduced_before_variance",),
        # softmax_subtracts_min on all 15 failures (q3 float16_logits_in_the_thousands, minus_inf_entries; 12 q5 tests; q6 weights3_causal by inheritance from stable_softmax), "it matches subtracting each row's minimum instead of its maximum before exp: exp overflows, and a row with a -inf (masked) score becomes NaN (-inf - (-inf))": exactly the mistake, kthvalue(x, 1) is the row's minimum; the fix (subtract the maximum) is plain; only the kthvalue reading (k-th SMALLEST) is left unsaid
        "q3_shift_by_kthvalue_1_which_is_the_smallest_logit_not_the_largest": ("softmax_subtracts_min",),
        # dtype_changed on all 4 failures (q3 float16_logits_in_the_thousands "comes back as torch.float32 for a torch.float16 input, with the right values: keep the input's dtype"; q5 float16, bfloat16, float16_large_scores "your code raised RuntimeError: expected m1 and m2 to have the same dtype ... some step converts to float32 (.float(), a float32 tensor) and meets the input's dtype"): true, torch.zeros(1) is a float32 tensor that takes part in promotion, and "a float32 tensor never cast back" is the catalogue's own words; the fix (keep the input's dtype: a Python 0.0 or zeros_like) follows; it does not point at the where line itself
        "q3_minus_inf_exponentials_zeroed_by_where_against_a_float32_zeros_1_which_promotes_half_types": ("dtype_changed",),
        # fixed_axes on q3:test_dim_argument (the only failure), "stable_softmax(x, dim=1) is wrong: it matches code that assumes a fixed number of dims (K.T, which reverses every axis of a batched tensor; ...): use negative axes (K.transpose(-2, -1)) so that batch and head dims pass through": exactly the code's x.T and why it fails beyond 2-D; the fix (transpose only dim and -1, or movedim) follows
        "q3_axis_moved_to_the_end_with_dot_t_which_reverses_every_axis_of_a_3d_tensor": ("fixed_axes",),
        # one_edit_fix on q4:test_more_queries_than_keys (the only failure), "`causal_mask` is right with one change on line 5 of its cell (`rows = torch.linspace(0, T_q, T_q)...`): `1` in place of `0` ... causal_mask(9, 6) ... differs in 5 entries, the first at [1, 1]": the very line at fault and a fix that is truly right (checked here for every T_q, T_k < 80: rows 1..T_q against keys j + j/(T_k - 1) give exactly j <= i); borderline: a coincidental fix, not the natural one (linspace(0, T - 1, T) or arange), and it says nothing of linspace including its end point (what, not why)
        "q4_positions_from_linspace_whose_end_point_is_included": ("one_edit_fix",),
        # generic: all 12 q5 failures None, "the float64 output (d_k = 12) does not match the correct result in 60 of 60 entries ... expected [[[-0.161]]] got [[[-0.322]]]" (and the same per test): true, and the shown inputs (got = 2x expected with two visible keys) are a hint, but nothing says mask.sum(-1) is an int64 count of the visible keys, not a 0/1 flag, so every row is scaled by its key count; a key should say "the sum of a bool mask counts the visible keys: multiplying by it scales each row by that count; use mask.any(-1, keepdim=True) as the flag"
        # now (naming round 61: mask_sum_as_flag, by replay of the right output times each row's visible-key count (mask.sum(-1)) on q5's own inputs; text says mask.any(-1, keepdim=True) is the flag)
        "q5_sum_of_the_bool_mask_is_a_key_count_not_a_flag_and_scales_each_row_by_it": ("mask_sum_as_flag",),
        # softmax_over_batch_axis on all 13 q5 failures, "the output with mask=None is wrong: it matches taking the softmax over a batch or head axis (a fixed dim=0 or dim=1 of batched scores) instead of the keys' axis, dim=-1" (the masked tests: NaN where finite, and with an all-True mask it matches the same): true, F.softmax without dim takes dim 0 on 3-D and dim 1 on 4-D scores, and "dim=-1" is the fix; the implicit-dim fallback is not named, but the student sees F.softmax(scores) with no dim
        "q5_f_softmax_called_without_dim_falls_back_to_the_legacy_implicit_axis": ("softmax_over_batch_axis",),
        # inplace_on_input on q6:test_weights3 (the only failure), "weights3 equals the causal weights weights3_causal ..., and scores3 now holds -inf where the causal mask blocks: the causal fill wrote into scores3 (masked_fill_ works in place) before weights3 was computed from it; use scores3.masked_fill(...), which returns a new tensor. changing an input in place ...; compute a new tensor instead": the effect and the order are true (the fill through scores3.numpy() wrote into scores3 before weights3 read it) and both fixes work; borderline: the parenthetical cause "(masked_fill_ works in place)" is fixed text and names a call the code does not use; the real cause, Tensor.numpy() sharing memory (np.array(scores3) or scores3.clone() copies), is unsaid, though "the causal fill wrote into scores3" leads the student to _s
        "q6_scores_masked_through_their_numpy_view_which_shares_memory": ("inplace_on_input",),
        # generic: q6:test_weights3_causal None (the only failure), "weights3_causal contains NaN or inf in row(s) [0, 1], exactly the rows with a masked (-inf) score: look at the masked fill and at what stable_softmax subtracts before exp (q3's -inf test checks it)": says what differs, but "exactly the rows with a masked score" is not so (row 2 has masked scores too and is finite) and it sends the student to stable_softmax, which is right; nothing says triu(diagonal=-1) keeps the first sub-diagonal, leaving rows 0 and 1 all -inf; a key should say "triu's diagonal=-1 reaches one below the diagonal: rows 0 and 1 are blocked entirely; strictly above the diagonal is diagonal=1"
        # now (naming round 61: causal_diagonal_offset_misread, by replay of the causal mask shifted two down (rows 0, 1 fully blocked: NaN or zeros, row 2 on key 0) and the cell's triu/tril call with a diagonal offset)
        "q6_triu_bias_with_diagonal_minus_1_also_blocks_the_diagonal_and_below": ("causal_diagonal_offset_misread",),
        # weights_not_normalised on all 3 failures (q6 weights3, out3 via weights3, weights3_causal), "each row is the right weights times its own factor (the rows sum to between 1.61 and 1.69, not 1): using exp(scores) as weights without dividing by the row sum: rows do not sum to 1": true, F.normalize's default p=2 divides by the Euclidean norm, not the row sum, so each row is the right weights times a factor; "divide by the row sum" is the fix (or p=1); borderline: the code does divide (by the L2 norm), so "exp(scores) as weights without dividing" reads as if it did not normalise at all, and F.normalize's p is not named, but "without dividing by the row sum" is literally true and actionable
        "q6_rows_normalised_with_f_normalize_whose_default_p_is_2": ("weights_not_normalised",),
        # answer_computed_by_code on q7:test_trap_answer (the only failure), "q_trap_answer is 'A', the letter your code worked out (`q_trap_answer = 'A' if torch.allclose(_short, _right) else 'C'`), and it is not the best answer (option A stands for zeroing masked weights after the softmax: rows no longer sum to 1): compare what each approach does to the sum of a row's weights: ... what it measures or compares is not what the question asks ...; decide the option and assign its letter": true (the check compares the shortcut on already-masked scores, not what the question asks) and "rows no longer sum to 1" leads to C; borderline: nothing says _scores.detach() shares storage, so the masking wrote into the raw scores (clone() copies); the hints listed (sign, max against min, sizes, branch) do not fit the aliasing
        "q7_scores_copied_with_detach_share_storage_so_the_shortcut_sees_masked_scores_answers_a": ("answer_computed_by_code",),
        # distinct_pairs_counted_once on q8:test_attn_entries (the only failure), "attn_entries is 523776, T (T - 1) / 2 = math.comb(1024, 2): counting T (T - 1) / 2 entries ...: the unordered pairs of two different tokens ...; T x T = T^2 entries": exactly what torch.combinations(r=2) gives (unordered, no self pairs) and the fix; torch.combinations is not named, but the count and the reason are the code's
        "q8_pairs_counted_with_torch_combinations_which_drops_order_and_self_pairs": ("distinct_pairs_counted_once",),
    },
# wrong 14: named right 11 / partly 0 / generic 3 / raw 0 / mis-named 0 / not caught 0; correct at full marks 5/5
    "scaled-attention": {
        # generic: all 5 q1 failures None (float64_weights, float64_output, float32_square, noncontiguous, broadcast): "the weight matrix does not match the correct result in 35 of 35 entries (largest difference 0.166 ...)", noncontiguous's smallest input "expected [[0.635, 0.365], [0.392, 0.608]] got [[0.5, 0.5], [0.5, 0.5]]": true, says what differs (and the uniform rows hint that the scores collapse), but nothing says torch.divide(..., rounding_mode="trunc") rounds every float quotient towards zero, so the scaled scores become whole numbers (mostly 0) and the weights go flat; a key should say "rounding_mode='trunc' (or 'floor') rounds the scaled scores to integers even for float tensors: divide plainly, Q @ K.T / math.sqrt(d_k)" (integer_sqrt_scale and dots_made_integers are near, neither fits); q8 not charged
        # now (naming round 61: scores_division_rounded, by replay of both results of the same call (softmax of the scaled scores rounded by trunc or floor) with the rounding division (rounding_mode, //, floor_divide) in attention's source)
        "q1_scores_divided_with_rounding_mode_trunc": ("scores_division_rounded",),
        # named right: output_transposed on all 4 q1 failures (float64_output, float32_square, noncontiguous, broadcast): "the output has shape (5, 6) and equals (A V)^T = V^T A^T, the right output transposed (it must be A V, shape (T_q, d_v) = (6, 5)) ... each query's result is a column (V^T A^T, V.T @ weights.T, an einsum written 'qk,kv->vq', or a .T left on the result); return weights @ V (einsum 'qk,kv->qv'), one row per query": exactly the result (values right, (d_v, T_q)) and the fix (an explicit '->qv', or weights @ V) mends it; borderline only in that it lists an explicit '->vq', not the code's arrowless 'qk,kd' whose implicit output labels come out in alphabetical order ('dq'); q8 not charged
        "q1_value_mix_einsum_without_arrow_puts_d_before_q": ("output_transposed",),
        # named right (borderline): scaled_flag_ignored on q2:test_scaled_variance_is_one (the only failure): "with scaled=True the result is the unscaled variance, about d_k: it matches returning the unscaled variance when scaled=True": true (the unscaled branch is always taken) and it points the student at the branch on `scaled`; borderline: effect without the cause, nothing says `~` on a Python bool is the integer bitwise NOT (~False == -1, ~True == -2, both truthy), and a student who believes ~ negates may stare at `if ~scaled` and see nothing wrong; a key should add "use `not scaled` (~ negates only bool tensors)"
        "q2_tilde_on_python_bool_flag_always_truthy": ("scaled_flag_ignored",),
        # generic: all 3 q2 failures None (unscaled_variance_is_d_k, scaled_variance_is_one, draws_from_generator): "dot_product_variance(...) is NaN, not a finite number. A variance is NaN when it is taken of a single number (torch's var divides by n - 1): check that the dot products are n_samples numbers, each pair's products summed over its d_k coordinates only ((q * k).sum(dim=-1)), not one number (torch.dot of flattened draws, or a sum without dim) ...": true and very close (the dots are one number; the fix (q * k).sum(dim=-1) mends it), but named nothing and nothing says einsum("nd,nd") with no '->' sums every label that appears twice, n as well as d (write "nd,nd->n"); the grader keeps dots_summed_over_samples unnamed on purpose (one pair drawn alone gives the same NaN); a key should say "an einsum without '->' sums the sample index too: one number, whose variance is NaN"
        # now (naming round 61: dots_einsum_implicit_summed, by the NaN of a one-number variance with an einsum without '->' whose every label appears twice in dot_product_variance's source)
        "q2_einsum_implicit_mode_sums_the_sample_index": ("dots_einsum_implicit_summed",),
        # named right (borderline): entropy_nan_saturated on q4:test_entropy_saturated_rows (the only failure): "softmax_entropy returned NaN for a saturated row: entropy NaN for a saturated row: 0 * log(0); add a tiny epsilon or use log_softmax": true (the 0 * -inf terms stay NaN) and both fixes mend it; borderline: the student already meant to zero those terms and is not told why that failed (`terms.masked_fill(...)` returns a new tensor that is thrown away: masked_fill_ or terms = terms.masked_fill(...)); table not charged
        "q4_entropy_masked_fill_result_discarded": ("entropy_nan_saturated",),
        # named right (borderline): entropy_nan_saturated on q4:test_entropy_saturated_rows (the only failure), the same message: "0 * log(0); add a tiny epsilon or use log_softmax": true (the clamp at finfo.min changes nothing, log(0) = -inf) and log_softmax mends it; borderline: the student believes the clamp IS a tiny epsilon, and nothing says torch.finfo(dtype).min is the most negative float (-3.4e38), finfo.tiny being the smallest positive one (entropy_guard_too_large's text names finfo.tiny; this one does not); table not charged
        "q4_entropy_log_clamped_at_finfo_min_not_tiny": ("entropy_nan_saturated",),
        # named right: default_argument_wrong on q4:test_entropy_table_lesson (the only failure): "entropy_table() is wrong when called without dims=(4, 16, 64, 256), and right when dims=(4, 16, 64, 256) is passed explicitly: its default must be dims=(4, 16, 64, 256), as in the notebook's signature": exactly the fault (the default, not the body) and the fix; borderline only in that it says what, not why (4 ** torch.arange(1, 4) stops at exponent 3, arange's end exclusive: no d = 256 row)
        "q4_table_default_dims_from_arange_end_exclusive": ("default_argument_wrong",),
        # named right (borderline): answer_computed_by_code on q5:test_q5_answer (the only failure): "q5_answer is 'A', the letter your code worked out (`q5_answer = _matches[0] if _matches else 'A'`), and it is not the best answer (option A stands for giving the variance of the scaled dot product (1) for the raw one ...) ... what it measures or compares is not what the question asks (look at ... the branch each outcome takes) ...": true, quotes the fallback line that chose A and says why A is wrong; borderline: nothing says torch.allclose at its default tolerances (rtol=1e-5, atol=1e-8) rejects every sampled estimate, so the fallback always fires (a looser tolerance or the nearest option was meant); right in kind as blind60's probes
        "q5_answer_allclose_default_tolerance_rejects_every_option": ("answer_computed_by_code",),
        # named right (borderline): answer_computed_by_code on q6:test_q6_answer (the only failure): "q6_answer is 'B', the letter your code worked out (`q6_answer = 'B' if torch.allclose(_out, _X, atol=1e-06) else 'A'`), and it is not the best answer (option B stands for thinking a token in self-attention attends only to itself) ... (look at ... the sizes it uses ...)": true, quotes the check and says why B is wrong; borderline: nothing says nn.MultiheadAttention's batch_first defaults to False, so the (1, T, d) probe is read as T sequences of one token each, each attending only to itself (batch_first=True, or a (T, 1, d) input)
        "q6_answer_probe_mha_batch_first_default_tokens_read_as_batch": ("answer_computed_by_code",),
        # named right (borderline): answer_computed_by_code on q7:test_q7_answer (the only failure): "q7_answer is 'C', the letter your code worked out (`q7_answer = 'C' if _one_value else 'D'`), and it is not the best answer (option C stands for thinking attention returns only the best-matching value (a hard argmax) instead of a weighted mixture) ...": true, quotes the pick and says why C is wrong; borderline: nothing says is_causal=True with one query and six keys is a top-left tril mask that lets the query see key 0 only, so the output is values[0] for this probe alone (drop is_causal, or give as many queries as keys)
        "q7_answer_probe_sdpa_is_causal_single_query_sees_key_zero": ("answer_computed_by_code",),
        # raw: all 3 q8 failures None (reference, torch MHA, eight heads): "your code raised RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.": only the exception (PyTorch's own words hint at clone, none of the grader's); nothing says X.new_zeros(1, d_model).expand(T, d_model) is a view whose T rows share one memory row, so the slice assignment cannot write it; a key should say "expand does not allocate: build the buffer with new_zeros(T, d_model) (or torch.cat the heads)" (inplace_on_input's "an expanded input cannot be written" is near but is about inputs)
        # now (naming round 61: mha_buffer_expanded, by torch's shared-memory write crash with a name bound to .expand/.expand_as written into in multi_head_attention's source)
        "q8_head_buffer_from_expand_written_in_place": ("mha_buffer_expanded",),
        # named right (borderline): mha_strided_heads on all 3 q8 failures: "multi_head_attention(...) is wrong: it matches giving head h the strided columns h, h + n_heads, ... (a view(T, d_k, n_heads) split) instead of the block h * d_k to (h + 1) * d_k": exactly what the code does (arange(n_heads).repeat(d_k) tiles 0..n_heads-1, so column c goes to head c mod n_heads) and the fix (the contiguous block) is plain; borderline only in that the cause named is a view split, not .repeat where repeat_interleave was meant
        "q8_head_columns_mask_from_repeat_not_repeat_interleave": ("mha_strided_heads",),
        # raw: all 3 q8 failures None: "your code raised RuntimeError: The size of tensor a (12) must match the size of tensor b (5) at non-singleton dimension 0": only the exception; nothing says .T on the 3-D (T, n_heads, d_k) view reverses all three axes, (d_k, n_heads, T), so attention batches over features and its own K.T undoes it (use .transpose(0, 1)); mha_heads_features_as_tokens ("the split is .view(T, n_heads, d_k).transpose(0, 1)") is near and did not fire; a key should say ".T on a 3-D tensor reverses every axis: move the heads to the front with transpose(0, 1) and back the same way"
        # now (naming round 61: mha_heads_dot_T, by the crash (or by replay, with a batched attention) with .T of a three-axis view in multi_head_attention's source)
        "q8_heads_split_with_dot_T_on_three_dims": ("mha_heads_dot_T",),
        # named right (borderline): mha_head_slice_short on all 3 q8 failures: "your code raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (5x44 and 48x48): 4 heads of width 11 where d_k = 12; given a W_O of 44 rows it runs, and head h is the columns slice(h * d_k, h * d_k + 11): slicing each head narrower than d_k (slice(h * d_k, (h + 1) * d_k - 1): Python's slice end is exclusive already): every head must take d_k columns, h * d_k to (h + 1) * d_k": exactly the mistake (each head one column short, the inclusive end copied into an exclusive range) and the fix; borderline only in that it says slice where the code uses torch.arange (whose end is exclusive the same way)
        "q8_head_columns_arange_given_the_inclusive_end": ("mha_head_slice_short",),
    },
# wrong 14: named right 10 / partly 0 / generic 2 / raw 2 / mis-named 0 / not caught 0; correct at full marks 5/5
    "attention-pipeline": {
        # raw: all three q01 failures None (float64, batched float32, views), "your code raised RuntimeError: split_with_sizes expects split_sizes to sum exactly to 29 (input tensor's size at dimension -1), but got split_sizes=[12, 24]" (views adds the shrunk case, "got the same error"): only the exception (torch's own words say the sizes must sum to the width, nothing of the grader's); nothing says torch.split's list is section SIZES, not cut points like tensor_split's, so [d_k, 2*d_k] is wrong ([d_k, d_k, d_v] for split, or tensor_split([d_k, 2*d_k])); q07/q09/q10 not charged
        # now (naming round 61: split_given_cut_points, by crash words (the reported sizes are the cut points [d_k, 2 d_k] of the fused width) and a second call with d_v = d_k giving two pieces for three)
        "q01_split_given_cut_points_like_tensor_split": ("split_given_cut_points",),
        # batched_input_unsupported on all three q02 failures (batched float32, noncontiguous, broadcast): "your code raised RuntimeError: permute(sparse_coo): ... input.dim() = 3 is not equal to len(dims) = 2 for Q (2, 6, 16), K (2, 6, 16); on one slice of the same inputs ... it runs and is right: code that works only for 2-D inputs ...; use .transpose(-2, -1) or .mT and X.shape[-2]": true (K.permute(-1, -2) is a full ordering only for 2-D keys) and the fix is exactly right; torch's words name permute and the count of dims; borderline only in that the grader's text lists .T / transpose(0, 1) / bmm and not permute's all-dims rule; q07/q09/q10/q13 not charged
        "q02_permute_given_two_axes_like_transpose": ("batched_input_unsupported",),
        # answer_computed_by_code on q03:test_ans_scale (the only failure): "ans_scale is 'a', the letter your code worked out (`ans_scale = 'b' if _top_raw > _top_scaled else 'a'`) ... (option A stands for thinking larger scores make the softmax flatter: unscaled scores grow like sqrt(d_k) and make each row sharper) ... what it measures or compares is not what the question asks (look at its sign, max against min, ...)": true (the experiment picked 'a') and the option's correction points at 'b'; borderline: nothing says torch.sort is ascending so values[0] is each row's SMALLEST weight, but "max against min" is the right place to look
        "q03_sort_read_as_descending_top_weight_answers_flatter": ("answer_computed_by_code",),
        # one_edit_fix on all three q04 failures (pattern, dtype min, float16 finite): "`causal_additive_mask` is right with one change on line 3 of its cell (`future = torch.triu(...`): `1` in place of `-1` ... the mask blocks the wrong entries: exactly the keys after each query (strictly above the diagonal) should be blocked ...; 9 entries blocked that must stay open (the first at (query, key) = (0, 0))": exactly the diagonal offset and its fix (diagonal=1 is strictly above); q07/q09/q10/q13 not charged
        "q04_triu_diagonal_minus_one_read_as_strictly_above": ("one_edit_fix",),
        # softmax_subtracts_min on all four q05 failures (float64 rectangular mask, float16 stable, noncontiguous, large float32): "A is wrong: it matches subtracting each row's minimum instead of its maximum before exp: exp overflows, and a row with a -inf (masked) score becomes NaN (-inf - (-inf)): subtract each row's own maximum before exponentiating": true (kthvalue(1) is the k-th SMALLEST, the row minimum) and the fix is right; borderline only in that it does not name kthvalue, and with finfo.min blocks the NaN comes from inf/inf (open entries minus finfo.min overflow), not -inf - (-inf); q07/q09/q10/q13 not charged
        "q05_kthvalue_one_read_as_row_max": ("softmax_subtracts_min",),
        # answer_computed_by_code on q06:test_ans_mask (the only failure): "ans_mask is 'd', the letter your code worked out (`ans_mask = 'c' if _leak_open > 0 and _leak_masked == 0 else 'd'`) ... (option D stands for thinking the mask is about gradients: without it position t reads the token it is trained to predict) ... what it measures or compares is not what the question asks": true, quotes the branch, and the option's correction points at C; borderline: nothing says tril(A, diagonal=-1) is the part strictly BELOW the diagonal (the past), so the "leak" never drops with the mask on
        "q06_future_weights_read_with_tril_minus_one_answers_no_gradient": ("answer_computed_by_code",),
        # generic: all three q08 failures None (random, is attention row, views), "the smoothed row does not match the correct result in 5 of 5 entries (largest difference 1.91 ...): it is the correct result times a constant: off by a constant factor x3.586": says what differs (a constant factor points at the denominator), nothing says torch.logsumexp returns the LOG of the sum of exponentials, so the weighted values are divided by log(sum exp(s)) (divide by kappa.sum(), or use exp(s - logsumexp(s)) as the weights)
        # now (naming round 61: nw_denominator_logsumexp, by replay (the weighted values over torch.logsumexp of the scores))
        "q08_denominator_from_logsumexp_read_as_stable_sum": ("nw_denominator_logsumexp",),
        # prefix_average_float32 on q09:test_prefix_average_matrix (the only failure): "W_avg is float32 (its values are right to float32's precision): building the prefix-average matrix in float32, torch's default dtype, where the question asks for float64 (torch.ones(T, T) needs dtype=torch.float64)": true (torch.float IS float32, the default dtype) and the fix is exactly right; borderline: it frames it as the default left alone, not as dtype=torch.float read as double, but "W_avg is float32" and "dtype=torch.float64" are enough to act on; q10 not charged
        "q09_dtype_torch_float_read_as_double": ("prefix_average_float32",),
        # entropy_log_shifted on both q10 failures (causal rows, views): "H is wrong: it matches guarding log(0) by shifting every argument (log2(A + 1)): that changes every term, not only the zero ones; give 0 log 0 the value 0 instead (torch.special.xlogy(A, A), or A.clamp_min(tiny) inside the log)": true (xlog1py(A, A)/ln 2 = A log2(1 + A), the shifted log exactly) and the fix names xlogy, the function meant; borderline only in that it does not name xlog1py
        "q10_xlog1py_mistaken_for_xlogy": ("entropy_log_shifted",),
        # generic: q11:test_max_rank_S None (the only failure), "max_rank_S is not correct: what limits the rank of Q K^T?": a hint at the bound, which the student's experiment already measures right (the sampled ranks are 8); nothing says torch.max(x, dim) returns (values, indices), so [1] is the index 0 (use .values or [0])
        # now (naming round 61: max_indices_read_as_values, by source ([1] or .indices of a max/min/sort... call with a dim, read by max_rank_S's assignment) and the value a valid index below the bound)
        "q11_max_rank_from_max_tuple_reads_indices": ("max_indices_read_as_values",),
        # param_count_no_wk on both q12 failures (qkv, with output): "the count is wrong: it matches forgetting W_K in the parameter count": true of the number (W_K's d_model*d_k is missing) and the only place W_K appears is the `* 2`; borderline: the effect, not the cause (`[nn.Linear(...)] * 2` is ONE module twice and parameters() yields the shared weight once; build two Linear layers), and "forgetting" frames as an omission what the student wrote on purpose; a key should say the list repeats one module
        # now (naming round 61: module_list_repeated, by the count replayed (W_K's term missing) and source ([one module call] * a number in the def))
        "q12_linear_list_multiplied_shares_one_module": ("param_count_no_wk", "module_list_repeated"),
        # answer_computed_by_code on q14:test_ans_cross_shapes (the only failure): "ans_cross_shapes is 'c', the letter your code worked out (`ans_cross_shapes = next((k for k, (s, o) in _options.items() if s =...`) ... (option C stands for taking queries from Y or keys/values from X in cross-attention)": true (reading the docs' target length L as Y's makes the queries' axis T') and the correction points at B; borderline: it quotes the lookup, not `_L, _S = "T'", "T"`, and nothing says the docs' L is the queries' length
        "q14_sdpa_doc_target_length_read_as_y_answers_c": ("answer_computed_by_code",),
        # causal_needs_square on q15:test_ans_cross_causal (the only failure): "ans_cross_causal is not the best answer: that choice reflects tying the causal mask to a square score matrix: what matters is whether both sequences share one time axis": exactly the belief the cell states (is_causal's square-mask note read as "causal needs square") and the fix
        "q15_sdpa_is_causal_square_doc_read_as_never": ("causal_needs_square",),
        # answer_computed_by_code on q16:test_ans_complexity (the only failure): "ans_complexity is 'a', the letter your code worked out (`ans_complexity = 'c' if math.isclose(_ratio, 4.0) else 'd' if math....`) ... (option A stands for thinking the score matrix costs time linear in T: there are T^2 scores) ... (look at ... the branch each outcome takes)": true (every isclose is False and it falls through to 'a'), quotes the isclose line, and "there are T^2 scores" points at C; borderline: nothing says isclose's default rel_tol=1e-9 makes no measured ratio "close" (pass rel_tol=0.5 or decide the letter)
        "q16_timing_ratio_tested_with_math_isclose_defaults_answers_linear": ("answer_computed_by_code",),
    },
# wrong 14: named right 11 / partly 0 / generic 2 / raw 1 / mis-named 0 / not caught 0; correct at full marks 5/5
}


# answer_computed_by_code (engine, round 40, after blind39): a wrong letter whose last binding the notebook's code
# works out (a check with a fallback, max/min with a key, a loop, a try) is told as the code's pick, with what the
# option stands for, never as the student's belief. It was added by hand (not by the judges) to the 34 mapped
# variants of earlier sets where it now fires, listed by /tmp/cc/grade_computed.py's scan: each of them computes
# its letter, so the message is true of it; the belief key stays beside it where the judges had accepted it.
#
# answer_by_position (engine, round 43, after blind42): a wrong letter picked by its position from constants
# (chr(ord("a") + 3), "ABCD"[3], options[3]) is told by its count, never by the option's belief. Added by hand (not by
# the judges) to the seven mapped variants of earlier sets where it now fires (sdpa blind14 and blind25's q7,
# scaled-attention blind9, blind11, blind14 and blind15's letters), found by reading every set's cells with
# source_checks.positional_answer; the judges' key stays beside it. Four more positional variants (scaled-attention
# blind9, blind32, blind37, pipeline blind37) keep one_edit_fix, which still comes first.

SET_KEYS: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
    "blind": BLIND_KEYS, "blind2": BLIND2_KEYS, "blind3": BLIND3_KEYS, "blind4": BLIND4_KEYS,
    "blind5": BLIND5_KEYS, "blind6": BLIND6_KEYS, "blind7": BLIND7_KEYS,
    "blind8": BLIND8_KEYS, "blind9": BLIND9_KEYS, "blind10": BLIND10_KEYS,
    "blind11": BLIND11_KEYS, "blind12": BLIND12_KEYS, "blind13": BLIND13_KEYS,
    "blind14": BLIND14_KEYS, "blind15": BLIND15_KEYS, "blind16": BLIND16_KEYS, "blind17": BLIND17_KEYS,
    "blind18": BLIND18_KEYS, "blind19": BLIND19_KEYS, "blind20": BLIND20_KEYS,
    "blind21": BLIND21_KEYS, "blind22": BLIND22_KEYS, "blind23": BLIND23_KEYS,
    "blind24": BLIND24_KEYS,
    "blind25": BLIND25_KEYS, "blind26": BLIND26_KEYS, "blind27": BLIND27_KEYS,
    "blind28": BLIND28_KEYS, "blind29": BLIND29_KEYS, "blind30": BLIND30_KEYS,
    "blind31": BLIND31_KEYS, "blind32": BLIND32_KEYS, "blind33": BLIND33_KEYS, "blind34": BLIND34_KEYS, "blind35": BLIND35_KEYS,
    "blind36": BLIND36_KEYS, "blind37": BLIND37_KEYS, "blind38": BLIND38_KEYS,
    "blind39": BLIND39_KEYS, "blind40": BLIND40_KEYS, "blind41": BLIND41_KEYS,
    "blind42": BLIND42_KEYS, "blind43": BLIND43_KEYS, "blind44": BLIND44_KEYS, "blind45": BLIND45_KEYS, "blind46": BLIND46_KEYS,
    "blind47": BLIND47_KEYS, "blind48": BLIND48_KEYS, "blind49": BLIND49_KEYS,
    "blind50": BLIND50_KEYS, "blind51": BLIND51_KEYS, "blind52": BLIND52_KEYS,
    "blind53": BLIND53_KEYS, "blind54": BLIND54_KEYS, "blind55": BLIND55_KEYS,
    "blind56": BLIND56_KEYS, "blind57": BLIND57_KEYS, "blind58": BLIND58_KEYS, "blind59": BLIND59_KEYS, "blind60": BLIND60_KEYS, "blind61": BLIND61_KEYS}


def load_blind(slug: str, set_name: str = "blind") -> list[Variant]:
    """The variants of `tests/heldout/<slug>/<set_name>.py` (a blind-format set), [] where there is none."""
    path = ROOT / "tests" / "heldout" / slug / f"{set_name}.py"
    if not path.exists():
        return []
    spec = importlib.util.spec_from_file_location(f"_{set_name}_{slug.replace('-', '_')}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    keys = SET_KEYS.get(set_name, {}).get(slug, {})
    out = [Variant(slug, name, cells, True) for name, cells in mod.CORRECT.items()]
    for name, (cells, exp) in mod.WRONG.items():
        out.append(Variant(slug, name, cells, False, keys.get(name, ()), tuple(exp.get("where", ()))))
    return out


def unmapped(slug: str, set_name: str, variants: list[Variant]) -> set[str]:
    """The wrong variants of a set that its key mapping does not cover (variants.py says every key)."""
    if set_name == "variants":
        return set()
    keys = SET_KEYS.get(set_name, {}).get(slug, {})
    return {v.name for v in variants if not v.correct and v.name not in keys}


def verdict(o: Outcome, mapped: bool = True) -> str:
    if o.variant.correct:
        return "full marks" if o.full_marks else "correct but lost points"
    if o.status != "graded":
        return o.status
    if o.score >= o.max_score or not o.failed:
        return "not caught"
    keys = [k for _, _, k, _ in o.failed]
    if not mapped:
        if all(k is not None for k in keys):
            return "named, unmapped"
    elif any(k is not None and k not in o.variant.keys for k in keys):
        return "mis-named"
    if keys and all(k is not None for k in keys):
        return "named right"
    if any(k is not None for k in keys):
        return "partly named"     # some tests name it, others only say what differs
    if all(m.startswith("your code raised") for _, _, _, m in o.failed):
        return "raw exception"
    return "generic"


ORDER = ["named right", "partly named", "generic", "raw exception", "mis-named", "not caught"]


def table(name: str, outcomes: list[Outcome], unmapped_names: Collection[str] = ()) -> str:
    good = [o for o in outcomes if o.variant.correct]
    bad = [o for o in outcomes if not o.variant.correct]
    counts = Counter(verdict(o, o.variant.name not in unmapped_names) for o in bad)
    order = ORDER[:1] + ["named, unmapped"] + ORDER[1:] if unmapped_names else ORDER
    parts = ", ".join(f"{k} {counts.get(k, 0)}" for k in order)
    parts += "".join(f", {k} {n}" for k, n in counts.items() if k not in order)   # e.g. a failed grade
    return (f"{name}: wrong {len(bad)}: {parts}; correct at full marks "
            f"{sum(o.full_marks for o in good)}/{len(good)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slugs", nargs="+")
    parser.add_argument("--set", action="append", metavar="NAME",
                        help="variants, or a blind-format set <slug>/NAME.py (blind, blind2 .. blind5); repeatable")
    parser.add_argument("-v", "--verbose", action="store_true", help="each wrong variant's failed tests")
    args = parser.parse_args(argv)
    for name in args.set or ():
        if not name.isidentifier():          # a file name beside variants.py, never a path
            parser.error(f"--set {name!r}: not a set name")
    from autograder.config import find_course
    from autograder.grading.grader import Grader

    sets = args.set or ["variants", "blind"]
    lines = []
    with Grader(find_course(ROOT)) as g, tempfile.TemporaryDirectory() as tmp:
        for slug in args.slugs:
            for which in sets:
                variants = load_variants(slug) if which == "variants" else load_blind(slug, which)
                if not variants:
                    continue
                loose = unmapped(slug, which, variants)
                outcomes = [grade(g, v, Path(tmp)) for v in variants]
                for o in outcomes:
                    v = verdict(o, o.variant.name not in loose)
                    if args.verbose or v not in ("named right", "full marks"):
                        print(f"[{v}] {o.explain()}", flush=True)
                lines.append(table(f"{slug} {which}", outcomes, loose))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
