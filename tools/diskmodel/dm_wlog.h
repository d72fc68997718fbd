/*
 * dm_wlog.h -- the write log: every write (with its data), zero, trim
 * and flush a modelled disk is sent, in the order they reach it, with
 * the moment each is issued and completed, for tools/powercut to build
 * the states a power cut could leave (docs/diskmodel.md "Write log").
 *
 * Two files: PATH, one text line per event, and PATH.data, the written
 * bytes back to back.  Lines (each starts with the event's number, from
 * 0, and its CLOCK_MONOTONIC time in seconds):
 *   N T I ID W OFFSET LENGTH FUA DATAOFF   write issued; data at DATAOFF
 *   N T I ID Z OFFSET LENGTH FUA -         zero (or trim: reads as zeros)
 *   N T I ID F - - - -                     flush issued
 *   N T C ID STATUS                        request ID completed (0: ok)
 * A request is in flight between its I and its C line; every request
 * issued before a flush's C line and completed before its I line is
 * covered by it.  All under one mutex, so the line order is the order
 * the filter saw the events in.
 */
#ifndef DM_WLOG_H
#define DM_WLOG_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { DM_WLOG_WRITE, DM_WLOG_ZERO, DM_WLOG_FLUSH };

struct dm_wlog {
    pthread_mutex_t lock;
    FILE *log, *data;
    uint64_t nevents, nextid, data_off;
    int failed;             /* a write to either file failed: the log is incomplete */
};

int dm_wlog_open(struct dm_wlog *w, const char *path, char *err, size_t errlen);
uint64_t dm_wlog_issue(struct dm_wlog *w, double t, int kind, uint64_t offset,
                       uint32_t len, int fua, const void *data);
void dm_wlog_complete(struct dm_wlog *w, double t, uint64_t id, int status);
int dm_wlog_close(struct dm_wlog *w);

#endif
