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

struct json_out;

/*
 * One JSON text to @f, followed by a newline: compact (no blanks), or with
 * @pretty one member or element per line, indented by two spaces. Callers
 * pass pretty_output, or false where the output is one document per line
 * whatever the options (monitor, show, resolve). NULL if out of memory.
 */
struct json_out *json_out_stream(FILE *f, bool pretty);

void json_out_object_begin(struct json_out *o, const char *key);
void json_out_object_end(struct json_out *o);
void json_out_array_begin(struct json_out *o, const char *key);
void json_out_array_end(struct json_out *o);
/* A string, or null when @str is NULL. */
void json_out_str(struct json_out *o, const char *key, const char *str);
/* A string such as "0xffffffffc0564000": addresses (JSON numbers lose 64-bit precision). */
void json_out_hex(struct json_out *o, const char *key, uint64_t val);
void json_out_u64(struct json_out *o, const char *key, uint64_t val);
void json_out_bool(struct json_out *o, const char *key, bool val);
void json_out_null(struct json_out *o, const char *key);

/* Record a failure met while describing the document (e.g. -ENOMEM); the first one sticks. */
void json_out_fail(struct json_out *o, int err);

/*
 * End and free @o (NULL: json_out_stream() ran out of memory): write the
 * final newline and flush @f. 0, -ENOMEM, -EINVAL (the calls did not
 * describe one complete value), or -errno of a failed write.
 */
int json_out_finish(struct json_out *o);

#endif /* SECMAP_JSON_OUT_H */
