/*
 * klib: the kernel's small C library and its console printing.
 *   kprintf   - formatted output to every console (serial and VGA); safe from any context.
 *   panic     - print the message, a trap frame if any, a backtrace, and stop all CPUs.
 *   KASSERT   - panic with the expression text when a kernel invariant is false.
 * The string functions have their usual C meanings.
 */
#ifndef _KERN_KLIB_H_
#define _KERN_KLIB_H_

#include "kern/types.h"

void  *memset(void *dst, int c, size_t n);
void  *memcpy(void *dst, const void *src, size_t n);
void  *memmove(void *dst, const void *src, size_t n);
int    memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int    strcmp(const char *a, const char *b);
int    strncmp(const char *a, const char *b, size_t n);
char  *strchr(const char *s, int c);
char  *strrchr(const char *s, int c);
size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);
long long strtoll(const char *s, char **end, int base);

int  vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int  snprintf(char *buf, size_t size, const char *fmt, ...) __printflike(3, 4);
void kprintf(const char *fmt, ...) __printflike(1, 2);
void vkprintf(const char *fmt, va_list ap);
void panic(const char *fmt, ...) __printflike(1, 2) __noreturn;

#define KASSERT(cond, msg) do { \
	if (!(cond)) panic("assertion \"%s\" failed: %s (%s:%d)", #cond, msg, __FILE__, __LINE__); \
} while (0)

#endif
