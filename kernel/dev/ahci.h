/*
 * AHCI SATA host bus adapters (FreeBSD's ahci(4) with ada(4) disks on top, in one driver).
 *   ahci_init() - register the PCI driver; pci_attach_drivers() then attaches every AHCI function
 *                 (class 01.06, programming interface 01h) and each ATA disk on it becomes
 *                 ada0, ada1, ... (disk_register), in PCI order and then port order.
 * Per disk, sysctl dev.ada.<n>.openings bounds the commands in flight (1 .. the NCQ slots; the
 * block layer's disk queue, dev/disk.c) and kern.devstat.ada<n>.max_active (read-only) is the
 * most requests the disk queue has handed the driver at once (counted in dev/disk.c: the driver
 * may hold them back, so it is not a count of commands queued at the drive).
 */
#ifndef _DEV_AHCI_H_
#define _DEV_AHCI_H_

void ahci_init(void);

#endif
