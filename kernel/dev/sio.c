/*
 * sio.c - the second serial port: COM2 (I/O 0x2f8, IRQ 3) as /dev/ttyd1 (interface: dev/sio.h).
 *
 * FreeBSD 4 calls the PC's serial ports sio0, sio1, ... (sio(4); its hints put sio1 at port
 * 0x2f8, irq 3) and names their dial-in devices /dev/ttyd0, /dev/ttyd1 and the call-out ones
 * /dev/cuaa0, /dev/cuaa1 (FreeBSD 2.X-4.X FAQ, "How do I access the serial ports": sio2 is
 * COM3, /dev/ttyd2 and /dev/cuaa2). COM1 is wdrain's console (dev/console.c); COM2 gets the
 * FreeBSD name /dev/ttyd1. It has no line discipline, no modem control and no input:
 *   write(2)  sends the bytes as they are (no "\n" -> "\r\n": the far end is a file, not a
 *             terminal), polled, one byte at a time. A whole write(2) goes out under sio_lock,
 *             so the lines of two writers never interleave as long as each writes whole lines.
 *   read(2)   ENODEV (devfs's answer for a device without a read routine).
 * Under QEMU, `-serial file:PATH` given a second time attaches COM2 to a host file (tools/run
 * --serial2). Without it no UART answers at 0x2f8 and /dev/ttyd1 does not exist.
 * Locking: sio_lock (a sleep lock, so interrupts stay on while a long write is sent) serializes
 * writers; nothing else is shared.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/uio.h"
#include "dev/cdev.h"
#include "dev/ns16550.h"
#include "dev/sio.h"

static struct sleeplock sio_lock;

static int sio_write(void *arg, struct uio *uio, int ioflag)
{
	char chunk[256];
	int error = 0;

	sleeplock_acquire(&sio_lock);
	while (uio->uio_resid > 0) {
		size_t n = MIN(uio->uio_resid, sizeof(chunk));
		if ((error = uiomove(chunk, n, uio)) != 0)
			break;
		for (size_t i = 0; i < n; i++)
			ns16550_putc(COM2, chunk[i]);
	}
	sleeplock_release(&sio_lock);
	return error;
}

static struct cdevsw sio_cdevsw = {
	.d_name  = "ttyd1",
	.d_write = sio_write,
};

void sio_init(void)
{
	if (!ns16550_present(COM2))
		return;
	ns16550_init(COM2);
	sleeplock_init(&sio_lock, "ttyd1");
	cdev_register(&sio_cdevsw, NULL);
	kprintf("sio1: COM2 at port %#x, output only: /dev/ttyd1\n", COM2);
}
