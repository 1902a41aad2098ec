/* series: the quilt-style series file of a patch directory. */
#include "series.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void series_init(struct series *s)
{
	memset(s, 0, sizeof(*s));
}

void series_release(struct series *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->patch[i].name);
		free(s->patch[i].path);
		free(s->patch[i].subject);
	}
	free(s->patch);
	free(s->dir);
	series_init(s);
}

char *series_subject(const char *text)
{
	const char *p = text, *first = NULL;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 && first)
			break;	/* end of the mail header */
		if (!first && n)
			first = p;
		if (n > 9 && !strncasecmp(p, "Subject: ", 9)) {
			char *sub = xstrndup(p + 9, n - 9), *s = sub, *r;

			if (*s == '[') {
				char *close = strchr(s, ']');

				if (close)
					s = close + 1;
			}
			r = xstrdup(util_trim(s));
			free(sub);
			return r;
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (first) {
		const char *e = strchr(first, '\n');
		char *t = e ? xstrndup(first, (size_t)(e - first)) : xstrdup(first);
		char *r = xstrdup(util_trim(t));

		free(t);
		return r;
	}
	return xstrdup("(no subject)");
}

static int valid_name(const char *name)
{
	if (!*name || name[0] == '.' || strchr(name, '/') || strchr(name, '\\'))
		return 0;
	for (; *name; name++)
		if ((unsigned char)*name < 0x21 || (unsigned char)*name > 0x7e)
			return 0;
	return 1;
}

int series_parse(struct series *s, const char *file, const char *text)
{
	const char *p = text;
	int line = 0, alloc = 0;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *l = xstrndup(p, n), *hash, *t, *opt;

		line++;
		p = e ? e + 1 : p + n;
		if (memchr(l, '\0', n) || strlen(l) != n) {
			free(l);
			return error("%s:%d: binary data in series file", file, line);
		}
		hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		t = util_trim(l);
		if (!*t) {
			free(l);
			continue;
		}
		opt = strpbrk(t, " \t");
		if (opt) {
			*opt++ = '\0';
			opt = util_trim(opt);
			if (strcmp(opt, "-p1")) {
				error("%s:%d: only '-p1' patches are supported: '%s'", file, line, opt);
				free(l);
				return -1;
			}
		}
		if (!valid_name(t)) {
			error("%s:%d: patch name must be a plain file name inside the series directory: '%s'",
			      file, line, t);
			free(l);
			return -1;
		}
		if (series_find(s, t) >= 0) {
			error("%s:%d: patch listed twice: '%s'", file, line, t);
			free(l);
			return -1;
		}
		if (s->n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			s->patch = xrealloc(s->patch, (size_t)alloc * sizeof(*s->patch));
		}
		memset(&s->patch[s->n], 0, sizeof(s->patch[0]));
		s->patch[s->n].name = xstrdup(t);
		s->patch[s->n].line = line;
		s->n++;
		free(l);
	}
	return 0;
}

int series_find(const struct series *s, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < s->n; i++) {
		const char *pn = s->patch[i].name;

		if (!strcmp(pn, name))
			return i;
		if (!strncmp(pn, name, n) && !strcmp(pn + n, ".patch"))
			return i;
	}
	return -1;
}

int series_load(struct series *s, const char *dir)
{
	char *file = xasprintf("%s/series", dir), *text;
	struct util_hash *h;
	int i, ret = -1;

	s->dir = xstrdup(dir);
	if (util_read_file(file, &text, NULL) < 0)
		goto out_file;
	if (series_parse(s, file, text) < 0)
		goto out_text;
	h = util_hash_new();
	util_hash_addstr(h, text);
	for (i = 0; i < s->n; i++) {
		char *ptext;

		s->patch[i].path = xasprintf("%s/%s", dir, s->patch[i].name);
		if (!util_exists(s->patch[i].path)) {
			error("%s:%d: patch file does not exist: '%s'", file, s->patch[i].line,
			      s->patch[i].name);
			util_hash_hex(h, s->hash);
			goto out_text;
		}
		if (util_read_file(s->patch[i].path, &ptext, NULL) < 0) {
			util_hash_hex(h, s->hash);
			goto out_text;
		}
		util_hash_addstr(h, s->patch[i].name);
		util_hash_addstr(h, ptext);
		s->patch[i].subject = series_subject(ptext);
		free(ptext);
	}
	util_hash_hex(h, s->hash);
	ret = 0;
out_text:
	free(text);
out_file:
	free(file);
	return ret;
}
