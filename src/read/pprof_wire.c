/* pprof_wire: the protobuf wire format (see pprof_wire.h), and the
 * sniffer's check of a message's start against profile.proto's schema. */
#include "config.h"
#include "pprof_wire.h"

#include "pprof.h"

const char *pb_why(enum pb_err e)
{
	switch (e) {
	case PB_CUT: return "a field runs past the end of its message";
	case PB_VARINT: return "a varint longer than 10 bytes or beyond 64 bits";
	case PB_GROUP: return "a group (wire types 3 and 4 are not used by profile.proto)";
	case PB_WIRETYPE: return "an invalid wire type (6 or 7)";
	case PB_FIELD: return "an invalid field number";
	default: return "no error";
	}
}

enum pb_err pb_varint_long(const unsigned char **pp, const unsigned char *end, uint64_t *out)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return PB_CUT;
		unsigned b = *p++;
		if (shift == 63 && b > 1)
			return PB_VARINT;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			*pp = p;
			return PB_OK;
		}
	}
	return PB_VARINT;
}

int pb_next(struct pb *c, struct pb_field *f)
{
	if (c->p >= c->end)
		return 0;
	uint64_t tag, n;
	enum pb_err e = pb_varint(&c->p, c->end, &tag);
	if (e)
		return -(int)e;
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
		return -PB_FIELD;
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	switch (f->wt) {
	case WT_VARINT:
		return (e = pb_varint(&c->p, c->end, &f->v)) ? -(int)e : 1;
	case WT_I64:
	case WT_I32:
		n = f->wt == WT_I64 ? 8 : 4;
		if ((size_t)(c->end - c->p) < n)
			return -PB_CUT;
		f->v = 0;
		for (unsigned i = 0; i < n; i++)
			f->v |= (uint64_t)c->p[i] << (8 * i);
		c->p += n;
		return 1;
	case WT_LEN:
		if ((e = pb_varint(&c->p, c->end, &n)))
			return -(int)e;
		if (n > (uint64_t)(c->end - c->p))
			return -PB_CUT;
		f->data = c->p;
		f->len = (size_t)n;
		c->p += n;
		return 1;
	case WT_SGROUP:
	case WT_EGROUP:
		return -PB_GROUP;
	default:
		return -PB_WIRETYPE;
	}
}

/* ---- sniffing --------------------------------------------------------------- */

enum pm { PM_PROFILE, PM_VALUETYPE, PM_SAMPLE, PM_LABEL, PM_MAPPING, PM_LOCATION, PM_LINE,
	  PM_FUNCTION, PM_BYTES };

#define V (1u << WT_VARINT)
#define L (1u << WT_LEN)

/* Wire types allowed for field num of message m, and the message type of a
 * LEN field (PM_BYTES: not looked into). A field unknown to profile.proto
 * may have any valid wire type (newer writers add fields); every tag of one
 * byte (0x08-0x7f: all of ASCII) is of a known field, which is what keeps
 * text out. */
#define ANY ((1u << WT_VARINT) | (1u << WT_I64) | (1u << WT_LEN) | (1u << WT_I32))
static unsigned pm_field(enum pm m, uint32_t num, enum pm *sub)
{
	*sub = PM_BYTES;
	switch (m) {
	case PM_PROFILE:
		switch (num) {
		case 1: case 11: *sub = PM_VALUETYPE; return L;
		case 2: *sub = PM_SAMPLE; return L;
		case 3: *sub = PM_MAPPING; return L;
		case 4: *sub = PM_LOCATION; return L;
		case 5: *sub = PM_FUNCTION; return L;
		case 6: case 16: return L;
		case 13: return V | L;
		case 7: case 8: case 9: case 10: case 12: case 14: case 15: return V;
		}
		return ANY;
	case PM_VALUETYPE:
		return num <= 2 ? V : ANY;
	case PM_SAMPLE:
		if (num == 1 || num == 2)
			return V | L;
		if (num == 3)
			*sub = PM_LABEL;
		return num == 3 || num == 4 ? L : ANY;
	case PM_LABEL:
		return num <= 4 ? V : ANY;
	case PM_MAPPING:
		return num <= 10 ? V : ANY;
	case PM_LOCATION:
		if (num == 4)
			*sub = PM_LINE;
		return num == 4 ? L : num <= 5 ? V : ANY;
	case PM_LINE:
		return num <= 3 ? V : ANY;
	case PM_FUNCTION:
		return num <= 5 ? V : ANY;
	default:
		return 0;
	}
}

#undef V
#undef L
#undef ANY

/* True when p[0..n) is a message m with known fields only; when cut, the
 * bytes stop somewhere inside it (the last field may be incomplete).
 * Recursion is bounded by the schema (at most three levels). *seen gets
 * the bits of the Profile's fields 1-6 met. */
static bool pm_valid(enum pm m, const unsigned char *p, size_t n, bool cut, unsigned *seen)
{
	struct pb c = { p, p + n };
	struct pb_field f;
	int r;
	enum pm sub;
	while ((r = pb_next(&c, &f)) > 0) {
		unsigned wts = pm_field(m, f.num, &sub);
		if (!(wts & (1u << f.wt)))
			return false;
		if (m == PM_PROFILE && f.num <= 6)
			*seen |= 1u << f.num;
		if (f.wt == WT_LEN && sub != PM_BYTES && !pm_valid(sub, f.data, f.len, false, seen))
			return false;
	}
	if (r == 0)
		return true;
	if (!cut || r != -PB_CUT)
		return false;
	/* the bytes end inside this field: check its tag and what there is */
	c.p = p;
	const unsigned char *last = p;
	while (pb_next(&c, &f) > 0)
		last = c.p;
	uint64_t tag;
	const unsigned char *q = last;
	enum pb_err e = pb_varint(&q, p + n, &tag);
	if (e != PB_OK)
		return e == PB_CUT;     /* cut inside the tag itself */
	uint32_t num = tag >> 3 > 0x1fffffff ? 0 : (uint32_t)(tag >> 3);
	unsigned wt = (unsigned)(tag & 7);
	unsigned wts = pm_field(m, num, &sub);
	if (!num || !(wts & (1u << wt)))
		return false;
	if (m == PM_PROFILE && num <= 6)
		*seen |= 1u << num;
	uint64_t len;
	if (wt == WT_LEN && (e = pb_varint(&q, p + n, &len)) != PB_OK)
		return e == PB_CUT;
	if (wt != WT_LEN || sub == PM_BYTES)
		return true;
	return pm_valid(sub, q, (size_t)(p + n - q), true, seen);
}

bool pprof_sniff(const unsigned char *buf, size_t len, bool eof)
{
	unsigned seen = 0;
	if (len < 2)
		return false;
	if (!pm_valid(PM_PROFILE, buf, len, !eof, &seen))
		return false;
	return (seen & 0x7e) != 0;
}
