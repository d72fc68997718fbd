"""mutants: checks of the graders (tools/lab mutants LAB [NAME...]; make test-labs runs them).

Every hint in a lab's README that names a failure has a mutation in labs/<lab>/mutations/: a
patch that puts exactly that failure into the lab's solution. The grader must see it:
tools/lab mutants lays the solution over the handout (as make grade does in the instructor's
tree), applies one patch at a time, and runs the grader's tests the mutation names, each of
which must FAIL. A mutation that passes one of them is a hole in the grader (or a hint the
grader cannot back up); the command says which and exits 1.

Beside these honest bugs (Kind: bug, the default) a lab keeps its cheats (Kind: cheat): a
submission that wants the points without the work (the stub kept and the test's checks
redefined, forged PASS lines, a test stopped early, a counter moved by hand). A cheat must
score no more than the untouched handout, that is 0 points, on every test it names: failing
with partial credit is not enough.

A mutation file, labs/<lab>/mutations/<name>.diff:
    Hint: the README's hint (or grading table line) whose failure this produces
    Fails: test-id [test-id ...]
    Kind: bug | cheat       (optional, default bug: a cheat must score 0 on each named test)
    Watchdog: SECS          (optional: the grader's --watchdog for this mutation)
    Within: SECS            (optional: each named test must fail within this many seconds of
                             its start: a hang must meet the watchdog when the README says)
    <a blank line, then a unified diff against the solution put back: --- a/path, +++ b/path>
Mutations hold solutions: they never go into a handout.

  load(path)                       a mutation's fields
  run(root, lab, names=None)       [(name, ok, lines)]: each mutation graded, ok if caught
"""
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from . import grading, handout
from .tree import LabError

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
KINDS = ("bug", "cheat")


@dataclass
class Mutation:
    name: str
    hint: str
    fails: list
    watchdog: float
    within: float
    diff: str
    kind: str = "bug"


def load(path):
    path = Path(path)
    head, sep, diff = path.read_text().partition("\n\n")
    fields = dict(ln.split(":", 1) for ln in head.split("\n") if ":" in ln)
    fields = {k.strip().lower(): v.strip() for k, v in fields.items()}
    if not sep or "fails" not in fields or "hint" not in fields or "--- a/" not in diff:
        raise LabError("%s: a mutation is Hint:, Fails: (and Kind:, Watchdog:, Within:), a blank line, then a "
                       "diff" % path)
    kind = fields.get("kind", "bug")
    if kind not in KINDS:
        raise LabError("%s: Kind: %s is neither of %s" % (path, kind, ", ".join(KINDS)))
    return Mutation(path.stem, fields["hint"], fields["fails"].split(),
                    float(fields["watchdog"]) if "watchdog" in fields else None,
                    float(fields["within"]) if "within" in fields else None, diff, kind)


def apply_diff(top, diff, name):
    """Apply a unified diff to the files under top. Each hunk's old lines must be in the file
    exactly; where the lines before it changed, it is found at the nearest place (as patch(1)
    finds an offset)."""
    for part in re.split(r"^--- a/", diff, flags=re.M)[1:]:
        lines = part.split("\n")
        rel = lines[0].strip()
        if len(lines) < 2 or not lines[1].startswith("+++ b/"):
            raise LabError("mutation %s: no +++ line after --- a/%s" % (name, rel))
        text = (Path(top) / rel).read_text().split("\n")
        out, at, i = [], 0, 2
        while i < len(lines) and HUNK_RE.match(lines[i]):
            stated = int(HUNK_RE.match(lines[i]).group(1)) - 1
            i += 1
            old, new = [], []
            while i < len(lines) and lines[i][:1] in (" ", "-", "+"):
                if lines[i][0] != "+":
                    old.append(lines[i][1:])
                if lines[i][0] != "-":
                    new.append(lines[i][1:])
                i += 1
            found = [k for k in range(at, len(text) - len(old) + 1) if text[k:k + len(old)] == old]
            if not found:
                raise LabError("mutation %s does not apply to %s near line %d: the solution changed (its "
                               "lines %r...)" % (name, rel, stated + 1, old[:2]))
            start = min(found, key=lambda k: abs(k - stated))
            out.extend(text[at:start])
            out.extend(new)
            at = start + len(old)
        out.extend(text[at:])
        (Path(top) / rel).write_text("\n".join(out))


def verdict_of(m, t):
    """(caught, what to say) for one test's result t (None if it did not run): a bug is caught
    when the test fails, a cheat only when it also scores 0."""
    if t is None:
        return False, "not run"
    if t["status"] != "failed":
        return False, "PASSED: the grader misses this mutation"
    if m.kind == "cheat" and t["score"] > 0:
        return False, "FAILED but scored %g of %g: a cheat must score nothing" % (t["score"], t["max_score"])
    return True, "FAILED%s, as it must" % (" with 0 points" if m.kind == "cheat" else "")


def run(root, lab, names=None, log=print):
    root = Path(root).resolve()
    folder = root / "labs" / lab / "mutations"
    paths = sorted(folder.glob("*.diff")) if folder.is_dir() else []
    if names:
        paths = [p for p in paths if p.stem in names]
    base = handout.base(root, lab, log)
    work = root / "build" / "labs" / lab / "mutants"
    done = []
    for p in paths:
        m = load(p)
        grading.overlay(base, lab, root, work, seed=root / "build")
        apply_diff(work / "tree", m.diff, m.name)
        args = m.fails + (["--watchdog", "%g" % m.watchdog] if m.watchdog else [])
        results = work / ("%s.json" % m.name)
        start = time.monotonic()
        grading.run(base, lab, work, args, "lab %s, mutation %s: %s" % (lab, m.name, m.hint), results=results,
                    log=work / ("%s.log" % m.name))
        secs = time.monotonic() - start
        lines, ok = [], True
        try:
            tests = {t["name"]: t for t in json.loads(results.read_text())["tests"]}
        except (OSError, ValueError):
            tests = {}
        ids = {t["id"]: t["title"] for t in grading.tree.describe(base, lab)["tests"]}
        for tid in m.fails:
            t = tests.get(ids.get(tid, tid))
            caught, verdict = verdict_of(m, t)
            ok = ok and caught
            lines.append("%s: %s" % (tid, verdict))
            took = (t or {}).get("extra_data", {}).get("seconds", 0)
            if caught and m.within is not None and took > m.within:
                ok = False
                lines.append("%s took %.0f s to fail, more than %g s" % (tid, took, m.within))
        log("tools/lab mutants: %s/%s (%.0f s): %s -- %s" % (lab, m.name, secs, "caught" if ok else "SURVIVED",
                                                            "; ".join(lines)))
        done.append((m.name, ok, lines, secs))
    return done
