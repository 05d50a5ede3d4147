// SPDX-License-Identifier: GPL-2.0
/*
 * secmap inject: embed a recording into a perf.data file, as feature section
 * SECMAP_PERF_FEATURE_BIT. perf carries feature sections it does not know
 * from reader to reader without looking at them, so the one file holds both
 * the samples and where the module sections were.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_out.h"
#include "secmap_cli.h"

#define PERF_HEADER_SIZE 104

static void inject_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s inject -i PERF_DATA [-m RECORDING] [-o OUTPUT] [-j] [-p]\n"
		"\n"
		"Embed a secmap recording into a perf.data file as feature section %d,\n"
		"which perf keeps without reading it. Injecting again replaces the\n"
		"recording. The file is written under a temporary name in the output's\n"
		"directory and renamed into place: PERF_DATA itself is never modified.\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA  the perf.data to read (not in pipe mode)\n"
		"  -m, --map RECORDING    the recording: a secmap.data, or a perf.data holding\n"
		"                         one (default secmap.data)\n"
		"  -o, --output OUTPUT    write to OUTPUT (default: replace PERF_DATA)\n"
		"  -j, --json             print {\"output\": OUTPUT, \"bytes\": its size}\n"
		"  -p, --pretty           pretty-printed JSON output (implies --json)\n"
		"  -h, --help             show this help\n",
		bin_name, SECMAP_PERF_FEATURE_BIT);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* @size bytes at @off, all of them; false on a short file or an error. */
static bool read_at(int fd, void *buf, size_t size, uint64_t off)
{
	return pread(fd, buf, size, (off_t)off) == (ssize_t)size;
}

/*
 * libsecmap says only that the header, data or feature table is corrupt
 * (-EBADMSG): read them again to tell which, in the order the library
 * checks them. NULL if nothing more specific is found.
 */
static const char *perf_data_corruption(int fd, char *msg, size_t size)
{
	uint64_t data_off, data_size, data_end, file_size, off, len, bits[4];
	uint8_t hdr[PERF_HEADER_SIZE], ent[16];
	unsigned int bit, nr = 0, i;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return NULL;
	file_size = (uint64_t)st.st_size;
	if (file_size < PERF_HEADER_SIZE) {
		snprintf(msg, size, "truncated (file header: %llu of %d bytes)",
			 (unsigned long long)file_size, PERF_HEADER_SIZE);
		return msg;
	}
	if (!read_at(fd, hdr, sizeof(hdr), 0))
		return NULL;
	if (get64(hdr + 8) != PERF_HEADER_SIZE)
		return "corrupt file header (header size field)";
	data_off = get64(hdr + 40);
	data_size = get64(hdr + 48);
	if (data_off < PERF_HEADER_SIZE || data_off > file_size)
		return "corrupt file header (data offset)";
	if (data_size > file_size - data_off)
		return "truncated (data section ends past end of file)";
	if (!data_size)
		return "data size is 0: perf record did not finish (was it killed?)";
	data_end = data_off + data_size;
	for (i = 0; i < 4; i++)
		bits[i] = get64(hdr + 72 + 8 * i);
	for (bit = 0; bit < 256; bit++)
		nr += bits[bit / 64] >> (bit % 64) & 1;
	if (file_size - data_end < 16ULL * nr)
		return "truncated (feature table ends past end of file)";
	for (bit = 0, i = 0; bit < 256; bit++) {
		if (!(bits[bit / 64] >> (bit % 64) & 1))
			continue;
		if (!read_at(fd, ent, sizeof(ent), data_end + 16ULL * i++))
			return NULL;
		off = get64(ent);
		len = get64(ent + 8);
		if (off < data_end)
			snprintf(msg, size, "feature section %u starts before the end of the data",
				 bit);
		else if (off > file_size || len > file_size - off)
			snprintf(msg, size, "truncated (feature section %u ends past end of file)",
				 bit);
		else if (len && off < data_end + 16ULL * nr)
			snprintf(msg, size, "corrupt feature table (section %u overlaps it)", bit);
		else
			continue;
		return msg;
	}
	return "corrupt attrs section (events' attributes or ids out of place)";
}

/*
 * What is wrong with the perf.data @path, given libsecmap's @err; NULL when
 * @err is not about its contents (it may then be about the output).
 */
static const char *perf_data_problem(const char *path, int err, char *msg, size_t size)
{
	const char *what = NULL;
	uint8_t hdr[16] = { 0 };	/* magic and header size */
	struct stat st;
	int fd;

	if (err != -EISDIR && err != -EEXIST && err != -EBADMSG && err != -EINVAL &&
	    err != -ENOTSUP)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	/* rename() over a directory fails with EISDIR too: only the input's counts. */
	if (err == -EISDIR) {
		what = S_ISDIR(st.st_mode) ? "is a directory" : NULL;
	} else if (err == -EEXIST) {
		snprintf(msg, size, "feature section %d holds data that is not a secmap recording",
			 SECMAP_PERF_FEATURE_BIT);
		what = msg;
	} else if (!S_ISREG(st.st_mode)) {
		what = "not a regular file";
	} else if (err == -EBADMSG) {
		what = perf_data_corruption(fd, msg, size) ?: "truncated or corrupt";
	} else if (err == -EINVAL) {
		what = "not a perf.data file (no PERFILE2 magic)";
	} else if (pread(fd, hdr, sizeof(hdr), 0) < 8) {
		what = NULL;
	} else if (!memcmp(hdr, "2ELIFREP", 8)) {
		what = "perf.data from a machine of the other byte order is not supported";
	} else if (!memcmp(hdr, "PERFFILE", 8) || !memcmp(hdr, "ELIFFREP", 8)) {
		what = "perf.data of the first format (magic PERFFILE) is not supported";
	} else if (get64(hdr + 8) == 16) {
		what = "pipe-mode perf.data cannot carry feature sections; record with -o FILE";
	} else if (get64(hdr + 8) == 72) {
		what = "perf.data of an early format without feature sections is not supported";
	}
	close(fd);
	return what;
}

/* The whole of @path: a secmap.data, or the recording inside a perf.data. */
static int read_recording(const char *path, void **buf, size_t *len, bool *from_perf)
{
	char magic[8] = "";
	struct stat st;
	size_t done = 0;
	uint8_t *b;
	ssize_t n;
	int fd, err = 0;

	*from_perf = false;
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
	if (read_at(fd, magic, sizeof(magic), 0) && (!memcmp(magic, "PERFILE2", 8) ||
						     !memcmp(magic, "2ELIFREP", 8))) {
		*from_perf = true;
		err = secmap_perf_read_feature(path, SECMAP_PERF_FEATURE_BIT, buf, len);
		goto out;
	}
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
		return true;
	default:
		return false;
	}
}

/* Read, check and report the recording at @map_path; an exit code. */
static int load_recording(const char *map_path, void **buf, size_t *len)
{
	char msg[160];
	const char *what;
	bool from_perf;
	int err;

	err = read_recording(map_path, buf, len, &from_perf);
	if (from_perf && err) {
		what = err == -ENODATA ? "perf.data holds no secmap recording" :
					 perf_data_problem(map_path, err, msg, sizeof(msg));
		p_err("%s: %s", map_path, what ?: strerror(-err));
		return is_format_error(err) ? SECMAP_EXIT_BAD_INPUT : SECMAP_EXIT_FAILURE;
	}
	if (err) {
		p_err("%s: %s", map_path, err == -EINVAL ? "not a regular file" : strerror(-err));
		return err == -EISDIR || err == -EINVAL ? SECMAP_EXIT_BAD_INPUT :
							  SECMAP_EXIT_FAILURE;
	}
	err = secmap_data_validate(*buf, *len);
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
	default:
		what = strerror(-err);
	}
	p_err("%s: %s", map_path, what);
	free(*buf);
	*buf = NULL;
	return is_format_error(err) ? SECMAP_EXIT_BAD_INPUT : SECMAP_EXIT_FAILURE;
}

static int report_inject_error(const char *in_path, const char *out_path, int err)
{
	char msg[160];
	const char *what = perf_data_problem(in_path, err, msg, sizeof(msg));
	int fd;

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
	if (err == -EACCES || err == -EPERM || err == -EROFS)
		p_err("cannot write %s: %s (a temporary file is created in its directory)",
		      out_path, strerror(-err));
	else
		p_err("cannot write %s: %s", out_path, strerror(-err));
	return SECMAP_EXIT_FAILURE;
}

static int print_result(const char *out_path)
{
	struct json_out *o;
	struct stat st;
	int err;

	if (!json_output)
		return SECMAP_EXIT_OK;
	if (stat(out_path, &st) < 0) {
		p_err("%s: %s", out_path, strerror(errno));
		return SECMAP_EXIT_FAILURE;
	}
	o = json_out_stream(stdout, pretty_output);
	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "output", out_path);
		json_out_u64(o, "bytes", (uint64_t)st.st_size);
		json_out_object_end(o);
	}
	err = json_out_finish(o);
	if (err) {
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(-err));
		return SECMAP_EXIT_FAILURE;
	}
	return SECMAP_EXIT_OK;
}

int inject_recording(const char *in_path, const char *map_path, const char *out_path)
{
	void *buf = NULL;
	size_t len = 0;
	int ret, err;

	if (!out_path)
		out_path = in_path;
	ret = load_recording(map_path, &buf, &len);
	if (ret)
		return ret;
	err = secmap_perf_inject(in_path, out_path, buf, len);
	free(buf);
	if (err)
		return report_inject_error(in_path, out_path, err);
	return SECMAP_EXIT_OK;
}

int do_inject(int argc, char **argv)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "input",	required_argument, NULL, 'i' },
		{ "map",	required_argument, NULL, 'm' },
		{ "output",	required_argument, NULL, 'o' },
		{ 0 }
	};
	const char *in_path = NULL, *map_path = "secmap.data", *out_path = NULL;
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+i:m:o:" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			inject_usage(stdout);
			return SECMAP_EXIT_OK;
		case 'i':
			in_path = optarg;
			break;
		case 'm':
			map_path = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		default:
			if (optopt != 'i' && optopt != 'm' && optopt != 'o')
				return usage_error("inject", argv, inject_usage);
			p_err("inject: option '%s' needs a value", argv[optind - 1]);
			if (!json_output)
				inject_usage(stderr);
			return SECMAP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return unexpected_argument("inject", argv[optind], inject_usage);
	if (!in_path) {
		p_err("inject: no perf.data given (-i PERF_DATA)");
		if (!json_output)
			inject_usage(stderr);
		return SECMAP_EXIT_USAGE;
	}
	if (out_path && !*out_path) {
		p_err("inject: empty output file name");
		return SECMAP_EXIT_USAGE;
	}

	ret = inject_recording(in_path, map_path, out_path);
	if (ret)
		return ret;
	return print_result(out_path ? out_path : in_path);
}
