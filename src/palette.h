/* palette: frame name -> colour, and colour -> what a terminal can show.
 *
 * A palette is data: a name plus a function of the frame's name bytes and
 * their strtab_hash, so the same name gets the same colour in every run and
 * every profile. Palettes know nothing of curses; the terminal side is the
 * depth (monochrome, 8 colours, 256 colours) and the quantizers below. */
#ifndef TFLAME_PALETTE_H
#define TFLAME_PALETTE_H

#include <stddef.h>
#include <stdint.h>

struct palette_rgb {
	uint8_t r, g, b;
};

struct palette {
	const char *name;           /* as a user would name it ("hot") */
	const char *desc;           /* one line for help and man page */
	/* Colour of the frame named s[0..len) whose strtab_hash is hash. */
	struct palette_rgb (*color)(const char *s, size_t len, uint64_t hash);
	/* xterm-256 colours the palette renders to (nearest wins), so that
	 * quantizing cannot leave its family (hot's blue <= 55 would round to
	 * 95: pink); NULL means the whole cube and grey ramp. */
	const uint8_t *xterm;
	size_t nxterm;
};

/* flamegraph.pl's "hot": r 205..255, g 0..230, b 0..55. */
extern const struct palette palette_hot;

/* Every palette, NULL-terminated; the first is the default. */
extern const struct palette *const palette_list[];

/* The palette called name, or NULL. */
const struct palette *palette_find(const char *name);

enum palette_depth {
	PALETTE_MONO,       /* no colour: attributes only */
	PALETTE_8,          /* the 8 ANSI colours */
	PALETTE_256         /* xterm's 256: 6x6x6 cube and 24 greys */
};

/* Depth for a terminal with ncolors colours (curses' COLORS; <= 0 when it
 * has none), honouring NO_COLOR (no_color: its value or NULL; non-empty
 * means monochrome, per no-color.org). */
enum palette_depth palette_depth_for(int ncolors, const char *no_color);

/* Nearest xterm-256 colour to c among p's (p NULL or p->xterm NULL: the
 * cube and grey ramp, 16..255). */
int palette_to_256(const struct palette *p, struct palette_rgb c);
/* The RGB value of xterm-256 colour n (16..255; others give black). */
struct palette_rgb palette_xterm_rgb(int n);

/* An ANSI colour number (1 red, 3 yellow, 5 magenta) for c, for 8-colour
 * terminals; black text stays readable on all three. */
int palette_to_8(struct palette_rgb c);

#endif
