/* Host unit tests of the kernel command-line parser (kernel/kern/cmdline.c). */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "kern/cmdline.c"

int main(void)
{
	static struct cmdline cl;

	cmdline_parse("design=stable42 root=da0 vfs.hirunningspace=1048576", &cl);
	check_int("cmdline_three_words", cl.nargs, 3);
	check_str("cmdline_design", cmdline_get(&cl, "design"), "stable42");
	check_str("cmdline_root", cmdline_get(&cl, "root"), "da0");
	check_str("cmdline_dotted_tunable", cmdline_get(&cl, "vfs.hirunningspace"), "1048576");
	check_str("cmdline_missing_key", cmdline_get(&cl, "nosuch"), NULL);

	check_str("cmdline_skips_qemu_kernel_path", cmdline_skip_kernel_path("build/kernel.elf design=patched"),
	          "design=patched");
	check_str("cmdline_keeps_grub_line", cmdline_skip_kernel_path("design=a/b root=md0"), "design=a/b root=md0");
	check_str("cmdline_keeps_plain_flag", cmdline_skip_kernel_path("single x=1"), "single x=1");

	cmdline_parse("  single   x=  y=2\t", &cl);
	check_int("cmdline_whitespace_and_flags", cl.nargs, 3);
	check_str("cmdline_flag_has_empty_value", cmdline_get(&cl, "single"), "");
	check_str("cmdline_empty_value", cmdline_get(&cl, "x"), "");

	cmdline_parse("a=1 a=2", &cl);
	check_str("cmdline_last_wins", cmdline_get(&cl, "a"), "2");

	cmdline_parse("", &cl);
	check_int("cmdline_empty_line", cl.nargs, 0);

	char big[3000];
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	cmdline_parse(big, &cl);
	check_int("cmdline_too_long_is_truncated", cl.truncated, 1);

	char many[CMDLINE_NARGS * 4 + 16] = "";
	for (int i = 0; i < CMDLINE_NARGS + 3; i++)
		strcat(many, "k=v ");
	cmdline_parse(many, &cl);
	check_int("cmdline_too_many_words_capped", cl.nargs, CMDLINE_NARGS);
	check_int("cmdline_too_many_words_flagged", cl.truncated, 1);

	return unit_exit();
}
