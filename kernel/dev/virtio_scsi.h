/*
 * virtio-SCSI host adapters with SCSI disks on them (FreeBSD's vtscsi(4) with da(4) on top, in
 * one driver), over the legacy virtio-pci transport (dev/virtio.h).
 *   virtio_scsi_init() - register the PCI driver; pci_attach_drivers() then attaches every
 *                        virtio-SCSI function (1af4:1004) as vtscsi<n>, scans targets 0..15 LUN 0,
 *                        and each direct-access disk becomes da0, da1, ... (disk_register), in
 *                        PCI order and then target order.
 * Sysctls: dev.da.<n>.max_inflight (RW: commands in flight per disk, 1 .. the request queue's
 * capacity), dev.da.<n>.max_active (RO: the most there have been in flight), hw.vtscsi.timeout
 * (RW: seconds before the watchdog reports a command the device has not answered).
 */
#ifndef _DEV_VIRTIO_SCSI_H_
#define _DEV_VIRTIO_SCSI_H_

void virtio_scsi_init(void);

#endif
