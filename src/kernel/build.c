/* build: kernel builds with ccache into one reused O= directory, and the kernel cache. */
#include "build.h"
#include "kbuild.h"
#include "cppfilter.h"
#include "progress.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUILD_FORMAT "tbisect-build-1"

static const char *const kbuild_env[] = {
	"KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 2009",
	"KBUILD_BUILD_USER=tbisect", "KBUILD_BUILD_HOST=tbisect",
	"KBUILD_BUILD_VERSION=1", "LC_ALL=C", NULL, NULL
};

void build_init(struct build *b, const struct conf *c, const char *srcdir, const char *outname)
{
	memset(b, 0, sizeof(*b));
	b->conf = c;
	b->srcdir = xstrdup(srcdir);
	b->outdir = xasprintf("%s/%s", c->workdir, outname);
	b->cachedir = xasprintf("%s/kernels", c->workdir);
	distcc_init(&b->distcc, c);
}

void build_release(struct build *b)
{
	free(b->srcdir);
	free(b->outdir);
	free(b->cachedir);
	free(b->compiler);
	free(b->cpp_filter);
	distcc_release(&b->distcc);
	memset(b, 0, sizeof(*b));
}

void build_result_release(struct build_result *res)
{
	free(res->vmlinux);
	free(res->errors);
	memset(res, 0, sizeof(*res));
}

int build_base_is_file(const struct conf *c)
{
	return strcmp(c->kconfig_base, "tinyconfig") && strcmp(c->kconfig_base, "defconfig");
}

static int base_is_file(const struct build *b)
{
	return build_base_is_file(b->conf);
}

void build_set_source(struct build *b, const char *kconfig_src)
{
	if (strcmp(b->kconfig_src, kconfig_src ? kconfig_src : ""))
		b->config_ready = 0;
	snprintf(b->kconfig_src, sizeof(b->kconfig_src), "%s", kconfig_src ? kconfig_src : "");
}

static int load_identity(struct build *b)
{
	const char *argv[] = { "gcc", "--version", NULL };
	char *out = NULL, *nl;
	struct util_hash *h;

	if (b->compiler)
		return 0;
	if (run_capture(argv, NULL, &out) != 0) {
		free(out);
		return error("gcc not found; install the build packages with: make deps");
	}
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	b->compiler = out;
	h = util_hash_new();
	/* The default base leaves the key as before KCONFIG_BASE existed. */
	if (strcmp(b->conf->kconfig_base, "tinyconfig"))
		util_hash_addstr(h, b->conf->kconfig_base);
	if (util_hash_addfile(h, b->conf->kconfig) < 0 ||
	    (base_is_file(b) && util_hash_addfile(h, b->conf->kconfig_base) < 0)) {
		util_hash_free(h);
		return -1;
	}
	util_hash_hex(h, b->config_hash);
	return 0;
}

int build_key(struct build *b, const char *treeid, char *key)
{
	struct util_hash *h;

	if (load_identity(b) < 0)
		return -1;
	h = util_hash_new();
	util_hash_addstr(h, BUILD_FORMAT);
	util_hash_addstr(h, treeid);
	util_hash_addstr(h, b->config_hash);
	util_hash_addstr(h, b->compiler);
	util_hash_hex(h, key);
	return 0;
}

static char *info_path(const struct build *b, const char *key)
{
	return xasprintf("%s/%.16s/info", b->cachedir, key);
}

static char *field(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == '=') {
			const char *e = strchr(p, '\n');

			return e ? xstrndup(p + n + 1, (size_t)(e - p - n - 1)) : xstrdup(p + n + 1);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int build_lookup(struct build *b, const char *treeid, struct build_result *res,
		 enum build_status *st)
{
	char *path, *text, *status, *sha, *secs, *errs, *reason;

	memset(res, 0, sizeof(*res));
	if (build_key(b, treeid, res->key) < 0)
		return -1;
	path = info_path(b, res->key);
	if (!util_exists(path) || util_read_file(path, &text, NULL) < 0) {
		free(path);
		return 1;
	}
	free(path);
	status = field(text, "status");
	sha = field(text, "kernel_sha256");
	secs = field(text, "build_seconds");
	errs = field(text, "errors");
	reason = field(text, "reason");
	if (reason && !strcmp(reason, run_strstatus(RUN_ERR_TIMEOUT))) {
		/* Recorded by an older tbisect: a timeout is tried again. */
		free(status), free(sha), free(secs), free(errs), free(text), free(reason);
		return 1;
	}
	res->cached = 1;
	res->config_lacks = reason && !strcmp(reason, "config");
	free(reason);
	if (!secs || util_parse_double(secs, &res->seconds) < 0)
		res->seconds = 0;
	if (status && !strcmp(status, "ok") && sha && strlen(sha) == 64) {
		*st = BUILD_OK;
		memcpy(res->kernel_sha, sha, 65);
		res->vmlinux = xasprintf("%s/%.16s/vmlinux", b->cachedir, res->key);
		if (!util_exists(res->vmlinux)) {
			free(res->vmlinux);
			res->vmlinux = NULL;
			free(status), free(sha), free(secs), free(errs), free(text);
			return 1;
		}
	} else {
		*st = BUILD_FAILED;
		/* Stored with "\n" escaped as " | ". */
		res->errors = errs ? errs : xstrdup("(no compiler output kept)");
		errs = NULL;
	}
	free(status);
	free(sha);
	free(secs);
	free(errs);
	free(text);
	return 0;
}

/* A build's advance, read from its log as make appends to it: kbuild's
 * quiet output gives one line per step ("  CC      kernel/fork.o"). */
struct build_watch {
	int fd;			/* the log, read side */
	long steps;
	long objects;		/* steps that compile an object: "CC", "AS" */
	int by_objects;		/* progress counts objects, not steps */
	int col;		/* column in the current line, capped at 5 */
	int step;		/* the line so far looks like a step */
	char word[3];		/* the step's first two letters */
	struct progress prog;
};

/* One character of the log: a line "  XX ..." with an upper-case XX is a
 * step; CC and AS steps make objects (through ccache, maybe distcc). */
static void watch_char(struct build_watch *w, char c)
{
	if (c == '\n') {
		w->col = 0;
		return;
	}
	if (w->col < 2) {
		w->step = w->col ? w->step && c == ' ' : c == ' ';
	} else if (w->col == 2 && w->step && c >= 'A' && c <= 'Z') {
		w->steps++;
		w->word[0] = c;
	} else if (w->col == 3 && w->step) {
		w->word[1] = c;
	} else if (w->col == 4 && w->step && c == ' ' &&
		   (!strncmp(w->word, "CC", 2) || !strncmp(w->word, "AS", 2))) {
		w->objects++;
	}
	if (w->col < 5)
		w->col++;
}

static void watch_tick(void *arg)
{
	struct build_watch *w = arg;
	char buf[8192];
	ssize_t n, i;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			watch_char(w, buf[i]);
	progress_update(&w->prog, w->by_objects ? w->objects : w->steps);
}

static int make_watched(struct build *b, const char *const *targets, const char *log,
			double timeout, struct build_watch *w)
{
	const char *argv[24];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	/* With distcc, as many jobs as the hosts have slots (and cores here). */
	char *jobs = xasprintf("-j%ld", b->conf->jobs > 0 ? b->conf->jobs :
				 b->distcc.jobs > ncpu ? b->distcc.jobs : ncpu);
	char *odir = xasprintf("O=%s", b->outdir);
	char *ccdir = xasprintf("CCACHE_DIR=%s/ccache", b->conf->workdir);
	/* Paths under WORKDIR hashed relative to the O= directory: every tree
	 * laid out as X/linux beside X/build shares the cache (kbuild's
	 * -fmacro-prefix-map keeps the objects free of the source path). */
	char *basedir = xasprintf("CCACHE_BASEDIR=%s", b->conf->workdir);
	const char *env[ARRAY_SIZE(kbuild_env) + 3 + 8];
	char *dlog = xasprintf("%s.distcc", log);
	struct run_cmd cmd;
	size_t i = 0, k;
	int st;

	for (k = 0; kbuild_env[k]; k++)
		env[k] = kbuild_env[k];
	env[k++] = ccdir;
	env[k++] = basedir;
	if (b->cpp_filter)
		env[k++] = b->cpp_filter;
	k += (size_t)distcc_env(&b->distcc, dlog, env + k, 8);
	env[k] = NULL;
	argv[i++] = "make";
	argv[i++] = "-C";
	argv[i++] = b->srcdir;
	argv[i++] = odir;
	argv[i++] = "ARCH=x86_64";
	argv[i++] = "CC=ccache gcc";
	argv[i++] = "HOSTCC=ccache gcc";
	argv[i++] = jobs;
	for (; *targets && i < ARRAY_SIZE(argv) - 1; targets++)
		argv[i++] = *targets;
	argv[i] = NULL;
	run_init(&cmd, argv);
	cmd.env = env;
	cmd.stdout_path = log;
	cmd.stdout_append = 1;
	cmd.stderr_to_stdout = 1;
	cmd.timeout = timeout;
	if (w) {
		cmd.tick = watch_tick;
		cmd.tick_arg = w;
	}
	st = run_exec(&cmd);
	run_release(&cmd);
	free(jobs);
	free(odir);
	free(ccdir);
	free(basedir);
	free(dlog);
	return st;
}

static int make(struct build *b, const char *const *targets, const char *log, double timeout)
{
	return make_watched(b, targets, log, timeout, NULL);
}

/* The base config: tinyconfig, defconfig, or the user's file brought to
 * this tree with olddefconfig.  0 or -1. */
static int make_base(struct build *b, const char *dotconfig, const char *log)
{
	const char *target = b->conf->kconfig_base;
	int st;

	if (base_is_file(b)) {
		if (util_copy_file(b->conf->kconfig_base, dotconfig, NULL) < 0)
			return -1;
		target = "olddefconfig";
	}
	if ((st = make(b, (const char *const[]){ target, NULL }, log, 300)) != 0)
		return error("make %s failed (%s); see %s", target, run_strstatus(st), log);
	return 0;
}

/* Merges the fragment (and extra, when not NULL) onto dotconfig, then
 * olddefconfig.  0 or -1. */
static int merge_fragment(struct build *b, const char *dotconfig, const char *log, const char *extra)
{
	const char *argv[] = { "scripts/kconfig/merge_config.sh", "-m", "-O", b->outdir,
			       dotconfig, b->conf->kconfig, extra, NULL };
	struct run_cmd cmd;
	int st;

	run_init(&cmd, argv);
	cmd.cwd = b->srcdir;
	cmd.stdout_path = log;
	cmd.stdout_append = 1;
	cmd.stderr_to_stdout = 1;
	cmd.timeout = 120;
	st = run_exec(&cmd);
	run_release(&cmd);
	if (st != 0)
		return error("merge_config.sh failed (%s); see %s", run_strstatus(st), log);
	if ((st = make(b, (const char *const[]){ "olddefconfig", NULL }, log, 300)) != 0)
		return error("make olddefconfig failed (%s); see %s", run_strstatus(st), log);
	return 0;
}

/* The fragment's options missing from the resolved .config, " "-joined
 * (caller frees), NULL when every one survived or on a read error. */
char *build_missing_options(const char *fragment, const char *config)
{
	char *frag = xstrdup(fragment), *p, *line;
	struct sbuf sb;

	sbuf_init(&sb);
	for (p = frag; (line = strsep(&p, "\n"));) {
		char *l = util_trim(line), *hit;
		size_t n = strlen(l);

		if (strncmp(l, "CONFIG_", 7) || (n > 2 && !strcmp(l + n - 2, "=n")))
			continue;
		/* A whole line of the .config, not a prefix of a longer one. */
		for (hit = strstr(config, l); hit; hit = strstr(hit + 1, l))
			if ((hit == config || hit[-1] == '\n') && (hit[n] == '\n' || !hit[n]))
				break;
		if (!hit) {
			if (sb.len)
				sbuf_addstr(&sb, " ");
			sbuf_addstr(&sb, l);
		}
	}
	free(frag);
	return sb.len ? sbuf_detach(&sb) : (sbuf_release(&sb), NULL);
}

static char *config_stamp(const struct build *b)
{
	if (!b->kconfig_src[0])
		return xstrdup(b->config_hash);	/* a tree checked out as it is (git bisect run) */
	return xasprintf("%s %s", b->config_hash, b->kconfig_src);
}

/* Makes the config of this build directory unless it exists for the same
 * fragment, base and Kconfig sources.  0, 1 when an option
 * the fragment needs does not survive (into *missing), -1 on error. */
static int ensure_config(struct build *b, const char *log, char **missing)
{
	char *path = xasprintf("%s/.tbisect-config", b->outdir), *have = NULL;
	char *dotconfig = xasprintf("%s/.config", b->outdir), *want = config_stamp(b);
	char *frag = NULL, *cfg = NULL, *own = xasprintf("%s/%s", b->srcdir, BUILD_STATE_CONFIG);
	int ret = -1, has_own;

	if (b->config_ready || (util_exists(path) && util_read_file(path, &have, NULL) == 0 &&
				!strcmp(util_trim(have), want) && util_exists(dotconfig))) {
		b->config_ready = 1;
		ret = 0;
		goto out;
	}
	unlink(path);
	if (util_mkdir_p(b->outdir) < 0)
		goto out;
	has_own = util_exists(own);
	if (has_own) {
		/* A config range's state: its whole configuration is in the tree. */
		info("build: the kernel config is the state's own %s", BUILD_STATE_CONFIG);
		if (util_copy_file(own, dotconfig, NULL) < 0 ||
		    make(b, (const char *const[]){ "olddefconfig", NULL }, log, 300) != 0) {
			error("make olddefconfig failed on %s; see %s", own, log);
			goto out;
		}
	} else {
		info("build: generating the kernel config (%s + %s)", b->conf->kconfig_base,
		     b->conf->kconfig);
		if (make_base(b, dotconfig, log) < 0 || merge_fragment(b, dotconfig, log, NULL) < 0)
			goto out;
	}
	/* What must survive: the state's own configuration (resolved from the
	 * files it was made of, KCONFIG's options overridden there by choice),
	 * else KCONFIG. */
	if (util_read_file(has_own ? own : b->conf->kconfig, &frag, NULL) < 0 ||
	    util_read_file(dotconfig, &cfg, NULL) < 0)
		goto out;
	if ((*missing = build_missing_options(frag, cfg))) {
		ret = 1;
		goto out;
	}
	if (util_write_file_atomic(path, want, strlen(want)) < 0)
		goto out;
	b->config_ready = 1;
	ret = 0;
out:
	free(frag);
	free(cfg);
	free(have);
	free(want);
	free(path);
	free(dotconfig);
	free(own);
	return ret;
}

/* A configuration in b's O= directory into *out: in (a .config text)
 * resolved by olddefconfig, or with in NULL the base, the fragment and
 * extra merged.  0 or -1. */
static int scratch_config(struct build *b, const char *in, const char *extra, char **out)
{
	char *dotconfig = xasprintf("%s/.config", b->outdir), *log = xasprintf("%s/config.log", b->outdir);
	int ret = -1, st;

	*out = NULL;
	if (util_mkdir_p(b->outdir) < 0)
		goto out;
	unlink(log);
	if (in) {
		if (util_write_file_atomic(dotconfig, in, strlen(in)) < 0)
			goto out;
		if ((st = make(b, (const char *const[]){ "olddefconfig", NULL }, log, 300)) != 0) {
			error("make olddefconfig failed (%s); see %s", run_strstatus(st), log);
			goto out;
		}
	} else if (make_base(b, dotconfig, log) < 0 || merge_fragment(b, dotconfig, log, extra) < 0) {
		goto out;
	}
	if (util_read_file(dotconfig, out, NULL) < 0)
		goto out;
	ret = 0;
out:
	free(dotconfig);
	free(log);
	return ret;
}

int build_resolve_config(struct build *b, const char *fragment, char **text)
{
	return scratch_config(b, NULL, fragment, text);
}

int build_olddefconfig(struct build *b, const char *in, char **out)
{
	return scratch_config(b, in, NULL, out);
}

/* Whether files a and b have the same bytes (b may be missing): 0 with
 * *same set, or -1. */
static int same_file(const char *a, const char *b, int *same)
{
	char ha[65], hb[65];

	*same = 0;
	if (util_sha256_file(a, ha) < 0)
		return -1;
	*same = util_exists(b) && util_sha256_file(b, hb) == 0 && !strcmp(ha, hb);
	return 0;
}

/* ccache hashes the preprocessor's output through cppfilter (comments and
 * blank lines cost no compile), unless the objects carry line numbers of
 * their own (debug information).  b->cpp_filter: the environment entry, or
 * NULL.  0 or -1. */
static int use_cpp_filter(struct build *b)
{
	char *dotconfig = xasprintf("%s/.config", b->outdir), *cfg = NULL, *self, *link, *dir;
	int ret = -1, debug, same;

	free(b->cpp_filter);
	b->cpp_filter = NULL;
	if (util_read_file(dotconfig, &cfg, NULL) < 0)
		goto out;
	debug = !strncmp(cfg, "CONFIG_DEBUG_INFO=y\n", 20) || strstr(cfg, "\nCONFIG_DEBUG_INFO=y\n");
	if (debug || !b->conf->cpp_filter) {
		ret = 0;
		goto out;
	}
	/* A copy of this very binary under the filter's name: a rebuild of
	 * tbisect during a build must not pull it from under ccache. */
	dir = xasprintf("%s/bin", b->conf->workdir);
	link = xasprintf("%s/%s", dir, CPPFILTER_NAME);
	/* /proc/self/exe opens even when the file was replaced since. */
	self = xstrdup("/proc/self/exe");
	if (util_mkdir_p(dir) == 0 && same_file(self, link, &same) == 0 &&
	    (same || util_copy_file(self, link, NULL) == 0)) {
		b->cpp_filter = xasprintf("CCACHE_PREFIX_CPP=%s", link);
		ret = 0;
	} else {
		error("cannot install %s for ccache", link);
	}
	free(self);
	free(link);
	free(dir);
out:
	free(cfg);
	free(dotconfig);
	return ret;
}

/* First error lines of a build log, joined with " | "; caller frees. */
static char *first_errors(const char *log)
{
	char *text, *p, *line;
	struct sbuf sb;
	int n = 0;

	if (util_read_file(log, &text, NULL) < 0)
		return xstrdup("(build log unreadable)");
	sbuf_init(&sb);
	for (p = text; (line = strsep(&p, "\n")) && n < 6;) {
		if (strstr(line, "error:") || strstr(line, "Error ") || strstr(line, "undefined reference")) {
			if (sb.len)
				sbuf_addstr(&sb, " | ");
			sbuf_add(&sb, line, strlen(line) > 200 ? 200 : strlen(line));
			n++;
		}
	}
	free(text);
	if (!sb.len)
		sbuf_addstr(&sb, "(no error line found; see the build log)");
	return sbuf_detach(&sb);
}

/* Records a failed build (it will be skipped, not built again). */
static int record_failed(struct build *b, struct build_result *res, const char *dir,
			 const char *reason, const char *log)
{
	char *info = xasprintf("%s/info", dir);
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addf(&sb, "status=failed\nreason=%s\nbuild_seconds=%.1f\nerrors=%s\nlog=%s\n",
		  reason, res->seconds, res->errors, log);
	util_write_file_atomic(info, sb.buf, sb.len);
	sbuf_release(&sb);
	free(info);
	b->builds++;
	b->build_seconds += res->seconds;
	return BUILD_FAILED;
}

/* Copies the kernel into the cache and records it.  BUILD_OK or -1. */
static int record_ok(struct build *b, struct build_result *res, const char *dir,
		     const char *treeid)
{
	char *src = xasprintf("%s/vmlinux", b->outdir), *info = xasprintf("%s/info", dir);
	char *cfg = xasprintf("%s/.config", b->outdir), cfg_sha[65] = "";
	struct sbuf sb;
	int ret = -1;

	res->vmlinux = xasprintf("%s/vmlinux", dir);
	if (util_copy_file(src, res->vmlinux, res->kernel_sha) < 0)
		goto out;
	/* The resolved config follows from the key's inputs; kept to compare. */
	util_sha256_file(cfg, cfg_sha);
	sbuf_init(&sb);
	sbuf_addf(&sb, "status=ok\nkernel_sha256=%s\nbuild_seconds=%.1f\ntree=%s\ncompiler=%s\n"
		  "config_sha256=%s\n", res->kernel_sha, res->seconds, treeid, b->compiler, cfg_sha);
	ret = util_write_file_atomic(info, sb.buf, sb.len);
	sbuf_release(&sb);
	if (ret == 0) {
		b->builds++;
		b->build_seconds += res->seconds;
		ret = BUILD_OK;
	}
out:
	free(cfg);
	free(info);
	free(src);
	return ret;
}

/* The build history of this config: WORKDIR/kernels/builds-CFG, one line
 * per build, "full|cached|incr STEPS SECONDS", the last HISTORY_KEEP kept. */
#define HISTORY_KEEP 40

static char *history_path(struct build *b)
{
	return xasprintf("%s/builds-%.16s", b->cachedir, b->config_hash);
}

int build_history_parse(const char *text, struct build_history *h)
{
	char *copy = xstrdup(text ? text : ""), *line, *cur;
	double incr[HISTORY_KEEP];
	long isteps[HISTORY_KEEP];
	int i, n;

	memset(h, 0, sizeof(*h));
	for (cur = copy; (line = strsep(&cur, "\n"));) {
		char *f[3] = { NULL }, *tok = line;
		long steps;
		double secs;

		for (i = 0; i < 3 && (f[i] = strsep(&tok, " ")); i++)
			;
		if (i < 3 || tok || util_parse_long(f[1], &steps) < 0 ||
		    util_parse_double(f[2], &secs) < 0)
			continue;	/* a torn or foreign line */
		if (!strcmp(f[0], "full")) {
			h->full_steps = steps;
			h->full_s = secs;
			h->n_full++;
		} else if (!strcmp(f[0], "cached")) {
			h->full_steps = steps;
			h->cached_s = secs;
			h->n_cached++;
		} else if (!strcmp(f[0], "incr") && h->n_incr < HISTORY_KEEP) {
			isteps[h->n_incr] = steps;
			incr[h->n_incr++] = secs;
		}
	}
	/* Narrow and wide incremental builds apart: a header change rebuilds
	 * nearly everything, and would make every step look like that. */
	for (i = 0, n = 0; i < h->n_incr; i++)
		if (!build_is_wide(isteps[i], h->full_steps)) {
			h->incr_s += incr[i];
			n++;
		}
	h->incr_s = n ? h->incr_s / n : 0;
	h->n_incr = n;
	free(copy);
	return h->n_full || h->n_cached || h->n_incr ? 0 : -1;
}

double build_history_full_cost(const struct build_history *h, double dflt)
{
	if (h->n_cached)
		return h->cached_s;
	return h->n_full ? h->full_s : dflt;
}

int build_history(struct build *b, struct build_history *h)
{
	char *p, *text = NULL;
	int ret;

	memset(h, 0, sizeof(*h));
	if (load_identity(b) < 0)
		return -1;
	p = history_path(b);
	if (!util_exists(p) || util_read_file(p, &text, NULL) < 0) {
		free(p);
		return -1;
	}
	ret = build_history_parse(text, h);
	free(text);
	free(p);
	return ret;
}

int build_is_wide(long steps, long full_steps)
{
	return steps >= (full_steps > 0 ? full_steps / 2 : BUILD_WIDE_STEPS);
}

int build_next_is_full(struct build *b)
{
	char *vmlinux = xasprintf("%s/vmlinux", b->outdir);
	int full = !util_exists(vmlinux);

	free(vmlinux);
	return full;
}

static void record_history(struct build *b, const char *kind, long steps, double seconds)
{
	char *p = history_path(b), *text = NULL, *start;
	struct sbuf sb;
	int n = 0;

	sbuf_init(&sb);
	if (util_exists(p) && util_read_file(p, &text, NULL) == 0) {
		/* Keep the newest lines only. */
		for (start = text + strlen(text); start > text; start--)
			if (start[-1] == '\n' && start[0] && ++n >= HISTORY_KEEP - 1)
				break;
		sbuf_addstr(&sb, start);
	}
	sbuf_addf(&sb, "%s %ld %.1f\n", kind, steps, seconds);
	util_write_file_atomic(p, sb.buf, sb.len);
	sbuf_release(&sb);
	free(text);
	free(p);
}

/* Where this build's objects came from, said and added to the totals:
 * distcc's client log (dlog) when distcc is on, else ccache's counters
 * before and after.  Returns how many were compiled (not from ccache). */
static long count_objects(struct build *b, const char *dlog, long objects,
			  const struct ccache_stats *before)
{
	struct ccache_stats after;
	struct distcc_counts n = { 0, 0, 0 };
	const char *what = b->label ? b->label : "kernel";
	long hits, here = 0;

	if (b->distcc.on && distcc_count(dlog, &n) == 0) {
		hits = objects - n.remote - n.local > 0 ? objects - n.remote - n.local : 0;
		info("build: %s: %ld objects: %ld compiled on distcc hosts, %ld here, %ld from ccache",
		     what, objects, n.remote, n.local, hits);
		if (n.fallback)
			warning("%ld compiles could not go to a distcc host (down or refused) and ran "
				"on this machine", n.fallback);
		b->obj_remote += n.remote;
		here = n.local;
	} else {
		/* ccache's counters also count kbuild's compiler probes (hits,
		 * once cached): the objects compiled are its misses, bounded by
		 * the objects kbuild made. */
		if (before && ccache_stats(b->conf, &after) == 0)
			here = after.misses - before->misses;
		if (here > objects)
			here = objects;
		hits = objects - here;
		info("build: %s: %ld objects: %ld compiled, %ld from ccache", what, objects, here, hits);
	}
	b->obj_local += here;
	b->obj_cached += hits;
	return objects - hits;
}

/* The objects the O= directory's .config selects in the source tree
 * (kbuild_objects()), or -1. */
static long config_objects(const struct build *b)
{
	char *path = xasprintf("%s/.config", b->outdir), *text = NULL;
	long n = -1;

	if (util_exists(path) && util_read_file(path, &text, NULL) == 0)
		n = kbuild_objects(b->srcdir, "x86", text);
	free(text);
	free(path);
	return n;
}

/* make vmlinux, with progress.  A full build (no vmlinux in O= yet) is
 * shown against the step count of the last full build of this config, or,
 * the first time, against the objects its .config selects; an incremental
 * one has no count to compare with and shows its steps and time.  Both go
 * into the build history. */
static int compile(struct build *b, const char *log, struct build_result *res)
{
	struct build_watch w = { .fd = open(log, O_RDONLY | O_CREAT | O_CLOEXEC, 0644) };
	struct build_history h;
	struct ccache_stats before;
	double start = util_now();
	char *what, *dlog;
	long compiled = 0, expected = 0;
	int st, have_stats, from_cache;

	res->full = build_next_is_full(b);
	if (build_history(b, &h) < 0)
		h.full_steps = 0;
	what = xasprintf("build: %s, %s", b->label ? b->label : "kernel",
			 res->full ? "full build" : "incremental");
	/* A first full build has no earlier one to compare with: its objects
	 * are counted against what the .config selects. */
	if (res->full && h.full_steps <= 0 && (expected = config_objects(b)) > 0)
		w.by_objects = 1;
	progress_init(&w.prog, what, w.by_objects ? "objects" : "steps",
		      w.by_objects ? expected : res->full ? h.full_steps : 0);
	if (w.fd >= 0)
		lseek(w.fd, 0, SEEK_END);	/* the config steps are not counted */
	/* With distcc its client log tells where objects were compiled. */
	have_stats = !b->distcc.on && ccache_stats(b->conf, &before) == 0;
	dlog = xasprintf("%s.distcc", log);
	unlink(dlog);
	st = make_watched(b, (const char *const[]){ "vmlinux", NULL }, log,
			  (double)b->conf->build_timeout, w.fd >= 0 ? &w : NULL);
	if (w.fd >= 0) {
		watch_tick(&w);
		close(w.fd);
	}
	progress_done(&w.prog);
	if (st == 0)
		compiled = count_objects(b, dlog, w.objects, have_stats ? &before : NULL);
	free(dlog);
	/* A full build that compiled under half its objects cost what ccache
	 * costs, not what compiling does. */
	from_cache = res->full && st == 0 && w.objects > 0 && 2 * compiled < w.objects;
	if (st == 0 && w.steps > 0)
		record_history(b, from_cache ? "cached" : res->full ? "full" : "incr", w.steps,
			       util_now() - start);
	res->steps = w.steps;
	res->wide = !res->full && build_is_wide(w.steps, h.full_steps);
	free(what);
	return st;
}

int build_kernel(struct build *b, const char *treeid, struct build_result *res)
{
	enum build_status st;
	char *logdir = xasprintf("%s/logs", b->conf->workdir), *log = NULL, *dir = NULL;
	char *missing = NULL;
	double start;
	int ret = -1, ms;

	if ((ms = build_lookup(b, treeid, res, &st)) <= 0) {
		free(logdir);
		return ms < 0 ? -1 : (int)st;	/* no key: nothing may be built under it */
	}
	dir = xasprintf("%s/%.16s", b->cachedir, res->key);
	if (util_mkdir_p(logdir) < 0 || util_mkdir_p(dir) < 0 || distcc_check(&b->distcc) < 0)
		goto out;
	log = xasprintf("%s/build-%.16s.log", logdir, res->key);
	unlink(log);
	start = util_now();
	ms = ensure_config(b, log, &missing);
	b->config_seconds += util_now() - start;
	if (ms == 1) {
		res->errors = xasprintf("config: the resolved .config lacks %s (needed by %s)",
					missing, b->conf->kconfig);
		res->config_lacks = 1;
		ret = record_failed(b, res, dir, "config", log);
		goto out;
	}
	if (ms < 0 || use_cpp_filter(b) < 0)
		goto out;
	start = util_now();
	ms = compile(b, log, res);
	res->seconds = util_now() - start;
	if (ms == RUN_ERR_INTERRUPTED) {
		error("build interrupted");
		goto out;
	}
	if (ms == 0) {
		ret = record_ok(b, res, dir, treeid);
		goto out;
	}
	if (ms == RUN_ERR_TIMEOUT) {
		/* The machine's fault as much as the state's: skipped now, built
		 * again next time rather than remembered as broken. */
		res->errors = xasprintf("the build timed out after %.0f s (BUILD_TIMEOUT = %ld); "
					"see %s", res->seconds, b->conf->build_timeout, log);
		res->timed_out = 1;
		ret = BUILD_FAILED;
		goto out;
	}
	res->errors = first_errors(log);
	if (ms < 0)
		error("make could not run (%s); see %s", run_strstatus(ms), log);
	else
		ret = record_failed(b, res, dir, run_strstatus(ms), log);
out:
	free(missing);
	free(dir);
	free(log);
	free(logdir);
	return ret;
}
