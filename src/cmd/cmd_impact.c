/* cmd_impact: what each culprit does to every benchmark (the trade-off table of 2008). */
#include "changes.h"
#include "cmd.h"
#include "commands.h"
#include "bench_run.h"
#include "plot.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMPACT_DEFAULT "tbench,hackbench,iperf3,cyclictest"

/* One culprit: a state against its parent. */
struct impact_row {
	int state, parent;
};

/* One benchmark's column. */
struct impact_col {
	char *name, *unit;
	int lower_better;
	double *from, *to;	/* per row, medians; NAN when not measured */
	int *overlap;		/* per row: the two states' runs overlap */
};

struct impact_args {
	const char *benches;	/* comma-separated */
	const char *at;		/* comma-separated states, NULL: culprits of the range */
	int markdown;
	char *pos[2];
	int npos;
};

static int parse_args(int argc, char **argv, struct impact_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->benches = IMPACT_DEFAULT;
	for (i = 0; i < argc; i++) {
		if ((!strcmp(argv[i], "--bench") || !strcmp(argv[i], "--at") ||
		     !strcmp(argv[i], "--format")) && i + 1 >= argc)
			return error("%s needs a value", argv[i]);
		if (!strcmp(argv[i], "--bench"))
			a->benches = argv[++i];
		else if (!strcmp(argv[i], "--at"))
			a->at = argv[++i];
		else if (!strcmp(argv[i], "--format")) {
			i++;
			if (strcmp(argv[i], "markdown") && strcmp(argv[i], "text"))
				return error("unknown format '%s' (text or markdown)", argv[i]);
			a->markdown = !strcmp(argv[i], "markdown");
		} else if (argv[i][0] == '-' && argv[i][1] == '-')
			return error("unknown option '%s'", argv[i]);
		else if (a->npos < 2)
			a->pos[a->npos++] = argv[i];
		else
			return error("impact takes at most two states (GOOD BAD), then options");
	}
	if (a->npos == 1)
		return error("impact takes both GOOD and BAD, or neither");
	return 0;
}

/* The benchmarks named in list, each known (a column each).  The count, or
 * -1 (reported). */
static int parse_benches(const char *list, struct impact_col **out)
{
	char *copy = xstrdup(list), *p = copy, *name;
	struct impact_col *col = NULL;
	int n = 0;

	while ((name = strsep(&p, ","))) {
		if (!*name)
			continue;
		if (!workload_known(name)) {
			error("--bench: unknown benchmark '%s' (%s)", name, workload_names());
			free(copy);
			free(col);
			return -1;
		}
		col = xrealloc(col, (size_t)(n + 1) * sizeof(*col));
		memset(&col[n], 0, sizeof(*col));
		col[n++].name = xstrdup(name);
	}
	free(copy);
	if (!n)
		return error("--bench: no benchmark named");
	*out = col;
	return n;
}

/* The culprits: each state of --at against its parent, else every change
 * culprits lists in good..bad under BENCH.  Count, or -1 (reported). */
static int find_rows(struct cmd_ctx *x, const struct impact_args *a, int good, int bad,
		     struct impact_row **out)
{
	struct impact_row *row = NULL;
	struct bench be;
	struct bisect b;
	int n = 0, i;

	if (a->at) {
		char *copy = xstrdup(a->at), *p = copy, *spec;

		while ((spec = strsep(&p, ","))) {
			int s = cmd_resolve(x, spec);

			if (s <= 0) {
				if (s == 0)
					error("--at %s: the first state has no parent", spec);
				free(copy);
				free(row);
				return -1;
			}
			row = xrealloc(row, (size_t)(n + 1) * sizeof(*row));
			row[n++] = (struct impact_row){ s, s - 1 };
		}
		free(copy);
		*out = row;
		return n;
	}
	if (bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return -1;
	if (changes_find(&x->conf, &x->range, &be, &b, good, bad) < 0) {
		bisect_release(&b);
		bench_release(&be);
		return -1;
	}
	for (i = 0; i < b.nchg; i++) {
		row = xrealloc(row, (size_t)(n + 1) * sizeof(*row));
		row[n++] = (struct impact_row){ b.chg[i].state, b.chg[i].parent };
	}
	bisect_release(&b);
	bench_release(&be);
	*out = row;
	return n;
}

/* Measures every row's state and parent under col's benchmark.  0 or -1. */
static int measure_col(struct cmd_ctx *x, struct impact_col *col, const struct impact_row *row,
		       int nrow)
{
	struct conf c = x->conf;	/* a shallow copy: BENCH changed, nothing owned */
	struct bisect_params p;
	struct bench be;
	int *idx, *want, i, ret = -1;

	c.bench = col->name;
	if (bench_init(&be, &c, &x->tree, &x->range) < 0)
		return -1;
	bench_params(&c, &p);
	col->unit = xstrdup(bench_workload(&be)->unit);
	col->lower_better = p.lower_better;
	col->from = xcalloc((size_t)nrow, sizeof(double));
	col->to = xcalloc((size_t)nrow, sizeof(double));
	col->overlap = xcalloc((size_t)nrow, sizeof(int));
	idx = xcalloc((size_t)nrow * 2, sizeof(int));
	want = xcalloc((size_t)nrow * 2, sizeof(int));
	for (i = 0; i < nrow; i++) {
		idx[2 * i] = row[i].parent;
		idx[2 * i + 1] = row[i].state;
		want[2 * i] = want[2 * i + 1] = bench_runs_wanted(&c);
	}
	info("impact: %s, %d states, %s", col->name, 2 * nrow, bench_mode(&be));
	if (bench_ensure_many(&be, idx, want, 2 * nrow) < 0)
		goto out;
	for (i = 0; i < nrow; i++) {
		const double *v;
		double lo = NAN, hi = NAN;
		int nf, k;

		/* v is borrowed until the next call: keep what is needed. */
		k = bench_samples(&be, row[i].parent, &v, &nf);
		col->from[i] = k ? stats_median(v, k) : NAN;
		if (k) {
			lo = stats_min(v, k);
			hi = stats_max(v, k);
		}
		k = bench_samples(&be, row[i].state, &v, &nf);
		col->to[i] = k ? stats_median(v, k) : NAN;
		/* Seeded runs sample a spread: a change inside it is not
		 * established by these runs. */
		col->overlap[i] = k && !isnan(lo) && stats_max(v, k) >= lo && stats_min(v, k) <= hi;
	}
	ret = 0;
out:
	free(idx);
	free(want);
	bench_release(&be);
	return ret;
}

/* The change of row i in col, relative; NAN when either end failed. */
static double change_of(const struct impact_col *col, int i)
{
	return (col->to[i] - col->from[i]) / col->from[i];
}

/* How much worse, in percent: positive is worse, whatever the direction
 * (bisect_worse()). */
static double worse_pct(const struct impact_col *col, int i)
{
	struct bisect_params p = { .lower_better = col->lower_better };
	double c = change_of(col, i);

	return 100 * fabs(c) * (bisect_worse(&p, c) ? 1 : -1);
}

/* The table as a report (command "impact"): a change per culprit (its
 * state number and subject; the figures of the first benchmark), a column
 * per benchmark. */
static void fill_report(struct cmd_ctx *x, const struct impact_row *row, int nrow,
			const struct impact_col *col, int ncol, int good, int bad, struct report *r)
{
	int i, k;

	cmd_report_init(x, NULL, r, "impact", good, bad);
	report_setf(r, REPORT_VERDICT, "%d culprit%s weighed on %d benchmark%s, each against its parent",
		    nrow, nrow == 1 ? "" : "s", ncol, ncol == 1 ? "" : "s");
	report_set(r, REPORT_BENCH, "impact: each culprit on every benchmark");
	report_setf(r, REPORT_PLOT, "%s/impact.png", x->conf.plot_dir);
	for (k = 0; k < ncol; k++)
		report_add_bench(r, col[k].name, col[k].unit, col[k].lower_better);
	for (i = 0; i < nrow; i++) {
		const struct tree_state *s = &x->range.state[row[i].state];
		char num[16];

		snprintf(num, sizeof(num), "%d", s->index);
		report_add_change(r, num, s->subject, col[0].from[i], col[0].to[i], change_of(&col[0], i));
		for (k = 0; k < ncol; k++)
			report_set_impact(r, i, k, change_of(&col[k], i), col[k].overlap[i]);
	}
}

/* Grouped bars of how much worse each culprit makes each benchmark (red:
 * worse).  0 or -1. */
static int draw(struct cmd_ctx *x, const struct impact_row *row, int nrow,
		const struct impact_col *col, int ncol)
{
	char **label = xcalloc((size_t)(nrow * ncol), sizeof(char *));
	double *v = xcalloc((size_t)(nrow * ncol), sizeof(double));
	int i, k, n = 0, ret;

	for (i = 0; i < nrow; i++)
		for (k = 0; k < ncol; k++) {
			if (isnan(change_of(&col[k], i)))
				continue;
			label[n] = xasprintf("state %d, %s", x->range.state[row[i].state].index,
					     col[k].name);
			v[n++] = worse_pct(&col[k], i);
		}
	ret = plot_bars(x->conf.plot_dir, "impact",
			"What each culprit does to each benchmark (red: worse, blue: better)",
			"% worse (a drop where higher is better, a rise where lower is)",
			(const char *const *)label, v, n);
	for (i = 0; i < n; i++)
		free(label[i]);
	free(label);
	free(v);
	return ret;
}

int cmd_impact(struct cmd_ctx *x, int argc, char **argv)
{
	struct impact_args a;
	struct impact_row *row = NULL;
	struct impact_col *col = NULL;
	struct report rep;
	struct sbuf sb;
	int good, bad, nrow, ncol = 0, k, ret = EXIT_ERROR;

	if (parse_args(argc, argv, &a) < 0 || (ncol = parse_benches(a.benches, &col)) < 0)
		return EXIT_ERROR;
	if (cmd_range_or_all(x, a.npos, a.pos, &good, &bad) < 0) {
		ret = cmd_failed(x);
		goto out;
	}
	if ((nrow = find_rows(x, &a, good, bad, &row)) < 0)
		goto out;
	if (!nrow) {
		printf("impact: no culprit between %d and %d: nothing to weigh\n",
		       x->range.state[good].index, x->range.state[bad].index);
		ret = EXIT_NO_REGRESSION;
		goto out;
	}
	for (k = 0; k < ncol; k++)
		if (measure_col(x, &col[k], row, nrow) < 0)
			goto out;
	fill_report(x, row, nrow, col, ncol, good, bad, &rep);
	sbuf_init(&sb);
	report_format_impact(&rep, a.markdown, &sb);
	printf("\nimpact of each culprit, measured against its parent:\n%s", sb.buf);
	sbuf_release(&sb);
	if (draw(x, row, nrow, col, ncol) == 0)
		printf("\nplot: %s/impact.png\n", x->conf.plot_dir);
	cmd_report_save(x, NULL, &rep);
	ret = EXIT_OK;
out:
	for (k = 0; k < ncol; k++) {
		free(col[k].name);
		free(col[k].unit);
		free(col[k].from);
		free(col[k].to);
		free(col[k].overlap);
	}
	free(col);
	free(row);
	return cmd_exit(ret);
}
