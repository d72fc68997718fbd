/*
 * grp.h: the group database, /etc/group (user/libc, lib/pwd.c). One group a line, four fields
 * separated by ':', as FreeBSD's /etc/group:
 *
 *   name:passwd:gid:member,member...
 *   wheel:*:0:root
 *
 *   getgrnam(name) / getgrgid(gid) - the first matching entry, or NULL. gr_mem is a
 *                                    NULL-terminated list of member names. Static, like pwd.h's.
 *   setgrent() / getgrent() / endgrent() - every group in turn (getgrent: NULL at the end).
 */
#ifndef _GRP_H_
#define _GRP_H_

#include <sys/types.h>

#define _PATH_GROUP "/etc/group"

struct group {
	char  *gr_name;
	char  *gr_passwd;
	gid_t  gr_gid;
	char **gr_mem;
};

struct group *getgrnam(const char *name);
struct group *getgrgid(gid_t gid);
int           setgrent(void);
struct group *getgrent(void);
void          endgrent(void);

#endif
