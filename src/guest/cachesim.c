/* cachesim: a deterministic cache hierarchy (L1I, L1D per CPU, a shared last level) for a cost figure. */
#include "cachesim.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int log2_exact(unsigned long v, unsigned *out)
{
	unsigned k = 0;

	if (!v || (v & (v - 1)))
		return -1;
	while ((1ul << k) < v)
		k++;
	*out = k;
	return 0;
}

static int cache_init(struct cachesim_cache *c, const struct cachesim_level *l, const char *name)
{
	unsigned long sets;
	unsigned set_bits;

	memset(c, 0, sizeof(*c));
	if (!l->ways || !l->line || l->size % ((unsigned long)l->ways * l->line))
		return error("cache %s: %lu bytes is not a whole number of %u-way sets of %u-byte lines",
			     name, l->size, l->ways, l->line);
	sets = l->size / ((unsigned long)l->ways * l->line);
	if (log2_exact(l->line, &c->line_shift) < 0 || log2_exact(sets, &set_bits) < 0)
		return error("cache %s: the line (%u bytes) and the number of sets (%lu) must be "
			     "powers of two", name, l->line, sets);
	c->sets = (unsigned)sets;
	c->ways = l->ways;
	c->tag = xcalloc((size_t)c->sets * c->ways, sizeof(*c->tag));
	return 0;
}

/* The set line (an address >> line_shift) maps to, and the way holding it
 * into *way (c->ways when absent).  Tags are stored plus one, so 0 is an
 * empty way. */
static uint64_t *find(struct cachesim_cache *c, uint64_t line, unsigned *way)
{
	uint64_t *set = c->tag + (size_t)(line & (c->sets - 1)) * c->ways;

	for (*way = 0; *way < c->ways && set[*way] != line + 1; ++*way)
		;
	return set;
}

/* Looks line up, making it the most recent: 1 hit, 0 miss (then filled,
 * the least recent evicted). */
static int cache_ref(struct cachesim_cache *c, uint64_t line)
{
	unsigned i;
	uint64_t *set = find(c, line, &i);
	int hit = i < c->ways;

	if (!hit)
		i = c->ways - 1;
	memmove(set + 1, set, i * sizeof(*set));
	set[0] = line + 1;
	return hit;
}

/* Takes line out of c: 1 when it was there. */
static int cache_drop(struct cachesim_cache *c, uint64_t line)
{
	unsigned i;
	uint64_t *set = find(c, line, &i);

	if (i == c->ways)
		return 0;
	memmove(set + i, set + i + 1, (c->ways - 1 - i) * sizeof(*set));
	set[c->ways - 1] = 0;
	return 1;
}

static void cache_release(struct cachesim_cache *c)
{
	free(c->tag);
	c->tag = NULL;
}

void cachesim_geom_default(struct cachesim_geom *g)
{
	g->i1 = (struct cachesim_level){ 32768, 8, 64 };
	g->d1 = (struct cachesim_level){ 32768, 8, 64 };
	g->ll = (struct cachesim_level){ 8388608, 16, 64 };
}

void cachesim_weights_default(struct cachesim_weights *w)
{
	w->l1 = 1;
	w->ll = 5;
	w->mem = 35;
}

/* A decimal number from *p up to the byte stop (past which *p moves; '\0':
 * the end): 0, or -1 for anything else (no sign, no space, nothing past
 * max). */
static int number(const char **p, char stop, unsigned long max, unsigned long *v)
{
	const char *q = *p;

	*v = 0;
	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++) {
		if (*v > (max - (unsigned long)(*q - '0')) / 10)
			return -1;
		*v = *v * 10 + (unsigned long)(*q - '0');
	}
	if (*q != stop)
		return -1;
	*p = q + (*q != '\0');
	return 0;
}

int cachesim_geom_parse(const char *s, struct cachesim_geom *g)
{
	struct cachesim_level *l[3] = { &g->i1, &g->d1, &g->ll };
	const char *p = s;
	unsigned long v[3];
	int k;

	for (k = 0; k < 3; k++) {
		if (number(&p, '/', 1ul << 40, &v[0]) < 0 || number(&p, '/', 1u << 20, &v[1]) < 0 ||
		    number(&p, k < 2 ? ':' : '\0', 1u << 20, &v[2]) < 0)
			return error("cache geometry '%s': expected I1:D1:LL, each SIZE/WAYS/LINE in "
				     "bytes (32768/8/64:32768/8/64:8388608/16/64)", s);
		*l[k] = (struct cachesim_level){ v[0], (unsigned)v[1], (unsigned)v[2] };
	}
	return 0;
}

int cachesim_weights_parse(const char *s, struct cachesim_weights *w)
{
	const char *p = s;
	unsigned long v[3];
	int k;

	for (k = 0; k < 3; k++)
		if (number(&p, k < 2 ? ',' : '\0', 1000000, &v[k]) < 0)
			return error("cache weights '%s': expected L1,LL,MEMORY, the cycles of an L1 "
				     "hit, a last-level hit and a memory access, whole numbers (1,5,35)", s);
	if (!v[0] || v[0] > v[1] || v[1] > v[2])
		return error("cache weights '%s': an L1 hit must cost at least 1 cycle, and no more "
			     "than a last-level hit, which costs no more than memory", s);
	*w = (struct cachesim_weights){ (double)v[0], (double)v[1], (double)v[2] };
	return 0;
}

int cachesim_init(struct cachesim *cs, const struct cachesim_geom *g, int ncpu)
{
	int i;

	memset(cs, 0, sizeof(*cs));
	if (ncpu < 1)
		return error("cachesim: %d CPUs", ncpu);
	if (g->i1.line != g->d1.line || g->d1.line != g->ll.line)
		return error("cachesim: every level must have one line size (%u, %u, %u)", g->i1.line,
			     g->d1.line, g->ll.line);
	if (cache_init(&cs->ll, &g->ll, "LL") < 0)
		return -1;
	cs->cpu = xcalloc((size_t)ncpu, sizeof(*cs->cpu));
	cs->ncpu = ncpu;
	for (i = 0; i < ncpu; i++)
		if (cache_init(&cs->cpu[i].i1, &g->i1, "I1") < 0 ||
		    cache_init(&cs->cpu[i].d1, &g->d1, "D1") < 0) {
			cachesim_release(cs);
			return -1;
		}
	return 0;
}

/* Looks line ln up for CPU cpu in l1, then in the last level on a miss:
 * CACHESIM_HIT_L1, _HIT_LL or _MEMORY. */
static int lookup(struct cachesim *cs, struct cachesim_cache *l1, uint64_t ln)
{
	if (cache_ref(l1, ln))
		return CACHESIM_HIT_L1;
	return cache_ref(&cs->ll, ln) ? CACHESIM_HIT_LL : CACHESIM_MEMORY;
}

/* Counts one access of kind acc (an _ACC counter) that went as far as level. */
static void count(struct cachesim_cpu *p, enum cachesim_count acc, int level)
{
	p->n[acc]++;
	if (level == CACHESIM_HIT_L1)
		return;
	p->n[acc + 1]++;
	p->n[CACHESIM_LL_ACC]++;
	p->n[CACHESIM_LL_MISS] += level == CACHESIM_MEMORY;
}

int cachesim_access(struct cachesim *cs, int cpu, enum cachesim_kind kind, uint64_t addr,
		    unsigned size)
{
	struct cachesim_cpu *p = &cs->cpu[cpu];
	struct cachesim_cache *l1 = kind == CACHESIM_FETCH ? &p->i1 : &p->d1;
	unsigned shift = l1->line_shift;
	uint64_t ln, last = (addr + (size ? size - 1 : 0)) >> shift;
	int level = CACHESIM_HIT_L1, l, o;

	for (ln = addr >> shift; ln <= last; ln++) {
		l = lookup(cs, l1, ln);
		level = l > level ? l : level;
		if (kind != CACHESIM_WRITE)
			continue;
		/* Coherence: the line is this CPU's alone now. */
		for (o = 0; o < cs->ncpu; o++)
			if (o != cpu && (cache_drop(&cs->cpu[o].d1, ln) | cache_drop(&cs->cpu[o].i1, ln)))
				p->n[CACHESIM_INVAL]++;
	}
	count(p, kind == CACHESIM_FETCH ? CACHESIM_I1_ACC : CACHESIM_D1_ACC, level);
	return level;
}

void cachesim_fetch(struct cachesim *cs, int cpu, uint64_t addr, unsigned size, unsigned insns,
		    unsigned *l1_miss, unsigned *ll_miss)
{
	struct cachesim_cpu *p = &cs->cpu[cpu];
	unsigned shift = p->i1.line_shift, lines = 0;
	uint64_t ln, last = (addr + (size ? size - 1 : 0)) >> shift;
	int l;

	*l1_miss = *ll_miss = 0;
	for (ln = addr >> shift; ln <= last; ln++) {
		l = lookup(cs, &p->i1, ln);
		count(p, CACHESIM_I1_ACC, l);
		*l1_miss += l != CACHESIM_HIT_L1;
		*ll_miss += l == CACHESIM_MEMORY;
		lines++;
	}
	/* The block's other instructions fetch from lines it just brought in. */
	if (insns > lines)
		p->n[CACHESIM_I1_ACC] += insns - lines;
}

uint64_t cachesim_total(const struct cachesim *cs, enum cachesim_count k)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < cs->ncpu; i++)
		sum += cs->cpu[i].n[k];
	return sum;
}

double cachesim_cycles_of(const uint64_t n[CACHESIM_NCOUNT], const struct cachesim_weights *w)
{
	uint64_t acc = n[CACHESIM_I1_ACC] + n[CACHESIM_D1_ACC];
	uint64_t m1 = n[CACHESIM_I1_MISS] + n[CACHESIM_D1_MISS], m2 = n[CACHESIM_LL_MISS];

	return (double)(acc - m1) * w->l1 + (double)(m1 - m2) * w->ll + (double)m2 * w->mem;
}

double cachesim_cycles(const struct cachesim *cs, const struct cachesim_weights *w)
{
	uint64_t n[CACHESIM_NCOUNT];
	int k;

	for (k = 0; k < CACHESIM_NCOUNT; k++)
		n[k] = cachesim_total(cs, k);
	return cachesim_cycles_of(n, w);
}

void cachesim_release(struct cachesim *cs)
{
	int i;

	for (i = 0; i < cs->ncpu; i++) {
		cache_release(&cs->cpu[i].i1);
		cache_release(&cs->cpu[i].d1);
	}
	free(cs->cpu);
	cache_release(&cs->ll);
	memset(cs, 0, sizeof(*cs));
}
