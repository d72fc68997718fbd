"""wdbench: what the dd benchmarks share (tools/bench-raw, tools/experiment).

  DD_RE, parse_dd(text)   dd's FreeBSD summary "X bytes transferred in S secs (R bytes/sec)"
                          -> (bytes, seconds), or None if the text has none.
  block_size(text)        '32k', '1m' -> ('32k', 32768); argparse.ArgumentTypeError if bad.
  CCD_RELEASE             a shell command (ending "; ") that unconfigures the ccd0 the guest's
                          /etc/ccd.conf made at boot (over da1 da2 or ada1 ada2), so that its
                          components are free; it never fails the line it starts.
  ccdconfig_line(cfg)     the seed's stripe over all of cfg's data disks, after CCD_RELEASE:
                          "...; ccdconfig ccd0 128 none /dev/da1 /dev/da2" (interleave 128 sectors).
"""
import argparse
import re

MiB = 1 << 20
ILEAVE = 128                        # sectors: the seed's ccdconfig ccd0 128 none ...
DD_RE = re.compile(r"(\d+) bytes transferred in ([\d.]+) secs \((\d+) bytes/sec\)")
SIZE_RE = re.compile(r"(\d+)([km])$")
CCD_RELEASE = "ccdconfig -u ccd0 2>/dev/null; "


def parse_dd(text):
    m = DD_RE.search(text)
    if m is None:
        return None
    return int(m.group(1)), float(m.group(2))


def block_size(text):
    m = SIZE_RE.fullmatch(text.strip().lower())
    if m is None:
        raise argparse.ArgumentTypeError("'%s': a block size is N k or N m (32k, 128k, 1m)" % text)
    n = int(m.group(1)) * (1024 if m.group(2) == "k" else MiB)
    if n < 512 or n % 512 or n > MiB:
        raise argparse.ArgumentTypeError("'%s': a multiple of 512 bytes, at most 1m" % text)
    return text.strip().lower(), n


def ccdconfig_line(cfg):
    return CCD_RELEASE + "ccdconfig ccd0 %d none %s" % (ILEAVE, " ".join("/dev/" + n for n in cfg.data_names()))
