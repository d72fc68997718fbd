/*
 * Host unit tests of disk_seg_build (kernel/dev/disk_seg.c): a request's data, given as a page
 * list the way struct bio's unmapped form is (a page frame per 4 KB, the data starting at an
 * offset into the first), becomes physical segments: adjacent frames merge, a gap starts a new
 * segment, segments are cut at maxseg, a sub-range starts mid-page, and too few slots fail.
 */
#include "unit.h"
#include "dev/disk_seg.c"

/* A page list: frame addresses and the byte offset of the data in the first page. */
struct pagelist {
	const uint64_t *frames;
	uint32_t        offset;
};

static uint64_t xlate_pages(const void *arg, uint32_t off, uint32_t *run)
{
	const struct pagelist *pl = arg;
	uint32_t pos = pl->offset + off;

	*run = 4096 - pos % 4096;
	return pl->frames[pos / 4096] + pos % 4096;
}

static void test_page_lists(void)
{
	/* Frames 10,11,12 adjacent, then 40, then 41 (adjacent to 40), then 7. */
	static const uint64_t frames[] = { 10 << 12, 11 << 12, 12 << 12, 40 << 12, 41 << 12, 7 << 12 };
	struct pagelist pl = { frames, 0 };
	struct disk_seg segs[8];
	int n;

	n = disk_seg_build(segs, 8, 1u << 20, xlate_pages, &pl, 0, 6 * 4096);
	check_int("pages_merge_into_three_segments", n, 3);
	check_u64("pages_first_segment_at_frame_10", segs[0].ds_paddr, 10 << 12);
	check_int("pages_first_segment_three_pages", segs[0].ds_len, 3 * 4096);
	check_u64("pages_second_segment_at_frame_40", segs[1].ds_paddr, 40 << 12);
	check_int("pages_second_segment_two_pages", segs[1].ds_len, 2 * 4096);
	check_int("pages_last_segment_one_page", segs[2].ds_len, 4096);

	pl.offset = 0x800;
	n = disk_seg_build(segs, 8, 1u << 20, xlate_pages, &pl, 0, 3 * 4096);
	check_int("offset_data_two_segments", n, 2);
	check_u64("offset_data_starts_mid_page", segs[0].ds_paddr, (10 << 12) + 0x800);
	check_int("offset_data_first_runs_to_frame_12_end", segs[0].ds_len, 3 * 4096 - 0x800);
	check_int("offset_data_spills_into_frame_40", segs[1].ds_len, 0x800);

	pl.offset = 0;
	n = disk_seg_build(segs, 8, 1u << 20, xlate_pages, &pl, 2 * 4096 + 512, 4096);
	check_int("subrange_crossing_a_gap_two_segments", n, 2);
	check_u64("subrange_starts_in_frame_12", segs[0].ds_paddr, (12 << 12) + 512);
	check_int("subrange_first_piece", segs[0].ds_len, 4096 - 512);
	check_u64("subrange_then_frame_40", segs[1].ds_paddr, 40 << 12);

	n = disk_seg_build(segs, 8, 6000, xlate_pages, &pl, 0, 3 * 4096);
	check_int("maxseg_cuts_a_contiguous_run", n, 3);
	check_int("maxseg_first_cut", segs[0].ds_len, 6000);
	check_u64("maxseg_second_continues", segs[1].ds_paddr, (10 << 12) + 6000);
	check_int("maxseg_second_cut", segs[1].ds_len, 6000);
	check_int("maxseg_rest", segs[2].ds_len, 3 * 4096 - 12000);

	n = disk_seg_build(segs, 2, 1u << 20, xlate_pages, &pl, 0, 6 * 4096);
	check_int("too_few_slots_fails", n, -1);
	n = disk_seg_build(segs, 8, 1u << 20, xlate_pages, &pl, 0, 0);
	check_int("empty_range_fails", n, -1);
}

int main(void)
{
	test_page_lists();
	return unit_exit();
}
