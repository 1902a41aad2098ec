/* bench_run: runs of prepared kernels in VMs, up to bench_parallel() at once, each recorded in the store. */
#include "bench.h"
#include "bench_run.h"
#include "profile.h"
#include "run.h"
#include "util.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One run in flight. */
struct slot {
	int i;			/* target, -1 when the slot is free */
	struct build_result res;
	struct vm_opts o;
	struct vm_job job;
	char *log;
	char *plugin;		/* COST = cycles: -plugin's argument */
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
	if (be->conf->cost == COST_CYCLES) {
		/* A C call per block and per access: no inline operations
		 * (they stop an SMP icount guest). */
		char *cache = bench_cache_args(be);

		s->plugin = xasprintf("%s,out=%s.cache%s", be->conf->profile_plugin, s->log, cache);
		s->o.plugin = s->plugin;
		free(cache);
	}
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
	free(s->plugin);
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

/* COST = cycles: the estimated cycles of the run in the slot, from the
 * plugin's counts beside its log, per unit of work: per tbench operation
 * (the run's operation table), else per run (docs/cost.md).  0, or -1
 * (reported). */
static int run_cycles(const struct bench *be, const struct slot *s, const struct vm_result *r,
		      double *cycles)
{
	struct profile_cache pc;
	char *path = xasprintf("%s.cache", s->log), *text = NULL;
	int ret = -1;

	if (util_read_file(path, &text, NULL) < 0) {
		error("the cache model wrote no counts (%s; console log: %s)", path, s->log);
		goto out;
	}
	if (profile_cache_parse(&pc, text) < 0) {
		error("in %s", path);
		goto out_text;
	}
	*cycles = cachesim_cycles_of(profile_cache_cost(&pc), &be->weights);
	if (be->wl.legacy) {
		if (r->ops <= 0) {
			error("tbench printed no operation table: no cycles per operation (console "
			      "log: %s)", s->log);
			goto out_text;
		}
		*cycles /= (double)r->ops;
	}
	ret = 0;
out_text:
	free(text);
out:
	free(path);
	return ret;
}

/* ", 1234 estimated cycles" or "". */
static const char *cycles_note(double cycles, char *buf, size_t size)
{
	snprintf(buf, size, cycles >= 0 ? ", %.1f estimated cycles" : "", cycles);
	return buf;
}

static int finish_run(struct bench *be, struct slot *s)
{
	struct bench_target *t = &be->t[s->i];
	struct store_rec rec;
	struct vm_result r;
	char hn[256], cn[64];
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
	rec.cycles = -1;
	s->i = -1;	/* job released by vm_finish */
	if (r.status == VM_OK && be->conf->cost == COST_CYCLES && run_cycles(be, s, &r, &rec.cycles) < 0)
		goto out;
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
		info("run: %s: %.3f %s%s (%s; boot %.1f s, %s %.1f s)%s", t->label, r.value,
		     be->wl.own_unit, cycles_note(rec.cycles, cn, sizeof(cn)), bench_mode(be), r.boot_s,
		     be->wl.name, r.bench_s, health_note(&r, hn, sizeof(hn)));
	else
		warning("run of %s failed: %s: %s (console log kept: %s)", t->label,
			vm_status_name(r.status), r.reason, s->log);
	ret = 0;
out:
	slot_release(s);
	return ret;
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
