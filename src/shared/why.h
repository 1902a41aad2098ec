/*
 * why: the profile of two states and "why it is slower", below the
 * commands that use them (profile, bisect, culprits).
 *
 *	struct bench_profile p[2];
 *	struct profile_table t;
 *	r = why_profile_pair(&conf, be, idx, p, &t);    0, 1 or -1
 *	... t's rows, sorted ...
 *	profile_table_release(&t);
 *	bench_profile_release(&p[0]); bench_profile_release(&p[1]);
 *
 *	why_explain(&conf, be, parent, culprit, report);   prints, adds to report
 */
#ifndef TBISECT_WHY_H
#define TBISECT_WHY_H

#include "conf.h"
#include "report.h"
#include "bench_profile.h"
#include "profile.h"

/* The profiles of states idx[0] and idx[1] of be into p (release them)
 * and t (sorted; release it either way): 0, 1 when one cannot be built or
 * booted (reported), -1 on an error (reported). */
int why_profile_pair(const struct conf *c, struct bench *be, const int idx[2],
		     struct bench_profile p[2], struct profile_table *t);
/* Why culprit is slower than parent: in icount mode with PROFILE on, its
 * profile's largest rows printed, added to rep (when not NULL) and drawn
 * as plots/why.png.  A profile that cannot be had is a warning, never a
 * failure of the search. */
void why_explain(const struct conf *c, struct bench *be, int parent, int culprit, struct report *rep);

#endif
