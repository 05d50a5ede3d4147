// SPDX-License-Identifier: GPL-2.0
/*
 * secmap resolve: addresses (and times) to module, section and symbol, from
 * a recording, for scripts. Also the resolver set-up that report and script
 * share: where the recording is, where the .ko files are, which clock.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "json_out.h"
#include "secmap_cli.h"

static void resolve_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s resolve [-i PERF_DATA | -m SECMAP_DATA] [OPTIONS] [ADDR[@TIME]...]\n"
		"\n"
		"Print the module, section and symbol each ADDR was in at TIME (nanoseconds,\n"
		"in the samples' clock; without @TIME, the latest mapping of ADDR). Without\n"
		"ADDR arguments, one ADDR[@TIME] per line is read from standard input.\n"
		"ADDR is hexadecimal (0x optional), TIME decimal nanoseconds or perf script's\n"
		"seconds (397.751055123).\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA  perf.data holding the recording (default perf.data,\n"
		"                         else secmap.data)\n"
		"  -m, --map SECMAP_DATA  read the recording from this file instead\n"
		"      --clock CLOCK      local (perf's default) or monotonic (perf record -k\n"
		"                         monotonic)\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            use a .ko whose build-id differs from the recorded one\n"
		"      --no-ko            sections only: read no .ko\n"
		"  -j, --json             one JSON object per address\n"
		"  -h, --help             show this help\n",
		bin_name);
}

int resolver_option(struct resolver_args *args, int opt, const char *arg)
{
	switch (opt) {
	case 'i':
		args->input = arg;
		return 0;
	case 'm':
		args->map = arg;
		return 0;
	case RESOLVER_OPT_CLOCK:
		if (!strcmp(arg, "local") || !strcmp(arg, "perf")) {
			args->clock = SECMAP_CLOCK_LOCAL;
		} else if (!strcmp(arg, "monotonic") || !strcmp(arg, "mono") ||
			   !strcmp(arg, "CLOCK_MONOTONIC")) {
			args->clock = SECMAP_CLOCK_MONO;
		} else {
			p_err("unknown clock '%s' (local or monotonic)", arg);
			return SECMAP_EXIT_USAGE;
		}
		args->clock_set = true;
		return 0;
	case RESOLVER_OPT_KO_PATH:
		if (path_list_add(&args->paths, &args->nr_paths, arg)) {
			p_err("out of memory");
			return SECMAP_EXIT_FAILURE;
		}
		return 0;
	case RESOLVER_OPT_FORCE:
		args->force = true;
		return 0;
	case RESOLVER_OPT_NO_KO:
		args->no_ko = true;
		return 0;
	}
	return -1;
}

int resolver_option_error(const char *cmd, char **argv, void (*usage)(FILE *f))
{
	switch (optopt) {
	case 'i':
	case 'm':
	case RESOLVER_OPT_CLOCK:
	case RESOLVER_OPT_KO_PATH:
		p_err("%s: option '%s' needs a value", cmd, argv[optind - 1]);
		return SECMAP_EXIT_USAGE;
	}
	return usage_error(cmd, argv, usage);
}

/* Where the recording is: -m, else -i, else perf.data if it holds one, else secmap.data. */
static const char *recording_path(const struct resolver_args *args)
{
	struct secmap_reader *r;

	if (args->map)
		return args->map;
	if (args->input)
		return args->input;
	if (!secmap_reader_open("perf.data", &r)) {
		secmap_reader_free(r);
		return "perf.data";
	}
	return "secmap.data";
}

/*
 * A recording without kernel symbols (--no-kallsyms, or recorded without
 * CAP_SYSLOG): those of its kernel's build-id from the build-id cache, or
 * from the running kernel when it is that build; else why kernel samples
 * will be [unknown], once.
 */
static int add_kernel_symbols(struct secmap_resolver *res, const uint8_t *id, size_t id_len,
			      bool quiet)
{
	SECMAP_OPTS(secmap_kernel_info, ki);
	SECMAP_OPTS(secmap_record, rec, .type = SECMAP_REC_KALLSYMS, .pid = SECMAP_PID_HOST_KERNEL);
	size_t cached_len = 0;
	char *bid = id_len ? build_id_text(id, id_len) : NULL;
	char *cached = cached_kallsyms_map(id, id_len, &cached_len);
	const char *from = NULL;
	int err = 0;

	if (cached) {
		rec.text = cached;
		rec.text_len = cached_len;
		from = "the build-id cache";
	} else if (id_len && !secmap_kernel_info_read(NULL, 0, &ki) && ki.build_id_len == id_len &&
		   !memcmp(ki.build_id, id, id_len) && ki.kallsyms_len) {
		rec.text = ki.kallsyms;
		rec.text_len = ki.kallsyms_len;
		from = "this machine's kernel (the same build)";
	}
	if (rec.text) {
		err = secmap_resolver_add(res, &rec);
		if (!quiet)
			fprintf(stderr, "Warning: the recording has no kernel symbols; using those "
				"of %s\n", from);
	} else if (!quiet) {
		fprintf(stderr, "Warning: the recording has no kernel symbols (recorded with "
			"--no-kallsyms or without CAP_SYSLOG), and neither ~/.debug nor this "
			"machine's kernel has those of its build-id %s: kernel samples are "
			"[unknown]\n", bid ? bid : "(unknown)");
	}
	if (cached)
		munmap(cached, cached_len);
	secmap_kernel_info_release(&ki);
	free(bid);
	return err;
}

/* secmap_resolver_load(), and kernel symbols from elsewhere when the recording has none. */
/*
 * What a recording made without secmap.ko cannot know, said before its
 * answers; not for one of a kernel without modules, which misses nothing.
 */
static void recording_fidelity_note(const struct secmap_resolver *res, const char *path,
				    uint64_t flags)
{
	if (!secmap_resolver_nr_modules(res))
		return;
	if ((flags & SECMAP_FILE_F_UEVENT) && (flags & SECMAP_FILE_F_LOAD_TRACE))
		fprintf(stderr, "Note: %s was recorded without the secmap module, from uevents and "
			"the module_load tracepoint: a module loaded while recording is known from "
			"its init_module() call where syscall tracepoints told it, else from just "
			"before its init ran ([unknown] before that); its init code is [unknown]\n",
			text_safe(path));
	else if (flags & SECMAP_FILE_F_UEVENT)
		fprintf(stderr, "Note: %s was recorded without the secmap module, from uevents: a "
			"module loaded while recording is known from the end of its init on (its "
			"init code and what ran before are [unknown])\n", text_safe(path));
	else if (flags & SECMAP_FILE_F_SYSFS_ONLY)
		fprintf(stderr, "Note: %s was recorded without the secmap module, from sysfs when "
			"recording began: modules loaded later are [unknown]\n", text_safe(path));
}

static int load_recording(struct secmap_resolver *res, const char *path, bool quiet)
{
	uint8_t kernel_id[SECMAP_BUILD_ID_MAX];
	size_t kernel_id_len = 0;
	struct secmap_reader *reader;
	SECMAP_OPTS(secmap_record, rec);
	bool have_kernel = false, have_kallsyms = false;
	uint64_t flags;
	int err;

	err = secmap_reader_open(path, &reader);
	if (err)
		return err;
	flags = secmap_reader_file_flags(reader);
	while ((err = secmap_reader_next(reader, &rec)) == 1) {
		if (rec.type == SECMAP_REC_KERNEL && rec.build_id_len <= sizeof(kernel_id)) {
			have_kernel = true;
			kernel_id_len = rec.build_id_len;
			if (kernel_id_len)
				memcpy(kernel_id, rec.build_id, kernel_id_len);
		}
		have_kallsyms |= rec.type == SECMAP_REC_KALLSYMS;
		err = secmap_resolver_add(res, &rec);
		if (err)
			break;
	}
	secmap_reader_free(reader);
	if (!err && have_kernel && !have_kallsyms)
		err = add_kernel_symbols(res, kernel_id, kernel_id_len, quiet);
	if (!err)
		err = secmap_resolver_finish(res);
	if (!err && !quiet)
		recording_fidelity_note(res, path, flags);
	return err;
}

int resolver_open(const struct resolver_args *args, struct secmap_resolver **res)
{
	SECMAP_OPTS(secmap_ko_search, search, .paths = args->paths);
	struct secmap_resolver_opts opts = {
		.sz = sizeof(struct secmap_resolver_opts),
		.search = &search,
		.clock = args->clock,
		.force = args->force,
		.no_ko = args->no_ko,
	};
	const char *path = recording_path(args);
	int err;

	err = secmap_resolver_new(&opts, res);
	if (!err)
		err = load_recording(*res, path, args->quiet);
	if (err) {
		p_err("%s: %s", path, recording_strerror(err));
		secmap_resolver_free(*res);
		*res = NULL;
		return recording_exit_code(err);
	}
	return resolver_warn_modules(args, *res, "its samples resolve to section+offset only");
}

/*
 * Modules warned about one by one; past that, a count: a recording of 40k
 * module builds without their .ko printed 40k lines before any output.
 */
#define WARN_MODULES_MAX	20

int resolver_warn_modules(const struct resolver_args *args, const struct secmap_resolver *res,
			  const char *consequence)
{
	SECMAP_OPTS(secmap_resolver_module, mod);
	int ret = SECMAP_EXIT_OK;
	size_t i, warned = 0, more = 0;

	for (i = 0; i < secmap_resolver_nr_modules(res); i++) {
		char *bid;

		secmap_resolver_module(res, i, &mod);
		if (!mod.err || args->no_ko)
			continue;
		bid = mod.build_id_len ? build_id_text(mod.build_id, mod.build_id_len) : NULL;
		if (mod.err == -ESTALE) {
			/*
			 * The command goes on and prints its output: in JSON mode
			 * an error object beside it would make two documents.
			 */
			fprintf(stderr, "%s: the .ko found for %s has another build-id than the "
				"recorded %s; --force uses it anyway\n", json_output ? "Warning" :
				"Error", text_safe(mod.name), bid ? bid : "(none)");
			ret = SECMAP_EXIT_KO_MISMATCH;
		} else if (!args->quiet && warned++ >= WARN_MODULES_MAX) {
			more++;
		} else if (!args->quiet) {
			fprintf(stderr, "Warning: %s (build-id %s): %s; %s\n", text_safe(mod.name),
				bid ? bid : "none", mod.err == -ENOENT ? "no .ko found (--ko-path, "
				"or unpack its secmap archive into ~/.debug)" : mod.err == -EDQUOT ?
				".ko not read: the .ko files before it used up the 1 GiB one "
				"run may decompress" : strerror(-mod.err), consequence);
		}
		free(bid);
	}
	if (more)
		fprintf(stderr, "Warning: %zu more modules without symbols, likewise (-q: no "
			"warnings)\n", more);
	return ret;
}

void resolver_args_free(struct resolver_args *args)
{
	free(args->paths);
	args->paths = NULL;
}

/* "sym+0x1f" or NULL into @buf. */
static const char *sym_str(const struct secmap_resolution *r, char *buf, size_t size)
{
	if (!r->symbol)
		return NULL;
	snprintf(buf, size, "%s+0x%" PRIx64, text_safe(r->symbol), r->symbol_offset);
	return buf;
}

/*
 * The digits of @base at @s into *@val, *@end after them: no sign, no
 * space, no overflow, which strtoull() would let through or wrap.
 */
static bool parse_digits(const char *s, int base, const char **end, uint64_t *val)
{
	const char *p = s;
	uint64_t v = 0;

	for (;; p++) {
		unsigned int d = (unsigned char)*p;

		if (d - '0' < 10)
			d -= '0';
		else if (base == 16 && (d | 0x20) - 'a' < 6)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + d;
	}
	*end = p;
	*val = v;
	return p > s;
}

/* "ADDR[@TIME]": TIME in nanoseconds, or seconds with a fraction as perf script prints them. */
static bool parse_query(const char *arg, uint64_t *addr, uint64_t *time)
{
	const char *p = arg, *end;
	uint64_t sec, frac = 0;
	size_t digits;

	if (p[0] == '0' && (p[1] | 0x20) == 'x')
		p += 2;
	if (!parse_digits(p, 16, &end, addr))
		return false;
	*time = SECMAP_TIME_ANY;
	if (!*end)
		return true;
	if (*end != '@' || !parse_digits(end + 1, 10, &end, &sec))
		return false;
	if (*end == '.') {
		p = end + 1;
		if (!parse_digits(p, 10, &end, &frac) || (digits = (size_t)(end - p)) > 9)
			return false;
		for (; digits < 9; digits++)
			frac *= 10;
		if (sec > (UINT64_MAX - frac) / 1000000000ULL)
			return false;
		sec = sec * 1000000000ULL + frac;
	}
	/* UINT64_MAX means "any time" to the library: not a time one can ask for. */
	if (*end || sec == SECMAP_TIME_ANY)
		return false;
	*time = sec;
	return true;
}

/* SECMAP_EXIT_OK and the query, or SECMAP_EXIT_USAGE after saying why. */
static int query_of(const char *arg, uint64_t *addr, uint64_t *time)
{
	if (parse_query(arg, addr, time))
		return SECMAP_EXIT_OK;
	/* Enough of it to find it, not a terminal's worth of a bad input. */
	p_err("resolve: '%.80s%s' is not ADDR[@TIME]", text_safe(arg),
	      strlen(arg) > 80 ? "..." : "");
	return SECMAP_EXIT_USAGE;
}

static int print_one(const struct secmap_resolver *res, const char *arg)
{
	char sym[512];
	SECMAP_OPTS(secmap_resolution, r);
	uint64_t addr, time;
	bool found;

	if (query_of(arg, &addr, &time))
		return SECMAP_EXIT_USAGE;
	found = !secmap_resolve(res, addr, time, &r);
	if (json_output) {
		struct json_out *o = json_out_stream(stdout, false);

		if (!o)
			return SECMAP_EXIT_FAILURE;
		json_out_object_begin(o, NULL);
		json_out_hex(o, "addr", addr);
		if (time == SECMAP_TIME_ANY)
			json_out_null(o, "time");
		else
			json_out_u64(o, "time", time);
		json_out_str(o, "module", found ? r.module : NULL);
		json_out_str(o, "section", found ? r.section : NULL);
		if (found && r.kind == SECMAP_RESOLVED_MODULE)
			json_out_hex(o, "section_offset", r.section_offset);
		else
			json_out_null(o, "section_offset");
		json_out_str(o, "symbol", found ? r.symbol : NULL);
		if (found && r.symbol)
			json_out_hex(o, "symbol_offset", r.symbol_offset);
		else
			json_out_null(o, "symbol_offset");
		json_out_str(o, "reason", found ? r.reason : "in no recorded mapping");
		json_out_bool(o, "in_gap", found && (r.map_flags & SECMAP_RESOLVED_F_IN_GAP));
		json_out_object_end(o);
		return json_out_finish(o) ? SECMAP_EXIT_FAILURE : SECMAP_EXIT_OK;
	}
	if (!found)
		printf("%s [unknown]\n", text_safe(arg));
	else if (r.kind == SECMAP_RESOLVED_KERNEL)
		printf("%s [kernel.kallsyms] %s\n", text_safe(arg), sym_str(&r, sym, sizeof(sym)));
	else if (r.section)
		printf("%s %s %s+0x%" PRIx64 " %s%s%s\n", text_safe(arg), text_safe(r.module),
		       text_safe(r.section),
		       r.section_offset, r.symbol ? sym_str(&r, sym, sizeof(sym)) : "[unknown]",
		       r.reason ? " # " : "", r.reason ? r.reason : "");
	else
		printf("%s %s +0x%" PRIx64 " [unknown] # %s\n", text_safe(arg), text_safe(r.module),
		       r.section_offset, r.reason);
	return SECMAP_EXIT_OK;
}

int do_resolve(int argc, char **argv)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		RESOLVER_LONG_OPTIONS,
		{ 0 }
	};
	struct resolver_args args = { 0 };
	struct secmap_resolver *res = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int opt, ret, r;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS OUTPUT_SHORT_OPTIONS,
				  opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		if (opt == 'h') {
			resolve_usage(stdout);
			resolver_args_free(&args);
			return SECMAP_EXIT_OK;
		}
		ret = resolver_option(&args, opt, optarg);
		if (ret > 0)
			goto out;
		if (ret < 0) {
			ret = resolver_option_error("resolve", argv, resolve_usage);
			goto out;
		}
	}
	/* Queries given as arguments are checked before any work, as options are. */
	for (r = optind, ret = SECMAP_EXIT_OK; r < argc; r++) {
		uint64_t addr, time;

		if (query_of(argv[r], &addr, &time))
			ret = SECMAP_EXIT_USAGE;
	}
	if (ret)
		goto out;
	ret = resolver_open(&args, &res);
	if (!res)
		goto out;
	if (optind < argc) {
		for (; optind < argc; optind++) {
			r = print_one(res, argv[optind]);
			if (r && (!ret || r == SECMAP_EXIT_USAGE))
				ret = r;
		}
	} else {
		while ((n = getline(&line, &cap, stdin)) > 0) {
			size_t len = strcspn(line, "\r\n");
			const char *rest = line + len;

			/* A NUL or CR inside would hide the rest of the line from the parser. */
			if (memchr(line, '\0', (size_t)n) || (*rest && strcmp(rest, "\n") &&
							     strcmp(rest, "\r\n") && strcmp(rest, "\r"))) {
				p_err("resolve: a line of standard input holds a NUL byte or a lone CR");
				ret = SECMAP_EXIT_USAGE;
				continue;
			}
			line[len] = '\0';
			if (!line[0])
				continue;
			r = print_one(res, line);
			if (r && (!ret || r == SECMAP_EXIT_USAGE))
				ret = r;
		}
		free(line);
	}
	if (flush_output(stdout)) {
		p_err("cannot write output: %s", strerror(errno ? errno : EIO));
		ret = SECMAP_EXIT_FAILURE;
	}
out:
	secmap_resolver_free(res);
	resolver_args_free(&args);
	return ret;
}
