/* pprof_wire: the protobuf wire format as the pprof reader reads it: a
 * cursor over a message's bytes that yields its fields one at a time (no
 * message is unpacked into structs), and repeated scalars packed or not.
 * Internal to the pprof reader (pprof*.c). */
#ifndef TFLAME_PPROF_WIRE_H
#define TFLAME_PPROF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

enum pb_err { PB_OK, PB_CUT, PB_VARINT, PB_GROUP, PB_WIRETYPE, PB_FIELD };

/* What went wrong, in words ("a field runs past the end of its message"). */
const char *pb_why(enum pb_err e);

/* A message's bytes not read yet: [p, end). */
struct pb {
	const unsigned char *p, *end;
};

struct pb_field {
	uint32_t num;
	unsigned wt;
	uint64_t v;                 /* VARINT, I64, I32: the value */
	const unsigned char *data;  /* LEN: the bytes */
	size_t len;
};

/* pb_varint past its first byte. */
enum pb_err pb_varint_long(const unsigned char **pp, const unsigned char *end, uint64_t *out);

/* Reads a varint at *pp (< end) into *out and moves *pp past it. At most
 * 10 bytes, the 10th at most 1: else PB_VARINT; PB_CUT at end. */
static inline enum pb_err pb_varint(const unsigned char **pp, const unsigned char *end, uint64_t *out)
{
	const unsigned char *p = *pp;
	if (p < end && *p < 0x80) {     /* most are one byte */
		*out = *p;
		*pp = p + 1;
		return PB_OK;
	}
	return pb_varint_long(pp, end, out);
}

/* The next field of c into f: 1, 0 at the end, or -(enum pb_err) (c is
 * then not to be read further). Groups are errors (profile.proto has
 * none); a LEN field's bytes must fit in c. */
int pb_next(struct pb *c, struct pb_field *f);

/* A repeated scalar field, packed (LEN) or not (VARINT): its values one at
 * a time. */
struct pb_rep {
	struct pb c;
	uint64_t one;
	int left;       /* unpacked: 1 before the value is taken */
};

/* Starts reading field f's values; false when f has another wire type
 * (not this field as we know it). */
static inline bool pb_rep_init(struct pb_rep *r, const struct pb_field *f)
{
	r->left = 0;
	r->c.p = r->c.end = NULL;
	if (f->wt == WT_VARINT) {
		r->one = f->v;
		r->left = 1;
		return true;
	}
	if (f->wt == WT_LEN) {
		r->c.p = f->data;
		r->c.end = f->data + f->len;
		return true;
	}
	return false;
}

/* 1 with *v, 0 at the end, -(enum pb_err) on a malformed packed run. */
static inline int pb_rep_next(struct pb_rep *r, uint64_t *v)
{
	if (r->left) {
		r->left = 0;
		*v = r->one;
		return 1;
	}
	if (r->c.p >= r->c.end)
		return 0;
	enum pb_err e = pb_varint(&r->c.p, r->c.end, v);
	return e ? -(int)e : 1;
}

#endif
