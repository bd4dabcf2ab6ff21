"""The Kubernetes Indexed Job recipe against the Kubernetes API schema, offline: kubernetes-validate (PyPI)
carries the API's JSON schemas for every release it supports and checks the manifests strictly (an
unknown field is an error, as `kubectl apply --validate=strict` would make it). And the pod's security
context keeps what the grader's `container` isolation level needs: root, to setuid each worker to a uid
of its own, with the runtime's default capabilities."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import all_versions
from packaging.version import Version

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "examples" / "cluster" / "kubernetes"
# backoffLimitPerIndex (a failed shard retried alone) is beta and on by default from 1.29 (the recipe says
# so); the API schema has carried the field since 1.28, when it was alpha.
OLDEST = Version("1.29")


def _documents(name: str) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all((MANIFESTS / name).read_text()) if d]
    assert docs, name
    return docs


def _containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return list(doc["spec"]["template"]["spec"]["containers"])


@pytest.mark.parametrize("name", ["grade-job.yaml", "merge-job.yaml"])
def test_manifests_match_the_kubernetes_api_schema(name: str):
    versions = [v for v in all_versions() if Version(v) >= OLDEST]
    assert versions, f"kubernetes-validate {kubernetes_validate.__version__} has no schema from {OLDEST} on"
    for doc in _documents(name):
        for version in versions:
            # raises ValidationError (with the field's path) or SchemaNotFoundError, never only warns
            assert kubernetes_validate.validate(doc, version, strict=True) == version.rsplit(".", 1)[0]


def test_the_validator_refuses_what_the_api_would():
    """The same check fails on what a cluster would reject, so its passing above means something."""
    job = _documents("grade-job.yaml")[0]
    typo = copy.deepcopy(job)
    typo["spec"]["completion"] = typo["spec"].pop("completions")
    wrong_type = copy.deepcopy(job)
    wrong_type["spec"]["parallelism"] = "eight"
    bad_container = copy.deepcopy(job)
    _containers(bad_container)[0]["securityContext"]["runAsUser"] = "root"
    latest = all_versions()[-1]
    for bad, field in ((typo, "completion"), (wrong_type, "eight"), (bad_container, "root")):
        with pytest.raises(kubernetes_validate.ValidationError) as refused:
            kubernetes_validate.validate(bad, latest, strict=True)
        assert field in refused.value.message, refused.value.message
    with pytest.raises(kubernetes_validate.ValidationError) as refused:  # an API older than the recipe says
        kubernetes_validate.validate(job, "1.27.0", strict=True)
    assert "backoffLimitPerIndex" in refused.value.message


@pytest.mark.parametrize("name", ["grade-job.yaml", "merge-job.yaml"])
def test_the_pod_runs_the_grader_as_root_with_the_default_capabilities(name: str):
    """The `container` isolation level (root without CAP_SYS_ADMIN): the grader must stay root to give
    each worker a uid of its own (setuid, setgid, setgroups), so a pod that runs as non-root, or drops
    those capabilities, would leave the grader no level that starts."""
    for doc in _documents(name):
        pod = doc["spec"]["template"]["spec"]
        pod_context = pod.get("securityContext", {})
        assert pod_context.get("runAsUser", 0) == 0 and not pod_context.get("runAsNonRoot", False), pod_context
        for container in _containers(doc):
            context = container.get("securityContext", {})
            assert context.get("runAsUser", 0) == 0 and not context.get("runAsNonRoot", False), context
            assert not context.get("privileged", False), "a privileged pod is not the default container"
            dropped = {c.upper() for c in context.get("capabilities", {}).get("drop", [])}
            assert not dropped & {"ALL", "SETUID", "SETGID"}, dropped
            added = {c.upper() for c in context.get("capabilities", {}).get("add", [])}
            assert "SYS_ADMIN" not in added, "with CAP_SYS_ADMIN the recipe would describe another level"
            assert container["args"][0].startswith("umask 077 &&"), "outputs must be root-only"
