// SPDX-License-Identifier: GPL-2.0
/*
 * What a `perf record` command line given to `secmap record --inject`
 * writes, read as perf reads it: -o/--output FILE, else perf.data, else
 * stdout when stdout is a pipe (perf then writes pipe mode). Only options
 * of perf record that take a value are told apart, so that their values
 * are not taken for the workload; anything else ends the scan, like the
 * first word of the workload or "--".
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secmap_cli.h"

/* perf record's short options that take a value in the next word or the rest of theirs. */
static const char short_with_value[] = "CDFGjkmoprtuce";

/* Its long ones (tools/perf/builtin-record.c), which may also be given as "--name=value". */
static const char *const long_with_value[] = {
	"affinity", "branch-filter", "call-graph", "cgroup", "clockid", "control", "count",
	"cpu", "delay", "event", "filter", "freq", "max-size", "mmap-flush", "mmap-pages",
	"num-thread-synthesize", "output", "pid", "proc-map-timeout", "realtime",
	"setup-filter", "switch-max-files", "switch-output-event", "synth", "tid", "uid",
};

static bool is_perf(const char *arg)
{
	const char *base = strrchr(arg, '/');

	return !strncmp(base ? base + 1 : arg, "perf", 4);
}

/* The long option @name (without "--" and "=..."), of @len bytes, perf would take. */
static const char *long_option(const char *name, size_t len)
{
	const char *found = NULL;
	size_t i;

	for (i = 0; i < sizeof(long_with_value) / sizeof(long_with_value[0]); i++) {
		if (strncmp(long_with_value[i], name, len))
			continue;
		if (!long_with_value[i][len])
			return long_with_value[i];	/* exact */
		found = found ? "" : long_with_value[i];	/* a prefix: unique or not */
	}
	return found && *found ? found : NULL;
}

/* The output of perf record's options at @argv (after "record"); NULL if none named. */
static const char *output_option(char *const *argv)
{
	const char *out = NULL;
	size_t i;

	for (i = 0; argv[i] && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *arg = argv[i], *eq, *opt;

		if (!strcmp(arg, "--"))
			break;
		if (arg[1] == '-') {
			eq = strchr(arg + 2, '=');
			opt = long_option(arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
			if (!opt)
				continue;	/* a flag, or one perf does not know */
			if (!eq && !argv[++i])
				break;
			if (!strcmp(opt, "output"))
				out = eq ? eq + 1 : argv[i];
			continue;
		}
		/* A cluster of flags, the last of which may take a value: "-ao FILE", "-oFILE". */
		for (arg++; *arg; arg++) {
			if (!strchr(short_with_value, *arg))
				continue;
			if (arg[1]) {
				if (*arg == 'o')
					out = arg + 1;
			} else if (argv[i + 1]) {
				if (*arg == 'o')
					out = argv[i + 1];
				i++;
			}
			break;
		}
	}
	return out;
}

int perf_record_output(char *const *argv, const char **path)
{
	const char *out = NULL;
	struct stat st;
	size_t i, j;
	bool found = false;

	for (i = 0; argv[i] && !found; i++) {
		if (!is_perf(argv[i]))
			continue;
		/* perf's own options (--no-pager, -v...) may come before "record". */
		for (j = i + 1; argv[j] && argv[j][0] == '-'; j++)
			;
		if (argv[j] && !strcmp(argv[j], "record")) {
			out = output_option(argv + j + 1);
			found = true;
		}
	}
	if (!found)
		return -ENOENT;
	if (out && !strcmp(out, "-"))
		return -EPIPE;
	/* No -o: perf writes pipe mode to a stdout that is a FIFO, as the command's will be. */
	if (!out && !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode))
		return -EPIPE;
	*path = out ? out : "perf.data";
	return 0;
}
