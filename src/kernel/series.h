/*
 * series: the quilt-style order file of a patch directory (kpatches/series).
 *
 * One patch file name per line, optionally followed by "-p1"; '#' starts a
 * comment.  Names must stay inside the directory (no '/', no leading '.').
 * Each patch's subject comes from its "Subject:" header ("[PATCH n/m]"
 * prefixes stripped), else its first non-empty line.
 *
 *	struct series s;
 *	series_init(&s);
 *	if (series_load(&s, dir) < 0) ... reported with series:line
 *	... s.patch[i].name / .path / .subject ...
 *	series_release(&s);
 */
#ifndef TBISECT_SERIES_H
#define TBISECT_SERIES_H

struct series_patch {
	char *name;	/* as written in the series file */
	char *path;	/* absolute path */
	char *subject;
	int line;	/* line in the series file */
};

struct series {
	char *dir;
	struct series_patch *patch;
	int n;
	char hash[65];	/* SHA-256 over the series file and every patch */
};

void series_init(struct series *s);
/* Parses dir/series and checks every patch exists.  Returns 0 or -1. */
int series_load(struct series *s, const char *dir);
/* Parses the text of a series file (no file checks); file names the source
 * in messages.  Used by series_load() and the unit tests. */
int series_parse(struct series *s, const char *file, const char *text);
/* Extracts the subject from a patch's text; caller frees. */
char *series_subject(const char *text);
/* Index of the patch named name (with or without .patch), -1 if none. */
int series_find(const struct series *s, const char *name);
void series_release(struct series *s);

#endif
