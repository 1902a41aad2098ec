/*
 * changes: every state of a range that changes the benchmark's figure
 * above the floor (bisect_culprits()), found and printed, below the
 * commands that list them (culprits, impact).
 *
 *	struct bisect b;
 *	if (changes_find(&conf, &range, be, &b, good, bad) < 0) ...
 *	... b.chg[0..b.nchg-1] ...
 *	bisect_release(&b);     whatever changes_find() returned
 */
#ifndef TBISECT_CHANGES_H
#define TBISECT_CHANGES_H

#include "bench.h"
#include "bisect.h"
#include "conf.h"
#include "tree.h"

#include <stddef.h>

/* Lists every change in good..bad of rg above the floor under be's benchmark
 * into b->chg and prints them, regressions and fixes, the ones not above
 * THRESHOLD marked small; b is initialised here and the caller releases it,
 * whatever is returned.  0, or -1 (reported: aborted, or an end that
 * cannot be measured). */
int changes_find(const struct conf *c, const struct tree_range *rg, struct bench *be, struct bisect *b,
		 int good, int bad);
/* What "small" means when changes are listed from bisect_floor(): "" when
 * the floor is the threshold, else "; 'small': not above the T% threshold". */
void changes_small_note(const struct bisect *b, char *buf, size_t n);
/* "  (kernel log: 3 errors or warnings, its parent 0: FIRST)" when state's
 * guest logged more kernel errors or warnings than parent's, else "": the
 * one rule culprits, sweep and bisect flag a change of guest health by. */
void changes_health_note(const struct bench *be, int parent, int state, char *buf, size_t n);
/* "regression" or "improvement" for a change of the figure, by
 * bisect_worse(). */
const char *changes_word(const struct bisect_params *p, double change);

#endif
