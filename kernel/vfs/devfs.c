/*
 * devfs.c - /dev: a tiny in-memory file system naming every disk and character device
 * (interface: vfs/devfs.h; cdev_register from dev/cdev.h is implemented here).
 *
 * One flat directory. Its entries are made on demand from the disk list (disk_first()) and
 * the character-device table (cdev_register), so a device registered after boot appears at
 * the next lookup or readdir. Every node's vnode is made once and kept for ever (devfs holds
 * a reference), so device vnodes are never recycled.
 *
 * Opening a disk (a shared disk_open, so a disk that is a ccd component cannot be opened: EBUSY)
 * gives raw access: read/write move whole sectors at the file offset (EINVAL
 * for a misaligned offset or length) straight between the caller and the disk through a
 * bounce buffer of up to 1 MB in separate pages, handed to the disk as a page list (dev/disk.h),
 * bypassing the buffer cache; ioctl
 * DIOCGSECTORSIZE / DIOCGMEDIASIZE give the geometry. A disk vnode is also the device a file
 * system is mounted from: its VOP_STRATEGY sends buffers (b_lblkno in DEV_BSIZE units) to the
 * disk. Character devices pass read/write/ioctl/open/close to their cdevsw.
 * A node's times are the boot time until utimes(2) sets them (kept in memory only). Every node
 * belongs to root (uid 0, gid 0): disks have mode 0640, character devices 0666 and /dev 0555,
 * and they cannot be changed (chmod and chown are EOPNOTSUPP); access is checked on these.
 *
 * Device numbers (st_rdev, and what mknod(2) on another file system stores): FreeBSD 4's
 * makedev(major, minor) (<sys/types.h>). Character devices have major DEVFS_CDEV_MAJOR and
 * their order of registration as minor (the console is 0); disks have major DEVFS_DISK_MAJOR
 * and their order of appearance as minor (the first disk is 0). Registration happens in a
 * fixed order at boot, so the numbers of a configuration stay the same from boot to boot.
 *
 * The vnodes exist before devfs is mounted (the root is mounted from one); mounting devfs
 * (once, on /dev at boot) sets their v_mount.
 *
 * Locking: devfs_lock (sleeplock) protects the node table and node vnodes. The cdev table is
 * filled at boot (before other CPUs run processes) and only appended to.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/time.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/buf.h"
#include "vfs/devfs.h"
#include "arch/memlayout.h"
#include "vm/vm_page.h"
#include "dev/disk.h"
#include "dev/cdev.h"
#include <sys/dirent.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/errno.h>

#define DEVFS_MAXNODES  64
#define DEVFS_MAXCDEVS  32
#define DEVFS_ROOTINO   2
#define DEVFS_DEV       0xde00        /* st_dev of everything in devfs */
#define DEVFS_CDEV_MAJOR 1            /* device numbers (see the top) */
#define DEVFS_DISK_MAJOR 2
#define RAW_MAXIO       (1024 * 1024) /* largest raw transfer per disk call */
#define RAW_MINIO       (64 * 1024)   /* raw transfers wait for memory up to this much */

/* A node's times (see the top of the file). */
struct devfs_times {
	time_t         atime, mtime, ctime;
};

struct devfs_node {
	char           dn_name[16];
	struct disk   *dn_disk;        /* a disk, or */
	struct cdevsw *dn_cdev;        /* a character device */
	void          *dn_arg;
	ino_t          dn_ino;
	dev_t          dn_rdev;        /* its device number (see the top) */
	struct vnode  *dn_vnode;       /* made on first use, referenced by devfs for ever */
	struct devfs_times dn_times;
};

static struct {
	struct cdevsw *sw;
	void          *arg;
} cdevtab[DEVFS_MAXCDEVS];
static int ncdevs;

static struct devfs_node devfs_nodes[DEVFS_MAXNODES];
static int ndevfs_nodes;
static int ndevfs_disks;               /* disk nodes so far: the next disk's minor number */
static struct sleeplock devfs_lock;
static struct vnode *devfs_rootvp;
static struct devfs_times devfs_roottimes;
static struct mount *devfs_mp;

static struct vop_vector devfs_vops;

/* cdev_register: a character device /dev/<sw->d_name>. */
void cdev_register(struct cdevsw *sw, void *arg)
{
	if (ncdevs == DEVFS_MAXCDEVS) {
		kprintf("cdev_register: table full, /dev/%s not created\n", sw->d_name);
		return;
	}
	cdevtab[ncdevs].sw = sw;
	cdevtab[ncdevs].arg = arg;
	__atomic_store_n(&ncdevs, ncdevs + 1, __ATOMIC_RELEASE);
}

/* ---- nodes (devfs_lock held) ----------------------------------------------------------------- */

static struct devfs_node *devfs_find(const char *name)
{
	int i;

	for (i = 0; i < ndevfs_nodes; i++)
		if (strcmp(devfs_nodes[i].dn_name, name) == 0)
			return &devfs_nodes[i];
	return NULL;
}

static void devfs_times_init(struct devfs_times *t)
{
	t->atime = t->mtime = t->ctime = boottime.tv_sec;
}

/* A node for a device not yet in the table: true if one was added. */
static bool devfs_add(const char *name, dev_t rdev, struct disk *dp, struct cdevsw *sw, void *arg)
{
	struct devfs_node *dn;

	if (devfs_find(name) != NULL)
		return false;
	if (ndevfs_nodes == DEVFS_MAXNODES) {
		kprintf("devfs: more than %d devices, /dev/%s not shown\n", DEVFS_MAXNODES, name);
		return false;
	}
	dn = &devfs_nodes[ndevfs_nodes];
	strlcpy(dn->dn_name, name, sizeof(dn->dn_name));
	dn->dn_disk = dp;
	dn->dn_cdev = sw;
	dn->dn_arg = arg;
	dn->dn_ino = DEVFS_ROOTINO + 1 + ndevfs_nodes;
	dn->dn_rdev = rdev;
	devfs_times_init(&dn->dn_times);
	ndevfs_nodes++;
	return true;
}

/* Add nodes for disks and character devices registered since the last look. */
static void devfs_refresh(void)
{
	struct disk *dp;
	int i, n = __atomic_load_n(&ncdevs, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		devfs_add(cdevtab[i].sw->d_name, makedev(DEVFS_CDEV_MAJOR, i), NULL, cdevtab[i].sw,
		          cdevtab[i].arg);
	for (dp = disk_first(); dp != NULL; dp = dp->d_next)
		if (devfs_add(dp->d_name, makedev(DEVFS_DISK_MAJOR, ndevfs_disks), dp, NULL, NULL))
			ndevfs_disks++;
}

/* The node's vnode, referenced for the caller. */
static int devfs_node_vnode(struct devfs_node *dn, struct vnode **vpp)
{
	struct vnode *vp;
	int error;

	if (dn->dn_vnode == NULL) {
		/* Kept off any mount's vnode list: devfs vnodes are never flushed or recycled. */
		error = getnewvnode(NULL, &devfs_vops, &vp);
		if (error != 0)
			return error;
		vp->v_mount = devfs_mp;
		vp->v_type = VCHR;
		vp->v_data = dn;
		vp->v_disk = dn->dn_disk;
		vp->v_cdev = dn->dn_cdev;
		vp->v_cdevarg = dn->dn_arg;
		dn->dn_vnode = vp;
	}
	vref(dn->dn_vnode);
	*vpp = dn->dn_vnode;
	return 0;
}

/* devfs_disk_vnode: the vnode of disk `name`, referenced (the device to mount from). */
int devfs_disk_vnode(const char *name, struct vnode **vpp)
{
	struct devfs_node *dn;
	int error;

	sleeplock_acquire(&devfs_lock);
	devfs_refresh();
	dn = devfs_find(name);
	if (dn == NULL || dn->dn_disk == NULL)
		error = ENXIO;
	else
		error = devfs_node_vnode(dn, vpp);
	sleeplock_release(&devfs_lock);
	return error;
}

/* devfs_rdev_vnode: the vnode of the device numbered rdev, referenced; ENXIO if there is none. */
int devfs_rdev_vnode(dev_t rdev, struct vnode **vpp)
{
	int i, error = ENXIO;

	sleeplock_acquire(&devfs_lock);
	devfs_refresh();
	for (i = 0; i < ndevfs_nodes; i++) {
		if (devfs_nodes[i].dn_rdev == rdev) {
			error = devfs_node_vnode(&devfs_nodes[i], vpp);
			break;
		}
	}
	sleeplock_release(&devfs_lock);
	return error;
}

/* ---- directory operations -------------------------------------------------------------------- */

static int devfs_lookup(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct devfs_node *dn;
	int error;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		vref(dvp);
		*vpp = dvp;
		return 0;
	}
	sleeplock_acquire(&devfs_lock);
	devfs_refresh();
	dn = devfs_find(name);
	error = dn == NULL ? ENOENT : devfs_node_vnode(dn, vpp);
	sleeplock_release(&devfs_lock);
	return error;
}

/* Copy one directory record into uio; EAGAIN if it does not fit. */
static int devfs_dirent(struct uio *uio, ino_t ino, uint8_t type, const char *name)
{
	struct dirent d;
	size_t namlen = strlen(name);
	size_t reclen = roundup(offsetof(struct dirent, d_name) + namlen + 1, 4);

	if (uio->uio_resid < reclen)
		return EAGAIN;
	memset(&d, 0, sizeof(d));
	d.d_ino = ino;
	d.d_reclen = reclen;
	d.d_type = type;
	d.d_namlen = namlen;
	memcpy(d.d_name, name, namlen);
	return uiomove(&d, reclen, uio);
}

/* readdir: directory position n is ".", "..", then node n-2. */
static int devfs_readdir(struct vnode *vp __unused, struct uio *uio)
{
	size_t start = uio->uio_resid;
	off_t pos;
	int error = 0;

	sleeplock_acquire(&devfs_lock);
	devfs_refresh();
	for (pos = uio->uio_offset; pos < 2 + ndevfs_nodes; pos++) {
		if (pos < 2)
			error = devfs_dirent(uio, DEVFS_ROOTINO, DT_DIR, pos == 0 ? "." : "..");
		else
			error = devfs_dirent(uio, devfs_nodes[pos - 2].dn_ino, DT_CHR,
			                     devfs_nodes[pos - 2].dn_name);
		if (error != 0)
			break;
		uio->uio_offset = pos + 1;
	}
	sleeplock_release(&devfs_lock);
	if (error == EAGAIN)
		error = uio->uio_resid == start ? EINVAL : 0;   /* not even one record fits */
	return error;
}

/* ---- raw disk access ------------------------------------------------------------------------- */

/*
 * The bounce buffer of a raw transfer: up to RAW_MAXIO bytes in separate pages, given to the disk
 * as a page list (BIO_UNMAPPED). No large physically contiguous block is needed, and raw I/O
 * runs every driver's page-list path (ccd splits it at stripe boundaries).
 */
struct raw_bounce {
	int              rb_npages;
	void            *rb_va[RAW_MAXIO / PAGE_SIZE];     /* direct-mapped */
	struct vm_page  *rb_ma[RAW_MAXIO / PAGE_SIZE];
};

/* Pages for `want` bytes (at most RAW_MAXIO); fewer if memory is short, at least one. */
static struct raw_bounce *raw_bounce_alloc(size_t want)
{
	struct raw_bounce *rb = kmalloc(sizeof(*rb), M_WAITOK);
	int n = (int)howmany(MIN(want, (size_t)RAW_MAXIO), PAGE_SIZE);

	if (rb == NULL)
		return NULL;
	for (rb->rb_npages = 0; rb->rb_npages < n; rb->rb_npages++) {
		void *va = kpage_alloc(rb->rb_npages * PAGE_SIZE < RAW_MINIO ? M_WAITOK : M_NOWAIT);

		if (va == NULL)
			break;
		rb->rb_va[rb->rb_npages] = va;
		rb->rb_ma[rb->rb_npages] = PHYS_TO_VM_PAGE(V2P(va));
	}
	if (rb->rb_npages == 0) {
		kfree(rb);
		return NULL;
	}
	return rb;
}

static void raw_bounce_free(struct raw_bounce *rb)
{
	for (int i = 0; i < rb->rb_npages; i++)
		kpage_free(rb->rb_va[i]);
	kfree(rb);
}

/* Move `len` bytes between the bounce pages and the uio, a page at a time. */
static int raw_bounce_move(struct raw_bounce *rb, size_t len, struct uio *uio)
{
	int error = 0;

	for (int i = 0; error == 0 && len > 0; i++) {
		size_t n = MIN(len, (size_t)PAGE_SIZE);

		error = uiomove(rb->rb_va[i], n, uio);
		len -= n;
	}
	return error;
}

/* Read or write a disk at the uio's offset, whole sectors only, bypassing the buffer cache. */
static int devfs_disk_rw(struct disk *dp, struct uio *uio)
{
	uint32_t ss = dp->d_sectorsize;
	uint64_t off = (uint64_t)uio->uio_offset;
	int cmd = uio->uio_rw == UIO_READ ? BIO_READ : BIO_WRITE;
	struct raw_bounce *rb;
	size_t bufsize, chunk;
	int error = 0;

	if (uio->uio_offset < 0 || off % ss != 0 || uio->uio_resid % ss != 0)
		return EINVAL;
	if (uio->uio_resid == 0)
		return 0;
	if (off >= dp->d_mediasize)
		return cmd == BIO_READ ? 0 : ENOSPC;
	rb = raw_bounce_alloc(MIN(uio->uio_resid, dp->d_mediasize - off));
	if (rb == NULL)
		return ENOMEM;
	bufsize = rounddown((size_t)rb->rb_npages * PAGE_SIZE, ss);
	while (uio->uio_resid > 0 && off < dp->d_mediasize) {
		chunk = MIN(uio->uio_resid, bufsize);
		chunk = MIN(chunk, dp->d_mediasize - off);
		if (cmd == BIO_WRITE) {
			error = raw_bounce_move(rb, chunk, uio);
			if (error == 0)
				error = disk_io_sync_pages(dp, BIO_WRITE, off, rb->rb_ma, 0, chunk);
		} else {
			error = disk_io_sync_pages(dp, BIO_READ, off, rb->rb_ma, 0, chunk);
			if (error == 0)
				error = raw_bounce_move(rb, chunk, uio);
		}
		if (error != 0)
			break;
		off += chunk;
	}
	raw_bounce_free(rb);
	return error;
}

/* ---- file operations ------------------------------------------------------------------------- */

static int devfs_read(struct vnode *vp, struct uio *uio, int ioflag)
{
	if (vp->v_disk != NULL)
		return devfs_disk_rw(vp->v_disk, uio);
	if (vp->v_cdev->d_read == NULL)
		return ENODEV;
	return vp->v_cdev->d_read(vp->v_cdevarg, uio, ioflag);
}

static int devfs_write(struct vnode *vp, struct uio *uio, int ioflag)
{
	if (vp->v_disk != NULL)
		return devfs_disk_rw(vp->v_disk, uio);
	if (vp->v_cdev->d_write == NULL)
		return ENODEV;
	return vp->v_cdev->d_write(vp->v_cdevarg, uio, ioflag);
}

static struct devfs_times *devfs_vtimes(struct vnode *vp)
{
	return vp == devfs_rootvp ? &devfs_roottimes : &((struct devfs_node *)vp->v_data)->dn_times;
}

static int devfs_getattr(struct vnode *vp, struct stat *st)
{
	struct devfs_node *dn = vp->v_data;
	struct devfs_times *t = devfs_vtimes(vp);

	memset(st, 0, sizeof(*st));
	st->st_dev = DEVFS_DEV;
	sleeplock_acquire(&devfs_lock);
	st->st_atime = t->atime;
	st->st_mtime = t->mtime;
	st->st_ctime = t->ctime;
	sleeplock_release(&devfs_lock);
	if (vp == devfs_rootvp) {
		st->st_ino = DEVFS_ROOTINO;
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		st->st_blksize = 512;
		return 0;
	}
	st->st_ino = dn->dn_ino;
	st->st_rdev = dn->dn_rdev;
	st->st_nlink = 1;
	if (dn->dn_disk != NULL) {
		st->st_mode = S_IFCHR | 0640;
		st->st_size = dn->dn_disk->d_mediasize;
		st->st_blksize = dn->dn_disk->d_sectorsize;
	} else {
		st->st_mode = S_IFCHR | 0666;
		st->st_blksize = 512;
	}
	return 0;
}

/* utimes(2) on a node: the VFS's rule (vn_utimes_check) on its fixed owner and mode. */
static int devfs_settimes(struct vnode *vp, time_t atime, time_t mtime, int vaflags)
{
	struct devfs_times *t = devfs_vtimes(vp);
	struct stat st;
	int error;

	devfs_getattr(vp, &st);
	error = vn_utimes_check(st.st_mode, st.st_uid, st.st_gid, vaflags, cred_cur());
	if (error != 0)
		return error;

	sleeplock_acquire(&devfs_lock);
	t->atime = atime;
	t->mtime = mtime;
	t->ctime = time_second_now();
	sleeplock_release(&devfs_lock);
	return 0;
}

/* Opening a disk is a shared open in the block layer: EBUSY while a ccd holds it. */
static int devfs_open(struct vnode *vp, int fflag)
{
	if (vp->v_disk != NULL)
		return disk_open(vp->v_disk, 0);
	if (vp->v_cdev != NULL && vp->v_cdev->d_open != NULL)
		return vp->v_cdev->d_open(vp->v_cdevarg, fflag);
	return 0;
}

static int devfs_close(struct vnode *vp, int fflag)
{
	if (vp->v_disk != NULL) {
		disk_close(vp->v_disk, 0);
		return 0;
	}
	if (vp->v_cdev != NULL && vp->v_cdev->d_close != NULL)
		return vp->v_cdev->d_close(vp->v_cdevarg, fflag);
	return 0;
}

static int devfs_ioctl(struct vnode *vp, u_long cmd, void *data, int fflag)
{
	struct disk *dp = vp->v_disk;

	if (dp != NULL) {
		switch (cmd) {
		case DIOCGSECTORSIZE:
			*(u_int *)data = dp->d_sectorsize;
			return 0;
		case DIOCGMEDIASIZE:
			*(off_t *)data = (off_t)dp->d_mediasize;
			return 0;
		default:
			return ENOTTY;
		}
	}
	if (vp->v_cdev == NULL || vp->v_cdev->d_ioctl == NULL)
		return ENOTTY;
	return vp->v_cdev->d_ioctl(vp->v_cdevarg, cmd, data, fflag);
}

/* Buffers on a disk vnode are addressed in DEV_BSIZE units already: send them to the disk. */
static int devfs_strategy(struct vnode *vp, struct buf *bp)
{
	if (vp->v_disk == NULL) {
		bp->b_error = ENODEV;
		biodone(bp);
		return ENODEV;
	}
	bp->b_blkno = bp->b_lblkno;
	disk_strategy_buf(vp->v_disk, bp);
	return 0;
}

static int devfs_bmap(struct vnode *vp, daddr_t lblkno, daddr_t *blknop)
{
	if (vp->v_disk == NULL)
		return ENODEV;
	*blknop = lblkno;
	return 0;
}

/*
 * fsync of a disk: its dirty buffers, and with MNT_WAIT the device's write cache too (BIO_FLUSH;
 * a ccd passes it to every component), so what was written is on stable storage; and any
 * write of its buffers that failed since the last fsync (vn_writeerror_take).
 */
static int devfs_fsync(struct vnode *vp, int waitfor)
{
	int error;

	if (vp->v_disk == NULL)
		return 0;
	error = bufsync(vp, waitfor);
	if (error == 0 && waitfor == MNT_WAIT)
		error = disk_io_sync(vp->v_disk, BIO_FLUSH, 0, NULL, 0);
	if (waitfor == MNT_WAIT) {
		int e = vn_writeerror_take(vp);       /* earlier async writes of the disk's buffers */

		if (error == 0)
			error = e;
	}
	return error;
}

static struct vop_vector devfs_vops = {
	.vop_lookup   = devfs_lookup,
	.vop_readdir  = devfs_readdir,
	.vop_read     = devfs_read,
	.vop_write    = devfs_write,
	.vop_getattr  = devfs_getattr,
	.vop_settimes = devfs_settimes,
	.vop_fsync    = devfs_fsync,
	.vop_open     = devfs_open,
	.vop_close    = devfs_close,
	.vop_ioctl    = devfs_ioctl,
	.vop_strategy = devfs_strategy,
	.vop_bmap     = devfs_bmap,
};

/* ---- the file-system type -------------------------------------------------------------------- */

/* Mount devfs (at most once): its existing vnodes now belong to mp. */
static int devfs_mount(struct mount *mp, struct vnode *devvp __unused)
{
	int i;

	sleeplock_acquire(&devfs_lock);
	if (devfs_mp != NULL) {
		sleeplock_release(&devfs_lock);
		kprintf("devfs: already mounted on %s\n", devfs_mp->mnt_onname);
		return EBUSY;
	}
	devfs_mp = mp;
	devfs_rootvp->v_mount = mp;
	for (i = 0; i < ndevfs_nodes; i++)
		if (devfs_nodes[i].dn_vnode != NULL)
			devfs_nodes[i].dn_vnode->v_mount = mp;
	sleeplock_release(&devfs_lock);
	return 0;
}

/*
 * Unmounting /dev: refused (EBUSY, with or without MNT_FORCE) while a device is open, holds a
 * mounted file system or is a ccd component, or /dev is someone's current directory: every
 * node's vnode keeps one reference of devfs's own, any more is a user. (The root's disk always
 * is one, so in practice /dev stays; shutdown leaves it, having nothing to write.)
 */
static int devfs_unmount(struct mount *mp __unused, int flags __unused)
{
	int i;

	sleeplock_acquire(&devfs_lock);
	for (i = 0; i < ndevfs_nodes; i++) {
		if (devfs_nodes[i].dn_vnode != NULL && devfs_nodes[i].dn_vnode->v_usecount > 1) {
			sleeplock_release(&devfs_lock);
			return EBUSY;
		}
	}
	if (devfs_rootvp->v_usecount > 1) {
		sleeplock_release(&devfs_lock);
		return EBUSY;
	}
	devfs_mp = NULL;
	devfs_rootvp->v_mount = NULL;
	for (i = 0; i < ndevfs_nodes; i++)
		if (devfs_nodes[i].dn_vnode != NULL)
			devfs_nodes[i].dn_vnode->v_mount = NULL;
	sleeplock_release(&devfs_lock);
	return 0;
}

static int devfs_root(struct mount *mp __unused, struct vnode **vpp)
{
	vref(devfs_rootvp);
	*vpp = devfs_rootvp;
	return 0;
}

static int devfs_sync(struct mount *mp __unused, int waitfor __unused)
{
	return 0;
}

/* devfs holds no data: no blocks; one "inode" per device node. */
static int devfs_statfs(struct mount *mp __unused, struct statfs *sbp)
{
	sbp->f_bsize = 512;
	sbp->f_iosize = 512;
	sbp->f_blocks = sbp->f_bfree = sbp->f_bavail = 0;
	sleeplock_acquire(&devfs_lock);
	sbp->f_files = (uint64_t)ndevfs_nodes + 1;
	sleeplock_release(&devfs_lock);
	sbp->f_ffree = 0;
	return 0;
}

static struct vfsops devfs_vfsops = {
	.vfs_mount   = devfs_mount,
	.vfs_unmount = devfs_unmount,
	.vfs_root    = devfs_root,
	.vfs_sync    = devfs_sync,
	.vfs_statfs  = devfs_statfs,
};

VFS_SET(devfs_vfsops, devfs, VFCF_SYNTHETIC);

/* devfs_init: make the root directory vnode. */
void devfs_init(void)
{
	sleeplock_init(&devfs_lock, "devfs");
	if (getnewvnode(NULL, &devfs_vops, &devfs_rootvp) != 0)
		panic("devfs_init: no vnode for the root");
	devfs_rootvp->v_type = VDIR;
	devfs_times_init(&devfs_roottimes);
}
