"""Right code keeps every point at any grading seed: full_marks.ipynb and each correct held-out variant of an
assignment, in turn, graded at random seeds, and every point lost printed with its seed (replay it with
`autograder grade NOTEBOOK -a SLUG --seed SEED`, or `grade_cells(grader, slug, cells, name, seed=SEED)`).

    python -m tests.heldout.seeds SLUG [GRADES] [RANDOM_SEED]

The suite grades each variant at one seed and the author's check at three; a case whose draw is sometimes too hard
for honest arithmetic (a float16 row whose large query meets its own large key; float32 scores in the thousands
through a log-sum-exp) costs a right answer a point a few grades in a hundred, which only many seeds show. About a
third of a second a grade on a 2-core machine."""
from __future__ import annotations

import random
import sys
import time

from tests.heldout.harness import ROOT, grade_cells, load_variants


def sweep(slug: str, grades: int, random_seed: int = 1) -> int:
    """Grade full_marks and every correct variant of `slug` in turn, `grades` grades in all, each at a seed drawn
    from `random_seed`; print each that loses a point; return how many did."""
    from autograder.config import find_course
    from autograder.grading.grader import Grader

    right: list[tuple[str, dict[str, str]]] = [("full_marks", {})]
    right += [(v.name, v.cells) for v in load_variants(slug) if v.correct]
    draw = random.Random(random_seed)
    lost, start = 0, time.monotonic()
    with Grader(find_course(ROOT)) as grader:
        for i in range(grades):
            name, cells = right[i % len(right)]
            seed = draw.getrandbits(63)
            outcome = grade_cells(grader, slug, cells, name, seed=seed)
            if not outcome.full_marks:
                lost += 1
                print(f"LOST {slug} {name} --seed {seed}: {outcome.score:g}/{outcome.max_score:g}", flush=True)
                for question, test, key, message in outcome.failed:
                    print(f"    {question}: {test} [{key}] {message[:300]}", flush=True)
    print(f"{slug}: {grades} grades of {len(right)} right notebooks, {lost} lost a point, "
          f"{time.monotonic() - start:.0f} s", flush=True)
    return lost


if __name__ == "__main__":
    slug = sys.argv[1]
    grades = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    sys.exit(1 if sweep(slug, grades, int(sys.argv[3]) if len(sys.argv) > 3 else 1) else 0)
