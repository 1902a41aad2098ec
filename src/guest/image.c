/* image: the guest initramfs (busybox, the benchmark, the libraries ldd names), reproducible. */
#include "image.h"
#include "run.h"
#include "util.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* 2009-01-01 00:00 UTC, like KBUILD_BUILD_TIMESTAMP. */
#define IMAGE_MTIME 1230768000

static const struct workload_file busybox = { "/bin/busybox", "bin/busybox", "busybox-static",
					      WORKLOAD_DATA };

char **image_parse_ldd(const char *text)
{
	char **v = xcalloc(1, sizeof(char *));
	char *copy = xstrdup(text), *p = copy, *line;
	size_t n = 0;

	while ((line = strsep(&p, "\n"))) {
		char *arrow = strstr(line, "=> "), *path, *end;

		path = arrow ? arrow + 3 : util_trim(line);
		if (*path != '/')
			continue;
		end = strstr(path, " (");
		if (!end)
			end = path + strlen(path);
		v = xrealloc(v, (n + 2) * sizeof(char *));
		v[n++] = xstrndup(path, (size_t)(end - path));
		v[n] = NULL;
	}
	free(copy);
	return v;
}

static void free_list(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* Libraries of w's programs, deduplicated.  A program that ldd may refuse
 * (WORKLOAD_ANY: a script, a static binary) has none then. */
static int collect_libs(const struct workload *w, char ***out)
{
	char **all = xcalloc(1, sizeof(char *));
	size_t n = 0;
	int i;

	for (i = 0; i < w->nfiles; i++) {
		const char *argv[] = { "ldd", w->files[i].src, NULL };
		char *text = NULL, **libs, **l;

		if (w->files[i].kind == WORKLOAD_DATA)
			continue;
		if (run_capture(argv, NULL, &text) != 0) {
			free(text);
			if (w->files[i].kind == WORKLOAD_ANY)
				continue;
			free_list(all);
			return error("ldd %s failed (is libc-bin installed?)", w->files[i].src);
		}
		libs = image_parse_ldd(text);
		free(text);
		for (l = libs; *l; l++) {
			size_t k;

			for (k = 0; k < n && strcmp(all[k], *l); k++)
				;
			if (k < n)
				continue;
			all = xrealloc(all, (n + 2) * sizeof(char *));
			all[n++] = xstrdup(*l);
			all[n] = NULL;
		}
		free_list(libs);
	}
	*out = all;
	return 0;
}

int image_programs(const struct workload *w, char ***out)
{
	char **libs, **all;
	size_t n = 0, k;
	int i;

	if (collect_libs(w, &libs) < 0)
		return -1;
	for (k = 0; libs[k]; k++)
		;
	all = xcalloc((size_t)w->nfiles + k + 2, sizeof(char *));
	all[n++] = xstrdup(busybox.src);
	for (i = 0; i < w->nfiles; i++)
		if (w->files[i].kind != WORKLOAD_DATA)
			all[n++] = xstrdup(w->files[i].src);
	for (k = 0; libs[k]; k++)
		all[n++] = libs[k];
	free(libs);
	*out = all;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int stage_file(const char *stage, const char *src, const char *dst)
{
	char *to = xasprintf("%s/%s", stage, dst), *dir = util_dirname(to);
	int ret = util_mkdir_p(dir);

	if (!ret)
		ret = util_copy_file(src, to, NULL);
	free(dir);
	free(to);
	return ret;
}

/* What goes into one image. */
struct inputs {
	const struct workload *w;
	const char *init;	/* the guest init script */
	char **libs;
};

static const char *init_of(const struct conf *c, const struct workload *w)
{
	return w->legacy ? c->image_init : c->bench_init;
}

/* The image's content key: format version, every input file's name and
 * bytes, the init script, /bench/run.  tbench's key is the one it had
 * before BENCH, so that its images and figures stand. */
static int image_key(const struct inputs *in, char *key)
{
	struct util_hash *h = util_hash_new();
	char **l;
	int i;

	util_hash_addstr(h, in->w->legacy ? "tbisect-image-3" : "tbisect-image-4");
	if (!in->w->legacy)
		util_hash_addstr(h, in->w->name);
	util_hash_addstr(h, busybox.dst);
	if (util_hash_addfile(h, busybox.src) < 0)
		goto fail;
	for (i = 0; i < in->w->nfiles; i++) {
		util_hash_addstr(h, in->w->files[i].dst);
		if (util_hash_addfile(h, in->w->files[i].src) < 0)
			goto fail;
	}
	for (l = in->libs; *l; l++) {
		util_hash_addstr(h, *l);
		if (util_hash_addfile(h, *l) < 0)
			goto fail;
	}
	if (util_hash_addfile(h, in->init) < 0)
		goto fail;
	if (in->w->script)
		util_hash_addstr(h, in->w->script);
	util_hash_hex(h, key);
	return 0;
fail:
	util_hash_free(h);
	return -1;
}

/* Every input present, or an error that says what to install. */
static int check_inputs(const struct inputs *in)
{
	if (!util_exists(busybox.src))
		return error("%s is missing; install it with: apt-get install %s", busybox.src,
			     busybox.package);
	if (workload_check_host(in->w) < 0)
		return -1;
	if (!util_exists(in->init))
		return error("guest init script %s is missing", in->init);
	return 0;
}

/* Copies the inputs into stage as the guest will see them.  0 or -1. */
static int stage_tree(const struct inputs *in, const char *stage)
{
	const char *dirs[] = { "proc", "sys", "dev", "tmp" };
	char **l, *p;
	size_t i;
	int k;

	util_rm_rf(stage);
	if (stage_file(stage, busybox.src, busybox.dst) < 0)
		return -1;
	for (k = 0; k < in->w->nfiles; k++)
		if (stage_file(stage, in->w->files[k].src, in->w->files[k].dst) < 0)
			return -1;
	for (l = in->libs; *l; l++)
		if (stage_file(stage, *l, *l + 1) < 0)
			return -1;
	if (stage_file(stage, in->init, "init") < 0)
		return -1;
	if (in->w->script) {
		char *d = xasprintf("%s/bench", stage);

		p = xasprintf("%s/run", d);
		k = util_mkdir_p(d) < 0 ||
		    util_write_file_atomic(p, in->w->script, strlen(in->w->script)) < 0;
		free(p);
		free(d);
		if (k)
			return -1;
	}
	/* The kernel runs /init only if it is executable, whatever the mode of
	 * the file it came from; so with a custom program. */
	p = xasprintf("%s/init", stage);
	if (chmod(p, 0755) < 0)
		warning("cannot make %s executable", p);
	free(p);
	p = xasprintf("%s/bench/custom", stage);
	if (util_exists(p) && chmod(p, 0755) < 0)
		warning("cannot make %s executable", p);
	free(p);
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		p = xasprintf("%s/%s", stage, dirs[i]);
		util_mkdir_p(p);
		free(p);
	}
	return 0;
}

/* The file list for cpio, sorted so the archive is byte-for-byte stable,
 * with every file's time set to IMAGE_MTIME: cpio --reproducible keeps
 * mtimes and they reach the guest.  Into *list (caller frees).  0 or -1. */
static int stage_list(const char *stage, struct sbuf *list)
{
	const char *argv[] = { "find", ".", "-mindepth", "1", NULL };
	struct timespec ts[2] = { { IMAGE_MTIME, 0 }, { IMAGE_MTIME, 0 } };
	char *out = NULL, **names = NULL, *p, *line;
	size_t nn = 0, k;

	if (run_capture(argv, stage, &out) != 0) {
		free(out);
		return error("find in %s failed", stage);
	}
	for (p = out; (line = strsep(&p, "\n"));) {
		if (!*line)
			continue;
		names = xrealloc(names, (nn + 1) * sizeof(char *));
		names[nn++] = line;
	}
	qsort(names, nn, sizeof(char *), cmp_str);
	for (k = 0; k < nn; k++) {
		char *f = xasprintf("%s/%s", stage, names[k]);

		if (utimensat(AT_FDCWD, f, ts, AT_SYMLINK_NOFOLLOW) < 0)
			warning("cannot set the time of %s", f);
		free(f);
		sbuf_addf(list, "%s\n", names[k]);
	}
	free(names);
	free(out);
	return 0;
}

/* cpio of the files named in list (relative to stage) into out.  0 or -1. */
static int write_cpio(const char *stage, const char *list, const char *out)
{
	const char *argv[] = { "cpio", "-o", "-H", "newc", "--reproducible", "-R", "0:0",
			       "--quiet", NULL };
	struct run_cmd cmd;
	int st;

	run_init(&cmd, argv);
	cmd.cwd = stage;
	cmd.stdin_path = list;
	cmd.stdout_path = out;
	cmd.timeout = 300;
	st = run_exec(&cmd);
	run_release(&cmd);
	if (st != 0)
		return error("cpio failed (%s); install it with: apt-get install cpio",
			     run_strstatus(st));
	return 0;
}

/* Stages the inputs and writes the archive to path (through a temporary
 * file beside it).  0 or -1. */
static int make_image(const struct inputs *in, const char *dir, const char *path)
{
	char *stage = xasprintf("%s/stage.%ld", dir, (long)getpid());
	char *list = xasprintf("%s.list", stage), *tmp = xasprintf("%s.tmp", path);
	struct sbuf files;
	int ret = -1;

	sbuf_init(&files);
	info("image: building the guest initramfs");
	if (util_mkdir_p(dir) < 0 || stage_tree(in, stage) < 0 ||
	    stage_list(stage, &files) < 0 ||
	    util_write_file_atomic(list, files.buf, files.len) < 0 ||
	    write_cpio(stage, list, tmp) < 0)
		goto out;
	if (rename(tmp, path) < 0) {
		error("cannot rename %s", tmp);
		goto out;
	}
	ret = 0;
out:
	util_rm_rf(stage);
	unlink(list);
	unlink(tmp);
	sbuf_release(&files);
	free(stage);
	free(list);
	free(tmp);
	return ret;
}

int image_lookup(const struct conf *c, const struct workload *w, char *key)
{
	struct inputs in = { w, init_of(c, w), NULL };
	int ret = check_inputs(&in) < 0 || collect_libs(w, &in.libs) < 0 || image_key(&in, key) < 0 ? -1 : 0;

	free_list(in.libs);
	return ret;
}

int image_build(const struct conf *c, const struct workload *w, char **path, char *key)
{
	struct inputs in = { w, init_of(c, w), NULL };
	char *dir = xasprintf("%s/images", c->workdir);
	int ret = -1;

	*path = NULL;
	if (check_inputs(&in) < 0 || collect_libs(w, &in.libs) < 0 || image_key(&in, key) < 0)
		goto out;
	*path = xasprintf("%s/%.16s.cpio", dir, key);
	ret = util_exists(*path) ? 0 : make_image(&in, dir, *path);
	if (ret) {
		free(*path);
		*path = NULL;
	}
out:
	free_list(in.libs);
	free(dir);
	return ret;
}
