/* docsrc.h: a source (source.h) reading a document held in memory, for the
 * unit tests of the JSON readers: a temporary file, which source.c maps, or
 * standard input fed by a child through a pipe, which it reads in slices. */
#ifndef TFLAME_TEST_DOCSRC_H
#define TFLAME_TEST_DOCSRC_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "source.h"

static char docsrc_path[64];

/* This process's temporary file (docsrc_unlink removes it). */
static inline const char *docsrc_name(void)
{
	if (!docsrc_path[0])
		snprintf(docsrc_path, sizeof docsrc_path, "/tmp/tflame-unit-doc.%ld", (long)getpid());
	return docsrc_path;
}

/* Writes doc[0..n) to the temporary file; returns its path. */
static inline const char *docsrc_file(const char *doc, size_t n)
{
	FILE *f = fopen(docsrc_name(), "wb");
	if (!f || (n && fwrite(doc, 1, n, f) != n) || fclose(f) != 0)
		abort();
	return docsrc_path;
}

static inline void docsrc_unlink(void)
{
	if (docsrc_path[0])
		unlink(docsrc_path);
}

struct docsrc {
	struct source *s;
	pid_t writer;       /* the child feeding the pipe, or -1 */
	int saved;          /* the test's own stdin while the pipe is fd 0, or -1 */
};

/* Opens doc[0..n): the file, or with piped the pipe on stdin, written in
 * pieces of 1 to 70,000 bytes when pieces (reads that end anywhere), else
 * as the pipe takes them. Aborts when that fails. */
static inline struct docsrc docsrc_open(const char *doc, size_t n, bool piped, bool pieces)
{
	struct docsrc d = { NULL, -1, -1 };
	char err[256];
	if (!piped) {
		d.s = source_open(docsrc_file(doc, n), err, sizeof err);
		if (!d.s)
			abort();
		return d;
	}
	int fds[2];
	if (pipe(fds) != 0)
		abort();
	d.writer = fork();
	if (d.writer < 0)
		abort();
	if (d.writer == 0) {
		close(fds[0]);
		size_t done = 0, k = 1;
		while (done < n) {
			k = k * 7 % 70001 + 1;
			size_t w = pieces && n - done > k ? k : n - done;
			ssize_t got = write(fds[1], doc + done, w);
			if (got <= 0)
				_exit(1);
			done += (size_t)got;
		}
		_exit(0);
	}
	close(fds[1]);
	d.saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	d.s = source_open("-", err, sizeof err);   /* reads fd 0 itself */
	if (!d.s)
		abort();
	return d;
}

/* Closes the source, puts stdin back and reaps the writer. */
static inline void docsrc_close(struct docsrc *d)
{
	source_close(d->s);
	if (d->saved >= 0) {
		dup2(d->saved, STDIN_FILENO);
		close(d->saved);
	}
	if (d->writer > 0) {
		kill(d->writer, SIGKILL);
		waitpid(d->writer, NULL, 0);
	}
}

#endif
