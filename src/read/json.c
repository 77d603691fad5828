/* json: yajl driven in slices, its callbacks turned into json_events, and
 * the limits that keep hostile documents bounded (see json.h). */
#include "config.h"
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include "text.h"
#include "xalloc.h"

/* Bytes handed to yajl at a time. The token limit is checked between
 * slices, so a token can overshoot it by up to one slice. yajl rereads a
 * token it holds from its start at each slice, so while no value ends
 * slices double (up to JSON_SLICE_MAX): a long token costs a few passes,
 * not one per slice. */
#define JSON_SLICE ((size_t)1 << 20)
#define JSON_SLICE_MAX ((size_t)32 << 20)
/* A mapped input's pages are given back every this many bytes read. */
#define JSON_DROP ((size_t)32 << 20)

/* The scanner's place inside its innermost container (yajl's states by
 * other names): just opened; a value next (after ',' in an array, ':' in
 * an object); after a value; a key next (after ',' in an object); after a
 * key (':' next). */
enum scan_st { ST_OPEN, ST_NEED_VAL, ST_GOT_VAL, ST_NEED_KEY, ST_SEP };

struct json_p {
	json_event_fn *fn;
	void *arg;
	unsigned depth;
	bool replay;                /* callbacks do nothing: a new yajl handle
	                               is brought to where the scanner is */
	bool fast_req;              /* yajl was stopped at a START the reader
	                               wants scanned */
	unsigned fast_home;         /* the fast container's depth (0: none) */
	unsigned fast_depth;        /* scanning: fast_home (0: yajl reads) */
	unsigned bails;             /* of the scanner in this fast container */
	enum scan_st st;
	bool num_int;               /* the number being emitted: has_int, ival */
	int64_t num_val;
	bool seen;                  /* a top-level value has started */
	bool called;                /* yajl called back during this slice */
	bool stopped;               /* fn returned false */
	char limit[96];             /* why the parse was cancelled here */
	char key[JSON_KEY_MAX];
	uint8_t tag[JSON_MAX_DEPTH + 1];
	bool array[JSON_MAX_DEPTH + 1];
	bool runs[JSON_MAX_DEPTH + 1];   /* the array takes integer runs */
	size_t nrun;                /* integers gathered, not handed over yet
	                               (the last ones counted at this depth) */
	int64_t run[JSON_RUN_MAX];
	uint64_t count[JSON_MAX_DEPTH + 1];
};

/* ---- allocation: yajl's through xalloc (exhaustion exits cleanly) ------ */

static void *j_malloc(void *ctx, size_t n)
{
	(void)ctx;
	return xmalloc(n ? n : 1);
}

static void *j_realloc(void *ctx, void *p, size_t n)
{
	(void)ctx;
	return xrealloc(p, n ? n : 1);
}

static void j_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

/* ---- callbacks ---------------------------------------------------------- */

static const char *cur_key(const struct json_p *p)
{
	return p->depth == 0 || p->array[p->depth] ? "" : p->key;
}

/* Hands the integers gathered to the reader, as one event. Every other
 * event (emit, start, end_cb) calls it first, and the scanner before it
 * lets yajl read on, so that the reader sees the values in order. */
static int flush_run(struct json_p *p)
{
	struct json_event e = {
		.type = JSON_INTS, .depth = p->depth, .parent = p->tag[p->depth], .key = "",
		.index = p->count[p->depth] - p->nrun, .s = "", .run = p->run, .nrun = p->nrun,
	};
	p->nrun = 0;
	if (!p->fn(p->arg, &e)) {
		p->stopped = true;
		return 0;
	}
	return 1;
}

/* After a value that yajl read (the scanner had passed it on) directly in
 * the fast container: yajl stops, the scanner goes on. 1 otherwise. */
static int back_to_scanner(struct json_p *p)
{
	if (!p->fast_home || p->fast_depth || p->depth != p->fast_home)
		return 1;
	p->fast_req = true;
	p->st = ST_GOT_VAL;
	return 0;
}

static int emit(struct json_p *p, enum json_type type, const char *s, size_t len)
{
	if (p->replay)
		return 1;
	p->called = true;
	if (p->nrun && !flush_run(p))
		return 0;
	if (p->tag[p->depth] == JSON_SKIP)
		return 1;
	struct json_event e = {
		.type = type, .depth = p->depth, .parent = p->tag[p->depth],
		.key = cur_key(p), .index = p->count[p->depth], .s = s, .len = len,
		.has_int = type == JSON_NUMBER && p->num_int, .ival = p->num_val,
	};
	p->seen = true;
	p->count[p->depth]++;
	if (!p->fn(p->arg, &e)) {
		p->stopped = true;
		return 0;
	}
	return back_to_scanner(p);
}

static int cb_null(void *ctx) { return emit(ctx, JSON_NULL, "", 0); }

static int cb_bool(void *ctx, int v) { return emit(ctx, v ? JSON_TRUE : JSON_FALSE, "", 0); }

static int cb_number(void *ctx, const char *s, size_t len)
{
	((struct json_p *)ctx)->num_int = false;
	return emit(ctx, JSON_NUMBER, s, len);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	return emit(ctx, JSON_STRING, (const char *)s, len);
}

static int start(struct json_p *p, bool array)
{
	if (p->replay)
		return 1;
	if (p->nrun && !flush_run(p))
		return 0;
	if (p->depth >= JSON_MAX_DEPTH) {
		snprintf(p->limit, sizeof p->limit, "the JSON is nested deeper than %d levels", JSON_MAX_DEPTH);
		return 0;
	}
	struct json_event e = {
		.type = array ? JSON_START_ARRAY : JSON_START_MAP, .depth = p->depth,
		.parent = p->tag[p->depth], .key = cur_key(p), .index = p->count[p->depth], .s = "",
	};
	p->called = true;
	p->seen = true;
	p->count[p->depth]++;
	if (e.parent == JSON_SKIP)
		e.tag = JSON_SKIP;
	else if (!p->fn(p->arg, &e)) {
		p->stopped = true;
		return 0;
	}
	p->depth++;
	p->tag[p->depth] = e.tag;
	p->array[p->depth] = array;
	p->runs[p->depth] = array && e.int_runs && e.tag != JSON_SKIP;
	p->count[p->depth] = 0;
	p->key[0] = '\0';
	if (e.fast && !p->fast_home && e.tag != JSON_SKIP) {
		p->fast_home = p->depth;
		p->bails = 0;
		p->fast_req = true;     /* yajl stops here; the scanner goes on */
		p->st = ST_OPEN;
		return 0;
	}
	return 1;
}

static int end_cb(struct json_p *p, bool array)
{
	if (p->replay)
		return 1;
	if (p->nrun && !flush_run(p))
		return 0;
	uint8_t tag = p->tag[p->depth];
	p->depth--;     /* yajl only calls this inside a container */
	p->called = true;
	if (p->depth < p->fast_home)
		p->fast_home = 0;       /* the fast container ended */
	if (tag == JSON_SKIP)
		return back_to_scanner(p);
	struct json_event e = {
		.type = array ? JSON_END_ARRAY : JSON_END_MAP, .depth = p->depth,
		.parent = p->tag[p->depth], .tag = tag, .key = "", .index = p->count[p->depth] - 1, .s = "",
	};
	if (!p->fn(p->arg, &e)) {
		p->stopped = true;
		return 0;
	}
	return back_to_scanner(p);
}

static int cb_start_map(void *ctx) { return start(ctx, false); }
static int cb_end_map(void *ctx) { return end_cb(ctx, false); }
static int cb_start_array(void *ctx) { return start(ctx, true); }
static int cb_end_array(void *ctx) { return end_cb(ctx, true); }

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
	struct json_p *p = ctx;
	if (p->replay)
		return 1;
	p->called = true;
	/* A key with a NUL byte must not compare equal to its prefix. */
	if (len >= JSON_KEY_MAX || memchr(s, 0, len)) {
		p->key[0] = '\x01';
		p->key[1] = '\0';
	} else {
		memcpy(p->key, s, len);
		p->key[len] = '\0';
	}
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,    /* numbers as text: no overflow errors */
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end_map,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end_array,
};

/* ---- messages ----------------------------------------------------------- */

void json_msgf(reader_msg_fn *msg, void *msgarg, const char *name, const char *fmt, ...)
{
	char body[512], clean[512], line[800];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	text_sanitize(body, strlen(body), clean, sizeof clean);
	snprintf(line, sizeof line, "tflame: %s: %s", name, clean);
	msg(msgarg, line);
}

/* yajl's own description of a syntax error, without its newline. */
static void syntax_msg(yajl_handle h, uint64_t at, const char *name, reader_msg_fn *msg, void *msgarg)
{
	unsigned char *err = yajl_get_error(h, 0, NULL, 0);
	char text[160];
	snprintf(text, sizeof text, "%s", err ? (const char *)err : "parse error");
	if (err)
		yajl_free_error(h, err);
	size_t n = strlen(text);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '.'))
		text[--n] = '\0';
	json_msgf(msg, msgarg, name, "not valid JSON at byte %" PRIu64 " (%s)", at, text);
}

/* ---- the scanner --------------------------------------------------------- */

/* The longest string and number the scanner takes; longer ones go to yajl
 * (and its limit). Both well below JSON_SLICE, so that a window that
 * starts at a token holds all of it or more than this. */
#define SCAN_STR_MAX ((size_t)64 << 10)
#define SCAN_NUM_MAX 512
/* Times yajl reads a value of a fast container for the scanner, which
 * then goes on after it; beyond, yajl reads the rest of the container
 * (each time costs a yajl handle: a container of values that the scanner
 * does not take is read by yajl alone). */
#define JSON_FAST_BAILS 256

enum scan_r {
	SCAN_MORE,      /* a token runs past the window: more bytes, please */
	SCAN_DONE,      /* the fast container ended: yajl reads on */
	SCAN_BAIL,      /* something the scanner does not take: yajl reads it */
	SCAN_CANCEL     /* a callback stopped the parse (p->stopped, p->limit) */
};

static bool is_ws(unsigned char c)
{
	/* yajl's whitespace */
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f';
}

/* How many of the 8 bytes at q are digits before the first that is not
 * (8: all), and the value of those digits in *v (q[0] is a digit). Eight
 * bytes at once, without a branch per byte. */
static inline unsigned eight_digits(const unsigned char *q, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;
	memcpy(&x, q, 8);
	/* a byte is a digit when its high nibble is 3 and its low one below 10 */
	uint64_t nd = ((x & 0xf0f0f0f0f0f0f0f0ULL) ^ 0x3030303030303030ULL) |
	              (((x & 0x0f0f0f0f0f0f0f0fULL) + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL);
	uint64_t m = (nd | nd << 1 | nd << 2 | nd << 3) & 0x8080808080808080ULL;
	unsigned k = m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
	/* the k digits at the top, zeros (leading) below; then pairs,
	 * quads and the eight combined */
	uint64_t d = (x & 0x0f0f0f0f0f0f0f0fULL) << (8 * (8 - k));
	d = (d * 2561) >> 8;
	d = ((d & 0x00ff00ff00ff00ffULL) * 6553601) >> 16;
	d = ((d & 0x0000ffff0000ffffULL) * 42949672960001ULL) >> 32;
	*v = d;
	return k;
#else
	unsigned k = 0;
	uint64_t d = 0;
	while (k < 8 && q[k] >= '0' && q[k] <= '9')
		d = d * 10 + (unsigned)(q[k++] - '0');
	*v = d;
	return k;
#endif
}

/* The end of the JSON number at d[0..n) (n > 0; d[0] is '-' or a digit)
 * as yajl lexes it, or NULL when it is malformed (yajl says how) or
 * runs to the end of the window (*cut). *plain: an integer without
 * fraction or exponent, of at most 18 digits, whose value is *v. */
static const unsigned char *scan_number(const unsigned char *d, const unsigned char *end, bool *cut,
                                        bool *plain, int64_t *v)
{
	const unsigned char *q = d;
	bool neg = *q == '-';
	*cut = false;
	q += neg;
	if (q == end)
		goto cut;
	uint64_t u = 0;
	const unsigned char *digits = q;
	if (*q == '0') {
		q++;
	} else if (*q >= '1' && *q <= '9') {
		while (q < end && *q >= '0' && *q <= '9')
			u = u * 10 + (unsigned)(*q++ - '0');
	} else {
		return NULL;
	}
	*plain = q - digits <= 18;
	if (q == end)
		goto cut;
	if (*q == '.') {
		*plain = false;
		const unsigned char *f = ++q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == end)
			goto cut;
		if (q == f)
			return NULL;
	}
	if (*q == 'e' || *q == 'E') {
		*plain = false;
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		const unsigned char *x = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == end)
			goto cut;
		if (q == x)
			return NULL;
	}
	if (*plain)
		*v = neg ? -(int64_t)u : (int64_t)u;
	return q;
cut:
	*cut = true;
	return NULL;
}

/* Where the string whose opening quote is at d[0] ends (after its closing
 * quote), when it has no escape and no control byte (yajl's rules without
 * UTF-8 checks); else NULL (*cut: it runs past the window). */
static const unsigned char *scan_string(const unsigned char *d, const unsigned char *end, bool *cut)
{
	const unsigned char *q = d + 1;
	*cut = false;
	if ((size_t)(end - q) > SCAN_STR_MAX)
		end = q + SCAN_STR_MAX;     /* longer: yajl's */
	while (q < end && *q >= 0x20 && *q != '"' && *q != '\\')
		q++;
	if (q == end) {
		*cut = end - d <= (ptrdiff_t)SCAN_STR_MAX;
		return NULL;
	}
	return *q == '"' ? q + 1 : NULL;
}

/* A number the scanner read (its text s[0..len); plain: an integer of
 * value v): added to the run being gathered when its array takes runs,
 * else an event. 0 when the reader stopped the parse. */
static int scan_num(struct json_p *p, const unsigned char *s, size_t len, bool plain, int64_t v)
{
	if (plain && p->runs[p->depth]) {
		p->run[p->nrun++] = v;
		p->count[p->depth]++;
		p->called = true;
		return p->nrun < JSON_RUN_MAX || flush_run(p);
	}
	p->num_int = plain;
	p->num_val = v;
	int ok = emit(p, JSON_NUMBER, (const char *)s, len);
	p->num_int = false;
	return ok;
}

/* Reads d[0..n) inside the fast container from where the scanner is
 * (p->st), calling the callbacks yajl would call; *used: the bytes of the
 * complete tokens read. final: nothing follows d[n), so a token cut by
 * the end goes to yajl (which says it is cut). The scanner takes the
 * grammar's tokens in the places the grammar allows them; at anything else
 * it stops before it (SCAN_BAIL), and yajl, brought to the same state,
 * reads it as it would have. */
static enum scan_r scan(struct json_p *p, const unsigned char *d, size_t n, bool final, size_t *used)
{
	const unsigned char *q = d, *end = d + n, *t;
	enum scan_r r = SCAN_BAIL;
	bool cut;
	while (q < end) {
		unsigned char c = *q;
		bool arr = p->array[p->depth];
		enum scan_st st = p->st;
		bool value = st == ST_NEED_VAL || (st == ST_OPEN && arr);
		if (value && c >= '1' && c <= '9' && end - q >= 8) {
			/* most numbers: fewer than 8 digits, no fraction */
			uint64_t v;
			unsigned k = eight_digits(q, &v);
			if (k < 8 && q[k] != '.' && (q[k] | 0x20) != 'e') {
				p->st = ST_GOT_VAL;
				int ok = scan_num(p, q, k, true, (int64_t)v);
				q += k;
				if (!ok) {
					r = SCAN_CANCEL;
					break;
				}
				continue;
			}
		}
		if (is_ws(c)) {
			q++;
			continue;
		}
		if (c == ',' && st == ST_GOT_VAL) {
			p->st = arr ? ST_NEED_VAL : ST_NEED_KEY;
			q++;
		} else if (c == ':' && st == ST_SEP) {
			p->st = ST_NEED_VAL;
			q++;
		} else if ((c == ']' || c == '}') && (c == ']') == arr && (st == ST_OPEN || st == ST_GOT_VAL)) {
			q++;
			if (!end_cb(p, arr)) {
				r = SCAN_CANCEL;
				break;
			}
			p->st = ST_GOT_VAL;
			if (p->depth < p->fast_depth) {
				r = SCAN_DONE;
				break;
			}
		} else if (c == '"' && (value || (!arr && (st == ST_OPEN || st == ST_NEED_KEY)))) {
			if (!(t = scan_string(q, end, &cut))) {
				r = cut && !final ? SCAN_MORE : SCAN_BAIL;
				break;
			}
			const unsigned char *s = q + 1;
			q = t;
			if (value) {
				p->st = ST_GOT_VAL;
				if (!cb_string(p, s, (size_t)(t - 1 - s))) {
					r = SCAN_CANCEL;
					break;
				}
			} else {
				p->st = ST_SEP;
				cb_key(p, s, (size_t)(t - 1 - s));
			}
		} else if (!value) {
			break;
		} else if (c == '[' || c == '{') {
			q++;
			p->st = ST_GOT_VAL;     /* the parent's, once this one ends */
			if (!start(p, c == '[')) {
				r = SCAN_CANCEL;
				break;
			}
			p->st = ST_OPEN;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			bool plain = false;
			int64_t v = 0;
			if (!(t = scan_number(q, end - q > SCAN_NUM_MAX ? q + SCAN_NUM_MAX : end, &cut, &plain, &v))) {
				r = cut && !final && end - q <= SCAN_NUM_MAX ? SCAN_MORE : SCAN_BAIL;
				break;
			}
			p->st = ST_GOT_VAL;
			int ok = scan_num(p, q, (size_t)(t - q), plain, v);
			q = t;
			if (!ok) {
				r = SCAN_CANCEL;
				break;
			}
		} else if (c == 't' || c == 'f' || c == 'n') {
			const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
			size_t wl = strlen(w);
			if ((size_t)(end - q) < wl) {
				r = final ? SCAN_BAIL : SCAN_MORE;
				break;
			}
			if (memcmp(q, w, wl) != 0)
				break;
			q += wl;
			p->st = ST_GOT_VAL;
			if (!(c == 'n' ? cb_null(p) : cb_bool(p, c == 't'))) {
				r = SCAN_CANCEL;
				break;
			}
		} else {
			break;
		}
	}
	*used = (size_t)(q - d);
	if (q == end && r == SCAN_BAIL)
		r = final ? SCAN_BAIL : SCAN_MORE;
	if (p->nrun && r != SCAN_CANCEL && !flush_run(p))
		r = SCAN_CANCEL;
	return r;
}

/* ---- the driver --------------------------------------------------------- */

static yajl_handle new_handle(struct json_p *p)
{
	yajl_alloc_funcs af = { j_malloc, j_realloc, j_free, NULL };
	yajl_handle h = yajl_alloc(&callbacks, &af, p);
	yajl_config(h, yajl_dont_validate_strings, 1);
	return h;
}

/* A new yajl handle in the state the scanner left: the containers open
 * and the place in the innermost, fed as a short document whose events
 * go nowhere (p->key and the counts stay the scanner's). */
static yajl_handle resume_handle(struct json_p *p)
{
	yajl_handle h = new_handle(p);
	char *text = xmalloc((size_t)JSON_MAX_DEPTH * 5 + 16);
	size_t n = 0;
	for (unsigned i = 1; i <= p->depth; i++) {
		text[n++] = p->array[i] ? '[' : '{';
		if (i < p->depth && !p->array[i]) {
			memcpy(text + n, "\"k\":", 4);
			n += 4;
		}
	}
	static const char *const in_array[] = { "", "\"\",", "\"\"", "", "" };
	static const char *const in_map[] = { "", "\"k\":", "\"k\":\"\"", "\"k\":\"\",", "\"k\"" };
	const char *tail = p->depth == 0 ? (p->st == ST_GOT_VAL ? "\"\"" : "")
	                   : (p->array[p->depth] ? in_array : in_map)[p->st];
	memcpy(text + n, tail, strlen(tail));
	n += strlen(tail);
	p->replay = true;
	yajl_parse(h, (const unsigned char *)text, n);
	p->replay = false;
	free(text);
	return h;
}

enum json_status json_parse(struct source *s, const char *name, json_event_fn *fn, void *arg,
                            reader_msg_fn *msg, void *msgarg, json_progress_fn *progress,
                            void *progress_arg)
{
	struct json_p *p = xcalloc(1, sizeof *p);
	p->fn = fn;
	p->arg = arg;
	yajl_handle h = new_handle(p);

	const char *map = NULL;
	size_t maplen = 0, pos = 0, dropped = 0;
	bool mapped = source_mapping(s, &map, &maplen);
	size_t slice = JSON_SLICE, bufcap = 0;
	unsigned char *buf = NULL;
	size_t carry = 0;           /* bytes of the window before not read yet
	                               (a token the scanner wants whole) */
	uint64_t base = 0;          /* bytes of input before the window */
	size_t since = 0;           /* upper bound of bytes fed since a callback */
	enum json_status st = JSON_OK;

	for (;;) {
		const unsigned char *d;
		size_t n;
		bool last;
		if (mapped) {
			/* read into buf, not through the mapping: see
			 * source_pread (the bytes the scanner left, carried,
			 * are read again) */
			n = maplen - pos < slice ? maplen - pos : slice;
			if (n > bufcap) {
				bufcap = n;
				buf = xrealloc(buf, bufcap);
			}
			if (n && source_pread(s, buf, n, pos) != (ssize_t)n) {
				json_msgf(msg, msgarg, name, "the file was cut short while being read");
				st = JSON_BAD;
				break;
			}
			d = buf;
			last = pos + n == maplen;
		} else {
			if (carry + slice > bufcap) {
				bufcap = carry + slice;
				buf = xrealloc(buf, bufcap);
			}
			ssize_t r = source_read(s, buf + carry, slice);
			if (r < 0) {
				json_msgf(msg, msgarg, name, "%s", source_error(s));
				st = JSON_BAD;
				break;
			}
			n = carry + (size_t)r;
			d = buf;
			last = r == 0;
		}
		if (n == 0)
			break;
		size_t at = 0;
		if (base == 0 && n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
			at = 3;
		p->called = false;
		while (at < n && st == JSON_OK) {
			if (p->fast_depth) {
				size_t used;
				enum scan_r r = scan(p, d + at, n - at, last, &used);
				at += used;
				if (r == SCAN_MORE)
					break;
				if (r == SCAN_CANCEL) {
					if (p->stopped) {
						st = JSON_STOPPED;
					} else {
						json_msgf(msg, msgarg, name, "%s (at byte %" PRIu64 ")", p->limit, base + at);
						st = JSON_BAD;
					}
					break;
				}
				/* the container ended, or yajl takes it from here
				 * (up to the container's next value, a few times) */
				h = resume_handle(p);
				p->fast_depth = 0;
				if (r == SCAN_BAIL && ++p->bails > JSON_FAST_BAILS)
					p->fast_home = 0;
				continue;
			}
			yajl_status ys = yajl_parse(h, d + at, n - at);
			size_t got = yajl_get_bytes_consumed(h);
			if (ys == yajl_status_client_canceled && p->fast_req) {
				p->fast_req = false;
				p->fast_depth = p->fast_home;
				yajl_free(h);
				h = NULL;
				at += got;
				continue;
			}
			if (ys != yajl_status_ok) {
				if (ys == yajl_status_client_canceled && p->stopped) {
					st = JSON_STOPPED;
				} else if (ys == yajl_status_client_canceled) {
					json_msgf(msg, msgarg, name, "%s (at byte %" PRIu64 ")", p->limit, base + at + got);
					st = JSON_BAD;
				} else {
					syntax_msg(h, base + at + got, name, msg, msgarg);
					st = JSON_BAD;
				}
				break;
			}
			at = n;
		}
		if (st != JSON_OK)
			break;
		carry = n - at;
		if (mapped)
			pos += at;
		else if (carry)
			memmove(buf, buf + at, carry);
		base += at;
		since = p->called ? at : since + at;
		slice = p->called ? JSON_SLICE : slice < JSON_SLICE_MAX ? slice * 2 : slice;
		/* ... but never so far that a token could pass the limit unseen */
		if (since + slice > JSON_MAX_TOKEN + JSON_SLICE)
			slice = since < JSON_MAX_TOKEN ? JSON_MAX_TOKEN + JSON_SLICE - since : JSON_SLICE;
		if (progress) {
			if (mapped)
				progress(progress_arg, pos, maplen);
			else
				progress(progress_arg, source_offset(s), source_size(s));
		}
		if (since > JSON_MAX_TOKEN) {
			json_msgf(msg, msgarg, name, "a JSON string or number of more than %zu MiB (before byte %" PRIu64
			          "); the file is not read further", JSON_MAX_TOKEN >> 20, base);
			st = JSON_BAD;
			break;
		}
		/* Neither yajl nor the scanner keeps a pointer into bytes read. */
		if (mapped && pos - dropped >= JSON_DROP) {
			(void)xgive_back(map + dropped, map + pos);
			dropped = pos;
		}
		if (last && carry == 0)
			break;
	}
	if (st == JSON_OK && p->fast_depth) {
		/* the input ended inside the fast container: yajl says so */
		h = resume_handle(p);
		p->fast_depth = p->fast_home = 0;
	}
	if (st == JSON_OK) {
		p->fast_home = 0;   /* a number yajl ends now is no place to stop */
		yajl_status ys = yajl_complete_parse(h);
		if (ys == yajl_status_client_canceled && p->stopped) {
			st = JSON_STOPPED;
		} else if (ys != yajl_status_ok || p->depth > 0 || !p->seen) {
			if (!p->seen)
				json_msgf(msg, msgarg, name, "the file holds no JSON value");
			else if (ys == yajl_status_client_canceled)
				json_msgf(msg, msgarg, name, "%s (at the end)", p->limit);
			else
				json_msgf(msg, msgarg, name, "the JSON is cut short at byte %" PRIu64
				          " (%u container%s left open)", base, p->depth, p->depth == 1 ? "" : "s");
			st = JSON_BAD;
		}
	}
	if (mapped && source_shrank(s)) {
		/* source.c put NUL bytes where the file was cut */
		json_msgf(msg, msgarg, name, "the file was cut short while being read");
		st = JSON_BAD;
	}
	if (h)
		yajl_free(h);
	free(buf);
	free(p);
	return st;
}

/* ---- numbers ------------------------------------------------------------ */

/* A plain integer of 1 to digits digits, an optional '-' before them (the
 * common case, read without a copy): its value in *v. */
static bool plain_int(const char *s, size_t len, size_t digits, int64_t *v)
{
	size_t i = s[0] == '-';
	if (len - i == 0 || len - i > digits)
		return false;
	int64_t x = 0;
	for (size_t k = i; k < len; k++) {
		if (s[k] < '0' || s[k] > '9')
			return false;
		x = x * 10 + (s[k] - '0');
	}
	*v = i ? -x : x;
	return true;
}

bool json_int(const struct json_event *e, int64_t min, int64_t max, int64_t *out)
{
	if (e->type != JSON_NUMBER || e->len == 0)
		return false;
	if (e->has_int) {
		if (e->ival < min || e->ival > max)
			return false;
		*out = e->ival;
		return true;
	}
	const char *s = e->s;
	size_t len = e->len;
	int64_t v;
	if (plain_int(s, len, 18, &v)) {   /* below 10^18: no overflow */
		if (v < min || v > max)
			return false;
		*out = v;
		return true;
	}
	char tmp[512];
	if (len >= sizeof tmp)
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (!memchr(s, '.', len) && !memchr(s, 'e', len) && !memchr(s, 'E', len)) {
		errno = 0;
		long long ll = strtoll(tmp, NULL, 10);
		if (errno || ll < min || ll > max)
			return false;
		*out = ll;
		return true;
	}
	double d = strtod(tmp, NULL);
	/* 9.2e18 stays below 2^63: the cast below is defined */
	if (!isfinite(d) || d != floor(d) || d < -9.2e18 || d > 9.2e18 || d < (double)min || d > (double)max)
		return false;
	*out = (int64_t)d;
	return *out >= min && *out <= max;
}

bool json_double(const struct json_event *e, double *out)
{
	if (e->type != JSON_NUMBER || e->len == 0)
		return false;
	if (e->has_int && e->ival > -((int64_t)1 << 53) && e->ival < (int64_t)1 << 53) {
		*out = (double)e->ival;     /* exact */
		return true;
	}
	const char *s = e->s;
	size_t len = e->len;
	int64_t v;
	if (plain_int(s, len, 15, &v)) {   /* below 2^53: exact */
		*out = (double)v;
		return true;
	}
	char tmp[512];
	if (len >= sizeof tmp)
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	double d = strtod(tmp, NULL);
	if (!isfinite(d))
		return false;
	*out = d;
	return true;
}

const unsigned char *json_skip_ws(const unsigned char *p, const unsigned char *end)
{
	if (end - p >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}
