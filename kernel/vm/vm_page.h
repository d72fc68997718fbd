/*
 * Resident pages: one struct vm_page per 4 KB frame of RAM (FreeBSD's vm_page_t), the page
 * queues and the page-level interface the buffer cache uses (docs/bufcache.md "VMIO").
 *
 * Every managed page is in exactly one of these states (the page-accounting invariant, checked
 * by the sysctl vm.stats.vm.v_page_check, see vm_meter.c):
 *   PQ_FREE      in the physical allocator (vm_phys.c), no object            v_free_count
 *   PQ_CACHE     clean, unmapped, still in its object, reusable at once      v_cache_count
 *   PQ_INACTIVE  in an object, a candidate for reclaim                       v_inactive_count
 *   PQ_ACTIVE    in an object, in use                                       v_active_count
 *   wired        PQ_NONE, wire_count > 0 (buffer pages, user pages until
 *                the fault handler pages them)                              v_wire_count
 *   kmem         PQ_NONE, owned by kmalloc (m->kmem != 0)                   v_kmem_count
 *   transient    PQ_NONE, neither: just allocated (busy) and not yet queued, or being freed
 * So free + cache + inactive + active + wired + kmem + transient = v_page_count.
 *
 * Interface. Each call takes vm_page_queue_lock itself: callers hold no VM
 * lock. Calls marked (ok in interrupt) take only that spinlock and never sleep.
 *   vm_page_alloc(obj, pindex, req)  a busy page at (obj, pindex) on no queue, or NULL (never
 *                                    sleeps). req: VM_ALLOC_NORMAL / _SYSTEM / _INTERRUPT. NULL
 *                                    also when (obj, pindex) has a page already (a race);
 *                                    vm_page_alloc_raced(obj, pindex) says which.
 *   vm_page_grab(obj, pindex, VM_ALLOC_NORMAL | VM_ALLOC_RETRY)  looked up or allocated, busy;
 *                                    sleeps "pgrab" on a busy page and in VM_WAIT.
 *   vm_page_lookup(obj, pindex)
 *   vm_page_busy / vm_page_wakeup / vm_page_sleep_busy(m, also_m_busy, wmesg)
 *   vm_page_io_start / vm_page_io_finish (ok in interrupt)
 *   vm_page_wire / vm_page_unwire(m, activate)
 *   vm_page_activate / deactivate / cache / free
 *   vm_page_dirty / undirty / test_dirty, vm_page_set_validclean, vm_page_zero_fill, vm_page_copy
 *   vm_page_protect(m, VM_PROT_NONE | VM_PROT_READ)
 *   vm_wait() (VM_WAIT)              sleep "vmwait" until free+cache is above v_free_reserved
 *   vm_page_count_severe / vm_page_count_min / vm_paging_needed / vm_paging_target
 *   PHYS_TO_VM_PAGE(pa), VM_PAGE_TO_PHYS(m): every managed frame is below DMAP_MAX, so
 *                                    P2V(VM_PAGE_TO_PHYS(m)) is its kernel address.
 * VM-internal (vm/ files only), with vm_page_queue_lock held: the *_locked variants,
 * vm_page_insert / vm_page_remove, vm_page_queues[].
 *
 * Locking: vm_page_queue_lock (a spinlock) protects every field below except phys_addr (constant)
 * and the kmalloc bucket fields (kmem_lock in kern_malloc.c), the queues, the object page lists
 * and the page hash, and the counters in vmcnt that describe them.
 */
#ifndef _VM_VM_PAGE_H_
#define _VM_VM_PAGE_H_

#include "kern/types.h"
#include "kern/lock.h"
#include "vm/vm.h"
#include <sys/queue.h>

/* Page queues (FreeBSD's vm_page.h of 2000, [@fbsd-vm_page.h-2000]; without its 32 colours). */
enum pqueue { PQ_NONE, PQ_FREE, PQ_CACHE, PQ_INACTIVE, PQ_ACTIVE, PQ_COUNT };

TAILQ_HEAD(pglist, vm_page);
struct pv_entry;

/* kmalloc's own state of a page it owns (kern_malloc.c; kmem_lock). */
struct vm_page_kmem {
	LIST_ENTRY(vm_page) link;         /* bucket page with free chunks */
	void               *freelist;     /* its free chunks */
	uint16_t            size;         /* chunk size, 0 for a page of a large block */
	uint16_t            used;         /* chunks handed out */
};

struct vm_page {
	TAILQ_ENTRY(vm_page) pageq;       /* page queue, or the physical allocator's free lists */
	TAILQ_ENTRY(vm_page) listq;       /* pages of the same object */
	struct vm_page   *hnext;          /* (object, pindex) hash chain */
	struct vm_object *object;         /* NULL if in none */
	vm_pindex_t       pindex;         /* index in object */
	paddr_t           phys_addr;      /* constant */
	uint16_t          flags;          /* PG_* */
	uint16_t          wire_count;     /* wired down: on no queue while > 0 */
	uint16_t          hold_count;     /* held (not freed while > 0) */
	uint8_t           queue;          /* enum pqueue: FreeBSD's page queue, nothing else */
	uint8_t           busy;           /* I/Os in progress (FreeBSD's soft busy) */
	uint8_t           act_count;      /* page usage (ACT_*) */
	uint8_t           valid;          /* DEV_BSIZE chunks valid (wdrain: 0 or VM_PAGE_BITS_ALL) */
	uint8_t           dirty;          /* DEV_BSIZE chunks dirty (likewise) */
	uint8_t           kmem;           /* KMEM_*: owned by kmalloc */
	uint8_t           order;          /* physical allocator: block order (vm_phys.c) */
	uint8_t           pstate;         /* physical allocator: PHYS_* (vm_phys.c) */
	struct vm_page_kmem km;           /* kmalloc's bucket state (kmem_lock) */
	TAILQ_HEAD(, pv_entry) pv_list;   /* the page's mappings (arch/pmap.c) */
};

/* flags */
#define PG_BUSY       0x0001          /* exclusively busy: being filled, freed or paged */
#define PG_WANTED     0x0002          /* someone sleeps on the page until not busy */
#define PG_REFERENCED 0x0004          /* referenced since last looked at (besides pmap bits) */
#define PG_WRITEABLE  0x0008          /* some mapping may write it */
#define PG_MAPPED     0x0010          /* some mapping exists */
#define PG_WINATCFLS  0x0020          /* one-pass pageout: already sent around the queue once */
#define PG_CLEANCHK   0x0040          /* page-clean pass marker */
#define PG_MARKER     0x0080          /* a scan's place holder on a queue, not a real page */

/* kmem */
#define KMEM_NONE   0
#define KMEM_OWNED  1                 /* a page of a kmalloc block or bucket page */

/* act_count (FreeBSD 4.x vm_page.h) */
#define ACT_DECLINE 1
#define ACT_ADVANCE 3
#define ACT_INIT    5
#define ACT_MAX     64

#define VM_PAGE_BITS_ALL 0xff         /* PAGE_SIZE / DEV_BSIZE = 8 chunks */

/* vm_page_alloc requests */
#define VM_ALLOC_NORMAL    0          /* fails at or below v_free_reserved */
#define VM_ALLOC_INTERRUPT 1          /* may take the last free page */
#define VM_ALLOC_SYSTEM    2          /* pagedaemon, pager I/O, kmalloc M_WAITOK: down to
                                         v_interrupt_free_min */
#define VM_ALLOC_CLASS_MASK 3
#define VM_ALLOC_RETRY     0x80       /* vm_page_grab: sleep and retry instead of failing */

/*
 * The VM's counters and targets (FreeBSD's struct vmmeter, there called `cnt`). Counts are
 * protected by vm_page_queue_lock; event counters are bumped without a lock (approximate on
 * SMP, like FreeBSD 4's). Exported read-only as vm.stats.vm.<name> (vm_meter.c).
 */
struct vmmeter {
	/* page counts */
	u_int v_page_count;               /* managed pages */
	u_int v_free_count;
	u_int v_cache_count;
	u_int v_inactive_count;
	u_int v_active_count;
	u_int v_wire_count;
	u_int v_kmem_count;               /* wdrain: pages owned by kmalloc */
	/* targets (vm_pageout_targets) */
	u_int v_free_min;
	u_int v_free_reserved;
	u_int v_free_severe;
	u_int v_free_target;
	u_int v_cache_min;
	u_int v_cache_max;
	u_int v_inactive_target;
	u_int v_pageout_free_min;
	u_int v_interrupt_free_min;
	/* events */
	u_int v_swtch;                    /* context switches */
	u_int v_trap;                     /* traps (exceptions) */
	u_int v_syscall;                  /* system calls */
	u_int v_intr;                     /* device interrupts */
	u_int v_reactivated;              /* pages taken back from the cache or inactive queue */
	u_int v_pdwakeups;                /* pagedaemon wakeups */
	u_int v_pdpages;                  /* pages scanned by the pagedaemon */
	u_int v_tfree;                    /* pages freed */
	u_int v_vmwaits;                  /* wdrain: sleeps in VM_WAIT */
	u_int v_vm_faults;                /* page faults resolved */
	u_int v_cow_faults;               /* copy-on-write faults (a page copied) */
	u_int v_zfod;                     /* pages zero-filled on demand */
	u_int v_vnodein;                  /* vnode pager page-ins (operations) */
	u_int v_vnodepgsin;               /* pages paged in from files */
	u_int v_vnodeout;                 /* vnode pager page-outs (operations) */
	u_int v_vnodepgsout;              /* pages written to files */
	u_int v_swapin;                   /* swap pager page-ins (operations) */
	u_int v_swappgsin;                /* pages paged in from swap */
	u_int v_swapout;                  /* swap pager page-outs (operations) */
	u_int v_swappgsout;               /* pages written to swap */
	u_int v_pgpgout;                  /* 4.4BSD: pages paged out, to swap and files */
	u_int v_dfree;                    /* pages freed by the pagedaemon */
	u_int v_pdlaundered;              /* wdrain: pages the pagedaemon sent to a pager */
	u_int v_pdclusters;               /* wdrain: launder operations (clusters) */
	u_int v_pdrequeued;               /* wdrain, onepass: dirty pages sent around the queue */
	u_int v_pdrescans;                /* wdrain, twopass: second (laundering) passes */
	u_int v_pdscans_twopass;          /* wdrain: inactive scans by each design */
	u_int v_pdscans_onepass;
	u_int v_pdvnodeskips;             /* wdrain: dirty file pages passed over, vnode locked */
	u_int v_pdpauses;                 /* wdrain: scans dropped the VM lock between batches */
	u_int v_oomkills;                 /* wdrain: processes killed for lack of memory and swap */
	u_int v_contig_reclaims;          /* wdrain: runs of pages freed for a multi-page kmalloc */
	u_int v_contig_fails;             /* wdrain: multi-page kmallocs that found no run */
};
extern struct vmmeter vmcnt;

struct vpgqueues {
	struct pglist pl;
	u_int        *cnt;                /* the vmcnt counter of this queue */
};
extern struct vpgqueues vm_page_queues[PQ_COUNT];  /* PQ_CACHE .. PQ_ACTIVE (PQ_FREE: vm_phys.c) */
extern struct spinlock vm_page_queue_lock;

extern struct vm_page *vm_page_array;
extern uint32_t vm_page_array_size;
extern uint32_t physmem_pages;        /* == vmcnt.v_page_count */

struct multiboot_info;
void vm_page_startup(const struct multiboot_info *mbi, const paddr_t (*reserved)[2], int nreserved);

vm_page_t vm_page_alloc(vm_object_t obj, vm_pindex_t pindex, int req);
vm_page_t vm_page_grab(vm_object_t obj, vm_pindex_t pindex, int flags);
vm_page_t vm_page_lookup(vm_object_t obj, vm_pindex_t pindex);
bool      vm_page_alloc_raced(vm_object_t obj, vm_pindex_t pindex);
void      vm_page_busy(vm_page_t m);
void      vm_page_wakeup(vm_page_t m);
bool      vm_page_sleep_busy(vm_page_t m, bool also_m_busy, const char *wmesg);
void      vm_page_io_start(vm_page_t m);
void      vm_page_io_finish(vm_page_t m);
void      vm_page_hold(vm_page_t m);
void      vm_page_unhold(vm_page_t m);
void      vm_page_wire(vm_page_t m);
void      vm_page_unwire(vm_page_t m, bool activate);
void      vm_page_activate(vm_page_t m);
void      vm_page_deactivate(vm_page_t m);
void      vm_page_cache(vm_page_t m);
void      vm_page_free(vm_page_t m);
void      vm_page_dirty(vm_page_t m);
void      vm_page_undirty(vm_page_t m);
void      vm_page_test_dirty(vm_page_t m);
void      vm_page_set_validclean(vm_page_t m);
void      vm_page_zero_fill(vm_page_t m);
void      vm_page_copy(vm_page_t src, vm_page_t dst);
void      vm_page_protect(vm_page_t m, vm_prot_t prot);
void      vm_wait(void);
int       vm_page_check(char *buf, size_t len);   /* vm_meter.c: problems found */
void      vm_meter_dump(void);                    /* vm_meter.c: the queues on the console (^P) */
void      vm_wait_kmem(int order);                /* kmalloc's wait: VM_WAIT, or "kmemfrag" */
#define   VM_WAIT vm_wait()

/* Contiguous kernel memory for kmalloc: 2^order pages marked kmem, or NULL (never sleeps). */
vm_page_t vm_page_alloc_kmem(int order, int req);
void      vm_page_free_kmem(vm_page_t m);      /* m: the block's first page */

/* VM-internal, vm_page_queue_lock held. */
void      vm_page_insert(vm_page_t m, vm_object_t obj, vm_pindex_t pindex);
void      vm_page_remove(vm_page_t m);
vm_page_t vm_page_lookup_locked(vm_object_t obj, vm_pindex_t pindex);
void      vm_page_activate_locked(vm_page_t m);
void      vm_page_deactivate_locked(vm_page_t m);
void      vm_page_cache_locked(vm_page_t m);
void      vm_page_free_locked(vm_page_t m);
void      vm_page_unqueue(vm_page_t m);
void      vm_page_requeue(vm_page_t m);         /* to the tail of its own queue */
void      vm_page_io_finish_locked(vm_page_t m);
vm_page_t vm_page_select_cache(void);           /* a reusable cache page, or NULL */
void      vm_wait_wakeup(void);                 /* wake every VM_WAIT sleeper */
void      vm_page_protect_locked(vm_page_t m, vm_prot_t prot);
void      vm_page_test_dirty_locked(vm_page_t m);
void      vm_page_object_init(void);            /* the page hash (vm_object_init) */

/* Free-memory tests (FreeBSD 4.x vm_page.h / vmmeter.h; docs/vm.md "The targets"), on free+cache. */
static inline u_int vm_page_avail(void)
{
	return vmcnt.v_free_count + vmcnt.v_cache_count;
}
static inline bool vm_page_count_severe(void)
{
	return vm_page_avail() < vmcnt.v_free_severe;
}
static inline bool vm_page_count_min(void)
{
	return vm_page_avail() < vmcnt.v_free_min;
}
static inline bool vm_paging_needed(void)
{
	return vm_page_avail() < vmcnt.v_free_reserved + vmcnt.v_cache_min;
}
/* Pages to reclaim to reach free_target + cache_min (negative: nothing to do). */
static inline int vm_paging_target(void)
{
	return (int)(vmcnt.v_free_target + vmcnt.v_cache_min) - (int)vm_page_avail();
}

static inline vm_page_t PHYS_TO_VM_PAGE(paddr_t pa)
{
	uint32_t i = pa >> PAGE_SHIFT;
	return i < vm_page_array_size ? &vm_page_array[i] : NULL;
}
#define VM_PAGE_TO_PHYS(m) ((m)->phys_addr)

#endif
