/*
 * bisect: the bisection engine, pure logic over a measurement backend.
 *
 * States are 0..n-1 in order.  The engine never measures directly: it asks
 * the backend for the samples of a state recorded so far and for one more
 * run when it needs it.  Because all decisions are made from recorded
 * samples in a fixed order, a bisection restarted after a kill replays the
 * same decisions from the results store and continues where it stopped.
 *
 * Verdicts.  A state is BAD when its runs look like BAD's rather than
 * GOOD's; BAD must be worse than GOOD (a lower figure, or a higher one
 * when p->lower_better: a time, a latency):
 *  - deterministic (icount) mode: one run; BAD when its figure is closer
 *    to BAD's median than to GOOD's.  Culprit and parent get a second run;
 *    repeats that differ by more than 0.1% switch the engine to the noisy
 *    rule (and the search restarts from the recorded samples).
 *  - noisy (wall-clock) mode: a sequential probability ratio test on the
 *    state's runs, normal model with the endpoints' medians and pooled sd;
 *    BAD when the log-likelihood ratio exceeds ln((1-a)/a) with a =
 *    alpha/10 (each verdict gets a share of the error budget), GOOD
 *    below its negative, more runs (interleaved with endpoint runs) in
 *    between, up to runs_max, then the sign decides and the verdict is
 *    flagged low-confidence.  Two states "differ" when a two-sided
 *    Mann-Whitney test gives p < alpha and the Hodges-Lehmann shift exceeds
 *    the threshold; runs are added in ABAB order while inconclusive.
 *    The culprit is verified against its parent; when they do not differ,
 *    the side that was misjudged is found (parent vs GOOD, culprit vs BAD)
 *    and searched again, at most three times.
 *
 * Side by side.  When the backend offers ensure_many() and parallel() > 1
 * (icount runs, whose figures do not depend on host load), the
 * deterministic rule probes w = parallel() states per round, cutting the
 * range into w + 1 parts, instead of one: 16 states take 3 rounds with
 * w = 2 instead of 4.  The endpoints' repeats move to the confirmation
 * round, and spare VMs in the last round run the repeats it will want.
 * The decisions are the same functions of the recorded samples, so a
 * resumed bisection still replays them.
 *
 *	struct bisect b;
 *	bisect_init(&b, &ops, ctx, n, &params);
 *	bisect_run(&b, good, bad, &res);        or bisect_culprits()
 *	... res.status, res.culprit (the command layer says it in words) ...
 *	bisect_result_release(&res); bisect_release(&b);
 */
#ifndef TBISECT_BISECT_H
#define TBISECT_BISECT_H

#include <stdio.h>

/* Seconds, as measured so far (or defaults): a kernel build of one more
 * state (incremental), the extra the next build costs when it is a full one
 * (an empty O= directory), and one run (boot + benchmark). */
struct bisect_costs {
	double build, full_extra, run;
	int parallel;		/* runs at once */
	/* In: the states this round tests (the backend may look at whether
	 * they are built: a resumed search visits what it built before). */
	const int *pts;
	int np;
};

/* Seconds left to search span states (BAD - GOOD) with np states per
 * round: per round np builds one after the other and the round's runs
 * (one per state, deterministic; 2 x runs_min when noisy) parallel at a
 * time, then the confirmation repeats of culprit and parent.  Pure. */
double bisect_time_left(const struct bisect_costs *c, int span, int np, int deterministic,
			int runs_min);

/* How much a trace line matters: progress, or something the user should
 * look at. */
enum bisect_trace { BISECT_TRACE_INFO, BISECT_TRACE_WARNING };

struct bisect_ops {
	/* Successful samples of state i so far: *v borrowed until the next
	 * measure call, count returned, failed runs into *nfail. */
	int (*samples)(void *ctx, int i, const double **v, int *nfail);
	/* One more run of state i: 0 done (recorded, ok or failed), 1 state
	 * unusable (does not apply/build: skip it), -1 abort (error/interrupt). */
	int (*measure)(void *ctx, int i);
	/* Short human label of state i. */
	const char *(*label)(void *ctx, int i);
	/* Optional: what the next states will cost, for time estimates
	 * (see struct bisect_costs). */
	void (*cost)(void *ctx, struct bisect_costs *c);
	/* Optional: brings each state idx[k] to want[k] samples, one attempt
	 * per missing sample (a failed run is not retried), running side by
	 * side where the backend can; unusable states are left for measure()
	 * to report.  0, or -1 abort. */
	int (*ensure_many)(void *ctx, const int *idx, const int *want, int n);
	/* Optional: runs ensure_many() makes at once (1 when absent). */
	int (*parallel)(void *ctx);
	/* Optional: what the search is doing, in words, one line without a
	 * newline (a round's states, a skipped state, a switch of rule).  The
	 * engine prints nothing itself; NULL keeps it silent. */
	void (*trace)(void *ctx, enum bisect_trace level, const char *line);
};

struct bisect_params {
	int deterministic;
	double threshold;	/* relative, e.g. 0.01 */
	double alpha;
	int runs_min, runs_max;
	int max_fail;		/* failed runs before a state is skipped */
	int step;		/* culprits: initial grid step */
	/* culprits, deterministic rule: the smallest change listed (0 = the
	 * threshold); changes between it and the threshold are marked small.
	 * One icount run measures a change of a few tenths of a percent. */
	double floor;
	int lower_better;	/* the figure is better lower (a time, a latency):
				 * a rise is the regression */
};

enum bisect_status {
	BISECT_FOUND,
	BISECT_NO_DIFF,		/* endpoints do not differ by the threshold */
	BISECT_NOT_SLOWER,	/* BAD is better than GOOD (faster, or lower
				 * when lower is better) */
	BISECT_AMBIGUOUS,	/* culprit among skipped states */
	BISECT_ENDPOINT_FAILED,	/* GOOD or BAD cannot be measured */
	BISECT_ABORTED,
};

struct bisect_result {
	enum bisect_status status;
	int good, bad;
	int culprit, parent;	/* parent = last good state */
	double good_v, bad_v, culprit_v, parent_v;
	double change;		/* (culprit - parent) / parent */
	double p, ci_lo, ci_hi;	/* noisy mode: test of culprit vs parent */
	double mde;		/* minimum detectable effect (relative) */
	int runs;		/* runs the engine asked for */
	int low_conf;		/* verdicts forced at runs_max */
	int nskipped;
	int *skipped;
	char confidence[160];
};

struct bisect_change {
	int state, parent;	/* parent < state; state-parent > 1: ambiguous */
	double from, to, change, p;
	int small;		/* |change| <= threshold (above the floor) */
};

struct bisect {
	struct bisect_params p;
	const struct bisect_ops *ops;
	void *ctx;
	int n;
	char *skip;
	int runs, aborted, low_conf;
	int switched;		/* deterministic rule gave way to the noisy one */
	int listing;		/* in bisect_culprits(): the floor applies */
	struct bisect_change *chg;
	int nchg;
	double mde;
};

void bisect_params_default(struct bisect_params *p);
/* Runs a state needs for a verdict: 1 under the deterministic rule,
 * runs_min under the statistical one (wall-clock, seeded SMP icount). */
int bisect_runs_wanted(const struct bisect_params *p);
void bisect_init(struct bisect *b, const struct bisect_ops *ops, void *ctx, int n,
		 const struct bisect_params *p);
/* Finds the first BAD state in good..bad.  Returns 0 (see res->status) or
 * -1 when aborted. */
int bisect_run(struct bisect *b, int good, int bad, struct bisect_result *res);
/* Finds every state in good..bad whose figure differs from its parent
 * by more than the threshold (by more than the floor under the
 * deterministic rule), into b->chg/b->nchg (sorted).  0, 1 when GOOD or BAD
 * cannot be measured (nothing listed), -1 when aborted. */
int bisect_culprits(struct bisect *b, int good, int bad);
/* Runs state i through ops until it has want successful samples.  Returns
 * their count with *v as ops->samples gives it, 0 when the state is unusable
 * or max_fail more of its runs failed than succeeded, -1 when aborted. */
int bisect_gather(const struct bisect_ops *ops, void *ctx, int i, int want, int max_fail,
		  const double **v);
/* Median of the samples of state i (NAN if none). */
double bisect_value(struct bisect *b, int i);
const char *bisect_rule(const struct bisect *b);
/* Whether a relative change (B - A) / A of the figure is for the worse: a
 * drop when higher is better, a rise when p->lower_better.  The one rule
 * the engine, check, and every listing call a change a regression by. */
int bisect_worse(const struct bisect_params *p, double change);
/* Whether a change above the floor is small: not above the threshold.
 * The one rule culprits, sweep, bisect's notes and check mark "small" by. */
int bisect_small(const struct bisect_params *p, double change);
/* The floor and threshold as check applies them: a deterministic change
 * above the floor (p->floor > 0) that bisect_small() calls small. */
int bisect_small_step(const struct bisect_params *p, double change);
/* The other steps a bisect_run() that found a culprit measured on its way,
 * by the rule bisect_culprits() lists changes by: under the deterministic
 * rule, each pair of adjacent measured states between res->good and
 * res->bad, but the culprit's own (parent, culprit), whose values differ by
 * more than bisect_floor(); .small as culprits marks it.  The count, the
 * changes in *out (caller frees; NULL when none). */
int bisect_other_changes(struct bisect *b, const struct bisect_result *res,
			 struct bisect_change **out);
/* The smallest change bisect_culprits() lists: the floor under the
 * deterministic rule when set, else the threshold. */
double bisect_floor(const struct bisect *b);
void bisect_result_release(struct bisect_result *res);
void bisect_release(struct bisect *b);

#endif
