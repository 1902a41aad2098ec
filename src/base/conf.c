/* conf: the configuration, bisect.conf and -s overrides, parsed with libinih. */
#include "conf.h"
#include "util.h"

#include <ini.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum kind { K_PATH, K_STR, K_LONG, K_DOUBLE, K_PERCENT, K_MODE, K_ACCEL, K_BOOL, K_COST };

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	double min, max;
	const char *help;
};

#define F(field) offsetof(struct conf, field)
static const struct key keys[] = {
	{ "WORKDIR", K_PATH, F(workdir), 0, 0, "work directory (kernel tree, builds, results)" },
	{ "TARBALL", K_PATH, F(tarball), 0, 0, "linux-source tarball" },
	{ "PATCHES", K_PATH, F(patches), 0, 0, "patch series directory" },
	{ "KCONFIG", K_PATH, F(kconfig), 0, 0, "config fragment merged onto KCONFIG_BASE" },
	{ "KCONFIG_BASE", K_STR, F(kconfig_base), 0, 0, "tinyconfig | defconfig | a .config file" },
	{ "TREE", K_PATH, F(gittree), 0, 0, "kernel git repository to bisect (unset = the patch series)" },
	{ "IMAGE_INIT", K_PATH, F(image_init), 0, 0, "guest init script" },
	{ "BENCH_INIT", K_PATH, F(bench_init), 0, 0, "guest init script of the benchmarks other than tbench" },
	{ "BENCH", K_STR, F(bench), 0, 0, "benchmark: tbench | hackbench | iperf3 | cyclictest | custom" },
	{ "CUSTOM_COMMAND", K_PATH, F(custom_command), 0, 0, "BENCH = custom: a host program or script, run in the guest as /bench/custom SECONDS CLIENTS" },
	{ "CUSTOM_REGEX", K_STR, F(custom_regex), 0, 0, "BENCH = custom: extended regular expression; its first group is the figure" },
	{ "CUSTOM_UNIT", K_STR, F(custom_unit), 0, 0, "BENCH = custom: the figure's unit" },
	{ "CUSTOM_BETTER", K_STR, F(custom_better), 0, 0, "BENCH = custom: higher | lower (which figure is better)" },
	{ "CUSTOM_SEEDED", K_BOOL, F(custom_seeded), 0, 0, "BENCH = custom: seed its runs and judge them statistically, as for SMP > 1 (a figure that unrelated changes move)" },
	{ "PROFILE_PLUGIN", K_PATH, F(profile_plugin), 0, 0, "QEMU plugin that counts instructions for profile (built by make)" },
	{ "PLOT_DIR", K_PATH, F(plot_dir), 0, 0, "where plots go" },
	{ "BASELINE", K_PATH, F(baseline), 0, 0, "nightly baseline file" },
	{ "GOOD", K_STR, F(good), 0, 0, "good end of the range" },
	{ "BAD", K_STR, F(bad), 0, 0, "bad end of the range" },
	{ "GOOD_CONFIG", K_PATH, F(good_config), 0, 0, "config range: the good kernel configuration (a .config, or a fragment merged onto KCONFIG_BASE + KCONFIG)" },
	{ "BAD_CONFIG", K_PATH, F(bad_config), 0, 0, "config range: the bad kernel configuration; with GOOD_CONFIG, the range is the options between them" },
	{ "AT", K_STR, F(at), 0, 0, "config range: the source state both configurations are built at (default: head)" },
	{ "OTHER_CONFIG", K_PATH, F(other_config), 0, 0, "a second kernel configuration (like GOOD_CONFIG): bisect measures its culprit and parent with it too, to say which configuration the regression needs" },
	{ "CLIENTS", K_LONG, F(clients), 1, 64, "tbench clients" },
	{ "SECONDS", K_LONG, F(seconds), 0, 600, "tbench run seconds, 2 or more (0 = 2 in icount mode, 5 in wall-clock)" },
	{ "MODE", K_MODE, F(mode), 0, 0, "icount | wallclock" },
	{ "ACCEL", K_ACCEL, F(accel), 0, 0, "auto | kvm | tcg (wall-clock mode)" },
	{ "COST", K_COST, F(cost), 0, 0, "instructions | cycles: cycles runs each VM under the cache model (icount; docs/cost.md) and records estimated cycles beside the figure" },
	{ "CACHE_GEOMETRY", K_STR, F(cache_geometry), 0, 0, "COST = cycles: I1:D1:LL, each SIZE/WAYS/LINE in bytes (unset: an Intel Core i7-6700)" },
	{ "CACHE_WEIGHTS", K_STR, F(cache_weights), 0, 0, "COST = cycles: cycles of an L1 hit, a last-level hit, a memory access (unset: 1,5,35)" },
	{ "SHIFT", K_LONG, F(shift), 0, 10, "icount shift (ns per instruction = 2^SHIFT)" },
	{ "SMP", K_LONG, F(smp), 1, 8, "guest CPUs (ACPI lists them; a run that sees another count fails)" },
	{ "CGROUP_DEPTH", K_LONG, F(cgroup_depth), 0, 8, "cgroup levels tbench runs in, cpu controller on (0 = root, 3 = user.slice/user-1000.slice/session-1.scope)" },
	{ "MEMORY", K_LONG, F(memory_mb), 64, 65536, "guest memory, MiB" },
	{ "JOBS", K_LONG, F(jobs), 0, 1024, "make -j (0 = number of cores)" },
	{ "VMS", K_LONG, F(vms), 0, 16, "VMs run side by side in icount mode (0 = number of cores)" },
	{ "BUILD_TIMEOUT", K_LONG, F(build_timeout), 10, 86400, "seconds per kernel build" },
	{ "BOOT_TIMEOUT", K_LONG, F(boot_timeout), 5, 86400, "seconds per VM run" },
	{ "THRESHOLD", K_PERCENT, F(threshold), 0.0001, 0.9, "regression threshold, percent" },
	{ "ALPHA", K_DOUBLE, F(alpha), 1e-6, 0.2, "significance level (wall-clock mode)" },
	{ "RUNS_MIN", K_LONG, F(runs_min), 1, 1000, "first runs per state (wall-clock mode)" },
	{ "RUNS_MAX", K_LONG, F(runs_max), 1, 1000, "most runs per state (wall-clock mode)" },
	{ "CULPRIT_STEP", K_LONG, F(culprit_step), 1, 1000, "grid step of the culprit search" },
	{ "CULPRIT_FLOOR", K_PERCENT, F(culprit_floor), 0.0001, 0.9, "icount: culprits lists changes above this (the repeat spread tests allow); below THRESHOLD they are marked small" },
	{ "CHECK_BISECT", K_BOOL, F(check_bisect), 0, 0, "nightly check searches the culprit" },
	{ "PROFILE", K_BOOL, F(profile), 0, 0, "icount: bisect and culprits profile each culprit against its parent (why it is slower)" },
	{ "CPP_FILTER", K_BOOL, F(cpp_filter), 0, 0, "ccache hashes the preprocessor's output without comments and blank lines (off with CONFIG_DEBUG_INFO)" },
	{ "SCHED_FEATURES", K_STR, F(feat), 0, 0, "sched features to set in the guest, comma-separated names (e.g. NO_HRTICK,WAKEUP_PREEMPTION)" },
	{ "QEMU", K_STR, F(qemu), 0, 0, "QEMU binary" },
	{ "DISTCC_HOSTS", K_STR, F(distcc_hosts), 0, 0, "distcc hosts, distcc's syntax (empty = local builds)" },
};
#undef F

int conf_sched_features_ok(const char *v)
{
	const char *p = v;

	while (*p) {
		size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		if (!n || (p[n] && p[n] != ',') || (p[n] == ',' && !p[n + 1]))
			return 0;
		p += n + (p[n] == ',');
	}
	return 1;
}

const char *conf_mode_name(enum conf_mode m)
{
	return m == MODE_ICOUNT ? "icount" : "wallclock";
}

const char *conf_accel_name(enum conf_accel a)
{
	return a == ACCEL_KVM ? "kvm" : a == ACCEL_TCG ? "tcg" : "auto";
}

/* The tbisect checkout: the directory of the binary, or its parent for a
 * binary under build/.  Defaults live there, whatever the current directory
 * (under "git bisect run" it is the kernel tree). */
static char *conf_home(void)
{
	char exe[4096], *dir, *up, *probe;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return util_path_abs(NULL, ".");
	exe[n] = '\0';
	dir = util_dirname(exe);
	probe = xasprintf("%s/kpatches", dir);
	if (util_is_dir(probe)) {
		free(probe);
		return dir;
	}
	free(probe);
	up = util_dirname(dir);
	probe = xasprintf("%s/kpatches", up);
	if (util_is_dir(probe)) {
		free(probe);
		free(dir);
		return up;
	}
	free(probe);
	free(up);
	free(dir);
	return util_path_abs(NULL, ".");
}

/* The default work directory: XDG_CACHE_HOME/tbisect, else
 * HOME/.cache/tbisect, else the passwd entry's home; relative values are
 * ignored (the XDG Base Directory rule).  NULL when none is absolute. */
static char *default_workdir(void)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct passwd *pw;

	if (cache && cache[0] == '/')
		return xasprintf("%s/tbisect", cache);
	if (!(home && home[0] == '/') && (pw = getpwuid(getuid())))
		home = pw->pw_dir;
	if (home && home[0] == '/')
		return xasprintf("%s/.cache/tbisect", home);
	return NULL;
}

void conf_init(struct conf *c)
{
	char *home;

	memset(c, 0, sizeof(*c));
	c->workdir = default_workdir();
	c->tarball = xstrdup("/usr/src/linux-source-6.1.tar.xz");
	home = conf_home();
	c->patches = xasprintf("%s/kpatches", home);
	c->kconfig = xasprintf("%s/kconfig/tbench.config", home);
	c->image_init = xasprintf("%s/images/init", home);
	c->bench_init = xasprintf("%s/images/bench-init", home);
	c->bench = xstrdup("tbench");
	c->custom_unit = xstrdup("units");
	c->custom_better = xstrdup("higher");
	c->profile_plugin = xasprintf("%s/build/tbisect-prof.so", home);
	c->kconfig_base = xstrdup("tinyconfig");
	c->plot_dir = xasprintf("%s/plots", home);
	free(home);
	c->baseline = NULL;
	c->good = xstrdup("base");
	c->bad = NULL;
	c->clients = 2;
	c->seconds = 0;
	c->mode = MODE_ICOUNT;
	c->accel = ACCEL_AUTO;
	c->shift = 1;
	c->smp = 1;
	c->memory_mb = 512;
	c->jobs = 0;
	c->vms = 0;
	c->build_timeout = 3600;
	c->boot_timeout = 300;
	c->threshold = 0.01;
	c->alpha = 0.001;
	c->runs_min = 3;
	c->runs_max = 30;
	c->culprit_step = 4;
	c->culprit_floor = 0.0005;
	c->cgroup_depth = 3;
	c->check_bisect = 1;
	c->cpp_filter = 1;
	c->profile = 1;
	c->feat = xstrdup("");
	c->qemu = xstrdup("qemu-system-x86_64");
	c->distcc_hosts = xstrdup("");
}

void conf_release(struct conf *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].kind == K_PATH || keys[i].kind == K_STR) {
			char **p = (char **)((char *)c + keys[i].off);

			free(*p);
			*p = NULL;
		}
	}
	free(c->path);
	c->path = NULL;
}

struct parse_state {
	struct conf *c;
	const char *file;
	char *dir;
	char *err;		/* first error message */
	int nkeys;
	unsigned char seen[ARRAY_SIZE(keys)];
	int line;		/* line counter kept by our reader */
	int err_line;
};

/* "12.5%" or "12.5" as a fraction, 0.125.  0 or -1. */
static int parse_percent(const char *value, double *out)
{
	char *v = xstrdup(value);
	size_t n = strlen(v);
	int ok;

	if (n && v[n - 1] == '%')
		v[n - 1] = '\0';
	ok = util_parse_double(util_trim(v), out) == 0;
	free(v);
	*out /= 100.0;
	return ok ? 0 : -1;
}

/* A word from a fixed list, case-insensitive: its index, or -1. */
static int parse_word(const char *value, const char *const *words, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(value, words[i]))
			return i;
	return -1;
}

/* A K_STR value into field, with the checks some string keys have (distcc
 * hosts, sched features, CUSTOM_BETTER; KCONFIG_BASE as a path).  0, or
 * -1 for a bad value (the field then holds a harmless default). */
static int parse_str(struct conf *c, char **field, const char *dir, const char *value)
{
	free(*field);
	/* distcc's host syntax, nothing a shell or distcc would read as more. */
	if (field == &c->distcc_hosts &&
	    strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			  ".:/@,_+-[] ") != strlen(value)) {
		*field = xstrdup("");
		return -1;
	}
	/* Goes onto the kernel command line: sched feature names only. */
	if (field == &c->feat && !conf_sched_features_ok(value)) {
		*field = xstrdup("");
		return -1;
	}
	/* BENCH's names are workload's, checked above the configuration
	 * (workload_check_conf()). */
	if (field == &c->custom_better && strcmp(value, "higher") && strcmp(value, "lower")) {
		*field = xstrdup("higher");
		return -1;
	}
	/* A base .config file is a path like the others. */
	if (field == &c->kconfig_base && strcmp(value, "tinyconfig") && strcmp(value, "defconfig"))
		*field = util_path_abs(dir, value);
	else
		*field = xstrdup(value);
	return 0;
}

/* A value of one of the word-keyed kinds (K_MODE, K_ACCEL, K_COST,
 * K_BOOL) into its field.  0, or -1 for a word the key does not take. */
static int parse_choice(struct conf *c, const struct key *k, void *field, const char *value)
{
	static const char *const modes[] = { "icount", "wallclock" };
	static const char *const accels[] = { "auto", "kvm", "tcg" };
	static const char *const bools[] = { "no", "yes", "0", "1", "false", "true" };
	static const char *const costs[] = { "instructions", "cycles" };
	int w;

	switch (k->kind) {
	case K_MODE:
		if ((w = parse_word(value, modes, 2)) < 0)
			return -1;
		c->mode = w ? MODE_WALLCLOCK : MODE_ICOUNT;
		return 0;
	case K_ACCEL:
		if ((w = parse_word(value, accels, 3)) < 0)
			return -1;
		c->accel = w == 1 ? ACCEL_KVM : w == 2 ? ACCEL_TCG : ACCEL_AUTO;
		return 0;
	case K_COST:
		if ((w = parse_word(value, costs, 2)) < 0)
			return -1;
		c->cost = w ? COST_CYCLES : COST_INSTRUCTIONS;
		return 0;
	case K_BOOL:
		if ((w = parse_word(value, bools, 6)) < 0)
			return -1;
		*(int *)field = w % 2;
		return 0;
	default:
		return -1;
	}
}

/* Parses value for key k into its field; dir resolves relative paths.
 * 0, or -1 for a bad value. */
static int parse_value(struct conf *c, const struct key *k, const char *dir, const char *value)
{
	void *field = (char *)c + k->off;
	long l;
	double d;

	switch (k->kind) {
	case K_PATH:
		if (!*value)
			return -1;
		free(*(char **)field);
		*(char **)field = util_path_abs(dir, value);
		return 0;
	case K_STR:
		return parse_str(c, field, dir, value);
	case K_LONG:
		if (util_parse_long(value, &l) < 0 || l < (long)k->min || l > (long)k->max)
			return -1;
		/* tbench's warm-up leaves nothing of a 1 s run: it reports 0. */
		if (field == &c->seconds && l == 1)
			return -1;
		*(long *)field = l;
		return 0;
	case K_DOUBLE:
	case K_PERCENT:
		if ((k->kind == K_DOUBLE ? util_parse_double(value, &d) : parse_percent(value, &d)) < 0 ||
		    d < k->min || d > k->max)
			return -1;
		*(double *)field = d;
		return 0;
	default:
		return parse_choice(c, k, field, value);
	}
}

static int set_key(struct parse_state *ps, const char *name, const char *value)
{
	const struct key *k = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys) && !k; i++)
		if (!strcasecmp(keys[i].name, name))
			k = &keys[i];
	if (!k) {
		ps->err = xasprintf("unknown key '%s'", name);
		return -1;
	}
	i = (size_t)(k - keys);
	if (ps->seen[i]) {
		ps->err = xasprintf("duplicate key '%s'", k->name);
		return -1;
	}
	ps->seen[i] = 1;
	if (parse_value(ps->c, k, ps->dir, value) < 0) {
		ps->err = xasprintf("bad value for %s (%s): '%s'", k->name, k->help, value);
		return -1;
	}
	if (!strcasecmp(k->name, "GOOD"))
		ps->c->good_line = ps->line;
	if (!strcasecmp(k->name, "BAD"))
		ps->c->bad_line = ps->line;
	if (!strcasecmp(k->name, "BENCH"))
		ps->c->bench_line = ps->line;
	ps->nkeys++;
	return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *ps = user;

	/* Report the first error only; inih goes on reading after it. */
	if (ps->err)
		return 0;
	if (*section) {
		if (!ps->err)
			ps->err = xasprintf("sections are not supported: '[%s]'", section);
		return 0;
	}
	if (set_key(ps, name, value) < 0) {
		if (!ps->err_line)
			ps->err_line = ps->line;
		return 0;
	}
	return 1;
}

struct reader_ctx {
	struct parse_state *ps;
	const char *data;
	size_t len, pos;
};

/* What inih would misread in a raw line (n bytes, its newline included):
 * NULL when it reads it as written, else the reason.  inih's buffer holds
 * num - 1 bytes (Debian builds it with 200): a longer line would come back
 * in pieces, each parsed as a line of its own.  A ';' after white space
 * starts a comment inside inih, '#' does not: neither may stand after a
 * value, so that one rule holds for both and nothing is cut silently. */
static const char *line_problem(const char *line, size_t n, int num, char *buf, size_t bufsz)
{
	size_t body = n && line[n - 1] == '\n' ? n - 1 : n, i;
	const char *p = line;

	if (body > (size_t)num - 2) {
		snprintf(buf, bufsz, "line of %zu bytes, longer than the %d that can be read as one",
			 body, num - 2);
		return buf;
	}
	while (p < line + body && (*p == ' ' || *p == '\t'))
		p++;
	if (p == line + body || *p == '#' || *p == ';')
		return NULL;
	for (i = 1; i < body; i++)
		if ((line[i] == '#' || line[i] == ';') && (line[i - 1] == ' ' || line[i - 1] == '\t'))
			return "a comment after a value (';' or '#' after a space): put comments on lines of their own";
	return NULL;
}

static char *string_reader(char *str, int num, void *stream)
{
	struct reader_ctx *rc = stream;
	const char *line = rc->data + rc->pos, *nl, *why;
	char buf[128];
	size_t n;

	if (rc->pos >= rc->len || num < 3 || rc->ps->err)
		return NULL;
	nl = memchr(line, '\n', rc->len - rc->pos);
	n = nl ? (size_t)(nl - line) + 1 : rc->len - rc->pos;
	rc->ps->line++;
	if ((why = line_problem(line, n, num, buf, sizeof(buf)))) {
		/* Stops inih here: the error is this line's. */
		rc->ps->err = xstrdup(why);
		rc->ps->err_line = rc->ps->line;
		return NULL;
	}
	memcpy(str, line, n);
	str[n] = '\0';
	rc->pos += n;
	return str;
}

static int parse_buffer(struct parse_state *ps, const char *data, size_t len)
{
	struct reader_ctx rc = { ps, data, len, 0 };
	size_t i;
	int line = 1, ret;

	for (i = 0; i < len; i++) {
		if (data[i] == '\n')
			line++;
		else if (data[i] == '\0' || ((unsigned char)data[i] < 0x20 && data[i] != '\t' &&
					     data[i] != '\r')) {
			ps->err = xstrdup("binary data in configuration file");
			ps->err_line = line;
			return line;
		}
	}
	ret = ini_parse_stream(string_reader, &rc, handler, ps);
	if (ret > 0 && !ps->err) {
		ps->err = xstrdup("expected 'KEY = VALUE'");
		ps->err_line = ret;
	}
	if (ret > 0 && !ps->err_line)
		ps->err_line = ret;
	return ret;
}

/* The text of line n of data, for messages; caller frees. */
static char *line_text(const char *data, size_t len, int n)
{
	size_t i = 0, start;
	int line = 1;

	while (i < len && line < n) {
		if (data[i++] == '\n')
			line++;
	}
	start = i;
	while (i < len && data[i] != '\n' && i - start < 120)
		i++;
	{
		char *t = xstrndup(data + start, i - start), *p;

		for (p = t; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		return t;
	}
}

int conf_parse(struct conf *c, const char *file, const char *data, size_t len)
{
	struct parse_state ps;
	int ret = 0;

	memset(&ps, 0, sizeof(ps));
	ps.c = c;
	ps.file = file;
	ps.dir = util_dirname(file);
	if (parse_buffer(&ps, data, len) != 0 || ps.err) {
		char *t = line_text(data, len, ps.err_line);

		error("%s:%d: %s: '%s'", file, ps.err_line, ps.err ? ps.err : "syntax error", t);
		free(t);
		ret = -1;
	} else if (ps.nkeys == 0) {
		error("%s:1: no settings in configuration file (expected 'KEY = VALUE' lines)", file);
		ret = -1;
	}
	free(ps.err);
	free(ps.dir);
	return ret;
}

int conf_load(struct conf *c, const char *path)
{
	char *data;
	size_t len;
	int ret;

	if (util_read_file_max(path, CONF_MAX_BYTES, &data, &len) < 0)
		return -1;
	free(c->path);
	c->path = xstrdup(path);
	ret = conf_parse(c, path, data, len);
	free(data);
	return ret;
}

int conf_set(struct conf *c, const char *what, const char *assignment)
{
	struct parse_state ps;
	size_t i;
	int ret = 0;

	/* One -s, one assignment: a newline would make it two. */
	if (strpbrk(assignment, "\n\r"))
		return error("%s: one assignment per -s; the value holds a line break: '%s'", what,
			     assignment);
	memset(&ps, 0, sizeof(ps));
	ps.c = c;
	ps.file = what;
	ps.dir = xstrdup(".");
	if (parse_buffer(&ps, assignment, strlen(assignment)) != 0 || ps.err || !ps.nkeys) {
		error("%s: %s: '%s'", what, ps.err ? ps.err : "expected 'KEY = VALUE'", assignment);
		ret = -1;
	}
	/* An override has no line in the file: messages must not point there. */
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!ps.seen[i])
			continue;
		if (!strcmp(keys[i].name, "GOOD"))
			c->good_line = 0;
		if (!strcmp(keys[i].name, "BAD"))
			c->bad_line = 0;
		if (!strcmp(keys[i].name, "BENCH"))
			c->bench_line = 0;
	}
	free(ps.err);
	free(ps.dir);
	return ret;
}

void conf_apply_env(struct conf *c)
{
	const char *w = getenv("TBISECT_WORKDIR");

	if (w && *w) {
		free(c->workdir);
		c->workdir = util_path_abs(NULL, w);
	}
}

int conf_finish(struct conf *c)
{
	if (!c->workdir)
		return error("no work directory: HOME and XDG_CACHE_HOME name no absolute path; "
			     "set WORKDIR (or TBISECT_WORKDIR)");
	if (c->runs_min > c->runs_max)
		return error("RUNS_MIN (%ld) is larger than RUNS_MAX (%ld)", c->runs_min, c->runs_max);
	if (!c->good_config != !c->bad_config)
		return error("a config range needs both GOOD_CONFIG and BAD_CONFIG (%s is set alone)",
			     c->good_config ? "GOOD_CONFIG" : "BAD_CONFIG");
	if (c->other_config && c->good_config)
		return error("OTHER_CONFIG is a second configuration for a range of source states; "
			     "GOOD_CONFIG..BAD_CONFIG is a range of configurations: set one or the other");
	/* The model is exact only when the run is (and QEMU runs the vCPUs
	 * in one thread, which the plugin's unlocked model relies on). */
	if (c->cost == COST_CYCLES && c->mode != MODE_ICOUNT)
		return error("COST = cycles needs MODE = icount: the cache model's figure repeats "
			     "only when the run does");
	/* Measured on kpatches/ (TCG): icount separates hrtick by -6.4% with
	 * 2 s runs; wall-clock shows -0.3% at 2 s, -12.5% at 3 s, -21.6% at
	 * 5 s, its throughput still settling in the first seconds. */
	if (!c->seconds)
		c->seconds = c->mode == MODE_ICOUNT ? 2 : 5;
	return 0;
}

void conf_dump(const struct conf *c, FILE *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const void *field = (const char *)c + keys[i].off;

		fprintf(f, "%-15s = ", keys[i].name);
		switch (keys[i].kind) {
		case K_PATH:
		case K_STR:
			fprintf(f, "%s", *(char *const *)field ? *(char *const *)field : "");
			break;
		case K_LONG:
			fprintf(f, "%ld", *(const long *)field);
			break;
		case K_DOUBLE:
			fprintf(f, "%g", *(const double *)field);
			break;
		case K_PERCENT:
			fprintf(f, "%g%%", *(const double *)field * 100);
			break;
		case K_MODE:
			fprintf(f, "%s", conf_mode_name(c->mode));
			break;
		case K_COST:
			fprintf(f, "%s", c->cost == COST_CYCLES ? "cycles" : "instructions");
			break;
		case K_ACCEL:
			fprintf(f, "%s", conf_accel_name(c->accel));
			break;
		case K_BOOL:
			fprintf(f, "%s", *(const int *)field ? "yes" : "no");
			break;
		}
		fprintf(f, "    # %s\n", keys[i].help);
	}
}
