/* echo: write the arguments separated by spaces and a newline (-n: no newline). */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int nflag = argc > 1 && strcmp(argv[1], "-n") == 0;

	for (int i = 1 + nflag; i < argc; i++) {
		fputs(argv[i], stdout);
		if (i + 1 < argc)
			putchar(' ');
	}
	if (!nflag)
		putchar('\n');
	fflush(stdout);
	return ferror(stdout) ? 1 : 0;
}
