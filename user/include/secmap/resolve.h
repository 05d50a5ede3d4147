/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap, resolving addresses: the resolver of a recording, and the live
 * resolver of a profiling agent.
 * Part of secmap.h: include <secmap/secmap.h>, not this file.
 */
#ifndef SECMAP_RESOLVE_H
#define SECMAP_RESOLVE_H

#include "secmap/recording.h"
#include "secmap/ko.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The resolver: where an address was, at a time. Feed it a recording's
 * records in file order (secmap_resolver_add(), or secmap_resolver_load()
 * for a whole file), then secmap_resolver_finish() finds each module
 * build's .ko (as secmap_ko_find() does, for the recorded kernel release
 * unless @search names one), reads its symbols and builds the index. Then
 * secmap_resolve() answers in any order, from any number of threads.
 *
 * Times are in the clock the samples use: perf's default is the kernel's
 * local_clock (SECMAP_CLOCK_LOCAL), `perf record -k monotonic` gives
 * SECMAP_CLOCK_MONO. SECMAP_TIME_ANY matches a mapping of any time (the
 * latest to start, where several covered the address).
 *
 * A .ko whose build-id differs from the recorded one is not used (the
 * module's addresses still resolve to section+offset, with the reason)
 * unless @force. Errors: -EINVAL, -ENOMEM, -EBADMSG (records that do not
 * fit together: a snapshot cut short, kallsyms pieces out of order).
 */
enum secmap_clock {
	SECMAP_CLOCK_LOCAL,	/* local_clock(): perf's default sample clock */
	SECMAP_CLOCK_MONO,	/* CLOCK_MONOTONIC */
};
#define SECMAP_TIME_ANY UINT64_MAX

struct secmap_resolver_opts {
	size_t sz;
	const struct secmap_ko_search *search;	/* NULL: the defaults */
	enum secmap_clock clock;
	bool force;		/* use a .ko of another build-id */
	bool no_ko;		/* sections only: read no .ko */
};

enum secmap_resolved_kind {
	SECMAP_RESOLVED_MODULE = 1,	/* in a module: @module, maybe @section, @symbol */
	SECMAP_RESOLVED_KERNEL,		/* in the core kernel: @symbol from kallsyms */
};

/*
 * A resolved address. Strings belong to the resolver. For a module:
 * @section is NULL when the address is inside the module but in no
 * recorded section (@section_offset is then from @map_start, the start of
 * that part of the module); @symbol is NULL when it is in no symbol or no
 * .ko was read; @reason then says why, in a few words.
 */
struct secmap_resolution {
	size_t sz;			/* the caller's sizeof; filled up to it */
	enum secmap_resolved_kind kind;
	const char *module;		/* "[kernel.kallsyms]" (perf's name) for the core kernel */
	const uint8_t *build_id;
	size_t build_id_len;
	const char *section;
	uint64_t section_offset;
	uint64_t map_start;
	uint32_t map_flags;		/* SECMAP_MAP_F_*, SECMAP_RESOLVED_F_* */
	const char *symbol;
	uint64_t symbol_offset;
	const char *reason;
	/*
	 * Where the address is in the module's ELF file (its section's
	 * sh_offset plus @section_offset, perf's pgoff-based offset): with
	 * @build_id, what a symbol server needs. 0 when @section is NULL or
	 * the section's offset was not recorded nor read from a .ko.
	 */
	uint64_t file_offset;
};

/*
 * In a resolution's map_flags: the mapping was first seen in the snapshot
 * after a gap (events lost, secmap.ko reloaded) and @time is inside that
 * gap: the module may have loaded after @time. @reason says so too.
 */
#define SECMAP_RESOLVED_F_IN_GAP (1u << 31)

struct secmap_resolver;
int secmap_resolver_new(const struct secmap_resolver_opts *opts, struct secmap_resolver **res);
void secmap_resolver_free(struct secmap_resolver *res);
int secmap_resolver_add(struct secmap_resolver *res, const struct secmap_record *rec);
int secmap_resolver_finish(struct secmap_resolver *res);
/* secmap_reader_open(@path) (secmap.data or perf.data), add every record, finish. */
int secmap_resolver_load(struct secmap_resolver *res, const char *path);
/* 0 and *@out, or -ENOENT: in no module and not in the core kernel's text. */
int secmap_resolve(const struct secmap_resolver *res, uint64_t addr, uint64_t time,
		   struct secmap_resolution *out);
/*
 * secmap_resolve() of @n addresses (at @times, or any time if NULL) into
 * the @i-th element of @out, its return value in @ret[i]: faster than one
 * by one, as the memory of lookups to come is fetched while earlier ones
 * are answered. @out's elements are @out->sz (the first one's) apart: the
 * caller's sizeof, set in the first element at least.
 */
void secmap_resolve_many(const struct secmap_resolver *res, const uint64_t *addrs,
			 const uint64_t *times, size_t n, struct secmap_resolution *out, int *ret);

/*
 * The module builds the recording names, and what became of their .ko:
 * @path the file used (NULL if none), @err why none: -ENOENT not found,
 * -ESTALE another build-id (without force), -EDQUOT not read because the
 * .ko files before it decompressed to 1 GiB (all one resolver decompresses:
 * a few small .ko.zst could otherwise hold gigabytes), else why it could
 * not be read.
 */
struct secmap_resolver_module {
	size_t sz;		/* the caller's sizeof; filled up to it */
	const char *name;
	const uint8_t *build_id;
	size_t build_id_len;
	const char *path;
	int err;
};
size_t secmap_resolver_nr_modules(const struct secmap_resolver *res);
int secmap_resolver_module(const struct secmap_resolver *res, size_t idx,
			   struct secmap_resolver_module *mod);
/* Mappings indexed (module footprints included) and kernel text symbols read. */
size_t secmap_resolver_nr_maps(const struct secmap_resolver *res);
size_t secmap_resolver_nr_kernel_symbols(const struct secmap_resolver *res);

/*
 * A live resolver, for a profiling agent that resolves addresses as it
 * samples while modules come and go: one thread adds records (a
 * secmap_recorder's, or a recording's) and publishes; any number of
 * threads resolve meanwhile, without waiting.
 *
 * secmap_live_publish() makes what was added so far visible: it builds a
 * new finished resolver from every record (a replay, then what
 * secmap_resolver_finish() does; the .ko files are read once for the
 * handle's life), swaps it in, then waits until no reader holds the one it
 * replaced, and frees that. 0 (also when nothing was added since), or the
 * finish's error (the last generation stays current). Publish between
 * batches of records, not inside a snapshot's.
 *
 * secmap_live_enter() returns the current generation (NULL before the
 * first publish), for secmap_resolve(), secmap_resolve_many() and the
 * resolver's getters; it and the strings of its resolutions stay valid
 * until secmap_live_exit() with the same @token. Keep the two close: a
 * publish waits for the readers inside. Enter/exit pairs may nest and
 * interleave across threads; never publish between one's own pair.
 *
 * Records are kept (copied) for the handle's life: memory grows by about a
 * hundred bytes per section of every load. secmap_live_add(): 0, -ENOMEM,
 * or what secmap_resolver_add() refuses (-EINVAL, -EBADMSG; the record is
 * then dropped, those before it kept). @opts->resolver's search strings
 * must outlive the handle.
 */
struct secmap_live_opts {
	size_t sz;
	const struct secmap_resolver_opts *resolver;	/* NULL: the defaults */
};
struct secmap_live;
int secmap_live_new(const struct secmap_live_opts *opts, struct secmap_live **live);
void secmap_live_free(struct secmap_live *live);
int secmap_live_add(struct secmap_live *live, const struct secmap_record *rec);
int secmap_live_publish(struct secmap_live *live);
const struct secmap_resolver *secmap_live_enter(struct secmap_live *live, unsigned int *token);
void secmap_live_exit(struct secmap_live *live, unsigned int token);
/* How many generations were published; records added so far. */
uint64_t secmap_live_generations(const struct secmap_live *live);
size_t secmap_live_nr_records(const struct secmap_live *live);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_RESOLVE_H */
