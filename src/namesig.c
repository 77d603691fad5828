#include "config.h"
#include "namesig.h"

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

uint64_t namesig_bit(unsigned char c)
{
	pthread_once(&table_once, table_init);
	return table[c];
}

uint64_t namesig_of(const char *s, size_t n)
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

#define NAMESIG_CHECK 4096u

struct namesig {
	const struct strtab *st;
	uint64_t *sig;
	pthread_t thread;
	bool running;           /* thread not joined yet */
	atomic_bool stop, ready;
};

static void *namesig_main(void *arg)
{
	struct namesig *ns = arg;
#ifdef SCHED_IDLE
	/* Background work: a core a search or a repaint wants is theirs. */
	struct sched_param sp = { 0 };
	(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
#endif
	size_t n = strtab_count(ns->st);
	for (size_t id = 0; id < n; id++) {
		if ((id & (NAMESIG_CHECK - 1)) == 0 && atomic_load(&ns->stop))
			return NULL;
		ns->sig[id] = namesig_of(strtab_str(ns->st, (strtab_id)id),
		                         strtab_len(ns->st, (strtab_id)id));
	}
	atomic_store(&ns->ready, true);     /* publishes sig[] */
	return NULL;
}

struct namesig *namesig_start(const struct strtab *st)
{
	pthread_once(&table_once, table_init);
	struct namesig *ns = xcalloc(1, sizeof *ns);
	ns->st = st;
	ns->sig = xmalloc((strtab_count(st) ? strtab_count(st) : 1) * sizeof *ns->sig);
	atomic_init(&ns->stop, false);
	atomic_init(&ns->ready, false);
	if (pthread_create(&ns->thread, NULL, namesig_main, ns) != 0) {
		free(ns->sig);
		free(ns);
		return NULL;
	}
	ns->running = true;
	return ns;
}

const uint64_t *namesig_ready(struct namesig *ns)
{
	if (!ns || !atomic_load(&ns->ready))
		return NULL;
	if (ns->running) {      /* finished: the join cannot wait */
		pthread_join(ns->thread, NULL);
		ns->running = false;
	}
	return ns->sig;
}

void namesig_free(struct namesig *ns)
{
	if (!ns)
		return;
	if (ns->running) {
		atomic_store(&ns->stop, true);
		pthread_join(ns->thread, NULL);
	}
	free(ns->sig);
	free(ns);
}
