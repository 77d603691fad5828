/* libFuzzer harness: the folded reader. The input is fed in two blocks cut
 * at a newline chosen by the first byte (the reader must not keep pointers
 * into a block it has been given), then the tree is finalized and used. */
#include "config.h"
#include <string.h>
#include "common.h"
#include "folded.h"

static void feed_folded(void *r, const char *buf, size_t n)
{
	folded_reader_feed(r, buf, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	const char *s = (const char *)data + 1;
	size_t len = size - 1;
	struct tree t;
	tree_init(&t);
	t.chart = (sel & 0x80) != 0;
	struct folded_reader *r = folded_reader_new(&t);
	fuzz_feed_split(feed_folded, r, s, len, (sel >> 3) & 7);
	const struct reader_diag *d = folded_reader_diag(r);
	if (d->bad > d->lines || d->stacks > d->lines)
		abort();
	folded_reader_free(r);
	fuzz_use_tree(&t, sel);
	tree_free(&t);
	return 0;
}
