/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * secmap recordings ("secmap.data"): where each section of each kernel
 * module was mapped, and when, next to a perf recording.
 *
 * A file is a struct secmap_file_header followed by records. Every record
 * starts with a struct secmap_rec_header; its size covers the whole record
 * and is a multiple of 8, so that every record, and every 64-bit field in
 * it, is 8-byte aligned (the file header is 64 bytes). All fields are
 * little-endian, whatever the machine that wrote them. Padding is explicit
 * and written as zero; readers ignore it.
 *
 * Variable-length parts follow a record's fixed part, in the order its
 * length fields are declared: each is @len bytes, then NUL bytes up to the
 * next multiple of 8 (at least one NUL for a string, so that a string is
 * always terminated; none needed for a build-id). Readers check every
 * length against the record's size.
 *
 * Times: @time_local_ns is the kernel's local_clock(), perf's default
 * sample clock; @time_mono_ns is CLOCK_MONOTONIC, for `perf record -k
 * monotonic`. Both are taken together by the kernel module.
 *
 * Compatibility: readers refuse another @major and accept any @minor,
 * skipping record types they do not know (by their size). A minor version
 * may add record types, flags and a larger file header (@header_size);
 * changing the layout of an existing record takes a new major.
 *
 * Documentation/secmap-record.rst describes the format byte by byte.
 */
#ifndef _UAPI_LINUX_SECMAP_RECORD_H
#define _UAPI_LINUX_SECMAP_RECORD_H

#include <linux/types.h>

#define SECMAP_FILE_MAGIC	"SECMAPv1"	/* 8 bytes, no NUL */
#define SECMAP_FILE_MAJOR	1
#define SECMAP_FILE_MINOR	2

/*
 * The perf.data feature bit earlier versions of `secmap inject` stored the
 * recording under. Read, never written: `perf inject` crashes on a feature
 * bit it does not know (Documentation/secmap-record.rst).
 */
#define SECMAP_PERF_FEATURE_BIT	255

/*
 * A recording embedded in a perf.data file by `secmap inject`: appended
 * after the last byte perf wrote (perf reads up to its last feature
 * section and ignores what follows), found from this trailer, the last
 * @size bytes of the file. A reader reads the last 16 bytes (@major,
 * @minor, @size, @magic), then the whole trailer. @fingerprint ties it to
 * the file it was written for: it covers every byte before it (perf's
 * part, the recording, the undo log and the fields above), so any change
 * (a tool rewriting the file and keeping the tail, damage) makes it stale.
 * Offsets are from the start of the file; every part lies between
 * @perf_size and the trailer, 8-byte aligned.
 */
#define SECMAP_PERF_TRAILER_MAGIC	"SECMAPpd"	/* 8 bytes, no NUL */
#define SECMAP_PERF_TRAILER_MAJOR	1
#define SECMAP_PERF_TRAILER_MINOR	0

struct secmap_perf_trailer {
	__u64 perf_size;	/* bytes of the perf.data proper */
	__u64 recording_offset;	/* a whole secmap.data file */
	__u64 recording_size;
	__u64 undo_offset;	/* struct secmap_perf_undo: the file perf wrote */
	__u64 undo_size;	/* 0: none (the perf.data was not changed) */
	__u64 fingerprint[2];	/* XXH3-128 of every byte before it: low, high */
	__u16 major;		/* SECMAP_PERF_TRAILER_MAJOR */
	__u16 minor;
	__u32 size;		/* sizeof(struct secmap_perf_trailer): the trailer's start */
	char magic[8];		/* SECMAP_PERF_TRAILER_MAGIC: the file's last 8 bytes */
};

/*
 * How to give back the perf.data perf wrote (`secmap inject --strip`),
 * after `secmap inject` rewrote its data section (perf-native module maps)
 * and its build-id table. What lies outside the data section is kept
 * whole: after this header come the @data_offset bytes before perf's data
 * section (file header, attrs, ids), then the @tail_size bytes after it
 * (feature table and sections), each padded to 8. Then @nr_edits struct
 * secmap_perf_undo_edit, in data order, each followed by the @removed
 * bytes of perf's records it took out, padded to 8. The data section
 * written is perf's with, at each edit's @offset, @inserted bytes of
 * secmap's records in place of @removed bytes of perf's; the data never
 * moves, so @data_offset is the same in both files.
 */
#define SECMAP_PERF_UNDO_MAGIC	"SECMAPun"	/* 8 bytes, no NUL */

struct secmap_perf_undo {
	char magic[8];		/* SECMAP_PERF_UNDO_MAGIC */
	__u32 header_size;	/* sizeof(struct secmap_perf_undo) */
	__u32 reserved;
	__u64 nr_edits;
	__u64 data_offset;	/* where perf's data section starts */
	__u64 data_size;	/* perf's data section */
	__u64 tail_size;	/* perf's bytes after it: feature table and sections */
	__u64 perf_hash[2];	/* XXH3-128 of perf's file as perf wrote it: low, high */
};

struct secmap_perf_undo_edit {
	__u64 offset;		/* in the data section written, from its start */
	__u64 inserted;		/* bytes of secmap's records there */
	__u64 removed;		/* bytes of perf's records that were there */
};

/*
 * The records `secmap inject` writes into a perf.data data section for
 * stock perf: per module memory region per load a PERF_RECORD_MMAP2 whose
 * file name is a path with this component, and a PERF_RECORD_KSYMBOL
 * (unregister) named with this prefix when the region goes away.
 */
#define SECMAP_PERF_PATH_MARK	"/.secmap/"
#define SECMAP_PERF_KSYM_PREFIX	"[secmap] "

/* struct secmap_file_header.flags */
enum secmap_file_flags {
	/* secmap.ko was not loaded: module maps come from sysfs, no events */
	SECMAP_FILE_F_SYSFS_ONLY = 1 << 0,
	/*
	 * secmap.ko was not loaded: module maps come from sysfs, read when the
	 * kernel's uevents said a module came (once its init had finished);
	 * init sections are flagged FREED, loads known from the end of init
	 * (minor 1; a reader of minor 0 reads the file, without knowing that)
	 */
	SECMAP_FILE_F_UEVENT = 1 << 1,
	/*
	 * With UEVENT: perf's module:module_load tracepoint was read too. A
	 * load it saw is mapped from its init_module() call (where syscall
	 * tracepoints told it; else from module_load, before init), its init
	 * sections FREED still; a load it did not see is as UEVENT says
	 * (minor 2)
	 */
	SECMAP_FILE_F_LOAD_TRACE = 1 << 2,
};

struct secmap_file_header {
	char magic[8];		/* SECMAP_FILE_MAGIC */
	__u16 major;		/* SECMAP_FILE_MAJOR */
	__u16 minor;		/* SECMAP_FILE_MINOR */
	__u32 header_size;	/* sizeof(struct secmap_file_header); records start here */
	__u64 flags;		/* enum secmap_file_flags */
	__u64 reserved[5];
};

enum secmap_rec_type {
	SECMAP_REC_KERNEL = 1,		/* struct secmap_rec_kernel */
	SECMAP_REC_KALLSYMS,		/* struct secmap_rec_kallsyms */
	SECMAP_REC_RESYNC,		/* struct secmap_rec_resync */
	SECMAP_REC_SEC_MAP,		/* struct secmap_rec_sec_map (KMOD_SEC_MAP) */
	SECMAP_REC_UNMAP,		/* struct secmap_rec_unmap */
	SECMAP_REC_FINISHED,		/* struct secmap_rec_finished */
};

/* Largest record: @size is 16 bits, as in perf, and a multiple of 8. */
#define SECMAP_REC_SIZE_MAX	0xfff8

struct secmap_rec_header {
	__u32 type;		/* enum secmap_rec_type */
	__u16 misc;		/* reserved, 0 */
	__u16 size;		/* whole record, header included; multiple of 8 */
};

/* The machine a record is about: the host kernel, as perf's kernel maps. */
#define SECMAP_PID_HOST_KERNEL	(-1)

/*
 * SECMAP_REC_KERNEL: which kernel was recorded. Written once, first.
 * Followed by: release (uname -r), the name of the reference symbol
 * ("_text" or "_stext"), the kernel's build-id.
 */
enum secmap_kernel_flags {
	/* @ref_addr is the runtime address of the reference symbol */
	SECMAP_KERNEL_F_REF_ADDR = 1 << 0,
};

struct secmap_rec_kernel {
	struct secmap_rec_header header;
	__s32 pid;		/* SECMAP_PID_HOST_KERNEL */
	__u32 flags;		/* enum secmap_kernel_flags */
	__u64 time_local_ns;
	__u64 time_mono_ns;
	__u64 ref_addr;		/* relocates a vmlinux under KASLR, as perf's _text map pgoff */
	__u16 release_len;
	__u16 ref_name_len;
	__u8 build_id_len;	/* 0: unknown */
	__u8 reserved[3];
};

/*
 * SECMAP_REC_KALLSYMS: a piece of the core kernel's symbol table, in
 * /proc/kallsyms' text form ("ffffffff81000000 T _text\n"), module symbols
 * left out; what `perf archive` keeps as kallsyms. The pieces, in file
 * order, concatenate to the whole text: @offset is where this one starts.
 * Followed by @len bytes of text (not NUL-terminated), padded to 8.
 */
struct secmap_rec_kallsyms {
	struct secmap_rec_header header;
	__s32 pid;		/* SECMAP_PID_HOST_KERNEL */
	__u32 len;
	__u64 offset;
};

/*
 * SECMAP_REC_RESYNC: every module mapping known so far is replaced by the
 * @nr_maps SECMAP_REC_SEC_MAP records that follow (each flagged
 * SECMAP_MAP_F_SNAPSHOT): the state of all modules at @time_*. The first
 * one of a file (reason START) is the snapshot taken when recording began.
 */
enum secmap_resync_reason {
	SECMAP_RESYNC_START = 1,	/* recording started */
	SECMAP_RESYNC_LOST,		/* @lost events were lost (receiver overrun) */
	SECMAP_RESYNC_RELOAD,		/* secmap.ko went away and came back: a gap */
};

enum secmap_resync_source {
	SECMAP_SOURCE_NETLINK = 1,	/* secmap.ko */
	/* /proc/modules and /sys/module: sections only (SECMAP_FILE_F_UEVENT: events follow) */
	SECMAP_SOURCE_SYSFS,
};

struct secmap_rec_resync {
	struct secmap_rec_header header;
	__u32 reason;		/* enum secmap_resync_reason */
	__u32 source;		/* enum secmap_resync_source */
	__u64 time_local_ns;	/* the snapshot holds at this time */
	__u64 time_mono_ns;
	__u64 lost;		/* LOST: events it replaces (at least 1) */
	/* LOST, RELOAD: from when nothing was observed (0: unknown); ends at @time_* */
	__u64 gap_local_ns;
	__u64 gap_mono_ns;
	__u32 nr_maps;
	__u32 nr_modules;
};

/*
 * SECMAP_REC_SEC_MAP (KMOD_SEC_MAP): section @section of module @module was
 * mapped at [@start, @start + @len) from @time_* on, until a
 * SECMAP_REC_UNMAP of the module (for init sections: of its init part) or
 * the next SECMAP_REC_RESYNC. Followed by: section name, module name,
 * module build-id.
 */
enum secmap_map_flags {
	SECMAP_MAP_F_EXEC = 1 << 0,	/* executable (SHF_EXECINSTR, or in a text region) */
	SECMAP_MAP_F_WRITE = 1 << 1,	/* SHF_WRITE */
	SECMAP_MAP_F_INIT = 1 << 2,	/* init section: freed when init finishes */
	SECMAP_MAP_F_PERCPU = 1 << 3,	/* .data..percpu: the per-CPU template */
	/* part of a RESYNC snapshot: already mapped before @time_*, since unknown */
	SECMAP_MAP_F_SNAPSHOT = 1 << 4,
	/* init section already freed at @time_*: kept as sysfs shows it, maps nothing */
	SECMAP_MAP_F_FREED = 1 << 5,
	/* no matching .ko at recording time: @len and @pgoff are 0 (unknown) */
	SECMAP_MAP_F_NO_KO = 1 << 6,
};

struct secmap_rec_sec_map {
	struct secmap_rec_header header;
	__s32 pid;		/* SECMAP_PID_HOST_KERNEL */
	__u32 flags;		/* enum secmap_map_flags */
	__u64 time_local_ns;
	__u64 time_mono_ns;
	__u64 start;
	__u64 len;		/* sh_size in the .ko */
	__u64 pgoff;		/* sh_offset in the (decompressed) .ko: perf's pgoff */
	__u64 seq;		/* the secmap event it comes from; 0 in a snapshot */
	__u16 section_len;
	__u16 module_len;
	__u8 build_id_len;	/* 0: the module has no build-id */
	__u8 reserved[3];
};

/*
 * SECMAP_REC_UNMAP: the mappings of module @module end at @time_*: all of
 * them (the module is gone), or with SECMAP_UNMAP_F_INIT only its init
 * sections (init finished and freed them). Followed by: module name,
 * module build-id.
 */
enum secmap_unmap_flags {
	SECMAP_UNMAP_F_INIT = 1 << 0,
};

struct secmap_rec_unmap {
	struct secmap_rec_header header;
	__s32 pid;		/* SECMAP_PID_HOST_KERNEL */
	__u32 flags;		/* enum secmap_unmap_flags */
	__u64 time_local_ns;
	__u64 time_mono_ns;
	__u64 seq;		/* the secmap event it comes from */
	__u16 module_len;
	__u8 build_id_len;
	__u8 reserved[5];
};

/*
 * SECMAP_REC_FINISHED: the recorder stopped normally at @time_*. A file
 * without it was cut short (the recorder was killed); what it holds is
 * still valid up to its last record.
 */
struct secmap_rec_finished {
	struct secmap_rec_header header;
	__u32 reserved;
	__u32 nr_resyncs;	/* RESYNC records after the first */
	__u64 time_local_ns;
	__u64 time_mono_ns;
	__u64 lost;		/* events lost in all, each covered by a RESYNC */
};

#endif /* _UAPI_LINUX_SECMAP_RECORD_H */
