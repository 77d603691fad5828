/* perfdata_impl: what the files of the perf.data reader share, and no one
 * else sees: the format's numbers, bounded reads, the reader's state
 * (struct pd) and the functions one file calls in another.
 *
 *   perfdata.c         the public entry, record framing (file and stream
 *                      forms, zstd-compressed records), the time-ordered
 *                      queue, and the dispatch of kernel records
 *   perfdata_header.c  events (attributes, their ids and names), feature
 *                      sections (build ids, host, command line), the
 *                      sample_id layout of records, and what is unsupported
 *   perfdata_threads.c objects (DSOs and their symbols), mappings, threads,
 *                      and the MMAP, COMM, FORK and KSYMBOL records
 *   perfdata_sample.c  SAMPLE records: decoding, callchains and DWARF
 *                      unwinding resolved to frames for the perf script
 *                      reader
 */
#ifndef TFLAME_PERFDATA_IMPL_H
#define TFLAME_PERFDATA_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "perfdata.h"
#include "symbols.h"
#include "unwind.h"

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

struct pd_cur {
	const unsigned char *p, *end;
	bool bad;       /* a read went past end: every later read yields 0 */
};

static inline uint64_t pd_get64(struct pd_cur *c)
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

static inline uint32_t pd_get32(struct pd_cur *c)
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
static inline const unsigned char *pd_skip(struct pd_cur *c, uint64_t n)
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

static inline uint64_t pd_rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pd_rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t pd_rd16(const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
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

struct pd_thread {
	int32_t pid, tid;
	bool comm_set;
	char *comm;
	struct pd_maps *maps;
	struct pd_thread *next; /* hash chain */
};

/* Real processes have at most vm.max_map_count (65530) mappings; all of
 * them together are kept under a few hundred megabytes. */
#define PD_MAPS_PER_PROCESS 65536
#define PD_MAP_ENTRIES ((uint64_t)4 << 20)

/* Index of the first map ending after addr. */
static inline size_t pd_maps_lower(const struct pd_maps *m, uint64_t addr)
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

/* The map holding addr, or NULL. */
static inline const struct pd_map *pd_maps_find(const struct pd_maps *m, uint64_t addr)
{
	size_t i = pd_maps_lower(m, addr);
	if (i < m->n && m->m[i].start <= addr)
		return &m->m[i];
	return NULL;
}

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

/* ---- perfdata.c ---------------------------------------------------------- */

/* A message "tflame: NAME: ..." for the user. */
void pd_msg(struct pd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Counts a malformed record; the first one's offset and what is described. */
void pd_bad(struct pd *d, uint64_t off, const char *what);

/* ---- perfdata_header.c --------------------------------------------------- */

/* A NUL-terminated string inside p[0..n), copied (at most n bytes). */
char *pd_strndup_nul(const unsigned char *p, size_t n);
/* text_sanitize of src (NULL: nothing) into dst[0..n). */
void pd_copy_str(char *dst, size_t n, const char *src);
/* Adds the attribute in p[0..n) (a perf_event_attr of its own size).
 * Returns its index, or SIZE_MAX when it is too short to use. */
size_t pd_add_attr(struct pd *d, const unsigned char *p, size_t n);
/* Says that sample id id belongs to attribute attr. */
void pd_add_id(struct pd *d, uint64_t id, size_t attr);
/* The attribute of sample id id, or NULL. */
struct pd_attr *pd_attr_by_id(struct pd *d, uint64_t id);
/* The event's name as perf script prints it ("cpu-clock:ppp"). */
const char *pd_attr_name(const struct pd_attr *a);
/* The feature section feat, p[0..n), in the file or in a HEADER_FEATURE
 * record. */
void pd_feature(struct pd *d, unsigned feat, const unsigned char *p, size_t n);
/* HEADER_BUILD_ID: p[0..n) holds build id records. */
void pd_build_ids(struct pd *d, const unsigned char *p, size_t n);
/* The build id the header gives path (the last one listed); false when
 * none. */
bool pd_lookup_bid(struct pd *d, const char *path, uint8_t *bid, uint8_t *len);
/* Whether the recording's kernel is the one running here. */
bool pd_same_kernel(struct pd *d);
/* False (d->unsupported says why) when this reader cannot read the file
 * right; once the attributes and features are known, before any sample. */
bool pd_check(struct pd *d);
/* The time of a kernel record (rec[0..size), size >= 8), or 0 when it has
 * none. */
uint64_t pd_record_time(struct pd *d, const unsigned char *rec, size_t size);
/* Frees the attributes and build ids. */
void pd_header_free(struct pd *d);

/* ---- perfdata_threads.c -------------------------------------------------- */

/* The thread tid (of process pid, -1 when unknown), made when new. */
struct pd_thread *pd_findnew_thread(struct pd *d, int32_t pid, int32_t tid);
/* Sets a thread's name to comm[0..len). */
void pd_set_comm(struct pd_thread *th, const char *comm, size_t len);
/* The symbols of an object, loaded on first use (NULL: none found). */
struct sym_dso *pd_dso_syms(struct pd *d, struct pd_dso *x);
/* A hash of what a process has mapped where (for the unwinder). */
uint64_t pd_maps_layout(struct pd_maps *m);
/* The records that change threads and mappings, rec[0..size). */
void pd_mmap(struct pd *d, const unsigned char *rec, size_t size, bool v2);
void pd_comm(struct pd *d, const unsigned char *rec, size_t size);
void pd_fork(struct pd *d, const unsigned char *rec, size_t size);
void pd_ksymbol(struct pd *d, const unsigned char *rec, size_t size);
/* Frees the threads, objects and mappings. */
void pd_threads_free(struct pd *d);

/* ---- perfdata_sample.c --------------------------------------------------- */

/* A SAMPLE record, rec[0..size), handed to the perf script reader (off:
 * where it is, for messages). */
void pd_sample(struct pd *d, const unsigned char *rec, size_t size, uint64_t off);

#endif
