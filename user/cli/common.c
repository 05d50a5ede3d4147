// SPDX-License-Identifier: GPL-2.0
/* secmap tool: global state, error reporting and output helpers. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_out.h"
#include "secmap_cli.h"

const char *bin_name = "secmap";
bool json_output;
bool pretty_output;

int flush_output(FILE *f)
{
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

void p_err(const char *fmt, ...)
{
	struct json_out *o;
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		text = NULL;

	if (json_output) {
		o = json_out_stream(stdout, pretty_output);
		if (o) {
			json_out_object_begin(o, NULL);
			json_out_str(o, "error", text ? text : "out of memory");
			json_out_object_end(o);
		}
		/* If stdout is gone, stderr is the only place left to tell anyone. */
		if (!json_out_finish(o)) {
			free(text);
			return;
		}
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
	const char *arg = argv[optind - 1], *eq;

	/*
	 * getopt_long() returns '?' with optopt 0 for an unknown long option,
	 * and with optopt set to the option's value (a character, or a long
	 * option's code) for a known one used wrongly: "--json=1" for an
	 * option without a value, "--input" with none.
	 */
	if (!strncmp(arg, "--", 2) && optopt) {
		eq = strchr(arg, '=');
		if (eq)
			p_err("%s: option '%.*s' takes no value", cmd, (int)(eq - arg), arg);
		else
			p_err("%s: option '%s' needs a value", cmd, arg);
	} else if (!strncmp(arg, "--", 2) || optopt <= ' ' || optopt > '~') {
		p_err("%s: unknown option '%s'", cmd, arg);
	} else {
		p_err("%s: unknown option '-%c'", cmd, optopt);
	}
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

const char *client_strerror(int err)
{
	if (err == -ENOENT || err == ENOENT)
		return "secmap kernel module not loaded (generic netlink family \"secmap\" not found)";
	return secmap_strerror(err);
}

int open_client(struct secmap_client **client)
{
	int err = secmap_client_open(client);

	if (!err)
		return SECMAP_EXIT_OK;
	p_err("%s", client_strerror(err));
	return exit_code_from_err(err);
}

char *build_id_text(const uint8_t *id, size_t len)
{
	char *text = malloc(2 * len + 1);

	if (text && secmap_build_id_str(id, len, text, 2 * len + 1)) {
		free(text);
		text = NULL;
	}
	return text;
}

/* Larger than any kernel's kallsyms (a debug kernel's is ~20 MiB with its modules). */
#define CACHED_KALLSYMS_MAX (256u << 20)

char *cached_kallsyms_map(const uint8_t *id, size_t id_len, size_t *size)
{
	const char *home = getenv("HOME");
	char *hex, *path = NULL, *text = NULL;
	struct stat st;
	int fd;

	*size = 0;
	if (!home || home[0] != '/' || !id_len)
		return NULL;
	hex = build_id_text(id, id_len);
	if (hex && asprintf(&path, "%s%s.debug/[kernel.kallsyms]/%s/kallsyms", home,
			    home[strlen(home) - 1] == '/' ? "" : "/", hex) < 0)
		path = NULL;
	free(hex);
	if (!path)
		return NULL;
	/* O_NONBLOCK: a FIFO there must not stall a recording's end or a report. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	free(path);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= CACHED_KALLSYMS_MAX) {
		text = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (text == MAP_FAILED)
			text = NULL;
		else
			*size = (size_t)st.st_size;
	}
	close(fd);
	return text;
}

size_t utf8_char_len(const unsigned char *p)
{
	unsigned int c = p[0], n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* a continuation byte, an overlong lead (c0, c1), or > U+10FFFF */
	cp = c & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond Unicode. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = utf8_char_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

char *utf8_replace_invalid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	/* At worst each byte becomes the 3 bytes of U+FFFD. */
	char *out = malloc(3 * strlen(s) + 1), *o = out;
	size_t n;

	if (!out)
		return NULL;
	while (*p) {
		n = utf8_char_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

/* Code points a terminal acts on: C0 controls, DEL, C1 controls. */
static bool is_control(const unsigned char *p, size_t n)
{
	return (n == 1 && (p[0] < 0x20 || p[0] == 0x7f)) ||
	       (n == 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
}

#define TEXT_SAFE_SLOTS 8
#define TEXT_SAFE_SIZE 1024

const char *text_safe(const char *s)
{
	static char slots[TEXT_SAFE_SLOTS][TEXT_SAFE_SIZE];
	static unsigned int next;
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t n, i;

	if (!s)
		return s;
	for (; *p; p += n) {
		n = utf8_char_len(p);
		if (!n || is_control(p, n))
			break;
	}
	if (!*p)
		return s;	/* nothing to escape: the common case, no copy */
	out = slots[next++ % TEXT_SAFE_SLOTS];
	o = out;
	for (p = (const unsigned char *)s; *p; p += n) {
		/* Room for one escaped byte ("\xNN") per byte of a character, and "...". */
		if (o - out > TEXT_SAFE_SIZE - 4 * 4 - 4) {
			strcpy(o, "...");
			return out;
		}
		n = utf8_char_len(p);
		if (n && !is_control(p, n)) {
			memcpy(o, p, n);
			o += n;
			continue;
		}
		for (i = 0; i < (n ? n : 1); i++)
			o += sprintf(o, "\\x%02x", p[i]);
		n = n ? n : 1;
	}
	*o = '\0';
	return out;
}

int path_list_add(const char ***list, size_t *nr, const char *path)
{
	const char **p = realloc(*list, (*nr + 2) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	p[(*nr)++] = path;
	p[*nr] = NULL;
	*list = p;
	return 0;
}

int output_error(const char *cmd, const char *path, int err)
{
	struct stat st;

	if (err == -EINVAL && !stat(path, &st) && !S_ISREG(st.st_mode)) {
		p_err("%s%s: not a regular file: refusing to replace it", cmd, path);
		return SECMAP_EXIT_USAGE;
	}
	if (err == -EISDIR) {
		p_err("%s%s: is a directory: name a file", cmd, path);
		return SECMAP_EXIT_USAGE;
	}
	if (err == -ENOLINK)
		p_err("%scannot write %s: a symlink that leads nowhere", cmd, path);
	else if (err == -EACCES || err == -EPERM || err == -EROFS)
		p_err("%scannot write %s: %s (a temporary file is created in its directory)",
		      cmd, path, strerror(-err));
	else
		p_err("%scannot write %s: %s", cmd, path, strerror(-err));
	return SECMAP_EXIT_FAILURE;
}
