#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Exit status a child uses to say exec() failed; paired with a message on
 * the close-on-exec error pipe so it cannot be confused with a real 127. */
#define EXEC_FAILED 127

static void kill_group(pid_t pid, double grace);

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
	cmd->errfd = cmd->outfd = -1;
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
	cmd->errfd = cmd->outfd = -1;
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

void run_pause(const struct run_cmd *cmd)
{
	poll_watched(cmd);
	if (cmd && cmd->outfd >= 0) {
		struct pollfd pfd = { .fd = cmd->outfd, .events = POLLIN };

		poll(&pfd, 1, 50);
	} else {
		usleep(20000);
	}
}

int run_exec(struct run_cmd *cmd)
{
	if (run_start(cmd) < 0)
		return RUN_ERR_SETUP;
	while (!run_poll(cmd))
		run_pause(cmd);
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
