/* hist: bisecting a git history through its merges, pure logic. */
#include "hist.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int is_id(const char *s, size_t n)
{
	return n == 40 && strspn(s, "0123456789abcdef") >= 40;
}

void hist_level_add(struct hist_level *lv, const char *id, const char *tree,
		    const char *parents, const char *subject)
{
	struct hist_commit *c;
	const char *p = parents, *sp;

	if (lv->n == lv->alloc) {
		lv->alloc = lv->alloc ? lv->alloc * 2 : 64;
		lv->c = xrealloc(lv->c, (size_t)lv->alloc * sizeof(*lv->c));
	}
	c = &lv->c[lv->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	snprintf(c->tree, sizeof(c->tree), "%s", tree);
	/* Parents are space-separated; the second one is all a descent needs. */
	while (p && *p) {
		sp = strchr(p, ' ');
		if (++c->nparents == 2)
			snprintf(c->parent2, sizeof(c->parent2), "%.*s",
				 (int)(sp ? sp - p : (long)strlen(p)), p);
		p = sp ? sp + 1 : NULL;
	}
	c->subject = xstrdup(subject);
	for (char *q = c->subject; *q; q++)
		if (*q == '\t' || *q == '\n')
			*q = ' ';
}

int hist_parse_log(struct hist_level *lv, const char *text)
{
	char *copy = xstrdup(text), *p = copy, *line, *f[4];
	int lineno = 0, k, ret = 0;

	while ((line = strsep(&p, "\n"))) {
		lineno++;
		if (!*line)
			continue;
		for (k = 0; k < 3 && line; k++)
			f[k] = strsep(&line, "\t");
		f[3] = line;
		if (k < 3 || !f[3] || !is_id(f[0], strlen(f[0])) || !is_id(f[1], strlen(f[1]))) {
			ret = error("git log line %d is not 'commit<TAB>tree<TAB>parents<TAB>subject'",
				    lineno);
			break;
		}
		hist_level_add(lv, f[0], f[1], f[2], f[3]);
	}
	free(copy);
	return ret;
}

void hist_level_release(struct hist_level *lv)
{
	int i;

	for (i = 0; i < lv->n; i++)
		free(lv->c[i].subject);
	free(lv->c);
	memset(lv, 0, sizeof(*lv));
}

void hist_result_release(struct hist_result *res)
{
	free(res->culprit.subject);
	free(res->cand);
	bisect_result_release(&res->last);
	memset(res, 0, sizeof(*res));
}

const char *hist_status_name(enum hist_status st)
{
	static const char *const names[] = {
		"found", "merge", "no difference", "not slower", "ambiguous",
		"endpoint failed", "aborted",
	};

	return names[st];
}

static void set_culprit(struct hist_result *res, const struct hist_commit *c, const char *parent)
{
	free(res->culprit.subject);
	res->culprit = *c;
	res->culprit.subject = xstrdup(c->subject);
	snprintf(res->parent, sizeof(res->parent), "%s", parent);
}

static enum hist_status from_engine(enum bisect_status st)
{
	switch (st) {
	case BISECT_FOUND: return HIST_FOUND;
	case BISECT_NO_DIFF: return HIST_NO_DIFF;
	case BISECT_NOT_SLOWER: return HIST_NOT_SLOWER;
	case BISECT_AMBIGUOUS: return HIST_AMBIGUOUS;
	case BISECT_ENDPOINT_FAILED: return HIST_ENDPOINT_FAILED;
	default: return HIST_ABORTED;
	}
}

/* Turns the engine's answer at one level into the result; 1 when the
 * culprit is a merge to descend into, 0 when the search ends here. */
static int settle(struct hist_result *res, const struct hist_level *lv, const struct bisect_result *r)
{
	const struct hist_commit *c;
	int i;

	res->status = from_engine(r->status);
	if (res->depth > 0 && (res->status == HIST_NO_DIFF || res->status == HIST_NOT_SLOWER)) {
		/* The branch alone is not slower: the merge is the culprit (kept). */
		res->status = HIST_MERGE;
		return 0;
	}
	if (res->status == HIST_AMBIGUOUS) {
		res->ncand = r->culprit - r->parent;
		res->cand = xcalloc((size_t)res->ncand, sizeof(*res->cand));
		for (i = 0; i < res->ncand; i++)
			memcpy(res->cand[i], lv->c[r->parent + 1 + i].id, 41);
	}
	if (res->status != HIST_FOUND && res->status != HIST_AMBIGUOUS)
		return 0;
	c = &lv->c[r->culprit];
	set_culprit(res, c, lv->c[r->parent].id);
	return res->status == HIST_FOUND && c->nparents > 1 && res->depth < HIST_MAX_DEPTH;
}

int hist_bisect(const struct hist_ops *ops, void *ctx, const char *good, const char *bad,
		struct hist_result *res)
{
	char g[41], b[41];
	struct hist_level lv;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	snprintf(g, sizeof(g), "%s", good);
	snprintf(b, sizeof(b), "%s", bad);
	for (;;) {
		memset(&lv, 0, sizeof(lv));
		if (ops->list(ctx, g, b, &lv) < 0)
			break;
		if (lv.n < 2) {
			error("no commits between %.12s and %.12s", g, b);
			break;
		}
		bisect_result_release(&res->last);
		if (ops->bisect(ctx, &lv, res->depth, &res->last) < 0) {
			res->status = HIST_ABORTED;
			ret = 0;
			break;
		}
		if (!settle(res, &lv, &res->last)) {
			ret = 0;
			break;
		}
		/* Descend: merge-base(P1, P2) .. P2. */
		memcpy(res->merge[res->depth], res->culprit.id, 41);
		if (ops->merge_base(ctx, res->parent, res->culprit.parent2, g) < 0)
			break;
		if (!strcmp(g, res->culprit.parent2)) {
			/* P2 is already in P1: the merge brings no commit of its own. */
			res->status = HIST_MERGE;
			ret = 0;
			break;
		}
		memcpy(b, res->culprit.parent2, 41);
		res->depth++;
		hist_level_release(&lv);
	}
	hist_level_release(&lv);
	return ret;
}
