/*
 * random.c - /dev/random and /dev/urandom: one pseudo-random generator behind two names, for
 * tests and scripts that need random bytes (dd if=/dev/urandom). NOT cryptographic: the
 * generator is xoshiro256** (Blackman and Vigna, 2018), a fast statistical generator whose
 * output reveals its state, and its only entropy is the time stamp counter.
 *
 *   seed     - at boot, SplitMix64 spreads the TSC and the boot time over the 256-bit state.
 *   read     - before each read the TSC is mixed in again, so the stream depends on when
 *              processes ran; then 8 bytes per step. Reads never block and never run short
 *              (FreeBSD 5 and later behave so for both names; FreeBSD 4's /dev/random could
 *              block for entropy, which a teaching kernel with no entropy sources cannot
 *              estimate honestly).
 *   write    - the bytes written are mixed into the state (as writing to FreeBSD's adds to its
 *              pool); anyone may write, it only stirs.
 *
 * Locking: random_lock (spinlock) protects the state; bytes are made under it into a small
 * buffer and copied out after it is dropped (copyout may fault).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/time.h"
#include "kern/uio.h"
#include "arch/x86.h"
#include "dev/cdev.h"
#include "dev/random.h"

#define RANDOM_CHUNK 256                /* bytes made per turn of the lock */

static struct spinlock random_lock;
static uint64_t random_state[4];        /* xoshiro256** (random_lock) */

/* SplitMix64: one step of a 64-bit counter through a strong mixer (seeds xoshiro's state). */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256**: the next 64 bits. random_lock held. */
static uint64_t xoshiro_next(void)
{
	uint64_t *s = random_state, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Stir 64 bits into the state: each word gets its own SplitMix64 output of x. random_lock held. */
static void random_stir(uint64_t x)
{
	for (int i = 0; i < 4; i++)
		random_state[i] ^= splitmix64(&x);
	if ((random_state[0] | random_state[1] | random_state[2] | random_state[3]) == 0)
		random_state[0] = 1;            /* the one state xoshiro never leaves */
}

static int random_read(void *arg __unused, struct uio *uio, int ioflag __unused)
{
	uint64_t buf[RANDOM_CHUNK / 8];
	int error = 0;

	while (uio->uio_resid > 0 && error == 0) {
		size_t n = MIN(uio->uio_resid, sizeof(buf));

		spin_lock(&random_lock);
		random_stir(rdtsc());
		for (size_t i = 0; i < howmany(n, 8); i++)
			buf[i] = xoshiro_next();
		spin_unlock(&random_lock);
		error = uiomove(buf, n, uio);
	}
	memset(buf, 0, sizeof(buf));
	return error;
}

static int random_write(void *arg __unused, struct uio *uio, int ioflag __unused)
{
	uint64_t buf[RANDOM_CHUNK / 8];
	int error = 0;

	while (uio->uio_resid > 0 && error == 0) {
		size_t n = MIN(uio->uio_resid, sizeof(buf));

		memset(buf, 0, sizeof(buf));
		error = uiomove(buf, n, uio);
		spin_lock(&random_lock);
		for (size_t i = 0; i < howmany(n, 8); i++)
			random_stir(buf[i]);
		spin_unlock(&random_lock);
	}
	return error;
}

static struct cdevsw random_cdevsw = {
	.d_name  = "random",
	.d_read  = random_read,
	.d_write = random_write,
};

static struct cdevsw urandom_cdevsw = {
	.d_name  = "urandom",
	.d_read  = random_read,
	.d_write = random_write,
};

void random_init(void)
{
	spin_init(&random_lock, "random");
	random_stir(rdtsc() ^ ((uint64_t)boottime.tv_sec << 20));
	cdev_register(&random_cdevsw, NULL);
	cdev_register(&urandom_cdevsw, NULL);
}
