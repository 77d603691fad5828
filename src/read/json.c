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

struct json_p {
	json_event_fn *fn;
	void *arg;
	unsigned depth;
	bool seen;                  /* a top-level value has started */
	bool called;                /* yajl called back during this slice */
	bool stopped;               /* fn returned false */
	char limit[96];             /* why the parse was cancelled here */
	char key[JSON_KEY_MAX];
	uint8_t tag[JSON_MAX_DEPTH + 1];
	bool array[JSON_MAX_DEPTH + 1];
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

static int emit(struct json_p *p, enum json_type type, const char *s, size_t len)
{
	p->called = true;
	if (p->tag[p->depth] == JSON_SKIP)
		return 1;
	struct json_event e = {
		.type = type, .depth = p->depth, .parent = p->tag[p->depth],
		.key = cur_key(p), .index = p->count[p->depth], .s = s, .len = len,
	};
	p->seen = true;
	p->count[p->depth]++;
	if (!p->fn(p->arg, &e)) {
		p->stopped = true;
		return 0;
	}
	return 1;
}

static int cb_null(void *ctx) { return emit(ctx, JSON_NULL, "", 0); }

static int cb_bool(void *ctx, int v) { return emit(ctx, v ? JSON_TRUE : JSON_FALSE, "", 0); }

static int cb_number(void *ctx, const char *s, size_t len) { return emit(ctx, JSON_NUMBER, s, len); }

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	return emit(ctx, JSON_STRING, (const char *)s, len);
}

static int start(struct json_p *p, bool array)
{
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
	p->count[p->depth] = 0;
	p->key[0] = '\0';
	return 1;
}

static int end(struct json_p *p, bool array)
{
	uint8_t tag = p->tag[p->depth];
	p->depth--;     /* yajl only calls this inside a container */
	p->called = true;
	if (tag == JSON_SKIP)
		return 1;
	struct json_event e = {
		.type = array ? JSON_END_ARRAY : JSON_END_MAP, .depth = p->depth,
		.parent = p->tag[p->depth], .tag = tag, .key = "", .index = p->count[p->depth] - 1, .s = "",
	};
	if (!p->fn(p->arg, &e)) {
		p->stopped = true;
		return 0;
	}
	return 1;
}

static int cb_start_map(void *ctx) { return start(ctx, false); }
static int cb_end_map(void *ctx) { return end(ctx, false); }
static int cb_start_array(void *ctx) { return start(ctx, true); }
static int cb_end_array(void *ctx) { return end(ctx, true); }

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
	struct json_p *p = ctx;
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

/* ---- the driver --------------------------------------------------------- */

enum json_status json_parse(struct source *s, const char *name, json_event_fn *fn, void *arg,
                            reader_msg_fn *msg, void *msgarg, json_progress_fn *progress,
                            void *progress_arg)
{
	struct json_p *p = xcalloc(1, sizeof *p);
	p->fn = fn;
	p->arg = arg;
	yajl_alloc_funcs af = { j_malloc, j_realloc, j_free, NULL };
	yajl_handle h = yajl_alloc(&callbacks, &af, p);
	yajl_config(h, yajl_dont_validate_strings, 1);

	const char *map = NULL;
	size_t maplen = 0, pos = 0, dropped = 0;
	bool mapped = source_mapping(s, &map, &maplen);
	size_t slice = JSON_SLICE, bufcap = mapped ? 0 : JSON_SLICE;
	unsigned char *buf = mapped ? NULL : xmalloc(bufcap);
	uint64_t base = 0;          /* bytes of input before the slice */
	size_t since = 0;           /* upper bound of bytes fed since a callback */
	enum json_status st = JSON_OK;

	for (;;) {
		const unsigned char *d;
		size_t n;
		if (mapped) {
			n = maplen - pos < slice ? maplen - pos : slice;
			d = (const unsigned char *)map + pos;
			pos += n;
		} else {
			if (slice > bufcap) {
				free(buf);
				buf = xmalloc(bufcap = slice);
			}
			ssize_t r = source_read(s, buf, slice);
			if (r < 0) {
				json_msgf(msg, msgarg, name, "%s", source_error(s));
				st = JSON_BAD;
				break;
			}
			n = (size_t)r;
			d = buf;
		}
		if (n == 0)
			break;
		size_t skip = 0;
		if (base == 0 && n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
			skip = 3;
		p->called = false;
		yajl_status ys = yajl_parse(h, d + skip, n - skip);
		if (ys != yajl_status_ok) {
			if (ys == yajl_status_client_canceled && p->stopped) {
				st = JSON_STOPPED;
			} else if (ys == yajl_status_client_canceled) {
				json_msgf(msg, msgarg, name, "%s (at byte %" PRIu64 ")", p->limit,
				          base + skip + yajl_get_bytes_consumed(h));
				st = JSON_BAD;
			} else {
				syntax_msg(h, base + skip + yajl_get_bytes_consumed(h), name, msg, msgarg);
				st = JSON_BAD;
			}
			break;
		}
		since = p->called ? n : since + n;
		slice = p->called ? JSON_SLICE : slice < JSON_SLICE_MAX ? slice * 2 : slice;
		/* ... but never so far that a token could pass the limit unseen */
		if (since + slice > JSON_MAX_TOKEN + JSON_SLICE)
			slice = since < JSON_MAX_TOKEN ? JSON_MAX_TOKEN + JSON_SLICE - since : JSON_SLICE;
		base += n;
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
#ifdef HAVE_MADVISE
		/* yajl keeps no pointer into a slice it has returned from. */
		if (mapped && pos - dropped >= JSON_DROP) {
			long pg = sysconf(_SC_PAGESIZE);
			uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
			uintptr_t lo = ((uintptr_t)map + dropped + page - 1) / page * page;
			uintptr_t hi = ((uintptr_t)map + pos) / page * page;
			if (hi > lo)
				madvise((void *)lo, hi - lo, MADV_DONTNEED);
			dropped = pos;
		}
#endif
	}
	if (st == JSON_OK) {
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
	yajl_free(h);
	free(buf);
	free(p);
	return st;
}

/* ---- numbers ------------------------------------------------------------ */

bool json_int(const struct json_event *e, int64_t min, int64_t max, int64_t *out)
{
	if (e->type != JSON_NUMBER || e->len == 0)
		return false;
	const char *s = e->s;
	size_t len = e->len, i = s[0] == '-';
	/* Plain integers (nearly all of them) without a copy. */
	if (len - i > 0 && len - i <= 18) {
		int64_t v = 0;
		size_t k = i;
		for (; k < len && s[k] >= '0' && s[k] <= '9'; k++)
			v = v * 10 + (s[k] - '0');
		if (k == len) {
			v = i ? -v : v;
			if (v < min || v > max)
				return false;
			*out = v;
			return true;
		}
	}
	char tmp[512];
	if (len >= sizeof tmp)
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (!memchr(s, '.', len) && !memchr(s, 'e', len) && !memchr(s, 'E', len)) {
		errno = 0;
		long long v = strtoll(tmp, NULL, 10);
		if (errno || v < min || v > max)
			return false;
		*out = v;
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
	const char *s = e->s;
	size_t len = e->len, i = s[0] == '-';
	if (len - i > 0 && len - i <= 15) {
		int64_t v = 0;
		size_t k = i;
		for (; k < len && s[k] >= '0' && s[k] <= '9'; k++)
			v = v * 10 + (s[k] - '0');
		if (k == len) {
			*out = (double)(i ? -v : v);
			return true;
		}
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
