/* perfdata_sample: SAMPLE records to frames (see perfdata_impl.h): the
 * record decoded by its event's sample_type, each callchain address
 * resolved in its context (kernel, user, hypervisor) against the thread's
 * mappings and the object's symbols, the user stack of --call-graph dwarf
 * samples unwound, and every frame handed to the perf script reader as
 * `perf script` would print it ("PC SYM+0xOFF (DSO)"), through its cache of
 * what an (object, address) becomes. */
#include "config.h"
#include "perfdata_impl.h"

#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* ---- decoding ----------------------------------------------------------------- */

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
	struct pd_cur c = { rec + 8, rec + size, false };
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
			struct pd_attr *x = pd_attr_by_id(d, pd_rd64(rec + 8 + pos * 8));
			if (x)
				a = x;
		}
	}
	s->attr = a;
	st = a->sample_type;
	s->cpumode = pd_rd16(rec + 4) & MISC_CPUMODE_MASK;
	if (st & ~(uint64_t)S_KNOWN)
		return false;
	if (st & S_IDENTIFIER)
		pd_get64(&c);
	if (st & S_IP)
		s->ip = pd_get64(&c);
	if (st & S_TID) {
		s->pid = (int32_t)pd_get32(&c);
		s->tid = (int32_t)pd_get32(&c);
	}
	if (st & S_TIME)
		s->time = pd_get64(&c);
	if (st & S_ADDR)
		pd_get64(&c);
	if (st & S_ID)
		pd_get64(&c);
	if (st & S_STREAM_ID)
		pd_get64(&c);
	if (st & S_CPU)
		pd_get64(&c);
	/* perf script prints the attribute's period when samples lack one */
	s->period = a->sample_period;
	if (st & S_PERIOD)
		s->period = pd_get64(&c);
	if (st & S_READ) {
		uint64_t rf = a->read_format;
		size_t per = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);
		if (rf & RF_GROUP) {
			uint64_t nr = pd_get64(&c);
			pd_skip(&c, 8 * (!!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING)));
			if (nr > size / 8 / per)
				return false;
			pd_skip(&c, nr * per * 8);
		} else {
			pd_skip(&c, 8 * (per + !!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING)));
		}
	}
	if (st & S_CALLCHAIN) {
		s->nchain = pd_get64(&c);
		if (s->nchain > size / 8)
			return false;
		s->chain = pd_skip(&c, s->nchain * 8);
		if (!s->chain)
			return false;
	}
	if (st & S_RAW) {
		uint32_t raw = pd_get32(&c);
		pd_skip(&c, raw);
	}
	if (st & S_BRANCH_STACK) {
		uint64_t nr = pd_get64(&c);
		if (a->branch_sample_type & BRANCH_HW_INDEX)
			pd_get64(&c);
		if (nr > size / 24)
			return false;
		pd_skip(&c, nr * 24);
	}
	if (st & S_REGS_USER) {
		s->regs_abi = pd_get64(&c);
		if (s->regs_abi)
			s->regs = pd_skip(&c, (uint64_t)a->nregs_user * 8);
	}
	if (st & S_STACK_USER) {
		uint64_t sz = pd_get64(&c);
		if (sz) {
			s->stack = pd_skip(&c, sz);
			uint64_t dyn = pd_get64(&c);
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
		m = pd_maps_find(&d->kmaps, ip);
	else if (cpumode == MISC_USER)
		m = pd_maps_find(th->maps, ip);
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
	const struct pd_map *m = pd_maps_find(u->th->maps, addr);
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


static void pd_unwind(struct pd *d, struct pd_thread *th, const struct pd_sample *s)
{
	uint64_t ips[PD_MAX_STACK];
	struct pd_unwind_ctx ctx = { d, th };
	struct unwind_input in = {
		.regs = s->regs, .nregs = s->attr->nregs_user, .regs_mask = s->attr->regs_user,
		.abi = s->regs_abi, .stack = s->stack, .stack_size = s->stack_size,
		.pid = th->pid, .tid = th->tid, .layout = pd_maps_layout(th->maps),
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

void pd_sample(struct pd *d, const unsigned char *rec, size_t size, uint64_t off)
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
			uint64_t ip = pd_rd64(s.chain + i * 8);
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

