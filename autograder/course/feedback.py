"""Feedback out: one self-contained HTML file per submission, to hand back to its student(s).

The diagnosis first (autograder.grading.diagnosis): one block per mistake (its text and key, the tests it
explains, the points it cost and the rule points it withholds, one smallest failing example), then each
failure no known mistake explains, once; the passed tests folded per question; cases the grader could
not run in one note. Then the points per question, and every test's result, points, reason and named
misconception in a collapsed <details>. Then the written answers with
their math typeset, hand score and comment; the total, and the late penalty where grading.yml's late
policy takes one (autograder.course.lateness: "Late by 1 day 3 h: -10% of the maximum, 3.5 points"), or
says it was waived. The page needs nothing at view time: no
script, no font, no network (a Content-Security-Policy forbids every fetch but data: images).

Math: written answers are LaTeX inside $...$, $$...$$, \\(...\\) or \\[...\\]. Each formula is typeset
here with matplotlib's mathtext (a dependency already) into an SVG drawn with paths, embedded as a
data: image whose alt text is the LaTeX source. mathtext covers most of what a proof uses (fractions,
roots, sums, sub/superscripts, \\mathrm, \\mathbb, \\text, \\left/\\right, \\operatorname); \\big is
dropped and aligned environments are typeset line by line. A formula it cannot typeset (or one past
the per-answer budget) is shown as its escaped LaTeX source in <code>, and the page says so.

Images: a PNG, JPEG or GIF the student pasted into a written answer is drawn where the text refers to
it, from bytes checked again here (autograder.grading.attachments); any other attachment, and any image the
text itself points at (a web address, a data: URL), is named, never drawn or fetched.
"""
from __future__ import annotations

import base64
import html
import io
import re
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Container, Iterable, Optional, Sequence

import jinja2
from markupsafe import Markup

from autograder.grading.attachments import Reference, image_html, reference_html, split_references
from autograder.grading.diagnosis import FailureGroup, diagnose, points, said_beyond, tests_by_question
from autograder.course.exports import Entry
from autograder.course.handscores import AWAITING, awaits_hand_grading, is_hand_test
from autograder.course.lateness import Lateness
from autograder.course.outputs import results_name
from autograder.results import AnswerImage, SubmissionResult, TestReport

MAX_ANSWER_CHARS = 20_000
MAX_FORMULA_CHARS = 400
MAX_FORMULAS = 80                 # typeset per answer; the rest as source
MAX_SVG_BYTES = 3 * 1024 * 1024   # typeset per page; the rest as source
MATH_SECONDS = 10.0               # typesetting per answer (CPU seconds, _Typeset.cost_s); the rest as source


def feedback_name(key: str) -> str:
    """The feedback file of a submission: results_name's injective, path-safe name, ending .html."""
    return results_name(key)[: -len(".json")] + ".html"


# --- math ------------------------------------------------------------------------------------------
_MATH = re.compile(
    r"\$\$(?P<dd>.{1,4000}?)\$\$"                     # $$ display $$
    r"|\\\[(?P<bd>.{1,4000}?)\\\]"                    # \[ display \]
    r"|\\\((?P<bi>.{1,2000}?)\\\)"                    # \( inline \)
    r"|(?<![\\$\w])\$(?P<di>[^\s$](?:[^$\n]{0,1000}?[^\s$\\])?)\$(?![\w$])",   # $inline$ (not $5 or $x$y)
    re.DOTALL)
_BIG = re.compile(r"\\(?:big|Big|bigg|Bigg)[lrm]?(?![A-Za-z])")
_STYLE = re.compile(r"\\(?:displaystyle|textstyle|scriptstyle|nonumber|notag)(?![A-Za-z])")
_ENV = re.compile(r"\\(?:begin|end)\{(?:aligned|align\*?|gathered|gather\*?|split|equation\*?|eqnarray\*?)\}")
_LOCK = threading.Lock()


def _normalise(latex: str) -> str:
    latex = _BIG.sub("", latex)
    latex = _STYLE.sub("", latex)
    latex = re.sub(r"\\[td]frac(?![A-Za-z])", r"\\frac", latex)
    latex = re.sub(r"\\operatorname\*", r"\\operatorname", latex)
    return " ".join(latex.split())


@dataclass(frozen=True)
class _Svg:
    data: str          # base64 of the SVG
    depth_pt: float    # how far below the baseline the image reaches
    width_pt: float
    height_pt: float


@lru_cache(maxsize=1)
def _matplotlib() -> Any:
    """matplotlib with its own defaults, whatever the working directory holds. On import it reads `./matplotlibrc`
    before any other settings file, and a batch run from a flat class folder has students' files there: one drew
    every formula of the class in white (text.color) and put escape sequences in a warning on the instructor's
    terminal (red-team round 64). Its warnings are silenced for the import, and the settings reset after it."""
    import logging
    import warnings
    log = logging.getLogger("matplotlib")
    level = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import matplotlib
            matplotlib.rcdefaults()
    finally:
        log.setLevel(level)
    return matplotlib


@dataclass(frozen=True)
class _Typeset:
    """A formula as _typeset made it: its SVG (None: mathtext cannot typeset it) and `cost_s`, the CPU seconds
    typesetting it took when it was made. A page's budget charges `cost_s` whether the formula is made now or read
    from the cache (red-team round 109: a wall clock charged a cached formula nothing, so a proof typeset in full on
    the page of a student sorted after a classmate who wrote the same formulas was cut to its LaTeX source on the
    page of the same notebook graded first or alone)."""
    svg: Optional[_Svg]
    cost_s: float


@lru_cache(maxsize=4096)
def _typeset(latex: str) -> _Typeset:
    """One formula as an SVG (paths only, no fonts), or None when mathtext cannot typeset it, with its cost."""
    if not latex.strip() or len(latex) > MAX_FORMULA_CHARS:
        return _Typeset(None, 0.0)
    with _LOCK:   # one thread imports and resets matplotlib (_matplotlib), none while another draws
        matplotlib = _matplotlib()
    from matplotlib import mathtext
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    # the thread's CPU time, after the imports (matplotlib's, and the font cache a fresh machine builds, are paid once
    # by whichever page typesets first: no formula's cost) and inside the lock (no other thread draws meanwhile)
    with _LOCK, matplotlib.rc_context({"svg.hashsalt": "feedback", "svg.fonttype": "path",
                                       "mathtext.fontset": "cm", "text.usetex": False}):
        started = time.thread_time()
        try:
            prop = FontProperties(size=13)
            width, height, depth, _, _ = mathtext.MathTextParser("path").parse(f"${latex}$", dpi=72, prop=prop)
            if width <= 0 or height <= 0:
                return _Typeset(None, time.thread_time() - started)
            fig = Figure(figsize=(width / 72, height / 72))
            fig.text(0, depth / height, f"${latex}$", fontproperties=prop)
            buf = io.BytesIO()
            fig.savefig(buf, dpi=72, format="svg", transparent=True, metadata={"Date": None})
        except Exception:  # noqa: BLE001 - mathtext raises ValueError, RecursionError, ...: all mean "cannot"
            return _Typeset(None, time.thread_time() - started)
        cost_s = time.thread_time() - started
    # Metadata and the DOCTYPE are not needed to draw (and name URLs a reader might take for fetches).
    svg = re.sub(rb"<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*", b"", buf.getvalue(), flags=re.DOTALL)
    return _Typeset(_Svg(base64.b64encode(svg).decode("ascii"), depth, width, height), cost_s)


class _Budget:
    """What one page (or one submission's answers in report.html) may typeset: MAX_FORMULAS, MAX_SVG_BYTES and
    `seconds` of typesetting, each distinct formula charged once the cost it had when made (_Typeset.cost_s), cached
    or not: what a page shows depends on its own formulas, not on which pages this process drew before it.
    `costs`: what each formula charged ({normalised LaTeX: seconds}). report.html also bounds the class's formulas
    together: `class_left_s` for those not in `class_charged` (each distinct formula charged once for the class)."""
    def __init__(self, typeset: bool = True) -> None:
        self.typeset = typeset
        self.formulas = 0
        self.svg_bytes = 0
        self.fallbacks = 0
        self.seconds = MATH_SECONDS
        self.costs: dict[str, float] = {}
        self.class_left_s = float("inf")
        self.class_charged: Container[str] = ()

    @property
    def spent_s(self) -> float:
        return sum(self.costs.values())

    def new_to_class(self) -> dict[str, float]:
        return {latex: cost for latex, cost in self.costs.items() if latex not in self.class_charged}

    def allows(self) -> bool:
        return (self.typeset and self.formulas < MAX_FORMULAS and self.svg_bytes < MAX_SVG_BYTES
                and self.spent_s < self.seconds and sum(self.new_to_class().values()) < self.class_left_s)

    def typeset_one(self, latex: str) -> Optional[_Svg]:
        """The formula's SVG (None: not typeset), its cost charged where this budget has not charged it yet (drawn
        again, it is a copy: as the cache made it when the clock was read)."""
        made = _typeset(latex)
        self.costs.setdefault(latex, made.cost_s)
        return made.svg


def _formula_html(latex: str, display: bool, budget: _Budget) -> str:
    """One formula (maybe several lines of an aligned environment) as HTML."""
    source = latex.strip()
    lines = [source]
    if display:
        body = _ENV.sub("", source)
        lines = [ln.replace("&", " ").strip() for ln in re.split(r"\\\\", body)]
        lines = [ln for ln in lines if ln] or [source]
    imgs = []
    for line in lines:
        svg = None
        if budget.allows():
            budget.formulas += 1
            svg = budget.typeset_one(_normalise(line))
        if svg is None:
            budget.fallbacks += 1
            delim = ("$$", "$$") if display else ("$", "$")
            return (f'<code class="tex" title="LaTeX source: not typeset">{html.escape(delim[0] + source + delim[1])}'
                    "</code>")
        budget.svg_bytes += len(svg.data)
        alt = html.escape(line, quote=True)
        imgs.append(f'<img class="math" alt="{alt}" title="{alt}" style="vertical-align:-{svg.depth_pt:.2f}pt;'
                    f'width:{svg.width_pt:.2f}pt;height:{svg.height_pt:.2f}pt" '
                    f'src="data:image/svg+xml;base64,{svg.data}">')
    if display:
        return '<span class="display-math">' + "<br>".join(imgs) + "</span>"
    return "".join(imgs)


def math_html(text: str, budget: Optional[_Budget] = None, typeset: bool = True) -> Markup:
    """A written answer as safe HTML: text escaped (newlines kept for `white-space: pre-wrap`), each
    formula typeset as an image (about 50 ms per distinct formula, cached) or, failing that or with
    typeset=False, shown as its escaped source in <code>."""
    budget = budget or _Budget(typeset)
    text = clean_answer(text)
    out: list[str] = []
    pos = 0
    for m in _MATH.finditer(text):
        if m.start() < pos:
            continue
        display = m.group("dd") is not None or m.group("bd") is not None
        before = text[pos:m.start()]
        # a display formula is a block of its own: the line breaks around it would add blank lines
        out.append(html.escape(before[:-1] if display and before.endswith("\n") else before, quote=False))
        latex = next(g for g in (m.group("dd"), m.group("bd"), m.group("bi"), m.group("di")) if g is not None)
        out.append(_formula_html(latex, display, budget))
        pos = m.end() + (1 if display and text[m.end():m.end() + 1] == "\n" else 0)
    out.append(html.escape(text[pos:], quote=False))
    return Markup("".join(out))


def answer_html(text: str, images: Sequence[AnswerImage] = (), budget: Optional[_Budget] = None,
                typeset: bool = True) -> Markup:
    """A written answer with its attached images as safe HTML: math_html for the text, each image
    reference drawn (an attachment that passed its checks, once) or named (autograder.grading.attachments),
    and the attachments the text does not refer to after it, so the grader sees everything attached."""
    budget = budget or _Budget(typeset)
    by_name = {image.name: image for image in images}
    shown: set[str] = set()
    out: list[str] = []
    for piece in split_references(clean_answer(text)):
        out.append(reference_html(piece, by_name, shown) if isinstance(piece, Reference) else math_html(piece, budget))
    rest = [image for image in images if image.name not in shown]
    if rest:
        out.append('<div class="attached">Attached to this answer, not referred to in its text:</div>')
        out.extend(image_html(image) for image in rest)
    return Markup("".join(out))


_ANSWER_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def clean_answer(text: str) -> str:
    """A student's written answer: capped, control and bidi characters dropped, newlines and tabs kept."""
    text = str(text)[:MAX_ANSWER_CHARS]
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n\n")
    return _ANSWER_CONTROL.sub("", text)


# --- the page --------------------------------------------------------------------------------------
PAGE = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }} — feedback{% if who %} for {{ who }}{% endif %}</title>
<style>
 body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; line-height: 1.45; }
 table { border-collapse: collapse; margin: .5rem 0 1.5rem; width: 100%; } td, th { border: 1px solid #ccc; padding: .35rem .6rem; vertical-align: top; text-align: left; }
 th { background: #f3f3f3; } .num { text-align: right; white-space: nowrap; }
 tr.passed td.result { color: #176b2c; } tr.failed td.result { color: #a01b1b; } tr.not_run td.result { color: #8a5a00; }
 .why { white-space: pre-wrap; overflow-wrap: anywhere; } .misconception { margin-top: .3rem; padding: .2rem .4rem; background: #fff4e5; border-left: 3px solid #c60; }
 .total { font-size: 1.3rem; } .warn { background: #fde8e8; border-left: 4px solid #a01b1b; padding: .5rem .8rem; white-space: pre-wrap; overflow-wrap: anywhere; }
 .note { background: #f6f6f6; border-left: 4px solid #888; padding: .5rem .8rem; white-space: pre-wrap; overflow-wrap: anywhere; }
 .answer { white-space: pre-wrap; overflow-wrap: anywhere; background: #fafafa; border-left: 3px solid #888; padding: .6rem .8rem; }
 .display-math { display: block; text-align: center; margin: .4rem 0; } img.math { display: inline-block; }
 code.tex { background: #eef; padding: 0 .2rem; } .comment { margin: .4rem 0 1.2rem; padding: .5rem .8rem; background: #eef6ff; border-left: 3px solid #2a6fb0; white-space: pre-wrap; overflow-wrap: anywhere; }
 .muted { color: #666; font-size: .9rem; }
 section.mistake, section.unexplained { margin: .8rem 0 1.2rem; padding: .5rem .9rem; border-left: 4px solid #a01b1b; background: #fdf6f6; }
 section.mistake h3, section.unexplained h3 { margin: .2rem 0 .4rem; font-size: 1.05rem; } .key { font-weight: normal; color: #666; font-size: .85rem; }
 pre.example { background: #f6f6f6; padding: .4rem .6rem; overflow-x: auto; white-space: pre; margin: .3rem 0; }
 ul#passed { padding-left: 1.2rem; } ul#passed li.whole { color: #176b2c; }
 details#all-tests > summary { cursor: pointer; font-size: 1.2rem; font-weight: bold; margin: 1rem 0 .5rem; }
 img.attachment { display: block; max-width: 100%; height: auto; margin: .4rem 0; border: 1px solid #ddd; }
 .attachment-note { color: #8a5a00; font-style: italic; } .attached { margin-top: .6rem; color: #666; font-size: .9rem; }
</style></head><body>
<h1>{{ title }}</h1>
<p id="student">{% if who %}<b>{{ who }}</b>{% if ids %} ({{ ids }}){% endif %} · {% endif %}submission <code>{{ key }}</code>{% if late and not late_line %} · submitted late{% endif %}</p>
{% if late_line %}<p id="late" class="note">{{ late_line }}</p>{% endif %}
{% if show_total %}<p id="total" class="total">Total: <b>{{ score }}</b> / {{ max_score }}{% if before_penalty %} <span class="muted">({{ before_penalty }} before the late penalty)</span>{% endif %}{% if awaiting %} <span class="muted">({{ awaiting }} still to be graded by hand)</span>{% endif %}</p>{% endif %}
{% if status != "graded" %}<div id="status" class="warn"><b>{{ "Your submission could not be graded" if status == "rejected" else "The grader failed on this submission (not your fault)" }}:</b> {{ message }}</div>
{% elif message %}<div id="notes" class="note"><b>While running your notebook:</b> {{ message }}</div>{% endif %}
{% if diagnosis %}<h2 id="what-went-wrong">What went wrong</h2>
{% for g in mistakes %}<section class="mistake" id="mistake-{{ loop.index }}"><h3>{{ g.text }} <span class="key">({{ g.key }})</span></h3>
<p class="cost">Cost you <b>{{ g.cost }}</b>: {{ g.count }} failed.{% if g.withheld %} {{ g.withheld_points }} for rules you kept {{ "is" if g.withheld_count == 1 else "are" }} withheld until this is fixed.{% endif %}</p>
<p class="tests">{{ g.tests }}{% if g.withheld %}<br><span class="muted">Rule points withheld: {{ g.withheld }}</span>{% endif %}</p>
<div class="why"><b>{{ g.shown }}:</b> {{ g.said }}</div>
{% if g.example %}<pre class="example">{{ g.example }}</pre>{% endif %}
</section>
{% endfor %}{% for g in unexplained %}<section class="unexplained" id="failure-{{ loop.index }}"><h3>{{ "A failure" if not mistakes and loop.length == 1 else "Another failure" }} no known mistake explains</h3>
<div class="why">{{ g.text }}</div>
<p class="cost">Cost you <b>{{ g.cost }}</b>: {{ g.count }} failed.{% if g.withheld %} {{ g.withheld_points }} for rules you kept {{ "is" if g.withheld_count == 1 else "are" }} withheld until this is fixed.{% endif %}</p>
<p class="tests">{{ g.tests }}{% if g.withheld %}<br><span class="muted">Rule points withheld: {{ g.withheld }}</span>{% endif %}</p>
{% if g.example %}<pre class="example">{{ g.example }}</pre>{% endif %}
</section>
{% endfor %}{% if not mistakes and not unexplained %}<p id="nothing-wrong">Nothing: every test {{ "shown " if hidden_count }}passed.</p>{% endif %}
{% if not_run %}<p id="grader-note" class="note"><b>Grader note:</b> {{ not_run }}</p>{% endif %}
{% if passed %}<h2>What passed</h2>
<ul id="passed">{% for line, whole in passed %}<li{% if whole %} class="whole"{% endif %}>{{ line }}</li>{% endfor %}</ul>{% endif %}{% endif %}
{% if questions %}<h2>Per question</h2>
<table id="questions"><tr><th>question</th><th class="num">points</th></tr>
{% for q, points in questions %}<tr><td>{{ q }}</td><td class="num">{{ points }}</td></tr>{% endfor %}
</table>{% endif %}
{% if tests %}<details id="all-tests"><summary>Every test ({{ tests|length }})</summary>
<table id="tests"><tr><th>test</th><th>result</th><th class="num">points</th><th>why</th></tr>
{% for t in tests %}<tr class="{{ t.css }}"><td>{{ t.name }}</td><td class="result">{{ t.word }}</td><td class="num">{{ t.score }} / {{ t.max }}</td><td><div class="why">{{ t.message }}</div>{% if t.misconception %}<div class="misconception"><b>Likely misconception:</b> {{ t.misconception }}</div>{% endif %}</td></tr>
{% endfor %}</table></details>{% else %}<h2>Tests</h2>
<p>No tests were run.</p>{% endif %}
{% if hidden_note %}<p class="muted">{{ hidden_note }}</p>{% endif %}
{% if answers %}<h2>Written answers</h2>
{% for a in answers %}<section class="written" id="written-{{ loop.index }}"><h3>{{ a.question }}{% if a.points %} — {{ a.points }}{% endif %}</h3>
<div class="answer">{{ a.html }}</div>
{% if a.comment %}<div class="comment"><b>Comment:</b> {{ a.comment }}</div>{% endif %}
</section>
{% endfor %}{% if fallbacks and typeset %}<p class="muted">{{ fallbacks }} formula{{ "s" if fallbacks != 1 }} could not be typeset offline and {{ "are" if fallbacks != 1 else "is" }} shown as LaTeX source.</p>{% endif %}{% endif %}
<p class="muted">{% if typeset %}Formulas are typeset as images; hover one for its LaTeX source. {% endif %}This page loads nothing from the network.</p>
</body></html>
""")


def _num(x: float) -> str:
    return f"{x:g}"


def _tests_text(tests: Sequence[TestReport]) -> str:
    return "; ".join(f"{q}: {', '.join(names)}" for q, names in tests_by_question(tests))


def _group(group: FailureGroup) -> dict[str, object]:
    """One cause as the page says it; every string is escaped by the template."""
    shown = group.example.test if group.example is not None else group.tests[0]
    n = len(group.tests)
    return dict(key=clean_answer(group.key or "")[:200], text=clean_answer(group.text)[:4000], cost=points(group.cost),
                count=f"{n} test{'s' if n != 1 else ''}", tests=clean_answer(_tests_text(group.tests)),
                withheld=clean_answer(_tests_text(group.withheld)), withheld_count=len(group.withheld),
                withheld_points=points(group.withheld_points),
                shown=clean_answer(shown.display_name)[:400], said=clean_answer(said_beyond(shown.message, group.text))[:4000],
                example=clean_answer(group.example.text)[:4000] if group.example is not None else "")


def _diagnosis(result: SubmissionResult, shown: Sequence[TestReport]) -> dict[str, object]:
    """What the page leads with (autograder.grading.diagnosis), from the tests it shows only: a hidden test
    is neither grouped nor counted before publication."""
    if result.status != "graded" or not shown:
        return dict(diagnosis=False, mistakes=[], unexplained=[], passed=[], not_run="")
    found = diagnose(result, shown)
    n = len(found.not_run)
    not_run = (f"{n} test case{'s' if n != 1 else ''} ({clean_answer(_tests_text(found.not_run))}) could not be run by the "
               f"grader on its side: not a problem with your code. {'They count' if n != 1 else 'It counts'} "
               "0 of 0 points.") if n else ""
    return dict(diagnosis=True, mistakes=[_group(g) for g in found.mistakes],
                unexplained=[_group(g) for g in found.unexplained],
                passed=[(line.sentence, line.passed == line.total) for line in found.passed], not_run=not_run)


def render_feedback(result: SubmissionResult, entry: Optional[Entry] = None, *, title: str = "",
                    show_hidden: bool = True, show_total: bool = True, typeset_math: bool = True,
                    lateness: Optional[Lateness] = None) -> str:
    """The feedback page of one submission. `entry` (from exports.discover) names its student(s);
    `lateness` (lateness.assess) what the late policy made of it: the total shown is after its penalty."""
    from autograder.course.gradebook import question_scores

    tests, shown, hidden_count = [], [], 0
    for t in result.tests:
        if is_hand_test(t):
            continue
        if not t.visible and not show_hidden:  # `visible`: shown before publication (results carry it)
            hidden_count += 1
            continue
        shown.append(t)
        word = {"passed": "passed", "failed": "failed"}.get(t.status, "not run")
        message = t.message if t.status == "failed" else ""
        if word == "not run":
            message = "The grader could not run this test on its side (not a problem with your code): 0 of 0 points."
        # escaped by the template; control and bidi characters dropped here (they are not text to read)
        tests.append(dict(name=clean_answer(t.display_name)[:400], word=word, css=word.replace(" ", "_"),
                          score=_num(t.score), max=_num(t.max_score), message=clean_answer(message),
                          # said once: not again when the message already says it
                          misconception=clean_answer(t.misconception_note) if word == "failed" else ""))
    hand = {t.question: t for t in result.tests if is_hand_test(t)}
    written = {m.question: m for m in result.manual}
    budget = _Budget(typeset_math)
    answers = []
    for q in [*hand, *[q for q in written if q not in hand]]:
        h = hand.get(q)
        graded = h is not None and h.message != AWAITING
        answers.append(dict(
            question=q,
            html=(answer_html(written[q].text, written[q].attachments, budget)
                  if q in written and (written[q].text.strip() or written[q].attachments)
                  else Markup("<i>(no answer written)</i>")),
            points=(f"{_num(h.score)} / {_num(h.max_score)}" if graded else
                    f"awaiting hand grading (out of {_num(h.max_score)})") if h is not None else "",
            comment=h.message if h is not None and graded else ""))
    people = entry.submitters if entry else []
    who = ", ".join(s.name or s.sid or s.email or s.lms_id for s in people)
    ids = ", ".join(s.sid for s in people if s.sid)
    waiting = {q for q, h in hand.items() if awaits_hand_grading(h)}
    awaiting = sum(1 for h in hand.values() if h.message == AWAITING)
    # the points a penalty took say what the score was: shown only where the total is
    applies = lateness is not None and lateness.applies  # without a policy: the export's mark, as before
    late_line = lateness.describe(result if show_total else None) if lateness is not None and applies else ""
    final = lateness.final(result) if lateness is not None else result.score
    return PAGE.render(
        title=title or result.assignment, who=who, ids=ids, key=clean_answer(result.submission)[:400], late=bool(entry and entry.late),
        late_line=late_line[:1].upper() + late_line[1:] + ("." if late_line and not late_line.endswith(".") else ""),
        before_penalty=_num(result.score) if final != result.score else "",
        show_total=show_total, score=_num(final), max_score=_num(result.max_score), awaiting=awaiting,
        status=result.status, message=clean_answer(result.message)[:4000],
        # per question: a sum over tests too, so only over the tests this page shows, and not at all where the
        # total is not shown (the per-question points add up to it)
        # a question no one has graded by hand yet has no points to show: "0 / 4" told a right notebook it lost them
        questions=[(q, f"awaiting hand grading (out of {_num(m)})" if q in waiting and s == 0 else f"{_num(s)} / {_num(m)}")
                   for q, (s, m) in question_scores(
            result.model_copy(update={"tests": [t for t in result.tests if show_hidden or t.visible or is_hand_test(t)]})
        ).items()] if show_total else [],
        tests=tests, answers=answers, fallbacks=budget.fallbacks, typeset=typeset_math, hidden_count=hidden_count,
        **_diagnosis(result, shown),
        hidden_note=(f"{hidden_count} hidden test{'s' if hidden_count != 1 else ''} not shown yet." if hidden_count else ""))


def write_feedback(results: Iterable[SubmissionResult], folder: Path, *, entries: Iterable[Entry] = (),
                   title: str = "", show_hidden: bool = True, show_total: bool = True,
                   typeset_math: bool = True, lateness: Optional[dict[str, Lateness]] = None) -> dict[str, Path]:
    """folder/<feedback_name(key)> for every result; {submission key: path}. `lateness`: each
    submission's late penalty (lateness.assess_class)."""
    from autograder.course.atomic import ensure_folder, write_atomic
    ensure_folder(folder)  # never a link: the pages would land wherever it points
    by_key = {e.key: e for e in entries}
    written: dict[str, Path] = {}
    for r in results:
        page = render_feedback(r, by_key.get(r.submission), title=title, show_hidden=show_hidden,
                               show_total=show_total, typeset_math=typeset_math,
                               lateness=(lateness or {}).get(r.submission))
        path = folder / feedback_name(r.submission)
        # whole or not at all (a disk's fault names the page); a rerun leaves a page that says the same alone
        write_atomic(path, page, skip_same=True)
        written[r.submission] = path
    return written


__all__ = ["feedback_name", "math_html", "answer_html", "render_feedback", "write_feedback", "clean_answer"]
