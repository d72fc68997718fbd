"""plan: what an experiment runs, saved as plan.json in its output folder.

  Options               every choice of tools/experiment (cli.py fills it in).
  make_plan(opts, out, env)  the Plan: the sweep grid (the product of the --sweep lists) times the
                        presets times the trials, in trial-major order (trial 1 of every
                        point and preset first, so a slow drift of the host touches all of
                        them alike); the root image.
  axis_kind(name)       what a --sweep axis is: "sysctl" (set in the guest), "disk" (disk.<param>:
                        a disk-model parameter, so each point boots with its own model servers),
                        "openings" (every data disk's dev.<da|ada>.<n>.openings in the guest),
                        "mem" (the guest's RAM) or "preset" (the presets themselves).
  Plan.save(), load_plan(dir)
  Run                   one run: id, preset, trial, point ({axis: value}, every swept axis but
                        preset), index.
                        Its files: samples-<id>.csv (the file dd), samples-<id>-raw.csv (the
                        raw ceiling dd), samples-<id>-smooth.csv (the dd beside the probe),
                        syncio-<id>[-raw|-smooth].csv (the synchronous I/O waits during each dd),
                        probe-<id>.csv, host-<id>.csv, runs/<id>/ (run.json, console.log,
                        serial2.txt).
  ensure_root_image(plan)  build/experiment/root.img: build/root.img's tree plus the probe's
                        file /var/probe/data (32 MiB that no one has read since boot); with
                        --load's reader, root-reader<MB>.img, which also has the reader's file
                        /var/load/data.
The loaded experiment (--load, docs/harness.md "The loaded experiment's runs"):
  LOAD_PARTS            hog (memhog -w: a dirty anonymous working set) and reader (reread: a
                        clean file working set on the root disk); a swap disk after the stripe's.
  swap_disk(opts)       the guest's name of that swap disk (None without --load).
  load_designs()        the points the loaded experiment runs by default: the 2x2 of the buffer
                        daemon halves and the pageout halves of the two presets of the post
                        (speedup+twopass ... runningbuf+onepass), then every other preset.
  design_boot(name)     (preset, kernel args) that boot a design: a preset, or "BUF+SCAN", the
                        preset with that buf_daemon design plus, on the kernel command line, the
                        vm.* settings of a preset with that pageout design.
  check_design(name)    None, or why the name is neither a preset nor such a pair.

The guest command lines themselves are in trial.py; everything here is host-side bookkeeping.
"""
import dataclasses
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import wdrun
from wdbench import MiB
from wdrun.presets import PRESETS as PRESET_TABLE

PRESETS = wdrun.DESIGNS                                     # kernel/kern/main.c's presets[]
SEED_BPS = {"stable42": 46676295, "patched": 57530722}     # Dillon's post (docs/history.md): dd's bytes/sec
BUF_DESIGN, SCAN_DESIGN = "vfs.bufdaemon_design", "vm.pageout_design"   # the two halves of a preset
SEED_SIZE_MB = 1536                                         # bs=32k count=49152
# Wait messages counted in every sample (processes asleep on each): the buffer cache's and the
# VM's (FreeBSD's names), the disks', and wdrain's own.
WMESGS = ("flswai", "wdrain", "wdrdev", "newbuf", "wswbuf0", "vmwait", "biord", "biowr", "getblk", "wdfsrc",
          "syncwt", "psleep", "qsleep")
# Where the dd's write: "stripe", the seed's (one file system on ccd0 over the data disks, one dd);
# "separate", a file system on each data disk (/data1, /data2, ...) and a dd on each, all at once.
LAYOUTS = ("stripe", "separate")
PROBE_FILE = "/var/probe/data"
PROBE_MODES = ("separate", "same", "off")
PROBE_MB = 32
LOAD_PARTS = ("hog", "reader")
LOAD_FILE = "/var/load/data"                # the reader's file (made with the root image)
HOG_MB, READER_MB = 120, 32                 # docs/harness.md "Sizes, and why every design must page"
SWAP_MODEL = "scsi10k"                      # the swap disk's model when the data disks have one each
AXES = ("preset", "mem", "openings")       # --sweep axes that are neither sysctls nor disk.<param>
DISK_AXIS = "disk."                         # --sweep disk.<param>=...: a tools/diskmodel parameter
EXP_BUILD = wdrun.BUILD / "experiment"


@dataclass
class Options:
    name: str = "seed"
    presets: list = field(default_factory=lambda: list(PRESETS))
    trials: int = 3
    size_mb: int = SEED_SIZE_MB         # MiB written by each dd
    bs: str = "32k"                     # the file dd's block size
    raw_bs: str = "1m"                  # the raw ceiling dd's block size
    raw: bool = True                    # run the ceiling dd
    mem: int = 128
    smp: int = 1
    bus: str = "scsi"
    disks: int = 2
    layout: str = "stripe"              # LAYOUTS
    disk_model: str = "scsi10k"         # None with throttle; "scsi10k,ide7200": a preset per disk
    prealloc: str = "falloc"            # data disk images: off (sparse), falloc, full (wdrun.PREALLOC)
    throttle: float = 0.0
    sets: list = field(default_factory=list)       # [[sysctl, value], ...] for every run
    sweeps: list = field(default_factory=list)     # [[sysctl, [v1, v2, ...]], ...]
    setup: str = None                   # a guest command line run before the workload
    interval_ms: int = 100              # sampler
    probe_ms: int = 50                  # latprobe
    samples: bool = True                # run the sampler
    probe: str = "separate"             # latprobe beside a second dd ("separate"), the measured one
                                        # ("same"), or not at all ("off")
    wmesgs: list = field(default_factory=lambda: list(WMESGS))
    timeout: float = 0.0                # seconds per dd; 0: from the size
    keep_suspect: bool = False          # count suspect trials in the medians (trust.assess)
    verbose: bool = False
    load: list = field(default_factory=list)       # LOAD_PARTS running beside the dds (--load)
    hog_mb: int = HOG_MB
    reader_mb: int = READER_MB


@dataclass
class Run:
    index: int
    id: str
    preset: str
    trial: int
    point: dict

    def samples_csv(self, label="file"):
        return "samples-%s%s.csv" % (self.id, "" if label == "file" else "-" + label)

    def probe_csv(self):
        return "probe-%s.csv" % self.id

    def host_csv(self):
        return "host-%s.csv" % self.id

    def syncio_csv(self, label="file"):
        return "syncio-%s%s.csv" % (self.id, "" if label == "file" else "-" + label)

    def load_csv(self, part):
        return "%s-%s.csv" % (part, self.id)

    def dir(self, out):
        return Path(out) / "runs" / self.id


def point_tag(point):
    """{'vfs.hirunningspace': '262144'} -> 'vfs.hirunningspace=262144' (joined by '_')."""
    return "_".join("%s=%s" % (k, v) for k, v in point.items())


def axis_kind(name):
    if name in AXES:
        return name
    return "disk" if name.startswith(DISK_AXIS) else "sysctl"


def grid(sweeps):
    """The product of the sweep lists but the presets' (each point runs every preset), as a list
    of {axis: value} (one empty point if none)."""
    points = [{}]
    for name, values in sweeps:
        if name != "preset":
            points = [dict(p, **{name: v}) for p in points for v in values]
    return points


def data_disks(opts):
    """The guest's names of the data disks (da1 da2 ...; ada1 ... on AHCI), as the runs boot them."""
    return wdrun.VMConfig(disks=opts.disks, bus=opts.bus).data_names()


def swap_disk(opts):
    """The loaded experiment's swap disk: the one after the data disks (da3 after da1 da2)."""
    if not opts.load:
        return None
    return wdrun.VMConfig(disks=opts.disks + 1, bus=opts.bus).data_names()[-1]


def _halves():
    """{preset: (its buf_daemon design, its pageout design, its vm.* settings)}."""
    out = {}
    for p in PRESET_TABLE:
        s = dict(p.settings)
        out[p.name] = (s.get(BUF_DESIGN), s.get(SCAN_DESIGN), [(k, v) for k, v in p.settings if k.startswith("vm.")])
    return out


def design_name(preset):
    """A preset as BUF+SCAN."""
    buf, scan, _ = _halves()[preset]
    return "%s+%s" % (buf, scan)


def load_designs():
    """The 2x2 of the halves of the post's two presets, then every other preset as BUF+SCAN."""
    h = _halves()
    bufs = [h[p][0] for p in SEED_BPS]
    scans = [h[p][1] for p in SEED_BPS]
    out = ["%s+%s" % (b, s) for b in bufs for s in scans]
    return out + [design_name(p) for p in PRESETS if design_name(p) not in out]


def design_boot(name):
    """(preset, kernel args) for a preset or a BUF+SCAN pair: the first preset with that buf_daemon
    design, and, if its pageout design is another, the vm.* settings of the first preset that
    has SCAN (its vm.max_launder goes with the scan: docs/experiments.md)."""
    if name in PRESETS:
        return name, ""
    buf, _, scan = name.partition("+")
    h = _halves()
    preset = next(p for p in PRESETS if h[p][0] == buf)
    if h[preset][1] == scan:
        return preset, ""
    vm = next(h[p][2] for p in PRESETS if h[p][1] == scan)
    return preset, " ".join("%s=%s" % kv for kv in vm)


def check_design(name):
    """None if name is a preset or BUF+SCAN of designs the presets have; else why not."""
    if name in PRESETS:
        return None
    h = _halves()
    bufs, scans = sorted({v[0] for v in h.values()}), sorted({v[1] for v in h.values()})
    buf, plus, scan = name.partition("+")
    if plus and buf in bufs and scan in scans:
        return None
    return ("'%s' is not a preset (they are: %s) nor a pair BUF+SCAN of their halves (BUF one of %s, SCAN one of %s)"
            % (name, ", ".join(PRESETS), ", ".join(bufs), ", ".join(scans)))


def disk_model_of(opts, point):
    """The --disk-model spec a point boots with: the experiment's, with the point's disk.<param>
    values added (None with throttled disks)."""
    params = ["%s=%s" % (k[len(DISK_AXIS):], v) for k, v in point.items() if axis_kind(k) == "disk"]
    return ",".join([opts.disk_model] + params) if opts.disk_model else None


@dataclass
class Plan:
    out: str
    options: Options
    runs: list
    root_image: str
    created: str
    env: dict                   # where and with what it was planned (report.environment())

    def points(self):
        seen = []
        for r in self.runs:
            if r.point not in seen:
                seen.append(r.point)
        return seen

    def save(self):
        data = {"version": 1, "created": self.created, "root_image": self.root_image, "env": self.env, "options": dataclasses.asdict(self.options),
                "runs": [dataclasses.asdict(r) for r in self.runs]}
        path = Path(self.out) / "plan.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, path)


def make_plan(opts, out, env):
    points = grid(opts.sweeps)
    runs = []
    for trial in range(1, opts.trials + 1):
        for point in points:
            for preset in opts.presets:
                tag = point_tag(point)
                rid = "%s%s-%d" % (tag + "-" if tag else "", preset, trial)
                runs.append(Run(len(runs), rid, preset, trial, point))
    image = "root-reader%d.img" % opts.reader_mb if "reader" in opts.load else "root.img"
    return Plan(str(Path(out).resolve()), opts, runs, str(EXP_BUILD / image),
                time.strftime("%Y-%m-%dT%H:%M:%S%z"), env)


def load_plan(out):
    path = Path(out) / "plan.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise wdrun.ConfigError("%s: not an experiment folder (%s)" % (out, e))
    opts = Options(**data["options"])
    runs = [Run(**r) for r in data["runs"]]
    return Plan(str(Path(out).resolve()), opts, runs, data["root_image"], data["created"],
                data.get("env", {}))


# ---- the root image with the probe's file ------------------------------------------------

def ensure_root_image(plan):
    """(Re)build plan.root_image from build/rootfs when build/root.img is newer. The probe
    file (and the reader's, with --load reader) is pseudo-random (no block of it is a hole or
    repeats another). Atomic: a parallel experiment sees the old image or the new one."""
    img = Path(plan.root_image)
    base = wdrun.BUILD / "root.img"
    if img.exists() and img.stat().st_mtime >= base.stat().st_mtime:
        return img
    mkfs, fsck = wdrun.BUILD / "host" / "mkfs", wdrun.BUILD / "host" / "fsck"
    stage = EXP_BUILD / ("stage-%d" % os.getpid())
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(wdrun.BUILD / "rootfs", stage)
    files = [(PROBE_FILE, PROBE_MB)]
    if "reader" in plan.options.load:
        files.append((LOAD_FILE, plan.options.reader_mb))
    for path, mb in files:
        f_path = stage / path.lstrip("/")
        f_path.parent.mkdir(parents=True, exist_ok=True)
        with open(f_path, "wb") as f:
            for _ in range(mb):
                f.write(os.urandom(MiB))
    tmp = img.with_name(img.name + ".tmp%d" % os.getpid())
    try:
        size = base.stat().st_size // MiB + sum(mb for _, mb in files) + 16    # MiB: room for the files
        for argv in ([str(mkfs), "-s", "%dm" % size, "-d", str(stage), str(tmp)], [str(fsck), str(tmp)]):
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                raise wdrun.BuildError("%s failed:\n%s" % (" ".join(argv), r.stdout))
        os.replace(tmp, img)
    finally:
        tmp.unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
    return img
