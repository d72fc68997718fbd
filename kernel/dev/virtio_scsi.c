/*
 * virtio_scsi.c - virtio-SCSI host adapter driver with SCSI disks (interface: dev/virtio_scsi.h).
 *
 * Attach (Virtio 1.0 §5.6, over the legacy transport of dev/virtio.c): reset, ACKNOWLEDGE,
 * DRIVER; accept only VIRTIO_RING_F_INDIRECT_DESC (none of the SCSI features: no hot-plug
 * events, no T10 PI); read the configuration (num_queues, seg_max, max_sectors, cmd_per_lun,
 * max_target, max_lun) and set cdb_size/sense_size to this driver's 32/96 bytes; set up request
 * queue 0 (virtqueue 2; the control and event queues 0 and 1 are left unconfigured, which a
 * device without negotiated hot-plug never needs); take the INTx interrupt; DRIVER_OK. Then the
 * bus scan: targets 0..min(max_target, 15), LUN 0, each with INQUIRY (a BAD_TARGET response means
 * no target; non-disk peripheral types are skipped), TEST UNIT READY (retried past the UNIT
 * ATTENTION every LUN reports first), READ CAPACITY(10), and READ CAPACITY(16) when the 10-byte
 * answer is FFFFFFFFh. Scan commands are polled with a time limit; a device that never answers
 * is reset and left alone, so a broken device cannot hang the boot.
 *
 * Requests (§5.6.6): every command is one descriptor chain: the request header with the CDB
 * (device-readable), then for a write the data-out buffer, then the response (device-writable),
 * then for a read the data-in buffer: the spec's order, readable before writable, and the reason
 * the response comes BEFORE the data of a read. With VIRTIO_RING_F_INDIRECT_DESC (QEMU offers it)
 * the segments sit in a table inside the request and the ring spends one descriptor per command,
 * so a 256-entry queue holds 256 commands; without it they are chained in the ring, the request
 * pool is size/3 (header, one data segment, response: the usual command), and a command whose
 * data has more segments waits until enough descriptors are free.
 * The data is one descriptor per physical segment (bio_segments: a direct-mapped buffer or a
 * page list, adjacent pages merged), at most VTSCSI_MAXDSEGS. READ/WRITE(10), or (16) for LBAs
 * past 2^32 or counts past 65535 (scsi_cmd.c), SYNCHRONIZE CACHE(10) for BIO_FLUSH.
 *
 * Queueing: the block layer keeps each disk's waiting requests, in elevator order, and hands
 * this driver at most the disk's openings at once (dev/disk.c: dev.da.<n>.openings, FreeBSD's
 * `camcontrol tags`; default min(CAM_MAXTAGS, the device's cmd_per_lun hint, the queue's
 * capacity): CAM's rule with cmd_per_lun as the adapter's per-device limit). Each disk keeps a
 * FIFO of the bios it was given; vtscsi_start() hands out free requests round-robin across the
 * adapter's disks, so the disks share the queue's capacity. A bio bigger than one command may carry
 (max_sectors sectors, seg_max - 1 pages, and d_maxio) is split into pieces issued concurrently
 * and completed when the last finishes, with the first error; the split's tracker comes from a
 * pool as large as the request pool (every tracker in use has a command in flight), so a split
 * never fails for lack of memory. A flush (SYNCHRONIZE CACHE, a SIMPLE-tagged command like any
 * other) is issued as soon as it reaches the head of the disk's FIFO, beside the commands already
 * out: its contract is the one of Linux's REQ_PREFLUSH (Documentation/block/
 * writeback_cache_control.rst), every write *completed* before it was issued is on the media
 * when it completes, and every caller waits for the writes it depends on before it flushes.
 * Draining the disk first would cost a whole queue's service per flush on a drive with no write
 * cache, where the flush itself is free.
 *
 * Completion: the interrupt reads the ISR (which deasserts INTx), takes every finished request
 * off the used ring, and completes its bio with disk_iodone() after dropping the lock (bio_done
 * may start more I/O). Errors: a CHECK CONDITION's fixed-format sense data (SPC-4 §4.5.3) is
 * decoded into a console line (sense key name, ASC/ASCQ and its text). UNIT ATTENTION, NOT
 * READY, ABORTED COMMAND, BUSY, TASK SET FULL and the transport's BUSY/RESET/ABORTED/TRANSPORT
 * FAILURE responses are retried up to VTSCSI_RETRIES times; everything else, or running out of
 * retries, fails the bio with EIO (ENXIO for a target that went away). A watchdog callout runs
 * once a second while commands are out (vtscsi_watchdog). If the device has answered nothing
 * since its last run, it recovers what the driver's side of the ring can (vtscsi_recover): it
 * takes answers left in the used ring with no interrupt seen, or else rings the doorbell again
 * (hw.vtscsi.rekicks counts those); a lost doorbell once stopped an experiment's write for 30 s.
 * And it reports, once each, the commands the device has not answered within hw.vtscsi.timeout
 * seconds, with the ring's state. It cannot take a command back (the device owns its buffers;
 * only a device reset could), but no hang is silent and a lost kick does not last.
 *
 * Locking: each adapter's sc_lock (spinlock) protects its virtqueue, its requests and every one of
 * its disks' queues and counters. disk_iodone is always called with no lock held. Lock order:
 * sc_lock, then callout_lock (callout_reset).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/time.h"
#include "kern/sysctl.h"
#include "arch/memlayout.h"
#include "dev/pci.h"
#include "dev/disk.h"
#include "dev/virtio.h"
#include "dev/scsi_cmd.h"
#include "dev/virtio_scsi.h"
#include <sys/errno.h>

#define VIRTIO_SCSI_DEVICE_LEGACY 0x1004   /* transitional device ID (§4.1.2.3) */
#define VIRTIO_SCSI_DEVICE_MODERN 0x1048   /* 0x1040 + device type 8: matched only to explain */

/* Device configuration layout (§5.6.4). */
#define VTSCSI_CFG_NUM_QUEUES  0
#define VTSCSI_CFG_SEG_MAX     4
#define VTSCSI_CFG_MAX_SECTORS 8
#define VTSCSI_CFG_CMD_PER_LUN 12
#define VTSCSI_CFG_SENSE_SIZE  20
#define VTSCSI_CFG_CDB_SIZE    24
#define VTSCSI_CFG_MAX_TARGET  30
#define VTSCSI_CFG_MAX_LUN     32

#define VTSCSI_REQUESTQ        2           /* virtqueue of request queue 0 (§5.6.2) */

/* Response codes (§5.6.6.1). */
#define VIRTIO_SCSI_S_OK                0
#define VIRTIO_SCSI_S_OVERRUN           1
#define VIRTIO_SCSI_S_ABORTED           2
#define VIRTIO_SCSI_S_BAD_TARGET        3
#define VIRTIO_SCSI_S_RESET             4
#define VIRTIO_SCSI_S_BUSY              5
#define VIRTIO_SCSI_S_TRANSPORT_FAILURE 6
#define VIRTIO_SCSI_S_TARGET_FAILURE    7
#define VIRTIO_SCSI_S_NEXUS_FAILURE     8
#define VIRTIO_SCSI_S_FAILURE           9

#define VIRTIO_SCSI_S_SIMPLE   0           /* task attribute */

#define VTSCSI_CDB_SIZE    32              /* the defaults of cdb_size and sense_size */
#define VTSCSI_SENSE_SIZE  96
#define VTSCSI_MAXTARGETS  16              /* targets scanned: 0 .. 15 */
#define VTSCSI_MAXIO       (128 * 1024)    /* d_maxio: FreeBSD's MAXPHYS */
#define VTSCSI_MAXDSEGS    (VTSCSI_MAXIO / PAGE_SIZE + 1)   /* data segments: one per page, at worst */
#define VTSCSI_NSEGS       (VTSCSI_MAXDSEGS + 2)            /* header, data..., response */
#define VTSCSI_RETRIES     4
#define VTSCSI_POLL_MS     5000            /* a scan command's time limit */
#define VTSCSI_SCAN_TRIES  8
#define VTSCSI_NOANSWER    (-1)            /* scan commands: the device did not answer in time */

/* The request header and the response, as the device sees them (§5.6.6). */
struct virtio_scsi_cmd_req {
	uint8_t  lun[8];
	uint64_t tag;
	uint8_t  task_attr;
	uint8_t  prio;
	uint8_t  crn;
	uint8_t  cdb[VTSCSI_CDB_SIZE];
} __attribute__((packed));

struct virtio_scsi_cmd_resp {
	uint32_t sense_len;
	uint32_t resid;
	uint16_t status_qualifier;
	uint8_t  status;
	uint8_t  response;
	uint8_t  sense[VTSCSI_SENSE_SIZE];
} __attribute__((packed));

enum vtscsi_dir { VTSCSI_NODATA, VTSCSI_OUT, VTSCSI_IN };

struct vtscsi_softc;
struct vtscsi_disk;

/* A bio split into several commands; its pieces point here. sc_lock. */
struct vtscsi_split {
	struct bio *sp_bp;
	int         sp_pending;     /* pieces issued and not finished */
	bool        sp_all_issued;
	int         sp_error;       /* the first error */
	uint32_t    sp_resid;
	struct vtscsi_split *sp_next;   /* the adapter's free list */
};

/*
 * One command. The array of them is one kmalloc block (physically contiguous), so the header,
 * response and indirect table have guest-physical addresses V2P() gives. sc_lock.
 */
struct vtscsi_req {
	struct vring_desc           r_indir[VTSCSI_NSEGS] __attribute__((aligned(16)));
	struct virtio_scsi_cmd_req  r_cmd;
	struct virtio_scsi_cmd_resp r_resp;
	struct vtscsi_disk  *r_dk;       /* NULL for scan commands */
	int                  r_target;
	struct bio          *r_bp;       /* NULL for scan commands */
	struct vtscsi_split *r_split;    /* non-NULL if r_bp was split */
	uint64_t             r_lba;
	uint32_t             r_nblocks;
	void                *r_data;     /* scan commands: direct-mapped reply buffer */
	uint32_t             r_dataoff;  /* I/O: where this piece starts in r_bp's data */
	uint32_t             r_datalen;
	enum vtscsi_dir      r_dir;
	int                  r_retries;
	uint32_t             r_issued;   /* ticks when handed to the device */
	bool                 r_inflight;
	bool                 r_reported; /* the watchdog has reported it */
	bool                 r_done;     /* scan commands: the device answered */
	struct vtscsi_req   *r_next;     /* free list */
};

struct vtscsi_disk {
	struct disk          dk_disk;         /* da<n> */
	struct vtscsi_softc *dk_sc;
	int                  dk_target;
	struct bio          *dk_head, *dk_tail;  /* bios not yet fully issued (sc_lock) */
	uint32_t             dk_issued;       /* bytes of dk_head already issued (sc_lock) */
	struct vtscsi_split *dk_split;        /* dk_head's tracker while it is split (sc_lock) */
	int                  dk_inflight;     /* commands out (sc_lock) */
	int                  dk_max_active;   /* dev.da.<n>.max_active: most commands out (sc_lock) */
	uint32_t             dk_maxpiece;     /* bytes one command may carry */
};

struct vtscsi_softc {
	char                sc_name[12];      /* "vtscsi0" */
	struct virtio_dev   sc_vd;
	struct virtqueue    sc_vq;            /* request queue 0 */
	struct spinlock     sc_lock;
	struct vtscsi_req  *sc_reqs;
	int                 sc_nreqs;         /* the queue's capacity in commands */
	struct vtscsi_req  *sc_free;
	struct vtscsi_split *sc_splits;       /* the split trackers, all nreqs of them */
	struct vtscsi_split *sc_freesplits;
	int                 sc_inflight;
	bool                sc_kick;          /* requests posted since the last notify */
	struct vtscsi_disk *sc_disks[VTSCSI_MAXTARGETS];
	int                 sc_ndisks;
	int                 sc_rr;            /* disk to serve first in the next round */
	uint32_t            sc_seg_max, sc_max_sectors, sc_cmd_per_lun;
	struct callout      sc_watchdog;
	bool                sc_wd_armed;
	uint16_t            sc_wd_used;       /* the used ring's index at the watchdog's last run */
	uint8_t            *sc_scratch;       /* a page for scan replies */
};

static int vtscsi_units;                  /* adapters attached; boot, one CPU */
static int da_units;                      /* disks registered; boot, one CPU */

static int vtscsi_timeout = 30;           /* seconds; read by the watchdog */
static int sysctl_vtscsi_timeout(struct sysctl_req *req);
SYSCTL_PROC(hw_vtscsi_timeout, "hw.vtscsi.timeout", CTLTYPE_INT | CTLFLAG_RW, NULL, 0,
            sysctl_vtscsi_timeout, "I",
            "Seconds a virtio-SCSI command may stay unanswered before the watchdog reports it");

static int vtscsi_rekicks;                /* doorbells the watchdog rang again */
SYSCTL_DECL_OID(sysctl_hw_vtscsi_rekicks, "hw.vtscsi.rekicks", CTLTYPE_INT | CTLFLAG_RD,
                &vtscsi_rekicks, 0, NULL, "I",
                "Doorbells rung again after a second with commands out and no answer");

static void vtscsi_watchdog(void *arg);

/* ---- requests -------------------------------------------------------------------------------- */

static struct vtscsi_req *vtscsi_req_get(struct vtscsi_softc *sc)
{
	struct vtscsi_req *r = sc->sc_free;

	if (r != NULL)
		sc->sc_free = r->r_next;
	return r;
}

static struct vtscsi_split *vtscsi_split_get(struct vtscsi_softc *sc)
{
	struct vtscsi_split *sp = sc->sc_freesplits;

	KASSERT(sp != NULL, "virtio-SCSI: more splits than requests in flight");
	sc->sc_freesplits = sp->sp_next;
	memset(sp, 0, sizeof(*sp));
	return sp;
}

static void vtscsi_split_put(struct vtscsi_softc *sc, struct vtscsi_split *sp)
{
	sp->sp_next = sc->sc_freesplits;
	sc->sc_freesplits = sp;
}

static void vtscsi_req_put(struct vtscsi_softc *sc, struct vtscsi_req *r)
{
	r->r_bp = NULL;
	r->r_split = NULL;
	r->r_dk = NULL;
	r->r_next = sc->sc_free;
	sc->sc_free = r;
}

/* Header for target `target`, LUN 0 (§5.6.6: lun[0] = 1, lun[1] = target, 2-3 = 4000h | LUN). */
static void vtscsi_req_header(struct vtscsi_req *r, int target)
{
	memset(&r->r_cmd, 0, sizeof(r->r_cmd));
	r->r_cmd.lun[0] = 1;
	r->r_cmd.lun[1] = (uint8_t)target;
	r->r_cmd.lun[2] = 0x40;
	r->r_cmd.lun[3] = 0;
	r->r_cmd.task_attr = VIRTIO_SCSI_S_SIMPLE;
	r->r_target = target;
}

/*
 * The data of request r as descriptors in segs[]: a scan command's reply buffer (direct-mapped,
 * one piece), or its piece of the bio's data as physical segments. Returns how many.
 */
static int vtscsi_data_segs(struct vtscsi_req *r, struct vq_seg *segs)
{
	struct disk_seg ds[VTSCSI_MAXDSEGS];
	int n;

	if (r->r_datalen == 0)
		return 0;
	if (r->r_bp == NULL) {
		segs[0].vs_paddr = V2P(r->r_data);
		segs[0].vs_len = r->r_datalen;
		return 1;
	}
	n = bio_segments(r->r_bp, r->r_dataoff, r->r_datalen, ds, VTSCSI_MAXDSEGS, VTSCSI_MAXIO);
	KASSERT(n > 0, "virtio-SCSI: a piece needs more segments than a request has");
	for (int i = 0; i < n; i++) {
		segs[i].vs_paddr = (uint32_t)ds[i].ds_paddr;
		segs[i].vs_len = ds[i].ds_len;
	}
	return n;
}

/*
 * Hand a built request to the device: header, [data-out], response, [data-in]. sc_lock held.
 * The notify is left to vtscsi_kick(), so a burst of requests costs one doorbell.
 */
static int vtscsi_post(struct vtscsi_softc *sc, struct vtscsi_req *r)
{
	struct vq_seg segs[VTSCSI_NSEGS];
	struct vq_seg resp = { V2P(&r->r_resp), sizeof(r->r_resp) };
	int nout = 1, nin = 0, error;

	segs[0].vs_paddr = V2P(&r->r_cmd);
	segs[0].vs_len = sizeof(r->r_cmd);
	if (r->r_dir == VTSCSI_OUT)
		nout += vtscsi_data_segs(r, &segs[nout]);
	segs[nout + nin++] = resp;
	if (r->r_dir == VTSCSI_IN)
		nin += vtscsi_data_segs(r, &segs[nout + nin]);
	memset(&r->r_resp, 0, sizeof(r->r_resp));
	r->r_cmd.tag = (uint64_t)(r - sc->sc_reqs);
	error = virtq_enqueue(&sc->sc_vq, segs, nout, nin, r->r_indir, r);
	if (error != 0)
		return error;
	r->r_inflight = true;
	r->r_reported = false;
	r->r_done = false;
	r->r_issued = ticks;
	sc->sc_inflight++;
	sc->sc_kick = true;
	if (!sc->sc_wd_armed) {
		sc->sc_wd_armed = true;
		callout_reset(&sc->sc_watchdog, HZ, vtscsi_watchdog, sc);
	}
	return 0;
}

static void vtscsi_kick(struct vtscsi_softc *sc)
{
	if (sc->sc_kick) {
		sc->sc_kick = false;
		virtq_notify(&sc->sc_vq);
	}
}

/* "da1: WRITE(10) at LBA 20480, 128 blocks" (or "vtscsi0 target 3: INQUIRY") into buf. */
static void vtscsi_describe(struct vtscsi_softc *sc, struct vtscsi_req *r, char *buf, size_t len)
{
	const char *op = scsi_op_name(r->r_cmd.cdb[0]);

	if (r->r_dk == NULL)
		snprintf(buf, len, "%s target %d: %s", sc->sc_name, r->r_target, op);
	else if (r->r_nblocks > 0)
		snprintf(buf, len, "%s: %s at LBA %llu, %u blocks", r->r_dk->dk_disk.d_name, op,
		         (unsigned long long)r->r_lba, r->r_nblocks);
	else
		snprintf(buf, len, "%s: %s", r->r_dk->dk_disk.d_name, op);
}

/* ---- what a finished command means ----------------------------------------------------------- */

static const char *vtscsi_response_name(uint8_t response)
{
	static const char *const names[] = {
		"OK", "OVERRUN", "ABORTED", "BAD_TARGET", "RESET", "BUSY", "TRANSPORT_FAILURE",
		"TARGET_FAILURE", "NEXUS_FAILURE", "FAILURE",
	};

	return response < nitems(names) ? names[response] : "unknown response";
}

/* CHECK CONDITION: decode the sense data into `why`; returns whether a retry may help. */
static bool vtscsi_sense(struct vtscsi_req *r, char *why, size_t len, bool *quiet)
{
	struct scsi_sense s;
	uint32_t slen = MIN(r->r_resp.sense_len, (uint32_t)VTSCSI_SENSE_SIZE);
	const char *text;

	if (!scsi_parse_sense(r->r_resp.sense, slen, &s)) {
		snprintf(why, len, "CHECK CONDITION without usable sense data (%u bytes)", slen);
		return false;
	}
	text = scsi_asc_text(s.asc, s.ascq);
	snprintf(why, len, "CHECK CONDITION, sense key %s, ASC/ASCQ %02x/%02x%s%s%s",
	         scsi_sense_key_name(s.key), s.asc, s.ascq, text ? " (" : "", text ? text : "",
	         text ? ")" : "");
	*quiet = s.key == SSD_KEY_UNIT_ATTENTION;
	return s.key == SSD_KEY_UNIT_ATTENTION || s.key == SSD_KEY_NOT_READY ||
	       s.key == SSD_KEY_ABORTED_COMMAND || s.key == SSD_KEY_NO_SENSE;
}

/*
 * vtscsi_result: 0 if the command succeeded, EAGAIN if another try may succeed, else the errno
 * to fail with; `why` says what went wrong and *quiet is set for the expected UNIT ATTENTION.
 */
static int vtscsi_result(struct vtscsi_req *r, char *why, size_t len, bool *quiet)
{
	uint8_t response = r->r_resp.response, status = r->r_resp.status;

	*quiet = false;
	why[0] = 0;
	switch (response) {
	case VIRTIO_SCSI_S_OK:
		break;
	case VIRTIO_SCSI_S_BAD_TARGET:
		snprintf(why, len, "response BAD_TARGET (no such target)");
		return ENXIO;
	case VIRTIO_SCSI_S_BUSY:
	case VIRTIO_SCSI_S_RESET:
	case VIRTIO_SCSI_S_ABORTED:
	case VIRTIO_SCSI_S_TRANSPORT_FAILURE:
		snprintf(why, len, "response %s", vtscsi_response_name(response));
		return EAGAIN;
	default:
		snprintf(why, len, "response %s (%u)", vtscsi_response_name(response), response);
		return EIO;
	}
	switch (status) {
	case SCSI_STATUS_GOOD:
		if (r->r_bp != NULL && r->r_resp.resid != 0) {
			snprintf(why, len, "short transfer, %u of %u bytes not moved", r->r_resp.resid,
			         r->r_datalen);
			return EIO;
		}
		return 0;
	case SCSI_STATUS_CHECK_COND:
		return vtscsi_sense(r, why, len, quiet) ? EAGAIN : EIO;
	case SCSI_STATUS_BUSY:
	case SCSI_STATUS_TASK_SET_FULL:
		snprintf(why, len, "status %s", status == SCSI_STATUS_BUSY ? "BUSY" : "TASK SET FULL");
		return EAGAIN;
	default:
		snprintf(why, len, "SCSI status %02xh", status);
		return EIO;
	}
}

/* ---- issuing --------------------------------------------------------------------------------- */

static void vtscsi_done_push(struct bio **done, struct bio *bp)
{
	bp->bio_next = *done;
	*done = bp;
}

/* Build the next piece (or all) of dk's head bio in r. sc_lock held. */
static void vtscsi_issue_rw(struct vtscsi_disk *dk, struct vtscsi_req *r)
{
	struct bio *bp = dk->dk_head;
	uint32_t bs = dk->dk_disk.d_sectorsize;
	uint32_t piece = MIN(bp->bio_length - dk->dk_issued, dk->dk_maxpiece);

	if (dk->dk_issued == 0 && piece < bp->bio_length) {
		dk->dk_split = vtscsi_split_get(dk->dk_sc);
		dk->dk_split->sp_bp = bp;
	}
	vtscsi_req_header(r, dk->dk_target);
	r->r_dk = dk;
	r->r_bp = bp;
	r->r_split = dk->dk_split;
	r->r_lba = (bp->bio_offset + dk->dk_issued) / bs;
	r->r_nblocks = piece / bs;
	r->r_data = NULL;
	r->r_dataoff = dk->dk_issued;
	r->r_datalen = piece;
	r->r_dir = bp->bio_cmd == BIO_WRITE ? VTSCSI_OUT : VTSCSI_IN;
	r->r_retries = 0;
	scsi_cdb_rw(r->r_cmd.cdb, bp->bio_cmd == BIO_WRITE, r->r_lba, r->r_nblocks);
	dk->dk_issued += piece;
	if (r->r_split != NULL) {
		r->r_split->sp_pending++;
		r->r_split->sp_all_issued = dk->dk_issued == bp->bio_length;
	}
}

/* SYNCHRONIZE CACHE(10) of the whole medium for a BIO_FLUSH at dk's head. sc_lock held. */
static void vtscsi_issue_flush(struct vtscsi_disk *dk, struct vtscsi_req *r)
{
	vtscsi_req_header(r, dk->dk_target);
	r->r_dk = dk;
	r->r_bp = dk->dk_head;
	r->r_lba = 0;
	r->r_nblocks = 0;
	r->r_data = NULL;
	r->r_datalen = 0;
	r->r_dir = VTSCSI_NODATA;
	r->r_retries = 0;
	scsi_cdb_sync_cache10(r->r_cmd.cdb, 0, 0);
}

/* Take dk's head bio off its queue once every byte of it has been issued. */
static void vtscsi_pop(struct vtscsi_disk *dk)
{
	dk->dk_head = dk->dk_head->bio_next;
	if (dk->dk_head == NULL)
		dk->dk_tail = NULL;
	dk->dk_issued = 0;
	dk->dk_split = NULL;
}

/*
 * Chained descriptors only: do the ring's free descriptors hold dk's next command? (With
 * indirect tables a command takes one ring descriptor, and a free request guarantees it.)
 * Nothing in flight means every descriptor is free, and no command needs more than the ring has.
 */
static bool vtscsi_ring_has_room(struct vtscsi_softc *sc, struct vtscsi_disk *dk)
{
	struct bio *bp = dk->dk_head;
	struct disk_seg ds[VTSCSI_MAXDSEGS];
	int need = 2;

	if (sc->sc_vq.vq_indirect)
		return true;
	if (bp->bio_cmd != BIO_FLUSH)
		need += bio_segments(bp, dk->dk_issued, MIN(bp->bio_length - dk->dk_issued, dk->dk_maxpiece),
		                     ds, VTSCSI_MAXDSEGS, VTSCSI_MAXIO);
	return sc->sc_vq.vq_nfree >= need;
}

/* Issue one command for disk dk if it has work and the ring has room. sc_lock held. Returns
 * whether a command was posted. */
static bool vtscsi_start_one(struct vtscsi_softc *sc, struct vtscsi_disk *dk)
{
	struct bio *bp = dk->dk_head;
	struct vtscsi_req *r;
	int error;

	if (bp == NULL)
		return false;
	if (!vtscsi_ring_has_room(sc, dk))
		return false;                      /* retried when a command gives descriptors back */
	if ((r = vtscsi_req_get(sc)) == NULL)
		return false;
	if (bp->bio_cmd == BIO_FLUSH) {
		vtscsi_issue_flush(dk, r);
		vtscsi_pop(dk);
	} else {
		vtscsi_issue_rw(dk, r);
		if (dk->dk_issued == bp->bio_length)
			vtscsi_pop(dk);
	}
	error = vtscsi_post(sc, r);
	KASSERT(error == 0, "virtio-SCSI ring full after checking for room");
	dk->dk_inflight++;
	if (dk->dk_inflight > dk->dk_max_active)
		dk->dk_max_active = dk->dk_inflight;
	return true;
}

/* vtscsi_start: hand out free requests round-robin over the adapter's disks. sc_lock held. */
static void vtscsi_start(struct vtscsi_softc *sc)
{
	bool progress = true;

	while (progress && sc->sc_ndisks > 0) {
		progress = false;
		for (int i = 0; i < sc->sc_ndisks; i++) {
			struct vtscsi_disk *dk = sc->sc_disks[(sc->sc_rr + i) % sc->sc_ndisks];
			if (vtscsi_start_one(sc, dk))
				progress = true;
		}
		sc->sc_rr = (sc->sc_rr + 1) % sc->sc_ndisks;
	}
	vtscsi_kick(sc);
}

/* Complete bios gathered under the lock. No lock held: bio_done may start I/O. */
static void vtscsi_complete(struct bio *done)
{
	while (done != NULL) {
		struct bio *bp = done;
		done = bp->bio_next;
		disk_iodone(bp);
	}
}

/* d_strategy: queue the bio and start what the queue can take. Never sleeps. */
static void vtscsi_strategy(struct bio *bp)
{
	struct vtscsi_disk *dk = bp->bio_disk->d_softc;
	struct vtscsi_softc *sc = dk->dk_sc;

	bp->bio_next = NULL;
	spin_lock(&sc->sc_lock);
	if (dk->dk_tail != NULL)
		dk->dk_tail->bio_next = bp;
	else
		dk->dk_head = bp;
	dk->dk_tail = bp;
	vtscsi_start(sc);
	spin_unlock(&sc->sc_lock);
}

/* ---- completion ------------------------------------------------------------------------------ */

/* One piece of a bio is over with `error` (0 or errno): finish the bio when it was the last. */
static void vtscsi_piece_done(struct vtscsi_softc *sc, struct vtscsi_req *r, int error,
                              struct bio **done)
{
	struct vtscsi_split *sp = r->r_split;
	struct bio *bp = r->r_bp;

	if (sp == NULL) {
		bp->bio_error = error;
		bp->bio_resid = error ? bp->bio_length : 0;
		vtscsi_done_push(done, bp);
		return;
	}
	if (error != 0 && sp->sp_error == 0)
		sp->sp_error = error;
	if (error != 0)
		sp->sp_resid += r->r_datalen;
	if (--sp->sp_pending == 0 && sp->sp_all_issued) {
		bp->bio_error = sp->sp_error;
		bp->bio_resid = sp->sp_resid;
		vtscsi_done_push(done, bp);
		vtscsi_split_put(sc, sp);
	}
}

/* A bio's command came back: retry it, or finish its piece. sc_lock held. */
static void vtscsi_finish(struct vtscsi_softc *sc, struct vtscsi_req *r, struct bio **done)
{
	struct vtscsi_disk *dk = r->r_dk;
	char what[96], why[160];
	bool quiet;
	int error = vtscsi_result(r, why, sizeof(why), &quiet);

	if (error != 0)
		vtscsi_describe(sc, r, what, sizeof(what));
	if (error == EAGAIN && r->r_retries < VTSCSI_RETRIES) {
		r->r_retries++;
		if (!quiet)
			kprintf("%s: %s; retrying (%d of %d)\n", what, why, r->r_retries, VTSCSI_RETRIES);
		if (vtscsi_post(sc, r) == 0)
			return;
		snprintf(why, sizeof(why), "could not be re-queued");
	}
	if (error == EAGAIN)
		error = EIO;
	if (error != 0)
		kprintf("%s: %s; giving up: %s\n", what, why, error == ENXIO ? "ENXIO" : "EIO");
	dk->dk_inflight--;
	vtscsi_piece_done(sc, r, error, done);
	vtscsi_req_put(sc, r);
}

/* Take every finished request off the used ring. sc_lock held. */
static void vtscsi_drain(struct vtscsi_softc *sc, struct bio **done)
{
	struct vtscsi_req *r;
	uint32_t len;

	while ((r = virtq_dequeue(&sc->sc_vq, &len)) != NULL) {
		r->r_inflight = false;
		sc->sc_inflight--;
		if (r->r_bp == NULL)
			r->r_done = true;              /* a scan command: its poller looks at it */
		else
			vtscsi_finish(sc, r, done);
	}
}

/* The adapter's interrupt (INTx, maybe shared): ISR 0 means another device's. */
static void vtscsi_intr(void *arg)
{
	struct vtscsi_softc *sc = arg;
	struct bio *done = NULL;
	uint8_t isr = virtio_isr(&sc->sc_vd);

	if (isr == 0)
		return;
	if (isr & VIRTIO_ISR_CONFIG)
		kprintf("%s: the device configuration changed; ignored\n", sc->sc_name);
	spin_lock(&sc->sc_lock);
	vtscsi_drain(sc, &done);
	vtscsi_start(sc);
	spin_unlock(&sc->sc_lock);
	vtscsi_complete(done);
}

/*
 * Commands are out and the device has answered none for a second. Two causes are on the
 * driver's side of the ring and cheap to undo: answers the device put in the used ring with no
 * interrupt seen (take them, as the interrupt would have), and a doorbell the device did not act
 * on (ring it again, whatever VRING_USED_F_NO_NOTIFY says; with nothing new the device just
 * looks). The second was seen: in a make experiment run a WRITE(10) sat unanswered with the
 * avail index one past the used index until the doorbell was rung again 30 s later
 * (docs/storage.md). sc_lock held; finished bios are added to *done.
 */
static void vtscsi_recover(struct vtscsi_softc *sc, struct bio **done)
{
	uint16_t pending = virtq_used_pending(&sc->sc_vq);

	if (pending != 0) {
		kprintf("%s: %u answers were in the used ring with no interrupt; taken\n", sc->sc_name,
		        pending);
		vtscsi_drain(sc, done);
		vtscsi_start(sc);
	} else {
		vtscsi_rekicks++;
		virtq_kick(&sc->sc_vq);
	}
}

/*
 * The watchdog (callout, once a second while commands are out): vtscsi_recover when the device
 * has answered nothing since the last run, and a report of each command older than
 * hw.vtscsi.timeout, once. The device still owns an unanswered command's buffers, so the command
 * is not taken back.
 */
static void vtscsi_watchdog(void *arg)
{
	struct vtscsi_softc *sc = arg;
	uint32_t limit = (uint32_t)vtscsi_timeout * HZ;
	struct bio *done = NULL;
	char what[96];

	spin_lock(&sc->sc_lock);
	for (int i = 0; i < sc->sc_nreqs; i++) {
		struct vtscsi_req *r = &sc->sc_reqs[i];
		if (!r->r_inflight || r->r_reported || ticks - r->r_issued < limit)
			continue;
		r->r_reported = true;
		vtscsi_describe(sc, r, what, sizeof(what));
		kprintf("%s: no answer from the device after %u s (%d commands out; used ring %u, "
		        "taken %u, avail %u); still waiting\n", what, (ticks - r->r_issued) / HZ,
		        sc->sc_inflight, sc->sc_vq.vq_used->idx, sc->sc_vq.vq_last_used,
		        sc->sc_vq.vq_avail_idx);
	}
	if (sc->sc_inflight > 0 && sc->sc_vq.vq_used->idx == sc->sc_wd_used)
		vtscsi_recover(sc, &done);
	sc->sc_wd_used = sc->sc_vq.vq_used->idx;
	if (sc->sc_inflight > 0)
		callout_reset(&sc->sc_watchdog, HZ, vtscsi_watchdog, sc);
	else
		sc->sc_wd_armed = false;
	spin_unlock(&sc->sc_lock);
	vtscsi_complete(done);
}

static int sysctl_vtscsi_timeout(struct sysctl_req *req)
{
	int v = vtscsi_timeout;
	int error = sysctl_handle_int(req, &v);

	if (error != 0 || req->newptr == NULL)
		return error;
	if (v < 1)
		return EINVAL;
	vtscsi_timeout = v;
	return 0;
}

/* ---- scan commands (boot, polled) ------------------------------------------------------------ */

/*
 * Run one command to `target` and wait for the answer by polling the used ring (interrupts may
 * not be on yet). On return *r holds the response; 0, EBUSY (no free request) or VTSCSI_NOANSWER.
 * After VTSCSI_NOANSWER the device still owns the request: the caller resets the device.
 */
static int vtscsi_poll_cmd(struct vtscsi_softc *sc, struct vtscsi_req **rp, int target,
                           const uint8_t *cdb, int cdblen, void *data, uint32_t len)
{
	struct vtscsi_req *r;
	struct bio *done = NULL;
	bool finished = false;

	spin_lock(&sc->sc_lock);
	r = vtscsi_req_get(sc);
	if (r != NULL) {
		vtscsi_req_header(r, target);
		memcpy(r->r_cmd.cdb, cdb, cdblen);
		r->r_data = data;
		r->r_datalen = len;
		r->r_dir = len > 0 ? VTSCSI_IN : VTSCSI_NODATA;
		r->r_nblocks = 0;
		if (vtscsi_post(sc, r) != 0) {
			vtscsi_req_put(sc, r);
			r = NULL;
		}
		vtscsi_kick(sc);
	}
	spin_unlock(&sc->sc_lock);
	if (r == NULL)
		return EBUSY;
	for (int ms = 0; ms < VTSCSI_POLL_MS && !finished; ms++) {
		DELAY(1000);
		spin_lock(&sc->sc_lock);
		vtscsi_drain(sc, &done);
		finished = r->r_done;
		spin_unlock(&sc->sc_lock);
		vtscsi_complete(done);
		done = NULL;
	}
	*rp = r;
	return finished ? 0 : VTSCSI_NOANSWER;
}

static void vtscsi_poll_release(struct vtscsi_softc *sc, struct vtscsi_req *r)
{
	spin_lock(&sc->sc_lock);
	vtscsi_req_put(sc, r);
	spin_unlock(&sc->sc_lock);
}

/*
 * A scan command with retries past UNIT ATTENTION and NOT READY (every LUN reports a UNIT
 * ATTENTION first: QEMU 7.2 leaves one pending at each reset, power-on included;
 * [@qemu-scsi-disk] in docs/sources.md). 0, ENXIO (no such target, silently), EIO
 * (reported), or VTSCSI_NOANSWER (reported; the device must be reset).
 */
static int vtscsi_scan_cmd(struct vtscsi_softc *sc, int target, const uint8_t *cdb, int cdblen,
                           void *data, uint32_t len)
{
	struct vtscsi_req *r;
	char what[96] = "", why[160] = "";
	bool quiet;
	int error = EIO;

	for (int tries = 1; tries <= VTSCSI_SCAN_TRIES; tries++) {
		error = vtscsi_poll_cmd(sc, &r, target, cdb, cdblen, data, len);
		if (error == EBUSY)
			return EIO;
		if (error == VTSCSI_NOANSWER) {
			kprintf("%s target %d: %s: no answer in %d ms\n", sc->sc_name, target,
			        scsi_op_name(cdb[0]), VTSCSI_POLL_MS);
			return VTSCSI_NOANSWER;
		}
		error = vtscsi_result(r, why, sizeof(why), &quiet);
		vtscsi_describe(sc, r, what, sizeof(what));
		vtscsi_poll_release(sc, r);
		if (error != EAGAIN)
			break;
		if (!quiet)
			kprintf("%s: %s; retrying\n", what, why);
		DELAY(20000);
	}
	if (error == EAGAIN)
		error = EIO;
	if (error == EIO)
		kprintf("%s: %s\n", what, why);
	return error;
}

/* ---- attach ---------------------------------------------------------------------------------- */

/* dev.da.<n>.max_active: commands, so a split request counts once per piece (devstat counts bios). */
static void vtscsi_disk_sysctls(struct vtscsi_disk *dk)
{
	char *name = kmalloc(SYSCTL_NAMELEN, M_WAITOK);

	if (name == NULL)
		return;
	snprintf(name, SYSCTL_NAMELEN, "dev.da.%s.max_active", dk->dk_disk.d_name + 2);
	sysctl_add_int(name, CTLFLAG_RD, &dk->dk_max_active,
	               "Most commands this disk has had in the virtqueue at once (pieces of split requests count)");
}

/*
 * The largest piece one command carries: max_sectors, d_maxio, and seg_max - 1 pages (data not
 * page-aligned touches one page more than its length needs); whole blocks.
 */
static uint32_t vtscsi_maxpiece(struct vtscsi_softc *sc, uint32_t bs)
{
	uint64_t m = VTSCSI_MAXIO;

	if (sc->sc_max_sectors > 0)
		m = MIN(m, (uint64_t)sc->sc_max_sectors * DEV_BSIZE);
	if (sc->sc_seg_max > 0)
		m = MIN(m, (uint64_t)(sc->sc_seg_max > 1 ? sc->sc_seg_max - 1 : 1) * PAGE_SIZE);
	m = rounddown(m, bs);
	return m < bs ? bs : (uint32_t)m;
}

/* Make target t's disk da<n>. Boot, one CPU. */
static void vtscsi_add_disk(struct vtscsi_softc *sc, int t, const struct scsi_inquiry_data *inq,
                            const struct scsi_capacity *cap)
{
	struct vtscsi_disk *dk = kmalloc(sizeof(*dk), M_WAITOK | M_ZERO);

	if (dk == NULL) {
		kprintf("%s target %d: no memory for the disk; skipped\n", sc->sc_name, t);
		return;
	}
	dk->dk_sc = sc;
	dk->dk_target = t;
	dk->dk_maxpiece = vtscsi_maxpiece(sc, cap->block_size);
	dk->dk_disk.d_maxopenings = sc->sc_nreqs;
	dk->dk_disk.d_openings = MIN(CAM_MAXTAGS, sc->sc_nreqs);
	if (sc->sc_cmd_per_lun > 0 && sc->sc_cmd_per_lun < (uint32_t)dk->dk_disk.d_openings)
		dk->dk_disk.d_openings = (int)sc->sc_cmd_per_lun;
	snprintf(dk->dk_disk.d_name, sizeof(dk->dk_disk.d_name), "da%d", da_units++);
	dk->dk_disk.d_sectorsize = cap->block_size;
	dk->dk_disk.d_mediasize = cap->nblocks * cap->block_size;
	dk->dk_disk.d_maxio = rounddown(VTSCSI_MAXIO, cap->block_size);
	dk->dk_disk.d_strategy = vtscsi_strategy;
	dk->dk_disk.d_softc = dk;
	kprintf("%s: <%s %s %s> at %s target %d lun 0: %llu blocks of %u bytes\n", dk->dk_disk.d_name,
	        inq->vendor, inq->product, inq->revision, sc->sc_name, t,
	        (unsigned long long)cap->nblocks, cap->block_size);
	kprintf("%s: %d tagged openings, %u KB per command\n", dk->dk_disk.d_name,
	        dk->dk_disk.d_openings, dk->dk_maxpiece / 1024);
	spin_lock(&sc->sc_lock);
	sc->sc_disks[sc->sc_ndisks++] = dk;
	spin_unlock(&sc->sc_lock);
	disk_register(&dk->dk_disk);
	vtscsi_disk_sysctls(dk);
}

/* READ CAPACITY(10), then (16) if the disk is too big for it. 0 or errno (reported). */
static int vtscsi_capacity(struct vtscsi_softc *sc, int t, struct scsi_capacity *cap)
{
	uint8_t cdb[SCSI_CDB_MAX];
	int n, error, ok;

	n = scsi_cdb_read_capacity10(cdb);
	memset(sc->sc_scratch, 0, SCSI_CAP16_LEN);
	if ((error = vtscsi_scan_cmd(sc, t, cdb, n, sc->sc_scratch, SCSI_CAP10_LEN)) != 0)
		return error;
	ok = scsi_parse_capacity10(sc->sc_scratch, SCSI_CAP10_LEN, cap);
	if (ok == 0) {
		n = scsi_cdb_read_capacity16(cdb, SCSI_CAP16_LEN);
		if ((error = vtscsi_scan_cmd(sc, t, cdb, n, sc->sc_scratch, SCSI_CAP16_LEN)) != 0)
			return error;
		ok = scsi_parse_capacity16(sc->sc_scratch, SCSI_CAP16_LEN, cap) ? 1 : -1;
	}
	if (ok < 0 || cap->nblocks == 0) {
		kprintf("%s target %d: unusable capacity data (block size %u); skipped\n", sc->sc_name, t,
		        cap->block_size);
		return EIO;
	}
	return 0;
}

/* Probe target t, LUN 0. VTSCSI_NOANSWER means the device stopped answering: stop the scan. */
static int vtscsi_probe_target(struct vtscsi_softc *sc, int t)
{
	struct scsi_inquiry_data inq;
	struct scsi_capacity cap;
	uint8_t cdb[SCSI_CDB_MAX];
	int n, error;

	n = scsi_cdb_inquiry(cdb, SCSI_INQUIRY_LEN);
	memset(sc->sc_scratch, 0, SCSI_INQUIRY_LEN);
	if ((error = vtscsi_scan_cmd(sc, t, cdb, n, sc->sc_scratch, SCSI_INQUIRY_LEN)) != 0)
		return error;
	if (!scsi_parse_inquiry(sc->sc_scratch, SCSI_INQUIRY_LEN, &inq)) {
		kprintf("%s target %d: short INQUIRY data; skipped\n", sc->sc_name, t);
		return EIO;
	}
	if (inq.qualifier != SID_QUAL_LU_CONNECTED || inq.type == T_NODEVICE)
		return ENXIO;
	if (inq.type != T_DIRECT) {
		kprintf("%s target %d: <%s %s> is peripheral type %u, not a disk; skipped\n",
		        sc->sc_name, t, inq.vendor, inq.product, inq.type);
		return ENXIO;
	}
	n = scsi_cdb_test_unit_ready(cdb);
	if ((error = vtscsi_scan_cmd(sc, t, cdb, n, NULL, 0)) != 0)
		return error;
	if ((error = vtscsi_capacity(sc, t, &cap)) != 0)
		return error;
	vtscsi_add_disk(sc, t, &inq, &cap);
	return 0;
}

/* Read the configuration and fix the CDB and sense sizes to this driver's structures. */
static int vtscsi_read_config(struct vtscsi_softc *sc, int *max_targetp)
{
	struct virtio_dev *vd = &sc->sc_vd;
	uint32_t nq = virtio_cfg_read32(vd, VTSCSI_CFG_NUM_QUEUES);
	uint32_t max_lun = virtio_cfg_read32(vd, VTSCSI_CFG_MAX_LUN);
	uint16_t max_target = virtio_cfg_read16(vd, VTSCSI_CFG_MAX_TARGET);

	sc->sc_seg_max = virtio_cfg_read32(vd, VTSCSI_CFG_SEG_MAX);
	sc->sc_max_sectors = virtio_cfg_read32(vd, VTSCSI_CFG_MAX_SECTORS);
	sc->sc_cmd_per_lun = virtio_cfg_read32(vd, VTSCSI_CFG_CMD_PER_LUN);
	virtio_cfg_write32(vd, VTSCSI_CFG_CDB_SIZE, VTSCSI_CDB_SIZE);
	virtio_cfg_write32(vd, VTSCSI_CFG_SENSE_SIZE, VTSCSI_SENSE_SIZE);
	kprintf("%s: num_queues %u, seg_max %u, max_sectors %u, cmd_per_lun %u, max_target %u, "
	        "max_lun %u\n", sc->sc_name, nq, sc->sc_seg_max, sc->sc_max_sectors, sc->sc_cmd_per_lun,
	        max_target, max_lun);
	if (nq == 0) {
		kprintf("%s: the device has no request queue\n", sc->sc_name);
		return ENXIO;
	}
	*max_targetp = max_target;
	return 0;
}

/*
 * The request pool: one per ring descriptor with indirect tables, else one per three (a command
 * with one data segment); and as many split trackers.
 */
static int vtscsi_alloc_reqs(struct vtscsi_softc *sc)
{
	if (!sc->sc_vq.vq_indirect && sc->sc_vq.vq_size < VTSCSI_NSEGS) {
		kprintf("%s: a %u-entry queue cannot hold a %d-descriptor command\n", sc->sc_name,
		        sc->sc_vq.vq_size, VTSCSI_NSEGS);
		return ENXIO;
	}
	sc->sc_nreqs = sc->sc_vq.vq_indirect ? sc->sc_vq.vq_size : sc->sc_vq.vq_size / 3;
	sc->sc_reqs = kmalloc(sc->sc_nreqs * sizeof(struct vtscsi_req), M_WAITOK | M_ZERO);
	sc->sc_splits = kmalloc(sc->sc_nreqs * sizeof(struct vtscsi_split), M_WAITOK | M_ZERO);
	sc->sc_scratch = kmalloc(PAGE_SIZE, M_WAITOK | M_ZERO);
	if (sc->sc_reqs == NULL || sc->sc_splits == NULL || sc->sc_scratch == NULL) {
		kprintf("%s: no memory for %d requests\n", sc->sc_name, sc->sc_nreqs);
		return ENOMEM;
	}
	for (int i = sc->sc_nreqs - 1; i >= 0; i--) {
		vtscsi_req_put(sc, &sc->sc_reqs[i]);
		vtscsi_split_put(sc, &sc->sc_splits[i]);
	}
	return 0;
}

static int vtscsi_match(struct pci_dev *d)
{
	return d->vendor == VIRTIO_VENDOR &&
	       (d->device == VIRTIO_SCSI_DEVICE_LEGACY || d->device == VIRTIO_SCSI_DEVICE_MODERN);
}

/* Set up the device up to DRIVER_OK. 0 or errno (reported); on failure the device is reset. */
static int vtscsi_setup(struct vtscsi_softc *sc, struct pci_dev *d, int *max_target)
{
	int error;

	if ((error = virtio_pci_attach(&sc->sc_vd, d, sc->sc_name)) != 0)
		return error;
	virtio_negotiate(&sc->sc_vd, VIRTIO_RING_F_INDIRECT_DESC);
	if ((error = vtscsi_read_config(sc, max_target)) != 0)
		goto fail;
	if ((error = virtq_setup(&sc->sc_vd, VTSCSI_REQUESTQ, &sc->sc_vq)) != 0)
		goto fail;
	if ((error = vtscsi_alloc_reqs(sc)) != 0)
		goto fail;
	if ((error = pci_setup_intr(d, vtscsi_intr, sc, sc->sc_name)) != 0)
		goto fail;
	virtio_driver_ok(&sc->sc_vd);
	kprintf("%s: legacy virtio-pci at I/O 0x%x, request queue of %u entries, %s descriptors: "
	        "%d commands in flight\n", sc->sc_name, sc->sc_vd.vd_iobase, sc->sc_vq.vq_size,
	        sc->sc_vq.vq_indirect ? "indirect" : "chained", sc->sc_nreqs);
	return 0;
fail:
	virtio_failed(&sc->sc_vd);
	return error;
}

/* attach: bring the adapter up, then scan its targets. */
static int vtscsi_attach(struct pci_dev *d)
{
	struct vtscsi_softc *sc = kmalloc(sizeof(*sc), M_WAITOK | M_ZERO);
	int max_target = 0, error;

	if (sc == NULL)
		return ENOMEM;
	snprintf(sc->sc_name, sizeof(sc->sc_name), "vtscsi%d", vtscsi_units++);
	spin_init(&sc->sc_lock, "vtscsi");
	callout_init(&sc->sc_watchdog);
	if ((error = vtscsi_setup(sc, d, &max_target)) != 0)
		return error;
	for (int t = 0; t <= max_target && t < VTSCSI_MAXTARGETS; t++) {
		if (vtscsi_probe_target(sc, t) != VTSCSI_NOANSWER)
			continue;
		kprintf("%s: the device stopped answering at target %d; scan stopped\n", sc->sc_name, t);
		if (sc->sc_ndisks > 0)
			return 0;                  /* keep the disks found; the watchdog reports */
		virtio_reset(&sc->sc_vd);          /* nothing uses it: take the command back */
		virtio_failed(&sc->sc_vd);
		return EIO;
	}
	if (sc->sc_ndisks == 0)
		kprintf("%s: no disks found on targets 0..%d\n", sc->sc_name,
		        MIN(max_target, VTSCSI_MAXTARGETS - 1));
	return 0;
}

static struct pci_driver vtscsi_driver = {
	.name = "vtscsi",
	.match = vtscsi_match,
	.attach = vtscsi_attach,
};

/* virtio_scsi_init: register the driver; pci_attach_drivers() calls vtscsi_attach. */
void virtio_scsi_init(void)
{
	pci_register_driver(&vtscsi_driver);
}
