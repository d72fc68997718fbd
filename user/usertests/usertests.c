/*
 * usertests: many small tests of the system call interface and the libc, xv6-style.
 *   usertests            run every case
 *   usertests name ...   run only those
 * Each case prints `PASS name` or `FAIL name: what was expected and what happened`; the last
 * line is `usertests: N passed, N failed`, and the exit status is 1 if any case failed.
 * Every case runs in a child process, so a crash fails only that case. Scratch files go
 * under /tmp/ut.
 */
#include "usertests.h"
#include <stdarg.h>
#include <dirent.h>

static const struct ucase {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "fork_wait", t_fork_wait },           { "exit_status", t_exit_status },
	{ "exec_args", t_exec_args },           { "exec_env", t_exec_env },
	{ "exec_badelf", t_exec_badelf },       { "exec_bigargs", t_exec_bigargs },
	{ "exec_enoent", t_exec_enoent },
	{ "forkall", t_forkall },               { "wait_nochild", t_wait_nochild },
	{ "kill", t_kill },                     { "kill_esrch", t_kill_esrch },
	{ "getppid", t_getppid },               { "pgrp", t_pgrp },
	{ "sbrk", t_sbrk },
	{ "sbrk_huge", t_sbrk_huge },           { "stack", t_stack },
	{ "segregs", t_segregs },               { "segv", t_segv },
	{ "text_ro", t_text_ro },
	{ "pipe_data", t_pipe_data },           { "pipe_eof", t_pipe_eof },
	{ "pipe_sigpipe", t_pipe_sigpipe },     { "pipe_close_read", t_pipe_close_read },
	{ "badptr", t_badptr },                 { "badfd", t_badfd },
	{ "openmany", t_openmany },             { "bigdir", t_bigdir },
	{ "bigfile", t_bigfile },               { "lseek64", t_lseek64 },
	{ "rename", t_rename },                 { "link_unlink", t_link_unlink },
	{ "unlink_open", t_unlink_open },       { "rmdir", t_rmdir },
	{ "o_excl", t_o_excl },                 { "o_append", t_o_append },
	{ "o_trunc", t_o_trunc },               { "ftruncate", t_ftruncate },
	{ "concurrent", t_concurrent },         { "cwd", t_cwd },
	{ "dup", t_dup },                       { "eisdir", t_eisdir },
	{ "getdents", t_getdents },             { "utimes", t_utimes },
	{ "statfs", t_statfs },                 { "getfsstat", t_getfsstat },
	{ "mount_errors", t_mount_errors },     { "mount_update", t_mount_update },
	{ "creds", t_creds },                   { "perm_access", t_perm_access },
	{ "perm_sticky", t_perm_sticky },       { "setuid", t_setuid },
	{ "setuid_rewrite", t_setuid_rewrite }, { "text_busy", t_text_busy },
	{ "umask", t_umask },                   { "symlink", t_symlink },
	{ "symlink_loop", t_symlink_loop },     { "fifo", t_fifo },
	{ "truncate", t_truncate },             { "flock", t_flock },
	{ "random", t_random },                 { "devnode", t_devnode },
	{ "socketpair", t_socketpair },         { "sock_stream", t_sock_stream },
	{ "sock_nonblock", t_sock_nonblock },   { "sock_dgram", t_sock_dgram },
	{ "sock_limits", t_sock_limits },       { "poll", t_poll },
	{ "time", t_time },                     { "timegm", t_timegm },
	{ "nanosleep", t_nanosleep },           { "wakeup_preempt", t_wakeup_preempt },
	{ "light_first", t_light_first },
	{ "sysctl", t_sysctl },                 { "sysctl_next", t_sysctl_next },
	{ "kern_proc", t_kern_proc },           { "sysctl_values", t_sysctl_values },
	{ "printf", t_printf },                 { "strtol", t_strtol },
	{ "malloc", t_malloc },                 { "qsort", t_qsort },
	{ "mmap_anon", t_mmap_anon },           { "mmap_badargs", t_mmap_badargs },
	{ "munmap_badargs", t_munmap_badargs }, { "mprotect", t_mprotect },
	{ "msync_badargs", t_msync_badargs },   { "mmap_file", t_mmap_file },
	{ "mmap_eof", t_mmap_eof },             { "mmap_eof_grow", t_mmap_eof_grow },
	{ "cow_fork", t_cow_fork },             { "mmap_anon_shared", t_mmap_anon_shared },
	{ "faults", t_faults },                 { "mmap_overlap", t_mmap_overlap },
	{ "getrusage_badargs", t_getrusage_badargs }, { "swapon_errors", t_swapon_errors },
	{ "sh_glob", t_sh_glob },               { "sh_subst", t_sh_subst },
	{ "sh_arith", t_sh_arith },             { "sh_case", t_sh_case },
	{ "sh_func", t_sh_func },               { "sh_param", t_sh_param },
	{ "sh_heredoc", t_sh_heredoc },         { "sh_set", t_sh_set },
	{ "sh_source", t_sh_source },           { "sh_read", t_sh_read },
	{ "sh_script", t_sh_script },           { "sh_errors", t_sh_errors },
	{ "sh_control", t_sh_control },         { "sh_pattern", t_sh_pattern },
	{ "sh_assign", t_sh_assign },           { "sh_shift", t_sh_shift },
	{ "sh_trap", t_sh_trap },               { "sh_getopts", t_sh_getopts },
	{ "sh_command", t_sh_command },         { "sh_readonly", t_sh_readonly },
	{ "sig_handler", t_sig_handler },       { "sig_ignore_exec", t_sig_ignore_exec },
	{ "sig_mask", t_sig_mask },             { "sig_eintr", t_sig_eintr },
	{ "sig_kill_fault", t_sig_kill_fault }, { "sig_killpg", t_sig_killpg },
	{ "sig_dflag", t_sig_dflag },
	{ NULL, NULL },
};

static const char *curname;
static int curfailed;

void ut_fail(const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (curfailed++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("FAIL %s: %s\n", curname, msg);
	fflush(stdout);
}

int ut_failed(void) { return curfailed; }

const char *ut_errname(int e)
{
	static const char *const names[ELAST + 1] = {
		[0] = "0", [EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
		[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC",
		[EBADF] = "EBADF", [ECHILD] = "ECHILD", [ENOMEM] = "ENOMEM", [EACCES] = "EACCES",
		[EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST", [EXDEV] = "EXDEV",
		[ENODEV] = "ENODEV", [ENOTDIR] = "ENOTDIR", [EISDIR] = "EISDIR", [EINVAL] = "EINVAL",
		[ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ENOTTY] = "ENOTTY", [EFBIG] = "EFBIG",
		[ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE", [EROFS] = "EROFS", [EMLINK] = "EMLINK",
		[EPIPE] = "EPIPE", [ERANGE] = "ERANGE", [EAGAIN] = "EAGAIN",
		[ENAMETOOLONG] = "ENAMETOOLONG", [ENOTEMPTY] = "ENOTEMPTY", [ENOSYS] = "ENOSYS",
		[ENOTSUP] = "EOPNOTSUPP", [EOVERFLOW] = "EOVERFLOW", [ELOOP] = "ELOOP",
		[EFTYPE] = "EFTYPE", [ETXTBSY] = "ETXTBSY", [ENOTSOCK] = "ENOTSOCK",
		[EDESTADDRREQ] = "EDESTADDRREQ", [EMSGSIZE] = "EMSGSIZE", [EPROTOTYPE] = "EPROTOTYPE",
		[EPROTONOSUPPORT] = "EPROTONOSUPPORT", [EAFNOSUPPORT] = "EAFNOSUPPORT",
		[EADDRINUSE] = "EADDRINUSE", [ECONNRESET] = "ECONNRESET", [ENOBUFS] = "ENOBUFS",
		[EISCONN] = "EISCONN", [ENOTCONN] = "ENOTCONN", [ECONNREFUSED] = "ECONNREFUSED",
	};
	static char buf[16];

	if (e >= 0 && e <= ELAST && names[e])
		return names[e];
	snprintf(buf, sizeof buf, "errno %d", e);
	return buf;
}

/* A position-dependent byte pattern, so misplaced data is caught, not just lost data. */
static unsigned char patbyte(unsigned long long off, unsigned seed)
{
	unsigned long long x = (off >> 2) * 2654435761ULL + seed;

	return (unsigned char)((x >> 8) ^ (off & 3) * 0x55 ^ x);
}

void ut_fill(unsigned char *p, size_t n, unsigned long long off, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = patbyte(off + i, seed);
}

/* -1 if all bytes match, else the index of the first wrong one. */
int ut_verify(const unsigned char *p, size_t n, unsigned long long off, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != patbyte(off + i, seed))
			return (int)i;
	return -1;
}

int ut_writeall(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		s += w;
		n -= w;
	}
	return 0;
}

int ut_mkfile(const char *path, const char *text)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	if (ut_writeall(fd, text, strlen(text)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int ut_copyfile(const char *from, const char *to)
{
	static char buf[16384];
	int in = open(from, O_RDONLY), out = in < 0 ? -1 : open(to, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	ssize_t n = -1;

	if (out >= 0)
		while ((n = read(in, buf, sizeof buf)) > 0 && ut_writeall(out, buf, n) == 0)
			;
	if (in >= 0)
		close(in);
	if (out < 0 || close(out) < 0)
		return -1;
	return n == 0 ? 0 : -1;
}

int ut_readfile(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY), n;

	if (fd < 0) {
		buf[0] = 0;
		return -1;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

pid_t ut_waitexit(pid_t pid, int *code)
{
	int status;
	pid_t r = waitpid(pid, &status, 0);

	*code = -1;
	if (r > 0)
		*code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return r;
}

void ut_rmtree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char child[512];

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	while ((d = opendir(path))) {
		int removed = 0;
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(child, sizeof child, "%s/%s", path, de->d_name);
			ut_rmtree(child);
			removed = 1;
		}
		closedir(d);
		if (!removed)
			break;
	}
	rmdir(path);
}

/* Run one case in a child; 1 if it passed. */
static int runcase(const struct ucase *c)
{
	pid_t pid;
	int code;

	fflush(stdout);
	curname = c->name;
	if ((pid = fork()) < 0) {
		printf("FAIL %s: fork for the case failed: %s\n", c->name, strerror(errno));
		return 0;
	}
	if (pid == 0) {
		curfailed = 0;
		c->fn();
		fflush(stdout);
		exit(curfailed ? 1 : 0);
	}
	if (ut_waitexit(pid, &code) < 0) {
		printf("FAIL %s: waitpid: %s\n", c->name, strerror(errno));
		return 0;
	}
	if (code == 0) {
		printf("PASS %s\n", c->name);
		return 1;
	}
	if (code > 128)
		printf("FAIL %s: the case was killed by signal %d\n", c->name, code - 128);
	else if (code != 1)
		printf("FAIL %s: the case exited with status %d\n", c->name, code);
	return 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	mkdir("/tmp", 0777);
	ut_rmtree("/tmp/ut");
	if (mkdir("/tmp/ut", 0777) < 0) {
		printf("usertests: cannot make /tmp/ut: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const struct ucase *c;
		for (c = cases; c->name && strcmp(c->name, argv[i]) != 0; c++)
			;
		if (!c->name) {
			fprintf(stderr, "usertests: no case named %s\nusage: usertests [case ...]\ncases:", argv[i]);
			for (c = cases; c->name; c++)
				fprintf(stderr, " %s", c->name);
			fprintf(stderr, "\n");
			return 2;
		}
	}
	for (const struct ucase *c = cases; c->name; c++) {
		int wanted = argc == 1;
		for (int i = 1; i < argc; i++)
			wanted |= strcmp(argv[i], c->name) == 0;
		if (!wanted)
			continue;
		if (runcase(c))
			passed++;
		else
			failed++;
	}
	ut_rmtree("/tmp/ut");
	printf("usertests: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
