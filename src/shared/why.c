/* why: where the instructions go between a culprit and its parent, shared by profile, bisect and culprits. */
#include "why.h"
#include "plot.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The guest's programs and libraries, for the user-space rows.  0 or -1. */
static int load_bins(char **programs, struct profile_bins *b)
{
	char **q;

	memset(b, 0, sizeof(*b));
	for (q = programs; q && *q; q++) {
		char *data = NULL, *name = strrchr(*q, '/');
		size_t size;

		if (util_read_file(*q, &data, &size) < 0 ||
		    profile_bins_add(b, name ? name + 1 : *q, (unsigned char *)data, size) < 0)
			return -1;
	}
	return 0;
}

/* One run: its counts and where it mapped the binaries.  0 or -1. */
static int load_run(const char *path, const struct profile_bins *b, struct profile_counts *c,
		    struct profile_maps *m)
{
	char *text = NULL;
	int ret = util_read_file(path, &text, NULL) < 0 || profile_counts_parse(c, text) < 0 ||
		  profile_maps_find(m, b, c) < 0 ? -1 : 0;

	free(text);
	return ret;
}

/* Both profiles into t, column k = state idx[k].  0 or -1. */
static int load_table(const struct bench_profile *p, struct profile_table *t)
{
	struct profile_bins bins;
	int k, ret = load_bins(p[0].programs, &bins);

	for (k = 0; k < 2 && !ret; k++) {
		struct profile_syms syms = { 0 };
		char *text = NULL;
		int n;

		ret = util_read_file(p[k].symbols, &text, NULL) < 0 ||
		      profile_syms_parse(&syms, text) < 0 ? -1 : 0;
		for (n = 0; n < p[k].npair && !ret; n++) {
			const struct bench_profile_pair *q = &p[k].pair[n];
			struct profile_counts c[2] = { { 0 } };
			struct profile_maps m[2] = { { 0 } };

			ret = load_run(q->counts[0], &bins, &c[0], &m[0]) < 0 ||
			      load_run(q->counts[1], &bins, &c[1], &m[1]) < 0 ||
			      profile_table_add(t, k, &syms, &(struct profile_run){ &c[1], &m[1] },
						&(struct profile_run){ &c[0], &m[0] },
						(double)(q->ops[1] - q->ops[0])) < 0 ? -1 : 0;
			profile_counts_release(&c[0]);
			profile_counts_release(&c[1]);
			profile_maps_release(&m[0]);
			profile_maps_release(&m[1]);
		}
		profile_syms_release(&syms);
		free(text);
	}
	profile_bins_release(&bins);
	return ret;
}

int why_profile_pair(const struct conf *c, struct bench *be, const int idx[2],
		     struct bench_profile p[2], struct profile_table *t)
{
	int k, r = 0;

	memset(p, 0, 2 * sizeof(*p));
	profile_table_init(t);
	for (k = 0; k < 2 && r == 0; k++)
		r = bench_profile(be, idx[k], c->profile_plugin, &p[k]);
	if (r == 1)
		error("profile: %s cannot be built or booted", bench_label(be, idx[k - 1]));
	if (r == 0 && load_table(p, t) < 0)
		r = -1;
	if (r == 0)
		profile_table_sort(t);
	return r;
}

#define WHY_ROWS 8
#define WHY_BARS 15

/* plots/why.png: the culprit's largest rows as bars. */
static void why_plot(const struct conf *c, struct bench *be, int culprit, const struct profile_table *t)
{
	const char *label[WHY_BARS];
	double v[WHY_BARS];
	char *title = xasprintf("why %s is slower: change in instructions per tbench operation, by function",
				bench_label(be, culprit));
	int i;

	for (i = 0; i < t->n && i < WHY_BARS; i++) {
		label[i] = t->row[i].function;
		v[i] = t->row[i].v[1] - t->row[i].v[0];
	}
	plot_bars(c->plot_dir, "why", title, "instructions per operation, culprit minus parent", label, v, i);
	free(title);
}

void why_explain(const struct conf *c, struct bench *be, int parent, int culprit, struct report *rep)
{
	struct bench_profile p[2];
	struct profile_table t;
	int idx[2] = { parent, culprit }, i, r;
	double change;
	char *what;

	/* The unit of work is a tbench operation (its operation table). */
	if (!c->profile || c->mode != MODE_ICOUNT || util_interrupted ||
	    !bench_workload(be)->legacy)
		return;
	if (bench_profile_check(be, c->profile_plugin) < 0) {
		warning("why: no profile of the culprit (PROFILE = no skips it)");
		return;
	}
	r = why_profile_pair(c, be, idx, p, &t);
	if (r == 0) {
		change = t.total[1] - t.total[0];
		what = xasprintf("%s -> %s, instructions per tbench operation: %.1f -> %.1f (%+.2f%%)",
				 bench_label(be, parent), bench_label(be, culprit), t.total[0],
				 t.total[1], t.total[0] ? 100 * change / t.total[0] : 0);
		printf("why: %s; the largest changes%s:\n", what,
		       t.misses ? " in estimated cycles (instructions, share; cache misses per "
				  "operation)" : "");
		if (rep)
			report_set_why(rep, what);
		for (i = 0; i < t.n && i < WHY_ROWS; i++) {
			const struct profile_row *w = &t.row[i];
			double share = change ? (w->v[1] - w->v[0]) / change : 0;

			printf("  %-36s %+12.2f  %5.1f%%", w->function, w->v[1] - w->v[0], 100 * share);
			if (t.misses)
				printf("   L1D misses %+.2f, last level %+.2f", w->m[1][0] - w->m[0][0],
				       w->m[1][1] - w->m[0][1]);
			putchar('\n');
			if (rep)
				report_add_function(rep, w->function, w->v[0], w->v[1], share);
		}
		if (rep)
			why_plot(c, be, culprit, &t);
		free(what);
	}
	profile_table_release(&t);
	bench_profile_release(&p[0]);
	bench_profile_release(&p[1]);
}
