/*
 * The sysctl registry and system calls (see kern/sysctl.h and <sys/sysctl.h>).
 * Nodes live on one list sorted by name, so `sysctl -a` walks them in order with sysctlnext.
 * Static nodes come from the "set_sysctl" linker section (the SYSCTL_* macros); drivers add
 * dynamic ones. Nodes are never removed. Lookup takes sysctl_lock only to walk the list; handlers
 * run unlocked (they may copy to user space and sleep).
 * sysctl.values reads many integer nodes in one call (the experiment's sampler, every 100 ms).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/sysctl.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include <sys/errno.h>

static struct spinlock sysctl_lock = { .name = "sysctl" };
static struct sysctl_oid *sysctl_list;

extern struct sysctl_oid *__start_set_sysctl[], *__stop_set_sysctl[];

void sysctl_register(struct sysctl_oid *oid)
{
	spin_lock(&sysctl_lock);
	struct sysctl_oid **pp = &sysctl_list;
	while (*pp && strcmp((*pp)->oid_name, oid->oid_name) < 0)
		pp = &(*pp)->oid_next;
	if (*pp && strcmp((*pp)->oid_name, oid->oid_name) == 0) {
		spin_unlock(&sysctl_lock);
		kprintf("sysctl: duplicate node %s ignored\n", oid->oid_name);
		return;
	}
	oid->oid_next = *pp;
	*pp = oid;
	spin_unlock(&sysctl_lock);
}

void sysctl_init(void)
{
	for (struct sysctl_oid **p = __start_set_sysctl; p < __stop_set_sysctl; p++)
		sysctl_register(*p);
}

static struct sysctl_oid *sysctl_find(const char *name)
{
	spin_lock(&sysctl_lock);
	struct sysctl_oid *o = sysctl_list;
	while (o && strcmp(o->oid_name, name) != 0)
		o = o->oid_next;
	spin_unlock(&sysctl_lock);
	return o;
}

int sysctl_add_proc(const char *name, uint32_t kind, void *arg1, intptr_t arg2,
                    sysctl_handler_t *handler, const char *fmt, const char *descr)
{
	struct sysctl_oid *o = kmalloc(sizeof(*o), M_WAITOK | M_ZERO);
	char *copy = kmalloc(strlen(name) + 1, M_WAITOK);
	if (o == NULL || copy == NULL) {
		kfree(o);
		kfree(copy);
		return ENOMEM;
	}
	strlcpy(copy, name, strlen(name) + 1);
	o->oid_name = copy;
	o->oid_kind = kind;
	o->oid_arg1 = arg1;
	o->oid_arg2 = arg2;
	o->oid_handler = handler;
	o->oid_fmt = fmt;
	o->oid_descr = descr;
	sysctl_register(o);
	return 0;
}

int sysctl_add_int(const char *name, uint32_t flags, int *var, const char *descr)
{
	return sysctl_add_proc(name, CTLTYPE_INT | flags, var, 0, NULL, "I", descr);
}

int sysctl_add_quad(const char *name, uint32_t flags, int64_t *var, const char *descr)
{
	return sysctl_add_proc(name, CTLTYPE_QUAD | flags, var, 0, NULL, "Q", descr);
}

int sysctl_out(struct sysctl_req *req, const void *p, size_t len)
{
	if (req->oldptr) {
		if (req->oldidx + len > req->oldlen)
			return ENOMEM;
		char *dst = (char *)req->oldptr + req->oldidx;
		if (req->seg == UIO_USERSPACE) {
			int error = copyout(p, dst, len);
			if (error)
				return error;
		} else
			memcpy(dst, p, len);
	}
	req->oldidx += len;
	return 0;
}

static int sysctl_in(struct sysctl_req *req, void *p, size_t len)
{
	if (req->seg == UIO_USERSPACE)
		return copyin(req->newptr, p, len);
	memcpy(p, req->newptr, len);
	return 0;
}

/* An integer of `size` bytes: the old value out; a new one (of exactly that size) in. */
static int sysctl_handle_scalar(struct sysctl_req *req, void *val, size_t size)
{
	int error = sysctl_out(req, val, size);
	if (error || req->newptr == NULL)
		return error;
	if (req->newlen != size)
		return EINVAL;
	return sysctl_in(req, val, size);
}

int sysctl_handle_int(struct sysctl_req *req, int *val)
{
	return sysctl_handle_scalar(req, val, sizeof(*val));
}

int sysctl_handle_quad(struct sysctl_req *req, int64_t *val)
{
	return sysctl_handle_scalar(req, val, sizeof(*val));
}

int sysctl_handle_string(struct sysctl_req *req, char *buf, size_t bufsize)
{
	int error = sysctl_out(req, buf, strnlen(buf, bufsize - 1) + 1);
	if (error || req->newptr == NULL)
		return error;
	if (req->newlen >= bufsize)
		return EINVAL;
	error = sysctl_in(req, buf, req->newlen);
	buf[req->newlen] = 0;
	return error;
}

int sysctl_handle_opaque(struct sysctl_req *req, void *buf, size_t len)
{
	return sysctl_handle_scalar(req, buf, len);
}

/* A node without a handler: its variable, by type. */
static int sysctl_handle_var(struct sysctl_req *req)
{
	struct sysctl_oid *o = req->oid;
	switch (o->oid_kind & CTLTYPE) {
	case CTLTYPE_INT:
		return sysctl_handle_int(req, o->oid_arg1);
	case CTLTYPE_QUAD:
		return sysctl_handle_quad(req, o->oid_arg1);
	case CTLTYPE_STRING:
		return sysctl_handle_string(req, o->oid_arg1, o->oid_arg2);
	default:
		return sysctl_handle_opaque(req, o->oid_arg1, o->oid_arg2);
	}
}

static int sysctl_dispatch(struct sysctl_oid *o, struct sysctl_req *req)
{
	if (req->newptr && !(o->oid_kind & CTLFLAG_WR))
		return EPERM;
	req->oid = o;
	return o->oid_handler ? o->oid_handler(req) : sysctl_handle_var(req);
}

/*
 * sysctl.values: the new value is a list of names of integer nodes, each NUL-terminated (at
 * most SYSCTL_VALUES_MAX bytes in all); the old value is one int64 per name, in that order.
 * A name that is not an integer node makes the whole call ENOENT. The names come in as the new
 * value (so the node is CTLFLAG_RW while it changes nothing), as with FreeBSD's
 * sysctl.name2oid (sys/kern/kern_sysctl.c, sysctl_sysctl_name2oid).
 */
static int sysctl_values(struct sysctl_req *req)
{
	if (req->newptr == NULL)
		return 0;
	if (req->newlen == 0 || req->newlen > SYSCTL_VALUES_MAX)
		return EINVAL;
	char *names = kmalloc(req->newlen, M_WAITOK);
	int error = sysctl_in(req, names, req->newlen);
	if (error == 0 && names[req->newlen - 1] != 0)
		error = EINVAL;
	for (size_t i = 0; error == 0 && i < req->newlen; i += strlen(names + i) + 1) {
		struct sysctl_oid *o = sysctl_find(names + i);
		uint32_t type = o ? o->oid_kind & CTLTYPE : 0;
		if (type != CTLTYPE_INT && type != CTLTYPE_QUAD) {
			error = ENOENT;
			break;
		}
		int64_t q = 0;
		int32_t v32;
		struct sysctl_req one = { .oldptr = type == CTLTYPE_INT ? (void *)&v32 : (void *)&q,
		                          .oldlen = type == CTLTYPE_INT ? sizeof(v32) : sizeof(q),
		                          .seg = UIO_SYSSPACE };
		error = sysctl_dispatch(o, &one);
		if (error == 0 && type == CTLTYPE_INT)
			q = v32;
		if (error == 0)
			error = sysctl_out(req, &q, sizeof(q));
	}
	kfree(names);
	return error;
}
SYSCTL_PROC(sysctl_values, "sysctl.values", CTLTYPE_OPAQUE | CTLFLAG_RW | CTLFLAG_ANYBODY, NULL, 0, sysctl_values, "S,values",
            "Integer nodes read in one call: new = NUL-terminated names, old = an int64 for each");

static int copyin_name(register_t uname, char *name)
{
	int error = copyinstr((void *)uname, name, SYSCTL_NAMELEN, NULL);
	return error == ENAMETOOLONG ? ENOENT : error;
}

/* The node named by a user string. */
static int sysctl_find_user(register_t uname, struct sysctl_oid **op)
{
	char name[SYSCTL_NAMELEN];
	int error = copyin_name(uname, name);
	if (error)
		return error;
	*op = sysctl_find(name);
	return *op ? 0 : ENOENT;
}

int sys_sysctl(register_t *args, register_t *rv)
{
	struct sysctl_oid *o;
	int error = sysctl_find_user(args[0], &o);
	if (error)
		return error;
	struct sysctl_req req = { .oldptr = (void *)args[1], .newptr = (void *)args[3],
	                          .newlen = args[4], .seg = UIO_USERSPACE };
	size_t *uoldlenp = (size_t *)args[2];
	if (uoldlenp && (error = copyin(uoldlenp, &req.oldlen, sizeof(req.oldlen))))
		return error;
	if (uoldlenp == NULL)
		req.oldptr = NULL;
	if (req.newptr != NULL && (o->oid_kind & CTLFLAG_WR) && !(o->oid_kind & CTLFLAG_ANYBODY) &&
	    suser(cred_cur()) != 0)
		return EPERM;
	error = sysctl_dispatch(o, &req);
	if (uoldlenp && (error == 0 || error == ENOMEM)) {
		int e2 = copyout(&req.oldidx, uoldlenp, sizeof(req.oldidx));
		if (e2)
			return e2;
	}
	return error;
}

int sys_sysctlnext(register_t *args, register_t *rv)
{
	char name[SYSCTL_NAMELEN];
	int error = copyin_name(args[0], name);
	if (error)
		return error;
	spin_lock(&sysctl_lock);
	struct sysctl_oid *o = sysctl_list;
	while (o && name[0] && strcmp(o->oid_name, name) <= 0)
		o = o->oid_next;
	const char *next = o ? o->oid_name : NULL;
	spin_unlock(&sysctl_lock);
	if (next == NULL)
		return ENOENT;
	size_t len = strlen(next) + 1;
	if (len > args[2])
		return ENOMEM;
	return copyout(next, (void *)args[1], len);
}

int sys_sysctlinfo(register_t *args, register_t *rv)
{
	struct sysctl_oid *o;
	int error = sysctl_find_user(args[0], &o);
	if (error)
		return error;
	struct sysctl_info info;
	memset(&info, 0, sizeof(info));
	info.kind = o->oid_kind;
	strlcpy(info.fmt, o->oid_fmt ? o->oid_fmt : "", sizeof(info.fmt));
	strlcpy(info.descr, o->oid_descr ? o->oid_descr : "", sizeof(info.descr));
	return copyout(&info, (void *)args[1], sizeof(info));
}

/* Boot-time tunables (name=value on the kernel command line) go through the same handlers. */
int kernel_sysctl_set(const char *name, const char *value)
{
	struct sysctl_oid *o = sysctl_find(name);
	if (o == NULL)
		return ENOENT;
	if (o->oid_kind & CTLFLAG_TUN)
		return 0;
	int ival;
	int64_t qval;
	struct sysctl_req req = { .seg = UIO_SYSSPACE };
	char *end;
	switch (o->oid_kind & CTLTYPE) {
	case CTLTYPE_INT:
	case CTLTYPE_QUAD:
		qval = strtoll(value, &end, 0);
		if (*end || end == value)
			return EINVAL;
		ival = (int)qval;
		bool is_int = (o->oid_kind & CTLTYPE) == CTLTYPE_INT;
		req.newptr = is_int ? (void *)&ival : (void *)&qval;
		req.newlen = is_int ? sizeof(ival) : sizeof(qval);
		break;
	case CTLTYPE_STRING:
		req.newptr = value;
		req.newlen = strlen(value);
		break;
	default:
		return EINVAL;
	}
	return sysctl_dispatch(o, &req);
}
