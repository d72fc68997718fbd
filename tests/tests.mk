# tests/tests.mk: host unit tests and `make test` (included by the top Makefile).
#   make test-host   build every tests/unit/test_X.c into build/host/tests/test_X
#   make test        install missing packages, build everything and the ISO, the host
#                    tests, then run tests/run (it ends with "N passed, N failed"), TEST_JOBS
#                    files at once (default: the host's cores, at most 2; TEST_JOBS=1 for one)
#   make test-slurm  tests/slurm/test_slurm.py: tools/experiment --slurm on a one-node Slurm cluster
#                    it starts itself (installs slurm-wlm and munge as root; CI runs it after test)
#   make stress      the reliability tests at full size (tests/stress, docs/reliability.md)
#   make bench-raw   tools/bench-raw (docs/bench-raw.md): raw dd bandwidth to one throttled disk
#                    and to a ccd stripe on both buses, a report; BENCHOPTS='--disk-model scsi10k'
#   make bench-vm    tools/bench-vm (docs/vm.md): memhog at 2x and 4x RAM with swap on a modelled
#                    disk, both pageout designs, a report; BENCHOPTS='--trials 3'
# Host tests include the kernel's pure .c files directly (-Ikernel: "kern/x.c"). Not
# -Ikernel/include: those <sys/...> headers would shadow the host libc's; -idirafter finds the kernel's
# only where the host has none (<sys/sysctl.h>).
#
# A lab's files (those with lab regions: a student's) are never #included: each test lists them in
# UNIT_LAB_SRCS_<test>, and they are compiled as objects of their own and linked with the test, so a
# student's file cannot see or redefine the test's checks (labs/README.md, "Unit tests a student's
# code cannot rewrite"; tools/lab check fails a test that #includes one).

HOST_TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
HOST_TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/host/tests/%,$(HOST_TEST_SRCS))
HOST_TEST_INC  := -Itests/unit -Ikernel -idirafter kernel/include

UNIT_LAB_SRCS_test_ccd_map    := dev/ccd_map.c
UNIT_LAB_SRCS_test_ccd_done   := dev/ccd_done.c
UNIT_LAB_SRCS_test_ata_cmd    := dev/ata_cmd.c
UNIT_LAB_SRCS_test_bufdaemon  := vfs/vfs_bufdaemon.c
UNIT_LAB_SRCS_test_perdevice  := vfs/vfs_bufdaemon.c
UNIT_LAB_SRCS_test_syncfirst  := vfs/vfs_bufdaemon.c
UNIT_LAB_SRCS_test_wanted     := vfs/vfs_bufdaemon.c
UNIT_LAB_SRCS_test_vm_page    := vm/vm_pageout.c
UNIT_LAB_SRCS_test_vm_pageout := vm/vm_pageout.c
# test_ahci_ncq runs no lab code itself: it asks ahci_ncq_answer, a process of its own that links
# dev/ahci_ncq.c, for each answer and checks it (tests/unit/ahci_ncq_answer.c).
UNIT_ANSWERERS                := ahci_ncq_answer
UNIT_LAB_SRCS_ahci_ncq_answer := dev/ahci_ncq.c
$(BUILD)/host/tests/test_ahci_ncq: $(BUILD)/host/tests/ahci_ncq_answer

# A test's lab objects, in build/host/tests/objs/<test>/ (each test's own: test_ccd_done's are built
# with ThreadSanitizer). The kernel's <sys/queue.h> first, as tests/unit/vm_host.h does. An object
# that calls the C library beyond klib.h, defines a C library symbol or has a constructor is
# refused (tests/unit/lab_object.py, against an empty file built with the same flags).
define unit_lab_objs
$(BUILD)/host/tests/$(1): $(patsubst %.c,$(BUILD)/host/tests/objs/$(1)/%.o,$(UNIT_LAB_SRCS_$(1)))
$(BUILD)/host/tests/objs/$(1)/%.o: kernel/%.c tests/unit/lab_object.py
	@mkdir -p $$(@D)
	$$(HOSTCC) $$(HOSTCFLAGS) $(HOST_TEST_INC) -DWDRAIN_HOST_TEST -include kernel/include/sys/queue.h \
		-MMD -MP -MF $$(@:.o=.d) -MT $$@ -c -o $$@.tmp $$<
	$$(HOSTCC) $$(HOSTCFLAGS) -x c -c -o $$@.empty /dev/null
	HOSTCC=$$(HOSTCC) tests/unit/lab_object.py $$@.tmp $$@.empty
	mv $$@.tmp $$@
-include $(patsubst %.c,$(BUILD)/host/tests/objs/$(1)/%.d,$(UNIT_LAB_SRCS_$(1)))
endef
$(foreach t,$(patsubst tests/unit/%.c,%,$(HOST_TEST_SRCS)) $(UNIT_ANSWERERS),$(if $(UNIT_LAB_SRCS_$(t)),$(eval \
	$(call unit_lab_objs,$(t)))))

HOST_TEST_LINK = $(HOSTCC) $(HOSTCFLAGS) $(HOST_TEST_INC) -MMD -MP -o $@ $< $(filter %.o,$^)

$(BUILD)/host/tests/test_%: tests/unit/test_%.c
	@mkdir -p $(@D)
	$(HOST_TEST_LINK)

$(UNIT_ANSWERERS:%=$(BUILD)/host/tests/%): $(BUILD)/host/tests/%: tests/unit/%.c
	@mkdir -p $(@D)
	$(HOST_TEST_LINK)

-include $(HOST_TESTS:=.d) $(UNIT_ANSWERERS:%=$(BUILD)/host/tests/%.d)

# test_ccd_done runs a completion on two threads at once: ThreadSanitizer reports any race in it
# (in ccd_done.c's object too).
$(BUILD)/host/tests/test_ccd_done $(BUILD)/host/tests/objs/test_ccd_done/dev/ccd_done.o: \
	HOSTCFLAGS += -fsanitize=thread -pthread

test-host: $(HOST_TESTS)

TEST_JOBS ?= $(shell n=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); [ $$n -gt 2 ] && n=2; echo $$n)

test:
	tools/install-deps
	$(MAKE) all iso
	$(MAKE) test-host
	tests/run --no-build -j $(TEST_JOBS)

test-slurm:
	tools/install-deps
	$(MAKE) all
	WDRAIN_NO_BUILD=1 python3 tests/slurm/test_slurm.py

stress:
	tools/install-deps
	$(MAKE) all iso
	$(MAKE) test-host
	tests/stress --no-build

bench-raw:
	tools/install-deps
	$(MAKE) all
	tools/bench-raw $(BENCHOPTS)

bench-vm:
	tools/install-deps
	$(MAKE) all
	tools/bench-vm $(BENCHOPTS)

.PHONY: test test-host test-slurm stress bench-raw bench-vm
