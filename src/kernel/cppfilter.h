/*
 * cppfilter: the preprocessor's output as ccache should hash it, blind to
 * comments and blank lines.
 *
 * ccache's preprocessor mode hashes `gcc -E` output, whose line markers and
 * blank lines follow every comment in every header: a comment added to
 * include/linux/sched.h would recompile half the kernel.  tbisect names
 * itself to ccache as CCACHE_PREFIX_CPP (a copy of itself named
 * "tbisect-cpp" in WORKDIR/bin); ccache then runs `tbisect-cpp gcc -E ...` for the text it
 * hashes, while the compile itself still reads the real source.  The
 * filtered text keeps everything the object depends on:
 *  - every token, in order, and each line break between non-empty lines
 *    (a #pragma stays a line of its own; assembler statements stay apart);
 *  - every change of file ("# 0 "a.h" 1"), with its flags, so that ccache
 *    still learns the headers for its direct mode; line numbers become 0;
 *  - __LINE__ and __FILE__, already expanded into the text.
 * It drops blank lines, markers that only resync the line number within the
 * same file, and runs of white space outside string and character literals
 * (one space stands for a run; none at either end of a line).  Objects with
 * debug information carry line numbers that the text does not: build.c
 * does not use the filter for a config with CONFIG_DEBUG_INFO.
 *
 *	struct cppfilter f;
 *	cppfilter_init(&f);
 *	cppfilter_text(&f, text, len, &out);    any number of whole texts
 *	cppfilter_release(&f);
 *	status = cppfilter_main(argc, argv);    argv: tbisect-cpp COMPILER ARGS...
 */
#ifndef TBISECT_CPPFILTER_H
#define TBISECT_CPPFILTER_H

#include "util.h"

#define CPPFILTER_NAME "tbisect-cpp"

struct cppfilter {
	char *file;		/* the file of the last marker kept, owned */
};

void cppfilter_init(struct cppfilter *f);
/* Appends the filtered form of one line (len bytes, no newline) to out,
 * with its newline, or nothing when the line is dropped. */
void cppfilter_line(struct cppfilter *f, const char *line, size_t len, struct sbuf *out);
/* The same for a whole text of lines. */
void cppfilter_text(struct cppfilter *f, const char *text, size_t len, struct sbuf *out);
void cppfilter_release(struct cppfilter *f);
/* Runs argv[1..] (the preprocessor ccache asked for) and filters its
 * output: the file named by -o FILE (ccache 4.x), rewritten in place, else
 * its stdout, written to stdout.  Its stderr passes through.  Returns its
 * exit status (1 when it could not run or the output could not be
 * written). */
int cppfilter_main(int argc, char **argv);

#endif
