/*
 * devfs: the /dev file system (vfs/devfs.c).
 *   devfs_init()                 - make the root of the "devfs" file-system type (VFS_SET in
 *                                  devfs.c names the type).
 *   devfs_disk_vnode(name, &vp)  - the vnode of disk `name` ("md0"), referenced: the device a
 *                                  file system is mounted from. ENXIO if there is no such disk.
 * Every disk registered with disk_register() and every character device registered with
 * cdev_register() appears in /dev under its name.
 */
#ifndef _VFS_DEVFS_H_
#define _VFS_DEVFS_H_

#include "kern/types.h"

struct vnode;

void devfs_init(void);
int  devfs_disk_vnode(const char *name, struct vnode **vpp);

#endif
