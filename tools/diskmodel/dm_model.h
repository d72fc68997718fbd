/*
 * dm_model.h -- timing model of a disk drive of about 2000.
 *
 * The model decides WHEN each request to a disk completes; it never
 * touches data.  It is pure C with no threads, clocks or nbdkit calls,
 * so the host unit tests (tests/diskmodel/unit.c) can drive it in
 * virtual time.  dm_filter.c wraps it for nbdkit, feeding it real
 * monotonic time.
 *
 * Times are seconds of "model time" (a double); the caller chooses the
 * origin.  Sizes on the media are 512-byte sectors (LBAs).
 *
 * What is modelled (see docs/diskmodel.md for the figures):
 *  - a spindle turning at rpm; the rotational position is a function of
 *    time alone, so a request that arrives late waits for its sector to
 *    come round again;
 *  - zoned recording: sectors per track fall linearly from the outer
 *    zone to the inner one, with track skew so a sequential transfer
 *    loses only the head/cylinder switch time at each track boundary;
 *  - a seek curve a + b*sqrt(d-1) + c*(d-1) fitted to the data sheet's
 *    track-to-track, average and full-stroke figures;
 *  - per-command overhead, paid when the drive receives the command (so
 *    it overlaps the previous command when commands are queued);
 *  - tagged command queueing: at most qdepth commands in the drive; the
 *    rest wait in the host queue.  Order FIFO or SPTF (shortest
 *    positioning time first, with an age limit against starvation);
 *  - a read-ahead segment for sequential reads;
 *  - an optional write-back cache (off by default) with destaging;
 *  - the interface bus (e.g. Ultra160), optionally shared by several
 *    disks through a caller-supplied reservation function.
 *
 * Interface:
 *  dm_params_preset()  fill a dm_params from a named preset.
 *  dm_param_set()      override one parameter from "key", "value".
 *  dm_init()           check parameters, derive geometry, reset state.
 *  dm_submit()         a host request arrives (at model time now).
 *  dm_next_event()     model time at which dm_dispatch() must be called
 *                      next (DM_NEVER if nothing to do).
 *  dm_dispatch()       the actuator is free: choose and time one job.
 *  dm_retire()         the caller has returned request r to its client at
 *                      model time now; a reply later than r->t_done is
 *                      counted as late (below).
 * A request is complete when r->done is set; r->t_done is then the
 * model time at which its client must see the completion.  The core
 * calls d->on_done (if set) at that moment, e.g. for tracing.
 *
 * Late replies.  The model decides when a reply is due; the caller can
 * only send it then if the host gives its threads the CPU in time and
 * the real I/O underneath (e.g. a first write into a sparse file) is
 * done by then.  dm_retire() records how late each reply went out, so a
 * run can say whether it measured the model or the host: late_replies
 * counts those more than DM_LATE_MS after their due time, late_over[]
 * those later than each of DM_LATE_EDGES_MS.
 *
 * Locking: none here.  The caller serializes all calls on one dm_disk
 * (dm_filter.c holds its disk mutex around every call).
 */
#ifndef DM_MODEL_H
#define DM_MODEL_H

#include <stdint.h>
#include <stddef.h>

#define DM_NEVER     1e300
#define DM_SECTOR    512
#define DM_MAXZONES  64
#define DM_MAXTAGS   256
#define DM_LATE_MS   1.0     /* a reply later than this (ms) is late */
#define DM_NLATE     4       /* lateness edges, ms: 0.1 1 10 100 */
#define DM_LATE_EDGES_MS { 0.1, 1.0, 10.0, 100.0 }

enum dm_op { DM_READ, DM_WRITE, DM_FLUSH, DM_TRIM, DM_ZERO, DM_NOPS };
enum dm_order { DM_FIFO, DM_SPTF };
enum dm_kind { DM_HOST, DM_DESTAGE };

/* Every tunable of one modelled disk.  Units are in the names. */
struct dm_params {
    int ideal;               /* 1: fixed bandwidth, no mechanics */
    double bandwidth_mbps;   /* ideal only: media rate, 10^6 B/s */
    double rpm;              /* spindle speed */
    unsigned cylinders;      /* cylinders (seek range) */
    unsigned heads;          /* surfaces = tracks per cylinder */
    unsigned zones;          /* recording zones */
    unsigned spt_outer;      /* sectors per track, outermost zone */
    unsigned spt_inner;      /* sectors per track, innermost zone */
    double t2t_ms;           /* track-to-track (1 cylinder) seek */
    double avg_ms;           /* data sheet average seek (read) */
    double full_ms;          /* full-stroke seek (read) */
    double write_settle_ms;  /* extra settle for write seeks > 1 cyl */
    double head_switch_ms;   /* switch to another surface, same cyl */
    double overhead_ms;      /* command processing per command */
    double bus_mbps;         /* interface rate, 10^6 B/s; 0 = none */
    unsigned qdepth;         /* tagged queue depth (1 = no TCQ) */
    int order;               /* DM_FIFO or DM_SPTF */
    double age_ms;           /* SPTF: serve anything older first */
    int wcache;              /* write-back cache on/off */
    unsigned wcache_kb;      /* write cache size */
    int readahead;           /* read-ahead on/off */
    unsigned segment_kb;     /* read-ahead segment size */
    uint64_t base_bytes;     /* where byte 0 of the image sits */
};

/* One request or internal job.  Host requests live in the caller's
 * memory; destage jobs are allocated by the core. */
struct dm_req {
    /* set by the caller before dm_submit() */
    int op;                  /* enum dm_op */
    int fua;                 /* write must reach the media */
    uint64_t offset;         /* bytes, as sent by the client */
    uint32_t len;            /* bytes */
    /* filled in by the core */
    int kind;                /* enum dm_kind */
    uint64_t seq;            /* arrival order */
    uint64_t lba;            /* first sector on the modelled disk */
    uint32_t nsect;
    int tag;                 /* drive queue slot, -1 if none */
    unsigned qd;             /* outstanding host requests at arrival */
    double t_arrive;         /* reached the host adapter */
    double t_admit;          /* got a tag: reached the drive */
    double t_ready;          /* t_admit + command overhead */
    double t_start;          /* drive began working on it */
    double t_data;           /* cached write: data in the drive buffer */
    double t_done;           /* client sees completion */
    double rot;              /* rotational wait before first sector */
    unsigned seekdist;       /* cylinders moved */
    int rahit;               /* served from the read-ahead segment */
    int cached;              /* write accepted into the write cache */
    int done;                /* t_done is valid */
    struct dm_req *next;
};

struct dm_zone {
    uint64_t lba0;           /* first LBA in the zone */
    unsigned cyl0, ncyl, spt;
};

struct dm_stats {
    uint64_t nreq[DM_NOPS], bytes[DM_NOPS];
    uint64_t completed;
    uint64_t seeks, seek_cyls;   /* jobs that moved the arm; distance */
    uint64_t rahits, cached, destages;
    uint64_t qd_sum, qd_max;
    double lat_sum, lat_max;     /* arrival -> completion, seconds */
    double svc_sum;              /* start -> completion */
    double rot_sum;              /* rotational waits */
    double busy;                 /* actuator busy time */
    /* replies, as the caller sent them (dm_retire) */
    uint64_t replies;            /* host requests answered */
    uint64_t late_replies;       /* answered > DM_LATE_MS after t_done */
    uint64_t late_over[DM_NLATE];    /* answered later than each edge */
    double late_sum, late_max;   /* lateness (>= 0), seconds */
};

struct dm_disk {
    struct dm_params p;
    /* derived, fixed after dm_init */
    double rev;                  /* seconds per revolution */
    struct dm_zone zone[DM_MAXZONES];
    unsigned nzones;
    uint64_t nsectors;
    double seek_a, seek_b, seek_c;   /* seconds */
    /* mechanical state */
    double free_at;              /* actuator free from this time */
    unsigned cyl, head;          /* where the heads are at free_at */
    /* read-ahead stream: the head was at sector ra_lba at ra_t,
     * streaming into the segment until ra_stop */
    int ra_valid;
    uint64_t ra_lba, ra_limit;
    double ra_t, ra_stop;
    unsigned ra_cyl, ra_head;
    /* queues */
    struct dm_req *hostq, *hostq_tail;   /* waiting for a tag */
    struct dm_req *driveq;               /* jobs for the actuator */
    struct dm_req *roomq, *roomq_tail;   /* cached writes, cache full */
    struct dm_req *flushq;               /* flushes waiting for destage */
    struct dm_req *relq, *relq_tail;     /* dispatched destages */
    int tag_busy[DM_MAXTAGS];
    double tag_free[DM_MAXTAGS];         /* tag usable from this time */
    uint64_t cache_undispatched;         /* dirty bytes not yet destaging */
    unsigned outstanding;                /* host requests not retired */
    uint64_t seq;
    double last_destage_end;
    /* the bus: reserve dur seconds starting no earlier than start;
     * returns the start granted.  Default: a private bus. */
    double (*bus_reserve)(void *ctx, double start, double dur);
    void *bus_ctx;
    double bus_free_at;
    /* optional: called once per host request when it completes */
    void (*on_done)(void *ctx, const struct dm_req *r);
    void *done_ctx;
    struct dm_stats st;
};

/* Parameters */
int dm_params_preset(struct dm_params *p, const char *name);
int dm_param_known(const char *key);
int dm_param_set(struct dm_params *p, const char *key, const char *value,
                 char *err, size_t errlen);
const char *dm_param_help(void);

/* Life cycle and requests */
int dm_init(struct dm_disk *d, const struct dm_params *p,
            char *err, size_t errlen);
void dm_fini(struct dm_disk *d);
void dm_submit(struct dm_disk *d, struct dm_req *r, double now);
double dm_next_event(const struct dm_disk *d);
int dm_dispatch(struct dm_disk *d, double now);
void dm_retire(struct dm_disk *d, struct dm_req *r, double now);

/* Model arithmetic, exported for the unit tests and the docs */
double dm_seek_time(const struct dm_disk *d, unsigned dist);
double dm_seek_weighted_avg(const struct dm_disk *d);
double dm_media_rate(const struct dm_disk *d, uint64_t lba);
double dm_sustained_rate(const struct dm_disk *d, uint64_t lba);
void dm_locate(const struct dm_disk *d, uint64_t lba, unsigned *cyl,
               unsigned *head, unsigned *sector, unsigned *spt);
double dm_rot_wait(const struct dm_disk *d, uint64_t lba, double t);
double dm_sector_time(const struct dm_disk *d, uint64_t lba);

#endif
