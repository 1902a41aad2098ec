/*
 * plot: the "scare children" regression plot, drawn by gnuplot.
 *
 * Writes NAME.dat (one row per measured state: index, median, min, max,
 * runs, mark, tic, label, change) and NAME.gp beside NAME.png and NAME.svg
 * in the plot directory, so a user can restyle it and run "gnuplot NAME.gp"
 * again.
 *
 * What it draws: only measured states, each a point with the min-max of its
 * runs; a faint step line between them (the value a bisection infers, not
 * a measurement); GOOD and BAD circled; each change's state and its parent
 * marked as a pair joined by an arrow, the change in percent in the key.
 * Text stays out of the data: the key is right of the plot and lists only
 * what is drawn; x tics name the measured states (tic, rotated), every one
 * up to PLOT_MAX_TICS, beyond that the marked ones and an even spread.
 *
 *	struct plot p;
 *	plot_init(&p, dir, "tbisect", title);
 *	r = plot_add(&p, idx, tic, label, samples, n, mark);   for each state
 *	r->change = -0.02;                    for MARK_REGRESSION/IMPROVEMENT
 *	plot_write(&p);                       0 or -1
 *	plot_release(&p);
 */
#ifndef TBISECT_PLOT_H
#define TBISECT_PLOT_H

#define PLOT_MAX_TICS 40

/* MARK_PARENT: the last state before a change (its pair's other end). */
enum plot_mark { MARK_NONE, MARK_REGRESSION, MARK_IMPROVEMENT, MARK_GOOD, MARK_BAD, MARK_PARENT };

struct plot_row {
	double x, median, min, max;
	int n;
	enum plot_mark mark;
	char *tic;		/* short name on the x axis (patch name, short hash) */
	char *label;		/* longer text for the key (subject) */
	double change;		/* relative change at a regression/improvement */
	double parent_x;	/* the change's parent state, NAN when unknown */
	int small;		/* a change under the threshold: "(small)" in the key */
};

struct plot {
	char *dir, *name, *title, *xlabel;
	char *ylabel;		/* NULL: tbench throughput, MB/s */
	int xtime;		/* x is a Unix time (history plot) */
	double baseline;	/* drawn as a line when not NAN */
	struct plot_row *row;
	int n;
};

void plot_init(struct plot *p, const char *dir, const char *name, const char *title);
/* Adds a measured state (n > 0 samples; else nothing, NULL returned).  The
 * row stays valid until the next plot_add(). */
struct plot_row *plot_add(struct plot *p, double x, const char *tic, const char *label,
			  const double *v, int n, enum plot_mark mark);
/* The rows of the (up to) max largest changes (regressions and
 * improvements, by |change|, the earlier state first when equal), largest
 * first, into idx[0..max-1].  Returns how many changes the plot has in all;
 * idx holds min(that, max) of them.  The title names these. */
int plot_largest_changes(const struct plot *p, int *idx, int max);
/* Writes data and script and runs gnuplot for PNG and SVG.  0 or -1. */
int plot_write(struct plot *p);
void plot_release(struct plot *p);
/* A bar chart of n labelled values, largest on top, red for positive ones
 * (instructions added), blue for negative: NAME.dat, NAME.gp, NAME.png and
 * NAME.svg in dir.  0 or -1 (reported). */
int plot_bars(const char *dir, const char *name, const char *title, const char *ylabel,
	      const char *const *label, const double *v, int n);

#endif
