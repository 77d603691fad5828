/* fuzzsrc.h: the harnesses' input as a source (source.h): a file, which
 * source.c maps, or a pipe on stdin, which it reads in slices. */
#ifndef TFLAME_FUZZ_FUZZSRC_H
#define TFLAME_FUZZ_FUZZSRC_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "source.h"

/* data[0..size) through the file at path, or with pipe_it through a pipe
 * on stdin (when it fits in the pipe's buffer: -max_len is far below 64
 * KiB). Aborts when that fails. */
static inline struct source *fuzz_source(const char *path, const uint8_t *data, size_t size, bool pipe_it)
{
	char err[256];
	struct source *s;
	if (pipe_it && size <= 60000) {
		int fds[2];
		if (pipe(fds) != 0)
			abort();
		if (size && write(fds[1], data, size) != (ssize_t)size)
			abort();
		close(fds[1]);
		if (dup2(fds[0], STDIN_FILENO) < 0)
			abort();
		close(fds[0]);
		s = source_open("-", err, sizeof err);
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
			abort();
		close(fd);
		s = source_open(path, err, sizeof err);
	}
	if (!s)
		abort();
	return s;
}

#endif
