/* symbols_debug: where an object's symbols are found (see symbols_impl.h),
 * in perf's order (dso__load): its .gnu_debuglink file beside it, in its
 * .debug or under /usr/lib/debug; perf's build-id cache (~/.debug, or
 * $PERF_BUILDID_DIR); /usr/lib/debug by path and by build id; the file
 * itself. The first with a .symtab gives the symbols, the first with a
 * .dynsym the program headers; MiniDebugInfo (.gnu_debugdata) stands in
 * for a missing .symtab. Also the vdso: perf's copy, else this process's. */
#include "config.h"
#include "symbols_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include "xalloc.h"
#ifdef HAVE_LZMA
#include <lzma.h>
#endif

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

char *sy_join_symfs(const struct symbols *sy, const char *path)
{
	return sy_asprintf("%s%s", sy->symfs ? sy->symfs : "", path);
}

/* The .gnu_debuglink file name of the ELF file at path. */
static char *debuglink(const char *path)
{
	struct sy_elf e;
	GElf_Shdr sh;
	char *out = NULL;
	if (!sy_elf_open(&e, path, NULL, 0))
		return NULL;
	Elf_Scn *scn = sy_section(e.elf, &e.eh, ".gnu_debuglink", &sh, NULL);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (data && data->d_size > 0 && memchr(data->d_buf, '\0', data->d_size))
		out = xstrdup(data->d_buf);
	sy_elf_close(&e);
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
	char *self = sy_join_symfs(sy, d->path);

	/* debuglink: beside the file, in its .debug, under /usr/lib/debug */
	if (sy_is_regular(self)) {
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
				if (!taken && sy_is_regular(c[i]) && n < cap) {
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
			if (sy_is_regular(cache)) {
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
static bool mini_debuginfo(struct sy_elf *e, struct sy_elf *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sy_section(e->elf, &e->eh, ".gnu_debugdata", &sh, NULL);
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
			if (sy_elf_open_mem(out, buf, out_pos, name, NULL, 0) && out->symtab)
				return true;
			sy_elf_close(out);
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
	struct sy_elf ss[2];
	int syms = -1, runtime = -1, used = 0;

	/* without a recorded build id, the file's own is what debug files
	 * must carry */
	if (!d->bidlen) {
		char *self = sy_join_symfs(sy, d->path);
		struct sy_elf e;
		if (sy_elf_open(&e, self, NULL, 0)) {
			d->bidlen = sy_build_id(e.elf, d->bid, sizeof d->bid);
			sy_elf_close(&e);
		}
		free(self);
	}
	nc = candidates(sy, d, cand, sizeof cand / sizeof cand[0]);
	for (size_t i = 0; i < nc && used < 2; i++) {
		struct sy_elf *e = &ss[used];
		if (!sy_elf_open(e, cand[i], d->bid, d->bidlen))
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
			sy_elf_close(e);
		}
	}
	/* DWARF (inline callers) comes from the symbol file, or what
	 * binutils would follow from it: the debug files by build id */
	for (size_t i = 0; i < nc; i++) {
		if (strstr(cand[i], "/usr/lib/debug") || strstr(cand[i], "/.debug/"))
			if (sy_is_regular(cand[i]))
				add_dwarf_candidate(d, cand[i]);
	}
	/* the object's code, for unwinding: the file itself when it is
	 * there with the right build id, else the build-id cache copy */
	{
		char *self = sy_join_symfs(sy, d->path);
		struct sy_elf e;
		if (sy_elf_open(&e, self, d->bid, d->bidlen)) {
			d->elf_path = xstrdup(self);
			sy_elf_close(&e);
		}
		free(self);
		for (size_t i = 0; !d->elf_path && i < nc; i++) {
			size_t l = strlen(cand[i]);
			if (l > 4 && strcmp(cand[i] + l - 4, "/elf") == 0 && sy_elf_open(&e, cand[i], d->bid, d->bidlen)) {
				d->elf_path = xstrdup(cand[i]);
				sy_elf_close(&e);
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
		if (sy_section(ss[runtime].elf, &ss[runtime].eh, ".text", &tsh, NULL))
			d->text_offset = tsh.sh_addr - tsh.sh_offset;
	}
	size_t nr = 0;
	if (ss[syms].symtab)
		nr += sy_load_table(d, &ss[syms], &ss[runtime], ss[syms].symtab);
	if (ss[syms].dynsym)
		nr += sy_load_table(d, &ss[syms], &ss[runtime], ss[syms].dynsym);
	if (nr)
		sy_load_plt(d, &ss[runtime]);
	for (int i = 0; i < used; i++)
		sy_elf_close(&ss[i]);
}

struct sym_dso *symbols_file(struct symbols *sy, const char *path, const uint8_t *bid, size_t bidlen)
{
	for (struct sym_dso *d = sy->list; d; d = d->next)
		if (d->kind == SY_FILE && strcmp(d->path, path) == 0 && d->bidlen == bidlen &&
		    (!bidlen || memcmp(d->bid, bid, bidlen) == 0))
			return d;
	struct sym_dso *d = sy_dso_new(sy, SY_FILE, path);
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
		if (d->kind == SY_VDSO && d->bidlen == bidlen && memcmp(d->bid, bid, bidlen) == 0)
			return d;
	struct sym_dso *d = sy_dso_new(sy, SY_VDSO, "[vdso]");
	struct sy_elf e;
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
		have = sy_elf_open(&e, cache, d->bid, d->bidlen);
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
				have = sy_elf_open_mem(&e, mem, n, "[vdso]", d->bid, d->bidlen);
			}
		}
	}
	if (!have)
		return d;
	d->found = true;
	if (e.symtab)
		sy_load_table(d, &e, &e, e.symtab);
	if (e.dynsym)
		sy_load_table(d, &e, &e, e.dynsym);
	sy_elf_close(&e);
	return d;
}
