/*
 * klib: string functions and vsnprintf for the kernel (see klib.h).
 * vsnprintf understands %d %i %u %x %X %o %p %s %c %% with flags '-', '0', '#', width, precision for %s,
 * and the length modifiers l, ll, z.
 */
#include "kern/klib.h"

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	if (((uintptr_t)dst | (uintptr_t)src | n) % 4 == 0) {
		uint32_t *d = dst;
		const uint32_t *s = src;
		for (n /= 4; n; n--)
			*d++ = *s++;
		return dst;
	}
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (*a == 0)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c == 0 ? (char *)s : NULL;
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;
	for (; *s; s++)
		if (*s == (char)c)
			last = s;
	return c == 0 ? (char *)s : (char *)last;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);
	if (size) {
		size_t c = n < size - 1 ? n : size - 1;
		memcpy(dst, src, c);
		dst[c] = 0;
	}
	return n;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t d = strnlen(dst, size);
	if (d == size)
		return size + strlen(src);
	return d + strlcpy(dst + d, src, size - d);
}

long long strtoll(const char *s, char **end, int base)
{
	long long v = 0;
	int neg = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	} else if (base == 0)
		base = s[0] == '0' ? 8 : 10;
	for (;; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'z')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'Z')
			d = *s - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
	}
	if (end)
		*end = (char *)s;
	return neg ? -v : v;
}

/* Output sink for vsnprintf: counts everything, stores what fits. */
struct sink {
	char  *buf;
	size_t size;
	size_t len;
};

static void put(struct sink *s, char c)
{
	if (s->len + 1 < s->size)
		s->buf[s->len] = c;
	s->len++;
}

static void put_padded(struct sink *s, const char *str, size_t n, int width, bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;
	if (!left)
		while (fill-- > 0)
			put(s, pad);
	while (n--)
		put(s, *str++);
	if (left)
		while (fill-- > 0)
			put(s, ' ');
}

static void put_number(struct sink *s, unsigned long long v, int base, bool neg, bool upper,
                       int width, bool left, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int i = sizeof(tmp);
	do {
		tmp[--i] = digits[v % base];
		v /= base;
	} while (v);
	if (neg) {
		if (pad == '0') {
			put(s, '-');
			width--;
		} else
			tmp[--i] = '-';
	}
	put_padded(s, tmp + i, sizeof(tmp) - i, width, left, pad);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink s = { buf, size, 0 };
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&s, *fmt);
			continue;
		}
		fmt++;
		bool left = false, alt = false;
		char pad = ' ';
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else if (*fmt == '#')
				alt = true;
			else
				break;
		}
		int width = 0, prec = -1, lng = 0;
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		if (*fmt == '.')
			for (prec = 0, fmt++; *fmt >= '0' && *fmt <= '9'; fmt++)
				prec = prec * 10 + (*fmt - '0');
		for (; *fmt == 'l' || *fmt == 'z'; fmt++)
			lng++;   /* l and z are 32 bits on i386; ll is 64 */
		unsigned long long u;
		long long d;
		switch (*fmt) {
		case 'd':
		case 'i':
			d = lng >= 2 ? va_arg(ap, long long) : va_arg(ap, long);
			put_number(&s, d < 0 ? -(unsigned long long)d : (unsigned long long)d, 10, d < 0, false,
			           width, left, pad);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng >= 2 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned long);
			if (alt && u != 0 && (*fmt == 'x' || *fmt == 'X')) {
				put(&s, '0');
				put(&s, *fmt);
				width -= 2;
			} else if (alt && *fmt == 'o')
				put(&s, '0');
			put_number(&s, u, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, false, *fmt == 'X', width, left, pad);
			break;
		case 'p':
			put(&s, '0');
			put(&s, 'x');
			put_number(&s, (uintptr_t)va_arg(ap, void *), 16, false, false, 8, false, '0');
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (str == NULL)
				str = "(null)";
			size_t n = prec >= 0 ? strnlen(str, prec) : strlen(str);
			put_padded(&s, str, n, width, left, ' ');
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			put_padded(&s, &c, 1, width, left, ' ');
			break;
		}
		case '%':
			put(&s, '%');
			break;
		case 0:
			fmt--;
			break;
		default:
			put(&s, '%');
			put(&s, *fmt);
		}
	}
	if (size)
		buf[s.len < size ? s.len : size - 1] = 0;
	return (int)s.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
