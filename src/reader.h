/* reader: what the input readers (folded, perf script) have in common. Each
 * reader turns whole lines into tree_add_stack calls and keeps a diag. */
#ifndef TFLAME_READER_H
#define TFLAME_READER_H

#include <stdint.h>

struct reader_diag {
	uint64_t lines;         /* lines seen */
	uint64_t stacks;        /* stacks handed to the tree */
	uint64_t bad;           /* malformed lines skipped */
	uint64_t first_bad;     /* 1-based line number of the first; 0 when none */
	char first_msg[192];    /* why it was bad, sanitized (no control bytes) */
	uint64_t saturated;     /* counts clamped to UINT64_MAX */
};

#endif
