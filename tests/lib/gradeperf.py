"""gradeperf: performance grading that survives a noisy host (used through gradelib's t.compare).

A performance test never grades an absolute speed: the host's load, TCG and other VMs move
those by tens of percent. It runs the student's design (the subject) and a baseline in the
same grader run, alternating baseline, subject, baseline, subject..., at least TRIALS times
each, and grades the ratio of their medians, subject / baseline, against a band:

    t.compare(subject=("ccd0 (2 disks)", trial_fn), baseline=("da1 alone", trial_fn),
              metrics=[Metric("MB/s", lo=1.8)], trials=3)

A trial function takes the trial number (1, 2, ...) and returns {metric name: value}. The
baseline is whatever the lab compares with: one disk against the stripe, the reference kernel
against the student's (t.guest(reference=True)). Metric(name, lo=None, hi=None, floor=0.05,
cap=CAP, graded=True, unit="", order="desc") is graded by ratio = median(subject) /
median(baseline) in [lo x (1 - tol), hi x (1 + tol)] (None: no bound on that side), where tol
is the baseline's own spread in this run, (max - min) / median of its trials, and at least
`floor` (a metric that does not vary at all still gets a little room). So the band widens
exactly as much as the host made the baseline wander, and no more. If the baseline's spread
is over the metric's cap (the host may have been too noisy to say anything; a metric that
varies by nature, such as a count that depends on timing, gets a larger cap), the verdict is
taken only where the noise cannot change it: the subject's median against every baseline
trial inside the unwidened band is a pass, against every one outside it a fail (`decided`).
Otherwise pairs of trials are added, up to MAX_TRIALS each; if the spread is still over and
the verdict still open, the test FAILs saying the host is too noisy rather than pass or fail
on noise. widen=False is for a baseline that varies by its nature, not the host's (the patch's
writer on a fast disk beside a slow one runs at 8-21 MB/s on a quiet host): the band is not
widened and there is no cap; such a metric's band must leave room for that variation, and
its test should run more trials so that the medians are stable. graded=False: shown and put on the leaderboard only (a time, where the lab
grades counts).

Every trial is shown (a line per pair), then per metric the medians, the ratio and the band.
With --quick one pair runs and the numbers are shown, but the band is not graded, so the test
scores 0 ("NOT GRADED"): that mode only checks that the performance test runs and reports
(make test uses it). The subject's medians go to the leaderboard.

An instructor sets a band on their own hardware by running the grader on the full tree
(labs/README.md, "Performance bands"): the ratio there is the reference's against itself
(or the lab's fixed target), and the printed tol is that host's noise.
"""
import statistics
from dataclasses import dataclass

TRIALS = 3
MAX_TRIALS = 7
CAP = 0.25


class Fail(Exception):
    """A test failed: the message says why (one or more lines). gradelib exports it as gradelib.Fail."""


@dataclass
class Metric:
    name: str
    lo: float = None
    hi: float = None
    floor: float = 0.05
    cap: float = CAP             # a baseline spread over this is "too noisy to grade"
    widen: bool = True           # False: the band is not widened and there is no cap (see compare)
    graded: bool = True          # False: shown and on the leaderboard only
    unit: str = ""
    order: str = "desc"          # leaderboard order: desc = higher is better


def spread(values):
    """(max - min) / median; 0 for fewer than two values or a zero median."""
    if len(values) < 2:
        return 0.0
    med = statistics.median(values)
    return (max(values) - min(values)) / abs(med) if med else 0.0


def _fmt(v):
    return "%.3g" % v if isinstance(v, float) else str(v)


def _trial(fn, i, label, metrics):
    vals = fn(i)
    missing = [m.name for m in metrics if m.name not in vals or vals[m.name] is None]
    if missing:
        raise Fail("%s, trial %d, reported no %s" % (label, i, ", ".join(missing)))
    return vals


def band(metric, tol):
    lo = None if metric.lo is None else metric.lo * (1 - tol)
    hi = None if metric.hi is None else metric.hi * (1 + tol)
    return lo, hi


def _band_text(lo, hi):
    return "[%s, %s]" % ("-" if lo is None else "%.3f" % lo, "-" if hi is None else "%.3f" % hi)


def decided(metric, smed, bv):
    """'pass' if the subject's median is inside the unwidened band against every baseline
    trial, 'fail' if outside it against every one, else None (the baseline's noise decides)."""
    ratios = [smed / b if b else float("inf") for b in bv]
    inside = [(metric.lo is None or r >= metric.lo) and (metric.hi is None or r <= metric.hi) for r in ratios]
    if all(inside):
        return "pass"
    if not any(inside):
        return "fail"
    return None


def compare(t, subject, baseline, metrics, trials=TRIALS):
    """Run and grade (see the module comment); returns {metric: (subject median, baseline median)}."""
    (slabel, sfn), (blabel, bfn) = subject, baseline
    n = 1 if t.quick else max(trials, TRIALS)
    runs = {"s": [], "b": []}

    def pair(i):
        b = _trial(bfn, i, blabel, metrics)
        s = _trial(sfn, i, slabel, metrics)
        runs["b"].append(b)
        runs["s"].append(s)
        t.show("trial %d: %s: %s | %s: %s" % (i, blabel, ", ".join("%s %s" % (m.name, _fmt(b[m.name])) for m in metrics),
                                              slabel, ", ".join("%s %s" % (m.name, _fmt(s[m.name])) for m in metrics)))

    for i in range(1, n + 1):
        pair(i)

    def too_noisy():
        return [m for m in metrics if m.graded and m.widen and spread([r[m.name] for r in runs["b"]]) > m.cap and
                not decided(m, statistics.median([r[m.name] for r in runs["s"]]), [r[m.name] for r in runs["b"]])]

    while not t.quick and too_noisy() and len(runs["b"]) < MAX_TRIALS:
        m = too_noisy()[0]
        t.show("the baseline's %s spread %.0f%% > %.0f%%: one more pair"
               % (m.name, 100 * spread([r[m.name] for r in runs["b"]]), 100 * m.cap))
        pair(len(runs["b"]) + 1)
    out, bad = {}, []
    for m in metrics:
        sv, bv = [r[m.name] for r in runs["s"]], [r[m.name] for r in runs["b"]]
        smed, bmed = statistics.median(sv), statistics.median(bv)
        out[m.name] = (smed, bmed)
        t.leaderboard("%s %s" % (slabel, m.name), smed, m.order)
        ratio = smed / bmed if bmed else float("inf")
        tol = max(m.floor, spread(bv)) if m.widen else 0.0
        lo, hi = band(m, tol)
        line = "%s: median %s %s%s vs %s %s%s: ratio %.3f" % (m.name, slabel, _fmt(smed), m.unit, blabel, _fmt(bmed),
                                                              m.unit, ratio)
        if not m.graded:
            t.show(line + " (not graded)")
            continue
        if t.quick:
            t.show(line + " (quick mode: the band %s is not graded)" % _band_text(*band(m, m.floor)))
            t.not_graded = True
            continue
        if m.widen:
            t.show(line + "; band %s: %s widened by %.1f%% (the baseline's spread, at least %g%%)"
                   % (_band_text(lo, hi), _band_text(m.lo, m.hi), 100 * tol, 100 * m.floor))
        else:
            t.show(line + "; band %s, not widened (the baseline varies by nature: its trials spread %.0f%%)"
                   % (_band_text(lo, hi), 100 * spread(bv)))
        verdict = decided(m, smed, bv)
        noisy = m.widen and spread(bv) > m.cap
        if noisy and verdict == "pass":
            t.show("%s: the baseline's trials spread %.0f%% (over %.0f%%), but the subject's median is inside %s "
                   "against every one of them" % (m.name, 100 * spread(bv), 100 * m.cap, _band_text(m.lo, m.hi)))
        elif noisy and verdict == "fail":
            bad.append("%s: ratio %.3f outside the band %s against every one of the baseline's trials (they spread "
                       "%.0f%%)" % (m.name, ratio, _band_text(m.lo, m.hi), 100 * spread(bv)))
        elif noisy:
            bad.append("%s: the baseline's trials spread %.0f%% (over %.0f%%) even after %d trials: the host is too "
                       "noisy to grade this; run the grader again when it is quieter"
                       % (m.name, 100 * spread(bv), 100 * m.cap, len(bv)))
        elif (lo is not None and ratio < lo) or (hi is not None and ratio > hi):
            bad.append("%s: ratio %.3f outside the band %s" % (m.name, ratio, _band_text(lo, hi)))
    if bad:
        raise Fail("\n".join(bad))
    return out
