/*
 * Character devices (console, null, zero): a switch of entry points, as FreeBSD's cdevsw.
 * devfs shows each registered device as /dev/<name>; disks (dev/disk.h) appear there too.
 */
#ifndef _DEV_CDEV_H_
#define _DEV_CDEV_H_

#include "kern/types.h"
#include "kern/uio.h"

struct cdevsw {
	const char *d_name;
	int (*d_open)(void *arg, int fflag);
	int (*d_close)(void *arg, int fflag);
	int (*d_read)(void *arg, struct uio *uio, int ioflag);
	int (*d_write)(void *arg, struct uio *uio, int ioflag);
	int (*d_ioctl)(void *arg, u_long cmd, void *data, int fflag);
	int (*d_poll)(void *arg, int events);   /* poll(2)'s events that hold; NULL: always ready */
};

void cdev_register(struct cdevsw *sw, void *arg);    /* the name is sw->d_name */

#endif
