"""Held-out submissions (issue 13), graded in the sandbox through the real Grader: every correct
variant gets full marks; every wrong one loses points only where its mistake is, and each failed
test names the expected misconception (tests/heldout/<slug>/variants.py; harness.py says how)."""
from __future__ import annotations

import pytest

from tests.heldout.harness import SLUGS, grade, load_variants

# the naming regression set, ~400 notebooks: `make test` runs it, `make test-heldout` runs only it
pytestmark = pytest.mark.heldout

VARIANTS = [pytest.param(v, id=f"{v.slug}/{v.name}") for slug in SLUGS for v in load_variants(slug)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_heldout_variant(grader, variant, tmp_path):
    outcome = grade(grader, variant, tmp_path)
    assert outcome.status == "graded", outcome.explain()
    if variant.correct:
        assert outcome.full_marks, outcome.explain()
    else:
        assert outcome.score < outcome.max_score, outcome.explain()
        assert outcome.only_where, outcome.explain()
        assert outcome.named_right, outcome.explain()


@pytest.mark.parametrize("slug", SLUGS)
def test_heldout_set_is_big_enough(slug):
    variants = load_variants(slug)
    assert len(variants) >= 30
    assert sum(v.correct for v in variants) >= 10 and sum(not v.correct for v in variants) >= 20
