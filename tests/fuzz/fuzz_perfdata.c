/* libFuzzer harness: the perf.data reader (perfdata*.c, with symbols*.c and
 * unwind.c behind it) through load_files, as main.c runs it. The first
 * input byte selects options; the rest is written to a file that is read
 * with the format forced to perf.data (both forms: a header size of 16 is
 * the stream form, read through source_read; anything else the file form,
 * read from the mapping). Then the tree is finalized and used like every
 * other loaded tree (common.h).
 *   bit 0-1: perf options (--kernel, --pid)
 *   bit 2:   symfs: an empty directory (no object file of this machine is
 *            read: fast, reproducible) or none (MMAP records name real files)
 *   bit 3-7: passed on to fuzz_use_tree
 * What the native reader declines (PERFDATA_UNSUPPORTED) load.c hands to
 * `perf script`: PATH is emptied so that no perf runs (a fuzzed file is
 * not perf's to read here, and a fork per input would be slow); load_files
 * then says perf is not installed. */
#include "config.h"
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], symfs[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	if (!path[0]) {
		snprintf(path, sizeof path, "/tmp/tflame-fuzz-perfdata.%ld", (long)getpid());
		snprintf(symfs, sizeof symfs, "/tmp/tflame-fuzz-symfs.%ld", (long)getpid());
		mkdir(symfs, 0700);
		setenv("PATH", "/nonexistent/tflame-fuzz", 1);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fd);
	struct perfdata_info info;
	memset(&info, 0x5a, sizeof info);
	struct load_options o = {
		.format = SNIFF_PERFDATA,
		.threads = 1,
		.threads_forced = true,
		.perf = { .kernel = sel & 1, .pid = sel & 2 },
		.symfs = sel & 4 ? symfs : NULL,
		.perfdata_info = &info,
	};
	struct tree t;
	tree_init(&t);
	struct load_messages m = { 0 };
	char *paths[] = { path };
	int rc = load_files(&t, paths, 1, &o, &m);
	unlink(path);
	if (rc != 0 && rc != 1)
		abort();
	/* Messages are shown on a terminal: no control bytes but '\n'. */
	for (size_t i = 0; i < m.len; i++) {
		unsigned char c = (unsigned char)m.text[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
	}
	load_messages_free(&m);
	/* What the file says of itself reaches the status line: terminated,
	 * and sanitized like the messages. */
	if (rc == 0) {
		char *const strs[] = { info.event, info.hostname, info.osrelease, info.cmdline };
		const size_t lens[] = { sizeof info.event, sizeof info.hostname, sizeof info.osrelease,
		                        sizeof info.cmdline };
		for (int k = 0; k < 4; k++) {
			const unsigned char *s = (const unsigned char *)strs[k];
			const unsigned char *nul = memchr(s, 0, lens[k]);
			if (!nul)
				abort();
			for (; s < nul; s++)
				if (*s < 0x20 || *s == 0x7f)
					abort();
		}
	}
	fuzz_use_tree(&t, sel >> 3);
	tree_free(&t);
	return 0;
}
