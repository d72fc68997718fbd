# tools/experiment.mk: `make experiment` (included by the top Makefile; the harness: docs/harness.md;
# what the runs found: docs/experiments.md).
#   make experiment                     the seed's experiment: every preset, 3 trials, 1.5 GB dd,
#                                       128 MB, ccd0 over 2 modelled scsi10k disks (tools/experiment)
#   make experiment EXPERIMENT=quick    1 trial of 64 MiB per preset (under 3 minutes)
#   make experiment EXPERIMENT=loaded   the seed's dd under memory pressure (tools/experiment --load all):
#                                       a dirty anonymous working set and a clean file one beside
#                                       it, swap on a third modelled disk, the 2x2 of the buf_daemon
#                                       and pageout halves of the presets, then the other presets
#   make experiment EXPERIMENT=mixed    unequal disks (da1 scsi10k, da2 ide7200), two experiments:
#                                       the seed's stripe over them (OUT/stripe), and a file system
#                                       and a dd writer on each disk at once (--layout separate,
#                                       OUT/separate); every other variable applies to both
# Variables (each maps to one tools/experiment flag): PRESETS=stable42,patched TRIALS=N SIZE=MB
# BS=32k MEM=MB SMP=N BUS=scsi|ahci DISKS=N DISKMODEL=PRESET or THROTTLE=MBPS
# SET='vfs.hirunningspace=2097152 ...' SWEEP='vfs.hirunningspace=262144,1048576 ...' OUT=DIR,
# and EXPOPTS='...' for any other flag (tools/experiment -h).
# With WDRAIN_NO_BUILD=1 (set by tests/run: the build is done) it neither checks the packages nor
# runs make all, so a test does not rebuild build/ under the tests running beside it.

EXPFLAGS = $(if $(filter quick,$(EXPERIMENT)),--quick) $(if $(filter loaded,$(EXPERIMENT)),--load all) $(if $(PRESETS),--presets $(PRESETS)) \
           $(if $(TRIALS),--trials $(TRIALS)) $(if $(SIZE),--size $(SIZE)) $(if $(BS),--bs $(BS)) \
           --mem $(MEM) --smp $(SMP) --bus $(BUS) $(if $(filter-out 0,$(DISKS)),--disks $(DISKS)) \
           $(if $(DISKMODEL),--disk-model $(DISKMODEL)) $(if $(THROTTLE),--throttle $(THROTTLE)) \
           $(foreach s,$(SET),--set $(s)) $(foreach s,$(SWEEP),--sweep $(s)) $(if $(OUT),--out $(OUT)) $(EXPOPTS)

MIXED_MODEL = scsi10k,ide7200
MIXEDFLAGS = $(filter-out --out $(OUT),$(EXPFLAGS)) --disk-model $(MIXED_MODEL)
mixed_out = $(if $(OUT),--out $(OUT)/$(1))

experiment:
ifneq ($(WDRAIN_NO_BUILD),1)
	tools/install-deps
	$(MAKE) all
endif
ifeq ($(EXPERIMENT),mixed)
	tools/experiment $(MIXEDFLAGS) --name mixed-stripe $(call mixed_out,stripe)
	tools/experiment $(MIXEDFLAGS) --name mixed-separate --layout separate $(call mixed_out,separate)
else
	tools/experiment $(EXPFLAGS)
endif

.PHONY: experiment
