/*
 * vm_host.h: the kernel's VM code (vm_phys.c, vm_page.c, vm_object.c, vnode_pager.c,
 * vm_meter.c compiled in; vm_pageout.c, a lab's file, linked as an object of its own: tests/tests.mk)
 * in a host unit test, with the kernel services it calls
 * reduced to what a single-threaded test needs: spinlocks that only mark, sleeps that must not
 * happen (a panic), kmalloc on calloc, processes and vnodes as counters. A test defines the
 * pmap's page functions and the pager entry points itself (they are what it observes), then
 * calls vm_host_machine() for a synthetic page array.
 */
#ifndef _TESTS_UNIT_VM_HOST_H_
#define _TESTS_UNIT_VM_HOST_H_

#define WDRAIN_HOST_TEST                        /* see kern/types.h */
#include "../../kernel/include/sys/queue.h"   /* before libc: see sys/queue.h */
#include "unit.h"
#include <stdlib.h>
#include <setjmp.h>
#include "kern/lock.h"
#include "kern/klib.h"

static int panics;
static char panicmsg[256];
static jmp_buf panic_jmp;
static bool panic_armed;

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(panicmsg, sizeof(panicmsg), fmt, ap);
	va_end(ap);
	panics++;
	if (panic_armed)
		longjmp(panic_jmp, 1);
	printf("FAIL unexpected panic: %s\n", panicmsg);
	exit(1);
}

static char console[1024];
void kprintf(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(console);
	va_start(ap, fmt);
	vsnprintf(console + n, sizeof(console) - n, fmt, ap);
	va_end(ap);
}

size_t strlcpy(char *dst, const char *src, size_t size)   /* klib's; glibc 2.36 has none */
{
	size_t n = strlen(src);
	if (size > 0) {
		size_t k = n < size - 1 ? n : size - 1;
		memcpy(dst, src, k);
		dst[k] = 0;
	}
	return n;
}

void spin_lock(struct spinlock *lk) { lk->locked = 1; }
void spin_unlock(struct spinlock *lk) { lk->locked = 0; }
void spin_pause(struct spinlock *lk) { }
static int wakeups;
void wakeup(void *chan) { wakeups++; }
int msleep(void *chan, struct spinlock *lk, int flags, const char *wmesg, int timo)
{
	panic("msleep(%s) in a host test", wmesg);
}
void *kmalloc(size_t size, int flags) { return calloc(1, size); }
void kfree(void *p) { free(p); }
struct vnode;
static int vrefs;
void vref(struct vnode *vp) { vrefs++; }
static void (*vrele_hook)(void);               /* what "another CPU" does while vrele has the lock dropped */
void vrele(struct vnode *vp)
{
	vrefs--;
	if (vrele_hook)
		vrele_hook();
}
struct sysctl_req;
int sysctl_handle_string(struct sysctl_req *req, char *buf, size_t bufsize) { return 0; }
int sysctl_handle_int(struct sysctl_req *req, int *val) { return 0; }
int sysctl_out(struct sysctl_req *req, const void *p, size_t len) { return 0; }

#include "vm/vm_phys.c"
#include "vm/vm_page.c"
#include "vm/vm_object.c"
#include "vm/vnode_pager.c"
#include "vm/vm_meter.c"
#include "vm/vm_pageout.h"

int vget(struct vnode *vp) { vrefs++; return 0; }
void sleeplock_acquire(struct sleeplock *sl) { sl->locked = true; }
void sleeplock_release(struct sleeplock *sl) { sl->locked = false; }
bool sleeplock_tryacquire(struct sleeplock *sl)
{
	if (sl->locked)
		return false;
	sl->locked = true;
	return true;
}
struct proc *curproc_get(void) { return NULL; }
bool proc_killed(void) { return false; }
int kproc_create(void (*fn)(void *), void *arg, struct proc **pp, const char *fmt, ...) { return 0; }
int VOP_GETPAGES(struct vnode *vp, vm_page_t *m, int count, int reqpage) { panic("VOP_GETPAGES"); }
int VOP_PUTPAGES(struct vnode *vp, vm_page_t *m, int count, int flags, int *rtvals) { panic("VOP_PUTPAGES"); }
int vn_rdwr(enum uio_rw rw, struct vnode *vp, void *base, size_t len, off_t offset, enum uio_seg seg,
            int ioflag, size_t *residp) { panic("vn_rdwr"); }

/* Swap, as the test sets it: no swap objects exist in these tests, only the counters. */
int swap_pager_full;
static u_int host_swap_total = 1024, host_swap_used;
void swap_pager_stats(u_int *total, u_int *used) { *total = host_swap_total; *used = host_swap_used; }
void swap_pager_freespace(vm_object_t obj, vm_pindex_t start, vm_pindex_t n) { }
void swap_pager_dealloc(vm_object_t obj) { }
void swap_pager_move(vm_object_t src, vm_pindex_t si, vm_object_t dst, vm_pindex_t di) { }
void swap_pager_copy(vm_object_t src, vm_object_t dst, vm_pindex_t offset) { }

/* A machine of NPAGES frames: the first 256 and [HOLE_LO, HOLE_HI) not managed. */
#define NPAGES   4096
#define HOLE_LO  1000
#define HOLE_HI  1040

static void vm_host_machine(void)
{
	vm_page_array_size = NPAGES;
	vm_page_array = calloc(NPAGES, sizeof(struct vm_page));
	for (uint32_t i = 0; i < NPAGES; i++) {
		vm_page_array[i].phys_addr = i * PAGE_SIZE;
		TAILQ_INIT(&vm_page_array[i].pv_list);
	}
	memset(&vmcnt, 0, sizeof(vmcnt));
	vm_page_queues_init();
	for (uint32_t i = 256; i < NPAGES; i++) {
		if (i >= HOLE_LO && i < HOLE_HI)
			continue;
		vmcnt.v_page_count++;
		vm_phys_add_page(&vm_page_array[i]);
	}
	vm_pageout_targets(&vmcnt, vmcnt.v_page_count);
	vm_page_object_init();
}

static void check_accounting(const char *name)
{
	char buf[400];
	int n = vm_page_check(buf, sizeof(buf));
	if (n == 0 && strncmp(buf, "ok: ", 4) == 0)
		return pass(name);
	fail(name, "ok: ...", buf);
}

#endif
