/* libFuzzer harness: the speedscope reader (speedscope.c over json.c and
 * yajl). The first input byte selects options; the rest is the file, read
 * either mapped (a file) or as a stream (a pipe on stdin, so source_read
 * slices it), then the tree is finalized and used like every other loaded
 * tree (common.h).
 *   bit 0:   read from a pipe instead of a mapped file
 *   bit 1-2: --profile: none, "1", "2", "a"
 *   bit 3-7: passed on to fuzz_use_tree */
#include "config.h"
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "fuzzsrc.h"
#include "source.h"
#include "speedscope.h"
#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void on_msg(void *arg, const char *text)
{
	(void)arg;
	/* Messages are shown on a terminal: no control bytes, one line. */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
	if (strncmp(text, "tflame: ", 8) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/tflame-fuzz-speedscope.%ld", (long)getpid());
	data++;
	size--;
	speedscope_sniff(data, size, true);
	struct source *s = fuzz_source(path, data, size, sel & 1);
	static const char *const picks[] = { NULL, "1", "2", "a" };
	struct speedscope_info info;
	struct timeline tl;
	timeline_init(&tl);
	struct speedscope_options o = { .profile = picks[(sel >> 1) & 3], .info = &info,
	                                .timeline = sel & 8 ? &tl : NULL };
	struct tree t;
	tree_init(&t);
	int rc = speedscope_load(&t, s, "fuzz", &o, on_msg, NULL);
	source_close(s);
	unlink(path);
	if (rc != 0 && rc != 1)
		abort();
	if (rc == 1 && tree_size(&t) > 1)
		abort();    /* "nothing was added" */
	if (rc == 0 && (!memchr(info.unit, 0, sizeof info.unit) || !memchr(info.name, 0, sizeof info.name)))
		abort();
	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	tree_idx *map;
	tree_finalize_map(&t, orders[(sel >> 3) % 3], &map);    /* as fuzz_use_tree would */
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	/* integer weights: a leaf's timed weight is its self weight */
	uint64_t *self = calloc(tree_size(&t), sizeof *self);
	if (!self)
		abort();
	timeline_self(&tl, 0, UINT64_MAX, NULL, self, tree_size(&t));
	for (size_t i = 0; i < tree_size(&t) && !t.frac && !t.saturated; i++)
		if (self[i] != 0 && self[i] != tree_node(&t, (tree_idx)i)->self.u)
			abort();
	free(self);
	timeline_free(&tl);
	fuzz_use_tree(&t, sel >> 3);
	tree_free(&t);
	return 0;
}
