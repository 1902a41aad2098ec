/*
 * tree: the kernel work tree and its states.
 *
 * tree_prepare() extracts the linux-source tarball into WORKDIR/linux (once),
 * makes it a git repository whose first commit is the pristine tree, and
 * commits each patch of the series on top, one commit per patch, with fixed
 * author/committer identity and dates so that the same series gives the same
 * commit ids on every machine.  State 0 is the pristine base, state i the
 * tree with patches 1..i applied.  A patch that does not apply leaves its
 * state marked broken (skipped by bisection); later patches apply on top of
 * the last good state.  A changed series (content hash) is re-applied; an
 * unchanged one costs a hash and a file read.  A changed tarball (a new
 * linux-source-6.1 point release, another TARBALL) is extracted again: its
 * size, mtime and path are compared with what the tree came from, and the
 * SHA-256 decides when they differ.
 *
 *	struct tree t;
 *	tree_init(&t, &conf);
 *	if (tree_prepare(&t, &series) < 0) ...
 *	idx = tree_resolve(&t, "base" | "head" | "7" | "0007-name.patch");
 *	tree_checkout(&t, t.state[idx].commit);
 *	tree_release(&t);
 *
 * TREE mode (conf TREE = a kernel git repository, t.user set): the states
 * are commits, the first-parent chain from GOOD to BAD (hist.h's level).
 * Revisions are resolved in the user's repository, which is only read;
 * everything else happens in tbisect's own clone under
 * WORKDIR/git/<hash of the path>/linux, made with `git clone --shared
 * --no-checkout`, so it shares the user's objects and has its own HEAD,
 * index and work tree.  tree_prepare() makes the clone; tree_git_range()
 * lists a range as the states.
 */
#ifndef TBISECT_TREE_H
#define TBISECT_TREE_H

#include "conf.h"
#include "hist.h"
#include "series.h"

struct tree_state {
	int index;
	char commit[41];	/* "" when the patch did not apply */
	char treeid[41];
	char *name;		/* patch file name, "base" for state 0 */
	char *subject;
	int broken;		/* patch did not apply */
	int merge;		/* TREE mode: a merge commit */
};

struct tree {
	const struct conf *conf;
	char *dir;		/* WORKDIR/linux, TREE: WORKDIR/git/KEY/linux */
	char *outname;		/* its O= directory, relative to WORKDIR: "build",
				 * TREE: "git/KEY/build" (beside linux, as in
				 * WORKDIR, so ccache's basedir serves both) */
	struct tree_state *state;
	int n;			/* number of states = patches + 1 */
	char *user;		/* TREE mode: the user's repository (absolute), else NULL */
};

void tree_init(struct tree *t, const struct conf *c);
/* Extracts and applies as needed.  Returns 0 or -1 (reported). */
int tree_prepare(struct tree *t, const struct series *s);
/* State index for a spec, or -1 after reporting an error naming it. */
int tree_resolve(const struct tree *t, const char *spec);
/* Forces the work tree to commit (detached).  0 or -1. */
int tree_checkout(const struct tree *t, const char *commit);
/* Makes (or finds, under refs/tbisect/revert/) the commit "bad with commit
 * culprit reverted" (a merge against its first parent, `git revert -m 1`);
 * 40-hex ids into commit_out and its tree into treeid_out.  Returns 0, 1
 * when the revert does not apply cleanly (not attributable, not an error),
 * -1 on error.  Leaves the work tree at bad or at the revert. */
int tree_revert(const struct tree *t, const char *bad, const char *culprit, char *commit_out,
		char *treeid_out);
/* TREE mode: whether commit anc is an ancestor of (or is) commit desc, in
 * tbisect's clone: 1, 0, or -1 on error (reported). */
int tree_git_is_ancestor(const struct tree *t, const char *anc, const char *desc);
/* Subject line of a commit in tbisect's clone, caller frees; "?" on error. */
char *tree_git_subject(const struct tree *t, const char *commit);
/* Tree id of a commit-ish in dir, into out (41 bytes); 0 or -1. */
int tree_rev_parse(const char *dir, const char *rev, char *out);
/* TREE mode.  A revision of the user's repository (any name git
 * understands) as a 40-hex commit id into id.  0 or -1 (reported). */
int tree_git_resolve(const struct tree *t, const char *rev, char *id);
/* Lists the level good..bad (commit ids) into lv: one git process.  0 or -1
 * (reported; GOOD must be an ancestor of BAD). */
int tree_git_log(const struct tree *t, const char *good, const char *bad, struct hist_level *lv);
/* Best common ancestor of two commits into out.  0 or -1. */
int tree_git_merge_base(const struct tree *t, const char *a, const char *b, char *out);
/* Id (64-hex, into out) of what decides the config in tree treeid: its
 * Kconfig files, scripts/kconfig, the config fragments.  0 or -1. */
int tree_kconfig_id(const struct tree *t, const char *treeid, char *out);
/* Makes lv the tree's states: state i = lv->c[i], named by its short id. */
void tree_use_level(struct tree *t, const struct hist_level *lv);
/* Whether the configuration names GOOD (TREE mode has no default). */
int tree_git_configured(const struct conf *c);
/* Resolves good and bad and makes good..bad the states.  0 or -1. */
int tree_git_range(struct tree *t, const char *good, const char *bad);
/* Runs git in dir with tbisect's fixed identity and dates; stdout captured
 * (trimmed) into *out when out != NULL, else discarded; stderr discarded
 * when quiet.  Returns the exit status or a run_status. */
int tree_git_cmd(const char *dir, char **out, int quiet, const char *const *args);
#define TREE_GIT(dir, out, quiet, ...) \
	tree_git_cmd(dir, out, quiet, (const char *const[]){ __VA_ARGS__, NULL })
void tree_release(struct tree *t);

#endif
