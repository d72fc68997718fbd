/* wait4(2) status encoding (traditional Unix layout). Shared by kernel and user/lib. */
#ifndef _SYS_WAIT_H_
#define _SYS_WAIT_H_

#define WNOHANG 1

/* Status word: exit code << 8, or the terminating signal in the low 7 bits. */
#define W_EXITCODE(ret, sig) ((ret) << 8 | (sig))
#define WIFEXITED(s)   (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0)
#define WTERMSIG(s)    ((s) & 0x7f)

#endif
