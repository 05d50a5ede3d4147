/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the recording's writer (writer.c) and reader (reader.c) share of
 * uapi/linux/secmap_record.h: the layout, checked at build time, and how
 * variable-length fields are padded.
 */
#ifndef LIBSECMAP_RECORDING_FORMAT_H
#define LIBSECMAP_RECORDING_FORMAT_H

#include <stddef.h>

#include "internal.h"

/* The layout is the contract: sizes and offsets may never change within a major. */
#define ASSERT_LAYOUT(type, member, off) \
	_Static_assert(offsetof(struct type, member) == (off), #type "." #member " moved")
_Static_assert(sizeof(struct secmap_file_header) == 64, "file header size");
ASSERT_LAYOUT(secmap_file_header, major, 8);
ASSERT_LAYOUT(secmap_file_header, header_size, 12);
ASSERT_LAYOUT(secmap_file_header, flags, 16);
_Static_assert(sizeof(struct secmap_rec_header) == 8, "record header size");
ASSERT_LAYOUT(secmap_rec_header, misc, 4);
ASSERT_LAYOUT(secmap_rec_header, size, 6);
_Static_assert(sizeof(struct secmap_rec_kernel) == 48, "kernel record size");
ASSERT_LAYOUT(secmap_rec_kernel, time_local_ns, 16);
ASSERT_LAYOUT(secmap_rec_kernel, ref_addr, 32);
ASSERT_LAYOUT(secmap_rec_kernel, release_len, 40);
ASSERT_LAYOUT(secmap_rec_kernel, build_id_len, 44);
_Static_assert(sizeof(struct secmap_rec_kallsyms) == 24, "kallsyms record size");
ASSERT_LAYOUT(secmap_rec_kallsyms, len, 12);
ASSERT_LAYOUT(secmap_rec_kallsyms, offset, 16);
_Static_assert(sizeof(struct secmap_rec_resync) == 64, "resync record size");
ASSERT_LAYOUT(secmap_rec_resync, time_local_ns, 16);
ASSERT_LAYOUT(secmap_rec_resync, lost, 32);
ASSERT_LAYOUT(secmap_rec_resync, gap_mono_ns, 48);
ASSERT_LAYOUT(secmap_rec_resync, nr_maps, 56);
_Static_assert(sizeof(struct secmap_rec_sec_map) == 72, "sec_map record size");
ASSERT_LAYOUT(secmap_rec_sec_map, pid, 8);
ASSERT_LAYOUT(secmap_rec_sec_map, time_local_ns, 16);
ASSERT_LAYOUT(secmap_rec_sec_map, start, 32);
ASSERT_LAYOUT(secmap_rec_sec_map, pgoff, 48);
ASSERT_LAYOUT(secmap_rec_sec_map, seq, 56);
ASSERT_LAYOUT(secmap_rec_sec_map, section_len, 64);
ASSERT_LAYOUT(secmap_rec_sec_map, build_id_len, 68);
_Static_assert(sizeof(struct secmap_rec_unmap) == 48, "unmap record size");
ASSERT_LAYOUT(secmap_rec_unmap, seq, 32);
ASSERT_LAYOUT(secmap_rec_unmap, module_len, 40);
ASSERT_LAYOUT(secmap_rec_unmap, build_id_len, 42);
_Static_assert(sizeof(struct secmap_rec_finished) == 40, "finished record size");
ASSERT_LAYOUT(secmap_rec_finished, time_local_ns, 16);
ASSERT_LAYOUT(secmap_rec_finished, lost, 32);

static inline size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A string takes its bytes, at least one NUL, and NULs up to a multiple of 8. */
static inline size_t str_space(size_t len)
{
	return pad8(len + 1);
}

#endif /* LIBSECMAP_RECORDING_FORMAT_H */
