/* libFuzzer harness: the pprof reader (pprof.c). The first input byte
 * selects options; the rest is a Profile message (uncompressed), written to
 * a file and read from its mapping, then the tree (and the --diff tree) is
 * finalized and used like every other loaded tree (common.h). pprof_sniff
 * runs on the same bytes, whole and cut.
 *   bit 0-1: --sample-type: none, "cpu", "1", "alloc_space"
 *   bit 2:   --label-root=key (the name the seeds' labels use)
 *   bit 3:   --diff: negative values go to a second tree
 *   bit 4-7: passed on to fuzz_use_tree
 * Without bits 2 and 3, an input of odd size is read in parts (see
 * pprof_options.parts), on two threads. */
#include "config.h"
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "pprof.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

struct msgs {
	size_t n;
};

static void on_msg(void *arg, const char *text)
{
	struct msgs *m = arg;
	m->n++;
	/* messages reach the terminal: no control bytes, and the prefix */
	if (strncmp(text, "tflame: f: ", 11) != 0)
		abort();
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
}

static void check_str(const char *s, size_t size)
{
	const char *nul = memchr(s, 0, size);
	if (!nul)
		abort();
	for (; s < nul; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	data++;
	size--;
	pprof_sniff(data, size, true);
	pprof_sniff(data, size / 2, false);
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/tflame-fuzz-pprof.%ld", (long)getpid());
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	static const char *const types[] = { NULL, "cpu", "1", "alloc_space" };
	struct tree t, before;
	tree_init(&t);
	tree_init(&before);
	struct pprof_options o = {
		.sample_type = types[sel & 3],
		.label_root = sel & 4 ? "key" : NULL,
		.before = sel & 8 ? &before : NULL,
		.parts = !(sel & 12) && (size & 1),
		.threads = 2,
	};
	struct pprof_info info;
	memset(&info, 0x5a, sizeof info);
	struct msgs m = { 0 };
	int rc = pprof_load(&t, s, "f", &o, &info, on_msg, &m);
	source_close(s);
	unlink(path);
	if (rc != 0 && rc != 1)
		abort();
	if (rc == 1 && (m.n == 0 || tree_size(&t) != 1 || tree_size(&before) != 1))
		abort();    /* refused: said so, and added nothing */
	if (rc == 0) {
		check_str(info.type, sizeof info.type);
		check_str(info.unit, sizeof info.unit);
		check_str(info.types, sizeof info.types);
		check_str(info.period_type, sizeof info.period_type);
		check_str(info.period_unit, sizeof info.period_unit);
		if (info.samples > t.stacks + before.stacks)
			abort();
	}
	fuzz_use_tree(&t, sel >> 4);
	fuzz_use_tree(&before, sel >> 5);
	tree_free(&t);
	tree_free(&before);
	return 0;
}
