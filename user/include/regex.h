/*
 * regex.h: POSIX regular expressions (XBD 9), basic and extended, for grep (user/libc regex.c).
 * regcomp/regexec/regerror/regfree with POSIX's names and REG_ values; see regex.c for what is
 * matched and what is not supported.
 */
#ifndef _REGEX_H_
#define _REGEX_H_

#include <stddef.h>

typedef int regoff_t;

typedef struct {
	size_t re_nsub;            /* the number of \( \) or ( ) groups */
	void  *re_prog;            /* the compiled expression (regex.c's) */
	int    re_cflags;
} regex_t;

typedef struct {
	regoff_t rm_so, rm_eo;     /* start and end offsets; -1 for a group that took no part */
} regmatch_t;

/* cflags */
#define REG_EXTENDED 0x01
#define REG_ICASE    0x02
#define REG_NOSUB    0x04
#define REG_NEWLINE  0x08      /* accepted; a newline is an ordinary character here */

/* eflags */
#define REG_NOTBOL   0x01
#define REG_NOTEOL   0x02

/* errors (FreeBSD's numbering) */
#define REG_NOMATCH   1
#define REG_BADPAT    2
#define REG_ECOLLATE  3
#define REG_ECTYPE    4
#define REG_EESCAPE   5
#define REG_ESUBREG   6
#define REG_EBRACK    7
#define REG_EPAREN    8
#define REG_EBRACE    9
#define REG_BADBR    10
#define REG_ERANGE   11
#define REG_ESPACE   12
#define REG_BADRPT   13

int    regcomp(regex_t *preg, const char *pattern, int cflags);
int    regexec(const regex_t *preg, const char *string, size_t nmatch, regmatch_t pmatch[], int eflags);
size_t regerror(int errcode, const regex_t *preg, char *buf, size_t size);
void   regfree(regex_t *preg);

#endif
