/*
 * pwd.h: the user database, /etc/passwd (user/libc, lib/pwd.c). One user a line, seven fields
 * separated by ':', as FreeBSD's /etc/passwd (whose hashed databases and master.passwd wdrain
 * does not have; no passwords are kept, the second field is "*"):
 *
 *   name:passwd:uid:gid:gecos:home:shell
 *   root:*:0:0:Charlie &:/root:/bin/sh
 *
 *   getpwnam(name) / getpwuid(uid) - the first matching entry, or NULL (a malformed line is
 *                                    skipped). The entry is static: the next call overwrites it.
 */
#ifndef _PWD_H_
#define _PWD_H_

#include <sys/types.h>

#define _PATH_PASSWD "/etc/passwd"

struct passwd {
	char  *pw_name;
	char  *pw_passwd;
	uid_t  pw_uid;
	gid_t  pw_gid;
	char  *pw_gecos;
	char  *pw_dir;
	char  *pw_shell;
};

struct passwd *getpwnam(const char *name);
struct passwd *getpwuid(uid_t uid);

#endif
