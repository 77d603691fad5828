/* genfolded: write a synthetic folded-stack profile to stdout, reproducibly.
 *
 * Usage: genfolded [--size N[K|M|G]] [--seed N] [--shuffled] [--names N]
 *                  [--depth MEDIAN] [--real] [--stats]
 *
 *   --size      target size (default 64M; a bare number is MiB). The output is
 *               never larger than the target and ends within a few KB of it.
 *   --seed      PRNG seed (default 1). Same arguments => same bytes.
 *   --shuffled  the same lines in random order (default: byte-wise sorted, as
 *               `LC_ALL=C sort` and the stack collapsers write them). The lines
 *               are unique stacks, so `sort` of a shuffled file equals the
 *               sorted file of the same size and seed.
 *   --names     vocabulary size (default 300000 frame names)
 *   --depth     median stack depth (default 16)
 *   --real      real-shaped: deeper stacks (median 30) that branch rarely
 *               until near their end, then fan out into many leaves, so
 *               that a line adds about one node, as in profiles collapsed
 *               from real programs (gcc, clang: a node per 400-700 bytes),
 *               where the default adds about 3.3 (a node per 60 bytes)
 *   --stats     print lines, bytes, unique names and depth statistics to stderr
 *
 * How it works. A synthetic call graph over a vocabulary of frame names: the
 * callees of function f are callee(f, 0), callee(f, 1), ..., each a Zipf draw
 * over the vocabulary taken from a hash of (f, i), so a function has the same
 * callees wherever it appears and common paths recur. Frequent names are short
 * (main, malloc, read_[k]); rare ones are long C++ templates, Rust trait impls,
 * Java and Go names. The profile is a call tree generated top-down: each node
 * gets a budget of lines and splits it among a few callees (skewed), or passes
 * it to one callee (wrapper chains), so that leaves land near a per-subtree
 * target depth (lognormal, mostly 10-60, up to 200). A few subtrees contain a
 * ~2000-deep recursion. The tree is emitted depth-first with siblings ordered
 * by their line keys ("name;" for a subtree, "name COUNT" for a stack ending
 * there), which is exactly byte-wise line order, so no sort is needed.
 * --shuffled keeps the lines in memory (about the target size) and permutes them.
 *
 * C11 and libc only: cc -std=c11 -O2 -o genfolded genfolded.c -lm
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static double normal(void)
{
	double u = unif(), v = unif();
	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* ---- output ------------------------------------------------------------ */

static uint64_t target, out_bytes, out_lines;
static int done;
static int shuffled;
static int real;                /* --real */
static char *mem;               /* --shuffled: all lines */
static uint64_t *line_off;      /* --shuffled: start of each line in mem */
static size_t line_cap;
static char obuf[1 << 22];
static size_t olen;

static void die(const char *msg)
{
	fprintf(stderr, "genfolded: %s\n", msg);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static void oflush(void)
{
	if (olen && fwrite(obuf, 1, olen, stdout) != olen)
		die(strerror(errno));
	olen = 0;
}

static void owrite(const char *p, size_t n)
{
	if (olen + n > sizeof obuf) {
		oflush();
		if (n > sizeof obuf) {
			if (fwrite(p, 1, n, stdout) != n)
				die(strerror(errno));
			return;
		}
	}
	memcpy(obuf + olen, p, n);
	olen += n;
}

/* ---- statistics -------------------------------------------------------- */

#define DEPTH_HIST 4096
static uint64_t depth_hist[DEPTH_HIST];
static uint8_t *name_seen;
static double sum_depth;

/* ---- vocabulary ---------------------------------------------------------- */

static uint32_t nnames = 300000;
static char *pool;
static size_t pool_len, pool_cap;
static uint32_t *name_off;
static uint16_t *name_len;

static const char *const words[] = {
	"read", "write", "open", "close", "send", "recv", "poll", "wait", "run", "exec",
	"init", "fini", "alloc", "free", "copy", "move", "hash", "find", "insert",
	"erase", "lookup", "update", "flush", "sync", "lock", "unlock", "parse",
	"scan", "emit", "encode", "decode", "compress", "inflate", "deflate", "sort",
	"merge", "split", "join", "filter", "map", "reduce", "fold", "walk", "visit",
	"eval", "apply", "call", "invoke", "dispatch", "handle", "process", "render",
	"draw", "layout", "paint", "compute", "resolve", "load", "store", "fetch",
	"commit", "rollback", "replay", "log", "trace", "print", "format", "check",
	"verify", "validate", "push", "pop", "peek", "next", "prev", "step", "tick",
	"schedule", "yield", "wake", "sleep", "spin", "signal", "notify", "grow",
	"shrink", "reserve", "resize", "clear", "reset", "build", "compile", "link",
	"optimize", "lower", "emit", "select", "index", "query", "plan", "probe",
	"buffer", "node", "tree", "list", "queue", "stack", "heap", "page", "block",
	"chunk", "slab", "cache", "table", "entry", "item", "key", "value", "record",
	"row", "column", "batch", "frame", "packet", "socket", "conn", "request",
	"response", "header", "body", "stream", "file", "inode", "dentry", "path",
	"string", "token", "symbol", "expr", "stmt", "type", "scope", "module",
	"context", "session", "worker", "thread", "task", "event", "timer", "loop",
	"channel", "mutex", "cond", "futex", "epoll", "pipe", "region", "arena",
	"vector", "bitmap", "range", "span", "slice", "cursor", "iter", "state",
	"config", "option", "policy", "metric", "counter", "sample", "profile",
};
#define NWORDS (sizeof words / sizeof words[0])

static const char *const c_prefix[] = {
	"", "", "", "", "__", "_", "do_", "sys_", "ngx_http_", "pg_", "sqlite3", "xml",
	"ext4_", "tcp_", "vfs_", "ksys_", "mem", "str", "json_", "lua_", "luaV_",
	"zend_", "Py", "_Py", "uv_", "ev_", "curl_", "ssl_", "EVP_", "z_", "lzma_",
	"png_", "av_", "ff_", "g_", "gtk_", "v8_", "rb_", "mono_", "jni_",
};
static const char *const c_suffix[] = { ".isra.0", ".constprop.0", ".part.0", ".cold",
					 ".lto_priv.0", "_impl", "_slow", "_fast",
					 "_locked", "_nolock", "_internal", "_r" };
static const char *const ns_list[] = {
	"std", "std::__detail", "std::__cxx11", "boost", "boost::asio::detail", "absl",
	"folly", "llvm", "clang", "v8::internal", "mozilla", "mozilla::dom", "grpc_core",
	"tensorflow", "rocksdb", "leveldb", "Eigen::internal", "Qt", "webrtc",
	"(anonymous namespace)", "detail", "impl", "net", "base", "cc", "blink",
	"tflame::bench", "duckdb", "arrow::compute", "mysql", "envoy::Http",
};
static const char *const tmpl_args[] = {
	"int", "unsigned long", "char", "double", "bool", "void*",
	"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
	"std::allocator<char>", "std::shared_ptr<Node>", "std::unique_ptr<Buffer, std::default_delete<Buffer> >",
	"std::pair<int const, Value>", "std::vector<int, std::allocator<int> >",
	"long long", "float", "std::string_view", "Key", "Value", "T", "std::nullptr_t",
	"std::less<void>", "std::hash<std::string>", "std::function<void (int, int)>",
};
static const char *const cxx_args[] = {
	"()", "()", "(int)", "(unsigned long)", "(char const*)", "(void*)", "(int, int)",
	"(std::ostream&, Frame const&)", "(Node*, Node*)", "(std::string const&)",
	"(unsigned long, unsigned long)", "(double)", "(Context&)", "(Buffer&, unsigned long)",
	"(std::vector<int, std::allocator<int> > const&)", "(Request const&, Response*)",
};
static const char *const rust_crates[] = {
	"core", "alloc", "std", "tokio", "hyper", "serde_json", "regex", "rayon_core",
	"hashbrown", "crossbeam_epoch", "futures_util", "mio", "h2", "tracing", "bytes",
	"syn", "rustc_middle", "rustc_mir_transform", "cranelift_codegen", "tflame_bench",
};
static const char *const rust_types[] = {
	"Vec<T>", "Vec<u8>", "String", "Box<dyn core::any::Any + Send>", "HashMap<K,V,S>",
	"Arc<T>", "Rc<RefCell<Node>>", "Option<T>", "Result<T,E>", "&mut [u8]",
	"RawTable<T,A>", "Pin<&mut F>", "BTreeMap<K,V>", "Cow<str>", "Slab<T>",
};
static const char *const rust_traits[] = {
	"core::ops::drop::Drop>::drop", "core::iter::traits::iterator::Iterator>::next",
	"core::clone::Clone>::clone", "core::fmt::Display>::fmt", "core::fmt::Debug>::fmt",
	"core::future::future::Future>::poll", "serde::de::Deserialize>::deserialize",
	"core::hash::Hash>::hash", "core::ops::function::FnOnce<()>>::call_once",
	"alloc::borrow::ToOwned>::to_owned", "core::cmp::PartialEq>::eq",
	"std::io::Write>::write_all", "core::ops::index::Index<usize>>::index",
};
static const char *const common_names[] = {
	"main", "malloc", "free", "memcpy", "memset", "read", "write", "poll", "run",
	"start", "_start", "clone3", "strlen", "memcmp", "realloc", "calloc",
	"[unknown]", "schedule_[k]", "syscall", "futex_[k]", "ioctl", "epoll_wait",
	"__libc_start_main", "start_thread", "[libc.so.6]", "do_syscall_64_[k]",
	"page_fault_[k]", "mmap", "__memmove_avx_unaligned_erms", "_int_malloc",
	"operator new(unsigned long)", "Interpreter_[j]", "runtime.mallocgc",
	"_PyEval_EvalFrameDefault", "pthread_mutex_lock", "cfree", "__GI___libc_write",
	"memchr", "qsort", "bsearch", "fwrite", "vfprintf", "fputs", "getc", "nanosleep",
	"[vdso]", "__clock_gettime", "entry_SYSCALL_64_after_hwframe_[k]",
};
#define NCOMMON (sizeof common_names / sizeof common_names[0])

static const char *const comms[] = {
	"mysqld", "java", "node", "python3", "nginx", "postgres", "Web Content", "chrome",
	"V8 WorkerThread", "envoy", "redis-server", "rustc", "cc1plus", "clickhouse-serv",
	"kworker/u16:2", "swapper", "ksoftirqd/3", "dockerd", "containerd-shim", "qemu-system-x86",
	"ffmpeg", "gst-launch-1.0", "tflame-bench", "grpc_global_tim", "tokio-runtime-w",
	"ThreadPoolForeg", "JIT Compiler", "GC Thread#0", "C2 CompilerThre", "pool-1-thread-1",
	"db_bench", "memcached", "haproxy", "varnishd", "beam.smp", "dotnet", "ruby", "php-fpm",
};
#define NCOMMS (sizeof comms / sizeof comms[0])

/* Where threads start: the second frame of every stack. */
static const char *const entries[] = {
	"_start", "start_thread", "clone3", "clone", "[unknown]", "__libc_start_main",
	"thread_start", "runtime.goexit.abi0", "ret_from_fork_asm_[k]",
	"secondary_startup_64_no_verify_[k]", "java_start(Thread*)",
	"std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(), ()> > >::_M_run()",
	"std::sys::pal::unix::thread::Thread::new::thread_start", "__clone_internal",
};
#define NENTRIES (sizeof entries / sizeof entries[0])
#define NEXTRA (NCOMMS + NENTRIES) /* ids after the vocabulary */

/* Names are built into a small buffer with these helpers. */
struct sb {
	char b[1024];
	size_t n;
};

static void sb_put(struct sb *s, const char *p)
{
	size_t l = strlen(p);
	if (s->n + l >= sizeof s->b - 1)
		l = sizeof s->b - 1 - s->n;
	memcpy(s->b + s->n, p, l);
	s->n += l;
	s->b[s->n] = 0;
}

static const char *pick(const char *const *list, size_t n)
{
	return list[below((uint32_t)n)];
}
#define PICK(a) pick(a, sizeof a / sizeof a[0])

static void camel(struct sb *s, int nw)
{
	for (int i = 0; i < nw; i++) {
		const char *w = words[below(NWORDS)];
		char c[2] = { (char)(w[0] - 'a' + 'A'), 0 };
		sb_put(s, c);
		sb_put(s, w + 1);
	}
}

static void snake(struct sb *s, int nw)
{
	for (int i = 0; i < nw; i++) {
		if (i)
			sb_put(s, "_");
		sb_put(s, words[below(NWORDS)]);
	}
}

static void name_c(struct sb *s, int tier)
{
	if (tier >= 2 && below(2))
		sb_put(s, PICK(c_prefix));
	snake(s, tier == 1 ? 1 + (below(4) == 0) : tier == 2 ? 2 : 2 + (int)below(2));
	if (tier >= 2 && below(8) == 0)
		sb_put(s, PICK(c_suffix));
	if (below(8) == 0)
		sb_put(s, "_[k]"); /* kernel frame, as collapsers annotate them */
}

static void name_cxx(struct sb *s, int tier)
{
	int r = (int)below(10);
	if (r == 0) { /* operator<< for a user type */
		sb_put(s, "std::ostream& operator<< <char, std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, ");
		camel(s, 1 + (int)below(2));
		sb_put(s, " const&)");
		return;
	}
	sb_put(s, PICK(ns_list));
	sb_put(s, "::");
	if (tier >= 3 && below(3) == 0) {
		sb_put(s, PICK(ns_list));
		sb_put(s, "::");
	}
	camel(s, 1 + (int)below(2));
	if (tier >= 3 && below(2) == 0) { /* template class */
		sb_put(s, "<");
		int na = 1 + (int)below(3);
		for (int i = 0; i < na; i++) {
			if (i)
				sb_put(s, ", ");
			sb_put(s, PICK(tmpl_args));
		}
		sb_put(s, ">");
	}
	sb_put(s, "::");
	if (r == 1) {
		sb_put(s, "operator()");
	} else if (r == 2) {
		sb_put(s, "operator==");
	} else {
		const char *w = words[below(NWORDS)];
		sb_put(s, w);
		if (below(2)) {
			char c[2] = { (char)(words[below(NWORDS)][0] - 'a' + 'A'), 0 };
			sb_put(s, c);
			sb_put(s, words[below(NWORDS)] + 1);
		}
	}
	if (r == 3) {
		sb_put(s, "(int)::{lambda(int)#1}::operator()");
	}
	sb_put(s, PICK(cxx_args));
	if (below(3) == 0)
		sb_put(s, " const");
}

static void name_rust(struct sb *s, int tier)
{
	int r = (int)below(5);
	if (r == 0 && tier >= 3) {
		sb_put(s, "<");
		sb_put(s, PICK(rust_crates));
		sb_put(s, "::");
		snake(s, 1);
		sb_put(s, "::");
		sb_put(s, PICK(rust_types));
		sb_put(s, " as ");
		sb_put(s, PICK(rust_traits));
		return;
	}
	if (r == 1 && tier >= 3) {
		sb_put(s, "core::ptr::drop_in_place<");
		sb_put(s, PICK(rust_crates));
		sb_put(s, "::");
		snake(s, 1);
		sb_put(s, "::");
		camel(s, 1 + (int)below(2));
		sb_put(s, ">");
		return;
	}
	sb_put(s, PICK(rust_crates));
	sb_put(s, "::");
	snake(s, 1);
	sb_put(s, "::");
	if (below(2)) {
		camel(s, 1 + (int)below(2));
		sb_put(s, "::");
	}
	snake(s, 1 + (int)below(2));
	if (below(5) == 0)
		sb_put(s, "::{{closure}}");
}

static void name_java(struct sb *s)
{
	/* async-profiler style; perf-map-agent's "Lpkg/Cls;::m" would put a ';'
	 * into the frame, which the folded format cannot carry */
	static const char *const pk[] = { "java/util/", "java/lang/", "org/apache/kafka/",
					  "io/netty/channel/", "com/example/service/",
					  "org/springframework/web/", "jdk/internal/misc/" };
	sb_put(s, PICK(pk));
	camel(s, 1 + (int)below(2));
	sb_put(s, ".");
	snake(s, 1);
	sb_put(s, "_[j]");
}

static void name_go(struct sb *s)
{
	static const char *const pk[] = { "runtime.", "net/http.", "github.com/org/svc/internal/",
					  "encoding/json.", "sync.", "google.golang.org/grpc.",
					  "main." };
	sb_put(s, PICK(pk));
	if (below(2)) {
		sb_put(s, "(*");
		camel(s, 1 + (int)below(2));
		sb_put(s, ").");
	}
	camel(s, 1 + (int)below(2));
	if (below(6) == 0)
		sb_put(s, ".func1");
}

static void name_misc(struct sb *s)
{
	static const char *const libs[] = { "libc.so.6", "libstdc++.so.6.0.30", "libjvm.so",
					    "libpthread-2.31.so", "libcrypto.so.3", "libz.so.1.2.13",
					    "perf-4242.map", "libv8.so", "ld-linux-x86-64.so.2" };
	sb_put(s, "[");
	sb_put(s, PICK(libs));
	sb_put(s, "]");
}

/* A name may not be used if it contains ';' or a newline (impossible here),
 * starts or ends with whitespace, or ends in " <number>" (it would read as a
 * count column). */
static int name_ok(const char *p, size_t n)
{
	if (n == 0 || p[0] == ' ' || p[n - 1] == ' ')
		return 0;
	size_t i = n;
	while (i > 0 && ((p[i - 1] >= '0' && p[i - 1] <= '9') || p[i - 1] == '.'))
		i--;
	return !(i < n && i > 0 && p[i - 1] == ' ');
}

static uint32_t *set_slot;      /* rank+1 per slot, 0 = empty */
static uint32_t set_mask;

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
	return mix64(h);
}

/* The vocabulary rank of name (p,n), or UINT32_MAX. */
static uint32_t vocab_find(const char *p, size_t n)
{
	uint32_t j = (uint32_t)hash_bytes(p, n) & set_mask;
	while (set_slot[j]) {
		uint32_t o = set_slot[j] - 1;
		if (name_len[o] == n && memcmp(pool + name_off[o], p, n) == 0)
			return o;
		j = (j + 1) & set_mask;
	}
	return UINT32_MAX;
}

/* Insert name (p,n) as rank r unless it exists; returns 0 on duplicate. */
static int vocab_add(uint32_t r, const char *p, size_t n)
{
	uint64_t h = hash_bytes(p, n);
	uint32_t j = (uint32_t)h & set_mask;
	while (set_slot[j]) {
		uint32_t o = set_slot[j] - 1;
		if (name_len[o] == n && memcmp(pool + name_off[o], p, n) == 0)
			return 0;
		j = (j + 1) & set_mask;
	}
	if (pool_len + n > pool_cap) {
		pool_cap = (pool_cap + n) * 2;
		pool = xrealloc(pool, pool_cap);
	}
	memcpy(pool + pool_len, p, n);
	name_off[r] = (uint32_t)pool_len;
	name_len[r] = (uint16_t)n;
	pool_len += n;
	set_slot[j] = r + 1;
	return 1;
}

static void vocab_build(void)
{
	name_off = xrealloc(NULL, sizeof *name_off * (nnames + NEXTRA));
	name_len = xrealloc(NULL, sizeof *name_len * (nnames + NEXTRA));
	uint32_t slots = 1;
	while (slots < 2 * (nnames + NEXTRA))
		slots *= 2;
	set_slot = calloc(slots, sizeof *set_slot);
	if (!set_slot)
		die("out of memory");
	set_mask = slots - 1;
	for (uint32_t r = 0; r < nnames; r++) {
		struct sb s;
		int tier = r < 3000 ? 1 : r < 30000 ? 2 : 3;
		for (int attempt = 0;; attempt++) {
			s.n = 0;
			s.b[0] = 0;
			if (r < NCOMMON && attempt == 0) {
				sb_put(&s, common_names[r]);
			} else if (attempt >= 8) {
				char tag[24];
				snprintf(tag, sizeof tag, "_%u", (unsigned)r);
				snake(&s, 2);
				sb_put(&s, tag);
			} else {
				uint32_t style = below(100);
				if (tier == 1)
					name_c(&s, 1);
				else if (style < (tier == 2 ? 60u : 55u))
					name_c(&s, tier);
				else if (style < (tier == 2 ? 75u : 73u))
					name_cxx(&s, tier);
				else if (style < (tier == 2 ? 85u : 85u))
					name_rust(&s, tier);
				else if (style < 92)
					name_go(&s);
				else if (style < 97)
					name_java(&s);
				else
					name_misc(&s);
			}
			if (name_ok(s.b, s.n) && vocab_add(r, s.b, s.n))
				break;
		}
	}
	/* process names and thread entries are ids of their own; they may
	 * equal vocabulary names */
	for (uint32_t c = 0; c < NEXTRA; c++) {
		const char *x = c < NCOMMS ? comms[c] : entries[c - NCOMMS];
		size_t n = strlen(x);
		if (pool_len + n > pool_cap) {
			pool_cap = (pool_cap + n) * 2;
			pool = xrealloc(pool, pool_cap);
		}
		memcpy(pool + pool_len, x, n);
		name_off[nnames + c] = (uint32_t)pool_len;
		name_len[nnames + c] = (uint16_t)n;
		pool_len += n;
	}
}

/* ---- Zipf sampling over the vocabulary (Walker alias table) ------------ */

static uint32_t *alias_idx;
static uint32_t *alias_prob; /* threshold scaled to 2^32 */

static void alias_build(double s)
{
	uint32_t n = nnames;
	double *p = xrealloc(NULL, sizeof *p * n), sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += p[i] = pow(i + 1.0, -s);
	uint32_t *small = xrealloc(NULL, sizeof *small * n), *large = xrealloc(NULL, sizeof *large * n);
	uint32_t ns = 0, nl = 0;
	alias_idx = xrealloc(NULL, sizeof *alias_idx * n);
	alias_prob = xrealloc(NULL, sizeof *alias_prob * n);
	for (uint32_t i = 0; i < n; i++) {
		p[i] = p[i] * n / sum;
		if (p[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		uint32_t a = small[--ns], b = large[nl - 1];
		alias_prob[a] = (uint32_t)(p[a] * 4294967295.0);
		alias_idx[a] = b;
		p[b] -= 1 - p[a];
		if (p[b] < 1) {
			nl--;
			small[ns++] = b;
		}
	}
	while (nl) {
		uint32_t b = large[--nl];
		alias_prob[b] = UINT32_MAX;
		alias_idx[b] = b;
	}
	while (ns) {
		uint32_t a = small[--ns];
		alias_prob[a] = UINT32_MAX;
		alias_idx[a] = a;
	}
	free(p);
	free(small);
	free(large);
}

static inline uint32_t zipf_from_hash(uint64_t h)
{
	uint32_t i = (uint32_t)(((h & 0xffffffffu) * (uint64_t)nnames) >> 32);
	return (uint32_t)(h >> 32) <= alias_prob[i] ? i : alias_idx[i];
}

static uint64_t graph_seed;

/* The i-th callee of function f; never f itself. */
static inline uint32_t callee(uint32_t f, uint32_t i)
{
	uint64_t h = graph_seed ^ ((uint64_t)f << 24) ^ ((uint64_t)i * 0x9e3779b97f4a7c15u);
	for (;;) {
		h = mix64(h);
		uint32_t c = zipf_from_hash(h);
		if (c != f)
			return c;
	}
}

/* ---- tree generation ------------------------------------------------------ */

static char *path;              /* "comm;f1;f2..." */
static size_t path_len, path_cap;
static int path_depth;          /* frames in path */
static double depth_median = 11, depth_sigma = 0.55, zipf_s = 1.15;
static uint32_t *stamp;         /* per name: last node that picked it as a child */
static uint32_t stamp_now;

static void path_push(uint32_t name)
{
	size_t n = name_len[name];
	if (path_len + n + 2 > path_cap) {
		path_cap = (path_len + n + 2) * 2;
		path = xrealloc(path, path_cap);
	}
	if (path_len)
		path[path_len++] = ';';
	memcpy(path + path_len, pool + name_off[name], n);
	path_len += n;
	path_depth++;
	name_seen[name] = 1;
}

static void path_pop(size_t len, int depth)
{
	path_len = len;
	path_depth = depth;
}

static int draw_depth(void)
{
	double d;
	if (below(1000) < 10)
		d = 60 + below(141); /* the long tail, up to 200 */
	else
		d = depth_median * exp(depth_sigma * normal());
	if (d < 3)
		d = 3;
	if (d > 200)
		d = 200;
	return (int)d;
}

static uint32_t draw_count(void)
{
	double u = unif();
	return (uint32_t)exp(log(1001.0) * u * u * u); /* 1..1000, mostly small */
}

/* Emit "path;name COUNT\n" (name == UINT32_MAX: "path COUNT\n"). */
static void emit(uint32_t name, const char *count, size_t clen)
{
	size_t n = path_len + 1 + clen + 1;
	if (name != UINT32_MAX)
		n += 1 + name_len[name];
	if (out_bytes + n > target) {
		done = 1;
		return;
	}
	char *dst;
	char tmp[256];
	int big = n > sizeof tmp;
	if (shuffled) {
		if (out_lines == line_cap) {
			line_cap = line_cap ? line_cap * 2 : 1 << 20;
			line_off = xrealloc(line_off, sizeof *line_off * line_cap);
		}
		line_off[out_lines] = out_bytes;
		dst = mem + out_bytes;
	} else {
		dst = big ? xrealloc(NULL, n) : tmp;
	}
	char *q = dst;
	memcpy(q, path, path_len);
	q += path_len;
	int depth = path_depth;
	if (name != UINT32_MAX) {
		*q++ = ';';
		memcpy(q, pool + name_off[name], name_len[name]);
		q += name_len[name];
		depth++;
		name_seen[name] = 1;
	}
	*q++ = ' ';
	memcpy(q, count, clen);
	q += clen;
	*q++ = '\n';
	if (!shuffled) {
		owrite(dst, n);
		if (big)
			free(dst);
	}
	out_bytes += n;
	out_lines++;
	depth_hist[depth < DEPTH_HIST ? depth : DEPTH_HIST - 1]++;
	sum_depth += depth;
}

struct ent {
	uint32_t name;
	uint32_t own;           /* 1: the stack ends at this child; count in key */
	uint64_t lines;         /* own == 0: lines below this child */
	int tdepth;             /* own == 0: target depth below */
	int deep;               /* own == 0: carries a deep recursion */
	uint32_t koff, klen;    /* key in the level's key buffer */
};

struct level {
	struct ent *e;
	size_t ecap;
	char *k;
	size_t kcap;
	uint64_t *w;
	size_t wcap;
};

static struct level *levels;
static int nlevels;
static const char *cmp_keys;

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	uint32_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(cmp_keys + x->koff, cmp_keys + y->koff, n);
	if (c)
		return c;
	return x->klen < y->klen ? -1 : x->klen > y->klen;
}

static struct level *level_get(int lv)
{
	if (lv >= nlevels) {
		int nn = lv * 2 + 16;
		levels = xrealloc(levels, sizeof *levels * nn);
		memset(levels + nlevels, 0, sizeof *levels * (nn - nlevels));
		nlevels = nn;
	}
	return &levels[lv];
}

static int ndeep_left;
static uint64_t deep_frames_max;

static void gen_below(uint32_t f, uint64_t L, int T, int deep, int lv);

/* A recursion of about 2000 frames (a cycle of 1-3 functions), then the
 * L lines of the subtree below it. */
static void gen_deep(uint32_t f, uint64_t L, int lv)
{
	uint32_t cyc[3];
	int m = 1 + (int)below(3);
	cyc[0] = callee(f, 7);
	for (int i = 1; i < m; i++) {
		cyc[i] = callee(cyc[i - 1], 0);
		if (cyc[i] == cyc[0])
			m = i;
	}
	int R = 1800 + (int)below(500);
	size_t save_len = path_len;
	int save_depth = path_depth;
	for (int i = 0; i < R; i++)
		path_push(cyc[i % m]);
	if ((uint64_t)path_depth > deep_frames_max)
		deep_frames_max = (uint64_t)path_depth;
	gen_below(cyc[(R - 1) % m], L, path_depth + 4 + (int)below(20), 0, lv + 1);
	path_pop(save_len, save_depth);
	ndeep_left--;
}

static uint32_t draw_k(uint64_t L)
{
	/* power law P(k) ~ k^-2.2 from 2, capped at L and 4000 */
	double k = 2.0 * pow(1.0 - unif(), -1.0 / 1.2);
	uint64_t kk = k > 4000 ? 4000 : (uint64_t)k;
	if (kk > L)
		kk = L;
	return (uint32_t)kk;
}

/* Emit exactly L lines (fewer only when the size target is reached), each
 * strictly below the current path, whose last frame is function f. T is the
 * target depth of the lines; deep: put a deep recursion in this subtree. */
static void gen_below(uint32_t f, uint64_t L, int T, int deep, int lv)
{
	if (done || L == 0)
		return;
	if (deep && L <= 64) {
		gen_deep(f, L, lv);
		return;
	}
	int d = path_depth; /* children are at depth d+1 */
	uint32_t k = 1;
	if (real && L > 1) {
		/* chains with a rare small fork, then one wide fan-out */
		if (d + 2 >= T)
			k = L < 4000 ? (uint32_t)L : 4000;
		else if (below(100) < 6)
			k = 2 + below(3);
		if (k > L)
			k = (uint32_t)L;
		if (deep && k > L / 2)
			k = (uint32_t)(L / 2);
		if (k == 0)
			k = 1;
	} else if (L > 1) {
		double r = T - d, b = log((double)L) / log(3.0);
		double pb = r > b ? b / r : 1.0;
		if (pb < 0.08)
			pb = 0.08;
		if (unif() < pb)
			k = draw_k(L);
		if (deep && k > L / 2)
			k = (uint32_t)(L / 2); /* leave room for the deep child */
	}
	struct level *lev = level_get(lv);
	if (lev->ecap < 3 * (size_t)k) { /* k picks, then up to 2 entries each */
		lev->ecap = 6 * (size_t)k;
		lev->e = xrealloc(lev->e, sizeof *lev->e * lev->ecap);
		lev->w = xrealloc(lev->w, sizeof *lev->w * lev->ecap);
	}
	/* choose k distinct callees; low callee indices are the likely ones */
	if (++stamp_now == 0) {
		memset(stamp, 0, sizeof *stamp * (nnames + NEXTRA));
		stamp_now = 1;
	}
	uint32_t got = 0, span = k * 3 + 8, tries = 0;
	while (got < k && tries < k * 8 + 32) {
		uint32_t i = (uint32_t)(span * pow(unif(), 1.5)) + (tries > k * 4 ? tries : 0);
		uint32_t c = callee(f, i);
		tries++;
		if (stamp[c] == stamp_now)
			continue;
		stamp[c] = stamp_now;
		lev->e[got++].name = c;
	}
	k = got;
	/* split L among them: lognormal weights, at least one line each */
	uint64_t *w = lev->w;
	if (k == 1) {
		w[0] = L;
	} else {
		double ws[64], wsum = 0, *wp = k <= 64 ? ws : xrealloc(NULL, sizeof *wp * k);
		for (uint32_t j = 0; j < k; j++)
			wsum += wp[j] = exp(1.0 * normal());
		uint64_t rest = L - k, given = 0;
		for (uint32_t j = 0; j < k; j++) {
			w[j] = 1 + (uint64_t)(rest * (wp[j] / wsum));
			given += w[j];
		}
		while (given < L) { /* rounding leftovers */
			w[below(k)]++;
			given++;
		}
		if (wp != ws)
			free(wp);
	}
	/* the deep recursion goes to the child with the most lines */
	uint32_t jdeep = UINT32_MAX;
	if (deep) {
		jdeep = 0;
		for (uint32_t j = 1; j < k; j++)
			if (w[j] > w[jdeep])
				jdeep = j;
	}
	/* entries: a stack ending at the child (own), a subtree below it, or both */
	size_t kl = 0;
	uint32_t ne = 0;
	for (uint32_t j = 0; j < k; j++) {
		uint32_t c = lev->e[j].name;
		uint64_t Lc = w[j];
		int Tc = T;
		if (k > 1 && !real) { /* siblings vary; chains keep their target */
			uint32_t x = below(10);
			if (x < 2)
				Tc = draw_depth();
			else if (x < 4)
				Tc = T - 2 + (int)below(5);
			if (Lc == 1)
				Tc += (int)below(7) - 3;
		}
		int own;
		if (j == jdeep)
			own = 0;
		else if (Lc == 1) {
			own = d + 1 >= Tc || (real && k > 8);
		} else {
			own = below(5) == 0;
		}
		size_t need = kl + 2 * (size_t)name_len[c] + 32; /* own key and subtree key */
		if (need > lev->kcap) {
			lev->kcap = need * 2;
			lev->k = xrealloc(lev->k, lev->kcap);
		}
		if (own) {
			struct ent *e = &lev->e[k + ne++];
			e->name = c;
			e->own = 1;
			e->koff = (uint32_t)kl;
			memcpy(lev->k + kl, pool + name_off[c], name_len[c]);
			kl += name_len[c];
			lev->k[kl++] = ' ';
			kl += (size_t)sprintf(lev->k + kl, "%u", draw_count());
			e->klen = (uint32_t)(kl - e->koff);
			Lc--;
		}
		if (Lc) {
			struct ent *e = &lev->e[k + ne++];
			e->name = c;
			e->own = 0;
			e->lines = Lc;
			e->tdepth = Tc;
			e->deep = j == jdeep;
			e->koff = (uint32_t)kl;
			memcpy(lev->k + kl, pool + name_off[c], name_len[c]);
			kl += name_len[c];
			lev->k[kl++] = ';';
			e->klen = (uint32_t)(kl - e->koff);
		}
	}
	struct ent *es = lev->e + k;
	if (ne > 1) {
		cmp_keys = lev->k;
		qsort(es, ne, sizeof *es, ent_cmp);
	}
	size_t save_len = path_len;
	int save_depth = path_depth;
	for (uint32_t j = 0; j < ne && !done; j++) {
		/* lev may move when deeper levels grow the array: re-read it */
		struct ent e = levels[lv].e[k + j];
		if (e.own) {
			const char *key = levels[lv].k + e.koff;
			size_t nl = name_len[e.name];
			emit(e.name, key + nl + 1, e.klen - nl - 1);
		} else {
			path_push(e.name);
			gen_below(e.name, e.lines, e.tdepth, e.deep, lv + 1);
			path_pop(save_len, save_depth);
		}
	}
}

/* Top level: processes (comm), each with a few entry functions. Each
 * (comm, entry) unit gets its share of the lines still to be written,
 * estimated from the average line length so far. */
struct unit {
	uint32_t comm, entry;
	double w;
	int deep;
};

static int unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	/* keys "comm;" then "entry;": compare the names with ';' appended */
	for (int pass = 0; pass < 2; pass++) {
		uint32_t p = pass ? x->entry : x->comm, q = pass ? y->entry : y->comm;
		if (p == q)
			continue;
		size_t n = name_len[p] < name_len[q] ? name_len[p] : name_len[q];
		int c = memcmp(pool + name_off[p], pool + name_off[q], n);
		if (c)
			return c;
		unsigned char a1 = name_len[p] > n ? (unsigned char)pool[name_off[p] + n] : ';';
		unsigned char b1 = name_len[q] > n ? (unsigned char)pool[name_off[q] + n] : ';';
		return a1 < b1 ? -1 : 1;
	}
	return 0;
}

static void generate(void)
{
	struct unit *u = NULL;
	size_t nu = 0, cap = 0;
	double wsum = 0;
	for (uint32_t c = 0; c < NCOMMS; c++) {
		double wc = pow(1.0 + below(NCOMMS), -1.1);
		uint32_t ne = 1 + (below(3) ? below(3) : below(NENTRIES));
		if (++stamp_now == 0)
			stamp_now = 1;
		for (uint32_t j = 0; j < ne;) {
			uint32_t e = nnames + NCOMMS + (below(3) ? below(4) : below(NENTRIES));
			if (stamp[e] == stamp_now)
				continue;
			stamp[e] = stamp_now;
			if (nu == cap) {
				cap = cap ? cap * 2 : 64;
				u = xrealloc(u, sizeof *u * cap);
			}
			u[nu].comm = nnames + c;
			u[nu].entry = e;
			u[nu].w = wc * exp(normal());
			u[nu].deep = 0;
			wsum += u[nu].w;
			nu++;
			j++;
		}
	}
	qsort(u, nu, sizeof *u, unit_cmp);
	/* deep recursions: about one per 400 MiB, never in the last units
	 * (the size cap may cut those short) */
	ndeep_left = 1 + (int)(target >> 20) / 400;
	for (int i = 0; i < ndeep_left; i++)
		u[below((uint32_t)(nu * 8 / 10))].deep = 1;
	double wleft = wsum;
	for (size_t i = 0; i < nu && !done; i++) {
		double est = out_lines > 20000 ? (double)out_bytes / out_lines : 200.0;
		double rem = (double)(target - out_bytes);
		double L = u[i].w / wleft * rem / est;
		if (i == nu - 1)
			L *= 1.2; /* fill up to the cap */
		wleft -= u[i].w;
		if (L < 1)
			L = 1;
		path_pop(0, 0);
		path_push(u[i].comm);
		path_push(u[i].entry);
		gen_below(u[i].entry, (uint64_t)L, draw_depth(), u[i].deep, 0);
	}
	free(u);
}

/* ---- main ------------------------------------------------------------------ */

static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t mul = 1 << 20;
	if (*end == 'K' || *end == 'k')
		mul = 1 << 10;
	else if (*end == 'G' || *end == 'g')
		mul = 1 << 30;
	else if (*end == 'B' || *end == 'b')
		mul = 1;
	if (end == s || v <= 0)
		die("bad --size");
	return (uint64_t)(v * mul);
}

static void usage(void)
{
	fputs("usage: genfolded [--size N[K|M|G]] [--seed N] [--shuffled] [--names N]\n"
	      "                 [--depth MEDIAN] [--real] [--stats] > FILE\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	int stats = 0;
	target = 64u << 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--shuffled"))
			shuffled = 1;
		else if (!strcmp(a, "--real"))
			real = 1, depth_median = 36, depth_sigma = 0.3;
		else if (!strcmp(a, "--stats"))
			stats = 1;
		else if (!strcmp(a, "--size") && v)
			target = parse_size(v), i++;
		else if (!strcmp(a, "--seed") && v)
			seed = strtoull(v, NULL, 0), i++;
		else if (!strcmp(a, "--names") && v)
			nnames = (uint32_t)strtoul(v, NULL, 0), i++;
		else if (!strcmp(a, "--zipf") && v)
			zipf_s = strtod(v, NULL), i++;
		else if (!strcmp(a, "--depth") && v)
			depth_median = strtod(v, NULL), i++;
		else
			usage();
	}
	if (nnames < 1000)
		nnames = 1000;
	if (depth_median < 2)
		depth_median = 2;

	rng_seed(seed);
	graph_seed = rng();
	vocab_build();
	alias_build(zipf_s);
	stamp = calloc(nnames + NEXTRA, sizeof *stamp);
	name_seen = calloc(nnames + NEXTRA, 1);
	if (!stamp || !name_seen)
		die("out of memory");
	if (shuffled) {
		mem = malloc(target);
		if (!mem)
			die("out of memory");
	}

	generate();

	if (shuffled) {
		for (uint64_t i = out_lines; i > 1; i--) {
			uint64_t j = (uint64_t)(unif() * i);
			uint64_t t = line_off[i - 1];
			line_off[i - 1] = line_off[j];
			line_off[j] = t;
		}
		for (uint64_t i = 0; i < out_lines; i++) {
			const char *p = mem + line_off[i];
			const char *e = memchr(p, '\n', out_bytes - line_off[i]);
			owrite(p, (size_t)(e - p) + 1);
		}
	}
	oflush();
	if (fflush(stdout) != 0)
		die(strerror(errno));

	if (stats) {
		uint64_t uniq = 0, acc = 0;
		int p50 = 0, p90 = 0, p99 = 0, maxd = 0, mind = -1;
		for (uint32_t i = 0; i < nnames + NEXTRA; i++) {
			if (!name_seen[i])
				continue;
			uint32_t v = i < nnames ? i : vocab_find(pool + name_off[i], name_len[i]);
			uniq += v == i || v == UINT32_MAX || !name_seen[v];
		}
		for (int dd = 0; dd < DEPTH_HIST; dd++) {
			if (!depth_hist[dd])
				continue;
			if (mind < 0)
				mind = dd;
			maxd = dd;
			acc += depth_hist[dd];
			if (!p50 && acc * 2 >= out_lines)
				p50 = dd;
			if (!p90 && acc * 10 >= out_lines * 9)
				p90 = dd;
			if (!p99 && acc * 100 >= out_lines * 99)
				p99 = dd;
		}
		uint64_t in1060 = 0, over200 = 0;
		for (int dd = 10; dd <= 60; dd++)
			in1060 += depth_hist[dd];
		for (int dd = 201; dd < DEPTH_HIST; dd++)
			over200 += depth_hist[dd];
		fprintf(stderr,
			"genfolded: bytes %llu lines %llu (%.2fM lines/GiB, %.0f B/line) unique-names %llu\n"
			"genfolded: depth min %d p50 %d mean %.1f p90 %d p99 %d max %d; "
			"10-60: %.1f%%; lines deeper than 200: %llu (deepest recursion %llu frames)\n",
			(unsigned long long)out_bytes, (unsigned long long)out_lines,
			out_lines / ((double)out_bytes / (1 << 30)) / 1e6,
			(double)out_bytes / (out_lines ? out_lines : 1), (unsigned long long)uniq,
			mind, p50, sum_depth / (out_lines ? out_lines : 1), p90, p99,
			maxd >= DEPTH_HIST - 1 ? (int)deep_frames_max : maxd,
			100.0 * in1060 / (out_lines ? out_lines : 1), (unsigned long long)over200,
			(unsigned long long)deep_frames_max);
	}
	return 0;
}
