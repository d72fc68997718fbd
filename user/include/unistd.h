/*
 * unistd.h: the system call wrappers (user/libc, lib/syscalls.c) and a few helpers.
 * Every wrapper returns -1 and sets errno on failure, as POSIX. wdrain-specific calls
 * (sysctl, getdents, reboot, mount, getrusage, wait4, mmap & co.) are declared here too, since their
 * <sys/...> headers belong to the kernel and hold only the ABI.
 */
#ifndef _UNISTD_H_
#define _UNISTD_H_

#include <stddef.h>
#include <sys/types.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/dirent.h>
#include <sys/mount.h>
#include <sys/fcntl.h>      /* access(2)'s R_OK, W_OK, X_OK, F_OK */

#define STDIN_FILENO  0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

#ifndef SEEK_SET
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif

extern char **environ;

/* any system call by number (FreeBSD's syscall(2)); the arguments are words */
int syscall(int number, ...);

/* processes */
void  _exit(int status) __attribute__((noreturn));
pid_t fork(void);
int   execve(const char *path, char *const argv[], char *const envp[]);
int   execv(const char *path, char *const argv[]);
int   execvp(const char *file, char *const argv[]);   /* searches $PATH (default /bin:/sbin) */
pid_t wait(int *status);
pid_t waitpid(pid_t pid, int *status, int options);
pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru);
pid_t getpid(void);
pid_t getppid(void);
int   setpgid(pid_t pid, pid_t pgid);                 /* process groups: the console's ^C */
pid_t getpgrp(void);
void *sbrk(intptr_t increment);                       /* (void *)-1 on failure */
int   getrusage(int who, struct rusage *ru);
int   reboot(int howto);

/* credentials: real, effective and saved IDs, as FreeBSD 4 */
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
gid_t getegid(void);
int   getgroups(int n, gid_t *gids);                   /* n 0: how many */
int   setuid(uid_t uid);
int   seteuid(uid_t euid);
int   setgid(gid_t gid);
int   setegid(gid_t egid);
int   setgroups(int n, const gid_t *gids);             /* root only */

/* memory mappings (<sys/mman.h> has the flags) */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t pos);   /* MAP_FAILED on failure */
int   munmap(void *addr, size_t len);
int   mprotect(void *addr, size_t len, int prot);
int   msync(void *addr, size_t len, int flags);
int   swapon(const char *path);                      /* add a swap device */

/* descriptors */
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
ssize_t pread(int fd, void *buf, size_t n, off_t offset);          /* lseek + read: see syscalls.c */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset);
int     close(int fd);
int     pipe(int fds[2]);
int     dup(int fd);
int     dup2(int from, int to);
off_t   lseek(int fd, off_t offset, int whence);
int     ftruncate(int fd, off_t length);
int     truncate(const char *path, off_t length);
int     fstat(int fd, struct stat *st);
int     fsync(int fd);
int     ioctl(int fd, unsigned long cmd, void *arg);
int     isatty(int fd);                                /* 1 if fd is the console (TIOCGETA works) */
int     getdents(int fd, void *buf, size_t n);

/* names */
int   stat(const char *path, struct stat *st);
int   lstat(const char *path, struct stat *st);           /* a symbolic link's own attributes */
int   access(const char *path, int mode);                 /* with the real uid and gid */
int   chmod(const char *path, mode_t mode);
int   fchmod(int fd, mode_t mode);
int   chown(const char *path, uid_t uid, gid_t gid);      /* (uid_t)-1, (gid_t)-1: unchanged */
int   fchown(int fd, uid_t uid, gid_t gid);
int   lchown(const char *path, uid_t uid, gid_t gid);
mode_t umask(mode_t mask);                                /* returns the old mask */
int   symlink(const char *target, const char *path);
ssize_t readlink(const char *path, char *buf, size_t n);  /* no NUL added */
int   mkfifo(const char *path, mode_t mode);
int   mknod(const char *path, mode_t mode, dev_t dev);    /* a FIFO (dev 0) for anyone; devices: root, dev makedev(major, minor) */
int   utimes(const char *path, const struct timeval *times);   /* times[0] atime, [1] mtime; NULL: now */
int   link(const char *from, const char *to);
int   unlink(const char *path);
int   mkdir(const char *path, mode_t mode);
int   rmdir(const char *path);
int   chdir(const char *path);
char *getcwd(char *buf, size_t size);
void  sync(void);
int   mount(const char *fstype, const char *dir, int flags, void *data);
int   unmount(const char *dir, int flags);
int   statfs(const char *path, struct statfs *sb);
int   fstatfs(int fd, struct statfs *sb);
int   getfsstat(struct statfs *buf, long bufsize, int flags);
int   getmntinfo(struct statfs **mntbufp, int flags);      /* lib/getmntinfo.c: every mount */

/* sysctl by name (sys/sysctl.h) */
int sysctl(const char *name, void *oldp, size_t *oldlenp, const void *newp, size_t newlen);
int sysctlnext(const char *name, char *next, size_t len);
int sysctlinfo(const char *name, struct sysctl_info *info);
int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, const void *newp, size_t newlen);

/* time */
int          gettimeofday(struct timeval *tv, void *tz);
unsigned int sleep(unsigned int seconds);
int          usleep(unsigned int usec);

/* getopt(3), lib/getopt.c */
extern char *optarg;
extern int   optind, opterr, optopt;
int getopt(int argc, char *const argv[], const char *optstring);

#endif
