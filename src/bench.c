#include "bench.h"
#include "image.h"
#include "run.h"
#include "util.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int bench_init(struct bench *be, const struct conf *c, struct tree *tree)
{
	char *path;
	int i;

	memset(be, 0, sizeof(*be));
	be->conf = c;
	be->tree = tree;
	be->t_start = util_now();
	build_init(&be->build, c, tree->dir, "build");
	path = xasprintf("%s/results.tsv", c->workdir);
	store_init(&be->store, path);
	free(path);
	if (store_load(&be->store) < 0)
		return -1;
	for (i = 0; i < tree->n; i++) {
		const struct tree_state *s = &tree->state[i];
		int k = bench_add_target(be, s->commit, s->treeid, s->name, s->subject);

		be->t[k].state = i;
		be->t[k].unusable = s->broken;
		free(be->t[k].label);
		be->t[k].label = i ? xasprintf("%d (%s)", i, s->name) : xstrdup("0 (base)");
	}
	return 0;
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
	store_release(&be->store);
	build_release(&be->build);
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

	if (be->conf->mode == MODE_ICOUNT)
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
	const struct conf *c = be->conf;
	struct util_hash *h = util_hash_new();
	char buf[256];

	util_hash_addstr(h, "tbisect-measure-2");
	util_hash_addstr(h, kernel_sha);
	util_hash_addstr(h, be->image_key);
	if (c->mode == MODE_ICOUNT)
		snprintf(buf, sizeof(buf), "icount shift=%ld", c->shift);
	else
		snprintf(buf, sizeof(buf), "wallclock accel=%s", be->accel == ACCEL_KVM ? "kvm" : "tcg");
	util_hash_addstr(h, buf);
	snprintf(buf, sizeof(buf), "clients=%ld seconds=%ld smp=%ld mem=%ld feat=%s", c->clients,
		 c->seconds, c->smp, c->memory_mb, c->feat);
	util_hash_addstr(h, buf);
	util_hash_hex(h, key);
}

static int ensure_image(struct bench *be)
{
	if (be->image)
		return 0;
	return image_build(be->conf, &be->image, be->image_key);
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

/* Finds the key of target i without building; 0 known, 1 not yet. */
static int lookup_key(struct bench *be, int i)
{
	struct bench_target *t = &be->t[i];
	struct build_result res;
	enum build_status st;

	if (t->key_known)
		return 0;
	if (t->unusable || !t->treeid[0])
		return 1;
	if (ensure_image(be) < 0)
		return -1;
	if (build_lookup(&be->build, t->treeid, &res, &st) != 0) {
		build_result_release(&res);
		return 1;
	}
	if (st == BUILD_FAILED) {
		t->unusable = 1;
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

static int ops_samples(void *ctx, int i, const double **v, int *nfail)
{
	struct bench *be = ctx;
	struct bench_target *t = &be->t[i];

	*nfail = 0;
	*v = NULL;
	if (lookup_key(be, i) != 0)
		return 0;
	free(t->v);
	t->nv = store_samples(&be->store, t->key, &t->v, nfail);
	*v = t->v;
	return t->nv;
}

static const char *ops_label(void *ctx, int i)
{
	return ((struct bench *)ctx)->t[i].label;
}

static int ops_measure(void *ctx, int i)
{
	return bench_measure(ctx, i);
}

/* Average cost of one more run so far: builds spread over the runs. */
static double ops_cost(void *ctx)
{
	struct bench *be = ctx;

	if (!be->runs)
		return 25.0;	/* a one-file build + boot + 3 s tbench here */
	return (be->t_build + be->t_boot + be->t_bench) / be->runs;
}

const struct bisect_ops bench_ops = { ops_samples, ops_measure, ops_label, ops_cost };

int bench_measure(struct bench *be, int i)
{
	struct bench_target *t = &be->t[i];
	struct build_result res;
	struct store_rec rec;
	struct vm_opts o;
	struct vm_result r;
	enum build_status bst;
	char *logdir = NULL, *log = NULL;
	int st, ret = -1, nf, n;
	double *tmp;

	if (t->unusable)
		return 1;
	if (ensure_image(be) < 0)
		return -1;
	if (build_lookup(&be->build, t->treeid, &res, &bst) == 0) {
		st = bst;
		be->cached_builds++;
	} else {
		build_result_release(&res);
		info("build: %s", t->label);
		if (t->commit[0] && tree_checkout(be->tree, t->commit) < 0)
			return -1;
		st = build_kernel(&be->build, t->treeid, &res);
		if (st < 0) {
			build_result_release(&res);
			return -1;
		}
		be->builds++;
		be->t_build += res.seconds;
		if (st == BUILD_OK)
			info("build: %s built in %.1f s", t->label, res.seconds);
	}
	if (st == BUILD_FAILED) {
		warning("state %s does not compile; skipped. First errors: %s", t->label,
			res.errors ? res.errors : "?");
		t->unusable = 1;
		build_result_release(&res);
		return 1;
	}
	if (ensure_accel(be, res.vmlinux) < 0)
		goto out;
	measure_key(be, res.kernel_sha, t->key);
	t->key_known = 1;
	n = store_samples(&be->store, t->key, &tmp, &nf);
	free(tmp);

	logdir = xasprintf("%s/logs", be->conf->workdir);
	if (util_mkdir_p(logdir) < 0)
		goto out;
	log = xasprintf("%s/run-%.12s-%d.log", logdir, t->key, n + nf + 1);
	vm_opts_init(&o, be->conf);
	o.kernel = res.vmlinux;
	o.initrd = be->image;
	o.log = log;
	o.accel = be->accel;
	o.icount = be->conf->mode == MODE_ICOUNT;
	info("run: %s, run %d, %s, elapsed %.0f s", t->label, n + nf + 1, bench_mode(be),
	     util_now() - be->t_start);
	if (vm_run(&o, &r) < 0)
		goto out;
	be->runs++;
	be->t_boot += r.boot_s;
	be->t_bench += r.bench_s;

	memset(&rec, 0, sizeof(rec));
	memcpy(rec.key, t->key, 65);
	rec.state = t->state;
	rec.name = t->name;
	rec.subject = t->subject;
	rec.ok = r.status == VM_OK;
	rec.mbps = r.mbps;
	rec.mode = (char *)conf_mode_name(be->conf->mode);
	rec.accel = be->accel == ACCEL_KVM ? "kvm" : "tcg";
	rec.shift = be->conf->mode == MODE_ICOUNT ? be->conf->shift : -1;
	rec.clients = be->conf->clients;
	rec.seconds = be->conf->seconds;
	rec.build_s = res.cached ? 0 : res.seconds;
	rec.boot_s = r.boot_s;
	rec.bench_s = r.bench_s;
	rec.timestamp = (long)time(NULL);
	rec.version = TBISECT_VERSION;
	rec.reason = r.status == VM_OK ? "-" : r.reason;
	if (store_append(&be->store, &rec) < 0)
		goto out;
	if (r.status == VM_OK)
		info("run: %s: %.3f MB/s (%s; boot %.1f s, tbench %.1f s)", t->label, r.mbps,
		     bench_mode(be), r.boot_s, r.bench_s);
	else
		warning("run of %s failed: %s: %s (console log kept: %s)", t->label,
			vm_status_name(r.status), r.reason, log);
	ret = 0;
out:
	build_result_release(&res);
	free(log);
	free(logdir);
	return ret;
}

void bench_summary(struct bench *be, FILE *f)
{
	fprintf(f, "cost: %d kernel builds (%.0f s), %d cached kernels reused, %d VM runs "
		   "(boot %.0f s, tbench %.0f s), %.0f s in all; mode %s\n",
		be->builds, be->t_build, be->cached_builds, be->runs, be->t_boot, be->t_bench,
		util_now() - be->t_start, bench_mode(be));
}
