/* cfgrange: two kernel configurations at one source state, made a git history of one-option steps. */
#include "cfgrange.h"
#include "build.h"
#include "kcfg.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT "tbisect-config-range-4"

/* Reads and parses a configuration file named by key. */
static int load(const char *key, const char *path, char **text, struct kcfg *k)
{
	size_t len;
	char *what;
	int r;

	*text = NULL;
	if (util_read_file_max(path, CONF_MAX_BYTES, text, &len) < 0)
		return error("%s: cannot read %s", key, path);
	what = xasprintf("%s %s", key, path);
	r = kcfg_parse(k, what, *text, len);
	free(what);
	return r;
}

/* The history's key: everything that decides it. */
static void range_key(const struct conf *c, const char *at, const char *good, const char *bad,
		      char *key)
{
	struct util_hash *h = util_hash_new();

	util_hash_addstr(h, FORMAT);
	util_hash_addstr(h, at);
	util_hash_addstr(h, good);
	util_hash_addstr(h, bad);
	util_hash_addstr(h, c->kconfig_base);
	util_hash_addfile(h, c->kconfig);
	if (build_base_is_file(c))
		util_hash_addfile(h, c->kconfig_base);
	util_hash_hex(h, key);
}

struct resolver {
	struct build *b;
	int calls;
};

/* kcfg_resolve_fn over the tree's olddefconfig. */
static int resolve(void *ctx, const struct kcfg *in, struct kcfg *out)
{
	struct resolver *rs = ctx;
	char *text = kcfg_format(in), *res = NULL;
	int r = -1;

	kcfg_init(out);
	rs->calls++;
	if (build_olddefconfig(rs->b, text, &res) == 0)
		r = kcfg_parse(out, "olddefconfig", res, strlen(res));
	free(text);
	free(res);
	return r;
}

/* Resolves a file as a build would (base + KCONFIG + the file). */
static int resolve_file(struct build *b, const char *path, struct kcfg *k)
{
	char *text = NULL;
	int r = -1;

	if (build_resolve_config(b, path, &text) == 0)
		r = kcfg_parse(k, "the resolved configuration", text, strlen(text));
	free(text);
	return r;
}

/* Names the options a file sets that the resolved configuration does not
 * have (kconfig dropped them), telling unknown symbols apart. */
static void name_dropped(const struct tree *t, const char *key, const struct kcfg *file,
			 const struct kcfg *resolved)
{
	struct sbuf unknown, unmet;
	int i, nu = 0, nm = 0;

	sbuf_init(&unknown);
	sbuf_init(&unmet);
	for (i = 0; i < file->n; i++) {
		const char *name = file->sym[i].name, *v = file->sym[i].value;
		char *pat;
		int known;

		if (!strcmp(v, kcfg_value(resolved, name)))
			continue;
		pat = xasprintf("^[[:space:]]*(menu)?config[[:space:]]+%s[[:space:]]*$", name);
		known = TREE_GIT(t->dir, NULL, 1, "grep", "-q", "-E", pat, "--", "*Kconfig*") == 0;
		free(pat);
		if (known) {
			sbuf_addf(&unmet, "%sCONFIG_%s=%s (now %s)", nm ? ", " : "", name, v,
				  kcfg_value(resolved, name));
			nm++;
		} else if (strcmp(v, "n")) {
			sbuf_addf(&unknown, "%sCONFIG_%s", nu ? ", " : "", name);
			nu++;
		}
	}
	if (nu)
		warning("%s: %d option%s this tree does not know, ignored: %s", key, nu,
			nu == 1 ? "" : "s", unknown.buf);
	if (nm)
		warning("%s: %d option%s kconfig did not take (dependencies, selects or a "
			"choice decide them): %s", key, nm, nm == 1 ? "" : "s", unmet.buf);
	sbuf_release(&unknown);
	sbuf_release(&unmet);
}

/* The change from a to b, caused by setting option cause, in words: its
 * name ("CONFIG_X", "CONFIG_X+2" when two more moved with it), subject and
 * body, the cause first (caller frees). */
static void describe(const struct kcfg *a, const struct kcfg *b, const char *cause, char **name,
		     char **subject, char **body)
{
	const char **names;
	int n = kcfg_diff(a, b, &names), i, k;
	struct sbuf s, d;
	char x[256], y[256];

	sbuf_init(&s);
	sbuf_init(&d);
	*name = n > 1 ? xasprintf("CONFIG_%s+%d", cause, n - 1) : xasprintf("CONFIG_%s", cause);
	for (k = -1, i = 0; k < n; k++) {
		const char *sym = k < 0 ? cause : names[k];

		if (k >= 0 && !strcmp(sym, cause))
			continue;
		kcfg_describe(sym, kcfg_value(a, sym), x, sizeof(x));
		kcfg_describe(sym, kcfg_value(b, sym), y, sizeof(y));
		if (i++ < 3)
			sbuf_addf(&s, "%s%s -> %s", i > 1 ? ", " : "", x, y);
		sbuf_addf(&d, "%s -> %s\n", x, y);
	}
	if (n > 3)
		sbuf_addf(&s, " (%d options)", n);
	free(names);
	*subject = sbuf_detach(&s);
	*body = sbuf_detach(&d);
}

/* Commits cfg as the tree's BUILD_STATE_CONFIG on commit parent; its id
 * into id (which may be parent).  0 or -1. */
static int commit_state(const struct tree *t, const char *parent, const struct kcfg *cfg, int index,
			const char *name, const char *subject, const char *body, int noptions, char *id)
{
	char *text = kcfg_format(cfg), *msg, base[41];
	int r;

	if (index)
		msg = xasprintf("config: %s\n\n%s\nTbisect-Config: step\nTbisect-State: %d\n"
				"Tbisect-Patch: %s\n", subject, body, index, name);
	else
		msg = xasprintf("config: %s\n\nTbisect-Config: good\nTbisect-Patch: %s\n"
				"Tbisect-Options: %d\n", subject, name, noptions);
	memcpy(base, parent, 41);
	r = tree_commit_file(t, base, BUILD_STATE_CONFIG, text, msg, id, NULL);
	free(msg);
	free(text);
	return r;
}

/* Makes the history: 0 with good and bad commit ids, 1 no difference, -1. */
static int make_history(const struct tree *t, const struct conf *c, const char *at,
			const struct kcfg *gfile, const struct kcfg *bfile, char *gid, char *bid)
{
	struct build sb;
	struct kcfg g, b;
	struct kcfg_step *st = NULL;
	struct resolver rs = { &sb, 0 };
	const char **names = NULL;
	char *gname = util_basename_dup(c->good_config), *subj;
	double t0 = util_now();
	int n = 0, nd, k, ret = -1;

	kcfg_init(&g);
	kcfg_init(&b);
	build_init(&sb, c, t->dir, "config-scratch");
	if (tree_checkout(t, at) < 0)
		goto out;
	info("config: resolving GOOD_CONFIG and BAD_CONFIG at %.12s with the tree's kconfig", at);
	if (resolve_file(&sb, c->good_config, &g) < 0 || resolve_file(&sb, c->bad_config, &b) < 0)
		goto out;
	name_dropped(t, "GOOD_CONFIG", gfile, &g);
	name_dropped(t, "BAD_CONFIG", bfile, &b);
	nd = kcfg_diff(&g, &b, &names);
	free(names);
	if (!nd) {
		info("config: GOOD_CONFIG and BAD_CONFIG resolve to the same configuration at %.12s: "
		     "no effective difference, nothing to bisect", at);
		ret = 1;
		goto out;
	}
	info("config: %d options differ; finding the steps (each a kconfig run)", nd);
	if (kcfg_steps(&g, &b, resolve, &rs, &st, &n) < 0)
		goto out;
	info("config: %d options in %d steps (%d kconfig runs, %.0f s)", nd, n, rs.calls + 2,
	     util_now() - t0);
	subj = xasprintf("GOOD_CONFIG %s at %.12s", gname, at);
	k = commit_state(t, at, &g, 0, "good-config", subj, "", nd, gid);
	free(subj);
	if (k < 0)
		goto out;
	for (k = 0; k < n; k++) {
		char *name, *subject, *body;
		int r;

		describe(k ? &st[k - 1].cfg : &g, &st[k].cfg, st[k].cause, &name, &subject, &body);
		r = commit_state(t, k ? bid : gid, &st[k].cfg, k + 1, name, subject, body, 0, bid);
		free(name);
		free(subject);
		free(body);
		if (r < 0)
			goto out;
	}
	ret = 0;
out:
	kcfg_steps_release(st, n);
	kcfg_release(&g);
	kcfg_release(&b);
	build_release(&sb);
	free(gname);
	return ret;
}

/* Says what a range made before holds, as making it says (scripts read
 * the line either way). */
static void say_kept(const struct tree *t, const char *gid)
{
	char *n = NULL;

	if (TREE_GIT(t->dir, &n, 1, "log", "-1", "--format=%(trailers:key=Tbisect-Options,valueonly)",
		     gid) == 0 && *n)
		info("config: %s options differ (the range made before, kept under refs/tbisect/config)",
		     n);
	free(n);
}

int cfgrange_span(const struct tree *t, const struct conf *c, const char *at, struct tree_range *r)
{
	struct kcfg gf, bf;
	const char **names = NULL;
	char *gt = NULL, *bt = NULL, key[65], gid[41], bid[41];
	char *gref = NULL, *bref = NULL;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	kcfg_init(&gf);
	kcfg_init(&bf);
	if (load("GOOD_CONFIG", c->good_config, &gt, &gf) < 0 ||
	    load("BAD_CONFIG", c->bad_config, &bt, &bf) < 0)
		goto out;
	/* Two files alike are alike after kconfig too: said before it runs. */
	if (!kcfg_diff(&gf, &bf, &names)) {
		info("config: GOOD_CONFIG and BAD_CONFIG set the same options to the same values: "
		     "no effective difference, nothing to bisect");
		ret = 1;
		goto out;
	}
	free(names);
	range_key(c, at, gt, bt, key);
	gref = xasprintf("refs/tbisect/config/%.16s/good", key);
	bref = xasprintf("refs/tbisect/config/%.16s/bad", key);
	if (tree_rev_parse(t->dir, gref, gid) < 0 || tree_rev_parse(t->dir, bref, bid) < 0) {
		if ((ret = make_history(t, c, at, &gf, &bf, gid, bid)) != 0)
			goto out;
		ret = -1;
		if (TREE_GIT(t->dir, NULL, 1, "update-ref", gref, gid) != 0 ||
		    TREE_GIT(t->dir, NULL, 1, "update-ref", bref, bid) != 0) {
			error("git update-ref %s failed in %s", bref, t->dir);
			goto out;
		}
	} else {
		say_kept(t, gid);
	}
	ret = tree_list(t, gid, bid, r);
out:
	kcfg_release(&gf);
	kcfg_release(&bf);
	free(gt);
	free(bt);
	free(gref);
	free(bref);
	return ret;
}

/* State s with the resolved configuration cfg committed on it, into o. */
static int other_state(const struct tree *t, const struct tree_state *s, const struct kcfg *cfg,
		       const char *fname, struct tree_state *o)
{
	char *text = kcfg_format(cfg), *msg;
	int r;

	memset(o, 0, sizeof(*o));
	msg = xasprintf("config: state %d with OTHER_CONFIG %s\n\nTbisect-Config: other\n"
			"Tbisect-State: %d\nTbisect-Patch: %s+%s\n", s->index, fname, s->index,
			s->name, fname);
	r = tree_commit_file(t, s->commit, BUILD_STATE_CONFIG, text, msg, o->commit, o->treeid);
	free(msg);
	free(text);
	if (r < 0)
		return -1;
	o->index = s->index;
	o->name = xasprintf("%s+%s", s->name, fname);
	o->subject = xasprintf("%s (with OTHER_CONFIG %s)", s->subject, fname);
	o->named = 1;
	return 0;
}

int cfgrange_check(const char *key, const char *path)
{
	struct kcfg k;
	char *text = NULL;
	int r;

	kcfg_init(&k);
	r = load(key, path, &text, &k);
	kcfg_release(&k);
	free(text);
	return r;
}

int cfgrange_other(const struct tree *t, const struct conf *c, const struct tree_range *rg,
		   const int *idx, int n, struct tree_range *r)
{
	struct build sb;
	struct kcfg file;
	char *text = NULL, *fname = util_basename_dup(c->other_config);
	int k, ret = -1;

	memset(r, 0, sizeof(*r));
	kcfg_init(&file);
	build_init(&sb, c, t->dir, "config-scratch");
	if (load("OTHER_CONFIG", c->other_config, &text, &file) < 0)
		goto out;
	r->state = xcalloc((size_t)n + 1, sizeof(*r->state));
	for (k = 0; k < n; k++) {
		const struct tree_state *s = &rg->state[idx[k]];
		struct kcfg cfg;
		int rc;

		if (tree_checkout(t, s->commit) < 0)
			goto out;
		info("config: resolving OTHER_CONFIG at state %s with the tree's kconfig", s->name);
		kcfg_init(&cfg);
		rc = resolve_file(&sb, c->other_config, &cfg);
		if (rc == 0) {
			name_dropped(t, "OTHER_CONFIG", &file, &cfg);
			rc = other_state(t, s, &cfg, fname, &r->state[k]);
		}
		kcfg_release(&cfg);
		if (rc < 0)
			goto out;
		r->n++;
	}
	ret = 0;
out:
	if (ret < 0)
		tree_range_release(r);
	kcfg_release(&file);
	build_release(&sb);
	free(text);
	free(fname);
	return ret;
}
