// SPDX-License-Identifier: GPL-2.0
/* secmap tool: global state, error reporting and output helpers. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "secmap_cli.h"

const char *bin_name = "secmap";
bool json_output;
bool pretty_output;

static int write_json(FILE *f, struct json_object *obj, bool pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s;

	flags |= pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			  JSON_C_TO_STRING_PLAIN;
	s = json_object_to_json_string_ext(obj, flags);
	if (!s)
		return -ENOMEM;
	errno = 0;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return flush_output(f);
}

int flush_output(FILE *f)
{
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int print_json(FILE *f, struct json_object *obj)
{
	return write_json(f, obj, pretty_output);
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

bool handle_output_option(int opt)
{
	switch (opt) {
	case 'p':
		pretty_output = true;
		/* fall through */
	case 'j':
		json_output = true;
		return true;
	}
	return false;
}

int usage_error(const char *cmd, char **argv, void (*usage)(FILE *f))
{
	/* optopt is set for short options only; a bad long one is in argv. */
	if (optopt)
		p_err("%s: unknown option '-%c'", cmd, optopt);
	else
		p_err("%s: unknown option '%s'", cmd, argv[optind - 1]);
	if (!json_output)
		usage(stderr);
	return SECMAP_EXIT_USAGE;
}

int unexpected_argument(const char *cmd, const char *arg, void (*usage)(FILE *f))
{
	p_err("%s: unexpected argument '%s'", cmd, arg);
	if (!json_output)
		usage(stderr);
	return SECMAP_EXIT_USAGE;
}

int open_client(struct secmap_client **client)
{
	int err = secmap_client_open(client);

	if (!err)
		return SECMAP_EXIT_OK;
	p_err("%s", secmap_strerror(err));
	return exit_code_from_err(err);
}

void hex_encode(const uint8_t *bytes, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 0xf];
	}
	out[2 * len] = '\0';
}

char *bytes_hex(const uint8_t *bytes, size_t len)
{
	char *hex = malloc(2 * len + 1);

	if (hex)
		hex_encode(bytes, len, hex);
	return hex;
}
