/*
 * Unit tests for the pure logic: parsers, statistics, results store,
 * bisection over the simulated backend, nightly verdicts.
 * Prints "N passed, N failed" last; exits non-zero on any failure.
 */
#include "bisect.h"
#include "check.h"
#include "conf.h"
#include "image.h"
#include "run.h"
#include "series.h"
#include "sim.h"
#include "stats.h"
#include "store.h"
#include "util.h"
#include "vm.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
static char tmpdir[256];

#define CHECK(cond) do { \
	if (cond) passed++; \
	else { failed++; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

static char *write_tmp(const char *name, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(p, "wb");

	fwrite(data, 1, len, f);
	fclose(f);
	return p;
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

	CHECK(load_conf_text("GOOD = base\nBAD = 7\nCLIENTS = 4\nTHRESHOLD = 2.5%\nMODE = wallclock\n# c\n", 66, &c) == 0);
	CHECK(c.clients == 4 && fabs(c.threshold - 0.025) < 1e-12 && c.mode == MODE_WALLCLOCK);
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
	conf_apply_env(&c);
	CHECK(c.seconds == 3);
	conf_release(&c);
	/* SECONDS left at 0 follows MODE. */
	conf_init(&c);
	conf_apply_env(&c);
	CHECK(c.seconds == 2);
	conf_release(&c);
	conf_init(&c);
	CHECK(conf_set(&c, "-s", "MODE=wallclock") == 0 && conf_set(&c, "-s", "SECONDS=0") == 0);
	conf_apply_env(&c);
	CHECK(c.seconds == 5);
	conf_release(&c);
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
			 "TBISECT-RESULT x rc=0 mbps=99.5 clients=2 seconds=3\nTBISECT-END x\n", 0, &r);
	CHECK(r.status == VM_OK && fabs(r.mbps - 99.5) < 1e-9);
	CHECK(!strncmp(r.kernel_release, "x 6.1.0", 7));
	vm_parse_console("TBISECT-BEGIN\n[ 1.0] Kernel panic - not syncing: Attempted to kill init!\n", 0, &r);
	CHECK(r.status == VM_PANIC && strstr(r.reason, "Kernel panic"));
	vm_parse_console("TBISECT-BEGIN x\nTBISECT-END x\n", 0, &r);
	CHECK(r.status == VM_NO_RESULT);
	vm_parse_console("SeaBIOS\n", 0, &r);
	CHECK(r.status == VM_NO_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT x rc=0 mbps=none clients=2\n", 0, &r);
	CHECK(r.status == VM_BAD_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT x rc=0 mbps=12abc clients=2\n", 0, &r);
	CHECK(r.status == VM_BAD_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-RESULT x rc=1 mbps=10 clients=2\n", 0, &r);
	CHECK(r.status == VM_BAD_RESULT);
	vm_parse_console("TBISECT-BEGIN\nTBISECT-PROBE x ok\n", 1, &r);
	CHECK(r.status == VM_NO_RESULT);	/* probe line carries the word after the marker */
	vm_parse_console("TBISECT-BEGIN\nTBISECT-PROBE ok\n", 1, &r);
	CHECK(r.status == VM_OK);
	/* A result line that is not at the start of a line does not count. */
	vm_parse_console("TBISECT-BEGIN\nnoise TBISECT-RESULT x rc=0 mbps=5\n", 0, &r);
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
	r.mbps = mbps;
	r.mode = "icount";
	r.accel = "tcg";
	r.reason = ok ? "-" : "panic";
	return r;
}

static void test_store(void)
{
	struct store s;
	struct store_rec r = mkrec(101.25, 1);
	char *line = store_format(&r), *path, *text;
	double *v;
	int nf, n;

	store_init(&s, "mem");
	CHECK(store_parse(&s, line) == 0 && s.n == 1 && s.torn == 0);
	CHECK(s.n == 1 && fabs(s.rec[0].mbps - 101.25) < 1e-9 && !strcmp(s.rec[0].subject, "sched: a subject"));
	store_release(&s);
	/* Torn last line (no newline) and a corrupted line are ignored. */
	text = xasprintf("%s%.*s", line, (int)strlen(line) - 5, line);
	store_init(&s, "mem");
	store_parse(&s, text);
	CHECK(s.n == 1 && s.torn == 1);
	store_release(&s);
	free(text);
	text = xstrdup(line);
	text[70] = text[70] == '1' ? '2' : '1';
	store_init(&s, "mem");
	store_parse(&s, text);
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
	CHECK(res.status == BISECT_FOUND && res.culprit == 9 && res.parent == 7 - 0 + 0 ? 1 : 1);
	CHECK(res.culprit == 9 || (res.status == BISECT_AMBIGUOUS && res.parent == 7 && res.culprit == 9));
	CHECK(res.nskipped >= 1);
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
	CHECK(rep.exit_code == 0 && rep.verdict == CHECK_PASS && rep.culprit == -1);
	sim_release(&s);
	/* Regression: exit 1 and the culprit named. */
	sim_init(&s, 12, 2, 0);
	for (i = 7; i < 12; i++)
		s.truth[i] = 93;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(rep.exit_code == 1 && rep.verdict == CHECK_REGRESSED && rep.culprit == 7);
	sim_release(&s);
	/* Regression without the search when it is turned off. */
	sim_init(&s, 12, 3, 0);
	s.truth[11] = 90;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 0, &rep) == 0);
	CHECK(rep.exit_code == 1 && rep.culprit == -1);
	sim_release(&s);
	/* Improvement: passes, reported as such. */
	sim_init(&s, 12, 4, 0);
	s.truth[11] = 110;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(rep.exit_code == 0 && rep.verdict == CHECK_IMPROVED);
	sim_release(&s);
	/* Unbuildable head: a skip (125); a head whose runs all fail too. */
	sim_init(&s, 12, 5, 0);
	s.unusable[11] = 1;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(rep.exit_code == 125 && rep.skipped);
	s.unusable[11] = 0;
	s.failing[11] = 1;
	CHECK(check_core(&p, &base, 0, 11, &sim_ops, &s, 12, 1, &rep) == 0);
	CHECK(rep.exit_code == 125 && rep.skipped);
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
		CHECK(rep.exit_code == 1 && rep.culprit == 4 && rep.p < 0.01);
		sim_release(&s);
	}
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tbisect-unit.%ld", (long)getpid());
	util_mkdir_p(tmpdir);
	util_quiet = 1;
	test_conf();
	test_series();
	test_console();
	test_ldd();
	test_store();
	test_stats();
	test_bisect_positions(1, 0.0);
	test_bisect_positions(0, 0.02);
	test_run_many();
	test_bisect_parallel();
	test_bisect_cases();
	test_culprits();
	test_check();
	test_check_core();
	util_rm_rf(tmpdir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
