/* tflame: command line parsing and wiring; the work happens in the modules. */
#include "config.h"

#include <errno.h>
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
#include <time.h>
#include <unistd.h>
#include "keymap.h"
#include "load.h"
#include "palette.h"
#include "printer.h"
#include "search.h"
#include "sniff.h"
#include "text.h"
#include "tree.h"
#include "diff.h"
#include "toptable.h"
#include "transform.h"
#include "ui.h"
#include "views.h"

enum mode { MODE_UI, MODE_PRINT, MODE_COLLAPSE };
enum print_view { VIEW_FLAME, VIEW_TABLE, VIEW_SANDWICH };

enum {
	OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_EVENT_FILTER,
	OPT_SORT, OPT_MIN_WIDTH, OPT_STATS, OPT_LIST_KEYS, OPT_THREADS, OPT_BENCH_KEYS,
	OPT_REVERSE, OPT_FOCUS, OPT_HIDE, OPT_MERGE_RECURSION, OPT_VIEW, OPT_TOP, OPT_TABLE_SORT,
	OPT_DIFF, OPT_NEGATE, OPT_NORMALIZE,
	OPT_COLORS, OPT_COLOR_RULE, OPT_PALETTE_MAP, OPT_SEARCH
};

static const struct option long_options[] = {
	{ "collapse", no_argument, NULL, 'c' },
	{ "print", no_argument, NULL, 'p' },
	{ "width", required_argument, NULL, 'w' },
	{ "inverted", no_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'f' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "min-width", required_argument, NULL, OPT_MIN_WIDTH },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "color-rule", required_argument, NULL, OPT_COLOR_RULE },
	{ "palette-map", required_argument, NULL, OPT_PALETTE_MAP },
	{ "search", required_argument, NULL, OPT_SEARCH },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "merge-recursion", no_argument, NULL, OPT_MERGE_RECURSION },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "table-sort", required_argument, NULL, OPT_TABLE_SORT },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	/* undocumented, for tests and benchmarks */
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "list-keys", no_argument, NULL, OPT_LIST_KEYS },
	{ "bench-keys", required_argument, NULL, OPT_BENCH_KEYS },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *out)
{
	fputs(
"Usage: tflame [OPTION]... [FILE]...\n"
"Browse a flame graph of FILE(s) in the terminal. FILE is folded stacks\n"
"(\"main;parse;lex 42\" per line) or raw `perf script` output; several files\n"
"are merged. With no FILE, or when FILE is -, read standard input (keys then\n"
"come from the terminal).\n"
"\n"
"Output modes:\n"
"  -c, --collapse          write the merged stacks as folded text and exit\n"
"  -p, --print             draw the flame graph as plain text and exit\n"
"  -w, --width=N           columns for --print (default: the terminal's width,\n"
"                          else $COLUMNS, else 100)\n"
"\n"
"View:\n"
"  -i, --inverted          icicle graph: root at the top\n"
"      --sort=ORDER        sibling order: name (default), weight, or input\n"
"                          (a flame chart: input order, only adjacent frames merge)\n"
"      --min-width=N       hide frames narrower than N columns (default 1)\n"
"      --search=REGEX      start with a search (POSIX extended regex, case-\n"
"                          insensitive unless REGEX has upper case); --print\n"
"                          closes matching frames with * and adds a match line\n"
"      --view=VIEW         flame (default); table: one row per function; or\n"
"                          sandwich[=NAME]: callers and callees of NAME\n"
"                          (default: the function with most self samples)\n"
"      --table-sort=KEY    table rows by self (default), total or name\n"
"      --top=N             table: only the first N rows (--print)\n"
"\n"
"Transforms (applied in the order given; undo with Backspace in the browser):\n"
"      --reverse           stacks read leaf to root (hottest leaves at the root)\n"
"      --focus=NAME        merge every call of NAME into one root frame\n"
"      --hide=REGEX        hide frames matching REGEX; their children move up\n"
"      --merge-recursion   merge direct recursion (f;f;g becomes f;g)\n"
"\n"
"Differential:\n"
"      --diff              compare: FILE... is BEFORE AFTER, or one difffolded\n"
"                          file (\"stack BEFORE AFTER\" lines); widths from AFTER,\n"
"                          red grew, blue shrank\n"
"      --negate            swap the red and blue of --diff\n"
"      --normalize         scale BEFORE to AFTER's total sample count\n"
"\n"
"Colours:\n"
"      --colors=PALETTE    hot (default), mem, io, wakeup, chain, java, js,\n"
"                          perl, python, rust, red, green, blue, aqua, yellow,\n"
"                          purple or orange (flamegraph.pl's palettes)\n"
"      --color-rule=REGEX=COLOR  frames whose name matches REGEX get COLOR: a\n"
"                          hue (red, green, blue, aqua, yellow, purple, orange,\n"
"                          grey, hot, mem, io) or #rrggbb; repeatable, first wins\n"
"      --palette-map=FILE  exact colours per name, NAME->rgb(R,G,B) lines as\n"
"                          flamegraph.pl --cp writes palette.map\n"
"\n"
"Input:\n"
"  -f, --format=FORMAT     auto (default), folded or perf\n"
"      --pid               perf: root frames are comm-PID\n"
"      --tid               perf: root frames are comm-PID/TID\n"
"      --kernel            perf: annotate kernel frames with _[k]\n"
"      --jit               perf: annotate JIT frames with _[j]\n"
"      --all               perf: --kernel and --jit\n"
"      --addrs             perf: show addresses of unresolved frames\n"
"      --event-filter=EVENT  perf: keep only EVENT (default: the first seen)\n"
"      --threads=N         parse big files on N threads (default: all CPUs)\n"
"\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"Keys: press ? in the browser.\n"
"Exit status: 0 ok, 1 error, 2 usage error, 128+N when ended by signal N.\n"
"Examples:\n"
"  tflame profile.folded\n"
"  perf record -g ./prog && perf script | tflame\n"
"  tflame --collapse perf.txt > profile.folded\n"
"  tflame --print --view=table --top=10 profile.folded\n"
"  tflame --diff before.folded after.folded\n", out);
}

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

static int parse_int(const char *s, const char *opt, int min)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 100000)
		usage_error("invalid value for %s: '%s'", opt, s);
	return (int)v;
}

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
static int print_view(const struct transform_stack *views, enum print_view view, const char *sandwich,
                      enum toptable_key table_sort, size_t top, bool diff, bool normalize,
                      int width, enum layout_orient orient, int min_width,
                      enum tree_order order, const struct search *search,
                      struct load_messages *msgs)
{
	const struct tree *t = transform_stack_tree(views);
	struct printer_options po = { .width = width, .orient = orient, .zoom = TREE_ROOT,
	                              .min_width = min_width, .search = search };
	if (view == VIEW_TABLE) {
		struct toptable tt;
		toptable_compute(&tt, t, TREE_ROOT, table_sort);
		int rc = toptable_write(&tt, top, stdout);
		toptable_free(&tt);
		return rc ? 1 : 0;
	}
	if (view == VIEW_SANDWICH) {
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
		int rc = views_print_sandwich(t, sandwich, len, order, &po, stdout, err, sizeof err);
		if (rc == 1)
			load_messages_add(msgs, "tflame: %s", err);
		return rc ? 1 : 0;
	}
	if (diff) {
		struct diff d;
		char line[256];
		diff_compute(&d, t, transform_stack_tree2(views), normalize, false);
		diff_describe(&d, t, TREE_ROOT, line, sizeof line);
		diff_free(&d);
		if (printf("diff: %s\n", line) < 0)
			return 1;
	}
	return printer_print(t, &po, stdout) != 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	enum mode mode = MODE_UI;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct load_options lo = { .format = SNIFF_UNKNOWN, .progress = true,
	                           .threads = ncpu > 1 ? (int)(ncpu > 16 ? 16 : ncpu) : 1 };
	enum tree_order order = TREE_ORDER_NAME;
	enum layout_orient orient = LAYOUT_FLAME;
	int width = 0, min_width = 1;
	bool stats = false, diff = false, negate = false, normalize = false;
	const struct palette *pal = NULL;
	struct palette_rules *rules = NULL;
	char err[512];
	const char *search_re = NULL;
	const char *bench_keys = NULL;
	enum print_view view = VIEW_FLAME;
	const char *sandwich = NULL;
	enum toptable_key table_sort = TOPTABLE_SELF;
	int top = 0;
	/* Transforms in command-line order, applied after loading. Kept as
	 * argv pointers, so that no exit path has anything to free. */
	struct { enum transform_kind kind; const char *arg; } trs[64];
	size_t ntrs = 0;
	int c;

	argv[0] = (char *)"tflame";     /* getopt's messages: "tflame: ..." */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");     /* counts are written with '.' */
	text_init(utf8_locale());

	while ((c = getopt_long(argc, argv, "cpw:if:hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'c': mode = MODE_COLLAPSE; break;
		case 'p': mode = MODE_PRINT; break;
		case 'w': width = parse_int(optarg, "--width", 1); break;
		case 'i': orient = LAYOUT_ICICLE; break;
		case 'f':
			if (strcmp(optarg, "auto") == 0)
				lo.format = SNIFF_UNKNOWN;
			else if (!sniff_parse_name(optarg, &lo.format))
				usage_error("invalid --format '%s' (auto, folded, perf)", optarg);
			break;
		case OPT_SORT:
			if (strcmp(optarg, "name") == 0)
				order = TREE_ORDER_NAME;
			else if (strcmp(optarg, "weight") == 0)
				order = TREE_ORDER_WEIGHT;
			else if (strcmp(optarg, "input") == 0)
				order = TREE_ORDER_INPUT;
			else
				usage_error("invalid --sort '%s' (name, weight, input)", optarg);
			break;
		case OPT_MIN_WIDTH: min_width = parse_int(optarg, "--min-width", 1); break;
		case OPT_COLORS:
			if (!(pal = palette_find(optarg))) {
				char names[256], safe[64];
				text_sanitize(optarg, strlen(optarg), safe, sizeof safe);
				usage_error("invalid --colors '%s' (%s)", safe, palette_names(names, sizeof names));
			}
			break;
		case OPT_COLOR_RULE:
			if (!rules)
				rules = palette_rules_new();
			if (palette_rules_add(rules, optarg, err, sizeof err) != 0)
				usage_error("%s", err);
			break;
		case OPT_PALETTE_MAP:
			if (!rules)
				rules = palette_rules_new();
			if (palette_rules_load_map(rules, optarg, err, sizeof err) != 0) {
				fprintf(stderr, "tflame: %s\n", err);
				palette_rules_free(rules);
				return 2;
			}
			break;
		case OPT_SEARCH: search_re = optarg; break;
		case OPT_PID: lo.perf.pid = true; break;
		case OPT_TID: lo.perf.tid = true; break;
		case OPT_KERNEL: lo.perf.kernel = true; break;
		case OPT_JIT: lo.perf.jit = true; break;
		case OPT_ALL: lo.perf.kernel = lo.perf.jit = true; break;
		case OPT_ADDRS: lo.perf.addrs = true; break;
		case OPT_EVENT_FILTER: lo.perf.event_filter = optarg; break;
		case OPT_THREADS:
			lo.threads = parse_int(optarg, "--threads", 1);
			lo.threads_forced = true;
			break;
		case OPT_REVERSE:
		case OPT_FOCUS:
		case OPT_HIDE:
		case OPT_MERGE_RECURSION: {
			enum transform_kind k = c == OPT_REVERSE ? TRANSFORM_REVERSE
			                      : c == OPT_FOCUS ? TRANSFORM_FOCUS
			                      : c == OPT_HIDE ? TRANSFORM_HIDE : TRANSFORM_MERGE_RECURSION;
			if (ntrs == sizeof trs / sizeof trs[0])
				usage_error("more than %zu transforms", sizeof trs / sizeof trs[0]);
			trs[ntrs].kind = k;
			trs[ntrs++].arg = c == OPT_FOCUS || c == OPT_HIDE ? optarg : NULL;
			break;
		}
		case OPT_VIEW:
			if (strcmp(optarg, "flame") == 0)
				view = VIEW_FLAME;
			else if (strcmp(optarg, "table") == 0)
				view = VIEW_TABLE;
			else if (strcmp(optarg, "sandwich") == 0)
				view = VIEW_SANDWICH, sandwich = NULL;
			else if (strncmp(optarg, "sandwich=", 9) == 0)
				view = VIEW_SANDWICH, sandwich = optarg + 9;
			else
				usage_error("invalid --view '%s' (flame, table, sandwich[=NAME])", optarg);
			break;
		case OPT_TABLE_SORT:
			if (strcmp(optarg, "self") == 0)
				table_sort = TOPTABLE_SELF;
			else if (strcmp(optarg, "total") == 0)
				table_sort = TOPTABLE_TOTAL;
			else if (strcmp(optarg, "name") == 0)
				table_sort = TOPTABLE_NAME;
			else
				usage_error("invalid --table-sort '%s' (self, total, name)", optarg);
			break;
		case OPT_TOP: top = parse_int(optarg, "--top", 1); break;
		case OPT_DIFF: diff = true; break;
		case OPT_NEGATE: negate = true; break;
		case OPT_NORMALIZE: normalize = true; break;
		case OPT_STATS: stats = true; break;
		case OPT_BENCH_KEYS: bench_keys = optarg; break;
		case OPT_LIST_KEYS: keymap_write_help(stdout); return 0;
		case 'h': usage(stdout); return 0;
		case 'V': printf("tflame %s\n", PACKAGE_VERSION); return 0;
		default:
			fputs("Try 'tflame --help' for more information.\n", stderr);
			return 2;
		}
	}

	if (search_re) {
		/* Checked before loading: a typo should not wait for a big file. */
		struct tree empty;
		tree_init(&empty);
		tree_finalize(&empty, TREE_ORDER_NAME);
		struct search *s = search_new(&empty, search_re, err, sizeof err);
		if (!s)
			usage_error("invalid --search regex: %s", err);
		search_free(s);
		tree_free(&empty);
	}

	char *stdin_only[] = { (char *)"-" };
	char **files = argv + optind;
	size_t nfiles = (size_t)(argc - optind);
	if (nfiles == 0) {
		if (isatty(STDIN_FILENO)) {
			fputs("tflame: no input: give a profile file, or pipe one in "
			      "(perf script | tflame)\nTry 'tflame --help' for more information.\n", stderr);
			return 2;
		}
		files = stdin_only;
		nfiles = 1;
	}

	if (diff && nfiles > 2)
		usage_error("--diff takes BEFORE AFTER, or one difffolded file");
	if ((negate || normalize) && !diff)
		usage_error("--%s needs --diff", negate ? "negate" : "normalize");

	/* --diff: t is AFTER (the widths), before is BEFORE. */
	struct tree t, before;
	struct load_messages msgs = { 0 };
	tree_init(&t);
	tree_init(&before);
	if (order == TREE_ORDER_INPUT && mode != MODE_COLLAPSE) {
		/* A flame chart keeps time order: only adjacent frames merge, so
		 * the input is read in one pass. --collapse merges by stack. */
		t.chart = before.chart = true;
		lo.threads = 1;
	}
	double t0 = seconds();
	int rc;
	if (diff && nfiles == 2) {
		rc = load_files(&before, files, 1, &lo, &msgs);
		rc |= load_files(&t, files + 1, 1, &lo, &msgs);
	} else {
		if (diff)
			lo.before = &before;    /* one difffolded file */
		rc = load_files(&t, files, nfiles, &lo, &msgs);
	}
	double t1 = seconds();
	tree_finalize(&t, order);
	tree_finalize(&before, order);
	double t2 = seconds();
	/* An empty graph says little by itself (--collapse: empty output). */
	if (rc == 0 && mode != MODE_COLLAPSE && tree_total_d(&t, TREE_ROOT) == 0)
		load_messages_add(&msgs, "tflame: no samples in the input");

	struct transform_stack views;
	transform_stack_init(&views, &t, diff ? &before : NULL, order);
	for (size_t k = 0; k < ntrs && rc == 0; k++) {
		char why[256];
		const char *arg = trs[k].arg;
		struct transform tr = transform_make(trs[k].kind, arg, arg ? strlen(arg) : 0);
		if (!transform_stack_push(&views, &tr, why, sizeof why)) {
			char safe[300];
			text_sanitize(why, strlen(why), safe, sizeof safe);
			load_messages_add(&msgs, "tflame: %s", safe);
			rc = 1;
		}
	}
	const struct tree *shown = transform_stack_tree(&views);
	if (t.saturated)
		load_messages_add(&msgs, "tflame: sample totals exceed %" PRIu64 " and were clamped", UINT64_MAX);
	if (stats)
		fprintf(stderr, "nodes %zu names %zu bytes %zu name_bytes %zu stacks %" PRIu64
		        " load_s %.3f finalize_s %.3f\n",
		        tree_size(&t), strtab_count(&t.names), tree_bytes(&t), strtab_bytes(&t.names),
		        t.stacks, t1 - t0, t2 - t1);

	if (rc != 0 || mode != MODE_UI) {
		static char outbuf[1 << 16];
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
		if (rc == 0 && mode == MODE_COLLAPSE && tree_write_folded(shown, stdout) != 0)
			rc = 1;
		if (rc == 0 && mode == MODE_PRINT) {
			/* The search runs on the tree shown (after the transforms). */
			struct search *s = search_re ? search_new(shown, search_re, NULL, 0) : NULL;
			if (s) {
				double s0 = seconds();
				search_run(s, 0);
				if (stats)
					fprintf(stderr, "search_ms %.2f names %zu nodes %zu matches %zu\n",
					        (seconds() - s0) * 1e3, strtab_count(&shown->names),
					        tree_size(shown), search_count(s));
			}
			rc = print_view(&views, view, sandwich, table_sort, (size_t)top, diff, normalize,
			                width ? width : default_width(), orient, min_width, order, s, &msgs);
			search_free(s);
		}
		if (fflush(stdout) != 0 && rc == 0)
			rc = 1;
		/* A closed pipe (| head, SIGPIPE ignored) is the reader's choice. */
		if (rc != 0 && ferror(stdout) && errno != EPIPE)
			load_messages_add(&msgs, "tflame: write error: %s", strerror(errno));
		if (msgs.len)
			fputs(msgs.text, stderr);
	} else {
		struct ui_options uo = {
			.orient = orient, .min_width = min_width,
			.views = &views, .diff = diff, .negate = negate, .normalize = normalize,
			.table = view == VIEW_TABLE, .table_sort = table_sort,
			.sandwich = view == VIEW_SANDWICH, .sandwich_name = sandwich,
			.title = nfiles == 1 ? files[0] : "(several files)",
			.notice = msgs.len ? msgs.text : NULL,
			.palette = pal, .rules = rules,
			.bench_keys = bench_keys,
			.search = search_re, .stats = stats,
		};
		rc = ui_run(shown, &uo);
		if (msgs.len)
			fputs(msgs.text, stderr);
	}
	load_messages_free(&msgs);
	transform_stack_free(&views);
	tree_free(&before);
	palette_rules_free(rules);
	tree_free(&t);
	return rc;
}
