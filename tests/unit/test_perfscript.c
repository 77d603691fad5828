/* Unit tests of the perf script reader: small inputs written for these tests,
 * each expected folded output worked out by hand from SPEC.md §A.
 *
 * Every input runs twice: fed in one block, and fed line by line from
 * buffers freed right after each feed (so a reader that kept pointers into
 * the caller's block fails, under ASan loudly). Both must give the expected
 * text and the same diagnostics. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfscript.h"
#include "tap.h"
#include "tree.h"

#define IN(lit) lit, sizeof(lit) - 1

struct result {
	char *out;              /* folded text */
	size_t len;
	struct reader_diag d;
	uint64_t wev, wst;      /* weird event / stack lines */
};

static void feed_copy(struct perf_reader *r, const char *s, size_t n)
{
	char *b = malloc(n ? n : 1);
	if (!b)
		abort();
	memcpy(b, s, n);
	perf_reader_feed(r, b, n);
	memset(b, 'X', n);
	free(b);
}

static void collapse(const char *in, size_t len, const struct perf_options *o, bool by_line,
                     struct result *res)
{
	struct tree t;
	struct perf_reader *r;
	FILE *f;

	tree_init(&t);
	r = perf_reader_new(&t, o);
	if (!by_line) {
		feed_copy(r, in, len);
	} else {
		size_t i = 0;
		while (i < len) {
			const char *nl = memchr(in + i, '\n', len - i);
			size_t e = nl ? (size_t)(nl - in) + 1 : len;
			feed_copy(r, in + i, e - i);
			i = e;
		}
	}
	perf_reader_finish(r);
	res->d = *perf_reader_diag(r);
	res->wev = perf_reader_weird_events(r);
	res->wst = perf_reader_weird_stacks(r);
	perf_reader_free(r);
	tree_finalize(&t, TREE_ORDER_NAME);
	f = open_memstream(&res->out, &res->len);
	if (!f || tree_write_folded(&t, f) != 0 || fclose(f) != 0)
		abort();
	tree_free(&t);
}

static void show(const char *tag, const char *s, size_t n)
{
	printf("#   %s: '", tag);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			fputs("\\n", stdout);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	puts("'");
}

/* Runs both feeding modes, checks the output against want; the result of
 * the one-block run stays in *res (free res->out) for further checks. */
static void check_len(const char *name, const char *in, size_t len, const struct perf_options *o,
                      const char *want, size_t wlen, struct result *res)
{
	struct result lines;
	bool same_out, same_diag;

	collapse(in, len, o, false, res);
	collapse(in, len, o, true, &lines);
	same_out = res->len == wlen && memcmp(res->out, want, wlen) == 0;
	same_diag = lines.len == res->len && memcmp(lines.out, res->out, res->len) == 0 &&
	            lines.d.bad == res->d.bad && lines.d.first_bad == res->d.first_bad &&
	            lines.d.stacks == res->d.stacks && lines.wev == res->wev &&
	            lines.wst == res->wst && strcmp(lines.d.first_msg, res->d.first_msg) == 0;
	ok(same_out && same_diag, "%s", name);
	if (!same_out) {
		show("got ", res->out, res->len);
		show("want", want, wlen);
	}
	if (!same_diag)
		show("fed line by line", lines.out, lines.len);
	free(lines.out);
}

#define check(name, in, o, want, res) check_len(name, in, strlen(in), o, want, strlen(want), res)

/* check, then no malformed line at all */
static void clean(const char *name, const char *in, const struct perf_options *o, const char *want)
{
	struct result r;
	check(name, in, o, want, &r);
	if (r.d.bad || r.wev || r.wst)
		printf("#   unexpected malformed lines: %llu (%s)\n",
		       (unsigned long long)r.d.bad, r.d.first_msg);
	ok(r.d.bad == 0 && r.wev == 0 && r.wst == 0, "%s: no malformed lines", name);
	free(r.out);
}

static const struct perf_options NONE;

static void test_basic(void)
{
	struct result r;
	const char *in =
		"prog 1234 [000] 10.000001:     100 cycles:u: \n"
		"\t          401000 leaf+0x10 (/usr/bin/prog)\n"
		"\t          402000 mid (/usr/bin/prog)\n"
		"\t          403000 main+0x1f (/usr/bin/prog)\n"
		"\n";
	char *crlf;
	size_t n = 0;

	clean("a record: comm, then callers first, weight = period", in, &NONE,
	      "prog;main;mid;leaf 100\n");

	/* the same with CRLF line ends */
	crlf = malloc(strlen(in) * 2 + 1);
	for (const char *p = in; *p; p++) {
		if (*p == '\n')
			crlf[n++] = '\r';
		crlf[n++] = *p;
	}
	check_len("CRLF line ends work", crlf, n, &NONE, IN("prog;main;mid;leaf 100\n"), &r);
	free(crlf);
	free(r.out);

	check("records merge and sort; last record without final newline",
	      "a 1 1.0: 5 cycles:\n\t1 f (x)\n\t2 main (x)\n\n"
	      "a 1 1.1: 7 cycles:\n\t1 f (x)\n\t2 main (x)\n\n"
	      "a 1 1.2: 2 cycles:\n\t3 main (x)\n\n"
	      "b 2 1.3: 1 cycles:\n\t4 g (y)",
	      &NONE, "a;main 2\na;main;f 12\nb;g 1\n", &r);
	is_int((long long)r.d.stacks, 4, "4 stacks handed to the tree");
	is_int((long long)r.d.lines, 13, "13 lines seen");
	free(r.out);

	clean("no input, no output", "", &NONE, "");
	clean("a record without frames is dropped",
	      "a 1 1.0: 1 cycles:\n\na 1 1.1: 1 cycles:\n\t1 f (m)\n\n", &NONE, "a;f 1\n");
	clean("a whitespace-only line ends a record",
	      "a 1 1.0: 1 cycles:\n\t1 f (m)\n \t \na 1 1.1: 2 cycles:\n\t1 g (m)\n\n",
	      &NONE, "a;f 1\na;g 2\n");
	clean("trailing Unicode white space (NBSP, ideographic space) is trimmed",
	      "a 1 1.0: 1 cycles:\xc2\xa0\n\t1 f (m)\xe3\x80\x80\n\t2 main (m)\xc2\xa0\n\n", &NONE,
	      "a;main;f 1\n");
	clean("frame lines need no indentation",
	      "java 19983 cycles:\n7f01 f (x)\n7f02 g (x)\n\n", &NONE, "java;g;f 1\n");
}

static void test_event_lines(void)
{
	struct perf_options pid = { .pid = true }, tid = { .tid = true }, jit = { .jit = true };
	const char *in =
		"java 12688/12764 [002] 6544038.708352:     235 cycles:u:\n"
		"\t7f722d142778 Ljava/io/PrintStream;::print+0x1c (/tmp/perf-19982.map)\n"
		"\n"
		"V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:u:\n"
		"\t7f00 v8_run (/usr/bin/node)\n"
		"\n"
		"func_ab 15285 [001] 1.000: 3 cycles:\n"
		"\t400 func_a (/tmp/func_ab)\n"
		"\n";

	clean("comm with spaces becomes _, pid/tid dropped", in, &NONE,
	      "V8_WorkerThread;v8_run 100\n"
	      "func_ab;func_a 3\n"
	      "java;java/io/PrintStream:::print 235\n");
	clean("--pid: comm-PID, '?' when only a TID is printed", in, &pid,
	      "V8_WorkerThread-24636;v8_run 100\n"
	      "func_ab-?;func_a 3\n"
	      "java-12688;java/io/PrintStream:::print 235\n");
	clean("--tid: comm-PID/TID", in, &tid,
	      "V8_WorkerThread-24636/25607;v8_run 100\n"
	      "func_ab-?/15285;func_a 3\n"
	      "java-12688/12764;java/io/PrintStream:::print 235\n");
	clean("--jit marks perf-map frames", in, &jit,
	      "V8_WorkerThread;v8_run 100\n"
	      "func_ab;func_a 3\n"
	      "java;java/io/PrintStream:::print_[j] 235\n");

	clean("right-aligned comm (%16s) is trimmed",
	      "           false 39654 19115.489713:          1 cycles:u: \n\t1 f (x)\n\n",
	      &NONE, "false;f 1\n");
	clean("padded TID alone: the PID is '?'", "swapper     0 [002] 1.0: 4 cycles:\n\t1 f (x)\n\n",
	      &pid, "swapper-?;f 4\n");
	clean("COMM ends at the first all-digit word followed by a space",
	      "java 8 pool 1234 1.0: 2 cycles:\n\t1 f (x)\n", &tid, "java-?/8;f 2\n");
	clean("periods: present, absent, after padding (perf aligns event names), '+', overflow, not a number, zero",
	      "a 1 1.0: 7 cycles:\n\t1 p7 (x)\n\n"
	      "a 1 1.0: cycles:\n\t1 pnone (x)\n\n"
	      "a 1 1.0: 7  cycles:\n\t1 ptwo (x)\n\n"
	      "a 1 1.0: +5 cycles:\n\t1 pplus (x)\n\n"
	      "a 1 1.0: 18446744073709551616 cycles:\n\t1 pover (x)\n\n"
	      "a 1 1.0: 12x cycles:\n\t1 pbad (x)\n\n"
	      "a 1 1.0: 0 cycles:\n\t1 pzero (x)\n\n",
	      &NONE,
	      "a;p7 7\na;pbad 1\na;pnone 1\na;pover 1\na;pplus 5\na;ptwo 7\n");
}

static void test_filters(void)
{
	struct perf_options cyc = { .event_filter = "cycles" };
	struct perf_options cycmod = { .event_filter = "cycles:uppp" };
	struct perf_options ins = { .event_filter = "instructions" };
	const char *in =
		"a 1 1.0: 1 instructions:u:\n\t1 i1 (x)\n\n"
		"a 1 1.1: 1 cycles:uppp:\n\t1 c1 (x)\n\n"
		"a 1 1.2: 2 instructions:\n\t1 i2 (x)\n\n";

	clean("default filter: the first event seen", in, &NONE, "a;i1 1\na;i2 2\n");
	clean("--event-filter=cycles (names exclude modifiers)", in, &cyc, "a;c1 1\n");
	clean("--event-filter with modifiers matches nothing", in, &cycmod, "");
	clean("--event-filter=instructions", in, &ins, "a;i1 1\na;i2 2\n");
	clean("a filtered single-line record swallows lines up to a blank line (inferno)",
	      "x 1 1.0: 1 cycles:  1 f (m)\n"
	      "x 1 1.1: 1 instr:  1 g (m)\n"
	      "x 1 1.2: 1 cycles:  1 h (m)\n"
	      "\n"
	      "x 1 1.3: 1 cycles:  1 k (m)\n",
	      &NONE, "x;f 1\nx;k 1\n");
}

static void test_pipeline(void)
{
	struct perf_options kernel = { .kernel = true }, jit = { .jit = true },
	                    all = { .kernel = true, .jit = true }, addrs = { .addrs = true };
	const char *ann, *unk, *java;

	clean("offsets: +0x and hex digits only, any case, maybe none; the last one",
	      "prog 1 1.0: 1 cycles:\n"
	      "\t1 a+0x1+0x2 (m)\n"
	      "\t2 h+0x1g (m)\n"
	      "\t3 g+0x (m)\n"
	      "\t4 f+0xA (m)\n"
	      "\t5 main+0x1f (m)\n"
	      "\n",
	      &NONE, "prog;main;f;g;h+0x1g;a+0x1 1\n");

	clean("'(' frames dropped; Rust legacy hashes fixed before tidying",
	      "prog 1 1.0: 1 cycles:\n"
	      "\t1 (anonymous namespace)::f(int) (m)\n"
	      "\t2 foo$LP$x$RP$::h0123456789abcdef (m)\n"
	      "\t3 a$zz$b..c::h0123456789ABCDEF (m)\n"
	      "\t4 emulator::main::hc2aaa9b4591a10c7 (m)\n"
	      "\t5 gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0123456789ab (m)\n"
	      "\t6 _$LT$alloc..vec..Vec$LT$T$GT$$GT$::push::h0123456789abcdef (m)\n"
	      "\t7 short::h0123456789abcde (m)\n"
	      "\n",
	      &NONE,
	      "prog;short::h0123456789abcde;<alloc::vec::Vec<T>>::push;"
	      "gc::GcBox<T>::new::_{{closure}};emulator::main;a$zz$b..c;foo 1\n");

	clean("tidy_generic: argument lists by bracket depth, Go and anonymous namespaces kept, ';' to ':'",
	      "prog 1 1.0: 1 cycles:\n"
	      "\t1 base(BasicType) const (m)\n"
	      "\t2 .run()V (m)\n"
	      "\t3 foo<Vec::<usize>>(Vec<usize>) (m)\n"
	      "\t4 std::function<void (int, int)>::operator()(int, int) (m)\n"
	      "\t5 {lambda(int, int)#2}::operator() (m)\n"
	      "\t6 ns::(anonymous namespace)::myBar() (m)\n"
	      "\t7 [(foo)]::bar() (m)\n"
	      "\t8 std::operator<<(std::ostream&, int) (m)\n"
	      "\t9 foo::operator>(int) (m)\n"
	      "\t10 net/http.(*Client).Do (m)\n"
	      "\t11 Lfoo/Bar;::baz (m)\n"
	      "\t12 spaced (int) (m)\n"
	      "\n",
	      &NONE,
	      "prog;spaced ;Lfoo/Bar:::baz;net/http.(*Client).Do;foo::operator>(int);"
	      "std::operator<<(std::ostream&, int);[(foo)]::bar;ns::(anonymous namespace)::myBar;"
	      "{lambda(int, int)#2}::operator;std::function<void (int, int)>::operator;"
	      "foo<Vec::<usize>>;.run;base 1\n");

	clean("an empty symbol is the frame \" \"",
	      "prog 1 1.0: 1 cycles:\n\t7f1e2215d058  (/lib/libc.so)\n\t1 main (m)\n\n",
	      &NONE, "prog;main;  1\n");

	java =
		"java 1 1.0: 1 cycles:\n"
		"\t1 Lcom/A;::a->Lcom/B;::b->Lcom/C;::c (/tmp/perf-1.map)\n"
		"\t2 x->y_[i] (m)\n"
		"\t3 LBusy;::main (m)\n"
		"\n";
	clean("'->' inlining: callers first, _[i] once; tidy_java drops L when there is a '/'",
	      java, &NONE,
	      "java;LBusy:::main;x;y_[i];com/A:::a;com/B:::b_[i];com/C:::c_[i] 1\n");
	clean("'->' with --jit: only the first part can get _[j]", java, &jit,
	      "java;LBusy:::main;x;y_[i];com/A:::a_[j];com/B:::b_[i];com/C:::c_[i] 1\n");
	clean("tidy_java only for java processes",
	      "prog 1 1.0: 1 cycles:\n"
	      "\t1 Lcom/A;::a->Lcom/B;::b->Lcom/C;::c (/tmp/perf-1.map)\n"
	      "\t2 x->y_[i] (m)\n"
	      "\t3 LBusy;::main (m)\n"
	      "\n",
	      &NONE,
	      "prog;LBusy:::main;x;y_[i];Lcom/A:::a;Lcom/B:::b_[i];Lcom/C:::c_[i] 1\n");

	unk =
		"prog 1 1.0: 1 cycles:\n"
		"\t7f00aa [unknown] (/usr/lib/libfoo.so.1)\n"
		"\t0 [unknown] ([unknown])\n"
		"\n"
		"prog 1 1.1: 1 cycles:\n"
		"\tffffffff81 [unknown] ([vdso])\n"
		"\t7f01 [unknown] (/tmp/perf-9.map)\n"
		"\t7f02 [unknown] (nodir.so)\n"
		"\n";
	clean("[unknown] becomes [DSO basename]", unk, &NONE,
	      "prog;[nodir.so];[perf-9.map];[[vdso]] 1\n"
	      "prog;[unknown];[libfoo.so.1] 1\n");
	clean("--addrs: [DSO <pc>] and [unknown <pc>]", unk, &addrs,
	      "prog;[nodir.so <7f02>];[perf-9.map <7f01>];[[vdso] <ffffffff81>] 1\n"
	      "prog;[unknown <0>];[libfoo.so.1 <7f00aa>] 1\n");
	clean("--all annotates the fallback names too", unk, &all,
	      "prog;[nodir.so];[perf-9.map]_[j];[[vdso]]_[k] 1\n"
	      "prog;[unknown];[libfoo.so.1] 1\n");

	ann =
		"prog 1 1.0: 1 cycles:\n"
		"\t0 kk_[k] ([kernel.kallsyms])\n"
		"\t1 k1 ([kernel.kallsyms])\n"
		"\t2 k2 (/lib/modules/5.4/net/foo.ko)\n"
		"\t3 k3 (/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11)\n"
		"\t4 n1 (/opt/vmlinux+5)\n"
		"\t5 n2 ([unknown])\n"
		"\t6 j1 (/tmp/perf-42.map)\n"
		"\t7 j2 (/tmp/jitted-31714-4145673320.so)\n"
		"\t8 j3_[j] (/tmp/perf-42.map)\n"
		"\t9 n3 (/tmp/perf-42.mapx)\n"
		"\t10 u1 (/usr/bin/prog)\n"
		"\n";
	clean("no annotation by default", ann, &NONE,
	      "prog;u1;n3;j3_[j];j2;j1;n2;n1;k3;k2;k1;kk_[k] 1\n");
	clean("--kernel: [..], .ko, versioned vmlinux; no duplicate check", ann, &kernel,
	      "prog;u1;n3;j3_[j];j2;j1;n2;n1;k3_[k];k2_[k];k1_[k];kk_[k]_[k] 1\n");
	clean("--jit: perf maps and jitdump .so, not twice", ann, &jit,
	      "prog;u1;n3;j3_[j];j2_[j];j1_[j];n2;n1;k3;k2;k1;kk_[k] 1\n");
	clean("--all: both", ann, &all,
	      "prog;u1;n3;j3_[j];j2_[j];j1_[j];n2;n1;k3_[k];k2_[k];k1_[k];kk_[k]_[k] 1\n");
}

static void test_framing(void)
{
	struct result r;

	check("'#' in column 0 is a comment, even inside a record; ' #' is not",
	      "# header\n"
	      " # not a comment\n"
	      "prog 1 1.0: 1 cycles:\n"
	      "\t1 f (m)\n"
	      "# comment inside a record\n"
	      "\t2 main (m)\n"
	      "\n",
	      &NONE, "prog;main;f 1\n", &r);
	ok(r.d.bad == 1 && r.wev == 1 && r.wst == 0 && r.d.first_bad == 2,
	   "... ' # not a comment' is the one weird event line, line 2");
	free(r.out);

	clean("single-line records (no callchain), the last one without a newline",
	      "           false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])\n"
	      "           false 64414 20110.539271:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)",
	      &NONE, "false;[unknown] 34467\nfalse;_dl_start 1\n");

	check("event line, blank line, frame: one weird event line, nothing kept",
	      "a 1 1.0: 1 cycles:\n\n\t1 f (m)\n", &NONE, "", &r);
	ok(r.d.bad == 1 && r.wev == 1 && r.wst == 0 && r.d.first_bad == 3,
	   "... counted as a weird event line at line 3");
	is_str(r.d.first_msg, "unrecognized event line \"?1 f (m)\"", "... message, tab shown as '?'");
	free(r.out);

	check("a malformed frame line is skipped, the record goes on; srcline lines are skipped silently",
	      "prog 1 1.0: 1 cycles:\n"
	      "\t401000 leaf+0x10 (/usr/bin/prog)\n"
	      "\t  prog.c:12\n"
	      "\t          THIS_IS_A_WEIRD_LINE\n"
	      "\t402000 mid (/usr/bin/prog)\n"
	      "\t  libc-2.33.so[27b25]\n"
	      "\t  ??:0\n"
	      "\t  prog.c:40 (discriminator 3)\n"
	      "\t  foo:\n"
	      "\t  :12\n"
	      "\t403000 main (/usr/bin/prog)\n"
	      "\n",
	      &NONE, "prog;main;mid;leaf 1\n", &r);
	ok(r.wst == 3 && r.wev == 0 && r.d.bad == 3 && r.d.first_bad == 4,
	   "... 3 weird stack lines (THIS_IS_A_WEIRD_LINE, 'foo:', ':12'), first at line 4");
	is_str(r.d.first_msg, "unrecognized frame line \"?          THIS_IS_A_WEIRD_LINE\"",
	       "... message names the class");
	free(r.out);
}

static void test_deviations(void)
{
	struct perf_options kernel = { .kernel = true }, addrs = { .addrs = true };
	const char *dso;
	struct result r;
	char bin[] = "a 1 1.0: 1 cycles:\n\t1 f\xffo\x80\0o (m)\n\n";
	char long_line[101];

	clean("(a) a tracepoint payload is not a frame: the record keeps its frames",
	      "perf 100 [001] 5.000: 1 sched:sched_switch: prev_comm=perf prev_pid=100 prev_prio=120 "
	      "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
	      "\tffffffff81000001 __schedule+0x1 ([kernel.kallsyms])\n"
	      "\tffffffff81000002 schedule+0x2 ([kernel.kallsyms])\n"
	      "\n",
	      &NONE, "perf;schedule;__schedule 1\n");
	clean("(a) tracepoint lines without callchains are records without frames",
	      "perf 100 [001] 5.000: 1 sched:sched_switch: prev_comm=perf ==> next_comm=swapper/1 next_pid=0\n"
	      "perf 100 [001] 5.100: 1 sched:sched_switch: prev_comm=perf ==> next_comm=cc1 next_pid=7\n"
	      "perf 100 [001] 5.150: 1 sched:sched_switch: prev_comm=perf ==> pos=7:12\n"
	      "\n"
	      "perf 100 [001] 5.200: 3 sched:sched_switch: prev_comm=perf ==> next_comm=cc1 next_pid=7\n"
	      "\tffffffff81000001 __schedule+0x1 ([kernel.kallsyms])\n",
	      &NONE, "perf;__schedule 3\n");

	dso =
		"prog 1 1.0: 1 cycles:\n"
		"\t7f0000001000 foo+0x10 (/opt/my app/lib foo.so)\n"
		"\t7f0000002000 [unknown] (/home/u/x (old) y/lib.so)\n"
		"\t7f0000003000 operator new (unsigned long) (/opt/my lib/libstdc++.so)\n"
		"\t1 kf ([a (b) c])\n"
		"\n";
	clean("(b) DSO paths with spaces", dso, &NONE,
	      "prog;kf;operator new ;[lib.so];foo 1\n");
	clean("(b) the DSO is the whole parenthesised group (--kernel sees [a (b) c])", dso, &kernel,
	      "prog;kf_[k];operator new ;[lib.so];foo 1\n");
	clean("(b) --addrs", dso, &addrs,
	      "prog;kf;operator new ;[lib.so <7f0000002000>];foo 1\n");

	check_len("(d) bytes pass through: invalid UTF-8 and NUL in a name", bin, sizeof bin - 1,
	          &NONE, IN("a;f\xffo\x80\0o 1\n"), &r);
	free(r.out);

	clean("(e) a UTF-8 BOM before a comment line",
	      "\xEF\xBB\xBF# header\nprog 1 1.0: 1 cycles:\n\t1 f (m)\n", &NONE, "prog;f 1\n");
	clean("(e) a UTF-8 BOM before the first event line",
	      "\xEF\xBB\xBFprog 1 1.0: 2 cycles:\n\t1 f (m)\n", &NONE, "prog;f 2\n");

	/* messages never carry control bytes; long lines are cut */
	check("malformed line with control bytes", "\x1b[31mEVIL\x07\x7f\n", &NONE, "", &r);
	is_str(r.d.first_msg, "unrecognized event line \"?[31mEVIL??\"",
	       "... ESC, BEL, DEL shown as '?'");
	free(r.out);
	check("malformed line with UTF-8, a C1 control and a bad byte",
	      "caf\xc3\xa9 \xc2\x9b\xff\n", &NONE, "", &r);
	is_str(r.d.first_msg, "unrecognized event line \"caf\xc3\xa9 ???\"",
	       "... valid UTF-8 kept, C1 and invalid bytes shown as '?'");
	free(r.out);
	memset(long_line, 'x', 100);
	long_line[100] = '\0';
	check("a 100-byte malformed line", long_line, &NONE, "", &r);
	ok(strlen(r.d.first_msg) == strlen("unrecognized event line \"\"") + 80 + 3 &&
	   strstr(r.d.first_msg, "xxx...\"") != NULL,
	   "... message keeps 80 bytes and ends in ...");
	free(r.out);
}

static void test_parsers(void)
{
	struct perf_event_parts ep;
	struct perf_frame_parts fp;
	const char *s;

	s = "V8 WorkerThread 24636/25607 [000] 1.0: cycles:";
	ok(perf_event_line_parts(s, strlen(s), &ep) &&
	   ep.comm_len == 15 && !memcmp(ep.comm, "V8 WorkerThread", 15) &&
	   ep.pid_len == 5 && !memcmp(ep.pid, "24636", 5) &&
	   ep.tid_len == 5 && !memcmp(ep.tid, "25607", 5) && ep.end == 28,
	   "event parts: comm with a space, pid/tid, end after the word");
	s = "java 19983";
	ok(!perf_event_line_parts(s, strlen(s), &ep), "event parts: a final digit word is not a pid");
	s = "java\t123 x";
	ok(!perf_event_line_parts(s, strlen(s), &ep), "event parts: a tab is not a separator");
	s = "  \t 7f1e2215d058  (/lib/libc-2.15.so)";
	ok(perf_frame_line_parts(s, strlen(s), &fp) &&
	   fp.pc_len == 12 && fp.func_len == 1 && fp.func[0] == ' ' &&
	   fp.module_len == 17 && !memcmp(fp.module, "/lib/libc-2.15.so", 17),
	   "frame parts: leading blanks, empty symbol, module without parentheses");
	s = "401b97 main+0x1f";
	ok(!perf_frame_line_parts(s, strlen(s), &fp), "frame parts: no module");
	s = "401b97 main+0x1f (mod";
	ok(!perf_frame_line_parts(s, strlen(s), &fp), "frame parts: unclosed module");
	s = "401b97 (mod)";
	ok(!perf_frame_line_parts(s, strlen(s), &fp), "frame parts: no symbol field");
}

/* The events a load saw (issue 18 item 9): counted per record, kept or
 * filtered out, added to the shared counts at perf_reader_finish; the list
 * is the busiest first. Worked by hand: 3 cpu-clock, 2 cycles:u (counted
 * as cycles, the filter's name), 1 instructions. */
static void test_events(void)
{
	static const char in[] =
		"p 1/1 1.0: 1 cpu-clock:ppp:\n\tf a (m)\n\n"
		"p 1/1 1.1: 1 cycles:u:\n\tf b (m)\n\n"
		"p 1/1 1.2: 1 cpu-clock:ppp:\n\tf a (m)\n\n"
		"p 1/1 1.3: 1 instructions:\n\tf c (m)\n\n"
		"p 1/1 1.4: 1 cycles:u:\n\tf b (m)\n\n"
		"p 1/1 1.5: 1 cpu-clock:ppp:\n\tf a (m)\n\n";
	struct perf_events ev = { 0 };
	struct perf_options o = { .event_filter = "nope", .events = &ev };
	struct result r;
	char list[512];

	collapse(IN(in), &o, false, &r);
	is_str(r.out, "", "--event-filter=nope: nothing kept");
	free(r.out);
	is_int((long long)ev.n, 3, "events: three names");
	perf_events_list(&ev, list, sizeof list);
	is_str(list, "cpu-clock (3 samples), cycles (2 samples), instructions (1 sample)",
	       "events: the busiest first, counts grouped");
	/* a second reader of the same load (another file, a parallel piece)
	 * adds to the same counts */
	o.event_filter = NULL;
	collapse(IN(in), &o, true, &r);
	is_str(r.out, "p;a 3\n", "no filter: the first event is kept");
	free(r.out);
	perf_events_list(&ev, list, sizeof list);
	is_str(list, "cpu-clock (6 samples), cycles (4 samples), instructions (2 samples)",
	       "events: two readers' counts summed");

	/* more than PERF_EVENTS_MAX names: the rest are "other events";
	 * 20 events e0..e19, e0 twice: 16 named, 4 records beyond */
	struct perf_events many = { 0 };
	struct perf_options om = { .events = &many };
	char big[4096];
	size_t n = 0;
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(big + n, sizeof big - n, "p 1/1 1.%d: 1 e%d:\n\tf a (m)\n\n", i, i);
	n += (size_t)snprintf(big + n, sizeof big - n, "p 1/1 2.0: 1 e0:\n\tf a (m)\n\n");
	collapse(big, n, &om, false, &r);
	free(r.out);
	perf_events_list(&many, list, sizeof list);
	is_str(list, "e0 (2 samples), e1 (1 sample), e10 (1 sample), e11 (1 sample), e12 (1 sample), "
	       "e13 (1 sample), e14 (1 sample), e15 (1 sample), e2 (1 sample), e3 (1 sample), e4 (1 sample), "
	       "e5 (1 sample), e6 (1 sample), e7 (1 sample), e8 (1 sample), e9 (1 sample), "
	       "other events (4 samples)", "events: 16 named, the rest counted together");
	struct perf_events none = { 0 };
	perf_events_list(&none, list, sizeof list);
	is_str(list, "", "events: none, an empty list");
}

int main(void)
{
	test_basic();
	test_event_lines();
	test_filters();
	test_pipeline();
	test_framing();
	test_deviations();
	test_parsers();
	test_events();
	return done_testing();
}
