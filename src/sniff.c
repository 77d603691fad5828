/* Placeholder until format detection lands: everything is folded. */
#include "config.h"
#include "sniff.h"
#include <string.h>
enum sniff_format sniff_detect(const char *buf, size_t len, bool eof, uint64_t *bad_line) { (void)buf; (void)len; (void)eof; (void)bad_line; return SNIFF_FOLDED; }
bool sniff_parse_name(const char *name, enum sniff_format *out) { if (!strcmp(name, "folded")) { *out = SNIFF_FOLDED; return true; } if (!strcmp(name, "perf")) { *out = SNIFF_PERF; return true; } return false; }
