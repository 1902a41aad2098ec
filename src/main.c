/* main: tbisect's options, configuration and command table. */
/*
 * tbisect finds Linux kernel performance regressions by itself.  The
 * commands are in cmd_*.c and only they (through cmd.h) choose exit
 * statuses.
 */
#include "bench.h"
#include "cmd.h"
#include "commands.h"
#include "cppfilter.h"
#include "lock.h"
#include "run.h"
#include "util.h"
#include "workload.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: tbisect [-c bisect.conf] [-s KEY=VALUE]... [-q] COMMAND [ARGS]\n"
	      "\n"
	      "commands:\n"
	      "  prepare                 extract linux-source-6.1, apply kpatches/ as commits\n"
	      "  states                  list the states (index, commit, patch subject)\n"
	      "  config                  print the effective configuration\n"
	      "  build STATE...          build kernels (cached by content)\n"
	      "  measure [-n RUNS] STATE...  build, boot and run BENCH; print its figure\n"
	      "  bisect [GOOD BAD]       find the first state worse than GOOD (default: bisect.conf)\n"
	      "  culprits [GOOD BAD]     find every state that changes the figure (whole series)\n"
	      "  impact [GOOD BAD] [--bench LIST] [--at STATE,...] [--format markdown]\n"
	      "                          each culprit against its parent on every benchmark\n"
	      "  sweep [GOOD BAD]        measure every state, plot the whole curve (whole series)\n"
	      "  attribute [GOOD BAD] [--revert PATCH]...  BAD with each culprit (and suspect) reverted\n"
	      "  baseline [STATE]        record the nightly baseline (default GOOD)\n"
	      "  check [STATE]           nightly check of STATE (default head) against the baseline\n"
	      "  git-bisect-run [--good-above MBPS | --bad-below MBPS]  for 'git bisect run'\n"
	      "  results [--format tsv|csv|jsonl]  print every recorded run\n"
	      "  plot [GOOD BAD]         draw the regression plot from recorded runs\n"
	      "  report [--format markdown]  the last bisect, culprits or check, for a mail\n"
	      "  profile [A B] [--format text|tsv|json]  instructions per operation, function by function\n"
	      "                          (default: the last culprit and its parent)\n"
	      "  releases [SERIES|VERSION...]  Debian's linux-source releases (every series) as a git tree\n"
	      "\n"
	      "BENCH (-s BENCH=...): tbench (default), hackbench, iperf3, cyclictest or custom;\n"
	      "every command works on that benchmark's figure, worse by its direction.\n"
	      "STATE: base, head, an index, or a patch name.  With TREE = a kernel git tree, the\n"
	      "states are the first-parent commits GOOD..BAD, named by any git revision.\n"
	      "exit: 0 ok/culprit found, 1 regression (check) or bad (git-bisect-run), 2 error,\n"
	      "      3 no regression between the ends, 4 culprit among skipped states,\n"
	      "      125 cannot build/boot (skip), 130 interrupted; git-bisect-run exits 255 on a\n"
	      "      tool failure so that git bisect run stops.\n",
	      f);
}

struct command {
	const char *name;
	cmd_fn *fn;
	int lock;		/* takes the work-directory lock */
	int tree;		/* needs the prepared tree */
	int min, max;		/* arguments it takes; max -1: the command parses
				 * its options and counts them itself */
	const char *args;	/* its arguments, for the message */
};

/* Every command that prepares the tree takes the lock: prepare may extract
 * and commit the tree again under another command's feet. */
static const struct command commands[] = {
	{ "prepare", cmd_prepare, 1, 1, 0, 0, "no arguments" },
	{ "config", cmd_config, 0, 0, 0, 0, "no arguments" },
	{ "states", cmd_states, 1, 1, 0, 2, "[GOOD BAD]" },
	{ "build", cmd_build, 1, 1, 1, -1, "STATE..." },
	{ "measure", cmd_measure, 1, 1, 1, -1, "[-n RUNS] STATE..." },
	{ "bisect", cmd_bisect, 1, 1, 0, 2, "[GOOD BAD]" },
	{ "culprits", cmd_culprits, 1, 1, 0, 2, "[GOOD BAD]" },
	{ "impact", cmd_impact, 1, 1, 0, -1, "" },
	{ "sweep", cmd_sweep, 1, 1, 0, 2, "[GOOD BAD]" },
	{ "attribute", cmd_attribute, 1, 1, 0, -1, "" },
	{ "baseline", cmd_baseline, 1, 1, 0, 1, "[STATE]" },
	{ "check", cmd_check, 1, 1, 0, 1, "[STATE]" },
	{ "git-bisect-run", cmd_git_bisect_run, 1, 0, 0, -1, "" },
	{ "releases", cmd_releases, 1, 0, 0, -1, "" },
	{ "results", cmd_results, 0, 0, 0, 2, "[--format tsv|csv|jsonl]" },
	{ "plot", cmd_plot, 1, 1, 0, 2, "[GOOD BAD]" },
	{ "report", cmd_report, 0, 0, 0, 2, "[--format text|markdown]" },
	{ "profile", cmd_profile, 1, 1, 0, -1, "" },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

struct options {
	const char *conf_path;
	const char **sets;
	int nsets;
};

/* Parses the global options; -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+c:s:qhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->conf_path = optarg;
			break;
		case 's':
			o->sets = xrealloc(o->sets, (size_t)(o->nsets + 1) * sizeof(*o->sets));
			o->sets[o->nsets++] = optarg;
			break;
		case 'q':
			util_quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("tbisect %s\n", TBISECT_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_ERROR;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_ERROR;
	}
	return -1;
}

/* bisect.conf (the one named, or ./bisect.conf), then the environment, then
 * -s overrides: the later beats the earlier.  0 or -1. */
static int load_conf(struct conf *c, const struct options *o)
{
	const char *path = o->conf_path;
	struct cachesim_weights w;
	int i;

	if (!path && util_exists("bisect.conf"))
		path = "bisect.conf";
	if (path && conf_load(c, path) < 0)
		return -1;
	conf_apply_env(c);
	for (i = 0; i < o->nsets; i++)
		if (conf_set(c, "-s", o->sets[i]) < 0)
			return -1;
	return conf_finish(c) < 0 || workload_check_conf(c) < 0 || bench_check_cache(c, &w) < 0 ? -1 : 0;
}

/* The number of arguments against the table, before anything is done: an
 * argument a command would not read is refused, never ignored.  0 or -1
 * (reported). */
static int check_args(const struct command *cmd, int argc, char **argv)
{
	if (argc < cmd->min)
		return error("%s needs %s", cmd->name, cmd->args);
	if (cmd->max >= 0 && argc > cmd->max)
		return error("%s takes %s: '%s' is one argument too many", cmd->name, cmd->args,
			     argv[cmd->max]);
	return 0;
}

/* Lock, guardian and tree as the table says, then the command. */
static int run_command(const struct command *cmd, struct cmd_ctx *x, int argc, char **argv)
{
	int fd, ret;

	if (check_args(cmd, argc, argv) < 0)
		return EXIT_ERROR;
	if (cmd->lock) {
		/* The guardian holds the lock until the children of a killed
		 * tbisect are gone (run.h). */
		if ((fd = lock_workdir(x->conf.workdir, cmd->name)) == -2)
			return cmd_exit(EXIT_ERROR);
		if (fd < 0 || run_guard_start(fd) < 0)
			return EXIT_ERROR;
	}
	if (cmd->tree && cmd_prepare_tree(x) < 0)
		ret = cmd_exit(EXIT_ERROR);
	else
		ret = cmd->fn(x, argc, argv);
	run_guard_stop();
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { NULL, NULL, 0 };
	const struct command *cmd;
	struct cmd_ctx x;
	const char *self = strrchr(argv[0], '/');
	int ret;

	/* ccache runs the preprocessor through us (see cppfilter.h). */
	if (!strcmp(self ? self + 1 : argv[0], CPPFILTER_NAME))
		return cppfilter_main(argc, argv);
	util_signals_init();
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		goto out_opts;
	cmd = find_command(argv[optind]);
	if (!cmd) {
		error("unknown command '%s'", argv[optind]);
		usage(stderr);
		ret = EXIT_ERROR;
		goto out_opts;
	}
	memset(&x, 0, sizeof(x));
	x.argc = argc;
	x.argv = (const char *const *)argv;
	conf_init(&x.conf);
	if (load_conf(&x.conf, &o) < 0) {
		ret = EXIT_ERROR;
		goto out_conf;
	}
	tree_init(&x.tree, &x.conf);	/* after the configuration: WORKDIR */
	ret = run_command(cmd, &x, argc - optind - 1, argv + optind + 1);
	tree_range_release(&x.range);
	tree_release(&x.tree);
out_conf:
	conf_release(&x.conf);
out_opts:
	free(o.sets);
	if (ret == EXIT_INTERRUPTED)
		util_signal_exit();
	return ret;
}
