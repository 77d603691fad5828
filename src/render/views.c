#include "config.h"
#include "views.h"

#include <string.h>
#include "text.h"
#include "toptable.h"
#include "transform.h"

int views_print_sandwich(const struct tree *t, const char *name, size_t len,
                         enum tree_order order, const struct printer_options *po, FILE *out,
                         char *err, size_t errsize)
{
	int64_t id = strtab_find(&t->names, name, len);
	if (id <= 0) {
		char safe[128];
		text_sanitize(name, len, safe, sizeof safe);
		snprintf(err, errsize, "no frame named '%s'", safe);
		return 1;
	}
	struct tree callers, callees;
	transform_callers(t, (strtab_id)id, order, &callers);
	transform_focus(t, (strtab_id)id, order, &callees);
	char safe[256], count[64], head[400];
	text_sanitize(name, len, safe, sizeof safe);
	tree_format_count(&callees, tree_node(&callees, TREE_ROOT)->total, count, sizeof count);
	double all = tree_total_d(t, TREE_ROOT);
	double pct = all > 0 ? 100.0 * tree_total_d(&callees, TREE_ROOT) / all : 0.0;
	/* Both trees are "all" -> name -> ...: show them from name on. */
	struct printer_options o = *po;
	o.zoom = tree_first_child(&callers, TREE_ROOT);
	o.no_ancestors = true;
	o.search = NULL;    /* it holds nodes of t, not of these trees */
	int rc = 0;
	if (o.zoom == TREE_NONE) {      /* the function has no samples */
		rc = fprintf(out, "sandwich of %s: 0 samples\n", safe) < 0 ? -1 : 0;
	} else {
		snprintf(head, sizeof head, "callers of %s: %s samples, %.2f%% of all", safe, count, pct);
		o.header = head;
		o.orient = LAYOUT_FLAME;
		rc = printer_print(&callers, &o, out);
		snprintf(head, sizeof head, "callees of %s:", safe);
		o.orient = LAYOUT_ICICLE;
		o.zoom = tree_first_child(&callees, TREE_ROOT);
		if (rc == 0)
			rc = printer_print(&callees, &o, out);
	}
	tree_free(&callers);
	tree_free(&callees);
	return rc;
}

tree_idx views_hottest(const struct tree *t)
{
	struct toptable tt;
	toptable_compute(&tt, t, TREE_ROOT, TOPTABLE_SELF);
	tree_idx best = TREE_NONE;
	if (tt.n > 0) {
		/* Any node with that name will do for callers: find one. */
		for (tree_idx i = 1; i < tree_size(t) && best == TREE_NONE; i++)
			if (tree_node(t, i)->name == tt.rows[0].name)
				best = i;
	}
	toptable_free(&tt);
	return best;
}
