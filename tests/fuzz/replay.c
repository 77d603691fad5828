/* Runs a libFuzzer harness without libFuzzer: each file named on the
 * command line is one input. `make check` replays the kept crashers and
 * the fuzz seeds this way (tests/fuzz/replay.sh), so a fixed finding stays
 * fixed, under the sanitizers too. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t cap = 4096, n = 0, r;
		uint8_t *buf = malloc(cap);
		while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
			n += r;
			if (n == cap)
				buf = realloc(buf, cap *= 2);
		}
		fclose(f);
		if (!buf)
			return 1;
		/* An exact-size copy, so ASan catches a read one past the end. */
		uint8_t *exact = malloc(n ? n : 1);
		for (size_t k = 0; k < n; k++)
			exact[k] = buf[k];
		free(buf);
		LLVMFuzzerTestOneInput(exact, n);
		free(exact);
	}
	return 0;
}
