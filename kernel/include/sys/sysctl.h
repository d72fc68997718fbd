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
#define CTLFLAG_ANYBODY 0x10000000    /* anyone may write it, not only root (FreeBSD's) */

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

/*
 * vfs.syncio.events: the last SYNCIO_RING synchronous I/O waits of user processes, oldest first
 * (kernel/vfs/vfs_syncio.c; the syncio(8) tool prints them).
 */
#define SYNCIO_METAREAD  0            /* a read of a file system block: bitmap, inode, indirect */
#define SYNCIO_METAWRITE 1            /* a synchronous write of one (a new indirect block, ...) */
#define SYNCIO_DATAREAD  2            /* a read of file data the process waited for */
#define SYNCIO_DATAWRITE 3            /* a synchronous write of file data (O_SYNC) */
#define SYNCIO_FSYNC     4            /* a whole fsync(2) */
#define SYNCIO_NKINDS    5
#define SYNCIO_KIND_NAMES { "metaread", "metawrite", "dataread", "datawrite", "fsync" }
#define SYNCIO_RING      1024
struct syncio_event {
	uint64_t se_seq;              /* 1, 2, ... in the order the waits ended */
	uint64_t se_start_us;         /* CLOCK_MONOTONIC (us) when the process began to wait */
	uint32_t se_wait_us;          /* how long it waited */
	int32_t  se_qahead;           /* requests outstanding at the disk when the I/O arrived (the
	                                 most any piece found, for a striped one); -1 for fsync */
	int32_t  se_kind;             /* SYNCIO_* */
	int32_t  se_pid;
};

/* vm.swap_info: an array of these, one per swap device (FreeBSD's struct xswdev). */
struct xswdev {
	char     xsw_name[16];        /* the disk */
	uint32_t xsw_nblks;           /* pages of swap on it */
	uint32_t xsw_used;            /* pages in use */
};

#endif
