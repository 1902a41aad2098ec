/*
 * lock: one tbisect at a time per work directory.
 *
 * lock_workdir() takes an exclusive, non-blocking flock on WORKDIR/lock and
 * writes the holder (pid, command, start time) into it.  The descriptor is
 * kept open for the life of the process, so the kernel drops the lock on
 * any exit, kill -9 included; there is no unlock call.
 *
 * When the holder the file names is gone (killed), its guardian still holds
 * the lock while it ends that run's children: lock_workdir() waits for it
 * (up to 20 s) instead of refusing.
 *
 * Returns the locked descriptor (for run_guard_start(), which holds it
 * until the children of a dead tbisect are gone), -1 after reporting (a
 * second instance gets the holder's pid and command in the message; a dead
 * holder's guardian that outlasts the wait is said as such), or -2 when
 * SIGINT or SIGTERM came during that wait (nothing reported: the caller
 * exits as interrupted).
 */
#ifndef TBISECT_LOCK_H
#define TBISECT_LOCK_H

int lock_workdir(const char *workdir, const char *what);

#endif
