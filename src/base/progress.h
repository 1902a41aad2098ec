/*
 * progress: how far a long step (a kernel build, an extraction) has come,
 * on stderr.
 *
 * On a terminal it is one line rewritten in place, at most every half
 * second; elsewhere (CI logs, a pipe) a line every PROGRESS_LOG_INTERVAL
 * seconds, so that a log shows a build advancing without drowning in it.
 * While a line is shown, error()/warning()/info() clear it before they
 * print (util's report hook), so messages never run into it.
 *
 *	struct progress p;
 *	progress_init(&p, "build: 3 (0003-foo.patch)", "objects", expected);
 *	progress_update(&p, done);      as often as convenient; prints when due
 *	progress_done(&p);              ends the line; releases p
 *
 * expected 0 means unknown: the line gives the count and the time only.
 * The text is made by progress_format(), pure, for the tests.
 */
#ifndef TBISECT_PROGRESS_H
#define TBISECT_PROGRESS_H

#include <stddef.h>

#define PROGRESS_LOG_INTERVAL 30.0

struct progress {
	char *what;		/* owned */
	const char *unit;	/* borrowed, e.g. "objects" */
	long done, expected;
	double start, last;	/* util_now() */
	int tty;		/* stderr is a terminal */
	int shown;		/* a line is on the terminal, unterminated */
};

void progress_init(struct progress *p, const char *what, const char *unit, long expected);
void progress_update(struct progress *p, long done);
void progress_done(struct progress *p);
/* "WHAT: DONE/EXPECTED UNIT (P%), ELAPSED elapsed, about ETA left" (or
 * "WHAT: DONE UNIT, ELAPSED elapsed" when expected is 0) into buf.  A count
 * past the expected one reads "almost done" rather than over 100%. */
void progress_format(char *buf, size_t size, const char *what, const char *unit, long done,
		     long expected, double elapsed);
/* "42 s", "3 min 05 s", "1 h 02 min" into buf. */
void progress_duration(char *buf, size_t size, double seconds);

#endif
