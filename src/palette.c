#include "config.h"
#include "palette.h"

#include <string.h>

/* A fraction in [0, 1] from 16 bits of the hash. */
static double hash_frac(uint64_t hash, int shift)
{
	return (double)((hash >> shift) & 0xffffu) / 65535.0;
}

static struct palette_rgb hot_color(const char *s, size_t len, uint64_t hash)
{
	(void)s;
	(void)len;
	/* As flamegraph.pl's hot with --hash: three independent draws per name. */
	struct palette_rgb c;
	c.r = (uint8_t)(205 + (int)(50 * hash_frac(hash, 0) + 0.5));
	c.g = (uint8_t)(int)(230 * hash_frac(hash, 16) + 0.5);
	c.b = (uint8_t)(int)(55 * hash_frac(hash, 32) + 0.5);
	return c;
}

/* Cube colours with red 215/255, green 0..215 and no blue, plus the
 * lighter ones with blue 95 where green keeps them yellow, not pink. */
static const uint8_t hot_xterm[] = {
	160, 166, 172, 178, 184,        /* r 215, b 0 */
	196, 202, 208, 214, 220,        /* r 255, b 0 */
	173, 179, 185,                  /* r 215, g >= 135, b 95 */
	209, 215, 221,                  /* r 255, g >= 135, b 95 */
};

const struct palette palette_hot = {
	"hot", "warm reds and yellows, as flamegraph.pl's default", hot_color,
	hot_xterm, sizeof hot_xterm
};

const struct palette *const palette_list[] = { &palette_hot, NULL };

const struct palette *palette_find(const char *name)
{
	for (size_t i = 0; palette_list[i]; i++)
		if (strcmp(palette_list[i]->name, name) == 0)
			return palette_list[i];
	return NULL;
}

enum palette_depth palette_depth_for(int ncolors, const char *no_color)
{
	if (no_color && *no_color)
		return PALETTE_MONO;
	if (ncolors >= 256)
		return PALETTE_256;
	if (ncolors >= 8)
		return PALETTE_8;
	return PALETTE_MONO;
}

static const int cube_level[6] = { 0, 95, 135, 175, 215, 255 };

static int nearest_cube_index(int v)
{
	int best = 0;
	for (int i = 1; i < 6; i++) {
		int d = v - cube_level[i], bd = v - cube_level[best];
		if (d * d < bd * bd)
			best = i;
	}
	return best;
}

static int sq(int v) { return v * v; }

struct palette_rgb palette_xterm_rgb(int n)
{
	struct palette_rgb c = { 0, 0, 0 };
	if (n >= 16 && n < 232) {
		n -= 16;
		c.r = (uint8_t)cube_level[n / 36];
		c.g = (uint8_t)cube_level[n / 6 % 6];
		c.b = (uint8_t)cube_level[n % 6];
	} else if (n >= 232 && n < 256) {
		c.r = c.g = c.b = (uint8_t)(8 + 10 * (n - 232));
	}
	return c;
}

static int nearest_in(const uint8_t *set, size_t n, struct palette_rgb c)
{
	int best = set[0], bd = -1;
	for (size_t i = 0; i < n; i++) {
		struct palette_rgb x = palette_xterm_rgb(set[i]);
		int d = sq(c.r - x.r) + sq(c.g - x.g) + sq(c.b - x.b);
		if (bd < 0 || d < bd) {
			bd = d;
			best = set[i];
		}
	}
	return best;
}

int palette_to_256(const struct palette *p, struct palette_rgb c)
{
	if (p && p->xterm && p->nxterm)
		return nearest_in(p->xterm, p->nxterm, c);

	int ri = nearest_cube_index(c.r), gi = nearest_cube_index(c.g), bi = nearest_cube_index(c.b);
	int cube_d = sq(c.r - cube_level[ri]) + sq(c.g - cube_level[gi]) + sq(c.b - cube_level[bi]);

	/* Grey ramp 232..255 is 8, 18, ..., 238. */
	int avg = (c.r + c.g + c.b) / 3;
	int gi24 = avg < 8 ? 0 : (avg - 8 + 5) / 10;
	if (gi24 > 23)
		gi24 = 23;
	int gv = 8 + 10 * gi24;
	int grey_d = sq(c.r - gv) + sq(c.g - gv) + sq(c.b - gv);

	if (grey_d < cube_d)
		return 232 + gi24;
	return 16 + 36 * ri + 6 * gi + bi;
}

int palette_to_8(struct palette_rgb c)
{
	/* Warm colours differ mostly in green: red, orange, yellow. Orange has
	 * no ANSI colour; magenta keeps it distinct from both neighbours. */
	if (c.g < 77)
		return 1;
	if (c.g < 154)
		return 5;
	return 3;
}
