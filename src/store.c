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
};

#define R(m) offsetof(struct store_rec, m)
static const struct field fields[] = {
	{ "key", F_KEY, R(key) },		{ "state", F_INT, R(state) },
	{ "name", F_STR, R(name) },		{ "subject", F_STR, R(subject) },
	{ "status", F_STATUS, R(ok) },		{ "mbps", F_MBPS, R(value) },
	{ "mode", F_STR, R(mode) },		{ "accel", F_STR, R(accel) },
	{ "shift", F_LONG, R(shift) },		{ "clients", F_LONG, R(clients) },
	{ "seconds", F_LONG, R(seconds) },	{ "build_s", F_SECS, R(build_s) },
	{ "boot_s", F_SECS, R(boot_s) },	{ "bench_s", F_SECS, R(bench_s) },
	{ "timestamp", F_LONG, R(timestamp) },	{ "version", F_STR, R(version) },
	{ "reason", F_STR, R(reason) },		{ "guest_cpus", F_LONG, R(guest_cpus) },
	{ "cgroup_depth", F_LONG, R(cgroup_depth) },	{ "qemu", F_STR, R(qemu) },
	{ "kerrors", F_LONG, R(kerrors) },	{ "kerror", F_STR, R(kerror) },
	{ "bench", F_STR, R(bench) },
};
#undef R
#define NFIELDS ARRAY_SIZE(fields)
#define CHECK_LEN 12
#define NFIELDS_V1 17	/* the format before guest_cpus, cgroup_depth, qemu */
#define NFIELDS_V2 20	/* the format before kerrors, kerror */
#define NFIELDS_V3 22	/* the format before bench */

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

/* Parses text into field f of r (strings borrowed from text); 0 or -1. */
static int field_parse(struct store_rec *r, const struct field *f, char *text)
{
	void *p = (char *)r + f->off;
	long l;

	switch (f->type) {
	case F_KEY:
		if (strlen(text) != 64 || strspn(text, "0123456789abcdef") != 64)
			return -1;
		memcpy(p, text, 65);
		return 0;
	case F_INT:
		if (util_parse_long(text, &l) < 0 || l < -1 || l > 1000000000)
			return -1;
		*(int *)p = (int)l;
		return 0;
	case F_LONG:
		return util_parse_long(text, (long *)p);
	case F_STR:
		*(char **)p = text;
		return 0;
	case F_STATUS:
		*(int *)p = !strcmp(text, "ok");
		return *(int *)p || !strcmp(text, "failed") ? 0 : -1;
	case F_MBPS:
	case F_SECS:
		return util_parse_double(text, (double *)p);
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
	for (k = 0; k < NFIELDS; k++) {
		if (!p && (k == NFIELDS_V1 || k == NFIELDS_V2 || k == NFIELDS_V3))
			return 0;
		if (!p || field_parse(r, &fields[k], strsep(&p, "\t")) < 0)
			return -1;
	}
	return p ? -1 : 0;
}

int store_parse(struct store *s, const char *text)
{
	char *copy = xstrdup(text), *p = copy, *line;
	size_t total = strlen(text);
	int lineno = 0;

	s->torn = 0;
	while ((line = strsep(&p, "\n"))) {
		struct store_rec r;

		lineno++;
		if (!*line) {
			continue;
		}
		if (!strncmp(line, "key\t", 4) || line[0] == '#')
			continue;
		/* A last line with no newline is torn even if it parses. */
		if (!p && text[total - 1] != '\n') {
			warning("%s:%d: torn last record ignored (interrupted write)", s->path ? s->path : "results", lineno);
			s->torn++;
			continue;
		}
		if (parse_line(line, &r) < 0) {
			warning("%s:%d: corrupt record ignored", s->path ? s->path : "results", lineno);
			s->torn++;
			continue;
		}
		add_rec(s, &r);
	}
	free(copy);
	return 0;
}

int store_load(struct store *s)
{
	char *text;
	int ret;

	if (!util_exists(s->path))
		return 0;
	if (util_read_file(s->path, &text, NULL) < 0)
		return -1;
	ret = store_parse(s, text);
	free(text);
	return ret;
}

int store_append(struct store *s, const struct store_rec *rec)
{
	char *line = store_format(rec);
	struct stat st;
	int fd, ret = -1;

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
		*v = xrealloc(*v, (size_t)(n + 1) * sizeof(double));
		(*v)[n++] = s->rec[i].value;
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
