/*
 * libutil.h: helpers above the system calls (user/libc), after FreeBSD's libutil.
 *
 *   kinfo_getallproc(&n)   the whole process table (sysctl kern.proc) in one malloc'd array of
 *                          n struct kinfo_proc (sys/sysctl.h); free() it. NULL with errno on
 *                          failure. FreeBSD's libutil has the same function (FreeBSD 7 and later).
 *   proc_running(pid)      process pid is in the table and not a zombie (1 if the table cannot
 *                          be read: a watcher keeps going); wdrain's own, for programs that work
 *                          while another runs (latprobe -p, memhog -w, reread -w).
 *
 * Line records (lib/linerec.c), for programs that write machine-readable lines to a device
 * they may share with others (sampler and latprobe on /dev/ttyd1): a line is built piece by
 * piece and sent with one write(2), so lines of different writers never mix; with a label
 * every line starts with "label,". A failed write is reported once on stderr.
 *   lr_open(path, label)   path NULL = stdout, else opened for appending (created if needed);
 *                          label may be NULL. -1 with errno on failure.
 *   lr_begin()  lr_printf(fmt, ...)  lr_end()     one line: start, add text, send
 *   lr_meta(fmt, ...)      one whole metadata line: "#" and the text
 *   monotonic_us()         CLOCK_MONOTONIC in microseconds
 *
 * File modes (lib/setmode.c), FreeBSD's setmode(3)/getmode(3) (declared in its unistd.h; here,
 * as the shell's line editor has a setmode of its own): chmod(1)'s modes, octal or symbolic.
 *   setmode(str)           check the mode str ("644", "u+x,go-w") and keep it with the umask
 *                          now: a set for getmode, free() it; NULL with errno EINVAL if bad
 *   getmode(set, mode)     mode with the set applied
 *
 * Periodic work (lib/ticker.c): a schedule of ticks every `ms` milliseconds from its start.
 *   ticker_ms(arg)         an interval option's value, 1 to 3600000 ms (errx otherwise)
 *   ticker_start(&t, ms)   the first tick is now
 *   ticker_wait(&t)        sleep until the next tick still ahead; ticks already past (the work
 *                          took longer than one interval) are skipped and counted in t.late
 */
#ifndef _LIBUTIL_H_
#define _LIBUTIL_H_

#include <sys/sysctl.h>

struct kinfo_proc *kinfo_getallproc(int *cntp);
int                proc_running(pid_t pid);

void  *setmode(const char *mode_str);
mode_t getmode(const void *set, mode_t mode);

int       lr_open(const char *path, const char *label);
void      lr_begin(void);
void      lr_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void      lr_end(void);
void      lr_meta(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long long monotonic_us(void);

struct ticker {
	long long start, step;   /* microseconds */
	long long k;             /* the tick waited for last */
	long      late;          /* ticks skipped */
};

long ticker_ms(const char *arg);
void ticker_start(struct ticker *t, long ms);
void ticker_wait(struct ticker *t);

#endif
