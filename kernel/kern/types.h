/* Kernel-wide basic types. Every kernel file includes this first (directly or through another header). */
#ifndef _KERN_TYPES_H_
#define _KERN_TYPES_H_

#include <sys/types.h>
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>

typedef uint32_t paddr_t;      /* physical address */
typedef uint32_t vaddr_t;      /* virtual address */
#ifndef WDRAIN_HOST_TEST       /* host unit tests take these two from the host's <sys/types.h> */
typedef uint32_t register_t;   /* a machine register / syscall argument */
typedef int64_t  daddr_t;      /* disk block number (DEV_BSIZE units for devices, fs blocks for files) */
#endif
typedef unsigned long u_long;
typedef unsigned int  u_int;

#define DEV_BSIZE     512      /* the unit of b_blkno on device vnodes, as in FreeBSD */
#define PAGE_SIZE     4096
#define PAGE_SHIFT    12
#define PAGE_MASK     (PAGE_SIZE - 1)

#define MIN(a, b)        ((a) < (b) ? (a) : (b))
#define MAX(a, b)        ((a) > (b) ? (a) : (b))
#define roundup(x, y)    ((((x) + ((y) - 1)) / (y)) * (y))
#define rounddown(x, y)  (((x) / (y)) * (y))
#define howmany(x, y)    (((x) + ((y) - 1)) / (y))
#define nitems(a)        (sizeof(a) / sizeof((a)[0]))
#define offsetof_(t, m)  __builtin_offsetof(t, m)
#define container_of(p, t, m) ((t *)((char *)(p) - __builtin_offsetof(t, m)))
#define __unused         __attribute__((unused))
#define __noreturn       __attribute__((noreturn))
#define __printflike(f, a) __attribute__((format(printf, f, a)))

#endif
