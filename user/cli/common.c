// SPDX-License-Identifier: GPL-2.0
/* secmap tool: global state, error reporting and output helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "secmap_cli.h"

const char *bin_name = "secmap";
bool json_output;
bool pretty_output;

int print_json(FILE *f, struct json_object *obj)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s;

	flags |= pretty_output ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
				 JSON_C_TO_STRING_PLAIN;
	s = json_object_to_json_string_ext(obj, flags);
	if (!s)
		return -ENOMEM;
	errno = 0;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF || fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

void p_err(const char *fmt, ...)
{
	struct json_object *obj, *msg;
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		text = NULL;

	if (json_output) {
		obj = json_object_new_object();
		msg = json_object_new_string(text ? text : "out of memory");
		if (obj && msg && !json_object_object_add(obj, "error", msg)) {
			msg = NULL;
			/* If stdout is gone, stderr is the only place left to tell anyone. */
			if (!print_json(stdout, obj)) {
				json_object_put(obj);
				free(text);
				return;
			}
		}
		json_object_put(msg);
		json_object_put(obj);
	}
	fprintf(stderr, "Error: %s\n", text ? text : "out of memory");
	free(text);
}

int exit_code_from_err(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return SECMAP_EXIT_OK;
	case ENOENT:
		return SECMAP_EXIT_NO_KMOD;
	case EPERM:
	case EACCES:
		return SECMAP_EXIT_PERM;
	default:
		return SECMAP_EXIT_FAILURE;
	}
}
