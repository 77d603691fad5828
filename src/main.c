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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "conf.h"
#include "keymap.h"
#include "load.h"
#include "palette.h"
#include "printer.h"
#include "svg.h"
#include "record.h"
#include "search.h"
#include "sniff.h"
#include "text.h"
#include "tree.h"
#include "unit.h"
#include "diff.h"
#include "heatmap.h"
#include "timeline.h"
#include "toptable.h"
#include "transform.h"
#include "ui.h"
#include "views.h"
#include "xalloc.h"

enum mode { MODE_UI, MODE_PRINT, MODE_COLLAPSE, MODE_SVG };
enum print_view { VIEW_FLAME, VIEW_TABLE, VIEW_SANDWICH, VIEW_HEATMAP };

enum {
	OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_EVENT_FILTER,
	OPT_SORT, OPT_MIN_WIDTH, OPT_STATS, OPT_LIST_KEYS, OPT_THREADS,
	OPT_CONFIG, OPT_NO_CONFIG, OPT_LIST_OPTIONS, OPT_BENCH_KEYS,
	OPT_REVERSE, OPT_FOCUS, OPT_HIDE, OPT_MERGE_RECURSION, OPT_VIEW, OPT_TOP, OPT_TABLE_SORT,
	OPT_DIFF, OPT_NEGATE, OPT_NORMALIZE,
	OPT_COLORS, OPT_COLOR_RULE, OPT_PALETTE_MAP, OPT_SEARCH, OPT_SYMFS, OPT_SVG,
	OPT_SAMPLE_TYPE, OPT_LABEL_ROOT, OPT_PROFILE, OPT_TIME, OPT_ONLY_PID, OPT_ONLY_TID,
	OPT_ONLY_COMM
};

/* The one option table: getopt reads the command line with it, and a config
 * file entry "NAME = VALUE" is looked up in it and goes through the same
 * apply_option() code. A new option here is settable from the config file
 * with no more work, unless it is listed in cli_only below. */

static const struct option long_options[] = {
	{ "collapse", no_argument, NULL, 'c' },
	{ "print", no_argument, NULL, 'p' },
	{ "svg", optional_argument, NULL, OPT_SVG },
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
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "sample-type", required_argument, NULL, OPT_SAMPLE_TYPE },
	{ "label-root", required_argument, NULL, OPT_LABEL_ROOT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "merge-recursion", no_argument, NULL, OPT_MERGE_RECURSION },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "only-pid", required_argument, NULL, OPT_ONLY_PID },
	{ "only-tid", required_argument, NULL, OPT_ONLY_TID },
	{ "only-comm", required_argument, NULL, OPT_ONLY_COMM },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "table-sort", required_argument, NULL, OPT_TABLE_SORT },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	/* undocumented, for tests and benchmarks */
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "list-keys", no_argument, NULL, OPT_LIST_KEYS },
	{ "list-options", no_argument, NULL, OPT_LIST_OPTIONS },
	{ "bench-keys", required_argument, NULL, OPT_BENCH_KEYS },
	{ NULL, 0, NULL, 0 }
};

/* Options a config file may not set: actions, output modes (a config that
 * turned every run into --print would be a trap), and the config itself. */
static const char *const cli_only[] = {
	"collapse", "print", "svg", "config", "no-config", "help", "version",
	"stats", "list-keys", "list-options", "bench-keys",
	/* --diff reads its files as BEFORE AFTER: a mode, as --print is;
	 * --negate and --normalize are refused without it. */
	"diff", "negate", "normalize",
	/* a time range and threads belong to one recording */
	"time", "only-pid", "only-tid", "only-comm",
};

/* Options whose value is one of a fixed set: named in error messages and
 * listed by --list-options, which the completion tests compare with the
 * completion scripts. */
static const char *palette_values(void);
static const struct {
	const char *option, *values;
	const char *(*list)(void);  /* when the set is known elsewhere */
} option_values[] = {
	{ "format", "auto folded perf perf-data pprof cpuprofile speedscope", NULL },
	{ "sort", "name weight input", NULL },
	{ "colors", NULL, palette_values },
	{ "table-sort", "self total name", NULL },
};

static void usage(FILE *out)
{
	fputs(
"Usage: tflame [OPTION]... [FILE]...\n"
"       tflame record [RECORD OPTION]... [--] COMMAND [ARG]...\n"
"Browse a flame graph of FILE(s) in the terminal. FILE is perf.data (as perf\n"
"record writes it, also streamed: perf record -o - | tflame), raw `perf script`\n"
"output or folded stacks (\"main;parse;lex 42\" per line); several files are\n"
"merged; gzip, xz and zstd compression is undone on the fly. When FILE is -,\n"
"or with no FILE and standard input not a terminal, read standard input (keys\n"
"then come from the terminal); with no FILE on a terminal, read ./perf.data.\n"
"`tflame record` runs perf record on COMMAND and opens the result (tflame\n"
"record --help).\n"
"\n"
"Output modes:\n"
"  -c, --collapse          write the merged stacks as folded text and exit\n"
"  -p, --print             draw the flame graph as plain text and exit\n"
"      --svg[=FILE]        write an interactive SVG flame graph (click to zoom,\n"
"                          Ctrl-F to search) to FILE, or stdout, and exit\n"
"  -w, --width=N           columns for --print (default: the terminal's width,\n"
"                          else $COLUMNS, else 100); pixels for --svg (1200)\n"
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
"                          (default: the function with most self samples);\n"
"                          heatmap (--print): samples by second and offset in it\n"
"      --table-sort=KEY    table rows by self (default), total or name\n"
"      --top=N             table: only the first N rows (--print)\n"
"      --time=START,END    only the samples from START to END seconds after the\n"
"                          first (END excluded; either may be empty), or N%,M%\n"
"                          of the recording, or P%/N (its N-th P% slice):\n"
"                          perf script, perf.data and .cpuprofile have times\n"
"      --only-pid=PID      only the samples of process PID (repeatable; perf script\n"
"                          shows PIDs with -F+pid)\n"
"      --only-tid=TID      only the samples of thread TID (repeatable)\n"
"      --only-comm=NAME    only the samples of threads named NAME (repeatable; a\n"
"                          sample must match one of each kind given)\n"
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
"  -f, --format=FORMAT     auto (default), folded, perf (perf script text),\n"
"                          perf-data, pprof, cpuprofile (V8, Chrome trace) or\n"
"                          speedscope\n"
"      --pid               perf: root frames are comm-PID\n"
"      --tid               perf: root frames are comm-PID/TID\n"
"      --kernel            perf: annotate kernel frames with _[k]\n"
"      --jit               perf: annotate JIT frames with _[j]\n"
"      --all               perf: --kernel and --jit\n"
"      --addrs             perf: show addresses of unresolved frames\n"
"      --event-filter=EVENT  perf: keep only EVENT (default: the first seen)\n"
"      --symfs=DIR         perf.data: look for the recorded programs and\n"
"                          libraries under DIR (a copy of the recording machine)\n"
"      --sample-type=TYPE  pprof: weigh by TYPE (cpu, alloc_space, inuse_space...\n"
"                          or its index; default: the profile's default, else\n"
"                          its last)\n"
"      --label-root=KEY    pprof: one root frame KEY=VALUE per value of label KEY\n"
"      --profile=NAME|N    speedscope: only the profile named NAME, or the N-th\n"
"                          (from 1); default: all, one root frame each\n"
"      --threads=N         parse big files and search on N threads (default: all CPUs)\n"
"\n"
"Configuration:\n"
"      --config=FILE       read option defaults from FILE (default:\n"
"                          $XDG_CONFIG_HOME/tflame/config, or $TFLAME_CONFIG)\n"
"      --no-config         read no config file\n"
"\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"Keys: press ? in the browser.\n"
"Exit status: 0 ok, 1 error, 2 usage error, 128+N when ended by signal N.\n"
"Examples:\n"
"  perf record -g ./prog && tflame perf.data\n"
"  tflame record -F 999 -- ./prog\n"
"  tflame profile.folded\n"
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

/* Everything the options decide. */
struct settings {
	enum mode mode;
	struct load_options lo;
	enum tree_order order;
	enum layout_orient orient;
	int width, min_width;
	bool min_width_set;         /* --svg: pixels given, else 0.1 */
	const char *svg_path;       /* --svg=FILE; NULL: stdout */
	bool stats;
	const char *bench_keys;     /* hidden --bench-keys (bench/run.sh) */
	const char *search_re;      /* --search, checked when given */
	const struct palette *pal;  /* NULL: the UI's default */
	struct palette_rules *rules;        /* --color-rule, --palette-map; NULL when none */
	bool diff, negate, normalize;
	enum print_view view;
	const char *sandwich;       /* --view=sandwich=NAME, else NULL */
	enum toptable_key table_sort;
	int top;
	const char *time_range;     /* --time, checked once the times are known */
	/* --only-pid, --only-tid, --only-comm (each repeatable): a sample's
	 * thread must match one of each kind given */
	struct { int kind; const char *arg; } only[64];
	size_t nonly;
	/* Transforms in order (config file first), applied after loading. Kept
	 * as pointers into argv or the config text, so that no exit path has
	 * anything to free. */
	struct { enum transform_kind kind; const char *arg; } trs[64];
	size_t ntrs;
};

__attribute__((format(printf, 3, 4)))
static bool fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return false;
}

/* The palette names, "hot mem io ...", from palette.c's list. */
static const char *palette_values(void)
{
	static char words[512];
	if (!words[0]) {
		char names[512];
		size_t n = 0;
		palette_names(names, sizeof names);
		for (const char *p = names; *p && n + 1 < sizeof words; p++)
			if (*p != ',')
				words[n++] = *p;
		words[n] = '\0';
	}
	return words;
}

static const char *values_of(const char *option)
{
	for (size_t i = 0; i < sizeof option_values / sizeof option_values[0]; i++)
		if (strcmp(option_values[i].option, option) == 0)
			return option_values[i].list ? option_values[i].list() : option_values[i].values;
	return NULL;
}

static bool bad_value(char *err, size_t size, const char *opt, const char *arg)
{
	char safe[64];
	text_sanitize(arg, strlen(arg), safe, sizeof safe);
	const char *v = values_of(opt);
	if (v)
		return fail(err, size, "invalid value for --%s: '%s' (one of: %s)", opt, safe, v);
	return fail(err, size, "invalid value for --%s: '%s'", opt, safe);
}

/* A pid or tid: 0 to 2^31 - 1. */
static bool parse_id(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT32_MAX || !(*s >= '0' && *s <= '9'))
		return false;
	*out = (int)v;
	return true;
}

static bool parse_int(const char *s, int min, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 100000)
		return false;
	*out = (int)v;
	return true;
}

/* Applies option c (getopt's code) with argument arg (NULL when it takes
 * none) to s; the command line and the config file both come through here.
 * Returns false with a message in err for a bad value; *file_error is then
 * set when the fault is in a file the option names (no --help hint). Options
 * that act at once (--help) are handled by the caller. */
static bool apply_option(struct settings *s, int c, const char *arg, char *err, size_t errsize,
                         bool *file_error)
{
	switch (c) {
	case 'c': s->mode = MODE_COLLAPSE; break;
	case 'p': s->mode = MODE_PRINT; break;
	case OPT_SVG: s->mode = MODE_SVG; s->svg_path = arg; break;
	case 'w':
		if (!parse_int(arg, 1, &s->width))
			return bad_value(err, errsize, "width", arg);
		break;
	case 'i': s->orient = LAYOUT_ICICLE; break;
	case 'f':
		if (strcmp(arg, "auto") == 0)
			s->lo.format = SNIFF_UNKNOWN;
		else if (!sniff_parse_name(arg, &s->lo.format))
			return bad_value(err, errsize, "format", arg);
		break;
	case OPT_SORT:
		if (strcmp(arg, "name") == 0)
			s->order = TREE_ORDER_NAME;
		else if (strcmp(arg, "weight") == 0)
			s->order = TREE_ORDER_WEIGHT;
		else if (strcmp(arg, "input") == 0)
			s->order = TREE_ORDER_INPUT;
		else
			return bad_value(err, errsize, "sort", arg);
		break;
	case OPT_MIN_WIDTH:
		if (!parse_int(arg, 1, &s->min_width))
			return bad_value(err, errsize, "min-width", arg);
		s->min_width_set = true;
		break;
	case OPT_COLORS:
		if (!(s->pal = palette_find(arg))) {
			char names[256], safe[64];
			text_sanitize(arg, strlen(arg), safe, sizeof safe);
			return fail(err, errsize, "invalid --colors '%s' (%s)", safe, palette_names(names, sizeof names));
		}
		break;
	case OPT_COLOR_RULE:
		/* Repeatable: rules from the config file and the command line add up. */
		if (!s->rules)
			s->rules = palette_rules_new();
		if (palette_rules_add(s->rules, arg, err, errsize) != 0)
			return false;
		break;
	case OPT_PALETTE_MAP:
		if (!s->rules)
			s->rules = palette_rules_new();
		if (palette_rules_load_map(s->rules, arg, err, errsize) != 0) {
			*file_error = true;     /* about the map's contents, not usage */
			return false;
		}
		break;
	case OPT_SEARCH: {
		/* Checked at once: a typo should not wait for a big file to load. */
		char why[256];
		struct tree empty;
		tree_init(&empty);
		tree_finalize(&empty, TREE_ORDER_NAME);
		struct search *se = search_new(&empty, arg, why, sizeof why);
		bool valid = se != NULL;
		search_free(se);
		tree_free(&empty);
		if (!valid)
			return fail(err, errsize, "invalid --search regex: %s", why);
		s->search_re = arg;
		break;
	}
	case OPT_PID: s->lo.perf.pid = true; break;
	case OPT_TID: s->lo.perf.tid = true; break;
	case OPT_KERNEL: s->lo.perf.kernel = true; break;
	case OPT_JIT: s->lo.perf.jit = true; break;
	case OPT_ALL: s->lo.perf.kernel = s->lo.perf.jit = true; break;
	case OPT_ADDRS: s->lo.perf.addrs = true; break;
	case OPT_EVENT_FILTER: s->lo.perf.event_filter = arg; break;
	case OPT_SYMFS: s->lo.symfs = arg; break;
	case OPT_PROFILE: s->lo.profile = arg; break;
	case OPT_TIME: s->time_range = arg; break;
	case OPT_ONLY_PID:
	case OPT_ONLY_TID:
	case OPT_ONLY_COMM: {
		int v;
		if (c != OPT_ONLY_COMM && !parse_id(arg, &v)) {
			char safe[64];
			text_sanitize(arg, strlen(arg), safe, sizeof safe);
			return fail(err, errsize, "--%s needs a process or thread id, not '%s'",
			            c == OPT_ONLY_PID ? "only-pid" : "only-tid", safe);
		}
		if (s->nonly == sizeof s->only / sizeof s->only[0])
			return fail(err, errsize, "more than %zu --only options", sizeof s->only / sizeof s->only[0]);
		s->only[s->nonly].kind = c;
		s->only[s->nonly++].arg = arg;
		break;
	}
	case OPT_SAMPLE_TYPE: s->lo.sample_type = arg; break;
	case OPT_LABEL_ROOT: s->lo.label_root = arg; break;
	case OPT_THREADS:
		if (!parse_int(arg, 1, &s->lo.threads))
			return bad_value(err, errsize, "threads", arg);
		s->lo.threads_forced = true;
		break;
	case OPT_REVERSE:
	case OPT_FOCUS:
	case OPT_HIDE:
	case OPT_MERGE_RECURSION: {
		enum transform_kind k = c == OPT_REVERSE ? TRANSFORM_REVERSE
		                      : c == OPT_FOCUS ? TRANSFORM_FOCUS
		                      : c == OPT_HIDE ? TRANSFORM_HIDE : TRANSFORM_MERGE_RECURSION;
		if (s->ntrs == sizeof s->trs / sizeof s->trs[0])
			return fail(err, errsize, "more than %zu transforms", sizeof s->trs / sizeof s->trs[0]);
		char why[256];
		if (c == OPT_HIDE && !transform_hide_valid(arg, why, sizeof why)) {
			/* Checked at once, as --search: config errors say FILE:LINE. */
			char safe[64];
			text_sanitize(arg, strlen(arg), safe, sizeof safe);
			return fail(err, errsize, "--hide: invalid regex '%s': %s", safe, why);
		}
		s->trs[s->ntrs].kind = k;
		s->trs[s->ntrs++].arg = c == OPT_FOCUS || c == OPT_HIDE ? arg : NULL;
		break;
	}
	case OPT_VIEW:
		if (strcmp(arg, "flame") == 0)
			s->view = VIEW_FLAME;
		else if (strcmp(arg, "table") == 0)
			s->view = VIEW_TABLE;
		else if (strcmp(arg, "sandwich") == 0)
			s->view = VIEW_SANDWICH, s->sandwich = NULL;
		else if (strncmp(arg, "sandwich=", 9) == 0)
			s->view = VIEW_SANDWICH, s->sandwich = arg + 9;
		else if (strcmp(arg, "heatmap") == 0)
			s->view = VIEW_HEATMAP;
		else {
			char safe[64];
			text_sanitize(arg, strlen(arg), safe, sizeof safe);
			return fail(err, errsize, "invalid --view '%s' (flame, table, sandwich[=NAME], heatmap)", safe);
		}
		break;
	case OPT_TABLE_SORT:
		if (strcmp(arg, "self") == 0)
			s->table_sort = TOPTABLE_SELF;
		else if (strcmp(arg, "total") == 0)
			s->table_sort = TOPTABLE_TOTAL;
		else if (strcmp(arg, "name") == 0)
			s->table_sort = TOPTABLE_NAME;
		else
			return bad_value(err, errsize, "table-sort", arg);
		break;
	case OPT_TOP:
		if (!parse_int(arg, 1, &s->top))
			return bad_value(err, errsize, "top", arg);
		break;
	case OPT_DIFF: s->diff = true; break;
	case OPT_NEGATE: s->negate = true; break;
	case OPT_NORMALIZE: s->normalize = true; break;
	case OPT_STATS: s->stats = true; break;
	case OPT_BENCH_KEYS: s->bench_keys = arg; break;
	}
	return true;
}

static bool is_cli_only(const char *name)
{
	for (size_t i = 0; i < sizeof cli_only / sizeof cli_only[0]; i++)
		if (strcmp(cli_only[i], name) == 0)
			return true;
	return false;
}

/* --list-options (for the documentation tests): one line per option,
 * "NAME<TAB>ARG<TAB>VALUES<TAB>CONFIG": ARG is "value" or "flag", VALUES the
 * fixed set or "-", CONFIG "config" when a config file may set it, else "-". */
static void list_options(void)
{
	for (const struct option *o = long_options; o->name; o++) {
		const char *v = values_of(o->name);
		printf("%s\t%s\t%s\t%s\n", o->name,
		       o->has_arg == no_argument ? "flag" : o->has_arg == optional_argument ? "optional" : "value",
		       v ? v : "-", is_cli_only(o->name) ? "-" : "config");
	}
}

/* ---- the config file ---- */

static bool config_entry(void *ctx, const char *name, const char *value, char *err, size_t errsize)
{
	const struct option *o = long_options;
	while (o->name && strcmp(o->name, name) != 0)
		o++;
	if (!o->name)
		return fail(err, errsize, "unknown option '%s'", name);
	if (is_cli_only(name))
		return fail(err, errsize, "'%s' cannot be set in a config file", name);
	if (o->has_arg == no_argument) {
		bool on = true;
		if (value && !conf_bool(value, &on)) {
			char safe[64];
			text_sanitize(value, strlen(value), safe, sizeof safe);
			return fail(err, errsize, "'%s' is yes or no, not '%s'", name, safe);
		}
		/* "no" is the default the file started from: nothing to do. */
		bool file_error = false;
		return on ? apply_option(ctx, o->val, NULL, err, errsize, &file_error) : true;
	}
	if (!value)
		return fail(err, errsize, "'%s' needs a value: %s = VALUE", name, name);
	bool file_error = false;
	return apply_option(ctx, o->val, value, err, errsize, &file_error);
}

/* The config file's text: settings may point into it. Static, so that it
 * stays reachable (for leak checkers) on every exit path. */
static char *config_text;

/* Reads the config file into s. Returns the file's text (the settings may
 * point into it; free it at exit) or NULL. Exits 2 on an error in it, and
 * when a file the user named cannot be read. The usual file is optional:
 * missing, it is skipped; unreadable (a directory, a FIFO, a path too long),
 * one warning and the run goes on, --help and --version too. */
static char *load_config(struct settings *s, const char *path, bool explicit)
{
	size_t len;
	char why[128];
	char *text = conf_read_file(path, CONF_MAX_BYTES, &len, why, sizeof why);
	char safe[512];
	text_sanitize(path, strlen(path), safe, sizeof safe);
	if (!text) {
		if (errno == ENOENT && !explicit)
			return NULL;
		if (!explicit) {
			fprintf(stderr, "tflame: warning: %s: %s; config file skipped\n", safe, why);
			return NULL;
		}
		fprintf(stderr, "tflame: %s: %s\n", safe, errno == EFBIG ? "config file larger than 1 MB" : why);
		exit(2);
	}
	char err[512];
	size_t line = conf_parse(text, len, config_entry, s, err, sizeof err);
	if (line) {
		fprintf(stderr, "tflame: %s:%zu: %s\n", safe, line, err);
		exit(2);
	}
	return text;
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
                      const struct unit *unit, struct load_messages *msgs)
{
	const struct tree *t = transform_stack_tree(views);
	struct printer_options po = { .width = width, .orient = orient, .zoom = TREE_ROOT,
	                              .min_width = min_width, .search = search };
	char header[256];
	if (unit->event[0]) {
		/* "all: 4,621 samples · 1.16 s cpu-clock" */
		char total[200];
		unit_total(unit, tree_total_d(t, TREE_ROOT), utf8_locale() ? " \u00b7 " : " | ", total, sizeof total);
		snprintf(header, sizeof header, "all: %s", total);
		po.header = header;
	}
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

/* Whether thread th passes the --only options: one of each kind given. */
static bool thread_chosen(const struct settings *set, const struct timeline_thread *th)
{
	bool kind_seen[3] = { false, false, false }, kind_hit[3] = { false, false, false };
	for (size_t i = 0; i < set->nonly; i++) {
		int k = set->only[i].kind == OPT_ONLY_PID ? 0 : set->only[i].kind == OPT_ONLY_TID ? 1 : 2;
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
static int sample_filter(struct tree *t, const struct timeline *tl, const struct settings *set,
                         enum tree_order order, struct load_messages *msgs, uint64_t *t0,
                         uint64_t *t1, bool **threads)
{
	*threads = NULL;
	const char *what = set->time_range ? "--time" : "--only";
	if (tl->n == 0) {
		load_messages_add(msgs, "tflame: %s: the input has no sample times or threads (perf script, "
		                  "perf.data and .cpuprofile files have them)", what);
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
	struct tree sub;
	tree_init(&sub);
	timeline_tree(t, self, order, &sub);
	free(self);
	tree_free(t);
	*t = sub;
	if (kept == 0 && set->time_range) {
		char safe[64];
		text_sanitize(set->time_range, strlen(set->time_range), safe, sizeof safe);
		load_messages_add(msgs, "tflame: --time=%s: no samples in that range%s (the recording spans %.6f s)",
		                  safe, set->nonly ? " on the chosen threads" : "",
		                  (double)(tl->tmax - tl->tmin) / 1e9);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	/* Static: what it holds (rules, config values) stays reachable for
	 * leak checkers on the early exits of option errors. */
	static struct settings set;
	set = (struct settings){
		.mode = MODE_UI, .order = TREE_ORDER_NAME, .orient = LAYOUT_FLAME,
		.width = 0, .min_width = 1, .view = VIEW_FLAME, .table_sort = TOPTABLE_SELF,
		.lo = { .format = SNIFF_UNKNOWN, .progress = true,
		        .threads = ncpu > 1 ? (int)(ncpu > 16 ? 16 : ncpu) : 1 },
	};
	const char *const shortopts = "cpw:if:hV";
	char err[512];
	int c;

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

	/* First pass: only --config and --no-config, since the file is read
	 * before the command line so that the command line wins. Errors are
	 * left to the second pass. It runs on a copy of argv: getopt permutes
	 * what it reads, and after an error (a value missing at the end) that
	 * order would hand the second pass a different command line. */
	bool explicit = false, no_config = false;
	char *config_path = NULL;
	char **argv1 = xreallocarray(NULL, (size_t)argc + 1, sizeof *argv1);
	memcpy(argv1, argv, ((size_t)argc + 1) * sizeof *argv1);
	opterr = 0;
	optind = 0;     /* glibc: start over (tflame record parsed its own) */
	while ((c = getopt_long(argc, argv1, shortopts, long_options, NULL)) != -1) {
		if (c == OPT_CONFIG) {
			free(config_path);
			config_path = xstrdup(optarg);
			explicit = true;
			no_config = false;
		} else if (c == OPT_NO_CONFIG) {
			no_config = true;
		}
	}
	free(argv1);
	if (!config_path && !no_config)
		config_path = conf_path(&explicit);
	if (config_path && !no_config)
		config_text = load_config(&set, config_path, explicit);
	free(config_path);

	opterr = 1;
	optind = 0;     /* glibc: start over */
	while ((c = getopt_long(argc, argv, shortopts, long_options, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG: case OPT_NO_CONFIG: break;     /* done above */
		case OPT_LIST_KEYS: keymap_write_help(stdout); free(config_text); return 0;
		case OPT_LIST_OPTIONS: list_options(); free(config_text); return 0;
		case 'h': usage(stdout); free(config_text); return 0;
		case 'V': printf("tflame %s\n", PACKAGE_VERSION); free(config_text); return 0;
		case '?':
			fputs("Try 'tflame --help' for more information.\n", stderr);
			return 2;
		default: {
			bool file_error = false;
			if (apply_option(&set, c, optarg, err, sizeof err, &file_error))
				break;
			if (!file_error)
				usage_error("%s", err);
			fprintf(stderr, "tflame: %s\n", err);
			return 2;
		}
		}
	}
	enum mode mode = set.mode;
	struct load_options lo = set.lo;
	enum tree_order order = set.order;
	enum layout_orient orient = set.orient;
	int width = set.width, min_width = set.min_width;
	bool stats = set.stats;
	const char *bench_keys = set.bench_keys;
	const char *search_re = set.search_re;
	const struct palette *pal = set.pal;
	struct palette_rules *rules = set.rules;
	bool diff = set.diff, negate = set.negate, normalize = set.normalize;
	enum print_view view = set.view;
	const char *sandwich = set.sandwich;
	enum toptable_key table_sort = set.table_sort;
	int top = set.top;
	size_t ntrs = set.ntrs;

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
	if (mode == MODE_UI) {
		/* before a long load: a terminal that cannot draw the browser */
		const char *term = getenv("TERM");
		if (term && strcmp(term, "dumb") == 0) {
			fputs("tflame: the terminal (TERM=dumb) cannot move its cursor, which the browser "
			      "needs: use --print, --collapse or --svg\n", stderr);
			return 2;
		}
	}
	if (diff && nfiles > 2)
		usage_error("--diff takes BEFORE AFTER, or one difffolded file");
	if ((negate || normalize) && !diff)
		usage_error("--%s needs --diff", negate ? "negate" : "normalize");
	if ((set.time_range || set.nonly) && diff)
		usage_error("--%s does not apply to --diff", set.time_range ? "time" : "only-*");

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
	struct perfdata_info pinfo;
	struct pprof_info ppinfo;
	memset(&pinfo, 0, sizeof pinfo);
	memset(&ppinfo, 0, sizeof ppinfo);
	lo.perfdata_info = &pinfo;
	lo.pprof_info = &ppinfo;
	/* Each sample's time, thread and stack, when the input has them. */
	struct timeline tl;
	timeline_init(&tl);
	if (!diff)
		lo.timeline = &tl;
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
	if (recorded && rec.temporary)
		unlink(rec.path);
	/* perf.data says what its weights count */
	static struct unit unit;
	unit_set(&unit, nfiles == 1 && !diff ? pinfo.event : NULL, pinfo.samples);
	if (nfiles == 1 && !diff && ppinfo.type[0])
		unit_set_typed(&unit, ppinfo.type, ppinfo.unit, ppinfo.samples);
	tree_idx *renum;
	tree_finalize_map(&t, order, &renum);
	timeline_renumber(&tl, renum);
	free(renum);
	tree_finalize(&before, order);
	uint64_t range_t0 = 0, range_t1 = UINT64_MAX;
	bool *chosen = NULL;
	if ((set.time_range || set.nonly) && rc == 0)
		rc = sample_filter(&t, &tl, &set, order, &msgs, &range_t0, &range_t1, &chosen);
	if (view == VIEW_HEATMAP && mode != MODE_PRINT)
		usage_error("--view=heatmap is for --print (the browser's heat map is to come)");
	if (view == VIEW_HEATMAP && rc == 0 && tl.n == 0) {
		load_messages_add(&msgs, "tflame: --view=heatmap: the input has no sample times (perf "
		                  "script, perf.data and .cpuprofile files have them)");
		rc = 1;
	}
	double t2 = seconds();
	/* An empty graph says little by itself (--collapse: empty output). */
	if (rc == 0 && mode != MODE_COLLAPSE && tree_total_d(&t, TREE_ROOT) == 0)
		load_messages_add(&msgs, "tflame: no samples in the input");

	struct transform_stack views;
	transform_stack_init(&views, &t, diff ? &before : NULL, order);
	for (size_t k = 0; k < ntrs && rc == 0; k++) {
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
	if (t.saturated)
		load_messages_add(&msgs, "tflame: sample totals exceed %" PRIu64 " and were clamped", UINT64_MAX);
	if (t.rounded)
		load_messages_add(&msgs, "tflame: %" PRIu64 " count%s rounded to %u decimal%s",
		                  t.rounded, t.rounded == 1 ? "" : "s", t.decimals, t.decimals == 1 ? "" : "s");
	if (stats)
		fprintf(stderr, "nodes %zu names %zu bytes %zu name_bytes %zu stacks %" PRIu64
		        " load_s %.3f finalize_s %.3f timed %" PRIu64 " timeline_bytes %zu\n",
		        tree_size(&t), strtab_count(&t.names), tree_bytes(&t), strtab_bytes(&t.names),
		        t.stacks, t1 - t0, t2 - t1, tl.n, timeline_bytes(&tl));

	if (rc != 0 || mode != MODE_UI) {
		static char outbuf[1 << 16];
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
		if (rc == 0 && mode == MODE_COLLAPSE) {
			/* On a terminal, names in display form (an OSC 52 in a name
			 * would write the clipboard); files and pipes get the exact
			 * bytes. */
			FILE *tty = isatty(STDOUT_FILENO) ? text_sanitizing_stream(stdout) : NULL;
			if (tree_write_folded(shown, tty ? tty : stdout) != 0)
				rc = 1;
			if (tty && fclose(tty) != 0)
				rc = 1;
		}
		if (rc == 0 && mode == MODE_PRINT) {
			/* The search runs on the tree shown (after the transforms). */
			struct search *s = search_re ? search_new(shown, search_re, NULL, 0) : NULL;
			if (s) {
				double s0 = seconds();
				search_run(s, 0);
				if (search_costly(s))
					load_messages_add(&msgs, "tflame: --search: the pattern was too costly on %zu "
					                  "name%s (counted as no match)", search_costly(s),
					                  search_costly(s) == 1 ? "" : "s");
				if (stats)
					fprintf(stderr, "search_ms %.2f names %zu nodes %zu matches %zu\n",
					        (seconds() - s0) * 1e3, strtab_count(&shown->names),
					        tree_size(shown), search_count(s));
			}
			if (view == VIEW_HEATMAP) {
				/* 25 rows: 40 ms each in 1 s columns; a column a cell */
				struct heatmap hm;
				int w = width ? width : default_width();
				heatmap_build(&hm, &tl, chosen, range_t0, range_t1, w > 20 ? (uint32_t)w - 10 : 10, 25);
				rc = heatmap_print(&hm, stdout) ? 1 : 0;
				heatmap_free(&hm);
			} else {
				rc = print_view(&views, view, sandwich, table_sort, (size_t)top, diff, normalize,
				                width ? width : default_width(), orient, min_width, order, s, &unit,
				                &msgs);
			}
			search_free(s);
		}
		if (rc == 0 && mode == MODE_SVG) {
			struct svg_options so;
			struct diff d;
			svg_options_init(&so);
			if (width)
				so.width = width;
			so.orient = orient;
			if (set.min_width_set)
				so.min_width = min_width;
			so.pal = pal;
			so.rules = rules;
			so.title = recorded ? rec.title : nfiles == 1 && strcmp(files[0], "-") ? files[0] : "Flame Graph";
			so.count_name = unit.event[0] ? unit.event : "samples";
			so.unit = &unit;
			if (diff) {
				diff_compute(&d, shown, transform_stack_tree2(&views), normalize, negate);
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
			if (diff)
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
		/* "A.folded → B.folded" for a diff of two files; "a + 2 more" */
		char title[512];
		const char *arrow = utf8_locale() ? " \u2192 " : " -> ";
		if (recorded)
			snprintf(title, sizeof title, "%s", rec.title);
		else if (diff && nfiles == 2)
			snprintf(title, sizeof title, "%s%s%s", files[0], arrow, files[1]);
		else if (nfiles > 1)
			snprintf(title, sizeof title, "%s + %zu more", files[0], nfiles - 1);
		else
			snprintf(title, sizeof title, "%s", files[0]);
		struct ui_options uo = {
			.orient = orient, .min_width = min_width,
			.views = &views, .diff = diff, .negate = negate, .normalize = normalize,
			.table = view == VIEW_TABLE, .table_sort = table_sort,
			.sandwich = view == VIEW_SANDWICH, .sandwich_name = sandwich,
			.title = title,
			.notice = msgs.len ? msgs.text : NULL,
			.palette = pal, .rules = rules,
			.bench_keys = bench_keys,
			.search = search_re, .stats = stats,
			.unit = &unit,
		};
		search_set_threads(lo.threads);
		rc = ui_run(shown, &uo);
		if (msgs.len)
			fputs(msgs.text, stderr);
	}
	load_messages_free(&msgs);
	transform_stack_free(&views);
	tree_free(&before);
	palette_rules_free(rules);
	tree_free(&t);
	timeline_free(&tl);
	free(chosen);
	free(config_text);
	return rc;
}
