/* plot: the gnuplot script, data and pictures of a range or of the nightly history. */
#include "plot.h"
#include "run.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void plot_init(struct plot *p, const char *dir, const char *name, const char *title)
{
	memset(p, 0, sizeof(*p));
	p->dir = xstrdup(dir);
	p->name = xstrdup(name);
	p->title = xstrdup(title);
	p->xlabel = xstrdup("state (patches applied)");
	p->baseline = NAN;
}

void plot_release(struct plot *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		free(p->row[i].label);
		free(p->row[i].tic);
	}
	free(p->row);
	free(p->dir);
	free(p->name);
	free(p->ylabel);
	free(p->title);
	free(p->xlabel);
	memset(p, 0, sizeof(*p));
}

/* Quotes, tabs and backslashes would break the data file and the script.
 * Clipped to max bytes, never inside a UTF-8 character. */
static char *clean(const char *s, size_t max)
{
	char *l = xstrndup(s ? s : "", max), *q;
	size_t len = strlen(l);

	if (s && strlen(s) > len)
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			l[--len] = '\0';

	for (q = l; *q; q++)
		if (*q == '"' || *q == '\t' || *q == '\'' || *q == '\\' || *q == '\n')
			*q = ' ';
	return l;
}

struct plot_row *plot_add(struct plot *p, double x, const char *tic, const char *label,
			  const double *v, int n, enum plot_mark mark)
{
	struct plot_row *r;

	if (n <= 0)
		return NULL;
	p->row = xrealloc(p->row, (size_t)(p->n + 1) * sizeof(*p->row));
	r = &p->row[p->n++];
	r->x = x;
	r->median = stats_median(v, n);
	r->min = stats_min(v, n);
	r->max = stats_max(v, n);
	r->n = n;
	r->mark = mark;
	r->tic = clean(tic, 24);
	r->label = clean(label, 80);
	r->change = 0;
	r->parent_x = NAN;
	r->small = 0;
	return r;
}

static int has_mark(const struct plot *p, enum plot_mark m)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->row[i].mark == m)
			return 1;
	return 0;
}

static const struct plot_row *row_at(const struct plot *p, double x)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->row[i].x == x)
			return &p->row[i];
	return NULL;
}

/* The history plot (x = time): each check, regressions marked, baseline. */
static void script_history(struct plot *p, struct sbuf *sb)
{
	sbuf_addstr(sb, "set xdata time\nset timefmt '%s'\nset format x \"%m-%d\\n%H:%M\"\n");
	sbuf_addf(sb, "plot '%s.dat' using 1:2 with linespoints lw 2 lc rgb '#1f4e9c' pt 7 "
		      "title 'head throughput'", p->name);
	if (has_mark(p, MARK_REGRESSION))
		sbuf_addstr(sb, ", \\\n  '' using 1:($6==1?$2:1/0) with points pt 9 ps 2.5 "
				"lc rgb '#c00000' title 'regression'");
	if (!isnan(p->baseline))
		sbuf_addf(sb, ", \\\n  %.4f with lines dt 2 lc rgb '#2a9d2a' title 'baseline'",
			  p->baseline);
	sbuf_addstr(sb, "\n");
}

static int is_change(const struct plot_row *r)
{
	return r->mark == MARK_REGRESSION || r->mark == MARK_IMPROVEMENT;
}

/* A state range: measured points, the inferred steps, GOOD/BAD, changes. */
static void script_states(struct plot *p, struct sbuf *sb)
{
	int i;

	/* Each change's pair: an arrow at the changed state, from its parent's
	 * level to its own, so the step is where the change is. */
	for (i = 0; i < p->n; i++) {
		const struct plot_row *r = &p->row[i], *par;

		if (!is_change(r) || !(par = row_at(p, r->parent_x)))
			continue;
		sbuf_addf(sb, "set arrow from %g, %.4f to %g, %.4f head filled size graph 0.015,25 "
			      "lw 2 lc rgb '%s' front\n", r->x, par->median, r->x, r->median,
			  r->mark == MARK_REGRESSION ? "#c00000" : "#007000");
	}
	sbuf_addf(sb, "plot '%s.dat' using 1:2 with steps lw 1.5 dt 2 lc rgb '#6f8fbf' "
		      "title 'between measured states: inferred', \\\n"
		      "  '' using 1:2:3:4:xtic(7) with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb '#1f4e9c' "
		      "title 'measured: median, min-max of its runs'", p->name);
	if (has_mark(p, MARK_GOOD))
		sbuf_addstr(sb, ", \\\n  '' using 1:($6==3?$2:1/0) with points pt 6 ps 2.5 lw 2 "
				"lc rgb '#2a9d2a' title 'GOOD'");
	if (has_mark(p, MARK_BAD))
		sbuf_addstr(sb, ", \\\n  '' using 1:($6==4?$2:1/0) with points pt 6 ps 2.5 lw 2 "
				"lc rgb '#d04040' title 'BAD'");
	if (has_mark(p, MARK_PARENT))
		sbuf_addstr(sb, ", \\\n  '' using 1:($6==5?$2:1/0) with points pt 8 ps 2 lw 2 "
				"lc rgb '#555555' title 'last good before a change'");
	for (i = 0; i < p->n; i++) {
		const struct plot_row *r = &p->row[i];
		int reg = r->mark == MARK_REGRESSION;

		if (!is_change(r))
			continue;
		sbuf_addf(sb, ", \\\n  '' using 1:($1==%g?$2:1/0) with points pt %d ps 2.5 "
			      "lc rgb '%s' title \"%s %s: %+.2f%%%s\"", r->x, reg ? 11 : 9,
			  reg ? "#c00000" : "#007000", reg ? "regression" : "improvement", r->tic,
			  100 * r->change, r->small ? " (small)" : "");
	}
	sbuf_addstr(sb, "\n");
}

int plot_largest_changes(const struct plot *p, int *idx, int max)
{
	int i, j, k = 0, total = 0;

	/* One pass, inserting into idx kept sorted.  A row moves only past
	 * strictly smaller changes, so of equal ones the earlier state stays
	 * first. */
	for (i = 0; i < p->n; i++) {
		double c = fabs(p->row[i].change);

		if (!is_change(&p->row[i]))
			continue;
		total++;
		if (max <= 0 || (k == max && c <= fabs(p->row[idx[max - 1]].change)))
			continue;
		j = k < max ? k++ : max - 1;
		for (; j > 0 && c > fabs(p->row[idx[j - 1]].change); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return total;
}

/* How many changes the title names; the key lists them all. */
#define TITLE_CHANGES 3

/* The title, and under it the largest changes (subjects stay out of the
 * data): with many small steps, the one that matters comes first. */
static void title(const struct plot *p, struct sbuf *sb)
{
	int idx[TITLE_CHANGES], i, total = plot_largest_changes(p, idx, TITLE_CHANGES);

	sbuf_addf(sb, "set title \"%s", p->title);
	for (i = 0; i < TITLE_CHANGES && i < total; i++) {
		const struct plot_row *r = &p->row[idx[i]];

		sbuf_addf(sb, "\\n%s at %s (%+.2f%%): %s",
			  r->mark == MARK_REGRESSION ? "regression" : "improvement", r->tic,
			  100 * r->change, r->label);
	}
	if (total > TITLE_CHANGES)
		sbuf_addf(sb, "\\nand %d more changes (see the key)", total - TITLE_CHANGES);
	sbuf_addstr(sb, "\" noenhanced\n");
}

static void script(struct plot *p, struct sbuf *sb, const char *term, const char *ext)
{
	sbuf_addf(sb, "set terminal %s\nset output '%s.%s'\n", term, p->name, ext);
	title(p, sb);
	sbuf_addf(sb, "set xlabel \"%s\"\nset ylabel \"%s\"\n", p->xlabel,
		  p->ylabel ? p->ylabel : "tbench throughput, MB/s (higher is better)");
	sbuf_addstr(sb, "set grid ytics\nset datafile separator '\\t'\n"
			"set key outside right top vertical Left reverse noenhanced box spacing 1.2\n"
			"set offsets graph 0.04, graph 0.04, graph 0.1, graph 0.1\n"
			"set lmargin 16\nset bmargin 11\n"
			"set xtics rotate by 40 right noenhanced font ',9'\nunset label\nunset arrow\n");
	if (p->xtime)
		script_history(p, sb);
	else
		script_states(p, sb);
}

/* Which rows name their state on the x axis: all of them when they fit,
 * else the marked ones and an even spread of the others. */
static int gets_tic(const struct plot *p, int i)
{
	int every = (p->n + PLOT_MAX_TICS - 1) / PLOT_MAX_TICS;

	return p->n <= PLOT_MAX_TICS || p->row[i].mark != MARK_NONE || i % every == 0;
}

/* Runs gnuplot on script gp in dir; its warnings go to dir/name.log.  0 or
 * -1 (reported). */
static int run_gnuplot(const char *dir, const char *name, const char *gp)
{
	const char *argv[] = { "gnuplot", gp, NULL };
	char *log = xasprintf("%s/%s.log", dir, name);
	struct run_cmd cmd;
	int st;

	run_init(&cmd, argv);
	cmd.cwd = dir;
	cmd.timeout = 60;
	/* gnuplot's warnings (e.g. a one-point range) go beside the plot. */
	cmd.stdout_path = log;
	cmd.stderr_to_stdout = 1;
	st = run_exec(&cmd);
	run_release(&cmd);
	if (st != 0)
		error("gnuplot %s failed (%s; see %s); install it with: apt-get install gnuplot-nox",
		      gp, run_strstatus(st), log);
	free(log);
	return st != 0 ? -1 : 0;
}

int plot_bars(const char *dir, const char *name, const char *title, const char *ylabel,
	      const char *const *label, const double *v, int n)
{
	char *dat = xasprintf("%s/%s.dat", dir, name), *gp = xasprintf("%s/%s.gp", dir, name);
	char *t = clean(title, 200), *yl = clean(ylabel, 100);
	struct sbuf sb;
	int i, k, ret = -1;

	if (util_mkdir_p(dir) < 0)
		goto out;
	sbuf_init(&sb);
	sbuf_addstr(&sb, "# function\tvalue\n");
	for (i = 0; i < n; i++) {
		char *l = clean(label[i], 60);

		sbuf_addf(&sb, "%s\t%.3f\n", l, v[i]);
		free(l);
	}
	k = util_write_file_atomic(dat, sb.buf, sb.len);
	sbuf_release(&sb);
	if (k < 0)
		goto out;
	sbuf_init(&sb);
	sbuf_addstr(&sb, "# tbisect bar chart; edit and run: gnuplot this-file\n");
	for (k = 0; k < 2; k++) {
		sbuf_addf(&sb, "set terminal %s\nset output '%s.%s'\n",
			  k ? "svg size 1100,600 dynamic font ',10'" : "pngcairo size 1100,600 font ',10'",
			  name, k ? "svg" : "png");
		/* Horizontal bars, largest change on top: red adds instructions. */
		sbuf_addf(&sb, "set title \"%s\" noenhanced\nset xlabel \"%s\" noenhanced\n"
			       "set datafile separator '\\t'\nset style fill solid 0.8 noborder\n"
			       "set grid xtics\nunset key\nset lmargin 34\nset yrange [-0.6:%d.4] reverse\n"
			       "set ytics noenhanced font ',9'\nset xzeroaxis lt -1\n"
			       "plot '%s.dat' using (0):0:(0):2:($0-0.4):($0+0.4):($2 > 0 ? 0xcc2222 : 0x2255cc):"
			       "ytic(1) with boxxyerror lc rgb variable\n",
			  t, yl, n - 1, name);
	}
	k = util_write_file_atomic(gp, sb.buf, sb.len);
	sbuf_release(&sb);
	if (k < 0 || run_gnuplot(dir, name, gp) < 0)
		goto out;
	info("plot: %s/%s.png and .svg", dir, name);
	ret = 0;
out:
	free(yl);
	free(t);
	free(dat);
	free(gp);
	return ret;
}

int plot_write(struct plot *p)
{
	char *dat = xasprintf("%s/%s.dat", p->dir, p->name);
	char *gp = xasprintf("%s/%s.gp", p->dir, p->name);
	struct sbuf sb;
	int i, ret = -1;

	if (util_mkdir_p(p->dir) < 0)
		goto out;
	sbuf_init(&sb);
	sbuf_addstr(&sb, "# x\tmedian\tmin\tmax\truns\tmark\ttic\tlabel\tchange\n");
	for (i = 0; i < p->n; i++) {
		const struct plot_row *r = &p->row[i];

		/* A tic left out is one space: an empty field would be missing data. */
		sbuf_addf(&sb, "%.0f\t%.4f\t%.4f\t%.4f\t%d\t%d\t%s\t%s\t%.5f\n", r->x, r->median,
			  r->min, r->max, r->n, r->mark, gets_tic(p, i) && *r->tic ? r->tic : " ",
			  r->label, r->change);
	}
	if (util_write_file_atomic(dat, sb.buf, sb.len) < 0) {
		sbuf_release(&sb);
		goto out;
	}
	sbuf_release(&sb);
	sbuf_init(&sb);
	sbuf_addstr(&sb, "# tbisect plot; edit and run: gnuplot this-file\n");
	script(p, &sb, "pngcairo size 1400,720 font ',10'", "png");
	script(p, &sb, "svg size 1400,720 dynamic font ',10'", "svg");
	if (util_write_file_atomic(gp, sb.buf, sb.len) < 0) {
		sbuf_release(&sb);
		goto out;
	}
	sbuf_release(&sb);
	if (run_gnuplot(p->dir, p->name, gp) < 0)
		goto out;
	info("plot: %s/%s.png and .svg (data %s, script %s)", p->dir, p->name, dat, gp);
	ret = 0;
out:
	free(dat);
	free(gp);
	return ret;
}
