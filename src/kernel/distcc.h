/*
 * distcc: kernel compiles spread over a build farm, and the count of where
 * each object came from.
 *
 * With DISTCC_HOSTS set, make runs with CCACHE_PREFIX=distcc: ccache answers
 * what it has, distcc sends the rest to the hosts (a host that is down
 * leaves its share to this machine, as distcc does).  A kernel's content
 * key holds this machine's compiler, so every host must compile with the
 * same gcc: distcc_check() compiles a probe on each host with fallback off
 * and compares the __VERSION__ it returns with the local one.
 *
 *	struct distcc d;
 *	distcc_init(&d, &conf);          d.on says whether hosts are set
 *	if (distcc_check(&d) < 0) ...    once; -1: a host with another gcc
 *	                                 (reported: the build must not start)
 *	n = distcc_env(&d, log, env, max);   the variables for make, log: the
 *	                                 client log of this build (owned by d
 *	                                 until the next call)
 *	distcc_count(log, &counts);      after the build
 *	distcc_release(&d);
 *
 * ccache's own count comes from ccache_stats(), before and after a build.
 */
#ifndef TBISECT_DISTCC_H
#define TBISECT_DISTCC_H

#include "conf.h"

struct distcc {
	const struct conf *conf;
	int on;			/* DISTCC_HOSTS set */
	int checked;
	long jobs;		/* `distcc -j`: the hosts' slots */
	char *dir;		/* DISTCC_DIR: WORKDIR/distcc */
	char *vars[5];		/* "K=V" strings behind distcc_env() */
};

/* Where a build's compiles happened. */
struct distcc_counts {
	long remote, local, fallback;	/* fallback: sent back here, host down */
};

/* ccache's counters (CCACHE_DIR of the work directory). */
struct ccache_stats {
	long hits, misses;
};

void distcc_init(struct distcc *d, const struct conf *c);
int distcc_check(struct distcc *d);
/* Appends the environment for make to env (up to max entries, not
 * NULL-terminated); the number added. */
int distcc_env(struct distcc *d, const char *log, const char **env, int max);
/* Counts a distcc client log ("compile X on HOST completed ok" lines,
 * "failed to distribute" warnings).  0, or -1 when it cannot be read. */
int distcc_count(const char *log, struct distcc_counts *n);
/* Parses distcc_count()'s input from text (the unit tests use it). */
void distcc_count_text(const char *text, struct distcc_counts *n);
void distcc_release(struct distcc *d);
/* `ccache --print-stats` for the work directory's cache.  0 or -1. */
int ccache_stats(const struct conf *c, struct ccache_stats *s);

#endif
