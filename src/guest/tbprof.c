/* tbprof: a QEMU TCG plugin counting the guest instructions each translation block executes. */
/*
 * Loaded by tbisect as  -plugin tbisect-prof.so,out=FILE[,mode=inline|cb]
 * (or ,probe=FILE: write the API versions QEMU offers, then exit).  At exit
 * it writes FILE: one line per guest address where a translation block
 * starts, "ADDR INSNS" (hex, decimal), INSNS the instructions executed in
 * blocks starting there, sorted by address, then "# total N".  A user-space
 * block (below the kernel's half) adds "CODE", the hex of its first
 * instructions' bytes (up to 16), from which tbisect tells the program or
 * library it belongs to (the guest maps them at random addresses).
 *
 * mode=inline (the default) counts with QEMU's inline per-vCPU add into a
 * scoreboard, no call per block; mode=cb calls a C function per executed
 * block.  Both count the same instructions.
 *
 * cache=on (implies mode=cb) feeds every instruction fetch and memory
 * access to the cache model (src/guest/cachesim.h, built into the plugin):
 * fetches per executed block by virtual address (the block's lines), data
 * by guest-physical address (I/O accesses are not memory and pass by).
 * Each block's line then ends "m=I1,D1,LL": the misses of its fetches and
 * of its instructions' data accesses in L1I, L1D and the last level; the
 * file ends with "# cache i1|d1|ll ACC MISS", "# cache inval N" and
 * "# cache geometry I1 D1 LL" (SIZE/WAYS/LINE each).  geom=I1:D1:LL
 * (SIZE/WAYS/LINE each) sets the geometry, else the model's default.
 * A window marker, the no-op  nopl 0x6e4f6274(%rax)  ("tbOn") and
 * nopl 0x664f6274(%rax)  ("tbOf"), opens and closes a window on the vCPU
 * that executes it; windows are numbered 1, 2, ... as they open ("#
 * windows N"), and "# window W all|user i1|d1|ll ACC MISS" counts what the
 * vCPU did while window W was open: every access, and those of user-space
 * instructions (so one program's own accesses, as Cachegrind counts them,
 * apart from the kernel's).  The model is not locked: it is for icount,
 * where QEMU runs the vCPUs in one thread, one at a time.
 *
 * Debian ships neither QEMU's qemu-plugin.h nor its example plugins, so the
 * few declarations of the documented plugin API it uses are written here;
 * they are those of API versions 3 to 5 (QEMU 9.1 to 10.x): the plugin
 * declares version 3, the oldest whose qemu_plugin_insn_data() copies the
 * bytes into a buffer (version 2's returned a pointer) and that has per-vCPU
 * inline operations and scoreboards; QEMU refuses to load it when it no
 * longer offers that.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"
#include "util.h"

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_scoreboard;
typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_hwaddr;
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb *tb,
						       enum qemu_plugin_op op,
						       qemu_plugin_u64 entry, uint64_t imm);
struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
void *qemu_plugin_scoreboard_find(struct qemu_plugin_scoreboard *score, unsigned int vcpu_index);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *insn, void *dest, size_t len);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

__attribute__((visibility("default"))) int qemu_plugin_version = 3;

#define KERNEL_HALF 0xffff800000000000ull
#define CODE 16

/* One translation (a block can be translated again: one record each). */
struct block {
	uint64_t vaddr;
	uint64_t n_insns;
	uint64_t insns;		/* mode=cb: executed so far */
	unsigned char code[CODE];	/* user space: the first bytes */
	unsigned char code_len;
	unsigned bytes;		/* cache=on: the block's code bytes */
	uint64_t miss[3];	/* cache=on: misses in L1I, L1D, the last level */
};

#define CAPACITY (1u << 20)	/* translations counted inline; later ones call back */

static struct block *blocks;
static size_t nblocks;
static struct qemu_plugin_scoreboard *board;	/* CAPACITY uint64_t per vCPU */
static int nvcpus = 1, inline_mode = 1;
static char *out_path;

/* cache=on */
static int cache_mode;
static struct cachesim model;
static struct cachesim_geom geom;
#define WINDOWS 64
/* Per window: [0] every access, [1] user space's. */
static uint64_t window[WINDOWS][2][CACHESIM_NCOUNT];
static int nwindows;
static int *window_of;				/* per vCPU: its open window + 1, or 0 */
static const unsigned char marker_on[7] = { 0x0f, 0x1f, 0x80, 't', 'b', 'O', 'n' };
static const unsigned char marker_off[7] = { 0x0f, 0x1f, 0x80, 't', 'b', 'O', 'f' };

/* cachesim's reports, through QEMU (the plugin has no util.c). */
int error(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	qemu_plugin_outs("tbprof: ");
	qemu_plugin_outs(buf);
	return -1;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		qemu_plugin_outs("tbprof: out of memory\n");
		abort();
	}
	return p;
}

static void on_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	__atomic_fetch_add(&b->insns, b->n_insns, __ATOMIC_RELAXED);
}

/* Adds to vCPU vcpu's open window, if any, n accesses of kind acc
 * (CACHESIM_I1_ACC or CACHESIM_D1_ACC) by block b, of which misses missed
 * L1 and llmisses the last level. */
static void window_add(unsigned vcpu, const struct block *b, enum cachesim_count acc, uint64_t n,
		       uint64_t misses, uint64_t llmisses)
{
	int w = window_of[vcpu], k;

	if (!w)
		return;
	for (k = 0; k < 1 + (b->vaddr < KERNEL_HALF); k++) {
		uint64_t *c = window[w - 1][k];

		c[acc] += n;
		c[acc + 1] += misses;
		c[CACHESIM_LL_ACC] += misses;
		c[CACHESIM_LL_MISS] += llmisses;
	}
}

static void on_exec_cache(unsigned int vcpu, void *udata)
{
	struct block *b = udata;
	unsigned m1, m2;

	b->insns += b->n_insns;
	cachesim_fetch(&model, (int)vcpu, b->vaddr, b->bytes, (unsigned)b->n_insns, &m1, &m2);
	b->miss[0] += m1;
	b->miss[2] += m2;
	window_add(vcpu, b, CACHESIM_I1_ACC, b->n_insns, m1, m2);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct block *b = udata;
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	int level;

	if (hw && qemu_plugin_hwaddr_is_io(hw))
		return;
	level = cachesim_access(&model, (int)vcpu,
				qemu_plugin_mem_is_store(info) ? CACHESIM_WRITE : CACHESIM_READ,
				hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr,
				1u << qemu_plugin_mem_size_shift(info));
	b->miss[1] += level != CACHESIM_HIT_L1;
	b->miss[2] += level == CACHESIM_MEMORY;
	window_add(vcpu, b, CACHESIM_D1_ACC, 1, level != CACHESIM_HIT_L1, level == CACHESIM_MEMORY);
}

/* Opens a window (numbered in the order they open; past WINDOWS, not
 * counted) or closes the vCPU's. */
static void on_marker(unsigned int vcpu, void *udata)
{
	if (!udata)
		window_of[vcpu] = 0;
	else if (!window_of[vcpu] && nwindows++ < WINDOWS)
		window_of[vcpu] = nwindows;
}

/* cache=on: a call per memory access of each instruction, the block's
 * code bytes for its fetches, and the window markers. */
static void instrument_cache(struct qemu_plugin_tb *tb, struct block *b)
{
	struct qemu_plugin_insn *insn;
	unsigned char data[sizeof(marker_on)];
	size_t i;

	for (i = 0; i < b->n_insns; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, b);
		if (qemu_plugin_insn_size(insn) == sizeof(data) &&
		    qemu_plugin_insn_data(insn, data, sizeof(data)) == sizeof(data) &&
		    (!memcmp(data, marker_on, sizeof(data)) || !memcmp(data, marker_off, sizeof(data))))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
							       data[6] == 'n' ? (void *)1 : NULL);
		if (i == b->n_insns - 1)
			b->bytes = (unsigned)(qemu_plugin_insn_vaddr(insn) +
					      qemu_plugin_insn_size(insn) - b->vaddr);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec_cache, QEMU_PLUGIN_CB_NO_REGS, b);
}

/* The block's first instructions' bytes, up to CODE. */
static void code_of(struct qemu_plugin_tb *tb, struct block *b)
{
	size_t i, n;

	for (i = 0; i < b->n_insns && b->code_len < CODE; i++) {
		n = qemu_plugin_insn_data(qemu_plugin_tb_get_insn(tb, i), b->code + b->code_len,
					  CODE - b->code_len);
		if (!n)
			break;
		b->code_len += (unsigned char)n;
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i = __atomic_fetch_add(&nblocks, 1, __ATOMIC_RELAXED);
	struct block *b;

	(void)id;
	if (i >= 8 * (size_t)CAPACITY)
		return;		/* beyond the table: not counted, said at exit */
	b = &blocks[i];
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->n_insns = qemu_plugin_tb_n_insns(tb);
	if (b->vaddr < KERNEL_HALF)
		code_of(tb, b);
	if (cache_mode)
		instrument_cache(tb, b);
	else if (inline_mode && i < CAPACITY)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64,
			(qemu_plugin_u64){ board, i * sizeof(uint64_t) }, b->n_insns);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

/* " m=I1,D1,LL": the misses of the translations [b, end) of one address. */
static void block_misses(FILE *f, const struct block *b, const struct block *end)
{
	uint64_t m[3] = { 0, 0, 0 };
	int k;

	for (; b < end; b++)
		for (k = 0; k < 3; k++)
			m[k] += b->miss[k];
	fprintf(f, " m=%llu,%llu,%llu", (unsigned long long)m[0], (unsigned long long)m[1],
		(unsigned long long)m[2]);
}

static void counts(FILE *f, const char *what, const uint64_t *n)
{
	static const char *const level[] = { "i1", "d1", "ll" };
	int k;

	for (k = 0; k < 3; k++)
		fprintf(f, "# %s%s %llu %llu\n", what, level[k],
			(unsigned long long)n[CACHESIM_I1_ACC + 2 * k],
			(unsigned long long)n[CACHESIM_I1_MISS + 2 * k]);
}

static void cache_totals(FILE *f)
{
	uint64_t n[CACHESIM_NCOUNT];
	char what[64];
	int k, w;

	for (k = 0; k < CACHESIM_NCOUNT; k++)
		n[k] = cachesim_total(&model, k);
	counts(f, "cache ", n);
	fprintf(f, "# cache inval %llu\n", (unsigned long long)n[CACHESIM_INVAL]);
	fprintf(f, "# cache geometry %lu/%u/%u %lu/%u/%u %lu/%u/%u\n", geom.i1.size, geom.i1.ways,
		geom.i1.line, geom.d1.size, geom.d1.ways, geom.d1.line, geom.ll.size, geom.ll.ways,
		geom.ll.line);
	fprintf(f, "# windows %d%s\n", nwindows, nwindows > WINDOWS ? " (only the first counted)" : "");
	for (w = 0; w < nwindows && w < WINDOWS; w++)
		for (k = 0; k < 2; k++) {
			snprintf(what, sizeof(what), "window %d %s ", w + 1, k ? "user" : "all");
			counts(f, what, window[w][k]);
		}
}

static int by_vaddr(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	size_t n = nblocks < 8 * (size_t)CAPACITY ? nblocks : 8 * (size_t)CAPACITY, i, k;
	uint64_t total = 0;
	char *tmp;
	FILE *f;
	int v;

	(void)id;
	(void)udata;
	for (i = 0; inline_mode && i < n && i < CAPACITY; i++)
		for (v = 0; v < nvcpus; v++)
			blocks[i].insns += ((uint64_t *)qemu_plugin_scoreboard_find(board, v))[i];
	qsort(blocks, n, sizeof(*blocks), by_vaddr);
	tmp = malloc(strlen(out_path) + 8);
	if (!tmp)
		return;
	sprintf(tmp, "%s.tmp", out_path);
	f = fopen(tmp, "w");
	if (!f) {
		qemu_plugin_outs("tbprof: cannot write the profile\n");
		free(tmp);
		return;
	}
	for (i = 0; i < n; i = k) {
		uint64_t sum = 0;

		for (k = i; k < n && blocks[k].vaddr == blocks[i].vaddr; k++)
			sum += blocks[k].insns;
		if (sum) {
			fprintf(f, "%016llx %llu", (unsigned long long)blocks[i].vaddr,
				(unsigned long long)sum);
			if (blocks[i].code_len)
				fputc(' ', f);
			for (v = 0; v < blocks[i].code_len; v++)
				fprintf(f, "%02x", blocks[i].code[v]);
			if (cache_mode)
				block_misses(f, blocks + i, blocks + k);
			fputc('\n', f);
		}
		total += sum;
	}
	fprintf(f, "# total %llu\n# translations %zu%s\n", (unsigned long long)total, nblocks,
		nblocks > n ? " (table full: some not counted)" : "");
	if (cache_mode)
		cache_totals(f);
	if (fclose(f) == 0)
		rename(tmp, out_path);
	free(tmp);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
							       const qemu_info_t *info, int argc,
							       char **argv)
{
	int i, have_geom = 0;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strcmp(argv[i], "mode=cb")) {
			inline_mode = 0;
		} else if (!strcmp(argv[i], "mode=inline")) {
			inline_mode = 1;
		} else if (!strcmp(argv[i], "cache=on")) {
			cache_mode = 1;
		} else if (!strncmp(argv[i], "geom=", 5)) {
			if (cachesim_geom_parse(argv[i] + 5, &geom) < 0)
				return -1;
			have_geom = 1;
		} else if (!strncmp(argv[i], "probe=", 6)) {
			FILE *f = fopen(argv[i] + 6, "w");

			if (f) {
				fprintf(f, "api %d %d %d\n", qemu_plugin_version, info->version.min,
					info->version.cur);
				fclose(f);
			}
			exit(0);
		} else {
			qemu_plugin_outs("tbprof: unknown argument\n");
			return -1;
		}
	}
	if (!out_path || !info->system_emulation) {
		qemu_plugin_outs("tbprof: needs out=FILE and system emulation\n");
		return -1;
	}
	nvcpus = info->system.max_vcpus > 0 ? info->system.max_vcpus : 1;
	if (cache_mode) {
		if (!have_geom)
			cachesim_geom_default(&geom);
		if (cachesim_init(&model, &geom, nvcpus) < 0)
			return -1;
		window_of = xcalloc((size_t)nvcpus, sizeof(*window_of));
		inline_mode = 0;
	}
	blocks = calloc(8 * (size_t)CAPACITY, sizeof(*blocks));
	if (!blocks)
		return -1;
	if (inline_mode)
		board = qemu_plugin_scoreboard_new(CAPACITY * sizeof(uint64_t));
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
