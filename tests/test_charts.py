"""The report's charts (autograder.course.charts): SVG drawn by hand, every label escaped, counts right."""
from __future__ import annotations

import base64
import xml.etree.ElementTree as ET

from autograder.course import charts

NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)          # well-formed XML, or this raises


def test_histogram_counts_each_score_once_in_its_bin():
    svg = charts.histogram([0, 0, 3.5, 7, 7, 7, 10], max_score=10, bins=5)
    root = _parse(svg)
    counts = [t.text for t in root.iter(f"{NS}text") if t.get("font-size") == "10"]   # the axis is 11
    # bins [0,2) [2,4) [4,6) [6,8) [8,10]: 2, 1, 0, 3, 1 (the top score in the last, closed bin)
    assert counts == ["2", "1", "3", "1"]
    bars = [r for r in root.iter(f"{NS}rect") if r.get("fill") == charts.HIST_COLOUR]
    heights = [float(r.get("height", "0")) for r in bars]
    assert heights[3] == max(heights) and heights[2] == 0.0


def test_labels_cannot_become_markup():
    hostile = '<script>alert(1)</script>" onload="x'
    svg = charts.pass_rates([(hostile, 1, 2), ("q1: test_ok", 2, 2)])
    root = _parse(svg)
    assert not list(root.iter(f"{NS}script")) and "<script" not in svg
    texts = [t.text or "" for t in root.iter(f"{NS}text")]
    assert any(t.startswith("<script>") for t in texts)    # shown as text, cut to fit
    assert "50%" in texts and "100%" in texts
    for el in root.iter():
        assert not any(k.startswith("on") for k in el.attrib), el.attrib


def test_data_uri_is_an_svg_image():
    uri = charts.data_uri(charts.histogram([], max_score=0, bins=5))
    head, b64 = uri.split(",", 1)
    assert head == "data:image/svg+xml;base64"
    _parse(base64.b64decode(b64, validate=True).decode())
