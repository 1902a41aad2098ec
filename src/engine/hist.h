/*
 * hist: bisecting a git history through its merges, pure logic.
 *
 * A level is the first-parent chain from GOOD to BAD: c[0] = GOOD, then
 * every commit of `git rev-list --first-parent GOOD..BAD`, oldest first, so
 * c[n-1] = BAD.  hist_bisect() bisects a level through ops->bisect (the
 * engine of bisect.h over a real or simulated backend).  When the first bad
 * commit is a merge M with parents P1 (on the chain) and P2, the search
 * goes on into the merged branch: the level merge-base(P1, P2) .. P2, which
 * holds the commits reachable from P2 and not from P1, first-parent again,
 * so nested merges descend in turn.  When that branch's ends do not differ,
 * the branch alone did not regress and M itself is the culprit (a conflict
 * resolution or an interaction of the two sides).
 *
 *	struct hist_ops ops = { list, merge_base, bisect };
 *	struct hist_result r;
 *	hist_bisect(&ops, ctx, good_id, bad_id, &r);   0 or -1 (reported)
 *	... r.status, r.culprit, r.depth, r.merge[] ...
 *	hist_result_release(&r);
 *
 * Ids are 40-hex commit names as the ops give them; hist compares them as
 * strings only.
 */
#ifndef TBISECT_HIST_H
#define TBISECT_HIST_H

#include "bisect.h"

#define HIST_MAX_DEPTH 16

struct hist_commit {
	char id[41], tree[41];
	char parent2[41];	/* second parent of a merge, "" otherwise */
	int nparents;
	char *subject;		/* owned */
};

struct hist_level {
	struct hist_commit *c;	/* c[0] = GOOD ... c[n-1] = BAD */
	int n, alloc;
};

struct hist_ops {
	/* The first-parent chain good..bad into lv (empty on entry), c[0] =
	 * good.  0, or -1 (reported). */
	int (*list)(void *ctx, const char *good, const char *bad, struct hist_level *lv);
	/* Best common ancestor of a and b into out (41 bytes).  0 or -1. */
	int (*merge_base)(void *ctx, const char *a, const char *b, char *out);
	/* Bisects lv between 0 and n-1, depth 0 being the range asked for;
	 * res filled as bisect_run() fills it (indexes into lv).  0, or -1
	 * when aborted. */
	int (*bisect)(void *ctx, const struct hist_level *lv, int depth,
		      struct bisect_result *res);
};

enum hist_status {
	HIST_FOUND,		/* culprit: the first bad commit */
	HIST_MERGE,		/* culprit is a merge whose branch alone is not slower */
	HIST_NO_DIFF,		/* GOOD and BAD do not differ */
	HIST_NOT_SLOWER,	/* BAD is faster */
	HIST_AMBIGUOUS,		/* culprit among skipped commits: cand[] */
	HIST_ENDPOINT_FAILED,	/* an end of the current level cannot be measured */
	HIST_ABORTED,
};

struct hist_result {
	enum hist_status status;
	struct hist_commit culprit;	/* FOUND, MERGE; last candidate when AMBIGUOUS */
	char parent[41];		/* the last good commit before it */
	int depth;			/* merges descended into */
	char merge[HIST_MAX_DEPTH][41];	/* merge[k]: the merge entered at level k */
	char (*cand)[41];		/* AMBIGUOUS: the candidates, oldest first */
	int ncand;
	struct bisect_result last;	/* the engine's answer at the last level */
};

int hist_bisect(const struct hist_ops *ops, void *ctx, const char *good, const char *bad,
		struct hist_result *res);
/* Parses `git log --format=%H%x09%T%x09%P%x09%s` output, appending to lv
 * in the order given.  0, or -1 on a malformed line (reported). */
int hist_parse_log(struct hist_level *lv, const char *text);
/* Appends one commit (subject copied). */
void hist_level_add(struct hist_level *lv, const char *id, const char *tree,
		    const char *parents, const char *subject);
const char *hist_status_name(enum hist_status st);
void hist_level_release(struct hist_level *lv);
void hist_result_release(struct hist_result *res);

#endif
