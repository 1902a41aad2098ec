/*
 * Accuracy and cost of the bisection engine over the simulated backend:
 * >= 1000 seeded bisections in wall-clock (noisy) mode with 8% run-to-run
 * noise and a 10% regression at a random position of a 32-state range,
 * against plain bisection with one run per state (what a hand-written
 * "git bisect run" script does).
 */
#include "bisect.h"
#include "sim.h"
#include "util.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

/* Plain bisection: one run per probed state, "bad" when below the midpoint
 * of one GOOD and one BAD run. */
static int plain(struct sim *s, int good, int bad, int *runs)
{
	const double *v;
	int nf, lo = good, hi = bad;
	double g, b;

	sim_ops.measure(s, good);
	sim_ops.measure(s, bad);
	sim_ops.samples(s, good, &v, &nf);
	g = v[0];
	sim_ops.samples(s, bad, &v, &nf);
	b = v[0];
	*runs = 2;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2, n;

		sim_ops.measure(s, mid);
		n = sim_ops.samples(s, mid, &v, &nf);
		(*runs)++;
		if (v[n - 1] < (g + b) / 2)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 1000, n = 32, t;
	int right = 0, plain_right = 0, no_diff = 0;
	long runs = 0, plain_runs = 0;
	double noise = 0.08, drop = 0.10, t0 = util_now();
	struct bisect_params p;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	util_quiet = 1;
	bisect_params_default(&p);
	p.deterministic = 0;
	p.alpha = 0.001;
	p.runs_min = 3;
	p.runs_max = 40;
	for (t = 0; t < trials; t++) {
		int c = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)(n - 1)), i, pr;
		struct sim s;
		struct bisect b;
		struct bisect_result res;

		sim_init(&s, n, 5000 + (unsigned long)t, noise);
		for (i = 0; i < n; i++)
			s.truth[i] = i >= c ? 100 * (1 - drop) : 100;
		bisect_init(&b, &sim_ops, &s, n, &p);
		bisect_run(&b, 0, n - 1, &res);
		right += res.status == BISECT_FOUND && res.culprit == c;
		no_diff += res.status == BISECT_NO_DIFF;
		runs += s.measures;
		bisect_result_release(&res);
		bisect_release(&b);
		sim_release(&s);

		sim_init(&s, n, 9000 + (unsigned long)t, noise);
		for (i = 0; i < n; i++)
			s.truth[i] = i >= c ? 100 * (1 - drop) : 100;
		plain_right += plain(&s, 0, n - 1, &pr) == c;
		plain_runs += pr;
		sim_release(&s);
	}
	printf("simulated bisection: %d trials, %d states, noise %.0f%% (sd of one run), regression %.0f%%\n",
	       trials, n, 100 * noise, 100 * drop);
	printf("%-34s %10s %14s\n", "method", "right", "runs/bisection");
	printf("%-34s %9.2f%% %14.1f\n", "tbisect (SPRT + MW confirmation)", 100.0 * right / trials,
	       (double)runs / trials);
	printf("%-34s %9.2f%% %14.1f\n", "plain bisection, 1 run per state", 100.0 * plain_right / trials,
	       (double)plain_runs / trials);
	printf("ratio: accuracy x%.2f for x%.1f runs; tbisect said 'no regression' in %d trials; %.1f s\n",
	       (double)right / (plain_right ? plain_right : 1), (double)runs / plain_runs, no_diff,
	       util_now() - t0);
	gsl_rng_free(r);
	return 0;
}
