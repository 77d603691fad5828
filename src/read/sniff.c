/* sniff: folded or `perf script`? (SPEC.md §A.11, "suggested tflame rule")
 *
 * The first significant line decides for folded when it ends in one or two
 * counts, does not end like a perf frame "(dso)", and the next line is not
 * indented. Otherwise inferno's perf check runs: an event line must be
 * followed by a frame line. When neither holds, the first later line that
 * parses (with the line after it) decides (issue 18 item 10): junk, NUL
 * bytes or bad counts before good lines are the reader's to report, line
 * by line, not a reason to refuse the file. Known binary files (ELF, PNG,
 * ...) are refused whatever lines they hold. */
#include "config.h"
#include "sniff.h"

#include <string.h>
#include "perfscript.h"

struct sniff_line {
	const char *s;      /* trimmed at both ends */
	size_t n;
	const char *raw;    /* untrimmed, without '\n' */
	size_t rawn;
	uint64_t no;        /* 1-based */
};

struct sniff_iter {
	const char *p, *end;
	uint64_t no;
};

static bool sniff_next(struct sniff_iter *it, struct sniff_line *l)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	l->raw = it->p;
	l->rawn = (size_t)((nl ? nl : it->end) - it->p);
	l->s = l->raw;
	l->n = l->rawn;
	perf_trim(&l->s, &l->n);
	l->no = ++it->no;
	it->p = nl ? nl + 1 : it->end;
	return true;
}

static bool sniff_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Strips a trailing "[ \t]+NUM" (NUM = [0-9]+(\.[0-9]*)?) from s[0..*n);
 * false when there is none. */
static bool sniff_strip_count(const char *s, size_t *n)
{
	size_t i = *n, j;

	while (i && sniff_digit(s[i - 1]))
		i--;
	if (i && s[i - 1] == '.') {
		j = i - 1;
		i = j;
		while (i && sniff_digit(s[i - 1]))
			i--;
		if (i == j)
			return false;
	} else if (i == *n) {
		return false;
	}
	if (!i || (s[i - 1] != ' ' && s[i - 1] != '\t'))
		return false;
	while (i && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	*n = i;
	return true;
}

/* A folded line: "STACK COUNT" or "STACK COUNT COUNT", with a non-blank
 * stack. *dso is set when the stack ends like a perf frame's "(dso)". */
static bool sniff_folded_line(const char *s, size_t n, bool *dso)
{
	if (!sniff_strip_count(s, &n) || !n)
		return false;
	*dso = s[n - 1] == ')';
	return true;
}

enum sniff_verdict { SNIFF_NO, SNIFF_YES, SNIFF_UNDECIDED };

/* inferno's collapse-perf is_applicable. *no gets the deciding line; *evt
 * whether some event line had an event field (a ':' after the PID). */
static enum sniff_verdict sniff_perf(const char *buf, size_t len, uint64_t *no, bool *evt)
{
	struct sniff_iter it = { buf, buf + len, 0 };
	struct sniff_line l;
	struct perf_event_parts ep;
	struct perf_frame_parts fp;
	bool last_event = false;

	*evt = false;
	while (sniff_next(&it, &l)) {
		if (l.n && l.s[0] == '#')
			continue;
		if (!l.n) {
			last_event = false;
			continue;
		}
		*no = l.no;
		if (last_event)
			return perf_frame_line_parts(l.s, l.n, &fp) ? SNIFF_YES : SNIFF_NO;
		if (!perf_event_line_parts(l.s, l.n, &ep))
			return SNIFF_NO;
		if (memchr(l.s + ep.end, ':', l.n - ep.end))
			*evt = true;
		last_event = true;
	}
	return SNIFF_UNDECIDED;
}

/* The rule of SPEC.md §A.11 from the first significant line, which is
 * first (it->p is after it); buf[0..len) is the whole buffer (the perf
 * check reads from its start). */
static enum sniff_format sniff_first(const char *buf, size_t len, struct sniff_iter *it,
                                     const struct sniff_line *first, uint64_t *bad_line)
{
	struct sniff_line l;
	bool folded, dso = false, evt;
	enum sniff_verdict v;
	uint64_t no = 0;

	folded = sniff_folded_line(first->s, first->n, &dso);
	if (folded && !dso) {
		bool indented = false;
		while (sniff_next(it, &l)) {
			if (l.n) {
				indented = l.raw[0] == ' ' || l.raw[0] == '\t';
				break;
			}
		}
		if (!indented)
			return SNIFF_FOLDED;
	}

	v = sniff_perf(buf, len, &no, &evt);
	if (v == SNIFF_YES)
		return SNIFF_PERF;
	if (folded)
		return SNIFF_FOLDED;
	if (v == SNIFF_NO) {
		if (bad_line)
			*bad_line = no;
		return SNIFF_UNKNOWN;
	}
	/* Only event lines so far (say a record without frames at the end of
	 * the input): perf, if they look like perf's. */
	if (evt)
		return SNIFF_PERF;
	*bad_line = first->no;
	return SNIFF_UNKNOWN;
}

/* A significant line: not blank, not a comment. */
static bool sniff_significant(const struct sniff_line *l)
{
	return l->n && l->s[0] != '#';
}

/* Whether l is a folded line (a stack and counts, or counts alone: the
 * root's samples); *dso as sniff_folded_line's. */
static bool sniff_folded_or_root(const struct sniff_line *l, bool *dso)
{
	size_t rn = l->rawn;
	*dso = false;
	if (sniff_strip_count(l->raw, &rn) && rn == 0)
		return true;
	return sniff_folded_line(l->s, l->n, dso);
}

/* After a first significant line that decided nothing: the first later
 * line that parses decides, with the line after it, so that one stray
 * line that happens to parse in junk (binary data, say) does not: a
 * folded line followed by another (or by the end of the input), or a perf
 * event line directly followed by a frame (comments aside). The reader
 * then reports the lines before it as malformed, with their numbers.
 * Linear: each line is looked at as a start once, with one line ahead. */
static enum sniff_format sniff_later(struct sniff_iter *it, bool eof)
{
	struct sniff_line l, nx;
	bool have = false, dso;
	struct perf_event_parts ep;
	struct perf_frame_parts fp;

	for (;;) {
		if (!have && !sniff_next(it, &l))
			return SNIFF_UNKNOWN;
		have = false;
		if (!sniff_significant(&l))
			continue;
		bool folded = sniff_folded_or_root(&l, &dso);
		bool event = !folded && perf_event_line_parts(l.s, l.n, &ep);
		/* the next line: for perf the very next (comments skipped), for
		 * folded the next significant one */
		bool blank = false, got;
		while ((got = sniff_next(it, &nx))) {
			if (!nx.n) {
				blank = true;
				continue;
			}
			if (nx.s[0] != '#')
				break;
		}
		if (!got)
			return folded && eof ? SNIFF_FOLDED : SNIFF_UNKNOWN;
		bool ndso;
		if (folded && nx.raw[0] != ' ' && nx.raw[0] != '\t' && sniff_folded_or_root(&nx, &ndso))
			return SNIFF_FOLDED;
		if (event && !blank && perf_frame_line_parts(nx.s, nx.n, &fp))
			return SNIFF_PERF;
		l = nx;         /* the next line is the next start */
		have = true;
	}
}

enum sniff_format sniff_detect(const char *buf, size_t len, bool eof, uint64_t *bad_line)
{
	struct sniff_iter it;
	struct sniff_line first;
	bool have_first = false;
	uint64_t bad = 0;

	/* Whatever the buffer holds is what we decide on: the caller hands at
	 * least 64 KiB, and every rule below needs only a few lines. */
	if (len == 0)
		return SNIFF_FOLDED;        /* an empty profile (buf may be NULL) */
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	/* a known binary file: not a profile, whatever lines it holds (the
	 * caller says what it is: sniff_file_kind) */
	if (sniff_file_kind((const unsigned char *)buf, len)) {
		if (bad_line)
			*bad_line = 1;
		return SNIFF_UNKNOWN;
	}
	it.p = buf;
	it.end = buf + len;
	it.no = 0;
	while (sniff_next(&it, &first)) {
		if (sniff_significant(&first)) {
			/* " 3": samples of the root alone, as tflame writes them
			 * (a stack without frames); folded, and the next line decides */
			size_t rn = first.rawn;
			if (sniff_strip_count(first.raw, &rn) && rn == 0)
				continue;
			have_first = true;
			break;
		}
	}
	if (!have_first)
		return SNIFF_FOLDED;        /* an empty profile, or root lines only */

	struct sniff_iter after = it;
	enum sniff_format f = sniff_first(buf, len, &it, &first, &bad);
	if (f == SNIFF_UNKNOWN)
		f = sniff_later(&after, eof);
	if (f == SNIFF_UNKNOWN && bad_line)
		*bad_line = bad;
	return f;
}

const char *sniff_file_kind(const unsigned char *b, size_t n)
{
	if (n >= 4 && memcmp(b, "\177ELF", 4) == 0)
		return "an ELF file: a program or library; record it with perf record";
	if (n >= 8 && memcmp(b, "\211PNG\r\n\032\n", 8) == 0)
		return "a PNG image";
	if (n >= 4 && memcmp(b, "%PDF", 4) == 0)
		return "a PDF document";
	if (n >= 4 && memcmp(b, "PK\003\004", 4) == 0)
		return "a zip archive";
	if (n >= 262 && memcmp(b + 257, "ustar", 5) == 0)
		return "a tar archive";
	if (n >= 5 && memcmp(b, "<?xml", 5) == 0)
		return "an XML document, an SVG perhaps";
	return NULL;
}

bool sniff_parse_name(const char *name, enum sniff_format *out)
{
	if (!strcmp(name, "folded")) {
		*out = SNIFF_FOLDED;
		return true;
	}
	if (!strcmp(name, "perf")) {
		*out = SNIFF_PERF;
		return true;
	}
	if (!strcmp(name, "perf-data")) {
		*out = SNIFF_PERFDATA;
		return true;
	}
	if (!strcmp(name, "pprof")) {
		*out = SNIFF_PPROF;
		return true;
	}
	if (!strcmp(name, "cpuprofile")) {
		*out = SNIFF_CPUPROFILE;
		return true;
	}
	if (!strcmp(name, "speedscope")) {
		*out = SNIFF_SPEEDSCOPE;
		return true;
	}
	return false;
}
