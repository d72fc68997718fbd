/*
 * The console: COM1 serial port (115200 8N1) and the VGA text screen.
 *   cons_early_init()  - output only, usable before anything else is set up.
 *   cons_init()        - input: enable the serial receive interrupt, register /dev/console.
 *   cons_putc(c)       - raw output to both (used by kprintf, which serializes callers).
 *   cons_intr()        - the serial interrupt handler.
 * Input goes through a small line discipline (canonical mode with echo, backspace, ^U, ^D EOF),
 * switchable with TIOCSETA (bit 0 echo, bit 1 canonical) for programs that want raw bytes.
 */
#ifndef _DEV_CONSOLE_H_
#define _DEV_CONSOLE_H_

void cons_early_init(void);
void cons_init(void);
void cons_putc(int c);
void cons_intr(void);

#endif
