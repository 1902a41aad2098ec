/* profile: instructions per operation, function by function, from the plugin's counts. */
#include "profile.h"
#include "util.h"

#include <elf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_HALF 0xffff800000000000ull

/* A whole hex number of at most 16 digits: 0 with *v set, or -1. */
static int parse_hex(const char *s, size_t n, uint64_t *v)
{
	size_t i;

	if (!n || n > 16)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
			s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	return 0;
}

/* n hex digits (even, at most 2 x PROFILE_CODE) into code: 0 or -1. */
static int parse_code(const char *s, size_t n, unsigned char *code, unsigned char *len)
{
	uint64_t v;
	size_t i;

	*len = 0;
	if (n % 2 || n > 2 * PROFILE_CODE)
		return -1;
	for (i = 0; i < n; i += 2) {
		if (parse_hex(s + i, 2, &v) < 0)
			return -1;
		code[(*len)++] = (unsigned char)v;
	}
	return 0;
}

int profile_syms_parse(struct profile_syms *s, const char *nm_text)
{
	const char *p = nm_text;
	int alloc = 0;

	memset(s, 0, sizeof(*s));
	while (*p) {
		const char *e = strchr(p, '\n'), *sp1 = strchr(p, ' ');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		uint64_t a;

		/* "ffffffff81000000 T _text" */
		if (sp1 && sp1 < p + len && sp1 + 3 < p + len && sp1[2] == ' ' &&
		    strchr("tTwW", sp1[1]) && parse_hex(p, (size_t)(sp1 - p), &a) == 0) {
			if (s->n == alloc) {
				alloc = alloc ? 2 * alloc : 4096;
				s->addr = xrealloc(s->addr, (size_t)alloc * sizeof(*s->addr));
				s->name = xrealloc(s->name, (size_t)alloc * sizeof(*s->name));
			}
			s->addr[s->n] = a;
			s->name[s->n++] = xstrndup(sp1 + 3, (size_t)(p + len - sp1 - 3));
			if (s->n > 1 && s->addr[s->n - 1] < s->addr[s->n - 2])
				return error("symbol table not sorted by address (nm -n) at %s",
					     s->name[s->n - 1]);
		}
		p += len + (e != NULL);
	}
	if (!s->n)
		return error("no text symbols in the symbol table");
	return 0;
}

const char *profile_syms_find(const struct profile_syms *s, uint64_t addr)
{
	int lo = 0, hi = s->n - 1;

	if (addr < KERNEL_HALF)
		return NULL;
	if (!s->n || addr < s->addr[0])
		return PROFILE_UNKNOWN;
	while (lo < hi) {	/* the last symbol at or before addr */
		int mid = lo + (hi - lo + 1) / 2;

		if (s->addr[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return s->name[lo];
}

void profile_syms_release(struct profile_syms *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->name);
	free(s->addr);
	memset(s, 0, sizeof(*s));
}

/* A line's " m=I1,D1,LL" tail (cache=on), which *end then leaves out:
 * 1 with miss[] set, 0 when the line has none, -1 when it is malformed. */
static int parse_misses(const char *line, const char **end, uint64_t miss[3])
{
	const char *m = NULL, *q;
	char num[24];
	int k;

	for (q = line; q + 3 <= *end; q++)
		if (!memcmp(q, " m=", 3))
			m = q;
	if (!m)
		return 0;
	for (q = m + 3, k = 0; k < 3; k++) {
		const char *e = k < 2 ? memchr(q, ',', (size_t)(*end - q)) : *end;
		long v;

		if (!e || e == q || (size_t)(e - q) >= sizeof(num))
			return -1;
		memcpy(num, q, (size_t)(e - q));
		num[e - q] = '\0';
		if (util_parse_long(num, &v) < 0 || v < 0)
			return -1;
		miss[k] = (uint64_t)v;
		q = e + 1;
	}
	*end = m;
	return 1;
}

int profile_counts_parse(struct profile_counts *c, const char *text)
{
	const char *p = text;
	uint64_t sum = 0;
	int alloc = 0, line = 0, have_total = 0;

	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *e = strchr(p, '\n'), *sp;
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char num[32];
		long long v;

		line++;
		if (!strncmp(p, "# total ", 8) && len - 8 < sizeof(num)) {
			memcpy(num, p + 8, len - 8);
			num[len - 8] = '\0';
			if (util_parse_long(num, (long *)&v) < 0 || v < 0)
				return error("profile line %d: bad total", line);
			c->total = (uint64_t)v;
			have_total = 1;
		} else if (*p != '#' && len) {
			uint64_t a, miss[3];

			const char *end = p + len, *code;
			size_t ncode;
			int has_miss = parse_misses(p, &end, miss);

			if (has_miss < 0)
				return error("profile line %d: bad misses", line);
			if (c->n && has_miss != (c->miss != NULL))
				return error("profile line %d: misses on some lines only", line);

			sp = memchr(p, ' ', len);
			if (!sp || parse_hex(p, (size_t)(sp - p), &a) < 0)
				return error("profile line %d: expected 'ADDR INSNS [CODE]'", line);
			code = memchr(sp + 1, ' ', (size_t)(end - sp - 1));
			ncode = code ? (size_t)(end - code - 1) : 0;
			if ((size_t)((code ? code : end) - sp - 1) >= sizeof(num))
				return error("profile line %d: expected 'ADDR INSNS [CODE]'", line);
			memcpy(num, sp + 1, (size_t)((code ? code : end) - sp - 1));
			num[(code ? code : end) - sp - 1] = '\0';
			if (util_parse_long(num, (long *)&v) < 0 || v < 0)
				return error("profile line %d: bad count '%s'", line, num);
			if (c->n == alloc) {
				alloc = alloc ? 2 * alloc : 4096;
				c->addr = xrealloc(c->addr, (size_t)alloc * sizeof(*c->addr));
				c->insns = xrealloc(c->insns, (size_t)alloc * sizeof(*c->insns));
				c->code = xrealloc(c->code, (size_t)alloc * sizeof(*c->code));
				c->code_len = xrealloc(c->code_len, (size_t)alloc * sizeof(*c->code_len));
				if (has_miss)
					c->miss = xrealloc(c->miss, (size_t)alloc * sizeof(*c->miss));
			}
			if (c->n && a <= c->addr[c->n - 1])
				return error("profile line %d: addresses out of order", line);
			if (parse_code(code ? code + 1 : end, ncode, c->code[c->n], &c->code_len[c->n]) < 0)
				return error("profile line %d: bad code bytes", line);
			c->addr[c->n] = a;
			if (has_miss)
				memcpy(c->miss[c->n], miss, sizeof(miss));
			c->insns[c->n++] = (uint64_t)v;
			sum += (uint64_t)v;
		}
		p += len + (e != NULL);
	}
	if (!have_total || sum != c->total)
		return error("profile: the counts add up to %llu, the total says %llu%s",
			     (unsigned long long)sum, (unsigned long long)c->total,
			     have_total ? "" : " (no total line: the run did not end cleanly)");
	return 0;
}

void profile_counts_release(struct profile_counts *c)
{
	free(c->addr);
	free(c->insns);
	free(c->code);
	free(c->code_len);
	free(c->miss);
	memset(c, 0, sizeof(*c));
}

int profile_bins_add(struct profile_bins *b, const char *name, unsigned char *data, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	struct profile_bin *bin;
	int i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > size || eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr)) {
		free(data);
		return error("%s: not a 64-bit ELF file", name);
	}
	b->bin = xrealloc(b->bin, (size_t)(b->n + 1) * sizeof(*b->bin));
	bin = &b->bin[b->n++];
	memset(bin, 0, sizeof(*bin));
	bin->name = xasprintf("[user] %s", name);
	bin->data = data;
	bin->size = size;
	for (i = 0; i < eh->e_phnum && bin->nseg < PROFILE_SEGS; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(data + eh->e_phoff) + i;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_offset > size ||
		    ph->p_filesz > size - ph->p_offset)
			continue;
		bin->seg[bin->nseg].off = ph->p_offset;
		bin->seg[bin->nseg].vaddr = ph->p_vaddr;
		bin->seg[bin->nseg++].len = ph->p_filesz;
	}
	return 0;
}

void profile_bins_release(struct profile_bins *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		free(b->bin[i].name);
		free(b->bin[i].data);
	}
	free(b->bin);
	memset(b, 0, sizeof(*b));
}

static const char *profile_maps_name_or_null(const struct profile_maps *m, uint64_t addr);

/* A guess that binary bin is mapped at base, and the blocks backing it. */
struct vote {
	int bin;
	uint64_t base;
	int n;
};

/* Each place in bin's code where the block at addr could start (same
 * offset in its page, same bytes) votes for the base that would put it
 * there. */
static void vote_block(const struct profile_bins *b, int bi, uint64_t addr, const unsigned char *code,
		       size_t len, struct vote **v, int *n)
{
	const struct profile_bin *bin = &b->bin[bi];
	int s, k;

	for (s = 0; s < bin->nseg; s++) {
		const struct profile_seg *g = &bin->seg[s];
		uint64_t x = g->off + ((addr - g->off) & (PROFILE_PAGE - 1));

		for (; x + len <= g->off + g->len; x += PROFILE_PAGE) {
			uint64_t base;

			if (memcmp(bin->data + x, code, len))
				continue;
			base = addr - (g->vaddr + (x - g->off));
			for (k = 0; k < *n && ((*v)[k].bin != bi || (*v)[k].base != base); k++)
				;
			if (k == *n) {
				*v = xrealloc(*v, (size_t)(*n + 1) * sizeof(**v));
				(*v)[(*n)++] = (struct vote){ bi, base, 0 };
			}
			(*v)[k].n++;
		}
	}
}

static int by_lo(const void *a, const void *b)
{
	const struct profile_map *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Whether [lo, hi) overlaps a range already in m. */
static int overlaps(const struct profile_maps *m, uint64_t lo, uint64_t hi)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (lo < m->m[i].hi && m->m[i].lo < hi)
			return 1;
	return 0;
}

/* The best-backed placement of a binary that fits beside those in m, or -1. */
static int best_vote(const struct profile_maps *m, const struct profile_bins *b,
		     const struct vote *v, int nv)
{
	int k, s, best = -1;

	for (k = 0; k < nv; k++) {
		const struct profile_bin *bin = &b->bin[v[k].bin];

		if (v[k].n < PROFILE_VOTES_MIN || (best >= 0 && v[k].n <= v[best].n))
			continue;
		for (s = 0; s < bin->nseg; s++)
			if (overlaps(m, v[k].base + bin->seg[s].vaddr,
				     v[k].base + bin->seg[s].vaddr + bin->seg[s].len))
				break;
		if (s == bin->nseg)
			best = k;
	}
	return best;
}

int profile_maps_find(struct profile_maps *m, const struct profile_bins *b,
		      const struct profile_counts *c)
{
	int i, k, s, best;

	memset(m, 0, sizeof(*m));
	/* Greedy: the placement most blocks back first; its blocks then vote
	 * no more, so code that two binaries share (a static busybox holds
	 * libc's string functions; small programs share PLT stubs) goes to
	 * the binary the rest of its neighbours place. */
	for (;;) {
		struct vote *v = NULL;
		const struct profile_bin *bin;
		int nv = 0;

		for (i = 0; i < c->n; i++)
			if (c->addr[i] < KERNEL_HALF && c->code_len[i] >= PROFILE_CODE_MIN &&
			    !profile_maps_name_or_null(m, c->addr[i]))
				for (k = 0; k < b->n; k++)
					vote_block(b, k, c->addr[i], c->code[i], c->code_len[i], &v, &nv);
		best = best_vote(m, b, v, nv);
		if (best < 0) {
			free(v);
			break;
		}
		bin = &b->bin[v[best].bin];
		for (s = 0; s < bin->nseg; s++) {
			m->m = xrealloc(m->m, (size_t)(m->n + 1) * sizeof(*m->m));
			m->m[m->n].lo = v[best].base + bin->seg[s].vaddr;
			m->m[m->n].hi = m->m[m->n].lo + bin->seg[s].len;
			m->m[m->n++].name = bin->name;
		}
		qsort(m->m, (size_t)m->n, sizeof(*m->m), by_lo);
		free(v);
	}
	return 0;
}

/* The name of the range holding addr, or NULL. */
static const char *profile_maps_name_or_null(const struct profile_maps *m, uint64_t addr)
{
	int lo = 0, hi = m->n - 1;

	while (lo <= hi) {	/* ranges sorted by start; the one holding addr */
		int mid = lo + (hi - lo) / 2;

		if (addr < m->m[mid].lo)
			hi = mid - 1;
		else if (addr >= m->m[mid].hi)
			lo = mid + 1;
		else
			return m->m[mid].name;
	}
	return NULL;
}

const char *profile_maps_name(const struct profile_maps *m, uint64_t addr)
{
	const char *name = profile_maps_name_or_null(m, addr);

	return name ? name : PROFILE_USER_OTHER;
}

void profile_maps_release(struct profile_maps *m)
{
	free(m->m);
	memset(m, 0, sizeof(*m));
}

void profile_table_init(struct profile_table *t)
{
	memset(t, 0, sizeof(*t));
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Rebuilds the index (row numbers + 1, open addressing) at twice the rows. */
static void index_grow(struct profile_table *t)
{
	int i;

	free(t->index);
	t->nindex = t->nindex ? 2 * t->nindex : 1024;
	t->index = xcalloc((size_t)t->nindex, sizeof(*t->index));
	for (i = 0; i < t->n; i++) {
		uint32_t h = hash_name(t->row[i].function) & (uint32_t)(t->nindex - 1);

		while (t->index[h])
			h = (h + 1) & (uint32_t)(t->nindex - 1);
		t->index[h] = i + 1;
	}
}

/* The row of function, made when new. */
static struct profile_row *row_of(struct profile_table *t, const char *function)
{
	uint32_t h;

	if (2 * (t->n + 1) > t->nindex)
		index_grow(t);
	for (h = hash_name(function) & (uint32_t)(t->nindex - 1); t->index[h];
	     h = (h + 1) & (uint32_t)(t->nindex - 1))
		if (!strcmp(t->row[t->index[h] - 1].function, function))
			return &t->row[t->index[h] - 1];
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 256;
		t->row = xrealloc(t->row, (size_t)t->alloc * sizeof(*t->row));
	}
	memset(&t->row[t->n], 0, sizeof(t->row[0]));
	t->row[t->n].function = xstrdup(function);
	t->index[h] = t->n + 1;
	return &t->row[t->n++];
}

/* Adds sign x each address's count to column col of its row. */
static void add_run(struct profile_table *t, int col, const struct profile_syms *syms,
		    const struct profile_maps *maps, const struct profile_counts *c, int sign)
{
	const char *prev = NULL;
	struct profile_row *r = NULL;
	int i;

	for (i = 0; i < c->n; i++) {
		const char *fn = profile_syms_find(syms, c->addr[i]);

		if (!fn)
			fn = maps ? profile_maps_name(maps, c->addr[i]) : PROFILE_USER_OTHER;
		if (fn != prev)	/* addresses are sorted: runs of one function */
			r = row_of(t, fn);
		prev = fn;
		r->d[col] += sign * (int64_t)c->insns[i];
		if (c->miss) {
			r->dm[col][0] += sign * (int64_t)c->miss[i][1];
			r->dm[col][1] += sign * (int64_t)c->miss[i][2];
		}
	}
	t->misses |= c->miss != NULL;
}

int profile_table_add(struct profile_table *t, int col, const struct profile_syms *syms,
		      const struct profile_run *longer, const struct profile_run *shorter,
		      double work)
{
	if (!(work > 0))
		return error("profile: the longer run finished no more operations than the shorter "
			     "(%.0f)", work);
	if (t->sorted)
		return error("profile: rows added after sorting");
	t->work[col] += work;
	t->insns[col] += (int64_t)longer->counts->total - (int64_t)shorter->counts->total;
	add_run(t, col, syms, longer->maps, longer->counts, 1);
	add_run(t, col, syms, shorter->maps, shorter->counts, -1);
	return 0;
}

double profile_row_cycles(const struct profile_row *r, int col)
{
	return r->v[col] + 4 * r->m[col][0] + 30 * r->m[col][1];
}

/* The change a row is sorted by: instructions, or with misses
 * (cycles != 0) estimated cycles. */
static double row_change(const struct profile_row *r, int cycles)
{
	return fabs(cycles ? profile_row_cycles(r, 1) - profile_row_cycles(r, 0) : r->v[1] - r->v[0]);
}

/* Largest change first (qsort_r: arg points to the table's misses). */
static int by_change(const void *a, const void *b, void *arg)
{
	const struct profile_row *x = a, *y = b;
	int cycles = *(const int *)arg;
	double dx = row_change(x, cycles), dy = row_change(y, cycles);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->function, y->function);
}

void profile_table_sort(struct profile_table *t)
{
	int i, k, n = 0;

	t->sorted = 1;
	for (i = 0; i < t->n; i++) {
		struct profile_row *r = &t->row[i];

		if (!r->d[0] && !r->d[1] && !r->dm[0][0] && !r->dm[1][0] && !r->dm[0][1] &&
		    !r->dm[1][1]) {	/* the same in both runs of both states */
			free(r->function);
			continue;
		}
		for (k = 0; k < 2; k++) {
			r->v[k] = t->work[k] > 0 ? (double)r->d[k] / t->work[k] : 0;
			r->m[k][0] = t->work[k] > 0 ? (double)r->dm[k][0] / t->work[k] : 0;
			r->m[k][1] = t->work[k] > 0 ? (double)r->dm[k][1] / t->work[k] : 0;
		}
		t->row[n++] = *r;
	}
	t->n = n;
	for (k = 0; k < 2; k++)
		t->total[k] = t->work[k] > 0 ? (double)t->insns[k] / t->work[k] : 0;
	qsort_r(t->row, (size_t)t->n, sizeof(*t->row), by_change, &t->misses);
}

double profile_table_sum(const struct profile_table *t)
{
	double s = 0;
	int i;

	for (i = 0; i < t->n; i++)
		s += t->row[i].v[1] - t->row[i].v[0];
	return s;
}

void profile_table_release(struct profile_table *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		free(t->row[i].function);
	free(t->row);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

/* "i1 ACC MISS" (or d1, ll) into n: 0, or -1 when it is not that. */
static int cache_counts(const char *p, uint64_t n[CACHESIM_NCOUNT])
{
	static const char *const level[] = { "i1", "d1", "ll" };
	char name[3], acc[24], miss[24];
	long a, m;
	int k, used = 0;

	if (sscanf(p, "%2s %23s %23s%n", name, acc, miss, &used) != 3 || p[used] ||
	    util_parse_long(acc, &a) < 0 || util_parse_long(miss, &m) < 0 || a < 0 || m < 0 ||
	    m > a)
		return -1;
	for (k = 0; k < 3; k++)
		if (!strcmp(name, level[k])) {
			n[CACHESIM_I1_ACC + 2 * k] = (uint64_t)a;
			n[CACHESIM_I1_MISS + 2 * k] = (uint64_t)m;
			return 0;
		}
	return -1;
}

int profile_cache_parse(struct profile_cache *c, const char *text)
{
	const char *line = text;
	int seen = 0, lineno = 0;

	memset(c, 0, sizeof(*c));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		char buf[256], tail[128];
		size_t len = end ? (size_t)(end - line) : strlen(line);
		long w;
		int used = 0, bad = 0;

		lineno++;
		if (len < sizeof(buf) && !strncmp(line, "# ", 2)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (!strncmp(buf, "# cache ", 8) && strncmp(buf, "# cache inval", 13) &&
			    strncmp(buf, "# cache geometry", 16)) {
				bad = cache_counts(buf + 8, c->run) < 0;
				seen++;
			} else if (!strncmp(buf, "# windows ", 10)) {
				bad = sscanf(buf + 10, "%ld%n", &w, &used) != 1 || w < 0;
				c->windows = w;
			} else if (sscanf(buf, "# window %ld all %127[^\n]", &w, tail) == 2) {
				uint64_t n[CACHESIM_NCOUNT] = { 0 };
				int k;

				bad = cache_counts(tail, n) < 0;
				for (k = 0; k < CACHESIM_NCOUNT; k++)
					c->window[k] += n[k];
			}
			if (bad)
				return error("plugin counts: line %d: malformed cache line '%s'", lineno,
					     buf);
		}
		line = end ? end + 1 : NULL;
	}
	if (seen != 3)
		return error("plugin counts: no cache counts (was the plugin run with cache=on?)");
	return 0;
}

const uint64_t *profile_cache_cost(const struct profile_cache *c)
{
	return c->windows ? c->window : c->run;
}
