/* dirent.h: directory streams over getdents(2) (user/libc, lib/dirent.c). */
#ifndef _DIRENT_H_
#define _DIRENT_H_

#include <sys/types.h>
#include <sys/dirent.h>

typedef struct _dirdesc DIR;

DIR           *opendir(const char *path);   /* NULL and errno on failure */
struct dirent *readdir(DIR *d);             /* NULL at the end (errno set on an error) */
int            closedir(DIR *d);
int            dirfd(DIR *d);

#endif
