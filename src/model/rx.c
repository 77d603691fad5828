/* rx: see rx.h. The pattern is first rewritten from ERE's few differences
 * to PCRE2's syntax (translate), then compiled as UTF-8 when it is valid
 * UTF-8, else as bytes. Limits: the match limit bounds JIT code and the
 * interpreter alike; depth and heap limits bound the interpreter's memory;
 * JIT code gets a stack of its own, of bounded size. */
#include "config.h"
#include "rx.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>
#include "text.h"
#include "xalloc.h"

/* Backtracking steps per match: about 1 ms at worst for JIT code (measured:
 * 1.6 ms per million on "(a*)*\1b" over 2,000 a's), and the interpreter is
 * ~10 times slower per step. Ordinary patterns on ordinary names use a few
 * hundred. */
#define RX_LIMIT_JIT 500000u
#define RX_LIMIT_INTERP 50000u
/* The interpreter's nesting of backtracking points, and its heap (KiB). */
#define RX_LIMIT_DEPTH 50000u
#define RX_LIMIT_HEAP_KIB 16384u
/* The JIT code's own stack: starts small, grows to this at most. */
#define RX_JIT_STACK_MIN (32u * 1024u)
#define RX_JIT_STACK_MAX (512u * 1024u)

struct rx_state {              /* what a match changes */
	pcre2_match_data *md;
	size_t costly;
};

struct rx {
	pcre2_code *code;
	pcre2_match_context *mctx;
	pcre2_jit_stack *stack;
	struct rx_state *st;
	bool jit, icase;
};

static void set_err(char *err, size_t errsize, const char *msg)
{
	if (errsize)
		text_sanitize(msg, strlen(msg), err, errsize);
}

/* Skips the braces of an escape such as \p{Lu} or \x{41} from p[i] (the
 * letter after the backslash); returns the index of its last byte. */
static size_t escape_end(const char *p, size_t len, size_t i)
{
	if (strchr("pPxNogk", p[i]) && i + 1 < len && p[i + 1] == '{') {
		const char *close = memchr(p + i + 1, '}', len - i - 1);
		if (close)
			return (size_t)(close - p);
	}
	return i;
}

bool rx_has_upper(const char *p, size_t len)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	size_t i = 0;
	/* Leading (*VERB) settings ("(*UCP)") are not text. */
	while (i + 2 < len && p[i] == '(' && p[i + 1] == '*') {
		const char *close = memchr(p + i, ')', len - i);
		if (!close)
			break;
		i = (size_t)(close - p) + 1;
	}
	while (i < len) {
		if (p[i] == '\\' && i + 1 < len) {
			i = escape_end(p, len, i + 1) + 1;
			continue;
		}
		wchar_t wc;
		size_t n = mbrtowc(&wc, p + i, len - i, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			/* Invalid, truncated or NUL: one byte, fresh state. */
			memset(&st, 0, sizeof st);
			n = 1;
			wc = (unsigned char)p[i];
			if (wc >= 0x80)
				wc = 0;
		}
		if (iswupper((wint_t)wc))
			return true;
		i += n;
	}
	return false;
}

/* The end of the POSIX bracket term "[:name:]" (also [.x.], [=x=]) that
 * starts at p[i] == '[': the index after it, or 0 when p[i] starts none. */
static size_t posix_term_end(const char *p, size_t len, size_t i)
{
	if (i + 1 >= len || !strchr(":.=", p[i + 1]))
		return 0;
	char c = p[i + 1];
	for (size_t k = i + 2; k + 1 < len; k++)
		if (p[k] == c && p[k + 1] == ']')
			return k + 2;
	return 0;
}

/* Bytes translate() writes at most per byte read: \> (2) becomes
 * \b(?<=\w) (9). */
#define RX_GROWTH 5
/* Rewrites ERE's ways that PCRE2 reads otherwise (see rx.h) into out
 * (room for RX_GROWTH * len + 1 bytes). Returns the length written. */
static size_t translate(const char *p, size_t len, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		char c = p[i];
		if (c == '\\' && i + 1 < len) {
			char e = p[i + 1];
			const char *rep = e == '<' ? "\\b(?=\\w)" : e == '>' ? "\\b(?<=\\w)"
			                : e == '`' ? "\\A" : e == '\'' ? "\\z" : NULL;
			if (rep) {
				memcpy(out + o, rep, strlen(rep));
				o += strlen(rep);
				i += 2;
			} else if (e == 'Q') {
				/* \Q...\E: literal text, brackets included. */
				size_t k = i + 2;
				while (k < len && !(p[k] == '\\' && k + 1 < len && p[k + 1] == 'E'))
					k++;
				k = k < len ? k + 2 : len;
				memcpy(out + o, p + i, k - i);
				o += k - i;
				i = k;
			} else {
				size_t end = escape_end(p, len, i + 1) + 1;
				memcpy(out + o, p + i, end - i);
				o += end - i;
				i = end;
			}
			continue;
		}
		if (c == '{' && i + 1 < len && p[i + 1] == ',') {
			/* "{,n}" (GNU ERE) is {0,n}; PCRE2 10.42 reads it as text. */
			size_t k = i + 2;
			while (k < len && p[k] >= '0' && p[k] <= '9')
				k++;
			if (k > i + 2 && k < len && p[k] == '}') {
				memcpy(out + o, "{0", 2);
				o += 2;
				i++;
				continue;
			}
		}
		if (c != '[') {
			out[o++] = c;
			i++;
			continue;
		}
		/* A bracket expression: ']' first is a member, '\' is itself. */
		out[o++] = p[i++];
		if (i < len && p[i] == '^')
			out[o++] = p[i++];
		if (i < len && p[i] == ']') {
			memcpy(out + o, "\\]", 2);
			o += 2;
			i++;
		}
		while (i < len && p[i] != ']') {
			size_t end = p[i] == '[' ? posix_term_end(p, len, i) : 0;
			if (end) {
				memcpy(out + o, p + i, end - i);
				o += end - i;
				i = end;
			} else if (p[i] == '\\') {
				memcpy(out + o, "\\\\", 2);
				o += 2;
				i++;
			} else
				out[o++] = p[i++];
		}
		if (i < len)
			out[o++] = p[i++];
	}
	out[o] = '\0';
	return o;
}

static bool utf_error(int e)
{
	return e <= PCRE2_ERROR_UTF8_ERR1 && e >= PCRE2_ERROR_UTF8_ERR21;
}

struct rx *rx_new(const char *pattern, size_t len, enum rx_case cs, char *err, size_t errsize)
{
	if (len > RX_MAX_PATTERN) {
		char msg[96];
		snprintf(msg, sizeof msg, "pattern longer than %u bytes", RX_MAX_PATTERN);
		set_err(err, errsize, msg);
		return NULL;
	}
	bool icase = cs == RX_CASE_IGNORE || (cs == RX_CASE_SMART && !rx_has_upper(pattern, len));
	char *text = xmalloc(RX_GROWTH * len + 1);
	size_t tlen = translate(pattern, len, text);
	pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
	if (!cctx) {
		free(text);
		set_err(err, errsize, "out of memory");
		return NULL;
	}
	pcre2_set_max_pattern_length(cctx, RX_GROWTH * (size_t)RX_MAX_PATTERN);
	/* POSIX without REG_NEWLINE: "." takes a newline, "$" is the end only. */
	uint32_t opts = PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C |
	                (icase ? PCRE2_CASELESS : 0);
	int e = 0;
	PCRE2_SIZE off = 0;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)text, tlen,
	                                 opts | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_UCP,
	                                 &e, &off, cctx);
	if (!code && utf_error(e))      /* not UTF-8: bytes, and (*UTF) refused */
		code = pcre2_compile((PCRE2_SPTR)text, tlen, opts | PCRE2_NEVER_UTF, &e, &off, cctx);
	pcre2_compile_context_free(cctx);
	free(text);
	if (!code) {
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(e, msg, sizeof msg) < 0)
			strcpy((char *)msg, "invalid pattern");
		set_err(err, errsize, (const char *)msg);
		return NULL;
	}
	size_t size = 0;
	if (pcre2_pattern_info(code, PCRE2_INFO_SIZE, &size) != 0 || size > RX_MAX_COMPILED) {
		pcre2_code_free(code);
		set_err(err, errsize, "pattern too big once compiled");
		return NULL;
	}
	struct rx *re = xcalloc(1, sizeof *re);
	re->code = code;
	re->icase = icase;
	re->st = xcalloc(1, sizeof *re->st);
	/* JIT code when the library and the system allow it ((*NO_JIT) in the
	 * pattern leaves none): the interpreter otherwise. */
	size_t jsize = 0;
	const char *nojit = getenv("TFLAME_NO_JIT");     /* valgrind: see tflame(1) */
	re->jit = !(nojit && *nojit) && pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0 &&
	          pcre2_pattern_info(code, PCRE2_INFO_JITSIZE, &jsize) == 0 && jsize > 0;
	re->mctx = pcre2_match_context_create(NULL);
	re->st->md = pcre2_match_data_create(1, NULL);
	if (!re->mctx || !re->st->md)
		xdie("out of memory");
	pcre2_set_match_limit(re->mctx, re->jit ? RX_LIMIT_JIT : RX_LIMIT_INTERP);
	pcre2_set_depth_limit(re->mctx, RX_LIMIT_DEPTH);
	pcre2_set_heap_limit(re->mctx, RX_LIMIT_HEAP_KIB);
	if (re->jit) {
		re->stack = pcre2_jit_stack_create(RX_JIT_STACK_MIN, RX_JIT_STACK_MAX, NULL);
		if (re->stack)      /* else the default 32 KiB: still bounded */
			pcre2_jit_stack_assign(re->mctx, NULL, re->stack);
	}
	return re;
}

void rx_free(struct rx *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->st->md);
	free(re->st);
	pcre2_jit_stack_free(re->stack);
	pcre2_match_context_free(re->mctx);
	pcre2_code_free(re->code);
	free(re);
}

enum rx_result rx_match(const struct rx *re, const char *s, size_t len)
{
	PCRE2_SPTR subj = (PCRE2_SPTR)(len ? s : "");
	int rc = re->jit ? pcre2_jit_match(re->code, subj, len, 0, 0, re->st->md, re->mctx)
	                 : pcre2_match(re->code, subj, len, 0, 0, re->st->md, re->mctx);
	if (rc >= 0)
		return RX_MATCH;
	if (rc == PCRE2_ERROR_NOMATCH)
		return RX_NOMATCH;
	/* A limit (match, depth, heap, JIT stack) or memory: undecided. */
	re->st->costly++;
	return RX_COSTLY;
}

size_t rx_costly(const struct rx *re) { return re->st->costly; }
bool rx_icase(const struct rx *re) { return re->icase; }
bool rx_jit(const struct rx *re) { return re->jit; }
