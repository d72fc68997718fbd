/* stdlib.h: memory allocation, number conversion, sorting, environment and exit (user/libc). */
#ifndef _STDLIB_H_
#define _STDLIB_H_

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

void *malloc(size_t n);             /* lib/malloc.c */
void  free(void *p);
void *calloc(size_t nmemb, size_t size);
void *realloc(void *p, size_t n);

void  exit(int status) __attribute__((noreturn));   /* runs atexit functions, flushes stdio */
void  abort(void) __attribute__((noreturn));
int   atexit(void (*fn)(void));

int                atoi(const char *s);
long               atol(const char *s);
long long          atoll(const char *s);
long               strtol(const char *s, char **end, int base);
unsigned long      strtoul(const char *s, char **end, int base);
long long          strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
#define RAND_MAX 0x7ffffffd
int                rand_r(unsigned int *seed);   /* Park-Miller, state in *seed */
int                abs(int x);
long               labs(long x);

void  qsort(void *base, size_t nmemb, size_t size, int (*cmp)(const void *, const void *));

char *realpath(const char *path, char *resolved);   /* lib/realpath.c: resolved[PATH_MAX] */
char *getenv(const char *name);
int   setenv(const char *name, const char *value, int overwrite);
int   unsetenv(const char *name);

#endif
