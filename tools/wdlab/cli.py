"""cli: tools/lab's command line (see tools/lab's docstring). Exit 0 on success, 1 when a
check, a grade or a grade-all submission failed, 2 for a bad command line or a LabError."""
import argparse
import sys
from pathlib import Path

from . import batch, gradescope, grading, handout, markers, mutants, sequence, submit, tree
from .tree import LabError, ROOT


def cmd_list(ns):
    for lab in tree.labs(ROOT):
        d = tree.describe(ROOT, lab)
        staff = sum(t.get("staff_points", 0) for t in d["tests"])
        print("%s (%g points by its grader%s%s%s): its handout is README.md in labs/%s"
              % (lab, d["max_score"], ", %g for written answers, graded by the staff" % staff if staff else "",
                 ", needs the reference kernel" if d["reference_kernel"] else "",
                 ", requires lab %s" % ", ".join(d["requires"]) if d.get("requires") else "", lab))
        for t in d["tests"]:
            print("  %-14s %3g  %s" % (t["id"], t["points"] or t.get("staff_points", 0), t["title"]))
    return 0


def cmd_check(ns):
    regions, problems = tree.check(ROOT)
    for p in problems:
        print("tools/lab check: " + p)
    if problems:
        return 1
    for lab in tree.labs(ROOT):
        mine = {p: [r for r in rs if r.lab == lab] for p, rs in regions.items()}
        mine = {p: rs for p, rs in mine.items() if rs}
        print("%s: %d regions in %s" % (lab, sum(len(rs) for rs in mine.values()),
                                        ", ".join("%s (%d)" % (p, len(rs)) for p, rs in sorted(mine.items())) or "no file"))
    return 0


def cmd_handout(ns):
    handout.make_handout(ROOT, ns.name, Path(ns.dir))
    return 0


def cmd_next(ns):
    sequence.next_lab(ROOT, ns.name, ns.source)
    return 0


def cmd_handin(ns):
    submit.handin(ROOT, Path(ns.out) if ns.out else None)
    return 0


def _grader_args(ns):
    return ((["--quick"] if ns.quick else []) + (["--watchdog", str(ns.watchdog)] if ns.watchdog else []) +
            list(ns.only or []))


def cmd_grade(ns):
    own = submit.lab_of(ROOT)
    lab = ns.name or own
    if lab is None:
        raise LabError("say which lab: tools/lab grade NAME (labs: %s)" % ", ".join(tree.labs(ROOT)))
    if own is not None and lab != own:
        raise LabError("this tree is lab %s's handout: it grades lab %s (tools/lab next %s brings lab %s in)"
                       % (own, own, lab, lab))
    if own is None:
        base, work, seed = handout.base(ROOT, lab), ROOT / "build" / "labs" / lab / "restored", ROOT / "build"
    else:
        base, work, seed = grading.student_base(ROOT, lab), ROOT / "build" / "grade" / lab, None
    return grading.grade(base, lab, ROOT, work, ns.args, seed=seed)


def cmd_grade_all(ns):
    if ns.quick and not ns.dry_run:
        raise LabError("--quick gives performance tests no points: a class graded with it would lose them. "
                       "Add --dry-run to rehearse grade-all quickly (its CSV is not a grade)")
    return batch.grade_all(ROOT, ns.name, Path(ns.dir), jobs=ns.jobs, out=Path(ns.out) if ns.out else None,
                           grader_args=_grader_args(ns))


def cmd_grade_one(ns):
    base = Path(ns.base) if ns.base else handout.base(ROOT, ns.name)
    row = batch.grade_one(base, ns.name, Path(ns.submission), Path(ns.work), _grader_args(ns),
                          results=Path(ns.results))
    if not row["status"].startswith("graded"):
        print("tools/lab grade-one: " + row["status"])
        return 1
    return 0


def cmd_mutants(ns):
    labs = [ns.name] if ns.name != "all" else tree.labs(ROOT)
    done = [r for lab in labs for r in mutants.run(ROOT, lab, ns.names or None)]
    survived = [name for name, ok, _, _ in done if not ok]
    print("tools/lab mutants: %d mutations, %d caught%s" % (len(done), len(done) - len(survived),
                                                           ", survived: " + " ".join(survived) if survived else ""))
    return 1 if survived else 0


def cmd_gradescope(ns):
    gradescope.make_zip(ROOT, ns.name, Path(ns.out) if ns.out else None)
    return 0


def _grading_options(p):
    p.add_argument("--quick", action="store_true",
                   help="the graders' --quick: performance tests run once and score no points")
    p.add_argument("--watchdog", type=float, metavar="SECS", help="the graders' --watchdog")
    p.add_argument("--only", action="append", metavar="TEST", help="grade only this test (repeatable)")


def parser():
    ap = argparse.ArgumentParser(prog="tools/lab", description="Hand out, check, collect and grade the labs "
                                 "(labs/README.md).")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    sub.add_parser("list", help="the labs, their tests and points").set_defaults(fn=cmd_list)
    sub.add_parser("check", help="every lab marker well-formed").set_defaults(fn=cmd_check)
    p = sub.add_parser("handout", help="a lab's student tree: a new git repository, or a new commit on an "
                       "earlier lab's handout repository")
    p.add_argument("name")
    p.add_argument("dir")
    p.set_defaults(fn=cmd_handout)
    p = sub.add_parser("next", help="in a student's tree: merge the next lab's handout in, on a new branch")
    p.add_argument("name")
    p.add_argument("source", nargs="?", help="the course's handout repository (a URL or a folder); "
                   "default: the one the last tools/lab next used (git remote `handout`)")
    p.set_defaults(fn=cmd_next)
    p = sub.add_parser("grade", help="grade this tree's work as the autograder does (make grade)")
    p.add_argument("name", nargs="?", help="the lab (default: this handout's own)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the grader's tests and options (labs/NAME/grade -h)")
    p.set_defaults(fn=cmd_grade)
    p = sub.add_parser("handin", help="in a student's tree: the tarball to hand in")
    p.add_argument("--out", metavar="FILE", help="default: handin-<lab>.tar.gz in the tree")
    p.set_defaults(fn=cmd_handin)
    p = sub.add_parser("grade-all", help="grade every submission of a folder, a CSV of scores")
    p.add_argument("name")
    p.add_argument("dir", help="the submissions: tarballs from make handin, or trees")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="submissions graded at once (each runs one VM at a time; default 1)")
    p.add_argument("--out", metavar="CSV", help="default: DIR/grades-<lab>.csv")
    p.add_argument("--dry-run", action="store_true", help="a rehearsal: allows --quick")
    _grading_options(p)
    p.set_defaults(fn=cmd_grade_all)
    p = sub.add_parser("grade-one", help="grade one submission (Gradescope's run_autograder uses it)")
    p.add_argument("name")
    p.add_argument("submission", help="a tarball, a tree, or a folder holding one tarball")
    p.add_argument("--results", required=True, metavar="FILE", help="where results.json goes")
    p.add_argument("--work", default="build/grade-one", metavar="DIR", help="where the submission is graded")
    p.add_argument("--base", metavar="DIR", help="the lab's handout to grade on (default: this tree's, generated)")
    _grading_options(p)
    p.set_defaults(fn=cmd_grade_one)
    p = sub.add_parser("mutants", help="check a lab's grader: each mutation of labs/NAME/mutations must fail it")
    p.add_argument("name", help="a lab, or all")
    p.add_argument("names", nargs="*", metavar="MUTATION", help="only these (default: every one)")
    p.set_defaults(fn=cmd_mutants)
    p = sub.add_parser("gradescope", help="the Gradescope autograder zip")
    p.add_argument("name")
    p.add_argument("--out", metavar="ZIP", help="default: build/gradescope-<lab>.zip")
    p.set_defaults(fn=cmd_gradescope)
    return ap


def main(argv=None):
    ap = parser()
    ns = ap.parse_args(argv)
    if getattr(ns, "jobs", 1) < 1:
        ap.error("-j must be at least 1")
    try:
        return ns.fn(ns)
    except (LabError, markers.MarkerError) as e:
        sys.stderr.write("tools/lab: %s\n" % e)
        return 2
