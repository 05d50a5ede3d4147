/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap: read where the kernel loaded each section of each module.
 *
 * Conventions (as libbpf): opaque handles, functions named object_verb,
 * negative errno on failure (errno is set too), no printing from the
 * library. Handles returned by a snapshot belong to it and stay valid
 * until secmap_snapshot_free().
 *
 * Threads. The library keeps no mutable global state but the table of
 * secmap_output_remove_temporaries() (atomic); the environment (HOME,
 * TMPDIR) is only read. Distinct handles may be used from different
 * threads at once. One handle shared by threads:
 * - secmap_snapshot and what it returns (modules, sections, regions),
 *   secmap_event, secmap_reader's getters, secmap_perf_data's getters,
 *   secmap_perf_maps (but secmap_perf_maps_install(), alone): read-only,
 *   safe to share.
 * - secmap_resolver: one thread adds and finishes; once
 *   secmap_resolver_finish() has returned (and the handle is handed over
 *   after that), secmap_resolve(), secmap_resolve_many() and the getters
 *   may run from any number of threads.
 * - secmap_live: one thread adds and publishes; enter, resolve and exit
 *   from any number of threads at once, while it does.
 * - secmap_client, secmap_family_watch, secmap_writer, secmap_output,
 *   secmap_recorder, secmap_session, secmap_ko_index (its finds load
 *   places lazily), secmap_ko (libelf loads tables on first use),
 *   secmap_ko_tables (its tables are made on first lookup), and the
 *   moving calls of the readers (secmap_reader_next(),
 *   secmap_perf_data_next()): one thread at a time, or the caller's lock.
 * - secmap_error_reason() is per thread; secmap_set_print() is global
 *   (atomic), and the printer may be called from any thread.
 */
#ifndef SECMAP_H
#define SECMAP_H

/*
 * The parts, each with its own header under secmap/ (installed beside
 * this one); include this one. How structs grow: "Sizes", in
 * secmap/common.h.
 */
#include "secmap/common.h"	/* sizes, build-ids as text, outputs, messages */
#include "secmap/kernel.h"	/* netlink client, events, snapshots, sysfs, kernel info */
#include "secmap/ko.h"		/* .ko files: finding, reading, section tables */
#include "secmap/recording.h"	/* records, writer, reader, recorder */
#include "secmap/resolve.h"	/* resolver, live resolver */
#include "secmap/perf.h"	/* perf.data: inject, module maps, reader, session */

#endif /* SECMAP_H */
