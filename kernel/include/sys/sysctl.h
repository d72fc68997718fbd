/*
 * sysctl ABI. Nodes are named by dotted strings ("vfs.hirunningspace").
 *   sysctl(name, oldp, &oldlen, newp, newlen): read the value into oldp (oldlen in/out; oldp NULL
 *     asks only for the size) and/or write newp. Integers are CTLTYPE_INT (int32) or CTLTYPE_QUAD
 *     (int64); strings include the terminating NUL; CTLTYPE_OPAQUE nodes are structs or arrays.
 *   sysctlnext(name, next, len): the name of the node after `name` in sorted order ("" = the first);
 *     returns -ENOENT after the last one.
 *   sysctlinfo(name, &info): type, flags and the one-line description.
 *   sysctl("sysctl.values", vals, &len, names, nameslen): many integer nodes in one call; names
 *     is a list of NUL-terminated names (at most SYSCTL_VALUES_MAX bytes), vals gets an int64
 *     for each, in order; ENOENT if one is not an integer node.
 */
#ifndef _SYS_SYSCTL_H_
#define _SYS_SYSCTL_H_

#include <sys/types.h>

#define CTLTYPE_INT     2
#define CTLTYPE_STRING  3
#define CTLTYPE_QUAD    4
#define CTLTYPE_OPAQUE  5
#define CTLTYPE         0xf

#define CTLFLAG_RD      0x80000000
#define CTLFLAG_WR      0x40000000
#define CTLFLAG_RW      (CTLFLAG_RD | CTLFLAG_WR)
#define CTLFLAG_TUN     0x20000000    /* also a boot tunable: its owner reads it from the kernel
                                         command line itself (tunable_int_fetch), before the
                                         words with a dot are applied as sysctls */

#define SYSCTL_NAMELEN  64
#define SYSCTL_DESCLEN  128
#define SYSCTL_VALUES_MAX 16384

struct sysctl_info {
	uint32_t kind;                /* CTLTYPE_* | CTLFLAG_* */
	char     fmt[16];             /* for OPAQUE: "S,timeval", "S,kinfo_proc", ... */
	char     descr[SYSCTL_DESCLEN];
};

/* kern.proc: an array of these, one per process (and kernel thread). */
#define KI_NAMELEN  20
#define KI_WMESGLEN 8
struct kinfo_proc {
	int32_t  ki_pid;
	int32_t  ki_ppid;
	char     ki_stat;             /* 'R' running/runnable, 'S' sleeping, 'Z' zombie, 'T' embryo */
	char     ki_kthread;          /* 1 for kernel threads */
	int16_t  ki_cpu;              /* CPU it runs on, or -1 */
	char     ki_wmesg[KI_WMESGLEN]; /* wait channel message when sleeping */
	uint64_t ki_runtime;          /* CPU time in microseconds */
	uint32_t ki_size;             /* user memory in bytes (resident) */
	int32_t  ki_minflt;           /* page faults without I/O */
	int32_t  ki_majflt;           /* page faults with a page-in */
	int64_t  ki_start;            /* start time, seconds since the epoch */
	char     ki_comm[KI_NAMELEN];
	uint64_t ki_wbytes;           /* bytes written with write(2) so far (Linux's /proc/PID/io wchar) */
};

/* vm.swap_info: an array of these, one per swap device (FreeBSD's struct xswdev). */
struct xswdev {
	char     xsw_name[16];        /* the disk */
	uint32_t xsw_nblks;           /* pages of swap on it */
	uint32_t xsw_used;            /* pages in use */
};

#endif
