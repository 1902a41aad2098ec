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

	for (i = 0; i < p->n; i++)
		free(p->row[i].label);
	free(p->row);
	free(p->dir);
	free(p->name);
	free(p->title);
	free(p->xlabel);
	memset(p, 0, sizeof(*p));
}

void plot_add(struct plot *p, double x, const char *label, const double *v, int n,
	      enum plot_mark mark)
{
	struct plot_row *r;
	char *l, *q;

	if (n <= 0)
		return;
	p->row = xrealloc(p->row, (size_t)(p->n + 1) * sizeof(*p->row));
	r = &p->row[p->n++];
	r->x = x;
	r->median = stats_median(v, n);
	r->min = stats_min(v, n);
	r->max = stats_max(v, n);
	r->n = n;
	r->mark = mark;
	l = xstrdup(label ? label : "");
	/* Quotes and tabs would break the data file and the script. */
	for (q = l; *q; q++)
		if (*q == '"' || *q == '\t' || *q == '\'' || *q == '\\')
			*q = ' ';
	r->label = l;
}

static void script(struct plot *p, struct sbuf *sb, const char *term, const char *ext)
{
	int i, k;

	sbuf_addf(sb, "set terminal %s\nset output '%s.%s'\n", term, p->name, ext);
	sbuf_addf(sb, "set title \"%s\" noenhanced\n", p->title);
	sbuf_addf(sb, "set xlabel \"%s\"\nset ylabel \"tbench throughput, MB/s\"\n", p->xlabel);
	sbuf_addstr(sb, "set grid\nset key outside bottom center horizontal\nset datafile separator '\\t'\n"
			"set offsets graph 0.03, graph 0.03, graph 0.45, graph 0.1\n");
	if (p->xtime)
		sbuf_addstr(sb, "set xdata time\nset timefmt '%s'\nset format x \"%m-%d\\n%H:%M\"\n");
	sbuf_addstr(sb, "unset label\nunset arrow\n");
	for (i = 0, k = 0; i < p->n; i++) {
		const struct plot_row *r = &p->row[i];
		const char *col = r->mark == MARK_REGRESSION ? "#c00000" : "#007000";
		double y = 0.95 - 0.07 * (k++ % 4);

		if (r->mark != MARK_REGRESSION && r->mark != MARK_IMPROVEMENT)
			continue;
		/* Label near the top, staggered, with an arrow down to the point. */
		sbuf_addf(sb, "set label \"%s\" at %.0f, graph %.2f center font ',10' tc rgb '%s' "
			      "noenhanced front\n", r->label, r->x, y, col);
		sbuf_addf(sb, "set arrow from %.0f, graph %.2f to %.0f, %.4f lc rgb '%s' dt 2 front\n",
			  r->x, y - 0.02, r->x, r->median, col);
	}
	if (p->xtime) {
		/* History: the checks over time, regressions marked, the baseline. */
		sbuf_addf(sb, "plot '%s.dat' using 1:2 with linespoints lw 2 lc rgb '#1f4e9c' pt 7 "
			      "title 'head throughput', \\\n"
			      "  '' using 1:($6==1?$2:1/0) with points pt 9 ps 2.5 lc rgb '#c00000' "
			      "title 'regression'", p->name);
		if (!isnan(p->baseline))
			sbuf_addf(sb, ", \\\n  %.4f with lines dt 2 lc rgb '#2a9d2a' title 'baseline'",
				  p->baseline);
		sbuf_addstr(sb, "\n");
		return;
	}
	sbuf_addf(sb,
		  "plot '%s.dat' using 1:2:3:4 with yerrorlines lw 2 lc rgb '#1f4e9c' pt 7 ps 0.8 "
		  "title 'median, min-max of runs', \\\n"
		  "  '' using 1:($6==1?$2:1/0) with points pt 9 ps 2.5 lc rgb '#c00000' title 'regression', \\\n"
		  "  '' using 1:($6==2?$2:1/0) with points pt 11 ps 2.5 lc rgb '#007000' title 'improvement/fix', \\\n"
		  "  '' using 1:($6==3?$2:1/0) with points pt 6 ps 3 lc rgb '#2a9d2a' title 'GOOD', \\\n"
		  "  '' using 1:($6==4?$2:1/0) with points pt 6 ps 3 lc rgb '#d04040' title 'BAD'\n",
		  p->name);
}

int plot_write(struct plot *p)
{
	char *dat = xasprintf("%s/%s.dat", p->dir, p->name);
	char *gp = xasprintf("%s/%s.gp", p->dir, p->name);
	struct sbuf sb;
	int i, ret = -1, st;

	if (util_mkdir_p(p->dir) < 0)
		goto out;
	sbuf_init(&sb);
	sbuf_addstr(&sb, "# x\tmedian\tmin\tmax\truns\tmark\tlabel\n");
	for (i = 0; i < p->n; i++) {
		const struct plot_row *r = &p->row[i];

		sbuf_addf(&sb, "%.0f\t%.4f\t%.4f\t%.4f\t%d\t%d\t%s\n", r->x, r->median, r->min, r->max,
			  r->n, r->mark, r->label);
	}
	if (util_write_file_atomic(dat, sb.buf, sb.len) < 0) {
		sbuf_release(&sb);
		goto out;
	}
	sbuf_release(&sb);
	sbuf_init(&sb);
	sbuf_addstr(&sb, "# tbisect plot; edit and run: gnuplot this-file\n");
	script(p, &sb, "pngcairo size 1280,720", "png");
	script(p, &sb, "svg size 1280,720 dynamic", "svg");
	if (util_write_file_atomic(gp, sb.buf, sb.len) < 0) {
		sbuf_release(&sb);
		goto out;
	}
	sbuf_release(&sb);
	{
		const char *argv[] = { "gnuplot", gp, NULL };
		struct run_cmd cmd;

		char *log = xasprintf("%s/%s.log", p->dir, p->name);

		run_init(&cmd, argv);
		cmd.cwd = p->dir;
		cmd.timeout = 60;
		/* gnuplot's warnings (e.g. a one-point range) go beside the plot. */
		cmd.stdout_path = log;
		cmd.stderr_to_stdout = 1;
		st = run_exec(&cmd);
		run_release(&cmd);
		if (st != 0) {
			error("gnuplot %s failed (%s; see %s); install it with: apt-get install gnuplot-nox",
			      gp, run_strstatus(st), log);
			free(log);
			goto out;
		}
		free(log);
	}
	info("plot: %s/%s.png and .svg (data %s, script %s)", p->dir, p->name, dat, gp);
	ret = 0;
out:
	free(dat);
	free(gp);
	return ret;
}
