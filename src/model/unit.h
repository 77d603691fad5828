/* unit: what a profile's weights count, and how to say an amount of it.
 * Folded input counts "samples"; perf.data knows its event, so a
 * cpu-clock profile's weights read as time ("1.16 s cpu-clock") and a
 * cycles profile's as cycles. */
#ifndef TFLAME_UNIT_H
#define TFLAME_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unit {
	char event[64];         /* "" when unknown: weights are samples */
	bool ns;                /* weights are nanoseconds (cpu-clock, task-clock) */
	bool bytes;             /* weights are bytes (pprof's alloc_space...) */
	uint64_t samples;       /* how many samples there were (0: unknown) */
	double scale;           /* ns: nanoseconds per count (0 taken as 1) */
	bool bare;              /* the amount alone: "1.50 s", not "1.50 s NAME" */
};

/* Sets u from an event name ("cpu-clock", "cycles:u"); NULL or "": samples. */
void unit_set(struct unit *u, const char *event, uint64_t samples);

/* Sets u for a profile that names its sample type and unit (pprof: "cpu"
 * in "nanoseconds", "alloc_space" in "bytes", "samples" in "count"). */
void unit_set_typed(struct unit *u, const char *type, const char *unit, uint64_t samples);

/* Sets u from what the user says the counts are (--unit): "samples";
 * "ns", "us", "ms", "s" (times); "bytes"; any other name counts that
 * thing ("cycles": "1,234 cycles"). */
void unit_set_user(struct unit *u, const char *name, uint64_t samples);

/* "1,234" into out (digits grouped by thousands, the rest copied). */
void unit_group(const char *digits, char *out, size_t size);

/* An amount of weight w: "1,234 samples", "1.16 s cpu-clock",
 * "12,345,678 cycles". u may be NULL (samples). */
void unit_amount(const struct unit *u, double w, char *out, size_t size);

/* unit_amount for narrow places: a count of 10,000 or more in SI form
 * ("49.2 G samples", "1.3 M cycles"); times and bytes as unit_amount. */
void unit_short(const struct unit *u, double w, char *out, size_t size);

/* The number of unit_short without the name of what it counts, for
 * columns: "49.2 G", "1.3 M", "9,999", "1.16 s", "2.0 GB". At most 8
 * columns wide below 1000 E (text_width: "µs" is one column, two bytes). */
void unit_number_short(const struct unit *u, double w, char *out, size_t size);

/* The whole profile: "4,621 samples · 1.16 s cpu-clock" when the sample
 * count is known apart from the weight, else as unit_amount. sep is the
 * separator to use between the two (" · " or " | "). */
void unit_total(const struct unit *u, double w, const char *sep, char *out, size_t size);

#endif
