"""Red-team round 93: right code that today's new tests and checks refuse.

Right solutions written in many honest styles (/tmp/rt93/: q2b.py, q4.py, sdpa5.py, cls.py; run.py grades each as
full_marks.ipynb with the cell replaced) and graded. scaled-attention q2 (34 estimators: biased and unbiased
variance, torch.var, manual, statistics, NumPy, torch.cov, mean of squares; float32 and float64 draws; randn,
torch.normal, Tensor.normal_; (T, d_k), (d_k, T), (2, T, d_k), (T, 2 d_k) split or interleaved, chunked and scalar
draws; the scale on the dots, on q and k, on q alone, on the variance, in the draws' std), q4's entropies (16: log_softmax,
xlogy, special.entr, logsumexp, where, nan_to_num, Categorical, float32 and float64 math, eps 1e-12) and sdpa's q5
(15: einsum, bmm, baddbmm, broadcast products, mT, the scale on Q or on both, float64 compute) all kept full marks
(float32 compute of float64 inputs lost 4 points, as the statement says it must).

- **A class member called with arguments** (rule point, rounds 81 and 84). Round 81 reads `Ops.softmax` as the
  notebook's own class member (the class walked whole) only where `Ops` has one binding; a call with arguments,
  `Ops.softmax(x, dim)`, is also recorded as a possible store into `Ops` (a "mutation" binding, for `ops.append(f)`),
  so a plain class with a hand-written `@staticmethod`/`@classmethod` softmax called the natural way lost q3's rule
  point, 34/35, "uses `Ops.softmax`, which this assignment forbids", where `stable_softmax = Ops.softmax` kept it.
  So did an instance bound once, `OPS = Ops()` then `OPS.softmax(x, dim)`, and `class Ops(object)`. Now the one
  binding counted is the non-mutation one (each mutation's values are still walked by `follow`, a store into the
  attribute through attr_stores), an instance bound once to `Ops()` reads as its class, and `object` (not rebound) as
  the only base is no base: 35/35. Hostile neighbours stay refused (the same tests below): a classmethod that stores
  F.softmax into the class, a store into the instance, `object` rebound, an instance rebound to F, `Ops(F.softmax)`.
  Bases other than `object`, decorators on the class, `self.softmax` inside the class's methods (`self` may be any
  object handed to the function through the class) keep the old reading (round 81's stated limit).
"""
from __future__ import annotations

import pytest

from autograder.grading.source_checks import find_use
from tests.heldout.harness import grade_cells

IMPORTS = "import torch\nimport torch.nn.functional as F\n"
BODY = ("        e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
        "        return e / e.sum(dim=dim, keepdim=True)\n")
STATIC = "class Ops:\n    @staticmethod\n    def softmax(x, dim=-1):\n" + BODY
CALL = "\n\ndef stable_softmax(x, dim=-1):\n    return {}(x, dim)\n"

RIGHT = {
    "staticmethod called with arguments": STATIC + CALL.format("Ops.softmax"),
    "classmethod called with arguments": "class Ops:\n    @classmethod\n    def softmax(cls, x, dim=-1):\n" + BODY
                                         + CALL.format("Ops.softmax"),
    "instance bound once": "class Ops:\n    def softmax(self, x, dim=-1):\n" + BODY + "\n\nOPS = Ops()" + CALL.format("OPS.softmax"),
    "object as the base": STATIC.replace("class Ops:", "class Ops(object):") + CALL.format("Ops.softmax"),
}
HOSTILE = {
    "classmethod stores F.softmax": STATIC + "    @classmethod\n    def register(cls, f):\n        cls.softmax = f\n\n"
                                    "Ops.register(F.softmax)" + CALL.format("Ops.softmax"),
    "method takes the module": STATIC + "    @classmethod\n    def use(cls, m):\n        cls.softmax = m.softmax\n\n"
                               "Ops.use(F)" + CALL.format("Ops.softmax"),
    "store into the class": STATIC + "\nOps.softmax = staticmethod(F.softmax)" + CALL.format("Ops.softmax"),
    "store into the instance": STATIC + "\nOPS = Ops()\nOPS.softmax = F.softmax" + CALL.format("OPS.softmax"),
    "instance stores its argument": STATIC + "    def set(self, f):\n        self.softmax = f\n\nOPS = Ops()\n"
                                    "OPS.set(F.softmax)" + CALL.format("OPS.softmax"),
    "object rebound": "object = F\n" + STATIC.replace("class Ops:", "class Ops(object):") + CALL.format("Ops.softmax"),
    "instance rebound": STATIC + "\nOPS = Ops()\nOPS = F" + CALL.format("OPS.softmax"),
    "instance built with arguments": STATIC + "    def __init__(self, f=None):\n        if f:\n            self.softmax = f\n\n"
                                     "OPS = Ops(F.softmax)" + CALL.format("OPS.softmax"),
    "__init__ stores torch's": "class Ops:\n    def __init__(self):\n        self.softmax = F.softmax\n\n"
                               "    def softmax(self, x, dim=-1):\n" + BODY + "\n\nOPS = Ops()" + CALL.format("OPS.softmax"),
}


@pytest.mark.parametrize("name", RIGHT)
def test_own_class_member_called_with_arguments_is_no_builtin(name):
    assert find_use([IMPORTS, RIGHT[name]], "stable_softmax", ["softmax"]) is None


@pytest.mark.parametrize("name", HOSTILE)
def test_torch_stored_into_the_class_or_instance_is_still_found(name):
    assert find_use([IMPORTS, HOSTILE[name]], "stable_softmax", ["softmax"]) is not None


def test_class_solution_called_with_arguments_keeps_full_marks(grader):
    outcome = grade_cells(grader, "sdpa-from-scratch", {"stable_softmax": RIGHT["staticmethod called with arguments"]},
                          "round93_static_softmax")
    assert outcome.score == outcome.max_score and not outcome.failed, outcome.explain()
