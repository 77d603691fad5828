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
 * pprof_options.parts), on two threads. The same bytes gzip'ed are read
 * again as a stream whose samples are counted as they arrive
 * (pprof_options.ahead): the same result, messages and counts. */
#include "config.h"
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "../unit/gzfile.h"
#include "pprof.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

struct msgs {
	size_t n;
	char text[4096];
	size_t len;
};

static void on_msg(void *arg, const char *text)
{
	struct msgs *m = arg;
	m->n++;
	int k = snprintf(m->text + m->len, sizeof m->text - m->len, "%s\n", text);
	if (k > 0)
		m->len = m->len + (size_t)k < sizeof m->text ? m->len + (size_t)k : sizeof m->text - 1;
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

/* The folded lines of a finalized tree, malloc'ed. */
static char *folded_text(const struct tree *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	tree_write_folded(t, f);
	fclose(f);
	return buf;
}

/* data[0..size) gzip'ed and read again as a stream counted as it arrives:
 * what the mapped file gave (rc, m, info, and the finalized t and before). */
static void stream_again(const uint8_t *data, size_t size, const struct pprof_options *o, int rc,
                         const struct msgs *m, const struct pprof_info *info, const struct tree *t,
                         const struct tree *before, unsigned sel)
{
	static char gzpath[72];
	if (!gzpath[0])
		snprintf(gzpath, sizeof gzpath, "%s.gz", path);
	gz_write_file(gzpath, data, size);
	char err[256];
	struct source *s = source_open(gzpath, err, sizeof err);
	if (!s)
		abort();
	struct tree t2, before2;
	tree_init(&t2);
	tree_init(&before2);
	struct pprof_options o2 = *o;
	o2.ahead = 1;
	o2.before = o->before ? &before2 : NULL;
	struct pprof_info info2;
	memset(&info2, 0x5a, sizeof info2);
	struct msgs m2 = { 0 };
	int rc2 = pprof_load(&t2, s, "f", &o2, &info2, on_msg, &m2);
	source_close(s);
	unlink(gzpath);
	if (rc2 != rc || m2.n != m->n || strcmp(m2.text, m->text) != 0)
		abort();
	if (rc == 0 && (info2.samples != info->samples || info2.total != info->total ||
	                info2.before_total != info->before_total || t2.stacks != t->stacks))
		abort();
	/* finalized as fuzz_use_tree finalized the first */
	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	tree_finalize(&t2, orders[(sel >> 4) % 3]);
	tree_finalize(&before2, orders[(sel >> 5) % 3]);
	char *a = folded_text(t), *b = folded_text(&t2);
	if (strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	a = folded_text(before);
	b = folded_text(&before2);
	if (strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	tree_free(&t2);
	tree_free(&before2);
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
	/* (bytes that are themselves compressed read as what they inflate
	 * to: not the same bytes gzip'ed once more) */
	bool again = !source_inflates_aside(s);
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
	if (again)
		stream_again(data, size, &o, rc, &m, &info, &t, &before, sel);
	tree_free(&t);
	tree_free(&before);
	return 0;
}
