/* prefault: a fresh region's pages written on a second thread, ahead of
 * the one thread that fills the region front to back.
 *
 * The first write to a fresh page costs a page fault; on some virtual
 * machines (a PVM guest: 11-15 us a page, against about 1.4 on the VMs
 * measured before it, see bench/BASELINE.md) that is most of the time of
 * filling a big array. A page another thread wrote costs nothing more,
 * so an idle core can take those faults.
 * The helper walks the region from its end towards its start, one step
 * (PREFAULT_STEP) at a time; the filler claims steps from the start as it
 * reaches them (its own writes fault those in), so the two meet where
 * their work is even, and the filler waits at most for the one step the
 * helper is writing. Each step belongs to one thread at a time (an atomic
 * state a step): the helper never writes where the filler has been. */
#ifndef TFLAME_PREFAULT_H
#define TFLAME_PREFAULT_H

#include <stddef.h>

/* Regions smaller than this get no helper: a thread costs more than the
 * faults it would take. */
#ifndef PREFAULT_MIN
#define PREFAULT_MIN ((size_t)8 << 20)
#endif
/* Bytes the helper claims and writes at a time (a multiple of the page). */
#ifndef PREFAULT_STEP
#define PREFAULT_STEP ((size_t)256 << 10)
#endif

struct prefault;

/* Starts a helper that writes a zero byte to each whole page of
 * base[from, to), those nearest `to` first. Those bytes are the helper's
 * until the filler claims them (prefault_claim): it must not read or
 * write them before. Returns NULL, with nothing started, when the region
 * is smaller than PREFAULT_MIN or a thread or memory is not to be had:
 * the caller then writes as it would have. */
struct prefault *prefault_begin(char *base, size_t from, size_t to);

/* Makes base[0, upto) the filler's: the steps there the helper has not
 * taken become the filler's, one the helper is writing is waited for.
 * Returns how far from base the filler may now write (at least upto,
 * SIZE_MAX once the whole region is its). Filler's thread only. */
size_t prefault_claim(struct prefault *pf, size_t upto);

/* Stops the helper and waits for it; steps it had not reached stay as
 * they were. Returns the bytes of pages the helper wrote, and frees pf
 * (NULL: returns 0). After it the whole region is the filler's. */
size_t prefault_end(struct prefault *pf);

#endif
