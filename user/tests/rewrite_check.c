// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data rewrite for stock perf against damaged input:
 * secmap_perf_inject_ext() with perf maps on a file cut at every byte of
 * its header, attrs and tail, around every record boundary and at a stride
 * through its data, and with bytes changed at random. Each time: 0 or a
 * negative errno, the input as it was, no file left behind; and a file
 * written reads back the recording and strips back to its input, byte for
 * byte (so no record was lost or changed on the way). Then the same with
 * bytes changed after perf's part of an injected file, in the recording,
 * undo log and trailer, which the trailer's hash does not cover: strip
 * and inject fail, or give back perf's file byte for byte. Under ASan and
 * UBSan in the sanitize build. tests/perf_maps_test.sh runs it on its files.
 *
 *   rewrite_check PERF_DATA RECORDING KO_DIR [CHANGES]
 *
 * TAP on stdout; exit 1 on a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secmap.h"

struct bytes {
	unsigned char *p;
	size_t len;
};

static char dir[256], in_path[300], out_path[300], back_path[300];
static struct bytes rec;
static const struct secmap_perf_maps *maps;
static int failures;

static int load(const char *path, struct bytes *b)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	b->len = (size_t)st.st_size;
	b->p = malloc(b->len ? b->len : 1);
	if (!b->p || pread(fd, b->p, b->len, 0) != (ssize_t)b->len)
		return -1;
	close(fd);
	return 0;
}

static int store(const char *path, const unsigned char *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, p, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static bool same_file(const char *path, const unsigned char *p, size_t len)
{
	struct bytes b = { 0 };
	bool same = !load(path, &b) && b.len == len && !memcmp(b.p, p, len);

	free(b.p);
	return same;
}

static int entries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';	/* the build-id cache is .debug */
	if (d)
		closedir(d);
	return n;
}

/* One input: what must hold whatever the inject says. Prints why not, once. */
static void try(const unsigned char *p, size_t len, const char *what)
{
	struct secmap_perf_inject_opts opts = { .sz = sizeof(opts), .maps = maps };
	void *data = NULL;
	size_t got = 0;
	const char *bad = NULL;
	int err;

	if (store(in_path, p, len)) {
		bad = "cannot write the input";
		goto out;
	}
	err = secmap_perf_inject_ext(in_path, out_path, rec.p, rec.len, &opts, NULL);
	if (err > 0 || (err && err > -4096 && errno != -err)) {
		bad = "not 0 or -errno with errno set";
	} else if (!same_file(in_path, p, len)) {
		bad = "input changed";
	} else if (entries() != (err ? 1 : 2)) {
		bad = "a file left behind, or none written";
	} else if (!err) {
		if (secmap_perf_read_recording(out_path, &data, &got) || got != rec.len ||
		    memcmp(data, rec.p, got))
			bad = "the recording does not read back";
		else if (secmap_perf_strip(out_path, back_path) || !same_file(back_path, p, len))
			bad = "strip does not give the input back";
		unlink(back_path);
		unlink(out_path);
	}
out:
	free(data);
	if (bad && failures++ < 5)
		printf("# %s: %s\n", what, bad);
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}
/*
 * Bytes changed in what an inject appended: strip, and inject again (which
 * strips first), each fail or give back perf's file @perf exactly.
 */
static int changed_tail(const struct bytes *perf, size_t changes)
{
	struct secmap_perf_inject_opts opts = { .sz = sizeof(opts), .maps = maps };
	struct bytes inj = { 0 };
	unsigned char *copy;
	uint64_t perf_size;
	size_t i, at, data_len;
	void *data = NULL;
	char what[64];
	bool gone;
	int err;

	if (store(in_path, perf->p, perf->len) ||
	    secmap_perf_inject_ext(in_path, out_path, rec.p, rec.len, &opts, NULL) ||
	    load(out_path, &inj) || inj.len < perf->len + 72) {
		printf("# cannot inject the unchanged file\n");
		failures++;
		return -1;
	}
	unlink(out_path);
	perf_size = le64(inj.p + inj.len - 72);
	copy = malloc(inj.len);
	srand(25);
	for (i = 0; copy && perf_size < inj.len && i < changes; i++) {
		at = (size_t)(perf_size + (uint64_t)rand() % (inj.len - perf_size));
		memcpy(copy, inj.p, inj.len);
		copy[at] ^= (unsigned char)(1 + rand() % 255);
		snprintf(what, sizeof(what), "injected file, byte %zu changed", at);
		if (store(in_path, copy, inj.len))
			break;
		err = secmap_perf_strip(in_path, back_path);
		if (err > 0 || (!err && !same_file(back_path, perf->p, perf->len))) {
			if (failures++ < 5)
				printf("# %s: strip gives something else than perf's file\n", what);
		}
		unlink(back_path);
		/*
		 * A trailer no longer found (its magic changed) leaves a file
		 * like one perf inject rewrote: secmap's maps without the
		 * recording (-ENOLINK). Injecting into it is allowed, but what
		 * perf wrote is gone with the undo log.
		 */
		gone = secmap_perf_read_recording(in_path, &data, &data_len) == -ENOLINK;
		free(data);
		data = NULL;
		err = secmap_perf_inject_ext(in_path, out_path, rec.p, rec.len, &opts, NULL);
		if (!err && !gone && (secmap_perf_strip(out_path, back_path) ||
				      !same_file(back_path, perf->p, perf->len))) {
			if (failures++ < 5)
				printf("# %s: inject again does not start from perf's file\n", what);
		}
		unlink(back_path);
		unlink(out_path);
		if (entries() != 1 && failures++ < 5)
			printf("# %s: a file left behind\n", what);
	}
	free(copy);
	free(inj.p);
	return failures ? -1 : 0;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}


int main(int argc, char **argv)
{
	SECMAP_OPTS(secmap_ko_search, search);
	SECMAP_OPTS(secmap_resolver_opts, ropts, .search = &search);
	struct secmap_perf_maps_opts mopts = { .sz = sizeof(mopts) };
	const char *paths[2] = { NULL, NULL };
	struct secmap_resolver *res = NULL;
	struct secmap_perf_maps *pm = NULL;
	unsigned char *cut_at, *copy;
	char cache[300], what[64];
	struct bytes perf = { 0 };
	uint64_t data_off, data_end, pos;
	size_t i, n, changes = argc > 4 ? strtoul(argv[4], NULL, 10) : 2000, cuts = 0;
	int ret = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: %s PERF_DATA RECORDING KO_DIR [CHANGES]\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/rewrite_check.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(dir) || load(argv[1], &perf) || load(argv[2], &rec) ||
	    perf.len < 104) {
		printf("not ok 1 - fixtures: %s\n", strerror(errno));
		return 1;
	}
	snprintf(in_path, sizeof(in_path), "%s/in.data", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.data", dir);
	snprintf(back_path, sizeof(back_path), "%s/back.data", dir);
	snprintf(cache, sizeof(cache), "%s/.debug", dir);
	paths[0] = argv[3];
	search.paths = paths;
	mopts.buildid_dir = cache;
	if (secmap_resolver_new(&ropts, &res) || secmap_resolver_load(res, argv[2]) ||
	    secmap_perf_maps_new(res, &mopts, &pm) ||
	    secmap_perf_maps_install(pm) || !secmap_perf_maps_nr_objects(pm)) {
		printf("not ok 1 - perf maps of the recording: %s\n", strerror(errno));
		goto out;
	}
	maps = pm;

	/* Cut: every byte outside the data, around each record, each 97th byte. */
	cut_at = calloc(perf.len + 1, 1);
	data_off = le64(perf.p + 40);
	data_end = data_off + le64(perf.p + 48);
	if (!cut_at || data_end > perf.len || data_off > data_end)
		goto out;
	for (i = 0; i <= perf.len; i++)
		cut_at[i] = i < data_off || i >= data_end || i % 97 == 0;
	for (pos = data_off; pos + 8 <= data_end; pos += n) {
		n = perf.p[pos + 6] | perf.p[pos + 7] << 8;
		if (n < 8)
			break;
		cut_at[pos - 1] = cut_at[pos] = cut_at[pos + 1] = 1;
	}
	for (i = 0; i < perf.len; i++) {
		if (!cut_at[i])
			continue;
		snprintf(what, sizeof(what), "cut at %zu", i);
		try(perf.p, i, what);
		cuts++;
	}
	free(cut_at);
	printf("%s 1 - %zu cuts of a %zu-byte perf.data: an error or a file that strips back\n",
	       failures ? "not ok" : "ok", cuts, perf.len);
	ret = failures ? 1 : 0;

	/* Changed bytes: half in the header, attrs and first records, half anywhere. */
	failures = 0;
	copy = malloc(perf.len);
	srand(24);
	for (i = 0; copy && i < changes; i++) {
		size_t span = i % 2 ? perf.len : (data_off + 4096 < perf.len ? data_off + 4096 :
						  perf.len);
		size_t at = (size_t)rand() % span;
		unsigned char x = (unsigned char)(1 + rand() % 255);

		memcpy(copy, perf.p, perf.len);
		copy[at] ^= x;
		snprintf(what, sizeof(what), "byte %zu ^ %#x", at, x);
		try(copy, perf.len, what);
	}
	free(copy);
	printf("%s 2 - %zu changed bytes: an error or a file that strips back\n",
	       failures ? "not ok" : "ok", changes);
	ret |= failures ? 1 : 0;
	failures = 0;
	ret |= changed_tail(&perf, changes) ? 1 : 0;
	printf("%s 3 - %zu changed bytes after perf's part of an injected file: an error, or "
	       "perf's file back\n", failures ? "not ok" : "ok", changes);
	printf("1..3\n");
out:
	secmap_perf_maps_free(pm);
	secmap_resolver_free(res);
	free(perf.p);
	free(rec.p);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return ret;
}
