/*
 * workload: the benchmark a guest runs (BENCH), and what its figure means.
 *
 * Each benchmark declares its metric and unit, its direction (whether a
 * higher or a lower figure is better), the host files the guest needs
 * (the image adds the libraries ldd names for its programs), the guest
 * command and its run length per mode, and the regular expression whose
 * first group is the figure in the command's output:
 *  - tbench (dbench): loopback throughput, MB/s, higher is better; the
 *    guest init images/init runs it (its image is the one measured before
 *    BENCH existed, byte for byte, so its figures stand);
 *  - hackbench (rt-tests): 4 groups of processes messaging over sockets,
 *    the time they take, s, lower is better;
 *  - iperf3: one TCP stream over loopback (MTU 16436, as in 2008) with
 *    128 KiB writes (the big-packet load TSO/GSO is for), receiver
 *    Mbit/s, higher is better;
 *  - cyclictest (rt-tests): one SCHED_FIFO thread waking every 1 ms, its
 *    average wakeup latency, ns, lower is better;
 *  - custom: CUSTOM_COMMAND (a host script or program, copied in with the
 *    libraries ldd names) run as "/bench/custom SECONDS CLIENTS",
 *    CUSTOM_REGEX, CUSTOM_UNIT and CUSTOM_BETTER (higher or lower).
 * Every benchmark but tbench runs under images/bench-init, which runs the
 * generated /bench/run and prints its output on TBISECT-OUT lines.
 *
 *	struct workload w;
 *	if (workload_init(&w, &conf) < 0) ...    unknown or incomplete (reported)
 *	if (workload_check_host(&w) < 0) ...     a file is missing (reported)
 *	workload_parse(&w, output, &v, why, sizeof(why));
 *	workload_release(&w);
 */
#ifndef TBISECT_WORKLOAD_H
#define TBISECT_WORKLOAD_H

#include "conf.h"

#include <regex.h>
#include <stddef.h>

/* A host file the guest needs. */
struct workload_file {
	char *src;		/* host path */
	char *dst;		/* path inside the image */
	char *package;		/* what installs it */
	enum workload_kind {
		WORKLOAD_DATA,		/* a file the benchmark reads */
		WORKLOAD_PROGRAM,	/* a program whose libraries ldd lists */
		WORKLOAD_ANY,		/* a user's program, or a script or static
					 * binary that ldd refuses (no libraries) */
	} kind;
};

struct workload {
	char *name;		/* "tbench", "hackbench", ..., "custom" */
	char *metric;		/* "throughput", "time", "average wakeup latency" */
	char *unit;		/* "MB/s", "s", "Mbit/s", "ns" */
	int lower_better;	/* 1: a higher figure is a regression */
	/* metric, unit and lower_better describe the figure judged: with
	 * COST = cycles the cache model's estimated cycles ("cycles", lower
	 * better).  The benchmark's own figure, which workload_parse() reads
	 * and each run prints beside it, is in own_unit. */
	char *own_unit;
	int legacy;		/* tbench: images/init, no /bench/run */
	char *script;		/* /bench/run's text (NULL for tbench) */
	char *regex;		/* the figure is its first group */
	regex_t re;
	struct workload_file *files;
	int nfiles;
};

/* Whether name is a benchmark workload_init() knows: 1 or 0. */
int workload_known(const char *name);
/* The names workload_known() accepts, "tbench | hackbench | ...". */
const char *workload_names(void);
/* c's BENCH names a benchmark, else an error with its file:line (the
 * configuration takes any name: its names are this module's).  0 or -1
 * (reported).  main() calls it once the configuration is loaded. */
int workload_check_conf(const struct conf *c);
/* The benchmark c->bench names, its run length from c (SECONDS, CLIENTS)
 * and, for custom, the CUSTOM_* keys.  0, or -1 (reported: unknown name,
 * custom without CUSTOM_COMMAND or CUSTOM_REGEX, a regex that does not
 * compile); nothing to release then. */
int workload_init(struct workload *w, const struct conf *c);
/* Every file of w exists on the host, or an error that names the package
 * to install.  0 or -1 (reported). */
int workload_check_host(const struct workload *w);
/* The figure in output (what the guest printed on TBISECT-OUT lines, one
 * per line): the first match of w->regex, its first group parsed strictly
 * as a finite number > 0.  0, or -1 with why (what it read). */
int workload_parse(const struct workload *w, const char *output, double *v, char *why,
		   size_t size);
/* Whether c's benchmark needs seeded runs even on one CPU (vm_seeded()):
 * its figure repeats exactly, but moves under unrelated perturbations by
 * as much as the changes it should judge (CUSTOM_SEEDED for custom). */
int workload_seeded(const struct conf *c);
/* Whether c's figure judged is better lower (1) or higher (0): the
 * benchmark's direction, or lower with COST = cycles; without
 * workload_init(); bench_params() hands it to the engine as
 * bisect_params.lower_better, whose bisect_worse() judges changes. */
int workload_lower(const struct conf *c);
/* "higher is better" or "lower is better". */
const char *workload_direction(const struct workload *w);
void workload_release(struct workload *w);

#endif
