/*
 * var.c: shell variables and positional parameters (POSIX 2.5).
 *
 *   getvar(name), getvarn(name, len)   the value, or NULL if unset
 *   setvar(name, value, flags)         value NULL changes only the flags (export NAME,
 *                                      readonly NAME); a readonly variable's value cannot
 *                                      change: "sh: x: is read only" and -1 (sh_error: POSIX
 *                                      2.8.1 makes it an error that ends a script)
 *   unsetvar(name)                     -1 (and nothing done) for a readonly variable
 *   isreadonly(name)
 *   makeenv(extra, n)                  the environment for exec: exported variables, and the
 *                                      command's own NAME=value words overriding them
 *   listvars(which)                    `set`, `export` and `readonly` with no operands
 *   setparams, saveparams, restoreparams   $1 ... (set --, function calls, . file args)
 *
 * Variables are a plain list, newest first: a shell has a few dozen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "sh.h"

struct var {
	char       *name, *value;   /* value NULL: declared (export X) but unset */
	int         flags;          /* V_EXPORT, V_READONLY */
	struct var *next;
};

static struct var *vars;
struct words posparams;

static struct var *findvar(const char *name, size_t len)
{
	for (struct var *v = vars; v; v = v->next)
		if (strlen(v->name) == len && strncmp(v->name, name, len) == 0)
			return v;
	return NULL;
}

const char *getvarn(const char *name, size_t len)
{
	struct var *v = findvar(name, len);

	return v ? v->value : NULL;
}

const char *getvar(const char *name)
{
	return getvarn(name, strlen(name));
}

int setvar(const char *name, const char *value, int flags)
{
	struct var *v = findvar(name, strlen(name));

	if (v && (v->flags & V_READONLY) && value) {
		sh_error("%s: is read only", name);
		return -1;
	}
	if (!v) {
		v = xmalloc(sizeof *v);
		v->name = xstrdup(name);
		v->value = NULL;
		v->flags = 0;
		v->next = vars;
		vars = v;
	}
	if (value) {
		char *old = v->value;
		v->value = xstrdup(value);   /* value may point into old: copy first */
		free(old);
	}
	v->flags |= flags;
	return 0;
}

int isreadonly(const char *name)
{
	struct var *v = findvar(name, strlen(name));

	return v && (v->flags & V_READONLY);
}

int unsetvar(const char *name)
{
	for (struct var **pp = &vars; *pp; pp = &(*pp)->next) {
		if (strcmp((*pp)->name, name) == 0) {
			struct var *v = *pp;
			if (v->flags & V_READONLY)
				return -1;
			*pp = v->next;
			free(v->name);
			free(v->value);
			free(v);
			return 0;
		}
	}
	return 0;
}

int isname(const char *s, size_t len)
{
	if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* Is "NAME=..." in extra? */
static int overridden(const struct var *v, char **extra, int nextra)
{
	size_t len = strlen(v->name);

	for (int i = 0; i < nextra; i++)
		if (strncmp(extra[i], v->name, len) == 0 && extra[i][len] == '=')
			return 1;
	return 0;
}

char **makeenv(char **extra, int nextra)
{
	int n = nextra;
	char **env;

	for (struct var *v = vars; v; v = v->next)
		n += (v->flags & V_EXPORT) && v->value;
	env = xmalloc((n + 1) * sizeof *env);
	n = 0;
	for (int i = 0; i < nextra; i++)
		env[n++] = extra[i];
	for (struct var *v = vars; v; v = v->next) {
		if (!(v->flags & V_EXPORT) || !v->value || overridden(v, extra, nextra))
			continue;
		env[n] = xmalloc(strlen(v->name) + strlen(v->value) + 2);
		sprintf(env[n++], "%s=%s", v->name, v->value);
	}
	env[n] = NULL;
	return env;
}

/* A value quoted so that the shell reads it back as it is: 'it'\''s'. */
static void printquoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* Sorted by name, as FreeBSD's sh lists them; each line can be read back by the shell. */
static int byname(const void *a, const void *b)
{
	return strcmp((*(struct var *const *)a)->name, (*(struct var *const *)b)->name);
}

/* which: 0 for every set variable (set), V_EXPORT (export -p) or V_READONLY (readonly -p). */
void listvars(int which)
{
	struct var **sorted;
	int n = 0;

	for (struct var *v = vars; v; v = v->next)
		n++;
	sorted = xmalloc((n + 1) * sizeof *sorted);
	n = 0;
	for (struct var *v = vars; v; v = v->next)
		if (!which || (v->flags & which))
			sorted[n++] = v;
	qsort(sorted, n, sizeof *sorted, byname);
	for (int i = 0; i < n; i++) {
		if (which)
			printf("%s %s", which == V_EXPORT ? "export" : "readonly", sorted[i]->name);
		else if (!sorted[i]->value)
			continue;
		else
			fputs(sorted[i]->name, stdout);
		if (sorted[i]->value) {
			putchar('=');
			printquoted(sorted[i]->value);
		}
		putchar('\n');
	}
	free(sorted);
}

void import_environ(char **envp)
{
	for (char **e = envp; e && *e; e++) {
		char *eq = strchr(*e, '=');
		if (eq && isname(*e, eq - *e)) {
			*eq = 0;
			setvar(*e, eq + 1, V_EXPORT);
			*eq = '=';
		}
	}
}

void setparams(char **v, int n)
{
	freewords(&posparams);
	for (int i = 0; i < n; i++)
		addword(&posparams, xstrdup(v[i]));
}

struct words saveparams(void)
{
	struct words saved = posparams;

	posparams.v = NULL;
	posparams.n = 0;
	return saved;
}

void restoreparams(struct words *saved)
{
	freewords(&posparams);
	posparams = *saved;
}
