// SPDX-License-Identifier: GPL-2.0
/*
 * secmap show: print the records of a recording, one per line, as they are
 * in the file (a secmap.data, or a perf.data `secmap inject` wrote to).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "secmap_cli.h"

static void show_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s show [-i FILE] [-j]\n"
		"\n"
		"Print every record of a recording, one per line, in file order: kernel,\n"
		"kallsyms (size only), resync (a snapshot follows), map, unmap, finished.\n"
		"FILE is a secmap.data (default) or a perf.data with a recording embedded\n"
		"by `secmap inject`.\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE  the recording (default secmap.data)\n"
		"  -j, --json        one JSON object per line\n"
		"  -p, --pretty      same as --json\n"
		"  -h, --help        show this help\n",
		bin_name);
}

static const char *type_name(uint32_t type)
{
	switch (type) {
	case SECMAP_REC_KERNEL:
		return "kernel";
	case SECMAP_REC_KALLSYMS:
		return "kallsyms";
	case SECMAP_REC_RESYNC:
		return "resync";
	case SECMAP_REC_SEC_MAP:
		return "map";
	case SECMAP_REC_UNMAP:
		return "unmap";
	case SECMAP_REC_FINISHED:
		return "finished";
	default:
		return "unknown";
	}
}

static const char *reason_name(uint32_t reason)
{
	switch (reason) {
	case SECMAP_RESYNC_START:
		return "start";
	case SECMAP_RESYNC_LOST:
		return "lost";
	case SECMAP_RESYNC_RELOAD:
		return "reload";
	default:
		return "unknown";
	}
}

/*
 * Where a snapshot came from, as record's --source names it: a sysfs one
 * of a file recorded from uevents is "uevent", "sysfs" is sysfs alone.
 */
static const char *source_name(uint32_t source, uint64_t file_flags)
{
	if (source != SECMAP_SOURCE_SYSFS)
		return "netlink";
	return file_flags & SECMAP_FILE_F_UEVENT ? "uevent" : "sysfs";
}

static void map_flags_str(uint32_t flags, char *buf, size_t size)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ SECMAP_MAP_F_EXEC, "exec" }, { SECMAP_MAP_F_WRITE, "write" },
		{ SECMAP_MAP_F_INIT, "init" }, { SECMAP_MAP_F_PERCPU, "percpu" },
		{ SECMAP_MAP_F_SNAPSHOT, "snapshot" }, { SECMAP_MAP_F_FREED, "freed" },
		{ SECMAP_MAP_F_NO_KO, "no-ko" },
	};
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "," : "",
				      names[i].name);
	}
	if (!n)
		snprintf(buf, size, "-");
}

static void show_json(struct json_out *o, const struct secmap_record *rec, const char *bid,
		      uint64_t file_flags)
{
	char flags[96];

	json_out_object_begin(o, NULL);
	json_out_str(o, "type", type_name(rec->type));
	json_out_u64(o, "time_local_ns", rec->time_local_ns);
	json_out_u64(o, "time_mono_ns", rec->time_mono_ns);
	switch (rec->type) {
	case SECMAP_REC_KERNEL:
		json_out_str(o, "release", rec->release);
		json_out_str(o, "build_id", bid);
		json_out_str(o, "ref_name", rec->ref_name);
		if (rec->flags & SECMAP_KERNEL_F_REF_ADDR)
			json_out_hex(o, "ref_addr", rec->ref_addr);
		else
			json_out_null(o, "ref_addr");
		break;
	case SECMAP_REC_KALLSYMS:
		json_out_u64(o, "offset", rec->text_offset);
		json_out_u64(o, "len", rec->text_len);
		break;
	case SECMAP_REC_RESYNC:
		json_out_str(o, "reason", reason_name(rec->reason));
		json_out_str(o, "source", source_name(rec->source, file_flags));
		json_out_u64(o, "lost", rec->lost);
		json_out_u64(o, "gap_local_ns", rec->gap_local_ns);
		json_out_u64(o, "gap_mono_ns", rec->gap_mono_ns);
		json_out_u64(o, "maps", rec->nr_maps);
		json_out_u64(o, "modules", rec->nr_modules);
		break;
	case SECMAP_REC_SEC_MAP:
		map_flags_str(rec->flags, flags, sizeof(flags));
		json_out_str(o, "module", rec->module);
		json_out_str(o, "section", rec->section);
		json_out_hex(o, "start", rec->start);
		json_out_u64(o, "len", rec->len);
		json_out_u64(o, "pgoff", rec->pgoff);
		json_out_str(o, "flags", flags);
		json_out_u64(o, "seq", rec->seq);
		json_out_str(o, "build_id", bid);
		break;
	case SECMAP_REC_UNMAP:
		json_out_str(o, "module", rec->module);
		json_out_bool(o, "init_only", rec->flags & SECMAP_UNMAP_F_INIT);
		json_out_u64(o, "seq", rec->seq);
		json_out_str(o, "build_id", bid);
		break;
	case SECMAP_REC_FINISHED:
		json_out_u64(o, "lost", rec->lost);
		json_out_u64(o, "resyncs", rec->nr_resyncs);
		break;
	}
	json_out_object_end(o);
}

static void show_text(FILE *f, const struct secmap_record *rec, const char *bid,
		      uint64_t file_flags)
{
	char flags[96];

	fprintf(f, "%" PRIu64 " %" PRIu64 " %-8s", rec->time_local_ns, rec->time_mono_ns,
		type_name(rec->type));
	switch (rec->type) {
	case SECMAP_REC_KERNEL:
		fprintf(f, " %s build-id %s %s=", text_safe(rec->release), bid ? bid : "-",
			text_safe(rec->ref_name));
		if (rec->flags & SECMAP_KERNEL_F_REF_ADDR)
			fprintf(f, "0x%" PRIx64 "\n", rec->ref_addr);
		else
			fprintf(f, "hidden\n");
		break;
	case SECMAP_REC_KALLSYMS:
		fprintf(f, " offset %" PRIu64 " len %zu\n", rec->text_offset, rec->text_len);
		break;
	case SECMAP_REC_RESYNC:
		fprintf(f, " %s from %s: %u modules, %u maps follow; lost %" PRIu64
			"; gap from %" PRIu64 " %" PRIu64 "\n", reason_name(rec->reason),
			source_name(rec->source, file_flags), rec->nr_modules,
			rec->nr_maps, rec->lost, rec->gap_local_ns, rec->gap_mono_ns);
		break;
	case SECMAP_REC_SEC_MAP:
		map_flags_str(rec->flags, flags, sizeof(flags));
		fprintf(f, " %s %s 0x%" PRIx64 " len 0x%" PRIx64 " pgoff 0x%" PRIx64
			" %s seq %" PRIu64 " build-id %s\n", text_safe(rec->module),
			text_safe(rec->section), rec->start,
			rec->len, rec->pgoff, flags, rec->seq, bid ? bid : "-");
		break;
	case SECMAP_REC_UNMAP:
		fprintf(f, " %s%s seq %" PRIu64 "\n", text_safe(rec->module),
			rec->flags & SECMAP_UNMAP_F_INIT ? " init" : "", rec->seq);
		break;
	case SECMAP_REC_FINISHED:
		fprintf(f, " lost %" PRIu64 " resyncs %u\n", rec->lost, rec->nr_resyncs);
		break;
	default:
		fputc('\n', f);
	}
}

/*
 * One line's worth of error for each way a recording can be unreadable:
 * the library's reason when the call that failed gave one.
 */
const char *recording_strerror(int err)
{
	const char *why = secmap_error_reason(err);

	if (why)
		return why;
	switch (-err) {
	case EINVAL:
		return "not a secmap recording or perf.data file";
	case ENOTSUP:
		return "unsupported: another major version of the recording format, "
		       "or a pipe-mode or foreign-endian perf.data";
	case ENODATA:
		return "perf.data holds no secmap recording (see secmap inject)";
	case ESTALE:
		return "the secmap recording at its end no longer matches the file: a tool "
		       "changed the perf.data after secmap inject; inject the recording again "
		       "(secmap inject -i PERF_DATA -m secmap.data)";
	case ENOLINK:
		return "holds secmap's module maps but not its recording: a tool rewrote the "
		       "file after secmap inject and dropped it (perf inject does); perf still "
		       "reads the maps; for secmap, inject the recording again "
		       "(secmap inject -i PERF_DATA -m secmap.data)";
	case EEXIST:
		return "feature section 255 holds data that is not a secmap recording";
	case EBADMSG:
		return "truncated or corrupt";
	case EFBIG:
		return "larger than secmap reads (a recording is 1 GiB at most)";
	default:
		return strerror(-err);
	}
}

int recording_exit_code(int err)
{
	switch (-err) {
	case EINVAL:
	case EISDIR:
	case ENOTSUP:
	case ENODATA:
	case ESTALE:
	case ENOLINK:
	case EEXIST:
	case EBADMSG:
	case EFBIG:
		return SECMAP_EXIT_BAD_INPUT;
	case EPERM:
	case EACCES:
		return SECMAP_EXIT_PERM;
	default:
		return SECMAP_EXIT_FAILURE;
	}
}

int do_show(int argc, char **argv)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "input", required_argument, NULL, 'i' },
		{ 0 }
	};
	const char *path = "secmap.data";
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	struct json_out *o;
	char *bid;
	int opt, ret, werr = 0;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+i:" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			show_usage(stdout);
			return SECMAP_EXIT_OK;
		case 'i':
			path = optarg;
			break;
		default:
			if (optopt == 'i') {
				p_err("show: option '-i' needs a value");
				return SECMAP_EXIT_USAGE;
			}
			return usage_error("show", argv, show_usage);
		}
	}
	if (optind < argc)
		return unexpected_argument("show", argv[optind], show_usage);
	ret = secmap_reader_open(path, &r);
	if (ret) {
		p_err("show: %s: %s", path, recording_strerror(ret));
		return recording_exit_code(ret);
	}
	errno = 0;
	while ((ret = secmap_reader_next(r, &rec)) == 1) {
		bid = rec.build_id_len ? build_id_text(rec.build_id, rec.build_id_len) : NULL;
		if (json_output) {
			o = json_out_stream(stdout, false);
			if (o)
				show_json(o, &rec, bid, secmap_reader_file_flags(r));
			werr = json_out_finish(o);
		} else {
			show_text(stdout, &rec, bid, secmap_reader_file_flags(r));
		}
		free(bid);
		if (werr)
			break;
	}
	if (ret < 0) {
		fflush(stdout);
		p_err("show: %s: record at offset %" PRIu64 ": %s", path,
		      secmap_reader_offset(r), recording_strerror(ret));
		secmap_reader_free(r);
		return SECMAP_EXIT_BAD_INPUT;
	}
	secmap_reader_free(r);
	if (werr || flush_output(stdout)) {
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(errno ? errno : EIO));
		return SECMAP_EXIT_FAILURE;
	}
	return SECMAP_EXIT_OK;
}
