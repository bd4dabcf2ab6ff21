"""Red-team round 96: today's changes, a fourth look (round 93's class-member reading, naming round 59's walks and
replays, rounds 92-94's report and skipped-file note).

- **A class named like one of torch's, then a `*` import** (rule point, rounds 81 and 93). The class-member reading
  takes `Tensor.softmax` for the notebook's own method where `Tensor` has one binding, a plain class; a `from torch
  import *` (a readable module, so allowed) rebinds `Tensor` to torch.Tensor without being counted as a binding, so
  `class Tensor` with a hand-written softmax, then `from torch import *`, then `stable_softmax` returning
  `Tensor.softmax(x, dim)` ran torch's built-in softmax with find_use answering None (no use: the rule point kept).
  Measured in /tmp/rt96/star.py (also `from torch.nn.functional import *`, which exports `Tensor`; an instance bound
  once, `OPS = Ops()`, before the import). Now a name a `*`-imported module exports (its `__all__`, else its public
  names, read off the module as the grader has it loaded; one not loaded there exports everything) has no one binding
  where the import runs after the name's last binding: the
  attribute is read as before round 81, a use; the same class without the import, or beside `from math import *`,
  keeps round 93's reading.
- **The notebook's own def replaced by a `*` import** (rule point, older than today's rounds, found on the way). A
  name the notebook binds was walked through its own binding only: `def gumbel_softmax` (a hand-written softmax),
  then `from torch.nn.functional import *`, then `stable_softmax` calling `gumbel_softmax(...)` (torch's at run
  time) gave None. Now a followed name that holds a forbidden word and that a `*` import exports is a use.
"""
from __future__ import annotations

import pytest

from autograder.grading.source_checks import find_use

IMPORTS = "import torch\nimport torch.nn.functional as F\n"
BODY = ("        e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
        "        return e / e.sum(dim=dim, keepdim=True)\n")
CALL = "\n\ndef stable_softmax(x, dim=-1):\n    return {}(x, dim)\n"


def own_class(name: str) -> str:
    return f"class {name}:\n    @staticmethod\n    def softmax(x, dim=-1):\n" + BODY


STAR = {
    "torch's Tensor by from torch import *": own_class("Tensor") + "\nfrom torch import *\n" + CALL.format("Tensor.softmax"),
    "torch's Tensor by from torch.nn.functional import *": own_class("Tensor") + "\nfrom torch.nn.functional import *\n"
                                                            + CALL.format("Tensor.softmax"),
    "a class named Tensor, also instantiated": own_class("Tensor") + "\nOPS = Tensor()\nfrom torch import *\n"
                                           + CALL.format("Tensor.softmax"),
}


@pytest.mark.parametrize("name", STAR)
def test_class_member_after_a_star_import_is_a_use(name):
    source = STAR[name]
    namespace: dict = {}
    exec(IMPORTS + source, namespace)   # what ran: torch's own Tensor.softmax, not the class's
    import torch
    assert namespace["Tensor"] is torch.Tensor
    assert find_use([IMPORTS, source], "stable_softmax", ["softmax"]) is not None


def test_own_def_replaced_by_a_star_import_is_a_use():
    source = ("def gumbel_softmax(x, dim=-1):\n" + BODY.replace("        ", "    ") + "\nfrom torch.nn.functional import *\n"
              "\n\ndef stable_softmax(x, dim=-1):\n    return gumbel_softmax(x, tau=1.0, dim=dim)\n")
    namespace: dict = {}
    exec(IMPORTS + source, namespace)
    import torch.nn.functional as F
    assert namespace["gumbel_softmax"] is F.gumbel_softmax
    assert find_use([IMPORTS, source], "stable_softmax", ["softmax"]) is not None


def test_own_class_without_a_star_import_keeps_the_reading():
    assert find_use([IMPORTS, own_class("Tensor") + CALL.format("Tensor.softmax")], "stable_softmax", ["softmax"]) is None
    assert find_use([IMPORTS, own_class("Ops") + "\nOPS = Ops()" + CALL.format("OPS.softmax")], "stable_softmax",
                    ["softmax"]) is None


def test_star_import_that_exports_neither_name_keeps_the_reading():
    # math exports neither `Tensor` nor `stable_softmax`: round 93's reading stands beside it
    source = "from math import *\n" + own_class("Tensor") + CALL.format("Tensor.softmax")
    assert find_use([IMPORTS, source], "stable_softmax", ["softmax"]) is None


def test_a_star_import_above_the_notebooks_own_binding_replaces_nothing():
    """Review of round 96: `_star_exports` reads modules as the GRADER has them loaded, and matplotlib is not loaded
    there, so `from matplotlib.pyplot import *` in a right notebook's imports cell read as exporting everything and
    cost the rule point of every def below it (`stable_softmax` itself was the use). A `*` import stands at module
    level and cells run once in order: one above the name's last binding is undone by it."""
    import sys
    assert "matplotlib.pyplot" not in sys.modules or pytest.skip("the case needs a module the grader has not loaded")
    helper = "def softmax_rows(x, dim=-1):\n" + BODY.replace("        ", "    ") + CALL.format("softmax_rows")
    above = "from matplotlib.pyplot import *\n"
    assert find_use([IMPORTS + above, helper], "stable_softmax", ["softmax"]) is None
    assert find_use([IMPORTS, helper, above], "stable_softmax", ["softmax"]) is not None   # below: may replace it
    # torch's own Tensor rebound by the class written after the star import: the class's method runs
    source = "from torch import *\n" + own_class("Tensor") + CALL.format("Tensor.softmax")
    namespace: dict = {}
    exec(IMPORTS + source, namespace)
    assert isinstance(namespace["Tensor"], type) and namespace["Tensor"].__module__ != "torch"
    assert find_use([IMPORTS, source], "stable_softmax", ["softmax"]) is None
