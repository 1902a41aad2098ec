/*
 * cfgrange: a config range.  Two kernel configurations (GOOD_CONFIG and
 * BAD_CONFIG: whole .config files, or fragments merged onto KCONFIG_BASE
 * and KCONFIG) at one source state (AT) become a git history on top of it
 * whose commits each carry their whole configuration in the tree's
 * BUILD_STATE_CONFIG file: the first is GOOD's configuration as the tree
 * resolves it, each next one changes one option, or the group that must
 * change with it (kcfg_steps()), and the last is BAD's.  Every command
 * then works on it as on any range: identical configurations are one tree
 * id and share their builds and runs.
 *
 * Each state is named by what it changes ("CONFIG_HZ_1000", "CONFIG_A+2"
 * for a group), its subject lists the change ("CONFIG_HZ_250=y ->
 * CONFIG_HZ_250 is not set, ..."), and its commit carries the trailers
 * Tbisect-Config, Tbisect-State and Tbisect-Patch.  The history is made
 * once per (AT, both files, KCONFIG_BASE, KCONFIG) and kept under
 * refs/tbisect/config/KEY/{good,bad}.
 *
 *	r = cfgrange_span(&tree, &conf, at_commit, &range);
 *	0: range listed; 1: no effective difference (said); -1: error
 *
 * The other dimension: OTHER_CONFIG, a second configuration, put on given
 * states of a range of source states, so that a culprit and its parent can
 * be measured with it too (cfgneed.h):
 *
 *	cfgrange_other(&tree, &conf, &range, (int[]){ parent, culprit }, 2, &two);
 */
#ifndef TBISECT_CFGRANGE_H
#define TBISECT_CFGRANGE_H

#include "conf.h"
#include "tree.h"

/* Lists the config range of c (GOOD_CONFIG..BAD_CONFIG) at commit at (40
 * hex) of t into r, making its history when it is not made yet (this
 * checks out at, and resolves each configuration with the tree's kconfig
 * in WORKDIR/config-scratch, a few seconds each).  Files that are not
 * kernel configurations are refused before anything runs.  Options a file
 * sets that kconfig does not take are named (unknown to the tree, or their
 * dependencies unmet).  0, 1 when both resolve to one configuration
 * (said: nothing to bisect), -1 on error (reported). */
int cfgrange_span(const struct tree *t, const struct conf *c, const char *at, struct tree_range *r);
/* Whether the file path (named by the setting key in errors) is a kernel
 * configuration: 0, or -1 (reported with the file and line). */
int cfgrange_check(const char *key, const char *path);
/* States idx[0..n-1] of rg (a range of t) with OTHER_CONFIG as their
 * configuration, into r (n states, rg's numbers, named "NAME+FILE"): the
 * file is resolved as a build would (base + KCONFIG + the file) at each
 * state, checked out for that, and committed on it as BUILD_STATE_CONFIG
 * (fixed identity and dates: the same commit each time).  Options kconfig
 * did not take are named.  0, or -1 (reported: a file that is not a kernel
 * configuration, kconfig failed; r empty). */
int cfgrange_other(const struct tree *t, const struct conf *c, const struct tree_range *rg,
		   const int *idx, int n, struct tree_range *r);

#endif
