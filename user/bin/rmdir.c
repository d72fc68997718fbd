/* rmdir: remove empty directories. usage: rmdir dir ... */
#include <stdio.h>
#include <unistd.h>
#include <err.h>

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: rmdir directory ...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (rmdir(argv[i]) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
