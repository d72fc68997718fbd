/*
 * AP start-up trampoline. Linked on its own at 0x7000 (arch.mk) and copied there by
 * smp_start_aps() (mp.c), which also leaves its arguments in the 16 bytes just below:
 *   0x6ff0  physical address of the boot page directory (bootpgdir: identity 0-4 MB + KERNBASE)
 *   0x6ff4  physical address of the kernel page directory (the BSP's CR3)
 *   0x6ff8  entry point: ap_main (kernel virtual address)
 *   0x6ffc  top of this CPU's kernel stack (kernel virtual address)
 * The STARTUP IPI with vector 0x07 starts the AP in real mode at CS:IP = 0x0700:0000 (Intel SDM
 * vol. 3A §8.4.4.1). Then: load a flat GDT and enter protected mode (§9.9.1), turn on CR4.PSE
 * (the kernel uses 4 MB pages) and paging with the boot page directory, whose identity map keeps
 * the next instruction fetch valid (§9.9.1: the instructions that enable paging must be
 * identity-mapped); jump to this code's KERNBASE alias, switch to the kernel page directory (which
 * maps only the kernel half), take the stack and call ap_main, which never returns.
 */
#include "arch/memlayout.h"

#define AP_ARGS     0x6ff0
#define CR0_PE      0x00000001
#define CR0_WP      0x00010000
#define CR0_PG      0x80000000
#define CR4_PSE     0x00000010
#define SEL_CODE    0x08
#define SEL_DATA    0x10

	.code16
	.globl start
start:
	cli
	cld
	xorw    %ax, %ax
	movw    %ax, %ds
	movw    %ax, %es
	movw    %ax, %ss
	lgdtl   gdtdesc
	movl    %cr0, %eax
	orl     $CR0_PE, %eax
	movl    %eax, %cr0
	ljmpl   $SEL_CODE, $start32

	.code32
start32:
	movw    $SEL_DATA, %ax
	movw    %ax, %ds
	movw    %ax, %es
	movw    %ax, %ss
	xorw    %ax, %ax
	movw    %ax, %fs
	movw    %ax, %gs
	movl    %cr4, %eax
	orl     $CR4_PSE, %eax
	movl    %eax, %cr4
	movl    AP_ARGS, %eax                  /* boot page directory */
	movl    %eax, %cr3
	movl    %cr0, %eax
	orl     $(CR0_PG | CR0_WP), %eax
	movl    %eax, %cr0
	movl    $(KERNBASE + high), %eax
	jmp     *%eax

high:                                      /* now at KERNBASE + 0x7xxx */
	lgdt    (KERNBASE + gdtdesc_high)      /* the GDT through its kernel-half address */
	movl    (KERNBASE + AP_ARGS + 4), %eax /* kernel page directory */
	movl    %eax, %cr3
	movl    (KERNBASE + AP_ARGS + 12), %esp
	xorl    %ebp, %ebp                     /* ends backtraces */
	call    *(KERNBASE + AP_ARGS + 8)
1:	hlt
	jmp     1b

	.p2align 3
gdt:                                       /* null, flat 4 GB code (0x9a) and data (0x92), 32-bit */
	.quad   0
	.quad   0x00cf9a000000ffff
	.quad   0x00cf92000000ffff
gdtdesc:
	.word   gdtdesc - gdt - 1
	.long   gdt
gdtdesc_high:
	.word   gdtdesc - gdt - 1
	.long   KERNBASE + gdt
