/* load_cuts: where the parallel loader cuts a mapped file into pieces. The
 * cost is counted in bytes searched (deterministic, unlike a timing): a
 * search that ran on to the end of the file for each piece read
 * pieces * len / 2 bytes on a file with few newlines (issue 21, defect 3). */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "load.h"
#include "loadint.h"
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


/* ---- the same tree however the file is read (issue 20) -------------------
 * Generated folded files of unique stacks, sorted and shuffled, read on 1
 * and 2 threads in small pieces: --collapse's text must be the sorted file
 * (sorted here with strcmp, not by tflame), and each order's tree the same
 * on 1 and 2 threads. */

static const char *const vocab[] = {
	"main", "a", "ab", "a b", "a:", "a(int)", "b", "read", "read_[k]", "write",
	"std::vector<int>::push_back", "f", "f2", "g", "x", "xy", "zz", "\xc3\xa9t\xc3\xa9",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* n unique stacks (fewer when duplicates were drawn), sorted, in *out;
 * returns how many. Stacks share prefixes as call trees do: each starts as
 * a random prefix of the one before. */
static size_t gen_stacks(size_t n, size_t depth, char ***out)
{
	char **v = malloc(n * sizeof *v);
	size_t prevd = 0, idx[64] = { 0 };
	for (size_t i = 0; i < n; i++) {
		size_t keep = prevd ? next() % (prevd + 1) : 0;
		size_t d = keep + 1 + next() % depth;
		if (d > 64)
			d = 64;
		for (size_t k = keep; k < d; k++)
			idx[k] = next() % NVOCAB;
		char buf[2048];
		size_t len = 0;
		for (size_t k = 0; k < d; k++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", k ? ";" : "", vocab[idx[k]]);
		v[i] = strdup(buf);
		prevd = d;
	}
	qsort(v, n, sizeof *v, cmp_str);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && strcmp(v[m - 1], v[i]) == 0)
			free(v[i]);
		else
			v[m++] = v[i];
	}
	*out = v;
	return m;
}

/* The lines "stack COUNT\n" of v[0..n) in the order of perm (NULL: as is). */
static char *write_lines(char **v, const uint64_t *counts, const size_t *perm, size_t n, const char *path)
{
	FILE *f = fopen(path, "w");
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	for (size_t i = 0; i < n; i++) {
		size_t j = perm ? perm[i] : i;
		fprintf(f, "%s %llu\n", v[j], (unsigned long long)counts[j]);
		fprintf(m, "%s %llu\n", v[j], (unsigned long long)counts[j]);
	}
	fclose(f);
	fclose(m);
	return text;
}

/* The tree, node by node in preorder (depth, name, self, total, offset). */
static char *tree_text(const struct tree *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	for (tree_idx i = 0; i < tree_size(t); i++)
		fprintf(m, "%u %s %llu %llu %llu\n", tree_depth(t, i), tree_name(t, i),
		        (unsigned long long)tree_node(t, i)->self.u, (unsigned long long)tree_node(t, i)->total.u,
		        (unsigned long long)tree_node(t, i)->off.u);
	fclose(m);
	return text;
}

/* Makes the scratch directory dir (a mkdtemp template); a failing check
 * when it cannot. */
static bool scratch_dir(char *dir)
{
	if (mkdtemp(dir))
		return true;
	ok(0, "mkdtemp");
	return false;
}

/* Frees v[0..n) and v. */
static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Loads path on `threads` threads (pieces of 4 KiB) and finalizes in
 * order; *folded gets --collapse's text. */
static char *load_text(const char *path, int threads, enum tree_order order, char **folded)
{
	struct tree t;
	tree_init(&t);
	struct load_options o = { .format = SNIFF_UNKNOWN, .threads = threads, .threads_forced = true };
	struct load_messages msgs = { 0 };
	char *const paths[] = { (char *)path };
	int rc = load_files(&t, paths, 1, &o, &msgs);
	if (rc != 0 || msgs.len)
		printf("# load_files: %d %s\n", rc, msgs.text ? msgs.text : "");
	load_messages_free(&msgs);
	tree_finalize(&t, order);
	size_t len = 0;
	*folded = NULL;
	FILE *m = open_memstream(folded, &len);
	tree_write_folded(&t, m);
	fclose(m);
	char *text = tree_text(&t);
	tree_free(&t);
	return text;
}

static void same_trees(void)
{
	char dir[] = "/tmp/tflame-test-load-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char sorted[64], shuffled[64];
	snprintf(sorted, sizeof sorted, "%s/sorted", dir);
	snprintf(shuffled, sizeof shuffled, "%s/shuffled", dir);
	setenv("TFLAME_PIECE_BYTES", "4096", 1);
	enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	const char *oname[] = { "name", "weight", "input" };
	for (int round = 0; round < 3; round++) {
		char **v;
		size_t n = gen_stacks(4000 + 4000 * (size_t)round, 4 + 8 * (size_t)round, &v);
		uint64_t *counts = malloc(n * sizeof *counts);
		size_t *perm = malloc(n * sizeof *perm);
		for (size_t i = 0; i < n; i++) {
			counts[i] = 1 + next() % 1000;
			perm[i] = i;
		}
		for (size_t i = n; i > 1; i--) {
			size_t j = next() % i, x = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = x;
		}
		char *want = write_lines(v, counts, NULL, n, sorted);
		free(write_lines(v, counts, perm, n, shuffled));
		const char *files[] = { sorted, shuffled }, *fname[] = { "sorted", "shuffled" };
		for (int o = 0; o < 3; o++) {
			char *ref = NULL;
			for (int fi = 0; fi < 2; fi++) {
				char *f1, *f2;
				char *t1 = load_text(files[fi], 1, orders[o], &f1);
				char *t2 = load_text(files[fi], 2, orders[o], &f2);
				if (o == 0) {
					is_str(f1, want, "generated stacks: --collapse of the file on 1 thread is the sorted file");
					printf("#   round %d, %zu stacks, %s file\n", round, n, fname[fi]);
				}
				ok(strcmp(t1, t2) == 0, "round %d, %s file, %s order: the same tree on 1 and 2 threads",
				   round, fname[fi], oname[o]);
				ok(strcmp(f1, f2) == 0, "  ... and the same --collapse text");
				/* Name and weight order do not depend on the input's
				 * order: sorted and shuffled give one tree. */
				if (o < 2) {
					if (!ref)
						ref = strdup(t1);
					else
						ok(strcmp(ref, t1) == 0, "round %d, %s order: the same tree from the sorted and the shuffled file",
						   round, oname[o]);
				}
				free(t1);
				free(t2);
				free(f1);
				free(f2);
			}
			free(ref);
		}
		free(want);
		free_strings(v, n);
		free(counts);
		free(perm);
	}
	unsetenv("TFLAME_PIECE_BYTES");
	unlink(sorted);
	unlink(shuffled);
	rmdir(dir);
}

/* ---- big shuffled folded files read in parts (load_parts) ---- */

/* Loads path (TFLAME_PARTS=parts when parts > 0) on `threads` threads in
 * `order`: the tree node by node, whether load_files finalized it (the
 * parts were joined), and the messages, into *msg. */
static char *load_in(const char *path, int threads, enum tree_order order, int parts, bool *joined, char **msg)
{
	char pv[16];
	snprintf(pv, sizeof pv, "%d", parts);
	if (parts > 0)
		setenv("TFLAME_PARTS", pv, 1);
	struct tree t;
	tree_init(&t);
	struct load_options o = { .format = SNIFF_UNKNOWN, .threads = threads, .order = order };
	struct load_messages msgs = { 0 };
	char *const paths[] = { (char *)path };
	load_files(&t, paths, 1, &o, &msgs);
	unsetenv("TFLAME_PARTS");
	*joined = t.finalized;
	*msg = strdup(msgs.text ? msgs.text : "");
	load_messages_free(&msgs);
	tree_finalize(&t, order);
	char *text = tree_text(&t);
	tree_free(&t);
	return text;
}

/* Whether path, loaded on `threads` threads with TFLAME_PARTS=parts in
 * order, gives ref's tree and (msg0 not NULL) msg0's messages; *joined:
 * whether the parts were joined. */
static bool same_as(const char *path, int threads, enum tree_order order, int parts, const char *ref,
                    const char *msg0, bool *joined)
{
	char *msg;
	char *got = load_in(path, threads, order, parts, joined, &msg);
	bool same = strcmp(got, ref) == 0 && (!msg0 || strcmp(msg, msg0) == 0);
	free(got);
	free(msg);
	return same;
}

static void in_parts(void)
{
	char dir[] = "/tmp/tflame-test-parts-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80];
	snprintf(path, sizeof path, "%s/shuffled", dir);
	/* Stacks of the generator, shuffled, with what the folded reader
	 * takes apart from them: blank lines, comments, malformed lines, a
	 * stack of one frame, the empty stack, trailing empty frames, a
	 * BEFORE column, CRLF, a frame ending in a blank, an empty frame. */
	static const char *const odd[] = {
		"", "# comment: 1", "no count here", "solo 3", " 4", "main;a;; 2", "main;ab 10 20", "main;x 1\r",
		"main;i  6", "main;;f 5", "\t", "main;a b;read 7", "a;a;a;a 1",
	};
	const size_t nodd = sizeof odd / sizeof odd[0];
	enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT };
	for (int round = 0; round < 3; round++) {
		char **v;
		size_t n = gen_stacks(3000 + 3000 * (size_t)round, 3 + 5 * (size_t)round, &v);
		size_t *perm = malloc(n * sizeof *perm);
		for (size_t i = 0; i < n; i++)
			perm[i] = i;
		for (size_t i = n; i > 1; i--) {
			size_t j = next() % i, x = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = x;
		}
		FILE *f = fopen(path, "w");
		for (size_t i = 0; i < n; i++) {
			if (i % 97 == 0)
				fprintf(f, "%s\n", odd[(i / 97) % nodd]);
			fprintf(f, "%s %llu\n", v[perm[i]], (unsigned long long)(1 + next() % 1000));
		}
		fprintf(f, "main;last 1");      /* no newline at the end */
		fclose(f);
		for (int o = 0; o < 2; o++) {
			bool joined;
			char *msg0;
			char *ref = load_in(path, 1, orders[o], 0, &joined, &msg0);
			ok(!joined, "round %d: a small file is read the usual way", round);
			const int parts[] = { 1, 7, 64 };
			for (int pi = 0; pi < 3; pi++) {
				for (int th = 1; th <= 3; th += 1) {
					/* (tree_join's threads, as main sets them) */
					tree_set_threads(th);
					bool same = same_as(path, th, orders[o], parts[pi], ref, msg0, &joined);
					tree_set_threads(1);
					ok(joined && same,
					   "round %d, %zu stacks, %s order, %d parts, %d thread%s: read in parts, the same "
					   "tree and messages", round, n, o ? "weight" : "name", parts[pi], th, th > 1 ? "s" : "");
				}
			}
			if (round == 0 && o == 0)
				printf("# messages: %s", msg0);
			ok(strstr(msg0, "malformed line") != NULL, "  ... which say the malformed lines");
			free(ref);
			free(msg0);
		}
		free_strings(v, n);
		free(perm);
	}
	/* What cannot go in parts is read the usual way, with the same
	 * result: a fractional count, a clamped one, a sum beyond 64 bits. */
	static const char *const unfit[] = {
		"a;b 1\nc;d 2.5\na;e 3\n",
		"a;b 1\nc;d 99999999999999999999999\na;e 3\n",
		"a;b 18446744073709551615\nc;d 1\n",
	};
	for (size_t k = 0; k < 3; k++) {
		FILE *f = fopen(path, "w");
		fputs(unfit[k], f);
		fclose(f);
		bool joined, joined0;
		char *msg0, *msg;
		char *ref = load_in(path, 1, TREE_ORDER_NAME, 0, &joined0, &msg0);
		char *got = load_in(path, 2, TREE_ORDER_NAME, 4, &joined, &msg);
		ok(!joined && strcmp(got, ref) == 0 && strcmp(msg, msg0) == 0,
		   "%s: read the usual way, the same tree", k == 0 ? "a fractional count" : k == 1 ? "a clamped count"
		   : "a sum beyond 64 bits");
		free(ref);
		free(got);
		free(msg0);
		free(msg);
	}
	unlink(path);
	rmdir(dir);
}


/* Writes lines[0..n) to path in a random order, each with a count from
 * 1 to 1000. */
static void write_shuffled(const char *path, char **lines, size_t n)
{
	size_t *perm = malloc(n * sizeof *perm);
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = next() % i, x = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	FILE *f = fopen(path, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", lines[perm[i]], (unsigned long long)(1 + next() % 1000));
	fclose(f);
	free(perm);
}

/* Parts go deeper where a subtree is big: a chain of six wrappers that
 * 45% of the lines go through (as genfolded's "JIT Compiler;clone3;write;
 * free;memcpy;start", 8.6% of its lines) is followed down to where it
 * fans out, so that no part holds much more than its share; lines that
 * end on the chain, a lone first frame and a repeated name on the way
 * are merged with the rest as one tree would have them. */
static void deep_parts(void)
{
	char dir[] = "/tmp/tflame-test-deep-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80];
	snprintf(path, sizeof path, "%s/deep", dir);
	char **v;
	size_t nv = gen_stacks(12000, 6, &v), n = 30000;
	char **lines = malloc(n * sizeof *lines);
	for (size_t i = 0; i < n; i++) {
		char buf[2200];
		const char *tail = v[next() % nv];
		switch (i % 20) {
		case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8:
			snprintf(buf, sizeof buf, "w0;w1;w2;w3;w4;w5;%s", tail);
			break;
		case 9:
			snprintf(buf, sizeof buf, "%s", i % 40 == 9 ? "w0;w1;w2" : "w0");
			break;
		case 10: case 11: case 12:
			snprintf(buf, sizeof buf, "k;k;%s", tail);
			break;
		default:
			snprintf(buf, sizeof buf, "%s", tail);
		}
		lines[i] = strdup(buf);
	}
	write_shuffled(path, lines, n);
	enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT };
	for (int o = 0; o < 2; o++) {
		bool joined;
		char *msg0;
		char *ref = load_in(path, 1, orders[o], 0, &joined, &msg0);
		const int parts[] = { 16, 64 };
		for (int pi = 0; pi < 2; pi++) {
			for (int th = 1; th <= 2; th++) {
				tree_set_threads(th);
				bool same = same_as(path, th, orders[o], parts[pi], ref, msg0, &joined);
				tree_set_threads(1);
				ok(joined && same,
				   "a chain of wrappers in 45%% of the lines, %s order, %d parts, %d thread%s: the same tree",
				   o ? "weight" : "name", parts[pi], th, th > 1 ? "s" : "");
				const struct load_parts_stats *st = &load_parts_last;
				if (o == 0 && th == 1)
					ok(st->shared_depth >= 7 && st->biggest * (uint64_t)parts[pi] <= 4 * st->bytes,
					   "  ... shared down to depth %u (the chain is 6 deep, then fans out), the biggest "
					   "part %.1f times the mean (the chain's first two frames alone: 10 times at 16 parts)",
					   st->shared_depth, (double)st->biggest * parts[pi] / (double)st->bytes);
			}
		}
		free(ref);
		free(msg0);
	}
	free_strings(lines, n);
	free_strings(v, nv);
	unlink(path);
	rmdir(dir);
}

/* The first pass finds each frame's end, hash and shared node a word at
 * a time, and the last bytes of a line a byte at a time: a name must hash
 * the same either way, or the lines through one node outside the shared
 * tree go to different parts and the join has that node twice. Names of 1
 * to 24 bytes (some the first 8 or 16 bytes of others, many alike in
 * their first 8), shared ones and ones that leave the shared tree, each
 * at a line's end and before more frames. */
static void frame_words(void)
{
	char dir[] = "/tmp/tflame-test-words-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80];
	snprintf(path, sizeof path, "%s/words", dir);
	static const char *const first[] = { "a", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq" };
	static const char *const second[] = { "x", "xxxxxxx", "xxxxxxxx", "xxxxxxxxy", "xxxxxxxxxxxxxxxx", "y" };
	size_t n = 40000;
	char **lines = malloc(n * sizeof *lines);
	for (size_t i = 0; i < n; i++) {
		char buf[256], leave[32];
		/* 400 names outside the shared tree: a length of 1 to 24, the
		 * bytes of the first 8 alike among those of a length */
		unsigned id = (unsigned)(next() % 400), ln = 1 + id % 24;
		for (unsigned k = 0; k < ln; k++)
			leave[k] = (char)(k < 8 ? 'm' + (char)(ln % 8) : 'a' + (char)((id / 24 + k) % 26));
		leave[ln] = 0;
		const char *f1 = first[next() % 5], *f2 = second[next() % 6];
		switch (next() % 8) {
		case 0:     /* ends at a shared node */
			snprintf(buf, sizeof buf, "%s;%s", f1, f2);
			break;
		case 1: case 2:     /* ends where it leaves the shared tree */
			snprintf(buf, sizeof buf, "%s;%s;%s", f1, f2, leave);
			break;
		default:    /* goes on below it */
			snprintf(buf, sizeof buf, "%s;%s;%s;%s%s", f1, f2, leave, vocab[next() % NVOCAB],
			         next() % 2 ? ";g" : "");
		}
		lines[i] = strdup(buf);
	}
	write_shuffled(path, lines, n);
	bool joined;
	char *msg0;
	char *ref = load_in(path, 1, TREE_ORDER_NAME, 0, &joined, &msg0);
	const int parts[] = { 16, 64 };
	for (int pi = 0; pi < 2; pi++) {
		for (int th = 1; th <= 2; th++) {
			bool same = same_as(path, th, TREE_ORDER_NAME, parts[pi], ref, msg0, &joined);
			ok(joined && same,
			   "names of 1 to 24 bytes, at a line's end and before more frames, %d parts, %d thread%s: "
			   "the same tree", parts[pi], th, th > 1 ? "s" : "");
			if (th == 1) {
				ok(load_parts_last.shared > 30,
				   "  ... the first two frames are shared (%zu shared nodes)", load_parts_last.shared);
				/* thousands of keys: every part gets some (a part was
				 * the key modulo the parts, and keys were odd: half of
				 * 16 or 64 parts had none) */
				ok(load_parts_last.used == parts[pi], "  ... and every part has lines (%d of %d)",
				   load_parts_last.used, parts[pi]);
			}
		}
	}
	free(ref);
	free(msg0);
	free_strings(lines, n);
	unlink(path);
	rmdir(dir);
}

/* Parts big enough that the join gives their pages back as it reads
 * them (a MiB at a time), in weight order, where a part's order of its
 * first frames is not the whole tree's: the join read the parts in the
 * whole tree's order, so it read pages given back already (zeros): on
 * 1 GiB of genfolded output, --sort=weight --collapse wrote garbage
 * without end (536 GB in 2 minutes). */
static void big_parts(void)
{
	char dir[] = "/tmp/tflame-test-bigparts-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80];
	snprintf(path, sizeof path, "%s/big", dir);
	char **v;
	size_t n = gen_stacks(150000, 12, &v);
	write_shuffled(path, v, n);
	enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT };
	for (int o = 0; o < 2; o++) {
		bool joined;
		char *msg0;
		char *ref = load_in(path, 1, orders[o], 0, &joined, &msg0);
		for (int th = 1; th <= 2; th++) {
			bool same = same_as(path, th, orders[o], 4, ref, NULL, &joined);
			ok(joined && same,
			   "%zu stacks in 4 parts of several MiB of nodes, %s order, %d thread%s: the same tree", n,
			   o ? "weight" : "name", th, th > 1 ? "s" : "");
		}
		free(ref);
		free(msg0);
	}
	free_strings(v, n);
	unlink(path);
	rmdir(dir);
}

/* Lines read a window at a time (4 MiB, read into a buffer) in the first
 * pass and the sweeps, with a line of 5 MiB (longer than a window and its
 * slack: read through the mapping) amid them: in parts, on one thread and
 * two, the tree one pass makes. */
static void long_line_parts(void)
{
	char dir[] = "/tmp/tflame-test-longline-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80];
	snprintf(path, sizeof path, "%s/long", dir);
	char **v;
	size_t n = gen_stacks(60000, 12, &v);
	write_shuffled(path, v, n);
	/* the long line after the first 3 MiB */
	FILE *f = fopen(path, "r+");
	struct stat st;
	if (!f || stat(path, &st) != 0 || st.st_size < (3 << 20)) {
		ok(0, "a file of more than 3 MiB for the long line");
		return;
	}
	char *rest = malloc((size_t)st.st_size);
	fseek(f, 3 << 20, SEEK_SET);
	while (fgetc(f) != '\n')
		;
	long at = ftell(f);
	size_t nrest = fread(rest, 1, (size_t)st.st_size, f);
	fseek(f, at, SEEK_SET);
	fputs("main;", f);
	for (int k = 0; k < (5 << 20); k++)
		fputc(k % 4000 ? 'z' : ';', f);
	fputs(";leaf 3\n", f);
	fwrite(rest, 1, nrest, f);
	fclose(f);
	free(rest);
	bool joined;
	char *msg0;
	char *ref = load_in(path, 1, TREE_ORDER_NAME, 0, &joined, &msg0);
	ok(!joined && strstr(ref, "leaf") != NULL, "one pass: the 5 MiB line is in the tree");
	for (int th = 1; th <= 2; th++) {
		bool same = same_as(path, th, TREE_ORDER_NAME, 4, ref, msg0, &joined);
		ok(joined && same, "%zu stacks and a 5 MiB line, in 4 parts on %d thread%s: the same tree, the same messages",
		   n + 1, th, th > 1 ? "s" : "");
	}
	free(ref);
	free(msg0);
	free_strings(v, n);
	unlink(path);
	rmdir(dir);
}

/* The child of load_limited, a fresh process (its heap is not the tests'
 * before: a forked one reused their freed memory): loads path with
 * RLIMIT_AS lim KiB, TFLAME_PARTS=parts (0: unset), on one thread, and
 * writes the tree's text to out. Exits 0 when it did, 1 out of memory. */
static int limited_main(const char *path, const char *out, long lim, int parts)
{
	struct rlimit rl = { (rlim_t)lim * 1024, (rlim_t)lim * 1024 };
	if (setrlimit(RLIMIT_AS, &rl) != 0 || !freopen("/dev/null", "w", stderr))
		return 2;
	bool joined;
	char *msg;
	char *text = load_in(path, 1, TREE_ORDER_NAME, parts, &joined, &msg);
	FILE *f = fopen(out, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		return 3;
	return 0;
}

/* Runs limited_main in a new process (this program again): the tree's
 * text (malloc'ed), or NULL when it did not load it. */
static char *load_limited(const char *path, const char *out, long lim, int parts)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		char l[32], pa[16];
		snprintf(l, sizeof l, "%ld", lim);
		snprintf(pa, sizeof pa, "%d", parts);
		execl("/proc/self/exe", "test_load", "--limited", path, out, l, pa, (char *)NULL);
		_exit(4);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return NULL;
	FILE *f = fopen(out, "r");
	if (!f)
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	char buf[65536];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, k, m);
	fclose(m);
	fclose(f);
	return text;
}

/* Memory running out on the way in parts: the file is read the usual way
 * instead, with the same result. TFLAME_PARTS_FAIL makes it run out in
 * the first pass, the parts or the join; and under a limit of the address
 * space a little above what one pass needs, reading it in parts must load
 * it too (the parts and the joined tree are both there while they are
 * copied: tflame died with "out of memory" at 1.45 times what one pass
 * needed). */
static void parts_oom(void)
{
	char dir[] = "/tmp/tflame-test-oom-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80], out[80];
	snprintf(path, sizeof path, "%s/oom", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	char **v;
	size_t n = gen_stacks(6000, 6, &v);
	write_shuffled(path, v, n);
	free_strings(v, n);
	bool joined;
	char *msg0;
	char *ref = load_in(path, 1, TREE_ORDER_NAME, 0, &joined, &msg0);
	static const char *const where[] = { "the first pass", "a part", "the join" };
	for (int k = 1; k <= 3; k++) {
		for (int th = 1; th <= 3; th++) {
			char fv[8];
			snprintf(fv, sizeof fv, "%d", k);
			setenv("TFLAME_PARTS_FAIL", fv, 1);
			bool same = same_as(path, th, TREE_ORDER_NAME, 16, ref, msg0, &joined);
			unsetenv("TFLAME_PARTS_FAIL");
			ok(!joined && same,
			   "memory runs out in %s, %d thread%s: read the usual way, the same tree and messages", where[k - 1],
			   th, th > 1 ? "s" : "");
		}
	}
	/* no thread can be started to build the parts: the caller's builds
	 * them all */
	for (int th = 2; th <= 3; th++) {
		setenv("TFLAME_PARTS_FAIL", "4", 1);
		bool same = same_as(path, th, TREE_ORDER_NAME, 16, ref, msg0, &joined);
		unsetenv("TFLAME_PARTS_FAIL");
		ok(joined && same,
		   "no thread to build parts on, %d threads asked: read in parts on one, the same tree and messages", th);
	}
	free(ref);
	free(msg0);

	/* 600,000 distinct stacks of a 6-level tree, shuffled (28 MB, a tree
	 * of 630,000 nodes), as tests/parallel.sh's. */
	FILE *f = fopen(path, "w");
	size_t *perm = malloc(600000 * sizeof *perm);
	for (size_t i = 0; i < 600000; i++)
		perm[i] = i;
	for (size_t i = 600000; i > 1; i--) {
		size_t j = next() % i, x = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	for (size_t k = 0; k < 600000; k++) {
		size_t i = perm[k];
		fprintf(f, "main;run;a%zu;b%zu;c%zu;leaf_function_%zu 1\n", i / 20000, i / 400, i / 20, i);
	}
	fclose(f);
	free(perm);
	char *one = load_limited(path, out, 4000000, 0);
	if (!one) {
		ok(1, "under a memory limit, in parts as in one pass # SKIP this build cannot run under RLIMIT_AS (sanitizers?)");
	} else {
		long lim = 64000, found = 0;
		char *at = NULL;
		for (; lim <= 1200000 && !found; lim = lim * 11 / 10) {
			at = load_limited(path, out, lim, 0);
			if (at)
				found = lim;
			else
				free(at);
		}
		if (!found) {
			ok(1, "under a memory limit, in parts as in one pass # SKIP one pass fails under every limit to 1.2 GB");
		} else {
			/* with room: the parts' name tables leave holes in the heap
			 * (1.1 times was not enough) */
			char *got = load_limited(path, out, found * 13 / 10, 64);
			ok(got && strcmp(got, one) == 0 && strcmp(at, one) == 0,
			   "RLIMIT_AS %ld KiB, 1.3 times the least under which one pass loads it (%ld): in 64 parts too, the "
			   "same tree", found * 13 / 10, found);
			free(got);
		}
		free(at);
	}
	free(one);
	unlink(out);
	unlink(path);
	rmdir(dir);
}

/* ---- the preview of a mapped file (load_live_preview) ---- */

struct bg_load {
	const char *path;
	struct load_live *lv;
	struct tree t;
	int rc;
};

static void *bg_load_main(void *arg)
{
	struct bg_load *b = arg;
	struct load_options o = { .format = SNIFF_UNKNOWN, .threads = 1, .live = b->lv };
	struct load_messages msgs = { 0 };
	char *const paths[] = { (char *)b->path };
	b->rc = load_files(&b->t, paths, 1, &o, &msgs);
	load_messages_free(&msgs);
	return NULL;
}

/* Loads path on a thread, held (TFLAME_LOAD_HOLD) until the preview is
 * taken here; returns the preview's --collapse text (NULL: none within
 * 60 s) and its words in what, status in st. */
static char *preview_of(const char *path, const char *hold, char *what, size_t size, char *st, size_t stsize)
{
	struct bg_load b = { .path = path, .lv = load_live_new() };
	tree_init(&b.t);
	setenv("TFLAME_LOAD_HOLD", hold, 1);
	pthread_t tid;
	if (pthread_create(&tid, NULL, bg_load_main, &b) != 0)
		return NULL;
	struct tree *pt = NULL;
	for (int k = 0; k < 6000 && !pt; k++) {
		pt = load_live_preview(b.lv, what, size);
		if (!pt)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	load_live_status(b.lv, st, stsize);
	FILE *h = fopen(hold, "w");
	if (h)
		fclose(h);
	pthread_join(tid, NULL);
	char w2[64];
	ok(load_live_preview(b.lv, w2, sizeof w2) == NULL, "  ... and none once the load is over");
	unsetenv("TFLAME_LOAD_HOLD");
	unlink(hold);
	load_live_free(b.lv);
	tree_free(&b.t);
	if (!pt)
		return NULL;
	tree_finalize(pt, TREE_ORDER_NAME);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	tree_write_folded(pt, m);
	fclose(m);
	tree_free(pt);
	free(pt);
	return text;
}

static void live_sample(void)
{
	char dir[] = "/tmp/tflame-test-live-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[80], hold[80], what[64], st[64];
	snprintf(path, sizeof path, "%s/parts.folded", dir);
	snprintf(hold, sizeof hold, "%s/hold", dir);
	/* 64 parts of 2000 lines of 8 bytes, "pKK;x 1": 16,000 bytes a part,
	 * 1,024,000 in all. Worked out by hand: the sample reads at the
	 * start of each 64th (16,000 bytes: a part), from the first line
	 * start after it (the second line; the file's first for the first),
	 * 4096 bytes on to the end of the line there: 513 lines of each
	 * part, 4104 bytes of each of 64 parts, 25.65% of the file. */
	FILE *f = fopen(path, "w");
	for (int k = 0; k < 64; k++)
		for (int i = 0; i < 2000; i++)
			fprintf(f, "p%02d;x 1\n", k);
	fclose(f);
	char *want = NULL;
	size_t wl = 0;
	FILE *m = open_memstream(&want, &wl);
	for (int k = 0; k < 64; k++)
		fprintf(m, "p%02d;x 513\n", k);
	fclose(m);
	char *got = preview_of(path, hold, what, sizeof what, st, sizeof st);
	is_str(got, want, "a file's preview: 513 lines from the start of each 64th of it");
	is_str(what, "a 26% sample", "  ... said to be a 26% sample");
	is_str(st, "loading 0%", "  ... the load held before it began: 0%");
	free(got);
	free(want);

	/* perf script: records cut at blank lines; the event a whole pass
	 * keeps (the first, cycles) is the sample's, whatever event its
	 * windows start on. 64 parts of 100 records, cycles (f) and
	 * instructions (g) in turn, each part's frames its own. */
	snprintf(path, sizeof path, "%s/parts.perf", dir);
	f = fopen(path, "w");
	for (int k = 0; k < 64; k++)
		for (int i = 0; i < 100; i++)
			fprintf(f, "p 1/1 [000] %d.%03d: 1 %s:\n\tffff %c%02d (/bin/p)\n\tffff main (/bin/p)\n\n",
			        k, i, i % 2 ? "instructions" : "cycles", i % 2 ? 'g' : 'f', k);
	fclose(f);
	got = preview_of(path, hold, what, sizeof what, st, sizeof st);
	int parts = 0, others = 0;
	for (const char *l = got; l && *l;) {
		int k;
		if (sscanf(l, "p;main;f%d ", &k) == 1 && k >= 0 && k < 64)
			parts++;
		else
			others++;
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	ok(got && parts == 64 && others == 0,
	   "perf script: the preview has cycles' stacks from each of the 64 parts, no other (%d, %d)", parts, others);
	free(got);
	unlink(path);
	snprintf(path, sizeof path, "%s/parts.folded", dir);
	unlink(path);
	rmdir(dir);
}

/* Sorted lines whose one revisit the second piece alone makes: 200000
 * lines "a;NNNNNN 1" (2200000 bytes), "p;f 1", "p;f(int) 2", "p;f;x 4",
 * 199998 lines "z;NNNNNN 1": 4400003 bytes, cut on two threads at the
 * first line start past 2200001, after "p;f 1". The second piece, parsed on a
 * thread of its own, goes back to f after f(int); merged, x went under
 * f(int), as nothing else in the file made finalize renumber. Whether the
 * main thread parses that piece itself depends on timing (the first is
 * big enough for the other thread to take the second): five loads. */
static void merged_revisit(void)
{
	char dir[] = "/tmp/tflame-test-load-XXXXXX";
	if (!scratch_dir(dir))
		return;
	char path[64];
	snprintf(path, sizeof path, "%s/revisit", dir);
	size_t cap = 4400100, len = 0;
	char *text = malloc(cap);
	for (int k = 0; k < 200000; k++)
		len += (size_t)snprintf(text + len, cap - len, "a;%06d 1\n", k);
	len += (size_t)snprintf(text + len, cap - len, "p;f 1\np;f(int) 2\np;f;x 4\n");
	for (int k = 0; k < 199998; k++)
		len += (size_t)snprintf(text + len, cap - len, "z;%06d 1\n", k);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	setenv("TFLAME_PIECE_BYTES", "1000000", 1);
	int good = 0;
	for (int round = 0; round < 5; round++) {
		char *folded;
		free(load_text(path, 2, TREE_ORDER_NAME, &folded));
		good += strcmp(folded, text) == 0;
		free(folded);
	}
	ok(len == 4400003 && good == 5, "a revisit made in the second piece alone: --collapse on 2 threads is the file, "
	   "%d of 5 loads", good);
	unsetenv("TFLAME_PIECE_BYTES");
	free(text);
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "--limited") == 0)
		return limited_main(argv[2], argv[3], atol(argv[4]), atoi(argv[5]));
#ifdef JOIN_TWO_ONLY
	/* built with JOIN_TWO_MIN 1: tree_join copies on two threads */
	in_parts();
	deep_parts();
	return done_testing();
#endif
	few_newlines();
	random_files();
	same_trees();
	merged_revisit();
	in_parts();
	deep_parts();
	frame_words();
	big_parts();
	long_line_parts();
	parts_oom();
	live_sample();
	return done_testing();
}
