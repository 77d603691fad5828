/* record: `tflame record [OPTIONS] [--] COMMAND [ARGS]`, perf record run for
 * the user: the command is profiled into a perf.data file, which tflame
 * then opens. */
#ifndef TFLAME_RECORD_H
#define TFLAME_RECORD_H

#include <stdbool.h>
#include <stdio.h>

struct record_result {
	char path[4096];        /* the recording */
	bool temporary;         /* made here (no -o): remove it once read */
	char title[256];        /* what was recorded: "record: make -j4" */
};

/* argv[0] is "record". Parses the record options, runs perf record and
 * waits for it; Ctrl-C stops perf and the command, not tflame. Returns -1
 * with the recording in *r; otherwise the exit status to leave with (0
 * after --help, 2 for a usage error, 1 when perf is missing or recorded
 * nothing), a message having been printed. */
int record_run(int argc, char **argv, struct record_result *r);

/* The text of `tflame record --help`. */
void record_usage(FILE *out);

#endif
