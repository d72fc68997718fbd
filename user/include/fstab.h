/*
 * fstab.h: the static table of file systems, /etc/fstab (FreeBSD's <fstab.h>; user/libc,
 * lib/fstab.c). One file system a line, fields separated by blanks, '#' starts a comment:
 *
 *   device      mountpoint  fstype  options    dump  pass
 *   /dev/ccd0   /data1      wdfs    rw         2     2
 *   /dev/da3    none        swap    sw         0     0
 *
 * options is a comma-separated list; the first of rw, rq, ro, sw, xx in it (sw also for fstype
 * "swap") becomes fs_type, and a line of type xx is skipped. dump and pass may be left out (0).
 * The environment variable PATH_FSTAB names another file (as on FreeBSD).
 *   setfsent()     - (re)open the table: 1, or 0 if it cannot be read
 *   getfsent()     - the next entry, or NULL at the end; a malformed line is reported on stderr
 *                    ("fstab: /etc/fstab:3: ...") and skipped
 *   getfsspec(s) / getfsfile(f) - the first entry with that device / mount point, or NULL
 *   endfsent()     - close it
 * The entry returned is static: the next call overwrites it.
 */
#ifndef _FSTAB_H_
#define _FSTAB_H_

#define _PATH_FSTAB "/etc/fstab"

#define FSTAB_RW "rw"       /* read-write */
#define FSTAB_RQ "rq"       /* read-write with quotas (no quotas in wdrain: read-write) */
#define FSTAB_RO "ro"       /* read-only */
#define FSTAB_SW "sw"       /* a swap device */
#define FSTAB_XX "xx"       /* ignore the line */

struct fstab {
	char *fs_spec;          /* the device: /dev/ccd0 */
	char *fs_file;          /* the mount point: /data1 */
	char *fs_vfstype;       /* the file-system type: wdfs, swap */
	char *fs_mntops;        /* the options: rw,noauto */
	char *fs_type;          /* FSTAB_* taken from fs_mntops */
	int   fs_freq;          /* dump frequency in days */
	int   fs_passno;        /* fsck pass: 0 = not checked, 1 first, 2 ... after */
};

int           setfsent(void);
struct fstab *getfsent(void);
struct fstab *getfsspec(const char *spec);
struct fstab *getfsfile(const char *file);
void          endfsent(void);

#endif
