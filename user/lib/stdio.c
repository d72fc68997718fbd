/*
 * stdio.c: buffered streams (user/libc, <stdio.h>).
 * A FILE is a descriptor plus one buffer used either for reading (pos..len holds unread
 * bytes) or for writing (0..len holds unwritten bytes), never both at once: switching
 * direction flushes written data or discards read-ahead (seeking back over it).
 * Streams live on a list so exit() can flush them all (__stdio_flushall).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>

struct _file {
	int    fd;
	int    bufmode;       /* _IOFBF, _IOLBF, _IONBF */
	int    flags;         /* F_* */
	char  *buf;
	size_t size;
	size_t pos, len;      /* reading: next unread byte, end of data; writing: len = bytes held */
	int    ungot;         /* ungetc'd byte or EOF */
	struct _file *next;   /* all streams */
};

#define F_READ   0x01     /* opened for reading */
#define F_WRITE  0x02     /* opened for writing */
#define F_EOF    0x04
#define F_ERR    0x08
#define F_WRMODE 0x10     /* the buffer holds written data */
#define F_STATIC 0x20     /* stdin/stdout/stderr: not freed */

static char inbuf[BUFSIZ], outbuf[BUFSIZ];
static FILE sin  = { 0, _IOFBF, F_READ | F_STATIC, inbuf, BUFSIZ, 0, 0, EOF, NULL };
static FILE sout = { 1, _IOLBF, F_WRITE | F_STATIC, outbuf, BUFSIZ, 0, 0, EOF, &sin };
static FILE serr = { 2, _IONBF, F_WRITE | F_STATIC, NULL, 0, 0, 0, EOF, &sout };
FILE *stdin = &sin, *stdout = &sout, *stderr = &serr;
static FILE *streams = &serr;

void __stdio_flushall(void);

/* Write out what the buffer holds. */
static int flushbuf(FILE *f)
{
	size_t off = 0;

	while (off < f->len) {
		ssize_t n = write(f->fd, f->buf + off, f->len - off);
		if (n <= 0) {
			f->flags |= F_ERR;
			f->len = 0;
			return EOF;
		}
		off += n;
	}
	f->len = 0;
	return 0;
}

/* Drop read-ahead so the descriptor's offset is where the reader is. */
static void dropreadahead(FILE *f)
{
	off_t unread = f->len - f->pos + (f->ungot != EOF);

	if (unread > 0)
		lseek(f->fd, -unread, SEEK_CUR);   /* fails harmlessly on pipes and ttys */
	f->pos = f->len = 0;
	f->ungot = EOF;
}

int fflush(FILE *f)
{
	if (!f) {
		__stdio_flushall();
		return 0;
	}
	if (f->flags & F_WRMODE)
		return flushbuf(f);
	if (f->flags & F_READ)
		dropreadahead(f);
	return 0;
}

void __stdio_flushall(void)
{
	for (FILE *f = streams; f; f = f->next)
		if (f->flags & F_WRMODE)
			flushbuf(f);
}

/* Parse an fopen mode into open(2) flags and our F_ bits; -1 if bad. */
static int parsemode(const char *mode, int *oflags)
{
	int plus = strchr(mode, '+') != NULL;

	switch (mode[0]) {
	case 'r': *oflags = plus ? O_RDWR : O_RDONLY; return plus ? F_READ | F_WRITE : F_READ;
	case 'w': *oflags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC; break;
	case 'a': *oflags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND; break;
	default:  errno = EINVAL; return -1;
	}
	return plus ? F_READ | F_WRITE : F_WRITE;
}

FILE *fdopen(int fd, const char *mode)
{
	int oflags, fl = parsemode(mode, &oflags);
	FILE *f;

	if (fl < 0 || !(f = calloc(1, sizeof *f)))
		return NULL;
	if (!(f->buf = malloc(BUFSIZ))) {
		free(f);
		return NULL;
	}
	f->fd = fd;
	f->flags = fl;
	f->size = BUFSIZ;
	f->bufmode = isatty(fd) ? _IOLBF : _IOFBF;
	f->ungot = EOF;
	f->next = streams;
	streams = f;
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	int oflags, fd;
	FILE *f;

	if (parsemode(mode, &oflags) < 0)
		return NULL;
	if ((fd = open(path, oflags, 0666)) < 0)
		return NULL;
	if (!(f = fdopen(fd, mode)))
		close(fd);
	return f;
}

int fclose(FILE *f)
{
	int r = fflush(f);
	FILE **pp;

	if (close(f->fd) < 0)
		r = EOF;
	if (f->flags & F_STATIC) {
		f->flags &= ~(F_READ | F_WRITE);
		return r;
	}
	for (pp = &streams; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	free(f->buf);
	free(f);
	return r;
}

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	if (buf || mode < _IOFBF || mode > _IONBF)
		return EOF;
	fflush(f);
	f->bufmode = mode;
	return 0;
}

int fileno(FILE *f)      { return f->fd; }
int feof(FILE *f)        { return (f->flags & F_EOF) != 0; }
int ferror(FILE *f)      { return (f->flags & F_ERR) != 0; }
void clearerr(FILE *f)   { f->flags &= ~(F_EOF | F_ERR); }

/* Refill an empty read buffer: 0 or EOF (end of file or error, flagged). */
static int fill(FILE *f)
{
	ssize_t n;

	if (!(f->flags & F_READ)) {
		f->flags |= F_ERR;
		errno = EBADF;
		return EOF;
	}
	if (f->flags & F_WRMODE) {
		if (flushbuf(f) == EOF)
			return EOF;
		f->flags &= ~F_WRMODE;
	}
	if (f == stdin)
		fflush(stdout);   /* a prompt appears before we wait for the answer */
	n = read(f->fd, f->buf, f->size);
	if (n <= 0) {
		f->flags |= n == 0 ? F_EOF : F_ERR;
		return EOF;
	}
	f->pos = 0;
	f->len = n;
	return 0;
}

int fgetc(FILE *f)
{
	int c;

	if (f->ungot != EOF) {
		c = f->ungot;
		f->ungot = EOF;
		return c;
	}
	if (f->pos == f->len && fill(f) == EOF)
		return EOF;
	return (unsigned char)f->buf[f->pos++];
}

int getc(FILE *f)   { return fgetc(f); }
int getchar(void)   { return fgetc(stdin); }

int ungetc(int c, FILE *f)
{
	if (c == EOF || f->ungot != EOF)
		return EOF;
	f->ungot = (unsigned char)c;
	f->flags &= ~F_EOF;
	return c;
}

char *fgets(char *s, int size, FILE *f)
{
	int i = 0, c = 0;

	while (i < size - 1 && (c = fgetc(f)) != EOF) {
		s[i++] = c;
		if (c == '\n')
			break;
	}
	if (i == 0 && size > 1)
		return NULL;
	s[i] = 0;
	return s;
}

size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	unsigned char *d = p;
	size_t total = size * n, got = 0;
	int c;

	if (!size || !n)
		return 0;
	while (got < total) {
		if (f->ungot == EOF && f->pos < f->len) {
			size_t k = f->len - f->pos;
			if (k > total - got)
				k = total - got;
			memcpy(d + got, f->buf + f->pos, k);
			f->pos += k;
			got += k;
			continue;
		}
		if ((c = fgetc(f)) == EOF)
			break;
		d[got++] = c;
	}
	return got / size;
}

/* Put one byte; flush as the buffering mode says. */
int fputc(int c, FILE *f)
{
	unsigned char ch = c;

	if (!(f->flags & F_WRITE)) {
		f->flags |= F_ERR;
		errno = EBADF;
		return EOF;
	}
	if (!(f->flags & F_WRMODE)) {
		if (f->flags & F_READ)
			dropreadahead(f);
		f->flags |= F_WRMODE;
		f->len = 0;
	}
	if (f->bufmode == _IONBF || !f->buf) {
		if (write(f->fd, &ch, 1) != 1) {
			f->flags |= F_ERR;
			return EOF;
		}
		return ch;
	}
	f->buf[f->len++] = ch;
	if (f->len == f->size || (f->bufmode == _IOLBF && ch == '\n'))
		if (flushbuf(f) == EOF)
			return EOF;
	return ch;
}

int putc(int c, FILE *f) { return fputc(c, f); }
int putchar(int c)       { return fputc(c, stdout); }

/* Unbuffered streams write whole runs in one write(2), so stderr lines are not split. */
size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	const unsigned char *s = p;
	size_t total = size * n, i;

	if (!size || !n)
		return 0;
	if (f->bufmode == _IONBF && (f->flags & F_WRITE)) {
		fflush(f);
		for (i = 0; i < total;) {
			ssize_t k = write(f->fd, s + i, total - i);
			if (k <= 0) {
				f->flags |= F_ERR;
				break;
			}
			i += k;
		}
		return i / size;
	}
	for (i = 0; i < total; i++)
		if (fputc(s[i], f) == EOF)
			break;
	return i / size;
}

int fputs(const char *s, FILE *f)
{
	size_t n = strlen(s);

	return fwrite(s, 1, n, f) == n ? 0 : EOF;
}

int puts(const char *s)
{
	return fputs(s, stdout) == EOF || fputc('\n', stdout) == EOF ? EOF : 0;
}

int remove(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rmdir(path);
	return unlink(path);
}
