/* kcfg: kernel configurations as symbols and values: parsed strictly, compared, edited. */
#include "kcfg.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kcfg_init(struct kcfg *k)
{
	memset(k, 0, sizeof(*k));
}

void kcfg_release(struct kcfg *k)
{
	for (int i = 0; i < k->n; i++) {
		free(k->sym[i].name);
		free(k->sym[i].value);
	}
	free(k->sym);
	kcfg_init(k);
}

/* Index of name, or -(insertion point) - 1. */
static int find(const struct kcfg *k, const char *name)
{
	int lo = 0, hi = k->n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(k->sym[mid].name, name);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

const char *kcfg_get(const struct kcfg *k, const char *name)
{
	int i = find(k, name);

	return i >= 0 ? k->sym[i].value : NULL;
}

const char *kcfg_value(const struct kcfg *k, const char *name)
{
	const char *v = kcfg_get(k, name);

	return v ? v : "n";
}

void kcfg_set(struct kcfg *k, const char *name, const char *value)
{
	int i = find(k, name);

	if (i >= 0) {
		free(k->sym[i].value);
		if (value) {
			k->sym[i].value = xstrdup(value);
			return;
		}
		free(k->sym[i].name);
		memmove(&k->sym[i], &k->sym[i + 1], (size_t)(k->n - i - 1) * sizeof(*k->sym));
		k->n--;
		return;
	}
	if (!value)
		return;
	i = -i - 1;
	if (k->n == k->alloc) {
		k->alloc = k->alloc ? 2 * k->alloc : 64;
		k->sym = xrealloc(k->sym, (size_t)k->alloc * sizeof(*k->sym));
	}
	memmove(&k->sym[i + 1], &k->sym[i], (size_t)(k->n - i) * sizeof(*k->sym));
	k->sym[i].name = xstrdup(name);
	k->sym[i].value = xstrdup(value);
	k->n++;
}

/* Length of a symbol name at s (after CONFIG_): [A-Za-z0-9_]+. */
static size_t name_len(const char *s)
{
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
}

/* Whether v is a value kconfig writes: y, m, n, a number, hex, or a
 * quoted string. */
static int value_ok(const char *v)
{
	size_t n = strlen(v);

	if (!n)
		return 0;
	if (v[0] == '"')
		return n >= 2 && v[n - 1] == '"';
	if (!strcmp(v, "y") || !strcmp(v, "m") || !strcmp(v, "n"))
		return 1;
	if (!strncmp(v, "0x", 2) || !strncmp(v, "0X", 2))
		return n > 2 && strspn(v + 2, "0123456789abcdefABCDEF") == n - 2;
	return strspn(v + (v[0] == '-'), "0123456789") == n - (v[0] == '-') && n > (size_t)(v[0] == '-');
}

/* One line: 1 a symbol (into name/value, pointers into line), 0 blank or
 * a comment, -1 not a configuration line. */
static int parse_line(char *line, char **name, char **value)
{
	char *l = util_trim(line);
	size_t n;

	if (!*l)
		return 0;
	if (*l == '#') {
		const char *tail = " is not set";

		l = util_trim(l + 1);
		if (strncmp(l, "CONFIG_", 7))
			return 0;
		n = name_len(l + 7);
		if (n && !strcmp(l + 7 + n, tail)) {
			l[7 + n] = '\0';
			*name = l + 7;
			*value = "n";
			return 1;
		}
		return 0;	/* a comment that names an option */
	}
	if (strncmp(l, "CONFIG_", 7))
		return -1;
	n = name_len(l + 7);
	if (!n || l[7 + n] != '=' || !value_ok(l + 8 + n))
		return -1;
	l[7 + n] = '\0';
	*name = l + 7;
	*value = l + 8 + n;
	return 1;
}

int kcfg_parse(struct kcfg *k, const char *what, const char *text, size_t len)
{
	char *copy, *p, *line, *name, *value;
	int lineno = 0, r;

	kcfg_init(k);
	if (memchr(text, '\0', len))
		return error("%s is not a kernel configuration: it holds binary data", what);
	copy = xstrndup(text, len);
	for (p = copy; (line = strsep(&p, "\n"));) {
		lineno++;
		if (!p && !*line)
			break;
		if ((r = parse_line(line, &name, &value)) < 0) {
			error("%s:%d: not a kernel configuration line (CONFIG_X=VALUE or "
			      "# CONFIG_X is not set): '%.60s'", what, lineno, util_trim(line));
			goto fail;
		}
		if (r)
			kcfg_set(k, name, value);
	}
	if (!k->n) {
		error("%s is not a kernel configuration: no CONFIG_ line", what);
		goto fail;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	kcfg_release(k);
	return -1;
}

char *kcfg_format(const struct kcfg *k)
{
	struct sbuf sb;

	sbuf_init(&sb);
	for (int i = 0; i < k->n; i++) {
		if (!strcmp(k->sym[i].value, "n"))
			sbuf_addf(&sb, "# CONFIG_%s is not set\n", k->sym[i].name);
		else
			sbuf_addf(&sb, "CONFIG_%s=%s\n", k->sym[i].name, k->sym[i].value);
	}
	return sbuf_detach(&sb);
}

int kcfg_diff(const struct kcfg *a, const struct kcfg *b, const char ***names)
{
	int i = 0, j = 0, n = 0;

	*names = NULL;
	/* A merge of two sorted lists. */
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->sym[i].name, b->sym[j].name);
		const char *name = c <= 0 ? a->sym[i].name : b->sym[j].name;
		const char *va = c <= 0 ? a->sym[i].value : "n", *vb = c >= 0 ? b->sym[j].value : "n";

		if (strcmp(va, vb)) {
			*names = xrealloc(*names, (size_t)(n + 1) * sizeof(**names));
			(*names)[n++] = name;
		}
		i += c <= 0;
		j += c >= 0;
	}
	return n;
}

const char *kcfg_describe(const char *name, const char *value, char *buf, size_t size)
{
	if (!strcmp(value, "n"))
		snprintf(buf, size, "CONFIG_%s is not set", name);
	else
		snprintf(buf, size, "CONFIG_%s=%s", name, value);
	return buf;
}

void kcfg_copy(struct kcfg *dst, const struct kcfg *src)
{
	kcfg_init(dst);
	for (int i = 0; i < src->n; i++)
		kcfg_set(dst, src->sym[i].name, src->sym[i].value);
}

static int count_diff(const struct kcfg *a, const struct kcfg *b)
{
	const char **names;
	int n = kcfg_diff(a, b, &names);

	free(names);
	return n;
}

void kcfg_steps_release(struct kcfg_step *steps, int n)
{
	for (int i = 0; i < n; i++) {
		kcfg_release(&steps[i].cfg);
		free(steps[i].cause);
	}
	free(steps);
}

/* cur (nd differences from bad) with the options of names[0..k) set as in
 * bad, resolved: 1 when it leaves fewer differences (into *out), 0 when
 * not, -1 on error. */
static int try_move(const struct kcfg *cur, int nd, const struct kcfg *bad, const char **names, int k,
		    kcfg_resolve_fn *fn, void *ctx, struct kcfg *out)
{
	struct kcfg cand;
	int r;

	kcfg_copy(&cand, cur);
	for (int i = 0; i < k; i++)
		kcfg_set(&cand, names[i], kcfg_get(bad, names[i]) ? kcfg_get(bad, names[i]) : "n");
	r = fn(ctx, &cand, out);
	kcfg_release(&cand);
	if (r < 0)
		return -1;
	if (count_diff(out, bad) < nd)
		return 1;
	kcfg_release(out);
	return 0;
}

/* Whether name is in the list. */
static int listed(char **list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

int kcfg_steps(const struct kcfg *good, const struct kcfg *bad, kcfg_resolve_fn *fn, void *ctx,
	       struct kcfg_step **steps, int *n)
{
	struct kcfg cur, next;
	const char **names = NULL;
	char **stuck = NULL;	/* options that did not take alone: tried last */
	int nd, alloc = 0, nstuck = 0, ret = -1;

	*steps = NULL;
	*n = 0;
	kcfg_copy(&cur, good);
	while ((nd = kcfg_diff(&cur, bad, &names)) > 0) {
		int r = 0, i, j, pass;
		const char *cause = NULL;

		/* One option alone, in name order: first those not tried yet,
		 * then again those that did not take before. */
		for (pass = 0; pass < 2 && !r; pass++)
			for (i = 0; i < nd && !r; i++) {
				if (listed(stuck, nstuck, names[i]) != pass)
					continue;
				r = try_move(&cur, nd, bad, &names[i], 1, fn, ctx, &next);
				if (r > 0)
					cause = names[i];
				if (!r && !pass) {
					stuck = xrealloc(stuck, (size_t)(nstuck + 1) * sizeof(*stuck));
					stuck[nstuck++] = xstrdup(names[i]);
				}
			}
		/* Else a pair: a choice's two members, an option and its
		 * dependency; the first few options only, so that a stuck
		 * range costs O(N) resolutions, not O(N^2). */
		for (i = 0; !r && i < nd && i < 4 && nd > 2; i++)
			for (j = i + 1; !r && j < nd; j++) {
				const char *pair[2] = { names[i], names[j] };

				r = try_move(&cur, nd, bad, pair, 2, fn, ctx, &next);
				if (r > 0)
					cause = names[i];
			}
		/* Else everything left, which is bad itself. */
		if (!r) {
			kcfg_copy(&next, bad);
			cause = names[0];
			r = 1;
		}
		if (r < 0)
			goto out;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			*steps = xrealloc(*steps, (size_t)alloc * sizeof(**steps));
		}
		(*steps)[*n].cfg = next;
		(*steps)[(*n)++].cause = xstrdup(cause);
		free(names);
		names = NULL;
		kcfg_release(&cur);
		kcfg_copy(&cur, &next);
	}
	ret = 0;
out:
	free(names);
	for (int i = 0; i < nstuck; i++)
		free(stuck[i]);
	free(stuck);
	kcfg_release(&cur);
	if (ret) {
		kcfg_steps_release(*steps, *n);
		*steps = NULL;
		*n = 0;
	}
	return ret;
}
