/* util: error reporting, memory, strings, files and hashing for every module. */
#include "util.h"

#include <ftw.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t util_interrupted;
int util_quiet;

static void on_signal(int sig)
{
	util_interrupted = sig;
}

void util_signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void util_signal_exit(void)
{
	int sig = util_interrupted;

	if (!sig)
		return;
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

void (*util_report_hook)(void);

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	if (util_report_hook)
		util_report_hook();

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "tbisect: %s%s\n", prefix, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (util_quiet)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

static void oom(void)
{
	fputs("tbisect: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

void sbuf_init(struct sbuf *sb)
{
	sb->alloc = 64;
	sb->len = 0;
	sb->buf = xmalloc(sb->alloc);
	sb->buf[0] = '\0';
}

void sbuf_grow(struct sbuf *sb, size_t n)
{
	if (sb->len + n + 1 > sb->alloc) {
		while (sb->len + n + 1 > sb->alloc)
			sb->alloc *= 2;
		sb->buf = xrealloc(sb->buf, sb->alloc);
	}
}

void sbuf_add(struct sbuf *sb, const void *data, size_t n)
{
	sbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_addstr(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	sbuf_add(sb, p, (size_t)n);
	free(p);
}

void sbuf_release(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *sbuf_detach(struct sbuf *sb)
{
	char *p = sb->buf;

	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

double util_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *util_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int util_read_file(const char *path, char **out, size_t *len)
{
	return util_read_file_max(path, 0, out, len);
}

int util_read_file_max(const char *path, size_t max, char **out, size_t *len)
{
	struct sbuf sb;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot open %s: %s", path, strerror(errno));
	sbuf_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read %s: %s", path, strerror(errno));
			goto out_fail;
		}
		sbuf_add(&sb, buf, (size_t)n);
		if (max && sb.len > max) {
			error("%s: larger than %zu bytes: not a file to read whole", path, max);
			goto out_fail;
		}
	}
	close(fd);
	if (len)
		*len = sb.len;
	*out = sbuf_detach(&sb);
	return 0;
out_fail:
	close(fd);
	sbuf_release(&sb);
	return -1;
}

int util_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void fsync_dir_of(const char *path)
{
	char *dir = util_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int util_write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		error("cannot create %s: %s", tmp, strerror(errno));
		goto out_free;
	}
	if (util_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out_close;
	}
	if (close(fd) < 0) {
		fd = -1;
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out_close;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out_close;
	}
	fsync_dir_of(path);
	free(tmp);
	return 0;
out_close:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out_free:
	free(tmp);
	return -1;
}

int util_copy_file(const char *src, const char *dst, char *hex_out)
{
	char *tmp = xasprintf("%s.tmp.%ld", dst, (long)getpid());
	struct util_hash *h = util_hash_new();
	char buf[1 << 16];
	int in, out = -1, ret = -1;
	ssize_t n;
	struct stat st;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		error("cannot open %s: %s", src, strerror(errno));
		goto out_hash;
	}
	if (fstat(in, &st) < 0)
		st.st_mode = 0644;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777);
	if (out < 0) {
		error("cannot create %s: %s", tmp, strerror(errno));
		goto out_in;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read %s: %s", src, strerror(errno));
			goto out_out;
		}
		util_hash_add(h, buf, (size_t)n);
		if (util_write_all(out, buf, (size_t)n) < 0) {
			error("cannot write %s: %s", tmp, strerror(errno));
			goto out_out;
		}
	}
	if (fsync(out) < 0 || close(out) < 0) {
		out = -1;
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out_out;
	}
	out = -1;
	if (rename(tmp, dst) < 0) {
		error("cannot rename %s: %s", tmp, strerror(errno));
		goto out_out;
	}
	ret = 0;
out_out:
	if (out >= 0)
		close(out);
	if (ret)
		unlink(tmp);
out_in:
	close(in);
out_hash:
	{
		char hex[65];

		util_hash_hex(h, hex);
		if (hex_out)
			memcpy(hex_out, hex, 65);
	}
	free(tmp);
	return ret;
}

int util_mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			error("cannot create directory %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		error("cannot create directory %s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int util_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	/* Depth first, never through a symlink: a link is removed, not followed. */
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int util_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int util_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

struct util_hash {
	EVP_MD_CTX *ctx;
};

struct util_hash *util_hash_new(void)
{
	struct util_hash *h = xmalloc(sizeof(*h));

	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || !EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL))
		oom();
	return h;
}

void util_hash_add(struct util_hash *h, const void *data, size_t n)
{
	EVP_DigestUpdate(h->ctx, data, n);
}

void util_hash_addstr(struct util_hash *h, const char *s)
{
	/* Include the terminator so that ("ab","c") and ("a","bc") differ. */
	util_hash_add(h, s, strlen(s) + 1);
}

int util_hash_addfile(struct util_hash *h, const char *path)
{
	char buf[1 << 16];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot open %s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return error("cannot read %s: %s", path, strerror(errno));
		}
		util_hash_add(h, buf, (size_t)n);
	}
	close(fd);
	return 0;
}

void util_hash_hex(struct util_hash *h, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	hex[2 * n] = '\0';
	util_hash_free(h);
}

void util_hash_free(struct util_hash *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int util_sha256_file(const char *path, char *hex)
{
	struct util_hash *h = util_hash_new();
	int ret = util_hash_addfile(h, path);

	util_hash_hex(h, hex);
	return ret;
}

char *util_path_abs(const char *base, const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	if (!base || !*base || !strcmp(base, "."))  {
		char cwd[4096];

		if (!getcwd(cwd, sizeof(cwd)))
			return xstrdup(path);
		return xasprintf("%s/%s", cwd, path);
	}
	if (base[0] != '/') {
		char *b = util_path_abs(NULL, base), *r;

		r = xasprintf("%s/%s", b, path);
		free(b);
		return r;
	}
	return xasprintf("%s/%s", base, path);
}

char *util_dirname(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

char *util_basename_dup(const char *path)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = path + n; s > path && s[-1] != '/'; s--)
		;
	return xstrndup(s, n - (size_t)(s - path));
}

int util_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

int util_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}
