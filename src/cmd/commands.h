/*
 * commands: the verbs of the tbisect binary, side by side.  Each takes the
 * context main() made (cmd.h: the configuration loaded, the tree
 * initialised, the lock taken when its table entry says so) and the
 * command's own arguments, and returns an enum exit_code (cmd.h).  No
 * command calls another: what two of them need lives below them, in
 * src/shared/ (cmd.h, why.h, changes.h) or further down.
 */
#ifndef TBISECT_COMMANDS_H
#define TBISECT_COMMANDS_H

#include "cmd.h"

typedef int cmd_fn(struct cmd_ctx *x, int argc, char **argv);
cmd_fn cmd_prepare, cmd_config, cmd_states, cmd_build, cmd_measure, cmd_results, cmd_plot;
cmd_fn cmd_sweep;
cmd_fn cmd_bisect, cmd_culprits, cmd_attribute;
cmd_fn cmd_baseline, cmd_check, cmd_git_bisect_run, cmd_releases, cmd_report;
cmd_fn cmd_profile, cmd_impact;

#endif
