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
#include "jsonplain.h"
#include "docsrc.h"
#include "source.h"
#include "tap.h"

/* fast: none; every container; under "f"; every container, arrays taking
 * integer runs */
enum mode { M_YAJL, M_ALL, M_KEY, M_RUNS };

struct rec {
	enum mode mode;
	bool norm;          /* plain integers as values (runs: one line each) */
	uint64_t runs, run_max;     /* JSON_INTS events, the longest */
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

/* A number's line: with r->norm, a plain integer as its value, the line
 * a value of a run gets too. */
static void rec_number(struct rec *r, const struct json_event *e, uint64_t index, const char *s, size_t len)
{
	char line[256];
	long long v;
	int n = snprintf(line, sizeof line, "%d d%u p%u t%u k=%s i%" PRIu64 " ", (int)JSON_NUMBER, e->depth,
	                 e->parent, 0u, e->key, index);
	if (r->norm && json_plain_text(s, len, &v))
		n += snprintf(line + n, sizeof line - (size_t)n, "=%lld", v);
	else if (len < 200)
		n += snprintf(line + n, sizeof line - (size_t)n, "%.*s", (int)len, s);
	else
		n += snprintf(line + n, sizeof line - (size_t)n, "(%zu bytes)", len);
	rec_add(r, line, (size_t)n);
}

static bool on_event(void *arg, struct json_event *e)
{
	struct rec *r = arg;
	if (e->type == JSON_INTS) {
		r->runs++;
		if (e->nrun > r->run_max)
			r->run_max = e->nrun;
		if (e->nrun == 0 || e->nrun > JSON_RUN_MAX || *e->key || e->tag)
			r->bad_int++;
		for (size_t i = 0; i < e->nrun; i++) {
			char tmp[32];
			int len = snprintf(tmp, sizeof tmp, "%lld", (long long)e->run[i]);
			rec_number(r, e, e->index + i, tmp, (size_t)len);
		}
		return ++r->n != r->stop_at;
	}
	if (e->type == JSON_NUMBER && r->norm) {
		rec_number(r, e, e->index, e->s, e->len);
	} else {
		char line[256];
		int n = snprintf(line, sizeof line, "%d d%u p%u t%u k=%s i%" PRIu64 " ", (int)e->type, e->depth,
		                 e->parent, e->tag, e->key, e->index);
		rec_add(r, line, (size_t)n);
		if (e->len)
			rec_add(r, e->s, e->len);
	}
	if (e->has_int) {
		char tmp[32];
		snprintf(tmp, sizeof tmp, "%.*s", (int)(e->len < 31 ? e->len : 31), e->s);
		if (strtoll(tmp, NULL, 10) != e->ival || e->len > 19)
			r->bad_int++;
	}
	if (e->type == JSON_START_MAP || e->type == JSON_START_ARRAY) {
		/* every fifth container is skipped; its contents must not come */
		e->tag = strcmp(e->key, "skip") == 0 ? JSON_SKIP : (uint8_t)(++r->next_tag % 200 + 1);
		e->fast = r->mode == M_ALL || r->mode == M_RUNS || (r->mode == M_KEY && strcmp(e->key, "f") == 0);
		e->int_runs = r->mode == M_RUNS;
	}
	return ++r->n != r->stop_at;
}

static void msg_fn(void *arg, const char *text)
{
	snprintf(arg, 256, "%s", text);
}


/* Parses doc[0..n) (a file, or a pipe fed in pieces of 1 to 70,000 bytes
 * when piped) with containers made fast as mode says. */
static enum json_status parse(const char *doc, size_t n, enum mode mode, bool norm, bool piped,
                              uint64_t stop_at, struct rec *r, char *msg)
{
	memset(r, 0, sizeof *r);
	r->mode = mode;
	r->norm = norm;
	r->stop_at = stop_at;
	r->hash = 0xcbf29ce484222325ULL;
	msg[0] = '\0';
	struct docsrc d = docsrc_open(doc, n, piped, true);
	enum json_status st = json_parse(d.s, "doc", on_event, r, msg_fn, msg, NULL, NULL);
	docsrc_close(&d);
	return st;
}

/* A big buffer of main's, for valgrind's leak check in the processes
 * docsrc forks to write pipes: they exit while main holds it, which the
 * check may not see from main's registers. */
static void *volatile kept;

static const char *const mode_name[] = { "yajl", "all fast", "under \"f\" fast", "integer runs" };

/* The same events, status and message with yajl alone and with the
 * scanner, both ways of reading; with integer runs, the same values (a
 * reader that stops counts a run as one event: not compared). */
static void same(const char *name, const char *doc, size_t n, uint64_t stop_at)
{
	struct rec want, wantn, got;
	char wmsg[256], gmsg[256];
	enum json_status wst = parse(doc, n, M_YAJL, false, false, stop_at, &want, wmsg);
	(void)parse(doc, n, M_YAJL, true, false, stop_at, &wantn, wmsg);
	for (int m = M_ALL; m <= M_RUNS; m++) {
		if (m == M_RUNS && stop_at)
			break;
		const struct rec *w = m == M_RUNS ? &wantn : &want;
		for (int piped = 0; piped <= 1; piped++) {
			enum json_status gst = parse(doc, n, (enum mode)m, m == M_RUNS, piped, stop_at, &got, gmsg);
			bool good = gst == wst && got.hash == w->hash &&
			            (m == M_RUNS || got.n == w->n) && !got.bad_int && strcmp(gmsg, wmsg) == 0;
			ok(good, "%s (%s, %s)", name, mode_name[m], piped ? "piped" : "mapped");
			if (!good) {
				printf("#   status %d (want %d), %" PRIu64 " events (want %" PRIu64 "), %" PRIu64
				       " bad ints\n#   message: %s\n#   want:    %s\n", (int)gst, (int)wst, got.n, w->n,
				       got.bad_int, gmsg, wmsg);
				if (n < 2000)
					printf("#   got:\n%s#   want:\n%s", got.text ? got.text : "", w->text ? w->text : "");
			}
			free(got.text);
		}
	}
	free(want.text);
	free(wantn.text);
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

	/* integer runs: as long as JSON_RUN_MAX, cut by every other value,
	 * and a reader that stops at one gets nothing after it */
	{
		size_t rn = 20 * 1000 + 64;
		char *rd = malloc(rn);
		if (!rd)
			abort();
		at = (size_t)sprintf(rd, "{\"f\":[");
		for (int i = 0; i < 1000; i++)
			at += (size_t)sprintf(rd + at, "%s%d", i ? "," : "", i * 7919 % 100000 - (i % 13 == 0 ? 50000 : 0));
		at += (size_t)sprintf(rd + at, "],\"g\":[1,2,\"s\",3,[4,5],6,1.5,7,123456789012345678901,8,null,9]}");
		same("integer runs long and cut", rd, at, 0);
		/* past the 1 MiB window, and through a pipe in uneven pieces:
		 * runs cut inside a number, after a comma, before a digit */
		size_t bn = (size_t)3 << 20;
		char *bd = malloc(bn);
		if (!bd)
			abort();
		kept = bd;
		size_t bat = (size_t)sprintf(bd, "{\"f\":[");
		for (unsigned i = 0; bat < ((size_t)5 << 19); i++) {
			unsigned x = i * 2654435761u;
			long long v = (long long)(x % (i % 9 == 0 ? 1000000000u : i % 3 ? 10000u : 10u)) -
			              (i % 17 == 0 ? 500 : 0);
			bat += (size_t)sprintf(bd + bat, "%s%lld%s", i ? "," : "", v, i % 101 == 0 ? " " : "");
		}
		bat += (size_t)sprintf(bd + bat, "]}");
		same("integer runs across the 1 MiB window", bd, bat, 0);
		free(bd);
		struct rec got;
		char gmsg[256];
		enum json_status gst = parse(rd, at, M_RUNS, true, false, 0, &got, gmsg);
		/* [0..999]: 256 + 256 + 256 + 232; "g": 1,2 / 3 / 4,5 / 6 / 7 / 8 / 9 */
		ok(gst == JSON_OK && got.runs == 11 && got.run_max == JSON_RUN_MAX,
		   "1000 integers come in 4 runs, the others in 7 between what is not a plain integer "
		   "(%" PRIu64 " runs, the longest %" PRIu64 ")", got.runs, got.run_max);
		free(got.text);
		/* events: { [f, the first run: stop there */
		gst = parse(rd, at, M_RUNS, true, false, 3, &got, gmsg);
		ok(gst == JSON_STOPPED && got.n == 3 && got.runs == 1, "a reader that stops at a run gets "
		   "nothing after it (%" PRIu64 " events)", got.n);
		free(got.text);
		free(rd);
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
	kept = b;   /* reachable in the pipes' writers (forked) when they exit */
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
			struct rec want, wantn, got;
			char wmsg[256], gmsg[256];
			enum json_status wst = parse(b, at, M_YAJL, false, false, 0, &want, wmsg);
			(void)parse(b, at, M_YAJL, true, false, 0, &wantn, wmsg);
			for (int i = 0; i < 4; i++) {
				bool piped = i & 1, runs = i >> 1;
				const struct rec *w = runs ? &wantn : &want;
				enum json_status gst = parse(b, at, runs ? M_RUNS : M_KEY, runs, piped, 0, &got, gmsg);
				if (gst != wst || got.hash != w->hash || (!runs && got.n != w->n) || got.bad_int ||
				    strcmp(gmsg, wmsg) != 0) {
					printf("#   %s at offset %zu (%s%s): status %d/%d, %" PRIu64 "/%" PRIu64 " events\n",
					       toks[k], off, piped ? "piped" : "mapped", runs ? ", runs" : "", (int)gst,
					       (int)wst, got.n, w->n);
					all = false;
				}
				free(got.text);
			}
			free(want.text);
			free(wantn.text);
		}
		ok(all, "%s across the window's end at every offset", toks[k]);
	}
	free(b);
	docsrc_unlink();
	done_testing();
}
