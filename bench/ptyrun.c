/* ptyrun: runs a terminal program in a fresh pseudo-terminal and reports
 * when its first screen is complete, for `make bench` (time to first paint).
 *
 * usage: ptyrun [-s COLSxROWS] [-m MARKER] [-p PARTIAL] [-k KEYS] [-e ERRFILE] [-t SECONDS] -- CMD [ARG...]
 *
 * The clock starts just before fork(). "first_paint_ms N" is printed when
 * MARKER (default "? help", the end of tflame's status line, the last row
 * curses writes) has appeared in the program's output; then KEYS (default
 * "q") are typed, the output is drained until the program exits, and
 * "exit N" is printed. The program's stderr goes to ERRFILE (default
 * /dev/null) so that its reports stay out of the screen. Exit status: 0, or
 * 1 when the marker never came within the timeout (default 60 s).
 *
 * With -p, "partial_paint_ms N" is printed first when PARTIAL appears
 * before MARKER: tflame's preview of a profile still loading says
 * "loading" where the status line has "? help" once the whole profile is
 * shown. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void usage(void)
{
	fputs("usage: ptyrun [-s COLSxROWS] [-m MARKER] [-p PARTIAL] [-k KEYS] [-e ERRFILE] [-t SECONDS] -- CMD [ARG...]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_col = 200, .ws_row = 50 };
	const char *marker = "? help", *keys = "q", *errfile = "/dev/null", *partial = NULL;
	double timeout_ms = 60e3;
	int c;
	while ((c = getopt(argc, argv, "s:m:p:k:e:t:")) != -1) {
		switch (c) {
		case 's': {
			unsigned cols, rows;
			if (sscanf(optarg, "%ux%u", &cols, &rows) != 2 || !cols || !rows)
				usage();
			ws.ws_col = (unsigned short)cols;
			ws.ws_row = (unsigned short)rows;
			break;
		}
		case 'm': marker = optarg; break;
		case 'p': partial = optarg; break;
		case 'k': keys = optarg; break;
		case 'e': errfile = optarg; break;
		case 't': timeout_ms = atof(optarg) * 1e3; break;
		default: usage();
		}
	}
	if (optind >= argc || !*marker || (partial && !*partial))
		usage();

	int master;
	double t0 = now_ms();
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0) {
		perror("ptyrun: forkpty");
		return 1;
	}
	if (pid == 0) {
		int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		setenv("TERM", "xterm-256color", 1);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}

	/* Keep a window of the last bytes so a marker split over two reads
	 * is still found. */
	size_t mlen = strlen(marker), plen = partial ? strlen(partial) : 0;
	size_t wlen = mlen > plen ? mlen : plen;
	if (wlen > 256)
		usage();
	char win[8192 + 256];
	size_t have = 0;
	int found = 0, seen_partial = 0;
	for (;;) {
		double left = timeout_ms - (now_ms() - t0);
		if (!found && left <= 0)
			break;
		struct pollfd pfd = { .fd = master, .events = POLLIN };
		int r = poll(&pfd, 1, found ? 1000 : (int)left + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (found)
				continue;   /* waiting for the exit */
			break;
		}
		char buf[8192];
		ssize_t n = read(master, buf, sizeof buf);
		if (n <= 0)
			break;      /* EIO: the program is gone */
		if (found)
			continue;
		size_t keep = have < wlen ? have : wlen - 1;
		memmove(win, win + have - keep, keep);
		memcpy(win + keep, buf, (size_t)n);
		have = keep + (size_t)n;
		if (partial && !seen_partial && memmem(win, have, partial, plen)) {
			seen_partial = 1;
			printf("partial_paint_ms %.1f\n", now_ms() - t0);
			fflush(stdout);
		}
		if (memmem(win, have, marker, mlen)) {
			found = 1;
			printf("first_paint_ms %.1f\n", now_ms() - t0);
			fflush(stdout);
			if (write(master, keys, strlen(keys)) < 0)
				perror("ptyrun: write");
		}
	}
	if (!found) {
		fprintf(stderr, "ptyrun: no '%s' on the screen within %.0f s\n", marker, timeout_ms / 1e3);
		kill(pid, SIGTERM);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return found ? 0 : 1;
}
