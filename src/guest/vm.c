/* vm: QEMU runs of a kernel and image, and the console parser. */
#include "vm.h"
#include "run.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *vm_status_name(enum vm_status s)
{
	switch (s) {
	case VM_OK: return "ok";
	case VM_PANIC: return "panic";
	case VM_TIMEOUT: return "timeout";
	case VM_NO_RESULT: return "no-result";
	case VM_BAD_RESULT: return "bad-result";
	case VM_BAD_GUEST: return "bad-guest";
	case VM_QEMU_FAIL: return "qemu-failed";
	case VM_NO_FIGURE: return "no-figure";
	}
	return "unknown";
}

int vm_parse_qemu_version(const char *text, struct vm_qemu *q)
{
	static const char prefix[] = "QEMU emulator version ";
	char num[32], *part[3], *p;
	long *field[3] = { &q->major, &q->minor, &q->micro };
	size_t n;
	int k;

	if (strncmp(text, prefix, sizeof(prefix) - 1))
		return -1;
	text += sizeof(prefix) - 1;
	n = strcspn(text, " \n");
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, text, n);
	num[n] = '\0';
	p = num;
	for (k = 0; k < 3; k++) {
		part[k] = strsep(&p, ".");
		if (!part[k] || util_parse_long(part[k], field[k]) < 0 || *field[k] < 0)
			return -1;
	}
	if (p)
		return -1;
	snprintf(q->version, sizeof(q->version), "%ld.%ld", q->major, q->minor);
	return 0;
}

int vm_qemu_probe(const char *qemu, struct vm_qemu *q)
{
	const char *argv[] = { qemu, "--version", NULL };
	char *out = NULL;
	int st, ret = -1;

	st = run_capture(argv, NULL, &out);
	if (st == RUN_ERR_EXEC || st == RUN_ERR_SETUP)
		error("cannot run %s; install it with: apt-get install qemu-system-x86", qemu);
	else if (st != 0 || !out || vm_parse_qemu_version(out, q) < 0)
		error("%s --version did not name a QEMU version (%s)", qemu,
		      st != 0 ? run_strstatus(st) : "unexpected output");
	else
		ret = 0;
	free(out);
	return ret;
}

int vm_seeded(const struct conf *c)
{
	return c->mode == MODE_ICOUNT && (c->smp > 1 || workload_seeded(c));
}

int vm_qemu_check(const struct conf *c, const struct vm_qemu *q, char *why, size_t size)
{
	if (c->mode != MODE_ICOUNT || c->smp < 2 || q->major > 8 || (q->major == 8 && q->minor >= 1))
		return 0;
	snprintf(why, size,
		 "SMP = %ld in icount mode needs QEMU 8.1 or later; %s is %ld.%ld.%ld, whose icount "
		 "scheduler never runs the second vCPU (the guest hangs in SMP bring-up). Debian 12: "
		 "make deps installs qemu-system-x86 from bookworm-backports; or set SMP = 1",
		 c->smp, c->qemu, q->major, q->minor, q->micro);
	return -1;
}

void vm_opts_init(struct vm_opts *o, const struct conf *c)
{
	memset(o, 0, sizeof(*o));
	o->qemu = c->qemu;
	o->accel = ACCEL_TCG;
	o->icount = c->mode == MODE_ICOUNT;
	o->shift = c->shift;
	o->smp = c->smp;
	o->cgroup_depth = c->cgroup_depth;
	o->memory_mb = c->memory_mb;
	o->clients = c->clients;
	o->seconds = c->seconds;
	o->feat = c->feat;
	o->timeout = (double)c->boot_timeout;
}

static const char *find_line(const char *text, const char *prefix)
{
	const char *p = text, *found = NULL;
	size_t n = strlen(prefix);

	while ((p = strstr(p, prefix))) {
		if (p == text || p[-1] == '\n' || p[-1] == '\r')
			found = p;
		p += n;
	}
	return found;	/* the last one */
}

static void copy_line(char *dst, size_t size, const char *src)
{
	size_t n = strcspn(src, "\r\n");

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The number that starts p and ends at a blank or the end, strictly. */
static int token_long(const char *p, long *out)
{
	char tok[32];
	size_t n = strcspn(p, " \t");

	if (n == 0 || n >= sizeof(tok))
		return -1;
	memcpy(tok, p, n);
	tok[n] = '\0';
	return util_parse_long(tok, out);
}

/* "TBISECT-CPUS 2" and "TBISECT-CGROUP 0::/a/b/c" (depth 3, "0::/" 0). */
static void parse_guest(const char *text, struct vm_result *r)
{
	static const char cpus[] = "TBISECT-CPUS ", cgroup[] = "TBISECT-CGROUP ";
	const char *p;
	char line[256], *q;

	r->guest_cpus = r->cgroup_depth = -1;
	if ((p = find_line(text, cpus))) {
		copy_line(line, sizeof(line), p + sizeof(cpus) - 1);
		if (util_parse_long(util_trim(line), &r->guest_cpus) < 0)
			r->guest_cpus = -1;
	}
	if ((p = find_line(text, cgroup))) {
		copy_line(line, sizeof(line), p + sizeof(cgroup) - 1);
		q = util_trim(line);
		if (!strncmp(q, "0::/", 4)) {
			char *save = NULL;

			r->cgroup_depth = 0;
			for (q = strtok_r(q + 3, "/", &save); q; q = strtok_r(NULL, "/", &save))
				r->cgroup_depth++;
		} else if (!strcmp(q, "none")) {
			r->cgroup_depth = 0;	/* no cgroups in that kernel: the root */
		}
	}
}

/* tbench's operation table (" Operation  Count  AvgLat  MaxLat", a rule,
 * then "NAME COUNT AVG MAX" rows up to a blank line): the sum of the counts,
 * every operation the clients finished in the whole run; -1 without one. */
static long parse_ops(const char *text)
{
	const char *p = find_line(text, " Operation ");
	long sum = 0, n;
	int rows = 0;

	if (!p || !(p = strchr(p, '\n')) || !(p = strchr(p + 1, '\n')))
		return -1;
	for (p++; *p && *p != '\n' && *p != '\r'; p += *p == '\n') {
		char line[256], *save = NULL, *name, *count;

		copy_line(line, sizeof(line), p);
		name = strtok_r(line, " \t", &save);
		count = name ? strtok_r(NULL, " \t", &save) : NULL;
		if (!count || util_parse_long(count, &n) < 0 || n < 0)
			return -1;
		sum += n;
		rows++;
		p += strcspn(p, "\n");
	}
	return rows ? sum : -1;
}

int vm_klog_counts(const char *record)
{
	const char *p = record + 1;
	long n = 0;

	if (*record != '<' || !(*p >= '0' && *p <= '9'))
		return 0;
	for (; *p >= '0' && *p <= '9' && n < 1000; p++)
		n = n * 10 + (*p - '0');
	if (*p++ != '>' || n >> 3 != 0)
		return 0;	/* not a record, or written by user space */
	return (n & 7) <= 3 || ((n & 7) == 4 && !strncmp(p, "WARNING:", 8));
}

/* The kernel log's records that count (vm_klog_counts()): how many, and
 * the first one's text. */
/* The text after the next mark at the start of a line of text, from p on;
 * NULL when there is none. */
static const char *next_mark(const char *text, const char *p, const char *mark)
{
	size_t n = strlen(mark);

	while ((p = strstr(p, mark))) {
		if (p == text || p[-1] == '\n' || p[-1] == '\r')
			return p + n;
		p += n;
	}
	return NULL;
}

static void parse_klog(const char *text, struct vm_result *r)
{
	const char *p = text;
	int seen = 0;

	r->kerrors = 0;
	r->kerror[0] = '\0';
	while ((p = next_mark(text, p, "TBISECT-KLOG "))) {
		char line[256];

		seen = 1;
		copy_line(line, sizeof(line), p);
		if (!vm_klog_counts(line))
			continue;
		if (!r->kerrors++) {
			char *t;

			copy_line(r->kerror, sizeof(r->kerror), strchr(line, '>') + 1);
			for (t = r->kerror; *t; t++)	/* it goes into a TSV field */
				if (*t == '\t' || (unsigned char)*t < ' ')
					*t = ' ';
		}
	}
	if (!seen)
		r->kerrors = -1;
}

void vm_check_guest(const struct vm_opts *o, struct vm_result *r)
{
	if (r->status != VM_OK || o->probe)
		return;
	if (r->guest_cpus != o->smp) {
		r->status = VM_BAD_GUEST;
		if (r->guest_cpus < 0)
			snprintf(r->reason, sizeof(r->reason),
				 "guest reported no CPU count (SMP = %ld); is IMAGE_INIT tbisect's?", o->smp);
		else
			snprintf(r->reason, sizeof(r->reason),
				 "guest saw %ld CPU%s, SMP = %ld: its kernel needs CONFIG_SMP, CONFIG_ACPI and NR_CPUS >= %ld",
				 r->guest_cpus, r->guest_cpus == 1 ? "" : "s", o->smp, o->smp);
	} else if (r->cgroup_depth < 0) {
		r->status = VM_BAD_GUEST;
		snprintf(r->reason, sizeof(r->reason),
			 "guest reported no cgroup of tbench (CGROUP_DEPTH = %ld); is IMAGE_INIT tbisect's?",
			 o->cgroup_depth);
	} else if (r->cgroup_depth != o->cgroup_depth) {
		r->status = VM_BAD_GUEST;
		snprintf(r->reason, sizeof(r->reason),
			 "tbench ran %ld cgroup levels deep, CGROUP_DEPTH = %ld: its kernel needs CONFIG_CGROUPS and CONFIG_CGROUP_SCHED",
			 r->cgroup_depth, o->cgroup_depth);
	}
}

/* The benchmark's output: the TBISECT-OUT lines, without the marker, one
 * per line (\r dropped).  Caller frees. */
static char *bench_output(const char *text)
{
	const char *p = text;
	struct sbuf sb;

	sbuf_init(&sb);
	while ((p = next_mark(text, p, "TBISECT-OUT "))) {
		size_t n = strcspn(p, "\r\n");

		sbuf_add(&sb, p, n);
		sbuf_addstr(&sb, "\n");
		p += n;
	}
	return sbuf_detach(&sb);
}

/* A benchmark run by images/bench-init: "TBISECT-RESULT rc=N" (line),
 * then its figure from the output by wl's regex. */
static void parse_figure(const char *text, const char *line, const struct workload *wl,
			 struct vm_result *r)
{
	char *out = bench_output(text), buf[256];
	long code;

	copy_line(buf, sizeof(buf), line);
	if (strncmp(buf, "TBISECT-RESULT rc=", 18) || token_long(buf + 18, &code) < 0) {
		r->status = VM_BAD_RESULT;
		snprintf(r->reason, sizeof(r->reason), "bad result line: %.200s", buf);
	} else if (code != 0) {
		const char *last = out + strlen(out);

		while (last > out && last[-1] == '\n')
			last--;
		while (last > out && last[-1] != '\n')
			last--;
		r->status = VM_BAD_RESULT;
		snprintf(r->reason, sizeof(r->reason), "%s exited %ld: %.*s", wl->name, code,
			 (int)strcspn(last, "\n"), last);
	} else if (workload_parse(wl, out, &r->value, r->reason, sizeof(r->reason)) < 0) {
		r->status = VM_NO_FIGURE;
	}
	free(out);
}

void vm_parse_console(const char *text, int probe, const struct workload *wl, struct vm_result *r)
{
	static const char *const fatal[] = { "Kernel panic - not syncing", "Oops:", "BUG: ",
					     "general protection fault", "Unable to handle kernel" };
	const char *p;
	size_t i;

	r->status = VM_OK;
	r->value = 0;
	r->reason[0] = '\0';
	parse_guest(text, r);
	r->ops = parse_ops(text);
	parse_klog(text, r);
	for (i = 0; i < ARRAY_SIZE(fatal); i++) {
		if ((p = strstr(text, fatal[i]))) {
			r->status = VM_PANIC;
			copy_line(r->reason, sizeof(r->reason), p);
			return;
		}
	}
	if ((p = find_line(text, "TBISECT-KERNEL ")))
		copy_line(r->kernel_release, sizeof(r->kernel_release), p + 15);
	if (!find_line(text, "TBISECT-BEGIN")) {
		r->status = VM_NO_RESULT;
		snprintf(r->reason, sizeof(r->reason), "guest never reached user space (no begin marker)");
		return;
	}
	if (probe) {
		if (!find_line(text, "TBISECT-PROBE ok")) {
			r->status = VM_NO_RESULT;
			snprintf(r->reason, sizeof(r->reason), "probe line missing");
		}
		return;
	}
	p = find_line(text, "TBISECT-RESULT ");
	if (!p) {
		r->status = VM_NO_RESULT;
		snprintf(r->reason, sizeof(r->reason), "guest printed no result line");
		return;
	}
	if (wl && !wl->legacy) {
		parse_figure(text, p, wl, r);
		return;
	}
	{
		char line[256], *m, *rc, *end;
		double v;
		long code;

		copy_line(line, sizeof(line), p);
		rc = strstr(line, " rc=");
		m = strstr(line, " mbps=");
		if (!m) {
			r->status = VM_BAD_RESULT;
			snprintf(r->reason, sizeof(r->reason), "result line without mbps: %.200s", line);
			return;
		}
		v = strtod(m + 6, &end);
		if (end == m + 6 || (*end && *end != ' ') || !(v > 0) || v > 1e7) {
			r->status = VM_BAD_RESULT;
			snprintf(r->reason, sizeof(r->reason), "unusable throughput: %.200s", line);
			return;
		}
		if (rc && (token_long(rc + 4, &code) < 0 || code != 0)) {
			r->status = VM_BAD_RESULT;
			snprintf(r->reason, sizeof(r->reason), "tbench failed: %.200s", line);
			return;
		}
		r->value = v;
	}
}

/* Notes when the guest reached user space, to split boot from benchmark. */
static void watch_tick(void *arg)
{
	struct vm_watch *w = arg;
	char buf[8192];
	ssize_t n;
	int fd;

	if (w->begin > 0)
		return;
	fd = open(w->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		if (strstr(buf, "TBISECT-BEGIN"))
			w->begin = util_now();
	}
}

int vm_start(const struct vm_opts *o, struct vm_job *j)
{
	char seed[32] = "";
	int i = 0;

	memset(j, 0, sizeof(*j));
	j->opts = *o;
	j->serial = xasprintf("file:%s", o->log);
	j->mem = xasprintf("%ld", o->memory_mb);
	j->smp = xasprintf("%ld", o->smp);
	j->icount = xasprintf("shift=%ld,sleep=off", o->shift);
	j->qlog = xasprintf("%s.qemu", o->log);
	/* Same command line for every state (run k: seed k): its bytes seed
	 * the guest's entropy pool and so move the icount figure. */
	if (o->seed > 0)
		snprintf(seed, sizeof(seed), " tb.seed=%ld", o->seed);
	j->append = xasprintf("console=ttyS0 quiet panic=-1 oops=panic tb.clients=%ld tb.seconds=%ld "
			      "tb.cgdepth=%ld%s%s%s%s",
			      o->clients, o->seconds, o->cgroup_depth, o->feat && *o->feat ? " tb.feat=" : "",
			      o->feat ? o->feat : "", o->probe ? " tb.probe=1" : "", seed);
	j->argv[i++] = o->qemu;
	j->argv[i++] = "-nodefaults";
	j->argv[i++] = "-display";
	j->argv[i++] = "none";
	j->argv[i++] = "-no-reboot";
	j->argv[i++] = "-serial";
	j->argv[i++] = j->serial;
	j->argv[i++] = "-kernel";
	j->argv[i++] = o->kernel;
	j->argv[i++] = "-initrd";
	j->argv[i++] = o->initrd;
	j->argv[i++] = "-append";
	j->argv[i++] = j->append;
	j->argv[i++] = "-m";
	j->argv[i++] = j->mem;
	j->argv[i++] = "-smp";
	j->argv[i++] = j->smp;
	/* The RTC follows the VM clock from a fixed date: the kernel mixes
	 * wall time into its entropy pool, and a host-clock RTC made icount
	 * repeats differ by up to 0.16%. */
	j->argv[i++] = "-rtc";
	j->argv[i++] = "base=2009-01-01T00:00:00,clock=vm";
	j->argv[i++] = "-accel";
	j->argv[i++] = o->accel == ACCEL_KVM ? "kvm" : "tcg";
	if (o->accel == ACCEL_KVM) {
		j->argv[i++] = "-cpu";
		j->argv[i++] = "host";
	}
	if (o->icount && o->accel != ACCEL_KVM) {
		j->argv[i++] = "-icount";
		j->argv[i++] = j->icount;
	}
	if (o->plugin) {
		j->argv[i++] = "-plugin";
		j->argv[i++] = o->plugin;
	}
	j->argv[i] = NULL;

	unlink(o->log);
	run_init(&j->cmd, j->argv);
	j->cmd.stdout_path = j->qlog;
	j->cmd.stderr_to_stdout = 1;
	j->cmd.timeout = o->timeout;
	j->w.log = o->log;
	j->w.start = util_now();
	j->w.begin = 0;
	j->cmd.tick = watch_tick;
	j->cmd.tick_arg = &j->w;
	if (run_start(&j->cmd) < 0) {
		error("cannot start %s", o->qemu);
		return -1;
	}
	/* Watched, so that its boot is timed and its deadline kept while
	 * tbisect builds the next kernel. */
	run_watch(&j->cmd);
	return 0;
}

int vm_poll(struct vm_job *j)
{
	return run_poll(&j->cmd);
}

int vm_finish(struct vm_job *j, struct vm_result *r)
{
	const struct vm_opts *o = &j->opts;
	char *text = NULL;
	int st, ret = -1;

	memset(r, 0, sizeof(*r));
	while (!run_poll(&j->cmd))
		run_pause(NULL);
	st = j->cmd.status;
	r->wall_s = j->cmd.elapsed;
	if (j->w.begin > 0) {
		r->boot_s = j->w.begin - j->cmd.start;
		r->bench_s = r->wall_s - r->boot_s;
	}
	if (st == RUN_ERR_INTERRUPTED) {
		error("interrupted; QEMU stopped");
		goto out;
	}
	if (st == RUN_ERR_EXEC || st == RUN_ERR_SETUP) {
		error("cannot run %s; install it with: apt-get install qemu-system-x86", o->qemu);
		goto out;
	}
	if (util_exists(o->log)) {
		if (util_read_file(o->log, &text, NULL) < 0)
			goto out;
	} else {
		text = xstrdup("");
	}
	vm_parse_console(text, o->probe, o->wl, r);
	vm_check_guest(o, r);
	if (st == RUN_ERR_TIMEOUT && r->status != VM_PANIC) {
		r->status = VM_TIMEOUT;
		snprintf(r->reason, sizeof(r->reason), "no exit within %.0f s; QEMU killed",
			 o->timeout);
	} else if (st != 0 && r->status == VM_OK) {
		char *qtext = NULL;

		r->status = VM_QEMU_FAIL;
		if (util_read_file(j->qlog, &qtext, NULL) == 0) {
			char *t = util_trim(qtext);

			snprintf(r->reason, sizeof(r->reason), "QEMU %s: %.200s", run_strstatus(st), t);
		}
		free(qtext);
	} else if (r->status == VM_NO_RESULT) {
		/* QEMU's own complaint (e.g. a KVM internal error) is the better reason. */
		char *qtext = NULL;

		if (util_read_file(j->qlog, &qtext, NULL) == 0 && strstr(qtext, "error")) {
			char *e = strstr(qtext, "error");

			copy_line(r->reason, sizeof(r->reason), e > qtext + 40 ? e - 40 : qtext);
		}
		free(qtext);
	}
	ret = 0;
out:
	free(text);
	vm_job_release(j);
	return ret;
}

void vm_job_release(struct vm_job *j)
{
	run_release(&j->cmd);
	free(j->serial);
	free(j->mem);
	free(j->smp);
	free(j->icount);
	free(j->append);
	free(j->qlog);
	memset(j, 0, sizeof(*j));
	j->cmd.pid = -1;
}

int vm_run(const struct vm_opts *o, struct vm_result *r)
{
	struct vm_job j;

	if (vm_start(o, &j) < 0) {
		memset(r, 0, sizeof(*r));
		vm_job_release(&j);
		return -1;
	}
	return vm_finish(&j, r);
}

enum conf_accel vm_resolve_accel(const struct conf *c, const char *kernel, const char *initrd,
				 const char *cache_file)
{
	struct vm_opts o;
	struct vm_result r;
	char *have = NULL, *log;
	enum conf_accel a = ACCEL_TCG;

	if (c->accel != ACCEL_AUTO)
		return c->accel;
	if (access("/dev/kvm", R_OK | W_OK) != 0)
		return ACCEL_TCG;
	if (util_exists(cache_file) && util_read_file(cache_file, &have, NULL) == 0) {
		a = !strncmp(have, "kvm", 3) ? ACCEL_KVM : ACCEL_TCG;
		free(have);
		return a;
	}
	info("vm: probing KVM with a real boot");
	vm_opts_init(&o, c);
	o.kernel = kernel;
	o.initrd = initrd;
	o.accel = ACCEL_KVM;
	o.icount = 0;
	o.probe = 1;
	o.timeout = 60;
	log = xasprintf("%s.log", cache_file);
	o.log = log;
	if (vm_run(&o, &r) == 0 && r.status == VM_OK)
		a = ACCEL_KVM;
	else
		info("vm: KVM does not run a guest here (%s); using TCG",
		     r.reason[0] ? r.reason : vm_status_name(r.status));
	util_write_file_atomic(cache_file, a == ACCEL_KVM ? "kvm\n" : "tcg\n", 4);
	free(log);
	return a;
}
