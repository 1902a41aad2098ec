/* stats: the statistics the verdicts use, with GSL. */
#include "stats.h"
#include "util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double *sorted_copy(const double *x, int n)
{
	double *c = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(double));

	if (n > 0) {
		memcpy(c, x, (size_t)n * sizeof(double));
		gsl_sort(c, 1, (size_t)n);
	}
	return c;
}

double stats_median(const double *x, int n)
{
	double *c, m;

	if (n <= 0)
		return NAN;
	c = sorted_copy(x, n);
	m = gsl_stats_median_from_sorted_data(c, 1, (size_t)n);
	free(c);
	return m;
}

double stats_sd(const double *x, int n)
{
	return n > 1 ? gsl_stats_sd(x, 1, (size_t)n) : 0.0;
}

double stats_min(const double *x, int n)
{
	return n > 0 ? gsl_stats_min(x, 1, (size_t)n) : NAN;
}

double stats_max(const double *x, int n)
{
	return n > 0 ? gsl_stats_max(x, 1, (size_t)n) : NAN;
}

double stats_z(double p)
{
	return gsl_cdf_ugaussian_Qinv(p);
}

struct tagged {
	double v;
	int group;
};

static int cmp_tagged(const void *a, const void *b)
{
	double x = ((const struct tagged *)a)->v, y = ((const struct tagged *)b)->v;

	return x < y ? -1 : x > y;
}

double stats_mann_whitney(const double *x, int nx, const double *y, int ny)
{
	int n = nx + ny, i, j;
	struct tagged *t;
	double rx = 0, ties = 0, u, mu, var, z;

	if (nx < 1 || ny < 1 || n < 3)
		return 1.0;
	t = xmalloc((size_t)n * sizeof(*t));
	for (i = 0; i < nx; i++)
		t[i] = (struct tagged){ x[i], 0 };
	for (i = 0; i < ny; i++)
		t[nx + i] = (struct tagged){ y[i], 1 };
	qsort(t, (size_t)n, sizeof(*t), cmp_tagged);
	for (i = 0; i < n; i = j) {
		double rank;

		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		rank = (i + 1 + j) / 2.0;	/* mid-rank of ranks i+1..j */
		for (int k = i; k < j; k++)
			if (!t[k].group)
				rx += rank;
		ties += pow(j - i, 3) - (j - i);
	}
	free(t);
	u = rx - nx * (nx + 1) / 2.0;
	mu = nx * (double)ny / 2.0;
	var = nx * (double)ny / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
	if (var <= 0)
		return 1.0;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return 2 * gsl_cdf_ugaussian_Q(z);
}

int stats_hodges_lehmann(const double *x, int nx, const double *y, int ny, double alpha,
			 double *est, double *lo, double *hi)
{
	size_t m = (size_t)nx * (size_t)ny, k = 0;
	double *d, z, c;
	long kk;

	if (nx < 1 || ny < 1)
		return -1;
	d = xmalloc(m * sizeof(double));
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++)
			d[k++] = y[j] - x[i];
	gsl_sort(d, 1, m);
	*est = gsl_stats_median_from_sorted_data(d, 1, m);
	z = stats_z(alpha / 2);
	c = m / 2.0 - z * sqrt(nx * (double)ny * (nx + ny + 1) / 12.0);
	kk = (long)floor(c);
	if (kk < 0)
		kk = 0;
	if ((size_t)kk >= m)
		kk = (long)m - 1;
	*lo = d[kk];
	*hi = d[m - 1 - (size_t)kk];
	free(d);
	return 0;
}

double stats_min_detectable(double cv, int n, int m, double alpha, double beta)
{
	if (n < 1 || m < 1)
		return INFINITY;
	return (stats_z(alpha / 2) + stats_z(beta)) * cv * sqrt(1.0 / n + 1.0 / m);
}
