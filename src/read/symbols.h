/* symbols: addresses to function names, with perf 6.1's rules so that names
 * match `perf script`: an object's ELF .symtab (its own, or the one of a
 * debug file found by build id or debuglink, or of perf's build-id cache),
 * else .dynsym, plus NAME@plt entries; /proc/kallsyms for the kernel; perf
 * map files (/tmp/perf-PID.map) for JIT code; inline callers from DWARF.
 * Everything is loaded on first use and kept until symbols_free. */
#ifndef TFLAME_SYMBOLS_H
#define TFLAME_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;
struct sym_dso;

struct sym {
	uint64_t start, end;    /* [start, end) in the object's address space */
	const char *name;
};

/* symfs: a directory object paths are looked up under first (NULL: /). */
struct symbols *symbols_new(const char *symfs);
void symbols_free(struct symbols *sy);

/* The object file at path as the recording names it, expected to carry
 * build id bid[0..bidlen) (bidlen 0: not checked). A file whose build id
 * differs is not used (perf rejects it too). Same arguments, same object. */
struct sym_dso *symbols_file(struct symbols *sy, const char *path, const uint8_t *bid, size_t bidlen);
/* Kernel symbols from a kallsyms file (/proc/kallsyms of the running
 * kernel, or the copy perf record keeps); addresses as sampled: the
 * recording had symbol ref (e.g. "_text"; NULL: none) at ref_addr, and the
 * file's addresses are moved by the difference (a kernel placed elsewhere
 * at boot). One kernel a symbols object: the first path given is read. */
struct sym_dso *symbols_kallsyms(struct symbols *sy, const char *path, const char *ref, uint64_t ref_addr);
/* The vdso with build id bid: perf's copy in the build-id cache, or this
 * process's own when the build ids agree. Addresses are offsets in it. */
struct sym_dso *symbols_vdso(struct symbols *sy, const uint8_t *bid, size_t bidlen);
/* A perf map file ("START SIZE NAME" lines, hex), e.g. /tmp/perf-PID.map;
 * ignored unless owned by the user or root. */
struct sym_dso *symbols_perfmap(struct symbols *sy, const char *path);
/* A symbol added by hand (BPF programs announced by KSYMBOL records). */
struct sym_dso *symbols_single(struct symbols *sy, const char *name, uint64_t start, uint64_t len);

/* For file objects: addresses are file offsets (perf's map-relative
 * address, ip - map start + pgoff); for the others, the sampled address.
 * NULL when no symbol covers addr. */
const struct sym *sym_dso_find(struct sym_dso *d, uint64_t addr);

/* The DWARF inline chain at file offset addr, as binutils addr2line -i
 * prints it: innermost function first, the outermost (the subprogram)
 * last. Returns the count (0: no debug information covers addr); *names
 * stays valid until symbols_free. */
size_t sym_dso_inlines(struct sym_dso *d, uint64_t addr, const char *const **names);

/* The path of the ELF file with the object's code (after symfs and
 * build-id cache lookups), or NULL when none matched. For unwinding. */
const char *sym_dso_elf_path(struct sym_dso *d);
/* True when the object could be read (symbols or not). */
bool sym_dso_found(struct sym_dso *d);

/* The running kernel's build id (from /sys/kernel/notes) into bid; its
 * length, 0 when unknown. */
size_t symbols_kernel_build_id(uint8_t *bid, size_t cap);

#endif
