"""Mechanical one-detail slips of the full-marks notebooks, graded (issue 21): where the catalogue is thin.

Held-out sets written by people show which mistakes a class makes; this sweep asks the other question, which
small slips of the kind they write ("a right idea with one wrong detail": an axis, an argument, an operator,
a function, a default) the grader loses points for without naming. Each mutant changes ONE detail of ONE
function of `examples/submissions/<slug>/full_marks.ipynb` (its AST, unparsed), is graded through the real
Grader, and is reported as:

  named        every failed test names a key (right or wrong is not judged here: no person stated the slip)
  partly       some failed tests name a key, some do not
  generic      points lost, no key named, no crash in the message
  raw          points lost, no key, the message is the student's crash
  kept         full marks: an equivalent rewrite, or a slip no test reaches

    python -m tests.heldout.mutants sdpa-from-scratch [--ops swap_args,func] [--limit 60] [-v]

A mutant is no student's code and no test asserts on this output: it is a map for the next naming round,
whose kinds are then written as held-out variants (variants.py) and named by proof as any other."""
from __future__ import annotations

import argparse
import ast
import copy
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import nbformat

from tests.heldout.harness import ROOT, Outcome, Variant, grade

# function names a slip swaps for a near neighbour (both ways)
NEIGHBOURS = {"softmax": "log_softmax", "sum": "mean", "max": "min", "amax": "amin", "tril": "triu",
              "float64": "float32", "exp": "exp2", "log": "log2", "var": "std", "matmul": "mul", "bmm": "mul",
              "masked_fill": "where", "sqrt": "rsqrt", "zeros": "ones", "zeros_like": "ones_like", "any": "all"}
NEIGHBOURS.update({v: k for k, v in list(NEIGHBOURS.items())})
BINOPS = {ast.MatMult: (ast.Mult,), ast.Mult: (ast.MatMult, ast.Div), ast.Div: (ast.Mult, ast.FloorDiv),
          ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Pow: (ast.Mult,)}

def _nodes(tree: ast.AST) -> list[ast.AST]:
    return list(ast.walk(tree))


def _mutations(fn: ast.FunctionDef) -> Iterator[tuple[str, str, int, Callable[[ast.AST], str | None]]]:
    """(op, label, index of the node in ast.walk order, change(node) -> what changed or None)."""
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    for i, n in enumerate(_nodes(fn)):
        if isinstance(n, ast.Constant) and type(n.value) is int and not isinstance(n.value, bool):
            for d in (1, -1):
                def bump(m: ast.AST, d: int = d) -> str | None:
                    assert isinstance(m, ast.Constant)
                    old, m.value = m.value, m.value + d
                    return f"{old} -> {m.value}"
                yield "const", f"int {n.value}{d:+d}", i, bump
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
            def flip(m: ast.AST) -> str | None:
                assert isinstance(m, ast.UnaryOp)
                m.op = ast.UAdd()
                return "-c -> +c"
            yield "const", "sign", i, flip
        if isinstance(n, ast.Call):
            for k, kw in enumerate(n.keywords):
                if kw.arg is None:
                    continue
                def drop(m: ast.AST, k: int = k) -> str | None:
                    assert isinstance(m, ast.Call)
                    return f"drop {m.keywords.pop(k).arg}="
                yield "drop_kwarg", f"drop {kw.arg}=", i, drop
            if len(n.args) >= 2:
                def swap(m: ast.AST) -> str | None:
                    assert isinstance(m, ast.Call)
                    m.args[0], m.args[1] = m.args[1], m.args[0]
                    return "swap first two arguments"
                yield "swap_args", "swap args", i, swap
        if isinstance(n, ast.BinOp):
            for new in BINOPS.get(type(n.op), ()):
                def binop(m: ast.AST, new: type = new) -> str | None:
                    assert isinstance(m, ast.BinOp)
                    old = type(m.op).__name__
                    m.op = new()
                    return f"{old} -> {new.__name__}"
                yield "binop", f"{type(n.op).__name__}->{new.__name__}", i, binop
        if isinstance(n, ast.Attribute) and n.attr in NEIGHBOURS:
            def attr(m: ast.AST) -> str | None:
                assert isinstance(m, ast.Attribute)
                old, m.attr = m.attr, NEIGHBOURS[m.attr]
                return f".{old} -> .{m.attr}"
            yield "func", f".{n.attr}->.{NEIGHBOURS[n.attr]}", i, attr
        if isinstance(n, ast.Attribute) and n.attr in ("T", "mT"):
            def drop_t(m: ast.AST) -> str | None:
                assert isinstance(m, ast.Attribute)
                m.attr = "mT" if m.attr == "T" else "T"
                return f"{'.T -> .mT' if m.attr == 'mT' else '.mT -> .T'}"
            yield "func", f".{n.attr} swapped", i, drop_t
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in params:
            for other in params:
                if other != n.id:
                    def rename(m: ast.AST, other: str = other) -> str | None:
                        assert isinstance(m, ast.Name)
                        old, m.id = m.id, other
                        return f"{old} -> {other} (one use)"
                    yield "name", f"{n.id}->{other}", i, rename


def mutants(slug: str) -> Iterator[tuple[str, Variant]]:
    """(op, variant) for every one-detail mutation of every function cell of the slug's full-marks notebook."""
    nb = nbformat.read(ROOT / "examples" / "submissions" / slug / "full_marks.ipynb", as_version=4)
    seen: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not defs:
            continue
        original = ast.unparse(tree)
        for fn_index, fn in enumerate(tree.body):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for op, label, index, change in _mutations(fn):
                copy_tree = copy.deepcopy(tree)
                node = _nodes(copy_tree.body[fn_index])[index]
                did = change(node)
                try:
                    source = ast.unparse(ast.fix_missing_locations(copy_tree))
                    compile(source, "<mutant>", "exec")
                except (SyntaxError, ValueError, TypeError):
                    continue
                if did is None or source == original or source in seen:
                    continue
                seen.add(source)
                name = f"{fn.name}:{label}@{index}"
                yield op, Variant(slug, name, {defs[0].name: source}, False)


def verdict(o: Outcome) -> str:
    if o.status != "graded":
        return "raw"
    if o.score == o.max_score:
        return "kept"
    keys = [k for _, _, k, _ in o.failed]
    if keys and all(keys):
        return "named"
    if any(keys):
        return "partly"
    return "raw" if any("your code raised" in m for _, _, _, m in o.failed) else "generic"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slug")
    parser.add_argument("--ops", default="", help="comma-separated operators (const, drop_kwarg, swap_args, binop, "
                                                   "func, name); default all")
    parser.add_argument("--limit", type=int, default=0, help="at most this many mutants (0: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="every generic and raw mutant's first failure")
    args = parser.parse_args(argv)
    ops = {o for o in args.ops.split(",") if o}
    from autograder.config import find_course
    from autograder.grading.grader import Grader

    todo = [(op, v) for op, v in mutants(args.slug) if not ops or op in ops]
    if args.limit:
        todo = todo[:args.limit]
    counts: Counter[tuple[str, str]] = Counter()
    with Grader(find_course(ROOT)) as g, tempfile.TemporaryDirectory() as tmp:
        for op, v in todo:
            o = grade(g, v, Path(tmp))
            what = verdict(o)
            counts[(op, what)] += 1
            if args.verbose and what in ("generic", "raw", "partly"):
                first = next(((q, t, m) for q, t, k, m in o.failed if not k), ("", "", ""))
                print(f"[{what}] {v.name}: {o.score:g}/{o.max_score:g} {first[0]}:{first[1]} {first[2][:150]!r}",
                      flush=True)
    kinds = ("named", "partly", "generic", "raw", "kept")
    for op in sorted({op for op, _ in counts}):
        row = ", ".join(f"{k} {counts[(op, k)]}" for k in kinds)
        print(f"{args.slug} {op}: {row}")
    total = {k: sum(c for (_, w), c in counts.items() if w == k) for k in kinds}
    lost = sum(total[k] for k in kinds[:4])
    print(f"{args.slug}: {len(todo)} mutants, {lost} lose points: named {total['named']}, partly {total['partly']}, "
          f"generic {total['generic']}, raw {total['raw']}; kept full marks {total['kept']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
