/* gzfile.h: data gzip'ed into a file, for the tests of compressed input
 * (test_pprof, fuzz_pprof). */
#ifndef TFLAME_TEST_GZFILE_H
#define TFLAME_TEST_GZFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

/* data[0..size) gzip'ed (zlib, level 1) into the file at path; aborts
 * when it cannot. */
__attribute__((unused))
static void gz_write_file(const char *path, const void *data, size_t size)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	uLong cap = deflateBound(&z, (uLong)size);
	unsigned char *out = malloc(cap);
	if (!out)
		abort();
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(out, 1, z.total_out, f) != z.total_out)
		abort();
	fclose(f);
	deflateEnd(&z);
	free(out);
}

#endif
