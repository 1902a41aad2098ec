/*
 * store: the results file WORKDIR/results.tsv.
 *
 * One line per VM run, tab-separated with a header, read directly by awk
 * and gnuplot.  The columns come from one field table in store.c, which
 * also drives the parser and the csv/jsonl exports.  Lines are appended with one write() and fsync()ed; the last
 * column is a checksum of the rest of the line, so a line torn by a crash,
 * a kill or a full disk is detected on read, reported with a warning and
 * ignored.  Before appending, a file not ending in a newline gets one, so a
 * torn tail never swallows the next record.  Lines of the format before
 * guest_cpus, cgroup_depth and qemu were added are read with 1, 0 and "-":
 * those guests had one CPU and no cgroups; their QEMU is not known.  Lines
 * from before kerrors and kerror are read with -1 and "-" (not known),
 * lines from before bench with "tbench" (the only benchmark then), and
 * lines from before cycles with -1 (none).
 *
 *	struct store s;
 *	store_init(&s, path);
 *	if (store_load(&s) < 0) ...
 *	store_append(&s, &rec);          0 or -1 (reported; disk full etc.)
 *	n = store_count(&s, key, &nfail);
 *	store_release(&s);
 * Records are owned by the store.
 */
#ifndef TBISECT_STORE_H
#define TBISECT_STORE_H

#include <stdio.h>

struct store_rec {
	char key[65];		/* measurement content key */
	int state;		/* the state's number (-1 for extra targets) */
	char *name;		/* the state's name (patch name, short commit id)
				 * or the target's ("6-minus-<commit>") */
	char *subject;
	int ok;
	double value;		/* the figure, in the benchmark's unit (column "mbps",
				 * its name before BENCH) */
	char *mode;		/* icount | wallclock */
	char *accel;		/* tcg | kvm */
	long shift, clients, seconds;
	double build_s, boot_s, bench_s;
	long timestamp;
	char *version;
	char *reason;		/* why a run failed, "-" when ok */
	long guest_cpus;	/* CPUs the guest saw, -1 unknown */
	long cgroup_depth;	/* cgroup levels the benchmark ran in, -1 unknown */
	char *qemu;		/* QEMU's MAJOR.MINOR that ran it, "-" unknown */
	long kerrors;		/* kernel errors and warnings in the guest's log
				 * (vm_klog_counts()), -1 unknown */
	char *kerror;		/* the first of them, "-" when none or unknown */
	char *bench;		/* the benchmark (BENCH) that gave the figure */
	double cycles;		/* COST = cycles: the cache model's estimated
				 * cycles of the run (bench_run.h), -1 none */
};

struct store {
	char *path;
	struct store_rec *rec;
	int n, alloc;
	int torn;		/* corrupt lines ignored by the last load */
	int cycles;		/* store_samples() reads the cycles column (set
				 * by the caller for COST = cycles) */
};

void store_init(struct store *s, const char *path);
/* Loads every valid record (a missing file is an empty store). 0 or -1. */
int store_load(struct store *s);
/* Parses a results text of len bytes (the unit tests use it directly):
 * every valid record, wherever it stands.  A line that is torn, has a NUL
 * byte, fails its checksum or holds a value no run can have (a negative
 * count, a figure past 1e12) is skipped and counted in s->torn; each
 * stretch of such lines is reported once, with its lines and bytes.
 * Always 0. */
int store_parse(struct store *s, const char *text, size_t len);
/* Appends rec (copied) durably.  0 or -1 (reported). */
int store_append(struct store *s, const struct store_rec *rec);
/* Formats rec as one line with checksum and newline; caller frees. */
char *store_format(const struct store_rec *rec);
/* Successful figures for key into *v (caller frees, may be NULL when
 * none), or with s->cycles their estimated cycles (a run without is
 * passed over); returns their count, failed runs into *nfail. */
int store_samples(const struct store *s, const char *key, double **v, int *nfail);
void store_release(struct store *s);
/* Writes the store as tsv (the file without its check column), csv
 * (RFC 4180 quoting) or jsonl (one object per run, numbers as numbers) to
 * f.  0, or -1 for an unknown format or a write error (reported). */
int store_export(const struct store *s, const char *format, FILE *f);

#endif
