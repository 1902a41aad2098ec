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
 * unchanged one costs a hash and a file read.
 *
 *	struct tree t;
 *	tree_init(&t, &conf);
 *	if (tree_prepare(&t, &series) < 0) ...
 *	idx = tree_resolve(&t, "base" | "head" | "7" | "0007-name.patch");
 *	tree_checkout(&t, t.state[idx].commit);
 *	tree_release(&t);
 */
#ifndef TBISECT_TREE_H
#define TBISECT_TREE_H

#include "conf.h"
#include "series.h"

struct tree_state {
	int index;
	char commit[41];	/* "" when the patch did not apply */
	char treeid[41];
	char *name;		/* patch file name, "base" for state 0 */
	char *subject;
	int broken;		/* patch did not apply */
};

struct tree {
	const struct conf *conf;
	char *dir;		/* WORKDIR/linux */
	struct tree_state *state;
	int n;			/* number of states = patches + 1 */
};

void tree_init(struct tree *t, const struct conf *c);
/* Extracts and applies as needed.  Returns 0 or -1 (reported). */
int tree_prepare(struct tree *t, const struct series *s);
/* State index for a spec, or -1 after reporting an error naming it. */
int tree_resolve(const struct tree *t, const char *spec);
/* Forces the work tree to commit (detached).  0 or -1. */
int tree_checkout(const struct tree *t, const char *commit);
/* Makes (or finds) the commit "state bad with state culprit's patch
 * reverted"; 40-hex id into commit_out.  Returns 0, 1 when the revert does
 * not apply cleanly (a skip, not an error), -1 on error. */
int tree_revert(const struct tree *t, int bad, int culprit, char *commit_out,
		char *treeid_out);
/* Tree id of a commit-ish in dir, into out (41 bytes); 0 or -1. */
int tree_rev_parse(const char *dir, const char *rev, char *out);
void tree_release(struct tree *t);

#endif
