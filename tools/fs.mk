# tools/fs.mk - the file-system tools and the root image (included by the top Makefile, which
# defines BUILD, HOSTCC and HOSTCFLAGS; user/user.mk defines the guest's CC, UCFLAGS, ULINK,
# UBUILD, ROOTFS and ROOTFS_STAMP).
#   $(BUILD)/host/mkfs   tools/mkfs/mkfs.c + tools/fslib/fsdev.c + the kernel's pure wdfs_layout.c
#   $(BUILD)/host/fsck   tools/fsck/fsck.c + fsck_wdfs.c + fsdev.c + wdfs_layout.c
#   /sbin/newfs, /sbin/fsck in the guest: the same sources built against the guest libc with
#                        -DWDRAIN_GUEST (tools/fslib/fsdev.h is the whole difference)
#   $(BUILD)/root.img    mkfs of $(BUILD)/rootfs (ROOTFS_SIZE bytes), then fsck'd

ROOTFS_SIZE ?= 48m
WDFS_PURE   := kernel/fs/wdfs/wdfs_layout.c kernel/fs/wdfs/wdfs_layout.h kernel/fs/wdfs/wdfs_format.h
FSLIB       := tools/fslib/fsdev.c tools/fslib/fsdev.h
MKFS_SRCS   := tools/mkfs/mkfs.c tools/fslib/fsdev.c kernel/fs/wdfs/wdfs_layout.c
FSCK_SRCS   := tools/fsck/fsck.c tools/fsck/fsck_wdfs.c tools/fslib/fsdev.c kernel/fs/wdfs/wdfs_layout.c

$(BUILD)/host/mkfs: $(MKFS_SRCS) $(WDFS_PURE) $(FSLIB)
	@mkdir -p $(@D)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(MKFS_SRCS)

$(BUILD)/host/fsck: $(FSCK_SRCS) tools/fsck/fsck_wdfs.h $(WDFS_PURE) $(FSLIB)
	@mkdir -p $(@D)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(FSCK_SRCS)

# ---- the guest builds: one object per source under $(UBUILD)/obj/fstools/ --------------------
FSTOOLS_OBJ := $(UBUILD)/obj/fstools
fstools_objs = $(patsubst %.c,$(FSTOOLS_OBJ)/%.o,$(notdir $(1)))

$(FSTOOLS_OBJ)/%.o: tools/mkfs/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -DWDRAIN_GUEST -c -o $@ $<
$(FSTOOLS_OBJ)/%.o: tools/fsck/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -DWDRAIN_GUEST -c -o $@ $<
$(FSTOOLS_OBJ)/%.o: tools/fslib/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -DWDRAIN_GUEST -c -o $@ $<
$(FSTOOLS_OBJ)/%.o: kernel/fs/wdfs/%.c
	@mkdir -p $(@D)
	$(CC) $(UCFLAGS) -DWDRAIN_GUEST -c -o $@ $<

$(UBUILD)/newfs: $(call fstools_objs,$(MKFS_SRCS)) $(UCRT0) $(ULIBC) user/user.ld
	$(ULINK)
$(UBUILD)/fsck: $(call fstools_objs,$(FSCK_SRCS)) $(UCRT0) $(ULIBC) user/user.ld
	$(ULINK)

$(ROOTFS)/sbin/newfs $(ROOTFS)/sbin/fsck: $(ROOTFS)/sbin/%: $(UBUILD)/%
	@mkdir -p $(@D)
	cp $< $@

# /data1: the seed's mount point (/etc/fstab's commented line, the tests' mounts).
$(ROOTFS_STAMP): $(ROOTFS)/sbin/newfs $(ROOTFS)/sbin/fsck | $(ROOTFS)/data1
$(ROOTFS)/data1:
	mkdir -p $@

-include $(wildcard $(FSTOOLS_OBJ)/*.d)

# The image is remade whenever the userland stamp (or, without one, the staging directory) changes.
$(BUILD)/root.img: $(BUILD)/host/mkfs $(BUILD)/host/fsck $(if $(ROOTFS_STAMP),$(ROOTFS_STAMP),$(BUILD)/rootfs)
	$(BUILD)/host/mkfs -s $(ROOTFS_SIZE) -d $(BUILD)/rootfs $@.tmp
	$(BUILD)/host/fsck $@.tmp
	mv $@.tmp $@

ifeq ($(ROOTFS_STAMP),)
$(BUILD)/rootfs:
	mkdir -p $@
endif

.PHONY: fs-tools
fs-tools: $(BUILD)/host/mkfs $(BUILD)/host/fsck
