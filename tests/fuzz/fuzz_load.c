/* libFuzzer harness: the whole batch path as main.c runs it: the input is
 * written to a file, load_files opens (mmap), sniffs and reads it (on two
 * threads when the first byte says so), then finalize, --collapse and
 * --print output, layout and text functions. */
#include "config.h"
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/tflame-fuzz-load.%ld", (long)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fd);
	struct load_options o = {
		.format = (enum sniff_format)(sel % 3),
		.threads = sel & 4 ? 2 : 1,
		.threads_forced = true,
		.perf = { .kernel = sel & 8, .pid = sel & 16 },
	};
	struct tree t;
	tree_init(&t);
	t.chart = (sel & 0x40) != 0;
	if (t.chart)
		o.threads = 1;
	struct load_messages m = { 0 };
	char *paths[] = { path };
	load_files(&t, paths, 1, &o, &m);
	unlink(path);
	/* Messages are shown on a terminal: no control bytes but '\n'. */
	for (size_t i = 0; i < m.len; i++) {
		unsigned char c = (unsigned char)m.text[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
	}
	load_messages_free(&m);
	fuzz_use_tree(&t, sel >> 3);
	tree_free(&t);
	return 0;
}
