/* perfdata_header: what perf.data says of itself before its samples (see
 * perfdata_impl.h): the events (attributes, their sample ids and names),
 * the feature sections (build ids, host, kernel release, architecture,
 * command line, event descriptions), what this reader cannot read, and
 * where the sample_id fields of a record put its time. */
#include "config.h"
#include "perfdata_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "text.h"
#include "xalloc.h"

char *pd_strndup_nul(const unsigned char *p, size_t n)
{
	size_t len = 0;
	while (len < n && p[len])
		len++;
	char *s = xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
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
size_t pd_add_attr(struct pd *d, const unsigned char *p, size_t n)
{
	unsigned char a[128] = { 0 };
	uint32_t size;
	struct pd_attr *at;

	if (n < 64)
		return SIZE_MAX;
	size = pd_rd32(p + 4);
	if (size == 0)
		size = 64;      /* PERF_ATTR_SIZE_VER0 */
	if (size > n)
		size = (uint32_t)n;
	memcpy(a, p, size < sizeof a ? size : sizeof a);
	d->attrs = xreallocarray(d->attrs, d->nattr + 1, sizeof *d->attrs);
	at = &d->attrs[d->nattr];
	memset(at, 0, sizeof *at);
	at->type = pd_rd32(a);
	at->config = pd_rd64(a + 8);
	at->sample_period = pd_rd64(a + 16);
	at->sample_type = pd_rd64(a + 24);
	at->read_format = pd_rd64(a + 32);
	at->flags = pd_rd64(a + 40);
	at->branch_sample_type = pd_rd64(a + 72);
	at->regs_user = pd_rd64(a + 80);
	at->regs_intr = pd_rd64(a + 96);
	at->nregs_user = popcount64(at->regs_user);
	at->nregs_intr = popcount64(at->regs_intr);
	return d->nattr++;
}

void pd_add_id(struct pd *d, uint64_t id, size_t attr)
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

struct pd_attr *pd_attr_by_id(struct pd *d, uint64_t id)
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

const char *pd_attr_name(const struct pd_attr *a)
{
	return a->name ? a->name : pd_default_name(a);
}

/* ---- feature sections --------------------------------------------------- */

/* A perf header string: u32 length (with padding), then the bytes. */
static char *pd_string(struct pd_cur *c)
{
	uint32_t len = pd_get32(c);
	const unsigned char *p = pd_skip(c, len);
	return p ? pd_strndup_nul(p, len) : NULL;
}

void pd_copy_str(char *dst, size_t n, const char *src)
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
void pd_build_ids(struct pd *d, const unsigned char *p, size_t n)
{
	size_t off = 0;
	while (n - off >= 8 + 4 + 24) {
		uint16_t misc = pd_rd16(p + off + 4), size = pd_rd16(p + off + 6);
		if (size < 8 + 4 + 24 || size > n - off)
			break;
		const unsigned char *bid = p + off + 12;
		size_t blen = (misc & MISC_BUILD_ID_SIZE) ? bid[20] : 20;
		char *path = pd_strndup_nul(p + off + 36, size - 36u);
		pd_add_bid(d, path, bid, blen, (misc & MISC_CPUMODE_MASK) == MISC_KERNEL);
		free(path);
		off += size;
	}
}

/* HEADER_EVENT_DESC: u32 count, u32 attr size; per event its attribute,
 * u32 id count, its name, its ids. */
static void pd_event_desc(struct pd *d, const unsigned char *p, size_t n)
{
	struct pd_cur c = { p, p + n, false };
	uint32_t nev = pd_get32(&c), asz = pd_get32(&c);
	for (uint32_t i = 0; i < nev && !c.bad; i++) {
		if (!pd_skip(&c, asz))
			break;
		uint32_t nid = pd_get32(&c);
		char *name = pd_string(&c);
		if (!name)
			break;
		struct pd_attr *a = NULL;
		for (uint32_t k = 0; k < nid && !c.bad; k++) {
			uint64_t id = pd_get64(&c);
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

void pd_feature(struct pd *d, unsigned feat, const unsigned char *p, size_t n)
{
	struct pd_cur c = { p, p + n, false };
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
		if (n >= 8 && pd_rd32(p + 4) != 1)
			snprintf(d->unsupported, sizeof d->unsupported,
			         "its records are compressed with something other than zstd");
		break;
	case FEAT_CMDLINE: {
		uint32_t nargs = pd_get32(&c);
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
bool pd_same_kernel(struct pd *d)
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
/* What this reader cannot do right; d->unsupported says it (once the
 * attributes and features are known, before any sample). */
bool pd_check(struct pd *d)
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

/* ---- build ids by path ---------------------------------------------------- */

static int cmp_bid(const void *a, const void *b)
{
	const struct pd_bid *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The build id the header gives path (the last one listed). */
bool pd_lookup_bid(struct pd *d, const char *path, uint8_t *bid, uint8_t *len)
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

/* ---- the sample_id layout of records --------------------------------------- */

/* The attribute of a non-sample record, from the sample_id trailer's id. */
static struct pd_attr *pd_attr_of_other(struct pd *d, const unsigned char *rec, size_t size)
{
	struct pd_attr *a0 = &d->attrs[0];
	if (d->nattr == 1 || !(a0->flags & ATTR_SAMPLE_ID_ALL))
		return a0;
	if (a0->sample_type & S_IDENTIFIER) {
		if (size >= 16) {
			struct pd_attr *a = pd_attr_by_id(d, pd_rd64(rec + size - 8));
			return a ? a : a0;
		}
		return a0;
	}
	if (a0->sample_type & S_ID) {
		size_t from_end = 1 + !!(a0->sample_type & S_CPU) + !!(a0->sample_type & S_STREAM_ID);
		if (size >= 8 + from_end * 8) {
			struct pd_attr *a = pd_attr_by_id(d, pd_rd64(rec + size - from_end * 8));
			return a ? a : a0;
		}
	}
	return a0;
}

/* The time of a kernel record, or 0 when it has none. */
uint64_t pd_record_time(struct pd *d, const unsigned char *rec, size_t size)
{
	uint32_t type = pd_rd32(rec);
	if (!d->nattr)
		return 0;
	if (type == REC_SAMPLE) {
		/* IDENTIFIER, IP, TID, then TIME */
		struct pd_attr *a = &d->attrs[0];
		if (d->nattr > 1 && (a->sample_type & S_IDENTIFIER) && size >= 16) {
			struct pd_attr *x = pd_attr_by_id(d, pd_rd64(rec + 8));
			if (x)
				a = x;
		}
		uint64_t st = a->sample_type;
		if (!(st & S_TIME))
			return 0;
		size_t off = 8 + 8 * (!!(st & S_IDENTIFIER) + !!(st & S_IP) + !!(st & S_TID));
		return off + 8 <= size ? pd_rd64(rec + off) : 0;
	}
	struct pd_attr *a = pd_attr_of_other(d, rec, size);
	uint64_t st = a->sample_type;
	if (!(a->flags & ATTR_SAMPLE_ID_ALL) || !(st & S_TIME))
		return 0;
	size_t from_end = 1 + !!(st & S_IDENTIFIER) + !!(st & S_CPU) + !!(st & S_STREAM_ID) + !!(st & S_ID);
	if (size < 8 + from_end * 8)
		return 0;
	return pd_rd64(rec + size - from_end * 8);
}

void pd_header_free(struct pd *d)
{
	for (size_t i = 0; i < d->nattr; i++)
		free(d->attrs[i].name);
	free(d->attrs);
	free(d->ids);
	for (size_t i = 0; i < d->nbids; i++)
		free(d->bids[i].path);
	free(d->bids);
}
