/*
 * cfgneed: the second dimension of a search, which configuration a
 * culprit needs.  With OTHER_CONFIG set, bisect measures the culprit and
 * its parent once more, each built with that configuration
 * (cfgrange_other()), and judges the step by the engine's own rule
 * (bisect_run() over those two states): the regression shows with both
 * configurations, or needs the range's own (KCONFIG_BASE + KCONFIG), or
 * turns into an improvement, or cannot be told (a state that does not
 * build or boot with it).
 *
 *	if (cfgneed_ready(&conf) < 0) ...     before the search
 *	r = cfgneed_check(&conf, &tree, &range, parent, culprit, &report);
 */
#ifndef TBISECT_CFGNEED_H
#define TBISECT_CFGNEED_H

#include "conf.h"
#include "report.h"
#include "tree.h"

/* What the step parent -> culprit does under OTHER_CONFIG. */
enum cfgneed_verdict {
	CFGNEED_BOTH,		/* a regression with OTHER_CONFIG too */
	CFGNEED_RANGE,		/* no change above the threshold with it: the
				 * regression needs the range's configuration */
	CFGNEED_REVERSED,	/* an improvement with it */
	CFGNEED_UNKNOWN,	/* a state does not build or boot with it */
};

/* Before a search: 0 when OTHER_CONFIG is not set or names a kernel
 * configuration, else -1 (reported, the file named): refused before
 * anything is built. */
int cfgneed_ready(const struct conf *c);
/* States parent and culprit of rg (a range of t) measured with
 * c->other_config, the verdict printed ("config: ..." lines) and kept in
 * rep's REPORT_CONFIG (when rep is not NULL).  The verdict, or -1 (reported:
 * the file is not a configuration, a tool error, an interrupt). */
int cfgneed_check(const struct conf *c, struct tree *t, const struct tree_range *rg, int parent,
		  int culprit, struct report *rep);

#endif
