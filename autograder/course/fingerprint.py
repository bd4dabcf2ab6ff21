"""What decides a score, as digests: the journal keeps them so that a rerun regrades exactly what a
change touched, and merge refuses shards graded differently.

    file_sha256          a file's digest (a submission's bytes)
    submission_seed      the hidden inputs' seed of one submission in a batch (resumes and shards agree)
    grading_fingerprint  hidden tests, reference, grading.yml's settings, this package's code
    why_regraded         which of those changed, in words

Only bytes are read: nothing of the tests or the reference is imported here."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.config import Course


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def submission_seed(batch_seed: int, sha256: str) -> int:
    """Deterministic per batch and submission: a resumed batch draws the same hidden inputs, and so
    does every shard of a batch run with the same --seed."""
    return int.from_bytes(hashlib.sha256(f"{batch_seed}:{sha256}".encode()).digest()[:8], "little") >> 1


def tree_digest(root: Path) -> str:
    """sha256 over every file under `root` (relative path and bytes; caches left out)."""
    h = hashlib.sha256()
    if root.is_dir():
        for p in sorted(root.rglob("*")):
            if "__pycache__" in p.parts or p.suffix == ".pyc" or p.is_symlink() or not p.is_file():
                continue
            h.update(p.relative_to(root).as_posix().encode("utf-8", "surrogatepass") + b"\0")
            h.update(file_sha256(p).encode() + b"\0")
    return h.hexdigest()


def grading_fingerprint(course: "Course", slug: str) -> tuple[str, dict[str, str]]:
    """(fingerprint, {part: digest}) of everything that decides a score: the assignment's hidden
    test files, the reference modules, grading.yml's settings for it and this package's code (its version and its files).
    Only bytes are read: nothing of the tests or the reference is imported here."""
    from autograder import __version__
    settings = course.config.assignments[slug].model_dump(mode="json")
    settings.pop("title", None)  # a title decides no score
    settings.pop("similarity", None)  # the similarity report is advice: it decides no score
    settings.pop("late_policy", None)  # applied to totals after scoring: a new policy regrades nothing
    relevant = {"limits": course.config.limits.model_dump(mode="json"), "devices": course.config.devices,
                "gpu_points": course.config.gpu_points, "assignment": settings}
    parts = {
        "the hidden tests": tree_digest(course.assignment_dir(slug) / "hidden"),
        "the reference": tree_digest(course.root / "reference"),
        "grading.yml": hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest(),
        # the code, not just its version number: a fix between releases changes scores too
        "the autograder code": f"{__version__}:{tree_digest(Path(__file__).resolve().parent.parent)}",
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest(), parts


def why_regraded(old_parts: dict[str, str], new_parts: dict[str, str]) -> str:
    """Which of the fingerprint's parts changed, for people: "the hidden tests changed"."""
    if not old_parts:
        return "graded before grading was fingerprinted"
    changed = [k for k in new_parts if old_parts.get(k) != new_parts[k]]
    return " and ".join(changed) + " changed" if changed else "the grading changed"
