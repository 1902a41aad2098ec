/*
 * release: Debian's linux-source releases, of every series the archive has
 * (linux-source-6.1, linux-source-6.12, ...), as a kernel git history, so
 * that TREE mode can bisect Debian's own kernels.
 *
 * WORKDIR/releases/tree is a git repository whose branch "releases" holds
 * one first-parent commit per release, oldest first in Debian's version
 * order across series, each tagged with its version (DEP-14: '~' written
 * '_', ':' '%', e.g. 6.12.95-1_bpo12+1).  The .deb files are fetched with
 * `apt-get download linux-source-SERIES=VERSION` (no installing, any user)
 * into WORKDIR/releases/debs and kept there.
 *
 *	char **v; int n;
 *	release_available(NULL, &v, &n);  every series' versions, oldest first
 *	release_import(&conf, v, n);      0 or -1 (reported)
 *	... TREE = release_repo(&conf), GOOD/BAD = release_tag(version) ...
 *	release_free_list(v, n);
 */
#ifndef TBISECT_RELEASE_H
#define TBISECT_RELEASE_H

#include "conf.h"

/* The versions the archive offers of every linux-source-MAJOR.MINOR
 * package apt knows (series NULL), or of one series ("6.12"), oldest first
 * (owned by the caller).  0 or -1 (reported). */
int release_available(const char *series, char ***versions, int *n);
/* Debian's version order (dpkg --compare-versions): <0, 0, >0. */
int release_compare(const char *a, const char *b);
/* Sorts versions oldest first, in Debian's order. */
void release_sort(char **versions, int n);
/* The series of a version, "6.12" of "6.12.95-1~bpo12+1" (caller frees),
 * NULL when it does not start MAJOR.MINOR. */
char *release_series(const char *version);
/* The git tag of a version (DEP-14 mangling; caller frees). */
char *release_tag(const char *version);
/* The version of a tag release_tag() made (caller frees). */
char *release_untag(const char *tag);
/* Commits each version not tagged yet, in the order given (sort first).
 * A version older than the branch's tip is refused: the history stays in
 * release order.  0 or -1. */
int release_import(const struct conf *c, char **versions, int n);
/* WORKDIR/releases/tree; caller frees. */
char *release_repo(const struct conf *c);
void release_free_list(char **versions, int n);

#endif
