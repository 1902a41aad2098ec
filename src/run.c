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

void run_init(struct run_cmd *cmd, const char *const *argv)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->argv = argv;
	cmd->grace = 3.0;
	sbuf_init(&cmd->out);
}

void run_release(struct run_cmd *cmd)
{
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

int run_exec(struct run_cmd *cmd)
{
	int errpipe[2], outpipe[2] = { -1, -1 };
	int in_fd = -1, out_fd = -1, ret;
	double start = util_now();
	pid_t pid;
	int st, reaped = 0;

	in_fd = open(cmd->stdin_path ? cmd->stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
	if (in_fd < 0)
		return error("cannot open %s: %s",
			     cmd->stdin_path ? cmd->stdin_path : "/dev/null", strerror(errno));
	if (cmd->stdout_path) {
		int fl = O_WRONLY | O_CREAT | O_CLOEXEC | (cmd->stdout_append ? O_APPEND : O_TRUNC);

		out_fd = open(cmd->stdout_path, fl, 0644);
		if (out_fd < 0) {
			close(in_fd);
			return error("cannot open %s: %s", cmd->stdout_path, strerror(errno));
		}
	} else if (cmd->capture) {
		if (pipe2(outpipe, O_CLOEXEC) < 0) {
			close(in_fd);
			return error("pipe: %s", strerror(errno));
		}
	}
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		ret = error("pipe: %s", strerror(errno));
		goto out_fds;
	}

	pid = fork();
	if (pid < 0) {
		ret = error("fork: %s", strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		goto out_fds;
	}
	if (pid == 0) {
		int e;
		struct sigaction sa;

		setpgid(0, 0);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		close(errpipe[0]);
		child_redirect(in_fd, 0);
		if (out_fd >= 0)
			child_redirect(out_fd, 1);
		else if (outpipe[1] >= 0)
			child_redirect(outpipe[1], 1);
		if (cmd->stderr_null) {
			int nfd = open("/dev/null", O_WRONLY);

			child_redirect(nfd, 2);
		} else if (cmd->stderr_to_stdout) {
			dup2(1, 2);
		}
		if (cmd->cwd && chdir(cmd->cwd) < 0) {
			e = errno;
			if (write(errpipe[1], &e, sizeof(e)) < 0)
				_exit(EXEC_FAILED);
			_exit(EXEC_FAILED);
		}
		if (cmd->env) {
			const char *const *p;

			for (p = cmd->env; *p; p++)
				putenv((char *)*p);
		}
		execvp(cmd->argv[0], (char *const *)cmd->argv);
		e = errno;
		if (write(errpipe[1], &e, sizeof(e)) < 0)
			_exit(EXEC_FAILED);
		_exit(EXEC_FAILED);
	}
	setpgid(pid, pid);
	close(errpipe[1]);
	if (outpipe[1] >= 0) {
		close(outpipe[1]);
		outpipe[1] = -1;
	}

	/* Wait, draining the capture pipe, watching deadline and interrupts. */
	for (;;) {
		struct pollfd pfd = { .fd = outpipe[0], .events = POLLIN };
		pid_t w;

		if (outpipe[0] >= 0 && poll(&pfd, 1, 50) > 0) {
			char buf[8192];
			ssize_t n = read(outpipe[0], buf, sizeof(buf));

			if (n > 0)
				sbuf_add(&cmd->out, buf, (size_t)n);
			else if (n == 0) {
				close(outpipe[0]);
				outpipe[0] = -1;
			}
		} else if (outpipe[0] < 0) {
			usleep(20000);
		}
		if (cmd->tick)
			cmd->tick(cmd->tick_arg);
		w = waitpid(pid, &st, WNOHANG);
		if (w == pid) {
			reaped = 1;
			if (outpipe[0] < 0)
				break;
			/* Drain what is left. */
			for (;;) {
				char buf[8192];
				ssize_t n = read(outpipe[0], buf, sizeof(buf));

				if (n <= 0)
					break;
				sbuf_add(&cmd->out, buf, (size_t)n);
			}
			break;
		}
		if (util_interrupted) {
			kill_group(pid, cmd->grace);
			ret = RUN_ERR_INTERRUPTED;
			goto out_wait;
		}
		if (cmd->timeout > 0 && util_now() - start > cmd->timeout) {
			kill_group(pid, cmd->grace);
			ret = RUN_ERR_TIMEOUT;
			goto out_wait;
		}
	}
	/* Reap any grandchildren left in the group. */
	kill(-pid, SIGKILL);
	{
		int e;

		if (read(errpipe[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
			errno = e;
			error("cannot run %s: %s", cmd->argv[0], strerror(e));
			ret = RUN_ERR_EXEC;
			goto out_wait;
		}
	}
	if (reaped && WIFEXITED(st))
		ret = WEXITSTATUS(st);
	else {
		cmd->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		ret = RUN_ERR_SIGNAL;
	}
out_wait:
	close(errpipe[0]);
out_fds:
	if (outpipe[0] >= 0)
		close(outpipe[0]);
	if (outpipe[1] >= 0)
		close(outpipe[1]);
	if (out_fd >= 0)
		close(out_fd);
	close(in_fd);
	cmd->elapsed = util_now() - start;
	return ret;
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
