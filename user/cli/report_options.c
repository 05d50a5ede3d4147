// SPDX-License-Identifier: GPL-2.0
/*
 * secmap report's command line: perf's options and their words, the
 * sort keys and -F's columns, into struct report_opts (report.c reads
 * the samples with them).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* --sort's names, the columns' titles and the JSON members. */
const struct report_key_info key_info[NR_KEYS] = {
	[KEY_COMM] = { "comm", "Command" },
	[KEY_PID] = { "pid", "Pid:Command" },		/* perf's pid key is the thread */
	[KEY_TID] = { "tid", "Tid:Command" },
	[KEY_CPU] = { "cpu", "CPU" },
	[KEY_DSO] = { "dso", "Shared Object" },
	[KEY_MODULE] = { "module", "Module" },
	[KEY_SECTION] = { "section", "Section" },
	[KEY_SYMBOL] = { "symbol", "Symbol" },
	[KEY_SYM] = { "sym", "Symbol" },
};

static int parse_sort(const char *arg, struct sort_keys *keys)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	size_t k;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	memset(keys, 0, sizeof(*keys));
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_KEYS; k++)
			if (!strcmp(tok, key_info[k].name))
				break;
		if (k == NR_KEYS || keys->has[k]) {
			ret = -EINVAL;
			break;
		}
		keys->has[k] = true;
		keys->key[keys->nr++] = k;
	}
	free(copy);
	return ret ? ret : (keys->nr ? 0 : -EINVAL);
}

/* -F: perf's overhead, overhead_children, sample, period and the sort keys, each once. */
static int parse_fields(const char *arg, struct report_opts *o)
{
	static const char *const names[] = {
		[FIELD_OVERHEAD] = "overhead", [FIELD_CHILDREN] = "overhead_children",
		[FIELD_SAMPLE] = "sample", [FIELD_PERIOD] = "period",
	};
	char *copy = strdup(arg), *tok, *save = NULL;
	struct report_column c;
	size_t i, k;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	o->nr_fields = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		c = (struct report_column){ .field = FIELD_KEY, .key = NR_KEYS };
		for (i = FIELD_OVERHEAD; i <= FIELD_PERIOD; i++)
			if (!strcmp(tok, names[i]))
				c.field = i;
		for (k = 0; c.field == FIELD_KEY && k < NR_KEYS; k++)
			if (!strcmp(tok, key_info[k].name))
				c.key = k;
		for (i = 0; i < o->nr_fields; i++)
			if (o->fields[i].field == c.field && o->fields[i].key == c.key)
				break;
		if ((c.field == FIELD_KEY && c.key == NR_KEYS) || i < o->nr_fields ||
		    o->nr_fields == MAX_FIELDS)
			ret = -EINVAL;
		else
			o->fields[o->nr_fields++] = c;
	}
	free(copy);
	return ret ? ret : (o->nr_fields ? 0 : -EINVAL);
}

/*
 * With -F, the rows are told apart by its keys, then by --sort's others,
 * which are columns too, after -F's (as perf appends them); with neither
 * a key, by the default keys.
 */
static int fields_keys(struct report_opts *o)
{
	struct sort_keys keys = { 0 };
	size_t i;

	for (i = 0; i < o->nr_fields; i++) {
		if (o->fields[i].field == FIELD_CHILDREN && !o->children) {
			p_err("report: -F overhead_children needs --children");
			return SECMAP_EXIT_USAGE;
		}
		if (o->fields[i].field == FIELD_KEY) {
			keys.has[o->fields[i].key] = true;
			keys.key[keys.nr++] = o->fields[i].key;
		}
	}
	for (i = 0; i < o->keys.nr; i++) {
		if ((keys.nr && !o->sort_given) || keys.has[o->keys.key[i]])
			continue;
		keys.has[o->keys.key[i]] = true;
		keys.key[keys.nr++] = o->keys.key[i];
		o->fields[o->nr_fields++] = (struct report_column){ FIELD_KEY, o->keys.key[i] };
	}
	o->keys = keys;
	return -1;
}

static void report_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s report [-i PERF_DATA] [-m SECMAP_DATA] [--sort KEYS] [--stdio|-j] [OPTIONS]\n"
		"\n"
		"perf report's overhead table, per event, with module samples on the section\n"
		"and function that ran at their time, from the recording in PERF_DATA (put\n"
		"there by secmap record or inject) or SECMAP_DATA. Kernel core samples from the\n"
		"recorded kallsyms, user samples to the function in their mapped file.\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA  the samples (default perf.data)\n"
		"  -m, --map SECMAP_DATA  the recording, if not inside PERF_DATA\n"
		"  -s, --sort KEYS        comma-separated, in this order: perf's comm, pid (the\n"
		"                         thread), tid, cpu, dso, sym; secmap's module, section,\n"
		"                         symbol (default module,section,symbol)\n"
		"      --stdio            a text table (the default)\n"
		SAMPLE_FILTER_HELP
		"      --percentage HOW   of a filtered table: absolute (of all samples, the\n"
		"                         default) or relative (of those shown)\n"
		"      --percent-limit P  leave out rows under P percent\n"
		"  -v, --verbose          dso: the file's whole path\n"
		"      --children         a row for every function in the samples' callchains too,\n"
		"                         with the period of the samples it is in (Children)\n"
		"      --no-children      the samples' own functions only (the default)\n"
		"  -F, --fields FIELDS    the columns, in this order: overhead,\n"
		"                         overhead_children, sample, period and --sort's keys\n"
		"                         (perf's -F; --sort's other keys follow)\n"
		"  -g, --call-graph [ARGS] under each row its call chains, as perf's tree;\n"
		"                         ARGS, comma-separated: graph (the default), fractal,\n"
		"                         flat or folded,\n"
		"                         caller or callee (the default; caller with\n"
		"                         --children, from each row's function on), a threshold\n"
		"                         in percent (0.5), a limit of branches a level; none:\n"
		"                         no chains\n"
		"      --header           the perf.data's header and the recording's, then the table\n"
		"      --header-only      the headers alone\n"
		"      --pprof FILE       write the samples kept as a pprof profile (gzipped\n"
		"                         profile.proto, with callchains), not a table\n"
		"      --clock CLOCK      override the samples' clock: local or monotonic\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            use a .ko whose build-id differs from the recorded one\n"
		"      --no-ko            sections only: read no .ko\n"
		"  -q, --quiet            no warnings about missing .ko files\n"
		"  -j, --json             {\"events\": [{\"event\", \"samples\", \"rows\": [...]}]}\n"
		"  -h, --help             show this help\n",
		bin_name);
}

enum {
	OPT_STDIO = 0x300, OPT_PERCENTAGE, OPT_PERCENT_LIMIT, OPT_PPROF, OPT_HEADER,
	OPT_HEADER_ONLY, OPT_CHILDREN, OPT_NO_CHILDREN,
};

/* One report option: 0 taken, -1 not ours, else an exit code. */
static int report_option(struct report_opts *o, struct resolver_args *args, int opt,
			 const char *arg)
{
	char *end;

	switch (opt) {
	case 's':
		o->sort_given = true;
		if (!parse_sort(arg, &o->keys))
			return 0;
		p_err("report: --sort takes comm, pid, tid, cpu, dso, sym, module, section and "
		      "symbol, comma-separated, each once, not '%s'", text_safe(arg));
		return SECMAP_EXIT_USAGE;
	case 'F':
		if (!parse_fields(arg, o))
			return 0;
		p_err("report: -F takes overhead, overhead_children, sample, period and the "
		      "--sort keys, comma-separated, each once, not '%s'", text_safe(arg));
		return SECMAP_EXIT_USAGE;
	case OPT_STDIO:
		return 0;
	case 'q':
		args->quiet = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_PPROF:
		o->pprof_path = arg;
		return 0;
	case OPT_HEADER:
		o->header = true;
		return 0;
	case OPT_HEADER_ONLY:
		o->header = o->header_only = true;
		return 0;
	case OPT_CHILDREN:
	case OPT_NO_CHILDREN:
		o->children = opt == OPT_CHILDREN;
		return 0;
	case OPT_PERCENTAGE:
		if (!strcmp(arg, "relative") || !strcmp(arg, "absolute")) {
			o->relative = arg[0] == 'r';
			return 0;
		}
		p_err("report: --percentage takes absolute or relative, not '%s'", text_safe(arg));
		return SECMAP_EXIT_USAGE;
	case OPT_PERCENT_LIMIT:
		errno = 0;
		o->percent_limit = strtod(arg, &end);
		if (!errno && end != arg && !*end && o->percent_limit >= 0 &&
		    o->percent_limit <= 100)
			return 0;
		p_err("report: --percent-limit takes a percentage from 0 to 100, not '%s'",
		      text_safe(arg));
		return SECMAP_EXIT_USAGE;
	}
	return sample_filter_option(&o->filter, opt, arg);
}

/* The command line into @o and @args: an exit code, or -1 to go on. */
int report_args(int argc, char **argv, struct report_opts *o, struct resolver_args *args)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		RESOLVER_LONG_OPTIONS,
		SAMPLE_FILTER_LONG_OPTIONS,
		{ "sort",	   required_argument, NULL, 's' },
		{ "stdio",	   no_argument,	      NULL, OPT_STDIO },
		{ "quiet",	   no_argument,	      NULL, 'q' },
		{ "verbose",	   no_argument,	      NULL, 'v' },
		{ "percentage",	   required_argument, NULL, OPT_PERCENTAGE },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "pprof",	   required_argument, NULL, OPT_PPROF },
		{ "header",	   no_argument,	      NULL, OPT_HEADER },
		{ "header-only",   no_argument,	      NULL, OPT_HEADER_ONLY },
		{ "children",	   no_argument,	      NULL, OPT_CHILDREN },
		{ "no-children",   no_argument,	      NULL, OPT_NO_CHILDREN },
		{ "call-graph",	   optional_argument, NULL, 'g' },
		{ "fields",	   required_argument, NULL, 'F' },
		{ 0 }
	};
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS "s:qvg::F:" OUTPUT_SHORT_OPTIONS,
				  opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		if (opt == 'h') {
			report_usage(stdout);
			return SECMAP_EXIT_OK;
		}
		if (opt == 'g') {
			/* perf's -g takes its words as the next argument too. */
			if (!optarg && optind < argc && report_graph_word(argv[optind]))
				optarg = argv[optind++];
			ret = report_graph_option(o, optarg);
			if (ret)
				return ret;
			continue;
		}
		ret = report_option(o, args, opt, optarg);
		if (ret > 0)
			return ret;
		if (!ret)
			continue;
		ret = resolver_option(args, opt, optarg);
		if (ret > 0)
			return ret;
		if (ret < 0) {
			ret = optopt == 's' || optopt == 'F' ?
			      (p_err("report: option '%s' needs a value", argv[optind - 1]),
			       SECMAP_EXIT_USAGE) :
			      resolver_option_error("report", argv, report_usage);
			return ret;
		}
	}
	if (optind < argc)
		return unexpected_argument("report", argv[optind], report_usage);
	if (o->graph && (json_output || o->pprof_path)) {
		p_err("report: -g prints chains in the text table (not yet in -j or --pprof)");
		return SECMAP_EXIT_USAGE;
	}
	/* perf's: with children, chains go from a row's function to what it called. */
	if (o->children && !o->graph_order_given)
		o->graph_caller = true;
	return o->nr_fields ? fields_keys(o) : -1;
}
