/* bisect: the bisection engine, pure logic over a measurement backend. */
#include "bisect.h"
#include "progress.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Endpoint samples interleaved with a probed state until each has this many. */
#define INTERLEAVE_UNTIL 10
#define REPEAT_TOLERANCE 0.001
/* Each state's verdict gets this share of alpha: a bisection makes several. */
#define SPRT_SHARE 10
/* Most states probed at once in one search round. */
#define PICK_MAX 8

void bisect_params_default(struct bisect_params *p)
{
	memset(p, 0, sizeof(*p));
	p->deterministic = 1;
	p->threshold = 0.01;
	p->alpha = 0.001;
	p->runs_min = 3;
	p->runs_max = 30;
	p->max_fail = 2;
	p->step = 4;
}

int bisect_runs_wanted(const struct bisect_params *p)
{
	return p->deterministic ? 1 : p->runs_min > 0 ? p->runs_min : 1;
}

void bisect_init(struct bisect *b, const struct bisect_ops *ops, void *ctx, int n,
		 const struct bisect_params *p)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->ctx = ctx;
	b->n = n;
	b->p = *p;
	b->skip = xcalloc((size_t)n, 1);
}

void bisect_release(struct bisect *b)
{
	free(b->skip);
	free(b->chg);
	memset(b, 0, sizeof(*b));
}

void bisect_result_release(struct bisect_result *res)
{
	free(res->skipped);
	memset(res, 0, sizeof(*res));
}

const char *bisect_rule(const struct bisect *b)
{
	return b->p.deterministic
		? "deterministic rule: one run per state; BAD when closer to BAD's figure than "
		  "to GOOD's; culprit and parent repeated (repeats must agree within 0.1%)"
		: "noisy rule: sequential likelihood-ratio test per state (BAD when ln LR > "
		  "ln((1-alpha)/alpha)), runs interleaved with the endpoints; culprit vs parent "
		  "confirmed by Mann-Whitney (two-sided) with a Hodges-Lehmann shift and CI";
}

static int count(struct bisect *b, int i, const double **v)
{
	int nf;

	return b->ops->samples(b->ctx, i, v, &nf);
}

/* A trace line through ops->trace, when the backend asked for them. */
static void say(const struct bisect *b, enum bisect_trace level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(const struct bisect *b, enum bisect_trace level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!b->ops->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	b->ops->trace(b->ctx, level, line);
}

/* Makes sure state i has at least want samples.  Returns the count, -1 when
 * the state is unusable (now marked skipped), -2 when aborted. */
static int ensure(struct bisect *b, int i, int want)
{
	for (;;) {
		const double *v;
		int nf, n, r;

		if (b->aborted)
			return -2;
		if (b->skip[i])
			return -1;
		n = b->ops->samples(b->ctx, i, &v, &nf);
		if (n >= want)
			return n;
		if (nf >= b->p.max_fail + n) {
			say(b, BISECT_TRACE_INFO, "state %s skipped: %d of its runs failed", b->ops->label(b->ctx, i), nf);
			b->skip[i] = 1;
			return -1;
		}
		r = b->ops->measure(b->ctx, i);
		if (r < 0) {
			b->aborted = 1;
			return -2;
		}
		if (r == 1) {
			b->skip[i] = 1;
			return -1;
		}
		b->runs++;
	}
}

int bisect_gather(const struct bisect_ops *ops, void *ctx, int i, int want, int max_fail,
		  const double **v)
{
	for (;;) {
		int nf, n = ops->samples(ctx, i, v, &nf), r;

		if (n >= want)
			return n;
		if (nf >= max_fail + n)
			return 0;
		r = ops->measure(ctx, i);
		if (r < 0)
			return -1;
		if (r == 1)
			return 0;
	}
}

/* Parallel width of the backend in the deterministic rule, else 1. */
static int width(struct bisect *b)
{
	int w;

	if (!b->p.deterministic || !b->ops->ensure_many || !b->ops->parallel)
		return 1;
	w = b->ops->parallel(b->ctx);
	return w < 1 ? 1 : w > PICK_MAX ? PICK_MAX : w;
}

/* Gets state[k] up to want[k] samples with side-by-side runs where the
 * backend can; ensure() then finds them recorded.  Only a speed-up: what it
 * cannot do (failed runs, unusable states) is left to ensure().  0 or -2. */
static int prefetch(struct bisect *b, const int *state, const int *want, int n)
{
	int *st, *wn, m = 0, k, j, runs = 0, ret = 0;

	if (width(b) < 2)
		return 0;
	st = xcalloc((size_t)n + 1, sizeof(int));
	wn = xcalloc((size_t)n + 1, sizeof(int));
	for (k = 0; k < n; k++) {
		const double *v;
		int nf, have;

		if (state[k] < 0 || b->skip[state[k]])
			continue;
		have = b->ops->samples(b->ctx, state[k], &v, &nf);
		if (have >= want[k] || nf >= b->p.max_fail + have)
			continue;
		for (j = 0; j < m && st[j] != state[k]; j++)
			;
		if (j == m) {
			st[m] = state[k];
			wn[m++] = want[k];
			runs += want[k] - have;
		} else if (want[k] > wn[j]) {
			runs += want[k] - wn[j];
			wn[j] = want[k];
		}
	}
	if (runs >= 2) {
		if (b->ops->ensure_many(b->ctx, st, wn, m) < 0) {
			b->aborted = 1;
			ret = -2;
		} else {
			b->runs += runs;
		}
	}
	free(st);
	free(wn);
	return ret;
}

double bisect_value(struct bisect *b, int i)
{
	const double *v;
	int n = count(b, i, &v);

	return n ? stats_median(v, n) : NAN;
}

/* Relative spread of the first two repeats; switches to the noisy rule when
 * they disagree. */
static void check_repeats(struct bisect *b, int i)
{
	const double *v;
	int n = count(b, i, &v);

	if (!b->p.deterministic || n < 2)
		return;
	if (fabs(v[1] - v[0]) / v[0] > REPEAT_TOLERANCE) {
		say(b, BISECT_TRACE_WARNING, "repeats of %s differ by %.3f%% (> %.1f%%): measurements are not deterministic; "
			"switching to the noisy (statistical) rule",
			b->ops->label(b->ctx, i), 100 * fabs(v[1] - v[0]) / v[0], 100 * REPEAT_TOLERANCE);
		b->p.deterministic = 0;
		b->switched = 1;
	}
}

struct cmp {
	int differ;		/* 1 differ, 0 same/undecided */
	double a_v, b_v, change, p, lo, hi, mde;
};

/* Compares states a and b.  Returns 0 with c filled, -1 when a state is
 * unusable, -2 when aborted. */
static int compare(struct bisect *b, int a, int bb, struct cmp *c)
{
	const double *va, *vb;
	int k, na, nb, r;

	memset(c, 0, sizeof(*c));
	if (b->p.deterministic) {
		if ((r = ensure(b, a, 1)) < 0 || (r = ensure(b, bb, 1)) < 0)
			return r;
		c->a_v = bisect_value(b, a);
		c->b_v = bisect_value(b, bb);
		c->change = (c->b_v - c->a_v) / c->a_v;
		c->differ = fabs(c->change) > (b->listing ? bisect_floor(b) : b->p.threshold);
		c->p = NAN;
		return 0;
	}
	for (k = 1;; k++) {
		double est, lo, hi, ma, cv;

		/* ABAB: one run of each in turn. */
		if ((r = ensure(b, a, k)) < 0 || (r = ensure(b, bb, k)) < 0)
			return r;
		if (k < b->p.runs_min)
			continue;
		na = count(b, a, &va);
		nb = count(b, bb, &vb);
		ma = stats_median(va, na);
		c->a_v = ma;
		c->b_v = stats_median(vb, nb);
		c->p = stats_mann_whitney(va, na, vb, nb);
		stats_hodges_lehmann(va, na, vb, nb, b->p.alpha, &est, &lo, &hi);
		c->change = est / ma;
		c->lo = lo / ma;
		c->hi = hi / ma;
		cv = sqrt((pow(stats_sd(va, na), 2) + pow(stats_sd(vb, nb), 2)) / 2) / ma;
		c->mde = stats_min_detectable(cv, na, nb, b->p.alpha, 0.1);
		if (c->p < b->p.alpha && fabs(c->change) > b->p.threshold) {
			c->differ = 1;
			return 0;
		}
		/* Whole interval inside the threshold: the same, stop early. */
		if (c->lo > -b->p.threshold && c->hi < b->p.threshold)
			return 0;
		if (na >= b->p.runs_max && nb >= b->p.runs_max) {
			if (c->mde > b->mde)
				b->mde = c->mde;
			return 0;
		}
	}
}

/* Classifies state m between good g and bad bd: 1 BAD, 0 GOOD, -1 unusable,
 * -2 aborted. */
static int classify(struct bisect *b, int m, int g, int bd)
{
	const double *vm, *vg, *vb;
	int n, r, ng, nb;

	if (b->p.deterministic) {
		double x, gv, bv;

		if ((r = ensure(b, m, 1)) < 0)
			return r;
		x = bisect_value(b, m);
		gv = bisect_value(b, g);
		bv = bisect_value(b, bd);
		return fabs(x - bv) < fabs(x - gv);
	}
	for (n = b->p.runs_min;; n++) {
		double mg, mb, s, llr = 0, a = b->p.alpha / SPRT_SHARE, A = log((1 - a) / a);
		int i;

		if ((r = ensure(b, m, n)) < 0)
			return r;
		n = count(b, m, &vm);
		ng = count(b, g, &vg);
		nb = count(b, bd, &vb);
		mg = stats_median(vg, ng);
		mb = stats_median(vb, nb);
		s = sqrt(((ng - 1) * pow(stats_sd(vg, ng), 2) + (nb - 1) * pow(stats_sd(vb, nb), 2)) /
			 (ng + nb - 2 > 0 ? ng + nb - 2 : 1));
		if (s < 1e-9 * fabs(mg))
			s = 1e-9 * fabs(mg);
		for (i = 0; i < n; i++)
			llr += ((vm[i] - mg) * (vm[i] - mg) - (vm[i] - mb) * (vm[i] - mb)) / (2 * s * s);
		if (llr > A)
			return 1;
		if (llr < -A)
			return 0;
		if (n >= b->p.runs_max) {
			b->low_conf++;
			say(b, BISECT_TRACE_INFO, "%s: no clear verdict after %d runs (ln LR %.2f); taking the sign",
			     b->ops->label(b->ctx, m), n, llr);
			return llr > 0;
		}
		/* Interleave endpoint runs so drift hits all three alike. */
		if (ng < INTERLEAVE_UNTIL && (r = ensure(b, g, ng + 1)) == -2)
			return -2;
		if (nb < INTERLEAVE_UNTIL && (r = ensure(b, bd, nb + 1)) == -2)
			return -2;
	}
}

/* The unskipped state strictly between lo and hi nearest their middle, or -1. */
static int pick_mid(struct bisect *b, int lo, int hi)
{
	int mid = lo + (hi - lo) / 2, d;

	for (d = 0; d <= hi - lo; d++) {
		if (mid - d > lo && mid - d < hi && !b->skip[mid - d])
			return mid - d;
		if (mid + d > lo && mid + d < hi && !b->skip[mid + d])
			return mid + d;
	}
	return -1;
}

/* Up to k unskipped states strictly between lo and hi, in increasing order,
 * nearest to the points that cut lo..hi into k+1 equal parts.  Count. */
static int pick_points(struct bisect *b, int lo, int hi, int k, int *out)
{
	int j, m = 0;

	for (j = 1; j <= k; j++) {
		int t = lo + (int)((long)(hi - lo) * j / (k + 1)), d, got = -1;
		int floor = m ? out[m - 1] : lo;

		for (d = 0; d <= hi - lo && got < 0; d++) {
			if (t - d > floor && t - d < hi && !b->skip[t - d])
				got = t - d;
			else if (t + d > floor && t + d < hi && !b->skip[t + d])
				got = t + d;
		}
		if (got >= 0)
			out[m++] = got;
	}
	return m;
}

static void collect_skipped(struct bisect *b, struct bisect_result *res)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->skip[i]) {
			res->skipped = xrealloc(res->skipped, (size_t)(res->nskipped + 1) * sizeof(int));
			res->skipped[res->nskipped++] = i;
		}
}

/* Deterministic rule: second runs of states a, b2, c, d (-1: none), side by
 * side where possible, and the check that repeats agree.  0, 1 when the
 * engine switched to the noisy rule (restart), -2 aborted. */
static int repeats(struct bisect *b, int a, int b2, int c, int d)
{
	int st[4] = { a, b2, c, d }, want[4] = { 2, 2, 2, 2 }, k;

	if (!b->p.deterministic)
		return 0;
	if (prefetch(b, st, want, 4) == -2)
		return -2;
	for (k = 0; k < 4; k++)
		if (st[k] >= 0 && ensure(b, st[k], 2) == -2)
			return -2;
	for (k = 0; k < 4; k++)
		if (st[k] >= 0)
			check_repeats(b, st[k]);
	if (b->switched == 1) {
		b->switched = 2;
		return 1;
	}
	return 0;
}

/* Runs state i lacks to have want samples (0 when skipped). */
static int missing(struct bisect *b, int i, int want)
{
	const double *v;
	int nf, have;

	if (i < 0 || b->skip[i])
		return 0;
	have = b->ops->samples(b->ctx, i, &v, &nf);
	return have < want ? want - have : 0;
}

/* What a phase of bisect_run() says to do next. */
enum next {
	NEXT_GO,		/* carry on */
	NEXT_DONE,		/* res->status is final */
	NEXT_RESTART,		/* the rule changed: start over from the samples */
	NEXT_ABORT,
};

/* Compares the endpoints: NEXT_GO when BAD is worse by the threshold,
 * else res->status says why not (NEXT_DONE). */
static enum next endpoints(struct bisect *b, int good, int bad, struct bisect_result *res)
{
	int st[2] = { good, bad }, want[2] = { 1, 1 }, r;
	struct cmp c;

	if (prefetch(b, st, want, 2) == -2)
		return NEXT_ABORT;
	r = compare(b, good, bad, &c);
	if (r == -2)
		return NEXT_ABORT;
	if (r == -1) {
		res->status = BISECT_ENDPOINT_FAILED;
		return NEXT_DONE;
	}
	/* The endpoints' repeats wait for the confirmation round (they run
	 * there side by side with the culprit's), unless nothing follows. */
	if (!c.differ || !bisect_worse(&b->p, c.change)) {
		r = repeats(b, good, bad, -1, -1);
		if (r == -2)
			return NEXT_ABORT;
		if (r == 1)
			return NEXT_RESTART;
	}
	res->good_v = c.a_v;
	res->bad_v = c.b_v;
	res->change = c.change;
	res->p = c.p;
	res->mde = b->mde;
	if (!c.differ || !bisect_worse(&b->p, c.change)) {
		res->status = !c.differ ? BISECT_NO_DIFF : BISECT_NOT_SLOWER;
		return NEXT_DONE;
	}
	return NEXT_GO;
}

double bisect_time_left(const struct bisect_costs *c, int span, int np, int deterministic,
			int runs_min)
{
	double steps = span > 1 ? ceil(log((double)span) / log(np + 1.0) - 1e-9) : 0;
	int par = c->parallel > 0 ? c->parallel : 1;
	int per_state = deterministic ? 1 : 2 * (runs_min > 0 ? runs_min : 1);
	double run_rounds = ceil((double)(np * per_state) / par);
	double confirm = ceil((deterministic ? 2.0 : 2.0 * per_state) / par) * c->run;

	if (steps <= 0)
		return confirm;
	return c->full_extra + steps * (np * c->build + run_rounds * c->run) + confirm;
}

/* One line on what this round tests and how much is left. */
static void report_round(struct bisect *b, int lo, int hi, const int *pts, int np)
{
	double steps = ceil(log(hi - lo) / log(np + 1.0) - 1e-9);
	const char *more = np > 1 ? " and others side by side" : "";
	struct bisect_costs c = { 0, 0, 0, 1, pts, np };
	char left[32];

	if (b->ops->cost) {
		b->ops->cost(b->ctx, &c);
		progress_duration(left, sizeof(left),
				  bisect_time_left(&c, hi - lo, np, b->p.deterministic, b->p.runs_min));
		say(b, BISECT_TRACE_INFO, "bisect: testing %s%s (%d..%d, about %.0f %s left, ~%s)",
		     b->ops->label(b->ctx, pts[0]), more, lo, hi, steps, steps == 1 ? "step" : "steps",
		     left);
	} else {
		say(b, BISECT_TRACE_INFO, "bisect: testing %s%s (%d..%d, about %.0f %s left)",
		     b->ops->label(b->ctx, pts[0]), more, lo, hi, steps, steps == 1 ? "step" : "steps");
	}
}

/* Side by side: the round's points, and in the last round (every interior
 * state probed) spare VMs run the repeats the confirmation will want, a
 * lone point being culprit or parent.  0 or -2. */
static int plan_round(struct bisect *b, int good, int bad, int lo, int hi, const int *pts,
		      int np, int w)
{
	int st[PICK_MAX + 5], want[PICK_MAX + 5], ns = 0, budget = w, interior = 0, j;

	for (j = 0; j < np; j++) {
		st[ns] = pts[j];
		want[ns++] = 1;
		budget -= missing(b, pts[j], 1);
	}
	for (j = lo + 1; j < hi; j++)
		interior += !b->skip[j];
	if (np == interior) {
		int ex[5] = { np == 1 ? pts[0] : -1, lo, hi, good, bad };

		for (j = 0; j < 5; j++) {
			/* The lone point's first run is counted already. */
			int need = missing(b, ex[j], 2) - (j == 0 ? missing(b, ex[j], 1) : 0);

			if (ex[j] < 0 || need > budget)
				continue;
			budget -= need;
			st[ns] = ex[j];
			want[ns++] = 2;
		}
	}
	return prefetch(b, st, want, ns);
}

/* Narrows lo..hi (lo GOOD, hi BAD) until they are adjacent or only skipped
 * states lie between.  0 or -2. */
static int search(struct bisect *b, int good, int bad, int *lo, int *hi)
{
	for (;;) {
		int pts[PICK_MAX], np, k, w = width(b), v;

		np = pick_points(b, *lo, *hi, w, pts);
		if (np == 0)
			return 0;
		report_round(b, *lo, *hi, pts, np);
		if (w > 1 && plan_round(b, good, bad, *lo, *hi, pts, np, w) == -2)
			return -2;
		/* Walk the points upwards: the first BAD one bounds the culprit. */
		for (k = 0; k < np; k++) {
			v = classify(b, pts[k], good, bad);
			if (v == -2)
				return -2;
			if (v < 0)
				continue;
			if (v) {
				*hi = pts[k];
				break;
			}
			*lo = pts[k];
		}
	}
}

/* Noisy rule: culprit hi and parent lo must differ.  If they do not, one
 * verdict on the way was wrong: finds which side and widens lo..hi to
 * search it again (NEXT_GO), or accepts the pair (NEXT_DONE). */
static enum next verify(struct bisect *b, int good, int bad, int *lo, int *hi)
{
	struct cmp cg, cb;

	if (*lo != good) {
		if (compare(b, good, *lo, &cg) == -2)
			return NEXT_ABORT;
		if (cg.differ && bisect_worse(&b->p, cg.change)) {
			say(b, BISECT_TRACE_INFO, "bisect: verification: %s is worse than GOOD after all; searching again",
			     b->ops->label(b->ctx, *lo));
			*hi = *lo;
			*lo = good;
			return NEXT_GO;
		}
	}
	if (*hi != bad) {
		if (compare(b, *hi, bad, &cb) == -2)
			return NEXT_ABORT;
		if (cb.differ && bisect_worse(&b->p, cb.change)) {
			say(b, BISECT_TRACE_INFO, "bisect: verification: %s is better than BAD after all; searching again",
			     b->ops->label(b->ctx, *hi));
			*lo = *hi;
			*hi = bad;
			return NEXT_GO;
		}
	}
	return NEXT_DONE;
}

/* The verdict on culprit hi against parent lo, into res. */
static void fill_result(struct bisect *b, int lo, int hi, const struct cmp *c,
			struct bisect_result *res)
{
	res->culprit = hi;
	res->parent = lo;
	res->parent_v = c->a_v;
	res->culprit_v = c->b_v;
	res->change = c->change;
	res->p = c->p;
	res->ci_lo = c->lo;
	res->ci_hi = c->hi;
	res->mde = b->mde;
	res->status = hi - lo > 1 ? BISECT_AMBIGUOUS : BISECT_FOUND;
	res->low_conf = b->low_conf;
	if (b->p.deterministic) {
		const double *v;
		int n = count(b, hi, &v);
		double spread = n > 1 ? (stats_max(v, n) - stats_min(v, n)) / stats_median(v, n) : 0;

		snprintf(res->confidence, sizeof(res->confidence),
			 "deterministic: repeats agree within %.4f%%, change %.2f%% vs threshold %.2f%%",
			 100 * spread, 100 * c->change, 100 * b->p.threshold);
	} else {
		snprintf(res->confidence, sizeof(res->confidence),
			 "Mann-Whitney p = %.2g, Hodges-Lehmann shift %.2f%% [%.2f%%, %.2f%%] at %.1f%% confidence%s",
			 c->p, 100 * c->change, 100 * c->lo, 100 * c->hi, 100 * (1 - b->p.alpha),
			 b->low_conf ? "; some verdicts forced at RUNS_MAX" : "");
	}
}

/* One pass: endpoints, search, confirmation, and (noisy rule) up to three
 * re-searches when the verification finds a misjudged side. */
static enum next run_pass(struct bisect *b, int good, int bad, struct bisect_result *res)
{
	enum next nx = endpoints(b, good, bad, res);
	int lo = good, hi = bad, retries = 0, r;
	struct cmp c;

	if (nx != NEXT_GO)
		return nx;
	for (;;) {
		if (search(b, good, bad, &lo, &hi) == -2)
			return NEXT_ABORT;
		res->culprit = hi;
		res->parent = lo;
		/* Confirmation: culprit against its parent. */
		r = repeats(b, hi, lo, good, bad);
		if (r != 0)
			return r == 1 ? NEXT_RESTART : NEXT_ABORT;
		if (compare(b, lo, hi, &c) == -2)
			return NEXT_ABORT;
		if (b->p.deterministic || (c.differ && bisect_worse(&b->p, c.change)) || retries >= 3 || hi - lo != 1)
			break;
		retries++;
		nx = verify(b, good, bad, &lo, &hi);
		if (nx == NEXT_ABORT)
			return nx;
		if (nx == NEXT_DONE)
			break;
	}
	fill_result(b, lo, hi, &c, res);
	return NEXT_DONE;
}

int bisect_run(struct bisect *b, int good, int bad, struct bisect_result *res)
{
	int n0 = b->runs;
	enum next nx;

	do {
		memset(res, 0, sizeof(*res));
		res->good = good;
		res->bad = bad;
		res->culprit = res->parent = -1;
		nx = run_pass(b, good, bad, res);
	} while (nx == NEXT_RESTART);
	if (nx == NEXT_ABORT)
		res->status = BISECT_ABORTED;
	res->runs = b->runs - n0;
	collect_skipped(b, res);
	return nx == NEXT_ABORT ? -1 : 0;
}

static void add_change(struct bisect *b, int parent, int state, const struct cmp *c)
{
	b->chg = xrealloc(b->chg, (size_t)(b->nchg + 1) * sizeof(*b->chg));
	b->chg[b->nchg++] = (struct bisect_change){ state, parent, c->a_v, c->b_v, c->change, c->p,
						    bisect_small(&b->p, c->change) };
}

/* Recursively splits a..b while its ends differ.  0 or -2 (aborted). */
static int split(struct bisect *b, int a, int bb, int depth)
{
	struct cmp c;
	int r, mid;

	r = compare(b, a, bb, &c);
	if (r == -2)
		return -2;
	if (r == -1 || !c.differ)
		return 0;
	if (bb - a == 1) {
		add_change(b, a, bb, &c);
		return 0;
	}
	for (;;) {
		mid = pick_mid(b, a, bb);
		if (mid < 0) {
			add_change(b, a, bb, &c);	/* among skipped states */
			return 0;
		}
		r = ensure(b, mid, bisect_runs_wanted(&b->p));
		if (r == -2)
			return -2;
		if (r >= 0)
			break;
	}
	say(b, BISECT_TRACE_INFO, "culprits: %s..%s differ by %.2f%%; splitting at %s", b->ops->label(b->ctx, a),
	     b->ops->label(b->ctx, bb), 100 * c.change, b->ops->label(b->ctx, mid));
	{
		int n0 = b->nchg;

		if (split(b, a, mid, depth + 1) == -2 || split(b, mid, bb, depth + 1) == -2)
			return -2;
		if (b->nchg == n0)
			say(b, BISECT_TRACE_INFO, "culprits: %s..%s changed %.2f%% in total, but no single state by more "
			     "than the threshold", b->ops->label(b->ctx, a), b->ops->label(b->ctx, bb),
			     100 * c.change);
	}
	return 0;
}

static int cmp_change(const void *x, const void *y)
{
	return ((const struct bisect_change *)x)->state - ((const struct bisect_change *)y)->state;
}

int bisect_worse(const struct bisect_params *p, double change)
{
	return p->lower_better ? change > 0 : change < 0;
}

int bisect_small(const struct bisect_params *p, double change)
{
	return fabs(change) <= p->threshold;
}

int bisect_small_step(const struct bisect_params *p, double change)
{
	return p->deterministic && p->floor > 0 && p->floor < p->threshold &&
	       fabs(change) > p->floor && bisect_small(p, change);
}

int bisect_other_changes(struct bisect *b, const struct bisect_result *res,
			 struct bisect_change **out)
{
	int i, prev = -1, n = 0;

	*out = NULL;
	if (res->status != BISECT_FOUND || !b->p.deterministic || b->switched)
		return 0;
	for (i = res->good; i <= res->bad; i++) {
		double a, v = bisect_value(b, i);

		if (isnan(v))
			continue;
		if (prev >= 0 && !(prev == res->parent && i == res->culprit)) {
			a = bisect_value(b, prev);
			if (fabs((v - a) / a) > bisect_floor(b)) {
				*out = xrealloc(*out, (size_t)(n + 1) * sizeof(**out));
				(*out)[n++] = (struct bisect_change){
					.state = i, .parent = prev, .from = a, .to = v,
					.change = (v - a) / a, .p = NAN,
					.small = bisect_small(&b->p, (v - a) / a),
				};
			}
		}
		prev = i;
	}
	return n;
}

double bisect_floor(const struct bisect *b)
{
	if (b->p.deterministic && !b->switched && b->p.floor > 0 && b->p.floor < b->p.threshold)
		return b->p.floor;
	return b->p.threshold;
}

static int culprits_walk(struct bisect *b, int good, int bad);

int bisect_culprits(struct bisect *b, int good, int bad)
{
	int r;

	b->listing = 1;
	r = culprits_walk(b, good, bad);
	b->listing = 0;
	if (r == 1)
		b->nchg = 0;	/* changes up to an end that cannot be measured mean nothing */
	return r;
}

static int culprits_walk(struct bisect *b, int good, int bad)
{
	int a = good, step = b->p.step > 0 ? b->p.step : 1;

	b->nchg = 0;
	if (width(b) > 1) {
		/* The grid points first, side by side. */
		int *st = xcalloc((size_t)(bad - good) / (size_t)step + 2, sizeof(int));
		int *want = xcalloc((size_t)(bad - good) / (size_t)step + 2, sizeof(int));
		int n = 0, g, r;

		for (g = good; g < bad; g += step) {
			st[n] = g;
			want[n++] = 1;
		}
		st[n] = bad;
		want[n++] = 1;
		r = prefetch(b, st, want, n);
		free(st);
		free(want);
		if (r == -2)
			return -1;
	}
	while (a < bad) {
		int next = a + step < bad ? a + step : bad, r;

		/* Move an unusable grid point right; the end point must be usable. */
		while ((r = ensure(b, next, 1)) == -1 && next < bad)
			next++;
		if (r == -2)
			return -1;
		if (r == -1)
			return 1;	/* BAD cannot be measured */
		if (a == good && (r = ensure(b, a, 1)) < 0)
			return r == -2 ? -1 : 1;
		if (split(b, a, next, 0) == -2)
			return -1;
		if (b->switched == 1) {
			/* Deterministic rule abandoned: start over with the noisy one. */
			b->switched = 2;
			b->nchg = 0;
			a = good;
			continue;
		}
		a = next;
	}
	if (b->nchg)
		qsort(b->chg, (size_t)b->nchg, sizeof(*b->chg), cmp_change);
	return 0;
}

