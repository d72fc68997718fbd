/*
 * devfs: the /dev file system (vfs/devfs.c).
 *   devfs_init()                 - make the root of the "devfs" file-system type (VFS_SET in
 *                                  devfs.c names the type).
 *   devfs_disk_vnode(name, &vp)  - the vnode of disk `name` ("md0"), referenced: the device a
 *                                  file system is mounted from. ENXIO if there is no such disk.
 *   devfs_rdev_vnode(rdev, &vp)  - the vnode of the device numbered rdev (makedev(major, minor),
 *                                  as st_rdev reports it), referenced: what a device node made
 *                                  by mknod(2) elsewhere opens. ENXIO if there is none.
 * Every disk registered with disk_register() and every character device registered with
 * cdev_register() appears in /dev under its name.
 */
#ifndef _VFS_DEVFS_H_
#define _VFS_DEVFS_H_

#include "kern/types.h"

struct vnode;

void devfs_init(void);
int  devfs_disk_vnode(const char *name, struct vnode **vpp);
int  devfs_rdev_vnode(dev_t rdev, struct vnode **vpp);

#endif
