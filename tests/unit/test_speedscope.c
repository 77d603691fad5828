/* Unit tests of the speedscope reader on small documents written here;
 * each expected folded text was worked out by hand from the samples and
 * weights, or from the events' times (a stack weighs the time it is on
 * top). Hostile inputs must give a message, not a crash. */
#include "config.h"

#include <stdbool.h>
#include "jsonutil.h"
#include "speedscope.h"

static int load_ss(struct tree *t, struct source *s, void *arg, reader_msg_fn *msg, void *msgarg)
{
	return speedscope_load(t, s, "test.json", arg, msg, msgarg);
}

static struct speedscope_info info;

static struct run ss(const char *doc, const char *profile)
{
	static struct speedscope_options o;
	o = (struct speedscope_options){ .profile = profile, .info = &info };
	return run(load_ss, &o, doc);
}

static void check(const char *doc, const char *profile, const char *want, const char *name)
{
	struct run r = ss(doc, profile);
	is_run(&r, 0, want, name);
	run_free(&r);
}

#define SCHEMA "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""
#define FRAMES "\"shared\":{\"frames\":[{\"name\":\"main\",\"file\":\"a.py\",\"line\":1,\"col\":2}," \
	"{\"name\":\"parse\"},{\"name\":\"lex\"},{\"name\":\"caf\\u00e9\\ud83d\\ude00\"}]}"
#define SAMPLED(name, unit) "{\"type\":\"sampled\",\"name\":\"" name "\",\"unit\":\"" unit "\"," \
	"\"startValue\":0,\"endValue\":30,\"samples\":[[0,1,2],[0,1],[0,1,2],[0],[3]],\"weights\":[5,4,6,1,2]}"
#define WANT_S "caf\xc3\xa9\xf0\x9f\x98\x80 2\nmain 1\nmain;parse 4\nmain;parse;lex 11\n"
/* main opens at 10; parse at 12; lex 13..16; parse again to 20; main to 25.
 * main on top: 2 + 5 = 7; parse: 1 + 4 = 5; lex: 3 */
#define EVENTED(name) "{\"type\":\"evented\",\"name\":\"" name "\",\"unit\":\"milliseconds\"," \
	"\"startValue\":10,\"endValue\":25,\"events\":[" \
	"{\"type\":\"O\",\"frame\":0,\"at\":10},{\"type\":\"O\",\"frame\":1,\"at\":12}," \
	"{\"type\":\"O\",\"frame\":2,\"at\":13},{\"at\":16,\"type\":\"C\",\"frame\":2}," \
	"{\"frame\":1,\"type\":\"C\",\"at\":20},{\"type\":\"C\",\"frame\":0,\"at\":25}]}"
#define WANT_E "main 7\nmain;parse 5\nmain;parse;lex 3\n"

static void test_sampled(void)
{
	check("{" SCHEMA "," FRAMES ",\"profiles\":[" SAMPLED("t", "nanoseconds") "]}", NULL, WANT_S,
	      "sampled, one profile: no root frame");
	ok(strcmp(info.unit, "nanoseconds") == 0 && info.profiles == 1 && info.shown == 1 &&
	   strcmp(info.name, "t") == 0, "  info: unit, counts, name");
	check("{\"profiles\":[" SAMPLED("t", "bytes") "]," FRAMES "," SCHEMA "}", NULL, WANT_S,
	      "profiles before shared");
	ok(strcmp(info.unit, "bytes") == 0, "  unit: bytes");
	check("\xef\xbb\xbf\n{" SCHEMA "," FRAMES ",\"profiles\":[{\"weights\":[5,4,6,1,2],\"type\":\"sampled\","
	      "\"samples\":[[0,1,2],[0,1],[0,1,2],[0],[3]]}]}", NULL, WANT_S, "BOM; weights before samples");
	ok(strcmp(info.unit, "") == 0, "  no unit: \"\"");
	struct run r = ss("{" FRAMES ",\"profiles\":[{\"samples\":[[0,1,2],[0,1],[0,1,2],[],[3]]}]}", NULL);
	is_run(&r, 0, "caf\xc3\xa9\xf0\x9f\x98\x80 1\nmain;parse 1\nmain;parse;lex 2\n",
	       "no weights: one each; an empty sample has no frame to count on");
	ok(has_msg(&r, "the weight of samples without frames is left out"), "  reported");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[{\"samples\":[[0],[1],[2]],\"weights\":[1.5,2.25]}]}", NULL);
	is_run(&r, 0, "main 1.5\nparse 2.25\n", "fractional weights; more samples than weights");
	ok(r.frac, "  the tree counts in fractions");
	ok(has_msg(&r, "profile \"profile 1\": 3 samples but 2 weights; the unpaired ones are skipped"),
	   "  reported: the mismatch");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[{\"samples\":[[0,9],[1],[0,-1],[1.5],\"x\",[[0]],{}],"
	       "\"weights\":[1,2,3,4,5,6,7]}]}", NULL);
	is_run(&r, 0, "parse 2\n", "frame indices missing, negative, fractional, nested; samples not arrays");
	ok(has_msg(&r, "1 stack names a frame that shared.frames does not have (it has 4); skipped"),
	   "  reported: the missing frame");
	ok(has_msg(&r, "skipped 5 malformed values (first: a frame index out of range)"), "  reported: the rest");
	run_free(&r);
	check("{" FRAMES ",\"profiles\":[{\"samples\":[[0]],\"weights\":[1]},"
	      "{\"samples\":[[0]],\"weights\":[9223372036854775807]}],\"x\":{\"y\":[null,true,false]}}",
	      "2", "main 9223372036854775807\n", "the largest integer weight; unknown keys skipped");
	check("{" FRAMES ",\"profiles\":[{\"samples\":[[0]],\"weights\":[1e30]}]}", NULL,
	      "main 18446744073709551615\n", "a weight beyond 64 bits saturates, as integer counts do");
}

static void test_evented(void)
{
	check("{" SCHEMA "," FRAMES ",\"profiles\":[" EVENTED("e") "]}", NULL, WANT_E,
	      "evented: a stack weighs its time on top");
	ok(strcmp(info.unit, "milliseconds") == 0, "  unit: milliseconds");
	check("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"events\":["
	      "{\"type\":\"O\",\"frame\":0,\"at\":0.5},{\"type\":\"O\",\"frame\":1,\"at\":1.75},"
	      "{\"type\":\"C\",\"frame\":1,\"at\":2},{\"type\":\"C\",\"frame\":0,\"at\":4}]}]}",
	      NULL, "main 3.25\nmain;parse 0.25\n", "evented: fractional times");
	check("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"events\":["
	      "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":0,\"at\":1},"
	      "{\"type\":\"C\",\"frame\":0,\"at\":3},{\"type\":\"C\",\"frame\":0,\"at\":4},"
	      "{\"type\":\"O\",\"frame\":1,\"at\":10},{\"type\":\"C\",\"frame\":1,\"at\":11}]}]}",
	      NULL, "main 2\nmain;main 2\nparse 1\n", "evented: recursion; a gap with nothing open");

	struct run r = ss("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"name\":\"bad\",\"events\":["
	                  "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":1},"
	                  "{\"type\":\"C\",\"frame\":0,\"at\":3},{\"type\":\"C\",\"frame\":1,\"at\":4}]}]}", NULL);
	is_run(&r, 0, "main 1\n", "evented: closing a frame that is not on top");
	ok(has_msg(&r, "profile \"bad\": event 2 closes frame 0 while frame 1 is the innermost open one; "
	              "this profile's events from it on are skipped"), "  reported");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"events\":["
	       "{\"type\":\"C\",\"frame\":0,\"at\":0}]}]}", NULL);
	is_run(&r, 0, "", "evented: closing with nothing open");
	ok(has_msg(&r, "event 0 closes frame 0, but no frame is open"), "  reported");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"events\":["
	       "{\"type\":\"O\",\"frame\":0,\"at\":5},{\"type\":\"O\",\"frame\":1,\"at\":3}]}]}", NULL);
	is_run(&r, 0, "", "evented: time going back");
	ok(has_msg(&r, "event 1 goes back in time"), "  reported");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"events\":["
	       "{\"type\":\"O\",\"frame\":0,\"at\":5},{\"type\":\"O\",\"frame\":1,\"at\":6}],\"endValue\":10}]}", NULL);
	is_run(&r, 0, "main 1\nmain;parse 4\n", "evented: frames left open are closed at endValue");
	ok(has_msg(&r, "2 frames still open at the end; closed at endValue"), "  reported");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[{\"type\":\"evented\",\"events\":["
	       "{\"type\":\"X\",\"frame\":0,\"at\":5},{\"type\":\"O\",\"at\":6},{\"type\":\"O\",\"frame\":0},"
	       "{\"type\":\"O\",\"frame\":99,\"at\":7},{\"type\":\"C\",\"frame\":99,\"at\":8}]}]}", NULL);
	is_run(&r, 0, "", "evented: malformed events; a frame the file does not have");
	ok(has_msg(&r, "skipped 3 malformed values") && has_msg(&r, "1 stack names a frame that shared.frames"),
	   "  reported");
	run_free(&r);
}

static void test_profiles(void)
{
	static const char two[] = "{" SCHEMA "," FRAMES ",\"profiles\":[" SAMPLED("main thread", "nanoseconds")
	                          "," EVENTED("worker") ",{\"type\":\"sampled\",\"samples\":[[2]],\"weights\":[7]}]}";
	check(two, NULL,
	      "main thread;caf\xc3\xa9\xf0\x9f\x98\x80 2\nmain thread;main 1\nmain thread;main;parse 4\n"
	      "main thread;main;parse;lex 11\nprofile 3;lex 7\nworker;main 7\nworker;main;parse 5\n"
	      "worker;main;parse;lex 3\n",
	      "three profiles: a root frame each (\"profile N\" when unnamed)");
	ok(strcmp(info.unit, "mixed") == 0 && info.profiles == 3 && info.shown == 3 && info.name[0] == '\0',
	   "  info: mixed units, 3 shown");
	check(two, "worker", WANT_E, "--profile=worker");
	ok(strcmp(info.unit, "milliseconds") == 0 && strcmp(info.name, "worker") == 0 && info.shown == 1,
	   "  info: its unit and name");
	check(two, "1", WANT_S, "--profile=1");
	check(two, "3", "lex 7\n", "--profile=3 (unnamed)");
	ok(strcmp(info.name, "profile 3") == 0, "  its name: profile 3");
	check("{" FRAMES ",\"profiles\":[{\"name\":\"2\",\"samples\":[[0]]},{\"name\":\"x\",\"samples\":[[1]]}]}",
	      "2", "main 1\n", "--profile=2: a profile named \"2\" wins over the second one");
	struct run r = ss(two, "nothere");
	ok(r.rc == 1 && r.nodes == 1 &&
	   has_msg(&r, "tflame: test.json: no profile \"nothere\" in the file (it has 3: 1 \"main thread\", "
	                "2 \"worker\", 3 \"profile 3\")"), "--profile naming no profile: rc 1, the list");
	run_free(&r);
	r = ss(two, "0");
	ok(r.rc == 1, "--profile=0: counted from 1");
	run_free(&r);
	r = ss("{" FRAMES ",\"profiles\":[]}", NULL);
	is_run(&r, 0, "", "no profiles: an empty tree");
	run_free(&r);
	r = ss("[1]", NULL);
	ok(r.rc == 1 && has_msg(&r, "not a speedscope file"), "an array: not speedscope");
	run_free(&r);
	r = ss("{\"nodes\":[{\"id\":1}],\"samples\":[1]}", NULL);
	ok(r.rc == 1 && has_msg(&r, "not a speedscope file (no \"profiles\" array)"), "an object without profiles");
	run_free(&r);
}

static void test_sniff(void)
{
#define S(lit) (const unsigned char *)(lit), sizeof(lit) - 1
	ok(speedscope_sniff(S("{" SCHEMA ",\"shared\":{"), false), "sniff: $schema first");
	ok(speedscope_sniff(S("\xef\xbb\xbf {\n  \"exporter\": \"py-spy@0.3.14\",\n  \"$schema\" :\n"
	                      "  \"https://www.speedscope.app/file-format-schema.json\"}"), true),
	   "sniff: BOM, pretty-printed, $schema later");
	ok(!speedscope_sniff(S("{\"$schema\":\"https://example.com/other.json\"}"), true), "sniff: another schema");
	ok(!speedscope_sniff(S("{\"name\":\"https://www.speedscope.app/file-format-schema.json\"}"), true),
	   "sniff: the address under another key");
	ok(speedscope_sniff(S("{\"shared\":{\"frames\":[{\"name\":"), false), "sniff: shared first");
	ok(speedscope_sniff(S("{\"profiles\":[{\"type\":\"evented\","), false), "sniff: profiles first");
	ok(!speedscope_sniff(S("{\"shared\":{}}"), true), "sniff: shared without frames");
	ok(!speedscope_sniff(S("{\"nodes\":[]}"), true), "sniff: not a cpuprofile");
	ok(!speedscope_sniff(S("main;\"$schema\":\"https://www.speedscope.app/file-format-schema.json\" 1\n"), true),
	   "sniff: not folded");
	ok(!speedscope_sniff(S("perf 12 1.0: cycles:\n\tffff main (/x)\n"), true), "sniff: not perf script");
	ok(!speedscope_sniff(S("PERFILE2h\0\0\0\0\0\0\0"), true), "sniff: not perf.data");
	ok(!speedscope_sniff(S("\x1f\x8b\x08\0\0\0\0\0"), true), "sniff: not pprof");
	ok(!speedscope_sniff(S(""), true), "sniff: not empty");
#undef S
}

static void test_hostile(void)
{
	static const char doc[] = "\xef\xbb\xbf{" SCHEMA "," FRAMES ",\"profiles\":[" SAMPLED("a", "none") ","
	                          EVENTED("b") ",{\"samples\":[[0.5,1e999,-0]],\"weights\":[1e400]}]}";
	size_t n = sizeof doc - 1, bad = 0;
	struct speedscope_options o = { .profile = NULL, .info = &info };
	for (size_t k = 0; k <= n; k++) {
		o.profile = k % 3 == 1 ? "b" : NULL;
		struct run r = run_n(load_ss, &o, doc, k, (k % 5) == 2);
		if ((r.rc != 0 && r.rc != 1) || (k < n && r.nmsgs == 0) || (r.rc == 1 && r.nodes != 1))
			bad++;
		run_free(&r);
	}
	ok(bad == 0, "cut short at each of %zu bytes: a message, no crash", n);

	size_t deep = 100000;
	char *d = malloc(deep + 64);
	strcpy(d, "{\"profiles\":[{\"samples\":");
	size_t at = strlen(d);
	for (size_t i = 0; i < deep; i++)
		d[at++] = '[';
	struct run r = run_n(load_ss, NULL, d, at, true);
	ok(r.rc == 0 && has_msg(&r, "nested deeper than 512 levels"), "nested 100,000 deep: a message");
	run_free(&r);
	free(d);

	long before = peak_mib();
	const char *path = ju_big_file("{\"shared\":{\"frames\":[{\"name\":\"", 'y', (size_t)100 << 20, "\"}]}}");
	r = run_path(load_ss, NULL, path);
	ok(r.rc == 1 && has_msg(&r, "a JSON string or number of more than 64 MiB"), "a 100 MB name: stopped");
	long grew = peak_mib() - before;
	ok(grew < 400, "  memory stayed bounded (peak grew by %ld MiB)", grew);
	run_free(&r);
	docsrc_unlink();
}

int main(void)
{
	test_sampled();
	test_evented();
	test_profiles();
	test_sniff();
	test_hostile();
	docsrc_unlink();
	return done_testing();
}
