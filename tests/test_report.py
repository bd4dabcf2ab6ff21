"""report.html renders in headless Chromium: a real browser draws the page, plots included."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from autograder.course.batch import run_batch
from tests.conftest import FIXTURE_SUBS


@pytest.fixture(scope="module")
def report(tmp_path_factory, toy_grader):
    out = tmp_path_factory.mktemp("report")
    results = run_batch(FIXTURE_SUBS, "toy", out, jobs=2, grader=toy_grader, seed=5)
    assert len(results) == 2
    return out / "report.html"


def test_report_has_every_section(report):
    html = report.read_text()
    for anchor in ("histogram", "pass-rates", "misconceptions", "slowest", "submissions"):
        assert f'id="{anchor}"' in html
    assert "Because variance adds over d_k terms." in html  # the written answer, to hand-grade
    assert "no_scale" in html and 'href="results/good.ipynb.json"' in html


def test_report_renders_in_headless_chromium(report, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (make test installs it where apt is available)")
    shot = tmp_path / "report.png"
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                          "--no-first-run", "--disable-background-networking", "--disable-component-update",
                          "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
                          "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-1000:]
    assert 'id="histogram"' in dom.stdout and "Every submission" in dom.stdout
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile2'}", f"--screenshot={shot}",
                    "--window-size=1200,1600", report.as_uri()], capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000
