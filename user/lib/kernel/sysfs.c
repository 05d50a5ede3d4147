// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap sysfs side: a snapshot built from /proc/modules and
 * /sys/module/NAME/{sections,notes,taint}, for when the secmap kernel module
 * is not loaded. Less than netlink gives (no regions, no section flags, no
 * events, and racy against loads and unloads), but needs nothing installed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "0x" and 16 hex digits, a newline, and room to notice trailing junk. */
#define ADDR_TEXT_MAX 32
/* A build-id note: 12-byte header, "GNU\0", the id; other notes may share the file. */
#define NOTES_MAX 4096

/*
 * Module taint letters, as the kernel's taint_flags[] table (kernel/panic.c)
 * prints them in /sys/module/NAME/taint; bit numbers are TAINT_* from
 * include/linux/panic.h, as Documentation/admin-guide/tainted-kernels.rst
 * lists them. Letters not listed here (newer kernels) are ignored.
 */
static const struct {
	char letter;
	unsigned char bit;
} taint_letters[] = {
	{ 'P', 0 },	/* proprietary module */
	{ 'F', 1 },	/* module force loaded */
	{ 'S', 2 },	/* CPU out of spec */
	{ 'R', 3 },	/* module force unloaded */
	{ 'M', 4 },	/* machine check */
	{ 'B', 5 },	/* bad page */
	{ 'U', 6 },	/* taint requested by user */
	{ 'D', 7 },	/* kernel died (oops, BUG) */
	{ 'A', 8 },	/* ACPI table overridden */
	{ 'W', 9 },	/* warning issued */
	{ 'C', 10 },	/* staging driver */
	{ 'I', 11 },	/* firmware bug workaround */
	{ 'O', 12 },	/* out-of-tree module */
	{ 'E', 13 },	/* unsigned module */
	{ 'L', 14 },	/* soft lockup */
	{ 'K', 15 },	/* live patched */
	{ 'X', 16 },	/* auxiliary (distribution defined) */
	{ 'T', 17 },	/* struct randomization plugin */
	{ 'N', 18 },	/* in-kernel test */
	{ 'J', 19 },	/* fwctl userspace access */
};

struct sysfs_ctx {
	char root[PATH_MAX];
};

/* ROOT + @fmt; -ENAMETOOLONG if it does not fit. */
static int __attribute__((format(printf, 4, 5)))
make_path(const struct sysfs_ctx *ctx, char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(ctx->root);
	va_list ap;
	int n;

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, ctx->root, len);
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Read up to @size bytes of @path (sysfs files are read in one go: a
 * section address or a notes file is far below a page). Returns the length
 * or -errno; -ENOENT also for a file being removed.
 */
static ssize_t read_small(const char *path, void *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = libsecmap_open_regular(path);
	if (fd < 0) {
		len = fd;
		goto out;
	}
	while ((size_t)len < size) {
		n = read(fd, (char *)buf + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			len = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
out:
	/*
	 * kernfs answers -ENODEV to an open or read of a node it has begun to
	 * remove (kernfs_get_active() fails): the module is going away.
	 */
	return len == -ENODEV ? -ENOENT : len;
}

/* Strictly "0x" followed by 1 to 16 hex digits and an optional newline. */
static int parse_addr(const char *s, size_t len, uint64_t *addr)
{
	uint64_t v = 0;
	size_t i, digits = 0;

	if (len && s[len - 1] == '\n')
		len--;
	if (len < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -EPROTO;
	for (i = 2; i < len; i++, digits++) {
		char c = s[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EPROTO;
		if (digits >= 16)
			return -EPROTO;
		v = v << 4 | d;
	}
	*addr = v;
	return 0;
}

static int read_build_id(const struct sysfs_ctx *ctx, struct secmap_module *mod)
{
	uint8_t buf[NOTES_MAX];
	char path[PATH_MAX];
	ssize_t len;
	int err;

	err = make_path(ctx, path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id",
			mod->name);
	if (err)
		return err;
	len = read_small(path, buf, sizeof(buf));
	if (len == -ENOENT)
		return 0;	/* no build-id, or the module just went away */
	if (len < 0)
		return len;
	return libsecmap_parse_build_id_notes(buf, len, mod->build_id, &mod->build_id_len);
}

/* Letters such as "OE\n"; unknown ones are ignored. */
static int read_taint(const struct sysfs_ctx *ctx, struct secmap_module *mod)
{
	char path[PATH_MAX], buf[64];
	ssize_t len, i;
	size_t j;
	int err;

	err = make_path(ctx, path, sizeof(path), "/sys/module/%s/taint", mod->name);
	if (err)
		return err;
	len = read_small(path, buf, sizeof(buf));
	if (len == -ENOENT)
		return 0;
	if (len < 0)
		return len;
	for (i = 0; i < len; i++)
		for (j = 0; j < ARRAY_SIZE(taint_letters); j++)
			if (buf[i] == taint_letters[j].letter)
				mod->taint |= UINT64_C(1) << taint_letters[j].bit;
	return 0;
}

/* Does ROOT/sys/module/NAME still exist? Tells an unload from a missing file. */
static bool module_dir_exists(const struct sysfs_ctx *ctx, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (make_path(ctx, path, sizeof(path), "/sys/module/%s", name))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int cmp_section(const void *a, const void *b)
{
	const struct secmap_section *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Every file of ROOT/sys/module/NAME/sections, dotfiles included (they all
 * are: ".text", ".data", ".init.text", "__ksymtab"...). -ENOENT: the
 * module is going, or gone (it was unloaded mid-walk).
 */
static int read_sections(const struct sysfs_ctx *ctx, struct secmap_module *mod,
			 struct libsecmap_pool *pool)
{
	char path[PATH_MAX], text[ADDR_TEXT_MAX];
	bool all_zero = true;
	struct dirent *de;
	DIR *dir;
	int err;

	err = make_path(ctx, path, sizeof(path), "/sys/module/%s/sections", mod->name);
	if (err)
		return err;
	dir = opendir(path);
	if (!dir) {
		err = -errno;
		/*
		 * No sections/ but the module is there: a kernel without
		 * KALLSYMS, unless the module is going and its sections went
		 * first.
		 */
		if (err == -ENOENT && mod->state != SECMAP_MODULE_STATE_GOING &&
		    module_dir_exists(ctx, mod->name))
			return 0;
		return err;
	}
	for (;;) {
		const char *name;
		uint64_t addr;
		ssize_t len;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			err = errno ? -errno : 0;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		err = make_path(ctx, path, sizeof(path), "/sys/module/%s/sections/%s",
				mod->name, de->d_name);
		if (err)
			break;
		len = read_small(path, text, sizeof(text));
		if (len == -EISDIR)
			continue;	/* not a section */
		if (len == -ENOENT) {
			/*
			 * Listed, then gone: the module is being unloaded, its
			 * sections go before its directory does (mod_sysfs_fini()).
			 * Half a section table would mislead: skip the module.
			 */
			err = -ENOENT;
			break;
		}
		if (len < 0) {
			err = len;
			break;
		}
		err = parse_addr(text, len, &addr);
		if (err)
			break;
		name = libsecmap_pool_intern(pool, de->d_name, strlen(de->d_name));
		if (!name) {
			err = -ENOMEM;
			break;
		}
		err = libsecmap_module_add_section(mod, name, addr, 0, -1);
		if (err)
			break;
		if (addr)
			all_zero = false;
	}
	closedir(dir);
	if (err)
		return err;
	/* kptr_restrict (or no CAP_SYSLOG) shows every address as 0. */
	if (mod->nr_sections && all_zero)
		return -EPERM;
	if (mod->nr_sections > 1)
		qsort(mod->sections, mod->nr_sections, sizeof(*mod->sections), cmp_section);
	return 0;
}

static uint32_t parse_state(const char *s)
{
	if (!strcmp(s, "Live"))
		return SECMAP_MODULE_STATE_LIVE;
	if (!strcmp(s, "Loading"))
		return SECMAP_MODULE_STATE_COMING;
	if (!strcmp(s, "Unloading"))
		return SECMAP_MODULE_STATE_GOING;
	return 0;	/* not one this libsecmap knows: "not reported" */
}

/*
 * One line of /proc/modules: "NAME SIZE REFS DEPS STATE ADDR [(TAINTS)]".
 * The name must be usable as a path component.
 */
static int parse_modules_line(char *line, char **name, uint32_t *state)
{
	char *save = NULL, *tok[5];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tok); i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t\n", &save);
		if (!tok[i])
			return -EPROTO;
	}
	if (strchr(tok[0], '/') || !strcmp(tok[0], ".") || !strcmp(tok[0], ".."))
		return -EPROTO;
	*name = tok[0];
	*state = parse_state(tok[4]);
	return 0;
}

/*
 * Module @name as sysfs shows it, into @mod (zeroed here), its strings in
 * @pool. -ENOENT: it is gone, or going. Release @mod after, error or not.
 */
static int read_one(const struct sysfs_ctx *ctx, const char *name, uint32_t state,
		    struct secmap_module *mod, struct libsecmap_pool *pool)
{
	int err;

	memset(mod, 0, sizeof(*mod));
	mod->name = libsecmap_pool_strndup(pool, name, strlen(name));
	if (!mod->name)
		return -ENOMEM;
	mod->state = state;
	err = read_sections(ctx, mod, pool);
	if (!err)
		err = read_build_id(ctx, mod);
	if (!err)
		err = read_taint(ctx, mod);
	return err;
}

static int read_module(const struct sysfs_ctx *ctx, const char *name, uint32_t state,
		       struct secmap_snapshot *snap)
{
	struct secmap_module mod;
	int err;

	err = read_one(ctx, name, state, &mod, &snap->pool);
	/* A live module's init part is freed: sysfs shows where it was. */
	if (!err && state == SECMAP_MODULE_STATE_LIVE)
		libsecmap_module_mark_init_freed(&mod);
	if (!err)
		err = libsecmap_snapshot_add_module(snap, &mod);
	libsecmap_module_release(&mod);
	/*
	 * Unloaded since /proc/modules was read, or being unloaded: as if it
	 * had never been listed.
	 */
	if (err == -ENOENT)
		err = 0;
	return err;
}

/*
 * One module, @name, read as a snapshot reads it, into @mod (state LIVE:
 * what a uevent reports has finished its init), its strings in @pool.
 * -ENOENT: it is gone, or going.
 */
int libsecmap_sysfs_read_module(const char *root, const char *name, struct secmap_module *mod,
				struct libsecmap_pool *pool)
{
	struct sysfs_ctx ctx;
	int err;

	if (!root)
		root = "";
	if (strlen(root) >= sizeof(ctx.root))
		return -ENAMETOOLONG;
	strcpy(ctx.root, root);
	err = read_one(&ctx, name, SECMAP_MODULE_STATE_LIVE, mod, pool);
	if (err)
		libsecmap_module_release(mod);
	return err;
}

SECMAP_EXPORT int secmap_snapshot_from_sysfs(const char *root, struct secmap_snapshot **snapshot)
{
	struct secmap_snapshot *snap = NULL;
	struct sysfs_ctx ctx;
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	FILE *f = NULL;
	int err;

	if (!snapshot)
		return libsecmap_err(-EINVAL);
	*snapshot = NULL;
	if (!root)
		root = "";
	if (strlen(root) >= sizeof(ctx.root))
		return libsecmap_err(-ENAMETOOLONG);
	strcpy(ctx.root, root);

	err = make_path(&ctx, path, sizeof(path), "/proc/modules");
	if (err)
		return libsecmap_err(err);
	snap = libsecmap_snapshot_new();
	if (!snap)
		return libsecmap_err(-ENOMEM);
	/* Modules in the kernel's order (newest first), as lsmod shows them. */
	f = libsecmap_fopen_regular(path);
	if (!f) {
		err = -errno;
		goto out;
	}
	errno = 0;
	while (getline(&line, &cap, f) > 0) {
		uint32_t state;
		char *name;

		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		err = parse_modules_line(line, &name, &state);
		if (!err)
			err = read_module(&ctx, name, state, snap);
		if (err)
			goto out;
		errno = 0;
	}
	if (ferror(f))
		err = errno ? -errno : -EIO;
out:
	free(line);
	if (f)
		fclose(f);
	if (err) {
		secmap_snapshot_free(snap);
		return libsecmap_err(err);
	}
	*snapshot = snap;
	return 0;
}
