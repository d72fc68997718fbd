/*
 * virtio.c - the legacy virtio-pci transport and split virtqueues (interface: dev/virtio.h).
 *
 * Why legacy: a transitional device (QEMU's default 1af4:1000-103f) offers both interfaces; the
 * legacy one is a handful of I/O-port registers in BAR0 (Virtio 1.0 §4.1.4.8), a queue is placed
 * by writing one page frame number, and there is no FEATURES_OK handshake, which suits a 32-bit
 * teaching kernel. Register map (BAR0 offsets, little-endian as the x86 guest):
 *     0x00 device features (32, RO)   0x04 driver features (32)   0x08 queue PFN (32)
 *     0x0c queue size (16, RO)        0x0e queue select (16)      0x10 queue notify (16)
 *     0x12 device status (8)          0x13 ISR status (8, read clears)
 *     0x14 device-specific configuration; 0x18 while MSI-X is enabled.
 * Interrupts are INTx: the ISR register says whether the (possibly shared) line was ours and
 * reading it deasserts the line. MSI-X is left disabled: enabling it would move the device
 * configuration to 0x18 and needs a vector per queue; pci_setup_intr() uses only MSI, which
 * virtio-pci does not offer, so drivers get the INTx line.
 *
 * Virtqueue layout (§2.4.2 with the legacy 4096-byte alignment, §2.4.8): the descriptor table
 * (16 bytes each), then the available ring (flags, idx, ring[size], used_event), then, at the next
 * 4096-byte boundary, the used ring (flags, idx, ring[size] of {id, len}, avail_event). All of it
 * is one kmalloc block, which is physically contiguous and page-aligned (kern/kmalloc.h).
 * Free descriptors form a list through their `next` fields, as in the spec's example driver.
 *
 * Memory ordering (§2.4.6, §2.4.7): descriptors and the ring slot are written before avail->idx,
 * and avail->idx before the used->flags check that decides the notify; used->idx is read before
 * the used element. x86 keeps stores in order but may pass a load ahead of an earlier store, so
 * these points use a full barrier (__sync_synchronize); the port I/O has a "memory" clobber.
 *
 * Locking: none here; the driver that owns a virtqueue serializes all calls on it.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "arch/memlayout.h"
#include "arch/x86.h"
#include "dev/pci.h"
#include "dev/virtio.h"
#include <sys/errno.h>

#define VIRTIO_PCI_HOST_FEATURES  0x00
#define VIRTIO_PCI_GUEST_FEATURES 0x04
#define VIRTIO_PCI_QUEUE_PFN      0x08
#define VIRTIO_PCI_QUEUE_NUM      0x0c
#define VIRTIO_PCI_QUEUE_SEL      0x0e
#define VIRTIO_PCI_QUEUE_NOTIFY   0x10
#define VIRTIO_PCI_STATUS         0x12
#define VIRTIO_PCI_ISR            0x13
#define VIRTIO_PCI_CONFIG         0x14
#define VIRTIO_PCI_CONFIG_MSIX    0x18

#define VIRTIO_PCI_QUEUE_ALIGN    4096
#define VIRTIO_PCI_QUEUE_PFN_SHIFT 12

#define PCIY_MSIX                 0x11
#define PCIM_MSIXCTRL_ENABLE      0x8000

static void mb(void)
{
	__sync_synchronize();
}

/* ---- device registers ------------------------------------------------------------------------ */

/* Where the device-specific configuration starts: it moves while MSI-X is enabled (§4.1.4.8). */
static int virtio_cfg_base(struct virtio_dev *vd)
{
	int cap = pci_find_cap(vd->vd_pci, PCIY_MSIX);

	if (cap != 0 && (pci_cfg_read16(vd->vd_pci, cap + 2) & PCIM_MSIXCTRL_ENABLE))
		return VIRTIO_PCI_CONFIG_MSIX;
	return VIRTIO_PCI_CONFIG;
}

uint32_t virtio_cfg_read32(struct virtio_dev *vd, int off)
{
	return inl(vd->vd_iobase + virtio_cfg_base(vd) + off);
}

uint16_t virtio_cfg_read16(struct virtio_dev *vd, int off)
{
	return inw(vd->vd_iobase + virtio_cfg_base(vd) + off);
}

void virtio_cfg_write32(struct virtio_dev *vd, int off, uint32_t v)
{
	outl(vd->vd_iobase + virtio_cfg_base(vd) + off, v);
}

static void virtio_set_status(struct virtio_dev *vd, uint8_t bits)
{
	outb(vd->vd_iobase + VIRTIO_PCI_STATUS, inb(vd->vd_iobase + VIRTIO_PCI_STATUS) | bits);
}

/* Writing 0 to the status resets the device (§2.1.2): it forgets its queues and features. */
void virtio_reset(struct virtio_dev *vd)
{
	outb(vd->vd_iobase + VIRTIO_PCI_STATUS, 0);
	(void)inb(vd->vd_iobase + VIRTIO_PCI_STATUS);
}

void virtio_driver_ok(struct virtio_dev *vd)
{
	virtio_set_status(vd, VIRTIO_STATUS_DRIVER_OK);
}

void virtio_failed(struct virtio_dev *vd)
{
	virtio_set_status(vd, VIRTIO_STATUS_FAILED);
}

uint8_t virtio_isr(struct virtio_dev *vd)
{
	return inb(vd->vd_iobase + VIRTIO_PCI_ISR);
}

/*
 * virtio_pci_attach: the first steps of device initialization (§3.1.1): reset, ACKNOWLEDGE
 * ("a guest noticed it"), DRIVER ("and knows how to drive it"). Returns ENXIO if BAR0 is not an
 * I/O BAR (a modern-only device, e.g. disable-legacy=on).
 */
int virtio_pci_attach(struct virtio_dev *vd, struct pci_dev *pci, const char *name)
{
	uint32_t base, size;
	bool is_io;

	vd->vd_pci = pci;
	vd->vd_name = name;
	vd->vd_features = 0;
	if (pci_bar(pci, 0, &base, &size, &is_io) != 0 || !is_io || size < 0x20) {
		kprintf("%s: BAR0 is not a legacy virtio I/O window (modern-only device?); not attached\n",
		        name);
		return ENXIO;
	}
	vd->vd_iobase = (uint16_t)base;
	pci_enable(pci, true, false, true);
	virtio_reset(vd);
	virtio_set_status(vd, VIRTIO_STATUS_ACK);
	virtio_set_status(vd, VIRTIO_STATUS_DRIVER);
	return 0;
}

/* virtio_negotiate: legacy drivers just write the subset they accept (§4.1.4.8, no FEATURES_OK). */
uint32_t virtio_negotiate(struct virtio_dev *vd, uint32_t wanted)
{
	uint32_t offered = inl(vd->vd_iobase + VIRTIO_PCI_HOST_FEATURES);

	vd->vd_features = offered & wanted;
	outl(vd->vd_iobase + VIRTIO_PCI_GUEST_FEATURES, vd->vd_features);
	return vd->vd_features;
}

/* ---- virtqueues ------------------------------------------------------------------------------ */

static size_t vring_size(unsigned qsz)
{
	size_t first = sizeof(struct vring_desc) * qsz + sizeof(uint16_t) * (3 + qsz);
	size_t used = sizeof(uint16_t) * 3 + sizeof(struct vring_used_elem) * qsz;

	return roundup(first, VIRTIO_PCI_QUEUE_ALIGN) + roundup(used, VIRTIO_PCI_QUEUE_ALIGN);
}

/*
 * virtq_setup: select queue `index`, read its size (fixed by a legacy device; 0 = no such
 * queue), allocate zeroed rings and give the device their page frame number. Boot-time, may sleep.
 */
int virtq_setup(struct virtio_dev *vd, int index, struct virtqueue *vq)
{
	uint16_t qsz;
	size_t bytes;
	char *mem;

	outw(vd->vd_iobase + VIRTIO_PCI_QUEUE_SEL, (uint16_t)index);
	qsz = inw(vd->vd_iobase + VIRTIO_PCI_QUEUE_NUM);
	if (qsz == 0 || (qsz & (qsz - 1)) != 0) {
		kprintf("%s: virtqueue %d has size %u; not usable\n", vd->vd_name, index, qsz);
		return ENXIO;
	}
	if (inl(vd->vd_iobase + VIRTIO_PCI_QUEUE_PFN) != 0) {
		kprintf("%s: virtqueue %d is already in use after reset\n", vd->vd_name, index);
		return EBUSY;
	}
	bytes = vring_size(qsz);
	mem = kmalloc(bytes, M_WAITOK | M_ZERO);
	vq->vq_cookie = kmalloc(qsz * sizeof(void *), M_WAITOK | M_ZERO);
	if (mem == NULL || vq->vq_cookie == NULL || ((uintptr_t)mem & (VIRTIO_PCI_QUEUE_ALIGN - 1))) {
		kprintf("%s: no page-aligned memory for virtqueue %d (%u bytes)\n", vd->vd_name, index,
		        (unsigned)bytes);
		kfree(mem);
		kfree(vq->vq_cookie);
		return ENOMEM;
	}
	vq->vq_dev = vd;
	vq->vq_index = (uint16_t)index;
	vq->vq_size = qsz;
	vq->vq_mem = mem;
	vq->vq_desc = (struct vring_desc *)mem;
	vq->vq_avail = (struct vring_avail *)(mem + sizeof(struct vring_desc) * qsz);
	vq->vq_used = (struct vring_used *)(mem + roundup(sizeof(struct vring_desc) * qsz +
	                                   sizeof(uint16_t) * (3 + qsz), VIRTIO_PCI_QUEUE_ALIGN));
	for (unsigned i = 0; i < qsz; i++)
		vq->vq_desc[i].next = (uint16_t)(i + 1);
	vq->vq_free_head = 0;
	vq->vq_nfree = qsz;
	vq->vq_avail_idx = 0;
	vq->vq_last_used = 0;
	vq->vq_indirect = (vd->vd_features & VIRTIO_RING_F_INDIRECT_DESC) != 0;
	outl(vd->vd_iobase + VIRTIO_PCI_QUEUE_PFN, V2P(mem) >> VIRTIO_PCI_QUEUE_PFN_SHIFT);
	return 0;
}

/* Fill descriptor d from segment i of a request with nout readable segments. */
static void desc_fill(volatile struct vring_desc *d, const struct vq_seg *s, int i, int nout)
{
	d->addr = s->vs_paddr;
	d->len = s->vs_len;
	d->flags = (uint16_t)(i >= nout ? VRING_DESC_F_WRITE : 0);
}

/* The segments in the caller's indirect table; one ring descriptor points at it (§2.4.5.3). */
static int enqueue_indirect(struct virtqueue *vq, const struct vq_seg *segs, int n, int nout,
                            struct vring_desc *indir)
{
	uint16_t head;

	if (vq->vq_nfree < 1)
		return -1;
	for (int i = 0; i < n; i++) {
		desc_fill(&indir[i], &segs[i], i, nout);
		indir[i].next = (uint16_t)(i + 1);
		if (i + 1 < n)
			indir[i].flags |= VRING_DESC_F_NEXT;
	}
	head = vq->vq_free_head;
	vq->vq_free_head = vq->vq_desc[head].next;
	vq->vq_nfree--;
	vq->vq_desc[head].addr = V2P(indir);
	vq->vq_desc[head].len = (uint32_t)(n * sizeof(struct vring_desc));
	vq->vq_desc[head].flags = VRING_DESC_F_INDIRECT;
	return head;
}

/* The segments chained through n free ring descriptors, which the free list already links. */
static int enqueue_chain(struct virtqueue *vq, const struct vq_seg *segs, int n, int nout)
{
	uint16_t head = vq->vq_free_head, d = head;

	if (vq->vq_nfree < n)
		return -1;
	for (int i = 0; i < n; i++) {
		desc_fill(&vq->vq_desc[d], &segs[i], i, nout);
		if (i + 1 < n)
			vq->vq_desc[d].flags |= VRING_DESC_F_NEXT;
		else
			vq->vq_free_head = vq->vq_desc[d].next;
		d = vq->vq_desc[d].next;
	}
	vq->vq_nfree = (uint16_t)(vq->vq_nfree - n);
	return head;
}

/* virtq_enqueue: see virtio.h. The request is visible to the device only after virtq_notify. */
int virtq_enqueue(struct virtqueue *vq, const struct vq_seg *segs, int nout, int nin,
                  struct vring_desc *indir, void *cookie)
{
	int n = nout + nin, head;

	if (n < 1 || n > vq->vq_size || cookie == NULL)
		return EINVAL;
	if (vq->vq_indirect && indir != NULL && n > 1)
		head = enqueue_indirect(vq, segs, n, nout, indir);
	else
		head = enqueue_chain(vq, segs, n, nout);
	if (head < 0)
		return ENOSPC;
	vq->vq_cookie[head] = cookie;
	vq->vq_avail->ring[vq->vq_avail_idx & (vq->vq_size - 1)] = (uint16_t)head;
	vq->vq_avail_idx++;
	return 0;
}

/* virtq_notify: publish avail->idx, then kick unless the device suppressed notifications. */
void virtq_notify(struct virtqueue *vq)
{
	mb();
	vq->vq_avail->idx = vq->vq_avail_idx;
	mb();
	if (!(vq->vq_used->flags & VRING_USED_F_NO_NOTIFY))
		virtq_kick(vq);
}

void virtq_kick(struct virtqueue *vq)
{
	outw(vq->vq_dev->vd_iobase + VIRTIO_PCI_QUEUE_NOTIFY, vq->vq_index);
}

uint16_t virtq_used_pending(const struct virtqueue *vq)
{
	return (uint16_t)(vq->vq_used->idx - vq->vq_last_used);
}

/* Put the chain starting at `head` back on the free list. */
static void free_chain(struct virtqueue *vq, uint16_t head)
{
	uint16_t d = head, n = 1;

	while (vq->vq_desc[d].flags & VRING_DESC_F_NEXT) {
		d = vq->vq_desc[d].next;
		n++;
	}
	vq->vq_desc[d].next = vq->vq_free_head;
	vq->vq_free_head = head;
	vq->vq_nfree = (uint16_t)(vq->vq_nfree + n);
}

/* virtq_dequeue: the next finished request's cookie, or NULL. A bad id from the device is skipped. */
void *virtq_dequeue(struct virtqueue *vq, uint32_t *lenp)
{
	volatile struct vring_used_elem *ue;
	struct vring_used_elem e;
	void *cookie;

	while (vq->vq_last_used != vq->vq_used->idx) {
		mb();
		ue = &vq->vq_used->ring[vq->vq_last_used & (vq->vq_size - 1)];
		e.id = ue->id;
		e.len = ue->len;
		vq->vq_last_used++;
		if (e.id >= vq->vq_size || vq->vq_cookie[e.id] == NULL) {
			kprintf("%s: device returned descriptor %u, which is not in use; ignored\n",
			        vq->vq_dev->vd_name, e.id);
			continue;
		}
		cookie = vq->vq_cookie[e.id];
		vq->vq_cookie[e.id] = NULL;
		free_chain(vq, (uint16_t)e.id);
		*lenp = e.len;
		return cookie;
	}
	return NULL;
}
