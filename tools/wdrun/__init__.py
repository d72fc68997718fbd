"""wdrun: boot wdrain in QEMU and drive its serial console (the one implementation).

tools/run (the command line) and tests/lib/wdtest.py (the test harness) both use
this package, so every script, test, lab and experiment talks to the guest the
same way. `import wdrun` gives every name below; the modules, in the order a boot
goes through them:

  errors.py  WdrunError and its kinds (config, build, disks, the guest's three).
  presets.py the design presets, read out of kernel/kern/main.c's table; GRUB's menu.
  config.py  VMConfig, its checks, tools/run's options; ROOT, BUILD.
  build.py   ensure_built(): make, and the ISO a GRUB boot needs (custom_iso).
  disks.py   DiskSet: images, scratch folders, disk-model servers, block nodes.
  qemu.py    qemu_argv(): the QEMU command line.
  vm.py      VM: the guest and the protocol with its shell (below).
  cli.py     tools/run's main(), the interactive boot for make qemu, and the
             helpers other tools share (install_signal_handlers, report).

Interface:
  VMConfig(mem, smp, design, args, timeout, accel, iso, verbose, disks, bus,
           disk_size, root, keep, disk_dir, throttle, disk_model, inject,
           qemu_args, serial2, root_image, kernel, interactive, vga, gdb)
                          what to boot; add_arguments()/config_from_args() map
                          tools/run's options onto it; check_config() refuses
                          bad combinations with a ConfigError.
  DiskSet(cfg)            the disks of one run (see "Disks" below): images,
                          disk-model servers, their QEMU arguments.
  ensure_built(cfg)       `make -s all` (and `make -s iso`, plus a per-design ISO
                          copy when needed) unless WDRAIN_NO_BUILD=1.
  qemu_argv(cfg, iso, disks)
                          the QEMU command line, built from small pieces.
  VM(cfg, echo=None)      one guest (echo: a binary stream that gets a copy of the
                          console as it arrives; -v makes it stderr):
    vm.boot()             start QEMU, wait for the shell prompt "# ";
                          vm.boot_seconds is how long that took (-v prints it).
    vm.run(cmd, timeout)  run one shell command line; returns (output, status);
                          vm.last_end says how it ended (below).
    vm.keys(data, prompt=True, seconds=1)
                          type raw keys (arrows, ^C, ^D) at the shell's line
                          editor; wait for the prompt (or read for `seconds`).
    vm.poweroff()         `poweroff` in the guest, wait for QEMU to exit.
    vm.kill()             stop QEMU now (safe to call any time, many times).
    vm.wait(secs)         read what the guest prints for secs seconds, at a prompt
                          (a background job's output); GuestPanic if it panics.
    vm.crash()            power loss: SIGKILL to QEMU at once (only the writes QEMU
                          completed survive, as tests/guest/test_crash.py relies on and
                          checks: docs/reliability.md), then read the rest of the console.
                          Nothing else can be done with the VM.
    vm.console            everything the guest printed so far ("\r\n" -> "\n").
    vm.disks              its DiskSet (image paths, stats files).
    vm.type_lines(queue)  type lines into the booted guest as a person would,
                          then power off (piped input to make qemu).
  run_interactive(cfg)    the same VM with the serial console on the terminal
                          (tools/run --interactive, for make qemu); input that
                          is not a terminal is held until the prompt and typed
                          (run_piped). Both note the time to the first prompt.
  GuestError              base of GuestPanic, GuestTimeout, GuestExited: the
                          guest could not give an answer. .message says why,
                          .tail() gives the last console lines.
  BuildError, ConfigError the host side failed before a guest ran.

Protocol with the guest shell: after the prompt, the command line is sent as
one line followed by `; echo "@@RC=$?@@"`, written in small paced chunks
(INPUT_CHUNK bytes, INPUT_PAUSE seconds apart) because the guest's serial
input path is small. The shell's line editor echoes the line back; that echo
is removed. The output is what comes between the echo and the `@@RC=N@@`
marker; N is the status (vm.last_end "marker"). Then the harness waits for
the next prompt. Two other endings come without the marker, and are noticed
at once instead of after the timeout: the shell printed a message ("sh: ...")
and its "# " prompt again, because it rejected the line (a syntax error) or
gave it up (an error such as $((1/0))): status 2, "rejected"; a line left
unfinished (an open quote, `for` without `done`) brings the "> " prompt, to
which the harness types ^D so the shell reports what is missing. Or the line
ended the shell (`exit 3`, `exec`): init reports `init: /bin/sh exited with
status 3` and starts a new shell; the status is that one, "exit", and the VM
is used on at the new prompt. A line that starts with "panic:" anywhere in
the console means the kernel panicked.

Every wait for the guest has a deadline (interactive sessions wait for their
person, or for piped input as slowly as it comes); QEMU is started in its own
session with a parent-death signal and killed on every exit path of the caller.

Disks (DiskSet). With --disks N the guest gets N empty data disks on one
controller: --bus scsi is one virtio-scsi-pci HBA (legacy interface,
disable-modern=on) with a scsi-hd per target, the guest's da<unit>; --bus
ahci is one ich9-ahci with an ide-hd per port, the guest's ada<unit>. With
--root disk (the default whenever N > 0) unit 0 is a copy of build/root.img
(or of --root-image FILE) and the kernel gets root=da0 / root=ada0; the data disks are units 1..N.
With --root md the root stays the multiboot module md0 and the data disks
are units 0..N-1. Data disk j (0-based) is the raw sparse image d<j>.img, the
root copy is root.img, in one folder:
  --disk-dir DIR          DIR
  --keep (no --disk-dir)  build/run/disks/<bus>/keep
  neither                 build/run/disks/<bus>/p<pid>-<n>, new for every VM;
                          its images are deleted when this process exits
                          (stats and logs stay), and the images of such
                          folders left by dead processes are deleted too.
Images are created fresh (qemu-img create -f raw) unless --keep, which reuses
those that exist (the root copy is refreshed if its source image is newer; a
kept root copy is first repaired with the host's fsck -y, since a QEMU that
was killed leaves it not clean, which wdfs refuses to mount read-write).
Each data disk's block graph, bottom up: file (or nbd to a disk-model server),
blkdebug if an error is injected on it, raw, throttle filter if --throttle (the root
disk: file, blkdebug if injected, raw);
every device has werror=report,rerror=report. The disk-model servers
(tools/diskmodel/serve, docs/diskmodel.md) are started before QEMU and get
SIGTERM after it exits; their stats (d<j>.stats) and stderr (d<j>.log) stay
in the folder.
"""

from .errors import (ANSI_RE, DUMP_LINES, TAIL_LINES, BuildError, ConfigError, DiskError,  # noqa: F401
                     GuestError, GuestExited, GuestPanic, GuestTimeout, WdrunError)
from .config import (BUILD, BUSES, DEFAULT_DESIGN, DESIGNS, DISK_MODEL_PRESETS, EXIT_GUEST_FAILED,  # noqa: F401
                     EXIT_USAGE, MAX_UNITS, MB, MD_ROOT_SPARE_MB, PREALLOC, ROOT, ROOT_KINDS, VMConfig,
                     add_arguments, check_config, check_disk_config, config_from_args, parse_disk_model,
                     parse_inject, parse_size)
from .build import boots_default_iso, custom_iso, ensure_built, grub_cfg_for  # noqa: F401
from .qemu import boot_args, have_display, machine_args, qemu_argv, qemu_binary, serial_args  # noqa: F401
from .disks import (DISKS_BASE, SCRATCH_RE, SERVE, SERVER_READY_TIMEOUT, SERVER_STOP_TIMEOUT,  # noqa: F401
                    STALE_AGE, SUN_PATH_MAX, DiskSet)
from .vm import (DUMP_WAIT, INPUT_CHUNK, INPUT_IDLE, INPUT_PAUSE, MARKER_CMD, MARKER_RE,  # noqa: F401
                 MAX_LINE, PANIC_GRACE, PANIC_RE, POWEROFF_CMD, POWEROFF_TIMEOUT, PROMPT, PROMPT_QUIET, VM,
                 _short, compose)
from .cli import BOOT_NOTE, install_signal_handlers, main, report, run_interactive, run_piped  # noqa: F401
