# user.mk: the userland (included by the top Makefile, which defines CC, LD, BUILD, WARN).
#   $(BUILD)/user/libc.a        the libc subset (user/lib), linked into every program
#   $(BUILD)/user/<prog>        each program: user/bin/<prog>.c, user/sbin/<prog>.c, user/usertests/*.c;
#                               sh is user/sh/*.c plus user/bin/test.c (its test and [ builtins);
#                               sysfuzz is user/sysfuzz/*.c
#   $(BUILD)/rootfs/...         the staged root tree (bin/, sbin/, etc/, tmp/); tools/fs.mk adds
#                               sbin/newfs and sbin/fsck
#   $(ROOTFS_STAMP)             touched when the staged tree is complete; root.img depends on it
# Programs are static ELF32 executables linked at 0x00400000 by user/user.ld.

AR      := $(TOOLPREFIX)ar
UCFLAGS := -m32 -march=i686 -O2 -g -std=gnu11 -ffreestanding -fno-pie -fno-pic -fno-stack-protector \
           -fno-builtin -fno-strict-aliasing -nostdinc -isystem $(GCCINC) -Iuser/include -Ikernel/include \
           $(WARN) -MMD -MP
UASFLAGS := -m32 -g -D__ASSEMBLER__ -MMD -MP
ULIBGCC := $(shell $(CC) -print-libgcc-file-name 2>/dev/null)
UBUILD  := $(BUILD)/user

ULIBSRCS := $(sort $(wildcard user/lib/*.c))
ULIBOBJS := $(patsubst user/lib/%.c,$(UBUILD)/lib/%.o,$(ULIBSRCS))
UCRT0    := $(UBUILD)/lib/crt0.o
ULIBC    := $(UBUILD)/libc.a

# Programs with one source file each; halt also answers to reboot and poweroff (argv[0]).
UBINS    := $(sort $(patsubst user/bin/%.c,%,$(wildcard user/bin/*.c)))
UBINLINKS := reboot poweroff
USBINS   := $(sort $(patsubst user/sbin/%.c,%,$(wildcard user/sbin/*.c)))
UTESTSRCS := $(sort $(wildcard user/usertests/*.c))
UTESTOBJS := $(patsubst user/usertests/%.c,$(UBUILD)/obj/usertests/%.o,$(UTESTSRCS))
UETC     := $(sort $(notdir $(wildcard user/etc/*)))

ROOTFS       := $(BUILD)/rootfs
ROOTFS_STAMP := $(BUILD)/rootfs.stamp   # outside the tree, so it is not copied into the image
ROOTFS_FILES := $(addprefix $(ROOTFS)/bin/,$(UBINS) sh sysfuzz $(UBINLINKS) usertests) $(addprefix $(ROOTFS)/sbin/,$(USBINS)) \
                $(addprefix $(ROOTFS)/etc/,$(UETC))

$(UBUILD)/lib/%.o: user/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -c -o $@ $<

$(UCRT0): user/lib/crt0.S
	@mkdir -p $(@D)
	$(CC) $(UASFLAGS) -c -o $@ $<

$(ULIBC): $(ULIBOBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(UBUILD)/obj/%.o: user/bin/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -c -o $@ $<

$(UBUILD)/obj/%.o: user/sbin/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -c -o $@ $<

$(UBUILD)/obj/usertests/%.o: user/usertests/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -c -o $@ $<

# link: crt0, the program's objects, libc, libgcc (64-bit division)
ULINK = $(LD) -m elf_i386 -T user/user.ld -o $@ $(UCRT0) $(filter-out $(UCRT0),$(filter %.o,$^)) $(ULIBC) $(ULIBGCC)

$(UBUILD)/%: $(UBUILD)/obj/%.o $(UCRT0) $(ULIBC) user/user.ld
	$(ULINK)

$(UBUILD)/usertests: $(UTESTOBJS) $(UCRT0) $(ULIBC) user/user.ld
	$(ULINK)

# sh: one folder of sources (user/sh/sh.h lists them), and its test and [ builtins:
# user/bin/test.c again, without its main
USHSRCS := $(sort $(wildcard user/sh/*.c))
USHOBJS := $(patsubst user/sh/%.c,$(UBUILD)/obj/sh/%.o,$(USHSRCS)) $(UBUILD)/obj/test_builtin.o

$(UBUILD)/obj/sh/%.o: user/sh/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -c -o $@ $<

$(UBUILD)/obj/test_builtin.o: user/bin/test.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -DSH_BUILTIN -c -o $@ $<

$(UBUILD)/sh: $(USHOBJS) $(UCRT0) $(ULIBC) user/user.ld
	$(ULINK)

# sysfuzz: its calls (calls.c) and the batches that make them (sysfuzz.c), user/sysfuzz/sysfuzz.h
UFUZZOBJS := $(patsubst user/sysfuzz/%.c,$(UBUILD)/obj/sysfuzz/%.o,$(sort $(wildcard user/sysfuzz/*.c)))

$(UBUILD)/obj/sysfuzz/%.o: user/sysfuzz/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -c -o $@ $<

$(UBUILD)/sysfuzz: $(UFUZZOBJS) $(UCRT0) $(ULIBC) user/user.ld
	$(ULINK)

$(ROOTFS)/bin/%: $(UBUILD)/%
	@mkdir -p $(@D)
	cp $< $@

$(addprefix $(ROOTFS)/bin/,$(UBINLINKS)): $(UBUILD)/halt
	@mkdir -p $(@D)
	cp $< $@

$(addprefix $(ROOTFS)/sbin/,$(USBINS)): $(ROOTFS)/sbin/%: $(UBUILD)/%
	@mkdir -p $(@D)
	cp $< $@

$(ROOTFS)/etc/%: user/etc/%
	@mkdir -p $(@D)
	cp $< $@

# /tmp is sticky and writable by everyone (mode 1777, FreeBSD's etc/mtree/BSD.root.dist)
$(ROOTFS_STAMP): $(ROOTFS_FILES)
	@mkdir -p $(ROOTFS)/tmp $(ROOTFS)/dev
	chmod 1777 $(ROOTFS)/tmp
	touch $@

userland: $(ROOTFS_STAMP)
all: $(ROOTFS_STAMP)

.PHONY: userland
.SECONDARY: $(addprefix $(UBUILD)/,$(UBINS) $(USBINS) sh sysfuzz usertests) $(USHOBJS) $(UFUZZOBJS) $(patsubst %,$(UBUILD)/obj/%.o,$(UBINS) $(USBINS))

-include $(shell find $(UBUILD) -name '*.d' 2>/dev/null)
