/* Unit tests for src/palette.c: annotation -> code type -> hue -> colour,
 * the user's rules and palette map, hash stability and the quantizers.
 * Expected values are worked out by hand from the rules in palette.h (the
 * channel formulas, inferno's/flamegraph.pl's name shapes, xterm's cube
 * levels 0 95 135 175 215 255); the hash values were computed with an
 * independent Python implementation of FNV-1a + splitmix64's finalizer,
 * and FNV-1a of "a" is the published test vector 0xaf63dc4c8601ec8c. */
#include "config.h"
#include "palette.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *tmpdir;

static enum palette_hue hue_of(const char *pal, const char *name)
{
	const struct palette *p = palette_find(pal);
	return palette_look(p, NULL, name, strlen(name)).hue;
}

static void hue_is(const char *pal, const char *name, enum palette_hue want)
{
	enum palette_hue got = hue_of(pal, name);
	ok(got == want, "%s: '%s' is %s", pal, name, palette_hue_name(want));
	if (got != want)
		printf("#   got: %s\n", palette_hue_name(got));
}

static int rgb_eq(struct palette_rgb a, int r, int g, int b)
{
	return a.r == r && a.g == g && a.b == b;
}

static void rgb_is(struct palette_rgb c, int r, int g, int b, const char *name)
{
	ok(rgb_eq(c, r, g, b), "%s: rgb(%d,%d,%d)", name, r, g, b);
	if (!rgb_eq(c, r, g, b))
		printf("#   got: rgb(%d,%d,%d)\n", c.r, c.g, c.b);
}

static void test_types(void)
{
	is_int(palette_type_of(S("do_syscall_64_[k]")), PALETTE_TYPE_KERNEL, "_[k] is kernel");
	is_int(palette_type_of(S("Foo::bar_[j]")), PALETTE_TYPE_JIT, "_[j] is jit");
	is_int(palette_type_of(S("inl_[i]")), PALETTE_TYPE_INLINED, "_[i] is inlined");
	is_int(palette_type_of(S("try_to_wake_up_[w]")), PALETTE_TYPE_WAKER, "_[w] is waker");
	is_int(palette_type_of(S("_[k]")), PALETTE_TYPE_KERNEL, "the annotation alone");
	is_int(palette_type_of(S("f_[x]")), PALETTE_TYPE_NONE, "_[x] is no annotation");
	is_int(palette_type_of(S("f_[kk]")), PALETTE_TYPE_NONE, "_[kk] is no annotation");
	is_int(palette_type_of(S("f_[k] ")), PALETTE_TYPE_NONE, "only at the very end");
	is_int(palette_type_of(S("f[k]")), PALETTE_TYPE_NONE, "the underscore is part of it");
	is_int(palette_type_of(S("[k]")), PALETTE_TYPE_NONE, "shorter than 4 bytes");
	is_int(palette_type_of(S("")), PALETTE_TYPE_NONE, "empty name");
	is_int((long long)palette_base_len(S("do_syscall_64_[k]")), 13, "base length drops 4 bytes");
	is_int((long long)palette_base_len(S("main")), 4, "base length of a plain name");
	is_str(palette_type_name(PALETTE_TYPE_KERNEL), "kernel", "type name kernel");
	is_str(palette_type_name(PALETTE_TYPE_JIT), "jit", "type name jit");
	is_str(palette_type_name(PALETTE_TYPE_INLINED), "inlined", "type name inlined");
	is_str(palette_type_name(PALETTE_TYPE_WAKER), "waker", "type name waker");
	ok(palette_type_name(PALETTE_TYPE_NONE) == NULL, "no name for no type");
}

static void test_hash(void)
{
	ok(palette_hash(S("")) == 0xf52a15e9a9b5e89bu, "hash of the empty name");
	ok(palette_hash(S("a")) == 0x02c0bdbf481420f8u, "hash of 'a' (FNV-1a 0xaf63dc4c8601ec8c, mixed)");
	ok(palette_hash(S("main")) == 0xb1375cb6f94d9218u, "hash of 'main'");
	ok(palette_hash(S("do_syscall_64")) == 0x9e7aa6191609049fu, "hash of 'do_syscall_64'");

	/* 'main' under red: v1 = 0x9218 / 65535 = 0.5707; r = 200 + (int)31.4,
	 * g = b = 50 + (int)45.7. The same in every call: no state, no seed. */
	const struct palette *red = palette_find("red");
	struct palette_look a = palette_look(red, NULL, S("main"));
	struct palette_look b = palette_look(red, NULL, S("main"));
	rgb_is(a.rgb, 231, 95, 95, "'main' under red");
	ok(a.hue == b.hue && rgb_eq(b.rgb, a.rgb.r, a.rgb.g, a.rgb.b), "the same name, the same colour again");

	/* The annotation does not change the shade, only (maybe) the hue. */
	const struct palette *hot = palette_find("hot");
	struct palette_look k = palette_look(hot, NULL, S("do_syscall_64_[k]"));
	struct palette_look n = palette_look(hot, NULL, S("do_syscall_64"));
	ok(rgb_eq(k.rgb, n.rgb.r, n.rgb.g, n.rgb.b), "hot: f and f_[k] share their shade");
	/* A copy of the name elsewhere in memory (another profile's strtab)
	 * gets the same colour: only the bytes count. */
	char *copy = strdup("do_syscall_64");
	struct palette_look c = palette_look(hot, NULL, copy, strlen(copy));
	ok(rgb_eq(c.rgb, n.rgb.r, n.rgb.g, n.rgb.b), "hot: a copy of the name, the same colour");
	free(copy);
}

static void test_hue_rgb(void)
{
	/* v1 = v2 = v3 = 0: every channel at its base. */
	rgb_is(palette_hue_rgb(PALETTE_HUE_RED, 0), 200, 50, 50, "red at 0");
	rgb_is(palette_hue_rgb(PALETTE_HUE_GREEN, 0), 50, 200, 50, "green at 0");
	rgb_is(palette_hue_rgb(PALETTE_HUE_BLUE, 0), 80, 80, 205, "blue at 0");
	rgb_is(palette_hue_rgb(PALETTE_HUE_AQUA, 0), 50, 165, 165, "aqua at 0");
	rgb_is(palette_hue_rgb(PALETTE_HUE_YELLOW, 0), 175, 175, 50, "yellow at 0");
	rgb_is(palette_hue_rgb(PALETTE_HUE_PURPLE, 0), 190, 80, 190, "purple at 0");
	rgb_is(palette_hue_rgb(PALETTE_HUE_ORANGE, 0), 190, 90, 0, "orange at 0");
	/* v1 = 1: base + range. */
	rgb_is(palette_hue_rgb(PALETTE_HUE_RED, 0xffff), 255, 130, 130, "red at 1");
	rgb_is(palette_hue_rgb(PALETTE_HUE_ORANGE, 0xffff), 255, 155, 0, "orange at 1");
	/* v1 = 0x8000 / 65535 = 0.500008: red 200 + (int)27.5 = 227, 50 + 40 = 90. */
	rgb_is(palette_hue_rgb(PALETTE_HUE_RED, 0x8000), 227, 90, 90, "red at one half");
	/* hot: g from v1 (1: 230), b from v2 (0: 0), r from v3 (one half: 230). */
	rgb_is(palette_hue_rgb(PALETTE_HUE_HOT, 0x000080000000ffffu), 230, 230, 0, "hot from three fractions");
	/* mem: g from v2 (1: 240), b from v1 (0: 0). io: r = g from v1 (1: 140), b from v2 (0: 190). */
	rgb_is(palette_hue_rgb(PALETTE_HUE_MEM, 0xffff0000u), 0, 240, 0, "mem from v1 and v2");
	rgb_is(palette_hue_rgb(PALETTE_HUE_IO, 0xffffu), 140, 140, 190, "io from v1 and v2");
}

static void test_palettes(void)
{
	/* java: annotations first, then the name's shape. */
	hue_is("java", "do_syscall_64_[k]", PALETTE_HUE_ORANGE);
	hue_is("java", "Foo::bar_[j]", PALETTE_HUE_GREEN);
	hue_is("java", "com/x/Foo::inl_[i]", PALETTE_HUE_AQUA);
	hue_is("java", "java/lang/Thread::run", PALETTE_HUE_GREEN);
	hue_is("java", "Ljava/util/HashMap;::get", PALETTE_HUE_GREEN);
	hue_is("java", "org.scalatest.Suite.run", PALETTE_HUE_GREEN);
	hue_is("java", "Interpreter", PALETTE_HUE_GREEN);
	hue_is("java", "JVM::call", PALETTE_HUE_YELLOW);
	hue_is("java", "-[NSObject init]", PALETTE_HUE_YELLOW);
	hue_is("java", "memcpy", PALETTE_HUE_RED);
	hue_is("java", "foo.isra.0", PALETTE_HUE_RED);
	hue_is("java", "[libc.so.6]", PALETTE_HUE_RED);
	hue_is("java", "f_[w]", PALETTE_HUE_RED);

	hue_is("js", "LazyCompile:~f /srv/app.js:3_[j]", PALETTE_HUE_GREEN);
	hue_is("js", "Builtin:CallFunction_[j]", PALETTE_HUE_AQUA);
	hue_is("js", "v8::internal::Invoke", PALETTE_HUE_YELLOW);
	hue_is("js", "Builtin:CallFunction", PALETTE_HUE_AQUA);
	hue_is("js", "f /srv/node_modules/x/y.js", PALETTE_HUE_PURPLE);
	hue_is("js", "f /srv/app.js", PALETTE_HUE_GREEN);
	hue_is("js", " ", PALETTE_HUE_GREEN);
	hue_is("js", "sys_read_[k]", PALETTE_HUE_ORANGE);
	hue_is("js", "main", PALETTE_HUE_RED);

	hue_is("perl", "Perl_pp_entersub", PALETTE_HUE_GREEN);
	hue_is("perl", "run (script.pl:3)", PALETTE_HUE_GREEN);
	hue_is("perl", "Foo::bar", PALETTE_HUE_YELLOW);
	hue_is("perl", "Foo::bar_[k]", PALETTE_HUE_ORANGE);
	hue_is("perl", "main", PALETTE_HUE_RED);

	hue_is("python", "get (/usr/lib/python3/dist-packages/requests/api.py:10)", PALETTE_HUE_AQUA);
	hue_is("python", "get (/venv/lib/python3.11/site-packages/x.py:10)", PALETTE_HUE_AQUA);
	hue_is("python", "decode (/usr/lib/python3.11/json/decoder.py:337)", PALETTE_HUE_YELLOW);
	hue_is("python", "<built-in method sleep>", PALETTE_HUE_YELLOW);
	hue_is("python", "<frozen importlib._bootstrap>", PALETTE_HUE_YELLOW);
	hue_is("python", "main (app.py:3)", PALETTE_HUE_GREEN);
	hue_is("python", "<module>", PALETTE_HUE_GREEN);
	hue_is("python", "py::run:/srv/job", PALETTE_HUE_GREEN);
	hue_is("python", "_PyEval_EvalFrameDefault", PALETTE_HUE_RED);
	hue_is("python", "/usr/lib/python3.x/x", PALETTE_HUE_RED);
	hue_is("python", "schedule_[k]", PALETTE_HUE_ORANGE);

	hue_is("rust", "core::ptr::drop_in_place", PALETTE_HUE_ORANGE);
	hue_is("rust", "<alloc::vec::Vec<T> as Drop>::drop", PALETTE_HUE_ORANGE);
	hue_is("rust", "libfoo.so`std::rt::lang_start", PALETTE_HUE_ORANGE);
	hue_is("rust", "<core::future::from_generator::GenFuture<T> as Future>::poll", PALETTE_HUE_AQUA);
	hue_is("rust", "myapp::main", PALETTE_HUE_AQUA);
	hue_is("rust", "memcpy", PALETTE_HUE_YELLOW);
	hue_is("rust", "schedule_[k]", PALETTE_HUE_RED);

	hue_is("chain", "try_to_wake_up_[w]", PALETTE_HUE_AQUA);
	hue_is("chain", "schedule", PALETTE_HUE_BLUE);
	hue_is("wakeup", "anything", PALETTE_HUE_AQUA);
	hue_is("hot", "f_[k]", PALETTE_HUE_HOT);
	hue_is("mem", "malloc", PALETTE_HUE_MEM);
	hue_is("io", "read", PALETTE_HUE_IO);
	static const char *const one[] = { "red", "green", "blue", "aqua", "yellow", "purple", "orange" };
	for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
		hue_is(one[k], "Foo::bar_[k]", (enum palette_hue)palette_hue_find(one[k]));

	/* flamegraph.pl's separators, in any palette. */
	const struct palette *java = palette_find("java");
	struct palette_look l = palette_look(java, NULL, S("-"));
	ok(l.hue == PALETTE_HUE_GREY && rgb_eq(l.rgb, 200, 200, 200), "'-' is light grey");
	l = palette_look(java, NULL, S("--"));
	ok(l.hue == PALETTE_HUE_GREY && rgb_eq(l.rgb, 160, 160, 160), "'--' is darker grey");

	/* Every palette's legend lists the hues it can give, without repeats. */
	for (size_t i = 0; palette_list[i]; i++) {
		const struct palette *p = palette_list[i];
		int dup = 0;
		for (size_t a = 0; a < p->nlegend; a++)
			for (size_t b = a + 1; b < p->nlegend; b++)
				dup |= p->legend[a].hue == p->legend[b].hue;
		ok(p->nlegend > 0 && !dup, "%s: a legend without repeated hues", p->name);
	}
}

static void test_list(void)
{
	is_int((long long)palette_count, 17, "17 palettes");
	static const char *const want[] = {
		"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "python", "rust",
		"red", "green", "blue", "aqua", "yellow", "purple", "orange"
	};
	int all = 1;
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
		all &= palette_find(want[k]) != NULL && strcmp(palette_find(want[k])->name, want[k]) == 0;
	ok(all, "every palette of the issue is found by name");
	ok(palette_list[0] == palette_find("hot"), "hot is the default");
	ok(palette_find("Hot") == NULL && palette_find("") == NULL, "names are exact");
	ok(palette_next(palette_find("hot")) == palette_find("mem"), "c after hot is mem");
	ok(palette_next(palette_find("orange")) == palette_find("hot"), "c after orange wraps to hot");
	char buf[256];
	is_str(palette_names(buf, sizeof buf),
	       "hot, mem, io, wakeup, chain, java, js, perl, python, rust, red, green, blue, aqua, "
	       "yellow, purple, orange", "palette_names");
}

static void test_specs(void)
{
	struct palette_spec sp;
	ok(palette_parse_spec("#FF8000", &sp) && sp.hue == PALETTE_HUE_FLAT && rgb_eq(sp.rgb, 255, 128, 0),
	   "#FF8000 is a flat colour");
	ok(palette_parse_spec("#0a0B0c", &sp) && rgb_eq(sp.rgb, 10, 11, 12), "hex in either case");
	ok(palette_parse_spec("aqua", &sp) && sp.hue == PALETTE_HUE_AQUA, "aqua is a hue");
	ok(palette_parse_spec("grey", &sp) && sp.hue == PALETTE_HUE_GREY, "grey is a hue");
	ok(palette_parse_spec("gray", &sp) && sp.hue == PALETTE_HUE_GREY, "gray too");
	ok(palette_parse_spec("hot", &sp) && sp.hue == PALETTE_HUE_HOT, "hot is a hue");
	ok(!palette_parse_spec("flat", &sp), "flat is not a colour one writes");
	ok(!palette_parse_spec("#12345", &sp) && !palette_parse_spec("#1234567", &sp) &&
	   !palette_parse_spec("#12345g", &sp) && !palette_parse_spec("", &sp), "bad hex colours");
	ok(!palette_parse_spec("java", &sp), "a palette is not a colour");
}

static void test_rules(void)
{
	char err[512];
	struct palette_rules *r = palette_rules_new();
	const struct palette *hot = palette_find("hot");
	is_int(palette_rules_add(r, "^my_=#ff0000", err, sizeof err), 0, "rule ^my_=#ff0000");
	is_int(palette_rules_add(r, "my_|std::=aqua", err, sizeof err), 0, "rule my_|std::=aqua");
	is_int(palette_rules_add(r, "_\\[k\\]$=blue", err, sizeof err), 0, "rule on the annotation");
	is_int(palette_rules_add(r, "a=b=purple", err, sizeof err), 0, "rule whose regex holds '='");
	is_int((long long)palette_rules_count(r), 4, "four rules");
	is_str(palette_rules_regex(r, 3), "a=b", "split at the last '='");

	struct palette_look l = palette_look(hot, r, S("my_func"));
	ok(l.hue == PALETTE_HUE_FLAT && rgb_eq(l.rgb, 255, 0, 0), "first matching rule wins: flat red");
	l = palette_look(hot, r, S("std::vec"));
	struct palette_rgb want = palette_hue_rgb(PALETTE_HUE_AQUA, palette_hash(S("std::vec")));
	ok(l.hue == PALETTE_HUE_AQUA && rgb_eq(l.rgb, want.r, want.g, want.b), "a hue rule shades by the hash");
	ok(palette_look(hot, r, S("vfs_read_[k]")).hue == PALETTE_HUE_BLUE, "rules see the annotation");
	ok(palette_look(hot, r, S("xa=by")).hue == PALETTE_HUE_PURPLE, "a regex with '='");
	ok(palette_look(hot, r, S("main")).hue == PALETTE_HUE_HOT, "no rule: the palette");

	ok(palette_rules_add(r, "noequals", err, sizeof err) == -1 && strstr(err, "expected REGEX=COLOR"),
	   "no '=': %s", err);
	ok(palette_rules_add(r, "x=nosuch", err, sizeof err) == -1 && strstr(err, "unknown colour"),
	   "unknown colour: %s", err);
	ok(palette_rules_add(r, "=red", err, sizeof err) == -1 && strstr(err, "empty"), "empty regex: %s", err);
	ok(palette_rules_add(r, "(=red", err, sizeof err) == -1 && strstr(err, "invalid --color-rule '(=red'"),
	   "bad regex: %s", err);
	ok(palette_rules_add(r, "\x1b\\[31m=red", err, sizeof err) == 0, "a rule with an escape byte");
	ok(palette_rules_add(r, "\x1b=nosuch", err, sizeof err) == -1 && !strchr(err, '\x1b'),
	   "messages never hold raw escapes");
	is_int((long long)palette_rules_count(r), 5, "failed rules are not added");
	palette_rules_free(r);
	palette_rules_free(NULL);
}

static char *write_file(const char *name, const char *text)
{
	char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
	sprintf(path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Loads text as a map file; the error (or "") goes to err. */
static int load(const char *text, char *err, size_t size, struct palette_rules **out)
{
	char *path = write_file("palette.map", text);
	struct palette_rules *r = palette_rules_new();
	err[0] = '\0';
	int rc = palette_rules_load_map(r, path, err, size);
	unlink(path);
	free(path);
	if (out)
		*out = r;
	else
		palette_rules_free(r);
	return rc;
}

static void map_err_is(const char *text, const char *want, const char *name)
{
	char err[512];
	int rc = load(text, err, sizeof err, NULL);
	char *at = strstr(err, "palette.map:");
	ok(rc == -1 && at && strcmp(at, want) == 0, "%s", name);
	if (!(rc == -1 && at && strcmp(at, want) == 0))
		printf("#   got:  '%s'\n#   want: '...%s'\n", err, want);
}

static void test_map(void)
{
	char err[512];
	struct palette_rules *r;
	is_int(load("# our team's colours\n"
	            "main->rgb(1,2,3)\n"
	            "\n"
	            "operator->->rgb( 4, 5 ,6 )\r\n"
	            "foo->#0A0b0C\n"
	            "kfunc->rgb(7,8,9)\n"
	            "main->rgb(11,12,13)\n"
	            "->rgb(255,230,55)\n", err, sizeof err, &r), 0, "a good map loads");
	is_int((long long)palette_rules_map_count(r), 5, "five names (main twice, the empty name)");
	const struct palette *java = palette_find("java");
	struct palette_look l = palette_look(java, r, S("main"));
	ok(l.hue == PALETTE_HUE_FLAT && rgb_eq(l.rgb, 11, 12, 13), "the later entry for main wins");
	ok(rgb_eq(palette_look(java, r, S("operator->")).rgb, 4, 5, 6), "a name holding '->', CRLF, blanks");
	ok(rgb_eq(palette_look(java, r, S("foo")).rgb, 10, 11, 12), "#rrggbb in a map");
	ok(rgb_eq(palette_look(java, r, S("kfunc_[k]")).rgb, 7, 8, 9), "an annotated name finds its bare entry");
	ok(palette_look(java, r, S("mainx")).hue == PALETTE_HUE_RED, "names match whole");
	ok(palette_rules_add(r, "^main$=green", err, sizeof err) == 0 &&
	   palette_look(java, r, S("main")).hue == PALETTE_HUE_FLAT, "the map comes before the rules");
	palette_rules_free(r);

	map_err_is("ok->rgb(1,2,3)\nno arrow here\n", "palette.map:2: expected NAME->rgb(R,G,B)",
	           "a line without '->', with its number");
	map_err_is("x->rgb(1,2)\n", "palette.map:1: bad colour 'rgb(1,2)': rgb() needs three numbers from 0 to 255",
	           "two numbers");
	map_err_is("\n\nx->rgb(256,0,0)\n", "palette.map:3: bad colour 'rgb(256,0,0)': a colour value is above 255",
	           "a value above 255");
	map_err_is("x->red\n", "palette.map:1: bad colour 'red': a colour is rgb(R,G,B) or #rrggbb",
	           "a hue name is not a map colour");
	map_err_is("x->rgb(1,2,3)junk\n", "palette.map:1: bad colour 'rgb(1,2,3)junk': a colour is rgb(R,G,B) or #rrggbb",
	           "junk after the colour");
	map_err_is("x->rgb(1,2,3,4)\n", "palette.map:1: bad colour 'rgb(1,2,3,4)': rgb() needs three numbers from 0 to 255",
	           "four numbers");
	map_err_is("x->\x1b[2J\n", "palette.map:1: bad colour '^[[2J': a colour is rgb(R,G,B) or #rrggbb",
	           "an escape in the file is shown escaped");

	struct palette_rules *r2 = palette_rules_new();
	char *missing = malloc(strlen(tmpdir) + 16);
	sprintf(missing, "%s/nope.map", tmpdir);
	ok(palette_rules_load_map(r2, missing, err, sizeof err) == -1 && strstr(err, "nope.map: No such file"),
	   "a missing file: %s", err);
	free(missing);

	/* Not a regular file: refused before any read (issue 21). */
	ok(palette_rules_load_map(r2, "/dev/zero", err, sizeof err) == -1 &&
	   strcmp(err, "/dev/zero: not a regular file (a character device)") == 0, "/dev/zero: %s", err);
	ok(palette_rules_load_map(r2, tmpdir, err, sizeof err) == -1 && strstr(err, ": Is a directory"),
	   "a directory: %s", err);
	palette_rules_free(r2);

	/* From memory: the name heads the messages; no final newline; a NUL
	 * inside a name is part of it; entries before a bad line stay. */
	struct palette_rules *r3 = palette_rules_new();
	const char text[] = "a\0b->rgb(1,2,3)\nlast->#010203";
	ok(palette_rules_parse_map(r3, "mem", text, sizeof text - 1, err, sizeof err) == 0 &&
	   palette_rules_map_count(r3) == 2, "parse_map: two entries, the last without a newline");
	ok(rgb_eq(palette_look(java, r3, S("last")).rgb, 1, 2, 3), "parse_map: the last line counts");
	ok(palette_look(java, r3, S("a")).hue != PALETTE_HUE_FLAT, "parse_map: 'a\\0b' is not 'a'");
	ok(palette_rules_parse_map(r3, "mem", S("x->rgb(9,9,9)\n\nbad\n"), err, sizeof err) == -1 &&
	   strcmp(err, "mem:3: expected NAME->rgb(R,G,B)") == 0 && palette_rules_map_count(r3) == 3,
	   "parse_map: error at line 3 with the name, the entry before kept: %s", err);
	palette_rules_free(r3);
}

static void test_terminal(void)
{
	is_int(palette_depth_for(0x1000000, NULL), PALETTE_DIRECT, "2^24 colours: direct");
	is_int(palette_depth_for(256, NULL), PALETTE_256, "256 colours");
	is_int(palette_depth_for(88, NULL), PALETTE_8, "88 colours: the 8");
	is_int(palette_depth_for(8, NULL), PALETTE_8, "8 colours");
	is_int(palette_depth_for(2, NULL), PALETTE_MONO, "2 colours: none");
	is_int(palette_depth_for(0x1000000, "1"), PALETTE_MONO, "NO_COLOR=1 wins over direct");
	is_int(palette_depth_for(256, ""), PALETTE_256, "an empty NO_COLOR is unset");
	ok(palette_colorterm_direct("truecolor") && palette_colorterm_direct("24bit"), "COLORTERM truecolor, 24bit");
	ok(!palette_colorterm_direct("yes") && !palette_colorterm_direct("") && !palette_colorterm_direct(NULL),
	   "other COLORTERM values");

	/* red (200,50,50): cube 215 (|200-215| < |200-175|), 95 (|50-95| = 45
	 * < 50) -> 16 + 36*4 + 6*1 + 1 = 167. */
	struct palette_look l = { PALETTE_HUE_RED, { 200, 50, 50 } };
	is_int(palette_to_256(l), 167, "red (200,50,50) is xterm 167");
	/* hot (230,230,0) among hot's set: 184 (215,215,0) at 450 beats 220
	 * (255,215,0) at 850 and 185 (215,215,95) at 9475. */
	struct palette_look h = { PALETTE_HUE_HOT, { 230, 230, 0 } };
	is_int(palette_to_256(h), 184, "hot (230,230,0) is xterm 184");
	/* grey 160: the ramp's 158 (232 + 15) is nearer than the cube's 175. */
	struct palette_look g = { PALETTE_HUE_GREY, { 160, 160, 160 } };
	is_int(palette_to_256(g), 247, "grey 160 is xterm 247");

	struct palette_look o = { PALETTE_HUE_ORANGE, { 200, 100, 0 } };
	struct palette_look p = { PALETTE_HUE_PURPLE, { 200, 100, 200 } };
	struct palette_look f = { PALETTE_HUE_FLAT, { 0, 200, 0 } };
	is_int(palette_to_8(l), 1, "8 colours: red is red");
	is_int(palette_to_8(o), 5, "8 colours: orange is magenta");
	is_int(palette_to_8(p), 4, "8 colours: purple is blue");
	is_int(palette_to_8(f), 2, "8 colours: a flat (0,200,0) is green");
	is_int(palette_to_8(h), 3, "8 colours: hot with green 230 is yellow");
	struct palette_rgb c = { 1, 2, 3 }, dark = { 0, 0, 5 };
	is_int(palette_to_direct(c), 0x010203, "direct colour number 0xRRGGBB");
	is_int(palette_to_direct(dark), 8, "direct numbers below 8 (ANSI) become 8");

	/* The point of a palette: within it, different hues never end on the
	 * same terminal colour, so kernel and JIT frames always look apart.
	 * Every shade (v1 over 0..65535, v2 = v3 = v1) of every legend hue. */
	for (size_t i = 0; palette_list[i]; i++) {
		const struct palette *pal = palette_list[i];
		int clash256 = 0, clash8 = 0;
		for (size_t a = 0; a < pal->nlegend; a++)
			for (size_t b = a + 1; b < pal->nlegend; b++)
				for (uint64_t va = 0; va <= 0xffff; va += 0x111)
					for (uint64_t vb = 0; vb <= 0xffff; vb += 0x111) {
						uint64_t ha = va | va << 16 | va << 32, hb = vb | vb << 16 | vb << 32;
						struct palette_look la = { pal->legend[a].hue, palette_hue_rgb(pal->legend[a].hue, ha) };
						struct palette_look lb = { pal->legend[b].hue, palette_hue_rgb(pal->legend[b].hue, hb) };
						clash256 |= palette_to_256(la) == palette_to_256(lb);
						clash8 |= palette_to_8(la) == palette_to_8(lb);
					}
		ok(!clash256 && !clash8, "%s: its hues never share a 256- or 8-colour", pal->name);
	}
}

int main(void)
{
	char dir[] = "/tmp/tflame-palette.XXXXXX";
	tmpdir = mkdtemp(dir);
	if (!tmpdir) {
		perror("mkdtemp");
		return 1;
	}
	test_types();
	test_hash();
	test_hue_rgb();
	test_palettes();
	test_list();
	test_specs();
	test_rules();
	test_map();
	test_terminal();
	rmdir(tmpdir);
	return done_testing();
}
