/*
 * md.c - memory disks (FreeBSD's md(4), preloaded type only; interface: dev/md.h).
 *
 * A memory disk is a run of direct-mapped kernel memory, here the root image GRUB loaded as a
 * multiboot module. It behaves like real hardware on purpose: d_strategy only queues the bio
 * and returns; the disk's kernel thread ("md0") copies the data and completes the request with
 * disk_iodone, so the buffer cache always sees asynchronous completion. The data may be mapped
 * or a page list (dev/disk.h): the thread copies segment by segment through the direct map.
 *
 * Locking: each softc's sc_lock (spinlock) protects its queue; the thread sleeps on the softc.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/proc.h"
#include "arch/memlayout.h"
#include "dev/disk.h"
#include "dev/md.h"
#include <sys/errno.h>

#define MD_SECTORSIZE 512
#define MD_MAXIO      (1024 * 1024)
#define MD_NSEGS      (MD_MAXIO / PAGE_SIZE + 1)   /* worst case: every page separate */

struct md_softc {
	struct disk      sc_disk;
	char            *sc_data;              /* the image */
	struct spinlock  sc_lock;
	struct bio      *sc_head, *sc_tail;    /* queued requests (sc_lock) */
	struct disk_seg  sc_segs[MD_NSEGS];    /* the md thread's scatter list (its own) */
};

static int md_units;

/* d_strategy: queue the request for the md thread. Never sleeps. */
static void md_strategy(struct bio *bp)
{
	struct md_softc *sc = bp->bio_disk->d_softc;

	bp->bio_next = NULL;
	spin_lock(&sc->sc_lock);
	if (sc->sc_tail != NULL)
		sc->sc_tail->bio_next = bp;
	else
		sc->sc_head = bp;
	sc->sc_tail = bp;
	wakeup(sc);
	spin_unlock(&sc->sc_lock);
}

/* The next queued request, sleeping ("mdwait") until there is one. */
static struct bio *md_dequeue(struct md_softc *sc)
{
	struct bio *bp;

	spin_lock(&sc->sc_lock);
	while (sc->sc_head == NULL)
		msleep(sc, &sc->sc_lock, 0, "mdwait", 0);
	bp = sc->sc_head;
	sc->sc_head = bp->bio_next;
	if (sc->sc_head == NULL)
		sc->sc_tail = NULL;
	spin_unlock(&sc->sc_lock);
	return bp;
}

/* Copy a read or write between the image and the request's data, one physical segment at a time. */
static void md_copy(struct md_softc *sc, struct bio *bp)
{
	struct disk_seg *segs = sc->sc_segs;
	char *img = sc->sc_data + bp->bio_offset;
	int n = bio_segments(bp, 0, bp->bio_length, segs, MD_NSEGS, MD_MAXIO);

	KASSERT(n > 0, "md: a checked request has no segments");
	for (int i = 0; i < n; i++) {
		void *mem = P2V(segs[i].ds_paddr);

		if (bp->bio_cmd == BIO_READ)
			memcpy(mem, img, segs[i].ds_len);
		else
			memcpy(img, mem, segs[i].ds_len);
		img += segs[i].ds_len;
	}
}

/* The md thread: copy each request's data and complete it (the "interrupt"). */
static void md_thread(void *arg)
{
	struct md_softc *sc = arg;
	struct bio *bp;

	for (;;) {
		bp = md_dequeue(sc);
		if (bp->bio_cmd == BIO_READ || bp->bio_cmd == BIO_WRITE)
			md_copy(sc, bp);
		bp->bio_resid = 0;
		disk_iodone(bp);
	}
}

/* md_attach_preload: make md<N> of the image at kva (len bytes, rounded down to sectors). */
int md_attach_preload(void *kva, size_t len)
{
	struct md_softc *sc;
	int unit;

	len = rounddown(len, MD_SECTORSIZE);
	if (kva == NULL || len == 0) {
		kprintf("md: preloaded image is empty or missing; no memory disk made\n");
		return EINVAL;
	}
	sc = kmalloc(sizeof(*sc), M_WAITOK | M_ZERO);
	if (sc == NULL)
		return ENOMEM;
	unit = md_units++;
	spin_init(&sc->sc_lock, "md");
	sc->sc_data = kva;
	snprintf(sc->sc_disk.d_name, sizeof(sc->sc_disk.d_name), "md%d", unit);
	sc->sc_disk.d_sectorsize = MD_SECTORSIZE;
	sc->sc_disk.d_mediasize = len;
	sc->sc_disk.d_maxio = MD_MAXIO;
	sc->sc_disk.d_strategy = md_strategy;
	sc->sc_disk.d_softc = sc;
	if (kproc_create(md_thread, sc, NULL, "md%d", unit) != 0) {
		kprintf("md%d: cannot start its kernel thread\n", unit);
		kfree(sc);
		return ENOMEM;
	}
	disk_register(&sc->sc_disk);
	return 0;
}
