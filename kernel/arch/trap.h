/*
 * Traps, exceptions and interrupts.
 * struct trapframe is what alltraps (trapasm.S) pushes: the general registers, segment registers,
 * the vector number and error code, and what the CPU pushed (eip, cs, eflags, and esp/ss when
 * coming from user mode).
 */
#ifndef _ARCH_TRAP_H_
#define _ARCH_TRAP_H_

#include "kern/types.h"

struct trapframe {
	uint32_t edi, esi, ebp, oesp, ebx, edx, ecx, eax;   /* pushal */
	uint16_t gs, pad1, fs, pad2, es, pad3, ds, pad4;
	uint32_t trapno;
	uint32_t err;
	uint32_t eip;
	uint16_t cs, pad5;
	uint32_t eflags;
	uint32_t esp;      /* only when crossing rings */
	uint16_t ss, pad6;
};

/* Processor-defined exceptions (Intel SDM vol. 3 §6.3.1). */
#define T_DIVIDE   0
#define T_DEBUG    1
#define T_NMI      2
#define T_BRKPT    3
#define T_OFLOW    4
#define T_BOUND    5
#define T_ILLOP    6
#define T_DEVICE   7
#define T_DBLFLT   8
#define T_TSS     10
#define T_SEGNP   11
#define T_STACK   12
#define T_GPFLT   13
#define T_PGFLT   14
#define T_FPERR   16
#define T_ALIGN   17
#define T_MCHK    18
#define T_SIMDERR 19

void idt_init(void);       /* build the IDT (once) */
void idt_load(void);       /* load it on this CPU */
void trap(struct trapframe *tf);
void trapret(void);        /* return to user mode through a trap frame */
void print_trapframe(struct trapframe *tf);

#endif
