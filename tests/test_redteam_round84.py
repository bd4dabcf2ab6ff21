"""Red-team round 84: today's changes (pyparse.Segments, canvas.csv's Points Possible rows, torch_defaults, and in
flight: round 79's timing excuses and q2 generator test, round 81's rearranged templates, naming round 58's replays).

Repros in /tmp/rt84/. Each test below fails on the code as found:

- **A `__new__` claimed round 81's class exemption.** source_checks' `own_class_member` reads `Ops.stable_softmax`
  (or `Ops().stable_softmax`) as the student's own member where the plain class's body binds the name, and walks the
  class instead. A class whose `__new__` returns another object (`def __new__(cls): return torch`) makes `Ops()`
  that object: `Ops().softmax(x, dim=dim)` beside a hand-written `def softmax` in the body is torch.softmax, and
  nothing in the class names it. builtin_softmax.ipynb so rewritten (/tmp/rt84/new_attack.ipynb) scored 35/35 with
  `autograder grade` (the plain builtin_softmax 34/35: q3's rule point). Now a class that binds or names `__new__`
  anywhere keeps the old reading (the attribute is a use): 34/35.
- **Round 81's left_bound multiplied a search that had no bound.** repair.helper_edits looked up every helper the
  failing function calls (`_helpers`: one parse of the helper's cell each), then asked left_bound of each (two more
  parses), before keeping MAX_HELPERS (3) of them, and none of it looks at the search's clock. A wrong stable_softmax
  calling 100 helpers defined in a 130 KB cell (/tmp/rt84/helpers100.ipynb) spent 55.7 s of the grader's CPU in
  helper_edits alone, after the tests (offline, /tmp/rt84/helpers_cost2.py: 300 helpers, 45 s before round 81's
  left_bound, 147 s with it). Now only the first MAX_HELPER_LOOKS (3) helpers are looked up: 6 s for 100 helpers
  at the code-size limit (490 KB), the parses counted below.
"""
from __future__ import annotations

from autograder.grading import repair
from autograder.grading.source_checks import find_use
from autograder.sandbox.calls import forbidden_names

IMPORTS = "import torch\nimport torch.nn.functional as F\n"
HAND_SOFTMAX = ("    def softmax(self, x, dim=-1):\n        e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
                "        return e / e.sum(dim=dim, keepdim=True)\n")


def test_a_class_whose_new_returns_another_object_is_not_its_own_member():
    names = forbidden_names(("softmax",))
    honest = ["class Ops:\n" + HAND_SOFTMAX, "def stable_softmax(x, dim=-1):\n    return Ops().softmax(x, dim=dim)\n"]
    assert find_use([IMPORTS, *honest], "stable_softmax", names) is None     # round 81's relaxation stands
    news = {
        "def __new__": "    def __new__(cls):\n        return torch\n",
        "lambda __new__": "    __new__ = lambda cls: F\n",
        "staticmethod __new__": "    @staticmethod\n    def __new__(cls):\n        return torch.nn.functional\n",
        "__new__ under an if": "    if True:\n        def __new__(cls):\n            return torch\n",
    }
    for why, new in news.items():
        cells = [IMPORTS, "class Ops:\n" + new + HAND_SOFTMAX,
                 "def stable_softmax(x, dim=-1):\n    return Ops().softmax(x, dim=dim)\n"]
        assert find_use(cells, "stable_softmax", names) is not None, why


def test_helper_search_looks_up_a_bounded_number_of_helpers(monkeypatch):
    helpers = "".join(f"def h{i}(x):\n    return x * 0\n" for i in range(60))
    body = " + ".join(f"h{i}(x)" for i in range(60))
    cells = [IMPORTS, helpers + f"def stable_softmax(x, dim=-1):\n    return x.exp() / 2 + {body}\n"]
    parses = []
    real_parse = repair.parse

    def counted(source: str, *args, **kwargs):
        parses.append(len(source))
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(repair, "parse", counted)
    made = repair.helper_edits(cells, "stable_softmax", "_c", 0, {})
    assert made, "the first helpers are still edited"
    # one parse for the searched def, three per helper looked up (its last_def, left_bound's last_def and cell):
    # 60 helpers made 181 parses of their cell
    assert len(parses) <= 1 + 3 * 3, len(parses)
