/*
 * The multiboot v1 information structure (Multiboot Specification 0.6.96 §3.3).
 */
#ifndef _ARCH_MULTIBOOT_H_
#define _ARCH_MULTIBOOT_H_

#include <stdint.h>

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002
#define MBI_FLAG_MEM     0x001
#define MBI_FLAG_CMDLINE 0x004
#define MBI_FLAG_MODS    0x008
#define MBI_FLAG_SHDR    0x020
#define MBI_FLAG_MMAP    0x040

struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;     /* KB below 1 MB / above 1 MB */
	uint32_t boot_device;
	uint32_t cmdline;                  /* physical address of a C string */
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
};

struct multiboot_mod {
	uint32_t mod_start, mod_end;       /* physical, [start, end) */
	uint32_t string;
	uint32_t reserved;
};

/* Memory map entries: `size` does not count itself. type 1 = available RAM. */
struct multiboot_mmap {
	uint32_t size;
	uint64_t addr;
	uint64_t len;
	uint32_t type;
} __attribute__((packed));

#endif
