/*
 * dm_filter.c -- nbdkit filter that makes a backing file behave, in
 * time, like a disk drive of about 2000.  Data goes straight through to
 * the plugin underneath (normally nbdkit-file-plugin); only the moment
 * each reply is sent is decided by the model in dm_model.c.
 *
 * Written against nbdkit-filter(3) (nbdkit 1.32, filter API version 6).
 *
 * Usage (tools/diskmodel/serve wraps this):
 *   nbdkit -f -U SOCK --filter=./build/diskmodel.so file IMAGE \
 *          preset=scsi10k [param=value ...] [stats=PATH] [trace=PATH] ...
 * Filter-only keys: preset, stats, stats_interval, trace, bus, wlog; every
 * model key of dm_model.c; all other keys go on to the plugin.
 *
 * How a request is timed:
 *   1. the nbdkit worker thread submits it to the model (arrival = now),
 *      and if the actuator is idle makes the model's decision at once;
 *   2. it does the real I/O on the plugin, overlapping the model's wait;
 *   3. it waits until the model has fixed its completion time and then
 *      sleeps until that (absolute, CLOCK_MONOTONIC) time;
 *   4. it retires the request, with the time it really is (later than
 *      the completion time if the host held it up: a late reply, which
 *      the statistics count), and, if the actuator became free with it,
 *      makes the model's next decision (the handoff, below); it returns.
 * The model's decisions: whenever the modelled actuator becomes free,
 * dm_dispatch() chooses among the commands queued at that moment (FIFO
 * or SPTF).  When the job the actuator just took is a host request that
 * ends as the actuator frees (every media read or write), its worker
 * wakes at that very moment to reply, so that worker makes the next
 * decision itself; the scheduler thread times only the other events
 * (destages, read-ahead hits, an arrival at an idle actuator that no
 * worker handled).  nbdkit runs this filter in its PARALLEL thread model
 * (no .thread_model callback), so with --threads N up to N requests are
 * in the model at once.
 *
 * Why the handoff: with a deep queue the actuator is never idle, so a
 * decision made late pushes every reply after it late (the model keeps
 * its time, and the next job starts when the last one ended).  Before
 * it, each request cost four thread wake-ups - the scheduler woken by
 * the arrival, the scheduler's timer at the actuator's free time, the
 * worker woken when its time was fixed, the worker's own timer - of
 * which two timers had to fire on time; on a 2-core host that also runs
 * QEMU's vCPU thread, a woken thread can wait for a CPU for a
 * millisecond or more, and at 16 queued 1.7% of the replies of
 * sequential 64 KB writes left more than 1 ms late (qemu-img bench, the
 * figures in docs/diskmodel.md "Late replies").  Now a request costs two
 * wake-ups, one of them timed.
 *
 * Locking: one mutex, lock, protects disk (all model state), handoff,
 * the trace file and stopping.  sched_cv wakes the scheduler (an event
 * it must time, or stop); each request in flight has its own condition
 * variable, signalled when the model fixes its completion time
 * (request_done), so a completion wakes only the worker waiting for it:
 * waking every worker at each completion cost the host 0.5 ms of CPU per
 * request at 16 queued.
 * Model time is seconds since epoch (CLOCK_MONOTONIC); the shared bus
 * file holds absolute CLOCK_MONOTONIC seconds, which every process on
 * the host reads alike.
 */
#define NBDKIT_API_VERSION 2
#include <nbdkit-filter.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dm_model.h"
#include "dm_wlog.h"

/* Configuration, written only before the threads start. */
static const char *preset_name = "scsi10k";
static const char *stats_path, *trace_path, *bus_path, *wlog_path, *label = "-";
static double stats_interval = 1.0;
static struct { char *key, *value; } overrides[64];
static int noverrides;
static struct dm_params params;
static double epoch;

/* Shared state, all under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sched_cv, stats_cv;
static struct dm_disk disk;
static FILE *trace;
static struct dm_wlog wlog;      /* open when wlog_path is set; its own lock */
static int stopping;
static pthread_t sched_thread, stats_thread;
static int threads_started;
static double last_done = -1;    /* the host request the model timed last: its completion */
static double handoff = -1;      /* the actuator frees as a worker replies, at this time, and
                                    that worker makes the decision due then; -1: none */
static double sched_t = DM_NEVER;   /* the event the scheduler sleeps until (DM_NEVER: none) */
static uint64_t decisions, handoffs;   /* dm_dispatch calls; those a replying worker made */

/* The shared bus: one double in a file, guarded by flock(2). */
struct busfile { double free_at; };
static int bus_fd = -1;
static struct busfile *bus_map;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double model_now(void)
{
    return mono() - epoch;
}

static struct timespec to_abs(double model_t)
{
    double t = model_t + epoch;
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Sleep until model time t.  Timer slack is cut to 1 us per thread so
 * that the replies leave when the model says, not 50 us later. */
static void sleep_until(double t)
{
    static __thread int slack_set;
    if (!slack_set) {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        slack_set = 1;
    }
    struct timespec ts = to_abs(t);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* ---- shared bus ---- */

static double shared_bus_reserve(void *ctx, double start, double dur)
{
    (void)ctx;
    double s = start + epoch;
    flock(bus_fd, LOCK_EX);
    if (s < bus_map->free_at)
        s = bus_map->free_at;
    bus_map->free_at = s + dur;
    flock(bus_fd, LOCK_UN);
    return s - epoch;
}

static int bus_open(const char *path)
{
    struct stat sb;
    bus_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (bus_fd < 0) {
        nbdkit_error("diskmodel: bus=%s: %m", path);
        return -1;
    }
    flock(bus_fd, LOCK_EX);
    if (fstat(bus_fd, &sb) == 0 && sb.st_size < (off_t)sizeof *bus_map &&
        ftruncate(bus_fd, sizeof *bus_map) < 0) {
        nbdkit_error("diskmodel: bus=%s: ftruncate: %m", path);
        flock(bus_fd, LOCK_UN);
        return -1;
    }
    flock(bus_fd, LOCK_UN);
    bus_map = mmap(NULL, sizeof *bus_map, PROT_READ | PROT_WRITE, MAP_SHARED,
                   bus_fd, 0);
    if (bus_map == MAP_FAILED) {
        nbdkit_error("diskmodel: bus=%s: mmap: %m", path);
        return -1;
    }
    return 0;
}

/* ---- statistics and trace ---- */

static const char *opname[DM_NOPS] = { "R", "W", "F", "T", "Z" };

/* A host request in flight: the model's record of it, first, and the
 * condition its worker waits on until the model has timed it. */
struct inflight {
    struct dm_req r;
    pthread_cond_t done_cv;
};

/* Called by the model, under lock, as each host request gets its
 * completion time: wake its worker, trace it. */
static void request_done(void *ctx, const struct dm_req *r)
{
    (void)ctx;
    last_done = r->t_done;
    pthread_cond_signal(&((struct inflight *)r)->done_cv);
    if (trace == NULL)
        return;
    fprintf(trace, "%.6f,%s,%llu,%u,%u,%.3f,%.3f,%.3f,%u,%.3f,%d,%d\n",
            r->t_arrive, opname[r->op], (unsigned long long)r->offset, r->len,
            r->qd, (r->t_start - r->t_arrive) * 1e3,
            (r->t_done - r->t_start) * 1e3, (r->t_done - r->t_arrive) * 1e3,
            r->seekdist, r->rot * 1e3, r->rahit, r->cached);
}

/* The replies and how late the host let them go out (dm_model.h, "Late
 * replies"): late_over_<edge>ms counts those later than each edge. */
static void format_late(char *buf, size_t len, const struct dm_stats *st)
{
    static const double edge_ms[DM_NLATE] = DM_LATE_EDGES_MS;
    double n = st->replies ? (double)st->replies : 1;
    int k = snprintf(buf, len,
                     "replies=%llu\nlate_replies=%llu\nlate_pct=%.3f\n"
                     "mean_late_ms=%.3f\nmax_late_ms=%.3f\n",
                     (unsigned long long)st->replies,
                     (unsigned long long)st->late_replies,
                     100 * st->late_replies / n, st->late_sum / n * 1e3,
                     st->late_max * 1e3);
    for (int i = 0; i < DM_NLATE && k > 0 && (size_t)k < len; i++)
        k += snprintf(buf + k, len - k, "late_over_%gms=%llu\n", edge_ms[i],
                      (unsigned long long)st->late_over[i]);
}

static void format_stats(char *buf, size_t len, const struct dm_stats *st,
                         double uptime, uint64_t ndecisions, uint64_t nhandoffs)
{
    double n = st->completed ? (double)st->completed : 1;
    uint64_t arrived = 0;
    for (int i = 0; i < DM_NOPS; i++)
        arrived += st->nreq[i];
    snprintf(buf, len,
             "preset=%s\ntags=%u\norder=%s\nwcache=%s\nimage=%s\nuptime_s=%.3f\n"
             "requests=%llu\ncompleted=%llu\n"
             "reads=%llu\nread_bytes=%llu\nwrites=%llu\nwrite_bytes=%llu\n"
             "flushes=%llu\ntrims=%llu\nzeroes=%llu\nzero_bytes=%llu\n"
             "seeks=%llu\nmean_seek_cyl=%.1f\n"
             "mean_qdepth=%.2f\nmax_qdepth=%llu\n"
             "mean_latency_ms=%.3f\nmax_latency_ms=%.3f\n"
             "mean_service_ms=%.3f\nmean_rot_ms=%.3f\n"
             "busy_pct=%.1f\nreadahead_hits=%llu\ncached_writes=%llu\n"
             "destages=%llu\ndecisions=%llu\nhandoffs=%llu\n",
             preset_name, params.qdepth, params.order == DM_SPTF ? "sptf" : "fifo",
             params.wcache ? "on" : "off", label, uptime, (unsigned long long)arrived,
             (unsigned long long)st->completed,
             (unsigned long long)st->nreq[DM_READ],
             (unsigned long long)st->bytes[DM_READ],
             (unsigned long long)st->nreq[DM_WRITE],
             (unsigned long long)st->bytes[DM_WRITE],
             (unsigned long long)st->nreq[DM_FLUSH],
             (unsigned long long)st->nreq[DM_TRIM],
             (unsigned long long)st->nreq[DM_ZERO],
             (unsigned long long)st->bytes[DM_ZERO],
             (unsigned long long)st->seeks,
             st->seeks ? (double)st->seek_cyls / st->seeks : 0.0,
             arrived ? (double)st->qd_sum / arrived : 0.0,
             (unsigned long long)st->qd_max, st->lat_sum / n * 1e3,
             st->lat_max * 1e3, st->svc_sum / n * 1e3,
             st->rot_sum / n * 1e3,
             uptime > 0 ? 100 * st->busy / uptime : 0.0,
             (unsigned long long)st->rahits, (unsigned long long)st->cached,
             (unsigned long long)st->destages, (unsigned long long)ndecisions,
             (unsigned long long)nhandoffs);
    format_late(buf + strlen(buf), len - strlen(buf), st);
}

/* Rewrite the stats file atomically (write a temporary, rename). */
static void write_stats_file(void)
{
    char buf[2048], tmp[4096];
    struct dm_stats st;
    uint64_t nd, nh;
    double up;

    pthread_mutex_lock(&lock);
    st = disk.st;
    nd = decisions;
    nh = handoffs;
    up = model_now();
    pthread_mutex_unlock(&lock);
    format_stats(buf, sizeof buf, &st, up, nd, nh);
    snprintf(tmp, sizeof tmp, "%s.tmp", stats_path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fputs(buf, f);
    if (fclose(f) == 0)
        rename(tmp, stats_path);
}

static void *stats_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        struct timespec ts = to_abs(model_now() + stats_interval);
        pthread_cond_timedwait(&stats_cv, &lock, &ts);
        if (stopping)
            break;
        if (trace)
            fflush(trace);
        pthread_mutex_unlock(&lock);
        write_stats_file();
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* ---- the model's decisions ---- */

/* Make every decision due by now (a worker at its handoff: by_worker).
 * If the job the actuator took last is a host request that ends as the
 * actuator frees, its worker will make the next decision (the handoff);
 * any other event the scheduler must time, and it is woken if it does not
 * sleep until that already.  Called with lock held. */
static void dispatch_due(int by_worker)
{
    double now = model_now(), t;

    while (dm_next_event(&disk) <= now) {
        last_done = -1;
        dm_dispatch(&disk, now);
        decisions++;
        handoffs += by_worker;
        handoff = last_done == disk.free_at ? last_done : -1;
    }
    t = dm_next_event(&disk);
    if (t != DM_NEVER && t != handoff && t != sched_t)
        pthread_cond_signal(&sched_cv);
}

/* The scheduler thread: sleep until the next event that no worker will
 * handle, and make the decisions due then. */
static void *sched_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    pthread_mutex_lock(&lock);
    while (!stopping) {
        double t = dm_next_event(&disk);
        if (t == DM_NEVER || t == handoff) {
            sched_t = DM_NEVER;
            pthread_cond_wait(&sched_cv, &lock);
            continue;
        }
        if (t > model_now()) {
            struct timespec ts = to_abs(t);
            sched_t = t;
            pthread_cond_timedwait(&sched_cv, &lock, &ts);
            sched_t = DM_NEVER;
            continue;
        }
        dispatch_due(0);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* ---- request path ---- */

static void model_begin(struct inflight *f, int op, uint32_t count,
                        uint64_t offset, int fua)
{
    struct dm_req *r = &f->r;
    memset(r, 0, sizeof *r);
    r->op = op;
    r->len = count;
    r->offset = offset;
    r->fua = fua;
    pthread_cond_init(&f->done_cv, NULL);
    pthread_mutex_lock(&lock);
    dm_submit(&disk, r, model_now());
    dispatch_due(0);
    pthread_mutex_unlock(&lock);
}

static void model_end(struct inflight *f)
{
    pthread_mutex_lock(&lock);
    while (!f->r.done)
        pthread_cond_wait(&f->done_cv, &lock);
    double t = f->r.t_done;
    pthread_mutex_unlock(&lock);
    sleep_until(t);
    double sent = model_now();          /* later than t if the host was slow */
    pthread_mutex_lock(&lock);
    dm_retire(&disk, &f->r, sent);
    if (handoff == t) {
        handoff = -1;
        dispatch_due(1);
    }
    pthread_mutex_unlock(&lock);
    pthread_cond_destroy(&f->done_cv);
}

/* The write log's records of a request (nothing without wlog=): issued as
 * it reaches the filter, completed as its reply leaves.  A trim is logged
 * as a zero: nbdkit's file plugin punches a hole, which reads as zeros. */
static uint64_t wlog_issue(int kind, uint64_t offset, uint32_t len, int fua,
                           const void *data)
{
    return wlog_path ? dm_wlog_issue(&wlog, mono(), kind, offset, len, fua, data) : 0;
}

static void wlog_complete(uint64_t id, int ret)
{
    if (wlog_path)
        dm_wlog_complete(&wlog, mono(), id, ret == 0 ? 0 : 1);
}

static int dm_pread(nbdkit_next *next, void *handle, void *buf,
                    uint32_t count, uint64_t offset, uint32_t flags, int *err)
{
    struct inflight f;
    (void)handle;
    model_begin(&f, DM_READ, count, offset, 0);
    int ret = next->pread(next, buf, count, offset, flags, err);
    model_end(&f);
    return ret;
}

static int dm_pwrite(nbdkit_next *next, void *handle, const void *buf,
                     uint32_t count, uint64_t offset, uint32_t flags,
                     int *err)
{
    struct inflight f;
    (void)handle;
    int fua = (flags & NBDKIT_FLAG_FUA) != 0;
    uint64_t id = wlog_issue(DM_WLOG_WRITE, offset, count, fua, buf);
    model_begin(&f, DM_WRITE, count, offset, fua);
    int ret = next->pwrite(next, buf, count, offset, flags, err);
    model_end(&f);
    wlog_complete(id, ret);
    return ret;
}

static int dm_zero(nbdkit_next *next, void *handle, uint32_t count,
                   uint64_t offset, uint32_t flags, int *err)
{
    struct inflight f;
    (void)handle;
    int fua = (flags & NBDKIT_FLAG_FUA) != 0;
    uint64_t id = wlog_issue(DM_WLOG_ZERO, offset, count, fua, NULL);
    model_begin(&f, DM_ZERO, count, offset, fua);
    int ret = next->zero(next, count, offset, flags, err);
    model_end(&f);
    wlog_complete(id, ret);
    return ret;
}

static int dm_trim(nbdkit_next *next, void *handle, uint32_t count,
                   uint64_t offset, uint32_t flags, int *err)
{
    struct inflight f;
    (void)handle;
    uint64_t id = wlog_issue(DM_WLOG_ZERO, offset, count, 0, NULL);
    model_begin(&f, DM_TRIM, count, offset, 0);
    int ret = next->trim(next, count, offset, flags, err);
    model_end(&f);
    wlog_complete(id, ret);
    return ret;
}

/*
 * A flush is the modelled drive's: it takes the model's time and nothing on the host. The image
 * file stands for the drive's media, and what a power cut of the drive loses is tools/powercut's
 * business (the write log); passing the flush down made the file plugin fdatasync() the whole
 * image on the host, which took 0.1-1 s with a GB of the image dirty in the host's page cache
 * and made every flush a late reply. A host crash is not what the model models.
 */
static int dm_flush(nbdkit_next *next, void *handle, uint32_t flags,
                    int *err)
{
    struct inflight f;
    (void)next;
    (void)handle;
    (void)flags;
    (void)err;
    uint64_t id = wlog_issue(DM_WLOG_FLUSH, 0, 0, 0, NULL);
    model_begin(&f, DM_FLUSH, 0, 0, 0);
    model_end(&f);
    wlog_complete(id, 0);
    return 0;
}

/* Warn (once) when the image is bigger than the modelled disk: offsets
 * beyond the end wrap round to the outer zone, so timing is off. */
static int64_t dm_get_size(nbdkit_next *next, void *handle)
{
    static int warned;
    (void)handle;
    int64_t size = next->get_size(next);
    uint64_t cap = disk.nsectors * (uint64_t)DM_SECTOR;
    if (size > 0 && !params.ideal && !warned &&
        params.base_bytes + (uint64_t)size > cap) {
        warned = 1;
        fprintf(stderr, "diskmodel: warning: base + image size (%lld bytes) "
                "exceeds the modelled disk (%llu bytes); offsets wrap\n",
                (long long)(params.base_bytes + (uint64_t)size),
                (unsigned long long)cap);
    }
    return size;
}

static int dm_is_rotational(nbdkit_next *next, void *handle)
{
    (void)next;
    (void)handle;
    return !params.ideal;
}

/* ---- configuration and life cycle ---- */

static int dm_config(nbdkit_next_config *next, nbdkit_backend *nxdata,
                     const char *key, const char *value)
{
    if (strcmp(key, "preset") == 0)
        preset_name = value;
    else if (strcmp(key, "stats") == 0)
        stats_path = value;
    else if (strcmp(key, "trace") == 0)
        trace_path = value;
    else if (strcmp(key, "bus") == 0)
        bus_path = value;
    else if (strcmp(key, "wlog") == 0)
        wlog_path = value;
    else if (strcmp(key, "stats_interval") == 0) {
        char *end;
        stats_interval = strtod(value, &end);
        if (end == value || *end || !(stats_interval > 0)) {
            nbdkit_error("diskmodel: stats_interval=%s: want seconds > 0",
                         value);
            return -1;
        }
    } else if (dm_param_known(key)) {
        if (noverrides == (int)(sizeof overrides / sizeof overrides[0])) {
            nbdkit_error("diskmodel: too many parameters");
            return -1;
        }
        overrides[noverrides].key = (char *)key;
        overrides[noverrides].value = (char *)value;
        noverrides++;
    } else {
        if (strcmp(key, "file") == 0)
            label = value;
        return next(nxdata, key, value);
    }
    return 0;
}

static int dm_config_complete(nbdkit_next_config_complete *next,
                              nbdkit_backend *nxdata)
{
    char err[256];
    if (dm_params_preset(&params, preset_name) < 0) {
        nbdkit_error("diskmodel: unknown preset '%s' "
                     "(want scsi10k, ide7200 or ideal)", preset_name);
        return -1;
    }
    for (int i = 0; i < noverrides; i++)
        if (dm_param_set(&params, overrides[i].key, overrides[i].value, err,
                         sizeof err) < 0) {
            nbdkit_error("diskmodel: %s", err);
            return -1;
        }
    if (dm_init(&disk, &params, err, sizeof err) < 0) {
        nbdkit_error("diskmodel: %s", err);
        return -1;
    }
    return next(nxdata);
}

static void banner(void)
{
    const struct dm_params *p = &params;
    if (p->ideal) {
        fprintf(stderr, "diskmodel: preset=%s ideal %.1f MB/s, qdepth %u\n",
                preset_name, p->bandwidth_mbps, p->qdepth);
        return;
    }
    fprintf(stderr,
            "diskmodel: preset=%s %.0f rpm, %.1f GB, media %.1f-%.1f MB/s, "
            "seek %.1f/%.1f/%.1f ms, qdepth %u %s, wcache %s, readahead %s%s%s\n",
            preset_name, p->rpm, disk.nsectors * 512.0 / 1e9,
            dm_media_rate(&disk, 0) / 1e6,
            dm_media_rate(&disk, disk.nsectors - 1) / 1e6, p->t2t_ms,
            p->avg_ms, p->full_ms, p->qdepth,
            p->order == DM_SPTF ? "sptf" : "fifo", p->wcache ? "on" : "off",
            p->readahead ? "on" : "off", bus_path ? ", shared bus " : "",
            bus_path ? bus_path : "");
}

/* Threads are started after nbdkit has (or has not) forked. */
static int dm_after_fork(nbdkit_backend *backend)
{
    pthread_condattr_t ca;
    (void)backend;

    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sched_cv, &ca);
    pthread_cond_init(&stats_cv, &ca);
    pthread_condattr_destroy(&ca);

    epoch = mono();
    disk.on_done = request_done;
    if (bus_path) {
        if (bus_open(bus_path) < 0)
            return -1;
        disk.bus_reserve = shared_bus_reserve;
    }
    if (trace_path) {
        trace = fopen(trace_path, "w");
        if (trace == NULL) {
            nbdkit_error("diskmodel: trace=%s: %m", trace_path);
            return -1;
        }
        fprintf(trace, "time_s,op,offset,length,qdepth,wait_ms,service_ms,"
                       "latency_ms,seek_cyl,rot_ms,readahead,cached\n");
    }
    if (wlog_path) {
        char err[4200];
        if (dm_wlog_open(&wlog, wlog_path, err, sizeof err) < 0) {
            nbdkit_error("diskmodel: %s", err);
            return -1;
        }
    }
    banner();
    if (pthread_create(&sched_thread, NULL, sched_main, NULL) != 0 ||
        (stats_path &&
         pthread_create(&stats_thread, NULL, stats_main, NULL) != 0)) {
        nbdkit_error("diskmodel: cannot start threads");
        return -1;
    }
    threads_started = 1;
    return 0;
}

/* All connections are closed: stop the threads, print the totals. */
static void dm_cleanup(nbdkit_backend *backend)
{
    char buf[2048];
    (void)backend;
    if (!threads_started)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_broadcast(&sched_cv);
    pthread_cond_broadcast(&stats_cv);
    pthread_mutex_unlock(&lock);
    pthread_join(sched_thread, NULL);
    if (stats_path) {
        pthread_join(stats_thread, NULL);
        write_stats_file();
    }
    threads_started = 0;
    format_stats(buf, sizeof buf, &disk.st, model_now(), decisions, handoffs);
    fprintf(stderr, "diskmodel: final statistics\n%s", buf);
    if (trace) {
        fclose(trace);
        trace = NULL;
    }
    if (wlog_path && dm_wlog_close(&wlog) < 0)
        fprintf(stderr, "diskmodel: wlog=%s: incomplete (a write to it failed)\n",
                wlog_path);
    dm_fini(&disk);
}

static struct nbdkit_filter filter = {
    .name = "diskmodel",
    .longname = "wdrain disk timing model",
    .config = dm_config,
    .config_complete = dm_config_complete,
    .config_help =
        "preset=scsi10k|ide7200|ideal  drive to model (default scsi10k)\n"
        "stats=PATH         statistics file, rewritten periodically\n"
        "stats_interval=S   seconds between rewrites (default 1)\n"
        "trace=PATH         per-request CSV trace\n"
        "bus=PATH           shared bus file (disks on one SCSI bus)\n"
        "wlog=PATH          write log (PATH and PATH.data) for tools/powercut\n"
        "Model parameters (override the preset), see docs/diskmodel.md:\n"
        "rpm cylinders heads zones spt_outer spt_inner t2t_ms avg_ms\n"
        "full_ms write_settle_ms head_switch_ms overhead_ms bus_mbps qdepth\n"
        "order=fifo|sptf age_ms wcache=on|off wcache_kb readahead=on|off\n"
        "segment_kb base ideal=on|off bandwidth",
    .after_fork = dm_after_fork,
    .cleanup = dm_cleanup,
    .get_size = dm_get_size,
    .is_rotational = dm_is_rotational,
    .pread = dm_pread,
    .pwrite = dm_pwrite,
    .zero = dm_zero,
    .trim = dm_trim,
    .flush = dm_flush,
};

NBDKIT_REGISTER_FILTER(filter)
