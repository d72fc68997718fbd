/*
 * pci.c - PCI bus enumeration, configuration space, BARs, capabilities and interrupt set-up
 * (interface: dev/pci.h).
 *
 * Configuration mechanism #1 (PCI Local Bus Spec 3.0 §3.2.2.3.2): write the address of a dword
 * (enable bit 31, bus 23:16, device 15:11, function 10:8, register 7:2) to CONFIG_ADDRESS (0xCF8),
 * then read or write CONFIG_DATA (0xCFC); sub-dword accesses use the byte lanes 0xCFC + (off & 3).
 *
 * pci_init() walks bus 0 and, through every PCI-to-PCI bridge (class 06.04, header type 1), its
 * secondary bus, depth first, so devices are listed in bus order. A device is present when its
 * vendor ID is not FFFFh; function 0's header type bit 7 says whether functions 1-7 exist. Each
 * function gets a struct pci_dev, kept forever, and one console line:
 *     pci0: 00:04.0 8086:2922 class 01.06 irq 11
 * The same lines are the value of the read-only sysctl hw.pci.devices.
 *
 * Drivers register with pci_register_driver() from their init function; pci_attach_drivers() then
 * offers every function, in bus order, to each driver's match(); the first driver that matches gets
 * attach(). pci_setup_intr() gives a driver its interrupt: a single-vector MSI when the function has
 * an MSI capability (§6.8.1) and hw.pci.enable_msi is 1, otherwise the INTx line the firmware put in
 * the Interrupt Line register, level-triggered through the IOAPIC.
 *
 * Locking: pci_cfg_lock makes the CONFIG_ADDRESS/CONFIG_DATA pair atomic across CPUs. The device
 * and driver lists are built at boot on one CPU and only read afterwards.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sysctl.h"
#include "arch/x86.h"
#include "arch/intr.h"
#include "dev/pci.h"
#include <sys/errno.h>

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA    0xcfc

/* Configuration header registers (PCI 3.0 §6.1, PCI-to-PCI Bridge Spec 1.2 §3.2). */
#define PCIR_VENDOR    0x00
#define PCIR_DEVICE    0x02
#define PCIR_COMMAND   0x04
#define PCIR_STATUS    0x06
#define PCIR_REVID     0x08
#define PCIR_PROGIF    0x09
#define PCIR_SUBCLASS  0x0a
#define PCIR_CLASS     0x0b
#define PCIR_HDRTYPE   0x0e
#define PCIR_BAR0      0x10
#define PCIR_SECBUS    0x19     /* bridges: secondary bus number */
#define PCIR_CAPPTR    0x34
#define PCIR_INTLINE   0x3c
#define PCIR_INTPIN    0x3d

#define PCIM_CMD_IO        0x0001
#define PCIM_CMD_MEM       0x0002
#define PCIM_CMD_BUSMASTER 0x0004
#define PCIM_CMD_INTXDIS   0x0400
#define PCIM_STATUS_CAPLIST 0x0010
#define PCIM_HDRTYPE       0x7f
#define PCIM_MFDEV         0x80

/* MSI capability (PCI 3.0 §6.8.1.3): control at +2, address at +4, then data (32-bit form) or
 * upper address and data (64-bit form); with per-vector masking the mask bits follow the data. */
#define PCIY_MSI           0x05
#define PCIR_MSI_CTRL      0x02
#define PCIR_MSI_ADDR      0x04
#define PCIR_MSI_ADDR_HIGH 0x08
#define PCIR_MSI_DATA      0x08
#define PCIR_MSI_DATA_64   0x0c
#define PCIR_MSI_MASK      0x0c
#define PCIR_MSI_MASK_64   0x10
#define PCIM_MSICTRL_ENABLE   0x0001
#define PCIM_MSICTRL_MME_MASK 0x0070
#define PCIM_MSICTRL_64BIT    0x0080
#define PCIM_MSICTRL_VECTOR   0x0100

#define PCI_NBUS   256
#define PCI_NSLOT  32
#define PCI_NFUNC  8
#define PCI_LISTLEN 4096

static struct spinlock pci_cfg_lock = { .name = "pcicfg" };
static struct pci_dev *pci_devs, *pci_devs_tail;      /* built by pci_init, then read-only */
static struct pci_driver *pci_drivers, *pci_drivers_tail;
static bool pci_bus_seen[PCI_NBUS];
static char pci_list[PCI_LISTLEN];                     /* hw.pci.devices; built by pci_init */

static int pci_enable_msi = 1;
SYSCTL_PROC(hw_pci_enable_msi, "hw.pci.enable_msi", CTLTYPE_INT | CTLFLAG_RW, &pci_enable_msi, 0,
            NULL, "I", "Use MSI for devices that offer it (read when a driver sets up its interrupt)");
SYSCTL_PROC(hw_pci_devices, "hw.pci.devices", CTLTYPE_STRING | CTLFLAG_RD, pci_list, sizeof(pci_list),
            NULL, "A", "PCI functions found at boot: bus:slot.func vendor:device class irq");

/* ---- configuration space --------------------------------------------------------------------- */

static uint32_t cfg_address(uint8_t bus, uint8_t slot, uint8_t func, int off)
{
	return 0x80000000u | (uint32_t)bus << 16 | (uint32_t)slot << 11 | (uint32_t)func << 8 |
	       ((uint32_t)off & 0xfc);
}

static uint32_t cfg_read(uint8_t bus, uint8_t slot, uint8_t func, int off, int width)
{
	uint32_t v;

	spin_lock(&pci_cfg_lock);
	outl(PCI_CONFIG_ADDRESS, cfg_address(bus, slot, func, off));
	if (width == 4)
		v = inl(PCI_CONFIG_DATA);
	else if (width == 2)
		v = inw(PCI_CONFIG_DATA + (off & 2));
	else
		v = inb(PCI_CONFIG_DATA + (off & 3));
	spin_unlock(&pci_cfg_lock);
	return v;
}

static void cfg_write(uint8_t bus, uint8_t slot, uint8_t func, int off, int width, uint32_t v)
{
	spin_lock(&pci_cfg_lock);
	outl(PCI_CONFIG_ADDRESS, cfg_address(bus, slot, func, off));
	if (width == 4)
		outl(PCI_CONFIG_DATA, v);
	else if (width == 2)
		outw(PCI_CONFIG_DATA + (off & 2), (uint16_t)v);
	else
		outb(PCI_CONFIG_DATA + (off & 3), (uint8_t)v);
	spin_unlock(&pci_cfg_lock);
}

uint32_t pci_cfg_read32(struct pci_dev *d, int off) { return cfg_read(d->bus, d->slot, d->func, off, 4); }
uint16_t pci_cfg_read16(struct pci_dev *d, int off) { return (uint16_t)cfg_read(d->bus, d->slot, d->func, off, 2); }
uint8_t  pci_cfg_read8(struct pci_dev *d, int off)  { return (uint8_t)cfg_read(d->bus, d->slot, d->func, off, 1); }
void pci_cfg_write32(struct pci_dev *d, int off, uint32_t v) { cfg_write(d->bus, d->slot, d->func, off, 4, v); }
void pci_cfg_write16(struct pci_dev *d, int off, uint16_t v) { cfg_write(d->bus, d->slot, d->func, off, 2, v); }
void pci_cfg_write8(struct pci_dev *d, int off, uint8_t v)   { cfg_write(d->bus, d->slot, d->func, off, 1, v); }

/* ---- enumeration ----------------------------------------------------------------------------- */

static void pci_scan_bus(uint8_t bus);

/* Append one line to hw.pci.devices and print it. */
static void pci_describe(struct pci_dev *d)
{
	char line[96];
	size_t used = strlen(pci_list);

	snprintf(line, sizeof(line), "%02x:%02x.%x %04x:%04x class %02x.%02x", d->bus, d->slot, d->func,
	         d->vendor, d->device, d->class, d->subclass);
	if (d->irq_pin != 0 && d->irq_line != 0xff)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " irq %u", d->irq_line);
	kprintf("pci0: %s\n", line);
	if (used + strlen(line) + 2 < sizeof(pci_list))
		snprintf(pci_list + used, sizeof(pci_list) - used, "%s\n", line);
}

/* Record function bus:slot.func (known to exist) and descend if it is a PCI-to-PCI bridge. */
static void pci_add_function(uint8_t bus, uint8_t slot, uint8_t func)
{
	struct pci_dev *d = kmalloc(sizeof(*d), M_NOWAIT | M_ZERO);
	uint8_t hdr;

	if (d == NULL) {
		kprintf("pci0: no memory for %02x:%02x.%x; it is ignored\n", bus, slot, func);
		return;
	}
	d->bus = bus;
	d->slot = slot;
	d->func = func;
	d->vendor = pci_cfg_read16(d, PCIR_VENDOR);
	d->device = pci_cfg_read16(d, PCIR_DEVICE);
	d->revision = pci_cfg_read8(d, PCIR_REVID);
	d->progif = pci_cfg_read8(d, PCIR_PROGIF);
	d->subclass = pci_cfg_read8(d, PCIR_SUBCLASS);
	d->class = pci_cfg_read8(d, PCIR_CLASS);
	d->irq_line = pci_cfg_read8(d, PCIR_INTLINE);
	d->irq_pin = pci_cfg_read8(d, PCIR_INTPIN);
	if (pci_devs_tail != NULL)
		pci_devs_tail->next = d;
	else
		pci_devs = d;
	pci_devs_tail = d;
	pci_describe(d);
	hdr = pci_cfg_read8(d, PCIR_HDRTYPE) & PCIM_HDRTYPE;
	if (d->class == 0x06 && d->subclass == 0x04 && hdr == 1)
		pci_scan_bus(pci_cfg_read8(d, PCIR_SECBUS));
}

static void pci_scan_slot(uint8_t bus, uint8_t slot)
{
	int nfunc;

	if ((uint16_t)cfg_read(bus, slot, 0, PCIR_VENDOR, 2) == 0xffff)
		return;
	nfunc = (cfg_read(bus, slot, 0, PCIR_HDRTYPE, 1) & PCIM_MFDEV) ? PCI_NFUNC : 1;
	for (int f = 0; f < nfunc; f++)
		if ((uint16_t)cfg_read(bus, slot, (uint8_t)f, PCIR_VENDOR, 2) != 0xffff)
			pci_add_function(bus, slot, (uint8_t)f);
}

/* Scan one bus; a bus already scanned (a misconfigured bridge) is not scanned twice. */
static void pci_scan_bus(uint8_t bus)
{
	if (pci_bus_seen[bus])
		return;
	pci_bus_seen[bus] = true;
	for (int s = 0; s < PCI_NSLOT; s++)
		pci_scan_slot(bus, (uint8_t)s);
}

/* pci_init: enumerate every function reachable from bus 0. Boot, one CPU. */
void pci_init(void)
{
	pci_scan_bus(0);
	if (pci_devs == NULL)
		kprintf("pci0: no PCI functions found\n");
}

struct pci_dev *pci_first(void)
{
	return pci_devs;
}

/* ---- drivers --------------------------------------------------------------------------------- */

void pci_register_driver(struct pci_driver *drv)
{
	drv->next = NULL;
	if (pci_drivers_tail != NULL)
		pci_drivers_tail->next = drv;
	else
		pci_drivers = drv;
	pci_drivers_tail = drv;
}

/* pci_attach_drivers: give each function to the first registered driver that matches it. */
void pci_attach_drivers(void)
{
	for (struct pci_dev *d = pci_devs; d != NULL; d = d->next) {
		for (struct pci_driver *drv = pci_drivers; drv != NULL; drv = drv->next) {
			if (!drv->match(d))
				continue;
			int error = drv->attach(d);
			if (error != 0)
				kprintf("pci0: %02x:%02x.%x: %s did not attach (error %d)\n", d->bus, d->slot,
				        d->func, drv->name, error);
			break;
		}
	}
}

/* ---- BARs, command register, capabilities ------------------------------------------------------ */

/*
 * pci_bar: decode BAR i (PCI 3.0 §6.2.5.1). Its size comes from the all-ones probe: write FFFFFFFFh,
 * read back, the low writable bit is the size; decoding is off meanwhile so the device never
 * answers at the probe address. A 64-bit memory BAR (type 10b) takes BARs i and i+1; wdrain is
 * 32-bit, so it must lie below 4 GB. Returns 0, ENOENT for an unimplemented BAR, EINVAL for a bad
 * index, EFBIG for a BAR above 4 GB.
 */
int pci_bar(struct pci_dev *d, int i, uint32_t *base, uint32_t *size, bool *is_io)
{
	int nbar = (pci_cfg_read8(d, PCIR_HDRTYPE) & PCIM_HDRTYPE) == 0 ? 6 : 2;
	int off = PCIR_BAR0 + 4 * i;
	uint32_t v, probe, mask;
	uint16_t cmd;

	if (i < 0 || i >= nbar)
		return EINVAL;
	cmd = pci_cfg_read16(d, PCIR_COMMAND);
	pci_cfg_write16(d, PCIR_COMMAND, cmd & ~(PCIM_CMD_IO | PCIM_CMD_MEM));
	v = pci_cfg_read32(d, off);
	pci_cfg_write32(d, off, 0xffffffff);
	probe = pci_cfg_read32(d, off);
	pci_cfg_write32(d, off, v);
	pci_cfg_write16(d, PCIR_COMMAND, cmd);
	*is_io = (v & 1) != 0;
	if (*is_io) {
		mask = probe & ~3u;
		if ((mask & 0xffff0000u) == 0)        /* a 16-bit I/O decoder */
			mask |= 0xffff0000u;
		*base = v & ~3u;
	} else {
		mask = probe & ~0xfu;
		*base = v & ~0xfu;
		if (((v >> 1) & 3) == 2 && (i + 1 >= nbar || pci_cfg_read32(d, off + 4) != 0)) {
			kprintf("pci0: %02x:%02x.%x: BAR %d is above 4 GB; not usable\n", d->bus, d->slot,
			        d->func, i);
			return EFBIG;
		}
	}
	if (mask == 0)
		return ENOENT;
	*size = ~mask + 1;
	return 0;
}

/* pci_enable: turn on I/O decoding, memory decoding and/or bus mastering (never turns any off). */
void pci_enable(struct pci_dev *d, bool io, bool mem, bool busmaster)
{
	uint16_t cmd = pci_cfg_read16(d, PCIR_COMMAND);

	if (io)
		cmd |= PCIM_CMD_IO;
	if (mem)
		cmd |= PCIM_CMD_MEM;
	if (busmaster)
		cmd |= PCIM_CMD_BUSMASTER;
	pci_cfg_write16(d, PCIR_COMMAND, cmd);
}

/* pci_find_cap: walk the capability list (PCI 3.0 §6.7); at most 48 entries fit in the header. */
int pci_find_cap(struct pci_dev *d, int id)
{
	int off;

	if ((pci_cfg_read16(d, PCIR_STATUS) & PCIM_STATUS_CAPLIST) == 0)
		return 0;
	off = pci_cfg_read8(d, PCIR_CAPPTR) & 0xfc;
	for (int n = 0; off >= 0x40 && n < 48; n++) {
		if (pci_cfg_read8(d, off) == id)
			return off;
		off = pci_cfg_read8(d, off + 1) & 0xfc;
	}
	return 0;
}

/* ---- interrupts ------------------------------------------------------------------------------ */

/* Program and enable the MSI capability at `cap` with one message (MME = 0). */
static void pci_msi_program(struct pci_dev *d, int cap, uint32_t addr, uint32_t data)
{
	uint16_t ctrl = pci_cfg_read16(d, cap + PCIR_MSI_CTRL);
	bool is64 = (ctrl & PCIM_MSICTRL_64BIT) != 0;

	pci_cfg_write32(d, cap + PCIR_MSI_ADDR, addr);
	if (is64)
		pci_cfg_write32(d, cap + PCIR_MSI_ADDR_HIGH, 0);
	pci_cfg_write16(d, cap + (is64 ? PCIR_MSI_DATA_64 : PCIR_MSI_DATA), (uint16_t)data);
	if (ctrl & PCIM_MSICTRL_VECTOR)
		pci_cfg_write32(d, cap + (is64 ? PCIR_MSI_MASK_64 : PCIR_MSI_MASK), 0);
	ctrl &= ~PCIM_MSICTRL_MME_MASK;
	pci_cfg_write16(d, cap + PCIR_MSI_CTRL, ctrl | PCIM_MSICTRL_ENABLE);
	/* With MSI on, the function must not also assert INTx (PCI 3.0 §6.8.1.3). */
	pci_cfg_write16(d, PCIR_COMMAND, pci_cfg_read16(d, PCIR_COMMAND) | PCIM_CMD_INTXDIS);
}

/*
 * pci_setup_intr: MSI when offered (and hw.pci.enable_msi), else the INTx line, level-triggered.
 * fn(arg) may also be called when another device on a shared line interrupts. 0 or errno.
 */
int pci_setup_intr(struct pci_dev *d, void (*fn)(void *), void *arg, const char *name)
{
	int cap = pci_find_cap(d, PCIY_MSI);
	uint32_t addr, data;
	int error;

	if (cap != 0 && pci_enable_msi) {
		error = intr_establish_msi(fn, arg, name, &addr, &data);
		if (error == 0) {
			pci_msi_program(d, cap, addr, data);
			kprintf("%s: using MSI (%d-bit address)\n", name,
			        (pci_cfg_read16(d, cap + PCIR_MSI_CTRL) & PCIM_MSICTRL_64BIT) ? 64 : 32);
			return 0;
		}
		kprintf("%s: MSI set-up failed (error %d); trying INTx\n", name, error);
	}
	if (d->irq_pin == 0 || d->irq_line == 0xff) {
		kprintf("%s: no MSI and no INTx line assigned; no interrupts\n", name);
		return ENXIO;
	}
	pci_cfg_write16(d, PCIR_COMMAND, pci_cfg_read16(d, PCIR_COMMAND) & ~PCIM_CMD_INTXDIS);
	error = intr_establish_level(d->irq_line, true, fn, arg, name);
	if (error == 0)
		kprintf("%s: using INTx pin %c, IRQ %u\n", name, 'A' + d->irq_pin - 1, d->irq_line);
	return error;
}
