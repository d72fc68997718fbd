/*
 * malloc.c: malloc/free/calloc/realloc over sbrk (user/libc).
 * K&R's allocator: a circular free list of blocks sorted by address, each block a header
 * (size in header units, next free block) followed by its bytes. malloc takes the first
 * block that fits, splitting it; free inserts the block and coalesces it with its
 * neighbours. The heap grows by at least 64 KB at a time and never shrinks.
 */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <errno.h>

typedef union header {
	struct {
		union header *next;   /* next free block (free blocks only) */
		size_t        units;  /* size of this block, header included, in headers */
	} s;
	long long align;          /* 8-byte alignment for every allocation */
} Header;

static Header  base;          /* zero-size block that anchors the free list */
static Header *freep;         /* where the last search ended */

#define MINGROW 8192          /* headers (64 KB) per sbrk */

static Header *morecore(size_t units)
{
	Header *h;

	if (units < MINGROW)
		units = MINGROW;
	if (units > SIZE_MAX / sizeof(Header) || units * sizeof(Header) > INTPTR_MAX)
		return NULL;
	h = sbrk(units * sizeof(Header));
	if (h == (void *)-1)
		return NULL;
	h->s.units = units;
	free(h + 1);
	return freep;
}

void *malloc(size_t n)
{
	Header *p, *prev;
	size_t units;

	if (n > SIZE_MAX - 2 * sizeof(Header)) {
		errno = ENOMEM;
		return NULL;
	}
	units = (n + sizeof(Header) - 1) / sizeof(Header) + 1;
	if (!freep) {
		base.s.next = freep = &base;
		base.s.units = 0;
	}
	for (prev = freep, p = prev->s.next;; prev = p, p = p->s.next) {
		if (p->s.units >= units) {
			if (p->s.units == units) {
				prev->s.next = p->s.next;
			} else {
				p->s.units -= units;   /* hand out the tail end */
				p += p->s.units;
				p->s.units = units;
			}
			freep = prev;
			return p + 1;
		}
		if (p == freep && !(p = morecore(units))) {
			errno = ENOMEM;
			return NULL;
		}
	}
}

void free(void *ap)
{
	Header *b, *p;

	if (!ap)
		return;
	b = (Header *)ap - 1;
	for (p = freep; !(b > p && b < p->s.next); p = p->s.next)
		if (p >= p->s.next && (b > p || b < p->s.next))
			break;   /* at the wrap-around point of the list */
	if (b + b->s.units == p->s.next) {
		b->s.units += p->s.next->s.units;
		b->s.next = p->s.next->s.next;
	} else {
		b->s.next = p->s.next;
	}
	if (p + p->s.units == b) {
		p->s.units += b->s.units;
		p->s.next = b->s.next;
	} else {
		p->s.next = b;
	}
	freep = p;
}

void *calloc(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(nmemb * size);
	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

void *realloc(void *old, size_t n)
{
	size_t have;
	void *p;

	if (!old)
		return malloc(n);
	have = (((Header *)old - 1)->s.units - 1) * sizeof(Header);
	if (n <= have)
		return old;
	p = malloc(n);
	if (p) {
		memcpy(p, old, have);
		free(old);
	}
	return p;
}
