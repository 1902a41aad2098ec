/*
 * vm: boots a kernel + initramfs in QEMU and reads the benchmark's result
 * (its figure, the guest's CPUs and cgroup, its kernel log) from the serial
 * console.
 *
 * QEMU runs with -nodefaults, no network device, -no-reboot (the guest's
 * "reboot -f" ends QEMU), panic=-1 (a panic reboots, so ends QEMU too) and
 * a deadline.  Mode icount: TCG with "-icount shift=N,sleep=off", which
 * counts instructions and is deterministic.  Mode wallclock: KVM when it
 * works (probed with a real tiny boot), else TCG.
 *
 *	struct vm_opts o; struct vm_result r;
 *	vm_opts_init(&o, &conf);  o.kernel = ...; o.initrd = ...; o.log = ...;
 *	if (vm_run(&o, &r) < 0) ... tool failure or interrupt (reported)
 *	if (r.status == VM_OK) use r.value; else r.reason says why
 *
 * Several VMs at once (icount runs do not disturb each other's figures):
 *	struct vm_job j[2];
 *	vm_start(&o0, &j[0]); vm_start(&o1, &j[1]);   o's strings must outlive the job
 *	while (!(vm_poll(&j[0]) & vm_poll(&j[1]))) run_pause(NULL);
 *	vm_finish(&j[0], &r0); vm_finish(&j[1], &r1);  each releases its job
 */
#ifndef TBISECT_VM_H
#define TBISECT_VM_H

#include "conf.h"
#include "run.h"
#include "workload.h"

enum vm_status {
	VM_OK = 0,
	VM_PANIC,	/* kernel panic, oops or BUG on the console */
	VM_TIMEOUT,	/* deadline passed; QEMU killed */
	VM_NO_RESULT,	/* guest ended without a result line */
	VM_BAD_RESULT,	/* result line present but unusable */
	VM_BAD_GUEST,	/* guest's CPUs or cgroup are not what was asked */
	VM_QEMU_FAIL,	/* QEMU exited with an error */
	VM_NO_FIGURE,	/* the benchmark ran and exited 0, but its output holds
			 * no figure its regex finds: a setup error */
};

struct vm_opts {
	const char *qemu;
	const char *kernel, *initrd, *log;
	enum conf_accel accel;	/* resolved: ACCEL_KVM or ACCEL_TCG */
	int icount;
	long shift, smp, memory_mb, clients, seconds;
	long cgroup_depth;	/* cgroup levels the guest runs the benchmark in */
	long seed;		/* > 0: "tb.seed=N" on the command line, see vm_seeded() */
	const char *feat;
	double timeout;
	int probe;		/* boot only, print a probe line and exit */
	const struct workload *wl;	/* the benchmark (NULL or legacy: tbench's
				 * "TBISECT-RESULT rc=N mbps=X" line) */
	const char *plugin;	/* a TCG plugin and its arguments for -plugin
				 * ("tbisect-prof.so,out=FILE"), NULL: none */
};

struct vm_result {
	enum vm_status status;
	double value;		/* the figure, in the benchmark's unit */
	long ops;		/* tbench operations the run finished (the sum of
				 * its operation table), -1 when not printed */
	long kerrors;		/* the kernel's errors and warnings in its log
				 * (vm_klog_counts()), -1 when the guest printed
				 * no log */
	char kerror[160];	/* the first of them, "" when none */
	double boot_s;		/* QEMU start to the guest's begin marker */
	double bench_s;		/* begin marker to QEMU exit */
	double wall_s;
	long guest_cpus;	/* online CPUs the guest reported, -1 unknown */
	long cgroup_depth;	/* levels of the benchmark's cgroup, -1 unknown */
	char reason[256];
	char kernel_release[128];
};

struct vm_watch {
	const char *log;
	double start, begin;
};

/* One QEMU run in flight.  Owns the argv strings; borrows o's strings. */
struct vm_job {
	struct vm_opts opts;
	struct run_cmd cmd;
	struct vm_watch w;
	const char *argv[40];
	char *serial, *mem, *smp, *icount, *append, *qlog;
};

void vm_opts_init(struct vm_opts *o, const struct conf *c);
/* Returns 0 when the VM ran (see r->status), -1 on a tool error. */
int vm_run(const struct vm_opts *o, struct vm_result *r);
/* Starts QEMU: 0, or -1 (reported; release j with vm_job_release()). */
int vm_start(const struct vm_opts *o, struct vm_job *j);
/* Non-blocking: 1 once QEMU has ended (or was killed), 0 while it runs. */
int vm_poll(struct vm_job *j);
/* Waits for the end if needed, fills r like vm_run() and releases j. */
int vm_finish(struct vm_job *j, struct vm_result *r);
/* Kills QEMU if still running and frees j. */
void vm_job_release(struct vm_job *j);
/* Whether a kernel log record ("<N>text", N = facility x 8 + level, as
 * `dmesg -r` prints it) is an error or a warning that counts against the
 * guest's health: the kernel's own (facility 0) at error level or worse
 * (level 3 and below: ACPI errors, BUG, Oops, panics), or a WARN() splat's
 * "WARNING:" line (level 4; the rest of a splat is not counted again). */
int vm_klog_counts(const char *record);
/* Pure console parser, used by vm_run() and the unit tests: fills
 * status/value/ops/kerrors/kerror/reason/kernel_release from the console
 * text.  The guest prints its kernel log after the result, one record per
 * "TBISECT-KLOG <N>text" line.  wl: the benchmark; NULL or tbench read
 * "TBISECT-RESULT rc=N mbps=X", the others "TBISECT-RESULT rc=N" and the
 * figure from their TBISECT-OUT lines (workload_parse()). */
void vm_parse_console(const char *text, int probe, const struct workload *wl,
		      struct vm_result *r);
/* Pure: a VM_OK run whose guest reported another CPU count than o->smp,
 * or another cgroup depth than o->cgroup_depth, becomes VM_BAD_GUEST with
 * the reason.  A probe run is not checked. */
void vm_check_guest(const struct vm_opts *o, struct vm_result *r);
const char *vm_status_name(enum vm_status s);

/* The QEMU that runs the guests.  Its version is part of every measurement's
 * identity: two QEMU releases emulate the same kernel with other icount
 * figures, and QEMU before 8.1 cannot run SMP guests under icount at all
 * (its round-robin scheduler gives the whole budget to the next timer
 * deadline to the first vCPU, and the second never runs: the guest hangs in
 * SMP bring-up). */
struct vm_qemu {
	long major, minor, micro;
	char version[32];	/* "MAJOR.MINOR", as measurements name it */
};
/* Whether runs under c are seeded: icount with SMP > 1, or a benchmark
 * whose one-CPU figure unrelated changes move (workload_seeded():
 * hackbench, iperf3, cyclictest).  An SMP guest is
 * exactly repeatable, yet any change to the kernel or the command line moves
 * its figure by up to about 1% (two vCPUs interleave differently), so one
 * run cannot judge a change near the threshold.  Run k of every kernel gets
 * "tb.seed=k", a reproducible perturbation: repeats then sample that spread
 * and the statistical rule judges them, and any run can be repeated
 * exactly. */
int vm_seeded(const struct conf *c);
/* Pure: parses "QEMU emulator version 10.0.2 (Debian ...)" strictly.
 * 0, or -1 when text is not that line. */
int vm_parse_qemu_version(const char *text, struct vm_qemu *q);
/* Runs `qemu --version`.  0, or -1 (reported: not installed, not QEMU). */
int vm_qemu_probe(const char *qemu, struct vm_qemu *q);
/* Pure: 0 when q can run the guest c asks for; -1 with the reason and the
 * fix in why (SMP > 1 under icount needs QEMU 8.1 or later). */
int vm_qemu_check(const struct conf *c, const struct vm_qemu *q, char *why, size_t size);
/* Decides ACCEL_KVM or ACCEL_TCG for wall-clock runs: asked kvm is kvm,
 * tcg is tcg, auto boots kernel+initrd once under KVM and keeps KVM only if
 * the guest reached user space.  The answer is cached in cache_file. */
enum conf_accel vm_resolve_accel(const struct conf *c, const char *kernel, const char *initrd,
				 const char *cache_file);

#endif
