/* sniff: tells folded text from `perf script` output (SPEC.md §A.11). */
#ifndef TFLAME_SNIFF_H
#define TFLAME_SNIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sniff_format {
	SNIFF_UNKNOWN,      /* neither; see *bad_line */
	SNIFF_FOLDED,
	SNIFF_PERF,
	SNIFF_PERFDATA,     /* perf.data (binary; found by perfdata_sniff) */
	SNIFF_PPROF,        /* pprof's profile.proto (found by pprof_sniff) */
	SNIFF_CPUPROFILE,   /* V8 .cpuprofile or Chrome trace (cpuprofile_sniff) */
	SNIFF_SPEEDSCOPE    /* speedscope JSON (speedscope_sniff) */
};

/* Looks at the start of an input (buf, len: whole lines; eof when that is
 * all of it). Empty input or input of only blank/comment lines is FOLDED
 * (an empty profile). The first significant line decides when it can;
 * else the first later line that parses does, with the line after it (a
 * folded line followed by another folded line or the end of the input, a
 * perf event line directly followed by a frame line), and the reader
 * reports the lines before it as malformed. A known binary file
 * (sniff_file_kind) is UNKNOWN with *bad_line 1. For UNKNOWN, *bad_line
 * is the 1-based number of the line that decided it on the first
 * significant line's rule. Never reads past len; linear in len. */
enum sniff_format sniff_detect(const char *buf, size_t len, bool eof, uint64_t *bad_line);

/* What a known binary file is, from its first bytes ("a PNG image", "an
 * ELF file: ..."), or NULL: ELF, PNG, PDF, zip, tar, XML. */
const char *sniff_file_kind(const unsigned char *buf, size_t len);

/* Parses a --format value ("folded", "perf", "perf-data", "pprof"); false
 * if unknown. */
bool sniff_parse_name(const char *name, enum sniff_format *out);

#endif
