/* libFuzzer harness: the perf script reader with options taken from the
 * first byte, input fed in two blocks cut at a newline. */
#include "config.h"
#include <string.h>
#include "common.h"
#include "dsomap.h"
#include "perfscript.h"

static void feed_perf(void *r, const char *buf, size_t n)
{
	perf_reader_feed(r, buf, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned sel = data[0], opt = data[1];
	const char *s = (const char *)data + 2;
	size_t len = size - 2;
	struct perf_options o = {
		.pid = opt & 1, .tid = opt & 2, .kernel = opt & 4, .jit = opt & 8,
		.addrs = opt & 16, .mid_stream = opt & 32,
		.event_filter = opt & 64 ? "cycles" : NULL,
	};
	struct tree t;
	tree_init(&t);
	t.chart = (opt & 0x80) != 0;
	struct perf_reader *r = perf_reader_new(&t, &o);
	struct dsomap m;
	dsomap_init(&m);
	if (sel & 0x10)     /* half the runs note each frame's object too */
		perf_reader_set_dsos(r, &m);
	fuzz_feed_split(feed_perf, r, s, len, sel & 15);
	perf_reader_finish(r);
	const struct reader_diag *d = perf_reader_diag(r);
	if (d->bad > d->lines)
		abort();
	perf_reader_filter(r);
	perf_reader_free(r);
	/* every name noted is one of the tree's */
	if (m.cap && strtab_count(&t.names) < m.cap)
		for (size_t k = strtab_count(&t.names); k < m.cap; k++)
			if (m.of[k] != DSOMAP_NONE)
				abort();
	dsomap_free(&m);
	fuzz_use_tree(&t, sel >> 4);
	tree_free(&t);
	return 0;
}
