/* kbuild: the objects a .config selects, counted from the tree's Kbuild files (an estimate for progress). */
#include "kbuild.h"
#include "util.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct kb {
	const char *tree, *arch;
	char **on;		/* CONFIG_ names set to y, sorted */
	size_t non;
	char **seen;		/* directories counted */
	size_t nseen;
	regex_t assign;		/* NAME-(y|objs|$(CONFIG_X)) [+:]= VALUE */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names set to y in the .config text. */
static void load_config(struct kb *k, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n'), *eq = strstr(p, "=y");
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, "CONFIG_", 7) && eq && eq < p + len && eq + 2 == p + len) {
			k->on = xrealloc(k->on, (k->non + 1) * sizeof(*k->on));
			k->on[k->non++] = xstrndup(p, (size_t)(eq - p));
		}
		p += len + (nl != NULL);
	}
	if (k->non)
		qsort(k->on, k->non, sizeof(*k->on), cmp_str);
}

/* Whether a list's condition holds: "y", or "$(CONFIG_X)" with X=y. */
static int cond_on(const struct kb *k, const char *c, size_t n)
{
	char name[128];
	const char *key = name;

	if (n == 1 && *c == 'y')
		return 1;
	if (n < 4 || n - 3 >= sizeof(name) || strncmp(c, "$(", 2) || c[n - 1] != ')')
		return 0;
	memcpy(name, c + 2, n - 3);
	name[n - 3] = '\0';
	return k->non && bsearch(&key, k->on, k->non, sizeof(*k->on), cmp_str) != NULL;
}

/* The file at path (below the tree), continuation lines joined; NULL
 * when there is none. */
static char *read_joined(const struct kb *k, const char *path)
{
	char *full = xasprintf("%s/%s", k->tree, path), *text = NULL, *p, *q;

	if (util_exists(full))
		util_read_file(full, &text, NULL);
	free(full);
	for (p = q = text; p && *p; p++) {
		if (p[0] == '\\' && p[1] == '\n') {
			*q++ = ' ';
			p++;
		} else {
			*q++ = *p;
		}
	}
	if (q)
		*q = '\0';
	return text;
}

/* dir's Kbuild, else its Makefile; NULL when it has neither. */
static char *read_makefile(const struct kb *k, const char *dir)
{
	char *path = xasprintf("%s/Kbuild", dir), *text = read_joined(k, path);

	free(path);
	if (!text) {
		path = xasprintf("%s/Makefile", dir);
		text = read_joined(k, path);
		free(path);
	}
	return text;
}

/* One assignment of a line: its list name, condition and value. */
struct assign {
	const char *name, *cond, *value;
	size_t nname, ncond;
};

static int parse_assign(struct kb *k, const char *line, struct assign *a)
{
	regmatch_t m[4];

	if (regexec(&k->assign, line, 4, m, 0))
		return -1;
	a->name = line + m[1].rm_so;
	a->nname = (size_t)(m[1].rm_eo - m[1].rm_so);
	a->cond = line + m[2].rm_so;
	a->ncond = (size_t)(m[2].rm_eo - m[2].rm_so);
	a->value = line + m[3].rm_so;
	return 0;
}

static long count_dir(struct kb *k, const char *dir);

/* The objects token (a word of an obj- list, in dir) stands for: a
 * composite's parts, found in text, or 1; a subdirectory's count. */
static long count_token(struct kb *k, const char *dir, const char *text, const char *tok,
			int depth)
{
	size_t n = strlen(tok);
	const char *line;
	long parts = 0;
	int composite = 0;

	if (n > 1 && tok[n - 1] == '/') {
		char *sub = xasprintf("%s/%.*s", dir, (int)(n - 1), tok);
		long c = count_dir(k, sub);

		free(sub);
		return c;
	}
	if (n < 3 || strcmp(tok + n - 2, ".o"))
		return 0;
	for (line = text; depth < 3 && line && *line; line = strchr(line, '\n'), line += !!line) {
		struct assign a;
		char *copy = xstrndup(line, strcspn(line, "\n")), *save, *w;

		if (parse_assign(k, copy, &a) == 0 && a.nname == n - 2 && !strncmp(a.name, tok, n - 2) &&
		    ((a.ncond == 4 && !strncmp(a.cond, "objs", 4)) || cond_on(k, a.cond, a.ncond))) {
			composite = 1;
			for (w = strtok_r((char *)a.value, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
				if (strcmp(w, tok))
					parts += count_token(k, dir, text, w, depth + 1);
		}
		free(copy);
	}
	return composite ? parts : 1;
}

/* The objects of obj-/lib- lists in dir (a path below the tree), once. */
static long count_dir(struct kb *k, const char *dir)
{
	char *text, *line;
	size_t i;
	long n = 0;

	for (i = 0; i < k->nseen; i++)
		if (!strcmp(k->seen[i], dir))
			return 0;
	k->seen = xrealloc(k->seen, (k->nseen + 1) * sizeof(*k->seen));
	k->seen[k->nseen++] = xstrdup(dir);
	if (!(text = read_makefile(k, dir)))
		return 0;
	for (line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		char *copy = xstrndup(line, strcspn(line, "\n")), *save, *w;
		struct assign a;

		if (parse_assign(k, copy, &a) == 0 &&
		    ((a.nname == 3 && !strncmp(a.name, "obj", 3)) ||
		     (a.nname == 3 && !strncmp(a.name, "lib", 3))) && cond_on(k, a.cond, a.ncond))
			for (w = strtok_r((char *)a.value, " \t", &save); w && *w != '#';
			     w = strtok_r(NULL, " \t", &save))
				if (!strchr(w, '$'))
					n += count_token(k, dir, text, w, 0);
		free(copy);
	}
	free(text);
	return n;
}

/* The directories one list of a top-level file names, counted: obj- lines
 * of the top Kbuild ($(SRCARCH) read as arch), core-, libs- and drivers-
 * lines of the top and arch Makefiles (paths from the tree's top). */
static long count_top(struct kb *k, const char *file, int arch_lists)
{
	char *text = read_joined(k, file), *line;
	long n = 0;

	for (line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		char *copy = xstrndup(line, strcspn(line, "\n")), *save, *w;
		struct assign a;
		int want = 0;

		if (parse_assign(k, copy, &a) == 0 && cond_on(k, a.cond, a.ncond))
			want = arch_lists ? (a.nname == 4 && !strncmp(a.name, "core", 4)) ||
						    (a.nname == 4 && !strncmp(a.name, "libs", 4)) ||
						    (a.nname == 7 && !strncmp(a.name, "drivers", 7))
					  : a.nname == 3 && !strncmp(a.name, "obj", 3);
		for (w = want ? strtok_r((char *)a.value, " \t", &save) : NULL; w && *w != '#';
		     w = strtok_r(NULL, " \t", &save)) {
			size_t len = strlen(w);
			char *dir;

			if (len < 2 || w[len - 1] != '/')
				continue;
			if (!strncmp(w, "arch/$(SRCARCH)/", 16))
				dir = xasprintf("arch/%s/%s", k->arch, w + 16);
			else if (strchr(w, '$'))
				continue;
			else
				dir = xstrdup(w);
			while (*dir && dir[strlen(dir) - 1] == '/')
				dir[strlen(dir) - 1] = '\0';
			n += count_dir(k, dir);
			free(dir);
		}
		free(copy);
	}
	free(text);
	return n;
}

long kbuild_objects(const char *tree, const char *arch, const char *dotconfig)
{
	struct kb k;
	char *top = xasprintf("%s/Kbuild", tree), *archmk = xasprintf("arch/%s/Makefile", arch);
	long n = -1;
	size_t i;

	memset(&k, 0, sizeof(k));
	k.tree = tree;
	k.arch = arch;
	if (!util_exists(top) ||
	    regcomp(&k.assign, "^[[:space:]]*([A-Za-z0-9_.-]+)-(y|objs|\\$\\(CONFIG_[A-Za-z0-9_]+\\))"
			       "[[:space:]]*[+:]?=[[:space:]]*(.*)$", REG_EXTENDED))
		goto out;
	load_config(&k, dotconfig);
	n = count_top(&k, "Kbuild", 0) + count_top(&k, "Makefile", 1) + count_top(&k, archmk, 1);
	regfree(&k.assign);
	for (i = 0; i < k.non; i++)
		free(k.on[i]);
	for (i = 0; i < k.nseen; i++)
		free(k.seen[i]);
	free(k.on);
	free(k.seen);
out:
	free(archmk);
	free(top);
	return n;
}
