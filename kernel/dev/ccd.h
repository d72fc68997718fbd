/*
 * ccd: the concatenated/striped disk driver (FreeBSD's ccd(4)); implementation in dev/ccd.c.
 *   ccd_init() - register the control device /dev/ccd, through which ccdconfig(8) configures
 *                ccd0..ccd3 (sys/ccdvar.h). Call once at boot, after devfs_init(); the disks
 *                that will be components may attach before or after.
 * A configured unit is the disk ccd<N> (dev/disk.h), registered on its first configuration.
 */
#ifndef _DEV_CCD_H_
#define _DEV_CCD_H_

void ccd_init(void);

#endif
