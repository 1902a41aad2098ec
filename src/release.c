/* release: Debian's linux-source releases as a git history. */
#include "release.h"
#include "run.h"
#include "tree.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *release_repo(const struct conf *c)
{
	return xasprintf("%s/releases/tree", c->workdir);
}

void release_free_list(char **versions, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(versions[i]);
	free(versions);
}

static int cmp_version(const void *a, const void *b)
{
	/* 6.1.170-3 < 6.1.176-1 < 6.1.192-1 < 6.1.192-2: numbers compare as
	 * numbers, which is Debian's order for these. */
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

void release_sort(char **versions, int n)
{
	qsort(versions, (size_t)n, sizeof(*versions), cmp_version);
}

int release_available(char ***versions, int *n)
{
	const char *argv[] = { "apt-cache", "madison", "linux-source-6.1", NULL };
	char *out = NULL, *p, *line;
	int alloc = 0;

	*versions = NULL;
	*n = 0;
	if (run_capture(argv, NULL, &out) != 0) {
		free(out);
		return error("apt-cache madison linux-source-6.1 failed");
	}
	/* " linux-source-6.1 | 6.1.192-3 | http://... Packages" */
	for (p = out; (line = strsep(&p, "\n"));) {
		char *f1 = strchr(line, '|'), *f2 = f1 ? strchr(f1 + 1, '|') : NULL;
		char *v;
		int k;

		if (!f2)
			continue;
		*f2 = '\0';
		v = util_trim(f1 + 1);
		for (k = 0; k < *n && strcmp((*versions)[k], v); k++)
			;
		if (!*v || k < *n)
			continue;
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 8;
			*versions = xrealloc(*versions, (size_t)alloc * sizeof(**versions));
		}
		(*versions)[(*n)++] = xstrdup(v);
	}
	free(out);
	release_sort(*versions, *n);
	if (!*n)
		return error("apt-cache knows no linux-source-6.1 version (run apt-get update)");
	return 0;
}

/* WORKDIR/releases/debs/linux-source-6.1_VERSION_all.deb, fetched when
 * missing; caller frees, NULL on error. */
static char *fetch_deb(const struct conf *c, const char *version)
{
	char *dir = xasprintf("%s/releases/debs", c->workdir);
	char *deb = xasprintf("%s/linux-source-6.1_%s_all.deb", dir, version);
	char *pkg = xasprintf("linux-source-6.1=%s", version);
	const char *argv[] = { "apt-get", "download", "-q", pkg, NULL };
	char *what = xasprintf("apt-get download %s", pkg);

	if (!util_exists(deb) && util_mkdir_p(dir) == 0) {
		info("releases: %s: %s", version, what);
		run_tool(argv, dir, what);
	}
	free(what);
	free(pkg);
	free(dir);
	if (!util_exists(deb)) {
		free(deb);
		return NULL;
	}
	return deb;
}

/* Empties the work tree of repo (everything but .git).  0 or -1. */
static int clear_tree(const char *repo)
{
	DIR *d = opendir(repo);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return error("cannot open %s", repo);
	while ((e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git"))
			continue;
		p = xasprintf("%s/%s", repo, e->d_name);
		if (util_rm_rf(p) < 0)
			ret = error("cannot remove %s", p);
		free(p);
	}
	closedir(d);
	return ret;
}

/* The release's tree as the next commit of repo, tagged.  0 or -1. */
static int commit_release(const struct conf *c, const char *repo, const char *version,
			  const char *deb)
{
	char *tmp = xasprintf("%s/releases/deb.tmp", c->workdir);
	char *tarball = xasprintf("%s/usr/src/linux-source-6.1.tar.xz", tmp);
	char *msg = xasprintf("linux-source-6.1 %s", version);
	int ret = -1;

	util_rm_rf(tmp);
	info("releases: %s: extracting (about a minute)", version);
	if (run_tool((const char *const[]){ "dpkg-deb", "-x", deb, tmp, NULL }, NULL, "dpkg-deb -x") < 0 ||
	    clear_tree(repo) < 0 ||
	    run_tool((const char *const[]){ "tar", "-xf", tarball, "-C", repo,
					    "--strip-components=1", "--no-same-owner", NULL },
		     NULL, "tar -x") < 0)
		goto out;
	info("releases: %s: committing", version);
	/* The tarball's .gitignore ignores everything: -f. */
	if (TREE_GIT(repo, NULL, 0, "add", "-A", "-f", ".") != 0 ||
	    TREE_GIT(repo, NULL, 0, "commit", "-q", "--no-verify", "--allow-empty", "-m", msg) != 0 ||
	    TREE_GIT(repo, NULL, 0, "tag", version) != 0) {
		error("git add/commit/tag of %s failed in %s", version, repo);
		goto out;
	}
	ret = 0;
out:
	util_rm_rf(tmp);
	free(msg);
	free(tarball);
	free(tmp);
	return ret;
}

static int has_tag(const char *repo, const char *version)
{
	char *ref = xasprintf("refs/tags/%s", version);
	int st = TREE_GIT(repo, NULL, 1, "rev-parse", "-q", "--verify", ref);

	free(ref);
	return st == 0;
}

/* The newest version committed so far ("" when none); caller frees. */
static char *tip_version(const char *repo)
{
	char *out = NULL;

	if (TREE_GIT(repo, &out, 1, "describe", "--tags", "--exact-match", "HEAD") != 0) {
		free(out);
		return xstrdup("");
	}
	return out;
}

static int ensure_repo(const char *repo)
{
	char *git = xasprintf("%s/.git", repo);
	int ret = 0;

	if (!util_exists(git) &&
	    (util_mkdir_p(repo) < 0 ||
	     TREE_GIT(repo, NULL, 0, "init", "-q", "-b", "releases") != 0))
		ret = error("git init %s failed", repo);
	free(git);
	return ret;
}

int release_import(const struct conf *c, char **versions, int n)
{
	char *repo = release_repo(c), *tip = NULL, *deb;
	int i, ret = -1;

	if (ensure_repo(repo) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (has_tag(repo, versions[i]))
			continue;
		free(tip);
		tip = tip_version(repo);
		if (*tip && strverscmp(versions[i], tip) < 0) {
			error("%s is older than %s, the newest release in %s: releases go in in order",
			      versions[i], tip, repo);
			goto out;
		}
		if (util_interrupted || !(deb = fetch_deb(c, versions[i])))
			goto out;
		ret = commit_release(c, repo, versions[i], deb);
		free(deb);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	ret = 0;
out:
	free(tip);
	free(repo);
	return ret;
}
