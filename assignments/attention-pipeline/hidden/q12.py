"""qkv_param_count(d_model, d_k, d_v, with_output=False)."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    call,
    describe,
    expect_number,
    raise_if_wrong_default,
    register_misconceptions,
)
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q12"
register_misconceptions(__file__)


def _dims(rng):
    d_model = int(torch.randint(20, 500, (1,), generator=rng))
    d_k = int(torch.randint(2, 80, (1,), generator=rng))
    d_v = d_k + int(torch.randint(1, 40, (1,), generator=rng))  # d_v != d_k
    return d_model, d_k, d_v


def _check(got, d_model, d_k, d_v, with_output):
    got = expect_number(got, "qkv_param_count(...)")
    if got == ref.qkv_param_count(d_model, d_k, d_v, with_output):
        return
    more = {"param_count_no_wk": d_model * (d_k + d_v) + (d_v * d_model if with_output else 0)}
    if not with_output:
        more["param_count_wo_always"] = ref.qkv_param_count(d_model, d_k, d_v, True)
    hits = {key.split("/")[0] for key, wrong in {**ref.param_count_variants(d_model, d_k, d_v, with_output),
                                                 **more}.items() if got == wrong}
    if len(hits) == 1:    # two mistakes giving this same count name neither
        key = hits.pop()
        raise Misconception(key, f"the count is wrong: it matches {describe(key)}")
    raise AssertionError("the count is wrong (for d_v different from d_k)")


@test_case(points=1, hidden=True)
def test_count_qkv(qkv_param_count, rng):
    d_model, d_k, d_v = _dims(rng)
    try:
        _check(call(qkv_param_count, d_model, d_k, d_v, what="qkv_param_count"), d_model, d_k, d_v, False)
    except AssertionError:   # with_output left to its default: right when with_output=False is passed names it
        want = ref.qkv_param_count(d_model, d_k, d_v, False)
        raise_if_wrong_default(qkv_param_count, (d_model, d_k, d_v), {"with_output": False},
                               lambda o: type(o) in (int, float) and o == want, "qkv_param_count")
        raise


@test_case(points=1, hidden=True)
def test_count_with_output(qkv_param_count, rng):
    d_model, d_k, d_v = _dims(rng)
    _check(call(qkv_param_count, d_model, d_k, d_v, with_output=True, what="qkv_param_count"), d_model, d_k, d_v, True)
