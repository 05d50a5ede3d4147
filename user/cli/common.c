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
#include <sys/resource.h>
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

/* The first line of a small kernel file into @buf; false if it cannot be read. */
static bool read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

const char *module_refused_reason(void)
{
	static char reason[256];
	char buf[128], *level, *end;

	/* "none [integrity] confidentiality": securityfs, where mounted. */
	if (read_line("/sys/kernel/security/lockdown", buf, sizeof(buf)) &&
	    (level = strchr(buf, '[')) && (end = strchr(level, ']')) &&
	    strncmp(level, "[none]", 6)) {
		*end = '\0';
		snprintf(reason, sizeof(reason), "the kernel is locked down (%s) and loads signed "
			 "modules only: install secmap with DKMS, which signs it, and enroll its "
			 "key (mokutil --import /var/lib/dkms/mok.pub)", level + 1);
		return reason;
	}
	if (read_line("/sys/module/module/parameters/sig_enforce", buf, sizeof(buf)) &&
	    buf[0] == 'Y')
		return "the kernel loads signed modules only (module.sig_enforce): install secmap "
		       "with DKMS, which signs it, and enroll its key (mokutil --import "
		       "/var/lib/dkms/mok.pub)";
	if (read_line("/proc/sys/kernel/modules_disabled", buf, sizeof(buf)) && buf[0] == '1')
		return "module loading is off until reboot (kernel.modules_disabled=1)";
	return NULL;
}

const char *client_strerror(int err)
{
	static char text[400];
	const char *why;

	if (err != -ENOENT && err != ENOENT)
		return secmap_strerror(err);
	why = module_refused_reason();
	snprintf(text, sizeof(text), "secmap kernel module not loaded (generic netlink family "
		 "\"secmap\" not found)%s%s", why ? ": " : "", why ? why : "");
	return text;
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

char *module_build_id_text(const struct secmap_module *mod)
{
	const uint8_t *id;
	size_t len = secmap_module_build_id(mod, &id);

	return len ? build_id_text(id, len) : NULL;
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

uint64_t rusage_cpu_us(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

uint64_t rusage_max_rss_kb(int who)
{
	struct rusage ru;

	return getrusage(who, &ru) ? 0 : (uint64_t)ru.ru_maxrss;
}
