/*
 * VFS internals shared by the vfs/ and kern/ files (not part of the file-system interface).
 *
 *   vfs_mount_init()        - set up the mount list (vfsinit calls it).
 *   vfs_domount(vfc, devvp, covered, flags, from, on, &mp) - mount a file system (vfs_mount.c).
 *   vfs_statfs_fill(mp, &sb) - mp's struct statfs (the file system's counts, the VFS's names).
 *   vfs_busy_mountedhere(vp) - the mount on directory vp, busied (vfs_unbusy it), or NULL.
 *   vfs_shutdown()          - reboot(2): sync everything, unmount every file system (newest first).
 *   vfs_sync_all(waitfor)   - sync(2): VFS_SYNC every mount, write every dirty buffer and, with
 *                             MNT_WAIT, wait for the writes and flush the disks' caches.
 *   vfs_sync_lazy()         - the syncer's periodic VFS_SYNC(MNT_NOWAIT) of every mount.
 *   vflush(mp, force)       - write and reclaim every vnode of mp (unmount); EBUSY if one is
 *                             in use; a write error stops it unless force (MNT_FORCE).
 *   vn_isroot(vp)           - vp is the root directory of the file system it belongs to.
 *   vfs_cross_mounts(&vp)   - replace a directory something is mounted on by the mounted root.
 *   vn_fullpath(vp, buf, size) - the absolute path of directory vp (getcwd's walk).
 *   vfs_copyinstr(uaddr, max, &k) - a user string of at most max bytes (NUL included) in a
 *                             new kmalloc'd buffer (kfree it): EFAULT, ENAMETOOLONG, ENOMEM.
 *   vn_mksock(path, &vp)    - the socket file bind(2) makes at kernel path `path` (EADDRINUSE).
 *   vn_read/vn_write/vn_stat/vn_ioctl/vn_poll/vn_close - the struct file operations of DTYPE_VNODE files.
 *   vn_closevnode(vp, fflag) - what vn_close does to the vnode: undo open(2)'s work, vrele.
 *   vn_writechk(vp)         - ETXTBSY if vp is a running program's image (v_textcount), which
 *                             nobody may open for writing or truncate; else 0.
 *   vn_writer_begin(vp)/vn_writer_end(vp) - count a writer of vp (v_writecount: an open for
 *                             writing, a truncation), unless it is text (ETXTBSY); and uncount.
 *   vn_text_begin(vp)/vn_text_end(vp) - count vp as text (an exec loading it), unless it has
 *                             writers (ETXTBSY); and uncount (vfs_vnops.c, "Busy text").
 *   fflags_from_open(oflags)/oflags_from_fflags(fflag) - open(2) flags <-> f_flag (FREAD/FWRITE).
 *   buf_flush_aged(age)     - start writes of the dirty buffers dirty for at least `age` ticks.
 *   syncer_start()          - start the "syncer" kernel thread (vfsinit calls it).
 *   speedup_syncer()        - make the syncer hurry (FreeBSD's; 1 if it took the request).
 *   PATH_MAX                - the longest path a system call accepts, NUL included.
 */
#ifndef _VFS_VFS_H_
#define _VFS_VFS_H_

#include "kern/types.h"
#include "kern/uio.h"
#include <sys/stat.h>

struct file;
struct vnode;
struct mount;
struct statfs;
struct vfsconf;

#define PATH_MAX 1024

void vfs_mount_init(void);
int  vfs_domount(const struct vfsconf *vfc, struct vnode *devvp, struct vnode *covered, int flags,
                 const char *from, const char *on, struct mount **mpp);
int  vfs_statfs_fill(struct mount *mp, struct statfs *sbp);
struct mount *vfs_busy_mountedhere(struct vnode *vp);
int  vfs_shutdown(void);
int  vfs_sync_all(int waitfor);
void vfs_sync_lazy(void);
int  vflush(struct mount *mp, int force);
bool vn_isroot(struct vnode *vp);
int  vfs_cross_mounts(struct vnode **vpp);
int  vn_fullpath(struct vnode *vp, char *buf, size_t size);
int  vfs_copyinstr(register_t uaddr, size_t max, char **kp);
int  vn_mksock(const char *path, struct vnode **vpp);

int  vn_read(struct file *fp, struct uio *uio);
int  vn_write(struct file *fp, struct uio *uio);
int  vn_stat(struct vnode *vp, struct stat *st);
int  vn_ioctl(struct file *fp, u_long cmd, void *data);
int  vn_poll(struct file *fp, int events);
int  vn_close(struct file *fp);
int  vn_closevnode(struct vnode *vp, int fflag);
int  vn_writechk(struct vnode *vp);
int  vn_writer_begin(struct vnode *vp);
void vn_writer_end(struct vnode *vp);
int  vn_text_begin(struct vnode *vp);
void vn_text_end(struct vnode *vp);

int  fflags_from_open(int oflags);
int  oflags_from_fflags(int fflag);

int  buf_flush_aged(uint32_t age);
void syncer_start(void);
int  speedup_syncer(void);

#endif
