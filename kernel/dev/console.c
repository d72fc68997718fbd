/*
 * Console driver: 16550 UART on COM1 plus the VGA text screen (see console.h).
 * The UART's registers and set-up are in dev/ns16550.h (shared with COM2, dev/sio.c).
 * Locking: cons_lock protects the input line buffer, the tty mode and the foreground process
 * group; output is serialized by kprintf's lock (and by cons_lock for writes from /dev/console).
 *
 * ^C in canonical mode drops the line being typed and sends SIGINT to the foreground process
 * group (TIOCSPGRP; 0, the default, is none): an interactive shell makes each job it waits for
 * such a group, so ^C ends the job and the shell, in no group of its own, stays. In raw mode ^C
 * is an ordinary byte (the shell's line editor takes it).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/proc.h"
#include "kern/uio.h"
#include "dev/cdev.h"
#include "dev/console.h"
#include "kern/poll.h"
#include "dev/ns16550.h"
#include "dev/disk.h"
#include "vfs/buf.h"
#include "vm/vm_page.h"
#include "arch/x86.h"
#include "arch/memlayout.h"
#include "arch/intr.h"
#include <sys/errno.h>
#include <sys/ioctl.h>
#include <sys/signal.h>
#include <sys/poll.h>

#define IRQ_COM1   4

#define VGA_COLS   80
#define VGA_ROWS   25
#define VGA_ATTR   0x0700   /* light grey on black */

#define INBUF      4096

static uint16_t *vga = (uint16_t *)P2V(0xb8000);
static int vga_pos;

static struct spinlock cons_lock;
static struct {
	char     buf[INBUF];
	uint32_t r, w, e;   /* read, write (end of committed input), edit index: r <= w <= e */
	int      mode;
	pid_t    pgid;      /* the foreground process group ^C signals; 0 = none */
} tty = { .mode = TTY_ECHO | TTY_CANON };

void cons_early_init(void)
{
	ns16550_init(COM1);
	spin_init(&cons_lock, "cons");
	for (int i = 0; i < VGA_COLS * VGA_ROWS; i++)
		vga[i] = VGA_ATTR | ' ';
}

static void vga_putc(int c)
{
	if (c == '\n')
		vga_pos += VGA_COLS - vga_pos % VGA_COLS;
	else if (c == '\b') {
		if (vga_pos > 0)
			vga[--vga_pos] = VGA_ATTR | ' ';
	} else if (c != '\r')
		vga[vga_pos++] = VGA_ATTR | (c & 0xff);
	if (vga_pos >= VGA_COLS * VGA_ROWS) {
		memmove(vga, vga + VGA_COLS, sizeof(vga[0]) * VGA_COLS * (VGA_ROWS - 1));
		for (int i = 0; i < VGA_COLS; i++)
			vga[VGA_COLS * (VGA_ROWS - 1) + i] = VGA_ATTR | ' ';
		vga_pos -= VGA_COLS;
	}
	outb(0x3d4, 14);                     /* move the hardware cursor */
	outb(0x3d5, vga_pos >> 8);
	outb(0x3d4, 15);
	outb(0x3d5, vga_pos);
}

void cons_putc(int c)
{
	if (c == '\n')
		ns16550_putc(COM1, '\r');
	ns16550_putc(COM1, c);
	vga_putc(c);
}

static void echo(int c)
{
	if (!(tty.mode & TTY_ECHO))
		return;
	if (c == '\b') {
		cons_putc('\b');
		cons_putc(' ');
		cons_putc('\b');
	} else
		cons_putc(c);
}

/* One received character through the line discipline. cons_lock held. Returns the process
 * group to send SIGINT to (after the lock is dropped: signalling takes proc_lock), or 0. */
static pid_t tty_input(int c)
{
	if (!(tty.mode & TTY_CANON)) {
		if (tty.e - tty.r < INBUF) {
			tty.buf[tty.e++ % INBUF] = c;
			tty.w = tty.e;
			echo(c);
			wakeup(&tty.r);
		}
		return 0;
	}
	switch (c) {
	case 0x7f:
	case '\b':
		if (tty.e != tty.w) {
			tty.e--;
			echo('\b');
		}
		return 0;
	case 0x15:                       /* ^U: kill the line */
		while (tty.e != tty.w) {
			tty.e--;
			echo('\b');
		}
		return 0;
	case 0x03:                       /* ^C: discard the line, interrupt the foreground job */
		tty.e = tty.w;
		echo('^');
		echo('C');
		echo('\n');
		return tty.pgid;
	case '\r':
		c = '\n';
		break;
	}
	if (tty.e - tty.r >= INBUF - 1 && c != '\n' && c != 0x04)
		return 0;                        /* full: only a line end may still go in */
	if (tty.e - tty.r >= INBUF)
		return 0;
	tty.buf[tty.e++ % INBUF] = c;
	if (c != 0x04)
		echo(c);
	if (c == '\n' || c == 0x04 || tty.e - tty.r == INBUF) {
		tty.w = tty.e;
		wakeup(&tty.r);
	}
	return 0;
}

/*
 * ^P: the kernel's state on the console - processes and wait channels, the buffer cache, the
 * VM's queues, the disks' queues (xv6's procdump key). It works while every process sleeps, so a
 * hung guest can say why; tools/wdrun/vm.py sends it when a command times out. Printed after
 * cons_lock is dropped: the dumps take proc_lock, and kprintf takes the console.
 */
static void status_dump(void)
{
	procdump();
	buf_dump();
	vm_meter_dump();
	disk_dump();
}

void cons_intr(void)
{
	bool dump = false;
	pid_t intr = 0;
	spin_lock(&cons_lock);
	while (inb(COM1 + UART_LSR) & LSR_DR) {
		int c = inb(COM1 + UART_RBR);
		pid_t pgid;
		if (c == 0x10)
			dump = true;
		else if ((pgid = tty_input(c)) != 0)
			intr = pgid;
	}
	spin_unlock(&cons_lock);
	poll_wakeup();
	if (intr)
		pgsignal(intr, SIGINT);
	if (dump)
		status_dump();
}

/* read(2) on /dev/console: one line in canonical mode, what is there otherwise; ^D = EOF. */
static int cons_read(void *arg, struct uio *uio, int ioflag)
{
	int error = 0;
	size_t want = uio->uio_resid;
	spin_lock(&cons_lock);
	while (tty.r == tty.w) {
		if (ioflag & 0x10) {             /* IO_NDELAY */
			spin_unlock(&cons_lock);
			return EAGAIN;
		}
		if (msleep(&tty.r, &cons_lock, PCATCH, "ttyin", 0) == EINTR) {
			spin_unlock(&cons_lock);
			return EINTR;
		}
	}
	while (uio->uio_resid > 0 && tty.r != tty.w) {
		char c = tty.buf[tty.r % INBUF];
		if (c == 0x04) {                 /* ^D: ends the read; consumed only if nothing else was read */
			if (uio->uio_resid == want)
				tty.r++;
			break;
		}
		tty.r++;
		spin_unlock(&cons_lock);
		error = uiomove(&c, 1, uio);
		spin_lock(&cons_lock);
		if (error || ((tty.mode & TTY_CANON) && c == '\n'))
			break;
	}
	spin_unlock(&cons_lock);
	return error;
}

static int cons_write(void *arg, struct uio *uio, int ioflag)
{
	char chunk[128];
	while (uio->uio_resid > 0) {
		size_t n = MIN(uio->uio_resid, sizeof(chunk));
		int error = uiomove(chunk, n, uio);
		if (error)
			return error;
		spin_lock(&cons_lock);
		for (size_t i = 0; i < n; i++)
			cons_putc(chunk[i]);
		spin_unlock(&cons_lock);
	}
	return 0;
}

static int cons_ioctl(void *arg, u_long cmd, void *data, int fflag)
{
	switch (cmd) {
	case TIOCGETA:
		*(int *)data = tty.mode;
		return 0;
	case TIOCSETA:
		spin_lock(&cons_lock);
		tty.mode = *(int *)data & (TTY_ECHO | TTY_CANON);
		tty.w = tty.e;
		spin_unlock(&cons_lock);
		wakeup(&tty.r);
		poll_wakeup();
		return 0;
	case TIOCGPGRP:
		*(int *)data = tty.pgid;
		return 0;
	case TIOCSPGRP:
		if (*(int *)data < 0)
			return EINVAL;
		spin_lock(&cons_lock);
		tty.pgid = *(int *)data;
		spin_unlock(&cons_lock);
		return 0;
	}
	return ENOTTY;
}

/* poll(2): readable when a line (raw mode: a character) is waiting; output never waits. */
static int cons_poll(void *arg, int events)
{
	int revents = events & (POLLOUT | POLLWRNORM);

	spin_lock(&cons_lock);
	if (tty.r != tty.w)
		revents |= events & (POLLIN | POLLRDNORM);
	spin_unlock(&cons_lock);
	return revents;
}

static int cons_open(void *arg, int fflag) { return 0; }
static int cons_close(void *arg, int fflag) { return 0; }

static struct cdevsw cons_cdevsw = {
	.d_name = "console",
	.d_open = cons_open,
	.d_close = cons_close,
	.d_read = cons_read,
	.d_write = cons_write,
	.d_ioctl = cons_ioctl,
	.d_poll = cons_poll,
};

void cons_init(void)
{
	cdev_register(&cons_cdevsw, NULL);
	intr_establish(IRQ_COM1, (void (*)(void *))cons_intr, NULL, "com1");
	outb(COM1 + UART_IER, 0x01);        /* interrupt on received data */
	cons_intr();                        /* drain anything typed before the handler existed */
}
