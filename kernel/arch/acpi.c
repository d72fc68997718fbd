/*
 * ACPI static tables: where the CPUs, the IOAPIC, the ISA interrupt overrides, the PM timer and the
 * HPET are (see acpi.h for the result, struct acpi_info).
 *   acpi_init() - called once on the boot CPU after pmap_bootstrap (the tables are read through the
 *       direct map) and before clock_init/ioapic_init/lapic_init, which use the result. It also
 *       fills cpus[i].apicid and cpus[i].index for the CPUs it finds (the boot CPU is cpus[0]).
 * Table layouts: ACPI Specification 6.5, §5.2.5 (RSDP, and where to find it: the first 1 KB of the
 * EBDA, whose segment is the word at 0x40E, or 0xE0000-0xFFFFF, on 16-byte boundaries), §5.2.6
 * (system description table header), §5.2.7/5.2.8 (RSDT/XSDT), §5.2.9 (FADT), §5.2.12 (MADT).
 * HPET table: IA-PC HPET Specification 1.0a, §3.2.4.
 * Every table's checksum is checked (all bytes sum to 0 mod 256); a bad table is ignored with a
 * message. Locking: none; written before the other CPUs start, read-only after.
 */
#include "arch/acpi.h"
#include "arch/machdep.h"
#include "arch/memlayout.h"
#include "arch/x86.h"
#include "kern/klib.h"

struct acpi_info acpi;

struct rsdp {
	char     signature[8];         /* "RSD PTR " */
	uint8_t  checksum;             /* of the first 20 bytes (ACPI 1.0 part) */
	char     oemid[6];
	uint8_t  revision;             /* 0 = ACPI 1.0; 2 = ACPI 2.0+ (has the XSDT fields) */
	uint32_t rsdt_addr;
	uint32_t length;
	uint64_t xsdt_addr;
	uint8_t  ext_checksum;
	uint8_t  reserved[3];
} __attribute__((packed));

struct sdt_header {
	char     signature[4];
	uint32_t length;               /* of the whole table, header included */
	uint8_t  revision;
	uint8_t  checksum;
	char     oemid[6];
	char     oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

struct madt {
	struct sdt_header hdr;
	uint32_t lapic_addr;
	uint32_t flags;                /* bit 0 PCAT_COMPAT: 8259s present */
	uint8_t  entries[];
} __attribute__((packed));

/* MADT interrupt controller structure types (§5.2.12, table "Interrupt Controller Structure Types"). */
#define MADT_LAPIC           0
#define MADT_IOAPIC          1
#define MADT_ISO             2     /* interrupt source override */
#define MADT_LAPIC_OVERRIDE  5     /* 64-bit LAPIC address */
#define MADT_LAPIC_ENABLED   0x1   /* processor local APIC flags, bit 0 */

struct madt_lapic {
	uint8_t  type, length;
	uint8_t  acpi_uid;
	uint8_t  apic_id;
	uint32_t flags;
} __attribute__((packed));

struct madt_ioapic {
	uint8_t  type, length;
	uint8_t  ioapic_id;
	uint8_t  reserved;
	uint32_t addr;
	uint32_t gsi_base;
} __attribute__((packed));

struct madt_iso {
	uint8_t  type, length;
	uint8_t  bus;                  /* 0 = ISA */
	uint8_t  source;               /* ISA IRQ */
	uint32_t gsi;
	uint16_t flags;                /* MPS INTI flags */
} __attribute__((packed));

struct madt_lapic_override {
	uint8_t  type, length;
	uint16_t reserved;
	uint64_t addr;
} __attribute__((packed));

/* FADT fields used here, by byte offset (§5.2.9, table "FADT Format"). */
#define FADT_CENTURY       108     /* 1 byte: CMOS RTC index of the century, 0 = none */
#define FADT_PM_TMR_BLK     76     /* 4 bytes: PM timer I/O port */
#define FADT_PM_TMR_LEN     91     /* 1 byte: 4 if the PM timer is supported */
#define FADT_FLAGS         112     /* 4 bytes */
#define FADT_X_PM_TMR_BLK  208     /* 12-byte generic address (ACPI 2.0+) */
#define FADT_TMR_VAL_EXT   (1u << 8)
#define GAS_SYSTEM_IO        1     /* generic address structure, address space id */

/* HPET description table (HPET spec §3.2.4): the base address is a generic address at offset 40. */
#define HPET_TBL_BASE_GAS   40
#define GAS_SYSTEM_MEMORY    0

/* A pointer to physical [pa, pa+len), or NULL if the kernel does not map it. */
static const void *phys_ptr(uint64_t pa, uint32_t len)
{
	if (pa + len <= DMAP_MAX)
		return P2V((uint32_t)pa);
	if (pa >= DEVSPACE && pa + len <= 0x100000000ull)
		return (const void *)(uintptr_t)pa;
	return NULL;
}

static uint8_t sum_bytes(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t s = 0;
	while (len--)
		s += *b++;
	return s;
}

static const struct rsdp *rsdp_scan(uint32_t pa, uint32_t len)
{
	for (uint32_t off = 0; off + sizeof(struct rsdp) <= len; off += 16) {
		const struct rsdp *r = phys_ptr(pa + off, sizeof(*r));
		if (r && memcmp(r->signature, "RSD PTR ", 8) == 0 && sum_bytes(r, 20) == 0)
			return r;
	}
	return NULL;
}

static const struct rsdp *rsdp_find(void)
{
	uint16_t ebda_seg = *(const uint16_t *)P2V(0x40e);
	const struct rsdp *r = NULL;
	if (ebda_seg != 0)
		r = rsdp_scan((uint32_t)ebda_seg << 4, 1024);
	if (r == NULL)
		r = rsdp_scan(0xe0000, 0x20000);
	return r;
}

/* The table at pa if it is mapped, has the signature (NULL = any) and a good checksum. */
static const struct sdt_header *sdt_map(uint64_t pa, const char *sig)
{
	const struct sdt_header *h = phys_ptr(pa, sizeof(*h));
	if (h == NULL) {
		kprintf("acpi: table at 0x%llx is outside mapped memory, ignored\n", (unsigned long long)pa);
		return NULL;
	}
	if (sig && memcmp(h->signature, sig, 4) != 0)
		return NULL;
	if (h->length < sizeof(*h) || phys_ptr(pa, h->length) == NULL) {
		kprintf("acpi: %.4s table at 0x%llx has a bad length %u, ignored\n", h->signature,
		        (unsigned long long)pa, h->length);
		return NULL;
	}
	if (sum_bytes(h, h->length) != 0) {
		kprintf("acpi: %.4s table at 0x%llx has a bad checksum, ignored\n", h->signature,
		        (unsigned long long)pa);
		return NULL;
	}
	return h;
}

/* Walk the RSDT (32-bit entries) or XSDT (64-bit entries) for the table with this signature. */
static const struct sdt_header *sdt_find(const struct sdt_header *root, bool xsdt, const char *sig)
{
	uint32_t esize = xsdt ? 8 : 4;
	uint32_t n = (root->length - sizeof(*root)) / esize;
	const uint8_t *e = (const uint8_t *)(root + 1);
	for (uint32_t i = 0; i < n; i++, e += esize) {
		uint64_t pa = 0;
		memcpy(&pa, e, esize);
		const struct sdt_header *h = phys_ptr(pa, sizeof(*h));
		if (h && memcmp(h->signature, sig, 4) == 0)
			return sdt_map(pa, sig);
	}
	return NULL;
}

static void add_cpu(uint8_t apicid, uint8_t bsp_apicid)
{
	if (apicid == bsp_apicid)
		return;                                   /* already cpu 0 */
	if (acpi.ncpus == NCPU) {
		kprintf("acpi: CPU with LAPIC id %u ignored: the kernel supports %d CPUs (NCPU)\n", apicid, NCPU);
		return;
	}
	acpi.cpu_apicid[acpi.ncpus++] = apicid;
}

static void madt_iso(const struct madt_iso *iso)
{
	if (iso->bus != 0 || iso->source >= 16) {
		kprintf("acpi: interrupt override for bus %u source %u ignored\n", iso->bus, iso->source);
		return;
	}
	struct isa_irq *irq = &acpi.isa[iso->source];
	irq->gsi = iso->gsi;
	irq->level = (iso->flags & INTI_TRIG_MASK) == INTI_TRIG_LEVEL;     /* "conforms" = ISA: edge */
	irq->activelow = (iso->flags & INTI_POL_MASK) == INTI_POL_LOW;     /* "conforms" = ISA: high */
}

/* The LAPIC and IOAPIC are used through the VA == PA device mapping only. */
static void check_mmio(const char *what, uint32_t *addr, uint32_t dflt)
{
	if (*addr >= DEVSPACE && *addr <= 0xfffff000u)
		return;
	kprintf("acpi: %s at 0x%x is outside device space; using 0x%x\n", what, *addr, dflt);
	*addr = dflt;
}

static void madt_parse(const struct madt *m)
{
	check_mmio("LAPIC", &acpi.lapic_addr, LAPIC_DEFAULT_ADDR);
	uint8_t bsp_apicid = mmio_read32(acpi.lapic_addr + 0x20) >> 24;   /* LAPIC ID register */
	bool have_ioapic = false;
	const uint8_t *p = m->entries;
	const uint8_t *end = (const uint8_t *)m + m->hdr.length;

	acpi.ncpus = 1;
	acpi.cpu_apicid[0] = bsp_apicid;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		switch (p[0]) {
		case MADT_LAPIC: {
			const struct madt_lapic *l = (const void *)p;
			if (l->flags & MADT_LAPIC_ENABLED)
				add_cpu(l->apic_id, bsp_apicid);
			break;
		}
		case MADT_IOAPIC: {
			const struct madt_ioapic *io = (const void *)p;
			if (io->gsi_base == 0 && !have_ioapic) {
				acpi.ioapic_addr = io->addr;
				acpi.ioapic_gsibase = io->gsi_base;
				have_ioapic = true;
			} else {
				kprintf("acpi: IOAPIC %u at 0x%x (GSI %u-) not used: only the first IOAPIC is\n",
				        io->ioapic_id, io->addr, io->gsi_base);
			}
			break;
		}
		case MADT_ISO:
			madt_iso((const void *)p);
			break;
		case MADT_LAPIC_OVERRIDE: {
			const struct madt_lapic_override *o = (const void *)p;
			if (o->addr < 0x100000000ull)
				acpi.lapic_addr = (uint32_t)o->addr;
			break;
		}
		}
		p += p[1];
	}
	if (!have_ioapic)
		kprintf("acpi: the MADT lists no IOAPIC; assuming one at 0x%x\n", acpi.ioapic_addr);
}

static void fadt_parse(const struct sdt_header *f)
{
	const uint8_t *b = (const uint8_t *)f;
	uint32_t port = 0, flags = 0;
	if (f->length >= FADT_FLAGS + 4)
		memcpy(&flags, b + FADT_FLAGS, 4);
	if (f->length > FADT_CENTURY)
		acpi.rtc_century = b[FADT_CENTURY];
	if (f->length >= FADT_X_PM_TMR_BLK + 12 && b[FADT_X_PM_TMR_BLK] == GAS_SYSTEM_IO) {
		uint64_t xport;
		memcpy(&xport, b + FADT_X_PM_TMR_BLK + 4, 8);
		if (xport != 0 && xport < 0x10000)
			port = (uint32_t)xport;
	}
	if (port == 0 && f->length > FADT_PM_TMR_LEN && b[FADT_PM_TMR_LEN] == 4)
		memcpy(&port, b + FADT_PM_TMR_BLK, 4);
	if (port != 0 && port < 0x10000) {
		acpi.pm_tmr_port = (uint16_t)port;
		acpi.pm_tmr_32bit = (flags & FADT_TMR_VAL_EXT) != 0;
	} else {
		kprintf("acpi: the FADT lists no PM timer\n");
	}
}

static void hpet_parse(const struct sdt_header *h)
{
	const uint8_t *b = (const uint8_t *)h;
	uint64_t addr;
	if (h->length < HPET_TBL_BASE_GAS + 12 || b[HPET_TBL_BASE_GAS] != GAS_SYSTEM_MEMORY) {
		kprintf("acpi: HPET table without a memory base address, ignored\n");
		return;
	}
	memcpy(&addr, b + HPET_TBL_BASE_GAS + 4, 8);
	if (phys_ptr(addr, 0x400) == NULL || addr < DEVSPACE) {
		kprintf("acpi: HPET at 0x%llx is outside device space, not used\n", (unsigned long long)addr);
		return;
	}
	acpi.hpet_addr = (uint32_t)addr;
}

static void acpi_defaults(void)
{
	for (int i = 0; i < 16; i++)
		acpi.isa[i] = (struct isa_irq){ .gsi = (uint32_t)i, .level = false, .activelow = false };
	acpi.ncpus = 1;
	acpi.lapic_addr = LAPIC_DEFAULT_ADDR;
	acpi.cpu_apicid[0] = mmio_read32(LAPIC_DEFAULT_ADDR + 0x20) >> 24;
	acpi.ioapic_addr = IOAPIC_DEFAULT_ADDR;
	acpi.ioapic_gsibase = 0;
}

/* Record the CPUs in cpus[] (mp.c starts them) and print one summary line. */
static void acpi_report(const char *oemid)
{
	for (int i = 0; i < acpi.ncpus; i++) {
		cpus[i].apicid = acpi.cpu_apicid[i];
		cpus[i].index = i;
	}
	kprintf("acpi: %s: %d CPU%s (LAPIC ids", oemid, acpi.ncpus, acpi.ncpus > 1 ? "s" : "");
	for (int i = 0; i < acpi.ncpus; i++)
		kprintf(" %u", acpi.cpu_apicid[i]);
	kprintf("), LAPIC 0x%x, IOAPIC 0x%x (GSI %u), PM timer ", acpi.lapic_addr, acpi.ioapic_addr,
	        acpi.ioapic_gsibase);
	if (acpi.pm_tmr_port)
		kprintf("port 0x%x (%d-bit)", acpi.pm_tmr_port, acpi.pm_tmr_32bit ? 32 : 24);
	else
		kprintf("none");
	if (acpi.hpet_addr)
		kprintf(", HPET 0x%x\n", acpi.hpet_addr);
	else
		kprintf(", no HPET table\n");
	for (int i = 0; i < 16; i++)
		if (acpi.isa[i].gsi != (uint32_t)i || acpi.isa[i].level || acpi.isa[i].activelow)
			kprintf("acpi: ISA IRQ %d -> GSI %u, %s/%s\n", i, acpi.isa[i].gsi,
			        acpi.isa[i].level ? "level" : "edge", acpi.isa[i].activelow ? "low" : "high");
}

void acpi_init(void)
{
	static char oemid[10] = "no tables";
	acpi_defaults();
	const struct rsdp *r = rsdp_find();
	if (r == NULL) {
		kprintf("acpi: no RSDP found; assuming 1 CPU, LAPIC 0x%x, IOAPIC 0x%x, no PM timer\n",
		        LAPIC_DEFAULT_ADDR, IOAPIC_DEFAULT_ADDR);
		acpi_report(oemid);
		return;
	}
	memcpy(oemid, r->oemid, 6);
	oemid[6] = 0;
	for (int i = 5; i > 0 && oemid[i] == ' '; i--)
		oemid[i] = 0;
	bool xsdt = false;
	const struct sdt_header *root = NULL;
	if (r->revision >= 2 && r->xsdt_addr != 0 && sum_bytes(r, sizeof(*r)) == 0) {
		root = sdt_map(r->xsdt_addr, "XSDT");
		xsdt = root != NULL;
	}
	if (root == NULL)
		root = sdt_map(r->rsdt_addr, "RSDT");
	if (root == NULL) {
		kprintf("acpi: no usable RSDT/XSDT; using the defaults (1 CPU)\n");
		acpi_report(oemid);
		return;
	}

	const struct sdt_header *madt = sdt_find(root, xsdt, "APIC");
	if (madt && madt->length >= sizeof(struct madt)) {
		acpi.lapic_addr = ((const struct madt *)madt)->lapic_addr;
		madt_parse((const struct madt *)madt);
		check_mmio("LAPIC", &acpi.lapic_addr, LAPIC_DEFAULT_ADDR);
		check_mmio("IOAPIC", &acpi.ioapic_addr, IOAPIC_DEFAULT_ADDR);
	} else {
		kprintf("acpi: no MADT; assuming 1 CPU, LAPIC 0x%x, IOAPIC 0x%x\n", LAPIC_DEFAULT_ADDR,
		        IOAPIC_DEFAULT_ADDR);
	}
	const struct sdt_header *fadt = sdt_find(root, xsdt, "FACP");
	if (fadt)
		fadt_parse(fadt);
	else
		kprintf("acpi: no FADT: no PM timer, no RTC century register\n");
	const struct sdt_header *hpet = sdt_find(root, xsdt, "HPET");
	if (hpet)
		hpet_parse(hpet);
	acpi_report(oemid);
}
