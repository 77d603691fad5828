/* jit.c (x86-64 only): copies a small machine-code loop into an anonymous
 * read-write-execute mapping and calls it many times, as a JIT compiler
 * would. Before running it writes /tmp/perf-<pid>.map, the perf map file
 * that names the code ("<start> <size> jitted_loop"), and prints that
 * file's name on stdout; the test removes the file. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS with -std=c11 (glibc) */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* void loop(unsigned long n): decrements rdi (the first argument) to 0. */
static const unsigned char code[] = {
	0x48, 0xff, 0xcf, /* 0: dec  %rdi */
	0x75, 0xfb,       /* 3: jnz  0    */
	0xc3,             /* 5: ret       */
};

typedef void loop_fn(unsigned long);

NOINLINE void run_jitted(loop_fn *fn, int times)
{
	for (int i = 0; i < times; i++)
		fn(1000000);
}

int main(void)
{
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	char mapname[64];
	unsigned char *page;
	loop_fn *fn;
	FILE *f;

	page = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("jit: mmap");
		return 1;
	}
	memcpy(page, code, sizeof code);
	snprintf(mapname, sizeof mapname, "/tmp/perf-%ld.map", (long)getpid());
	f = fopen(mapname, "w");
	if (f == NULL) {
		perror(mapname);
		return 1;
	}
	fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)page, sizeof code);
	if (fclose(f) != 0) {
		perror(mapname);
		return 1;
	}
	printf("%s\n", mapname);
	fflush(stdout);
	/* Object pointer to function pointer: not ISO C, but what POSIX dlsym
	 * and every JIT rely on. */
	memcpy(&fn, &page, sizeof fn);
	run_jitted(fn, 2000);
	return 0;
}
