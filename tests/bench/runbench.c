/*
 * runbench: what the run module's wait adds to a short child.  Runs
 * `true` and `sleep 0.033` (a preprocessor's order of time) N times each
 * through run_exec() and prints the wall time per run and, for the sleep,
 * what the wait adds past it.  Part of make bench.
 */
#include "run.h"
#include "util.h"

#include <stdio.h>

static double per_run(const char *const *argv, int n)
{
	double t0 = util_now();
	int i;

	for (i = 0; i < n; i++) {
		struct run_cmd c;

		run_init(&c, argv);
		run_exec(&c);
		run_release(&c);
	}
	return (util_now() - t0) * 1000 / n;
}

int main(void)
{
	const char *t[] = { "true", NULL }, *s[] = { "sleep", "0.033", NULL };
	double a = per_run(t, 200), b = per_run(s, 100);

	printf("runbench: run_exec of true: %.2f ms per run (200 runs)\n", a);
	printf("runbench: run_exec of sleep 0.033: %.2f ms per run (100 runs), %.2f ms past the "
	       "33 ms and true's start-up: the wait's own cost\n", b, b - 33 - a);
	return 0;
}
