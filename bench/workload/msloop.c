/* msloop: minisearch (SCALE 1) over and over in COPIES forked processes at a
 * time, without exec, for bench/run.sh's DWARF recording of a perf.data
 * file: a long, varied, multi-process workload whose processes all keep the
 * mappings perf saw at the start (perf 6.1 often fails to unwind libc
 * frames by DWARF in a process that execs after its libc was mapped, as a
 * child of sh does; see bench/BASELINE.md, "perf.data reader").
 *
 *   cc -std=c11 -O2 -g -fomit-frame-pointer -o msloop msloop.c -lm
 * Usage: msloop [COPIES [ROUNDS]]   (default 2 and 1000; ends early when
 * killed, and then so do its copies)
 */
#define _GNU_SOURCE
#define main minisearch_main
#include "minisearch.c"
#undef main

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int copies = argc > 1 ? atoi(argv[1]) : 2;
	int rounds = argc > 2 ? atoi(argv[2]) : 1000;
	char *args[] = { "minisearch", "1", NULL };
	if (copies < 1)
		copies = 1;
	for (int r = 0; r < rounds; r++) {
		for (int c = 0; c < copies; c++) {
			pid_t pid = fork();
			if (pid < 0) {
				perror("msloop: fork");
				return 1;
			}
			if (pid == 0) {
				prctl(PR_SET_PDEATHSIG, SIGTERM);
				if (!freopen("/dev/null", "w", stdout))
					_exit(1);
				minisearch_main(2, args);
				fflush(stdout);
				_exit(0);
			}
		}
		while (wait(NULL) > 0)
			;
	}
	return 0;
}
