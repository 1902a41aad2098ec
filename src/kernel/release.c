/* release: Debian's linux-source releases as a git history. */
#include "release.h"
#include "run.h"
#include "tree.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
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

/* dpkg's order of characters in a non-digit run: '~' before the end,
 * letters before other characters. */
static int char_order(int c)
{
	if (c >= '0' && c <= '9')
		return 0;
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return c;
	if (c == '~')
		return -1;
	return c ? c + 256 : 0;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* dpkg's verrevcmp(): alternating non-digit and digit runs. */
static int verrevcmp(const char *a, const char *b)
{
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !is_digit(*a)) || (*b && !is_digit(*b))) {
			int ac = char_order(*a), bc = char_order(*b);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (is_digit(*a) && is_digit(*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (is_digit(*a))
			return 1;
		if (is_digit(*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

int release_compare(const char *a, const char *b)
{
	const char *ra = strrchr(a, '-'), *rb = strrchr(b, '-');
	char *ua = xstrndup(a, ra ? (size_t)(ra - a) : strlen(a));
	char *ub = xstrndup(b, rb ? (size_t)(rb - b) : strlen(b));
	int r = verrevcmp(ua, ub);

	free(ua);
	free(ub);
	if (r)
		return r;
	return verrevcmp(ra ? ra + 1 : "", rb ? rb + 1 : "");
}

static int cmp_version(const void *a, const void *b)
{
	return release_compare(*(char *const *)a, *(char *const *)b);
}

void release_sort(char **versions, int n)
{
	qsort(versions, (size_t)n, sizeof(*versions), cmp_version);
}

char *release_series(const char *version)
{
	size_t n = strspn(version, "0123456789");

	if (!n || version[n] != '.')
		return NULL;
	n++;
	if (!strspn(version + n, "0123456789"))
		return NULL;
	n += strspn(version + n, "0123456789");
	return xstrndup(version, n);
}

/* DEP-14's mangling, one way (git refuses '~' and ':' in a tag) or back. */
static char *mangle(const char *s, const char *from, const char *to)
{
	char *t = xstrdup(s), *p, *k;

	for (p = t; *p; p++)
		if ((k = strchr(from, *p)))
			*p = to[k - from];
	return t;
}

char *release_tag(const char *version)
{
	return mangle(version, "~:", "_%");
}

char *release_untag(const char *tag)
{
	return mangle(tag, "_%", "~:");
}

/* Adds the versions of package to the list (deduplicated).  0 or -1. */
static int add_versions(const char *package, char ***versions, int *n, int *alloc)
{
	const char *argv[] = { "apt-cache", "madison", package, NULL };
	char *out = NULL, *p, *line;

	if (run_capture(argv, NULL, &out) != 0) {
		free(out);
		return error("apt-cache madison %s failed", package);
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
		if (*n == *alloc) {
			*alloc = *alloc ? *alloc * 2 : 8;
			*versions = xrealloc(*versions, (size_t)*alloc * sizeof(**versions));
		}
		(*versions)[(*n)++] = xstrdup(v);
	}
	free(out);
	return 0;
}

int release_available(const char *series, char ***versions, int *n)
{
	const char *argv[] = { "apt-cache", "pkgnames", "linux-source-", NULL };
	char *out = NULL, *p, *line;
	int alloc = 0, ret = 0;

	*versions = NULL;
	*n = 0;
	if (run_capture(argv, NULL, &out) != 0) {
		free(out);
		return error("apt-cache pkgnames linux-source- failed");
	}
	/* linux-source-MAJOR.MINOR, one per series (not linux-source itself). */
	for (p = out; (line = strsep(&p, "\n")) && !ret;) {
		char *s = !strncmp(line, "linux-source-", 13) ? release_series(line + 13) : NULL;

		if (s && !strcmp(s, line + 13) && (!series || !strcmp(series, s)))
			ret = add_versions(line, versions, n, &alloc);
		free(s);
	}
	free(out);
	if (ret < 0)
		return -1;
	release_sort(*versions, *n);
	if (!*n)
		return error("apt-cache knows no linux-source-%s version (run apt-get update)",
			     series ? series : "X.Y");
	return 0;
}

/* WORKDIR/releases/debs/linux-source-SERIES_VERSION_all.deb, fetched when
 * missing: into a directory of its own first, renamed when whole, so that
 * a download cut short is never taken for the package.  Caller frees,
 * NULL on error. */
static char *fetch_deb(const struct conf *c, const char *series, const char *version)
{
	char *dir = xasprintf("%s/releases/debs", c->workdir);
	char *deb = xasprintf("%s/linux-source-%s_%s_all.deb", dir, series, version);
	char *part = xasprintf("%s/partial", dir);
	char *got = xasprintf("%s/linux-source-%s_%s_all.deb", part, series, version);
	char *pkg = xasprintf("linux-source-%s=%s", series, version);
	const char *argv[] = { "apt-get", "download", "-q", pkg, NULL };
	char *what = xasprintf("apt-get download %s", pkg);

	if (!util_exists(deb) && util_rm_rf(part) == 0 && util_mkdir_p(part) == 0) {
		info("releases: %s: %s", version, what);
		if (run_tool(argv, part, what) == 0 && util_exists(got) && rename(got, deb) < 0)
			error("cannot rename %s to %s: %s", got, deb, strerror(errno));
		util_rm_rf(part);
	}
	free(what);
	free(pkg);
	free(got);
	free(part);
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
static int commit_release(const struct conf *c, const char *repo, const char *series,
			  const char *version, const char *deb)
{
	char *tmp = xasprintf("%s/releases/deb.tmp", c->workdir);
	char *tarball = xasprintf("%s/usr/src/linux-source-%s.tar.xz", tmp, series);
	char *msg = xasprintf("linux-source-%s %s", series, version);
	char *tag = release_tag(version);
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
	    TREE_GIT(repo, NULL, 0, "tag", tag) != 0) {
		error("git add/commit/tag of %s failed in %s", version, repo);
		goto out;
	}
	ret = 0;
out:
	util_rm_rf(tmp);
	free(tag);
	free(msg);
	free(tarball);
	free(tmp);
	return ret;
}

static int has_tag(const char *repo, const char *version)
{
	char *tag = release_tag(version), *ref = xasprintf("refs/tags/%s", tag);
	int st = TREE_GIT(repo, NULL, 1, "rev-parse", "-q", "--verify", ref);

	free(ref);
	free(tag);
	return st == 0;
}

/* The newest version committed so far ("" when none), its tag turned back
 * into the Debian version; caller frees. */
static char *tip_version(const char *repo)
{
	char *out = NULL, *p;

	if (TREE_GIT(repo, &out, 1, "describe", "--tags", "--exact-match", "HEAD") != 0) {
		free(out);
		return xstrdup("");
	}
	p = release_untag(out);
	free(out);
	return p;
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
	char *repo = release_repo(c), *tip = NULL, *series = NULL, *deb;
	int i, ret = -1;

	if (ensure_repo(repo) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (has_tag(repo, versions[i]))
			continue;
		free(tip);
		tip = tip_version(repo);
		if (*tip && release_compare(versions[i], tip) < 0) {
			error("%s is older than %s, the newest release in %s: releases go in in order",
			      versions[i], tip, repo);
			goto out;
		}
		free(series);
		if (!(series = release_series(versions[i]))) {
			error("%s is not a linux-source version (MAJOR.MINOR.PATCH-REV)", versions[i]);
			goto out;
		}
		if (util_interrupted || !(deb = fetch_deb(c, series, versions[i])))
			goto out;
		ret = commit_release(c, repo, series, versions[i], deb);
		free(deb);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	ret = 0;
out:
	free(series);
	free(tip);
	free(repo);
	return ret;
}
