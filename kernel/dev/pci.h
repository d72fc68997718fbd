/*
 * PCI: configuration mechanism #1 (I/O ports 0xCF8/0xCFC, PCI Local Bus Spec 3.0 §3.2.2.3.2),
 * bus enumeration at boot, BARs, bus mastering, MSI, and the legacy INTx line.
 *   pci_init()                   - enumerate every bus/device/function; print one line per function.
 *   pci_register_driver(drv)     - drivers call this from their init; pci_attach_drivers() then
 *                                  calls drv->probe(dev) for every function whose vendor/device
 *                                  (or class) matches, in bus order.
 *   pci_cfg_read32/16/8, pci_cfg_write32/16/8 - configuration space access.
 *   pci_bar(dev, i, &base, &size, &is_io)     - decoded BAR i (sizes found by the all-ones probe).
 *   pci_enable(dev, io, mem, busmaster)       - set the command register bits.
 *   pci_find_cap(dev, id)        - offset of a capability (0x05 = MSI, 0x11 = MSI-X), or 0.
 *   pci_setup_intr(dev, fn, arg, name)        - MSI if the device offers it, otherwise its INTx line
 *                                  through the IOAPIC (level-triggered); returns 0 or errno and says
 *                                  which on the console.
 */
#ifndef _DEV_PCI_H_
#define _DEV_PCI_H_

#include "kern/types.h"

struct pci_dev {
	uint8_t  bus, slot, func;
	uint16_t vendor, device;
	uint8_t  class, subclass, progif, revision;
	uint8_t  irq_line, irq_pin;
	struct pci_dev *next;
};

struct pci_driver {
	const char *name;
	int (*match)(struct pci_dev *dev);     /* nonzero if this driver handles dev */
	int (*attach)(struct pci_dev *dev);    /* 0 or errno; messages are the driver's */
	struct pci_driver *next;
};

void     pci_init(void);
void     pci_register_driver(struct pci_driver *drv);
void     pci_attach_drivers(void);
struct pci_dev *pci_first(void);

uint32_t pci_cfg_read32(struct pci_dev *d, int off);
uint16_t pci_cfg_read16(struct pci_dev *d, int off);
uint8_t  pci_cfg_read8(struct pci_dev *d, int off);
void     pci_cfg_write32(struct pci_dev *d, int off, uint32_t v);
void     pci_cfg_write16(struct pci_dev *d, int off, uint16_t v);
void     pci_cfg_write8(struct pci_dev *d, int off, uint8_t v);
int      pci_bar(struct pci_dev *d, int i, uint32_t *base, uint32_t *size, bool *is_io);
void     pci_enable(struct pci_dev *d, bool io, bool mem, bool busmaster);
int      pci_find_cap(struct pci_dev *d, int id);
int      pci_setup_intr(struct pci_dev *d, void (*fn)(void *), void *arg, const char *name);

#endif
