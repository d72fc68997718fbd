/* AF_UNIX addresses: a path on the file system (FreeBSD's <sys/un.h>). Shared by kernel and user. */
#ifndef _SYS_UN_H_
#define _SYS_UN_H_

#include <sys/socket.h>

struct sockaddr_un {
	uint8_t     sun_len;        /* bytes of the address, sun_path's used part included */
	sa_family_t sun_family;     /* AF_UNIX */
	char        sun_path[104];  /* the path; NUL-terminated unless it fills the array */
};

/* The length of an address whose sun_path is a NUL-terminated string (NUL not counted). */
#define SUN_LEN(su) (offsetof(struct sockaddr_un, sun_path) + strlen((su)->sun_path))

#endif
