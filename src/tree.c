#include "tree.h"
#include "run.h"
#include "util.h"

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

		t->user = xstrdup(c->gittree);
		util_hash_addstr(h, t->user);
		util_hash_hex(h, key);
		t->outname = xasprintf("git/%.16s/build", key);
		t->dir = xasprintf("%s/git/%.16s/linux", c->workdir, key);
	} else {
		t->outname = xstrdup("build");
		t->dir = xasprintf("%s/linux", c->workdir);
	}
}

static void free_states(struct tree *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		free(t->state[i].name);
		free(t->state[i].subject);
	}
	free(t->state);
	t->state = NULL;
	t->n = 0;
}

void tree_release(struct tree *t)
{
	free_states(t);
	free(t->dir);
	free(t->outname);
	free(t->user);
	t->dir = t->outname = t->user = NULL;
}

int tree_git_cmd(const char *dir, char **out, int quiet, const char *const *args)
{
	const char *argv[32];
	struct run_cmd cmd;
	int i = 0, ret;

	argv[i++] = "git";
	argv[i++] = "-c";
	argv[i++] = "core.autocrlf=false";
	argv[i++] = "-c";
	argv[i++] = "gc.auto=0";
	for (; *args && i < 31; args++)
		argv[i++] = *args;
	argv[i] = NULL;
	run_init(&cmd, argv);
	cmd.cwd = dir;
	cmd.env = git_env;
	cmd.capture = out != NULL;
	if (!out)
		cmd.stdout_path = "/dev/null";	/* git's chatter is not our output */
	cmd.stderr_null = quiet;
	ret = run_exec(&cmd);
	if (out)
		*out = xstrdup(util_trim(cmd.out.buf));
	run_release(&cmd);
	return ret;
}

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

static int extract_base(struct tree *t, const char *marker_text)
{
	const struct conf *c = t->conf;
	char *tmp = xasprintf("%s/linux.tmp", c->workdir);
	char *msg = NULL, *marker = NULL;
	double start = util_now();
	int ret = -1, st;

	util_rm_rf(tmp);
	util_rm_rf(t->dir);
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
	if (rename(tmp, t->dir) < 0) {
		error("cannot rename %s to %s", tmp, t->dir);
		goto out;
	}
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

static char *states_path(const struct tree *t)
{
	return xasprintf("%s/states.tsv", t->conf->workdir);
}

static int write_states(const struct tree *t, const char *series_hash)
{
	struct sbuf sb;
	char *path = states_path(t);
	int i, ret;

	sbuf_init(&sb);
	sbuf_addf(&sb, "#series\t%s\n", series_hash);
	sbuf_addstr(&sb, "index\tcommit\ttree\tstatus\tname\tsubject\n");
	for (i = 0; i < t->n; i++) {
		const struct tree_state *s = &t->state[i];

		sbuf_addf(&sb, "%d\t%s\t%s\t%s\t%s\t%s\n", s->index, s->commit[0] ? s->commit : "-",
			  s->treeid[0] ? s->treeid : "-", s->broken ? "noapply" : "ok", s->name,
			  s->subject);
	}
	ret = util_write_file_atomic(path, sb.buf, sb.len);
	sbuf_release(&sb);
	free(path);
	return ret;
}

/* Loads states.tsv; *hash_out (65 bytes) gets the series hash it was made
 * from when not NULL.  Returns 0 or -1 (not reported: a missing file is
 * normal before the first prepare). */
static int read_states(struct tree *t, char *hash_out)
{
	char *path = states_path(t), *text, *p, *line;
	int alloc = 0;
	long idx;

	if (!util_exists(path)) {
		free(path);
		return -1;
	}
	if (util_read_file(path, &text, NULL) < 0) {
		free(path);
		return -1;
	}
	free(path);
	free_states(t);
	for (p = text; (line = strsep(&p, "\n"));) {
		char *f[6];
		int k;

		if (!strncmp(line, "#series\t", 8)) {
			if (hash_out)
				snprintf(hash_out, 65, "%s", line + 8);
			continue;
		}
		if (!*line || !strncmp(line, "index\t", 6))
			continue;
		for (k = 0; k < 6 && line; k++)
			f[k] = strsep(&line, "\t");
		if (k < 6)
			continue;
		if (t->n == alloc) {
			alloc = alloc ? alloc * 2 : 32;
			t->state = xrealloc(t->state, (size_t)alloc * sizeof(*t->state));
		}
		memset(&t->state[t->n], 0, sizeof(t->state[0]));
		if (util_parse_long(f[0], &idx) < 0 || idx != t->n)
			continue;	/* not a line this version wrote */
		t->state[t->n].index = (int)idx;
		if (strcmp(f[1], "-"))
			snprintf(t->state[t->n].commit, 41, "%s", f[1]);
		if (strcmp(f[2], "-"))
			snprintf(t->state[t->n].treeid, 41, "%s", f[2]);
		t->state[t->n].broken = !strcmp(f[3], "noapply");
		t->state[t->n].name = xstrdup(f[4]);
		t->state[t->n].subject = xstrdup(f[5]);
		t->n++;
	}
	free(text);
	return t->n ? 0 : -1;
}

int tree_checkout(const struct tree *t, const char *commit)
{
	if (GIT(t->dir, NULL, 1, "checkout", "-q", "-f", "--detach", commit) != 0)
		return error("git checkout %s in %s failed", commit, t->dir);
	return 0;
}

static void add_state(struct tree *t, int *alloc, const char *commit, const char *treeid,
		      const char *name, const char *subject, int broken)
{
	struct tree_state *s;

	if (t->n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 32;
		t->state = xrealloc(t->state, (size_t)*alloc * sizeof(*t->state));
	}
	s = &t->state[t->n];
	memset(s, 0, sizeof(*s));
	s->index = t->n;
	snprintf(s->commit, 41, "%s", commit ? commit : "");
	snprintf(s->treeid, 41, "%s", treeid ? treeid : "");
	s->name = xstrdup(name);
	/* Tabs or newlines would break the TSV files. */
	s->subject = xstrdup(subject);
	for (char *q = s->subject; *q; q++)
		if (*q == '\t' || *q == '\n')
			*q = ' ';
	t->n++;
	s->broken = broken;
}

static int apply_series(struct tree *t, const struct series *s)
{
	char commit[41], treeid[41], last[41];
	int alloc = 0, i;

	free_states(t);
	if (tree_rev_parse(t->dir, "tbisect-base^{commit}", commit) < 0 ||
	    tree_rev_parse(t->dir, "tbisect-base^{tree}", treeid) < 0)
		return error("the work tree %s has no tbisect-base tag; remove it and prepare again",
			     t->dir);
	add_state(t, &alloc, commit, treeid, "base", "pristine linux-source-6.1", 0);
	memcpy(last, commit, 41);
	if (tree_checkout(t, last) < 0)
		return -1;
	for (i = 0; i < s->n; i++) {
		const struct series_patch *p = &s->patch[i];
		int st;

		if (util_interrupted)
			return error("interrupted");
		st = GIT(t->dir, NULL, 1, "apply", "--index", "--whitespace=nowarn", p->path);
		if (st != 0) {
			warning("%s: patch %d does not apply to state %d; state %d will be skipped",
				p->name, i + 1, i, i + 1);
			GIT(t->dir, NULL, 1, "reset", "-q", "--hard", last);
			add_state(t, &alloc, NULL, NULL, p->name, p->subject, 1);
			continue;
		}
		if (GIT(t->dir, NULL, 0, "commit", "-q", "--no-verify", "--allow-empty", "-m",
			p->subject) != 0)
			return error("git commit of %s failed", p->name);
		if (tree_rev_parse(t->dir, "HEAD", commit) < 0 ||
		    tree_rev_parse(t->dir, "HEAD^{tree}", treeid) < 0)
			return error("git rev-parse failed in %s", t->dir);
		memcpy(last, commit, 41);
		add_state(t, &alloc, commit, treeid, p->name, p->subject, 0);
	}
	return 0;
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

	if (GIT(t->user, NULL, 1, "rev-parse", "--git-dir") != 0)
		return error("TREE %s is not a git repository", t->user);
	if (util_exists(t->dir))
		return 0;
	parent = xasprintf("%s/..", t->dir);
	tmp = xasprintf("%s.tmp", t->dir);
	util_rm_rf(tmp);
	if (util_mkdir_p(parent) < 0)
		goto out;
	info("prepare: cloning %s (objects shared, nothing in it is changed)", t->user);
	if (GIT(t->conf->workdir, NULL, 0, "clone", "-q", "--shared", "--no-checkout", t->user,
		tmp) != 0) {
		error("git clone --shared %s failed", t->user);
		goto out;
	}
	if (rename(tmp, t->dir) < 0) {
		error("cannot rename %s to %s", tmp, t->dir);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		util_rm_rf(tmp);
	free(tmp);
	free(parent);
	return ret;
}

int tree_git_resolve(const struct tree *t, const char *rev, char *id)
{
	char *spec = xasprintf("%s^{commit}", rev);
	int ret = tree_rev_parse(t->user, spec, id);

	free(spec);
	if (ret < 0)
		return error("'%s' is not a commit in %s", rev, t->user);
	return 0;
}

int tree_git_is_ancestor(const struct tree *t, const char *anc, const char *desc)
{
	int st = GIT(t->dir, NULL, 1, "merge-base", "--is-ancestor", anc, desc);

	if (st == 0 || st == 1)
		return st == 0;
	return error("git merge-base --is-ancestor failed in %s (%s)", t->dir, run_strstatus(st));
}

char *tree_git_subject(const struct tree *t, const char *commit)
{
	char *out = NULL;

	if (GIT(t->dir, &out, 1, "log", "-1", "--format=%s", commit) != 0) {
		free(out);
		return xstrdup("?");
	}
	return out;
}

int tree_git_log(const struct tree *t, const char *good, const char *bad, struct hist_level *lv)
{
	const char *fmt = "--format=%H%x09%T%x09%P%x09%s";
	char *range = xasprintf("%s..%s", good, bad), *out = NULL;
	int ret = -1;

	if (GIT(t->dir, NULL, 1, "merge-base", "--is-ancestor", good, bad) != 0) {
		error("GOOD %.12s is not an ancestor of BAD %.12s", good, bad);
		goto out;
	}
	/* GOOD's own line, then the chain, in two cheap processes. */
	if (GIT(t->dir, &out, 1, "log", "-1", fmt, good) != 0 || hist_parse_log(lv, out) < 0 ||
	    lv->n != 1) {
		error("git log %.12s failed in %s", good, t->dir);
		goto out;
	}
	free(out);
	out = NULL;
	if (GIT(t->dir, &out, 1, "log", "--first-parent", "--reverse", fmt, range) != 0 ||
	    hist_parse_log(lv, out) < 0) {
		error("git log %s failed in %s", range, t->dir);
		goto out;
	}
	ret = 0;
out:
	free(out);
	free(range);
	return ret;
}

int tree_git_merge_base(const struct tree *t, const char *a, const char *b, char *out)
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
 * targets' fragments. */
static int kconfig_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "Kconfig", 7) || !strncmp(path, "scripts/kconfig/", 16) ||
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

void tree_use_level(struct tree *t, const struct hist_level *lv)
{
	int alloc = 0, i;
	char name[13];

	free_states(t);
	for (i = 0; i < lv->n; i++) {
		snprintf(name, sizeof(name), "%.12s", lv->c[i].id);
		add_state(t, &alloc, lv->c[i].id, lv->c[i].tree, name, lv->c[i].subject, 0);
		t->state[i].merge = lv->c[i].nparents > 1;
	}
}

int tree_git_range(struct tree *t, const char *good, const char *bad)
{
	char g[41], b[41];
	struct hist_level lv;
	int ret;

	if (tree_git_resolve(t, good, g) < 0 || tree_git_resolve(t, bad, b) < 0)
		return -1;
	memset(&lv, 0, sizeof(lv));
	ret = tree_git_log(t, g, b, &lv);
	if (ret == 0)
		tree_use_level(t, &lv);
	hist_level_release(&lv);
	return ret;
}

int tree_git_configured(const struct conf *c)
{
	return c->good_line || strcmp(c->good, "base");
}

static int prepare_git(struct tree *t)
{
	const struct conf *c = t->conf;

	/* The range is listed by the command: it may name another one. */
	return util_mkdir_p(c->workdir) < 0 || git_clone(t) < 0 ? -1 : 0;
}

int tree_prepare(struct tree *t, const struct series *s)
{
	char old_hash[65] = "";
	int fresh;

	if (t->user)
		return prepare_git(t);
	if (util_mkdir_p(t->conf->workdir) < 0 || (fresh = ensure_base(t)) < 0)
		return -1;
	if (!fresh && read_states(t, old_hash) == 0 && !strcmp(old_hash, s->hash) &&
	    t->n == s->n + 1)
		return 0;
	info("prepare: applying %d patches from %s", s->n, s->dir);
	if (apply_series(t, s) < 0 || write_states(t, s->hash) < 0)
		return -1;
	info("prepare: %d states ready", t->n);
	return 0;
}

/* TREE mode: any revision that names a commit of the listed range. */
static int resolve_git(const struct tree *t, const char *spec)
{
	char id[41];
	int i;

	if (tree_git_resolve(t, spec, id) < 0)
		return -1;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->state[i].commit, id))
			return i;
	return error("%s (%.12s) is not on the first-parent line of the range (%d commits)", spec,
		     id, t->n);
}

int tree_resolve(const struct tree *t, const char *spec)
{
	long v;
	int i;

	if (!spec || !*spec)
		return error("empty state name");
	if (!t->user && !strcasecmp(spec, "base"))
		return 0;
	if (!t->user && !strcasecmp(spec, "head"))
		return t->n - 1;
	if (util_parse_long(spec, &v) == 0) {
		if (v < 0 || v >= t->n)
			return error("state %ld does not exist (states are 0..%d)", v, t->n - 1);
		return (int)v;
	}
	for (i = 1; i < t->n; i++) {
		size_t n = strlen(spec);

		if (!strcmp(t->state[i].name, spec) ||
		    (!strncmp(t->state[i].name, spec, n) && !strcmp(t->state[i].name + n, ".patch")))
			return i;
	}
	if (strlen(spec) >= 7 && strspn(spec, "0123456789abcdef") == strlen(spec))
		for (i = 0; i < t->n; i++)
			if (!strncmp(t->state[i].commit, spec, strlen(spec)))
				return i;
	if (t->user)
		return resolve_git(t, spec);
	return error("no state named '%s' (use base, head, an index 0..%d or a patch name)", spec,
		     t->n - 1);
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
