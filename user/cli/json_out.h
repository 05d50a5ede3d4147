/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output described once, produced one of two ways: as a json-c tree,
 * or streamed to a FILE as the description goes, byte for byte what json-c
 * prints for that tree with JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE. See json_out.c for why both.
 *
 * Calls take a @key inside an object and NULL inside an array (or for the
 * top-level value). Keys must outlive the output: string literals. Errors
 * are sticky: after the first, calls do nothing, and json_out_finish()
 * reports it.
 */
#ifndef SECMAP_JSON_OUT_H
#define SECMAP_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct json_out;

/* Compact JSON written to @f (followed by a newline at the end); NULL if out of memory. */
struct json_out *json_out_stream(FILE *f);
/* A json-c tree, handed over by json_out_finish(); NULL if out of memory. */
struct json_out *json_out_tree(void);

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

/* A json-c string of @s, invalid UTF-8 replaced (see json_out.c); NULL if out of memory. */
struct json_object *json_string_new(const char *s);

/* Record a failure met while describing the document (e.g. -ENOMEM); the first one sticks. */
void json_out_fail(struct json_out *o, int err);

/*
 * End and free @o. A stream writes its final newline and flushes @f; a
 * tree is handed over in *@root (NULL on error). 0, -ENOMEM, -EINVAL (the
 * calls did not describe one complete value), or -errno of a failed write.
 */
int json_out_finish(struct json_out *o, struct json_object **root);

#endif /* SECMAP_JSON_OUT_H */
