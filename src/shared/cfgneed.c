/* cfgneed: whether a culprit needs the range's configuration, measured again under OTHER_CONFIG. */
#include "cfgneed.h"
#include "bench_ops.h"
#include "cfgrange.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum cfgneed_verdict verdict_of(enum bisect_status st)
{
	switch (st) {
	case BISECT_FOUND:
	case BISECT_AMBIGUOUS: return CFGNEED_BOTH;
	case BISECT_NO_DIFF: return CFGNEED_RANGE;
	case BISECT_NOT_SLOWER: return CFGNEED_REVERSED;
	default: return CFGNEED_UNKNOWN;
	}
}

/* The verdict in words, with the range's own configuration named. */
static char *says(const struct conf *c, enum cfgneed_verdict v, const char *file,
		  const struct bisect_result *res)
{
	switch (v) {
	case CFGNEED_BOTH:
		return xasprintf("the regression shows with OTHER_CONFIG %s too (%+.2f%%)", file,
				 100 * res->change);
	case CFGNEED_RANGE:
		return xasprintf("the regression needs the range's configuration (%s + %s): with "
				 "OTHER_CONFIG %s the step changes the figure by %+.2f%%, within the "
				 "threshold", c->kconfig_base, c->kconfig, file, 100 * res->change);
	case CFGNEED_REVERSED:
		return xasprintf("with OTHER_CONFIG %s the step is an improvement (%+.2f%%): the "
				 "regression needs the range's configuration (%s + %s)", file,
				 100 * res->change, c->kconfig_base, c->kconfig);
	default:
		return xasprintf("not known which configuration the regression needs: the culprit "
				 "or its parent cannot be built or booted with OTHER_CONFIG %s", file);
	}
}

int cfgneed_ready(const struct conf *c)
{
	return c->other_config ? cfgrange_check("OTHER_CONFIG", c->other_config) : 0;
}

int cfgneed_check(const struct conf *c, struct tree *t, const struct tree_range *rg, int parent,
		  int culprit, struct report *rep)
{
	struct tree_range two;
	struct bisect_params p;
	struct bisect_result res;
	struct bench_counts n;
	struct bench be;
	struct bisect b;
	char *file = util_basename_dup(c->other_config), *words;
	const char *u;
	int ret = -1;

	info("config: measuring %s and its parent %s with OTHER_CONFIG %s", rg->state[culprit].name,
	     rg->state[parent].name, c->other_config);
	if (cfgrange_other(t, c, rg, (int[]){ parent, culprit }, 2, &two) < 0)
		goto out;
	if (bench_init(&be, c, t, &two) < 0)
		goto out_two;
	bench_params(c, &p);
	bisect_init(&b, &bench_ops, &be, 2, &p);
	bisect_run(&b, 0, 1, &res);
	if (res.status == BISECT_ABORTED)
		goto out_bisect;
	ret = verdict_of(res.status);
	u = bench_workload(&be)->unit;
	if (ret != CFGNEED_UNKNOWN)
		printf("config: with OTHER_CONFIG %s, %s %.3f %s -> %s %.3f %s\n", c->other_config,
		       bench_label(&be, 0), res.good_v, u, bench_label(&be, 1), res.bad_v, u);
	words = says(c, ret, file, &res);
	printf("config: %s\n", words);
	if (rep)
		report_set(rep, REPORT_CONFIG, words);
	free(words);
	bench_counts(&be, &n);
	printf("config: %d kernel builds, %d cached kernels reused, %d VM runs for OTHER_CONFIG\n",
	       n.builds, n.cached, n.runs);
out_bisect:
	bisect_result_release(&res);
	bisect_release(&b);
	bench_release(&be);
out_two:
	tree_range_release(&two);
out:
	free(file);
	return ret;
}
