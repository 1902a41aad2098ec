/*
 * bench_profile: a target's profile, two runs under QEMU's TCG plugin
 * (src/guest/tbprof.c), kept in WORKDIR/profiles under the target's
 * measurement key; profile.h turns them into instructions per function.
 *
 *	if (bench_profile_check(&be, plugin) < 0) ...   before anything is built
 *	struct bench_profile p;
 *	r = bench_profile(&be, i, plugin, &p);           0, 1 or -1
 *	... p.pair[k].counts, p.symbols, p.programs ...
 *	bench_profile_release(&p);
 */
#ifndef TBISECT_BENCH_PROFILE_H
#define TBISECT_BENCH_PROFILE_H

#include "bench.h"

/* A target's profile (profile.h): two runs under QEMU's TCG plugin, of
 * SECONDS and of 2 x SECONDS of tbench, kept in WORKDIR/profiles under the
 * target's measurement key (with each run's MB/s and tbench operations in
 * FILE.meta), so a second profile runs no VM. */
struct bench_profile_pair {
	long seed;		/* seeded SMP: the runs' seed (as run k of a state), else 0 */
	char *counts[2];	/* the plugin's files, SECONDS and 2 x SECONDS */
	long ops[2];		/* tbench operations each run finished */
	double mbps;		/* the SECONDS run's MB/s */
	double run_s[2];	/* their wall seconds (0 when kept) */
};
struct bench_profile {
	struct bench_profile_pair *pair;	/* one; seeded SMP: one per seed 1..RUNS */
	int npair;
	char *symbols;		/* `nm -n` of the kernel, beside it in the cache */
	char **programs;	/* the guest's user-space binaries (image_programs) */
	int ran;		/* VM runs this call made */
};
/* Checks that the benchmark is tbench (its operation table is the unit of
 * work) and that QEMU loads the plugin (bench_plugin_check()) before
 * anything is built: 0, or -1 (reported, naming the fix). */
int bench_profile_check(struct bench *be, const char *plugin);
/* Profiles target i: 0 with p filled (release it), 1 when the target
 * cannot be built or booted, -1 on an error or interrupt. */
int bench_profile(struct bench *be, int i, const char *plugin, struct bench_profile *p);
void bench_profile_release(struct bench_profile *p);

#endif
