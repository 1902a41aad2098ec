/* releases: Debian's linux-source-6.1 point releases as a git tree. */
#include "cmd.h"
#include "release.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Debian version as apt-get takes it after '=': nothing a shell or apt
 * would read as more. */
static int valid_version(const char *v)
{
	return *v && strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz.+~-") == strlen(v) &&
	       *v >= '0' && *v <= '9';
}

int cmd_releases(struct cmd_ctx *x, int argc, char **argv)
{
	char **v = NULL, *repo;
	int n = 0, i, ret = EXIT_OK;

	if (argc == 0) {
		if (release_available(&v, &n) < 0)
			return EXIT_ERROR;
	} else {
		v = xcalloc((size_t)argc, sizeof(*v));
		for (i = 0; i < argc; i++) {
			if (!valid_version(argv[i])) {
				release_free_list(v, n);
				return error("releases: '%s' is not a Debian version such as 6.1.170-3",
					     argv[i]), EXIT_ERROR;
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
		for (i = 0; i < n; i++)
			printf("release: %s\n", v[i]);
		printf("bisect them with: tbisect -s TREE=%s -s GOOD=%s -s BAD=%s bisect\n", repo, v[0],
		       v[n - 1]);
	}
	free(repo);
	release_free_list(v, n);
	return cmd_exit(ret);
}
