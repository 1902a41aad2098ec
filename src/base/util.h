/*
 * util: error reporting, memory, strings, files and hashing shared by every
 * module.
 *
 * Reporting: library code calls error() (returns -1, so "return error(...)"
 * reads naturally), warning() or info(); only main() decides exit codes.
 * Memory: x*() allocators abort on exhaustion; every returned string is
 * owned by the caller and released with free().
 */
#ifndef TBISECT_UTIL_H
#define TBISECT_UTIL_H

#include <stddef.h>
#include <signal.h>

#define TBISECT_VERSION "0.1.0"
#define TBISECT_MAJOR 0

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Set by the SIGINT/SIGTERM/SIGHUP handler (see util_signals_init); long loops and
 * the run-command module poll it and unwind. */
extern volatile sig_atomic_t util_interrupted;

/* Installs flag-only handlers for SIGINT, SIGTERM and SIGHUP, and ignores
 * SIGPIPE (a closed pipe is a write error, not a death). */
void util_signals_init(void);
/* After the clean-up of an interrupted command: dies of the signal that
 * interrupted it (default action, raised again), so that the shell or
 * script that ran tbisect sees a death by that signal and stops too, as
 * it would for any program (an exit(130) would let a script go on).
 * Returns only when no signal came. */
void util_signal_exit(void);

/* Print "tbisect: error: ..." to stderr; always returns -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and informational lines go to stderr so stdout stays parseable;
 * util_quiet suppresses them. */
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int util_quiet;
/* Called before each of those messages (progress.c clears its line). */
extern void (*util_report_hook)(void);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable byte buffer, always NUL-terminated.  sbuf_init() then any number
 * of appends; the caller owns buf and frees it with sbuf_release(). */
struct sbuf {
	char *buf;
	size_t len, alloc;
};
void sbuf_init(struct sbuf *sb);
void sbuf_add(struct sbuf *sb, const void *data, size_t n);
/* Makes room for n more bytes (and the NUL) at buf + len. */
void sbuf_grow(struct sbuf *sb, size_t n);
void sbuf_addstr(struct sbuf *sb, const char *s);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_release(struct sbuf *sb);
/* Hands the string to the caller and resets sb. */
char *sbuf_detach(struct sbuf *sb);

/* Monotonic seconds. */
double util_now(void);

/* Trim ASCII white space in place; returns s. */
char *util_trim(char *s);

/* Reads a whole file into *out (NUL-terminated, caller frees); *len may be
 * NULL.  Returns 0, or -1 with an error reported. */
int util_read_file(const char *path, char **out, size_t *len);
/* The same, refusing (-1, reported) a file of more than max bytes, 0 = no
 * limit: a file that is a device (/dev/zero) or a mistake does not eat the
 * memory. */
int util_read_file_max(const char *path, size_t max, char **out, size_t *len);
/* Writes data to path atomically: temp file in the same directory, fsync,
 * rename, fsync of the directory.  Returns 0 or -1 (reported). */
int util_write_file_atomic(const char *path, const void *data, size_t len);
/* Copies src to dst atomically; the SHA-256 of the content goes to hex_out
 * (65 bytes) when not NULL. */
int util_copy_file(const char *src, const char *dst, char *hex_out);
/* write() until done, retrying on EINTR; 0 or -1 with errno set. */
int util_write_all(int fd, const void *data, size_t len);
int util_mkdir_p(const char *path);
/* Removes a directory tree (no symlink following).  Returns 0 or -1. */
int util_rm_rf(const char *path);
int util_exists(const char *path);
int util_is_dir(const char *path);

/* SHA-256 helpers; hex output is 64 chars + NUL. */
struct util_hash;
struct util_hash *util_hash_new(void);
void util_hash_add(struct util_hash *h, const void *data, size_t n);
void util_hash_addstr(struct util_hash *h, const char *s);
int util_hash_addfile(struct util_hash *h, const char *path);
/* Finishes and frees h. */
void util_hash_hex(struct util_hash *h, char *hex);
/* Frees h unfinished (an error path); NULL is fine. */
void util_hash_free(struct util_hash *h);
int util_sha256_file(const char *path, char *hex);

/* Absolute form of path (relative to base when not absolute), caller frees. */
char *util_path_abs(const char *base, const char *path);
/* Directory part of path, caller frees. */
char *util_dirname(const char *path);
/* The last component of path, trailing slashes dropped ("/a/kp/" -> "kp");
 * caller frees. */
char *util_basename_dup(const char *path);

/* Parses a whole decimal number or a finite floating value: the whole
 * string, no trailing text; returns 0 or -1 (not reported). */
int util_parse_long(const char *s, long *out);
int util_parse_double(const char *s, double *out);

#endif
