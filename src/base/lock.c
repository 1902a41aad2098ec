/* lock: one tbisect at a time per work directory. */
#include "lock.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* Says who holds the lock at path, from what the holder wrote there. */
static int report_holder(const char *workdir, const char *path)
{
	char *holder = NULL;

	util_read_file(path, &holder, NULL);
	error("work directory %s is in use by another tbisect (%s); wait for it or stop it",
	      workdir, holder ? util_trim(holder) : "unknown holder");
	free(holder);
	return -1;
}

/* The holder named in the lock file is gone (killed): its guardian still
 * holds the lock while it ends that run's builds and VMs (run.h).  Waits
 * for it, up to LOCK_WAIT seconds.  0 with the lock taken; 1 the holder
 * lives (not reported); -1 its guardian outlasted the wait (reported); -2
 * interrupted (SIGINT/SIGTERM) while waiting. */
#define LOCK_WAIT 20
static int wait_for_dead_holder(int fd, const char *path)
{
	char *holder = NULL;
	long pid;
	int i, dead;

	util_read_file(path, &holder, NULL);
	dead = holder && sscanf(holder, "pid %ld,", &pid) == 1 && pid > 1 &&
	       kill((pid_t)pid, 0) < 0 && errno == ESRCH;
	free(holder);
	if (!dead)
		return 1;
	info("lock: the tbisect that held it (pid %ld) is gone; waiting for its builds and VMs "
	     "to be ended", pid);
	for (i = 0; i < LOCK_WAIT * 10; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (util_interrupted)
			return -2;
		usleep(100000);
	}
	error("the builds and VMs of the killed tbisect (pid %ld) were not ended within %d s",
	      pid, LOCK_WAIT);
	return -1;
}

int lock_workdir(const char *workdir, const char *what)
{
	char *path = xasprintf("%s/lock", workdir);
	char buf[256];
	int fd, r, ret = -1;

	if (util_mkdir_p(workdir) < 0)
		goto out;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot open lock %s: %s", path, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 && (r = wait_for_dead_holder(fd, path)) != 0) {
		close(fd);
		if (r == 1)
			report_holder(workdir, path);
		if (r == -2)
			ret = -2;
		goto out;
	}
	/* fd stays open (and locked) until exit. */
	snprintf(buf, sizeof(buf), "pid %ld, tbisect %s, since %ld\n", (long)getpid(), what,
		 (long)time(NULL));
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, strlen(buf), 0) < 0)
		warning("cannot write lock holder to %s", path);
	ret = fd;
out:
	free(path);
	return ret;
}
