/* libFuzzer harness: the folded reader. The input is fed in two blocks cut
 * at a newline chosen by the first byte (the reader must not keep pointers
 * into a block it has been given), then the tree is finalized and used. */
#include "config.h"
#include <string.h>
#include "common.h"
#include "folded.h"

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
	/* Split after the k-th newline; the first block is copied and wiped
	 * after use, as a stream buffer would be overwritten. */
	size_t cut = 0;
	for (unsigned k = (sel >> 3) & 7; k > 0 && cut < len; k--) {
		const char *nl = memchr(s + cut, '\n', len - cut);
		cut = nl ? (size_t)(nl - s) + 1 : len;
	}
	char *first = malloc(cut ? cut : 1);
	memcpy(first, s, cut);
	folded_reader_feed(r, first, cut);
	memset(first, 'X', cut);
	free(first);
	folded_reader_feed(r, s + cut, len - cut);
	const struct reader_diag *d = folded_reader_diag(r);
	if (d->bad > d->lines || d->stacks > d->lines)
		abort();
	folded_reader_free(r);
	fuzz_use_tree(&t, sel);
	tree_free(&t);
	return 0;
}
