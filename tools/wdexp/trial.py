"""trial: one run of an experiment in one VM.

  Trial(plan, run)      what the run boots (vm_config) and types (phases)
    .execute()          boot, run the phases one shell command line each, power off, then
                        split the second serial port's stream into the run's CSVs and write
                        runs/<id>/run.json; returns that result (a dict). Never raises for a
                        failed guest: the result says "failed" and why.
    .progress()         for the progress line, while execute() runs in another thread:
                        (phase, bytes written by its dd, MB/s so far, bytes to write) or None.

The phases, in one boot (each one shell command line; its status and dd's summary are read
from the console), for the seed's layout (--layout stripe):
  set      sysctl NAME=VALUE for --set and the run's sweep point (its sysctls, and for an
           `openings` axis dev.<da|ada>.<n>.openings of every data disk; its mem and disk.<param>
           axes are in the VM itself: vm_config)
  setup    --setup's command line
  ccd      ccdconfig ccd0 128 none <the data disks>         (the seed's stripe)
  raw      dd if=/dev/zero of=/dev/ccd0 bs=<raw_bs> count=...  (the ceiling; --no-raw skips it)
  fs       newfs /dev/ccd0 && mkdir -p /data1 && mount /dev/ccd0 /data1
  file     dd if=/dev/zero of=/data1/test bs=<bs> count=...  (the seed's workload, measured)
  smooth   rm /data1/test && sync, then the same dd again with latprobe beside it (--probe
           separate, the default; --probe same runs latprobe beside the measured dd instead,
           --probe off not at all)
With --layout separate there is no stripe and no raw dd: fs makes a file system on each data
disk (/data1 on da1, /data2 on da2, ...), and file and smooth run one dd per disk at once (a
`sh -c` the sampler watches), each writing --size MiB; the summaries of each writer are kept
(result "writers", by disk) beside their sum over the slowest one's time.
With --load (docs/harness.md "The loaded experiment's runs") the run has a swap disk after the
data disks (swap=<disk> on the kernel command line) and two more phases: `load`, after fs, starts
the parts (load.py) in the background and waits until each has said #ready on COM2; `unload`,
at the end, stops them; their records become <part>-<id>.csv and the run's "load" figures per dd.
A design that is a BUF+SCAN pair boots its preset with the other half's settings on the kernel
command line (plan.design_boot).
The dd's run under the sampler (-l raw, -l file, -l smooth) and latprobe as -l probe, all
writing to /dev/ttyd1; around each dd phase the harness types `syncio -n` (the number of the
next synchronous I/O wait) and, after it, `syncio -e -s N -l syncio-<phase>` (the waits during
that dd, as CSV on /dev/ttyd1: docs/bufcache.md "Synchronous I/O"; not with --load, whose memory
pressure leaves that tool's contiguous kmalloc no room); --no-samples leaves the sampler out. The probe has its own dd because
its fsync every 50 ms changes the workload: wdfs's fsync writes every dirty metadata buffer of
the file system and flushes the disks' caches, so beside it the seed's dd ran 7 times slower
(docs/harness.md, "The probe has its own dd").
"""
import json
import os
import platform
import re
import socket
import time
import traceback
from pathlib import Path

import wdrun
from wdbench import CCD_RELEASE, DD_RE, MiB, block_size, ccdconfig_line, parse_dd

from . import load, series, trust
from .plan import PROBE_FILE, SWAP_MODEL, axis_kind, data_disks, design_boot, disk_model_of, swap_disk

GUEST_SERIAL = "/dev/ttyd1"                  # COM2 in the guest (kernel/dev/sio.c)
BOOT_TIMEOUT = 120.0
PHASE_TIMEOUT = 120.0                         # the phases that are not a dd
KTHREADS = "pagedaemon,bufdaemon"             # whose CPU time the sampler reports with --load
SLOWEST_MBPS = 1.0                            # a dd slower than this (10^6 B/s) times out
TAIL_BYTES = 65536                            # how much of the stream progress() reads
STATS_INTERVAL = 0.2                          # seconds between the disk models' stats files


def host_info():
    """Where a run ran: for the manifest, and to see a loaded host afterwards."""
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"host": socket.gethostname(), "cpu": model or platform.processor(), "ncpu": os.cpu_count(),
            "usable": len(os.sched_getaffinity(0)), "loadavg": [round(x, 2) for x in os.getloadavg()]}


class PhaseFailed(Exception):
    pass


class Trial:
    def __init__(self, plan, run):
        self.plan, self.run, self.o = plan, run, plan.options
        self.out = Path(plan.out)
        self.dir = run.dir(self.out)
        self.serial = self.dir / "serial2.txt"
        self.phase = None
        self._dd_bytes = 0
        self._starts = {}                 # label -> t_us of its first sample (progress)

    # -- what the VM is and what it is told --

    def vm_config(self):
        o = self.o
        per_disk = max(2 << 30, -(-(o.size_mb * MiB * 5 // 4) // o.disks))
        per_disk = -(-per_disk // (1 << 30)) << 30                # whole GiB
        # the disk models' stats files often enough to split them by phase (trust.disk_phase)
        model = disk_model_of(o, self.run.point)
        preset, args = design_boot(self.run.preset)
        swap = swap_disk(o)
        if swap:
            args = " ".join(a for a in ("swap=" + swap, args) if a)
            words = model.split(",") if model else []
            if len([w for w in words if "=" not in w]) > 1:           # a preset per data disk: one for swap
                model = ",".join([w for w in words if "=" not in w] + [SWAP_MODEL] + [w for w in words if "=" in w])
        if model:
            model += ",stats_interval=%g" % STATS_INTERVAL
        return wdrun.VMConfig(mem=int(self.run.point.get("mem", o.mem)), smp=o.smp, design=preset, args=args,
                              timeout=BOOT_TIMEOUT, verbose=o.verbose, disks=o.disks + bool(swap), bus=o.bus,
                              disk_size=str(per_disk), prealloc=o.prealloc, throttle=o.throttle, disk_model=model,
                              serial2=str(self.serial), root_image=self.plan.root_image)

    def sampler(self, cfg, label):
        if not self.o.samples:
            return ""
        disks = [cfg.prefix() + "0"] + cfg.data_names() + ["ccd0"]          # the root disk too
        names = ["kern.design", trust.NCPU, trust.IDLE_NS, "vfs.*", "vm.*"] + ["kern.devstat.%s.*" % d for d in disks]
        return "sampler -o %s -l %s -i %d -s %s -w %s %s" % (
            GUEST_SERIAL, label, self.o.interval_ms, ",".join(names), ",".join(self.o.wmesgs),
            "-c %s " % KTHREADS if self.o.load else "")

    def point_sysctls(self, cfg):
        """The sysctls the run's sweep point sets in the guest: its sysctl axes, and an openings
        axis as every data disk's dev.<driver>.<unit>.openings (FreeBSD's `camcontrol tags daN
        -N n`)."""
        out = []
        for name, value in self.run.point.items():
            kind = axis_kind(name)
            if kind == "sysctl":
                out.append((name, value))
            elif kind == "openings":
                for disk in cfg.data_names():
                    driver, unit = re.fullmatch(r"([a-z]+)(\d+)", disk).groups()
                    out.append(("dev.%s.%s.openings" % (driver, unit), value))
        return out

    def dd_timeout(self):
        if self.o.timeout:
            return self.o.timeout
        return PHASE_TIMEOUT + self.o.size_mb * MiB / (SLOWEST_MBPS * 1e6)

    def phases(self, cfg):
        """[(name, command line, timeout, bytes its dd writes or 0)]"""
        o = self.o
        out = []
        sets = list(o.sets) + self.point_sysctls(cfg)
        if sets:
            out.append(("set", "sysctl " + " ".join("%s=%s" % (k, v) for k, v in sets), PHASE_TIMEOUT, 0))
        if o.setup:
            out.append(("setup", o.setup, PHASE_TIMEOUT, 0))
        if o.layout == "separate":
            return out + self.separate_phases(cfg)
        stripe = wdrun.VMConfig(disks=o.disks, bus=o.bus)              # not the swap disk
        out.append(("ccd", ccdconfig_line(stripe), PHASE_TIMEOUT, 0))
        total = o.size_mb * MiB
        if o.raw:
            bs = block_size(o.raw_bs)[1]
            out.append(("raw", "%sdd if=/dev/zero of=/dev/ccd0 bs=%d count=%d" % (self.sampler(cfg, "raw"), bs, total // bs),
                        self.dd_timeout(), total))
        out.append(("fs", "newfs /dev/ccd0 && mkdir -p /data1 && mount /dev/ccd0 /data1", PHASE_TIMEOUT, 0))
        if o.load:
            out.append(("load", load.start_line(o), PHASE_TIMEOUT, 0))
        bs = block_size(o.bs)[1]
        dd = "dd if=/dev/zero of=/data1/test bs=%d count=%d" % (bs, total // bs)
        probe = "& S=$!; latprobe -o %s -l probe -i %d -p $S -s %s -r %s -w /data1; wait $S" % (
            GUEST_SERIAL, o.probe_ms, PROBE_FILE, PROBE_FILE)
        out.append(("file", "%s%s %s" % (self.sampler(cfg, "file"), dd, probe if o.probe == "same" else ""),
                    self.dd_timeout(), total))
        if o.probe == "separate":
            out.append(("clean", "rm /data1/test && sync", PHASE_TIMEOUT, 0))
            out.append(("smooth", "%s%s %s" % (self.sampler(cfg, "smooth"), dd, probe), self.dd_timeout(), total))
        if o.load:
            out.append(("unload", load.STOP_LINE, PHASE_TIMEOUT, 0))
        return out

    def separate_phases(self, cfg):
        """--layout separate: a file system and a dd writer per data disk, the writers at once."""
        o, disks = self.o, cfg.data_names()
        mounts = ["/data%d" % (j + 1) for j in range(len(disks))]
        total, bs = o.size_mb * MiB, block_size(o.bs)[1]
        fs = CCD_RELEASE + " && ".join("newfs /dev/%s > /dev/null && mkdir -p %s && mount /dev/%s %s" % (d, m, d, m)
                                       for d, m in zip(disks, mounts))
        writers = "sh -c '%s; wait'" % " & ".join("dd if=/dev/zero of=%s/test bs=%d count=%d 2> /tmp/dd.%s"
                                                  % (m, bs, total // bs, d) for d, m in zip(disks, mounts))
        summaries = "; cat " + " ".join("/tmp/dd.%s" % d for d in disks)
        probe = "& S=$!; latprobe -o %s -l probe -i %d -p $S -s %s -r %s -w /data1; wait $S" % (
            GUEST_SERIAL, o.probe_ms, PROBE_FILE, PROBE_FILE)
        out = [("fs", fs, PHASE_TIMEOUT, 0),
               ("file", "%s%s %s%s" % (self.sampler(cfg, "file"), writers, probe if o.probe == "same" else "",
                                       summaries), self.dd_timeout(), total)]
        if o.probe == "separate":
            out.append(("clean", "rm %s && sync" % " ".join(m + "/test" for m in mounts), PHASE_TIMEOUT, 0))
            out.append(("smooth", "%s%s %s%s" % (self.sampler(cfg, "smooth"), writers, probe, summaries),
                        self.dd_timeout(), total))
        return out

    def dd_result(self, name, out, nbytes):
        """A dd phase's numbers: its summary; with --layout separate each writer's (in disk order,
        as the phase cats them) and their sum over the slowest writer's time."""
        if self.o.layout != "separate":
            dd = parse_dd(out)
            if dd is None or dd[0] != nbytes or dd[1] <= 0:
                raise PhaseFailed("%s: dd printed no summary of %d bytes: %s"
                                  % (name, nbytes, " / ".join(out.strip().splitlines()[-3:])))
            return {"bytes": dd[0], "secs": dd[1], "Bps": round(dd[0] / dd[1])}
        disks = data_disks(self.o)
        found = [(int(m.group(1)), float(m.group(2))) for m in DD_RE.finditer(out)][-len(disks):]
        if len(found) != len(disks) or any(b != nbytes or s <= 0 for b, s in found):
            raise PhaseFailed("%s: not every writer printed a summary of %d bytes: %s"
                              % (name, nbytes, " / ".join(out.strip().splitlines()[-4:])))
        total, secs = sum(b for b, _ in found), max(s for _, s in found)
        return {"bytes": total, "secs": secs, "Bps": round(total / secs),
                "writers": {d: {"bytes": b, "secs": s, "Bps": round(b / s)} for d, (b, s) in zip(disks, found)}}

    # -- running it --

    def execute(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self.serial.unlink(missing_ok=True)
        result = {"id": self.run.id, "preset": self.run.preset, "trial": self.run.trial,
                  "point": self.run.point, "status": "failed", "error": None, "phases": {},
                  "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "host_before": host_info()}
        t0 = time.monotonic()
        cfg = self.vm_config()
        vm = wdrun.VM(cfg)
        disk_marks = []                                   # (phase, the disk models' stats at its start)
        with trust.HostMonitor(lambda: {"qemu": vm.proc.pid if vm.proc else None,
                                        "servers": [s[0].pid for s in vm.disks.servers]}) as host:
            try:
                self.run_phases(vm, cfg, result, host, disk_marks)
                result["status"] = "ok"
            except PhaseFailed as e:
                result["error"] = str(e)
            except wdrun.WdrunError as e:
                result["error"] = "%s: %s" % (self.phase, e.message.splitlines()[0])
                result["console_tail"] = e.tail()
            finally:
                vm.kill()
                vm.disks.discard()
                self.phase = None
                (self.dir / "console.log").write_text(vm.console)
        result["disk_stats"] = vm.disks.read_stats()
        result["host"] = host.summary()
        series.write_csv(self.out / self.run.host_csv(), trust.HOST_CSV_HEADER, host.rows(t0))
        late = {p: trust.disk_phase(a, b) for (p, a), (_, b) in zip(disk_marks, disk_marks[1:]) if p is not None}
        result["disk_phases"] = {p: v for p, v in late.items() if v is not None}
        result["elapsed_s"] = round(time.monotonic() - t0, 1)
        result["host_after"] = host_info()
        try:
            self.digest(result)
        except (OSError, ValueError, IndexError, KeyError, TypeError, ZeroDivisionError):
            if result["status"] == "ok":
                result["status"] = "failed"
                result["error"] = "the guest's samples could not be read:\n" + traceback.format_exc(limit=3)
        result["suspect"] = trust.assess(result)
        path = self.dir / "run.json"
        path.write_text(json.dumps(result, indent=1) + "\n")
        return result

    def run_phases(self, vm, cfg, result, host, disk_marks):
        """Boot, type each phase's command line (marking the host monitor and reading the disk
        models' stats at its start), check it, and power off. Raises PhaseFailed or a
        wdrun.WdrunError."""
        self.phase = "boot"
        host.mark("boot")
        vm.boot()
        for name, cmd, timeout, nbytes in self.phases(cfg):
            self.phase, self._dd_bytes = name, nbytes
            # Not under --load: reading the event ring takes an 8-page contiguous kmalloc, which the
            # hog's pages leave no room for (it waited in "kmemfrag" as long as the load ran).
            seq = self.guest_line(vm, "syncio -n") if nbytes and not self.o.load else None
            if seq is not None and not seq.isdigit():
                raise PhaseFailed("%s: 'syncio -n' printed %r, not a number" % (name, seq))
            host.mark(name)
            disk_marks.append((name, vm.disks.read_stats()))
            t_phase = time.monotonic()
            out, st = vm.run(cmd, timeout=timeout)
            result["phases"][name] = {"status": st, "seconds": round(time.monotonic() - t_phase, 2),
                                      "output": out[-2000:]}
            if st != 0:
                raise PhaseFailed("%s: '%s' exited %d: %s" % (name, wdrun._short(cmd, 80), st,
                                                              " / ".join(out.strip().splitlines()[-3:])))
            if nbytes:
                result[name] = self.dd_result(name, out, nbytes)
                if seq is not None:
                    self.guest_line(vm, "syncio -e -s %s -o %s -l syncio-%s" % (seq, GUEST_SERIAL, name))
            if name == "load":
                result["phases"][name]["ready_s"] = self.wait_ready(vm)
            if name == "unload":
                result["load_whole"] = load.whole(result["phases"]["load"]["output"], out)
        disk_marks.append((None, vm.disks.read_stats()))
        host.mark(None)
        self.phase = "poweroff"
        vm.poweroff()

    def wait_ready(self, vm):
        """Wait until every load part has said #ready on COM2 (its set filled or read once);
        the seconds it took. Raises PhaseFailed after load.READY_TIMEOUT."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < load.READY_TIMEOUT:
            try:
                text = self.serial.read_text(errors="replace")
            except OSError:
                text = ""
            if load.ready(text, self.o.load):
                return round(time.monotonic() - t0, 2)
            vm.wait(0.5)                        # reads the console: a panic or QEMU's exit raises
        raise PhaseFailed("load: %s not ready after %d s" % (",".join(self.o.load), load.READY_TIMEOUT))

    def guest_line(self, vm, cmd):
        """Run a helper command line of the harness's own; its output's last line (stripped; ""
        if none). Raises PhaseFailed if it fails."""
        out, st = vm.run(cmd, timeout=PHASE_TIMEOUT)
        lines = out.strip().splitlines()
        if st != 0:
            raise PhaseFailed("%s: '%s' exited %d: %s" % (self.phase, cmd, st, " / ".join(lines[-3:])))
        return lines[-1].strip() if lines else ""

    def progress(self):
        if self.phase not in ("raw", "file", "smooth") or not self.o.samples:
            return None
        try:
            with open(self.serial, "rb") as f:
                f.seek(max(0, os.fstat(f.fileno()).st_size - TAIL_BYTES))
                text = f.read().decode(errors="replace")
        except OSError:
            return None
        last = None
        for line in text.splitlines():
            f = line.split(",")
            if f[0] == self.phase and len(f) > 2 and f[1].isdigit() and f[2].isdigit():
                last = (int(f[1]), int(f[2]))         # t_us, wbytes
        start = self._start_of(self.phase)
        if last is None or start is None:
            return self.phase, 0, 0.0, self._dd_bytes
        dt = (last[0] - start) / 1e6
        return self.phase, last[1], last[1] / dt / 1e6 if dt > 0 else 0.0, self._dd_bytes

    def _start_of(self, label):
        """The t_us of the label's first sample (read once from the start of the stream)."""
        if label not in self._starts:
            try:
                with open(self.serial, errors="replace") as f:
                    for line in f:
                        fields = line.split(",")
                        if fields[0] == label and len(fields) > 1 and fields[1].isdigit():
                            self._starts[label] = int(fields[1])
                            break
            except OSError:
                pass
        return self._starts.get(label)

    # -- after the VM: the CSVs and the numbers --

    def digest(self, result):
        if not self.serial.exists():
            return
        streams = series.split_stream(self.serial.read_text(errors="replace"))
        beside = "smooth" if self.o.probe == "separate" else "file"     # the dd the probe ran beside
        for label in ("raw", "file", "smooth"):
            self.digest_syncio(result, streams, label)
            s = streams.get(label)
            if s is None or not s.rows:
                continue
            t0 = int(s.rows[0][0])
            header, rows = series.sample_table(s, t0)
            series.write_csv(self.out / self.run.samples_csv(label), header, rows)
            result.setdefault("samples", {})[label] = sample_summary(s, header, rows, self.o.wmesgs)
            result["samples"][label]["queues"] = queue_summary(header, rows, data_disks(self.o))
            swap = swap_disk(self.o)
            if swap:
                result["samples"][label]["swap_queue"] = queue_summary(header, rows, [swap]).get(swap)
            if label == beside and "probe" in streams and streams["probe"].header:
                p = streams["probe"]
                ph, prow = series.probe_table(p, t0)
                series.write_csv(self.out / self.run.probe_csv(), ph, prow)
                result["probe"] = dict(p.meta_dict("end"), wrapped="wrapped" in p.meta,
                                       latency_us={c: latency(ph, prow, c) for c in ph[1:]})
        if self.o.load:
            self.digest_load(result, streams)

    def digest_load(self, result, streams):
        """<part>-<id>.csv on the file dd's time base, and run.json's load figures over each dd."""
        windows = {label: (int(streams[label].rows[0][0]), int(streams[label].rows[-1][0]))
                   for label in ("file", "smooth") if label in streams and streams[label].rows}
        if "file" not in windows:
            raise ValueError("--load: no samples of the file dd to measure the load over")
        result["load"] = load.digest(streams, self.o.load, windows)
        for part, (header, rows) in load.tables(streams, self.o.load, windows["file"][0]).items():
            series.write_csv(self.out / self.run.load_csv(part), header, rows)


    def digest_syncio(self, result, streams, label):
        """syncio-<id>[-label].csv and run.json's syncio[label]: the waits during that dd, those of
        the dd itself (the sampler's child: its #start pid) summed up per kind."""
        ev = streams.get("syncio-" + label)
        if ev is None or ev.header is None:
            return
        samp = streams.get(label)
        pid = int(samp.meta_dict("start")["pid"]) if samp and "pid" in samp.meta_dict("start") else None
        t0 = int(samp.rows[0][0]) if samp and samp.rows else min([int(r[2]) for r in ev.rows] or [0])
        header, rows = series.syncio_table(ev, t0, pid)
        series.write_csv(self.out / self.run.syncio_csv(label), header, rows)
        result.setdefault("syncio", {})[label] = dict(syncio_summary([r for r in rows if r[5]]),
                                                      lost=int(ev.meta_dict("end").get("lost", 0)),
                                                      others=sum(1 for r in rows if not r[5]))


SYNCIO_KINDS = ("metaread", "metawrite", "dataread", "datawrite", "fsync")     # sys/sysctl.h


def syncio_summary(rows):
    """Per kind of syncio_table rows: how many, the seconds waited, p50/p99/max wait (ms) and the
    mean qahead (the requests ahead of the I/O at its disk)."""
    out = {}
    for k in SYNCIO_KINDS:
        waits = [r[2] for r in rows if r[1] == k]
        out[k] = {"n": len(waits), "total_s": round(sum(waits) / 1e6, 4),
                  "p50_ms": _ms(series.percentile(waits, 50)), "p99_ms": _ms(series.percentile(waits, 99)),
                  "max_ms": _ms(series.percentile(waits, 100)),
                  "qahead": round(sum(r[3] for r in rows if r[1] == k) / len(waits), 2) if waits else None}
    return out


def _ms(us):
    return None if us is None else round(us / 1000, 3)


def queue_summary(header, rows, disks):
    """Per data disk over the dd: the mean requests waiting in its host queue and active at the
    device (from the integrals depth_ns and active_ns: exact), and the most of each the samples
    saw."""
    out = {}
    dur = rows[-1][0] - rows[0][0] if len(rows) > 1 else 0
    for d in disks:
        col = "%s%s." % (series.DEVSTAT, d)
        if col + "active_ns" not in header or dur <= 0:
            continue
        first, last = rows[0], rows[-1]
        i_depth, i_active = header.index(col + "depth_ns"), header.index(col + "active_ns")
        depth = (last[i_depth] - first[i_depth]) / 1e9 / dur
        active = (last[i_active] - first[i_active]) / 1e9 / dur
        out[d] = {"waiting": round(depth - active, 2), "active": round(active, 2),
                  "waiting_max": max(v for v in series.column(header, rows, col + "waiting") if v is not None),
                  "active_max": max(v for v in series.column(header, rows, col + "active") if v is not None)}
    return out


def latency(header, rows, name):
    vals = series.column(header, rows, name)
    return {"n": sum(v is not None for v in vals), "p50": series.percentile(vals, 50),
            "p99": series.percentile(vals, 99), "max": series.percentile(vals, 100)}


def sample_summary(stream, header, rows, wmesgs):
    """The sampler's meta data, the counters' first values and their changes over the dd,
    and the time spent blocked per wait message."""
    first, last = rows[0], rows[-1]
    skip = {"t_s"} | {h for h in header if h.startswith(("rate.", "wchan."))}
    first_v = {h: first[i] for i, h in enumerate(header) if h not in skip and first[i] is not None}
    delta = {h: last[i] - first[i] for i, h in enumerate(header)
             if h not in skip and first[i] is not None and last[i] is not None}
    return {"rows": len(rows), "duration_s": last[0], "end": stream.meta_dict("end"),
            "start": stream.meta_dict("start"), "missing": stream.missing, "const": stream.consts,
            "first": first_v, "delta": delta,
            "blocked_s": {w: series.blocked_seconds(header, rows, w) for w in wmesgs}}
