/* report: what the last searching command found, saved and formatted for a mail. */
#include "report.h"
#include "bisect.h"

#include <math.h>

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPORT_FORMAT 1

static const char *const names[REPORT_NFIELDS] = {
	"command", "date", "version", "source", "good", "bad", "mode", "settings", "verdict",
	"culprit", "subject", "confidence", "cost", "plot", "reproduce", "health",
	"bench", "unit", "config"
};

static const char *get(const struct report *r, enum report_field k)
{
	return r->f[k] ? r->f[k] : "";
}

void report_init(struct report *r, const char *command)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	memset(r, 0, sizeof(*r));
	report_set(r, REPORT_COMMAND, command);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	report_set(r, REPORT_DATE, date);
	report_set(r, REPORT_VERSION, TBISECT_VERSION);
}

void report_set(struct report *r, enum report_field k, const char *value)
{
	free(r->f[k]);
	r->f[k] = value ? xstrdup(value) : NULL;
}

void report_setf(struct report *r, enum report_field k, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(r->f[k]);
	r->f[k] = s;
}

struct report_change *report_add_change(struct report *r, const char *id, const char *subject,
					double from, double to, double change)
{
	struct report_change *c;

	r->chg = xrealloc(r->chg, (size_t)(r->nchg + 1) * sizeof(*r->chg));
	c = &r->chg[r->nchg++];
	c->id = xstrdup(id ? id : "");
	c->subject = xstrdup(subject ? subject : "");
	c->from = from;
	c->to = to;
	c->change = change;
	c->small = 0;
	c->impact = NULL;
	return c;
}

void report_add_bench(struct report *r, const char *name, const char *unit, int lower_better)
{
	r->bench = xrealloc(r->bench, (size_t)(r->nbench + 1) * sizeof(*r->bench));
	r->bench[r->nbench++] = (struct report_bench){ xstrdup(name), xstrdup(unit), lower_better };
}

void report_set_impact(struct report *r, int i, int k, double change, int overlap)
{
	struct report_change *c = &r->chg[i];
	int j;

	if (!c->impact) {
		c->impact = xcalloc((size_t)r->nbench, sizeof(*c->impact));
		for (j = 0; j < r->nbench; j++)
			c->impact[j].change = NAN;
	}
	c->impact[k] = (struct report_cell){ change, overlap };
}

void report_set_why(struct report *r, const char *what)
{
	free(r->why);
	r->why = xstrdup(what);
}

void report_add_function(struct report *r, const char *function, double a, double b,
			 double share)
{
	struct report_fn *f;

	r->fn = xrealloc(r->fn, (size_t)(r->nfn + 1) * sizeof(*r->fn));
	f = &r->fn[r->nfn++];
	f->function = xstrdup(function);
	f->a = a;
	f->b = b;
	f->share = share;
}

void report_release(struct report *r)
{
	int i;

	for (i = 0; i < r->nfn; i++)
		free(r->fn[i].function);
	free(r->fn);
	free(r->why);
	for (i = 0; i < REPORT_NFIELDS; i++)
		free(r->f[i]);
	for (i = 0; i < r->nchg; i++) {
		free(r->chg[i].id);
		free(r->chg[i].subject);
		free(r->chg[i].impact);
	}
	free(r->chg);
	for (i = 0; i < r->nbench; i++) {
		free(r->bench[i].name);
		free(r->bench[i].unit);
	}
	free(r->bench);
	memset(r, 0, sizeof(*r));
}

/* impact's columns, and each change's row of it ("impact": a cell
 * {change, overlap}, null when not measured). */
static void save_impact(const struct report *r, json_t *o)
{
	json_t *cols = json_array(), *rows = json_array();
	int i, k;

	for (k = 0; k < r->nbench; k++)
		json_array_append_new(cols, json_pack("{s:s, s:s, s:b}", "name", r->bench[k].name,
						      "unit", r->bench[k].unit, "lower_better",
						      r->bench[k].lower_better));
	for (i = 0; i < r->nchg; i++) {
		json_t *row = json_array();

		for (k = 0; k < r->nbench; k++) {
			const struct report_cell *v = r->chg[i].impact ? &r->chg[i].impact[k] : NULL;

			json_array_append_new(row, !v || isnan(v->change) ? json_null() :
						   json_pack("{s:f, s:b}", "change", v->change,
							     "overlap", v->overlap));
		}
		json_array_append_new(rows, row);
	}
	json_object_set_new(o, "benchmarks", cols);
	json_object_set_new(o, "impact", rows);
}

static void load_impact(struct report *r, json_t *o)
{
	json_t *c, *row, *v;
	size_t i, k;

	json_array_foreach(json_object_get(o, "benchmarks"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *unit = json_string_value(json_object_get(c, "unit"));

		report_add_bench(r, name ? name : "?", unit ? unit : "?",
				 json_is_true(json_object_get(c, "lower_better")));
	}
	json_array_foreach(json_object_get(o, "impact"), i, row) {
		json_array_foreach(row, k, v) {
			json_t *ch = json_object_get(v, "change");

			if ((int)i < r->nchg && (int)k < r->nbench && json_is_number(ch))
				report_set_impact(r, (int)i, (int)k, json_number_value(ch),
						  json_is_true(json_object_get(v, "overlap")));
		}
	}
}

int report_save(const struct report *r, const char *path)
{
	json_t *o = json_object(), *a = json_array();
	char *text;
	int i, ret;

	json_object_set_new(o, "tbisect_report", json_integer(REPORT_FORMAT));
	for (i = 0; i < REPORT_NFIELDS; i++) {
		json_t *v = json_string(get(r, i));

		json_object_set_new(o, names[i], v ? v : json_string("?"));	/* not UTF-8 */
	}
	for (i = 0; i < r->nchg; i++) {
		const struct report_change *c = &r->chg[i];
		json_t *s = json_string(c->subject);

		json_array_append_new(a, json_pack("{s:s, s:o, s:f, s:f, s:f, s:b}", "id", c->id,
						   "subject", s ? s : json_string("?"), "from", c->from,
						   "to", c->to, "change", c->change, "small", c->small));
	}
	json_object_set_new(o, "changes", a);
	if (r->nbench)
		save_impact(r, o);
	if (r->why) {
		a = json_array();
		for (i = 0; i < r->nfn; i++)
			json_array_append_new(a, json_pack("{s:s, s:f, s:f, s:f}", "function",
							   r->fn[i].function, "a", r->fn[i].a, "b",
							   r->fn[i].b, "share", r->fn[i].share));
		json_object_set_new(o, "why", json_string(r->why));
		json_object_set_new(o, "functions", a);
	}
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (!text)
		return error("cannot format the report");
	ret = util_write_file_atomic(path, text, strlen(text));
	free(text);
	return ret;
}

int report_load(struct report *r, const char *path)
{
	json_error_t err;
	json_t *o = json_load_file(path, 0, &err), *a, *c;
	size_t i;
	int k;

	memset(r, 0, sizeof(*r));
	if (!o)
		return error("no report to show: %s: %s (run bisect, culprits or check first)", path,
			     err.text);
	if (json_integer_value(json_object_get(o, "tbisect_report")) != REPORT_FORMAT) {
		json_decref(o);
		return error("%s is not a tbisect report this version reads", path);
	}
	for (k = 0; k < REPORT_NFIELDS; k++) {
		const char *s = json_string_value(json_object_get(o, names[k]));

		report_set(r, k, s ? s : "");
	}
	a = json_object_get(o, "changes");
	json_array_foreach(a, i, c) {
		const char *id = json_string_value(json_object_get(c, "id"));
		const char *subj = json_string_value(json_object_get(c, "subject"));

		report_add_change(r, id, subj, json_number_value(json_object_get(c, "from")),
				  json_number_value(json_object_get(c, "to")),
				  json_number_value(json_object_get(c, "change")))->small =
			json_is_true(json_object_get(c, "small"));
	}
	load_impact(r, o);
	if (json_string_value(json_object_get(o, "why")))
		report_set_why(r, json_string_value(json_object_get(o, "why")));
	a = json_object_get(o, "functions");
	json_array_foreach(a, i, c) {
		const char *fn = json_string_value(json_object_get(c, "function"));

		report_add_function(r, fn ? fn : "?", json_number_value(json_object_get(c, "a")),
				    json_number_value(json_object_get(c, "b")),
				    json_number_value(json_object_get(c, "share")));
	}
	json_decref(o);
	return 0;
}

char *report_quote_argv(int argc, const char *const *argv)
{
	struct sbuf sb;
	int i;

	sbuf_init(&sb);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *p;

		if (i)
			sbuf_addstr(&sb, " ");
		if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789-_./=:,+@%") == strlen(a)) {
			sbuf_addstr(&sb, a);
			continue;
		}
		sbuf_addstr(&sb, "'");
		for (p = a; *p; p++)
			if (*p == '\'')
				sbuf_addstr(&sb, "'\\''");
			else
				sbuf_addf(&sb, "%c", *p);
		sbuf_addstr(&sb, "'");
	}
	return sbuf_detach(&sb);
}

/* The changes as a table: text columns, or a markdown table. */
static void format_changes(const struct report *r, int md, struct sbuf *out)
{
	const char *u = *get(r, REPORT_UNIT) ? get(r, REPORT_UNIT) : "MB/s";
	int i;

	if (!r->nchg)
		return;
	if (md)
		sbuf_addf(out, "\n| change | before (%s) | after (%s) | at | subject |\n"
			       "|---:|---:|---:|---|---|\n", u, u);
	else
		sbuf_addf(out, "\n    change  %7s before  %7s after  at            subject\n", u, u);
	for (i = 0; i < r->nchg; i++) {
		const struct report_change *c = &r->chg[i];

		sbuf_addf(out, md ? "| %+.2f%% | %.3f | %.3f | `%s` | %s%s |\n"
				  : "  %+7.2f%%  %12.3f %12.3f  %-13s %s%s\n",
			  100 * c->change, c->from, c->to, c->id, c->subject, c->small ? " (small)" : "");
	}
}

void report_format_impact(const struct report *r, int md, struct sbuf *out)
{
	int i, k;

	if (!r->nbench)
		return;
	sbuf_addstr(out, md ? "\n| culprit |" : "\nculprit                                 ");
	for (k = 0; k < r->nbench; k++) {
		char *head = xasprintf("%s (%s, %s better)", r->bench[k].name, r->bench[k].unit,
				       r->bench[k].lower_better ? "lower" : "higher");

		sbuf_addf(out, md ? " %s |" : "  %-30s", head);
		free(head);
	}
	sbuf_addstr(out, "\n");
	if (md) {
		sbuf_addstr(out, "|---|");
		for (k = 0; k < r->nbench; k++)
			sbuf_addstr(out, "---:|");
		sbuf_addstr(out, "\n");
	}
	for (i = 0; i < r->nchg; i++) {
		const struct report_change *c = &r->chg[i];
		char *name = xasprintf("%s %s", c->id, c->subject);

		sbuf_addf(out, md ? "| %s |" : "%-40.40s", name);
		free(name);
		for (k = 0; k < r->nbench; k++) {
			struct bisect_params p = { .lower_better = r->bench[k].lower_better };
			double v = c->impact ? c->impact[k].change : NAN;
			int worse = bisect_worse(&p, v);
			char *cell = isnan(v) ? xstrdup("not measured") :
				     xasprintf("%+.2f%% %s%s", 100 * v, fabs(v) < 0.0005 ? "same" :
					       worse ? "worse" : "better",
					       c->impact[k].overlap ? " (runs overlap)" : "");

			sbuf_addf(out, md ? " %s |" : "  %-30s", cell);
			free(cell);
		}
		sbuf_addstr(out, "\n");
	}
}

/* The culprit's largest profile rows. */
static void format_why(const struct report *r, int md, struct sbuf *out)
{
	int i;

	if (!r->why)
		return;
	sbuf_addf(out, md ? "\nWhy (%s):\n\n| function | before | after | change | share |\n"
			    "|---|---:|---:|---:|---:|\n"
			  : "\nWhy: %s\n    function                             before        after       change   share\n",
		  r->why);
	for (i = 0; i < r->nfn; i++) {
		const struct report_fn *f = &r->fn[i];

		sbuf_addf(out, md ? "| `%s` | %.2f | %.2f | %+.2f | %.1f%% |\n"
				  : "    %-32s %12.2f %12.2f %+12.2f %6.1f%%\n",
			  f->function, f->a, f->b, f->b - f->a, 100 * f->share);
	}
}

void report_format(const struct report *r, enum report_format fmt, struct sbuf *out)
{
	int md = fmt == REPORT_MARKDOWN;
	static const struct {
		enum report_field k;
		const char *label;
	} rows[] = {
		{ REPORT_SOURCE, "source" }, { REPORT_BENCH, "benchmark" }, { REPORT_GOOD, "good" }, { REPORT_BAD, "bad" },
		{ REPORT_MODE, "mode" }, { REPORT_SETTINGS, "settings" },
		{ REPORT_CONFIDENCE, "confidence" }, { REPORT_HEALTH, "guest" },
		{ REPORT_CONFIG, "config" }, { REPORT_COST, "cost" },
		{ REPORT_DATE, "date" }, { REPORT_PLOT, "plot" },
	};
	size_t i;

	const char *name = *get(r, REPORT_BENCH) ? get(r, REPORT_BENCH) : "tbench";
	size_t n = strcspn(name, ":");

	sbuf_addf(out, md ? "## %.*s: %s\n\n" : "%.*s: %s\n\n", (int)n, name,
		  get(r, REPORT_VERDICT));
	if (*get(r, REPORT_CULPRIT)) {
		sbuf_addf(out, md ? "**first bad:** `%s` %s\n\n" : "first bad: %s %s\n\n",
			  get(r, REPORT_CULPRIT), get(r, REPORT_SUBJECT));
	}
	sbuf_addf(out, "Found by tbisect %s, command %s.\n", get(r, REPORT_VERSION),
		  get(r, REPORT_COMMAND));
	sbuf_addstr(out, md ? "\n| | |\n|---|---|\n" : "\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (*get(r, rows[i].k))
			sbuf_addf(out, md ? "| %s | %s |\n" : "%-11s %s\n", rows[i].label,
				  get(r, rows[i].k));
	if (r->nbench)
		report_format_impact(r, md, out);
	else
		format_changes(r, md, out);
	format_why(r, md, out);
	sbuf_addf(out, md ? "\nTo reproduce:\n\n```\n%s\n```\n" : "\nTo reproduce:\n\n        %s\n",
		  get(r, REPORT_REPRODUCE));
}
