/*
 * Saved kernel registers of a thread that is not running (xv6's struct context): swtch() pushes
 * the callee-saved registers and the return address; a new thread's context is built so that
 * swtch "returns" into its start function.
 */
#ifndef _ARCH_CONTEXT_H_
#define _ARCH_CONTEXT_H_

#include <stdint.h>

struct context {
	uint32_t edi, esi, ebx, ebp;
	uint32_t eip;
};

void swtch(struct context **old, struct context *new);

#endif
