/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* libsecmap private: the perf.data data-section rewriter (perf_rewrite.c). */
#ifndef LIBSECMAP_PERF_REWRITE_H
#define LIBSECMAP_PERF_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/*
 * At @offset in the data section written (from its start), @inserted bytes
 * of new records in place of the @removed bytes at input offset
 * @removed_at: struct secmap_perf_undo_edit, with where to find them.
 */
struct libsecmap_rewrite_edit {
	uint64_t offset, inserted;
	uint64_t removed_at, removed;
};

struct libsecmap_rewrite {
	uint64_t data_end;		/* where the data section written ends */
	struct libsecmap_rewrite_edit *edits;
	size_t nr_edits, cap_edits;
	uint64_t records, removed, maps, unmaps;
	uint64_t bad_offset;		/* of a record refused */
	/* HEADER_BUILD_ID as written, when the input had one. */
	uint8_t *build_ids;
	size_t build_ids_len;
	bool has_build_ids;
};

/*
 * Write the data section of @pf's file (@c->in) to @c->out, at the same
 * offset, rewritten for stock perf with @maps. -ENOTSUP: the records carry
 * no time (no sample_id_all or PERF_SAMPLE_TIME), a clock secmap does not
 * record, or perf's module maps inside compressed records; -EBADMSG: a
 * record out of bounds (@out->bad_offset).
 */
int libsecmap_perf_rewrite_data(struct libsecmap_copier *c, const struct libsecmap_perf_file *pf,
				const struct secmap_perf_maps *maps, struct libsecmap_rewrite *out);
/* The build-id table without the replaced modules' files, with the objects of @maps. */
int libsecmap_perf_rewrite_build_ids(int fd, const struct libsecmap_perf_file *pf,
				     const struct secmap_perf_maps *maps,
				     struct libsecmap_rewrite *out);
void libsecmap_rewrite_release(struct libsecmap_rewrite *out);
/*
 * A map or unmap secmap wrote into a perf.data (@rec as decoded, @raw its
 * bytes): what a rewrite takes out again, and the sign of a recording
 * dropped since.
 */
bool libsecmap_perf_is_our_record(const struct secmap_perf_record *rec, const uint8_t *raw);

#endif /* LIBSECMAP_PERF_REWRITE_H */
