/*
 * memhog: use a lot of anonymous memory and check that none of it is lost.
 *   memhog [-f] [-p passes] MB [-f] [-p passes]
 * Maps MB megabytes of anonymous memory (mmap MAP_ANON|MAP_PRIVATE), writes a per-page
 * pattern into every page (from its page number and the pass number, in every 16th word: one
 * per 64-byte line, enough to catch a lost or misplaced page), then reads
 * every page back and checks it; -p repeats the write-and-check passes (default 1), so with
 * more memory than RAM the pages go out to swap and come back. -f forks once the memory is
 * filled: the child checks that it sees the parent's pattern, writes its own and checks it,
 * and the parent then checks that its copy is untouched (copy-on-write).
 * Prints one line per pass with the time it took; exit 0 if every page checked out, 1 if
 * a page was wrong (naming it), 2 for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define PG 4096

static unsigned *mem;
static size_t npages;

static unsigned word(size_t page, unsigned pass, size_t i)
{
	return (unsigned)(page * 2654435761u) ^ (pass << 24) ^ (unsigned)i;
}

static void fill(unsigned pass)
{
	for (size_t p = 0; p < npages; p++) {
		unsigned *w = mem + p * (PG / sizeof *mem);
		for (size_t i = 0; i < PG / sizeof *mem; i += 16)
			w[i] = word(p, pass, i);
	}
}

/* 0 if every page holds pass's pattern, else 1 (after naming the first bad page). */
static int check(unsigned pass, const char *who)
{
	for (size_t p = 0; p < npages; p++) {
		unsigned *w = mem + p * (PG / sizeof *mem);
		for (size_t i = 0; i < PG / sizeof *mem; i += 16) {
			if (w[i] != word(p, pass, i)) {
				fprintf(stderr, "memhog: %s: page %zu word %zu is %#x, expected %#x\n", who, p, i,
				        w[i], word(p, pass, i));
				return 1;
			}
		}
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr, "usage: memhog [-f] [-p passes] MB\n");
	return 2;
}

/* The options from argv[optind] on, up to an operand; 0, or -1 for a bad one. */
static int options(int argc, char **argv, int *passes, int *forkit)
{
	int c;
	char *end;

	while ((c = getopt(argc, argv, "fp:")) != -1) {
		if (c == 'p') {
			*passes = (int)strtol(optarg, &end, 10);
			if (*end || *passes < 1)
				return -1;
		} else if (c == 'f') {
			*forkit = 1;
		} else {
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int passes = 1, forkit = 0;
	char *end;

	/* Options may also follow MB (memhog 200 -p 2, as the VM issue writes it). */
	if (options(argc, argv, &passes, &forkit) != 0 || optind >= argc)
		return usage();
	const char *mbarg = argv[optind++];
	if (options(argc, argv, &passes, &forkit) != 0 || optind != argc)
		return usage();
	long mb = strtol(mbarg, &end, 10);
	if (*end || mb < 1 || mb > 2000)
		return usage();
	npages = (size_t)mb * (1024 * 1024 / PG);
	mem = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	if (mem == MAP_FAILED)
		err(1, "mmap %ld MB", mb);
	for (int pass = 1; pass <= passes; pass++) {
		double t0 = now();
		fill(pass);
		if (check(pass, "check"))
			return 1;
		printf("memhog: pass %d: %ld MB written and checked in %ld ms\n", pass, mb,
		       (long)((now() - t0) * 1000));
		fflush(stdout);
	}
	if (forkit) {
		pid_t pid = fork();
		if (pid < 0)
			err(1, "fork");
		if (pid == 0) {
			if (check(passes, "child before writing"))
				_exit(1);
			fill(passes + 1);
			_exit(check(passes + 1, "child after writing"));
		}
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "memhog: the child failed (status %#x)\n", status);
			return 1;
		}
		if (check(passes, "parent after the child wrote"))
			return 1;
		printf("memhog: fork: child and parent each saw only their own writes\n");
	}
	return 0;
}
