/*
 * Host unit tests of the AHCI driver's command builders (kernel/dev/ata_cmd.c): H2D FIS field
 * placement for DMA EXT and FPDMA QUEUED, command headers, PRDT building (through disk_seg_build,
 * as the driver does) over contiguous and scattered buffers, and the IDENTIFY decoders.
 */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "dev/ata_cmd.h"
#include "dev/disk_seg.c"

/* Compare a whole FIS; on a mismatch name the first differing byte. */
static void check_fis(const char *name, const uint8_t *got, const uint8_t *want)
{
	char e[32], g[32];

	for (int i = 0; i < SATA_FIS_H2D_LEN; i++) {
		if (got[i] != want[i]) {
			snprintf(e, sizeof(e), "byte %d = 0x%02x", i, want[i]);
			snprintf(g, sizeof(g), "0x%02x", got[i]);
			return fail(name, e, g);
		}
	}
	pass(name);
}

static void test_fis(void)
{
	uint8_t fis[SATA_FIS_H2D_LEN];

	/* A 48-bit LBA with a distinct value in every byte. */
	ata_fis_dma_ext(fis, ATA_WRITE_DMA_EXT, 0xB2C3D4E5F607ull, 256);
	const uint8_t dma[SATA_FIS_H2D_LEN] = { 0x27, 0x80, 0x35, 0x00, 0x07, 0xf6, 0xe5, 0x40,
	                                        0xd4, 0xc3, 0xb2, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
	check_fis("fis_write_dma_ext_lba48_count_in_count", fis, dma);

	ata_fis_dma_ext(fis, ATA_READ_DMA_EXT, 1, ATA_MAX_SECTORS_EXT);
	check_u64("fis_read_dma_ext_65536_sectors_is_count_0", (uint64_t)fis[12] | fis[13] << 8, 0);
	check_u64("fis_read_dma_ext_command", fis[2], 0x25);

	ata_fis_fpdma(fis, ATA_WRITE_FPDMA_QUEUED, 204800, 0x0123, 31);
	const uint8_t ncq[SATA_FIS_H2D_LEN] = { 0x27, 0x80, 0x61, 0x23, 0x00, 0x20, 0x03, 0x40,
	                                        0x00, 0x00, 0x00, 0x01, 31 << 3, 0x00, 0, 0, 0, 0, 0, 0 };
	check_fis("fis_write_fpdma_count_in_features_tag_in_count", fis, ncq);

	ata_fis_fpdma(fis, ATA_READ_FPDMA_QUEUED, 0, 8, 5);
	check_u64("fis_read_fpdma_tag5", fis[12], 5 << 3);
	check_u64("fis_read_fpdma_command", fis[2], 0x60);

	ata_fis_nodata(fis, ATA_FLUSH_CACHE_EXT);
	const uint8_t fl[SATA_FIS_H2D_LEN] = { 0x27, 0x80, 0xea };
	check_fis("fis_flush_cache_ext", fis, fl);
}

static void test_cmdhdr(void)
{
	struct ahci_cmd_header h;

	memset(&h, 0xff, sizeof(h));
	ahci_cmdhdr_build(&h, SATA_FIS_H2D_LEN, true, 3, 0x1234580ull);
	check_u64("cmdhdr_cfl5_write_prdtl3", h.dw0, 0x00030045);
	check_u64("cmdhdr_ctba", h.ctba, 0x1234580);
	check_u64("cmdhdr_prdbc_zeroed", h.prdbc, 0);
	ahci_cmdhdr_build(&h, SATA_FIS_H2D_LEN, false, 1, 0x100000000ull);
	check_u64("cmdhdr_read_has_no_w", h.dw0, 0x00010005);
	check_u64("cmdhdr_ctbau", h.ctbau, 1);
}

/* Translations for disk_seg_build (dev/disk_seg.h): identity (contiguous), and each page reversed
 * in memory (scattered). The data starts at address `*base`. */
static uint64_t xlate_identity(const void *arg, uint32_t off, uint32_t *run)
{
	uint64_t va = *(const uint64_t *)arg + off;

	*run = 4096 - (uint32_t)(va % 4096);
	return va;
}

static uint64_t xlate_scattered(const void *arg, uint32_t off, uint32_t *run)
{
	uint64_t va = *(const uint64_t *)arg + off;

	*run = 4096 - (uint32_t)(va % 4096);
	return (1000 - va / 4096) * 4096 + va % 4096;
}

/* A PRDT for `len` bytes at `base`, through disk_seg_build as the driver does. */
static int prdt_for(struct ahci_prd *prdt, int max, uint64_t base, uint32_t len, disk_seg_xlate_t *x)
{
	struct disk_seg segs[64];
	int n = disk_seg_build(segs, 64, AHCI_PRD_MAXBYTES, x, &base, 0, len);

	return n < 0 ? -1 : ahci_prdt_build(prdt, max, segs, n);
}

static void test_prdt(void)
{
	struct ahci_prd prdt[40];
	struct disk_seg odd = { 0x10001, 512 }, big = { 0, AHCI_PRD_MAXBYTES + 2 };
	int n;

	n = prdt_for(prdt, 40, 0x10000, 128 * 1024, xlate_identity);
	check_u64("prdt_contiguous_128k_one_entry", n, 1);
	check_u64("prdt_contiguous_dbc_is_bytes_minus_1", prdt[0].dbc, 128 * 1024 - 1);
	check_u64("prdt_contiguous_dba", prdt[0].dba, 0x10000);

	n = prdt_for(prdt, 40, 0x10200, 8192, xlate_scattered);
	check_u64("prdt_scattered_unaligned_8k_three_entries", n, 3);
	check_u64("prdt_scattered_first_piece_to_page_end", prdt[0].dbc + 1, 0xe00);
	check_u64("prdt_scattered_first_address", prdt[0].dba, (1000 - 0x10) * 4096 + 0x200);
	check_u64("prdt_scattered_middle_whole_page", prdt[1].dbc + 1, 4096);
	check_u64("prdt_scattered_middle_address", prdt[1].dba, (1000 - 0x11) * 4096);
	check_u64("prdt_scattered_last_piece", prdt[2].dbc + 1, 0x200);

	n = prdt_for(prdt, 2, 0x10200, 8192, xlate_scattered);
	check_u64("prdt_too_many_entries_fails", (uint64_t)(int64_t)n, (uint64_t)-1);
	n = prdt_for(prdt, 40, 0x10000, 511, xlate_identity);
	check_u64("prdt_odd_length_fails", (uint64_t)(int64_t)n, (uint64_t)-1);
	n = prdt_for(prdt, 40, 0x10000, 0, xlate_identity);
	check_u64("prdt_zero_length_fails", (uint64_t)(int64_t)n, (uint64_t)-1);
	n = ahci_prdt_build(prdt, 40, &odd, 1);
	check_u64("prdt_odd_address_fails", (uint64_t)(int64_t)n, (uint64_t)-1);
	n = ahci_prdt_build(prdt, 40, &big, 1);
	check_u64("prdt_segment_over_4mb_fails", (uint64_t)(int64_t)n, (uint64_t)-1);

	n = prdt_for(prdt, 40, 0, 9u << 20, xlate_identity);
	check_u64("prdt_9mb_contiguous_splits_at_4mb", n, 3);
	check_u64("prdt_9mb_first_entry_4mb", prdt[0].dbc + 1, 4u << 20);
	check_u64("prdt_9mb_second_starts_at_4mb", prdt[1].dba, 4u << 20);
	check_u64("prdt_9mb_last_entry_1mb", prdt[2].dbc + 1, 1u << 20);
	check_u64("prdt_no_interrupt_bit", prdt[0].dbc & AHCI_PRD_I, 0);
}

static void put_string(uint16_t *id, int word, const char *s, int words)
{
	for (int i = 0; i < words; i++) {
		char a = *s ? *s++ : ' ';
		char b = *s ? *s++ : ' ';
		id[word + i] = (uint16_t)((uint8_t)a << 8 | (uint8_t)b);
	}
}

static void test_identify(void)
{
	uint16_t id[256];
	char model[41];

	memset(id, 0, sizeof(id));
	put_string(id, 27, "QEMU HARDDISK", 20);
	ata_ident_model(id, model, sizeof(model));
	check_str("ident_model_byte_swapped_and_trimmed", model, "QEMU HARDDISK");
	ata_ident_model(id, model, 5);
	check_str("ident_model_truncated_to_buffer", model, "QEMU");

	id[60] = 0x5678;
	id[61] = 0x0012;
	check_u64("ident_sectors_28bit_words_60_61", ata_ident_sectors(id), 0x125678);
	id[83] = 1u << 10;
	id[100] = 0x0000;
	id[101] = 0x0040;       /* 0x400000 sectors = 2 GiB */
	check_u64("ident_sectors_48bit_words_100_103", ata_ident_sectors(id), 0x400000);
	id[102] = 0x0001;
	check_u64("ident_sectors_48bit_high_word", ata_ident_sectors(id), 0x100400000ull);

	check_u64("ident_no_ncq", ata_ident_ncq_depth(id), 0);
	id[76] = 1u << 8;
	id[75] = 31;
	check_u64("ident_ncq_depth_32", ata_ident_ncq_depth(id), 32);
	id[76] = 0xffff;
	check_u64("ident_word76_ffff_means_not_sata", ata_ident_ncq_depth(id), 0);
}

static void test_error_names(void)
{
	char buf[40];

	ata_error_names(ATA_E_ABRT, buf, sizeof(buf));
	check_str("error_names_abrt", buf, "ABRT");
	ata_error_names(ATA_E_UNC | ATA_E_IDNF, buf, sizeof(buf));
	check_str("error_names_two_bits", buf, "UNC IDNF");
	ata_error_names(0, buf, sizeof(buf));
	check_str("error_names_none", buf, "none");
}

int main(void)
{
	test_fis();
	test_cmdhdr();
	test_prdt();
	test_identify();
	test_error_names();
	return unit_exit();
}
