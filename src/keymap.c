/* Placeholder: the key table lands with the UI. */
#include "config.h"
#include "keymap.h"
void keymap_write_help(FILE *out) { (void)out; }
