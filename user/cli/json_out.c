// SPDX-License-Identifier: GPL-2.0
/*
 * secmap tool: JSON output, streamed to a FILE as it is described (json_out.h).
 *
 * Why a writer of our own rather than a json-c tree: `secmap dump -j` at
 * 1000 modules is some 250000 JSON values. Made into json-c objects,
 * serialised and freed, they cost about 11000 instructions per section
 * (250 M in all), most of the command's time; written straight out they
 * cost a few hundred. json-c is kept as a parser only: the unit tests
 * check this writer's output against it.
 *
 * Strings: RFC 8259 (section 7) requires '"', '\\' and U+0000 to U+001F
 * escaped; '"', '\\', \b, \f, \n, \r and \t get their short forms, the other
 * controls \u00XX, and nothing else is escaped ('/' neither). JSON text is
 * UTF-8 (section 8.1) while names from the kernel or a .ko may be any bytes
 * but NUL: each byte of an invalid UTF-8 sequence becomes U+FFFD, as
 * decoders do, so that every output parses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "text.h"

/* Pretty output: spaces per level. */
#define JSON_OUT_INDENT 2

struct json_out *json_out_stream(FILE *f, bool pretty)
{
	struct json_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->f = f;
	o->pretty = pretty;
	o->buf = malloc(JSON_OUT_BUF_SIZE);
	if (!o->buf) {
		free(o);
		return NULL;
	}
	return o;
}

static void set_err(struct json_out *o, int err)
{
	if (!o->err)
		o->err = err;
	o->in_compact_object = false;
	o->in_compact_array = false;
}

/* After the innermost open value changed. */
static void update_compact_object(struct json_out *o)
{
	bool compact = !o->err && !o->pretty && o->depth;

	o->in_compact_object = compact && !o->is_array[o->depth - 1];
	o->in_compact_array = compact && o->is_array[o->depth - 1];
}

void json_out_fail(struct json_out *o, int err)
{
	set_err(o, err);
}

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
 * The common case: @s, quoted, when it is plain, copied into the buffer
 * with room left for @reserve more bytes after it. False, with nothing
 * written, if it is not or if the buffer is too full. A scan by table, then
 * one copy: keys and section names are short, and this is most of the
 * instructions of `dump -j`. Inlined into its two callers: a call per key
 * and per string costs some 7% more.
 */
static inline __attribute__((always_inline)) bool
put_string_fast(struct json_out *o, const char *s, size_t reserve)
{
	const unsigned char *c = (const unsigned char *)s;
	char *p = o->buf + o->len;
	size_t n = 0;

	while (json_out_plain[c[n]])
		n++;
	if (c[n] || JSON_OUT_BUF_SIZE - o->len < n + 2 + reserve)
		return false;
	p[0] = '"';
	memcpy(p + 1, s, n);
	p[n + 1] = '"';
	o->len += n + 2;
	return true;
}

/* The escape sequence for byte @c, into @esc (7 bytes); NULL if @c goes as it is. */
static const char *escape(unsigned char c, char *esc, size_t *len)
{
	static const char digits[] = "0123456789abcdef";

	*len = 2;
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	if (c >= 0x20)
		return NULL;
	memcpy(esc, "\\u00", 4);
	esc[4] = digits[c >> 4];
	esc[5] = digits[c & 0xf];
	esc[6] = '\0';
	*len = 6;
	return esc;
}

/* Valid UTF-8 @s, quoted, escaped: runs that need nothing are copied whole. */
static void put_escaped(struct json_out *o, const char *s)
{
	const char *run = s, *e;
	char esc[7];
	size_t n;

	put_char(o, '"');
	for (; *s; s++) {
		e = escape(*s, esc, &n);
		if (!e)
			continue;
		put(o, run, s - run);
		put(o, e, n);
		run = s + 1;
	}
	put(o, run, s - run);
	put_char(o, '"');
}

static void put_string(struct json_out *o, const char *s)
{
	char *valid = NULL;

	if (put_string_fast(o, s, 0))
		return;
	if (!utf8_valid(s)) {
		valid = utf8_replace_invalid(s);
		if (!valid) {
			set_err(o, -ENOMEM);
			return;
		}
		s = valid;
	}
	put_escaped(o, s);
	free(valid);
}

/* Pretty output: a new line, indented for @depth. */
static void put_newline(struct json_out *o, unsigned int depth)
{
	static const char spaces[JSON_OUT_MAX_DEPTH * JSON_OUT_INDENT] = {
		[0 ... JSON_OUT_MAX_DEPTH * JSON_OUT_INDENT - 1] = ' '
	};

	put_char(o, '\n');
	put(o, spaces, depth * JSON_OUT_INDENT);
}

/* "key": or, pretty, "key": followed by a space; the separator goes with the fast copy. */
static void put_key(struct json_out *o, const char *key)
{
	if (put_string_fast(o, key, 2)) {
		o->buf[o->len++] = ':';
		if (o->pretty)
			o->buf[o->len++] = ' ';
		return;
	}
	put_string(o, key);
	put(o, ": ", o->pretty ? 2 : 1);
}

/* The comma, line break and key that come before a value at the current depth. */
static void put_prefix(struct json_out *o, const char *key)
{
	if (o->depth) {
		bool *has_items = &o->has_items[o->depth - 1];

		if (*has_items)
			put_char(o, ',');
		*has_items = true;
		if (o->pretty)
			put_newline(o, o->depth);
	}
	if (key)
		put_key(o, key);
}

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
	put_prefix(o, key);
	put_char(o, array ? '[' : '{');
	o->is_array[o->depth] = array;
	o->has_items[o->depth] = false;
	o->depth++;
	update_compact_object(o);
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
	update_compact_object(o);
	/* An empty container stays on its line: {} or []. */
	if (o->pretty && o->has_items[o->depth])
		put_newline(o, o->depth);
	put_char(o, array ? ']' : '}');
	value_done(o);
}

void json_out_object_begin_any(struct json_out *o, const char *key)
{
	begin(o, key, false);
}

void json_out_object_end_any(struct json_out *o)
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

/*
 * A value whose text needs no escaping: a number, a literal, a hex string.
 * Inlined, so that a literal's constant length makes put()'s copy a move.
 */
static inline void put_value(struct json_out *o, const char *key, const char *text, size_t len)
{
	if (!value_ok(o, key))
		return;
	put_prefix(o, key);
	put(o, text, len);
	value_done(o);
}

void json_out_null_any(struct json_out *o, const char *key)
{
	put_value(o, key, "null", 4);
}

void json_out_bool_any(struct json_out *o, const char *key, bool val)
{
	if (val)
		put_value(o, key, "true", 4);
	else
		put_value(o, key, "false", 5);
}

void json_out_str_any(struct json_out *o, const char *key, const char *str)
{
	if (!str) {
		json_out_null_any(o, key);
		return;
	}
	if (!value_ok(o, key))
		return;
	put_prefix(o, key);
	put_string(o, str);
	value_done(o);
}

/* "00" to "ff", for two hex digits a step. */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* At @p, quoted, lowercase, without leading zeros: at most 20 bytes. */
char *json_out_format_hex(char *p, uint64_t val)
{
	int n = val ? (64 - __builtin_clzll(val) + 3) / 4 : 1, i;

	p[0] = '"';
	p[1] = '0';
	p[2] = 'x';
	/* Every address has 16 digits: a pair at a time, from the last. */
	for (i = n; i > 1; i -= 2) {
		memcpy(p + 1 + i, hex_pairs + 2 * (val & 0xff), 2);
		val >>= 8;
	}
	if (i)
		p[3] = hex_pairs[2 * val + 1];
	p[3 + n] = '"';
	return p + 4 + n;
}

/* At @p: at most 20 bytes. */
char *json_out_format_u64(char *p, uint64_t val)
{
	char buf[20], *end = buf + sizeof(buf), *d = end;

	do {
		*--d = '0' + val % 10;
		val /= 10;
	} while (val);
	memcpy(p, d, end - d);
	return p + (end - d);
}

void json_out_hex_any(struct json_out *o, const char *key, uint64_t val)
{
	char buf[20];

	put_value(o, key, buf, json_out_format_hex(buf, val) - buf);
}

void json_out_u64_any(struct json_out *o, const char *key, uint64_t val)
{
	char buf[20];

	put_value(o, key, buf, json_out_format_u64(buf, val) - buf);
}

/* The value of a member json_out_member() began, up to @p. */
void json_out_string_at(struct json_out *o, char *p, const char *str)
{
	o->len = p - o->buf;
	put_string(o, str);
}

int json_out_finish(struct json_out *o)
{
	int err;

	if (!o)
		return -ENOMEM;
	if (!o->err && !o->done)
		set_err(o, -EINVAL);
	if (!o->err) {
		put_char(o, '\n');
		flush_buf(o);
		errno = 0;
		if (!o->err && (fflush(o->f) == EOF || ferror(o->f)))
			set_err(o, errno ? -errno : -EIO);
	}
	err = o->err;
	free(o->buf);
	free(o);
	return err;
}
