"""exptest: what the experiment's tests share (tests/guest/test_experiment.py, test_loaded.py).

  experiment(*args, timeout)       tools/experiment ARGS: (status, stdout, stderr)
  make_experiment(*args, timeout)  make ARGS as a user runs it (no make state of a make test around
                                   us; WDRAIN_NO_BUILD stays as tests/run set it)
  read_csv(path)                   the rows as dicts
  is_png(path)                     a PNG file with something drawn in it (more than 2000 bytes)
"""
import csv
import os
import subprocess
import sys

import wdrun

EXP = str(wdrun.ROOT / "tools" / "experiment")


def experiment(*args, timeout=400):
    r = subprocess.run([sys.executable, EXP] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, cwd=wdrun.ROOT)
    return r.returncode, r.stdout, r.stderr


def make_experiment(*args, timeout=400):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    r = subprocess.run(["make", "--no-print-directory"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, cwd=wdrun.ROOT, env=env)
    return r.returncode, r.stdout, r.stderr


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000
