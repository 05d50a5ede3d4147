// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the sample walk of secmap report and script
 * (cli/samples.c): any bytes as the perf.data (through a memfd), walked
 * twice, callchains resolved both times:
 *
 *  - in time order (SAMPLE_WALK_ORDERED), with the fixed recording of
 *    fake modules and their .ko files, as perf_rewrite_fuzz has them;
 *  - in file order, with the recording the input holds if it holds one
 *    (no .ko read: its module names are the input's), else the fixed one.
 *
 * Every string of every sample and frame is read in full, so ASan sees a
 * pointer past its string or into freed memory. A sample without a comm,
 * a frame without a dso (report and script print both), or two walks
 * that end alike but hand out different samples abort, and the input is
 * kept as a finding: the order of the samples is all the two may differ in.
 *
 * SECMAP_FUZZ_REWRITE names a directory with rec.data (the recording) and
 * kos/ (its modules), which make fuzz prepares with tests/fake_modules.py.
 * What the walk reports goes to /dev/null unless SECMAP_FUZZ_VERBOSE is set.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fixture.h"
#include "samples.h"

static char rec_path[300], kos[300];
static const char *paths[2];
static volatile size_t sink;

/* What a walk handed out: how many samples, a sum that ignores their order, how it ended. */
struct tally {
	size_t nr;
	uint64_t sum;
	int end;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null;

	(void)argc;
	(void)argv;
	fuzz_fixture(kos, sizeof(kos), rec_path, sizeof(rec_path));
	paths[0] = kos;
	if (access(rec_path, R_OK) || access(kos, R_OK)) {
		fprintf(stderr, "%s, %s: not there\n", rec_path, kos);
		exit(2);
	}
	/* An empty home: no build-id cache of this host's for kernel symbols or .ko files. */
	setenv("HOME", fuzz_scratch_dir("samples_fuzz"), 1);
	/*
	 * The walk says what is wrong with a file on stderr, once an input:
	 * its FILE only is swapped, fd 2 stays for libFuzzer and the sanitizers.
	 */
	if (!getenv("SECMAP_FUZZ_VERBOSE") && (null = fopen("/dev/null", "w")))
		stderr = null;
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	return h * 0xbf58476d1ce4e5b9ull;
}

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static size_t touch_frame(const struct secmap_frame *f)
{
	if (!f->dso)
		abort();
	return strlen(f->dso) + touch(f->module) + touch(f->section) + touch(f->symbol) +
	       f->symbol_offset + f->section_offset + f->user;
}

/* Walk @path with the recording @map (NULL: the one @path holds); false if it did not open. */
static bool walk(const char *path, const char *map, bool no_ko, unsigned int flags,
		 struct tally *t)
{
	struct resolver_args args = {
		.input = path, .map = map, .paths = paths, .nr_paths = 1,
		.no_ko = no_ko, .quiet = true,
	};
	const struct sample_walk_lost *lost;
	const struct secmap_sample *s;
	struct sample_walk *w;
	size_t sum = 0, i, n;
	uint64_t h;

	memset(t, 0, sizeof(*t));
	if (sample_walk_open(&args, flags, &w))
		return false;
	n = sample_walk_nr_events(w);
	for (i = 0; i < n; i++)
		sum += strlen(sample_walk_event_name(w, i));
	while ((t->end = sample_walk_next(w, &s)) == 1) {
		if (!s->comm || (s->nr_chain && !s->chain) ||
		    (s->nr_chain && !(flags & SAMPLE_WALK_CHAIN)))
			abort();
		sum += strlen(s->comm) + touch_frame(s->frame);
		h = mix(mix(mix(mix(0, s->frame->ip), s->time), s->has_time | s->has_cpu << 1 |
			    (uint64_t)s->event_callchain << 2), s->event);
		h = mix(mix(mix(h, (uint32_t)s->pid | (uint64_t)(uint32_t)s->tid << 32), s->cpu),
			s->period);
		h = mix(h, s->nr_chain);
		for (i = 0; i < s->nr_chain; i++) {
			sum += touch_frame(secmap_frame_at(s->chain, i));
			h = mix(h, secmap_frame_at(s->chain, i)->ip);
		}
		t->sum += h;
		t->nr++;
	}
	lost = sample_walk_lost(w);
	sum += lost->chunks + lost->events + lost->samples + strlen(sample_walk_input(w)) +
	       (size_t)sample_walk_status(w);
	sample_walk_close(w);
	sink += sum;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally ordered, plain;
	bool own, a, b;
	char path[64];
	void *rec = NULL;
	size_t rec_len;
	int fd;

	fd = memfd_create("secmap-samples-fuzz", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	a = walk(path, rec_path, false, SAMPLE_WALK_CHAIN | SAMPLE_WALK_ORDERED, &ordered);
	own = !secmap_perf_read_recording(path, &rec, &rec_len);
	free(rec);
	b = walk(path, own ? NULL : rec_path, own, SAMPLE_WALK_CHAIN, &plain);
	/*
	 * The same records read, whatever the recording: the same end, and at
	 * a clean end the same samples, in another order.
	 */
	if (a && b && ((ordered.end < 0) != (plain.end < 0) ||
		       (!ordered.end && !plain.end &&
			(ordered.nr != plain.nr || ordered.sum != plain.sum))))
		abort();
	close(fd);
	return 0;
}
