/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libarchive, opened when secmap archive first needs it: every other
 * command starts without it and what it pulls in (ICU, libxml2, libstdc++:
 * 3 MB resident at start-up, measured).
 */
#ifndef SECMAP_ARCHIVE_LIB_H
#define SECMAP_ARCHIVE_LIB_H

#include <archive.h>
#include <archive_entry.h>

struct archive_lib {
	__typeof__(archive_write_new) *write_new;
	__typeof__(archive_write_add_filter_xz) *write_add_filter_xz;
	__typeof__(archive_write_set_format_pax_restricted) *write_set_format_pax_restricted;
	__typeof__(archive_write_open_fd) *write_open_fd;
	__typeof__(archive_write_header) *write_header;
	__typeof__(archive_write_data) *write_data;
	__typeof__(archive_write_close) *write_close;
	__typeof__(archive_write_free) *write_free;
	__typeof__(archive_error_string) *error_string;
	__typeof__(archive_entry_new) *entry_new;
	__typeof__(archive_entry_free) *entry_free;
	__typeof__(archive_entry_set_pathname) *entry_set_pathname;
	__typeof__(archive_entry_set_filetype) *entry_set_filetype;
	__typeof__(archive_entry_set_perm) *entry_set_perm;
	__typeof__(archive_entry_set_mtime) *entry_set_mtime;
	__typeof__(archive_entry_set_symlink) *entry_set_symlink;
	__typeof__(archive_entry_set_size) *entry_set_size;
};

/* The library's functions, or NULL and why (dlerror()'s words) in @why. */
const struct archive_lib *archive_lib_open(const char **why);

#endif
