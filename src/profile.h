/*
 * profile: where a kernel's instructions go, per function, from the counts
 * of tbisect's QEMU plugin (src/qemu/tbprof.c).  Pure logic.
 *
 * Only the benchmark's window counts.  A profiled run counts boot, set-up,
 * the benchmark and teardown alike, so each state is run twice, for S and
 * for 2S seconds of tbench: under icount both runs execute the same boot and
 * set-up, and the difference of their counts is S seconds of the
 * benchmark.  It is divided by the megabytes those S seconds moved (the
 * difference of MB/s x seconds), so a state is measured in instructions per
 * MB, whatever its speed.
 *
 *	struct profile_syms k;                 the kernel's text symbols
 *	profile_syms_parse(&k, nm_text);       `nm -n --defined-only vmlinux`
 *	struct profile_counts c1, c2;          the plugin's files
 *	profile_counts_parse(&c1, text1); ...
 *	struct profile_table t;
 *	profile_table_init(&t);
 *	profile_table_add(&t, 0, &k, &c2, &c1, mb2 - mb1);     column A
 *	profile_table_add(&t, 1, &k2, &c4, &c3, mb4 - mb3);    column B
 *	profile_table_sort(&t);                by |B - A|, largest first
 *	... t.row[i].function, .v[0], .v[1]; t.total[0], t.total[1] ...
 *	profile_table_release(&t); profile_counts_release(); profile_syms_release();
 *
 * Rows: a kernel function by its symbol; "[user space]" for every user
 * address (below the kernel's half of the address space); "[unknown
 * kernel address]" for kernel addresses no symbol covers.  No address is
 * dropped: the rows of a column add up to its total.
 */
#ifndef TBISECT_PROFILE_H
#define TBISECT_PROFILE_H

#include <stdint.h>

#define PROFILE_USER "[user space]"
#define PROFILE_UNKNOWN "[unknown kernel address]"

struct profile_syms {
	uint64_t *addr;		/* sorted */
	char **name;
	int n;
};

/* Text symbols (types t T w W) of nm -n output; other lines are passed
 * over.  0, or -1 when none was found (reported). */
int profile_syms_parse(struct profile_syms *s, const char *nm_text);
/* The function holding addr: the symbol at or before it; NULL for a user
 * address, PROFILE_UNKNOWN below the first symbol. */
const char *profile_syms_find(const struct profile_syms *s, uint64_t addr);
void profile_syms_release(struct profile_syms *s);

struct profile_counts {
	uint64_t *addr;		/* sorted, as the plugin writes them */
	uint64_t *insns;
	int n;
	uint64_t total;		/* the plugin's "# total" line */
};

/* The plugin's file: "ADDR INSNS" lines, "# total N".  0, or -1 on a
 * malformed line or a total that is not the sum (reported). */
int profile_counts_parse(struct profile_counts *c, const char *text);
void profile_counts_release(struct profile_counts *c);

struct profile_row {
	char *function;
	double v[2];		/* instructions per MB in columns A and B */
};

struct profile_table {
	struct profile_row *row;
	int n, alloc;
	double total[2];
};

void profile_table_init(struct profile_table *t);
/* Adds to column col (0 or 1) the window long - short, per MB moved in it
 * (mb > 0), function by function (an address may count less in the longer
 * run: the shorter run's teardown).  0, or -1 when mb is not positive
 * (reported). */
int profile_table_add(struct profile_table *t, int col, const struct profile_syms *syms,
		      const struct profile_counts *longer, const struct profile_counts *shorter,
		      double mb);
/* Sorts the rows by |v[1] - v[0]|, largest first (ties by name). */
void profile_table_sort(struct profile_table *t);
/* The sum of the rows' v[1] - v[0], for the check against the totals. */
double profile_table_sum(const struct profile_table *t);
void profile_table_release(struct profile_table *t);

#endif
