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
#define WRITE(base, off) ((void)(base), cachesim_access(&cs, 0, CACHESIM_WRITE, (off), 8))
#define MARK_ON()
#define MARK_OFF()
#else
#define TOUCH(base, off) (*(volatile uint64_t *)((base) + (off)))
#define WRITE(base, off) (*(volatile uint64_t *)((base) + (off)) = (off))
/* tbprof's window markers (src/guest/tbprof.c): nopl 0x6e4f6274(%rax),
 * "tbOn", and nopl 0x664f6274(%rax), "tbOf"; no-ops everywhere else. */
#define MARK_ON() __asm__ volatile(".byte 0x0f,0x1f,0x80,0x74,0x62,0x4f,0x6e" ::: "memory")
#define MARK_OFF() __asm__ volatile(".byte 0x0f,0x1f,0x80,0x74,0x62,0x4f,0x66" ::: "memory")
#endif

/* Writes every line of the buffer in order, before walk(): its pages are
 * then mapped (a guest kernel zeroing a page on first touch would bring its
 * lines in) and every run starts with the same lines cached. */
__attribute__((noinline)) static void prepare(unsigned char *base)
{
	uint64_t off;

	for (off = 0; off < BIG; off += 64)
		WRITE(base, off);
}

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

static int known(const char *p)
{
	return !strcmp(p, "seq") || !strcmp(p, "stride") || !strcmp(p, "hot") || !strcmp(p, "random");
}

#ifdef MODEL
int main(int argc, char **argv)
{
	struct cachesim_geom g;
	uint64_t d1, dl;

	cachesim_geom_default(&g);
	if (argc == 2 && !strcmp(argv[1], "--geometry")) {
		/* The default geometry in Cachegrind's options. */
		printf("--I1=%lu,%u,%u --D1=%lu,%u,%u --LL=%lu,%u,%u\n", g.i1.size, g.i1.ways,
		       g.i1.line, g.d1.size, g.d1.ways, g.d1.line, g.ll.size, g.ll.ways, g.ll.line);
		return 0;
	}
	if (argc != 2 || !known(argv[1])) {
		fprintf(stderr, "usage: walk-model seq|stride|hot|random|--geometry\n");
		return 2;
	}
	if (cachesim_init(&cs, &g, 1) < 0)
		return 2;
	prepare(NULL);
	d1 = cachesim_total(&cs, CACHESIM_D1_MISS);
	dl = cachesim_total(&cs, CACHESIM_LL_MISS);
	walk(argv[1], NULL);
	/* walk()'s own misses, as Cachegrind's fn=walk has them. */
	printf("D1mr %llu\nDLmr %llu\n",
	       (unsigned long long)(cachesim_total(&cs, CACHESIM_D1_MISS) - d1),
	       (unsigned long long)(cachesim_total(&cs, CACHESIM_LL_MISS) - dl));
	cachesim_release(&cs);
	return 0;
}
#else
/*
 * walk PATTERN: one pattern, natively (under Cachegrind).
 * walk SECONDS CLIENTS: tbisect's custom benchmark (/bench/custom) in the
 * guest: seq, stride and random, each walk() in a window of its own
 * (windows 1, 2 and 3 of the plugin), then "walk: 3 patterns".
 */
int main(int argc, char **argv)
{
	static const char *const guest[] = { "seq", "stride", "random" };
	unsigned char *m, *base;
	int k;

	if (argc < 2 || (!known(argv[1]) && !(argc == 3 && argv[1][0] >= '0' && argv[1][0] <= '9'))) {
		fprintf(stderr, "usage: walk seq|stride|hot|random, or walk SECONDS CLIENTS\n");
		return 2;
	}
	m = mmap(NULL, BIG + ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 2;
	base = (unsigned char *)(((uintptr_t)m + ALIGN - 1) & ~(ALIGN - 1));
	if (known(argv[1])) {
		prepare(base);
		printf("%llu\n", (unsigned long long)walk(argv[1], base));
		return 0;
	}
	for (k = 0; k < 3; k++) {
		uint64_t sum;

		prepare(base);
		MARK_ON();
		sum = walk(guest[k], base);
		MARK_OFF();
		printf("walk: %s %llu\n", guest[k], (unsigned long long)sum);
	}
	printf("walk: 3 patterns\n");
	return 0;
}
#endif
