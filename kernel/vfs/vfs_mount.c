/*
 * vfs_mount.c - the mount list and its busy marks, mount(2)/unmount(2), getfsstat(2), sync(2)'s
 * walk over the mounts, and the shutdown unmount (interface: vfs/mount.h, vfs/vfs.h,
 * <sys/mount.h>; the table of types and the root mount are vfs_conf.c).
 *
 *   vfs_domount(vfc, devvp, covered, flags, from, on, &mp) - mount a file system (mount(2) and
 *                          the root); vfs_statfs_fill(mp, &sb) - a mount's struct statfs.
 *   mount(fstype, dir, flags, data) - root only (EPERM). data is the device's path
 *                          ("/dev/da1"); ignored for devfs and with MNT_UPDATE, which changes
 *                          the mount whose root dir is (EINVAL if dir is no mount's root)
 *                          between read-only and read-write (mount_update).
 *                          ENODEV (no such type), ENOTDIR, ENOTBLK (not a disk), ENXIO
 *                          (a disk of size 0: an unconfigured ccd), EBUSY (dir already has a
 *                          mount, or the disk is mounted or open), EINVAL (unknown flags), and
 *                          the file system's own refusals (EINVAL/EFTYPE for a bad superblock,
 *                          EPERM for an unclean one mounted read-write without MNT_FORCE).
 *   unmount(dir, flags)  - root only (EPERM); dir must be the root of a mounted file system (EINVAL otherwise;
 *                          EBUSY for "/", for a file system in use or with mounts inside it).
 *   getfsstat(buf, size, flags) - every mount, oldest ("/") first.
 *
 * A mount covers a directory: mnt_vnodecovered holds a reference on it and the directory's
 * v_mountedhere points back. The mount keeps the reference on its device vnode (mnt_devvp).
 *
 * Locking: mountlist_mtx (a spinlock) protects the list, each mount's mnt_kern_flag and
 * mnt_busy, and v_mountedhere; it is never held across a call into a file system. Whoever
 * works in a mount without holding one of its vnodes (sync, getfsstat, a lookup crossing
 * into it) marks it busy first (vfs_busy, FreeBSD 4's kern/vfs_subr.c vfs_busy with its
 * MNTK_UNMOUNT/MNTK_MWAIT protocol); an unmount sets MNTK_UNMOUNT, which makes new
 * vfs_busy calls fail, and waits for the busy count to drain. A mount being set up is on the
 * list with MNTK_MOUNTING, so a second mount of the same disk or directory sees it. So no
 * global lock is held across I/O, and a long sync of one file system does not hold up mounts,
 * unmounts or lookups elsewhere.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "kern/file.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/buf.h"
#include "vfs/vfs.h"
#include "dev/disk.h"
#include "vm/vm_object.h"
#include <sys/errno.h>

#define MOUNT_USERFLAGS (MNT_RDONLY | MNT_FORCE | MNT_UPDATE | MNT_NOCLUSTERR | MNT_NOCLUSTERW) /* mount(2)'s */
#define MOUNT_UPDFLAGS  (MNT_RDONLY | MNT_NOCLUSTERR | MNT_NOCLUSTERW)  /* what mount -u changes */

static struct mount *mountlist;        /* oldest first (mountlist_mtx) */
static struct spinlock mountlist_mtx;

void vfs_mount_init(void)
{
	spin_init(&mountlist_mtx, "mountlist");
}

/* ---- busy marks (mountlist_mtx held) --------------------------------------------------------- */

/*
 * Mark mp busy. Fails with ENOENT while it is being mounted or unmounted: at once with
 * LK_NOWAIT, else after sleeping until that ends (mp may then be gone: do not touch it).
 */
static int vfs_busy_locked(struct mount *mp, int flags)
{
	if (mp->mnt_kern_flag & (MNTK_MOUNTING | MNTK_UNMOUNT)) {
		if (flags & LK_NOWAIT)
			return ENOENT;
		mp->mnt_kern_flag |= MNTK_MWAIT;
		msleep(mp, &mountlist_mtx, 0, "vfsbsy", 0);
		return ENOENT;
	}
	mp->mnt_busy++;
	return 0;
}

static void vfs_unbusy_locked(struct mount *mp)
{
	KASSERT(mp->mnt_busy > 0, "vfs_unbusy: mount not busy");
	if (--mp->mnt_busy == 0 && (mp->mnt_kern_flag & MNTK_UNMOUNT))
		wakeup(&mp->mnt_busy);
}

/* A mount or unmount of mp ended: wake those that slept in vfs_busy. */
static void vfs_busy_done_locked(struct mount *mp)
{
	if (mp->mnt_kern_flag & MNTK_MWAIT) {
		mp->mnt_kern_flag &= ~MNTK_MWAIT;
		wakeup(mp);
	}
}

/* vfs_busy: for a caller that keeps mp from being freed meanwhile (it holds one of its vnodes). */
int vfs_busy(struct mount *mp, int flags)
{
	int error;

	spin_lock(&mountlist_mtx);
	error = vfs_busy_locked(mp, flags);
	spin_unlock(&mountlist_mtx);
	return error;
}

void vfs_unbusy(struct mount *mp)
{
	spin_lock(&mountlist_mtx);
	vfs_unbusy_locked(mp);
	spin_unlock(&mountlist_mtx);
}

/*
 * vfs_busy_mountedhere: the mount on directory vp, busied, or NULL if there is none. Waits out
 * an unmount in progress (the lookup then sees the directory itself if it succeeded).
 */
struct mount *vfs_busy_mountedhere(struct vnode *vp)
{
	struct mount *mp;

	spin_lock(&mountlist_mtx);
	while ((mp = vp->v_mountedhere) != NULL && vfs_busy_locked(mp, 0) != 0)
		continue;
	spin_unlock(&mountlist_mtx);
	return mp;
}

/* ---- mounting -------------------------------------------------------------------------------- */

/* Would a mount on `covered` from disk dp clash with one on the list? mountlist_mtx held. */
static int mount_conflict(struct vnode *covered, struct disk *dp)
{
	struct mount *mp;

	if (covered != NULL && covered->v_mountedhere != NULL)
		return EBUSY;
	for (mp = mountlist; mp != NULL; mp = mp->mnt_next) {
		if (covered != NULL && mp->mnt_vnodecovered == covered)
			return EBUSY;
		if (dp != NULL && mp->mnt_devvp != NULL && mp->mnt_devvp->v_disk == dp)
			return EBUSY;
	}
	return 0;
}

static void mountlist_append(struct mount *mp)
{
	struct mount **mpp;

	for (mpp = &mountlist; *mpp != NULL; mpp = &(*mpp)->mnt_next)
		continue;
	*mpp = mp;
}

static void mountlist_remove(struct mount *mp)
{
	struct mount **mpp;

	for (mpp = &mountlist; *mpp != mp; mpp = &(*mpp)->mnt_next)
		continue;
	*mpp = mp->mnt_next;
}

/*
 * vfs_domount: mount a file system of type vfc from devvp (NULL for a synthetic type) on
 * directory `covered` (NULL for the root). flags: MNT_RDONLY, MNT_FORCE (passed to vfs_mount
 * only), MNT_ROOTFS. `from` and `on` are the names statfs reports. Consumes the references on
 * devvp and covered on success.
 */
int vfs_domount(const struct vfsconf *vfc, struct vnode *devvp, struct vnode *covered, int flags,
                const char *from, const char *on, struct mount **mpp)
{
	struct mount *mp;
	int error;

	mp = kmalloc(sizeof(*mp), M_WAITOK | M_ZERO);
	if (mp == NULL)
		return ENOMEM;
	mp->mnt_vfc = vfc;
	mp->mnt_op = vfc->vfc_vfsops;
	mp->mnt_devvp = devvp;
	mp->mnt_vnodecovered = covered;
	mp->mnt_flag = (int)(flags & (MNT_RDONLY | MNT_FORCE | MNT_ROOTFS | MNT_NOCLUSTERR | MNT_NOCLUSTERW)) |
	               MNT_LOCAL;
	mp->mnt_kern_flag = MNTK_MOUNTING;
	strlcpy(mp->mnt_fromname, from, sizeof(mp->mnt_fromname));
	strlcpy(mp->mnt_onname, on, sizeof(mp->mnt_onname));

	spin_lock(&mountlist_mtx);
	error = mount_conflict(covered, devvp != NULL ? devvp->v_disk : NULL);
	if (error == 0)
		mountlist_append(mp);
	spin_unlock(&mountlist_mtx);
	if (error != 0) {
		kfree(mp);
		return error;
	}

	/* The device is in use while mounted (a ccd cannot take it, and one it holds is refused). */
	error = devvp != NULL ? VOP_OPEN(devvp, FREAD | FWRITE) : 0;
	if (error == 0) {
		error = mp->mnt_op->vfs_mount(mp, devvp);
		if (error != 0 && devvp != NULL)
			VOP_CLOSE(devvp, FREAD | FWRITE);
	}

	spin_lock(&mountlist_mtx);
	mp->mnt_flag &= ~MNT_FORCE;
	if (error != 0) {
		mountlist_remove(mp);
	} else {
		mp->mnt_kern_flag &= ~MNTK_MOUNTING;
		if (covered != NULL)
			covered->v_mountedhere = mp;
		if (devvp != NULL)
			mp->mnt_writeerrs_told = devvp->v_writeerrs;   /* earlier failures are not its */
	}
	vfs_busy_done_locked(mp);
	spin_unlock(&mountlist_mtx);
	if (error != 0) {
		kfree(mp);
		return error;
	}
	*mpp = mp;
	return 0;
}

/*
 * The device vnode for mounting from `devpath`: a disk (ENOTBLK otherwise) with a medium
 * (ENXIO) that nobody has open (EBUSY: an open file, a ccd component or a mount, as FreeBSD 4's
 * ffs_mountfs refuses a device with vcount > 1; the block layer counts the opens).
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
	else if (devvp->v_disk->d_mediasize == 0)
		error = ENXIO;
	else if (disk_in_use(devvp->v_disk))
		error = EBUSY;
	if (error != 0) {
		vrele(devvp);
		return error;
	}
	*devvpp = devvp;
	return 0;
}

/*
 * mount -u (MNT_UPDATE): change the mount whose root is `dir` between read-only and read-write
 * (and its clustering flags), as FreeBSD 4's mount(2) does with MNT_UPDATE: EINVAL unless dir
 * is the root of a mount, EBUSY while it is being unmounted, EOPNOTSUPP for a type that cannot
 * (devfs), then the file system's answer (vfs_update). Dirty pages of mapped files are written
 * into their files first, so a switch to read-only finds them in the buffers it flushes.
 */
static int mount_update(const char *dir, int flags)
{
	struct vnode *vp;
	struct mount *mp;
	int error;

	error = namei(dir, &vp);
	if (error != 0)
		return error;
	mp = vp->v_mount;
	if (mp == NULL || !vn_isroot(vp))
		error = EINVAL;
	else if (vfs_busy(mp, LK_NOWAIT) != 0)
		error = EBUSY;
	vrele(vp);
	if (error != 0)
		return error;
	if (mp->mnt_op->vfs_update == NULL) {
		error = EOPNOTSUPP;
	} else {
		if (flags & MNT_RDONLY)
			vm_object_sync_all();
		error = mp->mnt_op->vfs_update(mp, flags);
	}
	if (error == 0) {
		spin_lock(&mountlist_mtx);
		mp->mnt_flag = (mp->mnt_flag & ~MOUNT_UPDFLAGS) | (flags & MOUNT_UPDFLAGS);
		spin_unlock(&mountlist_mtx);
	}
	vfs_unbusy(mp);
	return error;
}

/* mount(fstype, dir, flags, data): mount the file system on device path `data` on `dir`. */
int sys_mount(register_t *args, register_t *rv)
{
	char *fstype = NULL, *dir = NULL, *dev = NULL;
	char from[MNAMELEN], *on = NULL;
	struct vnode *dvp = NULL, *devvp = NULL;
	const struct vfsconf *vfc;
	struct mount *mp;
	int flags = (int)args[2];
	int error;

	*rv = 0;
	error = suser(cred_cur());             /* FreeBSD 4 without vfs.usermount */
	if (error != 0)
		return error;
	if (flags & ~MOUNT_USERFLAGS)
		return EINVAL;
	if (flags & MNT_UPDATE) {
		error = vfs_copyinstr(args[1], PATH_MAX, &dir);
		if (error == 0)
			error = mount_update(dir, flags);
		kfree(dir);
		return error;
	}
	error = vfs_copyinstr(args[0], MFSNAMELEN, &fstype);
	if (error == 0)
		error = vfs_copyinstr(args[1], PATH_MAX, &dir);
	if (error != 0)
		goto out;
	vfc = vfs_byname(fstype);
	if (vfc == NULL) {
		error = ENODEV;
		goto out;
	}
	if (!(vfc->vfc_flags & VFCF_SYNTHETIC)) {
		error = vfs_copyinstr(args[3], PATH_MAX, &dev);
		if (error != 0)
			goto out;
	}
	error = namei(dir, &dvp);
	if (error == 0 && dvp->v_type != VDIR)
		error = ENOTDIR;
	if (error == 0)
		error = dev != NULL ? mount_device(dev, &devvp) : 0;
	if (error == 0) {
		on = kmalloc(MNAMELEN, M_WAITOK);
		error = on == NULL ? ENOMEM : vn_fullpath(dvp, on, MNAMELEN);
		if (error == ERANGE)
			error = ENAMETOOLONG;          /* statfs could not report where it is */
	}
	if (error == 0) {
		if (devvp != NULL)
			snprintf(from, sizeof(from), "/dev/%s", devvp->v_disk->d_name);
		else
			strlcpy(from, vfc->vfc_name, sizeof(from));
		error = vfs_domount(vfc, devvp, dvp, flags, from, on, &mp);
	}
	if (error != 0) {
		if (devvp != NULL)
			vrele(devvp);
		if (dvp != NULL)
			vrele(dvp);
	}
out:
	kfree(on);
	kfree(fstype);
	kfree(dir);
	kfree(dev);
	return error;
}

/* ---- unmounting ------------------------------------------------------------------------------ */

/* Is a file system mounted on a directory of mp (or being mounted there)? mountlist_mtx held. */
static bool mount_has_submounts(struct mount *mp)
{
	struct mount *other;

	for (other = mountlist; other != NULL; other = other->mnt_next)
		if (other->mnt_vnodecovered != NULL && other->mnt_vnodecovered->v_mount == mp)
			return true;
	return false;
}

/*
 * Unmount mp, already marked MNTK_UNMOUNT and idle: write everything (VFS_SYNC, and each
 * vnode's buffers in vflush), reclaim its vnodes, let the file system release it, take it off
 * the list and free it. On an error mp stays mounted and marked: EBUSY if a vnode is in use
 * (an open file, a current directory, a mount inside it); a write error unless flags has
 * MNT_FORCE.
 */
static int dounmount_marked(struct mount *mp, int flags)
{
	struct vnode *covered;
	int error;

	error = mp->mnt_op->vfs_sync(mp, MNT_WAIT);
	if (flags & MNT_FORCE)
		error = 0;
	if (error == 0)
		error = vflush(mp, flags & MNT_FORCE);
	if (error == 0)
		error = mp->mnt_op->vfs_unmount(mp, flags);
	if (error != 0)
		return error;
	if (mp->mnt_devvp != NULL) {
		vinvalbuf(mp->mnt_devvp, V_SAVE);
		vfs_writeerr_report(mp, "unmount");
		VOP_CLOSE(mp->mnt_devvp, FREAD | FWRITE);
		vrele(mp->mnt_devvp);
	}
	spin_lock(&mountlist_mtx);
	mountlist_remove(mp);
	covered = mp->mnt_vnodecovered;
	if (covered != NULL)
		covered->v_mountedhere = NULL;
	vfs_busy_done_locked(mp);
	spin_unlock(&mountlist_mtx);
	if (covered != NULL)
		vrele(covered);
	kfree(mp);
	return 0;
}

/* Mark mp MNTK_UNMOUNT and wait until nobody has it busy. mountlist_mtx held. */
static void unmount_mark_locked(struct mount *mp)
{
	mp->mnt_kern_flag |= MNTK_UNMOUNT;
	while (mp->mnt_busy > 0)
		msleep(&mp->mnt_busy, &mountlist_mtx, 0, "umount", 0);
}

/*
 * Unmount mp (see dounmount_marked), which the caller has busy (so no one can free it); that
 * busy mark is dropped. EBUSY at once if mp has mounts inside it.
 */
static int dounmount(struct mount *mp, int flags)
{
	int error;

	spin_lock(&mountlist_mtx);
	vfs_unbusy_locked(mp);
	if ((mp->mnt_kern_flag & MNTK_UNMOUNT) || mount_has_submounts(mp)) {
		spin_unlock(&mountlist_mtx);
		return EBUSY;
	}
	unmount_mark_locked(mp);
	spin_unlock(&mountlist_mtx);
	error = dounmount_marked(mp, flags);
	if (error != 0) {
		spin_lock(&mountlist_mtx);
		mp->mnt_kern_flag &= ~MNTK_UNMOUNT;
		vfs_busy_done_locked(mp);
		spin_unlock(&mountlist_mtx);
	}
	return error;
}

/* unmount(dir, flags): dir must be the root directory of a mounted file system other than /. */
int sys_unmount(register_t *args, register_t *rv)
{
	struct vnode *vp;
	struct mount *mp;
	char *dir;
	int error;

	*rv = 0;
	error = suser(cred_cur());
	if (error != 0)
		return error;
	if ((int)args[1] & ~MNT_FORCE)
		return EINVAL;
	error = vfs_copyinstr(args[0], PATH_MAX, &dir);
	if (error != 0)
		return error;
	error = namei(dir, &vp);
	kfree(dir);
	if (error != 0)
		return error;
	mp = vp->v_mount;
	if (mp == NULL || !vn_isroot(vp))
		error = EINVAL;
	else if (mp->mnt_vnodecovered == NULL)
		error = EBUSY;        /* the root file system stays until shutdown */
	if (error == 0)
		error = vfs_busy(mp, LK_NOWAIT) != 0 ? EBUSY : 0;   /* keeps mp once vp is gone */
	vrele(vp);
	return error != 0 ? error : dounmount(mp, (int)args[1]);
}

/* ---- statfs ---------------------------------------------------------------------------------- */

/* vfs_statfs_fill: mp's struct statfs: the file system's counts, the VFS's names and flags. */
int vfs_statfs_fill(struct mount *mp, struct statfs *sbp)
{
	int error;

	memset(sbp, 0, sizeof(*sbp));
	error = mp->mnt_op->vfs_statfs(mp, sbp);
	if (error != 0)
		return error;
	sbp->f_flags = (uint32_t)mp->mnt_flag;
	strlcpy(sbp->f_fstypename, mp->mnt_vfc->vfc_name, sizeof(sbp->f_fstypename));
	strlcpy(sbp->f_mntonname, mp->mnt_onname, sizeof(sbp->f_mntonname));
	strlcpy(sbp->f_mntfromname, mp->mnt_fromname, sizeof(sbp->f_mntfromname));
	return 0;
}

/*
 * getfsstat(buf, bufsize, flags): a struct statfs for each mount, oldest first, as many as fit
 * in bufsize bytes; returns the number of mounts (with buf, at most the number that fit).
 * The counts are always current (MNT_NOWAIT is accepted for FreeBSD's callers). A mount being
 * mounted or unmounted is left out.
 */
int sys_getfsstat(register_t *args, register_t *rv)
{
	char *ubuf = (char *)args[0];
	size_t maxcount = (size_t)args[1] / sizeof(struct statfs), count = 0;
	int flags = (int)args[2];
	struct mount *mp, *nmp;
	struct statfs sb;
	int error = 0;

	if (flags != 0 && flags != MNT_WAIT && flags != MNT_NOWAIT)
		return EINVAL;
	spin_lock(&mountlist_mtx);
	for (mp = mountlist; mp != NULL && error == 0; mp = nmp) {
		if (vfs_busy_locked(mp, LK_NOWAIT) != 0) {
			nmp = mp->mnt_next;
			continue;
		}
		spin_unlock(&mountlist_mtx);
		if (ubuf != NULL && count < maxcount) {
			error = vfs_statfs_fill(mp, &sb);
			if (error == 0)
				error = copyout(&sb, ubuf + count * sizeof(sb), sizeof(sb));
		}
		count++;
		spin_lock(&mountlist_mtx);
		nmp = mp->mnt_next;
		vfs_unbusy_locked(mp);
	}
	spin_unlock(&mountlist_mtx);
	if (error != 0)
		return error;
	*rv = (register_t)(ubuf != NULL ? MIN(count, maxcount) : count);
	return 0;
}

/* ---- sync and shutdown ----------------------------------------------------------------------- */

/* Call fn(mp, arg) for each mount not being mounted or unmounted, with it busy and no lock held. */
static void mount_foreach(void (*fn)(struct mount *mp, int arg), int arg)
{
	struct mount *mp, *nmp;

	spin_lock(&mountlist_mtx);
	for (mp = mountlist; mp != NULL; mp = nmp) {
		if (vfs_busy_locked(mp, LK_NOWAIT) != 0) {
			nmp = mp->mnt_next;
			continue;
		}
		spin_unlock(&mountlist_mtx);
		fn(mp, arg);
		spin_lock(&mountlist_mtx);
		nmp = mp->mnt_next;
		vfs_unbusy_locked(mp);
	}
	spin_unlock(&mountlist_mtx);
}

static void sync_one(struct mount *mp, int waitfor)
{
	int error = mp->mnt_op->vfs_sync(mp, waitfor);

	if (error != 0 && waitfor == MNT_WAIT)
		kprintf("sync: %s: error %d\n", mp->mnt_onname, error);
}

/*
 * vfs_writeerr_report: if writes of mp's buffers (its files' or its device's metadata) have
 * failed since the last report, say so on the console, naming the mount and `when` (sync,
 * unmount). A failed write is not retried (docs/bufcache.md, "Write errors"), so this is the
 * administrator's notice that data is lost; each file's next fsync tells its program. The
 * counters are read without bufcache_lock: they only grow, and a report racing with a new
 * failure only leaves that one to the next report.
 */
void vfs_writeerr_report(struct mount *mp, const char *when)
{
	uint32_t total = mp->mnt_writeerrs + (mp->mnt_devvp != NULL ? mp->mnt_devvp->v_writeerrs : 0);

	if (total == mp->mnt_writeerrs_told)
		return;
	kprintf("%s: %s on %s: %u write%s failed since the last report; that data is lost "
	        "(the next fsync of each file affected returns EIO); run fsck\n", when, mp->mnt_fromname,
	        mp->mnt_onname, total - mp->mnt_writeerrs_told, total - mp->mnt_writeerrs_told == 1 ? "" : "s");
	mp->mnt_writeerrs_told = total;
}

static void report_writeerrs(struct mount *mp, int arg __unused)
{
	vfs_writeerr_report(mp, "sync");
}

static void flush_disk_cache(struct mount *mp, int arg __unused)
{
	if (mp->mnt_devvp != NULL && mp->mnt_devvp->v_disk != NULL)
		disk_io_sync(mp->mnt_devvp->v_disk, BIO_FLUSH, 0, NULL, 0);
}

/*
 * vfs_sync_all: sync(2). VFS_SYNC every mount (metadata into buffers), start writes of every
 * dirty buffer, and with MNT_WAIT wait for them and ask each mounted disk to flush its cache.
 */
int vfs_sync_all(int waitfor)
{
	vm_object_sync_all();                  /* dirty mmap'd pages into the files first */
	mount_foreach(sync_one, waitfor);
	bufsync_all(waitfor);
	if (waitfor == MNT_WAIT) {
		mount_foreach(flush_disk_cache, 0);
		mount_foreach(report_writeerrs, 0);
	}
	return 0;
}

/* vfs_sync_lazy: the syncer's periodic VFS_SYNC(MNT_NOWAIT) of each mount. */
void vfs_sync_lazy(void)
{
	vm_object_sync_all();                  /* FreeBSD's syncer: vfs_msync, then the sync */
	mount_foreach(sync_one, MNT_NOWAIT);
}

/* The newest mount not yet being unmounted, marked MNTK_UNMOUNT once idle; NULL at the end. */
static struct mount *shutdown_next(void)
{
	struct mount *mp, *last = NULL;

	spin_lock(&mountlist_mtx);
	for (mp = mountlist; mp != NULL; mp = mp->mnt_next)
		if (!(mp->mnt_kern_flag & (MNTK_MOUNTING | MNTK_UNMOUNT)))
			last = mp;
	if (last != NULL)
		unmount_mark_locked(last);
	spin_unlock(&mountlist_mtx);
	return last;
}

/*
 * vfs_shutdown: called by reboot(2). Sync everything and wait, then unmount every file system,
 * newest first. A disk file system still in use (the root always is: processes hold its
 * vnodes) is synced and handed to its vfs_unmount with MNT_FORCE in place, so it can mark
 * itself clean, and stays on the list marked MNTK_UNMOUNT: no file-system operation follows.
 * devfs (open devices) is left as it is. Returns 0, or the last error (already printed).
 */
int vfs_shutdown(void)
{
	struct mount *mp;
	int error, result = 0;

	kprintf("syncing disks... ");
	vfs_sync_all(MNT_WAIT);
	while ((mp = shutdown_next()) != NULL) {
		if (mp->mnt_vnodecovered != NULL && dounmount_marked(mp, 0) == 0)
			continue;
		if (mp->mnt_vfc->vfc_flags & VFCF_SYNTHETIC)
			continue;                      /* nothing of it to write or mark clean */
		mp->mnt_op->vfs_sync(mp, MNT_WAIT);
		error = mp->mnt_op->vfs_unmount(mp, MNT_FORCE);
		if (error == 0 && mp->mnt_devvp != NULL)
			error = vinvalbuf(mp->mnt_devvp, V_SAVE);
		if (error != 0) {
			kprintf("\nvfs_shutdown: unmounting %s failed (error %d) ", mp->mnt_onname,
			        error);
			result = error;
		}
	}
	kprintf("done\n");
	return result;
}
