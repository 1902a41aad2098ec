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

/* The engine's answer as the report's verdict and numbers; culprit and
 * subject name it (a label, or a commit id in TREE mode).  0, or -1 when
 * there is nothing to report (the search stopped). */
static int report_result(struct report *r, const struct bisect_result *res, const char *culprit,
			 const char *subject)
{
	switch (res->status) {
	case BISECT_FOUND:
	case BISECT_AMBIGUOUS:
		report_setf(r, REPORT_VERDICT, "%+.2f%% throughput regression%s", 100 * res->change,
			    res->status == BISECT_AMBIGUOUS ? ", the culprit among skipped states" : "");
		report_set(r, REPORT_CULPRIT, culprit);
		report_set(r, REPORT_SUBJECT, subject);
		report_add_change(r, culprit, subject, res->parent_v, res->culprit_v, res->change);
		break;
	case BISECT_NO_DIFF:
		report_setf(r, REPORT_VERDICT, "no regression: GOOD %.3f MB/s, BAD %.3f MB/s (%+.2f%%, "
			    "within the threshold)", res->good_v, res->bad_v, 100 * res->change);
		break;
	case BISECT_NOT_SLOWER:
		report_setf(r, REPORT_VERDICT, "no regression: BAD is faster than GOOD by %+.2f%%",
			    100 * res->change);
		break;
	case BISECT_ENDPOINT_FAILED:
		report_set(r, REPORT_VERDICT, "cannot bisect: an end cannot be built or booted");
		break;
	default:
		return -1;
	}
	report_set(r, REPORT_CONFIDENCE, res->confidence);
	return 0;
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

/* The report of a TREE bisect: the engine's last level, the merges. */
static void report_git(struct cmd_ctx *x, struct git_search *gs, const struct hist_result *h,
		       struct report *rep)
{
	int i;

	report_set(rep, REPORT_MODE, bench_mode(&gs->be));
	if (report_result(rep, &h->last, h->culprit.id, h->culprit.subject ? h->culprit.subject : "") < 0) {
		report_release(rep);
		return;
	}
	if (h->status == HIST_AMBIGUOUS) {
		struct sbuf sb;

		sbuf_init(&sb);
		sbuf_addstr(&sb, "only skipped commits are left; the first bad commit is one of");
		for (i = 0; i < h->ncand; i++)
			sbuf_addf(&sb, " %.12s", h->cand[i]);
		report_set(rep, REPORT_VERDICT, sb.buf);
		sbuf_release(&sb);
	}
	for (i = 0; i < h->depth; i++) {
		char *v = xasprintf("%s; found inside merge %.12s", rep->f[REPORT_VERDICT], h->merge[i]);

		report_set(rep, REPORT_VERDICT, v);
		free(v);
	}
	cmd_report_save(x, &gs->be, rep);
}

static int bisect_git(struct cmd_ctx *x, int argc, char **argv)
{
	struct git_search gs = { .x = x };
	struct hist_result r;
	struct report rep;
	char good[41], bad[41];
	int g, b, ret;

	if (cmd_range(x, argc, argv, &g, &b) < 0)
		return EXIT_ERROR;
	memcpy(good, x->tree.state[g].commit, 41);
	memcpy(bad, x->tree.state[b].commit, 41);
	cmd_report_init(x, NULL, &rep, "bisect", g, b);
	printf("range: GOOD %s .. BAD %s in %s\n", good, bad, x->tree.user);
	if (hist_bisect(&(struct hist_ops){ gs_list, gs_merge_base, gs_bisect }, &gs, good, bad,
			&r) < 0) {
		gs_drop_bench(&gs);
		report_release(&rep);
		return cmd_exit(EXIT_ERROR);
	}
	print_git_result(&r);
	if (gs.have_be)
		report_git(x, &gs, &r, &rep);
	else
		report_release(&rep);
	if (gs.have_be) {
		struct bisect_result *l = &r.last;
		struct bisect_change c = { l->culprit, l->parent, 0, 0, l->change, 0, 0 };

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
	struct report rep;
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
	cmd_report_init(x, &be, &rep, "bisect", good, bad);
	if (report_result(&rep, &res, res.culprit >= 0 ? bench_label(&be, res.culprit) : "",
			  res.culprit >= 0 ? x->tree.state[res.culprit].subject : "") == 0)
		cmd_report_save(x, &be, &rep);
	else
		report_release(&rep);
	if (res.status != BISECT_ABORTED) {
		struct bisect_change c = { res.culprit, res.parent, 0, 0, res.change, 0, 0 };

		cmd_draw(x, &be, good, bad, &c, res.culprit >= 0 ? 1 : 0);
	}
	bisect_result_release(&res);
	bisect_release(&b);
	bench_release(&be);
	return cmd_exit(bisect_exit(res.status));
}

/* Finds and prints every change in good..bad; b is initialised here and
 * released by the caller either way.  0 or -1. */
/* The list culprits prints: every change above the floor, the ones not
 * above the threshold marked small. */
static void print_changes(struct cmd_ctx *x, struct bench *be, const struct bisect *b, int good,
			  int bad)
{
	double floor = bisect_floor(b);
	char small[64] = "";
	int i;

	if (floor < b->p.threshold)
		snprintf(small, sizeof(small), "; 'small': not above the %.2f%% threshold",
			 100 * b->p.threshold);
	printf("changes above %.2f%% between %s and %s (%s%s):\n", 100 * floor, bench_label(be, good),
	       bench_label(be, bad), bench_mode(be), small);
	if (!b->nchg)
		printf("  none\n");
	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];

		printf("  %-11s state %-3d %+7.2f%%  %.3f -> %.3f MB/s  %s%s%s\n",
		       c->change < 0 ? "regression" : "improvement", c->state, 100 * c->change, c->from,
		       c->to, x->tree.state[c->state].subject, c->small ? "  (small)" : "",
		       c->state - c->parent > 1 ? "  (among skipped states)" : "");
	}
}

static int run_culprits(struct cmd_ctx *x, struct bench *be, struct bisect *b, int good, int bad)
{
	struct bisect_params p;

	bench_params(&x->conf, &p);
	bisect_init(b, &bench_ops, be, x->tree.n, &p);
	info("culprits: searching %d..%d, grid step %d, threshold %.2f%%, listing from %.2f%%, mode %s",
	     good, bad, p.step, 100 * p.threshold, 100 * bisect_floor(b), bench_mode(be));
	if (bisect_culprits(b, good, bad) < 0)
		return -1;
	print_changes(x, be, b, good, bad);
	return 0;
}

/* The report of culprits: every change, the first regression named. */
static void report_culprits(struct cmd_ctx *x, struct bench *be, const struct bisect *b, int good,
			    int bad, struct report *rep)
{
	int i, nreg = 0, nsmall = 0;

	cmd_report_init(x, be, rep, "culprits", good, bad);
	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];
		const char *id = x->tree.user ? x->tree.state[c->state].commit : bench_label(be, c->state);

		report_add_change(rep, id, x->tree.state[c->state].subject, c->from, c->to, c->change);
		if (c->change < 0 && !c->small && !nreg++) {
			report_set(rep, REPORT_CULPRIT, id);
			report_set(rep, REPORT_SUBJECT, x->tree.state[c->state].subject);
		}
		nsmall += c->small;
	}
	if (nsmall)
		report_setf(rep, REPORT_VERDICT, "%d changes above %.2f%%: %d regressions above the "
			    "%.2f%% threshold, %d small changes below it", b->nchg,
			    100 * bisect_floor(b), nreg, 100 * b->p.threshold, nsmall);
	else
		report_setf(rep, REPORT_VERDICT, "%d changes above %.2f%%, %d of them regressions",
			    b->nchg, 100 * b->p.threshold, nreg);
	cmd_report_cost(rep, be);	/* be is gone when the report is saved */
}

/* TREE mode: a regression at a merge of the first-parent line is searched
 * for inside the merged branch, as bisect does.  The merges' commits were
 * copied out first: the descent makes each level the tree's states. */
static int culprits_descend(struct cmd_ctx *x, char (*pair)[2][41], int n, struct report *rep)
{
	struct git_search gs = { .x = x };
	int i, ret = 0;

	for (i = 0; i < n && !util_interrupted; i++) {
		struct hist_result r;

		printf("\nmerge %.12s: searching its branch for the first bad commit\n", pair[i][1]);
		if (hist_bisect(&(struct hist_ops){ gs_list, gs_merge_base, gs_bisect }, &gs,
				pair[i][0], pair[i][1], &r) < 0) {
			ret = -1;
			break;
		}
		print_git_result(&r);
		if (r.status == HIST_FOUND)
			report_add_change(rep, r.culprit.id, r.culprit.subject, r.last.parent_v,
					  r.last.culprit_v, r.last.change);
		hist_result_release(&r);
	}
	gs_drop_bench(&gs);
	if (n)
		printf("descent: %d merges, %d levels, %d kernel builds, %d cached kernels reused, "
		       "%d VM runs\n", n, gs.levels, gs.builds, gs.cached, gs.runs);
	return ret;
}

int cmd_culprits(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	char (*pair)[2][41] = NULL;
	struct report rep;
	int good, bad, i, npair = 0, ret = EXIT_OK;

	/* Default: the whole series, so the fix is found with the regression. */
	if (cmd_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	if (run_culprits(x, &be, &b, good, bad) < 0)
		ret = EXIT_ERROR;
	else
		cmd_draw(x, &be, good, bad, b.chg, b.nchg);
	bench_summary(&be, stdout);
	pair = xcalloc((size_t)b.nchg + 1, sizeof(*pair));
	for (i = 0; ret == EXIT_OK && x->tree.user && i < b.nchg; i++) {
		const struct bisect_change *c = &b.chg[i];

		/* Like bisect, it descends for regressions above the threshold. */
		if (!x->tree.state[c->state].merge || c->small)
			continue;
		if (c->change > 0) {
			printf("merge %s improved throughput: bisect looks for regressions and does not "
			       "descend into it\n", bench_label(&be, c->state));
			continue;
		}
		memcpy(pair[npair][0], x->tree.state[c->parent].commit, 41);
		memcpy(pair[npair++][1], x->tree.state[c->state].commit, 41);
	}
	if (ret == EXIT_OK)
		report_culprits(x, &be, &b, good, bad, &rep);
	bisect_release(&b);
	bench_release(&be);
	if (ret == EXIT_OK) {
		if (culprits_descend(x, pair, npair, &rep) < 0) {
			ret = EXIT_ERROR;
			report_release(&rep);
		} else {
			cmd_report_save(x, NULL, &rep);
		}
	}
	free(pair);
	return cmd_exit(ret);
}

/* attribute: BAD with each suspect backed out.  A suspect is a state whose
 * patch (or commit) is reverted, or in TREE mode any commit BAD contains,
 * e.g. one inside a merged branch; its target is the bench target of the
 * reverted tree. */
struct suspect {
	int state;		/* state index, -1: a commit off the states' line */
	char commit[41];
	char *subject;		/* owned */
	char name[16];		/* state number or short hash, for the table */
	int target;		/* bench target, -1 when the revert does not apply */
};

struct attribution {
	struct suspect *s;
	int n;
	int good, bad;
	int git;		/* TREE mode: suspects named by short hash */
};

static void add_suspect(struct attribution *a, int state, const char *commit, const char *subject)
{
	struct suspect *s;
	int i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->s[i].commit, commit))
			return;		/* listed before */
	a->s = xrealloc(a->s, (size_t)(a->n + 1) * sizeof(*a->s));
	s = &a->s[a->n++];
	s->state = state;
	memcpy(s->commit, commit, 41);
	s->subject = xstrdup(subject);
	if (state >= 0 && !a->git)
		snprintf(s->name, sizeof(s->name), "%d", state);
	else
		snprintf(s->name, sizeof(s->name), "%.12s", commit);
	s->target = -1;
}

static void add_state(struct cmd_ctx *x, struct attribution *a, int state)
{
	add_suspect(a, state, x->tree.state[state].commit, x->tree.state[state].subject);
}

/* A --revert in TREE mode: any revision BAD contains.  0 or -1. */
static int add_git_revert(struct cmd_ctx *x, struct attribution *a, const char *rev)
{
	const char *bad = x->tree.state[a->bad].commit;
	char id[41], *subject;
	int i, anc;

	if (tree_git_resolve(&x->tree, rev, id) < 0)
		return -1;
	for (i = 0; i < x->tree.n; i++)
		if (!strcmp(x->tree.state[i].commit, id)) {
			add_state(x, a, i);
			return 0;
		}
	if ((anc = tree_git_is_ancestor(&x->tree, id, bad)) <= 0)
		return anc < 0 ? -1 : error("attribute: %s (%.12s) is not in BAD %.12s: nothing to revert",
					    rev, id, bad);
	subject = tree_git_subject(&x->tree, id);
	add_suspect(a, -1, id, subject);
	free(subject);
	return 0;
}

/* Positional GOOD BAD, and --revert STATE for extra suspects, resolved
 * against the tree.  Range into a->good/bad; suspects named with --revert
 * into *named (released by the caller with attribution_release).  0 or -1
 * (reported). */
static int attribute_args(struct cmd_ctx *x, int argc, char **argv, struct attribution *a,
			  struct attribution *named)
{
	char **range = xcalloc((size_t)argc + 1, sizeof(char *));
	char **revert = xcalloc((size_t)argc + 1, sizeof(char *));
	int i, s, nrange = 0, nrevert = 0, ret = 0;

	for (i = 0; i < argc && !ret; i++) {
		if (strcmp(argv[i], "--revert"))
			range[nrange++] = argv[i];
		else if (++i == argc)
			ret = error("attribute: --revert needs a state");
		else
			revert[nrevert++] = argv[i];
	}
	a->git = named->git = x->tree.user != NULL;
	/* The range first: in TREE mode it decides what the states are. */
	if (!ret)
		ret = cmd_range(x, nrange, range, &a->good, &a->bad);
	named->bad = a->bad;
	for (i = 0; i < nrevert && !ret; i++) {
		if (x->tree.user)
			ret = add_git_revert(x, named, revert[i]);
		else if ((s = cmd_resolve(x, revert[i])) < 0)
			ret = -1;
		else
			add_state(x, named, s);
	}
	free(revert);
	free(range);
	return ret;
}

static void attribution_release(struct attribution *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		free(a->s[i].subject);
	free(a->s);
	a->s = NULL;
	a->n = 0;
}

/* Makes the reverted tree of each suspect a bench target and runs them all
 * (side by side where the mode allows).  0 or -1. */
static int attribute_measure(struct cmd_ctx *x, struct bench *be, struct attribution *a)
{
	int *idx = xcalloc((size_t)a->n + 1, sizeof(int)), *want = xcalloc((size_t)a->n + 1, sizeof(int));
	const struct tree_state *bad = &x->tree.state[a->bad];
	int i, nt = 0, ret = -1;

	for (i = 0; i < a->n; i++) {
		struct suspect *s = &a->s[i];
		char commit[41], treeid[41], *name, *subj;
		int r;

		/* Base, later states, states whose patch did not apply: nothing to back out. */
		r = s->state > a->bad || s->state == 0 || bad->broken ||
				    (s->state > 0 && x->tree.state[s->state].broken)
			    ? 1 : tree_revert(&x->tree, bad->commit, s->commit, commit, treeid);
		if (r < 0)
			goto out;
		if (r == 1)
			continue;
		name = xasprintf("%d-minus-%s", a->bad, s->name);
		subj = xasprintf("state %d with '%s' reverted", a->bad, s->subject);
		s->target = bench_add_target(be, commit, treeid, name, subj);
		idx[nt] = s->target;
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

	printf("  %-12s %-12s %-10s %s\n", x->tree.user ? "commit" : "state", "reverted", "recovered",
	       "subject");
	for (i = 0; i < a->n; i++) {
		const struct suspect *s = &a->s[i];
		const char *subject = s->subject;
		const double *v;
		char pct[32];
		int n;

		if (s->target < 0) {
			printf("  %-12s %-12s %-10s %s\n", s->name, "no-revert", "-", subject);
			continue;
		}
		/* Fills in runs that failed above (bounded by max_fail). */
		n = bench_gather(be, s->target, &v);
		if (n < 0)
			return -1;
		if (n == 0) {
			printf("  %-12s %-12s %-10s %s\n", s->name, "failed", "-", subject);
			continue;
		}
		snprintf(pct, sizeof(pct), "%+.2f%%", 100 * (stats_median(v, n) - bad_v) / bad_v);
		printf("  %-12s %-12.3f %-10s %s\n", s->name, stats_median(v, n), pct, subject);
	}
	return 0;
}

int cmd_attribute(struct cmd_ctx *x, int argc, char **argv)
{
	struct attribution a = { 0 }, named = { 0 };
	struct bench be;
	struct bisect b;
	int i, ret = EXIT_ERROR;
	double bad_v;

	if (attribute_args(x, argc, argv, &a, &named) < 0)
		goto out_args;
	if (bench_init(&be, &x->conf, &x->tree) < 0)
		goto out_args;
	if (run_culprits(x, &be, &b, a.good, a.bad) < 0)
		goto out;
	/* Culprits found first, then the named suspects not among them. */
	for (i = 0; i < b.nchg; i++)
		add_state(x, &a, b.chg[i].state);
	for (i = 0; i < named.n; i++)
		add_suspect(&a, named.s[i].state, named.s[i].commit, named.s[i].subject);
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
	attribution_release(&named);
	attribution_release(&a);
	return cmd_exit(ret);
}
