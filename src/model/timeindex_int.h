/* timeindex_int: what the files of timeindex (timeindex.c builds the
 * aggregates, timeindex_query.c answers the heat map, the sparklines and a
 * range's tree from them, timeindex_chart.c draws the flame chart) share:
 * the streams' varints and saturating sums. See timeindex.c for the
 * streams' layout. */
#ifndef TFLAME_TIMEINDEX_INT_H
#define TFLAME_TIMEINDEX_INT_H

#include <stdint.h>
#include "timeindex.h"

#define UNITS_PER_BLOCK (TIMELINE_BLOCK / TIMEINDEX_UNIT)
_Static_assert(TIMELINE_BLOCK % TIMEINDEX_UNIT == 0, "units tile the timeline's blocks");

static inline int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint64_t get(const unsigned char **p)
{
	return timeline_varint(p);
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif
