/*
 * crt0.S: user program entry point. The kernel's exec leaves the stack as
 *   %esp -> argc, argv[0..argc-1], NULL, envp[0..], NULL
 * _start aligns the stack to 16 bytes and calls __libc_start(argc, argv, envp),
 * which sets environ, runs main and exits with its return value (lib/stdlib.c).
 */
	.section .text.start, "ax"
	.globl _start
_start:
	xorl  %ebp, %ebp              /* outermost frame, for backtraces */
	movl  (%esp), %eax            /* argc */
	leal  4(%esp), %ebx           /* argv */
	leal  8(%esp,%eax,4), %ecx    /* envp = &argv[argc + 1] */
	andl  $-16, %esp
	subl  $4, %esp                /* three pushes + 4 = 16: aligned at the call */
	pushl %ecx
	pushl %ebx
	pushl %eax
	call  __libc_start
	hlt                           /* not reached: __libc_start calls exit */
	.section .note.GNU-stack, "", @progbits
