"""Helpers for hidden tests. They run only in the trusted process.

Tolerances come from DESIGN.md (measured with torch 2.13.0): they pass every correct implementation
and fail every known wrong one. Failure messages say what is wrong, never what was expected."""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

import torch

from autograder.errors import StudentCodeError

# (rtol, atol) per dtype
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-10, 1e-10),
    torch.float32: (1e-5, 1e-5),
    torch.float16: (5e-3, 5e-3),
    torch.bfloat16: (4e-2, 2e-2),
}


class Misconception(AssertionError):
    """A failed check whose output matches a known wrong variant. `key` is counted in the report."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(message)


# Human-readable names for misconception keys; assignments add their own via `register`.
MISCONCEPTIONS: dict[str, str] = {
    "divide_by_dk": "dividing the scores by d_k instead of sqrt(d_k)",
    "no_scale": "not scaling the scores at all",
    "softmax_wrong_dim": "taking the softmax over the query dimension (dim=-2) instead of the keys (dim=-1)",
    "zero_after_softmax": "zeroing masked weights after the softmax: rows no longer sum to 1",
    "upper_triangular_mask": "an upper-triangular (future-looking) mask instead of a lower-triangular one",
    "no_max_subtraction": "a softmax without max-subtraction, which overflows in float16",
    "neg_1e9_float16": "filling masked scores with -1e9, which overflows float16 (use -inf or the dtype's min)",
    "crash_on_mask_none": "crashing when mask=None",
    "inverted_mask": "treating True in the mask as 'blocked' instead of 'may attend'",
    "fully_masked_nan": "returning NaN (not zeros) for a query whose keys are all masked",
    "float32_scale": "computing the scale constant in float32, which loses precision for float64 inputs",
    "forbidden_api": "calling F.scaled_dot_product_attention instead of implementing it",
    "not_vectorised": "Python loops over rows instead of batched tensor operations",
    "gpu_only_failure": "code that works on the CPU but fails on the GPU: tensors created inside the "
                        "function on the CPU (no device=...), host-only calls such as .numpy(), or "
                        "legacy constructors such as torch.FloatTensor",
}


def register(key: str, description: str) -> None:
    MISCONCEPTIONS.setdefault(key, description)


def describe(key: str) -> str:
    return MISCONCEPTIONS.get(key, key.replace("_", " "))


def randn(shape: tuple[int, ...], rng: torch.Generator, dtype: torch.dtype = torch.float32,
          scale: float = 1.0) -> torch.Tensor:
    """Standard normal CPU tensor drawn from the test's generator (float64 draw, then cast)."""
    return (torch.randn(shape, generator=rng, dtype=torch.float64) * scale).to(dtype)


def tolerances(dtype: torch.dtype) -> tuple[float, float]:
    return TOLERANCES.get(dtype, TOLERANCES[torch.float32])


def assert_plain_tensor(got: object, what: str = "the result") -> torch.Tensor:
    # Replies are rebuilt by the proxy, so a subclass cannot arrive; this check gives a clear message
    # when the student returned something that is not a tensor at all.
    if type(got) is not torch.Tensor:
        raise AssertionError(f"{what} should be a torch.Tensor, got {type(got).__name__}")
    return got


def _close(a: torch.Tensor, b: torch.Tensor, dtype: torch.dtype) -> bool:
    if a.shape != b.shape:
        return False
    rtol, atol = tolerances(dtype)
    a64, b64 = a.detach().to(torch.float64), b.detach().to(torch.float64)
    return bool(torch.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=False))


def assert_matches(got: object, expected: torch.Tensor, *, what: str = "the output",
                   dtype: torch.dtype | None = None,
                   variants: Mapping[str, torch.Tensor] | None = None) -> None:
    """`got` must be a plain tensor of `expected`'s shape and dtype (or `dtype`) and close to it.

    `expected` may be computed in higher precision; it is compared in float64 with the tolerances of
    the dtype under test. On mismatch, each wrong variant is tried; a match raises Misconception."""
    t = assert_plain_tensor(got, what)
    dtype = dtype or expected.dtype
    if t.dtype != dtype:
        raise AssertionError(f"{what} has dtype {t.dtype}, expected {dtype} (the input's dtype)")
    if tuple(t.shape) != tuple(expected.shape):
        raise AssertionError(f"{what} has shape {tuple(t.shape)}, expected {tuple(expected.shape)}")
    if _close(t, expected, dtype):
        return
    for key, wrong in (variants or {}).items():
        if wrong is not None and _close(t, wrong, dtype):
            raise Misconception(key, f"{what} is wrong: it matches {describe(key)}")
    if not torch.isfinite(t).all() and torch.isfinite(expected).all():
        raise AssertionError(f"{what} contains NaN or inf where the correct result is finite")
    diff = (t.to(torch.float64) - expected.to(torch.float64)).abs()
    diff = diff[torch.isfinite(diff)]
    worst = f"{diff.max().item():.3g}" if diff.numel() else "n/a"
    raise AssertionError(f"{what} does not match the correct result (largest abs difference {worst})")


def expect_no_crash(key: str, call: Callable[[], object]) -> object:
    """Run a proxied call; if the student's code raises, fail naming misconception `key`."""
    try:
        return call()
    except StudentCodeError as e:
        if e.exc_type == "ForbiddenAPIError":  # a forbidden call is not a crash of its own
            key = "forbidden_api"
        raise Misconception(key, f"{describe(key)}: {e}") from None


# --- vectorisation ---------------------------------------------------------------------------------
# A timed student call must be neither recognisable nor cheaper than an honest one. Every timed call
# runs on inputs drawn inside the timed request from a seed the student has never seen (nothing to
# memoise or precompute: `calls.run_fresh_calls`), the sum of all the outputs comes back and must equal
# the reference's sum over the same inputs, and the yardstick is the reference run through the same
# `run_fresh_calls` in this process (same input generation, one thread like the worker). Times are CPU
# seconds (the worker's read by the grader from outside), and only their ratio is used.

InputSpecs = Sequence[tuple[tuple[int, ...], str]]   # one (shape, dtype name) per positional input

# Largest difference allowed between the MEAN of the timed outputs and the reference's mean (float64
# inputs). A correct float64 solution differs from the reference by ~1e-15 per entry, and the value
# tests allow 1e-10 + 1e-10 |x| per entry (|x| < 9 here), so a mean is off by at most ~1e-9. One wrong
# output among n <= 2000 calls (entries ~0.1-1 off) moves the mean by > 1e-5.
TIMED_MEAN_ATOL = 1e-9


def _fresh_seed(rng: torch.Generator) -> int:
    return int(torch.randint(0, 2 ** 62, (1,), generator=rng))


def _slowdown(student: Any, reference: Callable[..., object], specs: InputSpecs,
              kwargs: dict[str, Any], rng: torch.Generator, limit: float, what: str) -> float:
    """Student CPU time per call over the reference's, for inputs of `specs`."""
    import time

    from autograder.calls import run_fresh_calls
    best_ref = [float("inf")]

    def reference_sum(seed: int, n: int) -> torch.Tensor:
        start = time.thread_time()
        total = run_fresh_calls(reference, specs, kwargs, seed, n)
        best_ref[0] = min(best_ref[0], (time.thread_time() - start) / n)
        return total

    def timed(n: int) -> float:
        """Seconds per call of the student's function over n fresh calls, outputs checked."""
        seed = _fresh_seed(rng)
        spent, total = student.time_fresh(specs, kwargs, seed=seed, repeat=n)
        expected = reference_sum(seed, n)
        ok = (type(total) is torch.Tensor and total.shape == expected.shape
              and bool(torch.allclose(total.to(torch.float64) / n, expected / n, rtol=0.0,
                                      atol=TIMED_MEAN_ATOL)))
        if not ok:
            shape = "x".join(map(str, specs[0][0])) if specs else "?"
            raise AssertionError(f"the timing of {what} could not be verified: the timed calls (inputs of "
                                 f"shape {shape}) returned wrong values; the tests of its values say "
                                 "what is wrong")
        return spent / n

    reference_sum(_fresh_seed(rng), 2)               # warm-up: one-off costs of the first calls
    one = timed(1)                                    # the student's warm-up, its output checked
    for _ in range(3):                                # yardstick: best of three (load only slows)
        reference_sum(_fresh_seed(rng), 10)
    per_call = max(best_ref[0], 1e-6)

    def ratio(student_s: float, guess: float) -> float:
        # enough calls for about `student_s` seconds of the student's code, given a guess of the
        # slowdown; the reference's time is re-read after each run (its sum is computed anyway)
        n = max(5, min(2000, math.ceil(student_s / (guess * per_call))))
        return timed(n) / max(best_ref[0], 1e-6)

    if one >= 0.1 and one > 20 * limit * per_call:
        return one / per_call                         # hopeless (nested loops): stop here
    r = ratio(0.05, max(1.0, one / per_call))         # quick look, sized by the first call
    if 0.8 * limit <= r <= 3 * limit:
        # near the limit: ~0.3 s per measurement, best of three (a busy machine only slows)
        r = min(ratio(0.3, r) for _ in range(3))
    return r


def assert_vectorised(student: Any, reference: Callable[..., object],
                      cases: Sequence[tuple[InputSpecs, Mapping[str, Any]]], *, rng: torch.Generator,
                      limit: float = 5.0, what: str = "the function", key: str = "not_vectorised",
                      advice: str = "replace Python loops by batched tensor operations") -> float:
    """Fail (Misconception `key`) if the student's function is more than `limit` times slower than
    `reference` on any of `cases`: (input specs, keyword arguments), e.g. one shape with long
    sequences (a loop over rows shows) and one with many batch entries (a loop over them shows).

    `student` is a proxy with `time_fresh`. Each timed request draws its own inputs from a new seed
    taken from `rng`; its summed output must match the reference's, else the test fails saying the
    timing could not be verified (wrong values are the value tests' business, not charged here).
    A crash of the student's code propagates (StudentCodeError). Returns the worst ratio."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                           # the worker runs one thread: so does the yardstick
    worst = 0.0
    try:
        for specs, kwargs in cases:
            r = _slowdown(student, reference, specs, dict(kwargs), rng, limit, what)
            worst = max(worst, r)
            if worst > limit:
                break
    finally:
        torch.set_num_threads(threads)
    if worst > limit:
        raise Misconception(key, f"{what} took {worst:.0f}x the time of a vectorised version: {advice}")
    return worst


def assert_function_avoids(submission: object, func_name: str, names: str | tuple[str, ...], *,
                           key: str, rule: str) -> None:
    """Static check that `func_name`, and everything it calls, never uses `names` (`rule` says it in
    words: "a built-in softmax"). A use raises Misconception(key); a source that does not show what
    runs (exec, a function built out of sight...) fails with a message saying the rule cannot be
    verified. The run-time guard of the sandbox is the first layer where there is one; this is the
    second. With no notebook at all (the reference run in-process) there is nothing to read."""
    from autograder.source_checks import SourceUnreadable, cells_of, find_use
    cells = cells_of(submission)
    if not cells:
        return
    try:
        use = find_use(cells, func_name, names)
    except SourceUnreadable as e:
        raise AssertionError(f"the grader cannot check from your source that `{func_name}` avoids "
                             f"{rule}: {e}. Define it with a plain `def` that calls only functions "
                             "defined in your notebook or in torch/math") from None
    if use is not None:
        raise Misconception(key, f"{use.describe()}, which this assignment forbids ({rule})")
