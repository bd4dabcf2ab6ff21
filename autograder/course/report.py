"""report.html for instructors: plots (SVG, embedded: autograder.course.charts), pass rates, the mistakes across the class
(each student's failures grouped as their feedback page groups them, autograder.grading.diagnosis: how many
students made each, the points it cost them, a link to each one's page), slow
submissions, written answers to hand-grade (with the images attached to them, autograder.grading.attachments),
late submissions and what the late policy took off (autograder.course.lateness), links to every submission's
feedback. Scores in the tables are after the late penalty; the plots and averages are of the raw scores
(how the code did). The page runs no script and loads nothing: a Content-Security-Policy
allows only data: images and the inline style."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional
from urllib.parse import quote

import jinja2

from autograder.config import Course
from autograder.course.outputs import results_name
from autograder.grading.attachments import image_pixels
from autograder.results import AnswerImage, ManualAnswer, SubmissionResult, misconception_texts

if TYPE_CHECKING:
    from autograder.course.exports import Discovery, Student
    from autograder.course.lateness import Lateness

# A "who (points)" cell runs many people's names together: each name is a left-to-right isolate (<bdi dir="ltr">), so
# the points after a name written in Arabic or Hebrew letters stay after it. Without, "alice (25), سارة (5), علي (30)"
# was drawn "alice (25), (5) سارة ,(30) علي" (Chromium), each number beside another person (red-team round 99).
TEMPLATE = jinja2.Template("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'">
<meta name="referrer" content="no-referrer">
<title>{{ title }} — class report</title>
<style>
 body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; color: #222; }
 table { border-collapse: collapse; margin: 1rem 0; } td, th { border: 1px solid #ccc; padding: .3rem .6rem; }
 th { background: #f3f3f3; } .num { text-align: right; } img { max-width: 100%; }
 .answer { white-space: pre-wrap; background: #fafafa; border-left: 3px solid #888; padding: .5rem; }
 img.attachment { display: block; height: auto; margin: .4rem 0; border: 1px solid #ddd; }
 .attachment-note { color: #8a5a00; font-style: italic; } .attached { margin-top: .6rem; color: #666; }
 .muted { color: #666; font-size: .9rem; }
</style></head><body>
<h1>{{ title }}</h1>
{% if infra %}<div id="grader-problems" style="border:2px solid #c60;background:#fff4e5;padding:.5rem 1rem">
<b>Grader problem, not the students': {{ infra_count }} of {{ n }} submissions had test cases that were not run.</b>
They scored 0 of 0 (neither lost nor gained points) and are left out of the pass rates.
<ul>{% for line, count in infra %}<li>{{ line }} ({{ count }} submission{{ "s" if count != 1 }})</li>{% endfor %}</ul></div>{% endif %}
{% if changes %}<h2>Scores changed by the last regrade</h2>
<table id="changes"><tr><th>submission</th><th>students</th><th>old</th><th>new</th><th>why</th></tr>
{% for key, who, old, new, why in changes %}<tr><td>{{ key }}</td><td>{{ who }}</td><td class="num">{{ old }}</td><td class="num">{{ new }}</td><td>{{ why }}</td></tr>{% endfor %}
</table>{% endif %}
<p id="summary">{{ n }} submissions · mean {{ "%.2f"|format(mean) }} / {{ max_score }}{% if unscored %} ({{ unscored }} without a score left out){% endif %} · graded {{ graded }} · not gradable {{ rejected }}</p>
<h2>Score distribution</h2>
<img id="histogram" alt="score histogram" src="{{ histogram }}">
<h2>Pass rate per test</h2>
<img alt="pass rates" src="{{ passplot }}">
<table id="pass-rates"><tr><th>test</th><th>passed</th><th>rate</th></tr>
{% for name, passed, total in pass_rates %}<tr><td>{{ name }}</td><td class="num">{{ passed }}/{{ total }}</td><td class="num">{{ "%.0f"|format(100 * passed / total if total else 0) }}%</td></tr>{% endfor %}
</table>
<h2>Average per question</h2>
<table id="question-averages"><tr><th>question</th><th>mean</th><th>out of</th><th>submissions</th></tr>
{% for q, mean, out_of, count in averages %}<tr><td>{{ q }}</td><td class="num">{{ "%.2f"|format(mean) }}</td><td class="num">{{ "%g"|format(out_of) }}</td><td class="num">{{ count }}</td></tr>{% endfor %}
</table>
<h2>Mistakes across the class</h2>
<p class="muted">Each failure grouped by the mistake that explains it, as every student's feedback page groups it; points lost include the rule points a mistake withheld. Each name links to that student's feedback page.</p>
{% if misconceptions %}<table id="misconceptions"><tr><th>mistake</th><th class="num">students</th><th class="num">submissions</th><th class="num">points lost</th><th>who (points it cost them)</th></tr>
{% for key, desc, people, count, cost, who in misconceptions %}<tr><td><b>{{ key }}</b>: {{ desc }}</td><td class="num">{{ people }}</td><td class="num">{{ count }}</td><td class="num">{{ cost }}</td><td class="who">{% for label, sub, lost in who %}<bdi dir="ltr"><a href="{{ feedback_of[sub] }}">{{ label }}</a></bdi> ({{ lost }}){{ ", " if not loop.last }}{% endfor %}</td></tr>{% endfor %}
</table>{% else %}<p>None detected.</p>{% endif %}
{% if unexplained %}<table id="unexplained"><tr><th>failures no known mistake explains</th><th class="num">students</th><th class="num">submissions</th><th class="num">points lost</th><th>who (points)</th></tr>
{% for desc, people, count, cost, who in unexplained %}<tr><td>{{ desc }}</td><td class="num">{{ people }}</td><td class="num">{{ count }}</td><td class="num">{{ cost }}</td><td class="who">{% for label, sub, lost in who %}<bdi dir="ltr"><a href="{{ feedback_of[sub] }}">{{ label }}</a></bdi> ({{ lost }}){{ ", " if not loop.last }}{% endfor %}</td></tr>{% endfor %}
</table>{% endif %}
{% if late_rows %}<h2>Late submissions</h2>
<p id="late-summary">{{ late_count }} late · {{ penalised }} penalised · {{ waived }} waived{% if policy_applies %}{% else %} · no late policy in grading.yml, so nothing is taken off{% endif %}</p>
<table id="late"><tr><th>submission</th><th>students</th><th>submitted</th><th>lateness</th><th>score</th></tr>
{% for key, who, at, what, score in late_rows %}<tr><td>{{ key }}</td><td>{{ who }}</td><td>{{ at }}</td><td>{{ what }}</td><td class="num">{{ score }}</td></tr>{% endfor %}
</table>{% endif %}
<h2>Slowest submissions</h2>
<table id="slowest"><tr><th>submission</th><th>seconds</th></tr>
{% for r in slowest %}<tr><td>{{ r.submission }}</td><td class="num">{{ "%.2f"|format(r.execution_time_s) }}</td></tr>{% endfor %}
</table>
{% if written %}<h2>Written answers to grade by hand</h2>
{% if written_note %}<p class="attachment-note">{{ written_note }}</p>{% endif %}
{% for key, who, question, html in written %}<h3>{{ key }}{% if who %} ({{ who }}){% endif %} — {{ question }}</h3><div class="answer">{{ html }}</div>{% endfor %}{% endif %}
<h2>Every submission</h2>
<table id="submissions"><tr><th>submission</th><th>students</th><th>score</th><th>status</th><th>misconceptions</th><th>feedback</th></tr>
{% for r in results %}<tr><td>{{ r.submission }}</td><td>{{ students[loop.index0] }}</td><td class="num">{{ final[loop.index0] }} / {{ "%g"|format(r.max_score) }}{{ before[loop.index0] }}</td><td>{{ r.status }}{% if r.status != "graded" and r.message %}: {{ r.message }}{% endif %}</td><td>{{ r.misconceptions|unique|join(", ") }}</td><td><a href="{{ feedback_of[r.submission] }}">feedback</a> · <a href="{{ feedback[loop.index0] }}">results.json</a></td></tr>{% endfor %}
</table>
</body></html>
""", autoescape=True)


UNEXPLAINED = "failed tests whose output matches no catalogued mistake (each student's page says them once)"
# (students, submissions, points lost, [(student label, submission key, points it cost them), ...])
ClassRow = tuple[int, int, str, list[tuple[str, str, str]]]


def class_diagnosis(results: list[SubmissionResult], submitters: Optional[dict[str, list[Student]]] = None,
                    ) -> tuple[dict[str, ClassRow], Optional[ClassRow]]:
    """Every submission's diagnosis (autograder.grading.diagnosis) summed over the class: per misconception
    key, how many students and submissions made it and the points it cost them in total (withheld
    rule points included), most students first; and the same for failures no mistake explains (None
    when there are none). A group's points are its submission's: counted once in the total, said beside
    each member."""
    from autograder.grading.diagnosis import diagnose
    from autograder.course.exports import Student, clean
    from autograder.course.handscores import is_hand_test
    per_key: dict[str, list[tuple[SubmissionResult, float]]] = {}
    other: list[tuple[SubmissionResult, float]] = []
    for r in results:
        if r.status != "graded":
            continue
        found = diagnose(r, [t for t in r.tests if not is_hand_test(t)])
        for g in found.mistakes:
            per_key.setdefault(g.key or "", []).append((r, g.cost))
        lost = sum(g.cost for g in found.unexplained)
        if found.unexplained:
            other.append((r, lost))

    def row(hits: list[tuple[SubmissionResult, float]]) -> ClassRow:
        people = [(p.shown, r.submission, f"{lost:g}") for r, lost in hits
                  for p in (submitters or {}).get(r.submission) or [Student(name=clean(r.submission))]]
        return len(people), len(hits), f"{sum(lost for _, lost in hits):g}", people

    rows = {key: row(hits) for key, hits in per_key.items()}
    ordered = dict(sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0])))
    return ordered, row(other) if other else None


# Images embedded in report.html, all answers together (base64 bytes). The page holds every written answer of the
# class: each submission may attach attachments_mb (16 MB) of images, and a phone photo of a proof is 2-5 MB, so a
# class of 1,600 made a page of gigabytes (100 students with a 4 MB photo each: 559 MB and 2.2 GB of this process's
# memory to render it; red-team round 87). Past this, an answer's images are named and left to its feedback page.
MAX_REPORT_IMAGE_BYTES = 64 * 2**20
# And the pixels the reader's browser decodes for them: a 64-megapixel PNG of one colour is 8 KB, so 64 MB held
# thousands (each submission's own are bounded by attachments.MAX_SUBMISSION_PIXELS: 100 students' 128 million made
# 51 GB to decode; red-team round 95). 256 million (1 GB) holds twenty 12-megapixel photos.
MAX_REPORT_PIXELS = 256_000_000


def _embedded_images(results: list[SubmissionResult]) -> "Iterator[tuple[SubmissionResult, ManualAnswer, list[AnswerImage]]]":
    """Each written answer with the images report.html embeds for it: all of an answer's while the page's images stay
    within MAX_REPORT_IMAGE_BYTES, else none, each named with where to see it (its submission's feedback page).
    The budget goes to the submissions that attach least first (then in the class's order): taken in the class's
    order, a submission named to sort first with attachments_mb of images pushed its classmates' photos out
    (red-team round 92); now whoever attaches most is the one whose images are left to the feedback page."""
    def attached(r: SubmissionResult) -> int:
        return sum(len(a.data) for m in r.manual for a in m.attachments)
    used, used_pixels, embedded = 0, 0, set()
    for i in sorted(range(len(results)), key=lambda i: attached(results[i])):   # stable: ties keep the class's order
        for j, m in enumerate(results[i].manual):
            size = sum(len(a.data) for a in m.attachments)
            pixels = sum(image_pixels(a) for a in m.attachments if a.data) if size else 0
            if used + size <= MAX_REPORT_IMAGE_BYTES and used_pixels + pixels <= MAX_REPORT_PIXELS:
                used += size
                used_pixels += pixels
                embedded.add((i, j))
    for i, r in enumerate(results):
        for j, m in enumerate(r.manual):
            if not (m.text.strip() or m.attachments):
                continue
            if (i, j) in embedded:
                yield r, m, list(m.attachments)
                continue
            note = (f"shown on this submission's feedback page (report.html embeds at most "
                    f"{MAX_REPORT_IMAGE_BYTES // 2**20} MB and {MAX_REPORT_PIXELS // 1_000_000} million pixels of images "
                    "for the whole class)")
            yield r, m, [a if not a.data else AnswerImage(name=a.name, note=note) for a in m.attachments]


# Formulas typeset for report.html, all answers together: each answer may take feedback.MATH_SECONDS (10 s) and
# MAX_SVG_BYTES (3 MB), and the page typesets the class's answers again after their feedback pages (the typesetting
# cache holds 4,096 formulas): 20 proofs of 80 formulas each took 64 s and 34 MB (10 each: 6 s, 4 MB), so a class of
# 1,600 hours and gigabytes (red-team round 87). Past these, formulas are shown as their LaTeX source.
MAX_REPORT_MATH_SECONDS = 120.0
MAX_REPORT_MATH_BYTES = 64 * 2**20


def _formula_chars(r: SubmissionResult) -> int:
    """How much LaTeX a submission's written answers hold (what typesetting them costs, roughly): the order in which
    report.html typesets the class's answers."""
    from autograder.course.feedback import _MATH, clean_answer
    from autograder.grading.attachments import split_references
    # read as answer_html reads it, piece by piece between image references: over the whole text, `$$ ![](...) $$`
    # paired the reference's two $$ and left a long formula after it uncounted (27 characters for 632 typeset: the
    # submission sorted first and spent its whole budget; red-team round 94)
    return sum(m.end() - m.start() for a in r.manual for piece in split_references(clean_answer(a.text))
               if isinstance(piece, str) for m in _MATH.finditer(piece))


def _written_answers(results: list[SubmissionResult], who: dict[str, str]) -> tuple[list[tuple[str, str, str, Any]], str]:
    """(submission, students, question, answer as HTML) of every written answer, and a note when the class's formulas
    ran past MAX_REPORT_MATH_SECONDS or MAX_REPORT_MATH_BYTES (the rest shown as LaTeX source, typeset on each
    submission's feedback page). Submissions are typeset least LaTeX first, each with one feedback-page budget for
    all its answers (feedback.MATH_SECONDS, MAX_FORMULAS, MAX_SVG_BYTES), never past what the class has left: in the
    class's order, with a budget per answer, one submission named to sort first took MATH_SECONDS per answer and
    twelve such (a group, one student under several names) the whole class's, every classmate's proof then shown as
    source (red-team round 92). The answers are listed in the class's order."""
    from autograder.course.feedback import _Budget, answer_html
    seconds, size, typeset, cut = 0.0, 0, True, 0
    charged: dict[str, float] = {}   # the class's formulas charged to MAX_REPORT_MATH_SECONDS: each once
    answers = [(i, j) for i, r in enumerate(results) for j, m in enumerate(r.manual) if m.text.strip() or m.attachments]
    # _embedded_images yields the same answers in the same order
    images = {at: imgs for at, (_, _, imgs) in zip(answers, _embedded_images(results))}
    shown_of: dict[tuple[int, int], Any] = {}
    of_submission: dict[int, list[int]] = {}
    for i, j in answers:
        of_submission.setdefault(i, []).append(j)
    for i in sorted(of_submission, key=lambda i: _formula_chars(results[i])):   # stable: ties keep the class's order
        budget = _Budget(typeset)
        # charged as the feedback pages charge (_Typeset.cost_s), and each distinct formula once for the class (the
        # same formula in twenty proofs is typeset once): typeset after the pages, nearly every formula comes from the
        # cache, and a wall clock counted the class's costs by which formulas the pages had drawn (round 109)
        budget.class_charged = charged
        for j in of_submission[i]:
            m, imgs = results[i].manual[j], images[(i, j)]
            budget.class_left_s = MAX_REPORT_MATH_SECONDS - seconds
            shown = answer_html(m.text, imgs, budget)
            if typeset:
                fresh = budget.new_to_class()
                charged.update(fresh)
                seconds += sum(fresh.values())
                size += len(shown) - sum(len(a.data) for a in imgs)   # what is not an image: text and typeset formulas
            elif "LaTeX source: not typeset" in shown:   # a formula this page would have typeset
                cut += 1
            shown_of[(i, j)] = shown
        typeset = typeset and seconds < MAX_REPORT_MATH_SECONDS and size < MAX_REPORT_MATH_BYTES
    written = [(results[i].submission, who.get(results[i].submission, ""), results[i].manual[j].question, shown_of[(i, j)])
               for i, j in answers]
    note = (f"The formulas of {cut} answer(s) below are shown as their LaTeX source: this page typesets at most "
            f"{MAX_REPORT_MATH_SECONDS:g} s and {MAX_REPORT_MATH_BYTES // 2**20} MB of formulas for the whole class "
            "(each submission's feedback page shows its own typeset).") if cut else ""
    return written, note


def write_report(results: list[SubmissionResult], course: Course, slug: str, outdir: Path,
                 found: "Optional[Discovery]" = None,
                 changes: "Optional[dict[str, tuple[float, float, float, float, str]]]" = None,
                 lateness: "Optional[dict[str, Lateness]]" = None) -> Path:
    """report.html. `found` (exports.Discovery) names each submission's students; `changes`
    ({key: (old score, old max, new score, new max, why)}) lists the scores a regrade changed;
    `lateness` (lateness.assess_class) what the late policy made of each submission."""
    from autograder.course.feedback import feedback_name
    from autograder.course.gradebook import question_averages
    from autograder.course import charts

    max_score = max((r.max_score for r in results), default=0.0)
    # The grader's failure has no score yet, not 0 (Canvas's cell is left empty, the terminal's mean leaves it out):
    # counted as 0 here, one failed worker of three put the class mean at 6.67 / 10 beside the terminal's 10.00
    # and a bar at 0 in the histogram (red-team round 105)
    scores = [r.score for r in results if r.status != "worker_failed"]
    histogram = charts.data_uri(charts.histogram(scores, max_score, min(20, max(5, int(max_score) + 1))))

    per_test: dict[str, list[int]] = {}
    for r in results:
        for t in r.tests:
            if t.status != "not_run" and (t.max_score > 0 or t.device == "cpu"):
                per_test.setdefault(t.display_name, [0, 0])
                per_test[t.display_name][0] += t.status == "passed"
                per_test[t.display_name][1] += 1
    pass_rates = [(k, v[0], v[1]) for k, v in per_test.items()]
    passplot = charts.data_uri(charts.pass_rates(pass_rates))

    submitters = found.submitters() if found is not None else {}
    who = {key: ", ".join(p.shown for p in people) for key, people in submitters.items()}
    mistakes, unexplained = class_diagnosis(results, submitters)
    feedback_of = {r.submission: f"feedback/{quote(feedback_name(r.submission))}" for r in results}
    written, written_note = _written_answers(results, who)
    texts = misconception_texts(results)
    # Grouped by reason, not by the line (which counts cases): one entry per distinct problem.
    infra = Counter(r.infra.split(": ", 1)[-1] for r in results if r.infra)
    title = course.config.assignments[slug].title or slug
    late = lateness or {}
    at = {e.key: e.created_at for e in found.entries} if found is not None else {}
    final, before, late_rows = [], [], []
    for r in results:
        assessed = late.get(r.submission)
        score = assessed.final(r) if assessed is not None else r.score
        final.append(f"{score:g}")
        before.append(f" ({r.score:g} before the late penalty)" if score != r.score else "")
        if assessed is not None and (assessed.late or assessed.waived or assessed.extended_to or assessed.warning):
            said = assessed.describe(r) or ("late penalty waived: on time anyway" if assessed.waived else "")
            what = "; ".join(x for x in (said, assessed.warning) if x)
            late_rows.append((r.submission, who.get(r.submission, ""), at.get(r.submission, ""), what,
                              f"{final[-1]} / {r.max_score:g}{before[-1]}"))
    page = TEMPLATE.render(
        title=title, n=len(results), max_score=f"{max_score:g}",
        mean=(sum(scores) / len(scores)) if scores else 0.0, unscored=len(results) - len(scores),
        graded=sum(r.status == "graded" for r in results),
        rejected=sum(r.status != "graded" for r in results),
        histogram=histogram, passplot=passplot, pass_rates=pass_rates,
        misconceptions=[(k, texts.get(k, k), *row) for k, row in mistakes.items()],
        unexplained=[(UNEXPLAINED, *unexplained)] if unexplained else [],
        averages=question_averages(results), feedback_of=feedback_of, written=written, written_note=written_note,
        students=[who.get(r.submission, "") for r in results],
        changes=[(k, who.get(k, ""), f"{o:g} / {om:g}", f"{n:g} / {nm:g}", why)
                 for k, (o, om, n, nm, why) in sorted((changes or {}).items())],
        slowest=sorted(results, key=lambda r: -r.execution_time_s)[:10],
        infra=infra.most_common(), infra_count=sum(1 for r in results if r.infra),
        results=results, final=final, before=before, late_rows=late_rows,
        late_count=sum(1 for x in late.values() if x.late),
        penalised=sum(1 for r in results if r.submission in late and late[r.submission].deduction(r) > 0),
        waived=sum(1 for x in late.values() if x.waived or x.extended_to),
        policy_applies=any(x.applies for x in late.values()),
        # The same name batch wrote, URL-quoted: always a relative link into results/.
        feedback=[f"results/{quote(results_name(r.submission))}" for r in results])
    path = outdir / "report.html"
    from autograder.course.atomic import write_atomic
    write_atomic(path, page)  # whole or not at all; a disk's fault names the file (DiskFault)
    return path

