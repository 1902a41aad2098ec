/* walk: memory access patterns, run natively under Cachegrind or fed to cachesim (-DMODEL), to compare their miss counts. */
/*
 * walk PATTERN: seq (8-byte reads through 4 MiB, twice), stride (reads
 * 128 bytes apart through 4 MiB, twice), hot (one line read between reads
 * of 1024 others in its L1 set: LRU keeps it, FIFO would not) or random (a fixed LCG's 8-byte
 * reads over 16 MiB, twice the last level's size, 2^20 of them).  The
 * buffer is aligned to 16 MiB, so its addresses' low 24 bits, which the
 * caches' set indices use, are those of the model's offsets.
 *
 * Native: the reads are done in walk(), which Cachegrind counts on its
 * own (fn=walk).  -DMODEL: each read goes to cachesim with the default
 * geometry and the data counters are printed ("D1mr N", "DLmr N");
 * "walk-model --geometry" prints that geometry as Cachegrind's options.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ALIGN (16ul << 20)
#define BIG (16ul << 20)
#define SMALL (4ul << 20)

#ifdef MODEL
#include "cachesim.h"
static struct cachesim cs;
#define TOUCH(base, off) ((void)(base), cachesim_access(&cs, 0, CACHESIM_READ, (off), 8), 0)
#else
#define TOUCH(base, off) (*(volatile uint64_t *)((base) + (off)))
#endif

__attribute__((noinline)) static uint64_t walk(const char *pattern, unsigned char *base)
{
	uint64_t sum = 0, x = 12345, off;
	int pass;
	long i;

	if (!strcmp(pattern, "seq")) {
		for (pass = 0; pass < 2; pass++)
			for (off = 0; off < SMALL; off += 8)
				sum += TOUCH(base, off);
	} else if (!strcmp(pattern, "stride")) {
		for (pass = 0; pass < 2; pass++)
			for (off = 0; off < SMALL; off += 128)
				sum += TOUCH(base, off);
	} else if (!strcmp(pattern, "hot")) {
		/* One line read between reads of lines that share its L1 set
		 * (4 KiB apart): it stays only if the most recent stays (LRU). */
		for (i = 0; i < (1l << 18); i++) {
			sum += TOUCH(base, 0);
			sum += TOUCH(base, (uint64_t)(i % 1024 + 1) * 4096);
		}
	} else {
		for (i = 0; i < (1l << 20); i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			sum += TOUCH(base, (x >> 20) % (BIG / 8) * 8);
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	unsigned char *base = NULL;

#ifdef MODEL
	if (argc == 2 && !strcmp(argv[1], "--geometry")) {
		struct cachesim_geom g;

		/* The default geometry in Cachegrind's options. */
		cachesim_geom_default(&g);
		printf("--I1=%lu,%u,%u --D1=%lu,%u,%u --LL=%lu,%u,%u\n", g.i1.size, g.i1.ways,
		       g.i1.line, g.d1.size, g.d1.ways, g.d1.line, g.ll.size, g.ll.ways, g.ll.line);
		return 0;
	}
#endif
	if (argc < 2 || (strcmp(argv[1], "seq") && strcmp(argv[1], "stride") && strcmp(argv[1], "hot") &&
			 strcmp(argv[1], "random"))) {
		fprintf(stderr, "usage: walk seq|stride|hot|random\n");
		return 2;
	}
#ifdef MODEL
	{
		struct cachesim_geom g;

		cachesim_geom_default(&g);
		if (cachesim_init(&cs, &g, 1) < 0)
			return 2;
		walk(argv[1], base);
		printf("D1mr %llu\nDLmr %llu\n", (unsigned long long)cachesim_total(&cs, CACHESIM_D1_MISS),
		       (unsigned long long)cachesim_total(&cs, CACHESIM_LL_MISS));
		cachesim_release(&cs);
	}
#else
	{
		unsigned char *m = mmap(NULL, BIG + ALIGN, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return 2;
		base = (unsigned char *)(((uintptr_t)m + ALIGN - 1) & ~(ALIGN - 1));
		printf("%llu\n", (unsigned long long)walk(argv[1], base));
	}
#endif
	return 0;
}
