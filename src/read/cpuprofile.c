/* cpuprofile: V8 CPU profiles and Chrome traces to stacks.
 *
 * Facts from the DevTools protocol's Profiler.Profile / ProfileNode types
 * and the trace event format document (no code from their readers). One
 * pass over the JSON (json.h) gathers nodes (id, name, hitCount), links
 * (parent id, child id: from "children" arrays and "parent" fields) and
 * sample counts per id, all in any key order; then links become parent
 * indices, and one iterative depth-first walk from the roots hands each
 * weighted node's stack to the tree, reusing the prefix shared with the
 * stack before (so the work is linear in the nodes, however deep). Nodes
 * no walk reaches hang under a cycle of parents. */
#include "config.h"
#include "cpuprofile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "nodewalk.h"
#include "text.h"
#include "xalloc.h"

/* Distinct (profile, id) pairs, nodes and sampled ids together: beyond it
 * the rest is skipped (a profile has thousands of nodes, not millions). */
#define CP_MAX_IDS ((size_t)1 << 24)
/* Profiles of one trace (processes and threads that were profiled). */
#define CP_MAX_PROFILES 4096
/* Sample counts of a .cpuprofile's ids below this go to a flat array
 * (V8 numbers nodes 1, 2, 3...): no hashing per sample. 32 MiB at most. */
#define CP_DENSE ((int64_t)1 << 22)
#define CP_NONE UINT32_MAX
#define CP_DUP (UINT32_MAX - 1)     /* parent mark: a node whose id repeats */
#define CP_NOID UINT32_MAX          /* a sample time's malformed or unusable id */

enum {  /* container tags (json.h) */
	T_TOP, T_ROOT, T_NODES, T_NODE, T_FRAME, T_CHILDREN, T_SAMPLES, T_DELTAS,
	T_TRACE, T_EVENT, T_ARGS, T_DATA, T_CPU, T_CSAMPLES, T_CDELTAS
};

/* A trace sample's time: profile ns, node id, microseconds from the
 * profile's startTime. */
struct cp_ttime {
	uint32_t ns, id;
	int64_t t_us;
};

/* A profile of a trace: its event's pid and id, and for times its tid,
 * startTime (from its "Profile" event) and running sum of deltas. */
struct cp_tprof {
	char id[64];
	int64_t pid, tid, start_us, tsum;
};

struct cp_node {
	int64_t id;
	uint64_t hit;       /* hitCount, then the weight */
	uint32_t name;      /* index into names */
	uint32_t ns;        /* which profile of a trace (0: a .cpuprofile) */
	tree_idx leaf;      /* its node in the tree (TREE_NONE: none yet) */
};

struct cp_link {
	int64_t parent, child;
	uint32_t ns;
};

/* One slot of the id table: a node and/or a sample count per (ns, id). */
struct cp_ent {
	int64_t id;
	uint64_t count;
	uint32_t ns;        /* UINT32_MAX: empty slot */
	uint32_t node;      /* CP_NONE: only samples name it so far */
};

struct cp_name {
	size_t off;
	uint32_t len;
	uint32_t hash;
};

struct cp {
	struct tree *t;
	const char *name;
	const struct cpuprofile_options *o;
	reader_msg_fn *msg;
	void *msgarg;

	struct cp_node *nodes;
	size_t nnodes, capnodes;
	struct cp_link *links;
	size_t nlinks, caplinks;
	struct cp_ent *ents;
	size_t nents, capents;      /* capents: a power of two (0: none yet) */
	uint64_t *dense;            /* counts of small ids of profile 0 */
	size_t ndense;

	/* interned names */
	char *nbuf;
	size_t nbuflen, nbufcap;
	struct cp_name *names;
	uint32_t nnames, capnames;
	uint32_t *nslots;
	size_t capnslots;
	uint32_t anon;              /* "(anonymous)" */

	/* the node being read */
	struct cp_node cur;
	bool cur_id, cur_parent;
	bool cur_badid;             /* its id was malformed (counted already) */
	int64_t cur_parent_id;
	int64_t *kids;
	size_t nkids, capkids;

	/* the trace event being read: where its data starts, and its samples
	 * (its profile is known only at its end: "id" sorts after "args") */
	bool ev_data;
	size_t ev_nodes, ev_links;
	int64_t *evs;
	size_t nevs, capevs;
	char ev_id[64];
	int64_t ev_pid, ev_tid;
	bool ev_has_start;
	int64_t ev_start;
	uint32_t *evt;              /* the event's samples for times, each
	                               element (CP_NOID: malformed) */
	size_t nevt, capevt;
	int64_t *evd;               /* its "timeDeltas" (CP_NODELTA: malformed) */
	size_t nevd, capevd;
	struct cp_tprof *profiles;
	uint32_t nprofiles;
	struct cp_ttime *tt;        /* trace sample times (o->timeline) */
	size_t ntt, captt;

	bool trace, saw_nodes, saw_samples, full;
	uint64_t nsamples;
	/* sample times: "samples" and "timeDeltas" kept by index as they
	 * stream in (4 bytes an element each), paired once the tree is built
	 * and leaves are known (see add_times) */
	uint32_t *sid;              /* node ids (CP_NOID: malformed or out
	                               of range) */
	size_t nsid, capsid;
	int32_t *sdt;               /* deltas (CP_NODT: malformed; CP_BIGDT:
	                               the next of big) */
	size_t nsdt, capsdt;
	int64_t *big;
	size_t nbig, capbig;
	bool times_off;             /* a repeated key: no times at all */
	bool saw_samples_key, saw_deltas_key;
	tree_idx *idleaf;           /* leaves by node id (NULL: look them up) */
	size_t nidleaf;
	uint64_t bad;               /* malformed values skipped */
	char first_bad[96];
	int64_t start_us, end_us;
};

static void bad(struct cp *c, const char *what)
{
	if (!c->bad++)
		snprintf(c->first_bad, sizeof c->first_bad, "%s", what);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---- the id table ------------------------------------------------------- */

static void ents_grow(struct cp *c)
{
	size_t cap = c->capents ? c->capents * 2 : 1024;
	struct cp_ent *e = xmalloc(cap * sizeof *e);
	for (size_t i = 0; i < cap; i++)
		e[i].ns = UINT32_MAX;
	for (size_t i = 0; i < c->capents; i++) {
		if (c->ents[i].ns == UINT32_MAX)
			continue;
		size_t h = mix((uint64_t)c->ents[i].id ^ ((uint64_t)c->ents[i].ns << 40)) & (cap - 1);
		while (e[h].ns != UINT32_MAX)
			h = (h + 1) & (cap - 1);
		e[h] = c->ents[i];
	}
	free(c->ents);
	c->ents = e;
	c->capents = cap;
}

/* The slot of (ns, id), made when create; NULL when absent or full. */
static struct cp_ent *ent(struct cp *c, uint32_t ns, int64_t id, bool create)
{
	if (c->capents) {
		size_t h = mix((uint64_t)id ^ ((uint64_t)ns << 40)) & (c->capents - 1);
		for (;; h = (h + 1) & (c->capents - 1)) {
			struct cp_ent *e = &c->ents[h];
			if (e->ns == UINT32_MAX)
				break;
			if (e->id == id && e->ns == ns)
				return e;
		}
	}
	if (!create)
		return NULL;
	if (c->nents >= CP_MAX_IDS) {
		c->full = true;
		return NULL;
	}
	if ((c->nents + 1) * 2 > c->capents)
		ents_grow(c);
	size_t h = mix((uint64_t)id ^ ((uint64_t)ns << 40)) & (c->capents - 1);
	while (c->ents[h].ns != UINT32_MAX)
		h = (h + 1) & (c->capents - 1);
	c->ents[h] = (struct cp_ent){ .id = id, .ns = ns, .node = CP_NONE };
	c->nents++;
	return &c->ents[h];
}

static void count_sample(struct cp *c, uint32_t ns, int64_t id)
{
	if (ns == 0 && id >= 0 && id < CP_DENSE) {
		if ((size_t)id >= c->ndense) {
			size_t n = c->ndense ? c->ndense : 1024;
			while (n <= (size_t)id)
				n *= 2;
			c->dense = xreallocarray(c->dense, n, sizeof *c->dense);
			memset(c->dense + c->ndense, 0, (n - c->ndense) * sizeof *c->dense);
			c->ndense = n;
		}
		if (c->dense[id] < UINT64_MAX)
			c->dense[id]++;
		return;
	}
	struct cp_ent *e = ent(c, ns, id, true);
	if (e && e->count < UINT64_MAX)
		e->count++;
}

/* ---- sample times --------------------------------------------------------- */

#define CP_NODT INT32_MIN
#define CP_BIGDT (INT32_MIN + 1)

/* Element `index` of "samples" (kind 1: v a node id) or of "timeDeltas"
 * (kind 2: v a delta), ok false when it was malformed: kept at its index
 * (elements skipped in between read as malformed), for add_times. */
static void keep_time(struct cp *c, int kind, uint64_t index, bool ok, int64_t v)
{
	if (!c->o || !c->o->timeline || c->times_off || index >= (uint64_t)1 << 40)
		return;
	if (kind == 1) {
		if (index + 1 > c->capsid) {
			c->capsid = c->capsid ? c->capsid * 2 : 1024;
			if (c->capsid < index + 1)
				c->capsid = (size_t)index + 1;
			c->sid = xreallocarray(c->sid, c->capsid, sizeof *c->sid);
		}
		while (c->nsid < index)
			c->sid[c->nsid++] = CP_NOID;
		/* no node can have an id out of this range as a leaf id */
		c->sid[c->nsid++] = ok && v >= 0 && v < (int64_t)TREE_MAX_NODES ? (uint32_t)v : CP_NOID;
		return;
	}
	if (index + 1 > c->capsdt) {
		c->capsdt = c->capsdt ? c->capsdt * 2 : 1024;
		if (c->capsdt < index + 1)
			c->capsdt = (size_t)index + 1;
		c->sdt = xreallocarray(c->sdt, c->capsdt, sizeof *c->sdt);
	}
	while (c->nsdt < index)
		c->sdt[c->nsdt++] = CP_NODT;
	if (ok && (v <= CP_BIGDT || v > INT32_MAX)) {
		if (c->nbig == c->capbig) {
			c->capbig = c->capbig ? c->capbig * 2 : 64;
			c->big = xreallocarray(c->big, c->capbig, sizeof *c->big);
		}
		c->big[c->nbig++] = v;
		c->sdt[c->nsdt++] = CP_BIGDT;
	} else {
		c->sdt[c->nsdt++] = ok ? (int32_t)v : CP_NODT;
	}
}

static tree_idx leaf_of_id(void *arg, tree_idx id)
{
	struct cp *c = arg;
	if (c->idleaf)
		return id < c->nidleaf ? c->idleaf[id] : TREE_NONE;
	const struct cp_ent *e = ent(c, 0, id, false);
	return e && e->node != CP_NONE ? c->nodes[e->node].leaf : TREE_NONE;
}

/* The leaves of small node ids in an array, so that a million samples do
 * not cost a million lookups in the id table: the node an id names is
 * its first (the table's), as leaf_of_id's slow way says. */
static void idleaf_build(struct cp *c)
{
	int64_t max = -1;
	for (size_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].ns == 0 && c->nodes[i].id > max)
			max = c->nodes[i].id;
	if (max < 0 || max >= CP_DENSE || (size_t)max > 8 * c->nnodes + 1024)
		return;         /* sparse ids: the table it is */
	c->nidleaf = (size_t)max + 1;
	c->idleaf = xmalloc(c->nidleaf * sizeof *c->idleaf);
	for (size_t id = 0; id < c->nidleaf; id++) {
		const struct cp_ent *e = ent(c, 0, (int64_t)id, false);
		c->idleaf[id] = e && e->node != CP_NONE ? c->nodes[e->node].leaf : TREE_NONE;
	}
}

/* t + shift ns, clamped to [0, UINT64_MAX]. */
static uint64_t cp_shifted(uint64_t t, int64_t shift)
{
	if (shift >= 0)
		return t > UINT64_MAX - (uint64_t)shift ? UINT64_MAX : t + (uint64_t)shift;
	uint64_t back = 0 - (uint64_t)shift;
	return t < back ? 0 : t - back;
}

/* The sample times, once the tree is built: element i of "samples" and of
 * "timeDeltas" paired (one of them malformed: dropped), at startTime plus
 * the running sum of the deltas up to i (a sum that would overflow stops
 * moving), each to its node's leaf; straight into the caller's timeline,
 * coded once. */
static void add_times(struct cp *c)
{
	struct timeline *tl = c->o->timeline;
	int64_t shift = c->start_us > INT64_MAX / 1000 ? INT64_MAX
	              : c->start_us < INT64_MIN / 1000 ? INT64_MIN : c->start_us * 1000;
	size_t n = c->nsid < c->nsdt ? c->nsid : c->nsdt, nb = 0;
	int64_t tsum = 0;
	uint32_t th = 0;
	bool thread = false;
	idleaf_build(c);
	for (size_t i = 0; i < n; i++) {
		int32_t d = c->sdt[i];
		if (d == CP_NODT)
			continue;
		int64_t v = d == CP_BIGDT ? c->big[nb++] : d;
		if ((v > 0 && tsum <= INT64_MAX - v) || (v < 0 && tsum >= INT64_MIN - v))
			tsum += v;
		if (c->sid[i] == CP_NOID)
			continue;
		if (!thread) {      /* as the first sample paired made it */
			th = timeline_thread(tl, -1, -1, "main", 4);
			thread = true;
		}
		tree_idx leaf = leaf_of_id(c, c->sid[i]);
		if (leaf == TREE_NONE)
			continue;
		int64_t ns = tsum > INT64_MAX / 1000 ? INT64_MAX : tsum < INT64_MIN / 1000 ? INT64_MIN : tsum * 1000;
		timeline_add(tl, cp_shifted((uint64_t)ns, shift), leaf, th, 1);
	}
}

/* A trace's sample times, once the tree is built: each to its node's leaf
 * in its profile, on one thread per profile (its pid and tid, named
 * "Profile ID"), at the profile's startTime plus the deltas (us to ns,
 * clamped to [0, 2^64)). */
static void add_trace_times(struct cp *c)
{
	struct timeline *tl = c->o->timeline;
	uint32_t *th = xmalloc(((size_t)c->nprofiles + 1) * sizeof *th);
	for (size_t i = 0; i <= c->nprofiles; i++)
		th[i] = UINT32_MAX;
	for (size_t i = 0; i < c->ntt; i++) {
		const struct cp_ttime *s = &c->tt[i];
		const struct cp_ent *e = ent(c, s->ns, s->id, false);
		if (!e || e->node == CP_NONE || c->nodes[e->node].leaf == TREE_NONE)
			continue;
		const struct cp_tprof *p = &c->profiles[s->ns - 1];
		if (th[s->ns] == UINT32_MAX) {
			char comm[80];
			int len = snprintf(comm, sizeof comm, "Profile %s", p->id);
			th[s->ns] = timeline_thread(tl, p->pid, p->tid, comm,
			                            len < 0 ? 0 : (size_t)len < sizeof comm ? (size_t)len : sizeof comm - 1);
		}
		int64_t us = s->t_us, at;
		if ((us > 0 && p->start_us > INT64_MAX - us) || (us < 0 && p->start_us < INT64_MIN - us))
			at = us > 0 ? INT64_MAX : INT64_MIN;
		else
			at = p->start_us + us;
		uint64_t ns = at <= 0 ? 0 : at > INT64_MAX / 1000 ? (uint64_t)INT64_MAX : (uint64_t)at * 1000;
		timeline_add(tl, ns, c->nodes[e->node].leaf, th[s->ns], 1);
	}
	free(th);
}

/* ---- names -------------------------------------------------------------- */

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static uint32_t intern(struct cp *c, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		len = UINT32_MAX;   /* beyond JSON_MAX_TOKEN anyway */
	uint32_t h = name_hash(s, len);
	if ((size_t)(c->nnames + 1) * 2 > c->capnslots) {
		size_t cap = c->capnslots ? c->capnslots * 2 : 1024;
		uint32_t *sl = xmalloc(cap * sizeof *sl);
		memset(sl, 0xff, cap * sizeof *sl);
		for (uint32_t i = 0; i < c->nnames; i++) {
			size_t k = c->names[i].hash & (cap - 1);
			while (sl[k] != UINT32_MAX)
				k = (k + 1) & (cap - 1);
			sl[k] = i;
		}
		free(c->nslots);
		c->nslots = sl;
		c->capnslots = cap;
	}
	size_t k = h & (c->capnslots - 1);
	for (; c->nslots[k] != UINT32_MAX; k = (k + 1) & (c->capnslots - 1)) {
		const struct cp_name *n = &c->names[c->nslots[k]];
		if (n->hash == h && n->len == len && memcmp(c->nbuf + n->off, s, len) == 0)
			return c->nslots[k];
	}
	if (c->nnames == c->capnames) {
		c->capnames = c->capnames ? c->capnames * 2 : 256;
		c->names = xreallocarray(c->names, c->capnames, sizeof *c->names);
	}
	if (c->nbuflen + len > c->nbufcap) {
		c->nbufcap = (c->nbuflen + len) * 2 + 4096;
		c->nbuf = xrealloc(c->nbuf, c->nbufcap);
	}
	memcpy(c->nbuf + c->nbuflen, s, len);
	c->names[c->nnames] = (struct cp_name){ .off = c->nbuflen, .len = (uint32_t)len, .hash = h };
	c->nbuflen += len;
	c->nslots[k] = c->nnames;
	return c->nnames++;
}

/* ---- gathering ---------------------------------------------------------- */

static void push_link(struct cp *c, int64_t parent, int64_t child, uint32_t ns)
{
	if (c->nlinks == c->caplinks) {
		c->caplinks = c->caplinks ? c->caplinks * 2 : 1024;
		c->links = xreallocarray(c->links, c->caplinks, sizeof *c->links);
	}
	c->links[c->nlinks++] = (struct cp_link){ parent, child, ns };
}

static void node_begin(struct cp *c)
{
	c->cur = (struct cp_node){ .name = c->anon, .leaf = TREE_NONE };
	c->cur_id = c->cur_parent = c->cur_badid = false;
	c->nkids = 0;
}

static void node_end(struct cp *c)
{
	if (!c->cur_id) {
		if (!c->cur_badid)
			bad(c, "a node without an \"id\"");
		return;
	}
	if (c->nnodes >= CP_MAX_IDS) {
		c->full = true;
		return;
	}
	if (c->nnodes == c->capnodes) {
		c->capnodes = c->capnodes ? c->capnodes * 2 : 1024;
		c->nodes = xreallocarray(c->nodes, c->capnodes, sizeof *c->nodes);
	}
	c->nodes[c->nnodes++] = c->cur;
	for (size_t i = 0; i < c->nkids; i++)
		push_link(c, c->cur.id, c->kids[i], c->cur.ns);
	if (c->cur_parent)
		push_link(c, c->cur_parent_id, c->cur.id, c->cur.ns);
}

#define CP_NODELTA INT64_MIN

/* A trace event's sample times (profile ns): a "Profile" event's
 * startTime starts its profile's clock; a "ProfileChunk"'s samples and
 * timeDeltas pair by index, the deltas summing on from the chunk before
 * (as in a .cpuprofile, a malformed partner drops a sample and a sum that
 * would overflow stops moving). */
static void trace_times(struct cp *c, uint32_t ns)
{
	if (ns == 0 || ns > c->nprofiles)
		return;
	struct cp_tprof *p = &c->profiles[ns - 1];
	if (c->ev_has_start) {
		p->start_us = c->ev_start;
		p->tsum = 0;
	}
	size_t n = c->nevt < c->nevd ? c->nevt : c->nevd;
	for (size_t i = 0; i < n; i++) {
		int64_t v = c->evd[i];
		if (v == CP_NODELTA)
			continue;
		if ((v > 0 && p->tsum <= INT64_MAX - v) || (v < 0 && p->tsum >= INT64_MIN - v))
			p->tsum += v;
		if (c->evt[i] == CP_NOID)
			continue;
		if (c->ntt == c->captt) {
			c->captt = c->captt ? c->captt * 2 : 1024;
			c->tt = xreallocarray(c->tt, c->captt, sizeof *c->tt);
		}
		c->tt[c->ntt++] = (struct cp_ttime){ ns, c->evt[i], p->tsum };
	}
	c->nevt = c->nevd = 0;
}

/* The profile of a trace event, from its "pid" and "id" (1, 2, ...). */
static uint32_t trace_ns(struct cp *c)
{
	for (uint32_t i = 0; i < c->nprofiles; i++)
		if (c->profiles[i].pid == c->ev_pid && strcmp(c->profiles[i].id, c->ev_id) == 0)
			return i + 1;
	if (c->nprofiles == CP_MAX_PROFILES)
		return CP_MAX_PROFILES;     /* the rest share the last one */
	if (!c->profiles)
		c->profiles = xcalloc(CP_MAX_PROFILES, sizeof *c->profiles);
	c->profiles[c->nprofiles].pid = c->ev_pid;
	c->profiles[c->nprofiles].tid = c->ev_tid;
	memcpy(c->profiles[c->nprofiles].id, c->ev_id, sizeof c->ev_id);
	return ++c->nprofiles;
}

/* End of a trace event with profile data: its nodes, links and samples
 * now learn their profile. */
static void event_end(struct cp *c)
{
	bool times = c->o && c->o->timeline;
	if (!c->ev_data && !(times && c->ev_has_start))
		return;
	uint32_t ns = trace_ns(c);
	if (times)
		trace_times(c, ns);
	if (!c->ev_data)
		return;
	for (size_t i = c->ev_nodes; i < c->nnodes; i++)
		c->nodes[i].ns = ns;
	for (size_t i = c->ev_links; i < c->nlinks; i++)
		c->links[i].ns = ns;
	for (size_t i = 0; i < c->nevs; i++)
		count_sample(c, ns, c->evs[i]);
	c->nevs = 0;
}

static uint8_t container(struct cp *c, const struct json_event *e)
{
	bool map = e->type == JSON_START_MAP;
	const char *k = e->key;
	switch (e->parent) {
	case T_TOP:
		return map ? T_ROOT : T_TRACE;
	case T_ROOT:
	case T_CPU:
		if (!map && strcmp(k, "nodes") == 0) {
			c->saw_nodes = true;
			return T_NODES;
		}
		if (!map && strcmp(k, "samples") == 0) {
			if (e->parent == T_ROOT && c->saw_samples_key)
				c->times_off = true;
			if (e->parent == T_ROOT)
				c->saw_samples_key = true;
			return e->parent == T_ROOT ? T_SAMPLES : T_CSAMPLES;
		}
		if (!map && e->parent == T_ROOT && strcmp(k, "timeDeltas") == 0) {
			if (c->saw_deltas_key)
				c->times_off = true;
			c->saw_deltas_key = true;
			return T_DELTAS;
		}
		if (!map && e->parent == T_ROOT && strcmp(k, "traceEvents") == 0)
			return T_TRACE;
		return JSON_SKIP;
	case T_NODES:
		if (!map)
			return JSON_SKIP;
		node_begin(c);
		return T_NODE;
	case T_NODE:
		if (map && strcmp(k, "callFrame") == 0)
			return T_FRAME;
		if (!map && strcmp(k, "children") == 0)
			return T_CHILDREN;
		return JSON_SKIP;
	case T_TRACE:
		if (!map)
			return JSON_SKIP;
		c->trace = true;
		c->ev_data = c->ev_has_start = false;
		c->ev_id[0] = '\0';
		c->ev_pid = c->ev_tid = 0;
		c->nevs = c->nevt = c->nevd = 0;
		return T_EVENT;
	case T_EVENT:
		return map && strcmp(k, "args") == 0 ? T_ARGS : JSON_SKIP;
	case T_ARGS:
		return map && strcmp(k, "data") == 0 ? T_DATA : JSON_SKIP;
	case T_DATA:
		if (map && strcmp(k, "cpuProfile") == 0) {
			if (!c->ev_data) {
				c->ev_data = true;
				c->ev_nodes = c->nnodes;
				c->ev_links = c->nlinks;
			}
			return T_CPU;
		}
		if (!map && strcmp(k, "timeDeltas") == 0 && c->o && c->o->timeline)
			return T_CDELTAS;
		return JSON_SKIP;
	default:
		return JSON_SKIP;
	}
}

static bool int_of(struct cp *c, const struct json_event *e, int64_t min, int64_t *out, const char *what)
{
	if (json_int(e, min, INT64_MAX, out))
		return true;
	bad(c, what);
	return false;
}

#define CP_DELTA_MIN (INT64_MIN / 2)

/* Sample index i of the profile's "samples": node id v. */
static void sample(struct cp *c, uint64_t i, int64_t v)
{
	count_sample(c, 0, v);
	c->saw_samples = true;
	keep_time(c, 1, i, true, v);
}

/* The next sample of a ProfileChunk event (ok: v is an integer). */
static void chunk_sample(struct cp *c, bool ok, int64_t v)
{
	if (ok) {
		if (c->nevs == c->capevs) {
			c->capevs = c->capevs ? c->capevs * 2 : 1024;
			c->evs = xreallocarray(c->evs, c->capevs, sizeof *c->evs);
		}
		c->evs[c->nevs++] = v;
		c->saw_samples = true;
	}
	if (c->o && c->o->timeline) {
		if (c->nevt == c->capevt) {
			c->capevt = c->capevt ? c->capevt * 2 : 1024;
			c->evt = xreallocarray(c->evt, c->capevt, sizeof *c->evt);
		}
		c->evt[c->nevt++] = ok && v >= 0 && v < (int64_t)TREE_MAX_NODES ? (uint32_t)v : CP_NOID;
	}
}

/* The next time delta of a ProfileChunk event (ok: v is one). */
static void chunk_delta(struct cp *c, bool ok, int64_t v)
{
	if (c->nevd == c->capevd) {
		c->capevd = c->capevd ? c->capevd * 2 : 1024;
		c->evd = xreallocarray(c->evd, c->capevd, sizeof *c->evd);
	}
	c->evd[c->nevd++] = ok ? v : CP_NODELTA;
}

/* Integers in a row (JSON_INTS) of the samples or the time deltas, as
 * scalar() takes them one by one. */
static void ints(struct cp *c, const struct json_event *e)
{
	for (size_t i = 0; i < e->nrun; i++) {
		int64_t v = e->run[i];
		bool delta_ok = v >= CP_DELTA_MIN;
		if ((e->parent == T_DELTAS || e->parent == T_CDELTAS) && !delta_ok)
			bad(c, "a time delta that is not an integer");
		switch (e->parent) {
		case T_SAMPLES:
			sample(c, e->index + i, v);
			break;
		case T_DELTAS:
			keep_time(c, 2, e->index + i, delta_ok, delta_ok ? v : 0);
			break;
		case T_CSAMPLES:
			chunk_sample(c, true, v);
			break;
		case T_CDELTAS:
			chunk_delta(c, delta_ok, v);
			break;
		default:
			break;
		}
	}
}

static void scalar(struct cp *c, const struct json_event *e)
{
	int64_t v = 0;
	const char *k = e->key;
	switch (e->parent) {
	case T_ROOT:
		if (strcmp(k, "startTime") == 0 && json_int(e, INT64_MIN, INT64_MAX, &v))
			c->start_us = v;
		else if (strcmp(k, "endTime") == 0 && json_int(e, INT64_MIN, INT64_MAX, &v))
			c->end_us = v;
		break;
	case T_NODE:
		if (strcmp(k, "id") == 0) {
			if (int_of(c, e, INT64_MIN, &v, "a node id that is not an integer")) {
				c->cur.id = v;
				c->cur_id = true;
			} else {
				c->cur_badid = true;
			}
		} else if (strcmp(k, "hitCount") == 0) {
			if (int_of(c, e, 0, &v, "a hitCount that is not a count"))
				c->cur.hit = (uint64_t)v;
		} else if (strcmp(k, "parent") == 0) {
			if (int_of(c, e, INT64_MIN, &v, "a parent id that is not an integer")) {
				c->cur_parent_id = v;
				c->cur_parent = true;
			}
		}
		break;
	case T_FRAME:
		if (e->type == JSON_STRING && strcmp(k, "functionName") == 0 && e->len > 0)
			c->cur.name = intern(c, e->s, e->len);
		break;
	case T_CHILDREN:
		if (int_of(c, e, INT64_MIN, &v, "a child id that is not an integer")) {
			if (c->nkids == c->capkids) {
				c->capkids = c->capkids ? c->capkids * 2 : 16;
				c->kids = xreallocarray(c->kids, c->capkids, sizeof *c->kids);
			}
			c->kids[c->nkids++] = v;
		}
		break;
	case T_SAMPLES:
		if (int_of(c, e, INT64_MIN, &v, "a sample that is not a node id"))
			sample(c, e->index, v);
		else
			keep_time(c, 1, e->index, false, 0);
		break;
	case T_CSAMPLES: {
		bool ok = int_of(c, e, INT64_MIN, &v, "a sample that is not a node id");
		chunk_sample(c, ok, v);
		break;
	}
	case T_CDELTAS: {
		bool ok = int_of(c, e, CP_DELTA_MIN, &v, "a time delta that is not an integer");
		chunk_delta(c, ok, v);
		break;
	}
	case T_DELTAS:
		if (int_of(c, e, CP_DELTA_MIN, &v, "a time delta that is not an integer"))
			keep_time(c, 2, e->index, true, v);
		else
			keep_time(c, 2, e->index, false, 0);
		break;
	case T_EVENT:
		if (strcmp(k, "id") == 0) {
			/* "0x1" in Chrome; a number would do as well */
			size_t n = e->len < sizeof c->ev_id - 1 ? e->len : sizeof c->ev_id - 1;
			memcpy(c->ev_id, e->s, n);
			c->ev_id[n] = '\0';
		} else if (strcmp(k, "pid") == 0 && json_int(e, INT64_MIN, INT64_MAX, &v)) {
			c->ev_pid = v;
		} else if (strcmp(k, "tid") == 0 && json_int(e, INT64_MIN, INT64_MAX, &v)) {
			c->ev_tid = v;
		}
		break;
	case T_DATA:
		if (strcmp(k, "startTime") == 0 && json_int(e, INT64_MIN, INT64_MAX, &v)) {
			c->ev_has_start = true;
			c->ev_start = v;
		}
		break;
	default:
		break;
	}
}

static bool on_event(void *arg, struct json_event *e)
{
	struct cp *c = arg;
	switch (e->type) {
	case JSON_START_MAP:
	case JSON_START_ARRAY:
		e->tag = container(c, e);
		/* the bulk of a file: json's scanner reads it */
		e->fast = e->tag == T_NODES || e->tag == T_SAMPLES || e->tag == T_DELTAS || e->tag == T_TRACE;
		e->int_runs = e->tag == T_SAMPLES || e->tag == T_DELTAS || e->tag == T_CSAMPLES || e->tag == T_CDELTAS;
		return true;
	case JSON_INTS:
		ints(c, e);
		return true;
	case JSON_END_MAP:
		if (e->tag == T_NODE)
			node_end(c);
		else if (e->tag == T_EVENT)
			event_end(c);
		return true;
	case JSON_END_ARRAY:
		return true;
	default:
		scalar(c, e);
		return true;
	}
}

/* ---- building ----------------------------------------------------------- */

/* Hands every weighted node's stack to the tree, walking from the roots
 * without recursion. Returns the nodes reached; *handed sums their weight
 * (saturating). */
static size_t walk(struct cp *c, const uint32_t *parent, uint64_t *handed)
{
	size_t n = c->nnodes;
	struct nodewalk w;
	/* CP_DUP and CP_NONE (>= n): no node's child */
	nodewalk_init(&w, parent, sizeof *parent, n);
	struct tree_frame *path = xmalloc((n ? n : 1) * sizeof *path);
	size_t reached = 0;
	for (size_t r = 0; r < n; r++) {
		if (parent[r] != CP_NONE)
			continue;
		for (uint32_t v = nodewalk_start(&w, (uint32_t)r); v != NODEWALK_END; v = nodewalk_next(&w)) {
			const struct cp_name *nm = &c->names[c->nodes[v].name];
			const char *s = c->nbuf + nm->off;
			size_t plen = nodewalk_base(&w);
			bool drop = nodewalk_depth(&w) == 0 && nm->len == 6 && memcmp(s, "(root)", 6) == 0;
			if (!drop)
				path[plen++] = (struct tree_frame){ s, nm->len };
			nodewalk_enter(&w, v, plen);
			reached++;
			uint64_t wt = c->nodes[v].hit;
			if (wt > 0 && drop) {
				/* samples of "(root)" itself keep its name: a stack
				 * needs a frame to be a folded line (at a root, the
				 * walk's next stack shares nothing with it) */
				struct tree_frame rf = { s, nm->len };
				c->nodes[v].leaf = tree_add_stack_tail(c->t, 0, &rf, 1, wt);
			} else if (wt > 0) {
				size_t keep = nodewalk_keep(&w, plen);
				c->nodes[v].leaf = tree_add_stack_tail(c->t, keep, path + keep, plen - keep, wt);
			}
			if (wt > 0)
				*handed = wt > UINT64_MAX - *handed ? UINT64_MAX : *handed + wt;
		}
	}
	free(path);
	nodewalk_free(&w);
	return reached;
}

static int build(struct cp *c)
{
	size_t n = c->nnodes;
	uint64_t dups = 0, badlinks = 0, twoparents = 0, unknown = 0, over = 0;
	/* the flat counts join the table */
	for (size_t id = 0; id < c->ndense; id++) {
		if (!c->dense[id])
			continue;
		struct cp_ent *e = ent(c, 0, (int64_t)id, true);
		if (e)
			e->count = c->dense[id] > UINT64_MAX - e->count ? UINT64_MAX : e->count + c->dense[id];
	}
	free(c->dense);
	c->dense = NULL;
	uint32_t *parent = xmalloc((n ? n : 1) * sizeof *parent);
	for (size_t i = 0; i < n; i++) {
		parent[i] = CP_NONE;
		struct cp_ent *e = ent(c, c->nodes[i].ns, c->nodes[i].id, true);
		if (!e) {
			parent[i] = CP_DUP;     /* beyond the table: skipped */
			over++;
		} else if (e->node != CP_NONE) {
			parent[i] = CP_DUP;
			dups++;
		} else {
			e->node = (uint32_t)i;
		}
	}
	for (size_t i = 0; i < c->nlinks; i++) {
		const struct cp_link *l = &c->links[i];
		struct cp_ent *pe = ent(c, l->ns, l->parent, false), *ce = ent(c, l->ns, l->child, false);
		if (!pe || !ce || pe->node == CP_NONE || ce->node == CP_NONE) {
			badlinks++;
			continue;
		}
		uint32_t *p = &parent[ce->node];
		if (*p == CP_NONE)
			*p = pe->node;
		else if (*p != pe->node)
			twoparents++;
	}
	/* Weights: samples when there are any, else hitCount. */
	bool by_samples = c->saw_samples;
	if (by_samples) {
		for (size_t i = 0; i < n; i++)
			c->nodes[i].hit = 0;
		for (size_t i = 0; i < c->capents; i++) {
			const struct cp_ent *e = &c->ents[i];
			if (e->ns == UINT32_MAX || e->count == 0)
				continue;
			if (e->node == CP_NONE)
				unknown += e->count;
			else
				c->nodes[e->node].hit = e->count;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (parent[i] == CP_DUP)
			c->nodes[i].hit = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total = c->nodes[i].hit > UINT64_MAX - total ? UINT64_MAX : total + c->nodes[i].hit;

	uint64_t handed = 0;
	size_t reached = walk(c, parent, &handed);
	size_t cut = n - reached - (size_t)dups - (size_t)over;
	uint64_t lost = total - handed;     /* the weight under cycles */

	if (c->full)
		json_msgf(c->msg, c->msgarg, c->name, "more than %zu distinct node ids; the rest were skipped",
		          CP_MAX_IDS);
	if (c->bad)
		json_msgf(c->msg, c->msgarg, c->name, "skipped %" PRIu64 " malformed value%s (first: %s)", c->bad,
		          c->bad == 1 ? "" : "s", c->first_bad);
	if (dups)
		json_msgf(c->msg, c->msgarg, c->name, "%" PRIu64 " %s an id used before; skipped", dups,
		          dups == 1 ? "node repeats" : "nodes repeat");
	if (badlinks)
		json_msgf(c->msg, c->msgarg, c->name, "%" PRIu64 " parent or child %s no node; ignored",
		          badlinks, badlinks == 1 ? "link names" : "links name");
	if (twoparents)
		json_msgf(c->msg, c->msgarg, c->name, "%" PRIu64 " %s two parents; the first is kept",
		          twoparents, twoparents == 1 ? "node has" : "nodes have");
	if (cut)
		json_msgf(c->msg, c->msgarg, c->name, "%zu %s in or under a cycle of parents; skipped "
		          "(%" PRIu64 " sample%s)", cut, cut == 1 ? "node sits" : "nodes sit", lost, lost == 1 ? "" : "s");
	if (unknown)
		json_msgf(c->msg, c->msgarg, c->name, "%" PRIu64 " %s no node; skipped", unknown,
		          unknown == 1 ? "sample names" : "samples name");
	if (c->o && c->o->info) {
		struct cpuprofile_info *in = c->o->info;
		in->start_us = c->start_us;
		in->end_us = c->end_us;
		in->nodes = n;
		in->samples = total;
		in->trace = c->trace;
	}
	free(parent);
	return 0;
}

/* ---- entry points ------------------------------------------------------- */

int cpuprofile_load(struct tree *t, struct source *s, const char *name,
                    const struct cpuprofile_options *o, reader_msg_fn *msg, void *msgarg)
{
	struct cp *c = xcalloc(1, sizeof *c);
	c->t = t;
	c->name = name;
	c->o = o;
	c->msg = msg;
	c->msgarg = msgarg;
	c->anon = intern(c, "(anonymous)", 11);
	if (o && o->info)
		memset(o->info, 0, sizeof *o->info);
	enum json_status st = json_parse(s, name, on_event, c, msg, msgarg, o ? o->progress : NULL,
	                                 o ? o->progress_arg : NULL);
	int rc;
	if (!c->saw_nodes && !c->ev_data && c->nnodes == 0) {
		if (st == JSON_OK)
			json_msgf(msg, msgarg, name, c->trace ? "a Chrome trace without CPU profile events"
			                                      : "not a V8 CPU profile (no \"nodes\" array)");
		rc = 1;
	} else {
		if (st != JSON_OK)
			json_msgf(msg, msgarg, name, "what was read before that is shown");
		rc = build(c);
		if (rc == 0 && !c->trace && !c->times_off && c->nsid && c->nsdt)
			add_times(c);
		if (rc == 0 && c->trace && c->ntt)
			add_trace_times(c);
	}
	free(c->sid);
	free(c->sdt);
	free(c->big);
	free(c->idleaf);
	free(c->nodes);
	free(c->links);
	free(c->ents);
	free(c->dense);
	free(c->nbuf);
	free(c->names);
	free(c->nslots);
	free(c->kids);
	free(c->evs);
	free(c->evt);
	free(c->evd);
	free(c->tt);
	free(c->profiles);
	free(c);
	return rc;
}

/* The key that starts at p (after '"'), when it is one of keys[]. */
static bool key_is(const unsigned char *p, const unsigned char *end, const char *const *keys)
{
	if (p >= end || *p != '"')
		return false;
	p++;
	for (; *keys; keys++) {
		size_t n = strlen(*keys);
		if ((size_t)(end - p) > n && memcmp(p, *keys, n) == 0 && p[n] == '"') {
			const unsigned char *q = json_skip_ws(p + n + 1, end);
			if (q < end && *q == ':')
				return true;
		}
	}
	return false;
}

static bool has(const unsigned char *buf, size_t len, const char *needle)
{
	return memmem(buf, len, needle, strlen(needle)) != NULL;
}

bool cpuprofile_sniff(const unsigned char *buf, size_t len, bool eof)
{
	(void)eof;
	if (len > CPUPROFILE_SNIFF_BYTES)
		len = CPUPROFILE_SNIFF_BYTES;
	const unsigned char *end = buf + len, *p = json_skip_ws(buf, end);
	if (p >= end)
		return false;
	if (*p == '{') {
		static const char *const first[] = { "nodes", "samples", "startTime", "endTime", "timeDeltas",
		                                     "traceEvents", NULL };
		static const char *const meta[] = { "metadata", NULL };
		p = json_skip_ws(p + 1, end);
		if (key_is(p, end, first))
			return true;
		return key_is(p, end, meta) && has(buf, len, "\"traceEvents\"");
	}
	if (*p == '[') {
		p = json_skip_ws(p + 1, end);
		return p < end && *p == '{' && has(buf, len, "\"ph\"") && has(buf, len, "\"name\"");
	}
	return false;
}
