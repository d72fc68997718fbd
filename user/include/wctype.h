/*
 * wctype.h: character classes by name (POSIX wctype, iswctype; user/libc wctype.c), the
 * [:name:] of bracket expressions: alnum alpha blank cntrl digit graph lower print punct space
 * upper xdigit. ASCII only, as ctype.h.
 */
#ifndef _WCTYPE_H_
#define _WCTYPE_H_

typedef int wint_t;
typedef int wctype_t;

wctype_t wctype(const char *name);           /* 0 if name is not a class */
int      iswctype(wint_t c, wctype_t class); /* c in the class: non-zero */

#endif
