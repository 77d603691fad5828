/* perfdata_threads: the state perf.data's records build before samples
 * are resolved (see perfdata_impl.h): objects (DSOs) and their symbols,
 * each process's mappings (shared by its threads, copied at fork, cut by
 * overlapping ones as perf's maps__fixup_overlappings does), the kernel's
 * mappings, threads and their names; and the MMAP, MMAP2, COMM, FORK and
 * KSYMBOL records that change them. */
#include "config.h"
#include "perfdata_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xalloc.h"

/* ---- objects ---------------------------------------------------------------- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
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

struct sym_dso *pd_dso_syms(struct pd *d, struct pd_dso *x)
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

/* ---- mappings --------------------------------------------------------------- */

static uint64_t maps_generations;

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

/* Inserts nm, cutting what it overlaps out of the maps already there (as
 * perf's maps__fixup_overlappings: the parts before and after survive). */
static void maps_insert(struct pd *d, struct pd_maps *m, const struct pd_map *nm)
{
	size_t i = pd_maps_lower(m, nm->start), j = i;
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

struct pd_thread *pd_findnew_thread(struct pd *d, int32_t pid, int32_t tid)
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

void pd_set_comm(struct pd_thread *th, const char *comm, size_t len)
{
	free(th->comm);
	th->comm = xmalloc(len + 1);
	memcpy(th->comm, comm, len);
	th->comm[len] = '\0';
	th->comm_set = true;
}

/* A hash of what a process has mapped where: forked processes that keep
 * their parent's mappings share the unwinder's view of them. */
uint64_t pd_maps_layout(struct pd_maps *m)
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
/* ---- records ---------------------------------------------------------------- */

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

void pd_mmap(struct pd *d, const unsigned char *rec, size_t size, bool v2)
{
	struct pd_cur c = { rec + 8, rec + size, false };
	uint16_t misc = pd_rd16(rec + 4);
	int32_t pid = (int32_t)pd_get32(&c), tid = (int32_t)pd_get32(&c);
	uint64_t start = pd_get64(&c), len = pd_get64(&c), pgoff = pd_get64(&c);
	uint32_t prot = PROT_EXEC_BIT, flags = 0;
	const unsigned char *bid = NULL;
	size_t bidlen = 0;
	char fname[4096], pname[64];

	if (v2) {
		const unsigned char *u = pd_skip(&c, 24);
		if (u && (misc & MISC_MMAP_BUILD_ID)) {
			bidlen = u[0] > 20 ? 20 : u[0];
			bid = u + 4;
		}
		prot = pd_get32(&c);
		flags = pd_get32(&c);
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

void pd_comm(struct pd *d, const unsigned char *rec, size_t size)
{
	struct pd_cur c = { rec + 8, rec + size, false };
	int32_t pid = (int32_t)pd_get32(&c), tid = (int32_t)pd_get32(&c);
	if (c.bad)
		return;
	size_t n = 0, max = (size_t)(c.end - c.p);
	while (n < max && c.p[n])
		n++;
	struct pd_thread *th = pd_findnew_thread(d, pid, tid);
	pd_set_comm(th, (const char *)c.p, n);
}

void pd_fork(struct pd *d, const unsigned char *rec, size_t size)
{
	struct pd_cur c = { rec + 8, rec + size, false };
	int32_t pid = (int32_t)pd_get32(&c), ppid = (int32_t)pd_get32(&c);
	int32_t tid = (int32_t)pd_get32(&c), ptid = (int32_t)pd_get32(&c);
	uint16_t misc = pd_rd16(rec + 4);
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

void pd_ksymbol(struct pd *d, const unsigned char *rec, size_t size)
{
	struct pd_cur c = { rec + 8, rec + size, false };
	uint64_t addr = pd_get64(&c);
	uint32_t len = pd_get32(&c);
	uint32_t type_flags = pd_get32(&c);        /* u16 ksym_type, u16 flags */
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
		size_t i = pd_maps_lower(&d->kmaps, addr);
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

void pd_threads_free(struct pd *d)
{
	for (size_t i = 0; i < d->threadcap; i++)
		for (struct pd_thread *th = d->threads[i], *nx; th; th = nx) {
			nx = th->next;
			pd_thread_free(d, th);
		}
	free(d->threads);
	for (size_t i = 0; i < d->dsocap; i++)
		for (struct pd_dso *x = d->dsos[i], *nx; x; x = nx) {
			nx = x->next;
			free(x->name);
			free(x);
		}
	free(d->dsos);
	free(d->kmaps.m);
}
