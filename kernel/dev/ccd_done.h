/*
 * ccd_done: the completion of a ccd request split into pieces (FreeBSD's ccdiodone, in
 * sys/dev/ccd/ccd.c), as pure code: no kernel headers, so tests/unit/test_ccd_done.c compiles
 * ccd_done.c directly and runs it on two threads at once.
 *
 * A parent request is split into n pieces, each a request of its own to one component; they
 * complete in any order, on any CPU, several at once (two disks' interrupts may be handled on
 * two CPUs). The parent completes once, after its last piece, with the first error any piece
 * reported.
 *
 *   ccd_count_init(c, n)
 *       A parent of n pieces, none completed, no error. Before any piece is issued.
 *   ccd_piece_done(c, error)
 *       One piece has completed with `error` (0, or an errno). Returns a mask:
 *         CCD_DONE_FIRST_ERROR  this piece's error is the first any piece of the parent
 *                               reported, and is now c->cc_error (the caller reports it);
 *         CCD_DONE_LAST         this call completed the last piece: exactly one call per
 *                               parent returns it, and it sees every piece's error recorded
 *                               (the caller completes the parent).
 *       Any context; never sleeps; safe on several CPUs at once without a lock.
 *
 * Lab stripe (labs/stripe/README.md) writes ccd_piece_done.
 */
#ifndef _DEV_CCD_DONE_H_
#define _DEV_CCD_DONE_H_

#define CCD_DONE_FIRST_ERROR 0x1
#define CCD_DONE_LAST        0x2

struct ccd_count {
	int cc_pending;        /* pieces not yet completed */
	int cc_error;          /* the first error a piece reported, 0 if none */
};

void ccd_count_init(struct ccd_count *c, int n);
int  ccd_piece_done(struct ccd_count *c, int error);

#endif
