/* Placeholder until the browser lands. */
#include "config.h"
#include "ui.h"
#include <stdio.h>
int ui_run(const struct tree *t, const struct ui_options *o) { (void)t; (void)o; fputs("tflame: the browser is not built yet; use --print\n", stderr); return 1; }
