/*
 * Kernel start-up. kmain() runs on the boot CPU with the boot stack and the boot page directory:
 * it brings up the console, memory, traps, interrupts and clocks, the kernel subsystems and
 * process 1, then becomes this CPU's scheduler. Process 1 starts in the kernel (start_init): it
 * attaches the disk controllers, starts the other CPUs and the watchdog, mounts the root file
 * system, then execs /sbin/init and returns to user mode. ap_main() is where the other CPUs land.
 *
 * The other CPUs start only after the PCI devices are probed: QEMU 7.2's multi-threaded TCG can
 * crash (a segfault in memory_region_dispatch_read) when one vCPU reads MMIO - any CPU does, its
 * LAPIC on every mycpu() - while another re-maps PCI BARs, as probing does (seen in about 2 of
 * 100 two-CPU boots; docs/reliability.md).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/sysctl.h"
#include "kern/cmdline.h"
#include "kern/exec.h"
#include "kern/file.h"
#include "kern/time.h"
#include "kern/watchdog.h"
#include "arch/cpu.h"
#include "arch/trap.h"
#include "arch/intr.h"
#include "arch/pmap.h"
#include "arch/context.h"
#include "arch/x86.h"
#include "arch/memlayout.h"
#include "arch/multiboot.h"
#include "arch/machdep.h"
#include "vm/vm_page.h"
#include "vm/vm_object.h"
#include "vm/vm_pageout.h"
#include "vm/swap_pager.h"
#include "dev/console.h"
#include "dev/sio.h"
#include "dev/md.h"
#include "dev/storage.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include <sys/errno.h>

#define WDRAIN_VERSION "wdrain 0.1"

/*
 * The design presets: the one list of them. Each is a name (design=NAME on the kernel command
 * line, `sysctl kern.design`), a title for GRUB's menu, and the sysctl settings it stands for,
 * applied at boot before the command line's own name=value words (so those override them).
 * The host side reads this table out of this file (tools/wdrun/presets.py): GRUB's menu
 * (build/grub.cfg: an entry per preset, DEFAULT_DESIGN's the default), tools/run's --design,
 * the experiment's presets; so a preset is added here and nowhere else. Keep each field one
 * string literal and a name shorter than design[]. docs/bufcache.md and docs/vm.md describe
 * the designs; tests/host/test_presets.py checks that the tools agree with this table.
 */
#define DEFAULT_DESIGN  "patched"        /* a boot without design=, and GRUB's default entry */
#define PRESET_SETTINGS 4

static const struct preset {
	const char *design;
	const char *title;
	struct { const char *name, *value; } set[PRESET_SETTINGS];
} presets[] = {
	{ "stable42", "4.2-STABLE: speedup buf_daemon + two-pass pageout",
	  { { "vfs.bufdaemon_design", "speedup" }, { "vm.pageout_design", "twopass" },
	    { "vm.max_launder", "32" } } },
	{ "patched", "Dec 2000 patch: runningbuf buf_daemon + one-pass pageout",
	  { { "vfs.bufdaemon_design", "runningbuf" }, { "vm.pageout_design", "onepass" },
	    { "vm.max_launder", "0" } } },
	{ "perdevice", "Next step: per-disk write budgets buf_daemon + one-pass pageout",
	  { { "vfs.bufdaemon_design", "perdevice" }, { "vm.pageout_design", "onepass" },
	    { "vm.max_launder", "0" } } },
	{ "syncfirst", "Per-disk budgets, synchronous I/O first in the disk queues + one-pass pageout",
	  { { "vfs.bufdaemon_design", "syncfirst" }, { "vm.pageout_design", "onepass" },
	    { "vm.max_launder", "0" } } },
	{ "wanted", "Disks cut to a small depth only while a process waits on them + one-pass pageout",
	  { { "vfs.bufdaemon_design", "wanted" }, { "vm.pageout_design", "onepass" },
	    { "vm.max_launder", "0" } } },
};

static struct cmdline bootcmd;
static char bootargs[CMDLINE_MAX];
static char design[16] = DEFAULT_DESIGN;
static char ostype[] = "wdrain";
static char osrelease[] = "0.1";
static int hz = HZ;

SYSCTL_STRING(kern, bootargs, CTLFLAG_RD, bootargs, sizeof(bootargs), "Kernel command line");
SYSCTL_STRING(kern, design, CTLFLAG_RD, design, sizeof(design),
              "Design preset chosen at boot (design=NAME; the presets are in kern/main.c)");
SYSCTL_STRING(kern, ostype, CTLFLAG_RD, ostype, sizeof(ostype), "Operating system type");
SYSCTL_STRING(kern, osrelease, CTLFLAG_RD, osrelease, sizeof(osrelease), "Operating system release");
SYSCTL_INT(kern, hz, CTLFLAG_RD, &hz, "Scheduler clock ticks per second");

/* The root image module GRUB (or QEMU -initrd) loaded, if any. */
static paddr_t rootmod_start, rootmod_end;

static void read_multiboot(uint32_t magic, const struct multiboot_info *mbi, paddr_t reserved[][2], int *nres)
{
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot loader (magic %#x)", magic);
	*nres = 0;
	reserved[(*nres)][0] = (paddr_t)V2P(mbi);
	reserved[(*nres)++][1] = (paddr_t)V2P(mbi) + sizeof(*mbi);
	if (mbi->flags & MBI_FLAG_CMDLINE)
		strlcpy(bootargs, cmdline_skip_kernel_path(P2V(mbi->cmdline)), sizeof(bootargs));
	if (mbi->flags & MBI_FLAG_MODS) {
		const struct multiboot_mod *mods = P2V(mbi->mods_addr);
		for (uint32_t i = 0; i < mbi->mods_count && *nres < 8; i++) {
			reserved[*nres][0] = mods[i].mod_start;
			reserved[(*nres)++][1] = mods[i].mod_end;
			if (i == 0) {
				rootmod_start = mods[i].mod_start;
				rootmod_end = mods[i].mod_end;
			}
		}
	}
}

/* tunable_int_fetch: see kern/sysctl.h. */
bool tunable_int_fetch(const char *name, int *val)
{
	const char *v = cmdline_get(&bootcmd, name);
	char *end;
	long long n;

	if (v == NULL)
		return false;
	n = strtoll(v, &end, 0);
	if (*v == 0 || *end != 0 || n < INT32_MIN || n > INT32_MAX) {
		kprintf("boot: bad value for %s: \"%s\"\n", name, v);
		return false;
	}
	*val = (int)n;
	return true;
}

/* Set sysctl `name` from the boot command line or a preset; report what went wrong. */
static void boot_set(const char *name, const char *value)
{
	int error = kernel_sysctl_set(name, value);

	if (error == ENOENT)
		kprintf("boot: no such tunable %s\n", name);
	else if (error == EPERM)
		kprintf("boot: %s is read-only\n", name);
	else if (error)
		kprintf("boot: bad value for %s: \"%s\"\n", name, value);
}

static const struct preset *preset_find(const char *d)
{
	for (size_t i = 0; i < nitems(presets); i++)
		if (strcmp(presets[i].design, d) == 0)
			return &presets[i];
	return NULL;
}

static void apply_preset(const struct preset *p)
{
	KASSERT(p != NULL, "apply_preset: DEFAULT_DESIGN is not in presets[]");
	for (int i = 0; i < PRESET_SETTINGS && p->set[i].name != NULL; i++)
		boot_set(p->set[i].name, p->set[i].value);
}

/* design=... (its preset), then the sysctl tunables (words with a dot: vfs.maxbdrun=8). */
static void apply_bootargs(void)
{
	const char *d = cmdline_get(&bootcmd, "design");
	if (d && preset_find(d) == NULL) {
		kprintf("boot: unknown design \"%s\" (known:", d);
		for (size_t i = 0; i < nitems(presets); i++)
			kprintf(" %s", presets[i].design);
		kprintf("); using %s\n", design);
	} else if (d) {
		strlcpy(design, d, sizeof(design));
	}
	apply_preset(preset_find(design));
	for (int i = 0; i < bootcmd.nargs; i++) {
		const struct bootarg *a = &bootcmd.args[i];
		if (strchr(a->key, '.'))
			boot_set(a->key, a->value);
	}
	if (bootcmd.truncated)
		kprintf("boot: command line too long, the rest was ignored\n");
}

/* Stop this machine after a fatal start-up error that is not a kernel bug (bad root image...). */
static void __noreturn boot_failed(const char *what, int error)
{
	kprintf("boot: %s (error %d); system halted\n", what, error);
	outb(0xf4, 1);                         /* QEMU isa-debug-exit: tell a harness at once */
	for (;;) {
		cli();
		hlt();
	}
}

static void start_init(void)
{
	spin_unlock(&proc_lock);               /* held across swtch by the scheduler, as in forkret */
	storage_init();                        /* disk drivers probe in process context: they may sleep */
	smp_start_aps();                       /* after the PCI probe: see the top of the file */
	watchdog_start();
	const char *root = cmdline_get(&bootcmd, "root");
	if (root == NULL || *root == 0)
		root = "md0";
	int error = vfs_mountroot(root);
	if (error)
		boot_failed("cannot mount the root file system", error);
	const char *swap = cmdline_get(&bootcmd, "swap");
	if (swap != NULL && *swap != 0)
		swap_boot(swap);
	struct proc *p = curproc;
	p->p_cwd = rootvnode;
	vref(rootvnode);
	p->p_fd = fdinit();
	if (p->p_fd == NULL)
		boot_failed("no memory for init's descriptors", ENOMEM);
	error = exec_init("/sbin/init");
	if (error)
		boot_failed("cannot exec /sbin/init", error);
	/* Returning goes to trapret with the frame exec built: user mode. */
}

void userinit(void)
{
	struct proc *p = proc_alloc();
	if (p == NULL)
		panic("userinit: no process slot");
	p->p_pid = 1;                          /* never handed out by proc_alloc */
	p->p_pgid = 1;                         /* everyone's group until a shell makes job groups */
	cred_init_root(&p->p_ucred);           /* the superuser; everyone inherits it by fork */
	strlcpy(p->p_comm, "init", sizeof(p->p_comm));
	p->p_flag = P_SYSTEM;
	p->p_context->eip = (uint32_t)start_init;  /* returns into trapret (see proc_alloc) */
	initproc = p;
	spin_lock(&proc_lock);
	p->p_stat = PRS_RUNNABLE;
	spin_unlock(&proc_lock);
}

void kmain(uint32_t magic, uint32_t mbi_pa)
{
	cons_early_init();
	kprintf("%s: an xv6-style kernel for buf_daemon/pageout experiments\n", WDRAIN_VERSION);
	const struct multiboot_info *mbi = P2V(mbi_pa);
	paddr_t reserved[10][2];
	int nres;
	read_multiboot(magic, mbi, reserved, &nres);
	cmdline_parse(bootargs, &bootcmd);
	vm_page_startup(mbi, (const paddr_t (*)[2])reserved, nres);
	kprintf("memory: %u KB usable\n", physmem_pages * 4);
	vm_object_init();
	swap_pager_init();
	pmap_bootstrap();
	gdt_init(&cpus[0]);
	idt_init();
	idt_load();
	acpi_init();
	clock_init();
	ioapic_init();
	lapic_init();
	sysctl_init();
	procinit();
	vfsinit();
	cons_init();
	sio_init();
	if (rootmod_end > rootmod_start)
		md_attach_preload(P2V(rootmod_start), rootmod_end - rootmod_start);
	apply_bootargs();
	kprintf("design: %s\n", design);
	vm_pageout_start();
	userinit();
	cpus[0].started = true;
	scheduler();
}

void ap_main(void)
{
	struct cpu *c = mycpu_lapic();
	gdt_init(c);
	idt_load();
	lapic_init();
	c->started = true;
	scheduler();
}
