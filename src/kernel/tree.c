/* tree: the kernel work tree, its history, and the states a command works on. */
#include "tree.h"
#include "build.h"
#include "run.h"
#include "series.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Fixed identity and dates: reproducible commit ids for the same series. */
static const char *const git_env[] = {
	"GIT_AUTHOR_NAME=tbisect", "GIT_AUTHOR_EMAIL=tbisect@localhost",
	"GIT_COMMITTER_NAME=tbisect", "GIT_COMMITTER_EMAIL=tbisect@localhost",
	"GIT_AUTHOR_DATE=1230768000 +0000", "GIT_COMMITTER_DATE=1230768000 +0000",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", NULL
};

void tree_init(struct tree *t, const struct conf *c)
{
	memset(t, 0, sizeof(*t));
	t->conf = c;
	if (c->gittree) {
		struct util_hash *h = util_hash_new();
		char key[65];

		util_hash_addstr(h, c->gittree);
		util_hash_hex(h, key);
		t->outname = xasprintf("git/%.16s/build", key);
		t->dir = xasprintf("%s/git/%.16s/linux", c->workdir, key);
		t->repo = xstrdup(c->gittree);
		t->source = xstrdup(c->gittree);
		t->name = util_basename_dup(c->gittree);
	} else {
		t->outname = xstrdup("build");
		t->dir = xasprintf("%s/linux", c->workdir);
		t->repo = xstrdup(t->dir);
		t->source = xasprintf("kpatches series %s on linux-source-6.1", c->patches);
		{
			char *base = util_basename_dup(c->patches);

			t->name = xasprintf("series %s", base);
			free(base);
		}
		t->series = 1;
	}
}

void tree_init_checkout(struct tree *t, const struct conf *c, const char *dir)
{
	struct util_hash *h = util_hash_new();
	char key[65];

	char *wd = realpath(c->workdir, NULL), *slash = strrchr(dir, '/');
	size_t wl = wd ? strlen(wd) : 0;

	memset(t, 0, sizeof(*t));
	t->conf = c;
	/* A tree at WORKDIR/X/linux builds in WORKDIR/X/build: laid out as the
	 * series is, ccache's basedir serves it from the same cache.  Anywhere
	 * else as TREE mode's clones: WORKDIR/git/KEY/build, KEY from the path. */
	if (wd && !strncmp(dir, wd, wl) && dir[wl] == '/' && slash && slash > dir + wl &&
	    !strcmp(slash, "/linux")) {
		t->outname = xasprintf("%.*s/build", (int)(slash - dir - wl - 1), dir + wl + 1);
		util_hash_free(h);
	} else {
		util_hash_addstr(h, dir);
		util_hash_hex(h, key);
		t->outname = xasprintf("git/%.16s/build", key);
	}
	free(wd);
	t->dir = xstrdup(dir);
	t->repo = xstrdup(dir);
	t->source = xstrdup(dir);
	t->name = util_basename_dup(dir);
	t->checkout = 1;
}

void tree_range_release(struct tree_range *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		free(r->state[i].name);
		free(r->state[i].subject);
	}
	free(r->state);
	r->state = NULL;
	r->n = 0;
}

void tree_release(struct tree *t)
{
	free(t->dir);
	free(t->outname);
	free(t->repo);
	free(t->source);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

/* Runs git as tree_git_cmd() does; with index != NULL, on that index file
 * (GIT_INDEX_FILE) instead of the work tree's. */
static int git_cmd(const char *dir, char **out, int quiet, const char *index,
		   const char *const *args)
{
	const char *argv[32], *env[16];
	struct run_cmd cmd;
	char *ienv = index ? xasprintf("GIT_INDEX_FILE=%s", index) : NULL;
	int i = 0, e = 0, ret;

	argv[i++] = "git";
	argv[i++] = "-c";
	argv[i++] = "core.autocrlf=false";
	argv[i++] = "-c";
	argv[i++] = "gc.auto=0";
	for (; *args && i < 31; args++)
		argv[i++] = *args;
	argv[i] = NULL;
	for (; git_env[e]; e++)
		env[e] = git_env[e];
	if (ienv)
		env[e++] = ienv;
	env[e] = NULL;
	run_init(&cmd, argv);
	cmd.cwd = dir;
	cmd.env = env;
	cmd.capture = out != NULL;
	if (!out)
		cmd.stdout_path = "/dev/null";	/* git's chatter is not our output */
	cmd.stderr_null = quiet;
	ret = run_exec(&cmd);
	if (out)
		*out = xstrdup(util_trim(cmd.out.buf));
	run_release(&cmd);
	free(ienv);
	return ret;
}

int tree_git_cmd(const char *dir, char **out, int quiet, const char *const *args)
{
	return git_cmd(dir, out, quiet, NULL, args);
}

/* git on the index file idx, not the work tree's. */
#define GIT_IDX(dir, out, idx, ...) git_cmd(dir, out, 1, idx, (const char *const[]){ __VA_ARGS__, NULL })

#define GIT(dir, out, quiet, ...) TREE_GIT(dir, out, quiet, __VA_ARGS__)

int tree_rev_parse(const char *dir, const char *rev, char *out)
{
	char *r = NULL;
	int ret = GIT(dir, &r, 1, "rev-parse", "--verify", "-q", rev);

	if (ret != 0 || strlen(r) != 40) {
		free(r);
		return -1;
	}
	memcpy(out, r, 41);
	free(r);
	return 0;
}

static char *base_marker(const struct tree *t)
{
	return xasprintf("%s/.git/tbisect-base", t->dir);
}

/* The series: its commits end at SERIES_REF; the marker holds its hash. */
#define SERIES_REF "refs/tbisect/series"

static char *series_marker(const struct tree *t)
{
	return xasprintf("%s/.git/tbisect-series", t->dir);
}

/* What the base tree was extracted from: the tarball's SHA-256, and its
 * size, mtime and path, which spare the hash while they are unchanged. */
struct tarball_id {
	char sha[65];
	long size, mtime;
	char *path;
};

static int tarball_stat(const struct conf *c, struct tarball_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (stat(c->tarball, &st) < 0)
		return error("no kernel source tarball at %s\n"
			     "  install it with: apt-get install linux-source-6.1   (or run: make deps)",
			     c->tarball);
	id->size = (long)st.st_size;
	id->mtime = (long)st.st_mtime;
	id->path = xstrdup(c->tarball);
	return 0;
}

/* Parses a marker, "SHA SIZE MTIME PATH", or only "SHA" as tbisect 0.1.0
 * wrote it, which leaves size -1 so that the hash decides.  0 or -1. */
static int marker_parse(const char *text, struct tarball_id *id)
{
	char *copy = xstrdup(text), *p = util_trim(copy), *f[4] = { NULL };
	int k, ret = -1;

	memset(id, 0, sizeof(*id));
	id->size = id->mtime = -1;
	for (k = 0; k < 4 && p; k++)
		f[k] = strsep(&p, " ");
	if (k < 1 || strlen(f[0]) != 64)
		goto out;
	if (k > 1 && (k < 4 || util_parse_long(f[1], &id->size) < 0 ||
		      util_parse_long(f[2], &id->mtime) < 0))
		goto out;
	memcpy(id->sha, f[0], 65);
	id->path = xstrdup(k == 4 ? f[3] : "");
	ret = 0;
out:
	free(copy);
	return ret;
}

static char *marker_format(const struct tarball_id *id)
{
	return xasprintf("%s %ld %ld %s\n", id->sha, id->size, id->mtime, id->path);
}

/* Compares the tarball with what the tree came from: 0 the same, 1 it
 * changed (a new linux-source point release, another TARBALL), -1 error.
 * cur gets the tarball's id, hashed when it had to be. */
static int tarball_changed(const struct tree *t, const char *marker, struct tarball_id *cur)
{
	struct tarball_id old;
	char *text = NULL, *m;
	int ret;

	if (tarball_stat(t->conf, cur) < 0 || util_read_file(marker, &text, NULL) < 0)
		return -1;
	ret = marker_parse(text, &old);
	free(text);
	if (ret == 0 && old.size == cur->size && old.mtime == cur->mtime &&
	    !strcmp(old.path, cur->path)) {
		memcpy(cur->sha, old.sha, 65);
		free(old.path);
		return 0;
	}
	info("prepare: %s is not the file the tree came from (size, time or path); hashing it",
	     t->conf->tarball);
	ret = util_sha256_file(t->conf->tarball, cur->sha) < 0 ? -1 : strcmp(cur->sha, old.sha) != 0;
	free(old.path);
	if (ret == 0) {
		/* Same bytes, touched or copied: remember the new size and time. */
		m = marker_format(cur);
		util_write_file_atomic(marker, m, strlen(m));
		free(m);
	}
	return ret;
}

/* Puts directory tmp where dir is, in one step when dir exists (the old
 * tree then is at tmp, removed here).  0 or -1 (reported). */
static int swap_into_place(const char *tmp, const char *dir)
{
	if (util_exists(dir)) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) < 0)
			return error("cannot exchange %s and %s: %s", tmp, dir, strerror(errno));
		util_rm_rf(tmp);
		return 0;
	}
	if (rename(tmp, dir) < 0)
		return error("cannot rename %s to %s: %s", tmp, dir, strerror(errno));
	return 0;
}

static int extract_base(struct tree *t, const char *marker_text)
{
	const struct conf *c = t->conf;
	char *tmp = xasprintf("%s/linux.tmp", c->workdir);
	char *msg = NULL, *marker = NULL;
	double start = util_now();
	int ret = -1, st;

	/* The tree in place stays until its successor is whole (a corrupt
	 * or half-downloaded tarball, a full disk, a kill): only a leftover
	 * of an earlier attempt goes now. */
	util_rm_rf(tmp);
	if (util_mkdir_p(tmp) < 0)
		goto out;
	info("prepare: extracting %s (about 10-60 s)", c->tarball);
	{
		const char *argv[] = { "tar", "-xf", c->tarball, "-C", tmp, "--strip-components=1",
				       "--no-same-owner", NULL };
		struct run_cmd cmd;

		run_init(&cmd, argv);
		st = run_exec(&cmd);
		run_release(&cmd);
		if (st != 0) {
			error("extracting %s failed: %s", c->tarball, run_strstatus(st));
			goto out;
		}
	}
	info("prepare: making the pristine tree a git repository (about 30-90 s)");
	if (GIT(tmp, NULL, 0, "init", "-q") != 0 ||
	    GIT(tmp, NULL, 0, "add", "-A", "-f", ".") != 0) {
		error("git init/add in %s failed", tmp);
		goto out;
	}
	msg = xasprintf("base: pristine %s", c->tarball);
	if (GIT(tmp, NULL, 0, "commit", "-q", "--no-verify", "-m", msg) != 0) {
		error("git commit of the base tree failed");
		goto out;
	}
	GIT(tmp, NULL, 1, "tag", "-f", "tbisect-base");
	marker = xasprintf("%s/.git/tbisect-base", tmp);
	if (util_write_file_atomic(marker, marker_text, strlen(marker_text)) < 0)
		goto out;
	if (swap_into_place(tmp, t->dir) < 0)
		goto out;
	info("prepare: base tree ready in %.0f s", util_now() - start);
	ret = 0;
out:
	if (ret)
		util_rm_rf(tmp);
	free(marker);
	free(msg);
	free(tmp);
	return ret;
}

int tree_checkout(const struct tree *t, const char *commit)
{
	if (GIT(t->dir, NULL, 1, "checkout", "-q", "-f", "--detach", commit) != 0)
		return error("git checkout %s in %s failed", commit, t->dir);
	return 0;
}

static struct tree_state *add_state(struct tree_range *r, int *alloc)
{
	struct tree_state *s;

	if (r->n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 32;
		r->state = xrealloc(r->state, (size_t)*alloc * sizeof(*r->state));
	}
	s = &r->state[r->n];
	memset(s, 0, sizeof(*s));
	s->index = r->n++;
	return s;
}

int tree_commit_file(const struct tree *t, const char *parent, const char *path, const char *data,
		     const char *msg, char *id, char *treeid_out)
{
	char *tmp = xasprintf("%s/.git/tbisect-file.tmp", t->dir);
	char *idx = xasprintf("%s/.git/tbisect-file.index", t->dir);
	char *blob = NULL, *info = NULL, *treeid = NULL, *out = NULL;
	int ret = -1;

	if (util_write_file_atomic(tmp, data, strlen(data)) < 0)
		goto out;
	if (GIT(t->dir, &blob, 1, "hash-object", "-w", tmp) != 0 || strlen(blob) != 40)
		goto fail;
	info = xasprintf("100644,%s,%s", blob, path);
	unlink(idx);
	if (GIT_IDX(t->dir, NULL, idx, "read-tree", parent) != 0 ||
	    GIT_IDX(t->dir, NULL, idx, "update-index", "--add", "--cacheinfo", info) != 0 ||
	    GIT_IDX(t->dir, &treeid, idx, "write-tree") != 0 || strlen(treeid) != 40 ||
	    GIT_IDX(t->dir, &out, idx, "commit-tree", treeid, "-p", parent, "-m", msg) != 0 ||
	    strlen(out) != 40)
		goto fail;
	memcpy(id, out, 41);
	if (treeid_out)
		memcpy(treeid_out, treeid, 41);
	ret = 0;
	goto out;
fail:
	error("git commit of %s on %.12s failed in %s", path, parent, t->dir);
out:
	unlink(tmp);
	unlink(idx);
	free(tmp);
	free(idx);
	free(blob);
	free(info);
	free(treeid);
	free(out);
	return ret;
}

/* Commits patch i of the series on commit last (applied, or an empty
 * commit when it does not apply: a state to skip), through the index
 * file idx, which holds last's tree.  The trailers number and name the
 * state for tree_list().  The new commit's id goes into last.  0 or -1. */
static int commit_patch(struct tree *t, const struct series_patch *p, int i, const char *idx,
			char *last)
{
	int noapply = GIT_IDX(t->dir, NULL, idx, "apply", "--cached", "--whitespace=nowarn",
			      p->path) != 0;
	char *msg, *treeid = NULL, *id = NULL;
	int ret = -1;

	if (noapply) {
		warning("%s: patch %d does not apply to state %d; state %d will be skipped",
			p->name, i, i - 1, i);
		GIT_IDX(t->dir, NULL, idx, "read-tree", last);
	}
	/* Ends in one newline, as `git commit -m` leaves it: the same ids as
	 * before this was done without the work tree. */
	msg = xasprintf("%s\n\nTbisect-State: %d\nTbisect-Patch: %s\n%s", p->subject, i, p->name,
			noapply ? "Tbisect-Status: noapply\n" : "");
	if (GIT_IDX(t->dir, &treeid, idx, "write-tree") != 0 || strlen(treeid) != 40 ||
	    GIT_IDX(t->dir, &id, idx, "commit-tree", treeid, "-p", last, "-m", msg) != 0 ||
	    strlen(id) != 40) {
		error("git commit of %s failed", p->name);
		goto out;
	}
	memcpy(last, id, 41);
	ret = 0;
out:
	free(treeid);
	free(id);
	free(msg);
	return ret;
}

/* The series' commits on the base, refs/tbisect/series at the last one,
 * and the series hash beside it.  Made on an index file of their own:
 * the work tree keeps what the last build compiled, so that checking out
 * a state of the new series rewrites only the files that differ (make
 * rebuilds only what they touch).  0 or -1. */
static int apply_series(struct tree *t, const struct series *s)
{
	char last[41], *marker = series_marker(t), *idx = xasprintf("%s/.git/tbisect-index", t->dir);
	char *text;
	int i, ret = -1;

	if (tree_rev_parse(t->dir, "tbisect-base^{commit}", last) < 0) {
		error("the work tree %s has no tbisect-base tag; remove it and prepare again", t->dir);
		goto out;
	}
	if (GIT_IDX(t->dir, NULL, idx, "read-tree", last) != 0) {
		error("git read-tree %s failed in %s", last, t->dir);
		goto out;
	}
	for (i = 0; i < s->n; i++) {
		if (util_interrupted) {
			error("interrupted");
			goto out;
		}
		if (commit_patch(t, &s->patch[i], i + 1, idx, last) < 0)
			goto out;
	}
	if (GIT(t->dir, NULL, 1, "update-ref", SERIES_REF, last) != 0) {
		error("git update-ref %s failed in %s", SERIES_REF, t->dir);
		goto out;
	}
	text = xasprintf("%s\n", s->hash);
	ret = util_write_file_atomic(marker, text, strlen(text));
	free(text);
out:
	unlink(idx);
	free(idx);
	free(marker);
	return ret;
}

/* Whether the series with hash is applied already: 1, else 0. */
static int series_applied(const struct tree *t, const char *hash)
{
	char *marker = series_marker(t), *text = NULL, id[41];
	int ok = util_exists(marker) && util_read_file(marker, &text, NULL) == 0 &&
		 !strcmp(util_trim(text), hash) && tree_rev_parse(t->dir, SERIES_REF, id) == 0;

	free(text);
	free(marker);
	return ok;
}

/* Extracts the tarball as the new base tree.  0 or -1. */
static int extract(struct tree *t, struct tarball_id *id)
{
	char *m;
	int ret;

	if (!id->sha[0] && util_sha256_file(t->conf->tarball, id->sha) < 0)
		return -1;
	m = marker_format(id);
	ret = extract_base(t, m);
	free(m);
	return ret;
}

/* Makes sure WORKDIR/linux holds the current tarball: 0 kept, 1 extracted
 * (anew), -1 error. */
static int ensure_base(struct tree *t)
{
	char *marker = base_marker(t);
	struct tarball_id id;
	int r;

	memset(&id, 0, sizeof(id));
	if (!util_exists(marker)) {
		r = tarball_stat(t->conf, &id) < 0 || extract(t, &id) < 0 ? -1 : 1;
	} else if ((r = tarball_changed(t, marker, &id)) == 1) {
		info("prepare: %s changed since %s was extracted from it; extracting it again",
		     t->conf->tarball, t->dir);
		r = extract(t, &id) < 0 ? -1 : 1;
	}
	free(id.path);
	free(marker);
	return r;
}

/* TREE mode: tbisect's own clone, sharing the user's objects.  0 or -1. */
static int git_clone(struct tree *t)
{
	char *tmp, *parent;
	int ret = -1;

	if (GIT(t->repo, NULL, 1, "rev-parse", "--git-dir") != 0)
		return error("TREE %s is not a git repository", t->repo);
	if (util_exists(t->dir))
		return 0;
	parent = xasprintf("%s/..", t->dir);
	tmp = xasprintf("%s.tmp", t->dir);
	util_rm_rf(tmp);
	if (util_mkdir_p(parent) < 0)
		goto out;
	info("prepare: cloning %s (objects shared, nothing in it is changed)", t->repo);
	if (GIT(t->conf->workdir, NULL, 0, "clone", "-q", "--shared", "--no-checkout", t->repo,
		tmp) != 0) {
		error("git clone --shared %s failed", t->repo);
		goto out;
	}
	if (swap_into_place(tmp, t->dir) < 0)
		goto out;
	ret = 0;
out:
	if (ret)
		util_rm_rf(tmp);
	free(tmp);
	free(parent);
	return ret;
}

int tree_commit(const struct tree *t, const char *rev, char *id)
{
	char *spec = xasprintf("%s^{commit}", rev);
	int ret = tree_rev_parse(t->repo, spec, id);

	free(spec);
	if (ret < 0)
		return error("'%s' is not a commit in %s", rev, t->repo);
	return 0;
}

int tree_is_ancestor(const struct tree *t, const char *anc, const char *desc)
{
	int st = GIT(t->dir, NULL, 1, "merge-base", "--is-ancestor", anc, desc);

	if (st == 0 || st == 1)
		return st == 0;
	return error("git merge-base --is-ancestor failed in %s (%s)", t->dir, run_strstatus(st));
}

char *tree_subject(const struct tree *t, const char *commit)
{
	char *out = NULL;

	if (GIT(t->dir, &out, 1, "log", "-1", "--format=%s", commit) != 0) {
		free(out);
		return xstrdup("?");
	}
	return out;
}

/* One line of tree_list()'s git log: id, tree, parents, the series'
 * trailers (state number, patch name, status), subject.  0 or -1. */
static int parse_state(const struct tree *t, char *line, struct tree_state *s)
{
	char *f[9], *par, *tag;
	int own;
	long idx;
	int k;

	for (k = 0; k < 8 && line; k++)
		f[k] = strsep(&line, "\t");
	if (k < 8 || !line || strlen(f[0]) != 40 || strlen(f[1]) != 40)
		return -1;
	f[8] = line;	/* the subject, tabs and all */
	/* A config range's commits are tbisect's own in any tree. */
	own = t->series || *f[6];
	memcpy(s->commit, f[0], 41);
	memcpy(s->treeid, f[1], 41);
	par = strchr(f[2], ' ');
	s->merge = par != NULL;
	if (par)
		snprintf(s->parent2, sizeof(s->parent2), "%.40s", par + 1);
	/* The trailers name and number the series' states only: in a user's
	 * tree they are text like any other. */
	if (own && *f[3] && util_parse_long(f[3], &idx) == 0 && idx > 0 && idx < 1000000)
		s->index = (int)idx;
	tag = strstr(f[7], "tag: ");	/* %D: "HEAD -> main, tag: v6.12.95, ..." */
	s->named = own || tag;
	if (own)	/* the series' base has no trailer */
		s->name = *f[4] ? xstrdup(f[4]) : xstrdup("base");
	else if (tag)	/* a state is named by its tag, else its short id */
		s->name = xstrndup(tag + 5, strcspn(tag + 5, ","));
	else
		s->name = xasprintf("%.12s", s->commit);
	s->broken = own && !strcmp(f[5], "noapply");
	s->subject = xstrdup(f[8]);
	return 0;
}

int tree_list(const struct tree *t, const char *good, const char *bad, struct tree_range *r)
{
	const char *fmt = "--format=%H%x09%T%x09%P%x09"
			  "%(trailers:key=Tbisect-State,valueonly,separator=%x2C)%x09"
			  "%(trailers:key=Tbisect-Patch,valueonly,separator=%x2C)%x09"
			  "%(trailers:key=Tbisect-Status,valueonly,separator=%x2C)%x09"
			  "%(trailers:key=Tbisect-Config,valueonly,separator=%x2C)%x09%D%x09%s";
	char *range = xasprintf("%s^!", good), *out = NULL, *p, *line;
	int alloc = 0, ret = -1;

	memset(r, 0, sizeof(*r));
	if (GIT(t->dir, NULL, 1, "merge-base", "--is-ancestor", good, bad) != 0) {
		error("GOOD %.12s is not an ancestor of BAD %.12s", good, bad);
		goto out;
	}
	/* GOOD's own line, then the chain, in two cheap processes. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			free(range);
			range = xasprintf("%s..%s", good, bad);
		}
		free(out);
		out = NULL;
		if (GIT(t->dir, &out, 1, "log", "--first-parent", "--reverse", fmt, range) != 0) {
			error("git log %s failed in %s", range, t->dir);
			goto out;
		}
		for (p = out; (line = strsep(&p, "\n"));) {
			struct tree_state *s;

			if (!*line)
				continue;
			s = add_state(r, &alloc);
			if (parse_state(t, line, s) < 0) {
				r->n--;
				error("git log %s: unexpected line in %s", range, t->dir);
				goto out;
			}
		}
	}
	ret = 0;
out:
	if (ret)
		tree_range_release(r);
	free(out);
	free(range);
	return ret;
}

int tree_merge_base(const struct tree *t, const char *a, const char *b, char *out)
{
	char *r = NULL;
	int ret = GIT(t->dir, &r, 1, "merge-base", a, b);

	if (ret != 0 || strlen(r) != 40) {
		free(r);
		return error("git merge-base %.12s %.12s failed", a, b);
	}
	memcpy(out, r, 41);
	free(r);
	return 0;
}

/* Inputs of the config: every Kconfig file, the kconfig tool, the config
 * targets' fragments, a config range state's own configuration. */
static int kconfig_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "Kconfig", 7) || !strncmp(path, "scripts/kconfig/", 16) ||
	       !strcmp(path, BUILD_STATE_CONFIG) ||
	       !strncmp(path, "kernel/configs/", 15) || !strncmp(path, "arch/x86/configs/", 17);
}

int tree_kconfig_id(const struct tree *t, const char *treeid, char *out)
{
	char *list = NULL, *p, *line, *tab;
	struct util_hash *h;

	if (GIT(t->dir, &list, 1, "ls-tree", "-r", treeid) != 0) {
		free(list);
		return error("git ls-tree %.12s failed in %s", treeid, t->dir);
	}
	h = util_hash_new();
	for (p = list; (line = strsep(&p, "\n"));)
		if ((tab = strchr(line, '\t')) && kconfig_path(tab + 1))
			util_hash_addstr(h, line);
	util_hash_hex(h, out);
	free(list);
	return 0;
}

/* Whether the configuration names GOOD (a user's tree has no default). */
static int good_configured(const struct conf *c)
{
	return c->good_line || strcmp(c->good, "base");
}

int tree_span(const struct tree *t, const char *good, const char *bad, struct tree_range *r)
{
	char g[41], b[41];

	if (t->series) {
		/* The whole series, so that every state keeps its number. */
		if (tree_rev_parse(t->dir, "tbisect-base^{commit}", g) < 0 ||
		    tree_rev_parse(t->dir, SERIES_REF "^{commit}", b) < 0)
			return error("%s is not prepared; run: tbisect prepare", t->dir);
		return tree_list(t, g, b, r);
	}
	if (!good && !good_configured(t->conf))
		return error("TREE mode needs GOOD: set it in %s, with -s GOOD=REV, or name GOOD "
			     "and BAD on the command line",
			     t->conf->path ? t->conf->path : "bisect.conf");
	if (tree_commit(t, good ? good : t->conf->good, g) < 0 ||
	    tree_commit(t, bad ? bad : t->conf->bad ? t->conf->bad : "HEAD", b) < 0)
		return -1;
	return tree_list(t, g, b, r);
}

/* The series: loaded, extracted (once), applied (when it changed). */
static int prepare_series(struct tree *t)
{
	struct series s;
	int fresh, ret = -1;

	series_init(&s);
	if (series_load(&s, t->conf->patches) < 0 || util_mkdir_p(t->conf->workdir) < 0 ||
	    (fresh = ensure_base(t)) < 0)
		goto out;
	if (!fresh && series_applied(t, s.hash)) {
		ret = 0;
		goto out;
	}
	info("prepare: applying %d patches from %s", s.n, s.dir);
	if (apply_series(t, &s) < 0)
		goto out;
	info("prepare: %d states ready", s.n + 1);
	ret = 0;
out:
	series_release(&s);
	return ret;
}

int tree_prepare(struct tree *t)
{
	if (t->checkout)
		return 0;
	if (t->series)
		return prepare_series(t);
	/* The range is listed by the command: it may name another one. */
	return util_mkdir_p(t->conf->workdir) < 0 || git_clone(t) < 0 ? -1 : 0;
}

/* The meanings a state name has in r, one per kind, at most one state
 * each. */
struct meaning {
	int idx[5];
	const char *how[5];
	int n;
};

static void meaning_add(struct meaning *m, int idx, const char *how)
{
	if (idx >= 0) {
		m->idx[m->n] = idx;
		m->how[m->n++] = how;
	}
}

/* The listed state whose name is spec (".patch" optional), or -1. */
static int find_name(const struct tree_range *r, const char *spec)
{
	size_t n = strlen(spec);
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->state[i].name, spec) ||
		    (!strncmp(r->state[i].name, spec, n) && !strcmp(r->state[i].name + n, ".patch")))
			return i;
	return -1;
}

/* The one listed state whose commit id starts with spec (7 or more hex
 * digits: unique among the listed even where git's whole repository holds
 * another), or -1. */
static int find_commit_prefix(const struct tree_range *r, const char *spec)
{
	size_t n = strlen(spec);
	int i, found = -1;

	if (n < 7 || strspn(spec, "0123456789abcdef") != n)
		return -1;
	for (i = 0; i < r->n; i++)
		if (!strncmp(r->state[i].commit, spec, n)) {
			if (found >= 0)
				return -1;
			found = i;
		}
	return found;
}

/* The listed state whose commit git names by spec, or -1. */
static int find_revision(const struct tree *t, const struct tree_range *r, const char *spec)
{
	char id[41], *rev = xasprintf("%s^{commit}", spec);
	int i, found = tree_rev_parse(t->repo, rev, id) == 0;

	free(rev);
	for (i = 0; found && i < r->n; i++)
		if (!strcmp(r->state[i].commit, id))
			return i;
	return -1;
}

int tree_resolve(const struct tree *t, const struct tree_range *r, const char *spec)
{
	struct meaning m = { { 0 }, { NULL }, 0 };
	long v;
	int i;

	if (!spec || !*spec)
		return error("empty state name");
	if (!r->n)
		return error("no states are listed");
	/* Every meaning is looked up: a name that two of them give different
	 * states (an all-digit commit id that is also a state number, a patch
	 * named "head") is refused rather than read one way silently. */
	meaning_add(&m, !strcasecmp(spec, "base") ? 0 : !strcasecmp(spec, "head") ? r->n - 1 : -1,
		    "the keyword");
	if (util_parse_long(spec, &v) == 0)
		for (i = 0; i < r->n; i++)
			if (r->state[i].index == v)
				meaning_add(&m, i, "a state number");
	meaning_add(&m, find_name(r, spec), "a name");
	meaning_add(&m, find_commit_prefix(r, spec), "a commit id");
	meaning_add(&m, find_revision(t, r, spec), "a git revision");
	for (i = 1; i < m.n; i++)
		if (m.idx[i] != m.idx[0])
			return error("'%s' is ambiguous: as %s it is state %d (%s), as %s state %d (%s); "
				     "name it by its full commit id", spec, m.how[0],
				     r->state[m.idx[0]].index, r->state[m.idx[0]].name, m.how[i],
				     r->state[m.idx[i]].index, r->state[m.idx[i]].name);
	if (m.n)
		return m.idx[0];
	if (util_parse_long(spec, &v) == 0)
		return error("state %ld does not exist (states are %d..%d)", v, r->state[0].index,
			     r->state[r->n - 1].index);
	return error("no state named '%s' among the %d listed (base, head, a number %d..%d, a patch "
		     "name or a revision on the first-parent line)", spec, r->n, r->state[0].index,
		     r->state[r->n - 1].index);
}

int tree_revert(const struct tree *t, const char *bad, const char *culprit, char *commit_out,
		char *treeid_out)
{
	char *ref, *refspec, *second = xasprintf("%s^2", culprit), p2[41];
	int ret = -1, merge;

	ref = xasprintf("refs/tbisect/revert/%.12s-%.12s", bad, culprit);
	refspec = xasprintf("%s^{commit}", ref);
	if (tree_rev_parse(t->dir, refspec, commit_out) == 0)
		goto found;
	if (tree_checkout(t, bad) < 0)
		goto out;
	/* A merge is backed out against its first parent: its branch goes. */
	merge = tree_rev_parse(t->dir, second, p2) == 0;
	if ((merge ? GIT(t->dir, NULL, 1, "revert", "--no-edit", "-m", "1", culprit)
		   : GIT(t->dir, NULL, 1, "revert", "--no-edit", culprit)) != 0) {
		GIT(t->dir, NULL, 1, "revert", "--abort");
		GIT(t->dir, NULL, 1, "reset", "-q", "--hard", bad);
		ret = 1;
		goto out;
	}
	if (tree_rev_parse(t->dir, "HEAD", commit_out) < 0 ||
	    GIT(t->dir, NULL, 1, "update-ref", ref, commit_out) != 0) {
		error("cannot record revert commit %s", ref);
		goto out;
	}
found:
	{
		char *tr = xasprintf("%s^{tree}", commit_out);

		ret = tree_rev_parse(t->dir, tr, treeid_out) < 0 ? -1 : 0;
		free(tr);
	}
out:
	free(second);
	free(refspec);
	free(ref);
	return ret;
}
