/* cppfilter: preprocessor output without what comments and blank lines change, for ccache. */
#include "cppfilter.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

void cppfilter_init(struct cppfilter *f)
{
	f->file = NULL;
}

void cppfilter_release(struct cppfilter *f)
{
	free(f->file);
	f->file = NULL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* A line marker, `# N "file" flags` or `#line N "file"`: the file name
 * (with its escapes, between the quotes) and what follows it.  1 when the
 * line is one, else 0. */
static int parse_marker(const char *p, const char *end, const char **name, size_t *nlen,
			const char **rest)
{
	const char *q;

	if (p == end || *p != '#')
		return 0;
	for (p++; p < end && is_space(*p); p++)
		;
	if (end - p >= 4 && !strncmp(p, "line", 4))
		for (p += 4; p < end && is_space(*p); p++)
			;
	if (p == end || *p < '0' || *p > '9')
		return 0;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	for (; p < end && is_space(*p); p++)
		;
	if (p == end || *p != '"')
		return 0;
	for (q = ++p; q < end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < end)
			q++;
	if (q == end)
		return 0;
	*name = p;
	*nlen = (size_t)(q - p);
	*rest = q + 1;
	return 1;
}

/* Appends p..end with runs of white space outside literals folded to one
 * space and none at either end. */
static void add_folded(const char *p, const char *end, struct sbuf *out)
{
	char quote = 0, *o;
	int pending = 0;

	/* At most the input's length: written in place, not char by char. */
	sbuf_grow(out, (size_t)(end - p));
	o = out->buf + out->len;
	for (; p < end && is_space(*p); p++)
		;
	for (; p < end; p++) {
		if (!quote && is_space(*p)) {
			pending = 1;
			continue;
		}
		if (pending)
			*o++ = ' ';
		pending = 0;
		*o++ = *p;
		if (quote && *p == '\\' && p + 1 < end)
			*o++ = *++p;
		else if (quote && *p == quote)
			quote = 0;
		else if (!quote && (*p == '"' || *p == '\''))
			quote = *p;
	}
	out->len = (size_t)(o - out->buf);
	out->buf[out->len] = '\0';
}

void cppfilter_line(struct cppfilter *f, const char *line, size_t len, struct sbuf *out)
{
	const char *end = line + len, *p = line, *name, *rest;
	size_t nlen, start;

	while (p < end && is_space(*p))
		p++;
	if (p == end)
		return;		/* blank: a comment or a line gap */
	if (parse_marker(p, end, &name, &nlen, &rest)) {
		const char *r = rest;

		while (r < end && is_space(*r))
			r++;
		/* A resync within the same file only says how many lines passed. */
		if (r == end && f->file && strlen(f->file) == nlen && !strncmp(f->file, name, nlen))
			return;
		free(f->file);
		f->file = xstrndup(name, nlen);
		sbuf_addstr(out, "# 0 \"");
		sbuf_add(out, name, nlen);
		sbuf_add(out, "\"", 1);
		start = out->len;
		sbuf_add(out, " ", 1);
		add_folded(rest, end, out);
		if (out->len == start + 1)
			out->len = start;	/* no flags */
		out->buf[out->len] = '\0';
		sbuf_add(out, "\n", 1);
		return;
	}
	add_folded(p, end, out);
	sbuf_add(out, "\n", 1);
}

void cppfilter_text(struct cppfilter *f, const char *text, size_t len, struct sbuf *out)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		cppfilter_line(f, p, (size_t)(e - p), out);
		p = nl ? nl + 1 : end;
	}
}

/* The file named by -o FILE or -oFILE in argv, or NULL (stdout). */
static const char *output_file(int argc, char **argv)
{
	const char *o = NULL;
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			o = argv[++i];
		else if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			o = argv[i] + 2;
	return o;
}

/* The filtered form of a whole text into out (initialised here). */
static void filter_whole(const char *text, size_t len, struct sbuf *out)
{
	struct cppfilter f;

	cppfilter_init(&f);
	sbuf_init(out);
	/* Filtering shrinks a text but in odd cases (a last line without its
	 * newline, a marker written without spaces): one allocation as a rule. */
	sbuf_grow(out, len + 1);
	cppfilter_text(&f, text, len, out);
	cppfilter_release(&f);
}

/* Filters text into fd.  0 or -1. */
static int write_filtered(int fd, const char *text, size_t len)
{
	struct sbuf out;
	int ret;

	filter_whole(text, len, &out);
	ret = util_write_all(fd, out.buf, out.len);
	sbuf_release(&out);
	return ret;
}

/* Filters the file at path in place: mapped, not read into a copy (a
 * kernel object's preprocessed text is 1-4 MB, once per compile).  The
 * filtered text is written only after the map is gone, so truncating the
 * file never pulls pages from under it.  0 or -1. */
static int filter_file(const char *path)
{
	struct sbuf out;
	struct stat st;
	void *map = NULL;
	int fd, ret = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto out_fd;
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (map == MAP_FAILED)
			goto out_fd;
	}
	filter_whole(map ? map : "", (size_t)st.st_size, &out);
	if (map)
		munmap(map, (size_t)st.st_size);
	close(fd);
	/* ccache's own temporary file: rewritten in place. */
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
		goto out_buf;
	ret = util_write_all(fd, out.buf, out.len);
out_buf:
	sbuf_release(&out);
out_fd:
	if (fd >= 0 && close(fd) < 0)
		ret = -1;
	return ret;
}

int cppfilter_main(int argc, char **argv)
{
	const char *ofile = argc > 1 ? output_file(argc, argv) : NULL;
	struct run_cmd cmd;
	int st;

	if (argc < 2) {
		error("usage: %s COMPILER ARGS... (ccache's CCACHE_PREFIX_CPP)", CPPFILTER_NAME);
		return 1;
	}
	/* ccache names a file with -o (4.x); older ones read stdout. */
	run_init(&cmd, (const char *const *)argv + 1);
	cmd.capture = !ofile;
	st = run_exec(&cmd);
	if (st != 0) {
		if (st < 0)
			error("%s: %s: %s", CPPFILTER_NAME, argv[1], run_strstatus(st));
		run_release(&cmd);
		return st < 0 ? 1 : st;
	}
	if (!ofile)
		st = write_filtered(STDOUT_FILENO, cmd.out.buf ? cmd.out.buf : "", cmd.out.len);
	else
		st = filter_file(ofile);
	if (st < 0)
		error("%s: writing the filtered output failed", CPPFILTER_NAME);
	run_release(&cmd);
	return st < 0 ? 1 : 0;
}
