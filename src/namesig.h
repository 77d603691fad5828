/* namesig: which characters each name contains, as 64 bits per name, so
 * that a plain-text search can pass over a name without reading it ("read"
 * cannot be in a name without an 'r') and decides a one-character search
 * from 8 bytes per name instead of the whole name.
 *
 * Each of 64 classes is one ASCII character, except that a letter's class
 * holds both its cases; other bytes (controls, non-ASCII, rarer
 * punctuation) have no class and are never required.
 *
 * The signatures of a tree's names are computed on a thread of their own
 * (namesig_start), while the user is still looking at the graph: about
 * 50 ms per 100 MB of names on this machine class (2 cores, 2026). */
#ifndef TFLAME_NAMESIG_H
#define TFLAME_NAMESIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strtab.h"

/* The class bit of byte c; 0 when c has no class. */
uint64_t namesig_bit(unsigned char c);
/* The classes of the bytes s[0..n). */
uint64_t namesig_of(const char *s, size_t n);

struct namesig;
/* Starts computing namesig_of() of every name of st on a new thread. st
 * must neither change nor be freed before namesig_free(). NULL when no
 * thread could be started (searches then read every name, as before). */
struct namesig *namesig_start(const struct strtab *st);
/* The signatures by name id, or NULL while they are being computed. Never
 * waits. The array lives until namesig_free(). */
const uint64_t *namesig_ready(struct namesig *ns);
/* Stops the thread if it still runs (it looks every 4096 names), frees
 * everything. NULL is accepted. */
void namesig_free(struct namesig *ns);

#endif
