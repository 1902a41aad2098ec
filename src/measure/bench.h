/*
 * bench: the kernel states being measured (targets), what identifies a
 * measurement, and what is recorded for each: the module under
 * bench_run.h (runs in VMs), bench_ops.h (the bisection backend) and
 * bench_profile.h (profiled runs).
 *
 * Targets are the states of a range (target i = r->state[i]) plus extra
 * targets added with bench_add_target() (e.g. BAD with one patch reverted).  A
 * measurement is keyed by the kernel binary's SHA-256, the image and the
 * benchmark parameters, so identical kernels share measurements and no run
 * is repeated: every run is in the results store before it is used.
 *
 *	struct bench be;
 *	bench_init(&be, &conf, &tree, &range);   opens the store
 *	bench_params(&conf, &params);
 *	bisect_init(&b, &bench_ops, &be, be.n, &params);   bench_ops.h
 *	n = bench_samples(&be, i, &v, &nfail);   what is recorded for target i;
 *	                                         a lookup, it builds nothing
 *	...
 *	bench_release(&be);
 * Targets are the backend's own: callers name them by index and read them
 * through bench_samples() and bench_label(), never through be->t; what it
 * did so far through bench_counts().
 */
#ifndef TBISECT_BENCH_H
#define TBISECT_BENCH_H

#include "bisect.h"
#include "build.h"
#include "cachesim.h"
#include "conf.h"
#include "store.h"
#include "tree.h"
#include "vm.h"
#include "workload.h"

#define BENCH_MAX_VMS 16

struct bench_target {
	char commit[41], treeid[41];
	int state;		/* its state's number, -1 for extra targets */
	char *label;		/* "5 (0005-foo.patch)", "3 (05ec53e1a2b3)" */
	char *name, *subject;
	char key[65];
	int key_known;
	int unusable;
	int counted;		/* counted in builds or cached_builds already */
	double *v;		/* samples cache for the engine */
	int nv;
};

struct bench {
	const struct conf *conf;
	struct tree *tree;
	struct build build;
	struct store store;
	struct workload wl;	/* the benchmark (BENCH) */
	char *image;		/* the initramfs, once made (runs need it) */
	char image_key[65];
	int image_keyed;	/* image_key known without the image (lookups) */
	enum conf_accel accel;
	int accel_known;
	struct vm_qemu qemu;	/* probed by bench_init() */
	struct cachesim_weights weights;	/* COST = cycles: CACHE_WEIGHTS */
	struct bench_target *t;
	int n;
	int nstates;		/* targets 0..nstates-1 are the range's states */
	/* Counters of this process, for the summary and the benchmarks. */
	int builds, runs, cached_builds;	/* builds: kernels compiled; cached_builds:
					 * distinct kernels found built */
	double t_build, t_boot, t_bench, t_start, t_image, t_checkout;
	double t_incr;		/* incremental builds: seconds, count */
	int n_incr;
	int failed;		/* a lookup failed (reported): bench_failed() */
};

/* Measurement identity: what must match for two figures to be compared.
 * mode: "icount shift=N qemu=V" or "wallclock accel=kvm|tcg|auto qemu=V"
 * (V: QEMU's MAJOR.MINOR); params: the benchmark parameters.  Both owned;
 * bench_identity_release() frees them. */
struct bench_identity {
	char *mode;
	char *params;
};
void bench_identity(const struct conf *c, enum conf_accel accel, const char *qemu,
		    struct bench_identity *id);
void bench_identity_release(struct bench_identity *id);
/* The engine's parameters from the configuration. */
void bench_params(const struct conf *c, struct bisect_params *p);
/* Runs a state needs for a verdict under this configuration (see
 * bisect_runs_wanted()): every command that gathers runs asks here. */
int bench_runs_wanted(const struct conf *c);

/* One target per state of r (NULL: none; bench_add_target() adds them),
 * built in tree's work tree and O= directory (both borrowed, r only read
 * here); asks QEMU its version, and refuses (before anything is built) a
 * QEMU that is missing or cannot run the configured guest, an unknown or
 * incomplete benchmark, or one whose files are missing on the host.  0, or -1
 * (reported; nothing to release). */
int bench_init(struct bench *be, const struct conf *c, struct tree *tree,
	       const struct tree_range *r);
/* What this bench did so far. */
struct bench_counts {
	int builds;		/* kernels compiled */
	int cached;		/* distinct kernels found built */
	int runs;		/* VM runs */
	double t_build;		/* seconds compiling */
	double elapsed;		/* seconds since bench_init() */
};
void bench_counts(const struct bench *be, struct bench_counts *n);
/* The benchmark (its unit, metric, direction): borrowed until
 * bench_release(). */
const struct workload *bench_workload(const struct bench *be);
/* The QEMU version bench_init() found, "MAJOR.MINOR". */
const char *bench_qemu(const struct bench *be);
/* Builds target i (or finds it built: no checkout then), progress lines
 * naming it ("build: LABEL" before it starts, "built in N s" after), its
 * cost added to the counts: BUILD_OK or BUILD_FAILED with res filled
 * (release it), or -1.  The one way every command builds a state. */
int bench_build(struct bench *be, int i, struct build_result *res);
/* Successful samples of target i recorded so far (*v borrowed until the
 * next call on be), failed runs into *nfail.  A target whose measurement
 * key cannot be looked up (no image, a tool error) has none: that error is
 * reported, and kept for bench_failed(). */
int bench_samples(struct bench *be, int i, const double **v, int *nfail);
/* Whether a bench_samples() lookup has failed since bench_init(): a
 * command that only reads the samples (plot) must not call its result
 * whole.  1 or 0. */
int bench_failed(const struct bench *be);
/* "5 (0005-foo.patch)"; borrowed. */
const char *bench_label(const struct bench *be, int i);
/* Adds a target; returns its index. */
int bench_add_target(struct bench *be, const char *commit, const char *treeid,
		     const char *name, const char *subject);
/* Checks out target i for a build and names its Kconfig
 * sources to the build (build_set_source()).  0 or -1. */
int bench_checkout(struct bench *be, int i);
/* VMs run at once: VMS (0 = cores) in icount mode, whose figures do not
 * depend on host load; always 1 in wall-clock mode. */
int bench_parallel(const struct bench *be);
/* The guest's health in target i's last successful run that read the
 * kernel log: its kernel errors and warnings (store_rec.kerrors) and the
 * first (borrowed from the store).  0, or -1 when no such run is recorded. */
int bench_health(const struct bench *be, int i, long *kerrors, const char **first);
/* The measurement mode in words, e.g. "icount shift=1, TCG". */
const char *bench_mode(struct bench *be);
void bench_summary(struct bench *be, FILE *f);

/* Builds target i (or finds it built) and learns its key: 0 ready with res
 * filled (release it), 1 unusable (res released), -1 error or interrupt.
 * What a run or a profiled run starts from. */
int bench_prepare(struct bench *be, int i, struct build_result *res);
void bench_release(struct bench *be);


/* WORKDIR/profiles (the plugin's files), made when missing; caller frees.
 * NULL on error (reported). */
char *bench_profile_dir(const struct bench *be);
/* QEMU loads the plugin (a shared object) before anything is built, in
 * icount mode: 0, or -1 (reported, naming the fix).  Wall-clock mode under
 * KVM has no plugin: refused with the TCG command that profiles the same
 * kernels.  bench_init() calls it for COST = cycles, profile through
 * bench_profile_check(). */
int bench_plugin_check(struct bench *be, const char *plugin);

/* CACHE_GEOMETRY is a cache the model can be and CACHE_WEIGHTS parse (into
 * *w; the defaults when unset).  0 or -1 (reported).  main() calls it once
 * the configuration is loaded, so a bad value stops a command before
 * anything is prepared or built; bench_init() again for COST = cycles. */
int bench_check_cache(const struct conf *c, struct cachesim_weights *w);
/* The plugin's cache-model arguments for a run ("" with COST =
 * instructions, else ",cache=on" and CACHE_GEOMETRY's ",geom=..."):
 * caller frees. */
char *bench_cache_args(const struct bench *be);

#endif
