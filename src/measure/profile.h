/*
 * profile: where a kernel's instructions go, per function, from the counts
 * of tbisect's QEMU plugin (src/guest/tbprof.c).  Pure logic.
 *
 * Only the benchmark's window counts.  A profiled run counts boot, set-up,
 * the benchmark and teardown alike, so each state is run twice, for S and
 * for 2S seconds of tbench: under icount both runs execute the same boot and
 * set-up, and the difference of their counts is S seconds of the
 * benchmark.  It is divided by the tbench operations finished in those S
 * seconds (the difference of the two runs' operation tables), so a state is
 * measured in instructions per operation, whatever its speed.  Not per MB:
 * tbench reports its MB/s at its last whole second, not at its end, and the
 * MB an operation moves changes along the load file (101 MB/s in the first
 * second, 81 by the third), so MB/s x seconds does not measure the window.
 *
 *	struct profile_syms k;                 the kernel's text symbols
 *	profile_syms_parse(&k, nm_text);       `nm -n --defined-only vmlinux`
 *	struct profile_bins b = { 0 };         the guest's programs and libraries
 *	profile_bins_add(&b, "libc.so.6", data, size); ...
 *	struct profile_counts c1, c2;          the plugin's files
 *	profile_counts_parse(&c1, text1); ...
 *	struct profile_maps m1, m2;            where each run mapped them
 *	profile_maps_find(&m1, &b, &c1); ...
 *	struct profile_table t;
 *	profile_table_init(&t);
 *	profile_table_add(&t, 0, &k, &(struct profile_run){ &c2, &m2 },
 *			  &(struct profile_run){ &c1, &m1 }, ops2 - ops1);   column A
 *	profile_table_add(&t, 1, &k2, ..., ops4 - ops3);                   column B
 *	profile_table_sort(&t);                values, totals; by |B - A|
 *	... t.row[i].function, .v[0], .v[1]; t.total[0], t.total[1] ...
 *	profile_table_release(&t); profile_maps_release(); profile_counts_release();
 *	profile_bins_release(); profile_syms_release();
 *
 * Rows: a kernel function by its symbol; "[user] NAME" for the user-space
 * code of one program or library of the guest (tbench, tbench_srv,
 * libc.so.6, ld-linux-x86-64.so.2, busybox, ...); "[user] unmatched" for
 * user code in none of them (the vDSO, which the kernel maps); "[unknown
 * kernel address]" for kernel addresses no symbol covers.  No address is
 * dropped: the rows of a column add up to its total.
 *
 * The guest maps programs and libraries at random addresses, other ones
 * in each run.  The plugin writes the first bytes of every user-space
 * block; a binary whose code holds those bytes at the same offset in a page
 * fixes where that binary was mapped in that run, once PROFILE_VOTES_MIN
 * blocks of PROFILE_CODE_MIN bytes or more agree.
 */
#ifndef TBISECT_PROFILE_H
#define TBISECT_PROFILE_H

#include "cachesim.h"

#include <stddef.h>
#include <stdint.h>

#define PROFILE_USER_OTHER "[user] unmatched"
#define PROFILE_UNKNOWN "[unknown kernel address]"
#define PROFILE_CODE 16		/* code bytes the plugin writes per user block */
#define PROFILE_CODE_MIN 8	/* blocks with fewer do not vote */
#define PROFILE_VOTES_MIN 3
#define PROFILE_PAGE 4096u
#define PROFILE_SEGS 4

struct profile_syms {
	uint64_t *addr;		/* sorted */
	char **name;
	int n;
};

/* Text symbols (types t T w W) of nm -n output; other lines are passed
 * over.  0, or -1 when none was found (reported). */
int profile_syms_parse(struct profile_syms *s, const char *nm_text);
/* The function holding addr: the symbol at or before it; NULL for a user
 * address (below the kernel's half), PROFILE_UNKNOWN below the first
 * symbol. */
const char *profile_syms_find(const struct profile_syms *s, uint64_t addr);
void profile_syms_release(struct profile_syms *s);

struct profile_counts {
	uint64_t *addr;		/* sorted, as the plugin writes them */
	uint64_t *insns;
	unsigned char (*code)[PROFILE_CODE];	/* a user block's first bytes */
	unsigned char *code_len;		/* 0 for a kernel block */
	uint64_t (*miss)[3];	/* cache=on (" m=I1,D1,LL"): the block's misses in L1I,
				 * L1D and the last level; NULL without */
	int n;
	uint64_t total;		/* the plugin's "# total" line */
};

/* The plugin's file: "ADDR INSNS [CODE] [m=I1,D1,LL]" lines, "# total N".
 * 0, or -1 on a malformed line, a file where some lines have misses and
 * others not, or a total that is not the sum (reported). */
int profile_counts_parse(struct profile_counts *c, const char *text);
void profile_counts_release(struct profile_counts *c);

/* One program or library of the guest image: its executable segments. */
struct profile_seg {
	uint64_t off, vaddr, len;
};
struct profile_bin {
	char *name;		/* "[user] libc.so.6" */
	unsigned char *data;	/* the whole file */
	size_t size;
	struct profile_seg seg[PROFILE_SEGS];
	int nseg;
};
struct profile_bins {
	struct profile_bin *bin;
	int n;
};

/* Adds the ELF file data (size bytes, malloc'd; the bins own it from now
 * on, even on failure) under name.  0, or -1 when it is not a 64-bit ELF
 * file (reported). */
int profile_bins_add(struct profile_bins *b, const char *name, unsigned char *data, size_t size);
void profile_bins_release(struct profile_bins *b);

/* Address ranges where one run had the binaries' code; names borrowed
 * from the bins. */
struct profile_map {
	uint64_t lo, hi;
	const char *name;
};
struct profile_maps {
	struct profile_map *m;
	int n;
};

/* Finds where c's run mapped each binary of b, from the code bytes of its
 * user blocks.  Always 0; a binary with too few matching blocks gets no
 * range (its blocks count as PROFILE_USER_OTHER). */
int profile_maps_find(struct profile_maps *m, const struct profile_bins *b,
		      const struct profile_counts *c);
/* The row name of the user address addr: a binary's, or PROFILE_USER_OTHER. */
const char *profile_maps_name(const struct profile_maps *m, uint64_t addr);
void profile_maps_release(struct profile_maps *m);

/* One run's counts and, if known, where it mapped the binaries (NULL: all
 * user space is PROFILE_USER_OTHER). */
struct profile_run {
	const struct profile_counts *counts;
	const struct profile_maps *maps;
};

struct profile_row {
	char *function;
	int64_t d[2];		/* instructions, longer run minus shorter, per column */
	double v[2];		/* instructions per operation in columns A and B (sorted) */
	int64_t dm[2][2];	/* L1 data and last-level misses, longer minus
				 * shorter, per column (runs with cache=on) */
	double m[2][2];		/* the same per operation (sorted) */
};

struct profile_table {
	struct profile_row *row;
	int n, alloc;
	int *index, nindex;	/* rows by name */
	int sorted;
	double work[2];		/* operations in each column's window */
	int64_t insns[2];	/* the windows' instructions by the runs' "#
				 * total" lines, apart from any row */
	double total[2];	/* instructions per operation (sorted), from
				 * insns: the rows' sum is checked against it */
	int misses;		/* the runs carried cache misses (cache=on):
				 * rows have dm and m, and are sorted by
				 * profile_row_cycles() */
};

void profile_table_init(struct profile_table *t);
/* Adds to column col (0 or 1) the window longer - shorter, function by
 * function (an address may count less in the longer run: the shorter run's
 * teardown), and work, the operations finished in the window.  A column
 * of several windows (seeded SMP: one per seed) is their instructions over
 * their operations.  0, or -1
 * when work is not positive or the table is sorted (reported). */
int profile_table_add(struct profile_table *t, int col, const struct profile_syms *syms,
		      const struct profile_run *longer, const struct profile_run *shorter,
		      double work);
/* Ends the adding: sets v[] and total[] (and m[]) per operation, drops the
 * rows that are zero in both columns (the same count in both runs: boot
 * and set-up) and sorts the rest by |v[1] - v[0]|, or with misses by the
 * change of profile_row_cycles(), largest first (ties by name). */
void profile_table_sort(struct profile_table *t);
/* A row's share of the estimated cycles per operation in column col, as
 * far as a row knows them: its instructions (one fetch each) plus 4 per L1
 * data miss and 30 more per last-level miss (a miss costs 5 or 35 where a
 * hit costs 1, cachesim_weights_default()).  Its data accesses that hit
 * and its L1I misses are not kept per row. */
double profile_row_cycles(const struct profile_row *r, int col);
/* The sum of the rows' v[1] - v[0], for the check against the totals. */
double profile_table_sum(const struct profile_table *t);
void profile_table_release(struct profile_table *t);

/* The cache model's counters in a plugin file written with cache=on
 * (tbprof.c): the whole run's, and the sum of its windows' (every access
 * a vCPU made while a window of its was open). */
struct profile_cache {
	uint64_t run[CACHESIM_NCOUNT];
	uint64_t window[CACHESIM_NCOUNT];
	long windows;		/* windows opened, 0 when the guest set none */
};

/* Reads the "# cache ...", "# windows N" and "# window W all ..." lines of
 * text.  0, or -1 when it has no cache counts or a malformed one
 * (reported). */
int profile_cache_parse(struct profile_cache *c, const char *text);
/* The cost of a run: the windows' counters when a window was opened,
 * else the whole run's. */
const uint64_t *profile_cache_cost(const struct profile_cache *c);

#endif
