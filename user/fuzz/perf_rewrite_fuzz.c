// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data rewrite for stock perf: any bytes as
 * the perf.data, injected with the perf maps of a fixed recording of fake
 * modules. A rewrite that succeeds must read the recording back and strip
 * back to the input, byte for byte (to the file perf wrote, the input
 * stripped, when the input held a recording already: a trailer, or
 * earlier versions' feature section 255): anything else aborts, and the
 * input is kept as a finding.
 *
 * SECMAP_FUZZ_REWRITE names a directory with rec.data (the recording) and
 * kos/ (its modules), which make fuzz prepares with tests/fake_modules.py.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "secmap.h"

static struct secmap_perf_maps *maps;
static struct secmap_resolver *res;
static char in_path[300], out_path[300], back_path[300];
static uint8_t *rec, *back;
static size_t rec_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char kos[300], rec_path[300], cache[300];
	static const char *paths[2];
	SECMAP_OPTS(secmap_ko_search, search, .paths = paths);
	SECMAP_OPTS(secmap_resolver_opts, ropts, .search = &search);
	struct secmap_perf_maps_opts mopts = { .sz = sizeof(mopts), .buildid_dir = cache };
	const char *dir;

	(void)argc;
	(void)argv;
	fuzz_fixture(kos, sizeof(kos), rec_path, sizeof(rec_path));
	paths[0] = kos;
	dir = fuzz_scratch_dir("perf_rewrite_fuzz");
	snprintf(cache, sizeof(cache), "%s/.debug", dir);
	snprintf(in_path, sizeof(in_path), "%s/in.data", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.data", dir);
	snprintf(back_path, sizeof(back_path), "%s/back.data", dir);
	rec = fuzz_slurp(rec_path, &rec_len);
	if (secmap_resolver_new(&ropts, &res) || secmap_resolver_load(res, rec_path) ||
	    secmap_perf_maps_new(res, &mopts, &maps) || secmap_perf_maps_install(maps) ||
	    !secmap_perf_maps_nr_objects(maps)) {
		fprintf(stderr, "perf maps of %s with %s: none\n", rec_path, kos);
		exit(2);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct secmap_perf_inject_opts opts = { .sz = sizeof(opts), .maps = maps };
	struct secmap_perf_inject_stats stats = { .sz = sizeof(stats) };
	FILE *f = fopen(in_path, "wb");
	const uint8_t *want = data;
	uint8_t *perf = NULL;
	void *got = NULL;
	size_t got_len = 0, back_len, want_len = size;

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (secmap_perf_inject_ext(in_path, out_path, rec, rec_len, &opts, &stats))
		return 0;
	/* Written: the recording reads back, and the input comes back whole. */
	if (secmap_perf_read_recording(out_path, &got, &got_len) || got_len != rec_len ||
	    memcmp(got, rec, rec_len))
		abort();
	free(got);
	/* Or the file perf wrote, when the input was that with a recording. */
	if (stats.restored) {
		if (secmap_perf_strip(in_path, back_path))
			abort();
		want = perf = fuzz_slurp(back_path, &want_len);
	}
	if (secmap_perf_strip(out_path, back_path))
		abort();
	back = fuzz_slurp(back_path, &back_len);
	if (back_len != want_len || memcmp(back, want, want_len))
		abort();
	free(back);
	free(perf);
	unlink(out_path);
	unlink(back_path);
	return 0;
}
