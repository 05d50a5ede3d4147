// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * When each module load began, from perf's module:module_load tracepoint.
 * The kernel's KOBJ_ADD uevent comes once a module's init has finished;
 * the tracepoint fires just before init runs, and its perf samples carry
 * the module's name and perf's clock. The uevent watch asks here, at each
 * ADD, when that module's load reached the tracepoint: from then on its
 * sections (the init ones too, until the ADD) are where sysfs says.
 * One ring buffer per CPU, a system-wide event in each; tracefs names the
 * event's id and where the name lies in its raw data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
				      uint64_t *time, char name[LIBSECMAP_UEVENT_NAME_MAX])
{
	const uint8_t *p = rec, *raw;
	struct perf_event_header h;
	uint32_t raw_size, loc, at, n;

	if (len < sizeof(h) + 8 + 4)
		return -EPROTO;
	memcpy(&h, p, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE || h.size != len)
		return -EAGAIN;	/* PERF_RECORD_LOST and the like */
	memcpy(time, p + sizeof(h), 8);
	memcpy(&raw_size, p + sizeof(h) + 8, 4);
	raw = p + sizeof(h) + 8 + 4;
	if (raw_size > len - (sizeof(h) + 8 + 4) || name_offset > raw_size ||
	    raw_size - name_offset < 4)
		return -EPROTO;
	/* __data_loc: where the string lies in the raw data (low 16 bits), its length (high). */
	memcpy(&loc, raw + name_offset, 4);
	at = loc & 0xffff;
	n = loc >> 16;
	if (!n || at > raw_size || raw_size - at < n)
		return -EPROTO;
	if (!memchr(raw + at, '\0', n) || strnlen((const char *)raw + at, n) >= LIBSECMAP_UEVENT_NAME_MAX ||
	    !raw[at])
		return -EPROTO;
	strcpy(name, (const char *)raw + at);
	return 0;
}

/* module_load's id and name offset, from the first tracefs that has it. */
static int read_format(uint64_t *id, uint32_t *name_offset)
{
	char path[128], text[4096];
	size_t i, n;
	FILE *f;
	int err = -ENOENT;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/module/module_load/format", tracefs_dirs[i]);
		f = fopen(path, "re");
		if (!f) {
			err = -errno;
			continue;
		}
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		return libsecmap_load_trace_parse_format(text, id, name_offset);
	}
	return err;
}

int libsecmap_load_trace_open(struct libsecmap_load_trace *t)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
	};
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t id;
	int cpu, err;

	memset(t, 0, sizeof(*t));
	err = read_format(&id, &t->name_offset);
	if (err)
		return err;
	attr.config = id;
	if (cpus < 1)
		cpus = 1;
	if (cpus > LOAD_TRACE_MAX_CPUS)
		cpus = LOAD_TRACE_MAX_CPUS;
	t->rings = calloc((size_t)cpus, sizeof(*t->rings));
	if (!t->rings)
		return -ENOMEM;
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

	for (i = 0; i < t->nr_rings; i++)
		libsecmap_perf_ring_close(&t->rings[i]);
	free(t->rings);
	t->rings = NULL;
	t->nr_rings = 0;
}

void libsecmap_load_trace_note(struct libsecmap_load_trace *t, const char *name, uint64_t time)
{
	struct libsecmap_load_seen *seen = &t->seen[t->next_seen];

	/* The oldest goes: a load whose ADD never came (its init failed). */
	t->next_seen = (t->next_seen + 1) % LIBSECMAP_LOAD_SEEN;
	snprintf(seen->name, sizeof(seen->name), "%s", name);
	seen->time = time;
}

/* Every load the rings hold since the last call, into the recent ones. */
static void drain(struct libsecmap_load_trace *t)
{
	uint64_t rec[64], time;
	char name[LIBSECMAP_UEVENT_NAME_MAX];
	size_t i;
	int n;

	for (i = 0; i < t->nr_rings; i++)
		while ((n = libsecmap_perf_ring_next(&t->rings[i], rec, sizeof(rec))) > 0)
			if (!libsecmap_load_trace_parse_sample(rec, (size_t)n, t->name_offset,
							       &time, name))
				libsecmap_load_trace_note(t, name, time);
}

int libsecmap_load_trace_take(struct libsecmap_load_trace *t, const char *name,
			      uint64_t not_after, uint64_t *time)
{
	struct libsecmap_load_seen *s;
	size_t i;

	*time = 0;
	drain(t);
	for (i = 0; i < LIBSECMAP_LOAD_SEEN; i++) {
		s = &t->seen[i];
		if (s->time && s->time <= not_after && s->time > *time && !strcmp(s->name, name))
			*time = s->time;
	}
	if (!*time)
		return -ENOENT;
	/* That load, and any earlier one of the name (whose init failed), are done. */
	for (i = 0; i < LIBSECMAP_LOAD_SEEN; i++) {
		s = &t->seen[i];
		if (s->time && s->time <= *time && !strcmp(s->name, name))
			s->time = 0;
	}
	return 0;
}
