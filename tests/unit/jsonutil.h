/* jsonutil.h: helpers shared by the unit tests of the JSON profile readers
 * (test_cpuprofile, test_speedscope). A document is written to a file
 * (mapped by source.c) or fed through a pipe on stdin (read in slices);
 * run() loads it with the reader under test, finalizes the tree, and keeps
 * the folded text and the messages (one per line) for the checks. */
#ifndef TFLAME_TEST_JSONUTIL_H
#define TFLAME_TEST_JSONUTIL_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "reader.h"
#include "source.h"
#include "docsrc.h"
#include "tap.h"
#include "tree.h"
#include "treeutil.h"

struct run {
	int rc;
	char *folded;       /* tree_write_folded's text */
	char msgs[4096];    /* messages, each ending in '\n' */
	size_t nmsgs;
	size_t nodes;
	bool frac;
};

static void ju_msg(void *arg, const char *text)
{
	struct run *r = arg;
	size_t at = strlen(r->msgs);
	snprintf(r->msgs + at, sizeof r->msgs - at, "%s\n", text);
	r->nmsgs++;
	/* what reaches a terminal: no control bytes */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			printf("# control byte in a message: %s\n", text);
			abort();
		}
}

/* The loader under test: rc as the reader's load returns. */
typedef int ju_load_fn(struct tree *t, struct source *s, void *arg, reader_msg_fn *msg, void *msgarg);

/* Loads doc[0..n) (a file, or a pipe when piped) and keeps what came out. */
static struct run run_n(ju_load_fn *load, void *arg, const char *doc, size_t n, bool piped)
{
	struct run r;
	memset(&r, 0, sizeof r);
	struct docsrc d = docsrc_open(doc, n, piped, false);
	struct tree t;
	tree_init(&t);
	r.rc = load(&t, d.s, arg, ju_msg, &r);
	docsrc_close(&d);
	tree_finalize(&t, TREE_ORDER_NAME);
	r.folded = folded(&t);
	r.nodes = tree_size(&t);
	r.frac = t.frac;
	tree_free(&t);
	return r;
}

static struct run run(ju_load_fn *load, void *arg, const char *doc)
{
	return run_n(load, arg, doc, strlen(doc), false);
}

/* ok() for folded output, printing both on a mismatch; frees r's text. */
static void is_run(struct run *r, int rc, const char *want, const char *name)
{
	bool good = r->rc == rc && r->folded && strcmp(r->folded, want) == 0;
	ok(good, "%s", name);
	if (!good)
		printf("#   rc %d (want %d)\n#   got:\n%s#   want:\n%s#   messages:\n%s", r->rc, rc,
		       r->folded ? r->folded : "(null)", want, r->msgs);
}

static bool has_msg(const struct run *r, const char *needle)
{
	bool found = strstr(r->msgs, needle) != NULL;
	if (!found)
		printf("#   no message with '%s' in:\n%s", needle, r->msgs);
	return found;
}

static void run_free(struct run *r)
{
	free(r->folded);
	r->folded = NULL;
}

/* Peak RSS of this process in MiB. */
static long peak_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* Writes a file of pre, then n bytes of fill (in 1 MiB writes, never whole
 * in memory), then post; returns its path. */
static const char *ju_big_file(const char *pre, char fill, size_t n, const char *post)
{
	FILE *f = fopen(docsrc_name(), "wb");
	static char chunk[1 << 20];
	memset(chunk, fill, sizeof chunk);
	if (!f)
		abort();
	fputs(pre, f);
	for (size_t done = 0; done < n;) {
		size_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
		if (fwrite(chunk, 1, k, f) != k)
			abort();
		done += k;
	}
	fputs(post, f);
	if (fclose(f) != 0)
		abort();
	return docsrc_name();
}

/* Loads a file by path (for the big ones). */
static struct run run_path(ju_load_fn *load, void *arg, const char *path)
{
	struct run r;
	memset(&r, 0, sizeof r);
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	struct tree t;
	tree_init(&t);
	r.rc = load(&t, s, arg, ju_msg, &r);
	source_close(s);
	tree_finalize(&t, TREE_ORDER_NAME);
	r.folded = folded(&t);
	r.nodes = tree_size(&t);
	tree_free(&t);
	return r;
}

#endif
