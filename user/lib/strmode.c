/*
 * strmode: a file mode as ls -l prints it (FreeBSD's strmode(3), string.h): the type
 * (- d l p c b s, ? for another), then rwx for owner, group and others, with s/S for
 * set-user-ID and set-group-ID and t/T for the sticky bit (capital when the execute bit under
 * it is off), then a space where FreeBSD marks an ACL: 11 characters and a NUL into s[12].
 */
#include <string.h>
#include <sys/stat.h>

void strmode(mode_t m, char *s)
{
	static const char types[] = "?pc?d?b?-?l?s???";   /* indexed by (m & S_IFMT) >> 12 */

	s[0] = types[(m & S_IFMT) >> 12];
	for (int i = 0; i < 9; i++)
		s[1 + i] = (m & (0400 >> i)) ? "rwx"[i % 3] : '-';
	if (m & S_ISUID)
		s[3] = (m & S_IXUSR) ? 's' : 'S';
	if (m & S_ISGID)
		s[6] = (m & S_IXGRP) ? 's' : 'S';
	if (m & S_ISVTX)
		s[9] = (m & S_IXOTH) ? 't' : 'T';
	s[10] = ' ';
	s[11] = 0;
}
