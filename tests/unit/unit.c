/*
 * Unit tests for the pure logic: parsers, statistics, results store,
 * bisection over the simulated backend, nightly verdicts.
 *
 * Output is TAP (prove runs it): one "ok N - name" line per named test,
 * each failed CHECK as a "# FAIL file:line: condition" comment before it,
 * then "N passed, N failed" (tests).  Exits non-zero on any failure.
 * UNIT_STDERR=FILE sends the expected error messages there.
 */
#include "bench.h"
#include "bisect.h"
#include "build.h"
#include "check.h"
#include "hist.h"
#include "plot.h"
#include "conf.h"
#include "cppfilter.h"
#include "distcc.h"
#include "image.h"
#include "kbuild.h"
#include "kcfg.h"
#include "cachesim.h"
#include "profile.h"
#include "progress.h"
#include "release.h"
#include "report.h"
#include "run.h"
#include "series.h"
#include "sim.h"
#include "stats.h"
#include "store.h"
#include "tree.h"
#include "util.h"
#include "vm.h"
#include "workload.h"

#include <csv.h>
#include <elf.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int checks_failed;	/* in the current test */
static char tmpdir[256];

#define CHECK(cond) do { \
	if (!(cond)) { \
		checks_failed++; \
		printf("# FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

static char *write_tmp(const char *name, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(p, "wb");

	fwrite(data, 1, len, f);
	fclose(f);
	return p;
}

/* Writes text to the absolute path; returns a copy of the path. */
static char *write_tmp_abs(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return xstrdup(path);
}

static int load_conf_text(const char *text, size_t len, struct conf *c)
{
	char *p = write_tmp("t.conf", text, len);
	int r;

	conf_init(c);
	r = conf_load(c, p);
	free(p);
	return r;
}

static void test_conf(void)
{
	struct conf c;

	{
		/* The comment line must be parsed too: a length short of the text
		 * would hide "SHIFT = 3" and the comment after it. */
		const char *t = "GOOD = base\nBAD = 7\nCLIENTS = 4\nTHRESHOLD = 2.5%\nMODE = wallclock\n# c\nSHIFT = 3\n";

		CHECK(load_conf_text(t, strlen(t), &c) == 0);
	}
	CHECK(c.clients == 4 && fabs(c.threshold - 0.025) < 1e-12 && c.mode == MODE_WALLCLOCK);
	CHECK(c.shift == 3);
	CHECK(!strcmp(c.bad, "7") && c.bad_line == 2 && c.good_line == 1);
	conf_release(&c);
	CHECK(load_conf_text("workdir = /tmp/x\n", 17, &c) == 0 && !strcmp(c.workdir, "/tmp/x"));
	conf_release(&c);
	CHECK(load_conf_text("NOPE = 1\n", 9, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("CLIENTS = many\n", 15, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("CLIENTS = 0\n", 12, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("GOOD base\n", 10, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("GOOD = 1\nGOOD = 2\n", 18, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("", 0, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("# only a comment\n", 17, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("GOOD = 1\n\x7f\x45LF\x02\x01\x00\x00garbage\n", 22, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("[section]\nGOOD = 1\n", 19, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("SHIFT = 11\n", 11, &c) < 0);
	conf_release(&c);
	/* An override of GOOD/BAD forgets the file line of the old value. */
	CHECK(load_conf_text("GOOD = 1\nBAD = 7\n", strlen("GOOD = 1\nBAD = 7\n"), &c) == 0 && c.bad_line == 2);
	CHECK(conf_set(&c, "-s", "BAD=9") == 0 && c.bad_line == 0 && c.good_line == 1);
	conf_release(&c);
	conf_init(&c);
	CHECK(conf_set(&c, "-s", "SECONDS=5") == 0 && c.seconds == 5);
	CHECK(conf_set(&c, "-s", "SECONDS") < 0);
	CHECK(conf_set(&c, "-s", "SECONDS=1") < 0);
	CHECK(conf_set(&c, "-s", "SECONDS=3") == 0 && conf_set(&c, "-s", "MODE=wallclock") == 0);
	CHECK(conf_finish(&c) == 0 && c.seconds == 3);
	conf_release(&c);
	/* SECONDS left at 0 follows MODE. */
	conf_init(&c);
	CHECK(conf_finish(&c) == 0 && c.seconds == 2);
	conf_release(&c);
	conf_init(&c);
	CHECK(conf_set(&c, "-s", "MODE=wallclock") == 0 && conf_set(&c, "-s", "SECONDS=0") == 0);
	CHECK(conf_finish(&c) == 0 && c.seconds == 5);
	conf_release(&c);
}

/* The work directory's default from an environment: HOME and
 * XDG_CACHE_HOME as given (NULL unsets).  Caller frees. */
static char *workdir_with(const char *home, const char *cache)
{
	char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *old_cache = getenv("XDG_CACHE_HOME") ? xstrdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *w;
	struct conf c;

	home ? setenv("HOME", home, 1) : unsetenv("HOME");
	cache ? setenv("XDG_CACHE_HOME", cache, 1) : unsetenv("XDG_CACHE_HOME");
	conf_init(&c);
	w = c.workdir ? xstrdup(c.workdir) : NULL;
	conf_release(&c);
	old_home ? setenv("HOME", old_home, 1) : unsetenv("HOME");
	old_cache ? setenv("XDG_CACHE_HOME", old_cache, 1) : unsetenv("XDG_CACHE_HOME");
	free(old_home);
	free(old_cache);
	return w;
}

/* Inputs that libinih or the shell would misread are refused, not
 * half-read: long lines, comments after values, huge files, line breaks in
 * -s, crossed limits, relative cache directories. */
static void test_conf_bad(void)
{
	struct sbuf sb;
	struct conf c;
	char *w, *p;
	int i;

	/* A comment of 200 bytes whose tail reads "SMP = 8" (a 200-byte
	 * buffer would parse the tail as a setting). */
	sbuf_init(&sb);
	sbuf_addf(&sb, "GOOD = 1\n# ");
	for (i = 0; i < 197; i++)
		sbuf_add(&sb, "x", 1);
	sbuf_addf(&sb, "SMP = 8\n");
	CHECK(load_conf_text(sb.buf, sb.len, &c) < 0 && c.smp == 1);
	conf_release(&c);
	sbuf_release(&sb);
	/* The longest line that is read whole, and one byte more. */
	for (i = 0; i < 2; i++) {
		char line[256];
		int n = snprintf(line, sizeof(line), "PLOT_DIR = /%0*d\n", 198 - 12 + i, 0);

		CHECK(load_conf_text(line, (size_t)n, &c) == (i ? -1 : 0));
		CHECK(i || strlen(c.plot_dir) == 198 - 11);
		conf_release(&c);
	}
	/* Comments after a value: ';' and '#' alike. */
	CHECK(load_conf_text("SCHED_FEATURES = NO_HRTICK ;reboot -f\n", 38, &c) < 0 && !*c.feat);
	conf_release(&c);
	CHECK(load_conf_text("SMP = 2 # two\n", 14, &c) < 0);
	conf_release(&c);
	CHECK(load_conf_text("; a comment\n  # another\nSMP = 2\n", 32, &c) == 0 && c.smp == 2);
	conf_release(&c);
	conf_init(&c);
	CHECK(conf_set(&c, "-s", "SCHED_FEATURES=NO_HRTICK ;reboot -f") < 0 && !*c.feat);
	/* One -s, one key. */
	CHECK(conf_set(&c, "-s", "GOOD=1\nBAD=0003-third") < 0 && !c.bad);
	CHECK(conf_set(&c, "-s", "RUNS_MIN=50") == 0 && conf_set(&c, "-s", "RUNS_MAX=10") == 0);
	CHECK(conf_finish(&c) < 0);
	conf_release(&c);
	/* A file past the limit, and a device that never ends. */
	sbuf_init(&sb);
	for (i = 0; i < CONF_MAX_BYTES / 10 + 1; i++)
		sbuf_add(&sb, "# comment\n", 10);
	CHECK(load_conf_text(sb.buf, sb.len, &c) < 0);
	conf_release(&c);
	sbuf_release(&sb);
	conf_init(&c);
	CHECK(conf_load(&c, "/dev/zero") < 0);
	conf_release(&c);
	/* The work directory: XDG_CACHE_HOME only when absolute. */
	w = workdir_with("/home/u", "/var/cache/u");
	CHECK(w && !strcmp(w, "/var/cache/u/tbisect"));
	free(w);
	w = workdir_with("/home/u", "rel/cache");
	CHECK(w && !strcmp(w, "/home/u/.cache/tbisect"));
	free(w);
	w = workdir_with(NULL, NULL);
	p = getpwuid(getuid()) ? xasprintf("%s/.cache/tbisect", getpwuid(getuid())->pw_dir) : NULL;
	CHECK(w && p && !strcmp(w, p));
	free(w);
	free(p);
}

static void test_series(void)
{
	struct series s;
	char *sub;

	series_init(&s);
	CHECK(series_parse(&s, "series", "# head\na.patch\n\nb.patch -p1  # tail\n") == 0);
	CHECK(s.n == 2 && !strcmp(s.patch[1].name, "b.patch") && s.patch[1].line == 4);
	CHECK(series_find(&s, "b") == 1 && series_find(&s, "c") == -1);
	series_release(&s);
	series_init(&s);
	CHECK(series_parse(&s, "series", "../etc/passwd\n") < 0);
	series_release(&s);
	series_init(&s);
	CHECK(series_parse(&s, "series", "sub/x.patch\n") < 0);
	series_release(&s);
	series_init(&s);
	CHECK(series_parse(&s, "series", ".hidden\n") < 0);
	series_release(&s);
	series_init(&s);
	CHECK(series_parse(&s, "series", "a.patch -p0\n") < 0);
	series_release(&s);
	series_init(&s);
	CHECK(series_parse(&s, "series", "a.patch\na.patch\n") < 0);
	series_release(&s);
	sub = series_subject("From x\nSubject: [PATCH 03/20] sched: do it\n\nbody\n");
	CHECK(!strcmp(sub, "sched: do it"));
	free(sub);
	sub = series_subject("\nplain first line\nmore\n");
	CHECK(!strcmp(sub, "plain first line"));
	free(sub);
	/* series_load: a missing patch file is reported. */
	{
		char *d = xasprintf("%s/kp", tmpdir), *f = xasprintf("%s/series", d);
		FILE *fp;

		util_mkdir_p(d);
		fp = fopen(f, "w");
		fputs("missing.patch\n", fp);
		fclose(fp);
		series_init(&s);
		CHECK(series_load(&s, d) < 0);
		series_release(&s);
		free(d);
		free(f);
	}
}

static void test_console(void)
{
	struct vm_result r;

	memset(&r, 0, sizeof(r));
	vm_parse_console("boot\nTBISECT-BEGIN x\nTBISECT-KERNEL x 6.1.0 #1\nThroughput 99.5 MB/sec\n"
			 "TBISECT-RESULT x rc=0 mbps=99.5 clients=2 seconds=3\nTBISECT-END x\n", 0, NULL, &r);
	CHECK(r.status == VM_OK && fabs(r.value - 99.5) < 1e-9);
	CHECK(!strncmp(r.kernel_release, "x 6.1.0", 7));
	CHECK(r.ops == -1);	/* no operation table */
	CHECK(r.kerrors == -1);	/* no kernel log printed */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT rc=0 mbps=81.1\n"
			 "TBISECT-KLOG <6>Linux version 6.1.192\n"
			 "TBISECT-KLOG <3>ACPI Error: AE_BAD_PARAMETER,\tDuring Region initialization\n"
			 "TBISECT-KLOG <4>------------[ cut here ]------------\n"
			 "TBISECT-KLOG <4>WARNING: CPU: 0 PID: 1 at kernel/x.c:10 f+0x1/0x2\n"
			 "TBISECT-KLOG <4>Call Trace:\n"
			 "TBISECT-KLOG <12>WARNING: written to /dev/kmsg by user space\n"
			 "TBISECT-KLOG <5>Unknown kernel command line parameters\n"
			 "TBISECT-END\n", 0, NULL, &r);
	CHECK(r.status == VM_OK && r.kerrors == 2);
	CHECK(!strcmp(r.kerror, "ACPI Error: AE_BAD_PARAMETER, During Region initialization"));
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT rc=0 mbps=81.1\nTBISECT-KLOG <6>Linux\n", 0, NULL, &r);
	CHECK(r.kerrors == 0 && r.kerror[0] == '\0');
	CHECK(vm_klog_counts("<0>Kernel panic") && vm_klog_counts("<2>BUG: x") && !vm_klog_counts("<4>x") &&
	      !vm_klog_counts("<11>user error") && !vm_klog_counts("<3") && !vm_klog_counts("3>x"));
	vm_parse_console("TBISECT-BEGIN\r\n Operation      Count    AvgLat    MaxLat\r\n"
			 " ----------------------------------------\r\n"
			 " NTCreateX       8859     0.145     0.287\r\n"
			 " ReadX          13645     0.143     0.279\r\n\r\n"
			 "Throughput 81.1 MB/sec\r\nTBISECT-RESULT rc=0 mbps=81.1\r\n", 0, NULL, &r);
	CHECK(r.status == VM_OK && r.ops == 8859 + 13645);
	vm_parse_console("TBISECT-BEGIN\n Operation  Count\n ---\n ReadX 12x 0.1 0.2\n\n"
			 "TBISECT-RESULT rc=0 mbps=81.1\n", 0, NULL, &r);
	CHECK(r.ops == -1);	/* a count that is not a number */
	vm_parse_console("TBISECT-BEGIN\n[ 1.0] Kernel panic - not syncing: Attempted to kill init!\n", 0, NULL, &r);
	CHECK(r.status == VM_PANIC && strstr(r.reason, "Kernel panic"));
	vm_parse_console("TBISECT-BEGIN x\nTBISECT-END x\n", 0, NULL, &r);
	CHECK(r.status == VM_NO_RESULT);
	vm_parse_console("SeaBIOS\n", 0, NULL, &r);
	CHECK(r.status == VM_NO_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT x rc=0 mbps=none clients=2\n", 0, NULL, &r);
	CHECK(r.status == VM_BAD_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT x rc=0 mbps=12abc clients=2\n", 0, NULL, &r);
	CHECK(r.status == VM_BAD_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT x rc=1 mbps=10 clients=2\n", 0, NULL, &r);
	CHECK(r.status == VM_BAD_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-PROBE x ok\n", 1, NULL, &r);
	CHECK(r.status == VM_NO_RESULT);	/* probe line carries the word after the marker */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-PROBE ok\n", 1, NULL, &r);
	CHECK(r.status == VM_OK);
	/* A result line that is not at the start of a line does not count. */
	vm_parse_console("TBISECT-BEGIN\nnoise TBISECT-RESULT x rc=0 mbps=5\n", 0, NULL, &r);
	CHECK(r.status == VM_NO_RESULT);
}

static void test_ldd(void)
{
	char **v = image_parse_ldd("\tlinux-vdso.so.1 (0x00007ff)\n"
				   "\tlibpopt.so.0 => /lib/x86_64-linux-gnu/libpopt.so.0 (0x1)\n"
				   "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x2)\n"
				   "\t/lib64/ld-linux-x86-64.so.2 (0x3)\n");
	int n = 0;

	while (v[n])
		n++;
	CHECK(n == 3);
	CHECK(n == 3 && !strcmp(v[0], "/lib/x86_64-linux-gnu/libpopt.so.0") &&
	      !strcmp(v[2], "/lib64/ld-linux-x86-64.so.2"));
	for (n = 0; v[n]; n++)
		free(v[n]);
	free(v);
}

static struct store_rec mkrec(double mbps, int ok)
{
	struct store_rec r;

	memset(&r, 0, sizeof(r));
	memset(r.key, 'a', 64);
	r.key[64] = '\0';
	r.state = 3;
	r.name = "0003-x.patch";
	r.subject = "sched: a\tsubject";
	r.ok = ok;
	r.value = mbps;
	r.mode = "icount";
	r.accel = "tcg";
	r.reason = ok ? "-" : "panic";
	r.clients = 2;
	r.seconds = 2;
	r.cycles = -1;
	return r;
}

/* line (no checksum) without its last n columns, with the checksum the
 * store writes (the first 12 hex digits of SHA-256 of the rest); line is
 * cut in place.  Caller frees. */
static char *older_line(char *line, int n)
{
	struct util_hash *h;
	char sum[65];

	while (n--)
		*strrchr(line, '\t') = '\0';
	h = util_hash_new();
	util_hash_add(h, line, strlen(line));
	util_hash_hex(h, sum);
	sum[12] = '\0';
	return xasprintf("%s\t%s\n", line, sum);
}

static void test_store_v1(void)
{
	struct store_rec r = mkrec(101.25, 1);
	struct store s;
	char *line, *old;

	r.guest_cpus = 2;
	r.cgroup_depth = 3;
	r.qemu = "10.0";
	r.kerrors = 3;
	r.kerror = "ACPI Error: AE_BAD_PARAMETER";
	r.bench = "hackbench";
	r.cycles = 123456.5;
	line = store_format(&r);
	store_init(&s, "mem");
	CHECK(store_parse(&s, line, strlen(line)) == 0 && s.n == 1);
	CHECK(s.n == 1 && s.rec[0].guest_cpus == 2 && s.rec[0].cgroup_depth == 3 &&
	      !strcmp(s.rec[0].qemu, "10.0") && s.rec[0].kerrors == 3 &&
	      !strcmp(s.rec[0].kerror, "ACPI Error: AE_BAD_PARAMETER") &&
	      !strcmp(s.rec[0].bench, "hackbench") && s.rec[0].cycles == 123456.5);
	store_release(&s);
	/* The same record as the formats before wrote it: one column fewer
	 * (before cycles), two (before bench), four (before kerrors), then
	 * seven (before guest_cpus). */
	*strrchr(line, '\t') = '\0';	/* the checksum */
	old = older_line(line, 1);
	store_init(&s, "mem");
	CHECK(store_parse(&s, old, strlen(old)) == 0 && s.n == 1 && s.torn == 0);
	CHECK(s.n == 1 && s.rec[0].cycles == -1 && !strcmp(s.rec[0].bench, "hackbench"));
	store_release(&s);
	free(old);
	old = older_line(line, 1);
	store_init(&s, "mem");
	CHECK(store_parse(&s, old, strlen(old)) == 0 && s.n == 1 && s.torn == 0);
	CHECK(s.n == 1 && s.rec[0].kerrors == 3 && !strcmp(s.rec[0].bench, "tbench"));
	store_release(&s);
	free(old);
	old = older_line(line, 2);
	store_init(&s, "mem");
	CHECK(store_parse(&s, old, strlen(old)) == 0 && s.n == 1 && s.torn == 0);
	CHECK(s.n == 1 && s.rec[0].guest_cpus == 2 && s.rec[0].kerrors == -1 &&
	      !strcmp(s.rec[0].kerror, "-"));
	store_release(&s);
	free(old);
	old = older_line(line, 3);
	store_init(&s, "mem");
	CHECK(store_parse(&s, old, strlen(old)) == 0 && s.n == 1 && s.torn == 0);
	CHECK(s.n == 1 && s.rec[0].guest_cpus == 1 && s.rec[0].cgroup_depth == 0 &&
	      !strcmp(s.rec[0].qemu, "-") && s.rec[0].kerrors == -1);
	store_release(&s);
	free(old);
	free(line);
}

/* cache=on: each block's misses ride on its line; rows get L1 data and
 * last-level misses per operation and sort by their estimated cycles,
 * which put a function whose misses grew above one whose instructions
 * did. */
static void test_profile_misses(void)
{
	static const char *const runs[2][2] = {
		{ "ffffffff81000000 100 m=0,10,1\nffffffff81001000 100 m=3,0,0\n# total 200\n",
		  "ffffffff81000000 200 m=0,20,2\nffffffff81001000 300 m=3,0,0\n# total 500\n" },
		{ "ffffffff81000000 100 m=0,10,1\nffffffff81001000 100 m=3,0,0\n# total 200\n",
		  "ffffffff81000000 200 m=0,60,12\nffffffff81001000 310 m=3,0,0\n# total 510\n" },
	};
	struct profile_counts c[2][2], bad;
	struct profile_syms k;
	struct profile_table t;
	int col, r;

	CHECK(profile_syms_parse(&k, "ffffffff81000000 T fa\nffffffff81001000 T fb\n") == 0);
	profile_table_init(&t);
	for (col = 0; col < 2; col++) {
		for (r = 0; r < 2; r++)
			CHECK(profile_counts_parse(&c[col][r], runs[col][r]) == 0);
		CHECK(c[col][0].miss && c[col][0].miss[0][1] == 10 && c[col][0].miss[1][0] == 3);
		CHECK(profile_table_add(&t, col, &k, &(struct profile_run){ &c[col][1], NULL },
					&(struct profile_run){ &c[col][0], NULL }, 10) == 0);
	}
	profile_table_sort(&t);
	CHECK(t.misses && t.n == 2);
	/* fa: 10 instructions/op in both; 1 -> 5 L1 data misses, 0.1 -> 1.1
	 * last-level misses per op: 17 -> 63 estimated cycles.  fb: 20 -> 21
	 * instructions, no data misses. */
	CHECK(t.n == 2 && !strcmp(t.row[0].function, "fa") && !strcmp(t.row[1].function, "fb"));
	CHECK(t.n == 2 && t.row[0].m[0][0] == 1 && t.row[0].m[1][0] == 5 &&
	      fabs(t.row[0].m[1][1] - 1.1) < 1e-9 && fabs(profile_row_cycles(&t.row[0], 0) - 17) < 1e-9 &&
	      fabs(profile_row_cycles(&t.row[0], 1) - 63) < 1e-9 && t.row[1].v[1] == 21);
	profile_table_release(&t);
	for (col = 0; col < 2; col++)
		for (r = 0; r < 2; r++)
			profile_counts_release(&c[col][r]);
	profile_syms_release(&k);
	CHECK(profile_counts_parse(&bad, "ffffffff81000000 100 m=0,10\n# total 100\n") < 0);
	profile_counts_release(&bad);
	CHECK(profile_counts_parse(&bad, "ffffffff81000000 100 m=0,1,2\nffffffff81001000 1\n# total 101\n") < 0);
	profile_counts_release(&bad);
	CHECK(profile_counts_parse(&bad, "400000 7 554889e5 m=1,2,3\n# total 7\n") == 0 && bad.code_len[0] == 4 &&
	      bad.miss[0][2] == 3);
	profile_counts_release(&bad);
}

/* COST = cycles: samples are the cycles column, of the runs that have it. */
static void test_store_cycles(void)
{
	struct store_rec r = mkrec(101.25, 1);
	struct store s;
	char *l1, *l2, *l3, *text;
	double *v;
	int nf;

	l1 = store_format(&r);
	r.cycles = 5e7;
	l2 = store_format(&r);
	r.ok = 0;
	l3 = store_format(&r);
	text = xasprintf("%s%s%s", l1, l2, l3);
	store_init(&s, "mem");
	CHECK(store_parse(&s, text, strlen(text)) == 0 && s.n == 3);
	CHECK(store_samples(&s, r.key, &v, &nf) == 2 && nf == 1 && v[0] == 101.25 && v[1] == 101.25);
	free(v);
	s.cycles = 1;
	CHECK(store_samples(&s, r.key, &v, &nf) == 1 && nf == 1 && v[0] == 5e7);
	free(v);
	store_release(&s);
	free(text);
	free(l1);
	free(l2);
	free(l3);
}

/* The plugin's cache lines (tbprof.c, cache=on): the run's counts, the
 * windows' "all" counts summed (not their "user" ones), and the cost
 * taken from the windows when there are any. */
static void test_profile_cache(void)
{
	const char *text = "ffffffff81000000 10 m=1,2,3\n# total 10\n# translations 1\n"
			   "# cache i1 1000 10\n# cache d1 500 50\n# cache ll 60 20\n"
			   "# cache inval 0\n# cache geometry 32768/8/64 32768/8/64 8388608/16/64\n"
			   "# windows 2\n# window 1 all i1 100 1\n# window 1 all d1 40 4\n"
			   "# window 1 all ll 5 2\n# window 1 user i1 90 1\n# window 1 user d1 30 3\n"
			   "# window 1 user ll 4 2\n# window 2 all i1 10 0\n# window 2 all d1 4 1\n"
			   "# window 2 all ll 1 1\n";
	struct cachesim_weights w = { 1, 5, 35 };
	struct profile_cache c;
	char *bad;

	CHECK(profile_cache_parse(&c, text) == 0);
	CHECK(c.run[CACHESIM_I1_ACC] == 1000 && c.run[CACHESIM_D1_MISS] == 50 &&
	      c.run[CACHESIM_LL_MISS] == 20);
	CHECK(c.windows == 2 && c.window[CACHESIM_I1_ACC] == 110 && c.window[CACHESIM_D1_ACC] == 44 &&
	      c.window[CACHESIM_D1_MISS] == 5 && c.window[CACHESIM_LL_MISS] == 3);
	/* 154 accesses, 6 L1 misses, 3 from memory: 148 + 3 * 5 + 3 * 35. */
	CHECK(cachesim_cycles_of(profile_cache_cost(&c), &w) == 148 + 15 + 105);
	/* Without windows the whole run: 1500 accesses, 60 misses, 20 from memory. */
	CHECK(profile_cache_parse(&c, "# cache i1 1000 10\n# cache d1 500 50\n# cache ll 60 20\n") == 0);
	CHECK(cachesim_cycles_of(profile_cache_cost(&c), &w) == 1440 + 40 * 5 + 20 * 35);
	CHECK(profile_cache_parse(&c, "# total 10\n") < 0);	/* no cache=on */
	bad = xstrdup(text);
	memcpy(strstr(bad, "d1 500 50"), "d1 50 500", 9);	/* more misses than accesses */
	CHECK(profile_cache_parse(&c, bad) < 0);
	free(bad);
	CHECK(profile_cache_parse(&c, "# cache i1 1000 10\n# cache d1 5x0 50\n# cache ll 60 20\n") < 0);
}

static void test_store(void)
{
	struct store s;
	struct store_rec r = mkrec(101.25, 1);
	char *line = store_format(&r), *path, *text;
	double *v;
	int nf, n;

	store_init(&s, "mem");
	CHECK(store_parse(&s, line, strlen(line)) == 0 && s.n == 1 && s.torn == 0);
	CHECK(s.n == 1 && fabs(s.rec[0].value - 101.25) < 1e-9 && !strcmp(s.rec[0].subject, "sched: a subject"));
	store_release(&s);
	/* Torn last line (no newline) and a corrupted line are ignored. */
	text = xasprintf("%s%.*s", line, (int)strlen(line) - 5, line);
	store_init(&s, "mem");
	store_parse(&s, text, strlen(text));
	CHECK(s.n == 1 && s.torn == 1);
	store_release(&s);
	free(text);
	text = xstrdup(line);
	text[70] = text[70] == '1' ? '2' : '1';
	store_init(&s, "mem");
	store_parse(&s, text, strlen(text));
	CHECK(s.n == 0 && s.torn == 1);
	store_release(&s);
	free(text);
	/* On disk: append, tear the tail, append again, reload. */
	path = xasprintf("%s/results.tsv", tmpdir);
	unlink(path);
	store_init(&s, path);
	CHECK(store_append(&s, &r) == 0);
	store_release(&s);
	{
		FILE *f = fopen(path, "a");

		fputs("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\t3\t0003", f);
		fclose(f);
	}
	r = mkrec(99.0, 0);
	store_init(&s, path);
	CHECK(store_load(&s) == 0 && s.n == 1 && s.torn == 1);
	CHECK(store_append(&s, &r) == 0);
	store_release(&s);
	store_init(&s, path);
	CHECK(store_load(&s) == 0 && s.n == 2 && s.torn == 1);
	n = store_samples(&s, s.rec[0].key, &v, &nf);
	CHECK(n == 1 && nf == 1 && fabs(v[0] - 101.25) < 1e-9);
	free(v);
	store_release(&s);
	free(path);
	/* A full disk: the append fails cleanly. */
	store_init(&s, "/dev/full");
	r = mkrec(1.0, 1);
	CHECK(store_append(&s, &r) < 0 && s.n == 0);
	store_release(&s);
	free(line);
}

/* A stretch of NUL bytes (a crash's unwritten blocks) in the middle of the
 * file hides nothing after it; a NUL tail without a newline gets one before
 * the next record; a record whose checksum matches but whose values no run
 * can have is corrupt. */
static void test_store_nul(void)
{
	struct store_rec r1 = mkrec(101.25, 1), r2 = mkrec(99.5, 1), r3 = mkrec(98.0, 0);
	char *l1 = store_format(&r1), *l2 = store_format(&r2), *l3 = store_format(&r3);
	char *path, *text, zeros[4096];
	struct sbuf sb;
	struct store s;
	size_t i;

	memset(zeros, 0, sizeof(zeros));
	sbuf_init(&sb);
	sbuf_addf(&sb, "key\tstate\n%s", l1);
	sbuf_add(&sb, zeros, sizeof(zeros));
	sbuf_addf(&sb, "\n%s%s", l2, l3);
	store_init(&s, "mem");
	CHECK(store_parse(&s, sb.buf, sb.len) == 0 && s.n == 3 && s.torn == 1);
	CHECK(s.n == 3 && s.rec[1].value == 99.5 && !s.rec[2].ok);
	store_release(&s);
	/* Two corrupt lines side by side are one stretch, both counted. */
	text = xasprintf("%s%.20s\nxx\n%s", l1, l2, l3);
	store_init(&s, "mem");
	CHECK(store_parse(&s, text, strlen(text)) == 0 && s.n == 2 && s.torn == 2);
	store_release(&s);
	free(text);
	/* On disk: a NUL tail with no newline, then an append. */
	path = xasprintf("%s/results-nul.tsv", tmpdir);
	unlink(path);
	text = xasprintf("%s", l1);
	free(write_tmp("results-nul.tsv", text, strlen(text)));
	{
		FILE *f = fopen(path, "ab");

		fwrite(zeros, 1, 100, f);
		fclose(f);
	}
	store_init(&s, path);
	CHECK(store_load(&s) == 0 && s.n == 1 && s.torn == 1);
	CHECK(store_append(&s, &r2) == 0);
	store_release(&s);
	store_init(&s, path);
	CHECK(store_load(&s) == 0 && s.n == 2 && s.torn == 1);
	CHECK(s.n == 2 && s.rec[1].value == 99.5);
	store_release(&s);
	free(text);
	free(path);
	/* Impossible values, each with a checksum that matches. */
	for (i = 0; i < 4; i++) {
		struct store_rec r = mkrec(i == 2 ? 1e308 : 100.0, 1);
		char *l;

		if (i == 0)
			r.clients = -5;
		if (i == 1)
			r.seconds = -2;
		if (i == 3)
			r.boot_s = -1;
		l = store_format(&r);
		store_init(&s, "mem");
		CHECK(store_parse(&s, l, strlen(l)) == 0 && s.n == 0 && s.torn == 1);
		store_release(&s);
		free(l);
		/* The writer keeps the reader's rule: nothing is written. */
		path = xasprintf("%s/results-bad.tsv", tmpdir);
		unlink(path);
		store_init(&s, path);
		CHECK(store_append(&s, &r) < 0 && s.n == 0 && access(path, F_OK) < 0);
		store_release(&s);
		free(path);
	}
	/* A wall-clock run's shift is -1: a run can have it. */
	{
		struct store_rec r = mkrec(45.9, 1);
		char *l;

		r.shift = -1;
		l = store_format(&r);
		store_init(&s, "mem");
		CHECK(store_parse(&s, l, strlen(l)) == 0 && s.n == 1 && s.torn == 0);
		store_release(&s);
		free(l);
	}
	sbuf_release(&sb);
	free(l1);
	free(l2);
	free(l3);
}

static void test_stats(void)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 11, 12, 13, 14, 15, 16 }, est, lo, hi;

	CHECK(stats_median(a, 5) == 3 && stats_median(b, 6) == 13.5);
	CHECK(stats_mann_whitney(a, 5, a, 5) > 0.9);
	CHECK(stats_mann_whitney(a, 5, b, 6) < 0.01);
	CHECK(stats_hodges_lehmann(a, 5, b, 6, 0.05, &est, &lo, &hi) == 0);
	CHECK(fabs(est - 10.5) < 1e-9 && lo <= est && est <= hi);
	CHECK(fabs(stats_z(0.025) - 1.959964) < 1e-5);
	CHECK(stats_min_detectable(0.08, 10, 10, 0.05, 0.2) > 0.09);
}

static void setup_sim(struct sim *s, int n, int culprit, double drop, double noise, unsigned long seed)
{
	int i;

	sim_init(s, n, seed, noise);
	for (i = 0; i < n; i++)
		s->truth[i] = i >= culprit ? 100.0 * (1 - drop) : 100.0;
}

static void test_bisect_positions(int deterministic, double noise);
static int traced_rounds, traced_lines;

static void count_trace(void *ctx, enum bisect_trace level, const char *line)
{
	(void)ctx;
	(void)level;
	traced_lines++;
	traced_rounds += !strncmp(line, "bisect: testing ", 16);
}

/* The engine prints nothing: what it does reaches the backend's trace, one
 * line a round, and nowhere when the backend has none. */
static void test_bisect_trace(void)
{
	struct bisect_ops ops = sim_ops;
	struct bisect_params p;
	struct bisect_result res;
	struct bisect b;
	struct sim s;

	bisect_params_default(&p);
	p.deterministic = 1;
	ops.trace = count_trace;
	setup_sim(&s, 33, 20, 0.10, 0.0, 7);
	bisect_init(&b, &ops, &s, 33, &p);
	CHECK(bisect_run(&b, 0, 32, &res) == 0 && res.status == BISECT_FOUND && res.culprit == 20);
	CHECK(traced_rounds >= 5 && traced_lines >= traced_rounds);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
}


static void test_bisect_positions_det(void)
{
	test_bisect_positions(1, 0.0);
}

static void test_bisect_positions_noisy(void)
{
	test_bisect_positions(0, 0.02);
}

static void test_bisect_positions(int deterministic, double noise)
{
	struct bisect_params p;
	int len, c, ok = 1, total = 0;

	bisect_params_default(&p);
	p.deterministic = deterministic;
	for (len = 2; len <= 64; len++) {
		for (c = 1; c < len; c++) {
			struct sim s;
			struct bisect b;
			struct bisect_result res;

			setup_sim(&s, len, c, 0.10, noise, (unsigned long)(len * 100 + c));
			bisect_init(&b, &sim_ops, &s, len, &p);
			bisect_run(&b, 0, len - 1, &res);
			if (res.status != BISECT_FOUND || res.culprit != c || res.parent != c - 1) {
				if (ok)
					fprintf(stderr, "bisect len %d culprit %d: got %d status %d\n", len, c,
						res.culprit, res.status);
				ok = 0;
			}
			total++;
			bisect_result_release(&res);
			bisect_release(&b);
			sim_release(&s);
		}
	}
	CHECK(ok && total == 2016);
}

/* Side-by-side runs (width 2, 3) name the same culprit everywhere, also
 * around unusable states, in fewer sequential rounds than one at a time. */
/* Several children at once: each keeps its own status and deadline, and
 * releasing one still running kills it. */
static void test_run_many(void)
{
	const char *t_argv[] = { "true", NULL }, *f_argv[] = { "false", NULL };
	const char *s_argv[] = { "sleep", "30", NULL }, *echo_argv[] = { "echo", "hi", NULL };
	struct run_cmd a, b, c, d;
	pid_t pid;
	int done = 0, rounds = 0;

	run_init(&a, t_argv);
	run_init(&b, f_argv);
	run_init(&c, s_argv);
	c.timeout = 0.3;
	c.grace = 0.2;
	run_init(&d, echo_argv);
	d.capture = 1;
	CHECK(run_start(&a) == 0 && run_start(&b) == 0 && run_start(&c) == 0 && run_start(&d) == 0);
	while (!done && rounds++ < 500) {
		done = run_poll(&a) & run_poll(&b) & run_poll(&c) & run_poll(&d);
		run_pause(NULL);
	}
	CHECK(done);
	CHECK(a.status == 0 && b.status == 1 && c.status == RUN_ERR_TIMEOUT && d.status == 0);
	CHECK(d.out.buf && !strcmp(d.out.buf, "hi\n"));
	run_release(&a);
	run_release(&b);
	run_release(&c);
	run_release(&d);
	run_init(&c, s_argv);
	CHECK(run_start(&c) == 0 && run_poll(&c) == 0);
	pid = c.pid;
	run_release(&c);
	CHECK(kill(pid, 0) < 0 && errno == ESRCH);
	/* A watched command keeps its deadline while tbisect waits for another. */
	{
		const char *one[] = { "sleep", "1", NULL };

		run_init(&c, s_argv);
		c.timeout = 0.3;
		c.grace = 0.2;
		CHECK(run_start(&c) == 0);
		run_watch(&c);
		run_init(&a, one);
		CHECK(run_exec(&a) == 0);
		CHECK(c.pid == -1 && c.status == RUN_ERR_TIMEOUT);
		run_release(&a);
		run_release(&c);
	}
}

static void test_bisect_parallel(void)
{
	struct bisect_params p;
	int width, len, c, ok = 1, rounds[4] = { 0 };

	bisect_params_default(&p);
	util_quiet = 1;
	for (width = 1; width <= 3; width++) {
		for (len = 2; len <= 40; len++) {
			for (c = 1; c < len; c++) {
				struct sim s;
				struct bisect b;
				struct bisect_result res;

				setup_sim(&s, len, c, 0.10, 0, (unsigned long)(len * 100 + c));
				s.width = width;
				if (len > 6 && c + 2 < len - 1)
					s.unusable[c + 2] = 1;
				bisect_init(&b, &sim_ops, &s, len, &p);
				bisect_run(&b, 0, len - 1, &res);
				if (res.status != BISECT_FOUND || res.culprit != c || res.parent != c - 1) {
					if (ok)
						fprintf(stderr, "parallel %d len %d culprit %d: got %d status %d\n",
							width, len, c, res.culprit, res.status);
					ok = 0;
				}
				rounds[width] += s.rounds;
				bisect_result_release(&res);
				bisect_release(&b);
				sim_release(&s);
			}
		}
	}
	CHECK(ok);
	if (!util_quiet || rounds[2] >= rounds[1] || rounds[3] >= rounds[2])
		fprintf(stderr, "rounds: one at a time %d, two %d, three %d\n", rounds[1], rounds[2],
			rounds[3]);
	CHECK(rounds[2] < rounds[1]);
	CHECK(rounds[3] < rounds[2]);
}

static void test_bisect_cases(void)
{
	struct bisect_params p;
	struct sim s;
	struct bisect b;
	struct bisect_result res;
	int i;

	bisect_params_default(&p);
	util_quiet = 1;
	/* Skipped states around the culprit. */
	setup_sim(&s, 20, 9, 0.1, 0, 1);
	s.unusable[10] = 1;
	s.failing[8] = 1;
	bisect_init(&b, &sim_ops, &s, 20, &p);
	bisect_run(&b, 0, 19, &res);
	/* 8's runs fail, so the first bad state is 8 or 9: ambiguous, 7..9. */
	CHECK(res.status == BISECT_AMBIGUOUS && res.parent == 7 && res.culprit == 9);
	CHECK(res.nskipped >= 1 && res.skipped[0] == 8);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* Culprit itself unusable: ambiguous between its neighbours. */
	setup_sim(&s, 20, 9, 0.1, 0, 2);
	s.unusable[9] = 1;
	bisect_init(&b, &sim_ops, &s, 20, &p);
	bisect_run(&b, 0, 19, &res);
	CHECK(res.status == BISECT_AMBIGUOUS && res.parent == 8 && res.culprit == 10);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* Endpoints that do not differ. */
	setup_sim(&s, 16, 100, 0, 0, 3);
	s.truth[15] = 99.5;
	bisect_init(&b, &sim_ops, &s, 16, &p);
	bisect_run(&b, 0, 15, &res);
	CHECK(res.status == BISECT_NO_DIFF && res.runs <= 4);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* BAD faster than GOOD. */
	setup_sim(&s, 16, 5, -0.2, 0, 4);
	bisect_init(&b, &sim_ops, &s, 16, &p);
	bisect_run(&b, 0, 15, &res);
	CHECK(res.status == BISECT_NOT_SLOWER);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* Endpoint that cannot be built. */
	setup_sim(&s, 16, 5, 0.2, 0, 5);
	s.unusable[15] = 1;
	bisect_init(&b, &sim_ops, &s, 16, &p);
	bisect_run(&b, 0, 15, &res);
	CHECK(res.status == BISECT_ENDPOINT_FAILED);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* Noise-only ranges in noisy mode: no false culprit over 200 seeds. */
	{
		int false_found = 0;

		p.deterministic = 0;
		for (i = 0; i < 200; i++) {
			setup_sim(&s, 32, 1000, 0, 0.08, 1000 + (unsigned long)i);
			bisect_init(&b, &sim_ops, &s, 32, &p);
			bisect_run(&b, 0, 31, &res);
			if (res.status != BISECT_NO_DIFF)
				false_found++;
			bisect_result_release(&res);
			bisect_release(&b);
			sim_release(&s);
		}
		CHECK(false_found <= 2);
		p.deterministic = 1;
	}
	/* Non-deterministic repeats in deterministic mode switch the rule. */
	setup_sim(&s, 16, 6, 0.1, 0.02, 6);
	bisect_init(&b, &sim_ops, &s, 16, &p);
	bisect_run(&b, 0, 15, &res);
	CHECK(b.switched && !b.p.deterministic && res.status == BISECT_FOUND && res.culprit == 6);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* Abort part-way, then resume from the recorded samples: same culprit,
	 * and the runs already made are not made again. */
	setup_sim(&s, 40, 23, 0.1, 0.05, 7);
	p.deterministic = 0;
	s.abort_after = 25;
	bisect_init(&b, &sim_ops, &s, 40, &p);
	CHECK(bisect_run(&b, 0, 39, &res) < 0 && res.status == BISECT_ABORTED);
	bisect_result_release(&res);
	bisect_release(&b);
	{
		int before = s.measures;

		s.abort_after = 0;
		bisect_init(&b, &sim_ops, &s, 40, &p);
		bisect_run(&b, 0, 39, &res);
		CHECK(res.status == BISECT_FOUND && res.culprit == 23);
		CHECK(s.measures - before == res.runs && res.runs > 0);
		bisect_result_release(&res);
		bisect_release(&b);
	}
	sim_release(&s);
	p.deterministic = 1;
}

static void test_guest_check(void)
{
	static const char ok[] = "TBISECT-BEGIN\nTBISECT-CPUS 2\n"
				 "TBISECT-CGROUP 0::/user.slice/user-1000.slice/session-1.scope\n"
				 "TBISECT-RESULT rc=0 mbps=50.5 clients=2\n";
	struct vm_opts o;
	struct vm_result r;

	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	o.smp = 2;
	o.cgroup_depth = 3;
	vm_parse_console(ok, 0, NULL, &r);
	CHECK(r.guest_cpus == 2 && r.cgroup_depth == 3);
	vm_check_guest(&o, &r);
	CHECK(r.status == VM_OK);
	/* The SMP = 2 guest that booted one CPU (no ACPI) fails, and says why. */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-CPUS 1\nTBISECT-CGROUP 0::/a/b/c\n"
			 "TBISECT-RESULT rc=0 mbps=50.5\n", 0, NULL, &r);
	vm_check_guest(&o, &r);
	CHECK(r.status == VM_BAD_GUEST && strstr(r.reason, "saw 1 CPU, SMP = 2"));
	/* Root cgroup when 3 levels were asked; no cgroups at all is the root. */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-CPUS 2\nTBISECT-CGROUP 0::/\n"
			 "TBISECT-RESULT rc=0 mbps=50.5\n", 0, NULL, &r);
	CHECK(r.cgroup_depth == 0);
	vm_check_guest(&o, &r);
	CHECK(r.status == VM_BAD_GUEST && strstr(r.reason, "0 cgroup levels"));
	vm_parse_console("TBISECT-BEGIN\nTBISECT-CPUS 1\nTBISECT-CGROUP none\n"
			 "TBISECT-RESULT rc=0 mbps=50.5\n", 0, NULL, &r);
	o.smp = 1;
	o.cgroup_depth = 0;
	vm_check_guest(&o, &r);
	CHECK(r.status == VM_OK && r.cgroup_depth == 0);
	/* An empty cgroup line (cgroup2 never mounted) is not the root. */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-CPUS 1\nTBISECT-CGROUP \n"
			 "TBISECT-RESULT rc=0 mbps=50.5\n", 0, NULL, &r);
	vm_check_guest(&o, &r);
	CHECK(r.cgroup_depth == -1 && r.status == VM_BAD_GUEST && strstr(r.reason, "no cgroup"));
	/* An init that prints no count (an old IMAGE_INIT) is not taken for 1. */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT rc=0 mbps=50.5\n", 0, NULL, &r);
	vm_check_guest(&o, &r);
	CHECK(r.guest_cpus == -1 && r.status == VM_BAD_GUEST);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-CPUS 2x\nTBISECT-RESULT rc=0 mbps=1\n", 0, NULL, &r);
	CHECK(r.guest_cpus == -1);
	/* rc is parsed strictly: "rc=0x" is not success. */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT rc=0x mbps=10\n", 0, NULL, &r);
	CHECK(r.status == VM_BAD_RESULT);
	/* A probe run is not checked. */
	o.probe = 1;
	o.smp = 4;
	vm_parse_console("TBISECT-BEGIN\nTBISECT-PROBE ok\n", 1, NULL, &r);
	vm_check_guest(&o, &r);
	CHECK(r.status == VM_OK);
}

static void test_qemu_version(void)
{
	struct vm_qemu q;
	struct conf c;
	char why[512];

	CHECK(vm_parse_qemu_version("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\n"
				    "Copyright (c) 2003-2022 Fabrice Bellard", &q) == 0);
	CHECK(q.major == 7 && q.minor == 2 && q.micro == 22 && !strcmp(q.version, "7.2"));
	CHECK(vm_parse_qemu_version("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2)", &q) == 0);
	CHECK(q.major == 10 && q.minor == 0 && q.micro == 2 && !strcmp(q.version, "10.0"));
	CHECK(vm_parse_qemu_version("QEMU emulator version 8.1.0\n", &q) == 0 && q.micro == 0);
	/* Strict: no two-part, four-part, signed, empty or foreign versions. */
	CHECK(vm_parse_qemu_version("QEMU emulator version 8.1", &q) < 0);
	CHECK(vm_parse_qemu_version("QEMU emulator version 8.1.0.1", &q) < 0);
	CHECK(vm_parse_qemu_version("QEMU emulator version 8.-1.0", &q) < 0);
	CHECK(vm_parse_qemu_version("QEMU emulator version 8.1x.0", &q) < 0);
	CHECK(vm_parse_qemu_version("QEMU emulator version ", &q) < 0);
	CHECK(vm_parse_qemu_version("bash: qemu: not found", &q) < 0);
	/* SMP under icount needs 8.1; SMP = 1, or wall-clock, runs on 7.2. */
	conf_init(&c);
	c.mode = MODE_ICOUNT;
	c.smp = 2;
	vm_parse_qemu_version("QEMU emulator version 7.2.22", &q);
	CHECK(vm_qemu_check(&c, &q, why, sizeof(why)) < 0 && strstr(why, "needs QEMU 8.1") &&
	      strstr(why, "7.2.22") && strstr(why, "bookworm-backports"));
	vm_parse_qemu_version("QEMU emulator version 8.0.5", &q);
	CHECK(vm_qemu_check(&c, &q, why, sizeof(why)) < 0);
	vm_parse_qemu_version("QEMU emulator version 8.1.0", &q);
	CHECK(vm_qemu_check(&c, &q, why, sizeof(why)) == 0);
	vm_parse_qemu_version("QEMU emulator version 10.0.2", &q);
	CHECK(vm_qemu_check(&c, &q, why, sizeof(why)) == 0);
	vm_parse_qemu_version("QEMU emulator version 7.2.22", &q);
	c.smp = 1;
	CHECK(vm_qemu_check(&c, &q, why, sizeof(why)) == 0);
	c.smp = 2;
	c.mode = MODE_WALLCLOCK;
	CHECK(vm_qemu_check(&c, &q, why, sizeof(why)) == 0);
	conf_release(&c);
}

/* icount with SMP > 1 is seeded and judged by the statistical rule. */
static void test_seeded(void)
{
	struct bisect_params p;
	struct bench_identity a, b;
	struct conf c;

	conf_init(&c);
	c.mode = MODE_ICOUNT;
	c.smp = 1;
	CHECK(!vm_seeded(&c));
	bench_params(&c, &p);
	CHECK(p.deterministic == 1);
	bench_identity(&c, ACCEL_TCG, "10.0", &a);
	c.smp = 2;
	CHECK(vm_seeded(&c));
	bench_params(&c, &p);
	CHECK(p.deterministic == 0);
	bench_identity(&c, ACCEL_TCG, "10.0", &b);
	CHECK(strstr(b.params, " seeded") && !strstr(a.params, "seeded"));
	CHECK(!strcmp(a.mode, "icount shift=1 qemu=10.0"));
	bench_identity_release(&a);
	bench_identity_release(&b);
	c.mode = MODE_WALLCLOCK;
	CHECK(!vm_seeded(&c));
	bench_params(&c, &p);
	CHECK(p.deterministic == 0);
	conf_release(&c);
}

/* bisect names one culprit; another step its probes straddle, above the
 * floor, is noted with the states it lies between, by culprits' rule. */
static void test_bisect_other_changes(void)
{
	struct bisect_params p;
	struct bisect_result res;
	struct bisect_change *o;
	struct sim s;
	struct bisect b;
	int i, n;

	bisect_params_default(&p);
	p.floor = 0.002;
	sim_init(&s, 21, 9, 0);
	for (i = 0; i < 21; i++)	/* -6.4% at 5, -0.35% (small) at 10, -3% at 15 */
		s.truth[i] = 100 * (i >= 5 ? 0.936 : 1) * (i >= 10 ? 0.9965 : 1) * (i >= 15 ? 0.97 : 1);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_run(&b, 0, 20, &res) == 0 && res.status == BISECT_FOUND);
	n = bisect_other_changes(&b, &res, &o);
	/* Each other step lies between two measured states that straddle it. */
	CHECK(n >= 1);
	for (i = 0; i < n; i++) {
		int has = 0, k;

		for (k = 5; k <= 15; k += 5)
			if (k != res.culprit && o[i].parent < k && k <= o[i].state)
				has = 1;
		CHECK(has && !(o[i].parent == res.parent && o[i].state == res.culprit));
		CHECK(o[i].small == (fabs(o[i].change) <= p.threshold));
	}
	free(o);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
	/* One step only: nothing else to note. */
	setup_sim(&s, 21, 7, 0.05, 0, 3);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_run(&b, 0, 20, &res) == 0 && res.status == BISECT_FOUND && res.culprit == 7);
	CHECK(bisect_other_changes(&b, &res, &o) == 0 && o == NULL);
	bisect_result_release(&res);
	bisect_release(&b);
	sim_release(&s);
}

/* icount: one run measures a few tenths of a percent, so culprits lists
 * changes down to the floor and marks those under the threshold small. */
static void test_culprits_floor(void)
{
	struct bisect_params p;
	struct sim s;
	struct bisect b;
	int i;

	bisect_params_default(&p);
	p.floor = 0.002;
	sim_init(&s, 21, 9, 0);
	for (i = 0; i < 21; i++)
		s.truth[i] = 100 * (i >= 5 && i < 18 ? 0.936 : 1) * (i >= 10 ? 0.9965 : 1) *
			     (i >= 16 ? 1.0054 : 1) * (i >= 12 ? 1.001 : 1);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_floor(&b) == 0.002);
	CHECK(bisect_culprits(&b, 0, 20) == 0);
	CHECK(b.nchg == 4);
	if (b.nchg == 4) {
		CHECK(b.chg[0].state == 5 && !b.chg[0].small && b.chg[0].change < 0);
		CHECK(b.chg[1].state == 10 && b.chg[1].small && b.chg[1].change < 0);
		CHECK(b.chg[2].state == 16 && b.chg[2].small && b.chg[2].change > 0);
		CHECK(b.chg[3].state == 18 && !b.chg[3].small);
	}
	bisect_release(&b);
	sim_release(&s);
	/* Without a floor only the two above the threshold. */
	p.floor = 0;
	sim_init(&s, 21, 9, 0);
	for (i = 0; i < 21; i++)
		s.truth[i] = 100 * (i >= 5 && i < 18 ? 0.936 : 1) * (i >= 10 ? 0.9965 : 1);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_floor(&b) == p.threshold);
	CHECK(bisect_culprits(&b, 0, 20) == 0 && b.nchg == 2);
	bisect_release(&b);
	sim_release(&s);
	/* The noisy rule ignores the floor. */
	p.floor = 0.002;
	p.deterministic = 0;
	sim_init(&s, 3, 9, 0);
	bisect_init(&b, &sim_ops, &s, 3, &p);
	CHECK(bisect_floor(&b) == p.threshold);
	bisect_release(&b);
	sim_release(&s);
}

static void test_culprits(void)
{
	struct bisect_params p;
	struct sim s;
	struct bisect b;
	int i;

	bisect_params_default(&p);
	/* The shipped-series shape: regression at 5, smaller one at 10, fix at 18. */
	sim_init(&s, 21, 9, 0);
	for (i = 0; i < 21; i++)
		s.truth[i] = 100 * (i >= 5 && i < 18 ? 0.94 : 1) * (i >= 10 ? 0.97 : 1);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_culprits(&b, 0, 20) == 0);
	CHECK(b.nchg == 3 && b.chg[0].state == 5 && b.chg[1].state == 10 && b.chg[2].state == 18);
	CHECK(b.nchg == 3 && b.chg[0].change < 0 && b.chg[2].change > 0);
	CHECK(s.measures < 21);
	bisect_release(&b);
	sim_release(&s);
	/* Side by side: the grid runs first, the same three found in fewer rounds. */
	{
		int seq_rounds;

		sim_init(&s, 21, 9, 0);
		for (i = 0; i < 21; i++)
			s.truth[i] = 100 * (i >= 5 && i < 18 ? 0.94 : 1) * (i >= 10 ? 0.97 : 1);
		bisect_init(&b, &sim_ops, &s, 21, &p);
		CHECK(bisect_culprits(&b, 0, 20) == 0);
		seq_rounds = s.rounds;
		bisect_release(&b);
		sim_release(&s);
		sim_init(&s, 21, 9, 0);
		s.width = 2;
		for (i = 0; i < 21; i++)
			s.truth[i] = 100 * (i >= 5 && i < 18 ? 0.94 : 1) * (i >= 10 ? 0.97 : 1);
		bisect_init(&b, &sim_ops, &s, 21, &p);
		CHECK(bisect_culprits(&b, 0, 20) == 0);
		CHECK(b.nchg == 3 && b.chg[0].state == 5 && b.chg[1].state == 10 && b.chg[2].state == 18);
		CHECK(s.rounds < seq_rounds);
		bisect_release(&b);
		sim_release(&s);
	}
	/* Noisy mode, same shape with 2% noise. */
	p.deterministic = 0;
	sim_init(&s, 21, 10, 0.02);
	for (i = 0; i < 21; i++)
		s.truth[i] = 100 * (i >= 5 && i < 18 ? 0.90 : 1) * (i >= 10 ? 0.95 : 1);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_culprits(&b, 0, 20) == 0);
	CHECK(b.nchg == 3 && b.chg[0].state == 5 && b.chg[1].state == 10 && b.chg[2].state == 18);
	bisect_release(&b);
	sim_release(&s);
	/* Noise only: nothing found. */
	sim_init(&s, 21, 11, 0.03);
	bisect_init(&b, &sim_ops, &s, 21, &p);
	CHECK(bisect_culprits(&b, 0, 20) == 0 && b.nchg == 0);
	bisect_release(&b);
	sim_release(&s);
}

static void test_check(void)
{
	struct bisect_params p;
	double base[] = { 100 }, same[] = { 99.5 }, worse[] = { 95 }, better[] = { 105 };
	double nb[] = { 100, 101, 99, 100.5, 99.5, 100, 100.2 }, nw[] = { 90, 91, 89, 90.5, 89.5, 90.2 };
	double change, pv;
	struct check_baseline a, b;
	char *text, *why, *path;

	bisect_params_default(&p);
	CHECK(check_verdict(&p, base, 1, same, 1, &change, &pv) == CHECK_PASS);
	CHECK(check_verdict(&p, base, 1, worse, 1, &change, &pv) == CHECK_REGRESSED && fabs(change + 0.05) < 1e-9);
	CHECK(check_verdict(&p, base, 1, better, 1, &change, &pv) == CHECK_IMPROVED);
	p.deterministic = 0;
	p.alpha = 0.01;
	CHECK(check_verdict(&p, nb, 7, nw, 6, &change, &pv) == CHECK_REGRESSED && pv < 0.01);
	CHECK(check_verdict(&p, nb, 7, nb, 7, &change, &pv) == CHECK_PASS);
	memset(&a, 0, sizeof(a));
	a.version = "0.1.0";
	a.mode = "icount shift=1";
	a.config = "abc";
	a.params = "clients=2 seconds=3";
	a.name = "base";
	a.v = base;
	a.n = 1;
	text = check_baseline_format(&a);
	CHECK(check_baseline_parse(&b, "bl", text) == 0 && b.n == 1 && !strcmp(b.mode, "icount shift=1"));
	CHECK((why = check_incompatible(&a, &b)) == NULL);
	free(why);
	free(b.mode);
	b.mode = xstrdup("wallclock accel=kvm");
	CHECK((why = check_incompatible(&a, &b)) != NULL && strstr(why, "mode"));
	free(why);
	b.major = 7;
	CHECK((why = check_incompatible(&a, &b)) != NULL && strstr(why, "major"));
	free(why);
	/* A baseline names its benchmark: another's is refused first. */
	free(b.params);
	b.params = xstrdup("clients=2 seconds=3 bench=hackbench");
	CHECK((why = check_incompatible(&a, &b)) != NULL &&
	      strstr(why, "baseline is of benchmark tbench, this check runs hackbench"));
	free(why);
	check_baseline_release(&b);
	free(text);
	CHECK(check_baseline_parse(&b, "bl", "garbage\n") < 0);
	path = xasprintf("%s/j.xml", tmpdir);
	CHECK(check_junit(path, "head", CHECK_REGRESSED, 0, "a < b & \"c\"") == 0);
	{
		char *x;

		CHECK(util_read_file(path, &x, NULL) == 0 && strstr(x, "<failure") && strstr(x, "&lt;"));
		free(x);
	}
	free(path);
}

/* The nightly check over the simulated backend. */
static void test_check_core(void)
{
	struct bisect_params p;
	struct check_baseline base;
	struct check_report rep;
	struct sim s;
	double bv[] = { 100 };
	int i;

	bisect_params_default(&p);
	memset(&base, 0, sizeof(base));
	base.v = bv;
	base.n = 1;
	/* Within threshold: pass. */
	sim_init(&s, 12, 1, 0);
	s.truth[11] = 99.5;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(!rep.skipped && rep.verdict == CHECK_PASS && rep.culprit == -1);
	sim_release(&s);
	/* Regression: exit 1 and the culprit named. */
	sim_init(&s, 12, 2, 0);
	for (i = 7; i < 12; i++)
		s.truth[i] = 93;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(!rep.skipped && rep.verdict == CHECK_REGRESSED && rep.culprit == 7);
	sim_release(&s);
	/* Regression without the search when it is turned off. */
	sim_init(&s, 12, 3, 0);
	s.truth[11] = 90;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 0, &rep) == 0);
	CHECK(rep.verdict == CHECK_REGRESSED && rep.culprit == -1);
	sim_release(&s);
	/* Improvement: passes, reported as such. */
	sim_init(&s, 12, 4, 0);
	s.truth[11] = 110;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(!rep.skipped && rep.verdict == CHECK_IMPROVED);
	sim_release(&s);
	/* Unbuildable head: a skip (125); a head whose runs all fail too. */
	sim_init(&s, 12, 5, 0);
	s.unusable[11] = 1;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(rep.skipped);
	s.unusable[11] = 0;
	s.failing[11] = 1;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(rep.skipped);
	sim_release(&s);
	/* Noisy mode: runs_min runs of head against a noisy baseline. */
	p.deterministic = 0;
	p.alpha = 0.01;
	{
		double nb[] = { 100, 101, 99, 100.4, 99.6, 100.2, 99.8 };

		base.v = nb;
		base.n = 7;
		p.runs_min = 6;
		sim_init(&s, 12, 6, 0.005);
		for (i = 4; i < 12; i++)
			s.truth[i] = 90;
		CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
		CHECK(rep.verdict == CHECK_REGRESSED && rep.culprit == 4 && rep.p < 0.01);
		sim_release(&s);
	}
}

/* The simulated backend's labels stay apart: a line may print two. */
static void test_sim_labels(void)
{
	struct sim s;
	const char *a, *b;

	sim_init(&s, 4, 1, 0);
	a = sim_ops.label(&s, 1);
	b = sim_ops.label(&s, 3);
	CHECK(!strcmp(a, "1") && !strcmp(b, "3"));
	sim_release(&s);
}

/* A baseline whose state index is negative or not a number is refused. */
static void test_baseline_strict(void)
{
	const char *head = "tbisect-baseline 1\nversion 0.1.0\nmajor 0\nmode icount shift=1\n"
			   "config abc\nparams p\n";
	const char *bad[] = { "state -3 base\n", "state 2x base\n", "state  base\n" };
	struct check_baseline b;
	size_t i;
	char *t;

	t = xasprintf("%sstate 4 0004-x.patch\nsamples 100.5\n", head);
	CHECK(check_baseline_parse(&b, "bl", t) == 0 && b.state == 4 && !strcmp(b.name, "0004-x.patch"));
	check_baseline_release(&b);
	free(t);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		t = xasprintf("%s%ssamples 100.5\n", head, bad[i]);
		CHECK(check_baseline_parse(&b, "bl", t) < 0);
		free(t);
	}
	t = xasprintf("%sstate 1 x\nsamples 100.5\n", "tbisect-baseline 1\nmajor -1\nmode m\nconfig c\nparams p\n");
	CHECK(check_baseline_parse(&b, "bl", t) < 0);
	free(t);
}

/* A results store holding the awkward subjects of real kernels. */
static void tricky_store(struct store *s)
{
	const char *subjects[] = { "Revert \"sched: fair: use \"calc_delta\"\"", "net, tcp: a,b",
				   "back\\slash and \"quote\" at end\"" };
	size_t i;

	store_init(s, "mem");
	for (i = 0; i < ARRAY_SIZE(subjects); i++) {
		struct store_rec r = mkrec(100.5 + (double)i, i != 1);
		char *line;

		r.subject = (char *)subjects[i];
		r.state = (int)i;
		r.guest_cpus = 2;
		r.qemu = "10.0";
		line = store_format(&r);
		store_parse(s, line, strlen(line));
		free(line);
	}
}

struct csv_rows {
	char *field[8][32];
	int nf[8], row, col;
};

static void csv_field(void *data, size_t len, void *ctx)
{
	struct csv_rows *c = ctx;

	if (c->row < 8 && c->col < 32)
		c->field[c->row][c->col++] = xstrndup(data, len);
}

static void csv_row(int ch, void *ctx)
{
	struct csv_rows *c = ctx;

	(void)ch;
	if (c->row < 8)
		c->nf[c->row++] = c->col;
	c->col = 0;
}

/* Exports s in format into a string (caller frees). */
static char *export_text(const struct store *s, const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(store_export(s, format, f) == 0);
	fclose(f);
	return buf;
}

/* CSV parsed back by libcsv: every record has every field, and the
 * subjects with quotes and commas come back as they went in. */
static void test_export_csv(void)
{
	struct store s;
	struct csv_parser p;
	struct csv_rows rows;
	char *text;
	int i, j;

	tricky_store(&s);
	text = export_text(&s, "csv");
	memset(&rows, 0, sizeof(rows));
	csv_init(&p, CSV_STRICT | CSV_STRICT_FINI);
	CHECK(csv_parse(&p, text, strlen(text), csv_field, csv_row, &rows) == strlen(text));
	CHECK(csv_fini(&p, csv_field, csv_row, &rows) == 0);
	CHECK(rows.row == 4);
	CHECK(rows.nf[0] == 24 && !strcmp(rows.field[0][3], "subject"));
	CHECK(rows.nf[0] == 24 && !strcmp(rows.field[0][17], "guest_cpus") &&
	      !strcmp(rows.field[0][19], "qemu") && !strcmp(rows.field[0][20], "kerrors") &&
	      !strcmp(rows.field[0][21], "kerror") && !strcmp(rows.field[0][22], "bench") &&
	      !strcmp(rows.field[0][23], "cycles"));
	for (i = 1; i < rows.row; i++) {
		CHECK(rows.nf[i] == 24);
		CHECK(rows.field[i][3] && !strcmp(rows.field[i][3], s.rec[i - 1].subject));
		CHECK(rows.field[i][4] && !strcmp(rows.field[i][4], i == 2 ? "failed" : "ok"));
	}
	for (i = 0; i < rows.row; i++)
		for (j = 0; j < rows.nf[i]; j++)
			free(rows.field[i][j]);
	csv_free(&p);
	free(text);
	store_release(&s);
}

/* JSON lines parsed back by jansson: numbers are numbers, strings intact. */
static void test_export_jsonl(void)
{
	struct store s;
	char *text, *line, *p;
	int n = 0;

	tricky_store(&s);
	text = export_text(&s, "jsonl");
	for (p = text; (line = strsep(&p, "\n"));) {
		json_error_t err;
		json_t *o;

		if (!*line)
			continue;
		o = json_loads(line, 0, &err);
		CHECK(o != NULL);
		if (o && n < s.n) {
			CHECK(json_object_size(o) == 24);
			CHECK(json_real_value(json_object_get(o, "cycles")) == s.rec[n].cycles);
			CHECK(!strcmp(json_string_value(json_object_get(o, "bench")), s.rec[n].bench));
			CHECK(json_integer_value(json_object_get(o, "kerrors")) == s.rec[n].kerrors);
			CHECK(json_integer_value(json_object_get(o, "guest_cpus")) == s.rec[n].guest_cpus);
			CHECK(!strcmp(json_string_value(json_object_get(o, "subject")), s.rec[n].subject));
			CHECK(json_integer_value(json_object_get(o, "state")) == n);
			CHECK(fabs(json_real_value(json_object_get(o, "mbps")) - s.rec[n].value) < 1e-9);
		}
		json_decref(o);
		n++;
	}
	CHECK(n == 3);
	free(text);
	/* TSV: the header names the same 17 columns, and an unknown format fails. */
	text = export_text(&s, "tsv");
	{
		const char *want = "key\tstate\tname\tsubject\tstatus\tmbps\t";

		CHECK(!strncmp(text, want, strlen(want)) && !strstr(text, "\tcheck"));
	}
	free(text);
	CHECK(store_export(&s, "xml", stdout) < 0);
	store_release(&s);
}

/* Records whose numbers do not parse are corrupt, even with a valid sum. */
static void test_store_strict(void)
{
	struct store_rec r = mkrec(5, 1);
	char *line = store_format(&r), *tab, *body, *bad, hex[65];
	struct util_hash *h = util_hash_new();
	struct store s;

	/* The state column rewritten as "3x", with a checksum that matches. */
	tab = strchr(line, '\t');
	body = xasprintf("%.*s\t3x%.*s", (int)(tab - line), line,
			 (int)(strlen(strchr(tab + 1, '\t')) - 14), strchr(tab + 1, '\t'));
	util_hash_add(h, body, strlen(body));
	util_hash_hex(h, hex);
	bad = xasprintf("%s\t%.12s\n", body, hex);
	store_init(&s, "mem");
	store_parse(&s, bad, strlen(bad));
	CHECK(s.n == 0 && s.torn == 1);
	store_release(&s);
	/* The same line with the original state parses: the sum was right. */
	free(body);
	free(bad);
	store_init(&s, "mem");
	store_parse(&s, line, strlen(line));
	CHECK(s.n == 1 && s.rec[0].state == 3);
	store_release(&s);
	free(line);
}

/* A simulated commit DAG for the merge descent: commits are created in
 * topological order, so a higher index is newer. */
struct dag {
	int n;
	int p1[64], p2[64];	/* -1: none */
	double v[64];
	char broken[64];
	int levels, measures;
};

static void dag_id(int i, char *out)
{
	snprintf(out, 41, "%040x", i + 1);
}

static int dag_index(const char *id)
{
	return (int)strtol(id + 24, NULL, 16) - 1;
}

static int dag_add(struct dag *d, int p1, int p2, double v)
{
	d->p1[d->n] = p1;
	d->p2[d->n] = p2;
	d->v[d->n] = v;
	d->broken[d->n] = 0;
	return d->n++;
}

static void dag_mark(const struct dag *d, int x, char *mark)
{
	if (x < 0 || mark[x])
		return;
	mark[x] = 1;
	dag_mark(d, d->p1[x], mark);
	dag_mark(d, d->p2[x], mark);
}

static int dag_list(void *ctx, const char *good, const char *bad, struct hist_level *lv)
{
	struct dag *d = ctx;
	char mark[64] = { 0 }, id[41], pid[41], parents[90];
	int chain[64], n = 0, x, k;

	dag_mark(d, dag_index(good), mark);
	for (x = dag_index(bad); x >= 0 && !mark[x]; x = d->p1[x])
		chain[n++] = x;
	dag_id(dag_index(good), id);
	hist_level_add(lv, id, id, "", "good");
	for (k = n - 1; k >= 0; k--) {
		x = chain[k];
		dag_id(x, id);
		dag_id(d->p1[x], parents);
		if (d->p2[x] >= 0) {
			dag_id(d->p2[x], pid);
			strcat(parents, " ");
			strcat(parents, pid);
		}
		hist_level_add(lv, id, id, parents, d->p2[x] >= 0 ? "merge" : "commit");
	}
	return 0;
}

static int dag_merge_base(void *ctx, const char *a, const char *b, char *out)
{
	struct dag *d = ctx;
	char ma[64] = { 0 }, mb[64] = { 0 };
	int x;

	dag_mark(d, dag_index(a), ma);
	dag_mark(d, dag_index(b), mb);
	for (x = d->n - 1; x >= 0; x--)
		if (ma[x] && mb[x]) {
			dag_id(x, out);
			return 0;
		}
	return -1;
}

/* Each level through the real engine over the simulated benchmark. */
static int dag_bisect(void *ctx, const struct hist_level *lv, int depth, struct bisect_result *res)
{
	struct dag *d = ctx;
	struct bisect_params p;
	struct bisect b;
	struct sim s;
	int i;

	(void)depth;
	d->levels++;
	sim_init(&s, lv->n, 7, 0);
	for (i = 0; i < lv->n; i++) {
		s.truth[i] = d->v[dag_index(lv->c[i].id)];
		s.unusable[i] = d->broken[dag_index(lv->c[i].id)];
	}
	bisect_params_default(&p);
	p.deterministic = 1;
	bisect_init(&b, &sim_ops, &s, lv->n, &p);
	bisect_run(&b, 0, lv->n - 1, res);
	d->measures += s.measures;
	bisect_release(&b);
	sim_release(&s);
	return 0;
}

static const struct hist_ops dag_ops = { dag_list, dag_merge_base, dag_bisect };

/* Linear main line 0..k-1 from base, each with value v. */
static int dag_line(struct dag *d, int from, int k, double v)
{
	int x = from, i;

	for (i = 0; i < k; i++)
		x = dag_add(d, x, -1, v);
	return x;
}

static int dag_run(struct dag *d, int good, int bad, struct hist_result *r)
{
	char g[41], b[41];

	dag_id(good, g);
	dag_id(bad, b);
	return hist_bisect(&dag_ops, d, g, b, r);
}

static int is_commit(const char *id, int x)
{
	char want[41];

	dag_id(x, want);
	return !strcmp(id, want);
}

static void test_hist_mainline(void)
{
	struct dag d = { 0 };
	struct hist_result r;
	int base = dag_add(&d, -1, -1, 100), slow, tip;

	dag_line(&d, base, 5, 100);
	slow = dag_add(&d, d.n - 1, -1, 90);
	tip = dag_line(&d, slow, 6, 90);
	CHECK(dag_run(&d, base, tip, &r) == 0);
	CHECK(r.status == HIST_FOUND && is_commit(r.culprit.id, slow) && r.depth == 0);
	CHECK(is_commit(r.parent, slow - 1) && d.levels == 1);
	hist_result_release(&r);
}

/* main: base m1 m2 m3 | branch off m1: b1 b2(slow) b3 | m4, M(m4, b3), m6 m7 */
static void test_hist_branch(void)
{
	struct dag d = { 0 };
	struct hist_result r;
	int base = dag_add(&d, -1, -1, 100), m1, b1, b2, b3, m4, M, tip;

	m1 = dag_line(&d, base, 1, 100);
	dag_line(&d, m1, 2, 100);
	b1 = dag_add(&d, m1, -1, 100);
	b2 = dag_add(&d, b1, -1, 90);
	b3 = dag_add(&d, b2, -1, 90);
	m4 = dag_add(&d, m1 + 2, -1, 100);
	M = dag_add(&d, m4, b3, 90);
	tip = dag_line(&d, M, 2, 90);
	CHECK(dag_run(&d, base, tip, &r) == 0);
	CHECK(r.status == HIST_FOUND && is_commit(r.culprit.id, b2) && r.depth == 1);
	CHECK(is_commit(r.merge[0], M) && is_commit(r.parent, b1) && d.levels == 2);
	CHECK(strcmp(r.culprit.subject, "commit") == 0);
	hist_result_release(&r);
}

/* A branch with a sub-branch merged into it, the culprit in the sub-branch. */
static void test_hist_nested(void)
{
	struct dag d = { 0 };
	struct hist_result r;
	int base = dag_add(&d, -1, -1, 100), m, b1, c1, c2, c3, b2, MB, b3, MM, tip;

	m = dag_line(&d, base, 3, 100);
	b1 = dag_add(&d, m, -1, 100);
	c1 = dag_add(&d, b1, -1, 100);
	c2 = dag_add(&d, c1, -1, 100);
	c3 = dag_add(&d, c2, -1, 90);
	b2 = dag_add(&d, b1, -1, 100);
	MB = dag_add(&d, b2, c3, 90);
	b3 = dag_add(&d, MB, -1, 90);
	m = dag_line(&d, m, 4, 100);
	MM = dag_add(&d, m, b3, 90);
	tip = dag_line(&d, MM, 3, 90);
	CHECK(dag_run(&d, base, tip, &r) == 0);
	CHECK(r.status == HIST_FOUND && is_commit(r.culprit.id, c3) && r.depth == 2);
	CHECK(is_commit(r.merge[0], MM) && is_commit(r.merge[1], MB) && is_commit(r.parent, c2));
	hist_result_release(&r);
}

/* Both sides fast, the merge slow: the merge is the culprit. */
static void test_hist_merge_itself(void)
{
	struct dag d = { 0 };
	struct hist_result r;
	int base = dag_add(&d, -1, -1, 100), m, b, M, tip;

	m = dag_line(&d, base, 3, 100);
	b = dag_line(&d, base + 1, 3, 100);
	M = dag_add(&d, m, b, 90);
	tip = dag_line(&d, M, 2, 90);
	CHECK(dag_run(&d, base, tip, &r) == 0);
	CHECK(r.status == HIST_MERGE && is_commit(r.culprit.id, M) && r.depth == 1);
	hist_result_release(&r);
}

/* Skips on the first-parent line (one far from the culprit, so it is still
 * found) and in the branch (next to the culprit: the candidates). */
static void test_hist_skips(void)
{
	struct dag d = { 0 };
	struct hist_result r;
	int base = dag_add(&d, -1, -1, 100), m, b1, b2, b3, M, tip, x;

	m = dag_line(&d, base, 4, 100);
	d.broken[base + 2] = 1;
	b1 = dag_add(&d, base + 1, -1, 100);
	b2 = dag_add(&d, b1, -1, 90);
	b3 = dag_add(&d, b2, -1, 90);
	d.broken[b1] = 1;
	M = dag_add(&d, m, b3, 90);
	tip = dag_line(&d, M, 3, 90);
	d.broken[tip - 1] = 1;
	CHECK(dag_run(&d, base, tip, &r) == 0);
	CHECK(r.status == HIST_AMBIGUOUS && r.depth == 1 && is_commit(r.merge[0], M));
	CHECK(r.ncand == 2 && is_commit(r.cand[0], b1) && is_commit(r.cand[1], b2));
	hist_result_release(&r);
	/* The same history with the branch's skip repaired names b2. */
	d.broken[b1] = 0;
	d.levels = 0;
	CHECK(dag_run(&d, base, tip, &r) == 0);
	CHECK(r.status == HIST_FOUND && is_commit(r.culprit.id, b2) && d.levels == 2);
	hist_result_release(&r);
	/* A skip right before the merge on the main line: merge and it are the candidates. */
	d.broken[m] = 1;
	x = dag_run(&d, base, tip, &r);
	CHECK(x == 0 && r.status == HIST_AMBIGUOUS && r.depth == 0 && r.ncand == 2);
	CHECK(r.ncand == 2 && is_commit(r.cand[0], m) && is_commit(r.cand[1], M));
	hist_result_release(&r);
}

static void test_hist_parse_log(void)
{
	struct hist_level lv = { 0 };
	char line[400];

	snprintf(line, sizeof(line), "%s\t%s\t%s %s\tMerge branch 'x'\n%s\t%s\t%s\tRevert \"y\"\tz\n",
		 "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222",
		 "3333333333333333333333333333333333333333", "4444444444444444444444444444444444444444",
		 "5555555555555555555555555555555555555555", "6666666666666666666666666666666666666666",
		 "1111111111111111111111111111111111111111");
	CHECK(hist_parse_log(&lv, line) == 0 && lv.n == 2);
	CHECK(lv.n == 2 && lv.c[0].nparents == 2 && lv.c[1].nparents == 1);
	CHECK(lv.n == 2 && !strcmp(lv.c[0].parent2, "4444444444444444444444444444444444444444"));
	CHECK(lv.n == 2 && !strcmp(lv.c[1].subject, "Revert \"y\" z"));
	CHECK(hist_parse_log(&lv, "abc\tdef\t\tx\n") < 0);
	hist_level_release(&lv);
}

static void test_release_sort(void)
{
	char *v[] = { xstrdup("6.1.192-1"), xstrdup("6.1.170-3"), xstrdup("6.1.192-3"),
		      xstrdup("6.1.176-1"), xstrdup("6.1.192-2"), xstrdup("6.1.187-1"),
		      xstrdup("6.1.190-1") };
	const char *want[] = { "6.1.170-3", "6.1.176-1", "6.1.187-1", "6.1.190-1", "6.1.192-1",
			       "6.1.192-2", "6.1.192-3" };
	size_t i;

	char *w[] = { xstrdup("6.12.118-1~deb12u1"), xstrdup("6.12.95-1~bpo12+1"), xstrdup("6.1.192-3"),
		      xstrdup("6.12.95-1"), xstrdup("6.12.115-2~deb12u1") };
	const char *want2[] = { "6.1.192-3", "6.12.95-1~bpo12+1", "6.12.95-1", "6.12.115-2~deb12u1",
				"6.12.118-1~deb12u1" };
	char *s, *t;

	release_sort(v, 7);
	for (i = 0; i < 7; i++) {
		CHECK(!strcmp(v[i], want[i]));
		free(v[i]);
	}
	/* Across series, and '~' before the end (a backport before its release). */
	release_sort(w, 5);
	for (i = 0; i < 5; i++) {
		CHECK(!strcmp(w[i], want2[i]));
		free(w[i]);
	}
	CHECK(release_compare("6.1.192-3", "6.12.95-1~bpo12+1") < 0);
	CHECK(release_compare("6.12.95-1~bpo12+1", "6.12.118-1~deb12u1") < 0);
	CHECK(release_compare("6.1.9-1", "6.1.10-1") < 0 && release_compare("6.1.10-1", "6.1.10-1") == 0);
	CHECK((s = release_series("6.12.95-1~bpo12+1")) && !strcmp(s, "6.12"));
	free(s);
	CHECK(release_series("linux") == NULL && release_series("6.") == NULL);
	CHECK((t = release_tag("6.12.95-1~bpo12+1")) && !strcmp(t, "6.12.95-1_bpo12+1"));
	free(t);
}

/* A kconfig in miniature: FOO selects BAR, DEP_CHILD depends on
 * DEP_PARENT, C_A and C_B are a choice whose first member wins, and so
 * are D_A and D_B. */
static int fake_resolve(void *ctx, const struct kcfg *in, struct kcfg *out)
{
	int *calls = ctx;

	(*calls)++;
	kcfg_copy(out, in);
	if (!strcmp(kcfg_value(out, "FOO"), "y"))
		kcfg_set(out, "BAR", "y");
	if (strcmp(kcfg_value(out, "DEP_PARENT"), "y"))
		kcfg_set(out, "DEP_CHILD", NULL);
	if (!strcmp(kcfg_value(out, "C_A"), "y"))
		kcfg_set(out, "C_B", "n");
	else if (strcmp(kcfg_value(out, "C_B"), "y"))
		kcfg_set(out, "C_A", "y");
	if (!strcmp(kcfg_value(out, "D_A"), "y"))
		kcfg_set(out, "D_B", "n");
	else if (strcmp(kcfg_value(out, "D_B"), "y"))
		kcfg_set(out, "D_A", "y");
	return 0;
}

static void test_kcfg(void)
{
	const char *good_t = "# a comment\nCONFIG_C_A=y\n# CONFIG_C_B is not set\nCONFIG_HZ=250\n"
			     "\n# CONFIG_FOO is not set\nCONFIG_D_A=y\n";
	const char *bad_t = "CONFIG_FOO=y\nCONFIG_BAR=y\nCONFIG_DEP_PARENT=y\nCONFIG_DEP_CHILD=y\n"
			    "CONFIG_C_B=y\n# CONFIG_C_A is not set\nCONFIG_HZ=1000\nCONFIG_N1=y\n"
			    "CONFIG_N2=m\nCONFIG_N3=0x10\nCONFIG_N4=\"x y\"\nCONFIG_N5=-3\n"
			    "CONFIG_D_B=y\n";
	struct kcfg g, b, k;
	struct kcfg_step *st;
	const char **names;
	char *text, buf[64];
	int n, calls = 0, choice_step = 0, i;

	CHECK(kcfg_parse(&g, "good", good_t, strlen(good_t)) == 0);
	CHECK(kcfg_parse(&b, "bad", bad_t, strlen(bad_t)) == 0);
	CHECK(g.n == 5 && !strcmp(kcfg_value(&g, "FOO"), "n") && !strcmp(kcfg_get(&g, "HZ"), "250"));
	CHECK(kcfg_get(&g, "BAR") == NULL && !strcmp(kcfg_value(&g, "BAR"), "n"));
	CHECK(!strcmp(kcfg_get(&b, "N4"), "\"x y\""));
	/* Not configurations: refused, naming the line. */
	CHECK(kcfg_parse(&k, "x", "hello\n", 6) < 0 && k.n == 0);
	CHECK(kcfg_parse(&k, "x", "# only a comment\n", 17) < 0);
	CHECK(kcfg_parse(&k, "x", "CONFIG_A=y\0CONFIG_B=y\n", 22) < 0);
	CHECK(kcfg_parse(&k, "x", "CONFIG_A=yes\n", 13) < 0);
	CHECK(kcfg_parse(&k, "x", "CONFIG_A=\"open\n", 15) < 0);
	CHECK(kcfg_parse(&k, "x", "GOOD = base\n", 12) < 0);
	/* The last assignment wins, as in kconfig; the text round-trips. */
	CHECK(kcfg_parse(&k, "x", "CONFIG_A=y\nCONFIG_A=m\n", 22) == 0 && !strcmp(kcfg_get(&k, "A"), "m"));
	kcfg_release(&k);
	text = kcfg_format(&b);
	CHECK(kcfg_parse(&k, "fmt", text, strlen(text)) == 0);
	CHECK(kcfg_diff(&k, &b, &names) == 0 && names == NULL && k.n == b.n);
	kcfg_release(&k);
	free(text);
	CHECK(!strcmp(kcfg_describe("HZ", "n", buf, sizeof(buf)), "CONFIG_HZ is not set"));
	CHECK(!strcmp(kcfg_describe("HZ", "250", buf, sizeof(buf)), "CONFIG_HZ=250"));
	/* Fourteen differences, unlisted symbols counted as n. */
	n = kcfg_diff(&g, &b, &names);
	CHECK(n == 14 && !strcmp(names[0], "BAR") && !strcmp(names[n - 1], "N5"));
	free(names);
	/* The path: every step closer, the last one bad, each choice's two
	 * members one step (found as a pair while the other choice is
	 * still stuck), the dependent option after its parent. */
	CHECK(kcfg_steps(&g, &b, fake_resolve, &calls, &st, &n) == 0);
	CHECK(n == 12 && kcfg_diff(&st[n - 1].cfg, &b, &names) == 0);
	for (i = 0; i < n; i++) {
		struct kcfg *prev = i ? &st[i - 1].cfg : &g;
		int d = kcfg_diff(prev, &st[i].cfg, &names);

		CHECK(d >= 1 && d <= 2);
		/* The option set is one of those that moved. */
		CHECK(st[i].cause && (!strcmp(names[0], st[i].cause) ||
				      (d == 2 && !strcmp(names[1], st[i].cause))));
		if (d == 2 && !strcmp(names[0], "C_A") && !strcmp(names[1], "C_B"))
			choice_step = 1;
		if (strcmp(kcfg_value(&st[i].cfg, "DEP_CHILD"), "n"))
			CHECK(!strcmp(kcfg_value(&st[i].cfg, "DEP_PARENT"), "y"));
		free(names);
	}
	CHECK(choice_step);
	CHECK(calls > n);
	kcfg_steps_release(st, n);
	kcfg_release(&g);
	kcfg_release(&b);
}

static void test_missing_options(void)
{
	const char *frag = "# c\nCONFIG_A=y\nCONFIG_B=n\nCONFIG_C=y\nCONFIG_D=\"x\"\n";
	char *m;

	CHECK(build_missing_options(frag, "CONFIG_A=y\nCONFIG_C=y\nCONFIG_D=\"x\"\n") == NULL);
	m = build_missing_options(frag, "CONFIG_A=y\nCONFIG_CC=y\nCONFIG_D=\"x\"");
	CHECK(m && !strcmp(m, "CONFIG_C=y"));
	free(m);
	/* A whole line: CONFIG_N=2 is not satisfied by CONFIG_N=24. */
	m = build_missing_options("CONFIG_N=2\n", "CONFIG_N=24\n");
	CHECK(m && !strcmp(m, "CONFIG_N=2"));
	free(m);
	m = build_missing_options(frag, "# CONFIG_A is not set\n");
	CHECK(m && !strcmp(m, "CONFIG_A=y CONFIG_C=y CONFIG_D=\"x\""));
	free(m);
}

static void test_build_history(void)
{
	struct build_history h;

	/* A cold full compile, a narrow and a wide incremental one, a torn line. */
	CHECK(build_history_parse("full 5200 700.0\nincr 40 30.0\nincr 4000 160.0\nincr 50 50.0\n"
				  "full 5200\n", &h) == 0);
	CHECK(h.n_full == 1 && h.full_s == 700.0 && h.full_steps == 5200 && h.n_cached == 0);
	CHECK(h.n_incr == 2 && h.incr_s == 40.0);
	CHECK(build_history_full_cost(&h, 400.0) == 700.0);
	/* Then an empty O= directory served from ccache: the next one costs
	 * that, and the cold compile's figure stays apart. */
	CHECK(build_history_parse("full 5200 700.0\ncached 5210 95.5\nincr 40 30.0\n", &h) == 0);
	CHECK(h.n_full == 1 && h.full_s == 700.0 && h.n_cached == 1 && h.cached_s == 95.5);
	CHECK(h.full_steps == 5210 && h.n_incr == 1 && h.incr_s == 30.0);
	CHECK(build_history_full_cost(&h, 400.0) == 95.5);
	/* Nothing known: the default; foreign lines are no history. */
	CHECK(build_history_parse("", &h) == -1 && build_history_full_cost(&h, 400.0) == 400.0);
	CHECK(build_history_parse("fast 1 2\ncached x 3\n", &h) == -1);
}

/* The releases sweep: +0.11 -0.03 -0.01 -0.91 -0.01 -0.07 +0.08, the
 * step of the series change in the middle, a GOOD mark and unmarked rows
 * between: the title names -0.91 first, then +0.11, then +0.08. */
static void test_plot_largest(void)
{
	static const double chg[] = { 0, .0011, -.0003, 0, -.0001, 0, -.0091, -.0001, -.0007,
				      .0008, .0008 };
	static const enum plot_mark mk[] = { MARK_GOOD, MARK_IMPROVEMENT, MARK_REGRESSION,
					     MARK_NONE, MARK_REGRESSION, MARK_PARENT,
					     MARK_REGRESSION, MARK_REGRESSION, MARK_REGRESSION,
					     MARK_IMPROVEMENT, MARK_NONE };
	double v = 109;
	struct plot p;
	int idx[3], i;

	plot_init(&p, "/nonexistent", "t", "t");
	for (i = 0; i < 11; i++)
		plot_add(&p, i, "x", "y", &v, 1, mk[i])->change = chg[i];
	CHECK(plot_largest_changes(&p, idx, 3) == 7);
	CHECK(idx[0] == 6 && idx[1] == 1 && idx[2] == 9);
	/* Of equal changes the earlier state; fewer changes than asked. */
	p.row[9].change = -.0007;
	CHECK(plot_largest_changes(&p, idx, 3) == 7 && idx[2] == 8);
	for (i = 2; i < 11; i++)
		p.row[i].mark = MARK_NONE;
	CHECK(plot_largest_changes(&p, idx, 3) == 1 && idx[0] == 1);
	plot_release(&p);
}

static void test_progress_format(void)
{
	char b[256];

	progress_format(b, sizeof(b), "build: 3", "steps", 400, 1600, 100);
	CHECK(!strcmp(b, "build: 3: 400/1600 steps (25%), 1 min 40 s elapsed, about 5 min 00 s left"));
	progress_format(b, sizeof(b), "build: 3", "steps", 0, 1600, 2);
	CHECK(!strcmp(b, "build: 3: 0/1600 steps (0%), 2 s elapsed"));
	/* More steps than the last full build: never over 100%. */
	progress_format(b, sizeof(b), "b", "steps", 1700, 1600, 3700);
	CHECK(!strcmp(b, "b: 1700/1600 steps (99%), 1 h 01 min elapsed, almost done"));
	progress_format(b, sizeof(b), "b", "steps", 17, 0, 59.6);
	CHECK(!strcmp(b, "b: 17 steps, 1 min 00 s elapsed"));
}

static void test_report(void)
{
	const char *argv[] = { "-s", "TREE=/src/my linux", "bisect", "it's" };
	char *path = xasprintf("%s/report.json", tmpdir), *q;
	struct report r, l;
	struct sbuf sb;

	q = report_quote_argv(4, argv);
	CHECK(!strcmp(q, "-s 'TREE=/src/my linux' bisect 'it'\\''s'"));
	free(q);
	report_init(&r, "bisect");
	report_set(&r, REPORT_VERDICT, "-2.03% throughput regression");
	report_set(&r, REPORT_CULPRIT, "f53cb070684dda65a46eca0f4b70b67d9590b391");
	report_set(&r, REPORT_SUBJECT, "sched/features: do not preempt on wakeup");
	report_set(&r, REPORT_REPRODUCE, "tbisect bisect v-good v-bad");
	report_add_change(&r, "f53cb070684d", "sched/features: do not preempt on wakeup", 118.39,
			  116.032, -0.0199);
	report_set_why(&r, "4 (a) -> 5 (b), instructions per operation");
	report_add_function(&r, "hrtick_start", 100, 2600, 0.25);
	CHECK(report_save(&r, path) == 0);
	CHECK(report_load(&l, path) == 0);
	CHECK(!strcmp(l.f[REPORT_CULPRIT], r.f[REPORT_CULPRIT]) && l.nchg == 1 &&
	      fabs(l.chg[0].to - 116.032) < 1e-9 && !strcmp(l.f[REPORT_COMMAND], "bisect"));
	sbuf_init(&sb);
	report_format(&l, REPORT_TEXT, &sb);
	CHECK(strstr(sb.buf, "tbench: -2.03% throughput regression\n"));
	CHECK(strstr(sb.buf, "first bad: f53cb070684dda65a46eca0f4b70b67d9590b391 sched/features"));
	CHECK(strstr(sb.buf, "  -1.99%       118.390      116.032  f53cb070684d"));
	CHECK(strstr(sb.buf, "\n        tbisect bisect v-good v-bad\n"));
	/* The culprit's profile comes back and is shown. */
	CHECK(l.nfn == 1 && !strcmp(l.fn[0].function, "hrtick_start") && fabs(l.fn[0].b - 2600) < 1e-9);
	CHECK(strstr(sb.buf, "Why: 4 (a) -> 5 (b), instructions per operation\n") &&
	      strstr(sb.buf, "hrtick_start                           100.00      2600.00     +2500.00   25.0%"));
	sbuf_release(&sb);
	sbuf_init(&sb);
	report_format(&l, REPORT_MARKDOWN, &sb);
	CHECK(strstr(sb.buf, "## tbench: -2.03%") && strstr(sb.buf, "| -1.99% | 118.390 | 116.032 |") &&
	      strstr(sb.buf, "```\ntbisect bisect v-good v-bad\n```"));
	sbuf_release(&sb);
	report_release(&l);
	report_release(&r);
	/* Not a report: refused. */
	util_write_file_atomic(path, "{\"x\": 1}", 8);
	CHECK(report_load(&l, path) < 0);
	report_release(&l);
	free(path);
}

static void test_distcc_count(void)
{
	const char *log =
		"distcc[15029] compile from p.c to p.o\n"
		"distcc[9654] compile (null) on localhost completed ok\n"
		"distcc[15029] exec on 127.0.0.1:36321/2: x86_64-linux-gnu-gcc -c p.c -o p.o\n"
		"distcc[15029] cpp p.c on localhost completed ok\n"
		"distcc[15029] compile p.c on 127.0.0.1:36321/2 completed ok\n"
		"distcc[16211] Warning: failed to distribute q.c to 127.0.0.1:1/2, running locally instead\n"
		"distcc[16211] compile q.c on localhost completed ok\n"
		"distcc[16300] compile r.c on build7/8,lzo completed ok";
	struct distcc_counts n;

	distcc_count_text(log, &n);
	/* Preprocessing and kbuild's option probes are not compiles; the
	 * fallback is one local. */
	CHECK(n.remote == 2 && n.local == 1 && n.fallback == 1);
	distcc_count_text("", &n);
	CHECK(n.remote == 0 && n.local == 0 && n.fallback == 0);
}

static void test_time_left(void)
{
	struct bisect_costs c = { 60, 0, 20, 1, NULL, 0 };

	/* 32 states one at a time: 5 rounds of a build and a run, then the
	 * culprit and its parent repeated. */
	CHECK(fabs(bisect_time_left(&c, 32, 1, 1, 1) - (5 * (60 + 20) + 2 * 20)) < 1e-9);
	c.full_extra = 340;	/* the first build of an empty O= directory */
	CHECK(fabs(bisect_time_left(&c, 32, 1, 1, 1) - (340 + 5 * 80 + 40)) < 1e-9);
	/* Noisy, 3 runs minimum, 2 VMs, 2 states a round over 8: 2 rounds of
	 * 2 builds and 12 runs two at a time, then 12 confirmation runs. */
	c = (struct bisect_costs){ 60, 0, 20, 2, NULL, 0 };
	CHECK(fabs(bisect_time_left(&c, 8, 2, 0, 3) - (2 * (2 * 60 + 6 * 20) + 6 * 20)) < 1e-9);
	/* A header change rebuilds most of a kernel: not a typical step. */
	CHECK(build_is_wide(700, 1260) && !build_is_wide(120, 1260));
	CHECK(build_is_wide(BUILD_WIDE_STEPS, 0) && !build_is_wide(BUILD_WIDE_STEPS - 1, 0));
	/* Adjacent ends: only the confirmation is left. */
	CHECK(fabs(bisect_time_left(&c, 1, 1, 1, 1) - 20) < 1e-9);
}

/* culprits with an end that cannot be measured says so (1), lists nothing;
 * the runs-per-state rule follows the engine's rule, seeded SMP included. */
static void test_culprits_ends(void)
{
	struct bisect_params p;
	struct conf c;
	struct sim s;
	struct bisect b;
	int i, end;

	bisect_params_default(&p);
	for (end = 0; end < 2; end++) {
		sim_init(&s, 9, 3, 0);
		for (i = 0; i < 9; i++)
			s.truth[i] = i >= 4 ? 90 : 100;
		s.unusable[end ? 8 : 0] = 1;
		bisect_init(&b, &sim_ops, &s, 9, &p);
		CHECK(bisect_culprits(&b, 0, 8) == 1);
		CHECK(b.nchg == 0);
		bisect_release(&b);
		sim_release(&s);
	}
	p.deterministic = 1;
	CHECK(bisect_runs_wanted(&p) == 1);
	p.deterministic = 0;
	p.runs_min = 4;
	CHECK(bisect_runs_wanted(&p) == 4);
	conf_init(&c);
	c.mode = MODE_ICOUNT;
	c.runs_min = 3;
	c.smp = 1;
	CHECK(bench_runs_wanted(&c) == 1);
	c.smp = 2;	/* seeded: judged by the statistical rule */
	CHECK(bench_runs_wanted(&c) == 3);
	c.mode = MODE_WALLCLOCK;
	c.smp = 1;
	CHECK(bench_runs_wanted(&c) == 3);
	conf_release(&c);
	/* SCHED_FEATURES: names only, nothing a kernel command line reads as more. */
	CHECK(conf_sched_features_ok(""));
	CHECK(conf_sched_features_ok("NO_HRTICK"));
	CHECK(conf_sched_features_ok("NO_HRTICK,WAKEUP_PREEMPTION"));
	CHECK(!conf_sched_features_ok("NO_HRTICK panic=1"));
	CHECK(!conf_sched_features_ok("NO_HRTICK,"));
	CHECK(!conf_sched_features_ok(",HRTICK"));
	CHECK(!conf_sched_features_ok("hrtick"));
	CHECK(!conf_sched_features_ok("A,,B"));
}

/* profile: symbols at function boundaries, user space and unknown kernel
 * addresses as rows of their own, the window (long - short) per MB, and
 * rows that add up to the totals. */
static void test_profile(void)
{
	const char *nm = "ffffffff81000000 T _text\n"
			 "ffffffff81000100 t hrtick_start\n"
			 "ffffffff81000200 D some_data\n"
			 "ffffffff81000300 W weak_fn\n"
			 "                 U undefined_sym\n";
	/* A: 1000 instructions per run in hrtick_start's first byte, 10 at its
	 * last, 50 in user space, 5 below the first symbol. */
	const char *a_short = "0000555555554000 50\nffffffff80ffffff 5\nffffffff81000100 1000\n"
			      "ffffffff810001ff 10\n# total 1065\n";
	const char *a_long = "0000555555554000 150\nffffffff80ffffff 5\nffffffff81000100 3000\n"
			     "ffffffff810001ff 10\nffffffff81000300 40\n# total 3205\n";
	struct profile_syms sy;
	struct profile_counts c1, c2, bad;
	struct profile_table t;
	int i, seen = 0;

	CHECK(profile_syms_parse(&sy, nm) == 0 && sy.n == 3);
	CHECK(!strcmp(profile_syms_find(&sy, 0xffffffff81000100ull), "hrtick_start"));
	CHECK(!strcmp(profile_syms_find(&sy, 0xffffffff810002ffull), "hrtick_start"));	/* data symbols are not functions */
	CHECK(!strcmp(profile_syms_find(&sy, 0xffffffff810000ffull), "_text"));
	CHECK(!strcmp(profile_syms_find(&sy, 0xffffffff81000300ull), "weak_fn"));
	CHECK(!strcmp(profile_syms_find(&sy, 0xffffffff80ffffffull), PROFILE_UNKNOWN));
	CHECK(profile_syms_find(&sy, 0x555555554000ull) == NULL);
	CHECK(profile_counts_parse(&c1, a_short) == 0 && c1.n == 4 && c1.total == 1065);
	CHECK(profile_counts_parse(&c2, a_long) == 0 && c2.n == 5);
	/* A total that is not the sum, and a run cut short (no total), are refused. */
	CHECK(profile_counts_parse(&bad, "ffffffff81000100 10\n# total 11\n") < 0);
	profile_counts_release(&bad);
	CHECK(profile_counts_parse(&bad, "ffffffff81000100 10\n") < 0);
	profile_counts_release(&bad);
	CHECK(profile_counts_parse(&bad, "ffffffff81000100 ten\n# total 10\n") < 0);
	profile_counts_release(&bad);
	profile_table_init(&t);
	/* Column A: the window finished 2 operations; column B: the same counts, 1. */
	CHECK(profile_table_add(&t, 0, &sy, &(struct profile_run){ &c2, NULL },
				&(struct profile_run){ &c1, NULL }, 2.0) == 0);
	CHECK(profile_table_add(&t, 1, &sy, &(struct profile_run){ &c2, NULL },
				&(struct profile_run){ &c1, NULL }, 1.0) == 0);
	CHECK(profile_table_add(&t, 1, &sy, &(struct profile_run){ &c2, NULL },
				&(struct profile_run){ &c1, NULL }, 0.0) < 0);
	profile_table_sort(&t);
	/* The unknown address counts 5 in both runs: zero, dropped. */
	CHECK(t.n == 3 && !strcmp(t.row[0].function, "hrtick_start"));
	CHECK(fabs(t.row[0].v[0] - 1000) < 1e-9 && fabs(t.row[0].v[1] - 2000) < 1e-9);
	for (i = 0; i < t.n; i++)
		if (!strcmp(t.row[i].function, PROFILE_USER_OTHER))
			seen += fabs(t.row[i].v[0] - 50) < 1e-9 && fabs(t.row[i].v[1] - 100) < 1e-9;
	CHECK(seen == 1);
	CHECK(profile_table_add(&t, 0, &sy, &(struct profile_run){ &c2, NULL },
				&(struct profile_run){ &c1, NULL }, 2.0) < 0);	/* after sorting */
	/* Every address is in some row: the rows add up to the totals. */
	CHECK(fabs(t.total[0] - (3205 - 1065) / 2.0) < 1e-9 && fabs(t.total[1] - (3205 - 1065)) < 1e-9);
	CHECK(fabs(profile_table_sum(&t) - (t.total[1] - t.total[0])) < 1e-6);
	profile_table_release(&t);
	profile_counts_release(&c1);
	profile_counts_release(&c2);
	profile_syms_release(&sy);
}

/* A 64-bit ELF file of 3 pages whose second and third pages are one
 * executable segment (file offset = vaddr = 0x1000) of bytes from seed. */
static unsigned char *fake_elf(unsigned seed, size_t *size)
{
	unsigned char *d = xcalloc(1, 3 * 4096);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)d;
	Elf64_Phdr *ph = (Elf64_Phdr *)(d + sizeof(*eh));
	size_t i;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	ph[0].p_type = PT_LOAD;		/* read-only data: not code */
	ph[0].p_flags = PF_R;
	ph[0].p_filesz = 0x1000;
	ph[1].p_type = PT_LOAD;
	ph[1].p_flags = PF_R | PF_X;
	ph[1].p_offset = ph[1].p_vaddr = 0x1000;
	ph[1].p_filesz = 0x2000;
	for (i = 0x1000; i < 3 * 4096; i++) {
		seed = seed * 1103515245u + 12345u;
		d[i] = (unsigned char)(seed >> 16);
	}
	*size = 3 * 4096;
	return d;
}

/* One counts line for a block at addr whose code is len bytes of data. */
static void block_line(struct sbuf *sb, uint64_t addr, long insns, const unsigned char *code, int len)
{
	int i;

	sbuf_addf(sb, "%016llx %ld ", (unsigned long long)addr, insns);
	for (i = 0; i < len; i++)
		sbuf_addf(sb, "%02x", code[i]);
	sbuf_addstr(sb, "\n");
}

/* profile: a user block belongs to the binary whose code holds its bytes
 * at its offset in the page, once enough blocks agree on where that binary
 * was mapped; other user code is one "unmatched" row. */
static void test_profile_user(void)
{
	const uint64_t libc = 0x7f1234560000ull, prog = 0x555555554000ull;
	struct profile_bins b = { 0 };
	struct profile_counts c;
	struct profile_maps m;
	unsigned char *lib, *exe, *one, junk[16] = { 0x0f, 0x0b, 0x0f, 0x0b, 0x0f, 0x0b, 0x0f, 0x0b };
	size_t ls, es, os;
	struct sbuf sb;

	lib = fake_elf(1, &ls);
	exe = fake_elf(2, &es);
	one = fake_elf(3, &os);
	sbuf_init(&sb);
	/* The program's blocks first (lower addresses), three of them. */
	block_line(&sb, prog + 0x1010, 7, exe + 0x1010, 16);
	block_line(&sb, prog + 0x1800, 7, exe + 0x1800, 12);
	block_line(&sb, prog + 0x2100, 7, exe + 0x2100, 16);
	block_line(&sb, prog + 0x2104, 7, exe + 0x2104, 3);	/* too short to vote */
	/* One block of the third binary: not enough to place it. */
	block_line(&sb, 0x600000001200ull, 5, one + 0x1200, 16);
	block_line(&sb, libc + 0x1000, 11, lib + 0x1000, 16);
	block_line(&sb, libc + 0x1ff0, 11, lib + 0x1ff0, 16);
	block_line(&sb, libc + 0x2abc, 11, lib + 0x2abc, 9);
	block_line(&sb, 0x7ffff7fc1000ull, 3, junk, 8);		/* the vDSO: in no file */
	sbuf_addstr(&sb, "ffffffff81000000 100\n# total 169\n");
	CHECK(profile_bins_add(&b, "libc.so.6", lib, ls) == 0);
	CHECK(profile_bins_add(&b, "tbench", exe, es) == 0);
	CHECK(profile_bins_add(&b, "rare", one, os) == 0);
	CHECK(profile_bins_add(&b, "text", (unsigned char *)xstrdup("not elf"), 8) < 0 && b.n == 3);
	CHECK(profile_counts_parse(&c, sb.buf) == 0 && c.n == 10 && c.code_len[0] == 16 &&
	      c.code_len[9] == 0);
	CHECK(profile_maps_find(&m, &b, &c) == 0);
	CHECK(!strcmp(profile_maps_name(&m, prog + 0x1010), "[user] tbench"));
	CHECK(!strcmp(profile_maps_name(&m, prog + 0x2104), "[user] tbench"));
	CHECK(!strcmp(profile_maps_name(&m, prog + 0x2fff), "[user] tbench"));
	CHECK(!strcmp(profile_maps_name(&m, prog + 0x3000), PROFILE_USER_OTHER));	/* past its code */
	CHECK(!strcmp(profile_maps_name(&m, prog + 0x0fff), PROFILE_USER_OTHER));	/* its data page */
	CHECK(!strcmp(profile_maps_name(&m, libc + 0x2abc), "[user] libc.so.6"));
	CHECK(!strcmp(profile_maps_name(&m, 0x600000001200ull), PROFILE_USER_OTHER));
	CHECK(!strcmp(profile_maps_name(&m, 0x7ffff7fc1000ull), PROFILE_USER_OTHER));
	profile_counts_release(&c);
	CHECK(profile_counts_parse(&c, "0000555555554000 1 0g\n# total 1\n") < 0);	/* not hex */
	profile_counts_release(&c);
	CHECK(profile_counts_parse(&c, "0000555555554000 1 abc\n# total 1\n") < 0);	/* odd digits */
	profile_counts_release(&c);
	profile_maps_release(&m);
	profile_bins_release(&b);
	sbuf_release(&sb);
}

/* git bisect run's tree: beside it when under WORKDIR/X/linux (the series'
 * layout, so ccache's basedir serves it), else keyed by its path. */
static void test_checkout_layout(void)
{
	struct conf c;
	struct tree t;
	char *in;

	conf_init(&c);
	free(c.workdir);
	c.workdir = xstrdup(tmpdir);
	in = xasprintf("%s/gbr/linux", tmpdir);
	tree_init_checkout(&t, &c, in);
	CHECK(!strcmp(t.outname, "gbr/build") && !strcmp(t.dir, in) && t.checkout);
	tree_release(&t);
	tree_init_checkout(&t, &c, "/home/me/src/linux");
	CHECK(!strncmp(t.outname, "git/", 4) && strlen(t.outname) == 4 + 16 + 6);
	tree_release(&t);
	free(in);
	conf_release(&c);
}

/* git in dir with a fixed identity; 0 when it exits 0. */
static int git_in(const char *dir, const char *a, const char *b, const char *c2, const char *d,
		  const char *e)
{
	const char *argv[] = { "git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t",
			       a, b, c2, d, e, NULL };

	return run_tool(argv, NULL, "git");
}

/* A state name with two meanings that give different states is refused,
 * both named; one that means one state through several kinds is fine. */
static void test_resolve_ambiguous(void)
{
	char *dir = xasprintf("%s/resolve", tmpdir), id[4][41];
	struct tree_range r;
	struct conf c;
	struct tree t;
	int i;

	CHECK(git_in(tmpdir, "init", "-q", "resolve", NULL, NULL) == 0);
	for (i = 0; i < 4; i++) {
		char msg[16];

		snprintf(msg, sizeof(msg), "c%d", i);
		CHECK(git_in(dir, "commit", "-q", "--allow-empty", "-m", msg) == 0);
	}
	conf_init(&c);
	tree_init_checkout(&t, &c, dir);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 4; i++) {
		char rev[16];

		snprintf(rev, sizeof(rev), "HEAD~%d", 3 - i);
		CHECK(tree_rev_parse(dir, rev, id[i]) == 0);
	}
	CHECK(tree_list(&t, id[0], id[3], &r) == 0 && r.n == 4);
	/* A tag "2" on state 0 and a tag "head" on state 1. */
	CHECK(git_in(dir, "tag", "2", id[0], NULL, NULL) == 0 &&
	      git_in(dir, "tag", "head", id[1], NULL, NULL) == 0);
	CHECK(tree_resolve(&t, &r, "2") == -1);
	CHECK(tree_resolve(&t, &r, "head") == -1);
	CHECK(tree_resolve(&t, &r, "1") == 1 && tree_resolve(&t, &r, "base") == 0);
	/* A commit id: as a prefix and as a revision, the same state. */
	CHECK(tree_resolve(&t, &r, id[2]) == 2);
	{
		char pre[13];

		snprintf(pre, sizeof(pre), "%.12s", id[3]);
		CHECK(tree_resolve(&t, &r, pre) == 3);
	}
	CHECK(tree_resolve(&t, &r, "nosuch") == -1);
	tree_range_release(&r);
	tree_release(&t);
	conf_release(&c);
	free(dir);
}

/* Writes text to tmpdir/kb/path, making its directories. */
static void kb_file(const char *path, const char *text)
{
	char *full = xasprintf("%s/kb/%s", tmpdir, path), *dir = util_dirname(full);

	util_mkdir_p(dir);
	free(write_tmp_abs(full, text));
	free(dir);
	free(full);
}

/* The objects a .config selects, by kbuild's lists: subdirectories, the
 * architecture's lists, composites, conditions, comments, continuations. */
static void test_kbuild_objects(void)
{
	char *tree = xasprintf("%s/kb", tmpdir);

	kb_file("Kbuild", "obj-y += kernel/\nobj-$(CONFIG_NET) += net/\nobj-y += arch/$(SRCARCH)/\n"
			  "obj-$(CONFIG_RUST) += rust/\n");
	kb_file("Makefile", "core-y :=\nlibs-y := lib/\n");
	kb_file("arch/x86/Makefile", "drivers-$(CONFIG_PCI) += arch/x86/pci/\n");
	kb_file("arch/x86/Kbuild", "obj-y += kernel/\n");
	kb_file("arch/x86/kernel/Makefile", "obj-y += setup.o\nobj-y += comp.o\ncomp-y := p1.o p2.o p3.o\n");
	kb_file("arch/x86/pci/Makefile", "obj-y += pci.o\n");
	kb_file("kernel/Makefile", "obj-y = fork.o exit.o \\\n  sched/\nobj-$(CONFIG_A) += a.o\n"
				   "obj-$(CONFIG_B) += b.o\n");
	kb_file("kernel/sched/Makefile", "obj-y += core.o\nobj-y += fair.o # a comment.o\n");
	kb_file("net/Makefile", "obj-y += sock.o\n");
	kb_file("rust/Makefile", "obj-y += alloc.o\n");
	kb_file("lib/Makefile", "lib-y += sort.o\n");
	/* kernel 5 (fork exit core fair a), net 1, arch/x86 4 (setup, comp's
	 * three parts), lib 1; no pci, no rust, no b. */
	CHECK(kbuild_objects(tree, "x86", "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_NET=y\n") == 11);
	CHECK(kbuild_objects(tree, "x86", "CONFIG_A=y\nCONFIG_NET=y\nCONFIG_PCI=y\n") == 12);
	CHECK(kbuild_objects(tree, "x86", "") == 9);
	CHECK(kbuild_objects(tmpdir, "x86", "CONFIG_A=y\n") == -1);	/* no top-level Kbuild */
	free(tree);
}

/* Filters text with a fresh filter; caller frees. */
static char *cpp_filtered(const char *text)
{
	struct cppfilter f;
	struct sbuf out;

	cppfilter_init(&f);
	sbuf_init(&out);
	cppfilter_text(&f, text, strlen(text), &out);
	cppfilter_release(&f);
	return sbuf_detach(&out);
}

/* Whether a and b filter to different texts. */
static int cpp_differ(const char *a, const char *b)
{
	char *fa = cpp_filtered(a), *fb = cpp_filtered(b);
	int r = strcmp(fa, fb) != 0;

	free(fa);
	free(fb);
	return r;
}

/* Whether in filters to want. */
static int cpp_is(const char *in, const char *want)
{
	char *f = cpp_filtered(in);
	int r = !strcmp(f, want);

	free(f);
	return r;
}

static void test_cppfilter(void)
{
	/* gcc -E of a file, then of the same file with comments and blank
	 * lines added (markers moved, a resync added, indentation changed). */
	const char *a = "# 0 \"k.c\"\n# 0 \"<built-in>\"\n# 1 \"k.c\"\n# 1 \"a.h\" 1\n"
			"int x;\n\n# 3 \"a.h\" 2\n# 2 \"k.c\" 2\nint y = 2;\n"
			"#pragma GCC diagnostic push\nchar *s = \"a  b\";\n";
	const char *b = "# 0 \"k.c\"\n# 0 \"<built-in>\"\n# 1 \"k.c\"\n# 1 \"a.h\" 1\n"
			"\n\n\n\nint x;\n# 15 \"a.h\"\n\n# 17 \"a.h\" 2\n\n# 9 \"k.c\" 2\n"
			"  int   y =  2;   \n\n#pragma  GCC diagnostic push\nchar *s = \"a  b\";\n";
	char *fa = cpp_filtered(a), *fb = cpp_filtered(b);

	CHECK(!strcmp(fa, fb));
	/* Markers keep the file and flags, line numbers are 0, and a resync
	 * within the same file is dropped. */
	CHECK(strstr(fa, "# 0 \"a.h\" 1\nint x;\n# 0 \"a.h\" 2\n# 0 \"k.c\" 2\nint y = 2;\n"));
	CHECK(!strstr(fb, "# 0 \"a.h\"\n"));
	/* White space inside a literal is kept, pragmas stay lines. */
	CHECK(strstr(fa, "\n#pragma GCC diagnostic push\nchar *s = \"a  b\";\n"));
	free(fb);
	/* A change of code, of a literal or of a marker's flags is seen. */
	CHECK(cpp_differ("# 0 \"k.c\"\nint y = 3;\n", "# 0 \"k.c\"\nint y = 2;\n"));
	CHECK(cpp_differ("char *s = \"a b\";\n", "char *s = \"a  b\";\n"));
	CHECK(cpp_differ("# 1 \"a.h\" 1\n", "# 1 \"a.h\" 3\n"));
	CHECK(cpp_is("char c = ' '; int  a;\n", "char c = ' '; int a;\n"));
	/* An escaped quote stays inside its literal. */
	CHECK(cpp_is("char *e = \"q\\\"  x\";\n", "char *e = \"q\\\"  x\";\n"));
	/* #line form, and a marker-like line that is not one, kept as text. */
	CHECK(cpp_is("#line 7 \"b.h\"\n#define X 1\n# x \"y\"\n", "# 0 \"b.h\"\n#define X 1\n# x \"y\"\n"));
	CHECK(cpp_is("no newline at the end", "no newline at the end\n"));
	free(fa);
}


/* cppfilter_main as ccache runs it: `tbisect-cpp sh -c 'cat IN > OUT' sh IN
 * -o OUT` stands for a preprocessor writing its -o file. */
static int cpp_main_on(const char *in, const char *out, const char *script)
{
	char *argv[] = { CPPFILTER_NAME, "sh", "-c", (char *)script, "sh", (char *)in, "-o",
			 (char *)out, NULL };

	return cppfilter_main(8, argv);
}

static void test_cppfilter_file(void)
{
	const char *text = "# 0 \"k.c\"\n# 1 \"a.h\" 1\n\n\n  int   x;\n# 9 \"a.h\"\n\n"
			   "# 2 \"k.c\" 2\nint y = 2;\n";
	char *in = write_tmp("cpp.in", text, strlen(text)), *want = cpp_filtered(text);
	char *out = xasprintf("%s/cpp.out", tmpdir), *got = NULL, *e;
	size_t len = 0;

	CHECK(cpp_main_on(in, out, "cat \"$1\" > \"$3\"") == 0);
	CHECK(util_read_file(out, &got, &len) == 0 && got && len == strlen(want) &&
	      !strcmp(got, want));
	free(got);
	got = NULL;
	/* An empty output stays empty. */
	e = write_tmp("cpp.empty", "", 0);
	CHECK(cpp_main_on(e, out, "cat \"$1\" > \"$3\"") == 0);
	CHECK(util_read_file(out, &got, &len) == 0 && len == 0);
	free(got);
	/* A preprocessor that fails: its status, not a filtered file. */
	CHECK(cpp_main_on(in, out, "exit 3") == 3);
	free(e);
	free(out);
	free(want);
	free(in);
}

/* The benchmarks' parsers on the output their programs print. */
static void test_workload(void)
{
	static const struct {
		const char *bench, *out;
		double want;
	} cases[] = {
		{ "hackbench", "Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)\n"
			       "Each sender will pass 50 messages of 100 bytes\nTime: 1.744\n", 1.744 },
		{ "iperf3", "[  5]   0.00-2.00   sec  1.84 GBytes  7922 Mbits/sec    0             sender\n"
			    "[  5]   0.00-2.00   sec  1.84 GBytes  7878 Mbits/sec                  receiver\n", 7878 },
		{ "cyclictest", "# /dev/cpu_dma_latency set to 0us\nERROR: shm_open No such file or directory\n"
				"T: 0 (  353) P:80 I:1000 C:   2000 Min:   4012 Act: 4210 Avg: 4305 Max:  7120\n", 4305 },
	};
	struct conf c;
	struct workload w;
	struct vm_result r;
	char why[256];
	double v;
	size_t i;

	conf_init(&c);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		free(c.bench);
		c.bench = xstrdup(cases[i].bench);
		CHECK(workload_init(&w, &c) == 0);
		CHECK(workload_parse(&w, cases[i].out, &v, why, sizeof(why)) == 0 && v == cases[i].want);
		CHECK(w.lower_better == workload_lower(&c) && !w.legacy);
		workload_release(&w);
	}
	CHECK(workload_lower(&c) == 1);	/* cyclictest: a latency */
	free(c.bench);
	c.bench = xstrdup("hackbench");
	CHECK(workload_init(&w, &c) == 0);
	/* The figure from the TBISECT-OUT lines only; a failed benchmark and
	 * output without the figure say what they read. */
	vm_parse_console("TBISECT-BEGIN\nTime: 9.0\nTBISECT-OUT Each sender\r\nTBISECT-OUT Time: 2.5\r\n"
			 "TBISECT-RESULT rc=0\n", 0, &w, &r);
	CHECK(r.status == VM_OK && r.value == 2.5);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-OUT Time: 2.5\nTBISECT-OUT hackbench: fork failed\n"
			 "TBISECT-RESULT rc=1\n", 0, &w, &r);
	CHECK(r.status == VM_BAD_RESULT && strstr(r.reason, "exited 1: hackbench: fork failed"));
	vm_parse_console("TBISECT-BEGIN\nTBISECT-OUT Tim: 2.5\nTBISECT-RESULT rc=0\n", 0, &w, &r);
	CHECK(r.status == VM_NO_FIGURE && strstr(r.reason, "Tim: 2.5"));
	vm_parse_console("TBISECT-BEGIN\nTBISECT-OUT Time: 0\nTBISECT-RESULT rc=0\n", 0, &w, &r);
	CHECK(r.status == VM_NO_FIGURE && strstr(r.reason, "not a number > 0"));
	workload_release(&w);
	/* tbench reads its own result line, as before BENCH. */
	free(c.bench);
	c.bench = xstrdup("tbench");
	CHECK(workload_init(&w, &c) == 0 && w.legacy && !workload_lower(&c));
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT rc=0 mbps=81.1\n", 0, &w, &r);
	CHECK(r.status == VM_OK && r.value == 81.1);
	workload_release(&w);
	/* custom: its keys, its direction, a regex without a group refused. */
	free(c.bench);
	c.bench = xstrdup("custom");
	CHECK(workload_init(&w, &c) == -1);	/* no CUSTOM_COMMAND */
	c.custom_command = xstrdup("/bin/true");
	CHECK(workload_init(&w, &c) == -1);	/* no CUSTOM_REGEX */
	c.custom_regex = xstrdup("ops [0-9]+");
	CHECK(workload_init(&w, &c) == -1);	/* no group */
	free(c.custom_regex);
	c.custom_regex = xstrdup("took ([0-9.]+) ms");
	free(c.custom_better);
	c.custom_better = xstrdup("lower");
	CHECK(workload_init(&w, &c) == 0 && w.lower_better && workload_lower(&c));
	CHECK(workload_parse(&w, "warm\ntook 12.5 ms\ntook 3 ms\n", &v, why, sizeof(why)) == 0 && v == 12.5);
	CHECK(workload_parse(&w, "took 1e3x ms\n", &v, why, sizeof(why)) == -1);
	workload_release(&w);
	CHECK(conf_set(&c, "-s", "BENCH=nosuchbench") == 0 && workload_check_conf(&c) == -1);
	CHECK(conf_set(&c, "-s", "CUSTOM_BETTER=smaller") == -1);
	CHECK(conf_set(&c, "-s", "BENCH=iperf3") == 0 && workload_check_conf(&c) == 0);
	conf_release(&c);
}

/* A lower-is-better figure (a time): the rise is the regression, found
 * at every position; a fall is "BAD better", nothing to bisect. */
static void test_bisect_lower_better(void)
{
	struct bisect_params p;
	int len = 17, c, ok = 1;
	double change, pval;
	const double base[] = { 100, 100.1 }, slow[] = { 103, 103.1 }, fast[] = { 97, 97.1 };

	bisect_params_default(&p);
	p.lower_better = 1;
	for (c = 1; c < len; c++) {
		struct sim s;
		struct bisect b;
		struct bisect_result res;

		setup_sim(&s, len, c, -0.05, 0, (unsigned long)c);	/* +5%: slower */
		bisect_init(&b, &sim_ops, &s, len, &p);
		bisect_run(&b, 0, len - 1, &res);
		ok &= res.status == BISECT_FOUND && res.culprit == c && res.change > 0;
		bisect_result_release(&res);
		bisect_release(&b);
		sim_release(&s);
	}
	CHECK(ok);
	{
		struct sim s;
		struct bisect b;
		struct bisect_result res;

		setup_sim(&s, len, 5, 0.05, 0, 1);	/* -5%: faster */
		bisect_init(&b, &sim_ops, &s, len, &p);
		bisect_run(&b, 0, len - 1, &res);
		CHECK(res.status == BISECT_NOT_SLOWER && res.change < 0);
		bisect_result_release(&res);
		bisect_release(&b);
		sim_release(&s);
	}
	CHECK(bisect_worse(&p, 0.02) && !bisect_worse(&p, -0.02));
	CHECK(check_verdict(&p, base, 2, slow, 2, &change, &pval) == CHECK_REGRESSED && change > 0);
	CHECK(check_verdict(&p, base, 2, fast, 2, &change, &pval) == CHECK_IMPROVED);
	p.lower_better = 0;
	CHECK(check_verdict(&p, base, 2, slow, 2, &change, &pval) == CHECK_IMPROVED);
}


/* impact's table: a column per benchmark, worse by each one's direction,
 * through report.json and back. */
static void test_report_impact(void)
{
	struct report r, back;
	struct sbuf sb;
	char *path = xasprintf("%s/impact.json", tmpdir);

	report_init(&r, "impact");
	report_set(&r, REPORT_BENCH, "impact: each culprit on every benchmark");
	report_add_bench(&r, "tbench", "MB/s", 0);
	report_add_bench(&r, "hackbench", "s", 1);
	report_add_change(&r, "5", "sched: hrtick", 109.056, 101.276, -0.0713);
	report_set_impact(&r, 0, 0, -0.0713, 0);
	report_set_impact(&r, 0, 1, 0.0413, 0);
	report_add_change(&r, "16", "net: tso", 98.0, 98.0, 0);
	report_set_impact(&r, 1, 1, -0.0038, 1);	/* tbench not measured */
	CHECK(report_save(&r, path) == 0 && report_load(&back, path) == 0);
	CHECK(back.nbench == 2 && back.nchg == 2 && back.bench[1].lower_better && !back.bench[0].lower_better);
	sbuf_init(&sb);
	report_format(&back, REPORT_MARKDOWN, &sb);
	CHECK(strstr(sb.buf, "## impact: ") != NULL);
	CHECK(strstr(sb.buf, "| culprit | tbench (MB/s, higher better) | hackbench (s, lower better) |\n|---|---:|---:|\n"));
	CHECK(strstr(sb.buf, "| 5 sched: hrtick | -7.13% worse | +4.13% worse |\n"));
	CHECK(strstr(sb.buf, "| 16 net: tso | not measured | -0.38% better (runs overlap) |\n"));
	sbuf_release(&sb);
	report_release(&back);
	report_release(&r);
	free(path);
}

/* CPU 0 writes a, CPU 1 writes b, twice in turn. */
static void two_writers(struct cachesim *cs, uint64_t a, uint64_t b)
{
	int k;

	for (k = 0; k < 4; k++)
		cachesim_access(cs, k & 1, CACHESIM_WRITE, k & 1 ? b : a, 8);
}

/* The cache model against counts worked out by hand. */
static void test_cachesim(void)
{
	struct cachesim cs;
	struct cachesim_geom g, small, bad;
	struct cachesim_weights w;
	uint64_t a;

	cachesim_geom_default(&g);
	cachesim_weights_default(&w);
	/* Sequential 8-byte reads over 64 KiB: a miss per line, all to
	 * memory; again: the 32 KiB L1 holds none of it any more (LRU), the
	 * last level all of it. */
	CHECK(cachesim_init(&cs, &g, 1) == 0);
	for (a = 0; a < 65536; a += 8)
		cachesim_access(&cs, 0, CACHESIM_READ, 0x100000 + a, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_ACC) == 8192);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 1024);
	CHECK(cachesim_total(&cs, CACHESIM_LL_MISS) == 1024);
	for (a = 0; a < 65536; a += 8)
		cachesim_access(&cs, 0, CACHESIM_READ, 0x100000 + a, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 2048);
	CHECK(cachesim_total(&cs, CACHESIM_LL_ACC) == 2048);
	CHECK(cachesim_total(&cs, CACHESIM_LL_MISS) == 1024);
	/* A stride past the line: every access a miss. */
	for (a = 0; a < 16384; a += 128)
		cachesim_access(&cs, 0, CACHESIM_READ, 0x800000 + a, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 2048 + 128);
	/* Across a line boundary: one access, one miss, both lines then in. */
	cachesim_access(&cs, 0, CACHESIM_READ, 0x900000 + 60, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_ACC) == 16384 + 128 + 1);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 2048 + 128 + 1);
	cachesim_access(&cs, 0, CACHESIM_READ, 0x900000, 8);
	cachesim_access(&cs, 0, CACHESIM_READ, 0x900000 + 64, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 2048 + 128 + 1);
	/* Instructions have their own L1: a fetch of a line the data side
	 * holds misses there, and hits the last level. */
	CHECK(cachesim_access(&cs, 0, CACHESIM_FETCH, 0x900000, 4) == CACHESIM_HIT_LL);
	CHECK(cachesim_total(&cs, CACHESIM_I1_MISS) == 1);
	CHECK(cachesim_total(&cs, CACHESIM_LL_MISS) == 1024 + 128 + 1);	/* the straddling access: one */
	cachesim_release(&cs);

	/* What an access returns, and a block's fetches: 10 instructions over
	 * 100 bytes from 0x20030 cover 3 lines, one fetch each that misses,
	 * and 7 fetches that hit; run again, all 10 hit. */
	CHECK(cachesim_init(&cs, &g, 1) == 0);
	CHECK(cachesim_access(&cs, 0, CACHESIM_READ, 0x10000, 8) == CACHESIM_MEMORY);
	CHECK(cachesim_access(&cs, 0, CACHESIM_READ, 0x10008, 8) == CACHESIM_HIT_L1);
	{
		unsigned m1, m2;

		cachesim_fetch(&cs, 0, 0x20030, 100, 10, &m1, &m2);
		CHECK(m1 == 3 && m2 == 3);
		CHECK(cachesim_total(&cs, CACHESIM_I1_ACC) == 10);
		CHECK(cachesim_total(&cs, CACHESIM_I1_MISS) == 3);
		cachesim_fetch(&cs, 0, 0x20030, 100, 10, &m1, &m2);
		CHECK(m1 == 0 && m2 == 0);
		CHECK(cachesim_total(&cs, CACHESIM_I1_ACC) == 20);
		CHECK(cachesim_total(&cs, CACHESIM_LL_MISS) == 1 + 3);
	}
	cachesim_release(&cs);

	/* LRU, exactly: 2 sets of 2 ways; lines 0, 2 and 4 share set 0.  A B A
	 * C evicts B (least recent), not A. */
	small = g;
	small.d1 = (struct cachesim_level){ 256, 2, 64 };
	CHECK(cachesim_init(&cs, &small, 1) == 0);
	cachesim_access(&cs, 0, CACHESIM_READ, 0, 8);
	cachesim_access(&cs, 0, CACHESIM_READ, 128, 8);
	cachesim_access(&cs, 0, CACHESIM_READ, 0, 8);
	cachesim_access(&cs, 0, CACHESIM_READ, 256, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 3);
	cachesim_access(&cs, 0, CACHESIM_READ, 0, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 3);
	cachesim_access(&cs, 0, CACHESIM_READ, 128, 8);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 4);
	cachesim_release(&cs);

	/* False sharing: two CPUs writing one line in turn miss every time,
	 * each write taking the line from the other; on two lines, only the
	 * first touches miss. */
	CHECK(cachesim_init(&cs, &g, 2) == 0);
	two_writers(&cs, 0x4000, 0x4008);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 4);
	CHECK(cachesim_total(&cs, CACHESIM_INVAL) == 3);
	CHECK(cachesim_total(&cs, CACHESIM_LL_MISS) == 1);
	/* 4 accesses: no L1 hit, 3 last-level hits, 1 from memory. */
	CHECK(cachesim_cycles(&cs, &w) == 3 * 5 + 35);
	cachesim_release(&cs);
	CHECK(cachesim_init(&cs, &g, 2) == 0);
	two_writers(&cs, 0x4000, 0x4040);
	CHECK(cachesim_total(&cs, CACHESIM_D1_MISS) == 2);
	CHECK(cachesim_total(&cs, CACHESIM_INVAL) == 0);
	CHECK(cachesim_cycles(&cs, &w) == 2 * 1 + 2 * 35);
	cachesim_release(&cs);

	/* CACHE_GEOMETRY and CACHE_WEIGHTS: the default's form parses to the
	 * default; anything else of the form or out of order is refused. */
	CHECK(cachesim_geom_parse("32768/8/64:32768/8/64:8388608/16/64", &small) == 0 &&
	      !memcmp(&small, &g, sizeof(g)));
	CHECK(cachesim_geom_parse("65536/4/64:32768/8/64:1048576/16/64", &small) == 0 &&
	      small.i1.size == 65536 && small.i1.ways == 4 && small.ll.size == 1048576);
	CHECK(cachesim_geom_parse("32768/8/64:32768/8/64:8388608/16", &bad) < 0);
	CHECK(cachesim_geom_parse("32768/8/64:32768/8/64:8388608/16/64:1/1/1", &bad) < 0);
	CHECK(cachesim_geom_parse("32768/8/64:32768/8/64:8388608/16/-64", &bad) < 0);
	CHECK(cachesim_geom_parse("32768/8/64:32768/8/64:99999999999999999999/16/64", &bad) < 0);
	CHECK(cachesim_geom_parse("32k/8/64:32768/8/64:8388608/16/64", &bad) < 0);
	CHECK(cachesim_weights_parse("1,5,35", &w) == 0 && w.l1 == 1 && w.ll == 5 && w.mem == 35);
	CHECK(cachesim_weights_parse("1,10,100", &w) == 0 && w.ll == 10 && w.mem == 100);
	CHECK(cachesim_weights_parse("1,5", &w) < 0 && cachesim_weights_parse("1,5,3.5", &w) < 0 &&
	      cachesim_weights_parse("0,5,35", &w) < 0 && cachesim_weights_parse("1,50,35", &w) < 0 &&
	      cachesim_weights_parse(" 1,5,35", &w) < 0);
	cachesim_weights_default(&w);

	/* Geometries refused: 3 sets, a 48-byte line, levels of two lines. */
	bad = g;
	bad.d1 = (struct cachesim_level){ 1536, 8, 64 };
	CHECK(cachesim_init(&cs, &bad, 1) < 0);
	bad = g;
	bad.i1.line = bad.d1.line = bad.ll.line = 48;
	CHECK(cachesim_init(&cs, &bad, 1) < 0);
	bad = g;
	bad.ll.line = 128;
	CHECK(cachesim_init(&cs, &bad, 1) < 0);
	CHECK(cachesim_init(&cs, &g, 0) < 0);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "cppfilter: comments and blank lines vanish; code, literals, pragmas, files stay", test_cppfilter },
	{ "cppfilter: the preprocessor's -o file becomes its filtered text, an empty one stays empty, a failing preprocessor's status passes through", test_cppfilter_file },
	{ "tree: a state name that two meanings give different states is refused (tag '2', tag 'head')", test_resolve_ambiguous },
	{ "kbuild: the objects a .config selects, by kbuild's lists, subdirectories and composites", test_kbuild_objects },
	{ "tree: git bisect run's build directory beside a checkout under WORKDIR, else keyed", test_checkout_layout },
	{ "profile: symbols at boundaries, user space and unknown rows, window per operation, rows sum to totals", test_profile },
	{ "profile: user blocks resolve to the binary holding their code, the rest is unmatched", test_profile_user },
	{ "culprits: an end that cannot be measured is said (1); runs per state: one rule; sched feature names", test_culprits_ends },
	{ "conf: keys, values, errors with their lines, -s overrides", test_conf },
	{ "conf: long lines, comments after values, huge files, line breaks in -s, RUNS_MIN > RUNS_MAX, relative XDG_CACHE_HOME refused or ignored", test_conf_bad },
	{ "series: parse, unsafe names, subjects, missing files", test_series },
	{ "console: results, panics, bad results, probes", test_console },
	{ "image: ldd output parsed into library paths", test_ldd },
	{ "store: format, parse, torn and corrupt lines, disk full", test_store },
	{ "store: a record with an unparsable number is corrupt", test_store_strict },
	{ "store: every record after a NUL stretch is read, the stretch counted once; impossible values are corrupt", test_store_nul },
	{ "export: csv quotes subjects with quotes and commas (libcsv reads them back)", test_export_csv },
	{ "export: jsonl objects parse with jansson, tsv header has no check column", test_export_jsonl },
	{ "stats: median, Mann-Whitney, Hodges-Lehmann, z, MDE", test_stats },
	{ "bisect: every culprit position 2..64 states, deterministic", test_bisect_positions_det },
	{ "bisect: the engine prints nothing; its rounds reach the backend's trace", test_bisect_trace },
	{ "bisect: every culprit position 2..64 states, 2% noise", test_bisect_positions_noisy },
	{ "run: several children at once, deadlines, watched commands", test_run_many },
	{ "bisect: side by side (width 2, 3) same culprits in fewer rounds", test_bisect_parallel },
	{ "bisect and check: a lower-is-better figure regresses when it rises", test_bisect_lower_better },
	{ "report: the impact table, each benchmark by its direction, saved and loaded", test_report_impact },
	{ "workload: each benchmark's figure parsed from its output; custom keys checked", test_workload },
	{ "bisect: skips, ambiguity, no diff, faster BAD, broken end, noise, abort/resume", test_bisect_cases },
	{ "culprits: regression, second regression and fix found", test_culprits },
	{ "culprits: icount lists changes above the floor, under the threshold marked small", test_culprits_floor },
	{ "bisect: other steps its probes straddle are noted, by culprits' rule", test_bisect_other_changes },
	{ "vm: guest CPU count and cgroup depth parsed; a mismatch with SMP fails the run", test_guest_check },
	{ "store: lines of the formats before cycles, bench, kerrors and guest_cpus read with their defaults", test_store_v1 },
	{ "store: with cycles set, samples are the runs' estimated cycles, runs without passed over", test_store_cycles },
	{ "vm: QEMU version parsed strictly; SMP under icount refused before QEMU 8.1", test_qemu_version },
	{ "bench: icount with SMP > 1 is seeded, judged by the statistical rule, keyed apart", test_seeded },
	{ "check: verdicts, baseline format, incompatibility, JUnit", test_check },
	{ "check: baseline state index must be a whole number >= 0", test_baseline_strict },
	{ "check: nightly core over the simulated backend", test_check_core },
	{ "sim: two labels from one line stay distinct", test_sim_labels },
	{ "release: Debian versions sort oldest first, across series; tags and series", test_release_sort },
	{ "kcfg: configurations parsed strictly and compared; the steps from one to another each come closer, a choice's members together", test_kcfg },
	{ "build: fragment options missing from a resolved .config are named", test_missing_options },
	{ "hist: git log lines parsed, merges and tab-free subjects", test_hist_parse_log },
	{ "hist: culprit on the first-parent line, no descent", test_hist_mainline },
	{ "hist: culprit inside a merged branch, not the merge", test_hist_branch },
	{ "hist: nested merges descend two levels", test_hist_nested },
	{ "hist: both sides fast, merge slow: the merge is the culprit", test_hist_merge_itself },
	{ "hist: skipped commits on the main line and in the branch", test_hist_skips },
	{ "distcc: client log counted: remote, local, fallbacks; cpp lines are not compiles", test_distcc_count },
	{ "report: saved and loaded, text and markdown, the command quoted", test_report },
	{ "bisect: time left from build and run costs, full first build, side by side; wide builds apart", test_time_left },
	{ "progress: count, percent, elapsed and time left; unknown and overrun counts", test_progress_format },
	{ "build: history keeps full compiles, builds served from ccache and incremental ones apart", test_build_history },
	{ "plot: the title names the largest changes, largest first", test_plot_largest },
	{ "cachesim: misses of sequential, strided, straddling and LRU patterns; a block's fetches; false sharing between two CPUs; cycles; geometries and weights parsed, bad ones refused", test_cachesim },
	{ "profile: blocks' misses per function per operation; with misses, rows sort by estimated cycles", test_profile_misses },
	{ "profile: the plugin's cache counts, windows summed, the cost from the windows or the whole run; malformed counts refused", test_profile_cache },
};

int main(void)
{
	const char *errpath = getenv("UNIT_STDERR");
	int passed = 0, failed = 0;
	size_t i;

	if (errpath && !freopen(errpath, "w", stderr))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tbisect-unit.%ld", (long)getpid());
	util_mkdir_p(tmpdir);
	util_quiet = 1;
	printf("1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		checks_failed = 0;
		tests[i].fn();
		printf("%s %zu - %s\n", checks_failed ? "not ok" : "ok", i + 1, tests[i].name);
		if (checks_failed)
			failed++;
		else
			passed++;
	}
	util_rm_rf(tmpdir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
