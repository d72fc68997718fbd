"""batch: running a plan's runs.

  run_sequential(plan, log)   one VM at a time, in plan order, in this process, with a
                              progress line on stderr (rewritten in place on a terminal,
                              a new line every 30 s otherwise); returns the results.
  run_parallel(plan, n, log)  n runs at once, each `tools/experiment --run-task DIR I` in its
                              own process (runs/<id>/task.log); for a host with more cores.
  run_task(plan, i)           one run (what --run-task and each Slurm array task do).
  write_slurm(plan)           DIR/slurm.sh: a job array with one task per run; prints how to
                              submit it and gather the results. No scheduler of our own: Slurm
                              decides where and when each run goes.
Timing is only meaningful with one VM per host CPU set, so sequential is the default, and the
Slurm script asks for a whole node per task (--exclusive).
"""
import json
import os
import shlex
import subprocess
import sys
import threading
import time

import wdrun

from .trial import Trial

TICK = 1.0                  # seconds between progress updates on a terminal
LOG_EVERY = 30.0            # ... and between progress lines when stderr is a file
EXPERIMENT = wdrun.ROOT / "tools" / "experiment"


def fmt_time(s):
    s = int(s)
    return "%d s" % s if s < 120 else "%d min" % round(s / 60)


def describe(r):
    if r["status"] != "ok":
        return "FAILED: %s" % r["error"]
    words = ["file dd %s B/s" % format(r["file"]["Bps"], ",")]
    if "raw" in r:
        words.append("raw %s B/s" % format(r["raw"]["Bps"], ","))
    if "smooth" in r:
        words.append("beside the probe %s B/s" % format(r["smooth"]["Bps"], ","))
    return "ok, " + ", ".join(words) + " (%s)" % fmt_time(r["elapsed_s"])


class Progress:
    """The progress line of run_sequential, drawn by a daemon thread."""

    def __init__(self, plan, stream):
        self.plan, self.stream = plan, stream
        self.tty = stream.isatty()
        self.trial = None
        self.done_times = []
        self.index = 0
        self._stop = threading.Event()
        self._shown = False
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()
        self.clear()

    def clear(self):
        if self.tty and self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False

    def line(self):
        t = self.trial
        if t is None:
            return None
        n = len(self.plan.runs)
        words = ["run %d/%d %s" % (self.index + 1, n, t.run.id)]
        left_now = None
        p = t.progress()
        if p is not None:
            phase, written, mbps, total = p
            words.append("%s dd %d/%d MB, %.1f MB/s" % (phase, written / 1e6, total / 1e6, mbps))
            if mbps > 0:
                left_now = (total - written) / 1e6 / mbps
                words.append("~%s left in this dd" % fmt_time(left_now))
        elif t.phase:
            words.append(t.phase)
        if self.done_times:
            avg = sum(self.done_times) / len(self.done_times)
            words.append("~%s left in all" % fmt_time(avg * (n - self.index) - (time.monotonic() - self.t_run)))
        return ": ".join(words[:2]) + (", " + ", ".join(words[2:]) if len(words) > 2 else "")

    def _loop(self):
        last_log = 0.0
        while not self._stop.wait(TICK):
            text = self.line()
            if text is None:
                continue
            if self.tty:
                self.stream.write("\r\x1b[K" + text[:max(20, os.get_terminal_size(self.stream.fileno()).columns - 1)])
                self._shown = True
            elif time.monotonic() - last_log >= LOG_EVERY:
                self.stream.write("experiment: " + text + "\n")
                last_log = time.monotonic()
            self.stream.flush()


def run_sequential(plan, log):
    prog = Progress(plan, sys.stderr)
    prog.start()
    results = []
    try:
        for i, run in enumerate(plan.runs):
            prog.index, prog.t_run = i, time.monotonic()
            prog.trial = Trial(plan, run)
            r = prog.trial.execute()
            prog.trial = None
            prog.done_times.append(r["elapsed_s"])
            prog.clear()
            log("run %d/%d %s: %s" % (i + 1, len(plan.runs), run.id, describe(r)))
            results.append(r)
    finally:
        prog.stop()
    return results


def task_argv(plan, i):
    return [sys.executable, str(EXPERIMENT), "--run-task", plan.out, str(i)]


def run_parallel(plan, n, log):
    env = dict(os.environ, WDRAIN_NO_BUILD="1")
    todo, running, results = list(range(len(plan.runs))), {}, []
    try:
        while todo or running:
            while todo and len(running) < n:
                i = todo.pop(0)
                d = plan.runs[i].dir(plan.out)
                d.mkdir(parents=True, exist_ok=True)
                logf = open(d / "task.log", "w")
                running[i] = (subprocess.Popen(task_argv(plan, i), stdin=subprocess.DEVNULL, stdout=logf,
                                               stderr=subprocess.STDOUT, env=env, cwd=wdrun.ROOT), logf)
            time.sleep(0.5)
            for i, (proc, logf) in list(running.items()):
                if proc.poll() is None:
                    continue
                logf.close()
                del running[i]
                r = read_result(plan, plan.runs[i])
                log("run %s: %s" % (plan.runs[i].id, describe(r)))
                results.append(r)
    finally:
        for proc, logf in running.values():
            proc.terminate()
            proc.wait()
            logf.close()
    return results


def read_result(plan, run):
    """runs/<id>/run.json, or a failed result saying why there is none."""
    path = run.dir(plan.out) / "run.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        log = run.dir(plan.out) / "task.log"
        return {"id": run.id, "preset": run.preset, "trial": run.trial, "point": run.point,
                "status": "failed", "elapsed_s": 0,
                "error": "no result (%s missing: the run did not finish; see %s)" % (path.name, log)}


def run_task(plan, i):
    if not 0 <= i < len(plan.runs):
        raise wdrun.ConfigError("--run-task: the plan has runs 0 to %d" % (len(plan.runs) - 1))
    r = Trial(plan, plan.runs[i]).execute()
    print("run %s: %s" % (plan.runs[i].id, describe(r)))
    return r


def write_slurm(plan):
    path = os.path.join(plan.out, "slurm.sh")
    os.makedirs(os.path.join(plan.out, "runs"), exist_ok=True)       # Slurm opens the logs there
    logs = os.path.join(plan.out, "runs", "slurm-%a.out")
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, str(EXPERIMENT), "--run-task", plan.out])
    text = "\n".join([
        "#!/bin/bash",
        "# Written by tools/experiment --slurm: one array task per run of %s." % plan.out,
        "# Submit with: sbatch %s    then, when every task is done:" % shlex.quote(path),
        "#   tools/experiment --gather %s" % shlex.quote(plan.out),
        "# The folder and the built tree (%s) must be visible on every node." % wdrun.ROOT,
        "#SBATCH --job-name=wdrain-%s" % plan.options.name,
        "#SBATCH --array=0-%d" % (len(plan.runs) - 1),
        "#SBATCH --output=%s" % logs,
        "#SBATCH --exclusive",
        "# --exclusive: one VM per node, as timing under TCG needs; remove it on nodes with spare cores.",
        "cd %s || exit 1" % shlex.quote(str(wdrun.ROOT)),
        "export WDRAIN_NO_BUILD=1",
        'exec %s "$SLURM_ARRAY_TASK_ID"' % cmd,
        ""])
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path
