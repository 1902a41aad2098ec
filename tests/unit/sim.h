/*
 * sim: a simulated benchmark backend for the bisection engine, for tests
 * and benchmarks only.  State i has a true throughput truth[i]; a run
 * returns it times (1 + noise * N(0,1)) from a seeded generator, so a
 * bisection over it is fast and exactly repeatable.
 *
 *	struct sim s;
 *	sim_init(&s, n, seed, noise);  s.truth[i] = ...; s.unusable[i] = 1; ...
 *	bisect_init(&b, &sim_ops, &s, n, &params);
 *	(s.width = 2: the ops also run up to 2 states side by side)
 *	sim_release(&s);
 */
#ifndef TBISECT_SIM_H
#define TBISECT_SIM_H

#include "bisect.h"

struct sim {
	int n;
	double *truth;
	double noise;		/* relative sd of one run */
	char *unusable;		/* state does not build: measure says skip */
	char *failing;		/* every run of the state fails */
	double **v;		/* recorded samples */
	int *nv, *nf;
	int measures;		/* runs performed */
	int abort_after;	/* >0: measure returns -1 after this many runs */
	int width;		/* >1: offers ensure_many with this many at once */
	int rounds;		/* sequential steps: a measure, or an ensure_many
				 * of n runs counting ceil(n / width) */
	void *rng;
	char **label;		/* label[i]: "i", as ops->label gives it */
};

void sim_init(struct sim *s, int n, unsigned long seed, double noise);
void sim_release(struct sim *s);
extern const struct bisect_ops sim_ops;

#endif
