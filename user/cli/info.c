// SPDX-License-Identifier: GPL-2.0
/* secmap info: version, generation, kernel release and hook of the running secmap. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "secmap_cli.h"

static void info_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s info [-j|--json] [-p|--pretty]\n"
		"\n"
		"Show the running secmap kernel module's netlink version, its generation\n"
		"counter (bumped on every module load, init completion and unload), the\n"
		"kernel release and how it learns of module loads (tracepoint or notifier).\n"
		"\n"
		"Options:\n"
		"  -j, --json    JSON output\n"
		"  -p, --pretty  pretty-printed JSON output (implies --json)\n"
		"  -h, --help    show this help\n",
		bin_name);
}

static const char *hook_name(uint32_t hook)
{
	switch (hook) {
	case SECMAP_HOOK_TRACEPOINT:
		return "tracepoint";
	case SECMAP_HOOK_NOTIFIER:
		return "notifier";
	default:
		return NULL;
	}
}

static int info_print_json(FILE *f, const struct secmap_info *info)
{
	struct json_out *o = json_out_stream(f, pretty_output);

	if (o) {
		json_out_object_begin(o, NULL);
		json_out_u64(o, "version", info->version);
		json_out_u64(o, "generation", info->generation);
		json_out_str(o, "release", info->release);
		json_out_str(o, "hook", hook_name(info->hook));
		json_out_u64(o, "event_seq", info->event_seq);
		json_out_object_end(o);
	}
	return json_out_finish(o);
}

int info_print(FILE *f, const struct secmap_info *info)
{
	const char *hook;

	if (json_output)
		return info_print_json(f, info);
	hook = hook_name(info->hook);
	errno = 0;
	fprintf(f, "version     %" PRIu32 "\n", info->version);
	fprintf(f, "generation  %" PRIu64 "\n", info->generation);
	fprintf(f, "release     %s\n", info->release);
	if (hook)
		fprintf(f, "hook        %s\n", hook);
	else
		fprintf(f, "hook        unknown (%" PRIu32 ")\n", info->hook);
	fprintf(f, "event seq   %" PRIu64 "\n", info->event_seq);
	return flush_output(f);
}

int do_info(int argc, char **argv)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ 0 }
	};
	struct secmap_client *client = NULL;
	SECMAP_OPTS(secmap_info, info);
	int opt, err, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			info_usage(stdout);
			return SECMAP_EXIT_OK;
		default:
			return usage_error("info", argv, info_usage);
		}
	}
	if (optind < argc)
		return unexpected_argument("info", argv[optind], info_usage);

	ret = open_client(&client);
	if (ret)
		return ret;
	err = secmap_client_info(client, &info);
	secmap_client_close(client);
	if (err) {
		p_err("info failed: %s", client_strerror(err));
		return exit_code_from_err(err);
	}
	err = info_print(stdout, &info);
	if (err) {
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(-err));
		return SECMAP_EXIT_FAILURE;
	}
	return SECMAP_EXIT_OK;
}
