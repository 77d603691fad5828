/* options: the command line and the config file through one table.
 *
 * Each option is one row of options.c: its name, short form, argument,
 * value set, whether a config file may set it, its --help text and its
 * setter. getopt's table, --help, --list-options, the config file's
 * checks and the errors all come from those rows. */
#ifndef TFLAME_OPTIONS_H
#define TFLAME_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "layout.h"
#include "load.h"
#include "palette.h"
#include "toptable.h"
#include "transform.h"
#include "tree.h"

enum mode { MODE_UI, MODE_PRINT, MODE_COLLAPSE, MODE_SVG };
enum print_view { VIEW_FLAME, VIEW_TABLE, VIEW_SANDWICH, VIEW_HEATMAP, VIEW_CHART };
enum only_kind { ONLY_PID, ONLY_TID, ONLY_COMM };

/* Everything the options decide. Strings point into argv or the config
 * text (options_parse's *config_text), which outlive the run. */
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
	const char *script;         /* --script: the keys (the file's text) */
	const char *search_re;      /* --search, checked when given */
	const struct palette *pal;  /* NULL: the UI's default */
	struct palette_rules *rules;        /* --color-rule, --palette-map; NULL when none */
	bool diff, negate, normalize;
	enum print_view view;
	const char *sandwich;       /* --view=sandwich=NAME, else NULL */
	enum toptable_key table_sort;
	int top;
	const char *unit;           /* --unit: what the counts are, or NULL */
	const char *time_range;     /* --time, checked once the times are known */
	/* --only-pid, --only-tid, --only-comm (each repeatable): a sample's
	 * thread must match one of each kind given */
	struct { enum only_kind kind; const char *arg; } only[64];
	size_t nonly;
	/* Transforms in order (config file first), applied after loading. */
	struct { enum transform_kind kind; const char *arg; } trs[64];
	size_t ntrs;
};

/* The defaults, with this many threads for big inputs. */
void settings_init(struct settings *s, int threads);

/* Reads the config file (unless --no-config; --config or TFLAME_CONFIG
 * name another) and then argv into s, so that the command line wins.
 * Returns -1 to go on, with optind at the first FILE; else the exit status
 * of an action done here (--help, --version, --list-options, --list-keys:
 * 0) or of an error already reported on stderr (2). *config_text gets the
 * config file's text (free it at exit; NULL when none). */
int options_parse(struct settings *s, int argc, char **argv, char **config_text);

/* One "name = value" entry of a config file (value NULL for a bare name)
 * into settings s, as conf_parse calls it; false with a message in err. */
bool options_config_entry(void *s, const char *name, const char *value, char *err, size_t errsize);

/* --help's text; --list-options' lines ("NAME<TAB>flag|value|optional<TAB>
 * VALUES or -<TAB>config or -", for the documentation tests). */
void options_usage(FILE *out);
void options_list(FILE *out);

#endif
