# tools/fs.mk - the file system's host tools and the root image (included by the top Makefile,
# which defines BUILD, HOSTCC and HOSTCFLAGS; user/user.mk defines ROOTFS_STAMP).
#   $(BUILD)/host/mkfs   tools/mkfs/mkfs.c + the kernel's pure wdfs_layout.c
#   $(BUILD)/host/fsck   tools/fsck/fsck.c + fsck_wdfs.c + wdfs_layout.c
#   $(BUILD)/root.img    mkfs of $(BUILD)/rootfs (ROOTFS_SIZE bytes), then fsck'd

ROOTFS_SIZE ?= 48m
WDFS_PURE   := kernel/fs/wdfs/wdfs_layout.c kernel/fs/wdfs/wdfs_layout.h kernel/fs/wdfs/wdfs_format.h

$(BUILD)/host/mkfs: tools/mkfs/mkfs.c $(WDFS_PURE)
	@mkdir -p $(@D)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tools/mkfs/mkfs.c kernel/fs/wdfs/wdfs_layout.c

$(BUILD)/host/fsck: tools/fsck/fsck.c tools/fsck/fsck_wdfs.c tools/fsck/fsck_wdfs.h $(WDFS_PURE)
	@mkdir -p $(@D)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tools/fsck/fsck.c tools/fsck/fsck_wdfs.c kernel/fs/wdfs/wdfs_layout.c

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
