/* perfscript_lines: the grammar of `perf script` lines (SPEC.md §A.3,
 * §A.4, §A.10 b and c), on byte spans of the line: where an event line's
 * COMM and PID/TID are, a frame line's PC, symbol and DSO, and which lines
 * are srclines. Shared by the reader and by sniff. */
#include "config.h"
#include "perfscript_impl.h"

void perf_trim(const char **s, size_t *len)
{
	size_t k = perf_ltrim(*s, *len);

	*s += k;
	*len = perf_rtrim(*s, *len - k);
}

bool perf_event_line_parts(const char *line, size_t len, struct perf_event_parts *ep)
{
	size_t word_start = 0, slash = SIZE_MAX;
	bool digits = false, last_space = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == ' ') {
			if (digits && !last_space) {
				const char *comm = line;
				size_t clen = word_start - 1;
				if (slash != SIZE_MAX) {
					ep->pid = line + word_start;
					ep->pid_len = slash - word_start;
					ep->tid = line + slash + 1;
					ep->tid_len = i - slash - 1;
				} else {
					ep->pid = "?";
					ep->pid_len = 1;
					ep->tid = line + word_start;
					ep->tid_len = i - word_start;
				}
				perf_trim(&comm, &clen);
				ep->comm = comm;
				ep->comm_len = clen;
				ep->end = i + 1;
				return true;
			}
			word_start = i + 1;
			digits = true;
		} else if (c == '/') {
			if (digits)
				slash = i;
		} else if (!perf_is_digit(c)) {
			digits = false;
			slash = SIZE_MAX;
		}
		last_space = c == ' ';
	}
	return false;
}

/* §A.10 (b): the DSO is the parenthesis group that ends the line, found by
 * matching parentheses backwards (or, when unbalanced, the last " ("). The
 * group must start after a space inside rest, as inferno needs a symbol
 * field. Sets *open to its '('. */
static bool perf_module_group(const char *rest, const char *end, const char **open)
{
	const char *q = end - 1;
	long depth = 1;

	if (end - rest < 3 || end[-1] != ')')
		return false;
	while (q > rest) {
		q--;
		if (*q == ')') {
			depth++;
		} else if (*q == '(' && --depth == 0) {
			if (q > rest && q[-1] == ' ') {
				*open = q;
				return true;
			}
			break;
		}
	}
	for (q = end - 1; q > rest + 1; q--) {
		if (q[-1] == '(' && q[-2] == ' ') {
			*open = q - 1;
			return true;
		}
	}
	return false;
}

bool perf_frame_line_parts(const char *line, size_t len, struct perf_frame_parts *fp)
{
	const char *end = line + len;
	const char *s = line + perf_ltrim(line, len);
	const char *sp, *rest, *msp, *sym_end, *open;
	const char *sym;
	size_t slen;

	sp = memchr(s, ' ', (size_t)(end - s));
	if (!sp)
		return false;
	fp->pc = s;
	fp->pc_len = perf_rtrim(s, (size_t)(sp - s));
	rest = sp + 1;
	msp = perf_rchr(rest, (size_t)(end - rest), ' ');
	if (msp && end - msp >= 3 && msp[1] == '(' && end[-1] == ')') {
		sym_end = msp;
		fp->module = msp + 2;
	} else if (perf_module_group(rest, end, &open)) {
		sym_end = open - 1;
		fp->module = open + 1;
	} else {
		return false;
	}
	fp->module_len = (size_t)(end - 1 - fp->module);
	sym = rest;
	slen = (size_t)(sym_end - rest);
	perf_trim(&sym, &slen);
	if (!slen) {
		/* An empty symbol is " ", as in stackcollapse-perf.pl. */
		sym = " ";
		slen = 1;
	}
	fp->func = sym;
	fp->func_len = slen;
	return true;
}

bool perf_is_srcline(const char *s, size_t n)
{
	static const char disc[] = " (discriminator ";
	size_t k = perf_ltrim(s, n), i;

	s += k;
	n -= k;
	if (n && s[n - 1] == ')') {
		/* "file.c:12 (discriminator 3)" from addr2line */
		i = n - 1;
		while (i && perf_is_digit((unsigned char)s[i - 1]))
			i--;
		if (i == n - 1 || i < sizeof disc - 1 ||
		    memcmp(s + i - (sizeof disc - 1), disc, sizeof disc - 1) != 0)
			return false;
		n = i - (sizeof disc - 1);
	}
	if (!n)
		return false;
	i = n;
	while (i && perf_is_digit((unsigned char)s[i - 1]))
		i--;
	if (i < n && i >= 2 && s[i - 1] == ':')
		return true;
	if (s[n - 1] == ']') {
		i = n - 1;
		while (i && perf_is_hex((unsigned char)s[i - 1]))
			i--;
		if (i < n - 1 && i >= 2 && s[i - 1] == '[')
			return true;
	}
	return false;
}
