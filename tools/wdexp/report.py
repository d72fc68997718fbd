"""report: a folder's runs gathered into the table and the result files.

  environment()          git revision, QEMU and nbdkit versions, host CPU, load: for plan.json
  gather(plan)           reads every runs/<id>/run.json (a missing one is a failed run) and
                         writes summary.txt, results.csv (a row per run), groups.csv (a row per
                         sweep point and preset: the grid), results.json and manifest.txt;
                         returns (results, groups, summary text)
  groups(plan, results)  one group per (sweep point, preset): the trials that succeeded and
                         can be trusted (trust.assess; all that succeeded with --keep-suspect, or
                         when every one is suspect), median/min/max of the file dd's bytes/sec,
                         the raw ceiling, the file
                         dd as a fraction of it (per boot, then the median), the pages laundered
                         and paged out, the process-seconds blocked per wait message, and the
                         probe's latencies pooled over the trials (p50/p99/max)

With --load, load_figures(r) gives a run's loaded figures over the file dd (the hog's and the
reader's, load.window; the pageout counters of LOAD_VM; the pagedaemon's and buf_daemon's CPU
time; the swap disk's queue; and load.WHOLE_VM's counters over the whole loaded run, the
vm.whole.* columns), groups() their medians, and the table two more blocks.

"laundered" is vm.stats.vm.v_pdlaundered, "paged out" v_swappgsout + v_vnodepgsout (FreeBSD's
names), each as its change over the file dd ("n/a" if the samples lack it). Blocked times are
the buffer cache's own (vfs.bufdaemon.flswai_ns, wdrain_ns) where it counts them, else sampled
estimates (series.py); blocked_time().
"""
import csv
import json
import platform
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import wdrun

from wdbench import block_size

from . import series, trust
from .batch import read_result
from . import load
from .plan import DISK_AXIS, LOAD_FILE, PROBE_FILE, SEED_BPS, design_boot, point_tag, swap_disk
from .trial import SYNCIO_KINDS, host_info

LAUNDERED = "vm.stats.vm.v_pdlaundered"                     # docs/vm.md
BD_FLUSHES = "vfs.bufdaemon.flushes"                        # writes the buf_daemon started
PAGEOUTS = ("vm.stats.vm.v_swappgsout", "vm.stats.vm.v_vnodepgsout")
BLOCKED = ("flswai", "wdrain", "wdrdev", "newbuf", "wswbuf0")
# the buffer cache's counters of these sleeps (docs/bufcache.md "Tunables and counters")
BLOCKED_NS = {"flswai": "vfs.bufdaemon.flswai_ns", "wdrain": "vfs.bufdaemon.wdrain_ns",
              "wdrdev": "vfs.bufdaemon.wdrdev_ns", "wswbuf0": "vfs.cluster.wswbuf0_ns"}
SLEEPS = {"flswai": "vfs.bufdaemon.sleeps_flswai", "wdrain": "vfs.bufdaemon.sleeps_wdrain",
          "wdrdev": "vfs.bufdaemon.sleeps_wdrdev", "newbuf": "vfs.bio.sleeps_newbuf",
          "wswbuf0": "vfs.cluster.sleeps_wswbuf0"}
PROBE_COLS = (("stat_us", "stat"), ("read_us", "read 4K"), ("write_us", "create+write+fsync"))
# --load: (column, vm.stats.vm counter) changed over the file dd (docs/vm.md "Watching it")
LOAD_VM = (("laundered", "v_pdlaundered"), ("swap_out", "v_swappgsout"), ("file_out", "v_vnodepgsout"),
           ("swap_in", "v_swappgsin"), ("file_in", "v_vnodepgsin"), ("reactivated", "v_reactivated"),
           ("rescans", "v_pdrescans"), ("requeued", "v_pdrequeued"), ("pd_wakeups", "v_pdwakeups"))
LOAD_PARTS_COLS = (("hog", "touched_per_s"), ("hog", "slowest_pass_s"), ("reader", "reads_per_s"),
                   ("reader", "slowest_interval_rps"), ("reader", "max_read_ms"), ("reader", "reads"),
                   ("reader", "disk_reads"), ("reader", "hit_pct"))
LOAD_COLS = ["%s.%s" % pc for pc in LOAD_PARTS_COLS] + ["vm.%s" % c for c, _ in LOAD_VM] + \
            ["cpu.pagedaemon_s", "cpu.bufdaemon_s", "swapq.mean", "swapq.max"] + \
            ["vm.whole.%s" % c for c, _ in load.WHOLE_VM]


def load_figures(r):
    """A run's LOAD_COLS over its file dd ({} if it had no load)."""
    win = (r.get("load") or {}).get("file")
    if win is None:
        return {}
    samp = r.get("samples", {}).get("file", {})
    delta = samp.get("delta", {})
    out = {"%s.%s" % (p, c): (win.get(p) or {}).get(c) for p, c in LOAD_PARTS_COLS}
    for c, name in LOAD_VM:
        out["vm." + c] = delta.get("vm.stats.vm." + name)
    for t in ("pagedaemon", "bufdaemon"):
        v = delta.get("cpu." + t)
        out["cpu.%s_s" % t] = None if v is None else round(v / 1e6, 3)
    q = samp.get("swap_queue") or {}
    out["swapq.mean"] = round(q["waiting"] + q["active"], 2) if q else None
    out["swapq.max"] = q["waiting_max"] + q["active_max"] if q else None
    for c, _ in load.WHOLE_VM:
        out["vm.whole." + c] = (r.get("load_whole") or {}).get(c)
    return out


def _cmd(argv):
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=wdrun.ROOT)
        return r.stdout.strip() if r.returncode == 0 else ""
    except OSError:
        return ""


def environment():
    dirty = _cmd(["git", "status", "--porcelain", "--untracked-files=no"])
    return {"git": _cmd(["git", "rev-parse", "HEAD"]) + (" (with uncommitted changes)" if dirty else ""),
            "qemu": _cmd([wdrun.qemu_binary(), "--version"]).split("\n")[0],
            "nbdkit": _cmd(["nbdkit", "--version"]), "python": platform.python_version(),
            "command": " ".join(sys.argv), "planned_on": host_info()}


def counter(delta, names):
    vals = [delta[n] for n in names if n in delta]
    return sum(vals) if vals else None


def blocked_time(samp, wmesg):
    """(seconds asleep on wmesg during the dd, the number of those sleeps, where the seconds came
    from): the buffer cache's own counters where it keeps them (BLOCKED_NS, SLEEPS: exact),
    else the sampler's estimate (series.blocked_seconds)."""
    delta = samp.get("delta", {})
    sleeps = delta.get(SLEEPS[wmesg])
    if BLOCKED_NS.get(wmesg) in delta:
        return delta[BLOCKED_NS[wmesg]] / 1e9, sleeps, BLOCKED_NS[wmesg]
    return samp.get("blocked_s", {}).get(wmesg), sleeps, "sampled"


def _med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def groups(plan, results):
    out = []
    for point in plan.points():
        for preset in plan.options.presets:
            rs = [r for r in results if r["point"] == point and r["preset"] == preset]
            ok = [r for r in rs if r["status"] == "ok"]
            trusted = [r for r in ok if not r.get("suspect")]
            g = {"point": point, "preset": preset, "trials": len(rs), "failed": len(rs) - len(ok),
                 "suspect": len(ok) - len(trusted)}
            g["suspect_counted"] = bool(g["suspect"]) and (plan.options.keep_suspect or not trusted)
            if not g["suspect_counted"]:
                ok = trusted
            g["ok"] = len(ok)
            g["file_Bps"] = [r["file"]["Bps"] for r in ok]
            g["raw_Bps"] = [r["raw"]["Bps"] for r in ok if "raw" in r]
            g["smooth_Bps"] = [r["smooth"]["Bps"] for r in ok if "smooth" in r]
            g["writers_Bps"] = {}                  # --layout separate: each disk's writer, by trial
            for r in ok:
                for disk, w in r["file"].get("writers", {}).items():
                    g["writers_Bps"].setdefault(disk, []).append(w["Bps"])
            g["fraction"] = _med([r["file"]["Bps"] / r["raw"]["Bps"] for r in ok if "raw" in r])
            deltas = [r.get("samples", {}).get("file", {}).get("delta", {}) for r in ok]
            g["laundered"] = _med([d.get(LAUNDERED) for d in deltas])
            g["bd_flushes"] = _med([d.get(BD_FLUSHES) for d in deltas])
            g["paged_out"] = _med([counter(d, PAGEOUTS) for d in deltas])
            blocked = [{w: blocked_time(r.get("samples", {}).get("file", {}), w) for w in BLOCKED} for r in ok]
            g["blocked_s"] = {w: _med([b[w][0] for b in blocked]) for w in BLOCKED}
            g["sleeps"] = {w: _med([b[w][1] for b in blocked]) for w in BLOCKED}
            g["blocked_from"] = {w: sorted({b[w][2] for b in blocked}) for w in BLOCKED}
            g["probe"] = pooled_probe(plan, ok)
            g["queues"] = pooled_queues(ok)
            g["syncio"] = pooled_syncio(plan, ok)
            g["median_run"] = median_run(ok)
            figs = [load_figures(r) for r in ok]
            g["load"] = {c: (max if c == "swapq.max" else _med)([f.get(c) for f in figs if f.get(c) is not None] or [None])
                         for c in LOAD_COLS} if plan.options.load else None
            out.append(g)
    return out


def median_run(ok):
    """The id of the trial whose file dd was the median (the one the time-series plots show)."""
    if not ok:
        return None
    ranked = sorted(ok, key=lambda r: r["file"]["Bps"])
    return ranked[(len(ranked) - 1) // 2]["id"]


QUEUE_KEYS = ("waiting", "active", "waiting_max", "active_max")


def run_queues(r):
    """A run's data disks during the file dd (trial.queue_summary): the means of their host
    queues and device queues averaged over the disks, the maxima the largest of any disk."""
    qs = r.get("samples", {}).get("file", {}).get("queues") or {}
    if not qs:
        return {}
    return {k: (max(q[k] for q in qs.values()) if k.endswith("_max") else
                round(sum(q[k] for q in qs.values()) / len(qs), 2)) for k in QUEUE_KEYS}


def pooled_queues(ok):
    """run_queues over the trials: the medians of the means, the largest of the maxima."""
    per = [run_queues(r) for r in ok]
    out = {}
    for k in QUEUE_KEYS:
        vals = [q[k] for q in per if k in q]
        out[k] = (max(vals) if vals else None) if k.endswith("_max") else _med(vals)
    return out


def pooled_syncio(plan, ok):
    """The dd's own synchronous I/O waits (syncio-<id>.csv, dd = 1) per kind: the count and the
    seconds waited per trial (medians), the wait's p50/p99/max over all trials' waits (ms) and
    the mean qahead."""
    per = {k: {"n": [], "s": [], "waits": [], "qahead": []} for k in SYNCIO_KINDS}
    have = False
    for r in ok:
        path = Path(plan.out) / ("syncio-%s.csv" % r["id"])
        if not path.exists():
            continue
        have = True
        with open(path, newline="") as f:
            rows = [e for e in csv.DictReader(f) if e["dd"] == "1"]
        for k in SYNCIO_KINDS:
            waits = [int(e["wait_us"]) for e in rows if e["kind"] == k]
            per[k]["n"].append(len(waits))
            per[k]["s"].append(sum(waits) / 1e6)
            per[k]["waits"] += waits
            per[k]["qahead"] += [int(e["qahead"]) for e in rows if e["kind"] == k]
    if not have:
        return None
    return {k: {"n": _med(v["n"]), "total_s": _med(v["s"]),
                "p50_ms": _ms(series.percentile(v["waits"], 50)), "p99_ms": _ms(series.percentile(v["waits"], 99)),
                "max_ms": _ms(series.percentile(v["waits"], 100)),
                "qahead": round(sum(v["qahead"]) / len(v["qahead"]), 2) if v["qahead"] else None}
            for k, v in per.items()}


def _ms(us):
    return None if us is None else us / 1000


def pooled_probe(plan, ok):
    pooled = {c: [] for c, _ in PROBE_COLS}
    for r in ok:
        path = Path(plan.out) / ("probe-%s.csv" % r["id"])
        if not path.exists():
            continue
        header, rows = series.read_csv(path)
        for c in pooled:
            if c in header:
                pooled[c] += series.column(header, rows, c)
    return {c: {"n": len([v for v in vals if v is not None]), "p50": series.percentile(vals, 50),
                "p99": series.percentile(vals, 99), "max": series.percentile(vals, 100)}
            for c, vals in pooled.items()}


# ---- the table --------------------------------------------------------------------------

def bps(v):
    return "-" if v is None else format(int(round(v)), ",")


def opt(v, fmt="%g"):
    return "n/a" if v is None else fmt % v


def ms3(d):
    if not d or d["n"] == 0:
        return "-"
    return "/".join("%.1f" % (d[k] / 1000) for k in ("p50", "p99", "max"))


def design_text(name):
    """'speedup+onepass = stable42 + vm.pageout_design=onepass vm.max_launder=0': how it boots."""
    preset, args = design_boot(name)
    return "%s = %s%s" % (name, preset, " + " + args if args else "")


def workload_lines(plan):
    o = plan.options
    bs = block_size(o.bs)[1]
    count = o.size_mb * (1 << 20) // bs
    where = "a fresh file system on ccd0 (newfs /dev/ccd0 && mount /dev/ccd0 /data1)"
    if o.layout == "separate":
        where = ("a fresh file system on each data disk (/data1 on the first, ...), one such dd per disk, "
                 "all at once")
    disks = ("disk model %s" % o.disk_model) if o.disk_model else ("throttled to %g MB/s each" % o.throttle
                                                                    if o.throttle else "unthrottled")
    lines = textwrap.wrap("workload: dd if=/dev/zero of=/data1/test bs=%s count=%d (%d MiB) onto %s"
                          % (o.bs, count, o.size_mb, where), width=100, subsequent_indent=" " * 10)
    if o.raw:
        lines.append("ceiling:  dd if=/dev/zero of=/dev/ccd0 bs=%s (%d MiB) in the same boot, before newfs" % (o.raw_bs, o.size_mb))
    swept = [n for n, _ in o.sweeps]
    mem = "RAM per sweep point (mem)" if "mem" in swept else "%d MB RAM" % o.mem
    if any(n.startswith(DISK_AXIS) for n in swept):
        disks += " (%s per sweep point)" % ", ".join(n for n in swept if n.startswith(DISK_AXIS))
    lines.append("machine:  %s, %d CPU, %s%d disks on %s, %s; %d trial(s) per preset"
                 % (mem, o.smp, "ccd0 = " if o.layout == "stripe" else "", o.disks, o.bus, disks, o.trials))
    if o.load:
        parts = {"hog": "a dirty anonymous set of %d MiB (memhog -w)" % o.hog_mb,
                 "reader": "random 4 KB reads of a %d MiB file on the root disk (reread)" % o.reader_mb}
        lines += textwrap.wrap("load:     %s, from before the file dd to after the second; swap on %s"
                               % (" and ".join(parts[p] for p in o.load), swap_disk(o)),
                               width=100, subsequent_indent=" " * 10)
        lines += textwrap.wrap("designs:  " + "; ".join(design_text(d) for d in o.presets), width=100,
                               subsequent_indent=" " * 10)
    if o.sweeps:
        lines.append("sweep:    " + "  ".join("%s=%s" % (n, ",".join(v)) for n, v in o.sweeps))
    if o.sets:
        lines.append("set:      " + " ".join("%s=%s" % (k, v) for k, v in o.sets))
    if o.probe == "separate":
        lines.append("probe:    latprobe beside a second, identical dd after the measured one (rm, sync first)")
    elif o.probe == "same":
        lines.append("probe:    latprobe beside the measured dd (its fsyncs slow the dd down)")
    if not o.samples or o.probe == "off":
        lines.append("without:  " + ", ".join(w for w, on in (("sampler", o.samples), ("probe", o.probe != "off"))
                                              if not on))
    lines.append("B/s = bytes per second as dd prints them; seed = Dillon's Dec 2000 figures (FreeBSD 4.2, real disks)")
    return lines


def columns(header, rows):
    """Rows of strings as aligned text: the first column left-aligned, the others right."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def fmt(r):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return [fmt(header)] + [fmt(r) for r in rows]


def note(text):
    return textwrap.wrap("(" + text + ")", width=100)


def trial_note(g):
    """The last column of a group's row: its failed and suspect trials, and whether the median
    counts the suspect ones."""
    words = []
    if g["failed"]:
        words.append("%d of %d trials failed" % (g["failed"], g["trials"]))
    if g["suspect"]:
        words.append("%d suspect, %s" % (g["suspect"], "left out" if not g["suspect_counted"] else
                                         "counted (all are)" if g["ok"] == g["suspect"] else "counted"))
    return "; ".join(words)


def trust_rows(results):
    """One row per run: what says whether its file dd measured the disks (trust.py)."""
    rows = []
    for r in results:
        if r["status"] != "ok":
            continue
        late = r.get("disk_phases", {}).get("file") or {}
        host = r.get("host", {}).get("file", {})
        idle = trust.guest_idle_pct(r.get("samples", {}).get("file", {}))
        rows.append([r["id"], bps(r["file"]["Bps"]), opt(idle, "%.1f"),
                     "%s (%s)" % (opt(late.get("late_pct"), "%.2f"), opt(late.get("replies"), "%d")) if late else "-",
                     opt(host.get("load1_mean"), "%.1f"), opt(host.get("qemu_pct"), "%.0f"),
                     opt(host.get("servers_pct"), "%.0f"), opt(host.get("others_pct"), "%.0f"), "; ".join(r.get("suspect", [])) or "ok"])
    return rows


def queue_block(gs, lab):
    """The data disks' queues during the file dd: the host queue (waiting) and the device's."""
    rows = [[lab(g), opt(g["queues"]["waiting"], "%.1f"), opt(g["queues"]["active"], "%.1f"),
             opt(g["queues"]["waiting_max"], "%d"), opt(g["queues"]["active_max"], "%d")]
            for g in gs if g["queues"]["active"] is not None]
    if not rows:
        return []
    return columns(["queues per data disk", "host queue", "at the drive", "host max", "drive max"], rows) + [""] + \
        note("during the file dd, median of the trials: requests waiting in the disk's own queue (host) and "
             "handed to the device (at the drive, at most dev.<driver>.<unit>.openings), as means over the dd from "
             "kern.devstat.<disk>.depth_ns and active_ns, averaged over the data disks; max: the most any "
             "sample saw on any data disk") + [""]


def syncio_block(gs, lab):
    """The synchronous I/O the file dd itself waited for, per kind that occurred."""
    rows = []
    for g in gs:
        for k in SYNCIO_KINDS if g["syncio"] else ():
            d = g["syncio"][k]
            rows.append([lab(g), k, opt(d["n"], "%g"), opt(d["total_s"], "%.2f") if d["n"] else "-",
                         "/".join(opt(d[x], "%.1f") for x in ("p50_ms", "p99_ms", "max_ms")) if d["n"] else "-",
                         opt(d["qahead"], "%.1f") if d["n"] else "-"])
    if not rows:
        return []
    return columns(["synchronous I/O of the dd", "kind", "waits", "waited s", "ms p50/p99/max", "qahead"], rows) + \
        [""] + note("the waits of the file dd's own process for a synchronous I/O (syncio -e; docs/bufcache.md "
                    "\"Synchronous I/O\"): waits and seconds waited per trial (median), the wait's percentiles "
                    "over all trials' waits, qahead: the mean requests already at the disk when the I/O arrived") + [""]


def load_blocks(plan, gs, lab):
    """--load: the hog and the reader during the file dd, then what the pageout daemon did."""
    if not plan.options.load:
        return []

    def f(g, c, fmt):
        return opt(g["load"][c], fmt)

    rows = [[lab(g), f(g, "hog.touched_per_s", "%.0f"), f(g, "hog.slowest_pass_s", "%.2f"),
             f(g, "reader.reads_per_s", "%.0f"), f(g, "reader.slowest_interval_rps", "%.0f"),
             f(g, "reader.max_read_ms", "%.1f"), f(g, "reader.hit_pct", "%.1f"), f(g, "reader.disk_reads", "%d")]
            for g in gs]
    out = columns(["load beside the file dd", "hog pages/s", "slowest pass s", "reader reads/s",
                   "slowest interval", "slowest read ms", "hits %", "disk reads"], rows)
    out += [""] + note("median of the trials, over the file dd: the hog (memhog -w %d MiB) touches random pages of its "
                       "dirty anonymous set, pages/s and its slowest pass (as many touches as it has pages) of those "
                       "that overlapped the dd; the reader (reread, %d MiB file %s) reads random 4 KB blocks, "
                       "reads/s, its slowest %d ms interval (reads/s) and slowest read; hits = reads that started "
                       "no disk read (its ru_inblock did not grow), disk reads = the others"
                       % (plan.options.hog_mb, plan.options.reader_mb, LOAD_FILE, load.INTERVAL_MS)) + [""]
    rows = [[lab(g)] + [f(g, "vm." + c, "%d") for c, _ in LOAD_VM] +
            [f(g, "cpu.pagedaemon_s", "%.2f"), f(g, "cpu.bufdaemon_s", "%.2f"),
             "%s/%s" % (f(g, "swapq.mean", "%.1f"), f(g, "swapq.max", "%d"))] for g in gs]
    out += columns(["pageout during the file dd"] + [c.replace("_", " ") for c, _ in LOAD_VM] +
                   ["pd CPU s", "bd CPU s", "swap queue"], rows)
    out += [""] + note("median of the trials, changes over the file dd of vm.stats.vm.%s; pd/bd CPU s: the "
                       "pagedaemon's and the bufdaemon's CPU time (kern.proc ki_runtime); swap queue: the swap "
                       "disk %s's requests outstanding (host queue + at the drive), mean over the dd / the most "
                       "any sample saw" % (", ".join(n for _, n in LOAD_VM), swap_disk(plan.options))) + [""]
    return out


def table_text(plan, gs, results):
    sweep = any(g["point"] for g in gs)

    def lab(g):
        return (point_tag(g["point"]) + " " if sweep else "") + g["preset"]

    lines = ["wdrain experiment '%s' in %s" % (plan.options.name, shown_path(plan.out))] + workload_lines(plan) + [""]
    rows = []
    for g in gs:
        f = g["file_Bps"]
        bad = trial_note(g)
        rows.append([lab(g), bps(_med(f)), bps(min(f)) if f else "-", bps(max(f)) if f else "-",
                     bps(_med(g["raw_Bps"])), opt(g["fraction"], "%.3f"),
                     bps(SEED_BPS.get(g["preset"]) if plan.options.layout == "stripe" else None),
                     bps(_med(g["smooth_Bps"])), bad])
    for point in plan.points():
        by = {g["preset"]: _med(g["file_Bps"]) for g in gs if g["point"] == point}
        tag = (point_tag(point) + " ") if sweep else ""
        if by.get("patched") and by.get("stable42"):
            rows.append([tag + "patched/stable42", "%.3f" % (by["patched"] / by["stable42"]), "", "", "", "",
                         "%.3f" % (SEED_BPS["patched"] / SEED_BPS["stable42"]), "", ""])
            if by.get("perdevice"):
                rows.append([tag + "perdevice/best of both", "%.3f" % (by["perdevice"] / max(by["patched"],
                                                                                             by["stable42"])),
                             "", "", "", "", "", "", ""])
    lines += columns(["preset", "file dd B/s", "min", "max", "raw B/s", "of raw", "seed B/s", "beside probe", ""],
                     rows)
    lines += [""] + note("file dd B/s: median of the trials; of raw: the file dd over the raw ceiling of the "
                         "same boot, median; beside probe: the same dd again with the probe running (median); "
                         "a suspect trial is left out of every median and every block below unless all of its "
                         "group are suspect or --keep-suspect is given")
    lines += [""]
    rows = trust_rows(results)
    if rows:
        lines += columns(["trial", "file dd B/s", "guest idle %", "late % (replies)", "host load", "QEMU %",
                          "models %", "others %", "trusted?"], rows)
        lines += [""] + note("during each file dd: guest idle = %s over the dd's time and CPUs (below %g%%: "
                             "CPU-bound, the dd measured the emulated CPU); late = the disk models' replies sent "
                             "more than 1 ms after their due time, of all replies (above %g%%: the host held the "
                             "disks up; docs/diskmodel.md); host load = the 1-minute load average, QEMU, models and "
                             "others = CPU use in %% of one host CPU by QEMU, by the disk-model servers and by "
                             "everything else" % (trust.IDLE_NS, trust.IDLE_PCT_MIN, trust.LATE_PCT_MAX))
        lines += [""]
    disks = sorted({d for g in gs for d in g["writers_Bps"]})
    if disks:
        rows = [[lab(g)] + ["%s (%s-%s)" % (bps(_med(g["writers_Bps"].get(d, []))), bps(min(g["writers_Bps"][d])),
                                            bps(max(g["writers_Bps"][d]))) if g["writers_Bps"].get(d) else "-"
                            for d in disks] for g in gs]
        lines += columns(["writer B/s"] + ["%s (min-max)" % d for d in disks], rows)
        lines += [""] + note("--layout separate: each disk's dd on its own file system, all at once, its bytes over "
                             "its own time, median of the trials; the file dd B/s above is their sum over the "
                             "slowest one's time") + [""]
    rows = [[lab(g), opt(g["laundered"], "%d"), opt(g["paged_out"], "%d"), opt(g["bd_flushes"], "%d")] +
            [opt(g["blocked_s"][b], "%.1f") + ("" if g["sleeps"][b] is None else " (%d)" % g["sleeps"][b])
             for b in BLOCKED] for g in gs]
    lines += columns(["preset", "laundered", "paged out", "bd flushes"] + ["%s s" % b for b in BLOCKED], rows)
    sources = {b: sorted({f for g in gs for f in g["blocked_from"][b]}) for b in BLOCKED}
    lines += [""] + note("during the file dd, median: pages laundered = %s and paged out = %s; bd flushes = "
                         "%s, the writes the buf_daemon started; <wmesg> s: seconds asleep on it, and (the "
                         "number of sleeps); %s"
                         % (LAUNDERED, " + ".join(PAGEOUTS), BD_FLUSHES,
                            "; ".join("%s from %s" % (b, " and ".join(
                                "the sampled sleepers" if f == "sampled" else f for f in sources[b]) or "-")
                                for b in BLOCKED))) + [""]
    lines += queue_block(gs, lab) + syncio_block(gs, lab) + load_blocks(plan, gs, lab)
    rows = [[lab(g)] + [ms3(g["probe"][c]) for c, _ in PROBE_COLS] for g in gs]
    lines += columns(["probe, ms p50/p99/max"] + [t for _, t in PROBE_COLS], rows)
    lines += [""] + note("latprobe every %d ms beside the %s dd, all trials pooled: stat of %s, a 4 KB read "
                         "of it at a fresh offset, a 512-byte file created, written and fsync'd in /data1"
                         % (plan.options.probe_ms, "second" if plan.options.probe == "separate" else "file",
                            PROBE_FILE))
    cost = sampling_cost(results)
    if cost:
        lines += [""] + note("sampling: %d counters every %d ms; a sample took %.2f ms of CPU on average, %.1f%% "
                             "of the file dd's time (median of the runs; the sampler's own CPU time)"
                             % (cost[0], plan.options.interval_ms, cost[1], cost[2]))
    failed = [r for r in results if r["status"] != "ok"]
    if failed:
        lines += ["", "FAILED runs (%d of %d):" % (len(failed), len(results))]
        lines += ["  %s: %s" % (r["id"], (r["error"] or "").splitlines()[0]) for r in failed]
    return "\n".join(lines) + "\n"


def sampling_cost(results):
    """(columns, ms per sample, % of the file dd's time) from the file dd's samplers, or None."""
    per, frac, ncols = [], [], 0
    for r in results:
        f = r.get("samples", {}).get("file")
        if r["status"] != "ok" or not f or "cpu_us" not in f.get("end", {}):
            continue
        busy, n = int(f["end"]["cpu_us"]), int(f["end"]["samples"])
        per.append(busy / 1000 / max(1, n))
        frac.append(100 * busy / 1e6 / max(1e-6, f["duration_s"]))
        ncols = len(f["first"])
    return (ncols, _med(per), _med(frac)) if per else None


# ---- the files --------------------------------------------------------------------------

RESULT_COLS = ["id", "preset", "trial", "point", "status", "file_bytes", "file_secs", "file_Bps", "writers_Bps",
               "raw_Bps", "file_of_raw", "smooth_Bps", "laundered", "paged_out", "bd_flushes"] + ["blocked_s.%s" % b for b in BLOCKED] + \
              ["sleeps.%s" % b for b in BLOCKED] + \
              ["probe.%s.%s" % (c, k) for c, _ in PROBE_COLS for k in ("p50", "p99", "max")] + \
              ["queue.%s" % k for k in QUEUE_KEYS] + \
              ["syncio.%s.%s" % (k, x) for k in SYNCIO_KINDS for x in ("n", "total_s", "p99_ms", "max_ms")] + \
              ["samples", "samples_late", "guest_idle_pct", "replies", "late_replies", "late_pct", "max_late_ms",
               "host_load1", "host_busy_pct", "host_qemu_pct", "host_servers_pct", "host_others_pct", "suspect", "elapsed_s", "error"]


def result_row(r):
    f, raw = r.get("file", {}), r.get("raw", {})
    delta = r.get("samples", {}).get("file", {}).get("delta", {})
    samp = r.get("samples", {}).get("file", {})
    lat = r.get("probe", {}).get("latency_us", {})
    row = {"id": r["id"], "preset": r["preset"], "trial": r["trial"], "point": point_tag(r["point"]),
           "status": r["status"], "file_bytes": f.get("bytes"), "file_secs": f.get("secs"),
           "file_Bps": f.get("Bps"), "raw_Bps": raw.get("Bps"),
           "writers_Bps": " ".join("%s:%d" % (d, w["Bps"]) for d, w in f.get("writers", {}).items()) or None,
           "file_of_raw": round(f["Bps"] / raw["Bps"], 4) if f and raw else None,
           "smooth_Bps": r.get("smooth", {}).get("Bps"),
           "laundered": delta.get(LAUNDERED), "bd_flushes": delta.get(BD_FLUSHES), "paged_out": counter(delta, PAGEOUTS),
           "samples": samp.get("rows"), "samples_late": samp.get("end", {}).get("late"),
           "guest_idle_pct": trust.guest_idle_pct(samp), "suspect": "; ".join(r.get("suspect", [])) or None,
           "elapsed_s": r.get("elapsed_s"), "error": (r.get("error") or "").splitlines()[0] if r.get("error") else None}
    for k, v in run_queues(r).items():
        row["queue." + k] = v
    sync = r.get("syncio", {}).get("file", {})
    for k in SYNCIO_KINDS:
        for x in ("n", "total_s", "p99_ms", "max_ms"):
            row["syncio.%s.%s" % (k, x)] = sync.get(k, {}).get(x)
    late = r.get("disk_phases", {}).get("file") or {}
    host = r.get("host", {}).get("file", {})
    row.update({"replies": late.get("replies"), "late_replies": late.get("late_replies"),
                "late_pct": late.get("late_pct"), "max_late_ms": late_max_ms(r),
                "host_load1": host.get("load1_mean"), "host_busy_pct": host.get("busy_pct"),
                "host_qemu_pct": host.get("qemu_pct"), "host_servers_pct": host.get("servers_pct"),
                "host_others_pct": host.get("others_pct")})
    for b in BLOCKED:
        secs, sleeps, _ = blocked_time(samp, b)
        row["blocked_s." + b] = None if secs is None else round(secs, 3)
        row["sleeps." + b] = sleeps
    for c, _ in PROBE_COLS:
        for k in ("p50", "p99", "max"):
            row["probe.%s.%s" % (c, k)] = lat.get(c, {}).get(k)
    return row


def late_max_ms(r):
    """The worst lateness of any data disk's reply over the whole boot (the stats files keep only
    the maximum since the server started)."""
    vals = [d["max_late_ms"] for d in r.get("disk_stats") or [] if "max_late_ms" in d]
    return max(vals) if vals else None


def shown_path(path):
    """A path as the result files print it: relative to the checkout when inside it, so a
    published run names no directory of the machine it ran on."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(wdrun.ROOT.resolve()))
    except ValueError:
        return str(path)


def manifest_text(plan, results):
    e, o = plan.env, plan.options
    lines = ["experiment:  %s" % o.name, "folder:      %s" % shown_path(plan.out), "planned:     %s" % plan.created,
             "gathered:    %s" % time.strftime("%Y-%m-%dT%H:%M:%S%z"),
             "command:     %s" % e.get("command", ""), "git:         %s" % e.get("git", ""),
             "qemu:        %s" % e.get("qemu", ""), "nbdkit:      %s" % e.get("nbdkit", ""),
             "python:      %s" % e.get("python", ""),
             "root image:  %s" % shown_path(plan.root_image)]
    h = e.get("planned_on", {})
    usable = h.get("usable", h.get("ncpu"))
    lines.append("planned on:  %s, %s x %s%s, load average %s" % (
        h.get("host"), h.get("ncpu"), h.get("cpu"),
        " (%s usable: the CPU affinity the run inherited)" % usable if usable != h.get("ncpu") else "",
        " ".join(map(str, h.get("loadavg", [])))))
    lines.append("options:")
    for k, v in sorted(vars(o).items()):
        lines.append("  %-12s %s" % (k, json.dumps(v)))
    lines.append("runs (host, load average before -> after, seconds):")
    for r in results:
        b, a = r.get("host_before", {}), r.get("host_after", {})
        lines.append("  %-32s %-8s %s %s -> %s  %s s" % (r["id"], r["status"], b.get("host", "?"),
                                                         b.get("loadavg", "?"), a.get("loadavg", "?"),
                                                         r.get("elapsed_s")))
    lines.append("")
    return "\n".join(lines)


def write_results_csv(path, results, loaded):
    cols = RESULT_COLS + (LOAD_COLS if loaded else [])
    rows = [dict(result_row(r), **load_figures(r)) for r in results]
    series.write_csv(path, cols, [[row.get(c) for c in cols] for row in rows])


def group_row(plan, g, gs):
    """groups.csv's row of a group: its sweep point's axes, the preset, the medians."""
    f = g["file_Bps"]
    base = next((_med(h["file_Bps"]) for h in gs if h["point"] == g["point"] and h["preset"] == "stable42"), None)
    row = {a: (g["preset"] if a == "preset" else g["point"].get(a)) for a, _ in plan.options.sweeps}
    row.update({"preset": g["preset"], "trials": g["trials"], "failed": g["failed"], "suspect": g["suspect"],
                "counted": g["ok"], "file_Bps": _med(f), "file_Bps_min": min(f) if f else None,
                "file_Bps_max": max(f) if f else None,
                "of_stable42": round(_med(f) / base, 4) if f and base else None,
                "raw_Bps": _med(g["raw_Bps"]), "file_of_raw": g["fraction"], "smooth_Bps": _med(g["smooth_Bps"]),
                "laundered": g["laundered"], "paged_out": g["paged_out"], "bd_flushes": g["bd_flushes"]})
    for b in BLOCKED:
        row["blocked_s." + b] = g["blocked_s"][b]
        row["sleeps." + b] = g["sleeps"][b]
    for c, _ in PROBE_COLS:
        for k in ("p50", "p99", "max"):
            row["probe.%s.%s" % (c, k)] = g["probe"][c][k]
    for k in QUEUE_KEYS:
        row["queue." + k] = g["queues"][k]
    for k in SYNCIO_KINDS:
        for x in ("n", "total_s", "p50_ms", "p99_ms", "max_ms", "qahead"):
            row["syncio.%s.%s" % (k, x)] = (g["syncio"] or {}).get(k, {}).get(x)
    row.update(g["load"] or {})
    for disk, bps in sorted(g["writers_Bps"].items()):      # --layout separate
        row.update({"writer.%s_Bps" % disk: _med(bps), "writer.%s_Bps_min" % disk: min(bps),
                    "writer.%s_Bps_max" % disk: max(bps)})
    return row


def write_groups_csv(path, plan, gs):
    rows = [group_row(plan, g, gs) for g in gs]
    header = list(dict.fromkeys(c for r in rows for c in r))      # a failed group has no writers
    series.write_csv(path, header, [[r.get(c) for c in header] for r in rows])


def gather(plan):
    results = [read_result(plan, r) for r in plan.runs]
    gs = groups(plan, results)
    text = table_text(plan, gs, results)
    out = Path(plan.out)
    (out / "summary.txt").write_text(text)
    write_results_csv(out / "results.csv", results, bool(plan.options.load))
    write_groups_csv(out / "groups.csv", plan, gs)
    (out / "results.json").write_text(json.dumps({
        "experiment": plan.options.name, "options": vars(plan.options),
        "env": plan.env, "seed_Bps": SEED_BPS, "groups": gs, "runs": results}, indent=1) + "\n")
    (out / "manifest.txt").write_text(manifest_text(plan, results))
    return results, gs, text
