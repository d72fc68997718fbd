/* signame.c: signal names and descriptions (FreeBSD's sys_signame, sys_siglist) and name parsing for kill(1) (user/libc). */
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <ctype.h>

const char *const sys_signame[NSIG] = {
	[SIGHUP] = "hup",   [SIGINT] = "int",   [SIGQUIT] = "quit", [SIGILL] = "ill",
	[SIGTRAP] = "trap", [SIGABRT] = "abrt", [SIGFPE] = "fpe",   [SIGKILL] = "kill",
	[SIGBUS] = "bus",   [SIGSEGV] = "segv", [SIGPIPE] = "pipe", [SIGALRM] = "alrm",
	[SIGTERM] = "term", [SIGUSR1] = "usr1", [SIGUSR2] = "usr2",
};

/* What each signal means, in FreeBSD's words (lib/libc/gen/siglist.c): what sh prints for a killed process. */
const char *const sys_siglist[NSIG] = {
	[SIGHUP] = "Hangup",          [SIGINT] = "Interrupt",     [SIGQUIT] = "Quit",
	[SIGILL] = "Illegal instruction", [SIGTRAP] = "Trace/BPT trap", [SIGABRT] = "Abort trap",
	[SIGFPE] = "Floating point exception", [SIGKILL] = "Killed", [SIGBUS] = "Bus error",
	[SIGSEGV] = "Segmentation fault", [SIGPIPE] = "Broken pipe", [SIGALRM] = "Alarm clock",
	[SIGTERM] = "Terminated",     [SIGUSR1] = "User defined signal 1",
	[SIGUSR2] = "User defined signal 2",
};

int signame_to_num(const char *name)
{
	char *end;
	long n;

	if (isdigit((unsigned char)*name)) {
		n = strtol(name, &end, 10);
		return *end || n < 0 || n >= NSIG ? -1 : (int)n;
	}
	if (strncasecmp(name, "sig", 3) == 0)
		name += 3;
	for (n = 1; n < NSIG; n++)
		if (sys_signame[n] && strcasecmp(sys_signame[n], name) == 0)
			return (int)n;
	return -1;
}
