/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap, recordings: the records, their writer and validating reader, and the
 * recorder that turns the kernel's snapshots and events into records.
 * Part of secmap.h: include <secmap/secmap.h>, not this file.
 */
#ifndef SECMAP_RECORDING_H
#define SECMAP_RECORDING_H

#include "secmap/kernel.h"
#include "secmap/ko.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Recordings (uapi/linux/secmap_record.h describes the file format).
 *
 * struct secmap_record is one record, decoded: the fields of its type are
 * set, the others zero. From a reader, its pointers point into the
 * reader's copy of the file and stay valid until secmap_reader_free();
 * strings are NUL-terminated.
 */
struct secmap_record {
	size_t sz;			/* SECMAP_RECORD() sets it: see "Sizes" in secmap/common.h */
	uint32_t type;			/* enum secmap_rec_type */
	int32_t pid;			/* SECMAP_PID_HOST_KERNEL */
	uint32_t flags;			/* SECMAP_{KERNEL,MAP,UNMAP}_F_* */
	uint64_t time_local_ns;
	uint64_t time_mono_ns;
	uint64_t seq;			/* SEC_MAP, UNMAP */
	/* SEC_MAP */
	uint64_t start, len, pgoff;
	const char *section;
	/* SEC_MAP, UNMAP */
	const char *module;
	/* SEC_MAP, UNMAP, KERNEL; build_id_len 0: none */
	const uint8_t *build_id;
	size_t build_id_len;
	/* KERNEL */
	const char *release;
	const char *ref_name;
	uint64_t ref_addr;
	/* KALLSYMS: @text_len bytes at @text, not NUL-terminated */
	const char *text;
	size_t text_len;
	uint64_t text_offset;
	/* RESYNC */
	uint32_t reason;		/* enum secmap_resync_reason */
	uint32_t source;		/* enum secmap_resync_source */
	uint64_t lost;			/* RESYNC, FINISHED */
	uint64_t gap_local_ns, gap_mono_ns;
	uint32_t nr_maps, nr_modules;
	/* FINISHED */
	uint32_t nr_resyncs;
};
#define SECMAP_RECORD(name, ...) SECMAP_OPTS(secmap_record, name, __VA_ARGS__)

/*
 * A streaming writer to @fd (not closed by the writer), which it starts
 * with the file header. Records are buffered: secmap_writer_flush() writes
 * them out (a recorder calls it at least once a second).
 * secmap_writer_add(): -EINVAL for a record that cannot be encoded (unknown
 * type, a string with a NUL or too long, a build-id over 255 bytes, a
 * record over SECMAP_REC_SIZE_MAX bytes); a KALLSYMS record may hold any
 * length: the writer splits it. Write errors are -errno, and stick.
 */
struct secmap_writer;
int secmap_writer_new(int fd, uint64_t file_flags, struct secmap_writer **writer);
int secmap_writer_add(struct secmap_writer *writer, const struct secmap_record *rec);
int secmap_writer_flush(struct secmap_writer *writer);
/* Flushes, then frees: 0 or the first write error. */
int secmap_writer_free(struct secmap_writer *writer);
/* Bytes written and buffered so far, the file header included. */
uint64_t secmap_writer_bytes(const struct secmap_writer *writer);

/*
 * A recorder: what the kernel says, turned into records in the order a
 * recording holds them, each handed to @record (valid during the call
 * only): to secmap_writer_add() for a file, to secmap_live_add() for a
 * live resolver. It decides each section's SECMAP_MAP_F_* flags and keeps,
 * from one call to the next, the kernel's last time stamps (where a gap
 * begins) and the counts of a FINISHED record.
 */

struct secmap_recorder_opts {
	size_t sz;
	/* Each record; a non-zero return stops the call that made it, and is returned. */
	int (*record)(void *ctx, const struct secmap_record *rec);
	/*
	 * What @module's .ko says of @section: 0 and *@out, or non-zero (not
	 * known: the record then has no length or file offset, and
	 * SECMAP_MAP_F_NO_KO; a resolver takes them from the .ko). NULL: none.
	 * *@out is the library's: fill the fields below its @sz.
	 */
	int (*ko_section)(void *ctx, const struct secmap_module *module, const char *section,
			  struct secmap_ko_section *out);
	void *ctx;
	/*
	 * Without @ko_section: the section tables to take that from (their
	 * handle's thread rules apply), or NULL: none.
	 */
	struct secmap_ko_tables *ko_tables;
};
struct secmap_recorder;
int secmap_recorder_new(const struct secmap_recorder_opts *opts, struct secmap_recorder **rec);
void secmap_recorder_free(struct secmap_recorder *rec);
/*
 * A RESYNC record (@reason: SECMAP_RESYNC_START for a recording's first
 * snapshot; @source, @lost as in the record), then a SEC_MAP record per
 * section of every module of @snapshot, flagged SECMAP_MAP_F_SNAPSHOT
 * (@snapshot NULL: no modules, as on a kernel without module support).
 */
int secmap_recorder_snapshot(struct secmap_recorder *rec, const struct secmap_snapshot *snapshot,
			     uint32_t reason, uint32_t source, uint64_t lost);
/* The records of one event: SEC_MAPs of a load, an UNMAP, or a resync's. */
int secmap_recorder_event(struct secmap_recorder *rec, const struct secmap_event *event);
/*
 * secmap.ko went away at @mono_ns (CLOCK_MONOTONIC): the gap the next
 * snapshot (reason SECMAP_RESYNC_RELOAD) closes begins then.
 */
void secmap_recorder_gap(struct secmap_recorder *rec, uint64_t mono_ns);
/*
 * local_clock() at @mono_ns, estimated from the last stamps seen (user
 * space cannot read local_clock()): for a gap or a FINISHED record.
 */
uint64_t secmap_recorder_local_at(const struct secmap_recorder *rec, uint64_t mono_ns);
struct secmap_recorder_stats {
	size_t sz;		/* the caller's sizeof; filled up to it */
	uint64_t events;	/* events handed to secmap_recorder_event() */
	uint64_t maps;		/* SEC_MAP records made */
	uint64_t lost;		/* events lost for good, by the resyncs' count */
	uint32_t resyncs;	/* snapshots but the START one */
};
int secmap_recorder_stats(const struct secmap_recorder *rec, struct secmap_recorder_stats *stats);

/*
 * A validating reader. secmap_reader_open() reads a secmap.data file, or
 * the recording `secmap inject` put into a perf.data file (told apart by
 * their magic). Every size, offset, length and string is checked before it
 * is handed out. Open: -EINVAL: neither kind of file; -ENOTSUP: a recording
 * of another major version, or a perf.data in pipe mode or of the other
 * byte order; -ENODATA: a perf.data without a recording; -EBADMSG: a file
 * header that is truncated or corrupt. secmap_reader_next(): 1 and *@rec,
 * 0 at the end, or -EBADMSG at the first corrupt or truncated record
 * (records before it stay valid). Records of types this library does not
 * know are skipped. -EFBIG: a recording over SECMAP_RECORDING_MAX bytes
 * (the reader, secmap_data_validate() and secmap_perf_read_recording()
 * refuse one before reading it); a perf.data holding a recording may be of
 * any size.
 */
/* The largest recording read: secmap writes about 10^7 sections' worth in that. */
#define SECMAP_RECORDING_MAX ((size_t)1 << 30)
struct secmap_reader;
int secmap_reader_open(const char *path, struct secmap_reader **reader);
/* Over a copy of @len bytes at @buf holding a secmap.data file (-EFBIG past the most). */
int secmap_reader_from_buffer(const void *buf, size_t len, struct secmap_reader **reader);
void secmap_reader_free(struct secmap_reader *reader);
int secmap_reader_next(struct secmap_reader *reader, struct secmap_record *rec);
uint64_t secmap_reader_file_flags(const struct secmap_reader *reader);	/* SECMAP_FILE_F_* */
uint16_t secmap_reader_minor(const struct secmap_reader *reader);
/* File offset of the record last returned, or of the corrupt one (for error messages). */
uint64_t secmap_reader_offset(const struct secmap_reader *reader);
/* Records skipped because their type is unknown. */
uint64_t secmap_reader_skipped(const struct secmap_reader *reader);
/* Check a whole recording in memory, in place: 0, or what open or next would return. */
int secmap_data_validate(const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_RECORDING_H */
