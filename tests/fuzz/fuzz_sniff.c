/* libFuzzer harness: format detection and the perf line parsers it shares
 * (every line of the input goes through both parsers). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "perfscript.h"
#include "sniff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	/* An exact-size heap copy so ASan sees any read past len. */
	char *copy = malloc(size ? size : 1);
	memcpy(copy, s, size);
	for (int eof = 0; eof < 2; eof++) {
		uint64_t bad = 0;
		enum sniff_format f = sniff_detect(copy, size, eof, &bad);
		if (f == SNIFF_UNKNOWN && eof && bad == 0)
			abort();    /* UNKNOWN must name the deciding line */
	}
	for (size_t p = 0; p < size;) {
		const char *nl = memchr(copy + p, '\n', size - p);
		size_t n = nl ? (size_t)(nl - (copy + p)) : size - p;
		char *line = malloc(n ? n : 1);
		memcpy(line, copy + p, n);
		struct perf_event_parts ep;
		if (perf_event_line_parts(line, n, &ep) &&
		    (ep.end > n || ep.comm + ep.comm_len > line + n))
			abort();
		const char *ls = line;
		size_t ln = n;
		perf_trim(&ls, &ln);
		struct perf_frame_parts fp;
		if (perf_frame_line_parts(ls, ln, &fp) &&
		    ((fp.module_len && fp.module + fp.module_len > line + n) ||
		     (fp.pc_len && fp.pc + fp.pc_len > line + n)))
			abort();
		free(line);
		p += n + 1;
	}
	free(copy);
	return 0;
}
