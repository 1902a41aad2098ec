/*
 * plot: the "scare children" regression plot, drawn by gnuplot.
 *
 * Writes NAME.dat (one row per measured state: index, median, min, max,
 * runs, mark, label) and NAME.gp beside NAME.png and NAME.svg in the plot
 * directory, so a user can restyle it and run "gnuplot NAME.gp" again.
 *
 *	struct plot p;
 *	plot_init(&p, dir, "tbisect", title);
 *	plot_add(&p, idx, label, samples, n, mark);   for each state
 *	plot_write(&p);                               0 or -1
 *	plot_release(&p);
 */
#ifndef TBISECT_PLOT_H
#define TBISECT_PLOT_H

enum plot_mark { MARK_NONE, MARK_REGRESSION, MARK_IMPROVEMENT, MARK_GOOD, MARK_BAD };

struct plot_row {
	double x, median, min, max;
	int n;
	enum plot_mark mark;
	char *label;
};

struct plot {
	char *dir, *name, *title, *xlabel;
	int xtime;		/* x is a Unix time (history plot) */
	double baseline;	/* drawn as a line when not NAN */
	struct plot_row *row;
	int n;
};

void plot_init(struct plot *p, const char *dir, const char *name, const char *title);
void plot_add(struct plot *p, double x, const char *label, const double *v, int n,
	      enum plot_mark mark);
/* Writes data and script and runs gnuplot for PNG and SVG.  0 or -1. */
int plot_write(struct plot *p);
void plot_release(struct plot *p);

#endif
