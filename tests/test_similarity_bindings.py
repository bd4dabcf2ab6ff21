"""similarity.extract reads the def that is graded: the last module-level binding of each name, also a def
inside a module-level if / try / with / for, an alias, a wrapper; never raising on a cell's nesting
(red-team round 51: a copy indented under `if True:` below the template's stubs was not compared)."""
from __future__ import annotations

from autograder.course import similarity as sim

REAL = "def causal_mask(T_q, T_k=None):\n    return torch.tril(torch.ones(T_q, T_k or T_q, dtype=torch.bool))\n"
STUB = "def causal_mask(T_q, T_k=None):\n    raise NotImplementedError\n"


def _indented(src: str, header: str) -> str:
    return header + "\n" + "".join(f"    {line}\n" for line in src.splitlines())


def _source(cells: list[str]) -> str:
    stored = sim.extract(cells, ["causal_mask"])
    return "".join(f.source for f in stored.functions if f.name == "causal_mask")


def test_defs_inside_module_level_blocks_are_read():
    for header in ("if True:", "try:", "with contextlib.nullcontext():", "for _ in range(1):", "while True:"):
        cell = _indented(REAL, header) + ("except Exception:\n    pass\n" if header == "try:" else "")
        assert "tril" in _source([STUB, cell]), header


def test_a_def_in_an_except_branch_or_else_is_read():
    cell = "try:\n    import nothing_here\nexcept ImportError:\n" + "".join(f"    {x}\n" for x in REAL.splitlines())
    assert "tril" in _source([STUB, cell])


def test_alias_and_wrapper_keep_the_def_passed():
    alias = REAL.replace("causal_mask", "_mask_impl") + "causal_mask = _mask_impl\n"
    assert "tril" in _source([STUB, alias])
    wrapped = REAL + "causal_mask = functools.lru_cache(maxsize=None)(causal_mask)\n"
    assert "tril" in _source([wrapped])
    compiled = REAL + "causal_mask = torch.compile(causal_mask)\n"
    assert "tril" in _source([compiled])


def test_a_name_rebound_to_something_else_is_not_the_def_above():
    stored = sim.extract([REAL + "causal_mask = None\n"], ["causal_mask"])
    assert not stored.functions and "defines none" in stored.note


def test_deep_nesting_never_raises():
    deep = "".join("    " * i + "if True:\n" for i in range(19)) + "    " * 19 + "pass\n"
    assert sim.extract([deep, REAL], ["causal_mask"]).functions
    very_deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"        # the parser's own limit: a note, no raise
    sim.extract([very_deep + REAL], ["causal_mask"])
    nested_blocks = "".join("    " * i + "if True:\n" for i in range(90)) + "    " * 90 + REAL.replace("\n", "\n" + "    " * 90)
    sim.extract([nested_blocks], ["causal_mask"])        # past MAX_BLOCK_DEPTH: left unread, no raise
