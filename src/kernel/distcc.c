/* distcc: builds through a distcc farm, and where each object was compiled. */
#include "distcc.h"
#include "run.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK "tbisect-cc:"

static const char probe_src[] =
	"/* tbisect: which gcc compiles here */\n"
	"const char tbisect_cc_version[] = \"" MARK "\" __VERSION__ \":end\";\n";

void distcc_init(struct distcc *d, const struct conf *c)
{
	memset(d, 0, sizeof(*d));
	d->conf = c;
	d->on = c->distcc_hosts && *c->distcc_hosts;
	d->dir = xasprintf("%s/distcc", c->workdir);
}

void distcc_release(struct distcc *d)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(d->vars); i++)
		free(d->vars[i]);
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

/* The gcc version a compile of the probe reports, on host (NULL: here).
 * Caller frees; NULL when the compile failed (why into *status). */
static char *probe_version(struct distcc *d, const char *host, int *status)
{
	char *src = xasprintf("%s/probe.c", d->dir), *obj = xasprintf("%s/probe.o", d->dir);
	char *hosts = xasprintf("DISTCC_HOSTS=%s", host ? host : ""), *ddir = xasprintf("DISTCC_DIR=%s", d->dir);
	const char *env[] = { hosts, ddir, "DISTCC_FALLBACK=0", NULL };
	const char *argv[] = { "distcc", "gcc", "-c", src, "-o", obj, NULL };
	char *text = NULL, *v = NULL, *p, *end;
	struct run_cmd cmd;
	size_t len;

	unlink(obj);
	util_write_file_atomic(src, probe_src, sizeof(probe_src) - 1);
	run_init(&cmd, host ? argv : argv + 1);
	cmd.env = env;
	cmd.stderr_null = 1;
	cmd.timeout = 60;
	*status = run_exec(&cmd);
	run_release(&cmd);
	if (*status == 0 && util_read_file(obj, &text, &len) == 0 &&
	    (p = memmem(text, len, MARK, strlen(MARK))) &&
	    (end = memmem(p, len - (size_t)(p - text), ":end", 4)))
		v = xstrndup(p + strlen(MARK), (size_t)(end - p) - strlen(MARK));
	free(text);
	free(hosts);
	free(ddir);
	free(src);
	free(obj);
	return v;
}

/* `distcc -j` for the configured hosts; 0 when it cannot say. */
static long host_slots(struct distcc *d)
{
	char *hosts = xasprintf("DISTCC_HOSTS=%s", d->conf->distcc_hosts);
	const char *env[] = { hosts, NULL }, *argv[] = { "distcc", "-j", NULL };
	struct run_cmd cmd;
	long n = 0;

	run_init(&cmd, argv);
	cmd.env = env;
	cmd.capture = 1;
	cmd.stderr_null = 1;
	cmd.timeout = 30;
	if (run_exec(&cmd) != 0 || util_parse_long(util_trim(cmd.out.buf), &n) < 0)
		n = 0;
	run_release(&cmd);
	free(hosts);
	return n;
}

/* One host of the list: compiles with our gcc, or is down (said). */
static int check_host(struct distcc *d, const char *host, const char *local)
{
	int st;
	char *v = probe_version(d, host, &st);

	if (!v) {
		warning("distcc host %s does not answer (%s): the compiles sent to it will run on "
			"this machine", host, run_strstatus(st));
		return 0;
	}
	if (strcmp(v, local)) {
		error("distcc host %s compiles with gcc %s, this machine with gcc %s: mixed compilers "
		      "would give different kernels under one key; install the same Debian gcc "
		      "there or take it out of DISTCC_HOSTS", host, v, local);
		free(v);
		return -1;
	}
	info("distcc: %s compiles with gcc %s, as here", host, v);
	free(v);
	return 0;
}

int distcc_check(struct distcc *d)
{
	char *list, *tok, *save = NULL, *local;
	int st, ret = 0;

	if (!d->on || d->checked)
		return 0;
	if (util_mkdir_p(d->dir) < 0)
		return -1;
	local = probe_version(d, NULL, &st);
	if (!local)
		return error("cannot compile a probe with gcc here (%s)", run_strstatus(st));
	list = xstrdup(d->conf->distcc_hosts);
	for (tok = strtok_r(list, " \t", &save); tok && !ret; tok = strtok_r(NULL, " \t", &save)) {
		/* Options and this machine's own slots need no probe. */
		if (*tok == '-' || *tok == '+' || !strncmp(tok, "localhost", 9))
			continue;
		ret = check_host(d, tok, local);
	}
	free(list);
	free(local);
	d->jobs = host_slots(d);
	d->checked = ret == 0;
	return ret;
}

int distcc_env(struct distcc *d, const char *log, const char **env, int max)
{
	int i, n = 0;

	if (!d->on || max < (int)ARRAY_SIZE(d->vars))
		return 0;
	for (i = 0; i < (int)ARRAY_SIZE(d->vars); i++)
		free(d->vars[i]);
	d->vars[0] = xstrdup("CCACHE_PREFIX=distcc");
	d->vars[1] = xasprintf("DISTCC_HOSTS=%s", d->conf->distcc_hosts);
	d->vars[2] = xasprintf("DISTCC_DIR=%s", d->dir);
	d->vars[3] = xasprintf("DISTCC_LOG=%s", log);
	d->vars[4] = xstrdup("DISTCC_VERBOSE=0");
	for (i = 0; i < (int)ARRAY_SIZE(d->vars); i++)
		env[n++] = d->vars[i];
	return n;
}

void distcc_count_text(const char *text, struct distcc_counts *n)
{
	const char *line = text;

	memset(n, 0, sizeof(*n));
	while (line && *line) {
		const char *eol = strchr(line, '\n'), *c = strstr(line, "] compile "), *on;
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		/* "distcc[PID] compile FILE on HOST completed ok" */
		/* "compile (null)": kbuild probing the compiler's options, not an object. */
		if (c && c < line + len && strncmp(c, "] compile (null)", 16) &&
		    (on = strstr(c, " on ")) && on < line + len &&
		    strstr(on, " completed ok") && strstr(on, " completed ok") < line + len) {
			if (!strncmp(on + 4, "localhost", 9))
				n->local++;
			else
				n->remote++;
		} else if (memmem(line, len, "failed to distribute", 20)) {
			n->fallback++;
		}
		line = eol ? eol + 1 : NULL;
	}
}

int distcc_count(const char *log, struct distcc_counts *n)
{
	char *text = NULL;

	memset(n, 0, sizeof(*n));
	if (!util_exists(log))
		return 0;	/* nothing was compiled */
	if (util_read_file(log, &text, NULL) < 0)
		return -1;
	distcc_count_text(text, n);
	free(text);
	return 0;
}

int ccache_stats(const struct conf *c, struct ccache_stats *s)
{
	char *dir = xasprintf("CCACHE_DIR=%s/ccache", c->workdir), *line, *p;
	const char *env[] = { dir, NULL }, *argv[] = { "ccache", "--print-stats", NULL };
	struct run_cmd cmd;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	run_init(&cmd, argv);
	cmd.env = env;
	cmd.capture = 1;
	cmd.stderr_null = 1;
	cmd.timeout = 30;
	if (run_exec(&cmd) == 0) {
		for (p = cmd.out.buf; (line = strsep(&p, "\n"));) {
			char *tab = strchr(line, '\t');
			long v;

			if (!tab || util_parse_long(tab + 1, &v) < 0)
				continue;
			*tab = '\0';
			if (!strcmp(line, "direct_cache_hit") || !strcmp(line, "preprocessed_cache_hit"))
				s->hits += v;
			else if (!strcmp(line, "cache_miss") || !strcmp(line, "recache"))
				s->misses += v;
		}
		ret = 0;
	}
	run_release(&cmd);
	free(dir);
	return ret;
}
