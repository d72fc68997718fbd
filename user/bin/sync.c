/* sync: write all modified file system buffers to disk. usage: sync */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: sync\n");
		return 1;
	}
	sync();
	return 0;
}
