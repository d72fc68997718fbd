/*
 * execve(2): replace the calling process's program.
 * The arguments are copied into the kernel first (the old address space goes away); then a new
 * address space is built from the ELF file's PT_LOAD segments and a stack holding argc, argv and
 * envp (layout in user/ and docs: argc at the stack pointer, then the argv pointers, NULL, the
 * envp pointers, NULL, then the strings). Only when everything has succeeded is the old address
 * space freed, so a failed exec returns an error to a process that is still intact.
 * A file starting with "#!" runs its interpreter with the script's path as an argument.
 *
 * Permissions and set-ID, as FreeBSD 4's kern_execve and exec_check_permissions
 * (sys/kern/kern_exec.c 1.107.2.15, RELENG_4): the file must be a regular file with at least one
 * execute bit (EACCES, root included) that the caller may execute (VOP_ACCESS VEXEC: EACCES). A
 * successful exec of a file with the set-user-ID bit makes its owner the effective uid, one with
 * the set-group-ID bit its group the effective gid, and the saved IDs then follow the effective
 * ones. For a script it is the interpreter's bits that count, as in FreeBSD, whose image activator
 * starts over with the interpreter.
 *
 * Busy text, as FreeBSD 4: a file that is being written - open for writing, or mapped writable
 * and shared - cannot be executed (exec_check_permissions: v_writecount, ETXTBSY), and a file a
 * process runs cannot be written (vn_writechk): the exec counts the file in its v_textcount
 * while it loads it (vn_text_begin, vfs/vfs_vnops.c), then the image's mappings do
 * (MAP_ENTRY_VN_TEXT) until the process exits or execs again.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/syscall.h"
#include "kern/file.h"
#include "kern/elf.h"
#include "kern/exec.h"
#include "arch/trap.h"
#include "arch/cpu.h"
#include "arch/pmap.h"
#include "arch/memlayout.h"
#include "vm/vm_map.h"
#include "vm/vm_object.h"
#include "vm/vm_fault.h"
#include "vfs/vnode.h"
#include "vfs/vfs.h"
#include <sys/errno.h>
#include <sys/stat.h>

#define ARG_MAX    (256 * 1024)      /* bytes of argument and environment strings (FreeBSD's) */
#define MAXARGS    4096
#define PATH_MAX   1024
#define MAXPHNUM   16
#define FL_USER    0x202             /* initial user EFLAGS: IF, and the always-one bit 1 */

/*
 * The arguments while they travel through the kernel: strings packed in buf, which starts at a
 * page and doubles as they need, up to ARG_MAX. FreeBSD 4 takes ARG_MAX of pageable kernel
 * virtual memory (exec_map); wdrain has only the direct map, where 256 KB is 64 physically
 * contiguous pages - which a long-running machine may not have at every exec.
 */
struct exec_args {
	char  *buf;
	size_t used;
	size_t cap;                        /* bytes at buf */
	int    argc, envc;
};

/* Make room for `need` more bytes: E2BIG past ARG_MAX. */
static int args_reserve(struct exec_args *ea, size_t need)
{
	if (ea->used + need <= ea->cap)
		return 0;
	if (ea->used + need > ARG_MAX)
		return E2BIG;
	size_t cap = ea->cap;
	while (cap < ea->used + need)
		cap *= 2;
	char *buf = kmalloc(cap, M_WAITOK);
	memcpy(buf, ea->buf, ea->used);
	kfree(ea->buf);
	ea->buf = buf;
	ea->cap = cap;
	return 0;
}

static int args_add(struct exec_args *ea, const char *s, size_t len)
{
	if (ea->argc + ea->envc >= MAXARGS)
		return E2BIG;
	int error = args_reserve(ea, len + 1);
	if (error)
		return error;
	memcpy(ea->buf + ea->used, s, len);
	ea->buf[ea->used + len] = 0;
	ea->used += len + 1;
	return 0;
}

/* Copy a NULL-terminated user array of strings. */
static int args_copyin(struct exec_args *ea, char *const *uvec, int *count)
{
	if (uvec == NULL)
		return 0;
	for (;;) {
		uint32_t uptr;
		if (copyin(&uvec[*count], &uptr, sizeof(uptr)))
			return EFAULT;
		if (uptr == 0)
			return 0;
		if (ea->argc + ea->envc >= MAXARGS)
			return E2BIG;
		size_t done;
		int error = copyinstr((void *)uptr, ea->buf + ea->used, ea->cap - ea->used, &done);
		if (error == ENAMETOOLONG) {       /* longer than the room left: grow and copy it again */
			error = args_reserve(ea, ea->cap - ea->used + 1);
			if (error)
				return error;
			continue;
		}
		if (error)
			return error;
		ea->used += done;
		(*count)++;
	}
}

/* Read exactly len bytes at off from vp into a kernel buffer. */
static int read_exact(struct vnode *vp, void *buf, size_t len, off_t off)
{
	size_t resid;
	int error = vn_rdwr(UIO_READ, vp, buf, len, off, UIO_SYSSPACE, 0, &resid);
	if (error)
		return error;
	return resid ? ENOEXEC : 0;
}

static int check_ehdr(const struct elf_ehdr *eh)
{
	if (eh->e_magic != ELF_MAGIC || eh->e_class != ELFCLASS32 || eh->e_data != ELFDATA2LSB ||
	    eh->e_type != ET_EXEC || eh->e_machine != EM_386 ||
	    eh->e_phentsize != sizeof(struct elf_phdr) || eh->e_phnum == 0 || eh->e_phnum > MAXPHNUM)
		return ENOEXEC;
	return 0;
}

/* Zero [va, end) of address space vm (not the current one), page by page through the direct map. */
static int zero_user(struct vmspace *vm, vaddr_t va, vaddr_t end)
{
	while (va < end) {
		uint32_t n = MIN(end - va, PAGE_SIZE - (va & PAGE_MASK));
		vm_page_t m = vm_fault_hold(vm, va, VM_PROT_WRITE);
		if (m == NULL)
			return ENOMEM;
		memset((char *)P2V(VM_PAGE_TO_PHYS(m)) + (va & PAGE_MASK), 0, n);
		vm_page_unhold(m);
		va += n;
	}
	return 0;
}

/*
 * Map one PT_LOAD segment (FreeBSD's elf_load_section): the pages holding file data are mapped
 * copy-on-write from the file's vnode object, so text is paged in on demand and shared by every
 * process running the program; the rest (bss) is anonymous, zero-filled on demand. The bytes of
 * the last file page past p_filesz belong to bss and are zeroed (in the process's own copy).
 */
static int load_segment(struct vmspace *vm, struct vnode *vp, const struct elf_phdr *ph)
{
	uint32_t start = ph->p_vaddr, end = ph->p_vaddr + ph->p_memsz, fend = ph->p_vaddr + ph->p_filesz;
	if (ph->p_filesz > ph->p_memsz || end < start || start < USERBASE || end > VM_MMAP_BASE ||
	    ph->p_offset + ph->p_filesz < ph->p_offset || (ph->p_offset & PAGE_MASK) != (start & PAGE_MASK))
		return ENOEXEC;
	vm_prot_t prot = ((ph->p_flags & PF_R) ? VM_PROT_READ : 0) | ((ph->p_flags & PF_W) ? VM_PROT_WRITE : 0) |
	                 ((ph->p_flags & PF_X) ? VM_PROT_EXECUTE : 0);
	vaddr_t va = start & ~PAGE_MASK, fpages = roundup(fend, PAGE_SIZE), top = roundup(end, PAGE_SIZE);
	int error = 0;
	if (ph->p_filesz > 0) {
		vm_object_t obj = vp->v_object;
		if (obj == NULL)
			return ENOEXEC;
		vm_object_reference(obj);
		error = vm_map_insert(vm, obj, ph->p_offset & ~PAGE_MASK, va, fpages, prot, VM_PROT_ALL,
		                      VM_INHERIT_COPY,
		                      MAP_ENTRY_COW | MAP_ENTRY_NEEDS_COPY | MAP_ENTRY_VN_TEXT);
		if (error) {
			vm_object_deallocate(obj);
			return error;
		}
		if (fend < fpages && top > fend && (prot & VM_PROT_WRITE))
			error = zero_user(vm, fend, fpages);
	} else {
		fpages = va;
	}
	if (!error && top > fpages)
		error = vm_map_insert(vm, NULL, 0, fpages, top, prot, VM_PROT_ALL, VM_INHERIT_COPY, MAP_ENTRY_COW);
	if (!error && top > vm->vm_daddr)
		vm->vm_daddr = vm->vm_brk = top;
	return error;
}

static int load_elf(struct vmspace *vm, struct vnode *vp, uint32_t *entry)
{
	struct elf_ehdr eh;
	int error = read_exact(vp, &eh, sizeof(eh), 0);
	if (error || (error = check_ehdr(&eh)))
		return error;
	struct elf_phdr ph[MAXPHNUM];
	error = read_exact(vp, ph, eh.e_phnum * sizeof(ph[0]), eh.e_phoff);
	if (error)
		return error;
	vm->vm_taddr = USERTOP;
	bool loaded = false;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
			continue;
		if (ph[i].p_vaddr < vm->vm_taddr)
			vm->vm_taddr = ph[i].p_vaddr & ~PAGE_MASK;
		if ((error = load_segment(vm, vp, &ph[i])))
			return error;
		loaded = true;
	}
	if (!loaded || eh.e_entry < USERBASE || eh.e_entry >= vm->vm_daddr)
		return ENOEXEC;
	*entry = eh.e_entry;
	return 0;
}

/* Copy len bytes to user address va of address space vm (not the current one). */
static int copyout_vm(struct vmspace *vm, const void *src, vaddr_t va, size_t len)
{
	for (size_t done = 0; done < len;) {
		uint32_t n = MIN(len - done, PAGE_SIZE - ((va + done) & PAGE_MASK));
		vm_page_t m = vm_fault_hold(vm, va + done, VM_PROT_WRITE);
		if (m == NULL)
			return ENOMEM;
		memcpy((char *)P2V(VM_PAGE_TO_PHYS(m)) + ((va + done) & PAGE_MASK), (const char *)src + done, n);
		vm_page_unhold(m);
		done += n;
	}
	return 0;
}

/*
 * The stack: an anonymous entry covering all of [USERTOP - USTACKMAX, USERTOP), zero-filled as
 * it is touched (so "growing the stack" is demand zero), holding argc, the argv and envp
 * pointer arrays and the strings at its top. Returns the user stack pointer in *spp.
 */
static int build_stack(struct vmspace *vm, struct exec_args *ea, uint32_t *spp)
{
	int nptr = ea->argc + 1 + ea->envc + 1;
	uint32_t strings = USERTOP - roundup(ea->used, 4);
	uint32_t sp = strings - 4 * (nptr + 1);
	sp &= ~15u;
	int error = vm_map_insert(vm, NULL, 0, USERTOP - USTACKMAX, USERTOP, VM_PROT_READ | VM_PROT_WRITE,
	                          VM_PROT_ALL, VM_INHERIT_COPY, MAP_ENTRY_COW);
	if (error)
		return error;
	uint32_t *words = kmalloc(4 * (1 + nptr), M_WAITOK);
	words[0] = ea->argc;
	uint32_t off = 0;
	int w = 1;
	for (int i = 0; i < ea->argc + ea->envc; i++) {
		if (i == ea->argc)
			words[w++] = 0;
		words[w++] = strings + off;
		off += strlen(ea->buf + off) + 1;
	}
	if (ea->envc == 0)
		words[w++] = 0;
	words[w++] = 0;
	error = copyout_vm(vm, words, sp, 4 * w);
	if (!error)
		error = copyout_vm(vm, ea->buf, strings, ea->used);
	kfree(words);
	*spp = sp;
	return error;
}

/* If vp is a "#!" script, put "interp [arg] path" in front of the arguments (replacing argv[0]). */
static int shell_script(struct vnode *vp, const char *path, struct exec_args *ea, char *interp)
{
	char line[128];
	size_t resid;
	int error = vn_rdwr(UIO_READ, vp, line, sizeof(line) - 1, 0, UIO_SYSSPACE, 0, &resid);
	if (error)
		return error;
	size_t n = sizeof(line) - 1 - resid;
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = 0;
	char *nl = strchr(line, '\n');
	if (nl == NULL)
		return ENOEXEC;
	*nl = 0;
	char *s = line + 2;
	while (*s == ' ' || *s == '\t')
		s++;
	char *arg = s;
	while (*arg && *arg != ' ' && *arg != '\t')
		arg++;
	if (*arg)
		*arg++ = 0;
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (*s == 0)
		return ENOEXEC;
	strlcpy(interp, s, PATH_MAX);
	/* Rebuild: interp, [arg], path, then the old argv[1..] and envp. */
	struct exec_args old = *ea;
	char *copy = kmalloc(old.used ? old.used : 1, M_WAITOK);
	if (copy == NULL)
		return ENOMEM;
	memcpy(copy, old.buf, old.used);
	ea->used = 0;
	ea->argc = 0;
	ea->envc = 0;
	error = args_add(ea, s, strlen(s));
	if (!error && *arg)
		error = args_add(ea, arg, strlen(arg));
	if (!error)
		error = args_add(ea, path, strlen(path));
	ea->argc = 2 + (*arg != 0);
	size_t off = old.argc ? strlen(copy) + 1 : 0;
	for (int i = 1; i < old.argc + old.envc && !error; i++) {
		size_t len = strlen(copy + off);
		error = args_add(ea, copy + off, len);
		if (i < old.argc)
			ea->argc++;
		else
			ea->envc++;
		off += len + 1;
	}
	kfree(copy);
	return error;
}

/*
 * The vnode of the program (or script) at path, if it may be executed (see the top), counted
 * as text while the exec reads it (vn_text_begin: ETXTBSY if it has writers; exec_close ends
 * that); *st its attributes.
 */
static int exec_open(const char *path, struct vnode **vpp, struct stat *st)
{
	struct vnode *vp;
	int error = namei(path, &vp);
	if (error)
		return error;
	error = vp->v_type != VREG ? EACCES : VOP_GETATTR(vp, st);
	if (error == 0 && (st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0)
		error = EACCES;
	if (error == 0)
		error = VOP_ACCESS(vp, VEXEC);
	if (error == 0)
		error = vn_text_begin(vp);
	if (error) {
		vrele(vp);
		return error;
	}
	*vpp = vp;
	return 0;
}

/* Done with exec_open's vnode: its image's map entries (if any) keep it text from now on. */
static void exec_close(struct vnode *vp)
{
	vn_text_end(vp);
	vrele(vp);
}

/* The set-ID bits of the program exec'd (attributes st) take effect; see the top of the file. */
static void exec_setid(struct proc *p, const struct stat *st)
{
	struct ucred *cr = &p->p_ucred;

	spin_lock(&proc_lock);
	if (st->st_mode & S_ISUID)
		cr->cr_uid = st->st_uid;
	if (st->st_mode & S_ISGID)
		cr->cr_groups[0] = st->st_gid;
	cr->cr_svuid = cr->cr_uid;
	cr->cr_svgid = cr->cr_groups[0];
	spin_unlock(&proc_lock);
}

static void set_comm(struct proc *p, const char *path)
{
	const char *base = strrchr(path, '/');
	strlcpy(p->p_comm, base ? base + 1 : path, sizeof(p->p_comm));
}

static int kern_execve(const char *path, struct exec_args *ea)
{
	struct proc *p = curproc;
	struct vnode *vp;
	struct stat st;
	int error = exec_open(path, &vp, &st);
	if (error)
		return error;
	char *interp = kmalloc(PATH_MAX, M_WAITOK);
	if (interp == NULL) {
		exec_close(vp);
		return ENOMEM;
	}
	error = shell_script(vp, path, ea, interp);
	if (error == 0) {
		exec_close(vp);
		error = exec_open(interp, &vp, &st);
		if (error) {
			kfree(interp);
			return error;
		}
	} else if (error != -1) {
		kfree(interp);
		exec_close(vp);
		return error;
	}
	kfree(interp);

	struct vmspace *vm = vmspace_alloc();
	uint32_t entry, sp;
	if ((error = load_elf(vm, vp, &entry)) == 0)
		error = build_stack(vm, ea, &sp);
	exec_close(vp);
	if (error) {
		vmspace_free(vm);
		return error;
	}
	struct vmspace *old = p->p_vmspace;
	p->p_vmspace = vm;
	pmap_activate(vm->vm_pmap, (uint32_t)p->p_kstack + KSTACKSIZE);
	if (old)
		vmspace_free(old);
	set_comm(p, path);
	exec_setid(p, &st);
	fdcloseexec(p->p_fd);
	sigacts_exec(p);

	struct trapframe *tf = p->p_tf;
	memset(tf, 0, sizeof(*tf));
	tf->cs = (SEG_UCODE << 3) | DPL_USER;
	tf->ds = tf->es = tf->fs = tf->gs = tf->ss = (SEG_UDATA << 3) | DPL_USER;
	tf->eflags = FL_USER;
	tf->esp = sp;
	tf->eip = entry;
	return 0;
}

static int exec_args_alloc(struct exec_args *ea)
{
	ea->buf = kmalloc(PAGE_SIZE, M_WAITOK);
	ea->cap = PAGE_SIZE;
	ea->used = 0;
	ea->argc = ea->envc = 0;
	return ea->buf ? 0 : ENOMEM;
}

int sys_execve(register_t *args, register_t *rv)
{
	char *path = kmalloc(PATH_MAX, M_WAITOK);
	struct exec_args ea;
	if (path == NULL)
		return ENOMEM;
	int error = copyinstr((void *)args[0], path, PATH_MAX, NULL);
	if (error == 0)
		error = exec_args_alloc(&ea);
	if (error) {
		kfree(path);
		return error;
	}
	error = args_copyin(&ea, (char *const *)args[1], &ea.argc);
	if (!error)
		error = args_copyin(&ea, (char *const *)args[2], &ea.envc);
	if (!error)
		error = kern_execve(path, &ea);
	kfree(ea.buf);
	kfree(path);
	return error;
}

/* Process 1's first program: exec path with argv = { path } from the kernel. */
int exec_init(const char *path)
{
	struct exec_args ea;
	int error = exec_args_alloc(&ea);
	if (error)
		return error;
	error = args_add(&ea, path, strlen(path));
	ea.argc = 1;
	if (!error)
		error = kern_execve(path, &ea);
	kfree(ea.buf);
	return error;
}
