/* script: key scripts for the headless browser (see script.h). */
#include "config.h"
#include "script.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "text.h"
#include "xalloc.h"

#define SCRIPT_KEYS_MAX 64      /* key names timed apart in a benchmark */

struct script_stat {
	char name[32];
	unsigned n;
	double layout_sum, layout_max, render_sum, render_max;
};

/* The key of a token, or ERR. */
static int key_of(const char *tok)
{
	static const struct { const char *name; int key; } names[] = {
		{ "Enter", '\n' }, { "BS", KEY_BACKSPACE }, { "Esc", 27 }, { "Tab", '\t' },
		{ "Space", ' ' }, { "Left", KEY_LEFT }, { "Right", KEY_RIGHT }, { "Up", KEY_UP },
		{ "Down", KEY_DOWN }, { "Home", KEY_HOME }, { "End", KEY_END }, { "PgUp", KEY_PPAGE },
		{ "PgDn", KEY_NPAGE }, { "Del", KEY_DC },
	};
	if (tok[0] && !tok[1])
		return (unsigned char)tok[0];
	if (tok[0] == 'C' && tok[1] == '-' && tok[2] >= 'a' && tok[2] <= 'z' && !tok[3])
		return tok[2] & 0x1f;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(tok, names[i].name) == 0)
			return names[i].key;
	return ERR;
}

static void stat_add(struct script_stat *st, size_t *n, const char *name, double l, double r)
{
	size_t i;
	for (i = 0; i < *n && strcmp(st[i].name, name) != 0; i++)
		;
	if (i == *n) {
		if (*n == SCRIPT_KEYS_MAX)
			return;
		snprintf(st[(*n)++].name, sizeof st[0].name, "%s", name);
	}
	st[i].n++;
	st[i].layout_sum += l;
	st[i].render_sum += r;
	if (l > st[i].layout_max)
		st[i].layout_max = l;
	if (r > st[i].render_max)
		st[i].render_max = r;
}

static int bad_token(const char *tok, size_t at)
{
	char safe[64];
	text_sanitize(tok, strlen(tok), safe, sizeof safe);
	fprintf(stderr, "tflame: key script: unknown token '%s' at byte %zu\n", safe, at + 1);
	return 2;
}

int script_run(const struct tree *t, const struct ui_options *o, const char *keys, int cols,
               int lines, FILE *out, bool bench)
{
	struct ui *u = ui_headless_open(t, o, cols, lines);
	if (!u)
		return 1;
	struct script_stat *st = bench ? xcalloc(SCRIPT_KEYS_MAX, sizeof *st) : NULL;
	size_t nst = 0;
	int rc = 0;
	bool narrow = false, alive = true;
	const char *p = keys;
	while (*p && alive) {
		size_t len = strcspn(p, " \t\r\n");
		if (len == 0) {
			p++;
			continue;
		}
		size_t at = (size_t)(p - keys);
		if (*p == '#') {        /* a comment, to the end of the line */
			p += strcspn(p, "\n");
			continue;
		}
		char tok[256];
		snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), p);
		p += len;
		long reps = 1;
		char *star = strchr(tok + 1, '*');
		if (star) {
			char *end;
			reps = strtol(star + 1, &end, 10);
			if (*end || reps < 0 || reps > 1000000) {
				rc = bad_token(tok, at);
				break;
			}
			*star = '\0';
		}
		int c, l;
		char x;
		if (strcmp(tok, "dump") == 0) {
			for (long r = 0; r < reps; r++)
				ui_headless_dump(u, out);
		} else if (strcmp(tok, "pause") == 0) {
			struct timespec ts = { 0, 500000000 };
			for (long r = 0; r < reps; r++)
				nanosleep(&ts, NULL);
		} else if (sscanf(tok, "size=%d%c%d", &c, &x, &l) == 3 && x == 'x' && c > 0 && l > 0 &&
		           c <= 10000 && l <= 10000) {
			cols = c;
			lines = l;
			alive = ui_headless_resize(u, cols, lines, NULL, NULL);
		} else if (strcmp(tok, "resize") == 0) {
			for (long r = 0; r < reps && alive; r++) {
				double hl, dr;
				narrow = !narrow;
				alive = ui_headless_resize(u, narrow ? cols - 10 : cols, lines, &hl, &dr);
				if (st)
					stat_add(st, &nst, tok, hl, dr);
			}
		} else if (strncmp(tok, "type=", 5) == 0) {
			for (long r = 0; r < reps && alive; r++)
				for (const char *q = tok + 5; *q && alive; q++)
					alive = ui_headless_key(u, (unsigned char)*q, NULL, NULL);
		} else {
			int key = key_of(tok);
			if (key == ERR) {
				rc = bad_token(tok, at);
				break;
			}
			for (long r = 0; r < reps && alive; r++) {
				double hl, dr;
				alive = ui_headless_key(u, key, &hl, &dr);
				if (st)
					stat_add(st, &nst, tok, hl, dr);
			}
		}
	}
	ui_headless_close(u);
	if (st) {
		for (size_t i = 0; i < nst; i++)
			fprintf(stderr, "bench-key %s n %u layout_ms %.3f %.3f render_ms %.3f %.3f\n", st[i].name,
			        st[i].n, st[i].layout_sum / st[i].n, st[i].layout_max, st[i].render_sum / st[i].n,
			        st[i].render_max);
		free(st);
	}
	return rc;
}
