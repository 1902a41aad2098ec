/*
 * bench: measuring kernel states for real (checkout, build, image, boot,
 * tbench, record), and the bisection backend over it.
 *
 * Targets are the states of the tree (index = state) plus extra targets
 * added with bench_add_target() (e.g. BAD with one patch reverted).  A
 * measurement is keyed by the kernel binary's SHA-256, the image and the
 * benchmark parameters, so identical kernels share measurements and no run
 * is repeated: every run is in the results store before it is used.
 *
 *	struct bench be;
 *	bench_init(&be, &conf, &tree);       opens the store (or bench_init_git)
 *	bench_params(&conf, &params);
 *	bisect_init(&b, &bench_ops, &be, be.n, &params);
 *	n = bench_samples(&be, i, &v, &nfail);   what is recorded for target i
 *	...
 *	bench_release(&be);
 * Targets are the backend's own: callers name them by index and read them
 * through bench_samples() and bench_label(), never through be->t.
 */
#ifndef TBISECT_BENCH_H
#define TBISECT_BENCH_H

#include "bisect.h"
#include "build.h"
#include "conf.h"
#include "store.h"
#include "tree.h"
#include "vm.h"

#define BENCH_MAX_VMS 16

struct bench_target {
	char commit[41], treeid[41];
	int state;		/* tree state index, -1 for extra targets */
	char *label;		/* "5 (0005-foo.patch)" */
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
	char *image;
	char image_key[65];
	enum conf_accel accel;
	int accel_known;
	struct vm_qemu qemu;	/* probed by bench_init() */
	struct bench_target *t;
	int n;
	/* Counters of this process, for the summary and the benchmarks. */
	int builds, runs, cached_builds;	/* builds: kernels compiled; cached_builds:
					 * distinct kernels found built */
	double t_build, t_boot, t_bench, t_start, t_image, t_checkout;
	double t_incr;		/* incremental builds: seconds, count */
	int n_incr;
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

/* One target per state of tree; asks QEMU its version, and refuses (before
 * anything is built) a QEMU that is missing or cannot run the configured
 * guest.  0, or -1 (reported; nothing to release).
 * In TREE mode (tree->user) the build directory is WORKDIR/git/KEY/build,
 * beside the clone. */
int bench_init(struct bench *be, const struct conf *c, struct tree *tree);
/* For a kernel git tree checked out at tree->dir (tree->n == 0): its own
 * build directory under WORKDIR, keyed by the tree's path.  0 or -1. */
int bench_init_git(struct bench *be, const struct conf *c, struct tree *tree);
/* Successful samples of target i recorded so far (*v borrowed until the
 * next call on be), failed runs into *nfail. */
int bench_samples(struct bench *be, int i, const double **v, int *nfail);
/* "5 (0005-foo.patch)"; borrowed. */
const char *bench_label(const struct bench *be, int i);
/* Adds a target; returns its index. */
int bench_add_target(struct bench *be, const char *commit, const char *treeid,
		     const char *name, const char *subject);
/* Checks out target i for a build; in TREE mode also names its Kconfig
 * sources to the build (build_set_source()).  0 or -1. */
int bench_checkout(struct bench *be, int i);
/* One run of target i: 0 run recorded (ok or failed), 1 target unusable
 * (does not build), -1 tool error or interrupt. */
int bench_measure(struct bench *be, int i);
/* Brings target idx[k] to want[k] recorded successful runs (one attempt per
 * missing run; targets with identical kernels share runs): up to
 * bench_parallel() VMs at once, the next kernel built while earlier ones
 * run.  Unusable targets are skipped.  0 done, -1 tool error or interrupt
 * (runs finished so far stay recorded). */
int bench_ensure_many(struct bench *be, const int *idx, const int *want, int n);
/* Runs target i until it has what its mode needs (1 in icount mode,
 * RUNS_MIN otherwise; failed runs retried up to 2 more than succeeded):
 * the count with *v as bench_samples() gives it, 0 when the target cannot
 * be built or booted, -1 on a tool error or interrupt. */
int bench_gather(struct bench *be, int i, const double **v);
/* VMs run at once: VMS (0 = cores) in icount mode, whose figures do not
 * depend on host load; always 1 in wall-clock mode. */
int bench_parallel(const struct bench *be);
/* The measurement mode in words, e.g. "icount shift=1, TCG". */
const char *bench_mode(struct bench *be);
void bench_summary(struct bench *be, FILE *f);
void bench_release(struct bench *be);

extern const struct bisect_ops bench_ops;

#endif
