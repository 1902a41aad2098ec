/* changes: every change of a range above the floor, found and listed, shared by culprits and impact. */
#include "changes.h"
#include "bench_ops.h"
#include "util.h"

#include <stdio.h>

void changes_small_note(const struct bisect *b, char *buf, size_t n)
{
	*buf = '\0';
	if (bisect_floor(b) < b->p.threshold)
		snprintf(buf, n, "; 'small': not above the %.2f%% threshold", 100 * b->p.threshold);
}

void changes_health_note(const struct bench *be, int parent, int state, char *buf, size_t n)
{
	const char *first, *pfirst;
	long e, pe;

	*buf = '\0';
	if (bench_health(be, state, &e, &first) == 0 && bench_health(be, parent, &pe, &pfirst) == 0 &&
	    e > pe)
		snprintf(buf, n, "  (kernel log: %ld errors or warnings, its parent %ld: %s)", e, pe,
			 first);
}

const char *changes_word(const struct bisect_params *p, double change)
{
	return bisect_worse(p, change) ? "regression" : "improvement";
}

/* The list culprits prints: every change above the floor, the ones not
 * above the threshold marked small. */
static void print_changes(const struct tree_range *rg, struct bench *be, const struct bisect *b,
			  int good, int bad)
{
	double floor = bisect_floor(b);
	char small[64], health[256];
	int i;

	changes_small_note(b, small, sizeof(small));
	printf("changes above %.2f%% between %s and %s (%s%s):\n", 100 * floor, bench_label(be, good),
	       bench_label(be, bad), bench_mode(be), small);
	if (!b->nchg)
		printf("  none\n");
	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];

		changes_health_note(be, c->parent, c->state, health, sizeof(health));
		printf("  %-11s state %-3d %+7.2f%%  %.3f -> %.3f %s  %s%s%s%s\n",
		       changes_word(&b->p, c->change), rg->state[c->state].index,
		       100 * c->change, c->from, c->to, bench_workload(be)->unit,
		       rg->state[c->state].subject,
		       c->small ? "  (small)" : "",
		       c->state - c->parent > 1 ? "  (among skipped states)" : "", health);
	}
}

int changes_find(const struct conf *c, const struct tree_range *rg, struct bench *be, struct bisect *b,
		 int good, int bad)
{
	struct bisect_params p;
	int r;

	bench_params(c, &p);
	bisect_init(b, &bench_ops, be, rg->n, &p);
	info("culprits: searching %s..%s, grid step %d, threshold %.2f%%, listing from %.2f%%, mode %s",
	     bench_label(be, good), bench_label(be, bad), p.step, 100 * p.threshold,
	     100 * bisect_floor(b), bench_mode(be));
	r = bisect_culprits(b, good, bad);
	if (r == 1)
		return error("culprits: GOOD %s or BAD %s cannot be built or booted: nothing to "
			     "compare", bench_label(be, good), bench_label(be, bad));
	if (r < 0)
		return -1;
	print_changes(rg, be, b, good, bad);
	return 0;
}
