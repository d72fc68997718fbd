/*
 * /dev/random and /dev/urandom (dev/random.c).
 *   random_init() - seed the generator and register both character devices (vfsinit calls it).
 */
#ifndef _DEV_RANDOM_H_
#define _DEV_RANDOM_H_

void random_init(void);

#endif
