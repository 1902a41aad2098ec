/*
 * cmd: what the commands of the tbisect binary share (their context,
 * ranges, reports, plots), and the one home of their exit statuses.
 * Library modules return 0/-1 (or a documented enum) and never an exit
 * status; a command maps what they return to one of these.  The commands
 * themselves are declared in commands.h, one layer up (src/cmd/).
 *
 * main() parses the options and the configuration, finds the command in
 * its table, takes the work-directory lock and prepares the tree when the
 * table says so, then calls it:
 *	struct cmd_ctx x;           conf loaded, tree initialised
 *	status = cmd_bisect(&x, argc, argv);   argv: the command's arguments
 * A command owns nothing of x; main releases it.  Commands never ask which
 * kind of range they work on (the series or a user's git tree): both are
 * git histories listed by tree.h into x->range.
 */
#ifndef TBISECT_CMD_H
#define TBISECT_CMD_H

#include "bench.h"
#include "bisect.h"
#include "conf.h"
#include "hist.h"
#include "report.h"
#include "tree.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_FOUND_REGRESSION = 1,	/* check: regression; git-bisect-run: bad */
	EXIT_ERROR = 2,			/* usage, configuration, tool failure */
	EXIT_NO_REGRESSION = 3,		/* bisect: endpoints do not differ / BAD faster */
	EXIT_AMBIGUOUS = 4,		/* bisect: culprit among skipped states */
	EXIT_SKIP = 125,		/* cannot build or boot (git bisect's "skip") */
	EXIT_INTERRUPTED = 130,		/* main() then dies of the signal itself
					 * (util_signal_exit): a shell reads 130
					 * for SIGINT, 143 for SIGTERM, 129 for
					 * SIGHUP */
	EXIT_ABORT_BISECT = 255,	/* git-bisect-run: tool failure, stop git bisect */
};

struct cmd_ctx {
	struct conf conf;
	struct tree tree;
	struct tree_range range;	/* the states the command works on (cmd_range()) */
	int tree_ready;
	int no_difference;		/* the config range's ends resolve alike */
	int argc;			/* tbisect's own argv, for the report */
	const char *const *argv;
};

/* Prepares the tree (once).  0 or -1 (reported). */
int cmd_prepare_tree(struct cmd_ctx *x);
/* Lists x->range (tree_span(): the series, or GOOD..BAD of a user's tree,
 * from argv[0..1] or the configuration; with GOOD_CONFIG and BAD_CONFIG,
 * the config range at AT, cfgrange_span(), whose ends are its first and
 * last states unless argv names others) and resolves GOOD and BAD in it
 * into *good < *bad; errors name the configuration line.  0 or -1
 * (reported; cmd_failed() gives the exit status). */
int cmd_range(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad);
/* Lists x->range from the configuration unless a command listed it.  0 or
 * -1 (reported). */
int cmd_list_states(struct cmd_ctx *x);
/* The index in x->range of the state named spec (NULL: the last one), the
 * range listed first when it is not.  The index, or -1 (reported). */
int cmd_resolve(struct cmd_ctx *x, const char *spec);
/* cmd_range() when argv names the ends, else every listed state. */
int cmd_range_or_all(struct cmd_ctx *x, int argc, char **argv, int *good, int *bad);
/* Sets the report's guest line from the kernel logs of good and bad. */
void cmd_report_health(struct report *r, const struct bench *be, int good, int bad);
/* How a report names a state: its commit id, with its name after it when
 * the name says more ("<id> (0005-foo.patch)").  Caller frees. */
char *cmd_state_id(const struct tree_state *s);
/* The exit status of a command whose range could not be listed or
 * resolved (cmd_range(), cmd_list_states(), cmd_resolve() returned -1):
 * EXIT_NO_REGRESSION when a config range's two configurations resolve to
 * the same one (said already), else EXIT_ERROR. */
int cmd_failed(const struct cmd_ctx *x);
/* code, or EXIT_INTERRUPTED (with a word on resuming) after SIGINT/SIGTERM. */
int cmd_exit(int code);
/* Parses the value of option opt strictly: a finite number (or a whole one
 * for cmd_parse_count, at least 1).  0, or -1 reported as "bad value". */
int cmd_parse_number(const char *opt, const char *value, double *out);
int cmd_parse_count(const char *opt, const char *value, int *out);
/* Whether argv[*i] is option name with a value, as "--name V" or
 * "--name=V": 1 with *value set (and *i on the value's word), 0 when it is
 * another word, -1 when the value is missing (reported). */
int cmd_option(int argc, char **argv, int *i, const char *name, const char **value);
/* Draws plots/tbisect.* for states good..bad of r (be's targets) from
 * everything recorded, marking the changes in chg.  0 drawn; 1 nothing
 * recorded in good..bad (nothing drawn); -1 a state's samples could not be
 * looked up (reported; nothing drawn). */
int cmd_draw(struct cmd_ctx *x, struct bench *be, const struct tree_range *r, int good, int bad,
	      const struct bisect_change *chg, int nchg);
/* The report's mode, benchmark and unit from be: the one place a report
 * learns which benchmark it is about. */
void cmd_report_bench(struct report *r, struct bench *be);
/* Starts the report of a searching command: range (states good and bad of
 * x->range), mode and benchmark (cmd_report_bench(), when be is not NULL), settings, plot, the command that
 * reproduces it.  The caller adds the verdict and the numbers, then
 * cmd_report_save(). */
void cmd_report_init(struct cmd_ctx *x, struct bench *be, struct report *r, const char *command,
		     int good, int bad);
/* The cost line of r from what be did so far. */
void cmd_report_cost(struct report *r, const struct bench *be);
/* Saves r as WORKDIR/report.json (for `tbisect report`) and releases it;
 * with be, its cost first (cmd_report_cost). */
void cmd_report_save(struct cmd_ctx *x, struct bench *be, struct report *r);

#endif
