/*
 * Basic VM types shared by every vm/ file and the pmap (FreeBSD's vm/vm.h).
 *   vm_pindex_t  - a page index inside an object (object offset / PAGE_SIZE)
 *   vm_ooffset_t - a byte offset inside an object (64-bit: files can exceed 4 GB)
 *   vm_prot_t    - VM_PROT_* access bits
 */
#ifndef _VM_VM_H_
#define _VM_VM_H_

#include "kern/types.h"

typedef uint32_t vm_pindex_t;
typedef int64_t  vm_ooffset_t;
typedef uint8_t  vm_prot_t;

#define VM_PROT_NONE    0x00
#define VM_PROT_READ    0x01
#define VM_PROT_WRITE   0x02
#define VM_PROT_EXECUTE 0x04
#define VM_PROT_ALL     (VM_PROT_READ | VM_PROT_WRITE | VM_PROT_EXECUTE)

#define OFF_TO_IDX(off) ((vm_pindex_t)(((vm_ooffset_t)(off)) >> PAGE_SHIFT))
#define IDX_TO_OFF(idx) (((vm_ooffset_t)(idx)) << PAGE_SHIFT)

struct vm_page;
struct vm_object;
typedef struct vm_page   *vm_page_t;
typedef struct vm_object *vm_object_t;

#endif
