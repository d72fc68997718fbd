/*
 * usertests.h: the framework shared by the usertests cases (xv6 usertests-style).
 * Each case is a function run in its own child process; it reports a problem with
 * FAILF(...) (first failure wins, the case returns) and passes if it returns without one.
 * A case killed by a signal fails with that signal. Cases live in ut_*.c, listed in usertests.c.
 */
#ifndef USERTESTS_H
#define USERTESTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <time.h>

/* Record the case's failure (printed as "FAIL name: ..."). */
void ut_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int  ut_failed(void);

#define FAILF(...) do { ut_fail(__VA_ARGS__); return; } while (0)
#define CHECK(cond, ...) do { if (!(cond)) FAILF(__VA_ARGS__); } while (0)

/* r must be -1 with errno == err; else the case fails, naming what was called. */
#define EXPECT_ERR(call, err) do { \
	errno = 0; \
	long r_ = (long)(call); \
	if (r_ != -1 || errno != (err)) \
		FAILF("%s: expected -1 with %s, got %ld with %s", #call, ut_errname(err), r_, \
		      r_ == -1 ? ut_errname(errno) : "no error"); \
} while (0)

const char *ut_errname(int e);                   /* "EFAULT" */
void ut_fill(unsigned char *p, size_t n, unsigned long long off, unsigned seed);  /* pattern */
int  ut_verify(const unsigned char *p, size_t n, unsigned long long off, unsigned seed);
int  ut_writeall(int fd, const void *p, size_t n);   /* 0, or -1 with errno */
int  ut_mkfile(const char *path, const char *text);  /* a 0644 file holding text: 0 or -1 */
int  ut_copyfile(const char *from, const char *to);  /* a 0755 copy (mode umask aside): 0 or -1 */
int  ut_readfile(const char *path, char *buf, size_t size);  /* at most size-1 bytes and a NUL */
pid_t ut_waitexit(pid_t pid, int *code);         /* waitpid; *code = exit code or 128+signal */
void ut_rmtree(const char *path);                /* rm -rf, quietly */

/* The cases (each file's list). */
#define UT_CASE(fn) void fn(void)
UT_CASE(t_fork_wait); UT_CASE(t_exit_status); UT_CASE(t_exec_args); UT_CASE(t_exec_env);
UT_CASE(t_exec_badelf); UT_CASE(t_exec_bigargs); UT_CASE(t_exec_enoent); UT_CASE(t_forkall); UT_CASE(t_wait_nochild);
UT_CASE(t_kill); UT_CASE(t_kill_esrch); UT_CASE(t_getppid); UT_CASE(t_pgrp); UT_CASE(t_sbrk); UT_CASE(t_sbrk_huge);
UT_CASE(t_stack); UT_CASE(t_segregs); UT_CASE(t_segv); UT_CASE(t_text_ro); UT_CASE(t_text_busy);
UT_CASE(t_pipe_data); UT_CASE(t_pipe_eof); UT_CASE(t_pipe_sigpipe); UT_CASE(t_pipe_close_read);
UT_CASE(t_badptr); UT_CASE(t_badfd);
UT_CASE(t_openmany); UT_CASE(t_bigdir); UT_CASE(t_bigfile); UT_CASE(t_lseek64); UT_CASE(t_rename);
UT_CASE(t_link_unlink); UT_CASE(t_unlink_open); UT_CASE(t_rmdir); UT_CASE(t_o_excl); UT_CASE(t_o_append);
UT_CASE(t_o_trunc); UT_CASE(t_ftruncate); UT_CASE(t_concurrent); UT_CASE(t_cwd); UT_CASE(t_dup);
UT_CASE(t_eisdir); UT_CASE(t_getdents); UT_CASE(t_utimes);
UT_CASE(t_statfs); UT_CASE(t_getfsstat); UT_CASE(t_mount_errors); UT_CASE(t_mount_update);
UT_CASE(t_creds); UT_CASE(t_perm_access); UT_CASE(t_perm_sticky); UT_CASE(t_setuid);
UT_CASE(t_setuid_rewrite); UT_CASE(t_umask);
UT_CASE(t_symlink); UT_CASE(t_symlink_loop); UT_CASE(t_fifo); UT_CASE(t_devnode); UT_CASE(t_truncate); UT_CASE(t_flock);
UT_CASE(t_random);
UT_CASE(t_socketpair); UT_CASE(t_sock_stream); UT_CASE(t_sock_nonblock); UT_CASE(t_sock_dgram);
UT_CASE(t_sock_limits); UT_CASE(t_poll);
UT_CASE(t_time); UT_CASE(t_timegm); UT_CASE(t_nanosleep); UT_CASE(t_wakeup_preempt); UT_CASE(t_light_first); UT_CASE(t_sysctl); UT_CASE(t_sysctl_next); UT_CASE(t_kern_proc);
UT_CASE(t_sysctl_values);
UT_CASE(t_printf); UT_CASE(t_strtol); UT_CASE(t_malloc); UT_CASE(t_qsort);
UT_CASE(t_mmap_anon); UT_CASE(t_mmap_badargs); UT_CASE(t_munmap_badargs); UT_CASE(t_mprotect);
UT_CASE(t_msync_badargs); UT_CASE(t_mmap_file); UT_CASE(t_mmap_eof); UT_CASE(t_mmap_eof_grow); UT_CASE(t_cow_fork); UT_CASE(t_mmap_anon_shared);
UT_CASE(t_faults); UT_CASE(t_mmap_overlap); UT_CASE(t_getrusage_badargs); UT_CASE(t_swapon_errors);
UT_CASE(t_sh_glob); UT_CASE(t_sh_subst); UT_CASE(t_sh_arith); UT_CASE(t_sh_case); UT_CASE(t_sh_func);
UT_CASE(t_sh_param); UT_CASE(t_sh_heredoc); UT_CASE(t_sh_set); UT_CASE(t_sh_source); UT_CASE(t_sh_read);
UT_CASE(t_sh_script); UT_CASE(t_sh_errors); UT_CASE(t_sh_control); UT_CASE(t_sh_pattern); UT_CASE(t_sh_assign);
UT_CASE(t_sh_shift); UT_CASE(t_sh_trap); UT_CASE(t_sh_getopts); UT_CASE(t_sh_command); UT_CASE(t_sh_readonly);
UT_CASE(t_sig_handler); UT_CASE(t_sig_ignore_exec); UT_CASE(t_sig_mask); UT_CASE(t_sig_eintr);
UT_CASE(t_sig_kill_fault); UT_CASE(t_sig_killpg); UT_CASE(t_sig_dflag);

#endif
