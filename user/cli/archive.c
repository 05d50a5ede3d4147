// SPDX-License-Identifier: GPL-2.0
/*
 * secmap archive: pack every .ko a recording refers to, and the kernel's
 * symbol table it carries, in perf's build-id cache layout, so that
 * unpacking the archive into ~/.debug on another machine lets both secmap
 * and perf find them by build-id. As `perf archive` does for a perf.data:
 *
 *   .build-id/ab/cdef...  ->  ../../PATH/abcdef.../   (symlink)
 *   PATH/abcdef.../elf                                  (the module, decompressed)
 *   [kernel.kallsyms]/BUILD-ID/kallsyms                 (core kernel symbols)
 *
 * and the objects `secmap inject` made for stock perf, one per module
 * region, where perf's module maps in the perf.data name them:
 *
 *   .build-id/ab/cdef...  ->  ../../.secmap/abcdef.../mod.ko
 *   .secmap/abcdef.../mod.ko
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "archive_lib.h"
#include "json_out.h"
#include "secmap_cli.h"

static const struct archive_lib *al;

static void archive_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s archive [-i PERF_DATA] [-m SECMAP_DATA] [-o FILE] [--ko-path PATH]...\n"
		"                  [--force]\n"
		"\n"
		"Pack every module file (.ko) a recording refers to, found and matched by\n"
		"build-id, and the kernel symbols it carries, into a tar.xz in perf's\n"
		"build-id cache layout: unpacked into ~/.debug on another machine, secmap\n"
		"and perf find them there. One copy per build-id.\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA  perf.data holding the recording (default perf.data)\n"
		"  -m, --map SECMAP_DATA  read the recording from this file instead\n"
		"  -o, --output FILE      the archive (default INPUT.secmap.tar.xz)\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            leave out a module whose .ko has another build-id,\n"
		"                         instead of failing\n"
		"  -j, --json             a JSON summary\n"
		"  -h, --help             show this help\n",
		bin_name);
}

/* One module build of the recording. */
struct wanted {
	char *name;
	uint8_t id[SECMAP_BUILD_ID_MAX];
	size_t id_len;
};

struct archive_job {
	struct wanted *mods;
	size_t nr_mods, cap_mods;
	char release[65];
	uint8_t kernel_id[64];
	size_t kernel_id_len;
	char *kallsyms;		/* the KALLSYMS pieces joined */
	size_t kallsyms_len, kallsyms_cap;
};

/* @w against the build @name, @id: by name, then build-id. */
static int cmp_build(const struct wanted *w, const char *name, const uint8_t *id, size_t id_len)
{
	int c = strcmp(w->name, name);

	if (c)
		return c;
	if (w->id_len != id_len)
		return w->id_len < id_len ? -1 : 1;
	/* No build-id is NULL and 0 long: memcmp() may not be given NULL. */
	return id_len ? memcmp(w->id, id, id_len) : 0;
}

/*
 * A map's module build, once per run of maps of it (a module's maps come
 * together); the rest of the duplicates go in sort_wanted(): n log n, not
 * a search per map.
 */
static int add_wanted(struct archive_job *job, const struct secmap_record *rec)
{
	struct wanted *w;

	if (job->nr_mods && !cmp_build(&job->mods[job->nr_mods - 1], rec->module, rec->build_id,
				       rec->build_id_len))
		return 0;
	if (rec->build_id_len > sizeof(w->id))
		return -EBADMSG;
	if (job->nr_mods == job->cap_mods) {
		size_t cap = job->cap_mods ? 2 * job->cap_mods : 64;

		w = realloc(job->mods, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		job->mods = w;
		job->cap_mods = cap;
	}
	w = &job->mods[job->nr_mods];
	w->name = strdup(rec->module);
	if (!w->name)
		return -ENOMEM;
	if (rec->build_id_len)
		memcpy(w->id, rec->build_id, rec->build_id_len);
	w->id_len = rec->build_id_len;
	job->nr_mods++;
	return 0;
}

static int cmp_wanted(const void *a, const void *b)
{
	const struct wanted *y = b;

	return cmp_build(a, y->name, y->id, y->id_len);
}

/* Each module build once, by name. */
static void sort_wanted(struct archive_job *job)
{
	size_t i, n = 0;

	if (!job->nr_mods)
		return;
	qsort(job->mods, job->nr_mods, sizeof(*job->mods), cmp_wanted);
	for (i = 1; i < job->nr_mods; i++) {
		if (!cmp_wanted(&job->mods[n], &job->mods[i]))
			free(job->mods[i].name);
		else
			job->mods[++n] = job->mods[i];
	}
	job->nr_mods = n + 1;
}

static int read_recording(const char *path, struct archive_job *job)
{
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	char *p;
	int ret;

	ret = secmap_reader_open(path, &r);
	if (ret)
		return ret;
	while ((ret = secmap_reader_next(r, &rec)) == 1) {
		switch (rec.type) {
		case SECMAP_REC_KERNEL:
			snprintf(job->release, sizeof(job->release), "%s", rec.release);
			/* A kernel of unknown build-id has none to copy (NULL). */
			if (rec.build_id_len && rec.build_id_len <= sizeof(job->kernel_id)) {
				memcpy(job->kernel_id, rec.build_id, rec.build_id_len);
				job->kernel_id_len = rec.build_id_len;
			}
			break;
		case SECMAP_REC_KALLSYMS:
			/* Doubling: a recording of many small pieces copies little. */
			if (job->kallsyms_len + rec.text_len > job->kallsyms_cap) {
				size_t cap = job->kallsyms_cap ? job->kallsyms_cap : 1 << 16;

				while (cap < job->kallsyms_len + rec.text_len)
					cap *= 2;
				p = realloc(job->kallsyms, cap);
				if (!p) {
					ret = -ENOMEM;
					goto out;
				}
				job->kallsyms = p;
				job->kallsyms_cap = cap;
			}
			p = job->kallsyms;
			memcpy(p + job->kallsyms_len, rec.text, rec.text_len);
			job->kallsyms_len += rec.text_len;
			break;
		case SECMAP_REC_SEC_MAP:
			ret = add_wanted(job, &rec);
			if (ret)
				goto out;
			break;
		}
	}
out:
	secmap_reader_free(r);
	sort_wanted(job);
	return ret;
}

static int put_entry(struct archive *a, const char *path, mode_t type, const void *data,
		     size_t size, const char *link)
{
	struct archive_entry *e = al->entry_new();
	int ret;

	if (!e)
		return -ENOMEM;
	al->entry_set_pathname(e, path);
	al->entry_set_filetype(e, type);
	al->entry_set_perm(e, type == AE_IFLNK ? 0777 : 0644);
	al->entry_set_mtime(e, time(NULL), 0);
	if (link)
		al->entry_set_symlink(e, link);
	al->entry_set_size(e, type == AE_IFREG ? (la_int64_t)size : 0);
	ret = al->write_header(a, e);
	if (ret == ARCHIVE_OK && type == AE_IFREG && size &&
	    al->write_data(a, data, size) != (la_ssize_t)size)
		ret = ARCHIVE_FATAL;
	al->entry_free(e);
	return ret == ARCHIVE_OK ? 0 : -EIO;
}

/* The cache entry for @data under DIR/BUILD-ID/NAME, and its .build-id link. */
static int put_cached(struct archive *a, const char *dir, const uint8_t *id, size_t id_len,
		      const char *name, const void *data, size_t size)
{
	char sid[SECMAP_BUILD_ID_STR_SIZE], path[PATH_MAX + 200], link[32 + SECMAP_BUILD_ID_STR_SIZE];
	char target[PATH_MAX + 200];

	if (secmap_build_id_str(id, id_len, sid, sizeof(sid)))
		return -EINVAL;
	/* Relative to ~/.debug: the tree perf builds there, rooted at the file's path. */
	while (*dir == '/')
		dir++;
	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, sid, name) >= (int)sizeof(path) ||
	    snprintf(target, sizeof(target), "../../%s/%s", dir, sid) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", sid, sid + 2);
	if (put_entry(a, path, AE_IFREG, data, size, NULL))
		return -EIO;
	return put_entry(a, link, AE_IFLNK, NULL, 0, target);
}

/*
 * The path a module file had before it reached perf's build-id cache:
 * CACHE/.build-id/xx/rest leads to CACHE/ORIGIN/BUILD-ID/elf (or, from older
 * perf, CACHE/ORIGIN/BUILD-ID), and the archive must store it under ORIGIN
 * again, not nest the cache inside itself. Anything else: its real path.
 * malloc()ed; NULL when out of memory.
 */
static char *origin_path(const char *path, const char *cache, const char *sid)
{
	char *real = realpath(path, NULL), *real_cache, *end, *origin;
	size_t len, sid_len = strlen(sid);

	if (!real)
		return strdup(path);
	real_cache = cache ? realpath(cache, NULL) : NULL;
	len = real_cache ? strlen(real_cache) : 0;
	if (!len || strncmp(real, real_cache, len) || real[len] != '/')
		goto out;
	end = real + strlen(real);
	if (end - real > 4 && !strcmp(end - 4, "/elf"))
		end -= 4;
	if ((size_t)(end - real) > len + sid_len + 1 && end[-(long)sid_len - 1] == '/' &&
	    !strncmp(end - sid_len, sid, sid_len)) {
		*(end - sid_len - 1) = '\0';
		origin = strdup(real + len);
		free(real);
		free(real_cache);
		return origin;
	}
out:
	free(real_cache);
	return real;
}

struct archive_result {
	size_t packed, missing, mismatched, no_id, objects;
	int exit;
};

/* An object of @maps, whole, into @a, with its .build-id link. */
static int put_object(struct archive *a, const struct secmap_perf_maps *maps, size_t idx)
{
	char sid[SECMAP_BUILD_ID_STR_SIZE], link[32 + SECMAP_BUILD_ID_STR_SIZE], *target = NULL;
	SECMAP_OPTS(secmap_perf_maps_object, obj);
	void *image = NULL;
	size_t len;
	int err;

	err = secmap_perf_maps_object(maps, idx, &obj);
	if (!err)
		err = secmap_perf_maps_object_image(maps, idx, &image, &len);
	if (err)
		return err;
	secmap_build_id_str(obj.build_id, obj.build_id_len, sid, sizeof(sid));
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", sid, sid + 2);
	if (asprintf(&target, "../../%s", obj.cache_path) < 0) {
		target = NULL;
		err = -ENOMEM;
	}
	if (!err && put_entry(a, obj.cache_path, AE_IFREG, image, len, NULL))
		err = -EIO;
	if (!err)
		err = put_entry(a, link, AE_IFLNK, NULL, 0, target);
	free(image);
	free(target);
	return err;
}

/*
 * The objects secmap inject gives stock perf for this recording: made
 * again from the same .ko files, they are the same bytes, build-ids and
 * names as in the perf.data.
 */
static int pack_perf_objects(struct archive *a, const char *path,
			     struct secmap_ko_search *search, struct archive_result *res)
{
	/* Never from a .ko of another build-id: inject would not have used it. */
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = search);
	struct secmap_perf_maps_opts mopts = { .sz = sizeof(mopts), .buildid_dir = "/" };
	struct secmap_perf_maps *maps = NULL;
	struct secmap_resolver *r = NULL;
	size_t i;
	int err;

	err = secmap_resolver_new(&opts, &r);
	if (!err)
		err = secmap_resolver_load(r, path);
	if (!err)
		err = secmap_perf_maps_new(r, &mopts, &maps);
	for (i = 0; !err && i < secmap_perf_maps_nr_objects(maps); i++) {
		err = put_object(a, maps, i);
		res->objects += !err;
	}
	if (err)
		p_err("archive: perf's module objects: %s", strerror(-err));
	secmap_perf_maps_free(maps);
	secmap_resolver_free(r);
	return err;
}

static int pack_modules(struct archive *a, const struct archive_job *job,
			struct secmap_ko_search *search, bool force, struct archive_result *res)
{
	struct secmap_ko_index *idx = NULL;
	const uint8_t *kid, *image;
	char sid[SECMAP_BUILD_ID_STR_SIZE], *path, *real, *cache = NULL;
	struct secmap_ko *ko;
	size_t i, kid_len, size;
	int err;

	err = secmap_ko_index_new(search, &idx);
	if (err)
		return err;
	/* Where secmap_ko_index_find() looks for perf's cache. */
	if (search->buildid_cache)
		cache = strdup(search->buildid_cache);
	else if (getenv("HOME") && asprintf(&cache, "%s/.debug", getenv("HOME")) < 0)
		cache = NULL;
	for (i = 0; i < job->nr_mods && !err; i++) {
		const struct wanted *w = &job->mods[i];

		if (!w->id_len) {
			fprintf(stderr, "Warning: %s has no build-id: perf's cache cannot hold it\n",
				w->name);
			res->no_id++;
			continue;
		}
		/* Cannot fail: @id holds at most SECMAP_BUILD_ID_MAX bytes. */
		secmap_build_id_str(w->id, w->id_len, sid, sizeof(sid));
		if (secmap_ko_index_find(idx, w->name, w->id, w->id_len, &path)) {
			fprintf(stderr, "Warning: no .ko found for %s (build-id %s)\n", w->name, sid);
			res->missing++;
			continue;
		}
		err = secmap_ko_open(path, &ko);
		if (err) {
			p_err("archive: %s: %s", path, strerror(-err));
			free(path);
			break;
		}
		kid_len = secmap_ko_build_id(ko, &kid);
		if (kid_len != w->id_len || memcmp(kid, w->id, kid_len)) {
			res->mismatched++;
			if (!force) {
				p_err("archive: %s has another build-id than the recorded %s (%s); "
				      "--force leaves it out", path, w->name, sid);
				res->exit = SECMAP_EXIT_KO_MISMATCH;
				err = -EINVAL;
			} else {
				fprintf(stderr, "Warning: %s has another build-id than the recorded "
					"%s; left out\n", path, w->name);
			}
			secmap_ko_close(ko);
			free(path);
			continue;
		}
		size = secmap_ko_image(ko, &image);
		real = origin_path(path, cache, sid);
		err = real ? put_cached(a, real, w->id, w->id_len, "elf", image, size) : -ENOMEM;
		if (err)
			p_err("archive: cannot add %s: %s", path, strerror(-err));
		else
			res->packed++;
		free(real);
		secmap_ko_close(ko);
		free(path);
	}
	secmap_ko_index_free(idx);
	free(cache);
	return err;
}

static void job_free(struct archive_job *job)
{
	size_t i;

	for (i = 0; i < job->nr_mods; i++)
		free(job->mods[i].name);
	free(job->mods);
	free(job->kallsyms);
}

/* Everything the archive holds: module builds, perf's objects, kernel symbols. */
static int pack_all(struct archive *a, const struct archive_job *job, const char *recording,
		    struct secmap_ko_search *search, bool force, struct archive_result *res)
{
	int err;

	err = pack_modules(a, job, search, force, res);
	if (!err)
		err = pack_perf_objects(a, recording, search, res);
	if (!err && job->kallsyms_len && job->kernel_id_len)
		err = put_cached(a, "[kernel.kallsyms]", job->kernel_id, job->kernel_id_len,
				 "kallsyms", job->kallsyms, job->kallsyms_len);
	return err;
}

static void archive_summary(const char *output, const struct archive_job *job,
			    const struct archive_result *res)
{
	struct json_out *o;

	if (!json_output) {
		fprintf(stderr, "[ secmap archive: %zu of %zu module builds, %zu objects for perf%s in "
			"%s; unpack with: mkdir -p ~/.debug && tar -xJf %s -C ~/.debug ]\n",
			res->packed, job->nr_mods, res->objects,
			job->kallsyms_len && job->kernel_id_len ? " and kernel symbols" : "",
			output, output);
		return;
	}
	o = json_out_stream(stdout, pretty_output);
	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "output", output);
		json_out_u64(o, "modules", job->nr_mods);
		json_out_u64(o, "packed", res->packed);
		json_out_u64(o, "missing", res->missing + res->no_id);
		json_out_u64(o, "mismatched", res->mismatched);
		json_out_u64(o, "perf_objects", res->objects);
		json_out_bool(o, "kallsyms", job->kallsyms_len && job->kernel_id_len);
		json_out_object_end(o);
	}
	json_out_finish(o);
}

struct archive_opts {
	const char *input, *map;
	char *output;
	const char **paths;
	size_t nr_paths;
	bool force;
};

/* The command line into @o: -1 to go on, else the exit code. */
static int archive_options(int argc, char **argv, struct archive_opts *o)
{
	enum { OPT_KO_PATH = 256, OPT_FORCE };
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "input",	required_argument, NULL, 'i' },
		{ "map",	required_argument, NULL, 'm' },
		{ "output",	required_argument, NULL, 'o' },
		{ "ko-path",	required_argument, NULL, OPT_KO_PATH },
		{ "force",	no_argument,	   NULL, OPT_FORCE },
		{ 0 }
	};
	int opt;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+i:m:o:" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			archive_usage(stdout);
			return SECMAP_EXIT_OK;
		case 'i':
			o->input = optarg;
			break;
		case 'm':
			o->map = optarg;
			break;
		case 'o':
			free(o->output);
			o->output = strdup(optarg);
			if (!o->output)
				goto nomem;
			break;
		case OPT_KO_PATH:
			if (path_list_add(&o->paths, &o->nr_paths, optarg))
				goto nomem;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		default:
			if (optopt != 'i' && optopt != 'm' && optopt != 'o' && optopt != OPT_KO_PATH)
				return usage_error("archive", argv, archive_usage);
			p_err("archive: option '%s' needs a value", argv[optind - 1]);
			return SECMAP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return unexpected_argument("archive", argv[optind], archive_usage);
	return -1;
nomem:
	p_err("archive: out of memory");
	return SECMAP_EXIT_FAILURE;
}

int do_archive(int argc, char **argv)
{
	struct archive_opts o = { .input = "perf.data" };
	struct archive_result res = { .exit = SECMAP_EXIT_OK };
	SECMAP_OPTS(secmap_ko_search, search);
	struct archive_job job = { 0 };
	struct secmap_output *out_file = NULL;
	struct archive *a = NULL;
	const char *why = NULL, *recording;
	int ret, err;

	ret = archive_options(argc, argv, &o);
	if (ret >= 0)
		goto out;
	ret = SECMAP_EXIT_FAILURE;
	recording = o.map ? o.map : o.input;
	al = archive_lib_open(&why);
	if (!al) {
		p_err("archive: libarchive is needed to write the archive: %s", why);
		goto out;
	}
	err = read_recording(recording, &job);
	if (err) {
		p_err("archive: %s: %s", recording, recording_strerror(err));
		ret = recording_exit_code(err);
		goto out;
	}
	if (!o.output && asprintf(&o.output, "%s.secmap.tar.xz", recording) < 0) {
		o.output = NULL;
		p_err("archive: out of memory");
		goto out;
	}
	/* The recorded kernel's module tree, not the one this machine runs. */
	search.release = job.release[0] ? job.release : NULL;
	search.paths = o.paths;
	err = secmap_output_open(o.output, &out_file);
	if (err) {
		ret = output_error("archive: ", o.output, err);
		goto out;
	}
	a = al->write_new();
	if (!a || al->write_add_filter_xz(a) != ARCHIVE_OK ||
	    al->write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    al->write_open_fd(a, secmap_output_fd(out_file)) != ARCHIVE_OK) {
		p_err("archive: %s", a ? al->error_string(a) : "out of memory");
		goto out;
	}
	err = pack_all(a, &job, recording, &search, o.force, &res);
	if (err) {
		if (res.exit != SECMAP_EXIT_OK)
			ret = res.exit;
		goto out;
	}
	if (al->write_close(a) != ARCHIVE_OK) {
		p_err("archive: %s: %s", o.output, al->error_string(a));
		goto out;
	}
	err = secmap_output_commit(out_file, 0);
	if (err) {
		ret = output_error("archive: ", o.output, err);
		goto out;
	}
	archive_summary(o.output, &job, &res);
	/* Missing files are reported; the archive holds the rest. */
	ret = res.missing || res.no_id ? SECMAP_EXIT_NO_KO : SECMAP_EXIT_OK;
out:
	if (a)
		al->write_free(a);
	secmap_output_close(out_file);
	free(o.output);
	free(o.paths);
	job_free(&job);
	return ret;
}
