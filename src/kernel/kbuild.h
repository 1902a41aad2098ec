/*
 * kbuild: how many objects a kernel configuration selects, counted from
 * the tree's Kbuild files before anything is built, so that the first
 * full build (no earlier one of its config to compare with) shows a
 * percent and a time left.
 *
 * The count follows kbuild's lists: the top-level Kbuild's obj- lines and
 * the architecture's core-, libs- and drivers- lines name the directories;
 * in each, obj-y, lib-y and obj-$(CONFIG_X) with X=y in the .config name
 * objects and subdirectories; a composite object (foo-y, foo-objs) counts
 * its parts.  Conditionals (ifdef, ifeq) and objects named through other
 * variables are not followed: an estimate, within a few percent (1090
 * against the 1111 objects the default guest's kernel compiles).
 *
 *	long n = kbuild_objects(tree, "x86", dotconfig_text);
 */
#ifndef TBISECT_KBUILD_H
#define TBISECT_KBUILD_H

/* The objects the configuration text dotconfig (a .config) selects in the
 * source tree at tree for architecture arch ("x86"), or -1 when the tree
 * has no top-level Kbuild to start from (nothing reported: the caller
 * shows the build without a percent). */
long kbuild_objects(const char *tree, const char *arch, const char *dotconfig);

#endif
