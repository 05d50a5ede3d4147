// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for what secmap inject does besides the rewrite for
 * stock perf that perf_rewrite_fuzz covers: any bytes as the perf.data,
 *
 *  - read as it is: the recording it holds (a trailer, or the feature
 *    section 255 of earlier versions), and the file perf wrote (--strip),
 *    which holds none;
 *  - with the fixed recording embedded only (secmap inject --no-perf-maps):
 *    it reads back, strips back to the input (or to the file perf wrote,
 *    when the input held a recording already), and injecting again, with
 *    it or with another recording, replaces it: the same file again, or
 *    the other recording over the same perf file;
 *  - rewritten with perf maps on top of that, and back: a file holding a
 *    recording is restored first, from the trailer or the undo log, so
 *    embedding over the rewrite gives the embedded file again, and
 *    rewriting it again gives the same rewrite;
 *  - through the command (cli/inject.c), which explains a file it cannot
 *    take by reading its header again, and takes the recording from a
 *    perf.data too: its file is the library's, byte for byte.
 *
 * Anything else aborts, and the input is kept as a finding.
 *
 * SECMAP_FUZZ_REWRITE names a directory with rec.data (the recording) and
 * kos/ (its modules), which make fuzz prepares with tests/fake_modules.py.
 * The command's messages go to /dev/null unless SECMAP_FUZZ_VERBOSE is set.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "secmap_cli.h"

static struct secmap_perf_maps *maps;
static char rec_path[300];
static char in_path[300], orig_path[300], out1[300], out2[300], out3[300], back_path[300];
static char cli_out[300];
static uint8_t *rec, *rec2;
static size_t rec_len, rec2_len;

static bool same(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
	return a_len == b_len && !memcmp(a, b, a_len);
}

/* The file at @path holds @len bytes at @data; abort otherwise. */
static void expect_file(const char *path, const void *data, size_t len)
{
	size_t got_len;
	uint8_t *got = fuzz_slurp(path, &got_len);

	if (!got || !same(got, got_len, data, len))
		abort();
	free(got);
}

static void expect_same_files(const char *a, const char *b)
{
	size_t len;
	uint8_t *buf = fuzz_slurp(a, &len);

	if (!buf)
		abort();
	expect_file(b, buf, len);
	free(buf);
}

static bool holds_recording(const char *path)
{
	void *got = NULL;
	size_t len;
	int err = secmap_perf_read_recording(path, &got, &len);

	free(got);
	return !err;
}

/* @path holds the recording @want (@len bytes). */
static void expect_recording(const char *path, const void *want, size_t len)
{
	void *got = NULL;
	size_t got_len = 0;

	if (secmap_perf_read_recording(path, &got, &got_len) || !same(got, got_len, want, len))
		abort();
	free(got);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char kos[300], cache[300];
	static const char *paths[2];
	SECMAP_OPTS(secmap_ko_search, search, .paths = paths);
	SECMAP_OPTS(secmap_resolver_opts, ropts, .search = &search);
	struct secmap_perf_maps_opts mopts = { .sz = sizeof(mopts), .buildid_dir = cache };
	static struct secmap_resolver *res;
	const char *dir;
	FILE *null;

	(void)argc;
	(void)argv;
	fuzz_fixture(kos, sizeof(kos), rec_path, sizeof(rec_path));
	paths[0] = kos;
	dir = fuzz_scratch_dir("inject_fuzz");
	snprintf(cache, sizeof(cache), "%s/.debug", dir);
	snprintf(in_path, sizeof(in_path), "%s/in.data", dir);
	snprintf(orig_path, sizeof(orig_path), "%s/orig.data", dir);
	snprintf(out1, sizeof(out1), "%s/out1.data", dir);
	snprintf(out2, sizeof(out2), "%s/out2.data", dir);
	snprintf(out3, sizeof(out3), "%s/out3.data", dir);
	snprintf(back_path, sizeof(back_path), "%s/back.data", dir);
	snprintf(cli_out, sizeof(cli_out), "%s/cli.data", dir);
	rec = fuzz_slurp(rec_path, &rec_len);
	/* Another recording, to replace the first: its header alone is one (no records). */
	rec2_len = 64;
	if (!rec || rec_len < rec2_len || !(rec2 = malloc(rec2_len)))
		abort();
	memcpy(rec2, rec, rec2_len);
	if (secmap_resolver_new(&ropts, &res) || secmap_resolver_load(res, rec_path) ||
	    secmap_perf_maps_new(res, &mopts, &maps) || secmap_perf_maps_install(maps) ||
	    !secmap_perf_maps_nr_objects(maps)) {
		fprintf(stderr, "perf maps of %s with %s: none\n", rec_path, kos);
		exit(2);
	}
	/* Its FILE only: fd 2 stays for libFuzzer and the sanitizers. */
	if (!getenv("SECMAP_FUZZ_VERBOSE") && (null = fopen("/dev/null", "w")))
		stderr = null;
	return 0;
}

/* secmap_perf_inject_ext() into @out: 0, or its error; *@restored as the stats say. */
static int inject(const char *in, const char *out, const void *data, size_t len,
		  const struct secmap_perf_maps *with, bool *restored)
{
	struct secmap_perf_inject_opts opts = { .sz = sizeof(opts), .maps = with };
	struct secmap_perf_inject_stats stats = { .sz = sizeof(stats) };
	int err;

	err = secmap_perf_inject_ext(in, out, data, len, &opts, &stats);
	if (restored)
		*restored = stats.restored;
	return err;
}

/* The command on the input: --strip, and the recording from the input itself. */
static void through_cli(int stripped, const void *own, size_t own_len, const char *embedded,
			int embed_err)
{
	struct inject_args args = {
		.input = in_path, .output = cli_out, .strip = true, .quiet = true,
		.no_summary = true,
	};
	int ret;

	/* It says why, or writes what the library writes. */
	ret = inject_recording(&args);
	if ((ret == SECMAP_EXIT_OK) != !stripped)
		abort();
	if (!ret)
		expect_same_files(orig_path, cli_out);
	unlink(cli_out);

	args.strip = false;
	args.map = rec_path;
	ret = inject_recording(&args);
	if ((ret == SECMAP_EXIT_OK) != !embed_err)
		abort();
	if (!ret)
		expect_same_files(embedded, cli_out);
	unlink(cli_out);

	/* -m the input: the recording it holds, checked, embedded again. */
	args.map = in_path;
	ret = inject_recording(&args);
	if (!ret && (!own || secmap_data_validate(own, own_len)))
		abort();
	if (!ret) {
		expect_recording(cli_out, own, own_len);
		if (stripped || secmap_perf_strip(cli_out, back_path))
			abort();
		expect_same_files(orig_path, back_path);
	}
	unlink(cli_out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *own = NULL;
	size_t own_len = 0;
	bool restored, again;
	int stripped, own_err, err;
	FILE *f = fopen(in_path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();

	/* As it is: a file that strips holds a recording, and the stripped one none. */
	own_err = secmap_perf_read_recording(in_path, &own, &own_len);
	stripped = secmap_perf_strip(in_path, orig_path);
	if (!stripped && (own_err || holds_recording(orig_path)))
		abort();

	/* The recording embedded: read back, stripped back, replaced. */
	err = inject(in_path, out1, rec, rec_len, NULL, &restored);
	through_cli(stripped, own_err ? NULL : own, own_len, out1, err);
	if (err)
		goto out;
	expect_recording(out1, rec, rec_len);
	if (secmap_perf_strip(out1, back_path) || (restored && stripped))
		abort();
	if (restored)
		expect_same_files(orig_path, back_path);
	else
		expect_file(back_path, data, size);
	/* back.data is perf's file from here on. */
	if (inject(out1, out2, rec, rec_len, NULL, &again) || !again)
		abort();
	expect_same_files(out1, out2);
	if (inject(out1, out2, rec2, rec2_len, NULL, NULL))
		abort();
	expect_recording(out2, rec2, rec2_len);
	if (secmap_perf_strip(out2, orig_path))
		abort();
	expect_same_files(back_path, orig_path);

	/* Perf maps over the embedded file, then embedded only and rewritten again. */
	if (inject(out1, out3, rec, rec_len, maps, &again))
		goto out;
	if (!again)
		abort();
	expect_recording(out3, rec, rec_len);
	if (secmap_perf_strip(out3, orig_path))
		abort();
	expect_same_files(back_path, orig_path);
	if (inject(out3, out2, rec, rec_len, NULL, NULL))
		abort();
	expect_same_files(out1, out2);
	if (inject(out3, out2, rec, rec_len, maps, NULL))
		abort();
	expect_same_files(out3, out2);
out:
	free(own);
	unlink(orig_path);
	unlink(out1);
	unlink(out2);
	unlink(out3);
	unlink(back_path);
	return 0;
}
