/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A perf session's private state, shared by session.c (reading, frames,
 * ordering) and tasks.c (perf's task model: processes and their maps,
 * threads and their names, FORKs; read in a first pass over the file).
 */
#ifndef LIBSECMAP_SESSION_H
#define LIBSECMAP_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"
#include "hashmap.h"
#include "resolve/span_index.h"

#define CLOCK_MONOTONIC_ID	1
/* perf script's default callchain depth. */
#define MAX_STACK		127
#define AHEAD			64	/* samples read ahead, see struct secmap_session */
#define KERNEL_BATCH		1024	/* kernel frames resolved in one call */
#define CORE_ANSWERS		4096	/* core kernel answers remembered */

/* Strings (comms, paths) kept for the walk's lifetime, each once: items are malloc()ed copies. */
struct interned {
	struct libsecmap_hashmap map;
};

struct user_map {
	uint64_t start, end;
	uint64_t pgoff;		/* the file offset mapped at @start */
	uint64_t time;		/* when it was mapped (0: unknown, before all) */
	uint64_t shadow;	/* when a later map overlapping it was made */
	const char *path;
	size_t seq;		/* order among equal times: the later one wins */
	bool identity;		/* JIT code: the "file" (/tmp/perf-PID.map) holds addresses */
};

/*
 * User-space symbols (user_syms.c): per file the session's maps name (by
 * interned path), its functions, read on the first frame in it.
 */
struct user_file;
struct user_answer;
#define USER_BUILD_ID_MAX	20
/* A file's build-id as perf recorded it (HEADER_BUILD_ID). */
struct user_recorded {
	const char *path;	/* interned */
	uint8_t id[USER_BUILD_ID_MAX];
	size_t len;
};
struct libsecmap_user_syms {
	struct libsecmap_hashmap by_path;	/* items index @files */
	struct user_file **files;
	size_t nr_files, cap_files;
	struct user_file *last;			/* the one asked for last */
	struct libsecmap_hashmap recorded_by_path;	/* items index @recorded */
	struct user_recorded *recorded;
	size_t nr_recorded, cap_recorded;
	char *buildid_dir;	/* perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug); NULL: none */
	struct user_answer *answers;	/* USER_ANSWERS of them, made on the first frame */
};
void libsecmap_user_syms_init(struct libsecmap_user_syms *u);
void libsecmap_user_syms_free(struct libsecmap_user_syms *u);
/*
 * The build-id perf recorded for the file at @path (interned), before
 * any frame is resolved: its functions then come from that build. 0 or
 * -ENOMEM; a second one for a path is ignored.
 */
int libsecmap_user_syms_recorded(struct libsecmap_user_syms *u, const char *path,
				 const uint8_t *id, size_t len);
/* user_files.c: the build-id perf recorded for @path (interned), or NULL. */
const struct user_recorded *libsecmap_user_recorded(const struct libsecmap_user_syms *u,
						    const char *path);
/*
 * Whether @path, from a perf.data, may be opened: absolute, no "..", not
 * under /proc, /sys or /dev.
 */
bool libsecmap_user_path_ok(const char *path);
/* The path of perf's build-id cache's copy of @want for @path: malloc()ed; NULL if none. */
char *libsecmap_user_cached_copy(const struct libsecmap_user_syms *u, const char *path,
				 const struct user_recorded *want);
/*
 * Into @frame (zeroed by the caller): the function at @file_offset in the
 * file at @path (interned), if one is known, and the file's build-id. 0,
 * or -ENOMEM.
 */
int libsecmap_user_symbol(struct libsecmap_user_syms *u, const char *path, uint64_t file_offset,
			  struct secmap_frame *frame);

struct comm_at {
	uint64_t time;
	const char *comm;
};

/*
 * A process (by pid: its file mappings) or a thread (by tid: its names),
 * as perf keeps them: threads share their process's maps, and each has
 * its own name (prctl(PR_SET_NAME) renames one thread).
 */
struct task {
	int32_t id;
	struct user_map *maps;		/* by time */
	size_t nr_maps, cap_maps;
	struct span_index *index;	/* of the maps, when more than SCAN_MAX_MAPS */
	struct comm_at *comms;		/* its COMMs, by time */
	size_t nr_comms, cap_comms;
	struct comm_at *fork_comms;	/* its parents' names at its FORKs, by time */
	size_t nr_fork_comms, cap_fork_comms;
	size_t last_map;		/* resolve_user(): the map that answered last */
};

/* Tasks, found by id: the map's items index @tasks. */
struct task_table {
	struct task *tasks;
	size_t nr, cap;
	struct libsecmap_hashmap by_id;
};

/* What every sample of an event shares, looked up once. */
struct event_info {
	uint64_t period;	/* when samples carry none: perf record -c's, else 1 */
	bool callchain;		/* its samples record callchains (perf record -g) */
};

/* PERF_RECORD_LOST (chunks, events) and LOST_SAMPLES, as perf's file says. */
struct session_lost {
	uint64_t chunks, events, samples;
};

/* Names of threads with no COMM remembered, by tid (a power of two). */
#define UNNAMED_COMMS	64

struct secmap_session {
	char *input;
	struct secmap_perf_data *pd;
	struct event_info *events;	/* by event index */
	size_t nr_events;
	const struct secmap_resolver *res;
	bool want_chain;
	struct interned strings;
	struct libsecmap_user_syms user_syms;
	struct task_table processes;	/* by pid: maps */
	struct task_table threads;	/* by tid: names */
	/* perf's kernel maps (kernel_maps.c): KERNEL_CODE's and KERNEL_MAPS' */
	struct task_table kernel;
	/* Maps FORKs copied, against a budget from the maps the file has. */
	size_t nr_own_maps, nr_inherited;	/* own: processes' MMAPs, not the kernel's */
	bool inherit_capped;
	struct session_lost lost;
	struct secmap_frame *chain;
	size_t chain_cap;
	/*
	 * Samples read ahead of the caller, AHEAD at most, each with the
	 * callchain buffer it was read into. A read's end or error is kept as
	 * the last item, and said when the caller gets there.
	 */
	struct ahead *ahead;
	size_t nr_ahead, ahead_pos;
	/*
	 * Kernel frames of the samples read ahead (their own ips and their
	 * callchains'), still to resolve: in one secmap_resolve_many(),
	 * which fetches the memory of the next lookups while it answers the
	 * first (twice the lookups a second of one at a time; make bench).
	 */
	struct secmap_frame *kernel_frames[KERNEL_BATCH];
	uint64_t kernel_ips[KERNEL_BATCH], kernel_times[KERNEL_BATCH];
	struct secmap_resolution kernel_res[KERNEL_BATCH];
	int kernel_ret[KERNEL_BATCH];
	size_t nr_kernel;
	/*
	 * The core kernel's answers, by address, where no module ever
	 * overlapped its text (they hold at any time): a sample in a hot
	 * function is then a lookup here, not a trip through the resolver.
	 */
	uint64_t core_lo, core_len;	/* core_len 0: none */
	struct core_answer {
		uint64_t ip;
		const char *module, *dso, *symbol;
		uint64_t symbol_offset;
	} *core_answers;
	/* kernel_frame(): the last module answered, and its "[module]" dso */
	const char *last_module;
	const char *last_module_dso;
	/* walk_kernel_fallback(): the last of perf's module maps, and its bare name */
	const char *last_fallback_dso;
	const char *last_fallback_module;
	bool last_fallback_known;	/* that module is the recording's */
	/* The recording's module names, interned, in pointer order; built on first need. */
	const char **known_modules;
	size_t nr_known_modules;
	bool known_modules_built;
	/* sample_walk_next(): the last pid and tid looked up, and their tasks (or NULL) */
	struct task *last_task;
	const struct task *last_thread;
	int32_t last_pid, last_tid;
	bool last_task_set, last_thread_set;
	/* last_thread's name, and the times it holds for: [comm_from, comm_until) */
	const char *last_comm;
	uint64_t comm_from, comm_until;
	/* walk_unnamed_comm()'s names, by tid: threads of no COMM come back at every sample */
	struct unnamed_comm {
		int32_t tid;
		const char *name;	/* NULL: free */
	} unnamed[UNNAMED_COMMS];
	/* SECMAP_SESSION_ORDERED: samples held until a round says they are due */
	bool ordered;
	struct queued *pending;		/* not due yet: a heap, the oldest first */
	size_t nr_pending, cap_pending;
	size_t pending_bytes;		/* what they hold, callchains included */
	bool queue_capped;		/* QUEUE_BYTES_MAX was reached */
	struct queued *due;		/* by time, handed out from due_pos */
	size_t nr_due, cap_due, due_pos;
	uint64_t seen_max;		/* the latest sample time read */
	uint64_t round_max;		/* seen_max at the previous FINISHED_ROUND */
	uint64_t seq;
	bool eof;
	/* next_sample(): how reading ended, once it has */
	bool read_ended;
	int read_end;
	char read_error[256];		/* the reason of read_end, given when it is reached */
};

/* A sample read ahead, with the callchain buffer it owns; or how the read ended. */
struct ahead {
	int ret;		/* read_sample()'s */
	struct secmap_sample s;
	struct secmap_frame frame;	/* s.frame */
	struct secmap_frame *chain;
	size_t chain_cap;
};

/* A sample held back for time order, with its own copy of the callchain. */
struct queued {
	struct secmap_sample s;
	struct secmap_frame frame;	/* s.frame, once due */
	struct secmap_frame *chain;
	uint64_t seq;
};

/* tasks.c */
const char *walk_intern(struct interned *t, const char *s);
int walk_prescan(struct secmap_session *w);
struct task *walk_find_task(struct task_table *tab, int32_t id, bool create);
const char *walk_comm_at(const struct task *t, uint64_t time);
const char *walk_comm_span(const struct task *t, uint64_t time, uint64_t *from, uint64_t *until);
const char *walk_unnamed_comm(struct secmap_session *w, int32_t tid);
void walk_free_interned(struct interned *t);
void walk_free_tasks(struct task_table *tab);
int walk_add_map(struct task *t, const struct secmap_perf_record *rec,
		 const char *path, bool identity);
/*
 * The map of @t at @ip at @time: the latest made then, else the first
 * ever there; NULL if none.
 */
const struct user_map *walk_find_map(struct task *t, uint64_t ip, uint64_t time);

/* kernel_maps.c */
#define KERNEL_CODE	0	/* code the kernel announced with KSYMBOL (BPF programs...) */
#define KERNEL_MAPS	1	/* perf's pid -1 maps: the kernel's text, modules */
int walk_add_kernel_code(struct secmap_session *w, const struct secmap_perf_record *rec);
int walk_add_kernel_map(struct secmap_session *w, const struct secmap_perf_record *rec);
/*
 * Into @f, a kernel frame the recording does not know: what perf's
 * kernel maps say of @ip at @time. 0 (@f untouched when they say
 * nothing either) or -ENOMEM.
 */
int walk_kernel_fallback(struct secmap_session *w, uint64_t ip, uint64_t time,
			 struct secmap_frame *f);

/* The most maps FORKs may copy, from the maps the file has. */
size_t walk_inherit_budget(const struct secmap_session *w);

#endif /* LIBSECMAP_SESSION_H */
