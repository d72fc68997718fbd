/*
 * memhog: use a lot of anonymous memory and check that none of it is lost.
 *   memhog [-f] [-p passes] MB [-f] [-p passes]
 *   memhog -w pid [-i ms] [-o file] [-l label] MB
 * Maps MB megabytes of anonymous memory (mmap MAP_ANON|MAP_PRIVATE), writes a per-page
 * pattern into every page (from its page number and the pass number, in every 16th word: one
 * per 64-byte line, enough to catch a lost or misplaced page), then reads
 * every page back and checks it; -p repeats the write-and-check passes (default 1), so with
 * more memory than RAM the pages go out to swap and come back. -f forks once the memory is
 * filled: the child checks that it sees the parent's pattern, writes its own and checks it,
 * and the parent then checks that its copy is untouched (copy-on-write).
 * Prints one line per pass with the time it took; exit 0 if every page checked out, 1 if
 * a page was wrong (naming it), 2 for a usage error.
 *
 * -w pid: the dirty working set of tools/experiment's loaded workload (docs/harness.md, "The
 * loaded experiment's runs"). After the fill (every page written once) it reports "#ready", then
 * re-dirties its pages while process pid runs: pass after pass of MB's page count of touches,
 * each at a page chosen at random (rand_r), so the set is a working set with no fixed order for
 * the pageout daemon's LRU-like aging to be beaten by. A touch checks the page's first word
 * against what the last touch of that page wrote (each page's count of writes is kept in a small
 * array of its own) and writes the next value, so a page lost or misplaced by the pager is an
 * error. Its records go to -o (default stdout) as libutil line records (label -l):
 *   "#start pages=N interval_ms=N", "#ready fill_us=N", then every -i ms (default 1000) a CSV
 *   line t_us,touched,passes,slowest_pass_us: CLOCK_MONOTONIC, the touches and whole passes
 *   since #ready, and the longest pass that ended in that interval (0 if none ended). When pid
 *   is gone it finishes the pass it is in (so every pass is timed whole), writes a last line and
 *   "#end passes=N touched=N errors=N late=N"; exit 1 if a page was wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <libutil.h>

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
	fprintf(stderr, "usage: memhog [-f] [-p passes] MB\n"
	                "       memhog -w pid [-i ms] [-o file] [-l label] MB\n");
	return 2;
}

struct opts {
	int passes, forkit;
	pid_t watch;                    /* -w: re-dirty while this process runs */
	long interval_ms;
	const char *out, *label;
};

/* The options from argv[optind] on, up to an operand; 0, or -1 for a bad one. */
static int options(int argc, char **argv, struct opts *o)
{
	int c;
	char *end;

	while ((c = getopt(argc, argv, "fp:w:i:o:l:")) != -1) {
		switch (c) {
		case 'p':
			o->passes = (int)strtol(optarg, &end, 10);
			if (*end || o->passes < 1)
				return -1;
			break;
		case 'w':
			o->watch = (pid_t)strtol(optarg, &end, 10);
			if (*end || o->watch < 1)
				return -1;
			break;
		case 'f': o->forkit = 1; break;
		case 'i': o->interval_ms = ticker_ms(optarg); break;
		case 'o': o->out = optarg; break;
		case 'l': o->label = optarg; break;
		default: return -1;
		}
	}
	return 0;
}

/*
 * -w: fill, then touch random pages until process o->watch is gone, reporting as line
 * records. gen[p] counts the writes of page p (the fill is write 1). Returns the exit status.
 */
static int keep_dirty(const struct opts *o)
{
	unsigned *gen = calloc(npages, sizeof *gen);
	unsigned seed = 1;
	long errors = 0, passes = 0, touched = 0, late = 0;

	if (gen == NULL)
		err(1, "the page counts");
	if (lr_open(o->out, o->label) < 0)
		err(1, "%s", o->out);
	lr_meta("start pages=%zu interval_ms=%ld", npages, o->interval_ms);
	long long t0 = monotonic_us();
	fill(1);
	for (size_t p = 0; p < npages; p++)
		gen[p] = 1;
	long long now_us = monotonic_us(), pass_start = now_us, next = now_us + o->interval_ms * 1000, slowest = 0;
	lr_meta("ready fill_us=%lld", now_us - t0);
	lr_begin();
	lr_printf("t_us,touched,passes,slowest_pass_us");
	lr_end();
	for (int stop = 0, ended = 0; !(stop && ended);) {
		ended = 0;
		for (int k = 0; k < 64; k++) {
			size_t p = (size_t)rand_r(&seed) % npages;
			unsigned *w = mem + p * (PG / sizeof *mem);
			if (*w != word(p, gen[p], 0) && errors++ == 0)
				warnx("page %zu holds %#x, expected %#x (write %u)", p, *w, word(p, gen[p], 0), gen[p]);
			*w = word(p, ++gen[p], 0);
			if ((size_t)++touched % npages == 0) {
				long long t = monotonic_us();
				if (t - pass_start > slowest)
					slowest = t - pass_start;
				passes++;
				pass_start = t;
				ended = 1;
				break;
			}
		}
		if ((now_us = monotonic_us()) < next && !(stop && ended))
			continue;
		lr_begin();
		lr_printf("%lld,%ld,%ld,%lld", now_us, touched, passes, slowest);
		lr_end();
		slowest = 0;
		if (now_us >= next)                 /* a tick, not the last pass's end */
			for (next += o->interval_ms * 1000; next <= now_us; next += o->interval_ms * 1000)
				late++;
		if (!stop && !proc_running(o->watch))
			stop = 1;                       /* finish this pass, so that every pass is timed whole */
	}
	lr_meta("end passes=%ld touched=%ld errors=%ld late=%ld", passes, touched, errors, late);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .passes = 1, .interval_ms = 1000 };
	char *end;

	/* Options may also follow MB (memhog 200 -p 2, as the VM issue writes it). */
	if (options(argc, argv, &o) != 0 || optind >= argc)
		return usage();
	const char *mbarg = argv[optind++];
	if (options(argc, argv, &o) != 0 || optind != argc || (o.watch && o.forkit))
		return usage();
	int passes = o.passes;
	long mb = strtol(mbarg, &end, 10);
	if (*end || mb < 1 || mb > 2000)
		return usage();
	npages = (size_t)mb * (1024 * 1024 / PG);
	mem = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	if (mem == MAP_FAILED)
		err(1, "mmap %ld MB", mb);
	if (o.watch)
		return keep_dirty(&o);
	for (int pass = 1; pass <= passes; pass++) {
		double t0 = now();
		fill(pass);
		if (check(pass, "check"))
			return 1;
		printf("memhog: pass %d: %ld MB written and checked in %ld ms\n", pass, mb,
		       (long)((now() - t0) * 1000));
		fflush(stdout);
	}
	if (o.forkit) {
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
