/* ELF32 file structures (System V ABI, "ELF" chapter; Intel386 supplement: EM_386 = 3). */
#ifndef _KERN_ELF_H_
#define _KERN_ELF_H_

#include <stdint.h>

#define ELF_MAGIC   0x464c457fu    /* "\x7fELF", little-endian */
#define ELFCLASS32  1
#define ELFDATA2LSB 1
#define ET_EXEC     2
#define EM_386      3
#define PT_LOAD     1
#define PF_X        1
#define PF_X        1
#define PF_W        2
#define PF_R        4

struct elf_ehdr {
	uint32_t e_magic;
	uint8_t  e_class, e_data, e_version0, e_osabi;
	uint8_t  e_pad[8];
	uint16_t e_type, e_machine;
	uint32_t e_version, e_entry, e_phoff, e_shoff, e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct elf_phdr {
	uint32_t p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align;
};

#endif
