// SPDX-License-Identifier: GPL-2.0
/*
 * Resolved samples as a pprof profile (github.com/google/pprof,
 * proto/profile.proto), gzipped as pprof expects it.
 *
 * - Values: per event, its samples (count) and its period (nanoseconds
 *   for cpu-clock and task-clock, else a count); the first event's period
 *   is the default, as perf report's overhead is.
 * - A sample is its stack, innermost first (its callchain, or its own
 *   frame), and labels for comm, pid, tid and cpu; equal ones are one
 *   sample with their values added.
 * - A location is an address and, where one is known, the function there.
 *   Module functions carry their module and section in the function's
 *   file name ("[mod] .text.unlikely"): the same address can be two
 *   functions when a module was reloaded, so a location is keyed by both.
 * - A mapping is a user file's mmap (its pgoff and build-id), a module's
 *   section as loaded (its offset in the .ko and the module's build-id:
 *   what a symbol server needs), or the kernel's text.
 *
 * Field numbers are profile.proto's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../lib/hashmap.h"
#include "pprof.h"
#include "protobuf.h"

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL,
	LABEL_KEY = 1, LABEL_STR, LABEL_NUM,
	MAPPING_ID = 1, MAPPING_START, MAPPING_LIMIT, MAPPING_OFFSET, MAPPING_FILENAME,
	MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
};

struct pp_mapping {
	const void *key[3];	/* dso, section, start: one per region as loaded */
	uint64_t start, limit, offset;
	int64_t filename, build_id;
	bool all_named;		/* every location in it has a function */
	bool fixed_limit;	/* the frame said where it ends */
};

struct pp_function {
	int64_t name, filename;
};

struct pp_location {
	uint64_t ip;
	const void *key[3];	/* symbol, dso, section */
	size_t mapping;		/* index + 1; 0: none */
	size_t function;	/* index + 1; 0: none */
};

struct pp_sample {
	size_t key_at, key_len;	/* its words in the pool: locations, then labels */
	size_t values_at;	/* 2 per event in the values */
};

struct pprof {
	size_t nr_events;
	const char *const *names;
	char **strings;
	size_t nr_strings, cap_strings;
	struct libsecmap_hashmap string_map, mapping_map, function_map, location_map,
				 sample_map;
	struct pp_mapping *mappings;
	size_t nr_mappings, cap_mappings;
	struct pp_function *functions;
	size_t nr_functions, cap_functions;
	struct pp_location *locations;
	size_t nr_locations, cap_locations;
	struct pp_sample *samples;
	size_t nr_samples, cap_samples;
	uint64_t *pool, *values;
	size_t pool_len, pool_cap, values_len, values_cap;
	uint64_t *key;		/* the sample being added */
	size_t key_cap;
	uint64_t first_time, last_time;
	bool has_time;
	/* The events that have samples: only theirs are values (perf's dummy event has none). */
	bool *sampled;
	size_t *used;
	size_t nr_used;
};

/* Room for @n more items in *@arr; 0 or -ENOMEM. */
static int grow(void *arrp, size_t *cap, size_t nr, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	if (nr + n <= *cap)
		return 0;
	while (c < nr + n) {
		if (c > SIZE_MAX / 2 / size)
			return -ENOMEM;
		c *= 2;
	}
	p = realloc(*(void **)arrp, c * size);
	if (!p)
		return -ENOMEM;
	*(void **)arrp = p;
	*cap = c;
	return 0;
}

/* @s's index in the string table, added if new; -1 if out of memory. */
static int64_t string_id(struct pprof *p, const char *s)
{
	uint64_t h = libsecmap_hashmap_hash(&p->string_map, s, strlen(s));
	struct libsecmap_hashmap_slot *slot;

	for (slot = libsecmap_hashmap_probe(&p->string_map, h); slot;
	     slot = libsecmap_hashmap_next(&p->string_map, h, slot))
		if (!strcmp(p->strings[slot->item], s))
			return (int64_t)slot->item;
	if (grow(&p->strings, &p->cap_strings, p->nr_strings, 1, sizeof(*p->strings)))
		return -1;
	p->strings[p->nr_strings] = strdup(s);
	if (!p->strings[p->nr_strings] ||
	    libsecmap_hashmap_add(&p->string_map, h, p->nr_strings)) {
		free(p->strings[p->nr_strings]);
		return -1;
	}
	return (int64_t)p->nr_strings++;
}

struct pprof *pprof_new(size_t nr_events, const char *const *names)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->nr_events = nr_events;
	p->names = names;
	p->sampled = calloc(nr_events + 1, sizeof(*p->sampled));
	p->used = calloc(nr_events + 1, sizeof(*p->used));
	libsecmap_hashmap_init(&p->string_map);
	libsecmap_hashmap_init(&p->mapping_map);
	libsecmap_hashmap_init(&p->function_map);
	libsecmap_hashmap_init(&p->location_map);
	libsecmap_hashmap_init(&p->sample_map);
	/* The string table starts with "", as profile.proto requires. */
	if (!p->sampled || !p->used || string_id(p, "")) {
		pprof_free(p);
		return NULL;
	}
	return p;
}

void pprof_free(struct pprof *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_strings; i++)
		free(p->strings[i]);
	free(p->strings);
	libsecmap_hashmap_free(&p->string_map);
	libsecmap_hashmap_free(&p->mapping_map);
	libsecmap_hashmap_free(&p->function_map);
	libsecmap_hashmap_free(&p->location_map);
	libsecmap_hashmap_free(&p->sample_map);
	free(p->mappings);
	free(p->functions);
	free(p->locations);
	free(p->samples);
	free(p->pool);
	free(p->values);
	free(p->key);
	free(p->sampled);
	free(p->used);
	free(p);
}

/* The mapping of frame @f: its index + 1, 0 for none (an unknown address), -1 without memory. */
static ssize_t mapping_of(struct pprof *p, const struct secmap_frame *f)
{
	const void *key[3] = { f->dso, f->section, (const void *)(uintptr_t)f->map_start };
	struct libsecmap_hashmap_slot *slot;
	char id[SECMAP_BUILD_ID_STR_SIZE] = "";
	struct pp_mapping *m;
	uint64_t h;

	if (!f->module)
		return 0;
	h = libsecmap_hashmap_hash(&p->mapping_map, key, sizeof(key));
	for (slot = libsecmap_hashmap_probe(&p->mapping_map, h); slot;
	     slot = libsecmap_hashmap_next(&p->mapping_map, h, slot))
		if (!memcmp(p->mappings[slot->item].key, key, sizeof(key)))
			return (ssize_t)slot->item + 1;
	if (grow(&p->mappings, &p->cap_mappings, p->nr_mappings, 1, sizeof(*p->mappings)) ||
	    libsecmap_hashmap_add(&p->mapping_map, h, p->nr_mappings))
		return -1;
	m = &p->mappings[p->nr_mappings];
	memset(m, 0, sizeof(*m));
	memcpy(m->key, key, sizeof(key));
	m->all_named = true;
	m->start = f->map_start ? f->map_start : f->ip;
	m->limit = f->map_end ? f->map_end : f->ip + 1;
	m->fixed_limit = f->map_end;
	/* The file offset at @start: where a symbol server finds the code. */
	if (f->file_offset && f->ip - m->start <= f->file_offset)
		m->offset = f->file_offset - (f->ip - m->start);
	if (f->build_id_len)
		secmap_build_id_str(f->build_id, f->build_id_len, id, sizeof(id));
	m->filename = string_id(p, f->dso);
	m->build_id = string_id(p, id);
	if (m->filename < 0 || m->build_id < 0)
		return -1;
	return (ssize_t)p->nr_mappings++ + 1;
}

/* The function of frame @f: its index + 1, 0 for none, -1 without memory. */
static ssize_t function_of(struct pprof *p, const struct secmap_frame *f)
{
	struct libsecmap_hashmap_slot *slot;
	int64_t name, file = 0;
	char buf[600];
	int64_t key[2];
	uint64_t h;

	if (!f->symbol)
		return 0;
	name = string_id(p, f->symbol);
	if (f->section) {
		snprintf(buf, sizeof(buf), "%s %s", f->dso, f->section);
		file = string_id(p, buf);
	}
	if (name < 0 || file < 0)
		return -1;
	key[0] = name;
	key[1] = file;
	h = libsecmap_hashmap_hash(&p->function_map, key, sizeof(key));
	for (slot = libsecmap_hashmap_probe(&p->function_map, h); slot;
	     slot = libsecmap_hashmap_next(&p->function_map, h, slot))
		if (p->functions[slot->item].name == name && p->functions[slot->item].filename == file)
			return (ssize_t)slot->item + 1;
	if (grow(&p->functions, &p->cap_functions, p->nr_functions, 1, sizeof(*p->functions)) ||
	    libsecmap_hashmap_add(&p->function_map, h, p->nr_functions))
		return -1;
	p->functions[p->nr_functions] = (struct pp_function){ name, file };
	return (ssize_t)p->nr_functions++ + 1;
}

/* The location of frame @f: its id (index + 1), 0 without memory. */
static uint64_t location_of(struct pprof *p, const struct secmap_frame *f)
{
	const void *key[3] = { f->symbol, f->dso, f->section };
	struct libsecmap_hashmap_slot *slot;
	struct pp_location *l;
	ssize_t map, fn;
	uint64_t h;

	h = libsecmap_hashmap_combine(libsecmap_hashmap_hash_u64(&p->location_map, f->ip),
				      libsecmap_hashmap_hash(&p->location_map, key, sizeof(key)));
	for (slot = libsecmap_hashmap_probe(&p->location_map, h); slot;
	     slot = libsecmap_hashmap_next(&p->location_map, h, slot)) {
		l = &p->locations[slot->item];
		if (l->ip == f->ip && !memcmp(l->key, key, sizeof(key)))
			return slot->item + 1;
	}
	map = mapping_of(p, f);
	fn = function_of(p, f);
	if (map < 0 || fn < 0 ||
	    grow(&p->locations, &p->cap_locations, p->nr_locations, 1, sizeof(*p->locations)) ||
	    libsecmap_hashmap_add(&p->location_map, h, p->nr_locations))
		return 0;
	if (map) {
		struct pp_mapping *m = &p->mappings[map - 1];

		if (!fn)
			m->all_named = false;
		/* A region whose end is not known reaches past its last address seen. */
		if (!m->fixed_limit && f->ip >= m->limit)
			m->limit = f->ip + 1;
		if (!m->fixed_limit && f->ip < m->start)
			m->start = f->ip;
	}
	l = &p->locations[p->nr_locations];
	l->ip = f->ip;
	memcpy(l->key, key, sizeof(key));
	l->mapping = (size_t)map;
	l->function = (size_t)fn;
	return ++p->nr_locations;
}

/* Label words of a sample: comm's string id, pid, tid, cpu + 1 (0: none). */
#define LABEL_WORDS	4

int pprof_add(struct pprof *p, const struct secmap_sample *s)
{
	size_t i, n = s->nr_chain ? s->nr_chain : 1, len = n + LABEL_WORDS;
	struct libsecmap_hashmap_slot *slot;
	struct pp_sample *ps;
	int64_t comm;
	uint64_t h, *v;

	if (s->event >= p->nr_events)
		return 0;
	if (grow(&p->key, &p->key_cap, 0, len, sizeof(*p->key)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p->key[i] = location_of(p, s->nr_chain ? secmap_frame_at(s->chain, i) : s->frame);
		if (!p->key[i])
			return -ENOMEM;
	}
	comm = string_id(p, s->comm ? s->comm : "");
	if (comm < 0)
		return -ENOMEM;
	p->key[n] = (uint64_t)comm;
	p->key[n + 1] = (uint32_t)s->pid;
	p->key[n + 2] = (uint32_t)s->tid;
	p->key[n + 3] = s->has_cpu ? (uint64_t)s->cpu + 1 : 0;
	if (s->has_time) {
		if (!p->has_time || s->time < p->first_time)
			p->first_time = s->time;
		if (!p->has_time || s->time > p->last_time)
			p->last_time = s->time;
		p->has_time = true;
	}
	h = libsecmap_hashmap_hash(&p->sample_map, p->key, len * sizeof(*p->key));
	for (slot = libsecmap_hashmap_probe(&p->sample_map, h); slot;
	     slot = libsecmap_hashmap_next(&p->sample_map, h, slot)) {
		ps = &p->samples[slot->item];
		if (ps->key_len == len && !memcmp(p->pool + ps->key_at, p->key, len * sizeof(*p->key)))
			goto add;
	}
	if (grow(&p->samples, &p->cap_samples, p->nr_samples, 1, sizeof(*p->samples)) ||
	    grow(&p->pool, &p->pool_cap, p->pool_len, len, sizeof(*p->pool)) ||
	    grow(&p->values, &p->values_cap, p->values_len, 2 * p->nr_events, sizeof(*p->values)) ||
	    libsecmap_hashmap_add(&p->sample_map, h, p->nr_samples))
		return -ENOMEM;
	ps = &p->samples[p->nr_samples++];
	ps->key_at = p->pool_len;
	ps->key_len = len;
	ps->values_at = p->values_len;
	memcpy(p->pool + p->pool_len, p->key, len * sizeof(*p->key));
	p->pool_len += len;
	memset(p->values + p->values_len, 0, 2 * p->nr_events * sizeof(*p->values));
	p->values_len += 2 * p->nr_events;
add:
	v = p->values + ps->values_at + 2 * s->event;
	v[0]++;
	v[1] += s->period;
	p->sampled[s->event] = true;
	return 0;
}

/* cpu-clock and task-clock count nanoseconds; other events, events. */
static const char *event_unit(const char *name)
{
	size_t n = strcspn(name, ":/");

	if ((n == 9 && !strncmp(name, "cpu-clock", n)) || (n == 10 && !strncmp(name, "task-clock", n)))
		return "nanoseconds";
	return "count";
}

static void value_type(struct pprof *p, struct pb_buf *out, struct pb_buf *msg, uint32_t field,
		       const char *type, const char *unit)
{
	int64_t t = string_id(p, type), u = string_id(p, unit);

	if (t < 0 || u < 0) {
		out->failed = true;
		return;
	}
	pb_reset(msg);
	pb_uint(msg, VALUE_TYPE_TYPE, (uint64_t)t);
	pb_uint(msg, VALUE_TYPE_UNIT, (uint64_t)u);
	pb_message(out, field, msg);
}

/* The sample types, two per event; the first event's period is the default. */
static void encode_types(struct pprof *p, struct pb_buf *out, struct pb_buf *msg)
{
	const char *first;
	char name[300];
	size_t i, e;

	for (e = 0, p->nr_used = 0; e < p->nr_events; e++)
		if (p->sampled[e])
			p->used[p->nr_used++] = e;
	for (i = 0; i < p->nr_used; i++) {
		e = p->used[i];
		if (p->nr_used == 1)
			snprintf(name, sizeof(name), "samples");
		else
			snprintf(name, sizeof(name), "%s:samples", p->names[e]);
		value_type(p, out, msg, PROFILE_SAMPLE_TYPE, name, "count");
		value_type(p, out, msg, PROFILE_SAMPLE_TYPE, p->names[e], event_unit(p->names[e]));
	}
	if (p->nr_used) {
		first = p->names[p->used[0]];
		value_type(p, out, msg, PROFILE_PERIOD_TYPE, first, event_unit(first));
		pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, (uint64_t)string_id(p, first));
	}
}

static void encode_label(struct pb_buf *sample, struct pb_buf *label, int64_t key, int64_t str,
			 uint64_t num)
{
	pb_reset(label);
	pb_uint(label, LABEL_KEY, (uint64_t)key);
	pb_uint(label, LABEL_STR, (uint64_t)str);
	pb_uint(label, LABEL_NUM, num);
	pb_message(sample, SAMPLE_LABEL, label);
}

static void encode_samples(struct pprof *p, struct pb_buf *out, struct pb_buf *msg,
			   struct pb_buf *label)
{
	int64_t keys[4] = { string_id(p, "comm"), string_id(p, "pid"), string_id(p, "tid"),
			    string_id(p, "cpu") };
	uint64_t *values = calloc(2 * p->nr_used + 1, sizeof(*values));
	size_t i, j, n;

	if (keys[0] < 0 || keys[1] < 0 || keys[2] < 0 || keys[3] < 0 || !values) {
		out->failed = true;
		free(values);
		return;
	}
	for (i = 0; i < p->nr_samples; i++) {
		const struct pp_sample *s = &p->samples[i];
		const uint64_t *k = p->pool + s->key_at;

		n = s->key_len - LABEL_WORDS;
		pb_reset(msg);
		pb_packed(msg, SAMPLE_LOCATION_ID, k, n);
		for (j = 0; j < p->nr_used; j++) {
			values[2 * j] = p->values[s->values_at + 2 * p->used[j]];
			values[2 * j + 1] = p->values[s->values_at + 2 * p->used[j] + 1];
		}
		pb_packed(msg, SAMPLE_VALUE, values, 2 * p->nr_used);
		encode_label(msg, label, keys[0], (int64_t)k[n], 0);
		encode_label(msg, label, keys[1], 0, k[n + 1]);
		encode_label(msg, label, keys[2], 0, k[n + 2]);
		if (k[n + 3])
			encode_label(msg, label, keys[3], 0, k[n + 3] - 1);
		pb_message(out, PROFILE_SAMPLE, msg);
	}
	free(values);
}

static void encode_tables(struct pprof *p, struct pb_buf *out, struct pb_buf *msg,
			  struct pb_buf *line)
{
	size_t i;

	for (i = 0; i < p->nr_mappings; i++) {
		const struct pp_mapping *m = &p->mappings[i];

		pb_reset(msg);
		pb_uint(msg, MAPPING_ID, i + 1);
		pb_uint(msg, MAPPING_START, m->start);
		pb_uint(msg, MAPPING_LIMIT, m->limit);
		pb_uint(msg, MAPPING_OFFSET, m->offset);
		pb_uint(msg, MAPPING_FILENAME, (uint64_t)m->filename);
		pb_uint(msg, MAPPING_BUILD_ID, (uint64_t)m->build_id);
		pb_uint(msg, MAPPING_HAS_FUNCTIONS, m->all_named);
		pb_message(out, PROFILE_MAPPING, msg);
	}
	for (i = 0; i < p->nr_locations; i++) {
		const struct pp_location *l = &p->locations[i];

		pb_reset(msg);
		pb_uint(msg, LOCATION_ID, i + 1);
		pb_uint(msg, LOCATION_MAPPING_ID, l->mapping);
		pb_uint(msg, LOCATION_ADDRESS, l->ip);
		if (l->function) {
			pb_reset(line);
			pb_uint(line, LINE_FUNCTION_ID, l->function);
			pb_message(msg, LOCATION_LINE, line);
		}
		pb_message(out, PROFILE_LOCATION, msg);
	}
	for (i = 0; i < p->nr_functions; i++) {
		const struct pp_function *f = &p->functions[i];

		pb_reset(msg);
		pb_uint(msg, FUNCTION_ID, i + 1);
		pb_uint(msg, FUNCTION_NAME, (uint64_t)f->name);
		pb_uint(msg, FUNCTION_SYSTEM_NAME, (uint64_t)f->name);
		pb_uint(msg, FUNCTION_FILENAME, (uint64_t)f->filename);
		pb_message(out, PROFILE_FUNCTION, msg);
	}
}

/* @len bytes gzipped to @fd. */
static int gzip_to(int fd, const uint8_t *data, size_t len)
{
	uint8_t chunk[1 << 16];
	z_stream z = { 0 };
	int ret, err = 0;
	ssize_t n;
	size_t off;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)data;
	do {
		/* zlib's lengths are 32-bit: a larger buffer goes in pieces. */
		size_t in = len - (size_t)((const uint8_t *)z.next_in - data);

		z.avail_in = in > (1u << 30) ? 1u << 30 : (unsigned int)in;
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, z.avail_in == in ? Z_FINISH : Z_NO_FLUSH);
		if (ret == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		for (off = 0; off < sizeof(chunk) - z.avail_out; off += (size_t)n) {
			n = write(fd, chunk + off, sizeof(chunk) - z.avail_out - off);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0) {
				err = n < 0 ? -errno : -EIO;
				break;
			}
		}
	} while (!err && ret != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int pprof_write(struct pprof *p, int fd)
{
	struct pb_buf out = { 0 }, msg = { 0 }, sub = { 0 };
	size_t i;
	int err;

	encode_types(p, &out, &msg);
	encode_samples(p, &out, &msg, &sub);
	encode_tables(p, &out, &msg, &sub);
	if (p->has_time)
		pb_uint(&out, PROFILE_DURATION_NANOS, p->last_time - p->first_time);
	/* Last: every string is in the table by now. */
	for (i = 0; i < p->nr_strings; i++)
		pb_string(&out, PROFILE_STRING_TABLE, p->strings[i]);
	err = out.failed || msg.failed || sub.failed ? -ENOMEM : gzip_to(fd, out.data, out.len);
	pb_free(&out);
	pb_free(&msg);
	pb_free(&sub);
	return err;
}
