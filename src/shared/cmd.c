/* cmd: what every command shares: the range, exit statuses, plot and report. */
#include "cmd.h"
#include "cfgrange.h"
#include "plot.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_exit(int code)
{
	if (util_interrupted) {
		fprintf(stderr, "tbisect: interrupted; every finished run is saved, run the same "
				"command again to continue\n");
		return EXIT_INTERRUPTED;
	}
	return code;
}

int cmd_prepare_tree(struct cmd_ctx *x)
{
	if (x->tree_ready)
		return 0;
	if (tree_prepare(&x->tree) < 0)
		return -1;
	x->tree_ready = 1;
	return 0;
}

/* Resolves one end; a default from the configuration names its line. */
static int resolve_end(struct cmd_ctx *x, const char *spec, const char *key, int line)
{
	int s = tree_resolve(&x->tree, &x->range, spec);

	if (s < 0 && line)
		error("%s:%d: %s names no state", x->conf.path, line, key);
	return s;
}

int cmd_failed(const struct cmd_ctx *x)
{
	return x->no_difference ? EXIT_NO_REGRESSION : EXIT_ERROR;
}

/* The config range at AT (a state of the series, or a revision of a
 * user's tree; default: the series head, the tree's HEAD) into x->range. */
static int list_config_range(struct cmd_ctx *x)
{
	struct tree_range src;
	char at[41];
	int i, r;

	if (x->tree.series) {
		if (tree_span(&x->tree, NULL, NULL, &src) < 0)
			return -1;
		i = tree_resolve(&x->tree, &src, x->conf.at ? x->conf.at : "head");
		if (i >= 0)
			memcpy(at, src.state[i].commit, 41);
		tree_range_release(&src);
		if (i < 0)
			return error("AT names no state of %s", x->tree.source);
	} else if (tree_commit(&x->tree, x->conf.at ? x->conf.at : "HEAD", at) < 0) {
		return -1;
	}
	r = cfgrange_span(&x->tree, &x->conf, at, &x->range);
	if (r == 1)
		x->no_difference = 1;
	if (r == 0 && !strstr(x->tree.source, "config range")) {
		/* Reports and plots say what the range is. */
		char *g = util_basename_dup(x->conf.good_config), *b = util_basename_dup(x->conf.bad_config);
		char *src = xasprintf("config range %s..%s at %.12s of %s", g, b, at, x->tree.source);
		char *name = xasprintf("configs %s..%s", g, b);

		free(x->tree.source);
		free(x->tree.name);
		x->tree.source = src;
		x->tree.name = name;
		free(g);
		free(b);
	}
	return r == 0 ? 0 : -1;
}

/* Lists x->range anew from the ends named (NULL: the configuration's). */
static int list_range(struct cmd_ctx *x, const char *good, const char *bad)
{
	tree_range_release(&x->range);
	if (x->conf.good_config)
		return list_config_range(x);
	if (tree_span(&x->tree, good, bad, &x->range) < 0) {
		if ((!good || !bad) && (x->conf.good_line || x->conf.bad_line))
			error("%s:%d: GOOD and BAD there must name commits of %s", x->conf.path,
			      !bad && x->conf.bad_line ? x->conf.bad_line : x->conf.good_line,
			      x->tree.source);
		return -1;
	}
	return 0;
}

int cmd_range(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad)
{
	/* A config range's ends are its own, not the series' GOOD and BAD. */
	int own = x->conf.good_config != NULL;
	const char *g = argc > 0 ? argv[0] : own ? "base" : x->conf.good;
	const char *b = argc > 1 ? argv[1] : x->conf.bad && !own ? x->conf.bad : "head";

	if ((argc || !x->range.n) &&
	    list_range(x, argc > 0 ? argv[0] : NULL, argc > 1 ? argv[1] : NULL) < 0)
		return -1;
	if ((*good = resolve_end(x, g, "GOOD", argc < 1 && !own ? x->conf.good_line : 0)) < 0 ||
	    (*bad = resolve_end(x, b, "BAD", argc < 2 && !own ? x->conf.bad_line : 0)) < 0)
		return -1;
	if (*good < *bad)
		return 0;
	if (argc < 2 && x->conf.bad_line && !own)
		return error("%s:%d: GOOD (%s = state %d) must come before BAD (%s = state %d)",
			     x->conf.path, x->conf.bad_line, g, *good, b, *bad);
	return error("GOOD (%s = state %d) must come before BAD (%s = state %d)", g, *good, b, *bad);
}

int cmd_list_states(struct cmd_ctx *x)
{
	return x->range.n ? 0 : list_range(x, NULL, NULL);
}

int cmd_resolve(struct cmd_ctx *x, const char *spec)
{
	if (cmd_list_states(x) < 0)
		return -1;
	return spec ? tree_resolve(&x->tree, &x->range, spec) : x->range.n - 1;
}

int cmd_range_or_all(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad)
{
	if (argc)
		return cmd_range(x, argc, argv, good, bad);
	if (cmd_list_states(x) < 0)
		return -1;
	if (x->range.n < 2)
		return error("the range of %s holds one state: nothing to compare", x->tree.source);
	*good = 0;
	*bad = x->range.n - 1;
	return 0;
}

void cmd_report_health(struct report *r, const struct bench *be, int good, int bad)
{
	const char *f[2];
	long e[2];
	int k, idx[2] = { good, bad };
	struct sbuf sb;

	sbuf_init(&sb);
	for (k = 0; k < 2; k++) {
		if (bench_health(be, idx[k], &e[k], &f[k]) < 0)
			sbuf_addf(&sb, "%s%s: kernel log not read", k ? "; " : "", k ? "BAD" : "GOOD");
		else if (e[k] == 0)
			sbuf_addf(&sb, "%s%s: kernel log clean", k ? "; " : "", k ? "BAD" : "GOOD");
		else
			sbuf_addf(&sb, "%s%s: %ld kernel errors or warnings, the first: %s", k ? "; " : "",
				  k ? "BAD" : "GOOD", e[k], f[k]);
	}
	report_set(r, REPORT_HEALTH, sb.buf);
	sbuf_release(&sb);
}

char *cmd_state_id(const struct tree_state *s)
{
	if (!strncmp(s->name, s->commit, strlen(s->name)))
		return xstrdup(s->commit);
	return xasprintf("%s (%s)", s->commit, s->name);
}

int cmd_parse_number(const char *opt, const char *value, double *out)
{
	if (util_parse_double(value, out) < 0)
		return error("bad value for %s: '%s' (expected a number)", opt, value);
	return 0;
}

int cmd_option(int argc, char **argv, int *i, const char *name, const char **value)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n) || (a[n] && a[n] != '='))
		return 0;
	if (a[n] == '=') {
		*value = a + n + 1;
		return 1;
	}
	if (*i + 1 >= argc)
		return error("%s needs a value", name);
	*value = argv[++*i];
	return 1;
}

int cmd_parse_count(const char *opt, const char *value, int *out)
{
	long l;

	if (util_parse_long(value, &l) < 0 || l < 1 || l > 100000)
		return error("bad value for %s: '%s' (expected a count from 1 to 100000)", opt, value);
	*out = (int)l;
	return 0;
}

/* A state's name on the x axis: its number and name, a patch name without
 * "0005-" and ".patch"; a commit without a tag by its subject, which says
 * more than a short id (plot_add() clips it). */
static char *state_tic(const struct tree_state *s)
{
	const char *name = s->name, *dash = strchr(name, '-');
	size_t len;

	if (!s->named)
		return xasprintf("%d %s", s->index, s->subject);
	if (dash && dash - name == 4 && strspn(name, "0123456789") == 4)
		name = dash + 1;
	len = strlen(name);
	if (len > 6 && !strcmp(name + len - 6, ".patch"))
		len -= 6;
	return xasprintf("%d %.*s", s->index, (int)len, name);
}

static enum plot_mark state_mark(const struct bisect_params *p, int i, int good, int bad,
				 const struct bisect_change *chg, int nchg)
{
	int k;

	for (k = 0; k < nchg; k++)
		if (chg[k].state == i)
			return bisect_worse(p, chg[k].change) ? MARK_REGRESSION : MARK_IMPROVEMENT;
	if (i == good)
		return MARK_GOOD;
	if (i == bad)
		return MARK_BAD;
	for (k = 0; k < nchg; k++)
		if (chg[k].parent == i)
			return MARK_PARENT;
	return MARK_NONE;
}

int cmd_draw(struct cmd_ctx *x, struct bench *be, const struct tree_range *rg, int good, int bad,
	     const struct bisect_change *chg, int nchg)
{
	const struct workload *wl = bench_workload(be);
	struct bisect_params bp;
	struct plot p;
	char *title;
	int i, k, measured = 0, ret;

	bench_params(&x->conf, &bp);
	title = xasprintf("%s along %s (states %d..%d) - %s, %ld clients, %ld s, "
			  "%ld CPU%s, cgroup depth %ld",
			  wl->name, x->tree.name, rg->state[good].index, rg->state[bad].index, bench_mode(be),
			  x->conf.clients, x->conf.seconds, x->conf.smp, x->conf.smp == 1 ? "" : "s",
			  x->conf.cgroup_depth);
	plot_init(&p, x->conf.plot_dir, "tbisect", title);
	free(p.xlabel);
	p.xlabel = xstrdup("state (first-parent order)");
	p.ylabel = xasprintf("%s %s, %s (%s)", wl->name, wl->metric, wl->unit,
			     workload_direction(wl));
	for (i = good; i <= bad; i++) {
		const double *v;
		int nf, n = bench_samples(be, i, &v, &nf);
		char *tic;
		struct plot_row *r;

		if (bench_failed(be))
			break;
		measured += n + nf;
		tic = state_tic(&rg->state[i]);
		r = plot_add(&p, i, tic, rg->state[i].subject, v, n,
					      state_mark(&bp, i, good, bad, chg, nchg));

		for (k = 0; r && k < nchg; k++)
			if (chg[k].state == i) {
				r->change = chg[k].change;
				r->parent_x = chg[k].parent;
				r->small = chg[k].small;
			}
		free(tic);
	}
	ret = bench_failed(be) ? -1 : !measured ? 1 : 0;
	if (!ret && p.n)
		plot_write(&p);
	plot_release(&p);
	free(title);
	return ret;
}

/* The command line again, with the configuration file named even when it
 * was found in the current directory, and the work directory when set. */
static char *reproduce(const struct cmd_ctx *x)
{
	const char *wd = getenv("TBISECT_WORKDIR");
	char *args = report_quote_argv(x->argc - 1, x->argv + 1), *conf = NULL, *ret;
	int i, named = 0;

	for (i = 1; i < x->argc; i++)
		if (!strcmp(x->argv[i], "-c") || !strncmp(x->argv[i], "--config", 8))
			named = 1;
	if (!named && x->conf.path) {
		char *abs = realpath(x->conf.path, NULL);
		const char *v[] = { "-c", abs ? abs : x->conf.path };

		conf = report_quote_argv(2, v);
		free(abs);
	}
	ret = xasprintf("%s%s%stbisect %s%s%s", wd ? "TBISECT_WORKDIR=" : "", wd ? wd : "",
			wd ? " " : "", conf ? conf : "", conf ? " " : "", args);
	free(conf);
	free(args);
	return ret;
}

void cmd_report_bench(struct report *r, struct bench *be)
{
	const struct workload *wl = bench_workload(be);

	report_set(r, REPORT_MODE, bench_mode(be));
	report_setf(r, REPORT_BENCH, "%s: %s, %s, %s", wl->name, wl->metric, wl->unit,
		    workload_direction(wl));
	report_set(r, REPORT_UNIT, wl->unit);
}

void cmd_report_init(struct cmd_ctx *x, struct bench *be, struct report *r, const char *command,
		     int good, int bad)
{
	const struct conf *c = &x->conf;
	char *cmdline = reproduce(x);

	const struct tree_state *g = &x->range.state[good], *b = &x->range.state[bad];
	char *gid = cmd_state_id(g), *bid = cmd_state_id(b);

	report_init(r, command);
	report_set(r, REPORT_SOURCE, x->tree.source);
	report_setf(r, REPORT_GOOD, "state %d: %s %s", g->index, gid, g->subject);
	report_setf(r, REPORT_BAD, "state %d: %s %s", b->index, bid, b->subject);
	free(gid);
	free(bid);
	if (be)
		cmd_report_bench(r, be);
	report_setf(r, REPORT_SETTINGS, "CLIENTS=%ld SECONDS=%ld SMP=%ld CGROUP_DEPTH=%ld "
		    "THRESHOLD=%.2f%% RUNS_MIN=%ld RUNS_MAX=%ld KCONFIG_BASE=%s KCONFIG=%s",
		    c->clients, c->seconds, c->smp, c->cgroup_depth, 100 * c->threshold,
		    c->runs_min, c->runs_max, c->kconfig_base, c->kconfig);
	report_setf(r, REPORT_PLOT, "%s/tbisect.png", c->plot_dir);
	report_set(r, REPORT_REPRODUCE, cmdline);
	free(cmdline);
}

void cmd_report_cost(struct report *r, const struct bench *be)
{
	struct bench_counts n;

	bench_counts(be, &n);
	report_setf(r, REPORT_COST, "%d kernel builds (%.0f s), %d VM runs, %.0f s in all",
		    n.builds, n.t_build, n.runs, n.elapsed);
}

void cmd_report_save(struct cmd_ctx *x, struct bench *be, struct report *r)
{
	char *path = xasprintf("%s/report.json", x->conf.workdir);

	if (be)
		cmd_report_cost(r, be);
	if (report_save(r, path) == 0)
		info("report: tbisect report (saved in %s)", path);
	free(path);
	report_release(r);
}

int cmd_report(struct cmd_ctx *x, int argc, char **argv)
{
	enum report_format fmt = REPORT_TEXT;
	char *path = xasprintf("%s/report.json", x->conf.workdir);
	struct report r;
	struct sbuf sb;
	int ret = EXIT_OK;

	if (argc == 2 && !strcmp(argv[0], "--format") && !strcmp(argv[1], "markdown"))
		fmt = REPORT_MARKDOWN;
	else if (argc && !(argc == 2 && !strcmp(argv[0], "--format") && !strcmp(argv[1], "text"))) {
		free(path);
		return error("report: usage: tbisect report [--format text|markdown]"), EXIT_ERROR;
	}
	if (report_load(&r, path) < 0) {
		free(path);
		return EXIT_ERROR;
	}
	sbuf_init(&sb);
	report_format(&r, fmt, &sb);
	fputs(sb.buf, stdout);
	sbuf_release(&sb);
	report_release(&r);
	free(path);
	return ret;
}
