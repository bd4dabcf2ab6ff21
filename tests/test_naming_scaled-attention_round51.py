"""Naming scaled-attention's mistakes, round 51 (blind51's two generic variants, the kinds).

seed_zero_ignored: entropy_table skips torch.manual_seed when the seed is 0 (`if seed:`, `seed or None`, `if seed > 0`,
a generator seeded only `if seed`), so the lesson's table (seed 0) is drawn from whatever state the generator is in.
Named from second calls only: at seed 0 the table follows the global generator's state (two states, two tables) while
at seed 1 it does not, or the seed-0 table is the lesson's at the default seed of a new torch.Generator() and the
seed-1 table the lesson's at seed 1. A table never seeded at all (seed 1 varies too) is not named so.

answer_first_char_of_option: a multiple-choice answer that is one character, no option's letter, but the first
character of an option's text as the notebook prints it (the options copied without their labels, then text[0]):
q7's 'I' (every option begins 'It ...'), q6's 'T' (options C and D begin 'The ...') or '$' (B, '$X_i$ itself').
Older kinds (blind25): entropy_table never seeded where it draws (no manual_seed, or a torch.Generator seeded but not
passed to torch.randn) is ignores_generator, from two calls at the same seed giving two tables at the test's seed and
at another; `q @ k.T[0]` for `(q @ k.T)[0]` (or q @ k[:, 0]) is index_before_matmul, from the crash the replay gives on
the same shapes and the raising line indexing k's transpose after @.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


'''


def _table(body: str) -> dict[str, str]:
    return {"softmax_entropy": _ENTROPY + body}


SEED_ZERO = {
    # a conditional expression inside the loop: seed 0 leaves the global generator as it is
    "conditional_expression_in_loop": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    out = []
    for d in dims:
        torch.manual_seed(seed) if seed else None
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.einsum("id,jd->ij", q, k).squeeze(0)
        scaled = raw / math.sqrt(d)
        out.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return out
'''),
    # `seed or None` turns 0 into "no seed", then a None test
    "seed_or_none": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    seed = seed or None
    rows = []
    for d in dims:
        if seed is not None:
            torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''),
    # a generator made only for a truthy seed; generator=None draws from the global one
    "generator_only_if_positive": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed) if seed > 0 else None
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''),
    # a fresh generator seeded only `if seed`: seed 0 draws at its default seed
    "fresh_generator_seeded_if_truthy": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        g = torch.Generator()
        if seed:
            g.manual_seed(seed)
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''),
}

SEED_RIGHT = {
    "seed_is_not_none": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        if seed is not None:
            torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''),
    "fresh_generator_always_seeded": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''),
}

# never seeded where it draws (blind25's kind): every seed follows the generator's state, ignores_generator
UNSEEDED = {
    "never_seeded": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''),
    "own_generator_seeded_not_passed": _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    gen = torch.Generator()
    for d in dims:
        gen.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = q.matmul(k.T).squeeze(0)
        scaled = raw / math.sqrt(d)
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''),
}


def _scores(line: str) -> dict[str, str]:
    return _table('''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        ''' + line + '''
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''')


# blind25's q4_table_query_times_first_key_column: (q @ k.T)[0] written without its parentheses
INDEX_FIRST = {
    "t_method_indexed_before_at": _scores("raw = q @ k.t()[0]"),
    "transpose_indexed_before_at": _scores("raw = q @ k.transpose(0, 1)[0]"),
    "first_column_of_k": _scores("raw = q @ k[:, 0]"),
}

INDEX_RIGHT = {
    "parenthesised_product": _scores("raw = (q @ k.transpose(0, 1))[0]"),
    "query_row_first": _scores("raw = q[0] @ k.T"),
}

_Q7_TEXTS = '''_q7_options = (
    "It returns the value of the key that equals the query exactly, like the table does",
    "It only works when the keys are sorted",
    "It returns the value of the best-scoring key only, so it is an argmax and has no useful gradient",
    "It scores the query against every key and returns a softmax-weighted mix of all the values",
)
'''

FIRST_CHAR = {
    "q7_last_option_first_char": ({"q7_answer": _Q7_TEXTS + "q7_answer = _q7_options[-1][0]\n"}, "q7",
                                  "every option here begins 'It ...'"),
    "q7_searched_option_first_char": ({"q7_answer": _Q7_TEXTS + "q7_answer = next(t for t in _q7_options "
                                                    "if 'softmax' in t)[:1]\n"}, "q7",
                                      "every option here begins 'It ...'"),
    "q6_option_c_first_char": ({"q6_answer": 'q6_answer = "The single row X_j whose dot product with X_i is '
                                             'largest"[0]\n'}, "q6", "options C and D begin 'The ...'"),
    "q6_markdown_option_b_first_char": ({"q6_answer": 'q6_answer = "$X_i$ itself, since each token attends only to '
                                                      'itself"[0]\n'}, "q6", "option B begins '$X_i$ ...'"),
}

ANSWERS_RIGHT = {
    "q7_labelled_options_first_char": {"q7_answer": '''_q7_options = ["A. It returns the value of the equal key",
               "B. It only works when the keys are sorted",
               "C. It returns the best-scoring key's value only",
               "D. It scores the query against every key and mixes all the values"]
q7_answer = _q7_options[3][0]
'''},
    "q7_lower_case_letter": {"q7_answer": 'q7_answer = " d "\n'},
    # option A of q6 begins with its own letter: the right answer either way
    "q6_option_a_first_char": {"q6_answer": 'q6_answer = "A weighted average of all the rows of X"[0]\n'},
}


@pytest.mark.parametrize("name", sorted(SEED_ZERO))
def test_seed_zero_skipped_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", SEED_ZERO[name], f"round51_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, t.split(":")[-1], k) for q, t, k, _m in outcome.failed] == \
        [("q4", "test_entropy_table_lesson", "seed_zero_ignored")], outcome.explain()
    assert outcome.failed[0][3].startswith("entropy_table(seed=0) is"), outcome.explain()


@pytest.mark.parametrize("name", sorted(UNSEEDED))
def test_never_seeded_is_ignores_generator_not_seed_zero(grader, name):
    outcome = grade_cells(grader, "scaled-attention", UNSEEDED[name], f"round51_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q4", "ignores_generator")] * 2, outcome.explain()
    assert all("called twice with the same seed" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(INDEX_FIRST))
def test_index_before_product_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", INDEX_FIRST[name], f"round51_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q4", "index_before_matmul")] * 2, outcome.explain()


@pytest.mark.parametrize("name", sorted(FIRST_CHAR))
def test_first_character_of_option_is_named(grader, name):
    cells, question, said = FIRST_CHAR[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round51_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [(question, "answer_first_char_of_option")], \
        outcome.explain()
    assert said in outcome.failed[0][3], outcome.explain()


def test_other_single_character_is_not_named(grader):
    outcome = grade_cells(grader, "scaled-attention", {"q7_answer": 'q7_answer = "E"\n'}, "round51_q7_e")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "answer_first_char_of_option" for _q, _t, k, _m in outcome.failed), outcome.explain()


RIGHT = {**SEED_RIGHT, **INDEX_RIGHT, **ANSWERS_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round51_{name}")
    assert outcome.full_marks, outcome.explain()
