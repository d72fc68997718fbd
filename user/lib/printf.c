/*
 * printf.c: the printf family (user/libc, <stdio.h>).
 * format() walks the format string and stores the output in a buffer (vsnprintf); the
 * FILE functions format into a buffer and fwrite it. Conversions d i u x X o s c p %; lengths hh h l ll z j t;
 * flags - 0 + space #; width and precision, also as *. No floating point.
 */
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

struct sink {
	char   *buf;      /* the buffer, its size, bytes stored in it */
	size_t  size, len;
	int     count;    /* bytes produced (what printf returns; may exceed size) */
};

static void emit(struct sink *s, char c)
{
	if (s->len + 1 < s->size)
		s->buf[s->len++] = c;
	s->count++;
}

static void emitn(struct sink *s, char c, int n)
{
	while (n-- > 0)
		emit(s, c);
}

struct spec {
	int left, zero, plus, space, alt;
	int width, prec;   /* prec < 0: not given */
};

/* An unsigned number in `base` with the sign/prefix, padding and precision of `sp`. */
static void fmt_num(struct sink *s, const struct spec *sp, unsigned long long v, int base,
                    int upper, const char *sign)
{
	char digits[24];
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	const char *prefix = sign;
	int n = 0, zeros, pad, plen;

	while (v) {
		digits[n++] = dig[v % base];
		v /= base;
	}
	zeros = sp->prec > n ? sp->prec - n : 0;
	if (sp->prec < 0 && n == 0)
		zeros = 1;   /* "0"; but precision 0 with value 0 prints nothing, as C says */
	if (sp->alt && base == 8 && zeros == 0)
		zeros = 1;
	if (sp->alt && base == 16 && n > 0)
		prefix = upper ? "0X" : "0x";
	plen = strlen(prefix);
	pad = sp->width - plen - zeros - n;
	if (sp->zero && !sp->left && sp->prec < 0) {
		zeros += pad > 0 ? pad : 0;
		pad = 0;
	}
	if (!sp->left)
		emitn(s, ' ', pad);
	while (*prefix)
		emit(s, *prefix++);
	emitn(s, '0', zeros);
	while (n > 0)
		emit(s, digits[--n]);
	if (sp->left)
		emitn(s, ' ', pad);
}

static void fmt_str(struct sink *s, const struct spec *sp, const char *str)
{
	int n;

	if (!str)
		str = "(null)";
	n = sp->prec >= 0 ? (int)strnlen(str, sp->prec) : (int)strlen(str);
	if (!sp->left)
		emitn(s, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		emit(s, str[i]);
	if (sp->left)
		emitn(s, ' ', sp->width - n);
}

/* Parse flags, width and precision at *fp (just after '%'). */
static void parse_spec(const char **fp, struct spec *sp, va_list *ap)
{
	const char *f = *fp;

	memset(sp, 0, sizeof *sp);
	sp->prec = -1;
	for (;; f++) {
		if (*f == '-')      sp->left = 1;
		else if (*f == '0') sp->zero = 1;
		else if (*f == '+') sp->plus = 1;
		else if (*f == ' ') sp->space = 1;
		else if (*f == '#') sp->alt = 1;
		else break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = 1;
			sp->width = -sp->width;
		}
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + *f++ - '0';
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			f++;
		}
		while (*f >= '0' && *f <= '9')
			sp->prec = sp->prec * 10 + *f++ - '0';
	}
	*fp = f;
}

static int format(struct sink *s, const char *f, va_list ap0)
{
	va_list ap;
	struct spec sp;

	va_copy(ap, ap0);
	for (; *f; f++) {
		int lng = 0;   /* 0 int, 1 long/size_t/ptrdiff_t, 2 long long/intmax_t, -1 short, -2 char */
		long long sv;
		unsigned long long uv;

		if (*f != '%') {
			emit(s, *f);
			continue;
		}
		f++;
		parse_spec(&f, &sp, &ap);
		for (;; f++) {
			if (*f == 'l')                           lng = lng == 1 ? 2 : 1;
			else if (*f == 'h')                      lng = lng == -1 ? -2 : -1;
			else if (*f == 'z' || *f == 't')         lng = 1;
			else if (*f == 'j' || *f == 'q')         lng = 2;
			else break;
		}
		switch (*f) {
		case 'd':
		case 'i':
			sv = lng == 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
			if (lng == -1)
				sv = (short)sv;
			else if (lng == -2)
				sv = (signed char)sv;
			fmt_num(s, &sp, sv < 0 ? 0ULL - (unsigned long long)sv : (unsigned long long)sv, 10, 0,
			        sv < 0 ? "-" : sp.plus ? "+" : sp.space ? " " : "");
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			uv = lng == 2 ? va_arg(ap, unsigned long long) :
			     lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			if (lng == -1)
				uv = (unsigned short)uv;
			else if (lng == -2)
				uv = (unsigned char)uv;
			fmt_num(s, &sp, uv, *f == 'u' ? 10 : *f == 'o' ? 8 : 16, *f == 'X', "");
			break;
		case 'p':
			sp.alt = 1;
			fmt_num(s, &sp, (uintptr_t)va_arg(ap, void *), 16, 0, "");
			break;
		case 's':
			fmt_str(s, &sp, va_arg(ap, const char *));
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			if (!sp.left)
				emitn(s, ' ', sp.width - 1);
			emit(s, c);
			if (sp.left)
				emitn(s, ' ', sp.width - 1);
			break;
		}
		case '%':
			emit(s, '%');
			break;
		case 0:
			f--;   /* a lone % at the end */
			break;
		default:   /* unknown conversion: print it as written */
			emit(s, '%');
			emit(s, *f);
			break;
		}
	}
	va_end(ap);
	return s->count;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink s = { buf, size, 0, 0 };
	int n = format(&s, fmt, ap);

	if (size)
		buf[s.len] = 0;
	return n;
}

int vsprintf(char *buf, const char *fmt, va_list ap)
{
	return vsnprintf(buf, (size_t)INT32_MAX, fmt, ap);
}

/* Format into a buffer first so the stream gets one fwrite (one write(2) on stderr). */
int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	char small[256], *buf = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small) {
		if (!(buf = malloc(n + 1))) {
			va_end(again);
			return -1;
		}
		vsnprintf(buf, n + 1, fmt, again);
	}
	va_end(again);
	if (fwrite(buf, 1, n, f) != (size_t)n)
		n = -1;
	if (buf != small)
		free(buf);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

#define VA_WRAP(call) \
	va_list ap;   \
	int n;        \
	va_start(ap, fmt); \
	n = call;     \
	va_end(ap);   \
	return n

int printf(const char *fmt, ...)                            { VA_WRAP(vfprintf(stdout, fmt, ap)); }
int fprintf(FILE *f, const char *fmt, ...)                  { VA_WRAP(vfprintf(f, fmt, ap)); }
int sprintf(char *buf, const char *fmt, ...)                { VA_WRAP(vsprintf(buf, fmt, ap)); }
int snprintf(char *buf, size_t size, const char *fmt, ...) { VA_WRAP(vsnprintf(buf, size, fmt, ap)); }

/* dprintf formats into a stack buffer and writes it with one write(2). */
int dprintf(int fd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof buf)
		n = sizeof buf - 1;
	return write(fd, buf, n);
}
