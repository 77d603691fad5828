/* keymap: key -> action table (placeholder until the UI lands). */
#ifndef TFLAME_KEYMAP_H
#define TFLAME_KEYMAP_H
#include <stdio.h>
/* Writes the key table as "KEYS<TAB>DESCRIPTION" lines. */
void keymap_write_help(FILE *out);
#endif
