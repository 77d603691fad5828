/* script: the browser driven by a key script, headless (no terminal): for
 * tests (golden screens), automation (--script) and the key benchmark
 * (--bench-keys).
 *
 * A script is tokens separated by blanks (a '#' token starts a comment to
 * the end of its line):
 *   x            the key of one character ("j", "/", "*")
 *   NAME         Enter BS Esc Tab Space Left Right Up Down Home End PgUp
 *                PgDn Del, or C-x for Ctrl and a letter
 *   TOKEN*N      a key N times ("j*10")
 *   size=CxL     the screen becomes C columns by L lines
 *   resize       the width 10 columns less, then back (benchmarks)
 *   dump         write the screen as text (every line, trailing blanks cut)
 *   type=TEXT    each byte of TEXT as a key (TEXT has no blanks)
 *   pause        half a second, in which background work may finish
 * Each key is handled and its search passes finished before the next, so
 * what a script shows does not depend on the machine's speed. */
#ifndef TFLAME_SCRIPT_H
#define TFLAME_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>
#include "tree.h"
#include "ui.h"

/* Plays keys on the browser of t with o on a cols x lines screen; dumps go
 * to out. With bench, each key's handling and drawing times go to stderr
 * at the end, one line per key name: "bench-key NAME n N layout_ms MEAN
 * MAX render_ms MEAN MAX". Returns the exit status: 0, or 2 for a bad
 * token (said on stderr, with its position), 1 when no screen opens. */
int script_run(const struct tree *t, const struct ui_options *o, const char *keys, int cols,
               int lines, FILE *out, bool bench);

#endif
