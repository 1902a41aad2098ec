/* The commands that search a range: bisect, culprits, attribute. */
#include "cmd.h"
#include "stats.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int already_measured(struct bench *be, int good, int bad)
{
	int i, total = 0;

	for (i = good; i <= bad; i++) {
		const double *v;
		int nf, n = bench_samples(be, i, &v, &nf);

		total += n + nf;
	}
	return total;
}

static int bisect_exit(enum bisect_status st)
{
	switch (st) {
	case BISECT_FOUND: return EXIT_OK;
	case BISECT_AMBIGUOUS: return EXIT_AMBIGUOUS;
	case BISECT_NO_DIFF:
	case BISECT_NOT_SLOWER: return EXIT_NO_REGRESSION;
	default: return EXIT_ERROR;
	}
}

/* TREE mode: one engine run per level of hist_bisect(), the last level's
 * bench kept for the plot. */
struct git_search {
	struct cmd_ctx *x;
	struct bench be;
	int have_be;
	int builds, cached, runs, levels;
};

static int gs_list(void *ctx, const char *good, const char *bad, struct hist_level *lv)
{
	return tree_git_log(&((struct git_search *)ctx)->x->tree, good, bad, lv);
}

static int gs_merge_base(void *ctx, const char *a, const char *b, char *out)
{
	return tree_git_merge_base(&((struct git_search *)ctx)->x->tree, a, b, out);
}

static void gs_drop_bench(struct git_search *gs)
{
	if (!gs->have_be)
		return;
	gs->builds += gs->be.builds;
	gs->cached += gs->be.cached_builds;
	gs->runs += gs->be.runs;
	bench_release(&gs->be);
	gs->have_be = 0;
}

static int gs_bisect(void *ctx, const struct hist_level *lv, int depth, struct bisect_result *res)
{
	struct git_search *gs = ctx;
	struct bisect_params p;
	struct bisect b;
	int prior;

	gs_drop_bench(gs);
	tree_use_level(&gs->x->tree, lv);
	if (bench_init(&gs->be, &gs->x->conf, &gs->x->tree) < 0)
		return -1;
	gs->have_be = 1;
	gs->levels++;
	if (depth)
		info("bisect: level %d, inside the merge's branch: %d commits %.12s..%.12s", depth,
		     lv->n, lv->c[0].id, lv->c[lv->n - 1].id);
	else
		info("bisect: level 0, the first-parent line: %d commits %.12s..%.12s, mode %s",
		     lv->n, lv->c[0].id, lv->c[lv->n - 1].id, bench_mode(&gs->be));
	prior = already_measured(&gs->be, 0, lv->n - 1);
	if (prior)
		info("resumed: %d runs of this level are already recorded and will be reused", prior);
	bench_params(&gs->x->conf, &p);
	bisect_init(&b, &bench_ops, &gs->be, lv->n, &p);
	bisect_run(&b, 0, lv->n - 1, res);
	printf("level %d: %s .. %s\n", depth, bench_label(&gs->be, 0),
	       bench_label(&gs->be, lv->n - 1));
	bisect_print(&b, res, stdout);
	bisect_release(&b);
	return res->status == BISECT_ABORTED ? -1 : 0;
}

static int hist_exit(enum hist_status st)
{
	switch (st) {
	case HIST_FOUND:
	case HIST_MERGE: return EXIT_OK;
	case HIST_AMBIGUOUS: return EXIT_AMBIGUOUS;
	case HIST_NO_DIFF:
	case HIST_NOT_SLOWER: return EXIT_NO_REGRESSION;
	default: return EXIT_ERROR;
	}
}

static void print_git_result(const struct hist_result *r)
{
	int i;

	for (i = 0; i < r->depth; i++)
		printf("merge: level %d descended into %s\n", i, r->merge[i]);
	switch (r->status) {
	case HIST_FOUND:
	case HIST_MERGE:
		printf("first bad commit: %s %s\n", r->culprit.id, r->culprit.subject);
		if (r->status == HIST_MERGE)
			printf("the merge itself: its branch alone is not slower than where it forked\n");
		break;
	case HIST_AMBIGUOUS:
		printf("only skipped commits are left; the first bad commit could be any of:\n");
		for (i = 0; i < r->ncand; i++)
			printf("%s\n", r->cand[i]);
		break;
	default:
		break;
	}
}

static int bisect_git(struct cmd_ctx *x, int argc, char **argv)
{
	struct git_search gs = { .x = x };
	struct hist_result r;
	char good[41], bad[41];
	int g, b, ret;

	if (cmd_range(x, argc, argv, &g, &b) < 0)
		return EXIT_ERROR;
	memcpy(good, x->tree.state[g].commit, 41);
	memcpy(bad, x->tree.state[b].commit, 41);
	printf("range: GOOD %s .. BAD %s in %s\n", good, bad, x->tree.user);
	if (hist_bisect(&(struct hist_ops){ gs_list, gs_merge_base, gs_bisect }, &gs, good, bad,
			&r) < 0) {
		gs_drop_bench(&gs);
		return cmd_exit(EXIT_ERROR);
	}
	print_git_result(&r);
	if (gs.have_be) {
		struct bisect_result *l = &r.last;
		struct bisect_change c = { l->culprit, l->parent, 0, 0, l->change, 0 };

		if (r.status != HIST_ABORTED && r.status != HIST_MERGE)
			cmd_draw(x, &gs.be, 0, x->tree.n - 1, &c, l->culprit >= 0 ? 1 : 0);
		bench_summary(&gs.be, stdout);
	}
	gs_drop_bench(&gs);
	printf("total: %d levels, %d kernel builds, %d cached kernels reused, %d VM runs\n",
	       gs.levels, gs.builds, gs.cached, gs.runs);
	ret = hist_exit(r.status);
	hist_result_release(&r);
	return cmd_exit(ret);
}

int cmd_bisect(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	struct bisect_params p;
	struct bisect_result res;
	int good, bad, prior;

	if (x->tree.user)
		return bisect_git(x, argc, argv);
	if (cmd_range(x, argc, argv, &good, &bad) < 0 || bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	bench_params(&x->conf, &p);
	bisect_init(&b, &bench_ops, &be, x->tree.n, &p);
	prior = already_measured(&be, good, bad);
	if (prior)
		info("resumed: %d runs of states %d..%d are already recorded and will be reused",
		     prior, good, bad);
	info("bisect: GOOD %s, BAD %s, %d states, mode %s", bench_label(&be, good),
	     bench_label(&be, bad), bad - good + 1, bench_mode(&be));
	bisect_run(&b, good, bad, &res);
	printf("range: GOOD %s .. BAD %s\n", bench_label(&be, good), bench_label(&be, bad));
	printf("mode: %s\n", bench_mode(&be));
	bisect_print(&b, &res, stdout);
	if (res.status == BISECT_FOUND || res.status == BISECT_AMBIGUOUS)
		printf("culprit subject: %s\n", x->tree.state[res.culprit].subject);
	bench_summary(&be, stdout);
	if (res.status != BISECT_ABORTED) {
		struct bisect_change c = { res.culprit, res.parent, 0, 0, res.change, 0 };

		cmd_draw(x, &be, good, bad, &c, res.culprit >= 0 ? 1 : 0);
	}
	bisect_result_release(&res);
	bisect_release(&b);
	bench_release(&be);
	return cmd_exit(bisect_exit(res.status));
}

/* Finds and prints every change in good..bad; b is initialised here and
 * released by the caller either way.  0 or -1. */
static int run_culprits(struct cmd_ctx *x, struct bench *be, struct bisect *b, int good, int bad)
{
	struct bisect_params p;
	int i;

	bench_params(&x->conf, &p);
	bisect_init(b, &bench_ops, be, x->tree.n, &p);
	info("culprits: searching %d..%d, grid step %d, threshold %.2f%%, mode %s", good, bad,
	     p.step, 100 * p.threshold, bench_mode(be));
	if (bisect_culprits(b, good, bad) < 0)
		return -1;
	printf("changes above %.2f%% between %s and %s (%s):\n", 100 * p.threshold,
	       bench_label(be, good), bench_label(be, bad), bench_mode(be));
	if (!b->nchg)
		printf("  none\n");
	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];

		printf("  %-11s state %-3d %+7.2f%%  %.3f -> %.3f MB/s  %s%s\n",
		       c->change < 0 ? "regression" : "improvement", c->state, 100 * c->change, c->from,
		       c->to, x->tree.state[c->state].subject,
		       c->state - c->parent > 1 ? "  (among skipped states)" : "");
	}
	return 0;
}

int cmd_culprits(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	int good, bad, ret = EXIT_OK;

	/* Default: the whole series, so the fix is found with the regression. */
	if (cmd_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	if (run_culprits(x, &be, &b, good, bad) < 0)
		ret = EXIT_ERROR;
	else
		cmd_draw(x, &be, good, bad, b.chg, b.nchg);
	bench_summary(&be, stdout);
	bisect_release(&b);
	bench_release(&be);
	return cmd_exit(ret);
}

/* attribute: BAD with each suspect backed out.  A suspect is a state whose
 * patch is reverted; its target is the bench target of the reverted tree. */
struct suspect {
	int state;
	int target;		/* bench target, -1 when the revert does not apply */
};

struct attribution {
	struct suspect *s;
	int n;
	int good, bad;
};

static void add_suspect(struct attribution *a, int state)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->s[i].state == state)
			return;		/* listed before */
	a->s = xrealloc(a->s, (size_t)(a->n + 1) * sizeof(*a->s));
	a->s[a->n++] = (struct suspect){ state, -1 };
}

/* Positional GOOD BAD, and --revert STATE for extra suspects, resolved
 * against the tree.  Range into a->good/bad; suspects named with --revert
 * into *named (caller frees).  0 or -1 (reported). */
static int attribute_args(struct cmd_ctx *x, int argc, char **argv, struct attribution *a,
			  int **named, int *nnamed)
{
	char **range = xcalloc((size_t)argc + 1, sizeof(char *));
	char **revert = xcalloc((size_t)argc + 1, sizeof(char *));
	int i, nrange = 0, nrevert = 0, ret = 0;

	*named = xcalloc((size_t)argc + 1, sizeof(int));
	*nnamed = 0;
	for (i = 0; i < argc && !ret; i++) {
		if (strcmp(argv[i], "--revert"))
			range[nrange++] = argv[i];
		else if (++i == argc)
			ret = error("attribute: --revert needs a state");
		else
			revert[nrevert++] = argv[i];
	}
	/* The range first: in TREE mode it decides what the states are. */
	if (!ret)
		ret = cmd_range(x, nrange, range, &a->good, &a->bad);
	for (i = 0; i < nrevert && !ret; i++)
		if (((*named)[(*nnamed)++] = cmd_resolve(x, revert[i])) < 0)
			ret = -1;
	free(revert);
	free(range);
	return ret;
}

/* Makes the reverted tree of each suspect a bench target and runs them all
 * (side by side where the mode allows).  0 or -1. */
static int attribute_measure(struct cmd_ctx *x, struct bench *be, struct attribution *a)
{
	int *idx = xcalloc((size_t)a->n + 1, sizeof(int)), *want = xcalloc((size_t)a->n + 1, sizeof(int));
	int i, nt = 0, ret = -1;

	for (i = 0; i < a->n; i++) {
		char commit[41], treeid[41], *name, *subj;
		int c = a->s[i].state, r;

		r = c > a->bad ? 1 : tree_revert(&x->tree, a->bad, c, commit, treeid);
		if (r < 0)
			goto out;
		if (r == 1)
			continue;
		name = xasprintf("%d-minus-%d", a->bad, c);
		subj = xasprintf("state %d with '%s' reverted", a->bad, x->tree.state[c].subject);
		a->s[i].target = bench_add_target(be, commit, treeid, name, subj);
		idx[nt] = a->s[i].target;
		want[nt++] = x->conf.mode == MODE_ICOUNT ? 1 : (int)x->conf.runs_min;
		free(name);
		free(subj);
	}
	ret = bench_ensure_many(be, idx, want, nt);
out:
	free(idx);
	free(want);
	return ret;
}

/* One table row per suspect.  0 or -1 (aborted). */
static int attribute_print(struct cmd_ctx *x, struct bench *be, const struct attribution *a,
			   double bad_v)
{
	int i;

	printf("  %-6s %-12s %-10s %s\n", "state", "reverted", "recovered", "subject");
	for (i = 0; i < a->n; i++) {
		const struct suspect *s = &a->s[i];
		const char *subject = x->tree.state[s->state].subject;
		const double *v;
		char pct[32];
		int n;

		if (s->target < 0) {
			printf("  %-6d %-12s %-10s %s\n", s->state, "no-revert", "-", subject);
			continue;
		}
		/* Fills in runs that failed above (bounded by max_fail). */
		n = bench_gather(be, s->target, &v);
		if (n < 0)
			return -1;
		if (n == 0) {
			printf("  %-6d %-12s %-10s %s\n", s->state, "failed", "-", subject);
			continue;
		}
		snprintf(pct, sizeof(pct), "%+.2f%%", 100 * (stats_median(v, n) - bad_v) / bad_v);
		printf("  %-6d %-12.3f %-10s %s\n", s->state, stats_median(v, n), pct, subject);
	}
	return 0;
}

int cmd_attribute(struct cmd_ctx *x, int argc, char **argv)
{
	struct attribution a = { NULL, 0, 0, 0 };
	struct bench be;
	struct bisect b;
	int *named, nnamed, i, ret = EXIT_ERROR;
	double bad_v;

	if (attribute_args(x, argc, argv, &a, &named, &nnamed) < 0)
		goto out_args;
	if (bench_init(&be, &x->conf, &x->tree) < 0)
		goto out_args;
	if (run_culprits(x, &be, &b, a.good, a.bad) < 0)
		goto out;
	/* Culprits found first, then the named suspects not among them. */
	for (i = 0; i < b.nchg; i++)
		add_suspect(&a, b.chg[i].state);
	for (i = 0; i < nnamed; i++)
		add_suspect(&a, named[i]);
	bad_v = bisect_value(&b, a.bad);
	printf("\nattribution at BAD %s (%.3f MB/s), GOOD %s (%.3f MB/s): each suspect backed out (%s)\n",
	       bench_label(&be, a.bad), bad_v, bench_label(&be, a.good), bisect_value(&b, a.good),
	       bench_mode(&be));
	if (attribute_measure(x, &be, &a) == 0 && attribute_print(x, &be, &a, bad_v) == 0)
		ret = EXIT_OK;
out:
	bench_summary(&be, stdout);
	bisect_release(&b);
	bench_release(&be);
out_args:
	free(named);
	free(a.s);
	return cmd_exit(ret);
}
