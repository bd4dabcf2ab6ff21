"""How long the similarity report takes for a class: `python bench/bench_similarity.py [N]` (default 500).

The class: the 22 hand-written sdpa-from-scratch solutions of tests/fixtures/similarity, each put into
the student template and varied until there are N notebooks: every local variable renamed at random
and a line of the student's own added, so each solution has ~N/22 near-copies in the class (thousands
of pairs above the floor: more work than any real class, where few pairs share anything). Timed: what
`batch` does after grading, `similarity.write_batch_similarity`: read every notebook (intake), extract
and fingerprint its graded functions, compare every pair, write similarity.json, .html and .csv."""
from __future__ import annotations

import ast
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course import similarity as sim  # noqa: E402
from autograder.config import find_course  # noqa: E402
from tests.test_similarity import FIXTURES, SLUG, as_notebook  # noqa: E402

def varied(source: str, rng: random.Random, n: int) -> str:
    """`source` with every parameter and local variable renamed (consistently per function, comments
    gone, layout ast.unparse's), and one line of its own in the attention function."""
    tree = ast.parse(source)
    for fn in [node for node in tree.body if isinstance(node, ast.FunctionDef)]:
        local = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
        local |= {x.id for x in ast.walk(fn) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)}
        new = {name: f"{rng.choice('abcdefghkmnpqrstuvwxyz')}{name[:2].lower()}_{rng.randrange(100)}" for name in local}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id in new:
                node.id = new[node.id]
            elif isinstance(node, ast.arg) and node.arg in new:
                node.arg = new[node.arg]
        if fn.name == "scaled_dot_product_attention":
            fn.body.insert(0, ast.parse(f"student_{n} = {n} * 2").body[0])
    return ast.unparse(tree)


def main(n: int = 500) -> None:
    course = find_course(ROOT)
    sources = [p.read_text() for p in [*sorted((FIXTURES / "class").glob("*.py")), *sorted(FIXTURES.glob("*.py"))]]
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        subs, out = Path(tmp) / "class", Path(tmp) / "out"
        subs.mkdir()
        out.mkdir()
        entries = []
        for i in range(n):
            path = subs / f"student_{i:04d}.ipynb"
            path.write_text(json.dumps(as_notebook(varied(sources[i % len(sources)], rng, i))))
            entries.append(SimpleNamespace(key=path.name, path=path))
        notes: list[str] = []
        started = time.perf_counter()
        pairs = sim.write_batch_similarity(entries, course, SLUG, out, warnings=notes)  # type: ignore[arg-type]
        took = time.perf_counter() - started
        # the one note a class this alike may bring: more pairs scored than the page lists (MAX_LISTED)
        assert all(note.startswith("similarity: ") and " are listed" in note for note in notes), notes
        threshold = course.settings(SLUG).similarity.threshold
        print(f"{n} submissions: {took:.1f} s (reading, extracting, fingerprinting, comparing, writing); "
              f"{len(pairs)} pairs listed, {sum(p.score >= threshold for p in pairs)} flagged; "
              f"similarity.html {(out / 'similarity.html').stat().st_size / 1e6:.1f} MB, "
              f"similarity.json {(out / 'similarity.json').stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
