/*
 * stats: the statistics behind verdicts.  Pure functions over arrays of
 * doubles; inputs are never modified.
 */
#ifndef TBISECT_STATS_H
#define TBISECT_STATS_H

double stats_median(const double *x, int n);
double stats_sd(const double *x, int n);	/* sample sd, 0 when n < 2 */
double stats_min(const double *x, int n);
double stats_max(const double *x, int n);

/* Two-sided Mann-Whitney U test of x against y, normal approximation with
 * tie and continuity correction.  Returns the p-value (1 when n < 2). */
double stats_mann_whitney(const double *x, int nx, const double *y, int ny);

/* Hodges-Lehmann estimate of the shift y - x (median of all pairwise
 * differences) with a (1-alpha) confidence interval from the Mann-Whitney
 * distribution (normal approximation).  Returns 0, -1 when a sample is
 * empty. */
int stats_hodges_lehmann(const double *x, int nx, const double *y, int ny, double alpha,
			 double *est, double *lo, double *hi);

/* Smallest relative shift a two-sided test at alpha detects with power
 * 1-beta for samples of n and m with relative noise cv. */
double stats_min_detectable(double cv, int n, int m, double alpha, double beta);

/* Upper standard normal quantile: z with P(Z > z) = p. */
double stats_z(double p);

#endif
