// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The tasks of a perf.data, as perf models them: processes (by pid) with
 * the files mapped in them (MMAP/MMAP2, by time), threads (by tid) with
 * their names (COMM, by time), and FORKs, which copy a parent's maps and
 * name to the child. Read in one pass before the samples, so that each
 * sample finds its task's state at its time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/perf_event.h>

#include "session.h"

const char *walk_intern(struct interned *t, const char *s)
{
	uint64_t h = libsecmap_hashmap_hash(&t->map, s, strlen(s));
	struct libsecmap_hashmap_slot *slot;
	char *copy;

	for (slot = libsecmap_hashmap_probe(&t->map, h); slot;
	     slot = libsecmap_hashmap_next(&t->map, h, slot))
		if (!strcmp((const char *)slot->item, s))
			return (const char *)slot->item;
	copy = strdup(s);
	if (copy && libsecmap_hashmap_add(&t->map, h, (uintptr_t)copy)) {
		free(copy);
		return NULL;
	}
	return copy;
}

void walk_free_interned(struct interned *t)
{
	size_t i;

	for (i = 0; i < t->map.size; i++)
		if (t->map.slots[i].hash)
			free((char *)t->map.slots[i].item);
	libsecmap_hashmap_free(&t->map);
}

/* Task @id, or NULL; with @create, made if new (which may move every task). */
struct task *walk_find_task(struct task_table *tab, int32_t id, bool create)
{
	uint64_t h = libsecmap_hashmap_hash_u64(&tab->by_id, (uint32_t)id);
	struct libsecmap_hashmap_slot *slot;
	struct task *t;

	for (slot = libsecmap_hashmap_probe(&tab->by_id, h); slot;
	     slot = libsecmap_hashmap_next(&tab->by_id, h, slot))
		if (tab->tasks[slot->item].id == id)
			return &tab->tasks[slot->item];
	if (!create || libsecmap_grow_in(&tab->tasks, &tab->cap, tab->nr, sizeof(*tab->tasks), 4) ||
	    libsecmap_hashmap_add(&tab->by_id, h, tab->nr))
		return NULL;
	t = &tab->tasks[tab->nr++];
	memset(t, 0, sizeof(*t));
	t->id = id;
	return t;
}

void walk_free_tasks(struct task_table *tab)
{
	size_t i;

	for (i = 0; i < tab->nr; i++) {
		free(tab->tasks[i].maps);
		span_index_free(tab->tasks[i].index);
		free(tab->tasks[i].comms);
		free(tab->tasks[i].fork_comms);
	}
	free(tab->tasks);
	libsecmap_hashmap_free(&tab->by_id);
}

/*
 * Whether @rec maps memory no file backs, where perf looks for a JIT's
 * symbols (in /tmp/perf-PID.map) when it is executable: perf's
 * is_anon_memory() and is_no_dso_memory(), and its rule for MMAP
 * records, which have no protection bits: executable unless "data".
 */
static bool jit_map(const struct secmap_perf_record *rec)
{
	static const char *const prefixes[] = { "//anon", "/dev/zero", "/anon_hugepage",
						"[stack", "/SYSV" };
	bool exec = rec->kind == SECMAP_PERF_REC_MMAP2 ? rec->prot & PROT_EXEC :
		    !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
	size_t i;

	if (!exec)
		return false;
	if (!strcmp(rec->filename, "[heap]") ||
	    (rec->kind == SECMAP_PERF_REC_MMAP2 && rec->flags & MAP_HUGETLB))
		return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(rec->filename, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A map of @len bytes at @start into @t, named @path (interned). 0 or -ENOMEM. */
int walk_add_map(struct task *t, const struct secmap_perf_record *rec,
		 const char *path, bool identity)
{
	struct user_map *m;
	int err;

	err = libsecmap_grow_in(&t->maps, &t->cap_maps, t->nr_maps, sizeof(*t->maps), 4);
	if (err)
		return err;
	m = &t->maps[t->nr_maps++];
	memset(m, 0, sizeof(*m));
	m->start = rec->start;
	m->end = rec->start + rec->len;
	m->pgoff = rec->pgoff;
	m->time = rec->fields & PERF_SAMPLE_TIME ? rec->time : 0;
	m->path = path;
	m->identity = identity;
	return 0;
}

static int add_user_map(struct secmap_session *w, const struct secmap_perf_record *rec)
{
	struct task *t;
	const char *path;
	char jit[32];
	bool identity;

	if (!rec->filename || rec->start + rec->len < rec->start)
		return 0;
	/* Kernel maps (pid -1): perf's, for what the recording does not know. */
	if (rec->pid < 0)
		return walk_add_kernel_map(w, rec);
	/* perf's name for JIT code, and the map's addresses as they are (the JIT's map holds those). */
	identity = jit_map(rec);
	if (identity)
		snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)rec->pid);
	t = walk_find_task(&w->processes, rec->pid, true);
	path = walk_intern(&w->strings, identity ? jit : rec->filename);
	if (!t || !path)
		return -ENOMEM;
	/* Processes' maps only: the budget is for what FORKs copy of them. */
	w->nr_own_maps++;
	return walk_add_map(t, rec, path, identity);
}

static int add_comm(struct secmap_session *w, const struct secmap_perf_record *rec)
{
	struct task *t = walk_find_task(&w->threads, rec->tid, true);
	struct comm_at *c;
	const char *comm = walk_intern(&w->strings, rec->comm);

	if (!t || !comm)
		return -ENOMEM;
	if (libsecmap_grow_in(&t->comms, &t->cap_comms, t->nr_comms, sizeof(*t->comms), 4))
		return -ENOMEM;
	c = t->comms;
	c[t->nr_comms].time = rec->fields & PERF_SAMPLE_TIME ? rec->time : 0;
	c[t->nr_comms].comm = comm;
	t->nr_comms++;
	return 0;
}

static int cmp_map_time(const void *a, const void *b)
{
	const struct user_map *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * A task of more maps than this gets a span index; fewer are scanned, as
 * fast, with nothing to build.
 */
#define SCAN_MAX_MAPS	32

/*
 * For each map, when a later one that overlaps it was mapped: until then
 * it answers for every address it holds. By time, the first later map
 * that overlaps is the earliest.
 */
static int index_maps(struct task *t)
{
	size_t i, j;

	if (t->nr_maps > SCAN_MAX_MAPS) {
		struct span *spans = malloc(t->nr_maps * sizeof(*spans));

		if (!spans)
			return -ENOMEM;
		for (i = 0; i < t->nr_maps; i++)
			spans[i] = (struct span){ t->maps[i].start, t->maps[i].end };
		t->index = span_index_new(spans, t->nr_maps);
		free(spans);
		if (!t->index)
			return -ENOMEM;
	}
	for (i = 0; i < t->nr_maps; i++) {
		struct user_map *m = &t->maps[i];
		ssize_t later = -1;

		if (t->index) {
			later = span_index_next_overlap(t->index, i, m->start, m->end);
		} else {
			for (j = i + 1; j < t->nr_maps && later < 0; j++)
				if (t->maps[j].start < m->end && m->start < t->maps[j].end)
					later = (ssize_t)j;
		}
		m->shadow = later < 0 ? UINT64_MAX : t->maps[later].time;
	}
	return 0;
}

/* How many of @t's maps were made at @time or before. */
static size_t maps_until(const struct task *t, uint64_t time)
{
	size_t lo = 0, hi = t->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->maps[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct user_map *walk_find_map(struct task *t, uint64_t ip, uint64_t time)
{
	const struct user_map *any = NULL, *m;
	size_t i;

	/*
	 * A task's samples mostly hit the map that answered it last, though
	 * other tasks' samples come between (one task a CPU).
	 */
	if (t->last_map < t->nr_maps && time != SECMAP_TIME_ANY) {
		m = &t->maps[t->last_map];
		if (m->start <= ip && ip < m->end && m->time <= time && time < m->shadow)
			return m;
	}
	if (t->index) {
		size_t before = time == SECMAP_TIME_ANY ? t->nr_maps : maps_until(t, time);
		ssize_t found = span_index_last(t->index, before, ip);

		if (found < 0)
			found = span_index_first(t->index, ip);
		if (found >= 0) {
			t->last_map = (size_t)found;
			any = &t->maps[found];
		}
	}
	for (i = t->index ? 0 : t->nr_maps; i-- > 0;) {
		m = &t->maps[i];
		if (m->start > ip || ip >= m->end)
			continue;
		t->last_map = i;
		any = m;
		if (time == SECMAP_TIME_ANY || m->time <= time)
			break;
	}
	return any;
}

static int cmp_comm_time(const void *a, const void *b)
{
	const struct comm_at *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * Thread @t's comm at @time: the last one set at or before it; NULL before
 * the first, as perf, which names a thread only from the COMM or FORK it
 * has replayed by then (one lost under load leaves samples before the next).
 * The index past it; *@from and *@until (exclusive) narrowed to the times
 * it holds for.
 */
static size_t last_comm(const struct comm_at *c, size_t n, uint64_t time,
			uint64_t *from, uint64_t *until)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && c[lo - 1].time > *from)
		*from = c[lo - 1].time;
	if (lo < n && c[lo].time < *until)
		*until = c[lo].time;
	return lo;
}

/*
 * A name from a FORK yields to a COMM of the same time (synthesized at
 * start, the child's own name). The same name holds for every time in
 * [*@from, *@until): a thread's samples ask again and again.
 */
const char *walk_comm_span(const struct task *t, uint64_t time, uint64_t *from, uint64_t *until)
{
	size_t own, forked;

	*from = 0;
	*until = UINT64_MAX;
	own = last_comm(t->comms, t->nr_comms, time, from, until);
	forked = last_comm(t->fork_comms, t->nr_fork_comms, time, from, until);
	if (forked && (!own || t->fork_comms[forked - 1].time > t->comms[own - 1].time))
		return t->fork_comms[forked - 1].comm;
	return own ? t->comms[own - 1].comm : NULL;
}

const char *walk_comm_at(const struct task *t, uint64_t time)
{
	uint64_t from, until;

	return walk_comm_span(t, time, &from, &until);
}

/*
 * perf's name for a thread it knows no COMM of: ":TID" (":-1" for a
 * sample of no task). Such a thread's samples each ask: the names are
 * remembered, not printed and interned again. NULL if out of memory.
 */
const char *walk_unnamed_comm(struct secmap_session *w, int32_t tid)
{
	struct unnamed_comm *u = &w->unnamed[(uint32_t)tid % UNNAMED_COMMS];
	char name[16];

	if (u->name && u->tid == tid)
		return u->name;
	snprintf(name, sizeof(name), ":%d", (int)tid);
	u->tid = tid;
	u->name = walk_intern(&w->strings, name);
	return u->name;
}

/* A FORK record, applied once every MMAP and COMM is known. */
struct fork_at {
	uint64_t time;
	int32_t pid, ppid, tid, ptid;
	size_t seq;		/* file order, for equal times */
};

static int cmp_fork_time(const void *a, const void *b)
{
	const struct fork_at *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_map_identity(const void *a, const void *b)
{
	const struct user_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->path < y->path ? -1 : x->path > y->path;
}

/*
 * Maps FORKs may copy in all: 2^20, or 8 per map in the file if more. A
 * few FORKs of a process with many maps, or two pids forking each other,
 * copy without end otherwise (a ping-pong of 32 records took 1.3 GB).
 */
size_t walk_inherit_budget(const struct secmap_session *w)
{
	return w->nr_own_maps > (1u << 17) ? 8 * w->nr_own_maps : 1u << 20;
}

/*
 * @parent's maps of @time or before that @child has not: each once, by a
 * sort and a merge, so that forks back and forth add nothing new. Into
 * *@out (malloc()ed, NULL if none), their number the return value, or
 * -ENOMEM.
 */
static ssize_t maps_to_inherit(const struct task *parent, const struct task *child,
			       uint64_t time, struct user_map **out)
{
	struct user_map *inh, *own = NULL;
	size_t i, j = 0, n = 0, kept = 0;

	*out = NULL;
	for (i = 0; i < parent->nr_maps; i++)
		n += parent->maps[i].time <= time;
	if (!n)
		return 0;
	inh = malloc(n * sizeof(*inh));
	if (child->nr_maps)
		own = malloc(child->nr_maps * sizeof(*own));
	if (!inh || (child->nr_maps && !own)) {
		free(inh);
		free(own);
		return -ENOMEM;
	}
	for (i = 0, n = 0; i < parent->nr_maps; i++)
		if (parent->maps[i].time <= time)
			inh[n++] = parent->maps[i];
	qsort(inh, n, sizeof(*inh), cmp_map_identity);
	if (own) {
		memcpy(own, child->maps, child->nr_maps * sizeof(*own));
		qsort(own, child->nr_maps, sizeof(*own), cmp_map_identity);
	}
	for (i = 0; i < n; i++) {
		int c = 1;

		if (kept && !cmp_map_identity(&inh[kept - 1], &inh[i]))
			continue;
		while (j < child->nr_maps && (c = cmp_map_identity(&own[j], &inh[i])) < 0)
			j++;
		if (j < child->nr_maps && !c)
			continue;
		inh[kept++] = inh[i];
	}
	free(own);
	if (!kept) {
		free(inh);
		return 0;
	}
	*out = inh;
	return (ssize_t)kept;
}

/*
 * A new process starts with its parent's mappings as they were at the
 * fork, and a new thread (of a new process or not) with its parent
 * thread's name then: perf does the same on FORK, and a child that never
 * execs has no MMAP or COMM record of its own. Forks are applied in time
 * order, not file order: a grandchild's FORK can come in the file before
 * its parent's, from another CPU's buffer, and must find what its parent
 * inherited. Threads' comms are sorted.
 */
static int apply_fork(struct secmap_session *w, const struct fork_at *f)
{
	struct task *child, *parent;
	struct user_map *maps, *inh;
	ssize_t got;
	struct comm_at *comms;
	const char *comm;
	size_t n;

	if (f->pid != f->ppid && f->pid >= 0) {
		/* The child first: creating it may move the table, finding the parent cannot. */
		child = walk_find_task(&w->processes, f->pid, true);
		if (!child)
			return -ENOMEM;
		parent = walk_find_task(&w->processes, f->ppid, false);
		got = 0;
		inh = NULL;
		if (parent && parent != child && !w->inherit_capped)
			got = maps_to_inherit(parent, child, f->time, &inh);
		if (got < 0)
			return -ENOMEM;
		n = (size_t)got;
		if (n && w->nr_inherited + n > walk_inherit_budget(w)) {
			w->inherit_capped = true;
			n = 0;
		}
		/*
		 * Inherited maps go first: at equal times (synthesized at start)
		 * the child's own, from its exec, must win where they overlap.
		 */
		if (n) {
			maps = realloc(inh, (child->nr_maps + n) * sizeof(*maps));
			if (!maps) {
				free(inh);
				return -ENOMEM;
			}
			inh = NULL;
			if (child->nr_maps)
				memcpy(maps + n, child->maps, child->nr_maps * sizeof(*maps));
			free(child->maps);
			child->maps = maps;
			child->nr_maps += n;
			child->cap_maps = child->nr_maps;
			w->nr_inherited += n;
		}
		free(inh);
	}
	if (f->tid == f->ptid || f->tid < 0)
		return 0;
	child = walk_find_task(&w->threads, f->tid, true);
	if (!child)
		return -ENOMEM;
	parent = walk_find_task(&w->threads, f->ptid, false);
	comm = parent ? walk_comm_at(parent, f->time) : NULL;
	if (!comm)
		return 0;
	/*
	 * Named as its parent from the fork on, until an exec or a prctl
	 * renames it. Forks come in time order: the list stays sorted.
	 */
	if (libsecmap_grow_in(&child->fork_comms, &child->cap_fork_comms, child->nr_fork_comms,
			      sizeof(*child->fork_comms), 4))
		return -ENOMEM;
	comms = child->fork_comms;
	comms[child->nr_fork_comms].time = f->time;
	comms[child->nr_fork_comms].comm = comm;
	child->nr_fork_comms++;
	return 0;
}

/*
 * Every MMAP and COMM first: perf writes each CPU's buffer in turn, so a
 * task's mmap can come in the file after its samples taken on another CPU
 * (perf script sorts by time; this keeps the file's order), and the map
 * valid at a sample's time is what names its file.
 */
int walk_prescan(struct secmap_session *w)
{
	struct fork_at *forks = NULL, *f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	size_t i, j, nr_forks = 0, cap_forks = 0;
	int ret, err = 0;

	ret = secmap_perf_data_open(w->input, &pd);
	if (ret)
		return ret;
	secmap_perf_data_skip_samples(pd, true);
	while (!err && (ret = secmap_perf_data_next(pd, &rec)) == 1) {
		if (rec.kind == SECMAP_PERF_REC_MMAP || rec.kind == SECMAP_PERF_REC_MMAP2) {
			err = add_user_map(w, &rec);
		} else if (rec.kind == SECMAP_PERF_REC_KSYMBOL) {
			err = walk_add_kernel_code(w, &rec);
		} else if (rec.kind == SECMAP_PERF_REC_COMM) {
			err = add_comm(w, &rec);
		} else if (rec.kind == SECMAP_PERF_REC_LOST) {
			w->lost.chunks++;
			w->lost.events += rec.period;
		} else if (rec.kind == SECMAP_PERF_REC_LOST_SAMPLES) {
			w->lost.samples += rec.period;
		} else if (rec.kind == SECMAP_PERF_REC_FORK) {
			if (nr_forks == cap_forks) {
				cap_forks = cap_forks ? 2 * cap_forks : 256;
				f = realloc(forks, cap_forks * sizeof(*forks));
				if (!f) {
					err = -ENOMEM;
					break;
				}
				forks = f;
			}
			forks[nr_forks] = (struct fork_at) {
				.time = rec.fields & PERF_SAMPLE_TIME ? rec.time : 0,
				.pid = rec.pid, .ppid = rec.ppid, .tid = rec.tid,
				.ptid = rec.ptid, .seq = nr_forks,
			};
			nr_forks++;
		}
	}
	secmap_perf_data_close(pd);
	/* A corrupt record shows in the main pass, where its samples are. */
	for (i = 0; !err && i < w->threads.nr; i++) {
		struct task *t = &w->threads.tasks[i];

		if (t->nr_comms > 1)
			qsort(t->comms, t->nr_comms, sizeof(*t->comms), cmp_comm_time);
	}
	if (nr_forks > 1)
		qsort(forks, nr_forks, sizeof(*forks), cmp_fork_time);
	for (i = 0; !err && i < nr_forks; i++)
		err = apply_fork(w, &forks[i]);
	free(forks);
	for (i = 0; !err && i < w->processes.nr + w->kernel.nr; i++) {
		struct task *t = i < w->processes.nr ? &w->processes.tasks[i] :
			&w->kernel.tasks[i - w->processes.nr];

		if (t->nr_maps > 1) {
			for (j = 0; j < t->nr_maps; j++)
				t->maps[j].seq = j;
			qsort(t->maps, t->nr_maps, sizeof(*t->maps), cmp_map_time);
		}
		err = index_maps(t);
	}
	return err;
}
