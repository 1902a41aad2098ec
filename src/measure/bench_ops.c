/* bench_ops: the bisection engine's backend (struct bisect_ops) over bench: samples, runs, costs, trace. */
#include "bench.h"
#include "bench_ops.h"
#include "bench_run.h"
#include "util.h"

#include <string.h>

static int ops_samples(void *ctx, int i, const double **v, int *nfail)
{
	return bench_samples(ctx, i, v, nfail);
}

static const char *ops_label(void *ctx, int i)
{
	return ((struct bench *)ctx)->t[i].label;
}

static int ops_measure(void *ctx, int i)
{
	return bench_measure(ctx, i);
}

static int ops_ensure_many(void *ctx, const int *idx, const int *want, int n)
{
	return bench_ensure_many(ctx, idx, want, n);
}

static int ops_parallel(void *ctx)
{
	return bench_parallel(ctx);
}

/* Seconds of one run: this process's, else the store's recent runs in
 * this mode, else a default near what a run costs on a 2-core machine. */
static double run_cost(struct bench *be)
{
	const char *mode = be->conf->mode == MODE_ICOUNT ? "icount" : "wallclock";
	double sum = 0;
	int i, n = 0;

	if (be->runs)
		return (be->t_boot + be->t_bench) / be->runs;
	for (i = be->store.n - 1; i >= 0 && n < 20; i--) {
		const struct store_rec *r = &be->store.rec[i];

		if (r->ok && r->mode && !strcmp(r->mode, mode)) {
			sum += r->boot_s + r->bench_s;
			n++;
		}
	}
	return n ? sum / n : 20.0;
}

/* 1 when target i's kernel is not built yet, 0 when it is, -1 when it
 * cannot be (unusable). */
static int is_unbuilt(struct bench *be, int i)
{
	struct build_result res;
	enum build_status st;
	int r;

	if (be->t[i].unusable || !be->t[i].treeid[0])
		return -1;
	if (be->t[i].key_known)
		return 0;
	r = build_lookup(&be->build, be->t[i].treeid, &res, &st);
	build_result_release(&res);
	return r < 0 ? -1 : r;
}

/* The share of the states whose kernel is not built yet: of this round's
 * states, as a resumed or warm search visits again what it built (and a
 * cold one builds them all); without them, of up to 200 states spread
 * over the range. */
static double unbuilt_share(struct bench *be, const int *pts, int np)
{
	int i, k, n = 0, unbuilt = 0, step = be->nstates > 200 ? be->nstates / 200 : 1;

	for (k = 0; pts && k < np; k++)
		if (pts[k] >= 0 && pts[k] < be->n && (i = is_unbuilt(be, pts[k])) >= 0) {
			n++;
			unbuilt += i;
		}
	for (i = 0; !n && i < be->nstates && i < be->n; i += step)
		if ((k = is_unbuilt(be, i)) >= 0) {
			n++;
			unbuilt += k;
		}
	return n ? (double)unbuilt / n : 1.0;
}

/* Builds: this process's narrow incremental ones, else the config's
 * history, else half a minute (a link and a few objects take 15-60 s on a
 * 2-core machine); a full build is charged once when the O= directory is
 * still empty, at what the last such build cost (build_history_full_cost). */
static void ops_cost(void *ctx, struct bisect_costs *c)
{
	struct bench *be = ctx;
	struct build_history h;
	int known = build_history(&be->build, &h) == 0;

	c->run = run_cost(be);
	c->parallel = bench_parallel(be);
	if (be->n_incr)
		c->build = be->t_incr / be->n_incr;
	else if (known && h.n_incr)
		c->build = h.incr_s;
	else
		c->build = 30.0;
	c->build *= unbuilt_share(be, c->pts, c->np);
	c->full_extra = 0;
	if (build_next_is_full(&be->build))
		c->full_extra = build_history_full_cost(&h, 400.0) - c->build;	/* h zeroed when unknown */
}

/* The engine's trace lines go to stderr, as every progress line. */
static void ops_trace(void *ctx, enum bisect_trace level, const char *line)
{
	(void)ctx;
	if (level == BISECT_TRACE_WARNING)
		warning("%s", line);
	else
		info("%s", line);
}

const struct bisect_ops bench_ops = { ops_samples, ops_measure, ops_label, ops_cost, ops_ensure_many,
				       ops_parallel, ops_trace };

int bench_gather(struct bench *be, int i, const double **v)
{
	return bisect_gather(&bench_ops, be, i, bench_runs_wanted(be->conf), 2, v);
}
