#!/bin/sh
# Generate the kernel symbol table (kernel/kern/ksyms.h) as assembly from `nm -n` output on stdin.
# Only text symbols (t/T) are kept, sorted by address.
echo '	.section .rodata'
echo '	.align 4'
echo '	.globl ksym_table, ksym_count, ksym_strings'
awk '$2 ~ /^[tT]$/ { addr[n] = $1; name[n] = $3; n++ }
END {
	print "ksym_count:\n\t.long " n
	print "ksym_table:"
	off = 0
	for (i = 0; i < n; i++) { printf "\t.long 0x%s, %d\n", addr[i], off; off += length(name[i]) + 1 }
	print "ksym_strings:"
	for (i = 0; i < n; i++) printf "\t.asciz \"%s\"\n", name[i]
}'
