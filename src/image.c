#include "image.h"
#include "run.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* 2009-01-01 00:00 UTC, like KBUILD_BUILD_TIMESTAMP. */
#define IMAGE_MTIME 1230768000

struct input {
	const char *src;
	const char *dst;	/* path inside the image */
	const char *package;	/* what to install when it is missing */
};

static const struct input fixed_inputs[] = {
	{ "/bin/busybox", "bin/busybox", "busybox-static" },
	{ "/usr/bin/tbench", "bin/tbench", "dbench" },
	{ "/usr/bin/tbench_srv", "bin/tbench_srv", "dbench" },
	{ "/usr/share/dbench/client.txt", "usr/share/dbench/client.txt", "dbench" },
};

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

/* Libraries of the dynamically linked programs, deduplicated. */
static int collect_libs(char ***out)
{
	const char *progs[] = { "/usr/bin/tbench", "/usr/bin/tbench_srv" };
	char **all = xcalloc(1, sizeof(char *));
	size_t n = 0, i;

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		const char *argv[] = { "ldd", progs[i], NULL };
		char *text = NULL, **libs, **l;

		if (run_capture(argv, NULL, &text) != 0) {
			free(text);
			free_list(all);
			return error("ldd %s failed (is libc-bin installed?)", progs[i]);
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

int image_build(const struct conf *c, char **path, char *key)
{
	char **libs = NULL, **l;
	struct util_hash *h = util_hash_new();
	char *dir = xasprintf("%s/images", c->workdir), *stage = NULL, *list = NULL, *tmp = NULL;
	struct sbuf files;
	size_t i;
	int ret = -1, st;

	*path = NULL;
	sbuf_init(&files);
	for (i = 0; i < ARRAY_SIZE(fixed_inputs); i++) {
		if (!util_exists(fixed_inputs[i].src)) {
			error("%s is missing; install it with: apt-get install %s", fixed_inputs[i].src,
			      fixed_inputs[i].package);
			goto out_hash;
		}
	}
	if (!util_exists(c->image_init)) {
		error("guest init script %s is missing", c->image_init);
		goto out_hash;
	}
	if (collect_libs(&libs) < 0)
		goto out_hash;
	util_hash_addstr(h, "tbisect-image-3");
	for (i = 0; i < ARRAY_SIZE(fixed_inputs); i++) {
		util_hash_addstr(h, fixed_inputs[i].dst);
		if (util_hash_addfile(h, fixed_inputs[i].src) < 0)
			goto out_hash;
	}
	for (l = libs; *l; l++) {
		util_hash_addstr(h, *l);
		if (util_hash_addfile(h, *l) < 0)
			goto out_hash;
	}
	if (util_hash_addfile(h, c->image_init) < 0)
		goto out_hash;
	util_hash_hex(h, key);
	h = NULL;

	*path = xasprintf("%s/%.16s.cpio", dir, key);
	if (util_exists(*path)) {
		ret = 0;
		goto out;
	}
	info("image: building the guest initramfs");
	if (util_mkdir_p(dir) < 0)
		goto out;
	stage = xasprintf("%s/stage.%ld", dir, (long)getpid());
	util_rm_rf(stage);
	for (i = 0; i < ARRAY_SIZE(fixed_inputs); i++)
		if (stage_file(stage, fixed_inputs[i].src, fixed_inputs[i].dst) < 0)
			goto out;
	for (l = libs; *l; l++)
		if (stage_file(stage, *l, *l + 1) < 0)
			goto out;
	if (stage_file(stage, c->image_init, "init") < 0)
		goto out;
	{
		/* The kernel runs /init only if it is executable, whatever the
		 * mode of the file it came from. */
		char *init = xasprintf("%s/init", stage);

		if (chmod(init, 0755) < 0)
			warning("cannot make %s executable", init);
		free(init);
	}
	{
		const char *dirs[] = { "proc", "sys", "dev", "tmp" };

		for (i = 0; i < ARRAY_SIZE(dirs); i++) {
			char *d = xasprintf("%s/%s", stage, dirs[i]);

			util_mkdir_p(d);
			free(d);
		}
	}
	/* The list for cpio: sorted, so the archive is byte-for-byte stable. */
	{
		const char *argv[] = { "find", ".", "-mindepth", "1", NULL };
		char *out = NULL, **names = NULL, *p, *line;
		size_t nn = 0, k;

		if (run_capture(argv, stage, &out) != 0) {
			free(out);
			error("find in %s failed", stage);
			goto out;
		}
		for (p = out; (line = strsep(&p, "\n"));) {
			if (!*line)
				continue;
			names = xrealloc(names, (nn + 1) * sizeof(char *));
			names[nn++] = line;
		}
		qsort(names, nn, sizeof(char *), cmp_str);
		/* cpio --reproducible keeps mtimes, and they reach the guest: one
		 * fixed time makes the archive the same bytes on every machine. */
		for (k = 0; k < nn; k++) {
			struct timespec ts[2] = { { IMAGE_MTIME, 0 }, { IMAGE_MTIME, 0 } };
			char *f = xasprintf("%s/%s", stage, names[k]);

			if (utimensat(AT_FDCWD, f, ts, AT_SYMLINK_NOFOLLOW) < 0)
				warning("cannot set the time of %s", f);
			free(f);
		}
		for (k = 0; k < nn; k++)
			sbuf_addf(&files, "%s\n", names[k]);
		free(names);
		free(out);
	}
	list = xasprintf("%s.list", stage);
	if (util_write_file_atomic(list, files.buf, files.len) < 0)
		goto out;
	tmp = xasprintf("%s.tmp", *path);
	{
		const char *argv[] = { "cpio", "-o", "-H", "newc", "--reproducible", "-R", "0:0",
				       "--quiet", NULL };
		struct run_cmd cmd;

		run_init(&cmd, argv);
		cmd.cwd = stage;
		cmd.stdin_path = list;
		cmd.stdout_path = tmp;
		cmd.timeout = 300;
		st = run_exec(&cmd);
		run_release(&cmd);
		if (st != 0) {
			error("cpio failed (%s); install it with: apt-get install cpio", run_strstatus(st));
			goto out;
		}
	}
	if (rename(tmp, *path) < 0) {
		error("cannot rename %s", tmp);
		goto out;
	}
	ret = 0;
out:
	if (stage)
		util_rm_rf(stage);
	if (list)
		unlink(list);
	if (tmp)
		unlink(tmp);
out_hash:
	if (h) {
		char junk[65];

		util_hash_hex(h, junk);
	}
	if (ret) {
		free(*path);
		*path = NULL;
	}
	sbuf_release(&files);
	free_list(libs);
	free(stage);
	free(list);
	free(tmp);
	free(dir);
	return ret;
}
