/*
 * storage.c - bring up the storage hardware (interface: dev/storage.h).
 *
 * Order matters: pci_init() must find the functions before any driver looks, and every driver
 * registers (ahci_init, virtio_scsi_init) before pci_attach_drivers() offers them the functions,
 * so disks are numbered in PCI order within each driver. Runs once, in process 1 before it mounts
 * the root (root=ada0 / root=da0 need the disks); no locking.
 */
#include "kern/types.h"
#include "dev/pci.h"
#include "dev/ahci.h"
#include "dev/virtio_scsi.h"
#include "dev/ccd.h"
#include "dev/storage.h"

void storage_init(void)
{
	pci_init();
	ahci_init();
	virtio_scsi_init();
	pci_attach_drivers();
	ccd_init();                  /* stripes over the disks just found */
}
