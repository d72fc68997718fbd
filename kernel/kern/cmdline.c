/* Kernel command-line parsing (see cmdline.h). */
#include "kern/cmdline.h"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *cmdline_skip_kernel_path(const char *line)
{
	const char *end = line;
	int is_path = 0;
	for (; *end && !is_space(*end); end++) {
		if (*end == '=')
			return line;
		if (*end == '/')
			is_path = 1;
	}
	if (!is_path)
		return line;
	while (is_space(*end))
		end++;
	return end;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int cmdline_parse(const char *line, struct cmdline *cl)
{
	size_t n = 0;
	cl->truncated = 0;
	while (line[n] && n < CMDLINE_MAX - 1) {
		cl->storage[n] = line[n];
		n++;
	}
	if (line[n])
		cl->truncated = 1;
	cl->storage[n] = 0;
	cl->nargs = 0;
	char *p = cl->storage;
	for (;;) {
		while (is_space(*p))
			*p++ = 0;
		if (*p == 0)
			break;
		char *word = p;
		while (*p && !is_space(*p))
			p++;
		if (*p)
			*p++ = 0;
		if (cl->nargs == CMDLINE_NARGS) {
			cl->truncated = 1;
			break;
		}
		char *eq = word;
		while (*eq && *eq != '=')
			eq++;
		struct bootarg *a = &cl->args[cl->nargs++];
		a->key = word;
		if (*eq) {
			*eq = 0;
			a->value = eq + 1;
		} else
			a->value = eq;           /* the empty string */
	}
	return cl->nargs;
}

const char *cmdline_get(const struct cmdline *cl, const char *key)
{
	const char *v = 0;
	for (int i = 0; i < cl->nargs; i++)
		if (same(cl->args[i].key, key))
			v = cl->args[i].value;   /* the last one wins */
	return v;
}
