#include "store.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char header[] =
	"key\tstate\tname\tsubject\tstatus\tmbps\tmode\taccel\tshift\tclients\tseconds\t"
	"build_s\tboot_s\tbench_s\ttimestamp\tversion\treason\tcheck\n";
#define NFIELDS 18

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
	memcpy(out, hex, 12);
	out[12] = '\0';
}

char *store_format(const struct store_rec *r)
{
	char *name = clean(r->name), *subject = clean(r->subject), *reason = clean(r->reason);
	char sum[13];
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addf(&sb, "%s\t%d\t%s\t%s\t%s\t%.4f\t%s\t%s\t%ld\t%ld\t%ld\t%.1f\t%.1f\t%.1f\t%ld\t%s\t%s",
		  r->key, r->state, name, subject, r->ok ? "ok" : "failed", r->mbps,
		  r->mode ? r->mode : "-", r->accel ? r->accel : "-", r->shift, r->clients,
		  r->seconds, r->build_s, r->boot_s, r->bench_s, r->timestamp,
		  r->version ? r->version : TBISECT_VERSION, reason);
	checksum(sb.buf, sb.len, sum);
	sbuf_addf(&sb, "\t%s\n", sum);
	free(name);
	free(subject);
	free(reason);
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
}

static int parse_line(char *line, struct store_rec *r)
{
	char *f[NFIELDS], *p = line, sum[13];
	size_t len = strlen(line);
	int k;

	if (len < 14 || line[len - 13] != '\t')
		return -1;
	checksum(line, len - 13, sum);
	if (strcmp(sum, line + len - 12))
		return -1;
	for (k = 0; k < NFIELDS && p; k++)
		f[k] = strsep(&p, "\t");
	if (k != NFIELDS || p || strlen(f[0]) != 64)
		return -1;
	memset(r, 0, sizeof(*r));
	memcpy(r->key, f[0], 65);
	r->state = atoi(f[1]);
	r->name = f[2];
	r->subject = f[3];
	r->ok = !strcmp(f[4], "ok");
	r->mbps = atof(f[5]);
	r->mode = f[6];
	r->accel = f[7];
	r->shift = atol(f[8]);
	r->clients = atol(f[9]);
	r->seconds = atol(f[10]);
	r->build_s = atof(f[11]);
	r->boot_s = atof(f[12]);
	r->bench_s = atof(f[13]);
	r->timestamp = atol(f[14]);
	r->version = f[15];
	r->reason = f[16];
	return 0;
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
			if (util_write_all(fd, header, strlen(header)) < 0)
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
		(*v)[n++] = s->rec[i].mbps;
	}
	return n;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

int store_export(const struct store *s, const char *format)
{
	int i, csv = !strcmp(format, "csv"), json = !strcmp(format, "jsonl");

	if (!csv && !json && strcmp(format, "tsv"))
		return error("unknown export format '%s' (tsv, csv or jsonl)", format);
	if (!json)
		printf(csv ? "key,state,name,subject,status,mbps,mode,accel,shift,clients,seconds,"
			     "build_s,boot_s,bench_s,timestamp,version,reason\n"
			   : "%.*s\n", (int)strlen(header) - 7, header);
	for (i = 0; i < s->n; i++) {
		const struct store_rec *r = &s->rec[i];

		if (json) {
			printf("{\"key\":\"%s\",\"state\":%d,\"name\":", r->key, r->state);
			json_str(r->name);
			printf(",\"subject\":");
			json_str(r->subject);
			printf(",\"status\":\"%s\",\"mbps\":%.4f,\"mode\":", r->ok ? "ok" : "failed", r->mbps);
			json_str(r->mode);
			printf(",\"accel\":");
			json_str(r->accel);
			printf(",\"shift\":%ld,\"clients\":%ld,\"seconds\":%ld,\"build_s\":%.1f,"
			       "\"boot_s\":%.1f,\"bench_s\":%.1f,\"timestamp\":%ld,\"version\":",
			       r->shift, r->clients, r->seconds, r->build_s, r->boot_s, r->bench_s,
			       r->timestamp);
			json_str(r->version);
			printf(",\"reason\":");
			json_str(r->reason);
			printf("}\n");
		} else {
			const char *sep = csv ? "," : "\t";
			const char *q = csv ? "\"" : "";

			printf("%s%s%d%s%s%s%s%s%s%s%s%s%s%s%.4f%s%s%s%s%s%ld%s%ld%s%ld%s%.1f%s%.1f%s%.1f%s%ld%s%s%s%s%s%s\n",
			       r->key, sep, r->state, sep, q, r->name, q, sep, q, r->subject, q, sep,
			       r->ok ? "ok" : "failed", sep, r->mbps, sep, r->mode, sep, r->accel, sep,
			       r->shift, sep, r->clients, sep, r->seconds, sep, r->build_s, sep,
			       r->boot_s, sep, r->bench_s, sep, r->timestamp, sep, r->version, sep, q,
			       r->reason, q);
		}
	}
	return 0;
}

int store_lock(const char *workdir, const char *what)
{
	char *path = xasprintf("%s/lock", workdir), *holder = NULL;
	char buf[256];
	int fd;

	if (util_mkdir_p(workdir) < 0) {
		free(path);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot open lock %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		util_read_file(path, &holder, NULL);
		error("work directory %s is in use by another tbisect (%s); wait for it or stop it",
		      workdir, holder ? util_trim(holder) : "unknown holder");
		free(holder);
		close(fd);
		free(path);
		return -1;
	}
	/* Kept open (and locked) until exit; the kernel drops it on any death. */
	snprintf(buf, sizeof(buf), "pid %ld, tbisect %s, since %ld\n", (long)getpid(), what,
		 (long)time(NULL));
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, strlen(buf), 0) < 0)
		warning("cannot write lock holder to %s", path);
	free(path);
	return 0;
}
