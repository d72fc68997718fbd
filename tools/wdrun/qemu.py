"""wdrun.qemu: the QEMU command line, built from small pieces.

  qemu_argv(cfg, iso, disks)   the whole line: machine_args (machine, memory, CPUs,
                               VGA only for GRUB), boot_args (-kernel or the ISO),
                               serial_args (COM1 to us or the terminal, COM2 to a
                               file), the DiskSet's devices, then --qemu-arg words.
  qemu_binary()                $WDRAIN_QEMU or qemu-system-i386.
"""

import os
from pathlib import Path

from .config import BUILD


def qemu_binary():
    return os.environ.get("WDRAIN_QEMU", "qemu-system-i386")


def have_display():
    """Is there a display for a QEMU window (X11 or Wayland)?"""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def machine_args(cfg):
    # A GRUB boot gets a VGA card: GRUB's multiboot loader asks the VGA BIOS for VBE information
    # (grub-core/loader/i386/multiboot_mbi.c, retrieve_video_parameters -> fill_vbe_info) and,
    # with no card, prints "error: Can't get controller info." before booting. A -kernel boot
    # needs none. The window (--vga) opens only where there is a display to open it on.
    vga = ["-vga", "std"] if cfg.iso or cfg.vga else []
    display = [] if cfg.vga and have_display() else ["-display", "none"]
    return ["-machine", "pc", "-accel", cfg.accel, "-m", str(cfg.mem), "-smp", str(cfg.smp),
            "-nodefaults", "-no-reboot"] + vga + display + ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


def boot_args(cfg, iso):
    if iso is not None:
        return ["-cdrom", str(iso), "-boot", "d"]
    args = cfg.kernel_args()
    cmdline = "design=" + cfg.design + (" " + args if args else "")
    # With the root on a disk there is no module: md0 would only take the guest's memory.
    initrd = ["-initrd", str(cfg.root_source())] if cfg.root_kind() == "md" else []
    kernel = Path(cfg.kernel).resolve() if cfg.kernel else BUILD / "kernel.elf"
    return ["-kernel", str(kernel)] + initrd + ["-append", cmdline]


def serial_args(cfg):
    # A second -serial is COM2 (0x2f8, IRQ 3): the guest's /dev/ttyd1, written to a host file.
    com2 = ["-serial", "file:" + str(Path(cfg.serial2).resolve())] if cfg.serial2 else []
    if cfg.interactive:
        # COM1 and QEMU's monitor on the terminal (Ctrl-a c switches, Ctrl-a x quits).
        return ["-serial", "mon:stdio"] + com2 + (["-S", "-gdb", "tcp::1234"] if cfg.gdb else [])
    # COM1 on QEMU's stdin/stdout, which are pipes to us (no monitor: -nodefaults).
    return ["-serial", "stdio"] + com2


def qemu_argv(cfg, iso=None, disks=None):
    """disks: the run's DiskSet (its devices and block nodes), if it has any."""
    argv = [qemu_binary()] + machine_args(cfg) + boot_args(cfg, iso) + serial_args(cfg)
    if disks is not None:
        argv += disks.qemu_args()
    return argv + list(cfg.qemu_args)
