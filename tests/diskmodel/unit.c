/*
 * unit.c -- host unit tests of the disk model core (dm_model.c) and of
 * its write log (dm_wlog.c).
 *
 * No nbdkit, no clocks: a small simulator plays a client against the
 * model in virtual time.  Each test prints what it expected and what it
 * got; the last line is "N passed, N failed".
 */
#include "dm_model.h"
#include "dm_wlog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int npass, nfail;

#define CHECK(name, cond, fmt, ...)                                       \
    do {                                                                  \
        if (cond) {                                                       \
            npass++;                                                      \
            printf("PASS %s: " fmt "\n", name, __VA_ARGS__);              \
        } else {                                                          \
            nfail++;                                                      \
            printf("FAIL %s: " fmt "\n", name, __VA_ARGS__);              \
        }                                                                 \
    } while (0)

static int near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

static void mkdisk(struct dm_disk *d, const char *preset, const char *kv)
{
    struct dm_params p;
    char err[256], buf[512];
    if (dm_params_preset(&p, preset) < 0)
        abort();
    if (kv) {               /* "k=v k=v" */
        snprintf(buf, sizeof buf, "%s", kv);
        for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
            char *eq = strchr(tok, '=');
            *eq = 0;
            if (dm_param_set(&p, tok, eq + 1, err, sizeof err) < 0) {
                fprintf(stderr, "%s\n", err);
                abort();
            }
        }
    }
    if (dm_init(d, &p, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
}

/* ---- a client in virtual time ---- */

struct sim {
    double elapsed;         /* first arrival to last completion seen */
    double rot_sum, lat_max, t_last_write;
    int n;
};

/*
 * Run count requests of len bytes, keeping qd in flight.  Offsets come
 * from offs[] (or sequential from 0).  The client sees a completion at
 * t_done and sends the next request rtt later, like a real client.
 */
static void simulate(struct dm_disk *d, int op, uint32_t len, int qd,
                     int count, const uint64_t *offs, double rtt,
                     struct sim *out)
{
    struct dm_req *rq = calloc(count, sizeof *rq);
    int next = 0, inflight = 0, retired = 0, *gone = calloc(count, sizeof *gone);
    double now = 0, t0 = 0;

    memset(out, 0, sizeof *out);
    while (retired < count) {
        while (inflight < qd && next < count) {
            rq[next].op = op;
            rq[next].len = len;
            rq[next].offset = offs ? offs[next] : (uint64_t)next * len;
            dm_submit(d, &rq[next], now);
            next++;
            inflight++;
        }
        double te = dm_next_event(d), tc = DM_NEVER;
        int ic = -1;
        for (int i = 0; i < next; i++)
            if (rq[i].done && !gone[i] && rq[i].t_done < tc) {
                tc = rq[i].t_done;
                ic = i;
            }
        if (ic < 0 || te <= tc + rtt) {
            if (te == DM_NEVER)
                abort();        /* nothing to do: model deadlock */
            if (te > now)
                now = te;
            dm_dispatch(d, now);
        } else {
            now = tc + rtt > now ? tc + rtt : now;
            gone[ic] = 1;
            dm_retire(d, &rq[ic], rq[ic].t_done);
            retired++;
            inflight--;
            out->rot_sum += rq[ic].rot;
            if (rq[ic].t_done - rq[ic].t_arrive > out->lat_max)
                out->lat_max = rq[ic].t_done - rq[ic].t_arrive;
            if (rq[ic].t_done > out->elapsed)
                out->elapsed = rq[ic].t_done;
        }
    }
    out->elapsed -= t0;
    out->n = count;
    free(rq);
    free(gone);
}

static double mbps(const struct sim *s, uint32_t len)
{
    return s->n * (double)len / s->elapsed / 1e6;
}

/* Random, sector-aligned offsets over the whole modelled disk. */
static uint64_t *random_offsets(const struct dm_disk *d, int n, uint32_t len)
{
    uint64_t *o = malloc(n * sizeof *o);
    uint64_t x = 88172645463325252ULL;
    uint64_t span = d->nsectors * DM_SECTOR / len;
    for (int i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        o[i] = (x % span) * len;
    }
    return o;
}

/* ---- tests ---- */

static void test_seek_curve(void)
{
    struct dm_disk d;
    mkdisk(&d, "scsi10k", NULL);
    double full = dm_seek_time(&d, d.p.cylinders - 1);
    CHECK("seek_zero", dm_seek_time(&d, 0) == 0, "expected 0 ms, got %.3f ms",
          dm_seek_time(&d, 0) * 1e3);
    CHECK("seek_one_track", near(dm_seek_time(&d, 1), 0.5e-3, 1e-9),
          "expected 0.500 ms, got %.3f ms", dm_seek_time(&d, 1) * 1e3);
    CHECK("seek_full_stroke", near(full, 10.5e-3, 1e-6),
          "expected 10.500 ms, got %.3f ms", full * 1e3);
    double avg = dm_seek_weighted_avg(&d);
    CHECK("seek_weighted_avg", near(avg, 4.9e-3, 0.01),
          "expected 4.90 ms (data sheet definition), got %.3f ms", avg * 1e3);
    int mono = 1;
    for (unsigned x = 1; x < d.p.cylinders; x += 97)
        if (dm_seek_time(&d, x + 1) < dm_seek_time(&d, x))
            mono = 0;
    CHECK("seek_monotonic", mono, "expected rising curve, got %s",
          mono ? "rising" : "not rising");
    mkdisk(&d, "ide7200", NULL);
    CHECK("seek_ide_full", near(dm_seek_time(&d, d.p.cylinders - 1), 14.7e-3,
                                1e-6), "expected 14.7 ms, got %.3f ms",
          dm_seek_time(&d, d.p.cylinders - 1) * 1e3);
    CHECK("seek_ide_avg", near(dm_seek_weighted_avg(&d), 8.5e-3, 0.01),
          "expected 8.5 ms, got %.3f ms", dm_seek_weighted_avg(&d) * 1e3);
}

static void test_rotation(void)
{
    struct dm_disk d;
    mkdisk(&d, "scsi10k", NULL);
    uint64_t lba = 12345;
    double t = 1.0;
    double ts = t + dm_rot_wait(&d, lba, t);    /* sector lba starts at ts */
    CHECK("rot_on_time", dm_rot_wait(&d, lba, ts) < 1e-9,
          "expected 0 ms wait at the sector, got %.4f ms",
          dm_rot_wait(&d, lba, ts) * 1e3);
    double late = dm_rot_wait(&d, lba, ts + 20e-6);
    CHECK("rot_just_missed", near(late, d.rev - 20e-6, 1e-6),
          "expected %.4f ms (a revolution less 20 us), got %.4f ms",
          (d.rev - 20e-6) * 1e3, late * 1e3);
    CHECK("rot_revolution", near(d.rev, 6e-3, 1e-9),
          "expected 6.000 ms per revolution at 10,000 RPM, got %.4f", d.rev * 1e3);

    /* through the queue: sequential 64 KB writes, write cache off */
    struct sim s1, s4;
    mkdisk(&d, "scsi10k", NULL);
    simulate(&d, DM_WRITE, 65536, 1, 200, NULL, 50e-6, &s1);
    mkdisk(&d, "scsi10k", NULL);
    simulate(&d, DM_WRITE, 65536, 4, 200, NULL, 50e-6, &s4);
    double r1 = s1.rot_sum / s1.n / d.rev, r4 = s4.rot_sum / s4.n / d.rev;
    CHECK("rot_qd1_arrives_late", r1 > 0.85 && r1 < 1.0,
          "expected ~0.96 rev wait per write at QD1, got %.3f rev", r1);
    CHECK("rot_queued_none", r4 < 0.02,
          "expected ~0 wait per write when queued (QD4), got %.4f rev", r4);
}

static void test_zones(void)
{
    struct dm_disk d;
    mkdisk(&d, "scsi10k", NULL);
    double outer = dm_media_rate(&d, 0), inner = dm_media_rate(&d, d.nsectors - 1);
    CHECK("zone_outer_media", near(outer, 468 * 512 / 6e-3, 1e-9),
          "expected %.2f MB/s, got %.2f MB/s", 468 * 512 / 6e-3 / 1e6, outer / 1e6);
    CHECK("zone_inner_media", near(inner, 280 * 512 / 6e-3, 1e-9),
          "expected %.2f MB/s, got %.2f MB/s", 280 * 512 / 6e-3 / 1e6, inner / 1e6);
    double so = dm_sustained_rate(&d, 0), si = dm_sustained_rate(&d, d.nsectors - 1);
    CHECK("zone_sustained_vs_datasheet", near(so, 36e6, 0.03) && near(si, 21e6, 0.05),
          "expected 36 and 21 MB/s (36LZX sheet), got %.1f and %.1f", so / 1e6, si / 1e6);
    int falling = 1;
    for (unsigned z = 1; z < d.nzones; z++)
        if (d.zone[z].spt > d.zone[z - 1].spt)
            falling = 0;
    CHECK("zone_falling", falling && d.nzones == 11,
          "expected 11 zones, spt falling, got %u zones, %s", d.nzones,
          falling ? "falling" : "not falling");
    double gb = d.nsectors * 512.0 / 1e9;
    CHECK("zone_capacity", gb > 33 && gb < 37.5,
          "expected about 35 GB (36.9 GB drive), got %.1f GB", gb);
    unsigned c, h, s, spt;
    dm_locate(&d, 468, &c, &h, &s, &spt);
    CHECK("layout_next_head", c == 0 && h == 1 && s == 0,
          "expected (0,1,0), got (%u,%u,%u)", c, h, s);
    dm_locate(&d, 468 * 12, &c, &h, &s, &spt);
    CHECK("layout_next_cyl", c == 1 && h == 0 && s == 0,
          "expected (1,0,0), got (%u,%u,%u)", c, h, s);
    dm_locate(&d, d.zone[1].lba0, &c, &h, &s, &spt);
    CHECK("layout_zone1", c == d.zone[1].cyl0 && spt == d.zone[1].spt && spt < 468,
          "expected cyl %u spt %u, got cyl %u spt %u", d.zone[1].cyl0,
          d.zone[1].spt, c, spt);
}

static void test_seq_rates(void)
{
    struct dm_disk d;
    struct sim s;
    mkdisk(&d, "scsi10k", NULL);
    double xfer = 128 * d.rev / 468;
    simulate(&d, DM_WRITE, 65536, 1, 300, NULL, 50e-6, &s);
    double want1 = 65536 / (d.rev + xfer) / 1e6;
    CHECK("seq_write_qd1", near(mbps(&s, 65536), want1, 0.05),
          "expected %.2f MB/s (a lost revolution per write), got %.2f",
          want1, mbps(&s, 65536));
    mkdisk(&d, "scsi10k", NULL);
    simulate(&d, DM_WRITE, 65536, 4, 300, NULL, 50e-6, &s);
    double sus = dm_sustained_rate(&d, 0) / 1e6;
    CHECK("seq_write_qd4", near(mbps(&s, 65536), sus, 0.05),
          "expected %.2f MB/s (sustained), got %.2f", sus, mbps(&s, 65536));

    mkdisk(&d, "scsi10k", NULL);
    simulate(&d, DM_READ, 65536, 1, 300, NULL, 50e-6, &s);
    CHECK("seq_read_qd1_readahead", mbps(&s, 65536) > 0.8 * sus,
          "expected > %.1f MB/s thanks to read-ahead, got %.2f", 0.8 * sus,
          mbps(&s, 65536));
    mkdisk(&d, "scsi10k", "readahead=off");
    simulate(&d, DM_READ, 65536, 1, 300, NULL, 50e-6, &s);
    CHECK("seq_read_qd1_no_readahead", mbps(&s, 65536) < 0.45 * sus,
          "expected < %.1f MB/s without read-ahead, got %.2f", 0.45 * sus,
          mbps(&s, 65536));

    mkdisk(&d, "scsi10k", "wcache=on");
    simulate(&d, DM_WRITE, 65536, 1, 300, NULL, 50e-6, &s);
    CHECK("seq_write_qd1_wcache", mbps(&s, 65536) > 0.8 * sus,
          "expected > %.1f MB/s with the write cache on, got %.2f",
          0.8 * sus, mbps(&s, 65536));

    struct sim s1;
    mkdisk(&d, "ide7200", NULL);
    simulate(&d, DM_WRITE, 65536, 1, 200, NULL, 50e-6, &s1);
    mkdisk(&d, "ide7200", NULL);
    simulate(&d, DM_WRITE, 65536, 4, 200, NULL, 50e-6, &s);
    CHECK("ide_no_tcq", mbps(&s, 65536) < 1.1 * mbps(&s1, 65536),
          "expected QD4 no faster than QD1 with qdepth=1, got %.2f vs %.2f",
          mbps(&s, 65536), mbps(&s1, 65536));

    /* regression: destages must not wait for bus time booked by the
     * cached writes queued behind them */
    mkdisk(&d, "ide7200", "wcache=on");
    simulate(&d, DM_WRITE, 65536, 4, 400, NULL, 50e-6, &s);
    double isus = dm_sustained_rate(&d, 0) / 1e6;
    CHECK("ide_wcache_qd4_streams", mbps(&s, 65536) > 0.9 * isus,
          "expected > %.1f MB/s with the cache on at QD4, got %.2f",
          0.9 * isus, mbps(&s, 65536));

    mkdisk(&d, "ideal", "bandwidth=25");
    simulate(&d, DM_WRITE, 65536, 4, 200, NULL, 50e-6, &s);
    CHECK("ideal_rate", near(mbps(&s, 65536), 25, 0.01),
          "expected 25.00 MB/s, got %.2f", mbps(&s, 65536));
    mkdisk(&d, "ideal", "bandwidth=25");
    uint64_t *o = random_offsets(&d, 200, 4096);
    simulate(&d, DM_READ, 65536, 4, 200, o, 50e-6, &s);
    free(o);
    CHECK("ideal_random_same", near(mbps(&s, 65536), 25, 0.01),
          "expected 25.00 MB/s for random offsets too, got %.2f", mbps(&s, 65536));
}

static void test_random(void)
{
    struct dm_disk d;
    struct sim s;
    int n = 2000;
    mkdisk(&d, "scsi10k", NULL);
    uint64_t *o = random_offsets(&d, n, 4096);
    simulate(&d, DM_READ, 4096, 1, n, o, 50e-6, &s);
    double per = s.elapsed / n;
    double want = 0.2e-3 + 4.9e-3 + 3e-3 + 8 * d.rev / 468;
    CHECK("random_read_qd1", near(per, want, 0.12),
          "expected ~%.2f ms (overhead + seek + half a turn), got %.2f ms",
          want * 1e3, per * 1e3);
    mkdisk(&d, "scsi10k", "order=fifo");
    simulate(&d, DM_READ, 4096, 16, n, o, 50e-6, &s);
    double fifo = n / s.elapsed;
    mkdisk(&d, "scsi10k", "order=sptf");
    simulate(&d, DM_READ, 4096, 16, n, o, 50e-6, &s);
    double sptf = n / s.elapsed;
    CHECK("sptf_beats_fifo", sptf > 1.5 * fifo,
          "expected SPTF > 1.5x FIFO at QD16, got %.0f vs %.0f IOPS", sptf, fifo);
    CHECK("sptf_no_starvation", s.lat_max < 0.25 + 0.1,
          "expected max latency < 350 ms (age_ms=250), got %.0f ms",
          s.lat_max * 1e3);
    free(o);
}

static void test_cache_and_flush(void)
{
    struct dm_disk d;
    struct dm_req w[64], f;
    mkdisk(&d, "scsi10k", "wcache=on wcache_kb=1024");
    for (int i = 0; i < 32; i++) {      /* 2 MB into a 1 MB cache */
        memset(&w[i], 0, sizeof w[i]);
        w[i].op = DM_WRITE;
        w[i].len = 65536;
        w[i].offset = (uint64_t)i * 65536 * 7;
        dm_submit(&d, &w[i], 0);
    }
    memset(&f, 0, sizeof f);
    f.op = DM_FLUSH;
    dm_submit(&d, &f, 0);
    while (dm_next_event(&d) != DM_NEVER)
        dm_dispatch(&d, dm_next_event(&d));
    int all = 1;
    double last_write = 0;
    for (int i = 0; i < 32; i++) {
        all &= w[i].done;
        if (w[i].t_done > last_write)
            last_write = w[i].t_done;
    }
    CHECK("wcache_first_fast", w[0].done && w[0].t_done < 1e-3,
          "expected first write done in < 1 ms (bus only), got %.3f ms",
          w[0].t_done * 1e3);
    CHECK("wcache_full_waits", all && last_write > 10e-3,
          "expected writes beyond 1 MB to wait for destage (> 10 ms), got %.2f ms",
          last_write * 1e3);
    CHECK("flush_waits_destage", f.done && f.t_done >= d.last_destage_end &&
          d.st.destages == 32,
          "expected flush after last destage (%.2f ms, 32 destages), got %.2f ms, %llu",
          d.last_destage_end * 1e3, f.t_done * 1e3,
          (unsigned long long)d.st.destages);
    dm_fini(&d);
}

/* Replies the caller sends after their due time are counted as late, by
 * how late (dm_retire); replies on time are not. */
static void test_late_replies(void)
{
    static const double late_ms[10] = { 0, 0, 0, 0, 0, 0, 0.5, 5, 5, 200 };
    struct dm_disk d;
    struct dm_req r[10];
    mkdisk(&d, "scsi10k", NULL);
    for (int i = 0; i < 10; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].op = DM_WRITE;
        r[i].len = 8192;
        r[i].offset = (uint64_t)i * 8192;
        dm_submit(&d, &r[i], 0);
    }
    while (dm_next_event(&d) != DM_NEVER)
        dm_dispatch(&d, dm_next_event(&d));
    for (int i = 0; i < 10; i++)
        dm_retire(&d, &r[i], r[i].t_done + late_ms[i] / 1e3);
    const struct dm_stats *st = &d.st;
    CHECK("late_replies_counted", st->replies == 10 && st->late_replies == 3,
          "expected 10 replies, 3 later than %g ms, got %llu, %llu", DM_LATE_MS,
          (unsigned long long)st->replies, (unsigned long long)st->late_replies);
    CHECK("late_distribution", st->late_over[0] == 4 && st->late_over[1] == 3 &&
          st->late_over[2] == 1 && st->late_over[3] == 1,
          "expected later than 0.1/1/10/100 ms: 4/3/1/1, got %llu/%llu/%llu/%llu",
          (unsigned long long)st->late_over[0], (unsigned long long)st->late_over[1],
          (unsigned long long)st->late_over[2], (unsigned long long)st->late_over[3]);
    CHECK("late_max_and_sum", near(st->late_max, 0.2, 1e-9) &&
          near(st->late_sum, 0.2105, 1e-9),
          "expected max 200 ms, total 210.5 ms, got %.3f, %.3f ms",
          st->late_max * 1e3, st->late_sum * 1e3);
    dm_fini(&d);
}

static void test_params(void)
{
    struct dm_params p;
    char err[256];
    CHECK("preset_unknown", dm_params_preset(&p, "floppy") < 0,
          "expected rejection, got %s", "accepted");
    dm_params_preset(&p, "scsi10k");
    CHECK("param_override", dm_param_set(&p, "rpm", "15000", err, sizeof err) == 0 &&
          p.rpm == 15000, "expected rpm 15000, got %.0f", p.rpm);
    CHECK("param_bad_value", dm_param_set(&p, "order", "random", err, sizeof err) < 0,
          "expected rejection of order=random, got %s", "accepted");
    CHECK("param_unknown", dm_param_set(&p, "colour", "red", err, sizeof err) < 0 &&
          !dm_param_known("colour") && dm_param_known("qdepth"),
          "expected unknown key rejected, got %s", err);
    CHECK("param_size", dm_param_set(&p, "base", "2G", err, sizeof err) == 0 &&
          p.base_bytes == (2ULL << 30), "expected 2 GiB, got %llu",
          (unsigned long long)p.base_bytes);
    struct dm_disk d;
    p.qdepth = 0;
    CHECK("init_rejects_qdepth0", dm_init(&d, &p, err, sizeof err) < 0,
          "expected error, got %s", "ok");
}

/* ---- the write log ---- */

/* Two writes in flight together, a flush after both completed, a zero:
 * the log has their lines in event order, and the data file their bytes. */
static void test_wlog(void)
{
    char path[] = "/tmp/dm-wlog-unit.XXXXXX", dpath[64], err[256], line[256];
    char a[1000], b[24];
    struct dm_wlog w;
    int fd = mkstemp(path);

    if (fd < 0)
        abort();
    memset(a, 'a', sizeof a);
    memset(b, 'b', sizeof b);
    int rc = dm_wlog_open(&w, path, err, sizeof err);
    CHECK("wlog_open", rc == 0, "expected 0, got %d (%s)", rc, rc ? err : "ok");
    if (rc != 0)
        return;
    uint64_t ia = dm_wlog_issue(&w, 1.5, DM_WLOG_WRITE, 4096, sizeof a, 0, a);
    uint64_t ib = dm_wlog_issue(&w, 1.6, DM_WLOG_WRITE, 512, sizeof b, 1, b);
    dm_wlog_complete(&w, 1.7, ib, 0);
    dm_wlog_complete(&w, 1.8, ia, 0);
    uint64_t iflush = dm_wlog_issue(&w, 1.9, DM_WLOG_FLUSH, 0, 0, 0, NULL);
    dm_wlog_complete(&w, 2.0, iflush, 0);
    uint64_t iz = dm_wlog_issue(&w, 2.1, DM_WLOG_ZERO, 8192, 4096, 0, NULL);
    dm_wlog_complete(&w, 2.2, iz, 1);
    rc = dm_wlog_close(&w);
    CHECK("wlog_close", rc == 0, "expected 0, got %d", rc);

    static const char *want[] = {
        "0 1.500000 I 0 W 4096 1000 0 0\n", "1 1.600000 I 1 W 512 24 1 1000\n",
        "2 1.700000 C 1 0\n", "3 1.800000 C 0 0\n", "4 1.900000 I 2 F - - - -\n",
        "5 2.000000 C 2 0\n", "6 2.100000 I 3 Z 8192 4096 0 -\n", "7 2.200000 C 3 1\n",
    };
    FILE *f = fdopen(fd, "r");
    int n = 0, same = 0;
    while (fgets(line, sizeof line, f)) {
        if (n < 8 && strcmp(line, want[n]) == 0)
            same++;
        else if (n < 8)
            printf("  line %d: want %s  got %s", n, want[n], line);
        n++;
    }
    fclose(f);
    CHECK("wlog_lines_in_event_order", n == 8 && same == 8,
          "expected 8 lines as listed, got %d lines, %d of them right", n, same);

    char got[sizeof a + sizeof b + 1];
    snprintf(dpath, sizeof dpath, "%s.data", path);
    f = fopen(dpath, "r");
    size_t len = f ? fread(got, 1, sizeof got, f) : 0;
    if (f)
        fclose(f);
    CHECK("wlog_data_back_to_back", len == sizeof a + sizeof b &&
          memcmp(got, a, sizeof a) == 0 && memcmp(got + sizeof a, b, sizeof b) == 0,
          "expected %zu bytes, a's then b's, got %zu", sizeof a + sizeof b, len);
    unlink(path);
    unlink(dpath);
}

int main(void)
{
    test_seek_curve();
    test_rotation();
    test_zones();
    test_seq_rates();
    test_random();
    test_cache_and_flush();
    test_late_replies();
    test_params();
    test_wlog();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
