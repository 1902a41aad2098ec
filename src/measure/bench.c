/* bench: measuring kernel states for real, and the bisection backend over it. */
#include "bench.h"
#include "image.h"
#include "run.h"
#include "util.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The QEMU is known, and can run this guest, before anything is built. */
static int probe_qemu(struct bench *be)
{
	char why[512];

	if (vm_qemu_probe(be->conf->qemu, &be->qemu) < 0)
		return -1;
	if (vm_qemu_check(be->conf, &be->qemu, why, sizeof(why)) < 0)
		return error("%s", why);
	return 0;
}

int bench_init(struct bench *be, const struct conf *c, struct tree *tree,
	       const struct tree_range *r)
{
	char *path, key[65];
	int i;

	memset(be, 0, sizeof(*be));
	be->conf = c;
	be->tree = tree;
	be->t_start = util_now();
	build_init(&be->build, c, tree->dir, tree->outname);
	path = xasprintf("%s/results.tsv", c->workdir);
	store_init(&be->store, path);
	free(path);
	/* The benchmark is known and its files are here before anything is
	 * built; a build key can be made (gcc, the fragment): every lookup
	 * relies on it. */
	if (workload_init(&be->wl, c) < 0 || workload_check_host(&be->wl) < 0 ||
	    store_load(&be->store) < 0 || probe_qemu(be) < 0 || build_key(&be->build, "", key) < 0) {
		bench_release(be);
		return -1;
	}
	for (i = 0; r && i < r->n; i++) {
		const struct tree_state *s = &r->state[i];
		int k = bench_add_target(be, s->commit, s->treeid, s->name, s->subject);

		be->t[k].state = s->index;
		be->t[k].unusable = s->broken;
		free(be->t[k].label);
		be->t[k].label = xasprintf("%d (%s)", s->index, s->name);
	}
	be->nstates = r ? r->n : 0;
	return 0;
}

void bench_params(const struct conf *c, struct bisect_params *p)
{
	bisect_params_default(p);
	p->deterministic = c->mode == MODE_ICOUNT && !vm_seeded(c);
	p->threshold = c->threshold;
	p->alpha = c->alpha;
	p->runs_min = (int)c->runs_min;
	p->runs_max = (int)(c->runs_max > c->runs_min ? c->runs_max : c->runs_min);
	p->step = (int)c->culprit_step;
	p->floor = c->culprit_floor;
	p->lower_better = workload_lower(c);
}

int bench_runs_wanted(const struct conf *c)
{
	struct bisect_params p;

	bench_params(c, &p);
	return bisect_runs_wanted(&p);
}

const struct workload *bench_workload(const struct bench *be)
{
	return &be->wl;
}

void bench_counts(const struct bench *be, struct bench_counts *n)
{
	n->builds = be->builds;
	n->cached = be->cached_builds;
	n->runs = be->runs;
	n->t_build = be->t_build;
	n->elapsed = util_now() - be->t_start;
}

const char *bench_qemu(const struct bench *be)
{
	return be->qemu.version;
}

int bench_build(struct bench *be, int i, struct build_result *res)
{
	struct bench_target *t = &be->t[i];
	enum build_status bst;
	double t0;
	int st;

	memset(res, 0, sizeof(*res));
	if (t->unusable && !t->treeid[0])
		return BUILD_FAILED;
	if ((st = build_lookup(&be->build, t->treeid, res, &bst)) < 0)
		goto fail;
	if (st == 0) {
		/* Per kernel, not per run: a wall-clock state is prepared each run. */
		if (!t->counted)
			be->cached_builds++;
		t->counted = 1;
		return bst;
	}
	build_result_release(res);
	/* Said before the checkout: an incremental build may end before its
	 * first progress line. */
	info("build: %s", t->label);
	t0 = util_now();
	if (bench_checkout(be, i) < 0)
		return -1;
	be->t_checkout += util_now() - t0;
	be->build.label = t->label;
	st = build_kernel(&be->build, t->treeid, res);
	be->build.label = NULL;
	if (st < 0)
		goto fail;
	be->builds++;
	t->counted = 1;
	be->t_build += res->seconds;
	if (st == BUILD_OK && !res->full && !res->wide) {
		be->t_incr += res->seconds;
		be->n_incr++;
	}
	if (st == BUILD_OK)
		info("build: %s built in %.1f s", t->label, res->seconds);
	return st;
fail:
	build_result_release(res);
	return -1;
}

void bench_identity(const struct conf *c, enum conf_accel accel, const char *qemu,
		    struct bench_identity *id)
{
	if (c->mode == MODE_ICOUNT)
		id->mode = xasprintf("icount shift=%ld qemu=%s", c->shift, qemu);
	else
		id->mode = xasprintf("wallclock accel=%s qemu=%s", conf_accel_name(accel), qemu);
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addf(&sb, "clients=%ld seconds=%ld smp=%ld mem=%ld feat=%s cgdepth=%ld%s",
		  c->clients, c->seconds, c->smp, c->memory_mb, c->feat, c->cgroup_depth,
		  vm_seeded(c) ? " seeded" : "");
	/* tbench's identity is the one it had before BENCH. */
	if (strcmp(c->bench, "tbench"))
		sbuf_addf(&sb, " bench=%s", c->bench);
	if (!strcmp(c->bench, "custom"))
		sbuf_addf(&sb, " regex=%s", c->custom_regex ? c->custom_regex : "");
	id->params = sbuf_detach(&sb);
}

void bench_identity_release(struct bench_identity *id)
{
	free(id->mode);
	free(id->params);
	memset(id, 0, sizeof(*id));
}

const char *bench_label(const struct bench *be, int i)
{
	return be->t[i].label;
}

void bench_release(struct bench *be)
{
	int i;

	for (i = 0; i < be->n; i++) {
		free(be->t[i].label);
		free(be->t[i].name);
		free(be->t[i].subject);
		free(be->t[i].v);
	}
	free(be->t);
	free(be->image);
	workload_release(&be->wl);
	store_release(&be->store);
	build_release(&be->build);
	memset(be, 0, sizeof(*be));
}

int bench_add_target(struct bench *be, const char *commit, const char *treeid,
		     const char *name, const char *subject)
{
	struct bench_target *t;

	be->t = xrealloc(be->t, (size_t)(be->n + 1) * sizeof(*be->t));
	t = &be->t[be->n];
	memset(t, 0, sizeof(*t));
	snprintf(t->commit, 41, "%s", commit);
	snprintf(t->treeid, 41, "%s", treeid);
	t->state = -1;
	t->name = xstrdup(name);
	t->subject = xstrdup(subject);
	t->label = xstrdup(name);
	return be->n++;
}

const char *bench_mode(struct bench *be)
{
	static char buf[64];

	if (vm_seeded(be->conf))
		snprintf(buf, sizeof(buf), "icount shift=%ld (TCG, SMP %ld: a seed per run)",
			 be->conf->shift, be->conf->smp);
	else if (be->conf->mode == MODE_ICOUNT)
		snprintf(buf, sizeof(buf), "icount shift=%ld (TCG, deterministic)", be->conf->shift);
	else
		snprintf(buf, sizeof(buf), "wall-clock (%s)",
			 be->accel_known ? (be->accel == ACCEL_KVM ? "KVM" : "TCG")
					 : conf_accel_name(be->conf->accel));
	return buf;
}

/* The measurement key of a kernel under this configuration. */
static void measure_key(struct bench *be, const char *kernel_sha, char *key)
{
	struct util_hash *h = util_hash_new();
	struct bench_identity id;

	/* The accelerator is resolved (kvm or tcg) before any key is made. */
	bench_identity(be->conf, be->accel, be->qemu.version, &id);
	util_hash_addstr(h, "tbisect-measure-2");
	util_hash_addstr(h, kernel_sha);
	util_hash_addstr(h, be->image_key);
	util_hash_addstr(h, id.mode);
	util_hash_addstr(h, id.params);
	util_hash_hex(h, key);
	bench_identity_release(&id);
}

static int ensure_image(struct bench *be)
{
	double t0 = util_now();
	int r;

	if (be->image)
		return 0;
	r = image_build(be->conf, &be->wl, &be->image, be->image_key);
	be->t_image += util_now() - t0;
	return r;
}

/* The image's key without making the image: looking up what is recorded
 * builds nothing. */
static int ensure_image_key(struct bench *be)
{
	if (be->image || be->image_keyed)
		return 0;
	if (image_lookup(be->conf, &be->wl, be->image_key) < 0)
		return -1;
	be->image_keyed = 1;
	return 0;
}

/* Wall-clock mode needs to know the accelerator before a key exists. */
static int ensure_accel(struct bench *be, const char *kernel)
{
	char *cache;

	if (be->accel_known)
		return 0;
	if (be->conf->mode == MODE_ICOUNT) {
		be->accel = ACCEL_TCG;
		be->accel_known = 1;
		return 0;
	}
	if (!kernel)
		return -1;
	cache = xasprintf("%s/accel-probe", be->conf->workdir);
	be->accel = vm_resolve_accel(be->conf, kernel, be->image, cache);
	be->accel_known = 1;
	free(cache);
	return 0;
}

/* Says once why target t is skipped (its build failed, now or before). */
static void skip_unbuildable(struct bench_target *t, const struct build_result *res)
{
	if (res->config_lacks)
		warning("state %s cannot be configured for the benchmark; skipped: %s", t->label,
			res->errors);
	else if (res->timed_out)
		warning("state %s: skipped this time: %s", t->label, res->errors);
	else
		warning("state %s does not compile; skipped. First errors: %s", t->label,
			res->errors ? res->errors : "?");
	t->unusable = 1;
}

/* Finds the key of target i without building; 0 known, 1 not yet, -1 on
 * an error (reported; bench_init() made sure a key can be made). */
static int lookup_key(struct bench *be, int i)
{
	struct bench_target *t = &be->t[i];
	struct build_result res;
	enum build_status st;
	int r;

	if (t->key_known)
		return 0;
	if (t->unusable || !t->treeid[0])
		return 1;
	if (ensure_image_key(be) < 0)
		return -1;
	if ((r = build_lookup(&be->build, t->treeid, &res, &st)) != 0) {
		build_result_release(&res);
		return r;
	}
	if (st == BUILD_FAILED) {
		skip_unbuildable(t, &res);
		build_result_release(&res);
		return 1;
	}
	if (!be->accel_known) {
		/* A cached probe answer needs no boot. */
		char *cache = xasprintf("%s/accel-probe", be->conf->workdir);

		if (be->conf->mode == MODE_ICOUNT || be->conf->accel != ACCEL_AUTO || util_exists(cache))
			ensure_accel(be, res.vmlinux);
		free(cache);
		if (!be->accel_known) {
			build_result_release(&res);
			return 1;
		}
	}
	measure_key(be, res.kernel_sha, t->key);
	t->key_known = 1;
	build_result_release(&res);
	return 0;
}

int bench_samples(struct bench *be, int i, const double **v, int *nfail)
{
	struct bench_target *t = &be->t[i];

	*nfail = 0;
	*v = NULL;
	switch (lookup_key(be, i)) {
	case 0:
		break;
	case -1:
		be->failed = 1;
		return 0;
	default:
		return 0;
	}
	free(t->v);
	t->nv = store_samples(&be->store, t->key, &t->v, nfail);
	*v = t->v;
	return t->nv;
}

int bench_failed(const struct bench *be)
{
	return be->failed;
}

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

/* Average cost of one more run so far: builds spread over the runs. */
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

int bench_checkout(struct bench *be, int i)
{
	struct bench_target *t = &be->t[i];
	char id[65];

	if (!t->commit[0]) {
		/* Built as checked out (git bisect run's tree). */
		build_set_source(&be->build, NULL);
		return 0;
	}
	if (tree_checkout(be->tree, t->commit) < 0)
		return -1;
	/* Distant commits can differ in Kconfig: the config follows them. */
	if (tree_kconfig_id(be->tree, t->treeid, id) < 0)
		return -1;
	build_set_source(&be->build, id);
	return 0;
}

int bench_prepare(struct bench *be, int i, struct build_result *res)
{
	struct bench_target *t = &be->t[i];
	int st;

	memset(res, 0, sizeof(*res));
	if (t->unusable)
		return 1;
	if (ensure_image(be) < 0)
		return -1;
	if ((st = bench_build(be, i, res)) < 0)
		return -1;
	if (st == BUILD_FAILED) {
		skip_unbuildable(t, res);
		build_result_release(res);
		return 1;
	}
	if (ensure_accel(be, res->vmlinux) < 0) {
		build_result_release(res);
		return -1;
	}
	measure_key(be, res->kernel_sha, t->key);
	t->key_known = 1;
	return 0;
}

/* One run in flight. */
struct slot {
	int i;			/* target, -1 when the slot is free */
	struct build_result res;
	struct vm_opts o;
	struct vm_job job;
	char *log;
	double build_s;
};

/* Starts a run of target i (prepared into s->res) in slot s; inflight runs
 * of the same kernel so far number the log.  0 or -1. */
static int start_run(struct bench *be, struct slot *s, int i, int inflight)
{
	struct bench_target *t = &be->t[i];
	char *logdir;
	double *tmp;
	int n, nf, run;

	n = store_samples(&be->store, t->key, &tmp, &nf);
	free(tmp);
	logdir = xasprintf("%s/logs", be->conf->workdir);
	if (util_mkdir_p(logdir) < 0) {
		free(logdir);
		return -1;
	}
	run = n + nf + 1 + inflight;
	s->i = i;
	s->build_s = s->res.cached ? 0 : s->res.seconds;
	s->log = xasprintf("%s/run-%.12s-%d.log", logdir, t->key, run);
	free(logdir);
	vm_opts_init(&s->o, be->conf);
	s->o.kernel = s->res.vmlinux;
	s->o.initrd = be->image;
	s->o.wl = &be->wl;
	s->o.log = s->log;
	s->o.accel = be->accel;
	s->o.icount = be->conf->mode == MODE_ICOUNT;
	/* Run k of every state gets seed k: the states' samples are paired. */
	s->o.seed = vm_seeded(be->conf) ? run : 0;
	info("run: %s, run %d, %s, elapsed %.0f s", t->label, run, bench_mode(be),
	     util_now() - be->t_start);
	if (vm_start(&s->o, &s->job) < 0) {
		vm_job_release(&s->job);
		return -1;
	}
	return 0;
}

static void slot_release(struct slot *s)
{
	if (s->i >= 0)
		vm_job_release(&s->job);
	build_result_release(&s->res);
	free(s->log);
	memset(s, 0, sizeof(*s));
	s->i = -1;
}

/* Waits for the run in slot s, records it and frees the slot.  0 or -1. */
/* "; guest log: 3 kernel errors/warnings, the first: ..." or "". */
static const char *health_note(const struct vm_result *r, char *buf, size_t size)
{
	if (r->kerrors > 0)
		snprintf(buf, size, "; kernel log: %ld error%s or warning%s, the first: %s", r->kerrors,
			 r->kerrors == 1 ? "" : "s", r->kerrors == 1 ? "" : "s", r->kerror);
	else
		snprintf(buf, size, "%s", r->kerrors == 0 ? "; kernel log clean" : "");
	return buf;
}

static int finish_run(struct bench *be, struct slot *s)
{
	struct bench_target *t = &be->t[s->i];
	struct store_rec rec;
	struct vm_result r;
	char hn[256];
	int ret = -1;

	if (vm_finish(&s->job, &r) < 0) {
		s->i = -1;	/* job released by vm_finish */
		goto out;
	}
	be->runs++;
	be->t_boot += r.boot_s;
	be->t_bench += r.bench_s;

	memset(&rec, 0, sizeof(rec));
	memcpy(rec.key, t->key, 65);
	rec.state = t->state;
	rec.name = t->name;
	rec.subject = t->subject;
	rec.ok = r.status == VM_OK;
	rec.value = r.value;
	rec.mode = (char *)conf_mode_name(be->conf->mode);
	rec.accel = be->accel == ACCEL_KVM ? "kvm" : "tcg";
	rec.shift = be->conf->mode == MODE_ICOUNT ? be->conf->shift : -1;
	rec.clients = be->conf->clients;
	rec.seconds = be->conf->seconds;
	rec.build_s = s->build_s;
	rec.boot_s = r.boot_s;
	rec.bench_s = r.bench_s;
	rec.timestamp = (long)time(NULL);
	rec.version = TBISECT_VERSION;
	rec.reason = r.status == VM_OK ? "-" : r.reason;
	rec.guest_cpus = r.guest_cpus;
	rec.cgroup_depth = r.cgroup_depth;
	rec.qemu = be->qemu.version;
	rec.kerrors = r.kerrors;
	rec.kerror = r.kerror[0] ? r.kerror : "-";
	rec.bench = be->wl.name;
	s->i = -1;	/* job released by vm_finish */
	if (r.status == VM_NO_FIGURE) {
		/* The regex or the command is wrong, not the kernel: nothing
		 * is recorded, every state would read the same. */
		error("run of %s: benchmark %s: %s (console log kept: %s)", t->label,
		      be->wl.name, r.reason, s->log);
		goto out;
	}
	if (store_append(&be->store, &rec) < 0)
		goto out;
	if (r.status == VM_BAD_GUEST) {
		/* Every state would fail the same way: a setup error, not a skip. */
		error("run of %s: %s (console log kept: %s)", t->label, r.reason, s->log);
		goto out;
	}
	if (r.status == VM_OK)
		info("run: %s: %.3f %s (%s; boot %.1f s, %s %.1f s)%s", t->label, r.value,
		     be->wl.unit, bench_mode(be), r.boot_s, be->wl.name, r.bench_s,
		     health_note(&r, hn, sizeof(hn)));
	else
		warning("run of %s failed: %s: %s (console log kept: %s)", t->label,
			vm_status_name(r.status), r.reason, s->log);
	ret = 0;
out:
	slot_release(s);
	return ret;
}

int bench_health(const struct bench *be, int i, long *kerrors, const char **first)
{
	int k;

	for (k = be->store.n - 1; k >= 0; k--) {
		const struct store_rec *r = &be->store.rec[k];

		if (r->ok && r->kerrors >= 0 && !strcmp(r->key, be->t[i].key)) {
			*kerrors = r->kerrors;
			*first = r->kerror;
			return 0;
		}
	}
	return -1;
}

int bench_measure(struct bench *be, int i)
{
	struct slot s;
	int r;

	memset(&s, 0, sizeof(s));
	s.i = -1;
	r = bench_prepare(be, i, &s.res);
	if (r != 0)
		return r;
	if (start_run(be, &s, i, 0) < 0) {
		slot_release(&s);
		return -1;
	}
	return finish_run(be, &s);
}

int bench_gather(struct bench *be, int i, const double **v)
{
	return bisect_gather(&bench_ops, be, i, bench_runs_wanted(be->conf), 2, v);
}

int bench_parallel(const struct bench *be)
{
	long n = be->conf->vms;

	if (be->conf->mode != MODE_ICOUNT)
		return 1;	/* wall-clock runs would disturb each other */
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > BENCH_MAX_VMS ? BENCH_MAX_VMS : (int)n;
}

/* Runs of key in flight in the slots. */
static int inflight(struct bench *be, struct slot *slot, int par, const char *key)
{
	int j, n = 0;

	for (j = 0; j < par; j++)
		if (slot[j].i >= 0 && !strcmp(be->t[slot[j].i].key, key))
			n++;
	return n;
}

/* Polls the slots, recording finished runs, until one is free: its index,
 * or -1 on a tool error. */
static int free_slot(struct bench *be, struct slot *slot, int par)
{
	for (;;) {
		int j, got = -1;

		for (j = 0; j < par; j++) {
			if (slot[j].i >= 0 && vm_poll(&slot[j].job) && finish_run(be, &slot[j]) < 0)
				return -1;
			if (slot[j].i < 0 && got < 0)
				got = j;
		}
		if (got >= 0)
			return got;
		run_pause(NULL);
	}
}

int bench_ensure_many(struct bench *be, const int *idx, const int *want, int n)
{
	struct slot slot[BENCH_MAX_VMS];
	int par = bench_parallel(be), k, j, ret = -1;

	for (j = 0; j < BENCH_MAX_VMS; j++) {
		memset(&slot[j], 0, sizeof(slot[j]));
		slot[j].i = -1;
	}
	for (k = 0; k < n; k++) {
		struct build_result res;
		double *tmp;
		int have, nf, r, more;

		/* Build the next kernel while earlier ones boot. */
		r = bench_prepare(be, idx[k], &res);
		if (r < 0)
			goto out;
		if (r == 1)
			continue;
		have = store_samples(&be->store, be->t[idx[k]].key, &tmp, &nf);
		free(tmp);
		/* Identical kernels share runs: count those under way. */
		more = want[k] - have - inflight(be, slot, par, be->t[idx[k]].key);
		for (; more > 0; more--) {
			int f = free_slot(be, slot, par), in;

			if (f < 0)
				goto out_res;
			in = inflight(be, slot, par, be->t[idx[k]].key);
			if (more > 1) {
				/* The slot keeps its own copy of the build result. */
				if (build_lookup(&be->build, be->t[idx[k]].treeid, &slot[f].res,
						 &(enum build_status){ 0 }) != 0)
					goto out_res;
			} else {
				slot[f].res = res;
				memset(&res, 0, sizeof(res));
			}
			if (start_run(be, &slot[f], idx[k], in) < 0) {
				slot[f].i = -1;
				goto out_res;
			}
		}
		build_result_release(&res);
		continue;
out_res:
		build_result_release(&res);
		goto out;
	}
	/* Poll them all: each VM's watch must see its own boot end. */
	for (;;) {
		int busy = 0;

		for (j = 0; j < par; j++) {
			if (slot[j].i >= 0 && vm_poll(&slot[j].job) && finish_run(be, &slot[j]) < 0)
				goto out;
			busy += slot[j].i >= 0;
		}
		if (!busy)
			break;
		run_pause(NULL);
	}
	ret = 0;
out:
	for (j = 0; j < par; j++)
		slot_release(&slot[j]);
	return ret;
}

void bench_summary(struct bench *be, FILE *f)
{
	struct rusage ru;

	fprintf(f, "cost: %d kernel builds (%.0f s), %d cached kernels reused, %d VM runs "
		   "(boot %.0f s, %s %.0f s), %.0f s in all; mode %s\n",
		be->builds, be->t_build, be->cached_builds, be->runs, be->t_boot, be->wl.name, be->t_bench,
		util_now() - be->t_start, bench_mode(be));
	/* Builds overlap VM runs (up to bench_parallel() at once), so the
	 * phases add up to more than the wall time. */
	/* Analysis (parsing, statistics, bisection) is tbisect's own CPU time;
	 * everything else is spent in children. */
	getrusage(RUSAGE_SELF, &ru);
	fprintf(f, "phases: checkout %.1f s, config %.1f s, build %.1f s, image %.1f s, boot %.1f s, "
		   "%s %.1f s, analysis %.2f s; %d VMs at once\n",
		be->t_checkout, be->build.config_seconds, be->t_build,
		be->t_image, be->t_boot, be->wl.name, be->t_bench,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		bench_parallel(be));
	if (be->build.obj_remote || be->build.obj_local || be->build.obj_cached)
		fprintf(f, "objects: %ld compiled on distcc hosts, %ld here, %ld from ccache\n",
			be->build.obj_remote, be->build.obj_local, be->build.obj_cached);
}
