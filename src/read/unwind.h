/* unwind: the user-space call stack of one sample recorded with
 * `perf record --call-graph dwarf` (registers and a copy of the stack), by
 * CFI with elfutils' libdwfl (x86-64). Modules are reported per layout of
 * mappings and kept across the samples of every process with that layout. */
#ifndef TFLAME_UNWIND_H
#define TFLAME_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A mapping of the sampled process: [start, end) maps the file at path from
 * offset pgoff. */
struct unwind_map {
	uint64_t start, end, pgoff;
	const char *path;
};

struct unwind_input {
	const unsigned char *regs;  /* u64 values of the registers in regs_mask,
	                               in bit order (perf's x86 numbering) */
	unsigned nregs;
	uint64_t regs_mask;
	uint64_t abi;               /* 1: 32-bit, 2: 64-bit */
	const unsigned char *stack; /* the stack copy, starting at SP */
	uint64_t stack_size;
	int32_t pid, tid;
	uint64_t layout;            /* the same for processes whose mappings
	                               are the same (forks): they share one
	                               Dwfl; another value for other mappings */
	/* The mapping holding addr; false when none (or no file for it). */
	bool (*map)(void *arg, uint64_t addr, struct unwind_map *out);
	void *arg;
};

struct unwind;

struct unwind *unwind_new(void);
void unwind_free(struct unwind *u);

/* Writes at most max addresses to ips, innermost first: the sampled IP,
 * then each caller's return address minus one (the call instruction, as
 * perf prints them). Code in no file (JIT) gives the sampled IP alone.
 * Returns the count; 0 when there are no usable registers. */
size_t unwind_sample(struct unwind *u, const struct unwind_input *in, uint64_t *ips, size_t max);

#endif
