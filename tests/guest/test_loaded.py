"""test_loaded: the loaded experiment (tools/experiment --load; docs/experiments.md "The loaded
experiment"), end to end in its small form.

H. Host-side, no VM: `--load all` plans the 2x2 of the two presets' halves first
   (speedup+twopass, speedup+onepass, runningbuf+twopass, runningbuf+onepass), then every other
   preset as BUF+SCAN; each pair boots the preset with its buf_daemon design and, if that
   preset's scan is the other one, the vm.* settings of a preset with that scan on the kernel
   command line; a name that is neither a preset nor such a pair, an unknown load part, and
   --load without the sampler are usage errors (exit 2); EXPERIMENT=loaded is --load all;
   load.window's figures on a synthetic record stream (rates over the records bracketing the
   dd, the hog's slowest pass of those overlapping it, the reader's slowest interval and hits).
1. `tools/experiment --quick --load all` at the two crossed points, speedup+onepass and
   runningbuf+twopass (so both scans, both buf_daemons and the boot overrides run; the presets
   themselves run in test_experiment's quick run): exit 0; each run booted its pair's designs (the
   sampler's #const lines); both scans laundered to swap over the whole loaded run (vm.whole.*: on
   a quiet host a 256 MiB dd is over in seconds and its clean pages may be all the scan needs) and
   at least as much as during the file dd; every load column of results.csv is there with a value
   for each run, and the reader's hits agree with its reads and disk reads; the hog and the reader
   ended without an error; the table has the load and pageout blocks with a row per design;
   hog-<id>.csv and reader-<id>.csv exist with times increasing; the pages and load plots and the
   comparison plots are PNGs. About 90-100 s alone.
"""
# tests/run: timeout=600 about=100
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
from exptest import experiment, is_png, make_experiment, read_csv  # noqa: E402
from wdexp import cli, load, report, series  # noqa: E402
from wdexp.plan import PRESETS, check_design, design_boot, design_name  # noqa: E402

T = TestSet("loaded")
tmp = Path(tempfile.mkdtemp(prefix="test_loaded-"))


# H. the plan, the designs, the usage errors, the window arithmetic
ap = cli.parser()
o = cli.options_from(ap, ap.parse_args(["--load", "all"]))
want = ["speedup+twopass", "speedup+onepass", "runningbuf+twopass", "runningbuf+onepass"]
T.check("--load all: the 2x2 of the post's presets' halves first, then every other preset",
        o.presets[:4] == want and o.presets[4:] == [design_name(p) for p in PRESETS if design_name(p) not in want]
        and o.load == ["hog", "reader"] and o.name == "loaded", expected=want + ["... perdevice+onepass"], got=o.presets)
T.check("the pairs that are presets boot as them", [design_boot(d) for d in ("speedup+twopass", "runningbuf+onepass")]
        == [("stable42", ""), ("patched", "")], expected="stable42, patched",
        got=[design_boot(d) for d in ("speedup+twopass", "runningbuf+onepass")])
T.check("a crossed pair boots its buf_daemon's preset with the other scan's vm.* settings",
        design_boot("speedup+onepass") == ("stable42", "vm.pageout_design=onepass vm.max_launder=0") and
        design_boot("runningbuf+twopass") == ("patched", "vm.pageout_design=twopass vm.max_launder=32"),
        expected="stable42 + onepass, max_launder 0; patched + twopass, max_launder 32",
        got=[design_boot("speedup+onepass"), design_boot("runningbuf+twopass")])
T.check("a name that is neither a preset nor BUF+SCAN is refused", check_design("speedup+threepass") and
        check_design("fast") and check_design("patched") is None, expected="two reasons, None",
        got=[check_design("speedup+threepass"), check_design("fast"), check_design("patched")])
for args, what in ((["--load", "hog,disk"], "an unknown part"), (["--load", "all", "--no-samples"], "no sampler"),
                   (["--presets", "speedup+threepass"], "a bad pair")):
    st, out, err = experiment(*args, "--out", str(tmp / "bad"))
    T.check("usage error: %s (exit 2, no folder)" % what, st == 2 and "usage:" in err and not (tmp / "bad").exists(),
            expected=2, got="%d %s" % (st, err[-200:]))
st, out, err = make_experiment("-n", "experiment", "WDRAIN_NO_BUILD=1", "EXPERIMENT=loaded", timeout=60)
T.check("make experiment EXPERIMENT=loaded runs tools/experiment --load all",
        any(" ".join(ln.split()).startswith("tools/experiment --load all ") for ln in out.splitlines()),
        expected="--load all",
        got=out[-300:] + err[-300:])

hog = series.split_stream("\n".join([
    "hog,#ready fill_us=5", "hog,t_us,touched,passes,slowest_pass_us",
    "hog,1000000,100,0,0", "hog,2000000,300,1,1500000", "hog,3000000,400,1,0", "hog,4000000,700,2,2500000",
    "hog,9000000,900,3,5000000"]))["hog"]
w = load.window("hog", hog, 1500000, 3500000)
T.check("load.window: the hog's rate over the records bracketing the dd, its slowest overlapping pass",
        w == {"secs": 3.0, "touched": 600, "passes": 2, "touched_per_s": 200.0, "slowest_pass_s": 2.5},
        expected="600 touches in 3 s; the passes of 1.5 and 2.5 s overlap it, the 5 s one began after it",
        got=w)
rd = series.split_stream("\n".join([
    "reader,t_us,reads,disk_reads,inblock,max_read_us",
    "reader,0,0,0,0,0", "reader,500000,1000,100,120,900", "reader,1000000,1200,300,330,7000",
    "reader,1500000,2200,350,380,100"]))["reader"]
w = load.window("reader", rd, 0, 1500000)
T.check("load.window: the reader's reads/s, slowest interval, slowest read and hits",
        w == {"secs": 1.5, "reads": 2200, "disk_reads": 350, "inblock": 380, "reads_per_s": 1466.7,
              "slowest_interval_rps": 400.0, "max_read_ms": 7.0, "hit_pct": 84.09},
        expected="2200 reads, 350 from disk (84.09% hits), 200 reads in the slowest 0.5 s", got=w)

# 1. the small form, at the two crossed points
q = tmp / "q"
points = ["speedup+onepass", "runningbuf+twopass"]
st, out, err = experiment("--quick", "--load", "all", "--presets", ",".join(points), "--out", str(q), timeout=500)
T.check("tools/experiment --quick --load all: exit 0", st == 0, expected=0, got="%d %s" % (st, err[-600:]))
rows = read_csv(q / "results.csv") if (q / "results.csv").exists() else []
by = {r["preset"]: r for r in rows}
T.check("a run per design, each ok", sorted(by) == sorted(points) and all(r["status"] == "ok" for r in rows),
        expected=points, got=[(r["preset"], r["status"], r["error"]) for r in rows])
for d in points:
    r = by.get(d, {})
    rj = q / "runs" / ("%s-1" % d) / "run.json"
    res = json.loads(rj.read_text()) if rj.exists() else {}
    consts = res.get("samples", {}).get("file", {}).get("const", {})
    buf, scan = d.split("+")
    T.check("%s: the guest ran those designs" % d, consts.get("vfs.bufdaemon_design") == buf and
            consts.get("vm.pageout_design") == scan, expected=(buf, scan), got=consts)
    empty = [c for c in report.LOAD_COLS if r.get(c) in (None, "")]
    T.check("%s: every load column has a value" % d, r and not empty, expected="all of %s" % report.LOAD_COLS,
            got=empty or r)
    if empty:
        continue
    T.check("%s: the %s scan launders under the load, to swap (over the whole loaded run: a short dd's own "
            "window may need none, its clean pages enough)" % (d, scan),
            int(r["vm.whole.laundered"]) > 0 and int(r["vm.whole.swap_out"]) > 0 and
            int(r["vm.whole.laundered"]) >= int(r["vm.laundered"]) and int(r["laundered"]) == int(r["vm.laundered"]),
            expected="whole-run laundered > 0, swap out > 0, at least the dd's",
            got=(r["vm.whole.laundered"], r["vm.whole.swap_out"], r["vm.laundered"], r["laundered"]))
    reads, disk = int(r["reader.reads"]), int(r["reader.disk_reads"])
    T.check("%s: the reader's hits are its reads that went to no disk" % d,
            reads > 0 and 0 <= disk <= reads and abs(float(r["reader.hit_pct"]) - 100.0 * (reads - disk) / reads) < 0.01,
            expected="hit_pct = (reads - disk reads) / reads", got=(reads, disk, r["reader.hit_pct"]))
    T.check("%s: the hog touched pages and timed a pass; the pagedaemon ran" % d,
            float(r["hog.touched_per_s"]) > 0 and float(r["hog.slowest_pass_s"]) > 0 and int(r["vm.pd_wakeups"]) > 0
            and float(r["cpu.pagedaemon_s"]) > 0, expected="> 0",
            got=(r["hog.touched_per_s"], r["hog.slowest_pass_s"], r["vm.pd_wakeups"], r["cpu.pagedaemon_s"]))
    ends = {p: res.get("load", {}).get("file", {}).get(p) for p in ("hog", "reader")}
    T.check("%s: the load ran through both dds" % d, all(ends.values()) and
            all(res.get("load", {}).get("smooth", {}).get(p) for p in ("hog", "reader")), expected="hog, reader",
            got=res.get("load"))
    for part in ("hog", "reader"):
        csv_path = q / ("%s-%s-1.csv" % (part, d))
        t = [float(x["t_s"]) for x in read_csv(csv_path)] if csv_path.exists() else []
        T.check("%s: %s with increasing times" % (d, csv_path.name), len(t) > 2 and all(b > a for a, b in zip(t, t[1:])),
                expected="increasing", got=t[:6])
    for name in ("pages", "load", "queue"):
        png = q / ("plot-%s-%s.png" % (d, name))
        T.check("%s: %s is a plot" % (d, png.name), png.exists() and is_png(png), expected="PNG", got=png.exists())
summary = (q / "summary.txt").read_text() if (q / "summary.txt").exists() else ""
blocks = [ln for ln in summary.splitlines() if ln.startswith(("load beside the file dd", "pageout during the file dd"))]
rows_in = [ln.split()[0] for ln in summary.splitlines() if ln.split() and ln.split()[0] in points]
T.check("the table has the load and pageout blocks, a row per design in each",
        len(blocks) == 2 and all(rows_in.count(d) >= 5 for d in points), expected="2 blocks",
        got=summary[-1500:])
for name in ("hog", "reader", "free", "rate"):
    png = q / ("plot-compare-%s.png" % name)
    T.check("%s is a plot" % png.name, png.exists() and is_png(png), expected="PNG", got=png.exists())

shutil.rmtree(tmp, ignore_errors=True)
T.done()
