/*
 * image: the guest initramfs (newc cpio, uncompressed).
 *
 * Holds busybox (static), tbench, tbench_srv, the shared libraries ldd
 * names for them, /usr/share/dbench/client.txt and the init script
 * (images/init).  The cpio is keyed by the SHA-256 of all of those and kept
 * in WORKDIR/images/KEY.cpio, so it is rebuilt only when an input changes.
 *
 *	char *path; char key[65];
 *	if (image_build(&conf, &path, key) < 0) ...
 *	free(path);
 */
#ifndef TBISECT_IMAGE_H
#define TBISECT_IMAGE_H

#include "conf.h"

/* Makes sure the image exists; *path (caller frees) and key (65 bytes).
 * Returns 0 or -1 (reported, naming the missing package). */
int image_build(const struct conf *c, char **path, char *key);
/* The host paths of the image's programs and libraries (busybox, tbench,
 * tbench_srv, what ldd names), NULL-terminated (caller frees each and the
 * array): what runs in the guest's user space.  0 or -1 (reported). */
int image_programs(char ***out);
/* Parses ldd output into a NULL-terminated array of absolute library paths
 * (caller frees each and the array).  Exposed for the unit tests. */
char **image_parse_ldd(const char *text);

#endif
