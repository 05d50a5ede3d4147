/* SPDX-License-Identifier: GPL-2.0 */
/*
 * secmap record's state, shared by its files: record.c (the recording),
 * record_options.c (the command line).
 */
#ifndef SECMAP_RECORD_H
#define SECMAP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "secmap_cli.h"

/* --source: where module loads and unloads are learnt from. */
enum record_backend {
	RECORD_BACKEND_AUTO,	/* secmap.ko if loaded, else uevents */
	RECORD_BACKEND_NETLINK,	/* secmap.ko, or fail */
	RECORD_BACKEND_UEVENT,	/* uevents and sysfs, even with secmap.ko */
};

struct recorder {
	const char *path;
	const char *inject;		/* --inject's perf.data, or NULL */
	const char **paths;		/* --ko-path, NULL-terminated */
	size_t nr_paths;
	struct secmap_writer *w;
	struct secmap_client *client;	/* NULL without secmap.ko, or during a gap */
	struct secmap_family_watch *watch;
	enum record_backend backend;
	struct secmap_uevent_watch *uevents;	/* the uevent backend's, or NULL */
	struct secmap_ko_search search;
	struct secmap_ko_tables *kos;	/* per build, what its .ko says of its sections */
	struct secmap_recorder *rec;	/* snapshots and events into records */
	bool no_ko;
	bool no_kallsyms;
	bool quiet;
	bool in_gap;
	uint64_t replayed;		/* lost events the journal gave back, earlier clients' */
	uint64_t flushed_ns;		/* CLOCK_MONOTONIC of the last flush */
	bool resync_pending;		/* a loss the library could not resync yet */
	struct secmap_kernel_info kernel;	/* the KERNEL record's identity */
	bool have_kernel;
	const char *kallsyms_from;	/* where the KALLSYMS text came from, or NULL */
};

/* The command line into @r: -1 to go on, else the exit code. */
int record_options(int argc, char **argv, struct recorder *r);

#endif /* SECMAP_RECORD_H */
