/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap, perf.data files: our recording inside them, perf-native module maps
 * and objects, the validating reader of their records, and perf's
 * session model of samples.
 * Part of secmap.h: include <secmap/secmap.h>, not this file.
 */
#ifndef SECMAP_PERF_H
#define SECMAP_PERF_H

#include "secmap/resolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * perf.data files.
 *
 * secmap_perf_inject() writes @out_path as @in_path with the recording
 * (@len bytes at @data, a whole secmap.data) appended after everything perf
 * wrote, found from a trailer (struct secmap_perf_trailer) at the file's
 * end: stock perf reads the file as before, and `perf inject` copies what
 * it knows. A recording already in @in_path (a trailer, or the feature
 * section 255 of earlier versions) is replaced, and the file perf wrote
 * restored first. @out_path may equal @in_path: the new file is written
 * beside its target (symlinks followed) and renamed over it; a target that
 * is a device, FIFO or directory is refused. @in_path is never modified.
 * -EINVAL: not a perf.data file, or @out_path's target not a regular file;
 * -ENOTSUP: pipe mode, or the other byte order; -EBADMSG: truncated or
 * corrupt header, data or feature table; -EEXIST: feature section 255
 * holds something that is not a secmap recording; -ESTALE: a trailer whose
 * perf.data was changed since (its file can no longer be restored);
 * -EFBIG: @len over SECMAP_RECORDING_MAX (no reader would take it back).
 */
int secmap_perf_inject(const char *in_path, const char *out_path, const void *data, size_t len);

/*
 * Perf-native module maps: what stock perf needs to put each module sample
 * on the right function. From a finished resolver (which must outlive it),
 * per module build and kind of region (its core text, its init text) a
 * small ELF object holding the region's functions at their offsets in it,
 * named "[mod]" or "[mod.init]" in perf, and for each load of the module
 * the records that map the region and unmap it (init freed, unload).
 * Modules whose .ko was not found or did not match are left out (and
 * counted). @buildid_dir: the build-id cache the objects go to (NULL:
 * $HOME/.debug, perf's default); the records name them by a
 * path in it, .secmap/BUILD-ID/mod.ko, so that tools which look for a
 * module by its path (hotspot) find it there too.
 */
struct secmap_perf_maps_opts {
	size_t sz;		/* sizeof(struct secmap_perf_maps_opts) */
	const char *buildid_dir;
};

struct secmap_perf_maps_object {
	size_t sz;		/* the caller's sizeof; filled up to it */
	const char *module;	/* the module's name */
	const char *dso;	/* perf's name for it: "[mod]", "[mod.init]" */
	const char *path;	/* the file name the records give: buildid_dir/.secmap/ID/mod.ko */
	const char *cache_path;	/* the same, relative to buildid_dir */
	const uint8_t *build_id;
	size_t build_id_len;
	size_t nr_symbols;
	size_t nr_loads;	/* regions it serves */
};

struct secmap_perf_maps;
int secmap_perf_maps_new(const struct secmap_resolver *res, const struct secmap_perf_maps_opts *opts,
			 struct secmap_perf_maps **maps);
void secmap_perf_maps_free(struct secmap_perf_maps *maps);
size_t secmap_perf_maps_nr_objects(const struct secmap_perf_maps *maps);
/* Strings belong to @maps. -EINVAL past the last object. */
int secmap_perf_maps_object(const struct secmap_perf_maps *maps, size_t idx,
			    struct secmap_perf_maps_object *obj);
/* Module loads left out: no .ko with the recorded build-id, or a name unfit for a path. */
size_t secmap_perf_maps_nr_skipped(const struct secmap_perf_maps *maps);
/* The ELF object @idx, written to @fd from its current offset. */
int secmap_perf_maps_write_object(const struct secmap_perf_maps *maps, size_t idx, int fd);
/* The same, in a malloc()ed buffer. */
int secmap_perf_maps_object_image(const struct secmap_perf_maps *maps, size_t idx, void **image,
				  size_t *len);
/*
 * Every object into the build-id cache: buildid_dir/.secmap/ID/mod.ko, and
 * the link .build-id/ab/cdef... to it, each replaced whole.
 */
int secmap_perf_maps_install(const struct secmap_perf_maps *maps);

/*
 * secmap_perf_inject() with options. @maps: rewrite the data section for
 * stock perf: perf's own kernel-module MMAP/MMAP2 records of the modules
 * @maps covers give way to a PERF_RECORD_MMAP2 per region per load and a
 * PERF_RECORD_KSYMBOL (unregister) when it goes, in time order; every
 * other record is kept byte for byte, and perf's records are kept in the
 * trailer for secmap_perf_strip(). The build-id table (HEADER_BUILD_ID)
 * names the objects instead of those modules' files. The objects must be
 * where @maps says (secmap_perf_maps_install()). The samples must carry
 * times, as must other records (sample_id_all): else -ENOTSUP, and
 * -ENOTSUP for a clock other than perf's default or CLOCK_MONOTONIC, or
 * perf's module maps inside compressed records.
 */
struct secmap_perf_inject_opts {
	size_t sz;		/* sizeof(struct secmap_perf_inject_opts) */
	const struct secmap_perf_maps *maps;	/* NULL: embed the recording only */
};

struct secmap_perf_inject_stats {
	size_t sz;		/* sizeof(struct secmap_perf_inject_stats) */
	uint64_t perf_maps_removed;	/* perf's module map records taken out */
	uint64_t maps_written;		/* PERF_RECORD_MMAP2 written */
	uint64_t unmaps_written;	/* PERF_RECORD_KSYMBOL written */
	uint64_t records;		/* perf's records read */
	uint64_t restored;		/* 1: a earlier injection was undone first */
};

int secmap_perf_inject_ext(const char *in_path, const char *out_path, const void *data, size_t len,
			   const struct secmap_perf_inject_opts *opts,
			   struct secmap_perf_inject_stats *stats);

/*
 * @out_path as the file perf wrote, before secmap_perf_inject(): its data
 * section, build-id table and header restored byte for byte, the
 * recording left out. Files of earlier versions (feature section 255)
 * lose that section. -ENODATA: no recording in @in_path; -ESTALE: the
 * perf.data changed since it was injected; other errors as
 * secmap_perf_inject().
 */
int secmap_perf_strip(const char *in_path, const char *out_path);

/*
 * The recording embedded in the perf.data at @path, in a malloc()ed
 * buffer. -ENODATA: none; -ESTALE: a trailer whose perf.data was changed
 * after secmap inject (another tool rewrote the file and kept its end);
 * -ENOLINK: none, but the data section holds secmap's module maps: a tool
 * rewrote the file after secmap inject and dropped the recording (perf
 * inject does); -EBADMSG: a trailer or recording out of bounds; -EFBIG: a
 * recording over SECMAP_RECORDING_MAX bytes (refused before it is read).
 */
int secmap_perf_read_recording(const char *path, void **data, size_t *len);

/*
 * Read feature section @bit of the perf.data at @path into a malloc()ed
 * buffer. -ENODATA: the bit is not set; other errors as secmap_perf_inject().
 */
int secmap_perf_read_feature(const char *path, unsigned int bit, void **data, size_t *len);

/*
 * A validating reader of a perf.data file's data section: the records perf
 * record wrote, with samples decoded against their event's attr. It is the
 * input side of the resolver that maps kernel-module samples to functions.
 *
 * Checked against files of perf 6.1 (Debian bookworm) and perf 7.2 (sid):
 * perf record -a, -g, -z (PERF_RECORD_COMPRESSED), several events, -k
 * (use_clockid). perf 7.2 writes -z batches as COMPRESSED2 (type 83);
 * perf 6.1 as COMPRESSED (81): both are read.
 *
 * secmap_perf_data_open(): errors as secmap_perf_inject() (-EINVAL: not a
 * perf.data; -ENOTSUP: pipe mode, the other byte order or perf's first
 * format; -EBADMSG: header, attrs, ids, feature table or HEADER_EVENT_DESC
 * out of bounds or malformed, or a file without events), and -ENOTSUP for
 * what this reader cannot decode safely: a sample_type, read_format or
 * branch_sample_type bit newer than it knows; events that disagree on
 * sample_id_all; several events whose samples carry no id
 * (PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID), or carry it at different
 * places. -EFBIG: more than 2^24 sample ids, or a file larger than the
 * address space. The file is mapped read-only: it must not be truncated
 * while it is open.
 *
 * secmap_perf_data_next(): 1 and *@rec, 0 at the end of the data section,
 * or -EBADMSG at the first record that is truncated, runs past the data
 * section or past itself (an array, a string without its NUL), and
 * -EFBIG where a compressed batch decompresses to more than 64 MiB, or
 * all the compressed records read so far to more than 64 MiB plus 4096
 * times the data section read so far (perf record -z writes 5 to 2000
 * times smaller; a small file of zstd bombs would take seconds);
 * secmap_perf_data_offset() then tells where (for a record from a
 * compressed batch: the offset of the compressed record it came from, or
 * ended in). Errors stick. Records before the bad one stay valid.
 *
 * *@rec and what it points to stay valid until the next call: pointers
 * point into the reader's mapping of the file or into its buffers.
 */
struct secmap_perf_data;

/* One event (perf_event_attr), as the file describes it. */
struct secmap_perf_event {
	size_t sz;			/* this library's sizeof: fields past it are absent */
	/* HEADER_EVENT_DESC's name ("cpu-clock"); "event0", "event1"... without it. */
	const char *name;
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t read_format;		/* PERF_FORMAT_* */
	uint64_t branch_sample_type;
	uint64_t sample_period;		/* or frequency in Hz when @freq */
	int freq;
	int sample_id_all;		/* other records end with sample id fields */
	/* Sample times are of clock @clockid (perf record -k), else of perf's local_clock(). */
	int use_clockid;
	int32_t clockid;
	size_t nr_ids;			/* sample ids the file gives this event */
};

enum secmap_perf_rec_kind {
	SECMAP_PERF_REC_OTHER,		/* anything else: only @type, @misc, @size are set */
	SECMAP_PERF_REC_SAMPLE,
	SECMAP_PERF_REC_MMAP,
	SECMAP_PERF_REC_MMAP2,
	SECMAP_PERF_REC_COMM,
	SECMAP_PERF_REC_FINISHED_ROUND,
	SECMAP_PERF_REC_FORK,		/* a new task: @pid/@tid, from @ppid/@ptid at @time */
	SECMAP_PERF_REC_LOST,		/* @period events lost (ring buffer full), of event @id */
	SECMAP_PERF_REC_LOST_SAMPLES,	/* @period samples lost */
	/*
	 * Kernel code (BPF programs, trampolines, ftrace and kprobe slots)
	 * registered at @start, @len bytes, named @ksym_name; unregistered
	 * when @ksym_flags has PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER. Only to
	 * callers whose struct has @ksym_name (LIBSECMAP_1.1); older ones
	 * see SECMAP_PERF_REC_OTHER.
	 */
	SECMAP_PERF_REC_KSYMBOL,
};

#define SECMAP_PERF_EVENT_NONE ((size_t)-1)

/*
 * One record. @fields says which of pid/tid, time, id, stream_id, cpu, ip,
 * addr, period and callchain were present, as PERF_SAMPLE_* bits of
 * <linux/perf_event.h>: for a sample, its event's sample_type; for other
 * records, the sample_id_all trailer's fields (pid and tid always for MMAP,
 * MMAP2, COMM: the record's own). The others are 0 (a new field here
 * needs its line in reset_record(), perf_data.c).
 */
struct secmap_perf_record {
	size_t sz;			/* the caller's sizeof; filled up to it */
	uint32_t kind;			/* enum secmap_perf_rec_kind */
	uint32_t type;			/* PERF_RECORD_* as in the file */
	uint16_t misc;
	uint16_t size;
	/* misc & PERF_RECORD_MISC_CPUMODE_MASK: 1 kernel, 2 user, 3 hypervisor, 4/5 guest kernel/user */
	uint8_t cpumode;
	/* Index of the event (samples; other records with a trailer); else SECMAP_PERF_EVENT_NONE. */
	size_t event;
	uint64_t fields;
	int32_t pid, tid;		/* -1: none (perf's kernel maps, some samples) */
	uint32_t cpu;
	uint64_t time;			/* ns, of the event's clock */
	uint64_t id, stream_id;
	/* SAMPLE */
	uint64_t ip, addr, period;
	/*
	 * Callchain as the kernel wrote it, in host byte order: the
	 * PERF_CONTEXT_KERNEL/USER/GUEST... markers (values from
	 * (uint64_t)-4095 up) are kept, in place, to say whose addresses
	 * follow. @callchain[0] is usually a marker, then the sample's ip.
	 */
	const uint64_t *callchain;
	size_t nr_callchain;
	/* MMAP, MMAP2 */
	uint64_t start, len, pgoff;
	const char *filename;
	/* MMAP2: the file's identity, or its build-id (misc PERF_RECORD_MISC_MMAP_BUILD_ID) */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const uint8_t *build_id;	/* NULL when none */
	size_t build_id_len;
	uint32_t prot, flags;
	/* COMM (misc PERF_RECORD_MISC_COMM_EXEC: after an exec) */
	const char *comm;
	/* FORK: the parent */
	int32_t ppid, ptid;
	/* KSYMBOL: PERF_RECORD_KSYMBOL_TYPE_*, _FLAGS_*, the symbol's name (and @start, @len) */
	uint16_t ksym_type, ksym_flags;
	const char *ksym_name;
};

/*
 * What the header of a perf.data says of where and how it was recorded,
 * as perf report --header shows it: its feature sections (strings owned
 * by @pd; NULL, or 0, when the file has none) and the times of its first
 * and last samples (HEADER_SAMPLE_TIME, which perf's --time percentages
 * divide). 0, -ENOMEM, or -EBADMSG for a malformed section
 * (secmap_error_reason() says which).
 */
struct secmap_perf_header {
	size_t sz;			/* the caller's sizeof; filled up to it */
	uint64_t data_offset, data_size, feat_offset;
	const char *hostname, *os_release, *perf_version, *arch, *cpu_desc, *cpuid;
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb;
	const char *cmdline;		/* its words joined by spaces, as perf shows them */
	bool has_sample_time;
	uint64_t first_sample_time, last_sample_time;
};
int secmap_perf_data_header(struct secmap_perf_data *pd, struct secmap_perf_header *header);
int secmap_perf_data_open(const char *path, struct secmap_perf_data **pd);
void secmap_perf_data_close(struct secmap_perf_data *pd);
size_t secmap_perf_data_nr_events(const struct secmap_perf_data *pd);
/* NULL when @idx >= secmap_perf_data_nr_events(); owned by @pd. */
const struct secmap_perf_event *secmap_perf_data_event(const struct secmap_perf_data *pd,
						       size_t idx);
const char *secmap_perf_data_event_name(const struct secmap_perf_data *pd, size_t idx);
/*
 * Samples are told apart by their id when there are several events. A
 * sample whose id belongs to no event is skipped, as perf skips it, and
 * counted here (as are other records whose trailer names no event: those
 * are returned, with @event SECMAP_PERF_EVENT_NONE).
 */
uint64_t secmap_perf_data_unknown_ids(const struct secmap_perf_data *pd);
int secmap_perf_data_next(struct secmap_perf_data *pd, struct secmap_perf_record *rec);
/* Step over samples without decoding them: for a pass after the other records. */
void secmap_perf_data_skip_samples(struct secmap_perf_data *pd, bool skip);
/* File offset of the record last returned, or of the bad one. */
uint64_t secmap_perf_data_offset(const struct secmap_perf_data *pd);

/*
 * A perf session: the samples of a perf.data with perf's model of the
 * tasks behind them (processes and the files they map, threads and their
 * names, FORKs copying both, read in a pass before the samples) and every
 * frame resolved: kernel addresses by a resolver (modules by the
 * recording's section maps at the sample's time, the core by kallsyms),
 * user ones to the file mapped there at that time. What `secmap report`
 * and `secmap script` are made of.
 *
 * secmap_session_open(), then secmap_session_clock() to make the resolver
 * with the samples' clock, secmap_session_set_resolver(), then the samples
 * one by one (secmap_session_next()) or by a callback
 * (secmap_session_process(), perf's perf_tool). Open: -ENOMEM, or what
 * secmap_perf_data_open() says of the file. next: 1 and *@sample (valid
 * until the next call), 0 at the end, -EINVAL without a resolver, -ENOMEM,
 * -EBADMSG (a corrupt record; the samples before it were given) or -EFBIG
 * (compressed records decompress too far); secmap_error_reason() then says
 * which record. Work and memory are n log n in the file.
 */
struct secmap_frame {
	size_t sz;		/* this library's sizeof: the stride of a chain */
	uint64_t ip;
	const char *module;	/* "[kernel.kallsyms]", a module, a user file's path; NULL: unknown */
	const char *dso;	/* as perf script names it: [kernel.kallsyms], [mod], /path */
	const char *section;	/* module sections only */
	const char *symbol;	/* NULL: unknown */
	uint64_t symbol_offset;
	uint64_t section_offset;
	bool user;
	/*
	 * Where @ip is in its file, as a symbol server or perf's own
	 * "dso-relative" addresses see it: for a user frame the map's pgoff
	 * plus the distance from its start, for a module frame the offset
	 * in the .ko (its section's sh_offset plus @section_offset; 0 when
	 * that was not known). 0 for the core kernel and unknown frames.
	 */
	uint64_t file_offset;
	/*
	 * The mapping @ip is in: a user file's mmap, a module section as
	 * loaded (@map_end 0: its end is not known here). 0 when none.
	 */
	uint64_t map_start, map_end;
	/* The build-id of the file named: a user file's own, a module's recorded one. */
	const uint8_t *build_id;
	size_t build_id_len;
};

struct secmap_sample {
	size_t sz;			/* this library's sizeof: fields past it are absent */
	size_t event;			/* index, as secmap_session_event_name() takes */
	const char *comm;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time;
	bool has_time, has_cpu;
	uint64_t period;
	bool event_callchain;		/* its event records callchains (perf record -g) */
	const struct secmap_frame *frame;	/* the sample's own ip */
	/*
	 * Innermost first, markers left out; none if corrupt. Step with
	 * secmap_frame_at(): the library's frames may be longer than the
	 * caller's header says.
	 */
	const struct secmap_frame *chain;
	size_t nr_chain;
};

static inline const struct secmap_frame *secmap_frame_at(const struct secmap_frame *chain, size_t i)
{
	return (const struct secmap_frame *)((const char *)chain + i * chain->sz);
}

#define SECMAP_SESSION_CHAIN	1u	/* resolve callchains too */
#define SECMAP_SESSION_ORDERED	2u	/* in time order, as perf script gives them */

struct secmap_session_opts {
	size_t sz;
	unsigned int flags;		/* SECMAP_SESSION_* */
};
struct secmap_session;
int secmap_session_open(const char *path, const struct secmap_session_opts *opts,
			struct secmap_session **session);
void secmap_session_close(struct secmap_session *session);
/* The clock of the samples' times: 0, or -EINVAL (events disagree, or neither perf's nor monotonic). */
int secmap_session_clock(const struct secmap_session *session, enum secmap_clock *clock);
/* Kernel frames by @res (finished; outlives the session): before the first sample. */
int secmap_session_set_resolver(struct secmap_session *session, const struct secmap_resolver *res);
int secmap_session_next(struct secmap_session *session, const struct secmap_sample **sample);
struct secmap_session_tool {
	size_t sz;
	/* Each sample; a non-zero return stops the walk, and is returned. */
	int (*sample)(void *ctx, const struct secmap_sample *sample);
};
/* Every sample to @tool: 0 at the end, @tool's non-zero return, or next's error. */
int secmap_session_process(struct secmap_session *session, const struct secmap_session_tool *tool,
			   void *ctx);
size_t secmap_session_nr_events(const struct secmap_session *session);
const char *secmap_session_event_name(const struct secmap_session *session, size_t idx);
struct secmap_session_stats {
	size_t sz;			/* the caller's sizeof; filled up to it */
	/* What perf's file says was lost: PERF_RECORD_LOST (chunks, events), LOST_SAMPLES. */
	uint64_t lost_chunks, lost_events, lost_samples;
	/*
	 * 0, or the maps FORK records could copy in all, which they would
	 * have passed: later forked tasks do not see their parents' maps.
	 */
	size_t forks_capped;
	/*
	 * 0, or the bytes of samples held for time order, which were reached
	 * between two FINISHED_ROUNDs: the older half was given early, and
	 * samples may be out of time order.
	 */
	size_t order_relaxed;
};
int secmap_session_stats(const struct secmap_session *session, struct secmap_session_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_PERF_H */
