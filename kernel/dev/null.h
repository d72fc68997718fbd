/*
 * /dev/null and /dev/zero (dev/null.c).
 *   null_init() - register both character devices (vfsinit calls it).
 */
#ifndef _DEV_NULL_H_
#define _DEV_NULL_H_

void null_init(void);

#endif
