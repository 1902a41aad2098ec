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

#endif
