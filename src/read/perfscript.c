/* perfscript: `perf script` text to stacks with inferno collapse-perf
 * semantics (SPEC.md §A), plus the deviations of §A.10 that only change
 * what inferno would warn about and lose.
 *
 * The hot path works on byte spans of the caller's block. The only copies
 * are the frame names of the pending record, which live in buffers owned by
 * the reader and reused from record to record (a record may span blocks).
 *
 * This file reads records; perfscript_impl.h says which file does the
 * rest. */
#include "config.h"
#include "perfscript_impl.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dsomap.h"
#include "text.h"
#include "timeline.h"
#include "tree.h"
#include "unit.h"

/* ---- diagnostics ------------------------------------------------------- */

/* Length of the valid UTF-8 character at s[0..n) that is neither a C1
 * control nor malformed; 0 otherwise. */
static size_t perf_utf8_ok(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;

	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		if (s[0] == 0xC2)
			lo = 0xA0;  /* U+0080..U+009F are C1 controls */
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		if (s[0] == 0xE0)
			lo = 0xA0;
		else if (s[0] == 0xED)
			hi = 0x9F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		if (s[0] == 0xF0)
			lo = 0x90;
		else if (s[0] == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* Counts a malformed line; the first one is described in d.first_msg as
 * `what "excerpt"` with every control byte or bad UTF-8 byte shown as '?'. */
static void perf_bad(struct perf_reader *r, const char *what, const char *line, size_t len)
{
	enum { EXCERPT = 80 };
	char *o = r->d.first_msg;
	const unsigned char *u = (const unsigned char *)line;
	size_t wl = strlen(what), i = 0, used = 0;

	r->d.bad++;
	if (r->d.first_bad)
		return;
	r->d.first_bad = r->d.lines;
	memcpy(o, what, wl);
	o += wl;
	*o++ = ' ';
	*o++ = '"';
	while (i < len && used < EXCERPT) {
		size_t cl = u[i] < 0x80 ? 1 : perf_utf8_ok(u + i, len - i);
		if (cl > 1 && used + cl <= EXCERPT) {
			memcpy(o, u + i, cl);
			o += cl;
			i += cl;
			used += cl;
			continue;
		}
		if (cl > 1)
			break;
		*o++ = (u[i] < 0x20 || u[i] >= 0x7f) ? '?' : (char)u[i];
		i++;
		used++;
	}
	if (i < len) {
		memcpy(o, "...", 3);
		o += 3;
	}
	*o++ = '"';
	*o = '\0';
}
/* what (< 40 bytes) + 3 + 80 + 3 + 1 + NUL must fit first_msg. */
_Static_assert(sizeof(((struct reader_diag *)0)->first_msg) >= 40 + 3 + 80 + 3 + 2,
               "first_msg too small for perf_bad");

/* ---- records ----------------------------------------------------------- */

/* The objects of the stack just added, leaf (ents[0]) first, by the
 * names of its nodes: the walk up from the leaf meets them in that order. */
static void perf_note_objects(struct perf_reader *r, tree_idx leaf)
{
	uint32_t h = 2166136261u;
	for (size_t k = 0; k < r->nent; k++)
		h = (h ^ r->ents[k].obj) * 16777619u;
	h |= 1;
	void *lo = r->leaf_objs;
	xgrow_zeroed(&lo, &r->leaf_cap, leaf, sizeof *r->leaf_objs);
	r->leaf_objs = lo;
	/* the same stack with the same objects: nothing new to note (a
	 * collision of the hash only skips a note, which a later stack
	 * through those frames likely makes) */
	if (r->leaf_objs[leaf] == h)
		return;
	r->leaf_objs[leaf] = h;
	tree_idx i = leaf;
	for (size_t k = 0; k < r->nent && i != TREE_NONE && i != TREE_ROOT; k++) {
		dsomap_note(r->dsos, tree_node(r->t, i)->name, r->ents[k].obj);
		i = tree_parent(r->t, i);
	}
}

/* End of record (§A.6): hand the stack to the tree and reset. */
static void perf_flush(struct perf_reader *r)
{
	if (r->nent) {
		size_t n = r->nent + 1;
		if (n > r->framecap) {
			r->framecap = n > 64 ? n + n / 2 : 64;
			r->frames = xreallocarray(r->frames, r->framecap, sizeof *r->frames);
		}
		r->frames[0].s = r->pname;
		r->frames[0].len = r->pname_len;
		for (size_t i = 0; i < r->nent; i++) {
			const struct perf_ent *e = &r->ents[r->nent - 1 - i];
			r->frames[i + 1].s = r->fbuf + e->off;
			r->frames[i + 1].len = e->len;
		}
		uint64_t w = r->have_period ? r->period : 1;
		r->d.unweighted += !r->have_period;
		tree_idx leaf = tree_add_stack(r->t, r->frames, n, w);
		if (r->dsos)
			perf_note_objects(r, leaf);
		if (r->tl && r->have_time && r->th_valid)
			timeline_add(r->tl, r->time, leaf, r->th_idx, w);
		r->d.stacks++;
	}
	r->have_time = false;
	r->in_event = false;
	r->skip = false;
	r->payload = false;
	r->have_period = false;
	r->nent = 0;
	r->flen = 0;
}

static void perf_set_pname(struct perf_reader *r, const struct perf_event_parts *ep)
{
	char *o;

	perf_reserve(&r->pname, &r->pname_cap, ep->comm_len + ep->pid_len + ep->tid_len + 3);
	o = r->pname;
	for (size_t i = 0; i < ep->comm_len; i++)
		*o++ = ep->comm[i] == ' ' ? '_' : ep->comm[i];
	if (r->o.tid || r->o.pid) {
		*o++ = '-';
		memcpy(o, ep->pid, ep->pid_len);
		o += ep->pid_len;
		if (r->o.tid) {
			*o++ = '/';
			memcpy(o, ep->tid, ep->tid_len);
			o += ep->tid_len;
		}
	}
	r->pname_len = (size_t)(o - r->pname);
	r->java = r->pname_len >= 4 && memcmp(r->pname, "java", 4) == 0;
	r->fields_pname = false;
}

/* Counts a record of event ev[0..n) (for o.events): most records are of
 * the event of the record before. (A name with a NUL byte counts under the
 * name before the NUL when that one is listed.) */
static void perf_count_event(struct perf_reader *r, const char *ev, size_t n)
{
	struct perf_events *e = &r->evs;
	if (n >= sizeof e->ev[0].name) {
		e->other++;
		return;
	}
	if (r->ev_last < e->n && e->ev[r->ev_last].name[n] == '\0' && memcmp(e->ev[r->ev_last].name, ev, n) == 0) {
		e->ev[r->ev_last].records++;
		return;
	}
	for (size_t i = 0; i < e->n; i++)
		if (memcmp(e->ev[i].name, ev, n) == 0 && e->ev[i].name[n] == '\0') {
			e->ev[i].records++;
			r->ev_last = i;
			return;
		}
	if (e->n == PERF_EVENTS_MAX || memchr(ev, '\0', n)) {
		e->other++;
		return;
	}
	memcpy(e->ev[e->n].name, ev, n);
	e->ev[e->n].name[n] = '\0';
	e->ev[e->n].records = 1;
	r->ev_last = e->n++;
}

/* Event filter (§A.3.3): the given one, else the first event name seen. */
static bool perf_event_kept(struct perf_reader *r, const char *ev, size_t n)
{
	if (r->o.events)
		perf_count_event(r, ev, n);
	if (r->have_filter)
		return n == r->filter_len && memcmp(ev, r->filter, n) == 0;
	perf_reserve(&r->filter, &r->filter_cap, n + 1);
	memcpy(r->filter, ev, n);
	r->filter[n] = '\0';
	r->filter_len = n;
	r->have_filter = true;
	return true;
}

/* The record's thread in the timeline: the one before when the key is
 * the same (most records), else interned. */
static void perf_thread(struct perf_reader *r, int64_t pid, int64_t tid, const char *comm,
                        size_t len)
{
	if (!r->tl)
		return;
	if (len > sizeof r->th_comm)
		len = sizeof r->th_comm;
	if (r->th_valid && pid == r->th_pid && tid == r->th_tid && len == r->th_comm_len &&
	    memcmp(comm, r->th_comm, len) == 0)
		return;
	r->th_idx = timeline_thread(r->tl, pid, tid, comm, len);
	r->th_valid = true;
	r->th_pid = pid;
	r->th_tid = tid;
	memcpy(r->th_comm, comm, len);
	r->th_comm_len = len;
}

/* A decimal word of at most 18 digits as a number; -1 when it is not one
 * ("?" for a missing PID). */
static int64_t perf_id(const char *s, size_t n)
{
	uint64_t v;
	return n && n <= 18 && perf_parse_u64(s, n, &v) ? (int64_t)v : -1;
}

/* TIME, "SECONDS.FRACTION" just before end (the event line's first colon),
 * in ns; false when the word there is not one. */
static bool perf_time(const char *start, const char *end, uint64_t *ns)
{
	const char *p = end, *dot = NULL;
	while (p > start && ((p[-1] >= '0' && p[-1] <= '9') || (p[-1] == '.' && !dot))) {
		if (p[-1] == '.')
			dot = p - 1;
		p--;
	}
	if (p == end || (p > start && p[-1] != ' ' && p[-1] != ']') || !dot || dot == p)
		return false;
	uint64_t sec = 0, frac = 0;
	for (const char *q = p; q < dot; q++) {
		if (sec > (UINT64_MAX / 1000000000u - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(*q - '0');
	}
	unsigned digits = 0;
	for (const char *q = dot + 1; q < end && digits < 9; q++, digits++)
		frac = frac * 10 + (uint64_t)(*q - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return true;
}

static void perf_event_line(struct perf_reader *r, const char *s, size_t n)
{
	struct perf_event_parts ep;
	const char *rest, *end = s + n, *c1, *part2 = NULL;

	r->in_event = true;
	if (!perf_event_line_parts(s, n, &ep)) {
		r->in_event = false;
		if (!perf_is_srcline(s, n)) {
			r->weird_events++;
			perf_bad(r, "unrecognized event line", s, n);
		}
		return;
	}
	/* rest = "[CPU] TIME: [PERIOD] EVENT[:MODS]: [payload]", split on the
	 * first two colons */
	rest = s + ep.end;
	c1 = memchr(rest, ':', (size_t)(end - rest));
	r->have_time = false;
	if (c1 && r->tl && perf_time(rest, c1, &r->time)) {
		r->have_time = true;
		perf_thread(r, perf_id(ep.pid, ep.pid_len), perf_id(ep.tid, ep.tid_len), ep.comm,
		            ep.comm_len);
	}
	if (c1) {
		const char *p1 = c1 + 1;
		const char *c2 = memchr(p1, ':', (size_t)(end - p1));
		const char *e1 = c2 ? c2 : end;
		const char *sp = perf_rchr(p1, (size_t)(e1 - p1), ' ');
		const char *ev = sp ? sp + 1 : p1;
		r->have_period = false;
		if (sp) {
			/* perf pads event names to the longest one of the
			 * recording ("1001001  cpu-clock:" beside task-clock):
			 * the period is the word before the padding (inferno
			 * would see an empty word and count 1, Perl's \s+ reads
			 * the period) */
			const char *we = sp;
			while (we > p1 && we[-1] == ' ')
				we--;
			const char *sp2 = perf_rchr(p1, (size_t)(we - p1), ' ');
			const char *tok = sp2 ? sp2 + 1 : p1;
			r->have_period = perf_parse_u64(tok, (size_t)(we - tok), &r->period);
		}
		if (!perf_event_kept(r, ev, (size_t)(e1 - ev))) {
			/* inferno keeps in_event set: frames are ignored until a
			 * blank line */
			r->skip = true;
			return;
		}
		if (c2)
			part2 = c2 + 1;
	}
	perf_set_pname(r, &ep);
	if (part2) {
		/* drop a modifier ("u:") or one space, then a single-line frame
		 * may follow */
		const char *q = part2, *st;
		size_t sl;
		struct perf_frame_parts fp;
		while (q < end && *q != ':' && *q != ' ')
			q++;
		st = q < end ? q + 1 : part2;
		sl = (size_t)(end - st);
		perf_trim(&st, &sl);
		if (sl) {
			if (perf_frame_line_parts(st, sl, &fp)) {
				perf_frame(r, &fp);
				r->in_event = false;
			} else {
				/* §A.10 (a): a tracepoint payload, not a frame; the
				 * record's frames follow */
				r->payload = true;
			}
		}
	}
	if (r->nent)
		perf_flush(r);
}

static void perf_frame_line(struct perf_reader *r, const char *s, size_t n)
{
	struct perf_frame_parts fp;
	struct perf_event_parts ep;

	if (r->skip)
		return;
	if (perf_frame_line_parts(s, n, &fp)) {
		r->payload = false;
		perf_frame(r, &fp);
		return;
	}
	if (r->payload && r->nent == 0 && perf_event_line_parts(s, n, &ep)) {
		/* tracepoint samples without callchains: one line each, no
		 * blank lines; the previous record has no frames to lose.
		 * Before the srcline rule: a payload may end in ":123". */
		r->in_event = false;
		r->payload = false;
		perf_event_line(r, s, n);
		return;
	}
	if (perf_is_srcline(s, n))
		return;
	r->weird_stacks++;
	perf_bad(r, "unrecognized frame line", s, n);
}

/* One line without its '\n' (§A.2). */
static void perf_line(struct perf_reader *r, const char *s, size_t n)
{
	r->d.lines++;
	if (n && s[0] == '#')
		return;
	n = perf_rtrim(s, n);
	if (!n)
		perf_flush(r);
	else if (r->in_event)
		perf_frame_line(r, s, n);
	else
		perf_event_line(r, s, n);
}

/* ---- records as fields ------------------------------------------------- */

bool perf_reader_record(struct perf_reader *r, const char *comm, size_t comm_len,
                        int32_t pid, int32_t tid, const char *event, size_t event_len,
                        bool have_period, uint64_t period)
{
	/* The event line perf script -F+pid prints, "COMM PID/TID ", parsed
	 * as text is: a name with digit words or spaces splits the same. */
	char line[64 + 2 * 12];
	struct perf_event_parts ep;
	const char *colon = memchr(event, ':', event_len);
	size_t n;

	if (r->nent)
		perf_flush(r);
	r->d.lines++;
	r->started = true;
	if (comm_len > 64)
		comm_len = 64;
	if (colon)
		event_len = (size_t)(colon - event);
	if (!perf_event_kept(r, event, event_len)) {
		r->skip = true;
		return false;
	}
	r->skip = false;
	r->have_period = have_period;
	r->period = period;
	r->have_time = false;
	perf_thread(r, pid, tid, comm, comm_len);
	if (r->fields_pname && pid == r->last_pid && tid == r->last_tid && comm_len == r->last_comm_len &&
	    memcmp(comm, r->last_comm, comm_len) == 0)
		return true;    /* the same thread as the record before: its root */
	memcpy(line, comm, comm_len);
	n = comm_len + (size_t)snprintf(line + comm_len, sizeof line - comm_len, " %" PRId32 "/%" PRId32 " ",
	                                pid, tid);
	/* a name from perf.data may hold line breaks, which text cannot:
	 * they would split a folded line in two */
	for (size_t i = 0; i < comm_len; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	if (perf_event_line_parts(line, n, &ep)) {
		perf_set_pname(r, &ep);
	} else {
		/* no PID/TID to split on (samples without them): the name */
		ep.comm = line;
		ep.comm_len = comm_len;
		perf_trim(&ep.comm, &ep.comm_len);
		ep.pid = ep.tid = "?";
		ep.pid_len = ep.tid_len = 1;
		perf_set_pname(r, &ep);
	}
	r->fields_pname = true;
	memcpy(r->last_comm, comm, comm_len);
	r->last_comm_len = comm_len;
	r->last_pid = pid;
	r->last_tid = tid;
	return true;
}

/* s[0..n), or a copy in *buf with its line breaks made spaces when it has
 * some (names from perf.data; text lines cannot hold them). */
static const char *perf_no_breaks(char **buf, size_t *cap, const char *s, size_t n)
{
	if (!memchr(s, '\n', n) && !memchr(s, '\r', n))
		return s;
	perf_reserve(buf, cap, n);
	for (size_t i = 0; i < n; i++)
		(*buf)[i] = s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
	return *buf;
}

void perf_reader_frame(struct perf_reader *r, const char *pc, size_t pc_len,
                       const char *sym, size_t sym_len, const char *dso, size_t dso_len)
{
	struct perf_frame_parts fp;

	if (r->skip)
		return;
	perf_trim(&sym, &sym_len);
	if (!sym_len) {
		sym = " ";
		sym_len = 1;
	}
	/* as for names in perf_reader_record: no line breaks */
	sym = perf_no_breaks(&r->scratch2, &r->scratch2cap, sym, sym_len);
	dso = perf_no_breaks(&r->scratch3, &r->scratch3cap, dso, dso_len);
	fp.pc = pc;
	fp.pc_len = pc_len;
	fp.func = sym;
	fp.func_len = sym_len;
	fp.module = dso;
	fp.module_len = dso_len;
	perf_frame(r, &fp);
}

void perf_reader_set_dsos(struct perf_reader *r, struct dsomap *m)
{
	r->dsos = m;
}

void perf_reader_set_timeline(struct perf_reader *r, struct timeline *tl)
{
	r->tl = tl;
	r->th_valid = false;
}

void perf_reader_record_time(struct perf_reader *r, uint64_t ns)
{
	r->time = ns;
	r->have_time = true;
}

void perf_reader_record_end(struct perf_reader *r)
{
	if (!r->skip && r->nent)
		perf_flush(r);
	r->skip = false;
	r->nent = 0;
	r->flen = 0;
}

/* ---- public ------------------------------------------------------------ */

struct perf_reader *perf_reader_new(struct tree *t, const struct perf_options *o)
{
	struct perf_reader *r = xcalloc(1, sizeof *r);

	r->t = t;
	r->o = *o;
	if (r->o.tid)
		r->o.pid = true;
	r->o.event_filter = NULL;
	if (o->event_filter) {
		size_t n = strlen(o->event_filter);
		perf_reserve(&r->filter, &r->filter_cap, n + 1);
		memcpy(r->filter, o->event_filter, n + 1);
		r->filter_len = n;
		r->have_filter = true;
	}
	return r;
}

void perf_reader_feed(struct perf_reader *r, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	if (!r->started && len) {
		r->started = true;
		if (r->o.mid_stream)
			goto lines;
		/* §A.10 (e): a UTF-8 byte order mark */
		if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
			p += 3;
	}
lines:
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		perf_line(r, p, (size_t)(le - p));
		p = nl ? nl + 1 : end;
	}
}

/* One lock for every load's counts: readers add theirs once, at the end. */
static pthread_mutex_t perf_events_mu = PTHREAD_MUTEX_INITIALIZER;

/* Adds the counts of from to to (names unseen there are appended). */
static void perf_events_merge(struct perf_events *to, const struct perf_events *from)
{
	to->other += from->other;
	for (size_t i = 0; i < from->n; i++) {
		size_t k = 0;
		while (k < to->n && strcmp(to->ev[k].name, from->ev[i].name) != 0)
			k++;
		if (k < to->n) {
			to->ev[k].records += from->ev[i].records;
		} else if (to->n < PERF_EVENTS_MAX) {
			to->ev[to->n] = from->ev[i];
			to->n++;
		} else {
			to->other += from->ev[i].records;
		}
	}
}

void perf_reader_finish(struct perf_reader *r)
{
	/* the last record counts without a final blank line */
	if (r->nent)
		perf_flush(r);
	if (r->d.stacks && r->have_filter)
		text_sanitize(r->filter, r->filter_len, r->d.event, sizeof r->d.event);
	if (r->o.events && (r->evs.n || r->evs.other)) {
		pthread_mutex_lock(&perf_events_mu);
		perf_events_merge(r->o.events, &r->evs);
		pthread_mutex_unlock(&perf_events_mu);
		memset(&r->evs, 0, sizeof r->evs);
		r->ev_last = 0;
	}
}

void perf_events_list(const struct perf_events *e, char *out, size_t size)
{
	/* the busiest first, then by name: the same list whatever order the
	 * readers finished in */
	size_t order[PERF_EVENTS_MAX], used = 0;
	for (size_t i = 0; i < e->n; i++) {
		size_t k = i;
		while (k > 0 && (e->ev[order[k - 1]].records < e->ev[i].records ||
		                 (e->ev[order[k - 1]].records == e->ev[i].records &&
		                  strcmp(e->ev[order[k - 1]].name, e->ev[i].name) > 0))) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	if (size)
		out[0] = '\0';
	for (size_t i = 0; i <= e->n && size; i++) {
		char name[200], digits[24], count[40];
		uint64_t records = i < e->n ? e->ev[order[i]].records : e->other;
		if (i == e->n && !e->other)
			break;
		if (i < e->n)
			text_sanitize(e->ev[order[i]].name, strlen(e->ev[order[i]].name), name, sizeof name);
		else
			snprintf(name, sizeof name, "%s", e->n ? "other events" : "events");
		snprintf(digits, sizeof digits, "%" PRIu64, records);
		unit_group(digits, count, sizeof count);
		int w = snprintf(out + used, size - used, "%s%s (%s sample%s)", i ? ", " : "", name, count,
		                 records == 1 ? "" : "s");
		if (w < 0 || (size_t)w >= size - used) {
			out[used] = '\0';
			break;
		}
		used += (size_t)w;
	}
}

const char *perf_reader_filter(const struct perf_reader *r)
{
	return r->have_filter ? r->filter : NULL;
}

const struct reader_diag *perf_reader_diag(const struct perf_reader *r)
{
	return &r->d;
}

uint64_t perf_reader_weird_events(const struct perf_reader *r)
{
	return r->weird_events;
}

uint64_t perf_reader_weird_stacks(const struct perf_reader *r)
{
	return r->weird_stacks;
}

void perf_reader_free(struct perf_reader *r)
{
	if (!r)
		return;
	free(r->filter);
	free(r->pname);
	free(r->fbuf);
	free(r->ents);
	free(r->frames);
	free(r->scratch);
	free(r->scratch2);
	free(r->scratch3);
	free(r->cache);
	free(r->blob);
	free(r->leaf_objs);
	free(r);
}
