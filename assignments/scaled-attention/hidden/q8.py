"""Hidden tests for q8 (stretch): multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads).

Convention (stated in the notebook): projections are applied as X @ W, so for
torch.nn.MultiheadAttention (which computes x @ W.T) the weights are transposed: see
reference.scaled_attention.torch_mha."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_matches,
    call,
    charged_elsewhere,
    charged_in_parts,
    describe,
    is_stub,
    matching_variants,
    randn,
    register_misconceptions,
    tuple_as_tensor,
)
from autograder.errors import StudentCodeError
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q8"
points = 5
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


def _inputs(rng, T, d_model, dtype):
    X = randn((T, d_model), rng, dtype)
    # scaled so that X @ W keeps unit variance
    Ws = [randn((d_model, d_model), rng, dtype, scale=d_model ** -0.5) for _ in range(4)]
    return X, Ws


def _check(fn, attention, X, Ws, n_heads, expected=None, submission=None, earlier=None, kept=None):
    """multi_head_attention may call the student's attention: an answer that is wrong only through it
    (it equals the reference's multi-head attention with their attention for each head) is charged by
    q1, not here."""
    X64, W64 = X.double(), [w.double() for w in Ws]
    if expected is None:
        expected = ref.multi_head_attention(X64, *W64, n_heads)
    def variants():
        return {**ref.mha_variants(X64, *W64, n_heads), **D.mha_slice_variants(X64, *W64, n_heads),
                **D.mha_overwrite_variants(X64, *W64, n_heads), **D.chained_projection_variants(X64, *W64, n_heads),
                **D.fused_token_chunk_variants(X64, *W64, n_heads), **D.projection_precision_variants(X, *Ws, n_heads),
                **D.kept_scale_variants(submission, X64, *W64, n_heads),
                **D.dot_t_split_variants(submission, X64, *W64, n_heads),
                **D.split_points_variants(submission, X64, *W64, n_heads),
                **D.stale_input_variants(earlier, *Ws, n_heads, X, kept),   # naming71/76: a cache keyed on a shape
                **D.row_chunk_variants(submission, X64, *W64, n_heads)}

    def check(got):
        D.raise_if_result_not_returned(submission, "multi_head_attention", got, "multi_head_attention(...)")  # naming67
        D.raise_if_dtype_changed(got, expected, X.dtype, "multi_head_attention(...)")   # right values, other dtype
        try:
            assert_matches(got, expected, what="multi_head_attention(...)", dtype=X.dtype, variants=variants)
        except Misconception as m:
            D.raise_if_helper_head_default(submission, fn, got, X, Ws, n_heads, "multi_head_attention(...)")  # naming65
            m = D.split_count_from_source(submission, m, got, expected, X.dtype, n_heads, "multi_head_attention(...)")
            m = D.projection_chain_said(m, got, X, Ws, n_heads, "multi_head_attention(...)")
            m = D.raise_if_shared_head_buffer(submission, m, got, X, Ws, n_heads, "multi_head_attention(...)")
            m = D.attention_reused_in_heads(submission, m, got, X, Ws, n_heads, "multi_head_attention(...)")
            m = D.one_head_shortcut(m, got, X, Ws, n_heads, "multi_head_attention(...)")
            m = D.values_unsliced_from_source(submission, m, "multi_head_attention(...)")
            m = D.added_axis_from_source(submission, m, ("multi_head_attention", "attention"))
            raise D.qk_roles_from_source(submission, m, "multi_head_attention(...)") from None
        except AssertionError as failure:
            D.raise_if_helper_head_default(submission, fn, got, X, Ws, n_heads, "multi_head_attention(...)")  # naming65
            dropped = D.out_of_place_dropped(got, expected)   # naming62: index_copy's result thrown away
            if dropped is not None:
                raise dropped from None
            layers = D.new_layers_from_source(submission, "multi_head_attention(...) is wrong")
            if layers is not None:   # fresh layers each call differ per call too: their cause comes first
                raise layers from None
            if firsts and got is firsts[0]:   # the student's own answer: a second call on the same inputs
                D.nondeterministic_said(submission, fn, (X, *Ws, n_heads), got, "multi_head_attention(...)")
            D.raise_if_residual(got, X, Ws, expected)
            D.raise_if_layer_norm(got, X, expected)
            D.raise_if_heads_low_precision(fn, attention, got, X, Ws, n_heads)   # naming78
            factor = D.output_factor(got, X, expected, n_heads)
            if factor:
                raise AssertionError(f"{failure}{factor}") from None
            key, said = D.heads_through_w_o(got, X, Ws, n_heads)
            if key is not None:
                raise Misconception(key, f"multi_head_attention(...) is wrong: {said}") from None
            if said:
                raise AssertionError(f"{failure}{said}") from None
            raise

    def own():
        return ref.multi_head_attention(X, *Ws, n_heads, per_head=attention)

    firsts = []

    def student():
        firsts.append(call(fn, X, *Ws, n_heads, what="multi_head_attention"))
        return firsts[-1]

    try:
        charged_in_parts(student, check, own, parts=(attention,))
    except StudentCodeError as e:
        # a crash where their attention cannot even be composed into heads (it returns the wrong things,
        # (weights, output) say): q1 charges that, and this answer cannot be judged until it is fixed.
        # A stub is not a crash: call() says it is not answered
        if not is_stub(e) and _attention_wrong(attention, X, Ws, n_heads) \
                and (_fails(own) or _attention_misshapen(attention, X, Ws, n_heads)):
            return charged_elsewhere((attention,), e)     # held unless a test of attention fails (round 77)
        if e.exc_type == "RuntimeError" and e.message.startswith("view size is not compatible with input tensor's "
                                                                "size and stride"):
            # every input here is contiguous: the .view is on a tensor the function made (after a
            # transpose or permute), which torch's own message says
            raise Misconception("view_on_noncontiguous", f"your code raised {e.exc_type}: {e.message.splitlines()[0]} "
                                "(the inputs are contiguous: the .view is on a transposed or permuted tensor made "
                                "inside the function): " + describe("view_on_noncontiguous")) from None
        named = D.new_layers_from_source(submission, f"your code raised {e.exc_type}: {e.message[:200]}".split("\n")[0]) \
            or D.local_shadows_call(submission, e, "multi_head_attention") \
            or _crash_named(fn, e, X, Ws, n_heads, submission) or D.fused_token_chunk_crash(fn, e, X, Ws, n_heads) \
            or D.output_projection_left(e, X, Ws, n_heads) \
            or D.elementwise_projection(e, X, Ws, n_heads) \
            or D.mha_crash(fn, e, X, Ws, n_heads, submission) \
            or D.mha_dtype_crash(fn, e, X, Ws, n_heads) or D.batched_heads_crash(attention, e, X, Ws, n_heads) \
            or D.values_length_heads_crash(e, X, Ws, n_heads) \
            or D.values_row_chunked(fn, e, X, Ws, n_heads) or D.mha_crash_said(e, attention, X, Ws, n_heads, fn) \
            or D.mha_merge_crash(e, X, Ws, n_heads) or D.mha_counter_advanced(fn, e, X, Ws, n_heads) \
            or D.split_points_crash(e, X, n_heads, submission) or D.row_chunk_crash(fn, e, X, Ws, n_heads, submission)
        if named is not None:
            raise named from None
        raise


FLOAT_SIZE = ("slice indices must be integers", "must be tuple of ints, but found element of type float",
              "argument 'split_size' must be int", "type must be tuple of ints,but got float")


def _crash_named(fn, e: StudentCodeError, X, Ws, n_heads, submission=None) -> Misconception | None:
    """A crash whose cause shows: a (values, indices) pair used as a tensor (its own words say so); a float
    where a slice bound or a shape needs an int (torch's or Python's own message: d_k = d_model / n_heads),
    or heads sliced from the rows, shown by a second call on X with T = d_model tokens (every head then gets
    d_k whole rows): torch's message there multiplies the concatenated heads, (d_k, n_heads * d_model), by W_O."""
    first = (e.message.splitlines() or [""])[0]
    named = tuple_as_tensor(e, f"your code raised {e.exc_type}: {first[:200]}")
    if named is not None:
        return named
    if e.exc_type == "TypeError" and any(m in e.message for m in FLOAT_SIZE) and X.shape[-1] % n_heads == 0:
        return Misconception("mha_head_size_float", f"your code raised {e.exc_type}: {first[:200]}: "
                             + describe("mha_head_size_float"))
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    T = X.shape[0]
    stacked = f"mat1 and mat2 shapes cannot be multiplied ({n_heads * T}x{d_k} and {d_model}x{d_model})"
    if e.exc_type == "RuntimeError" and stacked in e.message and n_heads > 1 and n_heads * T != d_k:
        # the heads' outputs, (T, d_k) each, stacked as n_heads * T rows: torch.cat's default dim=0
        return Misconception("mha_heads_concatenated_as_rows", f"your code raised {e.exc_type}: {first[:200]}: "
                             f"{n_heads} heads of ({T}, {d_k}) stacked as rows, then multiplied by W_O: "
                             + describe("mha_heads_concatenated_as_rows"))
    if T >= d_model or n_heads == 1:
        return None
    X2 = torch.randn((d_model, d_model), generator=torch.Generator().manual_seed(0), dtype=X.dtype)
    try:
        fn(X2, *Ws, n_heads)
    except StudentCodeError as again:
        said = f"mat1 and mat2 shapes cannot be multiplied ({d_k}x{n_heads * d_model} and {d_model}x{d_model})"
        if again.exc_type == "RuntimeError" and said in again.message:
            return Misconception("mha_head_rows_sliced", f"your code raised {e.exc_type}: {first[:200]} with T = "
                                 f"{X.shape[0]} tokens; with T = d_model = {d_model} tokens it raises {said}: the "
                                 f"heads, concatenated, are {d_k} rows of the full width: "
                                 + describe("mha_head_rows_sliced") + D.split_axis_said(submission))
    return None
def _fails(thunk) -> bool:
    try:
        thunk()
    except Exception:  # noqa: BLE001 - any failure of the composition is the evidence sought
        return True
    return False


def _attention_misshapen(attention, X, Ws, n_heads) -> bool:
    """Whether the student's attention returns an output of another shape than (T, d_k) for head 0: no
    composition of such heads is defined (the reference's may still run, reshaping a (d_k, T) output)."""
    d_k = X.shape[-1] // n_heads
    q, k, v = (X @ W[:, :d_k] for W in Ws[:3])
    try:
        got = attention(q, k, v, d_k)
    except StudentCodeError:
        return True
    return not (isinstance(got, (tuple, list)) and type(got[0]) is torch.Tensor and tuple(got[0].shape) == tuple(q.shape))


def _attention_wrong(attention, X, Ws, n_heads) -> bool:
    """Whether the student's attention (q1) is wrong on head 0 of these inputs."""
    d_k = X.shape[-1] // n_heads
    q, k, v = (X @ W[:, :d_k] for W in Ws[:3])
    want = ref.attention(q.double(), k.double(), v.double(), d_k)
    try:
        got = attention(q, k, v, d_k)
    except StudentCodeError:
        return True
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return True
    return not all(matching_variants(g, {"right": w}, X.dtype) if type(g) is torch.Tensor else False
                   for g, w in zip(got, want))


@test_case(points=2, hidden=True)
def test_float64_against_reference(multi_head_attention, attention, rng, submission=None):
    X, Ws = _inputs(rng, 5, 48, torch.float64)       # 4 heads of d_k = 12
    _check(multi_head_attention, attention, X, Ws, 4, submission=submission)
    # one head of d_k = d_model = 12: still attention over X @ W_Q, X @ W_K, X @ W_V (after the 4 heads, so that a
    # mistake every head count shows is told there, as before)
    X, Ws = _inputs(rng, 5, 12, torch.float64)
    _check(multi_head_attention, attention, X, Ws, 1, submission=submission)
    X, Ws = _inputs(rng, 5, 15, torch.float64)       # 3 heads of an odd d_k = 5 (naming72: any d_model n_heads divides)
    _check(multi_head_attention, attention, X, Ws, 3, submission=submission)


@test_case(points=2, hidden=True)
def test_float64_against_torch_multihead_attention(multi_head_attention, attention, rng, submission=None):
    X, Ws = _inputs(rng, 7, 36, torch.float64)       # 3 heads of d_k = 12
    expected = ref.torch_mha(X, *Ws, 3)
    _check(multi_head_attention, attention, X, Ws, 3, expected=expected, submission=submission)


@test_case(points=1, hidden=True)
def test_float32_eight_heads(multi_head_attention, attention, device, rng, submission=None):
    X, Ws = _inputs(rng, 6, 32, torch.float32)       # 8 heads of d_k = 4; output stays (6, 32)
    _check(multi_head_attention, attention, X, Ws, 8, submission=submission)
    # then 2 heads of d_k = 12 in the same dtype: nothing may be kept from the call before (naming60)
    X, Ws = _inputs(rng, 5, 24, torch.float32)
    _check(multi_head_attention, attention, X, Ws, 2, submission=submission)
    X2 = torch.randn(5, 24, generator=torch.Generator().manual_seed(71))   # a new X of that shape: nothing kept (naming71)
    _check(multi_head_attention, attention, X2, Ws, 2, submission=submission, earlier=X)
    kept, (X, Ws) = Ws, _inputs(rng, 1, 24, torch.float32)     # one token (T = 1): X is (T, d_model) for any T (naming66),
    if not _attention_wrong(attention, *_inputs(rng, 8, 24, torch.float32), 2):   # where q1's attention is right
        _check(multi_head_attention, attention, X, Ws, 2, submission=submission, kept=kept)   # new weights, same width (naming76)
