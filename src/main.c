/* tflame: command line parsing and wiring; the work happens in the modules. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "conf.h"
#include "options.h"
#include "keymap.h"
#include "load.h"
#include "palette.h"
#include "printer.h"
#include "svg.h"
#include "record.h"
#include "script.h"
#include "search.h"
#include "sniff.h"
#include "text.h"
#include "tree.h"
#include "unit.h"
#include "counts.h"
#include "dsomap.h"
#include "diff.h"
#include "heatmap.h"
#include "timeline.h"
#include "toptable.h"
#include "transform.h"
#include "ui.h"
#include "views.h"
#include "xalloc.h"

__attribute__((format(printf, 1, 2)))
static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("tflame: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'tflame --help' for more information.\n", stderr);
	exit(2);
}

/* The config file's text: settings may point into it. Static, so that it
 * stays reachable (for leak checkers) on every exit path. */
static char *config_text;

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --print width: the terminal's when stdout is one, else $COLUMNS, else 100. */
static int default_width(void)
{
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *cols = getenv("COLUMNS");
	long v = cols ? strtol(cols, NULL, 10) : 0;
	return v > 0 && v <= 100000 ? (int)v : 100;
}

static bool utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* --print: the current tree in the chosen view. Returns the exit status. */
static int print_view(const struct settings *set, const struct transform_stack *views,
                      const struct search *search, const struct unit *unit,
                      struct load_messages *msgs)
{
	const struct tree *t = transform_stack_tree(views);
	struct printer_options po = { .width = set->width ? set->width : default_width(),
	                              .orient = set->orient, .zoom = TREE_ROOT,
	                              .min_width = set->min_width, .search = search };
	const char *sandwich = set->sandwich;
	char header[256];
	if (unit->event[0]) {
		/* "all: 4,621 samples · 1.16 s cpu-clock" */
		char total[200];
		unit_total(unit, tree_total_d(t, TREE_ROOT), utf8_locale() ? " \u00b7 " : " | ", total, sizeof total);
		snprintf(header, sizeof header, "all: %s", total);
		po.header = header;
	}
	if (set->view == VIEW_TABLE) {
		struct toptable tt;
		toptable_compute(&tt, t, TREE_ROOT, set->table_sort);
		int rc;
		const struct tree *bt = set->diff ? transform_stack_tree2(views) : NULL;
		if (bt) {
			/* --diff: the same functions' totals in BEFORE, and the delta */
			struct toptable tb;
			double ta = tree_total_d(t, TREE_ROOT), tbt = tree_total_d(bt, TREE_ROOT);
			toptable_compute(&tb, bt, TREE_ROOT, set->table_sort);
			rc = toptable_write_diff(&tt, &tb, set->normalize && tbt > 0 ? ta / tbt : 1.0,
			                         (size_t)set->top, stdout);
			toptable_free(&tb);
		} else
			rc = toptable_write(&tt, (size_t)set->top, stdout);
		toptable_free(&tt);
		return rc ? 1 : 0;
	}
	if (set->view == VIEW_SANDWICH) {
		char err[256];
		size_t len;
		if (!sandwich) {
			tree_idx h = views_hottest(t);
			if (h == TREE_NONE) {
				load_messages_add(msgs, "tflame: no samples: no function for --view=sandwich");
				return 1;
			}
			sandwich = tree_name(t, h);
			len = tree_name_len(t, h);
		} else {
			len = strlen(sandwich);
		}
		int rc = views_print_sandwich(t, sandwich, len, set->order, &po, stdout, err, sizeof err);
		if (rc == 1)
			load_messages_add(msgs, "tflame: %s", err);
		return rc ? 1 : 0;
	}
	struct diff d;
	if (set->diff) {
		char line[256];
		diff_compute(&d, t, transform_stack_tree2(views), set->normalize, false);
		diff_describe(&d, t, TREE_ROOT, line, sizeof line);
		if (printf("diff: %s\n", line) < 0) {
			diff_free(&d);
			return 1;
		}
		po.diff = &d;
	}
	int rc = printer_print(t, &po, stdout) != 0 ? 1 : 0;
	if (set->diff)
		diff_free(&d);
	return rc;
}

/* Whether thread th passes the --only options: one of each kind given. */
static bool thread_chosen(const struct settings *set, const struct timeline_thread *th)
{
	bool kind_seen[3] = { false, false, false }, kind_hit[3] = { false, false, false };
	for (size_t i = 0; i < set->nonly; i++) {
		int k = (int)set->only[i].kind;     /* ONLY_PID, ONLY_TID, ONLY_COMM */
		const char *a = set->only[i].arg;
		kind_seen[k] = true;
		if (k == 2 ? strcmp(th->comm, a) == 0 : strtoll(a, NULL, 10) == (k ? th->tid : th->pid))
			kind_hit[k] = true;
	}
	for (int k = 0; k < 3; k++)
		if (kind_seen[k] && !kind_hit[k])
			return false;
	return true;
}

/* --time and --only-*: t becomes the tree of the samples in the range
 * [*t0, *t1) (all without --time) on the chosen threads (*threads, NULL
 * when all; freed by the caller). Returns the exit status so far (1: the
 * input has no times, or no thread is chosen). */
static int sample_filter(struct tree *t, struct tree *keep, const struct timeline *tl,
                         const struct settings *set, enum tree_order order, struct load_messages *msgs,
                         uint64_t *t0, uint64_t *t1, bool **threads, uint64_t *kept_out)
{
	*threads = NULL;
	const char *what = set->time_range ? "--time" : "--only";
	if (tl->n == 0) {
		load_messages_add(msgs, "tflame: %s: the input has no sample times or threads (perf script, "
		                  "perf.data, .cpuprofile, Chrome trace and speedscope files have them)", what);
		return 1;
	}
	char err[256];
	if (set->time_range && !timeline_parse_range(tl, set->time_range, t0, t1, err, sizeof err)) {
		char safe[300];
		text_sanitize(err, strlen(err), safe, sizeof safe);
		usage_error("--time: %s", safe);
	}
	if (set->nonly) {
		size_t chosen = 0;
		*threads = xcalloc(tl->nthreads ? tl->nthreads : 1, sizeof **threads);
		for (size_t i = 0; i < tl->nthreads; i++)
			chosen += (*threads)[i] = thread_chosen(set, &tl->threads[i]);
		if (!chosen) {
			/* say which there are, the busiest first (a few) */
			char list[400] = "";
			size_t len = 0;
			bool *shown = xcalloc(tl->nthreads, sizeof *shown);
			for (int k = 0; k < 5 && (size_t)k < tl->nthreads; k++) {
				size_t best = 0;
				for (size_t i = 1; i < tl->nthreads; i++)
					if (!shown[i] && (shown[best] || tl->threads[i].samples > tl->threads[best].samples))
						best = i;
				shown[best] = true;
				char comm[64];
				text_sanitize(tl->threads[best].comm, strlen(tl->threads[best].comm), comm, sizeof comm);
				int w = snprintf(list + len, sizeof list - len, "%s%s %" PRId64 "/%" PRId64 " (%" PRIu64 ")",
				                 k ? ", " : "", comm, tl->threads[best].pid, tl->threads[best].tid,
				                 tl->threads[best].samples);
				if (w < 0 || (size_t)w >= sizeof list - len)
					break;
				len += (size_t)w;
			}
			free(shown);
			load_messages_add(msgs, "tflame: --only: no thread of the input matches; it has %zu "
			                  "(comm pid/tid, samples): %s%s", tl->nthreads, list,
			                  tl->nthreads > 5 ? ", ..." : "");
			return 1;
		}
	}
	uint64_t *self = xcalloc(tree_size(t), sizeof *self);
	uint64_t kept = timeline_self(tl, *t0, *t1, *threads, self, tree_size(t));
	*kept_out = kept;
	struct tree sub;
	tree_init(&sub);
	timeline_tree(t, self, order, &sub);
	free(self);
	if (keep) {
		tree_free(keep);
		*keep = *t;     /* the timeline's nodes are its */
	}
	else
		tree_free(t);
	*t = sub;
	if (kept == 0 && set->time_range) {
		char safe[64];
		text_sanitize(set->time_range, strlen(set->time_range), safe, sizeof safe);
		load_messages_add(msgs, "tflame: --time=%s: no samples in that range%s (the recording spans %.6f s)",
		                  safe, set->nonly ? " on the chosen threads" : "",
		                  (double)(tl->tmax - tl->tmin) / 1e9);
		return 1;
	}
	return 0;
}

/* Why the input gave no samples (issue 18 item 9): the events a perf
 * input had when --event-filter kept none of them, else the plain fact. */
static void say_empty_input(const struct settings *set, const struct perf_events *ev, size_t nfiles,
                            struct load_messages *msgs)
{
	const char *filter = set->lo.perf.event_filter;
	bool seen = false;      /* records of the filter's event (weighing 0) */
	for (size_t i = 0; filter && i < ev->n; i++)
		seen |= strcmp(ev->ev[i].name, filter) == 0;
	if (filter && !seen && (ev->n || ev->other)) {
		char safe[128], list[1024];
		text_sanitize(filter, strlen(filter), safe, sizeof safe);
		perf_events_list(ev, list, sizeof list);
		load_messages_add(msgs, "tflame: --event-filter=%s: no samples of that event; events in %s: %s", safe,
		                  nfiles > 1 ? "these files" : "this file", list);
		return;
	}
	load_messages_add(msgs, "tflame: no samples in the input");
}

/* True when the transforms hid every frame of t (shown has only its
 * root); says so, naming the --hide patterns and how many names there were. */
static bool say_all_hidden(const struct settings *set, const struct tree *t, const struct tree *shown,
                           struct load_messages *msgs)
{
	/* "--hide=A --hide=B" */
	char hides[300] = "";
	size_t len = 0;
	for (size_t k = 0; k < set->ntrs; k++) {
		if (set->trs[k].kind != TRANSFORM_HIDE)
			continue;
		char safe[128];
		text_sanitize(set->trs[k].arg, strlen(set->trs[k].arg), safe, sizeof safe);
		int w = snprintf(hides + len, sizeof hides - len, "%s--hide=%s", len ? " " : "", safe);
		if (w < 0 || (size_t)w >= sizeof hides - len)
			break;
		len += (size_t)w;
	}
	if (!len || tree_size(shown) > 1 || tree_size(t) <= 1)
		return false;
	/* the distinct names of the frames (the root's "all" is not one) */
	size_t nnames = strtab_count(&t->names), distinct = 0;
	bool *seen = xcalloc(nnames ? nnames : 1, sizeof *seen);
	for (tree_idx i = 1; i < tree_size(t); i++)
		if (!seen[t->nodes[i].name]) {
			seen[t->nodes[i].name] = true;
			distinct++;
		}
	free(seen);
	char digits[24], count[40];
	snprintf(digits, sizeof digits, "%zu", distinct);
	unit_group(digits, count, sizeof count);
	load_messages_add(msgs, "tflame: %s: every frame is hidden (the input has %s distinct name%s); "
	                  "nothing is left to show", hides, count, distinct == 1 ? "" : "s");
	return true;
}

/* The browser's title: "A.folded → B.folded" for a diff of two files; "a
 * + 2 more"; standard input is "stdin", not "-". */
static void browser_title(char *title, size_t size, char **files, size_t nfiles, const struct settings *set,
                          const char *recorded)
{
	const char *arrow = utf8_locale() ? " \u2192 " : " -> ";
	const char *f0 = strcmp(files[0], "-") ? files[0] : "stdin";
	const char *f1 = nfiles > 1 && strcmp(files[1], "-") == 0 ? "stdin" : nfiles > 1 ? files[1] : "";
	if (recorded)
		snprintf(title, size, "%s", recorded);
	else if (set->diff && nfiles == 2)
		snprintf(title, size, "%s%s%s", f0, arrow, f1);
	else if (nfiles > 1)
		snprintf(title, size, "%s + %zu more", f0, nfiles - 1);
	else
		snprintf(title, size, "%s", f0);
}

/* The browser's options that the settings alone give (the rest comes from
 * the load). */
static void browser_options(struct ui_options *uo, const struct settings *set, const char *title)
{
	*uo = (struct ui_options){
		.orient = set->orient, .min_width = set->min_width,
		.diff = set->diff, .negate = set->negate, .normalize = set->normalize,
		.table = set->view == VIEW_TABLE, .table_sort = set->table_sort,
		.sandwich = set->view == VIEW_SANDWICH, .sandwich_name = set->sandwich,
		.title = title,
		.palette = set->pal, .rules = set->rules,
		.search = set->search_re, .stats = set->stats,
		.range_set = set->time_range != NULL,
		.heatmap = set->view == VIEW_HEATMAP,
		.chart = set->view == VIEW_CHART,
	};
}

/* A preview's transform stack (ui_live_source.views): the transforms asked
 * for, those that apply to it (all are checked on the whole profile). */
static void preview_views(void *arg, struct transform_stack *st, const struct tree *t, enum tree_order order)
{
	const struct settings *set = arg;
	transform_stack_init(st, t, NULL, order);
	for (size_t k = 0; k < set->ntrs; k++) {
		char why[256];
		const char *a = set->trs[k].arg;
		struct transform tr = transform_make(set->trs[k].kind, a, a ? strlen(a) : 0);
		transform_stack_push(st, &tr, why, sizeof why);
	}
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	/* Static: what it holds (rules, config values) stays reachable for
	 * leak checkers on the early exits of option errors. */
	static struct settings set;
	settings_init(&set, ncpu > 1 ? (int)(ncpu > 16 ? 16 : ncpu) : 1);
	argv[0] = (char *)"tflame";     /* getopt's messages: "tflame: ..." */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");     /* counts are written with '.' */
	text_init(utf8_locale());

	/* tflame record ...: perf record first, then the browser on its file
	 * (with the config file's options; none from the command line) */
	static struct record_result rec;
	char *rec_files[1];
	bool recorded = false;
	if (argc > 1 && strcmp(argv[1], "record") == 0) {
		int rrc = record_run(argc - 1, argv + 1, &rec);
		if (rrc >= 0)
			return rrc;
		recorded = true;
		rec_files[0] = rec.path;
		argc = 1;
		argv[1] = NULL;
	}

	int prc = options_parse(&set, argc, argv, &config_text);
	if (prc >= 0) {
		free(config_text);
		return prc;
	}

	char *stdin_only[] = { (char *)"-" };
	char *perf_data[] = { (char *)"perf.data" };
	char **files = argv + optind;
	size_t nfiles = (size_t)(argc - optind);
	if (recorded) {
		files = rec_files;
		nfiles = 1;
	} else if (nfiles == 0) {
		struct stat st;
		if (isatty(STDIN_FILENO) && stat("perf.data", &st) == 0 && S_ISREG(st.st_mode)) {
			/* as perf report does */
			files = perf_data;
		} else if (isatty(STDIN_FILENO)) {
			fputs("tflame: no input: give a profile file, pipe one in (perf script | tflame),\n"
			      "or run where perf record left a perf.data\n"
			      "Try 'tflame --help' for more information.\n", stderr);
			return 2;
		} else {
			files = stdin_only;
		}
		nfiles = 1;
	}

	for (size_t i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0 && isatty(STDIN_FILENO)) {
			fputs("tflame: -: standard input is a terminal: pipe a profile in "
			      "(perf script | tflame -) or give a file\n", stderr);
			return 2;
		}
	if (set.mode == MODE_UI) {
		/* before a long load: a terminal that cannot draw the browser */
		const char *term = getenv("TERM");
		if (term && strcmp(term, "dumb") == 0) {
			fputs("tflame: the terminal (TERM=dumb) cannot move its cursor, which the browser "
			      "needs: use --print, --collapse or --svg\n", stderr);
			return 2;
		}
	}
	if (set.diff && nfiles > 2)
		usage_error("--diff takes BEFORE AFTER, or one difffolded file");
	if ((set.negate || set.normalize) && !set.diff)
		usage_error("--%s needs --diff", set.negate ? "negate" : "normalize");
	if ((set.time_range || set.nonly) && set.diff)
		usage_error("--%s does not apply to --diff", set.time_range ? "time" : "only-*");

	/* --diff: t is AFTER (the widths), before is BEFORE. */
	struct tree t, before;
	struct load_messages msgs = { 0 };
	tree_init(&t);
	tree_init(&before);
	if (set.order == TREE_ORDER_INPUT && set.mode != MODE_COLLAPSE) {
		/* A flame chart keeps time order: only adjacent frames merge, so
		 * the input is read in one pass. --collapse merges by stack. */
		t.chart = before.chart = true;
		set.lo.threads = 1;
	}
	struct perfdata_info pinfo;
	struct pprof_info ppinfo;
	memset(&pinfo, 0, sizeof pinfo);
	memset(&ppinfo, 0, sizeof ppinfo);
	set.lo.perfdata_info = &pinfo;
	set.lo.pprof_info = &ppinfo;
	/* Each sample's time, thread and stack, when the input has them. */
	struct timeline tl;
	timeline_init(&tl);
	/* Each frame's object (perf inputs), for the browser's details. */
	static struct dsomap dsos;
	dsomap_init(&dsos);
	if (set.mode == MODE_UI && !set.diff)
		set.lo.dsos = &dsos;
	/* the events a perf input had, for an --event-filter that keeps none
	 * (without one the first event is kept: counting would be wasted) */
	static struct perf_events pevents;
	if (set.lo.perf.event_filter)
		set.lo.perf.events = &pevents;
	/* Kept for what uses it: the browser (time views), --time and
	 * --only, the chart and the heat map, --print's count of the samples
	 * behind transforms, and --stats' report; not for a plain --collapse,
	 * --print or --svg (a 283 MB .cpuprofile: 2.0 -> 0.7 s). */
	if (!set.diff && (set.mode == MODE_UI || set.time_range || set.nonly || set.view == VIEW_CHART ||
	                  set.view == VIEW_HEATMAP || (set.mode == MODE_PRINT && set.ntrs) || set.stats))
		set.lo.timeline = &tl;
	/* The browser opens before a long load ends, on a preview (one input
	 * of folded or perf script text; not for what needs the whole
	 * profile first: a diff, a time range, a thread choice, the heat map
	 * or the chart, --stats' report). */
	char title[512];
	browser_title(title, sizeof title, files, nfiles, &set, recorded ? rec.title : NULL);
	struct ui_options uo;
	browser_options(&uo, &set, title);
	tree_set_threads(set.lo.threads);
	set.lo.order = set.order;
	struct load_live *lv = NULL;
	struct ui_live *live = NULL;
	if (set.mode == MODE_UI && !set.bench_keys && !set.script && !set.stats && nfiles == 1 && !set.diff &&
	    !set.time_range && !set.nonly && set.view != VIEW_HEATMAP && set.view != VIEW_CHART && !t.chart) {
		lv = load_live_new();
		search_set_threads(set.lo.threads);
		struct ui_live_source src = { load_live_preview, load_live_status, preview_views, lv, &set };
		live = ui_live_start(&src, &uo, set.order);
		if (live)
			set.lo.live = lv;
	}
	double t0 = seconds();
	int rc;
	if (set.diff && nfiles == 2) {
		rc = load_files(&before, files, 1, &set.lo, &msgs);
		rc |= load_files(&t, files + 1, 1, &set.lo, &msgs);
	} else {
		if (set.diff)
			set.lo.before = &before;    /* one difffolded file */
		rc = load_files(&t, files, nfiles, &set.lo, &msgs);
	}
	double t1 = seconds();
	if (recorded && rec.temporary)
		unlink(rec.path);
	/* perf.data says what its weights count */
	static struct unit unit;
	unit_set(&unit, nfiles == 1 && !set.diff ? pinfo.event : NULL, pinfo.samples);
	if (nfiles == 1 && !set.diff && ppinfo.type[0])
		unit_set_typed(&unit, ppinfo.type, ppinfo.unit, ppinfo.samples);
	if (set.unit)       /* what the user says wins */
		unit_set_user(&unit, set.unit, unit.samples);
	/* The new ids only when samples point at nodes: making them reads
	 * every node (0.05 s on a tree of 17 million). */
	tree_idx *renum = NULL;
	tree_finalize_map(&t, set.order, tl.n ? &renum : NULL);
	timeline_renumber(&tl, renum, tree_size(&t));
	free(renum);
	tree_finalize(&before, set.order);
	uint64_t range_t0 = 0, range_t1 = UINT64_MAX;
	bool *chosen = NULL;
	/* The browser's heat map needs the tree the timeline's samples point
	 * into: kept when --time or --only make t a part of it. */
	struct tree full;
	tree_init(&full);
	/* A run that keeps no samples fails, saying why (--collapse would
	 * write nothing, the browser show nothing). */
	if (rc == 0 && tree_total_d(&t, TREE_ROOT) == 0 && (!set.diff || tree_total_d(&before, TREE_ROOT) == 0)) {
		say_empty_input(&set, &pevents, nfiles, &msgs);
		rc = 1;
	}
	/* The samples behind a --print header under transforms are counted
	 * on the tree the timeline's samples point into. */
	bool count_shown = set.mode == MODE_PRINT && set.ntrs && unit.event[0] && unit.samples && tl.n;
	if ((set.time_range || set.nonly) && rc == 0) {
		uint64_t kept = 0;
		rc = sample_filter(&t, set.mode == MODE_UI || set.view == VIEW_CHART || count_shown ? &full : NULL,
		                   &tl, &set, set.order, &msgs, &range_t0, &range_t1, &chosen, &kept);
		unit.samples = kept;
	}
	if (set.view == VIEW_HEATMAP && set.mode != MODE_PRINT && set.mode != MODE_UI)
		usage_error("--view=heatmap is for --print and the browser");
	if (set.view == VIEW_CHART && (set.diff || set.mode == MODE_COLLAPSE))
		usage_error("--view=chart does not apply to %s", set.diff ? "--diff" : "--collapse");
	if (set.view == VIEW_CHART && rc == 0 && tl.n == 0) {
		load_messages_add(&msgs, "tflame: --view=chart: the input has no sample times (perf script, "
		                  "perf.data, .cpuprofile, Chrome trace and speedscope files have them); --sort=input draws a flame "
		                  "chart in the input's order");
		rc = 1;
	}
	if (set.view == VIEW_CHART && rc == 0 && set.mode != MODE_UI) {
		/* the stacks in time order, from the tree the samples point into */
		struct tree ch;
		tree_init(&ch);
		timeline_chart(&tl, (set.time_range || set.nonly) ? &full : &t, range_t0, range_t1, chosen, &ch);
		tree_free(&t);
		t = ch;
		tree_free(&full);
		tree_init(&full);
	}
	if (set.view == VIEW_HEATMAP && rc == 0 && tl.n == 0) {
		load_messages_add(&msgs, "tflame: --view=heatmap: the input has no sample times (perf "
		                  "script, perf.data, .cpuprofile, Chrome trace and speedscope files have them)");
		rc = 1;
	}
	double t2 = seconds();

	struct transform_stack views;
	transform_stack_init(&views, &t, set.diff ? &before : NULL, set.order);
	for (size_t k = 0; k < set.ntrs && rc == 0; k++) {
		char why[256];
		const char *arg = set.trs[k].arg;
		struct transform tr = transform_make(set.trs[k].kind, arg, arg ? strlen(arg) : 0);
		if (!transform_stack_push(&views, &tr, why, sizeof why)) {
			char safe[300];
			text_sanitize(why, strlen(why), safe, sizeof safe);
			load_messages_add(&msgs, "tflame: %s", safe);
			rc = 1;
		} else if (why[0]) {    /* a note: a hide pattern too costly on some names */
			char safe[300];
			text_sanitize(why, strlen(why), safe, sizeof safe);
			load_messages_add(&msgs, "tflame: --%s", safe);
		}
	}
	const struct tree *shown = transform_stack_tree(&views);
	if (views.n && unit.samples) {
		/* the samples behind what the transforms kept */
		if (count_shown && set.view != VIEW_CHART) {
			struct tree ct;
			counts_tree(&tl, (set.time_range || set.nonly) ? &full : &t, range_t0, range_t1, chosen,
			            &views, &ct);
			unit.samples = tree_node(&ct, TREE_ROOT)->total.u;
			tree_free(&ct);
		} else
			unit.samples = 0;       /* not known */
	}
	if (rc == 0 && say_all_hidden(&set, &t, shown, &msgs))
		rc = 1;
	if (t.saturated)
		load_messages_add(&msgs, "tflame: sample totals exceed %" PRIu64 " and were clamped", UINT64_MAX);
	if (t.rounded)
		load_messages_add(&msgs, "tflame: %" PRIu64 " count%s rounded to %u decimal%s",
		                  t.rounded, t.rounded == 1 ? "" : "s", t.decimals, t.decimals == 1 ? "" : "s");
	if (set.stats)
		fprintf(stderr, "nodes %zu names %zu bytes %zu name_bytes %zu stacks %" PRIu64
		        " load_s %.3f finalize_s %.3f timed %" PRIu64 " timeline_bytes %zu\n",
		        tree_size(&t), strtab_count(&t.names), tree_bytes(&t), strtab_bytes(&t.names),
		        t.stacks, t1 - t0, t2 - t1, tl.n, timeline_bytes(&tl));

	if (rc != 0 || set.mode != MODE_UI) {
		if (live)
			ui_live_abort(live);
		static char outbuf[1 << 16];
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
		if (rc == 0 && set.mode == MODE_COLLAPSE) {
			/* On a terminal, names in display form (an OSC 52 in a name
			 * would write the clipboard); files and pipes get the exact
			 * bytes. */
			FILE *tty = isatty(STDOUT_FILENO) ? text_sanitizing_stream(stdout) : NULL;
			if (tree_write_folded(shown, tty ? tty : stdout) != 0)
				rc = 1;
			if (tty && fclose(tty) != 0)
				rc = 1;
		}
		if (rc == 0 && set.mode == MODE_PRINT) {
			/* The search runs on the tree shown (after the transforms). */
			struct search *s = set.search_re ? search_new(shown, set.search_re, NULL, 0) : NULL;
			if (s) {
				double s0 = seconds();
				search_run(s, 0);
				if (search_costly(s))
					load_messages_add(&msgs, "tflame: --search: the pattern was too costly on %zu "
					                  "name%s (counted as no match)", search_costly(s),
					                  search_costly(s) == 1 ? "" : "s");
				if (set.stats)
					fprintf(stderr, "search_ms %.2f names %zu nodes %zu matches %zu\n",
					        (seconds() - s0) * 1e3, strtab_count(&shown->names),
					        tree_size(shown), search_count(s));
			}
			if (set.view == VIEW_HEATMAP) {
				/* 25 rows: 40 ms each in 1 s columns; a column a cell */
				struct heatmap hm;
				int w = set.width ? set.width : default_width();
				heatmap_build(&hm, &tl, chosen, range_t0, range_t1, w > 20 ? (uint32_t)w - 10 : 10, 25);
				rc = heatmap_print(&hm, stdout) ? 1 : 0;
				heatmap_free(&hm);
			} else {
				rc = print_view(&set, &views, s, &unit, &msgs);
			}
			search_free(s);
		}
		if (rc == 0 && set.mode == MODE_SVG) {
			struct svg_options so;
			struct diff d;
			svg_options_init(&so);
			if (set.width)
				so.width = set.width;
			so.orient = set.orient;
			if (set.min_width_set)
				so.min_width = set.min_width;
			so.pal = set.pal;
			so.rules = set.rules;
			so.title = recorded ? rec.title : nfiles == 1 && strcmp(files[0], "-") ? files[0] : "Flame Graph";
			so.count_name = unit.event[0] ? unit.event : "samples";
			so.unit = &unit;
			if (set.diff) {
				diff_compute(&d, shown, transform_stack_tree2(&views), set.normalize, set.negate);
				so.diff = &d;
			}
			const char *path = set.svg_path && strcmp(set.svg_path, "-") ? set.svg_path : NULL;
			char safe[512];
			if (path)
				text_sanitize(path, strlen(path), safe, sizeof safe);
			FILE *f = path ? fopen(path, "w") : stdout;
			if (!f) {
				load_messages_add(&msgs, "tflame: %s: %s", safe, strerror(errno));
				rc = 1;
			} else if (f != stdout) {
				/* stdout's write errors are reported below */
				int wrc = svg_write(shown, &so, f);
				if (fclose(f) != 0 || wrc != 0) {
					load_messages_add(&msgs, "tflame: %s: write error: %s", safe, strerror(errno));
					rc = 1;
				}
			} else if (svg_write(shown, &so, f) != 0) {
				rc = 1;
			}
			if (set.diff)
				diff_free(&d);
		}
		if (fflush(stdout) != 0 && rc == 0)
			rc = 1;
		/* A closed pipe (| head, SIGPIPE ignored) is the reader's choice. */
		if (rc != 0 && ferror(stdout) && errno != EPIPE)
			load_messages_add(&msgs, "tflame: write error: %s", strerror(errno));
		if (msgs.len)
			fputs(msgs.text, stderr);
	} else {
		uo.views = &views;
		uo.notice = msgs.len ? msgs.text : NULL;
		uo.unit = &unit;
		uo.timeline = !set.diff && tl.n ? &tl : NULL;
		uo.timeline_tree = (set.time_range || set.nonly) ? &full : &t;
		uo.dsos = set.lo.dsos;
		uo.dso_names = (set.time_range || set.nonly) ? &full.names : &t.names;
		uo.threads = chosen;
		uo.range_t0 = range_t0;
		uo.range_t1 = range_t1;
		if (!live)      /* else set before its thread started */
			search_set_threads(set.lo.threads);
		if (set.bench_keys || set.script) {
			/* headless: the size of the terminal there is (the bench's
			 * pty), else 80x24 for a script, until it says size= */
			struct winsize ws;
			int fd = open("/dev/tty", O_RDONLY | O_NOCTTY);
			int cols = 80, lines = 24;
			if (fd >= 0 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0 &&
			    set.bench_keys) {
				cols = ws.ws_col;
				lines = ws.ws_row;
			}
			if (fd >= 0)
				close(fd);
			rc = script_run(shown, &uo, set.bench_keys ? set.bench_keys : set.script, cols, lines, stdout,
			                set.bench_keys != NULL);
		} else if (live) {
			rc = ui_live_finish(live, shown, &uo);
		} else {
			rc = ui_run(shown, &uo);
		}
		if (msgs.len)
			fputs(msgs.text, stderr);
	}
	load_live_free(lv);
	load_messages_free(&msgs);
	transform_stack_free(&views);
	tree_free(&before);
	palette_rules_free(set.rules);
	tree_free(&t);
	tree_free(&full);
	timeline_free(&tl);
	dsomap_free(&dsos);
	free(chosen);
	free(config_text);
	return rc;
}
