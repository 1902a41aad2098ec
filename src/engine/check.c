/* check: the nightly check's logic and its baseline format. */
#include "check.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void set_str(char **field, const char *val)
{
	free(*field);
	*field = xstrdup(val);
}

/* "state INDEX NAME": an index that is not a state would read outside the
 * tree, so it must be a whole number >= 0.  0 or -1. */
static int parse_state(struct check_baseline *b, char *val)
{
	char *sp = strchr(val, ' ');
	long l;

	if (sp)
		*sp++ = '\0';
	if (util_parse_long(val, &l) < 0 || l < 0 || l > 1000000000)
		return -1;
	b->state = (int)l;
	set_str(&b->name, sp ? sp : "?");
	return 0;
}

static int parse_samples(struct check_baseline *b, char *val)
{
	char *tok;
	double d;

	while ((tok = strsep(&val, " "))) {
		if (!*tok)
			continue;
		if (util_parse_double(tok, &d) < 0 || !(d > 0))
			return -1;
		b->v = xrealloc(b->v, (size_t)(b->n + 1) * sizeof(double));
		b->v[b->n++] = d;
	}
	return 0;
}

/* One "KEY VALUE" line into b.  0 or -1 (unknown key, bad value). */
static int parse_line(struct check_baseline *b, const char *key, char *val, int *magic)
{
	long l;

	if (!strcmp(key, "tbisect-baseline"))
		*magic = 1;
	else if (!strcmp(key, "version"))
		set_str(&b->version, val);
	else if (!strcmp(key, "major")) {
		if (util_parse_long(val, &l) < 0 || l < 0 || l > 1000000)
			return -1;
		b->major = (int)l;
	} else if (!strcmp(key, "mode"))
		set_str(&b->mode, val);
	else if (!strcmp(key, "config"))
		set_str(&b->config, val);
	else if (!strcmp(key, "params"))
		set_str(&b->params, val);
	else if (!strcmp(key, "state"))
		return parse_state(b, val);
	else if (!strcmp(key, "samples"))
		return parse_samples(b, val);
	else
		return -1;
	return 0;
}

int check_baseline_parse(struct check_baseline *b, const char *file, const char *text)
{
	char *copy = xstrdup(text), *p = copy, *line, *val;
	int lineno = 0, magic = 0;

	memset(b, 0, sizeof(*b));
	while ((line = strsep(&p, "\n"))) {
		lineno++;
		if (!*line)
			continue;
		val = strchr(line, ' ');
		if (!val)
			goto bad;
		*val++ = '\0';
		if (parse_line(b, line, val, &magic) < 0)
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

/* The benchmark benchmark parameters name (bench_identity(): " bench=NAME",
 * none for tbench); caller frees. */
static char *params_bench(const char *params)
{
	const char *p = strstr(params, " bench=");

	return p ? xstrndup(p + 7, strcspn(p + 7, " ")) : xstrdup("tbench");
}

char *check_incompatible(const struct check_baseline *base, const struct check_baseline *cur)
{
	char *a = params_bench(base->params), *b = params_bench(cur->params), *msg = NULL;

	if (strcmp(a, b))
		msg = xasprintf("baseline is of benchmark %s, this check runs %s (BENCH)", a, b);
	free(a);
	free(b);
	if (msg)
		return msg;
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
		if (fabs(*change) <= p->threshold)
			return CHECK_PASS;
		return bisect_worse(p, *change) ? CHECK_REGRESSED : CHECK_IMPROVED;
	} else {
		double est, lo, hi;

		*pval = stats_mann_whitney(base, nb, head, nh);
		stats_hodges_lehmann(base, nb, head, nh, p->alpha, &est, &lo, &hi);
		*change = est / mb;
		if (*pval >= p->alpha)
			return CHECK_PASS;
		if (fabs(*change) <= p->threshold)
			return CHECK_PASS;
		return bisect_worse(p, *change) ? CHECK_REGRESSED : CHECK_IMPROVED;
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
	k = bisect_gather(ops, ctx, head, bisect_runs_wanted(p), 2, &v);
	if (k < 0)
		return -1;
	if (k == 0) {
		rep->skipped = 1;
		return 0;
	}
	rep->head_v = stats_median(v, k);
	rep->verdict = check_verdict(p, base->v, base->n, v, k, &rep->change, &rep->p);
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
