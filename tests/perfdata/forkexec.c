/* forkexec.c: the parent forks a child that execs PATH (default: this
 * program; the test passes a symbolic link named fe-child to it, so the
 * child's comm changes at the exec) with the argument --child. The child
 * runs child_work, the parent runs parent_work meanwhile, then waits.
 *
 *   usage: forkexec [PATH]      forkexec --child */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

static volatile unsigned long sink;

NOINLINE unsigned long child_work(unsigned long n)
{
	unsigned long a = 0, b = 1;
	for (unsigned long i = 0; i < n; i++) {
		unsigned long t = a + b;
		a = b;
		b = t ^ (i >> 2);
	}
	return b;
}

NOINLINE unsigned long parent_work(unsigned long n)
{
	unsigned long h = 14695981039346656037ul;
	for (unsigned long i = 0; i < n; i++)
		h = (h ^ (i & 0xff)) * 1099511628211ul;
	return h;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : argv[0];
	pid_t pid;
	int status;

	if (argc > 1 && strcmp(argv[1], "--child") == 0) {
		sink = child_work(500000000);
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("forkexec: fork");
		return 1;
	}
	if (pid == 0) {
		execl(path, path, "--child", (char *)NULL);
		perror("forkexec: exec");
		_exit(127);
	}
	sink = parent_work(250000000);
	if (waitpid(pid, &status, 0) < 0) {
		perror("forkexec: waitpid");
		return 1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
