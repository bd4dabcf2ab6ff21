"""rank(S) <= min(rank Q, rank K) <= d_k: two numeric answers."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import Misconception, describe, expect_int, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q11"
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the assignment's diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


def _int(value, what, right):
    """The whole number asked for. A tensor holding it is charged as scaled-attention charges a tensor
    where a Python number is asked (one policy for both): returns_tensor_not_number; a tensor holding
    another number is judged by that number."""
    got = expect_int(value, what)
    if type(value) is torch.Tensor and got == right:
        raise Misconception("returns_tensor_not_number", f"{what} is a tensor of shape {tuple(value.shape)} holding "
                            f"the right number, not a Python int: " + describe("returns_tensor_not_number"))
    return got


T_Q11, D_K_Q11 = 100, 8   # the question's head: T = 100 tokens, d_k = 8 (the right answer is min(T, d_k) = 8)


def size_arithmetic(T: int, d_k: int) -> dict[int, str]:
    """{answer: its reading} for a rank bound built from the wrong arithmetic of T and d_k (naming17). A
    value two readings share, or one that is the right min(T, d_k), or one another key names (T, 2 d_k,
    the lesson's d_k), is left out: it could not say which arithmetic was done."""
    readings = [(T - d_k, f"T - d_k ({T} - {d_k})"), (T + d_k, f"T + d_k ({T} + {d_k})"),
                (T * d_k, f"T * d_k ({T} * {d_k}), the number of entries of Q (or of K)"),
                (T * T, f"T^2 ({T} * {T}), the number of entries of S"),
                (d_k * d_k, f"d_k^2 ({d_k} * {d_k})"), (T // d_k, f"T / d_k ({T} / {d_k}) rounded down"),
                (-(-T // d_k), f"T / d_k ({T} / {d_k}) rounded up"), (d_k - 1, f"d_k - 1 ({d_k} - 1)")]
    taken = {min(T, d_k), T, max(T, d_k), 2 * d_k, ref.lesson_qk()[0].shape[-1]}
    values = [v for v, _ in readings]
    return {v: said for v, said in readings if values.count(v) == 1 and v not in taken and v > 0}


def _as_int(value):
    """A plain whole number (int, or a one-element tensor holding one), else None."""
    if type(value) is torch.Tensor and value.numel() == 1:
        value = value.item()
    return int(value) if type(value) in (int, float) and float(value).is_integer() else None


def _raise_if_swapped(max_rank, rank_lesson):
    """Each answer holds the other's right value (max_rank_S = 2, rank_S_lesson = 8, blind41): named on both tests
    only where both are exactly swapped, so a single wrong answer equal to the other's value is never told so."""
    if (_as_int(max_rank), _as_int(rank_lesson)) == (ref.rank_S_lesson, ref.max_rank_S):
        raise Misconception("rank_answers_swapped", f"max_rank_S is {ref.rank_S_lesson} and rank_S_lesson is "
                            f"{ref.max_rank_S}: " + describe("rank_answers_swapped"))


@test_case(points=1, hidden=True)
def test_max_rank_S(max_rank_S, submission=None, rank_S_lesson=None):
    got = _int(max_rank_S, "max_rank_S", ref.max_rank_S)
    _raise_if_swapped(max_rank_S, rank_S_lesson)   # only (2, 8): never where max_rank_S is right
    D.raise_if_rank_measure_slips(got, submission, "max_rank_S")   # max(x, dim)[1] (blind61), svd_lowrank's q (blind63)
    D.raise_if_rank_of_half_scores(got, submission, D_K_Q11)   # above d_k, measured on float16 scores (blind59)
    D.raise_if_rank_einsum_letters_differ(got, submission, "max_rank_S")   # 'td,sk->ts': an outer product (blind60)
    # 1: the rank of one constant example (all-ones Q, K: S = c ones), where the notebook measured it so (blind39)
    src = D.rank_on_constant_example(submission, "max_rank_S") if got == 1 else None
    if src is not None:
        raise Misconception("rank_from_one_example", f"max_rank_S is 1, what `{src[:70]}` measures on one constant "
                            "example (a constant Q or K makes S rank 1); the head here has d_k = 8 and T = 100: "
                            + describe("rank_from_one_example"))
    if got == T_Q11:   # T, the number of tokens; max(T, d_k) where min was meant gives it too
        D.raise_if_rank_capped_arithmetic(submission, "max_rank_S", T_Q11)   # min(T, 13 tiles x d_k) (round 86)
        raise Misconception("rank_bounded_by_T", "max_rank_S is the number of tokens (and max(T, d_k), where the "
                            "bound is the smaller one): S = Q K^T passes through d_k dimensions, so its rank is at "
                            "most d_k")
    D.raise_if_paper_head_split(got, submission, "max_rank_S", D_K_Q11)   # 512 / 8: the 8 read as heads (blind62)
    arithmetic = size_arithmetic(T_Q11, D_K_Q11)
    if got in arithmetic:
        raise Misconception("rank_from_size_arithmetic", f"max_rank_S is {got}, {arithmetic[got]}: "
                            + describe("rank_from_size_arithmetic") + D.rank_minus_one_said(got, T_Q11, D_K_Q11))
    lesson_d_k = ref.lesson_qk()[0].shape[-1]
    if got == lesson_d_k and got != ref.max_rank_S:   # 4: the bound of the lesson's head, not of this one
        raise Misconception("bound_from_lesson_head", f"max_rank_S is {got}, the lesson's d_k (its bound "
                            f"min(d_k, T) = {got}); the head in this question has d_k = 8 and T = 100: "
                            + describe("bound_from_lesson_head"))
    if got == 2 and got == ref.rank_S_lesson and got != ref.max_rank_S and got not in arithmetic:
        # 2: the lesson's S's rank (blind31) and S.ndim, a matrix as a "rank-2 tensor" (blind35): one number, both
        raise Misconception("rank_as_axes_or_lesson_rank", "max_rank_S is 2: the number of axes of S (S.ndim, a "
                            "'rank-2 tensor') and also the rank of the lesson's example S; the head in this question "
                            "has d_k = 8 and T = 100: " + describe("rank_as_axes_or_lesson_rank"))
    if got == ref.rank_S_lesson and got != ref.max_rank_S and got not in arithmetic:
        # the rank measured on the lesson's own S (blind31), where this question's bound is asked
        raise Misconception("bound_from_lesson_head", f"max_rank_S is {got}, the rank of the lesson's example S; "
                            "the head in this question has d_k = 8 and T = 100: " + describe("bound_from_lesson_head"))
    if got == 2 * ref.max_rank_S:   # rank Q + rank K: each is d_k = 8 here (T = 100 tokens)
        raise Misconception("rank_sum_of_ranks", f"max_rank_S is {got}, rank Q + rank K (8 + 8): "
                            + describe("rank_sum_of_ranks"))
    if got != ref.max_rank_S:
        raise AssertionError("max_rank_S is not correct: what limits the rank of Q K^T?")


def _nonzero_query_rows() -> int:
    """How many rows of the lesson pipeline's S = (X W_Q)(X W_K)^T are non-zero: the tokens that ask a question."""
    X, W_Q, W_K, _ = ref.lesson_pipeline()
    return int(((X @ W_Q) @ (X @ W_K).T != 0).any(dim=-1).sum())


@test_case(points=1, hidden=True)
def test_rank_S_lesson(rank_S_lesson, submission=None, max_rank_S=None):
    got = _int(rank_S_lesson, "rank_S_lesson", ref.rank_S_lesson)
    if got == ref.rank_S_lesson:
        return
    _raise_if_swapped(max_rank_S, rank_S_lesson)
    D.raise_if_lesson_matrix_mistyped(got, submission)   # the right rank of a retyped Q or K (blind57)
    Q, K = ref.lesson_qk()
    T, d_k = Q.shape
    D.raise_if_rank_after_ridge(got, submission, "rank_S_lesson", T)   # matrix_rank(S + eps I): T (round 88)
    # the rank of Q * K (blind51's `*`), replayed on the lesson's Q and K and read in the notebook (a 1: eigenvalues too)
    product = D.rank_of_elementwise_scores(submission, "rank_S_lesson") \
        if got == D.elementwise_lesson_rank() != ref.rank_S_lesson else None
    if product is not None:
        raise Misconception("elementwise_product", f"rank_S_lesson is {got}, the rank of `{product[:60]}`, which "
                            f"multiplies Q and K entry by entry (a {T} x {d_k} matrix, not the scores); S = Q @ K.T "
                            f"(every query dotted with every key, {T} x {T}) has rank {ref.rank_S_lesson}: "
                            + describe("elementwise_product"))
    # the trace read as the rank (blind44): int(trace) of the lesson's S, scaled or not, replayed, and read in the cell
    traces = D.lesson_trace_ranks()
    diagonal = D.rank_read_from_diagonal(submission, "rank_S_lesson") if got in traces else None
    if diagonal is not None:
        raise Misconception("rank_from_trace", f"rank_S_lesson is {got}: {traces[got]} (`{diagonal[:60]}`), the sum "
                            f"of its diagonal; S has rank {ref.rank_S_lesson}: " + describe("rank_from_trace"))
    # the nuclear norm (the sum of the singular values) made whole and taken as the rank (blind54): the number
    # replayed on the lesson's S, and the norm read in the cell that assigns the answer;
    # before the number-only readings (int of the unscaled S's 6.53 is rank Q + rank K too)
    nuclear = D.nuclear_norm_ranks()
    norm_src = D.rank_from_nuclear_norm(submission, "rank_S_lesson") if got in nuclear else None
    if norm_src is not None:
        raise Misconception("rank_from_nuclear_norm", f"rank_S_lesson is {got}, not {ref.rank_S_lesson}: "
                            f"`{norm_src[:60]}` is a norm, not a count: {nuclear[got]}: "
                            + describe("rank_from_nuclear_norm"))
    D.raise_if_rank_from_stable_rank(got, submission, "rank_S_lesson")   # ||S||_F^2 / ||S||_2^2 (blind55)
    D.raise_if_rank_read_from_parts(got, submission, "rank_S_lesson")   # non-zero key columns (blind66), svd's U (blind67)
    # len(s > tol): the length of the boolean tensor, every singular value, where the source shows it (blind37)
    src = D.len_of_comparison(submission, "rank_S_lesson") if got == len(torch.linalg.svdvals(Q @ K.T)) else None
    if src is not None:
        raise Misconception("rank_len_of_boolean_mask", f"rank_S_lesson is {got}: `{src[:80]}` takes len() of a "
                            f"boolean tensor, which is its length ({got}), not how many entries are True: "
                            + describe("rank_len_of_boolean_mask"))
    # matrix_rank(S, hermitian=True) on this non-symmetric S reads one triangle: on the lesson's S it gives T as
    # well, so a T there proves neither reading (naming22): generic, saying both; rank_is_T only where it differs.
    # The rank of S + M (-1e9 mask) is T too: one constant, no second call (naming23); with a float32-min mask
    # it is 4 = d_k (named rank_above_min), with float64's min 0 (generic): coincidences of the lesson's numbers
    # the rank of the attention weights A = softmax(S + M) (blind40): full rank, T, whatever rank S has; named where
    # the number is A's rank and the notebook's matrix_rank reads a softmax / attention_weights (before any repair)
    src = D.rank_on_weights(submission, "rank_S_lesson") if got in D.lesson_weight_ranks() else None
    if src is not None:
        raise Misconception("rank_of_attention_weights", f"rank_S_lesson is {got}, the rank of the lesson's attention "
                            f"weights A, which `{src[:70]}` measures; S = Q K^T passes through d_k = {d_k} dimensions "
                            f"and has rank {ref.rank_S_lesson}: " + describe("rank_of_attention_weights"))
    herm = int(torch.linalg.matrix_rank(Q @ K.T, hermitian=True))
    if got == T and got == herm:   # and every singular value counted, zeros included: min(T_q, T_k) = T (naming27)
        D.raise_if_singular_values_counted(got, submission, "rank_S_lesson")   # the source counts them (round 74)
        every = (f", and also how many singular values S has at all (len(torch.linalg.svdvals(S)), min(T_q, T_k) = "
                 f"{T}, the zero ones included: the rank counts only the nonzero ones)"
                 if len(torch.linalg.svdvals(Q @ K.T)) == T else "")
        if int((Q @ K.T != 0).any(dim=-1).sum()) == T:   # every query asks: the non-zero rows are T too (blind32)
            every += ", and also the number of non-zero rows of S (every one of its queries is non-zero)"
        raise AssertionError(f"rank_S_lesson is {T}: that is T, the number of tokens (the rank of a full-rank T x T "
                             "matrix such as the causal weights A, or the masked scores S + M with the lesson's -1e9 "
                             "mask), and also what torch.linalg.matrix_rank(S, "
                             "hermitian=True) reports for this S, which is not symmetric (hermitian=True reads only "
                             f"one triangle){every}; S = Q K^T passes through d_k = {d_k} dimensions, so its rank is "
                             "at most "
                             f"{d_k}: call torch.linalg.matrix_rank(S) on S itself, without hermitian=True")
    if got == T:       # 5 tokens, and the rank of the lesson's (full-rank) softmax weights A: one key, both readings
        raise Misconception("rank_is_T", f"rank_S_lesson is {T}, the number of tokens (and the rank of the lesson's "
                            "causal weights A, lower-triangular and full rank): " + describe("rank_is_T"))
    r_q, r_k = (int(torch.linalg.matrix_rank(t)) for t in (Q, K))
    if got == r_q + r_k and got not in (T, d_k, max(r_q, r_k)):
        raise Misconception("rank_sum_of_ranks", f"rank_S_lesson is {got}, rank Q + rank K ({r_q} + {r_k}): "
                            + describe("rank_sum_of_ranks"))
    if got == max(r_q, r_k) or got == d_k:
        # a bound, not this matrix's rank: d_k, or the larger factor's rank where min was meant; on the
        # lesson's S (rank K = d_k = 4) the two coincide, so one key names either reading
        said = " and ".join(w for w, n in ((f"d_k ({d_k})", d_k), (f"the larger of rank Q ({r_q}) and rank K ({r_k})",
                                                                     max(r_q, r_k))) if n == got)
        # the tokens that ask a question counted (non-zero query rows of the lesson pipeline's S = X W_Q (X W_K)^T,
        # blind32): 4 = d_k, so one number cannot tell them apart; each is a bound above the rank, one key says both
        asking = _nonzero_query_rows()
        if got == asking:
            said += (f", and also the number of non-zero rows of the lesson pipeline's S (the {asking} tokens whose "
                     "query is non-zero), a count of rows, not of independent directions: those rows repeat two "
                     "query vectors, so they span 2 dimensions")
        if got == d_k and got != max(r_q, r_k):
            raise Misconception("rank_is_the_bound", "rank_S_lesson is d_k: " + describe("rank_is_the_bound"))
        raise Misconception("rank_above_min", f"rank_S_lesson is {said}: " + describe("rank_above_min"))
    # a rank read from a count of rows: the distinct queries (rows of Q, or of S) counted, not the linearly
    # independent ones; on the lesson's S the distinct columns (4) are d_k = rank K, so only the rows name it
    # a count of S's singular values above a tolerance too small for the dtype (1e-13 on float32, or > 0) counts
    # rounding noise: on the lesson's S that is 3, the distinct-row count too; one number cannot say which (naming24)
    # the singular values (or QR's pivots) counted with no tolerance (blind53's svdvals(S) != 0, blind44's
    # count_nonzero(R.diagonal())): the count replayed so on the lesson's S, and the exact-zero test read in the cell
    # that assigns the answer; named before the one-edit search, whose `== 0` for `!= 0` is right only by coincidence
    counted = D.rank_counted_without_tolerance(submission, "rank_S_lesson")
    exact = D.exact_nonzero_counts(counted[1]) if counted is not None else {}
    if got in exact:
        src = counted[0]
        raise Misconception("rank_without_tolerance", f"rank_S_lesson is {got}, not {ref.rank_S_lesson}: "
                            f"`{src[:60]}` counts every value that is not exactly zero, and on the lesson's S that "
                            f"count is {got} ({exact[got]}): " + describe("rank_without_tolerance"))
    noise = {int((torch.linalg.svdvals((Q @ K.T).to(dt)) > 0).sum()): dt for dt in (torch.float64, torch.float32)}
    distinct = {len(torch.unique(t, dim=0)) for t in (Q, Q @ K.T)}
    if got in noise:
        # every dtype whose count gives it, said as a size only (no claim that the code counted in one of them)
        tiny = ", ".join(f"{float(torch.linalg.svdvals((Q @ K.T / d_k ** 0.5).to(dt))[got - 1]):.0e} in "
                         f"{str(dt).replace('torch.', '')}" for dt in (torch.float64, torch.float32)
                         if int((torch.linalg.svdvals((Q @ K.T).to(dt)) > 0).sum()) == got)
        rows = " and the number of distinct query vectors (distinct rows of Q and of S)" if distinct == {got} else ""
        raise AssertionError(f"rank_S_lesson is {got}, and S = Q K^T has rank {ref.rank_S_lesson}: use "
                             "torch.linalg.matrix_rank(S), whose tolerance is relative to the largest singular value "
                             f"and fits the dtype. {got} is also the number of singular values of S that are not "
                             f"exactly zero{rows}, where the last one is rounding noise (about {tiny}); one number "
                             "cannot say how it was reached. "
                             "A row that mixes others (0.5 q1 + 0.5 q3) adds no dimension")
    # the non-zero eigenvalues counted (blind38): the rank only of a diagonalisable matrix; the lesson's S is not
    # (one non-zero eigenvalue, 1.5, rank 2), in either scaling and transposed alike. The count is replayed on S and
    # named only where the notebook computes eigenvalues (a bare 1 could be another guess)
    eig = {int((torch.linalg.eigvals(m).abs() > tol).sum()) for m in (Q @ K.T, Q @ K.T / d_k ** 0.5, K @ Q.T)
           for tol in (1e-10, 1e-6)}
    if eig == {got} and got not in {T, d_k, r_q, r_k, r_q + r_k} | set(noise) | distinct \
            and D.source_mentions(submission, r"\beig|\.eig"):
        raise Misconception("rank_from_eigenvalues", f"rank_S_lesson is {got}, the number of non-zero eigenvalues of "
                            f"S; S is not symmetric and its rank is {ref.rank_S_lesson}: "
                            + describe("rank_from_eigenvalues"))
    if distinct == {got} and got not in (T, d_k, r_q, r_k, r_q + r_k):
        raise Misconception("rank_counts_distinct_rows", f"rank_S_lesson is {got}, the number of distinct query "
                            f"vectors (distinct rows of Q and of S); they span only {r_q} dimensions: "
                            + describe("rank_counts_distinct_rows"))
    raise AssertionError("rank_S_lesson is not correct: try torch.linalg.matrix_rank on the lesson's S")
