"""The Gradescope zip on a machine that never saw this project: a clean Debian 12 root filesystem
(debootstrap minbase), the zip unpacked into /autograder/source, `setup.sh` run there as root, then
`run_autograder` on a full-marks and a wrong example in a container-like root (tests/integration/rootfs.py):
with every capability, and with Docker's default capability set (no CAP_SYS_ADMIN, Docker's seccomp
refusals), which is how Gradescope, a Kubernetes pod and most CI run a container.

Prints the setup time and the image size, and writes them with the isolation levels to
/var/cache/autograder-integration/gradescope-image.json.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

from tests.integration import rootfs
from tests.integration.rootfs import Bind, Capabilities

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SLUG = "sdpa-from-scratch"
EXAMPLES = REPO / "examples" / "submissions" / SLUG
FULL, WRONG = "full_marks.ipynb", "divide_by_dk.ipynb"
METRICS = rootfs.CACHE / "gradescope-image.json"
SETUP_TIMEOUT_S = 1800
GRADE_TIMEOUT_S = 600



def _image_skip_reason() -> str | None:
    reason = rootfs.skip_reason()
    if reason is None and shutil.which("apt-get") is None:
        reason = "no apt-get: setup.sh installs Python with apt"
    return reason


def _pip_setting(name: str) -> list[str]:
    """What this machine's pip is configured with for `name` (cert, find-links): a registry behind a
    local certificate authority, wheels on disk. A fresh root gets the same, read-only."""
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    values: list[str] = []
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key.rsplit(".", 1)[-1] == name:
            values += [v for v in value.strip().strip("'\"").split() if v not in values]
    env_value = os.environ.get(f"PIP_{name.upper().replace('-', '_')}")
    if env_value:
        values += [v for v in env_value.split() if v not in values]
    return [v for v in values if Path(v).exists()]


def _host_pip_access() -> tuple[list[Bind], dict[str, str]]:
    binds: list[Bind] = []
    env: dict[str, str] = {}
    certs = _pip_setting("cert")
    if certs:
        binds.append(Bind(Path(certs[0]), "/run/host/ca-certificates.crt"))
        env["PIP_CERT"] = "/run/host/ca-certificates.crt"
    links = []
    for i, folder in enumerate(p for p in _pip_setting("find-links") if Path(p).is_dir()):
        binds.append(Bind(Path(folder), f"/run/host/find-links/{i}"))
        links.append(f"/run/host/find-links/{i}")
    if links:
        env["PIP_FIND_LINKS"] = " ".join(links)
    return binds, env


def _unpack(zip_path: Path, dest: Path) -> None:
    """Unzip as Gradescope does, keeping the modes the zip records (setup.sh, run_autograder: 755)."""
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            target = dest / info.filename
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                target.chmod(mode)


@dataclass
class Image:
    root: Path
    setup_s: float
    size_bytes: int
    os_release: str
    python: str
    metrics: dict[str, Any] = field(default_factory=dict)

    def save_metrics(self) -> None:
        METRICS.parent.mkdir(parents=True, exist_ok=True)
        METRICS.write_text(json.dumps(self.metrics, indent=2) + "\n")


def _os_release(root: Path) -> str:
    text = (root / "etc" / "os-release").read_text()
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?$', text, re.M)
    return m.group(1) if m else "unknown"


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Image]:
    """A clean root with the zip unpacked and setup.sh run in it, as Gradescope builds its image
    (a `docker build`: root with Docker's default capabilities)."""
    reason = _image_skip_reason()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("zip") / "autograder.zip"
    built = subprocess.run([str(REPO / ".venv" / "bin" / "autograder"), "gradescope", SLUG, "-o", str(out)],
                           cwd=REPO, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    with rootfs.fresh_root() as root:
        _unpack(out, root / "autograder" / "source")
        binds, env = _host_pip_access()
        setup = rootfs.run_in_root(root, ["/bin/bash", "/autograder/source/setup.sh"], caps=Capabilities.DOCKER_DEFAULT,
                                   env={"HOME": "/root", **env}, binds=binds, cwd="/autograder/source",
                                   timeout=SETUP_TIMEOUT_S)
        assert setup.returncode == 0, f"setup.sh failed ({setup.returncode}):\n{setup.stdout[-4000:]}\n{setup.stderr[-4000:]}"
        version = rootfs.run_in_root(root, ["/autograder/venv/bin/python", "-c",
                                            "import platform, torch; print(platform.python_version(), torch.__version__)"],
                                     caps=Capabilities.ALL, timeout=120)
        assert version.returncode == 0, version.stderr
        python, torch_version = version.stdout.split()
        img = Image(root=root, setup_s=setup.seconds, size_bytes=rootfs.disk_usage_bytes(root),
                    os_release=_os_release(root), python=python)
        img.metrics.update({
            "os": img.os_release, "python": python, "torch": torch_version, "host_kernel": platform.release(),
            "setup_s": round(setup.seconds, 1), "image_bytes": img.size_bytes,
            "image_gb": round(img.size_bytes / 1e9, 2),
            "autograder_dir_bytes": rootfs.disk_usage_bytes(root / "autograder"),
            "root_cache_bytes": rootfs.disk_usage_bytes(root / "root" / ".cache") if (root / "root" / ".cache").is_dir() else 0,
            "setup_output_tail": setup.stdout[-600:] + setup.stderr[-600:],
            "runs": {},
        })
        print(f"\nsetup.sh on {img.os_release} (Python {python}, torch {torch_version}): "
              f"{setup.seconds:.1f} s; image {img.size_bytes / 1e9:.2f} GB (du -sx of the root)")
        img.save_metrics()
        yield img


def _expected_scores() -> dict[str, float]:
    data = yaml.safe_load((EXAMPLES / "expected.yml").read_text())
    return {name: float(v["score"]) for name, v in data.items()}


@dataclass
class Graded:
    returncode: int
    output: str
    results: dict[str, Any] | None
    seconds: float


def _grade(image: Image, notebook: Path, caps: Capabilities) -> Graded:
    """One Gradescope run: the submission alone in /autograder/submission, no results.json before."""
    ag = image.root / "autograder"
    for folder in ("submission", "results"):
        shutil.rmtree(ag / folder, ignore_errors=True)
    (ag / "submission").mkdir()
    shutil.copyfile(notebook, ag / "submission" / notebook.name)
    (ag / "results").mkdir(mode=0o700)
    ran = rootfs.run_in_root(image.root, ["/autograder/source/run_autograder"], caps=caps,
                             env={"HOME": "/root"}, cwd="/autograder", timeout=GRADE_TIMEOUT_S)
    path = ag / "results" / "results.json"
    results = json.loads(path.read_text()) if path.is_file() else None
    return Graded(ran.returncode, (ran.stdout + ran.stderr)[-4000:], results, ran.seconds)


@pytest.mark.parametrize("caps", [Capabilities.ALL, Capabilities.DOCKER_DEFAULT], ids=lambda c: c.value)
def test_run_autograder_grades_full_marks_at_the_maximum_and_a_wrong_example_below(image: Image, caps: Capabilities) -> None:
    effective = rootfs.effective_capabilities(image.root, caps)
    has_sys_admin = bool(effective >> rootfs.CAP_SYS_ADMIN & 1)
    assert has_sys_admin == (caps is Capabilities.ALL), f"CapEff {effective:#x} under {caps.value}"

    expected = _expected_scores()
    seen: dict[str, Any] = {}
    for name in (FULL, WRONG):
        graded = _grade(image, EXAMPLES / name, caps)
        assert graded.results is not None, f"{name} under {caps.value}: no results.json (exit {graded.returncode}):\n{graded.output}"
        extra = graded.results["extra_data"]
        assert graded.returncode == 0 and extra.get("status") == "graded", \
            f"{name} under {caps.value}: exit {graded.returncode}, {graded.results['output']}\n{extra}\n{graded.output}"
        seen[name] = {"score": graded.results["score"], "max_score": extra["max_score"], "isolation": extra["isolation"],
                      "exit": graded.returncode, "seconds": round(graded.seconds, 1)}
        print(f"\n{caps.value} (CapEff {effective:#x}): {name}: {graded.results['score']:g} / {extra['max_score']:g}, "
              f"isolation {extra['isolation']}, exit {graded.returncode}, {graded.seconds:.1f} s")
        assert graded.results["score"] == expected[name], graded.results["output"]
        # a level that keeps the student from the course: never rlimits alone, on any container
        assert extra["isolation"] not in (None, "rlimits"), extra
    assert seen[FULL]["score"] == seen[FULL]["max_score"] == 35
    assert seen[WRONG]["score"] < seen[FULL]["max_score"]
    image.metrics["runs"][caps.value] = {"cap_eff": f"{effective:#x}", **seen}
    image.save_metrics()


def test_a_grader_that_cannot_grade_says_so_in_results_json(image: Image) -> None:
    """A container with every capability dropped (`docker run --cap-drop ALL`, a Kubernetes pod whose
    securityContext drops ALL) as root: no uid switch, no namespaces, so no sandbox level can keep the
    student's code from the course. Gradescope must still get a results.json that says it is the
    autograder's problem, with the reason for the instructor, and a non-zero exit."""
    assert rootfs.effective_capabilities(image.root, Capabilities.NONE) == 0
    graded = _grade(image, EXAMPLES / FULL, Capabilities.NONE)
    print(f"\ncap-drop ALL: exit {graded.returncode}, {graded.seconds:.1f} s\n{graded.output[-1500:]}")
    assert graded.results is not None, f"no results.json (exit {graded.returncode}):\n{graded.output}"
    assert graded.returncode != 0, graded.results
    print(json.dumps({k: graded.results.get(k) for k in ("score", "output", "extra_data")}, indent=2)[:2000])
    said = graded.results["output"].lower()
    assert "autograder" in said and "not" in said, graded.results["output"]  # ours, not the student's
    assert graded.results["score"] == 0 and graded.results["tests"] == [], graded.results
    assert "traceback" not in said
    extra = graded.results.get("extra_data") or {}
    reason = str(extra.get("autograder_error", ""))
    assert "sandbox" in reason, extra  # the reason, for the instructor: no level could start
    image.metrics["runs"]["cap-drop-all"] = {"exit": graded.returncode, "extra_data": extra,
                                             "seconds": round(graded.seconds, 1)}
    image.save_metrics()


# --- Gradescope's base image: Ubuntu 22.04, Python 3.10 --------------------------------------------
GRADESCOPE_PYTHON = "3.10"
# Ubuntu 22.04 has glibc 2.35: pip expands only the old manylinux aliases, so the tags are listed
GRADESCOPE_PLATFORMS = ("manylinux_2_35_x86_64", "manylinux_2_34_x86_64", "manylinux_2_28_x86_64",
                        "manylinux_2_17_x86_64", "manylinux2014_x86_64")


def _pip_for_gradescope_base(command: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """pip as Python 3.10 on Ubuntu 22.04 would use it: wheels only, this machine's own wheel
    folders and constraints ignored (--isolated), its certificate authority kept."""
    target = ["--python-version", GRADESCOPE_PYTHON, "--implementation", "cp", "--only-binary=:all:"]
    for plat in GRADESCOPE_PLATFORMS:
        target += ["--platform", plat]
    cert = _pip_setting("cert")
    return subprocess.run([sys.executable, "-m", "pip", *command, "--isolated", *(["--cert", cert[0]] if cert else []),
                           *target, *args], capture_output=True, text=True, timeout=600)


def _dependencies() -> list[Requirement]:
    import tomllib
    with open(REPO / "pyproject.toml", "rb") as fh:
        return [Requirement(d) for d in tomllib.load(fh)["project"]["dependencies"]]


def test_the_pins_install_on_python_3_10(tmp_path: Path) -> None:
    """setup.sh installs with the base image's python3, 3.10 on Gradescope: the pinned torch has a
    3.10 wheel for Linux x86_64, and pip's resolver finds 3.10 wheels for everything else (torch's
    own CPU-build requirements included)."""
    from importlib.metadata import requires
    deps = _dependencies()
    torch_pin = next(d for d in deps if d.name == "torch")
    listed = _pip_for_gradescope_base(["index", "versions"], "torch")
    assert listed.returncode == 0, listed.stderr
    versions = re.search(r"Available versions: (.*)", listed.stdout)
    assert versions, listed.stdout
    pinned = str(next(iter(torch_pin.specifier)).version)
    assert pinned in [v.strip() for v in versions.group(1).split(",")], f"no Python 3.10 wheel of torch {pinned}"

    # the CPU build's own requirements, as the installed one declares them (markers kept: pip
    # evaluates them for 3.10), then everything else we pin
    torch_requires = [r for r in (requires("torch") or []) if "extra ==" not in r]
    wanted = [str(d) for d in deps if d.name != "torch"] + torch_requires
    (tmp_path / "requirements.txt").write_text("\n".join(wanted) + "\n")
    report = tmp_path / "report.json"
    resolved = _pip_for_gradescope_base(["install"], "--dry-run", "--ignore-installed", "--target", str(tmp_path / "t"),
                                        "--report", str(report), "-q", "-r", str(tmp_path / "requirements.txt"))
    assert resolved.returncode == 0, resolved.stdout[-3000:] + resolved.stderr[-3000:]
    plan = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    for d in deps:
        if d.name != "torch":
            assert d.name.lower() in plan and d.specifier.contains(plan[d.name.lower()], prereleases=True), (d, plan.get(d.name.lower()))
    print(f"\nPython 3.10: torch {pinned} has a wheel; {len(plan)} other packages resolve "
          f"(otter-grader {plan['otter-grader']}, numpy {plan['numpy']}, matplotlib {plan['matplotlib']})")


def _python_3_10() -> str | None:
    """A working Python 3.10 here (pyenv's shims are on PATH even when they refuse to run)."""
    pyenv = Path.home() / ".pyenv" / "versions"
    candidates = [str(p) for p in sorted(pyenv.glob("3.10.*/bin/python3.10"))] if pyenv.is_dir() else []
    candidates += [p for p in [shutil.which("python3.10")] if p]
    for python in candidates:
        probe = subprocess.run([python, "-I", "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 10)":
            return python
    return None


def test_the_package_compiles_on_python_3_10() -> None:
    """The package's source is Python 3.10 syntax (compiled in memory: no .pyc is written)."""
    python = _python_3_10()
    if python is None:
        pytest.skip("no Python 3.10 interpreter here (python3.10 on PATH, or pyenv's)")
    check = ("import pathlib, sys\n"
             "bad = []\n"
             "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n"
             "    try:\n"
             "        compile(p.read_bytes(), str(p), 'exec', dont_inherit=True)\n"
             "    except SyntaxError as e:\n"
             "        bad.append(f'{p}:{e.lineno}: {e.msg}')\n"
             "print('\\n'.join(bad)); sys.exit(1 if bad else 0)\n")
    done = subprocess.run([python, "-I", "-c", check, str(REPO / "autograder")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
