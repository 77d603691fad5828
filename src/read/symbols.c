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
 *   first, and nothing when the address has no line information. */
#include "config.h"
#include "symbols.h"

#include <ctype.h>
#include <stdarg.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xalloc.h"
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

enum kind { K_FILE, K_KALLSYMS, K_PERFMAP, K_SINGLE, K_VDSO };

/* A symbol, and its node in a red-black tree keyed by start: the tree perf
 * keeps, built by the same insertions and removals, so that a lookup walks
 * the same path (where symbols overlap, the path decides which one an
 * address gets: a zero-sized _init stretched over the PLT, say). */
#define RB_NIL UINT32_MAX

struct isym {
	struct sym s;
	uint8_t bind;
	bool red, dead;
	uint32_t left, right, parent;
};

struct inl {
	uint64_t addr;          /* UINT64_MAX: empty slot */
	uint32_t n;
	const char **names;
};

/* A symbol as binutils' elf_find_function sees it (addr2line's names for
 * functions DWARF names only by a plain name). */
struct bsym {
	size_t shndx;
	uint64_t value, size;
	size_t order;
	const char *name;       /* in dw_elf's string table */
};

/* One address range of a DWARF function (subprogram or inlined instance)
 * of a compile unit, as binutils' function table holds it. */
struct frange {
	uint64_t low, high;
	Dwarf_Off die;
	size_t order;           /* the DIE's place in the unit */
};

struct cufuncs {
	Dwarf_Off cu;
	struct frange *r;       /* sorted by low */
	size_t n;
};

/* A DWARF function binutils renamed after an ELF symbol (it keeps the new
 * name for later queries: the inliner records of a later address show it). */
struct renamed {
	Dwarf_Off die;
	const char *name;
};

struct sym_dso {
	enum kind kind;
	char *path;
	uint8_t bid[20];
	size_t bidlen;
	bool loaded, found;
	struct isym *syms;      /* in insertion order; dead ones are out of the tree */
	char *arena;            /* when set, every name points into it */
	size_t n, cap;
	uint32_t root;          /* RB_NIL: empty */
	char *elf_path;         /* the object's code (unwinding) */
	char *sym_path;         /* where the symbols came from */
	char *dwarf_path;       /* candidates for DWARF, tried in order */
	uint64_t text_offset;   /* .text address - its file offset */
	/* DWARF, opened on the first inline query */
	bool dw_tried;
	int dw_fd;
	Elf *dw_elf;
	Dwarf *dw;
	struct inl *inl;
	size_t inl_n, inl_cap;
	bool bsyms_built;
	struct bsym *bsyms;     /* sorted by section, value, size desc, order */
	size_t nbsyms;
	struct renamed *renamed;
	size_t nrenamed;
	struct cufuncs *cus;
	size_t ncus;
	struct symbols *owner;  /* keeps the inline names */
	struct sym_dso *next;
};

struct symbols {
	char *symfs;
	struct sym_dso *list;
	struct sym_dso *kallsyms;
	char **strs;            /* names handed out by inline queries */
	size_t nstrs, strcap;
};

static char *sy_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *sy_asprintf(const char *fmt, ...)
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

static struct sym_dso *dso_new(struct symbols *sy, enum kind kind, const char *path)
{
	struct sym_dso *d = xcalloc(1, sizeof *d);
	d->kind = kind;
	d->path = xstrdup(path ? path : "");
	d->dw_fd = -1;
	d->root = RB_NIL;
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
	return i != RB_NIL && d->syms[i].red;
}

/* Puts c where x was under x's parent. */
static void rb_replace(struct sym_dso *d, uint32_t x, uint32_t c)
{
	uint32_t p = N(x).parent;
	if (c != RB_NIL)
		N(c).parent = p;
	if (p == RB_NIL)
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
	if (N(y).left != RB_NIL)
		N(N(y).left).parent = x;
	rb_replace(d, x, y);
	N(y).left = x;
	N(x).parent = y;
}

static void rb_rotate_right(struct sym_dso *d, uint32_t x)
{
	uint32_t y = N(x).left;
	N(x).left = N(y).right;
	if (N(y).right != RB_NIL)
		N(N(y).right).parent = x;
	rb_replace(d, x, y);
	N(y).right = x;
	N(x).parent = y;
}

/* perf's __symbols__insert: an equal start goes right (after). */
static void rb_insert(struct sym_dso *d, uint32_t z)
{
	uint32_t p = RB_NIL, x = d->root;
	bool left = false;
	while (x != RB_NIL) {
		p = x;
		left = N(z).s.start < N(x).s.start;
		x = left ? N(x).left : N(x).right;
	}
	N(z).parent = p;
	N(z).left = N(z).right = RB_NIL;
	N(z).red = true;
	if (p == RB_NIL)
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
	while (x != RB_NIL && d->syms[x].left != RB_NIL)
		x = d->syms[x].left;
	return x;
}

static uint32_t rb_next(const struct sym_dso *d, uint32_t x)
{
	if (d->syms[x].right != RB_NIL)
		return rb_min(d, d->syms[x].right);
	uint32_t p = d->syms[x].parent;
	while (p != RB_NIL && x == d->syms[p].right) {
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
	if (N(z).left == RB_NIL) {
		x = N(z).right;
		xp = N(z).parent;
		rb_replace(d, z, x);
	} else if (N(z).right == RB_NIL) {
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
				if (N(w).right != RB_NIL)
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
				if (N(w).left != RB_NIL)
					N(N(w).left).red = false;
				rb_rotate_right(d, xp);
				x = d->root;
				break;
			}
		}
	}
	if (x != RB_NIL)
		N(x).red = false;
}

#undef N

static void add_sym_ref(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name);

static void add_sym(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name)
{
	add_sym_ref(d, start, size, bind, xstrdup(name));
}

/* Adds a symbol whose name is kept as it is: owned by the object (freed
 * with it unless it lies in the object's arena). */
static void add_sym_ref(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 256;
		d->syms = xreallocarray(d->syms, d->cap, sizeof *d->syms);
	}
	if (d->n >= RB_NIL - 1) {
		if (!d->arena)
			free((char *)name);
		return;
	}
	struct isym *y = &d->syms[d->n];
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

static void fixup_end(struct sym_dso *d, bool kallsyms)
{
	uint32_t prev = rb_min(d, d->root), curr;
	if (prev == RB_NIL)
		return;
	for (curr = rb_next(d, prev); curr != RB_NIL; prev = curr, curr = rb_next(d, curr)) {
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
static bool better(const struct isym *a, const struct isym *b)
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

static void fixup_duplicate(struct sym_dso *d)
{
	uint32_t curr = rb_min(d, d->root);
	while (curr != RB_NIL) {
		uint32_t next = rb_next(d, curr);
		if (next == RB_NIL)
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
	uint32_t x = d->loaded ? d->root : RB_NIL;
	while (x != RB_NIL) {
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

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static char *ocaml_demangle(const char *s);

/* C++ (and legacy Rust) through libiberty's cplus_demangle without
 * options, as this perf links it: no parameter lists, no return types;
 * else OCaml. NULL when the name stays as it is. */
static char *demangle(const char *s)
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
			*o++ = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 3;
		} else {
			*o++ = s[i++];
		}
	}
	*o = '\0';
	return out;
}

/* ---- ELF files ------------------------------------------------------------ */

struct ef {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	char *path;
	char *mem;              /* the image, for one read into memory */
	Elf_Scn *symtab, *dynsym;
	size_t dynsym_idx;
};

static void ef_close(struct ef *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	free(e->mem);
	memset(e, 0, sizeof *e);
	e->fd = -1;
}

static bool is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static Elf_Scn *section_by_name(Elf *elf, const GElf_Ehdr *eh, const char *name, GElf_Shdr *sh, size_t *idx)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	(void)eh;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* The GNU build id note of an ELF file; its length, 0 when none. */
static size_t elf_build_id(Elf *elf, uint8_t *out, size_t cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (off < data->d_size && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)data->d_buf + noff, "GNU", 4) == 0) {
				size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;
				memcpy(out, (char *)data->d_buf + doff, n);
				return n;
			}
		}
	}
	return 0;
}

static bool ef_setup(struct ef *e, const char *path, const uint8_t *bid, size_t bidlen);

/* Opens path as an ELF file; refuses one whose build id differs from the
 * expected one (when bidlen is set). */
static bool ef_open(struct ef *e, const char *path, const uint8_t *bid, size_t bidlen)
{
	struct stat st;
	memset(e, 0, sizeof *e);
	e->fd = -1;
	/* a path named by the recording: never wait on a FIFO or a terminal
	 * that was put there, and check what was opened, not the name */
	e->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (e->fd < 0)
		return false;
	if (fstat(e->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(e->fd);
		e->fd = -1;
		return false;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	return ef_setup(e, path, bid, bidlen);
}

/* The ELF image mem[0..n) (taken over: freed by ef_close), named name. */
static bool ef_open_mem(struct ef *e, char *mem, size_t n, const char *name, const uint8_t *bid,
                        size_t bidlen)
{
	memset(e, 0, sizeof *e);
	e->fd = -1;
	e->mem = mem;
	e->elf = elf_memory(mem, n);
	return ef_setup(e, name, bid, bidlen);
}

static bool ef_setup(struct ef *e, const char *path, const uint8_t *bid, size_t bidlen)
{
	GElf_Shdr sh;
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->eh)) {
		ef_close(e);
		return false;
	}
	if (bidlen) {
		uint8_t got[20];
		size_t n = elf_build_id(e->elf, got, sizeof got);
		if (n != bidlen || memcmp(got, bid, n) != 0) {
			ef_close(e);
			return false;
		}
	}
	e->symtab = section_by_name(e->elf, &e->eh, ".symtab", &sh, NULL);
	if (e->symtab && sh.sh_type != SHT_SYMTAB)
		e->symtab = NULL;
	e->dynsym = section_by_name(e->elf, &e->eh, ".dynsym", &sh, &e->dynsym_idx);
	if (e->dynsym && sh.sh_type != SHT_DYNSYM)
		e->dynsym = NULL;
	e->path = xstrdup(path);
	return true;
}

/* The load segment holding vaddr (perf's elf_read_program_header). */
static bool load_phdr(Elf *elf, uint64_t vaddr, GElf_Phdr *ph)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, ph) || ph->p_type != PT_LOAD)
			continue;
		uint64_t sz = ph->p_memsz > ph->p_filesz ? ph->p_memsz : ph->p_filesz;
		if (sz && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + sz)
			return true;
	}
	return false;
}

/* Loads one symbol table of syms (runtime: the file with the code). */
static size_t load_table(struct sym_dso *d, struct ef *syms, struct ef *runtime, Elf_Scn *table)
{
	GElf_Shdr sh;
	size_t nsyms, shstr_sym, shstr_run, added = 0;
	Elf_Data *data;

	if (!gelf_getshdr(table, &sh) || sh.sh_entsize == 0)
		return 0;
	data = elf_getdata(table, NULL);
	if (!data)
		return 0;
	if (elf_getshdrstrndx(syms->elf, &shstr_sym) != 0 || elf_getshdrstrndx(runtime->elf, &shstr_run) != 0)
		return 0;
	nsyms = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		int type = GELF_ST_TYPE(s.st_info), vis = GELF_ST_VISIBILITY(s.st_other);
		bool func = (type == STT_FUNC || type == STT_GNU_IFUNC) && s.st_name && s.st_shndx != SHN_UNDEF;
		bool obj = type == STT_OBJECT && s.st_name && s.st_shndx != SHN_UNDEF;
		bool label = type == STT_NOTYPE && s.st_name && s.st_shndx != SHN_UNDEF &&
		             s.st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
		if (!func && !obj && !label)
			continue;
		if (s.st_shndx == SHN_ABS || s.st_shndx >= SHN_LORESERVE)
			continue;
		const char *name = elf_strptr(syms->elf, sh.sh_link, s.st_name);
		if (!name)
			continue;
		Elf_Scn *sec = elf_getscn(syms->elf, s.st_shndx);
		GElf_Shdr ssh;
		if (!sec || !gelf_getshdr(sec, &ssh))
			break;  /* perf gives up on the table here */
		if (!(ssh.sh_flags & SHF_ALLOC))
			continue;
		Elf *secelf = syms->elf;
		size_t secstr = shstr_sym;
		if (ssh.sh_type == SHT_NOBITS) {
			sec = elf_getscn(runtime->elf, s.st_shndx);
			if (!sec || !gelf_getshdr(sec, &ssh))
				break;
			secelf = runtime->elf;
			secstr = shstr_run;
		}
		if (label) {
			const char *sn = elf_strptr(secelf, secstr, ssh.sh_name);
			if (!sn || (!strstr(sn, "text") && !strstr(sn, "data")))
				continue;
		}
		GElf_Phdr ph;
		uint64_t value = s.st_value;
		if (load_phdr(runtime->elf, value, &ph))
			value -= ph.p_vaddr - ph.p_offset;
		else
			value -= ssh.sh_addr - ssh.sh_offset;
		char *dem = demangle(name);
		add_sym(d, value, s.st_size, (uint8_t)GELF_ST_BIND(s.st_info), dem ? dem : name);
		free(dem);
		added++;
	}
	if (added) {
		fixup_end(d, false);
		fixup_duplicate(d);
	}
	return added;
}

static void load_plt(struct sym_dso *d, struct ef *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel;
	if (!e->dynsym)
		return;
	rel = section_by_name(e->elf, &e->eh, ".rela.plt", &rsh, NULL);
	if (!rel)
		rel = section_by_name(e->elf, &e->eh, ".rel.plt", &rsh, NULL);
	if (!rel || rsh.sh_link != e->dynsym_idx || rsh.sh_entsize == 0)
		return;
	if (!section_by_name(e->elf, &e->eh, ".plt", &psh, NULL))
		return;
	Elf_Data *rd = elf_getdata(rel, NULL), *syms = elf_getdata(e->dynsym, NULL);
	if (!rd || !syms || !gelf_getshdr(e->dynsym, &dsh))
		return;
	uint64_t entsize = psh.sh_entsize, hdr = psh.sh_entsize;
	switch (e->eh.e_machine) {
	case EM_ARM: hdr = 20; entsize = 12; break;
	case EM_AARCH64: hdr = 32; entsize = 16; break;
	default: break;
	}
	uint64_t off = psh.sh_offset + hdr;
	size_t n = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		size_t symidx;
		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(rd, (int)i, &r))
				break;
			symidx = GELF_R_SYM(r.r_info);
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rd, (int)i, &r))
				break;
			symidx = GELF_R_SYM(r.r_info);
		}
		GElf_Sym s;
		const char *name = NULL;
		if (gelf_getsym(syms, (int)symidx, &s))
			name = elf_strptr(e->elf, dsh.sh_link, s.st_name);
		char *dem = name ? demangle(name) : NULL;
		char *pn = sy_asprintf("%s@plt", dem ? dem : name ? name : "");
		free(dem);
		add_sym(d, off, entsize, STB_GLOBAL, pn);
		free(pn);
		off += entsize;
	}
}

static void add_dwarf_candidate(struct sym_dso *d, const char *path)
{
	size_t old = d->dwarf_path ? strlen(d->dwarf_path) + 1 : 0, n = strlen(path) + 1;
	d->dwarf_path = xrealloc(d->dwarf_path, old + n + 1);
	memcpy(d->dwarf_path + old, path, n);
	d->dwarf_path[old + n] = '\0';
}

static char *bid_hex(const uint8_t *bid, size_t n)
{
	char *s = xmalloc(n * 2 + 1);
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", bid[i]);
	return s;
}

static char *join_symfs(const struct symbols *sy, const char *path)
{
	return sy_asprintf("%s%s", sy->symfs ? sy->symfs : "", path);
}

/* The .gnu_debuglink file name of the ELF file at path. */
static char *debuglink(const char *path)
{
	struct ef e;
	GElf_Shdr sh;
	char *out = NULL;
	if (!ef_open(&e, path, NULL, 0))
		return NULL;
	Elf_Scn *scn = section_by_name(e.elf, &e.eh, ".gnu_debuglink", &sh, NULL);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (data && data->d_size > 0 && memchr(data->d_buf, '\0', data->d_size))
		out = xstrdup(data->d_buf);
	ef_close(&e);
	return out;
}

static const char *home_debug(void)
{
	const char *dir = getenv("PERF_BUILDID_DIR");
	return dir && *dir ? NULL : getenv("HOME");
}

/* The candidate files for an object, in perf's order (dso__load). */
static size_t candidates(const struct symbols *sy, const struct sym_dso *d, char **out, size_t cap)
{
	size_t n = 0;
	char *self = join_symfs(sy, d->path);

	/* debuglink: beside the file, in its .debug, under /usr/lib/debug */
	if (is_regular(self)) {
		char *link = debuglink(self);
		if (link && !strchr(link, '/')) {
			char *slash = strrchr(self, '/');
			size_t dl = slash ? (size_t)(slash - self) : 0;
			const char *dir_sym = d->path;
			const char *dslash = strrchr(dir_sym, '/');
			size_t ddl = dslash ? (size_t)(dslash - dir_sym) : 0;
			char *c[4] = {
				xstrdup(link),
				sy_asprintf("%.*s/%s", (int)dl, self, link),
				sy_asprintf("%.*s/.debug/%s", (int)dl, self, link),
				sy_asprintf("%s/usr/lib/debug%.*s/%s", sy->symfs ? sy->symfs : "", (int)ddl, dir_sym, link)
			};
			bool taken = false;
			for (int i = 0; i < 4; i++) {
				if (!taken && is_regular(c[i]) && n < cap) {
					out[n++] = c[i];
					taken = true;
				} else {
					free(c[i]);
				}
			}
		}
		free(link);
	}
	if (d->bidlen) {
		char *hex = bid_hex(d->bid, d->bidlen);
		const char *home = home_debug();
		const char *bdir = getenv("PERF_BUILDID_DIR");
		char *cache = bdir && *bdir ? sy_asprintf("%s/.build-id/%.2s/%s", bdir, hex, hex + 2)
		            : home ? sy_asprintf("%s/.debug/.build-id/%.2s/%s", home, hex, hex + 2) : NULL;
		if (cache) {
			if (is_regular(cache)) {
				if (n < cap)
					out[n++] = xstrdup(cache);
				if (n < cap)
					out[n++] = xstrdup(cache);
			} else {
				if (n < cap)
					out[n++] = sy_asprintf("%s/elf", cache);
				if (n < cap)
					out[n++] = sy_asprintf("%s/debug", cache);
			}
			free(cache);
		}
		if (n < cap)
			out[n++] = sy_asprintf("%s/usr/lib/debug%s.debug", sy->symfs ? sy->symfs : "", d->path);
		if (n < cap)
			out[n++] = sy_asprintf("%s/usr/lib/debug%s", sy->symfs ? sy->symfs : "", d->path);
		if (n < cap)
			out[n++] = sy_asprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			                     sy->symfs ? sy->symfs : "", hex, hex + 2);
		free(hex);
	} else {
		if (n < cap)
			out[n++] = sy_asprintf("%s/usr/lib/debug%s.debug", sy->symfs ? sy->symfs : "", d->path);
		if (n < cap)
			out[n++] = sy_asprintf("%s/usr/lib/debug%s", sy->symfs ? sy->symfs : "", d->path);
	}
	if (n < cap)
		out[n++] = self;
	else
		free(self);
	return n;
}

#ifdef HAVE_LZMA
/* The .gnu_debugdata section of e inflated into out, when it holds an ELF
 * file with a .symtab. Inflated size capped: it is untrusted input. */
static bool mini_debuginfo(struct ef *e, struct ef *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(e->elf, &e->eh, ".gnu_debugdata", &sh, NULL);
	Elf_Data *data = scn && sh.sh_type == SHT_PROGBITS ? elf_rawdata(scn, NULL) : NULL;
	if (!data || !data->d_size)
		return false;
	size_t cap = data->d_size * 8 + 4096, limit = (size_t)256 << 20;
	char *buf = NULL;
	for (;;) {
		char *nb = realloc(buf, cap);
		if (!nb) {
			free(buf);
			return false;
		}
		buf = nb;
		uint64_t memlimit = (uint64_t)64 << 20;
		size_t in_pos = 0, out_pos = 0;
		lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, data->d_buf, &in_pos, data->d_size,
		                                       (uint8_t *)buf, &out_pos, cap);
		if (r == LZMA_OK) {
			char name[4096];
			snprintf(name, sizeof name, "%s (.gnu_debugdata)", e->path);
			if (ef_open_mem(out, buf, out_pos, name, NULL, 0) && out->symtab)
				return true;
			ef_close(out);
			return false;
		}
		if (r != LZMA_BUF_ERROR || cap >= limit) {
			free(buf);
			return false;
		}
		cap = cap * 2 > limit ? limit : cap * 2;
	}
}
#endif

static void load_file(struct symbols *sy, struct sym_dso *d)
{
	char *cand[12];
	size_t nc;
	struct ef ss[2];
	int syms = -1, runtime = -1, used = 0;

	/* without a recorded build id, the file's own is what debug files
	 * must carry */
	if (!d->bidlen) {
		char *self = join_symfs(sy, d->path);
		struct ef e;
		if (ef_open(&e, self, NULL, 0)) {
			d->bidlen = elf_build_id(e.elf, d->bid, sizeof d->bid);
			ef_close(&e);
		}
		free(self);
	}
	nc = candidates(sy, d, cand, sizeof cand / sizeof cand[0]);
	for (size_t i = 0; i < nc && used < 2; i++) {
		struct ef *e = &ss[used];
		if (!ef_open(e, cand[i], d->bid, d->bidlen))
			continue;
		bool keep = false;
		if (syms < 0 && e->symtab) {
			syms = used;
			keep = true;
		}
		if (runtime < 0 && e->dynsym) {
			runtime = used;
			keep = true;
		}
		if (keep) {
			used++;
			if (syms >= 0 && runtime >= 0)
				break;
		} else {
			ef_close(e);
		}
	}
	/* DWARF (inline callers) comes from the symbol file, or what
	 * binutils would follow from it: the debug files by build id */
	for (size_t i = 0; i < nc; i++) {
		if (strstr(cand[i], "/usr/lib/debug") || strstr(cand[i], "/.debug/"))
			if (is_regular(cand[i]))
				add_dwarf_candidate(d, cand[i]);
	}
	/* the object's code, for unwinding: the file itself when it is
	 * there with the right build id, else the build-id cache copy */
	{
		char *self = join_symfs(sy, d->path);
		struct ef e;
		if (ef_open(&e, self, d->bid, d->bidlen)) {
			d->elf_path = xstrdup(self);
			ef_close(&e);
		}
		free(self);
		for (size_t i = 0; !d->elf_path && i < nc; i++) {
			size_t l = strlen(cand[i]);
			if (l > 4 && strcmp(cand[i] + l - 4, "/elf") == 0 && ef_open(&e, cand[i], d->bid, d->bidlen)) {
				d->elf_path = xstrdup(cand[i]);
				ef_close(&e);
			}
		}
	}
	for (size_t i = 0; i < nc; i++)
		free(cand[i]);
#ifdef HAVE_LZMA
	/* MiniDebugInfo (Fedora and others): a .symtab of the functions
	 * .dynsym lacks, xz-compressed in the file itself. perf 6.1 does not
	 * read it; its names are better than [unknown]. */
	if (syms < 0 && runtime >= 0 && used < 2 && mini_debuginfo(&ss[runtime], &ss[used]))
		syms = used++;
#endif
	if (syms < 0 && runtime < 0)
		return;
	if (syms < 0)
		syms = runtime;
	if (runtime < 0)
		runtime = syms;
	d->found = true;
	d->sym_path = xstrdup(ss[syms].path);
	{
		GElf_Shdr tsh;
		if (section_by_name(ss[runtime].elf, &ss[runtime].eh, ".text", &tsh, NULL))
			d->text_offset = tsh.sh_addr - tsh.sh_offset;
	}
	size_t nr = 0;
	if (ss[syms].symtab)
		nr += load_table(d, &ss[syms], &ss[runtime], ss[syms].symtab);
	if (ss[syms].dynsym)
		nr += load_table(d, &ss[syms], &ss[runtime], ss[syms].dynsym);
	if (nr)
		load_plt(d, &ss[runtime]);
	for (int i = 0; i < used; i++)
		ef_close(&ss[i]);
}

struct sym_dso *symbols_file(struct symbols *sy, const char *path, const uint8_t *bid, size_t bidlen)
{
	for (struct sym_dso *d = sy->list; d; d = d->next)
		if (d->kind == K_FILE && strcmp(d->path, path) == 0 && d->bidlen == bidlen &&
		    (!bidlen || memcmp(d->bid, bid, bidlen) == 0))
			return d;
	struct sym_dso *d = dso_new(sy, K_FILE, path);
	if (bidlen) {
		d->bidlen = bidlen > 20 ? 20 : bidlen;
		memcpy(d->bid, bid, d->bidlen);
	}
	load_file(sy, d);
	d->loaded = true;
	return d;
}

/* The vdso: perf record's copy in the build-id cache, else this process's
 * own when it has the recorded build id (same kernel). */
struct sym_dso *symbols_vdso(struct symbols *sy, const uint8_t *bid, size_t bidlen)
{
	for (struct sym_dso *d = sy->list; d; d = d->next)
		if (d->kind == K_VDSO && d->bidlen == bidlen && memcmp(d->bid, bid, bidlen) == 0)
			return d;
	struct sym_dso *d = dso_new(sy, K_VDSO, "[vdso]");
	struct ef e;
	bool have = false;
	d->loaded = true;
	d->bidlen = bidlen > 20 ? 20 : bidlen;
	memcpy(d->bid, bid, d->bidlen);
	if (!d->bidlen)
		return d;
	char *hex = bid_hex(d->bid, d->bidlen);
	const char *bdir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char *cache = bdir && *bdir ? sy_asprintf("%s/[vdso]/%s/vdso", bdir, hex)
	            : home ? sy_asprintf("%s/.debug/[vdso]/%s/vdso", home, hex) : NULL;
	if (cache) {
		have = ef_open(&e, cache, d->bid, d->bidlen);
		free(cache);
	}
	free(hex);
	if (!have) {
		/* the image ends with its section headers */
		const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
		if (img && memcmp(img, ELFMAG, SELFMAG) == 0 && img[EI_CLASS] == ELFCLASS64) {
			Elf64_Ehdr eh;
			memcpy(&eh, img, sizeof eh);
			size_t n = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
			if (eh.e_shoff && n < ((size_t)1 << 20)) {
				char *mem = xmalloc(n);
				memcpy(mem, img, n);
				have = ef_open_mem(&e, mem, n, "[vdso]", d->bid, d->bidlen);
			}
		}
	}
	if (!have)
		return d;
	d->found = true;
	if (e.symtab)
		load_table(d, &e, &e, e.symtab);
	if (e.dynsym)
		load_table(d, &e, &e, e.dynsym);
	ef_close(&e);
	return d;
}

/* ---- kallsyms, perf maps, single symbols ---------------------------------- */

/* kallsyms text: read whole (/proc/kallsyms has no size), at most 256 MiB. */
static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	size_t n = 0, cap = (size_t)8 << 20, limit = (size_t)256 << 20;
	char *buf;
	if (fd < 0 || fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap >= limit)
				break;
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

struct sym_dso *symbols_kallsyms(struct symbols *sy, const char *path, const char *ref, uint64_t ref_addr)
{
	if (sy->kallsyms)
		return sy->kallsyms;
	struct sym_dso *d = dso_new(sy, K_KALLSYMS, path);
	size_t len = 0;
	sy->kallsyms = d;
	d->loaded = true;
	/* names stay in the text, which the object keeps */
	d->arena = read_all(path, &len);
	if (!d->arena)
		return d;
	/* perf's kallsyms__delta: the recording's address of the reference
	 * symbol (_text) against this text's, for a kernel booted again at
	 * another address (KASLR) */
	uint64_t delta = 0;
	for (int pass = ref && *ref ? 0 : 1; pass < 2; pass++) {
		for (char *line = d->arena, *next; line && *line; line = next) {
			char *nl = strchr(line, '\n');
			next = nl ? nl + 1 : NULL;
			char *end;
			unsigned long long a = strtoull(line, &end, 16);
			if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
				continue;
			char type = (char)toupper((unsigned char)end[1]);
			char *name = end + 3;
			size_t nlen = nl ? (size_t)(nl - name) : strlen(name);
			if (pass == 0) {
				if (nlen == strlen(ref) && memcmp(name, ref, nlen) == 0) {
					delta = a - ref_addr;
					break;
				}
				continue;
			}
			if (nl)
				*nl = '\0';
			if (type != 'T' && type != 'W' && type != 'D' && type != 'B')
				continue;
			if (name[0] == '$')
				continue;
			uint8_t bind = end[1] == 'W' || end[1] == 'w' ? STB_WEAK
			             : isupper((unsigned char)end[1]) ? STB_GLOBAL : STB_LOCAL;
			add_sym_ref(d, a - delta, 0, bind, name);
		}
	}
	d->found = d->n > 0;
	fixup_end(d, true);
	fixup_duplicate(d);
	return d;
}

/* perf's hex2u64: hex digits only (no "0x"); returns the count read. */
static size_t hex_prefix(const char *s, uint64_t *v)
{
	size_t n = 0;
	*v = 0;
	while (isxdigit((unsigned char)s[n])) {
		*v = *v << 4 | (uint64_t)hexval(s[n]);
		n++;
	}
	return n;
}

struct sym_dso *symbols_perfmap(struct symbols *sy, const char *path)
{
	for (struct sym_dso *d = sy->list; d; d = d->next)
		if (d->kind == K_PERFMAP && strcmp(d->path, path) == 0)
			return d;
	struct sym_dso *d = dso_new(sy, K_PERFMAP, path);
	d->loaded = true;
	char *full = join_symfs(sy, path);
	struct stat st;
	FILE *f = NULL;
	/* in /tmp, where anyone may leave a link: no links, a regular file
	 * of ours or root's, of a sane size */
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	free(full);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_uid == geteuid() || st.st_uid == 0) &&
	    st.st_size < ((off_t)1 << 30))
		f = fdopen(fd, "r");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return d;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		uint64_t start, size;
		/* as perf: the last byte is taken for the newline */
		line[--len] = '\0';
		size_t k = hex_prefix(line, &start) + 1;
		if ((ssize_t)k + 2 >= len)
			continue;
		k += hex_prefix(line + k, &size) + 1;
		if ((ssize_t)k + 2 >= len)
			continue;
		add_sym(d, start, size, STB_GLOBAL, line + k);
	}
	free(line);
	fclose(f);
	d->found = true;
	return d;
}

struct sym_dso *symbols_single(struct symbols *sy, const char *name, uint64_t start, uint64_t len)
{
	struct sym_dso *d = dso_new(sy, K_SINGLE, name);
	d->loaded = d->found = true;
	add_sym(d, start, len, STB_GLOBAL, name);
	return d;
}

size_t symbols_kernel_build_id(uint8_t *bid, size_t cap)
{
	/* /sys/kernel/notes: ELF notes, 4-byte aligned */
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	size_t off = 0;
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_off = off + 12, desc_off = name_off + ((namesz + 3) & ~3u);
		if (desc_off + descsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name_off, "GNU", 4) == 0) {
			size_t k = descsz < cap ? descsz : cap;
			memcpy(bid, buf + desc_off, k);
			return k;
		}
		off = desc_off + ((descsz + 3) & ~3u);
	}
	return 0;
}

/* ---- inline callers ---------------------------------------------------------- */

static bool dw_open(struct sym_dso *d)
{
	if (d->dw_tried)
		return d->dw != NULL;
	d->dw_tried = true;
	/* the symbol file first (addr2line runs on it), then debug files */
	const char *list[16];
	size_t n = 0;
	if (d->sym_path)
		list[n++] = d->sym_path;
	for (const char *p = d->dwarf_path; p && *p && n < 16; p += strlen(p) + 1)
		list[n++] = p;
	for (size_t i = 0; i < n; i++) {
		struct ef e;
		if (!ef_open(&e, list[i], d->bid, d->bidlen))
			continue;
		Dwarf *dw = dwarf_begin_elf(e.elf, DWARF_C_READ, NULL);
		if (dw) {
			d->dw = dw;
			d->dw_elf = e.elf;
			d->dw_fd = e.fd;
			free(e.path);
			return true;
		}
		ef_close(&e);
	}
	return false;
}

/* Keeps a name addr2line reported, demangled as perf demangles it. */
static const char *keep_str(struct symbols *sy, const char *s)
{
	char *dem = demangle(s);
	if (dem)
		s = dem;
	if (sy->nstrs == sy->strcap) {
		sy->strcap = sy->strcap ? sy->strcap * 2 : 64;
		sy->strs = xreallocarray(sy->strs, sy->strcap, sizeof *sy->strs);
	}
	char *c = dem ? dem : xstrdup(s);
	sy->strs[sy->nstrs++] = c;
	return c;
}

static bool is_function_scope(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

static int cmp_bsym(const void *a, const void *b)
{
	const struct bsym *x = a, *y = b;
	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The symbols binutils would consider functions, from the DWARF file's
 * .symtab (else .dynsym): not objects, files, sections or TLS; not the
 * hidden local zero-sized NOTYPE markers annobin leaves. */
static void build_bsyms(struct sym_dso *d)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(d->dw_elf, NULL, ".symtab", &sh, NULL);
	d->bsyms_built = true;
	if (!scn || sh.sh_type != SHT_SYMTAB) {
		scn = section_by_name(d->dw_elf, NULL, ".dynsym", &sh, NULL);
		if (!scn || sh.sh_type != SHT_DYNSYM)
			return;
	}
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh.sh_entsize)
		return;
	size_t n = sh.sh_size / sh.sh_entsize;
	d->bsyms = xreallocarray(NULL, n ? n : 1, sizeof *d->bsyms);
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE || type == STT_SECTION || type == STT_OBJECT || type == STT_TLS)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		if (sym.st_size == 0 && GELF_ST_BIND(sym.st_info) == STB_LOCAL && type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN)
			continue;
		const char *name = elf_strptr(d->dw_elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		struct bsym *b = &d->bsyms[d->nbsyms++];
		b->shndx = sym.st_shndx;
		b->value = sym.st_value;
		b->size = sym.st_size ? sym.st_size : 1;
		b->order = i;
		b->name = name;
	}
	if (d->nbsyms > 1)
		qsort(d->bsyms, d->nbsyms, sizeof *d->bsyms, cmp_bsym);
}

/* binutils' _bfd_elf_find_function: in the allocated section holding
 * vaddr, the symbol starting last at or before it (the largest of those
 * starting there, then the first in the table); it need not reach vaddr. */
static const struct bsym *find_bsym(struct sym_dso *d, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;
	size_t shndx = 0;
	GElf_Shdr sh;

	if (!d->bsyms_built)
		build_bsyms(d);
	while ((scn = elf_nextscn(d->dw_elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && vaddr >= sh.sh_addr &&
		    vaddr < sh.sh_addr + sh.sh_size) {
			shndx = elf_ndxscn(scn);
			break;
		}
	}
	if (!shndx)
		return NULL;
	/* the last entry of that section with value <= vaddr, then back to
	 * the first of its run of equal values (largest size first) */
	size_t lo = 0, hi = d->nbsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct bsym *b = &d->bsyms[mid];
		if (b->shndx < shndx || (b->shndx == shndx && b->value <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || d->bsyms[lo - 1].shndx != shndx)
		return NULL;
	size_t k = lo - 1;
	while (k > 0 && d->bsyms[k - 1].shndx == shndx && d->bsyms[k - 1].value == d->bsyms[k].value)
		k--;
	return &d->bsyms[k];
}

static bool die_attr_str(Dwarf_Die *die, unsigned name, const char **out)
{
	Dwarf_Attribute at;
	const char *s;
	if (dwarf_attr_integrate(die, name, &at) && (s = dwarf_formstring(&at)) != NULL) {
		*out = s;
		return true;
	}
	return false;
}

/* binutils' name of a DWARF function: its linkage name, else its name. */
static const char *func_name(struct sym_dso *d, Dwarf_Die *die)
{
	const char *s = NULL;
	Dwarf_Off off = dwarf_dieoffset(die);
	for (size_t i = 0; i < d->nrenamed; i++)
		if (d->renamed[i].die == off)
			return d->renamed[i].name;
	if (die_attr_str(die, DW_AT_linkage_name, &s) || die_attr_str(die, DW_AT_MIPS_linkage_name, &s) ||
	    die_attr_str(die, DW_AT_name, &s))
		return s;
	return NULL;
}

/* True when binutils takes a function's plain DW_AT_name as final: the
 * languages it does not demangle (C, Fortran 77, assembler...). */
static bool plain_name_final(Dwarf_Die *cu, Dwarf_Die *die)
{
	const char *s;
	if (die_attr_str(die, DW_AT_linkage_name, &s) || die_attr_str(die, DW_AT_MIPS_linkage_name, &s))
		return true;
	if (!die_attr_str(die, DW_AT_name, &s))
		return false;
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
	case DW_LANG_Fortran77: case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_C99:
	case DW_LANG_UPC: case DW_LANG_C11: case DW_LANG_Mips_Assembler:
	case 0x8765: /* DW_LANG_Upc */
	case 0x8e57: /* DW_LANG_HP_Basic91 */
	case 0x8e58: /* DW_LANG_HP_IMacro */
	case 0x8e59: /* DW_LANG_HP_Assembler */
		return true;
	default:
		return false;
	}
}

/* The name addr2line -f gives the innermost function at vaddr (die: that
 * function, or NULL when no DWARF function covers vaddr). */
static const char *first_name(struct sym_dso *d, Dwarf_Die *cu, Dwarf_Die *die, uint64_t vaddr)
{
	if (die) {
		Dwarf_Off off = dwarf_dieoffset(die);
		for (size_t i = 0; i < d->nrenamed; i++)
			if (d->renamed[i].die == off)
				return d->renamed[i].name;
		if (plain_name_final(cu, die))
			return func_name(d, die);
	}
	const struct bsym *b = find_bsym(d, vaddr);
	if (!b)
		return die ? func_name(d, die) : NULL;
	if (die) {
		Dwarf_Addr low;
		if (dwarf_lowpc(die, &low) != 0) {
			Dwarf_Addr base, start, end;
			if (dwarf_ranges(die, 0, &base, &start, &end) <= 0)
				start = UINT64_MAX;
			low = start;
		}
		/* binutils stops asking either way; it keeps the symbol's name
		 * when it starts where the function does */
		d->renamed = xreallocarray(d->renamed, d->nrenamed + 1, sizeof *d->renamed);
		d->renamed[d->nrenamed].die = dwarf_dieoffset(die);
		d->renamed[d->nrenamed].name = b->value == low ? b->name : func_name(d, die);
		d->nrenamed++;
	}
	return b->name;
}

static int cmp_frange(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The function ranges of a compile unit, walked once (depth first, with a
 * stack of our own: DWARF trees can be deep). */
static struct cufuncs *cu_funcs(struct sym_dso *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	for (size_t i = 0; i < d->ncus; i++)
		if (d->cus[i].cu == off)
			return &d->cus[i];
	d->cus = xreallocarray(d->cus, d->ncus + 1, sizeof *d->cus);
	struct cufuncs *c = &d->cus[d->ncus++];
	size_t cap = 0, order = 0, depth = 0, stcap = 64;
	Dwarf_Die *stack = xreallocarray(NULL, stcap, sizeof *stack);
	Dwarf_Die die;
	memset(c, 0, sizeof *c);
	c->cu = off;
	if (dwarf_child(cu, &die) != 0) {
		free(stack);
		return c;
	}
	for (;;) {
		if (is_function_scope(&die)) {
			Dwarf_Addr base, start, end;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&die, it, &base, &start, &end)) > 0) {
				if (c->n == cap) {
					cap = cap ? cap * 2 : 64;
					c->r = xreallocarray(c->r, cap, sizeof *c->r);
				}
				c->r[c->n].low = start;
				c->r[c->n].high = end;
				c->r[c->n].die = dwarf_dieoffset(&die);
				c->r[c->n].order = order;
				c->n++;
			}
		}
		order++;
		Dwarf_Die child;
		if (dwarf_haschildren(&die) && dwarf_child(&die, &child) == 0) {
			if (depth == stcap) {
				stcap *= 2;
				stack = xreallocarray(stack, stcap, sizeof *stack);
			}
			stack[depth++] = die;
			die = child;
			continue;
		}
		/* next sibling, else climb until one has a sibling */
		for (;;) {
			if (dwarf_siblingof(&die, &die) == 0)
				break;
			if (depth == 0)
				goto done;
			die = stack[--depth];
		}
	}
done:
	free(stack);
	if (c->n > 1)
		qsort(c->r, c->n, sizeof *c->r, cmp_frange);
	return c;
}

/* binutils' lookup_address_in_function_table: of the unit's functions
 * containing vaddr, the one with the smallest range, the later one on a
 * tie (aliases an assembler file declares at one address). */
static bool best_function(struct sym_dso *d, Dwarf_Die *cu, uint64_t vaddr, Dwarf_Die *out)
{
	struct cufuncs *c = cu_funcs(d, cu);
	const struct frange *best = NULL;
	for (size_t i = 0; i < c->n && c->r[i].low <= vaddr; i++) {
		const struct frange *r = &c->r[i];
		if (vaddr >= r->high)
			continue;
		if (!best || r->high - r->low < best->high - best->low ||
		    (r->high - r->low == best->high - best->low && r->order > best->order))
			best = r;
	}
	return best && dwarf_offdie(d->dw, best->die, out) != NULL;
}

/* Names of the functions around vaddr, innermost first, as addr2line -i -f
 * lists them: the innermost function, then for each inlined instance the
 * function it was inlined into (its concrete parents, not those of its
 * abstract origin), up to the subprogram. */
static size_t inline_chain(struct sym_dso *d, uint64_t vaddr, const char ***out)
{
	Dwarf_Die cu, die;
	size_t n = 0;
	const char **names = NULL;
	bool have;

	*out = NULL;
	if (!dwarf_addrdie(d->dw, vaddr, &cu))
		return 0;
	/* no line information: addr2line's first record is "??:0" */
	Dwarf_Line *line = dwarf_getsrc_die(&cu, vaddr);
	int lineno = 0;
	if (!line || !dwarf_linesrc(line, NULL, NULL) || dwarf_lineno(line, &lineno) != 0)
		return 0;
	have = best_function(d, &cu, vaddr, &die);
	const char *first = first_name(d, &cu, have ? &die : NULL, vaddr);
	names = xmalloc(sizeof *names);
	names[n++] = keep_str(d->owner, first ? first : "??");
	while (have && n < 1024 && dwarf_tag(&die) != DW_TAG_subprogram) {
		Dwarf_Die *up = NULL;
		int nu = dwarf_getscopes_die(&die, &up);
		have = false;
		for (int i = 1; i < nu; i++) {
			if (is_function_scope(&up[i])) {
				die = up[i];
				have = true;
				break;
			}
		}
		free(up);
		if (have) {
			const char *nm = func_name(d, &die);
			names = xreallocarray(names, n + 1, sizeof *names);
			names[n++] = keep_str(d->owner, nm ? nm : "??");
		}
	}
	*out = names;
	return n;
}

size_t sym_dso_inlines(struct sym_dso *d, uint64_t addr, const char *const **names)
{
	*names = NULL;
	if (d->kind != K_FILE || !d->found)
		return 0;
	if (d->inl_cap) {
		size_t mask = d->inl_cap - 1, h = (size_t)(addr * 0x9E3779B97F4A7C15ull) & mask;
		while (d->inl[h].addr != UINT64_MAX) {
			if (d->inl[h].addr == addr) {
				*names = d->inl[h].names;
				return d->inl[h].n;
			}
			h = (h + 1) & mask;
		}
	}
	const char **chain = NULL;
	size_t n = 0;
	if (dw_open(d))
		n = inline_chain(d, addr + d->text_offset, &chain);
	if (d->inl_n * 2 >= d->inl_cap) {
		size_t ncap = d->inl_cap ? d->inl_cap * 2 : 256;
		struct inl *t = xreallocarray(NULL, ncap, sizeof *t);
		for (size_t i = 0; i < ncap; i++)
			t[i].addr = UINT64_MAX;
		for (size_t i = 0; i < d->inl_cap; i++) {
			if (d->inl[i].addr == UINT64_MAX)
				continue;
			size_t h = (size_t)(d->inl[i].addr * 0x9E3779B97F4A7C15ull) & (ncap - 1);
			while (t[h].addr != UINT64_MAX)
				h = (h + 1) & (ncap - 1);
			t[h] = d->inl[i];
		}
		free(d->inl);
		d->inl = t;
		d->inl_cap = ncap;
	}
	size_t h = (size_t)(addr * 0x9E3779B97F4A7C15ull) & (d->inl_cap - 1);
	while (d->inl[h].addr != UINT64_MAX)
		h = (h + 1) & (d->inl_cap - 1);
	d->inl[h].addr = addr;
	d->inl[h].n = (uint32_t)n;
	d->inl[h].names = chain;
	d->inl_n++;
	*names = chain;
	return n;
}

const char *sym_dso_elf_path(struct sym_dso *d)
{
	return d->elf_path;
}

bool sym_dso_found(struct sym_dso *d)
{
	return d->found;
}
