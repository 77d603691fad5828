/* options: one row per option (see options.h). */
#include "config.h"
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"
#include "keymap.h"
#include "search.h"
#include "sniff.h"
#include "text.h"
#include "xalloc.h"

/* What a setter may need besides the value. */
struct opt_ctx {
	char *err;
	size_t errsize;
	bool file_error;            /* the fault is in a file the option names:
	                               no --help hint */
};

struct opt_row;
typedef bool opt_set_fn(struct settings *s, const struct opt_row *o, const char *arg,
                        struct opt_ctx *c);

/* Options handled by options_parse itself rather than a setter. */
enum opt_action { ACT_NONE, ACT_CONFIG, ACT_NO_CONFIG, ACT_HELP, ACT_VERSION, ACT_LIST_KEYS,
                  ACT_LIST_OPTIONS };

struct opt_row {
	const char *name;
	char short_name;            /* 0: none */
	int arg;                    /* getopt's no_argument, required_, optional_ */
	const char *label;          /* --name=LABEL in --help */
	bool config;                /* a config file may set it */
	bool hidden;                /* for tests and benchmarks: not in --help */
	const char *values;         /* its fixed value set ("" : the palettes) */
	const char *section;        /* a --help heading before it ("": a blank line) */
	const char *help;           /* its --help lines, '\n' between */
	opt_set_fn *set;
	enum opt_action action;
	int arg_int;                /* a setter's parameter (which flag, which kind) */
};

__attribute__((format(printf, 2, 3)))
static bool fail(struct opt_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errsize, fmt, ap);
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

static const char *values_of(const struct opt_row *o)
{
	return o->values && !o->values[0] ? palette_values() : o->values;
}

static bool bad_value(struct opt_ctx *c, const struct opt_row *o, const char *arg)
{
	char safe[64];
	text_sanitize(arg, strlen(arg), safe, sizeof safe);
	const char *v = values_of(o);
	if (v)
		return fail(c, "invalid value for --%s: '%s' (one of: %s)", o->name, safe, v);
	return fail(c, "invalid value for --%s: '%s'", o->name, safe);
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

/* A pid or tid: 0 to 2^31 - 1. */
static bool parse_id(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return !errno && end != s && !*end && v >= 0 && v <= INT32_MAX && *s >= '0' && *s <= '9';
}

/* The index of arg in the row's value set (words), or -1. */
static int value_index(const struct opt_row *o, const char *arg)
{
	const char *p = o->values;
	size_t n = strlen(arg);
	for (int i = 0; p && *p; i++) {
		size_t w = strcspn(p, " ");
		if (w == n && memcmp(p, arg, n) == 0)
			return i;
		p += w;
		p += *p == ' ';
	}
	return -1;
}

/* ---- setters ---------------------------------------------------------------- */

static bool set_mode(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)c;
	s->mode = (enum mode)o->arg_int;
	if (s->mode == MODE_SVG)
		s->svg_path = arg;
	return true;
}

static bool set_width(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	return parse_int(arg, 1, &s->width) || bad_value(c, o, arg);
}

static bool set_inverted(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o, (void)arg, (void)c;
	s->orient = LAYOUT_ICICLE;
	return true;
}

static bool set_format(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	if (strcmp(arg, "auto") == 0)
		s->lo.format = SNIFF_UNKNOWN;
	else if (!sniff_parse_name(arg, &s->lo.format))
		return bad_value(c, o, arg);
	return true;
}

enum { C_SORT, C_TABLE_SORT };

/* A value of the row's set, by its place in the set. */
static bool set_choice(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	static const enum toptable_key keys[] = { TOPTABLE_SELF, TOPTABLE_TOTAL, TOPTABLE_NAME };
	int i = value_index(o, arg);
	if (i < 0)
		return bad_value(c, o, arg);
	if (o->arg_int == C_SORT)
		s->order = orders[i];
	else
		s->table_sort = keys[i];
	return true;
}

static bool set_min_width(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	if (!parse_int(arg, 1, &s->min_width))
		return bad_value(c, o, arg);
	s->min_width_set = true;
	return true;
}

static bool set_colors(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	if (!(s->pal = palette_find(arg))) {
		char names[256], safe[64];
		text_sanitize(arg, strlen(arg), safe, sizeof safe);
		return fail(c, "invalid --colors '%s' (%s)", safe, palette_names(names, sizeof names));
	}
	return true;
}

/* Repeatable: rules from the config file and the command line add up. */
static bool set_color_rule(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	if (!s->rules)
		s->rules = palette_rules_new();
	return palette_rules_add(s->rules, arg, c->err, c->errsize) == 0;
}

static bool set_palette_map(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	if (!s->rules)
		s->rules = palette_rules_new();
	if (palette_rules_load_map(s->rules, arg, c->err, c->errsize) != 0) {
		c->file_error = true;   /* about the map's contents, not usage */
		return false;
	}
	return true;
}

/* Checked at once: a typo should not wait for a big file to load. */
static bool set_search(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	char why[256];
	struct tree empty;
	tree_init(&empty);
	tree_finalize(&empty, TREE_ORDER_NAME);
	struct search *se = search_new(&empty, arg, why, sizeof why);
	bool valid = se != NULL;
	search_free(se);
	tree_free(&empty);
	if (!valid)
		return fail(c, "invalid --search regex: %s", why);
	s->search_re = arg;
	return true;
}

enum { P_PID, P_TID, P_KERNEL, P_JIT, P_ALL, P_ADDRS };

static bool set_perf_flag(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)arg, (void)c;
	struct perf_options *p = &s->lo.perf;
	switch (o->arg_int) {
	case P_PID: p->pid = true; break;
	case P_TID: p->tid = true; break;
	case P_KERNEL: p->kernel = true; break;
	case P_JIT: p->jit = true; break;
	case P_ALL: p->kernel = p->jit = true; break;
	case P_ADDRS: p->addrs = true; break;
	}
	return true;
}

enum { S_EVENT_FILTER, S_SYMFS, S_PROFILE, S_SAMPLE_TYPE, S_LABEL_ROOT, S_TIME, S_BENCH_KEYS };

static bool set_string(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)c;
	switch (o->arg_int) {
	case S_EVENT_FILTER: s->lo.perf.event_filter = arg; break;
	case S_SYMFS: s->lo.symfs = arg; break;
	case S_PROFILE: s->lo.profile = arg; break;
	case S_SAMPLE_TYPE: s->lo.sample_type = arg; break;
	case S_LABEL_ROOT: s->lo.label_root = arg; break;
	case S_TIME: s->time_range = arg; break;
	case S_BENCH_KEYS: s->bench_keys = arg; break;
	}
	return true;
}

/* --unit: a word (letters, digits, - and _), as it will be shown. */
static bool set_unit(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_");
	if (n == 0 || arg[n] || n > 32) {
		char safe[64];
		text_sanitize(arg, strlen(arg), safe, sizeof safe);
		return fail(c, "--%s needs a word such as samples, ns, ms, bytes or cycles, not '%s'", o->name, safe);
	}
	s->unit = arg;
	return true;
}

static bool set_only(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	if (o->arg_int != ONLY_COMM && !parse_id(arg)) {
		char safe[64];
		text_sanitize(arg, strlen(arg), safe, sizeof safe);
		return fail(c, "--%s needs a process or thread id, not '%s'", o->name, safe);
	}
	if (s->nonly == sizeof s->only / sizeof s->only[0])
		return fail(c, "more than %zu --only options", sizeof s->only / sizeof s->only[0]);
	s->only[s->nonly].kind = (enum only_kind)o->arg_int;
	s->only[s->nonly++].arg = arg;
	return true;
}

/* The script's text: settings point into it; static, so that it stays
 * reachable for leak checkers until exit. */
static char *script_text;

static bool set_script(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	size_t len;
	char why[128];
	char *text = conf_read_file(arg, CONF_MAX_BYTES, &len, why, sizeof why);
	if (!text) {
		char safe[256];
		text_sanitize(arg, strlen(arg), safe, sizeof safe);
		c->file_error = true;
		return fail(c, "--script: %s: %s", safe, errno == EFBIG ? "larger than 1 MB" : why);
	}
	free(script_text);
	script_text = text;
	s->script = text;
	return true;
}

static bool set_threads(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	if (!parse_int(arg, 1, &s->lo.threads))
		return bad_value(c, o, arg);
	s->lo.threads_forced = true;
	return true;
}

static bool set_transform(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	enum transform_kind k = (enum transform_kind)o->arg_int;
	if (s->ntrs == sizeof s->trs / sizeof s->trs[0])
		return fail(c, "more than %zu transforms", sizeof s->trs / sizeof s->trs[0]);
	char why[256];
	if (k == TRANSFORM_HIDE && !transform_hide_valid(arg, why, sizeof why)) {
		/* Checked at once, as --search: config errors say FILE:LINE. */
		char safe[64];
		text_sanitize(arg, strlen(arg), safe, sizeof safe);
		return fail(c, "--hide: invalid regex '%s': %s", safe, why);
	}
	s->trs[s->ntrs].kind = k;
	s->trs[s->ntrs++].arg = k == TRANSFORM_FOCUS || k == TRANSFORM_HIDE ? arg : NULL;
	return true;
}

static bool set_view(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	if (strcmp(arg, "flame") == 0) {
		s->view = VIEW_FLAME;
	} else if (strcmp(arg, "table") == 0) {
		s->view = VIEW_TABLE;
	} else if (strcmp(arg, "sandwich") == 0) {
		s->view = VIEW_SANDWICH;
		s->sandwich = NULL;
	} else if (strncmp(arg, "sandwich=", 9) == 0) {
		s->view = VIEW_SANDWICH;
		s->sandwich = arg + 9;
	} else if (strcmp(arg, "heatmap") == 0) {
		s->view = VIEW_HEATMAP;
	} else if (strcmp(arg, "chart") == 0) {
		s->view = VIEW_CHART;
	} else {
		char safe[64];
		text_sanitize(arg, strlen(arg), safe, sizeof safe);
		return fail(c, "invalid --view '%s' (flame, table, sandwich[=NAME], heatmap, chart)", safe);
	}
	return true;
}

static bool set_top(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	return parse_int(arg, 1, &s->top) || bad_value(c, o, arg);
}

enum { F_DIFF, F_NEGATE, F_NORMALIZE, F_STATS };

static bool set_flag(struct settings *s, const struct opt_row *o, const char *arg, struct opt_ctx *c)
{
	(void)arg, (void)c;
	switch (o->arg_int) {
	case F_DIFF: s->diff = true; break;
	case F_NEGATE: s->negate = true; break;
	case F_NORMALIZE: s->normalize = true; break;
	case F_STATS: s->stats = true; break;
	}
	return true;
}

/* ---- the table ----------------------------------------------------------------- */

#define FLAG no_argument
#define VALUE required_argument
#define OPTIONAL optional_argument
#define CONFIG true
#define CLI false

/* In --help's order. Options a config file may not set (CLI): actions,
 * output modes (a config that turned every run into --print would be a
 * trap), the config itself, --diff (its files are BEFORE AFTER: a mode, as
 * --print is; --negate and --normalize are refused without it) and what
 * belongs to one recording (--time, --only-*). */
static const struct opt_row rows[] = {
	{ "collapse", 'c', FLAG, NULL, CLI, false, NULL, "Output modes",
	  "write the merged stacks as folded text and exit", set_mode, ACT_NONE, MODE_COLLAPSE },
	{ "print", 'p', FLAG, NULL, CLI, false, NULL, NULL,
	  "draw the flame graph as plain text and exit", set_mode, ACT_NONE, MODE_PRINT },
	{ "svg", 0, OPTIONAL, "FILE", CLI, false, NULL, NULL,
	  "write an interactive SVG flame graph (click to zoom,\n"
	  "Ctrl-F to search) to FILE, or stdout, and exit", set_mode, ACT_NONE, MODE_SVG },
	{ "width", 'w', VALUE, "N", CONFIG, false, NULL, NULL,
	  "columns for --print (default: the terminal's width,\n"
	  "else $COLUMNS, else 100); pixels for --svg (1200)", set_width, ACT_NONE, 0 },

	{ "inverted", 'i', FLAG, NULL, CONFIG, false, NULL, "View",
	  "icicle graph: root at the top", set_inverted, ACT_NONE, 0 },
	{ "sort", 0, VALUE, "ORDER", CONFIG, false, "name weight input", NULL,
	  "sibling order: name (default), weight, or input\n"
	  "(a flame chart: input order, only adjacent frames merge)", set_choice, ACT_NONE, C_SORT },
	{ "min-width", 0, VALUE, "N", CONFIG, false, NULL, NULL,
	  "hide frames narrower than N columns (default 1)", set_min_width, ACT_NONE, 0 },
	{ "search", 0, VALUE, "REGEX", CONFIG, false, NULL, NULL,
	  "start with a search (POSIX extended regex, case-\n"
	  "insensitive unless REGEX has upper case); --print\n"
	  "closes matching frames with * and adds a match line", set_search, ACT_NONE, 0 },
	{ "view", 0, VALUE, "VIEW", CONFIG, false, NULL, NULL,
	  "flame (default); table: one row per function; or\n"
	  "sandwich[=NAME]: callers and callees of NAME\n"
	  "(default: the function with most self samples);\n"
	  "heatmap: samples by second and offset in it;\n"
	  "chart: the stacks in time order (a flame chart)", set_view, ACT_NONE, 0 },
	{ "table-sort", 0, VALUE, "KEY", CONFIG, false, "self total name", NULL,
	  "table rows by self (default), total or name", set_choice, ACT_NONE, C_TABLE_SORT },
	{ "top", 0, VALUE, "N", CONFIG, false, NULL, NULL,
	  "table: only the first N rows (--print; implies --view=table)", set_top, ACT_NONE, 0 },
	{ "time", 0, VALUE, "START,END", CLI, false, NULL, NULL,
	  "only the samples from START to END seconds after the\n"
	  "first (END excluded; either may be empty), or N%,M%\n"
	  "of the recording, or P%/N (its N-th P% slice):\n"
	  "perf script, perf.data, .cpuprofile and speedscope\n"
	  "(in time units) have times", set_string, ACT_NONE, S_TIME },
	{ "only-pid", 0, VALUE, "PID", CLI, false, NULL, NULL,
	  "only the samples of process PID (repeatable; perf script\n"
	  "shows PIDs with -F+pid)", set_only, ACT_NONE, ONLY_PID },
	{ "only-tid", 0, VALUE, "TID", CLI, false, NULL, NULL,
	  "only the samples of thread TID (repeatable)", set_only, ACT_NONE, ONLY_TID },
	{ "only-comm", 0, VALUE, "NAME", CLI, false, NULL, NULL,
	  "only the samples of threads named NAME (repeatable; a\n"
	  "sample must match one of each kind given)", set_only, ACT_NONE, ONLY_COMM },

	{ "reverse", 0, FLAG, NULL, CONFIG, false, NULL,
	  "Transforms (applied in the order given; undo with Backspace in the browser)",
	  "stacks read leaf to root (hottest leaves at the root)", set_transform, ACT_NONE,
	  TRANSFORM_REVERSE },
	{ "focus", 0, VALUE, "NAME", CONFIG, false, NULL, NULL,
	  "merge every call of NAME into one root frame", set_transform, ACT_NONE, TRANSFORM_FOCUS },
	{ "hide", 0, VALUE, "REGEX", CONFIG, false, NULL, NULL,
	  "hide frames matching REGEX; their children move up", set_transform, ACT_NONE,
	  TRANSFORM_HIDE },
	{ "merge-recursion", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "merge direct recursion (f;f;g becomes f;g)", set_transform, ACT_NONE,
	  TRANSFORM_MERGE_RECURSION },

	{ "diff", 0, FLAG, NULL, CLI, false, NULL, "Differential",
	  "compare: FILE... is BEFORE AFTER, or one difffolded\n"
	  "file (\"stack BEFORE AFTER\" lines); widths from AFTER,\n"
	  "red grew, blue shrank", set_flag, ACT_NONE, F_DIFF },
	{ "negate", 0, FLAG, NULL, CLI, false, NULL, NULL,
	  "swap the red and blue of --diff", set_flag, ACT_NONE, F_NEGATE },
	{ "normalize", 0, FLAG, NULL, CLI, false, NULL, NULL,
	  "scale BEFORE to AFTER's total sample count", set_flag, ACT_NONE, F_NORMALIZE },

	{ "colors", 0, VALUE, "PALETTE", CONFIG, false, "", "Colours",
	  "hot (default), mem, io, wakeup, chain, java, js,\n"
	  "perl, python, rust, red, green, blue, aqua, yellow,\n"
	  "purple or orange (flamegraph.pl's palettes)", set_colors, ACT_NONE, 0 },
	{ "color-rule", 0, VALUE, "REGEX=COLOR", CONFIG, false, NULL, NULL,
	  "frames whose name matches REGEX get COLOR: a\n"
	  "hue (red, green, blue, aqua, yellow, purple, orange,\n"
	  "grey, hot, mem, io) or #rrggbb; repeatable, first wins", set_color_rule, ACT_NONE, 0 },
	{ "palette-map", 0, VALUE, "FILE", CONFIG, false, NULL, NULL,
	  "exact colours per name, NAME->rgb(R,G,B) lines as\n"
	  "flamegraph.pl --cp writes palette.map", set_palette_map, ACT_NONE, 0 },

	{ "format", 'f', VALUE, "FORMAT", CONFIG, false,
	  "auto folded perf perf-data pprof cpuprofile speedscope", "Input",
	  "auto (default), folded, perf (perf script text),\n"
	  "perf-data, pprof, cpuprofile (V8, Chrome trace) or\n"
	  "speedscope", set_format, ACT_NONE, 0 },
	{ "pid", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "perf: root frames are comm-PID", set_perf_flag, ACT_NONE, P_PID },
	{ "tid", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "perf: root frames are comm-PID/TID", set_perf_flag, ACT_NONE, P_TID },
	{ "kernel", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "perf: annotate kernel frames with _[k]", set_perf_flag, ACT_NONE, P_KERNEL },
	{ "jit", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "perf: annotate JIT frames with _[j]", set_perf_flag, ACT_NONE, P_JIT },
	{ "all", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "perf: --kernel and --jit", set_perf_flag, ACT_NONE, P_ALL },
	{ "addrs", 0, FLAG, NULL, CONFIG, false, NULL, NULL,
	  "perf: show addresses of unresolved frames", set_perf_flag, ACT_NONE, P_ADDRS },
	{ "event-filter", 0, VALUE, "EVENT", CONFIG, false, NULL, NULL,
	  "perf: keep only EVENT (default: the first seen)", set_string, ACT_NONE, S_EVENT_FILTER },
	{ "symfs", 0, VALUE, "DIR", CONFIG, false, NULL, NULL,
	  "perf.data: look for the recorded programs and\n"
	  "libraries under DIR (a copy of the recording machine)", set_string, ACT_NONE, S_SYMFS },
	{ "unit", 0, VALUE, "UNIT", CONFIG, false, NULL, NULL,
	  "what the counts are: samples (default), ns, us, ms, s,\n"
	  "bytes, or a name (cycles...); shown in the status line", set_unit, ACT_NONE, 0 },
	{ "sample-type", 0, VALUE, "TYPE", CONFIG, false, NULL, NULL,
	  "pprof: weigh by TYPE (cpu, alloc_space, inuse_space...\n"
	  "or its index; default: the profile's default, else\n"
	  "its last)", set_string, ACT_NONE, S_SAMPLE_TYPE },
	{ "label-root", 0, VALUE, "KEY", CONFIG, false, NULL, NULL,
	  "pprof: one root frame KEY=VALUE per value of label KEY", set_string, ACT_NONE, S_LABEL_ROOT },
	{ "profile", 0, VALUE, "NAME|N", CONFIG, false, NULL, NULL,
	  "speedscope: only the profile named NAME, or the N-th\n"
	  "(from 1); default: all, one root frame each", set_string, ACT_NONE, S_PROFILE },
	{ "threads", 0, VALUE, "N", CONFIG, false, NULL, NULL,
	  "parse big files and search on N threads (default: all CPUs)", set_threads, ACT_NONE, 0 },

	{ "script", 0, VALUE, "FILE", CLI, false, NULL, "Automation",
	  "browse without a terminal on the keys in FILE\n"
	  "(\"j j Enter dump\", see the man page), printing the\n"
	  "screen at each dump", set_script, ACT_NONE, 0 },
	{ "config", 0, VALUE, "FILE", CLI, false, NULL, "Configuration",
	  "read option defaults from FILE (default:\n"
	  "$XDG_CONFIG_HOME/tflame/config, or $TFLAME_CONFIG)", NULL, ACT_CONFIG, 0 },
	{ "no-config", 0, FLAG, NULL, CLI, false, NULL, NULL,
	  "read no config file", NULL, ACT_NO_CONFIG, 0 },

	{ "help", 'h', FLAG, NULL, CLI, false, NULL, "",
	  "show this help and exit", NULL, ACT_HELP, 0 },
	{ "version", 'V', FLAG, NULL, CLI, false, NULL, NULL,
	  "show the version and exit", NULL, ACT_VERSION, 0 },

	/* for tests and benchmarks */
	{ "stats", 0, FLAG, NULL, CLI, true, NULL, NULL, NULL, set_flag, ACT_NONE, F_STATS },
	{ "list-keys", 0, FLAG, NULL, CLI, true, NULL, NULL, NULL, NULL, ACT_LIST_KEYS, 0 },
	{ "list-options", 0, FLAG, NULL, CLI, true, NULL, NULL, NULL, NULL, ACT_LIST_OPTIONS, 0 },
	{ "bench-keys", 0, VALUE, "KEYS", CLI, true, NULL, NULL, NULL, set_string, ACT_NONE,
	  S_BENCH_KEYS },
};
#define NROWS (sizeof rows / sizeof rows[0])

/* getopt's value for row i: its short letter, else 256 + i. */
static int row_val(size_t i)
{
	return rows[i].short_name ? rows[i].short_name : 256 + (int)i;
}

static const struct opt_row *row_of_val(int c)
{
	for (size_t i = 0; i < NROWS; i++)
		if (row_val(i) == c)
			return &rows[i];
	return NULL;
}

static const struct opt_row *row_named(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

/* ---- help ------------------------------------------------------------------------ */

void options_usage(FILE *out)
{
	fputs(
"Usage: tflame [OPTION]... [FILE]...\n"
"       tflame record [RECORD OPTION]... [--] COMMAND [ARG]...\n"
"Browse a flame graph of FILE(s) in the terminal. FILE is perf.data (as perf\n"
"record writes it, also streamed: perf record -o - | tflame), raw `perf script`\n"
"output, folded stacks (\"main;parse;lex 42\" per line), pprof (Go's\n"
"cpu.pb.gz), a V8 .cpuprofile or Chrome trace, or speedscope JSON, told apart\n"
"by content; several files are merged; gzip, xz and zstd are undone on the fly.\n"
"When FILE is -, or with no FILE and standard input not a terminal, read\n"
"standard input (keys then come from the terminal); with no FILE on a\n"
"terminal, read ./perf.data.\n"
"`tflame record` runs perf record on COMMAND and opens the result (tflame\n"
"record --help).\n", out);
	/* "  -c, --collapse          text": the text from column 26 */
	const int col = 26;
	for (size_t i = 0; i < NROWS; i++) {
		const struct opt_row *o = &rows[i];
		if (o->hidden)
			continue;
		if (o->section)
			fprintf(out, o->section[0] ? "\n%s:\n" : "\n", o->section);
		char head[64];
		int n = snprintf(head, sizeof head, "  %c%c%s--%s%s%s%s", o->short_name ? '-' : ' ',
		                 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
		                 o->arg == OPTIONAL ? "[=" : o->arg == VALUE ? "=" : "", o->label ? o->label : "",
		                 o->arg == OPTIONAL ? "]" : "");
		fputs(head, out);
		const char *h = o->help;
		fprintf(out, "%*s", n < col ? col - n : 2, "");
		for (;;) {
			size_t len = strcspn(h, "\n");
			fprintf(out, "%.*s\n", (int)len, h);
			if (!h[len])
				break;
			h += len + 1;
			fprintf(out, "%*s", col, "");
		}
	}
	fputs(
"\n"
"Keys: press ? in the browser.\n"
"Exit status: 0 ok, 1 error, 2 usage error, 128+N when ended by signal N.\n"
"Examples:\n"
"  perf record -g ./prog && tflame perf.data\n"
"  tflame record -F 999 -- ./prog\n"
"  tflame profile.folded\n"
"  tflame --collapse perf.txt > profile.folded\n"
"  tflame --print --view=table --top=10 profile.folded\n"
"  tflame --diff before.folded after.folded\n"
"  tflame cpu.pb.gz        (Go: curl -o cpu.pb.gz HOST/debug/pprof/profile)\n"
"  tflame --svg=flame.svg perf.data\n", out);
}

void options_list(FILE *out)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct opt_row *o = &rows[i];
		const char *v = values_of(o);
		fprintf(out, "%s\t%s\t%s\t%s\n", o->name,
		        o->arg == FLAG ? "flag" : o->arg == OPTIONAL ? "optional" : "value", v ? v : "-",
		        o->config ? "config" : "-");
	}
}

/* ---- parsing ------------------------------------------------------------------------ */

void settings_init(struct settings *s, int threads)
{
	*s = (struct settings){
		.mode = MODE_UI, .order = TREE_ORDER_NAME, .orient = LAYOUT_FLAME,
		.width = 0, .min_width = 1, .view = VIEW_FLAME, .table_sort = TOPTABLE_SELF,
		.lo = { .format = SNIFF_UNKNOWN, .progress = true, .threads = threads },
	};
}

bool options_config_entry(void *s, const char *name, const char *value, char *err, size_t errsize)
{
	struct opt_ctx c = { err, errsize, false };
	const struct opt_row *o = row_named(name);
	if (!o)
		return fail(&c, "unknown option '%s'", name);
	if (!o->config)
		return fail(&c, "'%s' cannot be set in a config file", name);
	if (o->arg == FLAG) {
		bool on = true;
		if (value && !conf_bool(value, &on)) {
			char safe[64];
			text_sanitize(value, strlen(value), safe, sizeof safe);
			return fail(&c, "'%s' is yes or no, not '%s'", name, safe);
		}
		/* "no" is the default the file started from: nothing to do. */
		return on ? o->set(s, o, NULL, &c) : true;
	}
	if (!value)
		return fail(&c, "'%s' needs a value: %s = VALUE", name, name);
	return o->set(s, o, value, &c);
}

/* Reads the config file into s. Returns the file's text (the settings may
 * point into it) or NULL; exits 2 on an error in it, and when a file the
 * user named cannot be read. The usual file is optional: missing, it is
 * skipped; unreadable (a directory, a FIFO, a path too long), one warning
 * and the run goes on, --help and --version too. */
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
	size_t line = conf_parse(text, len, options_config_entry, s, err, sizeof err);
	if (line) {
		fprintf(stderr, "tflame: %s:%zu: %s\n", safe, line, err);
		exit(2);
	}
	return text;
}

int options_parse(struct settings *s, int argc, char **argv, char **config_text)
{
	struct option longs[NROWS + 1];
	char shorts[2 * NROWS + 1];
	size_t ns = 0;
	for (size_t i = 0; i < NROWS; i++) {
		longs[i] = (struct option){ rows[i].name, rows[i].arg, NULL, row_val(i) };
		if (rows[i].short_name) {
			shorts[ns++] = rows[i].short_name;
			if (rows[i].arg == VALUE)
				shorts[ns++] = ':';
		}
	}
	longs[NROWS] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns] = '\0';
	*config_text = NULL;

	/* First pass: only --config and --no-config, since the file is read
	 * before the command line so that the command line wins. Errors are
	 * left to the second pass. It runs on a copy of argv: getopt permutes
	 * what it reads, and after an error (a value missing at the end) that
	 * order would hand the second pass a different command line. */
	bool explicit = false, no_config = false;
	char *config_path = NULL;
	char **argv1 = xreallocarray(NULL, (size_t)argc + 1, sizeof *argv1);
	memcpy(argv1, argv, ((size_t)argc + 1) * sizeof *argv1);
	int c;
	opterr = 0;
	optind = 0;     /* glibc: start over (tflame record parsed its own) */
	while ((c = getopt_long(argc, argv1, shorts, longs, NULL)) != -1) {
		const struct opt_row *o = row_of_val(c);
		if (o && o->action == ACT_CONFIG) {
			free(config_path);
			config_path = xstrdup(optarg);
			explicit = true;
			no_config = false;
		} else if (o && o->action == ACT_NO_CONFIG) {
			no_config = true;
		}
	}
	free(argv1);
	if (!config_path && !no_config)
		config_path = conf_path(&explicit);
	if (config_path && !no_config)
		*config_text = load_config(s, config_path, explicit);
	free(config_path);

	opterr = 1;
	optind = 0;     /* glibc: start over */
	char err[512];
	bool cli_top = false, cli_view = false;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt_row *o = row_of_val(c);
		if (!o) {       /* '?': getopt said what */
			fputs("Try 'tflame --help' for more information.\n", stderr);
			return 2;
		}
		switch (o->action) {
		case ACT_CONFIG: case ACT_NO_CONFIG: continue;     /* done above */
		case ACT_LIST_KEYS: keymap_write_help(stdout); return 0;
		case ACT_LIST_OPTIONS: options_list(stdout); return 0;
		case ACT_HELP: options_usage(stdout); return 0;
		case ACT_VERSION: printf("tflame %s\n", PACKAGE_VERSION); return 0;
		case ACT_NONE: break;
		}
		struct opt_ctx ctx = { err, sizeof err, false };
		cli_top = cli_top || o->set == set_top;
		cli_view = cli_view || o->set == set_view;
		if (o->set(s, o, optarg, &ctx))
			continue;
		fprintf(stderr, "tflame: %s\n", err);     /* its parts were sanitized */
		if (!ctx.file_error)
			fputs("Try 'tflame --help' for more information.\n", stderr);
		return 2;
	}
	/* --top=N on the command line is about the table: it opens it, unless
	 * another view is asked for there too (a config file's view yields). */
	if (cli_top && s->view != VIEW_TABLE) {
		if (cli_view) {
			fputs("tflame: --top applies to the table: add --view=table\n"
			      "Try 'tflame --help' for more information.\n", stderr);
			return 2;
		}
		s->view = VIEW_TABLE;
	}
	return -1;
}
