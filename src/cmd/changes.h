/*
 * changes: every state of a range that changes the benchmark's figure
 * above the floor (bisect_culprits()), found and printed, below the
 * commands that list them (culprits, impact).
 *
 *	struct bisect b;
 *	if (changes_find(x, be, &b, good, bad) < 0) ...
 *	... b.chg[0..b.nchg-1] ...
 *	bisect_release(&b);     whatever changes_find() returned
 */
#ifndef TBISECT_CHANGES_H
#define TBISECT_CHANGES_H

#include "cmd.h"

/* Lists every change in good..bad above the floor under be's benchmark
 * into b->chg and prints them, regressions and fixes, the ones not above
 * THRESHOLD marked small; b is initialised here and the caller releases it,
 * whatever is returned.  0, or -1 (reported: aborted, or an end that
 * cannot be measured). */
int changes_find(struct cmd_ctx *x, struct bench *be, struct bisect *b, int good, int bad);

#endif
