/*
 * link: make a hard link with link(2) and nothing else (POSIX link(1); in FreeBSD ln(1) run
 * as link).
 *   link source_file target_file
 * No options: the target must not exist, a directory target is not entered. Errors are
 * "link: target_file: strerror", status 1.
 */
#include <stdio.h>
#include <unistd.h>
#include <err.h>

int main(int argc, char **argv)
{
	if (argc != 3 || (argv[1][0] == '-' && argv[1][1] != 0)) {
		fprintf(stderr, "usage: link source_file target_file\n");
		return 1;
	}
	if (link(argv[1], argv[2]) < 0)
		err(1, "%s", argv[2]);
	return 0;
}
