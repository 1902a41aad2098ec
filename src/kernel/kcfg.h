/*
 * kcfg: a kernel configuration (.config or a fragment) as its symbols and
 * values, compared and edited.  Pure: no files, no processes.
 *
 * A symbol is named without its CONFIG_ prefix; its value is the text
 * after '=' ("y", "m", "250", "\"str\"", "0x1000"), or "n" for a
 * "# CONFIG_X is not set" line.  A symbol a .config does not list counts
 * as "n" when two are compared: kconfig leaves out what cannot be set.
 *
 *	struct kcfg a, b;
 *	if (kcfg_parse(&a, "good.config", text, len) < 0) ...   not a config
 *	kcfg_set(&a, "HZ_1000", "y");
 *	text = kcfg_format(&a);              caller frees
 *	n = kcfg_diff(&a, &b, &names);       symbols whose values differ
 *	kcfg_release(&a);
 */
#ifndef TBISECT_KCFG_H
#define TBISECT_KCFG_H

#include <stddef.h>

struct kcfg_sym {
	char *name;		/* "HZ_1000", no CONFIG_ */
	char *value;		/* "y", "n", "250", "\"x\"" */
};

/* Sorted by name, each name once; owned. */
struct kcfg {
	struct kcfg_sym *sym;
	int n, alloc;
};

void kcfg_init(struct kcfg *k);
/* Parses len bytes of a configuration; what names it in messages.  Every
 * line must be blank, a comment, "CONFIG_X=V" or "# CONFIG_X is not set",
 * with at least one symbol: anything else (a NUL, another line) is "not a
 * kernel configuration", reported with what:line.  A symbol set twice
 * keeps its last value, as kconfig does.  0 or -1 (k is then empty). */
int kcfg_parse(struct kcfg *k, const char *what, const char *text, size_t len);
void kcfg_release(struct kcfg *k);
/* The value of name, borrowed; NULL when k does not list it. */
const char *kcfg_get(const struct kcfg *k, const char *name);
/* The value as compared: kcfg_get(), "n" when unlisted. */
const char *kcfg_value(const struct kcfg *k, const char *name);
/* Sets name to value (copied); NULL removes it. */
void kcfg_set(struct kcfg *k, const char *name, const char *value);
/* The configuration as .config text, sorted by name; caller frees. */
char *kcfg_format(const struct kcfg *k);
/* The symbols of a or b whose values (kcfg_value) differ, sorted, into
 * *names (an array of borrowed names, caller frees the array; NULL when
 * none).  Returns their count. */
int kcfg_diff(const struct kcfg *a, const struct kcfg *b, const char ***names);
/* "CONFIG_X=y" or "CONFIG_X is not set" for a value, into buf. */
const char *kcfg_describe(const char *name, const char *value, char *buf, size_t size);

/* Brings a configuration to the tree (kconfig's olddefconfig): 0 with
 * *out filled (initialised here), or -1 (reported). */
typedef int kcfg_resolve_fn(void *ctx, const struct kcfg *in, struct kcfg *out);

/* One step of a path from good to bad: the configuration after it, as the
 * tree resolves it. */
struct kcfg_step {
	struct kcfg cfg;
	char *cause;		/* the option set to bad's value that moved it
				 * (the first, when several were set), owned */
};

/* The steps from good to bad (both resolved), each changing one option of
 * their difference or, where it cannot change alone (a dependency, a
 * select, a choice), the least group found that moves the configuration
 * closer to bad: every step leaves fewer differences than the one before,
 * so there are at most as many steps as differences, and the last is bad
 * itself.  The options are tried in name order, an option that does not
 * take alone is tried again only when no other takes (so that a range of
 * N options costs about N resolutions, not N^2), then in pairs
 * with another (the first four options only), then all together.  good and bad are
 * only read; *steps owned (kcfg_steps_release).  0 with *n steps, or -1
 * when fn fails. */
int kcfg_steps(const struct kcfg *good, const struct kcfg *bad, kcfg_resolve_fn *fn, void *ctx,
	       struct kcfg_step **steps, int *n);
void kcfg_steps_release(struct kcfg_step *steps, int n);
/* Copies src into dst (initialised here). */
void kcfg_copy(struct kcfg *dst, const struct kcfg *src);

#endif
