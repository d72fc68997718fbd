/* Common trap entry: build a struct trapframe (arch/trap.h), switch to kernel data segments and
 * this CPU's %gs (user code may have changed it; mycpu() reads %gs:0), clear the direction flag
 * (user code may have set it, and the kernel's string copies run forward: FreeBSD's i386
 * alltraps does the same cld), call trap(tf), and return through trapret. */
#define SEG_KDATA 2
#define SEG_KCPU  6

	.text
	.globl alltraps
alltraps:
	pushl %ds
	pushl %es
	pushl %fs
	pushl %gs
	pushal
	movw  $(SEG_KDATA << 3), %ax
	movw  %ax, %ds
	movw  %ax, %es
	movw  $(SEG_KCPU << 3), %ax
	movw  %ax, %gs
	cld
	pushl %esp                 /* argument: the trap frame */
	call  trap
	addl  $4, %esp

	.globl trapret
trapret:
	popal
	popl  %gs
	popl  %fs
	popl  %es
	popl  %ds
	addl  $8, %esp             /* trapno and error code */
	iret
