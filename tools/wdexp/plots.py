"""plots: PNGs drawn by gnuplot (Debian's gnuplot-nox) from an experiment folder's CSVs.

  draw_all(plan, groups)  writes one gnuplot script per plot into DIR/gnuplot/ and runs it;
                          returns (PNG names, [(plot, why it was not drawn)]).

Per preset (and sweep point), from its median trial (report.median_run), over the seconds
since the file dd started:
  plot-[<point>-]<preset>-rate.png      MB/s written by dd and completed by each disk
  ...-dirty.png                         vfs.numdirtybuffers, with lo/hidirtybuffers
  ...-running.png                       vfs.runningbufspace in KB, with lo/hirunningspace
  ...-vm.png                            free/cache/inactive pages, with the VM's targets
  ...-queue.png                         requests per disk: each data disk's host queue and the
                                        requests at its drive (kern.devstat.<d>.waiting, .active),
                                        and what other disks had outstanding (queue_depth: ccd0)
  ...-syncio.png                        each synchronous I/O the dd waited for (ms, log scale),
                                        by kind (syncio-<id>.csv)
  ...-perdevice.png                     write bytes in flight per disk (vfs.perdevice.<disk>.
                                        runningbufspace, KB) with each disk's budget (dashed)
  ...-syncfirst.png                     (the syncfirst design's presets) each data disk's depth,
                                        the async writes its drive may hold (vfs.syncfirst.<disk>.
                                        depth), and the mean latency of its synchronous requests
                                        in each sample (kern.devstat.<disk>.sync_ns / syncs, ms,
                                        right axis) with the target (vfs.syncfirst.target_ms);
  ...-syncfirst-smooth.png              the same beside the probe (the second dd's samples)
  ...-blocked.png                       processes asleep per wait message (flswai, wdrain,
                                        wdrdev, newbuf always; any other that was ever non-zero)
  ...-probe.png                         latprobe's latencies (ms, log scale)
With --load also:
  ...-pages.png                         the page queues: free, cache, inactive, active (and wired)
  ...-load.png                          the hog's pages touched per second, the reader's reads
                                        and disk reads per second (hog-<id>.csv, reader-<id>.csv)
and plot-[<point>-]compare-hog.png and -reader.png, those rates of every design on one plot.
All presets on the same axes, one plot per metric: plot-[<point>-]compare-<metric>.png for
rate, dirty, running, free, blocked (flswai + wdrain + wdrdev + newbuf + wswbuf0), syncio (the
dd's synchronous I/O waits) and each probe latency.
With sweeps: plot-sweep-<axis>.png for every swept axis (a sysctl, disk.<param>, openings, mem,
preset), the file dd's MB/s (median, min-max bars) against the axis's values, one line per
preset and per combination of the other axes' values.
Always plot-tradeoff.png: the trade-off, one point per preset (and sweep point): the file dd's
MB/s (median) and the dd's beside the probe against the probe's create+write+fsync p99, so the
design that dominates is up and to the left; a preset's sweep points are joined into a curve.
A plot whose counters this kernel does not have (yet) is skipped and listed as such.

From published runs (tools/experiment --grid-plot PNG RUN...; docs/experiments.md "Where the
seed's result holds"):
  draw_grid(runs, png)                  the grid of drives in one figure: patched's file dd over
                                        stable42's against the drive's tags (log scale), a line
                                        without the write cache and one with it; each run's
                                        drive read from its manifest.txt (grid_cell)
The scripts stay in DIR/gnuplot/ to be edited and re-run (`cd DIR && gnuplot gnuplot/X.gp`);
`tools/experiment --replot DIR` writes and runs them again.
"""
import csv
import json
import re
import shutil
import statistics
import subprocess
from pathlib import Path

import wdrun

from . import series
from .plan import data_disks, point_tag, swap_disk

VM = "vm.stats.vm."
BLOCKED = ("flswai", "wdrain", "wdrdev", "newbuf", "wswbuf0")
SYNCIO_KINDS = ("metaread", "metawrite", "dataread", "datawrite", "fsync")
PERDEVICE = "vfs.perdevice."
SYNCFIRST = "vfs.syncfirst."
PROBES = (("stat_us", "stat"), ("read_us", "read 4 KB"), ("write_us", "create+write+fsync"))

# name: (title, y label, [(column, title, scale)], [(column of a level, title, scale)])
PER_RUN = {
    "dirty": ("dirty buffers", "buffers", [("vfs.numdirtybuffers", "numdirtybuffers", 1)],
              [("vfs.lodirtybuffers", "lodirtybuffers", 1), ("vfs.hidirtybuffers", "hidirtybuffers", 1)]),
    "running": ("write I/O in flight", "KB", [("vfs.runningbufspace", "runningbufspace", 1 / 1024)],
                [("vfs.lorunningspace", "lorunningspace", 1 / 1024), ("vfs.hirunningspace", "hirunningspace", 1 / 1024)]),
    "vm": ("page queues", "pages", [(VM + "v_free_count", "free", 1), (VM + "v_cache_count", "cache", 1),
                                    (VM + "v_inactive_count", "inactive", 1)],
           [(VM + "v_free_min", "v_free_min", 1), (VM + "v_free_target", "v_free_target", 1),
            (VM + "v_cache_min", "v_cache_min", 1), (VM + "v_inactive_target", "v_inactive_target", 1)]),
}
COMPARE = {"rate": ("rate.dd", "MB/s written by dd", 1), "dirty": ("vfs.numdirtybuffers", "numdirtybuffers", 1),
           "running": ("vfs.runningbufspace", "runningbufspace (KB)", 1 / 1024),
           "free": (VM + "v_free_count", "free pages", 1)}
PAGES = (("v_free_count", "free"), ("v_cache_count", "cache"), ("v_inactive_count", "inactive"),
         ("v_active_count", "active"), ("v_wire_count", "wired"))
LOAD_RATES = {"hog": [("touched_per_s", "hog: pages touched/s")],
              "reader": [("reads_per_s", "reader: reads/s"), ("disk_reads_per_s", "reader: disk reads/s")]}
XLABEL = "seconds since the file dd started"
NO_SYNCIO = "synchronous I/O is not collected under --load (docs/harness.md, \"What runs\")"


def q(s):
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"')


def head(png, title, ylabel, xlabel=XLABEL, logy=False):
    return "\n".join([
        "set terminal pngcairo size 1000,560 font 'sans,10' noenhanced",
        "set output %s" % q(png), "set datafile separator ','", "set grid", "set key outside right top",
        "set title %s" % q(title), "set xlabel %s" % q(xlabel), "set ylabel %s" % q(ylabel),
        "set logscale y" if logy else "set yrange [0:*]", ""])


def col(name, scale=1):
    return '(column("%s")*%r)' % (name, scale) if scale != 1 else '"%s"' % name


class Drawer:
    def __init__(self, plan):
        self.out = Path(plan.out)
        self.gpdir = self.out / "gnuplot"
        self.drawn, self.skipped = [], []
        self._csv = {}
        self.data_disks = data_disks(plan.options) + ([swap_disk(plan.options)] if plan.options.load else [])
        self.load = plan.options.load

    def table(self, name):
        if name not in self._csv:
            path = self.out / name
            self._csv[name] = series.read_csv(path) if path.exists() else ([], [])
        return self._csv[name]

    def first(self, csvname, column):
        header, rows = self.table(csvname)
        if column not in header:
            return None
        return next((v for v in series.column(header, rows, column) if v is not None), None)

    def has(self, csvname, column):
        return column in self.table(csvname)[0]

    def draw(self, name, script):
        self.gpdir.mkdir(exist_ok=True)
        gp = self.gpdir / (name + ".gp")
        gp.write_text(script)
        r = subprocess.run(["gnuplot", str(gp.relative_to(self.out))], cwd=self.out, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or not (self.out / (name + ".png")).exists():
            self.skipped.append((name, "gnuplot failed: " + r.stdout.strip()[-300:]))
        else:
            self.drawn.append(name + ".png")

    def skip(self, name, why):
        self.skipped.append((name, why))

    # -- one run --

    def per_run(self, prefix, run_id, label):
        csvname = "samples-%s.csv" % run_id
        if not self.table(csvname)[0]:
            self.skip(prefix + "*", "no samples for %s" % run_id)
            return
        header, rows = self.table(csvname)
        rates = [("rate.dd", "written by dd")] + [(h, "completed by " + h[5:]) for h in header
                                                   if h.startswith("rate.") and h != "rate.dd"
                                                   and any(series.column(header, rows, h))]
        lines = ["%s using \"t_s\":%s with lines title %s" % (q(csvname), col(c), q(t)) for c, t in rates]
        self.draw(prefix + "rate", head(prefix + "rate.png", "%s: write rate" % label, "MB/s (10^6 B/s)")
                  + "plot " + ", \\\n     ".join(lines) + "\n")
        for metric, (title, ylabel, cols, levels) in PER_RUN.items():
            if not self.has(csvname, cols[0][0]):
                self.skip(prefix + metric, "this kernel has no %s" % cols[0][0])
                continue
            parts = ["%s using \"t_s\":%s with lines lw 2 title %s" % (q(csvname), col(c, s), q(t))
                     for c, t, s in cols if self.has(csvname, c)]
            for c, t, s in levels:
                v = self.first(csvname, c)
                if v is not None:
                    parts.append("%r with lines dt 2 title %s" % (v * s, q("%s = %s" % (t, v))))
            self.draw(prefix + metric, head(prefix + metric + ".png", "%s: %s" % (label, title), ylabel)
                      + "plot " + ", \\\n     ".join(parts) + "\n")
        self.queues(prefix, csvname, label)
        self.perdevice(prefix, csvname, label)
        self.syncio(prefix, run_id, label)
        self.blocked(prefix, csvname, label)
        self.probe(prefix, run_id, label)
        if self.load:
            self.pages(prefix, csvname, label)
            self.load_rates(prefix, run_id, label)

    def pages(self, prefix, csvname, label):
        """The page queues side by side: where the hog's, the reader's and the dd's pages are."""
        parts = ["%s using \"t_s\":\"%s\" with lines lw 2 title %s" % (q(csvname), VM + c, q(t))
                 for c, t in PAGES if self.has(csvname, VM + c)]
        self.draw(prefix + "pages", head(prefix + "pages.png", "%s: page queues" % label, "pages")
                  + "plot " + ", \\\n     ".join(parts) + "\n")

    def load_rates(self, prefix, run_id, label):
        parts = []
        for part, cols in LOAD_RATES.items():
            csvname = "%s-%s.csv" % (part, run_id)
            parts += ["%s using \"t_s\":\"%s\" with steps lw 2 title %s" % (q(csvname), c, q(t))
                      for c, t in cols if self.has(csvname, c)]
        if not parts:
            self.skip(prefix + "load", "no load records for %s" % run_id)
            return
        self.draw(prefix + "load", head(prefix + "load.png", "%s: the load beside the dd" % label, "per second",
                                        logy=True) + "plot " + ", \\\n     ".join(parts) + "\n")

    def queues(self, prefix, csvname, label):
        """Each data disk's host queue and its requests at the drive (a modelled disk streams
        only with a few writes at the drive: docs/diskmodel.md), and the requests outstanding on
        the disks without a queue of their own (ccd0), for every disk that had any."""
        header, rows = self.table(csvname)

        def busy(h):
            return h in header and any(series.column(header, rows, h))

        parts = []
        for h in header:
            if not (h.startswith(series.DEVSTAT) and h.endswith(".queue_depth") and busy(h)):
                continue
            disk = h[len(series.DEVSTAT):-len(".queue_depth")]
            base = series.DEVSTAT + disk
            if disk in self.data_disks:
                parts += ["%s using \"t_s\":\"%s\" with steps title %s" % (q(csvname), base + c, q("%s %s" % (disk, t)))
                          for c, t in ((".waiting", "host queue"), (".active", "at the drive"))]
            else:
                parts.append("%s using \"t_s\":\"%s\" with steps title %s" % (q(csvname), h, q(disk + " outstanding")))
        if not parts:
            self.skip(prefix + "queue", "no disk had requests queued")
            return
        self.draw(prefix + "queue", head(prefix + "queue.png", "%s: requests per disk" % label,
                                         "requests") + "plot " + ", \\\n     ".join(parts) + "\n")

    def perdevice(self, prefix, csvname, label):
        """Write bytes in flight charged to each disk that had any, and its budget (every design
        counts them; only perdevice waits on them: docs/bufcache.md "The perdevice design")."""
        header, rows = self.table(csvname)
        names = [h for h in header if h.startswith(PERDEVICE) and h.endswith(".runningbufspace")
                 and any(series.column(header, rows, h))]
        if not names:
            self.skip(prefix + "perdevice", "no per-disk write counts in the samples")
            return
        parts = []
        for h in names:
            disk = h[len(PERDEVICE):-len(".runningbufspace")]
            parts.append("%s using \"t_s\":%s with steps lw 2 title %s" % (q(csvname), col(h, 1 / 1024), q(disk)))
            hi = PERDEVICE + disk + ".hirunningspace"
            if self.has(csvname, hi):
                parts.append("%s using \"t_s\":%s with lines dt 2 title %s" % (q(csvname), col(hi, 1 / 1024),
                                                                              q(disk + " budget")))
        self.draw(prefix + "perdevice", head(prefix + "perdevice.png", "%s: write I/O in flight per disk" % label,
                                             "KB") + "plot " + ", \\\n     ".join(parts) + "\n")

    def syncfirst(self, name, csvname, label):
        """The syncfirst design's queue rule at work (docs/bufcache.md "The syncfirst design"):
        each data disk's depth, and the mean latency of the synchronous requests completed at it in
        each sample interval (the first sample only starts the differences), against the target
        the rule holds it to."""
        header = self.table(csvname)[0]
        disks = [d for d in self.data_disks if SYNCFIRST + d + ".depth" in header]
        if not disks:
            self.skip(name, "no vfs.syncfirst.<disk>.depth in %s" % csvname)
            return
        parts = []
        for i, d in enumerate(disks):
            parts.append("%s using \"t_s\":\"%s\" with steps lw 2 title %s" % (q(csvname), SYNCFIRST + d + ".depth",
                                                                           q(d + " depth")))
            n, ns = series.DEVSTAT + d + ".syncs", series.DEVSTAT + d + ".sync_ns"
            if n in header and ns in header:
                lat = ('(dn = column("%s") - n%d, dt = column("%s") - t%d, was = n%d, n%d = column("%s"), '
                       't%d = column("%s"), was >= 0 && dn > 0 ? dt / dn / 1e6 : NaN)' % (n, i, ns, i, i, i, n, i, ns))
                parts.append("%s using \"t_s\":%s axes x1y2 with points pt 7 ps 0.5 title %s"
                             % (q(csvname), lat, q(d + " synchronous latency")))
        target = self.first(csvname, SYNCFIRST + "target_ms")
        if target is not None:
            parts.append("%r axes x1y2 with lines dt 2 title %s" % (target, q("target_ms = %s" % target)))
        init = "".join("n%d = -1; t%d = 0\n" % (i, i) for i in range(len(disks)))
        script = head(name + ".png", "%s: async writes each drive may hold, and synchronous latency" % label,
                      "depth (requests)")
        script += "set y2label 'ms (mean per sample)'\nset y2tics\nset logscale y2\n" + init
        self.draw(name, script + "plot " + ", \\\n     ".join(parts) + "\n")

    def tradeoff(self, plan, gs):
        """The designs' trade-off: the file dd's MB/s and the dd's beside the probe against the
        probe's create+write+fsync p99, a point per preset and sweep point; a preset's points of
        a sweep joined in the grid's order, each labelled with its point."""
        sweep = bool(plan.options.sweeps)
        blocks, parts, labels = [], [], []
        for i, preset in enumerate(plan.options.presets):
            pts = [g for g in gs if g["preset"] == preset and g["probe"]["write_us"]["p99"] is not None]
            for j, (key, title) in enumerate((("file_Bps", "file dd"), ("smooth_Bps", "beside the probe"))):
                rows = ["%r %r" % (g["probe"]["write_us"]["p99"] / 1000, statistics.median(g[key]) / 1e6)
                        for g in pts if g[key]]
                if not rows:
                    continue
                blocks.append("$T%d_%d << EOD\n%s\nEOD" % (i, j, "\n".join(rows)))
                parts.append("$T%d_%d using 1:2 with linespoints lw 2 pt %d ps 1.5 lc %d title %s"
                             % (i, j, 7 if j == 0 else 6, i + 1, q("%s: %s" % (preset, title))))
            for g in pts:
                if sweep and g["file_Bps"]:
                    labels.append("set label %s at %r,%r offset 1,0.5 font ',8'"
                                  % (q(point_tag(g["point"])), g["probe"]["write_us"]["p99"] / 1000,
                                     statistics.median(g["file_Bps"]) / 1e6))
        if not parts:
            self.skip("plot-tradeoff", "no run had both a dd and the probe")
            return
        script = head("plot-tradeoff.png", "throughput against the probe's create+write+fsync p99 (up and left is better)",
                      "MB/s (median of the trials)", xlabel="probe create+write+fsync p99, ms (all trials pooled)")
        script += "set datafile separator whitespace\nset xrange [0:*]\n" + "".join(l + "\n" for l in labels)
        self.draw("plot-tradeoff", script + "\n".join(blocks) + "\nplot " + ", \\\n     ".join(parts) + "\n")

    def syncio(self, prefix, run_id, label):
        csvname = "syncio-%s.csv" % run_id
        kinds = self.syncio_kinds(csvname)
        if self.load:
            self.skip(prefix + "syncio", NO_SYNCIO)
            return
        if not kinds:
            self.skip(prefix + "syncio", "the dd of %s waited for no synchronous I/O" % run_id)
            return
        parts = ["%s using \"t_s\":%s with points pt 7 ps 0.5 title %s" % (q(csvname), syncio_expr(k), q(k))
                 for k in kinds]
        self.draw(prefix + "syncio", head(prefix + "syncio.png", "%s: synchronous I/O the dd waited for" % label,
                                          "ms", logy=True) + "plot " + ", \\\n     ".join(parts) + "\n")

    def syncio_kinds(self, csvname):
        """The kinds of the dd's own waits in a syncio CSV (read as text: the kind is a word)."""
        path = self.out / csvname
        if not path.exists():
            return []
        with open(path, newline="") as f:
            seen = {e["kind"] for e in csv.DictReader(f) if e["dd"] == "1"}
        return [k for k in SYNCIO_KINDS if k in seen]

    def blocked(self, prefix, csvname, label):
        header, rows = self.table(csvname)
        names = [h for h in header if h.startswith("wchan.") and
                 (h[6:] in BLOCKED or any(v for v in series.column(header, rows, h)))]
        if not names:
            self.skip(prefix + "blocked", "no wait messages were sampled")
            return
        parts = ["%s using \"t_s\":\"%s\" with steps title %s" % (q(csvname), h, q(h[6:])) for h in names]
        self.draw(prefix + "blocked", head(prefix + "blocked.png", "%s: processes asleep per wait message" % label,
                                           "processes") + "plot " + ", \\\n     ".join(parts) + "\n")

    def probe(self, prefix, run_id, label):
        csvname = "probe-%s.csv" % run_id
        header = self.table(csvname)[0]
        cols = [(c, t) for c, t in PROBES if c in header]
        if not cols:
            self.skip(prefix + "probe", "no probe data for %s" % run_id)
            return
        parts = ["%s using \"t_s\":(column(\"%s\")/1000.0) with points pt 7 ps 0.4 title %s" % (q(csvname), c, q(t))
                 for c, t in cols]
        self.draw(prefix + "probe", head(prefix + "probe.png", "%s: probe latency" % label, "ms", logy=True)
                  + "plot " + ", \\\n     ".join(parts) + "\n")

    # -- all presets --

    def compare(self, prefix, runs, label):
        """runs: [(preset, run id)] of the median trials."""
        csvs = [(p, "samples-%s.csv" % rid) for p, rid in runs]
        for metric, (column, ylabel, scale) in COMPARE.items():
            have = [(p, c) for p, c in csvs if self.has(c, column)]
            if not have:
                self.skip(prefix + metric, "no %s in the samples" % column)
                continue
            parts = ["%s using \"t_s\":%s with lines lw 2 title %s" % (q(c), col(column, scale), q(p)) for p, c in have]
            self.draw(prefix + metric, head(prefix + metric + ".png", "%s%s" % (label, ylabel), ylabel)
                      + "plot " + ", \\\n     ".join(parts) + "\n")
        have = [(p, c) for p, c in csvs if all(self.has(c, "wchan." + b) for b in BLOCKED)]
        if have:
            expr = "+".join('column("wchan.%s")' % b for b in BLOCKED)
            parts = ["%s using \"t_s\":(%s) with steps lw 2 title %s" % (q(c), expr, q(p)) for p, c in have]
            self.draw(prefix + "blocked", head(prefix + "blocked.png", "%swriters blocked (%s)" % (label, " + ".join(BLOCKED)),
                                               "processes") + "plot " + ", \\\n     ".join(parts) + "\n")
        else:
            self.skip(prefix + "blocked", "no wait-message counts in the samples")
        have = [(p, "syncio-%s.csv" % rid) for p, rid in runs if self.syncio_kinds("syncio-%s.csv" % rid)]
        if self.load:
            self.skip(prefix + "syncio", NO_SYNCIO)
        elif have:
            parts = ["%s using \"t_s\":%s with points pt 7 ps 0.5 title %s" % (q(c), syncio_expr(None), q(p))
                     for p, c in have]
            self.draw(prefix + "syncio", head(prefix + "syncio.png", "%ssynchronous I/O the dd waited for (all kinds)"
                                              % label, "ms", logy=True) + "plot " + ", \\\n     ".join(parts) + "\n")
        else:
            self.skip(prefix + "syncio", "no dd waited for synchronous I/O")
        for part, cols in LOAD_RATES.items() if self.load else ():
            c, t = cols[0]
            have = [(p, "%s-%s.csv" % (part, rid)) for p, rid in runs if self.has("%s-%s.csv" % (part, rid), c)]
            if not have:
                self.skip(prefix + part, "no %s records" % part)
                continue
            lines = ["%s using \"t_s\":\"%s\" with steps lw 2 title %s" % (q(f), c, q(p)) for p, f in have]
            self.draw(prefix + part, head(prefix + part + ".png", "%s%s" % (label, t), "per second")
                      + "plot " + ", \\\n     ".join(lines) + "\n")
        for c, t in PROBES:
            have = [(p, "probe-%s.csv" % rid) for p, rid in runs if self.has("probe-%s.csv" % rid, c)]
            name = prefix + "probe-" + c[:-3]
            if not have:
                self.skip(name, "no probe data")
                continue
            parts = ["%s using \"t_s\":(column(\"%s\")/1000.0) with points pt 7 ps 0.4 title %s" % (q(f), c, q(p))
                     for p, f in have]
            self.draw(name, head(name + ".png", "%sprobe latency: %s" % (label, t), "ms", logy=True)
                      + "plot " + ", \\\n     ".join(parts) + "\n")

    # -- sweeps --

    def sweep(self, plan, gs):
        """One plot per swept axis: the file dd's MB/s against the axis, a line per preset and per
        combination of the other axes' values (so a grid of two axes is drawn from both sides)."""
        axes = [n for n, _ in plan.options.sweeps]
        for name, values in plan.options.sweeps:
            others = [a for a in axes if a != name]
            lines = {}
            for g in gs:
                if not g["file_Bps"]:
                    continue
                key = " ".join(["" if name == "preset" else g["preset"]] +
                               ["%s=%s" % (a, axis_value(g, a)) for a in others if a != "preset"]).strip()
                vals = [v / 1e6 for v in g["file_Bps"]]
                lines.setdefault(key or "file dd", []).append(
                    (axis_value(g, name), statistics.median(vals), min(vals), max(vals)))
            if not lines:
                self.skip("plot-sweep-" + name, "no successful runs")
                continue
            numeric = all(_isnum(v) for v in values)
            blocks, parts = [], []
            for i, (key, pts) in enumerate(sorted(lines.items())):
                rows = ["%s %r %r %r" % (v if numeric else values.index(v), m, lo, hi) for v, m, lo, hi in pts]
                blocks.append("$D%d << EOD\n%s\nEOD" % (i, "\n".join(rows)))
                parts.append("$D%d using 1:2:3:4 with yerrorlines lw 2 title %s" % (i, q(key)))
            script = head("plot-sweep-%s.png" % name, "file dd against %s" % name, "MB/s (median, min-max)", xlabel=name)
            script += "set datafile separator whitespace\n"
            if numeric and all(float(v) > 0 for v in values) and max(float(v) for v in values) / min(float(v) for v in values) >= 16:
                script += "set logscale x 2\n"
            if not numeric:
                script += "set xrange [-0.5:%g]\n" % (len(values) - 0.5)
                script += "set xtics (%s)\n" % ", ".join("%s %d" % (q(v), j) for j, v in enumerate(values))
            self.draw("plot-sweep-%s" % name, script + "\n".join(blocks) + "\nplot " + ", \\\n     ".join(parts) + "\n")


def syncio_expr(kind):
    """gnuplot's y for a syncio CSV: the dd's own waits in ms (of one kind, or all); NaN skips."""
    test = 'column("dd") == 1' + (' && strcol("kind") eq %s' % q(kind) if kind else "")
    return '(%s ? column("wait_us") / 1000.0 : NaN)' % test


def axis_value(g, name):
    """A group's value on a sweep axis (the preset is the group's own)."""
    return g["preset"] if name == "preset" else g["point"][name]


def _isnum(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def draw_all(plan, gs):
    if shutil.which("gnuplot") is None:
        raise wdrun.ConfigError("gnuplot not found: install Debian's gnuplot-nox (tools/install-deps does)")
    d = Drawer(plan)
    sweep = bool(plan.options.sweeps)
    for point in plan.points():
        tag = point_tag(point)
        prefix = "plot-" + (tag + "-" if sweep else "")
        runs = []
        for g in gs:
            if g["point"] == point and g["median_run"]:
                runs.append((g["preset"], g["median_run"]))
                d.per_run(prefix + g["preset"] + "-", g["median_run"],
                          "%s%s (trial of median throughput: %s)" % (tag + " " if sweep else "", g["preset"], g["median_run"]))
                if wdrun.presets.SETTINGS.get(g["preset"], {}).get("vfs.bufdaemon_design") == "syncfirst":
                    for sfx, what in (("", "file dd"), ("-smooth", "beside the probe")):
                        d.syncfirst(prefix + g["preset"] + "-syncfirst" + sfx, "samples-%s%s.csv" % (g["median_run"], sfx),
                                    "%s%s, %s" % (tag + " " if sweep else "", g["preset"], what))
        if runs:
            d.compare(prefix + "compare-", runs, (tag + ": ") if sweep else "")
    if sweep:
        d.sweep(plan, gs)
    d.tradeoff(plan, gs)
    return d.drawn, d.skipped


# -- the grid of drives, from published runs --
DM_MODEL_C = wdrun.ROOT / "tools" / "diskmodel" / "dm_model.c"


def preset_drive(preset):
    """(tags, write cache on) of a disk-model preset, as tools/diskmodel/dm_model.c sets them."""
    m = re.search(r"\bpreset_%s\s*\([^)]*\)\s*\{(.*?)\n\}" % re.escape(preset), DM_MODEL_C.read_text(), re.S)
    tags = m and re.search(r"p->qdepth\s*=\s*(\d+);", m.group(1))
    wc = m and re.search(r"p->wcache\s*=\s*(\d+);", m.group(1))
    if not (tags and wc):
        raise wdrun.ConfigError("%s: no preset_%s() setting p->qdepth and p->wcache" % (DM_MODEL_C, preset))
    return int(tags.group(1)), wc.group(1) != "0"


def manifest_options(folder):
    """The options block of a run's manifest.txt: {name: value} (each value JSON)."""
    path = Path(folder) / "manifest.txt"
    if not path.is_file():
        raise wdrun.ConfigError("%s: no manifest.txt (give a published run's folder)" % folder)
    text = path.read_text()
    block = re.search(r"^options:\n((?:  \S.*\n)+)", text, re.M)
    if block is None:
        raise wdrun.ConfigError("%s: no options block" % path)
    return {k: json.loads(v) for k, v in re.findall(r"^  (\w+)\s+(.+)$", block.group(1), re.M)}


def grid_cell(folder):
    """(tags, write cache on, patched's file dd over stable42's) of one published run: the drive
    is its --disk-model preset's, with the run's qdepth= and wcache= words over it."""
    model = manifest_options(folder).get("disk_model")
    if not model:
        raise wdrun.ConfigError("%s: the run had no modelled drive (--throttle or none)" % folder)
    words = model.split(",")
    tags, wc = preset_drive(words[0])
    for w in words[1:]:
        key, _, value = w.partition("=")
        if key == "qdepth":
            tags = int(value)
        elif key == "wcache":
            wc = value == "on"
    with open(Path(folder) / "groups.csv", newline="") as f:
        ratios = [float(g["of_stable42"]) for g in csv.DictReader(f) if g["preset"] == "patched" and g["of_stable42"]]
    if len(ratios) != 1:
        raise wdrun.ConfigError("%s: needs one group of patched beside stable42 (found %d)" % (folder, len(ratios)))
    return tags, wc, ratios[0]


def draw_grid(runs, png):
    """The grid's cells in one small figure; returns [(run, tags, wc, ratio)] in the plot's order."""
    if shutil.which("gnuplot") is None:
        raise wdrun.ConfigError("gnuplot not found: install Debian's gnuplot-nox (tools/install-deps does)")
    cells = sorted(((Path(r).name,) + grid_cell(r) for r in runs), key=lambda c: (c[2], c[1]))
    blocks, parts = [], []
    for i, (wc, title) in enumerate(((False, "write cache off"), (True, "write cache on"))):   # labels above, below
        rows = ["%d %r %s" % (tags, ratio, q(name)) for name, tags, w, ratio in cells if w == wc]
        if rows:
            blocks.append("$G%d << EOD\n%s\nEOD" % (i, "\n".join(rows)))
            parts.append("$G%d using 1:2 with linespoints lw 2 pt 7 ps 1.3 lc %d title %s" % (i, i + 1, q(title)))
            parts.append("$G%d using 1:2:3 with labels offset 0,%s font ',8' notitle" % (i, "-1" if wc else "1"))
    tags = sorted({c[1] for c in cells})
    script = "\n".join([
        "set terminal pngcairo size 640,400 font 'sans,10' noenhanced", "set output %s" % q(Path(png).name),
        "set title %s" % q("patched / stable42, the file dd (median of the trials), by the drive"), "set grid",
        "set key bottom left", "set logscale x 2", "set xrange [%g:%g]" % (min(tags) / 1.4, max(tags) * 1.4),
        "set xtics (%s)" % ", ".join("%s %d" % (q(t), t) for t in tags), "set xlabel %s" % q("the drive's tags (its queue depth)"),
        "set ylabel %s" % q("patched / stable42"), "set yrange [0.6:1.2]", "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2",
        ""] + blocks) + "\nplot " + ", \\\n     ".join(parts) + "\n"
    out = Path(png).resolve()
    gp = out.with_suffix(".gp")
    gp.write_text(script)
    try:
        r = subprocess.run(["gnuplot", gp.name], cwd=out.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        gp.unlink()
    if r.returncode != 0 or not out.exists() or out.stat().st_size == 0:
        out.unlink(missing_ok=True)
        raise wdrun.ConfigError("gnuplot failed: " + r.stdout.strip()[-300:])
    return cells
