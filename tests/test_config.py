import re

import pytest

from autograder.config import load_config
from autograder.errors import AssignmentNotFound, ConfigError


@pytest.mark.parametrize("text,key", [
    ("limits: {cell_timeout_s: -1}", "limits.cell_timeout_s"),
    ("limits: {bogus: 1}", "limits.bogus"),
    ("devices: [tpu]", "devices.0"),
    ("visibility: {hidden_tests: sometimes}", "visibility.hidden_tests"),
    ("assignments: {x: {forbidden_apis: 3}}", "assignments.x.forbidden_apis"),
    ("surprise: 1", "surprise"),
])
def test_bad_grading_yml_names_the_key(tmp_path, text, key):
    p = tmp_path / "grading.yml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(p)


def test_not_yaml_and_not_mapping(tmp_path):
    p = tmp_path / "grading.yml"
    p.write_text("a: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)
    p.write_text("- a list")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(p)


def test_the_course_config_loads_and_unknown_assignment_is_named(course):
    assert set(course.config.assignments) >= {"sdpa-from-scratch", "scaled-attention", "attention-pipeline"}
    with pytest.raises(AssignmentNotFound, match="nope"):
        course.assignment_dir("nope")


# --- visible_tests: tests students see before grades are published ---------------------------------

def _specs():
    from autograder.grading.outcome import TestSpec
    return [TestSpec("q1", "test_a", 1.0), TestSpec("q1", "test_b", 1.0), TestSpec("q5", "test_float32_no_mask", 2.0)]


@pytest.mark.parametrize("entry,says", [
    ("q9", "names no question of toy (its questions: q1, q5)"),
    ("q5:test_nope", "names no test of toy (q5's tests: test_float32_no_mask)"),
    ("q5:", "names no test of toy"),
    ("test_a", "names no question"),
])
def test_a_visible_test_naming_nothing_is_an_error_that_names_it(entry, says):
    from autograder.grading.outcome import visible_specs
    with pytest.raises(ConfigError, match=f"assignments\\.toy\\.visible_tests: '{entry}' {re.escape(says)}"):
        visible_specs(_specs(), ["q1", entry], "toy")


def test_visible_tests_mark_a_question_or_one_test():
    from autograder.grading.outcome import visible_specs
    marked = visible_specs(_specs(), ["q1"], "toy")
    assert [s.visible for s in marked] == [True, True, False]
    marked = visible_specs(_specs(), [" q5 : test_float32_no_mask "], "toy")
    assert [s.visible for s in marked] == [False, False, True]
    assert visible_specs(_specs(), [], "toy") == _specs()


def test_the_course_visible_tests_name_real_tests(course):
    """grading.yml's entries resolve against the hidden tests (as the Gradescope zip build checks)."""
    from autograder.course.gradescope import check_visible_tests
    from autograder.grading.hidden import load_hidden_tests
    from autograder.grading.outcome import TestSpec, visible_specs
    for slug, settings in course.config.assignments.items():
        assert settings.visible_tests, f"{slug} lists no visible tests"
        check_visible_tests(course, slug)
        cases = load_hidden_tests(course.assignment_dir(slug) / "hidden", course.root)
        shown = [s for s in visible_specs([TestSpec.of(c) for c in cases], settings.visible_tests, slug) if s.visible]
        assert 0 < len(shown) < len(cases), slug


def test_a_bad_visible_test_stops_the_gradescope_zip(tmp_path):
    import shutil
    import subprocess
    import sys
    import os
    from tests.conftest import FIXTURE_COURSE
    root = tmp_path / "course"
    shutil.copytree(FIXTURE_COURSE, root)
    cfg = (root / "grading.yml").read_text().replace("manual: [q3]", "manual: [q3]\n    visible_tests: [q1, q2:test_answr]")
    (root / "grading.yml").write_text(cfg)
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", "toy", "-o", str(tmp_path / "z.zip")],
                          env=dict(os.environ, AUTOGRADER_COURSE=str(root)), capture_output=True, text=True)
    assert proc.returncode == 2 and not (tmp_path / "z.zip").exists()
    assert "'q2:test_answr' names no test of toy (q2's tests: test_answer)" in proc.stderr
