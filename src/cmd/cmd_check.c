/* cmd_check: the nightly check, its baseline, and the "git bisect run" entry point. */
#include "check.h"
#include "cmd.h"
#include "commands.h"
#include "bench_ops.h"
#include "plot.h"
#include "run.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *baseline_path(const struct conf *c)
{
	return c->baseline ? xstrdup(c->baseline) : xasprintf("%s/baseline.txt", c->workdir);
}

/* The comparability fields of the current configuration, run by QEMU
 * version qemu (bench_init() asked it).  The configured accelerator: it is
 * known before anything is measured. */
static void current_identity(const struct conf *c, const char *qemu, struct check_baseline *b)
{
	struct bench_identity id;
	char cfg[65];

	memset(b, 0, sizeof(*b));
	bench_identity(c, c->accel, qemu, &id);
	b->version = xstrdup(TBISECT_VERSION);
	b->major = TBISECT_MAJOR;
	b->mode = id.mode;
	b->params = id.params;
	if (util_sha256_file(c->kconfig, cfg) < 0)
		snprintf(cfg, sizeof(cfg), "unreadable");
	b->config = xstrdup(cfg);
}

int cmd_baseline(struct cmd_ctx *x, int argc, char **argv)
{
	const struct conf *c = &x->conf;
	struct bench be;
	struct check_baseline b;
	const double *v;
	char *path, *text;
	int s, n, ret = EXIT_ERROR;

	s = cmd_resolve(x, argc ? argv[0] : c->good);
	if (s < 0 || bench_init(&be, c, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	n = bench_gather(&be, s, &v);
	if (n <= 0) {
		if (n == 0)
			error("baseline state %s cannot be built or booted", bench_label(&be, s));
		bench_release(&be);
		return cmd_exit(EXIT_ERROR);
	}
	current_identity(c, bench_qemu(&be), &b);
	b.state = x->range.state[s].index;
	b.name = xstrdup(x->range.state[s].name);
	b.v = xmalloc((size_t)n * sizeof(double));
	memcpy(b.v, v, (size_t)n * sizeof(double));
	b.n = n;
	text = check_baseline_format(&b);
	path = baseline_path(c);
	if (util_write_file_atomic(path, text, strlen(text)) == 0) {
		printf("baseline: %s, %.3f %s (median of %d), %s, written to %s\n",
		       bench_label(&be, s), stats_median(v, n), bench_workload(&be)->unit, n, b.mode,
		       path);
		ret = EXIT_OK;
	}
	free(path);
	free(text);
	check_baseline_release(&b);
	bench_release(&be);
	return ret;
}

/* "historySUFFIX" for tbench (the name before BENCH), else
 * "history-BENCHSUFFIX": each benchmark keeps its own history.  Caller
 * frees. */
static char *legacy_name(const struct workload *wl, const char *base, const char *suffix)
{
	return wl->legacy ? xasprintf("%s%s", base, suffix) :
			    xasprintf("%s-%s%s", base, wl->name, suffix);
}

/* The history plot: the figure of each check over time, from the
 * benchmark's history file. */
static void history_plot(const struct conf *c, const struct workload *wl, char *text, double base)
{
	char *name = legacy_name(wl, "nightly", ""), *title;
	struct plot p;
	char *line;

	title = xasprintf("nightly %s check: head %s over time", wl->name, wl->metric);
	plot_init(&p, c->plot_dir, name, title);
	free(title);
	free(name);
	p.ylabel = xasprintf("%s %s, %s (%s)", wl->name, wl->metric, wl->unit, workload_direction(wl));
	free(p.xlabel);
	p.xlabel = xstrdup("date of the check");
	p.xtime = 1;
	p.baseline = base;
	while ((line = strsep(&text, "\n"))) {
		char *f[5], *q = line;
		double v;
		long ts;
		int k;

		for (k = 0; k < 5 && q; k++)
			f[k] = strsep(&q, "\t");
		if (k < 5 || util_parse_long(f[0], &ts) < 0 || util_parse_double(f[2], &v) < 0)
			continue;	/* the header, or a line this version cannot read */
		plot_add(&p, (double)ts, f[1], f[1], &v, 1,
			 !strcmp(f[4], "regression") ? MARK_REGRESSION : MARK_NONE);
	}
	if (p.n)
		plot_write(&p);
	plot_release(&p);
}

static void history_add(const struct conf *c, const struct workload *wl, const char *name,
			double mbps, double base, const char *verdict)
{
	char *file = legacy_name(wl, "history", ".tsv");
	char *path = xasprintf("%s/%s", c->workdir, file), *old = NULL;
	struct sbuf sb;

	sbuf_init(&sb);
	if (util_exists(path) && util_read_file(path, &old, NULL) == 0)
		sbuf_addstr(&sb, old);
	else
		sbuf_addstr(&sb, "timestamp\tstate\tmbps\tbaseline\tverdict\n");
	sbuf_addf(&sb, "%ld\t%s\t%.4f\t%.4f\t%s\n", (long)time(NULL), name, mbps, base, verdict);
	util_write_file_atomic(path, sb.buf, sb.len);
	history_plot(c, wl, sb.buf, base);
	sbuf_release(&sb);
	free(old);
	free(path);
	free(file);
}

/* Reads and checks the baseline against the configuration run by QEMU
 * version qemu.  0 with base filled, or -1 (reported). */
static int load_baseline(const struct conf *c, const char *qemu, struct check_baseline *base)
{
	struct check_baseline cur;
	char *path = baseline_path(c), *text = NULL, *why = NULL;
	int ret = -1;

	if (util_read_file(path, &text, NULL) < 0) {
		error("no baseline at %s; record one with: tbisect baseline", path);
		goto out;
	}
	if (check_baseline_parse(base, path, text) < 0)
		goto out;
	current_identity(c, qemu, &cur);
	why = check_incompatible(base, &cur);
	check_baseline_release(&cur);
	if (why) {
		error("baseline %s refused: %s; record a new one with: tbisect baseline", path, why);
		check_baseline_release(base);
		goto out;
	}
	ret = 0;
out:
	free(why);
	free(text);
	free(path);
	return ret;
}

static const char *verdict_word(enum check_verdict v)
{
	return v == CHECK_REGRESSED ? "regression" : v == CHECK_IMPROVED ? "improved" : "pass";
}

/* The check as the report `tbisect report` prints. */
static void mail_check(struct cmd_ctx *x, struct bench *be, int s, const struct check_baseline *base,
		       const struct check_report *rep, const char *msg)
{
	struct bisect_params p;
	struct report r;

	cmd_report_init(x, be, &r, "check", s, s);
	cmd_report_health(&r, be, s, s);
	report_setf(&r, REPORT_GOOD, "baseline %s (%.3f %s, %s)", base->name, rep->base_v,
		    bench_workload(be)->unit, base->mode);
	report_setf(&r, REPORT_VERDICT, "nightly check %s: %+.2f%% against the baseline",
		    verdict_word(rep->verdict), 100 * rep->change);
	report_set(&r, REPORT_CONFIDENCE, msg);
	bench_params(&x->conf, &p);
	report_add_change(&r, bench_label(be, s), x->range.state[s].subject, rep->base_v, rep->head_v,
			  rep->change)->small = rep->verdict == CHECK_PASS && bisect_small_step(&p, rep->change);
	if (rep->culprit >= 0) {
		report_set(&r, REPORT_CULPRIT, bench_label(be, rep->culprit));
		report_set(&r, REPORT_SUBJECT, x->range.state[rep->culprit].subject);
	}
	cmd_report_save(x, be, &r);
}

/* Prints, writes the JUnit report and the history of one finished check. */
static void report_check(struct cmd_ctx *x, struct bench *be, int s,
			 const struct check_baseline *base, const struct check_report *rep)
{
	const struct conf *c = &x->conf;
	char *junit = xasprintf("%s/nightly-junit.xml", c->workdir), *msg, *m2;
	struct bisect_params p;

	if (rep->skipped) {
		msg = xasprintf("head %s cannot be built or booted: skipped", bench_label(be, s));
		printf("nightly: SKIP: %s\n", msg);
		check_junit(junit, x->range.state[s].name, CHECK_PASS, 1, msg);
		goto out;
	}
	msg = xasprintf("%s: %.3f %s vs baseline %s %.3f %s: %+.2f%% (threshold %.2f%%, %s)",
			bench_label(be, s), rep->head_v, bench_workload(be)->unit, base->name,
			rep->base_v, bench_workload(be)->unit, 100 * rep->change,
			100 * c->threshold, base->mode);
	bench_params(c, &p);
	if (rep->verdict == CHECK_PASS && bisect_small_step(&p, rep->change)) {
		m2 = xasprintf("%s; a small change: above the %.2f%% floor, exact in this mode, "
			       "not above the threshold", msg, 100 * p.floor);
		free(msg);
		msg = m2;
	}
	if (rep->culprit >= 0) {
		m2 = xasprintf("%s; culprit: state %d '%s' (%+.2f%% against its parent)", msg,
			       rep->culprit, x->range.state[rep->culprit].subject,
			       100 * rep->culprit_change);
		free(msg);
		msg = m2;
	}
	printf("nightly: %s: %s\n", rep->verdict == CHECK_REGRESSED ? "REGRESSION" :
	       rep->verdict == CHECK_IMPROVED ? "IMPROVED" : "PASS", msg);
	check_junit(junit, x->range.state[s].name, rep->verdict, 0, msg);
	printf("nightly: JUnit report %s\n", junit);
	history_add(c, bench_workload(be), x->range.state[s].name, rep->head_v, rep->base_v, verdict_word(rep->verdict));
	mail_check(x, be, s, base, rep, msg);
out:
	free(msg);
	free(junit);
}

int cmd_check(struct cmd_ctx *x, int argc, char **argv)
{
	const struct tree_range *t = &x->range;
	struct check_baseline base;
	struct bisect_params p;
	struct check_report rep;
	struct bench be;
	int s, bs, ret = EXIT_ERROR;

	s = cmd_resolve(x, argc ? argv[0] : NULL);	/* default: the tip */
	if (s < 0 || bench_init(&be, &x->conf, &x->tree, t) < 0)
		return cmd_failed(x);
	if (load_baseline(&x->conf, bench_qemu(&be), &base) < 0)
		goto out_be;
	bench_params(&x->conf, &p);
	/* Bisect only when the baseline's state is still the same patch. */
	for (bs = t->n - 1; bs >= 0; bs--)
		if (t->state[bs].index == base.state && !strcmp(t->state[bs].name, base.name))
			break;
	if (check_core(&p, &base, bs, s, &bench_ops, &be, t->n, x->conf.check_bisect, &rep) == 0) {
		report_check(x, &be, s, &base, &rep);
		ret = rep.skipped ? EXIT_SKIP :
		      rep.verdict == CHECK_REGRESSED ? EXIT_FOUND_REGRESSION : EXIT_OK;
	}
	check_baseline_release(&base);
out_be:
	bench_release(&be);
	return cmd_exit(ret);
}

/* The content id of the checked-out tree and its uncommitted changes,
 * into id (41): what is measured is what is in the directory. */
static int worktree_id(const char *dir, char *id)
{
	const char *argv[] = { "git", "diff", "HEAD", NULL };
	struct util_hash *h;
	char treeid[41], key[65], *diff = NULL;

	if (tree_rev_parse(dir, "HEAD^{tree}", treeid) < 0)
		return -1;
	run_capture(argv, dir, &diff);
	h = util_hash_new();
	util_hash_addstr(h, treeid);
	util_hash_addstr(h, diff ? diff : "");
	util_hash_hex(h, key);
	free(diff);
	memcpy(id, key, 40);
	id[40] = '\0';
	return 0;
}

/* --good-above MBPS or --bad-below MBPS (either as "--opt=V"), one of
 * them, once, a number above 0.  0 or -1 (reported). */
static int git_bisect_args(int argc, char **argv, double *good_above, double *bad_below)
{
	int i, r;

	for (i = 0; i < argc; i++) {
		const char *v = NULL;
		double *to = NULL;

		if ((r = cmd_option(argc, argv, &i, "--good-above", &v)) == 1)
			to = good_above;
		else if (!r && (r = cmd_option(argc, argv, &i, "--bad-below", &v)) == 1)
			to = bad_below;
		if (r < 0)
			return -1;
		if (!to)
			return error("git-bisect-run: unknown option '%s'", argv[i]);
		if (!isnan(*good_above) || !isnan(*bad_below))
			return error("git-bisect-run: give one threshold, --good-above or --bad-below, "
				     "once");
		if (cmd_parse_number(to == good_above ? "--good-above" : "--bad-below", v, to) < 0)
			return -1;
		if (!(*to > 0))
			return error("git-bisect-run: the threshold must be above 0: '%s'", v);
	}
	if (isnan(*good_above) && isnan(*bad_below))
		return error("git-bisect-run: give --good-above MBPS or --bad-below MBPS");
	return 0;
}

/* One verdict on the tree in dir: EXIT_OK good, EXIT_FOUND_REGRESSION bad,
 * EXIT_SKIP, or EXIT_ERROR. */
static int git_bisect_verdict(const struct conf *c, const char *dir, double good_above,
			      double bad_below)
{
	struct tree t;
	struct bench be;
	char treeid[41];
	const double *v;
	int k, n, ret = EXIT_ERROR;

	if (worktree_id(dir, treeid) < 0)
		return error("git-bisect-run: run it inside a kernel git tree (git bisect run ...)"),
		       EXIT_ERROR;
	tree_init_checkout(&t, c, dir);
	if (bench_init(&be, c, &t, NULL) == 0) {
		k = bench_add_target(&be, "", treeid, "HEAD", "git HEAD");
		n = bench_gather(&be, k, &v);
		if (n == 0) {
			printf("git-bisect-run: cannot build or boot this commit: skip\n");
			ret = EXIT_SKIP;
		} else if (n > 0) {
			double m = stats_median(v, n);
			int bad = !isnan(good_above) ? m < good_above : m < bad_below;

			printf("git-bisect-run: %.3f %s (%s): %s\n", m, bench_workload(&be)->unit,
			       bench_mode(&be),
			       bad ? "bad" : "good");
			ret = bad ? EXIT_FOUND_REGRESSION : EXIT_OK;
		}
		bench_release(&be);
	}
	tree_release(&t);
	return ret;
}

int cmd_git_bisect_run(struct cmd_ctx *x, int argc, char **argv)
{
	double good_above = NAN, bad_below = NAN;
	char cwd[4096];
	int ret;

	if (git_bisect_args(argc, argv, &good_above, &bad_below) < 0)
		ret = EXIT_ERROR;
	else if (!getcwd(cwd, sizeof(cwd))) {
		error("git-bisect-run: cannot read the current directory");
		ret = EXIT_ERROR;
	} else {
		ret = cmd_exit(git_bisect_verdict(&x->conf, cwd, good_above, bad_below));
	}
	/* git bisect run takes 1..127 (but 125) as "bad": a tool failure must
	 * abort the bisection instead, which any status >= 128 does. */
	if (ret == EXIT_ERROR) {
		error("git-bisect-run: tool failure; exiting 255 so that git bisect run stops");
		ret = EXIT_ABORT_BISECT;
	}
	return ret;
}
