/*
 * sys_pipe.c - pipes (interface: kern/pipe.h), pipe(2), and FIFOs (named pipes).
 *
 * A pipe is a PIPE_SIZE (16 KB, FreeBSD's PIPE_SIZE) ring buffer with a read end and a write
 * end, each a struct file. read(2) blocks ("piperd") until there is data, then returns what is
 * there (up to the request); it returns 0 (end of file) once there is no data and no writer.
 * write(2) blocks ("pipewr") for room; a write of at most PIPE_BUF (512) bytes goes in at
 * once, never interleaved with another writer's. Writing with no reader left sends SIGPIPE to
 * the writer and fails with EPIPE. Sleeps are PCATCH: a killed process gets EINTR.
 * O_NONBLOCK gives EAGAIN instead of blocking.
 *
 *
 * A FIFO (mkfifo(2)) is a pipe found by name: the first open of a FIFO vnode makes a pipe,
 * vp->v_fifo, every open shares it, and the last close frees it with any unread data, as FreeBSD's
 * fifofs does. Its opens wait for each other as FreeBSD 4's fifo_open
 * (sys/miscfs/fifofs/fifo_vnops.c 1.45.2.4, read in DragonFly's copy) makes them: an open for
 * reading waits ("fifoor", PCATCH) until a writer opens, one for writing ("fifoow") until a reader
 * does; with O_NONBLOCK a read open returns at once and a write open with no reader fails with
 * ENXIO; O_RDWR never waits.
 *
 * Locking: pi_lock (spinlock) protects pi_head, pi_count and the reader/writer counts.
 * pi_rdlock/pi_wrlock (sleeplocks) admit one reader and one writer at a time; each copies
 * to/from its own part of the ring (the filled part for the reader, the free part for the
 * writer) with pi_lock released, so copyin/copyout never run under a spinlock. fifo_lock
 * (sleeplock) protects every vnode's v_fifo: a FIFO's pipe is made and freed under it.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/proc.h"
#include "kern/file.h"
#include "kern/pipe.h"
#include "kern/poll.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include <sys/fcntl.h>
#include <sys/signal.h>
#include <sys/poll.h>
#include <sys/errno.h>

#define PIPE_SIZE 16384
#define PIPE_BUF  512

struct pipe {
	struct spinlock  pi_lock;
	struct sleeplock pi_rdlock;      /* one reader at a time */
	struct sleeplock pi_wrlock;      /* one writer at a time */
	char            *pi_buf;         /* PIPE_SIZE bytes */
	size_t           pi_head;        /* first buffered byte (pi_lock) */
	size_t           pi_count;       /* bytes buffered (pi_lock) */
	int              pi_readers;     /* open read ends (pi_lock) */
	int              pi_writers;     /* open write ends (pi_lock) */
	char             pi_rwait;       /* channel: readers wait for data */
	char             pi_wwait;       /* channel: writers wait for room */
	uint32_t         pi_ropens;      /* FIFO: read opens so far, the channel of "fifoow" (pi_lock) */
	uint32_t         pi_wopens;      /* FIFO: write opens so far, the channel of "fifoor" (pi_lock) */
};

static struct sleeplock fifo_lock = { .name = "fifo", .lk = { .name = "fifo" } };

/* pipe_read: see the top of the file. */
int pipe_read(struct pipe *pp, struct uio *uio, int fflag)
{
	size_t n, start;
	int error = 0;

	sleeplock_acquire(&pp->pi_rdlock);
	spin_lock(&pp->pi_lock);
	while (pp->pi_count == 0 && pp->pi_writers > 0 && error == 0) {
		if (fflag & O_NONBLOCK)
			error = EAGAIN;
		else
			error = msleep(&pp->pi_rwait, &pp->pi_lock, PCATCH, "piperd", 0);
	}
	while (error == 0 && uio->uio_resid > 0 && pp->pi_count > 0) {
		start = pp->pi_head;
		n = MIN(pp->pi_count, PIPE_SIZE - start);
		n = MIN(n, uio->uio_resid);
		spin_unlock(&pp->pi_lock);
		error = uiomove(pp->pi_buf + start, n, uio);
		spin_lock(&pp->pi_lock);
		if (error != 0)
			break;
		pp->pi_head = (start + n) % PIPE_SIZE;
		pp->pi_count -= n;
		wakeup(&pp->pi_wwait);
		poll_wakeup();
	}
	spin_unlock(&pp->pi_lock);
	sleeplock_release(&pp->pi_rdlock);
	return error;
}

/* Must the writer wait before copying more of uio? pi_lock held. */
static bool pipe_full(struct pipe *pp, struct uio *uio)
{
	size_t space = PIPE_SIZE - pp->pi_count;

	return space == 0 || (uio->uio_resid <= PIPE_BUF && space < uio->uio_resid);
}

/* pipe_write: see the top of the file. */
int pipe_write(struct pipe *pp, struct uio *uio, int fflag)
{
	size_t n, tail;
	int error = 0;

	sleeplock_acquire(&pp->pi_wrlock);
	spin_lock(&pp->pi_lock);
	while (error == 0 && uio->uio_resid > 0) {
		if (pp->pi_readers == 0) {
			error = EPIPE;
			break;
		}
		if (pipe_full(pp, uio)) {
			if (fflag & O_NONBLOCK)
				error = EAGAIN;
			else
				error = msleep(&pp->pi_wwait, &pp->pi_lock, PCATCH, "pipewr", 0);
			continue;
		}
		tail = (pp->pi_head + pp->pi_count) % PIPE_SIZE;
		n = MIN(PIPE_SIZE - pp->pi_count, PIPE_SIZE - tail);
		n = MIN(n, uio->uio_resid);
		spin_unlock(&pp->pi_lock);
		error = uiomove(pp->pi_buf + tail, n, uio);
		spin_lock(&pp->pi_lock);
		if (error != 0)
			break;
		pp->pi_count += n;
		wakeup(&pp->pi_rwait);
		poll_wakeup();
	}
	spin_unlock(&pp->pi_lock);
	sleeplock_release(&pp->pi_wrlock);
	if (error == EPIPE)
		proc_kill(curproc->p_pid, SIGPIPE);
	return error;
}

int pipe_stat(struct pipe *pp, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFIFO | 0600;
	st->st_nlink = 1;
	st->st_blksize = PIPE_SIZE;
	spin_lock(&pp->pi_lock);
	st->st_size = pp->pi_count;
	spin_unlock(&pp->pi_lock);
	return 0;
}

/*
 * pipe_poll: readable with data or at EOF (no writer), writable with room for PIPE_BUF bytes
 * (an atomic write) or with no reader left (the write fails at once); POLLHUP when the other
 * side is gone - FreeBSD's pipe_poll (sys/kern/sys_pipe.c).
 */
int pipe_poll(struct pipe *pp, int events, int fflag)
{
	int revents = 0;

	spin_lock(&pp->pi_lock);
	if ((fflag & FREAD) && (pp->pi_count > 0 || pp->pi_writers == 0))
		revents |= events & (POLLIN | POLLRDNORM);
	if ((fflag & FWRITE) && (PIPE_SIZE - pp->pi_count >= PIPE_BUF || pp->pi_readers == 0))
		revents |= events & (POLLOUT | POLLWRNORM);
	if (((fflag & FREAD) && pp->pi_writers == 0) || ((fflag & FWRITE) && pp->pi_readers == 0))
		revents |= POLLHUP;
	spin_unlock(&pp->pi_lock);
	return revents;
}

static void pipe_free(struct pipe *pp)
{
	kfree(pp->pi_buf);
	kfree(pp);
}

/* One end (FREAD and/or FWRITE) closes: wake the other side. True if it was the last end. */
static bool pipe_drop_end(struct pipe *pp, int fflag)
{
	bool last;

	spin_lock(&pp->pi_lock);
	if (fflag & FREAD)
		pp->pi_readers--;
	if (fflag & FWRITE)
		pp->pi_writers--;
	wakeup(&pp->pi_rwait);
	wakeup(&pp->pi_wwait);
	poll_wakeup();
	last = pp->pi_readers == 0 && pp->pi_writers == 0;
	spin_unlock(&pp->pi_lock);
	return last;
}

/* pipe_close: one end closes; the pipe is freed with its last end. */
void pipe_close(struct pipe *pp, int fflag)
{
	if (pipe_drop_end(pp, fflag))
		pipe_free(pp);
}

/* ---- pipe(2) --------------------------------------------------------------------------------- */

static struct pipe *pipe_alloc(void)
{
	struct pipe *pp = kmalloc(sizeof(*pp), M_WAITOK | M_ZERO);

	if (pp == NULL)
		return NULL;
	pp->pi_buf = kmalloc(PIPE_SIZE, M_WAITOK);
	if (pp->pi_buf == NULL) {
		kfree(pp);
		return NULL;
	}
	spin_init(&pp->pi_lock, "pipe");
	sleeplock_init(&pp->pi_rdlock, "piperl");
	sleeplock_init(&pp->pi_wrlock, "pipewl");
	return pp;
}

/* Make a new descriptor for one end of pp; counts the end as open. */
static int pipe_end(struct pipe *pp, int fflag, int *fdp)
{
	struct file *fp;
	int error;

	error = falloc(&fp, fdp);
	if (error != 0)
		return error;
	fp->f_type = DTYPE_PIPE;
	fp->f_flag = fflag;
	fp->f_pipe = pp;
	spin_lock(&pp->pi_lock);
	if (fflag & FREAD)
		pp->pi_readers++;
	else
		pp->pi_writers++;
	spin_unlock(&pp->pi_lock);
	return 0;
}

/* pipe(int fds[2]): fds[0] is the read end, fds[1] the write end. */
int sys_pipe(register_t *args, register_t *rv)
{
	struct pipe *pp;
	int fds[2], error;

	*rv = 0;
	pp = pipe_alloc();
	if (pp == NULL)
		return ENOMEM;
	error = pipe_end(pp, FREAD, &fds[0]);
	if (error != 0) {
		pipe_free(pp);
		return error;
	}
	error = pipe_end(pp, FWRITE, &fds[1]);
	if (error != 0) {
		fdforget(fds[0]);
		return error;
	}
	error = copyout(fds, (void *)args[0], sizeof(fds));
	if (error != 0) {
		fdforget(fds[1]);
		fdforget(fds[0]);
	}
	return error;
}

/* ---- FIFOs ----------------------------------------------------------------------------------- */

/*
 * Wait until the other side of a FIFO has opened since this open counted itself: *gen was
 * its count of opens then, *count is how many are open now. pi_lock held. 0 or EINTR.
 */
static int fifo_wait(struct pipe *pp, uint32_t *gen, int *count, const char *wmesg)
{
	uint32_t seen = *gen;
	int error = 0;

	while (error == 0 && *count == 0 && *gen == seen)
		error = msleep(gen, &pp->pi_lock, PCATCH, wmesg, 0);
	return error;
}

/*
 * fifo_open: open FIFO vnode vp for fflag (FREAD/FWRITE/O_NONBLOCK): its pipe, made by the
 * first open, counts this end, and the open waits for the other side as the top of the file
 * says. 0, ENOMEM, ENXIO (O_NONBLOCK write open, no reader), EINTR.
 */
int fifo_open(struct vnode *vp, int fflag)
{
	struct pipe *pp;
	int error = 0;

	sleeplock_acquire(&fifo_lock);
	pp = vp->v_fifo;
	if (pp == NULL && (pp = pipe_alloc()) == NULL) {
		sleeplock_release(&fifo_lock);
		return ENOMEM;
	}
	vp->v_fifo = pp;
	spin_lock(&pp->pi_lock);
	if (fflag & FREAD) {
		pp->pi_readers++;
		pp->pi_ropens++;
		wakeup(&pp->pi_ropens);
	}
	if (fflag & FWRITE) {
		pp->pi_writers++;
		pp->pi_wopens++;
		wakeup(&pp->pi_wopens);
	}
	spin_unlock(&pp->pi_lock);
	sleeplock_release(&fifo_lock);

	spin_lock(&pp->pi_lock);
	switch (fflag & (FREAD | FWRITE)) {
	case FREAD:
		if (!(fflag & O_NONBLOCK))
			error = fifo_wait(pp, &pp->pi_wopens, &pp->pi_writers, "fifoor");
		break;
	case FWRITE:
		if (fflag & O_NONBLOCK)
			error = pp->pi_readers == 0 ? ENXIO : 0;
		else
			error = fifo_wait(pp, &pp->pi_ropens, &pp->pi_readers, "fifoow");
		break;
	}
	spin_unlock(&pp->pi_lock);
	if (error != 0)
		fifo_close(vp, fflag);
	return error;
}

/* fifo_close: one open of FIFO vnode vp (fflag as it was opened) ends; the last frees the pipe. */
void fifo_close(struct vnode *vp, int fflag)
{
	struct pipe *pp;

	sleeplock_acquire(&fifo_lock);
	pp = vp->v_fifo;
	if (pipe_drop_end(pp, fflag)) {
		vp->v_fifo = NULL;
		pipe_free(pp);
	}
	sleeplock_release(&fifo_lock);
}
