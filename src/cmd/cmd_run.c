/* cmd_run: the commands that look at or measure states one by one. */
#include "changes.h"
#include "cmd.h"
#include "commands.h"
#include "bench_ops.h"
#include "bench_run.h"
#include "stats.h"
#include "store.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_prepare(struct cmd_ctx *x, int argc, char **argv)
{
	(void)x;
	(void)argc;
	(void)argv;
	return EXIT_OK;		/* main prepared the tree */
}

int cmd_config(struct cmd_ctx *x, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	conf_dump(&x->conf, stdout);
	return EXIT_OK;
}

int cmd_states(struct cmd_ctx *x, int argc, char **argv)
{
	int i, g, b;

	if (cmd_range_or_all(x, argc, argv, &g, &b) < 0)
		return cmd_failed(x);
	printf("index\tcommit\tkind\tname\tsubject\n");
	for (i = g; i <= b; i++) {
		const struct tree_state *s = &x->range.state[i];

		printf("%d\t%.12s\t%s\t%s\t%s\n", s->index, s->commit,
		       s->broken ? "noapply" : s->merge ? "merge" : "ok", s->name, s->subject);
	}
	return EXIT_OK;
}

/* Builds state s and prints one line: EXIT_OK, EXIT_SKIP or EXIT_ERROR. */
static int build_one(struct cmd_ctx *x, struct bench *be, int s)
{
	const struct tree_state *ts = &x->range.state[s];
	struct build_result res;
	int st;

	if (ts->broken) {
		warning("state %s: its patch does not apply", bench_label(be, s));
		return EXIT_SKIP;
	}
	st = bench_build(be, s, &res);
	if (st == BUILD_FAILED)
		printf("%d\tfailed\t%s\n", ts->index, res.errors);
	else if (st == BUILD_OK)
		printf("%d\t%s\t%s\t%.1f s\t%s\n", ts->index, res.cached ? "cached" : "built",
		       res.vmlinux, res.seconds, res.kernel_sha);
	build_result_release(&res);
	return st < 0 ? EXIT_ERROR : st == BUILD_FAILED ? EXIT_SKIP : EXIT_OK;
}

int cmd_build(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	int i, ret = EXIT_OK;

	if (cmd_list_states(x) < 0 || bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	for (i = 0; i < argc && ret != EXIT_ERROR; i++) {
		int s = cmd_resolve(x, argv[i]), r;

		r = s < 0 ? EXIT_ERROR : build_one(x, &be, s);
		if (r != EXIT_OK)
			ret = r;
	}
	bench_release(&be);
	return cmd_exit(ret);
}

/* One line per state measured: EXIT_OK, or EXIT_SKIP when it has no run. */
static int print_measured(struct cmd_ctx *x, struct bench *be, int s)
{
	const struct tree_state *ts = &x->range.state[s];
	const double *v;
	int nf, n = bench_samples(be, s, &v, &nf);

	if (n == 0) {
		printf("%d\t%s\tskip\t%d failed runs\t%s\n", ts->index, ts->name, nf, bench_mode(be));
		return EXIT_SKIP;
	}
	printf("%d\t%s\t%.3f %s\tmedian of %d (min %.3f, max %.3f)\t%s\n", ts->index, ts->name,
	       stats_median(v, n), bench_workload(be)->unit, n, stats_min(v, n), stats_max(v, n),
	       bench_mode(be));
	return EXIT_OK;
}

int cmd_measure(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	int i, runs = 1, ret = EXIT_OK, *st, *want;

	if (argc > 0 && !strcmp(argv[0], "-n")) {
		if (argc < 2)
			return error("-n needs a count"), EXIT_ERROR;
		if (cmd_parse_count("-n", argv[1], &runs) < 0)
			return EXIT_ERROR;
		argc -= 2;
		argv += 2;
	}
	if (argc < 1)
		return error("measure: name at least one state"), EXIT_ERROR;
	if (cmd_list_states(x) < 0 || bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	st = xcalloc((size_t)argc, sizeof(int));
	want = xcalloc((size_t)argc, sizeof(int));
	for (i = 0; i < argc && ret == EXIT_OK; i++) {
		const double *v;
		int nf;

		if ((st[i] = cmd_resolve(x, argv[i])) < 0)
			ret = EXIT_ERROR;
		else
			want[i] = bench_samples(&be, st[i], &v, &nf) + runs;
	}
	/* Every run first (side by side in icount mode), then the figures. */
	if (ret == EXIT_OK && bench_ensure_many(&be, st, want, argc) < 0)
		ret = EXIT_ERROR;
	for (i = 0; i < argc && ret != EXIT_ERROR; i++)
		if (print_measured(x, &be, st[i]) == EXIT_SKIP)
			ret = EXIT_SKIP;
	free(st);
	free(want);
	bench_summary(&be, stderr);
	bench_release(&be);
	return cmd_exit(ret);
}

int cmd_results(struct cmd_ctx *x, int argc, char **argv)
{
	struct store s;
	char *path;
	const char *fmt = "tsv";
	int ret;

	if (argc == 2 && !strcmp(argv[0], "--format"))
		fmt = argv[1];
	else if (argc >= 1)
		return error("results: unknown argument '%s' (results [--format tsv|csv|jsonl])",
			     argv[0]), EXIT_ERROR;
	path = xasprintf("%s/results.tsv", x->conf.workdir);
	store_init(&s, path);
	free(path);
	ret = store_load(&s) < 0 || store_export(&s, fmt, stdout) < 0 ? EXIT_ERROR : EXIT_OK;
	store_release(&s);
	return ret;
}

/* Adjacent measured states whose medians differ by more than the floor
 * culprits lists from (bisect_floor(): the threshold, or in icount mode
 * CULPRIT_FLOOR), those not above the threshold marked small, into *chg
 * (caller frees); their count.  With gaps, states with no runs between two
 * measured ones are passed over (a sweep, where only unusable states have
 * none). */
static int adjacent_changes(struct bisect *b, int good, int bad, int gaps,
			    struct bisect_change **chg)
{
	int n = 0, prev = -1, i;

	*chg = NULL;
	for (i = good; i <= bad; i++) {
		double v = bisect_value(b, i), pv, c;

		if (isnan(v))
			continue;
		if (prev >= 0 && (gaps || i - prev == 1)) {
			pv = bisect_value(b, prev);
			c = (v - pv) / pv;
			if (fabs(c) > bisect_floor(b)) {
				*chg = xrealloc(*chg, (size_t)(n + 1) * sizeof(**chg));
				(*chg)[n++] = (struct bisect_change){ i, prev, pv, v, c, 0,
								      fabs(c) <= b->p.threshold };
			}
		}
		prev = i;
	}
	return n;
}

int cmd_plot(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	struct bisect_params p;
	struct bisect_change *chg;
	int good, bad, nchg, ret;

	if (cmd_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	bench_params(&x->conf, &p);
	bisect_init(&b, &bench_ops, &be, x->range.n, &p);
	nchg = adjacent_changes(&b, good, bad, 0, &chg);
	switch (cmd_draw(x, &be, &x->range, good, bad, chg, nchg)) {
	case 0:
		ret = EXIT_OK;
		break;
	case 1:
		error("nothing is recorded for states %d..%d under this configuration "
			    "(benchmark, mode, guest): nothing to plot; measure them first "
			    "(tbisect sweep)", x->range.state[good].index, x->range.state[bad].index);
		ret = EXIT_ERROR;
		break;
	default:
		ret = EXIT_ERROR;
	}
	free(chg);
	bisect_release(&b);
	bench_release(&be);
	return ret;
}

/* The sweep's changes, printed and saved as the report. */
static void sweep_print(struct cmd_ctx *x, struct bench *be, const struct bisect *b, int good,
			int bad, const struct bisect_change *chg, int n)
{
	double floor = bisect_floor(b);
	char small[64], health[256];
	struct report r;
	int i;

	changes_small_note(b, small, sizeof(small));

	printf("changes above %.2f%% between adjacent measured states (%s%s):\n",
	       100 * floor, bench_mode(be), small);
	if (!n)
		printf("  none\n");
	cmd_report_init(x, be, &r, "sweep", good, bad);
	cmd_report_health(&r, be, good, bad);
	for (i = 0; i < n; i++) {
		const struct bisect_change *c = &chg[i];

		const struct tree_state *s = &x->range.state[c->state];
		char *id = cmd_state_id(s);

		changes_health_note(be, c->parent, c->state, health, sizeof(health));
		printf("  %-11s %-24s %+7.2f%%  %.3f -> %.3f %s  %s%s%s%s\n",
		       changes_word(&b->p, c->change), bench_label(be, c->state),
		       100 * c->change, c->from, c->to, bench_workload(be)->unit, s->subject, c->small ? "  (small)" : "",
		       c->state - c->parent > 1 ? "  (after skipped states)" : "", health);
		report_add_change(&r, id, s->subject, c->from, c->to, c->change)->small = c->small;
		free(id);
	}
	report_setf(&r, REPORT_VERDICT, "sweep of %d states: %d changes above %.2f%%%s", bad - good + 1,
		    n, 100 * floor, small);
	cmd_report_save(x, be, &r);
}

int cmd_sweep(struct cmd_ctx *x, int argc, char **argv)
{
	struct bisect_params p;
	struct bisect_change *chg = NULL;
	struct bisect b;
	struct bench be;
	int good, bad, i, n, nchg, *idx, *want, ret = EXIT_OK;

	if (cmd_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	n = bad - good + 1;
	idx = xcalloc((size_t)n, sizeof(int));
	want = xcalloc((size_t)n, sizeof(int));
	/* Every state; identical kernels share their runs (content keys). */
	for (i = 0; i < n; i++) {
		idx[i] = good + i;
		want[i] = bench_runs_wanted(&x->conf);
	}
	info("sweep: %d states %s..%s, %s", n, bench_label(&be, good), bench_label(&be, bad),
	     bench_mode(&be));
	if (bench_ensure_many(&be, idx, want, n) < 0) {
		ret = EXIT_ERROR;
		goto out;
	}
	bench_params(&x->conf, &p);
	bisect_init(&b, &bench_ops, &be, x->range.n, &p);
	nchg = adjacent_changes(&b, good, bad, 1, &chg);
	sweep_print(x, &be, &b, good, bad, chg, nchg);
	cmd_draw(x, &be, &x->range, good, bad, chg, nchg);
	bisect_release(&b);
	free(chg);
out:
	bench_summary(&be, stdout);
	free(idx);
	free(want);
	bench_release(&be);
	return cmd_exit(ret);
}
