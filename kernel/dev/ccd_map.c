/*
 * ccd_map.c - ccd(4)'s stripe mapping as pure arithmetic (interface: dev/ccd_map.h).
 *
 * The layout is FreeBSD's (sys/dev/ccd/ccd.c, ccdinit/ccdinterleave/ccdbuffer), in 512-byte
 * sectors. With an interleave of I sectors, ccd sector bn is in stripe unit bn / I at offset
 * bn % I. The interleave table splits the units into rows: row r covers the units where the
 * same ii_ndisk components still have space, and unit u of a row goes to component
 * ii_index[(u - ii_startblk) % ii_ndisk] at component unit ii_startoff + (u - ii_startblk) /
 * ii_ndisk. With equal-sized (or CCDF_UNIFORM) components there is one row, plain RAID-0.
 * Interleave 0 lays the components end to end.
 *
 * Lab stripe (labs/stripe/README.md): the striping half of this file (the interleave table,
 * map_stripe, unmap_stripe) is what its students write; concatenation is their worked example,
 * and ccd_map_range, which splits a request with whatever the mapping answers, is given. Until
 * the striping is written, a handout lays a stripe out as a concatenation.
 *
 * No locking: a geometry is built once and only read afterwards.
 */
#include "dev/ccd_map.h"

/* LAB stripe BEGIN */
/* Units of component i (stripe mode). */
static uint64_t comp_units(const struct ccd_geom *g, int i)
{
	return g->cg_csize[i] / g->cg_ileave;
}

/*
 * Build the interleave table (FreeBSD's ccdinterleave): repeatedly take the smallest
 * component that still has units beyond those laid out, and stripe every component at least
 * that large over the units between.
 */
static void ccd_interleave(struct ccd_geom *g)
{
	uint64_t done = 0, blk = 0, next, u;
	struct ccd_itab *row;
	int i;

	g->cg_nrows = 0;
	for (;;) {
		next = UINT64_MAX;
		for (i = 0; i < g->cg_ndisks; i++) {
			u = comp_units(g, i);
			if (u > done && u < next)
				next = u;
		}
		if (next == UINT64_MAX)
			break;
		row = &g->cg_itab[g->cg_nrows++];
		row->ii_startblk = blk;
		row->ii_startoff = done;
		row->ii_endoff = next;
		row->ii_ndisk = 0;
		for (i = 0; i < g->cg_ndisks; i++)
			if (comp_units(g, i) >= next)
				row->ii_index[row->ii_ndisk++] = i;
		blk += (uint64_t)row->ii_ndisk * (next - done);
		done = next;
	}
}
/* LAB stripe STUB */
// /*
//  * Build the interleave table (FreeBSD's ccdinterleave) in g->cg_itab[0 .. g->cg_nrows): one
//  * row for each run of stripe units laid over the same components (labs/stripe/README.md).
//  * Until it is written the table is empty, and map_stripe lays the stripe out as a
//  * concatenation.
//  */
// static void ccd_interleave(struct ccd_geom *g)
// {
// 	g->cg_nrows = 0;
// }
/* LAB stripe END */

/*
 * The start of each component in a concatenation, whatever the interleave: a concatenation
 * maps with it, and so does lab stripe's handout, whose stripes are laid out end to end until
 * the striping is written (a layout of its own, but a consistent one: the kernel works).
 */
static void ccd_concat_starts(struct ccd_geom *g)
{
	uint64_t start = 0;
	int i;

	for (i = 0; i < g->cg_ndisks; i++) {
		g->cg_cstart[i] = start;
		start += g->cg_csize[i];
	}
}

/*
 * ccd_geom_init: usable size per component = raw - CCD_OFFSET, rounded down to the
 * interleave (ccdinit); uniform cuts every component to the smallest.
 */
int ccd_geom_init(struct ccd_geom *g, int ndisks, const uint64_t *sizes, uint32_t ileave,
                  bool uniform)
{
	uint64_t size, minsize = UINT64_MAX;
	int i;

	if (ndisks < 1 || ndisks > CCD_MAXNDISKS)
		return CCD_MAP_ENDISKS;
	if (ileave > CCD_MAXILEAVE)
		return CCD_MAP_EILEAVE;
	g->cg_ndisks = ndisks;
	g->cg_ileave = ileave;
	for (i = 0; i < ndisks; i++) {
		size = sizes[i] > CCD_OFFSET ? sizes[i] - CCD_OFFSET : 0;
		if (ileave > 1)
			size -= size % ileave;
		if (size == 0)
			return CCD_MAP_ESMALL;
		g->cg_csize[i] = size;
		if (size < minsize)
			minsize = size;
	}
	g->cg_size = 0;
	for (i = 0; i < ndisks; i++) {
		if (uniform)
			g->cg_csize[i] = minsize;
		g->cg_size += g->cg_csize[i];
	}
	ccd_concat_starts(g);
	g->cg_nrows = 0;
	if (ileave != 0)
		ccd_interleave(g);
	return CCD_MAP_OK;
}

/* Concatenation: the component holding bn. */
static void map_concat(const struct ccd_geom *g, uint64_t bn, struct ccd_loc *loc)
{
	int i = 0;

	while (bn >= g->cg_cstart[i] + g->cg_csize[i])
		i++;
	loc->cl_disk = i;
	loc->cl_sector = bn - g->cg_cstart[i] + CCD_OFFSET;
	loc->cl_run = g->cg_cstart[i] + g->cg_csize[i] - bn;
}

/* LAB stripe BEGIN */
/* Striping: find the row of unit bn / ileave, then the component and unit within it. */
static bool map_stripe(const struct ccd_geom *g, uint64_t bn, struct ccd_loc *loc)
{
	uint64_t unit = bn / g->cg_ileave, cboff = bn % g->cg_ileave, off;
	const struct ccd_itab *row = &g->cg_itab[0];
	int r;

	for (r = 1; r < g->cg_nrows && g->cg_itab[r].ii_startblk <= unit; r++)
		row = &g->cg_itab[r];
	off = unit - row->ii_startblk;
	loc->cl_disk = row->ii_index[off % row->ii_ndisk];
	loc->cl_sector = (row->ii_startoff + off / row->ii_ndisk) * g->cg_ileave + cboff + CCD_OFFSET;
	loc->cl_run = g->cg_ileave - cboff;
	return true;
}
/* LAB stripe STUB */
// /*
//  * Striping: where ccd sector bn (< cg_size) lives. Until this is written, where a
//  * concatenation of the components would put it (the handout's fallback).
//  */
// static bool map_stripe(const struct ccd_geom *g, uint64_t bn, struct ccd_loc *loc)
// {
// 	map_concat(g, bn, loc);
// 	return true;
// }
/* LAB stripe END */

bool ccd_map_sector(const struct ccd_geom *g, uint64_t bn, struct ccd_loc *loc)
{
	if (bn >= g->cg_size)
		return false;
	if (g->cg_ileave != 0)
		return map_stripe(g, bn, loc);
	map_concat(g, bn, loc);
	return true;
}

/*
 * The pieces of [bn, bn + nsect) in ccd order, each up to the end of its stripe unit (or
 * component), handed to piece(arg, loc, skip, len). false if the range is not inside the ccd
 * or the mapping answers nonsense (an unfinished map_stripe must fail a request, not loop).
 */
static bool ccd_walk(const struct ccd_geom *g, uint64_t bn, uint64_t nsect,
                     void (*piece)(void *, const struct ccd_loc *, uint64_t, uint64_t), void *arg)
{
	struct ccd_loc loc;
	uint64_t skip, len;

	if (nsect == 0 || bn >= g->cg_size || nsect > g->cg_size - bn)
		return false;
	for (skip = 0; skip < nsect; skip += len) {
		if (!ccd_map_sector(g, bn + skip, &loc) || loc.cl_run == 0 || loc.cl_disk < 0 ||
		    loc.cl_disk >= g->cg_ndisks)
			return false;
		len = loc.cl_run < nsect - skip ? loc.cl_run : nsect - skip;
		piece(arg, &loc, skip, len);
	}
	return true;
}

struct range_fill {
	struct ccd_piece *pieces;
	size_t            max, n;
};

static void range_piece(void *arg, const struct ccd_loc *loc, uint64_t skip, uint64_t len)
{
	struct range_fill *f = arg;

	if (f->n < f->max)
		f->pieces[f->n] = (struct ccd_piece){ loc->cl_disk, loc->cl_sector, len, skip };
	f->n++;
}

size_t ccd_map_range(const struct ccd_geom *g, uint64_t bn, uint64_t nsect,
                     struct ccd_piece *pieces, size_t max)
{
	struct range_fill f = { pieces, max, 0 };

	return ccd_walk(g, bn, nsect, range_piece, &f) ? f.n : 0;
}

static void share_piece(void *arg, const struct ccd_loc *loc, uint64_t skip, uint64_t len)
{
	uint64_t *share = arg;

	(void)skip;
	share[loc->cl_disk] += len;
}

/*
 * Each component's share of a range (all 0 and false if the walk fails). The whole ccd holds
 * all of every component's usable sectors, and is answered without the walk: a cache flush
 * waits on the whole ccd (disk.c's disk_wait_note), and walking every stripe unit of two 2 GB
 * components (65,536 at the seed's 64 KB interleave, each with 64-bit divisions) took about
 * 80 ms of the flushing process's CPU under TCG, several times per fsync.
 */
bool ccd_map_share(const struct ccd_geom *g, uint64_t bn, uint64_t nsect, uint64_t *share)
{
	int i;

	if (bn == 0 && nsect == g->cg_size) {
		for (i = 0; i < g->cg_ndisks; i++)
			share[i] = g->cg_csize[i];
		return true;
	}
	for (i = 0; i < g->cg_ndisks; i++)
		share[i] = 0;
	if (ccd_walk(g, bn, nsect, share_piece, share))
		return true;
	for (i = 0; i < g->cg_ndisks; i++)
		share[i] = 0;
	return false;
}

/* Concatenation inverse: the ccd sector at usable sector cs of component disk. */
static uint64_t unmap_concat(const struct ccd_geom *g, int disk, uint64_t cs)
{
	return g->cg_cstart[disk] + cs;
}

/* LAB stripe BEGIN */
/* Striping inverse: the row holding component unit u, and the component's place in it. */
static bool unmap_stripe(const struct ccd_geom *g, int disk, uint64_t cs, uint64_t *bn)
{
	uint64_t u = cs / g->cg_ileave, cboff = cs % g->cg_ileave;
	const struct ccd_itab *row;
	int r, p;

	for (r = 0; r < g->cg_nrows; r++) {
		row = &g->cg_itab[r];
		if (u < row->ii_startoff || u >= row->ii_endoff)
			continue;
		for (p = 0; p < row->ii_ndisk; p++)
			if (row->ii_index[p] == disk) {
				*bn = (row->ii_startblk + (u - row->ii_startoff) * row->ii_ndisk + p) *
				      g->cg_ileave + cboff;
				return true;
			}
		return false;
	}
	return false;
}
/* LAB stripe STUB */
// /*
//  * Striping inverse: the ccd sector at usable sector cs of component disk, in *bn. Until
//  * this is written, the concatenation's (as map_stripe's fallback).
//  */
// static bool unmap_stripe(const struct ccd_geom *g, int disk, uint64_t cs, uint64_t *bn)
// {
// 	*bn = unmap_concat(g, disk, cs);
// 	return true;
// }
/* LAB stripe END */

bool ccd_unmap(const struct ccd_geom *g, int disk, uint64_t csector, uint64_t *bn)
{
	uint64_t cs;

	if (disk < 0 || disk >= g->cg_ndisks || csector < CCD_OFFSET)
		return false;
	cs = csector - CCD_OFFSET;
	if (cs >= g->cg_csize[disk])
		return false;
	if (g->cg_ileave == 0) {
		*bn = unmap_concat(g, disk, cs);
		return true;
	}
	return unmap_stripe(g, disk, cs, bn);
}
