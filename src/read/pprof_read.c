/* pprof_read: a stream's whole message into memory (see pprof.c's top),
 * its samples counted as they arrive (pprof_pre.c), and the pages of those
 * counted moved ahead to take the bytes still to come (struct pp_input). */
#include "config.h"
#include "pprof_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "xalloc.h"

#if defined(HAVE_MREMAP) && defined(MREMAP_DONTUNMAP)
#define PP_REUSE 1
#endif

/* Pages are moved a block at a time: an aligned block's page table moves
 * whole. At most IN_AHEAD of them wait ahead of the bytes. */
#define IN_BLOCK ((size_t)2 << 20)
#define IN_AHEAD ((size_t)8 << 20)

/* Reserves room for the largest input; false when it cannot be had (the
 * buffer is then malloc'd and grown). */
static bool in_reserve(struct pp_input *in)
{
#ifdef PP_REUSE
	size_t len = PPROF_MAX_INPUT + IN_BLOCK;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return false;
	in->map = m;
	in->maplen = len;
	in->p = (unsigned char *)(((uintptr_t)m + IN_BLOCK - 1) & ~(uintptr_t)(IN_BLOCK - 1));
	return true;
#else
	(void)in;
	return false;
#endif
}

/* The blocks of samples pre took (n bytes are in) moved ahead of n. Only
 * once the probe for few repeats is passed (pprof.c's repeats_often reads
 * those samples again) and while it is not failed. */
static void in_reuse(struct pp_input *in, const struct pp_pre *pre, size_t n)
{
#ifdef PP_REUSE
	if (in->stuck || pre->failed || pre->fields <= PP_PARTS_PROBE)
		return;
	if (!in->from)
		in->from = in->gone = (pre->at + IN_BLOCK - 1) & ~(IN_BLOCK - 1);
	size_t lim = pre->at & ~(IN_BLOCK - 1);
	while (in->gone + IN_BLOCK <= lim) {
		size_t to = (n + IN_BLOCK - 1) & ~(IN_BLOCK - 1);
		if (to < in->ready)
			to = in->ready;
		if (to >= n + IN_AHEAD || to + IN_BLOCK > PPROF_MAX_INPUT)
			return;
		/* the block left behind stays mapped, empty */
		if (mremap(in->p + in->gone, IN_BLOCK, IN_BLOCK, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
		           in->p + to) == MAP_FAILED) {
			in->stuck = true;   /* (an old kernel, map count) */
			return;
		}
		in->gone += IN_BLOCK;
		in->ready = to + IN_BLOCK;
	}
#else
	(void)in;
	(void)pre;
	(void)n;
#endif
}

#define PP_PRE_CHUNK ((size_t)1 << 20)

bool pp_read_whole(struct pp *d, struct source *s, struct pp_input *in, struct pp_pre *pre, bool reuse)
{
	memset(in, 0, sizeof *in);
	size_t cap = 0, n = 0;
	unsigned char *b = NULL;
	uint64_t known = source_size(s);
	if (reuse && pre->on && in_reserve(in)) {
		b = in->p;
		cap = PPROF_MAX_INPUT;
	}
	for (;;) {
		if (in->map)
			in_reuse(in, pre, n);
		if (n == cap) {
			if (cap >= PPROF_MAX_INPUT) {
				in->p = b;
				pp_input_free(in);
				pp_msg(d, "a pprof profile of more than %zu MiB cannot be read", PPROF_MAX_INPUT >> 20);
				return false;
			}
			size_t c = cap ? cap * 2 : (size_t)1 << 20;
			/* a file's size is a good first guess (compressed: a
			 * quarter of what it inflates to, often) */
			if (!cap && known && known < PPROF_MAX_INPUT / 8)
				c = (size_t)known * 4 + 4096;
			cap = c < PPROF_MAX_INPUT ? c : PPROF_MAX_INPUT;
			b = xrealloc(b, cap);
		}
		ssize_t r = source_read(s, b + n, pre->on && cap - n > PP_PRE_CHUNK ? PP_PRE_CHUNK : cap - n);
		if (r < 0) {
			in->p = b;
			pp_input_free(in);
			pp_msg(d, "%s", source_error(s));
			return false;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (pre->on)
			pp_pre_step(pre, b, n);
		if (d->o && d->o->progress)
			d->o->progress(d->o->progress_arg, source_offset(s), known, 0);
	}
#ifdef HAVE_MADVISE
	/* pages moved ahead that no byte reached */
	size_t end = (n + IN_BLOCK - 1) & ~(IN_BLOCK - 1);
	if (in->map && in->ready > end)
		madvise(b + end, in->ready - end, MADV_DONTNEED);
#endif
	in->p = b;
	in->len = n;
	return true;
}

void pp_input_free(struct pp_input *in)
{
	if (in->map)
		munmap(in->map, in->maplen);
	else
		free(in->p);
	memset(in, 0, sizeof *in);
}
