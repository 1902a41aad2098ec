/* run: the one way tbisect starts child programs, and the guardian that ends them if tbisect dies. */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* Exit status a child uses to say exec() failed; paired with a message on
 * the close-on-exec error pipe so it cannot be confused with a real 127. */
#define EXEC_FAILED 127

static void kill_group(pid_t pid, double grace);

/* The guardian: its pipe's write end (close-on-exec) and its pid. */
static int guard_fd = -1;
static pid_t guard_pid = -1;

/* Says "+PID" (a new group) or "-PID" (reaped) to the guardian. */
static void guard_say(char sign, pid_t pid)
{
	char line[32];
	int n;

	if (guard_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%c%ld\n", sign, (long)pid);
	/* Short writes to a pipe are atomic; a dead guardian is no reason to fail. */
	if (write(guard_fd, line, (size_t)n) < 0)
		return;
}

/* Whether any live process is left in group pgid: /proc, because a
 * zombie nobody reaps yet would keep kill(-pgid, 0) answering. */
static int group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int alive = 0;

	if (!d)
		return kill(-pgid, 0) == 0;
	while (!alive && (e = readdir(d))) {
		char path[300], buf[512], *p;
		long pgrp;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) S ppid pgrp ...": comm may hold spaces and ')'. */
		if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %*d %ld", &pgrp) != 1)
			continue;
		alive = pgrp == pgid && p[2] != 'Z';
	}
	closedir(d);
	return alive;
}

/* Ends the groups: TERM, then KILL after the grace, waiting until they are
 * gone (at most the grace twice). */
static void guard_end_groups(const pid_t *g, int n, double grace)
{
	double t0 = util_now();
	int i, left, killed = 0;

	for (i = 0; i < n; i++)
		kill(-g[i], SIGTERM);
	for (;;) {
		for (i = 0, left = 0; i < n; i++)
			left += group_alive(g[i]);
		if (!left || util_now() - t0 > 2 * grace)
			return;
		if (!killed && util_now() - t0 > grace) {
			for (i = 0; i < n; i++)
				kill(-g[i], SIGKILL);
			killed = 1;
		}
		usleep(20000);
	}
}

/* The guardian's life: read registrations until tbisect's end closes the
 * pipe, then end what is left.  keep is held open all along (the lock). */
static void __attribute__((noreturn)) guard_main(int rfd, int keep)
{
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
	pid_t *g = NULL;
	char buf[4096], line[32];
	size_t ll = 0, i;
	int n = 0, alloc = 0, fd;
	ssize_t r;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_IGN);
	prctl(PR_SET_NAME, "tbisect-guard", 0, 0, 0);
	/* Nothing of tbisect's but the pipe and the lock: no pipe of another
	 * child may stay open here, nor the terminal or a caller's pipe. */
	for (fd = 0; fd < 1024; fd++)
		if (fd != rfd && fd != keep)
			close(fd);
	while ((r = read(rfd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < (size_t)r; i++) {
			long pid;
			int k;

			if (buf[i] != '\n') {
				if (ll < sizeof(line) - 1)
					line[ll++] = buf[i];
				continue;
			}
			line[ll] = '\0';
			ll = 0;
			if (util_parse_long(line + 1, &pid) < 0 || pid <= 1)
				continue;
			if (line[0] == '+') {
				if (n == alloc) {
					alloc = alloc ? 2 * alloc : 16;
					g = realloc(g, (size_t)alloc * sizeof(*g));
					if (!g)
						_exit(1);
				}
				g[n++] = (pid_t)pid;
			} else {
				for (k = 0; k < n; k++)
					if (g[k] == (pid_t)pid)
						g[k--] = g[--n];
			}
		}
	}
	guard_end_groups(g, n, 3.0);
	_exit(0);
}

int run_guard_start(int keep_fd)
{
	int p[2];
	pid_t pid;

	if (guard_pid > 0)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return error("pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return error("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[1]);
		guard_main(p[0], keep_fd);
	}
	close(p[0]);
	guard_fd = p[1];
	guard_pid = pid;
	return 0;
}

void run_guard_stop(void)
{
	int st;

	if (guard_pid <= 0)
		return;
	close(guard_fd);
	guard_fd = -1;
	while (waitpid(guard_pid, &st, 0) < 0 && errno == EINTR)
		;
	guard_pid = -1;
}

/* Started commands polled while tbisect waits for another one. */
#define RUN_MAX_WATCHED 32
static struct run_cmd *watched[RUN_MAX_WATCHED];

void run_watch(struct run_cmd *cmd)
{
	int i;

	for (i = 0; i < RUN_MAX_WATCHED; i++)
		if (!watched[i]) {
			watched[i] = cmd;
			return;
		}
}

void run_unwatch(struct run_cmd *cmd)
{
	int i;

	for (i = 0; i < RUN_MAX_WATCHED; i++)
		if (watched[i] == cmd)
			watched[i] = NULL;
}

static void poll_watched(const struct run_cmd *except)
{
	int i;

	for (i = 0; i < RUN_MAX_WATCHED; i++)
		if (watched[i] && watched[i] != except && watched[i]->pid > 0)
			run_poll(watched[i]);
}
static int finish(struct run_cmd *cmd, int killed_status, int st);

void run_init(struct run_cmd *cmd, const char *const *argv)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->argv = argv;
	cmd->grace = 3.0;
	cmd->pid = -1;
	cmd->errfd = cmd->outfd = cmd->pidfd = -1;
	sbuf_init(&cmd->out);
}

void run_release(struct run_cmd *cmd)
{
	run_unwatch(cmd);
	if (cmd->pid > 0) {
		kill_group(cmd->pid, 0.5);
		finish(cmd, RUN_ERR_INTERRUPTED, 0);
	}
	sbuf_release(&cmd->out);
}

const char *run_strstatus(int status)
{
	static char buf[64];

	switch (status) {
	case RUN_ERR_SETUP: return "could not start";
	case RUN_ERR_TIMEOUT: return "timed out";
	case RUN_ERR_EXEC: return "could not be executed";
	case RUN_ERR_SIGNAL: return "killed by a signal";
	case RUN_ERR_INTERRUPTED: return "interrupted";
	}
	snprintf(buf, sizeof(buf), "exit status %d", status);
	return buf;
}

static void child_redirect(int fd, int target)
{
	if (fd >= 0 && fd != target) {
		dup2(fd, target);
		close(fd);
	}
}

static void kill_group(pid_t pid, double grace)
{
	double end;
	int st;

	kill(-pid, SIGTERM);
	end = util_now() + grace;
	while (util_now() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			/* Leader gone; stragglers in the group get KILL. */
			kill(-pid, SIGKILL);
			return;
		}
		usleep(20000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* Opens the child's stdin and stdout ends: *in_fd, *out_fd (a file) or
 * outpipe (capture).  0, or -1 with everything opened closed (reported). */
static int open_stdio(struct run_cmd *cmd, int *in_fd, int *out_fd, int outpipe[2])
{
	const char *in = cmd->stdin_path ? cmd->stdin_path : "/dev/null";

	*in_fd = open(in, O_RDONLY | O_CLOEXEC);
	if (*in_fd < 0)
		return error("cannot open %s: %s", in, strerror(errno));
	if (cmd->stdout_path) {
		int fl = O_WRONLY | O_CREAT | O_CLOEXEC | (cmd->stdout_append ? O_APPEND : O_TRUNC);

		*out_fd = open(cmd->stdout_path, fl, 0644);
		if (*out_fd >= 0)
			return 0;
		error("cannot open %s: %s", cmd->stdout_path, strerror(errno));
	} else if (!cmd->capture || pipe2(outpipe, O_CLOEXEC) == 0) {
		return 0;
	} else {
		error("pipe: %s", strerror(errno));
	}
	close(*in_fd);
	return -1;
}

/* Tells the parent through errpipe why exec failed, and exits. */
static void __attribute__((noreturn)) child_fail(int errfd)
{
	int e = errno;

	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(EXEC_FAILED);
	_exit(EXEC_FAILED);
}

/* In the child: own process group, default signals, redirections, exec. */
static void __attribute__((noreturn)) child_exec(struct run_cmd *cmd, int in_fd, int out_fd,
						  int outfd_w, int errfd)
{
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa;
	size_t i;

	setpgid(0, 0);
	/* Registered by the child itself, before exec: no moment exists in
	 * which tbisect could die and leave this group unknown to the guardian
	 * (whose pipe end closes at exec). */
	guard_say('+', getpid());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	child_redirect(in_fd, 0);
	if (out_fd >= 0)
		child_redirect(out_fd, 1);
	else if (outfd_w >= 0)
		child_redirect(outfd_w, 1);
	if (cmd->stderr_null)
		child_redirect(open("/dev/null", O_WRONLY), 2);
	else if (cmd->stderr_to_stdout)
		dup2(1, 2);
	if (cmd->cwd && chdir(cmd->cwd) < 0)
		child_fail(errfd);
	if (cmd->env) {
		const char *const *p;

		for (p = cmd->env; *p; p++)
			putenv((char *)*p);
	}
	execvp(cmd->argv[0], (char *const *)cmd->argv);
	child_fail(errfd);
}

int run_start(struct run_cmd *cmd)
{
	int errpipe[2], outpipe[2] = { -1, -1 }, in_fd = -1, out_fd = -1, ret = RUN_ERR_SETUP;
	pid_t pid;

	cmd->pid = -1;
	cmd->errfd = cmd->outfd = cmd->pidfd = -1;
	cmd->status = RUN_ERR_SETUP;
	cmd->start = util_now();
	if (open_stdio(cmd, &in_fd, &out_fd, outpipe) < 0)
		return RUN_ERR_SETUP;
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		error("pipe: %s", strerror(errno));
		goto out_fds;
	}
	pid = fork();
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		goto out_fds;
	}
	if (pid == 0) {
		close(errpipe[0]);
		child_exec(cmd, in_fd, out_fd, outpipe[1], errpipe[1]);
	}
	setpgid(pid, pid);
	close(errpipe[1]);
	cmd->pid = pid;
	/* Readable when the child ends: a wait wakes at its exit (Linux 5.3;
	 * without it, the waits poll). */
	cmd->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	cmd->errfd = errpipe[0];
	cmd->outfd = outpipe[0];
	outpipe[0] = -1;	/* ours now; the rest were the child's */
	ret = 0;
out_fds:
	if (outpipe[0] >= 0)
		close(outpipe[0]);
	if (outpipe[1] >= 0)
		close(outpipe[1]);
	if (out_fd >= 0)
		close(out_fd);
	close(in_fd);
	if (ret)
		cmd->elapsed = util_now() - cmd->start;
	return ret;
}

/* Reads what the capture pipe holds now; closes it at end of file. */
static void drain(struct run_cmd *cmd)
{
	while (cmd->outfd >= 0) {
		struct pollfd pfd = { .fd = cmd->outfd, .events = POLLIN };
		char buf[8192];
		ssize_t n;

		if (poll(&pfd, 1, 0) <= 0)
			return;
		n = read(cmd->outfd, buf, sizeof(buf));
		if (n > 0) {
			sbuf_add(&cmd->out, buf, (size_t)n);
		} else if (n == 0 || errno != EINTR) {
			close(cmd->outfd);
			cmd->outfd = -1;
		}
	}
}

/* The child ended (or was killed): collect its status, close what is left. */
static int finish(struct run_cmd *cmd, int killed_status, int st)
{
	int e;

	/* Reap any grandchildren left in the group. */
	kill(-cmd->pid, SIGKILL);
	guard_say('-', cmd->pid);
	if (killed_status) {
		cmd->status = killed_status;
	} else {
		if (cmd->outfd >= 0) {
			/* Blocking drain: the writer is gone, so this ends. */
			for (;;) {
				char buf[8192];
				ssize_t n = read(cmd->outfd, buf, sizeof(buf));

				if (n <= 0)
					break;
				sbuf_add(&cmd->out, buf, (size_t)n);
			}
		}
		if (read(cmd->errfd, &e, sizeof(e)) == (ssize_t)sizeof(e)) {
			error("cannot run %s: %s", cmd->argv[0], strerror(e));
			cmd->status = RUN_ERR_EXEC;
		} else if (WIFEXITED(st)) {
			cmd->status = WEXITSTATUS(st);
		} else {
			cmd->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
			cmd->status = RUN_ERR_SIGNAL;
		}
	}
	close(cmd->errfd);
	cmd->errfd = -1;
	if (cmd->outfd >= 0) {
		close(cmd->outfd);
		cmd->outfd = -1;
	}
	if (cmd->pidfd >= 0) {
		close(cmd->pidfd);
		cmd->pidfd = -1;
	}
	cmd->pid = -1;
	cmd->elapsed = util_now() - cmd->start;
	return 1;
}

int run_poll(struct run_cmd *cmd)
{
	int st;

	if (cmd->pid < 0)
		return 1;
	drain(cmd);
	if (cmd->tick)
		cmd->tick(cmd->tick_arg);
	if (waitpid(cmd->pid, &st, WNOHANG) == cmd->pid)
		return finish(cmd, 0, st);
	if (util_interrupted) {
		kill_group(cmd->pid, cmd->grace);
		return finish(cmd, RUN_ERR_INTERRUPTED, 0);
	}
	if (cmd->timeout > 0 && util_now() - cmd->start > cmd->timeout) {
		kill_group(cmd->pid, cmd->grace);
		return finish(cmd, RUN_ERR_TIMEOUT, 0);
	}
	return 0;
}

/* run_pause() with the sleep bounded by ms: wakes when cmd's child ends
 * (its pidfd), writes to its stdout pipe, or a signal comes. */
static void pause_ms(const struct run_cmd *cmd, int ms)
{
	struct pollfd pfd[2];
	nfds_t n = 0;

	poll_watched(cmd);
	if (cmd && cmd->outfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = cmd->outfd, .events = POLLIN };
	if (cmd && cmd->pidfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = cmd->pidfd, .events = POLLIN };
	if (n)
		poll(pfd, n, ms);
	else
		usleep((useconds_t)ms * 1000);
}

void run_pause(const struct run_cmd *cmd)
{
	pause_ms(cmd, 20);
}

int run_exec(struct run_cmd *cmd)
{
	int ms = 1;

	if (run_start(cmd) < 0)
		return RUN_ERR_SETUP;
	/* With a pidfd the wait ends at the child's exit: 50 ms is only how
	 * often the tick, the deadline and other watched children are looked
	 * at.  Without one, short commands (git, a preprocessor) end within a
	 * few ms: look often at first, then every 20 ms. */
	while (!run_poll(cmd)) {
		pause_ms(cmd, cmd->pidfd >= 0 ? 50 : ms);
		if (ms < 20)
			ms *= 2;
	}
	return cmd->status;
}

int run_capture(const char *const *argv, const char *cwd, char **out)
{
	struct run_cmd cmd;
	int ret;

	run_init(&cmd, argv);
	cmd.cwd = cwd;
	cmd.capture = out != NULL;
	ret = run_exec(&cmd);
	if (out) {
		char *t = util_trim(cmd.out.buf);

		*out = xstrdup(t);
	}
	run_release(&cmd);
	return ret;
}

int run_tool(const char *const *argv, const char *cwd, const char *what)
{
	struct run_cmd cmd;
	int st;

	run_init(&cmd, argv);
	cmd.cwd = cwd;
	cmd.stdout_path = "/dev/null";
	st = run_exec(&cmd);
	run_release(&cmd);
	if (st != 0)
		return error("%s failed (%s)", what, run_strstatus(st));
	return 0;
}
