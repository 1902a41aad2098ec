/*
 * conf: bisect.conf, "KEY = VALUE" lines in the style of ktest.pl, parsed
 * with libinih.  A line whose first non-blank character is '#' or ';' is a
 * comment; a '#' or ';' after white space later in a line is an error (no
 * comments after a value).  Keys are case-insensitive; unknown keys,
 * duplicate keys, lines without '=', lines longer than libinih reads
 * whole, bad values and files over CONF_MAX_BYTES are errors reported as
 * "FILE:LINE: message: 'text'".
 *
 * Calling sequence:
 *	struct conf c;
 *	conf_init(&c);                  defaults
 *	if (conf_load(&c, "bisect.conf") < 0) ... error already reported
 *	conf_apply_env(&c);             TBISECT_WORKDIR beats the file
 *	conf_set(&c, "-s", "KEY=VALUE") ...  and -s beats both
 *	if (conf_finish(&c) < 0) ...    checks across keys, SECONDS by MODE
 *	... use c ...
 *	conf_release(&c);
 * Strings in struct conf are owned by it.  Relative paths are resolved
 * against the directory of the configuration file.
 */
#ifndef TBISECT_CONF_H
#define TBISECT_CONF_H

#include <stddef.h>
#include <stdio.h>

/* The largest configuration file read (a bisect.conf has a few KiB). */
#define CONF_MAX_BYTES (1 << 20)

enum conf_mode { MODE_ICOUNT, MODE_WALLCLOCK };
/* What a run's cost is judged in (COST): the benchmark's own figure, or
 * the cache model's estimated cycles per unit of work (docs/cost.md). */
enum conf_cost { COST_INSTRUCTIONS, COST_CYCLES };
enum conf_accel { ACCEL_AUTO, ACCEL_KVM, ACCEL_TCG };

struct conf {
	char *path;		/* file loaded, NULL if defaults only */
	char *workdir;		/* work directory (outside the repository); NULL
				 * until set when no default exists (conf_finish) */
	char *tarball;		/* /usr/src/linux-source-6.1.tar.xz */
	char *patches;		/* kpatches directory (holds "series") */
	char *kconfig;		/* config fragment merged onto the base config */
	char *kconfig_base;	/* "tinyconfig", "defconfig" or a .config file */
	char *gittree;		/* TREE: a kernel git repository, NULL = the series */
	char *image_init;	/* guest init script (tbench) */
	char *bench_init;	/* guest init script of the other benchmarks */
	char *bench;		/* BENCH: workload.h's name */
	char *custom_command;	/* BENCH = custom: host program or script, NULL unset */
	char *custom_regex;	/* its figure: the first group, NULL unset */
	char *custom_unit;	/* "units" by default */
	char *custom_better;	/* "higher" or "lower" */
	int custom_seeded;	/* its runs are seeded (workload_seeded()) */
	char *profile_plugin;	/* PROFILE_PLUGIN: tbprof, for profile */
	char *plot_dir;
	char *baseline;		/* nightly baseline file */
	char *good, *bad;	/* range endpoints: base, index or patch name;
				 * with TREE, revisions */
	int good_line, bad_line; /* line of GOOD/BAD in path, 0 if default */
	char *good_config, *bad_config;	/* a config range's ends (cfgrange.h), NULL:
					 * the range is of source states */
	char *at;		/* the config range's source state, NULL: head */
	char *other_config;	/* OTHER_CONFIG: a second configuration the
				 * culprit is measured with (cfgneed.h), NULL */
	int bench_line;		/* line of BENCH in path, 0 if default or -s: its
				 * name is checked by workload_check_conf() */
	long clients, seconds;
	enum conf_mode mode;
	enum conf_accel accel;
	enum conf_cost cost;
	char *cache_geometry;	/* CACHE_GEOMETRY, NULL: the model's default */
	char *cache_weights;	/* CACHE_WEIGHTS, NULL: the model's default */
	long shift, smp, memory_mb, jobs;
	long cgroup_depth;	/* cgroup levels tbench runs in, 0 = root */
	long vms;		/* VMs at once in icount mode, 0 = cores */
	long build_timeout, boot_timeout;
	double threshold;	/* relative change, 0.01 = 1% */
	double alpha;		/* significance level (wall-clock mode) */
	long runs_min, runs_max;
	long culprit_step;	/* grid step of the culprit search */
	double culprit_floor;	/* icount culprits: smallest change listed */
	int check_bisect;	/* nightly: search culprit on regression */
	int cpp_filter;		/* ccache through cppfilter (build.c) */
	int profile;		/* bisect/culprits profile their culprits */
	char *feat;		/* sched features set in the guest, "" none */
	char *qemu;		/* qemu binary */
	char *distcc_hosts;	/* DISTCC_HOSTS, "" = local builds */
};

void conf_init(struct conf *c);
/* Returns 0, or -1 after reporting the first error with file:line. */
int conf_load(struct conf *c, const char *path);
/* Parses configuration text of len bytes (NULs allowed: they are an
 * error); file names it in messages.  Returns 0 or -1 (reported). */
int conf_parse(struct conf *c, const char *file, const char *data, size_t len);
/* Parses one "KEY = VALUE" assignment (as given with -s on the command
 * line); what names the source in messages. */
int conf_set(struct conf *c, const char *what, const char *assignment);
/* Applies the environment's override (TBISECT_WORKDIR): after conf_load,
 * before the -s assignments. */
void conf_apply_env(struct conf *c);
/* Checks what involves several keys (RUNS_MIN <= RUNS_MAX, GOOD_CONFIG
 * and BAD_CONFIG both or neither, a work
 * directory at all: none when HOME and XDG_CACHE_HOME are unset or
 * relative) and resolves defaults that depend on other keys (SECONDS = 0:
 * by MODE).  Call it once, after the last conf_set.  0 or -1 (reported). */
int conf_finish(struct conf *c);
void conf_release(struct conf *c);
const char *conf_mode_name(enum conf_mode m);
const char *conf_accel_name(enum conf_accel a);
/* Writes the effective configuration as KEY = VALUE lines, each with its
 * meaning as a comment, to f. */
void conf_dump(const struct conf *c, FILE *f);

/* Whether v is a comma-separated list of sched feature names (upper-case
 * letters, digits, '_'; empty is fine): 1 or 0. */
int conf_sched_features_ok(const char *v);

#endif
