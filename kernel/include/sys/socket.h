/*
 * Sockets: the names and structures of socket(2) and its calls (FreeBSD's <sys/socket.h>
 * values). wdrain has one domain, AF_UNIX (AF_LOCAL): stream and datagram sockets on one
 * machine (kern/uipc_socket.c, kern/uipc_usrreq.c). Shared by kernel and user; the calls'
 * prototypes are in user/include/sys/socket.h.
 */
#ifndef _SYS_SOCKET_H_
#define _SYS_SOCKET_H_

#include <sys/types.h>
#include <sys/uio.h>

typedef uint32_t socklen_t;
typedef uint8_t  sa_family_t;

/* types */
#define SOCK_STREAM    1
#define SOCK_DGRAM     2
#define SOCK_RAW       3
#define SOCK_SEQPACKET 5

/* address families (protocol families are the same numbers) */
#define AF_UNSPEC      0
#define AF_LOCAL       1
#define AF_UNIX        AF_LOCAL
#define AF_INET        2
#define PF_UNSPEC      AF_UNSPEC
#define PF_LOCAL       AF_LOCAL
#define PF_UNIX        AF_UNIX
#define PF_INET        AF_INET

#define SOMAXCONN      128           /* listen(2)'s largest backlog */
#define SOCK_MAXADDRLEN 255          /* longest address a call takes */

/* A generic address: its length, its family, then the family's bytes. */
struct sockaddr {
	uint8_t     sa_len;
	sa_family_t sa_family;
	char        sa_data[14];
};

struct msghdr {
	void         *msg_name;         /* the address: to send to, or filled with the sender's */
	socklen_t     msg_namelen;
	struct iovec *msg_iov;
	int           msg_iovlen;
	void         *msg_control;      /* ancillary data: none is supported (NULL, 0) */
	socklen_t     msg_controllen;
	int           msg_flags;        /* recvmsg: MSG_TRUNC if a datagram was cut short */
};

/* send/recv flags */
#define MSG_OOB        0x00001       /* not supported: EOPNOTSUPP */
#define MSG_PEEK       0x00002       /* look at the data without taking it */
#define MSG_TRUNC      0x00010       /* (msg_flags) the datagram was longer than the buffer */
#define MSG_WAITALL    0x00040       /* a stream receive waits for the whole request */
#define MSG_DONTWAIT   0x00080       /* this call does not block (as O_NONBLOCK) */
#define MSG_NOSIGNAL   0x20000       /* EPIPE without SIGPIPE */

/* shutdown(2) */
#define SHUT_RD        0
#define SHUT_WR        1
#define SHUT_RDWR      2

#endif
