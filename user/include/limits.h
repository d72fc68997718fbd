/* limits.h: integer limits of the i386 ABI and wdrain's path limits (user/libc). */
#ifndef _LIMITS_H_
#define _LIMITS_H_

#define CHAR_BIT   8
#define SCHAR_MIN  (-128)
#define SCHAR_MAX  127
#define UCHAR_MAX  255
#define CHAR_MIN   SCHAR_MIN
#define CHAR_MAX   SCHAR_MAX
#define SHRT_MIN   (-32768)
#define SHRT_MAX   32767
#define USHRT_MAX  65535
#define INT_MIN    (-2147483647 - 1)
#define INT_MAX    2147483647
#define UINT_MAX   4294967295U
#define LONG_MIN   (-2147483647L - 1)
#define LONG_MAX   2147483647L
#define ULONG_MAX  4294967295UL
#define LLONG_MIN  (-9223372036854775807LL - 1)
#define LLONG_MAX  9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#define SSIZE_MAX  INT_MAX

#define PATH_MAX   1024   /* bytes in a path name, including the NUL */
#define NAME_MAX   255    /* bytes in a file name (MAXNAMLEN) */
#define OPEN_MAX   64     /* descriptors per process (the kernel's NOFILE) */

#endif
