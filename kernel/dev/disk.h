/*
 * The block layer: disks and their I/O requests (FreeBSD's struct bio and disk(9), simplified).
 *
 * A struct bio is one request: op, byte offset, length, data, and a completion callback. A driver's
 * d_strategy queues it and returns at once, never waiting for the hardware; the driver completes it
 * later, usually from its interrupt handler, with disk_iodone(bp), which updates the devstat counters
 * and calls bp->bio_done(bp). bio_done may run in interrupt context: it must not sleep.
 *
 * Disks register with disk_register(); each appears as /dev/<d_name> (raw access) and can hold a
 * file system. Requests must be multiples of d_sectorsize and within d_mediasize; d_strategy
 * rejects others with EINVAL (and a request past the end with ENXIO... see disk_check_bio()).
 */
#ifndef _DEV_DISK_H_
#define _DEV_DISK_H_

#include "kern/types.h"
#include "kern/lock.h"

#define BIO_READ   1
#define BIO_WRITE  2
#define BIO_FLUSH  3    /* write the device's cache to stable storage; offset/length ignored */

struct disk;

struct bio {
	int          bio_cmd;       /* BIO_READ, BIO_WRITE, BIO_FLUSH */
	struct disk *bio_disk;
	uint64_t     bio_offset;    /* byte offset on the disk */
	uint32_t     bio_length;    /* bytes */
	void        *bio_data;      /* kernel virtual, direct-mapped: V2P(bio_data + i) is valid */
	int          bio_error;     /* 0 or errno, set by the driver */
	uint32_t     bio_resid;     /* bytes not transferred */
	void       (*bio_done)(struct bio *);
	void        *bio_caller1;   /* for the issuer (e.g. the struct buf) */
	void        *bio_caller2;
	uint64_t     bio_t0;        /* nanouptime() when queued, for devstat */
	struct bio  *bio_next;      /* driver queue link */
};

/* devstat-style counters, read by iostat through sysctl (kern.devstat.<name>.*). */
struct devstat {
	uint64_t ops[4];            /* indexed by BIO_* */
	uint64_t bytes[4];
	uint64_t busy_ns;           /* time with at least one request outstanding */
	uint64_t busy_since;        /* nanouptime() when it last became busy */
	int      queued;            /* requests issued and not yet completed */
	int      max_queued;        /* high-water mark of `queued` */
	uint64_t errors;
};

struct disk {
	char             d_name[16];      /* "md0", "da1", "ada0", "ccd0" */
	uint32_t         d_sectorsize;
	uint64_t         d_mediasize;     /* bytes */
	uint32_t         d_maxio;         /* largest single request in bytes */
	void           (*d_strategy)(struct bio *);
	void            *d_softc;         /* driver's state */
	struct spinlock  d_statlock;      /* protects d_stat */
	struct devstat   d_stat;
	struct disk     *d_next;
};

void         disk_register(struct disk *dp);     /* d_name ... d_softc filled in by the driver */
struct disk *disk_lookup(const char *name);      /* NULL if no such disk */
struct disk *disk_first(void);                   /* iteration: disk_first(), dp->d_next */
int          disk_check_bio(struct bio *bp);     /* 0, or the errno for a malformed request */
void         disk_start(struct bio *bp);         /* account, then call the driver's d_strategy */
void         disk_iodone(struct bio *bp);        /* driver: request finished (any context) */
int          disk_io_sync(struct disk *dp, int cmd, uint64_t off, void *data, uint32_t len); /* issue and wait */

#endif
