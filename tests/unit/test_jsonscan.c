/* Unit tests of json.c's scanner (the fast containers): yajl is the
 * oracle. Each document is parsed once by yajl alone (no container asks
 * to be fast) and again with containers marked fast, from a mapped file
 * and through a pipe (read in uneven pieces); the events (every field a
 * reader sees), the status and the message must be the same. The
 * documents hold what the scanner takes and what it leaves to yajl
 * (escapes, syntax errors, cut input, long tokens, deep nesting), and
 * tokens cut by the 1 MiB windows at every offset. */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "json.h"
#include "docsrc.h"
#include "source.h"
#include "tap.h"

enum mode { M_YAJL, M_ALL, M_KEY };    /* fast: none; every container; under "f" */

struct rec {
	enum mode mode;
	char *text;         /* the events, one a line (NULL when hashed) */
	size_t len, cap;
	uint64_t hash, n;   /* of every event */
	uint64_t bad_int;   /* has_int with a value that is not the text's */
	uint64_t stop_at;   /* return false at this event (0: never) */
	uint8_t next_tag;
};

static void rec_add(struct rec *r, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		r->hash = (r->hash ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	r->hash = (r->hash ^ '\n') * 0x100000001b3ULL;
	if (r->len + n + 2 > r->cap) {
		r->cap = (r->len + n + 2) * 2;
		r->text = realloc(r->text, r->cap);
		if (!r->text)
			abort();
	}
	memcpy(r->text + r->len, s, n);
	r->len += n;
	r->text[r->len++] = '\n';
	r->text[r->len] = '\0';
}

static bool on_event(void *arg, struct json_event *e)
{
	struct rec *r = arg;
	char line[256];
	int n = snprintf(line, sizeof line, "%d d%u p%u t%u k=%s i%" PRIu64 " ", (int)e->type, e->depth,
	                 e->parent, e->tag, e->key, e->index);
	rec_add(r, line, (size_t)n);
	if (e->len)
		rec_add(r, e->s, e->len);
	if (e->has_int) {
		char tmp[32];
		snprintf(tmp, sizeof tmp, "%.*s", (int)(e->len < 31 ? e->len : 31), e->s);
		if (strtoll(tmp, NULL, 10) != e->ival || e->len > 19)
			r->bad_int++;
	}
	if (e->type == JSON_START_MAP || e->type == JSON_START_ARRAY) {
		/* every fifth container is skipped; its contents must not come */
		e->tag = strcmp(e->key, "skip") == 0 ? JSON_SKIP : (uint8_t)(++r->next_tag % 200 + 1);
		e->fast = r->mode == M_ALL || (r->mode == M_KEY && strcmp(e->key, "f") == 0);
	}
	return ++r->n != r->stop_at;
}

static void msg_fn(void *arg, const char *text)
{
	snprintf(arg, 256, "%s", text);
}


/* Parses doc[0..n) (a file, or a pipe fed in pieces of 1 to 70,000 bytes
 * when piped) with containers made fast as mode says. */
static enum json_status parse(const char *doc, size_t n, enum mode mode, bool piped, uint64_t stop_at,
                              struct rec *r, char *msg)
{
	memset(r, 0, sizeof *r);
	r->mode = mode;
	r->stop_at = stop_at;
	r->hash = 0xcbf29ce484222325ULL;
	msg[0] = '\0';
	struct docsrc d = docsrc_open(doc, n, piped, true);
	enum json_status st = json_parse(d.s, "doc", on_event, r, msg_fn, msg, NULL, NULL);
	docsrc_close(&d);
	return st;
}

/* The same events, status and message with yajl alone and with the
 * scanner, both ways of reading. */
static void same(const char *name, const char *doc, size_t n, uint64_t stop_at)
{
	struct rec want, got;
	char wmsg[256], gmsg[256];
	enum json_status wst = parse(doc, n, M_YAJL, false, stop_at, &want, wmsg);
	for (int m = M_ALL; m <= M_KEY; m++) {
		for (int piped = 0; piped <= 1; piped++) {
			enum json_status gst = parse(doc, n, (enum mode)m, piped, stop_at, &got, gmsg);
			bool good = gst == wst && got.hash == want.hash && got.n == want.n && !got.bad_int &&
			            strcmp(gmsg, wmsg) == 0;
			ok(good, "%s (%s, %s)", name, m == M_ALL ? "all fast" : "under \"f\" fast",
			   piped ? "piped" : "mapped");
			if (!good) {
				printf("#   status %d (want %d), %" PRIu64 " events (want %" PRIu64 "), %" PRIu64
				       " bad ints\n#   message: %s\n#   want:    %s\n", (int)gst, (int)wst, got.n, want.n,
				       got.bad_int, gmsg, wmsg);
				if (n < 2000)
					printf("#   got:\n%s#   want:\n%s", got.text ? got.text : "", want.text ? want.text : "");
			}
			free(got.text);
		}
	}
	free(want.text);
}

static void same_s(const char *name, const char *doc)
{
	same(name, doc, strlen(doc), 0);
}

int main(void)
{

	/* what the scanner takes */
	same_s("arrays of numbers", "{\"f\":[[1,2,3],[4,5],[]],\"g\":1,\"f\":[1.5,2e3,-0,0.0,1E+2,-12,"
	       "123456789012345678,1234567890123456789,-9223372036854775808,99999999999999999999]}");
	same_s("objects, strings, literals", "{\"f\":[{\"type\":\"O\",\"frame\":1,\"at\":0.5},{},"
	       "{\"a\":true,\"b\":false,\"c\":null,\"d\":\"\",\"e\":[null]},\"\\u00e9\",\"x\\ny\"]}");
	same_s("whitespace of every kind", " {\"f\" : [ 1 ,\t2\n,\r3\v,\f4 ] , \"g\" :[ ] } \n");
	same_s("keys long and with a NUL", "{\"f\":{\"a_key_of_more_than_thirty_two_bytes_in_all\":1,"
	       "\"a\\u0000b\":2,\"\":3}}");
	same_s("skipped containers inside", "{\"f\":[1,{\"skip\":[1,2,{\"a\":3}],\"b\":4},5]}");
	same_s("a top-level array", "[1,2,[3,[4]],{\"a\":\"b\"}]");
	/* numbers of 1 to 20 digits, each followed by every kind of end (the
	 * scanner reads up to 8 digits at once) */
	char nums[8192];
	size_t at = (size_t)sprintf(nums, "{\"f\":[");
	static const char *const ends[] = { ",", " ,", ".5,", "e3,", "E-2,", "]", "}" };
	for (int len = 1; len <= 20; len++) {
		for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
			char digits[24];
			for (int i = 0; i < len; i++)
				digits[i] = (char)('1' + (i * 7 + len) % 9);
			digits[len] = '\0';
			if (e < 5)
				at += (size_t)sprintf(nums + at, "%s%s-%s%s", digits, ends[e], digits, ends[e]);
			else if (e == 5)
				at += (size_t)sprintf(nums + at, "[%s]%s", digits, ",");
			else
				at += (size_t)sprintf(nums + at, "{\"k\":%s},", digits);
		}
	}
	at += (size_t)sprintf(nums + at, "0]}");
	same("numbers of every length", nums, at, 0);
	same_s("bytes above 0x7f in strings", "{\"f\":[\"\xc3\xa9\xff\xfe\",\"\x80\"]}");

	/* what it leaves to yajl: errors must read the same */
	static const char *const bad[] = {
		"{\"f\":[1,]}", "{\"f\":[1 2]}", "{\"f\":[01]}", "{\"f\":[-]}", "{\"f\":[1.]}", "{\"f\":[1e]}",
		"{\"f\":[1e+]}", "{\"f\":[.5]}", "{\"f\":[+1]}", "{\"f\":[tru]}", "{\"f\":[nul,1]}",
		"{\"f\":[truex]}", "{\"f\":{\"a\":1,}}", "{\"f\":{\"a\" 1}}", "{\"f\":{1:2}}",
		"{\"f\":[\"a\001b\"]}", "{\"f\":[1}", "{\"f\":{\"a\":1]}", "{\"f\":[1,2", "{\"f\":[1,2,\"ab",
		"{\"f\":[1,2,\"ab\"", "{\"f\":[1,2,-", "{\"f\":[1,2,1.5e", "{\"f\":{\"a\"", "{\"f\":{\"a\":",
		"{\"f\":[]} x", "[1,2] 3", "[1,2]]", "{\"f\":[/* c */1]}", "{\"f\":[\"\\x\"]}",
		"{\"f\":[\"\\u12\"]}", "{\"f\":[1]}}", "{\"f\":[[[[]]]", "{\"f\":{\"a\":[1,{\"b\":}]}}",
		"{\"f\":[1,,2]}", "{\"f\":[:]}", "{\"f\":{,}}", "{\"f\":{\"a\"::1}}", "{\"f\":[1]", "[",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char name[96];
		snprintf(name, sizeof name, "malformed %zu: %.40s", i, bad[i]);
		for (char *c = name; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = '?';   /* no control byte in the TAP line */
		same_s(name, bad[i]);
	}

	/* a reader that stops, at a value, a START and an END */
	const char *doc = "{\"f\":[1,[2,3],{\"a\":4},5]}";
	for (uint64_t k = 1; k <= 12; k++) {
		char name[64];
		snprintf(name, sizeof name, "the reader stops at event %" PRIu64, k);
		same(name, doc, strlen(doc), k);
	}

	/* nesting past JSON_MAX_DEPTH inside a fast container */
	size_t dn = 2 * JSON_MAX_DEPTH + 64;
	char *deep = malloc(dn + 16);
	if (!deep)
		abort();
	strcpy(deep, "{\"f\":");
	memset(deep + 5, '[', JSON_MAX_DEPTH + 8);
	memset(deep + 5 + JSON_MAX_DEPTH + 8, ']', JSON_MAX_DEPTH + 8);
	strcpy(deep + 5 + 2 * (JSON_MAX_DEPTH + 8), "}");
	same_s("nested past the limit", deep);
	free(deep);

	/* tokens longer than the scanner takes: a 100 KiB string, a 1,000
	 * digit number (yajl reads them) */
	size_t ln = 300000;
	char *lng = malloc(ln);
	if (!lng)
		abort();
	at = (size_t)sprintf(lng, "{\"f\":[1,\"");
	memset(lng + at, 'a', 100000);
	at += 100000;
	at += (size_t)sprintf(lng + at, "\",2,");
	memset(lng + at, '7', 1000);
	at += 1000;
	at += (size_t)sprintf(lng + at, ",3,\"x\\ty\",4]}");
	same("long tokens", lng, at, 0);
	free(lng);

	/* more escaped strings than the scanner hands to yajl one at a time
	 * (JSON_FAST_BAILS): yajl then reads on alone */
	size_t en = 400 * 16 + 64;
	char *esc = malloc(en);
	if (!esc)
		abort();
	at = (size_t)sprintf(esc, "{\"f\":[");
	for (int i = 0; i < 400; i++)
		at += (size_t)sprintf(esc + at, "%s\"a\\n%d\",%d", i ? "," : "", i, i);
	at += (size_t)sprintf(esc + at, "]}");
	same("400 escaped strings", esc, at, 0);
	free(esc);

	/* every kind of token cut by the first 1 MiB window, at every offset
	 * into it: padding of blanks moves the token across the boundary */
	static const char *const toks[] = {
		"123456", "-1.25e+17", "\"a string of some length\"", "true", "false", "null",
		"{\"a_key\":1}", "[1,2]", "\"s\\n\"",
	};
	size_t big = ((size_t)1 << 20) + 4096;
	char *b = malloc(big + 256);
	if (!b)
		abort();
	for (size_t k = 0; k < sizeof toks / sizeof toks[0]; k++) {
		size_t tl = strlen(toks[k]);
		bool all = true;
		for (size_t off = 0; off <= tl + 1; off++) {
			/* {"f":[0,0,...,0,   TOKEN ,1]}: TOKEN starts off bytes
			 * before the 1 MiB boundary */
			at = (size_t)sprintf(b, "{\"f\":[0,");
			size_t start = ((size_t)1 << 20) - off;
			while (at < start - 1)
				b[at++] = ' ';
			b[at++] = '0' + (char)(off % 10);
			memcpy(b + at, ",", 1);
			at++;
			memcpy(b + at, toks[k], tl);
			at += tl;
			at += (size_t)sprintf(b + at, ",1]}");
			struct rec want, got;
			char wmsg[256], gmsg[256];
			enum json_status wst = parse(b, at, M_YAJL, false, 0, &want, wmsg);
			for (int piped = 0; piped <= 1; piped++) {
				enum json_status gst = parse(b, at, M_KEY, piped, 0, &got, gmsg);
				if (gst != wst || got.hash != want.hash || got.n != want.n || got.bad_int ||
				    strcmp(gmsg, wmsg) != 0) {
					printf("#   %s at offset %zu (%s): status %d/%d, %" PRIu64 "/%" PRIu64 " events\n",
					       toks[k], off, piped ? "piped" : "mapped", (int)gst, (int)wst, got.n, want.n);
					all = false;
				}
				free(got.text);
			}
			free(want.text);
		}
		ok(all, "%s across the window's end at every offset", toks[k]);
	}
	free(b);
	docsrc_unlink();
	done_testing();
}
