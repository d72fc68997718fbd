/*
 * Host unit tests of the virtio-SCSI driver's pure SCSI code (kernel/dev/scsi_cmd.c): CDB byte
 * layout of every command it sends, the choice between the 10- and 16-byte READ/WRITE forms at
 * the 32-bit LBA and 16-bit count limits, INQUIRY and READ CAPACITY(10/16) parsing (including
 * the FFFFFFFFh "use 16" answer), fixed and descriptor sense decoding, and the message texts.
 */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "dev/scsi_cmd.c"

/* Compare a CDB with its length; on a mismatch name the first differing byte. */
static void check_cdb(const char *name, const uint8_t *got, int gotlen, const uint8_t *want, int wantlen)
{
	if (gotlen != wantlen) {
		printf("FAIL %s: expected length %d, got %d\n", name, wantlen, gotlen);
		failures++;
		return;
	}
	for (int i = 0; i < wantlen; i++) {
		if (got[i] != want[i]) {
			printf("FAIL %s: expected byte %d = 0x%02x, got 0x%02x\n", name, i, want[i], got[i]);
			failures++;
			return;
		}
	}
	printf("PASS %s\n", name);
}

static void test_simple_cdbs(void)
{
	uint8_t cdb[SCSI_CDB_MAX];
	int n;

	memset(cdb, 0xee, sizeof(cdb));
	n = scsi_cdb_test_unit_ready(cdb);
	check_cdb("TEST UNIT READY is six zero bytes", cdb, n, (const uint8_t[]){ 0, 0, 0, 0, 0, 0 }, 6);

	n = scsi_cdb_inquiry(cdb, 0x0124);
	check_cdb("INQUIRY puts the allocation length in bytes 3-4", cdb, n,
	          (const uint8_t[]){ 0x12, 0, 0, 0x01, 0x24, 0 }, 6);

	n = scsi_cdb_read_capacity10(cdb);
	check_cdb("READ CAPACITY(10) opcode 25h, rest zero", cdb, n,
	          (const uint8_t[]){ 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 10);

	n = scsi_cdb_read_capacity16(cdb, 32);
	check_cdb("READ CAPACITY(16) is SERVICE ACTION IN 9Eh/10h with length in 10-13", cdb, n,
	          (const uint8_t[]){ 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 }, 16);

	n = scsi_cdb_sync_cache10(cdb, 0, 0);
	check_cdb("SYNCHRONIZE CACHE(10) of the whole medium", cdb, n,
	          (const uint8_t[]){ 0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 10);
	n = scsi_cdb_sync_cache10(cdb, 0x01020304, 0x0506);
	check_cdb("SYNCHRONIZE CACHE(10) of a range", cdb, n,
	          (const uint8_t[]){ 0x35, 0, 1, 2, 3, 4, 0, 5, 6, 0 }, 10);
}

static void test_rw_cdbs(void)
{
	uint8_t cdb[SCSI_CDB_MAX];
	int n;

	n = scsi_cdb_rw(cdb, false, 0x12345678, 0x100);
	check_cdb("READ(10): LBA in 2-5, count in 7-8", cdb, n,
	          (const uint8_t[]){ 0x28, 0, 0x12, 0x34, 0x56, 0x78, 0, 0x01, 0x00, 0 }, 10);
	n = scsi_cdb_rw(cdb, true, 7, 1);
	check_cdb("WRITE(10) of one block", cdb, n,
	          (const uint8_t[]){ 0x2a, 0, 0, 0, 0, 7, 0, 0, 1, 0 }, 10);

	n = scsi_cdb_rw(cdb, true, 0x0102030405ull, 8);
	check_cdb("WRITE(16): 64-bit LBA in 2-9, count in 10-13", cdb, n,
	          (const uint8_t[]){ 0x8a, 0, 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 8, 0, 0 }, 16);
	n = scsi_cdb_rw(cdb, false, 0, 0x10000);
	check_cdb("READ(16) for a count past 16 bits", cdb, n,
	          (const uint8_t[]){ 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 }, 16);

	check_u64("10-byte form at the last 32-bit LBA", scsi_rw_needs_16(0xffffffffull, 1), 0);
	check_u64("16-byte form when the last block passes 2^32-1", scsi_rw_needs_16(0xfffffff0ull, 0x20), 1);
	check_u64("16-byte form for LBA 2^32", scsi_rw_needs_16(0x100000000ull, 1), 1);
	check_u64("10-byte form for 65535 blocks", scsi_rw_needs_16(0, 0xffff), 0);
	check_u64("16-byte form for 65536 blocks", scsi_rw_needs_16(0, 0x10000), 1);
	check_u64("a zero count is refused", (uint64_t)scsi_cdb_rw(cdb, false, 5, 0), 0);
	check_u64("a range past 2^64 blocks is refused", (uint64_t)scsi_cdb_rw(cdb, false, ~0ull, 2), 0);
}

static void test_inquiry(void)
{
	uint8_t buf[SCSI_INQUIRY_LEN];
	struct scsi_inquiry_data inq;

	memset(buf, 0, sizeof(buf));
	buf[0] = 0x00;
	buf[1] = 0x00;
	memcpy(buf + 8, "QEMU    ", 8);
	memcpy(buf + 16, "QEMU HARDDISK   ", 16);
	memcpy(buf + 32, "2.5+", 4);
	check_u64("INQUIRY data of 36 bytes parses", scsi_parse_inquiry(buf, sizeof(buf), &inq), 1);
	check_u64("INQUIRY device type 0 (disk)", inq.type, T_DIRECT);
	check_u64("INQUIRY qualifier 0 (connected)", inq.qualifier, SID_QUAL_LU_CONNECTED);
	check_str("INQUIRY vendor without trailing blanks", inq.vendor, "QEMU");
	check_str("INQUIRY product without trailing blanks", inq.product, "QEMU HARDDISK");
	check_str("INQUIRY revision", inq.revision, "2.5+");

	buf[0] = 0x7f;
	buf[1] = 0x80;
	scsi_parse_inquiry(buf, sizeof(buf), &inq);
	check_u64("INQUIRY 7Fh: qualifier 3 (no LU)", inq.qualifier, 3);
	check_u64("INQUIRY 7Fh: type 1Fh", inq.type, T_NODEVICE);
	check_u64("INQUIRY RMB bit", inq.removable, 1);
	check_u64("short INQUIRY data is refused", scsi_parse_inquiry(buf, 35, &inq), 0);
}

static void test_capacity(void)
{
	struct scsi_capacity cap = { 0, 0 };
	uint8_t c10[8] = { 0x00, 0x3f, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00 };
	uint8_t big[8] = { 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00 };
	uint8_t odd[8] = { 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x02, 0x01 };
	uint8_t c16[32] = { 0, 0, 0, 0x01, 0, 0, 0, 0x07, 0x00, 0x00, 0x10, 0x00 };

	check_u64("READ CAPACITY(10) parses", (uint64_t)scsi_parse_capacity10(c10, 8, &cap), 1);
	check_u64("READ CAPACITY(10) blocks = last LBA + 1", cap.nblocks, 0x400000);
	check_u64("READ CAPACITY(10) block size", cap.block_size, 512);
	check_u64("READ CAPACITY(10) FFFFFFFFh asks for READ CAPACITY(16)",
	          (uint64_t)scsi_parse_capacity10(big, 8, &cap), 0);
	check_u64("READ CAPACITY(10) refuses a 513-byte block", (uint64_t)scsi_parse_capacity10(odd, 8, &cap),
	          (uint64_t)-1);
	check_u64("READ CAPACITY(10) refuses short data", (uint64_t)scsi_parse_capacity10(c10, 7, &cap),
	          (uint64_t)-1);
	check_u64("READ CAPACITY(16) parses", scsi_parse_capacity16(c16, sizeof(c16), &cap), 1);
	check_u64("READ CAPACITY(16) 64-bit block count", cap.nblocks, 0x100000008ull);
	check_u64("READ CAPACITY(16) 4096-byte blocks", cap.block_size, 4096);
	check_u64("READ CAPACITY(16) refuses short data", scsi_parse_capacity16(c16, 11, &cap), 0);
}

static void test_sense(void)
{
	struct scsi_sense s;
	/* QEMU's answer to a failed write: ABORTED COMMAND, 00/06 (QEMU 7.2's sense_code_IO_ERROR,
	 * [@qemu-scsi-sense] in docs/sources.md; test_diskerr.py sees it through blkdebug). */
	uint8_t fixed[18] = { 0x70, 0, 0x0b, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x00, 0x06, 0, 0, 0, 0 };
	uint8_t ua[18] = { 0xf0, 0, 0x06, 0x00, 0x00, 0x12, 0x34, 10, 0, 0, 0, 0, 0x29, 0x00, 0, 0, 0, 0 };
	uint8_t desc[8] = { 0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0 };
	uint8_t junk[4] = { 0x12, 0, 0, 0 };

	check_u64("fixed sense parses", scsi_parse_sense(fixed, sizeof(fixed), &s), 1);
	check_u64("fixed sense key ABORTED COMMAND", s.key, SSD_KEY_ABORTED_COMMAND);
	check_u64("fixed sense ASC/ASCQ 00/06", (uint64_t)s.asc << 8 | s.ascq, 0x0006);
	check_u64("fixed sense without VALID has no information", s.info_valid, 0);
	scsi_parse_sense(ua, sizeof(ua), &s);
	check_u64("UNIT ATTENTION key", s.key, SSD_KEY_UNIT_ATTENTION);
	check_u64("UNIT ATTENTION ASC 29h", s.asc, 0x29);
	check_u64("VALID bit gives the information field", s.info_valid ? s.info : 0, 0x1234);
	check_u64("fixed sense cut before ASC still gives the key", scsi_parse_sense(fixed, 8, &s) && s.key == 0xb
	          && s.asc == 0, 1);
	check_u64("descriptor sense parses", scsi_parse_sense(desc, sizeof(desc), &s), 1);
	check_u64("descriptor sense key MEDIUM ERROR, ASC 11h",
	          (uint64_t)s.key << 16 | (uint64_t)s.asc << 8 | s.ascq, 0x031100);
	check_u64("unknown response code is refused", scsi_parse_sense(junk, sizeof(junk), &s), 0);
	check_u64("empty sense is refused", scsi_parse_sense(junk, 0, &s), 0);
}

static void test_names(void)
{
	check_str("sense key 6 name", scsi_sense_key_name(6), "UNIT ATTENTION");
	check_str("sense key B name", scsi_sense_key_name(0xb), "ABORTED COMMAND");
	check_str("sense key 3 name", scsi_sense_key_name(3), "MEDIUM ERROR");
	check_str("ASC 00/06 text", scsi_asc_text(0x00, 0x06), "I/O PROCESS TERMINATED");
	check_str("ASC 29/00 text", scsi_asc_text(0x29, 0x00), "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED");
	check_u64("unknown ASC has no text", scsi_asc_text(0x99, 0x99) == NULL, 1);
	check_str("WRITE(16) name", scsi_op_name(SCSI_WRITE_16), "WRITE(16)");
	check_str("SYNCHRONIZE CACHE name", scsi_op_name(0x35), "SYNCHRONIZE CACHE(10)");
}

int main(void)
{
	test_simple_cdbs();
	test_rw_cdbs();
	test_inquiry();
	test_capacity();
	test_sense();
	test_names();
	return unit_exit();
}
