#!/bin/sh
# Generate the kernel symbol table (kernel/kern/ksyms.h) as assembly from `nm -n` output on stdin.
# Only text symbols (t/T) are kept, sorted by address. An optional file of names ($1, one a
# line) is hidden: each of those keeps its address but is named "(lab)" (a lab's reference
# kernel, tools/wdlab/handout.py: a backtrace still works, and names no solution's function).
echo '	.section .rodata'
echo '	.align 4'
echo '	.globl ksym_table, ksym_count, ksym_strings'
awk -v hide="${1:-}" 'BEGIN { if (hide != "") while ((getline h < hide) > 0) hidden[h] = 1 }
$2 ~ /^[tT]$/ { addr[n] = $1; name[n] = ($3 in hidden) ? "(lab)" : $3; n++ }
END {
	print "ksym_count:\n\t.long " n
	print "ksym_table:"
	off = 0
	for (i = 0; i < n; i++) { printf "\t.long 0x%s, %d\n", addr[i], off; off += length(name[i]) + 1 }
	print "ksym_strings:"
	for (i = 0; i < n; i++) printf "\t.asciz \"%s\"\n", name[i]
}'
