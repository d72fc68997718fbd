"""publish: a run's results into the book, and the check that the book's tables print them.

A table in docs/ that quotes a run names it on a line of its own just before the table,
`Run: [NAME](experiments/NAME/) ...`; the run's small text outputs are then committed in
docs/experiments/NAME/ (docs/harness.md "Results in the tree"):

  publish(src, name, into, plots)   copy an output folder's summary.txt, results.csv, groups.csv,
                                    manifest.txt (the checkout's path made relative) and plots
                                    (the globs given; by default DEFAULT_PLOTS, the comparison,
                                    sweep and trade-off plots) into into/name/.
                                    Nothing over MAX_BYTES is copied (no disk image, no sample
                                    stream). PublishError if src is not a gathered experiment or
                                    into/name exists. Returns the files copied.
  run_tables(text)                  the tables of a Markdown text that name a run:
                                    [(line number, the run's link, rows of cells)]; a table
                                    with a column headed `run` (a link in each row) gathers
                                    rows of several runs: one entry per run, its rows under
                                    the header, the run column left out
  check_table(rows, folder)         what in such a table is not its run's (the folder's
                                    groups.csv and results.csv): [problem]; [] if every figure is.

How a table is read (check_table). Its first row is the header. A preset (a name of
kernel/kern/main.c's table, or a loaded run's BUF+SCAN pair, or several as "A / B") is named by a cell's column header or by its
row's first cell, or the run has one preset; a sweep point by the row's cell under a column
headed with an axis of the run (`vfs.perdevice.target_ms`). What a cell measures is read from
its row's first cell and its column header together (MEASURES, first match): "file dd MB/s",
"raw", "of raw", "beside probe", "patched / stable42", "of the best", "at the drive", "host
queue", "stat", "read", "fsync", "indirect-block", a wait message, "laundered", "paged out",
"late", "idle", "trials", a separate layout's "writer on da1", and the loaded run's "hog pages/s", "reader", "hit", "swapped out",
"reactivated", "whole run"... Every number in the cell (a range "69.2-70.0" is two) must be one of
that measure's values for that preset and point, in the measure's unit (MB/s = 10^6 B/s, ms) at
the precision printed: the statistic the label names in its place ("p50/p99": the first number
is the p50, the second the p99; "MB/s (min-max)": median, minimum, maximum), else any of the
measure's (the group's median, minimum, maximum, percentiles, a trial's value). A cell with "-" or no number says nothing. A cell whose measure or preset cannot be
told is a problem: such a table must not name a run.
"""
import csv
import re
import shutil
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import wdrun

from .plan import PRESETS, SEED_BPS, load_designs, point_tag

DOCS_RUNS = wdrun.ROOT / "docs" / "experiments"
TEXT_FILES = ("summary.txt", "results.csv", "groups.csv", "manifest.txt")
DEFAULT_PLOTS = ("plot-compare-*.png", "plot-*-compare-*.png", "plot-sweep-*.png", "plot-tradeoff.png")   # a sweep point's compare plots are plot-POINT-compare-*
MAX_BYTES = 300 * 1024
NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]*$")
RUN_LINE_RE = re.compile(r"^ {0,3}\**Run:?\**:?\s*\[[^\]]*\]\(([^)\s#]+)\)")     # not in a code block
LINK_RE = re.compile(r"\]\(([^)\s#]+)\)")
NUMBER_RE = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
DESIGNS = list(PRESETS) + [d for d in load_designs() if d not in PRESETS]   # presets and BUF+SCAN pairs

WAITS = ("flswai", "wdrain", "wdrdev", "newbuf", "wswbuf0")
PROBE = (("stat", "probe.stat_us"), ("read", "probe.read_us"), ("fsync|create\\+write", "probe.write_us"))
# (label pattern, fields of groups.csv or results.csv, scale) in the order they are tried; the
# scale turns a field into the table's unit ("MB" = 10^6 when the label says MB/s).
MEASURES = [
    # the loaded experiment's columns (--load; docs/harness.md "What each run reports"), first:
    # "reader" and "disk reads" would match the probe's "read"
    (r"hog.*pages/s|touched", ["hog.touched_per_s"], 1),
    (r"hog.*slowest|slowest pass", ["hog.slowest_pass_s"], 1),
    (r"reader.*slowest", ["reader.slowest_interval_rps"], 1),
    (r"reader.*longest|reader.*max", ["reader.max_read_ms"], 1),
    (r"hits?\b|cache hit", ["reader.hit_pct"], 1),
    (r"disk reads", ["reader.disk_reads"], 1),
    (r"reads/s|reader", ["reader.reads_per_s"], 1),
    (r"whole run.*laundered|laundered.*whole run", ["vm.whole.laundered"], 1),
    (r"whole run.*swapped out|swapped out.*whole run", ["vm.whole.swap_out"], 1),
    (r"whole run.*swapped in|swapped in.*whole run", ["vm.whole.swap_in"], 1),
    (r"swapped out|to swap", ["vm.swap_out"], 1),
    (r"swapped in|from swap", ["vm.swap_in"], 1),
    (r"to files", ["vm.file_out"], 1),
    (r"from files", ["vm.file_in"], 1),
    (r"reactivated", ["vm.reactivated"], 1),
    (r"rescans", ["vm.rescans"], 1),
    (r"requeued", ["vm.requeued"], 1),
    (r"pagedaemon wakeups", ["vm.pd_wakeups"], 1),
    (r"pagedaemon CPU", ["cpu.pagedaemon_s"], 1),
    (r"swap (?:disk's )?queue", ["swapq.mean", "swapq.max"], 1),
    (r"beside (?:the )?probe", ["smooth_Bps"], "MB"),
    (r"of raw", ["file_of_raw"], 1),
    (r"\braw\b", ["raw_Bps"], "MB"),
    (r"/ ?stable42|of stable42", ["of_stable42"], 1),
    (r"/ ?best|of the best", ["best"], 1),
    (r"seed", ["seed"], "MB"),
    (r"at the drive", ["queue.active", "queue.active_max"], 1),
    (r"host queue", ["queue.waiting", "queue.waiting_max"], 1),
    (r"indirect-block|metawrite", ["syncio.metawrite.%s" % x for x in ("n", "total_s", "p50_ms", "p99_ms",
                                                                       "max_ms", "qahead")], 1),
] + [(p, ["%s.%s" % (f, k) for k in ("p50", "p99", "max")], 0.001) for p, f in PROBE] + [
    (w, ["blocked_s." + w, "sleeps." + w], 1) for w in WAITS] + [
    (r"asleep|blocked", ["blocked_s." + w for w in WAITS] + ["sleeps." + w for w in WAITS], 1),
    (r"laundered", ["laundered", "vm.laundered"], 1),
    (r"paged out", ["paged_out"], 1),
    (r"bd flushes", ["bd_flushes"], 1),
    (r"late", ["late_pct"], 1),
    (r"idle", ["guest_idle_pct"], 1),
    (r"trials|suspect|counted|failed", ["trials", "suspect", "counted", "failed"], 1),
    (r"file dd|B/s", ["file_Bps", "file_Bps_min", "file_Bps_max"], "MB"),
]


class PublishError(Exception):
    pass


def publish(src, name, into=DOCS_RUNS, plots=None):
    """Copy the experiment folder src's small outputs into into/name/; the files copied."""
    src, into = Path(src), Path(into)
    if not NAME_RE.match(name):
        raise PublishError("--publish: the name '%s': lower-case letters, digits, '.', '_', '-'" % name)
    missing = [f for f in TEXT_FILES if not (src / f).is_file()]
    if missing:
        raise PublishError("%s: not a gathered experiment (no %s; tools/experiment --gather %s makes them)"
                           % (src, ", ".join(missing), src))
    dest = into / name
    if dest.exists():
        raise PublishError("%s exists: a published run is not replaced (remove it first, or choose another name)"
                           % dest)
    files = [src / f for f in TEXT_FILES]
    for pattern in plots or DEFAULT_PLOTS:
        found = sorted(src.glob(pattern))
        if plots and not found:
            raise PublishError("--plot %s: no such plot in %s" % (pattern, src))
        files += [p for p in found if p not in files]
    big = [p.name for p in files if p.stat().st_size > MAX_BYTES]
    if big:
        raise PublishError("%s: over %d KB, not for the repository: %s" % (src, MAX_BYTES // 1024, ", ".join(big)))
    dest.mkdir(parents=True)
    for p in files:
        if p.name in TEXT_FILES:
            (dest / p.name).write_text(without_checkout_path(p.read_text()))
        else:
            shutil.copyfile(p, dest / p.name)
    return [dest / p.name for p in files]


def without_checkout_path(text):
    """text with the checkout's absolute path made relative (folders gathered before the
    result files printed relative paths): the book names no directory of the build machine."""
    return text.replace(str(wdrun.ROOT.resolve()) + "/", "")


# ---- the tables that name a run ---------------------------------------------------------

def cells(line):
    """The cells of a Markdown table row."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def run_tables(text):
    """[(line number of the table's header, the run's link, rows)] for every table that follows a
    `Run: [NAME](experiments/NAME/)` line, before the next heading."""
    out, run, lines = [], None, text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = RUN_LINE_RE.match(line)
        if m:
            run = m.group(1)
        elif line.startswith("#"):
            run = None
        elif run and line.lstrip().startswith("|"):
            start, rows = i + 1, []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                if not re.fullmatch(r"\|?[\s:|-]+\|?", lines[i].strip()):
                    rows.append(cells(lines[i]))
                i += 1
            out += by_run_column(start, run, rows)
            run = None
            continue
        i += 1
    return out


def by_run_column(start, run, rows):
    """A table's [(line, link, rows)]: one entry, or one per run its `run` column links to
    (a row whose run cell links nowhere gets the link "")."""
    header = rows[0] if rows else []
    col = next((j for j, h in enumerate(header) if clean(h).strip().lower() == "run"), None)
    if col is None:
        return [(start, run, rows)]
    drop = lambda r: r[:col] + r[col + 1:]
    groups = {}
    for row in rows[1:]:
        m = LINK_RE.search(row[col]) if col < len(row) else None
        groups.setdefault(m.group(1) if m else "", []).append(drop(row))
    return [(start, link, [drop(header)] + body) for link, body in groups.items()]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def presets_in(text, known):
    """The presets a label names, in order (several as "A / B")."""
    return [w for w in re.findall(r"[A-Za-z0-9_.+-]+", text) if w in known]


def clean(text):
    return re.sub(r"[`*]", "", text)


def measure_of(label):
    """(fields, scale) of the first MEASURES entry the label matches, or None. A writer's rate
    in --layout separate names its disk ("the writer on da1 MB/s"): groups.csv's writer.DISK_Bps."""
    disk = re.search(r"\b(da\d+)\b", label)
    if disk and re.search(r"writer", label, re.I):
        return ["writer.%s_Bps%s" % (disk.group(1), k) for k in ("", "_min", "_max")], \
            1e-6 if re.search(r"MB/s|\bMB\b", label) else 1
    for pattern, fields, scale in MEASURES:
        if re.search(pattern, label, re.I):
            if scale == "MB":
                scale = 1e-6 if re.search(r"MB/s|\bMB\b", label) else 1
            return fields, scale
    return None


def group_values(group, runs, fields, groups):
    """Every value the fields take for a group: its groups.csv row and its trials' results.csv
    rows; "best" and "seed" are derived."""
    vals = []
    for f in fields:
        if f == "best":
            others = [_num(g["file_Bps"]) for g in groups if g is not group and g.get("point") == group.get("point")]
            others = [v for v in others if v]
            mine = _num(group.get("file_Bps"))
            if mine and others:
                vals.append(mine / max(others))
        elif f == "seed":
            vals.append(SEED_BPS.get(group["preset"]))
        else:
            vals += [_num(group.get(f))] + [_num(r.get(f)) for r in runs]
    return [v for v in vals if v is not None]


def statistics_of(label, count):
    """The statistics a label lists for a cell's `count` numbers, in order ("p50/p99" -> p50, p99;
    "(min-max)" after a median -> median, min, max), or None if it lists none or another count."""
    stats = re.findall(r"\b(p50|p99|max|min)\b", label)
    if stats == ["min", "max"] and count == 3:
        stats = ["median"] + stats
    return stats if stats and len(stats) == count else None


def stat_field(field, stat):
    """Does a field hold that statistic? The median is the field without a suffix (file_Bps,
    queue.active), the others end in it (probe.stat_us.p99, syncio.metawrite.p99_ms, _max)."""
    tail = re.split(r"[._]", field.replace("_ms", ""))[-1]
    if stat == "median":
        return tail not in ("p50", "p99", "max", "min")
    return tail == stat


def printed_as(value, text):
    """Is `value` printed as `text` (a number as the table has it) at that precision?"""
    digits = text.replace(",", "")
    places = len(digits.split(".")[1]) if "." in digits else 0
    if format(value, ".%df" % places) == digits:                 # as Python prints it
        return True
    try:                                                          # as a person rounds it
        want, v = Decimal(digits), Decimal(repr(value))
        return any(v.quantize(Decimal(1).scaleb(-places), rounding=r) == want for r in (ROUND_HALF_UP, ROUND_HALF_EVEN))
    except InvalidOperation:
        return False


def check_table(rows, folder):
    """The problems of a table that names the run published in `folder`: [] if every figure in it
    is one of the run's values for the preset and measure its row and column say."""
    folder = Path(folder)
    if not (folder / "groups.csv").is_file():
        return ["%s: no groups.csv (publish the run: tools/experiment --publish)" % folder]
    groups, results = read_csv(folder / "groups.csv"), read_csv(folder / "results.csv")
    run_presets = sorted({g["preset"] for g in groups})
    columns = list(groups[0]) if groups else []
    swept = columns[:columns.index("trials")] if "trials" in columns else []   # the sweep's axes come first
    axes = swept + ["preset"] * ("preset" not in swept)
    header, problems = rows[0], []
    axis_cols = {j: a for j, h in enumerate(header) for a in axes if clean(h).strip() == a}
    for row in rows[1:]:
        point = {a: clean(row[j]).strip() for j, a in axis_cols.items() if j < len(row)}
        for j in range(1, len(row)):
            if j in axis_cols:
                continue
            col = clean(header[j]) if j < len(header) else ""
            label = clean(row[0]) + " " + col
            numbers = NUMBER_RE.findall(re.sub(r"(?<=\d)-(?=\d)", " ", clean(row[j])))
            if not numbers:
                continue
            where = "row '%s', column '%s'" % (row[0], header[j] if j < len(header) else j + 1)
            names = presets_in(col, DESIGNS) or presets_in(clean(row[0]), DESIGNS) or \
                (run_presets if len(run_presets) == 1 else [])
            m = measure_of(label)
            if not names or m is None:
                problems.append("%s: %s" % (where, "which preset?" if not names else "which measure?"))
                continue
            fields, scale = m
            per = len(numbers) // len(names) if len(names) > 1 and len(numbers) % len(names) == 0 else len(numbers)
            stats = statistics_of(label, per)
            for k, text in enumerate(numbers):
                preset = names[min(k // per, len(names) - 1)] if len(names) > 1 else names[0]
                wanted = [f for f in fields if stats and stat_field(f, stats[k % per])] or fields
                group = next((g for g in groups if g["preset"] == preset
                              and all(g.get(a) == v for a, v in point.items())), None)
                if group is None:
                    problems.append("%s: the run has no group %s %s" % (where, preset, point or ""))
                    continue
                tag = point_tag({a: group[a] for a in swept if a != "preset"})
                runs = [r for r in results if r["preset"] == preset and r.get("status") == "ok"
                        and r.get("point", "") == tag]
                vals = [v * scale for v in group_values(group, runs, wanted, groups)]
                if not any(printed_as(v, text) for v in vals):
                    problems.append("%s: %s is not a value of the run's %s for %s%s (%s)"
                                    % (where, text, "/".join(wanted[:3]), preset, " " + str(point) if point else "",
                                       ", ".join("%g" % v for v in vals[:8]) or "none"))
    return problems
