/* Unit tests of the V8 .cpuprofile / Chrome trace reader on small documents
 * written here; each expected folded text was worked out by hand from the
 * nodes and samples. Hostile inputs (cut short at every byte, nested
 * 100,000 deep, a 100 MB string) must give a message, not a crash, and stay
 * within bounded memory. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include "cpuprofile.h"
#include "jsonutil.h"

static int load_cp(struct tree *t, struct source *s, void *arg, reader_msg_fn *msg, void *msgarg)
{
	return cpuprofile_load(t, s, "test.cpuprofile", arg, msg, msgarg);
}

static struct run cp(const char *doc)
{
	return run(load_cp, NULL, doc);
}

static void check(const char *doc, const char *want, const char *name)
{
	struct run r = cp(doc);
	is_run(&r, 0, want, name);
	run_free(&r);
}

/* (root) -> main -> {parse -> lex, eval}, (program) */
#define NODES \
	"\"nodes\":[" \
	"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\"," \
	"\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2,6]}," \
	"{\"id\":2,\"callFrame\":{\"functionName\":\"main\",\"url\":\"file:///a.js\",\"lineNumber\":1}," \
	"\"hitCount\":1,\"children\":[3,5]}," \
	"{\"id\":3,\"callFrame\":{\"functionName\":\"parse\"},\"hitCount\":0,\"children\":[4]}," \
	"{\"id\":4,\"callFrame\":{\"functionName\":\"lex\"},\"hitCount\":2}," \
	"{\"id\":5,\"callFrame\":{\"functionName\":\"eval\"},\"hitCount\":3}," \
	"{\"id\":6,\"callFrame\":{\"functionName\":\"(program)\"},\"hitCount\":4}]"
#define SAMPLES "\"samples\":[4,4,5,2,4,6,5]"
#define DELTAS "\"timeDeltas\":[10,20,-5,15,1,1,1]"
#define WANT "(program) 1\nmain 1\nmain;eval 2\nmain;parse;lex 3\n"
#define WANT_HITS "(program) 4\nmain 1\nmain;eval 3\nmain;parse;lex 2\n"

static void test_basic(void)
{
	check("{" NODES ",\"startTime\":1000,\"endTime\":2000," SAMPLES "," DELTAS "}", WANT,
	      "nodes, then samples: counts from samples, (root) dropped");
	check("{" SAMPLES "," DELTAS ",\"endTime\":2000," NODES ",\"startTime\":1000}", WANT,
	      "samples before nodes: the same");
	check("{\"samples\":[3,3,2],\"nodes\":[{\"children\":[3],\"callFrame\":{\"functionName\":\"b\"},"
	      "\"id\":2},{\"callFrame\":{\"functionName\":\"c\"},\"id\":3}]}",
	      "b 1\nb;c 2\n", "id after callFrame and children in a node");
	check("{" NODES "}", WANT_HITS, "no samples: hitCount");
	check("{" NODES ",\"samples\":[],\"timeDeltas\":[]}", WANT_HITS, "empty samples: hitCount");
	check("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
	      "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"a\"}},"
	      "{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"\"}},"
	      "{\"id\":4,\"parent\":2,\"callFrame\":{}}],\"samples\":[3,3,4,2]}",
	      "a 1\na;(anonymous) 3\n", "parent fields; empty and missing names are (anonymous)");
	check("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[2]},"
	      "{\"id\":2,\"callFrame\":{\"functionName\":\"(root)\"}}],\"samples\":[1,2,2]}",
	      "(root) 3\n",
	      "only the top (root) is dropped; its own samples keep its name");
	check("\xef\xbb\xbf \n{" NODES "," SAMPLES "}\n", WANT, "UTF-8 BOM and whitespace");
	check("{\"nodes\":[{\"id\":1.0,\"callFrame\":{\"functionName\":\"a\"},\"children\":[2e0]},"
	      "{\"id\":20E-1,\"callFrame\":{\"functionName\":\"b\"}}],\"samples\":[2.0,1,1e0]}",
	      "a 2\na;b 1\n", "ids written as floats");
	check("{\"nodes\":[],\"samples\":[]}", "", "an empty profile");
	struct run r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\"},\"hitCount\":1}]}");
	is_run(&r, 0, "a 1\n", "one node");
	ok(r.nmsgs == 0, "no message for a good file");
	run_free(&r);
}

static void test_unicode(void)
{
	check("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"caf\\u00e9\"}},"
	      "{\"id\":2,\"callFrame\":{\"functionName\":\"smile\\ud83d\\ude00\"}},"
	      "{\"id\":3,\"callFrame\":{\"functionName\":\"tab\\there\\\"q\\\\\"}}],\"samples\":[1,2,3]}",
	      "caf\xc3\xa9 1\nsmile\xf0\x9f\x98\x80 1\ntab\there\"q\\ 1\n",
	      "\\u escapes, a surrogate pair, other escapes");
	struct run r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\\u0000b\"}}],"
	                  "\"samples\":[1]}");
	ok(r.rc == 0 && r.folded && memcmp(r.folded, "a\0b 1\n", 6) == 0, "\\u0000 is kept as a NUL byte");
	run_free(&r);
	r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"\xff\xfe\\u001b[31m\"}}],\"samples\":[1]}");
	ok(r.rc == 0 && r.nodes == 2 && memcmp(r.folded, "\xff\xfe\x1b[31m 1\n", 9) == 0,
	   "invalid UTF-8 and an escaped ESC in a name are read (sanitized when shown)");
	run_free(&r);
	r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\x1b\"}}],\"samples\":[1]}");
	ok(r.rc == 0 && has_msg(&r, "not valid JSON at byte 48 (lexical error: invalid character inside string)"),
	   "a raw control byte in a string is not JSON");
	run_free(&r);
}

static void test_damaged(void)
{
	struct run r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\"},\"children\":[2,77]},"
	                  "{\"id\":2,\"callFrame\":{\"functionName\":\"b\"}}],\"samples\":[2,99,99,1]}");
	is_run(&r, 0, "a 1\na;b 1\n", "unknown ids in children and samples");
	ok(has_msg(&r, "tflame: test.cpuprofile: 1 parent or child link names no node; ignored"),
	   "  reported: the link");
	ok(has_msg(&r, "tflame: test.cpuprofile: 2 samples name no node; skipped"), "  reported: the samples");
	run_free(&r);

	r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\"},\"children\":[2]},"
	       "{\"id\":2,\"callFrame\":{\"functionName\":\"b\"},\"children\":[3]},"
	       "{\"id\":3,\"callFrame\":{\"functionName\":\"c\"},\"children\":[2,4]},"
	       "{\"id\":4,\"callFrame\":{\"functionName\":\"d\"}},"
	       "{\"id\":5,\"callFrame\":{\"functionName\":\"e\"},\"children\":[5]}],"
	       "\"samples\":[1,2,3,4,5,1]}");
	is_run(&r, 0, "a 2\na;b 1\na;b;c 1\na;b;c;d 1\n", "a node claimed twice; a node its own parent");
	ok(has_msg(&r, "1 node has two parents; the first is kept"), "  reported: two parents");
	ok(has_msg(&r, "1 node sits in or under a cycle of parents; skipped (1 sample)"), "  reported: the cycle");
	run_free(&r);

	r = cp("{\"nodes\":[{\"id\":7,\"parent\":8,\"callFrame\":{\"functionName\":\"x\"}},"
	       "{\"id\":8,\"parent\":9,\"callFrame\":{\"functionName\":\"y\"}},"
	       "{\"id\":9,\"parent\":7,\"callFrame\":{\"functionName\":\"z\"}},"
	       "{\"id\":1,\"callFrame\":{\"functionName\":\"ok\"}}],\"samples\":[7,8,9,1]}");
	is_run(&r, 0, "ok 1\n", "a cycle of three: skipped, no hang");
	ok(has_msg(&r, "3 nodes sit in or under a cycle of parents; skipped (3 samples)"), "  reported");
	run_free(&r);

	r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\"}},"
	       "{\"id\":1,\"callFrame\":{\"functionName\":\"again\"}},"
	       "{\"callFrame\":{\"functionName\":\"noid\"}},"
	       "{\"id\":\"3\",\"callFrame\":{\"functionName\":\"strid\"}},"
	       "{\"id\":2.5,\"callFrame\":{\"functionName\":\"halfid\"}}],\"samples\":[1,1,\"1\",1.5,null]}");
	is_run(&r, 0, "a 2\n", "repeated, missing, string and fractional ids; bad samples");
	ok(has_msg(&r, "1 node repeats an id used before; skipped"), "  reported: the repeated id");
	ok(has_msg(&r, "skipped 6 malformed values (first: a node without an \"id\")"),
	   "  reported: the malformed values");
	run_free(&r);

	r = cp("{\"nodes\":[{\"id\":1e400,\"callFrame\":{\"functionName\":\"inf\"}},"
	       "{\"id\":99999999999999999999,\"callFrame\":{\"functionName\":\"big\"}},"
	       "{\"id\":-9223372036854775808,\"callFrame\":{\"functionName\":\"min\"},\"hitCount\":-1},"
	       "{\"id\":9223372036854775807,\"callFrame\":{\"functionName\":\"max\"},"
	       "\"hitCount\":18446744073709551616}],"
	       "\"timeDeltas\":[9223372036854775807,9223372036854775807,-1e300]}");
	is_run(&r, 0, "", "numbers out of range: skipped, extreme ids kept");
	ok(has_msg(&r, "malformed values"), "  reported");
	run_free(&r);

	r = cp("{\"startTime\":1,\"samples\":[1,2]}");
	ok(r.rc == 1 && has_msg(&r, "not a V8 CPU profile (no \"nodes\" array)"), "no nodes: not a profile");
	run_free(&r);
	r = cp("[1,2,3]");
	ok(r.rc == 1 && has_msg(&r, "not a V8 CPU profile") && r.nodes == 1, "an array of numbers: not a profile");
	run_free(&r);
	r = cp("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\"}}],\"samples\":[1,1] trailing");
	ok(r.rc == 0 && has_msg(&r, "not valid JSON at byte ") && has_msg(&r, "what was read before that is shown"),
	   "a syntax error after the nodes: reported, what was read is kept");
	ok(strcmp(r.folded, "a 2\n") == 0, "  the samples before it count");
	run_free(&r);
	r = cp("");
	ok(r.rc == 1 && has_msg(&r, "the file holds no JSON value"), "an empty file");
	run_free(&r);
}

static void test_trace(void)
{
	static const char trace_obj[] =
		"{\"metadata\":{\"source\":\"DevTools\"},\"traceEvents\":["
		"{\"args\":{},\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2},"
		"{\"args\":{\"data\":{\"startTime\":1000}},\"id\":\"0x1\",\"name\":\"Profile\",\"ph\":\"P\",\"pid\":1},"
		"{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
		"{\"callFrame\":{\"functionName\":\"(root)\"},\"id\":1},"
		"{\"callFrame\":{\"functionName\":\"main\"},\"id\":2,\"parent\":1},"
		"{\"callFrame\":{\"functionName\":\"work\"},\"id\":3,\"parent\":2}],\"samples\":[2,3,3]},"
		"\"timeDeltas\":[10,10,10]}},\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"ph\":\"P\",\"pid\":1},"
		/* another process: the same node ids, other frames */
		"{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
		"{\"callFrame\":{\"functionName\":\"(root)\"},\"id\":1},"
		"{\"callFrame\":{\"functionName\":\"other\"},\"id\":2,\"parent\":1}],\"samples\":[2,2]}}},"
		"\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"ph\":\"P\",\"pid\":7},"
		/* a later chunk of the first profile: samples only */
		"{\"args\":{\"data\":{\"cpuProfile\":{\"samples\":[3]}}},\"id\":\"0x1\",\"name\":\"ProfileChunk\","
		"\"ph\":\"P\",\"pid\":1}]}";
	struct cpuprofile_info info;
	struct cpuprofile_options o = { .info = &info };
	struct run r = run(load_cp, &o, trace_obj);
	is_run(&r, 0, "main 1\nmain;work 3\nother 2\n", "a Chrome trace object: profiles kept apart by pid and id");
	ok(info.trace && info.nodes == 5 && info.samples == 6, "  info: trace, 5 nodes, 6 samples");
	run_free(&r);
	check("[{\"name\":\"ProfileChunk\",\"ph\":\"P\",\"id\":\"0x1\",\"pid\":1,\"args\":{\"data\":{\"cpuProfile\":"
	      "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
	      "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"a\"}}],\"samples\":[2,2]}}}}]",
	      "a 2\n", "a Chrome trace array");
	r = cp("[{\"name\":\"x\",\"ph\":\"X\",\"args\":{\"data\":{}}}]");
	ok(r.rc == 1 && has_msg(&r, "a Chrome trace without CPU profile events"), "a trace without profiles");
	run_free(&r);
}

/* The sample times doc gives, as "T_US STACK" lines in input order, with
 * the folded text of its tree (checked separately). */
static char *times_of(const char *doc, struct cpuprofile_info *info)
{
	char err[256];
	struct source *s = source_open(docsrc_file(doc, strlen(doc)), err, sizeof err);
	if (!s)
		abort();
	struct tree t;
	struct timeline tl;
	tree_init(&t);
	timeline_init(&tl);
	struct cpuprofile_options o = { .timeline = &tl, .info = info };
	struct run r;
	memset(&r, 0, sizeof r);
	cpuprofile_load(&t, s, "test.cpuprofile", &o, ju_msg, &r);
	source_close(s);
	tree_idx *map;
	tree_finalize_map(&t, TREE_ORDER_NAME, &map);
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);
	out[0] = '\0';
	struct timeline_iter it;
	struct timeline_sample x;
	timeline_iter_init(&it, &tl, 0, UINT64_MAX);
	while (timeline_next(&it, &x) && len + 256 < cap) {
		char stack[200] = "";
		tree_idx chain[16];
		size_t n = 0;
		for (tree_idx i = x.leaf; i != TREE_ROOT && n < 16; i = tree_parent(&t, i))
			chain[n++] = i;
		while (n-- > 0) {
			strncat(stack, tree_name(&t, chain[n]), sizeof stack - strlen(stack) - 2);
			if (n)
				strcat(stack, ";");
		}
		len += (size_t)snprintf(out + len, cap - len, "%" PRIu64 "%s %s w%" PRIu64 " %s\n",
		                        x.time / 1000, x.time % 1000 ? "+" : "", stack, x.weight,
		                        tl.threads[x.thread].comm);
	}
	timeline_free(&tl);
	tree_free(&t);
	return out;
}

static void test_times(void)
{
	/* Worked by hand: startTime 1000 plus the running sums of
	 * [10,20,-5,15,1,1,1] = 10 30 25 40 41 42 43, paired with samples
	 * [4,4,5,2,4,6,5] (4 lex, 5 eval, 2 main, 6 (program)). */
	const char *want = "1010 main;parse;lex w1 main\n1030 main;parse;lex w1 main\n"
	                   "1025 main;eval w1 main\n1040 main w1 main\n1041 main;parse;lex w1 main\n"
	                   "1042 (program) w1 main\n1043 main;eval w1 main\n";
	struct cpuprofile_info info;
	char *got = times_of("{" NODES ",\"startTime\":1000,\"endTime\":2000," SAMPLES "," DELTAS "}", &info);
	is_str(got, want, "sample times: startTime + running sums of timeDeltas, with their stacks");
	free(got);
	ok(info.start_us == 1000 && info.end_us == 2000 && info.nodes == 6 && info.samples == 7 && !info.trace,
	   "info: start, end, nodes, samples");
	got = times_of("{" DELTAS "," NODES "," SAMPLES ",\"startTime\":1000}", &info);
	is_str(got, want, "deltas before samples, startTime last: the same times");
	free(got);
	/* a malformed delta (index 1) and a malformed sample (index 3): those
	 * two samples have no time; the running sum skips the bad delta */
	got = times_of("{" NODES ",\"startTime\":0,\"samples\":[4,5,2,\"x\",6],"
	               "\"timeDeltas\":[1,null,2,3,4]}", &info);
	is_str(got, "1 main;parse;lex w1 main\n3 main w1 main\n10 (program) w1 main\n",
	       "a malformed delta or sample: that sample has no time");
	free(got);
	/* an unknown node id: no stack, no time */
	got = times_of("{" NODES ",\"samples\":[4,99],\"timeDeltas\":[5,5]}", &info);
	is_str(got, "5 main;parse;lex w1 main\n", "a sample of an unknown node has no time");
	free(got);
	got = times_of("{\"timeDeltas\":[1,2,3]," NODES ",\"timeDeltas\":[5],\"samples\":[4]}", &info);
	is_str(got, "", "a repeated timeDeltas: no times (which would pair with which?)");
	free(got);
	/* integral numbers in other spellings (4.0, 1e1: not read as runs of
	 * plain integers) among plain ones: the same values, by hand as above */
	const char *want4 = "1010 main;parse;lex w1 main\n1030 main;parse;lex w1 main\n"
	                    "1025 main;eval w1 main\n1040 main w1 main\n";
	got = times_of("{" NODES ",\"startTime\":1000,\"samples\":[4,4.0,5e0,2],"
	               "\"timeDeltas\":[1e1,20,-5,1.5e1]}", &info);
	is_str(got, want4, "samples and deltas spelled 4.0 and 1e1 among plain ones");
	free(got);
	/* the same in a trace's ProfileChunk (samples and timeDeltas there) */
	got = times_of("{\"traceEvents\":[{\"args\":{\"data\":{\"startTime\":1000}},\"id\":\"0x1\","
	               "\"name\":\"Profile\",\"ph\":\"P\",\"pid\":1,\"tid\":1},"
	               "{\"args\":{\"data\":{\"cpuProfile\":{" NODES ",\"samples\":[4,4.0,5e0,2]},"
	               "\"timeDeltas\":[1e1,20,-5,1.5e1]}},\"id\":\"0x1\",\"name\":\"ProfileChunk\","
	               "\"ph\":\"P\",\"pid\":1,\"tid\":1}]}", &info);
	ok(strstr(got, "1010 main;parse;lex w1") && strstr(got, "1030 main;parse;lex w1") &&
	   strstr(got, "1025 main;eval w1") && strstr(got, "1040 main w1"),
	   "the same in a trace's ProfileChunk");
	if (!strstr(got, "1025 main;eval"))
		printf("#   got:\n%s", got);
	free(got);
}

static void test_sniff(void)
{
#define S(lit) (const unsigned char *)(lit), sizeof(lit) - 1
	ok(cpuprofile_sniff(S("{\"nodes\":[{\"id\":1"), false), "sniff: nodes first");
	ok(cpuprofile_sniff(S("\xef\xbb\xbf\n  { \"samples\" : [1,2"), false), "sniff: BOM, spaces, samples first");
	ok(cpuprofile_sniff(S("{\"startTime\":1,"), false), "sniff: startTime first");
	ok(cpuprofile_sniff(S("{\"traceEvents\":["), false), "sniff: traceEvents first");
	ok(cpuprofile_sniff(S("{\"metadata\":{},\"traceEvents\":[]}"), true), "sniff: metadata, then traceEvents");
	ok(cpuprofile_sniff(S("[{\"name\":\"Profile\",\"ph\":\"P\"}]"), true), "sniff: a trace array");
	ok(!cpuprofile_sniff(S("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"}"), true),
	   "sniff: not speedscope");
	ok(!cpuprofile_sniff(S("{\"metadata\":{}}"), true), "sniff: metadata alone");
	ok(!cpuprofile_sniff(S("main;parse;lex 3\nmain 1\n"), true), "sniff: not folded");
	ok(!cpuprofile_sniff(S("[unknown];main 3\n"), true), "sniff: not folded starting with [");
	ok(!cpuprofile_sniff(S("{x};main 3\n"), true), "sniff: not folded starting with {");
	ok(!cpuprofile_sniff(S("node 1234 100.5: 1 cycles:\n\tffff main (/bin/x)\n\n"), true),
	   "sniff: not perf script");
	ok(!cpuprofile_sniff(S("PERFILE2h\0\0\0\0\0\0\0"), true), "sniff: not perf.data");
	ok(!cpuprofile_sniff(S("\x1f\x8b\x08\0\0\0\0\0"), true), "sniff: not gzip'ed pprof");
	ok(!cpuprofile_sniff(S("\x0a\x0b\x0a\x07samples"), true), "sniff: not raw pprof");
	ok(!cpuprofile_sniff(S(""), true), "sniff: not empty input");
	ok(!cpuprofile_sniff(S("{"), false), "sniff: not a lone brace");
#undef S
}

static void test_hostile(void)
{
	/* Cut short at every byte, mapped and through a pipe. */
	static const char doc[] = "\xef\xbb\xbf{" NODES ",\"startTime\":1000," SAMPLES "," DELTAS
	                          ",\"x\":[{\"y\":\"caf\\u00e9\\ud83d\\ude00\"},true,false,null,-1.5e3]}";
	size_t n = sizeof doc - 1, bad = 0;
	struct timeline tl;
	timeline_init(&tl);
	struct cpuprofile_options o = { .timeline = &tl };
	for (size_t k = 0; k <= n; k++) {
		struct run r = run_n(load_cp, &o, doc, k, (k % 7) == 3);
		if ((r.rc != 0 && r.rc != 1) || (k < n && r.nmsgs == 0) || (r.rc == 1 && r.nodes != 1))
			bad++;
		run_free(&r);
	}
	ok(bad == 0, "cut short at each of %zu bytes: a message, no crash", n);
	timeline_free(&tl);
	struct run r = run_n(load_cp, NULL, doc, n, true);
	is_run(&r, 0, WANT, "the whole document through a pipe");
	run_free(&r);

	/* 100,000 levels deep: stopped at the depth limit. */
	long before = peak_mib();
	size_t deep = 100000;
	char *d = malloc(2 * deep + 16);
	strcpy(d, "{\"nodes\":");
	size_t at = strlen(d);
	for (size_t i = 0; i < deep; i++)
		d[at++] = '[';
	for (size_t i = 0; i < deep; i++)
		d[at++] = ']';
	d[at++] = '}';
	r = run_n(load_cp, NULL, d, at, false);
	ok(r.rc == 0 && has_msg(&r, "the JSON is nested deeper than 512 levels (at byte 521)"),
	   "nested 100,000 deep: stopped at 512 levels");
	run_free(&r);
	for (size_t i = 0; i < deep; i++)
		d[i] = i % 2 ? '[' : '{';
	r = run_n(load_cp, NULL, d, deep, true);
	ok(r.rc == 1 && r.nmsgs >= 1, "100,000 alternating openers through a pipe: a message");
	run_free(&r);
	free(d);

	/* A 100 MB string: stopped past 64 MiB, memory bounded. */
	const char *path = ju_big_file("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"", 'x',
	                               (size_t)100 << 20, "\"}}]}");
	r = run_path(load_cp, NULL, path);
	ok(r.rc == 0 && has_msg(&r, "a JSON string or number of more than 64 MiB"),
	   "a 100 MB string: stopped past 64 MiB");
	long grew = peak_mib() - before;
	ok(grew < 400, "  memory stayed bounded (peak grew by %ld MiB)", grew);
	run_free(&r);
	path = ju_big_file("{\"samples\":[1", '0', (size_t)70 << 20, "]}");
	r = run_path(load_cp, NULL, path);
	ok(r.rc == 1 && has_msg(&r, "a JSON string or number of more than 64 MiB"), "a 70 MB number: stopped");
	run_free(&r);
	path = ju_big_file("{\"samples\":[1", ' ', (size_t)70 << 20, "]}");
	r = run_path(load_cp, NULL, path);
	ok(r.rc == 1 && has_msg(&r, "more than 64 MiB"), "70 MB of whitespace: stopped");
	run_free(&r);
	docsrc_unlink();
}

int main(void)
{
	test_basic();
	test_unicode();
	test_damaged();
	test_trace();
	test_times();
	test_sniff();
	test_hostile();
	docsrc_unlink();
	return done_testing();
}
