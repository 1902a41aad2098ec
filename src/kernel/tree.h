/*
 * tree: the kernel work tree, its history, and the states a command works on.
 *
 * Both kinds of range are git histories, listed the same way:
 *  - the series (no TREE): tree_prepare() extracts the linux-source tarball
 *    into WORKDIR/linux (once), makes it a git repository whose first commit
 *    is the pristine tree (tag tbisect-base), and commits each patch of
 *    kpatches/ on top, one commit per patch, with fixed identity and dates
 *    (the same series gives the same commit ids on every machine); the last
 *    one is refs/tbisect/series.  Trailers number and name each commit
 *    ("Tbisect-State: 5", "Tbisect-Patch: 0005-foo.patch").  A patch that
 *    does not apply is an empty commit marked "Tbisect-Status: noapply": a
 *    state to skip, as one that does not build.  A changed series (content
 *    hash) is committed again; a changed tarball (a new point release,
 *    another TARBALL: size, mtime and path compared, then the SHA-256) is
 *    extracted again.
 *  - a user's kernel git repository (conf TREE): revisions are resolved in
 *    it, which is only read; everything else happens in tbisect's own clone
 *    under WORKDIR/git/<hash of the path>/linux (`git clone --shared
 *    --no-checkout`: the user's objects, its own HEAD, index and work tree).
 *
 * A range (struct tree_range) is a first-parent line of commits, GOOD first;
 * each state has a number (the series: its patch number, 0 = base; else its
 * place in the line) and a name (the patch file name, "base", or the short
 * commit id).  The states a command works on come from tree_span(): the
 * whole series, or GOOD..BAD of a user's tree.  A merge's branch is listed
 * with tree_list() into a range of its own.
 *
 *	struct tree t;
 *	struct tree_range r;
 *	tree_init(&t, &conf);
 *	if (tree_prepare(&t) < 0) ...
 *	if (tree_span(&t, good_or_NULL, bad_or_NULL, &r) < 0) ...
 *	i = tree_resolve(&t, &r, "base" | "head" | "7" | "0007-name.patch" | REV);
 *	tree_checkout(&t, r.state[i].commit);
 *	tree_range_release(&r);
 *	tree_release(&t);
 */
#ifndef TBISECT_TREE_H
#define TBISECT_TREE_H

#include "conf.h"

struct tree_state {
	int index;		/* its number (see above) */
	char commit[41];
	char treeid[41];
	char parent2[41];	/* a merge's second parent, "" otherwise */
	char *name;		/* patch file name, "base", a tag of the commit, or
				 * its short id */
	char *subject;
	int named;		/* name is a patch name, "base" or a tag, not the
				 * short id that stands in for a missing one */
	int broken;		/* the series: its patch did not apply */
	int merge;		/* a merge commit */
};

/* States in first-parent order, GOOD first; owned, tree_range_release(). */
struct tree_range {
	struct tree_state *state;
	int n;
};

struct tree {
	const struct conf *conf;
	char *dir;		/* the work tree: WORKDIR/linux, TREE: WORKDIR/git/KEY/linux */
	char *outname;		/* its O= directory, relative to WORKDIR: "build",
				 * TREE: "git/KEY/build" (beside linux, as in
				 * WORKDIR, so ccache's basedir serves both) */
	char *repo;		/* where revisions are resolved: the user's
				 * repository, or dir */
	char *source;		/* the range's origin in words, for reports */
	char *name;		/* its short name, for titles: "series kpatches",
				 * a TREE's folder name */
	int series;		/* the kpatches series (no TREE) */
	int checkout;		/* a tree checked out by someone else (git bisect run) */
};

void tree_init(struct tree *t, const struct conf *c);
/* A kernel tree checked out at dir (absolute) by someone else (`git bisect
 * run`): built as it is, never changed; tree_prepare() does nothing.  Its
 * O= directory is WORKDIR/X/build for a tree at WORKDIR/X/linux (sharing
 * the series' ccache entries), else WORKDIR/git/KEY/build. */
void tree_init_checkout(struct tree *t, const struct conf *c, const char *dir);
/* Extracts and commits the series, or clones the user's tree, as needed.
 * Returns 0 or -1 (reported). */
int tree_prepare(struct tree *t);
/* The states a command works on into r: the whole series (good and bad are
 * not needed: every state keeps its number), or good..bad of a user's tree
 * (revisions; NULL: GOOD and BAD of the configuration).  0 or -1. */
int tree_span(const struct tree *t, const char *good, const char *bad, struct tree_range *r);
/* The first-parent line from commit good to commit bad (40-hex ids) into
 * r.  0 or -1 (reported; good must be an ancestor of bad). */
int tree_list(const struct tree *t, const char *good, const char *bad, struct tree_range *r);
/* Index in r of a spec: base (the first), head (the last), a state number,
 * a patch name (.patch optional), a commit id prefix, or any revision of the
 * repository naming a listed commit.  -1 after reporting an error. */
int tree_resolve(const struct tree *t, const struct tree_range *r, const char *spec);
void tree_range_release(struct tree_range *r);
/* Forces the work tree to commit (detached).  0 or -1. */
int tree_checkout(const struct tree *t, const char *commit);
/* Makes (or finds, under refs/tbisect/revert/) the commit "bad with commit
 * culprit reverted" (a merge against its first parent, `git revert -m 1`);
 * 40-hex ids into commit_out and its tree into treeid_out.  Returns 0, 1
 * when the revert does not apply cleanly (not attributable, not an error),
 * -1 on error.  Leaves the work tree at bad or at the revert. */
int tree_revert(const struct tree *t, const char *bad, const char *culprit, char *commit_out,
		char *treeid_out);
/* Commits, on commit parent (40 hex), parent's tree with the file path
 * (relative to the root) holding the text data, with message msg and
 * tbisect's fixed identity and dates; neither the work tree nor its index
 * is touched.  Its id into id and its tree's into treeid (41 bytes each;
 * treeid may be NULL).  0 or -1 (reported). */
int tree_commit_file(const struct tree *t, const char *parent, const char *path, const char *data,
		     const char *msg, char *id, char *treeid);
/* Whether commit anc is an ancestor of (or is) commit desc: 1, 0, or -1
 * on error (reported). */
int tree_is_ancestor(const struct tree *t, const char *anc, const char *desc);
/* Subject line of a commit, caller frees; "?" on error. */
char *tree_subject(const struct tree *t, const char *commit);
/* The object id (40 hex) that rev names in the repository at dir, into out
 * (41 bytes), e.g. "X^{tree}" for a tree, "X^{commit}" for a commit.  0 or
 * -1 (not reported). */
int tree_rev_parse(const char *dir, const char *rev, char *out);
/* A revision of t->repo (any name git understands) as a 40-hex commit id
 * into id.  0 or -1 (reported). */
int tree_commit(const struct tree *t, const char *rev, char *id);
/* Best common ancestor of two commits into out.  0 or -1 (reported). */
int tree_merge_base(const struct tree *t, const char *a, const char *b, char *out);
/* Id (64-hex, into out) of what decides the config in tree treeid: its
 * Kconfig files, scripts/kconfig, the config fragments, a config range
 * state's own configuration (BUILD_STATE_CONFIG).  0 or -1. */
int tree_kconfig_id(const struct tree *t, const char *treeid, char *out);
/* Runs git in dir with tbisect's fixed identity and dates; stdout captured
 * (trimmed) into *out when out != NULL, else discarded; stderr discarded
 * when quiet.  Returns the exit status or a run_status. */
int tree_git_cmd(const char *dir, char **out, int quiet, const char *const *args);
#define TREE_GIT(dir, out, quiet, ...) \
	tree_git_cmd(dir, out, quiet, (const char *const[]){ __VA_ARGS__, NULL })
void tree_release(struct tree *t);

#endif
