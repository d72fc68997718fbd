"""cli: tools/experiment's command line (the usage text is parser()'s)."""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import wdrun
from wdbench import MiB, block_size

from . import batch, plots, publish, report
from .plan import (AXES, DISK_AXIS, HOG_MB, LAYOUTS, LOAD_PARTS, PRESETS, PROBE_MODES, READER_MB, SEED_SIZE_MB,
                   WMESGS, Options, axis_kind, check_design, disk_model_of, ensure_root_image, grid, load_designs,
                   load_plan, make_plan)

QUICK = {"trials": 1, "size_mb": 64, "name": "quick"}
QUICK_LOAD_MB = 256         # --quick --load: a dd long enough for the paging to settle (64 MiB: 2 s)
NAME_RE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")
VALUE_RE = re.compile(r"[A-Za-z0-9_.:+-]+$")
EXIT_FAILED, EXIT_USAGE = 1, 2

DESCRIPTION = """\
Run the seed's experiment (Dillon, Dec 2000): for each preset, N boots of a 128 MB guest that
write 1.5 GB with dd onto a fresh file system on a two-disk ccd stripe of modelled 10K RPM
SCSI disks, after a raw dd to the stripe as the ceiling; with in-guest time series (sampler),
a latency probe beside a second, identical dd (latprobe), a seed-style table, CSV/JSON and gnuplot PNGs in
build/experiments/<date-time>-<name>/. docs/harness.md explains the output."""

EPILOG = """\
other modes:
  --gather DIR        make the table, results and plots of DIR's runs (after --slurm)
  --replot DIR        redraw DIR's plots from its CSVs
  --run-task DIR I    run DIR's run number I (what -j workers and Slurm array tasks do)
  --publish DIR NAME  copy DIR's summary.txt, results.csv, groups.csv, manifest.txt and its
                      comparison and sweep plots (or those --plot names) into
                      docs/experiments/NAME/, for a table of the book to name
                      (docs/harness.md "Results in the tree")
  --grid-plot PNG RUN...
                      draw the grid of drives from published runs' folders: patched's
                      file dd over stable42's against each run's drive (tags, write cache)
                      (docs/experiments.md "Where the seed's result holds")

exit status: 0 if every run succeeded, 1 if one failed (the others' results are kept),
2 for bad options. make experiment [EXPERIMENT=quick] [TRIALS=N ...] runs this."""


def parser():
    ap = argparse.ArgumentParser(prog="tools/experiment", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    w = ap.add_argument_group("workload")
    w.add_argument("--presets", metavar="LIST",
                   help="comma-separated design presets, or BUF+SCAN pairs of their halves such as speedup+onepass "
                        "(default %s; with --load %s)" % (",".join(PRESETS), ",".join(load_designs())))
    w.add_argument("--trials", type=int, metavar="N", help="boots per preset and sweep point (default 3)")
    w.add_argument("--size", type=int, dest="size_mb", metavar="MB",
                   help="MiB each dd writes (default %d = the seed's bs=32k count=49152)" % SEED_SIZE_MB)
    w.add_argument("--bs", metavar="SIZE", help="the file dd's block size (default 32k)")
    w.add_argument("--raw-bs", metavar="SIZE", help="the raw ceiling dd's block size (default 1m)")
    w.add_argument("--no-raw", action="store_true", help="skip the raw ceiling dd")
    w.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="sysctl NAME=VALUE in the guest before the workload (repeatable)")
    w.add_argument("--sweep", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="run every value of NAME: a sysctl, disk.<param> (a disk-model parameter: "
                        "disk.qdepth, disk.wcache, disk.order...), openings (every data disk's "
                        "dev.da.<n>.openings), mem or preset; several --sweep form a grid")
    w.add_argument("--setup", metavar="'CMD'", help="a guest shell command line run before the workload")
    w.add_argument("--load", metavar="LIST",
                   help="the loaded experiment: run %s (or all) beside the dds, with a swap disk "
                        "(docs/harness.md \"The loaded experiment's runs\")" % ",".join(LOAD_PARTS))
    w.add_argument("--hog-mb", type=int, metavar="MB", help="--load hog: its dirty anonymous set (default %d)" % HOG_MB)
    w.add_argument("--reader-mb", type=int, metavar="MB", help="--load reader: its file (default %d)" % READER_MB)
    m = ap.add_argument_group("machine")
    m.add_argument("--mem", type=int, metavar="MB", help="guest memory (default 128)")
    m.add_argument("--smp", type=int, metavar="N", help="guest CPUs (default 1)")
    m.add_argument("--bus", choices=sorted(wdrun.BUSES), help="disk controller (default scsi: virtio-scsi)")
    m.add_argument("--disks", type=int, metavar="N", help="data disks (default 2)")
    m.add_argument("--layout", choices=LAYOUTS,
                   help="stripe (default): the seed's, one file system on ccd0 over the data disks and one dd; "
                        "separate: a file system and a dd on each data disk, all dd's at once (no raw ceiling)")
    d = m.add_mutually_exclusive_group()
    d.add_argument("--disk-model", metavar="PRESET[,PRESET...][,p=v...]",
                   help="modelled disks, tools/diskmodel (default scsi10k; %s); one preset per disk in order, "
                        "e.g. scsi10k,ide7200" % ", ".join(wdrun.DISK_MODEL_PRESETS))
    d.add_argument("--throttle", type=float, metavar="MBPS", help="QEMU-throttled disks instead, MBPS x 10^6 B/s each")
    m.add_argument("--prealloc", choices=wdrun.PREALLOC,
                   help="the data disks' images on the host: falloc (default: allocated, so the first "
                        "writes do not allocate), full (written with zeros first), off (sparse)")
    s = ap.add_argument_group("measurement")
    s.add_argument("--interval", type=int, dest="interval_ms", metavar="MS", help="sampling interval (default 100)")
    s.add_argument("--probe-interval", type=int, dest="probe_ms", metavar="MS", help="probe interval (default 50)")
    s.add_argument("--no-samples", action="store_true", help="no sampler (to measure what sampling costs)")
    s.add_argument("--probe", choices=PROBE_MODES,
                   help="separate (default): the latency probe runs beside a second dd after the measured "
                        "one (its fsyncs slow the dd); same: beside the measured dd; off: no probe")
    s.add_argument("--keep-suspect", action="store_true",
                   help="count suspect trials (late disk replies, a CPU-bound guest) in the medians too")
    s.add_argument("--wmesg", metavar="LIST", help="more wait messages to count (default: %s)" % ",".join(WMESGS))
    s.add_argument("--timeout", type=float, metavar="SECS", help="per dd (default: 120 s + 1 s per MB)")
    r = ap.add_argument_group("running")
    r.add_argument("--quick", action="store_true",
                   help="EXPERIMENT=quick: 1 trial of 64 MiB (under 3 minutes); with --load %d MiB" % QUICK_LOAD_MB)
    r.add_argument("--name", help="the experiment's name (default seed, or quick)")
    r.add_argument("--out", metavar="DIR", help="output folder (default build/experiments/<date-time>-<name>)")
    r.add_argument("-j", type=int, dest="jobs", default=1, metavar="N",
                   help="N VMs at once (default 1: timing is only meaningful with one VM per host)")
    r.add_argument("--slurm", action="store_true", help="write DIR/slurm.sh, a job array of the runs, and stop")
    r.add_argument("-v", "--verbose", action="store_true", help="copy the guests' consoles to stderr")
    p = ap.add_argument_group("publishing a run (--publish DIR NAME)")
    p.add_argument("--plot", action="append", metavar="GLOB",
                   help="a plot to publish, e.g. plot-compare-rate.png (repeatable; default: %s)"
                        % " ".join(publish.DEFAULT_PLOTS))
    p.add_argument("--into", metavar="DIR", default=str(publish.DOCS_RUNS),
                   help="the folder of published runs (default docs/experiments)")
    # The other modes, left out of the usage line (the epilog has them). Last: argparse cannot
    # draw a usage line with options after a group whose options are all left out.
    x = ap.add_mutually_exclusive_group()
    x.add_argument("--gather", metavar="DIR", help=argparse.SUPPRESS)
    x.add_argument("--replot", metavar="DIR", help=argparse.SUPPRESS)
    x.add_argument("--run-task", nargs=2, metavar=("DIR", "I"), help=argparse.SUPPRESS)
    x.add_argument("--publish", nargs=2, metavar=("DIR", "NAME"), help=argparse.SUPPRESS)
    x.add_argument("--grid-plot", nargs="+", metavar="PNG RUN", help=argparse.SUPPRESS)
    return ap


def parse_assignments(ap, items, what, multi):
    out = []
    for it in items:
        name, sep, value = it.partition("=")
        if not sep or not (NAME_RE.match(name) or (multi and name in AXES)):
            ap.error("%s '%s': give NAME=VALUE%s with a sysctl NAME such as vfs.hirunningspace%s"
                     % (what, it, ",..." if multi else "",
                        ", disk.<param>, or one of %s" % ", ".join(AXES) if multi else ""))
        if not multi and name.startswith(DISK_AXIS):
            ap.error("%s %s: a disk-model parameter goes in --disk-model (e.g. scsi10k,%s=%s), or sweep it "
                     "with --sweep" % (what, it, name[len(DISK_AXIS):], value))
        values = value.split(",") if multi else [value]
        for v in values:
            if not VALUE_RE.match(v):
                ap.error("%s '%s': the value '%s' is not a number or a word" % (what, it, v))
        if name in [n for n, _ in out]:
            ap.error("%s: %s is given twice" % (what, name))
        out.append([name, values if multi else value])
    return out


def options_from(ap, ns):
    o = Options()
    if ns.quick:
        for k, v in QUICK.items():
            setattr(o, k, v)
    for k in ("trials", "size_mb", "bs", "raw_bs", "mem", "smp", "bus", "disks", "layout", "interval_ms",
              "probe_ms", "timeout", "name", "prealloc", "hog_mb", "reader_mb"):
        v = getattr(ns, k)
        if v is not None:
            setattr(o, k, v)
    if ns.load is not None:
        parts = [p.strip() for p in ns.load.split(",") if p.strip()]
        o.load = list(LOAD_PARTS) if parts == ["all"] else parts
        if not o.load or any(p not in LOAD_PARTS for p in o.load) or len(set(o.load)) != len(o.load):
            ap.error("--load %s: give all, or some of %s, each once" % (ns.load, ",".join(LOAD_PARTS)))
        o.presets = load_designs()
        o.name = "quick-loaded" if ns.quick else "loaded"
        if ns.quick and ns.size_mb is None:
            o.size_mb = QUICK_LOAD_MB
    if ns.presets is not None:
        o.presets = [p.strip() for p in ns.presets.split(",") if p.strip()]
        for p in o.presets:
            if check_design(p):
                ap.error("--presets: %s" % check_design(p))
        if not o.presets or len(set(o.presets)) != len(o.presets):
            ap.error("--presets: give each preset once")
    if ns.throttle is not None:
        if ns.throttle <= 0:
            ap.error("--throttle must be positive")
        o.throttle, o.disk_model = ns.throttle, None
    elif ns.disk_model is not None:
        o.disk_model = ns.disk_model
    o.raw, o.samples, o.setup, o.verbose = not ns.no_raw and o.layout == "stripe", not ns.no_samples, ns.setup, ns.verbose
    o.keep_suspect = ns.keep_suspect
    if ns.probe is not None:
        o.probe = ns.probe
    o.sets = parse_assignments(ap, ns.set, "--set", False)
    o.sweeps = parse_assignments(ap, ns.sweep, "--sweep", True)
    if set(n for n, _ in o.sets) & set(n for n, _ in o.sweeps):
        ap.error("--set and --sweep name the same sysctl")
    for name, values in o.sweeps:
        check_axis(ap, o, ns, name, values)
    if ns.wmesg:
        for w in ns.wmesg.split(","):
            if not re.fullmatch(r"[a-z0-9_]{1,8}", w):
                ap.error("--wmesg: '%s' is not a wait message (1-8 of a-z 0-9 _)" % w)
            if w not in o.wmesgs:
                o.wmesgs.append(w)
    check(ap, o, ns)
    return o


def check_axis(ap, o, ns, name, values):
    """A --sweep axis that is not a sysctl: its values, and what it must not meet."""
    kind = axis_kind(name)
    if kind == "preset":
        if ns.presets is not None:
            ap.error("--sweep preset, --presets: both choose the presets; give one")
        for p in values:
            if check_design(p):
                ap.error("--sweep preset: %s" % check_design(p))
        if len(set(values)) != len(values):
            ap.error("--sweep preset: give each preset once")
        o.presets = list(values)
    elif kind in ("mem", "openings"):
        if not all(v.isdigit() and int(v) > 0 for v in values):
            ap.error("--sweep %s: the values are positive whole numbers%s" % (name, " of MB" if kind == "mem" else ""))
        if kind == "mem" and ns.mem is not None:
            ap.error("--sweep mem and --mem both set the guest's RAM: give one")
    elif kind == "disk":
        if not o.disk_model:
            ap.error("--sweep %s: a disk-model parameter needs modelled disks (--disk-model), not --throttle" % name)
        key = name[len(DISK_AXIS):]
        if any(p.split("=", 1)[0] == key for p in o.disk_model.split(",")[1:]):
            ap.error("--sweep %s: --disk-model %s sets %s already" % (name, o.disk_model, key))


def check_disk_models(ap, o):
    """Every disk model the sweep boots, checked by the model itself (tools/diskmodel/serve --check)."""
    if not any(axis_kind(n) == "disk" for n, _ in o.sweeps):
        return
    for spec in sorted({disk_model_of(o, p) for p in grid(o.sweeps)}):
        preset, *params = spec.split(",")
        r = subprocess.run([str(wdrun.SERVE), "--check", preset] + params, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            ap.error("--sweep: the disk model %s: %s" % (spec, r.stderr.strip().replace("nbdkit: error: ", "")))


def check(ap, o, ns):
    for flag, v, lo in (("--trials", o.trials, 1), ("--size", o.size_mb, 1), ("--interval", o.interval_ms, 10),
                        ("--probe-interval", o.probe_ms, 10), ("-j", ns.jobs, 1), ("--disks", o.disks, 1)):
        if v < lo:
            ap.error("%s %s: at least %d" % (flag, v, lo))
    for flag, text in (("--bs", o.bs), ("--raw-bs", o.raw_bs)):
        try:
            n = block_size(text)[1]
        except argparse.ArgumentTypeError as e:
            ap.error("%s %s" % (flag, e))
        if o.size_mb * MiB % n:
            ap.error("--size %d MiB is not a whole number of %s blocks" % (o.size_mb, text))
    if o.load:
        if o.layout != "stripe" or not o.samples:
            ap.error("--load needs the seed's stripe and the sampler (not --layout separate, --no-samples)")
        if o.hog_mb < 1 or o.reader_mb < 1:
            ap.error("--hog-mb and --reader-mb: at least 1")
    if o.timeout is not None and o.timeout < 0:
        ap.error("--timeout must be positive")
    if ns.slurm and ns.jobs != 1:
        ap.error("--slurm and -j exclude each other (Slurm decides what runs at once)")
    if o.setup is not None and ("\n" in o.setup or not o.setup.strip()):
        ap.error("--setup: give one non-empty command line")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", o.name):
        ap.error("--name '%s': letters, digits, '_', '.', '-'" % o.name)
    try:
        wdrun.check_config(wdrun.VMConfig(mem=o.mem, smp=o.smp, bus=o.bus, disks=o.disks, throttle=o.throttle,
                                          disk_model=o.disk_model, prealloc=o.prealloc))
    except wdrun.ConfigError as e:
        ap.error(e.message)
    for name, values in o.sweeps:
        for v in values if name == "mem" else []:
            try:
                wdrun.check_config(wdrun.VMConfig(mem=int(v), smp=o.smp, bus=o.bus, disks=o.disks))
            except wdrun.ConfigError as e:
                ap.error("--sweep mem=%s: %s" % (v, e.message))
    check_disk_models(ap, o)


def log(text):
    sys.stderr.write("experiment: %s\n" % text)
    sys.stderr.flush()


def finish(plan):
    """Gather and plot; print the table. Returns the exit status."""
    results, gs, text = report.gather(plan)
    sys.stdout.write(text)
    sys.stdout.flush()
    status = 0 if all(r["status"] == "ok" for r in results) else EXIT_FAILED
    try:
        drawn, skipped = plots.draw_all(plan, gs)
    except wdrun.ConfigError as e:
        log(e.message)
        return EXIT_FAILED
    log("%d plots in %s%s" % (len(drawn), plan.out, "; not drawn: " + "; ".join("%s (%s)" % s for s in skipped)
                                                        if skipped else ""))
    if status:
        log("%d of %d runs failed (see summary.txt)" % (sum(r["status"] != "ok" for r in results), len(results)))
    return status


def new_experiment(ap, ns):
    o = options_from(ap, ns)
    out = Path(ns.out) if ns.out else wdrun.BUILD / "experiments" / ("%s-%s" % (time.strftime("%Y%m%d-%H%M%S"), o.name))
    if (out / "plan.json").exists():
        ap.error("--out %s already holds an experiment (gather it with --gather, or choose another folder)" % out)
    out.mkdir(parents=True, exist_ok=True)
    plan = make_plan(o, out, report.environment())
    wdrun.ensure_built(wdrun.VMConfig())
    ensure_root_image(plan)
    plan.save()
    os.environ["WDRAIN_NO_BUILD"] = "1"
    log("%d runs (%s x %d trial(s)%s) into %s" % (len(plan.runs), ",".join(o.presets), o.trials,
                                                   " x %d sweep points" % len(plan.points()) if o.sweeps else "", out))
    usable, ncpu = len(os.sched_getaffinity(0)), os.cpu_count() or 1
    if usable < min(2, ncpu):
        log("warning: only %d of the host's %d CPUs is usable here (the CPU affinity this process inherited): "
            "QEMU and the disk models will share it; `taskset -c 0-%d tools/experiment ...` gives them all"
            % (usable, ncpu, ncpu - 1))
    if ns.slurm:
        path = batch.write_slurm(plan)
        log("wrote %s; submit it with: sbatch %s" % (path, path))
        log("when every task has finished: tools/experiment --gather %s" % out)
        return 0
    if ns.jobs > 1:
        batch.run_parallel(plan, ns.jobs, log)
    else:
        batch.run_sequential(plan, log)
    return finish(plan)


def main(argv=None):
    ap = parser()
    ns = ap.parse_args(argv)
    wdrun.install_signal_handlers()
    try:
        if ns.gather:
            return finish(load_plan(ns.gather))
        if ns.replot:
            plan = load_plan(ns.replot)
            results = [batch.read_result(plan, r) for r in plan.runs]
            drawn, skipped = plots.draw_all(plan, report.groups(plan, results))
            for name, why in skipped:
                log("not drawn: %s (%s)" % (name, why))
            log("%d plots redrawn in %s" % (len(drawn), plan.out))
            return 0
        if ns.publish:
            d, name = ns.publish
            copied = publish.publish(d, name, ns.into, ns.plot)
            for path in copied:
                log("published %s (%d bytes)" % (path, path.stat().st_size))
            log("name the run above its table: Run: [%s](experiments/%s/)" % (name, name))
            return 0
        if ns.grid_plot:
            if len(ns.grid_plot) < 2 or not ns.grid_plot[0].endswith(".png"):
                ap.error("--grid-plot PNG RUN...: a .png to write, then one or more published runs' folders")
            for name, tags, wc, ratio in plots.draw_grid(ns.grid_plot[1:], ns.grid_plot[0]):
                log("%-10s %3d tags, write cache %-3s patched / stable42 %.3f" % (name, tags, "on" if wc else "off", ratio))
            log("drew %s" % ns.grid_plot[0])
            return 0
        if ns.run_task:
            d, i = ns.run_task
            if not i.isdigit():
                ap.error("--run-task DIR I: I is a run number")
            r = batch.run_task(load_plan(d), int(i))
            return 0 if r["status"] == "ok" else EXIT_FAILED
        return new_experiment(ap, ns)
    except wdrun.ConfigError as e:
        log(e.message)
        return EXIT_USAGE
    except publish.PublishError as e:
        log(str(e))
        return EXIT_USAGE
    except wdrun.WdrunError as e:
        wdrun.report(e, prefix="experiment: ")
        return EXIT_FAILED
    except KeyboardInterrupt:
        log("interrupted; what finished is in the folder (tools/experiment --gather DIR)")
        return 130
