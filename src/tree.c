#include "tree.h"
#include "run.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	t->dir = xasprintf("%s/linux", c->workdir);
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
	t->dir = NULL;
}

/* Runs git in dir; output captured into *out when out != NULL, else sent
 * to the log (stderr).  Returns the exit status or a run_status. */
static int git(const char *dir, char **out, int quiet, const char *const *args)
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

#define GIT(dir, out, quiet, ...) git(dir, out, quiet, (const char *const[]){ __VA_ARGS__, NULL })

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

/* What identifies the tarball cheaply and well enough: its name and hash. */
static int tarball_id(const struct conf *c, char *hex)
{
	if (!util_exists(c->tarball))
		return error("no kernel source tarball at %s\n"
			     "  install it with: apt-get install linux-source-6.1   (or run: make deps)",
			     c->tarball);
	return util_sha256_file(c->tarball, hex);
}

static int extract_base(struct tree *t, const char *tar_hex)
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
	if (util_write_file_atomic(marker, tar_hex, strlen(tar_hex)) < 0)
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
		t->state[t->n].index = atoi(f[0]);
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

int tree_prepare(struct tree *t, const struct series *s)
{
	char tar_hex[65], old_hash[65] = "";
	char *marker = base_marker(t), *have = NULL;
	int ret = -1;

	if (util_mkdir_p(t->conf->workdir) < 0)
		goto out;
	if (!util_exists(marker)) {
		if (tarball_id(t->conf, tar_hex) < 0 || extract_base(t, tar_hex) < 0)
			goto out;
	} else if (util_read_file(marker, &have, NULL) < 0) {
		goto out;
	}
	if (read_states(t, old_hash) == 0 && !strcmp(old_hash, s->hash) &&
	    t->n == s->n + 1) {
		ret = 0;
		goto out;
	}
	info("prepare: applying %d patches from %s", s->n, s->dir);
	if (apply_series(t, s) < 0 || write_states(t, s->hash) < 0)
		goto out;
	info("prepare: %d states ready", t->n);
	ret = 0;
out:
	free(have);
	free(marker);
	return ret;
}

int tree_resolve(const struct tree *t, const char *spec)
{
	long v;
	int i;

	if (!spec || !*spec)
		return error("empty state name");
	if (!strcasecmp(spec, "base"))
		return 0;
	if (!strcasecmp(spec, "head"))
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
	return error("no state named '%s' (use base, head, an index 0..%d or a patch name)", spec,
		     t->n - 1);
}

int tree_revert(const struct tree *t, int bad, int culprit, char *commit_out, char *treeid_out)
{
	const struct tree_state *b = &t->state[bad], *c = &t->state[culprit];
	char *ref, *refspec;
	int ret = -1;

	if (b->broken || c->broken || !culprit)
		return 1;
	ref = xasprintf("refs/tbisect/revert/%.12s-%.12s", b->commit, c->commit);
	refspec = xasprintf("%s^{commit}", ref);
	if (tree_rev_parse(t->dir, refspec, commit_out) == 0)
		goto found;
	if (tree_checkout(t, b->commit) < 0)
		goto out;
	if (GIT(t->dir, NULL, 1, "revert", "--no-edit", c->commit) != 0) {
		GIT(t->dir, NULL, 1, "revert", "--abort");
		GIT(t->dir, NULL, 1, "reset", "-q", "--hard", b->commit);
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
	free(refspec);
	free(ref);
	return ret;
}
