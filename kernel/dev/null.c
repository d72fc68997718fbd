/*
 * null.c - /dev/null and /dev/zero (FreeBSD's null(4) and zero(4); interface: dev/null.h).
 *   null: reads return end of file, writes swallow everything.
 *   zero: reads return zero bytes for as long as asked, writes swallow everything.
 * No state, no locks.
 */
#include "kern/types.h"
#include "kern/uio.h"
#include "dev/cdev.h"
#include "dev/null.h"

static const char zeroes[PAGE_SIZE];

static int null_read(void *arg __unused, struct uio *uio __unused, int ioflag __unused)
{
	return 0;
}

/* Writes to either device: consume the whole request without looking at it. */
static int null_write(void *arg __unused, struct uio *uio, int ioflag __unused)
{
	size_t n;

	while (uio->uio_resid > 0 && uio->uio_iovcnt > 0) {
		n = MIN(uio->uio_resid, uio->uio_iov->iov_len);
		uio->uio_iov->iov_base = (char *)uio->uio_iov->iov_base + n;
		uio->uio_iov->iov_len -= n;
		uio->uio_resid -= n;
		uio->uio_offset += n;
		if (uio->uio_iov->iov_len == 0) {
			uio->uio_iov++;
			uio->uio_iovcnt--;
		}
	}
	return 0;
}

static int zero_read(void *arg __unused, struct uio *uio, int ioflag __unused)
{
	int error = 0;

	while (uio->uio_resid > 0 && error == 0)
		error = uiomove((void *)zeroes, MIN(uio->uio_resid, sizeof(zeroes)), uio);
	return error;
}

static struct cdevsw null_cdevsw = {
	.d_name  = "null",
	.d_read  = null_read,
	.d_write = null_write,
};

static struct cdevsw zero_cdevsw = {
	.d_name  = "zero",
	.d_read  = zero_read,
	.d_write = null_write,
};

void null_init(void)
{
	cdev_register(&null_cdevsw, NULL);
	cdev_register(&zero_cdevsw, NULL);
}
