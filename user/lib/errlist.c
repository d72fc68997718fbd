/* errlist.c: strerror(3) and perror(3) with FreeBSD's message for every errno in <sys/errno.h>. */
#include <string.h>
#include <stdio.h>
#include <errno.h>

static const char *const errlist[ELAST + 1] = {
	[0]            = "No error: 0",
	[EPERM]        = "Operation not permitted",
	[ENOENT]       = "No such file or directory",
	[ESRCH]        = "No such process",
	[EINTR]        = "Interrupted system call",
	[EIO]          = "Input/output error",
	[ENXIO]        = "Device not configured",
	[E2BIG]        = "Argument list too long",
	[ENOEXEC]      = "Exec format error",
	[EBADF]        = "Bad file descriptor",
	[ECHILD]       = "No child processes",
	[EDEADLK]      = "Resource deadlock avoided",
	[ENOMEM]       = "Cannot allocate memory",
	[EACCES]       = "Permission denied",
	[EFAULT]       = "Bad address",
	[ENOTBLK]      = "Block device required",
	[EBUSY]        = "Device busy",
	[EEXIST]       = "File exists",
	[EXDEV]        = "Cross-device link",
	[ENODEV]       = "Operation not supported by device",
	[ENOTDIR]      = "Not a directory",
	[EISDIR]       = "Is a directory",
	[EINVAL]       = "Invalid argument",
	[ENFILE]       = "Too many open files in system",
	[EMFILE]       = "Too many open files",
	[ENOTTY]       = "Inappropriate ioctl for device",
	[ETXTBSY]      = "Text file busy",
	[EFBIG]        = "File too large",
	[ENOSPC]       = "No space left on device",
	[ESPIPE]       = "Illegal seek",
	[EROFS]        = "Read-only file system",
	[EMLINK]       = "Too many links",
	[EPIPE]        = "Broken pipe",
	[EDOM]         = "Numerical argument out of domain",
	[ERANGE]       = "Result too large",
	[EAGAIN]       = "Resource temporarily unavailable",
	[ENOTSOCK]     = "Socket operation on non-socket",
	[EDESTADDRREQ] = "Destination address required",
	[EMSGSIZE]     = "Message too long",
	[EPROTOTYPE]   = "Protocol wrong type for socket",
	[EPROTONOSUPPORT] = "Protocol not supported",
	[ENOTSUP]      = "Operation not supported",
	[EAFNOSUPPORT] = "Address family not supported by protocol family",
	[EADDRINUSE]   = "Address already in use",
	[ECONNRESET]   = "Connection reset by peer",
	[ENOBUFS]      = "No buffer space available",
	[EISCONN]      = "Socket is already connected",
	[ENOTCONN]     = "Socket is not connected",
	[ECONNREFUSED] = "Connection refused",
	[ELOOP]        = "Too many levels of symbolic links",
	[ENAMETOOLONG] = "File name too long",
	[ENOTEMPTY]    = "Directory not empty",
	[ENOSYS]       = "Function not implemented",
	[EFTYPE]       = "Inappropriate file type or format",
	[EOVERFLOW]    = "Value too large to be stored in data type",
};

char *strerror(int errnum)
{
	static char unknown[32];

	if (errnum >= 0 && errnum <= ELAST && errlist[errnum])
		return (char *)errlist[errnum];
	snprintf(unknown, sizeof unknown, "Unknown error: %d", errnum);
	return unknown;
}

void perror(const char *s)
{
	const char *msg = strerror(errno);

	if (s && *s)
		fprintf(stderr, "%s: %s\n", s, msg);
	else
		fprintf(stderr, "%s\n", msg);
}
