"""batch: grading submissions: tools/lab grade-one (Gradescope's run_autograder) and
tools/lab grade-all NAME DIR (a class's).

Every entry of DIR that is a tarball (.tar, .tar.gz, .tgz: make handin's) or a folder holding a
tree is one submission. Each is unpacked into work/submission and graded as every grade is
(grading.grade: the lab's FILES laid over the pristine handout in work/tree, built and graded
by the handout's grader); the grader's whole output is kept beside it in grade.log, its
results.json too. grade-all's handout is the instructor's (handout.base: the tree's own, with
its reference kernel); grade-one's is the one named by --base (Gradescope: the zip's source
folder), else the same. Submissions are graded one at a time, each grader running one VM at
a time; -j N grades N at once (a larger host). The CSV (default DIR/grades-NAME.csv) has a row
per submission: its name, score, max_score, the points of each test (a column per test title;
the written answers' column says how many questions were answered, for the staff who grade
them), and `status`: graded, or why it could not be (not a tree, the
grader wrote no results). Exit 0 if every submission was graded, whatever its score; 1 if one
could not be. --quick gives performance tests no points, so grade-all takes it only with
--dry-run (a rehearsal: its CSV says so).
"""
import concurrent.futures
import csv
import json
import sys
from pathlib import Path

from . import grading, handout, submit, tree
from .tree import LabError

TARBALLS = (".tar", ".tar.gz", ".tgz")


def submissions(folder, out):
    found = []
    for e in sorted(Path(folder).iterdir()):
        if e.resolve() == out.resolve() or e.name.startswith("."):
            continue
        if e.is_dir() or e.name.endswith(TARBALLS):
            found.append(e)
    return found


def _stem(path):
    name = path.name
    for suffix in TARBALLS:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def grade_one(base, lab, sub, work, grader_args, results=None, log=None, seed=None):
    """Unpack and grade one submission in work; its CSV row. results.json goes to `results`
    (default: work/results.json); one with score 0 and the reason is written if the
    submission could not be graded at all."""
    row = {"submission": sub.name, "score": "", "max_score": "", "status": ""}
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    results = Path(results) if results else work / "results.json"
    results.unlink(missing_ok=True)
    try:
        named = submit.unpack(sub, work / "submission")
    except LabError as e:
        row["status"] = "not graded: %s" % e
        empty_results(results, row["status"])
        return row
    grading.grade(base, lab, work / "submission", work, grader_args, results=results, log=log, seed=seed)
    try:
        doc = json.loads(results.read_text())
    except (OSError, ValueError):
        row["status"] = "not graded: the grader wrote no results (see %s)" % (log or "its output")
        empty_results(results, row["status"])
        return row
    row["score"] = doc["score"]
    row["max_score"] = sum(t["max_score"] for t in doc["tests"])
    for t in doc["tests"]:
        answered = t.get("extra_data", {}).get("answered")
        row[t["name"]] = t["score"] if answered is None else "%d/%d answered" % tuple(answered)
    row["status"] = "graded" + ("" if named in (None, lab) else " (its .lab says %s)" % named)
    return row


def empty_results(path, why):
    """A results.json for a submission that could not be graded: score 0 and the reason."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps({"score": 0, "output": why, "tests": []}, indent=1) + "\n")


def grade_all(root, lab, folder, jobs=1, out=None, grader_args=()):
    if lab not in tree.labs(root):
        raise LabError("no lab '%s' (labs: %s)" % (lab, ", ".join(tree.labs(root))))
    if not Path(folder).is_dir():
        raise LabError("%s is not a folder of submissions" % folder)
    desc = tree.describe(root, lab)
    out = Path(out) if out else Path(folder) / ("grades-%s.csv" % lab)
    subs = submissions(folder, out)
    if not subs:
        raise LabError("%s holds no submissions (tarballs or trees)" % folder)
    base = handout.base(root, lab)
    work = Path(root) / "build" / "grade-all" / lab
    print("tools/lab grade-all: %d submissions of lab %s, %d at a time; work folders in %s"
          % (len(subs), lab, jobs, work))
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grade_one, base, lab, s, work / _stem(s), list(grader_args),
                               log=work / _stem(s) / "grade.log", seed=Path(root) / "build"): s for s in subs}
        for fut in concurrent.futures.as_completed(futures):
            row = fut.result()
            rows.append(row)
            print("  %s: %s" % (row["submission"], "%s/%s" % (row["score"], row["max_score"])
                                if row["status"].startswith("graded") else row["status"]))
            sys.stdout.flush()
    rows.sort(key=lambda r: r["submission"])
    titles = [t["title"] for t in desc["tests"]]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["submission", "score", "max_score"] + titles + ["status"],
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print("tools/lab grade-all: %s" % out)
    return 0 if all(r["status"].startswith("graded") for r in rows) else 1
