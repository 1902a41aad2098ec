/*
 * build: kernel builds with ccache into one reused O= directory, and a cache
 * of built kernels keyed by content.
 *
 * Key = SHA-256 over (build format version, source tree id, the config's
 * identity, compiler version: gcc --version's first line).  The config's
 * identity is the SHA-256 of the fragment's bytes, after KCONFIG_BASE's
 * name when it is not tinyconfig, and the base file's bytes when it is a
 * file.  WORKDIR/kernels/KEY/ holds "vmlinux" and "info"
 * (status, kernel SHA-256, build seconds, or the compiler's first error
 * lines for a failed build).  A key seen before is never built again, and a
 * failed build is remembered as failed.
 *
 * The config is generated once per build directory: KCONFIG_BASE
 * (tinyconfig, defconfig, or a .config file brought to the tree with
 * olddefconfig), the fragment merged with the tree's
 * scripts/kconfig/merge_config.sh, then olddefconfig; it is identical for
 * every state whose Kconfig files are the same.  The caller names the state's
 * Kconfig sources with build_set_source() and the config is made again when
 * they change.  The resolved .config is a function of the key's inputs (tree,
 * fragment, base, compiler); its SHA-256 is kept in "info".  When an option
 * the fragment sets (other than =n) is not in the resolved .config, the
 * state is recorded as failed ("config") and skipped, never measured with
 * another setup.  A state whose tree holds BUILD_STATE_CONFIG (a config
 * range's state, or a state with OTHER_CONFIG: cfgrange.h) is configured
 * by that file alone, brought to the tree with olddefconfig; what is
 * required then is that file's options (it was resolved from the base,
 * KCONFIG and the user's file, which may override KCONFIG by choice).
 * The file is one of the Kconfig sources (tree_kconfig_id), so each such
 * state gets its own config.  Builds run with fixed
 * KBUILD_BUILD_TIMESTAMP/USER/HOST/VERSION so that ccache hits on revisits.
 *
 *	struct build b;
 *	build_init(&b, &conf, srcdir, builddir_name);
 *	st = build_kernel(&b, treeid, &res);
 *	... res.vmlinux, res.kernel_sha ...
 *	build_release(&b);
 */
#ifndef TBISECT_BUILD_H
#define TBISECT_BUILD_H

#include "conf.h"
#include "distcc.h"

/* The file in a state's tree that holds its whole configuration. */
#define BUILD_STATE_CONFIG "tbisect.config"

enum build_status {
	BUILD_OK = 0,
	BUILD_FAILED = 1,	/* the state does not compile: skip it */
};

struct build_result {
	char key[65];
	char kernel_sha[65];
	char *vmlinux;		/* path in the kernel cache, owned */
	char *errors;		/* first compiler error lines when failed, owned */
	int timed_out;		/* failed: BUILD_TIMEOUT passed (not recorded: the
				 * next command builds it again) */
	int config_lacks;	/* failed: the resolved .config lacks a required
				 * option (errors names it); nothing compiled */
	double seconds;		/* build time, 0 when cached */
	int cached;
	int full;		/* compiled in an empty O= directory */
	long steps;		/* kbuild steps it took, 0 when cached */
	int wide;		/* incremental but rebuilt most objects (build_is_wide) */
};

struct build {
	const struct conf *conf;
	char *srcdir;
	char *outdir;		/* O= directory */
	char *cachedir;		/* WORKDIR/kernels */
	char *compiler;		/* "gcc --version" first line */
	char config_hash[65];
	int config_ready;
	char *cpp_filter;	/* "CCACHE_PREFIX_CPP=..." (cppfilter.h), NULL: off */
	char kconfig_src[65];	/* id of the state's Kconfig files, "" unknown */
	const char *label;	/* names the state in progress lines, borrowed;
				 * set before build_kernel(), NULL: "kernel" */
	int builds;		/* kernels compiled by this process */
	double build_seconds;
	double config_seconds;	/* generating the .config, this process */
	struct distcc distcc;	/* DISTCC_HOSTS */
	/* Objects of this process's builds: compiled on distcc hosts, here,
	 * or taken from ccache. */
	long obj_remote, obj_local, obj_cached;
};

void build_init(struct build *b, const struct conf *c, const char *srcdir, const char *outname);
/* The Kconfig sources of the state about to be built (see
 * tree_kconfig_id()); NULL or "" for the series. */
void build_set_source(struct build *b, const char *kconfig_src);
/* The options of fragment (text) missing from config (text), " "-joined,
 * caller frees; NULL when all are there. */
char *build_missing_options(const char *fragment, const char *config);
/* Key of treeid under this build's config and toolchain, into key (65).
 * 0, or -1 (reported). */
int build_key(struct build *b, const char *treeid, char *key);
/* Looks up the cache only: 0 with res filled when built (or failed) before,
 * 1 when unknown, -1 when no key can be made (gcc missing, fragment
 * unreadable; reported). */
int build_lookup(struct build *b, const char *treeid, struct build_result *res,
		 enum build_status *st);
/* Builds the source tree as it is checked out now, recording the result
 * under treeid.  Returns BUILD_OK, BUILD_FAILED, or -1 on a tool error or
 * interruption (reported). */
int build_kernel(struct build *b, const char *treeid, struct build_result *res);
void build_result_release(struct build_result *res);

/* What compiling this config cost before, from every build in WORKDIR.
 * A full build is one in an empty O= directory; the history keeps those
 * that compiled most of their objects ("full") apart from those that took
 * most from ccache ("cached": another O= directory of a tree built
 * before), so that neither is charged at the other's price. */
struct build_history {
	long full_steps;	/* kbuild steps of the last full or cached build,
				 * 0 unknown */
	double full_s;		/* seconds of the last full build */
	double cached_s;	/* seconds of the last cached one */
	double incr_s;		/* mean seconds of the recent narrow incremental
				 * builds (see build_is_wide()) */
	int n_full, n_cached, n_incr;	/* n_incr: the narrow ones */
};

/* Steps from which an incremental build counts as wide (a header change
 * that rebuilds most objects) when no full build is known; else half of
 * the full build's steps. */
#define BUILD_WIDE_STEPS 600
int build_is_wide(long steps, long full_steps);
/* 0 with h filled, -1 when this config has no build history (h zeroed). */
int build_history(struct build *b, struct build_history *h);
/* The same from the text of a history file: lines "full|cached|incr STEPS
 * SECONDS", oldest first; other lines are skipped.  Pure.  0, or -1 when
 * it holds no build (h zeroed). */
int build_history_parse(const char *text, struct build_history *h);
/* What the next full build (an empty O= directory) will likely cost, in
 * seconds: a cached build's when one is known (this config has been
 * compiled in this WORKDIR, its ccache holds it), else a full one's, else
 * dflt. */
double build_history_full_cost(const struct build_history *h, double dflt);
/* Whether the next build is a full one (nothing built in O= yet): 1 or 0. */
int build_next_is_full(struct build *b);
void build_release(struct build *b);
/* Whether KCONFIG_BASE names a file (else a make target: tinyconfig,
 * defconfig).  1 or 0. */
int build_base_is_file(const struct conf *c);
/* Configurations outside a build, in b's O= directory (a scratch one, not
 * a build's): the base, the fragment and then fragment (a file, NULL for
 * none) merged and resolved, as a build would make them, into *text; or
 * the .config text in resolved by olddefconfig into *out.  Both need the
 * source tree checked out at the state wanted; caller frees the text.  0
 * or -1 (reported, the log named). */
int build_resolve_config(struct build *b, const char *fragment, char **text);
int build_olddefconfig(struct build *b, const char *in, char **out);

#endif
