/*
 * disk_seg: a request's data as a list of physical segments, for drivers that build DMA
 * scatter lists (AHCI PRDTs, virtio descriptors) or copy page by page (md). Pure code: no
 * kernel headers, so tests/unit/test_disk_seg.c compiles disk_seg.c directly.
 *
 * The data of a request is a run of bytes numbered 0 .. length-1. The caller describes where
 * they live with a translation function: xlate(arg, off, &run) gives the physical address of
 * byte `off` and how many bytes from there lie in the same page frame (so are certainly
 * physically contiguous). dev/disk.c has the two translations of struct bio: a direct-mapped
 * bio_data, and a page list (BIO_UNMAPPED, bio_ma).
 *
 *   disk_seg_build(segs, max, maxseg, xlate, arg, off, len)
 *       Bytes [off, off+len) as at most `max` segments, each at most `maxseg` bytes, merging
 *       a piece into the previous segment when it starts where that one ends. Returns the
 *       segment count, or -1 if len is 0 or the segments do not fit in `max`.
 */
#ifndef _DEV_DISK_SEG_H_
#define _DEV_DISK_SEG_H_

#include <stdint.h>

struct disk_seg {
	uint64_t ds_paddr;     /* physical address */
	uint32_t ds_len;       /* bytes */
};

typedef uint64_t disk_seg_xlate_t(const void *arg, uint32_t off, uint32_t *run);

int disk_seg_build(struct disk_seg *segs, int max, uint32_t maxseg, disk_seg_xlate_t *xlate,
                   const void *arg, uint32_t off, uint32_t len);

#endif
