/* load_cuts: where the parallel loader cuts a mapped file into pieces. The
 * cost is counted in bytes searched (deterministic, unlike a timing): a
 * search that ran on to the end of the file for each piece read
 * pieces * len / 2 bytes on a file with few newlines (issue 21, defect 3). */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "load.h"
#include "tap.h"

#define WANT 4096

static size_t cut[WANT + 1];

/* A first line, then `len` bytes in all, the rest NUL (no newline). */
static char *line_then_nuls(const char *line, size_t len)
{
	char *d = calloc(1, len);
	memcpy(d, line, strlen(line));
	return d;
}

static void few_newlines(void)
{
	size_t len = (size_t)4 << 20;
	uint64_t scanned;

	char *d = line_then_nuls("a;b 1\n", len);
	size_t k = load_cuts(d, len, false, WANT, cut, &scanned);
	is_int((long long)k, 1, "folded, one line then 4 MiB of NULs: one piece");
	ok(cut[0] == 0 && cut[1] == len, "  ... covering the file");
	ok(scanned <= 2 * (uint64_t)len, "  ... found with %llu bytes searched for %zu bytes (a search to the end per piece: ~%llu)",
	   (unsigned long long)scanned, len, (unsigned long long)len / 2 * WANT);
	free(d);

	d = line_then_nuls("p 1 [000] 1.0: cycles:\n\tff main (/bin/p)\n\n", len);
	k = load_cuts(d, len, true, WANT, cut, &scanned);
	is_int((long long)k, 1, "perf script, one record then 4 MiB of NULs: one piece");
	ok(scanned <= 2 * (uint64_t)len, "  ... found with %llu bytes searched for %zu bytes",
	   (unsigned long long)scanned, len);
	free(d);

	/* Lines all over, no blank line: no record boundary anywhere. */
	d = malloc(len);
	for (size_t i = 0; i < len; i++)
		d[i] = i % 64 == 63 ? '\n' : 'x';
	k = load_cuts(d, len, true, WANT, cut, &scanned);
	is_int((long long)k, 1, "perf script without blank lines: one piece");
	ok(scanned <= 2 * (uint64_t)len, "  ... found with %llu bytes searched for %zu bytes",
	   (unsigned long long)scanned, len);
	free(d);

	/* One newline near the end only. */
	d = calloc(1, len);
	d[len - 10] = '\n';
	k = load_cuts(d, len, false, WANT, cut, &scanned);
	is_int((long long)k, 2, "folded, one newline 10 bytes before the end: two pieces");
	ok(k == 2 && cut[1] == len - 9, "  ... cut after it");
	ok(scanned <= 2 * (uint64_t)len, "  ... found with %llu bytes searched", (unsigned long long)scanned);
	free(d);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The cuts of the first line start at or after each nominal start (len /
 * want * i), found by an unbounded search, repeats and the end dropped:
 * what bounding each search must not change. */
static size_t reference_cuts(const char *d, size_t len, size_t want, size_t *out)
{
	size_t k = 1;
	out[0] = 0;
	for (size_t i = 1; i < want; i++) {
		size_t from = len / want * i;
		const char *nl = memchr(d + from, '\n', len - from);
		size_t c = nl ? (size_t)(nl - d) + 1 : 0;
		if (c > out[k - 1] && c < len)
			out[k++] = c;
	}
	out[k] = len;
	return k;
}

static bool blank_line_before(const char *d, size_t c)
{
	if (c == 0 || d[c - 1] != '\n')
		return false;
	for (size_t i = c - 1; i-- > 0 && d[i] != '\n';)
		if (!strchr(" \t\r\v\f", d[i]) || d[i] == '\0')
			return false;
	return true;
}

static void random_files(void)
{
	static size_t ref[WANT + 1];
	int same = 0, valid = 0, bounded = 0, runs = 200;
	for (int r = 0; r < runs; r++) {
		size_t len = 1 + next() % 200000, want = 1 + next() % 300;
		/* Newlines from every byte to a few per file; blank lines too. */
		uint64_t every = 1 + next() % (r % 4 == 0 ? 100000 : 64);
		char *d = malloc(len);
		for (size_t i = 0; i < len; i++) {
			uint64_t x = next();
			d[i] = x % every == 0 ? '\n' : (x >> 32) % 8 == 0 ? ' ' : 'x';
		}
		uint64_t scanned;
		size_t k = load_cuts(d, len, false, want, cut, &scanned);
		size_t kr = reference_cuts(d, len, want, ref);
		same += k == kr && memcmp(cut, ref, (k + 1) * sizeof *cut) == 0;
		bounded += scanned <= 2 * (uint64_t)len;
		k = load_cuts(d, len, true, want, cut, &scanned);
		bool v = cut[0] == 0 && cut[k] == len && k <= want && scanned <= 2 * (uint64_t)len;
		for (size_t i = 1; i < k; i++)
			v = v && cut[i] > cut[i - 1] && blank_line_before(d, cut[i]);
		valid += v;
		free(d);
	}
	is_int(same, runs, "random folded files: the cuts of an unbounded search");
	is_int(bounded, runs, "  ... each found with at most 2 * len bytes searched");
	is_int(valid, runs, "random perf script files: cuts just after blank lines, increasing, bounded search");
}

int main(void)
{
	few_newlines();
	random_files();
	return done_testing();
}
