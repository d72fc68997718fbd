/* ioctl(2) commands. Disk ioctls use FreeBSD's names. */
#ifndef _SYS_IOCTL_H_
#define _SYS_IOCTL_H_

#define DIOCGSECTORSIZE  0x6480   /* u_int: sector size in bytes */
#define DIOCGMEDIASIZE   0x6481   /* off_t: media size in bytes */
#define TIOCGETA         0x7413   /* console: get mode (int: bit 0 = echo, bit 1 = canonical) */
#define TIOCSETA         0x7414   /* console: set mode */
#define TIOCSPGRP        0x7476   /* console: int, the foreground process group ^C signals (0: none) */
#define TIOCGPGRP        0x7477   /* console: int, get it */

/* The console's mode bits (TIOCGETA/TIOCSETA); both set is the default, canonical mode. */
#define TTY_ECHO         0x1      /* echo input as it arrives */
#define TTY_CANON        0x2      /* line at a time, with backspace, ^U, ^C editing */

#endif
