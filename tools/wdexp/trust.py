"""trust: what says whether a run measured the modelled disks, or the host and the emulated CPU.

A run's dd rate is only the disks' (and the kernel's) if nothing else held it back. Three
things can, and each is measured while the run goes (docs/harness.md, "Trials you can
trust"):

  the disk model's late replies  a reply the host sent after the model's due time (its threads
                                 did not get a CPU in time, or the backing file's write took
                                 longer): tools/diskmodel counts them in its stats file
                                 (docs/diskmodel.md, "Late replies");
  the guest CPU's idle share     kern.cp_idle_ns over the dd, sampled in the guest: a vCPU that
                                 never idled ran the emulated CPU flat out, so the dd measured
                                 TCG's speed on this host, not the disks;
  the host's load                HostMonitor below, from /proc while each phase runs: the
                                 host's CPU use by QEMU, by the disk-model servers and by
                                 everything else, the runnable tasks and the load average.

  HostMonitor(pids)     pids() -> {"qemu": pid or None, "servers": [pid, ...]}. A context
                        manager: `with HostMonitor(pids) as host:` samples while the block runs;
                        host.mark(phase) at each phase's start (mark(None) after the last).
                        .summary() -> {phase: host figures}; .rows() for host-<id>.csv.
  disk_phase(before, after)
                        the change of the late-reply counters of each data disk's stats between
                        two read_stats() snapshots, summed over the disks.
  assess(result, keep)  the reasons a run is suspect ([] if none): late replies on more than
                        LATE_PCT_MAX % of the file dd's, or a guest CPU idle less than
                        IDLE_PCT_MIN % of the file dd's time (not with --load, whose hog and
                        reader keep the CPU busy by design: there the dd is meant to share it).
"""
import os
import threading
import time

LATE_PCT_MAX = 1.0              # a run with more late replies in its file dd is suspect
IDLE_PCT_MIN = 1.0              # ... and one whose guest CPU idled less than this
PERIOD = 0.5                    # seconds between the monitor's samples
TICK = os.sysconf("SC_CLK_TCK")
LATE_KEYS = ("replies", "late_replies", "late_over_0.1ms", "late_over_1ms", "late_over_10ms",
             "late_over_100ms")
IDLE_NS = "kern.cp_idle_ns"     # kernel/kern/kern_synch.c
NCPU = "hw.ncpu"


def _read(path):
    with open(path) as f:
        return f.read()


def _cpu_ticks(pid):
    """utime + stime of a process, in clock ticks (proc(5): fields 14 and 15), or None."""
    if not pid:
        return None
    try:
        text = _read("/proc/%d/stat" % pid)
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()        # after "pid (comm) "
    return int(fields[11]) + int(fields[12])


def snapshot(pids):
    """The host at this instant: monotonic time, /proc/stat's CPU ticks (all, idle, steal) and
    runnable tasks, the 1-minute load average, and the CPU ticks of QEMU and the servers."""
    stat = _read("/proc/stat").splitlines()
    cpu = [int(x) for x in stat[0].split()[1:]]          # user nice system idle iowait irq softirq steal ...
    running = next((int(ln.split()[1]) for ln in stat if ln.startswith("procs_running ")), 0)
    p = pids()
    servers = [_cpu_ticks(s) for s in p.get("servers", [])]
    return {"t": time.monotonic(), "total": sum(cpu[:8]), "idle": cpu[3] + cpu[4],
            "steal": cpu[7] if len(cpu) > 7 else 0, "running": running,
            "load1": float(_read("/proc/loadavg").split()[0]),
            "qemu": _cpu_ticks(p.get("qemu")), "servers": sum(s for s in servers if s is not None)}


def _share(a, b, key, wall):
    """Percent of one host CPU that the ticks of `key` between snapshots a and b are."""
    if a[key] is None or b[key] is None or wall <= 0:
        return None
    return round(100 * (b[key] - a[key]) / TICK / wall, 1)


def between(a, b, samples):
    """Host figures for the interval from snapshot a to b, with the samples taken in it."""
    wall = b["t"] - a["t"]
    ncpu = os.cpu_count() or 1
    total = b["total"] - a["total"]
    busy = total - (b["idle"] - a["idle"]) - (b["steal"] - a["steal"])
    out = {"seconds": round(wall, 2), "ncpu": ncpu,
           "busy_pct": round(100 * busy / total, 1) if total > 0 else None,
           "steal_pct": round(100 * (b["steal"] - a["steal"]) / total, 1) if total > 0 else None,
           "qemu_pct": _share(a, b, "qemu", wall), "servers_pct": _share(a, b, "servers", wall)}
    if out["busy_pct"] is not None and wall > 0:
        # everything else, in percent of one CPU: what competed with this run for the host
        used = busy / TICK / wall * 100
        out["others_pct"] = round(max(0.0, used - (out["qemu_pct"] or 0) - (out["servers_pct"] or 0)), 1)
    pts = [a] + samples + [b]
    out["running_mean"] = round(sum(s["running"] for s in pts) / len(pts), 2)
    out["running_max"] = max(s["running"] for s in pts)
    out["load1_mean"] = round(sum(s["load1"] for s in pts) / len(pts), 2)
    out["load1_max"] = max(s["load1"] for s in pts)
    return out


class HostMonitor:
    """Samples the host every PERIOD s in a daemon thread, and exactly at each phase boundary."""

    def __init__(self, pids):
        self.pids = pids
        self._lock = threading.Lock()         # guards everything below
        self._samples = []                    # (phase, snapshot)
        self._marks = []                      # (phase, snapshot at its start)
        self._phase = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.mark(None)                       # the end of whatever phase was running
        self._stop.set()
        self._thread.join()

    def mark(self, phase):
        s = snapshot(self.pids)
        with self._lock:
            self._marks.append((phase, s))
            self._phase = phase

    def _loop(self):
        while not self._stop.wait(PERIOD):
            s = snapshot(self.pids)
            with self._lock:
                self._samples.append((self._phase, s))

    def summary(self):
        """{phase: between(its start, the next mark)} for every phase that ended."""
        with self._lock:
            marks, samples = list(self._marks), list(self._samples)
        out = {}
        for (phase, a), (_, b) in zip(marks, marks[1:]):
            if phase is not None:
                out[phase] = between(a, b, [s for p, s in samples if p == phase and a["t"] < s["t"] < b["t"]])
        return out

    def rows(self, t0):
        """[phase, seconds since t0, load1, runnable, host busy %, QEMU %] between samples."""
        with self._lock:
            pts = sorted(self._samples + self._marks, key=lambda ps: ps[1]["t"])
        out = []
        for (_, a), (phase, b) in zip(pts, pts[1:]):
            f = between(a, b, [])
            if f["seconds"] > 0.05:
                out.append([phase, round(b["t"] - t0, 2), b["load1"], b["running"], f["busy_pct"],
                            f["qemu_pct"], f["others_pct"] if "others_pct" in f else None])
        return out


HOST_CSV_HEADER = ["phase", "t_s", "load1", "runnable", "host_busy_pct", "qemu_pct", "others_pct"]


def disk_phase(before, after):
    """Late-reply counters of the data disks, changed between two read_stats() lists, summed;
    None without disk-model statistics."""
    if not before or not after or not any(after):
        return None
    out = {k: 0 for k in LATE_KEYS}
    for a, b in zip(before, after):
        for k in LATE_KEYS:
            out[k] += int(b.get(k, 0)) - int(a.get(k, 0))
    out["late_pct"] = round(100 * out["late_replies"] / out["replies"], 3) if out["replies"] else 0.0
    return out


def guest_idle_pct(samp):
    """The guest CPUs' idle share of the dd's time (percent), from the sampled kern.cp_idle_ns
    and hw.ncpu; None if this kernel has no kern.cp_idle_ns."""
    delta, first = samp.get("delta", {}), samp.get("first", {})
    if IDLE_NS not in delta or not samp.get("duration_s"):
        return None
    ncpu = first.get(NCPU) or 1
    return round(100 * delta[IDLE_NS] / 1e9 / (samp["duration_s"] * ncpu), 2)


def assess(result):
    """Why the run's file dd cannot be trusted ([] if it can): its disks' late replies, its
    guest CPU that never idled (unless the run was loaded). A failed run is not assessed."""
    if result.get("status") != "ok":
        return []
    why = []
    late = result.get("disk_phases", {}).get("file")
    if late and late["late_pct"] > LATE_PCT_MAX:
        why.append("late replies: %.1f%% of %d (> %g%%)" % (late["late_pct"], late["replies"], LATE_PCT_MAX))
    idle = guest_idle_pct(result.get("samples", {}).get("file", {}))
    if idle is not None and idle < IDLE_PCT_MIN and not result.get("load"):
        why.append("CPU-bound: guest idle %.1f%% of the dd (< %g%%)" % (idle, IDLE_PCT_MIN))
    return why
