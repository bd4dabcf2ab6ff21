"""The report's two charts as small SVG images: a histogram of the scores and a bar per test's pass rate.

Drawn here rather than with matplotlib: the two PNGs cost a batch 0.42 s at its end (savefig) and
0.36 s of CPU for the import (a thread preloaded it while the graders worked, and at -j2 it took that
CPU from them); these take milliseconds. The report embeds each as a data: URI in an <img> (its
Content-Security-Policy allows only those), where an SVG runs no script and loads nothing. Every label
is escaped: a test's display name comes from the course's files, a score from a result."""
from __future__ import annotations

import base64
from html import escape
from typing import Sequence

BAR_COLOUR = "#55a868"
HIST_COLOUR = "#4c72b0"
FONT = 'font-family="sans-serif"'


def data_uri(svg: str) -> str:
    """What an <img src> holds: the SVG, base64-encoded."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">'
            f'<rect width="{width}" height="{height}" fill="white"/>' + "".join(body) + "</svg>")


def histogram(scores: Sequence[float], max_score: float, bins: int) -> str:
    """An SVG histogram of `scores` over [0, max(max_score, 1)] in `bins` equal bins (the last one closed,
    as numpy's), with the count above each bar and the range under the axis."""
    top = max(float(max_score), 1.0)
    bins = max(1, int(bins))
    counts = [0] * bins
    for s in scores:
        if 0.0 <= s <= top:
            counts[min(bins - 1, int(s / top * bins))] += 1
    width, height, left, bottom, pad = 630, 220, 40, 30, 16
    plot_w, plot_h = width - left - pad, height - bottom - pad
    most = max(counts, default=0) or 1
    bar = plot_w / bins
    body = [f'<line x1="{left}" y1="{pad + plot_h}" x2="{left + plot_w}" y2="{pad + plot_h}" stroke="#333"/>']
    for i, c in enumerate(counts):
        h = plot_h * c / most
        x = left + i * bar
        body.append(f'<rect x="{x + 1:.1f}" y="{pad + plot_h - h:.1f}" width="{max(bar - 2, 1):.1f}" '
                    f'height="{h:.1f}" fill="{HIST_COLOUR}"/>')
        if c:
            body.append(f'<text x="{x + bar / 2:.1f}" y="{pad + plot_h - h - 3:.1f}" font-size="10" {FONT} '
                        f'text-anchor="middle">{c}</text>')
    for value, anchor in ((0.0, "start"), (top / 2, "middle"), (top, "end")):
        x = left + plot_w * value / top
        body.append(f'<text x="{x:.1f}" y="{pad + plot_h + 14}" font-size="11" {FONT} text-anchor="{anchor}">'
                    f'{escape(f"{value:g}")}</text>')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 2}" font-size="11" {FONT} '
                'text-anchor="middle">score</text>')
    body.append(f'<text x="12" y="{pad + plot_h / 2:.1f}" font-size="11" {FONT} text-anchor="middle" '
                f'transform="rotate(-90 12 {pad + plot_h / 2:.1f})">submissions</text>')
    return _svg(width, height, body, "score histogram")


def pass_rates(rows: Sequence[tuple[str, int, int]]) -> str:
    """An SVG bar per (test name, passed, run): the share passed, from 0 to 1, with the percentage."""
    line, label_w, bar_w, pad = 16, 300, 300, 8
    width, height = label_w + bar_w + 60, pad * 2 + line * max(1, len(rows)) + 16
    body = []
    for i, (name, passed, total) in enumerate(rows):
        rate = passed / total if total else 0.0
        y = pad + i * line
        shown = name if len(name) <= 48 else name[:47] + "…"
        body.append(f'<text x="{label_w - 6}" y="{y + 11}" font-size="10" {FONT} text-anchor="end">'
                    f'{escape(shown)}</text>')
        body.append(f'<rect x="{label_w}" y="{y + 2}" width="{bar_w * rate:.1f}" height="{line - 4}" '
                    f'fill="{BAR_COLOUR}"/>')
        body.append(f'<text x="{label_w + bar_w * rate + 4:.1f}" y="{y + 11}" font-size="10" {FONT}>'
                    f'{100 * rate:.0f}%</text>')
    axis_y = pad + line * max(1, len(rows)) + 2
    body.append(f'<line x1="{label_w}" y1="{axis_y}" x2="{label_w + bar_w}" y2="{axis_y}" stroke="#333"/>')
    for value, anchor in ((0, "start"), (0.5, "middle"), (1, "end")):
        body.append(f'<text x="{label_w + bar_w * value:.1f}" y="{axis_y + 12}" font-size="10" {FONT} '
                    f'text-anchor="{anchor}">{value:g}</text>')
    return _svg(width, height, body, "pass rates")
