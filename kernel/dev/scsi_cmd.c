/*
 * scsi_cmd.c - SCSI CDB builders, reply parsers and message texts (interface: dev/scsi_cmd.h).
 *
 * Pure code: no kernel headers, so tests/unit/test_scsi_cmd.c compiles it on the host. Every
 * multi-byte field of a CDB or of returned data is big-endian (SPC-4 §3.5.2). No state.
 */
#include "dev/scsi_cmd.h"

/* ---- byte order ------------------------------------------------------------------------------ */

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static void cdb_clear(uint8_t *cdb)
{
	for (int i = 0; i < SCSI_CDB_MAX; i++)
		cdb[i] = 0;
}

/* ---- builders -------------------------------------------------------------------------------- */

/* TEST UNIT READY (SPC-4 §6.47): six bytes, all zero but the opcode. */
int scsi_cdb_test_unit_ready(uint8_t *cdb)
{
	cdb_clear(cdb);
	cdb[0] = SCSI_TEST_UNIT_READY;
	return 6;
}

/* INQUIRY (SPC-4 §6.4.1) of the standard data: EVPD = 0, page 0, allocation length in 3-4. */
int scsi_cdb_inquiry(uint8_t *cdb, uint16_t alloc_len)
{
	cdb_clear(cdb);
	cdb[0] = SCSI_INQUIRY;
	put_be16(cdb + 3, alloc_len);
	return 6;
}

/* READ CAPACITY(10) (SBC-3 §5.15): LBA 0, PMI 0, so the reply is the last LBA and block size. */
int scsi_cdb_read_capacity10(uint8_t *cdb)
{
	cdb_clear(cdb);
	cdb[0] = SCSI_READ_CAPACITY_10;
	return 10;
}

/* READ CAPACITY(16) (SBC-3 §5.16): SERVICE ACTION IN(16) with service action 10h. */
int scsi_cdb_read_capacity16(uint8_t *cdb, uint32_t alloc_len)
{
	cdb_clear(cdb);
	cdb[0] = SCSI_SERVICE_ACTION_IN_16;
	cdb[1] = SCSI_SAI_READ_CAPACITY_16;
	put_be32(cdb + 10, alloc_len);
	return 16;
}

/*
 * scsi_rw_needs_16: READ/WRITE(10) carry a 32-bit LBA and a 16-bit transfer length, where 0
 * means no blocks (SBC-3 §5.11); anything past that needs the 16-byte form (64-bit LBA, 32-bit
 * length). The last block, lba + nblocks - 1, must fit too.
 */
bool scsi_rw_needs_16(uint64_t lba, uint32_t nblocks)
{
	uint64_t last = nblocks > 0 ? lba + nblocks - 1 : lba;

	return last > 0xffffffffull || last < lba || nblocks > 0xffff;
}

/*
 * scsi_cdb_rw: READ or WRITE of nblocks at lba, in the shortest form that holds them. Returns
 * the CDB length, or 0 for a zero count or a range past 2^64 blocks.
 */
int scsi_cdb_rw(uint8_t *cdb, bool write, uint64_t lba, uint32_t nblocks)
{
	cdb_clear(cdb);
	if (nblocks == 0 || lba + nblocks < lba)
		return 0;
	if (!scsi_rw_needs_16(lba, nblocks)) {
		cdb[0] = write ? SCSI_WRITE_10 : SCSI_READ_10;
		put_be32(cdb + 2, (uint32_t)lba);
		put_be16(cdb + 7, (uint16_t)nblocks);
		return 10;
	}
	cdb[0] = write ? SCSI_WRITE_16 : SCSI_READ_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, nblocks);
	return 16;
}

/* SYNCHRONIZE CACHE(10) (SBC-3 §5.22); lba 0 with nblocks 0 means the whole medium. */
int scsi_cdb_sync_cache10(uint8_t *cdb, uint32_t lba, uint16_t nblocks)
{
	cdb_clear(cdb);
	cdb[0] = SCSI_SYNCHRONIZE_CACHE_10;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, nblocks);
	return 10;
}

/* ---- parsers --------------------------------------------------------------------------------- */

/* Copy an ASCII field of n bytes, dropping trailing blanks (SPC-4 §4.4.1 pads with spaces). */
static void copy_ascii(char *dst, const uint8_t *src, int n)
{
	int len = n;

	while (len > 0 && (src[len - 1] == ' ' || src[len - 1] == 0))
		len--;
	for (int i = 0; i < len; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[len] = 0;
}

/*
 * scsi_parse_inquiry: the standard INQUIRY data (SPC-4 §6.4.2): byte 0 qualifier and device
 * type, byte 1 bit 7 RMB, vendor 8-15, product 16-31, revision 32-35. False if shorter than that.
 */
bool scsi_parse_inquiry(const uint8_t *buf, size_t len, struct scsi_inquiry_data *inq)
{
	if (len < SCSI_INQUIRY_LEN)
		return false;
	inq->qualifier = buf[0] >> 5;
	inq->type = buf[0] & 0x1f;
	inq->removable = (buf[1] & 0x80) != 0;
	copy_ascii(inq->vendor, buf + 8, 8);
	copy_ascii(inq->product, buf + 16, 16);
	copy_ascii(inq->revision, buf + 32, 4);
	return true;
}

/* A block size the driver can use: a power of two from 512 bytes to 64 KB. */
static bool good_block_size(uint32_t bs)
{
	return bs >= 512 && bs <= 65536 && (bs & (bs - 1)) == 0;
}

/*
 * scsi_parse_capacity10: bytes 0-3 the last LBA, 4-7 the block length (SBC-3 §5.15.2). A last
 * LBA of FFFFFFFFh means "too big for this command; use READ CAPACITY(16)".
 */
int scsi_parse_capacity10(const uint8_t *buf, size_t len, struct scsi_capacity *cap)
{
	uint32_t last;

	if (len < SCSI_CAP10_LEN)
		return -1;
	last = get_be32(buf);
	if (last == 0xffffffffu)
		return 0;
	cap->nblocks = (uint64_t)last + 1;
	cap->block_size = get_be32(buf + 4);
	return good_block_size(cap->block_size) ? 1 : -1;
}

/* scsi_parse_capacity16: bytes 0-7 the last LBA, 8-11 the block length (SBC-3 §5.16.2). */
bool scsi_parse_capacity16(const uint8_t *buf, size_t len, struct scsi_capacity *cap)
{
	uint64_t last;

	if (len < 12)
		return false;
	last = get_be64(buf);
	if (last == ~0ull)
		return false;
	cap->nblocks = last + 1;
	cap->block_size = get_be32(buf + 8);
	return good_block_size(cap->block_size);
}

/*
 * scsi_parse_sense: sense data in either format. Fixed (response code 70h/71h, SPC-4 §4.5.3):
 * byte 0 bit 7 VALID, bytes 3-6 INFORMATION, byte 2 bits 3-0 the key, byte 7 the additional
 * length, bytes 12/13 ASC/ASCQ (present only if the additional length reaches them).
 * Descriptor (72h/73h, §4.5.2): key, ASC, ASCQ in bytes 1-3. False for anything else.
 */
bool scsi_parse_sense(const uint8_t *buf, size_t len, struct scsi_sense *s)
{
	uint8_t code;

	s->key = s->asc = s->ascq = 0;
	s->info_valid = false;
	s->info = 0;
	if (len < 1)
		return false;
	code = buf[0] & 0x7f;
	if (code == 0x70 || code == 0x71) {
		if (len < 3)
			return false;
		s->key = buf[2] & 0x0f;
		if (len >= 7 && (buf[0] & 0x80)) {
			s->info_valid = true;
			s->info = get_be32(buf + 3);
		}
		if (len >= 14 && buf[7] >= 6) {
			s->asc = buf[12];
			s->ascq = buf[13];
		}
		return true;
	}
	if (code == 0x72 || code == 0x73) {
		if (len < 4)
			return false;
		s->key = buf[1] & 0x0f;
		s->asc = buf[2];
		s->ascq = buf[3];
		return true;
	}
	return false;
}

/* ---- names ----------------------------------------------------------------------------------- */

/* Sense key names as SPC-4 §4.5.6 table 48 spells them. */
const char *scsi_sense_key_name(uint8_t key)
{
	static const char *const names[16] = {
		"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR",
		"ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
		"COPY ABORTED", "ABORTED COMMAND", "RESERVED (0CH)", "VOLUME OVERFLOW", "MISCOMPARE",
		"COMPLETED",
	};

	return names[key & 0x0f];
}

/* The additional sense codes a disk commonly returns (SPC-4 Annex D, table D.1). */
static const struct {
	uint8_t asc, ascq;
	const char *text;
} asc_table[] = {
	{ 0x00, 0x00, "NO ADDITIONAL SENSE INFORMATION" },
	{ 0x00, 0x06, "I/O PROCESS TERMINATED" },
	{ 0x04, 0x00, "LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE" },
	{ 0x04, 0x01, "LOGICAL UNIT IS IN PROCESS OF BECOMING READY" },
	{ 0x04, 0x02, "LOGICAL UNIT NOT READY, INITIALIZING COMMAND REQUIRED" },
	{ 0x0c, 0x00, "WRITE ERROR" },
	{ 0x11, 0x00, "UNRECOVERED READ ERROR" },
	{ 0x20, 0x00, "INVALID COMMAND OPERATION CODE" },
	{ 0x21, 0x00, "LOGICAL BLOCK ADDRESS OUT OF RANGE" },
	{ 0x24, 0x00, "INVALID FIELD IN CDB" },
	{ 0x25, 0x00, "LOGICAL UNIT NOT SUPPORTED" },
	{ 0x27, 0x00, "WRITE PROTECTED" },
	{ 0x27, 0x07, "SPACE ALLOCATION FAILED WRITE PROTECT" },
	{ 0x28, 0x00, "NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED" },
	{ 0x29, 0x00, "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED" },
	{ 0x29, 0x01, "POWER ON OCCURRED" },
	{ 0x29, 0x02, "SCSI BUS RESET OCCURRED" },
	{ 0x2a, 0x09, "CAPACITY DATA HAS CHANGED" },
	{ 0x3a, 0x00, "MEDIUM NOT PRESENT" },
	{ 0x3f, 0x0e, "REPORTED LUNS DATA HAS CHANGED" },
	{ 0x44, 0x00, "INTERNAL TARGET FAILURE" },
};

const char *scsi_asc_text(uint8_t asc, uint8_t ascq)
{
	for (size_t i = 0; i < sizeof(asc_table) / sizeof(asc_table[0]); i++)
		if (asc_table[i].asc == asc && asc_table[i].ascq == ascq)
			return asc_table[i].text;
	return NULL;
}

/* The commands this driver sends, by name, for messages. */
const char *scsi_op_name(uint8_t opcode)
{
	switch (opcode) {
	case SCSI_TEST_UNIT_READY:      return "TEST UNIT READY";
	case SCSI_INQUIRY:              return "INQUIRY";
	case SCSI_READ_CAPACITY_10:     return "READ CAPACITY(10)";
	case SCSI_READ_10:              return "READ(10)";
	case SCSI_WRITE_10:             return "WRITE(10)";
	case SCSI_SYNCHRONIZE_CACHE_10: return "SYNCHRONIZE CACHE(10)";
	case SCSI_READ_16:              return "READ(16)";
	case SCSI_WRITE_16:             return "WRITE(16)";
	case SCSI_SERVICE_ACTION_IN_16: return "READ CAPACITY(16)";
	default:                        return "SCSI command";
	}
}
