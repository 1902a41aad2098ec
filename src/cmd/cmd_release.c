/* releases: Debian's linux-source releases, of every series, as a git tree. */
#include "cmd.h"
#include "commands.h"
#include "release.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Debian version as apt-get takes it after '=': nothing a shell or apt
 * would read as more. */
static int valid_version(const char *v)
{
	char *series = release_series(v);
	int ok = series && strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz.+~-") == strlen(v) &&
		 strchr(v, '-');

	free(series);
	return ok;
}

/* "6.12": a series, every release of it. */
static int is_series(const char *s)
{
	char *series = release_series(s);
	int ret = series && !strcmp(series, s);

	free(series);
	return ret;
}

int cmd_releases(struct cmd_ctx *x, int argc, char **argv)
{
	char **v = NULL, *repo;
	int n = 0, i, ret = EXIT_OK;

	if (argc == 0) {
		if (release_available(NULL, &v, &n) < 0)
			return EXIT_ERROR;
	} else if (argc == 1 && is_series(argv[0])) {
		if (release_available(argv[0], &v, &n) < 0)
			return EXIT_ERROR;
	} else {
		v = xcalloc((size_t)argc, sizeof(*v));
		for (i = 0; i < argc; i++) {
			if (!valid_version(argv[i])) {
				release_free_list(v, n);
				return error("releases: '%s' is not a Debian version such as 6.1.170-3 "
					     "or a series such as 6.12", argv[i]), EXIT_ERROR;
			}
			v[n++] = xstrdup(argv[i]);
		}
		release_sort(v, n);
	}
	info("releases: %d versions: %s .. %s", n, v[0], v[n - 1]);
	if (release_import(&x->conf, v, n) < 0)
		ret = EXIT_ERROR;
	repo = release_repo(&x->conf);
	if (ret == EXIT_OK) {
		printf("tree: %s\n", repo);
		char *t[2] = { release_tag(v[0]), release_tag(v[n - 1]) };

		for (i = 0; i < n; i++) {
			char *tag = release_tag(v[i]);

			printf("release: %s (tag %s)\n", v[i], tag);
			free(tag);
		}
		printf("bisect them with: tbisect -s TREE=%s -s GOOD=%s -s BAD=%s bisect\n", repo, t[0],
		       t[1]);
		free(t[0]);
		free(t[1]);
	}
	free(repo);
	release_free_list(v, n);
	return cmd_exit(ret);
}
