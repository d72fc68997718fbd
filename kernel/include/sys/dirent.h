/* Directory entries as returned by getdents(2). Shared by kernel and user/lib. */
#ifndef _SYS_DIRENT_H_
#define _SYS_DIRENT_H_

#include <stdint.h>

#define MAXNAMLEN 255

/* getdents fills the buffer with whole records of d_reclen bytes each (4-byte aligned). */
struct dirent {
	uint32_t d_ino;
	uint16_t d_reclen;
	uint8_t  d_type;
	uint8_t  d_namlen;
	char     d_name[MAXNAMLEN + 1];
};

#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK    10
#define DT_SOCK   12

#endif
