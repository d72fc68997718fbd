/*
 * vfs_conf.c - the table of file-system types and the mounting of the root (interface:
 * vfs/mount.h; FreeBSD 4 splits the same work between kern/vfs_init.c and kern/vfs_conf.c).
 *
 *   vfs_byname(name)    - the type called `name` ("wdfs", "devfs"), or NULL.
 *   vfs_mountroot(spec) - mount the root from the kernel command line's root= word: "da0"
 *                         tries every type that mounts from a device, in table order, until
 *                         one accepts the disk; "wdfs:da0" (FreeBSD's vfs.root.mountfrom
 *                         form) names the type. Then devfs is mounted on /dev.
 *
 * The table is the linker set "set_vfs" (kernel/kernel.ld collects it between __start_set_vfs
 * and __stop_set_vfs): each file system adds itself with VFS_SET() in its own source file, so
 * nothing in vfs/ names a particular disk file system. The set is read-only after linking, so
 * it needs no lock.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/vfs.h"
#include "vfs/devfs.h"
#include "dev/disk.h"
#include <sys/errno.h>

extern const struct vfsconf *__start_set_vfs[], *__stop_set_vfs[];

const struct vfsconf *vfs_byname(const char *name)
{
	const struct vfsconf **vfcp;

	for (vfcp = __start_set_vfs; vfcp < __stop_set_vfs; vfcp++)
		if (strcmp((*vfcp)->vfc_name, name) == 0)
			return *vfcp;
	return NULL;
}

/* Mount devfs on /dev of the new root, creating /dev if the image lacks it and can. */
static void mountroot_devfs(void)
{
	const struct vfsconf *vfc = vfs_byname("devfs");
	struct vnode *dvp;
	struct mount *mp;
	int error;

	error = VOP_LOOKUP(rootvnode, "dev", &dvp);
	if (error == ENOENT) {
		error = VOP_MKDIR(rootvnode, "dev", 0755, &dvp);
		if (error == 0)
			kprintf("vfs_mountroot: the root file system had no /dev; created it\n");
	}
	if (error != 0) {
		kprintf("vfs_mountroot: cannot find or create /dev (error %d): devices have no "
		        "names until devfs is mounted by hand\n", error);
		return;
	}
	if (dvp->v_type != VDIR) {
		kprintf("vfs_mountroot: /dev on the root file system is not a directory: devfs "
		        "not mounted\n");
		vrele(dvp);
		return;
	}
	error = vfc == NULL ? ENODEV : vfs_domount(vfc, NULL, dvp, 0, "devfs", "/dev", &mp);
	if (error != 0) {
		kprintf("vfs_mountroot: mounting devfs on /dev failed (error %d)\n", error);
		vrele(dvp);
	}
}

/* Print the disks there are, after a root= that names none of them. */
static void mountroot_list_disks(const char *devname)
{
	struct disk *dp;

	kprintf("vfs_mountroot: no disk named \"%s\"; disks are:", devname);
	for (dp = disk_first(); dp != NULL; dp = dp->d_next)
		kprintf(" %s", dp->d_name);
	kprintf("\n");
}

/*
 * Mount devvp as "/" with type vfc, or with each device-backed type in turn if vfc is NULL.
 * Consumes the reference on devvp on success.
 */
static int mountroot_try(const struct vfsconf *vfc, struct vnode *devvp, const char *from,
                         struct mount **mpp)
{
	const struct vfsconf **vfcp;
	int error = ENODEV;

	if (vfc != NULL)
		return vfs_domount(vfc, devvp, NULL, MNT_ROOTFS, from, "/", mpp);
	for (vfcp = __start_set_vfs; vfcp < __stop_set_vfs; vfcp++) {
		if ((*vfcp)->vfc_flags & VFCF_SYNTHETIC)
			continue;
		error = vfs_domount(*vfcp, devvp, NULL, MNT_ROOTFS, from, "/", mpp);
		if (error == 0)
			return 0;
	}
	return error;
}

/*
 * vfs_mountroot: mount the root file system named by `spec` ("md0", "wdfs:da0"), set
 * rootvnode, and mount devfs on /dev. Must run in a process context (the superblock read
 * sleeps for the disk). Returns 0, or an errno after printing why (no such type or disk,
 * corrupt file system...): the caller cannot go on without a root.
 */
int vfs_mountroot(const char *spec)
{
	const struct vfsconf *vfc = NULL;
	const char *devname = spec, *colon = strchr(spec, ':');
	struct vnode *devvp, *rvp;
	struct mount *mp;
	char type[MFSNAMELEN], from[MNAMELEN];
	int error;

	if (colon != NULL) {
		strlcpy(type, spec, MIN((size_t)(colon - spec) + 1, sizeof(type)));
		vfc = vfs_byname(type);
		if (vfc == NULL || (vfc->vfc_flags & VFCF_SYNTHETIC)) {
			kprintf("vfs_mountroot: \"%s\" is not a disk file-system type\n", type);
			return ENODEV;
		}
		devname = colon + 1;
	}
	error = devfs_disk_vnode(devname, &devvp);
	if (error != 0) {
		mountroot_list_disks(devname);
		return error;
	}
	snprintf(from, sizeof(from), "/dev/%s", devname);
	error = mountroot_try(vfc, devvp, from, &mp);
	if (error != 0)
		vrele(devvp);
	else
		error = mp->mnt_op->vfs_root(mp, &rvp);
	if (error != 0) {
		kprintf("vfs_mountroot: cannot mount %s as the root file system: error %d\n", from,
		        error);
		return error;
	}
	rootvnode = rvp;
	mountroot_devfs();
	kprintf("vfs_mountroot: mounted %s on / (%s)\n", from, mp->mnt_vfc->vfc_name);
	return 0;
}
