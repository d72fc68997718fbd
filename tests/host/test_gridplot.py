"""test_gridplot: the grid of drives' figure, `tools/experiment --grid-plot PNG RUN...`.

tools/wdexp/plots.py draw_grid() reads published runs' folders (docs/harness.md "The plots"):
each run's drive from its manifest.txt (the --disk-model preset's tags and write cache as
tools/diskmodel/dm_model.c sets them, the run's qdepth= and wcache= words over them) and
patched's file dd over stable42's from its groups.csv. This test (no build, no guest):
  - reads the scsi10k preset's drive out of dm_model.c: 64 tags, no write cache
    (docs/diskmodel.md "Presets and sources");
  - on runs written here: the words over the preset are applied, and a run with a throttle
    instead of a model, without a patched group, or without a manifest is refused with the
    reason;
  - on the published runs the chapter's command names: each gives the cell the chapter's grid
    table prints for it (its tags and write cache in the table's drive column, its ratio), and
    the figure they make is drawn (a PNG, when gnuplot is installed) and is in the tree.
"""
# tests/run: timeout=60
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import wdrun  # noqa: E402  (wdtest put tools/ on the path)
from wdexp import plots  # noqa: E402

T = TestSet("gridplot")
ROOT = Path(wdrun.ROOT)
RUNS = ROOT / "docs" / "experiments"
tmp = Path(tempfile.mkdtemp(prefix="test_gridplot-"))

T.check("the scsi10k preset's drive, read from dm_model.c: 64 tags, no write cache",
        plots.preset_drive("scsi10k") == (64, False), expected=(64, False), got=plots.preset_drive("scsi10k"))


def fake_run(name, model, groups):
    """A published run's two files the figure reads: the manifest's options and groups.csv."""
    d = tmp / name
    d.mkdir()
    (d / "manifest.txt").write_text('experiment:  %s\noptions:\n  bs           "32k"\n  disk_model   %s\n'
                                    '  throttle     0.0\nruns (host, ...):\n' % (name, model))
    (d / "groups.csv").write_text("openings,preset,of_stable42\n" + "".join("16,%s,%s\n" % g for g in groups))
    return d


def refusal(folder):
    try:
        return "accepted: %s" % (plots.grid_cell(folder),)
    except wdrun.ConfigError as e:
        return e.message


good = fake_run("cell16", '"scsi10k,qdepth=16,wcache=on"', [("stable42", "1.0"), ("patched", "0.9123")])
T.check("a run's qdepth= and wcache= words are laid over its preset's drive",
        plots.grid_cell(good) == (16, True, 0.9123), expected=(16, True, 0.9123), got=plots.grid_cell(good))
for why, folder, want in (("a throttled run (no modelled drive)", fake_run("thr", "null", [("patched", "1.0")]),
                           "no modelled drive"),
                          ("a run without a patched group", fake_run("nopatch", '"scsi10k"', [("stable42", "1.0")]),
                           "one group of patched"),
                          ("a folder without a manifest", tmp, "no manifest.txt")):
    got = refusal(folder)
    T.check("grid_cell refuses %s" % why, want in got, expected=want, got=got)

chapter = (ROOT / "docs" / "experiments.md").read_text()
command = re.search(r"tools/experiment --grid-plot (\S+) \\\n\s+docs/experiments/\{([^}]+)\}", chapter)
T.check("the chapter shows the figure and the command that draws it",
        command is not None and "](experiments/%s)" % Path(command.group(1)).name in chapter,
        expected="tools/experiment --grid-plot docs/experiments/NAME.png ... and ![...](experiments/NAME.png)",
        got=command and command.group(0))
if command:
    png, names = ROOT / command.group(1), command.group(2).split(",")
    wrong = []
    for name in names:
        tags, wc, ratio = plots.grid_cell(RUNS / name)
        # the grid's table is the chapter's first with a row that links this run in its last cell
        row = next((ln for ln in chapter.split("\n") if ln.endswith("| [%s](experiments/%s/) |" % (name, name))), "")
        cell = "%d tags, wc %s" % (tags, "on" if wc else "off")
        if not row.startswith("| " + cell) or "| %.3f |" % ratio not in row:
            wrong.append("%s: %s, %.3f; the table's row: %r" % (name, cell, ratio, row[:60]))
    T.check("each run of the figure is the cell the grid's table prints for it (%s)" % ", ".join(names),
            names and not wrong, expected="every run's drive and ratio as in its row", got=wrong)
    T.check("the figure is in the tree", png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n",
            expected="a PNG", got=png)
    if shutil.which("gnuplot"):
        out = tmp / "grid.png"
        cells = plots.draw_grid([RUNS / n for n in names], out)
        T.check("draw_grid draws those runs into a PNG, the cells in order (write cache off first, by tags)",
                out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and [(c[2], c[1]) for c in cells] == sorted((c[2], c[1]) for c in cells)
                and not (tmp / "grid.gp").exists(), expected="a PNG, sorted cells, no script left", got=cells)
    else:
        T.skip("draw_grid draws the runs into a PNG", "gnuplot", "tools/install-deps installs gnuplot-nox")
shutil.rmtree(tmp, ignore_errors=True)
T.done()
