/*
 * virtio over PCI, legacy interface, with split virtqueues (Virtio 1.0 §4.1.4.8 "Legacy
 * Interfaces: A Note on PCI Device Layout", §2.4 "Virtqueues", §2.4.8 "Legacy Interfaces: A Note
 * on Virtqueue Layout"). Device drivers (virtio_scsi.c) sit on top:
 *
 *   virtio_pci_attach(vd, pci, name)  - BAR0 (I/O), I/O decoding and bus mastering on, device
 *                                       reset, status ACKNOWLEDGE | DRIVER. 0 or errno.
 *   virtio_negotiate(vd, wanted)      - accept the offered features that are also in `wanted`;
 *                                       returns (and keeps in vd_features) the result.
 *   virtq_setup(vd, index, vq)        - allocate queue `index` at the size the device gives,
 *                                       rings 4 KiB-aligned and physically contiguous, and tell
 *                                       the device its page frame number. 0 or errno.
 *   virtio_driver_ok(vd) / virtio_failed(vd) / virtio_reset(vd) - device status.
 *   virtio_isr(vd)                    - read (and so acknowledge) the ISR: bit 0 a used buffer,
 *                                       bit 1 a configuration change. 0 = not this device's
 *                                       interrupt (INTx lines are shared).
 *   virtio_cfg_read32/16, virtio_cfg_write32 - the device-specific configuration at BAR0 + 0x14.
 *
 *   virtq_enqueue(vq, segs, nout, nin, indir, cookie) - post one request: nout device-readable
 *       segments followed by nin device-writable ones (§2.4.4.2 requires that order). If
 *       VIRTIO_RING_F_INDIRECT_DESC was negotiated and `indir` is given (a physically contiguous,
 *       16-byte aligned table of at least nout+nin entries that stays untouched until the request
 *       comes back), the segments go in that table and the ring spends one descriptor (§2.4.5.3);
 *       otherwise they are chained through the ring's descriptor free list. 0, or ENOSPC when the
 *       ring has too few free descriptors. Does not notify.
 *   virtq_notify(vq)                  - publish what was enqueued and kick the device, unless it
 *                                       asked not to be kicked (VRING_USED_F_NO_NOTIFY).
 *   virtq_kick(vq)                    - kick the device whatever it asked: a watchdog's retry when
 *                                       a request seems not to have been seen (a kick with
 *                                       nothing new in the ring makes the device look and find
 *                                       nothing, so it is harmless).
 *   virtq_used_pending(vq)            - answers in the used ring not yet taken by virtq_dequeue.
 *   virtq_dequeue(vq, &len)           - the cookie of the next request the device has finished
 *                                       (its descriptors freed), and the bytes it wrote; NULL if
 *                                       none.
 *
 * Locking: none inside. A virtqueue belongs to its driver, which serializes every virtq_* call on
 * it with its own lock (virtio_scsi.c: the HBA's sc_lock).
 */
#ifndef _DEV_VIRTIO_H_
#define _DEV_VIRTIO_H_

#include "kern/types.h"
#include "dev/pci.h"

#define VIRTIO_VENDOR            0x1af4

/* Device status bits (§2.1). */
#define VIRTIO_STATUS_ACK        0x01
#define VIRTIO_STATUS_DRIVER     0x02
#define VIRTIO_STATUS_DRIVER_OK  0x04
#define VIRTIO_STATUS_FAILED     0x80

/* Ring feature bits (§6). */
#define VIRTIO_RING_F_INDIRECT_DESC (1u << 28)
#define VIRTIO_RING_F_EVENT_IDX     (1u << 29)

#define VIRTIO_ISR_QUEUE         0x01
#define VIRTIO_ISR_CONFIG        0x02

/* One split-virtqueue descriptor (§2.4.5). */
struct vring_desc {
	uint64_t addr;     /* guest-physical */
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

#define VRING_DESC_F_NEXT     1
#define VRING_DESC_F_WRITE    2        /* device writes this buffer */
#define VRING_DESC_F_INDIRECT 4

struct vring_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];   /* then uint16_t used_event (unused: no EVENT_IDX) */
};

struct vring_used_elem {
	uint32_t id;       /* head descriptor of the finished chain */
	uint32_t len;      /* bytes the device wrote into its writable buffers */
};

#define VRING_USED_F_NO_NOTIFY 1

struct vring_used {
	uint16_t flags;
	uint16_t idx;
	struct vring_used_elem ring[];
};

struct virtio_dev {
	struct pci_dev *vd_pci;
	uint16_t        vd_iobase;      /* BAR0 */
	uint32_t        vd_features;    /* negotiated */
	const char     *vd_name;        /* for messages */
};

struct vq_seg {
	uint32_t vs_paddr;
	uint32_t vs_len;
};

struct virtqueue {
	struct virtio_dev           *vq_dev;
	uint16_t                     vq_index;
	uint16_t                     vq_size;        /* entries, a power of two */
	void                        *vq_mem;         /* the rings (kmalloc, page-aligned) */
	volatile struct vring_desc  *vq_desc;
	volatile struct vring_avail *vq_avail;
	volatile struct vring_used  *vq_used;
	uint16_t                     vq_free_head;   /* free descriptors, linked through .next */
	uint16_t                     vq_nfree;
	uint16_t                     vq_avail_idx;   /* next avail->idx to publish */
	uint16_t                     vq_last_used;   /* used->idx seen so far */
	bool                         vq_indirect;    /* INDIRECT_DESC negotiated */
	void                       **vq_cookie;      /* per head descriptor */
};

int      virtio_pci_attach(struct virtio_dev *vd, struct pci_dev *pci, const char *name);
uint32_t virtio_negotiate(struct virtio_dev *vd, uint32_t wanted);
int      virtq_setup(struct virtio_dev *vd, int index, struct virtqueue *vq);
void     virtio_driver_ok(struct virtio_dev *vd);
void     virtio_failed(struct virtio_dev *vd);
void     virtio_reset(struct virtio_dev *vd);
uint8_t  virtio_isr(struct virtio_dev *vd);
uint32_t virtio_cfg_read32(struct virtio_dev *vd, int off);
uint16_t virtio_cfg_read16(struct virtio_dev *vd, int off);
void     virtio_cfg_write32(struct virtio_dev *vd, int off, uint32_t v);

int      virtq_enqueue(struct virtqueue *vq, const struct vq_seg *segs, int nout, int nin,
                       struct vring_desc *indir, void *cookie);
void     virtq_notify(struct virtqueue *vq);
void     virtq_kick(struct virtqueue *vq);
uint16_t virtq_used_pending(const struct virtqueue *vq);
void    *virtq_dequeue(struct virtqueue *vq, uint32_t *lenp);

#endif
