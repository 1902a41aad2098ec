#include "build.h"
#include "run.h"
#include "util.h"

#include <errno.h>
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
}

void build_release(struct build *b)
{
	free(b->srcdir);
	free(b->outdir);
	free(b->cachedir);
	free(b->compiler);
	memset(b, 0, sizeof(*b));
}

void build_result_release(struct build_result *res)
{
	free(res->vmlinux);
	free(res->errors);
	memset(res, 0, sizeof(*res));
}

static int base_is_file(const struct build *b)
{
	return strcmp(b->conf->kconfig_base, "tinyconfig") && strcmp(b->conf->kconfig_base, "defconfig");
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
	char *path, *text, *status, *sha, *secs, *errs;

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
	res->cached = 1;
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

static int make(struct build *b, const char *const *targets, const char *log, double timeout)
{
	const char *argv[24];
	char *jobs = xasprintf("-j%ld", b->conf->jobs > 0 ? b->conf->jobs : sysconf(_SC_NPROCESSORS_ONLN));
	char *odir = xasprintf("O=%s", b->outdir);
	char *ccdir = xasprintf("CCACHE_DIR=%s/ccache", b->conf->workdir);
	/* Paths under WORKDIR hashed relative to the O= directory: every tree
	 * laid out as X/linux beside X/build shares the cache (kbuild's
	 * -fmacro-prefix-map keeps the objects free of the source path). */
	char *basedir = xasprintf("CCACHE_BASEDIR=%s", b->conf->workdir);
	const char *env[ARRAY_SIZE(kbuild_env) + 2];
	struct run_cmd cmd;
	size_t i = 0, k;
	int st;

	for (k = 0; kbuild_env[k]; k++)
		env[k] = kbuild_env[k];
	env[k++] = ccdir;
	env[k++] = basedir;
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
	st = run_exec(&cmd);
	run_release(&cmd);
	free(jobs);
	free(odir);
	free(ccdir);
	free(basedir);
	return st;
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

static int merge_fragment(struct build *b, const char *dotconfig, const char *log)
{
	const char *argv[] = { "scripts/kconfig/merge_config.sh", "-m", "-O", b->outdir,
			       dotconfig, b->conf->kconfig, NULL };
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
		return xstrdup(b->config_hash);	/* the series: one config for every state */
	return xasprintf("%s %s", b->config_hash, b->kconfig_src);
}

/* Makes the config of this build directory unless it exists for the same
 * fragment, base and (TREE mode) Kconfig sources.  0, 1 when an option
 * the fragment needs does not survive (into *missing), -1 on error. */
static int ensure_config(struct build *b, const char *log, char **missing)
{
	char *path = xasprintf("%s/.tbisect-config", b->outdir), *have = NULL;
	char *dotconfig = xasprintf("%s/.config", b->outdir), *want = config_stamp(b);
	char *frag = NULL, *cfg = NULL;
	int ret = -1;

	if (b->config_ready || (util_exists(path) && util_read_file(path, &have, NULL) == 0 &&
				!strcmp(util_trim(have), want) && util_exists(dotconfig))) {
		b->config_ready = 1;
		ret = 0;
		goto out;
	}
	info("build: generating the kernel config (%s + %s)", b->conf->kconfig_base, b->conf->kconfig);
	unlink(path);
	if (util_mkdir_p(b->outdir) < 0 || make_base(b, dotconfig, log) < 0 ||
	    merge_fragment(b, dotconfig, log) < 0)
		goto out;
	if (util_read_file(b->conf->kconfig, &frag, NULL) < 0 ||
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

int build_kernel(struct build *b, const char *treeid, struct build_result *res)
{
	enum build_status st;
	char *logdir = xasprintf("%s/logs", b->conf->workdir), *log = NULL, *dir = NULL;
	char *missing = NULL;
	double start;
	int ret = -1, ms;

	if (build_lookup(b, treeid, res, &st) == 0) {
		free(logdir);
		return st;
	}
	dir = xasprintf("%s/%.16s", b->cachedir, res->key);
	if (util_mkdir_p(logdir) < 0 || util_mkdir_p(dir) < 0)
		goto out;
	log = xasprintf("%s/build-%.16s.log", logdir, res->key);
	unlink(log);
	start = util_now();
	ms = ensure_config(b, log, &missing);
	b->config_seconds += util_now() - start;
	if (ms == 1) {
		res->errors = xasprintf("config: the resolved .config lacks %s (needed by %s)",
					missing, b->conf->kconfig);
		warning("%s", res->errors);
		ret = record_failed(b, res, dir, "config", log);
		goto out;
	}
	if (ms < 0)
		goto out;
	start = util_now();
	ms = make(b, (const char *const[]){ "vmlinux", NULL }, log, (double)b->conf->build_timeout);
	res->seconds = util_now() - start;
	if (ms == RUN_ERR_INTERRUPTED) {
		error("build interrupted");
		goto out;
	}
	if (ms == 0) {
		ret = record_ok(b, res, dir, treeid);
		goto out;
	}
	res->errors = first_errors(log);
	if (ms < 0 && ms != RUN_ERR_TIMEOUT)
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
