#!/usr/bin/env python3
"""test_programs: every userland program on normal and bad input, in one boot.

Each check runs one shell command line in the guest (tests/lib/wdtest.py) and compares
the output (stdout and stderr both reach the console) and $? with what FreeBSD's program
would give. Programs print a usage line and exit non-zero on a bad option, and report
errors as `prog: operand: strerror` on stderr.
tests/run: timeout=600 about=95
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402

T = TestSet("programs")


def run(g, name, cmd, status=0, out=None, regex=None, contains=None, absent=None):
    """Run cmd; check $? and the output (exactly, by regex, or by what it contains)."""
    got, st = g.sh(cmd)
    ok = st == status
    want = ["status %d" % status]
    if out is not None:
        ok = ok and got == out
        want.append(repr(out))
    if regex is not None:
        ok = ok and re.search(regex, got, re.M) is not None
        want.append("/%s/" % regex)
    for c in contains or []:
        ok = ok and c in got
        want.append("containing %r" % c)
    for a in absent or []:
        ok = ok and a not in got
        want.append("without %r" % a)
    T.check(name, ok, expected=", ".join(want), got="status %d, %r" % (st, got))
    return got


def usage(g, prog, cmd, status=1):
    """A bad option gets a usage line and a non-zero status."""
    run(g, "%s: bad option prints usage" % prog, cmd, status=status, contains=["usage:"])


DD_SUMMARY = (r"^(\d+)\+(\d+) records in\n(\d+)\+(\d+) records out\n"
              r"(\d+) bytes transferred in \d+\.\d{6} secs \(\d+ bytes/sec\)\n")


def dd(g, name, cmd, rin, rout, nbytes):
    """dd's FreeBSD 4 summary, with the record and byte counts expected."""
    got, st = g.sh(cmd)
    m = re.fullmatch(DD_SUMMARY, got)
    counts = tuple(int(x) for x in m.groups()) if m else None
    want = rin + rout + (nbytes,)
    T.check(name, st == 0 and counts == want,
            expected="status 0, %d+%d records in, %d+%d records out, %d bytes" % want,
            got="status %d, %r" % (st, got))


def shell(g):
    run(g, "sh: echo", "echo hello world", out="hello world\n")
    run(g, "sh: pipeline", "echo abc | wc -c", out="       4\n")
    run(g, "sh: three-stage pipeline", "echo one two three | grep two | wc -w", out="       3\n")
    run(g, "sh: > and <", "echo data > /tmp/p1; cat < /tmp/p1", out="data\n")
    run(g, "sh: >> appends", "echo a > /tmp/p2; echo b >> /tmp/p2; cat /tmp/p2", out="a\nb\n")
    run(g, "sh: 2> redirects stderr", "cat /nosuch 2> /tmp/p3; cat /tmp/p3",
        out="cat: /nosuch: No such file or directory\n")
    run(g, "sh: 2>&1 into a pipe", "cat /nosuch 2>&1 | wc -l", out="       1\n")
    run(g, "sh: && and ||", "true && echo yes; false && echo no; false || echo alt", out="yes\nalt\n")
    run(g, "sh: $? after false", "false; echo $?", out="1\n")
    run(g, "sh: variables", "X=1; Y=two; echo $X ${Y} \"$X $Y\" '$X'", out="1 two 1 two $X\n")
    run(g, "sh: export to a child", "export WDV=seen; sh -c 'echo $WDV'", out="seen\n")
    run(g, "sh: prefix assignment", "WDP=pre sh -c 'echo $WDP'; echo [$WDP]", out="pre\n[]\n")
    run(g, "sh: quoting and backslash", "echo 'a  b' \"c\\\"d\" e\\ f", out="a  b c\"d e f\n")
    run(g, "sh: for loop", "for x in a b c; do echo $x; done", out="a\nb\nc\n")
    run(g, "sh: if/else", "if false; then echo t; else echo f; fi", out="f\n")
    run(g, "sh: while loop", "echo x > /tmp/wf; while cat /tmp/wf 2>/dev/null; do rm /tmp/wf; done; echo end",
        out="x\nend\n")
    run(g, "sh: test and [ builtins",
        "[ 1 -lt 2 ] && echo lt; test -d /tmp && echo dir; [ -f /nosuch ] || echo nofile; "
        "test abc = abc -a ! -z x && echo and; [ '(' 1 -eq 2 -o -n x ')' ] && echo paren; [ ] || echo empty",
        out="lt\ndir\nnofile\nand\nparen\nempty\n")
    run(g, "sh: while on test", "x=a; while [ \"$x\" != aaa ]; do x=${x}a; echo $x; done", out="aa\naaa\n")
    run(g, "test: errors give status 2", "test 1 -eq x; echo $?; [ 1 = 1", status=2,
        out="test: x: bad number\n2\n[: missing ]\n")
    run(g, "test: /bin/test program", "/bin/test -n abc && /bin/test ! -d /etc/rc && echo ok; /bin/test a = b",
        status=1, out="ok\n")
    run(g, "sh: redirection of a compound command",
        "if [ -d /etc ]; then echo yes; fi > /tmp/t1; while false; do :; done 2> /tmp/t2; cat /tmp/t1; echo $?",
        out="yes\n0\n")
    run(g, "sh: subshell keeps cwd", "(cd /etc; ls motd); pwd", out="motd\n/\n")
    run(g, "sh: cd and pwd", "cd /tmp; pwd; cd /; pwd", out="/tmp\n/\n")
    run(g, "sh: cd to a missing directory", "cd /nosuch", status=1, contains=["/nosuch", "No such file"])
    run(g, "sh: sh -c", "sh -c 'echo in; exit 3'", status=3, out="in\n")
    run(g, "sh: background and wait", "sleep 1 & echo started; wait; echo waited",
        out="started\nwaited\n")
    run(g, "sh: $! and wait status", "sh -c 'exit 5' & wait $!; echo $?", out="5\n")
    run(g, "sh: command not found", "nosuchcmd", status=127, contains=["nosuchcmd: not found"])
    # run in a child shell: a syntax error discards the rest of the line, the status marker too;
    # the whole line is parsed before any of it runs, so "a" is never printed
    run(g, "sh: syntax error", "sh -c 'echo a; done'", status=2, regex=r'\Ash: syntax error: "done" unexpected\n\Z')
    # a script runs line by line: the lines before the bad one have run
    run(g, "sh: syntax error on a script's second line", "echo 'echo first' > /tmp/s0; echo fi >> /tmp/s0; sh /tmp/s0",
        status=2, regex=r'\Afirst\nsh: syntax error: "fi" unexpected\n\Z')
    run(g, "sh: script file with arguments",
        "echo 'echo script $0 $# $1; exit 4' > /tmp/s1; sh /tmp/s1 arg", status=4,
        out="script /tmp/s1 1 arg\n")
    run(g, "sh: #! script",
        "echo '#!/bin/sh' > /tmp/s2; echo 'echo shebang $1' >> /tmp/s2; chmod +x /tmp/s2; /tmp/s2 x", out="shebang x\n")
    run(g, "sh: killed child reports 128+signal", "sh -c 'kill -9 $$'; echo $?", contains=["137\n"])
    # FreeBSD's sh names the signal with its sys_siglist text (bin/sh/jobs.c, dowait)
    run(g, "sh: a child killed by SIGBUS is reported as 'Bus error', $? 138", "sh -c 'kill -BUS $$'; echo $?",
        contains=["Bus error\n", "138\n"])


def key_check(g, name, keys, want=(), absent=(), prompt=True, seconds=1.0):
    """Type raw keys at the prompt; check what the guest printed."""
    got = g.keys(keys, prompt=prompt, seconds=seconds)
    ok = all(w in got for w in want) and not any(a in got for a in absent)
    T.check(name, ok, expected="containing %r, without %r" % (list(want), list(absent)), got=got)
    return got


def prompt(g):
    """The console's shell: its state from line to line, its line editor (user/sh/edit.c),
    ^C to the foreground job (process groups, kernel/dev/console.c), and how the harness sees
    a rejected line or an exit (tools/wdrun/vm.py)."""
    run(g, "sh prompt: a function stays defined for the next line", "f() { echo fn $# $1; }; x=kept", out="")
    run(g, "sh prompt: ... and is called there", "f a b; echo $x", out="fn 2 a\nkept\n")
    run(g, "sh prompt: a syntax error gives the line up with status 2, at once",
        "echo never; done", status=2, out='sh: syntax error: "done" unexpected\n')
    run(g, "sh prompt: so does an error in an expansion", "echo $((1/0)); echo never", status=2,
        out='sh: arithmetic expression: division by zero: "1/0"\n')
    run(g, "sh prompt: an unfinished line is ended (^D) and reported", "echo 'open", status=2,
        contains=["sh: syntax error: unterminated quoted string\n"])
    run(g, "sh prompt: the shell goes on after those", "echo alive; f z", out="alive\nfn 1 z\n")
    run(g, "sh prompt: exit N ends the shell; init says so and starts another", "echo bye; exit 4", status=4,
        out="bye\n")
    run(g, "sh prompt: the new shell answers (without the old one's function)", "echo new; f 2>&1",
        status=127, out="new\nsh: f: not found\n")
    g.sh("echo hist1")
    key_check(g, "sh prompt: up arrow recalls the last line", "\x1b[A\n", want=["hist1\n@@RC=0@@"])
    g.keys("echo hist2\n")
    key_check(g, "sh prompt: up twice, down once: the last line again", "\x1b[A\x1b[A\x1b[B\n",
              want=["\nhist2\n"], absent=["@@RC=0@@"])
    key_check(g, "sh prompt: backspace erases", "echo abX\x7fc\n", want=["\nabc\n"])
    key_check(g, "sh prompt: ^U erases the line", "echo junk\x15echo clean\n", want=["\nclean\n"],
              absent=["junk\n"])
    key_check(g, "sh prompt: ^W erases a word", "echo one two\x17three\n", want=["\none three\n"])
    key_check(g, "sh prompt: ^C drops the line", "echo dropped\x03", want=["^C\n"], absent=["dropped\n"])
    key_check(g, "sh prompt: a quote open across lines (the > prompt)", "echo 'a\nb'\n", want=["\na\nb\n"])
    key_check(g, "sh prompt: a long job runs", "sleep 30\n", prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C ends the foreground job, the prompt comes back", "\x03", want=["^C\n"])
    run(g, "sh prompt: ... with status 130 (SIGINT)", "echo $?", out="130\n")
    key_check(g, "sh prompt: a loop of jobs runs", "for i in 1 2 3; do sleep 5; echo loop$i; done\n",
              prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C stops the whole loop", "\x03", want=["^C\n"], absent=["loop1"])
    key_check(g, "sh prompt: a pipeline runs", "sleep 30 | cat\n", prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C ends every process of it", "\x03", want=["^C\n"])
    run(g, "sh prompt: no process of the jobs is left", "ps", absent=[" sleep\n", " cat\n"])


def files(g):
    run(g, "cat: files and -", "echo 1 > /tmp/c1; echo 2 | cat /tmp/c1 - /tmp/c1", out="1\n2\n1\n")
    run(g, "cat: missing file", "cat /tmp/c1 /nosuch", status=1,
        out="1\ncat: /nosuch: No such file or directory\n")
    run(g, "cat: error goes to stderr", "cat /nosuch > /dev/null", status=1,
        out="cat: /nosuch: No such file or directory\n")
    usage(g, "cat", "cat -Z")
    run(g, "echo: -n", "echo -n no newline; echo", out="no newline\n")

    run(g, "ls: root directory", "ls /", contains=["bin\n", "etc\n", "sbin\n", "tmp\n"])
    run(g, "ls: -a shows . and ..", "ls -a /etc", regex=r"\A\.\n\.\.\n")
    run(g, "ls: -l format", "ls -l /etc/rc",
        regex=r"\A-rw-r--r--  1 root  wheel  \d+ \w{3} [ \d]\d (\d\d:\d\d| \d{4}) /etc/rc\n\Z")
    run(g, "ls: -l of a directory has a total line", "ls -l /etc", regex=r"\Atotal \d+\n")
    run(g, "ls: several operands", "ls /etc/rc /sbin /etc/motd",
        out="/etc/motd\n/etc/rc\n\n/sbin:\ncamcontrol\nfsck\ninit\nmknod\nmount\nnewfs\numount\n")
    run(g, "ls: missing operand", "ls /nosuch", status=1, out="ls: /nosuch: No such file or directory\n")
    usage(g, "ls", "ls -Z")

    run(g, "mkdir -p and rmdir", "mkdir -p /tmp/m/a/b; ls /tmp/m/a; rmdir /tmp/m/a/b; ls /tmp/m/a", out="b\n")
    run(g, "mkdir: existing", "mkdir /tmp/m", status=1, out="mkdir: /tmp/m: File exists\n")
    run(g, "mkdir -p: existing is fine", "mkdir -p /tmp/m")
    usage(g, "mkdir", "mkdir")
    run(g, "rmdir: not empty", "rmdir /tmp/m", status=1, out="rmdir: /tmp/m: Directory not empty\n")
    usage(g, "rmdir", "rmdir")
    run(g, "rm: a file", "echo x > /tmp/r1; rm /tmp/r1; ls /tmp/r1", status=1, contains=["No such file"])
    run(g, "rm: missing file", "rm /tmp/nosuch", status=1, out="rm: /tmp/nosuch: No such file or directory\n")
    run(g, "rm -f: missing file is fine", "rm -f /tmp/nosuch", out="")
    run(g, "rm: directory needs -r", "rm /tmp/m", status=1, out="rm: /tmp/m: is a directory\n")
    run(g, "rm -r: a tree", "echo f > /tmp/m/a/f; rm -r /tmp/m; ls /tmp/m", status=1, contains=["No such file"])
    usage(g, "rm", "rm -Z")

    # sh creates `>` files with mode 0666, as FreeBSD's sh does, less the umask (022, init's)
    run(g, "ln: hard link shares the file", "echo L > /tmp/l1; ln /tmp/l1 /tmp/l2; ls -l /tmp/l2; cat /tmp/l2",
        regex=r"\A-rw-r--r--  2 root  wheel  2 .* /tmp/l2\nL\n\Z")
    run(g, "ln: existing target", "ln /tmp/l1 /tmp/l2", status=1, out="ln: /tmp/l2: File exists\n")
    usage(g, "ln", "ln /tmp/l1")
    run(g, "mv: rename", "mv /tmp/l1 /tmp/l3; cat /tmp/l3; ls /tmp/l1", status=1,
        out="L\nls: /tmp/l1: No such file or directory\n")
    run(g, "mv: into a directory", "mkdir /tmp/d; mv /tmp/l3 /tmp/d; ls /tmp/d", out="l3\n")
    run(g, "mv: missing source", "mv /tmp/nosuch /tmp/x", status=1, contains=["No such file"])
    usage(g, "mv", "mv /tmp/d")
    run(g, "cp: a file", "cp /etc/motd /tmp/cp1; cat /tmp/cp1", out=g.sh("cat /etc/motd")[0])
    run(g, "cp: into a directory", "cp /etc/rc /etc/motd /tmp/d; ls /tmp/d", out="l3\nmotd\nrc\n")
    run(g, "cp: missing source", "cp /nosuch /tmp/x", status=1, out="cp: /nosuch: No such file or directory\n")
    usage(g, "cp", "cp /etc/rc")

    run(g, "wc: counts", "echo one two > /tmp/w; echo three >> /tmp/w; wc /tmp/w",
        out="       2       3      14 /tmp/w\n")
    run(g, "wc: -l -w -c", "wc -l /tmp/w; wc -w < /tmp/w; wc -c /tmp/w",
        out="       2 /tmp/w\n       3\n      14 /tmp/w\n")
    run(g, "wc: missing file", "wc /nosuch", status=1, out="wc: /nosuch: No such file or directory\n")
    usage(g, "wc", "wc -Z")

    g.sh("echo Hello > /tmp/g; echo world >> /tmp/g; echo foo >> /tmp/g")
    run(g, "grep: substring", "grep o /tmp/g", out="Hello\nworld\nfoo\n")
    run(g, "grep: -c -n -i", "grep -c l /tmp/g; grep -n foo /tmp/g; grep -i HELLO /tmp/g",
        out="2\n3:foo\nHello\n")
    run(g, "grep: -v with no match left exits 1", "grep -v o /tmp/g", status=1, out="")
    run(g, "grep: regex . * ^ $", "grep '^w.r' /tmp/g; grep 'o$' /tmp/g; grep '^H.*o$' /tmp/g",
        out="world\nHello\nfoo\nHello\n")
    run(g, "grep: no match exits 1", "grep zzz /tmp/g", status=1, out="")
    run(g, "grep: several files name each line", "grep foo /tmp/g /tmp/g", out="/tmp/g:foo\n/tmp/g:foo\n")
    run(g, "grep: missing file exits 2", "grep x /nosuch", status=2, out="grep: /nosuch: No such file or directory\n")
    usage(g, "grep", "grep", status=2)

    g.sh("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo $i; done > /tmp/n")
    run(g, "head: default 10 lines", "head /tmp/n | wc -l", out="      10\n")
    run(g, "head -n", "head -n 2 /tmp/n", out="1\n2\n")
    run(g, "tail -n", "tail -n 3 /tmp/n", out="10\n11\n12\n")
    run(g, "tail: stdin", "cat /tmp/n | tail -n 1", out="12\n")
    run(g, "head: missing file", "head /nosuch", status=1, out="head: /nosuch: No such file or directory\n")
    run(g, "tail: bad count", "tail -n x /tmp/n", status=1, contains=["illegal offset"])
    run(g, "head: obsolete -count", "head -4 /tmp/n", out="1\n2\n3\n4\n")
    run(g, "head -c", "head -c 5 /tmp/n", out="1\n2\n3")
    run(g, "head: -n and -c together", "head -n 2 -c 3 /tmp/n", status=1, contains=["can't combine"])
    run(g, "head: bad count", "head -n 0 /tmp/n", status=1, contains=["illegal line count -- 0"])
    run(g, "tail -n +N from the start", "tail -n +11 /tmp/n", out="11\n12\n")
    run(g, "tail: obsolete -N and +N", "tail -2 /tmp/n; tail +12 /tmp/n", out="11\n12\n12\n")
    run(g, "tail -c and -c +N", "tail -c 3 /tmp/n; tail -c +25 /tmp/n", out="12\n12\n")
    usage(g, "head", "head -Z")
    usage(g, "tail", "tail -Z")

    run(g, "touch: creates", "touch /tmp/t1 && ls /tmp/t1", out="/tmp/t1\n")
    run(g, "touch -c does not create", "rm -f /tmp/t2; touch -c /tmp/t2; echo $?; test -e /tmp/t2 || echo absent",
        out="0\nabsent\n")
    run(g, "touch -t", "touch -t 200012151200 /tmp/t1 && ls -l /tmp/t1", regex=r" Dec 15  2000 /tmp/t1$")
    run(g, "touch -r copies the times", "touch -r /tmp/t1 /tmp/t3 && ls -l /tmp/t3", regex=r" Dec 15  2000 /tmp/t3$")
    run(g, "touch -a keeps the modification time", "touch -a -t 199001010000 /tmp/t3 && ls -l /tmp/t3",
        regex=r" Dec 15  2000 /tmp/t3$")
    run(g, "touch -m -t YYMMDDhhmm.SS", "touch -m -t 9001010000.30 /tmp/t3 && ls -l /tmp/t3",
        regex=r" Jan  1  1990 /tmp/t3$")
    run(g, "touch: no time, now", "touch /tmp/t3 && ls -l /tmp/t3", regex=r" \d\d:\d\d /tmp/t3$")
    run(g, "touch: bad -t", "touch -t 200002301200 /tmp/t1", status=1,
        contains=["illegal time specification -- 200002301200"])
    run(g, "touch: missing directory", "touch /nosuch/x", status=1,
        out="touch: /nosuch/x: No such file or directory\n")
    run(g, "touch a device: devfs keeps the times", "touch -t 200012151200 /dev/null && ls -l /dev/null",
        regex=r" Dec 15  2000 /dev/null$")
    usage(g, "touch", "touch")
    g.sh("rm -f /tmp/t1 /tmp/t2 /tmp/t3")


def dd_checks(g):
    dd(g, "dd: bs and count", "dd if=/dev/zero of=/tmp/dd1 bs=32k count=4", (4, 0), (4, 0), 131072)
    run(g, "dd: output file size", "ls -l /tmp/dd1", regex=r" 131072 ")
    dd(g, "dd: ibs/obs reblocking", "dd if=/tmp/dd1 of=/tmp/dd2 ibs=1000 obs=3000", (131, 1), (43, 1), 131072)
    dd(g, "dd: partial last block", "echo hello | dd of=/tmp/dd3 bs=4", (1, 1), (1, 1), 6)
    dd(g, "dd: conv=sync pads", "echo hi | dd of=/tmp/dd4 bs=8 conv=sync", (0, 1), (1, 0), 8)
    dd(g, "dd: skip and seek", "dd if=/tmp/dd1 of=/tmp/dd5 bs=1k skip=100 seek=2 count=10", (10, 0), (10, 0), 10240)
    run(g, "dd: seek leaves a hole of seek*bs", "ls -l /tmp/dd5", regex=r" 12288 ")
    dd(g, "dd: conv=notrunc keeps the rest", "dd if=/dev/zero of=/tmp/dd5 bs=1k count=1 conv=notrunc",
       (1, 0), (1, 0), 1024)
    run(g, "dd: notrunc size", "ls -l /tmp/dd5", regex=r" 12288 ")
    dd(g, "dd: suffixes b and x", "dd if=/dev/zero of=/dev/null bs=2x1b count=3", (3, 0), (3, 0), 3072)
    dd(g, "dd: bigger copy", "dd if=/dev/zero of=/tmp/dd6 bs=64k count=64", (64, 0), (64, 0), 4194304)
    run(g, "dd: unknown operand", "dd foo=bar", status=1, contains=["dd: unknown operand foo", "usage:"])
    run(g, "dd: bad number", "dd bs=12q", status=1, contains=["dd: bs: illegal numeric value"])
    run(g, "dd: missing input", "dd if=/nosuch", status=1, contains=["dd: /nosuch: No such file or directory"])
    g.sh("rm -f /tmp/dd1 /tmp/dd2 /tmp/dd3 /tmp/dd4 /tmp/dd5 /tmp/dd6")


def system(g):
    ps = run(g, "ps: header", "ps", regex=r"\A  PID  PPID STAT WCHAN        TIME COMMAND\n")
    row = r"^\s*(\d+)\s+(\d+) ([RSZT])\s+(\S+)\s+\d+:\d\d\.\d\d (.*)$"
    rows = re.findall(row, ps, re.M)
    T.check("ps: init is pid 1", any(r[0] == "1" and "init" in r[4] for r in rows), expected="a row for pid 1 init",
            got=ps)
    for kt in ("bufdaemon", "syncer"):
        T.check("ps: kernel thread %s sleeps with a wait message" % kt,
                any(r[4] == "[%s]" % kt and r[2] == "S" and r[3] != "-" for r in rows),
                expected="a row '[%s]' in state S with a WCHAN" % kt, got=ps)
    T.check("ps: itself is running", any(r[4] == "ps" and r[2] == "R" for r in rows), expected="ps in state R", got=ps)
    usage(g, "ps", "ps -Z")

    run(g, "sysctl: an integer", "sysctl kern.hz", out="kern.hz: 100\n")
    run(g, "sysctl -n", "sysctl -n kern.hz", out="100\n")
    run(g, "sysctl: a string", "sysctl kern.ostype", regex=r"\Akern.ostype: \S+\n\Z")
    run(g, "sysctl: kern.boottime FreeBSD style", "sysctl kern.boottime",
        regex=r"\Akern.boottime: \{ sec = \d+, usec = \d+ \} \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\n\Z")
    run(g, "sysctl -d", "sysctl -d kern.hz", out="kern.hz: Scheduler clock ticks per second\n")
    run(g, "sysctl: a prefix lists its nodes", "sysctl kern", contains=["kern.hz: 100\n", "kern.ostype: "],
        absent=["hw."])
    run(g, "sysctl -a", "sysctl -a", contains=["kern.hz: 100\n", "hw.ncpu: "], absent=["kern.proc:"])
    run(g, "sysctl: set a writable node", "sysctl kern.syncdelay=29; sysctl -n kern.syncdelay",
        regex=r"\Akern.syncdelay: \d+ -> 29\n29\n\Z")
    run(g, "sysctl: read-only node", "sysctl kern.hz=5", status=1, out="sysctl: oid 'kern.hz' is read only\n")
    run(g, "sysctl: bad integer", "sysctl kern.syncdelay=abc", status=1, out="sysctl: invalid integer 'abc'\n")
    run(g, "sysctl: unknown node", "sysctl no.such", status=1, out="sysctl: unknown oid 'no.such'\n")
    usage(g, "sysctl", "sysctl")

    run(g, "date: FreeBSD format", "date", regex=r"\A\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}\n\Z")
    run(g, "date: +format", "date +%Y-%m", regex=r"\A\d{4}-\d\d\n\Z")
    usage(g, "date", "date -Z")
    run(g, "uptime", "uptime", regex=r"\A[ \d]\d:\d\d[AP]M  up \d+ (sec|secs|min|mins)\n\Z")
    usage(g, "uptime", "uptime -Z")
    run(g, "sleep: fractional", "sleep 0.3; echo slept", out="slept\n")
    run(g, "sleep: bad argument", "sleep abc", status=1, contains=["usage: sleep"])
    run(g, "time: FreeBSD format", "time sleep 0.5",
        regex=r"\A +\d+\.\d\d real +\d+\.\d\d user +\d+\.\d\d sys\n\Z")
    run(g, "time: exit status passes through", "time false", status=1, contains=[" real "])
    run(g, "time: missing command", "time nosuchcmd", status=127, contains=["nosuchcmd"])
    usage(g, "time", "time")
    run(g, "kill: TERM by default", "sleep 30 & kill $!; wait $!; echo $?", out="143\n")
    run(g, "kill -9", "sleep 30 & kill -9 $!; wait $!; echo $?", out="137\n")
    run(g, "kill -s KILL", "sleep 30 & kill -s KILL $!; wait $!; echo $?", out="137\n")
    run(g, "kill: no such process", "kill 99999", status=1, out="kill: 99999: No such process\n")
    run(g, "kill: bad signal", "kill -NOSUCH 1", status=2, contains=["unknown signal"])
    run(g, "kill -l", "kill -l", contains=["HUP", "KILL", "TERM"])
    usage(g, "kill", "kill", status=2)
    run(g, "sync", "sync")
    usage(g, "sync", "sync now")
    run(g, "true and false", "true; echo $?; false; echo $?", out="0\n1\n")
    usage(g, "halt", "halt -Z")
    usage(g, "reboot", "reboot -p")
    usage(g, "poweroff", "poweroff -Z")


def prompt_interrupt_and_editing(g):
    """The shell at the console: ^C stops a loop of built-ins (the shell catches SIGINT in its
    own foreground group, user/sh/trap.c), a trap on INT runs on ^C, and the line editor moves
    the cursor (arrows, ^A ^E ^B ^F, Home/End/Delete) and completes with Tab (user/sh/edit.c)."""
    key_check(g, "sh prompt: a loop of built-ins runs", "while :; do :; done\n", prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C stops the loop of built-ins", "\x03", want=["^C\n"])
    run(g, "sh prompt: ... with status 130", "echo $?", out="130\n")
    key_check(g, "sh prompt: a loop of arithmetic runs", "i=0; while :; do i=$((i+1)); done\n", prompt=False,
              seconds=1.0)
    key_check(g, "sh prompt: ^C stops it too", "\x03", want=["^C\n"])
    run(g, "sh prompt: ... the loop had run, status 130", "st=$?; [ $i -gt 0 ] && echo $st", out="130\n")
    key_check(g, "sh prompt: read waits for a line", "read x\n", prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C ends the read", "\x03", want=["^C\n"])
    run(g, "sh prompt: ... with status 130", "echo $?", out="130\n")
    key_check(g, "sh prompt: a loop under a trap on INT runs", "trap 'echo got int; trap - INT' INT; "
              "while :; do :; done\n", prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C runs the trap and the loop goes on", "\x03", want=["got int\n"], prompt=False)
    key_check(g, "sh prompt: with the trap reset, ^C stops the loop", "\x03", want=["^C\n"])
    run(g, "sh prompt: no trap is left", "trap; echo none", out="none\n")
    key_check(g, "sh prompt: a background job", "sleep 100 > /dev/null &\n")
    key_check(g, "sh prompt: a loop beside it", "while :; do :; done\n", prompt=False, seconds=1.0)
    key_check(g, "sh prompt: ^C stops the loop", "\x03", want=["^C\n"])
    run(g, "sh prompt: the background job ignored the ^C (POSIX 2.11)", "ps", contains=[" sleep\n"])
    run(g, "sh prompt: kill -TERM to the console's shell leaves it running", "kill -TERM $$; echo alive",
        out="alive\n")
    key_check(g, "sh prompt: left arrow and insert", "echo ac\x1b[Db\n", want=["\nabc\n"])
    key_check(g, "sh prompt: ^A then type at the start", "cho x\x01e\n", want=["\nx\n"])
    key_check(g, "sh prompt: ^E goes to the end", "echo a\x01\x05b\n", want=["\nab\n"])
    key_check(g, "sh prompt: ^B and ^F", "echo abd\x02c\x06e\n", want=["\nabcde\n"])
    key_check(g, "sh prompt: Home, Delete, End", "Xecho xy\x1b[1~\x1b[3~\x1b[4~z\n", want=["\nxyz\n"])
    key_check(g, "sh prompt: right arrow", "echo bc\x01" + "\x1b[C" * 5 + "a\n", want=["\nabc\n"])
    key_check(g, "sh prompt: backspace in the middle", "echo abXc\x1b[D\x7f\n", want=["\nabc\n"])
    key_check(g, "sh prompt: ^U erases before the cursor", "junk echo kept\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D"
              "\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x15\n", want=["\nkept\n"])
    key_check(g, "sh prompt: Tab completes a command name", "ech\t tabbed\n", want=["\ntabbed\n"])
    key_check(g, "sh prompt: Tab completes a file name", "cat /etc/mot\t\n", want=["wdrain"],
              absent=["No such file"])
    key_check(g, "sh prompt: Tab completes a directory with a slash", "ls /sbi\tinit\n", want=["/sbin/init\n"])
    key_check(g, "sh prompt: a second Tab lists the choices", "echo /sbin/\t\t",
              want=["camcontrol  fsck  init  mknod  mount  newfs  umount\n"], prompt=False)
    key_check(g, "sh prompt: ... and ^C drops the line", "\x03", want=["^C\n"])
    key_check(g, "sh prompt: Tab with no match changes nothing", "echo zz\tq\n", want=["\nzzq\n"])


def printf_checks(g):
    """printf(1), POSIX XCU printf, FreeBSD's messages (user/bin/printf.c)."""
    run(g, "printf: %s with width, - and precision", "printf '%s|%5s|%-5s|%.2s\\n' abc de fg hijk",
        out="abc|   de|fg   |hi\n")
    run(g, "printf: %d %i %u %o %x %X %c %%", "printf '%d %i %u %o %x %X %c %%\\n' 42 -7 3000000000 8 255 255 hello",
        out="42 -7 3000000000 10 ff FF h %\n")
    run(g, "printf: flags 0 - + space #", "printf '%05d|%-5d|%+d|% d|%#x|%#o\\n' 42 42 42 42 255 8",
        out="00042|42   |+42| 42|0xff|010\n")
    run(g, "printf: escapes \\t \\\\ \\ddd", "printf 'a\\tb\\\\c\\101\\n'", out="a\tb\\cA\n")
    run(g, "printf: %b with \\0ddd, and \\c stops", "printf '%b|%b\\n' 'x\\ty\\0101' 'stop\\cnot'",
        out="x\tyA|stop")
    run(g, "printf: the format is reused for extra arguments", "printf '%s,%s\\n' a b c d e", out="a,b\nc,d\ne,\n")
    run(g, "printf: * width and precision", "printf '%*d|%.*s\\n' 6 42 3 abcdef", out="    42|abc\n")
    run(g, "printf: character constants, hex and octal", "printf '%d %d %d\\n' \"'A\" 0x10 010", out="65 16 8\n")
    run(g, "printf: 64-bit numbers", "printf '%d %x\\n' 4294967296 -1", out="4294967296 ffffffffffffffff\n")
    run(g, "printf: missing arguments are 0 and empty", "printf '[%d][%s]\\n'", out="[0][]\n")
    run(g, "printf: a bad number is reported, status 1", "printf '%d\\n' abc", status=1,
        out="printf: abc: expected numeric value\n0\n")
    run(g, "printf: a partly converted number", "printf '%d\\n' 12abc", status=1,
        out="printf: 12abc: not completely converted\n12\n")
    run(g, "printf: a number out of range", "printf '%d\\n' 99999999999999999999", status=1,
        out="printf: 99999999999999999999: Result too large\n9223372036854775807\n")
    run(g, "printf: floating point is refused", "printf '%f\\n' 1.5", status=1,
        out="printf: illegal format character f\n")
    run(g, "printf: a format ending in %", "printf 'x%'", status=1, out="xprintf: missing format character\n")
    run(g, "printf: a table", "for r in 'dd 1024 0.5' 'cp 12 13'; do set -- $r; printf '%-4s%8d%6s\\n' $1 $2 $3; done",
        out="dd      1024   0.5\ncp        12    13\n")
    usage(g, "printf", "printf")


def grep_checks(g):
    """grep's regular expressions: POSIX bracket expressions, -E, and refusals (user/lib/regex.c)."""
    g.sh("printf '123\\nabc\\na1b2\\nfoo.c\\nbar.h\\nbaz\\naa\\nab\\nHello World\\n' > /tmp/gx")
    run(g, "grep: ^[0-9][0-9]*$ (the issue's case)", "echo 123 | grep '^[0-9][0-9]*$'", out="123\n")
    run(g, "grep: [[:digit:]] class", "grep '[[:digit:]]' /tmp/gx", out="123\na1b2\n")
    run(g, "grep: negated bracket", "grep '^[^0-9]*$' /tmp/gx", out="abc\nfoo.c\nbar.h\nbaz\naa\nab\nHello World\n")
    run(g, "grep: range and interval \\{m,n\\}", "grep '^[a-z]\\{3\\}$' /tmp/gx", out="abc\nbaz\n")
    run(g, "grep: group and back-reference", "grep '^\\(a\\)\\1$' /tmp/gx", out="aa\n")
    run(g, "grep: ] first in a bracket, escaped dot", "printf 'a]b\\nab\\n' | grep 'a[]]b'; grep 'o\\.c' /tmp/gx",
        out="a]b\nfoo.c\n")
    run(g, "grep -E: alternation and groups", "grep -E '\\.(c|h)$' /tmp/gx", out="foo.c\nbar.h\n")
    run(g, "grep -E: + ? {m}", "grep -E '^a+b?$' /tmp/gx; grep -cE '^[a-z]{2}$' /tmp/gx", out="aa\nab\n2\n")
    run(g, "grep -i with a bracket", "grep -i '^[h]ELLO' /tmp/gx", out="Hello World\n")
    run(g, "grep: an unbalanced bracket is refused, status 2", "grep '[a' /tmp/gx", status=2,
        out="grep: brackets ([ ]) not balanced\n")
    run(g, "grep: an unknown class is refused", "grep '[[:nope:]]' /tmp/gx", status=2,
        out="grep: invalid character class\n")
    run(g, "grep -E: unbalanced parentheses", "grep -E '(a' /tmp/gx", status=2, out="grep: parentheses not balanced\n")
    run(g, "grep -E: nothing to repeat", "grep -E '*a' /tmp/gx", status=2,
        out="grep: repetition-operator operand invalid\n")
    run(g, "grep: a back-reference to no group", "grep '\\1' /tmp/gx", status=2,
        out="grep: invalid backreference number\n")
    run(g, "grep: a multi-character collating element is refused", "grep '[[.space.]]' /tmp/gx", status=2,
        out="grep: invalid collating element\n")
    usage(g, "grep -E", "grep -Z x", status=2)


def grep_option_checks(g):
    """grep's POSIX options beyond -Ecinv: -q -s -l -L -x -F -e -f -h -H, and pattern lists."""
    g.sh("printf 'alpha\\nbeta\\ngamma\\nalphabet\\n' > /tmp/go1; printf 'x\\nbeta\\n' > /tmp/go2")
    run(g, "grep -q: status only", "grep -q beta /tmp/go1; echo $?; grep -q zzz /tmp/go1; echo $?", out="0\n1\n")
    run(g, "grep -q: a match wins over an unreadable file (POSIX)", "grep -q beta /nonexist /tmp/go1; echo $?",
        out="grep: /nonexist: No such file or directory\n0\n")
    run(g, "grep -s: no message, status 2", "grep -s beta /nonexist; echo $?", out="2\n")
    run(g, "grep -l / -L: file names", "grep -l beta /tmp/go1 /tmp/go2; grep -L alpha /tmp/go1 /tmp/go2",
        out="/tmp/go1\n/tmp/go2\n/tmp/go2\n")
    run(g, "grep -x: whole lines (BRE, with and without anchors)", "grep -x 'alph.*' /tmp/go1; grep -x '^alpha$' /tmp/go1",
        out="alpha\nalphabet\nalpha\n")
    run(g, "grep -xE: alternation is grouped", "grep -xE 'alpha|beta' /tmp/go1", out="alpha\nbeta\n")
    run(g, "grep -F: fixed strings, no metacharacters", "grep -F 'a.p' /tmp/go1; echo $?; grep -Fxi BETA /tmp/go1",
        out="1\nbeta\n")
    run(g, "grep -e -e: any pattern", "grep -e gamma -e beta /tmp/go1", out="beta\ngamma\n")
    run(g, "grep -f: patterns from a file; an empty one matches nothing",
        "printf 'gamma\\nbet\\n' > /tmp/gpat; grep -f /tmp/gpat /tmp/go1; : > /tmp/gpe; grep -f /tmp/gpe /tmp/go1; echo $?",
        out="beta\ngamma\nalphabet\n1\n")
    run(g, "grep: a pattern with a newline is two patterns", "grep \"$(printf 'x\\ngamma')\" /tmp/go1 /tmp/go2",
        out="/tmp/go1:gamma\n/tmp/go2:x\n")
    run(g, "grep -h / -H", "grep -h beta /tmp/go1 /tmp/go2; grep -H beta /tmp/go1", out="beta\nbeta\n/tmp/go1:beta\n")
    run(g, "grep -f: a missing pattern file", "grep -f /nonexist x", status=2,
        out="grep: /nonexist: No such file or directory\n")


def file_tool_checks(g):
    """which, cp -f/-i/-n/-p/-v, link, readlink, stat and ls -n."""
    run(g, "which: first match, -a, -s, a path", "which ls sh; which -a ls; which -s nope; echo $?; which /bin/ls",
        out="/bin/ls\n/bin/sh\n/bin/ls\n1\n/bin/ls\n")
    run(g, "which: one missing program makes the status 1", "which nope ls; echo $?", out="/bin/ls\n1\n")
    usage(g, "which", "which")
    run(g, "which: not executable is not found", "echo x > /tmp/wx; PATH=/tmp /bin/which wx; echo $?; "
        "chmod 755 /tmp/wx; PATH=/tmp:/bin /bin/which wx", out="1\n/tmp/wx\n")
    g.sh("rm -f /tmp/cp*; echo hi > /tmp/cp1; chmod 4755 /tmp/cp1")
    run(g, "cp: a new target loses the set-ID bits", "cp /tmp/cp1 /tmp/cp2; stat -f %Sp /tmp/cp2", out="-rwxr-xr-x\n")
    run(g, "cp -p: mode (set-ID too) and times kept", "touch -t 200012151200 /tmp/cp1; "
        "cp -p /tmp/cp1 /tmp/cp3; stat -f '%Sp %m' /tmp/cp3; stat -f %m /tmp/cp1",
        regex=r"\A-rwsr-xr-x (\d+)\n\1\n\Z")
    run(g, "cp: the same file is refused", "cp /tmp/cp1 /tmp/cp1", status=1,
        out="cp: /tmp/cp1 and /tmp/cp1 are identical (not copied).\n")
    run(g, "cp: an existing target keeps its mode", "chmod 600 /tmp/cp2; cp /tmp/cp1 /tmp/cp2; stat -f %Sp /tmp/cp2",
        out="-rw-------\n")
    run(g, "cp -n: never overwrite; -v says so", "echo new > /tmp/cpn; cp -nv /tmp/cpn /tmp/cp2; cat /tmp/cp2",
        out="/tmp/cp2 not overwritten\nhi\n")
    run(g, "cp -i: anything but y leaves the target", "echo n | cp -i /tmp/cpn /tmp/cp2; echo $?; cat /tmp/cp2",
        out="overwrite /tmp/cp2? (y/n [n]) not overwritten\n1\nhi\n")
    run(g, "cp -i: y overwrites", "echo y | cp -i /tmp/cpn /tmp/cp2; cat /tmp/cp2",
        out="overwrite /tmp/cp2? (y/n [n]) new\n")
    run(g, "cp: rewrites the target in place; cp -f replaces it (a hard link keeps the old file)",
        "echo old > /tmp/cpt; rm -f /tmp/cpk; link /tmp/cpt /tmp/cpk; cp /tmp/cpn /tmp/cpt; cat /tmp/cpk; "
        "echo old > /tmp/cpt; cp -f /tmp/cpn /tmp/cpt; cat /tmp/cpk /tmp/cpt", out="new\nold\nnew\n")
    usage(g, "cp", "cp -x a b")
    run(g, "link: a hard link, and an existing target refused",
        "rm -f /tmp/ln2; link /tmp/cp1 /tmp/ln2; stat -f %l /tmp/cp1; link /tmp/cp1 /tmp/ln2", status=1,
        out="2\nlink: /tmp/ln2: File exists\n")
    usage(g, "link", "link /tmp/cp1")
    run(g, "readlink: a link's target; not a link prints nothing, status 1",
        "rm -f /tmp/rl*; ln -s /tmp/cp1 /tmp/rl1; readlink /tmp/rl1; readlink /tmp/cp1; echo $?; readlink -n /tmp/rl1; echo",
        out="/tmp/cp1\n1\n/tmp/cp1\n")
    run(g, "readlink -f: the canonical path through links, . and ..",
        "cd /tmp && ln -s ../tmp/./rl1 rl2 && readlink -f rl2 && readlink -f /tmp/../bin/ls; readlink -f /nope; echo $?",
        out="/tmp/cp1\n/bin/ls\n1\n")
    run(g, "readlink -f: a loop is not resolved", "ln -s /tmp/rl3 /tmp/rl3; readlink -f /tmp/rl3; echo $?", out="1\n")
    run(g, "ls -n: numeric owner and group", "chown 1000:20 /tmp/cp2; ls -n /tmp/cp2",
        regex=r"\A-rw-------  1 1000  20  4 \w{3} [ \d]\d \d\d:\d\d /tmp/cp2\n\Z")
    run(g, "stat: FreeBSD's default line", "stat /tmp/cp2",
        regex=r'\A\d+ \d+ -rw------- 1 (\(1000\)|\w+) (\(20\)|\w+) 0 4 "\w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}" '
              r'"[^"]+" "[^"]+" 8192 \d+ /tmp/cp2\n\Z')
    run(g, "stat -f: fields and outputs", "stat -f '%N %z %Sp %p %Op %#Xp %u %g %HT %T|' /tmp/cp2 /tmp",
        out="/tmp/cp2 4 -rw------- 100600 100600 0x8180 1000 20 Regular File |\n"
            "/tmp 8192 drwxrwxrwt 41777 41777 0x43ff 0 0 Directory /|\n")
    run(g, "stat -f: pieces of the mode, widths and flags", "stat -f '%-6i|%06z|%#Op|%SHp %SMp %SLp|%OMp %03OLp' /tmp/cp1",
        regex=r"\A\d+ *\|000003\|0104755\|rws r-x r-x\|4 755\n\Z")
    run(g, "stat -f: %Y and %SY, %T, -L", "stat -f '%Y|%SY|%HT' /tmp/rl1; stat -L -f %HT /tmp/rl1",
        out="/tmp/cp1| -> /tmp/cp1|Symbolic Link\nRegular File\n")
    run(g, "stat -f: a time as seconds and fractions; -t", "stat -f '%m %Fm %.3Fm' /tmp/cp3; stat -t %Y -f %Sm /tmp/cp3",
        regex=r"\A(\d+) \1\.000000000 \1\.000\n\d{4}\n\Z")
    run(g, "stat -s / -r: shell and raw forms", "stat -s /tmp/cp2; stat -r /tmp/cp2",
        regex=r"\Ast_dev=\d+ st_ino=\d+ st_mode=0100600 st_nlink=1 st_uid=1000 st_gid=20 st_rdev=0 st_size=4 "
              r"st_atime=\d+ st_mtime=\d+ st_ctime=\d+ st_blksize=8192 st_blocks=\d+\n"
              r"\d+ \d+ 0100600 1 1000 20 0 4 \d+ \d+ \d+ 8192 \d+ /tmp/cp2\n\Z")
    run(g, "stat -x: the verbose form", "stat -x /tmp/cp2", contains=['  File: "/tmp/cp2"', "FileType: Regular File",
        "Mode: (0600/-rw-------)", "Uid: ( 1000/"])
    run(g, "stat -l -F: ls -lF's line", "stat -lF /tmp/rl1 /bin/ls",
        regex=r"\Alrwxr-xr-x 1 root wheel 8 .* /tmp/rl1@ -> /tmp/cp1\n-rwxr-xr-x 1 root wheel \d+ .* /bin/ls\*\n\Z")
    run(g, "stat: a missing file, and -q", "stat /nope; echo $?; stat -q /nope; echo $?",
        out="stat: /nope: stat: No such file or directory\n1\n1\n")
    run(g, "stat -f: unknown and unsupported fields are bad formats", "stat -f %Q /tmp/cp1; stat -f %B /tmp/cp1; echo $?",
        out="stat: %Q: bad format\nstat: %B: bad format\n1\n")
    run(g, "stat: -l with -s refused", "stat -l -s /tmp/cp1", status=1, out="stat: can't use format 'l' with 's'\n")
    run(g, "stat -n, %@ %n %t %%, standard input", "stat -n -f %z /tmp/cp2; echo; stat -f '%@%t%%' /tmp/cp2 < /dev/null; "
        "stat -f %z < /tmp/cp2", out="4\n1\t%\n4\n")
    usage(g, "stat", "stat -Z /tmp")


def kill_sysctl_checks(g):
    """kill -- -PGID and its errno; sysctl's empty name and several assignments in any order."""
    run(g, "kill -- -PGID: a process group", "sh -c 'sleep 30 & sleep 30 & wait' & sleep 1; kill -- -$$; "
        "echo $?; wait $!; echo $?", out="0\n143\n")
    run(g, "kill -s TERM -- pid", "sleep 30 & kill -s TERM -- $!; wait $!; echo $?", out="143\n")
    run(g, "kill: a missing group is 'No such process'", "kill -15 -1234567", status=1,
        out="kill: -1234567: No such process\n")
    run(g, "kill -- -PGID: a missing group", "kill -- -99999", status=1, out="kill: -99999: No such process\n")
    run(g, "kill -l exit_status", "kill -l 143; kill -l 9", out="TERM\nKILL\n")
    run(g, "kill -l: a bad exit status", "kill -l 200", status=2, contains=["unknown signal"])
    run(g, "sysctl '': the empty name is refused", "sysctl ''", status=1, out="sysctl: unknown oid ''\n")
    run(g, "sysctl: hi then lo (the hi refused at first) both apply",
        "sysctl vfs.hirunningspace=65536 vfs.lorunningspace=32768; sysctl -n vfs.hirunningspace vfs.lorunningspace",
        out="vfs.lorunningspace: 524288 -> 32768\nvfs.hirunningspace: 1048576 -> 65536\n65536\n32768\n")
    run(g, "sysctl: lo then hi, back to the defaults (the lo refused at first)",
        "sysctl vfs.lorunningspace=524288 vfs.hirunningspace=1048576; sysctl -n vfs.hirunningspace vfs.lorunningspace",
        out="vfs.hirunningspace: 65536 -> 1048576\nvfs.lorunningspace: 32768 -> 524288\n1048576\n524288\n")
    run(g, "sysctl: an assignment refused again is named, status 1",
        "sysctl vfs.hirunningspace=1000 vfs.lorunningspace=2000", status=1,
        out="vfs.lorunningspace: 524288 -> 2000\nsysctl: vfs.hirunningspace=1000: Invalid argument\n")
    run(g, "sysctl: ... the other one stayed", "sysctl vfs.lorunningspace=524288; sysctl -n vfs.hirunningspace",
        out="vfs.lorunningspace: 2000 -> 524288\n1048576\n")
    run(g, "sysctl: one bad name among several", "sysctl kern.syncdelay=30 no.such=1", status=1,
        regex=r"\Akern.syncdelay: \d+ -> 30\nsysctl: unknown oid 'no.such'\n\Z")


with Guest(mem=128, smp=1) as g:
    shell(g)
    prompt(g)
    files(g)
    dd_checks(g)
    system(g)
    prompt_interrupt_and_editing(g)
    printf_checks(g)
    grep_checks(g)
    grep_option_checks(g)
    file_tool_checks(g)
    kill_sysctl_checks(g)

T.done()
