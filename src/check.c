#include "check.h"
#include "bench.h"
#include "plot.h"
#include "run.h"
#include "series.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void check_baseline_release(struct check_baseline *b)
{
	free(b->version);
	free(b->mode);
	free(b->config);
	free(b->params);
	free(b->name);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

char *check_baseline_format(const struct check_baseline *b)
{
	struct sbuf sb;
	int i;

	sbuf_init(&sb);
	sbuf_addf(&sb, "tbisect-baseline 1\nversion %s\nmajor %d\nmode %s\nconfig %s\nparams %s\n"
		       "state %d %s\nsamples",
		  b->version, b->major, b->mode, b->config, b->params, b->state, b->name);
	for (i = 0; i < b->n; i++)
		sbuf_addf(&sb, " %.4f", b->v[i]);
	sbuf_addstr(&sb, "\n");
	return sbuf_detach(&sb);
}

int check_baseline_parse(struct check_baseline *b, const char *file, const char *text)
{
	char *copy = xstrdup(text), *p = copy, *line;
	int lineno = 0, magic = 0;

	memset(b, 0, sizeof(*b));
	while ((line = strsep(&p, "\n"))) {
		char *val = strchr(line, ' ');

		lineno++;
		if (!*line)
			continue;
		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(line, "tbisect-baseline"))
			magic = 1;
		else if (!strcmp(line, "version")) {
			free(b->version);
			b->version = xstrdup(val);
		}
		else if (!strcmp(line, "major"))
			b->major = atoi(val);
		else if (!strcmp(line, "mode")) {
			free(b->mode);
			b->mode = xstrdup(val);
		}
		else if (!strcmp(line, "config")) {
			free(b->config);
			b->config = xstrdup(val);
		}
		else if (!strcmp(line, "params")) {
			free(b->params);
			b->params = xstrdup(val);
		}
		else if (!strcmp(line, "state")) {
			char *sp = strchr(val, ' ');

			b->state = atoi(val);
			free(b->name);
			b->name = xstrdup(sp ? sp + 1 : "?");
		} else if (!strcmp(line, "samples")) {
			char *tok, *q = val;

			while ((tok = strsep(&q, " ")))
				if (*tok) {
					double d;

					if (util_parse_double(tok, &d) < 0 || !(d > 0))
						goto bad;
					b->v = xrealloc(b->v, (size_t)(b->n + 1) * sizeof(double));
					b->v[b->n++] = d;
				}
		} else
			goto bad;
	}
	free(copy);
	if (!magic || !b->mode || !b->config || !b->params || !b->name || !b->n) {
		check_baseline_release(b);
		return error("%s: not a complete tbisect baseline", file);
	}
	if (!b->version)
		b->version = xstrdup("?");
	return 0;
bad:
	free(copy);
	check_baseline_release(b);
	return error("%s:%d: malformed baseline line", file, lineno);
}

char *check_incompatible(const struct check_baseline *base, const struct check_baseline *cur)
{
	if (base->major != cur->major)
		return xasprintf("baseline was recorded by tbisect major version %d (%s), this is %d",
				 base->major, base->version, cur->major);
	if (strcmp(base->mode, cur->mode))
		return xasprintf("baseline was measured in mode '%s', this check runs in '%s'",
				 base->mode, cur->mode);
	if (strcmp(base->config, cur->config))
		return xasprintf("baseline was built with another kernel config fragment (%.12s, now %.12s)",
				 base->config, cur->config);
	if (strcmp(base->params, cur->params))
		return xasprintf("baseline used benchmark parameters '%s', now '%s'", base->params,
				 cur->params);
	return NULL;
}

enum check_verdict check_verdict(const struct bisect_params *p, const double *base, int nb,
				 const double *head, int nh, double *change, double *pval)
{
	double mb = stats_median(base, nb);

	if (p->deterministic || nb < 2 || nh < 2) {
		*change = (stats_median(head, nh) - mb) / mb;
		*pval = NAN;
		if (*change < -p->threshold)
			return CHECK_REGRESSED;
		return *change > p->threshold ? CHECK_IMPROVED : CHECK_PASS;
	} else {
		double est, lo, hi;

		*pval = stats_mann_whitney(base, nb, head, nh);
		stats_hodges_lehmann(base, nb, head, nh, p->alpha, &est, &lo, &hi);
		*change = est / mb;
		if (*pval >= p->alpha)
			return CHECK_PASS;
		if (*change < -p->threshold)
			return CHECK_REGRESSED;
		return *change > p->threshold ? CHECK_IMPROVED : CHECK_PASS;
	}
}

int check_core(const struct bisect_params *p, const struct check_baseline *base, int base_state,
	       int head, const struct bisect_ops *ops, void *ctx, int n, int do_bisect,
	       struct check_report *rep)
{
	const double *v;
	int k;

	memset(rep, 0, sizeof(*rep));
	rep->culprit = -1;
	rep->base_v = stats_median(base->v, base->n);
	k = bisect_gather(ops, ctx, head, p->deterministic ? 1 : p->runs_min, 2, &v);
	if (k < 0)
		return -1;
	if (k == 0) {
		rep->skipped = 1;
		rep->exit_code = 125;
		return 0;
	}
	rep->head_v = stats_median(v, k);
	rep->verdict = check_verdict(p, base->v, base->n, v, k, &rep->change, &rep->p);
	rep->exit_code = rep->verdict == CHECK_REGRESSED ? 1 : 0;
	if (rep->verdict == CHECK_REGRESSED && do_bisect && base_state >= 0 && base_state < head) {
		struct bisect b;
		struct bisect_result res;
		int r;

		bisect_init(&b, ops, ctx, n, p);
		info("nightly: searching the culprit between %s and %s", ops->label(ctx, base_state),
		     ops->label(ctx, head));
		r = bisect_run(&b, base_state, head, &res);
		if (r == 0 && (res.status == BISECT_FOUND || res.status == BISECT_AMBIGUOUS)) {
			rep->culprit = res.culprit;
			rep->culprit_change = res.change;
		}
		bisect_result_release(&res);
		bisect_release(&b);
		if (r < 0)
			return -1;
	}
	return 0;
}

static void xml_escape(struct sbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': sbuf_addstr(sb, "&lt;"); break;
		case '>': sbuf_addstr(sb, "&gt;"); break;
		case '&': sbuf_addstr(sb, "&amp;"); break;
		case '"': sbuf_addstr(sb, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n')
				sbuf_add(sb, s, 1);
		}
	}
}

int check_junit(const char *path, const char *name, enum check_verdict v, int skipped,
		const char *message)
{
	struct sbuf sb;
	int fail = !skipped && v == CHECK_REGRESSED, ret;

	sbuf_init(&sb);
	sbuf_addf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<testsuite name=\"tbisect-nightly\" tests=\"1\" failures=\"%d\" skipped=\"%d\">\n"
		       "  <testcase classname=\"tbisect.tbench\" name=\"",
		  fail, skipped);
	xml_escape(&sb, name);
	sbuf_addstr(&sb, "\">\n");
	if (fail || skipped) {
		sbuf_addstr(&sb, fail ? "    <failure message=\"" : "    <skipped message=\"");
		xml_escape(&sb, message);
		sbuf_addstr(&sb, "\"/>\n");
	}
	sbuf_addstr(&sb, "    <system-out>");
	xml_escape(&sb, message);
	sbuf_addstr(&sb, "</system-out>\n  </testcase>\n</testsuite>\n");
	ret = util_write_file_atomic(path, sb.buf, sb.len);
	sbuf_release(&sb);
	return ret;
}

static char *baseline_path(const struct conf *c)
{
	return c->baseline ? xstrdup(c->baseline) : xasprintf("%s/baseline.txt", c->workdir);
}

/* The comparability fields of the current configuration. */
static void current_identity(const struct conf *c, struct check_baseline *b)
{
	char cfg[65];

	memset(b, 0, sizeof(*b));
	b->version = xstrdup(TBISECT_VERSION);
	b->major = TBISECT_MAJOR;
	if (c->mode == MODE_ICOUNT)
		b->mode = xasprintf("icount shift=%ld", c->shift);
	else
		/* The configured accelerator: known before anything is measured. */
		b->mode = xasprintf("wallclock accel=%s", conf_accel_name(c->accel));
	if (util_sha256_file(c->kconfig, cfg) < 0)
		snprintf(cfg, sizeof(cfg), "unreadable");
	b->config = xstrdup(cfg);
	b->params = xasprintf("clients=%ld seconds=%ld smp=%ld mem=%ld feat=%s", c->clients,
			      c->seconds, c->smp, c->memory_mb, c->feat);
}

/* Measures state s until it has the runs its mode needs.  Returns the
 * count (>0), 0 when the state cannot be built or booted, -1 on error. */
static int gather(const struct conf *c, struct bench *be, int s, const double **v)
{
	return bisect_gather(&bench_ops, be, s, c->mode == MODE_ICOUNT ? 1 : (int)c->runs_min, 2, v);
}

int check_baseline(const struct conf *c, struct tree *t, const char *spec)
{
	struct bench be;
	struct check_baseline b;
	const double *v;
	char *path = baseline_path(c), *text;
	int s, n, ret = 2;

	s = tree_resolve(t, spec ? spec : c->good);
	if (s < 0 || bench_init(&be, c, t) < 0) {
		free(path);
		return 2;
	}
	n = gather(c, &be, s, &v);
	if (n <= 0) {
		if (n == 0)
			error("baseline state %s cannot be built or booted", be.t[s].label);
		goto out;
	}
	current_identity(c, &b);
	b.state = s;
	b.name = xstrdup(t->state[s].name);
	b.v = xmalloc((size_t)n * sizeof(double));
	memcpy(b.v, v, (size_t)n * sizeof(double));
	b.n = n;
	text = check_baseline_format(&b);
	if (util_write_file_atomic(path, text, strlen(text)) == 0) {
		printf("baseline: %s, %.3f MB/s (median of %d), %s, written to %s\n", be.t[s].label,
		       stats_median(v, n), n, b.mode, path);
		ret = 0;
	}
	free(text);
	check_baseline_release(&b);
out:
	bench_release(&be);
	free(path);
	return ret;
}

static void history_add(const struct conf *c, const char *name, double mbps, double base,
			const char *verdict)
{
	char *path = xasprintf("%s/history.tsv", c->workdir), *old = NULL;
	struct sbuf sb;

	sbuf_init(&sb);
	if (util_exists(path) && util_read_file(path, &old, NULL) == 0)
		sbuf_addstr(&sb, old);
	else
		sbuf_addstr(&sb, "timestamp\tstate\tmbps\tbaseline\tverdict\n");
	sbuf_addf(&sb, "%ld\t%s\t%.4f\t%.4f\t%s\n", (long)time(NULL), name, mbps, base, verdict);
	util_write_file_atomic(path, sb.buf, sb.len);
	/* The history plot: throughput of each check over time. */
	{
		struct plot p;
		char *line, *q = sb.buf;

		plot_init(&p, c->plot_dir, "nightly", "nightly tbench check: head throughput over time");
		free(p.xlabel);
		p.xlabel = xstrdup("date of the check");
		p.xtime = 1;
		p.baseline = base;
		while ((line = strsep(&q, "\n"))) {
			double v;
			long ts;
			char st[128], vd[32];

			if (sscanf(line, "%ld\t%127s\t%lf\t%*f\t%31s", &ts, st, &v, vd) == 4)
				plot_add(&p, (double)ts, st, &v, 1,
					 !strcmp(vd, "regression") ? MARK_REGRESSION : MARK_NONE);
		}
		if (p.n)
			plot_write(&p);
		plot_release(&p);
	}
	sbuf_release(&sb);
	free(old);
	free(path);
}

int check_run(const struct conf *c, struct tree *t, const char *spec)
{
	struct bench be;
	struct check_baseline base, cur;
	struct bisect_params p;
	struct check_report rep;
	char *path = baseline_path(c), *text = NULL, *why, *junit, *msg = NULL;
	int s, bs, ret = 2;

	junit = xasprintf("%s/nightly-junit.xml", c->workdir);
	if (util_read_file(path, &text, NULL) < 0) {
		error("no baseline at %s; record one with: tbisect baseline", path);
		free(path);
		free(junit);
		return 2;
	}
	if (check_baseline_parse(&base, path, text) < 0) {
		free(text);
		free(path);
		free(junit);
		return 2;
	}
	s = tree_resolve(t, spec ? spec : "head");
	if (s < 0 || bench_init(&be, c, t) < 0)
		goto out_base;
	current_identity(c, &cur);
	why = check_incompatible(&base, &cur);
	if (why) {
		error("baseline %s refused: %s; record a new one with: tbisect baseline", path, why);
		free(why);
		goto out_cur;
	}
	bisect_params_default(&p);
	p.deterministic = c->mode == MODE_ICOUNT;
	p.threshold = c->threshold;
	p.alpha = c->alpha;
	p.runs_min = (int)c->runs_min;
	p.runs_max = (int)c->runs_max;
	/* Bisect only when the baseline's state is still the same patch. */
	bs = base.state < t->n && !strcmp(t->state[base.state].name, base.name) ? base.state : -1;
	if (check_core(&p, &base, bs, s, &bench_ops, &be, t->n, c->check_bisect, &rep) < 0) {
		ret = 2;
		goto out_cur;
	}
	ret = rep.exit_code;
	if (rep.skipped) {
		msg = xasprintf("head %s cannot be built or booted: skipped", be.t[s].label);
		printf("nightly: SKIP: %s\n", msg);
		check_junit(junit, be.t[s].name, CHECK_PASS, 1, msg);
		goto out_cur;
	}
	msg = xasprintf("%s: %.3f MB/s vs baseline %s %.3f MB/s: %+.2f%% (threshold %.2f%%, %s)",
			be.t[s].label, rep.head_v, base.name, rep.base_v, 100 * rep.change,
			100 * c->threshold, cur.mode);
	if (rep.culprit >= 0) {
		char *m2 = xasprintf("%s; culprit: state %d '%s' (%+.2f%% against its parent)", msg,
				     rep.culprit, t->state[rep.culprit].subject, 100 * rep.culprit_change);

		free(msg);
		msg = m2;
	}
	printf("nightly: %s: %s\n",
	       rep.verdict == CHECK_REGRESSED ? "REGRESSION" : rep.verdict == CHECK_IMPROVED ? "IMPROVED" : "PASS",
	       msg);
	check_junit(junit, be.t[s].name, rep.verdict, 0, msg);
	printf("nightly: JUnit report %s\n", junit);
	history_add(c, be.t[s].name, rep.head_v, rep.base_v,
		    rep.verdict == CHECK_REGRESSED ? "regression" : rep.verdict == CHECK_IMPROVED ? "improved" : "pass");
out_cur:
	check_baseline_release(&cur);
	bench_release(&be);
out_base:
	check_baseline_release(&base);
	free(msg);
	free(text);
	free(path);
	free(junit);
	return ret;
}

int check_git_bisect_run(const struct conf *c, double good_above, double bad_below)
{
	struct tree t;
	struct bench be;
	char cwd[4096], treeid[41], key[65], *outname, *diff = NULL;
	const double *v;
	int k, n, ret = 2;

	if (isnan(good_above) && isnan(bad_below))
		return error("git-bisect-run: give --good-above MBPS or --bad-below MBPS"), 2;
	if (!getcwd(cwd, sizeof(cwd)) || tree_rev_parse(cwd, "HEAD^{tree}", treeid) < 0)
		return error("git-bisect-run: run it inside a kernel git tree (git bisect run ...)"), 2;
	{
		/* Uncommitted changes are part of what is measured. */
		const char *argv[] = { "git", "diff", "HEAD", NULL };
		struct util_hash *h = util_hash_new();

		run_capture(argv, cwd, &diff);
		util_hash_addstr(h, treeid);
		util_hash_addstr(h, diff ? diff : "");
		util_hash_hex(h, key);
		free(diff);
		memcpy(treeid, key, 40);
		treeid[40] = '\0';
	}
	memset(&t, 0, sizeof(t));
	t.conf = c;
	t.dir = xstrdup(cwd);
	if (bench_init(&be, c, &t) < 0)
		goto out;
	{
		struct util_hash *h = util_hash_new();

		util_hash_addstr(h, cwd);
		util_hash_hex(h, key);
	}
	outname = xasprintf("build-git-%.12s", key);
	build_release(&be.build);
	build_init(&be.build, c, cwd, outname);
	free(outname);
	k = bench_add_target(&be, "", treeid, "HEAD", "git HEAD");
	n = gather(c, &be, k, &v);
	if (n < 0)
		goto out_bench;
	if (n == 0) {
		printf("git-bisect-run: cannot build or boot this commit: skip\n");
		ret = 125;
		goto out_bench;
	}
	{
		double m = stats_median(v, n);
		int bad = !isnan(good_above) ? m < good_above : m < bad_below;

		printf("git-bisect-run: %.3f MB/s (%s): %s\n", m, bench_mode(&be), bad ? "bad" : "good");
		ret = bad;
	}
out_bench:
	bench_release(&be);
out:
	free(t.dir);
	return ret;
}
