/* palette: frame name -> colour, and colour -> what a terminal can show.
 *
 * Colour has meaning, as in flamegraph.pl and inferno. A frame name first
 * gets a code type from its annotation suffix ("_[k]" kernel, "_[j]" JIT,
 * "_[i]" inlined, "_[w]" waker); a palette then picks a hue from the type
 * and the name's shape ("::" C++, "java/" packages, ".py" files...), and
 * the shade within the hue comes from a stable hash of the name, so a
 * function has the same colour in every run and every profile. The user's
 * rules (a palette map file, --color-rule) come before the palette.
 *
 * Nothing here knows curses: the terminal side is a depth (monochrome, 8,
 * 256 or 24-bit colours) and the quantizers at the end. */
#ifndef TFLAME_PALETTE_H
#define TFLAME_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct palette_rgb {
	uint8_t r, g, b;
};

/* ---- code types --------------------------------------------------------- */

enum palette_type {
	PALETTE_TYPE_NONE,
	PALETTE_TYPE_KERNEL,    /* "_[k]" */
	PALETTE_TYPE_JIT,       /* "_[j]" */
	PALETTE_TYPE_INLINED,   /* "_[i]" */
	PALETTE_TYPE_WAKER      /* "_[w]" */
};

/* The annotation at the very end of s[0..len): "_[k]" "_[j]" "_[i]" "_[w]"
 * (exactly four bytes; "_[kk]" or "_[k] x" are no annotation). */
enum palette_type palette_type_of(const char *s, size_t len);
/* len without the annotation suffix (len itself when there is none): the
 * part of the name that labels show. */
size_t palette_base_len(const char *s, size_t len);
/* "kernel", "jit", "inlined", "waker"; NULL for PALETTE_TYPE_NONE. */
const char *palette_type_name(enum palette_type t);

/* ---- hues ------------------------------------------------------------- */

/* flamegraph.pl's colour families. Each gives a range of colours; the
 * name's hash picks one (see palette_hue_rgb). */
enum palette_hue {
	PALETTE_HUE_HOT,        /* r 205..255, g 0..230, b 0..55 */
	PALETTE_HUE_MEM,        /* r 0, g 190..240, b 0..210 */
	PALETTE_HUE_IO,         /* r = g 80..140, b 190..245 */
	PALETTE_HUE_RED,        /* r 200..255, g = b 50..130 */
	PALETTE_HUE_GREEN,      /* g 200..255, r = b 50..110 */
	PALETTE_HUE_BLUE,       /* b 205..255, r = g 80..140 */
	PALETTE_HUE_AQUA,       /* r 50..110, g = b 165..220 */
	PALETTE_HUE_YELLOW,     /* r = g 175..230, b 50..70 */
	PALETTE_HUE_PURPLE,     /* r = b 190..255, g 80..140 */
	PALETTE_HUE_ORANGE,     /* r 190..255, g 90..155, b 0 */
	PALETTE_HUE_GREY,       /* 160..200: the "-" and "--" separators */
	PALETTE_HUE_FLAT,       /* one exact colour (#rrggbb, palette map) */
	PALETTE_NHUES
};

/* "hot", "red", ..., "grey", "flat". */
const char *palette_hue_name(enum palette_hue h);
/* The hue called name ("flat" is not a name a user gives), or -1. */
int palette_hue_find(const char *name);

/* The stable hash of a name: 64-bit FNV-1a of s[0..len) followed by
 * splitmix64's finalizer. Fixed forever: it decides every colour. */
uint64_t palette_hash(const char *s, size_t len);

/* The colour of hue h for a name hashing to hash. Bits 0-15, 16-31 and
 * 32-47 of the hash are three fractions v1, v2, v3 in [0, 1] (16 bits over
 * 65535); a channel "base..base+range" is base + (int)(range * v), with
 * flamegraph.pl's choice of fraction per channel (hot: r v3, g v1, b v2;
 * mem: g v2, b v1; io: r = g v1, b v2; the others v1 only). Not for FLAT. */
struct palette_rgb palette_hue_rgb(enum palette_hue h, uint64_t hash);

/* ---- palettes ----------------------------------------------------------- */

/* One line of a palette's legend: what a hue means. */
struct palette_legend {
	enum palette_hue hue;
	const char *label;          /* one or two words, for the legend line */
	const char *meaning;        /* a short phrase, for the help screen */
};

struct palette {
	const char *name;           /* as a user would name it ("java") */
	const char *desc;           /* one line for help and man page */
	/* The hue of the frame named s[0..len) with annotation t (len is the
	 * whole name, suffix included). */
	enum palette_hue (*hue)(const char *s, size_t len, enum palette_type t);
	const struct palette_legend *legend;
	size_t nlegend;
};

/* Every palette, NULL-terminated, in cycling order; the first (hot) is the
 * default. */
extern const struct palette *const palette_list[];
extern const size_t palette_count;

/* The palette called name, or NULL. */
const struct palette *palette_find(const char *name);
/* The palette after p in palette_list, wrapping around. */
const struct palette *palette_next(const struct palette *p);
/* "hot, mem, io, ..." into buf (for messages); returns buf. */
char *palette_names(char *buf, size_t size);

/* ---- the user's rules --------------------------------------------------- */

/* A colour as the user writes it: a hue name (shaded by the name's hash)
 * or #rrggbb (exactly that colour). */
struct palette_spec {
	enum palette_hue hue;       /* PALETTE_HUE_FLAT for #rrggbb */
	struct palette_rgb rgb;     /* the colour when FLAT */
};

/* Parses "red", "aqua", ..., "grey", "hot", "mem", "io" or "#rrggbb" (hex,
 * either case). Returns false when s is none of them. */
bool palette_parse_spec(const char *s, struct palette_spec *out);

/* --color-rule regexes and palette map entries, in the order given. */
struct palette_rules;

struct palette_rules *palette_rules_new(void);
void palette_rules_free(struct palette_rules *r);

/* Adds a rule "REGEX=COLOR" (split at the last '='; REGEX is a regex of
 * rx.h, case-sensitive, matched anywhere in the whole name, annotation and
 * NUL bytes included).
 * Returns 0, or -1 with a message (no "tflame: " prefix) in err. */
int palette_rules_add(struct palette_rules *r, const char *spec, char *err, size_t errsize);

/* Reads a palette map file as flamegraph.pl --cp writes it: one
 * "NAME->rgb(R,G,B)" per line (R, G, B from 0 to 255; "#rrggbb" is accepted
 * too), NAME the whole frame name; blank lines and lines starting with '#'
 * that have no "->" are skipped. Returns 0, or -1 with "FILE:LINE: what"
 * (or "FILE: why" when it cannot be read) in err. Later entries win. */
int palette_rules_load_map(struct palette_rules *r, const char *path, char *err, size_t errsize);
/* The largest map file read (conf_read_file refuses a larger one, and any
 * file that is not a regular file: a FIFO, /dev/zero). */
#define PALETTE_MAP_MAX_BYTES (64 * 1024 * 1024)

/* The map in text[0..size) (any bytes), as palette_rules_load_map reads a
 * file; name (the file's) starts the error messages: "NAME:LINE: what".
 * Entries before a bad line are kept. Returns 0 or -1. */
int palette_rules_parse_map(struct palette_rules *r, const char *name, const char *text, size_t size,
                            char *err, size_t errsize);

/* Entries of the map files and rules added so far. */
size_t palette_rules_map_count(const struct palette_rules *r);
size_t palette_rules_count(const struct palette_rules *r);
/* Rule k (0-based): its regex text and colour. */
const char *palette_rules_regex(const struct palette_rules *r, size_t k);
struct palette_spec palette_rules_spec(const struct palette_rules *r, size_t k);
/* Rule matches so far that were too costly (rx.h), taken as no match. */
size_t palette_rules_costly(const struct palette_rules *r);

/* ---- a frame's colour --------------------------------------------------- */

/* What a frame is drawn with: the hue (to quantize within its family) and
 * the colour itself. */
struct palette_look {
	enum palette_hue hue;
	struct palette_rgb rgb;
};

/* The look of the frame named s[0..len), s[len] == '\0' (strtab names are).
 * In order: the map's entry for the whole name, then for the name without
 * annotation; the first rule that matches; the grey of the "-" and "--"
 * separators; p's hue. Shades hash the name without its annotation. r may be NULL. */
struct palette_look palette_look(const struct palette *p, const struct palette_rules *r,
                                 const char *s, size_t len);

/* ---- terminals ---------------------------------------------------------- */

enum palette_depth {
	PALETTE_MONO,       /* no colour: attributes only */
	PALETTE_8,          /* the 8 ANSI colours */
	PALETTE_256,        /* xterm's 256: 6x6x6 cube and 24 greys */
	PALETTE_DIRECT      /* 24-bit: a colour number is 0xRRGGBB */
};

/* Depth for a terminal with ncolors colours (curses' COLORS; <= 0 when it
 * has none; >= 2^24 means direct colour), honouring NO_COLOR (no_color:
 * its value or NULL; non-empty means monochrome, per no-color.org). */
enum palette_depth palette_depth_for(int ncolors, const char *no_color);

/* Whether COLORTERM (its value or NULL) says the terminal takes 24-bit
 * colour: "truecolor" or "24bit". */
bool palette_colorterm_direct(const char *colorterm);

/* Nearest xterm-256 colour (16..255) to l's colour, among the ones of its
 * hue family where the cube's coarse steps would change the family (hot's
 * blue <= 55 would round up to 95: pink); the whole cube and grey ramp
 * otherwise. */
int palette_to_256(struct palette_look l);
/* The RGB value of xterm-256 colour n (16..255; others give black). */
struct palette_rgb palette_xterm_rgb(int n);

/* An ANSI colour number (1..7) for l on an 8-colour terminal: one per hue
 * family (orange magenta, purple blue, so that no palette has two hues on
 * one colour), hot split by its green into red, magenta, yellow; black text
 * stays readable on all. */
int palette_to_8(struct palette_look l);

/* The direct colour number of c: 0xRRGGBB, but at least 8 (below, direct
 * terminfo entries mean the ANSI colours). */
int palette_to_direct(struct palette_rgb c);

#endif
