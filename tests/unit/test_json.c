/* Unit tests of json.c's event stream: the tags, and containers tagged
 * JSON_SKIP, whose contents and END must not reach the reader. Expected
 * traces worked out by hand from the documents. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json.h"
#include "source.h"
#include "tap.h"

struct trace {
	char text[1024];
	uint8_t next_tag;
};

/* Appends one event to the trace: "{KEY/PARENT" for a START, "}TAG/PARENT"
 * for an END, "<letter>KEY/PARENT=VALUE" for the rest; containers under the
 * keys "skip" and "s2" are tagged JSON_SKIP, others numbered from 1. */
static bool on_event(void *arg, struct json_event *e)
{
	struct trace *t = arg;
	size_t at = strlen(t->text);
	char *out = t->text + at;
	size_t room = sizeof t->text - at;
	switch (e->type) {
	case JSON_START_MAP:
	case JSON_START_ARRAY:
		snprintf(out, room, "%c%s/%u ", e->type == JSON_START_MAP ? '{' : '[', e->key, e->parent);
		e->tag = strcmp(e->key, "skip") == 0 || strcmp(e->key, "s2") == 0 ? JSON_SKIP : ++t->next_tag;
		break;
	case JSON_END_MAP:
	case JSON_END_ARRAY:
		snprintf(out, room, "%c%u/%u ", e->type == JSON_END_MAP ? '}' : ']', e->tag, e->parent);
		break;
	default: {
		const char letter[] = { [JSON_STRING] = 'S', [JSON_NUMBER] = 'N', [JSON_TRUE] = 't',
		                        [JSON_FALSE] = 'f', [JSON_NULL] = '0' };
		snprintf(out, room, "%c%s/%u=%.*s ", letter[e->type], e->key, e->parent, (int)e->len, e->s);
		break;
	}
	}
	return true;
}

static void msg_fn(void *arg, const char *text)
{
	snprintf(arg, 256, "%s", text);
}

static enum json_status parse(const char *doc, struct trace *t, char *msg)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/tflame-unit-json-ev.%ld", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fputs(doc, f) < 0 || fclose(f) != 0)
		abort();
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	memset(t, 0, sizeof *t);
	msg[0] = '\0';
	enum json_status st = json_parse(s, "doc", on_event, t, msg_fn, msg, NULL, NULL);
	source_close(s);
	unlink(path);
	return st;
}

/* A number's text as the scanner gives it (no has_int: read from s). */
static struct json_event num(const char *text)
{
	return (struct json_event){ .type = JSON_NUMBER, .s = text, .len = strlen(text), .key = "" };
}

/* json_int and json_double on numbers' text (valid JSON numbers, as the
 * parser gives them): the short path for plain integers and strtoll /
 * strtod for the rest, values worked out by hand. */
static void numbers(void)
{
	static const struct { const char *text; bool ok; int64_t v; } ints[] = {
		{ "-42", true, -42 },
		{ "0", true, 0 },
		{ "-0", true, 0 },
		{ "123456789012345678", true, 123456789012345678 },                /* 18 digits: short path */
		{ "-1234567890123456789", true, -1234567890123456789 },            /* 19: strtoll */
		{ "9223372036854775808", false, 0 },                               /* 2^63 */
		{ "1e3", true, 1000 },
		{ "-2.0", true, -2 },
		{ "2.5", false, 0 },
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		struct json_event e = num(ints[i].text);
		int64_t v = 7;
		bool got = json_int(&e, INT64_MIN, INT64_MAX, &v);
		ok(got == ints[i].ok && (!got || v == ints[i].v), "json_int(\"%s\"): %s %lld", ints[i].text,
		   got ? "ok" : "refused", (long long)v);
	}
	struct json_event e = num("-5");
	int64_t v = 7;
	ok(!json_int(&e, 0, 10, &v) && v == 7, "json_int(\"-5\") below the minimum 0 is refused");
	e = num("11");
	ok(!json_int(&e, 0, 10, &v) && v == 7, "json_int(\"11\") above the maximum 10 is refused");

	static const struct { const char *text; bool ok; double v; } dbl[] = {
		{ "-7", true, -7.0 },
		{ "123456789012345", true, 123456789012345.0 },         /* 15 digits: short path */
		{ "-0.25", true, -0.25 },
		{ "1e400", false, 0 },
	};
	for (size_t i = 0; i < sizeof dbl / sizeof dbl[0]; i++) {
		e = num(dbl[i].text);
		double d = 7;
		bool got = json_double(&e, &d);
		ok(got == dbl[i].ok && (!got || d == dbl[i].v), "json_double(\"%s\"): %s %g", dbl[i].text,
		   got ? "ok" : "refused", d);
	}
}

int main(void)
{
	struct trace t;
	char msg[256];

	enum json_status st = parse("{\"a\":1,\"skip\":{\"x\":[1,{\"y\":2}],\"z\":3},\"b\":[true,{\"c\":null}],"
	                            "\"s2\":[4,5],\"d\":\"e\"}", &t, msg);
	ok(st == JSON_OK, "a document with skipped containers parses (status %d)", (int)st);
	is_str(t.text, "{/0 Na/1=1 {skip/1 [b/1 t/2= {/2 0c/3= }3/2 ]2/1 [s2/1 Sd/1=e }1/0 ",
	       "nothing inside a skipped container, nor its end, reaches the reader");

	/* The depth limit holds inside a skipped container too. */
	size_t deep = JSON_MAX_DEPTH + 10;
	char *doc = malloc(16 + 2 * deep);
	if (!doc)
		abort();
	strcpy(doc, "{\"skip\":");
	size_t n = strlen(doc);
	memset(doc + n, '[', deep);
	memset(doc + n + deep, ']', deep);
	strcpy(doc + n + 2 * deep, "}");
	st = parse(doc, &t, msg);
	free(doc);
	ok(st == JSON_BAD && strstr(msg, "nested deeper") != NULL,
	   "nesting past the limit inside a skipped container is refused (%s)", msg);
	is_str(t.text, "{/0 [skip/1 ", "only the skipped container's start was seen");

	numbers();

	/* A file cut short after it was opened (mapped at its first size):
	 * the reads come short, and the parse says so instead of reading
	 * what the mapping no longer holds. 3 MiB of one array, cut at 1 MiB
	 * and a half. */
	{
		char path[64], err[256];
		snprintf(path, sizeof path, "/tmp/tflame-unit-json-cut.%ld", (long)getpid());
		FILE *f = fopen(path, "wb");
		if (!f)
			abort();
		fputs("{\"a\":[", f);
		for (int i = 0; i < 300000; i++)
			fprintf(f, "%s12345678", i ? "," : "");
		fputs("]}", f);
		if (fclose(f) != 0)
			abort();
		struct source *s = source_open(path, err, sizeof err);
		if (!s || truncate(path, (3 << 20) / 2) != 0)
			abort();
		memset(&t, 0, sizeof t);
		msg[0] = '\0';
		st = json_parse(s, "doc", on_event, &t, msg_fn, msg, NULL, NULL);
		source_close(s);
		unlink(path);
		ok(st == JSON_BAD && strstr(msg, "cut short while being read") != NULL,
		   "a file cut short while open: \"%s\"", msg);
	}
	return done_testing();
}
