/* unwind: CFI unwinding of a sampled user stack with libdwfl.
 *
 * libdwfl wants a process: each sampled process gets a Dwfl of its own,
 * attached once, whose modules are the ELF files of its mappings, reported
 * as the unwinder reaches them. The thread callbacks read registers and
 * stack from the sample being unwound (set before each unwind), other
 * memory from the mapped files. A few Dwfls are kept, least recently used
 * out; one whose process remapped its files is started again. */
#include "config.h"
#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xalloc.h"

#define UW_CACHE 16

/* perf's x86 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS,
       R_CS, R_SS, R_DS, R_ES, R_FS, R_GS, R_R8, R_R9, R_R10, R_R11, R_R12,
       R_R13, R_R14, R_R15 };

struct uw_proc {
	Dwfl *dwfl;
	uint64_t layout;
	uint64_t used;          /* LRU clock */
};

struct unwind {
	struct uw_proc procs[UW_CACHE];
	uint64_t clock;
	const struct unwind_input *in;  /* the sample being unwound */
	uint64_t sp;
	uint64_t *ips;
	size_t n, max;
	/* the last file read for memory outside the stack copy */
	char *fd_path;
	int fd;
};

static char *no_debuginfo_path;

/* CFI comes from the files themselves (.eh_frame first, as perf's
 * libunwind reads it); no separate debug files. */
static int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                             const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                             char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file_name;
	(void)debuglink_file; (void)debuglink_crc; (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks uw_callbacks = {
	.find_debuginfo = uw_find_debuginfo,
	.debuginfo_path = &no_debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

static bool uw_reg(const struct unwind_input *in, unsigned r, uint64_t *v)
{
	if (!(in->regs_mask >> r & 1))
		return false;
	unsigned idx = 0;
	for (unsigned i = 0; i < r; i++)
		idx += (unsigned)(in->regs_mask >> i & 1);
	if (idx >= in->nregs)
		return false;
	memcpy(v, in->regs + 8 * idx, 8);
	return true;
}

/* Reports the module mapped at addr, if not yet; false when none. */
static bool uw_report(struct unwind *u, Dwfl *dwfl, uint64_t addr)
{
	struct unwind_map m;
	Dwarf_Addr start;

	if (!u->in->map(u->in->arg, addr, &m))
		return false;
	Dwarf_Addr base = m.start - m.pgoff;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	if (mod) {
		dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		if (start == base)
			return true;
	}
	mod = dwfl_report_elf(dwfl, m.path, m.path, -1, base, false);
	return mod && dwfl_addrmodule(dwfl, addr) == mod;
}

static bool uw_read_file(struct unwind *u, uint64_t addr, Dwarf_Word *out)
{
	struct unwind_map m;
	if (!u->in->map(u->in->arg, addr, &m) || addr + 8 > m.end)
		return false;
	if (!u->fd_path || strcmp(u->fd_path, m.path) != 0) {
		if (u->fd >= 0)
			close(u->fd);
		free(u->fd_path);
		u->fd_path = xstrdup(m.path);
		u->fd = open(m.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	}
	return u->fd >= 0 && pread(u->fd, out, 8, (off_t)(addr - m.start + m.pgoff)) == 8;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind *u = arg;
	(void)dwfl;
	if (addr + 8 < addr)
		return false;
	if (addr >= u->sp && addr + 8 <= u->sp + u->in->stack_size) {
		memcpy(result, u->in->stack + (addr - u->sp), 8);
		return true;
	}
	return uw_read_file(u, addr, result);
}

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool uw_set_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind *u = arg;
	static const unsigned order[17] = {
		R_AX, R_DX, R_CX, R_BX, R_SI, R_DI, R_BP, R_SP, R_R8, R_R9,
		R_R10, R_R11, R_R12, R_R13, R_R14, R_R15, R_IP
	};
	Dwarf_Word regs[17];
	for (unsigned i = 0; i < 17; i++) {
		uint64_t v = 0;
		uw_reg(u->in, order[i], &v);
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks uw_thread_callbacks = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_registers,
};

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;
	Dwfl_Thread *th = dwfl_frame_thread(state);
	Dwfl *dwfl = dwfl_thread_dwfl(th);

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* the module must be known before asking whether the frame is an
	 * activation (a signal frame) */
	bool mapped = uw_report(u, dwfl, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	if (pc && u->n < u->max)
		u->ips[u->n++] = pc;
	if (!mapped || u->n >= u->max)
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

struct unwind *unwind_new(void)
{
	struct unwind *u = xcalloc(1, sizeof *u);
	u->fd = -1;
	return u;
}

void unwind_free(struct unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < UW_CACHE; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	if (u->fd >= 0)
		close(u->fd);
	free(u->fd_path);
	free(u);
}

static struct uw_proc *uw_proc(struct unwind *u, const struct unwind_input *in)
{
	struct uw_proc *slot = NULL, *lru = &u->procs[0];
	for (int i = 0; i < UW_CACHE; i++) {
		struct uw_proc *p = &u->procs[i];
		if (p->dwfl && p->layout == in->layout) {
			slot = p;
			break;
		}
		if (!p->dwfl || (lru->dwfl && p->used < lru->used))
			lru = p;
	}
	if (!slot) {
		slot = lru;
		if (slot->dwfl)
			dwfl_end(slot->dwfl);
		memset(slot, 0, sizeof *slot);
		slot->dwfl = dwfl_begin(&uw_callbacks);
		if (!slot->dwfl)
			return NULL;
		slot->layout = in->layout;
	}
	slot->used = ++u->clock;
	return slot;
}

size_t unwind_sample(struct unwind *u, const struct unwind_input *in, uint64_t *ips, size_t max)
{
	uint64_t ip, sp;

	if (max == 0 || in->abi != 2 || !uw_reg(in, R_IP, &ip) || !uw_reg(in, R_SP, &sp))
		return 0;
	u->in = in;
	u->sp = sp;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	struct uw_proc *p = uw_proc(u, in);
	if (!p)
		return 0;
	bool attached = dwfl_pid(p->dwfl) > 0;
	if (!uw_report(u, p->dwfl, ip)) {
		/* no file holds the sampled code (JIT code in anonymous
		 * memory): the sampled address alone, as perf's unwinder
		 * gives it, which cannot step past code without CFI */
		ips[0] = ip;
		u->in = NULL;
		return 1;
	}
	if (!attached && !dwfl_attach_state(p->dwfl, EM_NONE, in->pid > 0 ? in->pid : 1,
	                                    &uw_thread_callbacks, u)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		return 0;
	}
	dwfl_getthread_frames(p->dwfl, in->tid > 0 ? in->tid : 1, uw_frame, u);
	u->in = NULL;
	return u->n;
}
