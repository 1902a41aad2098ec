/*
 * release: Debian's linux-source-6.1 point releases as a kernel git history,
 * so that TREE mode can bisect Debian's own stable updates.
 *
 * WORKDIR/releases/tree is a git repository whose branch "releases" holds
 * one first-parent commit per release, oldest first, each tagged with its
 * Debian version (e.g. 6.1.170-3).  The .deb files are fetched with
 * `apt-get download linux-source-6.1=VERSION` (no installing, any user)
 * into WORKDIR/releases/debs and kept there.
 *
 *	char **v; int n;
 *	release_available(&v, &n);       apt-cache madison's versions, oldest first
 *	release_import(&conf, v, n);     0 or -1 (reported)
 *	... TREE = release_repo(&conf), GOOD/BAD = versions ...
 *	release_free_list(v, n);
 */
#ifndef TBISECT_RELEASE_H
#define TBISECT_RELEASE_H

#include "conf.h"

/* The versions of linux-source-6.1 the archive offers, oldest first (owned
 * by the caller).  0 or -1 (reported). */
int release_available(char ***versions, int *n);
/* Sorts versions oldest first (Debian version order for these numbers). */
void release_sort(char **versions, int n);
/* Commits each version not tagged yet, in the order given (sort first).
 * A version older than the branch's tip is refused: the history stays in
 * release order.  0 or -1. */
int release_import(const struct conf *c, char **versions, int n);
/* WORKDIR/releases/tree; caller frees. */
char *release_repo(const struct conf *c);
void release_free_list(char **versions, int n);

#endif
