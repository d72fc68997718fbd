/* disk_seg.c - a request's data as physical segments (interface and contract: disk_seg.h). */
#include "dev/disk_seg.h"

int disk_seg_build(struct disk_seg *segs, int max, uint32_t maxseg, disk_seg_xlate_t *xlate,
                   const void *arg, uint32_t off, uint32_t len)
{
	int n = 0;

	if (len == 0 || maxseg == 0)
		return -1;
	while (len > 0) {
		uint32_t run;
		uint64_t pa = xlate(arg, off, &run);
		struct disk_seg *last = n > 0 ? &segs[n - 1] : 0;

		if (run > len)
			run = len;
		/* Extend the last segment with as much of this piece as fits within maxseg. */
		if (last != 0 && last->ds_paddr + last->ds_len == pa && last->ds_len < maxseg) {
			uint32_t take = maxseg - last->ds_len;

			if (take > run)
				take = run;
			last->ds_len += take;
			pa += take;
			off += take;
			len -= take;
			run -= take;
		}
		while (run > 0) {
			uint32_t take = run < maxseg ? run : maxseg;

			if (n == max)
				return -1;
			segs[n].ds_paddr = pa;
			segs[n].ds_len = take;
			n++;
			pa += take;
			off += take;
			len -= take;
			run -= take;
		}
	}
	return n;
}
