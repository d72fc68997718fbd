# wdrain top-level Makefile. This header is what `make help` prints.
#
# Targets:
#   make             the kernel, the userland and the root file system image (= make all)
#   make qemu        boot through GRUB's menu in QEMU with the serial console on this terminal
#                    (Ctrl-a x quits; a window too if there is a display). The root file system
#                    is on a virtio-SCSI disk, build/qemu/root.img, kept between runs. Input that
#                    is not a terminal is typed at the shell prompt; at its end the guest powers off
#   make qemu-nox    the same without a window
#   make qemu-gdb    the same, stopped until gdb connects (run `gdb` here: .gdbinit connects)
#   make test        every test, TEST_JOBS files at once; the last line is "N passed, N failed"
#   make stress      the reliability tests at full size, about an hour (docs/reliability.md)
#   make experiment  the seed's experiment, tables and plots (EXPERIMENT=quick: a small one;
#                    EXPERIMENT=loaded: under memory pressure; its variables are below;
#                    docs/harness.md; what the runs found: docs/experiments.md)
#   make iso         build/wdrain.iso, which boots on its own (root on the memory disk md0)
#   make deps        install the Debian packages (tools/install-deps); qemu and test do it first
#   make test-host   the host unit tests (build/host/tests/)
#   make test-slurm  tools/experiment --slurm on a one-node Slurm cluster (CI runs it after test)
#   make bench-raw   raw dd bandwidth to throttled disks (docs/bench-raw.md), BENCHOPTS=...
#   make bench-vm    memhog at 2x and 4x RAM with swap on a modelled disk, both pageout designs
#                    (docs/vm.md), BENCHOPTS=...
#   make lab         LAB=name DEST=dir: a lab's student tree (a new git repository, or a new
#                    commit on an earlier lab's; labs/README.md)
#   make grade       grade as the autograder does: the lab's files laid over its handout, built,
#                    graded (LAB=name; in a handout, its own lab); "Score: n/m" near the end
#   make handin      in a lab's handout: handin-LAB.tar.gz of your last commit, to hand in
#   make gradescope  LAB=name: build/gradescope-LAB.zip, the lab's Gradescope autograder
#   make test-labs   every lab's grader in full on its handout and its solution, the three grading
#                    paths, tampered submissions, the mutations (CI runs it after test)
#   make userland    only the programs and the staged root tree build/rootfs/ (docs/userland.md)
#   make fs-tools    only the host's mkfs and fsck, build/host/
#   make clean       remove build/, make qemu's kept disks included
#   make help        this text
#
# Variables (make VAR=value ...):
#   WERROR=1         compiler warnings are errors (CI sets it)
#   INVARIANTS=0     build the kernel without its self-checks (after make clean)
#   MEM=128 SMP=1    the guest's RAM in MB and CPUs
#   DESIGN=patched   GRUB's default menu entry: a preset of kernel/kern/main.c's table
#                    (@PRESETS@)
#   ACCEL=tcg        QEMU accelerator: tcg or kvm
#   ROOT=disk        make qemu's root: disk (da0, a copy of build/root.img) or md (the memory
#                    disk md0, loaded by GRUB: it takes 48 MB of the guest's RAM)
#   FRESH=1          make qemu starts again from a fresh copy of build/root.img and empty data disks
#   DISKS=0          data disks for make qemu (after the root disk), kept in build/qemu/ too
#   BUS=scsi         their controller: scsi (virtio-SCSI, da*) or ahci (ada*)
#   THROTTLE=MBPS    limit each data disk to MBPS MB/s, or DISKMODEL=PRESET to model a drive
#   TOOLPREFIX=i686-linux-gnu-   the cross toolchain's prefix
#   HOSTCC=gcc       the compiler of the host tools and the host tests
#   BUILD=build      the folder make, make iso and make test-host build into (tools/run, the
#                    tests and the experiment read build/ only)
#   ROOTFS_SIZE=48m  the size of build/root.img (mkfs -s; a new size needs make clean)
#   KSYMS_HIDE=FILE  the functions FILE names are "(lab)" in the kernel's backtrace table (tools/lab
#                    sets it for a lab's reference kernel: labs/README.md)
#   TEST_JOBS=N      test files make test runs at once (default: the host's cores, at most 2)
#   BENCHOPTS='...'  more options for tools/bench-raw or tools/bench-vm (their -h)
#   LAB=name DEST=dir  the lab of make lab, grade, gradescope; make lab's new folder
#   GRADEFLAGS='...'   make grade: the grader's tests and options (labs/NAME/grade -h):
#                    GRADEFLAGS=speed runs one test, GRADEFLAGS=--quick one trial per performance test
#
# make experiment's variables (each one tools/experiment flag; MEM SMP BUS DISKS DISKMODEL
# THROTTLE above apply too, DISKS=0 meaning its default of 2):
#   EXPERIMENT=quick 1 trial of 64 MiB per preset; EXPERIMENT=mixed: unequal disks, a scsi10k
#                    and an ide7200, striped and one writer each; EXPERIMENT=loaded: the dd beside
#                    a dirty anonymous and a clean file working set, swap on a third disk, the 2x2
#                    of the buf_daemon and pageout designs (--load all; docs/experiments.md)
#   PRESETS=A,B      the presets to run, comma-separated (default: all the presets DESIGN lists)
#   TRIALS=3  SIZE=1536 (MiB per dd)  BS=32k (the file dd's)
#   SET='name=value ...'      sysctls set in the guest before the workload
#   SWEEP='name=v1,v2 ...'    one run per value; several form a grid
#   OUT=DIR          the output folder (default build/experiments/<date>-<time>-<name>: seed, quick, loaded)
#   EXPOPTS='...'    any other tools/experiment flag (tools/experiment -h)
#   WDRAIN_NO_BUILD=1  no package check and no make all first (tests/run sets it: the build is done)

BUILD   ?= build
TOOLPREFIX ?= i686-linux-gnu-
CC      := $(TOOLPREFIX)gcc
LD      := $(TOOLPREFIX)ld
OBJCOPY := $(TOOLPREFIX)objcopy
NM      := $(TOOLPREFIX)nm
HOSTCC  ?= gcc
MEM     ?= 128
SMP     ?= 1
ACCEL   ?= tcg
DESIGN  ?= patched

WARN    := -Wall -Wextra -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN    += -Werror
endif
GCCINC  := $(shell $(CC) -print-file-name=include 2>/dev/null)
LIBGCC  := $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)
KLDFLAGS := -m elf_i386 -T kernel/kernel.ld -z noexecstack --no-warn-rwx-segments
KCFLAGS := -m32 -march=i686 -O2 -g -std=gnu11 -ffreestanding -fno-pie -fno-pic -fno-stack-protector \
           -fno-omit-frame-pointer -fno-builtin -fno-strict-aliasing -mno-sse -mno-mmx -mno-80387 \
           -nostdinc -isystem $(GCCINC) -Ikernel/include -Ikernel $(WARN) -MMD -MP
KASFLAGS := -m32 -g -Ikernel/include -Ikernel -D__ASSEMBLER__ -MMD -MP
# The kernel's self-checks (FreeBSD's INVARIANTS) are on unless INVARIANTS=0 (after make clean).
ifneq ($(INVARIANTS),0)
KCFLAGS += -DINVARIANTS
endif
HOSTCFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(if $(filter 1,$(WERROR)),-Werror,)

all: $(BUILD)/kernel.elf $(BUILD)/root.img

# ---- kernel -------------------------------------------------------------------------------
KSRCS := $(sort $(wildcard kernel/boot/*.S kernel/arch/*.S kernel/arch/*.c kernel/kern/*.c \
           kernel/vm/*.c kernel/vfs/*.c kernel/fs/*/*.c kernel/fs/*.c kernel/dev/*.c))
KOBJS := $(patsubst %,$(BUILD)/%.o,$(KSRCS))
# The AP start-up trampoline is linked separately at its real-mode address and embedded as a blob.
KOBJS := $(filter-out $(BUILD)/kernel/arch/apboot.S.o,$(KOBJS))
-include kernel/arch/arch.mk

$(BUILD)/kernel/%.c.o: kernel/%.c
	@mkdir -p $(@D)
	$(CC) $(KCFLAGS) -c -o $@ $<

$(BUILD)/kernel/%.S.o: kernel/%.S
	@mkdir -p $(@D)
	$(CC) $(KASFLAGS) -c -o $@ $<

# Two links: the second adds the symbol table of the first (for backtraces). The table sits at the
# end of .rodata, so text addresses are the same in both. KSYMS_HIDE=FILE: the functions it names
# are "(lab)" in that table (a lab's reference kernel: tools/wdlab/handout.py).
$(BUILD)/kernel.elf: $(KOBJS) kernel/kernel.ld tools/ksyms.sh $(KSYMS_HIDE)
	echo '.section .rodata; ksym_count: .long 0; ksym_table: ksym_strings: .globl ksym_count, ksym_table, ksym_strings' \
		| $(CC) $(KASFLAGS) -x assembler -c -o $(BUILD)/ksyms0.o -
	$(LD) $(KLDFLAGS) -o $(BUILD)/kernel0.elf $(KOBJS) $(BUILD)/ksyms0.o $(LIBGCC)
	$(NM) -n $(BUILD)/kernel0.elf | tools/ksyms.sh $(KSYMS_HIDE) > $(BUILD)/ksyms.S
	$(CC) $(KASFLAGS) -c -o $(BUILD)/ksyms.o $(BUILD)/ksyms.S
	$(LD) $(KLDFLAGS) -o $@ $(KOBJS) $(BUILD)/ksyms.o $(LIBGCC)

-include $(shell find $(BUILD)/kernel -name '*.d' 2>/dev/null)

# ---- userland, file system tools, root image (fragments owned by those parts) ----------------
-include user/user.mk
-include tools/fs.mk
-include tests/tests.mk
-include tools/experiment.mk
-include labs/labs.mk

# ---- ISO --------------------------------------------------------------------------------------
# GRUB's menu: one entry per design preset of kernel/kern/main.c (tools/wdrun/presets.py).
iso: $(BUILD)/wdrain.iso
$(BUILD)/grub.cfg: kernel/kern/main.c tools/wdrun/presets.py tools/mkgrubcfg
	@mkdir -p $(BUILD)
	tools/mkgrubcfg > $@.tmp && mv $@.tmp $@
$(BUILD)/wdrain.iso: $(BUILD)/kernel.elf $(BUILD)/root.img $(BUILD)/grub.cfg
	@rm -rf $(BUILD)/iso && mkdir -p $(BUILD)/iso/boot/grub
	cp $(BUILD)/kernel.elf $(BUILD)/iso/boot/kernel.elf
	cp $(BUILD)/root.img $(BUILD)/iso/boot/root.img
	cp $(BUILD)/grub.cfg $(BUILD)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso 2>$(BUILD)/grub-mkrescue.log || (cat $(BUILD)/grub-mkrescue.log; false)

# ---- running ----------------------------------------------------------------------------------
# make qemu / qemu-nox / qemu-gdb: tools/run --interactive does the work (README "make qemu").
# tools/install-deps runs first and the build is a sub-make, so whatever the makefiles ask the
# cross toolchain while they are read (GCCINC, LIBGCC; ULIBGCC in user.mk, APBOOT_LDFLAGS in
# arch.mk) is asked when that sub-make reads them, after the toolchain is installed. (As prerequisites, deps and the build would share this make, which
# read the Makefile before deps ran: the first make qemu on a fresh machine failed before 164f26d.)
ROOT  ?= disk
DISKS ?= 0
BUS   ?= scsi
RUNOPTS = --mem $(MEM) --smp $(SMP) --accel $(ACCEL) --design $(DESIGN) --disks $(DISKS) --bus $(BUS) \
          $(if $(THROTTLE),--throttle $(THROTTLE)) $(if $(DISKMODEL),--disk-model $(DISKMODEL))
QEMUOPTS = --interactive --iso --root $(ROOT) --disk-dir $(BUILD)/qemu $(if $(FRESH),,--keep) $(RUNOPTS)

deps:
	@tools/install-deps

qemu: QEMUMODE = --vga
qemu-gdb: QEMUMODE = --gdb
qemu qemu-nox qemu-gdb:
	@tools/install-deps
	$(MAKE) all
	WDRAIN_NO_BUILD=1 tools/run $(QEMUMODE) $(QEMUOPTS)

# The header's @PRESETS@ is the preset table's names, as tools/wdrun/presets.py reads them.
PRESET_NAMES = python3 -c 'import sys; sys.path.insert(0, "tools"); from wdrun.presets import NAMES; print(", ".join(NAMES))'
help:
	@names=$$($(PRESET_NAMES)) && sed -n '/^#/!q; s/^# \{0,1\}//; s/@PRESETS@/'"$$names"'/; p' $(firstword $(MAKEFILE_LIST))

clean:
	rm -rf $(BUILD)

.PHONY: all iso deps qemu qemu-nox qemu-gdb help clean test
