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
