// SPDX-License-Identifier: GPL-2.0
/*
 * secmap inject: make a perf.data right for stock perf and whole for
 * secmap. perf's own module maps give way to a map per module region per
 * load, with objects in perf's build-id cache that hold each region's
 * functions (libsecmap's perf maps), so that perf report, perf script and
 * everything fed from them put module samples on the right function; the
 * recording goes at the end of the file, after everything perf reads, for
 * secmap report, script and resolve. --strip gives back the file perf wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_out.h"
#include "secmap_cli.h"

static void inject_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s inject -i PERF_DATA [-m RECORDING] [-o OUTPUT] [OPTIONS]\n"
		"       %s inject --strip -i PERF_DATA [-o OUTPUT]\n"
		"\n"
		"Rewrite PERF_DATA so that stock perf (report, script, annotate, archive...)\n"
		"puts every module sample on the right function: perf's own module maps give\n"
		"way to one map per module region per load, loads and unloads during the\n"
		"recording included, and objects holding each region's functions go into\n"
		"perf's build-id cache. The recording itself goes at the end of the file, for\n"
		"secmap report, script and resolve. Injecting again replaces both. The file is\n"
		"written beside its target under a temporary name and renamed into place:\n"
		"PERF_DATA itself is never modified.\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA   the perf.data to read (not in pipe mode)\n"
		"  -m, --map RECORDING     the recording: a secmap.data, or a perf.data holding\n"
		"                          one (default secmap.data, else the one in PERF_DATA)\n"
		"  -o, --output OUTPUT     write to OUTPUT (default: replace PERF_DATA); a\n"
		"                          symlink is followed, a device or FIFO refused\n"
		"      --no-perf-maps      embed the recording only: perf's records stay as they\n"
		"                          are (perf then misplaces module samples)\n"
		"      --buildid-dir DIR   perf's build-id cache for the module objects (default\n"
		"                          ~/.debug, as perf's)\n"
		"      --ko-path PATH      look for .ko files in PATH first (repeatable)\n"
		"      --force             use a .ko whose build-id differs from the recorded one\n"
		"      --strip             write the file perf wrote: perf's module maps back,\n"
		"                          the recording out\n"
		"  -j, --json              print what was written as JSON\n"
		"  -p, --pretty            pretty-printed JSON output (implies --json)\n"
		"  -h, --help              show this help\n",
		bin_name, bin_name);
}

/*
 * What is wrong with the perf.data input, given libsecmap's @err (the
 * library's reason, from the parser that refused it); NULL when @err is
 * not about its contents (a rename() over a directory fails with EISDIR
 * too: that one is the output's).
 */
static const char *perf_data_problem(int err)
{
	if (err == -EEXIST)
		return recording_strerror(err);
	if (err != -EISDIR && err != -EBADMSG && err != -EINVAL && err != -ENOTSUP)
		return NULL;
	return secmap_error_reason(err) ?: err == -EBADMSG ? "truncated or corrupt" : NULL;
}

/*
 * Check the secmap.data at @path as libsecmap's reader reads it: mapped, so
 * that only the pages up to its first bad record are read. A file of junk
 * after a valid header costs nothing then, where reading it whole first
 * took its size in memory and seconds.
 */
static int validate_file(const char *path)
{
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	int err;

	err = secmap_reader_open(path, &r);
	if (err)
		return err;
	while ((err = secmap_reader_next(r, &rec)) > 0)
		;
	secmap_reader_free(r);
	return err;
}

/*
 * The whole of @path: a secmap.data, or the recording inside a perf.data.
 * Its size is checked first: one over SECMAP_RECORDING_MAX is -EFBIG
 * before a byte of it is read (a perf.data may be of any size, only the
 * recording in it is bounded); then a secmap.data is checked where it
 * lies, and read only if it is whole (the copy is checked again: the file
 * may change meanwhile). *@checked: what the check found, if it failed.
 */
static int read_recording(const char *path, void **buf, size_t *len, bool *from_perf,
			  int *checked)
{
	struct stat st;
	size_t done = 0;
	uint8_t *b;
	ssize_t n;
	int fd, err = 0;

	/*
	 * The library tells a perf.data by its magic: -EINVAL is "no
	 * perf.data" (or no regular file, said again below).
	 */
	err = secmap_perf_read_recording(path, buf, len);
	*from_perf = err != -EINVAL;
	if (*from_perf)
		return err;
	err = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size > SECMAP_RECORDING_MAX) {
		err = -EFBIG;
		goto out;
	}
	*checked = validate_file(path);
	if (*checked)
		goto out;
	b = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b) {
		err = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		n = read(fd, b + done, (size_t)st.st_size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			free(b);
			goto out;
		}
		if (!n)
			break;	/* shrunk meanwhile: validation tells */
		done += (size_t)n;
	}
	*buf = b;
	*len = done;
out:
	close(fd);
	return err;
}

static bool is_format_error(int err)
{
	switch (-err) {
	case EINVAL:
	case ENOTSUP:
	case EBADMSG:
	case EEXIST:
	case EISDIR:
	case ENODATA:
	case ESTALE:
	case ENOLINK:
	case EFBIG:
		return true;
	default:
		return false;
	}
}

/* Read, check and report the recording at @map_path; an exit code. */
static int load_recording(const char *map_path, void **buf, size_t *len)
{
	const char *what;
	bool from_perf;
	int err, checked = 0;

	err = read_recording(map_path, buf, len, &from_perf, &checked);
	if (from_perf && err) {
		what = err == -ENODATA || err == -ESTALE || err == -ENOLINK || err == -EFBIG ?
			recording_strerror(err) : perf_data_problem(err);
		p_err("%s: %s", map_path, what ?: strerror(-err));
		return is_format_error(err) ? SECMAP_EXIT_BAD_INPUT : SECMAP_EXIT_FAILURE;
	}
	if (err) {
		p_err("%s: %s", map_path, err == -EINVAL ? "not a regular file" :
					  err == -EFBIG ? recording_strerror(err) : strerror(-err));
		return err == -EISDIR || err == -EINVAL || err == -EFBIG ? SECMAP_EXIT_BAD_INPUT :
									   SECMAP_EXIT_FAILURE;
	}
	err = checked ?: secmap_data_validate(*buf, *len);
	if (!err)
		return SECMAP_EXIT_OK;
	switch (-err) {
	case EINVAL:
		what = "not a secmap recording (no SECMAPv1 magic)";
		break;
	case ENOTSUP:
		what = "recording of an unsupported major version";
		break;
	case EBADMSG:
		what = "truncated or corrupt recording";
		break;
	case EFBIG:	/* grown meanwhile */
		what = recording_strerror(err);
		break;
	default:
		what = strerror(-err);
	}
	p_err("%s: %s", map_path, what);
	free(*buf);
	*buf = NULL;
	return is_format_error(err) ? SECMAP_EXIT_BAD_INPUT : SECMAP_EXIT_FAILURE;
}

static int report_inject_error(const struct inject_args *args, const char *out_path, int err)
{
	const char *in_path = args->input;
	const char *what = NULL;
	int fd;

	if (err == -ESTALE || err == -ENODATA) {
		p_err("%s: %s", in_path, recording_strerror(err));
		return SECMAP_EXIT_BAD_INPUT;
	}
	what = perf_data_problem(err);
	/* A file of a kind this reader takes, whose records cannot be ordered. */
	if (!what && err == -ENOTSUP && args->maps)
		what = "cannot place module maps for perf: the records must carry times "
		       "(sample_id_all, PERF_SAMPLE_TIME) in perf's clock or CLOCK_MONOTONIC, "
		       "and perf's module maps must lie outside compressed records; "
		       "--no-perf-maps embeds the recording only";
	/* Every -EFBIG of the reader and the rewrite is about the input. */
	if (!what && err == -EFBIG)
		what = "larger than secmap reads: a part of its header, or its compressed "
		       "records (64 MiB a batch, 4096 times the data read so far in all)";
	if (what) {
		p_err("%s: %s", in_path, what);
		return SECMAP_EXIT_BAD_INPUT;
	}
	/* Anything else is about reading the input or writing the output: which? */
	fd = open(in_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		p_err("%s: %s", in_path, strerror(errno));
		return SECMAP_EXIT_FAILURE;
	}
	close(fd);
	return output_error("", out_path, err);
}

static int print_result(const char *out_path, const struct inject_args *args,
			const struct secmap_perf_maps *maps,
			const struct secmap_perf_inject_stats *stats)
{
	size_t i, nr = maps ? secmap_perf_maps_nr_objects(maps) : 0, loads = 0;
	SECMAP_OPTS(secmap_perf_maps_object, obj);
	struct json_out *o;
	struct stat st;
	int err;

	if (args->no_summary)
		return SECMAP_EXIT_OK;
	for (i = 0; i < nr; i++)
		if (!secmap_perf_maps_object(maps, i, &obj))
			loads += obj.nr_loads;
	if (!json_output) {
		if (maps)
			fprintf(stderr, "[ secmap inject: %s: perf's %" PRIu64 " module maps replaced "
				"by %" PRIu64 " maps and %" PRIu64 " unmaps of %zu regions, objects "
				"in %s ]\n", out_path, stats->perf_maps_removed, stats->maps_written,
				stats->unmaps_written, loads, args->buildid_dir ?
				args->buildid_dir : "the build-id cache");
		else if (args->strip)
			fprintf(stderr, "[ secmap inject: %s: the file perf wrote ]\n", out_path);
		else
			fprintf(stderr, "[ secmap inject: %s: recording embedded ]\n", out_path);
		return SECMAP_EXIT_OK;
	}
	if (stat(out_path, &st) < 0) {
		p_err("%s: %s", out_path, strerror(errno));
		return SECMAP_EXIT_FAILURE;
	}
	o = json_out_stream(stdout, pretty_output);
	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "output", out_path);
		json_out_u64(o, "bytes", (uint64_t)st.st_size);
		if (maps) {
			json_out_object_begin(o, "perf_maps");
			json_out_u64(o, "objects", nr);
			json_out_u64(o, "regions", loads);
			json_out_u64(o, "maps", stats->maps_written);
			json_out_u64(o, "unmaps", stats->unmaps_written);
			json_out_u64(o, "perf_maps_removed", stats->perf_maps_removed);
			json_out_u64(o, "loads_without_ko", secmap_perf_maps_nr_skipped(maps));
			json_out_object_end(o);
		} else {
			json_out_null(o, "perf_maps");
		}
		json_out_object_end(o);
	}
	err = json_out_finish(o);
	if (err) {
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(-err));
		return SECMAP_EXIT_FAILURE;
	}
	return SECMAP_EXIT_OK;
}

/* Whether PERF_DATA can be read record by record, as the rewrite will; an exit code. */
static int probe_input(const struct inject_args *args, const char *out_path)
{
	struct secmap_perf_data *pd;
	int err;

	err = secmap_perf_data_open(args->input, &pd);
	if (err)
		return report_inject_error(args, out_path, err);
	secmap_perf_data_close(pd);
	return SECMAP_EXIT_OK;
}

/*
 * The recording's resolver, with the .ko files of its modules; an exit code.
 * *@mismatch: a .ko of another build-id was refused (and said so).
 */
static int open_resolver(const struct inject_args *args, const void *buf, size_t len,
			 struct secmap_resolver **res, bool *mismatch)
{
	SECMAP_OPTS(secmap_ko_search, search, .paths = args->paths);
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &search, .force = args->force);
	struct resolver_args warn = { .paths = args->paths, .quiet = args->quiet };
	struct secmap_reader *r = NULL;
	SECMAP_OPTS(secmap_record, rec);
	int err;

	err = secmap_resolver_new(&opts, res);
	if (!err)
		err = secmap_reader_from_buffer(buf, len, &r);
	while (!err && (err = secmap_reader_next(r, &rec)) > 0)
		err = secmap_resolver_add(*res, &rec);
	secmap_reader_free(r);
	if (!err)
		err = secmap_resolver_finish(*res);
	if (err) {
		p_err("%s: %s", args->map, recording_strerror(err));
		secmap_resolver_free(*res);
		*res = NULL;
		return recording_exit_code(err);
	}
	/*
	 * A refused .ko is no reason to stop: its module keeps perf's own map,
	 * and the exit status says so at the end, as secmap report's does.
	 */
	*mismatch = resolver_warn_modules(&warn, *res, "its samples keep perf's own map") ==
		    SECMAP_EXIT_KO_MISMATCH;
	return SECMAP_EXIT_OK;
}

/* The objects perf will look for, in the build-id cache; an exit code. */
static int make_perf_maps(const struct inject_args *args, const struct secmap_resolver *res,
			  struct secmap_perf_maps **maps)
{
	struct secmap_perf_maps_opts opts = { .sz = sizeof(opts), .buildid_dir = args->buildid_dir };
	int err;

	err = secmap_perf_maps_new(res, &opts, maps);
	if (err == -ENOENT) {
		p_err("inject: no build-id cache: no --buildid-dir, and $HOME is not absolute");
		return SECMAP_EXIT_USAGE;
	}
	if (!err)
		err = secmap_perf_maps_install(*maps);
	if (err) {
		p_err("inject: cannot write perf's module objects into %s: %s",
		      args->buildid_dir ? args->buildid_dir : "the build-id cache", strerror(-err));
		secmap_perf_maps_free(*maps);
		*maps = NULL;
		return SECMAP_EXIT_FAILURE;
	}
	return SECMAP_EXIT_OK;
}

int inject_recording(const struct inject_args *args)
{
	const char *out_path = args->output ? args->output : args->input;
	struct secmap_perf_inject_stats stats = { .sz = sizeof(stats) };
	struct secmap_perf_inject_opts opts = { .sz = sizeof(opts) };
	struct secmap_resolver *res = NULL;
	struct secmap_perf_maps *maps = NULL;
	struct inject_args a = *args;
	bool mismatch = false;
	struct stat st;
	void *buf = NULL;
	size_t len = 0;
	int ret, err;

	if (args->strip) {
		err = secmap_perf_strip(args->input, out_path);
		if (err)
			return report_inject_error(args, out_path, err);
		return print_result(out_path, args, NULL, &stats);
	}
	/* No -m and no secmap.data here: the recording PERF_DATA holds, if any. */
	if (!a.map)
		a.map = stat("secmap.data", &st) && errno == ENOENT ? a.input : "secmap.data";
	ret = load_recording(a.map, &buf, &len);
	/* PERF_DATA first: a file that cannot be rewritten needs no .ko read or object made. */
	if (!ret && a.maps)
		ret = probe_input(&a, out_path);
	if (!ret && a.maps)
		ret = open_resolver(&a, buf, len, &res, &mismatch);
	if (!ret && a.maps)
		ret = make_perf_maps(&a, res, &maps);
	if (ret)
		goto out;
	opts.maps = maps;
	err = secmap_perf_inject_ext(a.input, out_path, buf, len, &opts, &stats);
	if (err)
		ret = report_inject_error(&a, out_path, err);
	else
		ret = print_result(out_path, &a, maps, &stats);
	if (!ret && maps && secmap_perf_maps_nr_skipped(maps) && !args->quiet)
		fprintf(stderr, "Warning: %zu module loads without their .ko keep perf's own maps "
			"(--ko-path)\n", secmap_perf_maps_nr_skipped(maps));
	if (!ret && mismatch)
		ret = SECMAP_EXIT_KO_MISMATCH;
out:
	secmap_perf_maps_free(maps);
	secmap_resolver_free(res);
	free(buf);
	return ret;
}

int do_inject(int argc, char **argv)
{
	enum { OPT_NO_PERF_MAPS = 256, OPT_BUILDID_DIR, OPT_KO_PATH, OPT_FORCE, OPT_STRIP };
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "input",	  required_argument, NULL, 'i' },
		{ "map",	  required_argument, NULL, 'm' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "no-perf-maps", no_argument,	     NULL, OPT_NO_PERF_MAPS },
		{ "buildid-dir",  required_argument, NULL, OPT_BUILDID_DIR },
		{ "ko-path",	  required_argument, NULL, OPT_KO_PATH },
		{ "force",	  no_argument,	     NULL, OPT_FORCE },
		{ "strip",	  no_argument,	     NULL, OPT_STRIP },
		{ 0 }
	};
	struct inject_args args = { .maps = true };
	size_t nr_paths = 0;
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+i:m:o:" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			inject_usage(stdout);
			ret = SECMAP_EXIT_OK;
			goto out;
		case 'i':
			args.input = optarg;
			break;
		case 'm':
			args.map = optarg;
			break;
		case 'o':
			args.output = optarg;
			break;
		case OPT_NO_PERF_MAPS:
			args.maps = false;
			break;
		case OPT_BUILDID_DIR:
			args.buildid_dir = optarg;
			break;
		case OPT_KO_PATH:
			if (path_list_add(&args.paths, &nr_paths, optarg)) {
				p_err("out of memory");
				ret = SECMAP_EXIT_FAILURE;
				goto out;
			}
			break;
		case OPT_FORCE:
			args.force = true;
			break;
		case OPT_STRIP:
			args.strip = true;
			break;
		default:
			if (optopt != 'i' && optopt != 'm' && optopt != 'o' &&
			    optopt != OPT_BUILDID_DIR && optopt != OPT_KO_PATH) {
				ret = usage_error("inject", argv, inject_usage);
				goto out;
			}
			p_err("inject: option '%s' needs a value", argv[optind - 1]);
			if (!json_output)
				inject_usage(stderr);
			ret = SECMAP_EXIT_USAGE;
			goto out;
		}
	}
	ret = SECMAP_EXIT_USAGE;
	if (optind < argc) {
		ret = unexpected_argument("inject", argv[optind], inject_usage);
	} else if (!args.input) {
		p_err("inject: no perf.data given (-i PERF_DATA)");
		if (!json_output)
			inject_usage(stderr);
	} else if (args.output && !*args.output) {
		p_err("inject: empty output file name");
	} else if (args.buildid_dir && !*args.buildid_dir) {
		p_err("inject: empty --buildid-dir");
	} else if (args.strip && (args.map || args.buildid_dir || args.paths || args.force ||
				  !args.maps)) {
		p_err("inject: --strip takes only -i and -o");
	} else {
		ret = inject_recording(&args);
	}
out:
	free(args.paths);
	return ret;
}
