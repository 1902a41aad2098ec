/*
 * tbisect: finds Linux kernel performance regressions by itself.
 * Only this file decides exit statuses (see usage()).
 */
#include "bench.h"
#include "bisect.h"
#include "build.h"
#include "check.h"
#include "conf.h"
#include "plot.h"
#include "series.h"
#include "stats.h"
#include "store.h"
#include "tree.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_FOUND_REGRESSION = 1,	/* check: regression; git-bisect-run: bad */
	EXIT_ERROR = 2,			/* usage, configuration, tool failure */
	EXIT_NO_REGRESSION = 3,		/* bisect: endpoints do not differ / BAD faster */
	EXIT_AMBIGUOUS = 4,		/* bisect: culprit among skipped states */
	EXIT_SKIP = 125,		/* git-bisect-run/check: cannot build or boot */
	EXIT_INTERRUPTED = 130,
	EXIT_ABORT_BISECT = 255,	/* git-bisect-run: tool failure, stop git bisect */
};

static void usage(FILE *f)
{
	fputs("usage: tbisect [-c bisect.conf] [-s KEY=VALUE]... [-q] COMMAND [ARGS]\n"
	      "\n"
	      "commands:\n"
	      "  prepare                 extract linux-source-6.1, apply kpatches/ as commits\n"
	      "  states                  list the states (index, commit, patch subject)\n"
	      "  config                  print the effective configuration\n"
	      "  build STATE...          build kernels (cached by content)\n"
	      "  measure [-n RUNS] STATE...  build, boot and run tbench; print MB/s\n"
	      "  bisect [GOOD BAD]       find the first state slower than GOOD (default: bisect.conf)\n"
	      "  culprits [GOOD BAD]     find every state that changes throughput (whole series)\n"
	      "  attribute [GOOD BAD] [--revert PATCH]...  BAD with each culprit (and suspect) reverted\n"
	      "  baseline [STATE]        record the nightly baseline (default GOOD)\n"
	      "  check [STATE]           nightly check of STATE (default head) against the baseline\n"
	      "  git-bisect-run [--good-above MBPS | --bad-below MBPS]  for 'git bisect run'\n"
	      "  results [--format tsv|csv|jsonl]  print every recorded run\n"
	      "  plot [GOOD BAD]         draw the regression plot from recorded runs\n"
	      "\n"
	      "STATE: base, head, an index, or a patch name.\n"
	      "exit: 0 ok/culprit found, 1 regression (check) or bad (git-bisect-run), 2 error,\n"
	      "      3 no regression between the ends, 4 culprit among skipped states,\n"
	      "      125 cannot build/boot (skip), 130 interrupted; git-bisect-run exits 255 on a\n"
	      "      tool failure so that git bisect run stops.\n",
	      f);
}

struct ctx {
	struct conf conf;
	struct series series;
	struct tree tree;
	int tree_ready;
};

static int interrupted_code(int code)
{
	if (util_interrupted) {
		fprintf(stderr, "tbisect: interrupted; every finished run is saved, run the same "
				"command again to continue\n");
		return EXIT_INTERRUPTED;
	}
	return code;
}

static int prepare(struct ctx *x)
{
	if (x->tree_ready)
		return 0;
	if (series_load(&x->series, x->conf.patches) < 0)
		return -1;
	if (tree_prepare(&x->tree, &x->series) < 0)
		return -1;
	x->tree_ready = 1;
	return 0;
}

/* GOOD and BAD from arguments or the configuration; errors name the
 * configuration line. */
static int resolve_range(struct ctx *x, int argc, char **argv, int *good, int *bad)
{
	const char *g = argc > 0 ? argv[0] : x->conf.good;
	const char *b = argc > 1 ? argv[1] : (x->conf.bad ? x->conf.bad : "head");

	*good = tree_resolve(&x->tree, g);
	if (*good < 0) {
		if (argc < 1 && x->conf.good_line)
			error("%s:%d: GOOD names no state", x->conf.path, x->conf.good_line);
		return -1;
	}
	*bad = tree_resolve(&x->tree, b);
	if (*bad < 0) {
		if (argc < 2 && x->conf.bad_line)
			error("%s:%d: BAD names no state", x->conf.path, x->conf.bad_line);
		return -1;
	}
	if (*good >= *bad) {
		if (argc < 2 && x->conf.bad_line)
			return error("%s:%d: GOOD (%s = state %d) must come before BAD (%s = state %d)",
				     x->conf.path, x->conf.bad_line, g, *good, b, *bad);
		return error("GOOD (%s = state %d) must come before BAD (%s = state %d)", g, *good, b,
			     *bad);
	}
	return 0;
}

/* GOOD BAD from the arguments, or the whole series when none are given. */
static int resolve_range_or_all(struct ctx *x, int argc, char **argv, int *good, int *bad)
{
	if (argc)
		return resolve_range(x, argc, argv, good, bad);
	*good = 0;
	*bad = x->tree.n - 1;
	return 0;
}

static void params_from_conf(const struct conf *c, struct bisect_params *p)
{
	bisect_params_default(p);
	p->deterministic = c->mode == MODE_ICOUNT;
	p->threshold = c->threshold;
	p->alpha = c->alpha;
	p->runs_min = (int)c->runs_min;
	p->runs_max = (int)(c->runs_max > c->runs_min ? c->runs_max : c->runs_min);
	p->step = (int)c->culprit_step;
}

static int cmd_states(struct ctx *x)
{
	int i;

	if (prepare(x) < 0)
		return EXIT_ERROR;
	printf("index\tcommit\tstatus\tsubject\n");
	for (i = 0; i < x->tree.n; i++) {
		const struct tree_state *s = &x->tree.state[i];

		printf("%d\t%.12s\t%s\t%s\n", i, s->commit[0] ? s->commit : "-",
		       s->broken ? "noapply" : "ok", s->subject);
	}
	return EXIT_OK;
}

static int cmd_build(struct ctx *x, int argc, char **argv)
{
	struct bench be;
	int i, ret = EXIT_OK;

	if (prepare(x) < 0 || bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	for (i = 0; i < argc; i++) {
		int s = tree_resolve(&x->tree, argv[i]), st;
		struct build_result res;

		if (s < 0) {
			ret = EXIT_ERROR;
			break;
		}
		if (x->tree.state[s].broken) {
			warning("state %d: its patch does not apply", s);
			ret = EXIT_SKIP;
			continue;
		}
		if (tree_checkout(&x->tree, x->tree.state[s].commit) < 0) {
			ret = EXIT_ERROR;
			break;
		}
		st = build_kernel(&be.build, x->tree.state[s].treeid, &res);
		if (st < 0) {
			ret = EXIT_ERROR;
			build_result_release(&res);
			break;
		}
		if (st == BUILD_FAILED) {
			printf("%d\tfailed\t%s\n", s, res.errors);
			ret = EXIT_SKIP;
		} else {
			printf("%d\t%s\t%s\t%.1f s\t%s\n", s, res.cached ? "cached" : "built",
			       res.vmlinux, res.seconds, res.kernel_sha);
		}
		build_result_release(&res);
	}
	bench_release(&be);
	return interrupted_code(ret);
}

static int cmd_measure(struct ctx *x, int argc, char **argv)
{
	struct bench be;
	int i, runs = 1, ret = EXIT_OK, *st = NULL, *want = NULL;

	if (argc > 1 && !strcmp(argv[0], "-n")) {
		runs = atoi(argv[1]);
		if (runs < 1)
			return error("-n needs a positive count"), EXIT_ERROR;
		argc -= 2;
		argv += 2;
	}
	if (argc < 1) {
		error("measure: name at least one state");
		return EXIT_ERROR;
	}
	if (prepare(x) < 0 || bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	st = xcalloc((size_t)argc, sizeof(int));
	want = xcalloc((size_t)argc, sizeof(int));
	for (i = 0; i < argc; i++) {
		const double *v;
		int nf;

		if ((st[i] = tree_resolve(&x->tree, argv[i])) < 0) {
			ret = EXIT_ERROR;
			goto out;
		}
		want[i] = bench_ops.samples(&be, st[i], &v, &nf) + runs;
	}
	/* Every run first (side by side in icount mode), then the figures. */
	if (bench_ensure_many(&be, st, want, argc) < 0) {
		ret = EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < argc; i++) {
		int s = st[i], nf, n;
		const double *v;

		n = bench_ops.samples(&be, s, &v, &nf);
		if (be.t[s].unusable || n == 0) {
			printf("%d\t%s\tskip\t%d failed runs\t%s\n", s, x->tree.state[s].name, nf,
			       bench_mode(&be));
			ret = EXIT_SKIP;
			continue;
		}
		printf("%d\t%s\t%.3f MB/s\tmedian of %d (min %.3f, max %.3f)\t%s\n", s,
		       x->tree.state[s].name, stats_median(v, n), n, stats_min(v, n),
		       stats_max(v, n), bench_mode(&be));
	}
out:
	free(st);
	free(want);
	bench_summary(&be, stderr);
	bench_release(&be);
	return interrupted_code(ret);
}

/* Draws the range's plot from everything recorded. */
static void draw(struct ctx *x, struct bench *be, int good, int bad,
		 const struct bisect_change *chg, int nchg)
{
	struct plot p;
	char *title;
	int i, k;

	title = xasprintf("tbench along %s (states %d..%d) - %s, %ld clients, %ld s", "kpatches",
			  good, bad, bench_mode(be), x->conf.clients, x->conf.seconds);
	plot_init(&p, x->conf.plot_dir, "tbisect", title);
	for (i = good; i <= bad; i++) {
		const double *v;
		int nf, n = bench_ops.samples(be, i, &v, &nf);
		enum plot_mark m = i == good ? MARK_GOOD : i == bad ? MARK_BAD : MARK_NONE;
		char *label = xasprintf("%d %s", i, x->tree.state[i].subject);

		for (k = 0; k < nchg; k++)
			if (chg[k].state == i)
				m = chg[k].change < 0 ? MARK_REGRESSION : MARK_IMPROVEMENT;
		plot_add(&p, i, label, v, n, m);
		free(label);
	}
	if (p.n)
		plot_write(&p);
	plot_release(&p);
	free(title);
}

static int already_measured(struct bench *be, int good, int bad)
{
	int i, total = 0;

	for (i = good; i <= bad; i++) {
		const double *v;
		int nf, n = bench_ops.samples(be, i, &v, &nf);

		total += n + nf;
	}
	return total;
}

static int cmd_bisect(struct ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	struct bisect_params p;
	struct bisect_result res;
	int good, bad, ret, prior;

	if (prepare(x) < 0 || resolve_range(x, argc, argv, &good, &bad) < 0)
		return EXIT_ERROR;
	if (bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	params_from_conf(&x->conf, &p);
	bisect_init(&b, &bench_ops, &be, x->tree.n, &p);
	prior = already_measured(&be, good, bad);
	if (prior)
		info("resumed: %d runs of states %d..%d are already recorded and will be reused",
		     prior, good, bad);
	info("bisect: GOOD %s, BAD %s, %d states, mode %s", be.t[good].label, be.t[bad].label,
	     bad - good + 1, bench_mode(&be));
	bisect_run(&b, good, bad, &res);
	printf("range: GOOD %s .. BAD %s\n", be.t[good].label, be.t[bad].label);
	printf("mode: %s\n", bench_mode(&be));
	bisect_print(&b, &res, stdout);
	if (res.status == BISECT_FOUND || res.status == BISECT_AMBIGUOUS)
		printf("culprit subject: %s\n", x->tree.state[res.culprit].subject);
	bench_summary(&be, stdout);
	switch (res.status) {
	case BISECT_FOUND: ret = EXIT_OK; break;
	case BISECT_AMBIGUOUS: ret = EXIT_AMBIGUOUS; break;
	case BISECT_NO_DIFF:
	case BISECT_NOT_SLOWER: ret = EXIT_NO_REGRESSION; break;
	default: ret = EXIT_ERROR; break;
	}
	if (res.status != BISECT_ABORTED) {
		struct bisect_change c = { res.culprit, res.parent, 0, 0, res.change, 0 };

		draw(x, &be, good, bad, &c, res.culprit >= 0 ? 1 : 0);
	}
	bisect_result_release(&res);
	bisect_release(&b);
	bench_release(&be);
	return interrupted_code(ret);
}

static int run_culprits(struct ctx *x, struct bench *be, struct bisect *b, int good, int bad)
{
	struct bisect_params p;
	int i;

	params_from_conf(&x->conf, &p);
	bisect_init(b, &bench_ops, be, x->tree.n, &p);
	info("culprits: searching %d..%d, grid step %d, threshold %.2f%%, mode %s", good, bad,
	     p.step, 100 * p.threshold, bench_mode(be));
	if (bisect_culprits(b, good, bad) < 0)
		return -1;
	printf("changes above %.2f%% between %s and %s (%s):\n", 100 * p.threshold,
	       be->t[good].label, be->t[bad].label, bench_mode(be));
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

static int cmd_culprits(struct ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	int good, bad, ret = EXIT_OK;

	/* Default: the whole series, so the fix is found with the regression. */
	if (prepare(x) < 0 || resolve_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	if (run_culprits(x, &be, &b, good, bad) < 0)
		ret = EXIT_ERROR;
	else
		draw(x, &be, good, bad, b.chg, b.nchg);
	bench_summary(&be, stdout);
	bisect_release(&b);
	bench_release(&be);
	return interrupted_code(ret);
}

static int cmd_attribute(struct ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	int good, bad, i, ret = EXIT_OK, nrange = 0, *suspect = NULL, nsus = 0;
	int *target = NULL, *want = NULL, nt = 0;
	char **range = xcalloc((size_t)argc + 1, sizeof(char *));
	double bad_v;

	/* Positional GOOD BAD; --revert PATCH names extra suspects to back out. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--revert") && i + 1 < argc) {
			suspect = xrealloc(suspect, (size_t)(nsus + 1) * sizeof(int));
			suspect[nsus++] = -1 - i - 1;	/* resolved after prepare */
			i++;
		} else {
			range[nrange++] = argv[i];
		}
	}
	if (prepare(x) < 0 || resolve_range(x, nrange, range, &good, &bad) < 0) {
		ret = EXIT_ERROR;
		goto out_free;
	}
	for (i = 0; i < nsus; i++) {
		suspect[i] = tree_resolve(&x->tree, argv[-suspect[i] - 1]);
		if (suspect[i] < 0) {
			ret = EXIT_ERROR;
			goto out_free;
		}
	}
	if (bench_init(&be, &x->conf, &x->tree) < 0) {
		ret = EXIT_ERROR;
		goto out_free;
	}
	if (run_culprits(x, &be, &b, good, bad) < 0) {
		ret = EXIT_ERROR;
		goto out;
	}
	/* Culprits found, then the named suspects not already among them. */
	for (i = 0; i < b.nchg; i++) {
		suspect = xrealloc(suspect, (size_t)(nsus + 1) * sizeof(int));
		memmove(suspect + i + 1, suspect + i, (size_t)(nsus - i) * sizeof(int));
		suspect[i] = b.chg[i].state;
		nsus++;
	}
	bad_v = bisect_value(&b, bad);
	printf("\nattribution at BAD %s (%.3f MB/s), GOOD %s (%.3f MB/s): each suspect backed out (%s)\n",
	       be.t[bad].label, bad_v, be.t[good].label, bisect_value(&b, good), bench_mode(&be));
	printf("  %-6s %-12s %-10s %s\n", "state", "reverted", "recovered", "subject");
	/* Every revert first, so that their runs can go side by side. */
	target = xcalloc((size_t)nsus + 1, sizeof(int));
	want = xcalloc((size_t)nsus + 1, sizeof(int));
	for (i = 0; i < nsus; i++) {
		char commit[41], treeid[41];
		int c = suspect[i], r, j;

		target[i] = -1;
		for (j = 0; j < i; j++)
			if (suspect[j] == c)
				target[i] = -2;	/* listed before */
		if (target[i] == -2)
			continue;
		r = c > bad ? 1 : tree_revert(&x->tree, bad, c, commit, treeid);
		if (r < 0) {
			ret = EXIT_ERROR;
			goto out;
		}
		if (r == 0) {
			char *name = xasprintf("%d-minus-%d", bad, c);
			char *subj = xasprintf("state %d with '%s' reverted", bad, x->tree.state[c].subject);

			target[i] = bench_add_target(&be, commit, treeid, name, subj);
			want[nt++] = target[i];
			free(name);
			free(subj);
		}
	}
	{
		int *cnt = xcalloc((size_t)nt + 1, sizeof(int)), r;

		for (i = 0; i < nt; i++)
			cnt[i] = x->conf.mode == MODE_ICOUNT ? 1 : (int)x->conf.runs_min;
		r = bench_ensure_many(&be, want, cnt, nt);
		free(cnt);
		if (r < 0) {
			ret = EXIT_ERROR;
			goto out;
		}
	}
	for (i = 0; i < nsus; i++) {
		char pct[32];
		int c = suspect[i], n;
		const double *v;

		if (target[i] == -2)
			continue;
		if (target[i] == -1) {
			printf("  %-6d %-12s %-10s %s\n", c, "no-revert", "-", x->tree.state[c].subject);
			continue;
		}
		/* Fills in what failed above (bounded by max_fail). */
		n = bisect_gather(&bench_ops, &be, target[i],
				  x->conf.mode == MODE_ICOUNT ? 1 : (int)x->conf.runs_min, 2, &v);
		if (n < 0) {
			ret = EXIT_ERROR;
			break;
		}
		if (n == 0) {
			printf("  %-6d %-12s %-10s %s\n", c, "failed", "-", x->tree.state[c].subject);
			continue;
		}
		snprintf(pct, sizeof(pct), "%+.2f%%", 100 * (stats_median(v, n) - bad_v) / bad_v);
		printf("  %-6d %-12.3f %-10s %s\n", c, stats_median(v, n), pct, x->tree.state[c].subject);
	}
out:
	bench_summary(&be, stdout);
	bisect_release(&b);
	bench_release(&be);
out_free:
	free(target);
	free(want);
	free(range);
	free(suspect);
	return interrupted_code(ret);
}

static int cmd_results(struct ctx *x, int argc, char **argv)
{
	struct store s;
	char *path = xasprintf("%s/results.tsv", x->conf.workdir);
	const char *fmt = "tsv";
	int ret;

	if (argc >= 2 && !strcmp(argv[0], "--format"))
		fmt = argv[1];
	else if (argc >= 1)
		return error("results: unknown argument '%s'", argv[0]), free(path), EXIT_ERROR;
	store_init(&s, path);
	free(path);
	ret = store_load(&s) < 0 || store_export(&s, fmt) < 0 ? EXIT_ERROR : EXIT_OK;
	store_release(&s);
	return ret;
}

static int cmd_plot(struct ctx *x, int argc, char **argv)
{
	struct bench be;
	struct bisect b;
	struct bisect_params p;
	int good, bad;

	if (prepare(x) < 0 || resolve_range_or_all(x, argc, argv, &good, &bad) < 0 ||
	    bench_init(&be, &x->conf, &x->tree) < 0)
		return EXIT_ERROR;
	params_from_conf(&x->conf, &p);
	bisect_init(&b, &bench_ops, &be, x->tree.n, &p);
	/* Marks: adjacent measured states that differ by more than the threshold. */
	{
		struct bisect_change *chg = NULL;
		int nchg = 0, prev = -1, i;

		for (i = good; i <= bad; i++) {
			double v = bisect_value(&b, i);

			if (isnan(v))
				continue;
			if (prev >= 0 && i - prev == 1) {
				double pv = bisect_value(&b, prev), c = (v - pv) / pv;

				if (fabs(c) > p.threshold) {
					chg = xrealloc(chg, (size_t)(nchg + 1) * sizeof(*chg));
					chg[nchg++] = (struct bisect_change){ i, prev, pv, v, c, 0 };
				}
			}
			prev = i;
		}
		draw(x, &be, good, bad, chg, nchg);
		free(chg);
	}
	bisect_release(&b);
	bench_release(&be);
	return EXIT_OK;
}

static int cmd_git_bisect_run(struct ctx *x, int argc, char **argv)
{
	double good_above = NAN, bad_below = NAN;
	int i, ret;

	for (i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--good-above"))
			good_above = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--bad-below"))
			bad_below = atof(argv[i + 1]);
		else
			return error("git-bisect-run: unknown option '%s'", argv[i]), EXIT_ABORT_BISECT;
	}
	if (i < argc)
		return error("git-bisect-run: '%s' needs a value", argv[i]), EXIT_ABORT_BISECT;
	ret = check_git_bisect_run(&x->conf, good_above, bad_below);
	/* git bisect run takes 1..127 (but 125) as "bad": a tool failure must
	 * abort the bisection instead, which any status >= 128 does. */
	if (ret == EXIT_ERROR) {
		error("git-bisect-run: tool failure; exiting 255 so that git bisect run stops");
		ret = EXIT_ABORT_BISECT;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct ctx x;
	const char *conf_path = NULL, *cmd;
	const char **sets = NULL;
	int nsets = 0, opt, ret, i;
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	util_signals_init();
	while ((opt = getopt_long(argc, argv, "+c:s:qhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			conf_path = optarg;
			break;
		case 's':
			sets = xrealloc(sets, (size_t)(nsets + 1) * sizeof(*sets));
			sets[nsets++] = optarg;
			break;
		case 'q':
			util_quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("tbisect %s\n", TBISECT_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_ERROR;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_ERROR;
	}
	cmd = argv[optind];
	argc -= optind + 1;
	argv += optind + 1;

	memset(&x, 0, sizeof(x));
	conf_init(&x.conf);
	if (!conf_path && util_exists("bisect.conf"))
		conf_path = "bisect.conf";
	if (conf_path && conf_load(&x.conf, conf_path) < 0) {
		ret = EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < nsets; i++)
		if (conf_set(&x.conf, "-s", sets[i]) < 0) {
			ret = EXIT_ERROR;
			goto out;
		}
	conf_apply_env(&x.conf);
	series_init(&x.series);
	tree_init(&x.tree, &x.conf);

	if (!strcmp(cmd, "config")) {
		conf_dump(&x.conf);
		ret = EXIT_OK;
		goto out_tree;
	}
	if (!strcmp(cmd, "results")) {
		ret = cmd_results(&x, argc, argv);
		goto out_tree;
	}
	if (strcmp(cmd, "states") && strcmp(cmd, "plot") &&
	    store_lock(x.conf.workdir, cmd) < 0) {
		ret = EXIT_ERROR;
		goto out_tree;
	}
	if (!strcmp(cmd, "prepare"))
		ret = prepare(&x) < 0 ? interrupted_code(EXIT_ERROR) : EXIT_OK;
	else if (!strcmp(cmd, "states"))
		ret = cmd_states(&x);
	else if (!strcmp(cmd, "build"))
		ret = cmd_build(&x, argc, argv);
	else if (!strcmp(cmd, "measure"))
		ret = cmd_measure(&x, argc, argv);
	else if (!strcmp(cmd, "bisect"))
		ret = cmd_bisect(&x, argc, argv);
	else if (!strcmp(cmd, "culprits"))
		ret = cmd_culprits(&x, argc, argv);
	else if (!strcmp(cmd, "attribute"))
		ret = cmd_attribute(&x, argc, argv);
	else if (!strcmp(cmd, "plot"))
		ret = cmd_plot(&x, argc, argv);
	else if (!strcmp(cmd, "git-bisect-run"))
		ret = cmd_git_bisect_run(&x, argc, argv);
	else if (!strcmp(cmd, "baseline") || !strcmp(cmd, "check")) {
		if (prepare(&x) < 0)
			ret = EXIT_ERROR;
		else
			ret = !strcmp(cmd, "check") ? check_run(&x.conf, &x.tree, argc ? argv[0] : NULL)
						    : check_baseline(&x.conf, &x.tree, argc ? argv[0] : NULL);
		ret = interrupted_code(ret);
	} else {
		error("unknown command '%s'", cmd);
		usage(stderr);
		ret = EXIT_ERROR;
	}
out_tree:
	tree_release(&x.tree);
	series_release(&x.series);
out:
	conf_release(&x.conf);
	free(sets);
	return ret;
}
