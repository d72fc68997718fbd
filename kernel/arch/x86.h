/*
 * Inline wrappers for x86 instructions. Every port-I/O and MMIO access has a "memory" clobber so
 * that the compiler cannot move ring/descriptor stores past a doorbell write (a "memory" clobber
 * is a compiler barrier: GCC manual, Extended Asm, "Clobbers and Scratch Registers").
 */
#ifndef _ARCH_X86_H_
#define _ARCH_X86_H_

#include <stdint.h>

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "d"(port) : "memory");
	return v;
}
static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "d"(port) : "memory");
	return v;
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "d"(port) : "memory");
	return v;
}
static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "d"(port) : "memory"); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "d"(port) : "memory"); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "d"(port) : "memory"); }

static inline uint32_t read_eflags(void)
{
	uint32_t f;
	__asm__ volatile("pushfl; popl %0" : "=r"(f));
	return f;
}
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void pause(void) { __asm__ volatile("pause" ::: "memory"); }

static inline uint32_t xchg(volatile uint32_t *addr, uint32_t newval)
{
	uint32_t r;
	__asm__ volatile("lock; xchgl %0, %1" : "+m"(*addr), "=a"(r) : "1"(newval) : "cc", "memory");
	return r;
}

static inline uint32_t rcr0(void) { uint32_t v; __asm__ volatile("movl %%cr0, %0" : "=r"(v)); return v; }
static inline uint32_t rcr2(void) { uint32_t v; __asm__ volatile("movl %%cr2, %0" : "=r"(v)); return v; }
static inline uint32_t rcr3(void) { uint32_t v; __asm__ volatile("movl %%cr3, %0" : "=r"(v)); return v; }
static inline uint32_t rcr4(void) { uint32_t v; __asm__ volatile("movl %%cr4, %0" : "=r"(v)); return v; }
static inline void lcr0(uint32_t v) { __asm__ volatile("movl %0, %%cr0" : : "r"(v) : "memory"); }
static inline void lcr3(uint32_t v) { __asm__ volatile("movl %0, %%cr3" : : "r"(v) : "memory"); }
static inline void lcr4(uint32_t v) { __asm__ volatile("movl %0, %%cr4" : : "r"(v) : "memory"); }
static inline void invlpg(uint32_t va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static inline uint32_t read_ebp(void)
{
	uint32_t v;
	__asm__ volatile("movl %%ebp, %0" : "=r"(v));
	return v;
}

struct segdesc;
static inline void lgdt(void *p, uint16_t size)
{
	volatile uint16_t pd[3];
	pd[0] = size - 1;
	pd[1] = (uint32_t)p;
	pd[2] = (uint32_t)p >> 16;
	__asm__ volatile("lgdt (%0)" : : "r"(pd) : "memory");
}
static inline void lidt(void *p, uint16_t size)
{
	volatile uint16_t pd[3];
	pd[0] = size - 1;
	pd[1] = (uint32_t)p;
	pd[2] = (uint32_t)p >> 16;
	__asm__ volatile("lidt (%0)" : : "r"(pd) : "memory");
}
static inline void ltr(uint16_t sel) { __asm__ volatile("ltr %0" : : "r"(sel)); }

static inline uint32_t mmio_read32(uintptr_t addr) { return *(volatile uint32_t *)addr; }
static inline void mmio_write32(uintptr_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; __asm__ volatile("" ::: "memory"); }

#define FL_IF 0x00000200

#endif
