/*
 * ns16550.h - the PC's 16550 UART, shared by the console (COM1, dev/console.c) and the second
 * serial port (COM2, dev/sio.c). Register offsets from the base port, PC16550D data sheet:
 * THR/RBR +0, IER +1, FCR/IIR +2, LCR +3, MCR +4, LSR +5, SCR (scratch) +7. FreeBSD keeps the
 * same definitions in sys/dev/ic/ns16550.h.
 *   ns16550_init(base)     115200 baud, 8N1, FIFOs on, DTR/RTS/OUT2, interrupts off.
 *   ns16550_putc(base, c)  wait (bounded) for the transmit holding register, then send c.
 *   ns16550_present(base)  whether a UART answers at base: the scratch register keeps what is
 *                          written to it, while an empty ISA port reads back 0xff.
 */
#ifndef _DEV_NS16550_H_
#define _DEV_NS16550_H_

#include "kern/types.h"
#include "arch/x86.h"

#define COM1       0x3f8
#define COM2       0x2f8
#define UART_RBR   0
#define UART_THR   0
#define UART_IER   1
#define UART_FCR   2
#define UART_LCR   3
#define UART_MCR   4
#define UART_LSR   5
#define UART_SCR   7
#define LSR_DR     0x01     /* data ready */
#define LSR_THRE   0x20     /* transmit holding register empty */

static inline void ns16550_init(int base)
{
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, 0x80);        /* DLAB: set the divisor */
	outb(base + 0, 1);                  /* 115200 baud = 115200 / 1 */
	outb(base + 1, 0);
	outb(base + UART_LCR, 0x03);        /* 8N1 */
	outb(base + UART_FCR, 0x07);        /* FIFOs on and cleared */
	outb(base + UART_MCR, 0x0b);        /* DTR, RTS, OUT2 (OUT2 gates the IRQ line) */
}

static inline void ns16550_putc(int base, int c)
{
	for (int i = 0; i < 100000 && !(inb(base + UART_LSR) & LSR_THRE); i++)
		pause();
	outb(base + UART_THR, c);
}

static inline bool ns16550_present(int base)
{
	outb(base + UART_SCR, 0x5a);
	if (inb(base + UART_SCR) != 0x5a)
		return false;
	outb(base + UART_SCR, 0xa5);
	return inb(base + UART_SCR) == 0xa5;
}

#endif
