/*
 * Kernel entry from a multiboot v1 loader (GRUB 2, or QEMU -kernel).
 * Multiboot spec 0.6.96 §3.1: header magic 0x1BADB002 in the first 8 KB; we ask for page-aligned
 * modules (bit 0) and the memory map (bit 1). The loader enters in 32-bit protected mode, paging off,
 * EAX = 0x2BADB002, EBX = physical address of the multiboot information structure.
 *
 * We are linked at 0x80100000 but run at 0x100000: turn on paging with a boot page directory that
 * maps the first 4 MB identity (for the instructions right after paging is on) and the whole
 * direct map KERNBASE..KERNBASE+DMAP_MAX with 4 MB PSE pages (vm_page_startup needs memory
 * beyond the kernel before pmap_bootstrap runs), jump high, and call kmain(magic, mbinfo) on the
 * boot stack. pmap_bootstrap() replaces the page directory later.
 */
#include "arch/memlayout.h"

#define MB_MAGIC   0x1BADB002
#define MB_FLAGS   0x00000003
#define CR0_PG     0x80000000
#define CR0_WP     0x00010000
#define CR4_PSE    0x00000010

	.section .multiboot
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.text
	.globl _start
_start:
	movl    %eax, %esi                     /* keep the loader's registers */
	movl    %ebx, %edi
	movl    %cr4, %eax
	orl     $CR4_PSE, %eax
	movl    %eax, %cr4
	movl    $V2P_WO(bootpgdir), %eax
	movl    %eax, %cr3
	movl    %cr0, %eax
	orl     $(CR0_PG | CR0_WP), %eax
	movl    %eax, %cr0
	movl    $bootstack_top, %esp
	movl    $1f, %eax
	jmp     *%eax
1:
	xorl    %ebp, %ebp                     /* ends backtraces */
	pushl   %edi
	pushl   %esi
	call    kmain
2:	hlt
	jmp     2b

	.data
	.align 0x1000
	.globl bootpgdir
bootpgdir:                                   /* PDE flags: present | writable | 4 MB page */
	.long   0x00000083
	.fill   (KERNBASE >> 22) - 1, 4, 0
	.set    pa, 0
	.rept   DMAP_MAX >> 22
	.long   pa | 0x83
	.set    pa, pa + 0x400000
	.endr
	.fill   1024 - (KERNBASE >> 22) - (DMAP_MAX >> 22), 4, 0

	.bss
	.align 16
	.globl bootstack
bootstack:
	.space  16384
	.globl bootstack_top
bootstack_top:
