/* workload: the benchmarks a guest can run, their units, directions and parsers. */
#include "workload.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct builtin {
	const char *name, *metric, *unit;
	int lower_better;
	int seeded;		/* not exact under unrelated perturbations */
	const char *const *files;	/* src, dst, package, program?; NULL-ended */
	const char *script;	/* /bench/run: $1 seconds, $2 clients */
	const char *regex;
};

static const char *const tbench_files[] = {
	"/usr/bin/tbench", "bin/tbench", "dbench", "p",
	"/usr/bin/tbench_srv", "bin/tbench_srv", "dbench", "p",
	"/usr/share/dbench/client.txt", "usr/share/dbench/client.txt", "dbench", "",
	NULL,
};
static const char *const hackbench_files[] = { "/usr/bin/hackbench", "bin/hackbench", "rt-tests", "p", NULL };
static const char *const iperf3_files[] = { "/usr/bin/iperf3", "bin/iperf3", "iperf3", "p", NULL };
static const char *const cyclictest_files[] = { "/usr/bin/cyclictest", "bin/cyclictest", "rt-tests", "p", NULL };

/* Run lengths follow SECONDS (2 s in icount mode, 5 s in wall-clock):
 * hackbench's loops scale with it (50 loops take about 1.2 s of guest
 * time), the others run that long.  iperf3 runs over a loopback of
 * 2.6.24's MTU, 16436 (64 KiB since 3.6): segments that large are what
 * TSO/GSO saves work on (+43% at state 16 against 15, measured), while
 * 64 KiB frames leave it nothing to do (-0.15%). */
static const struct builtin builtins[] = {
	{ "tbench", "throughput", "MB/s", 0, 0, tbench_files, NULL, "mbps=([0-9.]+)" },
	{ "hackbench", "time", "s", 1, 1, hackbench_files,
	  "hackbench -g 4 -l $((25 * $1))\n", "^Time: *([0-9.]+)" },
	{ "iperf3", "throughput", "Mbit/s", 0, 1, iperf3_files,
	  "ip link set lo mtu 16436\niperf3 -s -D -1 >/dev/null 2>&1\nsleep 1\n"
	  "iperf3 -c 127.0.0.1 -t \"$1\" -l 128K -f m\n",
	  "([0-9.]+) Mbits/sec.*receiver" },
	{ "cyclictest", "average wakeup latency", "ns", 1, 1, cyclictest_files,
	  "cyclictest -q -N -m -p 80 -t 1 -i 1000 -D \"$1\"\n", "Avg: *([0-9]+)" },
};

const char *workload_names(void)
{
	return "tbench | hackbench | iperf3 | cyclictest | custom";
}

/* The built-in benchmark called name, or NULL (custom, or unknown). */
static const struct builtin *find_builtin(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(name, builtins[i].name))
			return &builtins[i];
	return NULL;
}

int workload_known(const char *name)
{
	return find_builtin(name) || !strcmp(name, "custom");
}

static void add_file(struct workload *w, const char *src, const char *dst, const char *package,
		     enum workload_kind kind)
{
	w->files = xrealloc(w->files, (size_t)(w->nfiles + 1) * sizeof(*w->files));
	w->files[w->nfiles++] = (struct workload_file){ xstrdup(src), xstrdup(dst), xstrdup(package),
							 kind };
}

static int compile_regex(struct workload *w)
{
	char msg[128];
	int r = regcomp(&w->re, w->regex, REG_EXTENDED | REG_NEWLINE);

	if (r == 0 && w->re.re_nsub >= 1)
		return 0;
	if (r == 0) {
		regfree(&w->re);
		return error("benchmark %s: regular expression '%s' has no group () around the figure",
			     w->name, w->regex);
	}
	regerror(r, &w->re, msg, sizeof(msg));
	return error("benchmark %s: bad regular expression '%s': %s", w->name, w->regex, msg);
}

static int init_custom(struct workload *w, const struct conf *c)
{
	if (!c->custom_command || !*c->custom_command)
		return error("BENCH = custom needs CUSTOM_COMMAND (the program or script to run in the guest)");
	if (!c->custom_regex || !*c->custom_regex)
		return error("BENCH = custom needs CUSTOM_REGEX (its first group () is the figure)");
	w->metric = xstrdup("figure");
	w->unit = xstrdup(c->custom_unit);
	w->lower_better = !strcmp(c->custom_better, "lower");
	w->regex = xstrdup(c->custom_regex);
	w->script = xstrdup("/bench/custom \"$1\" \"$2\"\n");
	add_file(w, c->custom_command, "bench/custom", "(CUSTOM_COMMAND)", WORKLOAD_ANY);
	return 0;
}

int workload_check_conf(const struct conf *c)
{
	if (workload_known(c->bench))
		return 0;
	if (c->bench_line)
		return error("%s:%d: bad value for BENCH (benchmark: %s): '%s'", c->path, c->bench_line,
			     workload_names(), c->bench);
	return error("bad value for BENCH (benchmark: %s): '%s'", workload_names(), c->bench);
}

/* COST = cycles: what is judged is the cache model's estimate, lower
 * better; the benchmark's own figure is kept beside it. */
static void judge_cost(struct workload *w, const struct conf *c)
{
	w->own_unit = xstrdup(w->unit);
	if (c->cost != COST_CYCLES)
		return;
	free(w->metric);
	free(w->unit);
	w->metric = xstrdup("estimated cycles (cache model)");
	w->unit = xstrdup("cycles");
	w->lower_better = 1;
}

int workload_init(struct workload *w, const struct conf *c)
{
	const struct builtin *b = find_builtin(c->bench);
	const char *const *f;

	memset(w, 0, sizeof(*w));
	if (!b && strcmp(c->bench, "custom"))
		return error("unknown benchmark '%s' (BENCH: %s)", c->bench, workload_names());
	w->name = xstrdup(c->bench);
	if (b) {
		w->metric = xstrdup(b->metric);
		w->unit = xstrdup(b->unit);
		w->lower_better = b->lower_better;
		w->legacy = !b->script;
		w->script = b->script ? xstrdup(b->script) : NULL;
		w->regex = xstrdup(b->regex);
		for (f = b->files; *f; f += 4)
			add_file(w, f[0], f[1], f[2], *f[3] == 'p' ? WORKLOAD_PROGRAM : WORKLOAD_DATA);
	} else if (init_custom(w, c) < 0) {
		goto fail;
	}
	if (compile_regex(w) < 0)
		goto fail;
	judge_cost(w, c);
	return 0;
fail:
	free(w->regex);
	w->regex = NULL;
	workload_release(w);
	return -1;
}

int workload_check_host(const struct workload *w)
{
	int i;

	for (i = 0; i < w->nfiles; i++) {
		if (util_exists(w->files[i].src))
			continue;
		if (*w->files[i].package == '(')
			return error("%s is missing (CUSTOM_COMMAND)", w->files[i].src);
		return error("%s is missing (benchmark %s); install it with: apt-get install %s",
			     w->files[i].src, w->name, w->files[i].package);
	}
	return 0;
}

int workload_parse(const struct workload *w, const char *output, double *v, char *why,
		   size_t size)
{
	regmatch_t m[2];
	char *num;
	int ret = -1;

	if (regexec(&w->re, output, 2, m, 0) != 0 || m[1].rm_so < 0) {
		snprintf(why, size, "no match for /%s/ in the output: '%.200s'", w->regex, output);
		return -1;
	}
	num = xstrndup(output + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
	if (util_parse_double(num, v) < 0 || !isfinite(*v) || !(*v > 0))
		snprintf(why, size, "/%s/ matched '%s', not a number > 0", w->regex, num);
	else
		ret = 0;
	free(num);
	return ret;
}

int workload_seeded(const struct conf *c)
{
	const struct builtin *b = find_builtin(c->bench);

	return b ? b->seeded : !strcmp(c->bench, "custom") && c->custom_seeded;
}

int workload_lower(const struct conf *c)
{
	const struct builtin *b = find_builtin(c->bench);

	if (c->cost == COST_CYCLES)
		return 1;
	return b ? b->lower_better : !strcmp(c->bench, "custom") && !strcmp(c->custom_better, "lower");
}

const char *workload_direction(const struct workload *w)
{
	return w->lower_better ? "lower is better" : "higher is better";
}

void workload_release(struct workload *w)
{
	int i;

	if (w->regex)
		regfree(&w->re);
	for (i = 0; i < w->nfiles; i++) {
		free(w->files[i].src);
		free(w->files[i].dst);
		free(w->files[i].package);
	}
	free(w->files);
	free(w->name);
	free(w->metric);
	free(w->unit);
	free(w->own_unit);
	free(w->script);
	free(w->regex);
	memset(w, 0, sizeof(*w));
}
