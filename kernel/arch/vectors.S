/*
 * The 256 interrupt entry points. Each pushes an error code (0 where the CPU pushes none;
 * Intel SDM vol. 3 §6.13: vectors 8, 10-14, 17 and 21 have one) and its vector number, then
 * jumps to alltraps. `vectors` is the table of their addresses that idt_init() installs.
 */
.macro VEC n
	.text
	.globl vector\n
vector\n:
	.if (\n == 8) || (\n >= 10 && \n <= 14) || (\n == 17) || (\n == 21)
	.else
	pushl $0
	.endif
	pushl $\n
	jmp alltraps
	.data
	.long vector\n
.endm

	.data
	.globl vectors
vectors:
.altmacro
.set i, 0
.rept 256
	VEC %i
	.set i, i + 1
.endr
