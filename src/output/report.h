/*
 * report: what the last bisect, culprits, sweep or check found, ready to paste
 * into a mail to the kernel list (in the manner of the 0-day bot's
 * regression reports) or, with markdown, into an issue tracker.
 *
 * The searching commands fill a report and save it as WORKDIR/report.json
 * (written to a temporary file, fsynced, renamed); `tbisect report` loads
 * and formats it, so the report needs nothing else from the work directory.
 *
 *	struct report r;
 *	report_init(&r, "bisect");
 *	report_set(&r, REPORT_VERDICT, "first bad commit: ...");   copies
 *	report_add_change(&r, id, subject, from, to, change);
 *	report_set_why(&r, what); report_add_function(&r, fn, a, b, share);   optional
 *	report_save(&r, path);                 0 or -1 (reported)
 *	report_release(&r);
 *
 *	report_load(&r, path);                 0, or -1 (reported: missing,
 *	                                       unreadable, not a report)
 *	report_format(&r, REPORT_MARKDOWN, &sb);   pure; appends to sb
 */
#ifndef TBISECT_REPORT_H
#define TBISECT_REPORT_H

#include "util.h"

/* The report's text fields, in the order they are saved. */
enum report_field {
	REPORT_COMMAND,		/* bisect | culprits | sweep | check */
	REPORT_DATE,		/* UTC, ISO 8601 */
	REPORT_VERSION,		/* tbisect's */
	REPORT_SOURCE,		/* "kpatches (DIR)" or the TREE path */
	REPORT_GOOD,		/* labels of the ends */
	REPORT_BAD,
	REPORT_MODE,		/* icount shift=1 (TCG, deterministic) ... */
	REPORT_SETTINGS,	/* CLIENTS=2 SECONDS=2 ... */
	REPORT_VERDICT,		/* the answer in one line */
	REPORT_CULPRIT,		/* id or state label of the first bad one, "" */
	REPORT_SUBJECT,		/* its subject */
	REPORT_CONFIDENCE,
	REPORT_COST,
	REPORT_PLOT,		/* PNG path */
	REPORT_REPRODUCE,	/* the exact command line */
	REPORT_HEALTH,		/* the guests' kernel logs at the ends (cmd_report_health) */
	REPORT_BENCH,		/* the benchmark's name, "" read as tbench */
	REPORT_UNIT,		/* its figure's unit, "" read as MB/s */
	REPORT_CONFIG,		/* which configuration the culprit needs
				 * (OTHER_CONFIG, cfgneed.h), "" */
	REPORT_NFIELDS
};

enum report_format { REPORT_TEXT, REPORT_MARKDOWN };

struct report_change {
	char *id, *subject;
	double from, to, change;	/* the figure before and after (REPORT_UNIT); relative */
	int small;		/* above the floor, not above the threshold */
	struct report_cell *impact;	/* impact: a cell per r->bench; NULL elsewhere */
};

/* impact: one culprit on one benchmark. */
struct report_cell {
	double change;		/* relative, NAN: not measured */
	int overlap;		/* the culprit's runs and its parent's overlap:
				 * the change is within their spread */
};

/* A benchmark column of the impact table (tbisect impact). */
struct report_bench {
	char *name, *unit;
	int lower_better;
};

/* Why: a function of the culprit's instruction profile (tbisect profile). */
struct report_fn {
	char *function;
	double a, b;		/* instructions per tbench operation at the parent and the culprit */
	double share;		/* of the total change, relative */
};

struct report {
	char *f[REPORT_NFIELDS];	/* owned; NULL reads as "" */
	struct report_change *chg;
	int nchg;
	char *why;			/* what the functions compare, NULL: none */
	struct report_fn *fn;
	int nfn;
	struct report_bench *bench;	/* impact's columns */
	int nbench;
};

void report_init(struct report *r, const char *command);
void report_set(struct report *r, enum report_field k, const char *value);
void report_setf(struct report *r, enum report_field k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds a change (not small); the caller may mark it small through the
 * pointer returned, valid until the next add. */
struct report_change *report_add_change(struct report *r, const char *id, const char *subject,
					double from, double to, double change);
/* impact: adds a benchmark column (before any report_set_impact()). */
void report_add_bench(struct report *r, const char *name, const char *unit, int lower_better);
/* impact: the relative change of change i on benchmark column k, and
 * whether its runs overlap its parent's. */
void report_set_impact(struct report *r, int i, int k, double change, int overlap);
/* impact: the table of every change on every benchmark column, "worse" or
 * "better" by each column's direction; nothing without columns.  Pure;
 * appends to out.  report_format() includes it. */
void report_format_impact(const struct report *r, int markdown, struct sbuf *out);
/* The culprit's profile: what (e.g. "4 (...) -> 5 (...), instructions per
 * operation") once, then its largest rows. */
void report_set_why(struct report *r, const char *what);
void report_add_function(struct report *r, const char *function, double a, double b,
			 double share);
int report_save(const struct report *r, const char *path);
int report_load(struct report *r, const char *path);
void report_format(const struct report *r, enum report_format fmt, struct sbuf *out);
/* argv as one shell-quoted line, caller frees ('a b' -> "'a b'"). */
char *report_quote_argv(int argc, const char *const *argv);
void report_release(struct report *r);

#endif
