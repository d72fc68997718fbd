/*
 * ata_cmd.c - FIS, command header and PRDT builders and IDENTIFY decoders for the AHCI driver
 * (interface and the list of functions: dev/ata_cmd.h). Pure code, no locking, no kernel headers.
 *
 * The H2D Register FIS (Serial ATA 2.6 §10.3.4, carried in the command table's CFIS area,
 * AHCI 1.3.1 §4.2.3.1) is 20 bytes:
 *   0 type 27h   1 C bit 7 | PM port   2 command   3 features 7:0
 *   4 LBA 7:0    5 LBA 15:8            6 LBA 23:16 7 device
 *   8 LBA 31:24  9 LBA 39:32          10 LBA 47:40 11 features 15:8
 *  12 count 7:0 13 count 15:8         14 ICC      15 control      16-19 auxiliary (0)
 */
#include "dev/ata_cmd.h"

/* A zeroed H2D FIS with the type, the C bit (this FIS carries a new command) and the command. */
static void fis_start(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd)
{
	for (int i = 0; i < SATA_FIS_H2D_LEN; i++)
		fis[i] = 0;
	fis[0] = SATA_FIS_TYPE_H2D;
	fis[1] = 0x80;
	fis[2] = cmd;
}

/* The 48-bit LBA in bytes 4-6 and 8-10, and the device register with the LBA bit. */
static void fis_lba48(uint8_t fis[SATA_FIS_H2D_LEN], uint64_t lba)
{
	fis[4] = (uint8_t)lba;
	fis[5] = (uint8_t)(lba >> 8);
	fis[6] = (uint8_t)(lba >> 16);
	fis[7] = ATA_DEV_LBA;
	fis[8] = (uint8_t)(lba >> 24);
	fis[9] = (uint8_t)(lba >> 32);
	fis[10] = (uint8_t)(lba >> 40);
}

/*
 * READ/WRITE DMA EXT (ATA8-ACS §7.25, §7.60): the sector count (1..65536; 65536 is sent as 0) goes
 * in COUNT 15:0; FEATURES is unused.
 */
void ata_fis_dma_ext(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd, uint64_t lba, uint32_t count)
{
	fis_start(fis, cmd);
	fis_lba48(fis, lba);
	fis[12] = (uint8_t)count;
	fis[13] = (uint8_t)(count >> 8);
}

/*
 * READ/WRITE FPDMA QUEUED (ATA8-ACS §7.24, §7.59): the sector count goes in FEATURES 15:0, the NCQ
 * tag in COUNT 7:3 (COUNT 15:8 is the priority, 0 here); DEVICE bit 6 is set, bit 7 (FUA) clear.
 * AHCI 1.3.1 §5.6.4.1: software uses the command slot number as the tag.
 */
void ata_fis_fpdma(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd, uint64_t lba, uint32_t count, unsigned tag)
{
	/* LAB ncq BEGIN */
	fis_start(fis, cmd);
	fis_lba48(fis, lba);
	fis[3] = (uint8_t)count;
	fis[11] = (uint8_t)(count >> 8);
	fis[12] = (uint8_t)((tag & 0x1f) << 3);
	/* LAB ncq STUB */
	// fis_start(fis, cmd);        /* the LBA, the count and the tag are still to be placed */
	/* LAB ncq END */
}

/* A command with no LBA and no count: IDENTIFY DEVICE (§7.16), FLUSH CACHE EXT (§7.14). */
void ata_fis_nodata(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd)
{
	fis_start(fis, cmd);
}

/*
 * ahci_cmdhdr_build: command list entry (AHCI 1.3.1 §4.2.2). CFL is the command FIS length in
 * dwords, W says the data goes to the device, PRDTL is the PRDT length; PRDBC starts at 0.
 */
void ahci_cmdhdr_build(struct ahci_cmd_header *h, unsigned cfl_bytes, bool write, unsigned prdtl,
                       uint64_t ctba)
{
	h->dw0 = ((cfl_bytes / 4) & 0x1f) | (write ? AHCI_CMDHDR_W : 0) |
	         ((uint32_t)prdtl << AHCI_CMDHDR_PRDTL_SHIFT);
	h->prdbc = 0;
	h->ctba = (uint32_t)ctba;
	h->ctbau = (uint32_t)(ctba >> 32);
	for (int i = 0; i < 4; i++)
		h->rsvd[i] = 0;
}

static void prd_set(struct ahci_prd *p, uint64_t pa, uint32_t bytes)
{
	p->dba = (uint32_t)pa;
	p->dbau = (uint32_t)(pa >> 32);
	p->rsvd = 0;
	p->dbc = bytes - 1;
}

/*
 * ahci_prdt_build: one PRDT entry per segment (segs[0..nsegs-1], already merged and cut to at
 * most AHCI_PRD_MAXBYTES by disk_seg_build, since DBC is 22 bits). Every segment must be even in
 * address and size (DBA bit 0 is reserved, DBC bit 0 must be 1). Returns the entry count, or -1
 * if there are no segments, one is odd or too long, or they do not fit in `max`.
 */
int ahci_prdt_build(struct ahci_prd *prdt, int max, const struct disk_seg *segs, int nsegs)
{
	if (nsegs <= 0 || nsegs > max)
		return -1;
	for (int i = 0; i < nsegs; i++) {
		if (((segs[i].ds_paddr | segs[i].ds_len) & 1) != 0 || segs[i].ds_len == 0 ||
		    segs[i].ds_len > AHCI_PRD_MAXBYTES)
			return -1;
		prd_set(&prdt[i], segs[i].ds_paddr, segs[i].ds_len);
	}
	return nsegs;
}

/*
 * ata_ident_model: words 27-46 hold the model number, 40 ASCII characters, the first of each pair
 * in the word's high byte (ATA8-ACS §7.16.7.13); trailing spaces are dropped.
 */
void ata_ident_model(const uint16_t id[256], char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (int w = 27; w <= 46 && n + 2 < size; w++) {
		buf[n++] = (char)(id[w] >> 8);
		buf[n++] = (char)(id[w] & 0xff);
	}
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == 0))
		n--;
	buf[n] = 0;
}

/*
 * ata_ident_sectors: user-addressable sectors. With the 48-bit feature set (word 83 bit 10) it is
 * words 100-103; otherwise the 28-bit count in words 60-61 (ATA8-ACS §7.16.7.22, .53).
 */
uint64_t ata_ident_sectors(const uint16_t id[256])
{
	if (id[83] & (1u << 10))
		return (uint64_t)id[100] | (uint64_t)id[101] << 16 | (uint64_t)id[102] << 32 |
		       (uint64_t)id[103] << 48;
	return (uint64_t)id[60] | (uint64_t)id[61] << 16;
}

/*
 * ata_ident_ncq_depth (ATA8-ACS §7.16.7): word 76 bit 8 says NCQ is supported, and then word 75
 * 4:0 is the queue depth - 1. A word 76 of FFFFh comes from a device that is not Serial ATA.
 */
unsigned ata_ident_ncq_depth(const uint16_t id[256])
{
	/* LAB ncq BEGIN */
	if (id[76] == 0xffff || (id[76] & (1u << 8)) == 0)
		return 0;
	return (id[75] & 0x1f) + 1u;
	/* LAB ncq STUB */
	// return 0;                   /* no NCQ: the driver runs one command at a time */
	/* LAB ncq END */
}

/* ata_error_names: the set bits of the ATA error register by name, e.g. "ABRT" or "UNC IDNF". */
void ata_error_names(uint8_t err, char *buf, size_t size)
{
	static const char *const names[8] = { "AMNF", "bit1", "ABRT", "bit3", "IDNF", "bit5", "UNC", "ICRC" };
	size_t n = 0;

	if (size == 0)
		return;
	buf[0] = 0;
	for (int b = 7; b >= 0; b--) {
		if ((err & (1u << b)) == 0)
			continue;
		for (const char *s = n > 0 ? " " : ""; *s && n + 1 < size; s++)
			buf[n++] = *s;
		for (const char *s = names[b]; *s && n + 1 < size; s++)
			buf[n++] = *s;
	}
	if (n == 0)
		for (const char *s = "none"; *s && n + 1 < size; s++)
			buf[n++] = *s;
	buf[n] = 0;
}
