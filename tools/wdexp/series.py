"""series: the in-guest time series, from the second serial port's stream to CSV and numbers.

The guest's sampler and latprobe write labelled lines to /dev/ttyd1 (user/bin/sampler.c,
user/bin/latprobe.c): "label,#meta text" or "label,csv,fields". QEMU writes them to a host file.

  split_stream(text)      {label: Stream}; a Stream has .meta (the '#' lines, without '#'),
                          .header and .rows (lists of strings), .meta_dict(word) for lines
                          like "end status=0 samples=12", .consts ("#const name value")
                          and .missing ("#missing name").
  sample_table(stream, t0_us)
                          the sampler's table as written to samples-*.csv: t_s (seconds since
                          t0_us, the dd's start), the sampled columns, and derived rates:
                          rate.dd (MB/s written by dd, from wbytes) and rate.<disk> (MB/s the
                          disk completed, from kern.devstat.<disk>.bytes_written); MB = 10^6.
  probe_table(stream, t0_us)
                          latprobe's table for probe-*.csv: t_s and the latencies in µs.
  syncio_table(stream, t0_us, pid)
                          the syncio tool's events for syncio-*.csv: t_s (when the wait began),
                          kind, wait_us, qahead, pid, and dd (1 for process pid's: the dd's own;
                          all of them if pid is None).
  write_csv(path, header, rows), read_csv(path) -> (header, rows of float or None)
  column(header, rows, name)  one column (None where empty)
  blocked_seconds(header, rows, wmesg)
                          process-seconds spent asleep on wmesg: the sampled count times the
                          interval, summed (a sampled estimate, good to about one interval
                          per sleep)
  percentile(values, p)   nearest-rank percentile (p in 0..100) of the values that are not None
"""
import csv
import math

MB = 1e6
DEVSTAT = "kern.devstat."


class Stream:
    def __init__(self):
        self.meta = []
        self.header = None
        self.rows = []

    def meta_dict(self, word):
        """The key=value pairs of the last metadata line that starts with `word`."""
        out = {}
        for line in self.meta:
            parts = line.split()
            if parts and parts[0] == word:
                out = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        return out

    @property
    def consts(self):
        out = {}
        for line in self.meta:
            parts = line.split(" ", 2)
            if parts[0] == "const" and len(parts) >= 2:
                out[parts[1]] = parts[2] if len(parts) == 3 else ""
        return out

    @property
    def missing(self):
        return [line.split(" ", 1)[1] for line in self.meta if line.startswith("missing ")]


def split_stream(text):
    streams = {}
    for line in text.splitlines():
        label, sep, rest = line.partition(",")
        if not sep or not label:
            continue
        s = streams.setdefault(label, Stream())
        if rest.startswith("#"):
            s.meta.append(rest[1:].strip())
        elif s.header is None:
            s.header = rest.split(",")
        else:
            fields = rest.split(",")
            if len(fields) == len(s.header):       # a line cut short (the VM died) is dropped
                s.rows.append(fields)
    return streams


def _num(text):
    if text == "" or text is None:
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def column(header, rows, name):
    i = header.index(name)
    return [r[i] for r in rows]


def _rate(times, values):
    """MB/s between consecutive samples (0 for the first)."""
    out = [0.0]
    for i in range(1, len(times)):
        dt = times[i] - times[i - 1]
        a, b = values[i - 1], values[i]
        out.append(round((b - a) / dt / MB, 3) if dt > 0 and a is not None and b is not None else None)
    return out


def sample_table(stream, t0_us):
    src = stream.header
    rows = [[_num(f) for f in r] for r in stream.rows]
    t = [(r[0] - t0_us) / 1e6 for r in rows]
    header = ["t_s"] + src[1:]
    table = [[round(t[i], 6)] + rows[i][1:] for i in range(len(rows))]
    rates = [("rate.dd", "wbytes")]
    for name in src:
        if name.startswith(DEVSTAT) and name.endswith(".bytes_written"):
            rates.append(("rate." + name[len(DEVSTAT):-len(".bytes_written")], name))
    for rname, cname in rates:
        header.append(rname)
        values = _rate(t, [r[src.index(cname)] for r in rows])
        for row, v in zip(table, values):
            row.append(v)
    return header, table


def probe_table(stream, t0_us):
    header = ["t_s"] + stream.header[1:]
    rows = []
    for r in stream.rows:
        vals = [_num(f) for f in r]
        rows.append([round((vals[0] - t0_us) / 1e6, 6)] + vals[1:])
    return header, rows


def syncio_table(stream, t0_us, pid):
    header = ["t_s", "kind", "wait_us", "qahead", "pid", "dd"]
    src = stream.header
    rows = []
    for r in stream.rows:
        f = dict(zip(src, r))
        rows.append([round((int(f["start_us"]) - t0_us) / 1e6, 6), f["kind"], int(f["wait_us"]), int(f["qahead"]),
                     int(f["pid"]), int(pid is None or int(f["pid"]) == pid)])
    return header, rows


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])


def read_csv(path):
    with open(path, newline="") as f:
        rd = csv.reader(f)
        header = next(rd, [])
        return header, [[_num(v) for v in r] for r in rd]


def blocked_seconds(header, rows, wmesg):
    name = "wchan." + wmesg
    if name not in header or len(rows) < 2:
        return None
    t, n = column(header, rows, "t_s"), column(header, rows, name)
    return round(sum(n[i - 1] * (t[i] - t[i - 1]) for i in range(1, len(rows)) if n[i - 1] is not None), 3)


def percentile(values, p):
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    k = max(1, math.ceil(p / 100 * len(vals)))
    return vals[k - 1]
