/* symbols_impl: what the files of the symbols module share, and no one else
 * sees: an object's symbols (struct sym_dso), the open ELF file handle,
 * and the functions one file calls in another.
 *
 *   symbols.c         objects and their life, the symbol tree (perf's
 *                     red-black tree, its fixups and lookups), demangling
 *   symbols_elf.c     ELF files: opening (build id checked), symbol tables
 *                     moved to file offsets, NAME@plt entries
 *   symbols_debug.c   where an object's symbols are: debuglink, the
 *                     build-id cache, /usr/lib/debug, MiniDebugInfo; the
 *                     vdso
 *   symbols_text.c    symbols from text: kallsyms, perf map files, single
 *                     symbols; the running kernel's build id
 *   symbols_inline.c  inline callers from DWARF, as addr2line -i finds them
 */
#ifndef TFLAME_SYMBOLS_IMPL_H
#define TFLAME_SYMBOLS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include "symbols.h"

enum sy_kind { SY_FILE, SY_KALLSYMS, SY_PERFMAP, SY_SINGLE, SY_VDSO };

/* A symbol, and its node in a red-black tree keyed by start: the tree perf
 * keeps, built by the same insertions and removals, so that a lookup walks
 * the same path (where symbols overlap, the path decides which one an
 * address gets: a zero-sized _init stretched over the PLT, say). */
#define SY_RB_NIL UINT32_MAX

struct sy_isym {
	struct sym s;
	uint8_t bind;
	bool red, dead;
	uint32_t left, right, parent;
};

struct sy_inl {
	uint64_t addr;          /* UINT64_MAX: empty slot */
	uint32_t n;
	const char **names;
};

/* A symbol as binutils' elf_find_function sees it (addr2line's names for
 * functions DWARF names only by a plain name). */
struct sy_bsym {
	size_t shndx;
	uint64_t value, size;
	size_t order;
	const char *name;       /* in dw_elf's string table */
};

/* One address range of a DWARF function (subprogram or inlined instance)
 * of a compile unit, as binutils' function table holds it. */
struct sy_frange {
	uint64_t low, high;
	Dwarf_Off die;
	size_t order;           /* the DIE's place in the unit */
};

struct sy_cufuncs {
	Dwarf_Off cu;
	struct sy_frange *r;    /* sorted by low */
	size_t n;
};

/* A DWARF function binutils renamed after an ELF symbol (it keeps the new
 * name for later queries: the inliner records of a later address show it). */
struct sy_renamed {
	Dwarf_Off die;
	const char *name;
};

struct sym_dso {
	enum sy_kind kind;
	char *path;
	uint8_t bid[20];
	size_t bidlen;
	bool loaded, found;
	struct sy_isym *syms;   /* in insertion order; dead ones are out of the tree */
	char *arena;            /* when set, every name points into it */
	size_t n, cap;
	uint32_t root;          /* SY_RB_NIL: empty */
	char *elf_path;         /* the object's code (unwinding) */
	char *sym_path;         /* where the symbols came from */
	char *dwarf_path;       /* candidates for DWARF, tried in order */
	uint64_t text_offset;   /* .text address - its file offset */
	/* DWARF, opened on the first inline query */
	bool dw_tried;
	int dw_fd;
	Elf *dw_elf;
	Dwarf *dw;
	struct sy_inl *inl;
	size_t inl_n, inl_cap;
	bool bsyms_built;
	struct sy_bsym *bsyms;  /* sorted by section, value, size desc, order */
	size_t nbsyms;
	struct sy_renamed *renamed;
	size_t nrenamed;
	struct sy_cufuncs *cus;
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

/* An ELF file open for reading, its symbol tables found. */
struct sy_elf {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	char *path;
	char *mem;              /* the image, for one read into memory */
	Elf_Scn *symtab, *dynsym;
	size_t dynsym_idx;
};

/* ---- symbols.c ------------------------------------------------------------ */

/* A string printed with fmt, allocated (xmalloc). */
char *sy_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A new object of kind for path (NULL: ""), kept by sy until symbols_free. */
struct sym_dso *sy_dso_new(struct symbols *sy, enum sy_kind kind, const char *path);
/* Adds a symbol [start, start + size) to d's tree; sy_add_sym copies name,
 * sy_add_sym_ref keeps it as it is (owned by d: freed with it unless it
 * lies in d->arena). */
void sy_add_sym(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name);
void sy_add_sym_ref(struct sym_dso *d, uint64_t start, uint64_t size, uint8_t bind, const char *name);
/* perf's fixups once a table is loaded: zero-sized symbols end where the
 * next starts (kallsyms: another rule between modules), and of symbols
 * at one address one stays. */
void sy_fixup_end(struct sym_dso *d, bool kallsyms);
void sy_fixup_duplicate(struct sym_dso *d);
/* s demangled as perf does (C++ without parameters, OCaml), allocated;
 * NULL when it stays as it is. */
char *sy_demangle(const char *s);

/* The value of hex digit c (0-9, a-f, A-F). */
static inline int sy_hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* ---- symbols_elf.c ------------------------------------------------------- */

/* Opens path as an ELF file; refuses one whose build id differs from
 * bid[0..bidlen) (bidlen 0: any). False when it is not one. */
bool sy_elf_open(struct sy_elf *e, const char *path, const uint8_t *bid, size_t bidlen);
/* The same for the ELF image mem[0..n) (taken over: freed by
 * sy_elf_close), named name. */
bool sy_elf_open_mem(struct sy_elf *e, char *mem, size_t n, const char *name, const uint8_t *bid,
                     size_t bidlen);
void sy_elf_close(struct sy_elf *e);
/* True when path names a regular file. */
bool sy_is_regular(const char *path);
/* The section named name, its header in *sh and its index in *idx (when
 * not NULL); NULL when there is none. eh is not used. */
Elf_Scn *sy_section(Elf *elf, const GElf_Ehdr *eh, const char *name, GElf_Shdr *sh, size_t *idx);
/* The GNU build id note of an ELF file into out[0..cap); its length, 0
 * when none. */
size_t sy_build_id(Elf *elf, uint8_t *out, size_t cap);
/* Adds the symbols of one table of syms (runtime: the file with the code,
 * whose program headers move values to file offsets) to d, then fixes
 * them up. Returns how many were added. */
size_t sy_load_table(struct sym_dso *d, struct sy_elf *syms, struct sy_elf *runtime, Elf_Scn *table);
/* Adds NAME@plt for each .plt entry of e. */
void sy_load_plt(struct sym_dso *d, struct sy_elf *e);

/* ---- symbols_debug.c ----------------------------------------------------- */

/* path under the symfs root. */
char *sy_join_symfs(const struct symbols *sy, const char *path);

#endif
