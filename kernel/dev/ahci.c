/*
 * ahci.c - AHCI 1.3.1 host bus adapter driver with ATA disks (interface: dev/ahci.h).
 *
 * Attach (AHCI 1.3.1 §10.1): reset the HBA (GHC.HR), enable AHCI mode (GHC.AE), and for every
 * implemented port (PI) make sure it is idle (§10.1.2: PxCMD.ST, CR, FRE, FR all clear), give it
 * a command list, a received-FIS area and one command table per slot, turn on FIS receive, and
 * look for a device: PxSSTS.DET = 3 (present, PHY up) and PxSIG = 00000101h (an ATA disk; ATAPI
 * and others are skipped). The port is started (PxCMD.ST) and the disk answers IDENTIFY DEVICE,
 * polled; the model, the 48-bit capacity (words 100-103) and the NCQ depth (word 76 bit 8,
 * word 75) decide how it is driven. Each disk registers as ada<n>.
 *
 * I/O: ahci_strategy() queues a bio and starts what the port can take. With NCQ, READ/WRITE
 * FPDMA QUEUED (ATA8-ACS §7.24/§7.59) go out in as many slots as both the HBA (CAP.NCS + 1) and
 * the disk (queue depth) have; the tag is the slot number and each is issued by setting its
 * PxSACT bit, then its PxCI bit (AHCI §5.6.4.1). The block layer's disk queue (dev/disk.c)
 * sorts the waiting requests and hands the port at most dev.ada.<n>.openings at once (default:
 * the slots, CAM's min(CAM_MAXTAGS, the adapter's per-device limit)).
 * Without NCQ, READ/WRITE DMA EXT run one at a time. FLUSH CACHE EXT (for BIO_FLUSH) is not
 * queued: the queue drains first and nothing else is issued while it runs, so it also orders the
 * writes before and after it. Requests are at most AHCI_MAXIO (d_maxio; disk_start rejects
 * bigger ones and disk_io_sync splits), which one command table's PRDT always covers: the PRDT
 * has one entry per physical segment of the data (bio_segments: a direct-mapped buffer or a
 * page list, adjacent pages merged), so at worst one per page touched.
 *
 * Completion: the port interrupt (PxIS, then the HBA's IS; MSI or INTx) finishes every slot whose
 * PxCI and PxSACT bits are both clear and completes its bio with disk_iodone (outside the lock).
 *
 * Errors (§6.2.2): on PxIS.TFES or another fatal PxIS error, or when a command's watchdog callout
 * expires, the port is recovered: commands that finished are completed, the port is stopped
 * (ST, then wait for CR), reset (COMRESET through PxSCTL.DET, which also makes the device forget
 * its queue), its errors cleared (PxSERR, PxIS) and restarted. If exactly one command was in flight
 * it is the one at fault: it is re-issued up to AHCI_RETRIES times and then fails with EIO and a
 * console line naming the disk, the LBA and the ATA status and error registers. If several were
 * in flight, the one at fault is unknown: they are all re-issued one at a time (the innocent ones
 * succeed, transparently) and the guilty one shows itself by failing alone.
 *
 * The slot bookkeeping behind these rules (which slot a command takes, which slots an interrupt
 * finishes, how a recovery sorts the slots in flight) is pure code in dev/ahci_ncq.c, tested on
 * the host; lab ncq (labs/ncq/README.md) has students write it and the NCQ parts here.
 *
 * Locking: each port's p_lock (spinlock) protects its queue, slots and masks and serializes access
 * to its registers. disk_iodone is always called with no lock held (bio_done may start I/O).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/time.h"
#include "kern/sysctl.h"
#include "arch/memlayout.h"
#include "arch/x86.h"
#include "dev/pci.h"
#include "dev/disk.h"
#include "dev/ata_cmd.h"
#include "dev/ahci_ncq.h"
#include "dev/ahci.h"
#include <sys/errno.h>

/* Generic host control registers (AHCI 1.3.1 §3.1). */
#define AHCI_CAP        0x00
#define AHCI_GHC        0x04
#define AHCI_IS         0x08
#define AHCI_PI         0x0c
#define AHCI_VS         0x10
#define AHCI_CAP_NP(c)  (((c) & 0x1f) + 1)
#define AHCI_CAP_NCS(c) ((((c) >> 8) & 0x1f) + 1)
#define AHCI_CAP_SNCQ   (1u << 30)
#define AHCI_GHC_HR     (1u << 0)
#define AHCI_GHC_IE     (1u << 1)
#define AHCI_GHC_AE     (1u << 31)

/* Port registers (§3.3), at 100h + port * 80h. */
#define AHCI_PORT(n)    (0x100 + (n) * 0x80)
#define AHCI_P_CLB      0x00
#define AHCI_P_CLBU     0x04
#define AHCI_P_FB       0x08
#define AHCI_P_FBU      0x0c
#define AHCI_P_IS       0x10
#define AHCI_P_IE       0x14
#define AHCI_P_CMD      0x18
#define AHCI_P_TFD      0x20
#define AHCI_P_SIG      0x24
#define AHCI_P_SSTS     0x28
#define AHCI_P_SCTL     0x2c
#define AHCI_P_SERR     0x30
#define AHCI_P_SACT     0x34
#define AHCI_P_CI       0x38

#define AHCI_P_CMD_ST   (1u << 0)
#define AHCI_P_CMD_FRE  (1u << 4)
#define AHCI_P_CMD_FR   (1u << 14)
#define AHCI_P_CMD_CR   (1u << 15)

/* PxIS / PxIE bits (§3.3.5). */
#define AHCI_P_IX_DHR   (1u << 0)      /* D2H Register FIS: a non-queued command ended */
#define AHCI_P_IX_PS    (1u << 1)      /* PIO Setup FIS */
#define AHCI_P_IX_DS    (1u << 2)      /* DMA Setup FIS */
#define AHCI_P_IX_SDB   (1u << 3)      /* Set Device Bits FIS: NCQ commands ended */
#define AHCI_P_IX_DP    (1u << 5)      /* a PRD with I set was done */
#define AHCI_P_IX_OF    (1u << 24)     /* overflow */
#define AHCI_P_IX_INF   (1u << 26)     /* interface non-fatal error */
#define AHCI_P_IX_IF    (1u << 27)     /* interface fatal error */
#define AHCI_P_IX_HBD   (1u << 28)     /* host bus data error */
#define AHCI_P_IX_HBF   (1u << 29)     /* host bus fatal error */
#define AHCI_P_IX_TFE   (1u << 30)     /* task file error: the device set ERR */
#define AHCI_P_IX_ERRORS (AHCI_P_IX_OF | AHCI_P_IX_IF | AHCI_P_IX_HBD | AHCI_P_IX_HBF | AHCI_P_IX_TFE)
#define AHCI_P_IX_ENABLE (AHCI_P_IX_DHR | AHCI_P_IX_PS | AHCI_P_IX_DS | AHCI_P_IX_SDB | AHCI_P_IX_DP | \
                          AHCI_P_IX_INF | AHCI_P_IX_ERRORS)

#define AHCI_SSTS_DET(s)   ((s) & 0xf)
#define AHCI_SSTS_DET_PHY  3             /* device present and communication established */
#define AHCI_SCTL_DET_INIT 1             /* perform interface initialization (COMRESET) */
#define AHCI_SIG_ATA       0x00000101u   /* §3.3.9 and Serial ATA 2.6 §11.3 */
#define AHCI_SIG_ATAPI     0xeb140101u

/* Sizes. Every AHCI_MAXIO request fits one PRDT: one entry per page touched, at worst. */
#define AHCI_MAXPORTS   32
#define AHCI_MAXSLOTS   32
#define AHCI_MAXIO      (128 * 1024)     /* FreeBSD's MAXPHYS: the block layer splits larger I/O */
#define AHCI_NPRD       (AHCI_MAXIO / PAGE_SIZE + 1)
#define AHCI_CT_PRDT    0x80             /* command table: CFIS at 0, ACMD at 40h, PRDT at 80h */
#define AHCI_CT_SIZE    roundup(AHCI_CT_PRDT + AHCI_NPRD * 16, 128)   /* 128-byte aligned */
#define AHCI_CL_SIZE    1024             /* 32 command headers, 1 KB aligned */
#define AHCI_RFIS_OFF   1024             /* received FIS area (256 bytes, 256 aligned) after it */

#define AHCI_RETRIES    3
#define AHCI_TIMEOUT    (10 * HZ)        /* per command */
#define AHCI_POLL_MS    1000             /* longest wait for a register to change */

struct ahci_hba;

struct ahci_slot {
	struct bio     *s_bp;         /* NULL: free */
	bool            s_ncq;        /* issued as FPDMA QUEUED */
	int             s_retries;    /* times this request failed alone */
	uint32_t        s_deadline;   /* tick when the watchdog gives up on it */
	struct callout  s_timeout;
	struct ahci_port *s_port;
};

/* One port with an ATA disk on it. Fields below p_lock are protected by it. */
struct ahci_port {
	struct disk       p_disk;         /* must stay first: d_softc points to the port */
	struct ahci_hba  *p_hba;
	int               p_num;          /* port number on the HBA */
	uintptr_t         p_regs;         /* its register block */
	struct ahci_cmd_header *p_cl;     /* command list */
	uint8_t          *p_ctbl;         /* AHCI_MAXSLOTS command tables, AHCI_CT_SIZE apart */
	int               p_nslots;       /* slots used: min(HBA slots, NCQ depth) or 1 */
	bool              p_ncq;
	char              p_model[41];
	struct spinlock   p_lock;
	struct bio       *p_head, *p_tail; /* waiting requests */
	uint32_t          p_active;       /* slots issued to the HBA */
	uint32_t          p_retry;        /* slots holding a request to re-issue after recovery */
	bool              p_nonq;         /* a non-queued command is active */
	bool              p_dead;         /* the port could not be recovered: every request fails */
	struct ahci_slot  p_slots[AHCI_MAXSLOTS];
};

struct ahci_hba {
	char              h_name[16];
	struct pci_dev   *h_pci;
	uintptr_t         h_regs;         /* ABAR (BAR 5), mapped VA == PA in device space */
	uint32_t          h_cap;
	uint32_t          h_pi;           /* ports implemented */
	struct ahci_port *h_ports[AHCI_MAXPORTS];
};

static int ahci_units;                    /* HBAs attached (boot, one CPU) */
static int ada_units;                     /* disks registered (boot, one CPU) */

/* ---- register access and waiting ------------------------------------------------------------- */

static uint32_t hba_read(struct ahci_hba *h, int reg) { return mmio_read32(h->h_regs + reg); }
static void hba_write(struct ahci_hba *h, int reg, uint32_t v) { mmio_write32(h->h_regs + reg, v); }
static uint32_t port_read(struct ahci_port *p, int reg) { return mmio_read32(p->p_regs + reg); }
static void port_write(struct ahci_port *p, int reg, uint32_t v) { mmio_write32(p->p_regs + reg, v); }

/* Wait up to `ms` milliseconds for (register & mask) == want; true if it got there. */
static bool wait_reg(uintptr_t addr, uint32_t mask, uint32_t want, int ms)
{
	for (int i = 0; i <= ms * 10; i++) {
		if ((mmio_read32(addr) & mask) == want)
			return true;
		DELAY(100);
	}
	return false;
}

/* ---- port control (§10.1.2, §10.4) ---------------------------------------------------------- */

/* Stop the command list engine: clear ST and wait for CR (spec: up to 500 ms). */
static bool ahci_port_stop(struct ahci_port *p)
{
	port_write(p, AHCI_P_CMD, port_read(p, AHCI_P_CMD) & ~AHCI_P_CMD_ST);
	return wait_reg(p->p_regs + AHCI_P_CMD, AHCI_P_CMD_CR, 0, 500);
}

/* Start it: the device must not be busy (PxTFD.BSY and DRQ clear, §10.3.1) and FRE must be on. */
static bool ahci_port_start(struct ahci_port *p)
{
	if (!wait_reg(p->p_regs + AHCI_P_TFD, ATA_S_BSY | ATA_S_DRQ, 0, AHCI_POLL_MS))
		return false;
	port_write(p, AHCI_P_CMD, port_read(p, AHCI_P_CMD) | AHCI_P_CMD_FRE | AHCI_P_CMD_ST);
	return true;
}

/* COMRESET (§10.4.2): DET=1 for at least 1 ms, then 0; wait for the link; clear PxSERR. */
static bool ahci_port_comreset(struct ahci_port *p)
{
	uint32_t sctl = port_read(p, AHCI_P_SCTL) & ~0xfu;

	port_write(p, AHCI_P_SCTL, sctl | AHCI_SCTL_DET_INIT);
	DELAY(2000);
	port_write(p, AHCI_P_SCTL, sctl);
	if (!wait_reg(p->p_regs + AHCI_P_SSTS, 0xf, AHCI_SSTS_DET_PHY, AHCI_POLL_MS))
		return false;
	port_write(p, AHCI_P_SERR, 0xffffffff);
	return true;
}

/* Stop the port and FIS receive, so the HBA no longer touches its memory (before freeing it). */
static void ahci_port_disable(struct ahci_port *p)
{
	port_write(p, AHCI_P_IE, 0);
	ahci_port_stop(p);
	port_write(p, AHCI_P_CMD, port_read(p, AHCI_P_CMD) & ~AHCI_P_CMD_FRE);
	wait_reg(p->p_regs + AHCI_P_CMD, AHCI_P_CMD_FR, 0, 500);
}

/* Put an idle port's memory in place and turn on FIS receive (§10.1.2 steps 5-6). */
static bool ahci_port_setup(struct ahci_port *p, void *clmem)
{
	if (!ahci_port_stop(p))
		return false;
	port_write(p, AHCI_P_CMD, port_read(p, AHCI_P_CMD) & ~AHCI_P_CMD_FRE);
	if (!wait_reg(p->p_regs + AHCI_P_CMD, AHCI_P_CMD_FR, 0, 500))
		return false;
	port_write(p, AHCI_P_CLB, V2P(clmem));
	port_write(p, AHCI_P_CLBU, 0);
	port_write(p, AHCI_P_FB, V2P((char *)clmem + AHCI_RFIS_OFF));
	port_write(p, AHCI_P_FBU, 0);
	port_write(p, AHCI_P_SERR, 0xffffffff);
	port_write(p, AHCI_P_IS, 0xffffffff);
	port_write(p, AHCI_P_CMD, port_read(p, AHCI_P_CMD) | AHCI_P_CMD_FRE);
	return true;
}

/* ---- building and issuing commands ----------------------------------------------------------- */

static uint8_t *slot_table(struct ahci_port *p, int s)
{
	return p->p_ctbl + s * AHCI_CT_SIZE;
}

static const char *ahci_cmd_name(struct ahci_port *p, struct bio *bp)
{
	if (bp->bio_cmd == BIO_FLUSH)
		return "FLUSH CACHE EXT";
	if (p->p_ncq)
		return bp->bio_cmd == BIO_READ ? "READ FPDMA QUEUED" : "WRITE FPDMA QUEUED";
	return bp->bio_cmd == BIO_READ ? "READ DMA EXT" : "WRITE DMA EXT";
}

/*
 * Fill slot s's command table and header for its bio (s_ncq set: FPDMA QUEUED with tag s; else
 * non-queued). Returns 0, or EINVAL if the buffer needs more PRDT entries than a table has.
 */
static int ahci_build(struct ahci_port *p, int s)
{
	struct bio *bp = p->p_slots[s].s_bp;
	uint8_t *ct = slot_table(p, s);
	uint64_t lba = bp->bio_offset / DEV_BSIZE;
	uint32_t count = bp->bio_length / DEV_BSIZE;
	struct disk_seg segs[AHCI_NPRD];
	int nprd = 0, nseg;

	memset(ct, 0, AHCI_CT_PRDT);
	if (bp->bio_cmd == BIO_FLUSH) {
		ata_fis_nodata(ct, ATA_FLUSH_CACHE_EXT);
	} else {
		nseg = bio_segments(bp, 0, bp->bio_length, segs, AHCI_NPRD, AHCI_PRD_MAXBYTES);
		nprd = nseg < 0 ? -1 : ahci_prdt_build((struct ahci_prd *)(ct + AHCI_CT_PRDT), AHCI_NPRD,
		                                       segs, nseg);
		if (nprd < 0)
			return EINVAL;
		/* LAB ncq BEGIN */
		if (p->p_slots[s].s_ncq)
			ata_fis_fpdma(ct, bp->bio_cmd == BIO_READ ? ATA_READ_FPDMA_QUEUED : ATA_WRITE_FPDMA_QUEUED,
			              lba, count, (unsigned)s);
		else
			ata_fis_dma_ext(ct, bp->bio_cmd == BIO_READ ? ATA_READ_DMA_EXT : ATA_WRITE_DMA_EXT,
			                lba, count);
		/* LAB ncq STUB */
		// ata_fis_dma_ext(ct, bp->bio_cmd == BIO_READ ? ATA_READ_DMA_EXT : ATA_WRITE_DMA_EXT,
		//                 lba, count);
		/* LAB ncq END */
	}
	ahci_cmdhdr_build(&p->p_cl[s], SATA_FIS_H2D_LEN, bp->bio_cmd == BIO_WRITE, (unsigned)nprd,
	                  V2P(ct));
	return 0;
}

static void ahci_timeout(void *arg);

static int popcount32(uint32_t v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* Hand slot s (built) to the HBA and arm its watchdog. p_lock held. */
static void ahci_issue(struct ahci_port *p, int s)
{
	struct ahci_slot *sl = &p->p_slots[s];

	sl->s_deadline = ticks + AHCI_TIMEOUT;
	callout_reset(&sl->s_timeout, AHCI_TIMEOUT, ahci_timeout, sl);
	p->p_active |= 1u << s;
	/* LAB ncq BEGIN */
	if (sl->s_ncq)
		port_write(p, AHCI_P_SACT, 1u << s);     /* before PxCI (§5.6.4.1) */
	else
		p->p_nonq = true;
	/* LAB ncq STUB */
	// p->p_nonq = true;           /* one command at a time: every command runs alone */
	/* LAB ncq END */
	port_write(p, AHCI_P_CI, 1u << s);
}

/* Free a slot and give back its bio, appended to the caller's completion list `done`. */
static void ahci_slot_done(struct ahci_port *p, int s, int error, struct bio **done)
{
	struct ahci_slot *sl = &p->p_slots[s];
	struct bio *bp = sl->s_bp;

	callout_stop(&sl->s_timeout);
	p->p_active &= ~(1u << s);
	p->p_retry &= ~(1u << s);
	if (!sl->s_ncq)
		p->p_nonq = false;
	sl->s_bp = NULL;
	sl->s_retries = 0;
	bp->bio_error = error;
	bp->bio_resid = error ? bp->bio_length : 0;
	bp->bio_next = *done;
	*done = bp;
}

static int lowest_bit(uint32_t v)
{
	return __builtin_ctz(v);
}

/*
 * ahci_start: issue what the port can take now. p_lock held; failed requests are added to `done`.
 * After a recovery the slots in p_retry go first, one at a time; then queued bios in order while
 * ncq_pick_slot finds a slot: a FLUSH (or any command without NCQ) waits for an empty port and
 * then runs alone.
 */
static void ahci_start(struct ahci_port *p, struct bio **done)
{
	if (p->p_retry != 0) {
		if (p->p_active == 0) {
			int s = lowest_bit(p->p_retry);
			p->p_retry &= ~(1u << s);
			ahci_build(p, s);              /* it was built before, so it fits */
			ahci_issue(p, s);
		}
		return;
	}
	while (p->p_head != NULL && !p->p_nonq) {
		struct bio *bp = p->p_head;
		bool queued = p->p_ncq && bp->bio_cmd != BIO_FLUSH;
		int s = ncq_pick_slot(p->p_active, p->p_nslots, queued);

		if (s < 0)
			break;
		KASSERT(s < p->p_nslots && (p->p_active & (1u << s)) == 0,
		        "ahci_start: ncq_pick_slot chose a busy slot or one past the port's slots");
		p->p_head = bp->bio_next;
		if (p->p_head == NULL)
			p->p_tail = NULL;
		p->p_slots[s].s_bp = bp;
		p->p_slots[s].s_ncq = queued;
		p->p_slots[s].s_retries = 0;
		if (ahci_build(p, s) != 0) {
			kprintf("%s: request at byte %llu (%u bytes) needs too many PRDT entries; EINVAL\n",
			        p->p_disk.d_name, (unsigned long long)bp->bio_offset, bp->bio_length);
			p->p_slots[s].s_bp = NULL;
			bp->bio_error = EINVAL;
			bp->bio_resid = bp->bio_length;
			bp->bio_next = *done;
			*done = bp;
			continue;
		}
		ahci_issue(p, s);
	}
}

/* Complete a list of bios (in any order: they are independent). No lock held. */
static void ahci_complete(struct bio *done)
{
	while (done != NULL) {
		struct bio *bp = done;
		done = bp->bio_next;
		disk_iodone(bp);
	}
}

/* d_strategy: queue the request and start what fits. Never sleeps. */
static void ahci_strategy(struct bio *bp)
{
	struct ahci_port *p = bp->bio_disk->d_softc;
	struct bio *done = NULL;

	bp->bio_next = NULL;
	spin_lock(&p->p_lock);
	if (p->p_dead) {
		bp->bio_error = EIO;
		bp->bio_resid = bp->bio_length;
		done = bp;
	} else {
		if (p->p_tail != NULL)
			p->p_tail->bio_next = bp;
		else
			p->p_head = bp;
		p->p_tail = bp;
		ahci_start(p, &done);
	}
	spin_unlock(&p->p_lock);
	ahci_complete(done);
}

/* ---- errors and recovery --------------------------------------------------------------------- */

/* Fail every request the port holds, queued or in a slot (the port is dead). p_lock held. */
static void ahci_fail_all(struct ahci_port *p, struct bio **done)
{
	for (int s = 0; s < AHCI_MAXSLOTS; s++)
		if (p->p_slots[s].s_bp != NULL)
			ahci_slot_done(p, s, EIO, done);
	while (p->p_head != NULL) {
		struct bio *bp = p->p_head;
		p->p_head = bp->bio_next;
		bp->bio_error = EIO;
		bp->bio_resid = bp->bio_length;
		bp->bio_next = *done;
		*done = bp;
	}
	p->p_tail = NULL;
}

/* The slot at fault failed once more: retry it, or give up on it with EIO. p_lock held. */
static void ahci_charge(struct ahci_port *p, int s, uint32_t tfd, const char *what, struct bio **done)
{
	struct ahci_slot *sl = &p->p_slots[s];
	struct bio *bp = sl->s_bp;
	char errs[40];

	ata_error_names((uint8_t)(tfd >> 8), errs, sizeof(errs));
	if (++sl->s_retries <= AHCI_RETRIES) {
		kprintf("%s: %s at LBA %llu (%u sectors) %s: status 0x%02x error 0x%02x (%s); retry %d of %d\n",
		        p->p_disk.d_name, ahci_cmd_name(p, bp), (unsigned long long)(bp->bio_offset / DEV_BSIZE),
		        bp->bio_length / DEV_BSIZE, what, tfd & 0xff, (tfd >> 8) & 0xff, errs, sl->s_retries,
		        AHCI_RETRIES);
		p->p_retry |= 1u << s;
		return;
	}
	kprintf("%s: %s at LBA %llu (%u sectors) %s: status 0x%02x error 0x%02x (%s); giving up: EIO\n",
	        p->p_disk.d_name, ahci_cmd_name(p, bp), (unsigned long long)(bp->bio_offset / DEV_BSIZE),
	        bp->bio_length / DEV_BSIZE, what, tfd & 0xff, (tfd >> 8) & 0xff, errs);
	ahci_slot_done(p, s, EIO, done);
}

/*
 * A recovery left slots in `lost` neither completed, re-issued nor blamed (ncq_sort_fault's
 * sorting did not cover every slot in flight): fail them, so that no request waits for ever.
 * p_lock held.
 */
static void ahci_fail_lost(struct ahci_port *p, uint32_t lost, struct bio **done)
{
	for (uint32_t m = lost; m; m &= m - 1) {
		int s = lowest_bit(m);
		kprintf("%s: slot %d was in flight but neither completed nor re-issued after the error; "
		        "EIO\n", p->p_disk.d_name, s);
		ahci_slot_done(p, s, EIO, done);
	}
}

/*
 * ahci_recover: an error interrupt or a watchdog. `culprit` is the slot known to be at fault, or
 * -1 to find it. ncq_sort_fault sorts the slots in flight; this completes what finished,
 * resets and restarts the port, and arranges the retries (see the top comment). p_lock held.
 */
static void ahci_recover(struct ahci_port *p, int culprit, const char *what, struct bio **done)
{
	uint32_t tfd = port_read(p, AHCI_P_TFD);
	uint32_t pending = port_read(p, AHCI_P_CI) | port_read(p, AHCI_P_SACT);
	uint32_t active = p->p_active, blamed, finished, reissue;
	struct ncq_fault f;

	ncq_sort_fault(active, pending, p->p_nonq, culprit, &f);
	blamed = f.culprit >= 0 && f.culprit < AHCI_MAXSLOTS ? active & (1u << f.culprit) : 0;
	finished = f.finished & active & ~blamed;
	reissue = f.reissue & active & ~(finished | blamed);
	for (uint32_t m = finished; m; m &= m - 1)
		ahci_slot_done(p, lowest_bit(m), 0, done);
	ahci_fail_lost(p, active & ~(finished | reissue | blamed), done);
	for (uint32_t m = p->p_active; m; m &= m - 1)
		callout_stop(&p->p_slots[lowest_bit(m)].s_timeout);
	p->p_active = 0;
	p->p_nonq = false;

	if (!ahci_port_stop(p) || !ahci_port_comreset(p) || !ahci_port_start(p)) {
		kprintf("%s: port %d does not come back after a reset; failing all its I/O\n",
		        p->p_disk.d_name, p->p_num);
		p->p_dead = true;
		ahci_fail_all(p, done);
		return;
	}
	port_write(p, AHCI_P_IS, 0xffffffff);
	if (reissue != 0)
		kprintf("%s: %s with %d commands in flight (status 0x%02x error 0x%02x); "
		        "port reset, re-issuing them one at a time\n", p->p_disk.d_name, what,
		        popcount32(reissue) + (blamed != 0), tfd & 0xff, (tfd >> 8) & 0xff);
	p->p_retry |= reissue;
	if (blamed != 0)
		ahci_charge(p, f.culprit, tfd, what, done);
}

/* Watchdog of one slot (callout, CPU 0): if its command is still out past its deadline, recover. */
static void ahci_timeout(void *arg)
{
	struct ahci_slot *sl = arg;
	struct ahci_port *p = sl->s_port;
	int s = (int)(sl - p->p_slots);
	struct bio *done = NULL;

	spin_lock(&p->p_lock);
	if (sl->s_bp != NULL && (p->p_active & (1u << s)) && (int32_t)(ticks - sl->s_deadline) >= 0) {
		kprintf("%s: %s at LBA %llu timed out after %d s; resetting port %d\n", p->p_disk.d_name,
		        ahci_cmd_name(p, sl->s_bp), (unsigned long long)(sl->s_bp->bio_offset / DEV_BSIZE),
		        AHCI_TIMEOUT / HZ, p->p_num);
		ahci_recover(p, s, "timed out", &done);
		ahci_start(p, &done);
	}
	spin_unlock(&p->p_lock);
	ahci_complete(done);
}

/* ---- interrupts ------------------------------------------------------------------------------ */

/* One port's interrupt: acknowledge PxIS, then finish every slot the HBA is done with. */
static void ahci_port_intr(struct ahci_port *p)
{
	struct bio *done = NULL;
	uint32_t is, finished;

	spin_lock(&p->p_lock);
	is = port_read(p, AHCI_P_IS);
	port_write(p, AHCI_P_IS, is);
	if (is & AHCI_P_IX_ERRORS) {
		ahci_recover(p, -1, (is & AHCI_P_IX_TFE) ? "failed" : "hit an interface error", &done);
	} else {
		finished = ncq_finished(p->p_active, port_read(p, AHCI_P_CI), port_read(p, AHCI_P_SACT));
		for (uint32_t m = finished & p->p_active; m; m &= m - 1)
			ahci_slot_done(p, lowest_bit(m), 0, &done);
	}
	ahci_start(p, &done);
	spin_unlock(&p->p_lock);
	ahci_complete(done);
}

/* The HBA's interrupt (MSI, or a possibly shared INTx line): serve each port IS names. */
static void ahci_intr(void *arg)
{
	struct ahci_hba *h = arg;
	uint32_t is;

	for (int round = 0; round < 8 && (is = hba_read(h, AHCI_IS) & h->h_pi) != 0; round++) {
		for (uint32_t m = is; m; m &= m - 1) {
			int n = lowest_bit(m);
			if (h->h_ports[n] != NULL)
				ahci_port_intr(h->h_ports[n]);
			else
				mmio_write32(h->h_regs + AHCI_PORT(n) + AHCI_P_IS, 0xffffffff);
		}
		hba_write(h, AHCI_IS, is);     /* after PxIS (§10.7.2) */
	}
}

/* ---- attach ---------------------------------------------------------------------------------- */

/* IDENTIFY DEVICE (ATA8-ACS §7.16, PIO data-in) in slot 0, polled, port interrupts off. */
static int ahci_identify(struct ahci_port *p, uint16_t *id)
{
	uint8_t *ct = slot_table(p, 0);
	struct disk_seg seg = { V2P(id), 512 };     /* kmalloc'd: physically contiguous */
	int n;

	memset(ct, 0, AHCI_CT_PRDT);
	ata_fis_nodata(ct, ATA_IDENTIFY_DEVICE);
	n = ahci_prdt_build((struct ahci_prd *)(ct + AHCI_CT_PRDT), AHCI_NPRD, &seg, 1);
	ahci_cmdhdr_build(&p->p_cl[0], SATA_FIS_H2D_LEN, false, (unsigned)n, V2P(ct));
	port_write(p, AHCI_P_IS, 0xffffffff);
	port_write(p, AHCI_P_CI, 1);
	if (!wait_reg(p->p_regs + AHCI_P_CI, 1, 0, AHCI_POLL_MS))
		return EBUSY;
	if (port_read(p, AHCI_P_IS) & AHCI_P_IX_ERRORS) {
		port_write(p, AHCI_P_IS, 0xffffffff);
		return EIO;
	}
	return 0;
}

/* Fill in and register ada<n> from the IDENTIFY data. */
static void ahci_register_disk(struct ahci_port *p, const uint16_t *id)
{
	struct ahci_hba *h = p->p_hba;
	unsigned depth = ata_ident_ncq_depth(id);

	ata_ident_model(id, p->p_model, sizeof(p->p_model));
	p->p_ncq = (h->h_cap & AHCI_CAP_SNCQ) && depth > 0;
	p->p_nslots = p->p_ncq ? (int)MIN(depth, AHCI_CAP_NCS(h->h_cap)) : 1;
	p->p_disk.d_maxopenings = p->p_nslots;
	p->p_disk.d_openings = MIN(CAM_MAXTAGS, p->p_nslots);
	snprintf(p->p_disk.d_name, sizeof(p->p_disk.d_name), "ada%d", ada_units++);
	p->p_disk.d_sectorsize = DEV_BSIZE;
	p->p_disk.d_mediasize = ata_ident_sectors(id) * DEV_BSIZE;
	p->p_disk.d_maxio = AHCI_MAXIO;
	p->p_disk.d_strategy = ahci_strategy;
	p->p_disk.d_softc = p;
	kprintf("%s: <%s> at %s port %d, %llu sectors, %s\n", p->p_disk.d_name, p->p_model, h->h_name,
	        p->p_num, (unsigned long long)ata_ident_sectors(id),
	        p->p_ncq ? "NCQ" : "no NCQ (DMA EXT, one command at a time)");
	if (p->p_ncq)
		kprintf("%s: NCQ depth %u, HBA slots %u: using %d\n", p->p_disk.d_name, depth,
		        AHCI_CAP_NCS(h->h_cap), p->p_nslots);
	disk_register(&p->p_disk);
}

/* Bring up port n; returns the port with its disk registered, or NULL (message printed). */
static struct ahci_port *ahci_port_attach(struct ahci_hba *h, int n)
{
	struct ahci_port *p = kmalloc(sizeof(*p), M_WAITOK | M_ZERO);
	void *clmem = kmalloc(PAGE_SIZE, M_WAITOK | M_ZERO);
	uint8_t *ctbl = kmalloc(AHCI_MAXSLOTS * AHCI_CT_SIZE, M_WAITOK | M_ZERO);
	uint16_t *id = kmalloc(512, M_WAITOK | M_ZERO);
	uint32_t sig;
	int error;

	if (p == NULL || clmem == NULL || ctbl == NULL || id == NULL) {
		kprintf("%s: port %d: no memory for the command structures\n", h->h_name, n);
		goto fail;
	}
	p->p_hba = h;
	p->p_num = n;
	p->p_regs = h->h_regs + AHCI_PORT(n);
	p->p_cl = clmem;
	p->p_ctbl = ctbl;
	spin_init(&p->p_lock, "ahciport");
	for (int s = 0; s < AHCI_MAXSLOTS; s++) {
		callout_init(&p->p_slots[s].s_timeout);
		p->p_slots[s].s_port = p;
	}
	if (!ahci_port_setup(p, clmem)) {
		kprintf("%s: port %d does not stop; skipped\n", h->h_name, n);
		goto fail_port;
	}
	if (AHCI_SSTS_DET(port_read(p, AHCI_P_SSTS)) != AHCI_SSTS_DET_PHY)
		goto fail_port;                       /* nothing attached: not worth a message */
	if (!wait_reg(p->p_regs + AHCI_P_TFD, ATA_S_BSY | ATA_S_DRQ, 0, AHCI_POLL_MS)) {
		kprintf("%s: port %d: device stays busy (TFD 0x%x); skipped\n", h->h_name, n,
		        port_read(p, AHCI_P_TFD));
		goto fail_port;
	}
	sig = port_read(p, AHCI_P_SIG);
	if (sig != AHCI_SIG_ATA) {
		kprintf("%s: port %d: %s (signature 0x%08x); skipped\n", h->h_name, n,
		        sig == AHCI_SIG_ATAPI ? "ATAPI device" : "not an ATA disk", sig);
		goto fail_port;
	}
	if (!ahci_port_start(p)) {
		kprintf("%s: port %d does not start; skipped\n", h->h_name, n);
		goto fail_port;
	}
	error = ahci_identify(p, id);
	if (error != 0) {
		kprintf("%s: port %d: IDENTIFY DEVICE failed (%s, TFD 0x%x); skipped\n", h->h_name, n,
		        error == EBUSY ? "timeout" : "device error", port_read(p, AHCI_P_TFD));
		goto fail_port;
	}
	ahci_register_disk(p, id);
	kfree(id);
	port_write(p, AHCI_P_IS, 0xffffffff);
	port_write(p, AHCI_P_IE, AHCI_P_IX_ENABLE);
	return p;
fail_port:
	ahci_port_disable(p);
fail:
	kfree(id);
	kfree(ctbl);
	kfree(clmem);
	kfree(p);
	return NULL;
}

/* Reset the HBA and switch it to AHCI mode (§10.4.3). */
static bool ahci_hba_reset(struct ahci_hba *h)
{
	hba_write(h, AHCI_GHC, hba_read(h, AHCI_GHC) | AHCI_GHC_AE);
	hba_write(h, AHCI_GHC, hba_read(h, AHCI_GHC) | AHCI_GHC_HR);
	if (!wait_reg(h->h_regs + AHCI_GHC, AHCI_GHC_HR, 0, AHCI_POLL_MS))
		return false;
	hba_write(h, AHCI_GHC, hba_read(h, AHCI_GHC) | AHCI_GHC_AE);
	return true;
}

static int ahci_match(struct pci_dev *d)
{
	return d->class == 0x01 && d->subclass == 0x06 && d->progif == 0x01;
}

static int ahci_attach(struct pci_dev *d)
{
	struct ahci_hba *h = kmalloc(sizeof(*h), M_WAITOK | M_ZERO);
	uint32_t base, size, vs;
	bool is_io;
	int error, ndisks = 0;

	if (h == NULL)
		return ENOMEM;
	snprintf(h->h_name, sizeof(h->h_name), "ahci%d", ahci_units);
	h->h_pci = d;
	error = pci_bar(d, 5, &base, &size, &is_io);
	if (error != 0 || is_io || base < DEVSPACE || size < AHCI_PORT(1)) {
		kprintf("%s: ABAR (BAR 5) unusable (error %d, %s at 0x%x, %u bytes)\n", h->h_name, error,
		        is_io ? "I/O" : "memory", base, size);
		kfree(h);
		return ENXIO;
	}
	h->h_regs = base;
	pci_enable(d, false, true, true);
	if (!ahci_hba_reset(h)) {
		kprintf("%s: HBA reset (GHC.HR) did not finish\n", h->h_name);
		kfree(h);
		return ENXIO;
	}
	ahci_units++;
	h->h_cap = hba_read(h, AHCI_CAP);
	h->h_pi = hba_read(h, AHCI_PI);
	vs = hba_read(h, AHCI_VS);
	kprintf("%s: AHCI %x.%x at 0x%x, %u ports (implemented 0x%x), %u slots%s\n", h->h_name,
	        vs >> 16, (vs >> 8) & 0xff, base, AHCI_CAP_NP(h->h_cap), h->h_pi,
	        AHCI_CAP_NCS(h->h_cap), (h->h_cap & AHCI_CAP_SNCQ) ? ", NCQ" : "");
	error = pci_setup_intr(d, ahci_intr, h, h->h_name);
	if (error != 0) {
		kfree(h);
		return error;
	}
	for (int n = 0; n < AHCI_MAXPORTS; n++) {
		if ((h->h_pi & (1u << n)) == 0)
			continue;
		h->h_ports[n] = ahci_port_attach(h, n);
		ndisks += h->h_ports[n] != NULL;
	}
	hba_write(h, AHCI_IS, 0xffffffff);
	hba_write(h, AHCI_GHC, hba_read(h, AHCI_GHC) | AHCI_GHC_IE);
	if (ndisks == 0)
		kprintf("%s: no ATA disks\n", h->h_name);
	return 0;
}

static struct pci_driver ahci_driver = {
	.name = "ahci",
	.match = ahci_match,
	.attach = ahci_attach,
};

void ahci_init(void)
{
	pci_register_driver(&ahci_driver);
}
