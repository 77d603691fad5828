/* libFuzzer harness: the perf script reader with options taken from the
 * first byte, input fed in two blocks cut at a newline. */
#include "config.h"
#include <string.h>
#include "common.h"
#include "perfscript.h"

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
	size_t cut = 0;
	for (unsigned k = sel & 15; k > 0 && cut < len; k--) {
		const char *nl = memchr(s + cut, '\n', len - cut);
		cut = nl ? (size_t)(nl - s) + 1 : len;
	}
	char *first = malloc(cut ? cut : 1);
	memcpy(first, s, cut);
	perf_reader_feed(r, first, cut);
	memset(first, 'X', cut);
	free(first);
	perf_reader_feed(r, s + cut, len - cut);
	perf_reader_finish(r);
	const struct reader_diag *d = perf_reader_diag(r);
	if (d->bad > d->lines)
		abort();
	perf_reader_filter(r);
	perf_reader_free(r);
	fuzz_use_tree(&t, sel >> 4);
	tree_free(&t);
	return 0;
}
