"""The bench's timers (autograder.sandbox.timers): off unless asked, and then they record."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from autograder.sandbox import timers


def test_off_records_nothing(monkeypatch):
    monkeypatch.setattr(timers, "ON", False)
    timers.take()
    with timers.span("x"):
        timers.mark("y")
        timers.count("z")
    assert timers.take() == {"spans": [], "counts": {}}


def test_on_records_spans_marks_and_counts(monkeypatch):
    monkeypatch.setattr(timers, "ON", True)
    timers.take()
    with timers.span("outer"):
        timers.mark("inside")
        timers.count("trips", 2)
    got = timers.take()
    (outer,) = [s for s in got["spans"] if s[0] == "outer"]
    (inside,) = [s for s in got["spans"] if s[0] == "inside"]
    assert outer[1] <= inside[1] <= outer[2] and got["counts"] == {"trips": 2}
    assert timers.take()["spans"] == []


def test_a_process_with_the_variable_writes_its_line_at_exit(tmp_path):
    out = tmp_path / "t.jsonl"
    code = ("from autograder.sandbox import timers; timers.role('probe')\n"
            "with timers.span('work'): pass\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, AUTOGRADER_TIMERS=str(out)))
    (line,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["role"] == "probe" and [s[0] for s in line["spans"]][-1] == "work"
