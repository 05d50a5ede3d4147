// SPDX-License-Identifier: GPL-2.0
/* secmap: command-line front end to libsecmap; global options and dispatch. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "secmap_cli.h"

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "dump", do_dump, "show where each section of each loaded module is" },
	{ "info", do_info, "show the running secmap's version, generation and hook" },
	{ "monitor", do_monitor, "print module load, init and unload events as they happen" },
	{ "record", do_record, "record module section maps while a command (perf record) runs" },
	{ "show", do_show, "print the records of a recording" },
	{ "archive", do_archive, "pack the .ko files a recording needs, by build-id" },
	{ "inject", do_inject, "make a perf.data right for stock perf, and embed the recording" },
	{ "report", do_report, "perf report's table with module samples on the right function" },
	{ "script", do_script, "the samples as perf script prints them, module frames corrected" },
	{ "resolve", do_resolve, "name the module, section and symbol of addresses at a time" },
	{ "help", do_help, "show this help, or with COMMAND its own (COMMAND --help)" },
	{ 0 }
};

static void usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f,
		"Usage: %s [OPTIONS] COMMAND [ARGS...]\n"
		"       %s COMMAND --help, or %s help COMMAND\n"
		"\n"
		"Commands:\n", bin_name, bin_name, bin_name);
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s  %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -d, --debug    print libsecmap's messages on standard error\n"
		"  -j, --json     JSON output\n"
		"  -p, --pretty   pretty-printed JSON output (implies --json)\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the version\n");
}

static const struct cmd *find_cmd(const char *name)
{
	const struct cmd *c;

	for (c = cmds; c->name && strcmp(c->name, name); c++)
		;
	return c->name ? c : NULL;
}

/* "help [COMMAND]": COMMAND's own --help, as perf and git give it. */
static int do_help(int argc, char **argv)
{
	char *args[] = { NULL, "--help", NULL };
	const struct cmd *c;

	if (argc < 2) {
		usage(stdout);
		return SECMAP_EXIT_OK;
	}
	if (argc > 2)
		return unexpected_argument("help", argv[2], usage);
	c = find_cmd(argv[1]);
	if (!c) {
		p_err("unknown command '%s' (try '%s help')", argv[1], bin_name);
		return SECMAP_EXIT_USAGE;
	}
	if (c->func == do_help) {
		usage(stdout);
		return SECMAP_EXIT_OK;
	}
	args[0] = argv[1];
	return c->func(2, args);
}

static int do_version(void)
{
	struct json_out *o;

	if (!json_output) {
		printf("%s v%s\n", bin_name, SECMAP_TOOL_VERSION);
		return SECMAP_EXIT_OK;
	}
	o = json_out_stream(stdout, pretty_output);
	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "version", SECMAP_TOOL_VERSION);
		json_out_object_end(o);
	}
	/* A write error is caught again by the final flush in main(). */
	if (json_out_finish(o) == -ENOMEM) {
		p_err("out of memory");
		return SECMAP_EXIT_FAILURE;
	}
	return SECMAP_EXIT_OK;
}

/*
 * A signal that ends the program first removes the outputs' named
 * temporary files (a file system without O_TMPFILE), then ends it as it
 * would have. Signals set to be ignored stay ignored (nohup); record and
 * monitor read SIGINT and SIGTERM from a signalfd and finish properly.
 */
static void on_fatal_signal(int sig)
{
	secmap_output_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_temporaries_on_signals(void)
{
	static const int sigs[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
		SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
	};
	struct sigaction sa = { .sa_handler = on_fatal_signal }, old;
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
}

/* -d: the library's messages, on standard error (bpftool -d does libbpf's). */
static int print_libsecmap(enum secmap_print_level level, const char *fmt, va_list args)
{
	static const char *const names[] = { "warning", "info", "debug" };

	fprintf(stderr, "libsecmap: %s: ", (unsigned int)level < 3 ? names[level] : "?");
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug",	no_argument, NULL, 'd' },
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "help",	no_argument, NULL, 'h' },
		{ "version",	no_argument, NULL, 'V' },
		{ 0 }
	};
	bool help = false, version = false;
	const struct cmd *c;
	int opt, ret;

	remove_temporaries_on_signals();
	/* '+': options after COMMAND belong to the command. */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+djphV", opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'd':
			secmap_set_print(print_libsecmap);
			break;
		case 'h':
			help = true;
			break;
		case 'V':
			version = true;
			break;
		default:
			/* optopt is set for short options only; a bad long one is in argv. */
			if (optopt)
				p_err("unknown option '-%c'", optopt);
			else
				p_err("unknown option '%s'", argv[optind - 1]);
			if (!json_output)
				usage(stderr);
			return SECMAP_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	if (help) {
		usage(stdout);
		ret = SECMAP_EXIT_OK;
	} else if (version) {
		ret = do_version();
	} else if (!argc) {
		p_err("no command given");
		if (!json_output)
			usage(stderr);
		ret = SECMAP_EXIT_USAGE;
	} else {
		c = find_cmd(argv[0]);
		if (c) {
			ret = c->func(argc, argv);
		} else {
			p_err("unknown command '%s' (try '%s help')", argv[0], bin_name);
			ret = SECMAP_EXIT_USAGE;
		}
	}

	/*
	 * Buffered output may only fail now (full disk, closed pipe). A failed
	 * command has already said why, possibly about this very stream.
	 */
	errno = 0;
	if ((fflush(stdout) == EOF || ferror(stdout)) && ret == SECMAP_EXIT_OK) {
		fprintf(stderr, "Error: cannot write output: %s\n",
			strerror(errno ? errno : EIO));
		ret = SECMAP_EXIT_FAILURE;
	}
	return ret;
}
