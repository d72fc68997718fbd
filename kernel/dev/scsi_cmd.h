/*
 * SCSI command blocks and the data they return: pure code, shared by the virtio-SCSI driver and
 * the host unit tests (tests/unit/test_scsi_cmd.c). Only <stdint.h>, <stddef.h>, <stdbool.h>.
 *
 * Builders fill a caller's CDB buffer (at least SCSI_CDB_MAX bytes) and return the CDB length,
 * or 0 when the request cannot be expressed:
 *   scsi_cdb_test_unit_ready, scsi_cdb_inquiry        (SPC-4 §6.47, §6.4)
 *   scsi_cdb_read_capacity10, scsi_cdb_read_capacity16 (SBC-3 §5.15, §5.16)
 *   scsi_cdb_rw(cdb, write, lba, nblocks)             READ/WRITE(10) when the LBA fits in 32 bits
 *                                                     and the count in 16, else READ/WRITE(16)
 *                                                     (SBC-3 §5.11, §5.13, §5.35, §5.37)
 *   scsi_cdb_sync_cache10                             SYNCHRONIZE CACHE(10), SBC-3 §5.22
 * Parsers read a device's reply (all multi-byte fields are big-endian):
 *   scsi_parse_inquiry, scsi_parse_capacity10, scsi_parse_capacity16, scsi_parse_sense
 *   (fixed-format sense data SPC-4 §4.5.3, and descriptor format §4.5.2).
 * Names for messages: scsi_sense_key_name, scsi_asc_text, scsi_op_name.
 * No state, no locking.
 */
#ifndef _DEV_SCSI_CMD_H_
#define _DEV_SCSI_CMD_H_

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define SCSI_CDB_MAX 16

/* Operation codes (SPC-4 / SBC-3). */
#define SCSI_TEST_UNIT_READY      0x00
#define SCSI_INQUIRY              0x12
#define SCSI_READ_CAPACITY_10     0x25
#define SCSI_READ_10              0x28
#define SCSI_WRITE_10             0x2a
#define SCSI_SYNCHRONIZE_CACHE_10 0x35
#define SCSI_READ_16              0x88
#define SCSI_WRITE_16             0x8a
#define SCSI_SERVICE_ACTION_IN_16 0x9e
#define SCSI_SAI_READ_CAPACITY_16 0x10

/* Status byte (SAM-5 §5.3). */
#define SCSI_STATUS_GOOD            0x00
#define SCSI_STATUS_CHECK_COND      0x02
#define SCSI_STATUS_BUSY            0x08
#define SCSI_STATUS_RESERV_CONFLICT 0x18
#define SCSI_STATUS_TASK_SET_FULL   0x28

/* Sense keys (SPC-4 §4.5.6, table 48). */
#define SSD_KEY_NO_SENSE        0x0
#define SSD_KEY_RECOVERED_ERROR 0x1
#define SSD_KEY_NOT_READY       0x2
#define SSD_KEY_MEDIUM_ERROR    0x3
#define SSD_KEY_HARDWARE_ERROR  0x4
#define SSD_KEY_ILLEGAL_REQUEST 0x5
#define SSD_KEY_UNIT_ATTENTION  0x6
#define SSD_KEY_DATA_PROTECT    0x7
#define SSD_KEY_ABORTED_COMMAND 0xb

/* INQUIRY peripheral device types (SPC-4 §6.4.2, table 141) and qualifier. */
#define T_DIRECT     0x00        /* direct-access block device: a disk */
#define T_NODEVICE   0x1f
#define SID_QUAL_LU_CONNECTED 0

#define SCSI_INQUIRY_LEN   36    /* the standard data up to the revision level */
#define SCSI_CAP10_LEN     8
#define SCSI_CAP16_LEN     32

struct scsi_inquiry_data {
	uint8_t qualifier;           /* bits 7-5 of byte 0 */
	uint8_t type;                /* bits 4-0 of byte 0 */
	bool    removable;
	char    vendor[9];           /* trailing blanks removed, NUL-terminated */
	char    product[17];
	char    revision[5];
};

struct scsi_capacity {
	uint64_t nblocks;            /* last LBA + 1 */
	uint32_t block_size;         /* bytes */
};

struct scsi_sense {
	uint8_t  key;
	uint8_t  asc, ascq;
	bool     info_valid;         /* `info` holds the failing LBA (fixed format VALID bit) */
	uint64_t info;
};

int scsi_cdb_test_unit_ready(uint8_t *cdb);
int scsi_cdb_inquiry(uint8_t *cdb, uint16_t alloc_len);
int scsi_cdb_read_capacity10(uint8_t *cdb);
int scsi_cdb_read_capacity16(uint8_t *cdb, uint32_t alloc_len);
bool scsi_rw_needs_16(uint64_t lba, uint32_t nblocks);
int scsi_cdb_rw(uint8_t *cdb, bool write, uint64_t lba, uint32_t nblocks);
int scsi_cdb_sync_cache10(uint8_t *cdb, uint32_t lba, uint16_t nblocks);

bool scsi_parse_inquiry(const uint8_t *buf, size_t len, struct scsi_inquiry_data *inq);
/* READ CAPACITY(10): 1 = parsed, 0 = the capacity needs READ CAPACITY(16), -1 = bad data. */
int  scsi_parse_capacity10(const uint8_t *buf, size_t len, struct scsi_capacity *cap);
bool scsi_parse_capacity16(const uint8_t *buf, size_t len, struct scsi_capacity *cap);
bool scsi_parse_sense(const uint8_t *buf, size_t len, struct scsi_sense *s);

const char *scsi_sense_key_name(uint8_t key);
const char *scsi_asc_text(uint8_t asc, uint8_t ascq);   /* NULL when not in the table */
const char *scsi_op_name(uint8_t opcode);

#endif
