/* symbols_elf: ELF files (see symbols_impl.h), read with libelf: opened
 * without waiting on what is not a regular file, refused when their build
 * id is not the recorded one; their .symtab and .dynsym read as perf 6.1
 * reads them (functions, objects and labels in text or data sections,
 * values moved to file offsets through the program headers) and their
 * .plt entries named NAME@plt. */
#include "config.h"
#include "symbols_impl.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xalloc.h"

void sy_elf_close(struct sy_elf *e)
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

bool sy_is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

Elf_Scn *sy_section(Elf *elf, const GElf_Ehdr *eh, const char *name, GElf_Shdr *sh, size_t *idx)
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
size_t sy_build_id(Elf *elf, uint8_t *out, size_t cap)
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

static bool ef_setup(struct sy_elf *e, const char *path, const uint8_t *bid, size_t bidlen);

/* Opens path as an ELF file; refuses one whose build id differs from the
 * expected one (when bidlen is set). */
bool sy_elf_open(struct sy_elf *e, const char *path, const uint8_t *bid, size_t bidlen)
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
bool sy_elf_open_mem(struct sy_elf *e, char *mem, size_t n, const char *name, const uint8_t *bid,
                        size_t bidlen)
{
	memset(e, 0, sizeof *e);
	e->fd = -1;
	e->mem = mem;
	e->elf = elf_memory(mem, n);
	return ef_setup(e, name, bid, bidlen);
}

static bool ef_setup(struct sy_elf *e, const char *path, const uint8_t *bid, size_t bidlen)
{
	GElf_Shdr sh;
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->eh)) {
		sy_elf_close(e);
		return false;
	}
	if (bidlen) {
		uint8_t got[20];
		size_t n = sy_build_id(e->elf, got, sizeof got);
		if (n != bidlen || memcmp(got, bid, n) != 0) {
			sy_elf_close(e);
			return false;
		}
	}
	e->symtab = sy_section(e->elf, &e->eh, ".symtab", &sh, NULL);
	if (e->symtab && sh.sh_type != SHT_SYMTAB)
		e->symtab = NULL;
	e->dynsym = sy_section(e->elf, &e->eh, ".dynsym", &sh, &e->dynsym_idx);
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
size_t sy_load_table(struct sym_dso *d, struct sy_elf *syms, struct sy_elf *runtime, Elf_Scn *table)
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
		char *dem = sy_demangle(name);
		sy_add_sym(d, value, s.st_size, (uint8_t)GELF_ST_BIND(s.st_info), dem ? dem : name);
		free(dem);
		added++;
	}
	if (added) {
		sy_fixup_end(d, false);
		sy_fixup_duplicate(d);
	}
	return added;
}

void sy_load_plt(struct sym_dso *d, struct sy_elf *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel;
	if (!e->dynsym)
		return;
	rel = sy_section(e->elf, &e->eh, ".rela.plt", &rsh, NULL);
	if (!rel)
		rel = sy_section(e->elf, &e->eh, ".rel.plt", &rsh, NULL);
	if (!rel || rsh.sh_link != e->dynsym_idx || rsh.sh_entsize == 0)
		return;
	if (!sy_section(e->elf, &e->eh, ".plt", &psh, NULL))
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
		char *dem = name ? sy_demangle(name) : NULL;
		char *pn = sy_asprintf("%s@plt", dem ? dem : name ? name : "");
		free(dem);
		sy_add_sym(d, off, entsize, STB_GLOBAL, pn);
		free(pn);
		off += entsize;
	}
}
