"""test_experiment: make experiment and tools/experiment end to end, with sane values, no thresholds.

H. Host-side, no VM: --sweep's axes parsed into the plan (a sysctl, disk.<param>, openings, mem,
   preset; bad values and conflicts refused with a usage error); which trials are suspect
   (trust.assess: late disk replies over 1% of the file dd's, a guest CPU idle under 1%) and
   that the medians leave them out, count them when all are suspect, and with --keep-suspect.
0. make -n experiment with every variable of tools/experiment.mk: each becomes its flag.
1. `make experiment EXPERIMENT=quick OUT=DIR` (every preset, 1 trial, 64 MiB), as CI runs it:
   make runs `tools/experiment --quick ... --out DIR` and, with tests/run's WDRAIN_NO_BUILD=1,
   neither install-deps nor a build first; exit 0; summary.txt has the seed-style
   table with a positive B/s for each preset, the raw ceiling and the ratio; results.csv has one
   row per trial with positive throughputs; results.json parses and agrees; manifest.txt names
   the git revision, QEMU and the host; each samples CSV has increasing times and about
   duration / interval rows, and the disks' byte counters; each run has its trust figures (the
   guest's idle share, the disk models' replies and late ones during the file dd, the host's
   load and CPU use, host-<id>.csv) and the table its per-trial block; the dd's synchronous I/O
   (at least the 5 new indirect blocks 64 MiB need, written synchronously) and the data disks'
   host and drive queues are in results.csv (the host queue the one the samples' depth_ns and
   active_ns integrals give) and the table; the probe ran beside its own second
   dd, sampled too, and its CSV has latencies; every probe read went to the root disk (its read
   count grew by at least the probes' number during that dd); every plot docs/harness.md
   lists for a run without a sweep is a PNG file (PER_PRESET for each preset, COMPARE for all);
   --gather of the folder writes the same table again, --replot the same plots; --publish copies
   its text outputs and comparison plots, and a table printed from them passes
   publish.check_table while one with a figure changed does not (tests/host/test_results.py
   checks the same on a synthetic run, and the book's tables).
2. A bad option: a usage message and exit status 2, and no folder.
3. A trial made to fail (a --setup command that exits 1 in one preset): exit status 1, the run is FAILED in summary.txt and in
   results.csv with the reason, and the other run of the same experiment still has its result.
4. A sweep run two at a time (-j 2) over a sysctl, a disk-model parameter and the preset: one run
   per value, each value in effect (the sysctl in the guest, the model's tags in its statistics),
   groups.csv with one row per point, a sweep plot per axis.
5. EXPERIMENT=mixed makes two experiments on da1 scsi10k + da2 ide7200 (make -n), and --layout
   separate runs a dd on each disk's own file system at once: each writer's B/s in results.csv,
   in groups.csv (writer.DISK_Bps and its min and max) and in the table's writer block (test_disks checks that each disk gets its own preset).
"""
# tests/run: timeout=600 about=65
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
from exptest import experiment, is_png, make_experiment, read_csv  # noqa: E402
from wdexp import cli, publish, report, trust  # noqa: E402
from wdexp.plan import PRESETS, SEED_BPS, Options, make_plan  # noqa: E402

# The plots docs/harness.md ("The plots") lists: plot-<preset>-<name>.png per preset and
# plot-compare-<name>.png for both.
PER_PRESET = ("rate", "dirty", "running", "vm", "queue", "syncio", "perdevice", "blocked", "probe")
COMPARE = ("rate", "dirty", "running", "free", "blocked", "syncio", "probe-stat", "probe-read", "probe-write")
T = TestSet("experiment")
tmp = Path(tempfile.mkdtemp(prefix="test_experiment-"))


def check_samples(path, interval_s):
    rows = read_csv(path)
    t = [float(r["t_s"]) for r in rows]
    T.check("%s: sample times increase" % path.name, len(t) > 2 and all(b > a for a, b in zip(t, t[1:])),
            expected="increasing", got=t[:8])
    if len(t) > 2:
        expect = (t[-1] - t[0]) / interval_s
        T.check("%s: about duration / interval samples" % path.name, 0.6 * expect <= len(t) - 1 <= 1.4 * expect + 1,
                expected="about %.0f" % expect, got=len(t) - 1)
    T.check("%s: the stripe's byte counter is sampled" % path.name,
            rows and "kern.devstat.ccd0.bytes_written" in rows[0] and "rate.dd" in rows[0],
            expected="kern.devstat.ccd0.bytes_written, rate.dd", got=list(rows[0])[:6] if rows else None)
    return rows


def host_queue(rows, disks):
    """The requests waiting in the disks' own queues, on average over the samples' span: each
    disk's growth of kern.devstat.<disk>.depth_ns less that of active_ns, over the span, averaged
    over the disks (None if a counter is missing)."""
    span = float(rows[-1]["t_s"]) - float(rows[0]["t_s"])
    per = []
    for d in disks:
        grew = {k: int(rows[-1]["kern.devstat.%s.%s" % (d, k)]) - int(rows[0]["kern.devstat.%s.%s" % (d, k)])
                for k in ("depth_ns", "active_ns") if "kern.devstat.%s.%s" % (d, k) in rows[0]}
        if len(grew) < 2 or span <= 0:
            return None
        per.append(round((grew["depth_ns"] - grew["active_ns"]) / 1e9 / span, 2))
    return round(sum(per) / len(per), 2)


def failed_runs(folder):
    """Why each failed run of an experiment folder failed: its error and the end of its console,
    where a timeout's ^P dump is (tools/wdrun/errors.py, GuestTimeout), so a failure in CI can
    be read from the log."""
    why = []
    for path in sorted(folder.glob("runs/*/run.json")):
        r = json.loads(path.read_text())
        if r.get("status") != "ok":
            why.append("%s: %s\n%s" % (r.get("id"), r.get("error"), "\n".join(r.get("console_tail", [])[-60:])))
    return "\n".join(why)


# H. host-side: the sweep's axes, and suspect trials
def parse(*args):
    """tools/experiment's options from args, or the usage error's text."""
    ap = cli.parser()
    ap.error = lambda msg: (_ for _ in ()).throw(ValueError(msg))
    try:
        return cli.options_from(ap, ap.parse_args(list(args)))
    except ValueError as e:
        return str(e)


o = parse("--trials", "1", "--sweep", "disk.qdepth=1,8", "--sweep", "openings=2,8", "--sweep", "mem=64", "--sweep",
          "preset=patched", "--sweep", "vfs.hirunningspace=524288")
plan = make_plan(o, tmp / "plan", {}) if isinstance(o, Options) else None
T.check("--sweep: disk.<param>, openings, mem, preset and a sysctl make one grid",
        plan is not None and o.presets == ["patched"] and len(plan.runs) == 4 and plan.runs[0].point ==
        {"disk.qdepth": "1", "openings": "2", "mem": "64", "vfs.hirunningspace": "524288"},
        expected="4 runs of patched, points without the preset", got=o if plan is None else plan.runs[0])
for args, want in ((("--sweep", "disk.qdepth=0,8"), "qdepth must be 1..256"),
                   (("--sweep", "disk.colour=red"), "unknown parameter 'colour'"),
                   (("--throttle", "30", "--sweep", "disk.qdepth=1"), "needs modelled disks"),
                   (("--sweep", "preset=stable42,floppy"), "'floppy' is not a preset"),
                   (("--presets", "patched", "--sweep", "preset=patched"), "give one"),
                   (("--sweep", "openings=0"), "positive whole numbers"),
                   (("--sweep", "mem=4"), "at least 8 MB"),
                   (("--set", "disk.qdepth=8"), "goes in --disk-model")):
    got = parse(*args)
    T.check("--sweep/--set %s refused" % " ".join(args), isinstance(got, str) and want in got, expected=want, got=got)


def fake_run(rid, preset, bps, late_pct=0.0, idle_ns=5e9, status="ok"):
    r = {"id": rid, "preset": preset, "trial": 1, "point": {}, "status": status, "file": {"Bps": bps},
         "disk_phases": {"file": {"replies": 1000, "late_replies": int(late_pct * 10), "late_pct": late_pct}},
         "samples": {"file": {"duration_s": 10.0, "first": {"hw.ncpu": 1}, "delta": {"kern.cp_idle_ns": idle_ns}}}}
    r["suspect"] = trust.assess(r)
    return r


runs = [fake_run("a", "stable42", 50e6), fake_run("b", "stable42", 10e6, late_pct=2.5),
        fake_run("c", "stable42", 90e6, idle_ns=0.05e9), fake_run("d", "patched", 20e6, late_pct=1.5),
        fake_run("e", "patched", 30e6, idle_ns=0)]
T.check("suspect: late replies over 1% of the file dd's, and a guest idle under 1% of it",
        [bool(r["suspect"]) for r in runs] == [False, True, True, True, True]
        and "late replies" in runs[1]["suspect"][0] and "CPU-bound" in runs[2]["suspect"][0],
        expected="a ok; b late; c CPU-bound; d, e suspect", got=[(r["id"], r["suspect"]) for r in runs])
T.check("a failed run is not assessed", trust.assess(dict(runs[1], status="failed")) == [], expected=[],
        got=trust.assess(dict(runs[1], status="failed")))
plan = make_plan(Options(trials=3), tmp / "plan", {})
gs = {g["preset"]: g for g in report.groups(plan, runs)}
T.check("the median leaves the suspect trials out", gs["stable42"]["file_Bps"] == [50e6]
        and report.trial_note(gs["stable42"]) == "2 suspect, left out",
        expected="stable42: [50e6], '2 suspect, left out'", got=(gs["stable42"]["file_Bps"], report.trial_note(gs["stable42"])))
T.check("a group whose trials are all suspect counts them, and says so", gs["patched"]["file_Bps"] == [20e6, 30e6]
        and report.trial_note(gs["patched"]) == "2 suspect, counted (all are)",
        expected="patched: both, 'counted (all are)'", got=(gs["patched"]["file_Bps"], report.trial_note(gs["patched"])))
plan.options.keep_suspect = True
gs = {g["preset"]: g for g in report.groups(plan, runs)}
T.check("--keep-suspect counts the suspect trials", gs["stable42"]["file_Bps"] == [50e6, 10e6, 90e6]
        and report.trial_note(gs["stable42"]) == "2 suspect, counted",
        expected="all three, '2 suspect, counted'", got=(gs["stable42"]["file_Bps"], report.trial_note(gs["stable42"])))

# 0. the variables' flags, without running anything
st, out, err = make_experiment("-n", "experiment", "WDRAIN_NO_BUILD=1", "EXPERIMENT=quick", "PRESETS=patched",
                               "TRIALS=2", "SIZE=8", "BS=64k", "MEM=64", "SMP=2", "BUS=ahci", "DISKS=3",
                               "THROTTLE=30", "SET=vfs.a=1 vfs.b=2", "SWEEP=vfs.c=1,2", "OUT=/nonexistent/x",
                               "EXPOPTS=--no-raw -j 2", timeout=60)
want = ("tools/experiment --quick --presets patched --trials 2 --size 8 --bs 64k --mem 64 --smp 2 --bus ahci "
        "--disks 3 --throttle 30 --set vfs.a=1 --set vfs.b=2 --sweep vfs.c=1,2 --out /nonexistent/x --no-raw -j 2")
T.check("make experiment passes each variable as its tools/experiment flag",
        st == 0 and " ".join(out.split()) == want, expected=want, got="%d: %s %s" % (st, out, err[-300:]))
st, out, err = make_experiment("-n", "experiment", "WDRAIN_NO_BUILD=1", "DISKMODEL=ide7200", timeout=60)
want = "tools/experiment --mem 128 --smp 1 --bus scsi --disk-model ide7200"
T.check("make experiment: DISKMODEL is --disk-model, DISKS=0 leaves the experiment's own 2 disks",
        st == 0 and " ".join(out.split()) == want, expected=want, got="%d: %s %s" % (st, out, err[-300:]))

# 1. the quick experiment, as CI runs it
q = tmp / "quick"
st, out, err = make_experiment("experiment", "EXPERIMENT=quick", "OUT=%s" % q)
made = [" ".join(ln.split()) for ln in out.splitlines() if ln.startswith(("tools/", "make "))]
want = "tools/experiment --quick --mem 128 --smp 1 --bus scsi --out %s" % q
T.check("make experiment EXPERIMENT=quick OUT=DIR runs tools/experiment --quick ... --out DIR",
        made[-1:] == [want], expected=want, got=made)
if os.environ.get("WDRAIN_NO_BUILD") == "1":
    T.check("with WDRAIN_NO_BUILD=1 make experiment neither checks the packages nor builds",
            made == [want], expected=[want], got=made)
T.check("quick experiment exits 0", st == 0, expected=0, got="%d: %s" % (st, err[-600:]))
if st != 0:
    print("the quick experiment's failed runs (T.check shortens its `got`):\n" + failed_runs(q))
summary = (q / "summary.txt").read_text() if (q / "summary.txt").exists() else ""
T.check("the table is printed and saved", summary and summary in out, expected="summary.txt on stdout", got=out[-300:])
for preset in PRESETS:
    line = next((ln for ln in summary.splitlines() if ln.startswith(preset + " ")), "")
    f = line.split()
    seed = format(SEED_BPS[preset], ",") if preset in SEED_BPS else "-"
    T.check("summary: %s has positive file and raw B/s and the seed's figure (%s)" % (preset, seed),
            len(f) >= 7 and int(f[1].replace(",", "")) > 0 and int(f[4].replace(",", "")) > 0
            and f[6] == seed, expected="preset B/s min max raw frac seed", got=line)
T.check("summary: the ratio patched/stable42 beside the seed's 1.233",
        any(ln.startswith("patched/stable42") and ln.split()[-1] == "1.233" for ln in summary.splitlines()),
        expected="patched/stable42 ... 1.233", got=summary[:800])
T.check("summary: a line per trial saying whether it can be trusted",
        all(any(ln.startswith(p + "-1 ") and (ln.rstrip().endswith(" ok") or "suspect" in ln or "late" in ln
                                              or "CPU-bound" in ln) for ln in summary.splitlines())
            for p in PRESETS) and "trusted?" in summary,
        expected="trial ... trusted? and a row per trial", got=summary[:1500])
T.check("summary: the queues and the dd's synchronous I/O blocks",
        "queues per data disk" in summary and "synchronous I/O of the dd" in summary and "metawrite" in summary
        and "wswbuf0 s" in summary, expected="both blocks, wswbuf0", got=summary[-2500:])
T.check("summary: what sampling cost (ms per sample, share of the dd's time)",
        "sampling:" in summary and "ms of CPU on average" in " ".join(summary.split()), expected="a sampling: line", got=summary[-500:])
rows = read_csv(q / "results.csv") if (q / "results.csv").exists() else []
T.check("results.csv: one ok row per trial", [r["status"] for r in rows] == ["ok"] * len(PRESETS),
        expected=" ".join(["ok"] * len(PRESETS)), got=[(r["id"], r["status"], r["error"]) for r in rows])
T.check("results.csv: positive throughputs",
        rows and all(float(r["file_Bps"]) > 0 and float(r["raw_Bps"]) > 0 for r in rows),
        expected="> 0", got=[(r["file_Bps"], r["raw_Bps"]) for r in rows])
try:
    res = json.loads((q / "results.json").read_text())
except (OSError, ValueError) as e:
    res = {"error": str(e)}
T.check("results.json: every preset's group and run",
        [g.get("preset") for g in res.get("groups", [])] == list(PRESETS) and len(res.get("runs", [])) == len(PRESETS),
        expected="groups %s; %d runs" % (", ".join(PRESETS), len(PRESETS)), got=str(res)[:300])
man = (q / "manifest.txt").read_text() if (q / "manifest.txt").exists() else ""
T.check("manifest.txt: git revision, QEMU version, host CPU, options",
        all(w in man for w in ("git:", "QEMU emulator", "planned on:", "size_mb", "load average")),
        expected="git, qemu, host, options", got=man[:400])
for r in rows:
    samples = q / ("samples-%s.csv" % r["id"])
    srows = check_samples(samples, 0.1) if samples.exists() else T.check("%s exists" % samples.name, False)
    if srows and "vfs.bufdaemon.wdrain_ns" in srows[0]:
        # the table's blocked time and sleeps are the buffer cache's own counters over the file dd
        want = {"blocked_s.wdrain": (int(srows[-1]["vfs.bufdaemon.wdrain_ns"]) - int(srows[0]["vfs.bufdaemon.wdrain_ns"])) / 1e9,
                "blocked_s.flswai": (int(srows[-1]["vfs.bufdaemon.flswai_ns"]) - int(srows[0]["vfs.bufdaemon.flswai_ns"])) / 1e9,
                "sleeps.newbuf": int(srows[-1]["vfs.bio.sleeps_newbuf"]) - int(srows[0]["vfs.bio.sleeps_newbuf"])}
        got = {k: r[k] for k in want}
        T.check("%s: blocked seconds and sleeps from the kernel's counters" % r["id"],
                all(got[k] != "" and abs(float(got[k]) - v) < 1e-3 for k, v in want.items()), expected=want, got=got)
    else:
        T.check("%s: the samples have vfs.bufdaemon.wdrain_ns" % r["id"], False, got=list(srows[0])[:20] if srows else None)
    T.check("%s: the trust figures: guest idle share, the file dd's disk replies, the host's load" % r["id"],
            r["guest_idle_pct"] != "" and 0 <= float(r["guest_idle_pct"]) <= 100 and int(r["replies"] or 0) > 0
            and r["late_pct"] != "" and r["host_load1"] != "" and r["host_qemu_pct"] != ""
            and (r["suspect"] == "") == (float(r["late_pct"]) <= 1 and float(r["guest_idle_pct"]) >= 1),
            expected="idle %, replies > 0, late %, host load, suspect as the two say",
            got={k: r[k] for k in ("guest_idle_pct", "replies", "late_pct", "host_load1", "host_qemu_pct", "suspect")})
    T.check("%s: the dd waited for its new indirect blocks' synchronous writes (syncio), behind the queue" % r["id"],
            r["syncio.metawrite.n"].isdigit() and int(r["syncio.metawrite.n"]) >= 5
            and float(r["syncio.metawrite.max_ms"] or 0) > 0,
            expected=">= 5 metawrite waits (64 MiB of 8 KB blocks need 5 new indirect blocks: the single, "
                     "the double and 3 under it, 2048 pointers each)",
            got={k: r[k] for k in r if k.startswith("syncio.metawrite")})
    T.check("%s: the data disks' host and drive queues over the file dd" % r["id"],
            r["queue.active"] != "" and float(r["queue.active"]) > 0 and int(r["queue.active_max"]) >= 1
            and r["blocked_s.wswbuf0"] != "", expected="queue.active > 0, active_max >= 1, wswbuf0's time",
            got={k: r[k] for k in r if k.startswith("queue.") or k == "blocked_s.wswbuf0"})
    waiting = host_queue(srows, ("da1", "da2")) if srows else None
    T.check("%s: queue.waiting is the data disks' mean host queue over the file dd, from the kernel's "
            "integrals (depth_ns less active_ns), and not negative" % r["id"],
            waiting is not None and r["queue.waiting"] != "" and waiting >= 0
            and abs(float(r["queue.waiting"]) - waiting) <= 0.02,
            expected="%s from samples-%s.csv" % (waiting, r["id"]), got=r["queue.waiting"])
    hrows = read_csv(q / ("host-%s.csv" % r["id"])) if (q / ("host-%s.csv" % r["id"])).exists() else []
    T.check("host-%s.csv: the host sampled through the file dd" % r["id"], any(h["phase"] == "file" for h in hrows),
            expected="rows of phase file", got=hrows[:3])
    T.check("%s: laundered and paged-out pages and the buf_daemon's flushes are counted" % r["id"],
            all(r[k].isdigit() for k in ("laundered", "paged_out", "bd_flushes")),
            expected="three numbers", got=(r["laundered"], r["paged_out"], r["bd_flushes"]))
    probe = q / ("probe-%s.csv" % r["id"])
    prows = read_csv(probe) if probe.exists() else []
    # The dd goes to ccd0 on modelled disks, where one create+write+fsync can wait behind the
    # dd's queued writes (2-28 s seen with the old buffer cache, 0.1-0.2 s with VMIO and
    # clustering): a quick run may get a single probe row.
    T.check("%s: probe latencies present" % probe.name,
            len(prows) >= 1 and all(p["stat_us"] and p["read_us"] and p["write_us"] for p in prows),
            expected="rows with stat, read and write latencies", got=prows[:3])
    smooth = q / ("samples-%s-smooth.csv" % r["id"])
    T.check("%s: the probe had its own dd, sampled too" % r["id"], smooth.exists() and float(r["smooth_Bps"] or 0) > 0,
            expected="samples-%s-smooth.csv and smooth_Bps > 0" % r["id"], got=(smooth.exists(), r["smooth_Bps"]))
    mrows = read_csv(smooth) if smooth.exists() else []
    if mrows and prows and "kern.devstat.da0.reads" in mrows[0]:
        reads = int(mrows[-1]["kern.devstat.da0.reads"]) - int(mrows[0]["kern.devstat.da0.reads"])
        T.check("%s: every probe read went to the root disk" % r["id"], reads >= len(prows),
                expected=">= %d reads of da0" % len(prows), got=reads)
    ok = [g for g in PER_PRESET if (q / ("plot-%s-%s.png" % (r["preset"], g))).exists()
          and is_png(q / ("plot-%s-%s.png" % (r["preset"], g)))]
    T.check("%s: every per-preset plot is a PNG" % r["preset"], ok == list(PER_PRESET), expected=" ".join(PER_PRESET), got=ok)
cmp = [g for g in COMPARE if (q / ("plot-compare-%s.png" % g)).exists() and is_png(q / ("plot-compare-%s.png" % g))]
T.check("every comparison plot of the presets is a PNG", cmp == list(COMPARE), expected=" ".join(COMPARE), got=cmp)
if summary:
    st, out2, err2 = experiment("--gather", str(q))
    T.check("--gather of the folder writes the same table", st == 0 and (q / "summary.txt").read_text() == summary,
            expected="the same summary.txt", got="%d %s" % (st, err2[-300:]))
    os.unlink(q / "plot-compare-rate.png")
    st, out2, err2 = experiment("--replot", str(q))
    T.check("--replot redraws the plots", st == 0 and is_png(q / "plot-compare-rate.png"), expected="plot-compare-rate.png",
            got="%d %s" % (st, err2[-300:]))

# 1b. the quick run published, and a table printed from it checked against it
def quick_table(groups):
    """A table of the published run as the book prints one: a row per measure, a column per preset."""
    by = {g["preset"]: g for g in groups}

    def fig(g, fmt, *keys, scale=1.0):
        vals = [g.get(k) for k in keys]
        return fmt % tuple(float(v) * scale for v in vals) if all(vals) else "-"
    rows = [("file dd MB/s (min-max)", lambda g: fig(g, "%.1f (%.1f-%.1f)", "file_Bps", "file_Bps_min", "file_Bps_max",
                                                      scale=1e-6)),
            ("at the drive (requests)", lambda g: fig(g, "%.1f", "queue.active")),
            ("probe create+write+`fsync` ms p50/p99", lambda g: fig(g, "%.1f / %.1f", "probe.write_us.p50",
                                                                     "probe.write_us.p99", scale=1e-3)),
            ("the dd's indirect-block writes: waits, s waited", lambda g: fig(g, "%d, %.2f", "syncio.metawrite.n",
                                                                               "syncio.metawrite.total_s"))]
    lines = ["Run: [quick](experiments/quick/)", "",
             "| | %s | patched / stable42 |" % " | ".join(PRESETS), "|---" * (len(PRESETS) + 2) + "|"]
    for i, (label, f) in enumerate(rows):
        ratio = "%.3f" % float(by["patched"]["of_stable42"]) if i == 0 and by["patched"].get("of_stable42") else ""
        lines.append("| %s | %s | %s |" % (label, " | ".join(f(by[p]) for p in PRESETS), ratio))
    return "\n".join(lines) + "\n"


pub = tmp / "published"
st, out2, err2 = experiment("--publish", str(q), "quick", "--into", str(pub))
files = sorted(p.name for p in (pub / "quick").iterdir()) if (pub / "quick").is_dir() else []
want = ["groups.csv", "manifest.txt"] + ["plot-compare-%s.png" % c for c in sorted(COMPARE)] + \
    ["plot-tradeoff.png", "results.csv", "summary.txt"]
T.check("--publish DIR quick copies the run's text outputs, comparison and trade-off plots, no sample stream",
        st == 0 and files == want, expected=want, got="%d %s %s" % (st, files, err2[-300:]))
if "groups.csv" in files:
    table = quick_table(read_csv(pub / "quick" / "groups.csv"))
    found = publish.run_tables(table)
    problems = publish.check_table(found[0][2], pub / "quick") if found else ["no table found"]
    T.check("a table printed from the published quick run passes its check (publish.check_table)", problems == [],
            expected="no problem", got=[problems, table])
    first = table.split("| file dd MB/s (min-max) | ")[1].split(" ")[0]
    wrong = table.replace("| file dd MB/s (min-max) | " + first, "| file dd MB/s (min-max) | %.1f" % (float(first) + 0.1), 1)
    problems = publish.check_table(publish.run_tables(wrong)[0][2], pub / "quick")
    T.check("the same table with stable42's median 0.1 MB/s off is reported", len(problems) == 1,
            expected="one problem", got=problems)

# 2. a bad option
st, out, err = experiment("--trials", "0", "--out", str(tmp / "bad"))
T.check("a bad option: exit 2 with a usage message", st == 2 and "usage: tools/experiment" in err and "--trials" in err,
        expected="2, usage", got="%d %r" % (st, err[-200:]))
T.check("a bad option makes no folder", not (tmp / "bad").exists(), expected="no folder", got=list(tmp.iterdir()))
st, out, err = experiment("--sweep", "vfs.hirunningspace", "--out", str(tmp / "bad"))
T.check("a sweep without values: exit 2", st == 2 and "--sweep" in err, expected=2, got="%d %r" % (st, err[-200:]))

# 3. a failing trial beside a good one
# the setup line fails in the patched preset only (grep -v finds nothing: status 1)
st, out, err = experiment("--presets", "stable42,patched", "--trials", "1", "--size", "8", "--no-raw", "--probe", "off",
                          "--out", str(tmp / "fail2"), "--setup", "sysctl -n kern.design | grep -v patched")
rows = read_csv(tmp / "fail2" / "results.csv") if (tmp / "fail2" / "results.csv").exists() else []
by = {r["preset"]: r for r in rows}
T.check("a trial that fails: exit status 1", st == 1, expected=1, got="%d %s" % (st, err[-300:]))
T.check("the failed trial is reported with its reason", by.get("patched", {}).get("status") == "failed"
        and "setup" in by["patched"]["error"], expected="patched failed in setup", got=rows)
T.check("the other trial of the same experiment still has its result", by.get("stable42", {}).get("status") == "ok"
        and float(by["stable42"]["file_Bps"]) > 0, expected="stable42 ok", got=rows)
fsum = (tmp / "fail2" / "summary.txt").read_text() if (tmp / "fail2" / "summary.txt").exists() else ""
T.check("summary.txt lists the failed run", "FAILED runs (1 of 2)" in fsum and "patched-1" in fsum,
        expected="FAILED runs (1 of 2): patched-1", got=fsum[-400:])
T.check("the failure is printed as it happens", "run 2/2 patched-1: FAILED" in err, expected="FAILED line on stderr",
        got=err[-400:])

# 4. a sweep, two runs at once
s = tmp / "sweep"
st, out, err = experiment("--sweep", "preset=patched", "--trials", "1", "--size", "8", "--no-raw", "--probe", "off",
                          "-j", "2", "--sweep", "vfs.hirunningspace=524288,2097152", "--sweep", "disk.qdepth=1",
                          "--sweep", "openings=2", "--out", str(s))
rows = read_csv(s / "results.csv") if (s / "results.csv").exists() else []
T.check("sweep: one ok run per value", sorted(r["point"] for r in rows if r["status"] == "ok")
        == ["vfs.hirunningspace=2097152_disk.qdepth=1_openings=2", "vfs.hirunningspace=524288_disk.qdepth=1_openings=2"],
        expected="2 points", got=rows)
stats = [json.loads((s / "runs" / r["id"] / "run.json").read_text()).get("disk_stats", [])
         for r in rows if (s / "runs" / r["id"] / "run.json").exists()]
T.check("sweep: the disk models ran with the swept disk.qdepth", len(stats) == 2 and all(
    [d.get("tags") for d in ds] == [1, 1] for ds in stats), expected="tags=1 on both disks of both runs",
    got=[[d.get("tags") for d in ds] for ds in stats])
runs = [json.loads((s / "runs" / r["id"] / "run.json").read_text()) for r in rows
        if (s / "runs" / r["id"] / "run.json").exists()]
T.check("sweep: openings=2 set on both data disks: no sample saw more than 2 requests at either drive",
        len(runs) == 2 and all(x["phases"].get("set", {}).get("status") == 0 and
                               sorted(x["samples"]["file"]["queues"]) == ["da1", "da2"] and
                               max(q["active_max"] for q in x["samples"]["file"]["queues"].values()) <= 2
                               for x in runs),
        expected="a set phase, active <= 2 on da1 and da2 (128 openings let 12-16 through in the quick run)",
        got=[x.get("samples", {}).get("file", {}).get("queues") for x in runs])
grid_rows = read_csv(s / "groups.csv") if (s / "groups.csv").exists() else []
T.check("sweep: groups.csv has a row per point with the axes' values",
        sorted((g["preset"], g["vfs.hirunningspace"], g["disk.qdepth"]) for g in grid_rows)
        == [("patched", "2097152", "1"), ("patched", "524288", "1")] and all(float(g["file_Bps"]) > 0 for g in grid_rows),
        expected="patched at 524288 and 2097152, disk.qdepth 1", got=grid_rows)
T.check("sweep: the swept value was set in the guest", st == 0 and all(
    (s / "runs" / r["id"] / "run.json").exists() and json.loads((s / "runs" / r["id"] / "run.json").read_text())
    ["samples"]["file"]["first"].get("vfs.hirunningspace") == int(r["point"].split("_")[0].split("=")[1]) for r in rows),
    expected="vfs.hirunningspace as swept", got="%d %s" % (st, err[-300:]))
want = ["plot-sweep-%s.png" % a for a in ("disk.qdepth", "preset", "vfs.hirunningspace")]
T.check("sweep: a plot against each axis", all((s / w).exists() and is_png(s / w) for w in want), expected=want,
        got=sorted(p.name for p in s.glob("plot-sweep*.png")))

# 5. unequal disks: EXPERIMENT=mixed, and the separate layout
st, out, err = make_experiment("-n", "experiment", "WDRAIN_NO_BUILD=1", "EXPERIMENT=mixed", "SIZE=8", "OUT=/nonexistent/m",
                               timeout=60)
want = ["tools/experiment --size 8 --mem 128 --smp 1 --bus scsi --disk-model scsi10k,ide7200 --name mixed-stripe "
        "--out /nonexistent/m/stripe",
        "tools/experiment --size 8 --mem 128 --smp 1 --bus scsi --disk-model scsi10k,ide7200 --name mixed-separate "
        "--layout separate --out /nonexistent/m/separate"]
got = [" ".join(ln.split()) for ln in out.splitlines() if ln.startswith("tools/experiment")]
T.check("make experiment EXPERIMENT=mixed: the stripe and the separate layout over scsi10k + ide7200",
        st == 0 and got == want, expected=want, got="%d: %s %s" % (st, got, err[-300:]))
m = tmp / "separate"
st, out, err = experiment("--presets", "perdevice", "--trials", "1", "--size", "8", "--probe", "off", "--layout", "separate",
                          "--disk-model", "ideal,ide7200", "--out", str(m))
rows = read_csv(m / "results.csv") if (m / "results.csv").exists() else []
writers = dict(w.split(":") for w in rows[0]["writers_Bps"].split()) if rows and rows[0]["writers_Bps"] else {}
T.check("--layout separate: a writer per data disk, each with its B/s, and no raw ceiling",
        st == 0 and sorted(writers) == ["da1", "da2"] and all(int(v) > 0 for v in writers.values())
        and rows[0]["raw_Bps"] == "", expected="da1, da2 > 0; no raw", got="%d %s %s" % (st, rows, err[-300:]))
grp = read_csv(m / "groups.csv") if (m / "groups.csv").exists() else []
T.check("--layout separate: groups.csv has each writer's median, min and max, the trial's B/s for one trial",
        len(grp) == 1 and writers and all(float(grp[0].get("writer.%s_Bps%s" % (d, x)) or -1) == float(v)
                                          for d, v in writers.items() for x in ("", "_min", "_max")),
        expected=writers, got=grp)
msum = (m / "summary.txt").read_text() if (m / "summary.txt").exists() else ""
T.check("--layout separate: the table has the writers' block", "writer B/s" in msum and "da2 (min-max)" in msum,
        expected="writer B/s ... da2 (min-max)", got=msum[:600])

shutil.rmtree(tmp, ignore_errors=True)
T.done()
