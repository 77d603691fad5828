/* symbols_text: symbols that come from text tables, not ELF files (see
 * symbols_impl.h): kallsyms ("ADDR TYPE NAME" lines, moved by the
 * recording's kernel placement), perf map files ("START SIZE NAME", hex)
 * for JIT code, single symbols given by hand (BPF programs); and the build
 * id of the running kernel. */
#include "config.h"
#include "symbols_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xalloc.h"

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
	struct sym_dso *d = sy_dso_new(sy, SY_KALLSYMS, path);
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
			sy_add_sym_ref(d, a - delta, 0, bind, name);
		}
	}
	d->found = d->n > 0;
	sy_fixup_end(d, true);
	sy_fixup_duplicate(d);
	return d;
}

/* perf's hex2u64: hex digits only (no "0x"); returns the count read. */
static size_t hex_prefix(const char *s, uint64_t *v)
{
	size_t n = 0;
	*v = 0;
	while (isxdigit((unsigned char)s[n])) {
		*v = *v << 4 | (uint64_t)sy_hexval(s[n]);
		n++;
	}
	return n;
}

struct sym_dso *symbols_perfmap(struct symbols *sy, const char *path)
{
	for (struct sym_dso *d = sy->list; d; d = d->next)
		if (d->kind == SY_PERFMAP && strcmp(d->path, path) == 0)
			return d;
	struct sym_dso *d = sy_dso_new(sy, SY_PERFMAP, path);
	d->loaded = true;
	char *full = sy_join_symfs(sy, path);
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
		sy_add_sym(d, start, size, STB_GLOBAL, line + k);
	}
	free(line);
	fclose(f);
	d->found = true;
	return d;
}

struct sym_dso *symbols_single(struct symbols *sy, const char *name, uint64_t start, uint64_t len)
{
	struct sym_dso *d = sy_dso_new(sy, SY_SINGLE, name);
	d->loaded = d->found = true;
	sy_add_sym(d, start, len, STB_GLOBAL, name);
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
