/*
 * The hw.* sysctl nodes that describe the machine as a whole (FreeBSD keeps them in
 * sys/kern/kern_mib.c and, in 4.x, hw.physmem/hw.usermem in sys/i386/i386/machdep.c).
 *
 *   hw.ncpu      CPUs running (the boot CPU and every AP that started).
 *   hw.pagesize  PAGE_SIZE.
 *   hw.physmem   bytes of RAM the kernel manages: physmem_pages * PAGE_SIZE, fixed at boot. That is
 *                every 4 KB page the boot loader's memory map calls RAM, less the first megabyte,
 *                the kernel image, the boot modules (GRUB's or QEMU -initrd's root image: the
 *                memory disk md0 lives in them) and the vm_page array (vm_page_startup). So a
 *                guest whose root is md0 has 48 MB less of it than the same guest with its root on
 *                a disk. FreeBSD's is ctob(physmem): the pages getmemsize() counts, which skips
 *                everything from the kernel's load address to `first`, the end of the kernel and
 *                of what the loader put after it (i386 machdep.c's getmemsize; docs/sources.md
 *                [@fbsd-getmemsize], and [@fbsd-machdep-pc98-1.3] for the two sysctls).
 *   hw.usermem   bytes of hw.physmem not wired by the kernel, now. FreeBSD computes
 *                ctob(physmem - cnt.v_wire_count) (same source), its kernel's malloc pages being
 *                wired pages too; wdrain counts kmalloc's pages apart (v_kmem_count), so it takes
 *                both off: physmem_pages - v_wire_count - v_kmem_count. Process memory and
 *                cached file pages (the page queues) are in it, as in FreeBSD (vm_page.h: the
 *                page states).
 *
 * Locking: physmem_pages is written once, before sysctl_init. hw.usermem reads its two
 * counters under vm_page_queue_lock (which protects them), so they are from one instant.
 */
#include "kern/types.h"
#include "kern/sysctl.h"
#include "kern/lock.h"
#include "arch/cpu.h"
#include "vm/vm_page.h"

static int pagesize = PAGE_SIZE;

SYSCTL_INT(hw, ncpu, CTLFLAG_RD, &ncpu, "Number of active CPUs");
SYSCTL_INT(hw, pagesize, CTLFLAG_RD, &pagesize, "System memory page size");

static int hw_physmem_handler(struct sysctl_req *req)
{
	int64_t bytes = (int64_t)physmem_pages * PAGE_SIZE;
	return sysctl_handle_quad(req, &bytes);
}
SYSCTL_PROC(hw_physmem, "hw.physmem", CTLTYPE_QUAD | CTLFLAG_RD, NULL, 0, hw_physmem_handler, "Q",
            "RAM managed by the kernel in bytes (less the kernel image and boot modules such as md0)");

static int hw_usermem_handler(struct sysctl_req *req)
{
	spin_lock(&vm_page_queue_lock);
	uint32_t wired = vmcnt.v_wire_count + vmcnt.v_kmem_count;
	spin_unlock(&vm_page_queue_lock);
	int64_t bytes = ((int64_t)physmem_pages - wired) * PAGE_SIZE;
	return sysctl_handle_quad(req, &bytes);
}
SYSCTL_PROC(hw_usermem, "hw.usermem", CTLTYPE_QUAD | CTLFLAG_RD, NULL, 0, hw_usermem_handler, "Q",
            "Bytes of hw.physmem not wired by the kernel (wired and kmalloc pages left out)");
