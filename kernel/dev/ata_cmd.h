/*
 * ata_cmd: pure builders for what the AHCI driver puts in memory for the HBA, and decoders for what
 * the device answers. No kernel headers: host unit tests (tests/unit/test_ata_cmd.c) compile it.
 *
 *   ata_fis_dma_ext(fis, cmd, lba, count)        - H2D Register FIS for READ/WRITE DMA EXT (0x25/0x35)
 *   ata_fis_fpdma(fis, cmd, lba, count, tag)     - H2D Register FIS for READ/WRITE FPDMA QUEUED
 *                                                  (0x60/0x61): count in FEATURE, tag in COUNT 7:3
 *   ata_fis_nodata(fis, cmd)                     - H2D Register FIS for IDENTIFY DEVICE, FLUSH CACHE EXT
 *   ahci_cmdhdr_build(hdr, cfl, write, prdtl, ctba) - one command list entry (AHCI 1.3.1 §4.2.2)
 *   ahci_prdt_build(prdt, max, segs, nsegs)      - a PRDT (AHCI 1.3.1 §4.2.3.3) from a request's physical
 *                                                  segments (dev/disk_seg.h, merged and cut to
 *                                                  AHCI_PRD_MAXBYTES): one entry each; the count or -1
 *   ata_ident_*(id)                              - fields of the 256-word IDENTIFY DEVICE data (ATA8-ACS
 *                                                  §7.16.7): model, capacity, NCQ queue depth
 *   ata_error_names(err, buf, size)              - the ATA error register as "ABRT UNC ..."
 *
 * All multi-byte fields are little-endian, as the HBA reads them (the x86 byte order; the builders
 * store bytes explicitly, so they are correct on any host).
 */
#ifndef _DEV_ATA_CMD_H_
#define _DEV_ATA_CMD_H_

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "dev/disk_seg.h"

/* ATA commands (ATA8-ACS §7). */
#define ATA_READ_DMA_EXT       0x25
#define ATA_WRITE_DMA_EXT      0x35
#define ATA_READ_FPDMA_QUEUED  0x60
#define ATA_WRITE_FPDMA_QUEUED 0x61
#define ATA_IDENTIFY_DEVICE    0xec
#define ATA_FLUSH_CACHE_EXT    0xea

/* The ATA status and error registers (ATA8-ACS §6.1, §6.2). */
#define ATA_S_ERR   0x01
#define ATA_S_DRQ   0x08
#define ATA_S_DF    0x20
#define ATA_S_BSY   0x80
#define ATA_E_AMNF  0x01
#define ATA_E_ABRT  0x04
#define ATA_E_IDNF  0x10
#define ATA_E_UNC   0x40
#define ATA_E_ICRC  0x80

#define ATA_DEV_LBA 0x40               /* Device register bit 6: LBA addressing */

#define SATA_FIS_TYPE_H2D 0x27         /* Serial ATA 2.6 §10.3.4 */
#define SATA_FIS_H2D_LEN  20           /* bytes; 5 dwords (the command header's CFL) */
#define ATA_MAX_SECTORS_EXT 65536      /* 48-bit commands: a count of 0 means 65536 */

/* One command list entry (AHCI 1.3.1 §4.2.2), 32 bytes. */
struct ahci_cmd_header {
	uint32_t dw0;       /* PRDTL 31:16, PMP 15:12, C 10, B 9, R 8, P 7, W 6, A 5, CFL 4:0 */
	uint32_t prdbc;     /* bytes transferred, written by the HBA */
	uint32_t ctba;      /* command table base, 128-byte aligned */
	uint32_t ctbau;
	uint32_t rsvd[4];
};

/* One PRDT entry (AHCI 1.3.1 §4.2.3.3), 16 bytes. */
struct ahci_prd {
	uint32_t dba;       /* data base address, even (bit 0 reserved) */
	uint32_t dbau;
	uint32_t rsvd;
	uint32_t dbc;       /* I 31, byte count - 1 in 21:0 (so at most 4 MB, and bit 0 set: even count) */
};

#define AHCI_CMDHDR_W        (1u << 6)
#define AHCI_CMDHDR_PRDTL_SHIFT 16
#define AHCI_PRD_I           (1u << 31)
#define AHCI_PRD_MAXBYTES    (4u << 20)

void ata_fis_dma_ext(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd, uint64_t lba, uint32_t count);
void ata_fis_fpdma(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd, uint64_t lba, uint32_t count, unsigned tag);
void ata_fis_nodata(uint8_t fis[SATA_FIS_H2D_LEN], uint8_t cmd);

void ahci_cmdhdr_build(struct ahci_cmd_header *h, unsigned cfl_bytes, bool write, unsigned prdtl,
                       uint64_t ctba);
int  ahci_prdt_build(struct ahci_prd *prdt, int max, const struct disk_seg *segs, int nsegs);

void     ata_ident_model(const uint16_t id[256], char *buf, size_t size);
uint64_t ata_ident_sectors(const uint16_t id[256]);
unsigned ata_ident_ncq_depth(const uint16_t id[256]);    /* 0 = no NCQ */

void     ata_error_names(uint8_t err, char *buf, size_t size);

#endif
