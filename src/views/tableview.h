/* tableview: the top table as a screen (Tab in the browser): its rows,
 * sort key, regex filter, selection and scrolling, and its drawing. The
 * browser (ui.c) owns the terminal, the breadcrumb and status lines; this
 * draws only the rows area it is given. */
#ifndef TFLAME_TABLEVIEW_H
#define TFLAME_TABLEVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include "toptable.h"
#include "tree.h"

struct tableview;

struct tableview *tableview_new(enum toptable_key key);
void tableview_free(struct tableview *tv);

/* Computes the rows of t's subtree at zoom (O(subtree + names), once per
 * Tab, not per key); keeps the sort key and filter, selects the first row. */
void tableview_load(struct tableview *tv, const struct tree *t, tree_idx zoom);
/* --diff: after a load, BEFORE's totals for the same functions at bzoom
 * (the node of BEFORE at the zoom root's path, TREE_NONE when BEFORE has
 * none), times scale: the rows gain BEFORE, DELTA and DELTA% instead of
 * CALLERS. before NULL: not a diff. O(BEFORE's subtree + names). */
void tableview_set_before(struct tableview *tv, const struct tree *before, tree_idx bzoom, double scale);
/* Re-sorts (O(rows log rows)); the selected function stays selected. */
void tableview_sort(struct tableview *tv, enum toptable_key key);
enum toptable_key tableview_sort_key(const struct tableview *tv);
/* Shows only rows whose name matches the regex pattern (rx.h; smart case:
 * case-insensitive unless it has an upper-case letter); "" shows all.
 * False with rx_new's message in err when it does not compile (filter
 * kept). A name the pattern is too costly on is not shown. */
bool tableview_filter(struct tableview *tv, const char *pattern, char *err, size_t errsize);
/* Rows the last filtering was too costly on (rx.h), left out. */
size_t tableview_costly(const struct tableview *tv);
/* Moves the selection by delta rows (clamped); page moves use the height
 * of the last draw. */
void tableview_move(struct tableview *tv, long delta);
void tableview_page(struct tableview *tv, int dir);
/* Selects the row drawn on line `row` of the rows area (0 = the first row
 * under the header) at the last draw; false when no row is there. */
bool tableview_click(struct tableview *tv, int row);
/* The selected row's name, false when no row is shown. */
bool tableview_selected(const struct tableview *tv, strtab_id *name);

/* Draws the header and rows in lines [y0, y0 + h) of width w; buf is
 * scratch of bufsize >= TEXT_FIT_BYTES(w + 1). Work is O(h). The SELF
 * and TOTAL columns are exact ("49,154,250,000") unless that leaves the
 * function names less than TABLEVIEW_NAME_MIN columns: then they take
 * unit_number_short's form in unit u (NULL: samples). */
#define TABLEVIEW_NAME_MIN 24
struct unit;
void tableview_draw(struct tableview *tv, int y0, int h, int w, const struct unit *u, char *buf,
                    size_t bufsize);
/* One line for the status row: "12 of 40 functions  ·  sort: self  ·  /re". */
void tableview_status(const struct tableview *tv, char *buf, size_t size);

#endif
