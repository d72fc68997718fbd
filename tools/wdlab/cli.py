"""cli: tools/lab's command line (see tools/lab's docstring). Exit 0 on success, 1 when a
check or a grade-all submission failed, 2 for a bad command line or a LabError."""
import argparse
import sys
from pathlib import Path

from . import batch, gradescope, handout, markers, submit, tree
from .tree import LabError, ROOT


def cmd_list(ns):
    for lab in tree.labs(ROOT):
        d = tree.run_grader(ROOT, lab, ["--describe"])
        print("%s (%g points%s): its handout is README.md in labs/%s" % (lab, d["max_score"],
              ", needs the reference kernel" if d["reference_kernel"] else "", lab))
        for t in d["tests"]:
            print("  %-14s %3g  %s" % (t["id"], t["points"], t["title"]))
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


def cmd_handin(ns):
    submit.handin(ROOT, Path(ns.out) if ns.out else None)
    return 0


def cmd_grade_all(ns):
    return batch.grade_all(ROOT, ns.name, Path(ns.dir), jobs=ns.jobs, out=Path(ns.out) if ns.out else None,
                           quick=ns.quick, watchdog=ns.watchdog)


def cmd_grade_one(ns):
    args = (["--quick"] if ns.quick else []) + (["--reference-kernel", ns.reference_kernel] if ns.reference_kernel else [])
    row = batch.grade_one(ROOT, ns.name, Path(ns.submission), Path(ns.work), args, results=Path(ns.results))
    if not row["status"].startswith("graded"):
        print("tools/lab grade-one: " + row["status"])
        return 1
    return 0


def cmd_gradescope(ns):
    gradescope.make_zip(ROOT, ns.name, Path(ns.out) if ns.out else None)
    return 0


def parser():
    ap = argparse.ArgumentParser(prog="tools/lab", description="Hand out, check, collect and grade the labs "
                                 "(labs/README.md).")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    sub.add_parser("list", help="the labs, their tests and points").set_defaults(fn=cmd_list)
    sub.add_parser("check", help="every lab marker well-formed").set_defaults(fn=cmd_check)
    p = sub.add_parser("handout", help="a lab's student tree, as a new git repository")
    p.add_argument("name")
    p.add_argument("dir")
    p.set_defaults(fn=cmd_handout)
    p = sub.add_parser("handin", help="in a student's tree: the tarball to hand in")
    p.add_argument("--out", metavar="FILE", help="default: handin-<lab>.tar.gz in the tree")
    p.set_defaults(fn=cmd_handin)
    p = sub.add_parser("grade-all", help="grade every submission of a folder, a CSV of scores")
    p.add_argument("name")
    p.add_argument("dir", help="the submissions: tarballs from make handin, or trees")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="submissions graded at once (each runs one VM at a time; default 1)")
    p.add_argument("--out", metavar="CSV", help="default: DIR/grades-<lab>.csv")
    p.add_argument("--quick", action="store_true", help="the graders' --quick (performance bands not graded)")
    p.add_argument("--watchdog", type=float, metavar="SECS", help="the graders' --watchdog")
    p.set_defaults(fn=cmd_grade_all)
    p = sub.add_parser("grade-one", help="grade one submission (Gradescope's run_autograder uses it)")
    p.add_argument("name")
    p.add_argument("submission", help="a tarball, a tree, or a folder holding one tarball")
    p.add_argument("--results", required=True, metavar="FILE", help="where results.json goes")
    p.add_argument("--work", default="build/grade-one", metavar="DIR", help="where the tree is unpacked")
    p.add_argument("--reference-kernel", metavar="FILE", help="the reference kernel for the grader")
    p.add_argument("--quick", action="store_true", help="the grader's --quick")
    p.set_defaults(fn=cmd_grade_one)
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
