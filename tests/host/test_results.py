"""test_results: every table of the book that names a published run prints that run's figures.

docs/harness.md "Results in the tree": a table quoting a run names it on the line before it,
`Run: [NAME](experiments/NAME/)`, and `tools/experiment --publish DIR NAME` has put the run's
summary.txt, results.csv, groups.csv, manifest.txt and plots in docs/experiments/NAME/. This
test (no build, no guest):
  - on a synthetic run written here: publish() copies those files (the checkout's absolute path
    made relative in the text ones) and refuses an ungathered
    folder, a file over its size limit and a name already published; a table quoting the run's
    figures passes check_table(), and a figure off by one in its last digit, a figure of another
    preset, a range whose end is not the run's, a p99 that is the run's maximum, a minimum and
    maximum swapped, and a row whose measure cannot be told are each reported; a loaded run's
    table (BUF+SCAN pairs, the load's columns) passes, and the other pair's figure is reported;
    so does a separate layout's (each disk's writer), and the other disk's figure is reported;
    a table of several runs (a `run` column) is read per run, and a row with another run's
    figures is reported;
  - in the book (README.md, docs/, labs/): every table that names a run names a folder of
    docs/experiments/ that holds a published run, and check_table() finds nothing in it; every
    published run is named by a table.
tests/guest/test_experiment.py does the same on a real quick run it makes.
"""
# tests/run: timeout=60
import csv
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
from treetext import ROOT, markdown_files  # noqa: E402
from wdexp import publish  # noqa: E402  (wdtest put tools/ on the path)

T = TestSet("results")
tmp = Path(tempfile.mkdtemp(prefix="test_results-"))

GROUPS = [  # preset, file_Bps median/min/max, of_stable42, queue.active, probe stat p50/p99 (us)
    ("stable42", 69512345, 69201234, 70012345, 1.0, 25.94, 1512, 5634),
    ("patched", 51587654, 51512345, 51612345, 0.7421, 7.61, 104, 598),
    ("perdevice", 68512345, 68101234, 68712345, 0.9856, 18.38, 1003, 3197),
]


def write_run(folder):
    """A gathered experiment of 3 presets, 1 trial each, as tools/experiment writes it."""
    folder.mkdir(parents=True)
    with open(folder / "groups.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["preset", "trials", "failed", "suspect", "counted", "file_Bps", "file_Bps_min", "file_Bps_max",
                    "of_stable42", "queue.active", "probe.stat_us.p50", "probe.stat_us.p99", "probe.stat_us.max"])
        for p, med, lo, hi, ratio, active, p50, p99 in GROUPS:
            w.writerow([p, 1, 0, 0, 1, med, lo, hi, ratio, active, p50, p99, p99 + 100])
    with open(folder / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "preset", "trial", "point", "status", "file_Bps", "late_pct", "guest_idle_pct"])
        for p, med, *_ in GROUPS:
            w.writerow(["%s-1" % p, p, 1, "", "ok", med, 0.46, 41.2])
    for name in ("summary.txt", "manifest.txt"):
        (folder / name).write_text("%s of the synthetic run in %s/build/out\n" % (name, os.path.realpath(ROOT)))
    (folder / "plot-compare-rate.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    (folder / "samples-stable42-1.csv").write_text("t_s\n0\n")


TABLE = """\
Run: [synthetic](experiments/synthetic/) (git 0000000, a run this test wrote)

| | stable42 | patched | perdevice | patched / stable42 | perdevice / best |
|---|---|---|---|---|---|
| file dd MB/s (min-max) | {s} (69.2-70.0) | 51.6 (51.5-51.6) | 68.5 (68.1-68.7) | 0.742 | **0.986** |
| at the drive (requests) | 25.9 | 7.6 | 18.4 | | |
| probe `stat` ms p50/p99 | 1.5 / 5.6 | 0.1 / 0.6 | 1.0 / 3.2 | | |
| late % of replies | 0.46 | 0.46 | 0.46 | | |
"""


def check(text):
    tables = publish.run_tables(text)
    if len(tables) != 1:
        return ["%d tables named a run" % len(tables)]
    return publish.check_table(tables[0][2], tmp / "docs" / "experiments" / "synthetic")


src = tmp / "build" / "out"
write_run(src)
into = tmp / "docs" / "experiments"
copied = publish.publish(src, "synthetic", into)
T.check("publish copies summary.txt, results.csv, groups.csv, manifest.txt and the comparison plots, nothing else",
        sorted(p.name for p in copied) == ["groups.csv", "manifest.txt", "plot-compare-rate.png", "results.csv",
                                           "summary.txt"] and all(p.is_file() for p in copied),
        expected="the four text files and plot-compare-rate.png", got=sorted(p.name for p in copied))
texts = [p.read_text() for p in copied if p.suffix != ".png"]
T.check("publish makes the checkout's path relative in the text files (the book names no build machine's path)",
        all(str(os.path.realpath(ROOT)) not in t for t in texts) and "in build/out" in (into / "synthetic" / "manifest.txt").read_text(),
        expected="build/out, no absolute path", got=(into / "synthetic" / "manifest.txt").read_text())
for why, args, want in (("a name already published", (src, "synthetic", into), "exists"),
                        ("a folder that was not gathered", (tmp / "build", "other", into), "not a gathered experiment"),
                        ("a bad name", (src, "Bad Name", into), "lower-case"),
                        ("a plot that is not there", (src, "other", into, ["plot-nothing.png"]), "no such plot")):
    try:
        publish.publish(*args)
        got = "it published"
    except publish.PublishError as e:
        got = str(e)
    T.check("publish refuses %s" % why, want in got, expected=want, got=got)
(src / "plot-compare-big.png").write_bytes(bytes(publish.MAX_BYTES + 1))
try:
    publish.publish(src, "big", into)
    got = "it published"
except publish.PublishError as e:
    got = str(e)
T.check("publish refuses a file over %d KB" % (publish.MAX_BYTES // 1024),
        "plot-compare-big.png" in got and not (into / "big").exists(), expected="plot-compare-big.png named, no folder",
        got=got)

good = TABLE.format(s="69.5")
T.check("a table that prints the run's figures passes", check(good) == [], expected=[], got=check(good))
for why, text, cell in (("a median off by one in its last digit", TABLE.format(s="69.6"), "'stable42'"),
                        ("another preset's figure", good.replace("| 25.9 | 7.6 |", "| 7.6 | 25.9 |"), "at the drive"),
                        ("the end of a range that is not the run's", good.replace("(51.5-51.6)", "(51.5-51.7)"),
                         "'patched'"),
                        ("a p99 that is the run's maximum", good.replace("0.1 / 0.6", "0.1 / 0.7"), "p50/p99"),
                        ("a minimum and maximum swapped", good.replace("(68.1-68.7)", "(68.7-68.1)"), "'perdevice'"),
                        ("a row whose measure cannot be told", good.replace("at the drive (requests)", "something else"),
                         "which measure?")):
    problems = check(text)
    T.check("check_table reports %s" % why, problems and all(cell in p for p in problems),
            expected="problems naming %s" % cell, got=problems)

# A loaded run (--load): its groups are BUF+SCAN pairs, its columns the load's.
LOADED = [  # pair, hog pages/s, reader hit %, laundered over the whole run, probe read p50/p99 (us)
    ("speedup+twopass", 2150.4, 61.2, 1200, 900, 14100),
    ("speedup+onepass", 3050.9, 55.7, 4100, 800, 12300),
]
loaded = tmp / "build" / "loaded"
loaded.mkdir(parents=True)
with open(loaded / "groups.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["preset", "trials", "failed", "suspect", "counted", "hog.touched_per_s", "reader.hit_pct",
                "vm.whole.laundered", "probe.read_us.p50", "probe.read_us.p99", "probe.read_us.max"])
    for pair, hog, hit, laundered, p50, p99 in LOADED:
        w.writerow([pair, 1, 0, 0, 1, hog, hit, laundered, p50, p99, p99 + 1000])
with open(loaded / "results.csv", "w", newline="") as f:
    csv.writer(f).writerows([["id", "preset", "trial", "point", "status"]] +
                            [["%s-1" % pair, pair, 1, "", "ok"] for pair, *_ in LOADED])
for name in ("summary.txt", "manifest.txt"):
    (loaded / name).write_text("%s\n" % name)
publish.publish(loaded, "loaded", into)
LOADED_TABLE = """\
Run: [loaded](experiments/loaded/)

| | speedup+twopass | speedup+onepass |
|---|---|---|
| hog pages/s | 2150 | 3051 |
| reader hits % | 61.2 | 55.7 |
| laundered over the whole run | 1200 | 4100 |
| probe read 4K ms p50/p99 | 0.9 / 14.1 | 0.8 / 12.3 |
"""
problems = [p for _, _, rows in publish.run_tables(LOADED_TABLE)
            for p in publish.check_table(rows, into / "loaded")]
T.check("a loaded run's table (BUF+SCAN pairs, the hog's, the reader's and the whole run's columns) passes",
        problems == [], expected=[], got=problems)
swapped = LOADED_TABLE.replace("| 2150 | 3051 |", "| 3051 | 2150 |")
problems = [p for _, _, rows in publish.run_tables(swapped) for p in publish.check_table(rows, into / "loaded")]
T.check("check_table reports the hog's rate of the other pair", len(problems) == 2 and
        all("hog.touched_per_s" in p for p in problems), expected="two problems naming hog.touched_per_s",
        got=problems)

# A --layout separate run: each disk's writer has its columns in groups.csv (writer.DISK_Bps).
separate = tmp / "build" / "separate"
separate.mkdir(parents=True)
with open(separate / "groups.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["preset", "trials", "failed", "suspect", "counted", "file_Bps", "writer.da1_Bps",
                "writer.da1_Bps_min", "writer.da1_Bps_max", "writer.da2_Bps", "writer.da2_Bps_min", "writer.da2_Bps_max"])
    w.writerow(["patched", 3, 0, 0, 3, 17900000, 10012345, 9012345, 10098765, 8931234, 8900000, 8990000])
    w.writerow(["perdevice", 3, 0, 0, 3, 22100000, 31512345, 30912345, 31898765, 11031234, 10900000, 11090000])
with open(separate / "results.csv", "w", newline="") as f:
    csv.writer(f).writerows([["id", "preset", "trial", "point", "status"], ["patched-1", "patched", 1, "", "ok"],
                             ["perdevice-1", "perdevice", 1, "", "ok"]])
for name in ("summary.txt", "manifest.txt"):
    (separate / name).write_text("%s\n" % name)
publish.publish(separate, "separate", into)
SEPARATE_TABLE = """\
Run: [separate](experiments/separate/)

| | patched | perdevice |
|---|---|---|
| the writer on `da1` MB/s (min-max) | 10.0 (9.0-10.1) | 31.5 (30.9-31.9) |
| the writer on `da2` MB/s | 8.93 | 11.03 |
"""
problems = [p for _, _, rows in publish.run_tables(SEPARATE_TABLE) for p in publish.check_table(rows, into / "separate")]
T.check("a separate layout's table (each disk's writer) passes", problems == [], expected=[], got=problems)
crossed = SEPARATE_TABLE.replace("| 8.93 | 11.03 |", "| 10.0 | 31.5 |")
problems = [p for _, _, rows in publish.run_tables(crossed) for p in publish.check_table(rows, into / "separate")]
T.check("check_table reports the other disk's writer", len(problems) == 2 and
        all("writer.da2_Bps" in p for p in problems), expected="two problems naming writer.da2_Bps", got=problems)

# A table of several runs: a `run` column links each row to its run.
MULTI_TABLE = """\
Run: [synthetic](experiments/synthetic/), [separate](experiments/separate/)

| drive | patched MB/s | perdevice MB/s | run |
|---|---|---|---|
| the first | 51.6 | 68.5 | [synthetic](experiments/synthetic/) |
| the second | 17.9 | 22.1 | [separate](experiments/separate/) |
"""
tables = publish.run_tables(MULTI_TABLE)
T.check("a table with a run column is read as one table per run, the run column left out",
        [(link, rows) for _, link, rows in tables] ==
        [("experiments/synthetic/", [["drive", "patched MB/s", "perdevice MB/s"], ["the first", "51.6", "68.5"]]),
         ("experiments/separate/", [["drive", "patched MB/s", "perdevice MB/s"], ["the second", "17.9", "22.1"]])],
        expected="synthetic's row, separate's row", got=tables)
problems = [p for _, link, rows in tables for p in publish.check_table(rows, into / Path(link).name)]
T.check("a table of several runs that prints each row's run passes", problems == [], expected=[], got=problems)
crossed = MULTI_TABLE.replace("| 17.9 | 22.1 |", "| 51.6 | 68.5 |")
problems = [p for _, link, rows in publish.run_tables(crossed) for p in publish.check_table(rows, into / Path(link).name)]
T.check("check_table reports a row that prints another run's figures", len(problems) == 2 and
        all("the second" in p for p in problems), expected="two problems naming the second row", got=problems)
unlinked = publish.run_tables(MULTI_TABLE.replace("[separate](experiments/separate/) |", "separate |"))
T.check("a row whose run cell links nowhere is its own entry, with no link", [t[1] for t in unlinked] ==
        ["experiments/synthetic/", ""], expected="synthetic, ''", got=[t[1] for t in unlinked])

named, published = [], set()
for d in sorted((Path(ROOT) / "docs" / "experiments").iterdir()):
    if d.is_dir() and (d / "groups.csv").is_file():
        published.add(d.name)
problems = []
for rel, text in markdown_files():
    for line, link, rows in publish.run_tables(text):
        folder = (Path(ROOT) / rel).parent / link
        where = "%s:%d (%s)" % (rel, line, link)
        if folder.resolve().parent != (Path(ROOT) / "docs" / "experiments").resolve():
            problems.append("%s: a run is a folder of docs/experiments/" % where)
            continue
        named.append(folder.resolve().name)
        problems += ["%s: %s" % (where, p) for p in publish.check_table(rows, folder)]
T.check("every table of the book that names a published run prints its figures (%d tables, %d runs published)"
        % (len(named), len(published)), not problems, expected="no problem", got=problems)
T.check("every run published in docs/experiments/ is named by a table", published <= set(named),
        expected="all named", got=sorted(published - set(named)))
shutil.rmtree(tmp, ignore_errors=True)
T.done()
