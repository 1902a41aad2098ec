/*
 * cachesim: a deterministic model of a memory hierarchy, for the cost
 * figure of issue 41, fed by the guest plugin (src/guest/tbprof.c, cache=on:
 * one call per memory access and per translation block executed).  Per CPU an L1 instruction and an L1 data
 * cache, one last-level cache shared by all; each set-associative with LRU
 * replacement, write-allocate, lines of one size (64 bytes by default).
 * The last level is looked up on an L1 miss only, as Cachegrind does.  A
 * write by one CPU invalidates that line in every other CPU's L1 caches,
 * so two CPUs writing one line (false sharing) miss there each time.
 * Nothing is modelled of prefetchers, TLBs, branch prediction or the
 * overlap of misses.
 *
 *	struct cachesim cs;
 *	struct cachesim_geom g;
 *	cachesim_geom_default(&g);              the named part's geometry
 *	if (cachesim_init(&cs, &g, ncpu) < 0) ...   refused geometry (reported)
 *	cachesim_access(&cs, cpu, CACHESIM_READ, paddr, size);
 *	... cs.cpu[c].n[CACHESIM_D1_MISS] ...
 *	cycles = cachesim_cycles(&cs, &w, instructions);
 *	cachesim_release(&cs);
 */
#ifndef TBISECT_CACHESIM_H
#define TBISECT_CACHESIM_H

#include <stdint.h>

/* One cache: size in bytes, ways, line bytes (size / (ways * line) sets,
 * a power of two, as is the line). */
struct cachesim_level {
	unsigned long size;
	unsigned ways, line;
};

struct cachesim_geom {
	struct cachesim_level i1, d1, ll;
};

enum cachesim_kind { CACHESIM_FETCH, CACHESIM_READ, CACHESIM_WRITE };

/* Counters per CPU. */
enum cachesim_count {
	/* each _MISS right after its _ACC */
	CACHESIM_I1_ACC, CACHESIM_I1_MISS,	/* instruction fetches */
	CACHESIM_D1_ACC, CACHESIM_D1_MISS,	/* data reads and writes */
	CACHESIM_LL_ACC, CACHESIM_LL_MISS,	/* L1 misses looked up in the last level */
	CACHESIM_INVAL,				/* lines this CPU's writes took from others */
	CACHESIM_NCOUNT
};

struct cachesim_cache {
	uint64_t *tag;		/* sets * ways, most recent first; 0: empty */
	unsigned sets, ways;
	unsigned line_shift;
};

struct cachesim_cpu {
	struct cachesim_cache i1, d1;
	uint64_t n[CACHESIM_NCOUNT];
};

struct cachesim {
	struct cachesim_cpu *cpu;
	int ncpu;
	struct cachesim_cache ll;
};

/* Cycle weights of the cost figure: an L1 hit, a last-level hit and a
 * memory access (iai-callgrind's 1, 5 and 35 by default). */
struct cachesim_weights {
	double l1, ll, mem;
};

/* The default geometry: Intel Core i7-6700 (Skylake client), 32 KiB 8-way
 * L1I and L1D, 8 MiB 16-way last level, 64-byte lines. */
void cachesim_geom_default(struct cachesim_geom *g);
void cachesim_weights_default(struct cachesim_weights *w);
/* "I1:D1:LL", each "SIZE/WAYS/LINE" in bytes, into g (the form of the
 * default: 32768/8/64:32768/8/64:8388608/16/64); whether sets and lines
 * are powers of two is cachesim_init()'s to say.  0, or -1 (reported). */
int cachesim_geom_parse(const char *s, struct cachesim_geom *g);
/* "L1,LL,MEMORY": whole cycles of an L1 hit, a last-level hit and a
 * memory access, 1 <= L1 <= LL <= MEMORY (the default: 1,5,35).  0, or -1
 * (reported). */
int cachesim_weights_parse(const char *s, struct cachesim_weights *w);
/* 0, or -1 (reported) for a geometry whose sets or line are not powers of
 * two, or ncpu < 1. */
int cachesim_init(struct cachesim *cs, const struct cachesim_geom *g, int ncpu);
/* How far an access went. */
enum cachesim_level_hit { CACHESIM_HIT_L1, CACHESIM_HIT_LL, CACHESIM_MEMORY };

/* One access of size bytes at physical address addr by CPU cpu: each line
 * it touches is looked up (an access across a line boundary touches two,
 * counted as one access that misses when either does).  Returns how far
 * it went (the farther of two lines). */
int cachesim_access(struct cachesim *cs, int cpu, enum cachesim_kind kind, uint64_t addr,
		    unsigned size);
/* The instruction fetches of a straight run of insns instructions at addr,
 * size bytes (a translation block): each line it covers is looked up once
 * and counted as one fetch, the other instructions as fetches that hit.
 * *l1_miss and *ll_miss get the lines missed in L1I and in the last level.
 * Cachegrind looks up every instruction; the two differ only for an
 * instruction across a line boundary (here a fetch of each line). */
void cachesim_fetch(struct cachesim *cs, int cpu, uint64_t addr, unsigned size, unsigned insns,
		    unsigned *l1_miss, unsigned *ll_miss);
/* Counter k summed over the CPUs. */
uint64_t cachesim_total(const struct cachesim *cs, enum cachesim_count k);
/* Estimated cycles, as iai-callgrind counts them: L1 hits * w->l1 +
 * last-level hits * w->ll + last-level misses * w->mem, over instruction
 * fetches and data accesses of every CPU. */
double cachesim_cycles(const struct cachesim *cs, const struct cachesim_weights *w);
/* The same formula over counters n (one CPU's, a sum, or a difference of
 * two runs' sums). */
double cachesim_cycles_of(const uint64_t n[CACHESIM_NCOUNT], const struct cachesim_weights *w);
void cachesim_release(struct cachesim *cs);

#endif
