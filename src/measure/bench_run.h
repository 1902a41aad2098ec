/*
 * bench_run: runs of bench's targets in VMs.  A run starts from
 * bench_prepare() (the kernel built, its key known), boots the guest with
 * the benchmark and is recorded in the store before anything uses it; a
 * failed run is recorded too, and a setup error (no figure, a bad guest)
 * ends the command.  Up to bench_parallel() VMs run at once, the next
 * kernel built while earlier ones boot.
 *
 *	bench_init(&be, ...);                      bench.h
 *	bench_ensure_many(&be, idx, want, n);      each idx[k] to want[k] runs
 *	n = bench_samples(&be, i, &v, &nfail);     what they measured
 */
#ifndef TBISECT_BENCH_RUN_H
#define TBISECT_BENCH_RUN_H

#include "bench.h"

/* One run of target i: 0 run recorded (ok or failed), 1 target unusable
 * (does not build), -1 tool error or interrupt. */
int bench_measure(struct bench *be, int i);
/* Brings target idx[k] to want[k] recorded successful runs (one attempt per
 * missing run; targets with identical kernels share runs): up to
 * bench_parallel() VMs at once, the next kernel built while earlier ones
 * run.  Unusable targets are skipped.  0 done, -1 tool error or interrupt
 * (runs finished so far stay recorded). */
int bench_ensure_many(struct bench *be, const int *idx, const int *want, int n);

#endif
