/* record: perf record on the user's behalf, for `tflame record`. */
#include "config.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "text.h"
#include "xalloc.h"

void record_usage(FILE *out)
{
	fputs(
"Usage: tflame record [OPTION]... [--] COMMAND [ARG]...\n"
"       tflame record [OPTION]... -p PID | -a\n"
"Profile COMMAND (or a running process, or the whole system) with perf record,\n"
"then browse the flame graph. Ctrl-C ends the recording; the browser opens.\n"
"\n"
"  -F, --freq=HZ           samples per second (perf's default: 4000)\n"
"  -g                      call graphs from frame pointers (the default)\n"
"      --dwarf             call graphs unwound from stack copies: for programs\n"
"                          built without frame pointers (larger recordings)\n"
"  -e, --event=EVENT       the event to sample (perf's default: cycles)\n"
"  -p, --pid=PID           record the running process PID instead of a command\n"
"  -a, --all-cpus          record the whole system\n"
"  -o, --output=FILE       keep the recording in FILE (default: a temporary\n"
"                          file, removed once read)\n"
"  -h, --help              show this help and exit\n"
"\n"
"Needs perf (Debian: apt-get install linux-perf) and permission to profile\n"
"(the sysctl kernel.perf_event_paranoid: 2 or less for your own processes, 1\n"
"for kernel frames, 0 or less for -a; or run as root).\n"
"Example:\n"
"  tflame record -F 999 -- make -j4\n", out);
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* Says which sysctl stands in the way, when one may. */
static void paranoid_hint(bool system_wide)
{
	int p = paranoid_level();
	int need = system_wide ? 0 : 2;
	if (geteuid() != 0 && p > need)
		fprintf(stderr, "tflame: kernel.perf_event_paranoid is %d; %s needs %d or less: as root, run\n"
		        "  sysctl kernel.perf_event_paranoid=%d\n",
		        p, system_wide ? "recording the whole system" : "profiling your own programs", need, need);
}

static void add(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof **v);
	(*v)[(*n)++] = (char *)s;
	(*v)[*n] = NULL;
}

int record_run(int argc, char **argv, struct record_result *r)
{
	static const struct option opts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "dwarf", no_argument, NULL, 'D' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *freq = NULL, *event = NULL, *pid = NULL, *out = NULL;
	bool dwarf = false, all = false;
	int c;

	memset(r, 0, sizeof *r);
	optind = 0;
	/* '+': options end at the command, whose own options are its own */
	while ((c = getopt_long(argc, argv, "+F:ge:p:ao:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F': freq = optarg; break;
		case 'g': dwarf = false; break;
		case 'D': dwarf = true; break;
		case 'e': event = optarg; break;
		case 'p': pid = optarg; break;
		case 'a': all = true; break;
		case 'o': out = optarg; break;
		case 'h': record_usage(stdout); return 0;
		default:
			fputs("Try 'tflame record --help' for more information.\n", stderr);
			return 2;
		}
	}
	if (freq && strspn(freq, "0123456789") != strlen(freq)) {
		fputs("tflame: record: -F takes a number of samples per second\n", stderr);
		return 2;
	}
	if (pid && strspn(pid, "0123456789,") != strlen(pid)) {
		fputs("tflame: record: -p takes a process ID\n", stderr);
		return 2;
	}
	if (optind >= argc && !pid && !all) {
		fputs("tflame: record: no command to profile (or -p PID, or -a)\n"
		      "Try 'tflame record --help' for more information.\n", stderr);
		return 2;
	}

	/* the title: the command line, else the process or the system */
	if (optind < argc) {
		size_t used = (size_t)snprintf(r->title, sizeof r->title, "record:");
		for (int i = optind; i < argc && used < sizeof r->title; i++)
			used += (size_t)snprintf(r->title + used, sizeof r->title - used, " %s", argv[i]);
	} else {
		snprintf(r->title, sizeof r->title, "record: %s%.200s", pid ? "PID " : "all CPUs", pid ? pid : "");
	}
	if (out) {
		if (strlen(out) >= sizeof r->path) {
			fputs("tflame: record: the output file name is too long\n", stderr);
			return 2;
		}
		snprintf(r->path, sizeof r->path, "%s", out);
	} else {
		const char *dir = getenv("TMPDIR");
		if (!dir || !*dir || strlen(dir) > sizeof r->path - 64)
			dir = "/tmp";
		snprintf(r->path, sizeof r->path, "%s/tflame-record-XXXXXX.data", dir);
		int fd = mkstemps(r->path, 5);
		if (fd < 0) {
			fprintf(stderr, "tflame: record: cannot make a temporary file in %s: %s\n", dir, strerror(errno));
			return 1;
		}
		close(fd);
		r->temporary = true;
	}

	char **av = NULL;
	size_t n = 0;
	add(&av, &n, "perf");
	add(&av, &n, "record");
	add(&av, &n, "-o");
	add(&av, &n, r->path);
	if (dwarf) {
		add(&av, &n, "--call-graph");
		add(&av, &n, "dwarf");
	} else {
		add(&av, &n, "-g");
	}
	if (freq) {
		add(&av, &n, "-F");
		add(&av, &n, freq);
	}
	if (event) {
		add(&av, &n, "-e");
		add(&av, &n, event);
	}
	if (pid) {
		add(&av, &n, "-p");
		add(&av, &n, pid);
	}
	if (all)
		add(&av, &n, "-a");
	if (optind < argc) {
		add(&av, &n, "--");
		for (int i = optind; i < argc; i++)
			add(&av, &n, argv[i]);
	}

	/* Ctrl-C is for perf and the command: perf stops recording, and the
	 * browser then opens on what was recorded. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldint, oldquit;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oldint);
	sigaction(SIGQUIT, &ign, &oldquit);
	int pipefd[2];
	if (pipe(pipefd) != 0) {
		fprintf(stderr, "tflame: record: %s\n", strerror(errno));
		free(av);
		return 1;
	}
	pid_t child = fork();
	if (child == 0) {
		sigaction(SIGINT, &oldint, NULL);
		sigaction(SIGQUIT, &oldquit, NULL);
		close(pipefd[0]);
		fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
		execvp(av[0], av);
		int e = errno;
		if (write(pipefd[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	int status = 0, exec_errno = 0;
	if (child > 0) {
		if (read(pipefd[0], &exec_errno, sizeof exec_errno) != (ssize_t)sizeof exec_errno)
			exec_errno = 0;
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(pipefd[0]);
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGQUIT, &oldquit, NULL);
	free(av);

	if (child < 0 || exec_errno) {
		int e = child < 0 ? errno : exec_errno;
		if (e == ENOENT)
			fputs("tflame: record: perf is not installed (Debian: apt-get install linux-perf)\n", stderr);
		else
			fprintf(stderr, "tflame: record: cannot run perf: %s\n", strerror(e));
		if (r->temporary)
			unlink(r->path);
		return 1;
	}
	struct stat st;
	bool have = stat(r->path, &st) == 0 && st.st_size > 0;
	if (!have || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && st.st_size < 4096)) {
		if (WIFEXITED(status))
			fprintf(stderr, "tflame: record: perf record failed (exit status %d)\n", WEXITSTATUS(status));
		else
			fputs("tflame: record: perf record ended abnormally\n", stderr);
		paranoid_hint(all);
		if (r->temporary)
			unlink(r->path);
		return 1;
	}
	return -1;
}
