/*
 * fsdev: what the file-system tools (tools/mkfs/mkfs.c, which is also the guest's newfs, and
 * tools/fsck/fsck.c) need from the system they run on, so that one set of sources builds on
 * the host (image files, glibc) and in the guest (wdrain's disks and libc; the guest build
 * defines WDRAIN_GUEST). This is the whole portability layer.
 *
 *   fsdev_path(special, buf, len) - the path to open: in the guest a bare disk name gets
 *                                   "/dev/" in front ("ccd0" -> "/dev/ccd0", as FreeBSD's newfs
 *                                   and fsck do); on the host (image files) it is unchanged.
 *   fsdev_size(fd, &bytes)        - the size of an open image or disk (a wdrain disk's st_size is
 *                                   its media size); 0, or -1 with errno.
 *   fsdev_mountpoint(path)        - where the file system on disk `path` is mounted, or NULL
 *                                   (always NULL on the host, whose images are never mounted).
 */
#ifndef _FSDEV_H_
#define _FSDEV_H_

#include <stddef.h>
#include <stdint.h>

const char *fsdev_path(const char *special, char *buf, size_t len);
int         fsdev_size(int fd, uint64_t *bytes);
const char *fsdev_mountpoint(const char *path);

#endif
