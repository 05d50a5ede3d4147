/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading back what the tool's JSON writer (cli/json_out.c) wrote, with
 * json-c as the independent judge; shared by the unit tests.
 */
#ifndef SECMAP_TEST_JSON_READ_H
#define SECMAP_TEST_JSON_READ_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dump.h"
#include "json_out.h"
#include "secmap_cli.h"

/* @text as json-c's strict parser reads it: one value, then nothing but blanks; NULL if not. */
static inline struct json_object *parse_strict(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj = NULL;
	size_t end;

	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, text, strlen(text));
	end = json_tokener_get_parse_end(tok);
	if (obj && text[end + strspn(text + end, " \n")]) {
		json_object_put(obj);
		obj = NULL;
	}
	json_tokener_free(tok);
	return obj;
}

/* A json_out writing to memory; json_doc_close() ends it, its text in ->text. */
struct json_doc {
	char *text;
	size_t len;
	FILE *f;
};

static inline struct json_out *json_doc_open(struct json_doc *d, bool pretty)
{
	memset(d, 0, sizeof(*d));
	d->f = open_memstream(&d->text, &d->len);
	return d->f ? json_out_stream(d->f, pretty) : NULL;
}

/* json_out_finish()'s result; ->text is complete after it. */
static inline int json_doc_close(struct json_doc *d, struct json_out *o)
{
	int err = json_out_finish(o);

	if (d->f)
		fclose(d->f);
	d->f = NULL;
	return err;
}

/* dump_print_json() of @mods into a malloc()ed string; NULL on failure. */
static inline char *dump_json_text(const struct secmap_module *const *mods, size_t nr,
				   const struct dump_ko *kos, bool pretty)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int err;

	if (!f)
		return NULL;
	pretty_output = pretty;
	err = dump_print_json(f, "netlink", mods, nr, kos);
	pretty_output = false;
	fclose(f);
	if (err) {
		free(text);
		return NULL;
	}
	return text;
}

#endif /* SECMAP_TEST_JSON_READ_H */
