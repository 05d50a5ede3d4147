/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap, the rules every part follows (sizes), build-ids as text, output
 * files that replace their target only when committed, and the library's
 * messages and errors.
 * Part of secmap.h: include <secmap/secmap.h>, not this file.
 */
#ifndef SECMAP_COMMON_H
#define SECMAP_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The uapi headers, shared with secmap.ko. Quoted: installed, they sit
 * beside this header in include/secmap/linux/, out of the linux-libc-dev
 * headers' include/linux/; in the source tree, -I uapi finds them.
 */
/* enum secmap_module_state, secmap_region_type, secmap_section_flags, ... */
#include "linux/secmap.h"
/* struct secmap_file_header, enum secmap_rec_type, SECMAP_MAP_F_*, ... */
#include "linux/secmap_record.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Sizes. Every struct passed between the library and its caller starts
 * with size_t @sz, so that either side may be built against a newer
 * header than the other; new fields only ever go at the end.
 * - The caller's structs, read or filled by the library: @sz is the
 *   caller's sizeof, set by SECMAP_OPTS() (or by hand). A library older
 *   than the caller's header accepts a longer input struct if the fields
 *   it does not know are zero, and refuses it with -E2BIG otherwise; it
 *   fills an output struct up to the shorter of the two sizes and zeroes
 *   the caller's fields it does not know. -EINVAL below the LIBSECMAP_1.0
 *   size.
 * - The library's structs (pointers it returns, arrays it allocates): @sz
 *   is the library's sizeof. A field at or past @sz is absent, and array
 *   elements are @sz apart: step with secmap_frame_at() or
 *   secmap_ko_symbol_at().
 */
#define SECMAP_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

/* The longest build-id libsecmap keeps (GNU ld emits 20 bytes for sha1, 16 for md5). */
#define SECMAP_BUILD_ID_MAX 64
/* Room for the text of any build-id it keeps, NUL included. */
#define SECMAP_BUILD_ID_STR_SIZE (2 * SECMAP_BUILD_ID_MAX + 1)
/*
 * @len bytes of build-id @id as text, the way perf and the .build-id/
 * trees spell it: lowercase hex. 0; -ENOSPC if @size cannot hold 2 * @len
 * digits and a NUL (SECMAP_BUILD_ID_STR_SIZE always does).
 */
int secmap_build_id_str(const uint8_t *id, size_t len, char *buf, size_t size);

/*
 * An output file that replaces @path only when committed: written unnamed
 * beside it (a crash or kill -9 leaves nothing), then renamed over it.
 * Symlinks are followed: the link stays and the file it leads to is
 * replaced. An existing @path that is not a regular file is refused at
 * open: -EINVAL (device, FIFO, socket), -EISDIR; -ENOLINK for a symlink
 * that leads nowhere. One handle per thread.
 */
struct secmap_output;
int secmap_output_open(const char *path, struct secmap_output **out);
int secmap_output_fd(const struct secmap_output *out);
/* Where the file goes, symlinks followed. */
const char *secmap_output_path(const struct secmap_output *out);
#define SECMAP_OUTPUT_KEEP_OLD	(1u << 0)	/* the replaced file stays as PATH.old (perf record's) */
#define SECMAP_OUTPUT_KEEP_OPEN	(1u << 1)	/* the descriptor stays open for more writes */
/* fsync and rename into place; without KEEP_OPEN the descriptor is closed. */
int secmap_output_commit(struct secmap_output *out, unsigned int flags);
/* Frees @out: not committed, it is discarded; after KEEP_OPEN, fsync and close. */
int secmap_output_close(struct secmap_output *out);
/*
 * Remove every output's temporary file that has a name on disk now (on a
 * file system without O_TMPFILE, and while one is renamed into place).
 * Async-signal-safe: for a handler of the signals that end the program,
 * which then re-raises its signal.
 */
void secmap_output_remove_temporaries(void);

/*
 * The library's messages: why an input was refused (as
 * secmap_error_reason() says it), module files not found or not matching,
 * limits reached. Nothing is printed unless a printer is set: @fn gets
 * each message as vprintf() would take it, with no trailing newline, from
 * whichever thread the message comes from. NULL: silence again. Returns
 * the printer set before.
 */
enum secmap_print_level {
	SECMAP_PRINT_WARN,	/* something is lost or limited: the answer may be poorer */
	SECMAP_PRINT_INFO,	/* what the library found or chose */
	SECMAP_PRINT_DEBUG,	/* every refused input, in detail */
};
typedef int (*secmap_print_fn_t)(enum secmap_print_level level, const char *fmt, va_list args);
secmap_print_fn_t secmap_set_print(secmap_print_fn_t fn);

/* A static string describing a negative return value of this library. */
const char *secmap_strerror(int err);

/*
 * Why this thread's last call that refused a file's contents with @err
 * refused it, in a few words ("truncated (feature section 3 ends past end
 * of file)"): more precise than secmap_strerror(@err). NULL when that call
 * had nothing to add, or failed with another error. Every call that reads
 * a perf.data file's header (the readers, inject, strip) sets or clears
 * it. Valid until this thread's next such call.
 */
const char *secmap_error_reason(int err);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_COMMON_H */
