/*
 * ccd_map: the pure stripe arithmetic of ccd(4), the concatenated/striped disk (dev/ccd.c).
 * No kernel headers: host unit tests (tests/unit/test_ccd_map.c) compile ccd_map.c directly.
 *
 * All sizes and addresses are in DEV_BSIZE (512-byte) sectors, as FreeBSD's ccd counts them.
 * Each component reserves its first CCD_OFFSET sectors (FreeBSD kept the disklabel there), so
 * a component sector returned here already includes CCD_OFFSET.
 *
 *   ccd_geom_init(g, n, sizes, ileave, uniform)
 *       Lay out n components of the given raw sizes: each usable size is size - CCD_OFFSET,
 *       rounded down to a multiple of ileave; with `uniform` (CCDF_UNIFORM) every component is
 *       cut to the smallest, so the ccd holds n x smallest. Without it the interleave table
 *       (FreeBSD's ccdinterleave) uses all of every component: row r stripes over the
 *       components that still have space after the smaller ones ran out. ileave 0 means
 *       serial concatenation. Returns CCD_MAP_OK or a CCD_MAP_E* code.
 *   ccd_map_sector(g, bn, &loc)
 *       Where ccd sector bn lives: component, component sector, and how many sectors follow
 *       it in the same stripe unit (or, concatenated, on the same component).
 *   ccd_map_range(g, bn, nsect, pieces, max)
 *       Split the range [bn, bn+nsect) into per-component pieces in ccd order, none crossing a
 *       stripe-unit boundary (FreeBSD's ccdstart/ccdbuffer). Returns how many pieces the range
 *       needs and fills the first min(that, max); pass NULL, 0 to count. 0 if the range is
 *       empty or not inside the ccd.
 *   ccd_map_share(g, bn, nsect, share)
 *       How many sectors of the range [bn, bn+nsect) each component holds: share[i] for every
 *       component i (0 for those it does not reach). false, and all 0, if the range is not
 *       inside the ccd. What the buffer cache charges a write to (ccd.c's d_map).
 *   ccd_unmap(g, disk, csector, &bn)
 *       The inverse of ccd_map_sector: false if csector is in the reserved area or past the
 *       component's usable size.
 * A struct ccd_geom is plain data: no locking of its own (dev/ccd.c never changes one in use).
 */
#ifndef _DEV_CCD_MAP_H_
#define _DEV_CCD_MAP_H_

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define CCD_OFFSET     16          /* sectors reserved at the start of each component (ccd.c) */
#define CCD_MAXNDISKS  8           /* components per ccd */
#define CCD_MAXILEAVE  (1u << 20)  /* largest interleave, in sectors (512 MB units) */

enum ccd_map_error {
	CCD_MAP_OK = 0,
	CCD_MAP_ENDISKS,      /* not 1..CCD_MAXNDISKS components */
	CCD_MAP_EILEAVE,      /* interleave larger than CCD_MAXILEAVE */
	CCD_MAP_ESMALL,       /* a component has no usable sectors after CCD_OFFSET and rounding */
};

/* One row of the interleave table (FreeBSD's struct ccdiinfo). */
struct ccd_itab {
	uint64_t ii_startblk;              /* first ccd stripe unit of the row */
	uint64_t ii_startoff;              /* first unit, on each of its components, of the row */
	uint64_t ii_endoff;                /* one past its last unit on each component */
	int      ii_ndisk;                 /* components striped over in this row */
	int      ii_index[CCD_MAXNDISKS];  /* which, in component order */
};

struct ccd_geom {
	int             cg_ndisks;
	uint32_t        cg_ileave;                 /* sectors per stripe unit; 0 = concatenation */
	uint64_t        cg_csize[CCD_MAXNDISKS];   /* usable sectors of each component */
	uint64_t        cg_cstart[CCD_MAXNDISKS];  /* concatenation: first ccd sector of each */
	uint64_t        cg_size;                   /* sectors of the ccd */
	int             cg_nrows;
	struct ccd_itab cg_itab[CCD_MAXNDISKS];
};

struct ccd_loc {
	int      cl_disk;      /* component index */
	uint64_t cl_sector;    /* sector on the component (CCD_OFFSET included) */
	uint64_t cl_run;       /* sectors from here to the end of the stripe unit / component */
};

struct ccd_piece {
	int      cp_disk;      /* component index */
	uint64_t cp_sector;    /* first sector on the component (CCD_OFFSET included) */
	uint64_t cp_nsect;     /* length in sectors */
	uint64_t cp_skip;      /* sectors of the request before this piece */
};

int    ccd_geom_init(struct ccd_geom *g, int ndisks, const uint64_t *sizes, uint32_t ileave,
                     bool uniform);
bool   ccd_map_sector(const struct ccd_geom *g, uint64_t bn, struct ccd_loc *loc);
size_t ccd_map_range(const struct ccd_geom *g, uint64_t bn, uint64_t nsect,
                     struct ccd_piece *pieces, size_t max);
bool   ccd_map_share(const struct ccd_geom *g, uint64_t bn, uint64_t nsect, uint64_t *share);
bool   ccd_unmap(const struct ccd_geom *g, int disk, uint64_t csector, uint64_t *bn);

#endif
