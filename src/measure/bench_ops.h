/*
 * bench_ops: the bisection engine's backend over bench (the bisect_ops
 * contract of bisect.h): samples from the store, runs through
 * bench_run.h, costs from what this process and the build history spent,
 * the engine's trace to stderr.  ctx is the struct bench.
 *
 *	bisect_init(&b, &bench_ops, &be, be.n, &params);
 */
#ifndef TBISECT_BENCH_OPS_H
#define TBISECT_BENCH_OPS_H

#include "bench.h"
#include "bisect.h"

extern const struct bisect_ops bench_ops;
/* Runs target i until it has bench_runs_wanted() runs (failed runs
 * retried up to 2 more than succeeded):
 * the count with *v as bench_samples() gives it, 0 when the target cannot
 * be built or booted, -1 on a tool error or interrupt. */
int bench_gather(struct bench *be, int i, const double **v);

#endif
