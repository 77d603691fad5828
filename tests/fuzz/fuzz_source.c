/* libFuzzer harness: compressed input (source.c), gzip by both inflaters.
 * The first byte selects: bit 0, the rest goes through a pipe (read in
 * slices, inflated inline) instead of a mapped file (inflated on a
 * thread). The rest is read once with ISA-L (when built with it) and once
 * with zlib (TFLAME_INFLATE=zlib); the two must agree: both end well or
 * both with an error, and what one delivered is a prefix of what the
 * other did (equal when both end well). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzzsrc.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

/* What the source delivers, into a malloc'ed buffer; *failed when it
 * ended with an error. */
static unsigned char *drain(const uint8_t *data, size_t size, bool pipe_it, size_t *len, bool *failed)
{
	struct source *s = fuzz_source(path, data, size, pipe_it);
	size_t cap = 4096, n = 0;
	unsigned char *out = malloc(cap);
	const char *b;
	ssize_t r;
	if (!out)
		abort();
	while ((r = source_next(s, &b)) > 0) {
		if (n + (size_t)r > cap) {
			while (n + (size_t)r > cap)
				cap *= 2;
			out = realloc(out, cap);
			if (!out)
				abort();
		}
		memcpy(out + n, b, (size_t)r);
		n += (size_t)r;
	}
	*failed = r < 0;
	if (r < 0) {
		/* a message for the terminal: no control bytes */
		for (const unsigned char *c = (const unsigned char *)source_error(s); *c; c++)
			if (*c < 0x20 || *c == 0x7f)
				abort();
	}
	source_close(s);
	*len = n;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/fuzz_source.%d", (int)getpid());
	bool pipe_it = data[0] & 1;
	size_t na, nb;
	bool fa, fb;
	unsetenv("TFLAME_INFLATE");
	unsigned char *a = drain(data + 1, size - 1, pipe_it, &na, &fa);
	setenv("TFLAME_INFLATE", "zlib", 1);
	unsigned char *b = drain(data + 1, size - 1, pipe_it, &nb, &fb);
	unsetenv("TFLAME_INFLATE");
	if (fa != fb)
		abort();        /* one inflater took what the other refused */
	if (!fa && na != nb)
		abort();
	if (memcmp(a, b, na < nb ? na : nb) != 0)
		abort();
	free(a);
	free(b);
	unlink(path);
	return 0;
}
