/* bench_profile: a target's runs under QEMU's TCG plugin, kept beside its measurements. */
#include "bench_profile.h"
#include "image.h"
#include "run.h"
#include "util.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bench_profile_check(struct bench *be, const char *plugin)
{
	if (!be->wl.legacy)
		return error("profiles are per tbench operation (its operation table is the unit of "
			     "work); BENCH = %s has none: profile with BENCH = tbench", be->wl.name);
	return bench_plugin_check(be, plugin);
}

/* The kernel's text symbols beside it in the cache (`nm -n`), made once:
 * its path (caller frees), or NULL (reported). */
static char *kernel_symbols(const char *vmlinux)
{
	char *dir = util_dirname(vmlinux), *path = xasprintf("%s/symbols", dir), *out = NULL;
	const char *argv[] = { "nm", "-n", "--defined-only", vmlinux, NULL };

	free(dir);
	if (util_exists(path))
		return path;
	if (run_capture(argv, NULL, &out) != 0 ||
	    util_write_file_atomic(path, out, strlen(out)) < 0) {
		error("nm of %s failed (binutils)", vmlinux);
		free(path);
		path = NULL;
	}
	free(out);
	return path;
}

/* Reads a profiled run's figures kept beside its counts ("MBPS OPS").
 * 0, or -1 when missing or not in that form. */
static int read_profile_meta(const char *meta, double *mbps, long *ops)
{
	char *text = NULL, *save = NULL, *a, *b;
	int ret = -1;

	if (util_read_file(meta, &text, NULL) < 0)
		return -1;
	a = strtok_r(text, " \n", &save);
	b = a ? strtok_r(NULL, " \n", &save) : NULL;
	if (b && util_parse_double(a, mbps) == 0 && util_parse_long(b, ops) == 0 && *ops > 0)
		ret = 0;
	free(text);
	return ret;
}

/* One profiled run of a state: its counts file, and while it runs, its VM. */
struct profiled {
	const char *counts;
	char *meta, *log, *arg;
	struct vm_opts o;
	struct vm_job job;
	int running;
	double mbps, wall;
	long ops;
};

/* Takes a kept run (0), or starts the VM of seconds into p->counts (1);
 * -1 on an error.  The kernel's and image's paths must outlive the run. */
static int profiled_start(struct bench *be, const struct build_result *res, long seconds,
			  long seed, const char *plugin, struct profiled *p)
{
	char *cache;

	p->meta = xasprintf("%s.meta", p->counts);
	if (util_exists(p->counts) && read_profile_meta(p->meta, &p->mbps, &p->ops) == 0)
		return 0;
	p->log = xasprintf("%s.log", p->counts);
	/* QEMU 10.0.2 stops an icount guest of 2 or more vCPUs whose blocks
	 * carry inline plugin operations ("Bad icount read"); a C call per
	 * block runs it, the same counts. */
	cache = bench_cache_args(be);
	p->arg = xasprintf("%s,out=%s%s%s", plugin, p->counts, be->conf->smp > 1 ? ",mode=cb" : "",
			   cache);
	free(cache);
	unlink(p->counts);
	vm_opts_init(&p->o, be->conf);
	p->o.kernel = res->vmlinux;
	p->o.initrd = be->image;
	p->o.wl = &be->wl;
	p->o.log = p->log;
	p->o.accel = ACCEL_TCG;
	p->o.seconds = seconds;
	p->o.seed = seed;
	p->o.plugin = p->arg;
	if (vm_start(&p->o, &p->job) < 0) {
		vm_job_release(&p->job);
		return -1;
	}
	p->running = 1;
	return 1;
}

/* Waits for a started run and keeps its MB/s and operations beside its
 * counts (FILE.meta): 0, 1 when the run failed, -1. */
static int profiled_finish(struct profiled *p)
{
	struct vm_result r;
	char *text;
	int ret;

	p->running = 0;
	if (vm_finish(&p->job, &r) < 0)
		return -1;
	p->wall = r.wall_s;
	if (r.status != VM_OK || !util_exists(p->counts) || r.ops <= 0) {
		warning("profiled run failed: %s (console log kept: %s)",
			r.status != VM_OK ? r.reason : !util_exists(p->counts) ?
			"the plugin wrote no counts" : "tbench printed no operation table", p->log);
		return 1;
	}
	text = xasprintf("%.4f %ld\n", r.value, r.ops);
	p->mbps = r.value;
	p->ops = r.ops;
	ret = util_write_file_atomic(p->meta, text, strlen(text)) < 0 ? -1 : 0;
	free(text);
	return ret;
}

/* Frees p (not p->counts, borrowed), killing its VM if still running. */
static void profiled_release(struct profiled *p)
{
	if (p->running)
		vm_job_release(&p->job);
	free(p->meta);
	free(p->log);
	free(p->arg);
	p->running = 0;
	p->meta = p->log = p->arg = NULL;
}

/* The worse of two outcomes (0 ok, 1 a run failed, -1 an error). */
static int worse(int a, int b)
{
	return a < 0 || b < 0 ? -1 : a > b ? a : b;
}

/* The SECONDS and 2 x SECONDS runs of pair q, side by side when VMS
 * allows: 0, 1 when one failed, -1. */
static int profile_pair(struct bench *be, int i, const struct build_result *res, const char *dir,
			const char *plugin, struct bench_profile_pair *q, int *ran)
{
	struct profiled run[2];
	char seed[32] = "", tag[32] = "";
	int k, r = 0, started;

	memset(run, 0, sizeof(run));
	if (q->seed) {
		snprintf(seed, sizeof(seed), ", seed %ld", q->seed);
		snprintf(tag, sizeof(tag), "-seed%ld", q->seed);
	}
	for (k = 0; k < 2; k++)
		q->counts[k] = xasprintf("%s/%.16s-%lds%s.counts", dir, be->t[i].key,
					 be->conf->seconds * (k + 1), tag);
	for (k = 0; k < 2 && r == 0; k++) {
		if (k == 1 && run[0].running && bench_parallel(be) < 2)
			if ((r = profiled_finish(&run[0])) != 0)
				break;
		run[k].counts = q->counts[k];
		started = profiled_start(be, res, be->conf->seconds * (k + 1), q->seed, plugin, &run[k]);
		if (started < 0)
			r = -1;
		else if (started)
			info("profile: %s, %ld s under the plugin%s", be->t[i].label,
			     be->conf->seconds * (k + 1), seed);
	}
	for (k = 0; k < 2; k++) {
		if (run[k].running && r >= 0)
			r = worse(r, profiled_finish(&run[k]));
		q->ops[k] = run[k].ops;
		q->run_s[k] = run[k].wall;
		*ran += run[k].wall > 0;
		profiled_release(&run[k]);	/* kills a VM still running after an error */
	}
	q->mbps = run[0].mbps;
	return r;
}

int bench_profile(struct bench *be, int i, const char *plugin, struct bench_profile *p)
{
	struct build_result res;
	char *dir = NULL;
	int n, r;

	memset(p, 0, sizeof(*p));
	if ((r = bench_prepare(be, i, &res)) != 0)
		return r;
	r = -1;
	if (!(dir = bench_profile_dir(be)) || !(p->symbols = kernel_symbols(res.vmlinux)) ||
	    image_programs(&be->wl, &p->programs) < 0)
		goto out;
	/* Seeded SMP: every seed is its own exact run, as in the measurements. */
	p->npair = vm_seeded(be->conf) ? bench_runs_wanted(be->conf) : 1;
	p->pair = xcalloc((size_t)p->npair, sizeof(*p->pair));
	for (n = 0, r = 0; n < p->npair && r == 0; n++) {
		p->pair[n].seed = vm_seeded(be->conf) ? n + 1 : 0;
		r = profile_pair(be, i, &res, dir, plugin, &p->pair[n], &p->ran);
	}
out:
	build_result_release(&res);
	free(dir);
	if (r)
		bench_profile_release(p);
	return r;
}

void bench_profile_release(struct bench_profile *p)
{
	char **q;
	int n;

	for (q = p->programs; q && *q; q++)
		free(*q);
	free(p->programs);
	for (n = 0; n < p->npair; n++) {
		free(p->pair[n].counts[0]);
		free(p->pair[n].counts[1]);
	}
	free(p->pair);
	free(p->symbols);
	memset(p, 0, sizeof(*p));
}
