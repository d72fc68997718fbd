/*
 * The swap pager (see swap_pager.h). After FreeBSD 4.x vm/swap_pager.c in its names (swblock,
 * SWAPBLK_NONE, swap_pager_full, swap_pager_freespace, swp_pager_async_iodone) and behaviour
 * (clustered asynchronous writes, one request per run of contiguous swap blocks; a page read
 * back stays clean and keeps its swap copy unless swap is getting full), written for wdrain:
 * a bitmap per device instead of FreeBSD's blist, requests from a static pool instead of pbufs,
 * and the block layer's page lists (BIO_UNMAPPED) instead of mapping the pages.
 */
#include "vm/swap_pager.h"
#include "vm/vm_pager.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "dev/disk.h"
#include <sys/errno.h>

#define NSWAPDEV         4
#define SWAP_META_PAGES  16               /* pages described by one swblock */
#define SWAPBLK_NONE     0xffffffffu
#define NSWREQ           32               /* requests in flight at most */
#define SWREQ_PAGES      16               /* pages in one request (a pageout cluster) */
#define SWHASH_SIZE      1024

struct swdev {
	struct disk *sw_disk;
	uint32_t     sw_base;                 /* global number of its block 0 */
	uint32_t     sw_nblks;
	uint32_t     sw_used;
	uint32_t    *sw_bitmap;               /* a bit per block, 1 = in use */
	uint32_t     sw_rotor;                /* where the next search starts */
};

struct swblock {
	struct swblock        *swb_hnext;     /* hash chain, or the free pool */
	LIST_ENTRY(swblock)    swb_olist;     /* the object's swblocks */
	vm_object_t            swb_object;
	vm_pindex_t            swb_index;     /* first pindex, a multiple of SWAP_META_PAGES */
	int                    swb_count;     /* blocks in use here */
	uint32_t               swb_pages[SWAP_META_PAGES];
};

struct swreq {
	struct bio     sr_bio;
	vm_page_t      sr_ma[SWREQ_PAGES];
	int            sr_n;
	vm_object_t    sr_obj;
	volatile bool  sr_done;               /* reads: completed */
	struct swreq  *sr_next;               /* free list */
};

int swap_pager_full;
static struct swdev swdevs[NSWAPDEV];
static int nswdev;
static u_int swap_total, swap_used;       /* pages */
static struct swblock *swhash[SWHASH_SIZE];
static struct swblock *swb_free;
static struct swreq swreq_pool[NSWREQ];
static struct swreq *swreq_free;
static int swreq_wanted;

static int sysctl_swap_info(struct sysctl_req *req);
SYSCTL_PROC(vm_swap_info, "vm.swap_info", CTLTYPE_OPAQUE | CTLFLAG_RD, NULL, 0, sysctl_swap_info,
            "S,xswdev", "Swap devices: struct xswdev for each");
SYSCTL_INT(vm, swap_full, CTLFLAG_RD, &swap_pager_full, "Swap space ran out (swap_pager_full)");

void swap_pager_init(void)
{
	for (int i = 0; i < NSWREQ; i++) {
		swreq_pool[i].sr_next = swreq_free;
		swreq_free = &swreq_pool[i];
	}
}

/* ---- swap space ---------------------------------------------------------------------------------- */

static bool bit_get(const uint32_t *map, uint32_t i)
{
	return (map[i / 32] >> (i % 32)) & 1;
}

static void bit_set(uint32_t *map, uint32_t i, bool on)
{
	if (on)
		map[i / 32] |= 1u << (i % 32);
	else
		map[i / 32] &= ~(1u << (i % 32));
}

/* n free contiguous blocks on one device: the first one's global number, or SWAPBLK_NONE. */
static uint32_t swp_alloc_run(uint32_t n)
{
	for (int d = 0; d < nswdev; d++) {
		struct swdev *sw = &swdevs[d];
		if (sw->sw_nblks - sw->sw_used < n)
			continue;
		for (uint32_t tries = 0, i = sw->sw_rotor; tries < sw->sw_nblks; tries++, i++) {
			if (i + n > sw->sw_nblks) {
				i = 0;
				if (tries + n > sw->sw_nblks)
					break;
			}
			uint32_t k = 0;
			while (k < n && !bit_get(sw->sw_bitmap, i + k))
				k++;
			if (k < n) {
				tries += k;
				i += k;
				continue;
			}
			for (k = 0; k < n; k++)
				bit_set(sw->sw_bitmap, i + k, true);
			sw->sw_used += n;
			sw->sw_rotor = i + n;
			swap_used += n;
			return sw->sw_base + i;
		}
	}
	return SWAPBLK_NONE;
}

static struct swdev *swp_dev(uint32_t blk)
{
	for (int d = 0; d < nswdev; d++)
		if (blk >= swdevs[d].sw_base && blk - swdevs[d].sw_base < swdevs[d].sw_nblks)
			return &swdevs[d];
	panic("swap: block %u on no device", blk);
}

static void swp_free_blk(uint32_t blk)
{
	struct swdev *sw = swp_dev(blk);
	KASSERT(bit_get(sw->sw_bitmap, blk - sw->sw_base), "swap: freeing a free block");
	bit_set(sw->sw_bitmap, blk - sw->sw_base, false);
	sw->sw_used--;
	swap_used--;
	swap_pager_full = 0;
}

/* Swap is getting full (FreeBSD's vm_swap_full): more than 3/4 used. */
static bool swap_nearly_full(void)
{
	return swap_used * 4 > swap_total * 3;
}

/* ---- swblocks ---------------------------------------------------------------------------------- */

static struct swblock **swb_head(vm_object_t obj, vm_pindex_t base)
{
	uint32_t h = ((uint32_t)(uintptr_t)obj >> 4) * 2654435761u + base / SWAP_META_PAGES;
	return &swhash[h % SWHASH_SIZE];
}

static struct swblock *swb_lookup(vm_object_t obj, vm_pindex_t pindex)
{
	vm_pindex_t base = pindex - pindex % SWAP_META_PAGES;
	struct swblock *b = *swb_head(obj, base);
	while (b && !(b->swb_object == obj && b->swb_index == base))
		b = b->swb_hnext;
	return b;
}

static uint32_t swp_block(vm_object_t obj, vm_pindex_t pindex)
{
	struct swblock *b = swb_lookup(obj, pindex);
	return b ? b->swb_pages[pindex % SWAP_META_PAGES] : SWAPBLK_NONE;
}

/* An empty swblock leaves the hash and its object's list for the pool. */
static void swb_release(vm_object_t obj, struct swblock *b)
{
	struct swblock **h = swb_head(obj, b->swb_index);
	while (*h != b)
		h = &(*h)->swb_hnext;
	*h = b->swb_hnext;
	LIST_REMOVE(b, swb_olist);
	b->swb_hnext = swb_free;
	swb_free = b;
}

/* Set (obj, pindex)'s block (SWAPBLK_NONE clears it). false: no swblock could be had. */
static bool swp_setblock(vm_object_t obj, vm_pindex_t pindex, uint32_t blk)
{
	struct swblock *b = swb_lookup(obj, pindex);
	if (b == NULL) {
		if (blk == SWAPBLK_NONE)
			return true;
		if (swb_free == NULL)
			return false;
		b = swb_free;
		swb_free = b->swb_hnext;
		b->swb_object = obj;
		b->swb_index = pindex - pindex % SWAP_META_PAGES;
		b->swb_count = 0;
		for (int i = 0; i < SWAP_META_PAGES; i++)
			b->swb_pages[i] = SWAPBLK_NONE;
		struct swblock **h = swb_head(obj, b->swb_index);
		b->swb_hnext = *h;
		*h = b;
		LIST_INSERT_HEAD(&obj->un_pager.swp.swp_blocks, b, swb_olist);
	}
	uint32_t *slot = &b->swb_pages[pindex % SWAP_META_PAGES];
	if (*slot != SWAPBLK_NONE) {
		swp_free_blk(*slot);
		b->swb_count--;
	}
	*slot = blk;
	if (blk != SWAPBLK_NONE)
		b->swb_count++;
	if (b->swb_count == 0)
		swb_release(obj, b);
	return true;
}

bool swap_pager_haspage(vm_object_t obj, vm_pindex_t pindex)
{
	return obj->type == OBJT_SWAP && swp_block(obj, pindex) != SWAPBLK_NONE;
}

void swap_pager_freespace(vm_object_t obj, vm_pindex_t start, vm_pindex_t n)
{
	if (obj->type != OBJT_SWAP)
		return;
	for (vm_pindex_t i = start; i < start + n; i++)
		swp_setblock(obj, i, SWAPBLK_NONE);
}

void swap_pager_dealloc(vm_object_t obj)
{
	struct swblock *b;
	if (obj->type != OBJT_SWAP)
		return;                              /* un_pager is another pager's */
	while ((b = LIST_FIRST(&obj->un_pager.swp.swp_blocks)) != NULL)
		for (int i = 0; i < SWAP_META_PAGES; i++)
			if (b->swb_pages[i] != SWAPBLK_NONE)
				swp_setblock(obj, b->swb_index + i, SWAPBLK_NONE);
}

/* Take (obj, pindex)'s block out of the metadata without freeing it (SWAPBLK_NONE if none). */
static uint32_t swp_takeblock(vm_object_t obj, vm_pindex_t pindex)
{
	struct swblock *b = swb_lookup(obj, pindex);
	if (b == NULL || b->swb_pages[pindex % SWAP_META_PAGES] == SWAPBLK_NONE)
		return SWAPBLK_NONE;
	uint32_t blk = b->swb_pages[pindex % SWAP_META_PAGES];
	b->swb_pages[pindex % SWAP_META_PAGES] = SWAPBLK_NONE;
	if (--b->swb_count == 0)
		swb_release(obj, b);
	return blk;
}

/* Give blk to (dst, di), or free it if no swblock can be had (the page is then not on swap). */
static void swp_give(vm_object_t dst, vm_pindex_t di, uint32_t blk)
{
	dst->type = OBJT_SWAP;
	if (!swp_setblock(dst, di, blk))
		swp_free_blk(blk);
}

void swap_pager_move(vm_object_t src, vm_pindex_t si, vm_object_t dst, vm_pindex_t di)
{
	if (src->type != OBJT_SWAP)
		return;
	uint32_t blk = swp_takeblock(src, si);
	if (blk == SWAPBLK_NONE)
		return;
	if (!(dst->type == OBJT_SWAP && swp_block(dst, di) != SWAPBLK_NONE))
		swp_give(dst, di, blk);
	else
		swp_free_blk(blk);
}

void swap_pager_copy(vm_object_t src, vm_object_t dst, vm_pindex_t offset)
{
	struct swblock *b;
	while (src->type == OBJT_SWAP && (b = LIST_FIRST(&src->un_pager.swp.swp_blocks)) != NULL) {
		vm_pindex_t base = b->swb_index;
		for (int i = 0; i < SWAP_META_PAGES; i++) {
			vm_pindex_t pi = base + i;
			uint32_t blk = swp_takeblock(src, pi);  /* the last one releases b */
			if (blk == SWAPBLK_NONE)
				continue;
			if (pi >= offset && pi - offset < dst->size &&
			    vm_page_lookup_locked(dst, pi - offset) == NULL && !swap_pager_haspage(dst, pi - offset))
				swp_give(dst, pi - offset, blk);
			else
				swp_free_blk(blk);
		}
	}
}

/* ---- I/O --------------------------------------------------------------------------------------- */

/* A request from the pool, sleeping ("swwrt") while all are in flight. Lock held. */
static struct swreq *swreq_get(void)
{
	while (swreq_free == NULL) {
		swreq_wanted = 1;
		msleep(&swreq_free, &vm_page_queue_lock, 0, "swwrt", 0);
	}
	struct swreq *r = swreq_free;
	swreq_free = r->sr_next;
	memset(&r->sr_bio, 0, sizeof(r->sr_bio));
	r->sr_done = false;
	return r;
}

static void swreq_put(struct swreq *r)
{
	r->sr_next = swreq_free;
	swreq_free = r;
	if (swreq_wanted) {
		swreq_wanted = 0;
		wakeup(&swreq_free);
	}
}

/* Fill in the bio of r for its n pages at global block blk and start it. Lock held; dropped
 * around the driver call (a driver may complete at once, from this context). */
static void swreq_start(struct swreq *r, int cmd, uint32_t blk, void (*done)(struct bio *))
{
	struct swdev *sw = swp_dev(blk);
	struct bio *bp = &r->sr_bio;
	bp->bio_cmd = cmd;
	bp->bio_flags = BIO_UNMAPPED;
	bp->bio_disk = sw->sw_disk;
	bp->bio_offset = (uint64_t)(blk - sw->sw_base) * PAGE_SIZE;
	bp->bio_length = (uint32_t)r->sr_n * PAGE_SIZE;
	bp->bio_ma = r->sr_ma;
	bp->bio_ma_n = r->sr_n;
	bp->bio_done = done;
	bp->bio_caller1 = r;
	r->sr_obj->paging_in_progress++;
	spin_unlock(&vm_page_queue_lock);
	disk_start(bp);
	spin_lock(&vm_page_queue_lock);
}

static void swreq_end(struct swreq *r)
{
	if (--r->sr_obj->paging_in_progress == 0)
		wakeup(r->sr_obj);
}

/*
 * A pageout finished (interrupt context; FreeBSD's swp_pager_async_iodone). Written pages are
 * clean now; a failed write leaves the page dirty and forgets its swap copy. Either way the
 * page's I/O is over (the pageout daemon frees or caches it on a later scan).
 */
static void swap_write_done(struct bio *bp)
{
	struct swreq *r = bp->bio_caller1;
	spin_lock(&vm_page_queue_lock);
	for (int i = 0; i < r->sr_n; i++) {
		vm_page_t m = r->sr_ma[i];
		if (bp->bio_error) {
			vm_page_dirty(m);
			swp_setblock(r->sr_obj, m->pindex, SWAPBLK_NONE);
		} else {
			vm_page_undirty(m);
		}
		vm_page_io_finish_locked(m);
	}
	swreq_end(r);
	swreq_put(r);
	spin_unlock(&vm_page_queue_lock);
}

static void swap_read_done(struct bio *bp)
{
	struct swreq *r = bp->bio_caller1;
	spin_lock(&vm_page_queue_lock);
	r->sr_done = true;
	wakeup(r);
	spin_unlock(&vm_page_queue_lock);
}

/*
 * Page in (FreeBSD's swap_pager_getpages): the pages of m[0..count) (consecutive pindexes) whose
 * swap blocks follow on from m[reqpage]'s on its device are read in one request, and the caller
 * waits for it; the others are left not valid, for the caller to free (a read-ahead that would
 * cost another seek is not worth a page). VM_PAGER_OK when m[reqpage] was read. The pages keep
 * their swap copies (they are clean) unless swap is more than 3/4 full, then the copy is freed
 * and the page is dirty, as FreeBSD's fault handler does with vm_swap_full().
 */
int swap_pager_getpages(vm_object_t obj, vm_page_t *m, int count, int reqpage)
{
	spin_lock(&vm_page_queue_lock);
	uint32_t blk = swp_block(obj, m[reqpage]->pindex);
	if (blk == SWAPBLK_NONE) {
		spin_unlock(&vm_page_queue_lock);
		return VM_PAGER_ERROR;
	}
	int first = reqpage, last = reqpage + 1;
	while (first > 0 && last - first < SWREQ_PAGES && (uint32_t)(reqpage - first) < blk &&
	       swp_block(obj, m[first - 1]->pindex) == blk - (uint32_t)(reqpage - first + 1) &&
	       swp_dev(blk - (uint32_t)(reqpage - first + 1)) == swp_dev(blk))
		first--;
	while (last < count && last - first < SWREQ_PAGES &&
	       swp_block(obj, m[last]->pindex) == blk + (uint32_t)(last - reqpage) &&
	       swp_dev(blk + (uint32_t)(last - reqpage)) == swp_dev(blk))
		last++;
	struct swreq *r = swreq_get();
	r->sr_obj = obj;
	r->sr_n = last - first;
	for (int i = first; i < last; i++)
		r->sr_ma[i - first] = m[i];
	swreq_start(r, BIO_READ, blk - (uint32_t)(reqpage - first), swap_read_done);
	while (!r->sr_done)
		msleep(r, &vm_page_queue_lock, 0, "swread", 0);
	int error = r->sr_bio.bio_error;
	for (int i = first; i < last && !error; i++) {
		vm_page_t p = m[i];
		p->valid = VM_PAGE_BITS_ALL;
		p->dirty = 0;
		if (swap_nearly_full()) {
			swp_setblock(obj, p->pindex, SWAPBLK_NONE);
			vm_page_dirty(p);
		}
	}
	vmcnt.v_swapin++;
	vmcnt.v_swappgsin += r->sr_n;
	swreq_end(r);
	swreq_put(r);
	spin_unlock(&vm_page_queue_lock);
	return error ? VM_PAGER_ERROR : VM_PAGER_OK;
}

/*
 * Page out (FreeBSD's swap_pager_putpages): an anonymous object becomes a swap object; each
 * run of pages gets the longest run of contiguous free blocks available (16, 8, ... 1) and one
 * asynchronous write. A page's old swap copy, if any, is freed first. Without space the rest
 * fail (VM_PAGER_FAIL) and swap_pager_full is set: the pageout daemon then reactivates them,
 * and kills a process if memory is short too.
 */
void swap_pager_putpages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals)
{
	spin_lock(&vm_page_queue_lock);
	if (obj->type == OBJT_DEFAULT)
		obj->type = OBJT_SWAP;
	int i = 0;
	while (i < count) {
		int n = 1;
		while (i + n < count && n < SWREQ_PAGES && m[i + n]->pindex == m[i]->pindex + (vm_pindex_t)n)
			n++;
		uint32_t blk = SWAPBLK_NONE;
		while (n > 0 && (blk = swp_alloc_run((uint32_t)n)) == SWAPBLK_NONE)
			n /= 2;
		if (blk == SWAPBLK_NONE) {
			swap_pager_full = 1;
			break;
		}
		int set = 0;
		while (set < n && swp_setblock(obj, m[i + set]->pindex, blk + (uint32_t)set))
			set++;
		for (int k = set; k < n; k++)             /* no swblock for them: give the blocks back */
			swp_free_blk(blk + (uint32_t)k);
		if (set == 0)
			break;
		struct swreq *r = swreq_get();
		r->sr_obj = obj;
		r->sr_n = set;
		for (int k = 0; k < set; k++) {
			r->sr_ma[k] = m[i + k];
			rtvals[i + k] = VM_PAGER_PEND;
		}
		vmcnt.v_swapout++;
		vmcnt.v_swappgsout += set;
		swreq_start(r, BIO_WRITE, blk, swap_write_done);
		i += set;
	}
	for (; i < count; i++)
		rtvals[i] = VM_PAGER_FAIL;
	spin_unlock(&vm_page_queue_lock);
	(void)flags;
}

/* ---- devices ----------------------------------------------------------------------------------- */

/* More swblocks for `pages` more pages of swap: one per 16 pages, plus slack for sparse use. */
static void swb_grow(uint32_t pages)
{
	uint32_t n = pages / SWAP_META_PAGES + pages / 64 + 16;
	while (n > 0) {
		uint32_t k = MIN(n, 4096u);
		struct swblock *a = kmalloc(k * sizeof(*a), M_WAITOK | M_ZERO);
		spin_lock(&vm_page_queue_lock);
		for (uint32_t i = 0; i < k; i++) {
			a[i].swb_hnext = swb_free;
			swb_free = &a[i];
		}
		spin_unlock(&vm_page_queue_lock);
		n -= k;
	}
}

int swapon_disk(struct disk *dp)
{
	if (dp->d_sectorsize == 0 || PAGE_SIZE % dp->d_sectorsize)
		return EINVAL;
	uint64_t nblks = dp->d_mediasize / PAGE_SIZE;
	if (nblks < SWAP_META_PAGES || nblks > (1u << 24))
		return EINVAL;
	for (int d = 0; d < nswdev; d++)
		if (swdevs[d].sw_disk == dp)
			return EBUSY;           /* already swap: FreeBSD's swaponvp says EBUSY */
	if (nswdev == NSWAPDEV)
		return ENOSPC;
	int error = disk_open(dp, DISK_EXCL);
	if (error)
		return error;
	uint32_t *bitmap = kmalloc(howmany((uint32_t)nblks, 32) * sizeof(uint32_t), M_WAITOK | M_ZERO);
	swb_grow((uint32_t)nblks);
	spin_lock(&vm_page_queue_lock);
	struct swdev *sw = &swdevs[nswdev];
	sw->sw_disk = dp;
	sw->sw_base = nswdev ? swdevs[nswdev - 1].sw_base + swdevs[nswdev - 1].sw_nblks : 0;
	sw->sw_nblks = (uint32_t)nblks;
	sw->sw_bitmap = bitmap;
	nswdev++;
	swap_total += (uint32_t)nblks;
	swap_pager_full = 0;
	spin_unlock(&vm_page_queue_lock);
	kprintf("swap: %s: %u KB added\n", dp->d_name, (uint32_t)nblks * 4);
	return 0;
}

void swap_pager_stats(u_int *total, u_int *used)
{
	*total = swap_total;
	*used = swap_used;
}

static int sysctl_swap_info(struct sysctl_req *req)
{
	struct xswdev x[NSWAPDEV];
	int n;
	spin_lock(&vm_page_queue_lock);
	for (n = 0; n < nswdev; n++) {
		memset(&x[n], 0, sizeof(x[n]));
		strlcpy(x[n].xsw_name, swdevs[n].sw_disk->d_name, sizeof(x[n].xsw_name));
		x[n].xsw_nblks = swdevs[n].sw_nblks;
		x[n].xsw_used = swdevs[n].sw_used;
	}
	spin_unlock(&vm_page_queue_lock);
	return sysctl_out(req, x, n * sizeof(x[0]));
}
