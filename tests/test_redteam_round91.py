"""Red-team round 91: an instructor's honest mistakes in what they give the grader.

grading.yml, hand-scores files, class folders and output folders written with the mistakes people make
(/tmp/rt91/: a copy of the course per variant, each graded with `autograder grade` or `batch`). Two kinds of
setting changed scores without a word:

- `devices`: a test that takes `device` runs once per entry, and earns its points only on cpu. `devices: [cuda]`
  (or `[]`) on a machine without a GPU graded sdpa's full_marks.ipynb "q1-q8: all 17 tests passed, 17 / 35"; a
  repeated entry, `[cpu, cpu]`, ran those tests twice and paid twice: "53 / 35". Now grading.yml is refused on
  load, naming `devices` and the two lists that work.
- `forbidden_apis`: the worker's guard refuses a torch function whose name contains an entry. A typo
  (`scaled_dot_product_atention`) or a qualified name (`F.scaled_dot_product_attention`) is part of no name, so it
  forbade nothing: a notebook whose scaled_dot_product_attention calls F.scaled_dot_product_attention scored 34/35
  where the course's setting gives it 19/35; `""` is part of every name and forbade all of torch (full marks lost).
  Now an entry that is not an identifier, or is part of no name torch carries, is a ConfigError naming the entry
  (with the closest name) before any student code runs, in `grade`, `batch` and when the Gradescope zip is built.
"""
from __future__ import annotations

import pytest

from autograder.config import Course, load_config
from autograder.errors import ConfigError

SLUG = "sdpa-from-scratch"


@pytest.mark.parametrize("devices", ["[cuda]", "[]", "[cpu, cpu]", "[cpu, cuda, cuda]"])
def test_devices_without_cpu_or_repeated_is_refused_on_load(tmp_path, devices):
    p = tmp_path / "grading.yml"
    p.write_text(f"devices: {devices}\n")
    with pytest.raises(ConfigError, match=r"grading\.yml: bad value at 'devices': .*\[cpu\] or \[cpu, cuda\]"):
        load_config(p)


@pytest.mark.parametrize("devices", ["[cpu]", "[cpu, cuda]", "[cuda, cpu]"])
def test_devices_that_grade_on_cpu_load(tmp_path, devices):
    p = tmp_path / "grading.yml"
    p.write_text(f"devices: {devices}\n")
    assert "cpu" in load_config(p).devices


def _with_forbidden(course: Course, apis: list[str]) -> Course:
    settings = course.config.assignments[SLUG].model_copy(update={"forbidden_apis": apis})
    assignments = {**course.config.assignments, SLUG: settings}
    return Course(course.root, course.config.model_copy(update={"assignments": assignments}))


@pytest.mark.parametrize("apis,said", [
    (["scaled_dot_product_atention"], "part of no torch function's name.*did you mean scaled_dot_product_attention"),
    (["F.scaled_dot_product_attention"], "not a function's name"),
    ([""], "not a function's name"),
    (["scaled_dot_product_attention", "sofmax"], "'sofmax' is part of no torch function's name"),
])
def test_a_forbidden_api_that_matches_nothing_stops_before_grading(course, apis, said):
    from autograder.grading.grader import Grader
    with Grader(_with_forbidden(course, apis)) as grader:   # no zygote: specs() runs before any worker
        with pytest.raises(ConfigError, match=f"assignments\\.{SLUG}\\.forbidden_apis: .*{said}"):
            grader.specs(SLUG)


def test_a_forbidden_api_that_matches_nothing_stops_the_gradescope_build(course, tmp_path):
    from autograder.course.gradescope import build_zip
    with pytest.raises(ConfigError, match="scaled_dot_product_atention"):
        build_zip(_with_forbidden(course, ["scaled_dot_product_atention"]), SLUG, tmp_path / "autograder.zip")
    assert not (tmp_path / "autograder.zip").exists()


def test_the_names_courses_forbid_are_accepted(course):
    from autograder.sandbox.calls import unknown_forbidden_apis
    ours = [api for settings in course.config.assignments.values() for api in settings.forbidden_apis]
    assert ours and unknown_forbidden_apis(ours) == []
    # the guard's families and other functions an assignment may forbid
    assert unknown_forbidden_apis(["softmax", "flex_attention", "multi_head_attention_forward", "einsum", "masked_fill",
                                   "log_softmax", "cross_entropy", "baddbmm"]) == []


@pytest.mark.parametrize("section,key,text", [
    ("late_policy", "zero_after_days", "no"),   # meant: never zero; read as 0, so any late submission scored 0
    ("late_policy", "max_penalty", "off"),      # meant: no cap; read as 0, so lateness cost nothing
    ("late_policy", "penalty_per_day", "yes"),
    ("limits", "cuda_workers", "on"),
])
def test_a_yaml_boolean_for_a_number_is_refused(tmp_path, section, key, text):
    p = tmp_path / "grading.yml"
    p.write_text(f"{section}:\n  {key}: {text}\n")
    with pytest.raises(ConfigError, match=f"'{section}\\.{key}': .*YAML reads yes/no/on/off as true/false"):
        load_config(p)


def test_a_yaml_boolean_where_a_boolean_belongs_still_loads(tmp_path):
    p = tmp_path / "grading.yml"
    p.write_text("gpu_points: no\nvisibility: {show_total: off}\nlate_policy: {zero_after_days: 0, max_penalty: 0}\n")
    config = load_config(p)
    assert config.gpu_points is False and config.visibility.show_total is False
    assert config.late_policy is not None and config.late_policy.zero_after_days == 0


def test_the_batch_names_the_files_it_skipped(tmp_path):
    """A student who handed in `bob.html` has no row in the gradebook: the terminal said only "1 other files
    skipped". The discovery's note names it (exports.skipped_note, printed by `batch`)."""
    from autograder.course.exports import discover, skipped_note
    from tests.conftest import ROOT
    cls = tmp_path / "class"
    cls.mkdir()
    (cls / "alice.ipynb").write_bytes((ROOT / "examples/submissions" / SLUG / "full_marks.ipynb").read_bytes())
    (cls / "bob.html").write_text("<html>a notebook exported</html>")
    (cls / "gina.ipynb.txt").write_text("{}")
    found = discover(cls, SLUG, tmp_path / "scratch")
    note = skipped_note(found)
    assert note is not None and "bob.html" in note and "gina.ipynb.txt" in note and "not in the gradebook" in note
    many = found.model_copy(update={"skipped": [f"s{i}.pdf" for i in range(40)]})
    assert skipped_note(many) is not None and "and 35 more" in (skipped_note(many) or "")
