/* mount(2) flags. */
#ifndef _SYS_MOUNT_H_
#define _SYS_MOUNT_H_

#define MNT_RDONLY  0x0001
#define MNT_FORCE   0x80000

#endif
