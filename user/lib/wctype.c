/* wctype.c: character classes by name (POSIX wctype, iswctype), for bracket expressions (user/libc). */
#include <wctype.h>
#include <ctype.h>
#include <string.h>

static int blank(int c)
{
	return c == ' ' || c == '\t';
}

static const struct {
	const char *name;
	int (*fn)(int);
} classes[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", blank },   { "cntrl", iscntrl },
	{ "digit", isdigit }, { "graph", isgraph }, { "lower", islower }, { "print", isprint },
	{ "punct", ispunct }, { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
};

/* The class's index + 1, so that 0 means none. */
wctype_t wctype(const char *name)
{
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (strcmp(classes[i].name, name) == 0)
			return (wctype_t)i + 1;
	return 0;
}

int iswctype(wint_t c, wctype_t class)
{
	if (class <= 0 || (size_t)class > sizeof classes / sizeof classes[0] || c < 0 || c > 255)
		return 0;
	return classes[class - 1].fn(c);
}
