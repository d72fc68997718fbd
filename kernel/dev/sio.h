/*
 * The second serial port, COM2, as /dev/ttyd1 (dev/sio.c): an output-only data channel that
 * keeps machine-readable streams (the experiment's samples) off the console.
 *   sio_init() - if a UART answers at COM2, program it and register /dev/ttyd1 (main calls it
 *                after cons_init; without a second UART there is no /dev/ttyd1).
 */
#ifndef _DEV_SIO_H_
#define _DEV_SIO_H_

void sio_init(void);

#endif
