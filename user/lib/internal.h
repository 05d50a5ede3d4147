/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* libsecmap private declarations, shared by the library and its unit tests. */
#ifndef LIBSECMAP_INTERNAL_H
#define LIBSECMAP_INTERNAL_H

#include <endian.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "hashmap.h"
#include "secmap.h"

struct nlmsghdr;

/*
 * Everything is built with -fvisibility=hidden; only what is marked here
 * reaches the dynamic symbol table (the version script then pins versions).
 */
#define SECMAP_EXPORT __attribute__((visibility("default")))

/*
 * The strings of a snapshot or an event (module and section names): cut
 * from a few large blocks and freed all at once with their owner, rather
 * than one malloc() each; a 1000-module dump holds some 23000 of them.
 */
struct libsecmap_pool_block;
struct libsecmap_pool {
	struct libsecmap_pool_block *head;	/* the block being filled */
	struct libsecmap_hashmap interned;	/* libsecmap_pool_intern()'s strings */
};

/* A NUL-terminated copy of @len bytes of @s, owned by @pool; NULL (ENOMEM). */
char *libsecmap_pool_strndup(struct libsecmap_pool *pool, const char *s, size_t len);
/*
 * The same, shared by every caller that interns an equal string: section
 * names repeat in every module, and a snapshot's memory is, under
 * emulation, mostly the cost of faulting it in.
 */
const char *libsecmap_pool_intern(struct libsecmap_pool *pool, const char *s, size_t len);
void libsecmap_pool_release(struct libsecmap_pool *pool);

struct secmap_section {
	const char *name;	/* in the owner's pool */
	uint64_t addr;
	uint32_t flags;		/* SECMAP_SECTION_F_* */
	int region;		/* enum secmap_region_type, or -1 */
};

struct secmap_region {
	uint32_t type;
	uint64_t base;
	uint64_t size;
};

struct secmap_module {
	const char *name;	/* in the owner's pool */
	struct secmap_section *sections;
	size_t nr_sections;
	size_t cap_sections;
	struct secmap_region *regions;
	size_t nr_regions;
	size_t cap_regions;
	uint32_t state;		/* 0: not reported */
	uint64_t taint;
	size_t build_id_len;
	uint8_t build_id[SECMAP_BUILD_ID_MAX];
};

struct secmap_event {
	uint32_t type;		/* SECMAP_CMD_MODULE_*_NTF or SECMAP_EVENT_RESYNC */
	uint64_t seq;
	uint64_t time_local_ns;
	uint64_t time_mono_ns;
	uint64_t lost;
	uint32_t source;	/* a resync's enum secmap_resync_source; 0: netlink */
	struct secmap_module module;
	struct libsecmap_pool pool;	/* the module's strings */
	struct secmap_snapshot *snapshot;	/* SECMAP_EVENT_RESYNC only */
};

/* What a listener remembers between events to notice lost ones. */
struct libsecmap_event_state {
	uint64_t last_seq;	/* meaningful once @started */
	bool started;		/* @last_seq is known: an event, INFO or a dump */
	/*
	 * After a snapshot that includes every event up to this one: events
	 * at or below it are dropped. 0: none pending.
	 */
	uint64_t covered_seq;
	bool overrun;		/* ENOBUFS since the last event */
};

struct secmap_snapshot {
	struct secmap_module *modules;
	size_t nr_modules;
	size_t cap_modules;
	uint64_t time_local_ns;		/* when it held; 0: unknown */
	uint64_t time_mono_ns;
	struct libsecmap_pool pool;	/* every module's strings */
};

/* Little-endian fields of files (recordings, perf.data) at any alignment. */
static inline uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/*
 * perf's own record types (enum perf_user_event_type of tools/lib/perf),
 * which the uapi header does not have. From USER_TYPE_START on, records
 * carry no sample_id_all trailer.
 */
#define PERF_RECORD_USER_TYPE_START	64
#define PERF_RECORD_FINISHED_ROUND	68
/* AUXTRACE is followed by payload bytes its header.size leaves out. */
#define PERF_RECORD_AUXTRACE		71
#define PERF_RECORD_COMPRESSED		81
#define PERF_RECORD_COMPRESSED2		83	/* 7.2 on: a u64 payload size, then padding */
/* Newer than some uapi headers this builds against (bookworm's are 6.1). */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
/* 6.8 on: a u64 per branch after the entries. */
#define PERF_SAMPLE_BRANCH_COUNTERS	(1ULL << 19)
#endif

/* The sample_type bits a sample_id_all trailer carries, one u64 each. */
#define LIBSECMAP_TRAILER_FIELDS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
					 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
					 PERF_SAMPLE_IDENTIFIER)

static inline unsigned int libsecmap_trailer_words(uint64_t sample_type)
{
	return (unsigned int)__builtin_popcountll(sample_type & LIBSECMAP_TRAILER_FIELDS);
}

/*
 * secmap_error_reason(): libsecmap_reason() sets this thread's reason for
 * @err (a negative errno, returned) from a printf format; parsers clear it
 * where they start, so that a reason never outlives its call.
 */
int libsecmap_reason(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A message to the caller's printer (secmap_set_print()), if any. */
void libsecmap_pr(enum secmap_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void libsecmap_reason_clear(void);

#ifndef offsetofend
#define offsetofend(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#endif

/*
 * An options struct the caller says is @sz bytes long, of which this
 * library knows @known: a caller built against a newer header may pass a
 * longer one, and is understood only if what this library cannot read
 * is zero (libbpf's rule). Else -E2BIG.
 */
static inline bool libsecmap_opts_tail_zero(const void *opts, size_t sz, size_t known)
{
	const uint8_t *p = opts;
	size_t i;

	for (i = known; i < sz; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * A caller's input struct @user, which starts with its size_t sz, into
 * this library's @local (@size bytes): shorter than @min (the fields of
 * LIBSECMAP_1.0) -EINVAL; longer than @size with non-zero bytes past it
 * -E2BIG; else the fields it has, the rest zero, and @local's sz @size.
 */
static inline int libsecmap_struct_in(const void *user, size_t min, void *local, size_t size)
{
	size_t sz = *(const size_t *)user;

	if (sz < min || sz < sizeof(size_t))
		return -EINVAL;
	if (!libsecmap_opts_tail_zero(user, sz, size))
		return -E2BIG;
	memset(local, 0, size);
	memcpy(local, user, sz < size ? sz : size);
	*(size_t *)local = size;
	return 0;
}

/*
 * @local (@size bytes, starting with its sz) out to the caller's @user,
 * which says it holds user->sz bytes: filled up to the shorter of the two,
 * bytes past @size zeroed (fields of a newer header: absent), and
 * user->sz kept. -EINVAL when shorter than @min.
 */
static inline int libsecmap_struct_out(void *user, size_t min, const void *local, size_t size)
{
	size_t sz = *(const size_t *)user;

	if (sz < min || sz < sizeof(size_t))
		return -EINVAL;
	memcpy((char *)user + sizeof(size_t), (const char *)local + sizeof(size_t),
	       (sz < size ? sz : size) - sizeof(size_t));
	if (sz > size)
		memset((char *)user + size, 0, sz - size);
	return 0;
}

/* The LIBSECMAP_1.0 sizes: a caller's struct shorter than that is refused. */
#define SECMAP_RECORD_SZ_1_0		offsetofend(struct secmap_record, nr_resyncs)
#define SECMAP_RESOLUTION_SZ_1_0	offsetofend(struct secmap_resolution, reason)
#define SECMAP_KO_SEARCH_SZ_1_0		offsetofend(struct secmap_ko_search, buildid_cache)
#define SECMAP_RESOLVER_OPTS_SZ_1_0	offsetofend(struct secmap_resolver_opts, no_ko)

/* Every failure path returns -err and leaves err in errno, as the API promises. */
static inline int libsecmap_err(int err)
{
	errno = -err;
	return err;
}

/*
 * Room for one more element of @size bytes in @arr, which holds @nr in
 * *@cap: doubled when full, from @first. The array (moved or not), or NULL
 * when out of memory, @arr then kept as it was.
 */
static inline void *libsecmap_grow(void *arr, size_t *cap, size_t nr, size_t size, size_t first)
{
	size_t n = *cap ? 2 * *cap : first;
	void *p;

	if (nr < *cap)
		return arr;
	if (n > SIZE_MAX / size)
		return NULL;
	p = realloc(arr, n * size);
	if (p)
		*cap = n;
	return p;
}

/* libsecmap_grow() in place: *@arrp (an array pointer) made room for one more past @nr. */
static inline int libsecmap_grow_in(void *arrp, size_t *cap, size_t nr, size_t size, size_t first)
{
	void *p = libsecmap_grow(*(void **)arrp, cap, nr, size, first);

	if (!p)
		return -ENOMEM;
	*(void **)arrp = p;
	return 0;
}

/*
 * Length of the module name a file named @base holds (mod.ko, compressed or
 * .ko.debug), or 0 if it is no module file.
 */
size_t libsecmap_ko_name_len(const char *base);

/*
 * secmap_ko_open(), decompressing at most @budget bytes (a single file is
 * still capped at 512 MiB): -EDQUOT when a compressed file holds more.
 * *@spent: the bytes decompressed, the file kept or not; 0 for a plain ELF.
 */
int libsecmap_ko_open_budget(const char *path, size_t budget, struct secmap_ko **kop,
			     size_t *spent);

/*
 * What one resolver decompresses of .ko files, all together: twice the
 * largest module accepted. The 1138 modules of Debian 12's cloud kernel
 * decompress to 111 MiB in all, and a recording names only those loaded.
 */
#define LIBSECMAP_KO_BUDGET	((size_t)1 << 30)

/*
 * The section tables' cache on disk (ko/ko_cache.c). A row is what a .ko
 * says of one section of a loaded module; rows come one per section of
 * the module, in its order. libsecmap_ko_cache_load(): 0 with @out filled
 * (malloc()ed path and rows), -ENOENT when there is no usable entry (none,
 * corrupt, another build-id, another section list), -ENOMEM.
 * libsecmap_ko_cache_store(): @mod's entry written whole or not at all;
 * 0 or -errno (-EINVAL: no build-id to key it by, or no path).
 */
struct libsecmap_ko_row {
	bool found;			/* the .ko has a section of that name */
	struct secmap_ko_section s;
};
struct libsecmap_ko_rows {
	char *path;
	struct libsecmap_ko_row *rows;
};
int libsecmap_ko_cache_load(const char *dir, const struct secmap_module *mod,
			    struct libsecmap_ko_rows *out);
int libsecmap_ko_cache_store(const char *dir, const struct secmap_module *mod,
			     const struct libsecmap_ko_rows *ko);
/*
 * The entry names in @dir, read once (none when @dir does not exist yet);
 * NULL if it cannot be read (then every module is asked for). _listed():
 * could @mod have an entry there? Entries written after the listing are
 * not seen: that module is read from its .ko again.
 */
struct libsecmap_ko_cache_listing;
struct libsecmap_ko_cache_listing *libsecmap_ko_cache_list(const char *dir);
bool libsecmap_ko_cache_listed(const struct libsecmap_ko_cache_listing *listing,
			       const struct secmap_module *mod);
void libsecmap_ko_cache_listing_free(struct libsecmap_ko_cache_listing *listing);

/*
 * A resolver's .ko files (ko_pool.c), each build found and opened once,
 * kept open and counted against one budget; a live resolver's generations
 * share one. libsecmap_ko_pool_get(): 0 with *@ko
 * (owned by the pool, open until it is freed), -ENOMEM, or why there is
 * none: -ENOENT not found, else the open's error (-EDQUOT past the pool's
 * LIBSECMAP_KO_BUDGET). *@path is the file found, or NULL.
 */
/* Module builds in one order, for the trees keyed by them: name, then build-id. */
static inline int libsecmap_cmp_build(const char *name_a, const uint8_t *id_a, size_t len_a,
				      const char *name_b, const uint8_t *id_b, size_t len_b)
{
	int c = strcmp(name_a, name_b);

	if (c)
		return c;
	if (len_a != len_b)
		return len_a < len_b ? -1 : 1;
	return len_a ? memcmp(id_a, id_b, len_a) : 0;
}

struct libsecmap_ko_pool;
int libsecmap_ko_pool_new(struct libsecmap_ko_pool **pool);
void libsecmap_ko_pool_free(struct libsecmap_ko_pool *pool);
int libsecmap_ko_pool_get(struct libsecmap_ko_pool *pool, const struct secmap_ko_search *search,
			  const char *name, const uint8_t *id, size_t id_len, const char **path,
			  struct secmap_ko **ko);
/* From now on @res opens its builds' .ko files through @pool, which must outlive it. */
void libsecmap_resolver_set_ko_pool(struct secmap_resolver *res, struct libsecmap_ko_pool *pool);

/*
 * Find the NT_GNU_BUILD_ID note named "GNU" among the ELF notes in @buf
 * (in the host's byte order, as sysfs shows them) and copy it to @id,
 * which has room for SECMAP_BUILD_ID_MAX bytes. 0 with *@id_len left
 * alone if there is none; -EPROTO if a note header runs past the end or
 * the id is empty or longer than SECMAP_BUILD_ID_MAX.
 */
int libsecmap_parse_build_id_notes(const uint8_t *buf, size_t len, uint8_t *id, size_t *id_len);

/*
 * A kernel release (uname -r) as one component of a path, as the .ko search
 * uses it (/lib/modules/RELEASE): at most 64 printable ASCII characters, no
 * '/', not "." or "..". A recording's release is checked against it, so
 * that a planted "../../tmp/x" sends no search outside the module trees.
 */
static inline bool libsecmap_valid_release(const char *s)
{
	size_t i;

	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; s[i]; i++)
		if (i >= 64 || s[i] == '/' || s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

/*
 * The one rule for module names: the kernel spells them with '_', users
 * and file names with either, as modprobe accepts; names compare with
 * every character passed through this.
 */
static inline char libsecmap_modname_char(char c)
{
	return c == '-' ? '_' : c;
}

/*
 * Open @path for reading only if it is a regular file: an fd, or -errno
 * (-EISDIR, -EINVAL for a FIFO, socket or device). Never blocks.
 */
int libsecmap_open_regular(const char *path);
struct stat;
/* The same, and its fstat() in @st, for readers that size by it. */
int libsecmap_open_regular_stat(const char *path, struct stat *st);
/* The same as a FILE (close-on-exec); NULL with errno set. */
FILE *libsecmap_fopen_regular(const char *path);

/* A kallsyms line, "ffffffff81000000 T _text" without its newline; false if not one. */
bool libsecmap_kallsyms_parse(const char *line, size_t len, uint64_t *addr, char *type,
			      const char **name, size_t *name_len);
/*
 * An unnamed file (O_TMPFILE) in @dir, of @mode: an fd, -EOPNOTSUPP where
 * the kernel or the file system has none, or -errno.
 */
int libsecmap_open_tmpfile(const char *dir, mode_t mode);
/*
 * An unnamed file to write and read back, gone when closed: in @dir (on
 * the file system of what it will be copied to), or anywhere for NULL. An
 * fd, or -errno.
 */
int libsecmap_scratch_file(const char *dir);

struct secmap_snapshot *libsecmap_snapshot_new(void);
/*
 * Takes ownership of @mod's arrays on success only. @mod's strings must
 * be in @snap's pool.
 */
int libsecmap_snapshot_add_module(struct secmap_snapshot *snap, struct secmap_module *mod);
/*
 * Module @name from ROOT/sys/module/@name (@root NULL: the live system),
 * as secmap_snapshot_from_sysfs() reads each: into @mod, strings in
 * @pool; -ENOENT when it is gone or going. Release @mod after.
 */
int libsecmap_sysfs_read_module(const char *root, const char *name, struct secmap_module *mod,
				struct libsecmap_pool *pool);
/*
 * A perf event and its ring buffer (kernel/perf_ring.c): open() maps
 * @pages data pages (a power of two); next() copies the oldest record
 * not yet read into @buf and returns its size, skipping records larger
 * than @size, or returns 0 when none is left.
 */
struct libsecmap_perf_ring {
	int fd;
	void *base;
	size_t len, page;
};
struct perf_event_attr;
int libsecmap_perf_ring_open(struct libsecmap_perf_ring *r, struct perf_event_attr *attr,
			     int pid, int cpu, unsigned int pages);
int libsecmap_perf_ring_next(struct libsecmap_perf_ring *r, void *buf, size_t size);
void libsecmap_perf_ring_close(struct libsecmap_perf_ring *r);
/*
 * perf's clock (local_clock(), a perf.data's time stamps) from user space
 * (kernel/perf_clock.c): open, then now() for a pair of stamps, perf's
 * and CLOCK_MONOTONIC's, taken together. now() always sets *@mono_ns; an
 * error (-ENODEV: not open, -ENODATA: no record came) leaves *@local_ns 0.
 */
struct libsecmap_perf_clock {
	struct libsecmap_perf_ring ring;
};
int libsecmap_perf_clock_open(struct libsecmap_perf_clock *c);
int libsecmap_perf_clock_now(struct libsecmap_perf_clock *c, uint64_t *local_ns,
			     uint64_t *mono_ns);
void libsecmap_perf_clock_close(struct libsecmap_perf_clock *c);
/* MODULE_NAME_LEN, the NUL included: the longest name a uevent gives. */
#define LIBSECMAP_UEVENT_NAME_MAX 56
/*
 * One uevent datagram of @len bytes (kernel/uevent_watch.c): 1 for a
 * module's add or remove (*@add; its name, a valid path component, in
 * @name), 0 for another uevent, -EPROTO for a malformed one.
 */
int libsecmap_uevent_parse(const char *buf, size_t len, bool *add,
			   char name[LIBSECMAP_UEVENT_NAME_MAX]);
/*
 * When loads began, from perf's tracepoints (kernel/load_trace.c):
 * module:module_load, before init, and where the kernel has them its
 * task's init_module()/finit_module() before that. open(): -errno when
 * tracefs or a perf event is refused. take(): @name's latest load
 * reaching module_load at or before @not_after: when its syscall began
 * (*@start; module_load's time without a syscall record) and when it
 * reached module_load (*@loaded); it is then forgotten with any earlier
 * one of the name. -ENOENT if none was seen (its record lost, or its CPU
 * not watched). The parsers and note() are apart for tests:
 * parse_format() reads module_load's format file (its ID, the offset of
 * its name's __data_loc), parse_sample() one PERF_RECORD_SAMPLE of TID
 * and TIME, with RAW for module_load's (name empty for a syscall's;
 * -EAGAIN for another record type, -EPROTO for a malformed one).
 */
#define LIBSECMAP_LOAD_SEEN 64
struct libsecmap_load_sample {
	uint32_t tid;
	uint64_t time;
	char name[LIBSECMAP_UEVENT_NAME_MAX];	/* "" for a syscall's */
};
struct libsecmap_load_seen {
	char name[LIBSECMAP_UEVENT_NAME_MAX];
	uint64_t time;		/* at module_load; 0: a free slot */
	uint64_t start;		/* at its syscall, or @time */
};
struct libsecmap_load_trace {
	struct libsecmap_perf_ring *rings;
	size_t nr_rings;
	int *start_fds;		/* the syscalls' events, writing into the rings */
	size_t nr_start_fds;
	uint32_t name_offset;
	struct libsecmap_load_seen seen[LIBSECMAP_LOAD_SEEN];
	size_t next_seen;
	struct {
		uint32_t tid;
		uint64_t time;	/* 0: a free slot */
	} starts[LIBSECMAP_LOAD_SEEN];
	size_t next_start;
};
int libsecmap_load_trace_open(struct libsecmap_load_trace *t);
int libsecmap_load_trace_take(struct libsecmap_load_trace *t, const char *name,
			      uint64_t not_after, uint64_t *start, uint64_t *loaded);
void libsecmap_load_trace_close(struct libsecmap_load_trace *t);
/* What drain does with each sample: a syscall's start, or a load, remembered. */
void libsecmap_load_trace_note(struct libsecmap_load_trace *t,
			       const struct libsecmap_load_sample *sample);
int libsecmap_load_trace_parse_format(const char *text, uint64_t *id, uint32_t *name_offset);
int libsecmap_load_trace_parse_sample(const void *rec, size_t len, uint32_t name_offset,
				      struct libsecmap_load_sample *sample);
/*
 * What secmap_uevent_watch_next() does with a datagram the kernel sent:
 * 0 and *@event, -EAGAIN when it makes no event (another uevent, a
 * malformed one, a module already gone), or -errno.
 */
struct secmap_uevent_watch;
int libsecmap_uevent_watch_take(struct secmap_uevent_watch *w, const char *buf, size_t len,
				struct secmap_event **event);
/*
 * Flags each section of @mod's init part INIT and FREED (kernel/snapshot.c):
 * .init*, and the full .symtab and .strtab, which the kernel puts there.
 */
void libsecmap_module_mark_init_freed(struct secmap_module *mod);
/* Frees @mod's arrays; its strings stay with the pool they came from. */
void libsecmap_module_release(struct secmap_module *mod);
/* Room for at least that many sections and regions, so that adding them needs no realloc(). */
int libsecmap_module_reserve(struct secmap_module *mod, size_t nr_sections, size_t nr_regions);
/* @name: in the pool @mod's strings come from. @region: -1 if none. */
int libsecmap_module_add_section(struct secmap_module *mod, const char *name, uint64_t addr,
				 uint32_t flags, int region);
int libsecmap_module_add_region(struct secmap_module *mod, const struct secmap_region *region);

/*
 * Whether a whole message starts at @nlh with @left bytes left. Not
 * mnl_nlmsg_ok() alone: it compares nlmsg_len as an int, so a length of
 * 2^31 or more passes it, and the parsers trust nlmsg_len.
 */
static inline bool libsecmap_nlmsg_ok(const struct nlmsghdr *nlh, size_t left)
{
	return left >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) && nlh->nlmsg_len <= left;
}

/* Every message of the datagram @buf (@len bytes) is whole: 0 or -EPROTO. */
int libsecmap_nlmsgs_ok(const void *buf, size_t len);

/*
 * Parse one SECMAP_CMD_MODULE_GET reply (generic netlink header included)
 * and append the module to @snap. Trusts nlh->nlmsg_len to bound the
 * message, as mnl_cb_run() has checked it against the receive buffer.
 * Returns 0, -EPROTO or -ENOMEM; on failure @snap holds the same modules
 * (its pool may keep the failed module's strings until it is freed).
 */
int libsecmap_parse_module_msg(const struct nlmsghdr *nlh, struct secmap_snapshot *snap);

/* Parse a SECMAP_CMD_INFO_GET reply. 0 or -EPROTO; @info is untouched on failure. */
int libsecmap_parse_info_msg(const struct nlmsghdr *nlh, struct secmap_info *info);

/*
 * Parse one message from the "events" group. On success *@event is the
 * event, or NULL for a command this libsecmap does not know or an event
 * at or below @st->covered_seq (skip it).
 * Updates @st (sequence, pending overrun) only on success, and computes
 * secmap_event_lost() from the gap to the previous event. 0, -EPROTO or
 * -ENOMEM.
 */
int libsecmap_parse_event_msg(const struct nlmsghdr *nlh, struct libsecmap_event_state *st,
			      struct secmap_event **event);

/*
 * The retry loop of secmap_client_dump(), apart from the socket: @once
 * fills the snapshot and returns -EINTR for a dump flagged NLM_F_DUMP_INTR.
 * Counts retries in *@retries; -EAGAIN after SECMAP_DUMP_MAX_TRIES
 * interrupted dumps in a row.
 */
int libsecmap_dump_retry(int (*once)(void *arg, struct secmap_snapshot *snap), void *arg,
			 unsigned long *retries, struct secmap_snapshot **snapshot);

/*
 * perf.data files (perf_file.c), shared by the feature-section code and the
 * data-section reader (perf_data.c).
 */
#define LIBSECMAP_PERF_HEADER_SIZE	104
#define LIBSECMAP_PERF_FEAT_BITS	256
#define HEADER_BUILD_ID			2	/* feature bit: the build-id table */
/*
 * An entry of that table, perf_record_header_build_id: a record header
 * {u32 type, u16 misc, u16 size}, s32 pid, 20 bytes of build-id, its
 * length (set when misc has MISC_BUILD_ID_SIZE; else all 20 count), 3
 * reserved, then the file's name (NUL, padded).
 */
#define BUILD_ID_ENTRY_HEAD		36
#define MISC_BUILD_ID_SIZE		(1U << 15)

struct libsecmap_perf_range {
	uint64_t offset;
	uint64_t size;
};

/* A perf.data's header, attrs and feature table, checked against the file size. */
struct libsecmap_perf_file {
	uint8_t header[LIBSECMAP_PERF_HEADER_SIZE];
	uint64_t file_size;
	struct libsecmap_perf_range attrs;
	struct libsecmap_perf_range data;
	uint64_t data_end;		/* where the feature table starts */
	uint64_t table_end;
	uint64_t features[LIBSECMAP_PERF_FEAT_BITS / 64];
	struct libsecmap_perf_range feat[LIBSECMAP_PERF_FEAT_BITS];	/* valid for the set bits */
	/* The attrs section, and where in it each event's ids {offset, size} is. */
	uint8_t *attr_buf;
	size_t *ids_pos;
	size_t nr_attrs;
};

/*
 * Open @path read-only and parse it into @pf: the fd, or -EINVAL (not a
 * perf.data), -ENOTSUP (pipe mode, other byte order, first format),
 * -EBADMSG (header, attrs or feature table out of bounds), -errno. On
 * failure nothing is left to release.
 */
int libsecmap_perf_file_open(const char *path, struct libsecmap_perf_file *pf);
void libsecmap_perf_file_release(struct libsecmap_perf_file *pf);
/* Whether feature bit @bit is set in a perf.data header's bitmap @bits. */
static inline bool libsecmap_feat_test(const uint64_t *bits, unsigned int bit)
{
	return bits[bit / 64] >> (bit % 64) & 1;
}

/* All @len bytes at @off, or -EBADMSG if the file ends first, or -errno. */
int libsecmap_pread_all(int fd, void *buf, size_t len, uint64_t off);
int libsecmap_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);
/* libsecmap_perf_file_open() on an open file (not closed here). */
int libsecmap_perf_file_parse(int fd, struct libsecmap_perf_file *pf);

/* Copies between two files: copy_file_range(), else through a buffer. */
struct libsecmap_copier {
	int in, out;
	bool no_cfr;		/* copy_file_range() does not work between these two */
	uint8_t *buf;		/* for the fallback, allocated on first use; free() it */
};
int libsecmap_copy_range(struct libsecmap_copier *c, uint64_t in_off, uint64_t out_off,
			 uint64_t len);

/* A feature section written from memory (@data, @len), or left out (@remove). */
struct libsecmap_feat_override {
	unsigned int bit;
	bool remove;
	const void *data;
	size_t len;
};

/*
 * Everything that follows the data section of @pf's file (@c->in), for a
 * data section that now ends at @data_end in @c->out: the feature table
 * there, the sections in bit order (@ov's from memory, or left out), then
 * the ids and attrs that lay after the data, their offsets updated in
 * @pf->attr_buf. @header, the output's file header, which the caller
 * writes, gets the new bitmap, data size and attrs offset. *@end: where
 * the last of it ends.
 */
int libsecmap_perf_write_tail(struct libsecmap_copier *c, struct libsecmap_perf_file *pf,
			      uint64_t data_end, const struct libsecmap_feat_override *ov,
			      size_t nr_ov, uint8_t *header, uint64_t *end);

/*
 * An output file that replaces its target only when committed: written
 * unnamed (O_TMPFILE, else under a hidden name) in the target's
 * directory, then renamed over it. The target is where @path leads: its
 * symlinks are followed, so the links stay; a target that exists and is
 * not a regular file (device, FIFO, socket: -EINVAL; directory: -EISDIR)
 * is refused. @like, if not NULL, gives the new file's mode and (where
 * permitted) owner.
 */
struct libsecmap_out {
	int fd;
	char *target;		/* the file to replace */
	char *dir;		/* its directory */
	const char *base;	/* its name, in @target */
	char *tmp;		/* the temporary name, once it has one */
	bool tmp_tracked;	/* @tmp is in the signal-time remover's table */
};
int libsecmap_out_open(struct libsecmap_out *o, const char *path, const struct stat *like);
/* The mode of @like (NULL: 0644) and, where permitted, its owner, for @o's file. */
int libsecmap_out_like(struct libsecmap_out *o, const struct stat *like);
/* fsync, keep @times' atime and mtime (if not NULL), rename into place. Always closes. */
int libsecmap_out_commit(struct libsecmap_out *o, const struct stat *times);
void libsecmap_out_discard(struct libsecmap_out *o);
/* Commit if all went well (@err 0), else discard: @err, or the commit's. */
int libsecmap_out_finish(struct libsecmap_out *o, int err, const struct stat *times);

/*
 * Where the recording embedded in the perf.data open at @fd lies: 0, or
 * -ENODATA (none), -ESTALE (its perf.data changed since), -ENOLINK (none,
 * but secmap's module maps are in the data: a tool dropped it), -EEXIST
 * (feature section 255 is not a recording), -EBADMSG, or a parse error.
 */
int libsecmap_perf_recording_range(int fd, uint64_t *off, uint64_t *size);
/* Whether @buf starts with a perf.data file's magic, in either byte order (perf_file.c). */
bool libsecmap_perf_magic(const uint8_t *buf, size_t len);

/* XXH3-128 of @len bytes of @fd at @off, read through a buffer: low, high. */
int libsecmap_hash_range(int fd, uint64_t off, uint64_t len, uint64_t hash[2]);

/* The data-section reader (perf_data.c) on an open file; the fd is not kept. */
struct secmap_perf_data;
int libsecmap_perf_data_open_fd(int fd, struct secmap_perf_data **pd);
/* The record last returned came out of a compressed record (PERF_RECORD_COMPRESSED*). */
bool libsecmap_perf_data_in_batch(const struct secmap_perf_data *pd);
/* Its bytes, as in the file: valid as the record is. */
const uint8_t *libsecmap_perf_data_raw(const struct secmap_perf_data *pd);

/*
 * A finished resolver, read by perf_maps.c: each module load (life) with
 * its mappings, and each build with its .ko and symbols.
 */
struct libsecmap_sym {
	uint64_t start, end;	/* offsets in the section */
	const char *name;	/* into the build's ko */
	bool global;
};

struct libsecmap_map_info {
	uint64_t start, end;
	uint64_t from[2], to[2];	/* validity per enum secmap_clock; to: UINT64_MAX while mapped */
	uint32_t flags;			/* SECMAP_MAP_F_* */
	uint32_t section;		/* in the build */
};

struct libsecmap_build_info {
	const char *name;
	const uint8_t *id;
	size_t id_len;
	const struct secmap_ko *ko;	/* NULL when no .ko was read */
	int err;			/* why not */
};

/*
 * [*@lo, *@lo + *@len): the core kernel's text, when no module map of the
 * recording ever overlapped it: an address there is answered alike at
 * any time. 0, or -ENOENT.
 */
int libsecmap_resolver_core_span(const struct secmap_resolver *res, uint64_t *lo, uint64_t *len);
size_t libsecmap_resolver_nr_lives(const struct secmap_resolver *res);
void libsecmap_resolver_life(const struct secmap_resolver *res, size_t life, uint32_t *build,
			     size_t *nr_maps);
void libsecmap_resolver_life_map(const struct secmap_resolver *res, size_t life, size_t i,
				 struct libsecmap_map_info *out);
void libsecmap_resolver_build(const struct secmap_resolver *res, uint32_t build,
			      struct libsecmap_build_info *out);
/* The symbols of a section of a build, sorted by start (functions, in code). */
size_t libsecmap_resolver_symbols(const struct secmap_resolver *res, uint32_t build,
				  uint32_t section, const struct libsecmap_sym **syms);

#endif /* LIBSECMAP_INTERNAL_H */
