/*
 * dm_model.c -- the disk timing model (see dm_model.h for the manual).
 *
 * Reading order: parameters and presets; geometry (zones, locate,
 * skew); mechanics (seek curve, rotational wait, access_run); queueing
 * (tags, admission, write cache, flush); dispatch (FIFO/SPTF, read-ahead,
 * the ideal variant); statistics.
 *
 * Sources for the formulas:
 *  - Ruemmler & Wilkes, "An introduction to disk drive modeling", IEEE
 *    Computer 27(3), 1994: seek ~ sqrt(distance) for short seeks and
 *    linear for long ones; zones; track skew; read-ahead; why a disk
 *    without a write cache loses a revolution between back-to-back
 *    writes.
 *  - IBM hard disk drive specifications (e.g. Deskstar 40GV & 75GXP,
 *    Ultrastar 146Z10), section "Mechanical positioning": the average
 *    seek is the weighted average over all seek lengths n = 1..max with
 *    weight (max + 1 - n), i.e. over all pairs of cylinders.  We fit the
 *    curve so that this weighted average equals the data sheet figure.
 *  - Worthington, Ganger, Patt, "Scheduling algorithms for modern disk
 *    drives", SIGMETRICS 1994: SPTF (they call it SATF) with aging.
 */
#include "dm_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- */
/* Parameters                                                        */
/* ---------------------------------------------------------------- */

enum ptype { P_DBL, P_UINT, P_BOOL, P_ORDER, P_SIZE };

struct pdesc {
    const char *name;
    int type;
    size_t off;
    const char *help;
};

#define F(x) offsetof(struct dm_params, x)
static const struct pdesc ptab[] = {
    { "ideal", P_BOOL, F(ideal), "fixed-bandwidth disk, no mechanics" },
    { "bandwidth", P_DBL, F(bandwidth_mbps), "ideal: media rate, MB/s (10^6)" },
    { "rpm", P_DBL, F(rpm), "spindle speed, revolutions per minute" },
    { "cylinders", P_UINT, F(cylinders), "number of cylinders" },
    { "heads", P_UINT, F(heads), "surfaces (tracks per cylinder)" },
    { "zones", P_UINT, F(zones), "recording zones, outer to inner" },
    { "spt_outer", P_UINT, F(spt_outer), "sectors per track, outer zone" },
    { "spt_inner", P_UINT, F(spt_inner), "sectors per track, inner zone" },
    { "t2t_ms", P_DBL, F(t2t_ms), "track-to-track seek, ms" },
    { "avg_ms", P_DBL, F(avg_ms), "average seek (data sheet), ms" },
    { "full_ms", P_DBL, F(full_ms), "full-stroke seek, ms" },
    { "write_settle_ms", P_DBL, F(write_settle_ms), "extra write settle, ms" },
    { "head_switch_ms", P_DBL, F(head_switch_ms), "head switch, ms" },
    { "overhead_ms", P_DBL, F(overhead_ms), "per-command overhead, ms" },
    { "bus_mbps", P_DBL, F(bus_mbps), "interface rate MB/s, 0 = unlimited" },
    { "qdepth", P_UINT, F(qdepth), "tagged queue depth (1 = no TCQ)" },
    { "order", P_ORDER, F(order), "queue order: fifo or sptf" },
    { "age_ms", P_DBL, F(age_ms), "sptf: older commands go first, ms" },
    { "wcache", P_BOOL, F(wcache), "write-back cache on/off" },
    { "wcache_kb", P_UINT, F(wcache_kb), "write cache size, KiB" },
    { "readahead", P_BOOL, F(readahead), "read-ahead on/off" },
    { "segment_kb", P_UINT, F(segment_kb), "read-ahead segment, KiB" },
    { "base", P_SIZE, F(base_bytes), "image byte 0 sits at this disk byte" },
};
#undef F
#define NPARAMS (sizeof ptab / sizeof ptab[0])

/*
 * Presets.  Figures and their sources are listed in docs/diskmodel.md;
 * "assumed" marks values no data sheet gave us.
 */
static void preset_scsi10k(struct dm_params *p)
{
    /* IBM Ultrastar 36LZX (DDYS-T36950), 10,000 RPM Ultra160, 2000. */
    p->rpm = 10000;
    p->cylinders = 15110;        /* spec: 15,110 cylinders */
    p->heads = 12;               /* spec: 6 disks, 12 heads */
    p->zones = 11;               /* spec: 11 zones */
    p->spt_outer = 468;          /* chosen: sustained 36 MB/s outer */
    p->spt_inner = 280;          /* chosen: sustained 21 MB/s inner */
    p->t2t_ms = 0.5;
    p->avg_ms = 4.9;             /* spec: 4.9 ms average read seek */
    p->full_ms = 10.5;
    p->write_settle_ms = 0.6;
    p->head_switch_ms = 0.6;     /* assumed */
    p->overhead_ms = 0.2;        /* assumed */
    p->bus_mbps = 160;           /* Ultra160 */
    p->qdepth = 64;
    p->order = DM_SPTF;
    p->age_ms = 250;
    p->wcache = 0;
    p->wcache_kb = 4096;         /* spec: 4 MB buffer */
    p->readahead = 1;
    p->segment_kb = 512;
}

static void preset_ide7200(struct dm_params *p)
{
    /* IBM Deskstar 75GXP (DTLA-307075), 7,200 RPM ATA-100, 2000. */
    p->rpm = 7200;
    p->cylinders = 28000;        /* assumed: gives 76.8 GB with 10 heads */
    p->heads = 10;               /* 5 platters */
    p->zones = 16;               /* assumed */
    p->spt_outer = 690;          /* chosen: sustained 37 MB/s outer */
    p->spt_inner = 380;          /* chosen: sustained 20 MB/s inner */
    p->t2t_ms = 1.2;
    p->avg_ms = 8.5;             /* spec: 8.5 ms average read seek */
    p->full_ms = 14.7;           /* spec: 14.7 ms full stroke read */
    p->write_settle_ms = 1.0;    /* spec: write full stroke 15.7 ms */
    p->head_switch_ms = 1.2;     /* spec: head switch 1.2 ms */
    p->overhead_ms = 0.3;        /* assumed */
    p->bus_mbps = 100;           /* Ultra ATA/100 */
    p->qdepth = 1;               /* no tagged queueing in practice */
    p->order = DM_FIFO;
    p->age_ms = 250;
    p->wcache = 0;               /* real IDE drives shipped with it on */
    p->wcache_kb = 2048;         /* spec: 2 MB buffer */
    p->readahead = 1;
    p->segment_kb = 512;
}

static void preset_ideal(struct dm_params *p)
{
    p->ideal = 1;
    p->bandwidth_mbps = 40;
    p->qdepth = 64;
    p->order = DM_FIFO;
    p->age_ms = 250;
    p->wcache_kb = 4096;
    p->segment_kb = 512;
}

/* dm_params_preset -- reset *p to the named preset; -1 if unknown. */
int dm_params_preset(struct dm_params *p, const char *name)
{
    memset(p, 0, sizeof *p);
    if (strcmp(name, "scsi10k") == 0)
        preset_scsi10k(p);
    else if (strcmp(name, "ide7200") == 0)
        preset_ide7200(p);
    else if (strcmp(name, "ideal") == 0)
        preset_ideal(p);
    else
        return -1;
    return 0;
}

static const struct pdesc *pfind(const char *key)
{
    for (size_t i = 0; i < NPARAMS; i++)
        if (strcmp(ptab[i].name, key) == 0)
            return &ptab[i];
    return NULL;
}

int dm_param_known(const char *key)
{
    return pfind(key) != NULL;
}

static int parse_bool(const char *v, int *out)
{
    if (!strcasecmp(v, "on") || !strcasecmp(v, "1") ||
        !strcasecmp(v, "true") || !strcasecmp(v, "yes"))
        *out = 1;
    else if (!strcasecmp(v, "off") || !strcasecmp(v, "0") ||
             !strcasecmp(v, "false") || !strcasecmp(v, "no"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* A byte count with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *v, uint64_t *out)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v)
        return -1;
    switch (*end) {
    case 0: break;
    case 'k': case 'K': n <<= 10; end++; break;
    case 'm': case 'M': n <<= 20; end++; break;
    case 'g': case 'G': n <<= 30; end++; break;
    default: return -1;
    }
    if (*end != 0)
        return -1;
    *out = n;
    return 0;
}

/* dm_param_set -- set one parameter; on error write a message to err. */
int dm_param_set(struct dm_params *p, const char *key, const char *value,
                 char *err, size_t errlen)
{
    const struct pdesc *pd = pfind(key);
    char *field, *end;

    if (pd == NULL) {
        snprintf(err, errlen, "unknown diskmodel parameter '%s'", key);
        return -1;
    }
    field = (char *)p + pd->off;
    switch (pd->type) {
    case P_DBL: {
        double x = strtod(value, &end);
        if (end == value || *end != 0 || !(x >= 0) || isinf(x))
            goto bad;
        *(double *)field = x;
        break;
    }
    case P_UINT: {
        unsigned long x = strtoul(value, &end, 10);
        if (end == value || *end != 0 || value[0] == '-' || x > 0xffffffffUL)
            goto bad;
        *(unsigned *)field = (unsigned)x;
        break;
    }
    case P_BOOL:
        if (parse_bool(value, (int *)field) < 0)
            goto bad;
        break;
    case P_ORDER:
        if (strcmp(value, "fifo") == 0)
            *(int *)field = DM_FIFO;
        else if (strcmp(value, "sptf") == 0)
            *(int *)field = DM_SPTF;
        else
            goto bad;
        break;
    case P_SIZE:
        if (parse_size(value, (uint64_t *)field) < 0)
            goto bad;
        break;
    }
    return 0;
bad:
    snprintf(err, errlen, "diskmodel parameter %s=%s: bad value (%s)",
             key, value, pd->help);
    return -1;
}

/* dm_param_help -- one line per parameter, for nbdkit --help. */
const char *dm_param_help(void)
{
    static char buf[4096];
    size_t n = 0;
    if (buf[0])
        return buf;
    for (size_t i = 0; i < NPARAMS && n < sizeof buf; i++)
        n += snprintf(buf + n, sizeof buf - n, "%-16s %s\n",
                      ptab[i].name, ptab[i].help);
    return buf;
}

/* ---------------------------------------------------------------- */
/* Geometry                                                          */
/* ---------------------------------------------------------------- */

/* Zones get equal shares of the cylinders; sectors per track fall
 * linearly from spt_outer (zone 0, LBA 0) to spt_inner. */
static void build_zones(struct dm_disk *d)
{
    const struct dm_params *p = &d->p;
    unsigned nz = p->zones;
    unsigned cyl = 0;
    uint64_t lba = 0;

    for (unsigned z = 0; z < nz; z++) {
        struct dm_zone *zn = &d->zone[z];
        double f = nz > 1 ? (double)z / (nz - 1) : 0.0;
        zn->spt = (unsigned)lround(p->spt_outer +
                                   f * ((double)p->spt_inner - p->spt_outer));
        zn->cyl0 = cyl;
        zn->ncyl = p->cylinders / nz + (z < p->cylinders % nz ? 1 : 0);
        zn->lba0 = lba;
        cyl += zn->ncyl;
        lba += (uint64_t)zn->ncyl * p->heads * zn->spt;
    }
    d->nzones = nz;
    d->nsectors = lba;
}

static const struct dm_zone *zone_of(const struct dm_disk *d, uint64_t lba)
{
    unsigned lo = 0, hi = d->nzones - 1;
    while (lo < hi) {           /* last zone with lba0 <= lba */
        unsigned mid = (lo + hi + 1) / 2;
        if (d->zone[mid].lba0 <= lba)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &d->zone[lo];
}

/* dm_locate -- physical address of lba (already reduced mod nsectors). */
void dm_locate(const struct dm_disk *d, uint64_t lba, unsigned *cyl,
               unsigned *head, unsigned *sector, unsigned *spt)
{
    const struct dm_zone *z = zone_of(d, lba);
    uint64_t rel = lba - z->lba0;
    uint64_t track = rel / z->spt;
    *sector = (unsigned)(rel % z->spt);
    *cyl = z->cyl0 + (unsigned)(track / d->p.heads);
    *head = (unsigned)(track % d->p.heads);
    *spt = z->spt;
}

/*
 * Track skew: sector 0 of each track is placed just far enough round
 * from sector 0 of the previous track that a transfer running off the
 * end of a track finds it under the head after the switch.  A head
 * switch costs head_switch, a move to the next cylinder t2t, so the
 * skew of track (c, h) is the time of all switches before it.
 */
static double skew_time(const struct dm_disk *d, unsigned c, unsigned h)
{
    double hs = d->p.head_switch_ms / 1e3, t2t = d->p.t2t_ms / 1e3;
    return c * ((d->p.heads - 1) * hs + t2t) + h * hs;
}

/* Time until the start of sector s of track (c, h) passes the head. */
static double rot_wait_at(const struct dm_disk *d, unsigned c, unsigned h,
                          unsigned s, unsigned spt, double t)
{
    double rev = d->rev;
    double pos = skew_time(d, c, h) + s * rev / spt;   /* when, mod rev */
    double w = fmod(pos - t, rev);
    if (w < 0)
        w += rev;
    /* A sector due "now" may come out as almost a full turn through
     * rounding; 100 ns is far below any real timing. */
    if (w > rev - 1e-7)
        w = 0;
    return w;
}

double dm_rot_wait(const struct dm_disk *d, uint64_t lba, double t)
{
    unsigned c, h, s, spt;
    dm_locate(d, lba % d->nsectors, &c, &h, &s, &spt);
    return rot_wait_at(d, c, h, s, spt, t);
}

double dm_sector_time(const struct dm_disk *d, uint64_t lba)
{
    return d->rev / zone_of(d, lba % d->nsectors)->spt;
}

/* Media rate: bytes per second while one track passes under the head. */
double dm_media_rate(const struct dm_disk *d, uint64_t lba)
{
    if (d->p.ideal)
        return d->p.bandwidth_mbps * 1e6;
    return zone_of(d, lba % d->nsectors)->spt * (double)DM_SECTOR / d->rev;
}

/* Sustained rate: one cylinder's data over its revolutions plus the
 * head switches and the move to the next cylinder (IBM's formula). */
double dm_sustained_rate(const struct dm_disk *d, uint64_t lba)
{
    if (d->p.ideal)
        return d->p.bandwidth_mbps * 1e6;
    unsigned H = d->p.heads;
    double bytes = (double)H * zone_of(d, lba % d->nsectors)->spt * DM_SECTOR;
    double t = H * d->rev + (H - 1) * d->p.head_switch_ms / 1e3 +
               d->p.t2t_ms / 1e3;
    return bytes / t;
}

/* ---------------------------------------------------------------- */
/* Seek curve                                                        */
/* ---------------------------------------------------------------- */

/* t(0) = 0; t(d) = a + b*sqrt(d-1) + c*(d-1) for d >= 1. */
double dm_seek_time(const struct dm_disk *d, unsigned dist)
{
    if (dist == 0 || d->p.ideal)
        return 0;
    double x = dist - 1.0;
    return d->seek_a + d->seek_b * sqrt(x) + d->seek_c * x;
}

/* The data sheet's average: lengths n = 1..max weighted (max + 1 - n). */
double dm_seek_weighted_avg(const struct dm_disk *d)
{
    unsigned max = d->p.cylinders - 1;
    double sw = 0, st = 0;
    for (unsigned n = 1; n <= max; n++) {
        double w = (double)max + 1 - n;
        sw += w;
        st += w * dm_seek_time(d, n);
    }
    return st / sw;
}

/* Solve for b and c given a = t2t: the weighted average must equal avg
 * and t(max) must equal full.  c may come out negative for drives whose
 * average is high relative to the full stroke (a strongly concave
 * curve); that is fine while the curve still rises at max.  Otherwise
 * fall back to the sqrt term alone, which keeps t(max) = full. */
static void fit_seek(struct dm_disk *d)
{
    unsigned max = d->p.cylinders - 1;
    double a = d->p.t2t_ms / 1e3, avg = d->p.avg_ms / 1e3,
           full = d->p.full_ms / 1e3;
    double sw = 0, s1 = 0, s2 = 0;

    for (unsigned n = 1; n <= max; n++) {
        double w = (double)max + 1 - n, x = n - 1.0;
        sw += w;
        s1 += w * sqrt(x);
        s2 += w * x;
    }
    /* b*m1 + c*m2 = avg - a ;  b*r1 + c*r2 = full - a */
    double m1 = s1 / sw, m2 = s2 / sw;
    double r1 = sqrt(max - 1.0), r2 = max - 1.0;
    double det = m1 * r2 - m2 * r1;
    double b = 0, c = 0;
    if (max >= 2 && fabs(det) > 1e-12) {
        b = ((avg - a) * r2 - m2 * (full - a)) / det;
        c = (m1 * (full - a) - (avg - a) * r1) / det;
    }
    int rising = b >= 0 && (r1 == 0 || b / (2 * r1) + c >= 0);
    if (max < 2 || !rising) {
        b = r1 > 0 ? (full - a) / r1 : 0;
        c = 0;
    }
    d->seek_a = a;
    d->seek_b = b;
    d->seek_c = c;
}

/* ---------------------------------------------------------------- */
/* Mechanics: one media access                                       */
/* ---------------------------------------------------------------- */

struct access {
    double t_seek_end;      /* arm settled on the first track */
    double t_media;         /* first sector starts under the head */
    double t_end;           /* last sector done */
    double rot;             /* rotational wait before the first sector */
    unsigned dist;          /* cylinders moved */
    unsigned cyl, head;     /* where the heads end up */
};

/*
 * access_run -- heads at (cyl0, head0) are free at time t; move to lba,
 * wait for it, transfer n sectors, crossing tracks as needed.  The
 * media may not start before t_min (a write needs its data first).
 */
static void access_run(const struct dm_disk *d, unsigned cyl0,
                       unsigned head0, double t, uint64_t lba, uint32_t n,
                       int write, double t_min, struct access *a)
{
    unsigned c, h, s, spt;
    double hs = d->p.head_switch_ms / 1e3;

    lba %= d->nsectors;
    dm_locate(d, lba, &c, &h, &s, &spt);
    a->dist = c > cyl0 ? c - cyl0 : cyl0 - c;
    if (a->dist > 0) {
        t += dm_seek_time(d, a->dist);
        /* one-cylinder moves are covered by the skew; see skew_time */
        if (write && a->dist > 1)
            t += d->p.write_settle_ms / 1e3;
    } else if (h != head0) {
        t += hs;
    }
    a->t_seek_end = t;
    if (t < t_min)
        t = t_min;
    a->rot = rot_wait_at(d, c, h, s, spt, t);
    t += a->rot;
    a->t_media = t;
    for (;;) {
        uint32_t k = spt - s;
        if (k > n)
            k = n;
        t += k * d->rev / spt;
        n -= k;
        lba += k;
        if (n == 0)
            break;
        if (lba >= d->nsectors)
            lba = 0;    /* wrap: only for images larger than the disk */
        unsigned c2, h2;
        dm_locate(d, lba, &c2, &h2, &s, &spt);
        t += c2 != c ? dm_seek_time(d, c2 > c ? c2 - c : c - c2)
                     : (h2 != h ? hs : 0);
        c = c2;
        h = h2;
        t += rot_wait_at(d, c, h, s, spt, t);   /* 0 thanks to skew */
    }
    a->t_end = t;
    a->cyl = c;
    a->head = h;
}

/* ---------------------------------------------------------------- */
/* Life cycle                                                        */
/* ---------------------------------------------------------------- */

static double private_bus(void *ctx, double start, double dur)
{
    struct dm_disk *d = ctx;
    if (start < d->bus_free_at)
        start = d->bus_free_at;
    d->bus_free_at = start + dur;
    return start;
}

/* dm_init -- validate *p, derive geometry and reset all state. */
int dm_init(struct dm_disk *d, const struct dm_params *p, char *err,
            size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->p = *p;
    if (p->qdepth < 1 || p->qdepth > DM_MAXTAGS) {
        snprintf(err, errlen, "qdepth must be 1..%d", DM_MAXTAGS);
        return -1;
    }
    if (p->ideal) {
        if (!(p->bandwidth_mbps > 0)) {
            snprintf(err, errlen, "ideal disk needs bandwidth > 0");
            return -1;
        }
        d->nsectors = UINT64_MAX / 2;
        d->rev = 0;
    } else {
        if (!(p->rpm > 0) || p->heads < 1 || p->cylinders < 2 ||
            p->zones < 1 || p->zones > DM_MAXZONES ||
            p->zones > p->cylinders || p->spt_outer < 1 ||
            p->spt_inner < 1) {
            snprintf(err, errlen, "need rpm>0, heads>=1, cylinders>=2, "
                     "1<=zones<=min(%d,cylinders), spt_outer/inner>=1",
                     DM_MAXZONES);
            return -1;
        }
        if (!(p->t2t_ms <= p->avg_ms && p->avg_ms <= p->full_ms)) {
            snprintf(err, errlen, "need t2t_ms <= avg_ms <= full_ms");
            return -1;
        }
        d->rev = 60.0 / p->rpm;
        build_zones(d);
        fit_seek(d);
    }
    d->bus_reserve = private_bus;
    d->bus_ctx = d;
    d->ra_stop = DM_NEVER;
    return 0;
}

/* dm_fini -- free the core's own jobs (destages not yet done). */
void dm_fini(struct dm_disk *d)
{
    struct dm_req **lists[] = { &d->driveq, &d->relq };
    for (size_t i = 0; i < 2; i++) {
        struct dm_req *r = *lists[i], *nx, *keep = NULL;
        for (; r; r = nx) {
            nx = r->next;
            if (r->kind == DM_DESTAGE)
                free(r);
            else {
                r->next = keep;
                keep = r;
            }
        }
        *lists[i] = keep;
    }
    d->relq_tail = NULL;
}

/* ---------------------------------------------------------------- */
/* Queueing: tags, completion, write cache, flush                    */
/* ---------------------------------------------------------------- */

static void push_tail(struct dm_req **head, struct dm_req **tail,
                      struct dm_req *r)
{
    r->next = NULL;
    if (*tail)
        (*tail)->next = r;
    else
        *head = r;
    *tail = r;
}

static void admit_waiting(struct dm_disk *d);

/* Host request r is complete at time t: record it, free its tag. */
static void complete(struct dm_disk *d, struct dm_req *r, double t)
{
    r->t_done = t;
    r->done = 1;
    d->st.completed++;
    d->st.lat_sum += t - r->t_arrive;
    if (t - r->t_arrive > d->st.lat_max)
        d->st.lat_max = t - r->t_arrive;
    d->st.svc_sum += t - r->t_start;
    if (r->rahit)
        d->st.rahits++;
    if (r->cached)
        d->st.cached++;
    if (r->tag >= 0) {
        d->tag_busy[r->tag] = 0;
        d->tag_free[r->tag] = t;
        r->tag = -1;
    }
    if (d->on_done)
        d->on_done(d->done_ctx, r);
    admit_waiting(d);
}

/* Dirty bytes still in the cache at time t. */
static uint64_t cache_used_at(const struct dm_disk *d, double t)
{
    uint64_t used = d->cache_undispatched;
    for (const struct dm_req *r = d->relq; r; r = r->next)
        if (r->t_done > t)
            used += r->len;
    return used;
}

/* Earliest time >= t at which len more bytes fit, or DM_NEVER if that
 * depends on destages not yet scheduled. */
static double cache_room_time(const struct dm_disk *d, uint32_t len,
                              double t)
{
    uint64_t size = (uint64_t)d->p.wcache_kb * 1024;
    if (cache_used_at(d, t) + len <= size)
        return t;
    for (const struct dm_req *r = d->relq; r; r = r->next)
        if (r->t_done > t && cache_used_at(d, r->t_done) + len <= size)
            return r->t_done;
    return DM_NEVER;
}

/* Accept cached write w at time t: it completes for the host, and a
 * destage job takes its place in the drive queue. */
static void cache_accept(struct dm_disk *d, struct dm_req *w, double t)
{
    struct dm_req *j = malloc(sizeof *j);
    if (j) {
        *j = *w;
        j->kind = DM_DESTAGE;
        j->tag = -1;
        j->t_admit = j->t_ready = t;
        j->done = 0;
        j->next = d->driveq;
        d->driveq = j;
        d->cache_undispatched += w->len;
    }
    /* (without memory the write is simply not destaged: timing only) */
    w->cached = 1;
    complete(d, w, t);
}

/* Try the writes waiting for cache room, oldest first. */
static void cache_retry(struct dm_disk *d)
{
    while (d->roomq) {
        struct dm_req *w = d->roomq;
        double t = cache_room_time(d, w->len, w->t_data);
        if (t == DM_NEVER)
            return;
        d->roomq = w->next;
        if (d->roomq == NULL)
            d->roomq_tail = NULL;
        cache_accept(d, w, t);
    }
}

static int destage_pending_before(const struct dm_disk *d, uint64_t seq)
{
    for (const struct dm_req *j = d->driveq; j; j = j->next)
        if (j->kind == DM_DESTAGE && j->seq < seq)
            return 1;
    for (const struct dm_req *w = d->roomq; w; w = w->next)
        if (w->seq < seq)
            return 1;
    return 0;
}

/* Flushes complete once every earlier write is on the media. */
static void flush_retry(struct dm_disk *d)
{
    struct dm_req **pp = &d->flushq;
    while (*pp) {
        struct dm_req *f = *pp;
        if (destage_pending_before(d, f->seq)) {
            pp = &f->next;
            continue;
        }
        *pp = f->next;
        double t = f->t_ready;
        if (d->last_destage_end > t)
            t = d->last_destage_end;
        f->t_start = f->t_ready;
        complete(d, f, t);
    }
}

/* r got a tag at time t: the drive starts processing the command. */
static void admit(struct dm_disk *d, struct dm_req *r, int tag, double t)
{
    r->tag = tag;
    d->tag_busy[tag] = 1;
    r->t_admit = t;
    r->t_ready = t + d->p.overhead_ms / 1e3;

    switch (r->op) {
    case DM_TRIM:           /* no media work on a drive of 2000 */
        r->t_start = r->t_ready;
        complete(d, r, r->t_ready);
        return;
    case DM_FLUSH:
        r->next = d->flushq;
        d->flushq = r;
        flush_retry(d);
        return;
    case DM_WRITE:
        if (d->p.wcache && !r->fua && !d->p.ideal &&
            r->len <= (uint64_t)d->p.wcache_kb * 1024) {
            /* data crosses the bus into the buffer, then waits for room */
            double dur = d->p.bus_mbps > 0 ? r->len / (d->p.bus_mbps * 1e6)
                                           : 0;
            double bs = d->bus_reserve(d->bus_ctx, r->t_ready, dur);
            r->t_start = r->t_ready;
            r->t_data = bs + dur;       /* data is in the buffer */
            push_tail(&d->roomq, &d->roomq_tail, r);
            cache_retry(d);
            return;
        }
        break;
    default:
        break;
    }
    r->next = d->driveq;
    d->driveq = r;
}

/* Give free tags to host requests waiting for one, in arrival order.
 * Each tag knows from when it is free, so a tag released by a request
 * completing in the future is not handed out early. */
static void admit_waiting(struct dm_disk *d)
{
    while (d->hostq) {
        int best = -1;
        for (unsigned i = 0; i < d->p.qdepth; i++)
            if (!d->tag_busy[i] &&
                (best < 0 || d->tag_free[i] < d->tag_free[best]))
                best = (int)i;
        if (best < 0)
            return;
        struct dm_req *r = d->hostq;
        d->hostq = r->next;
        if (d->hostq == NULL)
            d->hostq_tail = NULL;
        double t = r->t_arrive > d->tag_free[best] ? r->t_arrive
                                                    : d->tag_free[best];
        admit(d, r, best, t);
    }
}

/* dm_submit -- host request r arrives at time now. */
void dm_submit(struct dm_disk *d, struct dm_req *r, double now)
{
    uint64_t byte = d->p.base_bytes + r->offset;
    uint64_t end = byte + (r->len ? r->len : 1);

    r->kind = DM_HOST;
    r->seq = ++d->seq;
    r->lba = (byte / DM_SECTOR) % d->nsectors;
    r->nsect = (uint32_t)((end + DM_SECTOR - 1) / DM_SECTOR - byte / DM_SECTOR);
    r->tag = -1;
    r->done = r->rahit = r->cached = 0;
    r->rot = 0;
    r->seekdist = 0;
    r->t_arrive = r->t_start = now;
    d->outstanding++;
    r->qd = d->outstanding;
    d->st.qd_sum += r->qd;
    if (r->qd > d->st.qd_max)
        d->st.qd_max = r->qd;
    if (r->op >= 0 && r->op < DM_NOPS) {
        d->st.nreq[r->op]++;
        d->st.bytes[r->op] += r->len;
    }
    push_tail(&d->hostq, &d->hostq_tail, r);
    admit_waiting(d);
}

/* dm_retire -- the caller has given r back to its client at time now:
 * count the reply, and how late it went out if the host held it up. */
void dm_retire(struct dm_disk *d, struct dm_req *r, double now)
{
    static const double edge_ms[DM_NLATE] = DM_LATE_EDGES_MS;
    double late = now > r->t_done ? now - r->t_done : 0;

    if (d->outstanding > 0)
        d->outstanding--;
    d->st.replies++;
    d->st.late_sum += late;
    if (late > d->st.late_max)
        d->st.late_max = late;
    if (late > DM_LATE_MS / 1e3)
        d->st.late_replies++;
    for (int i = 0; i < DM_NLATE; i++)
        if (late > edge_ms[i] / 1e3)
            d->st.late_over[i]++;
}

/* dm_next_event -- when the actuator next needs a decision. */
double dm_next_event(const struct dm_disk *d)
{
    return d->driveq ? d->free_at : DM_NEVER;
}

/* ---------------------------------------------------------------- */
/* Dispatch                                                          */
/* ---------------------------------------------------------------- */

static double bus_dur(const struct dm_disk *d, uint32_t len)
{
    return d->p.bus_mbps > 0 ? len / (d->p.bus_mbps * 1e6) : 0;
}

/* Time at which read j's data would be in the read-ahead segment, or
 * DM_NEVER if the segment will not hold it. */
static double ra_avail(const struct dm_disk *d, const struct dm_req *j)
{
    if (!d->p.readahead || !d->ra_valid || j->op != DM_READ ||
        j->lba < d->ra_lba || j->lba + j->nsect > d->ra_limit)
        return DM_NEVER;
    struct access a;
    access_run(d, d->ra_cyl, d->ra_head, d->ra_t, d->ra_lba,
               (uint32_t)(j->lba + j->nsect - d->ra_lba), 0, 0, &a);
    return a.t_end <= d->ra_stop ? a.t_end : DM_NEVER;
}

/* Positioning cost of job j if the actuator, free at d->free_at, took
 * it next: idle time + seek + rotation (SPTF's key). */
static double position_cost(const struct dm_disk *d, const struct dm_req *j)
{
    double s = j->t_ready > d->free_at ? j->t_ready : d->free_at;
    double avail = ra_avail(d, j);
    if (avail != DM_NEVER)
        return (avail > s ? avail : s) - d->free_at;
    struct access a;
    access_run(d, d->cyl, d->head, s, j->lba, 1, j->op != DM_READ, 0, &a);
    return a.t_media - d->free_at;
}

static int older_than(const struct dm_req *a, const struct dm_req *b)
{
    return a->t_admit < b->t_admit ||
           (a->t_admit == b->t_admit && a->seq < b->seq);
}

/* Remove and return the next job for the actuator.  FIFO: the oldest
 * (destages: see below).  SPTF: the oldest of those older than age_ms
 * if there are any (so no command starves), otherwise the one that can
 * start soonest. */
static struct dm_req *choose(struct dm_disk *d)
{
    struct dm_req **best = NULL, **pp;
    double age = d->p.age_ms / 1e3, bestcost = DM_NEVER;

    for (pp = &d->driveq; *pp; pp = &(*pp)->next) {
        int old = d->p.order == DM_FIFO || d->free_at - (*pp)->t_admit > age;
        if (old && (best == NULL || older_than(*pp, *best)))
            best = pp;
    }
    /* The drive owns its write cache: when a destage is due, it writes
     * whichever dirty block is cheapest to reach, as real firmware
     * does, whatever the order setting. */
    int destages_only = best != NULL && (*best)->kind == DM_DESTAGE &&
                        d->p.order == DM_FIFO;
    if (best == NULL || destages_only) {
        best = NULL;
        for (pp = &d->driveq; *pp; pp = &(*pp)->next) {
            if (destages_only && (*pp)->kind != DM_DESTAGE)
                continue;
            double c = position_cost(d, *pp);
            if (best == NULL || c < bestcost ||
                (c == bestcost && older_than(*pp, *best))) {
                best = pp;
                bestcost = c;
            }
        }
    }
    struct dm_req *j = *best;
    *best = j->next;
    j->next = NULL;
    return j;
}

/* The ideal disk: one server at a fixed rate. */
static void dispatch_ideal(struct dm_disk *d, struct dm_req *j)
{
    double s = j->t_ready > d->free_at ? j->t_ready : d->free_at;
    double t = s + j->len / (d->p.bandwidth_mbps * 1e6);
    if (d->p.bus_mbps > 0) {
        double dur = bus_dur(d, j->len);
        double bs = d->bus_reserve(d->bus_ctx, t - dur, dur);
        if (bs + dur > t)
            t = bs + dur;
    }
    j->t_start = s;
    d->st.busy += t - s;
    d->free_at = t;
    complete(d, j, t);
}

/* A destage finished on the media at time t. */
static void destage_done(struct dm_disk *d, struct dm_req *j, double t)
{
    j->t_done = t;
    d->cache_undispatched -= j->len;
    d->last_destage_end = t;
    d->st.destages++;
    push_tail(&d->relq, &d->relq_tail, j);
    cache_retry(d);
    flush_retry(d);
}

/* Forget destages released well in the past.  Writes waiting for room
 * may look back in time, so keep the history while any wait. */
static void relq_prune(struct dm_disk *d, double now)
{
    if (d->roomq)
        return;
    while (d->relq && d->relq->t_done < now - 0.1) {
        struct dm_req *j = d->relq;
        d->relq = j->next;
        if (d->relq == NULL)
            d->relq_tail = NULL;
        free(j);
    }
}

/*
 * dm_dispatch -- the actuator is free (now >= dm_next_event()): choose
 * one job, compute its timing and update the heads, read-ahead and
 * cache.  Returns 1 if a job was dispatched.
 */
int dm_dispatch(struct dm_disk *d, double now)
{
    relq_prune(d, now);
    if (d->driveq == NULL)
        return 0;
    struct dm_req *j = choose(d);
    int write = j->op != DM_READ;
    double s = j->t_ready > d->free_at ? j->t_ready : d->free_at;

    if (d->p.ideal) {
        dispatch_ideal(d, j);
        return 1;
    }

    double avail = ra_avail(d, j);
    if (avail != DM_NEVER) {
        /* read-ahead hit: the stream keeps running past it */
        double dur = bus_dur(d, j->len);
        double want = avail - dur > s ? avail - dur : s;
        double bs = d->bus_reserve(d->bus_ctx, want, dur);
        double t = bs + dur > avail ? bs + dur : avail;
        unsigned c, h, sec, spt;
        dm_locate(d, (j->lba + j->nsect - 1) % d->nsectors, &c, &h, &sec,
                  &spt);
        j->rahit = 1;
        j->t_start = s;
        if (avail > d->free_at) {
            d->st.busy += avail - (s > d->free_at ? s : d->free_at);
            d->free_at = avail;
        }
        d->ra_lba = j->lba + j->nsect;
        d->ra_t = avail;
        d->ra_cyl = d->cyl = c;
        d->ra_head = d->head = h;
        d->ra_limit = d->ra_lba + (uint64_t)d->p.segment_kb * 2;
        complete(d, j, t);
        return 1;
    }

    /* the heads leave the read-ahead stream (if any) at s */
    if (d->ra_valid && d->ra_stop > s)
        d->ra_stop = s;

    /* destages and WRITE SAME move no (or one block of) data on the bus */
    double dur = j->kind == DM_HOST && j->op != DM_ZERO ? bus_dur(d, j->len)
                                                        : 0;
    double bs = s, t_min = 0;
    if (write && dur > 0) {     /* the drive pulls the data as it starts */
        bs = d->bus_reserve(d->bus_ctx, s, dur);
        t_min = bs;
    }
    struct access a;
    access_run(d, d->cyl, d->head, s, j->lba, j->nsect, write, t_min, &a);
    double t = a.t_end;
    if (write) {
        if (bs + dur > t)
            t = bs + dur;
    } else if (dur > 0) {       /* data follows the media; ends with it */
        double want = a.t_end - dur > a.t_media ? a.t_end - dur : a.t_media;
        bs = d->bus_reserve(d->bus_ctx, want, dur);
        if (bs + dur > t)
            t = bs + dur;
    }
    j->t_start = s;
    j->rot = a.rot;
    j->seekdist = a.dist;
    d->st.rot_sum += a.rot;
    if (a.dist) {
        d->st.seeks++;
        d->st.seek_cyls += a.dist;
    }
    d->st.busy += a.t_end - s;
    d->free_at = a.t_end;
    d->cyl = a.cyl;
    d->head = a.head;

    if (write) {
        d->ra_valid = 0;
    } else if (d->p.readahead) {
        d->ra_valid = 1;
        d->ra_lba = j->lba + j->nsect;
        d->ra_t = a.t_end;
        d->ra_stop = DM_NEVER;
        d->ra_cyl = a.cyl;
        d->ra_head = a.head;
        d->ra_limit = d->ra_lba + (uint64_t)d->p.segment_kb * 2;
    }

    if (j->kind == DM_DESTAGE)
        destage_done(d, j, a.t_end);
    else
        complete(d, j, t);
    return 1;
}
