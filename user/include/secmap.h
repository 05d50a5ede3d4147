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

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The uapi headers, shared with secmap.ko. Quoted: installed, they sit
 * beside this header in include/secmap/linux/, out of the linux-libc-dev
 * headers' include/linux/; in the source tree, -I uapi finds them.
 */
/* enum secmap_module_state, secmap_region_type, secmap_section_flags, ... */
#include "linux/secmap.h"
/* struct secmap_file_header, enum secmap_rec_type, SECMAP_MAP_F_*, ... */
#include "linux/secmap_record.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Sizes. Every struct passed between the library and its caller starts
 * with size_t @sz, so that either side may be built against a newer
 * header than the other; new fields only ever go at the end.
 * - The caller's structs, read or filled by the library: @sz is the
 *   caller's sizeof, set by SECMAP_OPTS() (or by hand). A library older
 *   than the caller's header accepts a longer input struct if the fields
 *   it does not know are zero, and refuses it with -E2BIG otherwise; it
 *   fills an output struct up to the shorter of the two sizes and zeroes
 *   the caller's fields it does not know. -EINVAL below the LIBSECMAP_1.0
 *   size.
 * - The library's structs (pointers it returns, arrays it allocates): @sz
 *   is the library's sizeof. A field at or past @sz is absent, and array
 *   elements are @sz apart: step with secmap_frame_at() or
 *   secmap_ko_symbol_at().
 */
#define SECMAP_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

struct secmap_client;	/* a netlink socket bound to the secmap family */
struct secmap_snapshot;	/* every loaded module with its sections, at one time */
struct secmap_module;
struct secmap_section;
struct secmap_region;
struct secmap_event;	/* one notification from the "events" group */

/* The longest build-id libsecmap keeps (GNU ld emits 20 bytes for sha1, 16 for md5). */
#define SECMAP_BUILD_ID_MAX 64
/* Room for the text of any build-id it keeps, NUL included. */
#define SECMAP_BUILD_ID_STR_SIZE (2 * SECMAP_BUILD_ID_MAX + 1)
/*
 * @len bytes of build-id @id as text, the way perf and the .build-id/
 * trees spell it: lowercase hex. 0; -ENOSPC if @size cannot hold 2 * @len
 * digits and a NUL (SECMAP_BUILD_ID_STR_SIZE always does).
 */
int secmap_build_id_str(const uint8_t *id, size_t len, char *buf, size_t size);

/* SECMAP_CMD_INFO_GET reply. */
struct secmap_info {
	size_t sz;		/* the caller's sizeof; filled up to it */
	uint32_t version;	/* SECMAP_GENL_VERSION of the kernel module */
	uint32_t hook;		/* enum secmap_hook */
	uint64_t generation;	/* bumped on every load, init completion, unload */
	char release[65];	/* kernel release, as uname -r */
	/*
	 * Sequence number of the last event, read with @generation: a dump
	 * during which the generation stays the same includes every event up
	 * to it. 0: no event yet.
	 */
	uint64_t event_seq;
	/*
	 * local_clock() (perf's default clock) and CLOCK_MONOTONIC when the
	 * reply was made; 0 from a secmap module too old to send them.
	 */
	uint64_t time_local_ns;
	uint64_t time_mono_ns;
};

/*
 * Open a client. -ENOENT: the secmap family is not registered (module not
 * loaded); -EPERM/-EACCES: not allowed to open netlink sockets.
 */
int secmap_client_open(struct secmap_client **client);
void secmap_client_close(struct secmap_client *client);

/*
 * Dump all modules. -EPERM: the caller lacks the capability the kernel
 * asks for; -EPROTO: the kernel sent a message libsecmap cannot parse;
 * -ENOENT: the secmap module went away since the client was opened.
 */
int secmap_client_dump(struct secmap_client *client, struct secmap_snapshot **snapshot);
/*
 * Dumps flagged NLM_F_DUMP_INTR (modules changed mid-dump) are retried;
 * after this many in a row secmap_client_dump() gives up with -EBUSY.
 */
#define SECMAP_DUMP_MAX_TRIES 16
/*
 * Receive dumps in parts of about @bytes (at least 4096) instead of the
 * default 32 KiB: the kernel sizes each part by the largest buffer the
 * socket has been read with, so this reopens the request socket. Smaller
 * parts mean more of them, and more chances of NLM_F_DUMP_INTR.
 */
int secmap_client_set_recv_size(struct secmap_client *client, size_t bytes);
/* How many dumps were retried because of NLM_F_DUMP_INTR, since open. */
unsigned long secmap_client_dump_retries(const struct secmap_client *client);
/* One module (a snapshot holding just it). -ENOENT: not loaded. */
int secmap_client_get(struct secmap_client *client, const char *name,
		      struct secmap_snapshot **snapshot);
int secmap_client_info(struct secmap_client *client, struct secmap_info *info);

/*
 * Events. Subscribe (-EPERM without the capability the kernel asks for
 * reading addresses), then poll secmap_client_fd() and call
 * secmap_client_next_event(). -EAGAIN: nothing within @timeout_ms (0: don't
 * wait, -1: forever).
 *
 * Events are not lost silently. When some were (the socket overran, or the
 * sequence numbers jump), the library first asks the kernel's event
 * journal for them: if it still holds every one, they are returned in
 * order as if never lost (secmap_client_nr_replayed() counts them). Else
 * (the journal overflowed, or a secmap.ko without one) it re-dumps and
 * returns one event of type SECMAP_EVENT_RESYNC instead:
 * secmap_event_snapshot() holds every module as it is now,
 * secmap_event_lost() how many events are gone for good (those before the
 * journal's oldest) or, without a journal, how many it replaces; its times
 * are the snapshot's.
 * Events the snapshot already includes are then skipped. If the re-dump
 * fails (-EBUSY: modules kept changing; or the dump's own errors), the
 * loss stays pending and the next call tries again. Likewise, once
 * subscribed, secmap_client_dump() returns a snapshot the following
 * events continue exactly (none it includes, none missing). Events sent
 * before secmap_client_subscribe() returns are not delivered.
 */
#define SECMAP_EVENT_RESYNC 0x100
int secmap_client_subscribe(struct secmap_client *client);
int secmap_client_fd(const struct secmap_client *client);
int secmap_client_next_event(struct secmap_client *client, struct secmap_event **event,
			     int timeout_ms);
/* How many lost events the kernel's journal gave back, since open. */
uint64_t secmap_client_nr_replayed(const struct secmap_client *client);
void secmap_event_free(struct secmap_event *event);
uint32_t secmap_event_type(const struct secmap_event *event);	/* SECMAP_CMD_MODULE_*_NTF */
uint64_t secmap_event_seq(const struct secmap_event *event);
uint64_t secmap_event_time_local_ns(const struct secmap_event *event);
uint64_t secmap_event_time_mono_ns(const struct secmap_event *event);
/* Events not delivered one by one before this one; 0 except for a resync. */
uint64_t secmap_event_lost(const struct secmap_event *event);
/*
 * Name and state always; sections, regions and build-id with MODULE_NEW.
 * NULL for SECMAP_EVENT_RESYNC.
 */
const struct secmap_module *secmap_event_module(const struct secmap_event *event);
/* SECMAP_EVENT_RESYNC: every module after the loss; owned by @event. */
const struct secmap_snapshot *secmap_event_snapshot(const struct secmap_event *event);

/*
 * Watch secmap.ko being unloaded and loaded again (the generic netlink
 * controller's notifications; needs no privilege). A subscription ends with
 * the registration of the family it was made to: on a new registration,
 * open a new client, subscribe and dump. Poll secmap_family_watch_fd();
 * secmap_family_watch_next() returns 1 (the family was registered), 0 (it
 * went away), -EAGAIN (nothing more pending) or -ENOBUFS (notifications
 * were lost: check with secmap_client_open()).
 */
struct secmap_family_watch;
int secmap_family_watch_open(struct secmap_family_watch **watch);
int secmap_family_watch_fd(const struct secmap_family_watch *watch);
int secmap_family_watch_next(struct secmap_family_watch *watch);
void secmap_family_watch_close(struct secmap_family_watch *watch);

void secmap_snapshot_free(struct secmap_snapshot *snapshot);
/*
 * When the snapshot held, in local_clock() (perf's default clock) and
 * CLOCK_MONOTONIC time: known for a dump made once subscribed (and so for
 * a resync's snapshot), 0 otherwise.
 */
uint64_t secmap_snapshot_time_local_ns(const struct secmap_snapshot *snapshot);
uint64_t secmap_snapshot_time_mono_ns(const struct secmap_snapshot *snapshot);
size_t secmap_snapshot_module_count(const struct secmap_snapshot *snapshot);
const struct secmap_module *secmap_snapshot_module(const struct secmap_snapshot *snapshot,
						   size_t index);
/* NULL if absent; '-' and '_' in @name are treated alike, as modprobe does. */
const struct secmap_module *secmap_snapshot_find(const struct secmap_snapshot *snapshot,
						 const char *name);

const char *secmap_module_name(const struct secmap_module *module);
size_t secmap_module_section_count(const struct secmap_module *module);
const struct secmap_section *secmap_module_section(const struct secmap_module *module,
						   size_t index);
/* NULL if the module has no section of that exact name. */
const struct secmap_section *secmap_module_find_section(const struct secmap_module *module,
							const char *name);

uint32_t secmap_module_state(const struct secmap_module *module);	/* 0: not reported */
uint64_t secmap_module_taint(const struct secmap_module *module);
/* Build-id length (0: none); *id points into the module. */
size_t secmap_module_build_id(const struct secmap_module *module, const uint8_t **id);
size_t secmap_module_region_count(const struct secmap_module *module);
const struct secmap_region *secmap_module_region(const struct secmap_module *module,
						 size_t index);

const char *secmap_section_name(const struct secmap_section *section);
uint64_t secmap_section_addr(const struct secmap_section *section);
uint32_t secmap_section_flags(const struct secmap_section *section);	/* SECMAP_SECTION_F_* */
/* enum secmap_region_type of the region holding the section, or -1. */
int secmap_section_region(const struct secmap_section *section);

uint32_t secmap_region_type(const struct secmap_region *region);
uint64_t secmap_region_base(const struct secmap_region *region);
uint64_t secmap_region_size(const struct secmap_region *region);
/* "text", "data", "rodata", "ro_after_init", "init_text", ..., "percpu"; NULL if unknown. */
const char *secmap_region_type_name(uint32_t type);
/* "coming", "live", "going"; NULL if unknown. */
const char *secmap_module_state_name(uint32_t state);

/*
 * A snapshot from sysfs instead of netlink, for when the secmap module is
 * not loaded: /proc/modules for names and states, /sys/module/NAME/sections
 * for addresses, /sys/module/NAME/notes for build-ids, /sys/module/NAME/taint.
 * No regions; sections have no flags. @root is prepended to both paths
 * (NULL or "" for the live system), so tests can use a fake tree.
 * Modules unloaded during the walk are left out; one whose directory has
 * no sections/ (kernel without CONFIG_KALLSYMS) is kept, with no sections.
 * -EPERM: every address reads 0 (kptr_restrict, no CAP_SYSLOG); -EACCES
 * (or -EPERM) when sections/ cannot be read; -EPROTO: malformed
 * /proc/modules line, address text or build-id note; -ENOENT: no
 * /proc/modules.
 */
int secmap_snapshot_from_sysfs(const char *root, struct secmap_snapshot **snapshot);

/*
 * Module files. secmap_ko_find() looks for the .ko of module @name ('-' and
 * '_' alike) and returns a malloc()ed path: first in opts->paths (files, or
 * directories searched recursively),
 * then by build-id in perf's cache (BUILDID_CACHE/.build-id/xx/rest/...),
 * in debuginfo trees (DEBUG_ROOT/.build-id/xx/rest.debug and
 * DEBUG_ROOT/lib/modules/RELEASE/...), then through
 * MODULES_ROOT/RELEASE/modules.dep. -ENOENT if nowhere.
 */
struct secmap_ko_search {
	size_t sz;
	const char *release;		/* NULL: uname -r */
	const char *const *paths;	/* NULL-terminated, searched first; may be NULL */
	const char *modules_root;	/* NULL: /lib/modules */
	const char *debug_root;		/* NULL: /usr/lib/debug */
	const char *buildid_cache;	/* NULL: $HOME/.debug */
};
int secmap_ko_find(const struct secmap_ko_search *opts, const char *name,
		   const uint8_t *build_id, size_t build_id_len, char **path);

/*
 * For many lookups (one per loaded module): an index of the places
 * secmap_ko_find() searches, from a copy of @opts. Directories are walked
 * and modules.dep read once, on the first lookup that reaches them; files
 * added to them later are not seen. By build-id lookups still go to the
 * file system each time. secmap_ko_index_find() returns what
 * secmap_ko_find() would, in the same order of places. Not for concurrent
 * use from several threads.
 */
struct secmap_ko_index;
int secmap_ko_index_new(const struct secmap_ko_search *opts, struct secmap_ko_index **index);
void secmap_ko_index_free(struct secmap_ko_index *index);
int secmap_ko_index_find(struct secmap_ko_index *index, const char *name,
			 const uint8_t *build_id, size_t build_id_len, char **path);
/*
 * The places secmap_ko_index_find() looks at for a module with
 * @build_id, in its order, ", "-separated, for a message that says where
 * a .ko was not found. *@places is malloc()ed. 0, -EINVAL or -ENOMEM.
 */
int secmap_ko_index_places(const struct secmap_ko_index *index, const uint8_t *build_id,
			   size_t build_id_len, char **places);

struct secmap_ko;	/* an opened module file: decompressed, parsed with libelf */
struct secmap_ko_section {
	size_t sz;		/* the caller's sizeof; filled up to it */
	uint64_t size;		/* sh_size */
	uint64_t offset;	/* sh_offset in the decompressed ELF (perf's pgoff) */
	uint64_t flags;		/* sh_flags: SHF_ALLOC, SHF_WRITE, SHF_EXECINSTR... */
	size_t nr_symbols;	/* STT_FUNC/STT_OBJECT symbols defined in it */
};
/*
 * Open @path (.ko, .ko.xz, .ko.zst, .ko.gz; detected by magic, not name).
 * -ENOENT, -EACCES; -EINVAL: not a relocatable ELF or corrupt/truncated;
 * -ENOTSUP: compressed in a format not supported; -EFBIG: larger than
 * 512 MiB, as a file or decompressed.
 */
int secmap_ko_open(const char *path, struct secmap_ko **ko);
void secmap_ko_close(struct secmap_ko *ko);
/* Build-id length (0: none); *id points into @ko. */
size_t secmap_ko_build_id(const struct secmap_ko *ko, const uint8_t **id);
/*
 * The decompressed ELF image of @ko (what perf's build-id cache keeps as
 * "elf"): *@image points into @ko, valid until secmap_ko_close().
 */
size_t secmap_ko_image(const struct secmap_ko *ko, const uint8_t **image);
/* -ENOENT if the file has no section @name. */
int secmap_ko_section(const struct secmap_ko *ko, const char *name,
		      struct secmap_ko_section *section);
/*
 * The STT_FUNC and STT_OBJECT symbols defined in section @name (the one
 * secmap_ko_section() describes), in symbol table order: values are offsets
 * into the section, as in any relocatable. *@symbols is malloc()ed, its
 * names point into @ko. -ENOENT: no such section.
 */
struct secmap_ko_symbol {
	size_t sz;		/* this library's sizeof: the array's stride */
	const char *name;
	uint64_t value;		/* st_value: offset in the section */
	uint64_t size;		/* st_size; 0 for some assembly symbols */
	bool func;		/* STT_FUNC, else STT_OBJECT */
	bool global;		/* not STB_LOCAL */
};
int secmap_ko_section_symbols(const struct secmap_ko *ko, const char *name,
			      struct secmap_ko_symbol **symbols, size_t *nr);
/* Symbol @i of such an array, whatever the caller's sizeof: step by the library's @sz. */
static inline struct secmap_ko_symbol *secmap_ko_symbol_at(struct secmap_ko_symbol *symbols, size_t i)
{
	return (struct secmap_ko_symbol *)((char *)symbols + i * symbols->sz);
}

/*
 * Section tables: for a loaded module, what its .ko says of each of the
 * module's sections (a secmap_ko_section), read once per build (name and
 * build-id) and the file closed at once, so that a program that meets
 * many modules stays small. With a cache directory, each table is also
 * kept there under the build-id, and later programs take it from there
 * without finding or decompressing the file. An entry is used only when
 * its build-id and list of sections are the module's; any other is read
 * again from the .ko and written anew, through a temporary file and
 * rename(). A table is stored only when the file's build-id is the
 * module's. With opts->search->paths set, the files named there are read
 * as named (a stripped copy keeps the build-id, not every offset) and the
 * cache is only filled.
 *
 * secmap_ko_cache_dir(): the cache directory the secmap tools share,
 * $XDG_CACHE_HOME/secmap/ko or $HOME/.cache/secmap/ko, malloc()ed;
 * -ENOENT when neither variable holds an absolute path.
 */
struct secmap_ko_tables;
struct secmap_ko_table;
struct secmap_ko_tables_opts {
	size_t sz;
	const struct secmap_ko_search *search;	/* where .ko files are; must outlive the handle */
	const char *cache_dir;			/* NULL: no cache */
	/*
	 * Called once per build, after its first lookup, with what
	 * secmap_ko_tables_get() returns for it: for a caller's messages.
	 */
	void (*looked_up)(void *ctx, const struct secmap_module *mod,
			  const struct secmap_ko_table *table, int err);
	void *ctx;
};
int secmap_ko_cache_dir(char **dir);
int secmap_ko_tables_new(const struct secmap_ko_tables_opts *opts,
			 struct secmap_ko_tables **tables);
void secmap_ko_tables_free(struct secmap_ko_tables *tables);
/*
 * The table of @mod's build, valid until secmap_ko_tables_free(); the
 * same answer every time for a build. 0: *@table describes the module's
 * sections. -ENOENT: no .ko found (*@table NULL). -ESTALE: the file found
 * has another build-id: *@table describes it, for a caller that wants it
 * anyway. Any other error with *@table set: the file found cannot be read
 * (as secmap_ko_open() says), and the table has no sections. Without
 * *@table: the search failed (-EACCES...), or -ENOMEM.
 */
int secmap_ko_tables_get(struct secmap_ko_tables *tables, const struct secmap_module *mod,
			 const struct secmap_ko_table **table);
/* The .ko the table was read from (for a cached one, as it was then). */
const char *secmap_ko_table_path(const struct secmap_ko_table *table);
/* The file's build-id (0: none); *@id points into @table. */
size_t secmap_ko_table_build_id(const struct secmap_ko_table *table, const uint8_t **id);
/* Whether it came from the cache rather than the file. */
bool secmap_ko_table_cached(const struct secmap_ko_table *table);
/* Section @name of the module: -ENOENT when the file has none of that name. */
int secmap_ko_table_section(const struct secmap_ko_table *table, const char *name,
			    struct secmap_ko_section *section);
struct secmap_ko_tables_stats {
	size_t sz;
	uint64_t builds;	/* builds looked up */
	uint64_t cached;	/* of them, answered by the cache */
	uint64_t opened;	/* .ko files opened */
	uint64_t stored;	/* entries written to the cache */
};
int secmap_ko_tables_stats(const struct secmap_ko_tables *tables,
			   struct secmap_ko_tables_stats *stats);

/*
 * Recordings (uapi/linux/secmap_record.h describes the file format).
 *
 * struct secmap_record is one record, decoded: the fields of its type are
 * set, the others zero. From a reader, its pointers point into the
 * reader's copy of the file and stay valid until secmap_reader_free();
 * strings are NUL-terminated.
 */
struct secmap_record {
	size_t sz;			/* SECMAP_RECORD() sets it: see "Sizes" above */
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

/*
 * The running kernel, for a recording's SECMAP_REC_KERNEL and KALLSYMS
 * records: release (uname -r), build-id (/sys/kernel/notes), the runtime
 * address of _text (else _stext) and the core kernel's lines of
 * /proc/kallsyms (module symbols left out). Addresses need what
 * /proc/kallsyms asks (CAP_SYSLOG, kptr_restrict): where they read as 0,
 * @have_ref_addr is false and @kallsyms NULL. @root is prepended to the
 * paths (NULL: the live system). 0 or -errno (-EPROTO: malformed notes);
 * a missing notes file or kallsyms only leaves those parts out.
 */
struct secmap_kernel_info {
	size_t sz;			/* the caller's sizeof; filled up to it */
	char release[65];
	uint8_t build_id[64];
	size_t build_id_len;		/* 0: unknown */
	char ref_name[8];		/* "_text" or "_stext" */
	uint64_t ref_addr;
	int have_ref_addr;
	char *kallsyms;			/* malloc()ed, @kallsyms_len bytes */
	size_t kallsyms_len;
};
/* Only the identity: /proc/kallsyms is read up to the reference symbol. */
#define SECMAP_KERNEL_INFO_NO_SYMBOLS	(1u << 0)
int secmap_kernel_info_read(const char *root, unsigned int flags, struct secmap_kernel_info *info);
/*
 * Whether @text, @len bytes of a copy of /proc/kallsyms, is this boot's:
 * its reference symbol at @info->ref_addr. perf's build-id cache keeps
 * one per kernel build (~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms), and
 * reading it spares the kernel formatting the symbols again. Then
 * *@core_len is the length of its core's part (the lines before the
 * first module's) and 0 is returned. -ESTALE: another boot's copy
 * (KASLR), or no reference address (hidden, or none in @info); -EINVAL.
 */
int secmap_kernel_info_match_kallsyms(const struct secmap_kernel_info *info, const char *text,
				      size_t len, size_t *core_len);
/* Frees what secmap_kernel_info_read() allocated. */
void secmap_kernel_info_release(struct secmap_kernel_info *info);

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
};

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

/*
 * An output file that replaces @path only when committed: written unnamed
 * beside it (a crash or kill -9 leaves nothing), then renamed over it.
 * Symlinks are followed: the link stays and the file it leads to is
 * replaced. An existing @path that is not a regular file is refused at
 * open: -EINVAL (device, FIFO, socket), -EISDIR; -ENOLINK for a symlink
 * that leads nowhere. One handle per thread.
 */
struct secmap_output;
int secmap_output_open(const char *path, struct secmap_output **out);
int secmap_output_fd(const struct secmap_output *out);
/* Where the file goes, symlinks followed. */
const char *secmap_output_path(const struct secmap_output *out);
#define SECMAP_OUTPUT_KEEP_OLD	(1u << 0)	/* the replaced file stays as PATH.old (perf record's) */
#define SECMAP_OUTPUT_KEEP_OPEN	(1u << 1)	/* the descriptor stays open for more writes */
/* fsync and rename into place; without KEEP_OPEN the descriptor is closed. */
int secmap_output_commit(struct secmap_output *out, unsigned int flags);
/* Frees @out: not committed, it is discarded; after KEEP_OPEN, fsync and close. */
int secmap_output_close(struct secmap_output *out);
/*
 * Remove every output's temporary file that has a name on disk now (on a
 * file system without O_TMPFILE, and while one is renamed into place).
 * Async-signal-safe: for a handler of the signals that end the program,
 * which then re-raises its signal.
 */
void secmap_output_remove_temporaries(void);

/*
 * The library's messages: why an input was refused (as
 * secmap_error_reason() says it), module files not found or not matching,
 * limits reached. Nothing is printed unless a printer is set: @fn gets
 * each message as vprintf() would take it, with no trailing newline, from
 * whichever thread the message comes from. NULL: silence again. Returns
 * the printer set before.
 */
enum secmap_print_level {
	SECMAP_PRINT_WARN,	/* something is lost or limited: the answer may be poorer */
	SECMAP_PRINT_INFO,	/* what the library found or chose */
	SECMAP_PRINT_DEBUG,	/* every refused input, in detail */
};
typedef int (*secmap_print_fn_t)(enum secmap_print_level level, const char *fmt, va_list args);
secmap_print_fn_t secmap_set_print(secmap_print_fn_t fn);

/* A static string describing a negative return value of this library. */
const char *secmap_strerror(int err);

/*
 * Why this thread's last call that refused a file's contents with @err
 * refused it, in a few words ("truncated (feature section 3 ends past end
 * of file)"): more precise than secmap_strerror(@err). NULL when that call
 * had nothing to add, or failed with another error. Every call that reads
 * a perf.data file's header (the readers, inject, strip) sets or clears
 * it. Valid until this thread's next such call.
 */
const char *secmap_error_reason(int err);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_H */
