/*
 * ut_sh.c: the shell (user/sh/), one case per feature userland.md "The shell" lists.
 *
 * Each case is a table of scripts run as `/bin/sh -c script` with stdout and stderr in one
 * pipe, each with the output and exit status it must give. A failure prints the script,
 * what was expected and what came. The error rows check that a bad script gets a message
 * and status 2 and never a signal (a crashed shell shows as 128 + the signal).
 * Scratch files go under /tmp/ut/sh.
 */
#include "usertests.h"

struct shcase {
	const char *script;
	const char *out;      /* stdout and stderr together */
	int         status;
};

/* Run script with /bin/sh -c; its output into out, its status (128 + signal if killed). */
static int sh_run(const char *script, char *out, size_t size, int *status)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	size_t len = 0;
	int fds[2], n;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv("/bin/sh", argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	close(fds[0]);
	return ut_waitexit(pid, status) < 0 ? -1 : 0;
}

static void sh_cases(const struct shcase *c, int n)
{
	static char out[4096];
	int status;

	mkdir("/tmp/ut/sh", 0777);
	for (int i = 0; i < n; i++) {
		if (sh_run(c[i].script, out, sizeof out, &status) < 0)
			FAILF("running sh -c '%s': %s", c[i].script, strerror(errno));
		if (status != c[i].status || strcmp(out, c[i].out) != 0)
			FAILF("sh -c '%s': expected status %d and \"%s\", got status %d and \"%s\"", c[i].script,
			      c[i].status, c[i].out, status, out);
	}
}

#define SH_CASES(t) sh_cases(t, sizeof t / sizeof t[0])

/* Pathname expansion (POSIX 2.6.6, 2.13). */
UT_CASE(t_sh_glob)
{
	static const struct shcase t[] = {
		{ "cd /tmp/ut/sh && mkdir g && cd g && : > a1 && : > a2 && : > b1 && : > .hid && mkdir d && : > d/x.c;"
		  "echo *; echo a?; echo [ab]1; echo [!a]*; echo .*; echo */*.c; echo d/; echo */", "a1 a2 b1 d\na1 a2\na1 b1\nb1 d\n.hid\nd/x.c\nd/\nd/\n", 0 },
		{ "cd /tmp/ut/sh/g && echo z* '*' \"a\"* a\\*", "z* * a1 a2 a*\n", 0 },
		{ "cd /tmp/ut/sh/g && x='a*'; echo $x \"$x\"", "a1 a2 a*\n", 0 },
		{ "cd /tmp/ut/sh/g && set -f; echo a*; set +f; echo a*", "a*\na1 a2\n", 0 },
		{ "echo /tmp/ut/sh/g/[a-a][[:digit:]]", "/tmp/ut/sh/g/a1 /tmp/ut/sh/g/a2\n", 0 },
		{ "echo [ ] [x", "[ ] [x\n", 0 },
	};
	SH_CASES(t);
}

/* Command substitution (POSIX 2.6.3). */
UT_CASE(t_sh_subst)
{
	static const struct shcase t[] = {
		{ "x=$(echo sub); echo $x", "sub\n", 0 },
		{ "x=`echo sub`; echo $x", "sub\n", 0 },
		{ "echo $(echo $(echo nested) `echo back`)", "nested back\n", 0 },
		{ "echo \"$(echo 'a  b')\" $(echo 'a  b')", "a  b a b\n", 0 },
		{ "x=$(case y in y) echo paren;; esac); echo $x", "paren\n", 0 },
		{ "x=$(echo a; echo; echo); echo \"[$x]\"", "[a]\n", 0 },
		{ "x=$(exit 3); echo $?; x=$(true); echo $?", "3\n0\n", 0 },
		{ "echo `echo \\`echo inner\\``", "inner\n", 0 },
		{ "cd /; echo $(cd /etc; pwd); pwd", "/etc\n/\n", 0 },
		{ "echo $(echo a; echo b >&2) 2>&1", "b\na\n", 0 },
	};
	SH_CASES(t);
}

/* Arithmetic expansion (POSIX 2.6.4). */
UT_CASE(t_sh_arith)
{
	static const struct shcase t[] = {
		{ "echo $((3+4)) $((2+3*4)) $(((2+3)*4)) $((7%3)) $((-7/2)) $((1<<4)) $((0x10+010))", "7 14 20 1 -3 16 24\n", 0 },
		{ "echo $((5>3)) $((5<=3)) $((2==2)) $((2!=2)) $((6&3)) $((6|3)) $((6^3)) $((!0)) $((~0))", "1 0 1 0 2 7 5 1 -1\n", 0 },
		{ "n=5; echo $((n*2)) $((n+=3)) $n $((n>3 && n<10)) $((n ? 11 : 22))", "10 8 8 1 11\n", 0 },
		{ "echo $((0 && 1/0)) $((1 || 1/0)) $((0 ? 1/0 : 9))", "0 1 9\n", 0 },
		{ "echo $((2147483647 + 1)) $((-2147483647 - 1)) $((2*1024*1024*1024+1)) $((1<<40))",
		  "2147483648 -2147483648 2147483649 1099511627776\n", 0 },
		{ "x=4294967296; echo $((x * 2)) $((0x7fffffffffffffff)) $((9223372036854775807 + 1))",
		  "8589934592 9223372036854775807 -9223372036854775808\n", 0 },
		{ "x=; echo $((x + 1)) $((unset_var * 2))", "1 0\n", 0 },
		{ "i=0; while [ $i -lt 5 ]; do i=$((i+1)); done; echo $i", "5\n", 0 },
		{ "echo $((1/0)); echo not reached", "sh: arithmetic expression: division by zero: \"1/0\"\n", 2 },
		{ "echo $((5 % 0))", "sh: arithmetic expression: division by zero: \"5 % 0\"\n", 2 },
		{ "echo $((1 +))", "sh: arithmetic expression: missing operand: \"1 +\"\n", 2 },
		{ "x=abc; echo $((x))", "sh: arithmetic expression: x: \"abc\" is not a number: \"x\"\n", 2 },
		{ "echo $(((-9223372036854775807 - 1) / -1))",
		  "sh: arithmetic expression: overflow: \"(-9223372036854775807 - 1) / -1\"\n", 2 },
		{ "echo $((99999999999999999999))", "sh: arithmetic expression: bad number: \"99999999999999999999\"\n", 2 },
	};
	SH_CASES(t);
}

/* case (POSIX 2.9.4.3). */
UT_CASE(t_sh_case)
{
	static const struct shcase t[] = {
		{ "case abc in a*) echo ok;; esac", "ok\n", 0 },
		{ "for f in x.c y.h z.o; do case $f in *.c|*.h) echo src $f;; *) echo other $f;; esac; done",
		  "src x.c\nsrc y.h\nother z.o\n", 0 },
		{ "case '*' in \"*\") echo star;; esac; case abc in \"a*\") echo no;; a\\*) echo no;; ?b?) echo q;; esac", "star\nq\n", 0 },
		{ "case z in [a-y]) echo no;; [!a-y]) echo notay;; esac", "notay\n", 0 },
		{ "case x in (x) echo paren; esac", "paren\n", 0 },
		{ "case nomatch in a) echo a;; esac; echo $?", "0\n", 0 },
		{ "case a in a) ;; esac; echo empty $?", "empty 0\n", 0 },
		{ "v=hello; case $v in\n  h*)\n    echo multi\n    ;;\nesac", "multi\n", 0 },
		{ "case a in a) echo x", "sh: syntax error: unexpected end of file (expecting \";;\")\n", 2 },
	};
	SH_CASES(t);
}

/* Functions (POSIX 2.9.5). */
UT_CASE(t_sh_func)
{
	static const struct shcase t[] = {
		{ "f() { echo ok; }; f", "ok\n", 0 },
		{ "f() { echo $# \"$1\" \"$@\"; }; f a 'b c'; f", "2 a a b c\n0 \n", 0 },
		{ "f() { return 3; echo no; }; f; echo $?", "3\n", 0 },
		{ "fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(($1-1))) )); fi; }; fact 6", "720\n", 0 },
		{ "set -- out; f() { echo in $1; }; f arg; echo $1", "in arg\nout\n", 0 },
		{ "f() { echo one; }; f() { echo two; }; f; unset -f f; f", "two\nsh: f: not found\n", 127 },
		{ "f()\n{\n  echo braces on lines\n}\nf", "braces on lines\n", 0 },
		{ "f() { echo piped; }; f | cat", "piped\n", 0 },
		{ "f() { echo to stderr >&2; }; f 2>&1 | cat", "to stderr\n", 0 },
		{ "cd /; f() ( cd /etc; pwd ); f; pwd", "/etc\n/\n", 0 },
		{ "f() { for i in 1 2 3; do [ $i = 2 ] && return $i; done; }; f; echo $?", "2\n", 0 },
		{ "X=1 f() { :; }", "sh: syntax error: \"(\" unexpected\n", 2 },
	};
	SH_CASES(t);
}

/* Parameter expansion (POSIX 2.6.2) and field splitting (2.6.5). */
UT_CASE(t_sh_param)
{
	static const struct shcase t[] = {
		{ "x=val; HOME=/h; echo ${x} ${x}s ${#x} ${HOME:-none} ${nope:-none} ${nope-dash}", "val vals 3 /h none dash\n", 0 },
		{ "e=; echo [${e-d}] [${e:-c}] [${e+p}] [${e:+cp}] [${nope+p}]", "[] [c] [p] [] []\n", 0 },
		{ "echo ${a:=first} $a; echo ${a:=second} $a; e=; echo ${e=no}[$e]", "first first\nfirst first\n[]\n", 0 },
		{ "f=/usr/lib/file.tar.gz; echo ${f##*/} ${f%.*} ${f%%.*} ${f#/*/}", "file.tar.gz /usr/lib/file.tar /usr/lib/file lib/file.tar.gz\n", 0 },
		{ "set -- a 'b c' ''; for x in \"$@\"; do echo \"[$x]\"; done; echo $# ${#}", "[a]\n[b c]\n[]\n3 3\n", 0 },
		{ "set -- a 'b c'; echo \"$*\"; IFS=,; echo \"$*\"", "a b c\na,b c\n", 0 },
		{ "set --; for x in \"$@\"; do echo never; done; echo none", "none\n", 0 },
		{ "x='a  b   c'; echo $x; echo \"$x\"", "a b c\na  b   c\n", 0 },
		{ "y=',a,,b,'; IFS=,; for f in $y; do echo \"<$f>\"; done", "<>\n<a>\n<>\n<b>\n", 0 },
		{ "echo ${nope:?is missing}; echo not reached", "sh: nope: is missing\n", 2 },
		{ "echo ${nope?}", "sh: nope: parameter not set\n", 2 },
		{ "set -- 1 2 3 4 5 6 7 8 9 10; echo ${10} $10", "10 10\n", 0 },
		{ "echo ${x:bad}", "sh: ${x:bad}: bad substitution\n", 2 },
		{ "echo ${x", "sh: syntax error: unexpected end of file (\"${\" without \"}\")\n", 2 },
	};
	SH_CASES(t);
}

/* Here-documents (POSIX 2.7.4). */
UT_CASE(t_sh_heredoc)
{
	static const struct shcase t[] = {
		{ "n=5; cat <<EOF\nline $n $((n+1)) `echo bq`\n  \\$n\nEOF\necho after", "line 5 6 bq\n  $n\nafter\n", 0 },
		{ "cat <<'EOF'\nno $expansion `here`\nEOF", "no $expansion `here`\n", 0 },
		{ "cat <<\"E\"\n$x\nE", "$x\n", 0 },
		{ "cat <<-EOF\n\t\ttabs go\n\tEOF", "tabs go\n", 0 },
		{ "cat <<A; cat <<B\none\nA\ntwo\nB", "one\ntwo\n", 0 },
		{ "for i in 1 2; do cat <<EOF\nloop $i\nEOF\ndone", "loop 1\nloop 2\n", 0 },
		{ "f() { cat <<EOF\nin function $1\nEOF\n}; f x; f y", "in function x\nin function y\n", 0 },
		{ "i=0; while [ $i -lt 300 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done > /tmp/ut/sh/big;"
		  "eval \"cat <<EOF\n$(cat /tmp/ut/sh/big)\nEOF\" | wc -c", "   12300\n", 0 },
		{ "cat <<EOF\nno end", "sh: syntax error: unexpected end of file (here-document without its \"EOF\" line)\n", 2 },
	};
	SH_CASES(t);
}

/* set -e, -u, -x, -f, -- and $- (POSIX 2.14 set). */
UT_CASE(t_sh_set)
{
	static const struct shcase t[] = {
		{ "set -e; echo before; false; echo not reached", "before\n", 1 },
		{ "set -e; false || echo ored; ! true; if false; then :; fi; while false; do :; done; false && :; echo survived",
		  "ored\nsurvived\n", 0 },
		{ "set -e; (false); echo not reached", "", 1 },
		{ "set -e; f() { return 4; }; f; echo not reached", "", 4 },
		{ "set -x; echo traced $((1+1)); x=1", "+ echo traced 2\ntraced 2\n+ x=1\n", 0 },
		{ "set -u; echo ${nope:-ok}; echo $nope; echo not reached", "ok\nsh: nope: parameter not set\n", 2 },
		{ "set -- a b c; echo $# $2; set --; echo $#", "3 b\n0\n", 0 },
		{ "set -ex; echo $-; set +ex; echo [$-]", "+ echo ex\nex\n+ set +ex\n[]\n", 0 },
		{ "set -q", "sh: set: -q: unknown option (known: -e -f -u -x)\n", 2 },
	};
	SH_CASES(t);
}

/* . and source (POSIX 2.14 dot). */
UT_CASE(t_sh_source)
{
	static const struct shcase t[] = {
		{ "echo 'sv=set; echo sourced $# $1' > /tmp/ut/sh/inc; . /tmp/ut/sh/inc a; echo $sv", "sourced 1 a\nset\n", 0 },
		{ "source /tmp/ut/sh/inc; f() { . /tmp/ut/sh/inc; }; f x y", "sourced 0\nsourced 2 x\n", 0 },
		{ "echo 'echo one; return 5; echo no' > /tmp/ut/sh/ret; . /tmp/ut/sh/ret; echo $?", "one\n5\n", 0 },
		{ "cd /; PATH=/tmp/ut/sh:/bin; . inc", "sourced 0\n", 0 },
		{ ". /tmp/ut/sh/none", "sh: .: /tmp/ut/sh/none: No such file or directory\n", 1 },
	};
	SH_CASES(t);
}

/* read (POSIX XCU read). */
UT_CASE(t_sh_read)
{
	static const struct shcase t[] = {
		{ "echo 'one two three' | { read a b; echo \"[$a][$b]\"; }", "[one][two three]\n", 0 },
		{ "echo 'x:y:z' | { IFS=: read a b c; echo \"$a|$b|$c\"; }", "x|y|z\n", 0 },
		{ "echo 'a\\tb' | { read -r r; echo \"$r\"; }", "a\\tb\n", 0 },
		{ "echo 'a\\tb' | { read s; echo \"$s\"; }", "atb\n", 0 },
		{ "for i in 1 2 3; do echo $i; done > /tmp/ut/sh/lines; while read n; do echo got $n; done < /tmp/ut/sh/lines",
		  "got 1\ngot 2\ngot 3\n", 0 },
		{ "read x < /dev/null; echo $? [$x]", "1 []\n", 0 },
		{ "read", "sh: read: usage: read [-r] name ...\n", 2 },
	};
	SH_CASES(t);
}

/* Scripts: sh file args, #!, and errors on a later line. */
UT_CASE(t_sh_script)
{
	static const struct shcase t[] = {
		{ "echo 'echo script $0 $# \"$@\"; exit 4' > /tmp/ut/sh/s1; sh /tmp/ut/sh/s1 p 'q r'", "script /tmp/ut/sh/s1 2 p q r\n", 4 },
		{ "cat > /tmp/ut/sh/s2 <<'E'\n#!/bin/sh\necho shebang $1\nE\nchmod +x /tmp/ut/sh/s2; /tmp/ut/sh/s2 x", "shebang x\n", 0 },
		{ "cat > /tmp/ut/sh/s3 <<'E'\necho first\nfi\necho never\nE\nsh /tmp/ut/sh/s3",
		  "first\nsh: syntax error: \"fi\" unexpected\n", 2 },
		{ "cat > /tmp/ut/sh/s4 <<'E'\nf() {\n  echo multi-line $1\n}\nf ok\nE\nsh /tmp/ut/sh/s4", "multi-line ok\n", 0 },
		{ "sh /tmp/ut/sh/none", "sh: /tmp/ut/sh/none: No such file or directory\n", 127 },
		{ "cat > /tmp/ut/sh/s5 <<'E'\necho $((1/0))\necho never\nE\nsh /tmp/ut/sh/s5; echo status $?",
		  "sh: arithmetic expression: division by zero: \"1/0\"\nstatus 2\n", 0 },
	};
	SH_CASES(t);
}

/* Syntax errors: a message naming the problem, status 2, never a crash. */
UT_CASE(t_sh_errors)
{
	static const struct shcase t[] = {
		{ "echo 'unterminated", "sh: syntax error: unterminated quoted string\n", 2 },
		{ "echo \"unterminated", "sh: syntax error: unterminated quoted string\n", 2 },
		{ "echo $(echo a", "sh: syntax error: unexpected end of file (\"$(\" without \")\")\n", 2 },
		{ "echo `echo a", "sh: syntax error: unexpected end of file (\"`\" without its closing \"`\")\n", 2 },
		{ "echo a; done", "sh: syntax error: \"done\" unexpected\n", 2 },
		{ "if true; echo x; fi", "sh: syntax error: \"fi\" unexpected (expecting \"then\")\n", 2 },
		{ "while true; do", "sh: syntax error: unexpected end of file (expecting \"done\")\n", 2 },
		{ "echo a |", "sh: syntax error: unexpected end of file\n", 2 },
		{ "f() echo", "sh: syntax error: \"echo\" unexpected (expecting \"{\")\n", 2 },
	};
	SH_CASES(t);
}

/* break, continue, until, !, { }, ( ) and eval (POSIX 2.9.4, 2.14). */
UT_CASE(t_sh_control)
{
	static const struct shcase t[] = {
		{ "break", "sh: break: not in a loop\n", 1 },
		{ "for i in 1 2 3; do for j in a b; do [ $j = b ] && continue 2; [ $i = 3 ] && break 2; echo $i$j; done; done",
		  "1a\n2a\n", 0 },
		{ "until [ \"$x\" = aaa ]; do x=${x}a; done; echo $x", "aaa\n", 0 },
		{ "! true; echo $?; ! false; echo $?", "1\n0\n", 0 },
		{ "x=1; { x=2; }; echo $x; (x=3); echo $x", "2\n2\n", 0 },
		{ "eval 'echo evaled; x=$((2+2))'; echo $x", "evaled\n4\n", 0 },
	};
	SH_CASES(t);
}

/* ${x%pat} and friends inside double quotes (POSIX 2.6.2): the quotes do not quote the pattern. */
UT_CASE(t_sh_pattern)
{
	static const struct shcase t[] = {
		{ "f=dir/file.tar.gz; echo \"${f%.*}\" \"${f%%.*}\" \"${f#*/}\" \"${f##*.}\"", "dir/file.tar dir/file file.tar.gz gz\n", 0 },
		{ "p=/a/b/c; base=\"${p##*/}\"; dir=\"${p%/*}\"; echo \"$base\" \"$dir\"", "c /a/b\n", 0 },
		{ "x='a*b*c'; echo \"${x%'*'*}\" \"${x%\"*\"*}\" \"${x%\\**}\" \"${x%*}\"", "a*b a*b a*b a*b*c\n", 0 },
		{ "prefix='a*'; x=abcd; echo \"${x#\"$prefix\"}\" \"${x#$prefix}\" \"${x#'a'}\"", "abcd bcd bcd\n", 0 },
		{ "x='a  b'; y=\"${x#a}\"; echo \"[$y]\"", "[  b]\n", 0 },
		{ "set -u; echo \"${nope%x}\"; echo never", "sh: nope: parameter not set\n", 2 },
	};
	SH_CASES(t);
}

/* NAME=value words are made left to right, each seeing the ones before it (POSIX 2.9.1). */
UT_CASE(t_sh_assign)
{
	static const struct shcase t[] = {
		{ "a=1 b=$a; echo $b", "1\n", 0 },
		{ "n=5; n=$((n+1)) m=$n; echo $n $m", "6 6\n", 0 },
		{ "a=1 b=$a sh -c 'echo $a $b'; echo \"[$a][$b]\"", "1 1\n[][]\n", 0 },
		{ "f() { echo \"$a $b\"; }; a=2 b=$a f; echo \"[$a][$b]\"; a=3 b=$a :; echo $a $b", "2 2\n[][]\n3 3\n", 0 },
		{ "x=$(echo sub) y=$x; echo $y", "sub\n", 0 },
		{ "readonly r=1; a=1 r=2 b=3; echo never", "sh: r: is read only\n", 2 },
	};
	SH_CASES(t);
}

/* shift past the end ends a script (status 2), as in FreeBSD's sh and dash; not through `command`. */
UT_CASE(t_sh_shift)
{
	static const struct shcase t[] = {
		{ "set -- a b c; shift 2; echo $# $1; shift; echo $#", "1 c\n0\n", 0 },
		{ "set -- a b; shift 3; echo never", "sh: shift: can't shift that many\n", 2 },
		{ "set -- a; shift x; echo never", "sh: shift: x: bad number\n", 2 },
		{ "set -- a b; command shift 3; echo after $? $#", "sh: shift: can't shift that many\nafter 2 2\n", 0 },
		{ "f() { shift 2; echo in f; }; f a; echo never", "sh: shift: can't shift that many\n", 2 },
	};
	SH_CASES(t);
}

/* trap (POSIX 2.14 trap, 2.11): EXIT, signals, ignoring, resetting, subshells, wait. */
UT_CASE(t_sh_trap)
{
	static const struct shcase t[] = {
		{ "trap 'echo bye' EXIT; trap 'echo int' INT; trap; trap - INT; trap; echo end",
		  "trap -- 'echo bye' EXIT\ntrap -- 'echo int' INT\ntrap -- 'echo bye' EXIT\nend\nbye\n", 0 },
		{ "trap 'echo e; exit 7' EXIT; exit 4", "e\n", 7 },
		{ "trap 'echo status $?' 0; false", "status 1\n", 1 },
		{ "trap 'echo e' EXIT; echo $((1/0))", "sh: arithmetic expression: division by zero: \"1/0\"\ne\n", 2 },
		{ "trap 'echo t' TERM; kill -TERM $$; echo after", "t\nafter\n", 0 },
		{ "trap 'echo caught' INT; kill -INT $$; echo after $?", "caught\nafter 0\n", 0 },
		{ "trap 'echo a' USR1; trap - USR1; kill -USR1 $$; echo never", "", 128 + SIGUSR1 },
		{ "trap 'echo a' USR1 USR2; trap 1 USR2 USR1; trap; echo none", "none\n", 0 },
		{ "trap '' TERM; sh -c 'kill -TERM $$; echo child alive'; trap", "child alive\ntrap -- '' TERM\n", 0 },
		{ "trap 'echo sub' EXIT; (echo in); x=$(echo cs); echo main $x", "in\nmain cs\nsub\n", 0 },
		{ "(trap 'echo subexit' EXIT; echo in); echo main", "in\nsubexit\nmain\n", 0 },
		{ "trap 'echo usr1; exit 3' USR1; (sleep 0.2; kill -USR1 $$) & while :; do :; done", "usr1\n", 3 },
		{ "trap 'echo term' TERM; sleep 2 > /dev/null 2>&1 & p=$!; (sleep 0.2; kill -TERM $$) & wait $p; echo wait $?",
		  "term\nwait 143\n", 0 },
		{ "trap 'echo x' FOO USR1; echo $?; trap", "sh: trap: bad signal FOO\n1\ntrap -- 'echo x' USR1\n", 0 },
		{ "trap 'echo k' KILL; echo $?", "sh: trap: cannot trap KILL\n1\n", 0 },
		{ "trap 'echo x'", "sh: trap: usage: trap [action condition ...]\n", 2 },
	};
	SH_CASES(t);
}

/* getopts (POSIX XCU getopts; FreeBSD's messages). */
UT_CASE(t_sh_getopts)
{
	static const struct shcase t[] = {
		{ "set -- -a -b arg -cval rest; while getopts ab:c: o; do echo \"$o [$OPTARG] $OPTIND\"; done; "
		  "shift $((OPTIND-1)); echo \"rest: $*\"", "a [] 2\nb [arg] 4\nc [val] 5\nrest: rest\n", 0 },
		{ "set -- -ab -- -c; while getopts ab o; do echo $o $OPTIND; done; echo end $OPTIND", "a 2\nb 2\nend 3\n", 0 },
		{ "set -- -x -c; while getopts ab:c: o; do echo \"$o [$OPTARG] $OPTIND\"; done",
		  "Illegal option -x\n? [] 2\nNo arg for -c option\n? [] 3\n", 0 },
		{ "set -- -x -c; while getopts :ab:c: o; do echo \"$o [$OPTARG] $OPTIND\"; done", "? [x] 2\n: [c] 3\n", 0 },
		{ "getopts a o -a; echo $o $?; OPTIND=1; getopts a o -a; echo $o $?; getopts a o -a; echo $o $?",
		  "a 0\na 0\n? 1\n", 0 },
		{ "f() { while getopts v o; do echo opt $o; done; echo args $#; }; f -v x", "opt v\nargs 2\n", 0 },
		{ "getopts", "sh: getopts: usage: getopts optstring name [arg ...]\n", 2 },
		{ "getopts ab 1x", "sh: getopts: 1x: bad variable name\n", 2 },
	};
	SH_CASES(t);
}

/* command (POSIX XCU command): -v, -V, and running a command without functions. */
UT_CASE(t_sh_command)
{
	static const struct shcase t[] = {
		{ "f() { :; }; command -v f cd ls if shift", "f\ncd\n/bin/ls\nif\nshift\n", 0 },
		{ "f() { :; }; command -V f cd ls if shift exec",
		  "f is a shell function\ncd is a shell builtin\nls is /bin/ls\nif is a shell keyword\n"
		  "shift is a special shell builtin\nexec is a special shell builtin\n", 0 },
		{ "command -v nosuch; echo $?; command -V nosuch; echo $?", "127\nnosuch: not found\n127\n", 0 },
		{ "ls() { echo func; }; command ls -d /; ls", "/\nfunc\n", 0 },
		{ "PATH=/nowhere; command -p ls -d /etc; command -v ls; st=$?; PATH=/bin; echo $st", "/etc\n127\n", 0 },
		{ "x=1 command eval 'echo $x'; echo \"[$x]\"; y=2 eval :; echo \"[$y]\"", "1\n[]\n[2]\n", 0 },
		{ "command; echo $?", "0\n", 0 },
		{ "command -x ls", "sh: command: usage: command [-p] [-v | -V] name ...\n", 2 },
	};
	SH_CASES(t);
}

/* readonly (POSIX 2.14 readonly): a value that cannot change, listed by readonly -p. */
UT_CASE(t_sh_readonly)
{
	static const struct shcase t[] = {
		{ "readonly x=1 y; readonly; readonly -p | wc -l; echo $x", "readonly x='1'\nreadonly y\n       2\n1\n", 0 },
		{ "readonly x=1; x=2; echo never", "sh: x: is read only\n", 2 },
		{ "readonly x=1; unset x; echo never", "sh: unset: x: is read only\n", 2 },
		{ "readonly x=1; export x=3; echo never", "sh: x: is read only\n", 2 },
		{ "readonly x=1; for x in a; do :; done; echo never", "sh: x: is read only\n", 2 },
		{ "readonly x=1; echo $((x = 4)); echo never", "sh: x: is read only\n", 2 },
		{ "readonly x=1; read x < /dev/null; echo after $? $x", "sh: read: x: is read only\nafter 2 1\n", 0 },
		{ "readonly 1a=3; echo $?", "sh: readonly: 1a: bad variable name\n1\n", 0 },
		{ "y=5; readonly y; export y; sh -c 'echo $y'", "5\n", 0 },
	};
	SH_CASES(t);
}
