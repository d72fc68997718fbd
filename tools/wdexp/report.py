"""report: a folder's runs gathered into the table and the result files.

  environment()          git revision, QEMU and nbdkit versions, host CPU, load: for plan.json
  gather(plan)           reads every runs/<id>/run.json (a missing one is a failed run) and
                         writes summary.txt, results.csv, results.json and manifest.txt;
                         returns (results, groups, summary text)
  groups(plan, results)  one group per (sweep point, preset): the trials that succeeded,
                         median/min/max of the file dd's bytes/sec, the raw ceiling, the file
                         dd as a fraction of it (per boot, then the median), the pages laundered
                         and paged out, the process-seconds blocked per wait message, and the
                         probe's latencies pooled over the trials (p50/p99/max)

"laundered" is vm.stats.vm.v_pdlaundered, "paged out" v_swappgsout + v_vnodepgsout (FreeBSD's
names), each as its change over the file dd ("n/a" if the samples lack it). Blocked times are
the buffer cache's own (vfs.bufdaemon.flswai_ns, wdrain_ns) where it counts them, else sampled
estimates (series.py); blocked_time().
"""
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

from . import series
from .batch import read_result
from .plan import PROBE_FILE, SEED_BPS, point_tag
from .trial import host_info

LAUNDERED = "vm.stats.vm.v_pdlaundered"                     # docs/vm.md
BD_FLUSHES = "vfs.bufdaemon.flushes"                        # writes the buf_daemon started
PAGEOUTS = ("vm.stats.vm.v_swappgsout", "vm.stats.vm.v_vnodepgsout")
BLOCKED = ("flswai", "wdrain", "wdrdev", "newbuf")
# the buffer cache's counters of these sleeps (docs/bufcache.md "Tunables and counters")
BLOCKED_NS = {"flswai": "vfs.bufdaemon.flswai_ns", "wdrain": "vfs.bufdaemon.wdrain_ns",
              "wdrdev": "vfs.bufdaemon.wdrdev_ns"}
SLEEPS = {"flswai": "vfs.bufdaemon.sleeps_flswai", "wdrain": "vfs.bufdaemon.sleeps_wdrain",
          "wdrdev": "vfs.bufdaemon.sleeps_wdrdev", "newbuf": "vfs.bio.sleeps_newbuf"}
PROBE_COLS = (("stat_us", "stat"), ("read_us", "read 4K"), ("write_us", "create+write+fsync"))


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
            g = {"point": point, "preset": preset, "trials": len(rs), "ok": len(ok),
                 "file_Bps": [r["file"]["Bps"] for r in ok]}
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
            g["median_run"] = median_run(ok)
            out.append(g)
    return out


def median_run(ok):
    """The id of the trial whose file dd was the median (the one the time-series plots show)."""
    if not ok:
        return None
    ranked = sorted(ok, key=lambda r: r["file"]["Bps"])
    return ranked[(len(ranked) - 1) // 2]["id"]


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
    lines.append("machine:  %d MB RAM, %d CPU, %s%d disks on %s, %s; %d trial(s) per preset"
                 % (o.mem, o.smp, "ccd0 = " if o.layout == "stripe" else "", o.disks, o.bus, disks, o.trials))
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


def table_text(plan, gs, results):
    sweep = any(g["point"] for g in gs)

    def lab(g):
        return (point_tag(g["point"]) + " " if sweep else "") + g["preset"]

    lines = ["wdrain experiment '%s' in %s" % (plan.options.name, plan.out)] + workload_lines(plan) + [""]
    rows = []
    for g in gs:
        f = g["file_Bps"]
        bad = "" if g["ok"] == g["trials"] else "%d of %d trials failed" % (g["trials"] - g["ok"], g["trials"])
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
                         "same boot, median; beside probe: the same dd again with the probe running (median)")
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
              ["samples", "samples_late", "elapsed_s", "error"]


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
           "elapsed_s": r.get("elapsed_s"), "error": (r.get("error") or "").splitlines()[0] if r.get("error") else None}
    for b in BLOCKED:
        secs, sleeps, _ = blocked_time(samp, b)
        row["blocked_s." + b] = None if secs is None else round(secs, 3)
        row["sleeps." + b] = sleeps
    for c, _ in PROBE_COLS:
        for k in ("p50", "p99", "max"):
            row["probe.%s.%s" % (c, k)] = lat.get(c, {}).get(k)
    return row


def manifest_text(plan, results):
    e, o = plan.env, plan.options
    lines = ["experiment:  %s" % o.name, "folder:      %s" % plan.out, "planned:     %s" % plan.created,
             "gathered:    %s" % time.strftime("%Y-%m-%dT%H:%M:%S%z"),
             "command:     %s" % e.get("command", ""), "git:         %s" % e.get("git", ""),
             "qemu:        %s" % e.get("qemu", ""), "nbdkit:      %s" % e.get("nbdkit", ""),
             "python:      %s" % e.get("python", ""),
             "root image:  %s" % plan.root_image]
    h = e.get("planned_on", {})
    lines.append("planned on:  %s, %s x %s, load average %s" % (h.get("host"), h.get("ncpu"), h.get("cpu"),
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


def write_results_csv(path, results):
    rows = [result_row(r) for r in results]
    series.write_csv(path, RESULT_COLS, [[row[c] for c in RESULT_COLS] for row in rows])


def gather(plan):
    results = [read_result(plan, r) for r in plan.runs]
    gs = groups(plan, results)
    text = table_text(plan, gs, results)
    out = Path(plan.out)
    (out / "summary.txt").write_text(text)
    write_results_csv(out / "results.csv", results)
    (out / "results.json").write_text(json.dumps({
        "experiment": plan.options.name, "options": vars(plan.options),
        "env": plan.env, "seed_Bps": SEED_BPS, "groups": gs, "runs": results}, indent=1) + "\n")
    (out / "manifest.txt").write_text(manifest_text(plan, results))
    return results, gs, text
