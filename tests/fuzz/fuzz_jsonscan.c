/* libFuzzer harness: json.c's scanner against yajl. The input (after an
 * option byte) is parsed by yajl alone and again with containers marked
 * fast; the events a reader sees, the status and the message must be the
 * same (tests/unit/test_jsonscan does the same on chosen documents).
 *   bit 0:   the fast run reads from a pipe instead of a mapped file
 *   bit 1:   every container fast (else those under the key "f")
 *   bit 2-7: the reader stops at event (bits 2-7) * 3 (0: never); 63:
 *            never, and the fast run's arrays take integer runs (the
 *            values compared, plain integers by value both ways) */
#include "config.h"
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json.h"
#include "../unit/jsonplain.h"
#include "fuzzsrc.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

struct rec {
	int mode;           /* 0 none fast, 1 all, 2 under "f" */
	bool runs;          /* arrays take integer runs; numbers by value */
	uint64_t hash, n, stop_at;
	uint64_t nc;        /* containers started (their tags: not by n,
	                       which runs make smaller) */
};

static void add(struct rec *r, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		r->hash = (r->hash ^ s[i]) * 0x100000001b3ULL;
}

static void number(struct rec *r, const struct json_event *e, uint64_t index, long long v)
{
	char line[160];
	int n = snprintf(line, sizeof line, "%d %u %u 0 %s %" PRIu64 "|=%lld", (int)JSON_NUMBER, e->depth,
	                 e->parent, e->key, index, v);
	add(r, line, (size_t)n);
}

static bool on_event(void *arg, struct json_event *e)
{
	struct rec *r = arg;
	long long v;
	if (e->type == JSON_INTS) {
		if (!r->runs || e->nrun == 0 || e->nrun > JSON_RUN_MAX)
			abort();
		for (size_t i = 0; i < e->nrun; i++)
			number(r, e, e->index + i, e->run[i]);
		return ++r->n != r->stop_at;
	}
	if (r->runs && e->type == JSON_NUMBER && json_plain_text(e->s, e->len, &v)) {
		number(r, e, e->index, v);
		return ++r->n != r->stop_at;
	}
	char line[160];
	int n = snprintf(line, sizeof line, "%d %u %u %u %s %" PRIu64 "|", (int)e->type, e->depth, e->parent,
	                 e->tag, e->key, e->index);
	add(r, line, (size_t)n);
	add(r, e->s, e->len);
	if (e->has_int) {
		/* the scanner's value is the text's */
		char tmp[32];
		if (e->len > 19)
			abort();
		memcpy(tmp, e->s, e->len);
		tmp[e->len] = '\0';
		if (strtoll(tmp, NULL, 10) != e->ival)
			abort();
	}
	if (e->type == JSON_START_MAP || e->type == JSON_START_ARRAY) {
		e->tag = strcmp(e->key, "skip") == 0 ? JSON_SKIP : (uint8_t)(r->nc++ % 200 + 1);
		e->fast = r->mode == 1 || (r->mode == 2 && strcmp(e->key, "f") == 0);
		e->int_runs = r->runs && r->mode;
	}
	return ++r->n != r->stop_at;
}

static void on_msg(void *arg, const char *text)
{
	snprintf(arg, 256, "%s", text);
}

static enum json_status parse(const uint8_t *data, size_t size, bool pipe_it, struct rec *r, char *msg)
{
	msg[0] = '\0';
	r->hash = 0xcbf29ce484222325ULL;
	r->n = r->nc = 0;
	struct source *s = fuzz_source(path, data, size, pipe_it);
	enum json_status st = json_parse(s, "fuzz", on_event, r, on_msg, msg, NULL, NULL);
	source_close(s);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/tflame-fuzz-jsonscan.%ld", (long)getpid());
	data++;
	size--;
	bool runs = sel >> 2 == 63;
	struct rec want = { .runs = runs, .stop_at = runs ? 0 : (uint64_t)(sel >> 2) * 3 }, got = want;
	got.mode = sel & 2 ? 1 : 2;
	char wmsg[256], gmsg[256];
	enum json_status wst = parse(data, size, false, &want, wmsg);
	enum json_status gst = parse(data, size, sel & 1, &got, gmsg);
	unlink(path);
	/* a run is one event: the counts differ */
	if (wst != gst || want.hash != got.hash || (!runs && want.n != got.n) || strcmp(wmsg, gmsg) != 0)
		abort();
	return 0;
}
