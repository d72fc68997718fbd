# wdrain top-level Makefile.
#   make            build the kernel, the userland and the root file system image
#   make iso        the GRUB ISO (build/wdrain.iso)
#   make qemu       boot it in QEMU (serial console on this terminal; Ctrl-a x quits)
#   make qemu-nox   the same without any window
#   make qemu-gdb   boot and wait for gdb (run `gdb` in this directory: .gdbinit connects)
#   make test       every test; ends with "N passed, N failed"
#   make experiment the seed's experiment, tables and plots (EXPERIMENT=quick: a small one)
#   make clean
# WERROR=1 makes warnings errors (CI sets it). MEM=128 SMP=1 DESIGN=patched ACCEL=tcg choose the VM;
# DISKS=N BUS=scsi|ahci THROTTLE=MBPS DISKMODEL=PRESET KEEP=1 add data disks (see README).

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
# end of .rodata, so text addresses are the same in both.
$(BUILD)/kernel.elf: $(KOBJS) kernel/kernel.ld tools/ksyms.sh
	echo '.section .rodata; ksym_count: .long 0; ksym_table: ksym_strings: .globl ksym_count, ksym_table, ksym_strings' \
		| $(CC) $(KASFLAGS) -x assembler -c -o $(BUILD)/ksyms0.o -
	$(LD) $(KLDFLAGS) -o $(BUILD)/kernel0.elf $(KOBJS) $(BUILD)/ksyms0.o $(LIBGCC)
	$(NM) -n $(BUILD)/kernel0.elf | tools/ksyms.sh > $(BUILD)/ksyms.S
	$(CC) $(KASFLAGS) -c -o $(BUILD)/ksyms.o $(BUILD)/ksyms.S
	$(LD) $(KLDFLAGS) -o $@ $(KOBJS) $(BUILD)/ksyms.o $(LIBGCC)

-include $(shell find $(BUILD)/kernel -name '*.d' 2>/dev/null)

# ---- userland, file system tools, root image (fragments owned by those parts) ----------------
-include user/user.mk
-include tools/fs.mk
-include tests/tests.mk
-include tools/experiment.mk

# ---- ISO --------------------------------------------------------------------------------------
iso: $(BUILD)/wdrain.iso
$(BUILD)/wdrain.iso: $(BUILD)/kernel.elf $(BUILD)/root.img tools/grub.cfg
	@rm -rf $(BUILD)/iso && mkdir -p $(BUILD)/iso/boot/grub
	cp $(BUILD)/kernel.elf $(BUILD)/iso/boot/kernel.elf
	cp $(BUILD)/root.img $(BUILD)/iso/boot/root.img
	cp tools/grub.cfg $(BUILD)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso 2>$(BUILD)/grub-mkrescue.log || (cat $(BUILD)/grub-mkrescue.log; false)

# ---- running ----------------------------------------------------------------------------------
# make qemu DISKS=2 BUS=scsi|ahci [THROTTLE=30 | DISKMODEL=scsi10k] [KEEP=1]: boot through the GRUB ISO
# with the root on the first disk and DISKS empty data disks (tools/run --interactive does the work).
DISKS ?= 0
BUS   ?= scsi
RUNOPTS = --mem $(MEM) --smp $(SMP) --accel $(ACCEL) --design $(DESIGN) --disks $(DISKS) --bus $(BUS) \
          $(if $(THROTTLE),--throttle $(THROTTLE)) $(if $(DISKMODEL),--disk-model $(DISKMODEL)) $(if $(KEEP),--keep)

deps:
	@tools/install-deps

qemu: deps iso
	WDRAIN_NO_BUILD=1 tools/run --interactive --iso --vga $(RUNOPTS)

qemu-nox: deps iso
	WDRAIN_NO_BUILD=1 tools/run --interactive --iso $(RUNOPTS)

qemu-gdb: deps iso
	@echo "*** now run 'gdb' in another terminal (the .gdbinit connects to port 1234)"
	WDRAIN_NO_BUILD=1 tools/run --interactive --iso --gdb $(RUNOPTS)

clean:
	rm -rf $(BUILD)

.PHONY: all iso deps qemu qemu-nox qemu-gdb clean test
