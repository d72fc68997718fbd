#!/usr/bin/env python3
"""test_runner: tests/run's counting (docs/testing.md "The PASS/FAIL protocol"), on the host.

Small fake test files in a temporary folder, run with `tests/run --no-build --file ...`, once
one at a time and once with -j 2: a SKIP for a command or path missing here is not counted; a
SKIP for one that exists, or for any reason other than `needs X`, counts as a FAIL (so a file of
such SKIPs alone fails); a file exiting non-zero without a FAIL line counts one FAIL, as do a
time-out and a file that prints no result; a closing `N passed, N failed` line counts when
there are no PASS/FAIL lines; the last line sums every file and the exit status is 1. A file of
a PASS and missing-here SKIPs alone passes, with status 0 and its skips reported.
"""
# tests/run: timeout=120 about=10
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402

RUN = Path(__file__).resolve().parent.parent / "run"
MISSING_CMD = "wdrain-no-such-command"

T = TestSet("runner")


def fake_files(tmp):
    """name -> (the file's Python body, (passed, failed, skipped) tests/run must count)."""
    absent = str(tmp / "absent")
    return {
        "skip_missing.py": ('print("PASS a"); print("SKIP b: needs %s"); print("SKIP c: needs %s (why)")'
                            % (MISSING_CMD, absent), (1, 0, 2)),
        "skip_present.py": ('print("PASS a"); print("SKIP b: needs sh"); print("SKIP c: needs /")', (1, 2, 0)),
        "skip_bad_reason.py": ('print("SKIP a: this kernel has no /dev/ccd"); print("SKIP b: no time")', (0, 2, 0)),
        "nonzero.py": ('import sys; print("PASS a"); sys.exit(3)', (1, 1, 0)),
        "silent.py": ('pass', (0, 1, 0)),
        "closing.py": ('import sys; print("x: 3 passed, 1 failed"); sys.exit(1)', (3, 1, 0)),
        "fails.py": ('import sys; print("PASS a"); print("FAIL b: expected 1, got 2"); sys.exit(1)', (1, 1, 0)),
        "timeout.py": ('# tests/run: timeout=2\nimport time; print("PASS a", flush=True); time.sleep(60)',
                       (1, 1, 0)),
    }


def run(files, jobs):
    argv = [sys.executable, str(RUN), "--no-build", "-j", str(jobs)]
    for f in files:
        argv += ["--file", str(f)]
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=90)
    return r.returncode, r.stdout


def per_file(output, path):
    """(passed, failed, skipped) from tests/run's `-- PATH: ...` line for that file, or None."""
    m = re.search(r"^-- %s: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?" % re.escape(str(path)),
                  output, re.M)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


with tempfile.TemporaryDirectory(prefix="wdrain-test-runner-") as d:
    tmp = Path(d)
    fakes = fake_files(tmp)
    for name, (body, _) in fakes.items():
        (tmp / name).write_text(body + "\n")
    paths = [tmp / name for name in fakes]
    for jobs in (1, 2):
        status, output = run(paths, jobs)
        tag = "-j %d" % jobs
        for name, (_, want) in fakes.items():
            got = per_file(output, tmp / name)
            T.check("%s: %s counts %d passed, %d failed, %d skipped" % ((tag, name) + want), got == want,
                    expected=want, got=got if got else output[-600:])
        total = tuple(map(sum, zip(*(want for _, want in fakes.values()))))
        last = output.rstrip("\n").splitlines()[-1:] if output.strip() else []
        T.check("%s: the closing line sums every file, the skips reported, exit status 1" % tag,
                last == ["%d passed, %d failed" % total[:2]] and status == 1
                and "%d skipped (what they need is missing on this host)" % total[2] in output,
                expected="'%d passed, %d failed', '%d skipped ...', status 1" % total,
                got="%r, status %d" % (last, status))
        T.check("%s: the timed-out file is named as such" % tag,
                "%s: timed out after 2 s" % (tmp / "timeout.py") in output,
                expected="timed out after 2 s", got=output[-600:])
    status, output = run([tmp / "skip_missing.py"], 1)
    T.check("a file of a PASS and SKIPs for what is missing here passes: status 0, '1 passed, 0 failed'",
            status == 0 and output.rstrip("\n").splitlines()[-1:] == ["1 passed, 0 failed"],
            expected="status 0, '1 passed, 0 failed'", got="status %d, %r" % (status, output[-300:]))
    status, output = run([tmp / "nothing-here.py"], 1)
    T.check("--file of a missing file is an error naming it", status == 2 and "nothing-here.py: no such file" in output,
            expected="status 2, 'no such file'", got="status %d, %r" % (status, output[-300:]))
T.done()
