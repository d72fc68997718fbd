"""test_sampler: the experiment's in-guest instruments and their channel to the host.

Boot 1 without --serial2: there is no /dev/ttyd1 (no UART answers at COM2).
Boot 2 with --serial2 FILE (COM2 = /dev/ttyd1 to a host file):
- /dev/ttyd1: what is written reaches FILE byte for byte (no "\\r" added); reading it fails.
- sampler over a dd: exits with the command's status; its lines are labelled; the names that
  do not exist are reported once as "#missing" and left out, string nodes once as "#const",
  a ".*" prefix expands to the nodes under it; sample times increase and their number fits
  the duration and interval; wbytes (kern.proc's ki_wbytes) ends at least at dd's byte count
  and never decreases; wchan.nanslp counts a `sleep` it runs, and kern.cp_idle_ns grows by most
  of the time the sleep took (the guest's one CPU idles, but for the samples themselves).
- sampler passes on a failing command's status and a killed one's 128+signal.
- latprobe: -n N gives N lines with the three latencies; -p stops it when the watched
  process exits; a file of 8 blocks read 10 times reports "#wrapped"; a file smaller than a
  block, or no action at all, exits 1 with a message.
- sampler and latprobe writing /dev/ttyd1 at once: every line is whole.
"""
# tests/run: timeout=300
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from wdtest import Guest, TestSet  # noqa: E402
from wdexp import series  # noqa: E402

T = TestSet("sampler")
tmp = tempfile.mkdtemp(prefix="test_sampler-")
serial = os.path.join(tmp, "com2.txt")

with Guest() as g:
    out, _ = g.sh("ls /dev")
    T.check("without --serial2 there is no /dev/ttyd1", "ttyd1" not in out.split(), expected="no ttyd1", got=out.split())

with Guest(serial2=serial) as g:
    out, st = g.sh("ls /dev")
    T.check("with --serial2 /dev/ttyd1 exists", "ttyd1" in out.split(), expected="ttyd1", got=out.split())
    g.sh("echo ttyd1-line-1 > /dev/ttyd1; echo ttyd1-line-2 >> /dev/ttyd1")
    out, st = g.sh("cat /dev/ttyd1")
    T.check("reading /dev/ttyd1 fails", st != 0, expected="non-zero status", got=st)

    out, st = g.sh("sampler -l s1 -o /dev/ttyd1 -i 100 -s vfs.numdirtybuffers,vfs.nosuchnode,kern.design,"
                   "kern.devstat.md0.*,nosuch.prefix.*,kern.boottime -w nanslp,flswai dd if=/dev/zero of=/tmp/f bs=64k count=160")
    T.check("sampler exits with dd's status 0", st == 0, expected=0, got=st)
    out, st = g.sh("sampler -l s2 -o /dev/ttyd1 -i 50 -s vfs.bufspace,kern.cp_idle_ns -w nanslp sleep 1")
    T.check("sampler runs sleep 1 with status 0", st == 0, expected=0, got=st)
    out, st = g.sh("sampler -o /dev/ttyd1 -l s3 -s vfs.bufspace false")
    T.check("sampler passes on false's status 1", st == 1, expected=1, got=st)
    out, st = g.sh("sampler -o /dev/ttyd1 -l s4 -s vfs.bufspace sh -c 'kill -9 $$'")
    T.check("sampler exits 128+9 for a command killed by SIGKILL", st == 137, expected=137, got=st)
    out, st = g.sh("sampler -s vfs.bufspace")
    T.check("sampler without a command is a usage error", st == 1 and "usage: sampler" in out,
            expected="status 1 and a usage line", got="%d %r" % (st, out))

    g.sh("dd if=/dev/zero of=/tmp/pf bs=8k count=8 2>/dev/null; dd if=/dev/zero of=/tmp/small bs=4k count=1 2>/dev/null")
    out, st = g.sh("latprobe -o /dev/ttyd1 -l p1 -i 20 -n 6 -s /tmp/pf -r /tmp/pf -w /tmp")
    T.check("latprobe -n 6 exits 0", st == 0, expected=0, got=(st, out))
    out, st = g.sh("sleep 1 & S=$!; latprobe -o /dev/ttyd1 -l p2 -i 50 -p $S -s /tmp/pf; wait $S")
    T.check("latprobe -p stops when the watched process exits", st == 0, expected=0, got=(st, out))
    out, st = g.sh("latprobe -o /dev/ttyd1 -l p3 -i 10 -n 10 -r /tmp/pf")
    T.check("latprobe reads an 8-block file 10 times", st == 0, expected=0, got=(st, out))
    out, st = g.sh("latprobe -i 10 -n 1 -r /tmp/small")
    T.check("latprobe refuses a read file smaller than one block", st == 1 and "smaller than one block" in out,
            expected="status 1, 'smaller than one block'", got="%d %r" % (st, out))
    out, st = g.sh("latprobe -i 10")
    T.check("latprobe with no action is a usage error", st == 1 and "usage: latprobe" in out,
            expected="status 1 and a usage line", got="%d %r" % (st, out))
    out, st = g.sh("sampler -o /dev/ttyd1 -l both -i 20 -s vfs.bufspace,vfs.numdirtybuffers,vfs.nbuf dd if=/dev/zero "
                   "of=/tmp/g bs=32k count=200 & S=$!; latprobe -o /dev/ttyd1 -l both -i 10 -p $S -s /tmp/pf; wait $S")
    T.check("sampler and latprobe side by side exit 0", st == 0, expected=0, got=(st, out))

text = open(serial, errors="replace").read() if os.path.exists(serial) else ""
T.check("/dev/ttyd1's bytes reach the host file as written", text.startswith("ttyd1-line-1\nttyd1-line-2\n"),
        expected="'ttyd1-line-1\\nttyd1-line-2\\n' first", got=text[:40])
streams = series.split_stream(text)
s1 = streams.get("s1")
if T.check("sampler's lines carry its label", s1 is not None and s1.header is not None, expected="label s1", got=sorted(streams)):
    T.check("a missing name is reported once and left out",
            s1.missing.count("vfs.nosuchnode") == 1 and "vfs.nosuchnode" not in s1.header,
            expected="#missing vfs.nosuchnode once, no column", got=(s1.missing, s1.header))
    T.check("a prefix with nothing under it is reported missing", "nosuch.prefix.*" in s1.missing,
            expected="nosuch.prefix.*", got=s1.missing)
    T.check("a string node is reported as #const", s1.consts.get("kern.design") in ("patched", "stable42"),
            expected="kern.design patched", got=s1.consts)
    T.check("a structure is reported as #skipped and left out",
            any(m.startswith("skipped kern.boottime") for m in s1.meta) and "kern.boottime" not in s1.header,
            expected="#skipped kern.boottime", got=s1.meta)
    T.check("a .* prefix becomes the nodes under it", "kern.devstat.md0.bytes_written" in s1.header,
            expected="kern.devstat.md0.bytes_written", got=s1.header)
    T.check("the header starts with t_us,wbytes and ends with the wait messages",
            s1.header[:2] == ["t_us", "wbytes"] and s1.header[-2:] == ["wchan.nanslp", "wchan.flswai"],
            expected="t_us,wbytes,...,wchan.nanslp,wchan.flswai", got=s1.header)
    t = [int(r[0]) for r in s1.rows]
    wb = [int(r[1]) for r in s1.rows]
    T.check("sample times increase", len(t) >= 2 and all(b > a for a, b in zip(t, t[1:])), expected="increasing", got=t)
    T.check("wbytes never decreases and ends at dd's 10485760 bytes or more (its summary too)",
            wb == sorted(wb) and wb[-1] >= 160 * 65536, expected=">= 10485760, non-decreasing", got=wb)
    T.check("#end reports status 0 and the number of samples",
            s1.meta_dict("end").get("status") == "0" and s1.meta_dict("end").get("samples") == str(len(s1.rows)),
            expected="status=0 samples=%d" % len(s1.rows), got=s1.meta_dict("end"))
    busy = s1.meta_dict("end").get("cpu_us", "")
    span = (t[-1] - t[0]) if len(t) > 1 else 0
    T.check("#end reports the sampler's CPU time (cpu_us), less than the run's span",
            busy.isdigit() and 0 < int(busy) < span, expected="0 < cpu_us < %d" % span, got=busy)
s2 = streams.get("s2")
if T.check("sampler over sleep 1 wrote samples", s2 is not None and s2.rows, expected="rows", got=s2 and s2.rows):
    t = [int(r[0]) for r in s2.rows]
    span, n = (t[-1] - t[0]) / 1e6, len(t)
    T.check("samples every 50 ms over about 1 s: their count is duration / interval (+-30%)",
            0.7 * span / 0.05 <= n - 1 <= 1.3 * span / 0.05 and span >= 0.9,
            expected="about %d samples over >= 0.9 s" % (span / 0.05), got="%d over %.2f s" % (n, span))
    sl = [int(r[s2.header.index("wchan.nanslp")]) for r in s2.rows]
    T.check("wchan.nanslp counts the sleeping command", max(sl) >= 1, expected=">= 1", got=sl)
    idle = [int(r[s2.header.index("kern.cp_idle_ns")]) for r in s2.rows]
    T.check("kern.cp_idle_ns grows by most of a sleep's time, never by more than the time itself",
            0.5 * span <= (idle[-1] - idle[0]) / 1e9 <= span + 0.02,
            expected="between %.2f and %.2f s" % (0.5 * span, span + 0.02), got="%.3f s" % ((idle[-1] - idle[0]) / 1e9))
for label, status in (("s3", "1"), ("s4", "137")):
    s = streams.get(label)
    T.check("#end of %s has status=%s" % (label, status), s is not None and s.meta_dict("end").get("status") == status,
            expected=status, got=s and s.meta)
p1 = streams.get("p1")
if T.check("latprobe wrote a header and lines", p1 is not None and p1.header is not None, expected="p1", got=sorted(streams)):
    T.check("latprobe's header", p1.header == ["t_us", "stat_us", "read_us", "write_us"],
            expected="t_us,stat_us,read_us,write_us", got=p1.header)
    T.check("latprobe -n 6 wrote 6 lines, every latency present and >= 0",
            len(p1.rows) == 6 and all(f != "" and int(f) >= 0 for r in p1.rows for f in r),
            expected="6 full lines", got=p1.rows)
    T.check("latprobe's #end counts 6 probes and no errors", p1.meta_dict("end") .get("probes") == "6"
            and p1.meta_dict("end").get("errors") == "0", expected="probes=6 errors=0", got=p1.meta_dict("end"))
p2 = streams.get("p2")
T.check("latprobe -p probed while the process ran (about 20 in 1 s)", p2 is not None and 5 <= len(p2.rows) <= 30,
        expected="5-30 lines", got=p2 and len(p2.rows))
p3 = streams.get("p3")
if T.check("an 8-block probe file read 10 times reports #wrapped once", p3 is not None and p3.meta.count("wrapped") == 1,
           expected="#wrapped", got=p3 and p3.meta):
    offsets = len(p3.rows)
    T.check("... after 10 reads in all", offsets == 10, expected=10, got=offsets)
mixed = [ln for ln in text.splitlines() if ln.startswith("both,")]
widths = {len(ln.split(",")) for ln in mixed if not ln.startswith("both,#")}
T.check("two writers on /dev/ttyd1: every line is whole (two line shapes only)", len(mixed) > 10 and len(widths) == 2,
        expected="two field counts", got=sorted(widths))
T.done()
