/*
 * Host unit tests of ccd's stripe mapping (kernel/dev/ccd_map.c).
 *
 * For several small layouts (two equal disks, three unequal disks with the interleave
 * table, CCDF_UNIFORM, concatenation, interleave 1, one disk) every ccd sector must map to
 * exactly one component location inside that component's usable area and back, every usable
 * component sector must map back to a ccd sector, and every (start, length) range must split
 * into pieces that cover it exactly, in order, each inside one stripe unit, and its share per
 * component (what the buffer cache charges each component) must be its pieces' sums. Then
 * named boundary cases with known answers (FreeBSD's ccd arithmetic worked by hand); each
 * striped layout also lists sectors whose place was worked by hand, so that a layout of its own
 * (lab stripe's handout lays a stripe out as a concatenation until the striping is written,
 * labs/stripe/README.md) fails its checks, consistent as it is.
 *
 * Checks named given_..., and the concat_three layout's, test the code lab stripe's students
 * are given (concatenation, the geometry's sizes and errors, splitting ranges and shares
 * against the ccd's ends): the lab's grader does not count them.
 */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "dev/ccd_map.h"

/* A location "disk:sector" for messages. */
static const char *locstr(char *buf, size_t n, int disk, uint64_t sector)
{
	snprintf(buf, n, "%d:%llu", disk, (unsigned long long)sector);
	return buf;
}

struct place {
	uint64_t bn;                        /* a ccd sector ... */
	int      disk;                      /* ... lives on this component ... */
	uint64_t sector;                    /* ... at this component sector (CCD_OFFSET included) */
};

struct layout {
	const char  *name;
	int          ndisks;
	uint64_t     sizes[CCD_MAXNDISKS];  /* raw component sizes, CCD_OFFSET included */
	uint32_t     ileave;
	bool         uniform;
	uint64_t     want_size;             /* expected ccd size in sectors */
	struct place places[10];            /* worked by hand; ends at the first with sector 0 */
};

#define MAXSECT 256

static bool build(const struct layout *l, struct ccd_geom *g)
{
	char name[96], got[32];
	int err = ccd_geom_init(g, l->ndisks, l->sizes, l->ileave, l->uniform);

	snprintf(name, sizeof name, "given_size_%s", l->name);
	if (err != CCD_MAP_OK) {
		snprintf(got, sizeof got, "error %d", err);
		fail(name, "CCD_MAP_OK", got);
		return false;
	}
	check_u64(name, g->cg_size, l->want_size);
	return g->cg_size == l->want_size && g->cg_size <= MAXSECT;
}

/* Every ccd sector maps inside a component, no two to the same place, and back. */
static void check_forward(const struct layout *l, const struct ccd_geom *g)
{
	static bool seen[CCD_MAXNDISKS][MAXSECT + CCD_OFFSET];
	char name[96], e[96], got[48];
	struct ccd_loc loc = { 0 };
	uint64_t bn, back = 0;

	memset(seen, 0, sizeof seen);
	snprintf(name, sizeof name, "%s_every_sector_maps_to_one_place_and_back", l->name);
	for (const struct place *p = l->places; p->sector != 0; p++)
		if (!ccd_map_sector(g, p->bn, &loc) || loc.cl_disk != p->disk || loc.cl_sector != p->sector) {
			snprintf(e, sizeof e, "sector %llu at %s (worked by hand)", (unsigned long long)p->bn,
			         locstr(got, sizeof got, p->disk, p->sector));
			fail(name, e, locstr(got, sizeof got, loc.cl_disk, loc.cl_sector));
			return;
		}
	for (bn = 0; bn < g->cg_size; bn++) {
		if (!ccd_map_sector(g, bn, &loc)) {
			snprintf(e, sizeof e, "sector %llu mapped", (unsigned long long)bn);
			fail(name, e, "not mapped");
			return;
		}
		if (loc.cl_disk < 0 || loc.cl_disk >= l->ndisks || loc.cl_sector < CCD_OFFSET ||
		    loc.cl_sector - CCD_OFFSET >= g->cg_csize[loc.cl_disk]) {
			snprintf(e, sizeof e, "sector %llu inside a component", (unsigned long long)bn);
			fail(name, e, locstr(got, sizeof got, loc.cl_disk, loc.cl_sector));
			return;
		}
		if (seen[loc.cl_disk][loc.cl_sector]) {
			snprintf(e, sizeof e, "sector %llu alone at its place", (unsigned long long)bn);
			fail(name, e, locstr(got, sizeof got, loc.cl_disk, loc.cl_sector));
			return;
		}
		seen[loc.cl_disk][loc.cl_sector] = true;
		if (!ccd_unmap(g, loc.cl_disk, loc.cl_sector, &back) || back != bn) {
			snprintf(e, sizeof e, "%llu", (unsigned long long)bn);
			snprintf(got, sizeof got, "%llu", (unsigned long long)back);
			fail(name, e, got);
			return;
		}
	}
	if (ccd_map_sector(g, g->cg_size, &loc)) {
		fail(name, "the sector past the end unmapped", "mapped");
		return;
	}
	pass(name);
}

/* Every usable component sector is some ccd sector; reserved and trailing ones are none. */
static void check_inverse(const struct layout *l, const struct ccd_geom *g)
{
	char name[96], e[96], got[48];
	struct ccd_loc loc = { 0 };
	uint64_t cs, bn = 0;
	int d;

	snprintf(name, sizeof name, "%s_every_component_sector_maps_back", l->name);
	for (const struct place *p = l->places; p->sector != 0; p++)
		if (!ccd_unmap(g, p->disk, p->sector, &bn) || bn != p->bn) {
			snprintf(e, sizeof e, "%s back to sector %llu (worked by hand)",
			         locstr(got, sizeof got, p->disk, p->sector), (unsigned long long)p->bn);
			snprintf(got, sizeof got, "%llu", (unsigned long long)bn);
			fail(name, e, got);
			return;
		}
	for (d = 0; d < l->ndisks; d++) {
		for (cs = 0; cs < l->sizes[d]; cs++) {
			bool usable = cs >= CCD_OFFSET && cs - CCD_OFFSET < g->cg_csize[d];
			bool ok = ccd_unmap(g, d, cs, &bn);

			if (ok != usable) {
				snprintf(e, sizeof e, "%s at %s", usable ? "mapped" : "unmapped",
				         locstr(got, sizeof got, d, cs));
				fail(name, e, ok ? "mapped" : "unmapped");
				return;
			}
			if (ok && (!ccd_map_sector(g, bn, &loc) || loc.cl_disk != d || loc.cl_sector != cs)) {
				fail(name, locstr(e, sizeof e, d, cs),
				     locstr(got, sizeof got, loc.cl_disk, loc.cl_sector));
				return;
			}
		}
	}
	if (ccd_unmap(g, l->ndisks, CCD_OFFSET, &bn) || ccd_unmap(g, -1, CCD_OFFSET, &bn)) {
		fail(name, "no mapping for a bad component index", "a mapping");
		return;
	}
	pass(name);
}

/* One range: pieces in order, covering it exactly, each inside one unit and consistent. */
static bool range_ok(const struct ccd_geom *g, uint64_t bn, uint64_t n, char *why, size_t wn)
{
	struct ccd_piece p[MAXSECT];
	struct ccd_loc loc;
	size_t np = ccd_map_range(g, bn, n, p, MAXSECT), i;
	uint64_t skip = 0, k;

	if (np == 0 || np > MAXSECT || ccd_map_range(g, bn, n, NULL, 0) != np) {
		snprintf(why, wn, "[%llu,+%llu): %zu pieces", (unsigned long long)bn,
		         (unsigned long long)n, np);
		return false;
	}
	for (i = 0; i < np; i++) {
		if (p[i].cp_skip != skip || p[i].cp_nsect == 0) {
			snprintf(why, wn, "[%llu,+%llu) piece %zu skip %llu", (unsigned long long)bn,
			         (unsigned long long)n, i, (unsigned long long)p[i].cp_skip);
			return false;
		}
		if (g->cg_ileave != 0 && (p[i].cp_sector - CCD_OFFSET) / g->cg_ileave !=
		    (p[i].cp_sector - CCD_OFFSET + p[i].cp_nsect - 1) / g->cg_ileave) {
			snprintf(why, wn, "[%llu,+%llu) piece %zu crosses a unit", (unsigned long long)bn,
			         (unsigned long long)n, i);
			return false;
		}
		for (k = 0; k < p[i].cp_nsect; k++) {
			ccd_map_sector(g, bn + skip + k, &loc);
			if (loc.cl_disk != p[i].cp_disk || loc.cl_sector != p[i].cp_sector + k) {
				snprintf(why, wn, "[%llu,+%llu) piece %zu sector %llu", (unsigned long long)bn,
				         (unsigned long long)n, i, (unsigned long long)k);
				return false;
			}
		}
		skip += p[i].cp_nsect;
	}
	if (skip != n) {
		snprintf(why, wn, "[%llu,+%llu) covered %llu", (unsigned long long)bn,
		         (unsigned long long)n, (unsigned long long)skip);
		return false;
	}
	return true;
}

static void check_ranges(const struct layout *l, const struct ccd_geom *g)
{
	char name[96], why[96];
	uint64_t bn, n;

	snprintf(name, sizeof name, "%s_every_range_splits_exactly", l->name);
	for (bn = 0; bn < g->cg_size; bn++)
		for (n = 1; n <= g->cg_size - bn; n++)
			if (!range_ok(g, bn, n, why, sizeof why)) {
				fail(name, "exact pieces", why);
				return;
			}
	pass(name);
}

static const struct layout layouts[] = {
	/* Two equal disks, ileave 4: 40 usable sectors each; units alternate 0, 1, 0, 1... */
	{ "two_equal", 2, { 16 + 42, 16 + 42 }, 4, false, 80,
	  { { 0, 0, 16 }, { 4, 1, 16 }, { 9, 0, 16 + 5 }, { 79, 1, 16 + 39 } } },
	/* Three unequal: usable 9, 24, 6 -> 3, 8, 2 units of 3: rows of 3, 2 and 1 disks
	   (units 0-5 over disks 0 1 2, 6-7 over disks 0 1, 8-12 on disk 1 alone). */
	{ "three_unequal", 3, { 16 + 10, 16 + 25, 16 + 7 }, 3, false, 39,
	  { { 0, 0, 16 }, { 3, 1, 16 }, { 6, 2, 16 }, { 9, 0, 16 + 3 }, { 18, 0, 16 + 6 },
	    { 21, 1, 16 + 6 }, { 24, 1, 16 + 9 }, { 38, 1, 16 + 23 } } },
	/* The same three cut to the smallest (6 sectors = 2 units each): one row of 3. */
	{ "three_uniform", 3, { 16 + 10, 16 + 25, 16 + 7 }, 3, true, 18,
	  { { 3, 1, 16 }, { 9, 0, 16 + 3 }, { 17, 2, 16 + 5 } } },
	/* Concatenation: sizes are not rounded. */
	{ "concat_three", 3, { 16 + 5, 16 + 7, 16 + 3 }, 0, false, 15,
	  { { 0, 0, 16 }, { 5, 1, 16 }, { 14, 2, 16 + 2 } } },
	/* Interleave 1: sectors alternate while both have room (26), then disk 0 alone. */
	{ "ileave_one", 2, { 16 + 20, 16 + 13 }, 1, false, 33,
	  { { 0, 0, 16 }, { 1, 1, 16 }, { 25, 1, 16 + 12 }, { 26, 0, 16 + 13 }, { 32, 0, 16 + 19 } } },
	/* One disk: the stripe is the disk (so it is also its concatenation: only its ranges,
	   cut at every unit, tell the two apart). */
	{ "one_disk", 1, { 16 + 50 }, 8, false, 48, { { 47, 0, 16 + 47 } } },
	/* Usable 4 4 6 6 8 8 10 10 -> 2 2 3 3 4 4 5 5 units of 2: rows of 8, 6, 4 and 2 disks. */
	{ "eight_disks", 8, { 20, 21, 22, 23, 24, 25, 26, 27 }, 2, false, 4 + 4 + 6 + 6 + 8 + 8 + 10 + 10,
	  { { 0, 0, 16 }, { 2, 1, 16 }, { 14, 7, 16 }, { 16, 0, 16 + 2 }, { 32, 2, 16 + 4 },
	    { 55, 7, 16 + 9 } } },
};

/* Named cases with answers worked out by hand. */
static void check_known(void)
{
	static const uint64_t two[2] = { 16 + 1024, 16 + 1024 };
	static const uint64_t three[3] = { 16 + 10, 16 + 25, 16 + 7 };
	struct ccd_geom g;
	struct ccd_loc loc = { 0 };
	struct ccd_piece p[8] = { { 0 } };   /* a mapping that fails leaves them as they were */
	uint64_t bn;

	ccd_geom_init(&g, 2, two, 128, false);
	ccd_map_sector(&g, 0, &loc);
	check_u64("ileave128_sector0_on_disk0_after_offset_unit_of_128",
	          (loc.cl_disk * 1000 + loc.cl_sector) * 10000 + loc.cl_run, 16 * 10000 + 128);
	ccd_map_sector(&g, 128, &loc);
	check_u64("ileave128_sector128_on_disk1", loc.cl_disk * 1000 + loc.cl_sector, 1016);
	ccd_map_sector(&g, 256, &loc);
	check_u64("ileave128_sector256_second_unit_of_disk0", loc.cl_disk * 1000 + loc.cl_sector, 144);
	ccd_map_sector(&g, 130, &loc);
	check_u64("ileave128_mid_unit_run", loc.cl_run, 126);

	/* A request starting mid-unit: 100 sectors from 100 -> 28 on disk 0, then 72 on disk 1. */
	check_u64("range_mid_unit_two_pieces", ccd_map_range(&g, 100, 100, p, 8), 2);
	check_u64("range_mid_unit_first_place_and_len", (p[0].cp_disk * 1000 + p[0].cp_sector) * 1000 + p[0].cp_nsect,
	          116 * 1000 + 28);
	check_u64("range_mid_unit_second_place", p[1].cp_disk * 1000 + p[1].cp_sector, 1016);
	check_u64("range_mid_unit_second_skip", p[1].cp_skip, 28);
	/* Exactly one unit, aligned: one piece. */
	check_u64("range_exactly_one_unit_one_piece_in_place",
	          ccd_map_range(&g, 384, 128, p, 8) * 10000 + p[0].cp_disk * 1000 + p[0].cp_sector, 10000 + 1144);
	/* Spanning many units: 2048 sectors from 64 -> 17 pieces; counting needs no array. */
	check_u64("range_many_units_count", ccd_map_range(&g, 64, 2048 - 64, NULL, 0), 16);
	check_u64("range_many_units_truncated_fill", ccd_map_range(&g, 64, 2048 - 64, p, 8), 16);
	check_u64("range_many_units_eighth_piece_skip", p[7].cp_skip, 64 + 6 * 128);
	/* The last sector of unit 7 (disk 1's fourth unit), and ranges the ccd does not hold. */
	check_u64("range_unit_end_sector_one_piece_in_place",
	          ccd_map_range(&g, 1023, 1, p, 8) * 10000 + p[0].cp_disk * 1000 + p[0].cp_sector,
	          10000 + 1000 + 16 + 3 * 128 + 127);
	check_u64("given_range_past_end_is_empty", ccd_map_range(&g, 2047, 2, p, 8), 0);
	check_u64("given_range_zero_length_is_empty", ccd_map_range(&g, 0, 0, p, 8), 0);
	check_u64("given_range_start_past_end_is_empty", ccd_map_range(&g, 4096, 1, p, 8), 0);

	/* Three unequal disks, ileave 3: units 6,7 are the two-disk row (disks 0, 1); 8.. disk 1. */
	ccd_geom_init(&g, 3, three, 3, false);
	check_u64("unequal_rows", g.cg_nrows, 3);
	ccd_map_sector(&g, 7 * 3 + 1, &loc);
	check_u64("unequal_second_row_on_disk1", loc.cl_disk * 1000 + loc.cl_sector, 1000 + 16 + 2 * 3 + 1);
	ccd_map_sector(&g, 8 * 3, &loc);
	check_u64("unequal_third_row_on_disk1_alone", loc.cl_disk * 1000 + loc.cl_sector, 1000 + 16 + 3 * 3);
	check_u64("unequal_unmap_last", ccd_unmap(&g, 1, 16 + 23, &bn) ? bn : 9999, 38);

	/* Concatenation: a range over a component boundary splits there. */
	ccd_geom_init(&g, 3, three, 0, false);
	check_u64("given_concat_range_over_boundary", ccd_map_range(&g, 8, 4, p, 8), 2);
	check_u64("given_concat_second_piece_on_disk1_start", p[1].cp_disk * 1000 + p[1].cp_sector, 1016);
	check_u64("given_concat_first_piece_len", p[0].cp_nsect, 2);
}

/* Every range's share per component adds up to the range, and agrees with its pieces. */
static void check_shares(const struct layout *l, const struct ccd_geom *g)
{
	struct ccd_piece p[MAXSECT];
	uint64_t share[CCD_MAXNDISKS], want[CCD_MAXNDISKS];
	char name[96], why[96];
	size_t n;

	snprintf(name, sizeof name, "given_shares_%s_by_its_pieces", l->name);
	for (uint64_t bn = 0; bn < g->cg_size; bn++)
		for (uint64_t len = 1; len <= g->cg_size - bn; len++) {
			n = ccd_map_range(g, bn, len, p, MAXSECT);
			memset(want, 0, sizeof want);
			for (size_t i = 0; i < n; i++)
				want[p[i].cp_disk] += p[i].cp_nsect;
			if (!ccd_map_share(g, bn, len, share) || memcmp(share, want, g->cg_ndisks * sizeof share[0])) {
				snprintf(why, sizeof why, "[%llu,+%llu) differs", (unsigned long long)bn,
				         (unsigned long long)len);
				fail(name, "the pieces' sums", why);
				return;
			}
		}
	pass(name);
}

static void check_known_shares(void)
{
	static const uint64_t two[2] = { 16 + 1024, 16 + 1024 };
	struct ccd_geom g;
	uint64_t share[2];

	/* The seed's stripe (ileave 128): a 128 KB cluster from a unit boundary is 128 + 128. */
	ccd_geom_init(&g, 2, two, 128, false);
	check_u64("share_cluster_aligned", ccd_map_share(&g, 256, 256, share) ? share[0] * 1000 + share[1] : 0,
	          128128);
	/* From the middle of a unit: 64 on disk 0, 128 on disk 1, 64 on disk 0 again. */
	check_u64("share_cluster_mid_unit", ccd_map_share(&g, 64, 256, share) ? share[0] * 1000 + share[1] : 0,
	          128128);
	check_u64("share_within_one_unit_all_on_disk1",
	          ccd_map_share(&g, 130, 16, share) ? share[0] * 1000 + share[1] : 0, 16);
	check_u64("given_share_past_the_end_is_refused", ccd_map_share(&g, 2040, 16, share), false);
	check_u64("given_share_past_the_end_is_zero", share[0] + share[1], 0);
}

static void check_errors(void)
{
	static const uint64_t sizes[CCD_MAXNDISKS + 1] = { 100, 100, 100, 100, 100, 100, 100, 100, 100 };
	static const uint64_t tiny[2] = { 100, 16 + 3 };
	struct ccd_geom g;

	check_u64("given_error_no_components", ccd_geom_init(&g, 0, sizes, 4, false), CCD_MAP_ENDISKS);
	check_u64("given_error_nine_components", ccd_geom_init(&g, 9, sizes, 4, false), CCD_MAP_ENDISKS);
	check_u64("given_eight_components_ok", ccd_geom_init(&g, 8, sizes, 4, false), CCD_MAP_OK);
	check_u64("given_error_component_smaller_than_interleave", ccd_geom_init(&g, 2, tiny, 4, false),
	          CCD_MAP_ESMALL);
	check_u64("given_error_component_only_offset", ccd_geom_init(&g, 1, (const uint64_t[]){ 16 }, 0, false),
	          CCD_MAP_ESMALL);
	check_u64("given_error_interleave_too_large", ccd_geom_init(&g, 2, sizes, CCD_MAXILEAVE + 1, false),
	          CCD_MAP_EILEAVE);
}

int main(void)
{
	struct ccd_geom g;
	size_t i;

	for (i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
		if (!build(&layouts[i], &g))
			continue;
		check_forward(&layouts[i], &g);
		check_inverse(&layouts[i], &g);
		check_ranges(&layouts[i], &g);
		check_shares(&layouts[i], &g);
	}
	check_known();
	check_known_shares();
	check_errors();
	return unit_exit();
}
