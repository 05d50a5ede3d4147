// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The library's messages, for a caller that wants them (secmap -d): none
 * are printed unless a printer is set, as the API promises no output.
 */
#include <stdarg.h>
#include <stdatomic.h>

#include "internal.h"

static _Atomic(secmap_print_fn_t) printer;

SECMAP_EXPORT secmap_print_fn_t secmap_set_print(secmap_print_fn_t fn)
{
	return atomic_exchange(&printer, fn);
}

void libsecmap_pr(enum secmap_print_level level, const char *fmt, ...)
{
	secmap_print_fn_t fn = atomic_load_explicit(&printer, memory_order_relaxed);
	int saved = errno;
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
	errno = saved;
}
