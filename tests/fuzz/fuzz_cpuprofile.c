/* libFuzzer harness: the V8 .cpuprofile / Chrome trace reader
 * (cpuprofile.c over json.c and yajl). The first input byte selects
 * options; the rest is the file, read either mapped (a file) or as a
 * stream (a pipe on stdin, so source_read slices it), then the tree is
 * finalized and used like every other loaded tree (common.h).
 *   bit 0:   read from a pipe instead of a mapped file
 *   bit 1:   keep sample times (each timed sample is a count of its leaf)
 *   bit 2-7: passed on to fuzz_use_tree */
#include "config.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "fuzzsrc.h"
#include "cpuprofile.h"
#include "source.h"

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
		snprintf(path, sizeof path, "/tmp/tflame-fuzz-cpuprofile.%ld", (long)getpid());
	data++;
	size--;
	cpuprofile_sniff(data, size, true);
	struct source *s = fuzz_source(path, data, size, sel & 1);
	struct cpuprofile_info info;
	struct timeline tl;
	timeline_init(&tl);
	struct cpuprofile_options o = { .timeline = sel & 2 ? &tl : NULL, .info = &info };
	struct tree t;
	tree_init(&t);
	int rc = cpuprofile_load(&t, s, "fuzz", &o, on_msg, NULL);
	source_close(s);
	unlink(path);
	if (rc != 0 && rc != 1)
		abort();
	if (rc == 1 && tree_size(&t) > 1)
		abort();    /* "nothing was added" */
	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	tree_idx *map;
	tree_finalize_map(&t, orders[(sel >> 2) % 3], &map);
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	/* the timed samples of a leaf are some of its samples */
	uint64_t *self = calloc(tree_size(&t), sizeof *self);
	if (!self)
		abort();
	timeline_self(&tl, 0, UINT64_MAX, NULL, self, tree_size(&t));
	for (size_t i = 0; i < tree_size(&t); i++)
		if (self[i] > tree_node(&t, (tree_idx)i)->self.u)
			abort();
	free(self);
	timeline_free(&tl);
	fuzz_use_tree(&t, sel >> 2);
	tree_free(&t);
	return 0;
}
