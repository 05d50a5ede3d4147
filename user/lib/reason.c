// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Why an input was refused, in words: an error code says "truncated or
 * corrupt", the parser that refused the file knows which field. Kept per
 * thread with the code it went with, so that callers never parse a file
 * again to tell the user what is wrong with it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static __thread char reason_text[192];
static __thread int reason_err;

int libsecmap_reason(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason_text, sizeof(reason_text), fmt, ap);
	va_end(ap);
	reason_err = err;
	libsecmap_pr(SECMAP_PRINT_DEBUG, "refused (%s): %s", secmap_strerror(err), reason_text);
	return err;
}

void libsecmap_reason_clear(void)
{
	reason_err = 0;
}

SECMAP_EXPORT const char *secmap_error_reason(int err)
{
	return err && err == reason_err ? reason_text : NULL;
}
