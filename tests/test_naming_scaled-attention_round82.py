"""Naming scaled-attention's mistakes, round 82 (blind82's extensions whose default changes the plain call, blind83's
textbook, video and course conventions: their mis-named variant, said with its cause by kind).

default_mask_hides_every_key (q1): attention takes a mask parameter defaulting to None, builds it under
`if mask is None:` as an all-False tensor (torch.zeros, zeros_like, torch.full(..., False)) and reads True as keep
(masked_fill(~mask, -inf), mask == 0, torch.where(mask, scores, -inf)): the plain call hides every key and both
results are NaN (the replay of -inf on every score), and a second call passing that parameter an all-True mask is
right. mask_polarity_inverted said "fill where the mask is False" to code that already does. A default built all
True and read as keep, or all False and read as hide, keeps full marks; a default built all True and filled where
True keeps mask_polarity_inverted; a default all False read as keep on top of another mistake (the second call is
not right) and a fixed all-False keep mask with no parameter are not called this.

scale_option_default_on_top (q1): the weights replay the scores divided by d_k (divide_by_dk's evidence) and, in
attention's def read with ast, a parameter defaulting to None is filled under `if p is None:` with sqrt(d_k), the
scores are divided by p and also scaled by 1/sqrt(d_k) elsewhere. The option defaulting to 1, or defaulting to
sqrt(d_k) and used in place of the scale, keeps full marks; a plain division by d_k beside an option defaulting to 1
keeps divide_by_dk.

option_filled_before_its_test (q2): scaled=False gives the scaled variance of the same draws, scaled=True gives the
same number (the flag is read), and dot_product_variance fills a None-default option under `if p is None:` before a
later `if ... or p is not None:` decides whether to scale. Testing the option before filling it, or filling it
inside the scaled branch, keeps full marks; an option filled and always applied (the flag never read) is not this.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_graded = graded_as("scaled-attention", "round82")


def _attention(signature: str, body: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k{signature}):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
{body}
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}


DEFAULT_HIDES_ALL = {
    "zeros_like_read_with_eq_zero": _attention(", keep=None", '''    if keep is None:
        keep = torch.zeros_like(scores, dtype=torch.bool)   # no padding
    scores = scores.masked_fill(keep == 0, -torch.inf)'''),
    "full_false_read_by_where_keyword_only": _attention(", *, attn_mask=None", '''    if attn_mask is None:
        attn_mask = torch.full((Q.shape[0], K.shape[0]), False)
    scores = torch.where(attn_mask, scores, -math.inf)'''),
    "new_zeros_bool_with_switch": _attention(", pad=None, pad_is_keep=True", '''    if pad is None:
        pad = scores.new_zeros(scores.shape).bool()
    if pad_is_keep:
        scores[torch.logical_not(pad)] = float("-inf")
    else:
        scores = scores.masked_fill(pad, float("-inf"))'''),
}
DEFAULT_RIGHT = {
    "ones_default_read_as_keep": _attention(", mask=None", '''    if mask is None:
        mask = torch.ones(scores.shape, dtype=torch.bool)
    scores = scores.masked_fill(~mask, float("-inf"))'''),
    "zeros_default_read_as_hide": _attention(", mask=None", '''    if mask is None:
        mask = torch.zeros(scores.shape, dtype=torch.bool)
    scores = scores.masked_fill(mask, float("-inf"))'''),
    "no_mask_skips_the_fill": _attention(", mask=None", '''    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))'''),
}
# every entry NaN too, but the default is all True filled where True: the polarity of the fill, not the default
ONES_FILLED_WHERE_TRUE = _attention(", mask=None", '''    if mask is None:
        mask = torch.ones(scores.shape, dtype=torch.bool)
    scores = scores.masked_fill(mask, float("-inf"))''')
NOT_THE_DEFAULT = {
    # the all-False default read as keep, and the scores divided by d_k too: the call with mask all True is not right
    "default_on_top_of_divide_by_d_k": {"attention": '''
def attention(Q, K, V, d_k, mask=None):
    scores = Q @ K.transpose(-2, -1) / d_k
    if mask is None:
        mask = torch.zeros(scores.shape, dtype=torch.bool)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''},
    # no parameter to default: a fixed all-False keep mask
    "fixed_keep_mask_no_parameter": _attention("", '''    keep = torch.zeros(scores.shape, dtype=torch.bool)
    scores = scores.masked_fill(~keep, float("-inf"))'''),
}


@pytest.mark.parametrize("name", sorted(DEFAULT_HIDES_ALL))
def test_default_mask_hiding_every_key_is_named(grader, name):
    failed = assert_named(_graded(grader, DEFAULT_HIDES_ALL[name]), "default_mask_hides_every_key", "q1")
    assert any("all-True mask is right" in msg for *_, msg in failed)


@pytest.mark.parametrize("name", sorted(DEFAULT_RIGHT))
def test_default_mask_right_neighbours_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, DEFAULT_RIGHT[name]))


def test_all_true_default_filled_where_true_keeps_mask_polarity(grader):
    assert_named(_graded(grader, ONES_FILLED_WHERE_TRUE), "mask_polarity_inverted", "q1")


@pytest.mark.parametrize("name", sorted(NOT_THE_DEFAULT))
def test_other_causes_are_not_the_default_mask(grader, name):
    assert "default_mask_hides_every_key" not in failed_keys(_graded(grader, NOT_THE_DEFAULT[name]))


def _scaled(signature: str, body: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k{signature}):
{body}
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}


OPTION_ON_TOP = {
    "tau_pow_half_then_in_place_divide": _scaled(", tau=None", '''    if tau is None:
        tau = d_k ** 0.5
    scores = Q @ K.T * d_k ** -0.5
    scores /= tau'''),
    "keyword_only_softmax_temperature": _scaled(", *, temperature=None", '''    if temperature is None:
        temperature = math.sqrt(d_k)   # the paper's temperature
    scores = (Q @ K.transpose(-2, -1) / d_k ** 0.5) / temperature'''),
}
OPTION_RIGHT = {
    "option_defaults_to_one": _scaled(", tau=None", '''    if tau is None:
        tau = 1.0
    scores = Q @ K.T / math.sqrt(d_k) / tau'''),
    "option_is_the_only_scale": _scaled(", temperature=None", '''    if temperature is None:
        temperature = math.sqrt(d_k)
    scores = Q @ K.T / temperature'''),
}
# the scores divided by d_k too, but by a plain `/ d_k`: the option (default 1) is not why
PLAIN_DIVIDE = _scaled(", tau=None", '''    if tau is None:
        tau = 1.0
    scores = Q @ K.T / d_k / tau''')


@pytest.mark.parametrize("name", sorted(OPTION_ON_TOP))
def test_scale_option_default_on_top_is_named(grader, name):
    failed = assert_named(_graded(grader, OPTION_ON_TOP[name]), "scale_option_default_on_top", "q1")
    assert any("left to its default" in msg for *_, msg in failed)


@pytest.mark.parametrize("name", sorted(OPTION_RIGHT))
def test_scale_option_right_neighbours_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, OPTION_RIGHT[name]))


def test_plain_divide_by_d_k_keeps_its_name(grader):
    assert_named(_graded(grader, PLAIN_DIVIDE), "divide_by_dk", "q1")


def _variance_with(signature: str, body: str) -> dict[str, str]:
    return {"dot_product_variance": f"""
def dot_product_variance(d_k, n_samples, generator, scaled=False{signature}):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
{body}
"""}


FILLED_FIRST = {
    "factor_filled_then_tested_first": _variance_with(", factor=None", """    if factor is None:
        factor = d_k ** -0.5
    if factor is not None or scaled:
        dots = dots * factor
    return dots.var().item()"""),
    "keyword_only_scale_returned_in_branch": _variance_with(", *, scale=None", """    if scale is None:
        scale = 1 / math.sqrt(d_k)   # the paper's default
    if scaled or scale is not None:
        return (dots * scale).var().item()
    return dots.var().item()"""),
}
FILLED_RIGHT = {
    "tested_before_filled": _variance_with(", scale=None", """    given = scale is not None
    if scale is None:
        scale = 1 / math.sqrt(d_k)
    if scaled or given:
        dots = dots * scale
    return dots.var().item()"""),
    "filled_inside_the_branch": _variance_with(", scale=None", """    if scaled or scale is not None:
        if scale is None:
            scale = 1 / math.sqrt(d_k)
        dots = dots * scale
    return dots.var().item()"""),
}
# the scale always applied, the flag never read: not a test made true by a fill
ALWAYS_APPLIED = _variance_with(", scale=None", """    if scale is None:
        scale = 1 / math.sqrt(d_k)
    return (dots * scale).var().item()""")


@pytest.mark.parametrize("name", sorted(FILLED_FIRST))
def test_option_filled_before_its_test_is_named(grader, name):
    failed = assert_named(_graded(grader, FILLED_FIRST[name]), "option_filled_before_its_test", "q2")
    assert any("is not None" in msg for *_, msg in failed)


@pytest.mark.parametrize("name", sorted(FILLED_RIGHT))
def test_option_tested_before_filled_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, FILLED_RIGHT[name]))


def test_option_always_applied_is_not_filled_before_test(grader):
    assert "option_filled_before_its_test" not in failed_keys(_graded(grader, ALWAYS_APPLIED))
