/*
 * stdio.h: buffered streams and formatted output (user/libc, lib/stdio.c and lib/printf.c).
 * stdin is fully buffered (a tty read returns a line at a time anyway), stdout is line
 * buffered, stderr unbuffered. exit() flushes every open stream; call fflush(NULL) before fork.
 * printf conversions: d i u x X o s c p %, lengths hh h l ll z j t, flags - 0 + space #,
 * width and precision (also *). No floating point.
 */
#ifndef _STDIO_H_
#define _STDIO_H_

#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>

#define EOF     (-1)
#define BUFSIZ  4096

#define _IOFBF 0   /* fully buffered */
#define _IOLBF 1   /* line buffered */
#define _IONBF 2   /* unbuffered */

typedef struct _file FILE;

extern FILE *stdin, *stdout, *stderr;

FILE  *fopen(const char *path, const char *mode);   /* "r", "w", "a", "r+", "w+", "a+" */
FILE  *fdopen(int fd, const char *mode);
int    fclose(FILE *f);
int    fflush(FILE *f);                              /* NULL flushes every stream */
int    setvbuf(FILE *f, char *buf, int mode, size_t size);   /* buf must be NULL */
size_t fread(void *p, size_t size, size_t n, FILE *f);
size_t fwrite(const void *p, size_t size, size_t n, FILE *f);
int    fgetc(FILE *f);
int    getc(FILE *f);
int    getchar(void);
int    ungetc(int c, FILE *f);
char  *fgets(char *s, int size, FILE *f);
int    fputc(int c, FILE *f);
int    putc(int c, FILE *f);
int    putchar(int c);
int    fputs(const char *s, FILE *f);
int    puts(const char *s);
int    feof(FILE *f);
int    ferror(FILE *f);
void   clearerr(FILE *f);
int    fileno(FILE *f);

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vprintf(const char *fmt, va_list ap);
int vfprintf(FILE *f, const char *fmt, va_list ap);
int vsprintf(char *buf, const char *fmt, va_list ap);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

void perror(const char *s);                  /* "s: strerror(errno)" on stderr */
int  rename(const char *from, const char *to);
int  remove(const char *path);

#endif
