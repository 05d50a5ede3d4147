// SPDX-License-Identifier: GPL-2.0
/*
 * secmap tool: JSON output, as a json-c tree or streamed (json_out.h).
 *
 * Why a stream as well: `secmap dump -j` at 1000 modules is some 250000
 * JSON values. Made into json-c objects, serialised and freed, they cost
 * about 11000 instructions per section (250 M in all), most of the
 * command's time; written straight out they cost a few hundred. The
 * stream does not escape strings itself: one holding nothing JSON requires
 * escaped (RFC 8259: '"', '\\' and U+0000 to U+001F) is copied as is, as
 * json-c copies it; any other goes through json-c's own serialiser. So
 * both ways print the same bytes, which the unit tests check against
 * json-c for every byte value and for whole dumps. --pretty, and anything
 * that wants the objects (monitor), use the tree.
 *
 * JSON text is UTF-8 (RFC 8259, section 8.1) and json-c copies other
 * bytes as they are, while names from the kernel or a .ko may be any
 * bytes: both ways replace each byte of an invalid UTF-8 sequence with
 * U+FFFD, as decoders do, so that every output parses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_out.h"
#include "secmap_cli.h"

/* Deeper than any document secmap prints. */
#define JSON_OUT_MAX_DEPTH 16
/* Stream output is gathered in a buffer of this size before fwrite(). */
#define JSON_OUT_BUF_SIZE (64 * 1024)
/* As json-c prints when asked for compact output. */
#define JSON_OUT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

struct json_out {
	int err;			/* the first error; later calls do nothing */
	unsigned int depth;		/* open objects and arrays */
	bool is_array[JSON_OUT_MAX_DEPTH];
	bool has_items[JSON_OUT_MAX_DEPTH];	/* stream: the next item needs a comma */
	bool done;			/* the top-level value is complete */

	/* stream */
	FILE *f;
	char *buf;
	size_t len;
	struct json_object *escaper;	/* a json-c string, for strings that need escaping */

	/* tree */
	struct json_object *root;
	struct json_object *stack[JSON_OUT_MAX_DEPTH];
};

struct json_out *json_out_stream(FILE *f)
{
	struct json_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->f = f;
	o->buf = malloc(JSON_OUT_BUF_SIZE);
	if (!o->buf) {
		free(o);
		return NULL;
	}
	return o;
}

struct json_out *json_out_tree(void)
{
	return calloc(1, sizeof(struct json_out));
}

static void set_err(struct json_out *o, int err)
{
	if (!o->err)
		o->err = err;
}

void json_out_fail(struct json_out *o, int err)
{
	set_err(o, err);
}

/* --- stream ------------------------------------------------------------- */

static void flush_buf(struct json_out *o)
{
	if (o->len && !o->err) {
		errno = 0;
		if (fwrite(o->buf, 1, o->len, o->f) != o->len)
			set_err(o, errno ? -errno : -EIO);
	}
	o->len = 0;
}

static void put(struct json_out *o, const char *s, size_t n)
{
	if (o->len + n > JSON_OUT_BUF_SIZE) {
		flush_buf(o);
		if (n > JSON_OUT_BUF_SIZE) {
			errno = 0;
			if (!o->err && fwrite(s, 1, n, o->f) != n)
				set_err(o, errno ? -errno : -EIO);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void put_char(struct json_out *o, char c)
{
	if (o->len == JSON_OUT_BUF_SIZE)
		flush_buf(o);
	o->buf[o->len++] = c;
}

/*
 * Can @s go out between quotes as it is? Only '"', '\\' and U+0000 to
 * U+001F must be escaped (RFC 8259, section 7). Its length into *@len.
 */
static bool copy_as_is(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == '"' || *p == '\\')
			return false;
	*len = p - (const unsigned char *)s;
	return true;
}

/*
 * The common case in one pass: @s, quoted, copied into the buffer while
 * checking that it needs no escaping. False, with nothing written, if it
 * does or if the buffer fills first.
 */
static bool put_string_fast(struct json_out *o, const char *s)
{
	const unsigned char *c = (const unsigned char *)s;
	/* Room for the opening and closing quotes and what lies between. */
	size_t room = JSON_OUT_BUF_SIZE - o->len, i;
	char *p = o->buf + o->len;

	if (room < 2)
		return false;
	room -= 2;
	p[0] = '"';
	for (i = 0; c[i] >= 0x20 && c[i] < 0x80 && c[i] != '"' && c[i] != '\\'; i++) {
		if (i == room)
			return false;
		p[i + 1] = c[i];
	}
	if (c[i])
		return false;
	p[i + 1] = '"';
	o->len += i + 2;
	return true;
}

static void put_string(struct json_out *o, const char *s)
{
	const char *text = NULL;
	char *valid = NULL;
	size_t len;

	if (put_string_fast(o, s))
		return;
	if (!utf8_valid(s)) {
		valid = utf8_replace_invalid(s);
		if (!valid)
			goto nomem;
		s = valid;
	}
	if (copy_as_is(s, &len)) {
		put_char(o, '"');
		put(o, s, len);
		put_char(o, '"');
		free(valid);
		return;
	}
	/* json-c's serialiser escapes it, quotes included, as it would in a tree. */
	if (!o->escaper)
		o->escaper = json_object_new_string(s);
	else if (json_object_set_string(o->escaper, s) != 1)
		goto nomem;
	if (o->escaper)
		text = json_object_to_json_string_length(o->escaper, JSON_OUT_FLAGS, &len);
	if (!text)
		goto nomem;
	put(o, text, len);
	free(valid);
	return;
nomem:
	free(valid);
	set_err(o, -ENOMEM);
}

struct json_object *json_string_new(const char *s)
{
	struct json_object *str;
	char *valid;

	if (utf8_valid(s))
		return json_object_new_string(s);
	valid = utf8_replace_invalid(s);
	if (!valid)
		return NULL;
	str = json_object_new_string(valid);
	free(valid);
	return str;
}

/* The comma and key that come before a value at the current depth. */
static void put_prefix(struct json_out *o, const char *key)
{
	if (o->depth) {
		if (o->has_items[o->depth - 1])
			put_char(o, ',');
		o->has_items[o->depth - 1] = true;
	}
	if (key) {
		put_string(o, key);
		put_char(o, ':');
	}
}

/* --- both --------------------------------------------------------------- */

/* May a value come here, with or without @key? */
static bool value_ok(struct json_out *o, const char *key)
{
	if (o->err)
		return false;
	if (o->done || (o->depth ? o->is_array[o->depth - 1] == !!key : !!key)) {
		set_err(o, -EINVAL);
		return false;
	}
	return true;
}

/* Tree: add @val (NULL: JSON null) where the next value goes. */
static void attach(struct json_out *o, const char *key, struct json_object *val)
{
	struct json_object *parent;
	int ret;

	if (!o->depth) {
		o->root = val;
		return;
	}
	parent = o->stack[o->depth - 1];
	if (o->is_array[o->depth - 1])
		ret = json_object_array_add(parent, val);
	else
		ret = json_object_object_add_ex(parent, key, val, JSON_C_OBJECT_ADD_CONSTANT_KEY);
	if (ret) {
		json_object_put(val);
		set_err(o, -ENOMEM);
	}
}

/* Tree: a newly made @val (NULL: out of memory). */
static void attach_new(struct json_out *o, const char *key, struct json_object *val)
{
	if (!val)
		set_err(o, -ENOMEM);
	else
		attach(o, key, val);
}

static void value_done(struct json_out *o)
{
	if (!o->depth)
		o->done = true;
}

static void begin(struct json_out *o, const char *key, bool array)
{
	if (!value_ok(o, key))
		return;
	if (o->depth == JSON_OUT_MAX_DEPTH) {
		set_err(o, -EINVAL);
		return;
	}
	if (o->f) {
		put_prefix(o, key);
		put_char(o, array ? '[' : '{');
	} else {
		struct json_object *c = array ? json_object_new_array() : json_object_new_object();

		attach_new(o, key, c);
		if (o->err)
			return;
		o->stack[o->depth] = c;
	}
	o->is_array[o->depth] = array;
	o->has_items[o->depth] = false;
	o->depth++;
}

static void end(struct json_out *o, bool array)
{
	if (o->err)
		return;
	if (!o->depth || o->is_array[o->depth - 1] != array) {
		set_err(o, -EINVAL);
		return;
	}
	o->depth--;
	if (o->f)
		put_char(o, array ? ']' : '}');
	value_done(o);
}

void json_out_object_begin(struct json_out *o, const char *key)
{
	begin(o, key, false);
}

void json_out_object_end(struct json_out *o)
{
	end(o, false);
}

void json_out_array_begin(struct json_out *o, const char *key)
{
	begin(o, key, true);
}

void json_out_array_end(struct json_out *o)
{
	end(o, true);
}

void json_out_null(struct json_out *o, const char *key)
{
	if (!value_ok(o, key))
		return;
	if (o->f) {
		put_prefix(o, key);
		put(o, "null", 4);
	} else {
		attach(o, key, NULL);
	}
	value_done(o);
}

void json_out_str(struct json_out *o, const char *key, const char *str)
{
	if (!str) {
		json_out_null(o, key);
		return;
	}
	if (!value_ok(o, key))
		return;
	if (o->f) {
		put_prefix(o, key);
		put_string(o, str);
	} else {
		attach_new(o, key, json_string_new(str));
	}
	value_done(o);
}

/* @val in decimal, ending at @end; returns where it starts. */
static char *format_dec(char *end, uint64_t val)
{
	do {
		*--end = '0' + val % 10;
		val /= 10;
	} while (val);
	return end;
}

/* @val in lowercase hex without leading zeros, ending at @end; returns where it starts. */
static char *format_hex(char *end, uint64_t val)
{
	static const char digits[] = "0123456789abcdef";

	do {
		*--end = digits[val & 0xf];
		val >>= 4;
	} while (val);
	return end;
}

void json_out_hex(struct json_out *o, const char *key, uint64_t val)
{
	char buf[2 + 16 + 1], *end = buf + sizeof(buf) - 1, *p;

	if (!value_ok(o, key))
		return;
	*end = '\0';
	p = format_hex(end, val);
	*--p = 'x';
	*--p = '0';
	if (o->f) {
		/* Nothing to escape in it. */
		put_prefix(o, key);
		put_char(o, '"');
		put(o, p, end - p);
		put_char(o, '"');
	} else {
		attach_new(o, key, json_object_new_string_len(p, end - p));
	}
	value_done(o);
}

void json_out_u64(struct json_out *o, const char *key, uint64_t val)
{
	char buf[20], *end = buf + sizeof(buf), *p;

	if (!value_ok(o, key))
		return;
	if (o->f) {
		p = format_dec(end, val);
		put_prefix(o, key);
		put(o, p, end - p);
	} else {
		attach_new(o, key, json_object_new_uint64(val));
	}
	value_done(o);
}

void json_out_bool(struct json_out *o, const char *key, bool val)
{
	if (!value_ok(o, key))
		return;
	if (o->f) {
		put_prefix(o, key);
		if (val)
			put(o, "true", 4);
		else
			put(o, "false", 5);
	} else {
		attach_new(o, key, json_object_new_boolean(val));
	}
	value_done(o);
}

int json_out_finish(struct json_out *o, struct json_object **root)
{
	int err;

	if (root)
		*root = NULL;
	if (!o)
		return -ENOMEM;
	if (!o->err && !o->done)
		set_err(o, -EINVAL);
	if (o->f) {
		if (!o->err) {
			put_char(o, '\n');
			flush_buf(o);
			errno = 0;
			if (!o->err && (fflush(o->f) == EOF || ferror(o->f)))
				set_err(o, errno ? -errno : -EIO);
		}
		json_object_put(o->escaper);
		free(o->buf);
	} else if (!o->err && root) {
		*root = o->root;
		o->root = NULL;
	}
	json_object_put(o->root);
	err = o->err;
	free(o);
	return err;
}
