/*
 * The kernel command line: words of the form key=value (a word without '=' is a flag with an
 * empty value). Pure code (host unit tests compile it): no kernel headers.
 *   cmdline_skip_kernel_path(line) - QEMU's -kernel passes the kernel's path as the first word
 *       and GRUB does not: skip a first word that has a '/' and no '='.
 *   cmdline_parse(line, args, max) - split into at most max entries; returns how many. Keys and
 *       values point into args->storage (a copy of the line), so `line` may go away.
 *   cmdline_get(args, key)         - the value for key, or NULL.
 */
#ifndef _KERN_CMDLINE_H_
#define _KERN_CMDLINE_H_

#include <stddef.h>

#define CMDLINE_MAX   1024
#define CMDLINE_NARGS 64

struct bootarg {
	const char *key;
	const char *value;
};

struct cmdline {
	char           storage[CMDLINE_MAX];
	struct bootarg args[CMDLINE_NARGS];
	int            nargs;
	int            truncated;       /* the line was longer than CMDLINE_MAX or had too many words */
};

const char *cmdline_skip_kernel_path(const char *line);
int         cmdline_parse(const char *line, struct cmdline *cl);
const char *cmdline_get(const struct cmdline *cl, const char *key);

#endif
