/*
 * vfs_mount.c - file-system types, the mount list, mounting the root, mount(2)/unmount(2),
 * sync(2)'s walk over the mounts, and the shutdown unmount (interface: vfs/mount.h, vfs/vfs.h).
 *
 *   vfs_register(ops) / vfs_byname(name) - the table of file-system types ("wdfs", "devfs").
 *   vfs_mountroot(devname) - mount /dev/<devname> as "/", then devfs on /dev.
 *   mount(fstype, dir, flags, data) - data is the device's path ("/dev/da1"); ignored for devfs.
 *   unmount(dir, flags)    - dir must be the root of a mounted file system.
 *   mount_first()          - the newest mount; follow mnt_next for older ones (the root is last).
 *
 * A mount covers a directory: mnt_vnodecovered holds a reference on it and the directory's
 * v_mountedhere points back. The mount keeps the reference on its device vnode (mnt_devvp).
 *
 * Locking: mountlist_lock (a sleeplock) serializes mount, unmount and walks of the mount list
 * that call into file systems (sync). The list itself changes only under it.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "kern/file.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/buf.h"
#include "vfs/vfs.h"
#include "vfs/devfs.h"
#include "dev/disk.h"
#include <sys/mount.h>
#include "vm/vm_object.h"
#include <sys/errno.h>

#define MAXVFSCONF 8
#define MFSNAMELEN 16          /* longest file-system type name, NUL included */

static struct vfsops *vfsconf[MAXVFSCONF];
static int nvfsconf;

static struct mount *mountlist;        /* newest first (mountlist_lock) */
static struct sleeplock mountlist_lock;

void vfs_mount_init(void)
{
	sleeplock_init(&mountlist_lock, "mount");
}

/* vfs_register: make a file-system type known by its vfs_name. */
void vfs_register(struct vfsops *ops)
{
	if (nvfsconf == MAXVFSCONF)
		panic("vfs_register: more than %d file-system types", MAXVFSCONF);
	vfsconf[nvfsconf++] = ops;
}

/* vfs_byname: the file-system type called `name`, or NULL. */
struct vfsops *vfs_byname(const char *name)
{
	int i;

	for (i = 0; i < nvfsconf; i++)
		if (strcmp(vfsconf[i]->vfs_name, name) == 0)
			return vfsconf[i];
	return NULL;
}

struct mount *mount_first(void)
{
	return mountlist;
}

/*
 * Mount a file system of type ops from devvp (may be NULL for devfs) on directory covered
 * (NULL for the root). Consumes the references on devvp and covered on success.
 * mountlist_lock held.
 */
static int vfs_domount(struct vfsops *ops, struct vnode *devvp, struct vnode *covered, int flags,
                       const char *from, const char *on, struct mount **mpp)
{
	struct mount *mp;
	int error;

	mp = kmalloc(sizeof(*mp), M_WAITOK | M_ZERO);
	if (mp == NULL)
		return ENOMEM;
	mp->mnt_op = ops;
	mp->mnt_devvp = devvp;
	mp->mnt_flag = flags & MNT_RDONLY;
	strlcpy(mp->mnt_stat.f_fstypename, ops->vfs_name, sizeof(mp->mnt_stat.f_fstypename));
	strlcpy(mp->mnt_stat.f_mntfromname, from, sizeof(mp->mnt_stat.f_mntfromname));
	strlcpy(mp->mnt_stat.f_mntonname, on, sizeof(mp->mnt_stat.f_mntonname));
	/* The device is in use while mounted (a ccd cannot take it, and one it holds is refused). */
	error = devvp != NULL ? VOP_OPEN(devvp, FREAD | FWRITE) : 0;
	if (error == 0) {
		error = ops->vfs_mount(mp, devvp);
		if (error != 0 && devvp != NULL)
			VOP_CLOSE(devvp, FREAD | FWRITE);
	}
	if (error != 0) {
		kfree(mp);
		return error;
	}
	mp->mnt_vnodecovered = covered;
	if (covered != NULL)
		covered->v_mountedhere = mp;
	mp->mnt_next = mountlist;
	mountlist = mp;
	*mpp = mp;
	return 0;
}

/* Is disk dp already holding a mounted file system? mountlist_lock held. */
static bool disk_is_mounted(struct disk *dp)
{
	struct mount *mp;

	for (mp = mountlist; mp != NULL; mp = mp->mnt_next)
		if (mp->mnt_devvp != NULL && mp->mnt_devvp->v_disk == dp)
			return true;
	return false;
}

/* Mount devfs on /dev of the new root, creating /dev if the image lacks it and can. */
static void mountroot_devfs(void)
{
	struct vnode *dvp, *vp;
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
	vp = dvp;
	error = vfs_domount(&devfs_vfsops, NULL, vp, 0, "devfs", "/dev", &mp);
	if (error != 0) {
		kprintf("vfs_mountroot: mounting devfs on /dev failed (error %d)\n", error);
		vrele(vp);
	}
}

/*
 * vfs_mountroot: mount disk `devname` ("md0") as the root file system (type wdfs), set
 * rootvnode, and mount devfs on /dev. Must run in a process context (the superblock read
 * sleeps for the disk). Returns 0, or an errno after printing why (no such disk, corrupt
 * file system...): the caller cannot go on without a root.
 */
int vfs_mountroot(const char *devname)
{
	struct vfsops *ops = vfs_byname("wdfs");
	struct vnode *devvp, *rvp;
	struct mount *mp;
	struct disk *dp;
	char from[32];
	int error;

	error = devfs_disk_vnode(devname, &devvp);
	if (error != 0) {
		kprintf("vfs_mountroot: no disk named \"%s\"; disks are:", devname);
		for (dp = disk_first(); dp != NULL; dp = dp->d_next)
			kprintf(" %s", dp->d_name);
		kprintf("\n");
		return error;
	}
	snprintf(from, sizeof(from), "/dev/%s", devname);
	sleeplock_acquire(&mountlist_lock);
	error = ops == NULL ? ENODEV : vfs_domount(ops, devvp, NULL, 0, from, "/", &mp);
	if (error != 0)
		vrele(devvp);
	else
		error = mp->mnt_op->vfs_root(mp, &rvp);
	if (error != 0) {
		sleeplock_release(&mountlist_lock);
		kprintf("vfs_mountroot: cannot mount %s as the root file system (wdfs): error %d\n",
		        from, error);
		return error;
	}
	rootvnode = rvp;
	mountroot_devfs();
	sleeplock_release(&mountlist_lock);
	kprintf("vfs_mountroot: mounted %s on / (wdfs)\n", from);
	return 0;
}

/* Copy in a user string of at most `max` bytes (NUL included) into a new kmalloc'd buffer. */
static int copyin_string(const void *uaddr, size_t max, char **kp)
{
	char *k = kmalloc(max, M_WAITOK);
	int error;

	if (k == NULL)
		return ENOMEM;
	error = copyinstr(uaddr, k, max, NULL);
	if (error != 0) {
		kfree(k);
		return error;
	}
	*kp = k;
	return 0;
}

/*
 * The device vnode for mounting from `devpath`: a disk (ENOTBLK otherwise) that holds no
 * mounted file system (EBUSY). mountlist_lock held.
 */
static int mount_device(const char *devpath, struct vnode **devvpp)
{
	struct vnode *devvp;
	int error;

	error = namei(devpath, &devvp);
	if (error != 0)
		return error;
	if (devvp->v_disk == NULL)
		error = ENOTBLK;
	else if (disk_is_mounted(devvp->v_disk))
		error = EBUSY;
	if (error != 0) {
		vrele(devvp);
		return error;
	}
	*devvpp = devvp;
	return 0;
}

/* mount(fstype, dir, flags, data): mount the file system on device path `data` on `dir`. */
int sys_mount(register_t *args, register_t *rv)
{
	char *fstype = NULL, *dir = NULL, *dev = NULL;
	struct vnode *dvp = NULL, *devvp = NULL;
	struct vfsops *ops;
	struct mount *mp;
	int flags = (int)args[2];
	int error;

	*rv = 0;
	error = copyin_string((const void *)args[0], MFSNAMELEN, &fstype);
	if (error == 0)
		error = copyin_string((const void *)args[1], PATH_MAX, &dir);
	if (error != 0)
		goto out;
	ops = vfs_byname(fstype);
	if (ops == NULL) {
		error = ENODEV;
		goto out;
	}
	if (ops != &devfs_vfsops) {
		error = copyin_string((const void *)args[3], PATH_MAX, &dev);
		if (error != 0)
			goto out;
	}
	sleeplock_acquire(&mountlist_lock);
	error = namei(dir, &dvp);
	if (error == 0 && dvp->v_type != VDIR)
		error = ENOTDIR;
	else if (error == 0 && dvp->v_mountedhere != NULL)
		error = EBUSY;
	if (error == 0 && dev != NULL)
		error = mount_device(dev, &devvp);
	if (error == 0)
		error = vfs_domount(ops, devvp, dvp, flags, dev != NULL ? dev : fstype, dir, &mp);
	sleeplock_release(&mountlist_lock);
	if (error != 0) {
		if (devvp != NULL)
			vrele(devvp);
		if (dvp != NULL)
			vrele(dvp);
	}
out:
	kfree(fstype);
	kfree(dir);
	kfree(dev);
	return error;
}

/*
 * Unmount mp: sync it, reclaim its vnodes (EBUSY if any is in use: wdfs has no forced
 * unmount of open files), and let the file system release it. mountlist_lock held.
 */
static int dounmount(struct mount *mp, int flags)
{
	struct mount **mpp, *other;
	struct vnode *covered;
	int error;

	for (other = mountlist; other != NULL; other = other->mnt_next)
		if (other->mnt_vnodecovered != NULL && other->mnt_vnodecovered->v_mount == mp)
			return EBUSY;
	error = mp->mnt_op->vfs_sync(mp, MNT_WAIT);
	if (error == 0)
		error = vflush(mp);
	if (error == 0)
		error = mp->mnt_op->vfs_unmount(mp, flags);
	if (error != 0)
		return error;
	if (mp->mnt_devvp != NULL) {
		vinvalbuf(mp->mnt_devvp, V_SAVE);
		VOP_CLOSE(mp->mnt_devvp, FREAD | FWRITE);
		vrele(mp->mnt_devvp);
	}
	for (mpp = &mountlist; *mpp != mp; mpp = &(*mpp)->mnt_next)
		continue;
	*mpp = mp->mnt_next;
	covered = mp->mnt_vnodecovered;
	if (covered != NULL) {
		covered->v_mountedhere = NULL;
		vrele(covered);
	}
	kfree(mp);
	return 0;
}

/* unmount(dir, flags): dir must be the root directory of a mounted file system other than /. */
int sys_unmount(register_t *args, register_t *rv)
{
	struct vnode *vp;
	struct mount *mp;
	char *dir;
	int error;

	*rv = 0;
	error = copyin_string((const void *)args[0], PATH_MAX, &dir);
	if (error != 0)
		return error;
	sleeplock_acquire(&mountlist_lock);
	error = namei(dir, &vp);
	kfree(dir);
	if (error != 0)
		goto out;
	mp = vp->v_mount;
	if (!vn_isroot(vp))
		error = EINVAL;
	else if (mp->mnt_vnodecovered == NULL)
		error = EBUSY;        /* the root file system stays until shutdown */
	vrele(vp);
	if (error == 0)
		error = dounmount(mp, (int)args[1]);
out:
	sleeplock_release(&mountlist_lock);
	return error;
}

/*
 * vfs_sync_all: sync(2). VFS_SYNC every mount (metadata into buffers), start writes of every
 * dirty buffer, and with MNT_WAIT wait for them and ask each mounted disk to flush its cache.
 */
int vfs_sync_all(int waitfor)
{
	struct mount *mp;
	int error;

	vm_object_sync_all();                  /* dirty mmap'd pages into the files first */
	sleeplock_acquire(&mountlist_lock);
	for (mp = mountlist; mp != NULL; mp = mp->mnt_next) {
		error = mp->mnt_op->vfs_sync(mp, waitfor);
		if (error != 0)
			kprintf("sync: %s: error %d\n", mp->mnt_stat.f_mntonname, error);
	}
	bufsync_all(waitfor);
	if (waitfor == MNT_WAIT)
		for (mp = mountlist; mp != NULL; mp = mp->mnt_next)
			if (mp->mnt_devvp != NULL && mp->mnt_devvp->v_disk != NULL)
				disk_io_sync(mp->mnt_devvp->v_disk, BIO_FLUSH, 0, NULL, 0);
	sleeplock_release(&mountlist_lock);
	return 0;
}

/* vfs_sync_lazy: the syncer's periodic VFS_SYNC(MNT_NOWAIT) of each mount. */
void vfs_sync_lazy(void)
{
	struct mount *mp;

	vm_object_sync_all();                  /* FreeBSD's syncer: vfs_msync, then the sync */
	sleeplock_acquire(&mountlist_lock);
	for (mp = mountlist; mp != NULL; mp = mp->mnt_next)
		mp->mnt_op->vfs_sync(mp, MNT_NOWAIT);
	sleeplock_release(&mountlist_lock);
}

/*
 * vfs_shutdown: called by reboot(2). Sync everything and wait, then unmount every file system,
 * newest first. One still in use (the root always is: processes hold its vnodes) is synced
 * and handed to its vfs_unmount with MNT_FORCE in place, so it can mark itself clean; no
 * file-system operation follows. Returns 0, or the last error (already printed).
 */
int vfs_shutdown(void)
{
	struct mount *mp;
	int error, result = 0;

	kprintf("syncing disks... ");
	vfs_sync_all(MNT_WAIT);
	sleeplock_acquire(&mountlist_lock);
	while ((mp = mountlist) != NULL) {
		error = mp->mnt_vnodecovered != NULL ? dounmount(mp, 0) : EBUSY;
		if (error == 0)
			continue;
		mp->mnt_op->vfs_sync(mp, MNT_WAIT);
		error = mp->mnt_op->vfs_unmount(mp, MNT_FORCE);
		if (error == 0 && mp->mnt_devvp != NULL)
			error = vinvalbuf(mp->mnt_devvp, V_SAVE);
		if (error != 0) {
			kprintf("\nvfs_shutdown: unmounting %s failed (error %d) ",
			        mp->mnt_stat.f_mntonname, error);
			result = error;
		}
		mountlist = mp->mnt_next;
	}
	sleeplock_release(&mountlist_lock);
	kprintf("done\n");
	return result;
}
