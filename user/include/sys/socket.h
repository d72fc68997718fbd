/*
 * <sys/socket.h> for programs: the kernel's definitions (kernel/include/sys/socket.h) and the
 * socket calls of the libc (user/lib/syscalls.c: send, sendto, recv and recvfrom are sendmsg and
 * recvmsg with one buffer).
 */
#ifndef _USER_SYS_SOCKET_H_
#define _USER_SYS_SOCKET_H_

#include_next <sys/socket.h>

int     socket(int domain, int type, int protocol);
int     socketpair(int domain, int type, int protocol, int sv[2]);
int     bind(int s, const struct sockaddr *addr, socklen_t addrlen);
int     listen(int s, int backlog);
int     accept(int s, struct sockaddr *addr, socklen_t *addrlen);
int     connect(int s, const struct sockaddr *addr, socklen_t addrlen);
ssize_t send(int s, const void *buf, size_t len, int flags);
ssize_t sendto(int s, const void *buf, size_t len, int flags, const struct sockaddr *to,
               socklen_t tolen);
ssize_t sendmsg(int s, const struct msghdr *msg, int flags);
ssize_t recv(int s, void *buf, size_t len, int flags);
ssize_t recvfrom(int s, void *buf, size_t len, int flags, struct sockaddr *from,
                 socklen_t *fromlen);
ssize_t recvmsg(int s, struct msghdr *msg, int flags);
int     shutdown(int s, int how);
int     getsockname(int s, struct sockaddr *addr, socklen_t *addrlen);
int     getpeername(int s, struct sockaddr *addr, socklen_t *addrlen);

#endif
