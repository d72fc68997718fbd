/*
 * Pipes (kern/sys_pipe.c): the struct file operations of DTYPE_PIPE files.
 *   pipe_read(pp, uio, fflag)  - blocks until data or EOF (all writers gone); EAGAIN with O_NONBLOCK.
 *   pipe_write(pp, uio, fflag) - blocks for room; with no reader left: SIGPIPE to the writer, EPIPE.
 *   pipe_stat(pp, st)          - S_IFIFO, st_size = bytes buffered.
 *   pipe_close(pp, fflag)      - one end (FREAD and/or FWRITE in fflag) goes away.
 *   pipe_poll(pp, events, fflag) - poll(2)'s events that hold for the end(s) in fflag.
 * FIFOs (named pipes) are pipes behind a VFIFO vnode, vp->v_fifo:
 *   fifo_open(vp, fflag)       - one more end, made or shared; waits for the other side
 *                                (EINTR), ENXIO for an O_NONBLOCK writer with no reader.
 *   fifo_close(vp, fflag)      - one end goes; the last frees the pipe and its data.
 */
#ifndef _KERN_PIPE_H_
#define _KERN_PIPE_H_

#include "kern/types.h"
#include "kern/uio.h"
#include <sys/stat.h>

struct pipe;
struct vnode;

int  pipe_read(struct pipe *pp, struct uio *uio, int fflag);
int  pipe_write(struct pipe *pp, struct uio *uio, int fflag);
int  pipe_stat(struct pipe *pp, struct stat *st);
void pipe_close(struct pipe *pp, int fflag);
int  pipe_poll(struct pipe *pp, int events, int fflag);
int  fifo_open(struct vnode *vp, int fflag);
void fifo_close(struct vnode *vp, int fflag);

#endif
