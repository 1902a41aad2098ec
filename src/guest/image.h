/*
 * image: the guest initramfs (newc cpio, uncompressed).
 *
 * Holds busybox (static), the benchmark's files (workload.h: tbench,
 * tbench_srv and /usr/share/dbench/client.txt for tbench), the shared
 * libraries ldd names for its programs, and the init script: images/init
 * for tbench, else images/bench-init and the benchmark's /bench/run.  The
 * cpio is keyed by the SHA-256 of all of those and kept in
 * WORKDIR/images/KEY.cpio, so it is rebuilt only when an input changes.
 *
 *	char *path; char key[65];
 *	if (image_build(&conf, &workload, &path, key) < 0) ...
 *	free(path);
 *	image_lookup(&conf, &workload, key);     the key alone, nothing written
 */
#ifndef TBISECT_IMAGE_H
#define TBISECT_IMAGE_H

#include "conf.h"
#include "workload.h"

/* The image's key (65 bytes) from its inputs, without making it: what a
 * lookup of recorded runs needs.  0 or -1 (reported, naming the missing
 * package). */
int image_lookup(const struct conf *c, const struct workload *w, char *key);
/* Makes sure the image exists; *path (caller frees) and key (65 bytes).
 * Returns 0 or -1 (reported, naming the missing package). */
int image_build(const struct conf *c, const struct workload *w, char **path, char *key);
/* The host paths of the image's programs and libraries (busybox, w's
 * programs, what ldd names), NULL-terminated (caller frees each and the
 * array): what runs in the guest's user space.  0 or -1 (reported). */
int image_programs(const struct workload *w, char ***out);
/* Parses ldd output into a NULL-terminated array of absolute library paths
 * (caller frees each and the array).  Exposed for the unit tests. */
char **image_parse_ldd(const char *text);

#endif
