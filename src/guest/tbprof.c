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
 * Debian ships neither QEMU's qemu-plugin.h nor its example plugins, so the
 * few declarations of the documented plugin API it uses are written here;
 * they are those of API versions 3 to 5 (QEMU 9.1 to 10.x): the plugin
 * declares version 3, the oldest whose qemu_plugin_insn_data() copies the
 * bytes into a buffer (version 2's returned a pointer) and that has per-vCPU
 * inline operations and scoreboards; QEMU refuses to load it when it no
 * longer offers that.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

#define CAPACITY (1u << 20)	/* translations counted inline; later ones call back */

static struct block *blocks;
static size_t nblocks;
static struct qemu_plugin_scoreboard *board;	/* CAPACITY uint64_t per vCPU */
static int nvcpus = 1, inline_mode = 1;
static char *out_path;

static void on_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	__atomic_fetch_add(&b->insns, b->n_insns, __ATOMIC_RELAXED);
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
	if (inline_mode && i < CAPACITY)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64,
			(qemu_plugin_u64){ board, i * sizeof(uint64_t) }, b->n_insns);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
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
			fputc('\n', f);
		}
		total += sum;
	}
	fprintf(f, "# total %llu\n# translations %zu%s\n", (unsigned long long)total, nblocks,
		nblocks > n ? " (table full: some not counted)" : "");
	if (fclose(f) == 0)
		rename(tmp, out_path);
	free(tmp);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
							       const qemu_info_t *info, int argc,
							       char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strcmp(argv[i], "mode=cb")) {
			inline_mode = 0;
		} else if (!strcmp(argv[i], "mode=inline")) {
			inline_mode = 1;
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
	blocks = calloc(8 * (size_t)CAPACITY, sizeof(*blocks));
	if (!blocks)
		return -1;
	if (inline_mode)
		board = qemu_plugin_scoreboard_new(CAPACITY * sizeof(uint64_t));
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
