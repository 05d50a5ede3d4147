// SPDX-License-Identifier: GPL-2.0
/*
 * The protocol buffers wire format for a writer: a field is a key (its
 * number and wire type as a varint), then a varint or a length and bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "protobuf.h"

enum { PB_VARINT = 0, PB_LEN = 2 };

void pb_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Room for @n more bytes; false (and @b failed) without it. */
static bool pb_room(struct pb_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->failed)
		return false;
	if (n <= b->cap - b->len)
		return true;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void pb_varint(struct pb_buf *b, uint64_t v)
{
	if (!pb_room(b, 10))
		return;
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}

static void pb_key(struct pb_buf *b, uint32_t field, unsigned int type)
{
	pb_varint(b, (uint64_t)field << 3 | type);
}

void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t len)
{
	pb_key(b, field, PB_LEN);
	pb_varint(b, len);
	if (len && pb_room(b, len)) {
		memcpy(b->data + b->len, p, len);
		b->len += len;
	}
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg)
{
	if (msg->failed)
		b->failed = true;
	else
		pb_bytes(b, field, msg->data, msg->len);
}

void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;
	uint64_t x;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		for (x = v[i], len++; x >= 0x80; x >>= 7)
			len++;
	pb_key(b, field, PB_LEN);
	pb_varint(b, len);
	for (i = 0; i < n; i++)
		pb_varint(b, v[i]);
}
