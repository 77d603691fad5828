/* perfdata: perf.data to stacks, resolved the way perf script 6.1 resolves
 * them (tools/perf/util/{session,ordered-events,machine,thread,map}.c were
 * read for the rules; no code comes from there).
 *
 * Flow: records are framed from the mapped file (or read from a stream),
 * compressed ones inflated, kernel records queued and handed on in time
 * order round by round as perf does (so COMM and MMAP records take effect
 * exactly where perf applies them), then SAMPLE records are resolved
 * against the thread's mappings and given to the perf script reader, whose
 * collapsing is the one text input gets. */
#include "config.h"
#include "perfdata.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "symbols.h"
#include "text.h"
#include "unwind.h"
#include "xalloc.h"

/* ---- the format's numbers (linux/perf_event.h, perf's header.h) -------- */

#define PD_MAGIC 0x32454c4946524550ULL          /* "PERFILE2" */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PD_FILE_HEADER 104
#define PD_PIPE_HEADER 16

enum {
	REC_MMAP = 1, REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4, REC_FORK = 7,
	REC_SAMPLE = 9, REC_MMAP2 = 10, REC_LOST_SAMPLES = 13, REC_KSYMBOL = 17,
	REC_KERNEL_MAX = 64,
	REC_HEADER_ATTR = 64, REC_HEADER_TRACING_DATA = 66, REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68, REC_AUXTRACE = 71, REC_EVENT_UPDATE = 78,
	REC_HEADER_FEATURE = 80, REC_COMPRESSED = 81
};

enum {
	S_IP = 1u << 0, S_TID = 1u << 1, S_TIME = 1u << 2, S_ADDR = 1u << 3,
	S_READ = 1u << 4, S_CALLCHAIN = 1u << 5, S_ID = 1u << 6, S_CPU = 1u << 7,
	S_PERIOD = 1u << 8, S_STREAM_ID = 1u << 9, S_RAW = 1u << 10,
	S_BRANCH_STACK = 1u << 11, S_REGS_USER = 1u << 12, S_STACK_USER = 1u << 13,
	S_WEIGHT = 1u << 14, S_DATA_SRC = 1u << 15, S_IDENTIFIER = 1u << 16,
	S_TRANSACTION = 1u << 17, S_REGS_INTR = 1u << 18, S_PHYS_ADDR = 1u << 19,
	S_AUX = 1u << 20, S_CGROUP = 1u << 21, S_DATA_PAGE_SIZE = 1u << 22,
	S_CODE_PAGE_SIZE = 1u << 23, S_WEIGHT_STRUCT = 1u << 24,
	S_KNOWN = (1u << 25) - 1
};

enum {
	RF_TOTAL_TIME_ENABLED = 1, RF_TOTAL_TIME_RUNNING = 2, RF_ID = 4,
	RF_GROUP = 8, RF_LOST = 16
};

#define MISC_CPUMODE_MASK 7
#define MISC_KERNEL 1
#define MISC_USER 2
#define MISC_HYPERVISOR 3
#define MISC_COMM_EXEC (1u << 13)
#define MISC_FORK_EXEC (1u << 13)
#define MISC_MMAP_DATA (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_BUILD_ID_SIZE (1u << 15)

#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)

#define BRANCH_HW_INDEX (1ull << 17)
#define BRANCH_CALL_STACK (1ull << 11)

/* perf script's --max-stack default (PERF_MAX_STACK_DEPTH): entries past
 * it are not printed, so they are not collapsed either. */
#define PD_MAX_STACK 127

enum {
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_ARCH = 6, FEAT_NRCPUS = 7,
	FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_COMPRESSED = 27, FEAT_MAX = 256
};

#define PROT_EXEC_BIT 4
#define MAP_HUGETLB_BIT 0x40000

/* ---- bounded reads ------------------------------------------------------ */

struct cur {
	const unsigned char *p, *end;
	bool bad;       /* a read went past end: every later read yields 0 */
};

static uint64_t get64(struct cur *c)
{
	uint64_t v = 0;
	if ((size_t)(c->end - c->p) < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static uint32_t get32(struct cur *c)
{
	uint32_t v = 0;
	if ((size_t)(c->end - c->p) < 4) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return v;
}

/* Skips n bytes; returns where they start (NULL when they are not all
 * there). */
static const unsigned char *skip(struct cur *c, uint64_t n)
{
	const unsigned char *at = c->p;
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return at;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* A NUL-terminated string inside p[0..n), copied (at most n bytes). */
static char *strndup_nul(const unsigned char *p, size_t n)
{
	size_t len = 0;
	while (len < n && p[len])
		len++;
	char *s = xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* ---- events (attributes) ------------------------------------------------ */

struct pd_attr {
	uint32_t type;
	uint64_t config, sample_period, sample_type, read_format, flags, branch_sample_type;
	uint64_t regs_user, regs_intr;
	unsigned nregs_user, nregs_intr;
	char *name;             /* as perf names it ("cpu-clock:ppp"); NULL
	                           until known */
};

#define ATTR_SAMPLE_ID_ALL (1ull << 18)

struct pd_id {
	uint64_t id;
	uint32_t attr;
};

/* ---- threads, mappings, objects ----------------------------------------- */

enum dso_kind { DSO_FILE, DSO_PERFMAP, DSO_KERNEL, DSO_VDSO, DSO_SINGLE };

struct pd_dso {
	char *name;             /* as perf script prints it */
	enum dso_kind kind;
	uint8_t bid[20];
	uint8_t bidlen;
	bool kernel;            /* perf script prints raw addresses */
	bool loaded;
	struct sym_dso *sd;
	uint64_t single_start, single_len;
	struct pd_dso *next;    /* hash chain */
};

struct pd_map {
	uint64_t start, end, pgoff;
	struct pd_dso *dso;
	bool identity;          /* anonymous (JIT) memory: addresses as is */
	bool exec;              /* mapped executable */
};

struct pd_maps {
	struct pd_map *m;       /* sorted by start, disjoint */
	size_t n, cap;
	unsigned refs;
	uint64_t generation;    /* a new value at every change */
	uint64_t layout;        /* a hash of the maps, computed at layout_gen */
	uint64_t layout_gen;
};

static uint64_t maps_generations;

struct pd_thread {
	int32_t pid, tid;
	bool comm_set;
	char *comm;
	struct pd_maps *maps;
	struct pd_thread *next; /* hash chain */
};

/* ---- the ordered queue --------------------------------------------------
 * perf script delivers kernel records sorted by time: at each
 * FINISHED_ROUND it hands on the queued records up to the newest time seen
 * at the previous round, and everything at the end. Records without a
 * time go at once. The queue copies records, so the input behind it can be
 * dropped. */
struct pd_qev {
	uint64_t time, seq;
	size_t off;             /* into buf, when copied */
	const unsigned char *ext;   /* the record in the mapped file, or NULL */
	uint32_t len;
};

struct pd_queue {
	struct pd_qev *ev;
	size_t n, cap;
	unsigned char *buf;
	size_t blen, bcap;
	uint64_t seq, max_time, next_flush;
};

/* Past this much queued data, the older half goes out without waiting for
 * a round (perf would queue on; a file without rounds would otherwise be
 * copied whole). */
#define PD_QUEUE_MAX ((size_t)256 << 20)

/* ---- the reader --------------------------------------------------------- */

struct pd {
	struct tree *t;
	struct perf_reader *pr;
	const struct perfdata_options *o;
	struct perfdata_info *info;
	void (*add)(void *, const char *);
	void *msgarg;
	const char *name;

	struct pd_attr *attrs;
	size_t nattr;
	struct pd_id *ids;
	size_t nids, idcap;
	bool ids_sorted;
	bool ordered;           /* every event has sample_id_all */

	struct pd_thread **threads;     /* hash by tid, chained */
	size_t nthreads, threadcap;     /* threadcap: a power of two */
	uint64_t map_entries;           /* of every process, live */
	uint64_t maps_dropped;
	struct pd_maps kmaps;   /* the kernel and its modules */
	struct pd_dso **dsos;   /* hash by name, chained */
	size_t ndsos, dsocap;   /* dsocap: a power of two */
	struct pd_dso *kdso;    /* [kernel.kallsyms] */
	struct symbols *sy;
	struct unwind *uw;
	char kref_name[64];     /* the kernel's reference symbol ("_text") */
	uint64_t kref_addr;     /* its address when recorded */
	bool kernel_checked;
	bool kallsyms_ok;       /* the recording is of this running kernel */
	bool kernel_bid_known;
	uint8_t kernel_bid[20];
	uint8_t kernel_bidlen;
	bool kernel_notice;

	/* build ids from the header, by path, for MMAP records without one */
	struct pd_bid { char *path; size_t order; uint8_t bid[20]; uint8_t len; } *bids;
	size_t nbids, bidcap;
	bool bids_sorted;

	struct pd_queue q;
	const unsigned char *map;   /* the mapped file: its records are queued
	                               by reference, not copied */
	size_t maplen;

#ifdef HAVE_ZSTD
	ZSTD_DStream *zs;
#endif
	unsigned char *zbuf;    /* inflated records not yet framed */
	size_t zlen, zcap;
	bool inflating;         /* records come from zbuf */

	/* frame text of the sample being resolved */
	char *fbuf;
	size_t fcap;

	/* counts */
	uint64_t samples, lost, unknown_types, bad_records, unknown_markers;
	uint64_t kernel_unresolved, unwind_failed;
	uint64_t first_bad_off;
	char first_bad[96];
	bool fatal;
	char arch[32];              /* HEADER_ARCH, "" when not said */
	char unsupported[160];      /* why this reader cannot read the file */
	bool checked;               /* pd_check has run */
};

static void pd_msg(struct pd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void pd_msg(struct pd *d, const char *fmt, ...)
{
	char body[512], line[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	snprintf(line, sizeof line, "tflame: %s: %s", d->name, body);
	d->add(d->msgarg, line);
}

static void pd_bad(struct pd *d, uint64_t off, const char *what)
{
	if (!d->bad_records++) {
		d->first_bad_off = off;
		snprintf(d->first_bad, sizeof d->first_bad, "%s", what);
	}
}

/* ---- attributes --------------------------------------------------------- */

static unsigned popcount64(uint64_t v)
{
	unsigned n = 0;
	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

/* Adds the attribute in p[0..n) (a perf_event_attr of its own size).
 * Returns its index, or SIZE_MAX when it is too short to use. */
static size_t pd_add_attr(struct pd *d, const unsigned char *p, size_t n)
{
	unsigned char a[128] = { 0 };
	uint32_t size;
	struct pd_attr *at;

	if (n < 64)
		return SIZE_MAX;
	size = rd32(p + 4);
	if (size == 0)
		size = 64;      /* PERF_ATTR_SIZE_VER0 */
	if (size > n)
		size = (uint32_t)n;
	memcpy(a, p, size < sizeof a ? size : sizeof a);
	d->attrs = xreallocarray(d->attrs, d->nattr + 1, sizeof *d->attrs);
	at = &d->attrs[d->nattr];
	memset(at, 0, sizeof *at);
	at->type = rd32(a);
	at->config = rd64(a + 8);
	at->sample_period = rd64(a + 16);
	at->sample_type = rd64(a + 24);
	at->read_format = rd64(a + 32);
	at->flags = rd64(a + 40);
	at->branch_sample_type = rd64(a + 72);
	at->regs_user = rd64(a + 80);
	at->regs_intr = rd64(a + 96);
	at->nregs_user = popcount64(at->regs_user);
	at->nregs_intr = popcount64(at->regs_intr);
	return d->nattr++;
}

static void pd_add_id(struct pd *d, uint64_t id, size_t attr)
{
	if (d->nids == d->idcap) {
		d->idcap = d->idcap ? d->idcap * 2 : 64;
		d->ids = xreallocarray(d->ids, d->idcap, sizeof *d->ids);
	}
	d->ids[d->nids].id = id;
	d->ids[d->nids].attr = (uint32_t)attr;
	d->nids++;
	d->ids_sorted = false;
}

static int cmp_id(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct pd_attr *pd_attr_by_id(struct pd *d, uint64_t id)
{
	size_t lo = 0, hi;

	if (!d->ids_sorted) {
		if (d->nids > 1)
			qsort(d->ids, d->nids, sizeof *d->ids, cmp_id);
		d->ids_sorted = true;
	}
	hi = d->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->nids && d->ids[lo].id == id)
		return &d->attrs[d->ids[lo].attr];
	return NULL;
}

/* The name perf gives an event it has no description of (evsel__name
 * without modifiers): enough for the event filter, which stops at ':'. */
static const char *pd_default_name(const struct pd_attr *a)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles"
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches"
	};
	if (a->type == 0 && a->config < sizeof hw / sizeof hw[0])
		return hw[a->config];
	if (a->type == 1 && a->config < sizeof sw / sizeof sw[0])
		return sw[a->config];
	return "unknown";
}

static const char *pd_attr_name(const struct pd_attr *a)
{
	return a->name ? a->name : pd_default_name(a);
}

/* ---- feature sections --------------------------------------------------- */

/* A perf header string: u32 length (with padding), then the bytes. */
static char *pd_string(struct cur *c)
{
	uint32_t len = get32(c);
	const unsigned char *p = skip(c, len);
	return p ? strndup_nul(p, len) : NULL;
}

static void pd_copy_str(char *dst, size_t n, const char *src)
{
	if (src)
		text_sanitize(src, strlen(src), dst, n);
}

static void pd_add_bid(struct pd *d, const char *path, const unsigned char *bid, size_t len, bool kernel)
{
	if (len > 20)
		len = 20;
	if (kernel && strcmp(path, "[kernel.kallsyms]") == 0) {
		memcpy(d->kernel_bid, bid, len);
		d->kernel_bidlen = (uint8_t)len;
		d->kernel_bid_known = true;
		return;
	}
	if (d->nbids == d->bidcap) {
		d->bidcap = d->bidcap ? d->bidcap * 2 : 32;
		d->bids = xreallocarray(d->bids, d->bidcap, sizeof *d->bids);
	}
	d->bids[d->nbids].path = xstrdup(path);
	d->bids[d->nbids].order = d->nbids;
	d->bids_sorted = false;
	memcpy(d->bids[d->nbids].bid, bid, len);
	d->bids[d->nbids].len = (uint8_t)len;
	d->nbids++;
}

/* HEADER_BUILD_ID: build id records (header, pid, 24 bytes of id with its
 * size, file name). */
static void pd_build_ids(struct pd *d, const unsigned char *p, size_t n)
{
	size_t off = 0;
	while (n - off >= 8 + 4 + 24) {
		uint16_t misc = rd16(p + off + 4), size = rd16(p + off + 6);
		if (size < 8 + 4 + 24 || size > n - off)
			break;
		const unsigned char *bid = p + off + 12;
		size_t blen = (misc & MISC_BUILD_ID_SIZE) ? bid[20] : 20;
		char *path = strndup_nul(p + off + 36, size - 36u);
		pd_add_bid(d, path, bid, blen, (misc & MISC_CPUMODE_MASK) == MISC_KERNEL);
		free(path);
		off += size;
	}
}

/* HEADER_EVENT_DESC: u32 count, u32 attr size; per event its attribute,
 * u32 id count, its name, its ids. */
static void pd_event_desc(struct pd *d, const unsigned char *p, size_t n)
{
	struct cur c = { p, p + n, false };
	uint32_t nev = get32(&c), asz = get32(&c);
	for (uint32_t i = 0; i < nev && !c.bad; i++) {
		if (!skip(&c, asz))
			break;
		uint32_t nid = get32(&c);
		char *name = pd_string(&c);
		if (!name)
			break;
		struct pd_attr *a = NULL;
		for (uint32_t k = 0; k < nid && !c.bad; k++) {
			uint64_t id = get64(&c);
			if (!a && !c.bad)
				a = pd_attr_by_id(d, id);
		}
		if (!a && i < d->nattr)
			a = &d->attrs[i];
		if (a && !a->name)
			a->name = name;
		else
			free(name);
	}
}

static void pd_feature(struct pd *d, unsigned feat, const unsigned char *p, size_t n)
{
	struct cur c = { p, p + n, false };
	char *s;

	switch (feat) {
	case FEAT_BUILD_ID:
		pd_build_ids(d, p, n);
		break;
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
		s = pd_string(&c);
		pd_copy_str(feat == FEAT_HOSTNAME ? d->info->hostname : d->info->osrelease,
		            sizeof d->info->hostname, s);
		free(s);
		break;
	case FEAT_ARCH:
		s = pd_string(&c);
		pd_copy_str(d->arch, sizeof d->arch, s);
		free(s);
		break;
	case FEAT_COMPRESSED:
		if (n >= 8 && rd32(p + 4) != 1)
			snprintf(d->unsupported, sizeof d->unsupported,
			         "its records are compressed with something other than zstd");
		break;
	case FEAT_CMDLINE: {
		uint32_t nargs = get32(&c);
		size_t used = 0;
		char *out = d->info->cmdline;
		for (uint32_t i = 0; i < nargs && !c.bad; i++) {
			s = pd_string(&c);
			if (!s)
				break;
			char clean[256];
			text_sanitize(s, strlen(s), clean, sizeof clean);
			int w = snprintf(out + used, sizeof d->info->cmdline - used, "%s%s", i ? " " : "", clean);
			if (w > 0 && used + (size_t)w < sizeof d->info->cmdline)
				used += (size_t)w;
			free(s);
		}
		break;
	}
	case FEAT_EVENT_DESC:
		pd_event_desc(d, p, n);
		break;
	default:
		break;
	}
}

/* Whether the recording's kernel is the one running here: same build id
 * when the file has it, else same release and host name. */
static bool pd_same_kernel(struct pd *d)
{
	if (d->kernel_bid_known) {
		uint8_t bid[20];
		size_t n = symbols_kernel_build_id(bid, sizeof bid);
		return n && n == d->kernel_bidlen && memcmp(bid, d->kernel_bid, n) == 0;
	}
	char rel[64] = "", host[64] = "";
	FILE *f = fopen("/proc/sys/kernel/osrelease", "r");
	if (f) {
		if (fgets(rel, sizeof rel, f))
			rel[strcspn(rel, "\n")] = '\0';
		fclose(f);
	}
	gethostname(host, sizeof host - 1);
	return d->info->osrelease[0] && strcmp(rel, d->info->osrelease) == 0 &&
	       strcmp(host, d->info->hostname) == 0;
}

/* ---- objects and mappings ----------------------------------------------- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int cmp_bid(const void *a, const void *b)
{
	const struct pd_bid *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The build id the header gives path (the last one listed). */
static bool pd_lookup_bid(struct pd *d, const char *path, uint8_t *bid, uint8_t *len)
{
	if (!d->bids_sorted) {
		if (d->nbids > 1)
			qsort(d->bids, d->nbids, sizeof *d->bids, cmp_bid);
		d->bids_sorted = true;
	}
	size_t lo = 0, hi = d->nbids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(d->bids[mid].path, path) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || strcmp(d->bids[lo - 1].path, path) != 0)
		return false;
	memcpy(bid, d->bids[lo - 1].bid, d->bids[lo - 1].len);
	*len = d->bids[lo - 1].len;
	return true;
}

/* Objects of one name with different build ids (a program rebuilt while
 * recorded) are told apart, up to this many. */
#define PD_BIDS_PER_NAME 16

static void pd_dsos_grow(struct pd *d)
{
	size_t cap = d->dsocap ? d->dsocap * 2 : 1024;
	struct pd_dso **t = xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < d->dsocap; i++)
		for (struct pd_dso *x = d->dsos[i], *nx; x; x = nx) {
			nx = x->next;
			size_t h = hash_str(x->name) & (cap - 1);
			x->next = t[h];
			t[h] = x;
		}
	free(d->dsos);
	d->dsos = t;
	d->dsocap = cap;
}

static struct pd_dso *pd_dso(struct pd *d, const char *name, enum dso_kind kind,
                             const uint8_t *bid, size_t bidlen)
{
	struct pd_dso *same = NULL;
	unsigned nsame = 0;
	if (d->ndsos >= d->dsocap)
		pd_dsos_grow(d);
	size_t h = hash_str(name) & (d->dsocap - 1);
	for (struct pd_dso *x = d->dsos[h]; x; x = x->next) {
		if (x->kind != kind || strcmp(x->name, name) != 0)
			continue;
		if (!bidlen || !x->bidlen || (x->bidlen == bidlen && memcmp(x->bid, bid, bidlen) == 0))
			return x;
		same = x;
		if (++nsame >= PD_BIDS_PER_NAME)
			return same;
	}
	d->ndsos++;
	struct pd_dso *x = xcalloc(1, sizeof *x);
	x->name = xstrdup(name);
	x->kind = kind;
	x->kernel = kind == DSO_KERNEL || kind == DSO_SINGLE;
	if (bidlen) {
		memcpy(x->bid, bid, bidlen > 20 ? 20 : bidlen);
		x->bidlen = (uint8_t)(bidlen > 20 ? 20 : bidlen);
	} else if (kind == DSO_FILE || kind == DSO_VDSO) {
		pd_lookup_bid(d, name, x->bid, &x->bidlen);
	}
	x->next = d->dsos[h];
	d->dsos[h] = x;
	return x;
}

static struct sym_dso *pd_dso_syms(struct pd *d, struct pd_dso *x)
{
	if (x->loaded)
		return x->sd;
	x->loaded = true;
	switch (x->kind) {
	case DSO_FILE:
		x->sd = symbols_file(d->sy, x->name, x->bid, x->bidlen);
		break;
	case DSO_PERFMAP:
		x->sd = symbols_perfmap(d->sy, x->name);
		break;
	case DSO_KERNEL:
		if (!d->kernel_checked) {
			d->kernel_checked = true;
			d->kallsyms_ok = pd_same_kernel(d);
		}
		if (d->kallsyms_ok) {
			x->sd = symbols_kallsyms(d->sy, "/proc/kallsyms", d->kref_name, d->kref_addr);
		} else if (d->kernel_bid_known) {
			/* the copy perf record keeps in its build-id cache */
			char path[4200], hex[41];
			const char *bdir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
			for (size_t i = 0; i < d->kernel_bidlen; i++)
				snprintf(hex + 2 * i, 3, "%02x", d->kernel_bid[i]);
			hex[2 * d->kernel_bidlen] = '\0';
			if (bdir && *bdir)
				snprintf(path, sizeof path, "%.4000s/[kernel.kallsyms]/%s/kallsyms", bdir, hex);
			else
				snprintf(path, sizeof path, "%.4000s/.debug/[kernel.kallsyms]/%s/kallsyms", home ? home : "", hex);
			if (access(path, R_OK) == 0) {
				x->sd = symbols_kallsyms(d->sy, path, d->kref_name, d->kref_addr);
				d->kallsyms_ok = true;
			}
		}
		break;
	case DSO_VDSO:
		x->sd = symbols_vdso(d->sy, x->bid, x->bidlen);
		break;
	case DSO_SINGLE:
		x->sd = symbols_single(d->sy, x->name, x->single_start, x->single_len);
		break;
	}
	return x->sd;
}

static struct pd_maps *maps_new(void)
{
	struct pd_maps *m = xcalloc(1, sizeof *m);
	m->refs = 1;
	return m;
}

static void maps_put(struct pd *d, struct pd_maps *m)
{
	if (m && --m->refs == 0) {
		d->map_entries -= m->n;
		free(m->m);
		free(m);
	}
}

static void maps_reserve(struct pd_maps *m, size_t extra)
{
	if (m->n + extra > m->cap) {
		m->cap = m->cap ? m->cap * 2 : 16;
		if (m->cap < m->n + extra)
			m->cap = m->n + extra;
		m->m = xreallocarray(m->m, m->cap, sizeof *m->m);
	}
}

/* Index of the first map ending after addr. */
static size_t maps_lower(const struct pd_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->m[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct pd_map *maps_find(const struct pd_maps *m, uint64_t addr)
{
	size_t i = maps_lower(m, addr);
	if (i < m->n && m->m[i].start <= addr)
		return &m->m[i];
	return NULL;
}

/* Inserts nm, cutting what it overlaps out of the maps already there (as
 * perf's maps__fixup_overlappings: the parts before and after survive). */
/* Real processes have at most vm.max_map_count (65530) mappings; all of
 * them together are kept under a few hundred megabytes. */
#define PD_MAPS_PER_PROCESS 65536
#define PD_MAP_ENTRIES ((uint64_t)4 << 20)

static void maps_insert(struct pd *d, struct pd_maps *m, const struct pd_map *nm)
{
	size_t i = maps_lower(m, nm->start), j = i;
	struct pd_map before = { 0 }, after = { 0 };
	bool has_before = false, has_after = false;

	if (nm->end <= nm->start)
		return;
	m->generation = ++maps_generations;
	while (j < m->n && m->m[j].start < nm->end)
		j++;
	if (i < j && m->m[i].start < nm->start) {
		before = m->m[i];
		before.end = nm->start;
		has_before = true;
	}
	if (i < j && m->m[j - 1].end > nm->end) {
		after = m->m[j - 1];
		if (!after.identity)
			after.pgoff += nm->end - after.start;
		after.start = nm->end;
		has_after = true;
	}
	size_t add = 1 + has_before + has_after;
	if (m->n - (j - i) + add > PD_MAPS_PER_PROCESS || d->map_entries + add > PD_MAP_ENTRIES) {
		d->maps_dropped++;
		return;
	}
	d->map_entries += add - (j - i);
	maps_reserve(m, add);
	memmove(&m->m[i + add], &m->m[j], (m->n - j) * sizeof *m->m);
	m->n = m->n - (j - i) + add;
	if (has_before)
		m->m[i++] = before;
	m->m[i++] = *nm;
	if (has_after)
		m->m[i] = after;
}

/* ---- threads ------------------------------------------------------------- */

/* Fibonacci hashing: the product's high bits (its low bits would only
 * repeat tid's low bits, and tids that are multiples of a power of two
 * would share a bucket). cap is a power of two. */
static size_t tid_hash(int32_t tid, size_t cap)
{
	uint64_t h = (uint64_t)(uint32_t)tid * 0x9E3779B97F4A7C15ull;
	unsigned bits = 0;
	while (((size_t)1 << bits) < cap)
		bits++;
	return bits ? (size_t)(h >> (64 - bits)) : 0;
}

static struct pd_thread **pd_thread_slot(struct pd *d, int32_t tid)
{
	if (!d->threadcap) {
		d->threadcap = 1024;
		d->threads = xcalloc(d->threadcap, sizeof *d->threads);
	}
	struct pd_thread **pp = &d->threads[tid_hash(tid, d->threadcap)];
	while (*pp && (*pp)->tid != tid)
		pp = &(*pp)->next;
	return pp;
}

/* Keeps chains short: twice the buckets when there are twice as many
 * threads (a file may announce millions). */
static void pd_threads_grow(struct pd *d)
{
	size_t cap = d->threadcap * 2;
	struct pd_thread **t = xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < d->threadcap; i++)
		for (struct pd_thread *th = d->threads[i], *nx; th; th = nx) {
			nx = th->next;
			size_t h = tid_hash(th->tid, cap);
			th->next = t[h];
			t[h] = th;
		}
	free(d->threads);
	d->threads = t;
	d->threadcap = cap;
}

static void pd_thread_free(struct pd *d, struct pd_thread *th)
{
	maps_put(d, th->maps);
	free(th->comm);
	free(th);
}

static void pd_remove_thread(struct pd *d, int32_t tid)
{
	struct pd_thread **pp = pd_thread_slot(d, tid);
	struct pd_thread *th = *pp;
	if (th) {
		*pp = th->next;
		d->nthreads--;
		pd_thread_free(d, th);
	}
}

static struct pd_thread *pd_findnew_thread(struct pd *d, int32_t pid, int32_t tid);

/* A thread shares its process leader's maps; the leader and threads of
 * unknown process have their own (perf's thread__init_maps). */
static void pd_thread_init_maps(struct pd *d, struct pd_thread *th)
{
	if (th->pid == th->tid || th->pid == -1) {
		th->maps = maps_new();
	} else {
		struct pd_thread *leader = pd_findnew_thread(d, th->pid, th->pid);
		th->maps = leader->maps;
		th->maps->refs++;
	}
}

static struct pd_thread *pd_findnew_thread(struct pd *d, int32_t pid, int32_t tid)
{
	struct pd_thread **pp = pd_thread_slot(d, tid);
	struct pd_thread *th = *pp;
	char buf[16];

	if (th) {
		/* a thread first seen without its process learns it */
		if (pid != -1 && th->pid == -1 && pid != th->pid) {
			th->pid = pid;
			if (pid != tid) {
				struct pd_thread *leader = pd_findnew_thread(d, pid, pid);
				if (leader->maps != th->maps) {
					maps_put(d, th->maps);
					th->maps = leader->maps;
					th->maps->refs++;
				}
			}
		}
		return th;
	}
	if (d->nthreads >= d->threadcap * 2) {
		pd_threads_grow(d);
		pp = pd_thread_slot(d, tid);
	}
	th = xcalloc(1, sizeof *th);
	d->nthreads++;
	th->pid = pid;
	th->tid = tid;
	snprintf(buf, sizeof buf, ":%" PRId32, tid);
	th->comm = xstrdup(buf);
	*pp = th;
	pd_thread_init_maps(d, th);
	return th;
}

static void pd_set_comm(struct pd_thread *th, const char *comm, size_t len)
{
	free(th->comm);
	th->comm = xmalloc(len + 1);
	memcpy(th->comm, comm, len);
	th->comm[len] = '\0';
	th->comm_set = true;
}

/* What this reader cannot do right; d->unsupported says it (once the
 * attributes and features are known, before any sample). */
static bool pd_check(struct pd *d)
{
	d->checked = true;
	if (d->unsupported[0])
		return false;
	for (size_t i = 0; i < d->nattr; i++) {
		const struct pd_attr *a = &d->attrs[i];
		if ((a->sample_type & S_BRANCH_STACK) && (a->branch_sample_type & BRANCH_CALL_STACK)) {
			snprintf(d->unsupported, sizeof d->unsupported,
			         "its call graphs are LBR call stacks (--call-graph lbr)");
			return false;
		}
		if ((a->sample_type & (S_REGS_USER | S_STACK_USER)) == (S_REGS_USER | S_STACK_USER) &&
		    d->arch[0] && strcmp(d->arch, "x86_64") != 0) {
			snprintf(d->unsupported, sizeof d->unsupported,
			         "its DWARF call graphs were recorded on %s (only x86_64 is unwound here)", d->arch);
			return false;
		}
	}
	return true;
}

/* ---- records ------------------------------------------------------------- */

/* The attribute of a non-sample record, from the sample_id trailer's id. */
static struct pd_attr *pd_attr_of_other(struct pd *d, const unsigned char *rec, size_t size)
{
	struct pd_attr *a0 = &d->attrs[0];
	if (d->nattr == 1 || !(a0->flags & ATTR_SAMPLE_ID_ALL))
		return a0;
	if (a0->sample_type & S_IDENTIFIER) {
		if (size >= 16) {
			struct pd_attr *a = pd_attr_by_id(d, rd64(rec + size - 8));
			return a ? a : a0;
		}
		return a0;
	}
	if (a0->sample_type & S_ID) {
		size_t from_end = 1 + !!(a0->sample_type & S_CPU) + !!(a0->sample_type & S_STREAM_ID);
		if (size >= 8 + from_end * 8) {
			struct pd_attr *a = pd_attr_by_id(d, rd64(rec + size - from_end * 8));
			return a ? a : a0;
		}
	}
	return a0;
}

/* The time of a kernel record, or 0 when it has none. */
static uint64_t pd_record_time(struct pd *d, const unsigned char *rec, size_t size)
{
	uint32_t type = rd32(rec);
	if (!d->nattr)
		return 0;
	if (type == REC_SAMPLE) {
		/* IDENTIFIER, IP, TID, then TIME */
		struct pd_attr *a = &d->attrs[0];
		if (d->nattr > 1 && (a->sample_type & S_IDENTIFIER) && size >= 16) {
			struct pd_attr *x = pd_attr_by_id(d, rd64(rec + 8));
			if (x)
				a = x;
		}
		uint64_t st = a->sample_type;
		if (!(st & S_TIME))
			return 0;
		size_t off = 8 + 8 * (!!(st & S_IDENTIFIER) + !!(st & S_IP) + !!(st & S_TID));
		return off + 8 <= size ? rd64(rec + off) : 0;
	}
	struct pd_attr *a = pd_attr_of_other(d, rec, size);
	uint64_t st = a->sample_type;
	if (!(a->flags & ATTR_SAMPLE_ID_ALL) || !(st & S_TIME))
		return 0;
	size_t from_end = 1 + !!(st & S_IDENTIFIER) + !!(st & S_CPU) + !!(st & S_STREAM_ID) + !!(st & S_ID);
	if (size < 8 + from_end * 8)
		return 0;
	return rd64(rec + size - from_end * 8);
}

/* A decoded sample. */
struct pd_sample {
	struct pd_attr *attr;
	uint8_t cpumode;
	uint64_t ip, time, period;
	int32_t pid, tid;
	const unsigned char *chain;     /* u64 entries */
	uint64_t nchain;
	uint64_t regs_abi;
	const unsigned char *regs;      /* u64 each, attr->nregs_user of them */
	const unsigned char *stack;
	uint64_t stack_size;
};

static bool pd_parse_sample(struct pd *d, const unsigned char *rec, size_t size, struct pd_sample *s)
{
	struct cur c = { rec + 8, rec + size, false };
	struct pd_attr *a = &d->attrs[0];
	uint64_t st;

	memset(s, 0, sizeof *s);
	s->pid = s->tid = -1;
	if (d->nattr > 1) {
		/* perf needs the id at a position common to every event:
		 * first (IDENTIFIER), or after IP, TID, TIME and ADDR */
		uint64_t t0 = a->sample_type;
		size_t pos = (t0 & S_IDENTIFIER) ? 0 :
			!!(t0 & S_IP) + !!(t0 & S_TID) + !!(t0 & S_TIME) + !!(t0 & S_ADDR);
		if ((t0 & (S_IDENTIFIER | S_ID)) && size >= 8 + (pos + 1) * 8) {
			struct pd_attr *x = pd_attr_by_id(d, rd64(rec + 8 + pos * 8));
			if (x)
				a = x;
		}
	}
	s->attr = a;
	st = a->sample_type;
	s->cpumode = rd16(rec + 4) & MISC_CPUMODE_MASK;
	if (st & ~(uint64_t)S_KNOWN)
		return false;
	if (st & S_IDENTIFIER)
		get64(&c);
	if (st & S_IP)
		s->ip = get64(&c);
	if (st & S_TID) {
		s->pid = (int32_t)get32(&c);
		s->tid = (int32_t)get32(&c);
	}
	if (st & S_TIME)
		s->time = get64(&c);
	if (st & S_ADDR)
		get64(&c);
	if (st & S_ID)
		get64(&c);
	if (st & S_STREAM_ID)
		get64(&c);
	if (st & S_CPU)
		get64(&c);
	/* perf script prints the attribute's period when samples lack one */
	s->period = a->sample_period;
	if (st & S_PERIOD)
		s->period = get64(&c);
	if (st & S_READ) {
		uint64_t rf = a->read_format;
		size_t per = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);
		if (rf & RF_GROUP) {
			uint64_t nr = get64(&c);
			skip(&c, 8 * (!!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING)));
			if (nr > size / 8 / per)
				return false;
			skip(&c, nr * per * 8);
		} else {
			skip(&c, 8 * (per + !!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING)));
		}
	}
	if (st & S_CALLCHAIN) {
		s->nchain = get64(&c);
		if (s->nchain > size / 8)
			return false;
		s->chain = skip(&c, s->nchain * 8);
		if (!s->chain)
			return false;
	}
	if (st & S_RAW) {
		uint32_t raw = get32(&c);
		skip(&c, raw);
	}
	if (st & S_BRANCH_STACK) {
		uint64_t nr = get64(&c);
		if (a->branch_sample_type & BRANCH_HW_INDEX)
			get64(&c);
		if (nr > size / 24)
			return false;
		skip(&c, nr * 24);
	}
	if (st & S_REGS_USER) {
		s->regs_abi = get64(&c);
		if (s->regs_abi)
			s->regs = skip(&c, (uint64_t)a->nregs_user * 8);
	}
	if (st & S_STACK_USER) {
		uint64_t sz = get64(&c);
		if (sz) {
			s->stack = skip(&c, sz);
			uint64_t dyn = get64(&c);
			s->stack_size = dyn < sz ? dyn : sz;
		}
	}
	/* the fields after these are not needed */
	return !c.bad;
}

/* ---- one frame ------------------------------------------------------------ */

static size_t hex(char *out, uint64_t v)
{
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* Hands one frame to the perf script reader: "PC SYM+0xOFF (DSO)". */
static void pd_emit(struct pd *d, uint64_t pc, const char *sym, uint64_t off, bool has_off,
                    const char *dso)
{
	char pcs[20], *b;
	size_t pcl = hex(pcs, pc), sl = strlen(sym), need = sl + 20;

	if (need > d->fcap) {
		d->fcap = need * 2;
		d->fbuf = xrealloc(d->fbuf, d->fcap);
	}
	b = d->fbuf;
	memcpy(b, sym, sl);
	if (has_off) {
		memcpy(b + sl, "+0x", 3);
		sl += 3;
		sl += hex(b + sl, off);
	}
	perf_reader_frame(d->pr, pcs, pcl, b, sl, dso, strlen(dso));
}

static void pd_frame_resolve(struct pd *d, const struct pd_map *m, uint64_t ip, bool single, bool inlines);

/* One address of a callchain, resolved in cpumode (thread__find_symbol);
 * with inlines (the DWARF-unwound part), each inlined callee first. */
static void pd_frame(struct pd *d, struct pd_thread *th, uint8_t cpumode, uint64_t ip,
                     bool single, bool inlines)
{
	const struct pd_map *m = NULL;

	if (cpumode == MISC_KERNEL)
		m = maps_find(&d->kmaps, ip);
	else if (cpumode == MISC_USER)
		m = maps_find(th->maps, ip);
	/* the same object and address give the same frames (the one-line
	 * form prints the sampled address itself: that is its key) */
	const void *obj = m ? (const void *)m->dso : NULL;
	uint64_t key = m && !single && !m->identity ? ip - m->start + m->pgoff : ip;
	unsigned variant = (single ? 1u : 0u) | (inlines ? 2u : 0u);
	if (perf_reader_cached(d->pr, obj, key, variant))
		return;
	perf_reader_cache_begin(d->pr);
	pd_frame_resolve(d, m, ip, single, inlines);
	perf_reader_cache_end(d->pr, obj, key, variant);
}

/* pd_frame's work, when the frames are not known yet. */
static void pd_frame_resolve(struct pd *d, const struct pd_map *m, uint64_t ip, bool single, bool inlines)
{
	const struct sym *sym = NULL;
	uint64_t addr = ip;

	if (m) {
		addr = m->identity ? ip : ip - m->start + m->pgoff;
		struct sym_dso *sd = pd_dso_syms(d, m->dso);
		if (sd)
			sym = sym_dso_find(sd, addr);
		else if (m->dso->kind == DSO_KERNEL)
			d->kernel_unresolved++;
	}
	/* perf script prints the offset in the object for user space, the
	 * address itself for the kernel and unmapped addresses; the one-line
	 * form (no callchain) always the sampled address */
	uint64_t pc = (!single && m && !m->dso->kernel) ? addr : ip;
	const char *dso = m ? m->dso->name : "[unknown]";
	if (!sym) {
		pd_emit(d, pc, "[unknown]", 0, false, dso);
		return;
	}
	if (inlines && m->dso->kind == DSO_FILE) {
		const char *const *names;
		size_t n = sym_dso_inlines(m->dso->sd, addr, &names);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(names[i], sym->name) == 0)
				pd_emit(d, pc, sym->name, addr - sym->start, true, dso);
			else
				pd_emit(d, pc, names[i], addr - sym->start, true, "inlined");
		}
		if (n)
			return;
	}
	pd_emit(d, pc, sym->name, addr - sym->start, true, dso);
}

/* The user part of a sample recorded with --call-graph dwarf. */
struct pd_unwind_ctx {
	struct pd *d;
	struct pd_thread *th;
};

static bool pd_unwind_map(void *arg, uint64_t addr, struct unwind_map *out)
{
	struct pd_unwind_ctx *u = arg;
	const struct pd_map *m = maps_find(u->th->maps, addr);
	if (!m || m->identity || m->dso->kind != DSO_FILE)
		return false;
	struct sym_dso *sd = pd_dso_syms(u->d, m->dso);
	const char *path = sd ? sym_dso_elf_path(sd) : NULL;
	if (!path)
		return false;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->path = path;
	return true;
}

/* A hash of what a process has mapped where: forked processes that keep
 * their parent's mappings share the unwinder's view of them. */
static uint64_t maps_layout(struct pd_maps *m)
{
	if (m->layout_gen == m->generation && m->layout)
		return m->layout;
	uint64_t h = 0x9E3779B97F4A7C15ull ^ m->n;
	for (size_t i = 0; i < m->n; i++) {
		const struct pd_map *x = &m->m[i];
		/* data mappings (recorded with DWARF call graphs) differ from
		 * process to process and do not matter to the unwinder */
		if (!x->exec)
			continue;
		uint64_t v[4] = { x->start, x->end, x->pgoff, (uint64_t)(uintptr_t)x->dso };
		for (int k = 0; k < 4; k++) {
			h ^= v[k];
			h *= 0xff51afd7ed558ccdull;
			h ^= h >> 33;
		}
	}
	m->layout = h | 1;
	m->layout_gen = m->generation;
	return m->layout;
}

static void pd_unwind(struct pd *d, struct pd_thread *th, const struct pd_sample *s)
{
	uint64_t ips[PD_MAX_STACK];
	struct pd_unwind_ctx ctx = { d, th };
	struct unwind_input in = {
		.regs = s->regs, .nregs = s->attr->nregs_user, .regs_mask = s->attr->regs_user,
		.abi = s->regs_abi, .stack = s->stack, .stack_size = s->stack_size,
		.pid = th->pid, .tid = th->tid, .layout = maps_layout(th->maps),
		.map = pd_unwind_map, .arg = &ctx
	};
	size_t n;

	if (!d->uw)
		d->uw = unwind_new();
	n = unwind_sample(d->uw, &in, ips, PD_MAX_STACK);
	if (n == 0)
		d->unwind_failed++;
	for (size_t i = 0; i < n; i++)
		pd_frame(d, th, MISC_USER, ips[i], false, true);
}

static void pd_sample(struct pd *d, const unsigned char *rec, size_t size, uint64_t off)
{
	struct pd_sample s;
	struct pd_thread *th;
	const char *ev;

	if (!d->checked && !pd_check(d)) {
		d->fatal = true;
		return;
	}
	if (!pd_parse_sample(d, rec, size, &s)) {
		pd_bad(d, off, "a sample record does not match its event");
		return;
	}
	d->samples++;
	th = pd_findnew_thread(d, s.pid, s.tid);
	ev = pd_attr_name(s.attr);
	if (!perf_reader_record(d->pr, th->comm, strlen(th->comm), s.pid, s.tid, ev, strlen(ev),
	                        true, s.period))
		return;
	if (s.attr->sample_type & S_TIME)
		perf_reader_record_time(d->pr, s.time);
	if (!d->info->event[0])
		pd_copy_str(d->info->event, sizeof d->info->event, ev);
	d->info->samples++;
	d->info->period += s.period;

	if (!(s.attr->sample_type & S_CALLCHAIN)) {
		pd_frame(d, th, s.cpumode, s.ip, true, false);
	} else {
		uint8_t cpumode = MISC_USER;
		size_t entries = 0;
		bool ok = true;
		for (uint64_t i = 0; i < s.nchain && entries < PD_MAX_STACK; i++) {
			uint64_t ip = rd64(s.chain + i * 8);
			if (ip >= CONTEXT_MAX) {
				if (ip == CONTEXT_HV) {
					cpumode = MISC_HYPERVISOR;
				} else if (ip == CONTEXT_KERNEL) {
					cpumode = MISC_KERNEL;
				} else if (ip == CONTEXT_USER) {
					cpumode = MISC_USER;
				} else {
					/* perf drops a chain with a context it
					 * does not know */
					d->unknown_markers++;
					ok = false;
					break;
				}
				continue;
			}
			entries++;
			pd_frame(d, th, cpumode, ip, false, false);
		}
		if (!ok)
			perf_reader_record_clear(d->pr);
		if ((s.attr->sample_type & (S_REGS_USER | S_STACK_USER)) == (S_REGS_USER | S_STACK_USER) &&
		           s.regs && s.stack_size) {
			pd_unwind(d, th, &s);
		}
	}
	perf_reader_record_end(d->pr);
}

static bool is_anon(const char *f)
{
	return strncmp(f, "//anon", 6) == 0 || strncmp(f, "/dev/zero", 9) == 0 ||
	       strncmp(f, "/anon_hugepage", 14) == 0;
}

static bool is_no_dso(const char *f)
{
	return strncmp(f, "[stack", 6) == 0 || strncmp(f, "/SYSV", 5) == 0 || strcmp(f, "[heap]") == 0;
}

/* Kernel mappings: the kernel itself ("[kernel.kallsyms]_text") and its
 * modules, which perf names "[module]". */
static void pd_kernel_mmap(struct pd *d, const char *fname, uint64_t start, uint64_t len, uint64_t pgoff)
{
	struct pd_map m = { .start = start, .end = start + len, .pgoff = pgoff, .identity = true };
	char name[300];

	if (strncmp(fname, "[kernel.kallsyms]", 17) == 0) {
		if (!d->kdso)
			d->kdso = pd_dso(d, "[kernel.kallsyms]", DSO_KERNEL, NULL, 0);
		/* "[kernel.kallsyms]_text": the symbol whose address (pgoff)
		 * places the kernel */
		if (fname[17] && !d->kref_name[0]) {
			snprintf(d->kref_name, sizeof d->kref_name, "%.63s", fname + 17);
			d->kref_addr = pgoff;
		}
		m.dso = d->kdso;
		if (len == 0 || start + len < start)
			m.end = UINT64_MAX;
	} else {
		const char *base = strrchr(fname, '/');
		base = base ? base + 1 : fname;
		if (base[0] == '[') {
			snprintf(name, sizeof name, "%.255s", base);
		} else {
			size_t n = strcspn(base, ".");
			snprintf(name, sizeof name, "[%.*s]", (int)(n < 255 ? n : 255), base);
			for (char *p = name; *p; p++)
				if (*p == '-')
					*p = '_';
		}
		m.dso = pd_dso(d, name, DSO_KERNEL, NULL, 0);
	}
	maps_insert(d, &d->kmaps, &m);
}

static void pd_mmap(struct pd *d, const unsigned char *rec, size_t size, bool v2)
{
	struct cur c = { rec + 8, rec + size, false };
	uint16_t misc = rd16(rec + 4);
	int32_t pid = (int32_t)get32(&c), tid = (int32_t)get32(&c);
	uint64_t start = get64(&c), len = get64(&c), pgoff = get64(&c);
	uint32_t prot = PROT_EXEC_BIT, flags = 0;
	const unsigned char *bid = NULL;
	size_t bidlen = 0;
	char fname[4096], pname[64];

	if (v2) {
		const unsigned char *u = skip(&c, 24);
		if (u && (misc & MISC_MMAP_BUILD_ID)) {
			bidlen = u[0] > 20 ? 20 : u[0];
			bid = u + 4;
		}
		prot = get32(&c);
		flags = get32(&c);
	} else if (misc & MISC_MMAP_DATA) {
		prot = 0;
	}
	if (c.bad) {
		pd_bad(d, 0, "a short MMAP record");
		return;
	}
	size_t n = (size_t)(c.end - c.p);
	if (n >= sizeof fname)
		n = sizeof fname - 1;
	memcpy(fname, c.p, n);
	fname[n] = '\0';

	if ((misc & MISC_CPUMODE_MASK) == MISC_KERNEL) {
		pd_kernel_mmap(d, fname, start, len, pgoff);
		return;
	}
	struct pd_thread *th = pd_findnew_thread(d, pid, tid);
	struct pd_map m = { .start = start, .end = start + len, .pgoff = pgoff, .exec = (prot & PROT_EXEC_BIT) != 0 };
	bool anon = is_anon(fname) || (flags & MAP_HUGETLB_BIT), nodso = is_no_dso(fname);
	if ((anon || nodso) && (prot & PROT_EXEC_BIT)) {
		snprintf(pname, sizeof pname, "/tmp/perf-%" PRId32 ".map", pid);
		m.dso = pd_dso(d, pname, DSO_PERFMAP, NULL, 0);
		m.identity = true;
	} else if (anon || nodso) {
		m.dso = pd_dso(d, fname, DSO_FILE, NULL, 0);
		m.identity = true;
	} else if (strcmp(fname, "[vdso]") == 0) {
		m.dso = pd_dso(d, fname, DSO_VDSO, bid, bidlen);
		m.pgoff = 0;    /* as perf has it */
	} else {
		m.dso = pd_dso(d, fname, DSO_FILE, bid, bidlen);
	}
	if (start + len < start)
		return;
	maps_insert(d, th->maps, &m);
}

static void pd_comm(struct pd *d, const unsigned char *rec, size_t size)
{
	struct cur c = { rec + 8, rec + size, false };
	int32_t pid = (int32_t)get32(&c), tid = (int32_t)get32(&c);
	if (c.bad)
		return;
	size_t n = 0, max = (size_t)(c.end - c.p);
	while (n < max && c.p[n])
		n++;
	struct pd_thread *th = pd_findnew_thread(d, pid, tid);
	pd_set_comm(th, (const char *)c.p, n);
}

static void pd_fork(struct pd *d, const unsigned char *rec, size_t size)
{
	struct cur c = { rec + 8, rec + size, false };
	int32_t pid = (int32_t)get32(&c), ppid = (int32_t)get32(&c);
	int32_t tid = (int32_t)get32(&c), ptid = (int32_t)get32(&c);
	uint16_t misc = rd16(rec + 4);
	if (c.bad || tid == ptid)
		return;
	struct pd_thread *parent = pd_findnew_thread(d, ppid, ptid);
	if (parent->pid != ppid) {
		/* a stale thread under the parent's tid */
		pd_remove_thread(d, ptid);
		parent = pd_findnew_thread(d, ppid, ptid);
	}
	/* a thread already known under the new tid is a previous one */
	pd_remove_thread(d, tid);
	struct pd_thread *th = pd_findnew_thread(d, pid, tid);
	if (parent->comm_set)
		pd_set_comm(th, parent->comm, strlen(parent->comm));
	/* a new process starts with a copy of its parent's mappings (not for
	 * the forks perf synthesizes for running processes) */
	if (th->pid != parent->pid && th->maps != parent->maps && !(misc & MISC_FORK_EXEC)) {
		if (d->map_entries + parent->maps->n > PD_MAP_ENTRIES) {
			d->maps_dropped += parent->maps->n;
			return;
		}
		for (size_t i = 0; i < parent->maps->n; i++)
			maps_insert(d, th->maps, &parent->maps->m[i]);
	}
}

static void pd_ksymbol(struct pd *d, const unsigned char *rec, size_t size)
{
	struct cur c = { rec + 8, rec + size, false };
	uint64_t addr = get64(&c);
	uint32_t len = get32(&c);
	uint32_t type_flags = get32(&c);        /* u16 ksym_type, u16 flags */
	char name[256];
	if (c.bad)
		return;
	size_t n = 0, max = (size_t)(c.end - c.p);
	while (n < max && c.p[n] && n < sizeof name - 1)
		n++;
	memcpy(name, c.p, n);
	name[n] = '\0';
	if ((type_flags >> 16) & 1) {   /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
		/* the program is gone: its map goes, as perf drops it */
		size_t i = maps_lower(&d->kmaps, addr);
		if (i < d->kmaps.n && d->kmaps.m[i].start == addr) {
			memmove(&d->kmaps.m[i], &d->kmaps.m[i + 1], (d->kmaps.n - i - 1) * sizeof *d->kmaps.m);
			d->kmaps.n--;
			d->map_entries--;
		}
		return;
	}
	struct pd_dso *x = pd_dso(d, name, DSO_SINGLE, NULL, 0);
	x->single_start = addr;
	x->single_len = len;
	struct pd_map m = { .start = addr, .end = addr + len, .dso = x, .identity = true };
	maps_insert(d, &d->kmaps, &m);
}

static void pd_process(struct pd *d, const unsigned char *rec, size_t size)
{
	switch (rd32(rec)) {
	case REC_SAMPLE:
		pd_sample(d, rec, size, 0);
		break;
	case REC_MMAP:
		pd_mmap(d, rec, size, false);
		break;
	case REC_MMAP2:
		pd_mmap(d, rec, size, true);
		break;
	case REC_COMM:
		pd_comm(d, rec, size);
		break;
	case REC_FORK:
		pd_fork(d, rec, size);
		break;
	case REC_KSYMBOL:
		pd_ksymbol(d, rec, size);
		break;
	case REC_LOST:
		if (size >= 24)
			d->lost += rd64(rec + 16);
		break;
	case REC_LOST_SAMPLES:
		if (size >= 16)
			d->lost += rd64(rec + 8);
		break;
	case REC_EXIT:
	case 5: case 6:                     /* THROTTLE, UNTHROTTLE */
	case 8: case 11: case 12: case 14: case 15: case 16: case 18: case 19:
	case 20: case 21:                   /* nothing a flame graph needs */
		break;
	default:
		d->unknown_types++;
		break;
	}
}

/* ---- the queue ------------------------------------------------------------ */

static int cmp_qev(const void *a, const void *b)
{
	const struct pd_qev *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool qev_before(const struct pd_qev *x, const struct pd_qev *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Sorts the queue by (time, arrival). A round is the buffers of a few CPUs
 * one after the other, each in time order: a few sorted runs, merged in
 * pairs (a natural merge sort: n log(runs), not n log n). */
static void q_sort(struct pd_queue *q)
{
	size_t n = q->n, nruns = 1;
	if (n < 2)
		return;
	for (size_t i = 1; i < n; i++)
		if (qev_before(&q->ev[i], &q->ev[i - 1]))
			nruns++;
	if (nruns == 1)
		return;
	if (nruns > 64) {
		qsort(q->ev, n, sizeof *q->ev, cmp_qev);
		return;
	}
	struct pd_qev *a = q->ev, *b = xreallocarray(NULL, n, sizeof *b);
	while (nruns > 1) {
		size_t lo = 0, k = 0;
		nruns = 0;
		while (lo < n) {
			size_t mid = lo + 1;
			while (mid < n && !qev_before(&a[mid], &a[mid - 1]))
				mid++;
			size_t hi = mid;
			if (hi < n) {
				hi++;
				while (hi < n && !qev_before(&a[hi], &a[hi - 1]))
					hi++;
			}
			/* merge a[lo, mid) and a[mid, hi) into b, stable */
			size_t i = lo, j = mid;
			while (i < mid && j < hi)
				b[k++] = qev_before(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
			lo = hi;
			nruns++;
		}
		struct pd_qev *t = a;
		a = b;
		b = t;
	}
	if (a != q->ev) {
		memcpy(q->ev, a, n * sizeof *a);
		free(a);
	} else {
		free(b);
	}
}

/* Hands on, in time order, the queued records with time <= limit, and at
 * least the first min_count of them. */
static void q_flush_upto(struct pd *d, uint64_t limit, size_t min_count)
{
	struct pd_queue *q = &d->q;
	size_t i, k = 0, blen = 0;

	if (!q->n)
		return;
	q_sort(q);
	for (i = 0; i < q->n && (i < min_count || q->ev[i].time <= limit); i++)
		pd_process(d, q->ev[i].ext ? q->ev[i].ext : q->buf + q->ev[i].off, q->ev[i].len);
	/* keep the rest, packed at the buffer's start (they are in time
	 * order, their bytes in arrival order: move through a copy) */
	if (i < q->n) {
		size_t rest = 0;
		for (size_t j = i; j < q->n; j++)
			if (!q->ev[j].ext)
				rest += q->ev[j].len;
		unsigned char *nb = rest ? xmalloc(rest > q->bcap ? rest : q->bcap) : NULL;
		for (size_t j = i; j < q->n; j++) {
			q->ev[k] = q->ev[j];
			if (!q->ev[j].ext) {
				memcpy(nb + blen, q->buf + q->ev[j].off, q->ev[j].len);
				q->ev[k].off = blen;
				blen += q->ev[j].len;
			}
			k++;
		}
		if (nb) {
			free(q->buf);
			q->buf = nb;
			if (rest > q->bcap)
				q->bcap = rest;
		}
	}
	q->n = k;
	q->blen = blen;
}

static void q_flush(struct pd *d, uint64_t limit)
{
	q_flush_upto(d, limit, 0);
}

static void q_flush_count(struct pd *d, size_t count)
{
	q_flush_upto(d, 0, count);
}

static void q_add(struct pd *d, uint64_t time, const unsigned char *rec, size_t size)
{
	struct pd_queue *q = &d->q;

	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 1024;
		q->ev = xreallocarray(q->ev, q->cap, sizeof *q->ev);
	}
	q->ev[q->n].time = time;
	q->ev[q->n].seq = q->seq++;
	q->ev[q->n].len = (uint32_t)size;
	if (d->map && rec >= d->map && rec < d->map + d->maplen) {
		q->ev[q->n].ext = rec;
		q->ev[q->n].off = 0;
	} else {
		if (q->blen + size > q->bcap) {
			q->bcap = (q->blen + size) * 2;
			q->buf = xrealloc(q->buf, q->bcap);
		}
		memcpy(q->buf + q->blen, rec, size);
		q->ev[q->n].ext = NULL;
		q->ev[q->n].off = q->blen;
		q->blen += size;
	}
	q->n++;
	if (time > q->max_time)
		q->max_time = time;
	if (q->blen + q->n * sizeof *q->ev > PD_QUEUE_MAX) {
		/* the older half goes now, by count: every such flush frees at
		 * least half the queue, whatever the times */
		q_flush_count(d, q->n / 2 + 1);
	}
}

/* ---- framing -------------------------------------------------------------- */

static void pd_record(struct pd *d, const unsigned char *rec, size_t size, uint64_t off);

static void pd_kernel_record(struct pd *d, const unsigned char *rec, size_t size)
{
	uint64_t time = d->ordered ? pd_record_time(d, rec, size) : 0;
	if (!time || time == UINT64_MAX)
		pd_process(d, rec, size);
	else
		q_add(d, time, rec, size);
}

#ifdef HAVE_ZSTD
/* Room for inflated records: at least one whole record (64 KiB at most)
 * besides the part of one that a chunk ended in. */
#define PD_ZBUF ((size_t)1 << 20)

/* Hands on the whole records inflated so far; keeps a partial one. */
static void pd_inflated(struct pd *d, uint64_t off)
{
	size_t pos = 0;
	while (d->zlen - pos >= 8) {
		uint16_t sz = rd16(d->zbuf + pos + 6);
		if (sz < 8) {
			pd_bad(d, off, "an inflated record has a size under 8");
			pos = d->zlen;
			break;
		}
		if (sz > d->zlen - pos)
			break;
		pd_record(d, d->zbuf + pos, sz, off);
		pos += sz;
	}
	memmove(d->zbuf, d->zbuf + pos, d->zlen - pos);
	d->zlen -= pos;
}

/* COMPRESSED: a zstd stream across records, holding whole records (one cut
 * at a chunk's end is completed by the next chunk). Inflated a buffer at a
 * time and handed on at once, so a small record that inflates to
 * gigabytes costs no memory. */
static void pd_compressed(struct pd *d, const unsigned char *p, size_t n, uint64_t off)
{
	ZSTD_inBuffer in = { p, n, 0 };

	if (d->inflating) {
		/* perf never nests them; the buffer is in use */
		pd_bad(d, off, "a compressed record inside a compressed record");
		return;
	}
	if (!d->zs) {
		d->zs = ZSTD_createDStream();
		if (!d->zs || ZSTD_isError(ZSTD_initDStream(d->zs)))
			xdie("out of memory");
		d->zbuf = xmalloc(PD_ZBUF);
		d->zcap = PD_ZBUF;
	}
	d->inflating = true;
	while (in.pos < in.size && !d->fatal) {
		size_t before = in.pos;
		ZSTD_outBuffer out = { d->zbuf + d->zlen, d->zcap - d->zlen, 0 };
		size_t r = ZSTD_decompressStream(d->zs, &out, &in);
		if (ZSTD_isError(r)) {
			pd_bad(d, off, "a compressed record does not inflate");
			ZSTD_initDStream(d->zs);
			d->zlen = 0;
			break;
		}
		d->zlen += out.pos;
		pd_inflated(d, off);
		if (out.pos == 0 && in.pos == before)
			break;
	}
	d->inflating = false;
}
#endif

/* One record: kernel ones queued, perf's own handled at once. */
static void pd_record(struct pd *d, const unsigned char *rec, size_t size, uint64_t off)
{
	uint32_t type = rd32(rec);

	if (type < REC_KERNEL_MAX) {
		if (!d->nattr) {
			pd_bad(d, off, "a record before any event description");
			return;
		}
		pd_kernel_record(d, rec, size);
		return;
	}
	switch (type) {
	case REC_FINISHED_ROUND:
		q_flush(d, d->q.next_flush);
		d->q.next_flush = d->q.max_time;
		break;
	case REC_HEADER_ATTR: {
		/* pipe mode: the attribute, then its ids */
		uint32_t asz = size >= 16 ? rd32(rec + 12) : 0;
		if (asz == 0)
			asz = 64;
		if (asz > size - 8) {
			pd_bad(d, off, "a short HEADER_ATTR record");
			break;
		}
		size_t ai = pd_add_attr(d, rec + 8, asz);
		if (ai == SIZE_MAX)
			break;
		for (size_t p = 8 + asz; p + 8 <= size; p += 8)
			pd_add_id(d, rd64(rec + p), ai);
		d->ordered = true;
		for (size_t i = 0; i < d->nattr; i++)
			if (!(d->attrs[i].flags & ATTR_SAMPLE_ID_ALL))
				d->ordered = false;
		break;
	}
	case REC_HEADER_FEATURE:
		if (size >= 16)
			pd_feature(d, (unsigned)rd64(rec + 8), rec + 16, size - 16);
		break;
	case REC_HEADER_BUILD_ID:
		pd_build_ids(d, rec, size);
		break;
	case REC_EVENT_UPDATE:
		/* type NAME (1): u64 type, u64 id, name */
		if (size > 24 && rd64(rec + 8) == 1) {
			struct pd_attr *a = pd_attr_by_id(d, rd64(rec + 16));
			if (a && !a->name)
				a->name = strndup_nul(rec + 24, size - 24);
		}
		break;
	case REC_COMPRESSED:
#ifdef HAVE_ZSTD
		pd_compressed(d, rec + 8, size - 8, off);
#else
		d->fatal = true;
		pd_msg(d, "compressed records (perf record -z), and this tflame was built without libzstd");
#endif
		break;
	default:
		/* HEADER_EVENT_TYPE, ID_INDEX, THREAD_MAP, CPU_MAP, STAT*,
		 * TIME_CONV, FINISHED_INIT, AUXTRACE*: nothing to draw */
		if (type > 82)
			d->unknown_types++;
		break;
	}
}

/* Bytes that follow a record without being counted in its size. */
static uint64_t pd_trailing(const unsigned char *rec, size_t size, bool pipe)
{
	uint32_t type = rd32(rec);
	if (type == REC_AUXTRACE && size >= 16)
		return rd64(rec + 8);
	if (pipe && type == REC_HEADER_TRACING_DATA && size >= 12) {
		uint64_t n = rd32(rec + 8);
		return (n + 7) & ~(uint64_t)7;
	}
	return 0;
}

/* ---- file and pipe ---------------------------------------------------------- */

/* The largest perf.data file read whole (from a pipe, or compressed). */
#define PD_WHOLE_MAX ((size_t)1 << 30)

static void pd_progress(struct pd *d, uint64_t done, uint64_t size)
{
	if (d->o->progress)
		d->o->progress(d->o->progress_arg, done, size, d->t->stacks);
}

/* m[0..len): the whole file; mapped: its pages may be dropped once read. */
static enum perfdata_status pd_file(struct pd *d, const unsigned char *m, size_t len, bool mapped)
{
	struct cur c = { m, m + len, false };
	uint64_t hsize, attr_size, aoff, asize, doff, dsize, feats[4];

	get64(&c);
	hsize = get64(&c);
	attr_size = get64(&c);
	aoff = get64(&c);
	asize = get64(&c);
	doff = get64(&c);
	dsize = get64(&c);
	get64(&c);
	get64(&c);
	for (int i = 0; i < 4; i++)
		feats[i] = get64(&c);
	if (c.bad || hsize < PD_FILE_HEADER || attr_size < 16 + 64 || aoff > len || asize > len - aoff ||
	    doff > len) {
		pd_msg(d, "not a readable perf.data file (its header is damaged or cut short)");
		return PERFDATA_ERROR;
	}
	if (dsize > len - doff) {
		pd_msg(d, "the file is cut short: %" PRIu64 " of %" PRIu64 " bytes of records are there",
		       (uint64_t)(len - doff), dsize);
		dsize = len - doff;
	}
	/* attributes, each followed by the section of its ids */
	for (uint64_t a = 0; a + attr_size <= asize; a += attr_size) {
		const unsigned char *p = m + aoff + a;
		size_t ai = pd_add_attr(d, p, attr_size - 16);
		if (ai == SIZE_MAX)
			continue;
		uint64_t ioff = rd64(p + attr_size - 16), isz = rd64(p + attr_size - 8);
		if (ioff <= len && isz <= len - ioff)
			for (uint64_t k = 0; k + 8 <= isz; k += 8)
				pd_add_id(d, rd64(m + ioff + k), ai);
	}
	if (!d->nattr) {
		pd_msg(d, "the perf.data file describes no events");
		return PERFDATA_ERROR;
	}
	d->ordered = true;
	for (size_t i = 0; i < d->nattr; i++)
		if (!(d->attrs[i].flags & ATTR_SAMPLE_ID_ALL))
			d->ordered = false;

	/* feature sections follow the records, one per bit set */
	uint64_t foff = doff + rd64(m + 48);
	if (foff <= len) {
		struct cur fc = { m + foff, m + len, false };
		for (unsigned f = 0; f < FEAT_MAX; f++) {
			if (!(feats[f / 64] >> (f % 64) & 1))
				continue;
			uint64_t so = get64(&fc), ss = get64(&fc);
			if (fc.bad)
				break;
			if (so <= len && ss <= len - so)
				pd_feature(d, f, m + so, (size_t)ss);
		}
	}

	if (!pd_check(d))
		return PERFDATA_UNSUPPORTED;
	uint64_t pos = doff, end = doff + dsize, dropped = doff & ~(uint64_t)4095, shown = pos;
	/* queued records point into m: it outlives the queue (flushed below) */
	d->map = m;
	d->maplen = len;
	while (end - pos >= 8 && !d->fatal) {
		const unsigned char *rec = m + pos;
		uint16_t size = rd16(rec + 6);
		if (size < 8) {
			pd_msg(d, "a record at byte %" PRIu64 " has an impossible size (%u); the rest of the file is skipped",
			       pos, (unsigned)size);
			break;
		}
		if (size > end - pos) {
			pd_msg(d, "the record at byte %" PRIu64 " is cut short by the end of the data", pos);
			break;
		}
		pd_record(d, rec, size, pos);
		uint64_t trail = pd_trailing(rec, size, false);
		if (trail > end - pos - size) {
			pd_msg(d, "a record at byte %" PRIu64 " announces %" PRIu64 " bytes of data after it, more than "
			       "the file has; the rest of the file is skipped", pos, trail);
			break;
		}
		pos += size + trail;
		if (pos - shown >= ((uint64_t)1 << 20)) {
			/* the progress line rate-limits itself */
			shown = pos;
			pd_progress(d, pos, len);
		}
		if (pos - dropped >= ((uint64_t)64 << 20)) {
			/* records read are done with, but for those queued by
			 * reference: pages before the oldest of them go */
			uint64_t upto = pos;
			for (size_t k = 0; k < d->q.n; k++)
				if (d->q.ev[k].ext && (uint64_t)(d->q.ev[k].ext - m) < upto)
					upto = (uint64_t)(d->q.ev[k].ext - m);
			upto &= ~(uint64_t)4095;
			if (upto < dropped)
				upto = dropped;
#ifdef HAVE_MADVISE
			if (mapped)
				madvise((void *)(m + dropped), upto - dropped, MADV_DONTNEED);
#else
			(void)mapped;
#endif
			dropped = upto;
		}
	}
	q_flush(d, UINT64_MAX);
	d->map = NULL;
	return PERFDATA_OK;
}

/* Reads exactly n bytes of a stream into *buf (grown as needed). */
static bool pd_read(struct source *s, unsigned char **buf, size_t *cap, size_t at, size_t n)
{
	if (at + n > *cap) {
		*cap = (at + n) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	return source_read(s, *buf + at, n) == (ssize_t)n;
}

static enum perfdata_status pd_pipe(struct pd *d, struct source *s)
{
	unsigned char *buf = NULL;
	size_t cap = 0;
	uint64_t pos;

	if (!pd_read(s, &buf, &cap, 0, PD_PIPE_HEADER)) {
		free(buf);
		pd_msg(d, "not a readable perf.data stream");
		return PERFDATA_ERROR;
	}
	uint64_t hsize = rd64(buf + 8);
	if (hsize > PD_PIPE_HEADER) {
		/* The file form through a pipe or a decompressor: its sections
		 * point anywhere, so it is read whole first. */
		size_t len = PD_PIPE_HEADER, need = SIZE_MAX;
		for (;;) {
			if (need == SIZE_MAX && len >= PD_FILE_HEADER) {
				/* no further than the header's sections (the
				 * features follow the data; give them 1 MiB) */
				uint64_t a = rd64(buf + 24) + rd64(buf + 32), e = rd64(buf + 40) + rd64(buf + 48);
				uint64_t far = (a > e ? a : e) + ((uint64_t)1 << 20);
				need = far < PD_WHOLE_MAX ? (size_t)far : PD_WHOLE_MAX;
			}
			if (len >= need)
				break;
			if (len == cap) {
				if (cap >= PD_WHOLE_MAX) {
					free(buf);
					pd_msg(d, "a perf.data file of more than %zu MiB cannot be read from a pipe or "
					       "compressed; give the uncompressed file's name", PD_WHOLE_MAX >> 20);
					return PERFDATA_ERROR;
				}
				cap = cap < ((size_t)1 << 20) ? (size_t)1 << 20 : cap * 2;
				buf = xrealloc(buf, cap);
			}
			size_t want = cap - len;
			if (need != SIZE_MAX && want > need - len)
				want = need - len;
			ssize_t r = source_read(s, buf + len, want);
			if (r < 0) {
				free(buf);
				pd_msg(d, "%s", source_error(s));
				return PERFDATA_ERROR;
			}
			if (r == 0)
				break;
			len += (size_t)r;
			pd_progress(d, source_offset(s), source_size(s));
		}
		enum perfdata_status st = pd_file(d, buf, len, false);
		free(buf);
		return st;
	}
	pos = PD_PIPE_HEADER;
	for (;;) {
		if (!pd_read(s, &buf, &cap, 0, 8))
			break;
		uint16_t size = rd16(buf + 6);
		if (size < 8) {
			pd_msg(d, "a record at byte %" PRIu64 " has an impossible size (%u); the rest is skipped",
			       pos, (unsigned)size);
			break;
		}
		if (!pd_read(s, &buf, &cap, 8, size - 8u)) {
			pd_msg(d, "the stream ends inside a record at byte %" PRIu64, pos);
			break;
		}
		pd_record(d, buf, size, pos);
		if (d->fatal)
			break;
		uint64_t trail = pd_trailing(buf, size, true);
		pos += size;
		while (trail) {
			unsigned char junk[4096];
			size_t k = trail < sizeof junk ? (size_t)trail : sizeof junk;
			if (source_read(s, junk, k) != (ssize_t)k) {
				pd_msg(d, "the stream ends inside the data of the record before byte %" PRIu64, pos);
				break;
			}
			trail -= k;
			pos += k;
		}
		if ((pos & ((1u << 20) - 1)) < size)
			pd_progress(d, pos, 0);
	}
	free(buf);
	if (d->unsupported[0])
		return PERFDATA_UNSUPPORTED;
	q_flush(d, UINT64_MAX);
	return PERFDATA_OK;
}

/* ---- public --------------------------------------------------------------- */

bool perfdata_sniff(const char *buf, size_t len)
{
	uint64_t magic, hsize;
	if (len < 16)
		return false;
	memcpy(&magic, buf, 8);
	memcpy(&hsize, buf + 8, 8);
	if (magic == PD_MAGIC_SWAPPED)
		return true;
	return magic == PD_MAGIC && (hsize == PD_PIPE_HEADER || hsize >= PD_FILE_HEADER);
}

enum perfdata_status perfdata_load(struct tree *t, struct source *s, const char *name,
                                   const struct perfdata_options *o, struct perfdata_info *info,
                                   void (*add)(void *msgarg, const char *text), void *msgarg)
{
	struct pd d = { 0 };
	const char *map;
	size_t len;
	enum perfdata_status st;
	char head[16];

	memset(info, 0, sizeof *info);
	d.t = t;
	d.o = o;
	d.info = info;
	d.add = add;
	d.msgarg = msgarg;
	d.name = name;
	if (source_peek(s, head, sizeof head) < (ssize_t)sizeof head) {
		pd_msg(&d, "not a readable perf.data file");
		return PERFDATA_ERROR;
	}
	uint64_t magic;
	memcpy(&magic, head, 8);
	if (magic == PD_MAGIC_SWAPPED) {
		snprintf(info->unsupported, sizeof info->unsupported,
		         "it is perf.data of the other byte order (recorded on a big-endian machine)");
		return PERFDATA_UNSUPPORTED;
	}
	d.pr = perf_reader_new(t, o->perf);
	perf_reader_set_timeline(d.pr, o->timeline);
	d.sy = symbols_new(o->symfs);
	/* perf script knows the idle thread from the start */
	pd_set_comm(pd_findnew_thread(&d, 0, 0), "swapper", 7);
	uint64_t hsize;
	memcpy(&hsize, head + 8, 8);
	if (hsize != PD_PIPE_HEADER && source_mapping(s, &map, &len)) {
		/* the header's features decide whether kallsyms applies: read
		 * them before any record */
		st = pd_file(&d, (const unsigned char *)map, len, true);
	} else {
		/* the stream form, also when saved to a file */
		st = pd_pipe(&d, s);
	}
	perf_reader_finish(d.pr);
	if (st == PERFDATA_UNSUPPORTED && d.unsupported[0])
		snprintf(info->unsupported, sizeof info->unsupported, "%s", d.unsupported);

	if (d.kernel_unresolved && !d.kallsyms_ok)
		pd_msg(&d, "%" PRIu64 " kernel address%s shown as [unknown]: the recording is not of this "
		       "machine's running kernel", d.kernel_unresolved, d.kernel_unresolved == 1 ? "" : "es");
	if (d.bad_records)
		pd_msg(&d, "skipped %" PRIu64 " malformed record%s (first at byte %" PRIu64 ": %s)",
		       d.bad_records, d.bad_records == 1 ? "" : "s", d.first_bad_off, d.first_bad);
	if (d.unknown_types)
		pd_msg(&d, "skipped %" PRIu64 " record%s of types this reader does not know", d.unknown_types,
		       d.unknown_types == 1 ? "" : "s");
	if (d.maps_dropped)
		pd_msg(&d, "%" PRIu64 " mappings beyond %u a process (or %" PRIu64 " in all) were ignored; "
		       "their frames show as [unknown]", d.maps_dropped, PD_MAPS_PER_PROCESS, PD_MAP_ENTRIES);
	if (d.lost)
		pd_msg(&d, "perf lost %" PRIu64 " sample%s while recording", d.lost, d.lost == 1 ? "" : "s");

	/* free everything */
	for (size_t i = 0; i < d.threadcap; i++)
		for (struct pd_thread *th = d.threads[i], *nx; th; th = nx) {
			nx = th->next;
			pd_thread_free(&d, th);
		}
	free(d.threads);
	for (size_t i = 0; i < d.dsocap; i++)
		for (struct pd_dso *x = d.dsos[i], *nx; x; x = nx) {
			nx = x->next;
			free(x->name);
			free(x);
		}
	free(d.dsos);
	free(d.kmaps.m);
	for (size_t i = 0; i < d.nattr; i++)
		free(d.attrs[i].name);
	free(d.attrs);
	free(d.ids);
	for (size_t i = 0; i < d.nbids; i++)
		free(d.bids[i].path);
	free(d.bids);
	free(d.q.ev);
	free(d.q.buf);
	free(d.fbuf);
	free(d.zbuf);
#ifdef HAVE_ZSTD
	ZSTD_freeDStream(d.zs);
#endif
	unwind_free(d.uw);
	symbols_free(d.sy);
	perf_reader_free(d.pr);
	return st;
}
