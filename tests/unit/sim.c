/* sim: a simulated measurement backend for the engine, a test double (unit tests, simbench). */
#include "sim.h"
#include "util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

void sim_init(struct sim *s, int n, unsigned long seed, double noise)
{
	int i;

	s->n = n;
	s->truth = xcalloc((size_t)n, sizeof(double));
	for (i = 0; i < n; i++)
		s->truth[i] = 100.0;
	s->noise = noise;
	s->unusable = xcalloc((size_t)n, 1);
	s->failing = xcalloc((size_t)n, 1);
	s->v = xcalloc((size_t)n, sizeof(double *));
	s->nv = xcalloc((size_t)n, sizeof(int));
	s->nf = xcalloc((size_t)n, sizeof(int));
	s->label = xcalloc((size_t)n, sizeof(char *));
	for (i = 0; i < n; i++)
		s->label[i] = xasprintf("%d", i);
	s->measures = 0;
	s->abort_after = 0;
	s->width = 1;
	s->rounds = 0;
	s->rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(s->rng, seed);
}

void sim_release(struct sim *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i]);
		free(s->label[i]);
	}
	free(s->label);
	free(s->v);
	free(s->nv);
	free(s->nf);
	free(s->truth);
	free(s->unusable);
	free(s->failing);
	gsl_rng_free(s->rng);
}

static int sim_samples(void *ctx, int i, const double **v, int *nfail)
{
	struct sim *s = ctx;

	*v = s->v[i];
	*nfail = s->nf[i];
	return s->nv[i];
}

static int measure1(struct sim *s, int i)
{
	double x;

	if (s->abort_after && s->measures >= s->abort_after)
		return -1;
	if (s->unusable[i])
		return 1;
	s->measures++;
	if (s->failing[i]) {
		s->nf[i]++;
		return 0;
	}
	x = s->truth[i] * (1 + s->noise * gsl_ran_gaussian(s->rng, 1.0));
	s->v[i] = xrealloc(s->v[i], (size_t)(s->nv[i] + 1) * sizeof(double));
	s->v[i][s->nv[i]++] = x;
	return 0;
}

static int sim_measure(void *ctx, int i)
{
	struct sim *s = ctx;

	s->rounds++;
	return measure1(s, i);
}

static int sim_ensure_many(void *ctx, const int *idx, const int *want, int n)
{
	struct sim *s = ctx;
	int k, j, runs = 0;

	for (k = 0; k < n; k++)
		if (!s->unusable[idx[k]] && want[k] > s->nv[idx[k]])
			runs += want[k] - s->nv[idx[k]];
	s->rounds += (runs + s->width - 1) / s->width;
	for (k = 0; k < n; k++) {
		int more = s->unusable[idx[k]] ? 0 : want[k] - s->nv[idx[k]];

		for (j = 0; j < more; j++)
			if (measure1(s, idx[k]) < 0)
				return -1;
	}
	return 0;
}

static int sim_parallel(void *ctx)
{
	return ((struct sim *)ctx)->width;
}

/* One string per state: a line may print two labels. */
static const char *sim_label(void *ctx, int i)
{
	return ((struct sim *)ctx)->label[i];
}

const struct bisect_ops sim_ops = { sim_samples, sim_measure, sim_label, NULL, sim_ensure_many,
				     sim_parallel, NULL };
