/* struct stat and file mode bits (Unix values). Shared by kernel and user/lib. */
#ifndef _SYS_STAT_H_
#define _SYS_STAT_H_

#include <sys/types.h>

struct stat {
	dev_t     st_dev;      /* device holding the file (or the device itself for S_IFCHR/S_IFBLK: st_rdev) */
	ino_t     st_ino;
	mode_t    st_mode;
	nlink_t   st_nlink;
	uid_t     st_uid;
	gid_t     st_gid;
	dev_t     st_rdev;
	off_t     st_size;
	blkcnt_t  st_blocks;   /* 512-byte blocks allocated */
	blksize_t st_blksize;  /* preferred I/O size */
	time_t    st_atime;
	time_t    st_mtime;
	time_t    st_ctime;
};

#define S_IFMT   0170000
#define S_IFIFO  0010000
#define S_IFCHR  0020000
#define S_IFDIR  0040000
#define S_IFBLK  0060000
#define S_IFREG  0100000
#define S_IFLNK  0120000
#define S_IFSOCK 0140000

#define S_ISDIR(m)  (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m)  (((m) & S_IFMT) == S_IFREG)
#define S_ISCHR(m)  (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m)  (((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISLNK(m)  (((m) & S_IFMT) == S_IFLNK)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)

#define S_ISUID 0004000        /* set user ID on execution */
#define S_ISGID 0002000        /* set group ID on execution */
#define S_ISVTX 0001000        /* sticky: in a directory, only owners may remove or rename */
#define S_ISTXT S_ISVTX        /* FreeBSD's name for it */
#define S_IRWXU 0000700
#define S_IRUSR 0000400
#define S_IWUSR 0000200
#define S_IXUSR 0000100
#define S_IRWXG 0000070
#define S_IRGRP 0000040
#define S_IWGRP 0000020
#define S_IXGRP 0000010
#define S_IRWXO 0000007
#define S_IROTH 0000004
#define S_IWOTH 0000002
#define S_IXOTH 0000001

#define ACCESSPERMS (S_IRWXU | S_IRWXG | S_IRWXO)                  /* 0777 */
#define ALLPERMS    (S_ISUID | S_ISGID | S_ISTXT | ACCESSPERMS)    /* 07777 */
#define DEFFILEMODE (S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH) /* 0666 */

#endif
