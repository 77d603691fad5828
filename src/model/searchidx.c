#include "config.h"
#include "searchidx.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* One class each, in bit order; letters stand for both cases. 64 of them:
 * the characters of C++, Rust, Java and kernel symbol names. */
static const char classes[] =
	"abcdefghijklmnopqrstuvwxyz0123456789_:<>(),&* .-~[]/@$#+=!?%'\"{}";

static uint64_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	for (size_t k = 0; k < sizeof classes - 1; k++) {
		unsigned char c = (unsigned char)classes[k];
		table[c] = (uint64_t)1 << k;
		if (c >= 'a' && c <= 'z')
			table[c - 'a' + 'A'] = (uint64_t)1 << k;
	}
}

uint64_t searchidx_bit(unsigned char c)
{
	pthread_once(&table_once, table_init);
	return table[c];
}

uint64_t searchidx_sig(const char *s, size_t n)
{
	pthread_once(&table_once, table_init);
	const unsigned char *p = (const unsigned char *)s;
	/* Two accumulators: the ORs of neighbouring bytes do not wait on
	 * each other. */
	uint64_t a = 0, b = 0;
	size_t i = 0;
	for (; i + 2 <= n; i += 2) {
		a |= table[p[i]];
		b |= table[p[i + 1]];
	}
	if (i < n)
		a |= table[p[i]];
	return a | b;
}

#define SEARCHIDX_CHECK 4096u

struct searchidx {
	const struct tree *t;
	uint64_t *sig;
	uint16_t *n16;
	uint32_t *n32;
	pthread_t thread;
	bool running;           /* thread not joined yet */
	atomic_bool stop, ready;
};

static void *searchidx_main(void *arg)
{
	struct searchidx *x = arg;
#ifdef SCHED_IDLE
	/* Background work: a core a search or a repaint wants is theirs. */
	struct sched_param sp = { 0 };
	(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
#endif
	const struct strtab *st = &x->t->names;
	size_t names = strtab_count(st), n = tree_size(x->t);
	for (size_t id = 0; id < names; id++) {
		if ((id & (SEARCHIDX_CHECK - 1)) == 0 && atomic_load(&x->stop))
			return NULL;
		x->sig[id] = searchidx_sig(strtab_str(st, (strtab_id)id), strtab_len(st, (strtab_id)id));
	}
	for (size_t i = 0; i < n; i++) {
		if ((i & (SEARCHIDX_CHECK - 1)) == 0 && atomic_load(&x->stop))
			return NULL;
		strtab_id name = tree_node(x->t, (tree_idx)i)->name;
		if (x->n16)
			x->n16[i] = (uint16_t)name;
		else
			x->n32[i] = name;
	}
	atomic_store(&x->ready, true);      /* publishes the arrays */
	return NULL;
}

struct searchidx *searchidx_start(const struct tree *t)
{
	pthread_once(&table_once, table_init);
	struct searchidx *x = xcalloc(1, sizeof *x);
	size_t names = strtab_count(&t->names), n = tree_size(t);
	x->t = t;
	x->sig = xmalloc((names ? names : 1) * sizeof *x->sig);
	if (names <= (size_t)UINT16_MAX + 1)
		x->n16 = xmalloc((n ? n : 1) * sizeof *x->n16);
	else
		x->n32 = xmalloc((n ? n : 1) * sizeof *x->n32);
	atomic_init(&x->stop, false);
	atomic_init(&x->ready, false);
	if (pthread_create(&x->thread, NULL, searchidx_main, x) != 0) {
		searchidx_free(x);
		return NULL;
	}
	x->running = true;
	return x;
}

bool searchidx_ready(struct searchidx *x)
{
	if (!x || !atomic_load(&x->ready))
		return false;
	if (x->running) {       /* finished: the join cannot wait */
		pthread_join(x->thread, NULL);
		x->running = false;
	}
	return true;
}

const uint64_t *searchidx_sigs(const struct searchidx *x) { return x->sig; }
const uint16_t *searchidx_names16(const struct searchidx *x) { return x->n16; }
const uint32_t *searchidx_names32(const struct searchidx *x) { return x->n32; }

void searchidx_free(struct searchidx *x)
{
	if (!x)
		return;
	if (x->running) {
		atomic_store(&x->stop, true);
		pthread_join(x->thread, NULL);
	}
	free(x->sig);
	free(x->n16);
	free(x->n32);
	free(x);
}
