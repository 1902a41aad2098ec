/*
 * check: the logic of the nightly regression check and its baseline, over
 * any bisection backend (the commands are in cmd_check.c).
 *
 * The baseline file (BASELINE, default WORKDIR/baseline.txt) records the
 * state, its samples, and what makes numbers comparable: tbisect major
 * version, measurement mode, config fragment hash and benchmark
 * parameters.  A check against a baseline that differs in any of those is
 * refused, not compared.
 */
#ifndef TBISECT_CHECK_H
#define TBISECT_CHECK_H

#include "bisect.h"

enum check_verdict { CHECK_PASS, CHECK_IMPROVED, CHECK_REGRESSED };

struct check_baseline {
	char *version;
	int major;
	char *mode;		/* bench_identity()'s: "icount shift=1 qemu=10.0" or
				 * "wallclock accel=kvm qemu=10.0" */
	char *config;		/* config fragment SHA-256 */
	char *params;		/* bench_identity()'s: "clients=2 seconds=2 smp=1
				 * mem=512 feat= cgdepth=3", " seeded" at SMP > 1 */
	int state;		/* the state's number */
	char *name;
	double *v;
	int n;
};

/* Parses baseline text; 0 or -1 (reported with file name). */
int check_baseline_parse(struct check_baseline *b, const char *file, const char *text);
char *check_baseline_format(const struct check_baseline *b);
/* NULL when cur may be compared with base, else a message (caller frees). */
char *check_incompatible(const struct check_baseline *base, const struct check_baseline *cur);
/* Verdict of head samples against baseline samples under params; the
 * relative change and test p-value (NAN in deterministic mode) out. */
enum check_verdict check_verdict(const struct bisect_params *p, const double *base, int nb,
				 const double *head, int nh, double *change, double *pval);
/* What a check found; filled by check_core(). */
struct check_report {
	enum check_verdict verdict;
	int skipped;		/* head cannot be built or booted */
	double head_v, base_v, change, p;
	int culprit;		/* -1 when none searched or found */
	double culprit_change;
};

/* The check over any backend: gathers the runs head needs (one in
 * deterministic mode, runs_min otherwise), compares them with the baseline
 * samples, and on a regression bisects base_state..head when do_bisect and
 * base_state >= 0.  Returns 0 with rep filled, -1 when aborted. */
int check_core(const struct bisect_params *p, const struct check_baseline *base, int base_state,
	       int head, const struct bisect_ops *ops, void *ctx, int n, int do_bisect,
	       struct check_report *rep);
/* Writes a JUnit XML report; 0 or -1. */
int check_junit(const char *path, const char *name, enum check_verdict v, int skipped,
		const char *message);
void check_baseline_release(struct check_baseline *b);

#endif
