/* Error numbers, with FreeBSD's values. Shared by kernel and user/lib. */
#ifndef _SYS_ERRNO_H_
#define _SYS_ERRNO_H_

#define EPERM            1   /* Operation not permitted */
#define ENOENT           2   /* No such file or directory */
#define ESRCH            3   /* No such process */
#define EINTR            4   /* Interrupted system call */
#define EIO              5   /* Input/output error */
#define ENXIO            6   /* Device not configured */
#define E2BIG            7   /* Argument list too long */
#define ENOEXEC          8   /* Exec format error */
#define EBADF            9   /* Bad file descriptor */
#define ECHILD          10   /* No child processes */
#define EDEADLK         11   /* Resource deadlock avoided */
#define ENOMEM          12   /* Cannot allocate memory */
#define EACCES          13   /* Permission denied */
#define EFAULT          14   /* Bad address */
#define ENOTBLK         15   /* Block device required */
#define EBUSY           16   /* Device busy */
#define EEXIST          17   /* File exists */
#define EXDEV           18   /* Cross-device link */
#define ENODEV          19   /* Operation not supported by device */
#define ENOTDIR         20   /* Not a directory */
#define EISDIR          21   /* Is a directory */
#define EINVAL          22   /* Invalid argument */
#define ENFILE          23   /* Too many open files in system */
#define EMFILE          24   /* Too many open files */
#define ENOTTY          25   /* Inappropriate ioctl for device */
#define ETXTBSY         26   /* Text file busy */
#define EFBIG           27   /* File too large */
#define ENOSPC          28   /* No space left on device */
#define ESPIPE          29   /* Illegal seek */
#define EROFS           30   /* Read-only file system */
#define EMLINK          31   /* Too many links */
#define EPIPE           32   /* Broken pipe */
#define EDOM            33   /* Numerical argument out of domain */
#define ERANGE          34   /* Result too large */
#define EAGAIN          35   /* Resource temporarily unavailable */
#define EWOULDBLOCK     EAGAIN /* Operation would block (flock(2) with LOCK_NB) */
/* Sockets (FreeBSD's numbers) */
#define ENOTSOCK        38   /* Socket operation on non-socket */
#define EDESTADDRREQ    39   /* Destination address required */
#define EMSGSIZE        40   /* Message too long */
#define EPROTOTYPE      41   /* Protocol wrong type for socket */
#define EPROTONOSUPPORT 43   /* Protocol not supported */
#define EAFNOSUPPORT    47   /* Address family not supported by protocol family */
#define EADDRINUSE      48   /* Address already in use */
#define ECONNRESET      54   /* Connection reset by peer */
#define ENOBUFS         55   /* No buffer space available */
#define EISCONN         56   /* Socket is already connected */
#define ENOTCONN        57   /* Socket is not connected */
#define ECONNREFUSED    61   /* Connection refused */
#define ENAMETOOLONG    63   /* File name too long */
#define ENOTEMPTY       66   /* Directory not empty */
#define ENOSYS          78   /* Function not implemented */
#define EFTYPE          79   /* Inappropriate file type or format */
#define ENOTSUP         45   /* Operation not supported */
#define EOPNOTSUPP      ENOTSUP /* FreeBSD's other name for 45 */
#define ELOOP           62   /* Too many levels of symbolic links */
#define EOVERFLOW       84   /* Value too large to be stored in data type */

#define ELAST           84

#endif
