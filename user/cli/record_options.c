// SPDX-License-Identifier: GPL-2.0
/* secmap record's command line. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

static void record_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s record [-o FILE] [--inject[=PERF_DATA]] [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"\n"
		"Record where each section of each kernel module is mapped, and when:\n"
		"a snapshot of every loaded module, then every load, init completion and\n"
		"unload, while COMMAND runs (typically `perf record ...`), or until\n"
		"SIGINT/SIGTERM without COMMAND. The exit status is COMMAND's; SIGINT and\n"
		"SIGTERM are passed on to it. Lost events become resync records; if\n"
		"secmap.ko is unloaded and loaded again, recording resumes and the gap is\n"
		"recorded. Without secmap.ko, module loads and unloads come from the\n"
		"kernel's uevents, sysfs and perf's tracepoints (module:module_load, and\n"
		"the init_module() syscalls'): a load is known from its init_module() call\n"
		"(without them: once its init has finished); its init sections are not\n"
		"known (see --source).\n"
		"Needs CAP_SYSLOG.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE        write the recording to FILE (default secmap.data;\n"
		"                           an existing FILE is kept as FILE.old)\n"
		"      --inject[=PERF_DATA] when COMMAND has exited, rewrite PERF_DATA (default:\n"
		"                           the -o of COMMAND's perf record, else perf.data)\n"
		"                           for stock perf and embed the recording, as\n"
		"                           `secmap inject`\n"
		"      --no-kallsyms        leave out the core kernel's symbol table\n"
		"      --ko-path PATH       look for .ko files in PATH first (repeatable)\n"
		"      --no-ko              do not read .ko files (no section sizes, offsets)\n"
		"      --source SRC         where module loads are learnt from: netlink (the\n"
		"                           secmap module), uevent (the kernel's uevents and\n"
		"                           sysfs, even with the module loaded), or auto\n"
		"                           (default: netlink if the module is loaded)\n"
		"  -q, --quiet              no summary on stderr\n"
		"  -j, --json               summary as JSON on stdout\n"
		"  -h, --help               show this help\n",
		bin_name);
}

enum {
	OPT_INJECT = 256,
	OPT_NO_KALLSYMS,
	OPT_KO_PATH,
	OPT_NO_KO,
	OPT_SOURCE,
};

int record_options(int argc, char **argv, struct recorder *r)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "output",	 required_argument, NULL, 'o' },
		{ "quiet",	 no_argument,	    NULL, 'q' },
		{ "inject",	 optional_argument, NULL, OPT_INJECT },
		{ "no-kallsyms", no_argument,	    NULL, OPT_NO_KALLSYMS },
		{ "ko-path",	 required_argument, NULL, OPT_KO_PATH },
		{ "no-ko",	 no_argument,	    NULL, OPT_NO_KO },
		{ "source",	 required_argument, NULL, OPT_SOURCE },
		{ 0 }
	};
	int opt, err;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+o:q" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			record_usage(stdout);
			return SECMAP_EXIT_OK;
		case 'o':
			r->path = optarg;
			break;
		case 'q':
			r->quiet = true;
			break;
		case OPT_INJECT:
			r->inject = optarg ? optarg : "";
			break;
		case OPT_NO_KALLSYMS:
			r->no_kallsyms = true;
			break;
		case OPT_KO_PATH:
			if (path_list_add(&r->paths, &r->nr_paths, optarg)) {
				p_err("out of memory");
				return SECMAP_EXIT_FAILURE;
			}
			break;
		case OPT_NO_KO:
			r->no_ko = true;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "auto")) {
				r->backend = RECORD_BACKEND_AUTO;
			} else if (!strcmp(optarg, "netlink")) {
				r->backend = RECORD_BACKEND_NETLINK;
			} else if (!strcmp(optarg, "uevent")) {
				r->backend = RECORD_BACKEND_UEVENT;
			} else {
				p_err("record: --source: unknown source '%s' (netlink, uevent or auto)",
				      optarg);
				return SECMAP_EXIT_USAGE;
			}
			break;
		default:
			if (optopt != 'o' && optopt != OPT_KO_PATH && optopt != OPT_SOURCE)
				return usage_error("record", argv, record_usage);
			p_err("record: option '%s' needs a value", argv[optind - 1]);
			if (!json_output)
				record_usage(stderr);
			return SECMAP_EXIT_USAGE;
		}
	}
	if (!*r->path) {
		p_err("record: empty output file name");
		return SECMAP_EXIT_USAGE;
	}
	if (r->inject && optind == argc) {
		p_err("record: --inject needs a COMMAND that writes the perf.data");
		return SECMAP_EXIT_USAGE;
	}
	/* Without a name, the file the command's perf record writes. */
	if (r->inject && !*r->inject) {
		err = perf_record_output(argv + optind, &r->inject);
		if (err == -EPIPE) {
			p_err("record: --inject: the command's perf record writes to a pipe, not a "
			      "file: record to a file (-o FILE), or name one with --inject=FILE");
			return SECMAP_EXIT_USAGE;
		}
		if (err)
			r->inject = "perf.data";
	}
	return -1;
}

