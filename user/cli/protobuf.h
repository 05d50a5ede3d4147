/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol buffers wire format, the part a writer needs (cli/protobuf.c):
 * varints, length-delimited fields and packed repeated numbers, into a
 * growing buffer. Messages are written into a buffer of their own, then
 * added to their parent as one field: a message's length comes before it.
 * An allocation failure is sticky: checked once, at the end.
 */
#ifndef SECMAP_PROTOBUF_H
#define SECMAP_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;		/* out of memory: the buffer is no longer whole */
};

void pb_free(struct pb_buf *b);
/* Empty again, keeping the memory (a scratch buffer for messages). */
static inline void pb_reset(struct pb_buf *b)
{
	b->len = 0;
}

void pb_varint(struct pb_buf *b, uint64_t v);
/* A varint field (uint64, int64 as two's complement, bool); 0 is left out, as proto3 does. */
void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v);
/* A length-delimited field: bytes, a string, a packed array or a message. */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t len);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
/* @msg's contents as field @field of @b. */
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg);
/* @n numbers as one packed repeated field; none: nothing. */
void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif /* SECMAP_PROTOBUF_H */
