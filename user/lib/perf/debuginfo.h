/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
#ifndef LIBSECMAP_PERF_DEBUGINFO_H
#define LIBSECMAP_PERF_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/* libdwfl's find_debuginfo callback: dwfl_standard_find_debuginfo() but for debuginfod unasked. */
int libsecmap_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     GElf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif /* LIBSECMAP_PERF_DEBUGINFO_H */
