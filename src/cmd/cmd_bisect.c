/* cmd_bisect: the commands that search a range: bisect, culprits, attribute. */
#include "cfgneed.h"
#include "changes.h"
#include "cmd.h"
#include "commands.h"
#include "bench_ops.h"
#include "bench_run.h"
#include "why.h"
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

/* The verdict of a bisect_run() in words. */
static void print_verdict(struct bisect *b, const struct bisect_result *res,
			  const struct workload *wl, FILE *f)
{
	const char *u = wl->unit;

	struct bisect_change *other;
	int i, n;

	fprintf(f, "rule: %s; threshold %.2f%%\n", bisect_rule(b), 100 * b->p.threshold);
	switch (res->status) {
	case BISECT_FOUND:
	case BISECT_AMBIGUOUS:
		if (res->status == BISECT_FOUND)
			fprintf(f, "first bad state: %s\n", b->ops->label(b->ctx, res->culprit));
		else
			fprintf(f, "first bad state is after %s, up to %s (states in between were "
				   "skipped)\n", b->ops->label(b->ctx, res->parent),
				b->ops->label(b->ctx, res->culprit));
		fprintf(f, "%s: %.3f %s at the culprit, %.3f %s at its parent %s: %+.2f%% (%s)\n",
			wl->metric, res->culprit_v, u, res->parent_v, u, b->ops->label(b->ctx, res->parent),
			100 * res->change, workload_direction(wl));
		fprintf(f, "confidence: %s\n", res->confidence);
		n = bisect_other_changes(b, res, &other);
		for (i = 0; i < n; i++)
			fprintf(f, "note: another change of %+.2f%%%s lies between %s and %s "
				   "(tbisect culprits lists every change)\n", 100 * other[i].change,
				other[i].small ? " (small)" : "", b->ops->label(b->ctx, other[i].parent),
				b->ops->label(b->ctx, other[i].state));
		free(other);
		break;
	case BISECT_NO_DIFF:
		fprintf(f, "no regression: GOOD %s %.3f %s and BAD %s %.3f %s differ by %+.2f%%, "
			   "within the threshold", b->ops->label(b->ctx, res->good), res->good_v, u,
			b->ops->label(b->ctx, res->bad), res->bad_v, u, 100 * res->change);
		if (res->mde > 0)
			fprintf(f, "; noise hides changes below %.2f%% at these run counts", 100 * res->mde);
		fputc('\n', f);
		break;
	case BISECT_NOT_SLOWER:
		fprintf(f, "BAD %s (%.3f %s) is better than GOOD %s (%.3f %s) by %+.2f%% (%s): "
			   "nothing to bisect (swap the ends to find the improvement, or run "
			   "'tbisect culprits')\n", b->ops->label(b->ctx, res->bad), res->bad_v, u,
			b->ops->label(b->ctx, res->good), res->good_v, u, 100 * res->change,
			workload_direction(wl));
		break;
	case BISECT_ENDPOINT_FAILED:
		fprintf(f, "cannot bisect: an endpoint (GOOD %s or BAD %s) cannot be built or booted\n",
			b->ops->label(b->ctx, res->good), b->ops->label(b->ctx, res->bad));
		break;
	case BISECT_ABORTED:
		fprintf(f, "bisection stopped before it finished; run the same command again to resume\n");
		break;
	}
	if (res->nskipped) {
		fprintf(f, "skipped states:");
		for (i = 0; i < res->nskipped; i++)
			fprintf(f, " %s", b->ops->label(b->ctx, res->skipped[i]));
		fputc('\n', f);
	}
	fprintf(f, "runs asked for: %d\n", res->runs);
}

/* One search through the history: one engine run per level of
 * hist_bisect(), each level a range of its own (the command's x->range is
 * not touched); the last level's bench and range kept for the plot. */
struct search {
	struct cmd_ctx *x;
	struct tree_range lv;	/* the level listed last */
	struct bench be;
	int have_be;
	int builds, cached, runs, levels;
};

static int search_list(void *ctx, const char *good, const char *bad, struct hist_level *lv)
{
	struct search *gs = ctx;
	int i;

	tree_range_release(&gs->lv);
	if (tree_list(&gs->x->tree, good, bad, &gs->lv) < 0)
		return -1;
	for (i = 0; i < gs->lv.n; i++) {
		const struct tree_state *s = &gs->lv.state[i];
		char *parents = s->merge ? xasprintf("p %s", s->parent2) : xstrdup("p");

		hist_level_add(lv, s->commit, s->treeid, parents, s->subject);
		free(parents);
	}
	return 0;
}

static int search_merge_base(void *ctx, const char *a, const char *b, char *out)
{
	return tree_merge_base(&((struct search *)ctx)->x->tree, a, b, out);
}

static void search_drop_bench(struct search *gs)
{
	struct bench_counts n;

	if (!gs->have_be)
		return;
	bench_counts(&gs->be, &n);
	gs->builds += n.builds;
	gs->cached += n.cached;
	gs->runs += n.runs;
	bench_release(&gs->be);
	gs->have_be = 0;
}

static int search_level(void *ctx, const struct hist_level *lv, int depth,
			struct bisect_result *res)
{
	struct search *gs = ctx;
	struct bisect_params p;
	struct bisect b;
	int prior;

	search_drop_bench(gs);
	if (lv->n != gs->lv.n)
		return error("bisect: level of %d commits, %d listed", lv->n, gs->lv.n);
	if (bench_init(&gs->be, &gs->x->conf, &gs->x->tree, &gs->lv) < 0)
		return -1;
	gs->have_be = 1;
	gs->levels++;
	if (depth)
		info("bisect: level %d, inside the merge's branch: %d commits %.12s..%.12s", depth,
		     lv->n, lv->c[0].id, lv->c[lv->n - 1].id);
	else
		info("bisect: GOOD %s, BAD %s, %d states, mode %s", bench_label(&gs->be, 0),
		     bench_label(&gs->be, lv->n - 1), lv->n, bench_mode(&gs->be));
	prior = already_measured(&gs->be, 0, lv->n - 1);
	if (prior)
		info("resumed: %d runs of these states are already recorded and will be reused",
		     prior);
	bench_params(&gs->x->conf, &p);
	bisect_init(&b, &bench_ops, &gs->be, lv->n, &p);
	bisect_run(&b, 0, lv->n - 1, res);
	printf("level %d: GOOD %s .. BAD %s\n", depth, bench_label(&gs->be, 0),
	       bench_label(&gs->be, lv->n - 1));
	print_verdict(&b, res, bench_workload(&gs->be), stdout);
	bisect_release(&b);
	return res->status == BISECT_ABORTED ? -1 : 0;
}

static void search_release(struct search *gs)
{
	search_drop_bench(gs);
	tree_range_release(&gs->lv);
}

/* Runs hist_bisect() from good to bad (commit ids): 0 with r filled, or -1. */
static int search_run(struct search *gs, const char *good, const char *bad, struct hist_result *r)
{
	return hist_bisect(&(struct hist_ops){ search_list, search_merge_base, search_level }, gs,
			   good, bad, r);
}

/* The engine's answer as the report's verdict and numbers; culprit and
 * subject name it.  0, or -1 when there is nothing to report (the search
 * stopped). */
static int report_result(struct report *r, const struct bisect_result *res, const char *culprit,
			 const char *subject, const struct workload *wl)
{
	switch (res->status) {
	case BISECT_FOUND:
	case BISECT_AMBIGUOUS:
		report_setf(r, REPORT_VERDICT, "%+.2f%% %s regression%s", 100 * res->change, wl->metric,
			    res->status == BISECT_AMBIGUOUS ? ", the culprit among skipped states" : "");
		report_set(r, REPORT_CULPRIT, culprit);
		report_set(r, REPORT_SUBJECT, subject);
		report_add_change(r, culprit, subject, res->parent_v, res->culprit_v, res->change);
		break;
	case BISECT_NO_DIFF:
		report_setf(r, REPORT_VERDICT, "no regression: GOOD %.3f %s, BAD %.3f %s (%+.2f%%, "
			    "within the threshold)", res->good_v, wl->unit, res->bad_v, wl->unit,
			    100 * res->change);
		break;
	case BISECT_NOT_SLOWER:
		report_setf(r, REPORT_VERDICT, "no regression: BAD is better than GOOD by %+.2f%% (%s)",
			    100 * res->change, workload_direction(wl));
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

static void print_result(const struct hist_result *r)
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

/* The state of the last level whose commit is id, or NULL. */
static const struct tree_state *level_state(const struct search *gs, const char *id)
{
	int i;

	for (i = 0; i < gs->lv.n; i++)
		if (!strcmp(gs->lv.state[i].commit, id))
			return &gs->lv.state[i];
	return NULL;
}

/* The report of a bisect: the engine's last level, the merges. */
static void report_search(struct cmd_ctx *x, struct search *gs, const struct hist_result *h,
			  struct report *rep)
{
	const struct tree_state *cs = level_state(gs, h->culprit.id);
	char *id = cs ? cmd_state_id(cs) : xstrdup(h->culprit.id);
	int i;

	cmd_report_bench(rep, &gs->be);
	if (report_result(rep, &h->last, id, h->culprit.subject ? h->culprit.subject : "",
			  bench_workload(&gs->be)) < 0) {
		free(id);
		report_release(rep);
		return;
	}
	free(id);
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

int cmd_bisect(struct cmd_ctx *x, int argc, char **argv)
{
	struct search gs = { .x = x };
	struct hist_result r;
	struct report rep;
	int g, b, ret, other_failed = 0;

	if (cmd_range(x, argc, argv, &g, &b) < 0)
		return cmd_failed(x);
	if (cfgneed_ready(&x->conf) < 0)
		return cmd_exit(EXIT_ERROR);
	cmd_report_init(x, NULL, &rep, "bisect", g, b);
	printf("range: GOOD %d (%s) .. BAD %d (%s) in %s\n", x->range.state[g].index,
	       x->range.state[g].name, x->range.state[b].index, x->range.state[b].name,
	       x->tree.source);
	if (search_run(&gs, x->range.state[g].commit, x->range.state[b].commit, &r) < 0) {
		search_release(&gs);
		report_release(&rep);
		return cmd_exit(EXIT_ERROR);
	}
	print_result(&r);
	if (gs.have_be) {
		const struct bisect_result *l = &r.last;
		struct bisect_change c = { l->culprit, l->parent, 0, 0, l->change, 0, 0 };

		if (l->culprit >= 0)
			printf("culprit subject: %s\n", gs.lv.state[l->culprit].subject);
		printf("mode: %s\n", bench_mode(&gs.be));
		if (r.status == HIST_FOUND || r.status == HIST_MERGE) {
			why_explain(&x->conf, &gs.be, l->parent, l->culprit, &rep);
			if (x->conf.other_config &&
			    cfgneed_check(&x->conf, &x->tree, &gs.lv, l->parent, l->culprit, &rep) < 0)
				other_failed = 1;
		}
		report_search(x, &gs, &r, &rep);
		if (r.status != HIST_ABORTED)
			cmd_draw(x, &gs.be, &gs.lv, 0, gs.lv.n - 1, &c, l->culprit >= 0 ? 1 : 0);
		bench_summary(&gs.be, stdout);
	} else {
		report_release(&rep);
	}
	search_release(&gs);
	if (gs.levels > 1)
		printf("total: %d levels, %d kernel builds, %d cached kernels reused, %d VM runs\n",
		       gs.levels, gs.builds, gs.cached, gs.runs);
	ret = other_failed ? EXIT_ERROR : hist_exit(r.status);
	hist_result_release(&r);
	return cmd_exit(ret);
}

/* The report of culprits: every change, the first regression named. */
static void report_culprits(struct cmd_ctx *x, struct bench *be, const struct bisect *b, int good,
			    int bad, struct report *rep)
{
	int i, nreg = 0, nsmall = 0;

	cmd_report_init(x, be, rep, "culprits", good, bad);
	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];
		const struct tree_state *s = &x->range.state[c->state];
		char *id = cmd_state_id(s);

		report_add_change(rep, id, s->subject, c->from, c->to, c->change)->small = c->small;
		if (c->change < 0 && !c->small && !nreg++) {
			report_set(rep, REPORT_CULPRIT, id);
			report_set(rep, REPORT_SUBJECT, s->subject);
		}
		nsmall += c->small;
		free(id);
	}
	if (nsmall)
		report_setf(rep, REPORT_VERDICT, "%d changes above %.2f%%: %d regressions above the "
			    "%.2f%% threshold, %d small changes below it", b->nchg,
			    100 * bisect_floor(b), nreg, 100 * b->p.threshold, nsmall);
	else
		report_setf(rep, REPORT_VERDICT, "%d changes above %.2f%%, %d of them regressions",
			    b->nchg, 100 * b->p.threshold, nreg);
	cmd_report_health(rep, be, good, bad);
	cmd_report_cost(rep, be);	/* be is gone when the report is saved */
}

/* Why each listed change: its profile against its parent; the report keeps
 * that of its culprit (the first regression above the threshold). */
static void why_changes(struct cmd_ctx *x, struct bench *be, const struct bisect *b,
			struct report *rep)
{
	int i, named = 0;

	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];
		int culprit = !named && c->change < 0 && !c->small;

		named |= culprit;
		why_explain(&x->conf, be, c->parent, c->state, culprit ? rep : NULL);
	}
}

/* A regression at a merge of the first-parent line is searched for inside
 * the merged branch, as bisect does; pair[k] = { parent, merge }. */
static int culprits_descend(struct cmd_ctx *x, char (*pair)[2][41], int n, struct report *rep)
{
	struct search gs = { .x = x };
	int i, ret = 0;

	for (i = 0; i < n && !util_interrupted; i++) {
		struct hist_result r;

		printf("\nmerge %.12s: searching its branch for the first bad commit\n", pair[i][1]);
		if (search_run(&gs, pair[i][0], pair[i][1], &r) < 0) {
			ret = -1;
			break;
		}
		print_result(&r);
		if (r.status == HIST_FOUND)
			report_add_change(rep, r.culprit.id, r.culprit.subject, r.last.parent_v,
					  r.last.culprit_v, r.last.change);
		hist_result_release(&r);
	}
	search_release(&gs);
	if (n)
		printf("descent: %d merges, %d levels, %d kernel builds, %d cached kernels reused, "
		       "%d VM runs\n", n, gs.levels, gs.builds, gs.cached, gs.runs);
	return ret;
}

/* The merges among the changes that bisect would descend into (regressions
 * above the threshold), as { parent, merge } pairs; their count. */
static int merges_to_search(struct cmd_ctx *x, struct bench *be, const struct bisect *b,
			    char (*pair)[2][41])
{
	int i, n = 0;

	for (i = 0; i < b->nchg; i++) {
		const struct bisect_change *c = &b->chg[i];

		if (!x->range.state[c->state].merge || c->small)
			continue;
		if (c->change > 0) {
			printf("merge %s improved throughput: bisect looks for regressions and does not "
			       "descend into it\n", bench_label(be, c->state));
			continue;
		}
		memcpy(pair[n][0], x->range.state[c->parent].commit, 41);
		memcpy(pair[n++][1], x->range.state[c->state].commit, 41);
	}
	return n;
}

int cmd_culprits(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	char (*pair)[2][41] = NULL;
	struct report rep;
	int good, bad, npair = 0, ret = EXIT_OK;

	/* Default: the whole range, so the fix is found with the regression. */
	if (cmd_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	if (changes_find(&x->conf, &x->range, &be, &b, good, bad) < 0)
		ret = EXIT_ERROR;
	else
		cmd_draw(x, &be, &x->range, good, bad, b.chg, b.nchg);
	bench_summary(&be, stdout);
	pair = xcalloc((size_t)b.nchg + 1, sizeof(*pair));
	if (ret == EXIT_OK) {
		npair = merges_to_search(x, &be, &b, pair);
		report_culprits(x, &be, &b, good, bad, &rep);
		why_changes(x, &be, &b, &rep);
	}
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

/* attribute: BAD with each suspect backed out.  A suspect is a listed
 * state, or any commit BAD contains (e.g. one inside a merged branch); its
 * target is the bench target of the reverted tree. */
struct suspect {
	int state;		/* index in x->range, -1: a commit off the line */
	char commit[41];
	char *subject;		/* owned */
	char number[16];	/* the state's number, "-" off the line */
	int target;		/* bench target, -1 when the revert does not apply */
};

struct attribution {
	struct suspect *s;
	int n;
	int good, bad;
};

static void add_suspect(struct attribution *a, int state, int number, const char *commit,
			const char *subject)
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
	if (state >= 0)
		snprintf(s->number, sizeof(s->number), "%d", number);
	else
		snprintf(s->number, sizeof(s->number), "-");
	s->target = -1;
}

static void add_state(struct cmd_ctx *x, struct attribution *a, int state)
{
	const struct tree_state *st = &x->range.state[state];

	add_suspect(a, state, st->index, st->commit, st->subject);
}

/* A --revert: a listed state by any of its names, or any revision BAD
 * contains.  0 or -1 (reported). */
static int add_revert(struct cmd_ctx *x, struct attribution *a, const char *spec)
{
	const char *bad = x->range.state[a->bad].commit;
	char id[41], *rev = xasprintf("%s^{commit}", spec), *subject;
	int i, anc, found = tree_rev_parse(x->tree.repo, rev, id) == 0;

	free(rev);
	if (!found) {
		/* A state number or patch name. */
		if ((i = tree_resolve(&x->tree, &x->range, spec)) < 0)
			return -1;
		add_state(x, a, i);
		return 0;
	}
	for (i = 0; i < x->range.n; i++)
		if (!strcmp(x->range.state[i].commit, id)) {
			add_state(x, a, i);
			return 0;
		}
	if ((anc = tree_is_ancestor(&x->tree, id, bad)) <= 0)
		return anc < 0 ? -1 : error("attribute: %s (%.12s) is not in BAD %.12s: nothing to revert",
					    spec, id, bad);
	subject = tree_subject(&x->tree, id);
	add_suspect(a, -1, -1, id, subject);
	free(subject);
	return 0;
}

/* Positional GOOD BAD, and --revert STATE for extra suspects.  Range into
 * a->good/bad; suspects named with --revert into *named (released by the
 * caller with attribution_release).  0 or -1 (reported). */
static int attribute_args(struct cmd_ctx *x, int argc, char **argv, struct attribution *a,
			  struct attribution *named)
{
	char **range = xcalloc((size_t)argc + 1, sizeof(char *));
	char **revert = xcalloc((size_t)argc + 1, sizeof(char *));
	int i, nrange = 0, nrevert = 0, ret = 0;

	for (i = 0; i < argc && !ret; i++) {
		if (strcmp(argv[i], "--revert"))
			range[nrange++] = argv[i];
		else if (++i == argc)
			ret = error("attribute: --revert needs a state");
		else
			revert[nrevert++] = argv[i];
	}
	/* The range first: it decides what the states are. */
	if (!ret)
		ret = cmd_range(x, nrange, range, &a->good, &a->bad);
	named->bad = a->bad;
	for (i = 0; i < nrevert && !ret; i++)
		ret = add_revert(x, named, revert[i]);
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
	const struct tree_state *bad = &x->range.state[a->bad];
	int i, nt = 0, ret = -1;

	for (i = 0; i < a->n; i++) {
		struct suspect *s = &a->s[i];
		char commit[41], treeid[41], *name, *subj;
		int r;

		/* GOOD, later states, states whose patch did not apply: nothing to back out. */
		r = s->state > a->bad || s->state == 0 || bad->broken ||
				    (s->state > 0 && x->range.state[s->state].broken)
			    ? 1 : tree_revert(&x->tree, bad->commit, s->commit, commit, treeid);
		if (r < 0)
			goto out;
		if (r == 1)
			continue;
		name = xasprintf("%d-minus-%.12s", bad->index, s->commit);
		subj = xasprintf("state %d with '%s' reverted", bad->index, s->subject);
		s->target = bench_add_target(be, commit, treeid, name, subj);
		idx[nt] = s->target;
		want[nt++] = bench_runs_wanted(&x->conf);
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
static int attribute_print(struct bench *be, const struct attribution *a, double bad_v)
{
	int i;

	printf("  %-6s %-12s %-12s %-10s %s\n", "state", "commit", "reverted", "recovered", "subject");
	for (i = 0; i < a->n; i++) {
		const struct suspect *s = &a->s[i];
		const double *v;
		char pct[32];
		int n;

		if (s->target < 0) {
			printf("  %-6s %-12.12s %-12s %-10s %s\n", s->number, s->commit, "no-revert", "-",
			       s->subject);
			continue;
		}
		/* Fills in runs that failed above (bounded by max_fail). */
		n = bench_gather(be, s->target, &v);
		if (n < 0)
			return -1;
		if (n == 0) {
			printf("  %-6s %-12.12s %-12s %-10s %s\n", s->number, s->commit, "failed", "-",
			       s->subject);
			continue;
		}
		snprintf(pct, sizeof(pct), "%+.2f%%", 100 * (stats_median(v, n) - bad_v) / bad_v);
		printf("  %-6s %-12.12s %-12.3f %-10s %s\n", s->number, s->commit, stats_median(v, n),
		       pct, s->subject);
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
	if (bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		goto out_args;
	if (changes_find(&x->conf, &x->range, &be, &b, a.good, a.bad) < 0)
		goto out;
	/* Culprits found first, then the named suspects not among them. */
	for (i = 0; i < b.nchg; i++)
		add_state(x, &a, b.chg[i].state);
	for (i = 0; i < named.n; i++)
		add_suspect(&a, named.s[i].state,
			    named.s[i].state >= 0 ? x->range.state[named.s[i].state].index : -1,
			    named.s[i].commit, named.s[i].subject);
	bad_v = bisect_value(&b, a.bad);
	printf("\nattribution at BAD %s (%.3f %s), GOOD %s (%.3f %s): each suspect backed out (%s)\n",
	       bench_label(&be, a.bad), bad_v, bench_workload(&be)->unit, bench_label(&be, a.good),
	       bisect_value(&b, a.good), bench_workload(&be)->unit, bench_mode(&be));
	if (attribute_measure(x, &be, &a) == 0 && attribute_print(&be, &a, bad_v) == 0)
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
