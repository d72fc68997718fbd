# kernel/arch/arch.mk: the AP start-up trampoline (included by the top Makefile after KOBJS).
# apboot.S runs at physical 0x7000 in real mode, so it is linked on its own at that address, made
# into a raw binary, and embedded in the kernel between apboot_blob_start and apboot_blob_end
# (mp.c copies it to 0x7000 before starting the other CPUs).

APBOOT_LDFLAGS := -m elf_i386 -N -e start -Ttext 0x7000 $(shell $(LD) --help 2>/dev/null | grep -q no-warn-rwx-segments && echo --no-warn-rwx-segments)

$(BUILD)/apboot.elf: $(BUILD)/kernel/arch/apboot.S.o
	$(LD) $(APBOOT_LDFLAGS) -o $@ $<

$(BUILD)/apboot.bin: $(BUILD)/apboot.elf
	$(OBJCOPY) -O binary -j .text $< $@

$(BUILD)/apboot_blob.S:
	@mkdir -p $(@D)
	printf '\t.section .rodata\n\t.globl apboot_blob_start, apboot_blob_end\napboot_blob_start:\n\t.incbin "%s"\napboot_blob_end:\n' \
		'$(BUILD)/apboot.bin' > $@

$(BUILD)/apboot_blob.o: $(BUILD)/apboot_blob.S $(BUILD)/apboot.bin
	$(CC) $(KASFLAGS) -c -o $@ $<

KOBJS += $(BUILD)/apboot_blob.o
