/* prefault: see prefault.h. */
#include "config.h"
#include "prefault.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* A step's owner. The filler takes FREE steps only, the helper too; a
 * HELPER step becomes DONE (released) when its pages are written. */
enum { PF_FREE, PF_HELPER, PF_DONE, PF_FILLER };

struct prefault {
	char *base;
	size_t lo, hi;              /* the steps' span: whole pages, from base */
	size_t page, nsteps;
	size_t mine;                /* steps [0, mine) are the filler's */
	size_t written;             /* bytes the helper wrote (read after the join) */
	atomic_bool stop;
	atomic_uchar *state;        /* nsteps of them */
	pthread_t th;
};

static void *helper_main(void *arg)
{
	struct prefault *pf = arg;
	for (size_t s = pf->nsteps; s-- > 0;) {
		if (atomic_load_explicit(&pf->stop, memory_order_relaxed))
			break;
		unsigned char e = PF_FREE;
		if (!atomic_compare_exchange_strong_explicit(&pf->state[s], &e, PF_HELPER, memory_order_acquire,
		                                             memory_order_relaxed))
			break;      /* the filler got here: the steps below are its */
		size_t a = pf->lo + s * PREFAULT_STEP;
		size_t b = a + PREFAULT_STEP < pf->hi ? a + PREFAULT_STEP : pf->hi;
		for (size_t q = a; q < b; q += pf->page)
			*(volatile char *)(pf->base + q) = 0;
		pf->written += b - a;
		atomic_store_explicit(&pf->state[s], PF_DONE, memory_order_release);
	}
	return NULL;
}

struct prefault *prefault_begin(char *base, size_t from, size_t to)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	if (!base || to <= from || to - from < PREFAULT_MIN || PREFAULT_STEP % page)
		return NULL;
	/* whole pages only: the filler may be writing the partial ones */
	uintptr_t b0 = (uintptr_t)base;
	size_t lo = (size_t)(((b0 + from + page - 1) & ~(uintptr_t)(page - 1)) - b0);
	size_t hi = (size_t)(((b0 + to) & ~(uintptr_t)(page - 1)) - b0);
	if (hi <= lo)
		return NULL;
	struct prefault *pf = malloc(sizeof *pf);
	if (!pf)
		return NULL;
	pf->base = base;
	pf->lo = lo;
	pf->hi = hi;
	pf->page = page;
	pf->nsteps = (hi - lo + PREFAULT_STEP - 1) / PREFAULT_STEP;
	pf->mine = 0;
	pf->written = 0;
	atomic_init(&pf->stop, false);
	pf->state = malloc(pf->nsteps * sizeof *pf->state);
	if (!pf->state) {
		free(pf);
		return NULL;
	}
	for (size_t s = 0; s < pf->nsteps; s++)
		atomic_init(&pf->state[s], PF_FREE);
	if (pthread_create(&pf->th, NULL, helper_main, pf) != 0) {
		free(pf->state);
		free(pf);
		return NULL;
	}
	return pf;
}

size_t prefault_claim(struct prefault *pf, size_t upto)
{
	if (upto > pf->lo) {
		size_t need = (upto - pf->lo) / PREFAULT_STEP + ((upto - pf->lo) % PREFAULT_STEP != 0);
		if (need > pf->nsteps)
			need = pf->nsteps;
		for (; pf->mine < need; pf->mine++) {
			unsigned char e = PF_FREE;
			if (atomic_compare_exchange_strong_explicit(&pf->state[pf->mine], &e, PF_FILLER,
			                                            memory_order_acquire, memory_order_acquire))
				continue;
			/* the helper's: written, or being written (a step's
			 * faults, a millisecond or so) */
			while (e == PF_HELPER) {
				sched_yield();
				e = atomic_load_explicit(&pf->state[pf->mine], memory_order_acquire);
			}
		}
	}
	return pf->mine == pf->nsteps ? SIZE_MAX : pf->lo + pf->mine * PREFAULT_STEP;
}

size_t prefault_end(struct prefault *pf)
{
	if (!pf)
		return 0;
	atomic_store_explicit(&pf->stop, true, memory_order_relaxed);
	pthread_join(pf->th, NULL);
	size_t w = pf->written;
	free(pf->state);
	free(pf);
	return w;
}
