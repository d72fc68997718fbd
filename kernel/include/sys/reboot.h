/* reboot(2) flags (FreeBSD's values). */
#ifndef _SYS_REBOOT_H_
#define _SYS_REBOOT_H_

#define RB_AUTOBOOT  0x0000
#define RB_HALT      0x0008
#define RB_POWEROFF  0x4000

#endif
