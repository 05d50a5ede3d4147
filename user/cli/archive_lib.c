// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <stddef.h>

#include "archive_lib.h"

/* The soname the headers at build time belong to (ARCHIVE_VERSION_NUMBER 3.x). */
#define ARCHIVE_SONAME "libarchive.so.13"

#define FN(field, sym) { offsetof(struct archive_lib, field), #sym }

static const struct {
	size_t offset;
	const char *name;
} functions[] = {
	FN(write_new, archive_write_new),
	FN(write_add_filter_xz, archive_write_add_filter_xz),
	FN(write_set_format_pax_restricted, archive_write_set_format_pax_restricted),
	FN(write_open_fd, archive_write_open_fd),
	FN(write_header, archive_write_header),
	FN(write_data, archive_write_data),
	FN(write_close, archive_write_close),
	FN(write_free, archive_write_free),
	FN(error_string, archive_error_string),
	FN(entry_new, archive_entry_new),
	FN(entry_free, archive_entry_free),
	FN(entry_set_pathname, archive_entry_set_pathname),
	FN(entry_set_filetype, archive_entry_set_filetype),
	FN(entry_set_perm, archive_entry_set_perm),
	FN(entry_set_mtime, archive_entry_set_mtime),
	FN(entry_set_symlink, archive_entry_set_symlink),
	FN(entry_set_size, archive_entry_set_size),
};

const struct archive_lib *archive_lib_open(const char **why)
{
	static struct archive_lib lib;
	static void *handle;
	size_t i;

	if (handle)
		return &lib;
	handle = dlopen(ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		*why = dlerror();
		return NULL;
	}
	for (i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		void *fn = dlsym(handle, functions[i].name);

		if (!fn) {
			*why = dlerror();
			dlclose(handle);
			handle = NULL;
			return NULL;
		}
		/* POSIX: a data pointer from dlsym() converts to a function pointer. */
		*(void **)((char *)&lib + functions[i].offset) = fn;
	}
	return &lib;
}
