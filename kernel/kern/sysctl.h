/*
 * Kernel side of sysctl: a flat, sorted registry of dotted names.
 * Static nodes are declared next to their variable, FreeBSD style:
 *     static int hidirtybuffers;
 *     SYSCTL_INT(vfs, hidirtybuffers, CTLFLAG_RW, &hidirtybuffers, "Dirty buffer high-water mark");
 * which registers "vfs.hidirtybuffers" at boot. Dynamic nodes (one per disk, ...) use sysctl_add_*.
 * A node may have a handler that computes its value or validates a write:
 *     int handler(struct sysctl_req *req)  - call sysctl_handle_int/quad/string/opaque on a value.
 * Writes from user space are allowed only on CTLFLAG_WR nodes, and only to root (EPERM) unless
 * the node is CTLFLAG_ANYBODY, as FreeBSD's sysctl(2) says; a handler may reject a value with
 * EINVAL. Names are at most SYSCTL_NAMELEN-1 bytes.
 */
#ifndef _KERN_SYSCTL_H_
#define _KERN_SYSCTL_H_

#include "kern/types.h"
#include <sys/sysctl.h>

struct sysctl_req;
typedef int sysctl_handler_t(struct sysctl_req *req);

struct sysctl_oid {
	const char        *oid_name;     /* full dotted name */
	uint32_t           oid_kind;     /* CTLTYPE_* | CTLFLAG_* */
	void              *oid_arg1;     /* the variable, or handler-specific */
	intptr_t           oid_arg2;     /* size for OPAQUE, or handler-specific */
	sysctl_handler_t  *oid_handler;  /* NULL = plain variable */
	const char        *oid_fmt;      /* "I", "Q", "A", "S,timeval", ... */
	const char        *oid_descr;
	struct sysctl_oid *oid_next;     /* sorted list */
};

struct sysctl_req {
	struct sysctl_oid *oid;
	void              *oldptr;   /* user (or kernel, see seg) buffer for the old value, may be NULL */
	size_t             oldlen;   /* its size */
	size_t             oldidx;   /* bytes produced so far (the value's full size if oldptr is NULL) */
	const void        *newptr;   /* new value, NULL if not writing */
	size_t             newlen;
	int                seg;      /* UIO_USERSPACE or UIO_SYSSPACE */
};

/* For handlers: produce the old value and, if a new one is given, copy it in. */
int sysctl_handle_int(struct sysctl_req *req, int *val);
int sysctl_handle_quad(struct sysctl_req *req, int64_t *val);
int sysctl_handle_string(struct sysctl_req *req, char *buf, size_t bufsize);
int sysctl_handle_opaque(struct sysctl_req *req, void *buf, size_t len);
int sysctl_out(struct sysctl_req *req, const void *p, size_t len);   /* append to the old value */

void sysctl_register(struct sysctl_oid *oid);   /* add a node (static or kmalloc'd) */
int  sysctl_add_int(const char *name, uint32_t flags, int *var, const char *descr);
int  sysctl_add_quad(const char *name, uint32_t flags, int64_t *var, const char *descr);
int  sysctl_add_proc(const char *name, uint32_t kind, void *arg1, intptr_t arg2,
                     sysctl_handler_t *handler, const char *fmt, const char *descr);
void sysctl_init(void);                         /* registers every SYSCTL_* declared in the kernel */
/* In-kernel access (e.g. to apply boot-time tunables): 0 or errno. Setting a CTLFLAG_TUN
 * node does nothing and returns 0: its owner already took the command line's value (and
 * reported a bad one) with tunable_int_fetch before using it. */
int  kernel_sysctl_set(const char *name, const char *value);
/* Boot tunables (FreeBSD's TUNABLE_INT_FETCH, kern/main.c): if the kernel command line has
 * name=<integer>, store it in *val and return true; a bad number is reported and ignored. */
bool tunable_int_fetch(const char *name, int *val);

#define SYSCTL_DECL_OID(id, name, kind, a1, a2, handler, fmt, descr) \
	static struct sysctl_oid id = { name, kind, a1, a2, handler, fmt, descr, NULL }; \
	static struct sysctl_oid *id##_ptr __attribute__((used, section("set_sysctl"))) = &id

#define SYSCTL_INT(parent, name, flags, ptr, descr) \
	SYSCTL_DECL_OID(sysctl_##parent##_##name, #parent "." #name, CTLTYPE_INT | (flags), ptr, 0, NULL, "I", descr)
#define SYSCTL_QUAD(parent, name, flags, ptr, descr) \
	SYSCTL_DECL_OID(sysctl_##parent##_##name, #parent "." #name, CTLTYPE_QUAD | (flags), ptr, 0, NULL, "Q", descr)
#define SYSCTL_STRING(parent, name, flags, ptr, len, descr) \
	SYSCTL_DECL_OID(sysctl_##parent##_##name, #parent "." #name, CTLTYPE_STRING | (flags), ptr, len, NULL, "A", descr)
/* A node with a handler; `id` must be unique in the file, `fullname` is the dotted name. */
#define SYSCTL_PROC(id, fullname, kind, a1, a2, handler, fmt, descr) \
	SYSCTL_DECL_OID(sysctl_##id, fullname, kind, a1, a2, handler, fmt, descr)

#endif
