/*
 * System call numbers: the user/kernel ABI.
 *
 * Calling convention (i386, software interrupt T_SYSCALL = 0x80 as on FreeBSD):
 *   eax = number, arguments in ebx, ecx, edx, esi, edi (at most five).
 *   The kernel returns the result in eax; a value in [-4095, -1] is -errno.
 *   64-bit quantities (lseek offsets) travel through pointers.
 * This header is shared by the kernel and user/lib; it holds only numbers.
 */
#ifndef _SYS_SYSCALL_H_
#define _SYS_SYSCALL_H_

#define T_SYSCALL        0x80

#define SYS_exit          1
#define SYS_fork          2
#define SYS_read          3
#define SYS_write         4
#define SYS_open          5   /* open(path, flags, mode) */
#define SYS_close         6
#define SYS_wait4         7   /* wait4(pid, int *status, options, struct rusage *) */
#define SYS_link          9
#define SYS_unlink       10
#define SYS_execve       11   /* execve(path, argv, envp) */
#define SYS_chdir        12
#define SYS_fstat        13
#define SYS_stat         14
#define SYS_getpid       15
#define SYS_getppid      16
#define SYS_kill         17   /* kill(pid, sig) */
#define SYS_sbrk         18   /* sbrk(increment) -> old break */
#define SYS_pipe         19   /* pipe(int fds[2]) */
#define SYS_dup          20
#define SYS_dup2         21
#define SYS_lseek        22   /* lseek(fd, off_t *offset_inout, whence) */
#define SYS_mkdir        23   /* mkdir(path, mode) */
#define SYS_rmdir        24
#define SYS_getcwd       25   /* getcwd(buf, size) */
#define SYS_rename       26
#define SYS_fsync        27
#define SYS_sync         28
#define SYS_ftruncate    29   /* ftruncate(fd, off_t *length) */
#define SYS_gettimeofday 30   /* gettimeofday(struct timeval *, NULL) */
#define SYS_clock_gettime 31  /* clock_gettime(clockid, struct timespec *) */
#define SYS_nanosleep    32   /* nanosleep(const struct timespec *, struct timespec *) */
#define SYS_sysctl       33   /* sysctl(name, oldp, size_t *oldlenp, newp, newlen) */
#define SYS_sysctlnext   34   /* sysctlnext(name, char *next, size_t len): node after name ("" = first) */
#define SYS_sysctlinfo   35   /* sysctlinfo(name, struct sysctl_info *) */
#define SYS_reboot       36   /* reboot(howto) */
#define SYS_getdents     37   /* getdents(fd, buf, nbytes): struct dirent records */
#define SYS_ioctl        38   /* ioctl(fd, cmd, arg) */
#define SYS_mount        39   /* mount(fstype, dir, flags, data) */
#define SYS_unmount      40   /* unmount(dir, flags) */
#define SYS_getrusage    41   /* getrusage(who, struct rusage *) */
#define SYS_mmap         42   /* mmap(struct mmap_args *) */
#define SYS_munmap       43   /* munmap(addr, len) */
#define SYS_fcntl        44   /* fcntl(fd, cmd, arg) */
#define SYS_mprotect     45   /* mprotect(addr, len, prot) */
#define SYS_msync        46   /* msync(addr, len, flags) */
#define SYS_swapon       47   /* swapon(path) */
#define SYS_statfs       48   /* statfs(path, struct statfs *) */
#define SYS_fstatfs      49   /* fstatfs(fd, struct statfs *) */
#define SYS_getfsstat    50   /* getfsstat(struct statfs *, bufsize, flags) -> count */
#define SYS_setpgid      51   /* setpgid(pid, pgid) */
#define SYS_getpgrp      52   /* getpgrp() -> the caller's process group */
#define SYS_utimes       53   /* utimes(path, const struct timeval times[2]): NULL = now */
#define SYS_getuid       54   /* getuid() -> the real user ID */
#define SYS_geteuid      55
#define SYS_getgid       56   /* getgid() -> the real group ID */
#define SYS_getegid      57
#define SYS_getgroups    58   /* getgroups(n, gid_t *gids) -> how many */
#define SYS_setuid       59
#define SYS_seteuid      60
#define SYS_setgid       61
#define SYS_setegid      62
#define SYS_setgroups    63   /* setgroups(n, const gid_t *gids) */
#define SYS_umask        64   /* umask(mask) -> the old mask */
#define SYS_chmod        65   /* chmod(path, mode) */
#define SYS_fchmod       66
#define SYS_chown        67   /* chown(path, uid, gid) */
#define SYS_fchown       68
#define SYS_lchown       69
#define SYS_symlink      70   /* symlink(target, path) */
#define SYS_readlink     71   /* readlink(path, buf, count) -> bytes */
#define SYS_lstat        72
#define SYS_mkfifo       73   /* mkfifo(path, mode) */
#define SYS_mknod        74   /* mknod(path, mode, dev) */
#define SYS_truncate     75   /* truncate(path, off_t *length) */
#define SYS_flock        76   /* flock(fd, how) */
#define SYS_access       77   /* access(path, mode) */
/* Sockets (AF_UNIX) and poll. */
#define SYS_socket       78   /* socket(domain, type, protocol) -> fd */
#define SYS_socketpair   79   /* socketpair(domain, type, protocol, int sv[2]) */
#define SYS_bind         80   /* bind(s, const struct sockaddr *, socklen_t) */
#define SYS_listen       81   /* listen(s, backlog) */
#define SYS_accept       82   /* accept(s, struct sockaddr *, socklen_t *) -> fd */
#define SYS_connect      83   /* connect(s, const struct sockaddr *, socklen_t) */
#define SYS_sendmsg      84   /* sendmsg(s, const struct msghdr *, flags) -> bytes */
#define SYS_recvmsg      85   /* recvmsg(s, struct msghdr *, flags) -> bytes */
#define SYS_shutdown     86   /* shutdown(s, how) */
#define SYS_getsockname  87   /* getsockname(s, struct sockaddr *, socklen_t *) */
#define SYS_getpeername  88   /* getpeername(s, struct sockaddr *, socklen_t *) */
#define SYS_poll         89   /* poll(struct pollfd *, nfds, timeout_ms) -> ready entries */
/* Signals: numbered from 90, apart from the file-system calls that follow 53. */
#define SYS_sigaction    90   /* sigaction(sig, act, oact, trampoline): the libc adds its trampoline */
#define SYS_sigprocmask  91   /* sigprocmask(how, const sigset_t *set, sigset_t *oset) */
#define SYS_sigreturn    92   /* sigreturn(const struct sigcontext *): from the trampoline only */

#define SYS_MAXSYSCALL   93

#endif
