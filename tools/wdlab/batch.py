"""batch: tools/lab grade-all NAME DIR: grade a class's submissions.

Every entry of DIR that is a tarball (.tar, .tar.gz, .tgz: make handin's) or a folder holding a
tree is one submission. Each is unpacked into build/grade-all/NAME/<submission>/tree with the
instructor's labs/, tests/ and tools/ (submit.unpack), built there, and graded by the
instructor's labs/NAME/grade with --results; the grader's whole output is kept beside it in
grade.log, its results.json too. Labs that compare with the reference design get the
instructor's own kernel (build/kernel.elf of this tree) as --reference-kernel. Submissions
are graded one at a time, each grader running one VM at a time; -j N grades N at once (a
larger host). The CSV (default DIR/grades-NAME.csv) has a row per submission: its name, score,
max_score, the points of each test (a column per test title), and `status`: graded, or why it could not be
(not a tree, the grader crashed). Exit 0 if every submission was graded, whatever its score;
1 if one could not be.
"""
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from . import handout, submit, tree
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


def grade_one(root, lab, sub, work, grader_args, results=None, log=None):
    """Unpack, build and grade one submission in work/tree; its CSV row. The grader's output
    goes to the file `log` (default: stdout), its results.json to `results` (default:
    work/results.json); one is written with score 0 and the reason if the submission could
    not be graded at all."""
    row = {"submission": sub.name, "score": "", "max_score": "", "status": ""}
    work.mkdir(parents=True, exist_ok=True)
    tree_dir = work / "tree"
    results = Path(results) if results else work / "results.json"
    results.unlink(missing_ok=True)
    try:
        named = submit.unpack(sub, tree_dir, root)
    except LabError as e:
        row["status"] = "not graded: %s" % e
        empty_results(results, row["status"])
        return row
    env = {k: v for k, v in os.environ.items() if k != "WDRAIN_NO_BUILD"}
    cmd = [sys.executable, str(tree_dir / "labs" / lab / "grade"), "--results", str(results)] + grader_args
    if log is None:
        sys.stdout.flush()
        subprocess.run(cmd, cwd=tree_dir, stdin=subprocess.DEVNULL, env=env)
    else:
        with open(log, "w") as f:
            subprocess.run(cmd, cwd=tree_dir, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    try:
        doc = json.loads(results.read_text())
    except (OSError, ValueError):
        row["status"] = "not graded: the grader wrote no results (see %s)" % (log or "its output")
        empty_results(results, row["status"])
        return row
    row["score"] = doc["score"]
    row["max_score"] = sum(t["max_score"] for t in doc["tests"])
    for t in doc["tests"]:
        row[t["name"]] = t["score"]
    row["status"] = "graded" + ("" if named in (None, lab) else " (its .lab says %s)" % named)
    return row


def empty_results(path, why):
    """A results.json for a submission that could not be graded: score 0 and the reason."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps({"score": 0, "output": why, "tests": []}, indent=1) + "\n")


def grade_all(root, lab, folder, jobs=1, out=None, quick=False, watchdog=None):
    if lab not in tree.labs(root):
        raise LabError("no lab '%s' (labs: %s)" % (lab, ", ".join(tree.labs(root))))
    if not Path(folder).is_dir():
        raise LabError("%s is not a folder of submissions" % folder)
    desc = tree.run_grader(root, lab, ["--describe"])
    out = Path(out) if out else Path(folder) / ("grades-%s.csv" % lab)
    subs = submissions(folder, out)
    if not subs:
        raise LabError("%s holds no submissions (tarballs or trees)" % folder)
    args = (["--quick"] if quick else []) + (["--watchdog", str(watchdog)] if watchdog else [])
    if desc["reference_kernel"]:
        ref = Path(root) / "build" / "grade-all" / lab / "reference-kernel.elf"
        handout.reference_kernel(root, ref)
        args += ["--reference-kernel", str(ref)]
    base = Path(root) / "build" / "grade-all" / lab
    print("tools/lab grade-all: %d submissions of lab %s, %d at a time; work folders in %s"
          % (len(subs), lab, jobs, base))
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grade_one, root, lab, s, base / _stem(s), args, log=base / _stem(s) / "grade.log"): s
                   for s in subs}
        for fut in concurrent.futures.as_completed(futures):
            row = fut.result()
            rows.append(row)
            print("  %s: %s" % (row["submission"], "%s/%s" % (row["score"], row["max_score"])
                                if row["status"].startswith("graded") else row["status"]))
            sys.stdout.flush()
    rows.sort(key=lambda r: r["submission"])
    titles = [t["title"] for t in desc["tests"]]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["submission", "score", "max_score"] + titles + ["status"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print("tools/lab grade-all: %s" % out)
    return 0 if all(r["status"].startswith("graded") for r in rows) else 1
