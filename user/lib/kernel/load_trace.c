// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * When each module load began, from perf's tracepoints. The kernel's
 * KOBJ_ADD uevent comes once a module's init has finished;
 * module:module_load fires just before init runs, and its perf samples
 * carry the module's name, the loading task and perf's clock. The load
 * began earlier still, at that task's init_module() or finit_module()
 * (syscalls:sys_enter_*, where the kernel has syscall tracepoints): its
 * memory was allocated, and its parameters parsed, in between. The
 * uevent watch asks here, at each ADD, when that module's load began.
 * One ring buffer per CPU, module_load's; the syscalls' events on that
 * CPU write into it too. tracefs names the events' ids and where the
 * name lies in module_load's raw data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "internal.h"

/* Two pages a CPU: some 90 loads in flight between two ADDs. */
#define LOAD_RING_PAGES 2
/* More CPUs than this are not looked at: their loads get the ADD's time. */
#define LOAD_TRACE_MAX_CPUS 4096

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* "offset:N;" after @key in @line, or -1. */
static long field_number(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	char *end;
	long v;

	if (!p)
		return -1;
	v = strtol(p + strlen(key), &end, 10);
	return end != p + strlen(key) && *end == ';' && v >= 0 ? v : -1;
}

int libsecmap_load_trace_parse_format(const char *text, uint64_t *id, uint32_t *name_offset)
{
	const char *line, *next;
	bool have_id = false, have_name = false;
	char *end;

	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strncmp(line, "ID: ", 4)) {
			*id = strtoull(line + 4, &end, 10);
			have_id = end != line + 4 && (*end == '\n' || !*end);
		} else if (strstr(line, "field:__data_loc char[] name;") && next - line < 256) {
			char buf[256];
			long off, size;

			memcpy(buf, line, (size_t)(next - line));
			buf[next - line] = '\0';
			off = field_number(buf, "offset:");
			size = field_number(buf, "size:");
			have_name = size == 4 && off >= 0 && off < 0xffff;
			if (have_name)
				*name_offset = (uint32_t)off;
		}
	}
	return have_id && have_name ? 0 : -EPROTO;
}

int libsecmap_load_trace_parse_sample(const void *rec, size_t len, uint32_t name_offset,
				      struct libsecmap_load_sample *sample)
{
	const uint8_t *p = rec, *raw;
	struct perf_event_header h;
	uint32_t raw_size, loc, at, n;
	/* TID (pid, tid) and TIME; then RAW, module_load's only. */
	const size_t fixed = sizeof(h) + 8 + 8;

	if (len < fixed)
		return -EPROTO;
	memcpy(&h, p, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE || h.size != len)
		return -EAGAIN;	/* PERF_RECORD_LOST and the like */
	memcpy(&sample->tid, p + sizeof(h) + 4, 4);
	memcpy(&sample->time, p + sizeof(h) + 8, 8);
	sample->name[0] = '\0';
	if (len == fixed)
		return 0;	/* a syscall's: no name */
	if (len < fixed + 4)
		return -EPROTO;
	memcpy(&raw_size, p + fixed, 4);
	raw = p + fixed + 4;
	if (raw_size > len - (fixed + 4) || name_offset > raw_size || raw_size - name_offset < 4)
		return -EPROTO;
	/* __data_loc: where the string lies in the raw data (low 16 bits), its length (high). */
	memcpy(&loc, raw + name_offset, 4);
	at = loc & 0xffff;
	n = loc >> 16;
	if (!n || at > raw_size || raw_size - at < n)
		return -EPROTO;
	if (!memchr(raw + at, '\0', n) || !raw[at] ||
	    strnlen((const char *)raw + at, n) >= LIBSECMAP_UEVENT_NAME_MAX)
		return -EPROTO;
	strcpy(sample->name, (const char *)raw + at);
	return 0;
}

/* EVENT's file NAME under the first tracefs that has it, into @text. */
static int read_event_file(const char *event, const char *name, char *text, size_t size)
{
	char path[160];
	size_t i, n;
	FILE *f;
	int err = -ENOENT;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs_dirs[i], event, name);
		f = libsecmap_fopen_regular(path);
		if (!f) {
			err = -errno;
			continue;
		}
		n = fread(text, 1, size - 1, f);
		fclose(f);
		text[n] = '\0';
		return 0;
	}
	return err;
}

/* A syscall's entry event's id, 0 if the kernel has none. */
static uint64_t syscall_event_id(const char *event)
{
	char text[32], *end;
	uint64_t id;

	if (read_event_file(event, "id", text, sizeof(text)))
		return 0;
	id = strtoull(text, &end, 10);
	return end != text && (*end == '\n' || !*end) ? id : 0;
}

/*
 * The syscalls' events on @cpu, written into the ring being opened for it
 * (rings[nr_rings]); a CPU without them only gives module_load's time.
 */
static void open_starts(struct libsecmap_load_trace *t, const uint64_t ids[2], int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	};
	int i, fd;

	for (i = 0; i < 2; i++) {
		if (!ids[i])
			continue;
		attr.config = ids[i];
		fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->rings[t->nr_rings].fd)) {
			close(fd);
			continue;
		}
		t->start_fds[t->nr_start_fds++] = fd;
	}
}

int libsecmap_load_trace_open(struct libsecmap_load_trace *t)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
	};
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	char text[4096];
	uint64_t id, starts[2];
	int cpu, err;

	memset(t, 0, sizeof(*t));
	err = read_event_file("module/module_load", "format", text, sizeof(text));
	if (!err)
		err = libsecmap_load_trace_parse_format(text, &id, &t->name_offset);
	if (err)
		return err;
	attr.config = id;
	starts[0] = syscall_event_id("syscalls/sys_enter_finit_module");
	starts[1] = syscall_event_id("syscalls/sys_enter_init_module");
	if (cpus < 1)
		cpus = 1;
	if (cpus > LOAD_TRACE_MAX_CPUS)
		cpus = LOAD_TRACE_MAX_CPUS;
	t->rings = calloc((size_t)cpus, sizeof(*t->rings));
	t->start_fds = calloc((size_t)cpus * 2, sizeof(*t->start_fds));
	if (!t->rings || !t->start_fds) {
		libsecmap_load_trace_close(t);
		return -ENOMEM;
	}
	for (cpu = 0; cpu < cpus; cpu++) {
		err = libsecmap_perf_ring_open(&t->rings[t->nr_rings], &attr, -1, cpu,
					       LOAD_RING_PAGES);
		/* An offline CPU: ENODEV (or EINVAL, on older kernels). */
		if (err == -ENODEV || err == -EINVAL)
			continue;
		if (err) {
			libsecmap_load_trace_close(t);
			return err;
		}
		open_starts(t, starts, cpu);
		t->nr_rings++;
	}
	if (!t->nr_rings) {
		libsecmap_load_trace_close(t);
		return -ENODEV;
	}
	return 0;
}

void libsecmap_load_trace_close(struct libsecmap_load_trace *t)
{
	size_t i;

	/* The syscalls' events write into the rings: they go first. */
	for (i = 0; i < t->nr_start_fds; i++)
		close(t->start_fds[i]);
	for (i = 0; i < t->nr_rings; i++)
		libsecmap_perf_ring_close(&t->rings[i]);
	free(t->start_fds);
	free(t->rings);
	t->start_fds = NULL;
	t->rings = NULL;
	t->nr_start_fds = 0;
	t->nr_rings = 0;
}

void libsecmap_load_trace_note(struct libsecmap_load_trace *t,
			       const struct libsecmap_load_sample *sample)
{
	struct libsecmap_load_seen *seen;
	uint64_t start = 0;
	size_t i, at = 0;

	if (!sample->name[0]) {
		/* A syscall's start; the oldest goes. */
		t->starts[t->next_start].tid = sample->tid;
		t->starts[t->next_start].time = sample->time;
		t->next_start = (t->next_start + 1) % LIBSECMAP_LOAD_SEEN;
		return;
	}
	/* Its task's latest start before it, which no other load may take. */
	for (i = 0; i < LIBSECMAP_LOAD_SEEN; i++)
		if (t->starts[i].time && t->starts[i].tid == sample->tid &&
		    t->starts[i].time <= sample->time && t->starts[i].time > start) {
			start = t->starts[i].time;
			at = i;
		}
	if (start)
		t->starts[at].time = 0;
	/* The oldest goes: a load whose ADD never came (its init failed). */
	seen = &t->seen[t->next_seen];
	t->next_seen = (t->next_seen + 1) % LIBSECMAP_LOAD_SEEN;
	snprintf(seen->name, sizeof(seen->name), "%s", sample->name);
	seen->time = sample->time;
	seen->start = start ? start : sample->time;
}

/* Every record the rings hold since the last call, into the recent ones. */
static void drain(struct libsecmap_load_trace *t)
{
	struct libsecmap_load_sample sample;
	uint64_t rec[64];
	size_t i;
	int n;

	for (i = 0; i < t->nr_rings; i++)
		while ((n = libsecmap_perf_ring_next(&t->rings[i], rec, sizeof(rec))) > 0)
			if (!libsecmap_load_trace_parse_sample(rec, (size_t)n, t->name_offset,
							       &sample))
				libsecmap_load_trace_note(t, &sample);
}

int libsecmap_load_trace_take(struct libsecmap_load_trace *t, const char *name,
			      uint64_t not_after, uint64_t *start, uint64_t *loaded)
{
	struct libsecmap_load_seen *s, *found = NULL;
	size_t i;

	*start = *loaded = 0;
	drain(t);
	for (i = 0; i < LIBSECMAP_LOAD_SEEN; i++) {
		s = &t->seen[i];
		if (s->time && s->time <= not_after && (!found || s->time > found->time) &&
		    !strcmp(s->name, name))
			found = s;
	}
	if (!found)
		return -ENOENT;
	*start = found->start;
	*loaded = found->time;
	/* That load, and any earlier one of the name (whose init failed), are done. */
	for (i = 0; i < LIBSECMAP_LOAD_SEEN; i++) {
		s = &t->seen[i];
		if (s->time && s->time <= *loaded && !strcmp(s->name, name))
			s->time = 0;
	}
	return 0;
}
