/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's one JSON writer: a document is described value by value and
 * written to a FILE as it goes, compact or pretty. See json_out.c.
 *
 * Calls take a @key inside an object and NULL inside an array (or for the
 * top-level value). Errors are sticky: after the first, calls do nothing,
 * and json_out_finish() reports it.
 */
#ifndef SECMAP_JSON_OUT_H
#define SECMAP_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Deeper than any document secmap prints. */
#define JSON_OUT_MAX_DEPTH 16
/* Output is gathered in a buffer of this size before fwrite(). */
#define JSON_OUT_BUF_SIZE (64 * 1024)

/*
 * The writer's state, here only so that the value calls below inline: use
 * the functions. With a literal key the compiler knows the key's bytes, so
 * a compact member is a few stores (`dump -j` of 1000 modules writes some
 * 270 000 of them, and this was most of its instructions).
 */
struct json_out {
	char *buf;			/* JSON_OUT_BUF_SIZE bytes */
	size_t len;
	int err;			/* the first error; later calls do nothing */
	unsigned int depth;		/* open objects and arrays */
	bool pretty;
	bool done;			/* the top-level value is complete */
	/* No error, compact, and the innermost open value is an object, or an array: the inline cases. */
	bool in_compact_object, in_compact_array;
	bool is_array[JSON_OUT_MAX_DEPTH];
	bool has_items[JSON_OUT_MAX_DEPTH];	/* the next item needs a comma */
	FILE *f;
};

/*
 * One JSON text to @f, followed by a newline: compact (no blanks), or with
 * @pretty one member or element per line, indented by two spaces. Callers
 * pass pretty_output, or false where the output is one document per line
 * whatever the options (monitor, show, resolve). NULL if out of memory.
 */
struct json_out *json_out_stream(FILE *f, bool pretty);

void json_out_array_begin(struct json_out *o, const char *key);
void json_out_array_end(struct json_out *o);

/* The general case of the calls below (json_out.c); the inline paths take the common one. */
void json_out_object_begin_any(struct json_out *o, const char *key);
void json_out_object_end_any(struct json_out *o);
void json_out_str_any(struct json_out *o, const char *key, const char *str);
void json_out_hex_any(struct json_out *o, const char *key, uint64_t val);
void json_out_u64_any(struct json_out *o, const char *key, uint64_t val);
void json_out_bool_any(struct json_out *o, const char *key, bool val);
void json_out_null_any(struct json_out *o, const char *key);
/* For the inline paths: a value's text from @p, returning its end. */
char *json_out_format_hex(char *p, uint64_t val);
char *json_out_format_u64(char *p, uint64_t val);
void json_out_string_at(struct json_out *o, char *p, const char *str);

/*
 * Bytes a string may hold as they are: printable ASCII but '"' and '\\'.
 * Here, not in json_out.c, so that a literal key's check folds away.
 */
static const bool json_out_plain[256] = {
	[0x20 ... '"' - 1] = true, ['"' + 1 ... '\\' - 1] = true, ['\\' + 1 ... 0x7f] = true,
};

/*
 * The common case: a member of an open object, compact, whose key needs
 * no escaping, with @room bytes left after it. Then its comma and key are
 * written and the position after them returned; else NULL, and nothing
 * is. For a literal key, strlen() and the scan fold away.
 */
static inline __attribute__((always_inline)) char *
json_out_member(struct json_out *o, const char *key, size_t room)
{
	size_t len, i;
	char *p;

	if (!key || !o->in_compact_object)
		return NULL;
	len = strlen(key);
	/* Unrolled, so that with a literal key the checks fold. */
#pragma GCC unroll 32
	for (i = 0; i < len; i++)
		if (!json_out_plain[(unsigned char)key[i]])
			return NULL;
	if (JSON_OUT_BUF_SIZE - o->len < len + 4 + room)
		return NULL;
	p = o->buf + o->len;
	*p = ',';
	p += o->has_items[o->depth - 1];
	o->has_items[o->depth - 1] = true;
	*p++ = '"';
	memcpy(p, key, len);
	p += len;
	*p++ = '"';
	*p++ = ':';
	return p;
}

/* An object: one element of an array (sections, modules) is the common case. */
static inline void json_out_object_begin(struct json_out *o, const char *key)
{
	unsigned int d = o->depth;
	char *p;

	if (key || !o->in_compact_array || d == JSON_OUT_MAX_DEPTH ||
	    JSON_OUT_BUF_SIZE - o->len < 2) {
		json_out_object_begin_any(o, key);
		return;
	}
	p = o->buf + o->len;
	*p = ',';
	p += o->has_items[d - 1];
	o->has_items[d - 1] = true;
	*p++ = '{';
	o->len = p - o->buf;
	o->is_array[d] = false;
	o->has_items[d] = false;
	o->depth = d + 1;
	o->in_compact_object = true;
	o->in_compact_array = false;
}

static inline void json_out_object_end(struct json_out *o)
{
	unsigned int d = o->depth;

	/* Inside another value: the document goes on. */
	if (!o->in_compact_object || d < 2 || o->len == JSON_OUT_BUF_SIZE) {
		json_out_object_end_any(o);
		return;
	}
	o->buf[o->len++] = '}';
	o->depth = d - 1;
	o->in_compact_object = !o->is_array[d - 2];
	o->in_compact_array = o->is_array[d - 2];
}

/* A string, or null when @str is NULL. */
static inline void json_out_str(struct json_out *o, const char *key, const char *str)
{
	char *p = str ? json_out_member(o, key, 0) : NULL;

	if (p)
		json_out_string_at(o, p, str);
	else
		json_out_str_any(o, key, str);
}

/* A number's text, at most 20 bytes, by @format; by @any when not the common case. */
static inline void json_out_formatted(struct json_out *o, const char *key, uint64_t val,
				      char *(*format)(char *p, uint64_t val),
				      void (*any)(struct json_out *o, const char *key, uint64_t val))
{
	char *p = json_out_member(o, key, 20);

	if (p)
		o->len = format(p, val) - o->buf;
	else
		any(o, key, val);
}

/* A string such as "0xffffffffc0564000": addresses (JSON numbers lose 64-bit precision). */
static inline void json_out_hex(struct json_out *o, const char *key, uint64_t val)
{
	json_out_formatted(o, key, val, json_out_format_hex, json_out_hex_any);
}

static inline void json_out_u64(struct json_out *o, const char *key, uint64_t val)
{
	json_out_formatted(o, key, val, json_out_format_u64, json_out_u64_any);
}

static inline void json_out_bool(struct json_out *o, const char *key, bool val)
{
	char *p = json_out_member(o, key, 5);

	if (!p) {
		json_out_bool_any(o, key, val);
	} else if (val) {
		memcpy(p, "true", 4);
		o->len = p + 4 - o->buf;
	} else {
		memcpy(p, "false", 5);
		o->len = p + 5 - o->buf;
	}
}

static inline void json_out_null(struct json_out *o, const char *key)
{
	char *p = json_out_member(o, key, 4);

	if (!p) {
		json_out_null_any(o, key);
		return;
	}
	memcpy(p, "null", 4);
	o->len = p + 4 - o->buf;
}

/* Record a failure met while describing the document (e.g. -ENOMEM); the first one sticks. */
void json_out_fail(struct json_out *o, int err);

/*
 * End and free @o (NULL: json_out_stream() ran out of memory): write the
 * final newline and flush @f. 0, -ENOMEM, -EINVAL (the calls did not
 * describe one complete value), or -errno of a failed write.
 */
int json_out_finish(struct json_out *o);

#endif /* SECMAP_JSON_OUT_H */
