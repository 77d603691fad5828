/* searchidx: what a search reads instead of the names and the nodes, made
 * once per tree on a thread of its own while the user is still looking at
 * the graph (searchidx_start).
 *
 * Per name, which characters it contains, as 64 bits: a plain-text search
 * passes over a name that cannot match without reading it ("read" cannot be
 * in a name without an 'r') and decides a one-character search from 8
 * bytes per name. Each of 64 classes is one ASCII character, except that a
 * letter's class holds both its cases; other bytes (controls, non-ASCII,
 * rarer punctuation) have no class and are never required.
 *
 * Per node, its name id, in 2 bytes when the tree has at most 65536 names
 * (else 4): the scan for the frames of the matching names then reads 2 or
 * 4 bytes a node instead of a 40-byte node.
 *
 * On this machine class (2 cores, 2026) it takes about 50 ms per 100 MB of
 * names and 30 ms per million nodes. */
#ifndef TFLAME_SEARCHIDX_H
#define TFLAME_SEARCHIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

/* The class bit of byte c; 0 when c has no class. */
uint64_t searchidx_bit(unsigned char c);
/* The classes of the bytes s[0..n). */
uint64_t searchidx_sig(const char *s, size_t n);

struct searchidx;
/* Starts building the index of t (finalized) on a new thread of idle
 * priority. t must neither change nor be freed before searchidx_free().
 * NULL when no thread could be started (searches then read the names and
 * nodes, as they would without it). */
struct searchidx *searchidx_start(const struct tree *t);
/* Whether the index is complete. Never waits. */
bool searchidx_ready(struct searchidx *x);
/* Once ready: the signatures by name id; the names by node index, in
 * exactly one of the two widths (the other is NULL). Valid until
 * searchidx_free(). */
const uint64_t *searchidx_sigs(const struct searchidx *x);
const uint16_t *searchidx_names16(const struct searchidx *x);
const uint32_t *searchidx_names32(const struct searchidx *x);
/* Stops the thread if it still runs (it looks every 4096 names or nodes),
 * frees everything. NULL is accepted. */
void searchidx_free(struct searchidx *x);

#endif
