/* store: the results file, its one field table, the parser and the exports. */
#include "store.h"
#include "util.h"

#include <csv.h>
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The results format, one row per field in file order; the header, the
 * line formatter, the parser and every export are driven by it.  The TSV
 * line ends with one more column, "check": the checksum of the rest. */
enum ftype {
	F_KEY,		/* 64 hex digits */
	F_INT,		/* int */
	F_LONG,		/* long */
	F_STR,		/* char *, tabs and newlines folded to spaces */
	F_STATUS,	/* int ok: "ok" | "failed" */
	F_MBPS,		/* double, 4 decimals */
	F_SECS,		/* double, 1 decimal */
};

struct field {
	const char *name;
	enum ftype type;
	size_t off;
	double min, max;	/* the values a run can have (numbers only) */
};

#define R(m) offsetof(struct store_rec, m)
#define BIG 1e12
static const struct field fields[] = {
	{ "key", F_KEY, R(key), 0, 0 },		{ "state", F_INT, R(state), -1, 1e9 },
	{ "name", F_STR, R(name), 0, 0 },	{ "subject", F_STR, R(subject), 0, 0 },
	{ "status", F_STATUS, R(ok), 0, 0 },	{ "mbps", F_MBPS, R(value), 0, BIG },
	{ "mode", F_STR, R(mode), 0, 0 },	{ "accel", F_STR, R(accel), 0, 0 },
	{ "shift", F_LONG, R(shift), -1, 64 },	{ "clients", F_LONG, R(clients), 1, 4096 },
	{ "seconds", F_LONG, R(seconds), 0, 86400 },	{ "build_s", F_SECS, R(build_s), 0, BIG },
	{ "boot_s", F_SECS, R(boot_s), 0, BIG },	{ "bench_s", F_SECS, R(bench_s), 0, BIG },
	{ "timestamp", F_LONG, R(timestamp), 0, BIG },	{ "version", F_STR, R(version), 0, 0 },
	{ "reason", F_STR, R(reason), 0, 0 },	{ "guest_cpus", F_LONG, R(guest_cpus), -1, 4096 },
	{ "cgroup_depth", F_LONG, R(cgroup_depth), -1, 64 },	{ "qemu", F_STR, R(qemu), 0, 0 },
	{ "kerrors", F_LONG, R(kerrors), -1, BIG },	{ "kerror", F_STR, R(kerror), 0, 0 },
	{ "bench", F_STR, R(bench), 0, 0 },	{ "cycles", F_MBPS, R(cycles), -1, 1e15 },
};
#undef BIG
#undef R
#define NFIELDS ARRAY_SIZE(fields)
#define CHECK_LEN 12
#define NFIELDS_V1 17	/* the format before guest_cpus, cgroup_depth, qemu */
#define NFIELDS_V2 20	/* the format before kerrors, kerror */
#define NFIELDS_V3 22	/* the format before bench */
#define NFIELDS_V4 23	/* the format before cycles */

void store_init(struct store *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
}

static void rec_free(struct store_rec *r)
{
	free(r->name);
	free(r->subject);
	free(r->mode);
	free(r->accel);
	free(r->version);
	free(r->reason);
	free(r->qemu);
	free(r->kerror);
	free(r->bench);
}

void store_release(struct store *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		rec_free(&s->rec[i]);
	free(s->rec);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

/* Tabs and newlines inside a field would break the format. */
static char *clean(const char *s)
{
	char *c = xstrdup(s && *s ? s : "-"), *p;

	for (p = c; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return c;
}

static void checksum(const char *data, size_t n, char *out)
{
	struct util_hash *h = util_hash_new();
	char hex[65];

	util_hash_add(h, data, n);
	util_hash_hex(h, hex);
	memcpy(out, hex, CHECK_LEN);
	out[CHECK_LEN] = '\0';
}

/* The field names joined by sep, with the checksum column when check. */
static char *header_line(const char *sep, int check)
{
	struct sbuf sb;
	size_t k;

	sbuf_init(&sb);
	for (k = 0; k < NFIELDS; k++)
		sbuf_addf(&sb, "%s%s", k ? sep : "", fields[k].name);
	sbuf_addf(&sb, "%s\n", check ? "\tcheck" : "");
	return sbuf_detach(&sb);
}

/* The text of field f of r, as the TSV file holds it; caller frees. */
static char *field_text(const struct store_rec *r, const struct field *f)
{
	const void *p = (const char *)r + f->off;

	switch (f->type) {
	case F_KEY: return xstrdup((const char *)p);
	case F_INT: return xasprintf("%d", *(const int *)p);
	case F_LONG: return xasprintf("%ld", *(const long *)p);
	case F_STR: return clean(*(char *const *)p);
	case F_STATUS: return xstrdup(*(const int *)p ? "ok" : "failed");
	case F_MBPS: return xasprintf("%.4f", *(const double *)p);
	case F_SECS: return xasprintf("%.1f", *(const double *)p);
	}
	return xstrdup("-");
}

char *store_format(const struct store_rec *r)
{
	char sum[CHECK_LEN + 1];
	struct sbuf sb;
	size_t k;

	sbuf_init(&sb);
	for (k = 0; k < NFIELDS; k++) {
		char *t = field_text(r, &fields[k]);

		sbuf_addf(&sb, "%s%s", k ? "\t" : "", t);
		free(t);
	}
	checksum(sb.buf, sb.len, sum);
	sbuf_addf(&sb, "\t%s\n", sum);
	return sbuf_detach(&sb);
}

static void add_rec(struct store *s, const struct store_rec *r)
{
	struct store_rec *d;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 64;
		s->rec = xrealloc(s->rec, (size_t)s->alloc * sizeof(*s->rec));
	}
	d = &s->rec[s->n++];
	*d = *r;
	d->name = xstrdup(r->name ? r->name : "-");
	d->subject = xstrdup(r->subject ? r->subject : "-");
	d->mode = xstrdup(r->mode ? r->mode : "-");
	d->accel = xstrdup(r->accel ? r->accel : "-");
	d->version = xstrdup(r->version ? r->version : TBISECT_VERSION);
	d->reason = xstrdup(r->reason ? r->reason : "-");
	d->qemu = xstrdup(r->qemu ? r->qemu : "-");
	d->kerror = xstrdup(r->kerror && *r->kerror ? r->kerror : "-");
	d->bench = xstrdup(r->bench && *r->bench ? r->bench : "tbench");
}

/* Parses text into field f of r (strings borrowed from text); 0 or -1 for
 * text that is not a number, or a number no run can have (f's range). */
static int field_parse(struct store_rec *r, const struct field *f, char *text)
{
	void *p = (char *)r + f->off;
	double d;
	long l;

	switch (f->type) {
	case F_KEY:
		if (strlen(text) != 64 || strspn(text, "0123456789abcdef") != 64)
			return -1;
		memcpy(p, text, 65);
		return 0;
	case F_INT:
	case F_LONG:
		if (util_parse_long(text, &l) < 0 || l < f->min || l > f->max)
			return -1;
		if (f->type == F_INT)
			*(int *)p = (int)l;
		else
			*(long *)p = l;
		return 0;
	case F_STR:
		*(char **)p = text;
		return 0;
	case F_STATUS:
		*(int *)p = !strcmp(text, "ok");
		return *(int *)p || !strcmp(text, "failed") ? 0 : -1;
	case F_MBPS:
	case F_SECS:
		if (util_parse_double(text, &d) < 0 || d < f->min || d > f->max)
			return -1;
		*(double *)p = d;
		return 0;
	}
	return -1;
}

static int parse_line(char *line, struct store_rec *r)
{
	char *p = line, sum[CHECK_LEN + 1];
	size_t len = strlen(line), k;

	if (len < CHECK_LEN + 2 || line[len - CHECK_LEN - 1] != '\t')
		return -1;
	checksum(line, len - CHECK_LEN - 1, sum);
	if (strcmp(sum, line + len - CHECK_LEN))
		return -1;
	line[len - CHECK_LEN - 1] = '\0';
	memset(r, 0, sizeof(*r));
	r->guest_cpus = 1;
	r->cgroup_depth = 0;
	r->kerrors = -1;
	r->kerror = "-";
	r->bench = "tbench";
	r->cycles = -1;
	for (k = 0; k < NFIELDS; k++) {
		if (!p && (k == NFIELDS_V1 || k == NFIELDS_V2 || k == NFIELDS_V3 ||
			   k == NFIELDS_V4))
			return 0;
		if (!p || field_parse(r, &fields[k], strsep(&p, "\t")) < 0)
			return -1;
	}
	return p ? -1 : 0;
}

/* A run of corrupt lines, reported once when it ends. */
struct stretch {
	int first, last;	/* line numbers, 0 when none */
	size_t from, to;	/* byte offsets, to past the end */
};

static void stretch_report(const struct store *s, struct stretch *b, int torn_tail)
{
	const char *path = s->path ? s->path : "results";

	if (!b->first)
		return;
	if (b->first == b->last)
		warning("%s:%d: corrupt record ignored (bytes %zu-%zu)%s", path, b->first, b->from,
			b->to - 1, torn_tail ? ": torn by an interrupted write" : "");
	else
		warning("%s:%d-%d: %d corrupt lines ignored (bytes %zu-%zu)%s", path, b->first,
			b->last, b->last - b->first + 1, b->from, b->to - 1,
			torn_tail ? ", the last torn by an interrupted write" : "");
	memset(b, 0, sizeof(*b));
}

/* Whether line (n bytes, no newline) is a record to parse: not blank, not
 * the header or a comment. */
static int is_record(const char *line, size_t n)
{
	return n && !(n >= 4 && !memcmp(line, "key\t", 4)) && line[0] != '#';
}

int store_parse(struct store *s, const char *text, size_t len)
{
	struct stretch bad = { 0, 0, 0, 0 };
	size_t pos = 0;
	int lineno = 0;

	s->torn = 0;
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		struct store_rec r;
		char *copy = NULL;
		int good;

		lineno++;
		if (!is_record(line, n)) {
			pos += n + 1;
			continue;
		}
		/* A last line with no newline is torn even if it parses; a NUL
		 * (a crash's unwritten blocks) corrupts the line it is in. */
		good = nl && !memchr(line, '\0', n) &&
		       parse_line(copy = xstrndup(line, n), &r) == 0;
		if (good) {
			stretch_report(s, &bad, 0);
			add_rec(s, &r);
		} else {
			if (!bad.first) {
				bad.first = lineno;
				bad.from = pos;
			}
			bad.last = lineno;
			bad.to = pos + n;
			s->torn++;
		}
		free(copy);
		pos += n + 1;
	}
	stretch_report(s, &bad, len && text[len - 1] != '\n');
	return 0;
}

int store_load(struct store *s)
{
	char *text;
	size_t len;
	int ret;

	if (!util_exists(s->path))
		return 0;
	if (util_read_file(s->path, &text, &len) < 0)
		return -1;
	ret = store_parse(s, text, len);
	free(text);
	return ret;
}

int store_append(struct store *s, const struct store_rec *rec)
{
	char *line = store_format(rec), *copy;
	struct store_rec back;
	struct stat st;
	int fd = -1, ret = -1, readable;

	/* One rule for writer and reader: a record the parser would skip as
	 * corrupt is not written. */
	copy = xstrndup(line, strlen(line) - 1);
	readable = parse_line(copy, &back) == 0;
	free(copy);
	if (!readable) {
		error("result of %s not recorded: a value is out of the range a run can have "
		      "(%s)", rec->name ? rec->name : "?", line);
		goto out;
	}

	fd = open(s->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot open %s: %s", s->path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) == 0) {
		if (st.st_size == 0) {
			char *h = header_line("\t", 1);
			int w = util_write_all(fd, h, strlen(h));

			free(h);
			if (w < 0)
				goto out_write;
		} else {
			char last = '\n';
			int rfd = open(s->path, O_RDONLY | O_CLOEXEC);

			if (rfd >= 0) {
				if (pread(rfd, &last, 1, st.st_size - 1) != 1)
					last = '\n';
				close(rfd);
			}
			if (last != '\n' && util_write_all(fd, "\n", 1) < 0)
				goto out_write;
		}
	}
	if (fstat(fd, &st) < 0)
		st.st_size = -1;
	if (util_write_all(fd, line, strlen(line)) < 0 || fsync(fd) < 0) {
		int e = errno;

		/* Take a partial line back off; readers would skip it anyway. */
		if (st.st_size >= 0 && ftruncate(fd, st.st_size) == 0)
			fsync(fd);
		errno = e;
		goto out_write;
	}
	add_rec(s, rec);
	ret = 0;
	goto out_close;
out_write:
	error("cannot write result to %s: %s%s", s->path, strerror(errno),
	      errno == ENOSPC ? " (disk full: free space in the work directory)" : "");
out_close:
	if (fd >= 0)
		close(fd);
out:
	free(line);
	return ret;
}

int store_samples(const struct store *s, const char *key, double **v, int *nfail)
{
	int i, n = 0;

	*v = NULL;
	*nfail = 0;
	for (i = 0; i < s->n; i++) {
		if (strcmp(s->rec[i].key, key))
			continue;
		if (!s->rec[i].ok) {
			(*nfail)++;
			continue;
		}
		if (s->cycles && s->rec[i].cycles < 0)
			continue;	/* not run under the model */
		*v = xrealloc(*v, (size_t)(n + 1) * sizeof(double));
		(*v)[n++] = s->cycles ? s->rec[i].cycles : s->rec[i].value;
	}
	return n;
}

/* One CSV record: every field quoted where it needs it (libcsv doubles
 * embedded quotes). */
static void export_csv(const struct store_rec *r, FILE *f)
{
	size_t k;

	for (k = 0; k < NFIELDS; k++) {
		char *t = field_text(r, &fields[k]);

		if (k)
			fputc(',', f);
		csv_fwrite(f, t, strlen(t));
		free(t);
	}
	fputc('\n', f);
}

/* One JSON object per line; numbers as numbers, strings escaped by jansson. */
static void export_json(const struct store_rec *r, FILE *f)
{
	json_t *o = json_object();
	size_t k;
	char *line;

	for (k = 0; k < NFIELDS; k++) {
		const struct field *fl = &fields[k];
		const void *p = (const char *)r + fl->off;
		char *t = field_text(r, fl);
		json_t *v;

		switch (fl->type) {
		case F_INT: v = json_integer(*(const int *)p); break;
		case F_LONG: v = json_integer(*(const long *)p); break;
		case F_MBPS:
		case F_SECS: v = json_real(strtod(t, NULL)); break;	/* the rounded figure */
		default: v = json_string(t); break;
		}
		/* A string that is not UTF-8 gets no json_string: keep the field. */
		json_object_set_new(o, fl->name, v ? v : json_string("?"));
		free(t);
	}
	line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	fprintf(f, "%s\n", line ? line : "{}");
	free(line);
	json_decref(o);
}

int store_export(const struct store *s, const char *format, FILE *f)
{
	int i, csv = !strcmp(format, "csv"), json = !strcmp(format, "jsonl");
	char *h;

	if (!csv && !json && strcmp(format, "tsv"))
		return error("unknown export format '%s' (tsv, csv or jsonl)", format);
	if (!json) {
		h = header_line(csv ? "," : "\t", 0);
		fputs(h, f);
		free(h);
	}
	for (i = 0; i < s->n; i++) {
		const struct store_rec *r = &s->rec[i];

		if (json) {
			export_json(r, f);
		} else if (csv) {
			export_csv(r, f);
		} else {
			char *line = store_format(r);

			/* The file's line without its checksum column. */
			fprintf(f, "%.*s\n", (int)(strlen(line) - CHECK_LEN - 2), line);
			free(line);
		}
	}
	return fflush(f) == EOF ? error("cannot write the export: %s", strerror(errno)) : 0;
}
