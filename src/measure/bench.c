/* bench: the kernel states measured (targets), their measurement identity and keys, builds, and what is recorded for each. */
#include "bench.h"
#include "image.h"
#include "run.h"
#include "util.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

int bench_check_cache(const struct conf *c, struct cachesim_weights *w)
{
	struct cachesim_geom g;
	struct cachesim cs;

	cachesim_geom_default(&g);
	cachesim_weights_default(w);
	if ((c->cache_geometry && cachesim_geom_parse(c->cache_geometry, &g) < 0) ||
	    (c->cache_weights && cachesim_weights_parse(c->cache_weights, w) < 0))
		return -1;
	if (cachesim_init(&cs, &g, 1) < 0)
		return error("CACHE_GEOMETRY %s is not a cache the model can be",
			     c->cache_geometry ? c->cache_geometry : "(default)");
	cachesim_release(&cs);
	return 0;
}

char *bench_cache_args(const struct bench *be)
{
	const struct conf *c = be->conf;

	if (c->cost != COST_CYCLES)
		return xstrdup("");
	return xasprintf(",cache=on%s%s", c->cache_geometry ? ",geom=" : "",
			 c->cache_geometry ? c->cache_geometry : "");
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
	be->store.cycles = c->cost == COST_CYCLES;
	/* The benchmark is known and its files are here before anything is
	 * built; a build key can be made (gcc, the fragment): every lookup
	 * relies on it. */
	if (workload_init(&be->wl, c) < 0 || workload_check_host(&be->wl) < 0 ||
	    store_load(&be->store) < 0 || probe_qemu(be) < 0 || build_key(&be->build, "", key) < 0 ||
	    (c->cost == COST_CYCLES && (bench_check_cache(c, &be->weights) < 0 ||
					bench_plugin_check(be, c->profile_plugin) < 0))) {
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
	/* Runs under the cache model are their own (they carry cycles). */
	if (c->cost == COST_CYCLES)
		sbuf_addf(&sb, " cost=cycles geom=%s weights=%s",
			  c->cache_geometry ? c->cache_geometry : "default",
			  c->cache_weights ? c->cache_weights : "default");
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

/* WORKDIR/profiles, made when missing; caller frees.  NULL on error. */
char *bench_profile_dir(const struct bench *be)
{
	char *dir = xasprintf("%s/profiles", be->conf->workdir);

	if (util_mkdir_p(dir) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

int bench_plugin_check(struct bench *be, const char *plugin)
{
	const char *argv[] = { be->conf->qemu, "-M", "none", "-display", "none", "-nodefaults",
			       "-plugin", NULL, NULL };
	char *dir, *probe = NULL, *arg = NULL, *text = NULL;
	struct run_cmd cmd;
	int st, ret = -1;

	if (be->conf->mode != MODE_ICOUNT)
		return error("profiles count instructions under TCG with QEMU's plugin; wall-clock "
			     "runs may use KVM, which has none: profile the same kernels with "
			     "tbisect -s MODE=icount profile ...");
	if (!util_exists(plugin))
		return error("no profiling plugin at %s: build it with make", plugin);
	if (!(dir = bench_profile_dir(be)))
		return -1;
	probe = xasprintf("%s/probe", dir);
	arg = xasprintf("%s,probe=%s", plugin, probe);
	argv[7] = arg;
	unlink(probe);
	run_init(&cmd, argv);
	cmd.timeout = 30;
	cmd.stdout_path = "/dev/null";
	cmd.stderr_null = 1;
	st = run_exec(&cmd);
	run_release(&cmd);
	if (st != 0 || util_read_file(probe, &text, NULL) < 0 || strncmp(text, "api ", 4)) {
		error("QEMU %s (%s) cannot load the plugin %s (%s): profiles and COST = cycles need "
		      "QEMU 9.0 or later with TCG plugins; make deps installs 10.0 from "
		      "bookworm-backports", be->conf->qemu, be->qemu.version, plugin,
		      st ? run_strstatus(st) : "no answer");
		goto out;
	}
	ret = 0;
out:
	free(text);
	free(arg);
	free(probe);
	free(dir);
	return ret;
}
