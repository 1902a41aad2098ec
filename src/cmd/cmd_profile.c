/* cmd_profile: where the instructions go between two states, function by function. */
#include "cmd.h"
#include "commands.h"
#include "why.h"
#include "plot.h"
#include "profile.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fmt { FMT_TEXT, FMT_TSV, FMT_JSON };

struct profile_args {
	const char *spec[2];
	int nspec;
	enum fmt fmt;
	int top;
};

/* [A B] [--format text|tsv|json] [--top N].  0 or -1 (reported). */
static int parse_args(int argc, char **argv, struct profile_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->top = 20;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc) {
			const char *f = argv[++i];

			if (!strcmp(f, "text"))
				a->fmt = FMT_TEXT;
			else if (!strcmp(f, "tsv"))
				a->fmt = FMT_TSV;
			else if (!strcmp(f, "json"))
				a->fmt = FMT_JSON;
			else
				return error("profile: --format text, tsv or json, not '%s'", f);
		} else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
			if (cmd_parse_count("--top", argv[++i], &a->top) < 0)
				return -1;
		} else if (argv[i][0] == '-' || a->nspec == 2) {
			return error("profile: usage: tbisect profile [A B] [--format text|tsv|json] "
				     "[--top N]");
		} else {
			a->spec[a->nspec++] = argv[i];
		}
	}
	if (a->nspec == 1)
		return error("profile: name two states, or none (the last culprit and its parent)");
	return 0;
}

/* The states to compare: those named, else the culprit of the last report
 * and the state before it.  0 with idx[] set, or -1 (reported). */
static int pick_states(struct cmd_ctx *x, const struct profile_args *a, int idx[2])
{
	char *path = xasprintf("%s/report.json", x->conf.workdir), id[41];
	struct report r;
	int k;

	if (a->nspec == 2) {
		free(path);
		for (k = 0; k < 2; k++)
			if ((idx[k] = cmd_resolve(x, a->spec[k])) < 0)
				return -1;
		return 0;
	}
	if (report_load(&r, path) < 0) {
		free(path);
		return error("profile: no states named and no report of a search to take a culprit from");
	}
	free(path);
	snprintf(id, sizeof(id), "%.40s", r.f[REPORT_CULPRIT] ? r.f[REPORT_CULPRIT] : "");
	report_release(&r);
	if (strlen(id) != 40 || (idx[1] = cmd_resolve(x, id)) < 0)
		return error("profile: the last report names no culprit among the listed states; "
			     "name two states");
	if (idx[1] == 0)
		return error("profile: the culprit is the first listed state: name two states");
	idx[0] = idx[1] - 1;
	return 0;
}

/* The MB/s of a profile's SECONDS runs ("109.056", or one per seed). */
static char *profile_mbps(const struct bench_profile *p)
{
	struct sbuf sb;
	int n;

	sbuf_init(&sb);
	for (n = 0; n < p->npair; n++)
		sbuf_addf(&sb, "%s%.3f", n ? " " : "", p->pair[n].mbps);
	return sbuf_detach(&sb);
}

/* The operations in a profile's windows, over all its seeds. */
static long profile_ops(const struct bench_profile *p)
{
	long ops = 0;
	int n;

	for (n = 0; n < p->npair; n++)
		ops += p->pair[n].ops[1] - p->pair[n].ops[0];
	return ops;
}

static void print_text(struct bench *be, const int idx[2], const struct bench_profile *p,
		       const struct profile_table *t, int top)
{
	double change = t->total[1] - t->total[0], sum = profile_table_sum(t);
	int i;

	printf("profile: %s -> %s, %s: instructions per tbench operation in its window (the "
	       "2S-second run minus the S-second run)\n", bench_label(be, idx[0]),
	       bench_label(be, idx[1]), bench_mode(be));
	char *mbps[2] = { profile_mbps(&p[0]), profile_mbps(&p[1]) };

	printf("MB/s under the plugin: %s -> %s\n", mbps[0], mbps[1]);
	printf("operations in the window: %ld -> %ld%s\n", profile_ops(&p[0]), profile_ops(&p[1]),
	       p[0].npair > 1 ? " (summed over the seeds)" : "");
	free(mbps[0]);
	free(mbps[1]);
	printf("total: %.1f -> %.1f instructions/op, change %+.1f (%+.2f%%)\n", t->total[0],
	       t->total[1], change, t->total[0] ? 100 * change / t->total[0] : 0);
	if (t->misses)
		printf("cache misses per operation (COST = cycles); rows by the change of their "
		       "estimated cycles\n");
	printf("  %-36s %12s %12s %12s %8s%s\n", "function", "A/op", "B/op", "delta", "share",
	       t->misses ? "   L1D A/op   L1D B/op    LL A/op    LL B/op" : "");
	for (i = 0; i < t->n && i < top; i++) {
		const struct profile_row *r = &t->row[i];
		double d = r->v[1] - r->v[0];

		printf("  %-36s %12.2f %12.2f %+12.2f %7.1f%%", r->function, r->v[0], r->v[1], d,
		       change ? 100 * d / change : 0);
		if (t->misses)
			printf(" %10.2f %10.2f %10.2f %10.2f", r->m[0][0], r->m[1][0], r->m[0][1],
			       r->m[1][1]);
		putchar('\n');
	}
	if (t->n > top)
		printf("  ... %d more rows (--top N, --format tsv)\n", t->n - top);
	printf("check: the %d rows add up to %+.3f instructions/op; the totals differ by %+.3f\n",
	       t->n, sum, change);
}

static void print_tsv(const struct profile_table *t)
{
	double change = t->total[1] - t->total[0];
	int i;

	printf("function\ta_per_op\tb_per_op\tdelta\tshare%s\n",
	       t->misses ? "\ta_l1d_misses_per_op\tb_l1d_misses_per_op\ta_ll_misses_per_op"
			   "\tb_ll_misses_per_op" : "");
	for (i = 0; i < t->n; i++) {
		const struct profile_row *r = &t->row[i];

		printf("%s\t%.3f\t%.3f\t%.3f\t%.6f", r->function, r->v[0], r->v[1], r->v[1] - r->v[0],
		       change ? (r->v[1] - r->v[0]) / change : 0);
		if (t->misses)
			printf("\t%.3f\t%.3f\t%.3f\t%.3f", r->m[0][0], r->m[1][0], r->m[0][1], r->m[1][1]);
		putchar('\n');
	}
	printf("[total]\t%.3f\t%.3f\t%.3f\t%.6f%s\n", t->total[0], t->total[1], change,
	       change ? 1.0 : 0.0, t->misses ? "\t\t\t\t" : "");
}

static int print_json(struct bench *be, const int idx[2], const struct bench_profile *p,
		      const struct profile_table *t)
{
	json_t *o = json_object(), *rows = json_array();
	double change = t->total[1] - t->total[0];
	char *s;
	int i;

	for (i = 0; i < t->n; i++) {
		const struct profile_row *r = &t->row[i];

		json_t *row = json_pack("{s:s, s:f, s:f, s:f}", "function", r->function, "a_per_op",
					r->v[0], "b_per_op", r->v[1], "delta", r->v[1] - r->v[0]);

		if (t->misses) {
			json_object_set_new(row, "a_l1d_misses_per_op", json_real(r->m[0][0]));
			json_object_set_new(row, "b_l1d_misses_per_op", json_real(r->m[1][0]));
			json_object_set_new(row, "a_ll_misses_per_op", json_real(r->m[0][1]));
			json_object_set_new(row, "b_ll_misses_per_op", json_real(r->m[1][1]));
		}
		json_array_append_new(rows, row);
	}
	json_object_set_new(o, "a", json_string(bench_label(be, idx[0])));
	json_object_set_new(o, "b", json_string(bench_label(be, idx[1])));
	json_object_set_new(o, "mode", json_string(bench_mode(be)));
	json_object_set_new(o, "a_mbps", json_real(p[0].pair[0].mbps));
	json_object_set_new(o, "b_mbps", json_real(p[1].pair[0].mbps));
	json_object_set_new(o, "a_ops", json_integer(profile_ops(&p[0])));
	json_object_set_new(o, "b_ops", json_integer(profile_ops(&p[1])));
	json_object_set_new(o, "a_total_per_op", json_real(t->total[0]));
	json_object_set_new(o, "b_total_per_op", json_real(t->total[1]));
	json_object_set_new(o, "delta", json_real(change));
	json_object_set_new(o, "rows", rows);
	s = json_dumps(o, JSON_INDENT(1));
	json_decref(o);
	if (!s)
		return error("profile: JSON output failed");
	puts(s);
	free(s);
	return 0;
}

/* How many profiled runs this call made, and their wall seconds. */
static void report_runs(const struct bench_profile p[2])
{
	struct sbuf sb;
	int k, n, r;

	sbuf_init(&sb);
	for (k = 0; k < 2; k++)
		for (n = 0; n < p[k].npair; n++)
			for (r = 0; r < 2; r++)
				if (p[k].pair[n].run_s[r] > 0)
					sbuf_addf(&sb, " %.1f", p[k].pair[n].run_s[r]);
	info("profile: %d profiled VM runs%s%s%s, the rest kept from before", p[0].ran + p[1].ran,
	     sb.len ? " (wall s:" : "", sb.buf, sb.len ? ")" : "");
	sbuf_release(&sb);
}

int cmd_profile(struct cmd_ctx *x, int argc, char **argv)
{
	struct bench_profile p[2];
	struct profile_args a;
	struct profile_table t;
	struct bench be;
	int idx[2], r, ret = EXIT_ERROR;

	if (parse_args(argc, argv, &a) < 0 || cmd_list_states(x) < 0 || pick_states(x, &a, idx) < 0 ||
	    bench_init(&be, &x->conf, &x->tree, &x->range) < 0)
		return cmd_failed(x);
	if (bench_profile_check(&be, x->conf.profile_plugin) < 0)
		goto out_be;
	r = why_profile_pair(&x->conf, &be, idx, p, &t);
	if (r == 0) {
		if (a.fmt == FMT_TSV)
			print_tsv(&t);
		else if (a.fmt == FMT_JSON)
			print_json(&be, idx, p, &t);
		else
			print_text(&be, idx, p, &t, a.top);
		report_runs(p);
		ret = EXIT_OK;
	} else {
		ret = r == 1 ? EXIT_SKIP : EXIT_ERROR;
	}
	profile_table_release(&t);
	bench_profile_release(&p[0]);
	bench_profile_release(&p[1]);
out_be:
	bench_release(&be);
	return cmd_exit(ret);
}
