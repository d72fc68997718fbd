"""test_slurm: tools/experiment --slurm on a real one-node Slurm cluster started by this test.

`make test-slurm` runs it (and CI, after `make test`); it is not in `make test` because it
installs Debian's slurm-wlm and munge (as root, if missing) and starts daemons, which a
student's `make test` should not do to their machine (docs/harness.md, "Sweeps, parallel runs,
Slurm").

The cluster lives in a private folder: a munge key and munged on its own socket, slurm.conf
with this host as controller and only node, slurmctld and slurmd on free ports, all as root,
all stopped again (by their pids) at the end. Then:
- `tools/experiment --quick --size 8 --slurm` writes slurm.sh and runs nothing;
- `sbatch --wait slurm.sh` runs the job array: one task per run, each a Slurm task (its log
  runs/slurm-<i>.out names the run), each leaving its run.json;
- `tools/experiment --gather` makes the table of the array's runs;
- a local run of the same plan makes its table; the two tables are the same table (the same
  lines once the numbers and the folder are masked out), with positive numbers in both.
"""
import csv
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import wdrun  # noqa: E402

PACKAGES = ["slurm-wlm", "munge"]
PROGRAMS = ["munged", "slurmctld", "slurmd", "sbatch", "sinfo"]
EXP = str(wdrun.ROOT / "tools" / "experiment")
T = TestSet("slurm")


def have_programs():
    return all(shutil.which(p) for p in PROGRAMS)


def install():
    """The packages, as root; False (with a SKIP) when that cannot be done here."""
    if have_programs():
        return True
    if os.geteuid() != 0:
        T.skip("slurm cluster", next(p for p in PROGRAMS if not shutil.which(p)),
               "slurm-wlm and munge are not installed and this is not root: sudo apt-get install %s"
               % " ".join(PACKAGES))
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] + PACKAGES, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        r = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] + PACKAGES, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return T.check("apt-get install slurm-wlm munge", r.returncode == 0 and have_programs(), expected="installed",
                   got=r.stdout[-500:])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="wdslurm-"))
        os.chmod(self.dir, 0o755)
        self.conf = self.dir / "slurm.conf"
        self.pids = []
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    def start(self):
        d = self.dir
        m = d / "munge"
        for sub in ("munge", "state", "spool", "log"):
            (d / sub).mkdir()
        os.chmod(m, 0o711)                            # munged wants its socket's folder searchable
        (m / "munge.key").write_bytes(os.urandom(1024))
        os.chmod(m / "munge.key", 0o600)
        self.run(["munged", "--force", "--socket=%s" % (m / "sock"), "--key-file=%s" % (m / "munge.key"),
                  "--pid-file=%s" % (m / "pid"), "--log-file=%s" % (m / "log"), "--seed-file=%s" % (m / "seed")])
        self.pids.append(self.pid(m / "pid"))
        host = socket.gethostname().split(".")[0]
        node = subprocess.run(["slurmd", "-C"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
        self.conf.write_text("\n".join([
            "ClusterName=wdtest", "SlurmctldHost=%s" % host, "SlurmUser=root",
            "SlurmctldPort=%d" % free_port(), "SlurmdPort=%d" % free_port(),
            "AuthType=auth/munge", "CredType=cred/munge", "AuthInfo=socket=%s" % (m / "sock"),
            "StateSaveLocation=%s" % (d / "state"), "SlurmdSpoolDir=%s" % (d / "spool"),
            "SlurmctldPidFile=%s" % (d / "slurmctld.pid"), "SlurmdPidFile=%s" % (d / "slurmd.pid"),
            "SlurmctldLogFile=%s" % (d / "log" / "slurmctld.log"), "SlurmdLogFile=%s" % (d / "log" / "slurmd.log"),
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SwitchType=switch/none",
            "MpiDefault=none", "SchedulerType=sched/builtin", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core", "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none", "ReturnToService=2",
            "%s State=UNKNOWN" % node, "PartitionName=wdtest Nodes=%s Default=YES MaxTime=INFINITE State=UP" % host, ""]))
        self.run(["slurmctld", "-f", str(self.conf)])
        self.pids.append(self.pid(d / "slurmctld.pid"))
        self.run(["slurmd", "-f", str(self.conf)])
        self.pids.append(self.pid(d / "slurmd.pid"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.stdout.strip() == "idle":
                return True
            time.sleep(0.5)
        return False

    def run(self, argv):
        r = subprocess.run(argv, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed: %s" % (argv[0], r.stdout))

    def pid(self, path, wait=10.0):
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                return int(Path(path).read_text().split()[0])
            except (OSError, ValueError, IndexError):
                time.sleep(0.1)
        raise RuntimeError("%s did not appear" % path)

    def logs(self):
        out = []
        for f in sorted((self.dir / "log").glob("*.log")):
            out += ["%s: %s" % (f.name, ln) for ln in f.read_text(errors="replace").splitlines()[-8:]]
        return out

    def stop(self):
        for pid in reversed(self.pids):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for pid in self.pids:
            for _ in range(50):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        shutil.rmtree(self.dir, ignore_errors=True)


def experiment(env, *args, timeout=600):
    r = subprocess.run([sys.executable, EXP] + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, cwd=wdrun.ROOT)
    return r.returncode, r.stdout, r.stderr


def join_notes(lines):
    """The report wraps each parenthesised note at 100 columns, so a number one digit wider moves
    the line breaks (CI once failed on that alone): one line per note."""
    out, open_note = [], False
    for ln in lines:
        if open_note:
            out[-1] += " " + ln.strip()
        else:
            out.append(ln)
        open_note = out[-1].lstrip().startswith("(") and not out[-1].rstrip().endswith(")")
    return out


def shape(table):
    """The table with its numbers, its folder and its column widths masked: what must match. A
    value slot may also hold "-" or "n/a" (no value: e.g. a probe column with no sample in an
    8 MiB run, whose second dd can end before the probe's first fsync does), so those count as
    numbers too; CI once saw the two tables differ by one character in a run that did not keep
    them. Whether a trial was suspect (its line's verdict, its group's "N suspect, ..." note)
    depends on the host at that moment, as the numbers do, so it is masked too. Notes are
    compared whole, not line by line."""
    lines = join_notes([ln for ln in table.splitlines() if not ln.startswith("wdrain experiment")])
    lines = [re.sub(r"\s(ok|(late replies|CPU-bound): .*)$", " <verdict>",
                    re.sub(r"\s+\d+ suspect, (left out|counted \(all are\)|counted)$", "", ln)) for ln in lines]
    return [re.sub(r"\s+", " ", re.sub(r"(?<!\S)(?:-|n/a)(?!\S)|[\d,./]+", "#", ln)).strip() for ln in lines]


def main():
    if not install():
        T.done()
        return
    c = Cluster()
    tmp = Path(tempfile.mkdtemp(prefix="test_slurm-"))
    try:
        try:
            up = c.start()
        except RuntimeError as e:
            up = False
            T.check("the one-node cluster starts", False, expected="daemons running", got=str(e))
        if not T.check("the one-node cluster is up (sinfo: idle)", up, expected="idle", got=c.logs()):
            return
        env = dict(c.env, WDRAIN_NO_BUILD="1")
        a, b = tmp / "slurm", tmp / "local"
        st, out, err = experiment(env, "--quick", "--size", "8", "--slurm", "--out", str(a))
        T.check("--slurm writes slurm.sh and runs nothing", st == 0 and (a / "slurm.sh").exists()
                and not list(a.glob("runs/*/run.json")), expected="slurm.sh, no runs", got="%d %s" % (st, err[-300:]))
        r = subprocess.run(["sbatch", "--wait", str(a / "slurm.sh")], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900)
        T.check("sbatch --wait runs the job array", r.returncode == 0, expected=0, got=(r.returncode, r.stdout, c.logs()))
        presets = list(wdrun.DESIGNS)          # the experiment's default: every preset, one trial each
        want_logs = ["slurm-%d.out" % i for i in range(len(presets))]
        logs = sorted(p.name for p in (a / "runs").glob("slurm-*.out")) if (a / "runs").exists() else []
        T.check("one Slurm task per run", logs == want_logs, expected=" ".join(want_logs), got=logs)
        done = [p.parent.name for p in (a / "runs").glob("*/run.json")] if (a / "runs").exists() else []
        T.check("each task left its run's result", sorted(done) == sorted("%s-1" % p for p in presets),
                expected="%d run.json, one per preset" % len(presets), got=done)
        st, out, err = experiment(env, "--gather", str(a))
        T.check("--gather makes the table of the array's runs", st == 0 and (a / "summary.txt").exists(),
                expected=0, got="%d %s" % (st, err[-300:]))
        st, out2, err2 = experiment(env, "--quick", "--size", "8", "--out", str(b))
        T.check("the same experiment run locally", st == 0, expected=0, got="%d %s" % (st, err2[-300:]))
        ta = (a / "summary.txt").read_text() if (a / "summary.txt").exists() else ""
        tb = (b / "summary.txt").read_text() if (b / "summary.txt").exists() else ""
        sa, sb = shape(ta or ""), shape(tb)
        differ = [(x, y) for x, y in zip(sa, sb) if x != y] or [(len(sa), len(sb))]
        T.check("--gather gives the same table as the local run (numbers aside)", ta and sa == sb,
                expected="local: %s" % (differ[0][1],), got="gathered: %s (first of %d differing lines)"
                % (differ[0][0], len(differ) if sa != sb else 0))
        for name, d in (("slurm", a), ("local", b)):
            rows = list(csv.DictReader(open(d / "results.csv"))) if (d / "results.csv").exists() else []
            vals = [(r["preset"], r["status"], r["file_Bps"]) for r in rows]
            T.check("%s results: every preset ok with positive B/s" % name,
                    sorted(r["preset"] for r in rows) == sorted(presets) and
                    all(r["status"] == "ok" and float(r["file_Bps"]) > 0 for r in rows),
                    expected="%d ok rows, B/s > 0" % len(presets), got=vals)
    finally:
        c.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        T.done()


main()
