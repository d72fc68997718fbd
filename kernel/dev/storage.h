/*
 * Storage start-up: the PCI bus and the disk controller drivers on it.
 *   storage_init() - enumerate PCI (pci_init), register the AHCI and virtio-SCSI drivers, then
 *                    attach them (pci_attach_drivers), so the disks ada<n> and da<n> exist when it
 *                    returns. Called once by kmain after vfsinit(), before the root is mounted.
 */
#ifndef _DEV_STORAGE_H_
#define _DEV_STORAGE_H_

void storage_init(void);
void virtio_scsi_init(void);    /* dev/virtio_scsi.c: registers the virtio-SCSI PCI driver */

#endif
