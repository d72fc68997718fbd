/*
 * Storage start-up: the PCI bus and the disk controller drivers on it.
 *   storage_init() - enumerate PCI (pci_init), register the AHCI and virtio-SCSI drivers, then
 *                    attach them (pci_attach_drivers), so the disks ada<n> and da<n> exist when it
 *                    returns. Called once by process 1 (start_init) before it mounts the root,
 *                    so it may sleep.
 */
#ifndef _DEV_STORAGE_H_
#define _DEV_STORAGE_H_

void storage_init(void);

#endif
