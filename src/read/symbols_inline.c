/* symbols_inline: the inline callers of an address from DWARF (see
 * symbols_impl.h), with elfutils' libdw, named as binutils addr2line -i -f
 * names them (binutils' dwarf2.c and elf.c were read for the rules; no
 * code comes from there): linkage names first, a function's name replaced
 * by the ELF symbol binutils finds for it, nothing when the address has no
 * line information. DWARF is opened on the first query, from the symbol
 * file or the debug files found for it; answers are cached per address. */
#include "config.h"
#include "symbols_impl.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

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
		struct sy_elf e;
		if (!sy_elf_open(&e, list[i], d->bid, d->bidlen))
			continue;
		Dwarf *dw = dwarf_begin_elf(e.elf, DWARF_C_READ, NULL);
		if (dw) {
			d->dw = dw;
			d->dw_elf = e.elf;
			d->dw_fd = e.fd;
			free(e.path);
			return true;
		}
		sy_elf_close(&e);
	}
	return false;
}

/* Keeps a name addr2line reported, demangled as perf demangles it. */
static const char *keep_str(struct symbols *sy, const char *s)
{
	char *dem = sy_demangle(s);
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
	const struct sy_bsym *x = a, *y = b;
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
	Elf_Scn *scn = sy_section(d->dw_elf, NULL, ".symtab", &sh, NULL);
	d->bsyms_built = true;
	if (!scn || sh.sh_type != SHT_SYMTAB) {
		scn = sy_section(d->dw_elf, NULL, ".dynsym", &sh, NULL);
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
		struct sy_bsym *b = &d->bsyms[d->nbsyms++];
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
static const struct sy_bsym *find_bsym(struct sym_dso *d, uint64_t vaddr)
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
		const struct sy_bsym *b = &d->bsyms[mid];
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
	const struct sy_bsym *b = find_bsym(d, vaddr);
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
	const struct sy_frange *x = a, *y = b;
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The function ranges of a compile unit, walked once (depth first, with a
 * stack of our own: DWARF trees can be deep). */
static struct sy_cufuncs *cu_funcs(struct sym_dso *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	for (size_t i = 0; i < d->ncus; i++)
		if (d->cus[i].cu == off)
			return &d->cus[i];
	d->cus = xreallocarray(d->cus, d->ncus + 1, sizeof *d->cus);
	struct sy_cufuncs *c = &d->cus[d->ncus++];
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
	struct sy_cufuncs *c = cu_funcs(d, cu);
	const struct sy_frange *best = NULL;
	for (size_t i = 0; i < c->n && c->r[i].low <= vaddr; i++) {
		const struct sy_frange *r = &c->r[i];
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
	if (d->kind != SY_FILE || !d->found)
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
		struct sy_inl *t = xreallocarray(NULL, ncap, sizeof *t);
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
