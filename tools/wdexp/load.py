"""load: the loaded experiment's processes beside the dds (--load; docs/harness.md, "The
loaded experiment's runs").

  start_line(opts)      the `load` phase's guest command line: a guard process (sleep) and, in
                        the background, the parts --load names, each working while the guard
                        lives and writing line records to COM2:
                          hog     memhog -w: a dirty anonymous working set of --hog-mb MiB,
                                  random pages re-dirtied pass after pass (user/bin/memhog.c)
                          reader  reread -w: random 4 KB reads of the --reader-mb MiB file
                                  /var/load/data, each read counted as a disk read if the
                                  process's ru_inblock grew across it (user/bin/reread.c)
  STOP_LINE             the `unload` phase's: kill the guard, wait for the parts to finish.
  whole(load_out, unload_out)
                        the pageout counters of WHOLE_VM over the whole loaded run, from what
                        the `load` and `unload` lines printed (both read them).
  ready(text, parts)    whether every part has said "#ready" in the COM2 stream so far.
  check_ended(streams, parts)
                        raises ValueError unless every part wrote its "#end" with errors=0.
  table(part, stream, t0_us)
                        (header, rows) for <part>-<id>.csv: t_s (seconds since the file dd
                        started), the part's own columns, and its rate over each interval
                        (touched_per_s, or reads_per_s and disk_reads_per_s).
  window(part, stream, t0_us, t1_us)
                        the part over one dd (t0..t1, the dd's first and last sample), from the
                        records bracketing it: the hog's pages touched per second and its
                        slowest pass of those that overlapped the dd (the hog finishes the pass
                        it is in before it stops, so each is timed whole); the reader's reads per second, its
                        slowest interval (reads per second), its slowest read, its reads,
                        those that went to the disk and the cache hits (% of the reads).
"""
from .plan import LOAD_FILE

GUEST_SERIAL = "/dev/ttyd1"
INTERVAL_MS = 500                   # each part's record interval
GUARD = "sleep 1000000"             # the parts work while it lives (killed by STOP_LINE)
READY_TIMEOUT = 600.0               # seconds for the parts to fill and warm their sets
# The pageout counters read at the start of `load` and the end of `unload`: what the whole
# loaded run paged (its `vm.whole.*` columns), where a short dd's own window may see none.
WHOLE_VM = (("laundered", "v_pdlaundered"), ("swap_out", "v_swappgsout"), ("swap_in", "v_swappgsin"))
_READ_WHOLE = "sysctl -n %s" % " ".join("vm.stats.vm." + n for _, n in WHOLE_VM)
STOP_LINE = "kill $G; wait; " + _READ_WHOLE


def start_line(opts):
    cmds = {"hog": "memhog -w $G -i %d -o %s -l hog %d" % (INTERVAL_MS, GUEST_SERIAL, opts.hog_mb),
            "reader": "reread -w $G -i %d -o %s -l reader %s" % (INTERVAL_MS, GUEST_SERIAL, LOAD_FILE)}
    return "%s; %s & G=$!; %s &" % (_READ_WHOLE, GUARD, " & ".join(cmds[p] for p in opts.load))


def whole(load_out, unload_out):
    """{column: pages} the whole loaded run paged, from the counters the load and unload lines
    printed (the last len(WHOLE_VM) numbers of each); raises ValueError if one is missing."""
    def last(out):
        nums = [ln.strip() for ln in out.split("\n") if ln.strip().isdigit()]
        if len(nums) < len(WHOLE_VM):
            raise ValueError("--load: the pageout counters are missing from %r" % out[-200:])
        return [int(x) for x in nums[-len(WHOLE_VM):]]
    return {c: b - a for (c, _), a, b in zip(WHOLE_VM, last(load_out), last(unload_out))}


def ready(text, parts):
    return all("%s,#ready" % p in text for p in parts)


def check_ended(streams, parts):
    for p in parts:
        s = streams.get(p)
        end = s.meta_dict("end") if s else {}
        if not end:
            raise ValueError("%s: no #end record (it did not finish)" % p)
        if end.get("errors") != "0":
            raise ValueError("%s: %s errors (its stderr is on the console)" % (p, end.get("errors")))


RATES = {"hog": [("touched", "touched_per_s")], "reader": [("reads", "reads_per_s"), ("disk_reads", "disk_reads_per_s")]}


def table(part, stream, t0_us):
    header = ["t_s"] + stream.header[1:] + [name for _, name in RATES[part]]
    rows, prev = [], None
    for r in stream.rows:
        v = [int(x) for x in r]
        row = [round((v[0] - t0_us) / 1e6, 4)] + v[1:]
        for col, _ in RATES[part]:
            i = stream.header.index(col)
            row.append(round((v[i] - prev[i]) / ((v[0] - prev[0]) / 1e6), 1) if prev and v[0] > prev[0] else None)
        rows.append(row)
        prev = v
    return header, rows


def _bracket(rows, t0, t1):
    """The rows from the last at or before t0 to the first at or after t1 (by t_us, column 0)."""
    if not rows:
        return []
    a = max([i for i, r in enumerate(rows) if r[0] <= t0] or [0])
    b = min([i for i, r in enumerate(rows) if r[0] >= t1] or [len(rows) - 1])
    return rows[a:b + 1]


def window(part, stream, t0_us, t1_us):
    h = stream.header
    every = [[int(x) for x in r] for r in stream.rows]
    rows = _bracket(every, t0_us, t1_us)
    if len(rows) < 2:
        return None
    first, last = rows[0], rows[-1]
    secs = (last[0] - first[0]) / 1e6

    def delta(col):
        i = h.index(col)
        return last[i] - first[i]

    if part == "hog":
        ip = h.index("slowest_pass_us")          # a pass ends in the interval of its line
        slow = max([r[ip] for r in every if r[ip] and r[0] >= t0_us and r[0] - r[ip] <= t1_us] or [0])
        return {"secs": round(secs, 3), "touched": delta("touched"), "passes": delta("passes"),
                "touched_per_s": round(delta("touched") / secs, 1),
                "slowest_pass_s": round(slow / 1e6, 3) if slow else None}
    reads, disk = delta("reads"), delta("disk_reads")
    ir = h.index("reads")
    rates = [(b[ir] - a[ir]) / ((b[0] - a[0]) / 1e6) for a, b in zip(rows, rows[1:]) if b[0] > a[0]]
    return {"secs": round(secs, 3), "reads": reads, "disk_reads": disk, "inblock": delta("inblock"),
            "reads_per_s": round(reads / secs, 1), "slowest_interval_rps": round(min(rates), 1) if rates else None,
            "max_read_ms": round(max(r[h.index("max_read_us")] for r in rows[1:]) / 1000, 3),
            "hit_pct": round(100.0 * (reads - disk) / reads, 2) if reads else None}


def digest(streams, parts, dd_windows):
    """{dd label: {part: window}} for every dd that has samples; raises ValueError (check_ended)."""
    check_ended(streams, parts)
    out = {}
    for label, (t0, t1) in dd_windows.items():
        out[label] = {p: window(p, streams[p], t0, t1) for p in parts if streams[p].header}
    return out


def tables(streams, parts, t0_us):
    return {p: table(p, streams[p], t0_us) for p in parts if streams.get(p) and streams[p].header}

