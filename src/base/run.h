/*
 * run: the one way tbisect starts child programs.
 *
 * Every child is exec'd from an argv (never a shell line), in its own
 * process group, with an optional deadline.  On deadline or on SIGINT/SIGTERM
 * to tbisect (util_interrupted), the whole group gets SIGTERM, then SIGKILL
 * after a grace period.
 *
 * Calling sequence:
 *	struct run_cmd cmd;
 *	run_init(&cmd, argv);          argv is borrowed, NULL-terminated
 *	cmd.cwd = ...; cmd.timeout = ...; cmd.stdout_path = ...;   optional
 *	status = run_exec(&cmd);
 *	... cmd.out holds captured stdout when cmd.capture was set ...
 *	run_release(&cmd);
 *
 * The guardian.  A command's children live in process groups of their own,
 * so nothing of the kernel's ends them when tbisect dies.  main() starts a
 * guardian first: a small process of tbisect's own that reads, through a
 * pipe, each child's group as the child starts (written by the child
 * itself, before exec) and as it is reaped.  When tbisect ends in any way,
 * kill -9 included, the pipe closes; the guardian sends SIGTERM to every
 * group still there, SIGKILL 3 s later, and waits until they are gone.  It
 * holds keep_fd (the work-directory lock) until then, so a resumed tbisect
 * never starts beside the builds and VMs of a dead one.
 *	run_guard_start(lock_fd);      0 or -1 (reported)
 *	...
 *	run_guard_stop();              at a normal end: the guardian exits, waited for
 *
 * Several at once (the caller owns each cmd until its run_poll() said 1):
 *	run_init(&a, argv_a); run_start(&a);  run_init(&b, argv_b); run_start(&b);
 *	while (!done) { done = run_poll(&a) & run_poll(&b); run_pause(NULL); }
 *	... a.status, b.status ...
 *	run_release(&a); run_release(&b);     kills and reaps a child still running
 */
#ifndef TBISECT_RUN_H
#define TBISECT_RUN_H

#include "util.h"

#include <sys/types.h>

/* run_exec() results other than a normal exit status (0..255). */
enum run_status {
	RUN_ERR_SETUP = -1,	/* fork/pipe/open failed (reported) */
	RUN_ERR_TIMEOUT = -2,	/* deadline passed, group killed */
	RUN_ERR_EXEC = -3,	/* program could not be executed */
	RUN_ERR_SIGNAL = -4,	/* child died from a signal */
	RUN_ERR_INTERRUPTED = -5 /* tbisect got SIGINT/SIGTERM, group killed */
};

struct run_cmd {
	const char *const *argv;
	const char *cwd;		/* NULL: inherit */
	const char *const *env;		/* extra "K=V" entries, NULL-terminated */
	const char *stdin_path;		/* NULL: /dev/null */
	const char *stdout_path;	/* NULL: inherit, unless capture */
	int stdout_append;
	int stderr_to_stdout;		/* 2>&1 */
	int stderr_null;
	int capture;			/* collect stdout into out */
	double timeout;			/* seconds, 0 = none */
	double grace;			/* TERM -> KILL delay, default 3 s */
	struct sbuf out;		/* captured stdout (capture=1) */
	int signal;			/* terminating signal for RUN_ERR_SIGNAL */
	double elapsed;			/* wall seconds */
	/* Called about every 50 ms while the child runs (e.g. to watch a log). */
	void (*tick)(void *arg);
	void *tick_arg;
	/* Filled by run_start()/run_poll(). */
	int status;			/* exit status or run_status, once ended */
	pid_t pid;			/* -1 when not running */
	int errfd, outfd;
	int pidfd;			/* readable once the child ends; -1 none */
	double start;
};

void run_init(struct run_cmd *cmd, const char *const *argv);
/* Runs argv in cwd (NULL: inherit) with its stdout discarded, stderr
 * inherited.  0 on exit status 0, else -1, reported as "<what> failed
 * (<status>)". */
int run_tool(const char *const *argv, const char *cwd, const char *what);
/* Runs the command to completion; returns the exit status or a run_status. */
int run_exec(struct run_cmd *cmd);
/* Starts the command: 0, or RUN_ERR_SETUP (reported; cmd->status says so too). */
int run_start(struct run_cmd *cmd);
/* One non-blocking step of a started command: drains captured output, calls
 * tick, enforces the deadline and interrupts.  Returns 1 once the command has
 * ended (result in cmd->status, elapsed set), 0 while it runs. */
int run_poll(struct run_cmd *cmd);
/* Sleeps a little between run_poll() rounds (up to 50 ms; less when cmd's
 * captured output arrives). */
void run_pause(const struct run_cmd *cmd);
/* Registers a started command to be polled (tick, deadline, interrupt,
 * reaping) whenever tbisect waits for another one, e.g. a VM while a kernel
 * builds.  cmd must stay at its address until run_unwatch()/run_release(). */
void run_watch(struct run_cmd *cmd);
void run_unwatch(struct run_cmd *cmd);
/* Frees captured output; a command still running is killed and reaped. */
void run_release(struct run_cmd *cmd);
int run_guard_start(int keep_fd);
void run_guard_stop(void);
/* Human text for a run_exec() result. */
const char *run_strstatus(int status);

/* Convenience: run argv in cwd, capture stdout (trimmed) into *out when out
 * is not NULL, stderr passes through; returns the exit status/run_status. */
int run_capture(const char *const *argv, const char *cwd, char **out);

#endif
