/*
 * ccd(4) configuration ABI, shared by the kernel (dev/ccd.c) and ccdconfig(8).
 *
 * FreeBSD configures a ccd with ioctl(CCDIOCSET/CCDIOCCLR) on the ccd device. wdrain's
 * ioctl(2) copies only small fixed-size arguments, so the same requests travel through the
 * control device /dev/ccd instead:
 *   write(fd, &ccio, sizeof ccio)   ccio_cmd = CCDIOCSET: configure ccd<ccio_unit> from
 *                                   ccio_ileave, ccio_flags and the ccio_ndisks component disk
 *                                   names (e.g. "da1", without "/dev/"); CCDIOCCLR: unconfigure
 *                                   ccd<ccio_unit>. The write returns sizeof ccio or fails with
 *                                   the error (see ccd(4) errors in dev/ccd.c).
 *   read(fd, buf, n)                one struct ccd_ioctl per unit, ccd0 first (CCD_MAXUNITS in
 *                                   all); an unconfigured unit has ccio_ndisks 0. ccio_size is
 *                                   the ccd's size in DEV_BSIZE sectors.
 * ccio_ileave is in DEV_BSIZE (512-byte) sectors, as in FreeBSD; 0 means concatenation.
 */
#ifndef _SYS_CCDVAR_H_
#define _SYS_CCDVAR_H_

#include <sys/types.h>

#define CCD_MAXUNITS   4       /* ccd0 .. ccd3 */
#define CCD_MAXDISKS   8       /* components per ccd */
#define CCD_NAMELEN    16      /* component disk name, NUL included */

/* ccio_cmd */
#define CCDIOCSET      1       /* configure */
#define CCDIOCCLR      2       /* unconfigure */

/* ccio_flags: FreeBSD's values. Mirroring and parity are not supported (ENODEV). */
#define CCDF_UNIFORM   0x02    /* use the smallest component's size on every component */
#define CCDF_MIRROR    0x04    /* FreeBSD: mirror pairs of components */
#define CCDF_PARITY    0x08    /* FreeBSD: parity block mapping */

struct ccd_ioctl {
	int32_t  ccio_cmd;                            /* CCDIOCSET or CCDIOCCLR (write) */
	int32_t  ccio_unit;                           /* 0 .. CCD_MAXUNITS-1 */
	int32_t  ccio_ileave;                         /* interleave, in 512-byte sectors */
	int32_t  ccio_flags;                          /* CCDF_* */
	int32_t  ccio_ndisks;                         /* 1 .. CCD_MAXDISKS (0: unconfigured) */
	int32_t  ccio_pad;
	int64_t  ccio_size;                           /* read: size in 512-byte sectors */
	char     ccio_disks[CCD_MAXDISKS][CCD_NAMELEN];
};

#endif
