/* progress: one line of steps, percent, elapsed and time left for long steps. */
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one line shown now, cleared by util's reporter before a message. */
static struct progress *shown;

static void clear_line(void)
{
	if (shown && shown->shown) {
		fputs("\r\033[K", stderr);
		shown->shown = 0;
	}
}

void progress_duration(char *buf, size_t size, double s)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	if (t < 60)
		snprintf(buf, size, "%ld s", t);
	else if (t < 3600)
		snprintf(buf, size, "%ld min %02ld s", t / 60, t % 60);
	else
		snprintf(buf, size, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

void progress_format(char *buf, size_t size, const char *what, const char *unit, long done,
		     long expected, double elapsed)
{
	char el[32], left[32];

	progress_duration(el, sizeof(el), elapsed);
	if (expected <= 0) {
		snprintf(buf, size, "%s: %ld %s, %s elapsed", what, done, unit, el);
	} else if (done >= expected) {
		snprintf(buf, size, "%s: %ld/%ld %s (99%%), %s elapsed, almost done", what, done,
			 expected, unit, el);
	} else if (done <= 0) {
		snprintf(buf, size, "%s: 0/%ld %s (0%%), %s elapsed", what, expected, unit, el);
	} else {
		/* The rate so far holds for the rest: kbuild's steps are alike
		 * enough on average, and the estimate is redone every update. */
		progress_duration(left, sizeof(left), elapsed * (double)(expected - done) / (double)done);
		snprintf(buf, size, "%s: %ld/%ld %s (%ld%%), %s elapsed, about %s left", what, done,
			 expected, unit, 100 * done / expected, el, left);
	}
}

static void show(struct progress *p, double now)
{
	char line[512];

	progress_format(line, sizeof(line), p->what, p->unit, p->done, p->expected, now - p->start);
	if (p->tty) {
		fprintf(stderr, "\r\033[Ktbisect: %s", line);
		p->shown = 1;
		shown = p;
	} else {
		fprintf(stderr, "tbisect: %s\n", line);
	}
	fflush(stderr);
	p->last = now;
}

void progress_init(struct progress *p, const char *what, const char *unit, long expected)
{
	memset(p, 0, sizeof(*p));
	p->what = xstrdup(what);
	p->unit = unit;
	p->expected = expected;
	p->start = p->last = util_now();
	p->tty = isatty(STDERR_FILENO) && !util_quiet;
	util_report_hook = clear_line;
}

void progress_update(struct progress *p, long done)
{
	double now = util_now();

	p->done = done;
	if (util_quiet)
		return;
	if (now - p->last >= (p->tty ? 0.5 : PROGRESS_LOG_INTERVAL))
		show(p, now);
}

void progress_done(struct progress *p)
{
	if (p->shown) {
		fputc('\n', stderr);
		p->shown = 0;
	}
	if (shown == p)
		shown = NULL;
	free(p->what);
	p->what = NULL;
}
