/*
 * ccd.c - the concatenated/striped disk driver, FreeBSD's ccd(4) (interface: dev/ccd.h,
 * configuration ABI: sys/ccdvar.h, stripe arithmetic: dev/ccd_map.c).
 *
 * A ccd joins 1..8 component disks into one disk, ccd0..ccd3. With an interleave of I
 * sectors (512-byte, as FreeBSD counts it) consecutive runs of I sectors go round the
 * components (RAID-0); interleave 0 concatenates them. Each component keeps its first
 * CCD_OFFSET sectors unused, as FreeBSD 4's ccd did for the disklabel.
 *
 *   Configuration: ccdconfig(8) writes a struct ccd_ioctl to the control device /dev/ccd
 *   (CCDIOCSET or CCDIOCCLR) and reads the table of units back from it. The first
 *   configuration of a unit registers the disk ccd<N>; an unconfigured unit stays in /dev
 *   with size 0 (the disk registry never removes disks) and fails all I/O with ENXIO.
 *   CCDIOCSET errors: ENXIO (no such unit or component disk), EBUSY (the unit is configured,
 *   or a component is in use: mounted, open, or part of another ccd), EINVAL (0 or more than
 *   8 components, a component named twice or the ccd itself, components with different sector
 *   sizes, an interleave not a multiple of the sector size or over CCD_MAXILEAVE, unknown
 *   flags, a component too small to hold one interleave), ENODEV (CCDF_MIRROR, CCDF_PARITY:
 *   not supported). CCDIOCCLR errors: ENXIO (not configured), EBUSY (ccd<N> is open, mounted
 *   or has requests in flight).
 *
 *   I/O: ccdstrategy splits a request into one child bio per piece (a piece never crosses a
 *   stripe unit, see ccd_map_range) and issues them all at once through disk_start() on the
 *   components, so every component works in parallel. A page-list request (BIO_UNMAPPED) is
 *   split the same way: each child gets the part of the page list its piece covers. The parent
 *   completes when the last child does, with the first error any child reported (and
 *   bio_resid = the whole length, as FreeBSD's ccdintr does). BIO_FLUSH goes to every
 *   component, so fsync's cache flush reaches every disk of the stripe. d_maxio is at most each
 *   component's d_maxio, so a piece always fits in one component request.
 *
 *   Where a request goes, without issuing it: d_map (ccd_diskmap) answers disk_map with the
 *   components a byte range reaches and their bytes, so the buffer cache can charge a write to
 *   each component's own budget (the perdevice buf_daemon design, vfs/rundev.h).
 *
 *   No request ever fails for lack of memory: the children and the parents' records come from
 *   pools allocated when the unit is configured (FreeBSD's pbuf idea: a fixed set of I/O
 *   headers per device). A request that finds the pools short waits in the unit's FIFO queue
 *   and is started, in order, as earlier requests complete and give their children back. The
 *   child pool is larger than the most pieces one request can need, so the queue always moves.
 *
 * Components are opened through the block layer with disk_open(DISK_EXCL): a disk that is
 * mounted, open, or part of another ccd cannot be taken, and a disk taken by a ccd cannot be
 * mounted or opened until the ccd lets it go. The ccd's own disk counts opens the same way
 * (devfs opens and mounts), so an open or mounted ccd cannot be unconfigured.
 *
 * Locking: ccd_config_lock (sleeplock) serializes configuration and the table reads, and
 * protects every softc field except those under sc_lock. sc_lock (spinlock) protects
 * sc_configured, sc_inflight, the pools and the wait queue; the geometry and components do not
 * change while sc_configured is set, so the I/O path reads them without a lock once it has
 * counted itself in sc_inflight. A request's pending count and first error are updated
 * atomically by the children's completions, which may run on several CPUs at once in interrupt
 * context. Nothing calls disk_start with sc_lock held (a component may complete a request at
 * once, and its completion takes sc_lock).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/uio.h"
#include "kern/sysctl.h"
#include "dev/disk.h"
#include "dev/cdev.h"
#include "dev/ccd.h"
#include "dev/ccd_map.h"
#include "dev/ccd_done.h"
#include <sys/ccdvar.h>
#include <sys/errno.h>

_Static_assert(CCD_MAXDISKS == CCD_MAXNDISKS, "sys/ccdvar.h and dev/ccd_map.h disagree");

#define CCD_MAXIO       (1024 * 1024)   /* largest ccd request, if the components allow it */
#define CCD_MINIO       (64 * 1024)     /* d_maxio floor however small the interleave */
#define CCD_UNITPIECES  64              /* else d_maxio is at most this many stripe units */
#define CCD_MAXPIECES   (CCD_MINIO / DEV_BSIZE + 1)  /* most pieces of one request (ileave 1) */
#define CCD_NCHILD      (2 * CCD_MAXPIECES)          /* child bios per unit */
#define CCD_NREQ        64                           /* parent records per unit */
#define CCDF_KNOWN      (CCDF_UNIFORM | CCDF_MIRROR | CCDF_PARITY)

_Static_assert(CCD_NCHILD >= CCD_MAXPIECES && CCD_NCHILD >= CCD_MAXDISKS,
               "the child pool must hold the largest request");
_Static_assert(DISK_MAXPIECES >= CCD_MAXDISKS, "disk_map must have room for every component");

struct ccd_comp {
	char          cc_name[CCD_NAMELEN];
	struct disk  *cc_disk;             /* opened DISK_EXCL while configured */
};

/* One parent request in progress. */
struct ccd_req {
	struct bio       *cr_parent;
	struct ccd_softc *cr_sc;
	struct ccd_count  cr_count;        /* children not yet completed, the first error
	                                      (dev/ccd_done.h: lock-free) */
	int               cr_qahead;       /* the most requests a child found ahead of it at its
	                                      component (atomic; the parent's bio_qahead) */
	struct bio       *cr_children;     /* its children, linked through bio_caller2 (drivers
	                                      use bio_next for their queues) */
	int               cr_nchildren;
	struct ccd_req   *cr_next;         /* free list */
};

struct ccd_softc {
	struct disk      sc_disk;          /* ccd<N>; d_mediasize 0 while unconfigured */
	int              sc_unit;
	bool             sc_registered;    /* sc_disk is in the disk registry */
	struct spinlock  sc_lock;
	bool             sc_configured;    /* (sc_lock) */
	int              sc_inflight;      /* (sc_lock) parent requests not yet completed */
	struct bio      *sc_freechild;     /* (sc_lock) free child bios, through bio_next */
	int              sc_nfreechild;    /* (sc_lock) */
	struct ccd_req  *sc_freereq;       /* (sc_lock) free parent records */
	struct bio      *sc_waithead, *sc_waittail;  /* (sc_lock) parents waiting for the pools */
	int              sc_poolshort;     /* (sc_lock) dev.ccd.<unit>.pool_short */
	struct bio      *sc_childpool;     /* the allocations behind the pools */
	struct ccd_req  *sc_reqpool;
	int              sc_ileave;        /* sectors; 0 = concatenation */
	int              sc_flags;         /* CCDF_* */
	int              sc_ndisks;
	struct ccd_comp  sc_comp[CCD_MAXDISKS];
	struct ccd_geom  sc_geom;
};

static struct ccd_softc ccd_softc[CCD_MAXUNITS];
static struct sleeplock ccd_config_lock;

/* ---- the pools (sc_lock held) -------------------------------------------------------------- */

/* A record and n children for bp, or NULL if the pools are short. */
static struct ccd_req *ccd_req_alloc(struct ccd_softc *sc, struct bio *bp, int n)
{
	struct ccd_req *cr = sc->sc_freereq;
	struct bio *cbp;

	if (cr == NULL || sc->sc_nfreechild < n)
		return NULL;
	sc->sc_freereq = cr->cr_next;
	cr->cr_parent = bp;
	cr->cr_sc = sc;
	ccd_count_init(&cr->cr_count, n);
	cr->cr_qahead = 0;
	cr->cr_nchildren = n;
	cr->cr_children = NULL;
	while (n-- > 0) {
		cbp = sc->sc_freechild;
		sc->sc_freechild = cbp->bio_next;
		memset(cbp, 0, sizeof(*cbp));
		cbp->bio_caller1 = cr;
		cbp->bio_caller2 = cr->cr_children;
		cr->cr_children = cbp;
	}
	sc->sc_nfreechild -= cr->cr_nchildren;
	return cr;
}

static void ccd_req_free(struct ccd_softc *sc, struct ccd_req *cr)
{
	struct bio *cbp, *next;

	for (cbp = cr->cr_children; cbp != NULL; cbp = next) {
		next = cbp->bio_caller2;
		cbp->bio_next = sc->sc_freechild;
		sc->sc_freechild = cbp;
	}
	sc->sc_nfreechild += cr->cr_nchildren;
	cr->cr_next = sc->sc_freereq;
	sc->sc_freereq = cr;
}

/* ---- I/O ------------------------------------------------------------------------------------ */

static void ccd_start(struct ccd_softc *sc, struct ccd_req *cr);
static void ccd_run_queue(struct ccd_softc *sc);

/* Every child is done: complete the parent on the ccd disk, then start waiting requests. */
static void ccd_req_done(struct ccd_req *cr)
{
	struct bio *bp = cr->cr_parent;
	struct ccd_softc *sc = cr->cr_sc;

	bp->bio_error = cr->cr_count.cc_error;
	bp->bio_resid = cr->cr_count.cc_error != 0 ? bp->bio_length : 0;
	bp->bio_qahead = cr->cr_qahead;
	spin_lock(&sc->sc_lock);
	ccd_req_free(sc, cr);
	sc->sc_inflight--;
	spin_unlock(&sc->sc_lock);
	disk_iodone(bp);
	ccd_run_queue(sc);
}

/*
 * A child's completion (FreeBSD's ccdiodone). Any context, possibly several CPUs at once: the
 * count and the first error are dev/ccd_done.c's, the deepest queue a child found is kept here
 * the same lock-free way. A piece with a residual count but no error is an EIO.
 */
static void ccd_iodone(struct bio *cbp)
{
	struct ccd_req *cr = cbp->bio_caller1;
	int seen = __atomic_load_n(&cr->cr_qahead, __ATOMIC_RELAXED);
	int error = cbp->bio_error != 0 ? cbp->bio_error : cbp->bio_resid != 0 ? EIO : 0;
	int done;

	while (cbp->bio_qahead > seen &&
	       !__atomic_compare_exchange_n(&cr->cr_qahead, &seen, cbp->bio_qahead, false,
	                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	done = ccd_piece_done(&cr->cr_count, error);
	if (done & CCD_DONE_FIRST_ERROR)
		kprintf("%s: error %d from component %s at byte %llu (%u bytes)\n",
		        cr->cr_sc->sc_disk.d_name, error, cbp->bio_disk->d_name,
		        (unsigned long long)cbp->bio_offset, cbp->bio_length);
	if (done & CCD_DONE_LAST)
		ccd_req_done(cr);
}

/* How many children request bp needs: one per component for a flush, else one per piece. */
static int ccd_nchildren(struct ccd_softc *sc, struct bio *bp)
{
	if (bp->bio_cmd == BIO_FLUSH)
		return sc->sc_ndisks;
	return (int)ccd_map_range(&sc->sc_geom, bp->bio_offset / DEV_BSIZE,
	                          bp->bio_length / DEV_BSIZE, NULL, 0);
}

/*
 * Fill in cr's children for its parent (FreeBSD's ccdstart/ccdbuffer) and issue them. The
 * pending count already covers them all, so none can finish early. No lock held.
 */
static void ccd_start(struct ccd_softc *sc, struct ccd_req *cr)
{
	struct bio *bp = cr->cr_parent, *cbp, *next;
	struct ccd_piece piece;
	uint64_t bn = bp->bio_offset / DEV_BSIZE, nsect = bp->bio_length / DEV_BSIZE;
	int i = 0;

	for (cbp = cr->cr_children; cbp != NULL; cbp = cbp->bio_caller2, i++) {
		cbp->bio_cmd = bp->bio_cmd;
		cbp->bio_flags = bp->bio_flags & BIO_SYNC;     /* a waited-for request's pieces are */
		cbp->bio_done = ccd_iodone;
		if (bp->bio_cmd == BIO_FLUSH) {
			cbp->bio_disk = sc->sc_comp[i].cc_disk;
			continue;
		}
		/* Piece i of the range: map the range's tail from piece i on, keep the first. */
		ccd_map_range(&sc->sc_geom, bn, nsect, &piece, 1);
		cbp->bio_disk = sc->sc_comp[piece.cp_disk].cc_disk;
		cbp->bio_offset = piece.cp_sector * DEV_BSIZE;
		bio_set_data(cbp, bp, (uint32_t)((bn - bp->bio_offset / DEV_BSIZE) * DEV_BSIZE),
		             (uint32_t)(piece.cp_nsect * DEV_BSIZE));
		bn += piece.cp_nsect;
		nsect -= piece.cp_nsect;
	}
	/* disk_start may complete a child at once, and the last completion frees the list. */
	for (cbp = cr->cr_children; cbp != NULL; cbp = next) {
		next = cbp->bio_caller2;
		disk_start(cbp);
	}
}
/* Fail a parent that never reached the components. */
static void ccd_fail(struct bio *bp, int error)
{
	bp->bio_error = error;
	bp->bio_resid = bp->bio_length;
	disk_iodone(bp);
}

/* Start waiting requests, oldest first, while the pools can take them. Any context, no lock. */
static void ccd_run_queue(struct ccd_softc *sc)
{
	struct ccd_req *cr;
	struct bio *bp;
	int n;

	for (;;) {
		spin_lock(&sc->sc_lock);
		bp = sc->sc_waithead;
		if (bp == NULL) {
			spin_unlock(&sc->sc_lock);
			return;
		}
		n = ccd_nchildren(sc, bp);
		KASSERT(n > 0 && n <= CCD_NCHILD, "ccd: a checked request needs no or too many pieces");
		cr = ccd_req_alloc(sc, bp, n);
		if (cr == NULL) {
			sc->sc_poolshort++;
			spin_unlock(&sc->sc_lock);
			return;                    /* an earlier request's completion comes back here */
		}
		sc->sc_waithead = bp->bio_next;
		if (sc->sc_waithead == NULL)
			sc->sc_waittail = NULL;
		spin_unlock(&sc->sc_lock);
		ccd_start(sc, cr);
	}
}

/* d_strategy: queue the request, then start what the pools allow; never sleeps. */
static void ccdstrategy(struct bio *bp)
{
	struct ccd_softc *sc = bp->bio_disk->d_softc;

	spin_lock(&sc->sc_lock);
	if (!sc->sc_configured) {
		spin_unlock(&sc->sc_lock);
		ccd_fail(bp, ENXIO);
		return;
	}
	sc->sc_inflight++;
	bp->bio_next = NULL;
	if (sc->sc_waittail != NULL)
		sc->sc_waittail->bio_next = bp;
	else
		sc->sc_waithead = bp;
	sc->sc_waittail = bp;
	spin_unlock(&sc->sc_lock);
	ccd_run_queue(sc);
}

/*
 * d_map: the components bytes [off, off+len) of the ccd reach, with their bytes, in component
 * order. Only asked about an open ccd, which stays configured with the same geometry, so it
 * reads them without sc_lock; an unconfigured one answers 0 (the ccd itself). Any context.
 */
static int ccd_diskmap(struct disk *dp, uint64_t off, uint64_t len, struct disk_piece *pieces,
                       int max)
{
	struct ccd_softc *sc = dp->d_softc;
	uint64_t share[CCD_MAXDISKS], bn = off / DEV_BSIZE;
	int n = 0;

	if (!sc->sc_configured || max < sc->sc_ndisks ||
	    !ccd_map_share(&sc->sc_geom, bn, howmany(off + len, DEV_BSIZE) - bn, share))
		return 0;
	for (int i = 0; i < sc->sc_ndisks; i++)
		if (share[i] > 0)
			pieces[n++] = (struct disk_piece){ sc->sc_comp[i].cc_disk,
			                                   (uint32_t)(share[i] * DEV_BSIZE) };
	return n;
}

/* ---- configuration (ccd_config_lock held) ---------------------------------------------------- */

/* Close the first n components. */
static void ccd_release_comps(struct ccd_softc *sc, int n)
{
	for (int i = 0; i < n; i++) {
		disk_close(sc->sc_comp[i].cc_disk, DISK_EXCL);
		sc->sc_comp[i].cc_disk = NULL;
	}
}

/* Look up, check and open one component exclusively; its index is i. */
static int ccd_hold_comp(struct ccd_softc *sc, int i, const char *name)
{
	struct ccd_comp *cc = &sc->sc_comp[i];
	struct disk *dp;
	int j, error;

	if (strcmp(name, sc->sc_disk.d_name) == 0)
		return EINVAL;
	for (j = 0; j < i; j++)
		if (strcmp(sc->sc_comp[j].cc_name, name) == 0)
			return EINVAL;
	dp = disk_lookup(name);
	if (dp == NULL)
		return ENXIO;
	if (i > 0 && dp->d_sectorsize != sc->sc_comp[0].cc_disk->d_sectorsize)
		return EINVAL;
	error = disk_open(dp, DISK_EXCL);
	if (error != 0)
		return error;
	strlcpy(cc->cc_name, name, sizeof(cc->cc_name));
	cc->cc_disk = dp;
	return 0;
}

/* Hold every component named in ccio; on failure none stays held. */
static int ccd_hold_comps(struct ccd_softc *sc, const struct ccd_ioctl *ccio)
{
	int i, error;

	for (i = 0; i < ccio->ccio_ndisks; i++) {
		error = ccd_hold_comp(sc, i, ccio->ccio_disks[i]);
		if (error != 0) {
			ccd_release_comps(sc, i);
			return error;
		}
	}
	sc->sc_ndisks = ccio->ccio_ndisks;
	return 0;
}

/* The unit's pools of child bios and parent records (M_WAITOK: configuration may sleep). */
static int ccd_pools_alloc(struct ccd_softc *sc)
{
	sc->sc_childpool = kmalloc(CCD_NCHILD * sizeof(struct bio), M_WAITOK | M_ZERO);
	sc->sc_reqpool = kmalloc(CCD_NREQ * sizeof(struct ccd_req), M_WAITOK | M_ZERO);
	if (sc->sc_childpool == NULL || sc->sc_reqpool == NULL) {
		kfree(sc->sc_childpool);
		kfree(sc->sc_reqpool);
		sc->sc_childpool = NULL;
		sc->sc_reqpool = NULL;
		return ENOMEM;
	}
	sc->sc_freechild = NULL;
	for (int i = 0; i < CCD_NCHILD; i++) {
		sc->sc_childpool[i].bio_next = sc->sc_freechild;
		sc->sc_freechild = &sc->sc_childpool[i];
	}
	sc->sc_nfreechild = CCD_NCHILD;
	sc->sc_freereq = NULL;
	for (int i = 0; i < CCD_NREQ; i++) {
		sc->sc_reqpool[i].cr_next = sc->sc_freereq;
		sc->sc_freereq = &sc->sc_reqpool[i];
	}
	return 0;
}

static void ccd_pools_free(struct ccd_softc *sc)
{
	kfree(sc->sc_childpool);
	kfree(sc->sc_reqpool);
	sc->sc_childpool = NULL;
	sc->sc_reqpool = NULL;
	sc->sc_freechild = NULL;
	sc->sc_freereq = NULL;
	sc->sc_nfreechild = 0;
}

/* The arguments that need no disk: counts, flags, interleave range, terminated names. */
static int ccd_check_args(const struct ccd_ioctl *ccio)
{
	int i;

	if (ccio->ccio_ndisks < 1 || ccio->ccio_ndisks > CCD_MAXDISKS)
		return EINVAL;
	if (ccio->ccio_flags & ~CCDF_KNOWN)
		return EINVAL;
	if (ccio->ccio_flags & (CCDF_MIRROR | CCDF_PARITY))
		return ENODEV;
	if (ccio->ccio_ileave < 0 || (uint32_t)ccio->ccio_ileave > CCD_MAXILEAVE)
		return EINVAL;
	for (i = 0; i < ccio->ccio_ndisks; i++)
		if (strnlen(ccio->ccio_disks[i], CCD_NAMELEN) == CCD_NAMELEN || ccio->ccio_disks[i][0] == 0)
			return EINVAL;
	return 0;
}

/* Largest request: within every component's d_maxio, and a bounded number of pieces. */
static uint32_t ccd_maxio(struct ccd_softc *sc, uint32_t secsize)
{
	uint64_t m = CCD_MAXIO;
	int i;

	for (i = 0; i < sc->sc_ndisks; i++)
		m = MIN(m, sc->sc_comp[i].cc_disk->d_maxio);
	if (sc->sc_ileave != 0)
		m = MIN(m, MAX((uint64_t)CCD_MINIO, (uint64_t)CCD_UNITPIECES * sc->sc_ileave * DEV_BSIZE));
	m = rounddown(m, secsize);
	return m < secsize ? secsize : m;
}

/* Lay out the held components and make the disk match. */
static int ccd_setup(struct ccd_softc *sc)
{
	uint64_t sizes[CCD_MAXDISKS];
	uint32_t secsize = sc->sc_comp[0].cc_disk->d_sectorsize;
	int i;

	if (((uint64_t)sc->sc_ileave * DEV_BSIZE) % secsize != 0 ||
	    (CCD_OFFSET * DEV_BSIZE) % secsize != 0)
		return EINVAL;
	for (i = 0; i < sc->sc_ndisks; i++)
		sizes[i] = sc->sc_comp[i].cc_disk->d_mediasize / DEV_BSIZE;
	if (ccd_geom_init(&sc->sc_geom, sc->sc_ndisks, sizes, sc->sc_ileave,
	                  (sc->sc_flags & CCDF_UNIFORM) != 0) != CCD_MAP_OK)
		return EINVAL;
	sc->sc_disk.d_sectorsize = secsize;
	sc->sc_disk.d_maxio = ccd_maxio(sc, secsize);
	sc->sc_disk.d_mediasize = rounddown(sc->sc_geom.cg_size * DEV_BSIZE, secsize);
	return 0;
}

/* The console line FreeBSD's ccdconfig -v would print. */
static void ccd_announce(struct ccd_softc *sc)
{
	char names[CCD_MAXDISKS * (CCD_NAMELEN + 1)] = "";
	int i;

	for (i = 0; i < sc->sc_ndisks; i++) {
		strlcat(names, " ", sizeof(names));
		strlcat(names, sc->sc_comp[i].cc_name, sizeof(names));
	}
	kprintf("%s: %llu sectors, interleave %d, flags %#x, components%s\n", sc->sc_disk.d_name,
	        (unsigned long long)sc->sc_geom.cg_size, sc->sc_ileave, sc->sc_flags, names);
}

/* dev.ccd.<unit>.pool_short, made with the unit's disk. */
static void ccd_sysctls(struct ccd_softc *sc)
{
	char name[SYSCTL_NAMELEN];

	snprintf(name, sizeof(name), "dev.ccd.%d.pool_short", sc->sc_unit);
	sysctl_add_int(name, CTLFLAG_RD, &sc->sc_poolshort,
	               "Times the oldest waiting request found the child pool short and waited");
}

/* CCDIOCSET (FreeBSD's ccdioctl/ccdinit). */
static int ccd_configure(struct ccd_softc *sc, const struct ccd_ioctl *ccio)
{
	int error;

	if (sc->sc_configured)
		return EBUSY;
	error = ccd_check_args(ccio);
	if (error != 0)
		return error;
	sc->sc_ileave = ccio->ccio_ileave;
	sc->sc_flags = ccio->ccio_flags;
	error = ccd_hold_comps(sc, ccio);
	if (error != 0)
		return error;
	error = ccd_setup(sc);
	if (error == 0)
		error = ccd_pools_alloc(sc);
	if (error != 0) {
		ccd_release_comps(sc, sc->sc_ndisks);
		sc->sc_ndisks = 0;
		return error;
	}
	if (!sc->sc_registered) {
		disk_register(&sc->sc_disk);
		ccd_sysctls(sc);
		sc->sc_registered = true;
	}
	spin_lock(&sc->sc_lock);
	sc->sc_configured = true;
	spin_unlock(&sc->sc_lock);
	ccd_announce(sc);
	return 0;
}

/*
 * CCDIOCCLR: refuse while the ccd is open, mounted or has requests in flight. It has no cached
 * buffers then: unmounting invalidated them, and raw access does not use the buffer cache.
 */
static int ccd_unconfigure(struct ccd_softc *sc)
{
	if (!sc->sc_configured)
		return ENXIO;
	if (disk_in_use(&sc->sc_disk))
		return EBUSY;
	spin_lock(&sc->sc_lock);
	if (sc->sc_inflight > 0) {
		spin_unlock(&sc->sc_lock);
		return EBUSY;
	}
	sc->sc_configured = false;
	spin_unlock(&sc->sc_lock);
	sc->sc_disk.d_mediasize = 0;
	ccd_pools_free(sc);
	ccd_release_comps(sc, sc->sc_ndisks);
	sc->sc_ndisks = 0;
	kprintf("%s: unconfigured\n", sc->sc_disk.d_name);
	return 0;
}

/* The table record of one unit. */
static void ccd_describe(struct ccd_softc *sc, struct ccd_ioctl *ccio)
{
	int i;

	memset(ccio, 0, sizeof(*ccio));
	ccio->ccio_unit = sc->sc_unit;
	if (!sc->sc_configured)
		return;
	ccio->ccio_ileave = sc->sc_ileave;
	ccio->ccio_flags = sc->sc_flags;
	ccio->ccio_ndisks = sc->sc_ndisks;
	ccio->ccio_size = sc->sc_geom.cg_size;
	for (i = 0; i < sc->sc_ndisks; i++)
		strlcpy(ccio->ccio_disks[i], sc->sc_comp[i].cc_name, CCD_NAMELEN);
}

/* ---- the control device /dev/ccd ---------------------------------------------------------- */

/* write: one struct ccd_ioctl, a CCDIOCSET or CCDIOCCLR request. */
static int ccdctl_write(void *arg __unused, struct uio *uio, int ioflag __unused)
{
	struct ccd_ioctl ccio;
	int error;

	if (uio->uio_resid != sizeof(ccio))
		return EINVAL;
	error = uiomove(&ccio, sizeof(ccio), uio);
	if (error != 0)
		return error;
	if (ccio.ccio_unit < 0 || ccio.ccio_unit >= CCD_MAXUNITS)
		return ENXIO;
	sleeplock_acquire(&ccd_config_lock);
	switch (ccio.ccio_cmd) {
	case CCDIOCSET:
		error = ccd_configure(&ccd_softc[ccio.ccio_unit], &ccio);
		break;
	case CCDIOCCLR:
		error = ccd_unconfigure(&ccd_softc[ccio.ccio_unit]);
		break;
	default:
		error = EINVAL;
		break;
	}
	sleeplock_release(&ccd_config_lock);
	return error;
}

/* read: the table of units from the file offset on, one struct ccd_ioctl each. */
static int ccdctl_read(void *arg __unused, struct uio *uio, int ioflag __unused)
{
	const off_t rec = sizeof(struct ccd_ioctl);
	struct ccd_ioctl ccio;
	off_t off;
	int error = 0;

	if (uio->uio_offset < 0)
		return EINVAL;
	sleeplock_acquire(&ccd_config_lock);
	while (error == 0 && uio->uio_resid > 0 && (off = uio->uio_offset) < CCD_MAXUNITS * rec) {
		ccd_describe(&ccd_softc[off / rec], &ccio);
		error = uiomove((char *)&ccio + off % rec, rec - off % rec, uio);
	}
	sleeplock_release(&ccd_config_lock);
	return error;
}

static struct cdevsw ccdctl_cdevsw = {
	.d_name  = "ccd",
	.d_read  = ccdctl_read,
	.d_write = ccdctl_write,
};

/* ccd_init: the unit softcs and /dev/ccd. The disks ccd<N> appear when first configured. */
void ccd_init(void)
{
	struct ccd_softc *sc;
	int unit;

	sleeplock_init(&ccd_config_lock, "ccdcfg");
	for (unit = 0; unit < CCD_MAXUNITS; unit++) {
		sc = &ccd_softc[unit];
		sc->sc_unit = unit;
		spin_init(&sc->sc_lock, "ccd");
		snprintf(sc->sc_disk.d_name, sizeof(sc->sc_disk.d_name), "ccd%d", unit);
		sc->sc_disk.d_strategy = ccdstrategy;
		sc->sc_disk.d_map = ccd_diskmap;
		sc->sc_disk.d_softc = sc;
	}
	cdev_register(&ccdctl_cdevsw, NULL);
}
