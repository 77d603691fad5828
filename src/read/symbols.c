/* symbols: perf 6.1's symbol rules (tools/perf/util/symbol.c,
 * symbol-elf.c, srcline.c, dso.c were read for them; no code comes from
 * there), so that names match what `perf script` prints:
 *
 * - files are looked for where perf looks, in its order (debuglink, the
 *   build-id cache ~/.debug, /usr/lib/debug by path and by build id, the
 *   path itself), a file with another build id than recorded is refused;
 *   symbols come from the first one with a .symtab (and its .dynsym), else
 *   from a .dynsym; functions, objects and labels in text or data sections;
 *   values moved to file offsets through the program headers;
 * - zero-sized symbols end where the next starts (the last one at the page
 *   after), and of several at one address one stays: sized, not weak,
 *   global, fewer leading underscores, longer name, first;
 * - NAME@plt for each .plt entry (sh_entsize apart, after a header of one);
 * - C++ names demangled by libiberty without parameter lists, as perf
 *   (built with libiberty, without libbfd) does, and OCaml names;
 * - inline callers as binutils addr2line -i -f reports them: linkage names
 *   first, and nothing when the address has no line information.
 *
 * This file keeps the objects and their symbol trees; symbols_impl.h says
 * which file reads what. */
#include "config.h"
#include "symbols_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xalloc.h"
#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

char *sy_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		xdie("out of memory");
	char *s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

struct symbols *symbols_new(const char *symfs)
{
	struct symbols *sy = xcalloc(1, sizeof *sy);
	if (symfs && *symfs && strcmp(symfs, "/") != 0) {
		sy->symfs = xstrdup(symfs);
		size_t n = strlen(sy->symfs);
		while (n > 1 && sy->symfs[n - 1] == '/')
			sy->symfs[--n] = '\0';
	}
	elf_version(EV_CURRENT);
	return sy;
}

static void dso_free(struct sym_dso *d)
{
	if (!d->arena)
		for (size_t i = 0; i < d->n; i++)
			free((char *)d->syms[i].s.name);
	free(d->arena);
	free(d->syms);
	for (size_t i = 0; i < d->inl_cap; i++)
		if (d->inl[i].addr != UINT64_MAX)
			free(d->inl[i].names);
	free(d->bsyms);
	free(d->renamed);
	for (size_t i = 0; i < d->ncus; i++)
		free(d->cus[i].r);
	free(d->cus);
	free(d->inl);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->dw_elf)
		elf_end(d->dw_elf);
	if (d->dw_fd > 0)
		close(d->dw_fd);
	free(d->path);
	free(d->elf_path);
	free(d->sym_path);
	free(d->dwarf_path);
	free(d);
}

void symbols_free(struct symbols *sy)
{
	if (!sy)
		return;
	for (struct sym_dso *d = sy->list, *nx; d; d = nx) {
		nx = d->next;
		dso_free(d);
	}
	for (size_t i = 0; i < sy->nstrs; i++)
		free(sy->strs[i]);
	free(sy->strs);
	free(sy->symfs);
	free(sy);
}

struct sym_dso *sy_dso_new(struct symbols *sy, enum sy_kind kind, const char *path)
{
	struct sym_dso *d = xcalloc(1, sizeof *d);
	d->kind = kind;
	d->path = xstrdup(path ? path : "");
	d->dw_fd = -1;
	d->root = SY_RB_NIL;
	d->owner = sy;
	d->next = sy->list;
	sy->list = d;
	return d;
}

/* ---- the red-black tree (the textbook algorithm, which is the shape
 * Linux's lib/rbtree.c gives: insertion fixup, erasure by the in-order
 * successor, deletion fixup) ------------------------------------------------ */

#define N(i) (d->syms[i])

static bool rb_red(const struct sym_dso *d, uint32_t i)
{
	return i != SY_RB_NIL && d->syms[i].red;
}

/* Puts c where x was under x's parent. */
static void rb_replace(struct sym_dso *d, uint32_t x, uint32_t c)
{
	uint32_t p = N(x).parent;
	if (c != SY_RB_NIL)
		N(c).parent = p;
	if (p == SY_RB_NIL)
		d->root = c;
	else if (N(p).left == x)
		N(p).left = c;
	else
		N(p).right = c;
}

static void rb_rotate_left(struct sym_dso *d, uint32_t x)
{
	uint32_t y = N(x).right;
	N(x).right = N(y).left;
	if (N(y).left != SY_RB_NIL)
		N(N(y).left).parent = x;
	rb_replace(d, x, y);
	N(y).left = x;
	N(x).parent = y;
}

static void rb_rotate_right(struct sym_dso *d, uint32_t x)
{
	uint32_t y = N(x).left;
	N(x).left = N(y).right;
	if (N(y).right != SY_RB_NIL)
		N(N(y).right).parent = x;
	rb_replace(d, x, y);
	N(y).right = x;
	N(x).parent = y;
}

/* perf's __symbols__insert: an equal start goes right (after). */
static void rb_insert(struct sym_dso *d, uint32_t z)
{
	uint32_t p = SY_RB_NIL, x = d->root;
	bool left = false;
	while (x != SY_RB_NIL) {
		p = x;
		left = N(z).s.start < N(x).s.start;
		x = left ? N(x).left : N(x).right;
	}
	N(z).parent = p;
	N(z).left = N(z).right = SY_RB_NIL;
	N(z).red = true;
	if (p == SY_RB_NIL)
		d->root = z;
	else if (left)
		N(p).left = z;
	else
		N(p).right = z;
	while (rb_red(d, N(z).parent)) {
		uint32_t q = N(z).parent, g = N(q).parent;
		if (q == N(g).left) {
			uint32_t u = N(g).right;
			if (rb_red(d, u)) {
				N(q).red = N(u).red = false;
				N(g).red = true;
				z = g;
				continue;
			}
			if (z == N(q).right) {
				z = q;
				rb_rotate_left(d, z);
				q = N(z).parent;
			}
			N(q).red = false;
			N(g).red = true;
			rb_rotate_right(d, g);
		} else {
			uint32_t u = N(g).left;
			if (rb_red(d, u)) {
				N(q).red = N(u).red = false;
				N(g).red = true;
				z = g;
				continue;
			}
			if (z == N(q).left) {
				z = q;
				rb_rotate_right(d, z);
				q = N(z).parent;
			}
			N(q).red = false;
			N(g).red = true;
			rb_rotate_left(d, g);
		}
	}
	N(d->root).red = false;
}

static uint32_t rb_min(const struct sym_dso *d, uint32_t x)
{
	while (x != SY_RB_NIL && d->syms[x].left != SY_RB_NIL)
		x = d->syms[x].left;
	return x;
}

static uint32_t rb_next(const struct sym_dso *d, uint32_t x)
{
	if (d->syms[x].right != SY_RB_NIL)
		return rb_min(d, d->syms[x].right);
	uint32_t p = d->syms[x].parent;
	while (p != SY_RB_NIL && x == d->syms[p].right) {
		x = p;
		p = d->syms[p].parent;
	}
	return p;
}

/* Removes z; x's parent is tracked apart, x being possibly NIL. */
static void rb_erase(struct sym_dso *d, uint32_t z)
{
	uint32_t x, xp, y = z;
	bool y_red = N(y).red;
	if (N(z).left == SY_RB_NIL) {
		x = N(z).right;
		xp = N(z).parent;
		rb_replace(d, z, x);
	} else if (N(z).right == SY_RB_NIL) {
		x = N(z).left;
		xp = N(z).parent;
		rb_replace(d, z, x);
	} else {
		y = rb_min(d, N(z).right);
		y_red = N(y).red;
		x = N(y).right;
		if (N(y).parent == z) {
			xp = y;
		} else {
			xp = N(y).parent;
			rb_replace(d, y, x);
			N(y).right = N(z).right;
			N(N(y).right).parent = y;
		}
		rb_replace(d, z, y);
		N(y).left = N(z).left;
		N(N(y).left).parent = y;
		N(y).red = N(z).red;
	}
	N(z).dead = true;
	if (y_red)
		return;
	while (x != d->root && !rb_red(d, x)) {
		if (x == N(xp).left) {
			uint32_t w = N(xp).right;
			if (rb_red(d, w)) {
				N(w).red = false;
				N(xp).red = true;
				rb_rotate_left(d, xp);
				w = N(xp).right;
			}
			if (!rb_red(d, N(w).left) && !rb_red(d, N(w).right)) {
				N(w).red = true;
				x = xp;
				xp = N(x).parent;
			} else {
				if (!rb_red(d, N(w).right)) {
					N(N(w).left).red = false;
					N(w).red = true;
					rb_rotate_right(d, w);
					w = N(xp).right;
				}
				N(w).red = N(xp).red;
				N(xp).red = false;
				if (N(w).right != SY_RB_NIL)
					N(N(w).right).red = false;
				rb_rotate_left(d, xp);
				x = d->root;
				break;
			}
		} else {
			uint32_t w = N(xp).left;
			if (rb_red(d, w)) {
				N(w).red = false;
				N(xp).red = true;
				rb_rotate_right(d, xp);
				w = N(xp).left;
			}
			if (!rb_red(d, N(w).right) && !rb_red(d, N(w).left)) {
				N(w).red = true;
				x = xp;
				xp = N(x).parent;
			} else {
				if (!rb_red(d, N(w).left)) {
					N(N(w).right).red = false;
					N(w).red = true;
					rb_rotate_left(d, w);
					w = N(xp).left;
				}
				N(w).red = N(xp).red;
				N(xp).red = false;
				if (N(w).left != SY_RB_NIL)
					N(N(w).left).red = false;
				rb_rotate_right(d, xp);
				x = d->root;
				break;
			}
		}
	}
	if (x != SY_RB_NIL)
		N(x).red = false;
}

#undef N

void sy_add_sym(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name)
{
	sy_add_sym_ref(d, start, size, bind, xstrdup(name));
}

/* Adds a symbol whose name is kept as it is: owned by the object (freed
 * with it unless it lies in the object's arena). */
void sy_add_sym_ref(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 256;
		d->syms = xreallocarray(d->syms, d->cap, sizeof *d->syms);
	}
	if (d->n >= SY_RB_NIL - 1) {
		if (!d->arena)
			free((char *)name);
		return;
	}
	struct sy_isym *y = &d->syms[d->n];
	memset(y, 0, sizeof *y);
	y->s.start = start;
	y->s.end = start + size;
	y->s.name = name;
	y->bind = bind;
	rb_insert(d, (uint32_t)d->n);
	d->n++;
}

/* ---- perf's fixups, in the tree's order ------------------------------------ */

static uint64_t page_up(uint64_t v)
{
	return (v + 4095) & ~(uint64_t)4095;
}

void sy_fixup_end(struct sym_dso *d, bool kallsyms)
{
	uint32_t prev = rb_min(d, d->root), curr;
	if (prev == SY_RB_NIL)
		return;
	for (curr = rb_next(d, prev); curr != SY_RB_NIL; prev = curr, curr = rb_next(d, curr)) {
		struct sym *p = &d->syms[prev].s, *c = &d->syms[curr].s;
		if (p->end != p->start)
			continue;
		if (kallsyms && (!strchr(p->name, '[') != !strchr(c->name, '[')))
			p->end = page_up(p->end + 4096);
		else
			p->end = c->start;
	}
	struct sym *last = &d->syms[prev].s;
	if (last->end == last->start)
		last->end = page_up(last->start) + 4096;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* True when a is kept over b (same start): perf's choose_best_symbol. */
static bool better(const struct sy_isym *a, const struct sy_isym *b)
{
	uint64_t la = a->s.end - a->s.start, lb = b->s.end - b->s.start;
	if (lb == 0 && la > 0)
		return true;
	if (la == 0 && lb > 0)
		return false;
	bool wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wb && !wa)
		return true;
	if (wa && !wb)
		return false;
	bool ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga && !gb)
		return true;
	if (gb && !ga)
		return false;
	size_t ua = underscores(a->s.name), ub = underscores(b->s.name);
	if (ub != ua)
		return ub > ua;
	size_t na = strlen(a->s.name), nb = strlen(b->s.name);
	if (na != nb)
		return na > nb;
	/* x86's arch__choose_best_symbol: a "SyS"/"compat_SyS" name loses */
	return strncmp(a->s.name, "SyS", 3) != 0 && strncmp(a->s.name, "compat_SyS", 10) != 0;
}

void sy_fixup_duplicate(struct sym_dso *d)
{
	uint32_t curr = rb_min(d, d->root);
	while (curr != SY_RB_NIL) {
		uint32_t next = rb_next(d, curr);
		if (next == SY_RB_NIL)
			break;
		if (d->syms[curr].s.start != d->syms[next].s.start) {
			curr = next;
			continue;
		}
		if (better(&d->syms[curr], &d->syms[next])) {
			rb_erase(d, next);
		} else {
			rb_erase(d, curr);
			curr = next;
		}
	}
}

/* perf's symbols__find: down from the root, right when past a symbol's end
 * (a zero-sized one matches its start). */
const struct sym *sym_dso_find(struct sym_dso *d, uint64_t addr)
{
	uint32_t x = d->loaded ? d->root : SY_RB_NIL;
	while (x != SY_RB_NIL) {
		const struct sym *s = &d->syms[x].s;
		if (addr < s->start)
			x = d->syms[x].left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = d->syms[x].right;
		else
			return s;
	}
	return NULL;
}

/* ---- demangling, as perf's demangle_sym ----------------------------------- */

/* OCaml names ("camlModule__func_123"): "__" is a dot, "$XX" a byte in
 * hex; NULL for other names. */
static char *ocaml_demangle(const char *s)
{
	if (strncmp(s, "caml", 4) != 0 || !isupper((unsigned char)s[4]))
		return NULL;
	size_t n = strlen(s);
	char *out = xmalloc(n + 1), *o = out;
	for (size_t i = 4; i < n;) {
		if (s[i] == '_' && s[i + 1] == '_') {
			*o++ = '.';
			i += 2;
		} else if (s[i] == '$' && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
			*o++ = (char)(sy_hexval(s[i + 1]) << 4 | sy_hexval(s[i + 2]));
			i += 3;
		} else {
			*o++ = s[i++];
		}
	}
	*o = '\0';
	return out;
}

/* C++ (and legacy Rust) through libiberty's cplus_demangle without
 * options, as this perf links it: no parameter lists, no return types;
 * else OCaml. NULL when the name stays as it is. */
char *sy_demangle(const char *s)
{
#ifdef HAVE_LIBIBERTY
	char *d = cplus_demangle(s, DMGL_NO_OPTS);
	if (d) {
		char *c = xstrdup(d);
		free(d);
		return c;
	}
#endif
	return ocaml_demangle(s);
}

const char *sym_dso_elf_path(struct sym_dso *d)
{
	return d->elf_path;
}

bool sym_dso_found(struct sym_dso *d)
{
	return d->found;
}
