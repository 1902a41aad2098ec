/* profile: instructions per MB, function by function, from the plugin's counts. */
#include "profile.h"
#include "util.h"

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
			uint64_t a;

			sp = memchr(p, ' ', len);
			if (!sp || parse_hex(p, (size_t)(sp - p), &a) < 0 ||
			    (size_t)(p + len - sp - 1) >= sizeof(num))
				return error("profile line %d: expected 'ADDR INSNS'", line);
			memcpy(num, sp + 1, (size_t)(p + len - sp - 1));
			num[p + len - sp - 1] = '\0';
			if (util_parse_long(num, (long *)&v) < 0 || v < 0)
				return error("profile line %d: bad count '%s'", line, num);
			if (c->n == alloc) {
				alloc = alloc ? 2 * alloc : 4096;
				c->addr = xrealloc(c->addr, (size_t)alloc * sizeof(*c->addr));
				c->insns = xrealloc(c->insns, (size_t)alloc * sizeof(*c->insns));
			}
			if (c->n && a <= c->addr[c->n - 1])
				return error("profile line %d: addresses out of order", line);
			c->addr[c->n] = a;
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
	memset(c, 0, sizeof(*c));
}

void profile_table_init(struct profile_table *t)
{
	memset(t, 0, sizeof(*t));
}

/* The row of function, made when new.  Rows stay unsorted until
 * profile_table_sort(): a linear search, over a few thousand functions. */
static struct profile_row *row_of(struct profile_table *t, const char *function)
{
	int i;

	for (i = t->n - 1; i >= 0; i--)
		if (!strcmp(t->row[i].function, function))
			return &t->row[i];
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 256;
		t->row = xrealloc(t->row, (size_t)t->alloc * sizeof(*t->row));
	}
	memset(&t->row[t->n], 0, sizeof(t->row[0]));
	t->row[t->n].function = xstrdup(function);
	return &t->row[t->n++];
}

int profile_table_add(struct profile_table *t, int col, const struct profile_syms *syms,
		      const struct profile_counts *longer, const struct profile_counts *shorter,
		      double mb)
{
	int i = 0, k = 0;

	if (!(mb > 0))
		return error("profile: the longer run moved no more data than the shorter (%.3f MB)", mb);
	/* Both lists are sorted by address: one merge. */
	while (i < longer->n || k < shorter->n) {
		uint64_t a;
		double d;
		const char *fn;
		struct profile_row *r;

		if (k >= shorter->n || (i < longer->n && longer->addr[i] < shorter->addr[k])) {
			a = longer->addr[i];
			d = (double)longer->insns[i++];
		} else if (i >= longer->n || shorter->addr[k] < longer->addr[i]) {
			a = shorter->addr[k];
			d = -(double)shorter->insns[k++];
		} else {
			a = longer->addr[i];
			d = (double)longer->insns[i++] - (double)shorter->insns[k++];
		}
		if (d == 0)
			continue;
		fn = profile_syms_find(syms, a);
		r = row_of(t, fn ? fn : PROFILE_USER);
		r->v[col] += d / mb;
		t->total[col] += d / mb;
	}
	return 0;
}

static int by_change(const void *a, const void *b)
{
	const struct profile_row *x = a, *y = b;
	double dx = fabs(x->v[1] - x->v[0]), dy = fabs(y->v[1] - y->v[0]);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->function, y->function);
}

void profile_table_sort(struct profile_table *t)
{
	qsort(t->row, (size_t)t->n, sizeof(*t->row), by_change);
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
	memset(t, 0, sizeof(*t));
}
