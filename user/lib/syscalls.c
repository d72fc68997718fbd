/*
 * syscalls.c: the system call wrappers (user/libc).
 * Convention (kernel/include/sys/syscall.h): int $0x80 with eax = number and the arguments
 * in ebx, ecx, edx, esi, edi; the result comes back in eax, and a value in [-4095, -1] is
 * -errno. Each wrapper stores errno and returns -1 on failure, as POSIX.
 * 64-bit offsets (lseek, ftruncate, truncate) travel through a pointer to an off_t.
 * At the end: pread/pwrite, library functions made of these calls.
 */
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <errno.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <poll.h>

int errno;

static long syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	long r;

	__asm__ volatile("int $0x80"
	                 : "=a"(r)
	                 : "a"(n), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5)
	                 : "memory", "cc");
	return r;
}

/* A raw result to the POSIX convention. */
static long ret(long r)
{
	if (r < 0 && r >= -4095) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#define SC0(n)                   ret(syscall5((n), 0, 0, 0, 0, 0))
#define SC1(n, a)                ret(syscall5((n), (long)(a), 0, 0, 0, 0))
#define SC2(n, a, b)             ret(syscall5((n), (long)(a), (long)(b), 0, 0, 0))
#define SC3(n, a, b, c)          ret(syscall5((n), (long)(a), (long)(b), (long)(c), 0, 0))
#define SC4(n, a, b, c, d)       ret(syscall5((n), (long)(a), (long)(b), (long)(c), (long)(d), 0))
#define SC5(n, a, b, c, d, e)    ret(syscall5((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e)))

/* syscall(2): any system call by number, with up to five word-sized arguments (FreeBSD's). */
int syscall(int number, ...)
{
	va_list ap;
	long a[5];

	va_start(ap, number);
	for (int i = 0; i < 5; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return ret(syscall5(number, a[0], a[1], a[2], a[3], a[4]));
}

void _exit(int status)
{
	for (;;)
		syscall5(SYS_exit, status, 0, 0, 0, 0);
}

pid_t fork(void)                        { return SC0(SYS_fork); }
int execve(const char *path, char *const argv[], char *const envp[])
                                        { return SC3(SYS_execve, path, argv, envp); }
pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
                                        { return SC4(SYS_wait4, pid, status, options, ru); }
pid_t waitpid(pid_t pid, int *status, int options) { return wait4(pid, status, options, NULL); }
pid_t wait(int *status)                 { return wait4(-1, status, 0, NULL); }
pid_t getpid(void)                      { return SC0(SYS_getpid); }
pid_t getppid(void)                     { return SC0(SYS_getppid); }
int setpgid(pid_t pid, pid_t pgid)      { return SC2(SYS_setpgid, pid, pgid); }
pid_t getpgrp(void)                     { return SC0(SYS_getpgrp); }
int kill(pid_t pid, int sig)            { return SC2(SYS_kill, pid, sig); }
int getrusage(int who, struct rusage *ru) { return SC2(SYS_getrusage, who, ru); }
int reboot(int howto)                   { return SC1(SYS_reboot, howto); }

uid_t getuid(void)                      { return SC0(SYS_getuid); }
uid_t geteuid(void)                     { return SC0(SYS_geteuid); }
gid_t getgid(void)                      { return SC0(SYS_getgid); }
gid_t getegid(void)                     { return SC0(SYS_getegid); }
int getgroups(int n, gid_t *gids)       { return SC2(SYS_getgroups, n, gids); }
int setuid(uid_t uid)                   { return SC1(SYS_setuid, uid); }
int seteuid(uid_t euid)                 { return SC1(SYS_seteuid, euid); }
int setgid(gid_t gid)                   { return SC1(SYS_setgid, gid); }
int setegid(gid_t egid)                 { return SC1(SYS_setegid, egid); }
int setgroups(int n, const gid_t *gids) { return SC2(SYS_setgroups, n, gids); }

/* The old break; user addresses end below USERTOP (< 2 GB), so no break looks like -errno. */
void *sbrk(intptr_t increment)
{
	long r = ret(syscall5(SYS_sbrk, increment, 0, 0, 0, 0));

	return r == -1 ? (void *)-1 : (void *)r;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t pos)
{
	struct mmap_args a = { addr, len, prot, flags, fd, pos };
	long r = ret(syscall5(SYS_mmap, (long)&a, 0, 0, 0, 0));

	return r == -1 ? MAP_FAILED : (void *)r;
}
int munmap(void *addr, size_t len)      { return SC2(SYS_munmap, addr, len); }
int mprotect(void *addr, size_t len, int prot) { return SC3(SYS_mprotect, addr, len, prot); }
int msync(void *addr, size_t len, int flags)   { return SC3(SYS_msync, addr, len, flags); }
int swapon(const char *path)            { return SC1(SYS_swapon, path); }

ssize_t read(int fd, void *buf, size_t n)        { return SC3(SYS_read, fd, buf, n); }
ssize_t write(int fd, const void *buf, size_t n) { return SC3(SYS_write, fd, buf, n); }
int close(int fd)                       { return SC1(SYS_close, fd); }
int pipe(int fds[2])                    { return SC1(SYS_pipe, fds); }
int dup(int fd)                         { return SC1(SYS_dup, fd); }
int dup2(int from, int to)              { return SC2(SYS_dup2, from, to); }
int fstat(int fd, struct stat *st)      { return SC2(SYS_fstat, fd, st); }
int fsync(int fd)                       { return SC1(SYS_fsync, fd); }
int ioctl(int fd, unsigned long cmd, void *arg) { return SC3(SYS_ioctl, fd, cmd, arg); }
int getdents(int fd, void *buf, size_t n) { return SC3(SYS_getdents, fd, buf, n); }

off_t lseek(int fd, off_t offset, int whence)
{
	off_t off = offset;

	if (SC3(SYS_lseek, fd, &off, whence) < 0)
		return -1;
	return off;
}

int ftruncate(int fd, off_t length)     { return SC2(SYS_ftruncate, fd, &length); }
int truncate(const char *path, off_t length) { return SC2(SYS_truncate, path, &length); }
int flock(int fd, int how)              { return SC2(SYS_flock, fd, how); }

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return SC3(SYS_open, path, flags, mode);
}

int creat(const char *path, mode_t mode) { return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return SC3(SYS_fcntl, fd, cmd, arg);
}

int stat(const char *path, struct stat *st) { return SC2(SYS_stat, path, st); }
int lstat(const char *path, struct stat *st) { return SC2(SYS_lstat, path, st); }
int access(const char *path, int mode)  { return SC2(SYS_access, path, mode); }
int chmod(const char *path, mode_t mode) { return SC2(SYS_chmod, path, mode); }
int fchmod(int fd, mode_t mode)         { return SC2(SYS_fchmod, fd, mode); }
int chown(const char *path, uid_t uid, gid_t gid) { return SC3(SYS_chown, path, uid, gid); }
int fchown(int fd, uid_t uid, gid_t gid) { return SC3(SYS_fchown, fd, uid, gid); }
int lchown(const char *path, uid_t uid, gid_t gid) { return SC3(SYS_lchown, path, uid, gid); }
mode_t umask(mode_t mask)               { return (mode_t)SC1(SYS_umask, mask); }
int symlink(const char *target, const char *path) { return SC2(SYS_symlink, target, path); }
ssize_t readlink(const char *path, char *buf, size_t n) { return SC3(SYS_readlink, path, buf, n); }
int mkfifo(const char *path, mode_t mode) { return SC2(SYS_mkfifo, path, mode); }
int mknod(const char *path, mode_t mode, dev_t dev) { return SC3(SYS_mknod, path, mode, dev); }
int utimes(const char *path, const struct timeval *times) { return SC2(SYS_utimes, path, times); }
int link(const char *from, const char *to)  { return SC2(SYS_link, from, to); }
int unlink(const char *path)            { return SC1(SYS_unlink, path); }
int mkdir(const char *path, mode_t mode) { return SC2(SYS_mkdir, path, mode); }
int rmdir(const char *path)             { return SC1(SYS_rmdir, path); }
int chdir(const char *path)             { return SC1(SYS_chdir, path); }
int rename(const char *from, const char *to) { return SC2(SYS_rename, from, to); }
void sync(void)                         { SC0(SYS_sync); }
int mount(const char *fstype, const char *dir, int flags, void *data)
                                        { return SC4(SYS_mount, fstype, dir, flags, data); }
int unmount(const char *dir, int flags) { return SC2(SYS_unmount, dir, flags); }
int statfs(const char *path, struct statfs *sb) { return SC2(SYS_statfs, path, sb); }
int fstatfs(int fd, struct statfs *sb)  { return SC2(SYS_fstatfs, fd, sb); }
int getfsstat(struct statfs *buf, long bufsize, int flags)
                                        { return SC3(SYS_getfsstat, buf, bufsize, flags); }

char *getcwd(char *buf, size_t size)
{
	return SC2(SYS_getcwd, buf, size) < 0 ? NULL : buf;
}

int sysctl(const char *name, void *oldp, size_t *oldlenp, const void *newp, size_t newlen)
                                        { return SC5(SYS_sysctl, name, oldp, oldlenp, newp, newlen); }
int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, const void *newp, size_t newlen)
                                        { return sysctl(name, oldp, oldlenp, newp, newlen); }
int sysctlnext(const char *name, char *next, size_t len) { return SC3(SYS_sysctlnext, name, next, len); }
int sysctlinfo(const char *name, struct sysctl_info *info) { return SC2(SYS_sysctlinfo, name, info); }

int gettimeofday(struct timeval *tv, void *tz)          { return SC2(SYS_gettimeofday, tv, tz); }
int clock_gettime(clockid_t clock, struct timespec *ts) { return SC2(SYS_clock_gettime, clock, ts); }
int nanosleep(const struct timespec *req, struct timespec *rem)
                                        { return SC2(SYS_nanosleep, req, rem); }

int isatty(int fd)
{
	int mode;

	return ioctl(fd, TIOCGETA, &mode) == 0;
}

/*
 * pread/pwrite: transfer at `offset` and leave the file offset as it was. Made of lseek and
 * read/write (FreeBSD's are system calls), so they are not atomic against another user of the
 * same open file; the tools that use them (newfs, fsck) have the descriptor to themselves.
 */
static ssize_t pio(int fd, void *buf, size_t n, off_t offset, int writing)
{
	off_t here = lseek(fd, 0, SEEK_CUR);
	ssize_t r;
	int e;

	if (here < 0 || lseek(fd, offset, SEEK_SET) < 0)
		return -1;
	r = writing ? write(fd, buf, n) : read(fd, buf, n);
	e = errno;
	lseek(fd, here, SEEK_SET);
	errno = e;
	return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t offset)  { return pio(fd, buf, n, offset, 0); }
ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
                                        { return pio(fd, (void *)buf, n, offset, 1); }

/* ---- sockets and poll ---------------------------------------------------------------------- */

int socket(int domain, int type, int protocol) { return SC3(SYS_socket, domain, type, protocol); }
int socketpair(int domain, int type, int protocol, int sv[2])
                                        { return SC4(SYS_socketpair, domain, type, protocol, sv); }
int bind(int s, const struct sockaddr *addr, socklen_t len) { return SC3(SYS_bind, s, addr, len); }
int listen(int s, int backlog)          { return SC2(SYS_listen, s, backlog); }
int accept(int s, struct sockaddr *addr, socklen_t *lenp) { return SC3(SYS_accept, s, addr, lenp); }
int connect(int s, const struct sockaddr *addr, socklen_t len) { return SC3(SYS_connect, s, addr, len); }
ssize_t sendmsg(int s, const struct msghdr *msg, int flags) { return SC3(SYS_sendmsg, s, msg, flags); }
ssize_t recvmsg(int s, struct msghdr *msg, int flags) { return SC3(SYS_recvmsg, s, msg, flags); }
int shutdown(int s, int how)            { return SC2(SYS_shutdown, s, how); }
int getsockname(int s, struct sockaddr *addr, socklen_t *lenp) { return SC3(SYS_getsockname, s, addr, lenp); }
int getpeername(int s, struct sockaddr *addr, socklen_t *lenp) { return SC3(SYS_getpeername, s, addr, lenp); }
int poll(struct pollfd *fds, nfds_t nfds, int timeout) { return SC3(SYS_poll, fds, nfds, timeout); }

/* sendto and send: sendmsg with one buffer (and the address, if any). */
ssize_t sendto(int s, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { (void *)to, to != NULL ? tolen : 0, &iov, 1, NULL, 0, 0 };

	return sendmsg(s, &msg, flags);
}

ssize_t send(int s, const void *buf, size_t len, int flags)
{
	return sendto(s, buf, len, flags, NULL, 0);
}

/* recvfrom and recv: recvmsg with one buffer; *fromlen gets the sender's address's length. */
ssize_t recvfrom(int s, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
	struct iovec iov = { buf, len };
	struct msghdr msg = { from, from != NULL && fromlen != NULL ? *fromlen : 0, &iov, 1, NULL, 0, 0 };
	ssize_t n = recvmsg(s, &msg, flags);

	if (n >= 0 && from != NULL && fromlen != NULL)
		*fromlen = msg.msg_namelen;
	return n;
}

ssize_t recv(int s, void *buf, size_t len, int flags)
{
	return recvfrom(s, buf, len, flags, NULL, NULL);
}
