/*
 * System call dispatch. The ABI is in <sys/syscall.h>: number in eax, up to five arguments in
 * ebx, ecx, edx, esi, edi; the result (or -errno) goes back in eax.
 * System calls run with interrupts enabled (the gate is an interrupt gate, so turn them on).
 */
#include "kern/types.h"
#include "kern/proc.h"
#include "kern/lock.h"
#include "kern/syscall.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "vm/vm_page.h"
#include <sys/syscall.h>
#include <sys/errno.h>

static sy_call_t *const sysent[SYS_MAXSYSCALL] = {
	[SYS_exit] = sys_exit,           [SYS_fork] = sys_fork,
	[SYS_read] = sys_read,           [SYS_write] = sys_write,
	[SYS_open] = sys_open,           [SYS_close] = sys_close,
	[SYS_wait4] = sys_wait4,         [SYS_link] = sys_link,
	[SYS_unlink] = sys_unlink,       [SYS_execve] = sys_execve,
	[SYS_chdir] = sys_chdir,         [SYS_fstat] = sys_fstat,
	[SYS_stat] = sys_stat,           [SYS_getpid] = sys_getpid,
	[SYS_getppid] = sys_getppid,     [SYS_kill] = sys_kill,
	[SYS_sbrk] = sys_sbrk,           [SYS_pipe] = sys_pipe,
	[SYS_dup] = sys_dup,             [SYS_dup2] = sys_dup2,
	[SYS_lseek] = sys_lseek,         [SYS_mkdir] = sys_mkdir,
	[SYS_rmdir] = sys_rmdir,         [SYS_getcwd] = sys_getcwd,
	[SYS_rename] = sys_rename,       [SYS_fsync] = sys_fsync,
	[SYS_sync] = sys_sync,           [SYS_ftruncate] = sys_ftruncate,
	[SYS_gettimeofday] = sys_gettimeofday, [SYS_clock_gettime] = sys_clock_gettime,
	[SYS_nanosleep] = sys_nanosleep, [SYS_sysctl] = sys_sysctl,
	[SYS_sysctlnext] = sys_sysctlnext, [SYS_sysctlinfo] = sys_sysctlinfo,
	[SYS_reboot] = sys_reboot,       [SYS_getdents] = sys_getdents,
	[SYS_ioctl] = sys_ioctl,         [SYS_mount] = sys_mount,
	[SYS_unmount] = sys_unmount,     [SYS_getrusage] = sys_getrusage,
	[SYS_fcntl] = sys_fcntl,         [SYS_mmap] = sys_mmap,
	[SYS_munmap] = sys_munmap,       [SYS_mprotect] = sys_mprotect,
	[SYS_msync] = sys_msync,         [SYS_swapon] = sys_swapon,
	[SYS_statfs] = sys_statfs,       [SYS_fstatfs] = sys_fstatfs,
	[SYS_getfsstat] = sys_getfsstat,
	[SYS_setpgid] = sys_setpgid,     [SYS_getpgrp] = sys_getpgrp,
	[SYS_utimes] = sys_utimes,
	[SYS_sigaction] = sys_sigaction, [SYS_sigprocmask] = sys_sigprocmask,
	[SYS_sigreturn] = sys_sigreturn,
	[SYS_getuid] = sys_getuid,       [SYS_geteuid] = sys_geteuid,
	[SYS_getgid] = sys_getgid,       [SYS_getegid] = sys_getegid,
	[SYS_getgroups] = sys_getgroups, [SYS_setuid] = sys_setuid,
	[SYS_seteuid] = sys_seteuid,     [SYS_setgid] = sys_setgid,
	[SYS_setegid] = sys_setegid,     [SYS_setgroups] = sys_setgroups,
	[SYS_umask] = sys_umask,         [SYS_chmod] = sys_chmod,
	[SYS_fchmod] = sys_fchmod,       [SYS_chown] = sys_chown,
	[SYS_fchown] = sys_fchown,       [SYS_lchown] = sys_lchown,
	[SYS_symlink] = sys_symlink,     [SYS_readlink] = sys_readlink,
	[SYS_lstat] = sys_lstat,         [SYS_mkfifo] = sys_mkfifo,
	[SYS_mknod] = sys_mknod,         [SYS_truncate] = sys_truncate,
	[SYS_flock] = sys_flock,         [SYS_access] = sys_access,
	[SYS_socket] = sys_socket,       [SYS_socketpair] = sys_socketpair,
	[SYS_bind] = sys_bind,           [SYS_listen] = sys_listen,
	[SYS_accept] = sys_accept,       [SYS_connect] = sys_connect,
	[SYS_sendmsg] = sys_sendmsg,     [SYS_recvmsg] = sys_recvmsg,
	[SYS_shutdown] = sys_shutdown,   [SYS_getsockname] = sys_getsockname,
	[SYS_getpeername] = sys_getpeername, [SYS_poll] = sys_poll,
};

void syscall(struct trapframe *tf)
{
	sti();
	uint32_t num = tf->eax;
	register_t args[5] = { tf->ebx, tf->ecx, tf->edx, tf->esi, tf->edi };
	register_t rv = 0;
	int error = ENOSYS;
	vmcnt.v_syscall++;
	if (num < SYS_MAXSYSCALL && sysent[num])
		error = sysent[num](args, &rv);
	lock_assert_none_held("system call return");
	/* execve replaced the frame: its eax starts at 0 like every other register; sigreturn
	 * restored the interrupted code's (EJUSTRETURN). */
	if (error != EJUSTRETURN && (num != SYS_execve || error))
		tf->eax = error ? (uint32_t)-error : rv;
	cli();
}
