/*
 * dm_wlog.c -- the write log (dm_wlog.h).  Kept out of dm_filter.c so
 * the host unit test (tests/diskmodel/unit.c) drives it without nbdkit.
 * Both files are written through stdio buffers and flushed at close: a
 * make-test workload's log is a few MB, and the filter's own crash (not
 * the guest's) is not what the log is for.
 */
#include "dm_wlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int dm_wlog_open(struct dm_wlog *w, const char *path, char *err, size_t errlen)
{
    char dpath[4096];
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    snprintf(dpath, sizeof dpath, "%s.data", path);
    w->log = fopen(path, "w");
    w->data = w->log ? fopen(dpath, "w") : NULL;
    if (w->data == NULL) {
        snprintf(err, errlen, "wlog=%s: %s", w->log ? dpath : path, strerror(errno));
        if (w->log)
            fclose(w->log);
        w->log = NULL;
        return -1;
    }
    return 0;
}

uint64_t dm_wlog_issue(struct dm_wlog *w, double t, int kind, uint64_t offset,
                       uint32_t len, int fua, const void *data)
{
    pthread_mutex_lock(&w->lock);
    uint64_t id = w->nextid++;
    if (kind == DM_WLOG_FLUSH)
        fprintf(w->log, "%llu %.6f I %llu F - - - -\n",
                (unsigned long long)w->nevents, t, (unsigned long long)id);
    else if (kind == DM_WLOG_ZERO)
        fprintf(w->log, "%llu %.6f I %llu Z %llu %u %d -\n",
                (unsigned long long)w->nevents, t, (unsigned long long)id,
                (unsigned long long)offset, len, fua);
    else {
        fprintf(w->log, "%llu %.6f I %llu W %llu %u %d %llu\n",
                (unsigned long long)w->nevents, t, (unsigned long long)id,
                (unsigned long long)offset, len, fua,
                (unsigned long long)w->data_off);
        if (fwrite(data, 1, len, w->data) != len)
            w->failed = 1;
        w->data_off += len;
    }
    w->nevents++;
    pthread_mutex_unlock(&w->lock);
    return id;
}

void dm_wlog_complete(struct dm_wlog *w, double t, uint64_t id, int status)
{
    pthread_mutex_lock(&w->lock);
    fprintf(w->log, "%llu %.6f C %llu %d\n", (unsigned long long)w->nevents, t,
            (unsigned long long)id, status);
    w->nevents++;
    pthread_mutex_unlock(&w->lock);
}

/* Returns -1 if anything of the log was lost (a full disk, say). */
int dm_wlog_close(struct dm_wlog *w)
{
    int bad = w->failed | ferror(w->log) | ferror(w->data);
    bad |= fclose(w->log) != 0;
    bad |= fclose(w->data) != 0;
    pthread_mutex_destroy(&w->lock);
    return bad ? -1 : 0;
}
