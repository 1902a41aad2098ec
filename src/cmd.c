#include "cmd.h"
#include "plot.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

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
	if (!x->tree.user && series_load(&x->series, x->conf.patches) < 0)
		return -1;
	if (tree_prepare(&x->tree, &x->series) < 0)
		return -1;
	x->tree_ready = 1;
	return 0;
}

/* Resolves one end; a default from the configuration names its line. */
static int resolve_end(struct cmd_ctx *x, const char *spec, const char *key, int line)
{
	int s = tree_resolve(&x->tree, spec);

	if (s < 0 && line)
		error("%s:%d: %s names no state", x->conf.path, line, key);
	return s;
}

/* TREE mode: the range is listed from the revisions given, else from the
 * configuration (listed when the tree was prepared). */
static int git_range(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad)
{
	const char *g = argc > 0 ? argv[0] : x->conf.good;
	const char *b = argc > 1 ? argv[1] : (x->conf.bad ? x->conf.bad : "HEAD");

	if (!argc && !tree_git_configured(&x->conf))
		return error("TREE mode needs GOOD: set it in %s, with -s GOOD=REV, or name GOOD "
			     "and BAD on the command line", x->conf.path ? x->conf.path : "bisect.conf");
	if ((argc || !x->tree.n) && tree_git_range(&x->tree, g, b) < 0) {
		if (argc < 2 && (x->conf.good_line || x->conf.bad_line))
			error("%s:%d: GOOD and BAD there must be revisions of %s with TREE set",
			      x->conf.path, argc ? x->conf.bad_line : x->conf.good_line, x->tree.user);
		return -1;
	}
	if (x->tree.n < 2)
		return error("GOOD (%s) and BAD (%s) are the same commit", g, b);
	*good = 0;
	*bad = x->tree.n - 1;
	return 0;
}

int cmd_range(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad)
{
	const char *g = argc > 0 ? argv[0] : x->conf.good;
	const char *b = argc > 1 ? argv[1] : (x->conf.bad ? x->conf.bad : "head");

	if (x->tree.user)
		return git_range(x, argc, argv, good, bad);
	if ((*good = resolve_end(x, g, "GOOD", argc < 1 ? x->conf.good_line : 0)) < 0 ||
	    (*bad = resolve_end(x, b, "BAD", argc < 2 ? x->conf.bad_line : 0)) < 0)
		return -1;
	if (*good < *bad)
		return 0;
	if (argc < 2 && x->conf.bad_line)
		return error("%s:%d: GOOD (%s = state %d) must come before BAD (%s = state %d)",
			     x->conf.path, x->conf.bad_line, g, *good, b, *bad);
	return error("GOOD (%s = state %d) must come before BAD (%s = state %d)", g, *good, b, *bad);
}

int cmd_list_states(struct cmd_ctx *x)
{
	int g, b;

	if (x->tree.user && !x->tree.n && cmd_range(x, 0, NULL, &g, &b) < 0)
		return -1;
	return 0;
}

int cmd_resolve(struct cmd_ctx *x, const char *spec)
{
	if (cmd_list_states(x) < 0)
		return -1;
	return spec ? tree_resolve(&x->tree, spec) : x->tree.n - 1;
}

int cmd_range_or_all(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad)
{
	if (argc || x->tree.user)
		return cmd_range(x, argc, argv, good, bad);
	*good = 0;
	*bad = x->tree.n - 1;
	return 0;
}

int cmd_parse_number(const char *opt, const char *value, double *out)
{
	if (util_parse_double(value, out) < 0)
		return error("bad value for %s: '%s' (expected a number)", opt, value);
	return 0;
}

int cmd_parse_count(const char *opt, const char *value, int *out)
{
	long l;

	if (util_parse_long(value, &l) < 0 || l < 1 || l > 100000)
		return error("bad value for %s: '%s' (expected a count from 1 to 100000)", opt, value);
	*out = (int)l;
	return 0;
}

void cmd_draw(struct cmd_ctx *x, struct bench *be, int good, int bad,
	      const struct bisect_change *chg, int nchg)
{
	struct plot p;
	char *title;
	int i, k;

	title = xasprintf("tbench along %s (states %d..%d) - %s, %ld clients, %ld s",
			  x->tree.user ? x->tree.user : "kpatches", good, bad, bench_mode(be),
			  x->conf.clients, x->conf.seconds);
	plot_init(&p, x->conf.plot_dir, "tbisect", title);
	for (i = good; i <= bad; i++) {
		const double *v;
		int nf, n = bench_samples(be, i, &v, &nf);
		enum plot_mark m = i == good ? MARK_GOOD : i == bad ? MARK_BAD : MARK_NONE;
		char *label = x->tree.user ? xasprintf("%.7s %s", x->tree.state[i].commit,
						       x->tree.state[i].subject)
					   : xasprintf("%d %s", i, x->tree.state[i].subject);

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
