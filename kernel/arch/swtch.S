/*
 * swtch(struct context **old, struct context *new): save the callee-saved registers on the
 * current stack, store the stack pointer in *old, switch to new's stack and restore its
 * registers (xv6's context switch; struct context is that register image).
 */
	.text
	.globl swtch
swtch:
	movl 4(%esp), %eax
	movl 8(%esp), %edx
	pushl %ebp
	pushl %ebx
	pushl %esi
	pushl %edi
	movl %esp, (%eax)
	movl %edx, %esp
	popl %edi
	popl %esi
	popl %ebx
	popl %ebp
	ret
